/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Crossover maths: pure functions from measured curves to decisions.
 *
 * At each size the winner is the strategy with the highest median whose
 * 95 % interval lies wholly above every other candidate's and whose
 * median beats theirs by more than CROSSOVER_EQUIVALENCE.  Otherwise the
 * size is a tie, resolved by a fixed rule: prefer
 * a non-temporal strategy among the tied ones (streaming stores do not
 * evict the application's cache), then the lowest strategy_tie_rank().
 * Curves marked reference_only and cells that were not measured (NAN)
 * never win.
 */
#ifndef PMEM_POLICY_CROSSOVER_H
#define PMEM_POLICY_CROSSOVER_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* Medians closer than this fraction are practically equal: a tie. */
#define CROSSOVER_EQUIVALENCE 0.03

struct crossover_cell {
	int winner;		/* curve index, -1 where nothing was measured */
	int runner_up;		/* curve index, -1 if none */
	int tie;		/* 1 if resolved by the tie rule */
	/*
	 * P(winner beats runner-up), 1 without a runner-up, 0 where nothing
	 * was measured.  Normally 0.5..1, but a tie-rule winner whose
	 * median is below the best one's keeps its true value, < 0.5.
	 */
	double p_win;
};

/*
 * Per-size winners; cells[op->nsizes].  A lone size won by the tie rule
 * between two sizes won by the same strategy A is given to A when A is
 * in that size's tie set too (tie stays 1), so that cells and ranges
 * agree.  Returns 0, or -EINVAL.
 */
int crossover_cells(const struct policy_op *op, struct crossover_cell *cells);

/* Why a size must be measured again before its decision is believed. */
enum crossover_recheck_why {
	CROSSOVER_RECHECK_ISLAND,	/* one size between two of another winner */
	CROSSOVER_RECHECK_EDGE,		/* one size at the grid's edge, the next differ */
};

#define CROSSOVER_RECHECK_MAX_CURVES 2

/* Measure these curves at this size again, fresh; the new cells replace the old. */
struct crossover_recheck {
	size_t index;		/* into op->sizes_bytes */
	enum crossover_recheck_why why;
	int curves[CROSSOVER_RECHECK_MAX_CURVES];	/* curve indexes */
	unsigned ncurves;
};

/*
 * Which sizes of op (cells from crossover_cells()) rest on one grid
 * point alone: a size won by separation whose measured neighbours all
 * have one other winner (both sides, or its one side at the grid's
 * edge).  That is a real dip or a burst of noise that hit one
 * contender's samples there; the probe measures the size's winner and
 * the neighbours' (curves[0], curves[1]) again and crossover_decide()
 * then decides from the fresh cells by the same rules, so an island that
 * survives stands.  Lists up to max, in size order; returns the count.
 */
size_t crossover_rechecks(const struct policy_op *op, const struct crossover_cell *cells,
			  struct crossover_recheck *out, size_t max);

/*
 * Replace op->ranges and op->crossovers with those derived from the
 * curves.  Returns 0 or -ENOMEM.  An op without any measured cell gets
 * no ranges.  A range's tie is true when its strategy won none of its
 * sizes by separation.  A crossover's confidence is P(below beats
 * above at the last size of the lower range) * P(above beats below at
 * the first size of the upper range), 0.5 for a side lacking a cell.
 */
int crossover_decide(struct policy_op *op);

/* Two adjacent grid sizes whose winners differ: where to bisect. */
struct crossover_bracket {
	uint64_t lo_bytes, hi_bytes;
	char below[POLICY_NAME_MAX];
	char above[POLICY_NAME_MAX];
};

/*
 * List up to max brackets of op (after crossover_decide) that are wider
 * than min_ratio (hi/lo) and min_gap_bytes; the probe measures both
 * strategies at crossover_midpoint() and decides again.  Returns count.
 */
size_t crossover_brackets(const struct policy_op *op, double min_ratio,
			  uint64_t min_gap_bytes, struct crossover_bracket *out,
			  size_t max);

/* Geometric midpoint rounded to a multiple of align (a power of two). */
uint64_t crossover_midpoint(uint64_t lo, uint64_t hi, uint64_t align);

#endif /* PMEM_POLICY_CROSSOVER_H */
