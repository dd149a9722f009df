/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Strategy names are a contract of the policy file (they follow the
 * kernel and PMDK).  The policy library knows each name's class, which
 * the crossover maths and the exports need; the probe owns the kernels.
 */
#ifndef PMEM_POLICY_STRATEGY_CLASS_H
#define PMEM_POLICY_STRATEGY_CLASS_H

#include <stdbool.h>

enum strategy_class {
	STRATEGY_CLASS_UNKNOWN = 0,
	STRATEGY_CLASS_NONTEMPORAL,	/* streaming stores, bypass the cache */
	STRATEGY_CLASS_FLUSH,		/* cached stores, then a cache flush */
	STRATEGY_CLASS_NOFLUSH,		/* cached stores, no flush (eADR) */
};

enum strategy_class strategy_class_of(const char *name);
bool strategy_is_nontemporal(const char *name);
/*
 * Tie-break rank: lower is preferred among strategies of the same class
 * whose intervals overlap; unknown names rank last.  Fixed, so that a
 * tie resolves the same way on every run.
 */
int strategy_tie_rank(const char *name);

#endif
