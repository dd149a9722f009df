// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Exports: the best value of each consumer's single knob, and its regret.
 *
 *  libpmem  PMEM_MOVNT_THRESHOLD: PMDK copies with cached stores + flush
 *           below it and non-temporal stores at and above it.  Which
 *           flush and which vector width it uses is chosen with
 *           PMEM_NO_CLWB / PMEM_NO_CLFLUSHOPT / PMEM_AVX / PMEM_AVX512F /
 *           PMEM_MOVDIR64B, set explicitly both ways because PMDK 1.x
 *           and 2.x default some of them differently.
 *  kernel   __memcpy_flushcache (movnti) up to flushcache_nt_max_bytes,
 *           cached copy + clflushopt above, as dm-writecache does at 768.
 *  glibc    x86_non_temporal_threshold: cached memcpy below, streaming
 *           stores above, on DRAM (noflush vs the widest movnt);
 *           x86_rep_movsb_threshold: vector copy below, rep movsb above
 *           (clwb vs rep_movsb_clwb: both pay the same flush, so their
 *           difference is the copy's).
 */
#include <ctype.h>
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macros.h"
#include "common/read_file.h"
#include "policy/export_keys.h"
#include "policy/policy_limits.h"
#include "rule/crossover.h"
#include "rule/export.h"
#include "rule/strategy_class.h"

/*
 * The consumers' own defaults: kept, where the baseline holds no value
 * for the knob (or there is none), unless the best
 * value gains on them by more than the margin (knob_threshold()).  PMDK
 * switches to non-temporal at 256 bytes, dm-writecache's rule would be
 * "non-temporal below 768" (threshold 768 in this rule's terms), glibc's
 * rep movsb threshold is 2 KiB per 16 bytes of vector (4 KiB with AVX2).
 */
static const uint64_t pmdk_default = EXPORT_PMDK_DEFAULT, kernel_default = EXPORT_KERNEL_DEFAULT,
		      glibc_rep_movsb = EXPORT_GLIBC_REP_MOVSB_DEFAULT;

static double cell(const struct policy_curve *c, size_t i)
{
	if (!c || !c->samples[i] || (c->cell_flags && (c->cell_flags[i] & POLICY_CELL_SUSPECT)))
		return NAN;
	return c->median_mib_s[i];
}

/*
 * The weight of a size between the sizes below and above it: the user's
 * distribution at its nearest listed size, or else even on the log-size
 * axis, half the distance to each neighbour (all of it at an end).
 */
static double weight_between(uint64_t size, uint64_t below, uint64_t above, bool interior,
			     const struct export_weights *w)
{
	double lo, hi;

	if (w && w->n) {
		size_t best = 0;
		double d = INFINITY;

		for (size_t k = 0; k < w->n; k++) {
			double dk = fabs(log((double)w->size_bytes[k]) - log((double)size));

			if (dk < d) {
				d = dk;
				best = k;
			}
		}
		return w->weight[best];
	}
	lo = log((double)below);
	hi = log((double)above);
	return hi > lo ? (hi - lo) / (interior ? 2 : 1) : 1;
}

static double size_weight(const struct policy_op *op, size_t i, const struct export_weights *w)
{
	size_t n = op->nsizes;

	return weight_between(op->sizes_bytes[i], op->sizes_bytes[i > 0 ? i - 1 : i],
			      op->sizes_bytes[i + 1 < n ? i + 1 : i], i > 0 && i + 1 < n, w);
}

/* The ops of a target with a given thread count (0 = all). */
static size_t target_ops(const struct policy_target *t, unsigned threads,
			 const struct policy_op **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nops && n < max; i++)
		if (!threads || t->ops[i].threads == threads)
			out[n++] = &t->ops[i];
	return n;
}

