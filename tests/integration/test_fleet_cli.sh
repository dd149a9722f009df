#!/usr/bin/env bash
# pmem-tune's fleet commands on real (small, quick) probe outputs:
# --show, --check, --diff, --merge, --metrics, and what bad input gets.
# Usage: test_fleet_cli.sh PMEM_TUNE
set -uo pipefail
tune=$1
PT_TEST_NAME=test_fleet_cli
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"

probe() {
	"$tune" --probe --quick --quiet --threads 1 --strategies movnt_sse2,movnt_avx2,clwb,clflushopt \
		--target dram --area-size 96M --output "$1" >/dev/null 2>"$tmp/err" ||
		bad "probe for $1: $(cat "$tmp/err")"
}
probe "$tmp/a.json"
probe "$tmp/b.json"

expect 0 "show" -- --show --insecure "$tmp/a.json"
grep -q "exports" "$tmp/out" && ok || bad "--show prints no exports"

# --check: 0 here (another kernel too: test_environment_cli.sh), 1 for another platform,
# 2 for an invalid file
expect 0 "check own" -- --check --insecure "$tmp/a.json"
grep -q "^valid" "$tmp/out" && ok || bad "check own: $(cat "$tmp/out")"
edit "$tmp/a.json" "$tmp/a.json.new" 'p["platform"]["fingerprint"] = "sha256:" + "0" * 64'
mv "$tmp/a.json.new" "$tmp/other.json"
expect 1 "check other platform" -- --check --insecure "$tmp/other.json"
grep -q "^other platform" "$tmp/out" && ok || bad "other platform: $(cat "$tmp/out")"
edit "$tmp/a.json" "$tmp/a.json.new" 'p["platform"]["kernel"] = "4.19.0-old"'
mv "$tmp/a.json.new" "$tmp/oldkernel.json"
expect 0 "check another kernel" -- --check --insecure "$tmp/oldkernel.json"
grep -q "^environment change: kernel .*, probed on 4.19.0-old$" "$tmp/out" && ok ||
	bad "another kernel: $(cat "$tmp/out")"
edit "$tmp/a.json" "$tmp/a.json.new" 'p["targets"][0]["ops"][0]["sizes_bytes"][3] = -5'
mv "$tmp/a.json.new" "$tmp/bad.json"
expect 2 "check invalid" -- --check --insecure "$tmp/bad.json"
grep -q "targets\[0\].ops\[0\].sizes_bytes\[3\]: expected a positive integer, got -5" "$tmp/out" &&
	ok || bad "invalid: $(cat "$tmp/out")"
expect 2 "show invalid" -- --show --insecure "$tmp/bad.json"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$tmp/bad.json" "$tmp/err" && ok ||
	bad "invalid file error is not one line naming the file: $(cat "$tmp/err")"

# --diff: same decisions -> 0; a moved crossover or export -> 1; invalid -> 2
expect 0 "diff self" -- --diff --insecure "$tmp/a.json" "$tmp/a.json"
edit "$tmp/a.json" "$tmp/a.json.new" 'p["exports"]["libpmem"]["env"]["PMEM_MOVNT_THRESHOLD"] = "65536"'
mv "$tmp/a.json.new" "$tmp/thr.json"
expect 1 "diff export" -- --diff --insecure "$tmp/a.json" "$tmp/thr.json"
grep -q "exports.libpmem.PMEM_MOVNT_THRESHOLD" "$tmp/out" && ok || bad "diff: $(cat "$tmp/out")"
expect 2 "diff invalid" -- --diff --insecure "$tmp/a.json" "$tmp/bad.json"

# --merge: one host twice is refused: two probes here are one host, and so is a repeated file
expect 2 "merge one host twice" -- --merge "$tmp/twice.json" --insecure "$tmp/a.json" "$tmp/b.json"
grep -q "the same host twice.*in $tmp/a.json and in $tmp/b.json" "$tmp/err" && ok ||
	bad "merge twice: $(cat "$tmp/err")"
