// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Could any fixed policy have scored the bar at every size?  Reads the
 * held-out sweeps of several bench_policy runs (--save-sweep) of one host
 * and the same policy sizes, and scores, in every run, each strategy by
 * the cross-validated oracle of that run (as bench_policy does):
 *
 *   the policy        what its column scored, run by run
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
 * Prints figures; never pass/fail.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "sweep_record.h"
#include "table.h"

#define DEFAULT_BAR 0.97

struct judged {
	size_t nruns;
	struct sweep_record *rec;	/* [nruns] */
	double bar;
	/* the sizes of every op, numbered in a row: op k's size i is cell op_at[k] + i */
	size_t ncells;
	size_t *op_at;			/* [nops] */
	double *cv;			/* [nruns][ncells] each run's cross-validated oracle */
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

static void print_per_size(const struct judged *j)
{
	char sb[32];

	for (size_t k = 0; k < j->rec[0].nops; k++) {
		const struct sweep_record_op *op = &j->rec[0].ops[k];

		printf("\nwrite %s, %u thread%s: the worst ratio over the runs\n", op->pattern,
		       op->threads, op->threads == 1 ? "" : "s");
		printf("%10s  %-14s %8s  %-14s %8s\n", "size", "hindsight", "worst", "policy uses",
		       "worst");
		for (size_t i = 0; i < op->nsizes; i++) {
			double hw, pw = INFINITY;
			unsigned h = hindsight_pick(j, k, i, SIZE_MAX, &hw);

			for (size_t r = 0; r < j->nruns; r++)
				pw = fmin(pw, ratio(j, r, k, i, 0));
			printf("%10s  %-14s %8.3f  %-14s %8.3f\n",
			       table_format_bytes(op->sizes_bytes[i], sb, sizeof(sb)),
			       op->names[h], hw, op->policy_uses[i], pw);
		}
	}
}

/* How many sizes of run r miss the bar when the choice at each is pick(k, i). */
enum choice { THE_POLICY, HINDSIGHT, LEAVE_ONE_OUT };

static unsigned misses(const struct judged *j, size_t r, enum choice how)
{
	unsigned n = 0;

	for (size_t k = 0; k < j->rec[r].nops; k++)
		for (size_t i = 0; i < j->rec[r].ops[k].nsizes; i++) {
			unsigned c = how == THE_POLICY ? 0 :
				     hindsight_pick(j, k, i, how == HINDSIGHT ? SIZE_MAX : r, NULL);

			n += !(ratio(j, r, k, i, c) >= j->bar);
		}
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

static void usage(FILE *f)
{
	fprintf(f, "Usage: bench_hindsight [--bar RATIO] SWEEP.json SWEEP.json...\n"
		"Judges several runs of `bench_policy --save-sweep FILE` (one host, one "
		"policy) together.\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "bar", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct judged j = { .bar = DEFAULT_BAR };
	char err[512], *end;
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
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	j.nruns = (size_t)(argc - optind);
	if (j.nruns < 2 || j.nruns > ORACLE_MAX_RUNS) {
		fprintf(stderr, "bench_hindsight: %zu sweep%s given; it judges 2 to %d together\n",
			j.nruns, j.nruns == 1 ? "" : "s", ORACLE_MAX_RUNS);
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

	printf("%zu runs of bench_policy (%s mode), policy %s; bar %.2f of the cross-validated "
	       "oracle\n", j.nruns, j.rec[0].mode, j.rec[0].policy, j.bar);
	for (size_t r = 0; r < j.nruns; r++)
		printf("  run %zu: %s\n", r + 1, argv[optind + r]);
	print_per_size(&j);
	printf("\nsizes under the bar, run by run:\n  %-14s", "");
	for (size_t r = 0; r < j.nruns; r++)
		printf(" %3zu", r + 1);
	printf("\n");
	print_choice(&j, "the policy", THE_POLICY);
	print_choice(&j, "hindsight", HINDSIGHT);
	print_choice(&j, "leave-one-out", LEAVE_ONE_OUT);
	rc = print_bound(&j) ? 1 : 0;
out:
	for (size_t r = 0; r < j.nruns; r++)
		sweep_record_free(&j.rec[r]);
	free(j.rec);
	free(j.op_at);
	free(j.cv);
	return rc;
}
