#!/usr/bin/env bash
# The main job: install what is missing, build, probe the default target
# (every pmem region with room for scratch space, else DRAM), print the
# table and write ./pmem-policy.json.  Extra arguments go to pmem-tune.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" build
"$top/scripts/build.sh" "$top/build" -DPT_WERROR=ON
exec "$top/build/probe/pmem-tune" --probe --target auto --output ./pmem-policy.json "$@"
