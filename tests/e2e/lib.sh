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
