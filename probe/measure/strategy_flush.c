// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cached copies followed by a write-back of every line the destination
 * touches (start aligned down to the line), then sfence.
 *
 * The fence: clwb and clflushopt are ordered only by a fence, and sfence
 * is enough to order them before later stores (what persistence needs;
 * mfence would also wait for later loads).  clflush is already ordered
 * with earlier and later writes (SDM vol. 2A, CLFLUSH), so for it the
 * sfence is redundant; it stays, so that every kernel ends at the same
 * kind of drain point and the timings compare like with like.
 */
#include "measure/strategy_simd.h"

/*
 * Copy, then flush every touched line, then the fence; nothing for
 * len 0.  A macro, so that the flush is the calling kernel's own
 * instruction under its own target attribute.
 */
#define COPY_THEN_FLUSH(copy, flush, dst, src, len)				\
	do {									\
		if (len) {							\
			copy((dst), (src), (len));				\
			flush((dst), (len));					\
			_mm_sfence();						\
		}								\
	} while (0)

__attribute__((target("clwb")))
void strategy_copy_clwb(void *dst, const void *src, size_t len)
{
	COPY_THEN_FLUSH(strategy_copy_cached, strategy_flush_clwb, dst, src, len);
}

__attribute__((target("clflushopt")))
void strategy_copy_clflushopt(void *dst, const void *src, size_t len)
{
	COPY_THEN_FLUSH(strategy_copy_cached, strategy_flush_clflushopt, dst, src, len);
}

void strategy_copy_clflush(void *dst, const void *src, size_t len)
{
	COPY_THEN_FLUSH(strategy_copy_cached, strategy_flush_clflush, dst, src, len);
}

/*
 * rep movsb: microcoded, fast for large sizes with ERMS and for short
 * ones with FSRM; without them it still copies correctly.  DF is clear
 * by the ABI.
 */
static inline void rep_movsb(void *dst, const void *src, size_t len)
{
	__asm__ volatile("rep movsb"
			 : "+D"(dst), "+S"(src), "+c"(len)
			 : : "memory");
}

__attribute__((target("clwb")))
void strategy_copy_rep_movsb_clwb(void *dst, const void *src, size_t len)
{
	COPY_THEN_FLUSH(rep_movsb, strategy_flush_clwb, dst, src, len);
}

/*
 * The pattern of a plain C copy loop that persists as it goes: for each
 * 64-byte line eight 8-byte stores, then clwb of that line.  The stores
 * are volatile so that the vectorizer cannot merge them into wider ones:
 * the point of this strategy is to measure exactly this shape.  Partial
 * lines at either end are copied as usual and flushed.
 */
__attribute__((target("clwb")))
void strategy_copy_stores8_clwb(void *dst, const void *src, size_t len)
{
	char *d = dst;
	const char *s = src;
	size_t head;

	if (!len)
		return;
	head = -(uintptr_t)d & (STRATEGY_LINE - 1);
	if (head > len)
		head = len;
	if (head) {
		strategy_copy_small(d, s, head);
		_mm_clwb(d);
		d += head;
		s += head;
		len -= head;
	}
	for (; len >= 64; d += 64, s += 64, len -= 64) {
		volatile uint64_t *q = (volatile uint64_t *)d;

		q[0] = strategy_load64(s);
		q[1] = strategy_load64(s + 8);
		q[2] = strategy_load64(s + 16);
		q[3] = strategy_load64(s + 24);
		q[4] = strategy_load64(s + 32);
		q[5] = strategy_load64(s + 40);
		q[6] = strategy_load64(s + 48);
		q[7] = strategy_load64(s + 56);
		_mm_clwb(d);
	}
	if (len) {
		strategy_copy_small(d, s, len);
		_mm_clwb(d);
	}
	_mm_sfence();
}

/* What an application doing memcpy() + pmem_persist() gets. */
__attribute__((target("clwb")))
void strategy_copy_memcpy_clwb(void *dst, const void *src, size_t len)
{
	COPY_THEN_FLUSH(memcpy, strategy_flush_clwb, dst, src, len);
}

/*
 * eADR: the caches are in the persistence domain, so the stores only
 * need ordering against whatever the caller writes next.
 */
static inline void no_flush(const void *addr, size_t len)
{
	(void)addr;
	(void)len;
}

void strategy_copy_noflush(void *dst, const void *src, size_t len)
{
	COPY_THEN_FLUSH(strategy_copy_cached, no_flush, dst, src, len);
}
