#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pmem-tuned's own state metrics (metrics_file= in pmem-tuned.conf) on a
# fake sysfs/proc/etc tree: off by default; written after every apply,
# module pass and restore; knob drift and the environment in them;
# promtool-clean beside pmem-tune --metrics' file; never through a
# symbolic link, into a directory others can write, or over a file that
# is not a regular one.
# Usage: test_daemon_metrics.sh PMEM_TUNED MKPOLICY PMEM_TUNE
set -u
umask 022
DAEMON=$1
MKPOLICY=$2
TUNE=$3

T=$(mktemp -d "${TMPDIR:-/tmp}/pt-daemon-metrics.XXXXXX")
PID=
# shellcheck source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"
# shellcheck source=fake-root.sh
. "$(dirname "$0")/fake-root.sh"
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	if [ "$failed" -eq 0 ]; then rm -rf "$T"; else echo "tree kept in $T"; fi
}
trap cleanup EXIT
tap_on_fail() {
	[ -f "$T/log" ] && sed 's/^/    | /' "$T/log" | tail -n 10
	[ -f "$PROM" ] && sed 's/^/    > /' "$PROM" | grep -v '^    > #'
}
run() { env -u INVOCATION_ID -u JOURNAL_STREAM -u NOTIFY_SOCKET -u WATCHDOG_USEC "$@"; }
is() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }
has() { grep -qx -- "$2" "$1" 2>/dev/null; }
wait_has() { wait_for "$3" has "$1" "$2"; }
promtool_ok() {
	command -v promtool >/dev/null || { echo "# promtool missing: not checked"; return 0; }
	promtool check metrics < "$1" > "$T/promtool" 2>&1
}

THRESH=$T/sys/module/alpha/parameters/thresh
COMMON="--sysfs-root $T --etc-root $T"
CONF=$T/etc/pmem-tuned/pmem-tuned.conf
DIR=$T/var/lib/prometheus/node-exporter
PROM=$DIR/pmem_tuned.prom
fake_daemon_knob "$T"
mkdir -p "$DIR"
if ! "$MKPOLICY" "$T/etc/pmem-policy.json" --host "$T" --kernel 4096 --no-libpmem --no-glibc \
	2>/dev/null; then
	echo "skipped: the fake root cannot be fingerprinted"
	exit 77
fi

# off by default
run "$DAEMON" --oneshot $COMMON > "$T/log" 2>&1
ok "default: applied" is "$THRESH" 4096
ok "default: no metrics file" test -z "$(ls -A "$DIR")"
ok "default: status.json names none" sh -c '! grep -q metrics_file "$1"' _ "$T/run/pmem-tuned/status.json"
run "$DAEMON" --restore $COMMON > /dev/null 2>&1

# turned on: written by the apply, atomically (nothing else left in the directory)
echo "metrics_file = /var/lib/prometheus/node-exporter/pmem_tuned.prom" > "$CONF"
run "$DAEMON" --oneshot $COMMON > "$T/log" 2>&1
ok "oneshot: applied" is "$THRESH" 4096
ok "oneshot: applied 1" has "$PROM" "pmem_tuned_policy_applied 1"
ok "oneshot: 1 knob set" has "$PROM" 'pmem_tuned_knobs{result="set"} 1'
ok "oneshot: no knob drift" has "$PROM" "pmem_tuned_apply_drift_knobs 0"
ok "oneshot: no environment change" has "$PROM" 'pmem_tuned_environment_changed{what="kernel"} 0'
ok "oneshot: an apply time" grep -Eq '^pmem_tuned_last_apply_timestamp_seconds [0-9]{10}$' "$PROM"
ok "oneshot: mode 0644" test "$(stat -c %a "$PROM")" = 644
ok "oneshot: nothing else in the directory" test "$(ls -A "$DIR")" = pmem_tuned.prom
ok "oneshot: promtool takes it" promtool_ok "$PROM"
ok "oneshot: status.json names it" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["metrics_file"] == sys.argv[2]
' "$T/run/pmem-tuned/status.json" /var/lib/prometheus/node-exporter/pmem_tuned.prom
# pmem-tune --metrics leaves the apply's metrics to it: both files read as one
"$TUNE" --metrics "$DIR/pmem-tune.prom" --daemon-state "$T/run/pmem-tuned" --insecure \
	"$T/etc/pmem-policy.json" > /dev/null 2>&1
ok "--metrics beside it: no pmem_tuned_policy_applied of its own" \
	sh -c '! grep -q "^pmem_tuned_policy_applied" "$1"' _ "$DIR/pmem-tune.prom"
