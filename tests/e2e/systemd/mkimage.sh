#!/bin/bash
# Builds (once; cached) the root image of the systemd guest and prints its path:
# `debootstrap --variant=minbase` bookworm with systemd, systemd-sysv, udev, dbus,
# kmod, ndctl, daxctl, e2fsprogs (and jq for the test's checks), the guest kernel's
# modules (from tests/e2e/setup.sh's cache), the test entry (image/), then an ext4
# image made with `mke2fs -d`.  The guest boots it as an NVMe namespace with
# root=/dev/nvme0n1 and no initramfs (the cloud kernel has NVMe and ext4 built in).
#
# Cached as $PT_E2E_CACHE/systemd/root-<key>.img, the key a hash of this script,
# image/ and the kernel version; debootstrap's downloads are kept in
# $PT_E2E_CACHE/debootstrap (a rebuild fetches nothing).  Needs root (debootstrap);
# installs debootstrap when missing.  Exit 77 with one line saying why when the
# image cannot be built (no root, no debootstrap, no mirror).
#
# Environment: PT_E2E_MIRROR (default: the host's Debian source, else
# http://deb.debian.org/debian), PT_E2E_SUITE (default bookworm).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

SUITE=${PT_E2E_SUITE:-bookworm}
# jq for the checks; procps (/bin/kill, pmem-tuned.service's ExecReload) is a Depends of the package
PACKAGES=systemd,systemd-sysv,udev,dbus,kmod,ndctl,daxctl,e2fsprogs,jq,procps
IMG_SIZE=1G

pt_load_kernel_env || pt_skip "no guest kernel prepared (run tests/e2e/setup.sh)"

