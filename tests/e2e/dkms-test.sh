#!/bin/bash
# The DKMS package of the patched dm-writecache (kernel/mkdkms.sh), proven for the
# guest kernel without touching the host's /var/lib/dkms, /usr/src or /lib/modules:
#  1. the .deb from the cached linux-source (rebuilt when kernel/ changes): its
#     control, maintainer scripts and /usr/src/<name>-<version>/ tree (dpkg-deb -I/-c),
#     and lintian's verdict where lintian is installed (errors fail);
#  2. dkms add/build/install/remove with --dkmstree/--sourcetree/--installtree and
#     --kernelsourcedir (the cached guest headers), signing with a throw-away key:
#     the module has parm nt_max_bytes and the guest's vermagic, and depmod/modprobe
#     of the guest's module tree pick it over the stock one.  The package is pinned
#     to the guest's release (mkdkms.sh --kernel): dkms refuses (77, BUILD_EXCLUSIVE)
#     to build it for the next ABI, another flavour and the bare upstream version,
#     and the build fails for headers of the same release from another Debian build;
#  3. as root, the package's own postinst and prerm, run in a private mount namespace
#     whose /usr/src, /var/lib/dkms, /etc/dkms and /lib/modules are scratch copies,
#     with a later kernel (the next ABI, the same headers) installed next to the
#     guest's: postinst builds and installs it for the guest kernel only, the later
#     one keeps the stock module, prerm removes it;
#  4. with --guest, guest/dm_writecache.sh (dm-writecache-test.sh) with the module
#     DKMS built, so the packaged module is the one the guest loads and traces.
# usage: dkms-test.sh [--guest PMEM-TUNED MKPOLICY KNOB-MAP [RUN-GUEST-OPTIONS...]]
# Exit 77 (skipped, with the reason) when the host cannot do it.
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$dir/../.." && pwd)
# shellcheck source-path=SCRIPTDIR
. "$dir/lib.sh"
guest=()
if [[ ${1:-} == --guest ]]; then
	(($# >= 4)) || pt_die "usage: ${0##*/} [--guest PMEM-TUNED MKPOLICY KNOB-MAP [RUN-GUEST-OPTIONS...]]"
	shift
	guest=("$@")
fi
export PATH=$PATH:/usr/sbin:/sbin
name=pmem-tuned-dm-writecache

fail() { printf 'FAILED: %s\n' "$*"; exit 1; }
ok() { printf 'ok: %s\n' "$*"; }

rc=0
"$dir/setup.sh" || rc=$?
case $rc in
0) ;;
77) exit 77 ;;
*) echo "e2e setup failed (rc $rc)"; exit "$rc" ;;
esac
if ! command -v dkms >/dev/null && [[ $(id -u) -eq 0 ]]; then
	# only dkms itself: gcc, make and kmod are here already
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends dkms \
		>"$PT_E2E_CACHE/apt-dkms.log" 2>&1 || true
fi
command -v dkms >/dev/null || pt_skip "dkms missing on the host (scripts/deps.sh test)"
# the headers and the linux-source .deb (and the module built without DKMS)
"$dir/kmod/dm-writecache.sh" >/dev/null || exit $?
pt_load_kernel_env
K=$PT_E2E_KVER
hroot=$PT_E2E_CACHE/headers/$K
kdir=$hroot/usr/src/linux-headers-$K
debs=$PT_E2E_CACHE/debs
kdeb=$(find "$debs" -maxdepth 1 -name "${PT_E2E_KPKG}_*_amd64.deb" | sort -V | tail -n1)
kpver=$(dpkg-deb -f "$kdeb" Version)
src=$(find "$debs" -maxdepth 1 -name "linux-source-$(echo "$K" | cut -d. -f1-2)_${kpver//:/%3a}_all.deb" |
	head -n1)
[[ -n $src ]] || pt_die "no linux-source .deb in $debs"

# 1. the package: extracting the sources from linux-source costs ~1.5 min, so the
# .deb is kept until what it is made of changes
sum=$( (cd "$top/kernel" && find mkdkms.sh prepare-source.sh dkms module patches -type f |
	LC_ALL=C sort | xargs cat; echo "$kpver") |
	sha256sum | cut -c1-16)
