#!/bin/bash
# Every path pmem-tune writes refuses what is not a regular file, without
# following links, with one line and exit 2, and leaves it as it was;
# nothing of the refused write is left beside it.
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
	expect_refusal "--output $out" "$out" -- --probe --quick --target dram --output "$out"
	expect_refusal "--merge $out" "$out" -- --merge "$out" --insecure "$tmp/in.json"
	expect_refusal "--metrics $out" "$out" -- --metrics "$out" --insecure "$tmp/in.json"
	expect_refusal "--plot $out" "$out" -- --plot "$out" --insecure "$tmp/in.json"
done
grep -q "not a regular file" "$tmp/err" && ok || bad "the refusal does not say why"
[ "$(cat "$tmp/victim")" = precious ] && ok || bad "the link's target was written"
[ -L "$tmp/link" ] && [ -L "$tmp/dangling" ] && [ -p "$tmp/fifo" ] && [ -d "$tmp/dir" ] &&
	[ -c /dev/null ] && ok || bad "a refused path was replaced"
[ ! -e "$tmp/nowhere" ] && ok || bad "a dangling link was followed"
leftover=$(find "$tmp" -mindepth 1 -name '*.??????' | head -1)
[ -z "$leftover" ] && ok || bad "temporary file left: $leftover"

# a regular file is replaced as before; '-' is stdout
"$tune" --metrics - --insecure "$tmp/in.json" >/dev/null 2>"$tmp/err"
grep -q "refused" "$tmp/err" && bad "--metrics - refused" || ok
finish
