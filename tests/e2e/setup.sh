#!/bin/bash
# Prepares what the e2e tests need; idempotent and quick once done.
#  - host tools: qemu-system-x86, busybox-static, ndctl, daxctl, cpio, kmod, jq, e2fsprogs
#    (installed with apt-get when missing; needs root for that)
#  - Debian's cloud kernel, never installed on the host: the package that the
#    metapackage linux-image-cloud-amd64 depends on is fetched with `apt-get download`,
#    unpacked with `dpkg -x` under $PT_E2E_CACHE/kernel/ and indexed with `depmod -b`.
# Writes $PT_E2E_CACHE/kernel.env. Exits 77 with one line saying why when something
# cannot be had, so that ctest reports the tests as skipped.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

# command -> Debian package that provides it
declare -A PKG_OF=(
	[qemu-system-x86_64]=qemu-system-x86
	[ndctl]=ndctl
	[daxctl]=daxctl
	[cpio]=cpio
	[depmod]=kmod
	[modprobe]=kmod
	[jq]=jq
	[mke2fs]=e2fsprogs
	[gzip]=gzip
	[flock]=util-linux
	[timeout]=coreutils
	[ldd]=libc-bin
)

need_root() {
	[[ $(id -u) -eq 0 ]] || pt_skip "$1 (needs root; run tests/e2e/setup.sh as root once)"
}

apt_updated=0
apt_update() {
	((apt_updated)) && return 0
	apt_updated=1
	pt_log "apt-get update"
	# A failing third-party source must not stop us: the Debian mirror is what matters.
	apt-get update -q >"$PT_E2E_CACHE/apt-update.log" 2>&1 ||
		pt_log "apt-get update reported errors (see $PT_E2E_CACHE/apt-update.log); going on"
}

# The busybox the guest runs must be the static one (the initramfs has no libc for it).
busybox_is_static() {
	[[ -x /bin/busybox ]] && dpkg-query -W -f='${Status}' busybox-static 2>/dev/null |
		grep -q 'ok installed'
}

