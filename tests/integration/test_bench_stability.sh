#!/usr/bin/env bash
# bench_stability on recorded probes: the values the files export, how many
# probes each passes as the rule scores them, the fixed value passing most
# and the bound over every knob; a split host (rep movsb slower everywhere
# in one probe, faster in the other) leaves no value of
# x86_rep_movsb_threshold that serves both; a probe that decides nothing for
# a knob is served by any value; bad input is refused (exit 2, one line).
# Usage: test_bench_stability.sh BENCH_STABILITY DATA_DIR
set -uo pipefail
tune=$1
data=$2
PT_TEST_NAME=test_bench_stability
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"

# has TEXT: the last run's output holds the line TEXT
has() {
	grep -qxF -- "$1" "$tmp/out" && ok || bad "no line '$1' in: $(cat "$tmp/out")"
}

cal=$data/amd-f26-kvm-calibration
expect 0 "ten recorded probes" -- "$cal"/standard-0{1,2,3,4,5,6,7,8,9}.json "$cal/standard-10.json"
has "    exported (probes, passing): 0x4000 (6, 9/10) 0x3000 (4, 10/10)"
has "    the fixed value passing most: 0x3000, 10/10 probes ( 1 2 3 4 5 6 7 8 9 10 )"
has "knob values identical: 6/10"
has "one fixed value per knob passes at most: 10/10 ( 1 2 3 4 5 6 7 8 9 10 )"

# every rate of rep_movsb_clwb scaled by f: below clwb by far, or above it by far
scale='
f = float(F)
def mul(x):
    if isinstance(x, list):
        return [mul(v) for v in x]
    return x * f if isinstance(x, (int, float)) and x else x
for t in p["targets"]:
    for o in t["ops"]:
        c = o["curves"].get("rep_movsb_clwb")
        for k in list(c or {}):
            if k.endswith("_mib_s"):
                c[k] = mul(c[k])
'
edit "$cal/standard-01.json" "$tmp/slow.json" "F = 0.5${scale}"
edit "$cal/standard-01.json" "$tmp/fast.json" "F = 2${scale}"
expect 0 "a split host" -- "$tmp/slow.json" "$tmp/fast.json"
# both keep the file's export, which serves the fast copy alone
has "    exported (probes, passing): 0x3000 (2, 1/2)"
has "    the fixed value passing most: 0x201, 1/2 probes ( 2 )"
has "one fixed value per knob passes at most: 1/2 ( 1 )"

# a probe without rep_movsb_clwb decides nothing for its knob: every value serves it
edit "$cal/standard-01.json" "$tmp/norep.json" '
for t in p["targets"]:
    for o in t["ops"]:
        o["curves"].pop("rep_movsb_clwb", None)
'
expect 0 "a probe deciding nothing" -- "$tmp/fast.json" "$tmp/norep.json"
has "    the fixed value passing most: 0x201, 2/2 probes ( 1 2 )"
has "one fixed value per knob passes at most: 2/2 ( 1 2 )"
expect_refusal "an empty bar" "--bar " -- --bar "" "$cal/standard-01.json" "$cal/standard-02.json"

expect_refusal "one policy" "1 policies" -- "$cal/standard-01.json"
expect_refusal "a missing policy" "$tmp/none.json" -- "$tmp/none.json" "$cal/standard-01.json"
expect_refusal "a bar of 2" "--bar 2" -- --bar 2 "$cal/standard-01.json" "$cal/standard-02.json"
finish
