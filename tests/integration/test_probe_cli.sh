#!/usr/bin/env bash
# pmem-tune --probe on DRAM and file targets: what it writes, what it refuses,
# and that a failed or interrupted probe never replaces an existing policy.
# Asserts structure and behaviour only, never timings.
# Usage: test_probe_cli.sh PMEM_TUNE
set -uo pipefail
tune=$1
PT_TEST_NAME=test_probe_cli
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"

expect_refusal "unknown target" "bogus" -- --probe --target bogus --output "$tmp/p.json"
# refused before the valid target before it is measured: at once, and no output
start=$(date +%s%N)
expect_refusal "unknown target after a valid one" "drm" -- --probe --target dram --target drm \
	--output "$tmp/p.json"
[ $(( ($(date +%s%N) - start) / 1000000 )) -lt 500 ] && [ ! -e "$tmp/p.json" ] && ok ||
	bad "a mistyped second target was refused only after the first was measured"
expect_refusal "empty region name" "region:" -- --probe --target region: --output "$tmp/p.json"
expect_refusal "empty file name" "file:" -- --probe --target file: --output "$tmp/p.json"
# a --baseline that cannot be read is the operator's error: nothing measured, nothing written
expect_refusal "unreadable baseline" "--baseline" -- --probe --quick --target dram \
	--baseline "$tmp/no-such.json" --output "$tmp/p.json"
[ ! -e "$tmp/p.json" ] && ok || bad "a probe with an unreadable --baseline wrote its policy"
expect_refusal "unwritable dir" "/nonexistent-dir/x" -- --probe --target file:/nonexistent-dir/x
expect_refusal "area too small" "--area-size 1k" -- --probe --area-size 1k
expect_refusal "bad threads" "--threads 0" -- --probe --threads 0
expect_refusal "unknown strategy" "movnt_avx9" -- --probe --strategies movnt,movnt_avx9
expect_refusal "two modes" "--quick" -- --probe --quick --thorough
expect_refusal "devdax that is not" "/dev/dax9.9" -- --probe --target /dev/dax9.9
expect_refusal "bad dram node" "--dram-node" -- --probe --target dram --dram-node x
expect_refusal "dram node not online" "--dram-node 4000" -- --probe --target dram \
	--dram-node 4000 --output "$tmp/p.json"

# a file holding data is not overwritten without --destroy-data
truncate -s 64M "$tmp/data"
printf 'precious data\n' | dd of="$tmp/data" conv=notrunc status=none
expect_refusal "file with data" "--destroy-data" -- --probe --area-size 64M \
	--target "file:$tmp/data"
[ "$(head -1 "$tmp/data")" = "precious data" ] && [ "$(stat -c %s "$tmp/data")" = 67108864 ] &&
	ok || bad "file with data was changed"

# a failed probe leaves an existing policy alone
printf '{"old": true}\n' >"$tmp/p.json"
"$tune" --probe --target bogus --output "$tmp/p.json" 2>/dev/null
[ "$(cat "$tmp/p.json")" = '{"old": true}' ] && ok || bad "failed probe replaced the policy"

# an interrupted probe leaves it alone too, and says so
"$tune" --probe --quiet --output "$tmp/p.json" >/dev/null 2>"$tmp/err" &
pid=$!
sleep 0.7
kill -INT $pid
wait $pid
rc=$?
[ $rc -ne 0 ] && ok || bad "interrupted probe exited 0"
[ "$(cat "$tmp/p.json")" = '{"old": true}' ] && ok || bad "interrupted probe replaced the policy"
grep -q "interrupted" "$tmp/err" && ok || bad "no interruption message: $(cat "$tmp/err")"

# a quick probe of a new file: written, the file removed afterwards
"$tune" --probe --quick --quiet --threads 1 --strategies movnt_sse2,clwb,noflush \
	--target "file:$tmp/scratch" --output "$tmp/f.json" >"$tmp/table" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "file probe exit $rc: $(cat "$tmp/err")"
[ ! -e "$tmp/scratch" ] && ok || bad "the probe left its scratch file behind"
python3 - "$tmp/f.json" <<'EOF' && ok || bad "file policy content"
import json, sys
p = json.load(open(sys.argv[1]))
t = p["targets"][0]
assert t["kind"] == "file" and t["mapping"] in ("shared", "map_sync"), t
# not a DAX filesystem here: noflush is a reference only
ops = t["ops"]
assert {o["threads"] for o in ops} == {1}, ops
assert {o["pattern"] for o in ops} == {"sequential", "random"}
for o in ops:
    assert set(o["curves"]) == {"movnt_sse2", "clwb", "noflush"}, o["curves"].keys()
    assert o["curves"]["noflush"].get("reference_only") is True
    assert all(r["strategy"] != "noflush" for r in o["ranges"])
# where it ran: a file's node is not known, so the caller's CPUs (or all, without NUMA)
assert t["placement"] in ("caller", "no_numa"), t["placement"]
assert len(t["cpus_used"]) == 1, t["cpus_used"]
assert "saturation" not in t, "one thread: no series"
EOF

# several targets in one policy: each probed once, the exports from the right one
expect_refusal "a target twice" "--target dram" -- --probe --target dram --target dram
"$tune" --probe --quick --quiet --threads 1 --strategies movnt_sse2,clwb,noflush \
	--area-size 64M --target "file:$tmp/two" --target dram --output "$tmp/two.json" \
	>/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "file+dram probe exit $rc: $(cat "$tmp/err")"
python3 - "$tmp/two.json" <<'EOF' && ok || bad "file+dram policy content"
import json, sys
p = json.load(open(sys.argv[1]))
assert [(t["name"], t["kind"]) for t in p["targets"]] == [("file", "file"), ("dram", "dram")], \
    p["targets"]
