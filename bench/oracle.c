// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The benchmarks' oracles.  The maximum of many noisy medians sits above
 * what any rule can reach, so a choice is scored on measurements it was
 * not made from: within a sweep by its halves, across sweeps by the runs.
 */
#include <math.h>
#include <stdbool.h>

#include "oracle.h"

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
