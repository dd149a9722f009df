#!/bin/bash
# ctest entry point of the dm-writecache e2e test: prepares the host (setup.sh), builds
# the patched dm-writecache.ko and the test of its copy routine, pt_wc_copy.ko, for the
# guest kernel (kmod/dm-writecache.sh), then runs guest/dm_writecache.sh with them,
# dmsetup, pmem-tuned, mkpolicy and the built-in knob map.
# PT_E2E_DM_WRITECACHE_KO=path: load that dm-writecache.ko instead (dkms-test.sh's, as
# DKMS built it from the .deb).
# usage: dm-writecache-test.sh PMEM-TUNED MKPOLICY KNOB-MAP [RUN-GUEST-OPTIONS...]
# Exit status: run-guest.sh's; 77 (skipped, with the reason) when the host cannot do it.
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR
. "$dir/lib.sh"
(($# >= 3)) || pt_die "usage: ${0##*/} PMEM-TUNED MKPOLICY KNOB-MAP [RUN-GUEST-OPTIONS...]"
daemon=$1 mkpolicy=$2 knobs=$3
shift 3

rc=0
"$dir/setup.sh" || rc=$?
case $rc in
0) ;;
77) exit 77 ;;
*) echo "e2e setup failed (rc $rc)"; exit "$rc" ;;
esac
dmsetup=$(PATH=$PATH:/usr/sbin:/sbin command -v dmsetup || true)
if [[ -z $dmsetup && $(id -u) -eq 0 ]]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends dmsetup \
		>"$PT_E2E_CACHE/apt-dmsetup.log" 2>&1 || true
	dmsetup=$(PATH=$PATH:/usr/sbin:/sbin command -v dmsetup || true)
fi
[[ -n $dmsetup ]] || pt_skip "dmsetup missing on the host (apt-get install dmsetup)"
built=$("$dir/kmod/dm-writecache.sh") || exit $?
{ read -r ko && read -r cko; } <<<"$built" || pt_die "kmod/dm-writecache.sh printed '$built'"
ko=${PT_E2E_DM_WRITECACHE_KO:-$ko}
[[ -r $ko ]] || pt_die "no $ko"
[[ -r $cko ]] || pt_die "no $cko"

exec "$dir/run-guest.sh" --script "$dir/guest/dm_writecache.sh" \
	--module dm_mod --module brd \
	--file "$ko:/pt-e2e/files/dm-writecache.ko" --file "$cko:/pt-e2e/files/pt_wc_copy.ko" \
	--file "$dmsetup:/usr/sbin/dmsetup" \
	--file "$daemon:/usr/local/bin/pmem-tuned" --file "$mkpolicy:/usr/local/bin/mkpolicy" \
	--file "$knobs:/etc/pmem-tuned/knobs.d/50-builtin.conf" \
	--nvdimm-size 512M "$@"
