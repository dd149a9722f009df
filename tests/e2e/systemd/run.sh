#!/bin/bash
# pmem-tuned end to end with systemd as PID 1: the host side.
#
# usage: run.sh --source DIR --build-dir DIR [options]
#   --source DIR      the source tree (the package build, the README)
#   --build-dir DIR   the calling build tree; the packages are built in DIR/deb
#   --debs DIR        install the packages in DIR (pmem-tune_*.deb, pmem-tuned_*.deb)
#                     instead of building them
#   --sanitize ON|OFF the calling tree's PT_SANITIZE: ON skips (the package is made
#                     from a plain build; the plain tree runs this test)
#   --outdir DIR      where the guest's out/ goes (journal, policy, figures)
#   --timeout S       bound on each boot's qemu run (default $PT_E2E_TIMEOUT or 420)
#   --keep            keep the work directory
#
# Steps: tests/e2e/setup.sh (qemu, the cloud kernel), mkimage.sh (the debootstrap
# image, cached), ../kmod/build.sh (pt_testmod.ko against Debian's headers), the
# packages (scripts/package.sh: prefix /usr, in <build>/deb), a data disk (mke2fs
# -d: the two .deb files, the README, the module, guest-test.sh, guest-boot.sh,
# lib.sh), then qemu (TCG) with a copy of the root image as namespace 1 (the cached
# image stays as built) and the data disk as namespace 2 of one NVMe controller, and
# an NVDIMM in the cpu_cache persistence domain; again, on the same disks, while the
# guest leaves a phase in out/next-boot (at most 4 boots).  The guest's test output
# comes over the second serial port.
#
# Exit status: the first failing boot's guest test's, else 0; 77 (with one "SKIPPED:" line) when something cannot
# be had: root, qemu, the kernel, debootstrap or the mirror, the headers; 124 on
# timeout; 125 when the guest gave no result.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
e2e=$(cd "$here/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$e2e/lib.sh"

usage() { sed -n '4,12s/^# \{0,1\}//p' "$0"; exit 2; }
src='' build='' debs='' sanitize=OFF outdir='' timeout_s=${PT_E2E_TIMEOUT:-420} keep=0
while (($#)); do
	case $1 in
	--source) src=$2; shift 2 ;;
	--build-dir) build=$2; shift 2 ;;
	--debs) debs=$2; shift 2 ;;
	--sanitize) sanitize=$2; shift 2 ;;
	--outdir) outdir=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage ;;
	*) pt_log "unknown option $1"; usage ;;
	esac
done
[[ -n $src && (-n $debs || -n $build) ]] || usage
case ${sanitize^^} in
ON | TRUE | 1 | YES) pt_skip "sanitizer build tree: the package test runs in the plain tree" ;;
esac

t_all=$SECONDS
# one line per measured step, printed again at the end
figures=()
step() {
	figures+=("$(printf '%-24s %4d s' "$1" "$2")")
	pt_log "$1: $2 s"
}

# --- the host side: kernel, qemu, image, module, package ------------------------------
t=$SECONDS
rc=0
"$e2e/setup.sh" >&2 || rc=$?
case $rc in 0) ;; 77) exit 77 ;; *) echo "e2e setup failed (rc $rc)"; exit "$rc" ;; esac
pt_load_kernel_env || pt_die "kernel.env not usable after setup.sh"
step "setup.sh" $((SECONDS - t))

t=$SECONDS
rc=0
img=$("$here/mkimage.sh") || rc=$?
case $rc in 0) ;; 77) printf '%s\n' "$img"; exit 77 ;; *) exit "$rc" ;; esac
step "image (cached after 1st)" $((SECONDS - t))

t=$SECONDS
rc=0
ko=$("$e2e/kmod/build.sh") || rc=$?
case $rc in 0) ;; 77) printf '%s\n' "$ko"; exit 77 ;; *) exit "$rc" ;; esac
step "pt_testmod.ko" $((SECONDS - t))

if [[ -z $debs ]]; then
	t=$SECONDS
	# The project's own package build (the README's): its own tree, prefix /usr
	# (the units name the binaries by their configured paths), no sanitizers.
	debs=$build/deb
	log=$build/deb.log
	if ! "$src/scripts/package.sh" "$debs" >"$log" 2>&1; then
		tail -n 30 "$log"
		pt_die "building the packages failed (see $log)"
	fi
	step "packages (package.sh)" $((SECONDS - t))
fi
pkgs=()
for p in pmem-tune pmem-tuned; do
	f=$(find "$debs" -maxdepth 1 -name "${p}_*.deb" | head -n1)
	[[ -r $f ]] || pt_die "no ${p}_*.deb in $debs"
	pkgs+=("$f")
done
pt_log "packages: ${pkgs[*]}"

