#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pmem-tuned on a fake sysfs/proc/etc tree whose kernel and microcode
# change after the probe: the policy applies all the same (the
# fingerprint alone decides), and the daemon says what changed.
# Usage: test_daemon_environment.sh PMEM_TUNED MKPOLICY
set -u
umask 022
DAEMON=$1
MKPOLICY=$2

T=$(mktemp -d "${TMPDIR:-/tmp}/pt-daemon-env.XXXXXX")
# shellcheck source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"
# shellcheck source=fake-root.sh
. "$(dirname "$0")/fake-root.sh"
cleanup() { if [ "$failed" -eq 0 ]; then rm -rf "$T"; else echo "tree kept in $T"; fi; }
trap cleanup EXIT
tap_on_fail() { [ -f "$T/log" ] && sed 's/^/    | /' "$T/log" | tail -n 15; }
run() { env -u INVOCATION_ID -u JOURNAL_STREAM -u NOTIFY_SOCKET -u WATCHDOG_USEC "$@"; }
is() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }

THRESH=$T/sys/module/alpha/parameters/thresh
COMMON="--sysfs-root $T --etc-root $T"
fake_daemon_knob "$T"
# this machine's CPU, with a microcode line (a guest may have none)
awk 'BEGIN { m = 0 } /^microcode/ { next } { print } /^stepping/ && !m { print "microcode\t: 0x2b000571"; m = 1 }' \
	/proc/cpuinfo > "$T/proc/cpuinfo"

if ! "$MKPOLICY" "$T/etc/pmem-policy.json" --host "$T" --kernel 4096 --movnt 512 2>/dev/null; then
	echo "skipped: the fake root cannot be fingerprinted"
	exit 77
fi
# the probe's environment: mkpolicy records kernel 6.1.0-test; the microcode as cpuinfo has it
sed -i 's/"microcode": *""/"microcode": "0x2b000571"/' "$T/etc/pmem-policy.json"

run "$DAEMON" --oneshot $COMMON > "$T/log" 2>&1
ok "same environment: applied" is "$THRESH" 4096
ok "same environment: no environment change said" sh -c '! grep -q "environment change" "$1"' _ "$T/log"
run "$DAEMON" --restore $COMMON > /dev/null 2>&1

# a kernel update: same platform, so the same policy, and a line that says so
echo 6.2.0-new > "$T/proc/sys/kernel/osrelease"
run "$DAEMON" --oneshot $COMMON > "$T/log" 2>&1
ok "kernel update: oneshot exits 0" test $? -eq 0
ok "kernel update: applied" is "$THRESH" 4096
ok "kernel update: said once, with both kernels" \
	sh -c '[ "$(grep -c "environment change: kernel 6.2.0-new, probed on 6.1.0-test; the policy applies all the same" "$1")" -eq 1 ]' _ "$T/log"
ok "kernel update: the microcode did not change" sh -c '! grep -q "environment change: microcode" "$1"' _ "$T/log"
run "$DAEMON" --restore $COMMON > /dev/null 2>&1

# and a microcode update on top
sed -i 's/^microcode\t: 0x2b000571/microcode\t: 0x2b000600/' "$T/proc/cpuinfo"
run "$DAEMON" --oneshot $COMMON > "$T/log" 2>&1
ok "microcode update: applied" is "$THRESH" 4096
ok "microcode update: said" grep -q "environment change: microcode 0x2b000600, probed on 0x2b000571" "$T/log"
run "$DAEMON" --restore $COMMON > /dev/null 2>&1
ok "restored" is "$THRESH" 768

tap_finish test_daemon_environment
