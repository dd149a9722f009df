#!/bin/bash
# Builds the guest's initramfs (a gzip'ed newc cpio) for the e2e tests.
#
# usage: mkinitramfs.sh -o OUT.cpio.gz --script GUESTSCRIPT [options]
#   --script FILE        guest test script, run by busybox sh as /pt-e2e/test.sh
#   --arg ARG            argument for the guest script (repeatable)
#   --file HOST[:GUEST]  copy HOST into the guest (repeatable). GUEST defaults to
#                        /usr/local/bin/NAME for executables, /pt-e2e/files/NAME otherwise.
#                        ELF files bring every shared library ldd finds for them.
#   --env NAME=VALUE     exported to the guest script (repeatable)
#   --module NAME        load this kernel module too (repeatable)
#
# The image holds: busybox-static (applet links made at boot), the modules of
# PT_E2E_MODULES and their dependencies (decompressed; loaded with insmod in
# dependency order), ndctl, daxctl, jq, mke2fs/mkfs.ext4, the dynamic loader and every
# library these and the --file binaries need, the guest helpers (/pt-e2e/lib.sh) and
# an /init that mounts proc/sys/devtmpfs, loads the modules, runs the script, prints
# PT_E2E_RESULT=<rc> on the console and on the second serial port, and powers off.
# Needs setup.sh to have run (reads $PT_E2E_CACHE/kernel.env).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
PATH=$PATH:/usr/sbin:/sbin

# Host tools that every guest gets (libraries follow through ldd).
GUEST_TOOLS=(/usr/bin/ndctl /usr/bin/daxctl /usr/bin/cxl /usr/bin/jq /usr/sbin/mke2fs)
GUEST_CONFIG=(/etc/ndctl.conf.d /etc/daxctl.conf.d /etc/ndctl /etc/mke2fs.conf)
# Loaded at run time by glibc (pthread_cancel, backtraces), so ldd does not list it.
GUEST_EXTRA_LIBS=(/lib/x86_64-linux-gnu/libgcc_s.so.1)

usage() { sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 2; }

out='' script=''
files=() envs=() args=() modules=("${PT_E2E_MODULES[@]}")
while (($#)); do
	case $1 in
	-o | --output) out=$2; shift 2 ;;
	--script) script=$2; shift 2 ;;
	--arg) args+=("$2"); shift 2 ;;
	--file) files+=("$2"); shift 2 ;;
	--env) envs+=("$2"); shift 2 ;;
	--module) modules+=("$2"); shift 2 ;;
	-h | --help) usage ;;
	*) pt_log "unknown option $1"; usage ;;
	esac
done
[[ -n $out && -n $script ]] || usage
[[ -r $script ]] || pt_die "guest script $script not readable"
pt_load_kernel_env || pt_die "no kernel prepared: run tests/e2e/setup.sh first"
[[ -x /bin/busybox ]] || pt_die "/bin/busybox missing: run tests/e2e/setup.sh first"

