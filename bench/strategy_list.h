/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A benchmark's comma list of strategy names, resolved against this CPU.
 */
#ifndef PMEM_TUNE_BENCH_STRATEGY_LIST_H
#define PMEM_TUNE_BENCH_STRATEGY_LIST_H

#include "cpu.h"
#include "strategy.h"

/*
 * Up to max strategies of list that ci supports, in the list's order,
 * into st; the others are named on stderr after prog, and skipped.
 * Returns how many were kept.
 */
unsigned bench_strategy_list(const char *prog, const char *list, const struct cpu_info *ci,
			     const struct strategy **st, unsigned max);

#endif
