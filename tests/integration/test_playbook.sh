#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# docs/examples/pmem-policy.yml, run: ansible-playbook -c local against this
# host, in a throwaway tree (every path the playbook writes is a variable), with
# the built pmem-tune probing dram quickly.
#   1st run: probes, keeps the probe in the state directory it creates, merges,
#            installs a bundle valid for this host, writes metrics, turns on
#            pmem-tuned's own metrics file (its configuration, a drop-in);
#   2nd run: nothing new: changed=0, no probe, the bundle in force diffed
#            against (same) and kept, no previous bundle made of it;
#   3rd run: a broken installed policy makes the host probe again: a new
#            bundle, the one it replaces kept as the previous one;
#   4th run: nothing new again: changed=0, the previous bundle still the one
#            before the 3rd run's;
#   5th run: a bundle without this host's platform is refused by the copy's
#            validate (pmem-tune --check): the installed policy stays.
# Then a fleet of two kernels: two hosts (each its own tree) whose kept probes
# and installed policies differ only in platform.kernel (and their host ids),
# neither the kernel this machine runs: a kernel is the environment, no reason
# to probe or to refuse the bundle, so the 1st run merges both hosts' probes
# into one entry and installs it on both, and the 2nd run reports changed=0.
# usage: test_playbook.sh PLAYBOOK PMEM_TUNE PMEM_TUNED_CONF
set -uo pipefail
playbook=$1
tune=$(realpath "$2")
tuned_conf=$3
if ! command -v ansible-playbook >/dev/null; then
	echo "skipped: ansible-playbook is not installed (Debian: ansible-core; scripts/deps.sh test)"
	exit 77
fi
# shellcheck source-path=SCRIPTDIR source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pt-playbook.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false \
	ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=false ANSIBLE_LOCAL_TEMP=$tmp/ansible \
	ANSIBLE_REMOTE_TEMP=$tmp/ansible ANSIBLE_HOME=$tmp/ansible ANSIBLE_GATHERING=explicit \
	ANSIBLE_PIPELINING=true

# its log aside, not ok's line
syntax_check() {
	ansible-playbook --syntax-check "$playbook" >"$tmp/syntax.log" 2>&1 ||
		{ sed 's/^/#   /' "$tmp/syntax.log"; false; }
}
ok "ansible-playbook --syntax-check accepts it" syntax_check

# this host, managed locally, without sudo
cat >"$tmp/inventory" <<INV
[pmem_hosts]
localhost ansible_connection=local ansible_become=false ansible_python_interpreter=$(command -v python3)
INV
policy=$tmp/etc/pmem-policy.json
state=$tmp/var/lib/pmem-tune
fleet=$tmp/fleet
prom=$tmp/textfile/pmem-tune.prom
conf=$tmp/etc/pmem-tuned/pmem-tuned.conf
dropin=$tmp/etc/systemd/system/pmem-tuned.service.d/50-metrics-file.conf
mkdir -p "$tmp/etc/pmem-tuned" "$tmp/textfile"
cp "$tuned_conf" "$conf"
# no service to reload here
cat >"$tmp/vars.json" <<VARS
{"pmem_tune": "$tune", "pmem_policy_path": "$policy", "pmem_state_dir": "$state",
 "pmem_fleet_dir": "$fleet", "pmem_metrics_path": "$prom",
 "pmem_tuned_conf": "$conf", "pmem_tuned_metrics_path": "$tmp/textfile/pmem_tuned.prom",
 "pmem_tuned_dropin": "$dropin", "pmem_tuned_service": "",
 "pmem_policy_owner": "$(id -un)", "pmem_probe_args": ["--target", "dram", "--quick"]}
