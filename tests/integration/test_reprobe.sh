#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# When pmem-tune-probe.service measures (pmem-tuned --need-probe, its
# ExecCondition=) and when the daemon starts it (a region appearing), in a
# fake sysfs/etc tree: a host no policy fits is probed; a new kernel is an
# environment change, probed only with reprobe_on_environment_change = yes;
# a fleet's file (link, bundle) with this host's probe kept in the state
# directory is not probed again; a region appearing starts a probe only
# with reprobe_on_region_add = yes.  --need-probe writes nothing.
set -u
umask 022
DAEMON=$1
MKPOLICY=$2
SHIPPED_CONF=${3:-}

T=$(mktemp -d "${TMPDIR:-/tmp}/pt-reprobe.XXXXXX")
PID=
# shellcheck source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"

cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	wait 2>/dev/null
	if [ "$failed" -eq 0 ]; then rm -rf "$T"; else echo "tree kept in $T"; fi
}
trap cleanup EXIT
tap_on_fail() { [ -f "$T/out" ] && sed 's/^/    | /' "$T/out" | tail -n 8; }

if ! command -v jq >/dev/null 2>&1; then
	echo "SKIP: jq not installed (scripts/deps.sh test installs it)"
	exit 77
fi
# the journal is no place for a test's log
run() { env -u INVOCATION_ID -u JOURNAL_STREAM -u NOTIFY_SOCKET -u WATCHDOG_USEC "$@"; }

S=$T/sys
POLICY=$T/etc/pmem-policy.json
CONF=$T/etc/pmem-tuned/pmem-tuned.conf
STATE=$T/var/lib/pmem-tune
export PMEM_TUNE_STATE_DIR="$STATE"
COMMON="--sysfs-root $T --etc-root $T"

mkdir -p "$S/devices/ndbus0/region0" "$S/bus/nd/devices" "$T/etc/pmem-tuned" \
	"$T/proc/sys/kernel" "$T/run" "$STATE" "$T/fleet"
echo cpu_cache > "$S/devices/ndbus0/region0/persistence_domain"
ln -s ../../../devices/ndbus0/region0 "$S/bus/nd/devices/region0"
cp /proc/cpuinfo "$T/proc/cpuinfo"
# mkpolicy records kernel 6.1.0-test: the host runs it, until it does not
echo 6.1.0-test > "$T/proc/sys/kernel/osrelease"

# need EXPECTED-EXIT: run --need-probe, output in $T/out
need() {
	run "$DAEMON" --need-probe $COMMON > "$T/out" 2>&1
	rc=$?
	[ "$rc" -eq "$1" ]
}
has() { grep -q -- "$1" "$T/out"; }
conf() { printf '%s\n' "$@" > "$CONF"; }
sum() { sha256sum "$1" | cut -d' ' -f1; }

if ! "$MKPOLICY" "$T/host.json" --host "$T" --kernel 4096 --movnt 512 2>/dev/null; then
	echo "SKIP: the fake root cannot be fingerprinted"
	exit 77
fi
"$MKPOLICY" "$T/other.json" --fingerprint "sha256:$(printf '1%.0s' $(seq 64))" \
	--kernel 4096 --movnt 512
"$MKPOLICY" "$T/third.json" --fingerprint "sha256:$(printf '2%.0s' $(seq 64))" \
	--kernel 4096 --movnt 512
# bundle OUT ENTRY...: a fleet's bundle of those policies
bundle() {
	out=$1
	shift
	jq -s '{schema: "pmem-policy/1", bundle: .}' "$@" > "$out"
}

# --- a host no policy fits is probed ------------------------------------------
ok "no policy: probe (exit 0)" need 0
ok "no policy: says why" has "^probe: "
cp "$T/other.json" "$POLICY"
ok "another platform's policy: probe" need 0
printf '{not json' > "$POLICY"
ok "invalid policy: probe" need 0
cp "$T/host.json" "$POLICY"
ok "this host's policy: no probe (exit 1)" need 1
ok "this host's policy: says it fits" has "^no probe: .*fits this host"

# --- a new kernel is an environment change ------------------------------------
echo 6.2.0-new > "$T/proc/sys/kernel/osrelease"
before=$(sum "$POLICY")
ok "new kernel: no probe by default" need 1
ok "new kernel: an environment change, on one line" \
	has "^no probe: .*environment change: kernel 6.2.0-new, probed on 6.1.0-test (reprobe_on_environment_change = no)$"
conf "reprobe_on_environment_change = yes"
ok "new kernel, reprobe_on_environment_change = yes: probe" need 0
ok "new kernel, reprobe_on_environment_change = yes: says why" \
	has "^probe: environment change: kernel 6.2.0-new, probed on 6.1.0-test"
