// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tune --decide: ranges, crossovers and exports recomputed from the
 * curves of a policy, with no measuring, so that the decision rule can
 * be replayed on recordings of any machine.  Deterministic: the same
 * input gives the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "crossover.h"
#include "export.h"
#include "policy.h"

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
	rc = crossover_decide_policy(p, base);
	if (!rc)
		rc = export_compute_with_baseline(p, weights ? &w : NULL, base);
	if (rc) {
		fprintf(stderr, "pmem-tune: --decide %s: %s\n", in, strerror(-rc));
		goto out;
	}
	if (out) {
		rc = policy_save(p, out);
		if (rc) {
			fprintf(stderr, "pmem-tune: %s: cannot write the policy: %s\n", out,
				strerror(-rc));
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
