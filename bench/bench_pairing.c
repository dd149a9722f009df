// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What pairing would buy the decision rule, from policies written with
 * pmem-tune --probe --keep-samples (raw_mib_s).  At one size of a
 * one-thread op the probe samples the strategies in turns, one sample
 * each per round, so sample j of a family member and sample j of the
 * family's default were taken next to each other.  For every such pair
 * of cells this prints, side by side:
 *
 *   unpaired  each cell's own 95 % interval of its median, the rule's
 *             test today (ahead by the margin, intervals apart): the
 *             gap that test needs is the sum of the two half-widths;
 *   paired    the median of the rounds' log ratios member/default and
 *             its 95 % interval, the same distribution-free ranks;
 *
 * and, over several files of one host, how much a cell's ratio moves
 * from probe to probe either way: what a fleet sees as flicker.  Cells
 * measured again on their own (remeasured on one side only) are left
 * out: their samples were not taken in the same rounds.  Prints
 * figures; never pass/fail.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cli.h"
#include "common/macros.h"
#include "policy/policy.h"
#include "rule/crossover.h"
#include "rule/samples.h"
#include "rule/stats.h"
#include "rule/strategy_class.h"

#define MAX_FILES	64
#define MAX_ROWS	64
#define MAX_SIZES	256	/* sizes of one op: a probe's grid and its bisection points */

/* One (pattern, member, default) over every file and size. */
struct row {
	char pattern[POLICY_NAME_MAX];
	char member[POLICY_NAME_MAX];
	char dflt[POLICY_NAME_MAX];
	/* per cell pair, natural-log units: the gap the rule's test needs, the paired half-width */
	double *hw_unpaired;	/* the two cells' half-widths added */
	double *hw_paired;
	size_t npairs, nunpaired;
	unsigned ahead, rule_wins, paired_wins;
	/* per size: the log ratio of each file, for the spread across files */
	uint64_t sizes[MAX_SIZES];
	double *lr_unpaired[MAX_SIZES], *lr_paired[MAX_SIZES];
	unsigned nfiles_at[MAX_SIZES];
	size_t nsizes;
};

static struct row rows[MAX_ROWS];
static size_t nrows;

static struct row *row_of(const char *pattern, const char *member, const char *dflt)
{
	struct row *r;

	for (size_t i = 0; i < nrows; i++)
		if (!strcmp(rows[i].pattern, pattern) && !strcmp(rows[i].member, member) &&
		    !strcmp(rows[i].dflt, dflt))
			return &rows[i];
	if (nrows == MAX_ROWS)
		return NULL;
	r = &rows[nrows++];
	snprintf(r->pattern, sizeof(r->pattern), "%s", pattern);
	snprintf(r->member, sizeof(r->member), "%s", member);
	snprintf(r->dflt, sizeof(r->dflt), "%s", dflt);
	return r;
}

static int push(double **arr, size_t *n, double v)
{
	double *a = realloc(*arr, (*n + 1) * sizeof(**arr));

	if (!a)
		return -ENOMEM;
	a[(*n)++] = v;
	*arr = a;
	return 0;
}

/* The spread-across-files slot of r for size; -E2BIG when full, -ENOMEM. */
static int size_slot(struct row *r, uint64_t size)
{
	double *u, *p;

	for (size_t i = 0; i < r->nsizes; i++)
		if (r->sizes[i] == size)
			return (int)i;
	if (r->nsizes == MAX_SIZES)
		return -E2BIG;
	u = calloc(MAX_FILES, sizeof(double));
	p = calloc(MAX_FILES, sizeof(double));
	if (!u || !p) {
		free(u);
		free(p);
		return -ENOMEM;
	}
	r->sizes[r->nsizes] = size;
	r->lr_unpaired[r->nsizes] = u;
	r->lr_paired[r->nsizes] = p;
	return (int)r->nsizes++;
}

static double log_half_width(const struct policy_curve *c, size_t i)
{
	return 0.5 * log(c->ci_hi_mib_s[i] / c->ci_lo_mib_s[i]);
}

