#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Packages the patched dm-writecache for DKMS: a source tree for
# /usr/src/pmem-tuned-dm-writecache-VERSION (dkms.conf, the kernel's
# dm-writecache.c with our patches, Kbuild/Makefile) and, where dpkg-deb
# exists, pmem-tuned-dm-writecache-dkms_VERSION_all.deb that adds, builds
# and installs it with dkms for the installed kernels it fits.
#
#   mkdkms.sh SOURCE OUTDIR [PMEM-TUNED-VERSION]
#
# SOURCE as for prepare-source.sh (Debian's linux-source-X.Y .deb, a tarball
# or a tree).  VERSION is PMEM-TUNED-VERSION+kX.Y.Z (the kernel source's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 1; }
(($# >= 2)) || die "usage: ${0##*/} SOURCE OUTDIR [PMEM-TUNED-VERSION]"
src=$1 out=$2 ptver=${3:-0.1.0}
name=pmem-tuned-dm-writecache

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/prepare-source.sh" "$src" "$tmp/src" >/dev/null
kver=$(cat "$tmp/src/KERNEL-VERSION")
ver=$ptver+k$kver
tree=$tmp/root/usr/src/$name-$ver
mkdir -p "$tree"
cp "$tmp/src/"* "$tree/"
# BUILD_EXCLUSIVE_KERNEL is a regex: "6.1" becomes "6\\.1" for sed, 6\.1 in the file
kre=$(printf '%s' "${kver%.*}" | sed 's/\./\\\\./g')
sed -e "s/@VERSION@/$ver/" -e "s/@KSERIES@/$kre/" "$here/dkms/dkms.conf.in" >"$tree/dkms.conf"
mkdir -p "$out"
cp -r "$tree" "$out/"

command -v dpkg-deb >/dev/null || { printf '%s\n' "$out/$name-$ver"; exit 0; }
mkdir -p "$tmp/root/DEBIAN" "$tmp/root/usr/share/doc/$name-dkms"
cat >"$tmp/root/DEBIAN/control" <<CTL
Package: $name-dkms
Version: $ver
Architecture: all
Section: kernel
Priority: optional
Maintainer: pmem-tuned <dev@pmem-tuned>
Depends: dkms
Recommends: pmem-tuned
Description: dm-writecache with its copy threshold as a module parameter (DKMS)
 The kernel's dm-writecache $kver with nt_max_bytes: the largest copy to
 persistent memory done with non-temporal stores.  pmem-tuned sets it
 from the measured policy.  Built by DKMS for kernels $kver's series only.
CTL
cat >"$tmp/root/DEBIAN/postinst" <<PI
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
	dkms add -m $name -v $ver >/dev/null 2>&1 || true
	for k in /lib/modules/*/build; do
		k=\${k%/build}; k=\${k##*/}
		dkms install -m $name -v $ver -k "\$k" || true
	done
fi
PI
cat >"$tmp/root/DEBIAN/prerm" <<PR
#!/bin/sh
set -e
dkms remove -m $name -v $ver --all >/dev/null 2>&1 || true
PR
chmod 755 "$tmp/root/DEBIAN/postinst" "$tmp/root/DEBIAN/prerm"
printf 'dm-writecache.c and dm-io-tracker.h: Linux %s, GPL-2.0.\n' "$kver" \
	>"$tmp/root/usr/share/doc/$name-dkms/copyright"
deb=$out/${name}-dkms_${ver}_all.deb
dpkg-deb --root-owner-group -Zxz --build "$tmp/root" "$deb" >/dev/null
printf '%s\n' "$deb"