# in a directory named by it: worktrees with other kernel/ trees share the cache
pdir=$PT_E2E_CACHE/dkms-debs/$sum
if [[ ! -e $pdir/.ok ]]; then
	rm -rf "$pdir"
	pt_log "kernel/mkdkms.sh ${src##*/}"
	"$top/kernel/mkdkms.sh" --kernel "$K" "$src" "$pdir" >/dev/null || fail "kernel/mkdkms.sh"
	touch "$pdir/.ok"
fi
touch "$pdir"
find "$PT_E2E_CACHE/dkms-debs" -mindepth 1 -maxdepth 1 ! -name "$sum" -mtime +7 \
	-exec rm -rf {} + 2>/dev/null || true
deb=$(find "$pdir" -maxdepth 1 -name "${name}-dkms_*_all.deb")
[[ -n $deb ]] || fail "mkdkms.sh made no .deb"
ver=$(dpkg-deb -f "$deb" Version)
echo "== ${deb##*/}"
dpkg-deb -I "$deb"
contents=$(dpkg-deb -c "$deb")
printf '%s\n' "$contents"
[[ $(dpkg-deb -f "$deb" Depends) == dkms* ]] || fail "Depends: is not dkms"
for f in dkms.conf dm-writecache.c dm-io-tracker.h Kbuild Makefile; do
	grep -q " \./usr/src/$name-$ver/$f\$" <<<"$contents" ||
		fail "no /usr/src/$name-$ver/$f in the .deb"
done
# this run's scratch trees, its own: another test run may be at work next to it
mkdir -p "$PT_E2E_CACHE/dkms-runs"
find "$PT_E2E_CACHE/dkms-runs" -mindepth 1 -maxdepth 1 -mtime +1 -exec rm -rf {} + 2>/dev/null || true
run=$(mktemp -d "$PT_E2E_CACHE/dkms-runs/XXXXXX")
# by its physical path: dkms status compares its kernel-<release> symlink, resolved,
# with the tree's path as given, and the cache may be a symlink (a worktree's)
run=$(cd "$run" && pwd -P)
trap 'rm -rf "$run"' EXIT
dpkg-deb -x "$deb" "$run/pkg"
dpkg-deb -e "$deb" "$run/ctl"
for s in postinst prerm; do
	[[ -x $run/ctl/$s ]] || fail "no executable $s"
	sh -n "$run/ctl/$s" || fail "$s: syntax"
done
conf=$run/pkg/usr/src/$name-$ver/dkms.conf
grep -qx "PACKAGE_VERSION=\"$ver\"" "$conf" || fail "dkms.conf: PACKAGE_VERSION is not $ver"
# pinned: the guest's release and nothing else
pin="BUILD_EXCLUSIVE_KERNEL='^(${K//./\\.})\$'"
grep -qxF "$pin" "$conf" || fail "dkms.conf has no $pin: $(grep "^BUILD_EXCLUSIVE" "$conf")"
[[ $(cat "$run/pkg/usr/src/$name-$ver/DEBIAN-VERSION") == "$kpver" ]] ||
	fail "the source tree does not record linux-source's version $kpver"
ok "the .deb holds /usr/src/$name-$ver/ with dkms.conf, postinst and prerm"
if command -v lintian >/dev/null; then
	echo "== lintian ${deb##*/}"
	tags=$(lintian --allow-root "$deb" 2>&1) || true
	printf '%s\n' "${tags:-(no tags)}"
	grep -q '^E: ' <<<"$tags" && fail "lintian reports errors"
	ok "lintian: no errors"
else
	pt_log "lintian not installed: not run"
fi

# 2. dkms with trees of its own.  Signing as Debian's dkms does, with a key of this run.
sign_file=$hroot/usr/lib/linux-kbuild-$(echo "$K" | cut -d. -f1-2)/scripts/sign-file
[[ -x $sign_file ]] || sign_file=$kdir/scripts/sign-file
export sign_file mok_signing_key=$run/mok.key mok_certificate=$run/mok.pub
base=$run/root
mods=$base/lib/modules/$K
kmods=$PT_E2E_KROOT/lib/modules/$K
mkdir -p "$run/dkms" "$mods"
# the guest's own modules, so that depmod sees the stock dm-writecache next to ours
ln -s "$kmods/kernel" "$mods/kernel"
cp "$kmods"/modules.order "$kmods"/modules.builtin* "$mods/"
trees=(--dkmstree "$run/dkms" --sourcetree "$run/pkg/usr/src" --installtree "$base/lib/modules")
mkv=(-m "$name" -v "$ver")
kern=(-k "$K" --kernelsourcedir "$kdir")
# kernels the package was not prepared from: the next ABI, the other flavour, and a
# kernel built from the same upstream version under its own name
[[ $K =~ ^([0-9]+\.[0-9]+\.[0-9]+-)([0-9]+)(-.+)$ ]] ||
	fail "$K is not a Debian kernel release (X.Y.Z-ABI-FLAVOUR)"
