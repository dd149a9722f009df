// SPDX-License-Identifier: GPL-2.0-or-later
/* The probe's progress: under 100 % until the end, seconds that only count down. */
#include "check.h"
#include "measure/progress.h"

#define S 1000000000ull

static void test_over_count(void)
{
	struct probe_progress p;
	unsigned pct, last_pct = 0;
	double eta, last_eta = 1e9;

	probe_progress_init(&p, 1);
	probe_progress_begin_target(&p, 1 * S);
	/* cells added by bisection and second looks: done passes the count */
	for (unsigned i = 1; i <= 40; i++) {
		double frac = i / 32.0, own_eta = 10.0 - i / 4.0;

		probe_progress_estimate(&p, frac, own_eta, (1 + i) * S, &pct, &eta);
		CHECK_MSG(pct <= 99, "step %u: %u%%", i, pct);
		CHECK_MSG(pct >= last_pct, "step %u: %u%% after %u%%", i, pct, last_pct);
		CHECK_MSG(eta >= 0 && !signbit(eta), "step %u: %f s", i, eta);
		CHECK_MSG(eta <= last_eta, "step %u: %f s after %f s", i, eta, last_eta);
		last_pct = pct;
		last_eta = eta;
	}
	CHECK_INT(pct, 99);
	CHECK(eta == 0);
}

static void test_estimate_goes_up(void)
{
	struct probe_progress p;
	unsigned pct;
	double eta;

	probe_progress_init(&p, 1);
	probe_progress_begin_target(&p, 1 * S);
	probe_progress_estimate(&p, 0.5, 10, 2 * S, &pct, &eta);
	CHECK_INT(pct, 50);
	CHECK(fabs(eta - 10) < 1e-9);
	/* the sweep's own figure jumps (a second look): what is shown still counts down */
	probe_progress_estimate(&p, 0.4, 30, 4 * S, &pct, &eta);
	CHECK_INT(pct, 50);
	CHECK(fabs(eta - 8) < 1e-9);
}

static void test_several_targets(void)
{
	struct probe_progress p;
	unsigned pct;
	double eta;

	/* "auto" and "dram"; auto finds two regions: three targets */
	probe_progress_init(&p, 2);
	probe_progress_add_targets(&p, 1);
	CHECK_INT(p.ntargets, 3);
	probe_progress_begin_target(&p, 1 * S);
	/* 4 s in, half done, 4 s left: two more targets of 8 s each */
	probe_progress_estimate(&p, 0.5, 4, 5 * S, &pct, &eta);
	CHECK_INT(pct, 16);
	CHECK(fabs(eta - 20) < 1e-9);
	/* the whole probe: the second target starts at a third */
	probe_progress_begin_target(&p, 9 * S);
	CHECK_INT(p.target, 1);
	probe_progress_estimate(&p, 0, 8, 9 * S, &pct, &eta);
	CHECK_INT(pct, 33);
	CHECK(eta <= 16 + 1e-9);
	probe_progress_begin_target(&p, 17 * S);
	probe_progress_estimate(&p, 1.5, 0, 25 * S, &pct, &eta);
	CHECK_INT(pct, 99);
	CHECK(eta == 0 && !signbit(eta));
	/* a target beyond the count makes the count grow, never a share over 1 */
	probe_progress_begin_target(&p, 26 * S);
	CHECK_INT(p.ntargets, 4);
}

int main(void)
{
	test_over_count();
	test_estimate_goes_up();
	test_several_targets();
	printf("test_progress: %u passed, %u failed\n", check_passed, check_failed);
	return check_failed != 0;
}
