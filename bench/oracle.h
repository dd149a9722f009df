/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The benchmarks' oracles: the best a fixed choice of strategy could have
 * done at one size of a held-out sweep, and over several sweeps.  Rates
 * are MiB/s; a NAN is a contender not measured.
 */
#ifndef PT_BENCH_ORACLE_H
#define PT_BENCH_ORACLE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The cross-validated oracle of one size: the best of h0[first..first+n)
 * scored by h1, and the best of h1 scored by h0, averaged (halves of the
 * same contenders, measured apart).  NAN when neither way can be formed.
 */
double oracle_cross_validated(const double *h0, const double *h1, unsigned first, unsigned n);

/* The most runs a bound can count (run sets are bit masks). */
#define ORACLE_MAX_RUNS 20

/*
 * Over several runs of the same sizes: cell i (a size of an op, in any
 * order) has npick[i] choices, and pass[i][j] is the set of runs (bit r)
 * in which choice j scored at least the bar there.  The largest set of
 * runs for which one choice per cell passes every cell in every run of
 * the set, i.e. the most runs any fixed per-size policy could pass at
 * every size; 0 if no run.  nruns <= ORACLE_MAX_RUNS.
 */
uint32_t oracle_best_fixed_runs(const uint32_t *const *pass, const unsigned *npick,
				size_t ncells, unsigned nruns);

/*
 * A rule that follows one probe with no margin: of n strategies, the one
 * whose medians med[s * nsizes + x] (MiB/s; NAN or <= 0: not measured or
 * not believed) have the highest geometric mean over sizes i - half ..
 * i + half that exist, each strategy over the sizes it has; the first on
 * a draw, and 0 where no strategy has any.
 */
unsigned oracle_probe_pick(const double *med, unsigned n, size_t nsizes, size_t i, size_t half);

/* A knob's value above every size: the low side everywhere. */
#define ORACLE_KNOB_NEVER UINT64_MAX
/*
 * A knob's value is as good as the best when within max(this, the
 * margin) of it at its worst size: the judge resolves no finer.
 */
#define ORACLE_KNOB_BAR_FLOOR 0.03

/*
 * A consumer's single knob, as the judge sees it: over ncells sizes
 * (sizes_bytes[x], in any order, repeats allowed) in nruns runs, the
 * ratio to run r's oracle of the strategy it runs below its threshold,
 * low[r * ncells + x], and of the one at and above it, high[...]; NAN
 * where not measured.
 */
struct oracle_knob {
	size_t ncells, nruns;
	const uint64_t *sizes_bytes;
	const double *low, *high;
};

/* A knob at one threshold over every run and size: NAN ratios do not count. */
struct oracle_knob_score {
	uint64_t threshold_bytes;
	double worst;		/* the least ratio, NAN where no cell counts */
	double mean;		/* the geometric mean of the ratios */
	/*
	 * the least ratio to the better of the two sides at the same size and
	 * run, where both were measured: what the value alone loses, 1 at best
	 */
	double worst_pair;
	size_t worst_cell, worst_run;
	size_t n;		/* the (run, size) pairs counted */
};

void oracle_knob_score(const struct oracle_knob *k, uint64_t threshold_bytes,
		       struct oracle_knob_score *out);
/*
 * The best single value in hindsight: of the candidates (0, each size,
 * ORACLE_KNOB_NEVER), the one of highest worst ratio, then highest mean,
 * then the smallest.  0, or -ENOENT where no cell counts at any.
 */
int oracle_knob_best(const struct oracle_knob *k, struct oracle_knob_score *out);

#endif