dir=$PT_E2E_CACHE/systemd
mkdir -p "$dir"
key=$( { cat "$0" "$here"/image/*; echo "$SUITE $PACKAGES $PT_E2E_KVER"; } |
	sha256sum | cut -c1-12)
img=$dir/root-$key.img
if [[ -e $img ]]; then
	printf '%s\n' "$img"
	exit 0
fi

exec 9>"$dir/.lock"
flock 9
if [[ -e $img ]]; then	# built by another test meanwhile
	printf '%s\n' "$img"
	exit 0
fi

[[ $(id -u) -eq 0 ]] || pt_skip "building the guest image needs root (debootstrap)"
export PATH=$PATH:/usr/sbin:/sbin
if ! command -v debootstrap >/dev/null; then
	pt_log "installing debootstrap"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y -q --no-install-recommends debootstrap \
		>"$dir/apt.log" 2>&1; then
		apt-get update -q >>"$dir/apt.log" 2>&1 || true
		apt-get install -y -q --no-install-recommends debootstrap >>"$dir/apt.log" 2>&1 ||
			pt_skip "cannot install debootstrap with apt-get"
	fi
fi
command -v mke2fs >/dev/null || pt_skip "mke2fs missing (e2fsprogs)"
command -v depmod >/dev/null || pt_skip "depmod missing (kmod)"

# The host's Debian mirror (a CI's local mirror or proxy is what works there).
mirror() {
	if [[ -n ${PT_E2E_MIRROR:-} ]]; then
		printf '%s\n' "$PT_E2E_MIRROR"
		return
	fi
	local uri
	uri=$( { cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ { u = $2 } /^Suites:/ && u != "" && u !~ /security/ &&
			$0 ~ /(^| )'"$SUITE"'( |$)/ { print u; exit }'
		grep -h '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$3 == "'"$SUITE"'" && $2 !~ /security/ { print $2; exit }'; } | head -n1)
	printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

root=$dir/rootfs.tmp
# debootstrap mounts proc and sys inside the target: never delete through them.
umount_below() {
	local m
	while read -r m; do
		umount -l "$m" 2>/dev/null || true
	done < <(awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts |
		sort -r)
}
remove_root() {
	[[ -e $root ]] || return 0
	umount_below "$root"
	if awk -v r="$root" 'index($2, r) == 1 { f = 1 } END { exit !f }' /proc/mounts; then
		pt_die "$root still has mounts below it; not removing it"
	fi
	rm -rf "$root"
}
# shellcheck disable=SC2317  # called through trap
cleanup() { remove_root; rm -f "$img.tmp"; }
trap cleanup EXIT

start=$SECONDS
remove_root
mkdir -p "$root" "$PT_E2E_CACHE/debootstrap"
url=$(mirror)
pt_log "debootstrap --variant=minbase $SUITE from $url (include: $PACKAGES)"
# Two stages, so that the second (dpkg configuring everything) runs with
# force-unsafe-io: no fsync for a throw-away tree (the image is made afterwards).
if ! debootstrap --foreign --variant=minbase --include="$PACKAGES" \
	--cache-dir="$PT_E2E_CACHE/debootstrap" "$SUITE" "$root" "$url" \
	>"$dir/debootstrap.log" 2>&1; then
	tail -n 15 "$dir/debootstrap.log" >&2
	if grep -qiE 'Failed getting release file|Couldn.t download|Temporary failure|Could not resolve|unable to fetch' \
		"$dir/debootstrap.log"; then
		pt_skip "debootstrap cannot reach the mirror $url"
	fi
	pt_die "debootstrap failed (see $dir/debootstrap.log)"
fi
pt_log "debootstrap first stage done in $((SECONDS - start)) s"
unsafe=$root/etc/dpkg/dpkg.cfg.d/pt-e2e-unsafe-io
echo force-unsafe-io >"$unsafe"
if ! chroot "$root" /debootstrap/debootstrap --second-stage >>"$dir/debootstrap.log" 2>&1; then
	umount_below "$root"
	tail -n 15 "$dir/debootstrap.log" >&2
	pt_die "debootstrap --second-stage failed (see $dir/debootstrap.log)"
fi
umount_below "$root"
rm -f "$unsafe"
pt_log "debootstrap done in $((SECONDS - start)) s"

# --- configure the image -------------------------------------------------------
echo pt-e2e >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tpt-e2e\n' >"$root/etc/hosts"
# the kernel mounts it rw (root=/dev/nvme0n1 rw); no fsck of a throw-away snapshot
printf '/dev/nvme0n1\t/\text4\trw,errors=remount-ro\t0\t0\n' >"$root/etc/fstab"
# a fixed machine id: no first-boot logic
systemd-machine-id-setup --root="$root" >/dev/null 2>&1 ||
	od -An -N16 -tx1 /dev/urandom | tr -d " \n" >"$root/etc/machine-id"
mkdir -p "$root/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' >"$root/etc/systemd/journald.conf.d/pt-e2e.conf"
# nothing but the test on the consoles; no timers firing during it; ndctl-monitor
# (enabled by the ndctl package) exits 250 on this emulated DIMM and is not ours
for u in serial-getty@ttyS0.service serial-getty@ttyS1.service getty@tty1.service \
	apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
	e2scrub_reap.service fstrim.timer systemd-tmpfiles-clean.timer \
	ndctl-monitor.service; do
	ln -sfn /dev/null "$root/etc/systemd/system/$u"
done
install -D -m 0644 "$here/image/pt-e2e.service" "$root/etc/systemd/system/pt-e2e.service"
install -D -m 0755 "$here/image/pt-e2e-entry" "$root/usr/local/sbin/pt-e2e-entry"

# The guest kernel's modules (udev loads nfit, nd_pmem, dax_pmem, ... itself).
moddir=$root/usr/lib/modules
[[ -d $root/usr/lib ]] || moddir=$root/lib/modules
mkdir -p "$moddir"
cp -a "$PT_E2E_KROOT/lib/modules/$PT_E2E_KVER" "$moddir/"
rm -f "$moddir/$PT_E2E_KVER/.pt-e2e-depmod" "$moddir/$PT_E2E_KVER/build" \
	"$moddir/$PT_E2E_KVER/source"
depmod -b "$root" "$PT_E2E_KVER"

rm -f "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*_Packages
# --- the ext4 image --------------------------------------------------------------
pt_log "mke2fs -d ($(du -sh "$root" | cut -f1))"
rm -f "$img.tmp"
mke2fs -q -F -t ext4 -L pt-e2e-root -d "$root" "$img.tmp" "$IMG_SIZE" >/dev/null ||
	pt_die "mke2fs -d failed"
mv "$img.tmp" "$img"
# older images (another key) are of no use any more
find "$dir" -maxdepth 1 -name 'root-*.img' ! -name "${img##*/}" -delete
pt_log "image $img built in $((SECONDS - start)) s"
printf '%s\n' "$img"
