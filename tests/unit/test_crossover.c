// SPDX-License-Identifier: GPL-2.0-or-later
/* crossover.c and strategy_class.c on synthetic curves with known answers. */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "policy/policy.h"
#include "rule/crossover.h"
#include "rule/export.h"
#include "rule/strategy_class.h"

#define NSIZES_MAX 32

/* 64 B .. 64 KiB, powers of two: 11 sizes */
static const uint64_t grid[] = {
	64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
};
#define NGRID (sizeof(grid) / sizeof(grid[0]))

static struct policy *pol;
static struct policy_target *tgt;

static struct policy_op *new_op(const uint64_t *sizes, size_t n)
{
	struct policy_op *op = policy_target_add_op(tgt, "write", "sequential", 1,
						    sizes, n);

	if (!op) {
		fprintf(stderr, "policy_target_add_op failed\n");
		exit(EXIT_FAILURE);
	}
	return op;
}

/* op->curves may move when a curve is added: look curves up by name. */
static struct policy_curve *curve(struct policy_op *op, const char *name)
{
	struct policy_curve *c = policy_op_find_curve(op, name);

	if (!c)
		c = policy_op_add_curve(op, name);
	if (!c) {
		fprintf(stderr, "policy_op_add_curve failed\n");
		exit(EXIT_FAILURE);
	}
	return c;
}

static void set_cell(struct policy_curve *c, size_t i, double median, double halfw)
{
	c->median_mib_s[i] = median;
	c->p10_mib_s[i] = median - 2 * halfw;
	c->p90_mib_s[i] = median + 2 * halfw;
	c->ci_lo_mib_s[i] = median - halfw;
	c->ci_hi_mib_s[i] = median + halfw;
	c->samples[i] = 25;
}

/* Whole curve; a NAN median leaves the cell unmeasured. */
static void set_curve(struct policy_op *op, const char *name, const double *med,
		      double halfw)
{
	struct policy_curve *c = curve(op, name);

	for (size_t i = 0; i < op->nsizes; i++)
		if (!isnan(med[i]))
			set_cell(c, i, med[i], halfw);
}

static int curve_index(const struct policy_op *op, const char *name)
{
	for (size_t i = 0; i < op->ncurves; i++)
		if (strcmp(op->curves[i].strategy, name) == 0)
			return (int)i;
	return -1;
}

static void check_range(const struct policy_op *op, size_t r, uint64_t from,
			uint64_t to, const char *strategy, bool tie)
{
	CHECK_MSG(r < op->nranges, "range %zu missing (%zu ranges)", r, op->nranges);
	if (r >= op->nranges)
		return;
	CHECK_INT(op->ranges[r].from_bytes, from);
	CHECK_MSG(op->ranges[r].to_bytes == to, "range %zu to %llu, want %llu", r,
		  (unsigned long long)op->ranges[r].to_bytes, (unsigned long long)to);
	CHECK_STR(op->ranges[r].strategy, strategy);
	CHECK_INT(op->ranges[r].tie, tie);
}

static void check_xo(const struct policy_op *op, size_t x, uint64_t size,
		     const char *below, const char *above)
{
	CHECK_MSG(x < op->ncrossovers, "crossover %zu missing (%zu)", x, op->ncrossovers);
	if (x >= op->ncrossovers)
		return;
	CHECK_INT(op->crossovers[x].size_bytes, size);
	CHECK_STR(op->crossovers[x].below, below);
	CHECK_STR(op->crossovers[x].above, above);
	CHECK_MSG(op->crossovers[x].confidence > 0 && op->crossovers[x].confidence <= 1,
		  "confidence %g not in (0, 1]", op->crossovers[x].confidence);
}

/* A crossover's confidence, NAN (fails every check) if it is missing. */
static double xo_conf(const struct policy_op *op, size_t x)
{
	return x < op->ncrossovers ? op->crossovers[x].confidence : NAN;
}

static void test_strategy_class(void)
{
	static const char *const nt[] = {
		"movnt", "movnt_sse2", "movnt_avx2", "movnt_avx512", "movdir64b",
	};
	static const char *const fl[] = {
		"clwb", "clflushopt", "clflush", "rep_movsb_clwb", "stores8_clwb",
		"memcpy_clwb",
	};
	static const char *const order[] = {
		"movnt_avx512", "movdir64b", "movnt_avx2", "movnt_sse2", "movnt",
		"clwb", "clflushopt", "stores8_clwb", "rep_movsb_clwb", "memcpy_clwb",
		"clflush", "noflush", "bogus",
	};

	for (size_t i = 0; i < sizeof(nt) / sizeof(nt[0]); i++) {
		CHECK_INT(strategy_class_of(nt[i]), STRATEGY_CLASS_NONTEMPORAL);
		CHECK(strategy_is_nontemporal(nt[i]));
	}
	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
		CHECK_INT(strategy_class_of(fl[i]), STRATEGY_CLASS_FLUSH);
		CHECK(!strategy_is_nontemporal(fl[i]));
	}
	CHECK_INT(strategy_class_of("noflush"), STRATEGY_CLASS_NOFLUSH);
	CHECK_INT(strategy_class_of("movnt_avx1024"), STRATEGY_CLASS_UNKNOWN);
	CHECK_INT(strategy_class_of(""), STRATEGY_CLASS_UNKNOWN);
	CHECK_INT(strategy_class_of(NULL), STRATEGY_CLASS_UNKNOWN);
	CHECK(!strategy_is_nontemporal("MOVNT"));	/* names are exact */
	for (size_t i = 1; i < sizeof(order) / sizeof(order[0]); i++)
		CHECK_MSG(strategy_tie_rank(order[i - 1]) < strategy_tie_rank(order[i]),
			  "rank %s !< %s", order[i - 1], order[i]);
	CHECK_INT(strategy_tie_rank("bogus"), strategy_tie_rank("other"));
}

/* movnt wins below 1024, clwb from 1024 up; both well separated. */
static struct policy_op *clean_op(void)
{
	struct policy_op *op = new_op(grid, NGRID);
	double nt[NGRID], fl[NGRID];

	for (size_t i = 0; i < NGRID; i++) {
		nt[i] = grid[i] < 1024 ? 2000 : 1000;
		fl[i] = grid[i] < 1024 ? 1000 : 2000;
	}
	set_curve(op, "movnt", nt, 20);
	set_curve(op, "clwb", fl, 20);
	return op;
}