cat "$DIR/pmem-tune.prom" "$PROM" > "$T/both.prom"
ok "--metrics beside it: promtool takes both as one" promtool_ok "$T/both.prom"
rm -f "$DIR/pmem-tune.prom"
run "$DAEMON" --restore $COMMON > /dev/null 2>&1
ok "--restore: applied 0" has "$PROM" "pmem_tuned_policy_applied 0"
ok "--restore: nothing about the last apply" sh -c '! grep -q "^pmem_tuned_knobs" "$1"' _ "$PROM"

# a kernel update: an environment change, a label without a version
echo 6.2.0-new > "$T/proc/sys/kernel/osrelease"
run "$DAEMON" --oneshot $COMMON > "$T/log" 2>&1
ok "kernel update: applied all the same" is "$THRESH" 4096
ok "kernel update: environment changed" has "$PROM" 'pmem_tuned_environment_changed{what="kernel"} 1'
ok "kernel update: no version in the file" sh -c '! grep -q "6\.[12]\.0" "$1"' _ "$PROM"
run "$DAEMON" --restore $COMMON > /dev/null 2>&1

# the daemon: knob drift found and set right again on the next apply (SIGHUP)
env -u INVOCATION_ID -u JOURNAL_STREAM -u NOTIFY_SOCKET -u WATCHDOG_USEC \
	"$DAEMON" $COMMON > "$T/log" 2>&1 &
PID=$!
ok "daemon: applied" wait_has "$PROM" "pmem_tuned_policy_applied 1" 50
ok "daemon: knob set" is "$THRESH" 4096
echo 1000 > "$THRESH"
kill -HUP "$PID"
ok "daemon: drift counted at the next apply" wait_has "$PROM" "pmem_tuned_apply_drift_knobs 1" 30
ok "daemon: the knob set again" is "$THRESH" 4096
kill -HUP "$PID"
ok "daemon: no drift at the apply after" wait_has "$PROM" "pmem_tuned_apply_drift_knobs 0" 30
kill -TERM "$PID"
wait "$PID"
PID=
ok "daemon stopped: applied 0" has "$PROM" "pmem_tuned_policy_applied 0"
ok "daemon stopped: knob restored" is "$THRESH" 768

# refusals: each said once, nothing written there
chmod 0775 "$DIR"
rm -f "$PROM"
run "$DAEMON" --oneshot $COMMON > "$T/log" 2>&1
ok "group-writable directory: applied all the same" is "$THRESH" 4096
ok "group-writable directory: nothing written" test ! -e "$PROM"
ok "group-writable directory: said" grep -q "metrics .*pmem_tuned.prom: refused: its directory is owned by uid [0-9]* with mode 0775" "$T/log"
run "$DAEMON" --restore $COMMON > /dev/null 2>&1
chmod 0755 "$DIR"

mv "$DIR" "$DIR.real"
ln -s node-exporter.real "$DIR"
run "$DAEMON" --oneshot $COMMON > "$T/log" 2>&1
ok "symbolic link in the path: nothing written" test ! -e "$DIR.real/pmem_tuned.prom"
ok "symbolic link in the path: said" grep -q "refused: a symbolic link in its path" "$T/log"
run "$DAEMON" --restore $COMMON > /dev/null 2>&1
rm "$DIR"
mv "$DIR.real" "$DIR"

mkfifo "$PROM"
run "$DAEMON" --oneshot $COMMON > "$T/log" 2>&1
ok "FIFO in its place: not replaced" test -p "$PROM"
ok "FIFO in its place: said" grep -q "refused: a FIFO is there, not a regular file" "$T/log"
run "$DAEMON" --restore $COMMON > /dev/null 2>&1
rm -f "$PROM"

echo "metrics_file = /var/lib/prometheus/missing/pmem_tuned.prom" > "$CONF"
run "$DAEMON" --oneshot $COMMON > "$T/log" 2>&1
ok "missing directory: not created" test ! -e "$T/var/lib/prometheus/missing"
ok "missing directory: said" grep -q "missing/pmem_tuned.prom: cannot write: No such file or directory" "$T/log"
run "$DAEMON" --restore $COMMON > /dev/null 2>&1

echo "metrics_file = pmem_tuned.prom" > "$CONF"
run "$DAEMON" --oneshot $COMMON > "$T/log" 2>&1
ok "relative path: refused in the config" grep -q "metrics_file=pmem_tuned.prom: expected an absolute path" "$T/log"
ok "relative path: nothing written" test ! -e "$PROM"
run "$DAEMON" --restore $COMMON > /dev/null 2>&1

# dry runs and --verify change nothing, the metrics file included
echo "metrics_file = /var/lib/prometheus/node-exporter/pmem_tuned.prom" > "$CONF"
run "$DAEMON" --dry-run $COMMON > "$T/log" 2>&1
run "$DAEMON" --verify $COMMON > "$T/log" 2>&1
ok "dry-run, verify: no metrics file" test ! -e "$PROM"

tap_finish test_daemon_metrics
