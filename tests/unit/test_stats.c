// SPDX-License-Identifier: GPL-2.0-or-later
/* stats.c: quantiles, order-statistic intervals, normal tail maths. */
#include <errno.h>
#include <math.h>

#include "check.h"
#include "rule/stats.h"

/* P(j <= X <= n-j) for X ~ binomial(n, 1/2): coverage of [X(j), X(n+1-j)]. */
static double coverage(size_t n, size_t j)
{
	double tail = 0;

	if (j == 0)
		return 1;
	for (size_t x = 0; x < j; x++)
		tail += exp(lgamma(n + 1.0) - lgamma(x + 1.0) - lgamma(n - x + 1.0) -
			    n * M_LN2);
	return 1 - 2 * tail;
}

static void test_ranks_table(void)
{
	/* Tabulated 95 % ranks (Conover, Practical Nonparametric Statistics) */
	static const struct { size_t n, j, k; } tab[] = {
		{ 6, 1, 6 }, { 7, 1, 7 }, { 8, 1, 8 }, { 9, 2, 8 },
		{ 10, 2, 9 }, { 11, 2, 10 }, { 12, 3, 10 }, { 15, 4, 12 },
		{ 20, 6, 15 }, { 25, 8, 18 }, { 30, 10, 21 }, { 50, 18, 33 },
		{ 100, 40, 61 }, { 200, 86, 115 }, { 1000, 469, 532 },
	};
	size_t j, k;

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		CHECK_INT(stats_median_ci_ranks(tab[i].n, &j, &k), 0);
		CHECK_MSG(j == tab[i].j && k == tab[i].k, "n=%zu: ranks %zu,%zu want %zu,%zu",
			  tab[i].n, j, k, tab[i].j, tab[i].k);
	}
	/* below 6 samples no interval reaches 95 %: the full range */
	for (size_t n = 1; n < 6; n++) {
		CHECK_INT(stats_median_ci_ranks(n, &j, &k), 0);
		CHECK_INT(j, 1);
		CHECK_INT(k, n);
	}
	CHECK_INT(stats_median_ci_ranks(0, &j, &k), -EINVAL);
}

static void test_ranks_coverage(void)
{
	size_t j, k, bad = 0;

	/* exact region: the narrowest symmetric pair that still covers 95 % */
	for (size_t n = 6; n <= STATS_CI_EXACT_MAX; n++) {
		stats_median_ci_ranks(n, &j, &k);
		if (k != n + 1 - j || coverage(n, j) < 0.95 || coverage(n, j + 1) >= 0.95) {
			bad++;
			fprintf(stderr, "exact n=%zu j=%zu cov %g / %g\n", n, j,
				coverage(n, j), coverage(n, j + 1));
		}
	}
	CHECK_INT(bad, 0);

	/* normal approximation: still covers, at most one rank wider */
	bad = 0;
	for (size_t n = STATS_CI_EXACT_MAX + 1; n <= 4000; n += 7) {
		stats_median_ci_ranks(n, &j, &k);
		if (k != n + 1 - j || coverage(n, j) < 0.95 || coverage(n, j + 2) >= 0.95) {
			bad++;
			fprintf(stderr, "approx n=%zu j=%zu\n", n, j);
		}
	}
	CHECK_INT(bad, 0);
	/* known values: exact 470 at n = 1001, the approximation one wider */
	stats_median_ci_ranks(1001, &j, &k);
	CHECK_INT(j, 469);
	CHECK_INT(k, 533);
	stats_median_ci_ranks(10000, &j, &k);
	CHECK_INT(j, 4902);
	CHECK_INT(k, 5099);
}