conf "reprobe_on_environment_change = no"
ok "reprobe_on_environment_change = no: no probe" need 1
# the daemon still applies the policy: the kernel is no part of the platform
run "$DAEMON" --dry-run $COMMON > "$T/out" 2>&1
ok "new kernel: the daemon takes the policy (dry-run)" has "^Policy $POLICY (sha256:"
ok "--need-probe wrote nothing" test "$(sum "$POLICY")" = "$before"
rm -f "$CONF"

# the shipped pmem-tuned.conf says no to both, without a warning
if [ -n "$SHIPPED_CONF" ]; then
	cp "$SHIPPED_CONF" "$CONF"
	ok "shipped pmem-tuned.conf: new kernel, no probe" need 1
	ok "shipped pmem-tuned.conf: read without a warning" sh -c '! grep -q "pmem-tuned:" "$1"' _ "$T/out"
	ok "shipped pmem-tuned.conf: reprobe_on_environment_change = no" \
		has "(reprobe_on_environment_change = no)$"
	rm -f "$CONF"
fi

# --- a fleet's file: its probe is kept for the fleet, not measured at every boot --
bundle "$T/fleet/bundle.json" "$T/other.json" "$T/third.json"
rm -f "$POLICY"
ln -s ../fleet/bundle.json "$POLICY"
ok "fleet link without this host's entry, nothing kept: probe" need 0
cp "$T/host.json" "$STATE/probe.json"
ok "... with this host's probe kept: no probe" need 1
ok "... says where it is kept" has "^no probe: .*kept in $STATE/probe.json, for the fleet"
cp "$T/other.json" "$STATE/probe.json"
ok "... a kept probe of another platform: probe" need 0
rm -f "$POLICY"
bundle "$POLICY" "$T/other.json" "$T/third.json"
cp "$T/host.json" "$STATE/probe.json"
ok "fleet bundle (a regular file) with this host's probe kept: no probe" need 1
# this host in the bundle, the kernel changed since its entry was probed
bundle "$POLICY" "$T/host.json" "$T/other.json"
before=$(sum "$POLICY")
ok "fleet bundle with this host, new kernel: no probe by default" need 1
ok "... an environment change" has "environment change: kernel 6.2.0-new, probed on 6.1.0-test"
conf "reprobe_on_environment_change = yes"
ok "... reprobe_on_environment_change = yes, kept probe from the old kernel: probe" need 0
jq '.platform.kernel = "6.2.0-new"' "$T/host.json" > "$STATE/probe.json"
ok "... kept probe from the new kernel: no probe" need 1
ok "... says so" has "^no probe: environment change: .*kept in $STATE/probe.json"
ok "fleet bundle: --need-probe wrote nothing" test "$(sum "$POLICY")" = "$before"
rm -f "$CONF" "$STATE/probe.json"
echo 6.1.0-test > "$T/proc/sys/kernel/osrelease"

# --- a region appearing at run time --------------------------------------------
# No policy fits (none there): the daemon is up, waiting; a region appears.
rm -f "$POLICY"
: > "$T/log"
# env, not run(): $! must be the daemon's pid, not a subshell's
env -u INVOCATION_ID -u JOURNAL_STREAM -u NOTIFY_SOCKET -u WATCHDOG_USEC \
	"$DAEMON" -v $COMMON > "$T/log" 2>&1 &
PID=$!
wait_grep() { wait_for "$3" grep -qs -- "$2" "$1"; }
ok "daemon: up without a policy" wait_grep "$T/log" "No policy at" 50
mkdir -p "$S/devices/ndbus0/region1"
ln -s ../../../devices/ndbus0/region1 "$S/bus/nd/devices/region1"
ok "region appearing, default: not probed, said why" \
	wait_grep "$T/log" "region1 appeared, no policy matches this host; not probing (reprobe_on_region_add = no)" 20
ok "region appearing, default: no probe started" \
	sh -c '! grep -q "run pmem-tune --probe\|started pmem-tune-probe" "$1"' _ "$T/log"
conf "reprobe_on_region_add = yes"
kill -HUP "$PID"
ok "SIGHUP: config reread" wait_grep "$T/log" "SIGHUP" 20
mkdir -p "$S/devices/ndbus0/region2"
ln -s ../../../devices/ndbus0/region2 "$S/bus/nd/devices/region2"
# the test tree has no bus: the daemon says what it would start
ok "region appearing, reprobe_on_region_add = yes: the probe asked for" \
	wait_grep "$T/log" "region2 appeared and no valid policy matches this host; run pmem-tune --probe (no bus to start pmem-tune-probe.service)" 20
kill -TERM "$PID"
wait "$PID"
PID=
rm -f "$CONF"

tap_finish test_reprobe