static void test_clean_crossover(void)
{
	struct policy_op *op = clean_op();
	struct crossover_cell cells[NGRID];
	int nt = curve_index(op, "movnt"), fl = curve_index(op, "clwb");

	CHECK_INT(crossover_cells(op, cells), 0);
	for (size_t i = 0; i < NGRID; i++) {
		CHECK_INT(cells[i].winner, grid[i] < 1024 ? nt : fl);
		CHECK_INT(cells[i].runner_up, grid[i] < 1024 ? fl : nt);
		CHECK_INT(cells[i].tie, 0);
		CHECK(cells[i].p_win > 0.999 && cells[i].p_win <= 1);
	}

	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 2);
	check_range(op, 0, 0, 1024, "movnt", false);
	check_range(op, 1, 1024, POLICY_SIZE_OPEN, "clwb", false);
	CHECK_INT(op->ncrossovers, 1);
	check_xo(op, 0, 1024, "movnt", "clwb");
	CHECK(xo_conf(op, 0) > 0.9);

	/* deciding again replaces, same answer */
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 2);
	CHECK_INT(op->ncrossovers, 1);
	check_xo(op, 0, 1024, "movnt", "clwb");
}

static void test_two_crossovers(void)
{
	struct policy_op *op = new_op(grid, NGRID);
	double nt[NGRID], fl[NGRID];

	/* clwb below 512, movnt_avx512 in [512, 16384), clwb again above */
	for (size_t i = 0; i < NGRID; i++) {
		bool mid = grid[i] >= 512 && grid[i] < 16384;

		nt[i] = mid ? 3000 : 1500 + i;
		fl[i] = mid ? 2000 + i : 2800;
	}
	set_curve(op, "clwb", fl, 50);
	set_curve(op, "movnt_avx512", nt, 50);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 3);
	check_range(op, 0, 0, 512, "clwb", false);
	check_range(op, 1, 512, 16384, "movnt_avx512", false);
	check_range(op, 2, 16384, POLICY_SIZE_OPEN, "clwb", false);
	CHECK_INT(op->ncrossovers, 2);
	check_xo(op, 0, 512, "clwb", "movnt_avx512");
	check_xo(op, 1, 16384, "movnt_avx512", "clwb");
	CHECK(xo_conf(op, 0) > 0.9);
	CHECK(xo_conf(op, 1) > 0.9);
}

static void test_noisy_tie(void)
{
	struct policy_op *op = new_op(grid, NGRID);
	struct crossover_cell cells[NGRID];
	double nt[NGRID], fl[NGRID];
	int nti, fli;

	/* medians wobble around each other, intervals always overlap */
	for (size_t i = 0; i < NGRID; i++) {
		nt[i] = 1000 + ((i % 2) ? 30 : -30);
		fl[i] = 1000 + ((i % 3) ? -20 : 25);
	}
	set_curve(op, "clwb", fl, 200);
	set_curve(op, "movnt_avx2", nt, 200);
	nti = curve_index(op, "movnt_avx2");
	fli = curve_index(op, "clwb");
	CHECK_INT(crossover_cells(op, cells), 0);
	for (size_t i = 0; i < NGRID; i++) {
		CHECK_INT(cells[i].winner, nti);
		CHECK_INT(cells[i].runner_up, fli);
		CHECK_INT(cells[i].tie, 1);
		/* the true probability, below 0.5 where clwb's median is higher */
		if (fl[i] > nt[i])
			CHECK(cells[i].p_win < 0.5 && cells[i].p_win > 0.3);
		else
			CHECK(cells[i].p_win >= 0.5 && cells[i].p_win < 0.7);
	}
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	check_range(op, 0, 0, POLICY_SIZE_OPEN, "movnt_avx2", true);
	CHECK_INT(op->ncrossovers, 0);
}

static void test_one_winner(void)
{
	struct policy_op *op = new_op(grid, NGRID);
	double hi[NGRID], lo[NGRID], ref[NGRID];

	for (size_t i = 0; i < NGRID; i++) {
		hi[i] = 5000 + 100 * i;
		lo[i] = 2000 + 300 * i;
		ref[i] = 9000;
	}
	set_curve(op, "movnt_avx2", lo, 30);
	set_curve(op, "clflushopt", hi, 30);
	set_curve(op, "noflush", ref, 30);
	curve(op, "noflush")->reference_only = true;
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	check_range(op, 0, 0, POLICY_SIZE_OPEN, "clflushopt", false);
	CHECK_INT(op->ncrossovers, 0);
}

static void test_all_tied(void)
{
	static const char *const nt_mix[] = { "clflushopt", "movnt", "clwb",
					      "movnt_avx512", "movdir64b" };
	static const char *const fl_mix[] = { "clflush", "memcpy_clwb", "clflushopt",
					      "clwb" };
	static const char *const unk_mix[] = { "zzz_unknown", "clflush" };
	struct {
		const char *const *names;
		size_t n;
		const char *want;
	} cases[] = {
		{ nt_mix, 5, "movnt_avx512" },
		{ fl_mix, 4, "clwb" },
		{ unk_mix, 2, "clflush" },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct policy_op *op = new_op(grid, NGRID);
		double med[NGRID];

		for (size_t s = 0; s < cases[k].n; s++) {
			/* the preferred one never has the highest median */
			for (size_t i = 0; i < NGRID; i++)
				med[i] = strcmp(cases[k].names[s], cases[k].want) ?
					 1000 + 10 * s : 990;
			set_curve(op, cases[k].names[s], med, 100);
		}
		CHECK_INT(crossover_decide(op), 0);
		CHECK_INT(op->nranges, 1);
		check_range(op, 0, 0, POLICY_SIZE_OPEN, cases[k].want, true);
		CHECK_INT(op->ncrossovers, 0);
	}
}

static void test_unknown_and_median_only(void)
{
	struct policy_op *op = new_op(grid, NGRID);
	double a[NGRID], b[NGRID];

	/* unknown names are in no family: they never decide anything */
	for (size_t i = 0; i < NGRID; i++) {
		a[i] = 1000;
		b[i] = 1010;
	}
	set_curve(op, "vendor_a", a, 100);
	set_curve(op, "vendor_b", b, 100);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 0);

	/*
	 * Medians without intervals: decided on the medians, but with an
	 * unknown spread each side of the boundary is a coin toss.
	 */
	op = clean_op();
	for (size_t c = 0; c < op->ncurves; c++)
		for (size_t i = 0; i < NGRID; i++)
			op->curves[c].ci_lo_mib_s[i] = op->curves[c].ci_hi_mib_s[i] = NAN;
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 2);
	check_range(op, 0, 0, 1024, "movnt", false);
	check_range(op, 1, 1024, POLICY_SIZE_OPEN, "clwb", false);
	CHECK_NEAR(xo_conf(op, 0), 0.25, 1e-12);
}

