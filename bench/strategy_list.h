/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A benchmark's comma list of strategy names, resolved against this CPU.
 */
#ifndef PMEM_TUNE_BENCH_STRATEGY_LIST_H
#define PMEM_TUNE_BENCH_STRATEGY_LIST_H

#include "measure/strategy.h"
#include "platform/cpu.h"

/*
 * Identify the CPU into *ci and set the kernels up for it
 * (strategy_init()); then up to max strategies of list that it supports,
 * in the list's order, into st; the others are named on stderr after
 * prog, and skipped.  Returns how many were kept: none (said on
 * stderr) when the CPU cannot be identified.
 */
unsigned bench_strategy_list(const char *prog, const char *list, struct cpu_info *ci,
			     const struct strategy **st, unsigned max);

#endif
