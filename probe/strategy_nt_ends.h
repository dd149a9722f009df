/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unaligned ends of a non-temporal copy, shared by the streaming
 * kernels (movnt*, movdir64b): they go through the cache and are
 * flushed with the best flush this CPU has.
 */
#ifndef PMEM_TUNE_STRATEGY_NT_ENDS_H
#define PMEM_TUNE_STRATEGY_NT_ENDS_H

#include "strategy_simd.h"

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