static void test_missing_cells(void)
{
	static const uint64_t sizes[] = { 64, 128, 256, 512, 1024, 2048 };
	struct policy_op *op;
	struct crossover_cell cells[6];
	double nt[6], fl[6];
	int nti;

	/* an op with nothing measured: no ranges, old ones dropped */
	op = new_op(sizes, 6);
	curve(op, "movnt");
	curve(op, "clwb");
	op->ranges = calloc(1, sizeof(*op->ranges));
	op->nranges = 1;
	op->crossovers = calloc(1, sizeof(*op->crossovers));
	op->ncrossovers = 1;
	CHECK_INT(crossover_cells(op, cells), 0);
	for (size_t i = 0; i < 6; i++) {
		CHECK_INT(cells[i].winner, -1);
		CHECK_INT(cells[i].runner_up, -1);
	}
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 0);
	CHECK_INT(op->ncrossovers, 0);
	CHECK(op->ranges == NULL && op->crossovers == NULL);

	/* medians without samples are not measurements */
	curve(op, "movnt")->median_mib_s[2] = 1000;
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 0);

	/* an op without sizes or curves */
	op = new_op(NULL, 0);
	CHECK_INT(crossover_cells(op, NULL), 0);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 0);
	CHECK_INT(crossover_cells(NULL, cells), -EINVAL);
	CHECK_INT(crossover_decide(NULL), -EINVAL);

	/*
	 * 64 unmeasured everywhere, 256 unmeasured everywhere, movnt missing
	 * at 512 and clwb at 128: movnt wins 128, clwb 512 up.
	 */
	op = new_op(sizes, 6);
	for (size_t i = 0; i < 6; i++) {
		nt[i] = sizes[i] <= 256 ? 3000 : 1000;
		fl[i] = sizes[i] <= 256 ? 1000 : 3000;
	}
	nt[0] = fl[0] = NAN;
	nt[2] = fl[2] = NAN;
	nt[3] = NAN;
	fl[1] = NAN;
	set_curve(op, "movnt", nt, 10);
	set_curve(op, "clwb", fl, 10);
	nti = curve_index(op, "movnt");
	/* a median whose samples count is 0 does not count */
	curve(op, "clwb")->median_mib_s[0] = 99999;
	CHECK_INT(crossover_cells(op, cells), 0);
	CHECK_INT(cells[0].winner, -1);
	/* one family measured alone is no comparison: no decision there */
	CHECK_INT(cells[1].winner, -1);
	CHECK_INT(cells[1].verdict, VERDICT_NONE);
	CHECK_INT(cells[2].winner, -1);
	CHECK_INT(cells[4].winner, curve_index(op, "clwb"));
	(void)nti;
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	check_range(op, 0, 0, POLICY_SIZE_OPEN, "clwb", false);

	/* the boundary is judged at the nearest sizes where both were measured */
	op = new_op(sizes, 6);
	for (size_t i = 0; i < 6; i++) {
		nt[i] = sizes[i] < 1024 ? 3000 : 1000;
		fl[i] = sizes[i] < 1024 ? 1000 : 3000;
	}
	fl[3] = NAN;
	set_curve(op, "movnt", nt, 10);
	set_curve(op, "clwb", fl, 10);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->ncrossovers, 1);
	check_xo(op, 0, 1024, "movnt", "clwb");
	CHECK(xo_conf(op, 0) > 0.9);
}

static void test_reference_only(void)
{
	struct policy_op *op = clean_op();
	struct crossover_cell cells[NGRID];
	double ref[NGRID];
	int ri;

	for (size_t i = 0; i < NGRID; i++)
		ref[i] = 50000;
	set_curve(op, "noflush", ref, 10);
	ri = curve_index(op, "noflush");
	op->curves[ri].reference_only = true;
	CHECK_INT(crossover_cells(op, cells), 0);
	for (size_t i = 0; i < NGRID; i++) {
		CHECK(cells[i].winner != ri);
		CHECK(cells[i].runner_up != ri);
		CHECK_INT(cells[i].tie, 0);
	}
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 2);
	check_range(op, 0, 0, 1024, "movnt", false);
	check_range(op, 1, 1024, POLICY_SIZE_OPEN, "clwb", false);

	/* only a reference curve measured: nothing to decide */
	op = new_op(grid, NGRID);
	set_curve(op, "noflush", ref, 10);
	curve(op, "noflush")->reference_only = true;
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 0);
}

/* Decide op's cells and list its rechecks into rc (NGRID at most). */
static size_t rechecks_of(const struct policy_op *op, struct crossover_recheck *rc)
{
	struct crossover_cell cells[NGRID];

	CHECK_INT(crossover_cells(op, cells), 0);
	return crossover_rechecks(op, cells, rc, NGRID);
}

static void check_recheck(const struct policy_op *op, const struct crossover_recheck *rc,
			  size_t index, enum crossover_recheck_why why, const char *own,
			  const char *rival)
{
	CHECK_INT(rc->index, index);
	CHECK_INT(rc->why, why);
	CHECK_INT(rc->ncurves, 2);
	CHECK_INT(rc->curves[0], curve_index(op, own));
	CHECK_INT(rc->curves[1], curve_index(op, rival));
}