/* Member m against default d at size i of op: one pair of cells. */
static int add_pair(struct row *r, const struct policy_op *op, int m, int d, size_t i,
		    bool verbose, const char *file)
{
	const struct policy_curve *cm = &op->curves[m], *cd = &op->curves[d];
	double margin = crossover_margin(op), ratio, pmed, plo, phi;
	bool ahead, rule_win, paired_win;
	int slot;

	if (policy_paired_ratio(op, (size_t)m, (size_t)d, i, &pmed, &plo, &phi))
		return 0;
	ratio = cm->median_mib_s[i] / cd->median_mib_s[i];
	ahead = ratio >= 1 + margin;
	rule_win = crossover_pair_verdict(op, m, d, i, margin) == 0;	/* side 0: m */
	paired_win = policy_paired_win(pmed, plo, margin);
	r->ahead += ahead;
	r->rule_wins += rule_win;
	r->paired_wins += paired_win;
	if (push(&r->hw_unpaired, &r->nunpaired, log_half_width(cm, i) + log_half_width(cd, i)) ||
	    push(&r->hw_paired, &r->npairs, 0.5 * log(phi / plo)))
		return -ENOMEM;
	slot = size_slot(r, op->sizes_bytes[i]);
	if (slot < 0)
		return slot;
	if (r->nfiles_at[slot] < MAX_FILES) {
		r->lr_unpaired[slot][r->nfiles_at[slot]] = log(ratio);
		r->lr_paired[slot][r->nfiles_at[slot]] = log(pmed);
		r->nfiles_at[slot]++;
	}
	if (verbose)
		printf("  %-10s %-12s %9" PRIu64 "  median ratio %.3f  [%.3f, %.3f]"
		       " each +-%4.1f/%4.1f %%"
		       "  paired %.3f [%.3f, %.3f]%s%s  %s\n",
		       r->pattern, r->member, op->sizes_bytes[i], ratio,
		       cm->ci_lo_mib_s[i] / cd->ci_hi_mib_s[i],
		       cm->ci_hi_mib_s[i] / cd->ci_lo_mib_s[i], 100 * log_half_width(cm, i),
		       100 * log_half_width(cd, i), pmed, plo, phi,
		       rule_win ? "  rule: win" : "", paired_win ? "  paired: win" : "", file);
	return 0;
}

