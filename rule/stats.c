// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Distribution-free summaries: quantiles by linear interpolation and the
 * median's confidence interval from order statistics, which holds for
 * any continuous distribution (throughput samples are skewed and have
 * long tails, so a mean +- t*sd interval would be wrong).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "rule/stats.h"

/* two-sided 95 %: Phi^-1(0.975) */
#define Z975 1.959963984540054

/* Total order with NaN last, so that qsort() stays well defined. */
static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

double stats_quantile_sorted(const double *v, size_t n, double q)
{
	double h, frac;
	size_t i;

	if (!v || n == 0 || isnan(q))
		return NAN;
	if (q <= 0)
		return v[0];
	if (q >= 1)
		return v[n - 1];
	/* Hyndman & Fan type 7 (R's default): h = (n - 1) q */
	h = q * (double)(n - 1);
	i = (size_t)h;
	if (i >= n - 1)
		return v[n - 1];
	frac = h - (double)i;
	if (frac == 0)
		return v[i];
	return v[i] + frac * (v[i + 1] - v[i]);
}

int stats_median_ci_ranks(size_t n, size_t *lo_rank, size_t *hi_rank)
{
	size_t j = 0;

	if (n == 0)
		return -EINVAL;

	if (n <= STATS_CI_EXACT_MAX) {
		/*
		 * The interval [X(j), X(n+1-j)] misses the median when at
		 * most j-1 samples fall below it (or symmetrically above):
		 * coverage = 1 - 2 F(j-1), F the binomial(n, 1/2) CDF.  Take
		 * the largest j with F(j-1) <= 0.025.  2^-n stays a normal
		 * double up to n = 1022 and F never comes closer to 0.025
		 * than 1e-4 relative for n <= 1000, so doubles are exact
		 * enough here.
		 */
		double pmf = ldexp(1.0, -(int)n), cdf = 0;

		for (size_t x = 0; x < n; x++) {
			cdf += pmf;
			if (cdf > 0.025)
				break;
			j = x + 1;
			pmf = pmf * (double)(n - x) / (double)(x + 1);
		}
	} else {
		/*
		 * Normal approximation with continuity correction:
		 * F(j-1) ~ Phi((j - 1/2 - n/2) / (sqrt(n)/2)) <= 0.025.  Where
		 * it differs from the exact rank it is one lower (wider).
		 */
		double jf = floor((double)n / 2 + 0.5 - Z975 / 2 * sqrt((double)n));

		j = jf < 1 ? 0 : (size_t)jf;
	}

	if (j < 1) {
		/* n < STATS_CI_MIN_SAMPLES: even the full range covers less than 95 % */
		*lo_rank = 1;
		*hi_rank = n;
	} else {
		*lo_rank = j;
		*hi_rank = n + 1 - j;
	}
	return 0;
}

int stats_summarize(double *v, size_t n, struct sample_summary *out)
{
	size_t j, k;

	if (!v || !out || n == 0)
		return -EINVAL;

	qsort(v, n, sizeof(*v), cmp_double);
	out->n = n > UINT_MAX ? UINT_MAX : (unsigned)n;
	out->median = stats_quantile_sorted(v, n, 0.5);
	out->p10 = stats_quantile_sorted(v, n, 0.10);
	out->p90 = stats_quantile_sorted(v, n, 0.90);
	stats_median_ci_ranks(n, &j, &k);
	out->ci_lo = v[j - 1];
	out->ci_hi = v[k - 1];
	return 0;
}

int stats_summarize_log_ratios(const double *a, const double *b, size_t n,
			       struct sample_summary *out)
{
	double *lr;
	int rc;

	if (!a || !b || !out || !n)
		return -EINVAL;
	lr = malloc(n * sizeof(*lr));
	if (!lr)
		return -ENOMEM;
	for (size_t j = 0; j < n; j++) {
		if (!(a[j] > 0 && b[j] > 0 && isfinite(a[j]) && isfinite(b[j]))) {
			free(lr);
			return -EINVAL;
		}
		lr[j] = log(a[j] / b[j]);
	}
	rc = stats_summarize(lr, n, out);
	free(lr);
	return rc;
}

double stats_ci_rel_width(const struct sample_summary *s)
{
	/*
	 * Below STATS_CI_MIN_SAMPLES the "interval" is the sample range, which is
	 * not a 95 % interval: report it as unknown so that a
	 * repeat-until-tight loop never stops on a few equal samples.
	 */
	if (!s || s->n < STATS_CI_MIN_SAMPLES || !isfinite(s->median) || s->median <= 0 ||
	    !isfinite(s->ci_lo) || !isfinite(s->ci_hi))
		return INFINITY;
	return (s->ci_hi - s->ci_lo) / s->median;
}

double stats_norm_cdf(double z)
{
	/* erfc keeps full relative precision in the lower tail */
	return 0.5 * erfc(-z / M_SQRT2);
}

/* Standard error of a median from its 95 % interval; NAN if unknown. */
static double median_se(double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		return NAN;
	return fabs(hi - lo) / 2 / Z975;
}

double stats_prob_greater(double a_median, double a_lo, double a_hi,
			  double b_median, double b_lo, double b_hi)
{
	double d = a_median - b_median;
	double sa = median_se(a_lo, a_hi), sb = median_se(b_lo, b_hi);
	double s;

	/* no median, or no idea of the spread: no information either way */
	if (isnan(d) || isnan(sa) || isnan(sb))
		return 0.5;
	s = hypot(sa, sb);
	if (s == 0)
		return d > 0 ? 1.0 : d < 0 ? 0.0 : 0.5;
	if (isinf(s))
		return isinf(d) ? (d > 0 ? 1.0 : 0.0) : 0.5;
	return stats_norm_cdf(d / s);
}
