/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The copy kernels, one per entry of the strategy table, and the
 * helpers they share.  The table (strategy.c) depends on these; nothing
 * here knows the table.
 */
#ifndef PMEM_TUNE_STRATEGY_KERNELS_H
#define PMEM_TUNE_STRATEGY_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

enum strategy_flush_insn {
	STRATEGY_FLUSH_CLFLUSH,
	STRATEGY_FLUSH_CLFLUSHOPT,
	STRATEGY_FLUSH_CLWB,
};

enum strategy_vec {
	STRATEGY_VEC_SSE2,
	STRATEGY_VEC_AVX,
	STRATEGY_VEC_AVX512,
};

/* Chosen by strategy_init(); the defaults run on any x86-64. */
struct strategy_helpers {
	enum strategy_flush_insn flush;	/* heads and tails of NT copies */
	enum strategy_vec copy;		/* cached copy: SSE2 or AVX */
	enum strategy_vec fill;		/* strategy_fill_nt() */
	bool clflushopt;		/* strategy_evict() */
};

extern struct strategy_helpers strategy_helpers;

/* Cached copy of any length with the vector width strategy_init() chose. */
void strategy_copy_cached(void *dst, const void *src, size_t len);
/* Write back [addr, addr + len) with the best flush; no fence. */
void strategy_flush_best(const void *addr, size_t len);
/*
 * Drop [addr, addr + len) from every cache level (clflushopt, else
 * clflush; never clwb, which keeps the line), then sfence: the sweep
 * keeps its destinations cold this way, outside the timed copies.
 */
void strategy_evict(const void *addr, size_t len);

/*
 * Kernels (strategy_movnt.c, _flush.c, _movdir64b.c): one signature,
 * the one a table entry's copy pointer takes.
 */
typedef void strategy_kernel(void *dst, const void *src, size_t len);

strategy_kernel strategy_copy_movnt;
strategy_kernel strategy_copy_movnt_sse2;
strategy_kernel strategy_copy_movnt_avx2;
strategy_kernel strategy_copy_movnt_avx512;
strategy_kernel strategy_copy_movdir64b;
strategy_kernel strategy_copy_clwb;
strategy_kernel strategy_copy_clflushopt;
strategy_kernel strategy_copy_clflush;
strategy_kernel strategy_copy_rep_movsb_clwb;
strategy_kernel strategy_copy_stores8_clwb;
strategy_kernel strategy_copy_memcpy_clwb;
strategy_kernel strategy_copy_noflush;

/*
 * Streaming fill of [dst, dst + len) with the widest non-temporal store
 * strategy_init() found, then sfence: the target's write ceiling.  dst
 * 64-byte aligned, len a multiple of 64.  Every byte becomes
 * STRATEGY_FILL_BYTE.
 */
void strategy_fill_nt(void *dst, size_t len);
/* Not 0 and not 0xff, so that a test can tell it from fresh memory. */
#define STRATEGY_FILL_BYTE 0xa5

#endif
