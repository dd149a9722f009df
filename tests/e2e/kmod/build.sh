#!/bin/bash
# Builds pt_testmod.ko for the guest kernel (the one tests/e2e/setup.sh fetched) and
# prints its path.  Debian's headers for that kernel are never installed on the host:
# linux-headers-<kver> and what it depends on from the same source (the -common
# headers and linux-kbuild-<major.minor>) are `apt-get download`ed at the kernel
# package's version and `dpkg -x`ed into $PT_E2E_CACHE/headers/<kver>/; the module is
# built with `make -C <headers>/usr/src/linux-headers-<kver> M=<copy of this dir>`.
# Needs tests/e2e/setup.sh to have run (cache/kernel.env).  Exit 77 with one line
# saying why when the headers or the compiler cannot be had.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

pt_load_kernel_env || pt_skip "no guest kernel prepared (run tests/e2e/setup.sh)"
command -v apt-get >/dev/null || pt_skip "no apt-get: not a Debian host"

debs=$PT_E2E_CACHE/debs
mkdir -p "$debs"
exec 8>"$PT_E2E_CACHE/.kmod.lock"
flock 8
# by its physical path: the headers' Makefile names it, and the cache may be reached
# through a symlink (a worktree's) that outlives nothing
hroot=$(cd "$PT_E2E_CACHE" && pwd -P)/headers/$PT_E2E_KVER

# The kernel package's version: the headers must be the very same build.
kernel_version() {
	local deb
	deb=$(find "$debs" -maxdepth 1 -name "${PT_E2E_KPKG}_*_amd64.deb" | sort -V | tail -n1)
	if [[ -n $deb ]]; then
		dpkg-deb -f "$deb" Version
	else
		{ apt-cache show "$PT_E2E_KPKG" 2>/dev/null || true; } |
			sed -n 's/^Version: //p' | head -n1
	fi
}

# download PKG VERSION: into $debs unless there; prints the .deb's path
download() {
	local pkg=$1 ver=$2 deb
	deb=$(find "$debs" -maxdepth 1 -name "${pkg}_${ver//:/%3a}_*.deb" | head -n1)
	if [[ -z $deb ]]; then
		pt_log "apt-get download $pkg=$ver"
		(cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "$pkg=$ver" >&2) ||
			return 1
		deb=$(find "$debs" -maxdepth 1 -name "${pkg}_${ver//:/%3a}_*.deb" | head -n1)
	fi
	[[ -n $deb ]] && printf '%s\n' "$deb"
}

# The arch Makefile includes the -common one by absolute path: this cache's.
point_makefile() {
	local mk=$1/usr/src/linux-headers-$PT_E2E_KVER/Makefile
	grep -q "^include $hroot/usr/src/" "$mk" && return 0
	sed -i "s|^include .*/usr/src/\(linux-headers-[^/]*-common/Makefile\)\$|include $hroot/usr/src/\1|" "$mk"
}

fetch_headers() {
	local ver deb dep name all=() d
	if [[ -e $hroot/.pt-e2e-ok ]]; then
		# made through a path that may be gone
		point_makefile "$hroot"
		return 0
	fi
	ver=$(kernel_version)
	[[ -n $ver ]] || pt_skip "cannot tell the version of $PT_E2E_KPKG"
	if ! deb=$(download "linux-headers-$PT_E2E_KVER" "$ver"); then
		if [[ $(id -u) -eq 0 ]]; then apt-get update -q >/dev/null 2>&1 || true; fi
		deb=$(download "linux-headers-$PT_E2E_KVER" "$ver") ||
			pt_skip "cannot download linux-headers-$PT_E2E_KVER=$ver"
	fi
	all=("$deb")
	# linux-headers-<abi>-common and linux-kbuild-<x.y>, at the same version
	while IFS= read -r dep; do
		name=${dep%% *}
		case $name in
		linux-headers-*-common | linux-kbuild-*)
			d=$(download "$name" "$ver") || pt_skip "cannot download $name=$ver"
			all+=("$d")
			;;
		esac
	done < <(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/^ *//')
	((${#all[@]} >= 3)) || pt_skip "linux-headers-$PT_E2E_KVER depends on no -common/kbuild package"
	rm -rf "$hroot" "$hroot.tmp"
	mkdir -p "$hroot.tmp"
	for d in "${all[@]}"; do
		pt_log "dpkg -x ${d##*/}"
		dpkg -x "$d" "$hroot.tmp"
	done
	point_makefile "$hroot.tmp"
	touch "$hroot.tmp/.pt-e2e-ok"
	mv "$hroot.tmp" "$hroot"
}

need_tools() {
	local cc missing=()
	cc=$(sed -n 's/^CC = .*)\(gcc-[0-9]*\)$/\1/p' \
		"$hroot/usr/src/linux-headers-$PT_E2E_KVER/.kernelvariables" 2>/dev/null || true)
	cc=${cc:-gcc}
	command -v "$cc" >/dev/null || missing+=("$cc")
	command -v make >/dev/null || missing+=(make)
	[[ -e /usr/include/stdio.h ]] || missing+=(libc6-dev)
	((${#missing[@]})) || return 0
	[[ $(id -u) -eq 0 ]] || pt_skip "missing ${missing[*]} (needs root to install)"
	pt_log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >"$PT_E2E_CACHE/apt-kmod.log" 2>&1 ||
		pt_skip "cannot install ${missing[*]}"
}

fetch_headers
need_tools

kdir=$hroot/usr/src/linux-headers-$PT_E2E_KVER
src_sum=$(cat "$here/pt_testmod.c" "$here/Kbuild" | sha256sum | cut -c1-16)
bdir=$PT_E2E_CACHE/kmod/$PT_E2E_KVER
ko=$bdir/pt_testmod.ko
if [[ ! -e $bdir/.sum || $(cat "$bdir/.sum") != "$src_sum" || ! -e $ko ]]; then
	rm -rf "$bdir"
	mkdir -p "$bdir"
	cp "$here/pt_testmod.c" "$here/Kbuild" "$bdir/"
	pt_log "building pt_testmod.ko against $kdir"
	# kbuild's external-module build reads Kbuild: no Makefile of our own
	if ! make -s -C "$kdir" M="$bdir" modules >"$bdir/build.log" 2>&1; then
		cat "$bdir/build.log" >&2
		pt_die "pt_testmod.ko did not build"
	fi
	echo "$src_sum" >"$bdir/.sum"
fi
vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null || /sbin/modinfo -F vermagic "$ko")
[[ $vermagic == "$PT_E2E_KVER "* ]] ||
	pt_die "pt_testmod.ko has vermagic '$vermagic', not $PT_E2E_KVER"
printf '%s\n' "$ko"
