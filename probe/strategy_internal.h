/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inline helpers shared between the strategy kernels only.  Every
 * function here that executes an instruction beyond SSE2 carries its
 * own target attribute: the binary runs on any x86-64 and picks at run
 * time.
 */
#ifndef PMEM_TUNE_STRATEGY_INTERNAL_H
#define PMEM_TUNE_STRATEGY_INTERNAL_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "strategy_kernels.h"

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
		uint64_t a = strategy_load64(s), b = strategy_load64(s + n - 8);

		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(d, &a, 4);
		memcpy(d + n - 4, &b, 4);
	} else if (n >= 2) {
		uint16_t a, b;

		memcpy(&a, s, 2);
		memcpy(&b, s + n - 2, 2);
		memcpy(d, &a, 2);
		memcpy(d + n - 2, &b, 2);
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

/*
 * Non-temporal copies: bytes before the first width-aligned dst address
 * go through the cache and are flushed (the NT stores need alignment).
 * Advances the cursors; returns what is left for the NT body.
 */
static inline size_t strategy_nt_head(char **d, const char **s, size_t len,
				      size_t width)
{
	size_t head = -(uintptr_t)*d & (width - 1);

	if (head > len)
		head = len;
	if (head) {
		strategy_copy_small(*d, *s, head);
		strategy_flush_best(*d, head);
		*d += head;
		*s += head;
	}
	return len - head;
}

/* And the bytes after the last whole NT store, less than width. */
static inline void strategy_nt_tail(char *d, const char *s, size_t len)
{
	if (len) {
		strategy_copy_small(d, s, len);
		strategy_flush_best(d, len);
	}
}

#endif
