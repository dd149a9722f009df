// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tune --decide: ranges, crossovers and exports recomputed from the
 * curves of a policy, with no measuring, so that the decision rule can
 * be replayed on recordings of any machine.  Where the probe kept its raw
 * samples, the cells' summaries are recomputed from them first.
 * Deterministic: the same input gives the same bytes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "policy/policy.h"
#include "rule/crossover.h"
#include "rule/export.h"
#include "rule/samples.h"

/* The single policy of path, or NULL after saying why on stderr. */
static struct policy *load_one(const char *what, const char *path, unsigned flags)
{
	struct policy_bundle *b = policy_file_load(path, flags);
	struct policy *p;

	if (!b)
		return NULL;
	if (b->n != 1) {
		fprintf(stderr, "pmem-tune: %s %s: a bundle of %zu entries, not one policy\n",
			what, path, b->n);
		policy_bundle_free(b);
		return NULL;
	}
	p = b->entries[0];
	b->entries[0] = NULL;
	b->n = 0;
	policy_bundle_free(b);
	return p;
}

/*
 * Cells with raw samples (--keep-samples) are summarised again from them.
 * A median that moves by more than the file's rounding was edited, or
 * written by another tool: said once, with the first such cell.
 */
static int summarize_raw(struct policy *p, const char *in)
{
	for (size_t t = 0; t < p->ntargets; t++)
		for (size_t o = 0; o < p->targets[t].nops; o++) {
			struct policy_op *op = &p->targets[t].ops[o];
			struct policy_raw_moved m = { 0 };
			int rc = policy_op_summarize_raw(op, &m);

			if (rc)
				return rc;
			if (!m.count)
				continue;
			fprintf(stderr, "pmem-tune: --decide %s: target %s, %s %s %u thread%s: %zu "
				"median%s differ from their raw samples, first %s at %" PRIu64
				" B (%.1f in the file, %.1f from the samples); "
				"the samples decide\n",
				in, p->targets[t].name, op->op, op->pattern, op->threads,
				op->threads == 1 ? "" : "s", m.count, m.count == 1 ? "" : "s",
				m.first->strategy, op->sizes_bytes[m.first_idx], m.first_was_mib_s,
				m.first->median_mib_s[m.first_idx]);
		}
	return 0;
}

int decide_cmd(const char *in, const char *out, const char *baseline, const char *weights,
	       unsigned flags)
{
	struct export_weights w = { 0 };
	struct policy *p = NULL, *base = NULL;
	char err[512];
	int rc, status = 2;

	if (weights && export_weights_load(weights, &w, err, sizeof(err))) {
		fprintf(stderr, "pmem-tune: --weights: %s\n", err);
		return 2;
	}
	p = load_one("--decide", in, flags);
	if (!p)
		goto out;
	if (baseline) {
		base = load_one("--baseline", baseline, flags);
		if (!base)
			goto out;
	}
	status = 1;
	rc = summarize_raw(p, in);
	if (!rc)
		rc = crossover_decide_policy(p, base);
	if (!rc)
		rc = export_compute_with_baseline(p, weights ? &w : NULL, base);
	if (rc) {
		fprintf(stderr, "pmem-tune: --decide %s: %s\n", in, strerror(-rc));
		goto out;
	}
	if (out) {
		rc = policy_save(p, out, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "pmem-tune: %s: cannot write the policy: %s\n", out, err);
			goto out;
		}
	} else {
		char *s = policy_to_string(p);

		if (!s)
			goto out;
		fputs(s, stdout);
		free(s);
	}
	status = 0;
out:
	export_weights_free(&w);
	policy_free(base);
	policy_free(p);
	return status;
}