/* Which one-size ranges the probe must measure again before they are believed. */
static void test_rechecks(void)
{
	struct crossover_recheck rc[NGRID];
	struct crossover_cell cells[NGRID];
	struct policy_op *op;
	double nt[NGRID], fl[NGRID];

	for (size_t i = 0; i < NGRID; i++) {
		fl[i] = 3000;
		nt[i] = 2000;
	}

	/* one clean winner everywhere: nothing to re-measure */
	op = new_op(grid, NGRID);
	set_curve(op, "clwb", fl, 50);
	set_curve(op, "movnt", nt, 50);
	CHECK_INT(rechecks_of(op, rc), 0);

	/* C C S C C won by separation: an island, dropped and listed for a fresh look */
	op = new_op(grid, NGRID);
	nt[4] = 3500;
	set_curve(op, "clwb", fl, 50);
	set_curve(op, "movnt", nt, 50);
	CHECK_INT(rechecks_of(op, rc), 1);
	check_recheck(op, &rc[0], 4, CROSSOVER_RECHECK_ISLAND, "movnt", "clwb");
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	check_range(op, 0, 0, POLICY_SIZE_OPEN, "clwb", false);
	/* max bounds the list; no cells or no room, no list */
	CHECK_INT(crossover_cells(op, cells), 0);
	CHECK(cells[4].island);
	CHECK_INT(crossover_rechecks(op, cells, rc, 0), 0);
	CHECK_INT(crossover_rechecks(op, NULL, rc, NGRID), 0);
	CHECK_INT(crossover_rechecks(NULL, cells, rc, NGRID), 0);

	/* within the margin it is a tie: no island, no range */
	op = new_op(grid, NGRID);
	nt[4] = 3100;
	set_curve(op, "clwb", fl, 50);
	set_curve(op, "movnt", nt, 50);
	CHECK_INT(rechecks_of(op, rc), 0);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);

	/* a one-size departure from the prior at an edge is an island too */
	op = new_op(grid, NGRID);
	nt[4] = 2000;
	for (size_t i = 0; i < NGRID; i++)
		fl[i] = i + 1 < NGRID ? 1000 : 3000;
	set_curve(op, "clwb", fl, 50);
	set_curve(op, "movnt", nt, 50);
	CHECK_INT(rechecks_of(op, rc), 1);
	check_recheck(op, &rc[0], NGRID - 1, CROSSOVER_RECHECK_EDGE, "clwb", "movnt");
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	check_range(op, 0, 0, POLICY_SIZE_OPEN, "movnt", false);

	/* two sizes are a range, not an island */
	op = new_op(grid, NGRID);
	fl[NGRID - 2] = 3000;
	set_curve(op, "clwb", fl, 50);
	set_curve(op, "movnt", nt, 50);
	CHECK_INT(rechecks_of(op, rc), 0);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 2);
	check_range(op, 1, grid[NGRID - 2], POLICY_SIZE_OPEN, "clwb", false);
	CHECK_STR(op->crossovers[0].kind, "family");
}

/*
 * A tie that only the representative's own wide interval makes is
 * listed to be measured again (UNRESOLVED), with the family the bounds
 * give; a tie that two members' intervals make is not.
 */
static void test_rechecks_unresolved(void)
{
	static const char *const streaming[] = { "movnt", "movnt_sse2", "movnt_avx2" };
	static const char *const cached[] = { "clwb", "clflushopt", "clflush" };
	struct crossover_recheck rc[NGRID];
	struct policy_op *op;
	double v[NGRID];

	for (int wide = 1; wide <= 2; wide++) {
		op = new_op(grid, NGRID);
		for (size_t i = 0; i < NGRID; i++)
			v[i] = 2000;
		for (size_t k = 0; k < 3; k++)
			set_curve(op, streaming[k], v, 50);
		for (size_t i = 0; i < NGRID; i++)
			v[i] = i == 4 ? 3000 : 1000;
		for (size_t k = 0; k < 3; k++)
			set_curve(op, cached[k], v, 50);
		/* clflushopt best by a hair, clwb second (the representative), wide */
		set_cell(curve(op, "clflushopt"), 4, 3001, wide == 2 ? 1500 : 50);
		set_cell(curve(op, "clwb"), 4, 3000, 1500);
		if (wide == 1) {
			CHECK_INT(rechecks_of(op, rc), 1);
			check_recheck(op, &rc[0], 4, CROSSOVER_RECHECK_UNRESOLVED, "clwb",
				      "movnt_sse2");
			CHECK_INT(rc[0].verdict, VERDICT_CACHED);
		} else {
			CHECK_INT(rechecks_of(op, rc), 0);
		}
		/* the rule itself is unchanged: a tie, and the streaming run holds */
		CHECK_INT(crossover_decide(op), 0);
		CHECK_INT(op->nranges, 1);
		check_range(op, 0, 0, POLICY_SIZE_OPEN, "movnt_avx2", false);
	}
}

/*
 * A second look at a size against the first: the first probe after boot
 * read every strategy at a third; one member alone, or the reference,
 * moving is no family moving.
 */
static void test_looks_agree(void)
{
	static const char *const names[] = { "movnt", "movnt_sse2", "movnt_avx2",
					     "clwb", "clflushopt", "clflush", "noflush" };
	const size_t n = sizeof(names) / sizeof(names[0]);
	struct policy_op *op = new_op(grid, NGRID);
	double v[NGRID], first[n], m;

	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < NGRID; i++)
			v[i] = k < 3 ? 2000 + 10 * k : k < 6 ? 1500 + 10 * k : 8000;
		set_curve(op, names[k], v, 20);
	}
	curve(op, "noflush")->reference_only = true;
	m = crossover_margin(op);
	CHECK(m > 0);
	for (size_t k = 0; k < n; k++)
		first[curve_index(op, names[k])] = curve(op, names[k])->median_mib_s[0];

	CHECK(crossover_looks_agree(op, 0, first));
	/* the boot: everything at a third in the first look */
	for (size_t c = 0; c < n; c++)
		first[c] = op->curves[c].median_mib_s[0] / 3;
	CHECK(!crossover_looks_agree(op, 0, first));
	/* one family within twice the margin, then beyond it */
	for (size_t c = 0; c < n; c++)
		first[c] = op->curves[c].median_mib_s[0];
	for (size_t k = 3; k < 6; k++)
		first[curve_index(op, names[k])] *= 1 + 1.5 * m;
	CHECK(crossover_looks_agree(op, 0, first));
	for (size_t k = 3; k < 6; k++)
		first[curve_index(op, names[k])] *= (1 + 2.5 * m) / (1 + 1.5 * m);
	CHECK(!crossover_looks_agree(op, 0, first));
	/* a lone member far off, and the reference: the families' values hold */
	for (size_t c = 0; c < n; c++)
		first[c] = op->curves[c].median_mib_s[0];
	first[curve_index(op, "movnt_avx2")] *= 3;
	first[curve_index(op, "noflush")] /= 3;
	CHECK(crossover_looks_agree(op, 0, first));
	/* a family unmeasured in the first look is no disagreement */
	for (size_t k = 3; k < 6; k++)
		first[curve_index(op, names[k])] = NAN;
	CHECK(crossover_looks_agree(op, 0, first));
	/* nor in the second: streaming read a third before, and is gone now */
	for (size_t c = 0; c < n; c++)
		first[c] = op->curves[c].median_mib_s[1];
	for (size_t k = 0; k < 3; k++) {
		first[curve_index(op, names[k])] /= 3;
		curve(op, names[k])->median_mib_s[1] = NAN;
	}
	CHECK(crossover_looks_agree(op, 1, first));
	first[curve_index(op, "clwb")] /= 3;
	first[curve_index(op, "clflushopt")] /= 3;
	CHECK(!crossover_looks_agree(op, 1, first));
	CHECK(crossover_looks_agree(op, NGRID, first));
}

