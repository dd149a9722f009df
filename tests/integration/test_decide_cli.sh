#!/usr/bin/env bash
# pmem-tune --decide on recorded probes: deterministic, and sticky against a
# baseline (--diff then exits 0); bad input is refused.
# Usage: test_decide_cli.sh PMEM_TUNE DATA_DIR
set -uo pipefail
tune=$1
data=$2
PT_TEST_NAME=test_decide_cli
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"

# the checked-in files may be group-writable after a checkout: --insecure
a=$data/intel-avx512-kvm/standard-01.json
b=$data/intel-avx512-kvm/standard-02.json
"$tune" --insecure --decide "$a" --output "$tmp/a1.json" && ok || bad "--decide $a"
"$tune" --insecure --decide "$a" >"$tmp/a2.json" && ok || bad "--decide $a to stdout"
cmp -s "$tmp/a1.json" "$tmp/a2.json" && ok || bad "two replays of $a differ"
"$tune" --insecure --decide "$tmp/a1.json" >"$tmp/a3.json" && ok || bad "--decide its own output"
cmp -s "$tmp/a1.json" "$tmp/a3.json" && ok || bad "deciding the decided file changes it"

# sticky: b decided against a's decisions makes the same decisions and exports
"$tune" --insecure --decide "$b" --baseline "$tmp/a1.json" --output "$tmp/b1.json" && ok ||
	bad "--decide $b --baseline"
"$tune" --insecure --diff "$tmp/a1.json" "$tmp/b1.json" >"$tmp/out" && ok ||
	bad "--diff after a baseline decision: $(cat "$tmp/out")"
grep -q '"baseline": "kept"' "$tmp/b1.json" && ok || bad "no range says baseline kept"

expect_refusal "missing input" "nonexistent" -- --decide "$tmp/nonexistent.json"
expect_refusal "stray operand" "unexpected" -- --decide "$a" extra
finish
