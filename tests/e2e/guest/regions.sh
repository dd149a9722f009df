# shellcheck shell=sh disable=SC2016,SC2086,SC2154,SC2317
# (jq programs are single-quoted; $FAST is a list of options; jget sets variables by
# eval; scenarios are called by name)
# Regions and scratch namespaces end to end (busybox sh in the guest, pmem-tune on PATH).
# usage: regions.sh SCENARIO
#   labelled [fast]
#              --list (before and after init-labels) against ndctl, then
#              `--probe --quick --target auto` (fast: a smaller sweep, same lifecycle):
#              a devdax scratch namespace is created,
#              probed and destroyed; the policy target is the region, kind pmem, with
#              its persistence domain and DIMMs
#   data       a region already holding namespaces (one with data, one the test named
#              pmem-tune-scratch): both untouched, checksum and namespace list identical
#   kill       a probe killed with SIGKILL leaves its namespace and record; the next
#              probe removes it, says so, and writes a valid policy
#   fsdax      the fsdax fallback (PMEM_TUNE_SCRATCH_MODE=fsdax): ext4 -o dax and a
#              file; killed, then reaped (unmounted and destroyed), then a full probe
#   labelless  label-less region: reported, skipped by auto (dram instead), refused for
#              region:NAME without --destroy-data and while mounted, probed whole with
#              it and put back to raw
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /pt-e2e/lib.sh
set -u
out=''

scenario=${1:-labelled}
STATE=/var/lib/pmem-tune
PD=$(pt_persistence_name "${PT_E2E_PERSISTENCE:-}")
MiB=1048576
# Scenarios other than `labelled` assert lifecycle, not curves: a smaller sweep
# (TCG timings mean nothing anyway) keeps the label inside its time budget.
FAST="--quick --threads 1 --strategies movnt,clwb,noflush"
echo "scenario $scenario: labels=${PT_E2E_LABELS:-1} persistence_domain=$PD"