next=${BASH_REMATCH[1]}$((BASH_REMATCH[2] + 1))${BASH_REMATCH[3]}
case $K in
*-cloud-amd64) other=${K%-cloud-amd64}-amd64 ;;
*) other=${K%-*}-cloud-amd64 ;;
esac
upstream=$(cat "$run/pkg/usr/src/$name-$ver/KERNEL-VERSION")
echo "== dkms add/build/install for $K"
start=$SECONDS
dkms add "${mkv[@]}" "${trees[@]}" || fail "dkms add"
for r in "$next" "$other" "$upstream"; do
	rc=0
	out=$(dkms build "${mkv[@]}" "${trees[@]}" -k "$r" --kernelsourcedir "$kdir" 2>&1) || rc=$?
	printf '%s\n' "$out" | tail -n 3
	if ((rc != 77)) || ! grep -q BUILD_EXCLUSIVE <<<"$out"; then
		fail "dkms build -k $r: status $rc, not 77 (BUILD_EXCLUSIVE): the package is not pinned to $K"
	fi
	[[ ! -e $run/dkms/$name/$ver/$r ]] || fail "dkms left a build for $r"
	ok "dkms refuses to build it for $r"
done
# the same release from another Debian build: its headers name that build
fake=$run/fake-headers/linux-headers-$K
mkdir -p "${fake%/*}"
cp -a "$kdir" "$fake"
for l in scripts tools; do
	[[ -L $kdir/$l ]] && ln -sfn "$(readlink -f "$kdir/$l")" "$fake/$l"
done
grep -q "LINUX_PACKAGE_ID \" Debian $kpver\"" "$fake/include/generated/package.h" ||
	fail "$kdir/include/generated/package.h does not name $kpver"
sed -i "s/ Debian $kpver\"/ Debian $kpver+other1\"/" "$fake/include/generated/package.h"
rc=0
dkms build "${mkv[@]}" "${trees[@]}" -k "$K" --kernelsourcedir "$fake" -j 2 >/dev/null 2>&1 || rc=$?
log=$(cat "$run/dkms/$name/$ver/build/make.log" 2>/dev/null || true)
grep -m1 'these headers are' <<<"$log" || true
if ((rc == 0 || rc == 77)) || ! grep -q "these headers are $kpver+other1's" <<<"$log"; then
	fail "dkms build against headers of Debian $kpver+other1 for $K: status $rc, not refused by Kbuild"
fi
[[ ! -e $run/dkms/$name/$ver/$K ]] || fail "dkms kept a build for the other Debian build"
ok "the build refuses headers of the same release from another Debian build"
dkms build "${mkv[@]}" "${trees[@]}" "${kern[@]}" -j 2 ||
	{ cat "$run/dkms/$name/$ver/build/make.log" 2>/dev/null; fail "dkms build"; }
dkms install "${mkv[@]}" "${trees[@]}" "${kern[@]}" --no-depmod || fail "dkms install"
pt_log "dkms add+build+install: $((SECONDS - start)) s"
status=$(dkms status "${mkv[@]}" "${trees[@]}" -k "$K")
echo "$status"
[[ $status == *": installed"* ]] || fail "dkms status: not installed"
ko=$mods/updates/dkms/dm-writecache.ko
[[ -e $ko ]] || fail "no $ko"
modinfo "$ko" | grep -E '^(filename|vermagic|signer|parm):'
modinfo "$ko" | grep -q '^parm: *nt_max_bytes:' || fail "dm-writecache.ko has no nt_max_bytes"
vermagic=$(modinfo -F vermagic "$ko")
[[ $vermagic == "$K "* ]] || fail "vermagic '$vermagic', not $K"
ok "dkms built dm-writecache.ko with nt_max_bytes for $K"
depmod -C /dev/null -b "$base" "$K" || fail "depmod"
pick=$(modprobe --config=/dev/null --dirname="$base" --set-version="$K" --show-depends \
	dm-writecache | tail -n1)
