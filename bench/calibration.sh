#!/usr/bin/env bash
# Calibration cost and repeatability, per mode: N probes of one target in a
# row; the wall time of each, the histogram of every op's crossovers, and
# "crossover stable: K/N" (K runs whose one-thread crossovers, both
# patterns, match the most common set within one step of the probe's
# sqrt(2) grid, i.e. at most 1.5x apart), for several modes and every op,
# and "exports identical: K/N" (K runs whose exports, as consumers read them,
# match the most common set: regret, source, margin and baseline left out),
# then the same count for each consumer alone.  Each mode's block ends with
# those two lines.  Then, per mode: N re-probes, each with the first probe
# as --baseline as an installed policy is, and how many --diff finds
# unchanged; and the most probes one fixed value per knob could have served
# (bench_stability, from the pmem-tune's build tree, or STABILITY=PATH):
# where that is under what is asked, the cells moved, not the rule.
# Figures only.
# Usage: calibration.sh PMEM_TUNE [N] [MODES] [TARGET]
#   MODES: comma list of quick, standard, thorough (default quick,standard)
#   KEEP=DIR in the environment keeps the policies, as DIR/MODE/pI.json and
#   the re-probes as DIR/MODE/rI.json
set -euo pipefail
tune=$1 n=${2:-10} modes=${3:-quick,standard} target=${4:-dram}
tmp=$(mktemp -d)
keep() {
	[ -n "${KEEP:-}" ] || return 0
	mkdir -p "$KEEP" && cp -r "$tmp"/. "$KEEP"/
}
trap 'keep; rm -rf "$tmp"' EXIT
for mode in ${modes//,/ }; do
	flag=()
	[ "$mode" = quick ] && flag=(--quick)
	[ "$mode" = thorough ] && flag=(--thorough)
	mkdir -p "$tmp/$mode"
	for i in $(seq 1 "$n"); do
		start=$(date +%s.%N)
		"$tune" --probe "${flag[@]}" --quiet --target "$target" \
			--output "$tmp/$mode/p$i.json" >/dev/null
		end=$(date +%s.%N)
		echo "$start $end" >"$tmp/$mode/t$i"
	done
	# what a host re-probing against its installed policy sees: N more, each
	# with the first as --baseline, and whether --diff finds it unchanged
	for i in $(seq 1 "$n"); do
		"$tune" --probe "${flag[@]}" --quiet --target "$target" \
			--baseline "$tmp/$mode/p1.json" --output "$tmp/$mode/r$i.json" >/dev/null
		rc=0
		"$tune" --diff "$tmp/$mode/p1.json" "$tmp/$mode/r$i.json" >/dev/null || rc=$?
		case $rc in
		0) echo same ;;
		1) echo moved ;;
		*) echo "error (pmem-tune --diff exit $rc)" ;;
		esac
	done >"$tmp/$mode/reprobes"
done
python3 - "$tmp" "$n" "$modes" "$target" <<'PY'
import json, sys, collections
d, n, modes, target = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4]

# a run of one op: (strategy at the smallest size, its crossovers)
def label(r):
    first, xs = r
    return ", ".join(f"{b}->{a} at {s} B" for b, a, s in xs) or f"none ({first} at every size)"

def same(a, b):
    # within one sqrt(2) step: the probe's grid cannot tell them apart
    return a[0] == b[0] and len(a[1]) == len(b[1]) and all(
        x[0] == y[0] and x[1] == y[1] and max(x[2], y[2]) / min(x[2], y[2]) <= 1.5 + 1e-9
        for x, y in zip(a[1], b[1]))

def stable(runs):
    ref = collections.Counter(runs).most_common(1)[0][0]
    return sum(1 for r in runs if same(r, ref))

print(f"calibration: {n} probes of {target} per mode, in a row")
for mode in modes:
    walls, ops = [], collections.OrderedDict()
    for i in range(1, n + 1):
        s, e = map(float, open(f"{d}/{mode}/t{i}").read().split())
        walls.append(e - s)
        p = json.load(open(f"{d}/{mode}/p{i}.json"))
        for o in p["targets"][0]["ops"]:
            key = (o["threads"], o["pattern"])
            ops.setdefault(key, []).append((
                o["ranges"][0]["strategy"] if o["ranges"] else "-",
                tuple((x["below"], x["above"], x["size_bytes"]) for x in o["crossovers"])))
    walls.sort()
    print(f"\n{mode}: wall time per probe median {walls[len(walls)//2]:.2f} s, "
          f"min {walls[0]:.2f} s, max {walls[-1]:.2f} s")
    for (threads, pattern), runs in ops.items():
        print(f"  {pattern}, {threads} thread{'s' if threads > 1 else ''}: "
              f"stable {stable(runs)}/{len(runs)}")
        for r, k in collections.Counter(runs).most_common():
            print(f"    {k:3d} x  {label(r)}")
    # the headline: one thread, both patterns together, as the policy is used
    one = [key for key in ops if key[0] == 1]
    runs = [tuple(ops[key][i] for key in one) for i in range(n)]
    ref = collections.Counter(runs).most_common(1)[0][0]
    k = sum(1 for r in runs if all(same(a, b) for a, b in zip(r, ref)))
    print(f"crossover stable: {k}/{n}")
    # what a consumer acts on; regret, source, margin and baseline are the file's account
    account = ("regret", "source", "margin", "baseline")
    sets = []
    for i in range(1, n + 1):
        ex = json.load(open(f"{d}/{mode}/p{i}.json")).get("exports", {})
        sets.append(json.dumps({c: {k: v for k, v in e.items() if k not in account}
                                for c, e in ex.items()}, sort_keys=True))
    seen = collections.Counter(sets).most_common()
    # per consumer: which one moves decides who sees the change
    per = []
    for c in sorted({c for s in sets for c in json.loads(s)}):
        one = collections.Counter(json.dumps(json.loads(s).get(c), sort_keys=True) for s in sets)
        per.append(f"{c} {one.most_common(1)[0][1]}/{n}")
    print(f"exports identical: {seen[0][1]}/{n} ({', '.join(per)})")
    for e, k in seen if len(seen) > 1 else []:
        print(f"    {k:3d} x  {e}")
PY
stability=${STABILITY:-$(dirname "$tune")/../bench/bench_stability}
for mode in ${modes//,/ }; do
	echo
	echo "$mode: re-probes against probe 1 (--baseline), unchanged by --diff:" \
		"$(grep -c '^same$' "$tmp/$mode/reprobes")/$n"
	grep '^error' "$tmp/$mode/reprobes" | sort | uniq -c || true
	if [ ! -x "$stability" ]; then
		echo "$mode: fixed exports: skipped ($stability is not built)"
		continue
	fi
	probes=()
	for i in $(seq 1 "$n"); do
		probes+=("$tmp/$mode/p$i.json")
	done
	echo "$mode: could one fixed export have served every probe?"
	"$stability" "${probes[@]}" | sed 's/^/  /' || echo "  (bench_stability failed)"
done
