#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The pmem-tuned binary and its event loop against a fake sysfs/etc tree:
# dry-run, platform matching, start -> applied (READY=1), policy replaced
# by atomic rename (inotify), SIGHUP reload, a policy that fails
# validation leaves the applied state, a module appearing later gets its
# knobs within a second, SIGTERM restores, rollback=never, restore after
# SIGKILL (what ExecStopPost=pmem-tuned --restore does).
set -u
# the daemon refuses a knob map or state others could have written
umask 022
DAEMON=$1
MKPOLICY=$2
BUILTIN=$3

T=$(mktemp -d "${TMPDIR:-/tmp}/pt-daemon.XXXXXX")
PID=
LISTENER=
WD=
# shellcheck source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"
# shellcheck source=fake-root.sh
. "$(dirname "$0")/fake-root.sh"

cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	wait 2>/dev/null
	if [ "$failed" -eq 0 ]; then rm -rf "$T"; else echo "tree kept in $T"; fi
}
trap cleanup EXIT

# after a failing check: the daemon's last words
tap_on_fail() { [ -f "$T/log" ] && sed 's/^/    | /' "$T/log" | tail -n 15; }

val() { cat "$1" 2>/dev/null || echo "<absent>"; }
is() { [ "$(val "$1")" = "$2" ]; }
# wait_is FILE VALUE TENTHS
wait_is() { wait_for "$3" is "$1" "$2"; }
wait_grep() { wait_for "$3" grep -qs -- "$2" "$1"; }
alive() { kill -0 "$PID" 2>/dev/null; }
# the journal is no place for a test's log
run() { env -u INVOCATION_ID -u JOURNAL_STREAM -u NOTIFY_SOCKET -u WATCHDOG_USEC "$@"; }

S=$T/sys
THRESH=$S/module/alpha/parameters/thresh
OTHER=$S/module/alpha/parameters/other
WC=$S/block/pmem0/dax/write_cache
GAMMA=$S/module/gamma/parameters/thresh
STATE=$T/run/pmem-tuned/state.json
COMMON="--sysfs-root $T --etc-root $T"

fake_daemon_knob "$T"
echo 0 > "$OTHER"
mkdir -p "$S/devices/ndbus0/region0/namespace0.0/block/pmem0/dax" "$S/block" "$S/bus/nd/devices"
echo cpu_cache > "$S/devices/ndbus0/region0/persistence_domain"
echo 1 > "$S/devices/ndbus0/region0/namespace0.0/block/pmem0/dax/write_cache"
ln -s ../../../namespace0.0 "$S/devices/ndbus0/region0/namespace0.0/block/pmem0/device"
ln -s ../devices/ndbus0/region0/namespace0.0/block/pmem0 "$S/block/pmem0"
cp "$BUILTIN" "$T/etc/pmem-tuned/knobs.d/"

"$MKPOLICY" "$T/etc/pmem-policy.json" --kernel 4096 --movnt 512 || exit 1

# --- dry run: prints, changes nothing -------------------------------------
out=$(run "$DAEMON" --dry-run --force $COMMON 2>&1)
ok "dry-run prints the change" \
	sh -c 'echo "$1" | grep -q "would set /sys/module/alpha/parameters/thresh = 4096 (now 768)"' _ "$out"
ok "dry-run prints the env file" sh -c 'echo "$1" | grep -q "would write .*libpmem.env"' _ "$out"
ok "dry-run leaves the knob" is "$THRESH" 768
ok "dry-run leaves write_cache" is "$WC" 1
ok "dry-run writes no file" test ! -e "$T/etc/pmem-tuned/libpmem.env" -a ! -e "$STATE"
# a malformed state file is set aside by a real run; a dry run leaves it as found
mkdir -p -m 0700 "$(dirname "$STATE")"
printf '{"format": 7' > "$STATE"
out=$(run "$DAEMON" --dry-run --force $COMMON 2>&1)
ok "dry-run names the malformed state" sh -c 'echo "$1" | grep -q "malformed.*left in place"' _ "$out"
ok "dry-run leaves the malformed state where it is" \
	test -f "$STATE" -a ! -e "$STATE.corrupt"
rm -f "$STATE"