echo "modprobe dm-writecache: $pick"
[[ $pick == "insmod $ko "* ]] || fail "modprobe does not pick updates/dkms/dm-writecache.ko"
ok "modprobe prefers the DKMS module to the stock one"
cp "$ko" "$run/dm-writecache.ko"
dkms remove "${mkv[@]}" "${trees[@]}" -k "$K" --no-depmod || fail "dkms remove"
[[ ! -e $ko && -z $(dkms status "${mkv[@]}" "${trees[@]}") ]] || fail "dkms remove left it"
ok "dkms remove took it out again"

# 3. postinst/prerm: root's, in a mount namespace of their own
if [[ $(id -u) -ne 0 ]] || ! unshare -m --propagation private true 2>/dev/null; then
	pt_log "not root or no mount namespace: postinst/prerm not run"
else
	echo "== postinst configure, prerm remove (private mount namespace)"
	start=$SECONDS
	m=$run/ns
	mkdir -p "$m"/{usrsrc,dkms,etcdkms,lib.up,lib.wk}
	cp -a "$run/pkg/usr/src/." "$m/usrsrc/"
	cp -a /etc/dkms/. "$m/etcdkms/"
	# the host's kernel is not the guest's: build for every kernel in /lib/modules
	echo 'autoinstall_all_kernels="yes"' >>"$m/etcdkms/framework.conf"
	unset sign_file mok_signing_key mok_certificate
	rc=0
	unshare -m --propagation private bash -s "$m" "$K" "$kdir" "$kmods" "$run/ctl" "$name" \
		"$ver" "$next" <<-'NS' || rc=$?
	set -euo pipefail
	m=$1 K=$2 kdir=$3 kmods=$4 ctl=$5 name=$6 ver=$7 next=$8
	mount --bind "$m/usrsrc" /usr/src
	mount --bind "$m/dkms" /var/lib/dkms
	mount --bind "$m/etcdkms" /etc/dkms
	# /lib/modules may not exist on the host: an overlay on /usr/lib makes it
	mount -t overlay overlay -o "lowerdir=/usr/lib,upperdir=$m/lib.up,workdir=$m/lib.wk" \
		/usr/lib
	rm -rf /lib/modules
	# the guest's kernel and a later one (the next ABI; its headers stand in)
	for k in "$K" "$next"; do
		mkdir -p "/lib/modules/$k"
		ln -s "$kdir" "/lib/modules/$k/build"
		ln -s "$kmods/kernel" "/lib/modules/$k/kernel"
		cp "$kmods"/modules.order "$kmods"/modules.builtin* "/lib/modules/$k/"
	done
	depmod "$next"
	"$ctl/postinst" configure "" || { echo "FAILED: postinst configure: $?"; exit 1; }
	dkms status
	ko=/lib/modules/$K/updates/dkms/dm-writecache.ko
	[[ -e $ko ]] || { echo "FAILED: postinst installed no $ko"; exit 1; }
	modinfo "$ko" | grep -E '^(signer|parm: *nt_max_bytes)'
	modprobe --show-depends --set-version="$K" dm-writecache | grep -q "insmod $ko" ||
		{ echo "FAILED: after postinst, modprobe does not pick $ko"; exit 1; }
	[[ ! -e /lib/modules/$next/updates/dkms && $(dkms status -k "$next") != *"$next"* ]] ||
		{ echo "FAILED: postinst built it for $next too"; exit 1; }
	pick=$(modprobe --show-depends --set-version="$next" dm-writecache | tail -n1)
	echo "$next: $pick"
	[[ $pick == "insmod /lib/modules/$next/kernel/drivers/md/dm-writecache.ko"* ]] ||
		{ echo "FAILED: $next does not keep its stock dm-writecache"; exit 1; }
	"$ctl/prerm" remove || { echo "FAILED: prerm remove: $?"; exit 1; }
	[[ ! -e $ko && -z $(dkms status) && ! -e /var/lib/dkms/$name ]] ||
		{ echo "FAILED: prerm left the module"; exit 1; }
	NS
	((rc == 0)) || fail "postinst/prerm (rc $rc)"
	pt_log "postinst+prerm: $((SECONDS - start)) s"
	ok "postinst built and installed it for $K, not for $next; prerm removed it"
fi

((${#guest[@]})) || exit 0
# 4. the module DKMS built, in the guest
echo "== the guest loads the DKMS-built module"
rc=0
PT_E2E_DM_WRITECACHE_KO=$run/dm-writecache.ko "$dir/dm-writecache-test.sh" "${guest[@]}" || rc=$?
exit "$rc"
