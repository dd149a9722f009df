// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Could any fixed policy have scored the bar at every size?  Reads the
 * held-out sweeps of several bench_policy runs (--save-sweep) of one host
 * and the same policy sizes, and scores, in every run, each strategy by
 * the cross-validated oracle of that run (as bench_policy does):
 *
 *   the policy        what its column scored, run by run, and per size
 *                     its worst and median ratio over the runs
 *   hindsight         per size, the strategy whose worst ratio over all
 *                     the runs is highest: chosen knowing the judge's
 *                     own sweeps, which no probe can
 *   leave-one-out     the same choice made from the other runs only,
 *                     scored on the one left out
 *   the bound         the most runs that any one choice of a strategy
 *                     per size passes at every size (every set of runs
 *                     tried: oracle_best_fixed_runs())
 *
 * When the bound is below the runs, no rule that fixes a strategy per
 * size, however it decides, passes the bar in every run of that host.
 * A rule that follows the host instead decides from each run's own
 * probe; given those (--probe, the policies of --save-policy, in the
 * order of the sweeps), two such rules without any margin are scored:
 *
 *   probe's best      per size, the strategy with the highest median in
 *                     that run's probe (cells it did not believe skipped)
 *   probe, 5 sizes    the highest geometric mean of its probe medians
 *                     over the size and two grid sizes either side
 *
 * What they miss, no rule reading the probe's medians would have caught.
 * With the probes it also prints, per size and family, the member that
 * leads the family's default most in the judge, and what the probes gave
 * for the same two: whether a lead the rule leaves alone is one the probe
 * sees too.
 *
 * Then each consumer's single knob, as the consumer runs it: strategy A
 * below the value, B at and above (PMEM_MOVNT_THRESHOLD: the cached+flush
 * family's default, then the streaming one's; flushcache_nt_max_bytes:
 * movnt, then clflushopt, as dm-writecache; x86_non_temporal_threshold:
 * noflush, then the streaming default; x86_rep_movsb_threshold: clwb,
 * then rep_movsb_clwb), over every run's one-thread ops together, each
 * ratio to its run's cross-validated oracle.  The best single value in
 * hindsight is the one of highest worst ratio, then highest geometric
 * mean (oracle_knob_best()); with the probes, each run's exported value
 * (export_knob_value()) is scored the same way, with how far its worst
 * ratio is under the best's and whether that is within max(0.03, the
 * run's margin), the mean margin of its probe's one-thread ops.  Prints
 * figures; never pass/fail.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cli.h"
#include "bench/oracle.h"
#include "bench/sweep_record.h"
#include "policy/policy.h"
#include "rule/crossover.h"
#include "rule/export.h"
#include "rule/stats.h"
#include "rule/strategy_class.h"

#define DEFAULT_BAR 0.97
/* the goal for each size's median over the runs, whatever the bar of one run */
#define MEDIAN_GOAL 0.97
/* "probe, 5 sizes": the grid sizes either side of the one decided */
#define PROBE_RUN_HALF 2

struct judged {
	size_t nruns;
	struct sweep_record *rec;	/* [nruns] */
	double bar;
	/* the sizes of every op, numbered in a row: op k's size i is cell op_at[k] + i */
	size_t ncells;
	size_t *op_at;			/* [nops] */
	double *cv;			/* [nruns][ncells] each run's cross-validated oracle */
	/* with --probe: [nruns][nops] each run's probe medians, [strategy][size] */
	double **probe_med;
	/* with --probe: [nops][2] each family's default as the rule takes it, a contender; -1 */
	int *dflt;
	/* with --probe: [nruns][EXPORT_KNOBS] each run's exported value, where it has one */
	uint64_t *exported;
	bool *has_export;
	double *margin;			/* [nruns] the mean margin of each probe's one-thread ops */
};

