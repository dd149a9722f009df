// SPDX-License-Identifier: GPL-2.0-or-later
/* concurrency.c: overlap of the threads' timed intervals and their rate together. */
#include <math.h>

#include "check.h"
#include "measure/concurrency.h"

#define MIB (1024.0 * 1024.0)

static void test_whole_overlap(void)
{
	const uint64_t t0[] = { 1000, 1000 }, t1[] = { 2000, 2000 };
	struct concurrency c;

	concurrency_of(t0, t1, 2, &c);
	CHECK_INT(c.union_ns, 1000);
	CHECK_INT(c.inter_ns, 1000);
	CHECK_NEAR(c.overlap, 1.0, 1e-12);
	CHECK(concurrency_ok(&c, 2));
	/* 2 MiB in 1 us: the bytes of both threads over the one interval */
	CHECK_NEAR(concurrency_rate_mib_s(&c, 2 * MIB), 2e6, 1e-6);
}

static void test_one_after_the_other(void)
{
	/* each thread fast on its own; together never: the old sum read twice the rate */
	const uint64_t t0[] = { 0, 1000 }, t1[] = { 1000, 2000 };
	struct concurrency c;

	concurrency_of(t0, t1, 2, &c);
	CHECK_INT(c.union_ns, 2000);
	CHECK_INT(c.inter_ns, 0);
	CHECK_NEAR(c.overlap, 0, 1e-12);
	CHECK(!concurrency_ok(&c, 2));

	/* disjoint with a gap: still no intersection, never negative */
	const uint64_t g0[] = { 0, 5000 }, g1[] = { 1000, 6000 };

	concurrency_of(g0, g1, 2, &c);
	CHECK_INT(c.inter_ns, 0);
	CHECK_INT(c.union_ns, 6000);
}

static void test_bound(void)
{
	/* skew of 10 % of the union: exactly at the bound, kept */
	const uint64_t a0[] = { 0, 50 }, a1[] = { 950, 1000 };
	/* a little more: refused */
	const uint64_t b0[] = { 0, 51 }, b1[] = { 949, 1000 };
	struct concurrency c;

	concurrency_of(a0, a1, 2, &c);
	CHECK_INT(c.inter_ns, 900);
	CHECK_INT(c.union_ns, 1000);
	CHECK(concurrency_ok(&c, 2));
	concurrency_of(b0, b1, 2, &c);
	CHECK(!concurrency_ok(&c, 2));
	CHECK_NEAR(CONCURRENCY_MIN_OVERLAP, 0.90, 1e-12);
}

static void test_rate_never_above_sum(void)
{
	/*
	 * Kept samples: the union rate is at most the sum of own rates and
	 * at least 0.9 of it (each own duration is in [0.9 U, U]).
	 */
	const uint64_t t0[] = { 0, 30, 60, 10 }, t1[] = { 1000, 980, 1010, 1005 };
	const double bytes = 1 * MIB;
	struct concurrency c;
	double sum = 0, rate;

	concurrency_of(t0, t1, 4, &c);
	CHECK(concurrency_ok(&c, 4));
	for (unsigned i = 0; i < 4; i++)
		sum += bytes / MIB / ((double)(t1[i] - t0[i]) * 1e-9);
	rate = concurrency_rate_mib_s(&c, 4 * bytes);
	CHECK(rate <= sum);
	CHECK(rate >= CONCURRENCY_MIN_OVERLAP * sum);
}

static void test_edges(void)
{
	const uint64_t t0[] = { 100 }, t1[] = { 100 };
	const uint64_t r0[] = { 100, 100 }, r1[] = { 50, 200 };	/* t1 < t0: empty */
	struct concurrency c;

	concurrency_of(t0, t1, 1, &c);
	CHECK_INT(c.union_ns, 0);
	CHECK(concurrency_ok(&c, 1));		/* one thread always counts */
	CHECK(isnan(concurrency_rate_mib_s(&c, MIB)));
	concurrency_of(r0, r1, 2, &c);
	CHECK_INT(c.inter_ns, 0);
	CHECK(!concurrency_ok(&c, 2));
	concurrency_of(t0, t1, 0, &c);
	CHECK_INT(c.union_ns, 0);
	CHECK(!concurrency_ok(&c, 2));
}

int main(void)
{
	test_whole_overlap();
	test_one_after_the_other();
	test_bound();
	test_rate_never_above_sum();
	test_edges();
	return check_report("test_concurrency");
}
