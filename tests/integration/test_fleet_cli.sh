#!/usr/bin/env bash
# pmem-tune's fleet commands on real (small, quick) probe outputs:
# --show, --check, --diff, --merge, --metrics, and what bad input gets.
# Usage: test_fleet_cli.sh PMEM_TUNE
set -uo pipefail
tune=$1
PT_TEST_NAME=test_fleet_cli
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
# expect RC DESCRIPTION -- ARGS...
expect() {
	local want=$1 what=$2
	shift 3
	"$tune" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq "$want" ] && ok || bad "$what: exit $rc, expected $want: $(cat "$tmp/out" "$tmp/err")"
}
# edit FILE PYTHON-EXPRESSION-ON-p: write a doctored copy to FILE.new
edit() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(p, open(sys.argv[1] + ".new", "w"), indent=1)
EOF
}

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
edit "$tmp/a.json" 'p["platform"]["fingerprint"] = "sha256:" + "0" * 64'
mv "$tmp/a.json.new" "$tmp/other.json"
expect 1 "check other platform" -- --check --insecure "$tmp/other.json"
grep -q "^other platform" "$tmp/out" && ok || bad "other platform: $(cat "$tmp/out")"
edit "$tmp/a.json" 'p["platform"]["kernel"] = "4.19.0-old"'
mv "$tmp/a.json.new" "$tmp/oldkernel.json"
expect 0 "check another kernel" -- --check --insecure "$tmp/oldkernel.json"
grep -q "^environment change: kernel .*, probed on 4.19.0-old$" "$tmp/out" && ok ||
	bad "another kernel: $(cat "$tmp/out")"
edit "$tmp/a.json" 'p["targets"][0]["ops"][0]["sizes_bytes"][3] = -5'
mv "$tmp/a.json.new" "$tmp/bad.json"
expect 2 "check invalid" -- --check --insecure "$tmp/bad.json"
grep -q "targets\[0\].ops\[0\].sizes_bytes\[3\]: expected a positive integer, got -5" "$tmp/out" &&
	ok || bad "invalid: $(cat "$tmp/out")"
expect 2 "show invalid" -- --show --insecure "$tmp/bad.json"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$tmp/bad.json" "$tmp/err" && ok ||
	bad "invalid file error is not one line naming the file: $(cat "$tmp/err")"

# --diff: same decisions -> 0; a moved crossover or export -> 1; invalid -> 2
expect 0 "diff self" -- --diff --insecure "$tmp/a.json" "$tmp/a.json"
edit "$tmp/a.json" 'p["exports"]["libpmem"]["env"]["PMEM_MOVNT_THRESHOLD"] = "65536"'
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
edit "$tmp/b.json" 'p["generator"]["host_id"] = "sha256:" + "b" * 64'
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
edit "$tmp/a.json" 'p["generator"]["host_id"] = "sha256:" + "c" * 64'
"$tune" --merge "$tmp/bc.json" --insecure "$tmp/b.json" "$tmp/a.json.new" >/dev/null 2>&1 ||
	bad "merge b and c"
expect 2 "merge two bundles sharing a host" -- --merge "$tmp/twice.json" --insecure \
	"$tmp/fleet.json" "$tmp/bc.json"
grep -q "in $tmp/fleet.json and in $tmp/bc.json" "$tmp/err" && ok ||
	bad "two bundles share a host: $(cat "$tmp/err")"
# a bundle merged before host ids existed: the text decides, as it did
edit "$tmp/fleet.json" 'del p["bundle"][0]["merged"]["host_ids"]'
expect 0 "merge an old bundle with a host" -- --merge "$tmp/old.json" --insecure \
	"$tmp/fleet.json.new" "$tmp/b.json"
expect 2 "merge an old bundle twice" -- --merge "$tmp/old.json" --insecure "$tmp/fleet.json.new" \
	"$tmp/fleet.json.new"
grep -q "the same merged entry twice" "$tmp/err" && ok || bad "old bundle twice: $(cat "$tmp/err")"
expect 0 "show bundle" -- --show --insecure "$tmp/fleet.json"
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
