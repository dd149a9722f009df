#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The glibc sink reads the bounds of the host's glibc from its ld.so
# --list-tunables, here a fake loader (PMEM_TUNED_LDSO, test trees only)
# printing the listing recorded on glibc 2.36 with AVX-512, where
# x86_rep_movsb_threshold takes only values above 0x200: outside them
# glibc's default is kept and one line says so, on apply, --dry-run and
# --verify alike; a loader that fails keeps every default.
set -u
DAEMON=$1
MKPOLICY=$2
DATA=$3

T=$(mktemp -d "${TMPDIR:-/tmp}/pt-glibc-bounds.XXXXXX")
trap 'rm -rf "$T"' EXIT
# shellcheck source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"
# shellcheck source=fake-root.sh
. "$(dirname "$0")/fake-root.sh"
tap_on_fail() { sed 's/^/#   /' "$T/out" "$T/err" 2>/dev/null; }

fake_daemon_root "$T"
echo "glibc_tunables = file" > "$T/etc/pmem-tuned/pmem-tuned.conf"
printf '#!/bin/sh\nexec /bin/cat "%s"\n' "$DATA/glibc-tunables/debian-2.36-amd-f26-kvm.txt" \
	> "$T/ld.so"
printf '#!/bin/sh\nexit 127\n' > "$T/broken-ld.so"
chmod 755 "$T/ld.so" "$T/broken-ld.so"
"$MKPOLICY" "$T/etc/pmem-policy.json" --nt 0x180000 --movsb 0x100 || exit 1
run() {	# LOADER MODE: stdout in $T/out, stderr in $T/err
	env -u INVOCATION_ID -u JOURNAL_STREAM -u GLIBC_TUNABLES PMEM_TUNED_LDSO="$T/$1" \
		"$DAEMON" "$2" --force --sysfs-root "$T" --etc-root "$T" > "$T/out" 2> "$T/err"
}
said() { grep -qF "glibc: glibc.cpu.x86_rep_movsb_threshold=0x100: outside this host's glibc bounds (takes above 0x200 up to 0xffffffffffffffff: $T/ld.so --list-tunables); glibc's default 0x840 kept" "$T/err"; }

run ld.so --dry-run
ok "--dry-run: would write the non-temporal threshold alone" grep -qx \
	"glibc: would write $T/etc/pmem-tuned/glibc.env: GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0x180000" \
	"$T/out"
ok "--dry-run: one line names the tunable, the value and the bounds" said
ok "--dry-run: counted as refused" grep -q ', 1 refused$' "$T/out"
ok "--dry-run: changes nothing" test ! -e "$T/etc/pmem-tuned/glibc.env"

run ld.so --oneshot
ok "--oneshot: applied" test "$(sed -n 's/^GLIBC_TUNABLES=//p' "$T/etc/pmem-tuned/glibc.env")" = \
	glibc.cpu.x86_non_temporal_threshold=0x180000
ok "--oneshot: said once" test "$(grep -c x86_rep_movsb_threshold "$T/err")" = 1
ok "--oneshot: and said" said

run ld.so --verify
ok "--verify: no drift for the default kept" grep -q ': 0 to change, 1 unchanged, 1 refused$' "$T/out"
ok "--verify: says why rep_movsb is not there" said

rm -rf "$T/etc/pmem-tuned/glibc.env" "$T/run/pmem-tuned"
run broken-ld.so --oneshot
ok "a failing loader: nothing written" test ! -e "$T/etc/pmem-tuned/glibc.env"
ok "a failing loader: said for each tunable" test "$(grep -c \
	"this host's glibc bounds unknown ($T/broken-ld.so --list-tunables: exited with status 127); glibc's default kept" \
	"$T/err")" = 2

tap_finish test_glibc_bounds
