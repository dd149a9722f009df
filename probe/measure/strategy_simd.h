/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inline helpers shared between the strategy kernels only.  Every
 * function here that executes an instruction beyond SSE2 carries its
 * own target attribute: the binary runs on any x86-64 and picks at run
 * time.
 */
#ifndef PMEM_TUNE_STRATEGY_SIMD_H
#define PMEM_TUNE_STRATEGY_SIMD_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "measure/strategy_kernels.h"

/*
 * Flush granule.  PMDK uses a constant 64 too: every x86-64 CPU with
 * clflushopt or clwb has 64-byte lines, and flushing every 64 bytes is
 * still correct (only redundant) where a line is bigger.
 */
#define STRATEGY_LINE 64

static inline uint64_t strategy_load64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The loads and stores of one vector width, for STRATEGY_VEC_LOOP().
 * Loads are unaligned; the kernel using them carries the target.
 */
#define STRATEGY_LOAD8(p)		((long long)strategy_load64(p))
#define STRATEGY_STREAM8(p, v)		_mm_stream_si64((long long *)(p), (v))
#define STRATEGY_LOAD16(p)		_mm_loadu_si128((const __m128i *)(p))
#define STRATEGY_STORE16(p, v)		_mm_storeu_si128((__m128i *)(p), (v))
#define STRATEGY_STREAM16(p, v)		_mm_stream_si128((__m128i *)(p), (v))
#define STRATEGY_LOAD32(p)		_mm256_loadu_si256((const __m256i *)(p))
#define STRATEGY_STORE32(p, v)		_mm256_storeu_si256((__m256i *)(p), (v))
#define STRATEGY_STREAM32(p, v)		_mm256_stream_si256((__m256i *)(p), (v))
#define STRATEGY_LOAD64(p)		_mm512_loadu_si512(p)
#define STRATEGY_STREAM64(p, v)		_mm512_stream_si512((__m512i *)(p), (v))

/*
 * The body every vector kernel shares: four vectors of width bytes per
 * round, all loads before the stores, then one at a time while a whole
 * one is left.  A macro, so that the loads and stores are the calling
 * kernel's own instructions under its own target attribute.  Advances
 * d, s and len.
 */
#define STRATEGY_VEC_LOOP(type, width, load, store, d, s, len)			\
	do {									\
		for (; (len) >= 4 * (width); (d) += 4 * (width),		\
		     (s) += 4 * (width), (len) -= 4 * (width)) {		\
			type a_ = load(s);					\
			type b_ = load((s) + (width));				\
			type c_ = load((s) + 2 * (width));			\
			type e_ = load((s) + 3 * (width));			\
										\
			store((d), a_);						\
			store((d) + (width), b_);				\
			store((d) + 2 * (width), c_);				\
			store((d) + 3 * (width), e_);				\
		}								\
		for (; (len) >= (width); (d) += (width), (s) += (width),	\
		     (len) -= (width))						\
			store((d), load(s));					\
	} while (0)

/* n >= sizeof(type) bytes as two possibly overlapping moves, both loads first. */
#define STRATEGY_COPY_ENDS(type, d, s, n)					\
	do {									\
		type a_, b_;							\
										\
		memcpy(&a_, (s), sizeof(type));					\
		memcpy(&b_, (s) + (n) - sizeof(type), sizeof(type));		\
		memcpy((d), &a_, sizeof(type));					\
		memcpy((d) + (n) - sizeof(type), &b_, sizeof(type));		\
	} while (0)

/*
 * Cached copy of n <= 64 bytes: two possibly overlapping loads from
 * each end, all loads before any store.  SSE2 is baseline on x86-64.
 */
static inline void strategy_copy_small(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;

	if (n >= 32) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + n - 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + n - 16));

		_mm_storeu_si128((__m128i *)d, a);
		_mm_storeu_si128((__m128i *)(d + 16), b);
		_mm_storeu_si128((__m128i *)(d + n - 32), c);
		_mm_storeu_si128((__m128i *)(d + n - 16), e);
	} else if (n >= 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + n - 16));

		_mm_storeu_si128((__m128i *)d, a);
		_mm_storeu_si128((__m128i *)(d + n - 16), b);
	} else if (n >= 8) {
		STRATEGY_COPY_ENDS(uint64_t, d, s, n);
	} else if (n >= 4) {
		STRATEGY_COPY_ENDS(uint32_t, d, s, n);
	} else if (n >= 2) {
		STRATEGY_COPY_ENDS(uint16_t, d, s, n);
	} else if (n) {
		*d = *s;
	}
}

/*
 * Every line that [addr, addr + len) touches, start aligned down; len 0
 * flushes nothing (an aligned-down start would otherwise hit a line).
 */
static inline uintptr_t strategy_line_down(const void *addr)
{
	return (uintptr_t)addr & ~(uintptr_t)(STRATEGY_LINE - 1);
}

__attribute__((target("clwb")))
static inline void strategy_flush_clwb(const void *addr, size_t len)
{
	uintptr_t p, end = (uintptr_t)addr + len;

	for (p = strategy_line_down(addr); len && p < end; p += STRATEGY_LINE)
		_mm_clwb((void *)p);
}

__attribute__((target("clflushopt")))
static inline void strategy_flush_clflushopt(const void *addr, size_t len)
{
	uintptr_t p, end = (uintptr_t)addr + len;

	for (p = strategy_line_down(addr); len && p < end; p += STRATEGY_LINE)
		_mm_clflushopt((void *)p);
}

static inline void strategy_flush_clflush(const void *addr, size_t len)
{
	uintptr_t p, end = (uintptr_t)addr + len;

	for (p = strategy_line_down(addr); len && p < end; p += STRATEGY_LINE)
		_mm_clflush((const void *)p);
}

#endif
