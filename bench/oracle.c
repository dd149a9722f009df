// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The benchmarks' oracles.  The maximum of many noisy medians sits above
 * what any rule can reach, so a choice is scored on measurements it was
 * not made from: within a sweep by its halves, across sweeps by the runs.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "bench/oracle.h"

double oracle_cross_validated(const double *h0, const double *h1, unsigned first, unsigned n)
{
	const double *h[2] = { h0, h1 };
	double sum = 0;
	unsigned k = 0;

	for (int a = 0; a < 2; a++) {
		int best = -1;

		for (unsigned j = first; j < first + n; j++)
			if (!isnan(h[a][j]) && (best < 0 || h[a][j] > h[a][best]))
				best = (int)j;
		if (best >= 0 && !isnan(h[1 - a][best])) {
			sum += h[1 - a][best];
			k++;
		}
	}
	return k ? sum / k : NAN;
}

static bool every_cell_passes(const uint32_t *const *pass, const unsigned *npick,
			      size_t ncells, uint32_t runs)
{
	for (size_t i = 0; i < ncells; i++) {
		bool any = false;

		for (unsigned j = 0; j < npick[i] && !any; j++)
			any = (pass[i][j] & runs) == runs;
		if (!any)
			return false;
	}
	return true;
}

/*
 * Every set of runs, exhaustively: 2^20 sets at most, and a set fails at
 * its first cell that no choice passes, so this takes well under a second.
 */
uint32_t oracle_best_fixed_runs(const uint32_t *const *pass, const unsigned *npick,
				size_t ncells, unsigned nruns)
{
	uint32_t best = 0;
	int best_n = 0;

	if (!nruns || nruns > ORACLE_MAX_RUNS)
		return 0;
	for (uint32_t runs = 1; runs < (1u << nruns); runs++) {
		int n = __builtin_popcount(runs);

		if (n > best_n && every_cell_passes(pass, npick, ncells, runs)) {
			best = runs;
			best_n = n;
		}
	}
	return best;
}

unsigned oracle_probe_pick(const double *med, unsigned n, size_t nsizes, size_t i, size_t half)
{
	unsigned best = 0;
	double best_mean = -INFINITY;

	for (unsigned s = 0; s < n; s++) {
		double sum = 0;
		unsigned k = 0;

		for (size_t x = i > half ? i - half : 0; x <= i + half && x < nsizes; x++) {
			double m = med[s * nsizes + x];

			if (m > 0) {	/* false for NAN */
				sum += log(m);
				k++;
			}
		}
		if (k && sum / k > best_mean) {
			best_mean = sum / k;
			best = s;
		}
	}
	return best;
}

void oracle_knob_score(const struct oracle_knob *k, uint64_t threshold_bytes,
		       struct oracle_knob_score *out)
{
	double logsum = 0;

	*out = (struct oracle_knob_score){ .threshold_bytes = threshold_bytes, .worst = NAN,
					   .mean = NAN, .worst_pair = NAN };
	for (size_t r = 0; r < k->nruns; r++)
		for (size_t x = 0; x < k->ncells; x++) {
			const double *side = k->sizes_bytes[x] < threshold_bytes ? k->low : k->high;
			double v = side[r * k->ncells + x];
			double lo = k->low[r * k->ncells + x], hi = k->high[r * k->ncells + x];

			if (!(v > 0))	/* NAN: not measured */
				continue;
			if (lo > 0 && hi > 0 && !(v / fmax(lo, hi) >= out->worst_pair))
				out->worst_pair = v / fmax(lo, hi);
			if (!out->n || v < out->worst) {
				out->worst = v;
				out->worst_cell = x;
				out->worst_run = r;
			}
			logsum += log(v);
			out->n++;
		}
	if (out->n)
		out->mean = exp(logsum / (double)out->n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int oracle_knob_best(const struct oracle_knob *k, struct oracle_knob_score *out)
{
	uint64_t *cand = malloc((k->ncells + 2) * sizeof(*cand));
	size_t nc = 0;
	bool any = false;

	if (!cand)
		return -ENOMEM;
	cand[nc++] = 0;
	cand[nc++] = ORACLE_KNOB_NEVER;
	for (size_t x = 0; x < k->ncells; x++)
		cand[nc++] = k->sizes_bytes[x];
	/* ascending, so that on a full tie the smallest stays */
	qsort(cand, nc, sizeof(*cand), cmp_u64);
	for (size_t c = 0; c < nc; c++) {
		struct oracle_knob_score s;

		if (c && cand[c] == cand[c - 1])
			continue;
		oracle_knob_score(k, cand[c], &s);
		if (!s.n)
			continue;
		if (!any || s.worst > out->worst || (s.worst == out->worst && s.mean > out->mean))
			*out = s;
		any = true;
	}
	free(cand);
	return any ? 0 : -ENOENT;
}