/* Every run must hold the first one's ops, sizes and contenders. */
static int check_alike(const struct judged *j, char *const *paths)
{
	const struct sweep_record *a = &j->rec[0];
	size_t r;

	for (r = 1; r < j->nruns; r++) {
		const struct sweep_record *b = &j->rec[r];

		if (b->nops != a->nops)
			goto differ;
		for (size_t k = 0; k < a->nops; k++) {
			const struct sweep_record_op *x = &a->ops[k], *y = &b->ops[k];

			if (strcmp(x->pattern, y->pattern) || x->threads != y->threads ||
			    x->nsizes != y->nsizes || x->ncontenders != y->ncontenders ||
			    x->first_strategy != y->first_strategy ||
			    x->nstrategies != y->nstrategies ||
			    memcmp(x->sizes_bytes, y->sizes_bytes, x->nsizes * sizeof(uint64_t)))
				goto differ;
			for (unsigned c = 0; c < x->ncontenders; c++)
				if (strcmp(x->names[c], y->names[c]))
					goto differ;
		}
	}
	return 0;
differ:
	fprintf(stderr, "bench_hindsight: %s: not the ops, sizes and contenders of %s; judge "
		"runs of one policy on one host together\n", paths[r], paths[0]);
	return -EINVAL;
}

/* Contender c's figure at size i: the mean of its two halves, as bench_policy's. */
static double value(const struct sweep_record_op *op, size_t i, unsigned c)
{
	double a = sweep_record_half(op, i, 0)[c], b = sweep_record_half(op, i, 1)[c];

	return isnan(a) ? b : isnan(b) ? a : (a + b) / 2;
}

/* Every run's cross-validated oracle at every cell, once: the bound asks for each many times. */
static int oracles(struct judged *j)
{
	const struct sweep_record *a = &j->rec[0];

	j->op_at = calloc(a->nops ? a->nops : 1, sizeof(*j->op_at));
	if (!j->op_at)
		return -ENOMEM;
	for (size_t k = 0; k < a->nops; k++) {
		j->op_at[k] = j->ncells;
		j->ncells += a->ops[k].nsizes;
	}
	j->cv = calloc(j->nruns * j->ncells + 1, sizeof(*j->cv));
	if (!j->cv)
		return -ENOMEM;
	for (size_t r = 0; r < j->nruns; r++)
		for (size_t k = 0; k < a->nops; k++) {
			const struct sweep_record_op *op = &j->rec[r].ops[k];

			for (size_t i = 0; i < op->nsizes; i++)
				j->cv[r * j->ncells + j->op_at[k] + i] =
					oracle_cross_validated(sweep_record_half(op, i, 0),
							       sweep_record_half(op, i, 1),
							       op->first_strategy, op->nstrategies);
		}
	return 0;
}

/* Contender c's ratio to run's cross-validated oracle at size i of op k. */
static double ratio(const struct judged *j, size_t run, size_t k, size_t i, unsigned c)
{
	return value(&j->rec[run].ops[k], i, c) / j->cv[run * j->ncells + j->op_at[k] + i];
}

/* The strategy of op k, size i, whose worst ratio over the runs but skip is highest. */
static unsigned hindsight_pick(const struct judged *j, size_t k, size_t i, size_t skip,
			       double *worst_out)
{
	const struct sweep_record_op *op = &j->rec[0].ops[k];
	unsigned best = op->first_strategy;
	double best_worst = -INFINITY;

	for (unsigned c = op->first_strategy; c < op->first_strategy + op->nstrategies; c++) {
		double worst = INFINITY;

		for (size_t r = 0; r < j->nruns; r++) {
			double x = ratio(j, r, k, i, c);

			if (r != skip)
				worst = fmin(worst, isnan(x) ? 0 : x);
		}
		if (worst > best_worst) {
			best_worst = worst;
			best = c;
		}
	}
	if (worst_out)
		*worst_out = best_worst;
	return best;
}

/*
 * Median, least and most of the finite values of v[0..n) (reordered);
 * false where there are none.
 */
static bool spread(double *v, size_t n, double *med, double *lo, double *hi)
{
	struct sample_summary s;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[m++] = v[i];
	if (stats_summarize(v, m, &s))
		return false;
	*med = s.median;
	*lo = v[0];
	*hi = v[m - 1];
	return true;
}

