/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Strategy names are a contract of the policy file (they follow the
 * kernel and PMDK).  The rule knows each name's class, which
 * the crossover maths and the exports need; the probe owns the kernels.
 */
#ifndef PMEM_RULE_STRATEGY_CLASS_H
#define PMEM_RULE_STRATEGY_CLASS_H

#include <stdbool.h>

#include "policy/policy.h"

enum strategy_class {
	STRATEGY_CLASS_UNKNOWN = 0,
	STRATEGY_CLASS_NONTEMPORAL,	/* streaming stores, bypass the cache */
	STRATEGY_CLASS_FLUSH,		/* cached stores, then a cache flush */
	STRATEGY_CLASS_NOFLUSH,		/* cached stores, no flush (eADR) */
};

enum strategy_class strategy_class_of(const char *name);
bool strategy_is_nontemporal(const char *name);
/* The family of a strategy (policy/policy.h): noflush is in neither. */
enum policy_family strategy_family_of(const char *name);
/* "streaming" | "cached_flush" (the policy file's words), "" for none */
const char *strategy_family_name(enum policy_family f);

/*
 * A family's members ranked in advance, the way the kernel's RAID-6
 * code ranks its implementations before it times them: the member PMDK
 * and the kernel actually run comes first (widest vmovntdq; clwb, else
 * clflushopt).  The family's default in an op is its first ranked
 * member measured there; others only stand in when none of those is.
 * The probe's thread saturation series runs the same member.
 * Returns 0.. in rank order, or -1 for a name outside the family.
 */
int strategy_default_rank(enum policy_family f, const char *name);

#endif