stage=$(mktemp -d "${TMPDIR:-/tmp}/pt-e2e-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# Merged-/usr layout like Debian 12's, so that host paths are valid guest paths.
mkdir -p "$stage"/usr/{bin,sbin,lib,lib64,local/bin} \
	"$stage"/{dev,proc,sys,run,tmp,mnt,root,etc,pt-e2e/files}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$stage/$d"; done
chmod 1777 "$stage/tmp"

# Single-quotes $1 for a POSIX shell (busybox sh reads the result).
sh_quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

declare -A copied=()
# copy_file HOST GUEST: copies the file (dereferenced), keeping its mode.
copy_file() {
	local src=$1 dst=$stage$2
	mkdir -p "$(dirname "$dst")"
	cp -L --preserve=mode "$src" "$dst"
}

# copy_elf HOST GUEST: the file plus, when dynamic, its loader and libraries at the
# paths ldd resolves (so RUNPATHs into a build tree keep working in the guest).
copy_elf() {
	local src=$1 dst=$2 out line lib
	copy_file "$src" "$dst"
	[[ $(head -c 4 "$src" | od -An -c | tr -d ' ') == 177ELF ]] || return 0
	out=$(ldd "$src" 2>&1) || {
		[[ $out == *"not a dynamic executable"* ]] && return 0
		pt_die "ldd $src: $out"
	}
	while IFS= read -r line; do
		case $line in
		*"=> not found"*) pt_die "$src: library ${line%% *} not found on the host" ;;
		*"=> /"*) lib=${line#*=> }; lib=${lib%% (*} ;;
		[[:space:]]/*) lib=${line#"${line%%/*}"}; lib=${lib%% (*} ;;
		*) continue ;;
		esac
		[[ -n ${copied[$lib]:-} ]] && continue
		copied[$lib]=1
		copy_file "$lib" "$lib"
	done <<<"$out"
}

# Tools, configuration and the loader
copy_file /bin/busybox /usr/bin/busybox
for t in "${GUEST_TOOLS[@]}"; do
	[[ -x $t ]] || pt_die "$t missing: run tests/e2e/setup.sh"
	copy_elf "$t" "$t"
done
ln -s mke2fs "$stage/usr/sbin/mkfs.ext4"
for c in "${GUEST_CONFIG[@]}"; do
	[[ -e $c ]] || continue
	mkdir -p "$stage$(dirname "$c")"
	cp -a "$c" "$stage$c"
done
for l in "${GUEST_EXTRA_LIBS[@]}"; do
	[[ -e $l ]] && copy_file "$l" "$l"
done
copy_file /lib64/ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\n' >"$stage/etc/group"

# Project files
for spec in "${files[@]}"; do
	src=${spec%%:*}
	if [[ $spec == *:* ]]; then
		dst=${spec#*:}
	elif [[ -x $src && ! -d $src ]]; then
		dst=/usr/local/bin/${src##*/}
	else
		dst=/pt-e2e/files/${src##*/}
	fi
	[[ -e $src ]] || pt_die "--file $src: no such file"
	[[ $dst == /* ]] || pt_die "--file $spec: guest path must be absolute"
	if [[ -d $src ]]; then
		mkdir -p "$stage$dst"
		cp -a "$src/." "$stage$dst/"
	else
		copy_elf "$src" "$dst"
	fi
done

# Kernel modules: decompressed, with a modules.dep of their own for libkmod (ndctl)
kmods=$PT_E2E_KROOT/lib/modules/$PT_E2E_KVER
gmods=$stage/lib/modules/$PT_E2E_KVER
mkdir -p "$gmods"
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[[ -e $kmods/$f ]] && cp "$kmods/$f" "$gmods/"
done
mod_list=$(pt_module_files "$PT_E2E_KROOT" "$PT_E2E_KVER" "${modules[@]}") ||
	pt_die "cannot resolve modules ${modules[*]}"
: >"$stage/pt-e2e/modules"
while IFS= read -r ko; do
	[[ -n $ko ]] || continue
	plain=${ko%.xz}; plain=${plain%.zst}; plain=${plain%.gz}
	mkdir -p "$stage$(dirname "$plain")"
	case $ko in
	*.xz) xz -dc "$PT_E2E_KROOT$ko" >"$stage$plain" ;;
	*.zst) zstd -qdc "$PT_E2E_KROOT$ko" >"$stage$plain" ;;
	*.gz) gzip -dc "$PT_E2E_KROOT$ko" >"$stage$plain" ;;
	*) cp "$PT_E2E_KROOT$ko" "$stage$plain" ;;
	esac
	printf '%s\n' "$plain" >>"$stage/pt-e2e/modules"
done <<<"$mod_list"
depmod -b "$stage" "$PT_E2E_KVER"

# Test script, its arguments and environment, guest helpers
cp "$script" "$stage/pt-e2e/test.sh"
cp "$PT_E2E_DIR/guest/lib.sh" "$stage/pt-e2e/lib.sh"
{
	printf 'set --'
	for a in "${args[@]}"; do printf ' %s' "$(sh_quote "$a")"; done
	printf '\n'
} >"$stage/pt-e2e/args"
{
	printf 'export PT_E2E_KVER=%s\n' "$(sh_quote "$PT_E2E_KVER")"
	for e in "${envs[@]}"; do
		[[ $e == [A-Za-z_]*=* ]] || pt_die "--env $e: want NAME=VALUE"
		printf 'export %s=%s\n' "${e%%=*}" "$(sh_quote "${e#*=}")"
	done
} >"$stage/pt-e2e/env"

cat >"$stage/init" <<'EOF'
#!/usr/bin/busybox sh
# pt-e2e guest init: set up, load modules, run /pt-e2e/test.sh, report, power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu
/usr/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t tmpfs tmpfs /dev/shm
# / is the initramfs itself (a fresh tmpfs): /tmp and /run stay on it, so that files
# copied there (a build tree under /tmp) remain visible
echo "PT_E2E_INIT kernel=$(uname -r) cpus=$(nproc)"
modfail=
while read -r ko; do
	insmod "$ko" || { echo "PT_E2E_MODULE_FAILED=$ko"; modfail=1; }
done </pt-e2e/modules
# The NFIT driver registers regions asynchronously: wait for them (at most ~20 s).
if [ -e /sys/bus/acpi/devices/ACPI0012:00 ]; then
	i=0
	while [ $i -lt 200 ] && ! ls -d /sys/bus/nd/devices/region* >/dev/null 2>&1; do
		sleep 0.1
		i=$((i + 1))
	done
	for w in /sys/bus/nd/devices/ndbus*/wait_probe; do
		[ -e "$w" ] && cat "$w" >/dev/null
	done
fi
. /pt-e2e/env
dmesg -n "${PT_E2E_CONSOLE_LOGLEVEL:-1}"
klines=$(dmesg | wc -l)
echo "PT_E2E_TEST_START uptime=$(cut -d" " -f1 /proc/uptime)"
cd /root
if [ -n "$modfail" ]; then
	echo "FAIL: a kernel module did not load; test not run"
	rc=126
else
	( . /pt-e2e/args; exec /bin/sh /pt-e2e/test.sh "$@" ) </dev/null 2>&1
	rc=$?
fi
echo "PT_E2E_TEST_END uptime=$(cut -d" " -f1 /proc/uptime)"
if [ "$rc" -ne 0 ]; then
	echo "---- guest kernel log during the test (last 60 lines) ----"
	dmesg | tail -n +$((klines + 1)) | tail -n 60
fi
sync
echo "PT_E2E_RESULT=$rc"
[ -c /dev/ttyS1 ] && echo "PT_E2E_RESULT=$rc" >/dev/ttyS1
poweroff -f
sleep 10
EOF
chmod 755 "$stage/init"

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 | gzip -1 >"$out.tmp")
mv "$out.tmp" "$out"
