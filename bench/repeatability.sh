#!/usr/bin/env bash
# Calibration cost and repeatability: N probes of one target in a row; the
# wall time of each, and the histogram of the sequential one-thread
# crossovers, ending with "crossover stable: K/N" (K runs whose crossover
# list matches the most common one within one step of the probe's sqrt(2)
# grid, i.e. at most 1.5x apart).  Figures only.
# Usage: repeatability.sh PMEM_TUNE [N] [quick|standard|thorough] [TARGET]
set -euo pipefail
tune=$1 n=${2:-10} mode=${3:-standard} target=${4:-dram}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flag=()
[ "$mode" = quick ] && flag=(--quick)
[ "$mode" = thorough ] && flag=(--thorough)
for i in $(seq 1 "$n"); do
	start=$(date +%s.%N)
	"$tune" --probe "${flag[@]}" --quiet --target "$target" --output "$tmp/p$i.json" >/dev/null
	end=$(date +%s.%N)
	echo "$start $end" >"$tmp/t$i"
done
python3 - "$tmp" "$n" "$mode" "$target" <<'PY'
import json, math, sys, collections
d, n, mode, target = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
runs, walls = [], []
for i in range(1, n + 1):
    s, e = map(float, open(f"{d}/t{i}").read().split())
    walls.append(e - s)
    p = json.load(open(f"{d}/p{i}.json"))
    op = next(o for o in p["targets"][0]["ops"]
              if o["pattern"] == "sequential" and o["threads"] == 1)
    runs.append(tuple((x["below"], x["above"], x["size_bytes"]) for x in op["crossovers"]))
walls.sort()
print(f"repeatability: {n} {mode} probes of {target}")
print(f"wall time per probe: median {walls[len(walls)//2]:.2f} s, "
      f"min {walls[0]:.2f} s, max {walls[-1]:.2f} s")
def label(r):
    return ", ".join(f"{b}->{a} at {s} B" for b, a, s in r) or "none (one strategy at every size)"
hist = collections.Counter(runs)
print("sequential 1-thread crossovers:")
for r, k in hist.most_common():
    print(f"  {k:3d} x  {label(r)}")
ref = hist.most_common(1)[0][0]
def same(a, b):
    return len(a) == len(b) and all(
        x[0] == y[0] and x[1] == y[1] and max(x[2], y[2]) / min(x[2], y[2]) <= 1.5 + 1e-9
        for x, y in zip(a, b))
stable = sum(1 for r in runs if same(r, ref))
print(f"crossover stable: {stable}/{n}")
PY
