// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * From measured curves to per-size decisions, size ranges and crossovers
 * (the rule is described in crossover.h).  Pure but for crossover_decide(),
 * which writes op->ranges, op->crossovers, op->margin and the suspect
 * flags of the cells it will not believe.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_limits.h"
#include "rule/crossover.h"
#include "rule/stats.h"
#include "rule/strategy_class.h"


static bool measured(const struct policy_op *op, size_t c, size_t i)
{
	const struct policy_curve *cv = &op->curves[c];

	if (!cv->median_mib_s || isnan(cv->median_mib_s[i]))
		return false;
	return !cv->samples || cv->samples[i] > 0;
}

static double cell_median(const struct policy_op *op, int c, size_t i)
{
	return op->curves[c].median_mib_s[i];
}

static bool flagged_suspect(const struct policy_curve *cv, size_t i)
{
	return cv->cell_flags && (cv->cell_flags[i] & POLICY_CELL_SUSPECT);
}

/*
 * The best median of the other measured, persistent curves at i; NAN
 * unless there are two (one other is a comparison, not its peers).
 */
static double best_other(const struct policy_op *op, size_t c, size_t i)
{
	double best = NAN;
	unsigned n = 0;

	for (size_t o = 0; o < op->ncurves; o++) {
		if (o == c || op->curves[o].reference_only || !measured(op, o, i))
			continue;
		n++;
		if (!(op->curves[o].median_mib_s[i] <= best))
			best = op->curves[o].median_mib_s[i];
	}
	return n >= 2 ? best : NAN;
}

bool crossover_cell_implausible(const struct policy_op *op, size_t c, size_t i)
{
	const struct policy_curve *cv;
	double m, x = CROSSOVER_IMPLAUSIBLE_RATIO, other;
	size_t l = i, r = i;

	if (!op || c >= op->ncurves || i >= op->nsizes || !measured(op, c, i))
		return false;
	cv = &op->curves[c];
	while (l-- > 0 && (!measured(op, c, l) || flagged_suspect(cv, l)))
		;
	while (++r < op->nsizes && (!measured(op, c, r) || flagged_suspect(cv, r)))
		;
	m = cv->median_mib_s[i];
	/* a collapse on both sides is a disturbance that outlasted the cell */
	if (l != SIZE_MAX && r < op->nsizes && m < x * cv->median_mib_s[l] &&
	    m < x * cv->median_mib_s[r])
		return true;
	/*
	 * A spike: a copy does not run twice as fast as the same code one
	 * size step away and as every other strategy at its size; a probe's
	 * first cell, timed before the write path settles, can.  At an end
	 * of the axis the one neighbour.
	 */
	if (cv->reference_only || (l == SIZE_MAX && r >= op->nsizes))
		return false;
	other = best_other(op, c, i);
	return x * m > other && (l == SIZE_MAX || x * m > cv->median_mib_s[l]) &&
	       (r >= op->nsizes || x * m > cv->median_mib_s[r]);
}

bool crossover_cell_suspect(const struct policy_op *op, size_t c, size_t i)
{
	if (!op || c >= op->ncurves || i >= op->nsizes || !measured(op, c, i))
		return false;
	return flagged_suspect(&op->curves[c], i) || crossover_cell_implausible(op, c, i);
}

/* A cell that may decide: a valid persistent copy, measured, believed. */
static bool cell_ok(const struct policy_op *op, int c, size_t i)
{
	if (c < 0 || op->curves[c].reference_only || !measured(op, (size_t)c, i))
		return false;
	return !crossover_cell_suspect(op, (size_t)c, i);
}

