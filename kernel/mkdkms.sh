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
#   mkdkms.sh --kernel RELEASE [--kernel RELEASE]... SOURCE OUTDIR [PMEM-TUNED-VERSION]
#
# SOURCE as for prepare-source.sh (Debian's linux-source-X.Y .deb, a tarball
# or a tree): the source of the kernels named.  RELEASE: a kernel release
# (uname -r) built from that source, one per flavour (6.1.0-57-amd64,
# 6.1.0-57-cloud-amd64); dkms builds the module for those releases and no
# other (BUILD_EXCLUSIVE_KERNEL), since a frozen dm-writecache.c in updates/
# would take the place of a later kernel's own and of its fixes.  VERSION is
# PMEM-TUNED-VERSION+k and the source's version: its Debian package's with
# "-" as "." (0.1.0+k6.1.192.3), or X.Y.Z from a tarball or a tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 1; }
usage="usage: ${0##*/} --kernel RELEASE [--kernel RELEASE]... SOURCE OUTDIR [PMEM-TUNED-VERSION]"
releases=()
while [[ ${1:-} == --kernel ]]; do
	(($# >= 2)) || die "$usage"
	[[ $2 =~ ^[0-9]+\.[0-9]+\.[0-9]+[-+._A-Za-z0-9]*$ ]] ||
		die "--kernel '$2': not a kernel release (uname -r: 6.1.0-57-cloud-amd64)"
	releases+=("$2")
	shift 2
done
((${#releases[@]})) || die "name the kernel release(s) SOURCE is for with --kernel; $usage"
(($# >= 2 && $# <= 3)) || die "$usage"
src=$1 out=$2 ptver=${3:-0.1.0}
name=pmem-tuned-dm-writecache

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/prepare-source.sh" "$src" "$tmp/src" >/dev/null
kver=$(cat "$tmp/src/KERNEL-VERSION")
for r in "${releases[@]}"; do
	[[ $r == "${kver%.*}".* ]] || die "--kernel $r is not a ${kver%.*} kernel, and SOURCE is $kver"
done
# the source's own version: its package's, where there is one, so that any other
# kernel source makes another package version and installing it upgrades
ver=$ptver+k$kver srcname="Linux $kver"
if [[ -r $tmp/src/DEBIAN-VERSION ]]; then
	debver=$(cat "$tmp/src/DEBIAN-VERSION")
	[[ $debver =~ ^[0-9][-0-9A-Za-z.+~]*$ ]] || die "linux-source's version '$debver' is not X.Y.Z-N"
	ver=$ptver+k${debver//-/.} srcname="Debian's linux-source-${kver%.*} $debver"
fi
tree=$tmp/root/usr/src/$name-$ver
mkdir -p "$tree"
cp "$tmp/src/"* "$tree/"
# BUILD_EXCLUSIVE_KERNEL, an extended regex: these releases, whole; the
# characters of a release that are special in one are . and +
kre=$(printf '%s\n' "${releases[@]}" | sed 's/[.+]/\\&/g' | paste -sd '|')
conf=$(<"$here/dkms/dkms.conf.in")
conf=${conf//@VERSION@/"$ver"}
conf=${conf//@SOURCE@/"$srcname"}
conf=${conf//@KRELEASES@/"^($kre)\$"}
printf '%s\n' "$conf" >"$tree/dkms.conf"
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
 from the measured policy.
 .
 Made from $srcname, built by DKMS
 for these kernels only (other kernels keep their own dm-writecache):
$(printf '  %s\n' "${releases[@]}")
 .
 Needs the headers of each kernel to build for (linux-headers-...).
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

  * dm-writecache of Linux $kver with pmem-tuned's kernel/patches, for DKMS,
    for ${releases[*]} only.

 -- $maint  $date
CL
gzip -9 -n -c "$tmp/changelog" >"$doc/changelog.gz"
# not an upload to the Debian archive
printf '%s: initial-upload-closes-no-bugs\n' "$pkg" >"$tmp/root/usr/share/lintian/overrides/$pkg"
deb=$out/${pkg}_${ver}_all.deb
dpkg-deb --root-owner-group -Zxz --build "$tmp/root" "$deb" >/dev/null
printf '%s\n' "$deb"