static int add_op(const struct policy_op *op, uint64_t min_size, bool verbose, const char *file)
{
	for (int f = POLICY_FAMILY_STREAMING; f <= POLICY_FAMILY_CACHED_FLUSH; f++) {
		int d = crossover_family_default(op, f);

		if (d < 0 || !op->curves[d].raw_mib_s)
			continue;
		for (size_t m = 0; m < op->ncurves; m++) {
			const struct policy_curve *cm = &op->curves[m];
			struct row *r;

			if ((int)m == d ||
			    strategy_family_of(cm->strategy) != (enum policy_family)f ||
			    !cm->raw_mib_s)
				continue;
			r = row_of(op->pattern, cm->strategy, op->curves[d].strategy);
			if (!r)
				return -E2BIG;
			for (size_t i = 0; i < op->nsizes; i++) {
				uint8_t fm = cm->cell_flags[i], fd = op->curves[d].cell_flags[i];

				/* not paired in the same rounds: policy_paired_ratio() says so */
				if (op->sizes_bytes[i] < min_size ||
				    ((fm | fd) & (POLICY_CELL_SUSPECT | POLICY_CELL_UNMEASURABLE)))
					continue;
				int rc = add_pair(r, op, (int)m, d, i, verbose, file);

				if (rc)
					return rc;
			}
		}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* p10, p50, p90 of v[0..n) in per cent (sorts v). */
static void pct3(double *v, size_t n, char *buf, size_t len)
{
	if (!n) {
		snprintf(buf, len, "-");
		return;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	snprintf(buf, len, "%.1f / %.1f / %.1f", 100 * stats_quantile_sorted(v, n, 0.1),
		 100 * stats_quantile_sorted(v, n, 0.5), 100 * stats_quantile_sorted(v, n, 0.9));
}

/* Pooled sd of the log ratio across files, per cent; NAN with no size seen twice. */
static double pooled_sd(double *const *lr, const unsigned *nf, size_t nsizes)
{
	double ss = 0;
	unsigned dof = 0;

	for (size_t i = 0; i < nsizes; i++) {
		double mean = 0;

		if (nf[i] < 2)
			continue;
		for (unsigned k = 0; k < nf[i]; k++)
			mean += lr[i][k] / nf[i];
		for (unsigned k = 0; k < nf[i]; k++)
			ss += (lr[i][k] - mean) * (lr[i][k] - mean);
		dof += nf[i] - 1;
	}
	return dof ? 100 * sqrt(ss / dof) : NAN;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: bench_pairing [--min-size BYTES] [--cells] FILE...\n"
		   "  FILE: policies of one host written by pmem-tune --probe --keep-samples\n"
		   "  --min-size: only sizes from here up (default 0)\n"
		   "  --cells: a line per pair of cells as well\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "min-size", required_argument, NULL, 'm' },
		{ "cells", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t min_size = 0;
	bool verbose = false;
	unsigned nfiles = 0;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (policy_parse_size(optarg, &min_size)) {
				fprintf(stderr, "bench_pairing: --min-size %s: not a size\n",
					optarg);
				return 2;
			}
			break;
		case 'c':
			verbose = true;
			break;
		default:	/* -h and a bad option */
			return bench_usage_exit(c, usage);
		}
	}
	if (optind == argc || argc - optind > MAX_FILES) {
		usage(stderr);
		return 2;
	}
	for (int a = optind; a < argc; a++) {
		char err[512];
		struct policy *p = policy_load(argv[a], err, sizeof(err));
		bool any = false;

		if (!p) {
			fprintf(stderr, "bench_pairing: %s\n", err);
			return 2;
		}
		for (size_t t = 0; t < p->ntargets; t++)
			for (size_t o = 0; o < p->targets[t].nops; o++) {
				const struct policy_op *op = &p->targets[t].ops[o];

				if (op->threads != 1 || !policy_op_has_raw(op))
					continue;
				any = true;
				int rc = add_op(op, min_size, verbose, argv[a]);

				if (rc == -E2BIG) {
					fprintf(stderr, "bench_pairing: %s: more pairs of "
						"strategies (%d) or sizes of one op (%d) than "
						"it tabulates\n", argv[a], MAX_ROWS, MAX_SIZES);
					return 1;
				}
				if (rc) {
					fprintf(stderr, "bench_pairing: %s: %s\n", argv[a],
						strerror(-rc));
					return 1;
				}
			}
		policy_free(p);
		if (!any) {
			fprintf(stderr, "bench_pairing: %s: no one-thread op with raw samples "
				"(probe with --keep-samples)\n", argv[a]);
			return 2;
		}
		nfiles++;
	}
	printf("bench_pairing: %u file%s, one-thread ops, sizes from %" PRIu64 " B; the gap "
	       "each test needs to tell a pair apart (p10 / p50 / p90, %%)\n",
	       nfiles, nfiles == 1 ? "" : "s", min_size);
	printf("%-10s %-14s %-14s %5s  %-20s %-20s %-15s %5s %5s %6s\n", "pattern", "member",
	       "default", "pairs", "unpaired", "paired", "sd across files",
	       "ahead", "rule", "paired");
	for (size_t i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		char hu[48], hp[48], sd[32];

		pct3(r->hw_unpaired, r->nunpaired, hu, sizeof(hu));
		pct3(r->hw_paired, r->npairs, hp, sizeof(hp));
		double su = pooled_sd(r->lr_unpaired, r->nfiles_at, r->nsizes);
		double sp = pooled_sd(r->lr_paired, r->nfiles_at, r->nsizes);

		if (isnan(su))	/* one file: no spread across files */
			snprintf(sd, sizeof(sd), "-");
		else
			snprintf(sd, sizeof(sd), "%.1f / %.1f", su, sp);
		printf("%-10s %-14s %-14s %5zu  %-20s %-20s %-15s %5u %5u %6u\n", r->pattern,
		       r->member, r->dflt, r->npairs, hu, hp, sd, r->ahead, r->rule_wins,
		       r->paired_wins);
	}
	printf("unpaired: the two cells' 95 %% half-widths added (the rule's test: intervals "
	       "apart); paired: the\nhalf-width of the rounds' median log ratio.  ahead: the "
	       "member's median ahead by the op's\nmargin; rule: also the intervals apart (the "
	       "rule's test); paired: the rounds' median ratio\nahead by the margin with its "
	       "interval above 1.  sd across files: the pooled spread of one\nsize's log ratio "
	       "from file to file, of the medians / of the paired medians (%%).\n");
	for (size_t i = 0; i < nrows; i++) {
		free(rows[i].hw_unpaired);
		free(rows[i].hw_paired);
		for (size_t k = 0; k < rows[i].nsizes; k++) {
			free(rows[i].lr_unpaired[k]);
			free(rows[i].lr_paired[k]);
		}
	}
	return 0;
}
