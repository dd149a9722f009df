// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * From measured curves to per-size winners, size ranges and crossovers.
 * Pure: reads the curves, writes only op->ranges and op->crossovers.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "crossover.h"
#include "stats.h"
#include "strategy_class.h"

/*
 * A cell can win when it was measured on a curve that is a valid
 * persistent copy and was not found suspect (implausible after a fresh
 * re-measurement).  A curve without a samples array (hand-written file)
 * is trusted on its medians alone.
 */
static bool cell_ok(const struct policy_op *op, int c, size_t i)
{
	const struct policy_curve *cv = &op->curves[c];

	if (cv->reference_only || !cv->median_mib_s || isnan(cv->median_mib_s[i]))
		return false;
	if (cv->cell_flags && (cv->cell_flags[i] & POLICY_CELL_SUSPECT))
		return false;
	return !cv->samples || cv->samples[i] > 0;
}

static double cell_median(const struct policy_op *op, int c, size_t i)
{
	return op->curves[c].median_mib_s[i];
}

/*
 * Interval used for the separation test.  An unknown bound collapses
 * onto the median (the decision then follows the medians), and a bound
 * on the wrong side of the median is clamped so overlap stays a
 * well-defined test.
 */
static double cell_lo(const struct policy_op *op, int c, size_t i)
{
	double m = cell_median(op, c, i);
	const double *lo = op->curves[c].ci_lo_mib_s;

	return !lo || isnan(lo[i]) ? m : fmin(lo[i], m);
}

static double cell_hi(const struct policy_op *op, int c, size_t i)
{
	double m = cell_median(op, c, i);
	const double *hi = op->curves[c].ci_hi_mib_s;

	return !hi || isnan(hi[i]) ? m : fmax(hi[i], m);
}

/*
 * P(curve a beats curve b at size i) from the recorded intervals; 0.5
 * where either was not measured or a spread is unknown.
 */
static double prob_beats(const struct policy_op *op, int a, int b, size_t i)
{
	const struct policy_curve *ca, *cb;

	if (a < 0 || b < 0 || !cell_ok(op, a, i) || !cell_ok(op, b, i))
		return 0.5;
	ca = &op->curves[a];
	cb = &op->curves[b];
	return stats_prob_greater(ca->median_mib_s[i],
				  ca->ci_lo_mib_s ? ca->ci_lo_mib_s[i] : NAN,
				  ca->ci_hi_mib_s ? ca->ci_hi_mib_s[i] : NAN,
				  cb->median_mib_s[i],
				  cb->ci_lo_mib_s ? cb->ci_lo_mib_s[i] : NAN,
				  cb->ci_hi_mib_s ? cb->ci_hi_mib_s[i] : NAN);
}

/* The fixed tie rule: non-temporal first, then rank, then median, then order. */
static bool tie_prefers(const struct policy_op *op, size_t i, int a, int b)
{
	const char *na = op->curves[a].strategy, *nb = op->curves[b].strategy;
	bool nta = strategy_is_nontemporal(na), ntb = strategy_is_nontemporal(nb);
	int ra = strategy_tie_rank(na), rb = strategy_tie_rank(nb);
	double ma = cell_median(op, a, i), mb = cell_median(op, b, i);

	if (nta != ntb)
		return nta;
	if (ra != rb)
		return ra < rb;
	if (ma != mb)
		return ma > mb;
	return a < b;
}

/* Highest median at size i, skipping curve 'except'; -1 if none. */
static int best_at(const struct policy_op *op, size_t i, int except)
{
	int best = -1;

	for (int c = 0; c < (int)op->ncurves; c++) {
		if (c == except || !cell_ok(op, c, i))
			continue;
		/* strict: equal medians keep the lower index, deterministic */
		if (best < 0 || cell_median(op, c, i) > cell_median(op, best, i))
			best = c;
	}
	return best;
}

/*
 * Does measured c tie with the best at size i?  Overlapping intervals
 * tie; so does a median within CROSSOVER_EQUIVALENCE of the best's even
 * when tight intervals separate: on a quiet machine two streaming-store
 * widths separate by 1 %, and a switch worth that little would only
 * move with the noise from one probe to the next.
 */
static bool ties_with(const struct policy_op *op, size_t i, int c, int best)
{
	return c == best || cell_hi(op, c, i) >= cell_lo(op, best, i) ||
	       cell_median(op, c, i) >= cell_median(op, best, i) * (1 - CROSSOVER_EQUIVALENCE);
}

/* Is c in the tie set of size i: measured and tied with the best? */
static bool in_tie_set(const struct policy_op *op, size_t i, int c)
{
	int best = best_at(op, i, -1);

	return best >= 0 && cell_ok(op, c, i) && ties_with(op, i, c, best);
}

static void set_winner(const struct policy_op *op, size_t i, int winner,
		       int tie, struct crossover_cell *cell)
{
	cell->winner = winner;
	cell->tie = tie;
	cell->runner_up = best_at(op, i, winner);
	/*
	 * Not clamped to 0.5: a tie-rule winner with a lower median than
	 * the best one honestly has p_win < 0.5.
	 */
	cell->p_win = cell->runner_up < 0 ? 1.0 :
		      prob_beats(op, winner, cell->runner_up, i);
}