static void print_per_size(const struct judged *j)
{
	size_t under = 0, nsizes = 0;
	double *v = calloc(j->nruns + 1, sizeof(*v));
	char sb[32];

	if (!v)
		return;

	for (size_t k = 0; k < j->rec[0].nops; k++) {
		const struct sweep_record_op *op = &j->rec[0].ops[k];

		printf("\nwrite %s, %u thread%s: the worst ratio over the runs, and the "
		       "policy's median\n", op->pattern, op->threads, op->threads == 1 ? "" : "s");
		printf("%10s  %-14s %8s  %-14s %8s %8s\n", "size", "hindsight", "worst",
		       "policy uses", "worst", "median");
		for (size_t i = 0; i < op->nsizes; i++) {
			double hw, pw = INFINITY, pm = NAN, lo, hi;
			unsigned h = hindsight_pick(j, k, i, SIZE_MAX, &hw);

			for (size_t r = 0; r < j->nruns; r++) {
				v[r] = ratio(j, r, k, i, 0);
				pw = fmin(pw, v[r]);
			}
			if (spread(v, j->nruns, &pm, &lo, &hi)) {
				nsizes++;
				under += pm < MEDIAN_GOAL;
			}
			printf("%10s  %-14s %8.3f  %-14s %8.3f %8.3f\n",
			       policy_format_bytes(op->sizes_bytes[i], sb, sizeof(sb)),
			       op->names[h], hw, op->policy_uses[i], pw, pm);
		}
	}
	printf("\nthe policy's median ratio over the runs under %.2f at %zu of %zu sizes\n",
	       MEDIAN_GOAL, under, nsizes);
	free(v);
}

/* The op of probe p that sweep op op judged: a write of the same pattern and threads. */
static const struct policy_op *find_probe_op(const struct policy *p,
					     const struct sweep_record_op *op)
{
	for (size_t t = 0; t < p->ntargets; t++) {
		const struct policy_op *po = policy_find_op(&p->targets[t], "write", op->pattern,
							    op->threads);

		if (po)
			return po;
	}
	return NULL;
}

/*
 * The medians of probe op po at op's sizes, strategy by strategy, for
 * oracle_probe_pick(); NAN where it did not measure or believe a cell.
 */
static double *probe_medians(const struct policy_op *po, const struct sweep_record_op *op)
{
	double *med = malloc((op->nstrategies * op->nsizes + 1) * sizeof(*med));

	for (unsigned s = 0; med && s < op->nstrategies; s++) {
		const struct policy_curve *cv =
			policy_op_find_curve(po, op->names[op->first_strategy + s]);

		for (size_t i = 0; i < op->nsizes; i++) {
			int idx = policy_op_size_index(po, op->sizes_bytes[i]);

			med[s * op->nsizes + i] =
				!cv || idx < 0 || cv->reference_only ||
				crossover_cell_suspect(po, (size_t)(cv - po->curves), (size_t)idx) ?
				NAN : cv->median_mib_s[idx];
		}
	}
	return med;
}

enum choice { THE_POLICY, HINDSIGHT, LEAVE_ONE_OUT, PROBE_BEST, PROBE_RUN };

/* The contender chosen by how at size i of op k in run r. */
static unsigned pick(const struct judged *j, size_t r, size_t k, size_t i, enum choice how)
{
	switch (how) {
	case THE_POLICY:
		return 0;
	case HINDSIGHT:
		return hindsight_pick(j, k, i, SIZE_MAX, NULL);
	case LEAVE_ONE_OUT:
		return hindsight_pick(j, k, i, r, NULL);
	case PROBE_BEST:
	case PROBE_RUN: {
		const struct sweep_record_op *op = &j->rec[r].ops[k];

		return op->first_strategy +
		       oracle_probe_pick(j->probe_med[r * j->rec[0].nops + k], op->nstrategies,
					 op->nsizes, i, how == PROBE_RUN ? PROBE_RUN_HALF : 0);
	}
	}
	return 0;
}

/* How many sizes of run r miss the bar with the contender how chooses at each. */
static unsigned misses(const struct judged *j, size_t r, enum choice how)
{
	unsigned n = 0;

	for (size_t k = 0; k < j->rec[r].nops; k++)
		for (size_t i = 0; i < j->rec[r].ops[k].nsizes; i++)
			n += !(ratio(j, r, k, i, pick(j, r, k, i, how)) >= j->bar);
	return n;
}

static void print_choice(const struct judged *j, const char *label, enum choice how)
{
	unsigned pass = 0;

	printf("  %-14s", label);
	for (size_t r = 0; r < j->nruns; r++) {
		unsigned m = misses(j, r, how);

		pass += !m;
		printf(" %3u", m);
	}
	printf("   (%u of %zu runs pass)\n", pass, j->nruns);
}

