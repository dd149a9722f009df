# shellcheck shell=sh disable=SC2016,SC2086,SC2154
# (jq programs are single-quoted; $FAST is a list of options; jget sets variables by eval)
# Topology-correct probing in a two-node guest (run-guest.sh --numa --smp 4): node 0 has
# CPUs 0-1, node 1 CPUs 2-3 and the NVDIMM.
#   - --list reports region0 on node 1, with node 1's CPUs as its local CPUs;
#   - the probe of region0 runs on node 1's CPUs only: the policy's cpus_used, and every
#     thread's affinity and last CPU sampled from /proc while it runs;
#   - a dram target with --dram-node 0 runs on node 0, its area bound there (numa_maps),
#     and --remote times it from node 1 afterwards;
#   - a file on a DAX filesystem of the region is probed from node 1 too.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /pt-e2e/lib.sh
set -u

# Timings under TCG mean nothing: the placement is what is tested.
FAST="--quick --strategies movnt,clwb"
N=/sys/devices/system/node

jget() {
	_v=$(jq -r "$2"' | to_entries[] |
		"\(.key)=\(.value | if type == "string" then . else tojson end | @sh)"' "$1") ||
		pt_fail "jq '$2' on $1 failed"
	eval "$_v"
}

# expand "0-1,3" -> " 0 1 3 "
expand() {
	_out=' '
	for _r in $(echo "$1" | tr ',' ' '); do
		_a=${_r%-*} _b=${_r#*-}
		while [ "$_a" -le "$_b" ]; do
			_out="$_out$_a "
			_a=$((_a + 1))
		done
	done
	echo "$_out"
}
in_set() { case "$2" in *" $1 "*) return 0 ;; esac; return 1; }
# every CPU of list $1 in set $2
subset() {
	for _c in $(expand "$1"); do in_set "$_c" "$2" || return 1; done
	return 0
}

# probe_watch NAME ARGS...: pmem-tune --probe ARGS in the background; while it runs,
# each thread's Cpus_allowed_list and last CPU (stat field 39) go to /tmp/NAME.aff
# ("tid allowed cpu") and the bound mappings of numa_maps to /tmp/NAME.maps.
probe_watch() {
	_n=$1
	shift
	echo "+ pmem-tune --probe $*"
	: >"/tmp/$_n.aff"
	: >"/tmp/$_n.maps"
	pmem-tune --probe "$@" >"/tmp/$_n.out" 2>"/tmp/$_n.err" &
	_pid=$!
	while kill -0 $_pid 2>/dev/null; do
		for _t in "/proc/$_pid/task/"*; do
			_a=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$_t/status" 2>/dev/null)
			_p=$(awk '{print $39}' "$_t/stat" 2>/dev/null)
			[ -n "$_a" ] && [ -n "$_p" ] && echo "${_t##*/} $_a $_p" >>"/tmp/$_n.aff"
		done
		grep ' bind:' /proc/$_pid/numa_maps >>"/tmp/$_n.maps" 2>/dev/null
		sleep 0.3
	done
	wait $_pid
	rc=$?
	echo "  exit $rc; stderr:"
	sed 's/^/  | /' "/tmp/$_n.err"
}

# check_affinity NAME NODE_CPUS [REMOTE_CPUS]: every thread sampled either still had the
# whole mask (before pinning) or was pinned inside NODE_CPUS; some were pinned.  With
# REMOTE_CPUS (--remote): the remote pass, after the sweep, alternates between the two
# nodes' CPUs; none before the first sample pinned to NODE_CPUS (the pass is short:
# whether a sample catches it is left to chance, the policy says where it ran).  The
# last CPU a thread ran on is read apart from its mask: a thread caught between a new
# mask and its move there shows one outside it ("moving"); most samples show it inside.
check_affinity() {
	_all=$(cat /sys/devices/system/cpu/online)
	_pinned=0 _bad=0 _tids=' ' _remote=0 _moving=0
	while read -r _tid _a _p; do
		[ "$_a" = "$_all" ] && continue
		if subset "$_a" "$2"; then
			_pinned=$((_pinned + 1))
			in_set "$_tid" "$_tids" || _tids="$_tids$_tid "
		elif [ -n "${3:-}" ] && [ "$_pinned" -gt 0 ] && subset "$_a" "$3"; then
			_remote=$((_remote + 1))
		else
			echo "  thread $_tid: allowed $_a, last on CPU $_p"
			_bad=$((_bad + 1))
			continue
		fi
		in_set "$_p" "$(expand "$_a")" || _moving=$((_moving + 1))
	done <"/tmp/$1.aff"
	echo "  $1: $(wc -l <"/tmp/$1.aff") samples, $_pinned pinned inside {$2}," \
		"$_remote in the remote pass, $_bad elsewhere, $_moving moving;" \
		"pinned threads:$_tids"
	pt_expect_eq "$1: no thread outside the node's CPUs" 0 "$_bad"
	pt_check "$1: threads were seen pinned" [ "$_pinned" -gt 0 ]
	pt_check "$1: pinned threads ran inside their mask" \
		[ $((2 * _moving)) -lt $((_pinned + _remote)) ]
	pinned_threads=$(echo $_tids | wc -w)
}

echo "node0: $(cat $N/node0/cpulist)  node1: $(cat $N/node1/cpulist)" \
	" distance: $(cat $N/node1/distance)"
node0=$(expand "$(cat $N/node0/cpulist)")
node1=$(expand "$(cat $N/node1/cpulist)")
pt_expect_eq "guest has two nodes" 0-1 "$(cat $N/online)"

# labels first: a label-less region is skipped by --target auto
pt_run ndctl disable-region all >/dev/null || pt_fail "disable-region"
pt_run ndctl init-labels all >/dev/null || pt_fail "init-labels"
pt_run ndctl enable-region all >/dev/null || pt_fail "enable-region"

pt_run pmem-tune --list | sed -n '/^Persistent memory/,$p'
pmem-tune --list >/tmp/list.txt || pt_fail "pmem-tune --list failed"
pmem-tune --list --json >/tmp/list.json || pt_fail "pmem-tune --list --json failed"
jget /tmp/list.json '.buses[0].regions[0] | {l_numa: .numa_node, l_target: .target_node,
	l_from: .probe_from_node, l_place: .probe_placement, l_cpus: .local_cpus}'