static void decide_size(const struct policy_op *op, size_t i,
			struct crossover_cell *cell)
{
	int best = best_at(op, i, -1), winner;
	bool separated = true;

	if (best < 0) {
		cell->winner = -1;
		cell->runner_up = -1;
		cell->tie = 0;
		cell->p_win = 0;
		return;
	}

	winner = best;
	for (int c = 0; c < (int)op->ncurves; c++) {
		if (c == best || !cell_ok(op, c, i))
			continue;
		if (ties_with(op, i, c, best)) {
			separated = false;
			if (tie_prefers(op, i, c, winner))
				winner = c;
		}
	}
	set_winner(op, i, winner, !separated, cell);
}

/* Next size after i that carries a decision, or op->nsizes. */
static size_t next_measured(const struct policy_op *op,
			    const struct crossover_cell *cells, size_t i)
{
	while (++i < op->nsizes && cells[i].winner < 0)
		;
	return i;
}

/*
 * The island rule.  Size i, between its measured neighbours prev and
 * next (either may be missing: SIZE_MAX or op->nsizes), holds a one-size
 * range when its winner differs from theirs and they agree with each
 * other (at the grid's edge: the one neighbour there is).  Returns the
 * neighbours' winner, or -1 when i is no one-size range, a step between
 * two different ranges included.  *edge says whether a neighbour is
 * missing.
 */
static int lone_range(const struct policy_op *op, const struct crossover_cell *cells,
		      size_t prev, size_t i, size_t next, bool *edge)
{
	int w = cells[i].winner;
	int a = prev < op->nsizes ? cells[prev].winner : -1;
	int b = next < op->nsizes ? cells[next].winner : -1;

	*edge = a < 0 || b < 0;
	if (w < 0 || (a < 0 && b < 0) || a == w || b == w)
		return -1;
	if (a >= 0 && b >= 0 && a != b)
		return -1;
	return a >= 0 ? a : b;
}

/*
 * Noise: an A A B A A pattern where B won only by the tie rule is a
 * one-size range the measurements cannot support.  If A is in that
 * size's tie set too (statistically as good as B there), the size keeps
 * A.  If A is demonstrably worse there, B's win is not only the tie
 * rule's doing and it stays.  A tie-rule size at the grid's edge stays
 * too: nothing beyond it says it is noise.  A one-size range won by
 * separation, inside or at an edge, is not smoothed here either:
 * crossover_rechecks() asks for it to be measured again, fresh, and the
 * fresh cells decide.
 *
 * No further smoothing.  A run of two or more tie-rule sizes is not a
 * lone outlier: the tie rule already picks one preferred strategy
 * across a whole overlapping region, so such a run is a region where
 * the neighbours' advantage vanished, and the crossover confidence
 * reports a boundary drawn through overlapping intervals as unlikely.
 * Hysteresis (keep the previous winner while it stays tied) would make
 * the answer depend on the scan direction and push crossovers towards
 * larger sizes.
 */
static void suppress_islands(const struct policy_op *op,
			     struct crossover_cell *cells)
{
	size_t prev = SIZE_MAX;

	for (size_t i = next_measured(op, cells, prev); i < op->nsizes;) {
		size_t next = next_measured(op, cells, i);
		bool edge;
		/* left neighbour already smoothed, right one as decided */
		int a = lone_range(op, cells, prev, i, next, &edge);

		if (a >= 0 && cells[i].tie && !edge && in_tie_set(op, i, a))
			set_winner(op, i, a, 1, &cells[i]);
		prev = i;
		i = next;
	}
}

int crossover_cells(const struct policy_op *op, struct crossover_cell *cells)
{
	if (!op || (op->nsizes && !cells))
		return -EINVAL;

	for (size_t i = 0; i < op->nsizes; i++)
		decide_size(op, i, &cells[i]);
	suppress_islands(op, cells);
	return 0;
}

size_t crossover_rechecks(const struct policy_op *op, const struct crossover_cell *cells,
			  struct crossover_recheck *out, size_t max)
{
	size_t n = 0, prev = SIZE_MAX;

	if (!op || !cells || !out)
		return 0;
	for (size_t i = next_measured(op, cells, prev); i < op->nsizes && n < max;) {
		size_t next = next_measured(op, cells, i);
		bool edge;
		int a = lone_range(op, cells, prev, i, next, &edge);

		/* a burst of noise seldom strikes the same cell twice */
		if (a >= 0 && !cells[i].tie) {
			out[n].index = i;
			out[n].why = edge ? CROSSOVER_RECHECK_EDGE : CROSSOVER_RECHECK_ISLAND;
			out[n].curves[0] = cells[i].winner;
			out[n].curves[1] = a;
			out[n].ncurves = 2;
			n++;
		}
		prev = i;
		i = next;
	}
	return n;
}