static int print_bound(const struct judged *j)
{
	size_t ncells = j->ncells, at = 0;
	uint32_t **pass, best;
	unsigned *npick;
	int rc = -ENOMEM;

	pass = calloc(ncells ? ncells : 1, sizeof(*pass));
	npick = calloc(ncells ? ncells : 1, sizeof(*npick));
	if (!pass || !npick)
		goto out;
	for (size_t k = 0; k < j->rec[0].nops; k++) {
		const struct sweep_record_op *op = &j->rec[0].ops[k];

		for (size_t i = 0; i < op->nsizes; i++, at++) {
			pass[at] = calloc(op->nstrategies, sizeof(**pass));
			if (!pass[at])
				goto out;
			npick[at] = op->nstrategies;
			for (unsigned s = 0; s < op->nstrategies; s++)
				for (size_t r = 0; r < j->nruns; r++)
					if (ratio(j, r, k, i, op->first_strategy + s) >= j->bar)
						pass[at][s] |= 1u << r;
		}
	}
	best = oracle_best_fixed_runs((const uint32_t *const *)pass, npick, ncells,
				      (unsigned)j->nruns);
	printf("\nthe most runs any fixed choice of a strategy per size passes at every size: "
	       "%d of %zu", __builtin_popcount(best), j->nruns);
	if (best) {
		printf(" (runs");
		for (size_t r = 0; r < j->nruns; r++)
			if (best & (1u << r))
				printf(" %zu", r + 1);
		printf(")");
	}
	printf("\n");
	rc = 0;
out:
	for (size_t i = 0; pass && i < ncells; i++)
		free(pass[i]);
	free(pass);
	free(npick);
	if (rc)
		fprintf(stderr, "bench_hindsight: out of memory\n");
	return rc;
}

/* Contender a's ratio to contender b in run r's probe, op k, size i; NAN where unknown. */
static double probe_ratio(const struct judged *j, size_t r, size_t k, size_t i, unsigned a,
			  unsigned b)
{
	const struct sweep_record_op *op = &j->rec[r].ops[k];
	const double *med = j->probe_med[r * j->rec[0].nops + k];
	double x = med[(a - op->first_strategy) * op->nsizes + i];
	double y = med[(b - op->first_strategy) * op->nsizes + i];

	return x > 0 && y > 0 ? x / y : NAN;
}

/* Member a's ratio to default d at size i of op k, run by run: the judge's, the probes'. */
static void member_ratios(const struct judged *j, size_t k, size_t i, unsigned a, unsigned d,
			  double *judge, double *probe)
{
	for (size_t r = 0; r < j->nruns; r++) {
		const struct sweep_record_op *op = &j->rec[r].ops[k];

		judge[r] = value(op, i, a) / value(op, i, d);
		if (probe)
			probe[r] = probe_ratio(j, r, k, i, a, d);
	}
}

/* v's median and range as "1.020 (1.011-1.028)"; the median, NAN where v has none. */
static double print_spread(double *v, size_t n)
{
	double m, lo, hi;

	if (!spread(v, n, &m, &lo, &hi)) {
		printf(" %-20s", "-");
		return NAN;
	}
	printf(" %.3f (%.3f-%.3f)", m, lo, hi);
	return m;
}

/* The member of family f at size i of op k that the judge puts furthest ahead of d; -1 if none. */
static int judge_lead(const struct judged *j, size_t k, size_t i, enum policy_family f, int d)
{
	const struct sweep_record_op *op = &j->rec[0].ops[k];
	double best = -INFINITY;
	int lead = -1;

	for (unsigned c = op->first_strategy;
	     d >= 0 && c < op->first_strategy + op->nstrategies; c++) {
		double v[ORACLE_MAX_RUNS], m, lo, hi;

		if ((int)c == d || strategy_family_of(op->names[c]) != f)
			continue;
		member_ratios(j, k, i, c, (unsigned)d, v, NULL);
		if (spread(v, j->nruns, &m, &lo, &hi) && m > best) {
			best = m;
			lead = (int)c;
		}
	}
	return lead;
}

/*
 * Per size, each family's member with the highest median ratio to the
 * family's default in the judge, beside the probes' ratio of the same
 * two, and how far the medians of the two are apart over all of them.
 */