static void test_confidence(void)
{
	static const uint64_t sizes[] = { 256, 512, 1024, 2048, 4096 };
	struct policy_op *op = new_op(sizes, 5);
	static const double nt[] = { 3000, 1000, 990, 900, 900 };
	static const double fl[] = { 1000, 990, 1000, 2000, 2000 };
	double clean;

	/*
	 * 512 and 1024 tie: between the two families they take the prior,
	 * streaming (one range [0, 2048)), so the boundary at 2048 is backed
	 * by a tied size below it: P(movnt > clwb at 1024) < 0.5.
	 */
	set_curve(op, "movnt_sse2", nt, 30);
	set_curve(op, "clwb", fl, 30);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 2);
	check_range(op, 0, 0, 2048, "movnt_sse2", false);
	check_range(op, 1, 2048, POLICY_SIZE_OPEN, "clwb", false);
	CHECK_INT(op->ncrossovers, 1);
	check_xo(op, 0, 2048, "movnt_sse2", "clwb");
	CHECK(xo_conf(op, 0) < 0.5);

	/* marginal but right: 1000 vs 980 at the last lower size */
	op = new_op(sizes, 5);
	{
		static const double nt2[] = { 3000, 2000, 1000, 900, 900 };
		static const double fl2[] = { 1000, 1000, 980, 2000, 2000 };

		set_curve(op, "movnt_sse2", nt2, 30);
		set_curve(op, "clwb", fl2, 30);
	}
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->ncrossovers, 1);
	check_xo(op, 0, 2048, "movnt_sse2", "clwb");
	CHECK(xo_conf(op, 0) > 0.5 && xo_conf(op, 0) < 0.9);

	/* clean: far apart, tight */
	op = clean_op();
	CHECK_INT(crossover_decide(op), 0);
	clean = xo_conf(op, 0);
	CHECK(clean > 0.99 && clean <= 1);
}

static void test_brackets_midpoint(void)
{
	struct policy_op *op = clean_op();
	struct crossover_bracket b[4] = { { 0 } };
	int idx;

	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(crossover_brackets(op, 1.5, 64, b, 4), 1);
	CHECK_INT(b[0].lo_bytes, 512);
	CHECK_INT(b[0].hi_bytes, 1024);
	CHECK_STR(b[0].below, "movnt");
	CHECK_STR(b[0].above, "clwb");
	/* both limits are strict */
	CHECK_INT(crossover_brackets(op, 2.0, 64, b, 4), 0);
	CHECK_INT(crossover_brackets(op, 1.5, 512, b, 4), 0);
	CHECK_INT(crossover_brackets(op, 1.5, 511, b, 4), 1);
	CHECK_INT(crossover_brackets(op, 1.5, 64, b, 0), 0);

	CHECK_INT(crossover_midpoint(512, 1024, 64), 704);	/* sqrt = 724.1 */
	CHECK_INT(crossover_midpoint(4096, 65536, 4096), 16384);
	CHECK_INT(crossover_midpoint(1, 3, 1), 2);
	CHECK_INT(crossover_midpoint(1, 2, 1), 0);
	CHECK_INT(crossover_midpoint(1000, 1000, 64), 0);
	CHECK_INT(crossover_midpoint(2000, 1000, 64), 0);
	CHECK_INT(crossover_midpoint(64, 128, 64), 0);		/* no multiple inside */
	CHECK_INT(crossover_midpoint(64, 256, 64), 128);
	CHECK_INT(crossover_midpoint(710, 760, 64), 0);
	CHECK_INT(crossover_midpoint(100, 300, 256), 256);
	/* nearest multiple (0) not inside, the other one (16) is */
	CHECK_INT(crossover_midpoint(1, 20, 16), 16);
	CHECK_INT(crossover_midpoint(1000, 3000, 0), 1732);	/* 0 acts as 1 */
	CHECK_INT(crossover_midpoint(1ULL << 40, 1ULL << 42, 4096), 1ULL << 41);
	CHECK_INT(crossover_midpoint(UINT64_MAX - 8192, UINT64_MAX, 4096),
		  UINT64_MAX - 4095);

	/*
	 * The probe's refinement: measure both strategies at the midpoint
	 * (other curves stay NAN there) and decide again.
	 */
	idx = policy_op_insert_size(op, crossover_midpoint(512, 1024, 64));
	CHECK_INT(idx, 4);
	set_cell(curve(op, "movnt"), (size_t)idx, 1000, 20);
	set_cell(curve(op, "clwb"), (size_t)idx, 2000, 20);
	curve(op, "movnt_avx2");	/* a curve not measured at the new size */
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 2);
	check_range(op, 0, 0, 704, "movnt", false);
	check_range(op, 1, 704, POLICY_SIZE_OPEN, "clwb", false);
	check_xo(op, 0, 704, "movnt", "clwb");
	CHECK_INT(crossover_brackets(op, 1.2, 64, b, 4), 1);
	CHECK_INT(b[0].lo_bytes, 512);
	CHECK_INT(b[0].hi_bytes, 704);
	CHECK_INT(crossover_brackets(op, 1.5, 64, b, 4), 0);
}

/* Cells 0..n-1 of curve c: medians v[i] with a 0.2 % interval. */
static void set_tight_cells(struct policy_curve *c, const double *v, size_t n, unsigned samples)
{
	for (size_t i = 0; i < n; i++) {
		c->median_mib_s[i] = v[i];
		c->ci_lo_mib_s[i] = v[i] * 0.999;
		c->ci_hi_mib_s[i] = v[i] * 1.001;
		c->samples[i] = samples;
	}
}

/*
 * A policy of its own (*p, freed by the caller) with one sequential op
 * over four sizes and two curves, looked up once both exist.
 */
static struct policy_op *two_member_op(struct policy **p, const uint64_t *sz4,
				       const char *na, const char *nb,
				       struct policy_curve **a, struct policy_curve **b)
{
	struct policy_target *t;
	struct policy_op *op;

	*p = policy_new();
	t = *p ? policy_add_target(*p, "t") : NULL;
	op = t ? policy_target_add_op(t, "write", "sequential", 1, sz4, 4) : NULL;
	if (!op || !policy_op_add_curve(op, na) || !policy_op_add_curve(op, nb)) {
		fprintf(stderr, "two_member_op: out of memory\n");
		exit(EXIT_FAILURE);
	}
	*a = policy_op_find_curve(op, na);
	*b = policy_op_find_curve(op, nb);
	return op;
}

/*
 * Within a family the default member holds unless another beats it by
 * the margin on consecutive sizes spanning CROSSOVER_MEMBER_MIN_SPAN.
 */
