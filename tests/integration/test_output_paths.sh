#!/bin/bash
# Every path pmem-tune writes refuses what is not a regular file, without
# following links, with one line and exit 2, and leaves it as it was;
# nothing of the refused write is left beside it.  So does every path the
# write would certainly fail on (empty, ending in '/', in a missing or
# unwritable directory, too long a name), before any work.  A write
# removes nothing of an administrator's beside its file (FILE.backup).
# --probe never replaces a
# fleet's file (a link, a bundle, a merged entry): it writes the state
# directory's probe.json instead and says so.
# Usage: test_output_paths.sh PMEM_TUNE
tune=$1
PT_TEST_NAME=output_paths
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"

mkfifo "$tmp/fifo"
mkdir "$tmp/dir"
echo precious >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/link"
ln -s "$tmp/nowhere" "$tmp/dangling"
echo '{}' >"$tmp/in.json"

for out in /dev/null "$tmp/fifo" "$tmp/dir" "$tmp/link" "$tmp/dangling"; do
	# a link is a fleet's layout: --probe writes beside it (below)
	[ -L "$out" ] ||
		expect_refusal "--output $out" "$out" -- --probe --quick --target dram --output "$out"
	expect_refusal "--merge $out" "$out" -- --merge "$out" --insecure "$tmp/in.json"
	expect_refusal "--metrics $out" "$out" -- --metrics "$out" --insecure "$tmp/in.json"
	expect_refusal "--plot $out" "$out" -- --plot "$out" --insecure "$tmp/in.json"
done
grep -q "not a regular file" "$tmp/err" && ok || bad "the refusal does not say why"

# where the write would certainly fail: refused up front, not after a probe
long=$tmp/$(printf '%0240d' 0).json	# fits NAME_MAX; its temporary does not
for out in '' "$tmp/nodir/p.json" "$tmp/newdir/" "$tmp/victim/p.json" "$long"; do
	word=${out:-empty path}
	expect_refusal "--output '$out'" "$word" -- --probe --quick --target dram --output "$out"
	expect_refusal "--merge '$out'" "$word" -- --merge "$out" --insecure "$tmp/in.json"
	expect_refusal "--metrics '$out'" "$word" -- --metrics "$out" --insecure "$tmp/in.json"
	expect_refusal "--plot '$out'" "$word" -- --plot "$out" --insecure "$tmp/in.json"
	expect_refusal "--decide --output '$out'" "$word" -- --decide "$tmp/in.json" \
		--output "$out" --insecure
done
[ ! -e "$tmp/nodir" ] && [ ! -e "$tmp/newdir" ] && [ ! -e "$long" ] && ok ||
	bad "a refused write created something: $(ls -A "$tmp")"
# a directory the user may not create files in (root may in any: run as nobody)
mkdir "$tmp/ro"
if [ "$(id -u)" -eq 0 ]; then
	chmod 755 "$tmp"
	printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups "%s" "$@"\n' \
		"$tune" >"$tmp/as-nobody"
	chmod 755 "$tmp/as-nobody"
	as=$tmp/as-nobody
else
	chmod 555 "$tmp/ro"
	as=$tune
fi
tune=$as expect_refusal "--output in an unwritable directory" "$tmp/ro/p.json" -- \
	--probe --quick --target dram --output "$tmp/ro/p.json"
tune=$as expect_refusal "--merge in an unwritable directory" "$tmp/ro/p.json" -- \
	--merge "$tmp/ro/p.json" --insecure "$tmp/in.json"
[ -z "$(ls -A "$tmp/ro")" ] && ok || bad "the unwritable directory got $(ls -A "$tmp/ro")"
[ "$(cat "$tmp/victim")" = precious ] && ok || bad "the link's target was written"
[ -L "$tmp/link" ] && [ -L "$tmp/dangling" ] && [ -p "$tmp/fifo" ] && [ -d "$tmp/dir" ] &&
	[ -c /dev/null ] && ok || bad "a refused path was replaced"
[ ! -e "$tmp/nowhere" ] && ok || bad "a dangling link was followed"
leftover=$(find "$tmp" -mindepth 1 -name '*.pmem-tune-tmp.*' | head -1)
[ -z "$leftover" ] && ok || bad "temporary file left: $leftover"

# file: targets: one the probe created is gone afterwards; someone's keeps its size.
# A scratch lock of our own: probe_cli's probes may run beside these.
export PMEM_TUNE_STATE_DIR="$tmp/state"
mkdir -p "$PMEM_TUNE_STATE_DIR"
# an administrator's copies beside the outputs, an hour old: no write removes them
theirs() {
	for f in backup golden 231203; do
		echo precious >"$1.$f"
		touch -d '1 hour ago' "$1.$f"
	done
}
kept() {
	for f in backup golden 231203; do
		[ "$(cat "$1.$f" 2>&1)" = precious ] && ok || bad "$2 removed or changed $1.$f"
	done
}
theirs "$tmp/p.json"
probe_file() {
	"$tune" --probe --quick --quiet --target "file:$1" --area-size 64M --strategies clwb \
		--output "$tmp/p.json" "${@:2}" >/dev/null 2>"$tmp/err"
}
probe_file "$tmp/new.area" && [ ! -e "$tmp/new.area" ] && ok ||
	bad "file: the probe's own file is left: $(cat "$tmp/err")"
: >"$tmp/empty.area"
probe_file "$tmp/empty.area" && [ ! -s "$tmp/empty.area" ] && ok ||
	bad "file: an empty file was grown: $(stat -c %s "$tmp/empty.area") bytes $(cat "$tmp/err")"