# --- platform matching -----------------------------------------------------
out=$(run "$DAEMON" --oneshot $COMMON 2>&1)
rc=$?
ok "foreign policy: oneshot fails" test "$rc" -ne 0
ok "foreign policy: says why" sh -c 'echo "$1" | grep -q "not applied"' _ "$out"
ok "foreign policy: knob untouched" is "$THRESH" 768

if "$MKPOLICY" "$T/etc/pmem-policy.json" --host "$T" --kernel 4096 --movnt 512 2>/dev/null; then
	out=$(run "$DAEMON" --oneshot $COMMON 2>&1)
	ok "policy for this host: applied without --force" is "$THRESH" 4096
	ok "oneshot: status.json says applied" \
		grep -q '"applied":true' "$T/run/pmem-tuned/status.json"
	out=$(run "$DAEMON" --verify $COMMON 2>&1)
	ok "verify after oneshot: no drift" test $? -eq 0
	ok "verify: verify.json says no drift" \
		grep -q '"verified":true.*"drift":0' "$T/run/pmem-tuned/verify.json"
	run "$DAEMON" --restore $COMMON
	ok "--restore after oneshot" is "$THRESH" 768
	ok "--restore: status.json says not applied" \
		grep -q '"applied":false' "$T/run/pmem-tuned/status.json"
	ok "--restore removes the state" test ! -e "$STATE"
else
	echo "# fake root cannot be fingerprinted; host-match case skipped"
fi
"$MKPOLICY" "$T/etc/pmem-policy.json" --kernel 4096 --movnt 512

# a root daemon never takes a policy someone else could have written
if [ "$(id -u)" -eq 0 ]; then
	chmod 0666 "$T/etc/pmem-policy.json"
	out=$(run "$DAEMON" --oneshot --force $COMMON 2>&1)
	ok "writable-by-others policy: refused" sh -c 'echo "$1" | grep -q "refused: owned by uid 0 with mode 0666"' _ "$out"
	ok "writable-by-others policy: knob untouched" is "$THRESH" 768
	chmod 0644 "$T/etc/pmem-policy.json"
fi

# "never switch" (open) is non-temporal up to UINT64_MAX bytes, not "left alone"
"$MKPOLICY" "$T/etc/pmem-policy.json" --kernel open --movnt 512
run "$DAEMON" --oneshot --force $COMMON > "$T/log" 2>&1
ok "open kernel export: written as UINT64_MAX" is "$THRESH" 18446744073709551615
run "$DAEMON" --restore $COMMON
ok "open kernel export: restored" is "$THRESH" 768
"$MKPOLICY" "$T/etc/pmem-policy.json" --kernel 4096 --movnt 512

# --- the daemon ------------------------------------------------------------
NOTIFY=
if command -v python3 >/dev/null 2>&1; then
	NOTIFY=$T/notify.sock
	python3 - "$NOTIFY" > "$T/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    msg = s.recv(4096).decode()
    print(msg.replace("\n", " | "), flush=True)