static void test_member_default(void)
{
	static const uint64_t sz[4] = { 1024, 2048, 4096, 8192 };
	struct policy *p;
	struct policy_curve *a, *b;
	struct policy_op *op = two_member_op(&p, sz, "movnt_sse2", "movnt_avx2", &a, &b);
	struct crossover_cell cells[4];
	struct crossover_recheck rc[4];
	/* sse2 ahead by 1 %, 1 %, then 10 % once, each with a 0.2 % interval */
	double va[4] = { 10100, 10100, 11000, 10000 }, vb[4] = { 10000, 10000, 10000, 10000 };

	for (int round = 0; round < 2; round++) {
		set_tight_cells(a, va, 4, 41);
		set_tight_cells(b, vb, 4, 41);
		CHECK_INT(crossover_cells(op, cells), 0);
		CHECK_INT(crossover_decide(op), 0);
		if (round == 0) {
			/* a 1 % lead is a tie; one 10 % size is no run: avx2 everywhere */
			for (int i = 0; i < 4; i++)
				CHECK_INT(cells[i].winner, 1);
			CHECK_INT(op->nranges, 1);
			CHECK_STR(op->ranges[0].strategy, "movnt_avx2");
			CHECK_STR(op->ranges[0].family, "streaming");
			CHECK_INT(op->ncrossovers, 0);
			/* the default everywhere: no member range to look at again */
			CHECK_INT(crossover_member_rechecks(op, cells, rc, 4), 0);
			/* the same lead from 1 KiB to 4 KiB: a run spanning 4x */
			va[0] = va[1] = 11000;
		} else {
			CHECK_INT(op->nranges, 2);
			/* one family only: no family was won by separation */
			check_range(op, 0, 0, 8192, "movnt_sse2", true);
			check_range(op, 1, 8192, POLICY_SIZE_OPEN, "movnt_avx2", true);
			CHECK_STR(op->crossovers[0].kind, "member");
			/* each size of the member range: sse2 and the default, avx2 */
			CHECK_INT(crossover_member_rechecks(op, cells, rc, 4), 3);
			for (size_t k = 0; k < 3; k++) {
				CHECK_INT(rc[k].index, k);
				CHECK_INT(rc[k].why, CROSSOVER_RECHECK_MEMBER);
				CHECK_INT(rc[k].ncurves, 2);
				CHECK_INT(rc[k].curves[0], 0);
				CHECK_INT(rc[k].curves[1], 1);
			}
			CHECK_INT(crossover_member_rechecks(op, cells, rc, 2), 2);
			/*
			 * the fresh look shows the lead at 1 KiB only: no run
			 * spanning 4x, the range is gone
			 */
			a->median_mib_s[1] = a->median_mib_s[2] = 10100;
			a->ci_lo_mib_s[1] = a->ci_lo_mib_s[2] = 10100 * 0.999;
			a->ci_hi_mib_s[1] = a->ci_hi_mib_s[2] = 10100 * 1.001;
			CHECK_INT(crossover_decide(op), 0);
			CHECK_INT(op->nranges, 1);
			CHECK_STR(op->ranges[0].strategy, "movnt_avx2");
		}
	}
	policy_free(p);
}

/*
 * On --quick's grid (x4) two sizes span 4x: a member needs
 * CROSSOVER_MEMBER_MIN_SIZES of them, as it needs five half steps on the
 * standard grid.  movdir64b 10 % ahead of movnt_avx512 at 64 and 256 B
 * is no range; at 64 B to 1 KiB it is.
 */
static void test_member_quick_grid(void)
{
	static const uint64_t sz[4] = { 64, 256, 1024, 4096 };
	struct policy *p;
	struct policy_curve *a, *b;
	struct policy_op *op = two_member_op(&p, sz, "movdir64b", "movnt_avx512", &a, &b);
	double va[4] = { 1100, 1100, 1000, 1000 }, vb[4] = { 1000, 1000, 1000, 1000 };

	for (int round = 0; round < 2; round++) {
		set_tight_cells(a, va, 4, 15);
		set_tight_cells(b, vb, 4, 15);
		CHECK_INT(crossover_decide(op), 0);
		if (round == 0) {
			CHECK_INT(op->nranges, 1);
			CHECK_STR(op->ranges[0].strategy, "movnt_avx512");
			va[2] = 1100;
		} else {
			CHECK_INT(op->nranges, 2);
			CHECK_STR(op->ranges[0].strategy, "movdir64b");
			CHECK_INT(op->ranges[0].to_bytes, 4096);
			CHECK_STR(op->ranges[1].strategy, "movnt_avx512");
		}
	}
	policy_free(p);
}

/* Near-ties never make a range: 11 members within 3 % give the defaults only. */
static void test_ties_no_range(void)
{
	static const char *const names[] = { "movnt_avx512", "movnt_avx2", "movdir64b",
					     "clwb", "clflushopt", "rep_movsb_clwb" };
	struct policy_op *op = new_op(grid, NGRID);
	double v[NGRID];

	for (size_t k = 0; k < 6; k++) {
		for (size_t i = 0; i < NGRID; i++)
			v[i] = 5000 * (1 + 0.03 * (double)((i * 7 + k * 3) % 5) / 4);
		set_curve(op, names[k], v, 60);
	}
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	check_range(op, 0, 0, POLICY_SIZE_OPEN, "movnt_avx512", true);
	CHECK_NEAR(op->margin, CROSSOVER_MARGIN_FLOOR, 1e-12);
}

/* The standard grid's first sizes: 96 B ends in a partial line. */
static const uint64_t lines[] = { 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048 };
#define NLINES (sizeof(lines) / sizeof(lines[0]))

/*
 * movnt ahead by 50 % at every size but 96 B, where clwb leads it by
 * clwb96 / nt96; confirm (a bit per family: 1 movnt, 2 clwb) flags 96 B.
 */
static struct policy_op *island_op(double nt96, double clwb96, unsigned confirm)
{
	struct policy_op *op = new_op(lines, NLINES);
	double nt[NLINES], fl[NLINES];

	for (size_t i = 0; i < NLINES; i++) {
		nt[i] = lines[i] == 96 ? nt96 : 3000;
		fl[i] = lines[i] == 96 ? clwb96 : 2000;
	}
	set_curve(op, "movnt", nt, 30);
	set_curve(op, "clwb", fl, 30);
	if (confirm & 1)
		curve(op, "movnt")->cell_flags[1] |= POLICY_CELL_CONFIRMED;
	if (confirm & 2)
		curve(op, "clwb")->cell_flags[1] |= POLICY_CELL_CONFIRMED;
	return op;
}