VARS
run=0
inventory=$tmp/inventory vars=$tmp/vars.json
play() {	# one run; its log in $tmp/run-N.log
	run=$((run + 1))
	ansible-playbook -i "$inventory" -e "@$vars" "$playbook" >"$tmp/run-$run.log" 2>&1
}
# a failing run shows its log's end, once
shown=0
tap_on_fail() {
	((shown == run)) && return
	shown=$run
	sed 's/^/#   /' "$tmp/run-$run.log" | tail -n 30
}
task_result() {	# TASK-NAME-PREFIX [HOST]: ok, changed, skipping or fatal for HOST (localhost)
	awk -v t="TASK [$1" -v h="[${2:-localhost}]" '
		index($0, t) == 1 { on = 1; next }
		/^TASK \[/ { on = 0 }
		on && /^(ok|changed|skipping|fatal):/ && index($0, h) {
			sub(/:.*/, ""); print; exit }' "$tmp/run-$run.log"
}
is() { [ "$(task_result "$1" "${3:-}")" = "$2" ]; }
# the recap's changed= of every host, summed; none if there is no recap
changed() {
	awk '/^PLAY RECAP/ { on = 1; next }
		on && match($0, / changed=[0-9]+/) { n += substr($0, RSTART + 9, RLENGTH - 9); any = 1 }
		END { if (any) print n }' "$tmp/run-$run.log"
}
check_rc() { "$tune" --check "$1" >/dev/null 2>&1; echo $?; }
sum() { sha256sum 2>/dev/null <"$1"; }
conf_line="metrics_file = $tmp/textfile/pmem_tuned.prom"

# 1st run: from nothing
ok "1st run succeeds" play
ok "1st run: the state directory was created, mode 0700" \
	test "$(stat -c %a "$state" 2>/dev/null)" = 700
ok "1st run: probed" is "Probe" changed
ok "1st run: the probe kept in the state directory" test -s "$state/probe.json"
ok "1st run: fetched to the controller" test -s "$fleet/probes/localhost.json"
ok "1st run: the installed policy is valid for this host" test "$(check_rc "$policy")" = 0
ok "1st run: installed mode 0644" test "$(stat -c %a "$policy")" = 644
ok "1st run: the bundle is in force on the controller" test -s "$fleet/pmem-policy.json"
ok "1st run: the installed policy is the bundle in force" cmp -s "$policy" "$fleet/pmem-policy.json"
ok "1st run: nothing left as new" test ! -e "$fleet/pmem-policy.new.json"
ok "1st run: no previous bundle to diff against" is "Show what changed" skipping
ok "1st run: no previous bundle kept" test ! -e "$fleet/pmem-policy.previous.json"
ok "1st run: metrics written" grep -q '^pmem_tune_' "$prom"
ok "1st run: pmem-tuned's metrics file turned on, once" \
	test "$(grep -cx -- "$conf_line" "$conf")" = 1
ok "1st run: the rest of pmem-tuned's configuration kept" \
	test -z "$(diff "$tuned_conf" "$conf" | grep '^[<>]' | grep -v metrics_file)"
ok "1st run: pmem-tuned's unit may write the textfile directory" \
	grep -qx "ReadWritePaths=$tmp/textfile" "$dropin"

# 2nd run: nothing new
probe_id=$(stat -c '%i %Y' "$state/probe.json")
policy_sum=$(sum "$policy")
first=$(sum "$fleet/pmem-policy.json")
conf_sum=$(sum "$conf")$(sum "$dropin")
ok "2nd run succeeds" play
ok "2nd run: changed=0" test "$(changed)" = 0
ok "2nd run: no probe" is "Probe" skipping
ok "2nd run: the kept probe untouched" test "$(stat -c '%i %Y' "$state/probe.json")" = "$probe_id"
ok "2nd run: diffed against the bundle in force: same" is "Show what changed" ok
ok "2nd run: the bundle in force unchanged" test "$(sum "$fleet/pmem-policy.json")" = "$first"
ok "2nd run: no previous bundle: nothing changed" test ! -e "$fleet/pmem-policy.previous.json"
ok "2nd run: nothing left as new" test ! -e "$fleet/pmem-policy.new.json"
ok "2nd run: the installed policy unchanged" test "$(sum "$policy")" = "$policy_sum"
ok "2nd run: its install reported no change" is "Install the bundle" ok
ok "2nd run: pmem-tuned's configuration and drop-in unchanged" \
	test "$(sum "$conf")$(sum "$dropin")" = "$conf_sum"

# 3rd run: the installed policy broken (pmem-tune --check exits 2): a new probe,
# so a new bundle; the one it replaces is the one to roll back to
echo '{"schema": "pmem-policy/1"' >"$policy"
ok "3rd run succeeds" play
ok "3rd run: probed again" is "Probe" changed
ok "3rd run: a valid policy installed again" test "$(check_rc "$policy")" = 0
ok "3rd run: a new bundle in force" test "$(sum "$fleet/pmem-policy.json")" != "$first"
ok "3rd run: the installed policy is the bundle in force" cmp -s "$policy" "$fleet/pmem-policy.json"
ok "3rd run: the bundle it replaced kept as the previous one" \
	test "$(sum "$fleet/pmem-policy.previous.json")" = "$first"

# 4th run: nothing new again; the copy to roll back to survives it
second=$(sum "$fleet/pmem-policy.json")
ok "4th run succeeds" play
ok "4th run: changed=0" test "$(changed)" = 0
ok "4th run: no probe" is "Probe" skipping
ok "4th run: the bundle in force unchanged" test "$(sum "$fleet/pmem-policy.json")" = "$second"
ok "4th run: the previous bundle still the one before the last change" \
	test "$(sum "$fleet/pmem-policy.previous.json")" = "$first"

# for the fleet below: this host's probe, before the 5th run forges it
cp "$state/probe.json" "$tmp/probe.json"

# 5th run: the kept probe claims another platform, so the bundle has no entry for
# this host; validate refuses it and the installed policy stays
policy_sum=$(sum "$policy")
sed -i -E '0,/"fingerprint": "sha256:[0-9a-f]{64}"/s//"fingerprint": "sha256:'"$(printf '%064d' 1)"'"/' \
	"$state/probe.json"
ok "5th run: the forged probe is another platform's" test "$(check_rc "$state/probe.json")" = 1
play
ok "5th run fails" test $? != 0
ok "5th run: no probe (the installed policy fits)" is "Probe" skipping
ok "5th run: the copy refused by validate" is "Install the bundle" fatal
ok "5th run: the log names the validation" grep -q 'failed to validate' "$tmp/run-$run.log"
ok "5th run: the installed policy unchanged" test "$(sum "$policy")" = "$policy_sum"
ok "5th run: the bundle in force unchanged" test "$(sum "$fleet/pmem-policy.json")" = "$second"
ok "5th run: the previous bundle unchanged" \
	test "$(sum "$fleet/pmem-policy.previous.json")" = "$first"

# A fleet of two kernels: host-a and host-b, each its own tree, probed on kernels
# this machine does not run (as after a kernel update); their kept probes, also
# their installed policies, differ in platform.kernel and the host id only.
# A new controller tree; no textfile directory, no pmem-tuned configuration.
kernel_as() {	# KERNEL HOST-ID: $tmp/probe.json probed on KERNEL by HOST-ID
	sed -E -e '0,/"kernel": "[^"]*"/s//"kernel": "'"$1"'"/' \
		-e '0,/"host_id": "sha256:[0-9a-f]{64}"/s//"host_id": "'"$2"'"/' "$tmp/probe.json"
}
for h in host-a host-b; do
	mkdir -p "$tmp/$h/etc" "$tmp/$h/var/lib/pmem-tune"
	echo "$h ansible_connection=local ansible_become=false" \
		"ansible_python_interpreter=$(command -v python3)"
done | sed '1i [pmem_hosts]' >"$tmp/inventory.fleet"
kernel_as 5.10.0-0-pmem-test "sha256:$(printf '%064d' 10)" >"$tmp/host-a/var/lib/pmem-tune/probe.json"
kernel_as 6.1.0-0-pmem-test "sha256:$(printf '%064d' 11)" >"$tmp/host-b/var/lib/pmem-tune/probe.json"
for h in host-a host-b; do
	install -m 0644 "$tmp/$h/var/lib/pmem-tune/probe.json" "$tmp/$h/etc/pmem-policy.json"
done
# each host's paths in its own tree (extra vars are templated per host)
cat >"$tmp/vars.fleet.json" <<VARS
{"pmem_tune": "$tune", "pmem_fleet_dir": "$tmp/fleet2",
 "pmem_policy_path": "$tmp/{{ inventory_hostname }}/etc/pmem-policy.json",
 "pmem_state_dir": "$tmp/{{ inventory_hostname }}/var/lib/pmem-tune",
 "pmem_metrics_path": "$tmp/{{ inventory_hostname }}/textfile/pmem-tune.prom",
 "pmem_tuned_conf": "$tmp/{{ inventory_hostname }}/etc/pmem-tuned/pmem-tuned.conf",
 "pmem_tuned_dropin": "$tmp/{{ inventory_hostname }}/etc/pmem-tuned.service.d/metrics.conf",
 "pmem_tuned_service": "",
 "pmem_policy_owner": "$(id -un)", "pmem_probe_args": ["--target", "dram", "--quick"]}
VARS
inventory=$tmp/inventory.fleet vars=$tmp/vars.fleet.json fleet=$tmp/fleet2
ok "fleet: the two hosts' probes differ in their kernel and host id only" \
	test "$(diff "$tmp/host-a/var/lib/pmem-tune/probe.json" \
		"$tmp/host-b/var/lib/pmem-tune/probe.json" | grep -c '^[<>]')" = 4
bundle_hosts() {	# how many hosts the bundle's one entry merged
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["merged"]["hosts"] if "merged" in d else "no single merged entry")' "$1" 2>&1
}

