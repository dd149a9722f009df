#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every man page in docs/ dates the release it documents: its .TH line
# carries the release's date and "pmem-tuned VERSION", the same on every
# page, so that a release that bumps one bumps them all.
# usage: test_manpage_dates.sh SOURCE_DIR VERSION RELEASE_DATE
set -uo pipefail
src=$1 version=$2 release=$3
# shellcheck source-path=SCRIPTDIR source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"

valid_date() { date -u -d "$1" +%F 2>/dev/null | grep -qx -- "$1"; }

ok "the release date $release is a date (YYYY-MM-DD)" valid_date "$release"

pages=("$src"/docs/*.[1-8])
ok "docs/ has man pages" test -f "${pages[0]}"
for page in "${pages[@]}"; do
	name=$(basename "$page")
	th=$(grep '^\.TH ' "$page")
	ok "$name has one .TH line" test "$(grep -c '^\.TH ' "$page")" -eq 1
	# .TH TITLE SECTION DATE SOURCE MANUAL, quoted as roff quotes them
	mapfile -t f < <(xargs -n1 printf '%s\n' <<<"${th#.TH }")
	ok "$name: .TH names the page (${f[0]:-} ${f[1]:-})" \
		test "${f[0]:-}.${f[1]:-}" = "$(tr '[:lower:]' '[:upper:]' <<<"$name")"
	ok "$name: .TH date ${f[2]:-} is the release's, $release" test "${f[2]:-}" = "$release"
	ok "$name: .TH source \"${f[3]:-}\" is \"pmem-tuned $version\"" \
		test "${f[3]:-}" = "pmem-tuned $version"
done
tap_finish manpage_dates