static void copy_name(char *dst, const char *src)
{
	snprintf(dst, POLICY_NAME_MAX, "%s", src);
}

int crossover_decide(struct policy_op *op)
{
	struct crossover_cell *cells = NULL;
	struct policy_range *ranges = NULL;
	struct policy_crossover *xo = NULL;
	size_t nr = 0, r, last;
	int ret, w = -1;

	if (!op)
		return -EINVAL;
	if (op->nsizes) {
		cells = calloc(op->nsizes, sizeof(*cells));
		if (!cells)
			return -ENOMEM;
	}
	ret = crossover_cells(op, cells);
	if (ret)
		goto out;

	/* Ranges are runs of one winner over the measured sizes. */
	for (size_t i = 0; i < op->nsizes; i++) {
		if (cells[i].winner < 0)
			continue;
		if (cells[i].winner != w)
			nr++;
		w = cells[i].winner;
	}

	if (nr) {
		ranges = calloc(nr, sizeof(*ranges));
		if (nr > 1)
			xo = calloc(nr - 1, sizeof(*xo));
		if (!ranges || (nr > 1 && !xo)) {
			ret = -ENOMEM;
			goto out;
		}
	}

	r = 0;
	w = -1;
	last = SIZE_MAX;	/* last measured size of the current range */
	for (size_t i = 0; nr && i < op->nsizes; i++) {
		struct policy_range *cur;

		if (cells[i].winner < 0)
			continue;
		if (cells[i].winner != w) {
			int prev_w = w;

			w = cells[i].winner;
			cur = &ranges[r];
			cur->from_bytes = r ? op->sizes_bytes[i] : 0;
			cur->to_bytes = POLICY_SIZE_OPEN;
			copy_name(cur->strategy, op->curves[w].strategy);
			/* tie only if the strategy never won by separation here */
			cur->tie = true;
			if (r) {
				struct policy_crossover *x = &xo[r - 1];

				ranges[r - 1].to_bytes = op->sizes_bytes[i];
				x->size_bytes = op->sizes_bytes[i];
				copy_name(x->below, op->curves[prev_w].strategy);
				copy_name(x->above, op->curves[w].strategy);
				/* both sides of the boundary right, each on its own data */
				x->confidence = prob_beats(op, prev_w, w, last) *
						prob_beats(op, w, prev_w, i);
			}
			r++;
		}
		if (!cells[i].tie)
			ranges[r - 1].tie = false;
		last = i;
	}

	free(op->ranges);
	free(op->crossovers);
	op->ranges = ranges;
	op->nranges = nr;
	op->crossovers = xo;
	op->ncrossovers = nr ? nr - 1 : 0;
	ranges = NULL;
	xo = NULL;
	ret = 0;
out:
	free(ranges);
	free(xo);
	free(cells);
	return ret;
}

/* Any curve could win at size i: the grid point carries a decision. */
static bool size_measured(const struct policy_op *op, size_t i)
{
	for (int c = 0; c < (int)op->ncurves; c++)
		if (cell_ok(op, c, i))
			return true;
	return false;
}

size_t crossover_brackets(const struct policy_op *op, double min_ratio,
			  uint64_t min_gap_bytes, struct crossover_bracket *out,
			  size_t max)
{
	size_t n = 0;

	if (!op || !out)
		return 0;

	for (size_t r = 1; r < op->nranges && n < max; r++) {
		uint64_t hi = op->ranges[r].from_bytes, lo = 0;
		bool found = false;

		/* the last measured size below the boundary */
		for (size_t i = op->nsizes; i-- > 0;) {
			if (op->sizes_bytes[i] < hi && size_measured(op, i)) {
				lo = op->sizes_bytes[i];
				found = true;
				break;
			}
		}
		if (!found || hi - lo <= min_gap_bytes)
			continue;
		if (lo && (double)hi / (double)lo <= min_ratio)
			continue;
		out[n].lo_bytes = lo;
		out[n].hi_bytes = hi;
		copy_name(out[n].below, op->ranges[r - 1].strategy);
		copy_name(out[n].above, op->ranges[r].strategy);
		n++;
	}
	return n;
}

uint64_t crossover_midpoint(uint64_t lo, uint64_t hi, uint64_t align)
{
	uint64_t qmax, down, up, cand[2];
	double g, q;

	if (align == 0)
		align = 1;
	if (hi <= lo || hi - lo < 2)
		return 0;

	/* in doubles: lo * hi overflows 64 bits long before sizes do */
	g = sqrt((double)lo * (double)hi);
	q = floor(g / (double)align);
	qmax = UINT64_MAX / align;
	down = (q >= (double)qmax ? qmax : (uint64_t)q) * align;
	up = down <= UINT64_MAX - align ? down + align : down;
	/* the nearest multiple first, the other one if that is not inside */
	if (g - (double)down <= (double)up - g) {
		cand[0] = down;
		cand[1] = up;
	} else {
		cand[0] = up;
		cand[1] = down;
	}
	for (int k = 0; k < 2; k++)
		if (cand[k] > lo && cand[k] < hi)
			return cand[k];
	return 0;
}
