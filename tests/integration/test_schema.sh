#!/usr/bin/env bash
# docs/pmem-policy.schema.json against real probe output: a quick DRAM probe
# and a single-thread file probe validate, so does a hand-made bundle of two
# policies (one merged), and documents that break the contract are rejected
# (so this test can fail).  Needs python3-jsonschema; skips (77) without it.
# Usage: test_schema.sh PMEM_TUNE SCHEMA_JSON
set -uo pipefail
tune=$1
schema=$2
tmp=$(mktemp -d /tmp/pt-schema.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Debian's python3 first: the schema must work with python3-jsonschema 4.10
py=
for p in /usr/bin/python3 python3; do
	if command -v "$p" >/dev/null &&
	   "$p" -c 'import jsonschema; jsonschema.Draft202012Validator' 2>/dev/null; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	echo "skipped: python3-jsonschema missing"
	exit 77
fi

fail=0
probe() {
	local out=$1
	shift
	if ! "$tune" --probe --quick --quiet "$@" --output "$out" >"$tmp/table" 2>"$tmp/err"; then
		echo "FAIL: pmem-tune --probe --quick $* exited non-zero: $(tail -1 "$tmp/err")" >&2
		fail=1
	fi
}
probe "$tmp/default.json"
# with its raw samples: the schema must take them
probe "$tmp/file.json" --threads 1 --keep-samples --target "file:$tmp/scratch"
[ "$fail" -eq 0 ] || exit 1

# the real --merge: two hosts of this platform, one file probe, one other platform
merged=()
cp "$tmp/default.json" "$tmp/host2.json"
fp5a=sha256:$(printf '5a%.0s' {1..32})
sed -E 's/"fingerprint": "sha256:[0-9a-f]{64}"/"fingerprint": "'"$fp5a"'"/' \
	"$tmp/default.json" >"$tmp/other.json"
if "$tune" --merge "$tmp/merged.json" "$tmp/default.json" "$tmp/host2.json" "$tmp/file.json" \
	"$tmp/other.json" >/dev/null 2>"$tmp/err"; then
	merged=("$tmp/merged.json")
else
	echo "note: pmem-tune --merge failed, its output is not checked: $(tail -1 "$tmp/err")"
fi

"$py" - "$schema" "$tmp/default.json" "$tmp/file.json" "${merged[@]}" <<'EOF'
import copy, json, sys
from importlib.metadata import version
import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
real = {f: json.load(open(f)) for f in sys.argv[2:4]}
passed = failed = 0

def ok(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, file=sys.stderr)

def valid(doc, what):
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errs[:3]:
        print("  %s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:300]),
              file=sys.stderr)
    ok(not errs, what + " does not validate")

def invalid(doc, what):
    ok(not v.is_valid(doc), what + " validates but must not")

for f, d in real.items():
    valid(d, f)
    ok(d["targets"] and d["targets"][0]["ops"], f + " has no measurements")
ok(all("raw_mib_s" in c for o in real[sys.argv[3]]["targets"][0]["ops"]
       for c in o["curves"].values()), "--keep-samples wrote no raw_mib_s")

# a bundle: the file probe, and the default probe as a merged entry of
# another platform (a real merge keeps every key and adds these)
single, other = real[sys.argv[3]], copy.deepcopy(real[sys.argv[2]])
other["platform"]["fingerprint"] = "sha256:" + "5a" * 32
other["platform"]["cpu"]["model"] ^= 1
other["merged"] = {"hosts": 3, "created_first": "2026-11-01T00:00:00Z",
                   "created_last": other["generator"]["created"]}
for t in other["targets"]:
    for op in t["ops"]:
        for c in op["curves"].values():
            m = c["median_mib_s"]
            c["hosts_min_mib_s"] = [None if x is None else round(x * 0.9, 1) for x in m]
            c["hosts_max_mib_s"] = [None if x is None else round(x * 1.1, 1) for x in m]
bundle = {"schema": "pmem-policy/1", "bundle": [single, other]}
valid(bundle, "a bundle of two policies")
valid({"schema": "pmem-policy/1", "bundle": [other]}, "a bundle of one merged policy")
valid(other, "a merged policy on its own")

if len(sys.argv) > 4:
    m = json.load(open(sys.argv[4]))
    valid(m, "pmem-tune --merge output")
    ok(len(m.get("bundle", [])) == 2, "--merge of two platforms is not a bundle of two")
    ok(any(e.get("merged", {}).get("hosts") == 3 for e in m.get("bundle", [])),
       "--merge of three hosts of one platform has no merged entry of 3 hosts")

# forward compatibility: a minor version and unknown keys at every level
fwd = copy.deepcopy(single)
fwd["schema"] = "pmem-policy/1.3"
fwd["future"] = {"anything": [1, None]}
fwd["platform"]["cpu"]["future"] = 1
t = fwd["targets"][0]
t["future"] = "x"
t["ops"][0]["future"] = []
next(iter(t["ops"][0]["curves"].values()))["future_mib_s"] = [1.0]
t["ops"][0]["ranges"][0]["future"] = True
fwd.setdefault("exports", {})["future_consumer"] = {"knob": 1}
valid(fwd, "unknown keys and schema pmem-policy/1.3")

# what must be rejected: each a copy of the real file with one fault
def mutated(fn, base=single):
    d = copy.deepcopy(base)
    fn(d)
    return d

def op0(d):
    return d["targets"][0]["ops"][0]

def curve0(d):
    return next(iter(op0(d)["curves"].values()))

def drop(obj, key):
    obj.pop(key)

def setk(obj, key, val):
    obj[key] = val

bad = [
    ("no schema", lambda d: drop(d, "schema")),
    ("schema pmem-policy/2", lambda d: setk(d, "schema", "pmem-policy/2")),
    ("no platform", lambda d: drop(d, "platform")),
    ("no targets", lambda d: drop(d, "targets")),
    ("fingerprint not sha256", lambda d: setk(d["platform"], "fingerprint", "md5:00")),
    ("cpu without family", lambda d: drop(d["platform"]["cpu"], "family")),
    ("stepping 256", lambda d: setk(d["platform"]["cpu"], "stepping", 256)),
    ("feature AVX2", lambda d: d["platform"]["cpu"]["features"].append("AVX2")),
    ("escape sequence in a device", lambda d: setk(d["targets"][0], "device", "/x\x1b[2J")),
    ("newline in a generator name", lambda d: setk(d["generator"], "name", "a\nb")),
    ("generator.mode fast", lambda d: setk(d["generator"], "mode", "fast")),
    ("target kind nvme", lambda d: setk(d["targets"][0], "kind", "nvme")),
    ("mapping private", lambda d: setk(d["targets"][0], "mapping", "private")),
    ("persistence_domain adr", lambda d: setk(d["targets"][0], "persistence_domain", "adr")),
    ("empty target name", lambda d: setk(d["targets"][0], "name", "")),
    ("numa_node -2", lambda d: setk(d["targets"][0], "numa_node", -2)),
    ("pattern diagonal", lambda d: setk(op0(d), "pattern", "diagonal")),
    ("threads 0", lambda d: setk(op0(d), "threads", 0)),
    ("threads 4097", lambda d: setk(op0(d), "threads", 4097)),
    ("negative size", lambda d: op0(d)["sizes_bytes"].__setitem__(0, -5)),
    ("size above 16 TiB", lambda d: op0(d)["sizes_bytes"].__setitem__(-1, 2**44 + 1)),
    ("size as a string", lambda d: op0(d)["sizes_bytes"].__setitem__(0, "64")),
    ("repeated size", lambda d: op0(d)["sizes_bytes"].__setitem__(1, op0(d)["sizes_bytes"][0])),
    ("1025 sizes", lambda d: setk(op0(d), "sizes_bytes", list(range(1, 1026)))),
    ("no ranges", lambda d: drop(op0(d), "ranges")),
    ("no crossovers", lambda d: drop(op0(d), "crossovers")),
    ("strategy name Bad-Name", lambda d: setk(op0(d)["curves"], "Bad-Name", curve0(d))),
    ("curve without median", lambda d: drop(curve0(d), "median_mib_s")),
    ("median above 1e8 MiB/s", lambda d: curve0(d)["median_mib_s"].__setitem__(0, 1.5e8)),
    ("negative median", lambda d: curve0(d)["median_mib_s"].__setitem__(0, -1.0)),
    ("samples -1", lambda d: curve0(d)["samples"].__setitem__(0, -1)),
    ("reference_only 1", lambda d: setk(curve0(d), "reference_only", 1)),
    ("hosts_min without hosts_max", lambda d: setk(curve0(d), "hosts_min_mib_s", [])),
    ("a raw sample -1", lambda d: curve0(d)["raw_mib_s"][0].insert(0, -1.0)),
    ("a raw cell a number", lambda d: curve0(d)["raw_mib_s"].__setitem__(0, 7)),
    ("a raw sample null", lambda d: curve0(d)["raw_mib_s"][0].insert(0, None)),
    ("range to_bytes a string", lambda d: setk(op0(d)["ranges"][-1], "to_bytes", "inf")),
    ("range without strategy", lambda d: drop(op0(d)["ranges"][0], "strategy")),
    ("crossover confidence 1.5", lambda d: op0(d)["crossovers"].append(
        {"size_bytes": 64, "below": "a", "above": "b", "confidence": 1.5})),
    ("knob value with ;", lambda d: setk(d["exports"]["libpmem"]["env"],
                                          "PMEM_MOVNT_THRESHOLD", "1;reboot")),
    ("9 env entries", lambda d: d["exports"]["libpmem"]["env"].update(
        {"PMEM_X%d" % i: "1" for i in range(9)})),
    ("env value a number", lambda d: setk(d["exports"]["libpmem"]["env"],
                                           "PMEM_MOVNT_THRESHOLD", 4096)),
    ("regret -0.1", lambda d: setk(d["exports"]["libpmem"], "regret", -0.1)),
    ("kernel threshold -1", lambda d: setk(d["exports"], "kernel", {
        "target": "x", "flushcache_nt_max_bytes": -1})),
    ("kernel without threshold", lambda d: setk(d["exports"], "kernel", {"target": "x"})),
    # a "bundle" key makes the file a bundle, whatever else it holds
    ("policy with a bundle object", lambda d: setk(d, "bundle", {})),
]
for what, fn in bad:
    invalid(mutated(fn), what)
ok(len(bad) >= 30, "too few negative cases")

invalid({"schema": "pmem-policy/1", "bundle": []}, "an empty bundle")
invalid({"schema": "pmem-policy/2", "bundle": [single]}, "a bundle of major 2")
invalid({"bundle": [single]}, "a bundle without schema")
invalid({"schema": "pmem-policy/1", "bundle": [mutated(lambda d: drop(d, "platform"))]},
        "a bundle entry without platform")
no_hosts = mutated(lambda d: setk(d["merged"], "hosts", 0), other)
invalid({"schema": "pmem-policy/1", "bundle": [no_hosts]}, "a merged entry of 0 hosts")
invalid({"schema": "pmem-policy/1", "bundle": single}, "a bundle that is not an array")
invalid([single], "a top-level array")

print("test_schema: %d passed, %d failed (jsonschema %s, %s)" % (
    passed, failed, version("jsonschema"), sys.executable))
sys.exit(1 if failed else 0)
EOF
