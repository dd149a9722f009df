/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The whole probe's progress, over every target: a share done that only
 * grows and stays under 100 % until the probe ends, and seconds left that
 * only count down.  The sweep of one target knows its own share of cells
 * and its own estimate; cells are added as it goes (bisection, second
 * looks) and "auto" becomes several targets once the regions are listed,
 * so the raw figures can pass 100 % or go back up: what is shown cannot.
 */
#ifndef PT_PROBE_PROGRESS_H
#define PT_PROBE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct probe_progress {
	unsigned ntargets;	/* targets known so far (at least 1) */
	unsigned target;	/* the one being measured, 0-based */
	uint64_t target_start_ns;
	double shown_frac;	/* what was shown last, 0..PROBE_PROGRESS_MAX_FRAC */
	double shown_eta_s;	/* seconds left shown last; < 0: nothing shown yet */
	uint64_t shown_at_ns;
};

/* Shown until the probe has ended, whatever the counts say. */
#define PROBE_PROGRESS_MAX_FRAC 0.99

void probe_progress_init(struct probe_progress *p, unsigned ntargets);
/* One more target than counted (auto found several regions). */
void probe_progress_add_targets(struct probe_progress *p, unsigned more);
/* A target starts (the first, or the next one) at now_ns. */
void probe_progress_begin_target(struct probe_progress *p, uint64_t now_ns);

/*
 * What to show at now_ns: *pct (0..99) and *eta_s (>= 0), given the current
 * target's share done (any value; clamped to 0..1) and its own seconds left.
 * The remaining targets are taken to last as long as this one in all.
 */
void probe_progress_estimate(struct probe_progress *p, double target_frac, double target_eta_s,
			     uint64_t now_ns, unsigned *pct, double *eta_s);

#endif
