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
# --decide takes the daemon's rule: the files made here are writable by us alone
umask 022

# the checked-in files may be group-writable after a checkout: --insecure
a=$data/intel-avx512-kvm/standard-01.json
b=$data/intel-avx512-kvm/standard-06.json
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
# an export moves on a decisive gain where it acts: standard-02 loses 0.12 at 192 B with an
# installed PMEM_MOVNT_THRESHOLD of 256 (cached there, streaming ahead by separation)
c=$data/intel-avx512-kvm/standard-02.json
edit "$tmp/a1.json" "$tmp/a256.json" 'p["exports"]["libpmem"]["env"]["PMEM_MOVNT_THRESHOLD"] = "256"'
"$tune" --insecure --decide "$c" --baseline "$tmp/a256.json" --output "$tmp/c1.json" && ok ||
	bad "--decide $c --baseline"
"$tune" --insecure --diff "$tmp/a256.json" "$tmp/c1.json" >"$tmp/out" && bad "--diff: no move" ||
	{ grep -q 'PMEM_MOVNT_THRESHOLD: 256 -> 64' "$tmp/out" && ok ||
		bad "--diff after a decisive gain: $(cat "$tmp/out")"; }

# --keep-samples: every cell's samples in the file, counted by samples[];
# --decide believes them over the summaries beside them
"$tune" --probe --quick --quiet --threads 1 --strategies movnt,movnt_sse2,clwb --area-size 64M \
	--target dram --keep-samples --output "$tmp/k.json" >/dev/null 2>"$tmp/err" && ok ||
	bad "--keep-samples probe: $(cat "$tmp/err")"
"$tune" --probe --quick --quiet --threads 1 --strategies movnt,movnt_sse2,clwb --area-size 64M \
	--target dram --output "$tmp/n.json" >/dev/null 2>"$tmp/err" && ok ||
	bad "probe without --keep-samples: $(cat "$tmp/err")"
python3 - "$tmp/k.json" "$tmp/n.json" <<'EOF' && ok || bad "raw samples in the file"
import json, statistics, sys
k = json.load(open(sys.argv[1]))
cells = 0
for o in k["targets"][0]["ops"]:
    for name, c in o["curves"].items():
        raw = c["raw_mib_s"]
        assert len(raw) == len(o["sizes_bytes"]), (name, len(raw))
        for i, r in enumerate(raw):
            assert len(r) == c["samples"][i], (name, i, len(r), c["samples"][i])
            if r:
                cells += 1
                # the median of the samples is the file's, to its rounding
                assert abs(statistics.median(r) - c["median_mib_s"][i]) <= 0.1, (name, i)
assert cells > 0
n = json.load(open(sys.argv[2]))
assert all("raw_mib_s" not in c for o in n["targets"][0]["ops"] for c in o["curves"].values())
EOF
"$tune" --decide "$tmp/k.json" --output "$tmp/kd.json" 2>"$tmp/err" && ok ||
	bad "--decide of a --keep-samples file: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] && ok || bad "--decide of an unedited file warned: $(cat "$tmp/err")"
"$tune" --diff "$tmp/k.json" "$tmp/kd.json" >"$tmp/out" && ok ||
	bad "--decide from raw samples changed the decisions: $(cat "$tmp/out")"
# the probe decides from the numbers its file holds: a replay is that file,
# byte for byte, from the samples or from the summaries
cmp -s "$tmp/k.json" "$tmp/kd.json" && ok || bad "--decide of a --keep-samples probe differs"
"$tune" --decide "$tmp/n.json" --output "$tmp/nd.json" 2>"$tmp/err" && ok ||
	bad "--decide of a probe: $(cat "$tmp/err")"
cmp -s "$tmp/n.json" "$tmp/nd.json" && ok || bad "--decide of a probe differs from the probe"
# movnt's summaries made ten times faster: the samples still decide, and
# without them the edit would have (so the check above can fail)
python3 - "$tmp/k.json" "$tmp/t.json" "$tmp/t0.json" <<'EOF' && ok || bad "editing the summaries"
import json, sys
p = json.load(open(sys.argv[1]))
for o in p["targets"][0]["ops"]:
    c = o["curves"]["movnt"]
    for key in ("median_mib_s", "p10_mib_s", "p90_mib_s", "ci95_lo_mib_s", "ci95_hi_mib_s"):
        c[key] = [None if x is None else x * 10 for x in c[key]]
json.dump(p, open(sys.argv[2], "w"))
for o in p["targets"][0]["ops"]:
    for c in o["curves"].values():
        del c["raw_mib_s"]
json.dump(p, open(sys.argv[3], "w"))
EOF
"$tune" --decide "$tmp/t.json" --output "$tmp/td.json" 2>"$tmp/err" && ok ||
	bad "--decide of edited summaries: $(cat "$tmp/err")"
grep -q "differ from their raw samples, first movnt at" "$tmp/err" && ok ||
	bad "no word of the edited medians: $(cat "$tmp/err")"
"$tune" --diff "$tmp/k.json" "$tmp/td.json" >"$tmp/out" && ok ||
	bad "edited summaries decided over the samples: $(cat "$tmp/out")"
"$tune" --decide "$tmp/t0.json" --output "$tmp/t0d.json" 2>/dev/null && ok || bad "--decide t0"
grep -q '"strategy": "movnt"' "$tmp/t0d.json" && ok ||
	bad "without samples the edit did not decide: the check above proves nothing"
# bad samples are refused by their path
python3 - "$tmp/k.json" "$tmp/b1.json" "$tmp/b2.json" <<'EOF' && ok || bad "making bad files"
import json, sys
p = json.load(open(sys.argv[1]))
c = p["targets"][0]["ops"][0]["curves"]["clwb"]
i = next(i for i, r in enumerate(c["raw_mib_s"]) if r)
c["raw_mib_s"][i].append(c["raw_mib_s"][i][0])
json.dump(p, open(sys.argv[2], "w"))
c["raw_mib_s"][i] = c["raw_mib_s"][i][:-1]
c["raw_mib_s"][i][0] = -1
json.dump(p, open(sys.argv[3], "w"))
EOF
expect_refusal "a sample too many" "curves.clwb.raw_mib_s[" -- --decide "$tmp/b1.json"
expect_refusal "a negative sample" "curves.clwb.raw_mib_s[" -- --decide "$tmp/b2.json"
# a fleet file carries summaries only
"$tune" --merge "$tmp/m.json" "$tmp/k.json" 2>"$tmp/err" && ok ||
	bad "--merge of a --keep-samples file: $(cat "$tmp/err")"
[ -s "$tmp/m.json" ] && ! grep -q raw_mib_s "$tmp/m.json" && ok || bad "--merge kept raw samples"

expect_refusal "missing input" "nonexistent" -- --decide "$tmp/nonexistent.json"
expect_refusal "stray operand" "unexpected" -- --decide "$a" extra
finish
