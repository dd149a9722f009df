// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A cell's summary from its samples, and two curves' samples paired round
 * by round: what a replay recomputes from what was measured.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rule/samples.h"
#include "rule/stats.h"

void policy_curve_set_summary(struct policy_curve *c, size_t idx, const struct sample_summary *s)
{
	assert(c && s);

	c->median_mib_s[idx] = policy_mib_s_as_saved(s->median);
	c->p10_mib_s[idx] = policy_mib_s_as_saved(s->p10);
	c->p90_mib_s[idx] = policy_mib_s_as_saved(s->p90);
	c->ci_lo_mib_s[idx] = policy_mib_s_as_saved(s->ci_lo);
	c->ci_hi_mib_s[idx] = policy_mib_s_as_saved(s->ci_hi);
}

int policy_op_summarize_raw(struct policy_op *op, struct policy_raw_moved *moved)
{
	assert(op);

	for (size_t c = 0; c < op->ncurves; c++) {
		struct policy_curve *cv = &op->curves[c];

		for (size_t i = 0; cv->raw_mib_s && i < op->nsizes; i++) {
			unsigned n = cv->samples[i];
			struct sample_summary s;
			double *v, was = cv->median_mib_s[i];

			if (!cv->raw_mib_s[i] || !n)
				continue;
			/* stats_summarize() sorts: the raw order is what pairs rounds */
			v = malloc(n * sizeof(*v));
			if (!v)
				return -ENOMEM;
			memcpy(v, cv->raw_mib_s[i], n * sizeof(*v));
			stats_summarize(v, n, &s);
			free(v);
			policy_curve_set_summary(cv, i, &s);
			/* equal where this probe wrote the file, within a step in an older one */
			if (!moved || (!isnan(was) && fabs(was - cv->median_mib_s[i]) <=
					POLICY_SAVED_MIB_S_STEP + 1e-9))
				continue;
			if (!moved->count++) {
				moved->first = cv;
				moved->first_idx = i;
				moved->first_was_mib_s = was;
			}
		}
	}
	return 0;
}

int policy_paired_ratio(const struct policy_op *op, size_t a, size_t b, size_t i,
			double *median, double *ci_lo, double *ci_hi)
{
	const struct policy_curve *ca, *cb;
	struct sample_summary s;
	unsigned n;
	int rc;

	assert(op && median && ci_lo && ci_hi);
	if (a >= op->ncurves || b >= op->ncurves || i >= op->nsizes)
		return -EINVAL;
	ca = &op->curves[a];
	cb = &op->curves[b];
	if (op->threads != 1 || !ca->raw_mib_s || !cb->raw_mib_s || !ca->raw_mib_s[i] ||
	    !cb->raw_mib_s[i] || ((ca->cell_flags[i] ^ cb->cell_flags[i]) & POLICY_CELL_REMEASURED))
		return -ENODATA;
	n = ca->samples[i] < cb->samples[i] ? ca->samples[i] : cb->samples[i];
	if (n < STATS_CI_MIN_SAMPLES)
		return -ENODATA;
	rc = stats_summarize_log_ratios(ca->raw_mib_s[i], cb->raw_mib_s[i], n, &s);
	if (rc)
		return rc;
	*median = exp(s.median);
	*ci_lo = exp(s.ci_lo);
	*ci_hi = exp(s.ci_hi);
	return 0;
}
