#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Packages the patched dm-writecache for DKMS: a source tree for
# /usr/src/pmem-tuned-dm-writecache-VERSION (dkms.conf, the kernel's
# dm-writecache.c with our patches, Kbuild/Makefile) and, where dpkg-deb
# exists, pmem-tuned-dm-writecache-dkms_VERSION_all.deb whose maintainer
# scripts are the ones dh_dkms writes: dkms adds it, builds and installs it
# for the running and the newest kernel with headers, removes it on removal.
# PT_DEB_MAINTAINER sets its Maintainer field.
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
pkg=$name-dkms
doc=$tmp/root/usr/share/doc/$pkg
maint=${PT_DEB_MAINTAINER:-pmem-tuned maintainers <pmem-tuned@example.org>}
# honours SOURCE_DATE_EPOCH, as dpkg-deb does
date=$(date -u -R ${SOURCE_DATE_EPOCH:+-d "@$SOURCE_DATE_EPOCH"})
mkdir -p "$tmp/root/DEBIAN" "$doc" "$tmp/root/usr/share/lintian/overrides"
cat >"$tmp/root/DEBIAN/control" <<CTL
Package: $pkg
Version: $ver
Architecture: all
Section: kernel
Priority: optional
Maintainer: $maint
Depends: dkms (>= 2.1.0.0)
Recommends: pmem-tuned
Description: dm-writecache with its copy threshold as a module parameter (DKMS)
 The kernel's dm-writecache $kver with nt_max_bytes: the largest copy to
 persistent memory done with non-temporal stores.  pmem-tuned sets it
 from the measured policy.  Built by DKMS for kernels $kver's series only;
 needs the headers of each kernel to build for (linux-headers-...).
CTL
# What dh_dkms generates: Debian's common.postinst adds the source and builds
# and installs it for the running and the newest kernel that have headers;
# a kernel outside BUILD_EXCLUSIVE_KERNEL is skipped, a failed build fails
# the configuration.  dkms' own kernel hooks build it for kernels installed later.
cat >"$tmp/root/DEBIAN/postinst" <<PI
#!/bin/sh
set -e
case "\$1" in
configure)
	/usr/lib/dkms/common.postinst $name $ver "" "" "\$2"
	;;
esac
PI
cat >"$tmp/root/DEBIAN/prerm" <<PR
#!/bin/sh
set -e
case "\$1" in
remove|upgrade|deconfigure)
	if [ "\$(dkms status -m $name -v $ver)" ]; then
		dkms remove -m $name -v $ver --all
	fi
	;;
esac
PR
chmod 755 "$tmp/root/DEBIAN/postinst" "$tmp/root/DEBIAN/prerm"
cat >"$doc/copyright" <<CR
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: pmem-tuned-dm-writecache

Files: *
Copyright: 2018 Red Hat (dm-writecache.c), 2021 Red Hat, Inc. (dm-io-tracker.h)
 pmem-tuned authors (the nt_max_bytes patch, dkms.conf, Kbuild, Makefile)
License: GPL-2
 dm-writecache.c and dm-io-tracker.h are Linux $kver's drivers/md files with
 pmem-tuned's kernel/patches applied.
 .
 On Debian systems, the full text of the GNU General Public License
 version 2 can be found in the file /usr/share/common-licenses/GPL-2.
CR
cat >"$tmp/changelog" <<CL
$pkg ($ver) unstable; urgency=medium

  * dm-writecache of Linux $kver with pmem-tuned's kernel/patches, for DKMS.

 -- $maint  $date
CL
gzip -9 -n -c "$tmp/changelog" >"$doc/changelog.gz"
# not an upload to the Debian archive
printf '%s: initial-upload-closes-no-bugs\n' "$pkg" >"$tmp/root/usr/share/lintian/overrides/$pkg"
deb=$out/${pkg}_${ver}_all.deb
dpkg-deb --root-owner-group -Zxz --build "$tmp/root" "$deb" >/dev/null
printf '%s\n' "$deb"
