/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Crossover maths: pure functions from measured curves to decisions.
 *
 * Two levels, the one consumers act on first.  At each size the
 * families -- streaming stores, cached stores + flush -- are compared
 * through a representative member each (the second best where three or
 * more are measured: one member far above its peers is a bad cell more
 * often than a family).  A family wins a size only by more than the
 * op's margin with the 95 % intervals apart; otherwise the size is a
 * tie, and a tie never makes a range: it joins the family on both sides,
 * the run beside it at an axis edge, or the prior (streaming: it does not
 * evict the application's cache).  A one-size departure inside the other
 * family, or from the prior at an edge, is an island: dropped unless
 * confirmed by a fresh measurement, and kept only as wide as itself (the
 * ties beside it look past it).  Within a family the default member
 * (strategy_default_rank()) holds unless another beats it by the margin
 * on consecutive sizes spanning CROSSOVER_MEMBER_MIN_SPAN.
 *
 * Cells that cannot be right (flagged suspect, or
 * crossover_cell_implausible(): a collapse below both neighbours, or a
 * spike above them and every other strategy) and reference_only curves
 * never decide anything.
 */
#ifndef PMEM_RULE_CROSSOVER_H
#define PMEM_RULE_CROSSOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/policy.h"
#include "rule/constants.h"
#include "rule/second_look.h"

/*
 * The practically significant margin: the median relative half-width of
 * the op's 95 % intervals (the noise this host shows between repeated
 * cells), between CROSSOVER_MARGIN_FLOOR and CROSSOVER_MARGIN_CAP.  The
 * rule's constants are in rule/constants.h.
 */

/*
 * A size's raw verdict of the family comparison (before smoothing) is the
 * family that won it (enum policy_family: POLICY_FAMILY_STREAMING or
 * POLICY_FAMILY_CACHED_FLUSH), CROSSOVER_TIE, or POLICY_FAMILY_NONE where
 * a family was not measured.  The tie is no family that is compared
 * (its value is POLICY_FAMILY_FILL's, a family no verdict names).
 */
#define CROSSOVER_TIE	2
_Static_assert(CROSSOVER_TIE != POLICY_FAMILY_STREAMING &&
	       CROSSOVER_TIE != POLICY_FAMILY_CACHED_FLUSH && CROSSOVER_TIE != POLICY_FAMILY_NONE,
	       "a tie is none of the families compared");

struct crossover_cell {
	int winner;		/* decided member's curve, -1 where no decision */
	int runner_up;		/* the other family's representative, -1 if none */
	int tie;		/* 1 where the family was not won by separation here */
	/* P(winner beats runner-up), 1 without a runner-up, 0 undecided */
	double p_win;
	int family;		/* enum policy_family, -1 undecided */
	int verdict;		/* a family or CROSSOVER_TIE, before smoothing */
	int rep[2];		/* representative curve per family, -1 if none */
	bool island;		/* a dropped one-size departure */
	bool confirmed;		/* a one-size departure kept: a fresh measurement repeated it */
	bool grid;		/* every curve measured here (not a bisection point) */
};

/* The op's margin (see above). */
double crossover_margin(const struct policy_op *op);

/*
 * Cell (curve c, size i) cannot be right, whatever its flags say: its
 * median below CROSSOVER_IMPLAUSIBLE_RATIO of both nearest neighbours on
 * its own curve (those flagged suspect skipped), or, on a persistent
 * curve, above 1 / CROSSOVER_IMPLAUSIBLE_RATIO of every neighbour it has
 * and of every other persistent strategy measured at its size (two at
 * least).
 */
bool crossover_cell_implausible(const struct policy_op *op, size_t c, size_t i);

/* Cell (curve c, size i) measured but not believed: flagged, or implausible. */
bool crossover_cell_suspect(const struct policy_op *op, size_t c, size_t i);

/*
 * The smoothing of the rule, for any two-way choice: v[n] holds
 * verdicts (0 and 1 the two sides, CROSSOVER_TIE; dropped islands
 * become CROSSOVER_TIE), grid[n] the sizes every curve was measured at,
 * prior the side ties fall to.  fam[n] gets the side per size (-1 where
 * v is POLICY_FAMILY_NONE), island[n] the dropped islands.  0 or -ENOMEM.
 */
int crossover_smooth(int *v, const bool *grid, size_t n, int prior, int *fam, bool *island);

/*
 * crossover_smooth() keeping the islands a fresh measurement repeated:
 * keep[n] (NULL: none) holds on entry the sizes whose separated verdict
 * was confirmed, on return only those kept as an island (a confirmed
 * size that is no island needs no keeping).  A confirmed tie is still
 * a tie.
 */
int crossover_smooth_confirmed(int *v, const bool *grid, size_t n, int prior, bool *keep,
			       int *fam, bool *island);

/*
 * The two-way verdict of curve a (side 0) against curve b (side 1) at size
 * i with the op's margin, reference_only curves allowed: POLICY_FAMILY_NONE
 * where either cell is missing or suspect.  For the exports' pairs.
 */
int crossover_pair_verdict(const struct policy_op *op, int a, int b, size_t i, double margin);

/* The family's default member in op (its curve index), -1 if none measured. */
int crossover_family_default(const struct policy_op *op, int family);

/*
 * Per-size decisions; cells[op->nsizes].  Returns 0, or -EINVAL / -ENOMEM,
 * or -E2BIG for an op beyond policy_op_within_limits().
 */
int crossover_cells(const struct policy_op *op, struct crossover_cell *cells);

/*
 * A cell of op (of a curve not reference_only) was flagged unmeasurable
 * (threads that never ran together): the op decides nothing from what
 * is left, which is the moments the threads happened to overlap, not a
 * sample of the op; so no ranges is its valid decision (against a
 * baseline, the baseline's ranges).  Any share above none: a threshold
 * on the share would let the same op decide in some probes of a shared
 * host and not in others.
 */
bool crossover_op_thin(const struct policy_op *op);

/*
 * The islands of op (cells from crossover_cells()): a size won by one
 * family by separation inside the other's run (SECOND_LOOK_ISLAND), or
 * departing from the prior with nothing separated beyond it
 * (SECOND_LOOK_EDGE).  They are dropped; the probe measures every
 * strategy at the size again, fresh (curves: the two families'
 * representatives, the island's first), and flags the fresh cells
 * POLICY_CELL_CONFIRMED where they give the same verdict:
 * crossover_cells() then keeps the island.
 *
 * Also the grid sizes that are a tie only because of one member's
 * interval (SECOND_LOOK_UNRESOLVED): the families' values are apart by
 * the margin and so are their intervals taken bound by bound as the
 * value is (the second-best lower bound of one family above the
 * second-best upper bound of the other), but the representative's own
 * interval is wide, as a cell cut short with one slow sample is.  verdict is the family
 * those bounds give; fresh cells that give it count as the repeat.
 *
 * Lists up to max, in size order; returns the count.
 */
size_t crossover_rechecks(const struct policy_op *op, const struct crossover_cell *cells,
			  struct second_look *out, size_t max);

/*
 * The sizes of op (cells from crossover_cells()) whose decided member is
 * not its family's default (SECOND_LOOK_MEMBER): the member (curves[0])
 * and the default (curves[1]), no verdict claimed.  One look at a member
 * that leads for a moment of a shared host makes a run spanning
 * CROSSOVER_MEMBER_MIN_SPAN in a probe or two of ten; the probe measures
 * these again, fresh and side by side (POLICY_CELL_REMEASURED), before
 * it decides: the range stands only if the fresh cells give it too.
 * Lists up to max, in size order; returns the count.
 */
size_t crossover_member_rechecks(const struct policy_op *op, const struct crossover_cell *cells,
				 struct second_look *out, size_t max);

/*
 * Did a second look at size i of op agree with the first?  first_mib_s
 * [op->ncurves] holds each curve's median at i before it (NAN: none),
 * op the second look.  They agree unless a family's value (as the rule
 * takes it: the second best of three or more members) moved by more than
 * CROSSOVER_LOOK_AGREE_MARGINS times the op's margin; a family measured
 * in one look only is no disagreement.  The probe looks at its first
 * sizes again with it (see probe/measure/sweep.c, look_back_at_start()).
 */
bool crossover_looks_agree(const struct policy_op *op, size_t i, const double *first_mib_s);

/*
 * Replace op->ranges and op->crossovers with those derived from the
 * curves, set op->margin and flag POLICY_CELL_SUSPECT in the curves'
 * cell_flags where crossover_cell_implausible() (a flag set earlier
 * stays).  Returns 0, -EINVAL for a NULL op, -E2BIG for an op of more
 * than POLICY_MAX_SIZES sizes or POLICY_MAX_CURVES curves (the loader
 * refuses those; a merge checks its union), or -ENOMEM.  An op without
 * any measured cell, or thin (crossover_op_thin(): one cell
 * unmeasurable), gets no ranges.
 * A range's tie is true when its family won none of its sizes by
 * separation.  A crossover's confidence is P(below beats above at the
 * last size of the lower range) * P(above beats below at the first size
 * of the upper range), 0.5 for a side lacking a cell.
 */
int crossover_decide(struct policy_op *op);

/*
 * Sticky re-probe: decide op as crossover_decide(), then keep the
 * baseline's strategy at every size where the new cells do not show it
 * losing to the new decision by more than the margin (intervals apart)
 * on cells measured again (POLICY_CELL_REMEASURED, see
 * crossover_baseline_losses()); a member change must also span
 * CROSSOVER_MEMBER_MIN_SPAN over CROSSOVER_MEMBER_MIN_SIZES sizes.  When
 * every size keeps it, or the op is thin (crossover_op_thin()), the
 * baseline's ranges are copied exactly.
 * Each range says "kept" or "changed"; without a baseline op (NULL, or
 * one without ranges) "new".  Returns 0 or -ENOMEM.
 */
int crossover_decide_with_baseline(struct policy_op *op, const struct policy_op *baseline);

/*
 * The sizes of op (measured, not yet decided against baseline) where the
 * baseline's strategy loses by the margin with the intervals apart, and
 * member changes pass the member rule (SECOND_LOOK_BASELINE_LOSS: the
 * new decision's curve, then the baseline's; no verdict claimed): the
 * probe measures both curves there again, fresh (POLICY_CELL_REMEASURED),
 * before it decides.
 * crossover_decide_with_baseline() changes a decision only where the
 * fresh cells lose too: two losses in a row, and a replay of the file
 * gives the same answer.  Lists up to max, in size order; returns the count.
 */
size_t crossover_baseline_losses(const struct policy_op *op, const struct policy_op *baseline,
				 struct second_look *out, size_t max);

/*
 * Would crossover_decide() (no baseline) give strategy a range of op?
 * Reads the cells, not op->ranges: true before op is decided too.
 */
bool crossover_runs(const struct policy_op *op, const char *strategy);

/*
 * Decide every op of p again from its curves, each against the op of the
 * same target, op, pattern and threads in baseline (NULL: none).
 * Returns 0 or a negative errno.
 */
int crossover_decide_policy(struct policy *p, const struct policy *baseline);

/* Two adjacent grid sizes whose winners differ: where to bisect. */
struct crossover_bracket {
	uint64_t lo_bytes, hi_bytes;
	char below[POLICY_NAME_MAX];
	char above[POLICY_NAME_MAX];
};

/*
 * List up to max brackets of op's family changes, where the ranges
 * crossover_decide() would draw from the cells change family (member
 * changes are not bisected), named by the two families' default members,
 * that are wider than min_ratio (hi/lo) and min_gap_bytes; the probe
 * measures both strategies at crossover_midpoint() and asks again.
 * Reads the cells, not op->ranges.  Returns count.
 */
size_t crossover_brackets(const struct policy_op *op, double min_ratio,
			  uint64_t min_gap_bytes, struct crossover_bracket *out,
			  size_t max);

/* Geometric midpoint rounded to a multiple of align (a power of two). */
uint64_t crossover_midpoint(uint64_t lo, uint64_t hi, uint64_t align);

/*
 * The rule's check of a loaded file (the loader checks its structure
 * only): an op without ranges is right only where the rule decides no
 * size of it.  0, or -EINVAL with one line naming the JSON path in err.
 */
int crossover_check_unranged(const struct policy *p, char *err, size_t errlen);

#endif /* PMEM_RULE_CROSSOVER_H */
