// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Could one fixed export have served every probe?  Several probes of one
 * host (bench/calibration.sh keeps them with KEEP=DIR), each scored on its
 * own cells as the exports score them (export_knob_loss(), by the
 * medians, every value as the consumer takes it): a value of a consumer's
 * knob passes a probe when its worst-size loss is within max(--bar, the
 * export's margin) of the least any value has there; a probe that decides
 * nothing for the knob is passed by every value.  Per knob: what each
 * probe exported (as its file says), and the fixed value that passes the
 * most probes; over all knobs together, the most probes one fixed value
 * per knob passes (oracle_best_fixed_runs()).  Where that is under what
 * calibration asks, no value kept the same is within the bar on every
 * probe's medians: the cells moved between probes.  Prints figures; never
 * pass/fail.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cli.h"
#include "bench/oracle.h"
#include "policy/export_keys.h"
#include "policy/policy.h"
#include "rule/export.h"

/* Candidate values of one knob over every probe: the exports, the least, never, the sizes. */
#define MAX_VALUES	512

/* Whose export holds each knob's margin (glibc's two tunables share their ops' one). */
static const enum export_consumer knob_consumer[EXPORT_KNOBS] = {
	[EXPORT_KNOB_PMEM_MOVNT] = EXPORT_LIBPMEM,
	[EXPORT_KNOB_KERNEL_NT] = EXPORT_KERNEL,
	[EXPORT_KNOB_GLIBC_NT] = EXPORT_GLIBC,
	[EXPORT_KNOB_GLIBC_REP_MOVSB] = EXPORT_GLIBC,
};

/* One knob over every probe: the candidates, and which probes each passes. */
struct knob_runs {
	uint64_t value[MAX_VALUES];
	uint32_t pass[MAX_VALUES];	/* bit r: probe r */
	unsigned nvalues;
	bool truncated;			/* more than MAX_VALUES: the later ones left out */
	uint64_t exported[ORACLE_MAX_RUNS];	/* as the consumer takes it */
	uint32_t has;			/* bit r: probe r exports the knob */
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: bench_stability [--bar RATIO] POLICY.json POLICY.json...\n"
		"Several probes of one host (at most %d): could one fixed value of each "
		"consumer's knob\nhave passed them all?  A value passes a probe within "
		"max(RATIO, the export's margin)\nof the least worst-size loss there "
		"(default %.2f).\n", ORACLE_MAX_RUNS, ORACLE_KNOB_BAR_FLOOR);
}

static void add_value(struct knob_runs *kr, uint64_t t)
{
	for (unsigned j = 0; j < kr->nvalues; j++)
		if (kr->value[j] == t)
			return;
	if (kr->nvalues < MAX_VALUES)
		kr->value[kr->nvalues++] = t;
	else
		kr->truncated = true;
}

/* Every value any probe could set for k, each as the consumer takes it; the exports first. */
static void collect_values(struct policy *const *p, unsigned n, enum export_knob k,
			   struct knob_runs *kr)
{
	for (unsigned r = 0; r < n; r++)
		if (kr->has & (1u << r))
			add_value(kr, kr->exported[r]);
	for (unsigned r = 0; r < n; r++) {
		uint64_t least = export_knob_least(p[r], k);

		add_value(kr, least);
		add_value(kr, POLICY_SIZE_OPEN);
		for (size_t t = 0; t < p[r]->ntargets; t++)
			for (size_t o = 0; o < p[r]->targets[t].nops; o++) {
				const struct policy_op *op = &p[r]->targets[t].ops[o];

				for (size_t i = 0; i < op->nsizes; i++)
					add_value(kr, op->sizes_bytes[i] > least ?
						  op->sizes_bytes[i] : least);
			}
	}
}

/* Which probes each value passes; -ENOENT where no probe decides k. */
static int score_knob(struct policy *const *p, unsigned n, enum export_knob k, double bar,
		      struct knob_runs *kr)
{
	static struct export_knob_loss loss[MAX_VALUES];
	bool any = false;

	for (unsigned r = 0; r < n; r++) {
		const struct policy_export *e = export_of(p[r], knob_consumer[k]);
		double best = INFINITY, slack = fmax(bar, e ? e->margin : 0);

		for (unsigned j = 0; j < kr->nvalues; j++) {
			if (export_knob_loss(p[r], k, kr->value[j], 0, NULL, &loss[j]))
				loss[j].worst = NAN;
			else if (loss[j].worst < best)
				best = loss[j].worst;
		}
		any = any || !isinf(best);
		/* a probe that decides nothing for k: no value loses anything there */
		for (unsigned j = 0; j < kr->nvalues; j++)
			if (isinf(best) || loss[j].worst <= best + slack + 1e-12)
				kr->pass[j] |= 1u << r;
	}
	return any ? 0 : -ENOENT;
}

static unsigned count_bits(uint32_t m)
{
	return (unsigned)__builtin_popcount(m);
}

static void print_runs(uint32_t m, unsigned n)
{
	for (unsigned r = 0; r < n; r++)
		if (m & (1u << r))
			printf(" %u", r + 1);
}

static unsigned passes(const struct knob_runs *kr, uint64_t t)
{
	for (unsigned j = 0; j < kr->nvalues; j++)
		if (kr->value[j] == t)
			return count_bits(kr->pass[j]);
	return 0;
}

