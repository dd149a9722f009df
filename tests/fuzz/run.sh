#!/usr/bin/env bash
# Build the policy loader's libFuzzer target with clang in a build dir of its
# own and fuzz it for a bounded time.  Prints executions, coverage and
# crashes; exits 1 on a crash (the reproducer is under BUILD/artifacts/),
# 77 when clang or libFuzzer is missing, 2 on a usage or build error.
#
# Usage: run.sh [-t SECONDS] [-b BUILD_DIR] [-f TARGET] [-- LIBFUZZER_ARGS...]
#   -t  fuzzing time, default 60 (PT_FUZZ_TIME)
#   -b  build dir, default <top>/build-fuzz (PT_FUZZ_BUILD)
#   -f  fuzz_policy (the loader, default), fuzz_merge (--merge, --diff),
#       fuzz_state (the daemon's state file), fuzz_knobmap (knob map lines)
#       or fuzz_metrics (--metrics' textfile)
# New inputs go to BUILD/corpus[-TARGET]; the seeds (tests/fuzz/corpus, and
# corpus-state, corpus-knobmap, corpus-metrics for those targets) are only read.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
time_s=${PT_FUZZ_TIME:-60}
build=${PT_FUZZ_BUILD:-$top/build-fuzz}
target=fuzz_policy

while getopts "t:b:f:h" o; do
	case $o in
	t) time_s=$OPTARG ;;
	b) build=$OPTARG ;;
	f) target=$OPTARG ;;
	*) sed -n '2,14p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if ! [[ $time_s =~ ^[0-9]+$ ]] || [ "$time_s" -eq 0 ]; then
	echo "run.sh: -t $time_s: not a number of seconds" >&2
	exit 2
fi
case $target in
fuzz_policy | fuzz_merge | fuzz_state | fuzz_knobmap | fuzz_metrics) ;;
*) echo "run.sh: -f $target: not a fuzz target (fuzz_policy, fuzz_merge, fuzz_state," \
	"fuzz_knobmap, fuzz_metrics)" >&2; exit 2 ;;
esac

cc=${CC:-clang}
if ! command -v "$cc" >/dev/null || ! "$cc" --version 2>/dev/null | grep -q clang; then
	echo "skipped: clang not found (Debian: apt-get install clang)"
	exit 77
fi
# libFuzzer's runtime is a separate Debian package (libclang-rt-14-dev)
probe_dir=$(mktemp -d /tmp/pt-fuzz-probe.XXXXXX)
trap 'rm -rf "$probe_dir"' EXIT
cat >"$probe_dir/t.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }
EOF
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe_dir/t.c" -o "$probe_dir/t" \
	2>"$probe_dir/err"; then
	echo "skipped: $cc cannot link libFuzzer (Debian: apt-get install libclang-rt-14-dev):" \
	     "$(head -1 "$probe_dir/err")"
	exit 77
fi

mkdir -p "$build"
if ! CC=$cc cmake -S "$top" -B "$build" -DPT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	>"$build/configure.log" 2>&1; then
	echo "run.sh: configure failed, see $build/configure.log:" >&2
	tail -5 "$build/configure.log" >&2
	exit 2
fi
if ! cmake --build "$build" --target "$target" -j"$(nproc)" >"$build/build.log" 2>&1; then
	echo "run.sh: build failed, see $build/build.log:" >&2
	grep -m5 -E "error|Error" "$build/build.log" >&2
	exit 2
fi
fuzzer=$build/tests/fuzz/$target
[ -x "$fuzzer" ] || { echo "run.sh: $fuzzer was not built" >&2; exit 2; }

# each target keeps the inputs it found: they cover different code
corpus=$build/corpus
[ "$target" = fuzz_policy ] || corpus=$build/corpus-$target
mkdir -p "$corpus" "$build/artifacts"
log=$build/$target.log
[ "$target" = fuzz_policy ] && log=$build/fuzz.log
before=$(find "$build/artifacts" -type f | wc -l)
seeds=("$here/corpus")
dict=$here/policy.dict
extra=()
case $target in
fuzz_state) seeds=("$here/corpus-state") ;;
fuzz_knobmap) seeds=("$here/corpus-knobmap"); dict=$here/knobmap.dict ;;
fuzz_metrics)
	seeds=("$here/corpus-metrics" "$here/corpus" "$top/tests/data")
	# tests/data's recordings run to 320 KB: as seeds they would set max_len, and
	# every mutated input would cost a whole recording's parse.  24 KiB keeps each
	# seed of corpus/ whole (the largest is 21 KB); the recordings are cut there.
	extra=(-max_len=24576) ;;
esac
cmd=("$fuzzer" -max_total_time="$time_s" -print_final_stats=1 -timeout=10
     -rss_limit_mb=2048 -dict="$dict" "${extra[@]}"
     -artifact_prefix="$build/artifacts/" "$@" "$corpus" "${seeds[@]}")
echo "fuzzing ${time_s}s: ${cmd[*]}"
"${cmd[@]}" >"$log" 2>&1
rc=$?

execs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$log" | tail -1)
speed=$(awk '/stat::average_exec_per_sec/ { print $2 }' "$log" | tail -1)
cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1)
new=$(($(find "$build/artifacts" -type f | wc -l) - before))
echo "executions: ${execs:-unknown} (${speed:-?}/s)"
echo "coverage: ${cov:-unknown}"
echo "crashes: $new new artifact(s) in $build/artifacts, libFuzzer exit $rc"
if [ "$rc" -ne 0 ] || [ "$new" -gt 0 ]; then
	echo "--- from $log:"
	grep -m1 -B4 -A30 -E "^==[0-9]+==|runtime error" "$log" | grep -vE "^(INFO|#[0-9])"
	grep -E "^SUMMARY|Test unit written" "$log"
	exit 1
fi
exit 0
