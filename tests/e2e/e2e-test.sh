#!/bin/bash
# ctest entry point: prepares the host (setup.sh), then runs one guest test.
# usage: e2e-test.sh RUN-GUEST-OPTIONS...   (see run-guest.sh)
# Exit status: run-guest.sh's; 77 (skipped, with the reason) when setup cannot be done.
set -euo pipefail
dir=$(dirname "$0")
rc=0
"$dir/setup.sh" || rc=$?
case $rc in
0) ;;
77) exit 77 ;;	# setup.sh printed the reason
*) echo "e2e setup failed (rc $rc)"; exit "$rc" ;;
esac
exec "$dir/run-guest.sh" "$@"
