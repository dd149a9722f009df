# shellcheck shell=sh
# Helpers for guest test scripts (busybox sh). Source with: . /pt-e2e/lib.sh
# The guest has busybox, ndctl, daxctl, jq, mke2fs/mkfs.ext4 and the --file binaries.
#
# Environment set by run-guest.sh: PT_E2E_KVER, PT_E2E_LABELS (1 labelled, 0 label-less),
# PT_E2E_PERSISTENCE (cpu, mem-ctrl or empty), PT_E2E_NVDIMM_SIZE, PT_E2E_NVDIMMS.

PT_E2E_FAILS=0

# pt_fail MESSAGE: report a failed check and end the script with status 1.
pt_fail() {
	echo "FAIL: $*"
	exit 1
}

# pt_check DESCRIPTION COMMAND...: runs COMMAND; prints ok or FAIL; counts failures
# (the script goes on; end with pt_done).
pt_check() {
	_d=$1
	shift
	if "$@"; then
		echo "ok: $_d"
	else
		echo "FAIL: $_d (command: $*)"
		PT_E2E_FAILS=$((PT_E2E_FAILS + 1))
	fi
}

# pt_expect_eq DESCRIPTION EXPECTED ACTUAL
pt_expect_eq() {
	if [ "$2" = "$3" ]; then
		echo "ok: $1 ($3)"
	else
		echo "FAIL: $1: expected '$2', got '$3'"
		PT_E2E_FAILS=$((PT_E2E_FAILS + 1))
	fi
}

# pt_between N LOW HIGH: LOW <= N <= HIGH (integers)
pt_between() {
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

# pt_done: exit 1 if any pt_check failed, 0 otherwise.
pt_done() {
	if [ "$PT_E2E_FAILS" -ne 0 ]; then
		echo "$PT_E2E_FAILS check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}

# pt_run COMMAND...: echoes the command, runs it, output on the console; keeps its status.
pt_run() {
	echo "+ $*"
	"$@"
}

# pt_json VAR COMMAND...: runs COMMAND (echoed), stores its stdout in VAR and prints it;
# fails the script when COMMAND fails.
pt_json() {
	_v=$1
	shift
	echo "+ $*"
	_out=$("$@") || pt_fail "$* exited with $?"
	printf '%s\n' "$_out"
	eval "$_v=\$_out"
}

# pt_export FILE [NAME]: hands FILE to the host (run-guest.sh --outdir DIR writes it as
# DIR/NAME) through the second serial port, which kernel messages do not touch.
pt_export() {
	[ -c /dev/ttyS1 ] || pt_fail "pt_export: no /dev/ttyS1"
	_n=${2:-$(basename "$1")}
	{
		echo "PT_E2E_FILE_BEGIN $_n"
		base64 "$1"
		echo "PT_E2E_FILE_END"
	} >/dev/ttyS1
}

# pt_wait_for PATH [TENTHS]: waits for PATH to exist (default 10 s).
pt_wait_for() {
	_i=0
	while [ ! -e "$1" ] && [ "$_i" -lt "${2:-100}" ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -e "$1" ]
}

# pt_regions: `ndctl list -RN` as a JSON array of regions (each with its "namespaces",
# possibly absent), whatever shape ndctl chose for the output.
pt_regions() {
	ndctl list -RN "$@" | jq -c 'if type == "array" then . elif has("regions") then .regions
		elif has("dev") then [.] else [] end'
}

# pt_namespace NAME: `ndctl list -N -n NAME` as one JSON object ({} when absent).
pt_namespace() {
	ndctl list -N -n "$1" | jq -c 'if type == "array" then (.[0] // {}) else . end'
}

# pt_persistence_name DOMAIN: the persistence_domain string ndctl shows for qemu's
# nvdimm-persistence=DOMAIN (empty DOMAIN: not set).
pt_persistence_name() {
	case $1 in
	cpu) echo cpu_cache ;;
	mem-ctrl) echo memory_controller ;;
	*) echo unknown ;;
	esac
}
