// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the kernels share beyond inline code: the helpers strategy_init()
 * chose for this CPU, the cached copy and the flush of NT heads and tails.
 */
#include "strategy_internal.h"

struct strategy_helpers strategy_helpers = {
	.flush = STRATEGY_FLUSH_CLFLUSH,
	.copy = STRATEGY_VEC_SSE2,
	.fill = STRATEGY_VEC_SSE2,
};

/* Heads and tails of the NT copies: the flush strategy_init() chose. */
void strategy_flush_best(const void *addr, size_t len)
{
	switch (strategy_helpers.flush) {
	case STRATEGY_FLUSH_CLWB:
		strategy_flush_clwb(addr, len);
		break;
	case STRATEGY_FLUSH_CLFLUSHOPT:
		strategy_flush_clflushopt(addr, len);
		break;
	default:
		strategy_flush_clflush(addr, len);
		break;
	}
}

/*
 * The cached copies.  More than 64 bytes: whole vectors, then one last
 * vector ending at the end (overlapping what is already copied; src and
 * dst do not overlap, as for memcpy).  Unaligned loads and stores: on
 * anything since Nehalem/Zen they cost nothing extra when aligned.
 */
static void copy_cached_sse2(void *dst, const void *src, size_t len)
{
	char *d = dst;
	const char *s = src;

	if (len <= 64) {
		strategy_copy_small(d, s, len);
		return;
	}
	for (; len >= 64; d += 64, s += 64, len -= 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + 48));

		_mm_storeu_si128((__m128i *)d, a);
		_mm_storeu_si128((__m128i *)(d + 16), b);
		_mm_storeu_si128((__m128i *)(d + 32), c);
		_mm_storeu_si128((__m128i *)(d + 48), e);
	}
	for (; len >= 16; d += 16, s += 16, len -= 16)
		_mm_storeu_si128((__m128i *)d,
				 _mm_loadu_si128((const __m128i *)s));
	if (len)
		_mm_storeu_si128((__m128i *)(d + len - 16),
				 _mm_loadu_si128((const __m128i *)(s + len - 16)));
}

__attribute__((target("avx")))
static void copy_cached_avx(void *dst, const void *src, size_t len)
{
	char *d = dst;
	const char *s = src;

	if (len <= 64) {
		strategy_copy_small(d, s, len);
		return;
	}
	for (; len >= 128; d += 128, s += 128, len -= 128) {
		__m256i a = _mm256_loadu_si256((const __m256i *)s);
		__m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
		__m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
		__m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));

		_mm256_storeu_si256((__m256i *)d, a);
		_mm256_storeu_si256((__m256i *)(d + 32), b);
		_mm256_storeu_si256((__m256i *)(d + 64), c);
		_mm256_storeu_si256((__m256i *)(d + 96), e);
	}
	for (; len >= 32; d += 32, s += 32, len -= 32)
		_mm256_storeu_si256((__m256i *)d,
				    _mm256_loadu_si256((const __m256i *)s));
	if (len)
		_mm256_storeu_si256((__m256i *)(d + len - 32),
				    _mm256_loadu_si256((const __m256i *)(s + len - 32)));
}

void strategy_copy_cached(void *dst, const void *src, size_t len)
{
	if (strategy_helpers.copy == STRATEGY_VEC_AVX)
		copy_cached_avx(dst, src, len);
	else
		copy_cached_sse2(dst, src, len);
}
