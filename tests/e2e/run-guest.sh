#!/bin/bash
# Boots Debian's cloud kernel under qemu (TCG, never KVM) with emulated NVDIMMs, runs a
# guest script in a busybox initramfs and exits with the script's exit status.
#
# usage: run-guest.sh --script GUESTSCRIPT [options] [-- SCRIPT-ARGS...]
#   --file HOST[:GUEST]   copy a host file into the guest (repeatable; ELF files bring
#                         their libraries). GUEST defaults to /usr/local/bin/NAME for
#                         executables (on PATH), /pt-e2e/files/NAME otherwise.
#   --env NAME=VALUE      export to the guest script (repeatable)
#   --module NAME         load one more kernel module in the guest (repeatable)
#   --labels | --no-labels  NVDIMM with a label area (default) or label-less
#   --label-size SIZE     label area size (default 128K)
#   --persistence DOMAIN  cpu | mem-ctrl | none: -machine nvdimm-persistence (default none)
#   --nvdimm-size SIZE    size of each NVDIMM backing file (default 1G)
#   --nvdimms N           number of NVDIMMs, each its own region (default 1); with more
#                         than one, each backend gets align=16M so that every
#                         region starts 16M-aligned (each shrinks to a 16M multiple)
#   --img PATH            backing file of the next NVDIMM, kept after the run (created
#                         sparse when missing; repeatable). Default: temporary files.
#   --mem SIZE            guest RAM (default 2G)
#   --smp N               guest CPUs (default 2)
#   --timeout SECONDS     bound on the whole qemu run (default $PT_E2E_TIMEOUT or 300)
#   --log FILE            keep the guest console log there
#   --outdir DIR          write files the guest exported with pt_export there
#   --append ARGS         more kernel command-line arguments
#   --keep                keep the work directory (initramfs, logs, images)
#   --quiet               do not print the guest's test output on success
#   --numa                two NUMA nodes, each with half the CPUs (one socket) and half the
#                         RAM, distance 20; the NVDIMMs on node 1
#   --cxl                 q35 with one CXL host bridge, root port and Type-3 persistent
#                         memory device (and its label area) behind a 4G fixed memory
#                         window; loads the CXL modules (cxl_acpi cxl_pci cxl_mem cxl_pmem)
#   --cxl-size SIZE       the CXL device's persistent capacity (default 256M, a 256M multiple)
#   --cxl-sn N            the CXL device's serial number (default 1)
# Guest script environment: PT_E2E_LABELS, PT_E2E_PERSISTENCE, PT_E2E_NVDIMM_SIZE,
# PT_E2E_NVDIMMS, PT_E2E_KVER; helpers in /pt-e2e/lib.sh (tests/e2e/guest/lib.sh).
#
# Exit status: the guest script's; 77 (skip) when setup has not been done, qemu is
# missing or cannot start, or the kernel printed nothing; 124 on timeout; 125 when the
# guest booted but reported no result (log tail printed).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

usage() { sed -n '2,41s/^# \{0,1\}//p' "$0"; exit 2; }

script='' labels=1 label_size=128K persistence=none nvdimm_size=1G nvdimms=1
mem=2G smp=2 timeout_s=${PT_E2E_TIMEOUT:-300} log_copy='' outdir='' append='' keep=0 quiet=0
imgs=() mk_args=() numa=0 cxl=0 cxl_size=256M cxl_sn=1
while (($#)); do
	case $1 in
	--script) script=$2; shift 2 ;;
	--file | --env | --module) mk_args+=("$1" "$2"); shift 2 ;;
	--labels) labels=1; shift ;;
	--no-labels) labels=0; shift ;;
	--label-size) label_size=$2; shift 2 ;;
	--persistence) persistence=$2; shift 2 ;;
	--nvdimm-size) nvdimm_size=$2; shift 2 ;;
	--nvdimms) nvdimms=$2; shift 2 ;;
	--img) imgs+=("$2"); shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--log) log_copy=$2; shift 2 ;;
	--outdir) outdir=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--quiet) quiet=1; shift ;;
	--numa) numa=1; shift ;;
	--cxl) cxl=1; shift ;;
	--cxl-size) cxl_size=$2; shift 2 ;;
	--cxl-sn) cxl_sn=$2; shift 2 ;;
	--) shift; break ;;
	-h | --help) usage ;;
	*) pt_log "unknown option $1"; usage ;;
	esac