pt_expect_eq "--list --json: region0 numa_node" 1 "$l_numa"
pt_expect_eq "--list --json: region0 target_node" 1 "$l_target"
pt_expect_eq "--list --json: region0 probed from node" 1 "$l_from"
pt_expect_eq "--list --json: placement" local "$l_place"
pt_expect_eq "--list --json: local CPUs are node 1's" "$(cat $N/node1/cpulist)" "$l_cpus"
pt_check "--list: text names node 1's CPUs" \
	grep -q "target node 1, local CPUs $(cat $N/node1/cpulist)\$" /tmp/list.txt

probe_watch region $FAST --target auto --output /tmp/region.json
pt_expect_eq "region probe exit status" 0 "$rc"
pt_check "region probe says where it runs" grep -q "from node 1, CPUs .* (local)" /tmp/region.err
check_affinity region "$node1"
jget /tmp/region.json '.targets[0] | {p_name: .name, p_numa: .numa_node,
	p_target: .target_node, p_from: .probed_from_node, p_place: .placement,
	p_cpus: (.cpus_used | map(tostring) | join(",")), p_bound: .memory_bound,
	p_fill: (.saturation.fill.threads | map(tostring) | join(",")),
	p_ops: ([.ops[].threads] | unique | map(tostring) | join(","))}'
echo "  policy: $p_name numa_node $p_numa target_node $p_target probed_from_node $p_from" \
	"placement $p_place cpus_used [$p_cpus] memory_bound $p_bound" \
	"fill threads [$p_fill] ops threads [$p_ops]"
