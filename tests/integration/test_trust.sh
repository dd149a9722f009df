#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One trust rule for every reader and writer (common/trusted.h): owned by
# root or the caller, writable by no one else, and for a directory the
# same of every directory above it (or sticky, as /tmp).  Held by
#  - pmem-tune --check (the playbook's validate:) and pmem-tuned --need-probe
#    (the probe unit's ExecCondition=): a policy the daemon would refuse is
#    invalid, exit 2, and the host is probed;
#  - the probe's scratch record (PMEM_TUNE_STATE_DIR), which decides what
#    namespaces are destroyed: refused, left as it is, unless --insecure;
#  - pmem-tuned's output directories (/etc/pmem-tuned, /etc/environment.d)
#    and its state directory: nothing written, nothing restored there.
# Group- and world-writable cases run as any user; another owner (uid
# 65534) needs root to chown, and is skipped with the reason otherwise.
# Usage: test_trust.sh PMEM_TUNE PMEM_TUNED MKPOLICY PROBE_UNIT_IN
set -uo pipefail
tune=$1
tuned=$2
mkpolicy=$3
unit=$4
PT_TEST_NAME=test_trust
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
umask 022
root=false
[ "$(id -u)" -eq 0 ] && root=true

# ---- pmem-tune --check --------------------------------------------------

# a policy valid for this host: its fingerprint, its kernel
"$mkpolicy" "$tmp/p.json" --host / --movnt 512 >/dev/null 2>&1 &&
	jq --arg k "$(uname -r)" '.platform.kernel = $k' "$tmp/p.json" >"$tmp/p2.json" &&
	mv "$tmp/p2.json" "$tmp/p.json" && chmod 0644 "$tmp/p.json" ||
	{ echo "cannot make a policy: mkpolicy or jq failed" >&2; exit 1; }
"$tune" --check "$tmp/p.json" >"$tmp/out" 2>"$tmp/err"
own=$?
if [ $own -eq 0 ]; then
	ok
else
	# the refusals below hold anyway: they never read so far as the fingerprint
	echo "skipped: --check of this host's own policy says $own ($(cat "$tmp/out")):" \
		"the host cannot be fingerprinted here"
fi

# check_refused DESCRIPTION WORD...: exit 2, one line on stdout naming every WORD, nothing else
check_refused() {
	local what=$1 w
	shift
	"$tune" --check "$tmp/p.json" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 2 ] || { bad "--check, $what: exit $rc, expected 2: $(cat "$tmp/out" "$tmp/err")"; return; }
	[ "$(wc -l <"$tmp/out")" -eq 1 ] && [ ! -s "$tmp/err" ] ||
		{ bad "--check, $what: not one line: $(cat "$tmp/out" "$tmp/err")"; return; }
	for w in "$tmp/p.json" "$@"; do
		grep -qF -- "$w" "$tmp/out" || { bad "--check, $what: '$(cat "$tmp/out")' does not name '$w'"; return; }
	done
	ok
}

