// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The exported PMEM_MOVNT_THRESHOLD against the best single value, at its
 * worst size, on the AMD Zen 4 recordings (tests/data/amd-zen4-kvm/), where
 * streaming stores win at every size and PMDK's default 256 leaves 40 % at
 * 64-192 B.  Scored here from the cells themselves, not through the export
 * rule: PMDK with threshold T copies with the cached family's default
 * member below T and the streaming family's at and above it; its loss at
 * a size is 1 - that cell's median / the best believed median there; its
 * worst-size loss the largest over the one-thread ops' sizes.  The export
 * must lose at its worst size no more than max(0.03, the ops' margin) more
 * than the value (0, a measured size, never) that loses least there.
 *
 * Usage: test_export_worst DATA_DIR
 */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "policy/policy.h"
#include "rule/crossover.h"
#include "rule/export.h"
#include "rule/samples.h"
#include "rule/strategy_class.h"

#define SLACK_FLOOR 0.03

static double cell(const struct policy_op *op, int c, size_t i)
{
	if (c < 0 || !op->curves[c].samples[i] || crossover_cell_suspect(op, (size_t)c, i))
		return NAN;
	return op->curves[c].median_mib_s[i];
}

/* PMDK at threshold t over the one-thread ops of the first target: its worst-size loss. */
static double pmdk_worst(const struct policy_target *t, uint64_t thr, uint64_t *at)
{
	double worst = 0;

	for (size_t o = 0; o < t->nops; o++) {
		const struct policy_op *op = &t->ops[o];
		int cached = crossover_family_default(op, POLICY_FAMILY_CACHED_FLUSH);
		int nt = crossover_family_default(op, POLICY_FAMILY_STREAMING);

		if (op->threads != 1)
			continue;
		for (size_t i = 0; i < op->nsizes; i++) {
			double v = cell(op, op->sizes_bytes[i] < thr ? cached : nt, i), best = 0;

			for (size_t c = 0; c < op->ncurves; c++) {
				double x = cell(op, (int)c, i);

				if (!op->curves[c].reference_only && x > best)
					best = x;
			}
			if (isnan(v) || best <= 0 || 1 - v / best <= worst)
				continue;
			worst = 1 - v / best;
			*at = op->sizes_bytes[i];
		}
	}
	return worst;
}

static void check_file(const char *path)
{
	char err[512];
	struct policy *p = policy_load(path, err, sizeof(err));
	const struct policy_export *e;
	struct policy_target *t;
	uint64_t thr = 256, at = 0, best_at = 0, best_thr = 0;
	double margin = 0, worst, best = INFINITY;

	CHECK_MSG(p != NULL, "%s: %s", path, err);
	if (!p)
		return;
	t = &p->targets[0];
	for (size_t o = 0; o < t->nops; o++) {
		struct policy_raw_moved m = { 0 };

		CHECK_INT(policy_op_summarize_raw(&t->ops[o], &m), 0);
	}
	CHECK_INT(crossover_decide_policy(p, NULL), 0);
	CHECK_INT(export_compute(p, NULL), 0);
	e = &p->exports.libpmem;
	CHECK_MSG(e->present, "%s: no libpmem export", path);
	/* the members PMDK runs are the families' defaults: no feature switch */
	CHECK_MSG(e->nkv == 1, "%s: %zu libpmem variables", path, e->nkv);
	for (size_t i = 0; i < e->nkv; i++) {
		if (!strcmp(e->kv[i].key, "PMEM_MOVNT_THRESHOLD"))
			thr = strtoull(e->kv[i].value, NULL, 10);
		else if (!strcmp(e->kv[i].key, "PMEM_NO_MOVNT"))
			thr = POLICY_SIZE_OPEN;
	}
	for (size_t o = 0; o < t->nops; o++)
		if (t->ops[o].threads == 1 && t->ops[o].margin > margin)
			margin = t->ops[o].margin;
	/* every single value: 0, each measured size, never */
	for (size_t o = 0; o < t->nops; o++)
		for (size_t i = 0; i <= t->ops[o].nsizes + 1; i++) {
			uint64_t c = i == 0 ? 0 : i <= t->ops[o].nsizes ?
				     t->ops[o].sizes_bytes[i - 1] : POLICY_SIZE_OPEN;
			uint64_t a = 0;
			double w = pmdk_worst(t, c, &a);

			if (w < best) {
				best = w;
				best_thr = c;
				best_at = a;
			}
		}
	worst = pmdk_worst(t, thr, &at);
	CHECK_MSG(worst <= best + fmax(SLACK_FLOOR, margin),
		  "%s: PMEM_MOVNT_THRESHOLD=%" PRIu64 " loses %.3f at %" PRIu64 " B; %" PRIu64
		  " loses %.3f at its worst (%" PRIu64 " B), margin %.3f", path, thr, worst, at,
		  best_thr, best, best_at, margin);
	printf("%s: PMEM_MOVNT_THRESHOLD=%" PRIu64 " worst %.3f at %" PRIu64 " B; best %" PRIu64
	       " worst %.3f\n", path, thr, worst, at, best_thr, best);
	policy_free(p);
}

int main(int argc, char **argv)
{
	char dir[512], path[1024];
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	if (argc != 2) {
		fprintf(stderr, "usage: test_export_worst DATA_DIR\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/amd-zen4-kvm", argv[1]);
	d = opendir(dir);
	CHECK_MSG(d != NULL, "%s: cannot open", dir);
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l < 5 || strcmp(de->d_name + l - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		check_file(path);
		n++;
	}
	if (d)
		closedir(d);
	CHECK_MSG(n >= 12, "%u recordings under %s", n, dir);
	return check_report("test_export_worst");
}
