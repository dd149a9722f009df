#!/usr/bin/env bash
# pmem-tune --plot on a real quick probe: well-formed, self-contained SVG
# with the policy's series (a curve per strategy per panel, a ceiling per
# panel, the crossovers the policy names), byte-identical when plotted
# twice, and one line + exit 2 for a bad policy or an unwritable path.
# Also --show: colour on a terminal, none through a pipe.
# Asserts structure only, never timings.
# Usage: test_plot.sh PMEM_TUNE
set -uo pipefail
tune=$1
PT_TEST_NAME=test_plot
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"

# check SVG POLICY: the SVG holds what the policy holds, nothing external
check() {
	python3 - "$1" "$2" <<'EOF'
import json, os, sys
import xml.etree.ElementTree as ET

svg, pol = sys.argv[1], sys.argv[2]
S = "{http://www.w3.org/2000/svg}"
root = ET.parse(svg).getroot()
doc = json.load(open(pol))
entries = doc["bundle"] if "bundle" in doc else [doc]
errs = []

def classes(el):
    return el.get("class", "").split()

def find(el, tag, cls):
    return [e for e in el.iter(S + tag) if cls in classes(e)]

# self-contained: no scripts, no links, no external references
for el in root.iter():
    if el.tag in (S + "script", S + "foreignObject", S + "image", S + "a"):
        errs.append("has <%s>" % el.tag.replace(S, ""))
    for k, v in el.attrib.items():
        if "href" in k or k.startswith("on") or "url(" in v:
            errs.append("<%s %s=%r>" % (el.tag.replace(S, ""), k, v))
if os.path.getsize(svg) >= 200 * 1024:
    errs.append("%d bytes, not small" % os.path.getsize(svg))

text = " ".join("".join(t.itertext()) for t in root.iter(S + "text"))
panels = [g for g in root.iter(S + "g") if "panel" in classes(g)]
ops = [(e, t, o) for e in entries for t in e["targets"] for o in t["ops"]]
if len(panels) != len(ops):
    errs.append("%d panels for %d ops" % (len(panels), len(ops)))
for e in entries:
    cpu = e["platform"]["cpu"]
    want = "%s family %d model %d" % (cpu["vendor"], cpu["family"], cpu["model"])
    if want not in text:
        errs.append("no title naming %r" % want)
    for t in e["targets"]:
        if "target %s (%s)" % (t["name"], t["kind"]) not in text:
            errs.append("no heading for target %r (%s)" % (t["name"], t["kind"]))
for g, (e, t, o) in zip(panels, ops):
    where = "%s %s %s x%d" % (t["name"], o["op"], o["pattern"], o["threads"])
    if (g.get("data-op"), g.get("data-pattern"), g.get("data-threads")) != \
       (o["op"], o["pattern"], str(o["threads"])):
        errs.append("%s: panel is %s" % (where, g.attrib))
    curves = find(g, "path", "curve")
    names = sorted(c.get("data-strategy") for c in curves)
    if names != sorted(o["curves"]):
        errs.append("%s: curves %s, policy has %s" % (where, names, sorted(o["curves"])))
    for c in curves:
        ref = bool(o["curves"].get(c.get("data-strategy"), {}).get("reference_only"))
        if ref != ("reference" in classes(c)) or ref != bool(c.get("stroke-dasharray")):
            errs.append("%s: %s reference_only %s, drawn %s" % (where, c.get("data-strategy"),
                        ref, c.attrib))
        if not c.get("d", "").startswith("M"):
            errs.append("%s: %s has no line" % (where, c.get("data-strategy")))
    ceil = find(g, "g", "ceiling")
    if o.get("ceiling_mib_s") is None:
        if ceil:
            errs.append("%s: a ceiling the policy lacks" % where)
    elif len(ceil) != 1 or abs(float(ceil[0].get("data-mib-s")) - o["ceiling_mib_s"]) > 0.06:
        errs.append("%s: ceiling %s, policy %s" % (where, [c.attrib for c in ceil],
                    o["ceiling_mib_s"]))
    xo = [(int(x.get("data-size-bytes")), x.get("data-below"), x.get("data-above"))
          for x in find(g, "g", "crossover")]
    want = [(x["size_bytes"], x["below"], x["above"]) for x in o["crossovers"]]
    if xo != want:
        errs.append("%s: crossovers %s, policy %s" % (where, xo, want))
    rg = [(int(r.get("data-from-bytes")), r.get("data-to-bytes"), r.get("data-strategy"))
          for r in find(g, "rect", "range")]
    want = [(r["from_bytes"], "inf" if r["to_bytes"] is None else str(r["to_bytes"]),
             r["strategy"]) for r in o["ranges"]]
    if rg != want:
        errs.append("%s: ranges %s, policy %s" % (where, rg, want))
for e in errs:
    print(e)
sys.exit(1 if errs else 0)
EOF
}

