#!/bin/bash
# Builds the patched dm-writecache.ko (kernel/ in this source) for the guest kernel
# that tests/e2e/setup.sh fetched, and pt_wc_copy.ko, which runs that driver's copy
# routine (memcpy_flushcache_optimized() and nt_max_bytes, cut out of the patched
# dm-writecache.c) on every size and alignment at load time; prints the two paths, one
# a line, in that order.  The kernel's own drivers/md/dm-writecache.c comes from
# Debian's linux-source-<major.minor> at the kernel package's very version
# (`apt-get download`, ~140 MB, kept in $PT_E2E_CACHE/debs; only the few files needed
# are extracted); the headers are the ones kmod/build.sh fetches.  Built once per
# content of the series, the build files and pt_wc_copy.c, in a directory named by it
# (worktrees with different series share the cache without rebuilding each other's).
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

# what the modules are made of: the series, the preparing script, the Kbuild files,
# the copy test
sum=$( (cd "$top/kernel" && find patches module prepare-source.sh -type f | LC_ALL=C sort |
	xargs cat; cat "$here/pt_wc_copy.c"; echo "$ver") |
	sha256sum | cut -c1-16)
bdir=$PT_E2E_CACHE/dm-writecache/$PT_E2E_KVER.$sum
ko=$bdir/dm-writecache.ko
cdir=$bdir/copy-test
cko=$cdir/pt_wc_copy.ko
if [[ ! -e $bdir/.ok ]]; then
	rm -rf "$bdir"
	pt_log "preparing dm-writecache.c from ${src##*/} with kernel/patches"
	"$top/kernel/prepare-source.sh" "$src" "$bdir" >/dev/null ||
		pt_die "kernel/prepare-source.sh failed for ${src##*/}"
	pt_log "building dm-writecache.ko against $kdir"
	if ! make -s -C "$bdir" KDIR="$kdir" >"$bdir/build.log" 2>&1; then
		cat "$bdir/build.log" >&2
		pt_die "dm-writecache.ko did not build"
	fi
	# the copy routine and its parameter, as the patched driver has them:
	# from the parameter's definition to the end of the function
	mkdir -p "$cdir"
	awk '/^static unsigned long long nt_max_bytes[ =;]/ { on = 1 }
		on { print }
		on && /^}/ { exit }' "$bdir/dm-writecache.c" >"$cdir/wc_copy.h"
	grep -q '^static void memcpy_flushcache_optimized(' "$cdir/wc_copy.h" ||
		pt_die "no nt_max_bytes followed by memcpy_flushcache_optimized() in the patched dm-writecache.c"
	cp "$here/pt_wc_copy.c" "$cdir/"
	echo 'obj-m := pt_wc_copy.o' >"$cdir/Kbuild"
	pt_log "building pt_wc_copy.ko against $kdir"
	if ! make -s -C "$kdir" M="$cdir" modules >"$cdir/build.log" 2>&1; then
		cat "$cdir/build.log" >&2
		pt_die "pt_wc_copy.ko did not build"
	fi
	touch "$bdir/.ok"
fi
# builds for other contents, untouched for a week
find "$PT_E2E_CACHE/dm-writecache" -mindepth 1 -maxdepth 1 -name "$PT_E2E_KVER.*" \
	! -name "${bdir##*/}" -mtime +7 -exec rm -rf {} + 2>/dev/null || true
touch "$bdir"
for m in "$ko" "$cko"; do
	vermagic=$(PATH=$PATH:/sbin modinfo -F vermagic "$m")
	[[ $vermagic == "$PT_E2E_KVER "* ]] ||
		pt_die "${m##*/} has vermagic '$vermagic', not $PT_E2E_KVER"
done
printf '%s\n' "$ko" "$cko"
