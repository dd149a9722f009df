// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sticky re-probe as a table: each row a baseline's op and this
 * probe's cells on the same grid, and what the rule decides from them
 * alone and against the baseline.  A decision of the baseline changes
 * only where it loses by the margin on cells measured again (two losses
 * in a row), a member change only over a run spanning 4x, and an op with
 * an unmeasurable cell decides nothing (the baseline's ranges, exactly).
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
#define OPEN POLICY_SIZE_OPEN

static const char *const names[] = { "movnt_avx512", "movnt_avx2", "clwb" };
#define NNAMES (sizeof(names) / sizeof(names[0]))

/* Grid sizes by index: bit i is grid[i]. */
#define AT(i) (1u << (i))
#define FROM_TO(a, b) (((1u << ((b) + 1)) - 1) & ~((1u << (a)) - 1))

/* A curve 30 % ahead at sizes; fresh: those of them measured again (POLICY_CELL_REMEASURED). */
struct lead {
	const char *strategy;
	unsigned sizes, fresh;
};

struct want_range {
	uint64_t from, to;
	const char *strategy, *baseline;
};

struct baseline_row {
	const char *name;
	struct lead base[2];		/* the baseline's op, decided alone */
	struct lead now[2];		/* this probe's op */
	unsigned unmeasurable;		/* sizes where every curve of this probe's op is */
	unsigned unmeasurable_first;	/* sizes where its first curve alone is */
	unsigned losses;		/* crossover_baseline_losses() against the baseline */
	size_t nalone;			/* this probe's ranges decided alone */
	struct want_range alone[3];	/* the first of them, strategy NULL: not asserted */
	size_t nranges;			/* decided against the baseline */
	struct want_range ranges[3];
	void (*more)(const struct baseline_row *row, struct policy *p, struct policy_op *base,
		     struct policy_op *op);
};

#define ROW_CHECK(row, cond, ...) CHECK_MSG(cond, "row \"%s\": " __VA_ARGS__)

/*
 * One op, every curve at 10000 MiB/s with a 0.5 % interval (all tied) but
 * for the top three sizes, where streaming leads by 30 %: a cached run
 * below them is no edge island.
 */
static struct policy_op *flat_op(struct policy *p, const char *target)
{
	struct policy_op *op = mkpolicy_op(mkpolicy_target(p, target, "", NULL), "sequential",
					   grid, NGRID, names, NNAMES);

	for (size_t c = 0; c < NNAMES; c++)
		for (size_t i = 0; i < NGRID; i++)
			mkpolicy_cell(&op->curves[c], i, c < 2 && i >= NGRID - 3 ? 13000 : 10000,
				      50, 100, 25);
	return op;
}

static void apply_leads(struct policy_op *op, const struct lead *l, size_t n)
{
	for (size_t k = 0; k < n && l[k].strategy; k++) {
		struct policy_curve *cv = policy_op_find_curve(op, l[k].strategy);

		for (size_t i = 0; i < NGRID; i++) {
			if (l[k].sizes & AT(i))
				mkpolicy_cell(cv, i, 13000, 50, 100, 25);
			if (l[k].fresh & AT(i))
				for (size_t c = 0; c < op->ncurves; c++)
					op->curves[c].cell_flags[i] |= POLICY_CELL_REMEASURED;
		}
	}
}

/* Sizes of curves [first, last) unmeasurable: threads that never ran together. */
static void unmeasurable(struct policy_op *op, unsigned sizes, size_t first, size_t last)
{
	for (size_t c = first; c < last; c++)
		for (size_t i = 0; i < NGRID; i++)
			if (sizes & AT(i)) {
				mkpolicy_cell(&op->curves[c], i, NAN, 0, 0, 0);
				op->curves[c].cell_flags[i] = POLICY_CELL_UNMEASURABLE;
			}
}

static void check_ranges(const struct baseline_row *row, const char *what,
			 const struct policy_op *op, size_t n, const struct want_range *want)
{
	ROW_CHECK(row, op->nranges == n, "%s: %zu ranges, want %zu", row->name, what, op->nranges,
		  n);
	for (size_t r = 0; r < n && r < op->nranges && r < 3 && want[r].strategy; r++) {
		const struct policy_range *g = &op->ranges[r];

		ROW_CHECK(row, g->from_bytes == want[r].from && g->to_bytes == want[r].to &&
			  !strcmp(g->strategy, want[r].strategy) &&
			  !strcmp(g->baseline, want[r].baseline),
			  "%s: range %zu %llu..%llu %s (%s), want %llu..%llu %s (%s)", row->name,
			  what, r, (unsigned long long)g->from_bytes,
			  (unsigned long long)g->to_bytes, g->strategy, g->baseline,
			  (unsigned long long)want[r].from, (unsigned long long)want[r].to,
			  want[r].strategy, want[r].baseline);
	}
}

/* What the probe is told to measure again: the challenger and the baseline's, alone. */
static void losses_named(const struct baseline_row *row, struct policy *p,
			 struct policy_op *base, struct policy_op *op)
{
	struct second_look loss[NGRID];
	size_t n = crossover_baseline_losses(op, base, loss, NGRID);

	(void)p;
	for (size_t k = 0; k < n; k++) {
		ROW_CHECK(row, loss[k].index == k && loss[k].why == SECOND_LOOK_BASELINE_LOSS &&
			  loss[k].ncurves == 2 && loss[k].verdict == POLICY_FAMILY_NONE &&
			  !loss[k].every, "loss %zu: index %zu, why %d, %u curves", row->name, k,
			  loss[k].index, (int)loss[k].why, loss[k].ncurves);
		ROW_CHECK(row, loss[k].ncurves == 2 &&
			  !strcmp(op->curves[loss[k].curves[0]].strategy, "clwb") &&
			  !strcmp(op->curves[loss[k].curves[1]].strategy, "movnt_avx512"),
			  "loss %zu: not clwb against movnt_avx512", row->name, k);
	}
}

/* Once the change is made, nothing is left to measure again against it. */
static void nothing_left(const struct baseline_row *row, struct policy *p,
			 struct policy_op *base, struct policy_op *op)
{
	struct second_look loss[NGRID];

	(void)p;
	(void)base;
	ROW_CHECK(row, crossover_baseline_losses(op, op, loss, NGRID) == 0,
		  "losses against its own decision", row->name);
}

/* The loader takes a thin op's "ranges": [] as the decision it is. */
static void thin_loads(const struct baseline_row *row, struct policy *p,
		       struct policy_op *base, struct policy_op *op)
{
	char err[256] = "", *text;
	struct policy *q;

	(void)base;
	/* alone: the empty decision */
	crossover_decide(op);
	snprintf(p->generator.name, sizeof(p->generator.name), "pmem-tune");
	snprintf(p->generator.version, sizeof(p->generator.version), "0.1.0");
	snprintf(p->generator.created, sizeof(p->generator.created), "2026-11-30T20:00:00Z");
	snprintf(p->generator.mode, sizeof(p->generator.mode), "standard");
	snprintf(p->platform.fingerprint, sizeof(p->platform.fingerprint), "sha256:%064d", 7);
	snprintf(p->platform.cpu.vendor, sizeof(p->platform.cpu.vendor), "AuthenticAMD");
	snprintf(p->platform.kernel, sizeof(p->platform.kernel), "6.1.0");
	for (size_t t = 0; t < p->ntargets; t++) {
		snprintf(p->targets[t].kind, sizeof(p->targets[t].kind), "dram");
		snprintf(p->targets[t].device, sizeof(p->targets[t].device), "dram");
		snprintf(p->targets[t].mapping, sizeof(p->targets[t].mapping), "anonymous");
		snprintf(p->targets[t].persistence_domain, sizeof(p->targets[t].persistence_domain),
			 "unknown");
	}
	text = policy_to_string(p);
	q = text ? policy_parse(text, strlen(text), err, sizeof(err)) : NULL;
	ROW_CHECK(row, q != NULL, "a thin op's empty ranges refused: %s", row->name, err);
	policy_free(q);
	free(text);
}

static const struct baseline_row rows[] = {
	{
		.name = "clwb ahead at 64-256 B, first look: kept, the three sizes named",
		.now = { { "clwb", FROM_TO(0, 2), 0 } },
		.losses = 3,
		.nalone = 2, .alone = { { 0, 512, "clwb", "" } },
		.nranges = 1, .ranges = { { 0, OPEN, "movnt_avx512", "kept" } },
		.more = losses_named,
	},
	{
		.name = "clwb ahead again on fresh cells: changed there, and only there",
		.now = { { "clwb", FROM_TO(0, 2), FROM_TO(0, 2) } },
		.losses = 3,
		.nalone = 2, .alone = { { 0, 512, "clwb", "" } },
		.nranges = 2, .ranges = { { 0, 512, "clwb", "changed" },
					  { 512, OPEN, "movnt_avx512", "kept" } },
		.more = nothing_left,
	},
	{
		.name = "avx2 ahead at 1-4 KiB, first look: a member run alone, kept here",
		.now = { { "movnt_avx2", FROM_TO(4, 6), 0 } },
		.losses = 3,
		.nalone = 3, .alone = { { 0, 1024, "movnt_avx512", "" },
					{ 1024, 8192, "movnt_avx2", "" } },
		.nranges = 1, .ranges = { { 0, OPEN, "movnt_avx512", "kept" } },
	},
	{
		.name = "avx2 fresh at 1 and 2 KiB only: 2x is no member run, kept",
		.now = { { "movnt_avx2", FROM_TO(4, 6), FROM_TO(4, 5) } },
		.losses = 3,
		.nalone = 3,
		.nranges = 1, .ranges = { { 0, OPEN, "movnt_avx512", "kept" } },
	},
	{
		.name = "avx2 fresh at 1-4 KiB: the member run changes, the rest kept",
		.now = { { "movnt_avx2", FROM_TO(4, 6), FROM_TO(4, 6) } },
		.losses = 3,
		.nalone = 3,
		.nranges = 3, .ranges = { { 0, 1024, "movnt_avx512", "kept" },
					  { 1024, 8192, "movnt_avx2", "changed" },
					  { 8192, OPEN, "movnt_avx512", "kept" } },
	},
	{
		.name = "the baseline's avx2 range, new cells tied: the range stays",
		.base = { { "movnt_avx2", FROM_TO(4, 6), 0 } },
		.losses = 0,
		.nalone = 1, .alone = { { 0, OPEN, "movnt_avx512", "" } },
		.nranges = 3, .ranges = { { 0, 1024, "movnt_avx512", "kept" },
					  { 1024, 8192, "movnt_avx2", "kept" },
					  { 8192, OPEN, "movnt_avx512", "kept" } },
	},
	{
		.name = "6 of 11 sizes unmeasurable: nothing decided, the baseline's exactly",
		.base = { { "clwb", FROM_TO(0, 2), 0 } },
		.unmeasurable = FROM_TO(0, 5),
		.losses = 0,
		.nalone = 0,
		.nranges = 2, .ranges = { { 0, 512, "clwb", "kept" },
					  { 512, OPEN, "movnt_avx512", "kept" } },
		.more = thin_loads,
	},
	{
		.name = "one cell of one curve unmeasurable: still nothing of its own",
		.base = { { "clwb", FROM_TO(0, 2), 0 } },
		.unmeasurable_first = AT(3),
		.losses = 0,
		.nalone = 0,
		.nranges = 2, .ranges = { { 0, 512, "clwb", "kept" },
					  { 512, OPEN, "movnt_avx512", "kept" } },
	},
	{
		.name = "every cell measured, tied: decides, streaming throughout",
		.nalone = 1, .alone = { { 0, OPEN, "movnt_avx512", "" } },
		.nranges = 1, .ranges = { { 0, OPEN, "movnt_avx512", "kept" } },
	},
};

static void run_row(const struct baseline_row *row)
{
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_op *base = flat_op(p, "base"), *op = flat_op(p, "new");
	struct second_look loss[NGRID];
	bool thin = row->unmeasurable || row->unmeasurable_first;
	size_t n;

	apply_leads(base, row->base, 2);
	ROW_CHECK(row, crossover_decide(base) == 0, "the baseline's decision failed", row->name);
	apply_leads(op, row->now, 2);
	unmeasurable(op, row->unmeasurable, 0, op->ncurves);
	unmeasurable(op, row->unmeasurable_first, 0, 1);
	ROW_CHECK(row, crossover_op_thin(op) == thin, "thin: %d, want %d", row->name, !thin, thin);

	ROW_CHECK(row, crossover_decide(op) == 0, "decided alone: failed", row->name);
	check_ranges(row, "alone", op, row->nalone, row->alone);
	n = crossover_baseline_losses(op, base, loss, NGRID);
	ROW_CHECK(row, n == row->losses, "%zu sizes to measure again, want %u", row->name, n,
		  row->losses);
	/* twice: a replay of the same cells gives the same */
	for (int k = 0; k < 2; k++) {
		ROW_CHECK(row, crossover_decide_with_baseline(op, base) == 0,
			  "decided against the baseline: failed", row->name);
		check_ranges(row, k ? "replayed" : "against the baseline", op, row->nranges,
			     row->ranges);
	}
	if (row->more)
		row->more(row, p, base, op);
	policy_free(p);
}

/* base's ranges by hand: strategies[k] from bounds[k] to bounds[k + 1] (the last open). */
static void set_ranges(struct policy_op *base, const char *const *strategies,
		       const uint64_t *bounds, size_t n)
{
	free(base->ranges);
	free(base->crossovers);
	base->crossovers = NULL;
	base->ncrossovers = 0;
	base->ranges = calloc(n, sizeof(*base->ranges));
	CHECK(base->ranges != NULL);
	base->nranges = n;
	for (size_t k = 0; k < n; k++) {
		snprintf(base->ranges[k].strategy, sizeof(base->ranges[k].strategy), "%s",
			 strategies[k]);
		base->ranges[k].from_bytes = bounds[k];
		base->ranges[k].to_bytes = k + 1 < n ? bounds[k + 1] : OPEN;
	}
}

/*
 * A persistent-cache target's baseline may run noflush, of no family: kept
 * at the small sizes, its boundary with the cached family judged on the
 * two strategies (0.5 x 0.5 where they tie), streaming taking the top.
 */
static void baseline_of_no_family(void)
{
	static const char *const with_noflush[] = { "movnt_avx512", "movnt_avx2", "clwb",
						    "noflush" };
	static const char *const ranged[] = { "noflush", "clwb" };
	static const uint64_t bounds[] = { 0, 512 };
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_target *t = mkpolicy_target(p, "cache", "", NULL);
	struct policy_op *base, *op;

	mkpolicy_op(t, "sequential", grid, NGRID, with_noflush, 4);
	mkpolicy_op(t, "random", grid, NGRID, with_noflush, 4);
	base = &t->ops[0];
	op = &t->ops[1];
	for (size_t c = 0; c < 4; c++)
		for (size_t i = 0; i < NGRID; i++) {
			mkpolicy_cell(&base->curves[c], i, 10000, 50, 100, 25);
			mkpolicy_cell(&op->curves[c], i, c < 2 && i >= NGRID - 3 ? 13000 : 10000,
				      50, 100, 25);
			if (i >= NGRID - 3)
				op->curves[c].cell_flags[i] |= POLICY_CELL_REMEASURED;
		}
	set_ranges(base, ranged, bounds, 2);
	CHECK_INT(crossover_decide_with_baseline(op, base), 0);
	CHECK_INT(op->nranges, 3);
	if (op->nranges == 3) {
		CHECK_STR(op->ranges[0].strategy, "noflush");
		CHECK_STR(op->ranges[0].baseline, "kept");
		CHECK_STR(op->ranges[1].strategy, "clwb");
		CHECK_STR(op->ranges[2].strategy, "movnt_avx512");
		CHECK_STR(op->ranges[2].baseline, "changed");
		CHECK_INT(op->crossovers[0].size_bytes, 512);
		CHECK_NEAR(op->crossovers[0].confidence, 0.25, 0.01);
	}
	policy_free(p);
}

/*
 * A thin op (nothing of its own to decide) keeps its baseline's ranges
 * only where this probe measured their strategies: copied, a range of a
 * strategy it has no curve for would make a file no reader takes.
 */
static void baseline_not_measured_here(void)
{
	static const char *const ranged[] = { "noflush", "movnt_avx512" };
	static const uint64_t bounds[] = { 0, 512 };
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_op *base = flat_op(p, "base"), *op = flat_op(p, "new");

	set_ranges(base, ranged, bounds, 2);
	unmeasurable(op, FROM_TO(0, 5), 0, op->ncurves);
	CHECK(crossover_op_thin(op));
	CHECK_INT(crossover_decide_with_baseline(op, base), 0);
	CHECK_INT(op->nranges, 0);
	/* the same baseline on a probe that measures noflush: its ranges, exactly */
	op = mkpolicy_op(mkpolicy_target(p, "again", "", NULL), "sequential", grid, NGRID,
			 (const char *const[]){ "movnt_avx512", "noflush" }, 2);
	unmeasurable(op, FROM_TO(0, 5), 0, op->ncurves);
	base = &policy_find_target(p, "base")->ops[0];
	CHECK_INT(crossover_decide_with_baseline(op, base), 0);
	CHECK_INT(op->nranges, 2);
	policy_free(p);
}

int main(void)
{
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
		run_row(&rows[k]);
	baseline_of_no_family();
	baseline_not_measured_here();
	return check_report("test_baseline");
}