well_formed() {
	if command -v xmllint >/dev/null; then
		xmllint --noout "$1" 2>"$tmp/xml" && ok || bad "xmllint $1: $(head -3 "$tmp/xml")"
	else
		echo "note: no xmllint (libxml2-utils); well-formedness left to python's parser"
	fi
}

"$tune" --probe --quick --quiet --threads 1 --strategies movnt_avx2,clwb,noflush \
	--target dram --area-size 96M --output "$tmp/p.json" >/dev/null 2>"$tmp/err" ||
	{ echo "FAIL: probe: $(cat "$tmp/err")" >&2; exit 1; }

"$tune" --plot "$tmp/p.svg" --insecure "$tmp/p.json" >"$tmp/out" 2>"$tmp/err" && ok ||
	bad "plot: $(cat "$tmp/err")"
well_formed "$tmp/p.svg"
check "$tmp/p.svg" "$tmp/p.json" >"$tmp/chk" && ok || bad "probe plot: $(cat "$tmp/chk")"

# the same policy plotted twice is the same file
"$tune" --plot "$tmp/p2.svg" --insecure "$tmp/p.json" 2>/dev/null
cmp -s "$tmp/p.svg" "$tmp/p2.svg" && ok || bad "two plots of one policy differ"

# crossovers and markup in names: a doctored copy whose first op switches
# strategy three times, its target named with XML's special characters
python3 - "$tmp/p.json" "$tmp/x.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
t = p["targets"][0]
t["name"] = "dram <&> \"'\u00e9"
o = t["ops"][0]
o["ranges"] = [{"from_bytes": 0, "to_bytes": 512, "strategy": "clwb"},
               {"from_bytes": 512, "to_bytes": 65536, "strategy": "movnt_avx2"},
               {"from_bytes": 65536, "to_bytes": 131072, "strategy": "clwb", "tie": True},
               {"from_bytes": 131072, "to_bytes": None, "strategy": "movnt_avx2"}]
o["crossovers"] = [{"size_bytes": 512, "below": "clwb", "above": "movnt_avx2", "confidence": 0.9},
                   {"size_bytes": 65536, "below": "movnt_avx2", "above": "clwb", "confidence": 0.5},
                   {"size_bytes": 131072, "below": "clwb", "above": "movnt_avx2",
                    "confidence": 0.5}]
o["ceiling_mib_s"] = None
# one cell the decision discarded: a hollow marker, off the line (the live
# probe may have flagged cells of its own: only this one counts)
for op in p["targets"][0]["ops"]:
    for cv in op["curves"].values():
        cv.pop("suspect_sizes_bytes", None)
        cv.pop("confirmed_sizes_bytes", None)
c = o["curves"]["clwb"]
i = next(i for i, m in enumerate(c["median_mib_s"]) if m)
c["suspect_sizes_bytes"] = [o["sizes_bytes"][i]]
# and one a fresh measurement confirmed: a ring around its point
j = next(j for j, m in enumerate(c["median_mib_s"]) if m and j != i)
c["confirmed_sizes_bytes"] = [o["sizes_bytes"][j]]
json.dump(p, open(sys.argv[2], "w"), indent=1)
# a bundle of two platforms: each entry's targets are plotted
q = json.loads(json.dumps(p))
q["platform"]["fingerprint"] = "sha256:" + "0" * 64
q["platform"]["cpu"]["vendor"] = "Vendor&Co"
json.dump({"schema": p["schema"], "bundle": [p, q]}, open(sys.argv[2] + ".bundle", "w"))
EOF
"$tune" --plot "$tmp/x.svg" --insecure "$tmp/x.json" 2>"$tmp/err" && ok ||
	bad "plot doctored: $(cat "$tmp/err")"
well_formed "$tmp/x.svg"
check "$tmp/x.svg" "$tmp/x.json" >"$tmp/chk" && ok || bad "doctored plot: $(cat "$tmp/chk")"
grep -qF 'dram &lt;&amp;&gt; &quot;&apos;' "$tmp/x.svg" && ok || bad "target name not escaped"
[ "$(grep -c '<circle class="suspect"' "$tmp/x.svg")" = 1 ] && ok ||
	bad "the suspect cell is not one hollow marker"
