// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the kernels share beyond inline code: the helpers strategy_init()
 * chose for this CPU, the cached copy and the flush of NT heads and tails.
 */
#include "measure/strategy_simd.h"

struct strategy_helpers strategy_helpers = {
	.flush = STRATEGY_FLUSH_CLFLUSH,
	.copy = STRATEGY_VEC_SSE2,
	.fill = STRATEGY_VEC_SSE2,
};

/* Heads and tails of the NT copies: the flush strategy_init() chose. */
void strategy_flush_best(const void *addr, size_t len)
{
	static void (*const flush[])(const void *addr, size_t len) = {
		[STRATEGY_FLUSH_CLFLUSH] = strategy_flush_clflush,
		[STRATEGY_FLUSH_CLFLUSHOPT] = strategy_flush_clflushopt,
		[STRATEGY_FLUSH_CLWB] = strategy_flush_clwb,
	};

	flush[strategy_helpers.flush](addr, len);
}

void strategy_evict(const void *addr, size_t len)
{
	if (strategy_helpers.clflushopt)
		strategy_flush_clflushopt(addr, len);
	else
		strategy_flush_clflush(addr, len);
	_mm_sfence();
}

/*
 * The cached copies.  More than 64 bytes: whole vectors, then one last
 * vector ending at the end (overlapping what is already copied; src and
 * dst do not overlap, as for memcpy).  Unaligned loads and stores: on
 * anything since Nehalem/Zen they cost nothing extra when aligned.
 */
#define CACHED_COPY(name, type, width, load, store)				\
static void name(void *dst, const void *src, size_t len)			\
{										\
	char *d = dst;								\
	const char *s = src;							\
										\
	if (len <= 64) {							\
		strategy_copy_small(d, s, len);					\
		return;								\
	}									\
	STRATEGY_VEC_LOOP(type, (width), load, store, d, s, len);		\
	if (len)								\
		store(d + len - (width), load(s + len - (width)));		\
}

CACHED_COPY(copy_cached_sse2, __m128i, 16, STRATEGY_LOAD16, STRATEGY_STORE16)

__attribute__((target("avx")))
CACHED_COPY(copy_cached_avx, __m256i, 32, STRATEGY_LOAD32, STRATEGY_STORE32)

void strategy_copy_cached(void *dst, const void *src, size_t len)
{
	if (strategy_helpers.copy == STRATEGY_VEC_AVX)
		copy_cached_avx(dst, src, len);
	else
		copy_cached_sse2(dst, src, len);
}