pt_expect_eq "policy: region0" region0 "$p_name"
pt_expect_eq "policy: numa_node" 1 "$p_numa"
pt_expect_eq "policy: target_node" 1 "$p_target"
pt_expect_eq "policy: probed_from_node" 1 "$p_from"
pt_expect_eq "policy: placement" local "$p_place"
pt_check "policy: cpus_used ($p_cpus) are node 1's" subset "$p_cpus" "$node1"
pt_expect_eq "policy: memory_bound" true "$p_bound"
# the threads of the series, each on its own CPU of node 1 (the caller is thread 0)
pt_check "region: as many threads seen pinned as cpus_used has ($pinned_threads)" \
	[ "$pinned_threads" -ge "$(echo "$p_cpus" | tr ',' ' ' | wc -w)" ]
pt_check "policy: the fill series starts at one thread" [ "${p_fill%%,*}" = 1 ]

probe_watch dram $FAST --target dram --dram-node 0 --area-size 64M --remote \
	--output /tmp/dram.json
pt_expect_eq "dram probe exit status" 0 "$rc"
check_affinity dram "$node0" "$node1"
jget /tmp/dram.json '.targets[0] | {d_numa: .numa_node, d_target: .target_node,
	d_from: .probed_from_node, d_place: .placement,
	d_cpus: (.cpus_used | map(tostring) | join(",")), d_bound: .memory_bound,
	d_remote: (.remote_penalty.from_node // -1), d_ncells: (.remote_penalty.cells | length),
	d_ratio: .remote_penalty.ratio}'
echo "  policy: dram numa_node $d_numa target_node $d_target probed_from_node $d_from" \
	"placement $d_place cpus_used [$d_cpus] memory_bound $d_bound" \
	"remote_penalty from node $d_remote, $d_ncells cells, ratio $d_ratio"
pt_expect_eq "dram: numa_node" 0 "$d_numa"
pt_expect_eq "dram: target_node" 0 "$d_target"
pt_expect_eq "dram: probed_from_node" 0 "$d_from"
pt_check "dram: cpus_used ($d_cpus) are node 0's" subset "$d_cpus" "$node0"
pt_expect_eq "dram: memory_bound" true "$d_bound"
pt_expect_eq "dram: remote penalty timed from node 1" 1 "$d_remote"
pt_check "dram: remote penalty has cells" [ "$d_ncells" -gt 0 ]
# the 64 MiB area: bound to node 0, and its pages there
echo "  bound mappings seen:"
sort -u /tmp/dram.maps | sed 's/^/  | /' | head -n 8
pt_check "dram: an area bound to node 0 with its pages on node 0" \
	grep -q 'bind:0 .*N0=' /tmp/dram.maps
pt_check "dram: no page of a node-0 binding on node 1" \
	sh -c "! grep 'bind:0 ' /tmp/dram.maps | grep -q 'N1='"
# a file on a DAX filesystem of the region: its node from the block device (pmem0 -> node 1)
pt_run ndctl create-namespace -r region0 -m fsdax -s 128M >/dev/null || pt_fail "fsdax namespace"
if ! mkfs.ext4 -q -F -b 4096 /dev/pmem0 || ! mkdir -p /mnt/dax || ! mount -o dax /dev/pmem0 /mnt/dax; then
	pt_fail "cannot make a DAX filesystem on /dev/pmem0"
fi
probe_watch file --quick --strategies clwb --threads 1 --area-size 64M \
	--target file:/mnt/dax/probe --output /tmp/file.json
pt_expect_eq "file probe exit status" 0 "$rc"
check_affinity file "$node1"
jget /tmp/file.json '.targets[0] | {f_map: .mapping, f_target: .target_node,
	f_from: .probed_from_node, f_place: .placement,
	f_cpus: (.cpus_used | map(tostring) | join(","))}'
echo "  policy: file mapping $f_map target_node $f_target probed_from_node $f_from" \
	"placement $f_place cpus_used [$f_cpus]"
pt_expect_eq "file: mapped with MAP_SYNC" map_sync "$f_map"
pt_expect_eq "file: target_node from its block device" 1 "$f_target"
pt_expect_eq "file: probed from node 1" 1 "$f_from"
pt_expect_eq "file: placement" local "$f_place"
umount /mnt/dax
pt_done
