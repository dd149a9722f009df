#!/usr/bin/env bash
# A typo never runs a command: both programs take long options by their whole
# names only (getopt_long alone takes any unambiguous prefix: --prob was
# --probe, --des --destroy-data, --rest --restore).  Every proper prefix of
# every long option is refused with exit 2, one line and nothing written;
# a near miss is answered "did you mean"; the subcommands (pmem-tune probe,
# list, ...) are the --COMMAND forms, each with its own --help.
# Usage: test_whole_options.sh PMEM_TUNE PMEM_TUNED SOURCE_DIR
set -uo pipefail
tune=$1
tuned=$2
src=$3
PT_TEST_NAME=test_whole_options
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
# shellcheck source=options-lib.sh
. "$(dirname "$0")/options-lib.sh"

# nothing_written DESCRIPTION: the scratch directory holds only what we made
nothing_written() {
	local extra
	extra=$(cd "$tmp" && find . -mindepth 1 ! -name out ! -name err ! -path './etc*' \
		! -path './sys*' ! -path './state*' | head -n 3)
	[ -z "$extra" ] && ok || bad "$1: wrote $extra"
	[ ! -e "$tmp/state/applied" ] && [ -z "$(ls -A "$tmp/etc/pmem-tuned" 2>/dev/null)" ] &&
		ok || bad "$1: the daemon wrote into its roots"
}

# refused PROGRAM DESCRIPTION WORD WANT -- ARGS: exit 2, one line naming WORD and WANT
refused() {
	local prog=$1 what=$2 word=$3 want=$4
	shift 5
	(cd "$tmp" && "$prog" "$@") >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 2 ] || { bad "$what: exit $rc, expected 2: $(cat "$tmp/err")"; return; }
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || { bad "$what: not one line: $(cat "$tmp/err")"; return; }
	grep -qF -- "$word" "$tmp/err" && grep -qF -- "$want" "$tmp/err" && ok ||
		bad "$what: '$(cat "$tmp/err")' lacks '$word' or '$want'"
	nothing_written "$what"
}

mkdir -p "$tmp/etc/pmem-tuned" "$tmp/sys" "$tmp/state"
roots=(--etc-root "$tmp/etc" --sysfs-root "$tmp/sys" --state-dir "$tmp/state")

# The issue's cases, by name
refused "$tune" "--prob" --prob "did you mean --probe?" -- --prob --output "$tmp/p.json"
refused "$tune" "--probe --des" --des "did you mean --destroy-data?" -- \
	--probe --des --target dram --output "$tmp/p.json"
refused "$tune" "--probe --outpu" --outpu "did you mean --output?" -- --probe --outpu "$tmp/p.json"
refused "$tune" "--prrobe (a near miss)" --prrobe "did you mean --probe?" -- --prrobe
refused "$tune" "--merge with --weigh" --weigh "did you mean --weights?" -- \
	--merge "$tmp/m.json" --weigh w x.json
refused "$tune" "--output without its argument" --output "needs an argument" -- --probe --output
refused "$tune" "--json=yes" --json "takes no argument" -- --list --json=yes
refused "$tuned" "pmem-tuned --rest" --rest "did you mean --restore?" -- --rest "${roots[@]}"
refused "$tuned" "pmem-tuned --one" --one "did you mean --oneshot?" -- --one "${roots[@]}"

# Every proper prefix of every long option, for both programs
check_prefixes() {
	local prog=$1 dir=$2 name k pre
	shift 2
	local names
	names=$(pt_long_options "$dir")
	[ "$(wc -l <<<"$names")" -ge 5 ] && ok || bad "$dir: found no option table"
	while read -r name; do
		for ((k = 1; k < ${#name}; k++)); do
			pre=${name:0:k}
			grep -qx -- "$pre" <<<"$names" && continue	# itself an option
			(cd "$tmp" && "$prog" "--$pre" "$@") >"$tmp/out" 2>"$tmp/err"
			local rc=$?
			if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
				bad "$prog --$pre: exit $rc: $(head -c 200 "$tmp/err")"
				continue
			fi
			ok
		done
	done <<<"$names"
	nothing_written "$prog: the prefixes"
}
check_prefixes "$tune" "$src/probe" --target dram --output "$tmp/p.json"
check_prefixes "$tuned" "$src/daemon" "${roots[@]}"

# Subcommands: the same commands by name
(cd "$tmp" && "$tune" list --json) >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && jq -e 'type == "object"' "$tmp/out" >/dev/null && ok ||
	bad "pmem-tune list --json: $(head -c 200 "$tmp/err")"
(cd "$tmp" && "$tune" strategies --json) >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && jq -e '.strategies | length > 3' "$tmp/out" >/dev/null && ok ||
	bad "pmem-tune strategies --json: $(head -c 200 "$tmp/out" "$tmp/err")"
for cmd in probe list strategies show check diff merge metrics plot decide; do
	"$tune" "$cmd" --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && grep -q -- "pmem-tune --${cmd%s}" "$tmp/out" && ok ||
		bad "pmem-tune $cmd --help: exit $rc: $(head -c 200 "$tmp/out")"
	# what it takes, and nothing it does not
	case $cmd in
	probe) grep -q -- '--destroy-data' "$tmp/out" && ok || bad "probe --help lacks --destroy-data" ;;
	list) ! grep -q -- '--destroy-data' "$tmp/out" && ok || bad "list --help names --destroy-data" ;;
	esac
done
rm -f "$tmp/out" "$tmp/err"
refused "$tune" "an unknown subcommand" frobnicate "not a command" -- frobnicate
refused "$tune" "a subcommand's option it does not take" destroy-data "does not take" -- \
	list --destroy-data
"$tune" probe --quick --quiet --threads 1 --strategies movnt_avx2,clwb --target dram \
	--area-size 96M --output "$tmp/sub.json" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && jq -e '.generator.mode == "quick"' "$tmp/sub.json" >/dev/null && ok ||
	bad "pmem-tune probe --quick: exit $rc: $(cat "$tmp/err")"
"$tune" check "$tmp/sub.json" >"$tmp/out" 2>&1
[ $? -eq 0 ] && ok || bad "pmem-tune check FILE: $(cat "$tmp/out")"
finish
