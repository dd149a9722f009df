#!/usr/bin/env bash
# What an operator meets first: --metrics as promtool takes it (this host's
# entry only, hostile labels escaped, the daemon's status), --json parsed by
# jq on every command that prints, an option a command does not take is an
# error, NO_COLOR, --help naming every option, -q = --quiet, table headers
# that tell the movnt variants apart.
# Usage: test_operator_cli.sh PMEM_TUNE MAIN_C
set -uo pipefail
tune=$1
main_c=$2
PT_TEST_NAME=test_operator_cli
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
umask 022

# -q is --quiet: nothing on stderr, and the probe is the standard one unless --quick
expect 0 "probe -q --quick" -- --probe -q --quick --threads 1 \
	--strategies movnt_sse2,movnt_avx2,movnt_avx512,clwb --target dram --area-size 96M \
	--output "$tmp/a.json"
[ ! -s "$tmp/err" ] && ok || bad "-q printed on stderr: $(cat "$tmp/err")"
jq -e '.generator.mode == "quick"' "$tmp/a.json" >/dev/null && ok || bad "--quick mode not quick"

# without a terminal, progress is a plain line per quarter (the probe unit's journal)
expect 0 "probe, stderr not a terminal" -- --probe --quick --threads 1 --strategies movnt_avx2,clwb \
	--target dram --area-size 96M --output -
grep -qE "^pmem-tune: dram: [0-9]+% measured .*about [0-9]+ s left$" "$tmp/err" && ok ||
	bad "no progress lines: $(cat "$tmp/err")"
! grep -q $'[\r\033]' "$tmp/err" && ok || bad "terminal codes in the journal's progress"

# --all tells movnt_avx2 from movnt_avx512 (supported or not, both columns)
NO_COLOR=1 "$tune" --show --all "$tmp/a.json" >"$tmp/show" 2>&1
if grep -q "avx512" "$tmp/show"; then
	grep -qE "^ +size +movnt_sse2 +movnt_avx2 +avx512 +clwb +decided$" "$tmp/show" && ok ||
		bad "header: $(grep -m2 -B1 ' size' "$tmp/show")"
fi

