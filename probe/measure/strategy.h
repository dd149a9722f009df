/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The copy strategies: one table, one entry each (fio's engines are the
 * model).  Every copy function leaves [dst, dst + len) persistent on a
 * platform whose persistence domain is the memory controller (ADR): the
 * flush of every touched line and the closing fence are included, and
 * unaligned heads, and tails of odd bytes, are copied with cached stores
 * and flushed, as the kernel's __memcpy_flushcache does.  noflush only
 * orders the stores (sfence): it is persistent only where the domain is
 * cpu_cache.
 */
#ifndef PMEM_TUNE_STRATEGY_H
#define PMEM_TUNE_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>

#include "measure/strategy_kernels.h"
#include "platform/cpu.h"

typedef void (*strategy_copy_fn)(void *dst, const void *src, size_t len);

struct strategy {
	const char *name;		/* the policy's name for it */
	const char *summary;		/* one line for --list and the table */
	unsigned needs;			/* CPU_BIT() mask of required features */
	bool cpu_cache_domain_only;	/* not persistent without eADR */
	strategy_copy_fn copy;
};

extern const struct strategy strategy_table[];
extern const unsigned strategy_count;

/*
 * Pick the helpers every kernel shares (the line flush used for heads
 * and tails, the cached copy's vector width) from ci.  Call once before
 * any copy; copies before it use clflush and SSE2.
 */
void strategy_init(const struct cpu_info *ci);
const struct strategy *strategy_find(const char *name);
/*
 * true if ci has every feature s needs (*missing = NULL); else *missing
 * names the first one lacking.  missing may be NULL.
 */
bool strategy_supported(const struct strategy *s, const struct cpu_info *ci,
			const char **missing);

#endif
