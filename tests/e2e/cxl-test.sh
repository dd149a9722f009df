#!/bin/bash
# ctest entry of e2e_cxl: two guests with a CXL Type-3 persistent device beside an
# NVDIMM (run-guest.sh --cxl).  The first probes both and exports its policy; the
# second, whose device has another serial number, checks that policy as its own.
# usage: cxl-test.sh PMEM_TUNE PMEM_TUNED KNOBS OUTDIR
# Exit status: the guests'; 77 (skipped, with the reason) when the host cannot do it.
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
tune=$1 daemon=$2 knobs=$3 out=$4
"$dir/setup.sh" || exit $?
mkdir -p "$out"
rm -f "$out/policy.json"
common=(--cxl --file "$tune:/usr/local/bin/pmem-tune" --file "$daemon:/usr/local/bin/pmem-tuned"
	--file "$knobs:/etc/pmem-tuned/knobs.d/50-builtin.conf" --persistence mem-ctrl)
"$dir/run-guest.sh" --script "$dir/guest/cxl.sh" "${common[@]}" --cxl-sn 1 \
	--outdir "$out" -- probe
[[ -s $out/policy.json ]] || { echo "FAILED: the first guest exported no policy"; exit 1; }
exec "$dir/run-guest.sh" --script "$dir/guest/cxl.sh" "${common[@]}" --cxl-sn 4242 \
	--file "$out/policy.json:/pt-e2e/files/policy.json" -- check
