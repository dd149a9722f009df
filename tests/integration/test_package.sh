#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages as scripts/package.sh makes them: two packages and their
# debug symbols, what each holds and depends on, the hardening of the programs,
# and `lintian -EvIL +pedantic` on all four, .ddeb included, with no tag left
# but those the packages' overrides justify.
# usage: test_package.sh SOURCE_DIR DIR [--sanitize ON|OFF]
set -uo pipefail
src=$1
dir=$2
[[ ${4:-OFF} =~ ^(ON|on|TRUE|true|1|YES|yes)$ ]] &&
	{ echo "skipped: sanitizer build tree (the packages are checked in the plain one)"; exit 77; }
if ! command -v lintian >/dev/null; then
	echo "skipped: lintian is not installed (scripts/deps.sh test installs it)"
	exit 77
fi
# shellcheck source-path=SCRIPTDIR source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"

if ! "$src/scripts/package.sh" "$dir" >"$dir.log" 2>&1; then
	tail -n 30 "$dir.log"
	echo "not ok - scripts/package.sh builds the packages (see $dir.log)"
	exit 1
fi
echo "ok - scripts/package.sh builds the packages"
cli=$(ls "$dir"/pmem-tune_*.deb) daemon=$(ls "$dir"/pmem-tuned_*.deb)
ok "pmem-tune-dbgsym made" compgen -G "$dir/pmem-tune-dbgsym_*.ddeb"
ok "pmem-tuned-dbgsym made" compgen -G "$dir/pmem-tuned-dbgsym_*.ddeb"
ddebs=("$dir"/*-dbgsym_*.ddeb)

holds() { dpkg-deb -c "$1" | awk '{ print $6 }' | grep -qx "./$2"; }
for f in usr/bin/pmem-tune usr/share/man/man8/pmem-tune.8.gz \
	usr/share/man/man5/pmem-policy.json.5.gz usr/share/bash-completion/completions/pmem-tune \
	usr/share/doc/pmem-tune/copyright usr/share/doc/pmem-tune/changelog.Debian.gz \
	usr/share/doc/pmem-tune/pmem-policy.schema.json usr/share/doc/pmem-tune/fleet.md \
	usr/share/doc/pmem-tune/examples/pmem-policy.yml; do
	ok "pmem-tune holds /$f" holds "$cli" "$f"
done
for f in usr/sbin/pmem-tuned usr/lib/systemd/system/pmem-tuned.service \
	usr/lib/systemd/system/pmem-tune-probe.service \
	usr/lib/systemd/system/pmem-tune-devices.service usr/lib/tmpfiles.d/pmem-tuned.conf \
	usr/share/man/man8/pmem-tuned.8.gz usr/share/bash-completion/completions/pmem-tuned \
	etc/pmem-tuned/pmem-tuned.conf usr/share/doc/pmem-tuned/copyright; do
	ok "pmem-tuned holds /$f" holds "$daemon" "$f"
done
# Debian's layout for a -dbgsym: the debug file under its build id, not
# executable, and the documentation of the package it depends on.
for d in "${ddebs[@]}"; do
	p=$(dpkg-deb -f "$d" Package)
	id=$(dpkg-deb -f "$d" Build-Ids)
	ok "$p holds /usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug, mode 0644" bash -c \
		"dpkg-deb -c '$d' | grep -qE '^-rw-r--r-- .* \./usr/lib/debug/\.build-id/${id:0:2}/${id:2}\.debug$'"
	ok "$p: /usr/share/doc/$p -> ${p%-dbgsym}" bash -c \
		"dpkg-deb -c '$d' | grep -qE '^l.* \./usr/share/doc/$p -> ${p%-dbgsym}$'"
done
ok "pmem-tune does not hold the daemon" bash -c "! dpkg-deb -c '$cli' | grep -q 'sbin/pmem-tuned\|systemd'"
ok "pmem-tune does not depend on libsystemd" \
	bash -c "! dpkg-deb -f '$cli' Depends | grep -q libsystemd"
version=$(dpkg-deb -f "$cli" Version)
ok "pmem-tuned depends on pmem-tune (= $version)" \
	bash -c "dpkg-deb -f '$daemon' Depends | grep -qF 'pmem-tune (= $version)'"
ok "the copyright says which files are LGPL" \
	grep -qx 'Files: policy/\* common/\*' "$src/systemd/debian/copyright"
ok "no maintainer script calls systemctl but for daemon-reload" \
	bash -c "! grep -hE '^[^#]*systemctl' '$src'/systemd/debian/{postinst,prerm,postrm} |
		grep -v 'systemctl --system daemon-reload'"

# hardening, on the programs as packaged
x=$(mktemp -d "${TMPDIR:-/tmp}/pt-package.XXXXXX")
trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$cli" "$x" && dpkg-deb -x "$daemon" "$x"
for p in usr/bin/pmem-tune usr/sbin/pmem-tuned; do
	ok "$p: PIE" bash -c "readelf -h '$x/$p' | grep -q 'DYN (Position-Independent'"
	ok "$p: relro, bind now" bash -c "readelf -l '$x/$p' | grep -q GNU_RELRO &&
		readelf -d '$x/$p' | grep -q BIND_NOW"
	ok "$p: fortified calls" bash -c "nm -D '$x/$p' | grep -q '_chk@'"
	ok "$p: stack protector" bash -c "nm -D '$x/$p' | grep -q __stack_chk_fail"
	ok "$p: stripped, no .comment" bash -c "! readelf -S '$x/$p' | grep -q '\.comment\|\.debug_info'"
done

# lintian: every tag not overridden fails, whatever its level
lintian -EvIL +pedantic --tag-display-limit 0 --fail-on error,warning,info,pedantic \
	"$cli" "$daemon" "${ddebs[@]}" >"$dir/lintian.txt" 2>&1
rc=$?
grep -E '^[EWIPX]: ' "$dir/lintian.txt" | sed 's/^/# /'
ok "lintian -EvIL +pedantic, .deb and .ddeb: no tag but the overridden ones (lintian.txt)" test $rc = 0
tap_finish package