static void print_knob(enum export_knob k, const struct knob_runs *kr, unsigned n)
{
	unsigned best = 0, done = 0;
	uint32_t seen = 0;
	char buf[32];

	printf("  %s\n    exported (probes, passing):", export_knob_name(k));
	/* each exported value once, the most common first */
	while (done < count_bits(kr->has)) {
		unsigned most = 0, at = 0;

		for (unsigned r = 0; r < n; r++) {
			unsigned c = 0;

			if (!(kr->has & ~seen & (1u << r)))
				continue;
			for (unsigned q = r; q < n; q++)
				c += (kr->has >> q & 1) && kr->exported[q] == kr->exported[r];
			if (c > most) {
				most = c;
				at = r;
			}
		}
		for (unsigned q = 0; q < n; q++)
			if ((kr->has >> q & 1) && kr->exported[q] == kr->exported[at])
				seen |= 1u << q;
		done += most;
		printf(" %s (%u, %u/%u)", export_knob_format(k, kr->exported[at], buf, sizeof(buf)),
		       most, passes(kr, kr->exported[at]), n);
	}
	if (!kr->has)
		printf(" nothing");
	for (unsigned j = 1; j < kr->nvalues; j++)
		if (count_bits(kr->pass[j]) > count_bits(kr->pass[best]) ||
		    (count_bits(kr->pass[j]) == count_bits(kr->pass[best]) &&
		     kr->value[j] < kr->value[best]))
			best = j;
	if (kr->truncated)
		printf("\n    (candidates past the first %d left out)", MAX_VALUES);
	printf("\n    the fixed value passing most: %s, %u/%u probes (",
	       export_knob_format(k, kr->value[best], buf, sizeof(buf)),
	       count_bits(kr->pass[best]), n);
	print_runs(kr->pass[best], n);
	printf(" )\n");
}

/* The most probes whose exported values agree on every knob (switches aside). */
static unsigned exports_identical(const struct knob_runs *kr, unsigned n)
{
	unsigned most = 0;

	for (unsigned r = 0; r < n; r++) {
		unsigned c = 0;

		for (unsigned q = 0; q < n; q++) {
			bool same = true;

			for (int k = 0; k < EXPORT_KNOBS; k++)
				same = same && !((kr[k].has >> r & 1) ^ (kr[k].has >> q & 1)) &&
				       (!(kr[k].has >> r & 1) ||
					kr[k].exported[r] == kr[k].exported[q]);
			c += same;
		}
		most = c > most ? c : most;
	}
	return most;
}

/* --bar: a ratio in [0, 1), the whole argument; a refusal is said here. */
static int parse_bar(const char *arg, double *bar)
{
	char *end;

	*bar = strtod(arg, &end);
	if (end != arg && !*end && *bar >= 0 && *bar < 1)
		return 0;
	fprintf(stderr, "bench_stability: --bar %s: not a ratio in [0, 1)\n", arg);
	return -EINVAL;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "bar", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct knob_runs kr[EXPORT_KNOBS];
	struct policy *p[ORACLE_MAX_RUNS] = { NULL };
	const uint32_t *pass[EXPORT_KNOBS];
	unsigned npick[EXPORT_KNOBS], ncells = 0, n;
	double bar = ORACLE_KNOB_BAR_FLOOR;
	char err[512];
	uint32_t bound;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (parse_bar(optarg, &bar))
				return 2;
			break;
		default:
			return bench_usage_exit(c, usage);
		}
	}
	if (argc - optind < 2 || argc - optind > ORACLE_MAX_RUNS) {
		fprintf(stderr, "bench_stability: %d policies: it takes 2 to %d\n", argc - optind,
			ORACLE_MAX_RUNS);
		return 2;
	}
	n = (unsigned)(argc - optind);
	for (unsigned r = 0; r < n; r++) {
		p[r] = policy_load(argv[optind + r], err, sizeof(err));
		if (!p[r]) {
			fprintf(stderr, "bench_stability: %s\n", err);
			rc = 2;
			goto out;
		}
		/* each as the consumer takes it */
		for (int k = 0; k < EXPORT_KNOBS; k++) {
			uint64_t *t = &kr[k].exported[r], least = export_knob_least(p[r], k);

			if (export_knob_value(p[r], k, t))
				continue;
			*t = *t > least ? *t : least;
			kr[k].has |= 1u << r;
		}
	}
	printf("%u probes; a value passes a probe within max(%.3f, the export's margin)\n"
	       "of the least worst-size loss there\n", n, bar);
	for (int k = 0; k < EXPORT_KNOBS; k++) {
		collect_values(p, n, k, &kr[k]);
		if (score_knob(p, n, k, bar, &kr[k]))
			continue;
		print_knob(k, &kr[k], n);
		pass[ncells] = kr[k].pass;
		npick[ncells++] = kr[k].nvalues;
	}
	bound = oracle_best_fixed_runs(pass, npick, ncells, n);
	printf("knob values identical: %u/%u\n", exports_identical(kr, n), n);
	printf("one fixed value per knob passes at most: %u/%u (", count_bits(bound), n);
	print_runs(bound, n);
	printf(" )\n");
out:
	for (unsigned r = 0; r < n; r++)
		policy_free(p[r]);
	return rc;
}