chmod 0664 "$tmp/p.json"
check_refused "group-writable" "invalid" "refused" "with mode 0664"
chmod 0646 "$tmp/p.json"
check_refused "world-writable" "with mode 0646"
# the probe unit's own condition: untrusted means the probe runs (and writes a policy root owns)
cond=$(sed -n 's/^ExecCondition=//p' "$unit")
[ -n "$cond" ] && ok || bad "no ExecCondition= in $unit"
cond=${cond//@PT_SBINDIR@\/pmem-tuned/$tuned --policy $tmp/p.json}
eval "$cond" >/dev/null 2>&1 && ok || bad "ExecCondition ($cond) skips the probe for a world-writable policy"
"$tune" --check --json "$tmp/p.json" >"$tmp/out" 2>/dev/null
jq -e '.result == "invalid" and .status == 2 and (.message | test("mode 0646"))' "$tmp/out" \
	>/dev/null && ok || bad "--check --json: $(cat "$tmp/out")"
# --insecure is the way out; the display commands warn and read
[ $own -eq 0 ] && { "$tune" --check --insecure "$tmp/p.json" >/dev/null 2>&1 && ok ||
	bad "--check --insecure refused a world-writable policy"; }
"$tune" --show "$tmp/p.json" >/dev/null 2>"$tmp/err" && grep -q "warning: .*mode 0646" "$tmp/err" &&
	ok || bad "--show of a world-writable policy: $(cat "$tmp/err")"
chmod 0644 "$tmp/p.json"
if $root; then
	chown 65534 "$tmp/p.json"
	check_refused "owned by uid 65534" "owned by uid 65534 with mode 0644"
	chown 0 "$tmp/p.json"
else
	echo "skipped: --check of a policy another user owns: chown needs root"
fi
[ $own -eq 0 ] && { "$tune" --check "$tmp/p.json" >/dev/null 2>&1 && ok ||
	bad "--check of the restored policy"; }

# ---- the scratch record ------------------------------------------------

record='{ "schema": "pmem-tune-scratch/1", "scratch": [ { "uuid": "6f1d6a0e-3c1b-4c39-9a8e-0d6c2f5b7a11", "region": "region-pt-trust-absent", "mode": "devdax", "pid": 4242 } ] }'
# state DIR: a fresh state directory DIR holding one record of a region that is not there
state() {
	rm -rf "$1"
	mkdir -p "$1"
	chmod 0700 "$1"
	echo "$record" >"$1/scratch.json"
	chmod 0600 "$1/scratch.json"
}
# reap DIR [ARGS]: a probe of a region that is not there; it first reaps the stale records
reap() {
	PMEM_TUNE_STATE_DIR=$1 "$tune" --probe --quick --target region:region-pt-trust-absent \
		--output - "${@:2}" >"$tmp/out" 2>"$tmp/err"
}
# reap_refused DESCRIPTION DIR WORD...: the record is left as it was, one line names every WORD
reap_refused() {
	local what=$1 dir=$2 w
	shift 2
	reap "$dir"
	[ "$(cat "$dir/scratch.json" 2>/dev/null)" = "$record" ] ||
		{ bad "scratch, $what: the record was consumed: $(cat "$tmp/err")"; return; }
	[ "$(grep -c refused "$tmp/err")" -eq 1 ] ||
		{ bad "scratch, $what: not one refusal: $(cat "$tmp/err")"; return; }
	for w in "$@"; do
		grep refused "$tmp/err" | grep -qF -- "$w" ||
			{ bad "scratch, $what: '$(cat "$tmp/err")' does not name '$w'"; return; }
	done
	ok
}

S=$tmp/state
state "$S"
reap "$S"
[ ! -e "$S/scratch.json" ] && ok ||
	bad "scratch: the record of an absent region was not reaped from a trusted directory: $(cat "$tmp/err")"
state "$S"
chmod 0777 "$S"
reap_refused "world-writable directory" "$S" "$S owned by uid $(id -u) with mode 0777"
state "$S"
chmod 0770 "$S"
reap_refused "group-writable directory" "$S" "with mode 0770"
# --list shows what it could not trust, not the records in it
state "$S"
PMEM_TUNE_STATE_DIR=$S "$tune" --list >"$tmp/out" 2>&1
grep -q "region-pt-trust-absent" "$tmp/out" && ok || bad "--list: no record of a trusted state"
chmod 0770 "$S"
PMEM_TUNE_STATE_DIR=$S "$tune" --list >"$tmp/out" 2>&1
grep -q "region-pt-trust-absent" "$tmp/out" && bad "--list showed an untrusted record" || ok
grep -qF "$S owned by uid $(id -u) with mode 0770" "$tmp/out" && ok ||
	bad "--list does not say why it shows no records: $(cat "$tmp/out")"
state "$S"
chmod 0666 "$S/scratch.json"
reap_refused "world-writable record" "$S" "$S/scratch.json owned by uid $(id -u) with mode 0666"
# a directory above that others may rename: they could swap the state directory
mkdir -p "$tmp/open"
chmod 0777 "$tmp/open"
state "$tmp/open/state"
reap_refused "world-writable parent" "$tmp/open/state" "$tmp/open owned by uid $(id -u) with mode 0777"
# a sticky one (as /tmp) keeps the directory ours
chmod 1777 "$tmp/open"
reap "$tmp/open/state"
[ ! -e "$tmp/open/state/scratch.json" ] && ok ||
	bad "scratch: refused below a sticky directory: $(cat "$tmp/err")"
# a link for the record: not followed
state "$S"
mv "$S/scratch.json" "$tmp/elsewhere.json"
ln -s "$tmp/elsewhere.json" "$S/scratch.json"
reap "$S"
[ -L "$S/scratch.json" ] && [ "$(cat "$tmp/elsewhere.json")" = "$record" ] &&
	grep -q "refused" "$tmp/err" && ok || bad "scratch: a linked record was followed: $(cat "$tmp/err")"
# --insecure: the way out
state "$S"
chmod 0777 "$S"
reap "$S" --insecure
[ ! -e "$S/scratch.json" ] && ok || bad "scratch: --insecure did not reap: $(cat "$tmp/err")"
if $root; then
	state "$S"
	chown 65534 "$S"
	reap_refused "directory of uid 65534" "$S" "$S owned by uid 65534 with mode 0700"
	chown 0 "$S"
	state "$S"
	chown 65534 "$S/scratch.json"
	reap_refused "record of uid 65534" "$S" "owned by uid 65534 with mode 0600"
	state "$tmp/theirs/state"
	chown 65534 "$tmp/theirs"
	reap_refused "parent of uid 65534" "$tmp/theirs/state" "$tmp/theirs owned by uid 65534"
else
	echo "skipped: scratch records another user owns: chown needs root"
fi

# ---- pmem-tuned's output directories -------------------------------------

T=$tmp/root
mkdir -p "$T/etc/pmem-tuned" "$T/run" "$T/sys"
"$mkpolicy" "$T/etc/pmem-policy.json" --movnt 512 --no-kernel --no-glibc || exit 1
ENVF=$T/etc/pmem-tuned/libpmem.env
ENVD=$T/etc/environment.d/60-pmem-tuned.conf
daemon() {
	env -u INVOCATION_ID -u JOURNAL_STREAM -u NOTIFY_SOCKET -u WATCHDOG_USEC \
		"$tuned" "$@" --force --etc-root "$T" --sysfs-root "$T" >"$tmp/out" 2>"$tmp/err"
}
# written where trusted
daemon --oneshot
[ -f "$ENVF" ] && [ -f "$ENVD" ] && ok || bad "daemon: nothing written: $(cat "$tmp/err")"
daemon --restore
[ ! -e "$ENVF" ] && [ ! -e "$ENVD" ] && ok || bad "daemon: not restored: $(cat "$tmp/err")"

# daemon_refused DESCRIPTION FILE WORD...: FILE not written, a refusal naming it and every WORD
daemon_refused() {
	local what=$1 file=$2 w
	shift 2
	daemon --oneshot
	[ ! -e "$file" ] || { bad "daemon, $what: $file written: $(cat "$tmp/err")"; return; }
	for w in "$file" "$@"; do
		grep refused "$tmp/err" | grep -qF -- "$w" ||
			{ bad "daemon, $what: '$(cat "$tmp/err")' does not name '$w'"; return; }
	done
	ok
}
chmod 0777 "$T/etc/pmem-tuned"
daemon_refused "world-writable /etc/pmem-tuned" "$ENVF" \
	"$T/etc/pmem-tuned owned by uid $(id -u) with mode 0777"
[ -f "$ENVD" ] && ok || bad "daemon: the trusted environment.d was not written beside the refusal"
daemon --restore
chmod 0755 "$T/etc/pmem-tuned"
mkdir -p "$T/etc/environment.d"
chmod 0775 "$T/etc/environment.d"
daemon_refused "group-writable /etc/environment.d" "$ENVD" "with mode 0775"
daemon --restore
chmod 0755 "$T/etc/environment.d"
# restore writes too: an output directory turned untrusted since is left alone
daemon --oneshot
chmod 0777 "$T/etc/pmem-tuned"
daemon --restore
[ -f "$ENVF" ] && grep refused "$tmp/err" | grep -qF "$T/etc/pmem-tuned owned by" && ok ||
	bad "daemon: restored into an untrusted directory: $(cat "$tmp/err")"
chmod 0755 "$T/etc/pmem-tuned"
daemon --restore
[ ! -e "$ENVF" ] && ok || bad "daemon: the refused restore was not kept for later: $(cat "$tmp/err")"
# a directory above them others may rename
chmod 0777 "$T/etc"
daemon_refused "world-writable parent of /etc/pmem-tuned" "$ENVF" "$T/etc owned by"
chmod 0755 "$T/etc"
daemon --restore
# the state directory's parent: originals could not be kept, so nothing is changed
chmod 0777 "$T/run"
daemon --oneshot
[ ! -e "$ENVF" ] && [ ! -e "$T/run/pmem-tuned/state.json" ] &&
	grep -qF "$T/run owned by uid $(id -u) with mode 0777" "$tmp/err" && ok ||
	bad "daemon: wrote with its state below a world-writable directory: $(cat "$tmp/err")"
chmod 0755 "$T/run"
if $root; then
	chown 65534 "$T/etc/pmem-tuned"
	daemon_refused "/etc/pmem-tuned of uid 65534" "$ENVF" "owned by uid 65534 with mode 0755"
	chown 0 "$T/etc/pmem-tuned"
	daemon --restore
else
	echo "skipped: output directories another user owns: chown needs root"
fi
daemon --restore
[ ! -e "$ENVF" ] && [ ! -e "$ENVD" ] && ok || bad "daemon: left files behind: $(cat "$tmp/err")"

finish
