# shellcheck shell=bash
# Shared helpers for the e2e harness (sourced by setup.sh, mkinitramfs.sh, run-guest.sh).
#
# Environment:
#   PT_E2E_CACHE       cache directory (default: tests/e2e/cache next to this file)
#   PT_E2E_KERNEL_PKG  kernel package to use instead of the one linux-image-cloud-amd64 depends on
#   PT_E2E_STRICT=1    turn "skipped" (exit 77) into a failure

PT_E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PT_E2E_CACHE=${PT_E2E_CACHE:-$PT_E2E_DIR/cache}
[[ $PT_E2E_CACHE == /* ]] || PT_E2E_CACHE=$PWD/$PT_E2E_CACHE
PT_E2E_SKIP=77

# Kernel modules the guest loads (with their dependencies from modules.dep).
# shellcheck disable=SC2034
PT_E2E_MODULES=(nfit libnvdimm nd_pmem nd_btt dax_pmem device_dax)
# What run-guest.sh --cxl adds: the CXL core's ACPI root, the memdev's PCI driver,
# its memory-device driver and the bridge into libnvdimm (cxl_port is built in).
# shellcheck disable=SC2034
PT_E2E_CXL_MODULES=(cxl_acpi cxl_pci cxl_mem cxl_pmem)

pt_log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
pt_die() { pt_log "error: $*"; exit 1; }
# One line saying why, exit 77 so that ctest reports the test as skipped
# (with PT_E2E_STRICT=1, where the harness is known to work: fail instead).
pt_skip() {
	if [[ ${PT_E2E_STRICT:-0} == 1 ]]; then
		printf 'FAILED (PT_E2E_STRICT=1, would skip): %s\n' "$*"
		exit 1
	fi
	printf 'SKIPPED: %s\n' "$*"
	exit "$PT_E2E_SKIP"
}

# Loads cache/kernel.env written by setup.sh: PT_E2E_KPKG, PT_E2E_KVER, PT_E2E_KROOT,
# PT_E2E_VMLINUZ. Returns 1 when setup.sh has not prepared a kernel yet.
pt_load_kernel_env() {
	local env=$PT_E2E_CACHE/kernel.env
	[[ -r $env ]] || return 1
	# shellcheck source=/dev/null
	. "$env"
	[[ -n ${PT_E2E_KVER:-} && -r ${PT_E2E_VMLINUZ:-/nonexistent} &&
		-d $PT_E2E_KROOT/lib/modules/$PT_E2E_KVER ]]
}

# Prints, in load order and without duplicates, the .ko files (paths under the kernel
# root) that the given modules and their dependencies need; built-in modules print nothing.
# Fails naming a module that is neither built in nor shipped.
pt_module_files() {
	local kroot=$1 kver=$2 m line
	shift 2
	local -A seen=()
	for m in "$@"; do
		local out
		# --config=/dev/null: the host's modprobe.d (e.g. ndctl's "install libnvdimm")
		# has no say over the guest
		if ! out=$(modprobe --config=/dev/null --dirname="$kroot" --set-version="$kver" \
				--show-depends "$m" 2>&1); then
			pt_log "module $m: $out"
			return 1
		fi
		while IFS= read -r line; do
			case $line in
			insmod\ *)
				line=${line#insmod }
				line=${line%% *}
				line=${line#"$kroot"}
				if [[ -z ${seen[$line]:-} ]]; then
					seen[$line]=1
					printf '%s\n' "$line"
				fi
				;;
			esac
		done <<<"$out"
	done
}

# pt_qemu_run TIMEOUT_S OUT CONSOLE [LOG...] -- QEMU-COMMAND...
# Runs qemu under timeout(1), its output in OUT, and waits for it. Sets qrc to its exit
# status (124/137: timed out) and pt_boot_stalls to the number of hung boots.
#
# Under TCG the guest kernel now and then stops dead while booting (seen in CI: silent
# for 420 s after "VFS: Dquot-cache hash table entries", a line the next boot passed in
# 2 s). Such a hang is the emulator's, not ours: when CONSOLE stops growing for
# PT_E2E_BOOT_STALL seconds (default 60) before the kernel starts init, qemu is stopped,
# CONSOLE and the LOGs are emptied and the guest is booted once more, within the same
# TIMEOUT_S. Nothing of the guest's has run by then, so the retry cannot hide a failure
# of ours; a second hang is reported as one.
# shellcheck disable=SC2034  # qrc and pt_boot_stalls are for the caller
pt_qemu_run() {
	local timeout_s=$1 out=$2 console=$3 stall=${PT_E2E_BOOT_STALL:-60}
	local -a logs=("$console")
	shift 3
	while (($#)) && [[ $1 != -- ]]; do logs+=("$1"); shift; done
	(($#)) || { pt_log "pt_qemu_run: no -- before the command"; return 2; }
	shift
	local deadline=$((SECONDS + timeout_s)) attempt=1 size last changed booted left f
	pt_boot_stalls=0
	while :; do
		for f in "${logs[@]}"; do : >"$f"; done
		left=$((deadline - SECONDS))
		timeout --kill-after=10 "$left" "$@" </dev/null >"$out" 2>&1 &
		qpid=$!
		last=-1 changed=$SECONDS booted=0
		while kill -0 "$qpid" 2>/dev/null; do
			sleep 1
			((booted)) && continue
			if grep -aq 'Run .* as init process' "$console"; then
				booted=1
				continue
			fi
			size=$(stat -c %s "$console" 2>/dev/null || echo 0)
			if ((size != last)); then
				last=$size changed=$SECONDS
			elif ((SECONDS - changed >= stall)); then
				break
			fi
		done
		if ((booted)) || ! kill -0 "$qpid" 2>/dev/null; then
			qrc=0
			wait "$qpid" || qrc=$?
			qpid=''
			return 0
		fi
		pt_boot_stalls=$((pt_boot_stalls + 1))
		pt_log "the guest kernel hung while booting (attempt $attempt, nothing" \
			"printed for ${stall}s); its last line: $(tr -d '\r' <"$console" |
			tail -n1)"
		kill -TERM "$qpid" 2>/dev/null || true
		qrc=0
		wait "$qpid" || qrc=$?
		qpid=''
		if ((attempt >= 2 || deadline - SECONDS <= stall)); then
			qrc=124
			return 0
		fi
		attempt=$((attempt + 1))
		pt_log "booting again (attempt $attempt), $((deadline - SECONDS))s left"
	done
}

# pt_exit_if_timed_out TIMEOUT_S: after pt_qemu_run gave no result, exit 124 with one
# line when the boot hung twice or qemu ran out of time; return otherwise.
pt_exit_if_timed_out() {
	if ((pt_boot_stalls >= 2)); then
		pt_log "error: the guest kernel hung while booting, twice (see above)"
		exit 124
	fi
	if ((qrc == 124 || qrc == 137)); then
		pt_log "error: TIMEOUT: the guest gave no result within ${1}s"
		exit 124
	fi
}