/* A one-size island is kept only when a fresh measurement confirmed it on both families. */
static void test_confirmed_islands(void)
{
	struct crossover_cell cells[NLINES];
	struct crossover_recheck rc[NLINES];
	struct policy_op *op;

	/* clwb 25 % ahead at 96 B, measured once: dropped, listed for a fresh look */
	op = island_op(2400, 3000, 0);
	CHECK_INT(crossover_cells(op, cells), 0);
	CHECK(cells[1].island && !cells[1].confirmed);
	CHECK_INT(cells[1].verdict, VERDICT_CACHED);
	CHECK_INT(cells[1].family, POLICY_FAMILY_STREAMING);
	CHECK_INT(crossover_rechecks(op, cells, rc, NLINES), 1);
	CHECK_INT(rc[0].index, 1);
	CHECK_INT(rc[0].why, CROSSOVER_RECHECK_ISLAND);
	CHECK_INT(rc[0].verdict, VERDICT_CACHED);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	check_range(op, 0, 0, POLICY_SIZE_OPEN, "movnt", false);

	/* confirmed on one family's representative only: still dropped */
	op = island_op(2400, 3000, 2);
	CHECK_INT(crossover_cells(op, cells), 0);
	CHECK(cells[1].island && !cells[1].confirmed);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);

	/* confirmed on both: kept, a range of its own and a crossover on each side */
	op = island_op(2400, 3000, 3);
	CHECK_INT(crossover_cells(op, cells), 0);
	CHECK(!cells[1].island && cells[1].confirmed);
	CHECK_INT(cells[1].family, POLICY_FAMILY_CACHED_FLUSH);
	CHECK_INT(cells[1].winner, curve_index(op, "clwb"));
	CHECK_INT(cells[1].tie, 0);
	for (size_t i = 0; i < NLINES; i++)
		if (i != 1)
			CHECK(!cells[i].confirmed && cells[i].family == POLICY_FAMILY_STREAMING);
	CHECK_INT(crossover_rechecks(op, cells, rc, NLINES), 0);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 3);
	check_range(op, 0, 0, 96, "movnt", false);
	check_range(op, 1, 96, 128, "clwb", false);
	check_range(op, 2, 128, POLICY_SIZE_OPEN, "movnt", false);
	CHECK_INT(op->ncrossovers, 2);
	check_xo(op, 0, 96, "movnt", "clwb");
	check_xo(op, 1, 128, "clwb", "movnt");
	CHECK(xo_conf(op, 0) > 0.9 && xo_conf(op, 1) > 0.9);
	CHECK_STR(op->crossovers[0].kind, "family");
	CHECK_STR(op->crossovers[1].kind, "family");
	/* deciding again (a replay) gives the same: the flags are in the op */
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 3);
	CHECK_INT(op->ncrossovers, 2);

	/* confirmed, but within the margin: a tie, which never makes a range */
	op = island_op(2950, 3000, 3);
	CHECK_INT(crossover_cells(op, cells), 0);
	CHECK_INT(cells[1].verdict, VERDICT_TIE);
	CHECK(!cells[1].island && !cells[1].confirmed);
	CHECK_INT(cells[1].family, POLICY_FAMILY_STREAMING);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	check_range(op, 0, 0, POLICY_SIZE_OPEN, "movnt", false);

	/* a confirmed size that is no island needs no keeping: nothing changes */
	op = island_op(3000, 2000, 3);
	CHECK_INT(crossover_cells(op, cells), 0);
	CHECK(!cells[1].confirmed && !cells[1].island);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
}

/* One pmem target with island_op()'s curves, decided and exported. */
static struct policy *island_policy(unsigned confirm)
{
	struct policy *p = policy_new(), *keep = pol;
	struct policy_target *t = p ? policy_add_target(p, "region0") : NULL, *keep_t = tgt;
	struct policy_op *op;

	if (!t) {
		fprintf(stderr, "policy_new failed\n");
		exit(EXIT_FAILURE);
	}
	snprintf(t->kind, sizeof(t->kind), "pmem");
	pol = p;
	tgt = t;
	op = island_op(2400, 3000, confirm);
	pol = keep;
	tgt = keep_t;
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(export_compute(p, NULL), 0);
	return p;
}

static const char *env(const struct policy_export *e, const char *key)
{
	for (size_t i = 0; i < e->nkv; i++)
		if (!strcmp(e->kv[i].key, key))
			return e->kv[i].value;
	return "(none)";
}

/*
 * A threshold cannot express a kept island: the exports take the value
 * that reproduces the rest of the decision, as without it, and the
 * island's size shows as regret.
 */
static void test_confirmed_island_exports(void)
{
	struct policy *dropped = island_policy(0), *kept = island_policy(3);
	const struct policy_exports *d = &dropped->exports, *k = &kept->exports;

	CHECK_INT(kept->targets[0].ops[0].nranges, 3);
	CHECK_INT(dropped->targets[0].ops[0].nranges, 1);
	CHECK(d->libpmem.present && k->libpmem.present);
	CHECK_STR(env(&k->libpmem, "PMEM_MOVNT_THRESHOLD"),
		  env(&d->libpmem, "PMEM_MOVNT_THRESHOLD"));
	/* streaming from the first size, the island left out */
	CHECK_STR(env(&k->libpmem, "PMEM_MOVNT_THRESHOLD"), "64");
	CHECK(d->kernel.present && k->kernel.present);
	CHECK(k->kernel.threshold_bytes == d->kernel.threshold_bytes);
	CHECK(k->kernel.threshold_bytes == POLICY_SIZE_OPEN);
	CHECK_MSG(k->libpmem.regret > d->libpmem.regret, "regret %g, dropped %g",
		  k->libpmem.regret, d->libpmem.regret);
	policy_free(dropped);
	policy_free(kept);
}

