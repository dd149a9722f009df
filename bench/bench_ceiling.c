// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How close each strategy gets to the hardware: one sweep of the large
 * sizes (64 KiB and up) on a target, and each strategy's best median
 * against the non-temporal fill ceiling of the same run.  Prints
 * figures; never pass/fail.
 *
 * Usage: bench_ceiling [TARGET] [quick|standard|thorough]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/strategy.h"
#include "measure/sweep.h"
#include "measure/target.h"
#include "platform/cpu.h"
#include "policy/policy.h"

int main(int argc, char **argv)
{
	const char *spec = argc > 1 ? argv[1] : "dram";
	const char *mode = argc > 2 ? argv[2] : "standard";
	struct target_opts topts = { 0 };
	struct sweep_config cfg;
	struct policy *p = policy_new();
	struct policy_target *pt;
	struct cpu_info ci;
	struct target t;
	char err[512];
	int rc;

	if (!p || cpu_detect(&ci)) {
		fprintf(stderr, "bench_ceiling: cannot identify the CPU\n");
		return 1;
	}
	strategy_init(&ci);
	sweep_config_defaults(&cfg, !strcmp(mode, "quick") ? SWEEP_QUICK :
				    !strcmp(mode, "thorough") ? SWEEP_THOROUGH : SWEEP_STANDARD);
	topts.nthreads = cfg.nthreads;
	cfg.min_size_bytes = 64u << 10;
	cfg.refine_rounds = 0;
	if (target_open(spec, &topts, &t, err, sizeof(err))) {
		fprintf(stderr, "bench_ceiling: %s\n", err);
		return 1;
	}
	pt = policy_add_target(p, t.name);
	rc = sweep_run(&t, &ci, &cfg, pt);
	target_close(&t);
	if (rc) {
		fprintf(stderr, "bench_ceiling: sweep failed (%d)\n", rc);
		return 1;
	}
	printf("ceiling benchmark: %s on %s (%s), sizes 64 KiB..16 MiB, %s mode\n", t.name,
	       ci.brand, ci.vendor, mode);
	for (size_t o = 0; o < pt->nops; o++) {
		const struct policy_op *op = &pt->ops[o];
		double best = 0;
		const char *best_name = "-";

		printf("\n%s %s, %u thread%s: ceiling (non-temporal fill) %.0f MiB/s\n", op->op,
		       op->pattern, op->threads, op->threads == 1 ? "" : "s", op->ceiling_mib_s);
		printf("  %-15s %10s %8s %10s\n", "strategy", "best MiB/s", "/ceiling", "at size");
		for (size_t c = 0; c < op->ncurves; c++) {
			const struct policy_curve *cv = &op->curves[c];
			double v = 0;
			uint64_t at = 0;

			for (size_t i = 0; i < op->nsizes; i++)
				if (!isnan(cv->median_mib_s[i]) && cv->median_mib_s[i] > v) {
					v = cv->median_mib_s[i];
					at = op->sizes_bytes[i];
				}
			printf("  %-15s %10.0f %8.3f %9lluK%s\n", cv->strategy, v,
			       v / op->ceiling_mib_s, (unsigned long long)at >> 10,
			       cv->reference_only ? "  (reference only)" : "");
			if (!cv->reference_only && v > best) {
				best = v;
				best_name = cv->strategy;
			}
		}
		printf("  best persistent strategy: %s at %.3f of the ceiling\n", best_name,
		       best / op->ceiling_mib_s);
	}
	policy_free(p);
	return 0;
}