QEMU=${PT_E2E_QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null || pt_skip "$QEMU not installed"
command -v debugfs >/dev/null || PATH=$PATH:/usr/sbin:/sbin

work=$(mktemp -d "${TMPDIR:-/tmp}/pt-e2e-systemd.XXXXXX")
qpid=''
# shellcheck disable=SC2317  # called through trap
cleanup() {
	if [[ -n $qpid ]] && kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null || true
		wait "$qpid" 2>/dev/null || true
	fi
	if ((keep)); then pt_log "work directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the data disk ---------------------------------------------------------------------
data=$work/data
mkdir -p "$data/out"
cp "${pkgs[@]}" "$data/"
cp "$src/README.md" "$data/README.md"
cp "$ko" "$data/pt_testmod.ko"
cp "$here/guest-test.sh" "$data/test.sh"
cp "$here/guest-boot.sh" "$data/boot.sh"
cp "$e2e/guest/lib.sh" "$data/lib.sh"
printf 'PT_E2E_KVER=%q\nPT_E2E_PERSISTENCE=cpu\nPT_E2E_GUEST_TIMEOUT=%q\n' \
	"$PT_E2E_KVER" "$((timeout_s - 30))" >"$data/env"
mke2fs -q -F -t ext4 -L pt-e2e-data -d "$data" "$work/data.img" 64M >/dev/null ||
	pt_die "mke2fs -d of the data disk failed"
truncate -s 1G "$work/nvdimm0.img"

# --- boot -----------------------------------------------------------------------------
# The root disk is a copy of the cached image (sparse; the cache stays as built), so
# that a later boot finds what the earlier ones left: the guest test asks for one by
# leaving a phase name in its out/next-boot (guest-boot.sh), and gets the same root,
# NVDIMM and data disk again.
root=$work/root.img
cp --sparse=always "$img" "$root" || pt_die "cannot copy $img to $root"
# no_timer_check: an emulated CPU on a loaded host can fail the kernel's timer IRQ test
# ("IO-APIC + timer doesn't work!", a panic before init, seen here at a load of 30)
# shellcheck disable=SC2054  # commas belong to qemu options
qemu_args_for() {	# qemu_args_for BOOT: the command line of that boot, in qemu_args
	qemu_args=(
		-accel tcg,thread=multi -cpu max -smp 2
		-machine pc,nvdimm=on,nvdimm-persistence=cpu
		-m 2G,slots=2,maxmem=8G
		-nodefaults -display none -monitor none -no-reboot
		-serial "file:$work/console-$1.log" -serial "file:$work/channel-$1.log"
		-object "memory-backend-file,id=mem0,share=on,mem-path=$work/nvdimm0.img,size=1G"
		-device nvdimm,id=nv0,memdev=mem0,label-size=128K
		-drive "file=$root,if=none,id=root,format=raw"
		-drive "file=$work/data.img,if=none,id=data,format=raw"
		-device nvme,id=nvme0,serial=pt-e2e
		-device nvme-ns,drive=root,bus=nvme0,nsid=1
		-device nvme-ns,drive=data,bus=nvme0,nsid=2
		-kernel "$PT_E2E_VMLINUZ"
		-append "root=/dev/nvme0n1 rw rootwait console=ttyS0,115200 panic=-1 mitigations=off no_timer_check systemd.wants=pt-e2e.service systemd.show_status=auto"
	)
}
clean_log() { tr -d '\r' <"$1"; }
MAX_BOOTS=4
boot=1 rc_all=0
while :; do
	console=$work/console-$boot.log channel=$work/channel-$boot.log
	qemu_args_for "$boot"
	t=$SECONDS
	pt_log "boot $boot: $PT_E2E_KVER with systemd (root $root), timeout ${timeout_s}s"
	TMPDIR=$work pt_qemu_run "$timeout_s" "$work/qemu.out" "$console" "$channel" -- \
		"$QEMU" "${qemu_args[@]}"
	step "qemu run, boot $boot" $((SECONDS - t))

	touch "$console" "$channel"
	result=$(clean_log "$channel" | grep -ao '^PT_E2E_RESULT=[0-9]*' | head -n1 || true)
	echo "---- guest test output, boot $boot ----"
	clean_log "$channel" | sed -n '/^PT_E2E_TEST_START/,/^PT_E2E_TEST_END/p' | sed '1d;$d'
	echo "---- end of guest test output, boot $boot ----"

	if [[ -z $result ]]; then
		echo "---- last 80 lines of the guest console, boot $boot ----"
		clean_log "$console" | tail -n 80
		echo "---- channel ----"
		clean_log "$channel" | tail -n 20
		[[ -s $work/qemu.out ]] && { echo "---- qemu ----"; cat "$work/qemu.out"; }
		if ((boot == 1)) && ! grep -aq 'Linux version' "$console"; then
			pt_skip "qemu could not boot the guest (rc $qrc): $(head -c 300 "$work/qemu.out" | tr '\n' ' ')"
		fi
		pt_exit_if_timed_out "$timeout_s"
		pt_log "error: the guest stopped without a result in boot $boot (qemu rc $qrc)"
		exit 125
	fi
	rc=${result#PT_E2E_RESULT=}
	if ((rc != 0 && rc != 77)); then
		echo "---- guest console (kernel and systemd), boot $boot, last 60 lines ----"
		clean_log "$console" | tail -n 60
	fi
	((rc_all == 0)) && rc_all=$rc
	next=$(debugfs -R "cat /out/next-boot" "$work/data.img" 2>/dev/null || true)
	if ((rc == 77)) || [[ -z $next ]]; then break; fi
	if ((boot >= MAX_BOOTS)); then
		pt_log "error: boot $boot asks for another ('$next'); $MAX_BOOTS is the most"
		((rc_all == 0)) && rc_all=1
		break
	fi
	boot=$((boot + 1))
	pt_log "the guest asks for boot $boot: $next"
done
rc=$rc_all

# the guest's out/ (written on the data disk, unmounted before poweroff)
if [[ -n $outdir ]]; then
	mkdir -p "$outdir"
	rm -rf "${outdir:?}/out"
	debugfs -R "rdump /out $outdir" "$work/data.img" >/dev/null 2>&1 ||
		pt_log "warning: cannot read out/ from the data disk"
fi

echo "---- figures ----"
printf '%s\n' "${figures[@]}"
for ((b = 1; b <= boot; b++)); do
	clean_log "$work/channel-$b.log" | sed -n "s/^FIGURE /guest (boot $b): /p"
done
printf 'total %d s\n' $((SECONDS - t_all))
pt_log "guest exited with $rc after $boot boot(s) (qemu rc $qrc)"
exit "$rc"
