#!/bin/bash
# Builds the patched dm-writecache.ko (kernel/ in this source) for the guest kernel
# that tests/e2e/setup.sh fetched, and prints its path.  The kernel's own
# drivers/md/dm-writecache.c comes from Debian's linux-source-<major.minor> at the
# kernel package's very version (`apt-get download`, ~140 MB, kept in
# $PT_E2E_CACHE/debs; only the few files needed are extracted); the headers are
# the ones kmod/build.sh fetches.  Rebuilt when the series or the build files change.
# Exit 77 with one line saying why when something cannot be had.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

pt_load_kernel_env || pt_skip "no guest kernel prepared (run tests/e2e/setup.sh)"
# the headers (and pt_testmod.ko, which costs nothing more)
"$here/build.sh" >/dev/null
kdir=$PT_E2E_CACHE/headers/$PT_E2E_KVER/usr/src/linux-headers-$PT_E2E_KVER
debs=$PT_E2E_CACHE/debs
exec 8>"$PT_E2E_CACHE/.kmod.lock"
flock 8

kdeb=$(find "$debs" -maxdepth 1 -name "${PT_E2E_KPKG}_*_amd64.deb" | sort -V | tail -n1)
[[ -n $kdeb ]] || pt_skip "no $PT_E2E_KPKG .deb in $debs"
ver=$(dpkg-deb -f "$kdeb" Version)
mm=$(echo "$PT_E2E_KVER" | cut -d. -f1-2)
src=$(find "$debs" -maxdepth 1 -name "linux-source-${mm}_${ver//:/%3a}_all.deb" | head -n1)
if [[ -z $src ]]; then
	pt_log "apt-get download linux-source-$mm=$ver"
	(cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "linux-source-$mm=$ver" >&2) ||
		pt_skip "cannot download linux-source-$mm=$ver"
	src=$(find "$debs" -maxdepth 1 -name "linux-source-${mm}_${ver//:/%3a}_all.deb" | head -n1)
	[[ -n $src ]] || pt_skip "linux-source-$mm=$ver: no .deb after download"
fi

# what the module is made of: the series, the preparing script, the Kbuild files
sum=$( (cd "$top/kernel" && find patches module prepare-source.sh -type f | LC_ALL=C sort |
	xargs cat; echo "$ver") |
	sha256sum | cut -c1-16)
bdir=$PT_E2E_CACHE/dm-writecache/$PT_E2E_KVER
ko=$bdir/dm-writecache.ko
if [[ ! -e $bdir/.sum || $(cat "$bdir/.sum") != "$sum" || ! -e $ko ]]; then
	rm -rf "$bdir"
	pt_log "preparing dm-writecache.c from ${src##*/} with kernel/patches"
	"$top/kernel/prepare-source.sh" "$src" "$bdir" >/dev/null ||
		pt_die "kernel/prepare-source.sh failed for ${src##*/}"
	pt_log "building dm-writecache.ko against $kdir"
	if ! make -s -C "$bdir" KDIR="$kdir" >"$bdir/build.log" 2>&1; then
		cat "$bdir/build.log" >&2
		pt_die "dm-writecache.ko did not build"
	fi
	echo "$sum" >"$bdir/.sum"
fi
vermagic=$(PATH=$PATH:/sbin modinfo -F vermagic "$ko")
[[ $vermagic == "$PT_E2E_KVER "* ]] ||
	pt_die "dm-writecache.ko has vermagic '$vermagic', not $PT_E2E_KVER"
printf '%s\n' "$ko"