static void print_members(const struct judged *j)
{
	char sb[32];

	printf("\nmembers against their family's default: the ratio in the judge and in the "
	       "probes,\nmedian (least-most) over the runs, for the member the judge puts "
	       "furthest ahead\n");
	for (size_t k = 0; k < j->rec[0].nops; k++) {
		const struct sweep_record_op *op = &j->rec[0].ops[k];
		double diff[2 * op->nsizes + 1], m, lo, hi;
		size_t ndiff = 0;
		int d[2];

		printf("write %s, %u thread%s\n%10s", op->pattern, op->threads,
		       op->threads == 1 ? "" : "s", "size");
		for (int f = POLICY_FAMILY_STREAMING; f <= POLICY_FAMILY_CACHED_FLUSH; f++) {
			d[f] = j->dflt[k * 2 + f];
			printf("  %-14s %-20s %-20s", d[f] < 0 ? "-" : op->names[d[f]], "judge",
			       "probe");
		}
		printf("\n");
		for (size_t i = 0; i < op->nsizes; i++) {
			printf("%10s", policy_format_bytes(op->sizes_bytes[i], sb, sizeof(sb)));
			for (int f = POLICY_FAMILY_STREAMING; f <= POLICY_FAMILY_CACHED_FLUSH;
			     f++) {
				int lead = judge_lead(j, k, i, (enum policy_family)f, d[f]);
				double jv[ORACLE_MAX_RUNS], pv[ORACLE_MAX_RUNS], jm, pm;

				if (lead < 0) {
					printf("  %-14s %-20s %-20s", "-", "", "");
					continue;
				}
				member_ratios(j, k, i, (unsigned)lead, (unsigned)d[f], jv, pv);
				printf("  %-14s", op->names[lead]);
				jm = print_spread(jv, j->nruns);
				pm = print_spread(pv, j->nruns);
				if (isfinite(jm) && isfinite(pm))
					diff[ndiff++] = fabs(pm - jm);
			}
			printf("\n");
		}
		if (spread(diff, ndiff, &m, &lo, &hi))
			printf("  probes' median against the judge's, over %zu: %.1f %% apart "
			       "(median), %.1f %% at most\n", ndiff, 100 * m, 100 * hi);
	}
}

/* ---- the consumers' knobs ---- */

/*
 * A consumer's knob as it runs: contender names low below the value and
 * high at and above it; NULL names the family's default (the member PMDK
 * and the kernel run: strategy_default_rank()).
 */
static const struct knob {
	enum export_knob k;
	const char *low, *high;
	enum policy_family low_family, high_family;
} knobs[] = {
	{ .k = EXPORT_KNOB_PMEM_MOVNT,
	  .low_family = POLICY_FAMILY_CACHED_FLUSH, .high_family = POLICY_FAMILY_STREAMING },
	/* dm-writecache's pair: movnti, then a cached copy and clflushopt */
	{ .k = EXPORT_KNOB_KERNEL_NT, .low = "movnt", .high = "clflushopt" },
	{ .k = EXPORT_KNOB_GLIBC_NT, .low = "noflush", .high_family = POLICY_FAMILY_STREAMING },
	{ .k = EXPORT_KNOB_GLIBC_REP_MOVSB, .low = "clwb", .high = "rep_movsb_clwb" },
};

/* The strategy contender named name, else family f's default in op; -1 where op lacks it. */
static int knob_contender(const struct sweep_record_op *op, const char *name,
			  enum policy_family f)
{
	int best = -1, best_rank = INT_MAX;

	for (unsigned c = op->first_strategy; c < op->first_strategy + op->nstrategies; c++) {
		int rank = name ? (strcmp(op->names[c], name) ? -1 : 0) :
			   strategy_default_rank(f, op->names[c]);

		if (rank >= 0 && rank < best_rank) {
			best = (int)c;
			best_rank = rank;
		}
	}
	return best;
}

/* The knob's cells: every one-thread op's sizes, each run's ratio of either side. */
struct knob_cells {
	struct oracle_knob ok;
	int low, high;			/* contenders */
	size_t *op, *size;		/* [ncells] where each cell is */
	uint64_t *sizes;
	double *lo, *hi;		/* [nruns][ncells] */
};

static void knob_cells_free(struct knob_cells *kc)
{
	free(kc->op);
	free(kc->size);
	free(kc->sizes);
	free(kc->lo);
	free(kc->hi);
}

