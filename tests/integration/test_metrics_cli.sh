#!/usr/bin/env bash
# pmem-tune --metrics as node-exporter and promtool read it: every run
# replaces the file (a policy that cannot be read leaves no stale
# host_match 1 behind), "never switch" is -1, a path that is not UTF-8
# still gives a file promtool takes.
# Usage: test_metrics_cli.sh PMEM_TUNE
set -uo pipefail
tune=$1
PT_TEST_NAME=test_metrics_cli
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
umask 022
promtool_ok() {
	if ! command -v promtool >/dev/null; then
		echo "skipped: promtool not installed (Debian package prometheus)"
		return
	fi
	promtool check metrics <"$1" >"$tmp/prom" 2>&1 && ok || bad "promtool on $1: $(cat "$tmp/prom")"
}

"$tune" --probe --quick --quiet --threads 1 --strategies movnt_sse2,clwb --target dram \
	--area-size 96M --output "$tmp/a.json" >/dev/null 2>"$tmp/err" || bad "probe: $(cat "$tmp/err")"
prom=$tmp/textfile/pmem-tune.prom
mkdir -p "$tmp/textfile"

# a good policy: read, this host's
expect 0 "metrics" -- --metrics "$prom" --daemon-state "$tmp/none" "$tmp/a.json"
grep -q "^pmem_tune_policy_read_ok{file=\"$tmp/a.json\"} 1$" "$prom" && ok ||
	bad "read_ok 1: $(grep read_ok "$prom")"
grep -q '^pmem_tune_policy_host_match{.*} 1$' "$prom" && ok || bad "host_match 1"
promtool_ok "$prom"

# "never switch" (kernel export null) is -1, as HELP and docs/fleet.md say
edit "$tmp/a.json" "$tmp/open.json" 'p["exports"]["kernel"]["flushcache_nt_max_bytes"] = None'
expect 0 "metrics, open threshold" -- --metrics "$prom" --daemon-state "$tmp/none" "$tmp/open.json"
grep -q '^pmem_tune_export_threshold_bytes{consumer="kernel"} -1$' "$prom" && ok ||
	bad "never switch: $(grep threshold "$prom")"

# the policy goes bad: exit 2, one line naming the file, and the file replaced
edit "$tmp/a.json" "$tmp/bad.json" 'p["targets"][0]["ops"][0]["sizes_bytes"][0] = -5'
cp "$tmp/bad.json" "$tmp/a.json"
expect 2 "metrics, invalid policy" -- --metrics "$prom" --daemon-state "$tmp/none" "$tmp/a.json"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "$tmp/a.json" "$tmp/err" && ok ||
	bad "invalid policy: not one line naming the file: $(cat "$tmp/err")"
grep -q "^pmem_tune_policy_read_ok{file=\"$tmp/a.json\"} 0$" "$prom" && ok ||
	bad "invalid policy: read_ok 0: $(cat "$prom")"
! grep -q 'host_match' "$prom" && ok || bad "invalid policy: a stale host_match: $(grep host_match "$prom")"
promtool_ok "$prom"
# so does a policy that is gone
rm -f "$tmp/a.json"
expect 2 "metrics, no policy" -- --metrics "$prom" --daemon-state "$tmp/none" "$tmp/a.json"
grep -q "^pmem_tune_policy_read_ok{file=\"$tmp/a.json\"} 0$" "$prom" && ok ||
	bad "no policy: read_ok 0: $(cat "$prom")"
# and no temporary is left beside it
[ "$(ls "$tmp/textfile")" = "pmem-tune.prom" ] && ok || bad "left: $(ls "$tmp/textfile")"

# a policy path that is not UTF-8: the label gets U+FFFD, promtool takes the file
odd=$tmp/$(printf 'pmem-\xff-policy.json')
cp "$tmp/open.json" "$odd"
expect 0 "metrics, path not UTF-8" -- --metrics "$prom" --daemon-state "$tmp/none" "$odd"
grep -q "pmem-$(printf '\xef\xbf\xbd')-policy.json" "$prom" && ok || bad "no U+FFFD in the label"
promtool_ok "$prom"

# a mistyped command writes nothing
rm -f "$prom"
expect 2 "metrics, unknown option" -- --metrics "$prom" --no-such "$odd"
[ ! -e "$prom" ] && ok || bad "a refused command wrote $prom"

finish
