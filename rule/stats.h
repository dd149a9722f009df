/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Distribution-free summaries of repeated throughput samples.  No
 * normality is assumed: timings on a shared machine have long tails.
 */
#ifndef PMEM_RULE_STATS_H
#define PMEM_RULE_STATS_H

#include <stddef.h>

struct sample_summary {
	unsigned n;
	double median;
	double p10, p90;
	/* 95 % confidence interval of the median, by order statistics */
	double ci_lo, ci_hi;
};

/*
 * Summarise v[0..n) (sorts v in place).  With fewer samples than a 95 %
 * order-statistic interval needs (n < 6) the interval is the full
 * range.  Returns 0, or -EINVAL for n == 0.
 */
int stats_summarize(double *v, size_t n, struct sample_summary *out);

/*
 * 1-based ranks (j, k) of the order statistics bounding the median's
 * 95 % interval for n samples: the narrowest symmetric pair with
 * P(X(j) <= median <= X(k)) >= 0.95, X ~ binomial(n, 1/2).  Exact up to
 * STATS_CI_EXACT_MAX samples, normal approximation (never narrower)
 * above.  Below STATS_CI_MIN_SAMPLES no pair reaches 95 %: returns
 * (1, n).  Returns 0, or -EINVAL for n == 0.
 */
#define STATS_CI_EXACT_MAX 1000
/* The fewest samples whose extremes bound the median at 95 %: 2 / 2^6 < 0.05. */
#define STATS_CI_MIN_SAMPLES 6
int stats_median_ci_ranks(size_t n, size_t *lo_rank, size_t *hi_rank);

/*
 * Width of the median's interval relative to the median; INFINITY if
 * unknown, which includes n < STATS_CI_MIN_SAMPLES (the range is not a
 * 95 % interval).
 */
double stats_ci_rel_width(const struct sample_summary *s);

/* Linear-interpolated quantile of sorted v[0..n), q in [0, 1]. */
double stats_quantile_sorted(const double *v, size_t n, double q);

/* Standard normal CDF. */
double stats_norm_cdf(double z);

/*
 * Probability that a's true median exceeds b's, from two medians and
 * their 95 % intervals (normal approximation of each median's error,
 * se = interval half-width / 1.96).  Zero widths give 1, 0 or 0.5 (equal
 * medians); a NAN median or bound (spread unknown) gives 0.5.
 */
double stats_prob_greater(double a_median, double a_lo, double a_hi,
			  double b_median, double b_lo, double b_hi);

/*
 * Summarise the paired log ratios ln(a[j] / b[j]), j < n, as
 * stats_summarize() does (median, p10, p90 and the median's 95 %
 * interval, all in natural-log units): for samples taken in turns, one of
 * each per round, where the ratio of a round cancels what that round's
 * neighbours did to both.  Returns 0, or -EINVAL when n is 0 or a value
 * is not a positive finite number, -ENOMEM.
 */
int stats_summarize_log_ratios(const double *a, const double *b, size_t n,
			       struct sample_summary *out);

#endif /* PMEM_RULE_STATS_H */