/* 0, -ENOENT where the sweeps lack a side, -ENOMEM. */
static int knob_cells(const struct judged *j, const struct knob *kn, struct knob_cells *kc)
{
	const struct sweep_record *a = &j->rec[0];
	size_t n = 0;

	memset(kc, 0, sizeof(*kc));
	if (!a->nops)
		return -ENOENT;
	kc->low = knob_contender(&a->ops[0], kn->low, kn->low_family);
	kc->high = knob_contender(&a->ops[0], kn->high, kn->high_family);
	if (kc->low < 0 || kc->high < 0)
		return -ENOENT;
	for (size_t k = 0; k < a->nops; k++)
		n += a->ops[k].threads == 1 ? a->ops[k].nsizes : 0;
	kc->op = calloc(n + 1, sizeof(*kc->op));
	kc->size = calloc(n + 1, sizeof(*kc->size));
	kc->sizes = calloc(n + 1, sizeof(*kc->sizes));
	kc->lo = calloc(j->nruns * n + 1, sizeof(*kc->lo));
	kc->hi = calloc(j->nruns * n + 1, sizeof(*kc->hi));
	if (!kc->op || !kc->size || !kc->sizes || !kc->lo || !kc->hi) {
		knob_cells_free(kc);
		return -ENOMEM;
	}
	n = 0;
	for (size_t k = 0; k < a->nops; k++)
		for (size_t i = 0; a->ops[k].threads == 1 && i < a->ops[k].nsizes; i++, n++) {
			kc->op[n] = k;
			kc->size[n] = i;
			kc->sizes[n] = a->ops[k].sizes_bytes[i];
		}
	for (size_t r = 0; r < j->nruns; r++)
		for (size_t x = 0; x < n; x++) {
			kc->lo[r * n + x] = ratio(j, r, kc->op[x], kc->size[x], (unsigned)kc->low);
			kc->hi[r * n + x] = ratio(j, r, kc->op[x], kc->size[x], (unsigned)kc->high);
		}
	kc->ok = (struct oracle_knob){ .ncells = n, .nruns = j->nruns, .sizes_bytes = kc->sizes,
				       .low = kc->lo, .high = kc->hi };
	return 0;
}

static const char *knob_value_name(uint64_t t, char *buf, size_t len)
{
	if (t == ORACLE_KNOB_NEVER)
		return "never";
	return policy_format_bytes(t, buf, len);
}

/* The columns value, worst, at, mean of one score. */
static void print_knob_score(const struct judged *j, const struct knob_cells *kc,
			     const char *label, const struct oracle_knob_score *s)
{
	const struct sweep_record_op *op = &j->rec[0].ops[kc->op[s->worst_cell]];
	char vb[32], sb[32], at[64];

	/* seq or rnd: a row fits 100 columns */
	snprintf(at, sizeof(at), "%s %.3s, run %zu",
		 policy_format_bytes(kc->sizes[s->worst_cell], sb, sizeof(sb)),
		 strcmp(op->pattern, "random") ? op->pattern : "rnd", s->worst_run + 1);
	printf("    %-17s %-8s %6.3f %-18s %6.3f %7.3f", label,
	       knob_value_name(s->threshold_bytes, vb, sizeof(vb)), s->worst, at, s->mean,
	       s->worst_pair);
}

/*
 * Per knob, the best single value in hindsight over every run's sweep,
 * and, with the probes, each run's exported value scored the same way.
 */