# jq costs most of a second per run under TCG: each check below reads what it needs
# with one run.  jget FILE FILTER: FILTER yields an object; each member becomes a
# shell variable of that name (strings as they are, anything else as JSON).
jget() {
	_v=$(jq -r "$2"' | to_entries[] |
		"\(.key)=\(.value | if type == "string" then . else tojson end | @sh)"' "$1") ||
		pt_fail "jq '$2' on $1 failed"
	eval "$_v"
}
# region0 as ndctl list -Rv shows it, into /tmp/nd.json
nd_region() {
	ndctl list -Rv | jq '(if type == "array" then .[0] elif has("regions") then .regions[0]
		else . end) // {}' >/tmp/nd.json
}
# namespaces, as a canonical string (sorted keys), "[]" when none
nd_namespaces() { ndctl list -N -v | jq -S -c -s '[.[] | if type == "array" then .[] else . end]'; }
scratch_count() {
	ndctl list -N | jq -s '[.. | objects | select(.name? == "pmem-tune-scratch")] | length'
}
list_json() { pmem-tune --list --json >/tmp/list.json || pt_fail "pmem-tune --list --json failed"; }
# the region part of --list --json, as variables r_*
list_region() {
	list_json
	jget /tmp/list.json '.buses[0].regions[0] as $r | {
		r_buses: (.buses | length), r_provider: .buses[0].provider, r_dev: $r.dev,
		r_size: $r.size, r_avail: $r.available_size, r_extent: $r.max_available_extent,
		r_pd: $r.persistence_domain, r_numa: $r.numa_node, r_ways: $r.interleave_ways,
		r_label_less: $r.label_less, r_labels: $r.labels, r_auto: $r.scratch.auto,
		r_reason: ($r.scratch.reason // ""), r_dimm: $r.mappings[0].dimm,
		r_vendor: $r.mappings[0].vendor,
		r_ids_hex: ($r.mappings[0] | [.vendor, .device, .firmware] |
			all(test("^0x[0-9a-f]{4}$"))),
		r_nns: ($r.namespaces | length), r_ns_mode: ($r.namespaces[0].mode // ""),
		r_ns_bdev: ($r.namespaces[0].blockdev // ""),
		r_ns_active: ($r.namespaces[0].active // false),
		r_ns_scratch_named: ([$r.namespaces[] | select(.scratch_name)] | length),
		r_ns_scratch_uuid: ([$r.namespaces[] | select(.name == "pmem-tune-scratch")][0].raw_uuid // ""),
		r_records: (.scratch_records // [] | length),
		r_dax_nvdimm: (.dax_regions | map(select(.backing == "nvdimm" and .region == "region0"
			and (.devices | length == 1) and .devices[0].mode == "devdax")) | length),
		s_avx512: (.strategies[] | select(.name == "movnt_avx512") |
			"\(.supported)/\(.missing)"),
		s_movdir64b: (.strategies[] | select(.name == "movdir64b") | .supported),
		s_clwb: (.strategies[] | select(.name == "clwb") | .supported),
		s_noflush: (.strategies[] | select(.name == "noflush") | .needs_persistence_domain),
		c_features: (.cpu.features | index("clwb") and index("clflushopt") and index("avx2"))
	}'
}
# target 0 of policy FILE, as variables t_*
policy_target() {
	jget "$1" '.targets[0] as $t | {
		t_n: (.targets | length), t_name: $t.name, t_kind: $t.kind, t_device: $t.device,
		t_mapping: $t.mapping, t_pd: $t.persistence_domain, t_numa: $t.numa_node,
		t_ways: $t.interleave_ways, t_dimm: ($t.dimms[0].name // ""),
		t_vendor: ($t.dimms[0].vendor // ""), t_area: $t.area_bytes,
		t_noflush_ref: ([$t.ops[].curves.noflush.reference_only // false] | unique |
			map(tostring) | join(","))
	}'
	echo "  policy target: $t_name kind $t_kind device $t_device mapping $t_mapping" \
		"persistence_domain $t_pd numa_node $t_numa interleave_ways $t_ways" \
		"dimm $t_dimm vendor $t_vendor area $t_area"
}

# A blank label area makes the region label-less until labels are initialised (smoke.sh).
init_labels() {
	pt_run ndctl disable-region all >/dev/null || pt_fail "disable-region"
	pt_run ndctl init-labels all >/dev/null || pt_fail "init-labels"
	pt_run ndctl enable-region all >/dev/null || pt_fail "enable-region"
	nd_region
	jget /tmp/nd.json '{nd_avail: .available_size}'
	[ "$nd_avail" -gt 0 ] || pt_fail "no capacity after init-labels"
}

# probe NAME ARGS...: runs pmem-tune --probe ARGS, stdout/stderr to /tmp/NAME.{out,err};
# sets rc; prints stderr
probe() {
	_n=$1
	shift
	echo "+ pmem-tune --probe $*"
	_t0=$(date +%s)
	pmem-tune --probe "$@" >"/tmp/$_n.out" 2>"/tmp/$_n.err"
	rc=$?
	echo "  exit $rc after $(($(date +%s) - _t0)) s; stderr:"
	sed 's/^/  | /' "/tmp/$_n.err"
}

# wait_probing FILE PID: until the probe logged that it started measuring (at most 120 s)
wait_probing() {
	_i=0
	while ! grep -q "probing region0" "$1" && kill -0 "$2" 2>/dev/null && [ $_i -lt 1200 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	grep -q "probing region0" "$1"
}

check_no_scratch_left() {
	pt_expect_eq "$1: no pmem-tune-scratch namespace" 0 "$(scratch_count)"
	pt_check "$1: no state record" [ ! -e $STATE/scratch.json ]
	pt_check "$1: no scratch mount" sh -c "! grep -q ' $STATE/' /proc/mounts"
}

check_strategies() {
	pt_expect_eq "--list: movnt_avx512 unsupported, missing avx512f" false/avx512f "$s_avx512"
	pt_expect_eq "--list: movdir64b unsupported" false "$s_movdir64b"
	pt_expect_eq "--list: clwb supported" true "$s_clwb"
	pt_expect_eq "--list: noflush needs the cpu_cache domain" cpu_cache "$s_noflush"
	pt_expect_eq "--list: cpu features have clwb, clflushopt, avx2" true "$c_features"
}

# check_region_against_ndctl LABEL: --list's region0 (list_region) agrees with ndctl list -Rv
check_region_against_ndctl() {
	nd_region
	jget /tmp/nd.json '{nd_size: .size, nd_avail: (.available_size // 0),
		nd_extent: (.max_available_extent // 0), nd_pd: (.persistence_domain // "unknown"),
		nd_numa: (.numa_node // -1)}'
	pt_expect_eq "$1: one bus" 1 "$r_buses"
	pt_expect_eq "$1: bus provider" ACPI.NFIT "$r_provider"
	pt_expect_eq "$1: region dev" region0 "$r_dev"
	pt_expect_eq "$1: size as ndctl" "$nd_size" "$r_size"
	pt_expect_eq "$1: available_size as ndctl" "$nd_avail" "$r_avail"
	pt_expect_eq "$1: max_available_extent as ndctl" "$nd_extent" "$r_extent"
	pt_expect_eq "$1: persistence_domain" "$PD" "$r_pd"
	pt_expect_eq "$1: persistence_domain as ndctl" "$nd_pd" "$r_pd"
	pt_expect_eq "$1: numa_node as ndctl" "$nd_numa" "$r_numa"
	pt_expect_eq "$1: interleave_ways" 1 "$r_ways"
	pt_expect_eq "$1: mapped DIMM" nmem0 "$r_dimm"
	pt_expect_eq "$1: DIMM vendor/device/firmware are 0x%04x" true "$r_ids_hex"
}

scenario_labelled() {
	# fresh backing file: the label area is blank
	list_region
	pt_expect_eq "blank labels: label_less" true "$r_label_less"
	pt_expect_eq "blank labels: labels" uninitialized "$r_labels"
	pt_expect_eq "blank labels: not for auto" false "$r_auto"
	pt_check "blank labels: reason names init-labels" \
		sh -c 'case "$1" in *init-labels*) ;; *) exit 1 ;; esac' - "$r_reason"

	init_labels
	list_region
	check_strategies
	check_region_against_ndctl "labelled"
	pt_expect_eq "labelled: label_less" false "$r_label_less"
	pt_expect_eq "labelled: labels" active "$r_labels"
	pt_expect_eq "labelled: auto takes it" true "$r_auto"
	pt_expect_eq "labelled: no namespaces" 0 "$r_nns"
	pmem-tune --list >/tmp/list.txt || pt_fail "pmem-tune --list failed"
	cat /tmp/list.txt
	pt_check "--list names region0 and its domain" \
		grep -q "persistence domain $PD" /tmp/list.txt
	vendor=$r_vendor numa=$r_numa avail=$r_avail

	if [ "${1:-}" = fast ]; then
		probe p $FAST --target auto --output /tmp/p.json
	else
		probe p --quick --target auto --output /tmp/p.json
	fi
	pt_expect_eq "probe auto exit status" 0 "$rc"
	pt_check "the probe said which region it probed" grep -q "probing region0 (/dev/dax" /tmp/p.err
	pt_check "policy written" [ -s /tmp/p.json ]
	policy_target /tmp/p.json
	pt_expect_eq "policy: one target" 1 "$t_n"
	pt_expect_eq "policy target name" region0 "$t_name"
	pt_expect_eq "policy target kind" pmem "$t_kind"
	pt_expect_eq "policy target mapping" devdax "$t_mapping"
	pt_check "policy target device is a dax device" \
		sh -c 'case "$1" in /dev/dax[0-9]*.[0-9]*) ;; *) exit 1 ;; esac' - "$t_device"
	pt_expect_eq "policy persistence_domain" "$PD" "$t_pd"
	pt_expect_eq "policy interleave_ways" 1 "$t_ways"
	pt_expect_eq "policy numa_node" "$numa" "$t_numa"
	pt_expect_eq "policy DIMM" nmem0 "$t_dimm"
	pt_expect_eq "policy DIMM vendor" "$vendor" "$t_vendor"
	pt_check "policy area at least 64 MiB" [ "$t_area" -ge $((64 * MiB)) ]
	# noflush persists only where the CPU cache is in the persistence domain
	noflush_ref=true
	[ "$PD" = cpu_cache ] && noflush_ref=false
	pt_expect_eq "noflush is a reference curve unless the domain is cpu_cache" "$noflush_ref" \
		"$t_noflush_ref"
	pt_run pmem-tune --check /tmp/p.json
	pt_expect_eq "--check: the policy matches this host" 0 "$?"
	check_no_scratch_left "after the probe"
	pt_expect_eq "after the probe: no namespaces" "[]" "$(nd_namespaces)"
	nd_region
	jget /tmp/nd.json '{nd_avail: .available_size}'
	pt_expect_eq "after the probe: capacity back" "$avail" "$nd_avail"
}

scenario_data() {
	init_labels
	pt_json out ndctl create-namespace -r region0 -m fsdax -s 256M -n user-data
	bdev=/dev/$(echo "$out" | jq -r .blockdev)
	pt_wait_for "$bdev" || pt_fail "$bdev missing"
	dd if=/dev/urandom of="$bdev" bs=1M count=16 conv=fsync 2>/dev/null || pt_fail "dd to $bdev"
	sum1=$(dd if="$bdev" bs=1M count=16 2>/dev/null | sha256sum)
	# a namespace the test created with the probe's alt-name: still not the probe's
	pt_json out ndctl create-namespace -r region0 -m devdax -s 128M -a 2M -n pmem-tune-scratch
	before=$(nd_namespaces)
	list_region
	pt_expect_eq "--list shows both namespaces" 2 "$r_nns"
	pt_expect_eq "--list flags the scratch-named namespace" 1 "$r_ns_scratch_named"
	pt_expect_eq "--list: the devdax namespace's dax region, NVDIMM-backed" 1 "$r_dax_nvdimm"

	probe p $FAST --target auto --output /tmp/p.json
	pt_expect_eq "probe exit status" 0 "$rc"
	pt_check "the foreign scratch-named namespace was left alone, and said so" \
		grep -q "no record of ours matches" /tmp/p.err
	policy_target /tmp/p.json
	pt_expect_eq "policy target kind" pmem "$t_kind"
	pt_expect_eq "namespace list identical" "$before" "$(nd_namespaces)"
	pt_expect_eq "user data identical" "$sum1" \
		"$(dd if="$bdev" bs=1M count=16 2>/dev/null | sha256sum)"
	pt_check "no state record" [ ! -e $STATE/scratch.json ]
	pt_expect_eq "only the test's scratch-named namespace" 1 "$(scratch_count)"
}

# kill_midway NAME ARGS...: starts a probe, SIGKILLs it once it measures
kill_midway() {
	_n=$1
	shift
	echo "+ pmem-tune --probe $* &  (to be killed)"
	pmem-tune --probe "$@" >"/tmp/$_n.out" 2>"/tmp/$_n.err" &
	_pid=$!
	wait_probing "/tmp/$_n.err" $_pid || { cat "/tmp/$_n.err"; pt_fail "$_n never started probing"; }
	sleep 1		# into the sweep; a full --quick sweep lasts much longer
	kill -9 $_pid
	wait $_pid
	pt_expect_eq "$_n killed by SIGKILL" 137 "$?"
	sed 's/^/  | /' "/tmp/$_n.err"
}

# check_left_behind: the killed probe's namespace and the record naming it
check_left_behind() {
	list_region
	pt_expect_eq "killed: its namespace is still there" 1 "$r_ns_scratch_named"
	pt_check "killed: state record present" [ -s $STATE/scratch.json ]
	cat $STATE/scratch.json
	jget $STATE/scratch.json '{rec_n: (.scratch | length), rec_uuid: .scratch[0].uuid}'
	pt_expect_eq "killed: one record" 1 "$rec_n"
	pt_expect_eq "killed: the record has the namespace's uuid" "$r_ns_scratch_uuid" "$rec_uuid"
	pt_expect_eq "killed: --list shows the record" 1 "$r_records"
}

# region_avail: region0's available size per ndctl, into $nd_avail
region_avail() {
	nd_region
	jget /tmp/nd.json '{nd_avail: .available_size}'
}

scenario_kill() {
	init_labels
	region_avail
	avail=$nd_avail
	kill_midway p1 --quick --target auto --output /tmp/p1.json
	check_left_behind
	pt_check "killed: no policy written" [ ! -e /tmp/p1.json ]

	probe p2 $FAST --target auto --output /tmp/p2.json
	pt_expect_eq "second probe exit status" 0 "$rc"
	pt_check "second probe removed the stale namespace and said so" \
		grep -q "removed stale scratch namespace" /tmp/p2.err
	pt_run pmem-tune --check /tmp/p2.json
	pt_expect_eq "second probe's policy is valid for this host" 0 "$?"
	policy_target /tmp/p2.json
	pt_expect_eq "policy target kind" pmem "$t_kind"
	check_no_scratch_left "after the second probe"
	region_avail
	pt_expect_eq "capacity back" "$avail" "$nd_avail"
}

scenario_fsdax() {
	init_labels
	export PMEM_TUNE_SCRATCH_MODE=fsdax
	region_avail
	avail=$nd_avail
	kill_midway p1 --quick --target auto --output /tmp/p1.json
	check_left_behind
	pt_check "killed: its DAX mount is still there" \
		sh -c "grep ' $STATE/mnt-' /proc/mounts | grep -q dax"
	grep " $STATE/" /proc/mounts

	probe p2 $FAST --target auto --output /tmp/p2.json
	pt_expect_eq "fsdax probe exit status" 0 "$rc"
	pt_check "the stale fsdax scratch was removed" \
		grep -q "removed stale scratch namespace.*fsdax" /tmp/p2.err
	policy_target /tmp/p2.json
	pt_expect_eq "policy target kind" pmem "$t_kind"
	pt_expect_eq "policy target mapping" map_sync "$t_mapping"
	pt_check "policy target device is the file on the DAX mount" \
		sh -c 'case "$1" in "$2"/mnt-*) ;; *) exit 1 ;; esac' - "$t_device" "$STATE"
	pt_expect_eq "policy persistence_domain" "$PD" "$t_pd"
	check_no_scratch_left "after the fsdax probe"
	pt_check "no mount directory left" sh -c "! ls -d $STATE/mnt-* 2>/dev/null"
	region_avail
	pt_expect_eq "capacity back" "$avail" "$nd_avail"
}

scenario_labelless() {
	list_region
	check_strategies
	check_region_against_ndctl "label-less"
	pt_expect_eq "label_less" true "$r_label_less"
	pt_expect_eq "labels" none "$r_labels"
	pt_expect_eq "one namespace" 1 "$r_nns"
	pt_expect_eq "its mode" raw "$r_ns_mode"
	pt_expect_eq "its device" pmem0 "$r_ns_bdev"
	pt_expect_eq "active" true "$r_ns_active"
	pt_expect_eq "not for auto" false "$r_auto"
	pt_check "the reason says label-less" \
		sh -c 'case "$1" in *label-less*) ;; *) exit 1 ;; esac' - "$r_reason"
	pmem-tune --list | grep -q "label-less: cannot be subdivided" ||
		pt_check "--list says label-less" false

	dd if=/dev/urandom of=/dev/pmem0 bs=1M count=16 conv=fsync 2>/dev/null || pt_fail "dd"
	sum1=$(dd if=/dev/pmem0 bs=1M count=16 2>/dev/null | sha256sum)
	before=$(nd_namespaces)

	probe p $FAST --target auto --output /tmp/p.json
	pt_expect_eq "auto exit status" 0 "$rc"
	pt_check "auto said why region0 was skipped" grep -q "skipping region0: label-less" /tmp/p.err
	policy_target /tmp/p.json
	pt_expect_eq "auto fell back to dram" dram "$t_kind"
	pt_expect_eq "auto: namespaces untouched" "$before" "$(nd_namespaces)"

	probe q $FAST --target region:region0 --output /tmp/q.json
	pt_expect_eq "region:region0 without --destroy-data refused" 2 "$rc"
	pt_expect_eq "refused with one line" 1 "$(wc -l </tmp/q.err)"
	pt_check "the line names --destroy-data" grep -q -- "--destroy-data" /tmp/q.err
	pt_check "no policy written" [ ! -e /tmp/q.json ]
	pt_expect_eq "refused: namespaces untouched" "$before" "$(nd_namespaces)"
	pt_expect_eq "refused: data untouched" "$sum1" \
		"$(dd if=/dev/pmem0 bs=1M count=16 2>/dev/null | sha256sum)"

	if ! mkfs.ext4 -q -F /dev/pmem0 || ! mkdir -p /mnt/user ||
	   ! mount /dev/pmem0 /mnt/user; then
		pt_fail "cannot mount /dev/pmem0"
	fi
	probe m $FAST --target region:region0 --destroy-data --output /tmp/m.json
	pt_check "mounted: refused" [ "$rc" -ne 0 ]
	pt_check "mounted: says so" grep -q "mounted or open elsewhere" /tmp/m.err
	pt_check "mounted: still mounted" grep -q "^/dev/pmem0 /mnt/user" /proc/mounts
	pt_expect_eq "mounted: namespaces untouched" "$before" "$(nd_namespaces)"
	umount /mnt/user

	probe d $FAST --target region:region0 --destroy-data --output /tmp/d.json
	pt_expect_eq "region:region0 --destroy-data exit status" 0 "$rc"
	policy_target /tmp/d.json
	pt_expect_eq "policy target name" region0 "$t_name"
	pt_expect_eq "policy target kind" pmem "$t_kind"
	pt_expect_eq "policy target mapping" devdax "$t_mapping"
	pt_expect_eq "policy persistence_domain" "$PD" "$t_pd"
	pt_expect_eq "put back: namespaces as before" "$before" "$(nd_namespaces)"
	pt_check "put back: /dev/pmem0 is a block device again" [ -b /dev/pmem0 ]
	pt_check "no state record" [ ! -e $STATE/scratch.json ]
	pt_expect_eq "no dax device left" 0 \
		"$(daxctl list | jq -s '[.. | objects | select(has("chardev"))] | length')"

	# already devdax: used as it is, never reconfigured, refused while open
	pt_json out ndctl create-namespace -f -e namespace0.0 -m devdax
	chardev=/dev/$(echo "$out" | jq -r '.daxregion.devices[0].chardev')
	pt_wait_for "$chardev" || pt_fail "$chardev missing"
	before=$(nd_namespaces)
	# shellcheck disable=SC2217 # the open descriptor is the point
	sleep 60 <"$chardev" &
	holder=$!
	probe o $FAST --target region:region0 --destroy-data --output /tmp/o.json
	pt_check "devdax open elsewhere: refused" [ "$rc" -ne 0 ]
	pt_check "devdax open elsewhere: says which process" \
		grep -q "is open in process $holder" /tmp/o.err
	kill $holder
	wait $holder 2>/dev/null
	probe e $FAST --target region:region0 --destroy-data --output /tmp/e.json
	pt_expect_eq "devdax as it is: exit status" 0 "$rc"
	policy_target /tmp/e.json
	pt_expect_eq "devdax as it is: the device probed" "$chardev" "$t_device"
	pt_expect_eq "devdax as it is: kind" pmem "$t_kind"
	pt_expect_eq "devdax as it is: namespaces as before" "$before" "$(nd_namespaces)"
	pt_check "no state record" [ ! -e $STATE/scratch.json ]
}

case $scenario in
labelled | data | kill | fsdax | labelless) "scenario_$scenario" "${2:-}" ;;
*) pt_fail "unknown scenario $scenario" ;;
esac
pt_done
