// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Non-temporal copies, after the kernel's __memcpy_flushcache and PMDK's
 * memcpy_nt: a cached head up to the store width's alignment (flushed),
 * the streaming body, a cached tail (flushed), one sfence that drains
 * the write-combining buffers and orders the flushes.  Loads are
 * unaligned; only the NT stores need the alignment.
 */
#include "strategy_internal.h"

void strategy_copy_movnt(void *dst, const void *src, size_t len)
{
	char *d = dst;
	const char *s = src;

	if (!len)
		return;
	len = strategy_nt_head(&d, &s, len, 8);
	for (; len >= 32; d += 32, s += 32, len -= 32) {
		long long a = (long long)strategy_load64(s);
		long long b = (long long)strategy_load64(s + 8);
		long long c = (long long)strategy_load64(s + 16);
		long long e = (long long)strategy_load64(s + 24);

		_mm_stream_si64((long long *)d, a);
		_mm_stream_si64((long long *)(d + 8), b);
		_mm_stream_si64((long long *)(d + 16), c);
		_mm_stream_si64((long long *)(d + 24), e);
	}
	for (; len >= 8; d += 8, s += 8, len -= 8)
		_mm_stream_si64((long long *)d, (long long)strategy_load64(s));
	strategy_nt_tail(d, s, len);
	_mm_sfence();
}

void strategy_copy_movnt_sse2(void *dst, const void *src, size_t len)
{
	char *d = dst;
	const char *s = src;

	if (!len)
		return;
	len = strategy_nt_head(&d, &s, len, 16);
	for (; len >= 64; d += 64, s += 64, len -= 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + 48));

		_mm_stream_si128((__m128i *)d, a);
		_mm_stream_si128((__m128i *)(d + 16), b);
		_mm_stream_si128((__m128i *)(d + 32), c);
		_mm_stream_si128((__m128i *)(d + 48), e);
	}
	for (; len >= 16; d += 16, s += 16, len -= 16)
		_mm_stream_si128((__m128i *)d,
				 _mm_loadu_si128((const __m128i *)s));
	strategy_nt_tail(d, s, len);
	_mm_sfence();
}

/* 256-bit vmovntdq is AVX (AVX2 only adds integer ALU ops). */
__attribute__((target("avx")))
void strategy_copy_movnt_avx2(void *dst, const void *src, size_t len)
{
	char *d = dst;
	const char *s = src;

	if (!len)
		return;
	len = strategy_nt_head(&d, &s, len, 32);
	for (; len >= 128; d += 128, s += 128, len -= 128) {
		__m256i a = _mm256_loadu_si256((const __m256i *)s);
		__m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
		__m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
		__m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));

		_mm256_stream_si256((__m256i *)d, a);
		_mm256_stream_si256((__m256i *)(d + 32), b);
		_mm256_stream_si256((__m256i *)(d + 64), c);
		_mm256_stream_si256((__m256i *)(d + 96), e);
	}
	for (; len >= 32; d += 32, s += 32, len -= 32)
		_mm256_stream_si256((__m256i *)d,
				    _mm256_loadu_si256((const __m256i *)s));
	strategy_nt_tail(d, s, len);
	_mm_sfence();
}

__attribute__((target("avx512f")))
void strategy_copy_movnt_avx512(void *dst, const void *src, size_t len)
{
	char *d = dst;
	const char *s = src;

	if (!len)
		return;
	len = strategy_nt_head(&d, &s, len, 64);
	for (; len >= 256; d += 256, s += 256, len -= 256) {
		__m512i a = _mm512_loadu_si512(s);
		__m512i b = _mm512_loadu_si512(s + 64);
		__m512i c = _mm512_loadu_si512(s + 128);
		__m512i e = _mm512_loadu_si512(s + 192);

		_mm512_stream_si512((__m512i *)d, a);
		_mm512_stream_si512((__m512i *)(d + 64), b);
		_mm512_stream_si512((__m512i *)(d + 128), c);
		_mm512_stream_si512((__m512i *)(d + 192), e);
	}
	for (; len >= 64; d += 64, s += 64, len -= 64)
		_mm512_stream_si512((__m512i *)d, _mm512_loadu_si512(s));
	strategy_nt_tail(d, s, len);
	_mm_sfence();
}

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