static int print_knobs(const struct judged *j)
{
	printf("\nconsumers' knobs, one value over the one-thread ops of all %zu runs: ratios to "
	       "each run's\ncross-validated oracle, the worst and the geometric mean; of pair: "
	       "the worst ratio to the\nbetter of the knob's two strategies\n", j->nruns);
	if (j->exported)
		printf("under the best: the best's worst ratio less the value's, within the bar "
		       "max(0.03, the run's\nmargin) or beyond it; own: the worst on the "
		       "value's own run alone\n");
	for (size_t n = 0; n < sizeof(knobs) / sizeof(knobs[0]); n++) {
		const struct knob *kn = &knobs[n];
		struct oracle_knob_score best;
		struct knob_cells kc;
		int rc = knob_cells(j, kn, &kc);

		if (rc == -ENOMEM) {
			fprintf(stderr, "bench_hindsight: out of memory\n");
			return rc;
		}
		if (rc || oracle_knob_best(&kc.ok, &best)) {
			printf("  %s: the sweeps lack %s or %s\n", export_knob_name(kn->k),
			       kn->low ? kn->low : strategy_family_name(kn->low_family),
			       kn->high ? kn->high : strategy_family_name(kn->high_family));
			knob_cells_free(&kc);
			continue;
		}
		printf("  %s: %s below the value, %s at and above\n", export_knob_name(kn->k),
		       j->rec[0].ops[0].names[kc.low], j->rec[0].ops[0].names[kc.high]);
		printf("    %-17s %-8s %6s %-18s %6s %7s%s\n", "", "value", "worst", "at", "mean",
		       "of pair", j->exported ? "  under (bar)            own" : "");
		print_knob_score(j, &kc, "best in hindsight", &best);
		printf("\n");
		for (size_t r = 0; j->exported && r < j->nruns; r++) {
			const uint64_t t = j->exported[r * EXPORT_KNOBS + kn->k];
			struct oracle_knob one = kc.ok;
			struct oracle_knob_score s, own;
			double bar = fmax(ORACLE_KNOB_BAR_FLOOR, j->margin[r]), under;
			char label[48];

			snprintf(label, sizeof(label), "run %zu exported", r + 1);
			if (!j->has_export[r * EXPORT_KNOBS + kn->k]) {
				printf("    %-18s -\n", label);
				continue;
			}
			oracle_knob_score(&kc.ok, t, &s);
			/* the same value on its own run's sweep alone */
			one.nruns = 1;
			one.low += r * kc.ok.ncells;
			one.high += r * kc.ok.ncells;
			oracle_knob_score(&one, t, &own);
			under = best.worst - s.worst;
			print_knob_score(j, &kc, label, &s);
			printf("  %.3f (%.3f) %-6s %6.3f\n", under, bar,
			       under <= bar ? "within" : "beyond", own.worst);
		}
		knob_cells_free(&kc);
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: bench_hindsight [--bar RATIO] [--probe POLICY.json]... "
		"SWEEP.json SWEEP.json...\n"
		"Judges several runs of `bench_policy --save-sweep FILE` (one host, one "
		"policy) together.\n"
		"--probe, once per sweep in their order: the policy each run judged "
		"(--save-policy), for the rules that follow the probe.\n");
}

/*
 * The two families' defaults in probe op po, as the rule takes them
 * (crossover_family_default()), as contenders of sweep op op; -1 where
 * the family has none or the sweep did not run it.
 */
static void family_defaults(const struct policy_op *po, const struct sweep_record_op *op,
			    int *dflt)
{
	for (int f = POLICY_FAMILY_STREAMING; f <= POLICY_FAMILY_CACHED_FLUSH; f++) {
		int c = crossover_family_default(po, f);

		dflt[f] = -1;
		for (unsigned s = op->first_strategy;
		     c >= 0 && s < op->first_strategy + op->nstrategies; s++)
			if (!strcmp(op->names[s], po->curves[c].strategy))
				dflt[f] = (int)s;
	}
}