x = p["exports"]
assert x["libpmem"]["target"] == "file", x
# each target's start is looked at twice: its first op's smallest size, every curve
for t in p["targets"]:
    o = t["ops"][0]
    assert (o["pattern"], o["threads"]) == ("sequential", 1), o
    assert all(o["sizes_bytes"][0] in c.get("remeasured_sizes_bytes", [])
               for c in o["curves"].values()), (t["name"], o["curves"])
assert x["glibc"]["target"] == "dram", x
EOF
# auto next to dram: no second dram where auto finds no region
"$tune" --probe --quick --quiet --threads 1 --strategies movnt_sse2,clwb --area-size 64M \
	--target auto --target dram --output "$tmp/ad.json" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "auto+dram probe exit $rc: $(cat "$tmp/err")"
python3 - "$tmp/ad.json" <<'EOF' && ok || bad "auto+dram policy: dram not exactly once"
import json, sys
p = json.load(open(sys.argv[1]))
assert [t["kind"] for t in p["targets"]].count("dram") == 1, p["targets"]
EOF

# the full quick probe of dram: every supported strategy, both patterns, the
# thread counts of the saturation series, ceilings, ranges that cover every size, consistent crossovers
"$tune" --strategies-list >"$tmp/strats"
"$tune" --probe --quick --quiet --output "$tmp/d.json" >"$tmp/table" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "dram probe exit $rc: $(cat "$tmp/err")"
grep -q "crossover\|no crossover" "$tmp/table" && ok || bad "the table has no crossover line"
python3 - "$tmp/d.json" "$tmp/strats" <<'EOF' && ok || bad "dram policy content"
import json, re, sys, os
p = json.load(open(sys.argv[1]))
supported = {l.split()[0] for l in open(sys.argv[2]) if re.match(r"\s+\S+\s+supported", l)}
assert len(supported) >= 8, supported
t = p["targets"][0]
assert t["kind"] == "dram" and t["ceiling_mib_s"] > 0
threads = {o["threads"] for o in t["ops"]}
ncpu = len(os.sched_getaffinity(0))
# threads 1, 2, 4, ... up to the node's CPUs; the grid at 1 and where the families saturate
cpus = t["cpus_used"]
assert 1 <= len(cpus) <= ncpu and len(set(cpus)) == len(cpus), cpus
sat = t.get("saturation", {})
assert (set(sat) >= {"fill", "streaming", "cached_flush"}) if len(cpus) > 1 else not sat, sat
for s in sat.values():
    n = s["threads"]
    assert n[0] == 1 and n == sorted(set(n)) and n[-1] <= len(cpus), s
    assert s["saturates_at"] in n and len(s["mib_s"]) == len(n), s
most = max([s["saturates_at"] for s in sat.values()] + [1])
assert threads == ({1, most} if most > 1 else {1}), (threads, sat)
assert t["placement"] in ("local", "no_numa") and isinstance(t["memory_bound"], bool), t
assert {o["pattern"] for o in t["ops"]} == {"sequential", "random"}
for o in t["ops"]:
    assert set(o["curves"]) == supported, (set(o["curves"]) ^ supported)
    sizes = o["sizes_bytes"]
    assert sizes[0] == 64 and sizes[-1] >= 16 << 20 and sizes == sorted(set(sizes))
    # several threads that never ran together have no ceiling (null)
    assert o["ceiling_mib_s"] is None and o["threads"] > 1 or o["ceiling_mib_s"] > 0
    if o["threads"] > 1 and "concurrency" in o:
        # every multi-thread sample kept overlapped by at least the bound
        assert 0.9 <= o["concurrency"]["min_overlap"] <= 1, o["concurrency"]
    for name, c in o["curves"].items():
        assert len(c["median_mib_s"]) == len(sizes)
        for s in c.get("unmeasurable_sizes_bytes", []):
            i = sizes.index(s)
            assert o["threads"] > 1 and c["median_mib_s"][i] is None and c["samples"][i] == 0
        for s in c.get("suspect_sizes_bytes", []) + c.get("remeasured_sizes_bytes", []):
            assert s in sizes
        for m, lo, hi in zip(c["median_mib_s"], c["ci95_lo_mib_s"], c["ci95_hi_mib_s"]):
            assert m is None or lo <= m <= hi, (name, lo, m, hi)
    r = o["ranges"]
    if not r:
        # no decision only where threads did not run together: no size left
        # where both families were measured
        assert o["threads"] > 1 and any(c.get("unmeasurable_sizes_bytes")
                                        for c in o["curves"].values()), o["pattern"]
        continue
    assert r[0]["from_bytes"] == 0 and r[-1]["to_bytes"] is None
    assert all(a["to_bytes"] == b["from_bytes"] for a, b in zip(r, r[1:]))
    assert len(o["crossovers"]) == len(r) - 1
    for x, a, b in zip(o["crossovers"], r, r[1:]):
        assert (x["below"], x["above"], x["size_bytes"]) == (a["strategy"], b["strategy"], b["from_bytes"])
        assert 0 <= x["confidence"] <= 1
assert p["platform"]["fingerprint"].startswith("sha256:")
assert p["generator"]["mode"] == "quick"
EOF

# what it wrote, it reads back
"$tune" --show "$tmp/d.json" >/dev/null 2>"$tmp/err" && ok || bad "--show of a fresh policy: $(cat "$tmp/err")"
"$tune" --check "$tmp/d.json" >"$tmp/out" 2>&1 && ok || bad "--check of a fresh policy on its own host: $(cat "$tmp/out")"

finish