PY
	LISTENER=$!
	i=0
	while [ ! -S "$NOTIFY" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
fi

# start_daemon [EXTRA-ARG...]
start_daemon() {
	: > "$T/log"
	if [ -n "$NOTIFY" ]; then
		env -u INVOCATION_ID -u JOURNAL_STREAM NOTIFY_SOCKET="$NOTIFY" ${WD:+WATCHDOG_USEC=$WD} \
			"$DAEMON" --force -v $COMMON "$@" > "$T/log" 2>&1 &
	else
		run "$DAEMON" --force -v $COMMON "$@" > "$T/log" 2>&1 &
	fi
	PID=$!
}
stop_daemon() {
	kill -"$1" "$PID"
	wait "$PID"
	rc=$?
	PID=
	return $rc
}

t0=$(date +%s%N)
start_daemon
i=0
while ! is "$THRESH" 4096 && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
t1=$(date +%s%N)
rss=$(sed -n 's/^VmRSS:[[:space:]]*//p' "/proc/$PID/status" 2>/dev/null)
echo "# start to applied: $(( (t1 - t0) / 1000000 )) ms (10 ms polling), RSS ${rss:-?}"
ok "start: knob applied" wait_is "$THRESH" 4096 50
ok "start: write_cache 0 on the cpu_cache region" wait_is "$WC" 0 20
ok "start: libpmem env file" wait_grep "$T/etc/pmem-tuned/libpmem.env" "^PMEM_MOVNT_THRESHOLD=512$" 20
ok "start: originals saved" wait_grep "$STATE" '"original": *"768"' 20
if [ -n "$NOTIFY" ]; then
	ok "start: READY=1 with STATUS=Applied" wait_grep "$T/notify.log" "READY=1 | STATUS=Applied" 20
fi

# policy replaced by atomic rename: inotify alone re-applies
"$MKPOLICY" "$T/etc/.new.json" --kernel 8192 --movnt 512
mv "$T/etc/.new.json" "$T/etc/pmem-policy.json"
ok "rename: re-applied without a signal" wait_is "$THRESH" 8192 20

# rename then SIGHUP (what 'systemctl reload' does after a config push)
"$MKPOLICY" "$T/etc/.new.json" --kernel 12288 --movnt 512
mv "$T/etc/.new.json" "$T/etc/pmem-policy.json"
kill -HUP "$PID"
ok "rename + SIGHUP: re-applied" wait_is "$THRESH" 12288 20
# SIGHUP also rereads the knob map, which is not watched
echo '=42 /sys/module/alpha/parameters/other' > "$T/etc/pmem-tuned/knobs.d/70-late.conf"
kill -HUP "$PID"
ok "SIGHUP: new knob map entry applied" wait_is "$OTHER" 42 20
if [ -n "$NOTIFY" ]; then
	ok "SIGHUP: RELOADING=1 then READY=1" wait_grep "$T/notify.log" "RELOADING=1" 10
	ok "SIGHUP: RELOADING=1 with MONOTONIC_USEC=" \
		wait_grep "$T/notify.log" "RELOADING=1 | MONOTONIC_USEC=[0-9]" 10
fi

# a policy that fails validation leaves everything as it is
printf '{"schema": "pmem-policy/1", "targets": "none"}' > "$T/etc/.bad.json"
mv "$T/etc/.bad.json" "$T/etc/pmem-policy.json"
ok "invalid policy: one clear log line" wait_grep "$T/log" "Policy rejected: .*pmem-policy.json" 20
ok "invalid policy: still running" alive
ok "invalid policy: knob kept" is "$THRESH" 12288
ok "invalid policy: write_cache kept" is "$WC" 0
ok "invalid policy: env file kept" grep -q "^PMEM_MOVNT_THRESHOLD=512$" "$T/etc/pmem-tuned/libpmem.env"
printf '{not json' > "$T/etc/pmem-policy.json"
kill -HUP "$PID"
sleep 0.3
ok "unparsable policy + SIGHUP: knob kept" is "$THRESH" 12288
if [ -n "$NOTIFY" ]; then
	ok "invalid policy: STATUS says so" wait_grep "$T/notify.log" "STATUS=Policy rejected" 10
fi

# a module loading after start gets its knobs within a second
mkdir -p "$T/.gamma/parameters"
echo 1 > "$T/.gamma/parameters/thresh"
mv "$T/.gamma" "$S/module/gamma"
ok "module appearing: knob set within 1 s" wait_is "$GAMMA" 12288 10
if [ -n "$NOTIFY" ]; then
	ok "module appearing: STATUS says so" wait_grep "$T/notify.log" "STATUS=Applied .*last: module gamma, 1 set" 10
fi

# the built-in dm-writecache line found no consumer all along: said once
NOCONS="50-builtin.conf:[0-9]*: kernel.threshold_bytes has no consumer here"
ok "no patched dm-writecache: said once in the daemon's lifetime" \
	sh -c '[ "$(grep -c "$1" "$2")" -eq 1 ]' _ "$NOCONS" "$T/log"
# the patched module loading later gets the policy's value through that line
mkdir -p "$T/.dmwc/parameters"
echo 768 > "$T/.dmwc/parameters/nt_max_bytes"
mv "$T/.dmwc" "$S/module/dm_writecache"
ok "dm-writecache appearing: nt_max_bytes set" \
	wait_is "$S/module/dm_writecache/parameters/nt_max_bytes" 12288 10

# SIGTERM: every original back
stop_daemon TERM
ok "SIGTERM: dm-writecache's nt_max_bytes back to 768" \
	is "$S/module/dm_writecache/parameters/nt_max_bytes" 768
rm -rf "$S/module/dm_writecache"
ok "SIGTERM: exit status 0" test $? -eq 0
ok "SIGTERM: knob restored" is "$THRESH" 768
ok "SIGTERM: late module's knob restored" is "$GAMMA" 1
ok "SIGTERM: knob-map knob restored" is "$OTHER" 0
ok "SIGTERM: write_cache restored" is "$WC" 1
ok "SIGTERM: env file removed" test ! -e "$T/etc/pmem-tuned/libpmem.env"
ok "SIGTERM: environment.d drop-in removed" test ! -e "$T/etc/environment.d/60-pmem-tuned.conf"
ok "SIGTERM: state emptied" test ! -e "$STATE"
if [ -n "$NOTIFY" ]; then
	ok "SIGTERM: STOPPING=1" wait_grep "$T/notify.log" "STOPPING=1" 10
fi

# rollback=never
"$MKPOLICY" "$T/etc/pmem-policy.json" --kernel 4096 --movnt 512
echo "rollback = never" > "$T/etc/pmem-tuned/pmem-tuned.conf"
start_daemon
ok "rollback=never: applied" wait_is "$THRESH" 4096 50
stop_daemon TERM
ok "rollback=never: values stay after stop" is "$THRESH" 4096
ok "rollback=never: originals kept" grep -Eq '"original": *"768"' "$STATE"
run "$DAEMON" $COMMON --restore
ok "rollback=never: --restore honours it" is "$THRESH" 4096
run "$DAEMON" $COMMON --restore --force
ok "rollback=never: --restore --force restores" is "$THRESH" 768
rm "$T/etc/pmem-tuned/pmem-tuned.conf"

# a crash: ExecStopPost=pmem-tuned --restore puts things back
start_daemon
ok "crash: applied" wait_is "$THRESH" 4096 50
stop_daemon KILL
ok "crash: values left by the dead daemon" is "$THRESH" 4096
run "$DAEMON" $COMMON --restore
ok "crash: --restore from the saved state" is "$THRESH" 768
ok "crash: write_cache restored" is "$WC" 1
ok "crash: env file removed" test ! -e "$T/etc/pmem-tuned/libpmem.env"

# no policy yet (first boot, probe still running): ready, waiting, then applied
rm -f "$T/etc/pmem-policy.json"
[ -n "$NOTIFY" ] && : > "$T/notify.log"
WD=300000
start_daemon
if [ -n "$NOTIFY" ]; then
	ok "no policy: READY=1 with STATUS=No policy" wait_grep "$T/notify.log" "READY=1 | STATUS=No policy" 20
	ok "watchdog: WATCHDOG=1 pings" wait_grep "$T/notify.log" "WATCHDOG=1" 10
fi
ok "no policy: running" alive
ok "no policy: nothing applied" is "$THRESH" 768
"$MKPOLICY" "$T/etc/.probe.json" --kernel 4096 --movnt 512
mv "$T/etc/.probe.json" "$T/etc/pmem-policy.json"
ok "no policy: the probe's policy is applied when it lands" wait_is "$THRESH" 4096 20
stop_daemon TERM
ok "no policy: restored on stop" is "$THRESH" 768
WD=

# the policy's directory replaced by another (a config tool swapping it in),
# then removed and created again: the watch follows the path, not the inode
mkdir -p "$T/fleet"
"$MKPOLICY" "$T/fleet/p.json" --kernel 4096 --movnt 512
start_daemon --policy "$T/fleet/p.json"
ok "policy dir: applied" wait_is "$THRESH" 4096 50
mkdir "$T/fleet.new"
"$MKPOLICY" "$T/fleet.new/p.json" --kernel 8192 --movnt 512
mv "$T/fleet" "$T/fleet.old"
mv "$T/fleet.new" "$T/fleet"
ok "policy dir replaced: its policy applied" wait_is "$THRESH" 8192 20
"$MKPOLICY" "$T/fleet/.n.json" --kernel 12288 --movnt 512
mv "$T/fleet/.n.json" "$T/fleet/p.json"
ok "policy dir replaced: a rename in the new one is seen" wait_is "$THRESH" 12288 20
rm -rf "$T/fleet" "$T/fleet.old"
sleep 0.3
mkdir "$T/fleet"
"$MKPOLICY" "$T/fleet/p.json" --kernel 16384 --movnt 512
ok "policy dir removed and created again: applied" wait_is "$THRESH" 16384 30
ok "policy dir: still running" alive
stop_daemon TERM
ok "policy dir: restored on stop" is "$THRESH" 768

# policy text (a fingerprint with newlines, named in STATUS=) adds no sd_notify field
if [ -n "$NOTIFY" ]; then
	"$MKPOLICY" "$T/etc/pmem-policy.json" --kernel 4096 --movnt 512
	sed -i 's/"sha256:[0-9a-f]*"/"sha256:0\\nWATCHDOG=trigger\\nMAINPID=1"/' \
		"$T/etc/pmem-policy.json"
	: > "$T/notify.log"
	env -u INVOCATION_ID -u JOURNAL_STREAM NOTIFY_SOCKET="$NOTIFY" \
		"$DAEMON" $COMMON > "$T/log" 2>&1 &
	PID=$!
	ok "fingerprint with newlines: READY=1 with STATUS=Policy rejected" \
		wait_grep "$T/notify.log" "READY=1 | STATUS=Policy rejected" 20
	ok "fingerprint with newlines: no WATCHDOG=trigger field" \
		sh -c '! grep -q "| WATCHDOG=trigger" "$1"' _ "$T/notify.log"
	ok "fingerprint with newlines: no MAINPID= field" sh -c '! grep -q "| MAINPID=" "$1"' _ "$T/notify.log"
	stop_daemon TERM
	ok "fingerprint with newlines: nothing applied" is "$THRESH" 768
fi

# a symlinked policy (a fleet tool's layout): replacing the target reloads,
# and so does pointing the link elsewhere
mkdir -p "$T/fleet2"
"$MKPOLICY" "$T/fleet2/a.json" --kernel 4096 --movnt 512
ln -s ../fleet2/a.json "$T/etc/linked.json"
start_daemon --policy "$T/etc/linked.json"
ok "symlinked policy: applied" wait_is "$THRESH" 4096 50
"$MKPOLICY" "$T/fleet2/.n.json" --kernel 8192 --movnt 512
mv "$T/fleet2/.n.json" "$T/fleet2/a.json"
ok "symlinked policy: target replaced, re-applied" wait_is "$THRESH" 8192 20
"$MKPOLICY" "$T/fleet2/b.json" --kernel 12288 --movnt 512
ln -sfn ../fleet2/b.json "$T/etc/linked.json"
ok "symlinked policy: link pointed elsewhere, re-applied" wait_is "$THRESH" 12288 20
"$MKPOLICY" "$T/fleet2/.n.json" --kernel 16384 --movnt 512
mv "$T/fleet2/.n.json" "$T/fleet2/b.json"
ok "symlinked policy: the new target replaced, re-applied" wait_is "$THRESH" 16384 20

# one instance at a time: a second one refuses, saying why, and changes nothing
run "$DAEMON" --force $COMMON --policy "$T/etc/linked.json" --oneshot > "$T/second" 2>&1
ok "second instance: exits 1" test $? -eq 1
ok "second instance: says another one holds the state" grep -q "another pmem-tuned" "$T/second"
ok "second instance: first one's originals intact" grep -Eq '"original": *"768"' "$STATE"
stop_daemon TERM
ok "symlinked policy: restored on stop" is "$THRESH" 768

# --restore exits 1 when something could not be restored
mkdir -p "$T/run/pmem-tuned"
cat > "$STATE" <<'EOF2'
{"format":"pmem-tuned-state/1","entries":[
 {"sink":"tuned","key":"/sys/module/alpha/parameters/thresh","existed":true,"original":"1"},
 {"sink":"sysfs","key":"/sys/module/alpha/parameters/thresh","existed":true,"original":"768"}]}
EOF2
chmod 600 "$STATE"
echo 4096 > "$THRESH"
run "$DAEMON" $COMMON --restore > "$T/restore" 2>&1
ok "--restore with an invalid entry: exits 1" test $? -eq 1
ok "--restore with an invalid entry: says so" grep -q "no sink 'tuned'.*dropped" "$T/restore"
ok "--restore with an invalid entry: the valid one restored" is "$THRESH" 768
run "$DAEMON" $COMMON --restore
ok "--restore with nothing left: exits 0" test $? -eq 0

# --- the instance lock fails closed -----------------------------------------
# A lock the daemon cannot trust (a second name of another file, a link, a
# FIFO, a directory, someone else's, a state directory that is a file) is
# refused like one another instance holds: exit 1, one line naming it,
# nothing applied; two daemons started on it both refuse.
LOCK=$T/run/pmem-tuned/lock
"$MKPOLICY" "$T/etc/pmem-policy.json" --kernel 4096 --movnt 512
fresh_state() { rm -rf "$T/run/pmem-tuned" && mkdir -m 700 "$T/run/pmem-tuned"; }
plant_hardlink() { ln "$T/elsewhere" "$LOCK"; }
plant_symlink() { ln -s "$T/elsewhere" "$LOCK"; }
plant_fifo() { mkfifo -m 600 "$LOCK"; }
plant_directory() { mkdir -m 700 "$LOCK"; }
plant_group_writable() { : > "$LOCK" && chmod 660 "$LOCK"; }
plant_foreign() { : > "$LOCK" && chmod 600 "$LOCK" && chown 65534 "$LOCK"; }
plant_state_file() { rm -rf "$T/run/pmem-tuned" && : > "$T/run/pmem-tuned"; }
one_refusal() { [ "$(wc -l < "$1")" -eq 1 ] && grep -qF "$LOCK" "$1" && grep -q "refusing to run" "$1"; }
both_gone() { ! kill -0 "$1" 2>/dev/null && ! kill -0 "$2" 2>/dev/null; }
lock_case() {
	fresh_state
	echo precious > "$T/elsewhere"
	chmod 600 "$T/elsewhere"
	"plant_$1"
	run "$DAEMON" --force $COMMON --oneshot > "$T/lock.out" 2>&1
	ok "lock $1: --oneshot exits 1" test $? -eq 1
	ok "lock $1: --oneshot says why in one line naming the lock" one_refusal "$T/lock.out"
	ok "lock $1: --oneshot applied nothing" is "$THRESH" 768
	# two daemons on the one state directory: neither runs
	run "$DAEMON" --force $COMMON > "$T/lock.a" 2>&1 &
	pa=$!
	run "$DAEMON" --force $COMMON > "$T/lock.b" 2>&1 &
	pb=$!
	i=0
	while ! both_gone "$pa" "$pb" && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	ok "lock $1: two daemons, neither runs" both_gone "$pa" "$pb"
	kill "$pa" "$pb" 2>/dev/null
	wait "$pa"
	ra=$?
	wait "$pb"
	rb=$?
	ok "lock $1: two daemons, both exit 1 (they did $ra, $rb)" test "$ra" -eq 1 -a "$rb" -eq 1
	ok "lock $1: the first says why in one line" one_refusal "$T/lock.a"
	ok "lock $1: the second says why in one line" one_refusal "$T/lock.b"
	ok "lock $1: the file elsewhere untouched" is "$T/elsewhere" precious
	ok "lock $1: no state written" test ! -e "$STATE"
	echo "# lock $1: $(cat "$T/lock.out")"
	rm -rf "$T/run/pmem-tuned"
}
# the same setup with a lock of its own works: what is refused is the lock
fresh_state
run "$DAEMON" --force $COMMON --oneshot > "$T/lock.out" 2>&1
ok "lock control: --oneshot with a fresh lock applies" is "$THRESH" 4096
run "$DAEMON" $COMMON --restore
ok "lock control: restored" is "$THRESH" 768
for kind in hardlink symlink fifo directory group_writable state_file; do
	lock_case "$kind"
done
if [ "$(id -u)" -eq 0 ]; then
	lock_case foreign
fi
fresh_state

tap_finish test_daemon