/* Every key written is one of the export vocabulary's. */
static void kv_set(struct policy_export *e, enum export_key_id id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void kv_set(struct policy_export *e, enum export_key_id id, const char *fmt, ...)
{
	va_list ap;

	if (e->nkv == POLICY_EXPORT_KV_MAX)
		return;
	snprintf(e->kv[e->nkv].key, sizeof(e->kv[0].key), "%s", export_keys[id].key);
	va_start(ap, fmt);
	vsnprintf(e->kv[e->nkv].value, sizeof(e->kv[0].value), fmt, ap);
	va_end(ap);
	e->nkv++;
}

/* The target the persistent exports describe: pmem first, then the rest. */
static const struct policy_target *persistent_target(const struct policy *p)
{
	static const char *const order[] = { "pmem", "devdax", "file", "dram" };

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (size_t i = 0; i < p->ntargets; i++)
			if (!strcmp(p->targets[i].kind, order[k]) && p->targets[i].nops)
				return &p->targets[i];
	return NULL;
}

/*
 * One op's two-way decision, as a single-threshold knob sees it: per size
 * the decided side (0 or 1, -1 where the size carries no decision or a
 * dropped island), whether it was decided by separation, and the value
 * of each side there (its representative's median).
 */
struct side_view {
	const struct policy_op *op;
	const char *pair[2];	/* high, low; NULL for the families */
	size_t n;
	const uint64_t *sizes;
	int *side;
	bool *sep;
	double *val[2];
	double *lo[2], *hi[2];	/* the medians' 95 % intervals, MiB/s (val where unknown) */
	double margin;
};

static void view_free(struct side_view *v)
{
	free(v->side);
	free(v->sep);
	for (int k = 0; k < 2; k++) {
		free(v->val[k]);
		free(v->lo[k]);
		free(v->hi[k]);
	}
	memset(v, 0, sizeof(*v));
}

static int view_alloc(struct side_view *v, const struct policy_op *op)
{
	size_t n = op->nsizes ? op->nsizes : 1;

	memset(v, 0, sizeof(*v));
	/* rule_loss() and pair_view() index fixed-size scratch by size */
	if (!policy_op_within_limits(op))
		return -E2BIG;
	v->op = op;
	v->n = op->nsizes;
	v->sizes = op->sizes_bytes;
	v->side = calloc(n, sizeof(*v->side));
	v->sep = calloc(n, sizeof(*v->sep));
	for (int k = 0; k < 2; k++) {
		v->val[k] = calloc(n, sizeof(double));
		v->lo[k] = calloc(n, sizeof(double));
		v->hi[k] = calloc(n, sizeof(double));
		if (!v->val[k] || !v->lo[k] || !v->hi[k]) {
			view_free(v);
			return -ENOMEM;
		}
	}
	if (!v->side || !v->sep) {
		view_free(v);
		return -ENOMEM;
	}
	return 0;
}

/* Side k of size i is curve c's cell: its median and its interval (the median where unknown). */
static void view_cell(struct side_view *v, int k, size_t i, const struct policy_curve *c)
{
	double m = c->median_mib_s[i];
	double lo = c->ci_lo_mib_s ? c->ci_lo_mib_s[i] : NAN;
	double hi = c->ci_hi_mib_s ? c->ci_hi_mib_s[i] : NAN;

	v->val[k][i] = m;
	v->lo[k][i] = lo > 0 && lo <= m ? lo : m;
	v->hi[k][i] = hi >= m ? hi : m;
}

/* From raw verdicts, smoothed sides and islands: what a threshold can express. */
static void view_set(struct side_view *v, size_t i, int verdict, int side, bool island)
{
	bool decided = verdict == 0 || verdict == 1;

	v->side[i] = -1;
	/* a kept or dropped one-size departure: one threshold cannot say it */
	if (side < 0 || verdict == POLICY_FAMILY_NONE || (decided && verdict != side))
		return;
	v->side[i] = side;
	v->sep[i] = decided && !island;
}

/* The families of a decided op: side 0 streaming, side 1 cached+flush. */
static int family_view(const struct policy_op *op, struct side_view *v)
{
	struct crossover_cell *cells = calloc(op->nsizes ? op->nsizes : 1, sizeof(*cells));
	int rc = cells ? view_alloc(v, op) : -ENOMEM;

	if (!rc)
		rc = crossover_cells(op, cells);
	for (size_t i = 0; !rc && i < op->nsizes; i++) {
		view_set(v, i, cells[i].verdict, cells[i].family, cells[i].island);
		if (cells[i].rep[0] < 0 || cells[i].rep[1] < 0) {
			v->side[i] = -1;
			continue;
		}
		view_cell(v, 0, i, &op->curves[cells[i].rep[0]]);
		view_cell(v, 1, i, &op->curves[cells[i].rep[1]]);
	}
	if (!rc)
		v->margin = crossover_margin(op);
	if (rc)
		view_free(v);
	free(cells);
	return rc;
}

/*
 * A pair's effect holds over a size range, as a member's range does: a
 * side's wins by separation count only in runs of
 * CROSSOVER_MEMBER_MIN_SIZES consecutive sizes spanning
 * CROSSOVER_MEMBER_MIN_SPAN; a shorter run is a tie, losing nothing.
 * Two curves of one family or of two cached ones (rep movsb against a
 * vector copy, streaming against plain stores for glibc) trade places
 * size by size within the probe-to-probe spread of a shared host.
 */
static void pair_effect_runs(struct side_view *v)
{
	size_t run0 = 0;

	for (size_t i = 1; i <= v->n; i++) {
		bool same = i < v->n && v->sep[i] && v->sep[run0] && v->side[i] == v->side[run0];

		if (same)
			continue;
		if (v->sep[run0] && (i - run0 < CROSSOVER_MEMBER_MIN_SIZES ||
				     (double)v->sizes[i - 1] / (double)v->sizes[run0] <
				     CROSSOVER_MEMBER_MIN_SPAN))
			for (size_t j = run0; j < i; j++)
				v->sep[j] = false;
		run0 = i;
	}
}

/*
 * A pair of curves (high: side 0, low: side 1), smoothed like the
 * families with the low side as the prior and every island dropped.
 */
static int pair_view(const struct policy_op *op, const char *high, const char *low,
		     struct side_view *v)
{
	int h = -1, l = -1, rc, *verdict = NULL, *side = NULL;
	bool *grid = NULL, *island = NULL;

	for (size_t c = 0; c < op->ncurves; c++) {
		if (!strcmp(op->curves[c].strategy, high))
			h = (int)c;
		if (!strcmp(op->curves[c].strategy, low))
			l = (int)c;
	}
	if (h < 0 || l < 0)
		return -ENOENT;
	rc = view_alloc(v, op);
	if (rc)
		return rc;
	v->pair[0] = op->curves[h].strategy;
	v->pair[1] = op->curves[l].strategy;
	verdict = calloc(v->n + 1, sizeof(*verdict));
	side = calloc(v->n + 1, sizeof(*side));
	grid = calloc(v->n + 1, sizeof(*grid));
	island = calloc(v->n + 1, sizeof(*island));
	rc = verdict && side && grid && island ? 0 : -ENOMEM;
	v->margin = crossover_margin(op);
	for (size_t i = 0; !rc && i < v->n; i++) {
		verdict[i] = crossover_pair_verdict(op, h, l, i, v->margin);
		grid[i] = true;
	}
	if (!rc) {
		int raw[POLICY_MAX_SIZES];

		assert(v->n <= POLICY_MAX_SIZES);
		memcpy(raw, verdict, v->n * sizeof(*raw));
		rc = crossover_smooth(verdict, grid, v->n, 1, side, island);
		for (size_t i = 0; !rc && i < v->n; i++) {
			view_set(v, i, raw[i], side[i], island[i]);
			if (v->side[i] >= 0) {
				view_cell(v, 0, i, &op->curves[h]);
				view_cell(v, 1, i, &op->curves[l]);
			}
		}
	}
	if (!rc && v->n)
		pair_effect_runs(v);
	free(verdict);
	free(side);
	free(grid);
	free(island);
	if (rc)
		view_free(v);
	return rc;
}

/* The weight of size idx[k] among the m decided sizes of v. */
static double view_weight(const struct side_view *v, const size_t *idx, size_t k, size_t m,
			  const struct export_weights *w)
{
	return weight_between(v->sizes[idx[k]], v->sizes[idx[k > 0 ? k - 1 : k]],
			      v->sizes[idx[k + 1 < m ? k + 1 : k]], k > 0 && k + 1 < m, w);
}

/*
 * What "low side below T, high side at and above" loses over the views:
 * per size decided by separation that T contradicts, 1 - v(rule) /
 * v(decided) (a tie costs nothing: either side is as good).  worst: the
 * largest such loss at any size the consumer serves (weight > 0); mean:
 * per op the weighted mean over the decided sizes, averaged over the ops;
 * mismatch: the weighted share of decided sizes, ties included, that T
 * contradicts, summed.  bound: 0 from the medians; +1 each loss at the
 * most its two intervals allow (the decided side's high end against the
 * rule's low end), -1 at the least.
 */
struct rule_loss {
	double worst, mean, mismatch;
	uint64_t worst_bytes;	/* the size of the worst loss, 0 if none */
};

/*
 * What side f loses at size i of v where it was decided by separation for
 * the other side (0 elsewhere), at the bound of rule_loss().
 */
static double cell_loss(const struct side_view *v, size_t i, int f, int bound)
{
	int d = v->side[i];
	double got, best;

	if (d == f || !v->sep[i] || !(v->val[d][i] > 0))
		return 0;
	got = bound < 0 ? v->hi[f][i] : bound > 0 ? v->lo[f][i] : v->val[f][i];
	best = bound < 0 ? v->lo[d][i] : bound > 0 ? v->hi[d][i] : v->val[d][i];
	return fmax(0.0, 1 - got / best);
}

/* Is size in [span[0], span[1])?  A NULL span holds every size. */
static bool in_span(uint64_t size, const uint64_t *span)
{
	return !span || (size >= span[0] && size < span[1]);
}

/* worst counts only the sizes in span (NULL: all of them); the mean all. */
static void rule_loss(const struct side_view *views, size_t nv, int low, uint64_t t,
		      const struct export_weights *w, int bound, const uint64_t *span,
		      struct rule_loss *out)
{
	double rsum = 0, msum = 0, worst = 0;
	size_t nr = 0;

	out->worst_bytes = 0;
	for (size_t o = 0; o < nv; o++) {
		const struct side_view *v = &views[o];
		size_t idx[POLICY_MAX_SIZES], m = 0;
		double num = 0, den = 0, mis = 0;

		assert(v->n <= POLICY_MAX_SIZES);

		for (size_t i = 0; i < v->n; i++)
			if (v->side[i] >= 0)
				idx[m++] = i;
		for (size_t k = 0; k < m; k++) {
			size_t i = idx[k];
			int f = v->sizes[i] < t ? low : 1 - low;
			double wi = view_weight(v, idx, k, m, w), loss;

			den += wi;
			if (f == v->side[i])
				continue;
			mis += wi;
			loss = cell_loss(v, i, f, bound);
			num += wi * loss;
			if (wi > 0 && loss > worst && in_span(v->sizes[i], span)) {
				worst = loss;
				out->worst_bytes = v->sizes[i];
			}
		}
		if (den > 0) {
			rsum += num / den;
			msum += mis / den;
			nr++;
		}
	}
	out->worst = nr ? worst : NAN;
	out->mean = nr ? rsum / (double)nr : NAN;
	out->mismatch = msum;
}

/* Losses compare rounded to 1e-9, so that the order of summation never decides. */
static long long loss_key(double x)
{
	return isnan(x) ? LLONG_MAX : llround(x * 1e9);
}

/*
 * Does moving from old to new gain more than r_margin where it acts: at
 * the worst of the sizes the two put on different sides, by the medians?
 * Elsewhere both lose the same, and a loss there that no value avoids
 * must not hide the gain (nor a mean over the whole grid dilute it).  The
 * margin is the op's noise already; the move also has to hold on a
 * second look at those sizes (export_rechecks()).
 */
static bool gains(const struct side_view *views, size_t nv, int low, uint64_t old,
		  uint64_t new, const struct export_weights *w, double r_margin)
{
	uint64_t span[2] = { old < new ? old : new, old < new ? new : old };
	struct rule_loss o, n;

	rule_loss(views, nv, low, old, w, 0, span, &o);
	rule_loss(views, nv, low, new, w, 0, span, &n);
	if (isnan(o.worst) || isnan(n.worst))
		return false;
	return loss_key(o.worst) - loss_key(n.worst) > loss_key(r_margin);
}

static double log_distance(uint64_t a, uint64_t b)
{
	/* 0 and "never" as the ends of a 2^50-byte axis */
	double x = a == 0 ? 1 : a == POLICY_SIZE_OPEN ? 0x1p50 : (double)a;
	double y = b == 0 ? 1 : b == POLICY_SIZE_OPEN ? 0x1p50 : (double)b;

	return fabs(log(x / y));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t u64_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Where export_rechecks() collects the cells of target t; NULL when nobody asks. */
struct recheck_sink {
	const struct policy_target *t;
	struct second_look *out;
	size_t max, n;
};

static void recheck_add(struct recheck_sink *rx, const struct side_view *v, size_t i)
{
	const struct policy_op *op = v->op;
	size_t o = (size_t)(op - rx->t->ops);
	int pair[2] = { -1, -1 };	/* the families */

	if (op < rx->t->ops || o >= rx->t->nops)
		return;
	for (size_t c = 0; c < op->ncurves; c++)
		for (int k = 0; k < 2; k++)
			if (v->pair[k] == op->curves[c].strategy)
				pair[k] = (int)c;
	for (size_t k = 0; k < rx->n; k++)
		if (rx->out[k].op == o && rx->out[k].index == i &&
		    rx->out[k].curves[0] == pair[0] && rx->out[k].curves[1] == pair[1])
			return;
	if (rx->n < rx->max)
		rx->out[rx->n++] = (struct second_look){
			.op = o, .index = i, .why = SECOND_LOOK_EXPORT_MOVE,
			.verdict = POLICY_FAMILY_NONE,
			.curves = { pair[0], pair[1] }, .ncurves = pair[0] >= 0 ? 2 : 0,
			.every = true };
}

/*
 * A knob moving from the value from to the value to: the sizes decided by
 * separation that the two put on different sides, where alone their
 * regrets differ.
 */
static void note_rechecks(const struct side_view *views, size_t nv, uint64_t from, uint64_t to,
			  struct recheck_sink *rx)
{
	for (size_t o = 0; o < nv; o++)
		for (size_t i = 0; i < views[o].n; i++)
			if (views[o].side[i] >= 0 && views[o].sep[i] &&
			    (views[o].sizes[i] < from) != (views[o].sizes[i] < to))
				recheck_add(rx, &views[o], i);
}

enum threshold_source { FROM_DEFAULT, FROM_BASELINE, FROM_MEASURED };

static const char *const source_names[] = {
	[FROM_DEFAULT] = "default", [FROM_BASELINE] = "baseline", [FROM_MEASURED] = "measured",
};

/* A knob's decided value (bytes), its mean regret, and where it came from. */
struct threshold {
	uint64_t bytes;
	double regret;
	enum threshold_source src;
};

/*
 * The threshold for a single knob, from the candidates (0, each decided
 * size, "never"), each scored with every loss at the most its cells'
 * intervals allow.  T*: among those the one of least worst-size loss
 * does not gain on (gains(): where the two differ), the one of least
 * mean loss (within EXPORT_MEAN_TIE one), then least mismatch, then
 * nearest the default.  Then the
 * baseline's value, else (no baseline value) the consumer's default, is kept
 * unless T* gains on it by more than r_margin (gains()); a beaten
 * baseline gives T*, not the default.  Any move from the baseline's
 * value (the default's without one) notes its cells in rx, so that it
 * stands only on a second look; least is the least value the consumer
 * takes (a smaller one acts as least): every value is scored as the
 * consumer takes it, so that a move within it is none.
 * out->regret is the mean loss by the medians.  -ENOENT when nothing is
 * decided.
 */
static int knob_threshold(const struct side_view *views, size_t nv, int low,
			  const uint64_t *dflt, const uint64_t *baseline, double r_margin,
			  const struct export_weights *w, uint64_t least, struct recheck_sink *rx,
			  struct threshold *out)
{
	const uint64_t *old = baseline ? baseline : dflt;
	size_t nc = 2, total = 2, m = 0, t0 = 0;
	uint64_t *cand;
	struct rule_loss *loss, med;
	bool *beaten;
	long long least_worst = LLONG_MAX, least_mean = LLONG_MAX, best_m = LLONG_MAX,
		  best_x = LLONG_MAX;
	double best_d = INFINITY;
	uint64_t tstar = 0;
	bool any = false;

	for (size_t o = 0; o < nv; o++)
		total += views[o].n;
	cand = calloc(total, sizeof(*cand));
	loss = calloc(total, sizeof(*loss));
	beaten = calloc(total, sizeof(*beaten));
	if (!cand || !loss || !beaten) {
		free(cand);
		free(loss);
		free(beaten);
		return -ENOMEM;
	}
	/* a value below least acts as least: scored, and chosen, as the consumer takes it */
	cand[0] = least;
	cand[1] = POLICY_SIZE_OPEN;
	for (size_t o = 0; o < nv; o++)
		for (size_t i = 0; i < views[o].n; i++)
			if (views[o].side[i] >= 0) {
				cand[nc++] = u64_max(views[o].sizes[i], least);
				any = true;
			}
	if (!any) {
		free(cand);
		free(loss);
		free(beaten);
		return -ENOENT;
	}
	qsort(cand, nc, sizeof(*cand), cmp_u64);
	for (size_t k = 0; k < nc; k++) {
		if (k && cand[k] == cand[k - 1])
			continue;
		cand[m] = cand[k];
		rule_loss(views, nv, low, cand[m], w, +1, NULL, &loss[m]);
		if (loss_key(loss[m].worst) < least_worst ||
		    (loss_key(loss[m].worst) == least_worst &&
		     loss_key(loss[m].mean) < loss_key(loss[t0].mean))) {
			least_worst = loss_key(loss[m].worst);
			t0 = m;
		}
		m++;
	}
	/* as good as the least worst where the two differ, or beaten */
	for (size_t k = 0; k < m; k++) {
		beaten[k] = gains(views, nv, low, cand[k], cand[t0], w, r_margin);
		if (!beaten[k] && loss_key(loss[k].mean) < least_mean)
			least_mean = loss_key(loss[k].mean);
	}
	for (size_t k = 0; k < m; k++) {
		long long lm = loss_key(loss[k].mean), lx = loss_key(loss[k].mismatch);
		double d = dflt ? log_distance(cand[k], *dflt) : 0;

		if (beaten[k])
			continue;
		/* mean losses this close are one: two probes of a host move them more */
		lm = lm <= least_mean + loss_key(EXPORT_MEAN_TIE) ? least_mean : lm;
		if (lm < best_m ||
		    (lm == best_m && (lx < best_x || (lx == best_x && d < best_d)))) {
			best_m = lm;
			best_x = lx;
			best_d = d;
			tstar = cand[k];
		}
	}
	free(cand);
	free(loss);
	free(beaten);
	rule_loss(views, nv, low, tstar, w, 0, NULL, &med);
	*out = (struct threshold){ .bytes = tstar, .regret = med.mean, .src = FROM_MEASURED };
	/* the installed value, else the default, stays unless T* gains on it */
	if (old) {
		rule_loss(views, nv, low, u64_max(*old, least), w, 0, NULL, &med);
		if (!isnan(med.mean) &&
		    !gains(views, nv, low, u64_max(*old, least), tstar, w, r_margin))
			*out = (struct threshold){ .bytes = *old, .regret = med.mean,
						   .src = baseline ? FROM_BASELINE : FROM_DEFAULT };
	}
	if (rx && old && u64_max(*old, least) != u64_max(out->bytes, least))
		note_rechecks(views, nv, u64_max(*old, least), u64_max(out->bytes, least), rx);
	return 0;
}

/* The export margin: the mean decision margin of the one-thread ops, as regret. */
static double views_margin(const struct side_view *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i].margin;
	return n ? s / (double)n : CROSSOVER_MARGIN_FLOOR;
}

/* What an exporter decides from: the one-thread ops of a target, a view of each. */
struct target_views {
	const struct policy_op *ops[64];
	struct side_view v[64];
	size_t nops, nv;
};

static void target_views_free(struct target_views *tv)
{
	for (size_t i = 0; i < tv->nv; i++)
		view_free(&tv->v[i]);
	tv->nv = 0;
}

/*
 * tv over the one-thread ops of t: each op's families where high is NULL,
 * else its pair of curves (high, low), an op without both left out.  The
 * views are the caller's to free with target_views_free(), on error too.
 */
static int target_views_init(struct target_views *tv, const struct policy_target *t,
			     const char *high, const char *low)
{
	tv->nv = 0;
	tv->nops = target_ops(t, 1, tv->ops, ARRAY_SIZE(tv->ops));
	for (size_t o = 0; o < tv->nops; o++) {
		int rc = high ? pair_view(tv->ops[o], high, low, &tv->v[tv->nv]) :
				family_view(tv->ops[o], &tv->v[tv->nv]);

		if (rc == -ENOENT && high)
			continue;
		if (rc)
			return rc;
		tv->nv++;
	}
	return 0;
}

/*
 * knob_threshold() over the views for e, which is marked decided for t when
 * it gives a threshold.  No op with both sides is no export, not an error: 0
 * with e left absent.
 */
static int export_threshold(struct policy_export *e, const struct policy_target *t,
			    const struct target_views *tv, int low, const uint64_t *dflt,
			    const uint64_t *baseline, const struct export_weights *w,
			    struct recheck_sink *rx, struct threshold *out)
{
	double margin = views_margin(tv->v, tv->nv);
	int rc = knob_threshold(tv->v, tv->nv, low, dflt, baseline, margin, w, 0, rx, out);

	if (rc)
		return rc == -ENOENT ? 0 : rc;
	e->present = true;
	snprintf(e->target, sizeof(e->target), "%s", t->name);
	snprintf(e->source, sizeof(e->source), "%s", source_names[out->src]);
	e->margin = margin;
	return 0;
}

/* A baseline export's key as a threshold; false when it does not set it. */
static bool baseline_kv(const struct policy_export *e, enum export_key_id id, uint64_t *out)
{
	for (size_t i = 0; e && i < e->nkv; i++) {
		char *end;
		unsigned long long x;

		if (strcmp(e->kv[i].key, export_keys[id].key))
			continue;
		x = strtoull(e->kv[i].value, &end, 0);
		if (*end)
			return false;
		*out = x;
		return true;
	}
	return false;
}

/*
 * Does any one-thread op of t give this strategy a range?  An op's ranges
 * once drawn (a range a baseline kept counts), else those the rule would
 * draw from its cells: the probe asks for its second looks before it
 * decides.  An op decided to no range would draw none either.
 */
static bool uses_member(const struct policy_op *const *ops, size_t nops, const char *name)
{
	for (size_t o = 0; o < nops; o++) {
		for (size_t r = 0; r < ops[o]->nranges; r++)
			if (!strcmp(ops[o]->ranges[r].strategy, name))
				return true;
		if (!ops[o]->nranges && crossover_runs(ops[o], name))
			return true;
	}
	return false;
}

/* The family's default member in the first op of ops that has one; NULL if none does. */
static const char *family_default(const struct policy_op *const *ops, size_t nops,
				  enum policy_family family)
{
	for (size_t o = 0; o < nops; o++) {
		int c = crossover_family_default(ops[o], family);

		if (c >= 0)
			return ops[o]->curves[c].strategy;
	}
	return NULL;
}

/*
 * A libpmem feature setting: the member PMDK then runs at every size on
 * one side of its threshold, and the switches that select it against the
 * family's default (PMDK falls back one step per switch).
 */
struct member_setting {
	const char *member;
	enum export_key_id keys[2];
	const char *values[2];
	unsigned nkeys;
};

#define MEMBER_SETTINGS_MAX 4

/* The settings of a family whose default member is dflt, dflt's (no switch) first. */
static size_t member_settings(enum policy_family f, const char *dflt,
			      struct member_setting *out)
{
	size_t n = 0;

	out[n++] = (struct member_setting){ .member = dflt };
	if (f == POLICY_FAMILY_STREAMING) {
		bool avx512 = !strcmp(dflt, "movnt_avx512");

		if (avx512)
			out[n++] = (struct member_setting){ "movnt_avx2", { EXPORT_PMEM_AVX512F },
							    { "0" }, 1 };
		if (avx512)
			out[n++] = (struct member_setting){ "movnt_sse2",
				{ EXPORT_PMEM_AVX512F, EXPORT_PMEM_AVX }, { "0", "0" }, 2 };
		else if (!strcmp(dflt, "movnt_avx2"))
			out[n++] = (struct member_setting){ "movnt_sse2", { EXPORT_PMEM_AVX },
							    { "0" }, 1 };
		if (strcmp(dflt, "movdir64b"))
			out[n++] = (struct member_setting){ "movdir64b", { EXPORT_PMEM_MOVDIR64B },
							    { "1" }, 1 };
	} else if (!strcmp(dflt, "clwb")) {
		out[n++] = (struct member_setting){ "clflushopt", { EXPORT_PMEM_NO_CLWB }, { "1" },
						    1 };
		out[n++] = (struct member_setting){ "clflush",
			{ EXPORT_PMEM_NO_CLWB, EXPORT_PMEM_NO_CLFLUSHOPT }, { "1", "1" }, 2 };
	} else if (!strcmp(dflt, "clflushopt")) {
		out[n++] = (struct member_setting){ "clflush", { EXPORT_PMEM_NO_CLFLUSHOPT },
						    { "1" }, 1 };
	}
	return n;
}

/* Does the baseline's export carry every switch of setting s? */
static bool baseline_has(const struct policy_export *b, const struct member_setting *s)
{
	unsigned hit = 0;

	for (unsigned k = 0; k < s->nkeys; k++)
		for (size_t i = 0; b && i < b->nkv; i++)
			hit += !strcmp(b->kv[i].key, export_keys[s->keys[k]].key) &&
			       !strcmp(b->kv[i].value, s->values[k]);
	return hit == s->nkeys;
}

/* A cell at an end of its 95 % interval (bound -1 low, +1 high, 0 the median); NAN if none. */
static double cell_bound(const struct policy_curve *c, size_t i, int bound)
{
	double m = cell(c, i), x;

	if (isnan(m) || !bound)
		return m;
	x = bound < 0 ? (c->ci_lo_mib_s ? c->ci_lo_mib_s[i] : NAN) :
		       (c->ci_hi_mib_s ? c->ci_hi_mib_s[i] : NAN);
	return x > 0 && (bound < 0 ? x <= m : x >= m) ? x : m;
}

/*
 * What running each setting's member at every size of ops on the
 * threshold's side (1: below thr, cached; 0: at and above it, streaming)
 * loses against the best measured strategy there, over the sizes where
 * every setting's member is measured: worst, the largest loss at a size
 * the consumer serves; mean, per op weighted as size_weight() weighs
 * sizes, averaged over the ops (NAN where no op has such a size).
 * bound +1 takes each loss at the most the intervals allow (the member's
 * low end against the best high end), -1 at the least, 0 the medians.
 */
static void member_losses(const struct policy_op *const *ops, size_t nops,
			  const struct member_setting *s, size_t ns, int side, uint64_t thr,
			  const struct export_weights *w, int bound, struct rule_loss *out)
{
	double sum[MEMBER_SETTINGS_MAX] = { 0 }, worst[MEMBER_SETTINGS_MAX] = { 0 };
	size_t nop = 0;

	for (size_t o = 0; o < nops; o++) {
		const struct policy_op *op = ops[o];
		const struct policy_curve *cv[MEMBER_SETTINGS_MAX];
		double acc[MEMBER_SETTINGS_MAX] = { 0 }, wsum = 0;
		size_t k;

		for (k = 0; k < ns && (cv[k] = policy_op_find_curve(op, s[k].member)); k++)
			;
		if (k < ns)
			continue;
		for (size_t i = 0; i < op->nsizes; i++) {
			double best = 0, v[MEMBER_SETTINGS_MAX], wi;
			bool all = true;

			if ((op->sizes_bytes[i] < thr) != (side == 1))
				continue;
			for (k = 0; k < ns; k++) {
				v[k] = cell_bound(cv[k], i, -bound);
				all &= !isnan(v[k]);
			}
			for (size_t c = 0; all && c < op->ncurves; c++) {
				double x = cell_bound(&op->curves[c], i, bound);

				if (!op->curves[c].reference_only && !isnan(x) && x > best)
					best = x;
			}
			if (!all || best <= 0)
				continue;
			wi = size_weight(op, i, w);
			for (k = 0; k < ns; k++) {
				double loss = fmax(0.0, 1.0 - v[k] / best);

				acc[k] += wi * loss;
				if (wi > 0 && loss > worst[k])
					worst[k] = loss;
			}
			wsum += wi;
		}
		if (wsum <= 0)
			continue;
		for (k = 0; k < ns; k++)
			sum[k] += acc[k] / wsum;
		nop++;
	}
	for (size_t k = 0; k < ns; k++)
		out[k] = (struct rule_loss){ .worst = nop ? worst[k] : NAN,
					     .mean = nop ? sum[k] / (double)nop : NAN };
}

/*
 * A feature switch acts at every size on its side of the threshold, so
 * a member that wins a range somewhere is not reason enough.  The
 * settings (the default's and those of members some range uses) are
 * chosen as thresholds are: each loss at the most its cells allow, least
 * worst-size loss first (within r_margin equal), then least mean; the
 * baseline's setting, else (no baseline) the default's, is kept unless
 * the best gains on it as gains() has it, over every size the family
 * serves.  A
 * one-size member island keeps its range and moves no switch.
 */
static void export_member(struct policy_export *e, const struct policy_op *const *ops,
			  size_t nops, enum policy_family f, uint64_t thr, double r_margin,
			  const struct export_weights *w, const struct policy *bp)
{
	const struct policy_export *base = bp && bp->exports.libpmem.present ?
					   &bp->exports.libpmem : NULL;
	struct member_setting s[MEMBER_SETTINGS_MAX];
	struct rule_loss most[MEMBER_SETTINGS_MAX], med[MEMBER_SETTINGS_MAX];
	const char *dflt = family_default(ops, nops, f);
	size_t ns, pick = 0, bk = 0;
	long long least_worst = LLONG_MAX, best = LLONG_MAX;

	if (!dflt)
		return;
	ns = member_settings(f, dflt, s);
	/* a member no range uses is no candidate, unless the baseline runs it */
	for (size_t k = 1; k < ns;) {
		if (!uses_member(ops, nops, s[k].member) && !baseline_has(base, &s[k]))
			s[k] = s[--ns];
		else
			k++;
	}
	member_losses(ops, nops, s, ns, f == POLICY_FAMILY_CACHED_FLUSH, thr, w, +1, most);
	for (size_t k = 0; k < ns; k++) {
		if (loss_key(most[k].worst) < least_worst)
			least_worst = loss_key(most[k].worst);
		/* the baseline's: the setting whose switches it carries, the most of them */
		if (k && baseline_has(base, &s[k]) && s[k].nkeys > s[bk].nkeys)
			bk = k;
	}
	if (least_worst == LLONG_MAX)
		return;
	for (size_t k = 0; k < ns; k++)
		if (loss_key(most[k].worst) <= least_worst + loss_key(r_margin) &&
		    loss_key(most[k].mean) < best) {
			best = loss_key(most[k].mean);
			pick = k;
		}
	/*
	 * The installed setting (the default's where the baseline has no
	 * switch, or there is no baseline) stays unless beaten; as gains():
	 * every size the family serves is one the switch acts on.
	 */
	member_losses(ops, nops, s, ns, f == POLICY_FAMILY_CACHED_FLUSH, thr, w, 0, med);
	if (!isnan(med[bk].worst) &&
	    loss_key(med[bk].worst) - loss_key(med[pick].worst) <= loss_key(r_margin))
		pick = bk;
	for (unsigned k = 0; k < s[pick].nkeys; k++)
		kv_set(e, s[pick].keys[k], "%s", s[pick].values[k]);
}

static int export_libpmem(struct policy *p, const struct policy_target *t,
			  const struct export_weights *w, const struct policy *base,
			  struct recheck_sink *rx)
{
	struct policy_export *e = &p->exports.libpmem;
	struct target_views tv;
	struct threshold thr;
	uint64_t bthr, *bp = NULL;
	double margin;
	int rc;

	memset(e, 0, sizeof(*e));
	rc = target_views_init(&tv, t, NULL, NULL);
	if (rc)
		goto out;
	if (base && base->exports.libpmem.present) {
		if (baseline_kv(&base->exports.libpmem, EXPORT_PMEM_MOVNT_THRESHOLD, &bthr))
			bp = &bthr;
		else if (baseline_kv(&base->exports.libpmem, EXPORT_PMEM_NO_MOVNT, &bthr)) {
			bthr = POLICY_SIZE_OPEN;
			bp = &bthr;
		}
	}
	/* PMDK: cached + flush (side 1) below the threshold */
	rc = export_threshold(e, t, &tv, 1, &pmdk_default, bp, w, rx, &thr);
	if (rc || !e->present)
		goto out;
	e->regret = thr.regret;
	if (thr.bytes == POLICY_SIZE_OPEN)
		kv_set(e, EXPORT_PMEM_NO_MOVNT, "1");
	else
		kv_set(e, EXPORT_PMEM_MOVNT_THRESHOLD, "%" PRIu64, thr.bytes);
	/* PMDK's flush below the threshold, its streaming member at and above it */
	margin = views_margin(tv.v, tv.nv);
	export_member(e, tv.ops, tv.nops, POLICY_FAMILY_CACHED_FLUSH, thr.bytes, margin, w, base);
	export_member(e, tv.ops, tv.nops, POLICY_FAMILY_STREAMING, thr.bytes, margin, w, base);
out:
	target_views_free(&tv);
	return rc;
}

static int export_kernel(struct policy *p, const struct policy_target *t,
			 const struct export_weights *w, const struct policy *base,
			 struct recheck_sink *rx)
{
	struct policy_export *e = &p->exports.kernel;
	struct target_views tv;
	struct threshold thr = { 0 };
	uint64_t bthr = 0, *bp = NULL;
	int rc;

	memset(e, 0, sizeof(*e));
	e->threshold_bytes = POLICY_SIZE_OPEN;
	rc = target_views_init(&tv, t, NULL, NULL);
	if (rc)
		goto out;
	if (base && base->exports.kernel.present) {
		/* the file says "up to N bytes": the switch is at the next decided size */
		uint64_t up = base->exports.kernel.threshold_bytes;

		bthr = up;
		if (up && up != POLICY_SIZE_OPEN) {
			bthr = POLICY_SIZE_OPEN;
			for (size_t o = 0; o < tv.nv; o++)
				for (size_t i = 0; i < tv.v[o].n; i++)
					if (tv.v[o].sizes[i] > up && tv.v[o].sizes[i] < bthr)
						bthr = tv.v[o].sizes[i];
		}
		bp = &bthr;
	}
	/* the kernel's rule is PMDK's reversed: non-temporal (side 0) below */
	rc = export_threshold(e, t, &tv, 0, &kernel_default, bp, w, rx, &thr);
	if (rc || !e->present)
		goto out;
	/*
	 * "non-temporal up to and including N bytes": N is the largest
	 * measured size below the switch, so that it names a size whose
	 * decision was seen, not one between two grid points.
	 */
	e->threshold_bytes = thr.bytes;
	if (thr.src == FROM_DEFAULT) {
		/* kept: the module's own default, the value an unpatched kernel has */
		e->threshold_bytes = kernel_default;
	} else if (thr.src == FROM_BASELINE) {
		/* kept: the baseline's own words, so that a re-probe changes nothing */
		e->threshold_bytes = base->exports.kernel.threshold_bytes;
	} else if (thr.bytes && thr.bytes != POLICY_SIZE_OPEN) {
		e->threshold_bytes = 0;
		for (size_t o = 0; o < tv.nops; o++)
			for (size_t i = 0; i < tv.ops[o]->nsizes; i++)
				if (tv.ops[o]->sizes_bytes[i] < thr.bytes &&
				    tv.ops[o]->sizes_bytes[i] > e->threshold_bytes)
					e->threshold_bytes = tv.ops[o]->sizes_bytes[i];
	}
	e->regret = thr.regret;
out:
	target_views_free(&tv);
	return rc;
}

/*
 * The smallest x86_rep_movsb_threshold glibc takes (sysdeps/x86/
 * dl-cacheinfo.h: above 8 vectors of the width it copies with; a value
 * not above is ignored, leaving its default): 513 with AVX-512, 257 with
 * AVX2, 129 else.  Where AVX-512 is usable but not preferred the minimum
 * is 256, and 513 is still taken.  The producer's estimate from the
 * probed CPU's flags: the consumer host's glibc decides (the daemon
 * checks its ld.so's bounds).
 */
static uint64_t glibc_movsb_min(const struct policy_cpu *cpu)
{
	if (policy_cpu_has_feature(cpu, "avx512f"))
		return 512 + 1;
	return (policy_cpu_has_feature(cpu, "avx2") ? 256 : 128) + 1;
}

/* One glibc pair over the one-thread ops of t; -ENOENT when no op has both curves. */
static int glibc_pair(const struct policy_target *t, const char *high, const char *low,
		      const uint64_t *dflt, const uint64_t *baseline, uint64_t least,
		      const struct export_weights *w, struct recheck_sink *rx,
		      struct threshold *thr, double *margin)
{
	struct target_views tv;
	int rc = target_views_init(&tv, t, high, low);

	*margin = views_margin(tv.v, tv.nv);
	if (!rc)
		rc = knob_threshold(tv.v, tv.nv, 1, dflt, baseline, *margin, w, least, rx, thr);
	target_views_free(&tv);
	return rc;
}

/* glibc copies with its widest vector; else the widest one t measured. */
static const char *glibc_streaming(const struct policy_target *t, const struct policy_cpu *cpu)
{
	const char *nt = policy_cpu_has_feature(cpu, "avx512f") ? "movnt_avx512" :
			 policy_cpu_has_feature(cpu, "avx2") ? "movnt_avx2" : "movnt_sse2";

	for (size_t i = 0; i < t->nops && !policy_target_has_curve(t, nt); i++) {
		int c = crossover_family_default(&t->ops[i], POLICY_FAMILY_STREAMING);

		if (c >= 0)
			nt = t->ops[i].curves[c].strategy;
	}
	return nt;
}

static int export_glibc(struct policy *p, const struct export_weights *w,
			const struct policy *base, struct recheck_sink *rx)
{
	struct policy_export *e = &p->exports.glibc;
	const struct policy_target *t = policy_find_target(p, "dram");
	const struct policy_cpu *cpu = &p->platform.cpu;
	const struct policy_export *be = base && base->exports.glibc.present ?
					 &base->exports.glibc : NULL;
	uint64_t never = EXPORT_GLIBC_NEVER, llc = EXPORT_GLIBC_NT_DEFAULT(cpu->llc_bytes);
	enum threshold_source most = FROM_DEFAULT;

	memset(e, 0, sizeof(*e));
	if (!t || strcmp(t->kind, "dram"))
		return 0;

	/* each tunable: the pair of curves it chooses between, its default and its least value */
	const struct {
		const char *high, *low;
		const uint64_t *dflt;
		enum export_key_id key;
		uint64_t min;
	} tunables[] = {
		{ glibc_streaming(t, cpu), "noflush", llc ? &llc : NULL, EXPORT_GLIBC_NT_THRESHOLD,
		  export_knob_least(p, EXPORT_KNOB_GLIBC_NT) },
		/* rep movsb against a vector copy: both pay the same flush, the copy differs */
		{ "rep_movsb_clwb", "clwb", &glibc_rep_movsb, EXPORT_GLIBC_REP_MOVSB_THRESHOLD,
		  export_knob_least(p, EXPORT_KNOB_GLIBC_REP_MOVSB) },
	};

	for (size_t k = 0; k < ARRAY_SIZE(tunables); k++) {
		struct threshold thr;
		uint64_t bthr;
		double margin;
		int rc = glibc_pair(t, tunables[k].high, tunables[k].low, tunables[k].dflt,
				    baseline_kv(be, tunables[k].key, &bthr) ? &bthr : NULL,
				    tunables[k].min, w, rx, &thr, &margin);

		if (rc == -ENOENT)
			continue;
		if (rc)
			return rc;
		if (!e->present) {
			e->present = true;
			snprintf(e->target, sizeof(e->target), "%s", t->name);
			e->regret = thr.regret;
			e->margin = margin;
		}
		/* two tunables: the export is as new as its newest value */
		most = thr.src > most ? thr.src : most;
		if (thr.src == FROM_DEFAULT)
			continue;
		if (thr.bytes == POLICY_SIZE_OPEN || thr.bytes >= never)
			thr.bytes = never;	/* never: glibc has no "off" value */
		kv_set(e, tunables[k].key, "0x%" PRIx64,
		       thr.bytes < tunables[k].min ? tunables[k].min : thr.bytes);
	}
	if (e->present)
		snprintf(e->source, sizeof(e->source), "%s", source_names[most]);
	return 0;
}

/* The views knob k decides from in p, and the side it puts below its threshold. */
static int knob_views(const struct policy *p, enum export_knob k, struct target_views *tv,
		      int *low)
{
	const struct policy_target *t = k == EXPORT_KNOB_GLIBC_NT ||
					k == EXPORT_KNOB_GLIBC_REP_MOVSB ?
					policy_find_target(p, "dram") : persistent_target(p);

	tv->nv = 0;
	if (!t || ((k == EXPORT_KNOB_GLIBC_NT || k == EXPORT_KNOB_GLIBC_REP_MOVSB) &&
		   strcmp(t->kind, "dram")))
		return -ENOENT;
	*low = k == EXPORT_KNOB_KERNEL_NT ? 0 : 1;
	switch (k) {
	case EXPORT_KNOB_GLIBC_NT:
		return target_views_init(tv, t, glibc_streaming(t, &p->platform.cpu), "noflush");
	case EXPORT_KNOB_GLIBC_REP_MOVSB:
		return target_views_init(tv, t, "rep_movsb_clwb", "clwb");
	default:
		return target_views_init(tv, t, NULL, NULL);
	}
}

int export_knob_loss(const struct policy *p, enum export_knob k, uint64_t threshold_bytes,
		     int bound, const struct export_weights *w, struct export_knob_loss *out)
{
	struct target_views tv;
	struct rule_loss l;
	int low, rc;

	assert(p && k < EXPORT_KNOBS && out);
	rc = knob_views(p, k, &tv, &low);
	if (!rc) {
		rule_loss(tv.v, tv.nv, low, threshold_bytes, w, bound, NULL, &l);
		rc = isnan(l.worst) ? -ENOENT : 0;
		*out = (struct export_knob_loss){ threshold_bytes, l.worst, l.mean, l.worst_bytes };
	}
	target_views_free(&tv);
	return rc;
}

const char *export_knob_name(enum export_knob k)
{
	static const char *const name[EXPORT_KNOBS] = {
		[EXPORT_KNOB_PMEM_MOVNT] = "PMEM_MOVNT_THRESHOLD",
		[EXPORT_KNOB_KERNEL_NT] = "flushcache_nt_max_bytes",
		[EXPORT_KNOB_GLIBC_NT] = "x86_non_temporal_threshold",
		[EXPORT_KNOB_GLIBC_REP_MOVSB] = "x86_rep_movsb_threshold",
	};

	assert(k < EXPORT_KNOBS);
	return name[k];
}

const char *export_knob_format(enum export_knob k, uint64_t threshold_bytes, char *buf,
			       size_t len)
{
	assert(k < EXPORT_KNOBS && buf);
	if (threshold_bytes == POLICY_SIZE_OPEN)
		snprintf(buf, len, "never");
	else if (k == EXPORT_KNOB_KERNEL_NT)
		snprintf(buf, len, "%" PRIu64, threshold_bytes ? threshold_bytes - 1 : 0);
	else if (k == EXPORT_KNOB_GLIBC_NT || k == EXPORT_KNOB_GLIBC_REP_MOVSB)
		snprintf(buf, len, "%#" PRIx64, threshold_bytes);
	else
		snprintf(buf, len, "%" PRIu64, threshold_bytes);
	return buf;
}

uint64_t export_knob_least(const struct policy *p, enum export_knob k)
{
	assert(p && k < EXPORT_KNOBS);
	switch (k) {
	case EXPORT_KNOB_GLIBC_NT:
		return export_keys[EXPORT_GLIBC_NT_THRESHOLD].min;
	case EXPORT_KNOB_GLIBC_REP_MOVSB:
		return glibc_movsb_min(&p->platform.cpu);
	default:
		return 0;
	}
}

int export_knob_best(const struct policy *p, enum export_knob k, int bound,
		     const struct export_weights *w, struct export_knob_loss *out)
{
	struct target_views tv;
	long long bw = LLONG_MAX, bm = LLONG_MAX;
	uint64_t least;
	int low, rc;

	assert(p && k < EXPORT_KNOBS && out);
	least = export_knob_least(p, k);
	rc = knob_views(p, k, &tv, &low);
	for (size_t o = 0; !rc && o < tv.nv; o++)
		for (size_t i = 0; i <= tv.v[o].n + 1; i++) {
			uint64_t t = u64_max(i == 0 ? 0 : i <= tv.v[o].n ? tv.v[o].sizes[i - 1] :
					     POLICY_SIZE_OPEN, least);
			struct rule_loss l;

			rule_loss(tv.v, tv.nv, low, t, w, bound, NULL, &l);
			if (loss_key(l.worst) < bw ||
			    (loss_key(l.worst) == bw && loss_key(l.mean) < bm)) {
				bw = loss_key(l.worst);
				bm = loss_key(l.mean);
				*out = (struct export_knob_loss){ t, l.worst, l.mean,
								   l.worst_bytes };
			}
		}
	target_views_free(&tv);
	return rc ? rc : bw == LLONG_MAX ? -ENOENT : 0;
}

int export_knob_value(const struct policy *p, enum export_knob k, uint64_t *threshold_bytes)
{
	const struct policy_exports *x;
	uint64_t v;

	assert(p && k < EXPORT_KNOBS && threshold_bytes);
	x = &p->exports;
	switch (k) {
	case EXPORT_KNOB_PMEM_MOVNT:
		if (!x->libpmem.present)
			return -ENOENT;
		if (baseline_kv(&x->libpmem, EXPORT_PMEM_NO_MOVNT, &v) && v)
			*threshold_bytes = POLICY_SIZE_OPEN;
		else if (!baseline_kv(&x->libpmem, EXPORT_PMEM_MOVNT_THRESHOLD, threshold_bytes))
			*threshold_bytes = pmdk_default;
		return 0;
	case EXPORT_KNOB_KERNEL_NT:
		if (!x->kernel.present)
			return -ENOENT;
		/* non-temporal up to and including N: the switch is right above N */
		v = x->kernel.threshold_bytes;
		*threshold_bytes = v == POLICY_SIZE_OPEN ? v : v + 1;
		return 0;
	case EXPORT_KNOB_GLIBC_NT:
		if (!x->glibc.present)
			return -ENOENT;
		if (!baseline_kv(&x->glibc, EXPORT_GLIBC_NT_THRESHOLD, threshold_bytes))
			*threshold_bytes = EXPORT_GLIBC_NT_DEFAULT(p->platform.cpu.llc_bytes);
		break;
	case EXPORT_KNOB_GLIBC_REP_MOVSB:
		if (!x->glibc.present)
			return -ENOENT;
		if (!baseline_kv(&x->glibc, EXPORT_GLIBC_REP_MOVSB_THRESHOLD, threshold_bytes))
			*threshold_bytes = glibc_rep_movsb;
		break;
	default:
		return -EINVAL;
	}
	if (*threshold_bytes >= EXPORT_GLIBC_NEVER)
		*threshold_bytes = POLICY_SIZE_OPEN;
	return 0;
}

int export_compute(struct policy *p, const struct export_weights *w)
{
	return export_compute_with_baseline(p, w, NULL);
}

/* The same values a consumer acts on as the baseline's export? */
static bool same_export(const struct policy_export *a, const struct policy_export *b)
{
	if (a->nkv != b->nkv || a->threshold_bytes != b->threshold_bytes)
		return false;
	for (size_t i = 0; i < a->nkv; i++) {
		bool found = false;

		for (size_t j = 0; j < b->nkv && !found; j++)
			found = !strcmp(a->kv[i].key, b->kv[j].key) &&
				!strcmp(a->kv[i].value, b->kv[j].value);
		if (!found)
			return false;
	}
	return true;
}

/* Each export against the baseline's: "kept", "changed", or "new" (none there). */
static void mark_baseline(struct policy_exports *x, const struct policy *baseline)
{
	struct policy_export *e[] = { &x->libpmem, &x->glibc, &x->kernel };
	const struct policy_export *b[] = {
		baseline ? &baseline->exports.libpmem : NULL,
		baseline ? &baseline->exports.glibc : NULL,
		baseline ? &baseline->exports.kernel : NULL,
	};

	for (size_t i = 0; i < ARRAY_SIZE(e); i++)
		if (e[i]->present)
			snprintf(e[i]->baseline, sizeof(e[i]->baseline), "%s",
				 !b[i] || !b[i]->present ? "new" :
				 same_export(e[i], b[i]) ? "kept" : "changed");
}

static int exports_compute(struct policy *p, const struct export_weights *w,
			   const struct policy *baseline, struct recheck_sink *rx)
{
	const struct policy_target *t = persistent_target(p);
	int rc;

	memset(&p->exports, 0, sizeof(p->exports));
	p->exports.kernel.threshold_bytes = POLICY_SIZE_OPEN;
	if (t) {
		rc = export_libpmem(p, t, w, baseline, rx);
		if (!rc)
			rc = export_kernel(p, t, w, baseline, rx);
		if (rc)
			return rc;
	}
	rc = export_glibc(p, w, baseline, rx);
	if (!rc)
		mark_baseline(&p->exports, baseline);
	return rc;
}

int export_compute_with_baseline(struct policy *p, const struct export_weights *w,
				 const struct policy *baseline)
{
	assert(p);

	return exports_compute(p, w, baseline, NULL);
}

ssize_t export_rechecks(struct policy *p, const struct export_weights *w,
			const struct policy *baseline, const struct policy_target *t,
			struct second_look *out, size_t max)
{
	struct recheck_sink rx = { .t = t, .out = out, .max = max };
	int rc;

	assert(p && t && (out || !max));
	rc = exports_compute(p, w, baseline, &rx);
	return rc ? rc : (ssize_t)rx.n;
}

void export_print(FILE *f, const struct policy *p)
{
	const struct policy_exports *x;

	assert(f && p);
	x = &p->exports;
	fprintf(f, "\nexports (regret = mean loss against the per-size best):\n");
	if (x->libpmem.present) {
		int col = fprintf(f, "  libpmem (%s):", x->libpmem.target);

		/* a variable a line once the line would pass 100 columns */
		for (size_t i = 0; i < x->libpmem.nkv; i++) {
			int len = 1 + (int)strlen(x->libpmem.kv[i].key) + 1 +
				  (int)strlen(x->libpmem.kv[i].value);

			if (i && col + len > 86) {
				fputs("\n   ", f);
				col = 3;
			}
			col += fprintf(f, " %s=%s", x->libpmem.kv[i].key, x->libpmem.kv[i].value);
		}
		fprintf(f, "  regret %.1f%%\n", 100 * x->libpmem.regret);
	}
	if (x->kernel.present) {
		if (x->kernel.threshold_bytes == POLICY_SIZE_OPEN)
			fprintf(f, "  kernel (%s): non-temporal at every size", x->kernel.target);
		else
			fprintf(f, "  kernel (%s): non-temporal up to %" PRIu64
				" bytes, clflushopt above (dm-writecache: 768)", x->kernel.target,
				x->kernel.threshold_bytes);
		fprintf(f, "  regret %.1f%%\n", 100 * x->kernel.regret);
	}
	if (x->glibc.present) {
		/* a tunable a line: GLIBC_TUNABLES on one line passes 100 columns */
		fprintf(f, "  glibc (%s): %s  regret %.1f%%\n", x->glibc.target,
			x->glibc.nkv ? "GLIBC_TUNABLES, joined by ':'" :
				       "glibc's own defaults kept",
			100 * x->glibc.regret);
		for (size_t i = 0; i < x->glibc.nkv; i++)
			fprintf(f, "    %s=%s\n", x->glibc.kv[i].key, x->glibc.kv[i].value);
	}
	if (!x->libpmem.present && !x->kernel.present && !x->glibc.present)
		fprintf(f, "  none: the measured strategies do not cover any consumer's rule\n");
}

/* 4096 'SIZE WEIGHT' lines with room for comments */
#define EXPORT_WEIGHTS_MAX_BYTES	(1 << 20)

int export_weights_load(const char *path, struct export_weights *w, char *err, size_t errlen)
{
	char line[256], *text = NULL;
	unsigned lineno = 0;
	size_t len = 0;
	FILE *f;
	int rc;

	memset(w, 0, sizeof(*w));
	/* bounded and regular: /dev/zero or a FIFO must not keep us reading */
	rc = read_file(path, 0, EXPORT_WEIGHTS_MAX_BYTES, &text, &len);
	if (rc == -EINVAL)
		snprintf(err, errlen, "%s: not a regular file", path);
	else if (rc == -EFBIG)
		snprintf(err, errlen, "%s: larger than %d bytes", path, EXPORT_WEIGHTS_MAX_BYTES);
	else if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	else if (memchr(text, '\0', len))
		snprintf(err, errlen, "%s: contains a NUL byte: not a text file", path);
	f = rc || memchr(text, '\0', len) ? NULL : fmemopen(text, len ? len : 1, "r");
	if (!f) {
		rc = rc ? rc : -EINVAL;
		free(text);
		return rc;
	}
	while (fgets(line, sizeof(line), f)) {
		char sz[64], *p = line;
		double weight;
		uint64_t size;
		void *a, *b;

		lineno++;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		if (sscanf(p, "%63s %lf", sz, &weight) != 2 || policy_parse_size(sz, &size) ||
		    !size || !isfinite(weight) || weight < 0) {
			snprintf(err, errlen, "%s:%u: expected 'SIZE WEIGHT' (SIZE > 0, "
				 "WEIGHT >= 0), got '%.40s'", path, lineno, strtok(p, "\n"));
			rc = -EINVAL;
			break;
		}
		if (w->n && size <= w->size_bytes[w->n - 1]) {
			snprintf(err, errlen, "%s:%u: sizes must be ascending", path, lineno);
			rc = -EINVAL;
			break;
		}
		if (w->n >= 4096) {
			snprintf(err, errlen, "%s:%u: more than 4096 sizes", path, lineno);
			rc = -E2BIG;
			break;
		}
		a = realloc(w->size_bytes, (w->n + 1) * sizeof(*w->size_bytes));
		if (a)
			w->size_bytes = a;
		b = realloc(w->weight, (w->n + 1) * sizeof(*w->weight));
		if (b)
			w->weight = b;
		if (!a || !b) {
			snprintf(err, errlen, "%s: out of memory", path);
			rc = -ENOMEM;
			break;
		}
		w->size_bytes[w->n] = size;
		w->weight[w->n++] = weight;
	}
	fclose(f);
	free(text);
	if (!rc && !w->n) {
		snprintf(err, errlen, "%s: no 'SIZE WEIGHT' lines", path);
		rc = -EINVAL;
	}
	if (rc)
		export_weights_free(w);
	return rc;
}

void export_weights_free(struct export_weights *w)
{
	free(w->size_bytes);
	free(w->weight);
	memset(w, 0, sizeof(*w));
}