[ "$(grep -c '<circle class="confirmed"' "$tmp/x.svg")" = 1 ] && ok ||
	bad "the confirmed cell is not one ring"
"$tune" --plot "$tmp/b.svg" --insecure "$tmp/x.json.bundle" 2>"$tmp/err" && ok ||
	bad "plot bundle: $(cat "$tmp/err")"
well_formed "$tmp/b.svg"
check "$tmp/b.svg" "$tmp/x.json.bundle" >"$tmp/chk" && ok || bad "bundle plot: $(cat "$tmp/chk")"

# bad input: one line, exit 2, no SVG written, an existing one left alone
printf '{"schema": "pmem-policy/1", "targets": 7}\n' >"$tmp/bad.json"
expect_refusal "bad policy" "bad.json" -- --plot "$tmp/bad.svg" --insecure "$tmp/bad.json"
[ ! -e "$tmp/bad.svg" ] && ok || bad "a bad policy still wrote an SVG"
cp "$tmp/p.svg" "$tmp/keep.svg"
expect_refusal "bad policy over an SVG" "bad.json" -- --plot "$tmp/keep.svg" --insecure \
	"$tmp/bad.json"
cmp -s "$tmp/p.svg" "$tmp/keep.svg" && ok || bad "a bad policy changed the existing SVG"
expect_refusal "missing policy" "nope.json" -- --plot "$tmp/n.svg" "$tmp/nope.json"
expect_refusal "unwritable path" "/nonexistent-dir/p.svg" -- --plot /nonexistent-dir/p.svg \
	--insecure "$tmp/p.json"
expect_refusal "two policies" "--plot" -- --plot "$tmp/t.svg" "$tmp/p.json" "$tmp/x.json"
ls -A "$tmp" | grep -q '\.svg\.pmem-tune-tmp\.' && bad "temporary files left: $(ls -A "$tmp")" || ok

# strategies named at their line ends, the defaults and exports as markers, a
# ratio-to-the-best panel under each panel; --plot FILE.csv writes the curves
python3 - "$tmp/p.svg" "$tmp/p.json" <<'EOF' && ok || bad "labels, markers, ratio panel"
import json, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
svg = ET.parse(sys.argv[1]).getroot()
pol = json.load(open(sys.argv[2]))
for panel, op in zip((g for g in svg.iter(ns + "g") if g.get("class") == "panel"),
                     pol["targets"][0]["ops"]):
    ends = [g.find(ns + "text").text for g in panel.iter(ns + "g") if g.get("class") == "end-label"]
    for c in op["curves"]:
        assert c in ends, (c, ends)
    marks = {g.get("data-size-bytes") for g in panel.iter(ns + "g")
             if (g.get("class") or "").startswith("marker")}
    assert {"256", "768"} <= marks, marks
    ratio = [g for g in panel.iter(ns + "g") if g.get("class") == "ratio"]
    assert len(ratio) == 1, "no ratio panel"
    assert any(p.get("class") == "ratio-curve" for p in ratio[0].iter(ns + "path"))
EOF
"$tune" --plot "$tmp/p.csv" --insecure "$tmp/p.json" 2>"$tmp/err" && ok || bad "csv: $(cat "$tmp/err")"
python3 - "$tmp/p.csv" "$tmp/p.json" <<'EOF' && ok || bad "csv content: $(head -3 "$tmp/p.csv")"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
p = json.load(open(sys.argv[2]))
want = sum(len(o["curves"]) * len(o["sizes_bytes"]) for t in p["targets"] for o in t["ops"])
assert len(rows) == want, (len(rows), want)
o = p["targets"][0]["ops"][0]
s = sorted(o["curves"])[0]
r = [x for x in rows if x["strategy"] == s and x["pattern"] == o["pattern"]
     and x["threads"] == str(o["threads"])]
m = o["curves"][s]["median_mib_s"]
assert all(abs(float(a["median_mib_s"]) - b) < 0.06 for a, b in zip(r, m) if b is not None)
EOF

# --show: the winner marked per size; colour on a terminal only
"$tune" --show --insecure "$tmp/p.json" >"$tmp/plain" 2>&1
grep -q $'\033' "$tmp/plain" && bad "--show through a pipe has escape codes" || ok
grep -qE '[0-9][*~] ' "$tmp/plain" && ok || bad "--show marks no winner"
if command -v script >/dev/null; then
	script -qec "$tune --show --insecure $tmp/p.json" /dev/null >"$tmp/tty" 2>&1
	grep -q $'\033\\[32m' "$tmp/tty" && ok || bad "--show on a terminal has no colour"
else
	echo "note: no script(1); terminal colour not checked"
fi

finish
