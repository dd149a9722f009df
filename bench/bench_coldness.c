// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Do the curves move when the destinations are kept cold by evicting
 * instead of by size?  One run, one process, two dram areas timed side
 * by side at each size and pattern, one thread:
 *
 *   old  4 x the LLC (target_cache_bytes()), no eviction: the area
 *        itself keeps lines from being revisited while cached
 *   new  target_default_area() (64 MiB a thread), each batch's lines
 *        dropped from the caches after it is timed
 *
 * Each size is measured in two halves, old first then new first, and
 * each figure is the mean of its two medians.  Prints the medians and
 * new/old per strategy, the geometric mean and range of the ratios, and
 * what each area cost to map and fault in.  Figures only.
 * Usage: bench_coldness [quick|standard] [STRATEGY,...] [NEW_AREA_MIB]
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/strategy_list.h"
#include "common/proc_kb.h"
#include "measure/strategy.h"
#include "measure/sweep.h"
#include "measure/target.h"
#include "measure/workers.h"
#include "platform/cpu.h"
#include "rule/stats.h"

#define MAX_NAMES 8

/* Transparent huge pages backing this process (MiB): the TLB reach differs with them. */
static unsigned long anon_huge_mib(void)
{
	return (unsigned long)(proc_kb("/proc/self/smaps_rollup", "AnonHugePages") >> 10);
}

static const uint64_t sizes[] = { 64, 256, 1024, 4096, 65536, 1u << 20, 16u << 20 };

struct area {
	const char *name;
	struct target t;
	struct sweep_config cfg;
	struct sweep_bench *b;
	double open_s;
};

static int area_open(struct area *a, const char *name, uint64_t bytes, bool evict,
		     enum sweep_mode mode)
{
	struct target_opts topts = { .area_bytes = bytes, .nthreads = 1 };
	char err[512];
	uint64_t t0 = now_ns();
	int rc;

	a->name = name;
	sweep_config_defaults(&a->cfg, mode);
	a->cfg.nthreads = 1;
	a->cfg.evict = evict;
	rc = target_open("dram", &topts, &a->t, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "bench_coldness: %s area: %s\n", name, err);
		return rc;
	}
	a->open_s = (double)(now_ns() - t0) * 1e-9;
	rc = sweep_bench_open(&a->t, &a->cfg, &a->b);
	if (rc)
		fprintf(stderr, "bench_coldness: %s area: sweep setup failed\n", name);
	return rc;
}

int main(int argc, char **argv)
{
	const enum sweep_mode mode = argc > 1 && !strcmp(argv[1], "quick") ? SWEEP_QUICK
									    : SWEEP_STANDARD;
	const char *list = argc > 2 ? argv[2] : "movnt_avx512,movnt_avx2,clwb,clflushopt";
	const double seconds = mode == SWEEP_QUICK ? 0.05 : 0.2;
	const struct strategy *st[MAX_NAMES];
	struct area old = { 0 }, new = { 0 };
	double logsum = 0, lo = INFINITY, hi = 0;
	unsigned nst, nratio = 0;
	struct cpu_info ci;
	uint64_t t0 = now_ns();
	int rc = 1;

	nst = bench_strategy_list("bench_coldness", list, &ci, st, MAX_NAMES);
	if (!nst)
		return 1;
	if (area_open(&old, "old", target_default_area(1) > 4 * target_cache_bytes(ci.llc_bytes) ?
				   target_default_area(1) : 4 * target_cache_bytes(ci.llc_bytes),
		      false, mode) ||
	    area_open(&new, "new", argc > 3 ? strtoull(argv[3], NULL, 0) << 20 :
				   target_default_area(1), true, mode))
		goto out;
	printf("bench_coldness: %s, one thread; old: %zu MiB, no eviction (mapped and faulted "
	       "in %.2f s); new: %zu MiB, evicted after each batch (%.2f s)\n",
	       sweep_mode_name(mode), old.t.len >> 20, old.open_s, new.t.len >> 20, new.open_s);
	printf("anonymous huge pages backing both areas: %lu MiB\n", anon_huge_mib());
	for (int random = 0; random < 2; random++) {
		printf("\n%s\n%10s", random ? "random" : "sequential", "size");
		for (unsigned s = 0; s < nst; s++)
			printf("  %14s old %8s new  new/old", st[s]->name, "");
		printf("\n");
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			double v[2][MAX_NAMES] = { { 0 } };

			printf("%10" PRIu64, sizes[i]);
			for (int half = 0; half < 2; half++)
				for (int k = 0; k < 2; k++) {
					struct area *a = (half ^ k) ? &new : &old;
					struct sample_summary res[MAX_NAMES];
					strategy_copy_fn fns[MAX_NAMES];

					for (unsigned s = 0; s < nst; s++)
						fns[s] = st[s]->copy;
					if (sweep_bench_measure(a->b, fns, nst, sizes[i], random, 1,
								seconds, res))
						goto out;
					for (unsigned s = 0; s < nst; s++)
						v[a == &new][s] += res[s].median / 2;
				}
			for (unsigned s = 0; s < nst; s++) {
				double r = v[1][s] / v[0][s];

				printf("  %18.0f %12.0f %8.3f", v[0][s], v[1][s], r);
				if (r > 0 && isfinite(r)) {
					logsum += log(r);
					lo = fmin(lo, r);
					hi = fmax(hi, r);
					nratio++;
				}
			}
			printf("\n");
		}
	}
	if (nratio)
		printf("\nnew/old over %u cells: geometric mean %.3f, min %.3f, max %.3f "
		       "(total %.1f s)\n", nratio, exp(logsum / nratio), lo, hi,
		       (double)(now_ns() - t0) * 1e-9);
	rc = 0;
out:
	sweep_bench_close(old.b);
	sweep_bench_close(new.b);
	if (old.t.base)
		target_close(&old.t);
	if (new.t.base)
		target_close(&new.t);
	return rc;
}
