// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sticky re-probe on synthetic curves: a decision of the baseline
 * changes only where it loses by the margin on cells measured again
 * (two losses in a row), a member change only over a run spanning 4x,
 * and an op whose cells are mostly unmeasurable decides nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mkpolicy.h"
#include "policy/policy.h"
#include "rule/crossover.h"

/* 64 B .. 64 KiB, powers of two: 11 sizes */
static const uint64_t grid[] = {
	64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
};
#define NGRID (sizeof(grid) / sizeof(grid[0]))

static const char *const names[] = { "movnt_avx512", "movnt_avx2", "clwb" };
#define NNAMES (sizeof(names) / sizeof(names[0]))

/*
 * One op, every curve at 10000 MiB/s with a 0.5 % interval (all tied) but
 * for the top three sizes, where streaming leads by 30 %.
 */
static struct policy_op *flat_op(struct policy *p, const char *target)
{
	struct policy_op *op = mkpolicy_op(mkpolicy_target(p, target, "", NULL), "sequential",
					   grid, NGRID, names, NNAMES);

	for (size_t c = 0; c < NNAMES; c++)
		for (size_t i = 0; i < NGRID; i++)
			mkpolicy_cell(&op->curves[c], i, 10000, 50, 100, 25);
	/* streaming separated at the top: a cached run below is no edge island */
	for (size_t c = 0; c < 2; c++)
		for (size_t i = NGRID - 3; i < NGRID; i++)
			mkpolicy_cell(&op->curves[c], i, 13000, 50, 100, 25);
	return op;
}

/* Curve name at size index i leads by 30 %, flagged re-measured or not. */
static void lead(struct policy_op *op, const char *name, size_t i, bool fresh)
{
	struct policy_curve *cv = policy_op_find_curve(op, name);

	mkpolicy_cell(cv, i, 13000, 50, 100, 25);
	if (!fresh)
		return;
	for (size_t c = 0; c < op->ncurves; c++)
		op->curves[c].cell_flags[i] |= POLICY_CELL_REMEASURED;
}

static void check_range(const struct policy_op *op, size_t r, uint64_t from, uint64_t to,
			const char *strategy, const char *baseline)
{
	CHECK_MSG(r < op->nranges, "range %zu missing (%zu ranges)", r, op->nranges);
	if (r >= op->nranges)
		return;
	CHECK_INT(op->ranges[r].from_bytes, from);
	CHECK_MSG(op->ranges[r].to_bytes == to, "range %zu to %llu, want %llu", r,
		  (unsigned long long)op->ranges[r].to_bytes, (unsigned long long)to);
	CHECK_STR(op->ranges[r].strategy, strategy);
	CHECK_STR(op->ranges[r].baseline, baseline);
}

/* A family change needs the loss on fresh cells too; the probe is told where. */
static void test_family_two_losses(void)
{
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_op *base = flat_op(p, "base"), *op = flat_op(p, "new");
	struct second_look loss[NGRID];
	size_t n;

	CHECK_INT(crossover_decide(base), 0);
	check_range(base, 0, 0, POLICY_SIZE_OPEN, "movnt_avx512", "");
	for (size_t i = 0; i < 3; i++)
		lead(op, "clwb", i, false);
	/* alone, the new cells would change 64..256 B */
	CHECK_INT(crossover_decide(op), 0);
	check_range(op, 0, 0, 512, "clwb", "");
	/* one loss: kept, and the three sizes are to be measured again */
	CHECK_INT(crossover_decide_with_baseline(op, base), 0);
	CHECK_INT(op->nranges, 1);
	check_range(op, 0, 0, POLICY_SIZE_OPEN, "movnt_avx512", "kept");
	n = crossover_baseline_losses(op, base, loss, NGRID);
	CHECK_INT(n, 3);
	for (size_t k = 0; k < n; k++) {
		CHECK_INT(loss[k].index, k);
		CHECK_INT(loss[k].why, SECOND_LOOK_BASELINE_LOSS);
		/* the challenger, then the baseline's, the two alone */
		CHECK_INT(loss[k].ncurves, 2);
		CHECK_STR(op->curves[loss[k].curves[0]].strategy, "clwb");
		CHECK_STR(op->curves[loss[k].curves[1]].strategy, "movnt_avx512");
		CHECK_INT(loss[k].verdict, VERDICT_NONE);
		CHECK(!loss[k].every);
	}
	/* the fresh cells lose again: changed there, and only there */
	for (size_t i = 0; i < 3; i++)
		lead(op, "clwb", i, true);
	CHECK_INT(crossover_decide_with_baseline(op, base), 0);
	CHECK_INT(op->nranges, 2);
	check_range(op, 0, 0, 512, "clwb", "changed");
	check_range(op, 1, 512, POLICY_SIZE_OPEN, "movnt_avx512", "kept");
	/* a replay of the same cells gives the same */
	CHECK_INT(crossover_decide_with_baseline(op, base), 0);
	check_range(op, 0, 0, 512, "clwb", "changed");
	/* nothing to measure again once the baseline holds nowhere it loses */
	CHECK_INT(crossover_baseline_losses(op, op, loss, NGRID), 0);
	policy_free(p);
}