expect 2 "merge a file twice" -- --merge "$tmp/twice.json" --insecure "$tmp/a.json" "$tmp/a.json"
[ ! -e "$tmp/twice.json" ] && ok || bad "a refused merge wrote its output"
# b.json stands for another host of this platform
edit "$tmp/b.json" "$tmp/b.json.new" 'p["generator"]["host_id"] = "sha256:" + "b" * 64'
mv "$tmp/b.json.new" "$tmp/b.json"

# --merge: two hosts of this platform aggregate; another platform stays apart
expect 0 "merge" -- --merge "$tmp/fleet.json" --insecure "$tmp/a.json" "$tmp/b.json" "$tmp/other.json"
python3 - "$tmp/fleet.json" <<'EOF' && ok || bad "merged bundle content"
import json, sys
b = json.load(open(sys.argv[1]))
assert b["schema"] == "pmem-policy/1" and len(b["bundle"]) == 2
merged = [e for e in b["bundle"] if e.get("merged")]
assert len(merged) == 1 and merged[0]["merged"]["hosts"] == 2, merged
c = merged[0]["targets"][0]["ops"][0]["curves"]["clwb"]
assert all(lo is None or lo <= hi for lo, hi in zip(c["hosts_min_mib_s"], c["hosts_max_mib_s"]))
EOF
python3 - "$tmp/fleet.json" "$tmp/a.json" "$tmp/b.json" <<'EOF' && ok || bad "merged host_ids"
import json, sys
b = json.load(open(sys.argv[1]))
ids = sorted(json.load(open(f))["generator"]["host_id"] for f in sys.argv[2:])
merged = [e for e in b["bundle"] if e.get("merged")][0]
assert merged["merged"]["host_ids"] == ids, merged["merged"]
assert "host_id" not in merged["generator"], merged["generator"]
EOF
expect 0 "check bundle" -- --check --insecure "$tmp/fleet.json"
# the bundle again with one of its hosts, or two bundles that share one: refused, both named
expect 2 "merge bundle with its host" -- --merge "$tmp/twice.json" --insecure "$tmp/fleet.json" \
	"$tmp/b.json"
