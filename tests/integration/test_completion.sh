#!/usr/bin/env bash
# shellcheck disable=SC2154  # the lists come from the sourced completions
# SPDX-License-Identifier: GPL-2.0-or-later
# The bash completions load in bash, register for pmem-tune and pmem-tuned,
# offer exactly the long options of the programs' getopt tables (and the
# strategies of probe/'s table) and complete a few command lines as a user
# would type them (COMP_WORDS/COMP_LINE as bash sets them).
# usage: test_completion.sh SOURCE_DIR
set -uo pipefail
src=$1
dir=$src/systemd/bash-completion
# shellcheck source-path=SCRIPTDIR source=options-lib.sh
. "$(dirname "$0")/options-lib.sh"
# shellcheck source-path=SCRIPTDIR source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pt-completion.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=/dev/null
ok "pmem-tune's completion loads" source "$dir/pmem-tune"
# shellcheck source=/dev/null
ok "pmem-tuned's completion loads" source "$dir/pmem-tuned"
ok "complete -p pmem-tune names _pmem_tune" \
	grep -qx 'complete -F _pmem_tune pmem-tune' <<<"$(complete -p pmem-tune)"
ok "complete -p pmem-tuned names _pmem_tuned" \
	grep -qx 'complete -F _pmem_tuned pmem-tuned' <<<"$(complete -p pmem-tuned)"

words() { tr -s '[:space:]' '\n' <<<"$1" | sed '/^$/d' | sort -u; }
same() {	# WHAT EXPECTED ACTUAL
	[ "$2" = "$3" ] && return 0
	echo "# $1 differs (< sources, > completion):"
	diff <(echo "$2") <(echo "$3") | grep '^[<>]' | sed 's/^/#   /'
	return 1
}
ok "pmem-tune: the options of the getopt table" same options \
	"$(pt_long_options "$src/probe" "$src/policy" | sed 's/^/--/')" \
	"$(words "$_pmem_tune_options")"
ok "pmem-tuned: the options of the getopt table" same options \
	"$(pt_long_options "$src/daemon" "$src/policy" | sed 's/^/--/')" \
	"$(words "$_pmem_tuned_options")"
ok "pmem-tune: the strategies of the strategy table" same strategies \
	"$(cat "$src"/probe/measure/strategy*.c | sed -nE 's/^\s*\.name = "([a-z0-9_]+)",.*/\1/p' |
		sort -u)" \
	"$(words "$_pmem_tune_strategies")"

# complete FUNCTION LINE: what FUNCTION offers with the cursor at the end of LINE,
# one per line, sorted; the words split as bash splits them (":" breaks a word)
complete_line() {
	local fn=$1
	COMP_LINE=$2
	COMP_POINT=${#COMP_LINE}
	read -ra COMP_WORDS <<<"${COMP_LINE//:/ : }"
	[[ $COMP_LINE == *[[:space:]] ]] && COMP_WORDS+=('')
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	"$fn" 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort
}
expect() {	# FUNCTION LINE EXPECTED...
	local fn=$1 line=$2 got want
	shift 2
	got=$(complete_line "$fn" "$line")
	want=$(printf '%s\n' "$@" | sort)
	ok "'$line<TAB>' offers: $*" same "'$line'" "$want" "$got"
}

expect _pmem_tune 'pmem-tune --thor' --thorough
expect _pmem_tune 'pmem-tune --strategies-' --strategies-list
expect _pmem_tune 'pmem-tune --probe --q' --quick --quiet
expect _pmem_tune 'pmem-tune pr' probe
expect _pmem_tune 'pmem-tune st' strategies
expect _pmem_tune 'pmem-tune merge --we' --weights
expect _pmem_tune 'pmem-tune --probe --target d' dram
expect _pmem_tune 'pmem-tune --probe -t au' auto
expect _pmem_tune 'pmem-tune --probe --strategies movnt,cl' movnt,clwb movnt,clflushopt \
	movnt,clflush
mkdir "$tmp/pmem0" && touch "$tmp/pmem0/scratch" "$tmp/a.json" "$tmp/b.txt"
expect _pmem_tune "pmem-tune --probe --target file:$tmp/pm" "$tmp/pmem0/"
expect _pmem_tune "pmem-tune --show $tmp/" "$tmp/a.json" "$tmp/pmem0"
expect _pmem_tuned 'pmem-tuned --dry' --dry-run
expect _pmem_tuned 'pmem-tuned --s' --sysfs-root --state-dir
expect _pmem_tuned "pmem-tuned --policy $tmp/" "$tmp/a.json" "$tmp/pmem0"

tap_finish completion