/*
 * Interval used for the separation test.  An unknown bound collapses
 * onto the median, and a bound on the wrong side of the median is
 * clamped so overlap stays a well-defined test.
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

/* P(curve a beats curve b at size i); 0.5 where either cannot decide. */
static double prob_beats(const struct policy_op *op, int a, int b, size_t i)
{
	const struct policy_curve *ca, *cb;

	if (!cell_ok(op, a, i) || !cell_ok(op, b, i))
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

/* A cell's median and the interval the separation test uses (MiB/s). */
struct cell_value {
	double median, lo, hi;
};

/*
 * +1 when a beats b by more than the margin with the intervals apart, -1
 * the reverse, 0 a tie.  Both conditions: the margin alone sits inside
 * the probe-to-probe noise, disjoint intervals alone accept 1 % gains.
 */
static int apart(const struct cell_value *a, const struct cell_value *b, double margin)
{
	if (a->median > b->median * (1 + margin) && a->lo > b->hi)
		return 1;
	if (b->median > a->median * (1 + margin) && b->lo > a->hi)
		return -1;
	return 0;
}

/* apart() of curves a and b at size i. */
static int compare(const struct policy_op *op, int a, int b, size_t i, double margin)
{
	const struct cell_value va = { cell_median(op, a, i), cell_lo(op, a, i),
				       cell_hi(op, a, i) };
	const struct cell_value vb = { cell_median(op, b, i), cell_lo(op, b, i),
				       cell_hi(op, b, i) };

	return apart(&va, &vb, margin);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double crossover_margin(const struct policy_op *op)
{
	double *w, m = CROSSOVER_MARGIN_FLOOR;
	size_t n = 0;

	if (!op || !op->nsizes || !op->ncurves)
		return m;
	w = malloc(op->nsizes * op->ncurves * sizeof(*w));
	if (!w)
		return m;
	for (size_t c = 0; c < op->ncurves; c++) {
		const struct policy_curve *cv = &op->curves[c];

		if (cv->reference_only || !cv->ci_lo_mib_s || !cv->ci_hi_mib_s)
			continue;
		for (size_t i = 0; i < op->nsizes; i++) {
			double med = cv->median_mib_s[i], lo = cv->ci_lo_mib_s[i],
			       hi = cv->ci_hi_mib_s[i];

			if (measured(op, c, i) && med > 0 && hi > lo)
				w[n++] = (hi - lo) / 2 / med;
		}
	}
	if (n) {
		/* index floor(q n), no interpolation: an even n takes the upper median */
		qsort(w, n, sizeof(*w), cmp_double);
		m = w[(size_t)fmin((double)(n - 1), floor(CROSSOVER_NOISE_QUANTILE * (double)n))];
	}
	free(w);
	return fmin(CROSSOVER_MARGIN_CAP, fmax(CROSSOVER_MARGIN_FLOOR, m));
}

/*
 * A family's value at size i: its second-best member where three or more
 * are measured (a lone member far above its peers is more often a bad
 * cell than a better family), else its best.  -1 if none.
 */
static int family_rep(const struct policy_op *op, enum policy_family f, size_t i)
{
	int best = -1, second = -1, n = 0;

	for (int c = 0; c < (int)op->ncurves; c++) {
		if (strategy_family_of(op->curves[c].strategy) != f || !cell_ok(op, c, i))
			continue;
		n++;
		if (best < 0 || cell_median(op, c, i) > cell_median(op, best, i)) {
			second = best;
			best = c;
		} else if (second < 0 || cell_median(op, c, i) > cell_median(op, second, i)) {
			second = c;
		}
	}
	return n >= 3 ? second : best;
}

/* v into top[0..2), the two largest seen so far, largest first. */
static void top_two(double v, double *top)
{
	if (v > top[0]) {
		top[1] = top[0];
		top[0] = v;
	} else if (v > top[1]) {
		top[1] = v;
	}
}

/*
 * A family's value at one size from v[op->ncurves] (NAN: not measured),
 * taken as family_rep() takes it: the second best of three or more
 * persistent members, else the best.  NAN where the family has none.
 */
static double family_value(const struct policy_op *op, enum policy_family f, const double *v)
{
	double top[2] = { -INFINITY, -INFINITY };
	int n = 0;

	for (size_t c = 0; c < op->ncurves; c++) {
		if (op->curves[c].reference_only ||
		    strategy_family_of(op->curves[c].strategy) != f || !(v[c] > 0))
			continue;
		n++;
		top_two(v[c], top);
	}
	return !n ? NAN : n >= 3 ? top[1] : top[0];
}

/*
 * A family's interval at size i taken bound by bound as family_rep()
 * takes its value (family_value() of the believed cells' bounds).  0, or
 * -1 where the family has no measured cell.
 */
static int family_bounds(const struct policy_op *op, enum policy_family f, size_t i,
			 double *lo, double *hi)
{
	double l[POLICY_MAX_CURVES], h[POLICY_MAX_CURVES];

	assert(op->ncurves <= POLICY_MAX_CURVES);
	for (size_t c = 0; c < op->ncurves; c++) {
		bool ok = cell_ok(op, (int)c, i);

		l[c] = ok ? cell_lo(op, (int)c, i) : NAN;
		h[c] = ok ? cell_hi(op, (int)c, i) : NAN;
	}
	*lo = family_value(op, f, l);
	*hi = family_value(op, f, h);
	return isnan(*lo) || isnan(*hi) ? -1 : 0;
}

/*
 * The verdict at a tied size i if the families' intervals were
 * family_bounds(): POLICY_FAMILY_STREAMING or POLICY_FAMILY_CACHED_FLUSH where those and
 * the representatives' medians are apart by the margin, else CROSSOVER_TIE.
 * One slow sample widens a member's interval enough to tie a size whose
 * families are apart: the second look is what tells.
 */
static int unresolved_verdict(const struct policy_op *op, const struct crossover_cell *x,
			      size_t i, double margin)
{
	struct cell_value v[2];
	int r;

	if (x->verdict != CROSSOVER_TIE || x->rep[0] < 0 || x->rep[1] < 0 ||
	    family_bounds(op, POLICY_FAMILY_STREAMING, i, &v[0].lo, &v[0].hi) ||
	    family_bounds(op, POLICY_FAMILY_CACHED_FLUSH, i, &v[1].lo, &v[1].hi))
		return CROSSOVER_TIE;
	v[0].median = cell_median(op, x->rep[0], i);
	v[1].median = cell_median(op, x->rep[1], i);
	r = apart(&v[0], &v[1], margin);
	return r > 0 ? POLICY_FAMILY_STREAMING : r < 0 ? POLICY_FAMILY_CACHED_FLUSH : CROSSOVER_TIE;
}

/* The family's first ranked member with a measured cell in op; -1 if none. */
static int family_default(const struct policy_op *op, enum policy_family f)
{
	int best = -1, rank = 0;

	for (int c = 0; c < (int)op->ncurves; c++) {
		int r = strategy_default_rank(f, op->curves[c].strategy);
		bool any = false;

		if (r < 0 || op->curves[c].reference_only)
			continue;
		for (size_t i = 0; i < op->nsizes && !any; i++)
			any = measured(op, (size_t)c, i);
		if (any && (best < 0 || r < rank)) {
			best = c;
			rank = r;
		}
	}
	return best;
}

/* Separated verdicts (not ties) of grid sizes, in size order, for the smoothing. */
static size_t separated(const int *v, const bool *grid, size_t n, size_t *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (grid[i] &&
		    (v[i] == POLICY_FAMILY_STREAMING || v[i] == POLICY_FAMILY_CACHED_FLUSH))
			out[k++] = i;
	return k;
}

/*
 * The separated sizes sep[0..ns) less the kept islands, in place; their
 * count.  A kept island is one size's own effect (a partial line, say),
 * not a run: the ties beside it look past it to the run it sits in.
 * Taking its family, a tie at 64 B beside a kept 96 B went cached in
 * some probes of a host and streaming in the others.
 */
static size_t without_kept(size_t *sep, size_t ns, const bool *kept)
{
	size_t m = 0;

	for (size_t k = 0; k < ns; k++)
		if (!kept[sep[k]])
			sep[m++] = sep[k];
	return m;
}

/*
 * From raw verdicts v (modified: dropped islands become ties) to a
 * family per size in fam (-1 where v is POLICY_FAMILY_NONE).
 *
 * Islands: a separated grid size whose nearest separated grid sizes on
 * both sides are the other family, or which departs from the prior with
 * nothing separated on one side; dropped (island[i]), since a one-size
 * change of decision is kept only when repeated, unless keep[i] says a
 * fresh measurement repeated it (the file records that, so replay keeps
 * it too).  Ties, looking past kept islands: between two sizes of one
 * family that family; between an axis edge and a family, that family;
 * between two families, or with nothing separated at all, the prior.
 * Bisection points (not grid) only place a crossover between two grid
 * sizes of different families, never a run of their own.
 */
int crossover_smooth_confirmed(int *v, const bool *grid, size_t n, int prior, bool *keep,
			       int *fam, bool *island)
{
	size_t *sep = calloc(n ? n : 1, sizeof(*sep)), ns, ng = 0;
	size_t *gi = calloc(n ? n : 1, sizeof(*gi));
	bool *kept = calloc(n ? n : 1, sizeof(*kept));

	if (!sep || !gi || !kept) {
		free(sep);
		free(gi);
		free(kept);
		return -ENOMEM;
	}
	/* every size's, not only the separated ones': callers read all n */
	for (size_t i = 0; i < n; i++)
		island[i] = false;
	ns = separated(v, grid, n, sep);
	for (size_t k = 0; k < ns; k++) {
		size_t i = sep[k];
		int l = k > 0 ? v[sep[k - 1]] : POLICY_FAMILY_NONE;
		int r = k + 1 < ns ? v[sep[k + 1]] : POLICY_FAMILY_NONE;

		if (l == v[i] || r == v[i])
			continue;
		if ((l != POLICY_FAMILY_NONE && l == r) ||
		    (v[i] != prior && (l == POLICY_FAMILY_NONE || r == POLICY_FAMILY_NONE))) {
			if (keep && keep[i]) {
				kept[i] = true;
				continue;
			}
			v[i] = CROSSOVER_TIE;
			island[i] = true;
		}
	}
	for (size_t i = 0; keep && i < n; i++)
		keep[i] = kept[i];
	ns = without_kept(sep, separated(v, grid, n, sep), kept);
	for (size_t i = 0; i < n; i++) {
		fam[i] = -1;
		if (v[i] == POLICY_FAMILY_NONE || !grid[i])
			continue;
		gi[ng++] = i;
		if (v[i] != CROSSOVER_TIE) {
			fam[i] = v[i];
		} else {
			int l = -1, r = -1;

			for (size_t k = 0; k < ns; k++) {
				if (sep[k] < i)
					l = v[sep[k]];
				else if (r < 0)
					r = v[sep[k]];
			}
			if (l < 0 && r < 0)
				fam[i] = prior;
			else if (l < 0 || r < 0)
				fam[i] = l < 0 ? r : l;
			else
				fam[i] = l == r ? l : prior;
		}
	}
	/* bisection points: between two grid sizes of one family, that family */
	for (size_t i = 0; i < n; i++) {
		int fl = -1, fh = -1;

		if (v[i] == POLICY_FAMILY_NONE || grid[i])
			continue;
		for (size_t k = 0; k < ng; k++) {
			if (gi[k] < i)
				fl = fam[gi[k]];
			else if (fh < 0)
				fh = fam[gi[k]];
		}
		if (fl >= 0 && fl == fh)
			fam[i] = fl;
		else
			fam[i] = v[i] == CROSSOVER_TIE ? prior : v[i];
	}
	free(sep);
	free(gi);
	free(kept);
	return 0;
}

int crossover_smooth(int *v, const bool *grid, size_t n, int prior, int *fam, bool *island)
{
	return crossover_smooth_confirmed(v, grid, n, prior, NULL, fam, island);
}

/* Both families' representatives at i carry a fresh measurement's confirmation. */
static bool confirmed_at(const struct policy_op *op, const struct crossover_cell *x, size_t i)
{
	for (int f = 0; f < 2; f++) {
		const struct policy_curve *cv = x->rep[f] >= 0 ? &op->curves[x->rep[f]] : NULL;

		if (!cv || !cv->cell_flags || !(cv->cell_flags[i] & POLICY_CELL_CONFIRMED))
			return false;
	}
	return true;
}

/* A run of a member from size run0 to last, over n grid sizes, long enough for a range. */
static bool member_run_long(const struct policy_op *op, size_t run0, size_t last, size_t n)
{
	return n >= CROSSOVER_MEMBER_MIN_SIZES &&
	       (double)op->sizes_bytes[last] / (double)op->sizes_bytes[run0] >=
	       CROSSOVER_MEMBER_MIN_SPAN;
}

/*
 * The member a family's sizes use: its default, except on runs of
 * consecutive grid sizes where one challenger (the member beating the
 * default at most sizes; the first name on a draw) wins by the margin,
 * with CROSSOVER_MEMBER_MIN_SIZES sizes at least spanning
 * CROSSOVER_MEMBER_MIN_SPAN.
 */
static void choose_members(const struct policy_op *op, enum policy_family f, double margin,
			   struct crossover_cell *cells)
{
	int dflt = family_default(op, f), alt = -1, alt_score = 0;
	size_t run0 = SIZE_MAX, runn = 0, last = SIZE_MAX;

	for (size_t i = 0; i < op->nsizes; i++)
		if (cells[i].family == (int)f)
			cells[i].winner = dflt;
	if (dflt < 0)
		return;
	for (int c = 0; c < (int)op->ncurves; c++) {
		int score = 0;

		if (c == dflt || op->curves[c].reference_only ||
		    strategy_family_of(op->curves[c].strategy) != f)
			continue;
		for (size_t i = 0; i < op->nsizes; i++)
			if (cells[i].family == (int)f && cell_ok(op, c, i) &&
			    cell_ok(op, dflt, i) && compare(op, c, dflt, i, margin) > 0)
				score++;
		if (score > alt_score || (score && score == alt_score &&
					  strcmp(op->curves[c].strategy,
						 op->curves[alt].strategy) < 0)) {
			alt = c;
			alt_score = score;
		}
	}
	if (alt < 0)
		return;
	for (size_t i = 0; i <= op->nsizes; i++) {
		bool win = i < op->nsizes && cells[i].family == (int)f && cells[i].grid &&
			   cell_ok(op, alt, i) && cell_ok(op, dflt, i) &&
			   compare(op, alt, dflt, i, margin) > 0;

		if (i < op->nsizes && (cells[i].family != (int)f || !cells[i].grid))
			continue;
		if (win) {
			if (run0 == SIZE_MAX)
				run0 = i;
			runn++;
			last = i;
			continue;
		}
		if (run0 != SIZE_MAX && member_run_long(op, run0, last, runn))
			for (size_t j = run0; j <= last; j++)
				if (cells[j].family == (int)f)
					cells[j].winner = alt;
		run0 = SIZE_MAX;
		runn = 0;
	}
}

int crossover_pair_verdict(const struct policy_op *op, int a, int b, size_t i, double margin)
{
	int r;

	if (a < 0 || b < 0 || !measured(op, (size_t)a, i) || !measured(op, (size_t)b, i) ||
	    crossover_cell_suspect(op, (size_t)a, i) || crossover_cell_suspect(op, (size_t)b, i))
		return POLICY_FAMILY_NONE;
	r = compare(op, a, b, i, margin);
	return r > 0 ? 0 : r < 0 ? 1 : CROSSOVER_TIE;
}

int crossover_family_default(const struct policy_op *op, int family)
{
	return op ? family_default(op, (enum policy_family)family) : -1;
}

int crossover_cells(const struct policy_op *op, struct crossover_cell *cells)
{
	int *v = NULL, *fam = NULL, prior = CROSSOVER_PRIOR, ret = -ENOMEM;
	bool *island = NULL, *grid = NULL, *keep = NULL, has[2] = { false, false };
	size_t full = 0, *count = NULL;
	double margin;

	if (!op || (op->nsizes && !cells))
		return -EINVAL;
	if (!op->nsizes)
		return 0;
	/* the per-size scratch of the family bounds is fixed-size */
	if (!policy_op_within_limits(op))
		return -E2BIG;
	v = calloc(op->nsizes, sizeof(*v));
	fam = calloc(op->nsizes, sizeof(*fam));
	island = calloc(op->nsizes, sizeof(*island));
	count = calloc(op->nsizes, sizeof(*count));
	grid = calloc(op->nsizes, sizeof(*grid));
	keep = calloc(op->nsizes, sizeof(*keep));
	if (!v || !fam || !island || !count || !grid || !keep)
		goto out;
	margin = crossover_margin(op);

	/* an op measuring one family only decides between its members */
	for (int f = 0; f < 2; f++)
		has[f] = family_default(op, (enum policy_family)f) >= 0;
	if (has[0] != has[1])
		prior = has[0] ? POLICY_FAMILY_STREAMING : POLICY_FAMILY_CACHED_FLUSH;

	for (size_t i = 0; i < op->nsizes; i++) {
		struct crossover_cell *x = &cells[i];

		memset(x, 0, sizeof(*x));
		x->winner = x->runner_up = x->family = -1;
		x->rep[0] = family_rep(op, POLICY_FAMILY_STREAMING, i);
		x->rep[1] = family_rep(op, POLICY_FAMILY_CACHED_FLUSH, i);
		if (x->rep[0] >= 0 && x->rep[1] >= 0) {
			int r = compare(op, x->rep[0], x->rep[1], i, margin);

			x->verdict = r > 0 ? POLICY_FAMILY_STREAMING :
				     r < 0 ? POLICY_FAMILY_CACHED_FLUSH : CROSSOVER_TIE;
		} else if (has[0] != has[1] && x->rep[prior] >= 0) {
			/* nothing to compare against: never a separated win */
			x->verdict = CROSSOVER_TIE;
		} else {
			x->verdict = POLICY_FAMILY_NONE;
		}
		v[i] = x->verdict;
		keep[i] = confirmed_at(op, x, i);
		for (size_t c = 0; c < op->ncurves; c++)
			count[i] += !op->curves[c].reference_only && measured(op, c, i);
		if (count[i] > full)
			full = count[i];
	}
	for (size_t i = 0; i < op->nsizes; i++)
		cells[i].grid = grid[i] = count[i] == full;
	ret = crossover_smooth_confirmed(v, grid, op->nsizes, prior, keep, fam, island);
	if (ret)
		goto out;
	for (size_t i = 0; i < op->nsizes; i++) {
		cells[i].family = fam[i];
		cells[i].island = island[i];
		cells[i].confirmed = keep[i];
		cells[i].tie = fam[i] >= 0 && cells[i].verdict != fam[i];
	}
	choose_members(op, POLICY_FAMILY_STREAMING, margin, cells);
	choose_members(op, POLICY_FAMILY_CACHED_FLUSH, margin, cells);
	for (size_t i = 0; i < op->nsizes; i++) {
		struct crossover_cell *x = &cells[i];

		if (x->family < 0 || x->winner < 0) {
			x->winner = -1;
			continue;
		}
		x->runner_up = x->rep[1 - x->family];
		x->p_win = x->runner_up < 0 ? 1.0 : prob_beats(op, x->winner, x->runner_up, i);
	}
	ret = 0;
out:
	free(v);
	free(fam);
	free(island);
	free(count);
	free(grid);
	free(keep);
	return ret;
}

size_t crossover_rechecks(const struct policy_op *op, const struct crossover_cell *cells,
			  struct second_look *out, size_t max)
{
	double margin;
	size_t n = 0;

	if (!op || !cells || !out)
		return 0;
	margin = crossover_margin(op);
	for (size_t i = 0; i < op->nsizes && n < max; i++) {
		const struct crossover_cell *x = &cells[i];
		bool left = false, right = false;
		int u = x->grid ? unresolved_verdict(op, x, i, margin) : CROSSOVER_TIE;

		if (u != CROSSOVER_TIE) {
			out[n++] = (struct second_look){
				.index = i, .why = SECOND_LOOK_UNRESOLVED, .verdict = u,
				.curves = { x->rep[u == POLICY_FAMILY_STREAMING ? 0 : 1],
					    x->rep[u == POLICY_FAMILY_STREAMING ? 1 : 0] },
				.ncurves = 2, .every = true };
			continue;
		}
		if (!x->island)
			continue;
		for (size_t j = 0; j < op->nsizes; j++) {
			bool sep = cells[j].grid && !cells[j].island &&
				   (cells[j].verdict == POLICY_FAMILY_STREAMING ||
				    cells[j].verdict == POLICY_FAMILY_CACHED_FLUSH);

			left |= sep && j < i;
			right |= sep && j > i;
		}
		/* the verdict was turned into a tie: the family it claimed is the other one */
		out[n++] = (struct second_look){
			.index = i, .why = left && right ? SECOND_LOOK_ISLAND : SECOND_LOOK_EDGE,
			.verdict = x->verdict,
			.curves = { x->rep[x->family == POLICY_FAMILY_STREAMING ? 1 : 0],
				    x->rep[x->family == POLICY_FAMILY_STREAMING ? 0 : 1] },
			.ncurves = 2, .every = true };
	}
	return n;
}

bool crossover_looks_agree(const struct policy_op *op, size_t i, const double *first_mib_s)
{
	double now[POLICY_MAX_CURVES];
	double limit;

	if (!op || !first_mib_s || i >= op->nsizes)
		return true;
	assert(op->ncurves <= POLICY_MAX_CURVES);
	for (size_t c = 0; c < op->ncurves; c++)
		now[c] = measured(op, c, i) ? cell_median(op, (int)c, i) : NAN;
	limit = log1p(CROSSOVER_LOOK_AGREE_MARGINS * crossover_margin(op));
	for (int f = POLICY_FAMILY_STREAMING; f <= POLICY_FAMILY_CACHED_FLUSH; f++) {
		double a = family_value(op, (enum policy_family)f, first_mib_s),
		       b = family_value(op, (enum policy_family)f, now);

		if (!isnan(a) && !isnan(b) && fabs(log(b / a)) > limit)
			return false;
	}
	return true;
}

size_t crossover_member_rechecks(const struct policy_op *op, const struct crossover_cell *cells,
				 struct second_look *out, size_t max)
{
	size_t n = 0;

	if (!op || !cells || !out)
		return 0;
	for (size_t i = 0; i < op->nsizes && n < max; i++) {
		const struct crossover_cell *x = &cells[i];
		int d = x->family >= 0 ? family_default(op, (enum policy_family)x->family) : -1;

		if (x->winner < 0 || d < 0 || x->winner == d)
			continue;
		out[n++] = (struct second_look){ .index = i, .why = SECOND_LOOK_MEMBER,
						 .verdict = POLICY_FAMILY_NONE,
						 .curves = { x->winner, d }, .ncurves = 2 };
	}
	return n;
}

static void copy_name(char *dst, const char *src)
{
	snprintf(dst, POLICY_NAME_MAX, "%s", src);
}

/* Mark the cells no decision believes, so that the file (and --plot) shows them. */
static void mark_suspects(struct policy_op *op)
{
	for (size_t c = 0; c < op->ncurves; c++)
		for (size_t i = 0; op->curves[c].cell_flags && i < op->nsizes; i++)
			if (crossover_cell_suspect(op, c, i))
				op->curves[c].cell_flags[i] |= POLICY_CELL_SUSPECT;
}

/* Ranges and crossovers from per-size strategies win[] (curve index, -1 none). */
static int build_ranges(struct policy_op *op, const struct crossover_cell *cells,
			const int *win)
{
	struct policy_range *ranges = NULL;
	struct policy_crossover *xo = NULL;
	size_t nr = 0, r = 0, last = SIZE_MAX;
	int w = -1;

	for (size_t i = 0; i < op->nsizes; i++) {
		if (win[i] < 0)
			continue;
		nr += win[i] != w;
		w = win[i];
	}
	if (nr) {
		ranges = calloc(nr, sizeof(*ranges));
		xo = calloc(nr, sizeof(*xo));
		if (!ranges || !xo) {
			free(ranges);
			free(xo);
			return -ENOMEM;
		}
	}
	w = -1;
	for (size_t i = 0; nr && i < op->nsizes; i++) {
		enum policy_family f;
		struct policy_range *cur;

		if (win[i] < 0)
			continue;
		f = strategy_family_of(op->curves[win[i]].strategy);
		if (win[i] != w) {
			int prev_w = w;

			w = win[i];
			cur = &ranges[r];
			cur->from_bytes = r ? op->sizes_bytes[i] : 0;
			cur->to_bytes = POLICY_SIZE_OPEN;
			copy_name(cur->strategy, op->curves[w].strategy);
			snprintf(cur->family, sizeof(cur->family), "%s", strategy_family_name(f));
			cur->tie = true;
			if (r) {
				struct policy_crossover *x = &xo[r - 1];
				enum policy_family pf =
					strategy_family_of(op->curves[prev_w].strategy);
				int a = prev_w, b = w, va = w, vb = prev_w;

				ranges[r - 1].to_bytes = op->sizes_bytes[i];
				x->size_bytes = op->sizes_bytes[i];
				copy_name(x->below, op->curves[prev_w].strategy);
				copy_name(x->above, op->curves[w].strategy);
				snprintf(x->kind, sizeof(x->kind), "%s",
					 pf == f ? "member" : "family");
				/*
				 * A family change is judged on the families'
				 * representatives; a baseline's strategy of no
				 * family (noflush) on the two strategies.
				 */
				if (pf != f && pf != POLICY_FAMILY_NONE &&
				    f != POLICY_FAMILY_NONE) {
					a = cells[last].rep[pf] >= 0 ? cells[last].rep[pf] : a;
					b = cells[i].rep[f] >= 0 ? cells[i].rep[f] : b;
					va = cells[last].rep[f];
					vb = cells[i].rep[pf];
				}
				x->confidence = prob_beats(op, a, va, last) *
						prob_beats(op, b, vb, i);
			}
			r++;
		}
		if (cells[i].verdict == (int)f && !cells[i].island)
			ranges[r - 1].tie = false;
		last = i;
	}
	free(op->ranges);
	free(op->crossovers);
	op->ranges = ranges;
	op->nranges = nr;
	op->crossovers = nr > 1 ? xo : NULL;
	op->ncrossovers = nr ? nr - 1 : 0;
	if (nr <= 1)
		free(xo);
	return 0;
}

/* The baseline op's strategy at size s; NULL if its ranges do not cover s. */
static const char *baseline_at(const struct policy_op *b, uint64_t s)
{
	for (size_t r = 0; b && r < b->nranges; r++)
		if (s >= b->ranges[r].from_bytes && s < b->ranges[r].to_bytes)
			return b->ranges[r].strategy;
	return NULL;
}

/*
 * Every strategy b's ranges run is one op measured as a persistent copy,
 * so that b's decision copied into op loads (a probe that no longer
 * measures a baseline's strategy decides afresh).
 */
static bool baseline_fits(const struct policy_op *op, const struct policy_op *b)
{
	for (size_t r = 0; r < b->nranges; r++) {
		const struct policy_curve *c = policy_op_find_curve(op, b->ranges[r].strategy);

		if (!c || c->reference_only)
			return false;
	}
	return true;
}

/* Measured again later in the op: a fresh look at the cell. */
static bool fresh(const struct policy_op *op, int c, size_t i)
{
	const uint8_t *f = op->curves[c].cell_flags;

	return f && (f[i] & POLICY_CELL_REMEASURED);
}

/*
 * One of the op's cells could not be measured (threads that never ran
 * together): what is left is too thin to decide anything, and deciding
 * from it would flicker from probe to probe.
 */
bool crossover_op_thin(const struct policy_op *op)
{
	assert(op);

	for (size_t c = 0; c < op->ncurves; c++) {
		const uint8_t *f = op->curves[c].cell_flags;

		for (size_t i = 0; f && !op->curves[c].reference_only && i < op->nsizes; i++)
			if (f[i] & POLICY_CELL_UNMEASURABLE)
				return true;
	}
	return false;
}

/*
 * The baseline's strategy k at each size of op replaces the new winner
 * win[i] unless the new cells show it losing by the margin with the
 * intervals apart -- and, with need_fresh, on cells measured again
 * later (a second loss in a row: the first made the probe re-measure).
 * A change to another member of the same family must also do what a new
 * member range does (CROSSOVER_MEMBER_MIN_SPAN over CROSSOVER_MEMBER_MIN_SIZES
 * grid sizes).  base[i]
 * gets k (-1: the baseline has no curve of this op here: a new decision).
 */
static void apply_baseline(const struct policy_op *op, const struct policy_op *b,
			   const struct crossover_cell *cells, double margin, bool need_fresh,
			   int *win, int *base)
{
	size_t run0 = SIZE_MAX, runn = 0, last = SIZE_MAX;

	for (size_t i = 0; i < op->nsizes; i++) {
		const char *bs = baseline_at(b, op->sizes_bytes[i]);
		const struct policy_curve *bc = bs ? policy_op_find_curve(op, bs) : NULL;
		int k = bc ? (int)(bc - op->curves) : -1;

		base[i] = k;
		if (win[i] < 0 || k < 0 || k == win[i])
			continue;
		if (!cell_ok(op, k, i) || !cell_ok(op, win[i], i) ||
		    compare(op, win[i], k, i, margin) <= 0 ||
		    (need_fresh && (!fresh(op, k, i) || !fresh(op, win[i], i))))
			win[i] = k;
	}
	/* member changes: runs of grid sizes, as choose_members() asks of a new member */
	for (size_t i = 0; i <= op->nsizes; i++) {
		bool member = i < op->nsizes && win[i] >= 0 && base[i] >= 0 && win[i] != base[i] &&
			      strategy_family_of(op->curves[win[i]].strategy) ==
			      strategy_family_of(op->curves[base[i]].strategy);

		if (i < op->nsizes && !cells[i].grid && !member)
			continue;
		if (member && (run0 == SIZE_MAX || win[i] == win[run0])) {
			if (run0 == SIZE_MAX)
				run0 = i;
			runn += cells[i].grid;
			last = i;
			continue;
		}
		if (run0 != SIZE_MAX && !member_run_long(op, run0, last, runn)) {
			int alt = win[run0];

			for (size_t j = run0; j <= last; j++)
				if (base[j] >= 0 && win[j] == alt)
					win[j] = base[j];
		}
		run0 = member ? i : SIZE_MAX;
		runn = member ? cells[i].grid : 0;
		last = i;
	}
}

/* Per size of an op: its cells, the winner chosen, the baseline's kept strategy. */
struct decision {
	struct crossover_cell *cells;
	int *win, *bk;
};

static int decision_alloc(struct decision *d, size_t nsizes)
{
	size_t n = nsizes ? nsizes : 1;

	d->cells = calloc(n, sizeof(*d->cells));
	d->win = calloc(n, sizeof(*d->win));
	d->bk = calloc(n, sizeof(*d->bk));
	return d->cells && d->win && d->bk ? 0 : -ENOMEM;
}

static void decision_free(struct decision *d)
{
	free(d->cells);
	free(d->win);
	free(d->bk);
}

static int decide(struct policy_op *op, const struct policy_op *base)
{
	struct decision d;
	struct crossover_cell *cells;
	int *win, *bk, ret;
	bool all_kept = true, thin;
	double margin;

	if (!op)
		return -EINVAL;
	if (!policy_op_within_limits(op))
		return -E2BIG;
	mark_suspects(op);
	margin = op->margin = crossover_margin(op);
	thin = crossover_op_thin(op);
	ret = decision_alloc(&d, op->nsizes);
	cells = d.cells;
	win = d.win;
	bk = d.bk;
	if (ret)
		goto out;
	ret = crossover_cells(op, cells);
	if (ret)
		goto out;
	for (size_t i = 0; i < op->nsizes; i++)
		win[i] = thin ? -1 : cells[i].winner;
	if (base && base->nranges && !thin) {
		apply_baseline(op, base, cells, margin, true, win, bk);
		for (size_t i = 0; i < op->nsizes; i++)
			all_kept &= win[i] < 0 || win[i] == bk[i];
	}
	ret = build_ranges(op, cells, win);
	if (ret || !base)
		goto out;
	if ((all_kept || thin) && base->nranges && baseline_fits(op, base)) {
		/* nothing lost by the margin (or nothing to decide on): the baseline's, exactly */
		struct policy_range *r = calloc(base->nranges, sizeof(*r));
		struct policy_crossover *x = base->ncrossovers ?
					     calloc(base->ncrossovers, sizeof(*x)) : NULL;

		if (!r || (base->ncrossovers && !x)) {
			free(r);
			free(x);
			ret = -ENOMEM;
			goto out;
		}
		memcpy(r, base->ranges, base->nranges * sizeof(*r));
		if (x)
			memcpy(x, base->crossovers, base->ncrossovers * sizeof(*x));
		free(op->ranges);
		free(op->crossovers);
		op->ranges = r;
		op->nranges = base->nranges;
		op->crossovers = x;
		op->ncrossovers = base->ncrossovers;
	}
	for (size_t r = 0; r < op->nranges; r++) {
		struct policy_range *cur = &op->ranges[r];
		bool same = base->nranges > 0;

		for (size_t i = 0; same && i < op->nsizes; i++) {
			const char *bs;

			if (op->sizes_bytes[i] < cur->from_bytes ||
			    op->sizes_bytes[i] >= cur->to_bytes)
				continue;
			bs = baseline_at(base, op->sizes_bytes[i]);
			same = bs && !strcmp(bs, cur->strategy);
		}
		snprintf(cur->baseline, sizeof(cur->baseline), "%s",
			 !base->nranges ? "new" : same ? "kept" : "changed");
	}
out:
	decision_free(&d);
	return ret;
}

size_t crossover_baseline_losses(const struct policy_op *op, const struct policy_op *baseline,
				 struct second_look *out, size_t max)
{
	struct decision d;
	struct crossover_cell *cells;
	int *win, *bk;
	size_t n = 0;

	if (!op || !baseline || !baseline->nranges || !out || !op->nsizes ||
	    crossover_op_thin(op))
		return 0;
	if (!decision_alloc(&d, op->nsizes) && !crossover_cells(op, d.cells)) {
		cells = d.cells;
		win = d.win;
		bk = d.bk;
		for (size_t i = 0; i < op->nsizes; i++)
			win[i] = cells[i].winner;
		apply_baseline(op, baseline, cells, crossover_margin(op), false, win, bk);
		for (size_t i = 0; i < op->nsizes && n < max; i++) {
			if (win[i] < 0 || bk[i] < 0 || win[i] == bk[i])
				continue;
			out[n++] = (struct second_look){ .index = i,
							 .why = SECOND_LOOK_BASELINE_LOSS,
							 .verdict = POLICY_FAMILY_NONE,
							 .curves = { win[i], bk[i] },
							 .ncurves = 2 };
		}
	}
	decision_free(&d);
	return n;
}

int crossover_decide(struct policy_op *op)
{
	return decide(op, NULL);
}

int crossover_decide_with_baseline(struct policy_op *op, const struct policy_op *baseline)
{
	return decide(op, baseline ? baseline : &(const struct policy_op){ 0 });
}

int crossover_decide_policy(struct policy *p, const struct policy *baseline)
{
	int ret = 0;

	for (size_t t = 0; p && t < p->ntargets && !ret; t++) {
		struct policy_target *tg = &p->targets[t];
		const struct policy_target *bt = baseline ? policy_find_target(baseline, tg->name) :
					       NULL;

		for (size_t i = 0; i < tg->nops && !ret; i++) {
			struct policy_op *op = &tg->ops[i];
			const struct policy_op *bo = bt ? policy_find_op(bt, op->op, op->pattern,
									 op->threads) : NULL;

			ret = baseline ? crossover_decide_with_baseline(op, bo) :
					 crossover_decide(op);
		}
	}
	return ret;
}

/* Any curve could decide at size i: the grid point carries a decision. */
static bool size_measured(const struct policy_op *op, size_t i)
{
	for (int c = 0; c < (int)op->ncurves; c++)
		if (cell_ok(op, c, i))
			return true;
	return false;
}

/*
 * op's cells, allocated, as crossover_decide() draws ranges from their
 * winners (no baseline); NULL where it draws none (nothing measured, a
 * thin op) or out of memory.
 */
static struct crossover_cell *drawn_cells(const struct policy_op *op)
{
	struct crossover_cell *cells;

	if (!op->nsizes || crossover_op_thin(op))
		return NULL;
	cells = calloc(op->nsizes, sizeof(*cells));
	if (cells && crossover_cells(op, cells)) {
		free(cells);
		return NULL;
	}
	return cells;
}

bool crossover_runs(const struct policy_op *op, const char *strategy)
{
	struct crossover_cell *cells;
	const struct policy_curve *cv;
	bool runs = false;

	assert(op && strategy);
	cv = policy_op_find_curve(op, strategy);
	cells = cv ? drawn_cells(op) : NULL;
	for (size_t i = 0; cells && i < op->nsizes && !runs; i++)
		runs = cells[i].winner == (int)(cv - op->curves);
	free(cells);
	return runs;
}

/* A bracket from lo (the last measured size below hi) to hi, named by the families' defaults. */
static bool bracket_at(const struct policy_op *op, size_t hi_idx, int below, int above,
		       double min_ratio, uint64_t min_gap_bytes, struct crossover_bracket *b)
{
	uint64_t hi = op->sizes_bytes[hi_idx], lo = 0;
	enum policy_family fb = strategy_family_of(op->curves[below].strategy);
	enum policy_family fa = strategy_family_of(op->curves[above].strategy);
	size_t i = hi_idx;

	/* bisect where the family changes, with each family's default member */
	if (fb == fa && fb != POLICY_FAMILY_NONE)
		return false;
	if (fb != POLICY_FAMILY_NONE && family_default(op, fb) >= 0)
		below = family_default(op, fb);
	if (fa != POLICY_FAMILY_NONE && family_default(op, fa) >= 0)
		above = family_default(op, fa);
	while (i-- > 0 && !size_measured(op, i))
		;
	if (i == SIZE_MAX)
		return false;
	lo = op->sizes_bytes[i];
	if (hi - lo <= min_gap_bytes || (lo && (double)hi / (double)lo <= min_ratio))
		return false;
	b->lo_bytes = lo;
	b->hi_bytes = hi;
	copy_name(b->below, op->curves[below].strategy);
	copy_name(b->above, op->curves[above].strategy);
	return true;
}

size_t crossover_brackets(const struct policy_op *op, double min_ratio,
			  uint64_t min_gap_bytes, struct crossover_bracket *out,
			  size_t max)
{
	struct crossover_cell *cells;
	size_t n = 0;
	int prev = -1;

	if (!op || !out || !max || !(cells = drawn_cells(op)))
		return 0;
	/* where the winner changes, as crossover_decide() draws the ranges */
	for (size_t i = 0; i < op->nsizes && n < max; i++) {
		int w = cells[i].winner;

		if (w < 0)
			continue;
		if (prev >= 0 && w != prev &&
		    bracket_at(op, i, prev, w, min_ratio, min_gap_bytes, &out[n]))
			n++;
		prev = w;
	}
	free(cells);
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

int crossover_check_unranged(const struct policy *p, char *err, size_t errlen)
{
	assert(p && (err || !errlen));

	for (size_t t = 0; t < p->ntargets; t++) {
		for (size_t o = 0; o < p->targets[t].nops; o++) {
			const struct policy_op *op = &p->targets[t].ops[o];
			struct crossover_cell *cells;
			size_t i = op->nsizes;

			if (op->nranges || crossover_op_thin(op))
				continue;
			cells = calloc(op->nsizes ? op->nsizes : 1, sizeof(*cells));
			if (!cells)
				return -ENOMEM;
			if (!crossover_cells(op, cells))
				for (i = 0; i < op->nsizes && cells[i].winner < 0; i++)
					;
			if (i < op->nsizes) {
				snprintf(err, errlen, "targets[%zu].ops[%zu].ranges: no range, "
					 "though '%s' is decided at %" PRIu64 " bytes: every size "
					 "needs a strategy", t, o,
					 op->curves[cells[i].winner].strategy,
					 op->sizes_bytes[i]);
				free(cells);
				return -EINVAL;
			}
			free(cells);
		}
	}
	return 0;
}
