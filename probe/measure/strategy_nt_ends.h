/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ends of a non-temporal copy, shared by the streaming kernels
 * (movnt*, movdir64b): the unaligned head goes through the cache and is
 * flushed with the best flush this CPU has; the tail is streamed where
 * it is whole words.
 */
#ifndef PMEM_TUNE_STRATEGY_NT_ENDS_H
#define PMEM_TUNE_STRATEGY_NT_ENDS_H

#include "measure/strategy_simd.h"

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

/*
 * And the bytes after the last whole NT store, less than width; d is
 * width-aligned here.  A tail of whole 4-byte words is streamed too, in
 * narrower stores, widest first so that each stays aligned: PMDK's
 * memmove_movnt_* streams such a tail and the kernel's
 * __memcpy_flushcache every whole word, so that is what a consumer of
 * the strategy runs.  A cached line written back by a flush costs what
 * the partial-line NT store does not on some CPUs and more on others
 * (the probe measures which, at the grid's partial-line sizes).  A tail
 * with odd bytes goes through the cache whole and is flushed, so no
 * line is written both ways.  SSE2 stores: baseline on x86-64.
 */
static inline void strategy_nt_tail(char *d, const char *s, size_t len)
{
	if (!len)
		return;
	if (len & 3) {
		strategy_copy_small(d, s, len);
		strategy_flush_best(d, len);
		return;
	}
	for (; len >= 16; d += 16, s += 16, len -= 16)
		STRATEGY_STREAM16(d, STRATEGY_LOAD16(s));
	if (len >= 8) {
		STRATEGY_STREAM8(d, STRATEGY_LOAD8(s));
		d += 8;
		s += 8;
		len -= 8;
	}
	if (len) {
		uint32_t w;

		memcpy(&w, s, sizeof(w));
		_mm_stream_si32((int *)d, (int)w);
	}
}

#endif