/* The smoothing itself: keep[] in, only the islands it kept out. */
static void test_smooth_confirmed(void)
{
	enum { S = VERDICT_STREAMING, C = VERDICT_CACHED, T = VERDICT_TIE };
	int v[7] = { S, C, S, S, T, S, C };
	const bool grid7[7] = { true, true, true, true, true, true, true };
	bool keep[7] = { true, true, false, true, true, false, true };
	bool island[7];
	int fam[7];

	CHECK_INT(crossover_smooth_confirmed(v, grid7, 7, S, keep, fam, island), 0);
	/* 1: a confirmed island, kept; 6: a confirmed departure at the edge, kept */
	for (size_t i = 0; i < 7; i++) {
		CHECK_MSG(keep[i] == (i == 1 || i == 6), "keep[%zu] = %d", i, keep[i]);
		CHECK(!island[i]);
		CHECK_INT(fam[i], i == 1 || i == 6 ? C : S);
	}
	CHECK_INT(v[1], C);

	/* without keep: both dropped, as crossover_smooth() does */
	{
		int w[7] = { S, C, S, S, T, S, C };

		CHECK_INT(crossover_smooth_confirmed(w, grid7, 7, S, NULL, fam, island), 0);
		CHECK(island[1] && island[6]);
		CHECK_INT(w[1], T);
		for (size_t i = 0; i < 7; i++)
			CHECK_INT(fam[i], S);
	}

	/*
	 * A kept island is as wide as itself: the tie at the edge beside it
	 * (64 B beside a partial-line 96 B) joins the run past it, and so
	 * does a tie between it and that run.
	 */
	{
		int w[6] = { T, C, T, S, S, S };
		bool k[6] = { false, true, false, false, false, false };

		CHECK_INT(crossover_smooth_confirmed(w, grid7, 6, S, k, fam, island), 0);
		CHECK(k[1] && !island[1]);
		for (size_t i = 0; i < 6; i++)
			CHECK_MSG(fam[i] == (i == 1 ? C : S), "fam[%zu] = %d", i, fam[i]);
	}
	/* ... and with nothing else separated, the ties take the prior */
	{
		int w[5] = { T, T, C, T, T };
		bool k[5] = { false, false, true, false, false };

		CHECK_INT(crossover_smooth_confirmed(w, grid7, 5, S, k, fam, island), 0);
		for (size_t i = 0; i < 5; i++)
			CHECK_MSG(fam[i] == (i == 2 ? C : S), "fam[%zu] = %d", i, fam[i]);
	}
}

/* A cell that cannot be right never draws a crossover, and is flagged. */
static void test_suspect_cells(void)
{
	struct policy_op *op = new_op(grid, NGRID);
	double nt[NGRID], fl[NGRID];

	for (size_t i = 0; i < NGRID; i++) {
		nt[i] = 4000;
		fl[i] = grid[i] < 4096 ? 1000 : 2000;
	}
	/* streaming collapses at 2 and 3 (below half of both neighbours) */
	nt[2] = nt[3] = 300;
	set_curve(op, "movnt", nt, 40);
	set_curve(op, "clwb", fl, 40);
	CHECK(!crossover_cell_suspect(op, 0, 2));	/* 300 is not < 0.5 * 300 */
	nt[3] = 4000;
	set_curve(op, "movnt", nt, 40);
	CHECK(crossover_cell_suspect(op, 0, 2));
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	check_range(op, 0, 0, POLICY_SIZE_OPEN, "movnt", false);
	CHECK(op->curves[0].cell_flags[2] & POLICY_CELL_SUSPECT);
	/* the sweep's own flag counts too */
	op->curves[1].cell_flags[5] |= POLICY_CELL_SUSPECT;
	CHECK(crossover_cell_suspect(op, 1, 5));
	/* a recorded flag on a good cell it would otherwise lose: still no crossover */
	nt[7] = 1000;
	set_curve(op, "movnt", nt, 40);
	op->curves[0].cell_flags[7] |= POLICY_CELL_SUSPECT;
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
}

/*
 * A spike: the first cell of a recorded probe read movnti 3-15x its own
 * next size and every other strategy.  Flagged where it is twice its
 * neighbours and twice its peers (two at least); a lead over peers alone,
 * or over neighbours alone, is not a spike.
 */
static void test_spike_cells(void)
{
	struct policy_op *op = new_op(grid, NGRID);
	double nt[NGRID], sse[NGRID], avx[NGRID], ref[NGRID];

	for (size_t i = 0; i < NGRID; i++) {
		nt[i] = sse[i] = avx[i] = 1000 + 100 * (double)i;
		ref[i] = 9000;
	}
	nt[0] = 4000;		/* 64 B, the first cell */
	nt[5] = 3500;		/* 2 KiB: twice 1 KiB and 4 KiB, and its peers */
	avx[8] = 2300;		/* 16 KiB: twice its peers, not its neighbours */
	avx[9] = avx[10] = 2400;
	set_curve(op, "movnt", nt, 40);
	set_curve(op, "movnt_sse2", sse, 40);
	/* one peer: a comparison, not a spike */
	CHECK(!crossover_cell_implausible(op, 0, 0));
	set_curve(op, "movnt_avx512", avx, 40);
	set_curve(op, "noflush", ref, 40);
	curve(op, "noflush")->reference_only = true;
	CHECK(crossover_cell_implausible(op, 0, 0));
	CHECK(crossover_cell_implausible(op, 0, 5));
	CHECK(!crossover_cell_implausible(op, 0, 1));
	CHECK(!crossover_cell_implausible(op, 2, 8));
	/* a reference curve far above the copies is what it measures */
	CHECK(!crossover_cell_implausible(op, 3, 0));
	/* under twice a neighbour is no spike */
	nt[1] = 2100;
	set_curve(op, "movnt", nt, 40);
	CHECK(!crossover_cell_implausible(op, 0, 0));
	CHECK_INT(crossover_decide(op), 0);
	CHECK(op->curves[0].cell_flags[5] & POLICY_CELL_SUSPECT);
	CHECK(!(op->curves[0].cell_flags[0] & POLICY_CELL_SUSPECT));
	/* a neighbour flagged suspect is skipped: the next one is compared */
	nt[1] = 150;
	nt[2] = 100;
	set_curve(op, "movnt", nt, 40);
	op->curves[0].cell_flags[1] |= POLICY_CELL_SUSPECT;
	CHECK(crossover_cell_implausible(op, 0, 2));
}

int main(void)
{
	pol = policy_new();
	tgt = pol ? policy_add_target(pol, "region0") : NULL;
	if (!tgt) {
		fprintf(stderr, "policy_new failed\n");
		return EXIT_FAILURE;
	}

	test_strategy_class();
	test_clean_crossover();
	test_two_crossovers();
	test_noisy_tie();
	test_one_winner();
	test_all_tied();
	test_unknown_and_median_only();
	test_missing_cells();
	test_reference_only();
	test_rechecks();
	test_rechecks_unresolved();
	test_looks_agree();
	test_confirmed_islands();
	test_confirmed_island_exports();
	test_smooth_confirmed();
	test_confidence();
	test_brackets_midpoint();

	test_ties_no_range();
	test_suspect_cells();
	test_spike_cells();

	policy_free(pol);
	test_member_default();
	test_member_quick_grid();
	return check_report("test_crossover");
}
