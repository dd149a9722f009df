#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pmem-tuned --verify is a read-only answer: its exit status says whether
# the knobs hold the policy, on a host where no daemon ever ran as on one
# where it did.  The verify.json it keeps for pmem-tune --metrics is
# written where the state directory exists and is ours; where it is
# missing or not ours nothing is written and nothing said; a write that
# fails there is a warning, never the answer.  The state directory is not
# read either: a state others could have written is not moved aside.
# Usage: test_daemon_verify.sh PMEM_TUNED MKPOLICY
set -u
umask 022
DAEMON=$1
MKPOLICY=$2

T=$(mktemp -d "${TMPDIR:-/tmp}/pt-daemon-verify.XXXXXX")
# shellcheck source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"
# shellcheck source=fake-root.sh
. "$(dirname "$0")/fake-root.sh"
cleanup() {
	if [ "$failed" -eq 0 ]; then rm -rf "$T"; else echo "tree kept in $T"; fi
}
trap cleanup EXIT
tap_on_fail() { [ -f "$T/log" ] && sed 's/^/    | /' "$T/log" | tail -n 10; }
run() { env -u INVOCATION_ID -u JOURNAL_STREAM -u NOTIFY_SOCKET -u WATCHDOG_USEC "$@"; }
says() { grep -q -- "$1" "$T/log"; }
silent() { ! grep -q -- "$1" "$T/log"; }

THRESH=$T/sys/module/alpha/parameters/thresh
RUN=$T/run/pmem-tuned
COMMON="--verify --no-bus --sysfs-root $T --etc-root $T"
fake_daemon_knob "$T" ""
rmdir "$T/run"	# --verify creates nothing: not even where its state would go
if ! "$MKPOLICY" "$T/etc/pmem-policy.json" --host "$T" --kernel 4096 --no-libpmem --no-glibc \
	2>/dev/null; then
	echo "skipped: the fake root cannot be fingerprinted"
	exit 77
fi

# --- a host where no daemon ran: no run directory -------------------------
echo 4096 > "$THRESH"
run "$DAEMON" $COMMON > "$T/log" 2>&1
ok "no state directory, knobs match: exit 0" test $? -eq 0
ok "no state directory: says nothing about the status file" silent "status"
ok "no state directory: none created" test ! -e "$T/run"

echo 768 > "$THRESH"
run "$DAEMON" $COMMON > "$T/log" 2>&1
ok "no state directory, a knob differs: exit 1" test $? -eq 1
ok "a knob differs: says which" says "thresh is 768, policy says 4096"
ok "a knob differs: nothing about the status file" silent "status"
ok "a knob differs: knob left as found" test "$(cat "$THRESH")" = 768

# --- the daemon's directory: the status is kept there ----------------------
mkdir -p -m 0700 "$RUN"
echo 4096 > "$THRESH"
run "$DAEMON" $COMMON > "$T/log" 2>&1
ok "state directory: exit 0" test $? -eq 0
ok "state directory: verify.json says verified, no drift" \
	grep -q '"verified":true.*"drift":0' "$RUN/verify.json"
echo 768 > "$THRESH"
run "$DAEMON" $COMMON > "$T/log" 2>&1
ok "state directory, a knob differs: exit 1" test $? -eq 1
ok "state directory: verify.json counts the drift" grep -q '"drift":1' "$RUN/verify.json"

# a write that fails where the directory is ours: a warning, not the answer
rm -f "$RUN/verify.json"
mkdir "$RUN/verify.json"
echo 4096 > "$THRESH"
run "$DAEMON" $COMMON > "$T/log" 2>&1
ok "status file cannot be written: still exit 0" test $? -eq 0
ok "status file cannot be written: a warning naming it" says "verify.json: cannot write the status"
rmdir "$RUN/verify.json"

# --- a directory that is not ours: nothing written, nothing said, nothing moved
chmod 0777 "$RUN"
echo '{}' > "$RUN/state.json"
run "$DAEMON" $COMMON > "$T/log" 2>&1
ok "others' state directory: exit 0" test $? -eq 0
ok "others' state directory: no verify.json written" test ! -e "$RUN/verify.json"
ok "others' state directory: not a word about it" silent "$RUN"
ok "others' state directory: its state left where it is" \
	test -e "$RUN/state.json" -a ! -e "$RUN/state.json.untrusted"
chmod 0700 "$RUN"
rm -f "$RUN/state.json"

# a user asking where root keeps the status: readable answer, no write
AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && $AS_NOBODY test -x "$DAEMON"; then
	chmod 0755 "$RUN"
	chmod -R a+rX "$T"
	echo 768 > "$THRESH"
	run $AS_NOBODY "$DAEMON" $COMMON > "$T/log" 2>&1
	rc=$?
	ok "another user: the answer (exit 1, a knob differs)" test "$rc" -eq 1
	ok "another user: no verify.json written" test ! -e "$RUN/verify.json"
	ok "another user: not a word about the status file" silent "status"
else
	echo "# not root, or $DAEMON not another user's to run: another user's view not checked"
fi

tap_finish test_daemon_verify