/* A member change against the baseline: fresh losses over two sizes spanning 4x. */
static void test_member_run(void)
{
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_op *base = flat_op(p, "base"), *op = flat_op(p, "new");
	struct second_look loss[NGRID];

	CHECK_INT(crossover_decide(base), 0);
	/* avx2 ahead at 1, 2 and 4 KiB: a member run of its own */
	for (size_t i = 4; i < 7; i++)
		lead(op, "movnt_avx2", i, false);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 3);
	check_range(op, 1, 1024, 8192, "movnt_avx2", "");
	CHECK_INT(crossover_baseline_losses(op, base, loss, NGRID), 3);
	/* confirmed fresh at 1 and 2 KiB only: 2x is no member run, kept */
	lead(op, "movnt_avx2", 4, true);
	lead(op, "movnt_avx2", 5, true);
	CHECK_INT(crossover_decide_with_baseline(op, base), 0);
	CHECK_INT(op->nranges, 1);
	check_range(op, 0, 0, POLICY_SIZE_OPEN, "movnt_avx512", "kept");
	/* at 4 KiB as well: changed */
	lead(op, "movnt_avx2", 6, true);
	CHECK_INT(crossover_decide_with_baseline(op, base), 0);
	CHECK_INT(op->nranges, 3);
	check_range(op, 0, 0, 1024, "movnt_avx512", "kept");
	check_range(op, 1, 1024, 8192, "movnt_avx2", "changed");
	check_range(op, 2, 8192, POLICY_SIZE_OPEN, "movnt_avx512", "kept");
	policy_free(p);
}

/* A member range in the baseline stays while the new cells only tie with it. */
static void test_member_sticky(void)
{
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_op *base = flat_op(p, "base"), *op = flat_op(p, "new");
	struct second_look loss[NGRID];

	for (size_t i = 4; i < 7; i++)
		lead(base, "movnt_avx2", i, false);
	CHECK_INT(crossover_decide(base), 0);
	check_range(base, 1, 1024, 8192, "movnt_avx2", "");
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	CHECK_INT(crossover_baseline_losses(op, base, loss, NGRID), 0);
	CHECK_INT(crossover_decide_with_baseline(op, base), 0);
	CHECK_INT(op->nranges, 3);
	check_range(op, 1, 1024, 8192, "movnt_avx2", "kept");
	policy_free(p);
}

/* Sizes [from, to) of every curve unmeasurable (threads that never ran together), or measured. */
static void set_unmeasurable(struct policy_op *op, size_t from, size_t to, bool un)
{
	for (size_t c = 0; c < op->ncurves; c++)
		for (size_t i = from; i < to; i++) {
			op->curves[c].median_mib_s[i] = un ? NAN : 10000;
			op->curves[c].samples[i] = un ? 0 : 25;
			op->curves[c].cell_flags[i] = un ? POLICY_CELL_UNMEASURABLE : 0;
		}
}

/* A cell unmeasurable: no decision of its own, the baseline's kept exactly. */
static void test_unmeasurable_op(void)
{
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_op *base = flat_op(p, "base"), *op = flat_op(p, "new");
	struct second_look loss[NGRID];

	for (size_t i = 0; i < 3; i++)
		lead(base, "clwb", i, false);
	CHECK_INT(crossover_decide(base), 0);
	CHECK_INT(base->nranges, 2);
	set_unmeasurable(op, 0, 6, true);
	/* 6 of 11 sizes unmeasurable: nothing decided, nothing to measure again */
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 0);
	/* ... and the loader takes that "ranges": [] as the decision it is */
	{
		char err[256] = "", *text;

		snprintf(p->generator.name, sizeof(p->generator.name), "pmem-tune");
		snprintf(p->generator.version, sizeof(p->generator.version), "0.1.0");
		snprintf(p->generator.created, sizeof(p->generator.created),
			 "2026-11-30T20:00:00Z");
		snprintf(p->generator.mode, sizeof(p->generator.mode), "standard");
		snprintf(p->platform.fingerprint, sizeof(p->platform.fingerprint), "sha256:%064d",
			 7);
		snprintf(p->platform.cpu.vendor, sizeof(p->platform.cpu.vendor), "AuthenticAMD");
		snprintf(p->platform.kernel, sizeof(p->platform.kernel), "6.1.0");
		for (size_t t = 0; t < p->ntargets; t++) {
			snprintf(p->targets[t].kind, sizeof(p->targets[t].kind), "dram");
			snprintf(p->targets[t].device, sizeof(p->targets[t].device), "dram");
			snprintf(p->targets[t].mapping, sizeof(p->targets[t].mapping), "anonymous");
			snprintf(p->targets[t].persistence_domain,
				 sizeof(p->targets[t].persistence_domain), "unknown");
		}
		text = policy_to_string(p);
		struct policy *q = text ? policy_parse(text, strlen(text), err, sizeof(err)) : NULL;

		CHECK_MSG(q, "a thin op's empty ranges refused: %s", err);
		policy_free(q);
		free(text);
	}
	CHECK_INT(crossover_baseline_losses(op, base, loss, NGRID), 0);
	CHECK_INT(crossover_decide_with_baseline(op, base), 0);
	CHECK_INT(op->nranges, 2);
	check_range(op, 0, 0, 512, "clwb", "kept");
	check_range(op, 1, 512, POLICY_SIZE_OPEN, "movnt_avx512", "kept");
	/* one cell of one curve: still nothing */
	set_unmeasurable(op, 0, 6, false);
	op->curves[0].median_mib_s[3] = NAN;
	op->curves[0].samples[3] = 0;
	op->curves[0].cell_flags[3] = POLICY_CELL_UNMEASURABLE;
	CHECK(crossover_op_thin(op));
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 0);
	/* none: decides */
	set_unmeasurable(op, 3, 4, false);
	CHECK(!crossover_op_thin(op));
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	policy_free(p);
}

int main(void)
{
	test_family_two_losses();
	test_member_run();
	test_member_sticky();
	test_unmeasurable_op();
	return check_report("test_baseline");
}
