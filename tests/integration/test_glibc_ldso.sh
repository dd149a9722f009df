#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# glibc takes the value: ld.so --list-tunables under the GLIBC_TUNABLES that
# pmem-tuned wrote shows the policy's thresholds, and the administrator's
# own entries survive the merge.  Also shows why 0x4040 is never exported,
# and that the daemon's bounds (from this ld.so) are the ones glibc applies.
set -u
DAEMON=$1
MKPOLICY=$2

LDSO=
for l in /lib64/ld-linux-x86-64.so.2 /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2; do
	[ -x "$l" ] && LDSO=$l && break
done
if [ -z "$LDSO" ] || ! "$LDSO" --list-tunables >/dev/null 2>&1; then
	echo "SKIP: needs an x86-64 ld.so with --list-tunables (glibc >= 2.33)"
	exit 77
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/pt-glibc.XXXXXX")
trap 'rm -rf "$T"' EXIT
# shellcheck source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"
tunable() { GLIBC_TUNABLES=$1 "$LDSO" --list-tunables | sed -n "s/^$2: \([^ ]*\).*/\1/p"; }

mkdir -p "$T/sys/module" "$T/etc/pmem-tuned/knobs.d" "$T/run"
"$MKPOLICY" "$T/etc/pmem-policy.json" --nt 0x180000 --movsb 0x3000 || exit 1
# the default writes no GLIBC_TUNABLES at all: it is opt-in
env -u INVOCATION_ID -u JOURNAL_STREAM \
	"$DAEMON" --oneshot --force --sysfs-root "$T" --etc-root "$T" || exit 1
ok "no glibc.env without glibc_tunables=" test ! -e "$T/etc/pmem-tuned/glibc.env"
echo "glibc_tunables = file" > "$T/etc/pmem-tuned/pmem-tuned.conf"
# the administrator's tunables, as the service manager would hand them down
env -u INVOCATION_ID -u JOURNAL_STREAM \
	GLIBC_TUNABLES=glibc.malloc.check=0:glibc.cpu.x86_rep_movsb_threshold=0x1800 \
	"$DAEMON" --oneshot --force --sysfs-root "$T" --etc-root "$T" || exit 1
v=$(sed -n 's/^GLIBC_TUNABLES=//p' "$T/etc/pmem-tuned/glibc.env")
echo "# GLIBC_TUNABLES=$v"
ok "administrator's entries kept" test "$v" = \
	"glibc.malloc.check=0:glibc.cpu.x86_rep_movsb_threshold=0x1800:glibc.cpu.x86_non_temporal_threshold=0x180000"
ok "ld.so takes x86_non_temporal_threshold" \
	test "$(tunable "$v" glibc.cpu.x86_non_temporal_threshold)" = 0x180000
ok "ld.so keeps the administrator's x86_rep_movsb_threshold" \
	test "$(tunable "$v" glibc.cpu.x86_rep_movsb_threshold)" = 0x1800

# without an administrator's value the policy's rep_movsb goes through
rm -rf "$T/run/pmem-tuned" "$T/etc/pmem-tuned/glibc.env"
env -u INVOCATION_ID -u JOURNAL_STREAM -u GLIBC_TUNABLES \
	"$DAEMON" --oneshot --force --sysfs-root "$T" --etc-root "$T" || exit 1
v=$(sed -n 's/^GLIBC_TUNABLES=//p' "$T/etc/pmem-tuned/glibc.env")
ok "ld.so takes x86_rep_movsb_threshold" \
	test "$(tunable "$v" glibc.cpu.x86_rep_movsb_threshold)" = 0x3000

# glibc silently ignores 0x4040; so pmem-tuned never exports it
ok "glibc ignores x86_non_temporal_threshold=0x4040" \
	test "$(tunable glibc.cpu.x86_non_temporal_threshold=0x4040 \
		glibc.cpu.x86_non_temporal_threshold)" != 0x4040
ok "glibc takes 0x4041" test "$(tunable glibc.cpu.x86_non_temporal_threshold=0x4041 \
	glibc.cpu.x86_non_temporal_threshold)" = 0x4041
rm -rf "$T/run/pmem-tuned" "$T/etc/pmem-tuned/glibc.env"
"$MKPOLICY" "$T/etc/pmem-policy.json" --nt 0x4040 || exit 1
env -u INVOCATION_ID -u JOURNAL_STREAM -u GLIBC_TUNABLES \
	"$DAEMON" --oneshot --force --sysfs-root "$T" --etc-root "$T" 2> "$T/err"
ok "0x4040 is refused with a reason" grep -q "glibc ignores values not above 0x4040" "$T/err"
ok "0x4040: no glibc.env" test ! -e "$T/etc/pmem-tuned/glibc.env"

# the daemon's bounds are glibc's: at this host's rep_movsb minimum glibc keeps
# its default and the daemon writes nothing; one above, both take it
min=$("$LDSO" --list-tunables |
	sed -n 's/^glibc.cpu.x86_rep_movsb_threshold: .*(min: \(0x[0-9a-f]*\),.*/\1/p')
dflt=$(tunable "" glibc.cpu.x86_rep_movsb_threshold)
above=$(printf '0x%x' $((min + 1)))
echo "# this glibc: x86_rep_movsb_threshold $dflt, min $min"
ok "glibc ignores x86_rep_movsb_threshold=$min" \
	test "$(tunable "glibc.cpu.x86_rep_movsb_threshold=$min" glibc.cpu.x86_rep_movsb_threshold)" = "$dflt"
rm -rf "$T/run/pmem-tuned" "$T/etc/pmem-tuned/glibc.env"
"$MKPOLICY" "$T/etc/pmem-policy.json" --nt 0x180000 --movsb "$min" || exit 1
env -u INVOCATION_ID -u JOURNAL_STREAM -u GLIBC_TUNABLES \
	"$DAEMON" --oneshot --force --sysfs-root "$T" --etc-root "$T" 2> "$T/err" || exit 1
ok "rep_movsb=$min not written" test "$(sed -n 's/^GLIBC_TUNABLES=//p' \
	"$T/etc/pmem-tuned/glibc.env")" = glibc.cpu.x86_non_temporal_threshold=0x180000
ok "and said, with glibc's bounds" grep -q \
	"x86_rep_movsb_threshold=$min: outside this host's glibc bounds (takes above $min " "$T/err"
rm -rf "$T/run/pmem-tuned" "$T/etc/pmem-tuned/glibc.env"
"$MKPOLICY" "$T/etc/pmem-policy.json" --nt 0x180000 --movsb "$above" || exit 1
env -u INVOCATION_ID -u JOURNAL_STREAM -u GLIBC_TUNABLES \
	"$DAEMON" --oneshot --force --sysfs-root "$T" --etc-root "$T" || exit 1
v=$(sed -n 's/^GLIBC_TUNABLES=//p' "$T/etc/pmem-tuned/glibc.env")
ok "rep_movsb=$above written and taken" \
	test "$(tunable "$v" glibc.cpu.x86_rep_movsb_threshold)" = "$above"

tap_finish test_glibc_ldso
