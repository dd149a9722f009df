# shellcheck shell=sh
# The kernel end of the policy (busybox sh in the guest).  First pt_wc_copy.ko runs the
# patched driver's copy routine on its own, at sizes and alignments the driver's bios
# never have (kmod/pt_wc_copy.c).  Then the patched dm-writecache.ko (kernel/) replaces
# the stock one, a dm-writecache device gets an fsdax namespace of the emulated NVDIMM
# as cache and a ram disk as origin, pmem-tuned applies three policies through the
# built-in knob map (512, never switch, 0 = never non-temporal) and 32 is written by
# hand, and the kernel's own kprobe hit counts show which copy each write took:
# __memcpy_flushcache (non-temporal) or not (cached stores + clflushopt, inline in
# bio_copy_block).  Data reads back identical after the cache is flushed; --restore
# and SIGTERM put 768 back.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /pt-e2e/lib.sh
set -u

P=/sys/module/dm_writecache/parameters/nt_max_bytes
T=/sys/kernel/tracing
NBLK=64				# 4 KiB writes per policy
export DM_DISABLE_UDEV=1	# no udev here: libdevmapper makes the nodes itself

grep -qw clflushopt /proc/cpuinfo || pt_fail "guest CPU has no clflushopt (qemu -cpu max?)"

# --- the copy routine alone: 1 to 8193 bytes, 0 to 63 bytes off a line -------------
# Loading runs every case; a copy that runs away oopses insmod (killed: 137).
rc=0
pt_run insmod /pt-e2e/files/pt_wc_copy.ko || rc=$?
dmesg | grep 'pt_wc_copy:'
if [ "$rc" -ne 0 ]; then
	dmesg | grep -A 12 -E 'BUG:|general protection|Oops' | head -n 40
fi
pt_expect_eq "copy routine: every size, offset and nt_max_bytes (insmod pt_wc_copy.ko)" 0 "$rc"
[ "$rc" -eq 0 ] && rmmod pt_wc_copy

# --- the module ---------------------------------------------------------------
pt_check "stock dm-writecache not loaded" test ! -e /sys/module/dm_writecache
pt_run insmod /pt-e2e/files/dm-writecache.ko || pt_fail "insmod dm-writecache.ko"
pt_expect_eq "nt_max_bytes defaults to 768" 768 "$(cat $P)"
for bad in -1 18446744073709551616 abc; do
	pt_check "nt_max_bytes refuses '$bad'" sh -c "! echo $bad > $P 2>/dev/null"
done
pt_expect_eq "nt_max_bytes still 768" 768 "$(cat $P)"

# --- the device: fsdax namespace as cache, ram disk as origin ---------------------
if ! { ndctl disable-region all && ndctl init-labels all && ndctl enable-region all; } 2>/dev/null
then
	pt_fail "ndctl init-labels"
fi
ndctl create-namespace -r region0 -m fsdax -s 128M >/tmp/ns.json ||
	pt_fail "ndctl create-namespace -m fsdax"
pmem=/dev/$(jq -r .blockdev /tmp/ns.json)
pt_wait_for "$pmem" || pt_fail "$pmem did not appear"
pt_wait_for /dev/ram0 || pt_fail "/dev/ram0 (brd) missing"
sectors=$(blockdev --getsz /dev/ram0)
pt_run dmsetup create wc --table "0 $sectors writecache p /dev/ram0 $pmem 4096 0" ||
	pt_fail "dmsetup create writecache"
dev=/dev/mapper/wc
pt_wait_for "$dev" || dev=/dev/dm-0
pt_run dmsetup table wc

# --- the kernel's evidence: kprobe hit counts ---------------------------------------
mount -t tracefs nodev $T 2>/dev/null || mount -t debugfs nodev /sys/kernel/debug
[ -e $T/kprobe_events ] || T=/sys/kernel/debug/tracing
echo 'p:pt_nt __memcpy_flushcache' >>$T/kprobe_events || pt_fail "kprobe on __memcpy_flushcache"
echo 'p:pt_blk dm_writecache:bio_copy_block' >>$T/kprobe_events ||
	pt_fail "kprobe on dm_writecache:bio_copy_block"
echo 0 >$T/tracing_on	# counts only: the ring buffer is not needed
echo 1 >$T/events/kprobes/enable || pt_fail "enabling the kprobes"
hits() { awk -v e="$1" '$1 == e { print $2 }' $T/kprobe_profile; }

