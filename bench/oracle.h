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

#endif
