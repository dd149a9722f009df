#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fills OUTDIR with the kernel's own drivers/md/dm-writecache.c (and the
# local header it includes) from SOURCE, our patches applied, and the
# out-of-tree Kbuild/Makefile: `make -C OUTDIR KDIR=<headers>` then builds
# dm-writecache.ko.  The kernel's files are never kept in our tree.
#
#   prepare-source.sh [--series DIR] SOURCE OUTDIR
#
# SOURCE: a kernel tree, a linux-source-X.Y .deb (Debian's), or a kernel
# tarball (.tar, .tar.xz, .tar.gz).  --series defaults to patches/X.Y of
# the source's version.  Exits 2 when the series does not apply.
# OUTDIR/KERNEL-VERSION holds the source's X.Y.Z; from a .deb,
# OUTDIR/DEBIAN-VERSION holds the package's version (6.1.192-3), which
# module/Kbuild checks against the headers it builds with.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit "${2:-1}"; }

series=
if [[ ${1:-} == --series ]]; then
	series=$2
	shift 2
fi
(($# == 2)) || die "usage: ${0##*/} [--series DIR] SOURCE OUTDIR"
src=$1 out=$2

# the files we take from the kernel: the driver, its local header, the
# documentation the patch touches and the top Makefile for the version
files=(drivers/md/dm-writecache.c drivers/md/dm-io-tracker.h
	Documentation/admin-guide/device-mapper/writecache.rst Makefile)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree"

debver=
case $src in
*.deb)
	debver=$(dpkg-deb -f "$src" Version) || die "$src: not a .deb"
	# linux-source-X.Y ships one tarball under /usr/src
	member=$(dpkg-deb -c "$src" | awk '{print $NF}' | grep -m1 '^\./usr/src/linux-source-.*\.tar') ||
		die "$src holds no linux-source tarball"
	dpkg-deb --fsys-tarfile "$src" | tar -xO "$member" >"$tmp/src.tar.${member##*.}"
	src=$tmp/src.tar.${member##*.}
	;;
esac
if [[ -d $src ]]; then
	for f in "${files[@]}"; do
		mkdir -p "$(dirname "$tmp/tree/$f")"
		cp "$src/$f" "$tmp/tree/$f"
	done
else
	tar -xf "$src" -C "$tmp/tree" --strip-components=1 --wildcards \
		"${files[@]/#/*/}" || die "$src: cannot extract ${files[*]}"
fi
for f in "${files[@]}"; do
	[[ -e $tmp/tree/$f ]] || die "$src has no $f"
done

ver=$(awk '/^VERSION =/{v=$3} /^PATCHLEVEL =/{p=$3} /^SUBLEVEL =/{s=$3}
	END{print v "." p "." s}' "$tmp/tree/Makefile")
series=${series:-$here/patches/${ver%.*}}
[[ -r $series/series ]] || die "no patch series for $ver ($series/series)" 2
while read -r p; do
	[[ -z $p || $p == \#* ]] && continue
	patch -d "$tmp/tree" -p1 --batch --forward --quiet <"$series/$p" >&2 ||
		die "$p does not apply to $ver" 2
done <"$series/series"

mkdir -p "$out"
cp "$tmp/tree/drivers/md/dm-writecache.c" "$tmp/tree/drivers/md/dm-io-tracker.h" \
	"$here/module/Kbuild" "$here/module/Makefile" "$out/"
printf '%s\n' "$ver" >"$out/KERNEL-VERSION"
rm -f "$out/DEBIAN-VERSION"
[[ -z $debver ]] || printf '%s\n' "$debver" >"$out/DEBIAN-VERSION"
printf '%s\n' "$out"
