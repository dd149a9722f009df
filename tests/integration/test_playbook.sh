#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# docs/examples/pmem-policy.yml, run: ansible-playbook -c local against this
# host, in a throwaway tree (every path the playbook writes is a variable), with
# the built pmem-tune probing dram quickly.
#   1st run: probes, keeps the probe in the state directory it creates, merges,
#            installs a bundle valid for this host, writes metrics;
#   2nd run: nothing to probe, the bundle in force kept as the previous one and
#            diffed against (same), the installed policy unchanged;
#   3rd run: a broken installed policy makes the host probe again;
#   4th run: a bundle without this host's platform is refused by the copy's
#            validate (pmem-tune --check): the installed policy stays.
# usage: test_playbook.sh PLAYBOOK PMEM_TUNE
set -uo pipefail
playbook=$1
tune=$(realpath "$2")
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

ok "ansible-playbook --syntax-check accepts it" \
	ansible-playbook --syntax-check "$playbook" >"$tmp/syntax.log" 2>&1

# this host twice over: a fleet of one, managed locally, without sudo
cat >"$tmp/inventory" <<INV
[pmem_hosts]
localhost ansible_connection=local ansible_become=false ansible_python_interpreter=$(command -v python3)
INV
policy=$tmp/etc/pmem-policy.json
state=$tmp/var/lib/pmem-tune
fleet=$tmp/fleet
prom=$tmp/textfile/pmem-tune.prom
mkdir -p "$tmp/etc" "$tmp/textfile"
cat >"$tmp/vars.json" <<VARS
{"pmem_tune": "$tune", "pmem_policy_path": "$policy", "pmem_state_dir": "$state",
 "pmem_fleet_dir": "$fleet", "pmem_metrics_path": "$prom",
 "pmem_policy_owner": "$(id -un)", "pmem_probe_args": ["--target", "dram", "--quick"]}
VARS
run=0
play() {	# one run; its log in $tmp/run-N.log
	run=$((run + 1))
	ansible-playbook -i "$tmp/inventory" -e "@$tmp/vars.json" "$playbook" \
		>"$tmp/run-$run.log" 2>&1
}
# a failing run shows its log's end, once
shown=0
tap_on_fail() {
	((shown == run)) && return
	shown=$run
	sed 's/^/#   /' "$tmp/run-$run.log" | tail -n 30
}
task_result() {	# TASK-NAME-PREFIX: ok, changed, skipping or fatal for localhost
	awk -v t="TASK [$1" 'index($0, t) == 1 { on = 1; next }
		on && /^(ok|changed|skipping|fatal):/ { sub(/:.*/, ""); print; exit }' \
		"$tmp/run-$run.log"
}
is() { [ "$(task_result "$1")" = "$2" ]; }
check_rc() { "$tune" --check "$1" >/dev/null 2>&1; echo $?; }
sum() { sha256sum <"$1" 2>/dev/null; }

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
ok "1st run: nothing left as new" test ! -e "$fleet/pmem-policy.new.json"
ok "1st run: no previous bundle to diff against" is "Show what changed" skipping
ok "1st run: metrics written" grep -q '^pmem_tune_' "$prom"

# 2nd run: everything in place
probe_id=$(stat -c '%i %Y' "$state/probe.json")
policy_sum=$(sum "$policy")
ok "2nd run succeeds" play
ok "2nd run: no probe" is "Probe" skipping
ok "2nd run: the kept probe untouched" test "$(stat -c '%i %Y' "$state/probe.json")" = "$probe_id"
ok "2nd run: diffed against the bundle in force: same" is "Show what changed" ok
ok "2nd run: the previous bundle kept" cmp -s "$fleet/pmem-policy.previous.json" \
	"$fleet/pmem-policy.json"
ok "2nd run: the installed policy unchanged" test "$(sum "$policy")" = "$policy_sum"
ok "2nd run: its install reported no change" is "Install the bundle" ok

# 3rd run: the installed policy broken (pmem-tune --check exits 2)
echo '{"schema": "pmem-policy/1"' >"$policy"
ok "3rd run succeeds" play
ok "3rd run: probed again" is "Probe" changed
ok "3rd run: a valid policy installed again" test "$(check_rc "$policy")" = 0

# 4th run: the kept probe claims another platform, so the bundle has no entry for
# this host; validate refuses it and the installed policy stays
policy_sum=$(sum "$policy")
in_force=$(sum "$fleet/pmem-policy.json")
sed -i -E '0,/"fingerprint": "sha256:[0-9a-f]{64}"/s//"fingerprint": "sha256:'"$(printf '%064d' 1)"'"/' \
	"$state/probe.json"
ok "4th run: the forged probe is another platform's" test "$(check_rc "$state/probe.json")" = 1
play
ok "4th run fails" test $? != 0
ok "4th run: no probe (the installed policy fits)" is "Probe" skipping
ok "4th run: the copy refused by validate" is "Install the bundle" fatal
ok "4th run: the log names the validation" grep -q 'failed to validate' "$tmp/run-$run.log"
ok "4th run: the installed policy unchanged" test "$(sum "$policy")" = "$policy_sum"
ok "4th run: the bundle in force unchanged" \
	test "$(sum "$fleet/pmem-policy.json")" = "$in_force"

tap_finish playbook
