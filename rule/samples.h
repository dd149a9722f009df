/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The statistics of a cell's samples (pmem-tune --keep-samples): its
 * summary recomputed from them, and curves paired round by round.
 */
#ifndef PMEM_RULE_SAMPLES_H
#define PMEM_RULE_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

struct sample_summary;

/*
 * policy_op_summarize_raw() recomputes median, p10, p90, the 95 %
 * interval and samples of every cell that has raw samples from them:
 * they, not the summaries next to them, are what --decide believes.
 * moved (may be NULL) counts the cells whose median changed by more
 * than the file's rounding and names the first.
 */
struct policy_raw_moved {
	size_t count;
	const struct policy_curve *first;	/* its curve, NULL when count is 0 */
	size_t first_idx;
	double first_was_mib_s;			/* the median before */
};
int policy_op_summarize_raw(struct policy_op *op, struct policy_raw_moved *moved);

/*
 * A policy file holds throughputs to 0.1 MiB/s.  The probe keeps its
 * samples and its cells' summaries at that precision from the start
 * (policy_mib_s_as_saved(), policy_curve_set_summary()), so that every
 * decision it makes is made from the numbers its file holds and
 * --decide of that file, with or without the samples, decides the same
 * to the last digit.  policy_curve_set_summary() writes cell idx's
 * median, p10, p90 and 95 % interval (MiB/s) from s; not samples[].
 */
void policy_curve_set_summary(struct policy_curve *c, size_t idx,
			      const struct sample_summary *s);
/*
 * Curve a against curve b at size i of op, round by round: the median of
 * the rounds' ratios a/b and its 95 % interval, from the rounds both
 * took.  -ENODATA where their samples were not taken in the same rounds
 * (several threads, no raw samples, remeasured on one side only) or are
 * too few for a 95 % interval (under STATS_CI_MIN_SAMPLES, rule/stats.h);
 * -EINVAL, -ENOMEM.
 */
int policy_paired_ratio(const struct policy_op *op, size_t a, size_t b, size_t i,
			double *median, double *ci_lo, double *ci_hi);
/*
 * The paired test's win, as the benchmarks count it (the rule itself
 * compares unpaired intervals): policy_paired_ratio()'s median ahead by
 * the margin, with its 95 % interval above 1.
 */
static inline bool policy_paired_win(double median, double ci_lo, double margin)
{
	return median >= 1 + margin && ci_lo > 1;
}
#endif