/* Each run's probe medians, for every sweep op (the probes are not kept). */
static int load_probes(struct judged *j, char *const *paths, char *const *sweeps)
{
	size_t nops = j->rec[0].nops;
	char err[512];
	int rc = 0;

	j->probe_med = calloc(j->nruns * nops + 1, sizeof(*j->probe_med));
	j->dflt = calloc(2 * nops + 1, sizeof(*j->dflt));
	j->exported = calloc(j->nruns * EXPORT_KNOBS, sizeof(*j->exported));
	j->has_export = calloc(j->nruns * EXPORT_KNOBS, sizeof(*j->has_export));
	j->margin = calloc(j->nruns, sizeof(*j->margin));
	if (!j->probe_med || !j->dflt || !j->exported || !j->has_export || !j->margin)
		goto nomem;
	for (size_t r = 0; r < j->nruns && !rc; r++) {
		struct policy *p = policy_load(paths[r], err, sizeof(err));
		unsigned nmargin = 0;

		if (!p) {
			fprintf(stderr, "bench_hindsight: %s\n", err);
			return -EINVAL;
		}
		for (int x = 0; x < EXPORT_KNOBS; x++)
			j->has_export[r * EXPORT_KNOBS + x] =
				!export_knob_value(p, x, &j->exported[r * EXPORT_KNOBS + x]);
		for (size_t k = 0; k < nops && !rc; k++) {
			const struct sweep_record_op *op = &j->rec[r].ops[k];
			const struct policy_op *po = find_probe_op(p, op);

			if (!po) {
				fprintf(stderr, "bench_hindsight: %s: no write %s %u-thread op, "
					"which %s judged\n", paths[r], op->pattern, op->threads,
					sweeps[r]);
				rc = -EINVAL;
			} else if (!(j->probe_med[r * nops + k] = probe_medians(po, op))) {
				rc = -ENOMEM;
			} else if (!r) {
				family_defaults(po, op, &j->dflt[k * 2]);
			}
			if (po && op->threads == 1) {
				j->margin[r] += crossover_margin(po);
				nmargin++;
			}
		}
		if (nmargin)
			j->margin[r] /= nmargin;
		policy_free(p);
	}
	if (rc != -ENOMEM)
		return rc;
nomem:
	fprintf(stderr, "bench_hindsight: out of memory\n");
	return -ENOMEM;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "bar", required_argument, NULL, 'b' },
		{ "probe", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct judged j = { .bar = DEFAULT_BAR };
	char err[512], *end, *probes[ORACLE_MAX_RUNS];
	size_t nprobes = 0;
	int c, rc = 1;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'b':
			j.bar = strtod(optarg, &end);
			if (*end || !(j.bar > 0 && j.bar <= 1)) {
				fprintf(stderr, "bench_hindsight: --bar %s: a ratio in (0, 1]\n",
					optarg);
				return 2;
			}
			break;
		case 'p':
			if (nprobes == ORACLE_MAX_RUNS) {
				fprintf(stderr, "bench_hindsight: --probe %s: more than %d\n",
					optarg, ORACLE_MAX_RUNS);
				return 2;
			}
			probes[nprobes++] = optarg;
			break;
		default:	/* -h and a bad option */
			return bench_usage_exit(c, usage);
		}
	}
	j.nruns = (size_t)(argc - optind);
	if (j.nruns < 2 || j.nruns > ORACLE_MAX_RUNS) {
		fprintf(stderr, "bench_hindsight: %zu sweep%s given; it judges 2 to %d together\n",
			j.nruns, j.nruns == 1 ? "" : "s", ORACLE_MAX_RUNS);
		return 2;
	}
	if (nprobes && nprobes != j.nruns) {
		fprintf(stderr, "bench_hindsight: %zu --probe for %zu sweeps; one per sweep, in "
			"their order\n", nprobes, j.nruns);
		return 2;
	}
	j.rec = calloc(j.nruns, sizeof(*j.rec));
	if (!j.rec)
		return 1;
	for (size_t r = 0; r < j.nruns; r++)
		if (sweep_record_load(argv[optind + r], &j.rec[r], err, sizeof(err))) {
			fprintf(stderr, "bench_hindsight: %s\n", err);
			goto out;
		}
	if (check_alike(&j, argv + optind))
		goto out;
	if (oracles(&j)) {
		fprintf(stderr, "bench_hindsight: out of memory\n");
		goto out;
	}
	if (nprobes && load_probes(&j, probes, argv + optind))
		goto out;

	printf("%zu runs of bench_policy (%s mode), policy %s; bar %.2f of the cross-validated "
	       "oracle\n", j.nruns, j.rec[0].mode, j.rec[0].policy, j.bar);
	for (size_t r = 0; r < j.nruns; r++)
		printf("  run %zu: %s%s%s\n", r + 1, argv[optind + r], nprobes ? ", probe " : "",
		       nprobes ? probes[r] : "");
	print_per_size(&j);
	printf("\nsizes under the bar, run by run:\n  %-14s", "");
	for (size_t r = 0; r < j.nruns; r++)
		printf(" %3zu", r + 1);
	printf("\n");
	print_choice(&j, "the policy", THE_POLICY);
	print_choice(&j, "hindsight", HINDSIGHT);
	print_choice(&j, "leave-one-out", LEAVE_ONE_OUT);
	if (nprobes) {
		print_choice(&j, "probe's best", PROBE_BEST);
		print_choice(&j, "probe, 5 sizes", PROBE_RUN);
	}
	rc = print_bound(&j) ? 1 : 0;
	if (!rc && nprobes)
		print_members(&j);
	if (!rc)
		rc = print_knobs(&j) ? 1 : 0;
out:
	for (size_t r = 0; j.probe_med && r < j.nruns * j.rec[0].nops; r++)
		free(j.probe_med[r]);
	free(j.probe_med);
	free(j.dflt);
	free(j.exported);
	free(j.has_export);
	free(j.margin);
	for (size_t r = 0; r < j.nruns; r++)
		sweep_record_free(&j.rec[r]);
	free(j.rec);
	free(j.op_at);
	free(j.cv);
	return rc;
}
