// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What does the lead-in change?  One run, one process, one dram area and
 * two sweep configurations timed side by side at each size and pattern,
 * one thread:
 *
 *   idle     lead_in_bytes 0: each timed batch starts right after the
 *            previous sample's evict pass, on an idle write path
 *   lead-in  the default: untimed copies of the same walk first (a
 *            quarter of the batch, at most SWEEP_LEAD_IN_BYTES), so the
 *            batch is timed back to back
 *
 * Each size is measured in PASSES passes, idle first and lead-in first
 * in turn.  What matters to a decision is whether the strategies' order
 * moves, so beside the first strategy's MiB/s (the mean of the passes'
 * medians) it prints every other one's ratio to it under both: the
 * median over the passes of each pass's ratio of medians.
 * From SWEEP_LEAD_IN_BYTES up neither has a lead-in: the change of a
 * ratio there is the noise to hold the others against.  Figures only.
 * Usage: bench_lead_in [quick|standard] [STRATEGY,...]
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/strategy_list.h"
#include "measure/strategy.h"
#include "measure/sweep.h"
#include "measure/target.h"
#include "measure/workers.h"
#include "platform/cpu.h"
#include "rule/stats.h"

#define MAX_NAMES 8
/* each size measured this many times, the two configurations' order alternating */
#define PASSES 6

static const uint64_t sizes[] = { 64, 96, 128, 256, 1024, 4096, 16384, 32768, 65536 };

int main(int argc, char **argv)
{
	const enum sweep_mode mode = argc > 1 && !strcmp(argv[1], "quick") ? SWEEP_QUICK
									    : SWEEP_STANDARD;
	const char *list = argc > 2 ? argv[2]
				    : "clwb,clflushopt,rep_movsb_clwb,memcpy_clwb,movnt_avx512";
	const double seconds = mode == SWEEP_QUICK ? 0.05 : 0.2;
	struct target_opts topts = { .nthreads = 1 };
	struct sweep_bench *b[2] = { NULL, NULL };
	const struct strategy *st[MAX_NAMES];
	strategy_copy_fn fns[MAX_NAMES];
	double most[2][MAX_NAMES] = { { 0 } };	/* below SWEEP_LEAD_IN_BYTES, from it up */
	struct target t = { 0 };
	struct cpu_info ci;
	uint64_t t0 = now_ns();
	unsigned nst;
	char err[512];
	int rc = 1;

	nst = bench_strategy_list("bench_lead_in", list, &ci, st, MAX_NAMES);
	if (nst < 2) {
		fprintf(stderr, "bench_lead_in: need two strategies this CPU runs\n");
		return 1;
	}
	for (unsigned s = 0; s < nst; s++)
		fns[s] = st[s]->copy;
	if (target_open("dram", &topts, &t, err, sizeof(err))) {
		fprintf(stderr, "bench_lead_in: dram: %s\n", err);
		return 1;
	}
	for (int k = 0; k < 2; k++) {
		struct sweep_config cfg;

		sweep_config_defaults(&cfg, mode);
		cfg.nthreads = 1;
		cfg.lead_in_bytes = k ? SWEEP_LEAD_IN_BYTES : 0;
		if (sweep_bench_open(&t, &cfg, &b[k])) {
			fprintf(stderr, "bench_lead_in: sweep setup failed\n");
			goto out;
		}
	}
	printf("bench_lead_in: %s, one thread, %zu MiB of dram; idle: no lead-in; lead-in: "
	       "a quarter of the batch, at most %u KiB\n", sweep_mode_name(mode), t.len >> 20,
	       SWEEP_LEAD_IN_BYTES >> 10);
	for (int random = 0; random < 2; random++) {
		printf("\n%s: %s MiB/s, and each other strategy's ratio to it\n%8s %8s %8s",
		       random ? "random" : "sequential", st[0]->name, "size", "idle", "lead-in");
		for (unsigned s = 1; s < nst; s++)
			printf(" %14.14s idle %7s", st[s]->name, "lead-in");
		printf("\n");
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			double rate[2] = { 0, 0 }, ratio[2][MAX_NAMES][PASSES];

			for (int p = 0; p < PASSES; p++)
				for (int j = 0; j < 2; j++) {
					int k = (p & 1) ^ j;
					struct sample_summary res[MAX_NAMES];

					if (sweep_bench_measure(b[k], fns, nst, sizes[i], random, 1,
								seconds, res))
						goto out;
					rate[k] += res[0].median / PASSES;
					for (unsigned s = 1; s < nst; s++)
						ratio[k][s][p] = res[s].median / res[0].median;
				}
			printf("%8" PRIu64 " %8.0f %8.0f", sizes[i], rate[0], rate[1]);
			for (unsigned s = 1; s < nst; s++) {
				double *m = &most[sizes[i] >= SWEEP_LEAD_IN_BYTES][s];
				struct sample_summary idle, lead;

				if (stats_summarize(ratio[0][s], PASSES, &idle) ||
				    stats_summarize(ratio[1][s], PASSES, &lead)) {
					printf(" %19s %7s", "-", "-");
					continue;
				}
				printf(" %19.3f %7.3f", idle.median, lead.median);
				if (fabs(idle.median - lead.median) > *m)
					*m = fabs(idle.median - lead.median);
			}
			printf("\n");
		}
	}
	/* from SWEEP_LEAD_IN_BYTES up both are the same configuration: the noise */
	for (int k = 0; k < 2; k++) {
		printf("\n%s %u KiB, largest change of a ratio to %s:",
		       k ? "no lead-in either way (the noise), from" : "below",
		       SWEEP_LEAD_IN_BYTES >> 10, st[0]->name);
		for (unsigned s = 1; s < nst; s++)
			printf(" %s %.3f%s", st[s]->name, most[k][s], s + 1 < nst ? "," : "");
	}
	printf("\n(total %.1f s)\n", (double)(now_ns() - t0) * 1e-9);
	rc = 0;
out:
	sweep_bench_close(b[0]);
	sweep_bench_close(b[1]);
	target_close(&t);
	return rc;
}