done
for a in "$@"; do mk_args+=(--arg "$a"); done
[[ -n $script ]] || usage
[[ -r $script ]] || pt_die "guest script $script not readable"
case $persistence in cpu | mem-ctrl | none | "") ;; *) pt_die "--persistence: cpu, mem-ctrl or none" ;; esac
[[ $nvdimms =~ ^[0-9]+$ ]] || pt_die "--nvdimms wants a number"
((${#imgs[@]} <= nvdimms)) || pt_die "more --img than --nvdimms"
[[ $timeout_s =~ ^[0-9]+$ ]] || pt_die "--timeout wants seconds"
[[ $cxl_sn =~ ^[0-9]+$ ]] || pt_die "--cxl-sn wants a number"

# SIZE (with K, M, G, T suffix) in bytes
to_bytes() {
	local n=${1%[KkMmGgTt]} u=${1##*[0-9]}
	[[ $n =~ ^[0-9]+$ ]] || pt_die "bad size $1"
	case $u in
	"") echo "$n" ;; [Kk]) echo $((n << 10)) ;; [Mm]) echo $((n << 20)) ;;
	[Gg]) echo $((n << 30)) ;; [Tt]) echo $((n << 40)) ;;
	esac
}

pt_load_kernel_env || pt_skip "no guest kernel prepared (run tests/e2e/setup.sh)"
QEMU=${PT_E2E_QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null || pt_skip "$QEMU not installed (run tests/e2e/setup.sh)"
command -v timeout >/dev/null || pt_skip "timeout(1) missing"

work=$(mktemp -d "${TMPDIR:-/tmp}/pt-e2e-run.XXXXXX")
qpid=''
# shellcheck disable=SC2317  # called through trap
cleanup() {
	if [[ -n $qpid ]] && kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null || true	# timeout(1) passes it on to qemu
		wait "$qpid" 2>/dev/null || true
	fi
	if ((keep)); then
		pt_log "work directory kept: $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

[[ $persistence == none ]] && persistence=
if ((cxl)); then
	# what the guest kernel and qemu need, or a skip that names it
	kconfig=$PT_E2E_KROOT/boot/config-$PT_E2E_KVER
	for opt in CXL_BUS CXL_PCI CXL_ACPI CXL_MEM CXL_PMEM CXL_PORT CXL_REGION; do
		grep -Eq "^CONFIG_$opt=[ym]" "$kconfig" 2>/dev/null ||
			pt_skip "--cxl: the guest kernel $PT_E2E_KVER lacks CONFIG_$opt ($kconfig)"
	done
	"$QEMU" -device help 2>/dev/null | grep -q '"cxl-type3"' ||
		pt_skip "--cxl: $QEMU has no cxl-type3 device (qemu 7.1 or later)"
	for m in "${PT_E2E_CXL_MODULES[@]}"; do mk_args+=(--module "$m"); done
	mk_args+=(--env PT_E2E_CXL=1)
fi
"$PT_E2E_DIR/mkinitramfs.sh" -o "$work/initrd.cpio.gz" --script "$script" \
	--env "PT_E2E_LABELS=$labels" --env "PT_E2E_PERSISTENCE=$persistence" \
	--env "PT_E2E_NVDIMM_SIZE=$nvdimm_size" --env "PT_E2E_NVDIMMS=$nvdimms" \
	${mk_args[@]+"${mk_args[@]}"}

machine=pc,nvdimm=on
((cxl)) && machine=q35,nvdimm=on,cxl=on
[[ -n $persistence ]] && machine+=,nvdimm-persistence=$persistence
size_b=$(to_bytes "$nvdimm_size")
maxmem_b=$((8 << 30))
need_b=$(($(to_bytes "$mem") + nvdimms * size_b))
((need_b <= maxmem_b)) || maxmem_b=$need_b
slots=$((nvdimms > 2 ? nvdimms : 2))
# --numa: each node's RAM comes from its own memory backend (-m must equal their sum),
# one socket per node, and node=1 on each NVDIMM gives its NFIT range proximity domain
# 1: the guest shows it as the region's numa_node and target_node.
smp_arg=$smp mem_arg=$mem nv_node='' numa_args=()
if ((numa)); then
	((smp >= 2 && smp % 2 == 0)) || pt_die "--numa wants an even --smp >= 2"
	half_m=$(($(to_bytes "$mem") / 2 >> 20))
	smp_arg="$smp,sockets=2,cores=$((smp / 2)),threads=1"
	mem_arg="$((2 * half_m))M"
	# shellcheck disable=SC2054
	numa_args=(
		-object "memory-backend-ram,id=ram0,size=${half_m}M"
		-object "memory-backend-ram,id=ram1,size=${half_m}M"
		-numa node,nodeid=0,memdev=ram0 -numa node,nodeid=1,memdev=ram1
		-numa cpu,node-id=0,socket-id=0 -numa cpu,node-id=1,socket-id=1
		-numa dist,src=0,dst=1,val=20
	)
	nv_node=,node=1
fi
# shellcheck disable=SC2054  # commas belong to qemu options
qemu_args=(
	-accel tcg,thread=multi -cpu max -smp "$smp_arg"
	-machine "$machine"
	-m "$mem_arg,slots=$slots,maxmem=$((maxmem_b >> 20))M"
	${numa_args[@]+"${numa_args[@]}"}
	-nodefaults -display none -monitor none -no-reboot
	-serial "file:$work/console.log" -serial "file:$work/channel.log"
	-kernel "$PT_E2E_VMLINUZ" -initrd "$work/initrd.cpio.gz"
	-append "console=ttyS0,115200 panic=-1 mitigations=off $append"
)
# Several DIMMs: the next one would start right after the previous one's data (its
# size less the label area), so its region is not 16M-aligned and ndctl refuses to
# create namespaces there ("misaligned to 16M"). align=16M puts every DIMM on a 16M
# boundary (and rounds each region's size down to 16M).
align=''
((nvdimms > 1)) && align=,align=16M
for ((i = 0; i < nvdimms; i++)); do
	img=${imgs[i]:-$work/nvdimm$i.img}
	if [[ ! -e $img ]]; then
		truncate -s "$size_b" "$img"
	elif (($(stat -c %s "$img") != size_b)); then
		pt_die "--img $img is not $nvdimm_size large"
	fi
	nvdev=nvdimm,id=nv$i,memdev=mem$i$nv_node
	((labels)) && nvdev+=,label-size=$label_size
	qemu_args+=(
		-object "memory-backend-file,id=mem$i,share=on,mem-path=$img,size=$size_b$align"
		-device "$nvdev"
	)
done

# One CXL host bridge (pxb-cxl), one root port, one Type-3 device whose memdev is
# persistent (qemu 7.2: memdev= is pmem) with its own label storage area; the
# fixed memory window (CFMWS) that the kernel's cxl_acpi decodes regions from.
if ((cxl)); then
	cxl_b=$(to_bytes "$cxl_size")
	((cxl_b % (256 << 20) == 0)) || pt_die "--cxl-size must be a multiple of 256M"
	truncate -s "$cxl_b" "$work/cxl-pmem0.img"
	truncate -s 256M "$work/cxl-lsa0.img"
	qemu_args+=(
		-object "memory-backend-file,id=cxl-mem0,share=on,mem-path=$work/cxl-pmem0.img,size=$cxl_b"
		-object "memory-backend-file,id=cxl-lsa0,share=on,mem-path=$work/cxl-lsa0.img,size=256M"
		-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1
		-device cxl-rp,port=0,bus=cxl.1,id=cxl_rp0,chassis=0,slot=2
		-device "cxl-type3,bus=cxl_rp0,memdev=cxl-mem0,lsa=cxl-lsa0,id=cxl-pmem0,sn=$cxl_sn"
		-M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G
	)
fi

start=$SECONDS
pt_log "booting $PT_E2E_KVER: labels=$labels persistence=${persistence:-unset}" \
	"nvdimms=${nvdimms}x$nvdimm_size cxl=$cxl smp=$smp timeout=${timeout_s}s"
pt_qemu_run "$timeout_s" "$work/qemu.out" "$work/console.log" "$work/channel.log" -- \
	"$QEMU" "${qemu_args[@]}"
elapsed=$((SECONDS - start))

console=$work/console.log
touch "$console" "$work/channel.log"
[[ -n $log_copy ]] && cp "$console" "$log_copy"
clean_log() { tr -d '\r' <"$1"; }

tail_log() {
	echo "---- last 60 lines of the guest console ($console) ----"
	clean_log "$console" | tail -n 60
	echo "---- end of console ----"
	if [[ -s $work/qemu.out ]]; then
		echo "---- qemu output ----"
		cat "$work/qemu.out"
	fi
}

result=$( { clean_log "$work/channel.log"; clean_log "$console"; } |
	grep -ao '^PT_E2E_RESULT=[0-9]*' | head -n1 || true)

if [[ -z $result ]]; then
	if ! grep -aq 'Linux version' "$console"; then
		tail_log
		if ((qrc == 124 || qrc == 137)); then
			pt_skip "guest kernel printed nothing within ${timeout_s}s (qemu rc $qrc)"
		fi
		pt_skip "qemu could not boot the guest (rc $qrc): $(head -c 300 "$work/qemu.out" | tr '\n' ' ')"
	fi
	tail_log
	pt_exit_if_timed_out "$timeout_s"
	if ! grep -aq PT_E2E_INIT "$console"; then
		pt_log "error: the kernel booted but /init did not start (qemu rc $qrc)"
	else
		pt_log "error: the guest stopped without a PT_E2E_RESULT line (qemu rc $qrc)"
	fi
	exit 125
fi
rc=${result#PT_E2E_RESULT=}

if [[ -n $outdir ]]; then
	mkdir -p "$outdir" "$work/export"
	clean_log "$work/channel.log" | awk -v dir="$work/export" '
		/^PT_E2E_FILE_BEGIN / { name = $2; gsub(/[^A-Za-z0-9._-]/, "_", name);
			file = dir "/" name ".b64"; printf "" > file; next }
		/^PT_E2E_FILE_END/ { close(file); file = ""; next }
		file != "" { print >> file }' || true
	for f in "$work"/export/*.b64; do
		[[ -e $f ]] || continue
		n=${f##*/}
		base64 -d "$f" >"$outdir/${n%.b64}" ||
			pt_log "warning: exported file ${n%.b64} is damaged"
	done
fi
if ((quiet == 0 || rc != 0)); then
	echo "---- guest test output ----"
	if ((rc == 0 || rc == PT_E2E_SKIP)); then
		clean_log "$console" | sed -n '/^PT_E2E_TEST_START/,/^PT_E2E_TEST_END/p' | sed '1d;$d'
	else
		# module failures before the test, the test, the guest's kernel log after it
		clean_log "$console" | sed -n '/^PT_E2E_INIT/,$p' | grep -av '^PT_E2E_'
	fi
	echo "---- end of guest test output ----"
fi
pt_log "guest exited with $rc after ${elapsed}s (qemu rc $qrc)"
exit "$rc"
