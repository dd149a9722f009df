// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pt_wc_copy: dm-writecache's copy to pmem, memcpy_flushcache_optimized()
 * with its nt_max_bytes, run at load time on copies that dm-writecache's
 * bios do not make today: 1 to 8193 bytes, 0 to 63 bytes off a cache line,
 * under nt_max_bytes 768, U64_MAX, 0, 32, 64 and 1000.  The code is the
 * patched driver's own: kmod/dm-writecache.sh cuts it out of the prepared
 * dm-writecache.c into wc_copy.h.
 *
 * Each copy must land exactly, with the guard bytes around it untouched;
 * take the non-temporal path (memcpy_flushcache(), once) if and only if
 * size <= nt_max_bytes; otherwise flush with clflushopt every cache line
 * it wrote and no other.  The two are watched by spies that count and then
 * do the real thing.  Loading fails with EIO when a case fails, ENODEV
 * without clflushopt.  The source ends at the end of its vmalloc() area:
 * a copy that reads past it faults on the guard page at once rather than
 * running through memory.
 */
#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/cpufeature.h>
#include <asm/special_insns.h>

#define PT_MAX_COPY	8193
#define PT_LEAD		128		/* guard bytes before a copy */
#define PT_SRC_BYTES	PAGE_ALIGN(PT_MAX_COPY)
#define PT_DST_BYTES	PAGE_ALIGN(PT_LEAD + 64 + PT_MAX_COPY + 128)
#define PT_GUARD	0xa5
#define PT_REPORT_MAX	20		/* failures printed one by one */

static char *src_area, *dst_area;
static DECLARE_BITMAP(flushed, PT_DST_BYTES / 64);
static unsigned int stray_flushes, nt_copies;

static void pt_clflushopt(void *p)
{
	unsigned long off = (unsigned long)p - (unsigned long)dst_area;

	if (off < PT_DST_BYTES)
		__set_bit(off / 64, flushed);
	else
		stray_flushes++;
	clflushopt(p);
}

static void pt_memcpy_flushcache(void *dst, const void *src, size_t n)
{
	nt_copies++;
	memcpy_flushcache(dst, src, n);
}

#define clflushopt(p) pt_clflushopt(p)
#define memcpy_flushcache(d, s, n) pt_memcpy_flushcache(d, s, n)
#include "wc_copy.h"
#undef clflushopt
#undef memcpy_flushcache

static unsigned int failed;

/* one copy of size bytes to off bytes past a cache line; 0 or why it failed */
static const char *pt_copy_case(unsigned long long nt, size_t size, size_t off)
{
	char *dst = dst_area + PT_LEAD + off;
	const char *src = src_area + PT_SRC_BYTES - size;
	unsigned long first = (PT_LEAD + off) / 64;
	unsigned long last = (PT_LEAD + off + size - 1) / 64;

	memset(dst_area, PT_GUARD, PT_DST_BYTES);
	bitmap_zero(flushed, PT_DST_BYTES / 64);
	stray_flushes = 0;
	nt_copies = 0;
	WRITE_ONCE(nt_max_bytes, nt);

	memcpy_flushcache_optimized(dst, (void *)src, size);

	if (memcmp(dst, src, size))
		return "the copy differs from its source";
	if (memchr_inv(dst_area, PT_GUARD, PT_LEAD + off) ||
	    memchr_inv(dst + size, PT_GUARD, PT_DST_BYTES - PT_LEAD - off - size))
		return "bytes outside the copy changed";
	if (size <= nt) {
		if (nt_copies != 1 || stray_flushes || !bitmap_empty(flushed, PT_DST_BYTES / 64))
			return "not one non-temporal copy";
		return NULL;
	}
	if (nt_copies)
		return "non-temporal stores above nt_max_bytes";
	if (stray_flushes || bitmap_weight(flushed, PT_DST_BYTES / 64) != last - first + 1 ||
	    find_next_zero_bit(flushed, last + 1, first) <= last)
		return "the flushed lines are not the lines written";
	return NULL;
}

static const unsigned long long pt_nt[] = { 768, U64_MAX, 0, 32, 64, 1000 };
static const size_t pt_sizes[] = {
	1, 2, 3, 8, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 511, 512, 513,
	767, 768, 769, 1000, 1024, 1025, 4095, 4096, 4097, 8191, 8192, 8193,
};

static const size_t pt_offsets[] = { 0, 1, 7, 8, 32, 60, 63 };

static int __init pt_wc_copy_init(void)
{
	unsigned int cases = 0;
	size_t n, s, o;
	const char *why;

	if (!static_cpu_has(X86_FEATURE_CLFLUSHOPT) || boot_cpu_data.x86_clflush_size != 64) {
		pr_err("pt_wc_copy: needs clflushopt and 64-byte cache lines\n");
		return -ENODEV;
	}
	src_area = vmalloc(PT_SRC_BYTES);
	dst_area = vmalloc(PT_DST_BYTES);
	if (!src_area || !dst_area) {
		vfree(src_area);
		vfree(dst_area);
		return -ENOMEM;
	}
	get_random_bytes(src_area, PT_SRC_BYTES);

	for (n = 0; n < ARRAY_SIZE(pt_nt); n++) {
		pr_info("pt_wc_copy: nt_max_bytes=%llu\n", pt_nt[n]);
		for (s = 0; s < ARRAY_SIZE(pt_sizes); s++) {
			for (o = 0; o < ARRAY_SIZE(pt_offsets); o++) {
				cases++;
				why = pt_copy_case(pt_nt[n], pt_sizes[s], pt_offsets[o]);
				if (!why)
					continue;
				if (++failed <= PT_REPORT_MAX)
					pr_err("pt_wc_copy: FAIL nt_max_bytes=%llu size=%zu "
					       "offset=%zu: %s\n",
					       pt_nt[n], pt_sizes[s], pt_offsets[o], why);
			}
			cond_resched();
		}
	}
	vfree(src_area);
	vfree(dst_area);
	pr_info("pt_wc_copy: %u copies, %u failed\n", cases, failed);
	return failed ? -EIO : 0;
}

static void __exit pt_wc_copy_exit(void)
{
}

module_init(pt_wc_copy_init);
module_exit(pt_wc_copy_exit);
MODULE_DESCRIPTION("pmem-tuned e2e test: dm-writecache's copy to pmem at every size and alignment");
MODULE_LICENSE("GPL");