[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q "the same host twice (sha256:b\{64\}), in $tmp/fleet.json and in $tmp/b.json" \
	"$tmp/err" && [ ! -e "$tmp/twice.json" ] && ok || bad "bundle + own host: $(cat "$tmp/err")"
edit "$tmp/a.json" "$tmp/a.json.new" 'p["generator"]["host_id"] = "sha256:" + "c" * 64'
"$tune" --merge "$tmp/bc.json" --insecure "$tmp/b.json" "$tmp/a.json.new" >/dev/null 2>&1 ||
	bad "merge b and c"
expect 2 "merge two bundles sharing a host" -- --merge "$tmp/twice.json" --insecure \
	"$tmp/fleet.json" "$tmp/bc.json"
grep -q "in $tmp/fleet.json and in $tmp/bc.json" "$tmp/err" && ok ||
	bad "two bundles share a host: $(cat "$tmp/err")"
# a bundle merged before host ids existed: the text decides, as it did
edit "$tmp/fleet.json" "$tmp/fleet.json.new" 'del p["bundle"][0]["merged"]["host_ids"]'
expect 0 "merge an old bundle with a host" -- --merge "$tmp/old.json" --insecure \
	"$tmp/fleet.json.new" "$tmp/b.json"
expect 2 "merge an old bundle twice" -- --merge "$tmp/old.json" --insecure "$tmp/fleet.json.new" \
	"$tmp/fleet.json.new"
grep -q "the same merged entry twice" "$tmp/err" && ok || bad "old bundle twice: $(cat "$tmp/err")"
expect 0 "show bundle" -- --show --insecure "$tmp/fleet.json"
# --merge DIR: its *.json in name order, not its subdirectories, other files, or OUT;
# --from-list FILE (- for stdin): one path a line.  Each gives what the files named do.
mkdir -p "$tmp/dir/sub.json"
# written last first: the order the directory lists them in is not their names'
for f in other b a; do cp "$tmp/$f.json" "$tmp/dir/"; done
cp "$tmp/a.json" "$tmp/dir/sub.json/"
cp "$tmp/a.json" "$tmp/dir/.hidden.json"
echo "not a policy" >"$tmp/dir/README"
expect 0 "merge a directory" -- --merge "$tmp/dir/all.json" --insecure "$tmp/dir"
cmp -s "$tmp/dir/all.json" "$tmp/fleet.json" && ok || bad "merge DIR differs from merge FILES"
grep -q "^merged 3 files" "$tmp/out" && ok || bad "merge DIR: $(cat "$tmp/out")"
expect 0 "merge a directory again, its output in it" -- --merge "$tmp/dir/all.json" --insecure \
	"$tmp/dir"
cmp -s "$tmp/dir/all.json" "$tmp/fleet.json" && ok || bad "merge DIR read its own output"
printf '%s\n' "$tmp/a.json" "" "$tmp/b.json" "$tmp/other.json" >"$tmp/list"
expect 0 "merge --from-list" -- --merge "$tmp/l.json" --insecure --from-list "$tmp/list"
cmp -s "$tmp/l.json" "$tmp/fleet.json" && ok || bad "merge --from-list differs"
"$tune" --merge "$tmp/l2.json" --insecure "$tmp/a.json" --from-list - \
	<<<"$(printf '%s\n' "$tmp/b.json" "$tmp/other.json")" >/dev/null 2>"$tmp/err" &&
	cmp -s "$tmp/l2.json" "$tmp/fleet.json" && ok ||
	bad "merge --from-list -: $(cat "$tmp/err")"
expect_refusal "a missing list" "$tmp/nolist" -- --merge "$tmp/x.json" --insecure \
	--from-list "$tmp/nolist"
mkdir "$tmp/empty"
expect_refusal "an empty directory" "no input files" -- --merge "$tmp/x.json" --insecure \
	"$tmp/empty"
expect_refusal "--from-list for another command" "--from-list" -- --show --from-list \
	"$tmp/list"
[ ! -e "$tmp/x.json" ] && ok || bad "a refused merge wrote its output"

# a merged entry counts the hosts it lists: one that only says it holds ten
# million (and no ids) is one host, with a warning, and outvotes no one
edit "$tmp/b.json" "$tmp/b.json.new" 'p["generator"].pop("host_id"); p["merged"] = {"hosts": 10000000,
    "created_first": "2026-01-01T00:00:00Z", "created_last": "2026-01-01T00:00:00Z"}'
mv "$tmp/b.json.new" "$tmp/claim.json"
expect 0 "merge a claim" -- --merge "$tmp/claim-out.json" --insecure "$tmp/a.json" "$tmp/b.json" \
	"$tmp/claim.json"
grep -q ": 3 hosts$" "$tmp/out" && ok || bad "a claim of 10000000 hosts: $(cat "$tmp/out")"
grep -q "claim.json: sha256:[0-9a-f]* says it holds 10000000 hosts but lists no host_ids: \
counted as one" "$tmp/err" && ok || bad "no warning for a claim: $(cat "$tmp/err")"