head -c 1048576 /dev/urandom >"$tmp/data.area"
probe_file "$tmp/data.area" --destroy-data && [ "$(stat -c %s "$tmp/data.area")" = 1048576 ] &&
	ok || bad "file: --destroy-data grew the file: $(stat -c %s "$tmp/data.area") bytes"
grep -q '"host_id": "sha256:' "$tmp/p.json" || [ ! -s /etc/machine-id ] && ok ||
	bad "the policy does not name its host"
kept "$tmp/p.json" "--probe --output"
for out in merged.json m.prom p.svg; do
	theirs "$tmp/$out"
done
"$tune" --merge "$tmp/merged.json" "$tmp/p.json" >/dev/null 2>"$tmp/err" &&
	"$tune" --merge "$tmp/merged.json" "$tmp/p.json" >/dev/null 2>>"$tmp/err" && ok ||
	bad "--merge: $(cat "$tmp/err")"
kept "$tmp/merged.json" "--merge"
"$tune" --metrics "$tmp/m.prom" "$tmp/p.json" >/dev/null 2>"$tmp/err" && ok ||
	bad "--metrics: $(cat "$tmp/err")"
kept "$tmp/m.prom" "--metrics"
"$tune" --plot "$tmp/p.svg" "$tmp/p.json" >/dev/null 2>"$tmp/err" && ok ||
	bad "--plot: $(cat "$tmp/err")"
kept "$tmp/p.svg" "--plot"

# --probe never replaces a fleet's file: a link (dangling or not), a bundle, a merged
# entry.  The policy goes to probe.json in the state directory (made if missing), one
# line says where and why, even with --quiet, and the exit status is 0.
export PMEM_TUNE_STATE_DIR="$tmp/fleet-state"
echo '{"schema": "pmem-policy/1", "bundle": [{}, {}]}' >"$tmp/bundle.json"
echo '{"schema": "pmem-policy/1", "merged": {"hosts": 2}, "targets": []}' >"$tmp/merged.json"
cp "$tmp/bundle.json" "$tmp/bundle.orig"
cp "$tmp/merged.json" "$tmp/merged.orig"
for out in "$tmp/link" "$tmp/dangling" "$tmp/bundle.json" "$tmp/merged.json"; do
	rm -rf "$PMEM_TUNE_STATE_DIR"
	"$tune" --probe --quick --quiet --target dram --strategies clwb --output "$out" \
		>/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && ok || bad "--probe --output $out (a fleet's): exit $rc: $(cat "$tmp/err")"
	[ -s "$PMEM_TUNE_STATE_DIR/probe.json" ] && ok ||
		bad "--probe --output $out (a fleet's): no $PMEM_TUNE_STATE_DIR/probe.json"
	[ "$(stat -c %a "$PMEM_TUNE_STATE_DIR" 2>/dev/null)" = 700 ] && ok ||
		bad "the state directory is not mode 0700"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -qF "$out is a " "$tmp/err" &&
		grep -qF "wrote this host's probe to $PMEM_TUNE_STATE_DIR/probe.json" "$tmp/err" &&
		ok || bad "--probe --output $out: no one line saying where and why: $(cat "$tmp/err")"
done
grep -q "is a fleet's merged entry of 2 hosts" "$tmp/err" && ok || bad "the merged entry not named"
[ "$(cat "$tmp/victim")" = precious ] && [ -L "$tmp/link" ] && [ -L "$tmp/dangling" ] &&
	[ ! -e "$tmp/nowhere" ] && ok || bad "a fleet's link or its target was written"
cmp -s "$tmp/bundle.json" "$tmp/bundle.orig" && cmp -s "$tmp/merged.json" "$tmp/merged.orig" &&
	ok || bad "a fleet's bundle or merged entry was replaced"
# one stream for both (the journal's): the line is a line of its own, after the tables
rm -rf "$PMEM_TUNE_STATE_DIR"
"$tune" --probe --quick --quiet --target dram --output "$tmp/link" >"$tmp/both" 2>&1
grep -q "^pmem-tune: $tmp/link is a symbolic link" "$tmp/both" && ok ||
	bad "on one stream, the line is not a line of its own: $(grep -F 'is a symbolic' "$tmp/both")"
# a single probe's policy is replaced as before
"$tune" --probe --quick --quiet --target dram --strategies clwb --output "$tmp/p.json" \
	>/dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ] && ok ||
	bad "--probe over a single probe's policy: $(cat "$tmp/err")"
export PMEM_TUNE_STATE_DIR="$tmp/state"

# a regular file is replaced as before; '-' is stdout
"$tune" --metrics - --insecure "$tmp/in.json" >/dev/null 2>"$tmp/err"
grep -q "refused" "$tmp/err" && bad "--metrics - refused" || ok

# the scratch lock is never opened through a link: with --insecure the state
# directory may be anyone's, and the pid written into the lock would land in
# the file the link names
mkdir -m 0777 "$tmp/open-state"
echo precious >"$tmp/lock-victim"
ln -s "$tmp/lock-victim" "$tmp/open-state/scratch.lock"
PMEM_TUNE_STATE_DIR="$tmp/open-state" "$tune" --probe --quick --quiet --insecure \
	--target region:region0 --output "$tmp/lk.json" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -ne 0 ] && grep -q "symbolic link" "$tmp/err" && ok ||
	bad "a scratch lock that is a link was taken (exit $rc): $(cat "$tmp/err")"
[ "$(cat "$tmp/lock-victim")" = precious ] && [ ! -e "$tmp/lk.json" ] && ok ||
	bad "the lock's link target was written, or the probe wrote its policy"
finish