static void test_summarize(void)
{
	double v[20];
	struct sample_summary s;
	static const double shuffled[10] = { 7, 3, 10, 1, 9, 2, 8, 5, 4, 6 };

	for (int i = 0; i < 10; i++)
		v[i] = shuffled[i];
	CHECK_INT(stats_summarize(v, 10, &s), 0);
	CHECK_INT(s.n, 10);
	CHECK_NEAR(s.median, 5.5, 1e-12);
	CHECK_NEAR(s.p10, 1.9, 1e-12);
	CHECK_NEAR(s.p90, 9.1, 1e-12);
	CHECK_NEAR(s.ci_lo, 2, 0);
	CHECK_NEAR(s.ci_hi, 9, 0);
	/* sorted in place */
	for (int i = 0; i < 10; i++)
		CHECK_NEAR(v[i], i + 1, 0);

	for (int i = 0; i < 20; i++)
		v[i] = 100 - 5 * i;	/* 5, 10, ..., 100 descending */
	CHECK_INT(stats_summarize(v, 20, &s), 0);
	CHECK_NEAR(s.median, 52.5, 1e-12);
	CHECK_NEAR(s.ci_lo, 30, 0);	/* rank 6 */
	CHECK_NEAR(s.ci_hi, 75, 0);	/* rank 15 */
	CHECK_NEAR(stats_ci_rel_width(&s), 45 / 52.5, 1e-12);

	/* odd n: the middle sample */
	for (int i = 0; i < 7; i++)
		v[i] = (i * 3) % 7;	/* 0 3 6 2 5 1 4 */
	CHECK_INT(stats_summarize(v, 7, &s), 0);
	CHECK_NEAR(s.median, 3, 0);
	CHECK_NEAR(s.ci_lo, 0, 0);
	CHECK_NEAR(s.ci_hi, 6, 0);

	/* n < 6: full range, and the relative width is unknown */
	v[0] = 40; v[1] = 10; v[2] = 30; v[3] = 20; v[4] = 50;
	CHECK_INT(stats_summarize(v, 5, &s), 0);
	CHECK_NEAR(s.median, 30, 0);
	CHECK_NEAR(s.ci_lo, 10, 0);
	CHECK_NEAR(s.ci_hi, 50, 0);
	CHECK(isinf(stats_ci_rel_width(&s)));

	v[0] = 7;
	CHECK_INT(stats_summarize(v, 1, &s), 0);
	CHECK_NEAR(s.median, 7, 0);
	CHECK_NEAR(s.p10, 7, 0);
	CHECK_NEAR(s.ci_lo, 7, 0);
	CHECK_NEAR(s.ci_hi, 7, 0);

	/* equal samples: zero width */
	for (int i = 0; i < 12; i++)
		v[i] = 3;
	CHECK_INT(stats_summarize(v, 12, &s), 0);
	CHECK_NEAR(stats_ci_rel_width(&s), 0, 0);

	CHECK_INT(stats_summarize(v, 0, &s), -EINVAL);
	CHECK_INT(stats_summarize(NULL, 3, &s), -EINVAL);

	s.n = 10;
	s.median = 0;
	s.ci_lo = 0;
	s.ci_hi = 1;
	CHECK(isinf(stats_ci_rel_width(&s)));
	s.median = NAN;
	CHECK(isinf(stats_ci_rel_width(&s)));
	CHECK(isinf(stats_ci_rel_width(NULL)));
}

static void test_quantile(void)
{
	static const double v[5] = { 10, 20, 30, 40, 50 };

	CHECK_NEAR(stats_quantile_sorted(v, 5, 0), 10, 0);
	CHECK_NEAR(stats_quantile_sorted(v, 5, 1), 50, 0);
	CHECK_NEAR(stats_quantile_sorted(v, 5, 0.5), 30, 0);
	CHECK_NEAR(stats_quantile_sorted(v, 5, 0.25), 20, 1e-12);
	CHECK_NEAR(stats_quantile_sorted(v, 5, 0.3), 22, 1e-12);
	CHECK_NEAR(stats_quantile_sorted(v, 5, 0.9), 46, 1e-12);
	CHECK_NEAR(stats_quantile_sorted(v, 5, -1), 10, 0);
	CHECK_NEAR(stats_quantile_sorted(v, 5, 2), 50, 0);
	CHECK_NEAR(stats_quantile_sorted(v, 1, 0.7), 10, 0);
	CHECK_NEAR(stats_quantile_sorted(v, 2, 0.5), 15, 1e-12);
	CHECK(isnan(stats_quantile_sorted(v, 0, 0.5)));
	CHECK(isnan(stats_quantile_sorted(v, 5, NAN)));
}

static void test_norm_cdf(void)
{
	CHECK_NEAR(stats_norm_cdf(0), 0.5, 1e-15);
	CHECK_NEAR(stats_norm_cdf(1), 0.8413447460685429, 1e-14);
	CHECK_NEAR(stats_norm_cdf(-1), 0.15865525393145707, 1e-14);
	CHECK_NEAR(stats_norm_cdf(1.959963984540054), 0.975, 1e-12);
	CHECK_NEAR(stats_norm_cdf(-1.959963984540054), 0.025, 1e-12);
	/* the lower tail keeps relative precision (erfc, not 1 - erf) */
	CHECK_NEAR(stats_norm_cdf(-8) / 6.22096057427178e-16, 1, 1e-9);
	CHECK_NEAR(stats_norm_cdf(40), 1, 0);
	CHECK_NEAR(stats_norm_cdf(-40), 0, 1e-300);
	CHECK_NEAR(stats_norm_cdf(INFINITY), 1, 0);
	CHECK_NEAR(stats_norm_cdf(-INFINITY), 0, 0);
}

