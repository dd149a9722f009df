#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# PMDK takes the value: libpmem's debug build (Debian: libpmem1-debug, in
# <libdir>/pmdk_dbg) logs "PMEM_MOVNT_THRESHOLD set to N" at PMEM_LOG_LEVEL 3
# when it loads with the environment from pmem-tuned's libpmem.env.
set -u
DAEMON=$1
MKPOLICY=$2
LOADER=${3:-}

DBG=
for d in /usr/lib/*/pmdk_dbg /usr/lib64/pmdk_dbg /usr/lib/pmdk_dbg; do
	[ -e "$d/libpmem.so.1" ] && DBG=$d && break
done
if [ -z "$LOADER" ] || [ -z "$DBG" ]; then
	echo "SKIP: needs libpmem-dev and libpmem1-debug (pmdk_dbg/libpmem.so.1)"
	exit 77
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/pt-pmdk.XXXXXX")
trap 'rm -rf "$T"' EXIT
# shellcheck source=fake-root.sh
. "$(dirname "$0")/fake-root.sh"
fake_daemon_root "$T"
"$MKPOLICY" "$T/etc/pmem-policy.json" --movnt 3072 --env PMEM_MOVDIR64B=0 || exit 1
env -u INVOCATION_ID -u JOURNAL_STREAM "$DAEMON" --oneshot --force \
	--sysfs-root "$T" --etc-root "$T" || exit 1

ENVF=$T/etc/pmem-tuned/libpmem.env
echo "--- $ENVF"
cat "$ENVF"
passed=0
failed=0
# EnvironmentFile= semantics: KEY=VALUE lines, '#' comments
vars=$(grep -v '^#' "$ENVF")
out=$(env -i $vars PMEM_LOG_LEVEL=3 LD_LIBRARY_PATH="$DBG" "$LOADER" 2>&1)
echo "$out" | grep -i "movnt" | sed 's/^/    | /'
if echo "$out" | grep -q "PMEM_MOVNT_THRESHOLD set to 3072"; then
	passed=$((passed + 1))
	echo "ok - libpmem read PMEM_MOVNT_THRESHOLD=3072 from the env file"
else
	failed=$((failed + 1))
	echo "not ok - libpmem did not log the threshold"
fi
if cmp -s "$ENVF" "$T/etc/environment.d/60-pmem-tuned.conf"; then
	passed=$((passed + 1))
	echo "ok - environment.d drop-in carries the same settings"
else
	failed=$((failed + 1))
	echo "not ok - environment.d drop-in differs"
fi
echo "test_pmdk_env: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
