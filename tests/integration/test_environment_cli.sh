#!/usr/bin/env bash
# Kernel and microcode are the environment, never the platform: pmem-tune
# --check of a fleet bundle on a host that runs another kernel exits 0 and
# says so in a line and in --json; --fail-on-environment-change makes it
# exit 1; --metrics says it in pmem_tune_environment_changed{what}.
# The issue's repro: one probe as two hosts on kernels 6.1.0-a and
# 6.1.0-b, merged, checked here (on neither of them).
# Usage: test_environment_cli.sh PMEM_TUNE
set -uo pipefail
tune=$1
PT_TEST_NAME=test_environment_cli
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
umask 022
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
jqt() { jq -e "$1" "$2" >/dev/null; }
kernel=$(uname -r)

"$tune" --probe --quick --quiet --threads 1 --strategies movnt_sse2,clwb --target dram \
	--area-size 96M --output "$tmp/a.json" >/dev/null 2>"$tmp/err" || bad "probe: $(cat "$tmp/err")"
for k in a b; do
	edit "$tmp/a.json" "$tmp/host-$k.json" \
		"p['platform']['kernel'] = '6.1.0-$k'; p['generator']['host_id'] = 'sha256:' + '$k' * 64"
done
expect 0 "merge two kernels" -- --merge "$tmp/fleet.json" "$tmp/host-a.json" "$tmp/host-b.json"
jqt '.merged.kernels == ["6.1.0-a", "6.1.0-b"] and .platform.kernel == ""' "$tmp/fleet.json" &&
	ok || bad "merged kernels: $(grep -A3 kernels "$tmp/fleet.json")"

# the repro: exit 0, the verdict first, then one line per change
expect 0 "check, another kernel" -- --check "$tmp/fleet.json"
[ "$(sed -n 1p "$tmp/out" | cut -d: -f1)" = valid ] && ok || bad "first line: $(cat "$tmp/out")"
grep -qx "environment change: kernel $kernel, probed on 6.1.0-a, 6.1.0-b" "$tmp/out" && ok ||
	bad "environment line: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/out")" -eq 2 ] && ok || bad "not two lines: $(cat "$tmp/out")"
expect 0 "check --json, another kernel" -- --check --json "$tmp/fleet.json"
jqt '.result == "valid" and .status == 0 and .environment_changes == ["kernel"] and
     .environment.kernel.changed == true and .environment.kernel.host == "'"$kernel"'" and
     .environment.kernel.probed == ["6.1.0-a", "6.1.0-b"]' "$tmp/out" && ok ||
	bad "--json: $(cat "$tmp/out")"

# asked to: an environment change fails the check
expect 1 "--fail-on-environment-change" -- --check --fail-on-environment-change "$tmp/fleet.json"
grep -q "^environment change: $tmp/fleet.json matches this host" "$tmp/out" &&
	grep -qx "environment change: kernel $kernel, probed on 6.1.0-a, 6.1.0-b" "$tmp/out" && ok ||
	bad "--fail-on-environment-change: $(cat "$tmp/out")"
expect 1 "--fail-on-environment-change --json" -- --check --json --fail-on-environment-change \
	"$tmp/fleet.json"
jqt '.result == "environment change" and .status == 1' "$tmp/out" && ok || bad "$(cat "$tmp/out")"
expect 2 "--fail-on-environment-change is --check's" -- --show --fail-on-environment-change \
	"$tmp/fleet.json"

# on one of the kernels the fleet's hosts ran: no change, with the option too
edit "$tmp/a.json" "$tmp/host-c.json" \
	"p['generator']['host_id'] = 'sha256:' + 'c' * 64"
expect 0 "merge with this kernel" -- --merge "$tmp/fleet3.json" "$tmp/fleet.json" "$tmp/host-c.json"
expect 0 "check, a kernel of the fleet" -- --check --fail-on-environment-change "$tmp/fleet3.json"
[ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q "^valid: " "$tmp/out" && ok || bad "$(cat "$tmp/out")"
expect 0 "check --json, a kernel of the fleet" -- --check --json "$tmp/fleet3.json"
jqt '.environment_changes == [] and .environment.kernel.changed == false' "$tmp/out" && ok ||
	bad "$(cat "$tmp/out")"
# another platform: no entry, no environment
edit "$tmp/a.json" "$tmp/other.json" "p['platform']['fingerprint'] = 'sha256:' + '0' * 64"
expect 1 "check, other platform" -- --check --json "$tmp/other.json"
jqt '.result == "other platform" and .environment == null and .environment_changes == []' \
	"$tmp/out" && ok || bad "$(cat "$tmp/out")"

# --metrics: a what label, never a version
expect 0 "metrics, another kernel" -- --metrics "$tmp/m.prom" "$tmp/fleet.json"
grep -qx 'pmem_tune_environment_changed{what="kernel"} 1' "$tmp/m.prom" && ok ||
	bad "metrics: $(grep environment "$tmp/m.prom")"
! grep -q "6\.1\.0-" "$tmp/m.prom" && ok || bad "a version string in the metrics"
expect 0 "metrics, a kernel of the fleet" -- --metrics "$tmp/m.prom" "$tmp/fleet3.json"
grep -qx 'pmem_tune_environment_changed{what="kernel"} 0' "$tmp/m.prom" && ok ||
	bad "metrics: $(grep environment "$tmp/m.prom")"
if command -v promtool >/dev/null; then
	promtool check metrics <"$tmp/m.prom" >"$tmp/prom" 2>&1 && ok || bad "promtool: $(cat "$tmp/prom")"
fi

finish