ok "fleet 1st run succeeds" play
for h in host-a host-b; do
	ok "fleet 1st run: $h not probed (another kernel is no reason)" is "Probe" skipping $h
	ok "fleet 1st run: $h's kept probe fetched as it is" \
		cmp -s "$tmp/$h/var/lib/pmem-tune/probe.json" "$fleet/probes/$h.json"
	ok "fleet 1st run: $h runs the bundle in force" \
		cmp -s "$tmp/$h/etc/pmem-policy.json" "$fleet/pmem-policy.json"
done
ok "fleet 1st run: one entry of both hosts" test "$(bundle_hosts "$fleet/pmem-policy.json")" = 2

in_force=$(sum "$fleet/pmem-policy.json")
ok "fleet 2nd run succeeds" play
ok "fleet 2nd run: changed=0" test "$(changed)" = 0
for h in host-a host-b; do
	ok "fleet 2nd run: $h not probed" is "Probe" skipping $h
	ok "fleet 2nd run: $h's install reported no change" is "Install the bundle" ok $h
done
ok "fleet 2nd run: the bundle in force unchanged" test "$(sum "$fleet/pmem-policy.json")" = "$in_force"
ok "fleet 2nd run: no previous bundle: nothing changed" \
	test ! -e "$fleet/pmem-policy.previous.json"

tap_finish playbook
