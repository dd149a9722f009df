// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The samples behind a cell, kept as taken (pmem-tune --keep-samples), so
 * that a replay can recompute a cell's summary, or a statistic the probe
 * did not compute (a paired one, round by round), from what was measured.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/policy_internal.h"

double policy_mib_s_as_saved(double mib_s)
{
	/*
	 * Tenths (POLICY_SAVED_MIB_S_STEP): k / 10.0 is the double that "%.1f"
	 * prints as k/10 and strtod() reads back, so a file round-trips it.
	 */
	return isfinite(mib_s) ? round(mib_s * 10.0) / 10.0 : mib_s;
}

void policy_curve_release_raw(struct policy_curve *c, size_t nsizes)
{
	if (!c->raw_mib_s)
		return;
	for (size_t i = 0; i < nsizes; i++)
		free(c->raw_mib_s[i]);
	free(c->raw_mib_s);
	c->raw_mib_s = NULL;
}

int policy_curve_set_raw(struct policy_curve *c, size_t nsizes, size_t idx,
			 const double *v_mib_s, unsigned n)
{
	double *copy = NULL;

	assert(c && c->samples && (v_mib_s || !n));
	if (idx >= nsizes)
		return -EINVAL;
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, v_mib_s, n * sizeof(*copy));
	}
	if (!c->raw_mib_s) {
		if (!n)
			return 0;
		c->raw_mib_s = calloc(nsizes, sizeof(*c->raw_mib_s));
		if (!c->raw_mib_s) {
			free(copy);
			return -ENOMEM;
		}
	}
	free(c->raw_mib_s[idx]);
	c->raw_mib_s[idx] = copy;
	/* the writer and the paired test read samples[idx] of them */
	if (n)
		c->samples[idx] = n;
	for (size_t i = 0; i < nsizes; i++)
		if (c->raw_mib_s[i])
			return 0;
	policy_curve_release_raw(c, nsizes);
	return 0;
}

bool policy_drop_raw(struct policy *p)
{
	bool had = false;

	for (size_t t = 0; t < p->ntargets; t++)
		for (size_t o = 0; o < p->targets[t].nops; o++) {
			struct policy_op *op = &p->targets[t].ops[o];

			had |= policy_op_has_raw(op);
			for (size_t i = 0; i < op->ncurves; i++)
				policy_curve_release_raw(&op->curves[i], op->nsizes);
		}
	return had;
}

bool policy_op_has_raw(const struct policy_op *op)
{
	for (size_t i = 0; i < op->ncurves; i++)
		if (op->curves[i].raw_mib_s)
			return true;
	return false;
}

size_t policy_op_unpair_earlier_looks(struct policy_op *op, size_t i,
				      const struct policy_curve *const *fresh, size_t n)
{
	size_t dropped = 0;

	for (size_t c = 0; i < op->nsizes && c < op->ncurves; c++) {
		struct policy_curve *cv = &op->curves[c];
		bool looked = false;

		for (size_t j = 0; j < n && !looked; j++)
			looked = fresh[j] == cv;
		if (looked || !cv->raw_mib_s || !cv->raw_mib_s[i] ||
		    !(cv->cell_flags[i] & POLICY_CELL_REMEASURED))
			continue;
		/* n == 0 frees, it cannot fail */
		policy_curve_set_raw(cv, op->nsizes, i, NULL, 0);
		dropped++;
	}
	return dropped;
}
