// SPDX-License-Identifier: GPL-2.0-or-later
#include <assert.h>
#include <math.h>

#include "measure/progress.h"

void probe_progress_init(struct probe_progress *p, unsigned ntargets)
{
	assert(p);
	*p = (struct probe_progress){ .ntargets = ntargets ? ntargets : 1, .shown_eta_s = -1 };
}

void probe_progress_add_targets(struct probe_progress *p, unsigned more)
{
	assert(p);
	p->ntargets += more;
}

void probe_progress_begin_target(struct probe_progress *p, uint64_t now_ns)
{
	assert(p);
	/* the first call starts target 0; every later one the next */
	if (p->target_start_ns)
		p->target++;
	if (p->target >= p->ntargets)
		p->ntargets = p->target + 1;
	p->target_start_ns = now_ns ? now_ns : 1;
}

void probe_progress_estimate(struct probe_progress *p, double target_frac, double target_eta_s,
			     uint64_t now_ns, unsigned *pct, double *eta_s)
{
	double frac, eta, elapsed, per_target;
	unsigned after;

	assert(p && pct && eta_s);
	if (!(target_frac > 0))
		target_frac = 0;
	if (target_frac > 1)
		target_frac = 1;
	if (!(target_eta_s > 0))
		target_eta_s = 0;
	after = p->ntargets > p->target + 1 ? p->ntargets - p->target - 1 : 0;
	elapsed = now_ns > p->target_start_ns ? (double)(now_ns - p->target_start_ns) / 1e9 : 0;
	per_target = elapsed + target_eta_s;

	frac = (p->target + target_frac) / p->ntargets;
	if (frac < p->shown_frac)
		frac = p->shown_frac;
	if (frac > PROBE_PROGRESS_MAX_FRAC)
		frac = PROBE_PROGRESS_MAX_FRAC;

	eta = target_eta_s + after * per_target;
	if (p->shown_eta_s >= 0) {
		double since = now_ns > p->shown_at_ns ?
			(double)(now_ns - p->shown_at_ns) / 1e9 : 0;

		if (eta > p->shown_eta_s - since)
			eta = p->shown_eta_s - since;
	}
	/* never "-0 s" */
	if (!(eta > 0))
		eta = 0;

	p->shown_frac = frac;
	p->shown_eta_s = eta;
	p->shown_at_ns = now_ns;
	*pct = (unsigned)floor(frac * 100);
	*eta_s = eta;
}
