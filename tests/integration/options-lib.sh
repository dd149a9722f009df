# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What a program accepts, read from its sources: the long options of its getopt
# tables and the environment variables it reads.  The man pages and the bash
# completion are checked against these lists, so that neither drifts from the
# code.  Sources are scanned per folder, wherever the table lives in it.

# pt_long_options DIR...: one long option name per line (without "--"), sorted
pt_long_options() {
	local d
	for d in "$@"; do
		find "$d" -name "*.c" -exec cat {} +
	done | grep -oE '\{ *"[a-z0-9][a-z0-9-]*", *(no|required|optional)_argument' |
		sed -E 's/^\{ *"([^"]*)".*/\1/' | sort -u
}

# pt_env_vars DIR...: each variable read by a literal name with getenv(3) or
# secure_getenv(3), sorted
pt_env_vars() {
	local d
	for d in "$@"; do
		find "$d" -name "*.c" -exec cat {} +
	done | grep -oE '(secure_)?getenv\("[A-Za-z_][A-Za-z0-9_]*"\)' |
		sed -E 's/.*\("([^"]*)"\)/\1/' | sort -u
}