# show fits 100 columns (the policy's own path aside), with --all too, on every
# recorded policy: names whole, sizes in B/KiB/MiB, a column per family by default
src=$(cd "$(dirname "$main_c")/../.." && pwd)
nshown=0
for d in "$src"/tests/data/*/; do
	f=$(ls "$d"*.json 2>/dev/null | head -n 1)
	[ -n "$f" ] && jq -e '.schema' "$f" >/dev/null 2>&1 || continue	# policies only
	for all in "" --all; do
		NO_COLOR=1 "$tune" --show $all --insecure "$f" >"$tmp/show" 2>&1 ||
			{ bad "show $all $f failed: $(head -2 "$tmp/show")"; continue; }
		long=$(grep -v '^policy ' "$tmp/show" | awk 'length($0) > 100' | head -n 2)
		[ -z "$long" ] && ok || bad "show $all ${f#"$src"/}: wider than 100: $long"
		! grep -qE '^ +[0-9]+[KM]? +[0-9]' "$tmp/show" && grep -qE '^ +[0-9]+ (B|KiB|MiB) ' "$tmp/show" &&
			ok || bad "show $all ${f#"$src"/}: sizes without units"
		nshown=$((nshown + 1))
	done
	NO_COLOR=1 "$tune" --show --insecure "$f" >"$tmp/show.fam" 2>&1
	grep -qE '^ +size +streaming +member +cached +member +chosen +/best$' "$tmp/show.fam" && ok ||
		bad "show ${f#"$src"/}: no family header: $(grep -m1 ' size' "$tmp/show.fam")"
done
[ "$nshown" -ge 8 ] && ok || bad "only $nshown recorded policies shown"
# on a terminal of 80 columns, 80 at most, with --all too (prose breaks, tables fit)
if command -v script >/dev/null; then
	for f in "$src"/tests/data/amd-f26-kvm/quick-01.json "$src"/tests/data/intel-avx512-kvm/quick-01.json; do
		TERM=xterm script -qec "stty cols 80; $tune --show --insecure $f; \
			$tune --show --all --insecure $f" /dev/null | tr -d '\r' |
			sed 's/\x1b\[[0-9;]*m//g' >"$tmp/show80"
		long=$(grep -v '^policy ' "$tmp/show80" | awk 'length($0) > 80' | head -n 2)
		grep -q ' size ' "$tmp/show80" && [ -z "$long" ] && ok ||
			bad "show at 80 columns: $long$(head -c 200 "$tmp/show80")"
	done
fi
# a name is never cut: clflushopt whole in --all's header
f=$(ls "$src"/tests/data/intel-avx512-kvm/*.json | head -n 1)
NO_COLOR=1 "$tune" --show --all --insecure "$f" >"$tmp/show" 2>&1
grep -qw clflushopt "$tmp/show" && ! grep -qw clflushop "$tmp/show" && ok ||
	bad "--all: clflushopt cut: $(grep -m1 clflush "$tmp/show")"

# --json on every command that prints, parsed by jq
expect 0 "show --json" -- --show --json "$tmp/a.json"
jq -e '.schema == "pmem-policy/1" and (.targets | length) == 1' "$tmp/out" >/dev/null && ok ||
	bad "show --json: $(head -c 300 "$tmp/out")"
expect 0 "check --json" -- --check --json "$tmp/a.json"
jq -e '.result == "valid" and .status == 0 and (.host_fingerprint | startswith("sha256:"))' \
	"$tmp/out" >/dev/null && ok || bad "check --json: $(cat "$tmp/out")"
echo '{' >"$tmp/bad.json"
expect 2 "check --json invalid" -- --check --json "$tmp/bad.json"
jq -e '.result == "invalid" and .status == 2' "$tmp/out" >/dev/null && ok ||
	bad "check --json invalid: $(cat "$tmp/out")"
# a missing file is said to be missing, still exit 2 (the probe unit and a playbook rely on it)
expect 2 "check missing" -- --check "$tmp/none.json"
[ "$(cat "$tmp/out")" = "missing: $tmp/none.json: No such file or directory" ] && ok ||
	bad "check missing: $(cat "$tmp/out")"
expect 2 "check --json missing" -- --check --json "$tmp/none.json"
jq -e --arg f "$tmp/none.json" '.result == "missing" and .status == 2 and .file == $f and
	(.message | test("No such file"))' "$tmp/out" >/dev/null && ok ||
	bad "check --json missing: $(cat "$tmp/out")"
edit "$tmp/a.json" "$tmp/b.json" 'p["exports"]["libpmem"]["env"]["PMEM_MOVNT_THRESHOLD"] = "65536"'
expect 1 "diff --json" -- --diff --json "$tmp/a.json" "$tmp/b.json"
jq -e '.same == false and (.changes | length) >= 1' "$tmp/out" >/dev/null && ok ||
	bad "diff --json: $(cat "$tmp/out")"
expect 0 "diff --json same" -- --diff --json "$tmp/a.json" "$tmp/a.json"
jq -e '.same == true and .changes == []' "$tmp/out" >/dev/null && ok || bad "diff same: $(cat "$tmp/out")"
expect 0 "strategies-list --json" -- --strategies-list --json
jq -e '(.strategies | map(.name) | index("movnt_avx512")) != null and (.cpu.family | type) == "number"' \
	"$tmp/out" >/dev/null && ok || bad "strategies-list --json: $(head -c 300 "$tmp/out")"
# one strategy object in --list and --strategies-list; every command's JSON in
# ndctl's style ("key":value, two spaces), whichever prints it
cp "$tmp/out" "$tmp/strategies.json"
expect 0 "list --json" -- --list --json
cmp -s <(jq -c .strategies "$tmp/out") <(jq -c .strategies "$tmp/strategies.json") && ok ||
	bad "--list and --strategies-list give other strategy objects"
for f in "$tmp/out" "$tmp/strategies.json"; do
	grep -q '^  "[a-z_]*":' "$f" && ! grep -q '": ' "$f" && ok ||
		bad "$(basename "$f"): not in ndctl's JSON style: $(head -c 200 "$f")"
done

# an option the command does not take is an error, not ignored
expect_refusal "--json on --merge" "--json" -- --merge "$tmp/m.json" --json "$tmp/a.json"
expect_refusal "--threads on --show" "--threads" -- --show --threads 2 "$tmp/a.json"
expect_refusal "--quick on --check" "--quick" -- --check --quick "$tmp/a.json"
# however many options come before it
many=$(printf -- '--json %.0s' $(seq 70))
# shellcheck disable=SC2086
expect_refusal "--threads after 70 options" "--threads" -- --show $many --threads 2 "$tmp/a.json"

# --help names every long option of getopt's table
"$tune" --help >"$tmp/help" && ok || bad "--help failed"
opts=$(sed -n '/^static const struct option options\[\]/,/^};/p' "$main_c" |
	grep -o '{ "[a-z0-9-]*"' | tr -d '{" ')
[ -n "$opts" ] && ok || bad "no options found in $main_c"
for o in $opts; do
	grep -q -- "--$o\b" "$tmp/help" && ok || bad "--help does not list --$o"
done

# NO_COLOR: no escape codes even on a terminal
if command -v script >/dev/null; then
	NO_COLOR=1 script -qec "$tune --show $tmp/a.json" /dev/null >"$tmp/tty" 2>&1
	grep -q "target dram" "$tmp/tty" && ok || bad "show on a pty: $(head -3 "$tmp/tty")"
	! grep -q $'\033' "$tmp/tty" && ok || bad "NO_COLOR: escape codes on a terminal"
	TERM=xterm script -qec "$tune --show $tmp/a.json" /dev/null >"$tmp/tty" 2>&1
	grep -q $'\033' "$tmp/tty" && ok || bad "no colour on a terminal without NO_COLOR"
	# TERM=dumb (and no TERM): a terminal that takes no escape codes
	TERM=dumb script -qec "$tune --show $tmp/a.json" /dev/null >"$tmp/tty" 2>&1
	grep -q "target dram" "$tmp/tty" && ! grep -q $'\033' "$tmp/tty" && ok ||
		bad "TERM=dumb: escape codes or no table: $(head -c 300 "$tmp/tty" | cat -v)"
	env -u TERM script -qec "$tune --show $tmp/a.json" /dev/null >"$tmp/tty" 2>&1
	! grep -q $'\033' "$tmp/tty" && ok || bad "no TERM: escape codes on a terminal"
	# the progress on a terminal: under 100 %, seconds that never go up or below 0
	TERM=xterm script -qec "$tune --probe --quick --threads 1 --target dram --area-size 96M \
		--strategies movnt_avx2,movnt_sse2,clwb --output -" /dev/null >"$tmp/tty" 2>&1
	tr '\r' '\n' <"$tmp/tty" | grep -aoE '\] +[0-9]+% .*about -?[0-9]+ s left' >"$tmp/prog"
	[ -s "$tmp/prog" ] && ok || bad "no progress on a terminal: $(head -c 300 "$tmp/tty" | cat -v)"
	awk '{ p = $2 + 0; s = $(NF - 2) + 0 }
	     p > 99 || p < lp || $(NF - 2) ~ /^-/ || (NR > 1 && s > ls) { print "bad: " $0; exit 1 }
	     { lp = p; ls = s }' "$tmp/prog" && ok || bad "progress: $(grep -m3 . "$tmp/prog")"
	TERM=dumb script -qec "$tune --probe --quick --threads 1 --target dram --area-size 96M \
		--strategies movnt_avx2,clwb --output -" /dev/null >"$tmp/tty" 2>&1
	! grep -q $'\033' "$tmp/tty" && grep -q '% measured' "$tmp/tty" && ok ||
		bad "TERM=dumb progress: $(grep -m3 -a 'measured\|left' "$tmp/tty" | cat -v)"
else
	echo "skipped: NO_COLOR on a terminal needs script(1)"
fi

# --metrics: this host's entry only, promtool-clean, hostile labels escaped
edit "$tmp/a.json" "$tmp/other.json" 'p["platform"]["fingerprint"] = "sha256:" + "0" * 64'
# the loader refuses control characters; quotes and backslashes it lets through
edit "$tmp/a.json" "$tmp/evil.json" 'p["targets"][0]["name"] = "evil\\\"} 1 # \\"'
expect 0 "merge" -- --merge "$tmp/fleet.json" "$tmp/evil.json" "$tmp/other.json"
mkdir -p "$tmp/run"
printf '{"format":"pmem-tuned-status/1","time":1700000000,"applied":true,"policy":"x",' \
	>"$tmp/run/status.json"
printf '"unchanged":1,"refused":0,"set":3,"failed":0}' >>"$tmp/run/status.json"
printf '{"format":"pmem-tuned-status/1","time":1700000100,"verified":true,"drift":2}' \
	>"$tmp/run/verify.json"
expect 0 "metrics" -- --metrics "$tmp/pmem.prom" --daemon-state "$tmp/run" "$tmp/fleet.json"
grep -qF 'target="evil\\\"} 1 # \\",' "$tmp/pmem.prom" && ok ||
	bad "hostile label not escaped: $(grep evil "$tmp/pmem.prom" | head -2)"
[ "$(grep -c '^pmem_tune_policy_host_match.* 1$' "$tmp/pmem.prom")" -eq 1 ] && ok ||
	bad "host match: $(grep host_match "$tmp/pmem.prom")"
! grep -q '0000000000000000' "$tmp/pmem.prom" && ok || bad "another platform's entry exported"
grep -q '^pmem_tuned_policy_applied 1$' "$tmp/pmem.prom" && ok || bad "applied not exported"
grep -q '^pmem_tuned_drift_knobs 2$' "$tmp/pmem.prom" && ok || bad "drift not exported"
grep -q '^pmem_tuned_last_apply_timestamp_seconds 1700000000$' "$tmp/pmem.prom" && ok ||
	bad "apply time not exported"
grep -q '^pmem_tuned_knobs{result="set"} 3$' "$tmp/pmem.prom" && ok || bad "knob counts"
# a metric name appears in one HELP/TYPE group only
dups=$(grep '^# TYPE' "$tmp/pmem.prom" | sort | uniq -d)
[ -z "$dups" ] && ok || bad "TYPE given twice: $dups"
# a status file that is not the daemon's (a null format) counts as none, no crash
mkdir -p "$tmp/odd"
printf '{"format":null,"applied":true}' >"$tmp/odd/status.json"
expect 0 "metrics, odd status" -- --metrics - --daemon-state "$tmp/odd" "$tmp/other.json"
grep -q '^pmem_tuned_policy_applied 0$' "$tmp/out" && ok || bad "odd status: $(cat "$tmp/out")"
expect 0 "metrics, no daemon" -- --metrics - --daemon-state "$tmp/none" "$tmp/other.json"
grep -q '^pmem_tune_policy_host_match{.*} 0$' "$tmp/out" && grep -q '^pmem_tuned_policy_applied 0$' \
	"$tmp/out" && ok || bad "other platform / no daemon: $(cat "$tmp/out")"
if command -v promtool >/dev/null; then
	for f in "$tmp/pmem.prom" "$tmp/out"; do
		promtool check metrics <"$f" >"$tmp/prom" 2>&1 && ok ||
			bad "promtool on $f: $(cat "$tmp/prom")"
	done
else
	echo "skipped: promtool not installed (Debian package prometheus)"
fi

# reading a policy another user owns: a warning, then the answer; --strict refuses;
# --check decides (the probe unit, a playbook's validate:) and refuses it (test_trust.sh)
if [ "$(id -u)" -eq 0 ]; then
	cp "$tmp/a.json" "$tmp/theirs.json"
	chown 65534 "$tmp/theirs.json"
	expect 0 "show, owned by another user" -- --show "$tmp/theirs.json"
	grep -q "warning: .*owned by uid 65534" "$tmp/err" && ok || bad "no warning: $(cat "$tmp/err")"
	expect 0 "show --json, owned by another user" -- --show --json "$tmp/theirs.json"
	jq -e . "$tmp/out" >/dev/null && ok || bad "show --json not JSON with the warning"
	expect 2 "show --strict" -- --show --strict "$tmp/theirs.json"
	grep -q "owned by uid 65534" "$tmp/err" && ok || bad "strict: $(cat "$tmp/err")"
	expect 2 "check, owned by another user" -- --check "$tmp/theirs.json"
	grep -q "owned by uid 65534" "$tmp/out" && ok || bad "check: $(cat "$tmp/out")"
	expect 0 "show --insecure: no warning" -- --show --insecure "$tmp/theirs.json"
	[ ! -s "$tmp/err" ] && ok || bad "--insecure warned: $(cat "$tmp/err")"
else
	echo "skipped: ownership cases need root"
fi

finish