static void test_prob_greater(void)
{
	double p, q;

	/* equal medians */
	CHECK_NEAR(stats_prob_greater(100, 90, 110, 100, 80, 120), 0.5, 1e-15);
	/* se = 10/1.96 each: z = 10 / (sqrt(2) * 10/1.96) = 1.96/sqrt(2) */
	p = stats_prob_greater(110, 100, 120, 100, 90, 110);
	CHECK_NEAR(p, stats_norm_cdf(1.959963984540054 / M_SQRT2), 1e-12);
	CHECK_NEAR(p, 0.9171, 1e-4);
	q = stats_prob_greater(100, 90, 110, 110, 100, 120);
	CHECK_NEAR(p + q, 1, 1e-12);
	/* one side exact: z = 10 / (10/1.96) */
	CHECK_NEAR(stats_prob_greater(110, 110, 110, 100, 90, 110), 0.975, 1e-12);
	/* asymmetric interval: the half-width is half the whole interval */
	CHECK_NEAR(stats_prob_greater(110, 100, 140, 100, 100, 100),
		   stats_norm_cdf(10 / (20 / 1.959963984540054)), 1e-12);
	/* zero widths */
	CHECK_NEAR(stats_prob_greater(2, 2, 2, 1, 1, 1), 1, 0);
	CHECK_NEAR(stats_prob_greater(1, 1, 1, 2, 2, 2), 0, 0);
	CHECK_NEAR(stats_prob_greater(1, 1, 1, 1, 1, 1), 0.5, 0);
	/* far apart: saturates, still within [0, 1] */
	p = stats_prob_greater(1e6, 1e6 - 1, 1e6 + 1, 1, 0, 2);
	CHECK(p <= 1 && p > 0.999999);
	/* unknown: no information */
	CHECK_NEAR(stats_prob_greater(NAN, 1, 2, 1, 1, 2), 0.5, 0);
	CHECK_NEAR(stats_prob_greater(3, NAN, 4, 1, 1, 2), 0.5, 0);
	CHECK_NEAR(stats_prob_greater(3, 2, 4, 1, 1, INFINITY), 0.5, 0);
	/* more certainty, more probability */
	CHECK(stats_prob_greater(110, 105, 115, 100, 95, 105) >
	      stats_prob_greater(110, 90, 130, 100, 80, 120));
}

/*
 * Paired log ratios: a factor every round shares cancels, so a member 10 %
 * ahead in each round is 10 % ahead with no spread, although each side
 * alone spreads over 3x and their intervals overlap.
 */
static void test_log_ratios(void)
{
	static const double round_factor[9] = { 1000, 2900, 1400, 2100, 1800, 2500, 1200, 3000,
						1600 };
	double a[9], b[9], a2[9], b2[9];
	struct sample_summary s, sa, sb;

	for (int j = 0; j < 9; j++) {
		a[j] = a2[j] = 1.1 * round_factor[j];
		b[j] = b2[j] = round_factor[j];
	}
	CHECK_INT(stats_summarize_log_ratios(a, b, 9, &s), 0);
	CHECK_INT(s.n, 9);
	CHECK_NEAR(s.median, log(1.1), 1e-12);
	CHECK_NEAR(s.ci_lo, log(1.1), 1e-12);
	CHECK_NEAR(s.ci_hi, log(1.1), 1e-12);
	/* the inputs keep their order: it is what pairs the rounds */
	CHECK_NEAR(a[1], 1.1 * 2900, 1e-9);
	CHECK_NEAR(b[7], 3000, 0);
	/* each side on its own: intervals that overlap, no verdict */
	CHECK_INT(stats_summarize(a2, 9, &sa), 0);
	CHECK_INT(stats_summarize(b2, 9, &sb), 0);
	CHECK(sa.ci_lo < sb.ci_hi);
	/* two rounds where b was ahead: the median stays, the interval (ranks 2 and 8) widens */
	b[4] = 2.0 * round_factor[4];
	b[6] = 2.0 * round_factor[6];
	CHECK_INT(stats_summarize_log_ratios(a, b, 9, &s), 0);
	CHECK_NEAR(s.median, log(1.1), 1e-12);
	CHECK(s.ci_lo < log(1.1));
	/* what is not a throughput, or nothing */
	b[4] = 0;
	CHECK_INT(stats_summarize_log_ratios(a, b, 9, &s), -EINVAL);
	b[4] = NAN;
	CHECK_INT(stats_summarize_log_ratios(a, b, 9, &s), -EINVAL);
	CHECK_INT(stats_summarize_log_ratios(a, b, 0, &s), -EINVAL);
}

int main(void)
{
	test_ranks_table();
	test_ranks_coverage();
	test_summarize();
	test_quantile();
	test_norm_cdf();
	test_prob_greater();
	test_log_ratios();
	return check_report("test_stats");
}