# write_blocks FIRST: NBLK 4 KiB direct writes of fresh data at block FIRST;
# sets nt and blk to the two probes' hit counts during the writes
write_blocks() {
	dd if=/dev/urandom of="/tmp/data.$1" bs=4096 count=$NBLK 2>/dev/null
	n0=$(hits pt_nt) b0=$(hits pt_blk)
	dd if="/tmp/data.$1" of="$dev" bs=4096 seek="$1" count=$NBLK oflag=direct 2>/dev/null ||
		pt_fail "writing through $dev"
	nt=$(($(hits pt_nt) - n0)) blk=$(($(hits pt_blk) - b0))
	echo "kprobe hits for $NBLK writes of 4096 B: __memcpy_flushcache $nt, bio_copy_block $blk"
	echo "PT_E2E_EVIDENCE nt_max_bytes=$(cat $P) __memcpy_flushcache=$nt bio_copy_block=$blk"
}

# --- policy A: non-temporal up to 512 bytes, cached + flush above -------------------
pt_run mkpolicy /etc/pmem-policy.json --host / --kernel 512 --no-libpmem --no-glibc ||
	pt_fail "mkpolicy"
pt_run pmem-tuned --oneshot --no-bus >/tmp/a.log 2>&1
cat /tmp/a.log
pt_expect_eq "policy A: nt_max_bytes reads back the policy's value" 512 "$(cat $P)"
write_blocks 0
pt_check "policy A: every 4 KiB block copied ($blk >= $NBLK)" test "$blk" -ge $NBLK
pt_check "policy A: no copy took __memcpy_flushcache ($nt)" test "$nt" -eq 0
pt_run pmem-tuned --restore --no-bus
pt_expect_eq "--restore: nt_max_bytes back to 768" 768 "$(cat $P)"

# --- policy B: non-temporal at every size (the policy's "never switch") -------------
pt_run mkpolicy /etc/pmem-policy.json --host / --kernel open --no-libpmem --no-glibc
pmem-tuned --no-bus >/tmp/b.log 2>&1 &
pid=$!
i=0
while [ "$(cat $P)" = 768 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
pt_expect_eq "policy B: nt_max_bytes reads back 'never switch'" 18446744073709551615 "$(cat $P)"
write_blocks $NBLK
pt_check "policy B: every 4 KiB block copied ($blk >= $NBLK)" test "$blk" -ge $NBLK
pt_check "policy B: every copy took __memcpy_flushcache ($nt >= $NBLK)" test "$nt" -ge $NBLK
kill -TERM $pid
wait $pid
pt_expect_eq "daemon stopped (SIGTERM): exit status" 0 "$?"
cat /tmp/b.log
pt_expect_eq "daemon stopped: nt_max_bytes back to 768" 768 "$(cat $P)"

# --- policy C: never non-temporal (0), then 32 by hand: every copy cached + flush ----
pt_run mkpolicy /etc/pmem-policy.json --host / --kernel 0 --no-libpmem --no-glibc
pt_run pmem-tuned --oneshot --no-bus >/tmp/c.log 2>&1
cat /tmp/c.log
pt_expect_eq "policy C: nt_max_bytes reads back 0" 0 "$(cat $P)"
write_blocks $((2 * NBLK))
pt_check "policy C: every 4 KiB block copied ($blk >= $NBLK)" test "$blk" -ge $NBLK
pt_check "policy C: no copy took __memcpy_flushcache ($nt)" test "$nt" -eq 0
pt_run pmem-tuned --restore --no-bus
pt_expect_eq "--restore: nt_max_bytes back to 768" 768 "$(cat $P)"
echo 32 >$P
pt_expect_eq "nt_max_bytes takes 32" 32 "$(cat $P)"
write_blocks $((3 * NBLK))
pt_check "32: every 4 KiB block copied ($blk >= $NBLK)" test "$blk" -ge $NBLK
pt_check "32: no copy took __memcpy_flushcache ($nt)" test "$nt" -eq 0
echo 768 >$P

# --- the data: written back to the origin, identical --------------------------------
pt_run dmsetup message wc 0 flush || pt_fail "dmsetup message wc 0 flush"
pt_run dmsetup status wc
cat /tmp/data.0 /tmp/data.$NBLK /tmp/data.$((2 * NBLK)) /tmp/data.$((3 * NBLK)) >/tmp/data
dd if=$dev of=/tmp/back.dev bs=4096 count=$((4 * NBLK)) iflag=direct 2>/dev/null
pt_check "reads through the device match what was written" cmp /tmp/data /tmp/back.dev
pt_run dmsetup remove wc
echo 3 >/proc/sys/vm/drop_caches
dd if=/dev/ram0 of=/tmp/back.origin bs=4096 count=$((4 * NBLK)) iflag=direct 2>/dev/null
pt_check "the origin holds what was written, after the flush" cmp /tmp/data /tmp/back.origin
pt_done
