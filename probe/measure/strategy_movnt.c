// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Non-temporal copies, after the kernel's __memcpy_flushcache and PMDK's
 * memcpy_nt: a cached head up to the store width's alignment (flushed),
 * the streaming body, a tail streamed in narrower stores where it is
 * whole words (cached and flushed where not), one sfence that drains
 * the write-combining buffers and orders the flushes.  Loads are
 * unaligned; only the NT stores need the alignment.
 */
#include "measure/strategy_nt_ends.h"

/* One NT kernel: the store width's type, bytes, load and streaming store. */
#define NT_KERNEL(name, type, width, load, stream)				\
void name(void *dst, const void *src, size_t len)				\
{										\
	char *d = dst;								\
	const char *s = src;							\
										\
	if (!len)								\
		return;								\
	len = strategy_nt_head(&d, &s, len, (width));				\
	STRATEGY_VEC_LOOP(type, (width), load, stream, d, s, len);		\
	strategy_nt_tail(d, s, len);						\
	_mm_sfence();								\
}

/* 8-byte movnti */
NT_KERNEL(strategy_copy_movnt, long long, 8, STRATEGY_LOAD8, STRATEGY_STREAM8)

/* 16-byte movntdq */
NT_KERNEL(strategy_copy_movnt_sse2, __m128i, 16, STRATEGY_LOAD16, STRATEGY_STREAM16)

/* 256-bit vmovntdq is AVX (AVX2 only adds integer ALU ops). */
__attribute__((target("avx")))
NT_KERNEL(strategy_copy_movnt_avx2, __m256i, 32, STRATEGY_LOAD32, STRATEGY_STREAM32)

/* 512-bit vmovntdq */
__attribute__((target("avx512f")))
NT_KERNEL(strategy_copy_movnt_avx512, __m512i, 64, STRATEGY_LOAD64, STRATEGY_STREAM64)

/*
 * The fills store one register over and over: no loads, so this is the
 * most the target takes (the probe's ceiling).  dst is 64-byte aligned
 * and len a multiple of 64, as strategy.h requires.
 */
static void fill_nt_sse2(char *d, size_t len)
{
	__m128i v = _mm_set1_epi8((char)STRATEGY_FILL_BYTE);

	for (; len >= 64; d += 64, len -= 64) {
		_mm_stream_si128((__m128i *)d, v);
		_mm_stream_si128((__m128i *)(d + 16), v);
		_mm_stream_si128((__m128i *)(d + 32), v);
		_mm_stream_si128((__m128i *)(d + 48), v);
	}
}

__attribute__((target("avx")))
static void fill_nt_avx(char *d, size_t len)
{
	__m256i v = _mm256_set1_epi8((char)STRATEGY_FILL_BYTE);

	for (; len >= 64; d += 64, len -= 64) {
		_mm256_stream_si256((__m256i *)d, v);
		_mm256_stream_si256((__m256i *)(d + 32), v);
	}
}

__attribute__((target("avx512f")))
static void fill_nt_avx512(char *d, size_t len)
{
	__m512i v = _mm512_set1_epi8((char)STRATEGY_FILL_BYTE);

	for (; len >= 64; d += 64, len -= 64)
		_mm512_stream_si512((__m512i *)d, v);
}

void strategy_fill_nt(void *dst, size_t len)
{
	if (!len)
		return;
	switch (strategy_helpers.fill) {
	case STRATEGY_VEC_AVX512:
		fill_nt_avx512(dst, len);
		break;
	case STRATEGY_VEC_AVX:
		fill_nt_avx(dst, len);
		break;
	default:
		fill_nt_sse2(dst, len);
		break;
	}
	_mm_sfence();
}
