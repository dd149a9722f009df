#!/usr/bin/env bash
# Install what is missing, build twice (warnings as errors; ASan+UBSan), and
# run every test with ctest in both trees.  PT_TEST_LABELS=unit limits the run
# (ctest -L syntax); the e2e label boots a qemu guest and takes minutes; the
# package label builds the Debian packages and runs lintian on them.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" test

"$top/scripts/build.sh" "$top/build" -DPT_WERROR=ON
"$top/scripts/build.sh" "$top/build-asan" -DPT_WERROR=ON -DPT_SANITIZE=ON

labels=()
[ -n "${PT_TEST_LABELS:-}" ] && labels=(-L "$PT_TEST_LABELS")
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
status=0
echo "== ctest in build (every label: unit, integration, package, fuzz, e2e)"
(cd "$top/build" && ctest --output-on-failure "${labels[@]}") || status=1
# The qemu guests, the packages (a plain build of their own) and the fuzzer
# (which builds its own clang tree) run once, above; under the sanitizers,
# everything else that runs on this host.
echo "== ctest in build-asan (unit, integration under ASan+UBSan)"
(cd "$top/build-asan" && ctest --output-on-failure -LE 'e2e|fuzz|package' "${labels[@]}") ||
	status=1
exit $status