# a few thousand hosts from a directory: every one counted and listed, each
# cell the median of them all; one of them merged again is refused
n=2000
python3 - "$tmp/a.json" "$tmp/many" $n <<'EOF'
import copy, json, os, sys
src, out, n = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
os.mkdir(out)
t = src["targets"][0]
t["ops"] = t["ops"][:1]
for i in range(n):
    p = copy.deepcopy(src)
    k = 0.5 + (i * 7919 % 1000) / 1000
    p["generator"]["host_id"] = "sha256:%064x" % (i + 1)
    p["generator"]["created"] = "2026-11-%02dT%02d:%02d:00Z" % (1 + i // 1440, i // 60 % 24, i % 60)
    c = p["targets"][0]["ops"][0]["curves"]["clwb"]
    for key in ("median_mib_s", "p10_mib_s", "p90_mib_s", "ci95_lo_mib_s", "ci95_hi_mib_s"):
        c[key] = [None if v is None else round(v * k, 1) for v in c[key]]
    json.dump(p, open("%s/h%05d.json" % (out, i), "w"), indent=1)
EOF
expect 0 "merge $n hosts" -- --merge "$tmp/many.json" --insecure "$tmp/many"
python3 - "$tmp/many.json" "$tmp/many" $n <<'EOF' && ok || bad "the merge of $n hosts"
import glob, json, statistics, sys
m, n = json.load(open(sys.argv[1])), int(sys.argv[3])
assert m["merged"]["hosts"] == n, m["merged"]["hosts"]
assert m["merged"]["host_ids"] == ["sha256:%064x" % (i + 1) for i in range(n)]
hosts = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[2] + "/*.json"))]
c = m["targets"][0]["ops"][0]["curves"]["clwb"]
for j, med in enumerate(c["median_mib_s"]):
    v = [h["targets"][0]["ops"][0]["curves"]["clwb"]["median_mib_s"][j] for h in hosts]
    if med is None or None in v:
        continue
    assert abs(med - statistics.median(v)) <= 0.05 + 1e-9, (j, med, statistics.median(v))
    assert c["hosts_min_mib_s"][j] == min(v) and c["hosts_max_mib_s"][j] == max(v), j
EOF
expect 2 "merge $n hosts and one of them again" -- --merge "$tmp/x.json" --insecure \
	"$tmp/many.json" "$tmp/many/h01233.json"
grep -q "the same host twice (sha256:0*4d2), in $tmp/many.json and in $tmp/many/h01233.json" \
	"$tmp/err" && ok || bad "one of $n hosts again: $(cat "$tmp/err")"
expect 2 "merge of nothing" -- --merge "$tmp/x.json"
expect 2 "merge invalid" -- --merge "$tmp/y.json" --insecure "$tmp/a.json" "$tmp/bad.json"
[ ! -e "$tmp/y.json" ] && ok || bad "a failed merge wrote its output"

# --metrics: Prometheus text format
expect 0 "metrics" -- --metrics "$tmp/pmem.prom" --insecure "$tmp/fleet.json"
python3 - "$tmp/pmem.prom" <<'EOF' && ok || bad "metrics format: $(head -5 "$tmp/pmem.prom")"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
sample = re.compile(r'^[a-z_]+(\{([a-z_]+="[^"\\]*",?)*\})? -?[0-9.e+-]+$')
names = set()
for l in lines:
    if l.startswith("# "):
        assert re.match(r"^# (HELP|TYPE) pmem_tuned?_[a-z_]+ ", l), l
        continue
    assert sample.match(l), l
    names.add(re.split(r"[{ ]", l)[0])
for n in ("pmem_tune_ceiling_bytes_per_second", "pmem_tune_export_regret_ratio",
          "pmem_tune_probe_timestamp_seconds", "pmem_tune_merged_hosts"):
    assert n in names, (n, names)
EOF

# as root, a policy someone else could have written is refused with --strict
# (what the daemon does) and without --insecure by --merge
if [ "$(id -u)" -eq 0 ]; then
	cp "$tmp/a.json" "$tmp/mine.json"
	chown 65534 "$tmp/mine.json"
	expect 2 "foreign owner" -- --check --strict "$tmp/mine.json"
	grep -q "owned by uid 65534" "$tmp/out" && ok || bad "owner: $(cat "$tmp/out")"
	expect 2 "foreign owner, merge" -- --merge "$tmp/z.json" "$tmp/mine.json"
	chown 0 "$tmp/mine.json"
	chmod 0666 "$tmp/mine.json"
	expect 2 "world-writable" -- --check --strict "$tmp/mine.json"
	chmod 0644 "$tmp/mine.json"
	expect 0 "root's own" -- --check --strict "$tmp/mine.json"
else
	echo "skipped: ownership checks need root"
fi

finish
