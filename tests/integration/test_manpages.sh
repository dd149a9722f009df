#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The man pages cannot drift from the code: pmem-tune(8) and pmem-tuned(8)
# name every long option of their program's getopt table and every
# environment variable it reads, and every option a page describes (a tagged
# paragraph, .TP) is one the program accepts.
# usage: test_manpages.sh SOURCE_DIR
set -uo pipefail
src=$1
# shellcheck source-path=SCRIPTDIR source=options-lib.sh
. "$(dirname "$0")/options-lib.sh"
# shellcheck source-path=SCRIPTDIR source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"

# The page's text with roff's escaped hyphens and font changes undone.
page_text() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(ti/~/g' "$1"
}

# The options a page describes: the first word of each .TP tag that is "--x".
page_tagged_options() {
	page_text "$1" | awk '/^\.TP/ { tag = 1; next }
		tag { tag = 0; for (i = 1; i <= NF; i++) if ($i ~ /^--[a-z]/) print $i }' |
		sed -E 's/^--([a-z0-9-]*).*/\1/' | sort -u
}

documents() {	# TEXT WORD: WORD appears as a whole word (options: "--WORD")
	grep -qE -- "(^|[^A-Za-z0-9_-])$2([^A-Za-z0-9_-]|$)" <<<"$1"
}

check_page() {	# PAGE PROGRAM DIR...
	local page=$1 prog=$2 opt var
	shift 2
	local opts envs text
	text=$(page_text "$page")
	opts=$(pt_long_options "$@")
	envs=$(pt_env_vars "$@")
	ok "$prog: the getopt table has options" test -n "$opts"
	for opt in $opts; do
		ok "$prog(8) documents --$opt" documents "$text" "--$opt"
	done
	for var in $envs; do
		ok "$prog(8) documents \$$var" documents "$text" "$var"
	done
	for opt in $(page_tagged_options "$page"); do
		ok "$prog(8) describes --$opt, which $prog accepts" \
			grep -qx -- "$opt" <<<"$opts"
	done
	ok "$prog(8) has an ENVIRONMENT section" grep -q '^\.SH ENVIRONMENT' "$page"
}

check_page "$src/docs/pmem-tune.8" pmem-tune "$src/probe" "$src/policy"
check_page "$src/docs/pmem-tuned.8" pmem-tuned "$src/daemon" "$src/policy"
tap_finish manpages