install_host_packages() {
	local missing=() cmd
	for cmd in "${!PKG_OF[@]}"; do
		PATH=$PATH:/usr/sbin:/sbin command -v "$cmd" >/dev/null 2>&1 || missing+=("${PKG_OF[$cmd]}")
	done
	busybox_is_static || missing+=(busybox-static)
	((${#missing[@]})) || return 0
	mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
	need_root "missing host packages: ${missing[*]}"
	pt_log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	local log=$PT_E2E_CACHE/apt.log
	if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
		apt_update
		if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
			tail -n 20 "$log" >&2
			pt_skip "cannot install ${missing[*]} with apt-get"
		fi
	fi
	for cmd in "${!PKG_OF[@]}"; do
		PATH=$PATH:/usr/sbin:/sbin command -v "$cmd" >/dev/null 2>&1 ||
			pt_skip "$cmd still missing after installing ${PKG_OF[$cmd]}"
	done
	busybox_is_static || pt_skip "busybox-static did not install /bin/busybox"
}

# Name of the versioned kernel package (linux-image-<abi>-cloud-amd64).
resolve_kernel_pkg() {
	if [[ -n ${PT_E2E_KERNEL_PKG:-} ]]; then
		printf '%s\n' "$PT_E2E_KERNEL_PKG"
		return 0
	fi
	apt-cache depends linux-image-cloud-amd64 2>/dev/null |
		sed -n 's/^ *Depends: *\(linux-image-[^ ]*-cloud-amd64\) *$/\1/p' | head -n1
}

# Unpacks package $1 into $PT_E2E_CACHE/kernel/$1 unless already done.
fetch_kernel() {
	local pkg=$1 root=$PT_E2E_CACHE/kernel/$1 debs=$PT_E2E_CACHE/debs deb
	[[ -e $root/.pt-e2e-ok ]] && return 0
	mkdir -p "$debs"
	deb=$(find "$debs" -maxdepth 1 -name "${pkg}_*_amd64.deb" | sort -V | tail -n1)
	if [[ -z $deb ]]; then
		pt_log "apt-get download $pkg"
		# apt's sandbox user cannot write here: download as root without the warning
		(cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "$pkg" >&2) ||
			return 1
		deb=$(find "$debs" -maxdepth 1 -name "${pkg}_*_amd64.deb" | sort -V | tail -n1)
		[[ -n $deb ]] || return 1
	fi
	pt_log "dpkg -x ${deb##*/}"
	rm -rf "$root" "$root.tmp"
	mkdir -p "$root.tmp"
	dpkg -x "$deb" "$root.tmp" || { rm -rf "$root.tmp"; return 1; }
	touch "$root.tmp/.pt-e2e-ok"
	mv "$root.tmp" "$root"
}

write_kernel_env() {
	local pkg=$1 root=$PT_E2E_CACHE/kernel/$1 moddir kver vmlinuz
	moddir=$(find "$root/lib/modules" "$root/usr/lib/modules" -mindepth 1 -maxdepth 1 \
		-type d 2>/dev/null | head -n1 || true)
	[[ -n $moddir ]] || pt_skip "$pkg holds no lib/modules/<version>"
	kver=${moddir##*/}
	# depmod -b wants <base>/lib/modules/<version>
	if [[ $moddir == "$root/usr/lib/modules/$kver" && ! -e $root/lib/modules ]]; then
		mkdir -p "$root/lib"
		ln -s ../usr/lib/modules "$root/lib/modules"
	fi
	vmlinuz=$root/boot/vmlinuz-$kver
	[[ -r $vmlinuz ]] || pt_skip "$pkg holds no boot/vmlinuz-$kver"
	if [[ ! -e $root/lib/modules/$kver/.pt-e2e-depmod ]]; then
		PATH=$PATH:/usr/sbin:/sbin depmod -b "$root" "$kver" ||
			pt_skip "depmod -b $root $kver failed"
		touch "$root/lib/modules/$kver/.pt-e2e-depmod"
	fi
	PATH=$PATH:/usr/sbin:/sbin pt_module_files "$root" "$kver" "${PT_E2E_MODULES[@]}" \
		>/dev/null || pt_skip "kernel $kver lacks a module the tests need (${PT_E2E_MODULES[*]})"
	printf 'PT_E2E_KPKG=%q\nPT_E2E_KVER=%q\nPT_E2E_KROOT=%q\nPT_E2E_VMLINUZ=%q\n' \
		"$pkg" "$kver" "$root" "$vmlinuz" >"$PT_E2E_CACHE/kernel.env.tmp"
	mv "$PT_E2E_CACHE/kernel.env.tmp" "$PT_E2E_CACHE/kernel.env"
}

main() {
	mkdir -p "$PT_E2E_CACHE" 2>/dev/null || pt_skip "cannot create cache directory $PT_E2E_CACHE"
	# Several tests may start setup at once: one at a time.
	exec 9>"$PT_E2E_CACHE/.lock"
	flock 9 2>/dev/null || true

	[[ $(uname -m) == x86_64 ]] || pt_skip "host is $(uname -m), the harness needs x86_64"
	command -v apt-get >/dev/null || pt_skip "no apt-get: not a Debian host"
	install_host_packages

	local pkg
	pkg=$(resolve_kernel_pkg)
	if [[ -z $pkg ]]; then
		need_root "apt lists do not know linux-image-cloud-amd64"
		apt_update
		pkg=$(resolve_kernel_pkg)
	fi
	if [[ -n $pkg ]] && ! fetch_kernel "$pkg"; then
		# Stale lists can name a package the mirror no longer has.
		apt_update
		pkg=$(resolve_kernel_pkg)
		if [[ -n $pkg ]] && ! fetch_kernel "$pkg"; then
			pkg=
		fi
	fi
	if [[ -z $pkg ]]; then
		# Offline: a kernel fetched earlier still does.
		local old
		old=$(find "$PT_E2E_CACHE/kernel" -mindepth 2 -maxdepth 2 -name .pt-e2e-ok \
			2>/dev/null | sort -V | tail -n1)
		[[ -n $old ]] || pt_skip "cannot fetch the cloud kernel package (linux-image-cloud-amd64's dependency)"
		pkg=$(basename "$(dirname "$old")")
		pt_log "cannot fetch the current kernel package, using cached $pkg"
	fi
	write_kernel_env "$pkg"
	pt_load_kernel_env || pt_die "kernel.env is not usable"
	pt_log "ready: kernel $PT_E2E_KVER ($PT_E2E_KPKG) in $PT_E2E_KROOT"
}

main "$@"
