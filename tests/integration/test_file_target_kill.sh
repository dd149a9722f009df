#!/usr/bin/env bash
# A file: probe killed (SIGKILL) in the middle of measuring leaves nothing
# behind: the directory holds what it held before, each file its size and
# bytes.  A new path and a short existing file are measured on an unnamed
# file; a file at least as big as the area is used in place and never resized.
# With NO_TMPFILE (an LD_PRELOAD shim refusing O_TMPFILE, as vfat and old NFS
# do), the new path again: the named file of the fallback is gone at once.
# Usage: test_file_target_kill.sh PMEM_TUNE NO_TMPFILE
set -uo pipefail
tune=$1
no_tmpfile=${2:-}
PT_TEST_NAME=test_file_target_kill
# shellcheck source=cli-lib.sh
. "$(dirname "$0")/cli-lib.sh"
# a scratch lock of our own: other probes may run beside these
export PMEM_TUNE_STATE_DIR="$tmp/state"
mkdir -p "$PMEM_TUNE_STATE_DIR"

d=$tmp/d
mkdir "$d"
printf 'precious data\n' >"$d/short"
head -c 4096 /dev/urandom >"$d/other"
# a file as big as the area, and a page more, of random bytes at its start
truncate -s $((64 << 20 + 4096)) "$d/big"
head -c 65536 /dev/urandom | dd of="$d/big" conv=notrunc status=none

# what the directory holds: every name, with its size and, for the files the
# probe must not write, its bytes
snapshot() {
	(cd "$d" && find . -mindepth 1 -printf '%p %s\n' | sort &&
		sha256sum short other | sort)
}

# probe_killed SPEC ARGS...: start a probe, SIGKILL it once it says it measures
probe_killed() {
	local spec=$1 rc
	shift
	# emptied here, not by the probe's redirection: that runs in the child,
	# maybe after the first look below, which would then find the previous
	# probe's lines, kill this one at once, and find its empty file after
	: >"$tmp/err"
	"$tune" --probe --quick --threads 1 --strategies movnt_sse2,clwb --area-size 64M \
		--target "$spec" --output "$tmp/p.json" "$@" >/dev/null 2>"$tmp/err" &
	local pid=$! i
	# as long as it takes: a loaded host is slow, not wrong (ctest's timeout bounds it)
	until grep -q "% measured" "$tmp/err"; do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q "% measured" "$tmp/err"; then
		wait $pid
		rc=$?
		bad "$spec: exited ($rc) before it said it measures: $(cat "$tmp/err")"
		return 1
	fi
	# in place: killed once it has written there (on a loaded host the
	# first line can come well before the first store)
	for ((i = 0; i < 600 && ${#written_file}; i++)); do
		[ "$(head -c 65536 "$written_file" | sha256sum)" != "$written_was" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL $pid
	wait $pid 2>/dev/null
	return 0
}
written_file=""

before=$(snapshot)
big_head=$(head -c 65536 "$d/big" | sha256sum)

# a path that does not exist: nothing ever has its name
probe_killed "file:$d/new" && [ "$(snapshot)" = "$before" ] && ok ||
	bad "new path: the directory changed: $(diff <(echo "$before") <(snapshot))"

# an existing file shorter than the area: neither grown nor written, and said so
probe_killed "file:$d/short" && [ "$(snapshot)" = "$before" ] && ok ||
	bad "short file: the directory changed: $(diff <(echo "$before") <(snapshot))"
[ "$(grep -c "file:$d/short: 14 bytes, less than the 64 MiB area" "$tmp/err")" -eq 1 ] && ok ||
	bad "short file: no one-line notice: $(cat "$tmp/err")"

# also with --destroy-data: a short file is never grown
probe_killed "file:$d/short" --destroy-data && [ "$(snapshot)" = "$before" ] && ok ||
	bad "short file, --destroy-data: changed: $(diff <(echo "$before") <(snapshot))"

# a file at least as big as the area: used in place with --destroy-data, never resized
written_file=$d/big written_was=$big_head
probe_killed "file:$d/big" --destroy-data && [ "$(snapshot)" = "$before" ] && ok ||
	bad "big file: the directory changed: $(diff <(echo "$before") <(snapshot))"
written_file=""
[ "$(head -c 65536 "$d/big" | sha256sum)" != "$big_head" ] && ok ||
	bad "big file: --destroy-data did not measure on it in place"

# a filesystem without O_TMPFILE: the fallback's named file never outlives the probe
if [ -f "$no_tmpfile" ]; then
	export PT_NO_TMPFILE_LOG=$tmp/no-tmpfile.log
	: >"$PT_NO_TMPFILE_LOG"
	before=$(snapshot)
	# an ASan build's runtime need not come first when the shim is preloaded
	LD_PRELOAD=$no_tmpfile ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
		probe_killed "file:$d/new" && [ "$(snapshot)" = "$before" ] && ok ||
		bad "no O_TMPFILE: the directory changed: $(diff <(echo "$before") <(snapshot))"
	grep -q "^$d: O_TMPFILE refused" "$PT_NO_TMPFILE_LOG" && ok ||
		bad "no O_TMPFILE: the shim refused nothing, the fallback did not run"
	unset PT_NO_TMPFILE_LOG
else
	bad "no O_TMPFILE shim '$no_tmpfile': the fallback is not tested"
fi

# and without --destroy-data it is refused, untouched
cp --sparse=always "$d/big" "$tmp/big.copy"
expect_refusal "big file without --destroy-data" "--destroy-data" -- --probe --quick \
	--area-size 64M --target "file:$d/big" --output "$tmp/p.json"
cmp -s "$d/big" "$tmp/big.copy" && ok || bad "big file changed without --destroy-data"
rm -f "$tmp/big.copy"
finish
