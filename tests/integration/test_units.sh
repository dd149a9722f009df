#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd units: 'systemd-analyze verify' clean; no boot ordering that
# makes the daemon or multi-user.target wait for the probe; each unit's
# 'systemd-analyze security --offline=true' exposure at most 2.0 (printed;
# skipped, exit 77, where systemd-analyze has no offline mode).
# The units are the configured ones with the binaries' install paths
# pointed at this build (verify wants the executables to exist).
set -u
DAEMON=$1
shift
if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "SKIP: systemd-analyze not installed"
	exit 77
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/pt-units.XXXXXX")
trap 'rm -rf "$T"' EXIT
# pmem-tune may not be built here: a stand-in with the same path shape
PROBE=$(dirname "$DAEMON")/../probe/pmem-tune
if [ ! -x "$PROBE" ]; then
	PROBE=$T/pmem-tune
	printf '#!/bin/sh\nexit 0\n' > "$PROBE"
	chmod +x "$PROBE"
fi
PROBE=$(cd "$(dirname "$PROBE")" && pwd)/$(basename "$PROBE")

for u in "$@"; do
	sed -e "s|^\(Exec[A-Za-z]*=\)[^ ]*/pmem-tuned|\1$DAEMON|" \
	    -e "s|/[^ '=]*/pmem-tune |$PROBE |g" "$u" > "$T/$(basename "$u")"
done
passed=0
failed=0

out=$(cd "$T" && systemd-analyze verify --man=no ./*.service 2>&1)
rc=$?
# a container without systemd as PID 1 cannot resolve some runtime things;
# only messages about our own files count
ours=$(echo "$out" | grep -E "pmem-tune" || true)
[ -n "$out" ] && echo "$out" | sed 's/^/    verify| /'
if [ $rc -eq 0 ] && [ -z "$ours" ]; then
	passed=$((passed + 1))
	echo "ok - systemd-analyze verify: clean"
else
	failed=$((failed + 1))
	echo "not ok - systemd-analyze verify (rc=$rc)"
fi

# Boot never waits for a probe: the daemon neither wants nor follows the
# probe unit, and the probe unit, ordered after multi-user.target, is not
# ordered before the daemon (that would hold the daemon's start job).
check_line() {	# check_line DESCRIPTION yes|no UNIT REGEX
	if grep -Eq "$4" "$T/$3"; then has=yes; else has=no; fi
	if [ "$has" = "$2" ]; then
		passed=$((passed + 1))
		echo "ok - $1"
	else
		failed=$((failed + 1))
		echo "not ok - $1"
	fi
}
check_line "pmem-tuned.service: no Wants= on the probe" no pmem-tuned.service \
	'^(Wants|Requires|BindsTo)=.*pmem-tune-probe'
check_line "pmem-tuned.service: not After= the probe" no pmem-tuned.service \
	'^After=.*pmem-tune-probe'
check_line "pmem-tune-probe.service: not Before= the daemon" no pmem-tune-probe.service \
	'^Before=.*pmem-tuned'
check_line "pmem-tune-probe.service: After=multi-user.target" yes pmem-tune-probe.service \
	'^After=.*multi-user\.target'
check_line "pmem-tune-probe.service: Type=exec (its start job ends when it runs)" yes \
	pmem-tune-probe.service '^Type=exec$'
# systemd-udev-settle.service is deprecated (it waits for every device of the
# host): the probe waits for the persistent-memory devices alone
check_line "pmem-tune-probe.service: no ordering or dependency on systemd-udev-settle" no \
	pmem-tune-probe.service '^(After|Wants|Requires|BindsTo)=.*systemd-udev-settle'
check_line "pmem-tune-probe.service: wants pmem-tune-devices.service" yes \
	pmem-tune-probe.service '^Wants=.*pmem-tune-devices\.service'
check_line "pmem-tune-probe.service: after pmem-tune-devices.service" yes \
	pmem-tune-probe.service '^After=.*pmem-tune-devices\.service'
check_line "pmem-tune-devices.service: waits for the nd and cxl buses' devices" yes \
	pmem-tune-devices.service '^[[:space:]]+--subsystem-match=nd --subsystem-match=cxl$'
check_line "pmem-tune-devices.service: and first for the NVDIMM and CXL firmware devices" yes \
	pmem-tune-devices.service 'sysname-match=ACPI0012:\* --sysname-match=ACPI0017:\*$'
check_line "pmem-tune-devices.service: triggers only where the probe may run" yes \
	pmem-tune-devices.service '^ExecCondition=.*pmem-tuned --need-probe$'
check_line "pmem-tune-devices.service: no systemd-udev-settle either" no \
	pmem-tune-devices.service '^(After|Wants|Requires|BindsTo)=.*systemd-udev-settle'

# --offline (systemd 250): the score of the file, not of a loaded unit
if ! (cd "$T" && systemd-analyze security --offline=true pmem-tuned.service >/dev/null 2>&1); then
	echo "# SKIP: systemd-analyze security has no --offline mode here" \
		"($(systemd-analyze --version | head -n1))"
	echo "test_units: $passed passed, $failed failed (exposure not measured)"
	[ "$failed" -eq 0 ] || exit 1
	exit 77
fi
for unit in pmem-tuned.service pmem-tune-probe.service; do
	score=$(cd "$T" && systemd-analyze security --offline=true "$unit" 2>&1 |
		sed -n "s/.*Overall exposure level for $unit: \([0-9.]*\).*/\1/p")
	if [ -n "$score" ] && awk "BEGIN { exit !($score <= 2.0) }"; then
		passed=$((passed + 1))
		echo "ok - $unit exposure $score <= 2.0"
	else
		failed=$((failed + 1))
		echo "not ok - $unit exposure '${score:-?}' > 2.0"
		(cd "$T" && systemd-analyze security --offline=true --no-pager "$unit" 2>&1 |
		 grep '^✗' | sed 's/^/    /')
	fi
done
echo "test_units: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
