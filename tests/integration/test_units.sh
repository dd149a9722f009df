#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd units: 'systemd-analyze verify' clean, and the daemon's
# 'systemd-analyze security --offline=true' exposure at most 2.0 (printed).
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

for unit in pmem-tuned.service pmem-tune-probe.service; do
	line=$(cd "$T" && systemd-analyze security --offline=true "$unit" 2>&1 |
	       grep "Overall exposure level")
	echo "# $unit: ${line#→ }"
done
score=$(cd "$T" && systemd-analyze security --offline=true pmem-tuned.service 2>&1 |
	sed -n 's/.*Overall exposure level for pmem-tuned.service: \([0-9.]*\).*/\1/p')
if [ -n "$score" ] && awk "BEGIN { exit !($score <= 2.0) }"; then
	passed=$((passed + 1))
	echo "ok - pmem-tuned.service exposure $score <= 2.0"
else
	failed=$((failed + 1))
	echo "not ok - pmem-tuned.service exposure '${score:-?}' > 2.0"
fi
echo "test_units: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
