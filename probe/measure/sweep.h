/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The timing sweep: sizes x strategies x pattern x threads over a
 * target's area, each cell repeated until the median's 95 % interval is
 * tight or the cell's share of the time budget is spent, then crossovers
 * refined by bisection with fresh measurements.
 */
#ifndef PMEM_TUNE_SWEEP_H
#define PMEM_TUNE_SWEEP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "measure/progress.h"
#include "measure/strategy.h"
#include "measure/target.h"
#include "measure/constants.h"
#include "platform/cpu.h"
#include "policy/policy.h"
#include "rule/export.h"

enum sweep_mode { SWEEP_QUICK, SWEEP_STANDARD, SWEEP_THOROUGH };


struct sweep_config {
	enum sweep_mode mode;
	double budget_s;	/* wall time for the whole target */
	double rel_ci;		/* stop a cell when CI width / median <= this */
	unsigned min_samples;
	unsigned max_samples;
	double sample_ns;	/* aim of one sample's duration */
	double max_sample_ns;	/* bound of the batch doublings that make threads overlap */
	uint64_t min_size_bytes, max_size_bytes;
	bool half_steps;	/* sqrt(2) grid (2^k and 3 * 2^(k-1)); else below */
	unsigned grid_factor;	/* without half_steps: each size this times the last */
	unsigned refine_rounds;	/* bisection rounds per crossover */
	unsigned nthreads;	/* most threads: the saturation series stops here */
	const int *cpus;	/* nthreads CPUs in thread order; NULL: the first of the mask */
	int mem_node;		/* bind the source buffers to this node; -1 no binding */
	uint64_t seed;		/* random destinations */
	/*
	 * Drop each batch's destination lines from the caches after it is
	 * timed (the default), so an area of any size stays cold; false
	 * relies on an area several times the LLC (the old way, for bench/).
	 */
	bool evict;
	/*
	 * Untimed copies of the same walk right before each timed batch, a
	 * quarter of the batch and at most this many bytes (0: none): the
	 * batch is then timed back to back, not from an idle write path
	 * (SWEEP_LEAD_IN_BYTES by default; see lead_in() in sweep.c).
	 */
	uint64_t lead_in_bytes;
	/* keep every cell's samples, as taken, in the policy (raw_mib_s) */
	bool keep_samples;
	bool progress;		/* a progress line on stderr, rewritten (a terminal) */
	bool progress_lines;	/* a line per quarter on stderr (a journal) */
	/* the whole probe's progress, which this target's adds to (NULL: this target alone) */
	struct probe_progress *whole;
	const char *only;	/* comma list of strategies, NULL = all */
	/*
	 * The policy in place for this target (NULL: none): where the new
	 * cells show one of its decisions losing, both strategies are
	 * measured again, fresh, before the decision may change; its ops
	 * say which thread counts to measure (see saturate()).
	 */
	const struct policy_target *baseline;
	/*
	 * The policy being made (NULL: no exports asked): once every op of
	 * the target is measured, the rule names the cells a marginal change
	 * of an export rests on (export_rechecks(), with weights and the
	 * policy in place, NULL none) and every strategy at their sizes is
	 * measured again, fresh, so that such a change is made on two looks.
	 */
	struct policy *exports_of;
	const struct export_weights *weights;
	const struct policy *exports_baseline;
	/* set from a signal handler: the sweep stops at the next sample */
	volatile sig_atomic_t *stop;
};

/* Defaults for a mode; nthreads from the CPUs this process may use. */
void sweep_config_defaults(struct sweep_config *cfg, enum sweep_mode mode);
const char *sweep_mode_name(enum sweep_mode mode);

/* The size grid of cfg into sizes (at most max); returns the count. */
size_t sweep_grid(const struct sweep_config *cfg, uint64_t *sizes, size_t max);

/*
 * Measure every strategy ci supports on t into out (ops, curves with
 * every second look the rule asked for, ceilings); the ops are left
 * undecided, for crossover_decide_policy() once every target is in.
 * Unsupported strategies are reported on stderr, never silently dropped.
 * Returns 0, -EINTR when *cfg->stop was set, or another negative errno.
 */
int sweep_run(const struct target *t, const struct cpu_info *ci, const struct sweep_config *cfg,
	      struct policy_target *out);

/*
 * Time any copy functions the way the sweep times strategies: cold
 * destinations walked over t's area, pinned threads on their own
 * slices, the functions sampled in turns until each median's 95 %
 * interval is within cfg->rel_ci or seconds pass.  For the benchmarks,
 * which compare the policy with fixed rules side by side.
 */
#define SWEEP_BENCH_MAX_FNS 32
struct sweep_bench;
struct sample_summary;
int sweep_bench_open(const struct target *t, const struct sweep_config *cfg,
		     struct sweep_bench **out);
int sweep_bench_measure(struct sweep_bench *b, const strategy_copy_fn *fns, unsigned n,
			uint64_t size_bytes, bool random, unsigned nthreads, double seconds,
			struct sample_summary *out);
void sweep_bench_close(struct sweep_bench *b);


#endif
