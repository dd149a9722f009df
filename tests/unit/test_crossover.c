// SPDX-License-Identifier: GPL-2.0-or-later
/* crossover.c and strategy_class.c on synthetic curves with known answers. */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "mkpolicy.h"
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

/* the table's families (and verdicts): enum policy_family */
#define STREAMING POLICY_FAMILY_STREAMING
#define CACHED POLICY_FAMILY_CACHED_FLUSH

static struct policy *pol;
static struct policy_target *tgt;

static struct policy_op *new_op(const uint64_t *sizes, size_t n)
{
	return mkpolicy_op(tgt, "sequential", sizes, n, NULL, 0);
}

/* Cell i of c: median +- halfw its interval, p10..p90 twice that, 25 samples. */
static void set_cell(struct policy_curve *c, size_t i, double median, double halfw)
{
	mkpolicy_cell(c, i, median, halfw, 2 * halfw, 25);
}

/* Whole curve; a NAN median leaves the cell unmeasured. */
static void set_curve(struct policy_op *op, const char *name, const double *med,
		      double halfw)
{
	struct policy_curve *c = mkpolicy_curve_of(op, name);

	for (size_t i = 0; i < op->nsizes; i++)
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
static void test_strategy_class(void)
{
	static const char *const nt[] = {
		"movnt", "movnt_sse2", "movnt_avx2", "movnt_avx512", "movdir64b",
	};
	static const char *const fl[] = {
		"clwb", "clflushopt", "clflush", "rep_movsb_clwb", "stores8_clwb",
		"memcpy_clwb",
	};
	/*
	 * each family's members in the order its default is taken (PMDK's and
	 * the kernel's first)
	 */
	static const char *const streaming[] = {
		"movnt_avx512", "movnt_avx2", "movnt_sse2", "movdir64b", "movnt",
	};
	static const char *const cached[] = {
		"clwb", "clflushopt", "clflush", "stores8_clwb", "rep_movsb_clwb", "memcpy_clwb",
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
	for (size_t i = 0; i < sizeof(streaming) / sizeof(streaming[0]); i++) {
		CHECK_INT(strategy_default_rank(POLICY_FAMILY_STREAMING, streaming[i]), (int)i);
		CHECK_INT(strategy_default_rank(POLICY_FAMILY_CACHED_FLUSH, streaming[i]), -1);
	}
	for (size_t i = 0; i < sizeof(cached) / sizeof(cached[0]); i++) {
		CHECK_INT(strategy_default_rank(POLICY_FAMILY_CACHED_FLUSH, cached[i]), (int)i);
		CHECK_INT(strategy_default_rank(POLICY_FAMILY_STREAMING, cached[i]), -1);
	}
	CHECK_INT(strategy_default_rank(POLICY_FAMILY_STREAMING, "noflush"), -1);
	CHECK_INT(strategy_default_rank(POLICY_FAMILY_CACHED_FLUSH, "bogus"), -1);
	CHECK_INT(strategy_default_rank(POLICY_FAMILY_CACHED_FLUSH, NULL), -1);
}

/*
 * The rule as a table: each row a set of curves on one op, and what the
 * rule decides from them -- ranges, crossovers, the sizes the probe must
 * measure again, and where given the exports.
 */
#define OPEN POLICY_SIZE_OPEN
#define ROW_CURVES 6
/* a curve flat at x (only the first nsizes values count) */
#define FLAT(x) { x, x, x, x, x, x, x, x, x, x, x }
#define X NAN	/* not measured */
#define SIZES(a) .sizes = (a), .nsizes = sizeof(a) / sizeof((a)[0])

/*
 * One curve: its medians (MiB/s) per size, each with a 95 % interval of
 * +-halfw, or +-rel of the median (neither: no interval).
 */
struct row_curve {
	const char *strategy;
	double halfw, rel;
	double v[NSIZES_MAX];
	bool reference_only;
	unsigned confirmed;	/* cells flagged POLICY_CELL_CONFIRMED, a bit per size */
	unsigned unsampled;	/* cells with a median but no samples: no measurement */
	struct { size_t at; double halfw; } wide;	/* one cell's own interval (0: none) */
};

struct row_range {
	uint64_t from, to;
	const char *strategy;
	bool tie;
	const char *family;	/* NULL: not asserted */
};

/* A crossover; its confidence in (0, 1], above conf_gt and, where set, below conf_lt. */
struct row_xo {
	uint64_t size;
	const char *below, *above;
	double conf_gt, conf_lt;
	const char *kind;	/* NULL: not asserted */
};
#define CONF_NEAR(x) .conf_gt = (x) - 1e-12, .conf_lt = (x) + 1e-12

/* A size to measure again: its curve against the rival's, for the separated verdict claimed. */
struct row_recheck {
	size_t index;
	enum second_look_why why;
	const char *own, *rival;
	int verdict;
};

/* One decided cell, asserted where on. */
struct row_cell {
	bool on;
	size_t at;
	int verdict, family;
	bool island, confirmed;
};

struct rule_row {
	const char *name;
	const uint64_t *sizes;	/* NULL: grid */
	size_t nsizes;
	unsigned samples;	/* per cell; 0: 25 */
	struct row_curve c[ROW_CURVES];
	struct row_range r[4];		/* up to the first without a strategy */
	struct row_xo x[3];		/* up to the first without below */
	struct row_recheck rc[3];	/* crossover_rechecks() */
	struct row_recheck mrc[3];	/* crossover_member_rechecks() */
	struct row_cell cell;
	double margin;			/* 0: not asserted */
	/* exports from a pmem target of this op alone; pmem_movnt NULL: not asserted */
	struct {
		const char *pmem_movnt;
		uint64_t kernel_nt;
	} ex;
	/* what a row asserts beyond its columns (after crossover_decide()) */
	void (*more)(const struct rule_row *row, struct policy_op *op,
		     const struct crossover_cell *cells);
};

#define ROW_CHECK(row, cond, ...) CHECK_MSG(cond, "row \"%s\": " __VA_ARGS__)
#define ROW_INT(row, what, got, want)						\
	CHECK_MSG((long long)(got) == (long long)(want), "row \"%s\": %s %lld, want %lld", \
		  (row)->name, what, (long long)(got), (long long)(want))
#define ROW_STR(row, what, got, want)						\
	CHECK_MSG(!strcmp((got), (want)), "row \"%s\": %s %s, want %s", (row)->name, what, \
		  (got), (want))

/* row's op, in target t, its curves added in the row's order */
static struct policy_op *row_op(const struct rule_row *row, struct policy_target *t)
{
	const uint64_t *sizes = row->sizes ? row->sizes : grid;
	size_t n = row->sizes ? row->nsizes : NGRID;
	struct policy_op *op = policy_target_add_op(t, "write", "sequential", 1, sizes, n);

	if (!op) {
		fprintf(stderr, "policy_target_add_op failed\n");
		exit(EXIT_FAILURE);
	}
	for (size_t k = 0; k < ROW_CURVES && row->c[k].strategy; k++) {
		const struct row_curve *rc = &row->c[k];
		struct policy_curve *c = mkpolicy_curve_of(op, rc->strategy);

		c->reference_only = rc->reference_only;
		for (size_t i = 0; i < n; i++) {
			double m = rc->v[i], h = rc->wide.halfw && rc->wide.at == i ?
						 rc->wide.halfw : rc->rel ? m * rc->rel : rc->halfw;

			if (isnan(m))
				continue;
			c->median_mib_s[i] = m;
			c->ci_lo_mib_s[i] = h ? m - h : NAN;
			c->ci_hi_mib_s[i] = h ? m + h : NAN;
			c->samples[i] = rc->unsampled & (1u << i) ? 0 :
					row->samples ? row->samples : 25;
			if (rc->confirmed & (1u << i))
				c->cell_flags[i] |= POLICY_CELL_CONFIRMED;
		}
	}
	return op;
}

/* A policy of one pmem target holding row's op alone; *op gets it. */
static struct policy *row_policy(const struct rule_row *row, struct policy_op **op)
{
	struct policy *p = mkpolicy_new(NULL, NULL);

	*op = row_op(row, mkpolicy_target(p, "region0", "pmem", NULL));
	return p;
}

static void check_rechecks(const struct rule_row *row, const char *what,
			   const struct policy_op *op, const struct row_recheck *want,
			   const struct second_look *got, size_t n)
{
	size_t k;

	for (k = 0; k < 3 && want[k].own; k++) {
		if (k >= n)
			break;
		ROW_INT(row, what, got[k].index, want[k].index);
		ROW_INT(row, what, got[k].why, want[k].why);
		ROW_INT(row, what, got[k].verdict, want[k].verdict);
		/* a claim is confirmed on every strategy measured again; a member on its two */
		ROW_INT(row, what, got[k].every, want[k].verdict != POLICY_FAMILY_NONE);
		ROW_INT(row, what, got[k].ncurves, 2);
		ROW_INT(row, what, got[k].curves[0], curve_index(op, want[k].own));
		ROW_INT(row, what, got[k].curves[1], curve_index(op, want[k].rival));
	}
	while (k < 3 && want[k].own)
		k++;
	ROW_INT(row, what, n, k);
}

static const char *env(const struct policy_export *e, const char *key)
{
	for (size_t i = 0; i < e->nkv; i++)
		if (!strcmp(e->kv[i].key, key))
			return e->kv[i].value;
	return "(none)";
}

/* What the probe asks of the rule before it decides: who runs, where to bisect. */
struct undecided {
	bool runs[ROW_CURVES];
	struct crossover_bracket br[4];
	size_t nbr;
};

static void undecided_view(const struct rule_row *row, const struct policy_op *op,
			   struct undecided *u)
{
	ROW_INT(row, "no ranges before the decision", op->nranges, 0);
	for (size_t c = 0; c < op->ncurves && c < ROW_CURVES; c++)
		u->runs[c] = crossover_runs(op, op->curves[c].strategy);
	u->nbr = crossover_brackets(op, 1.01, 0, u->br, 4);
}

/* The decision draws what crossover_runs() and crossover_brackets() read from the cells. */
static void check_undecided_view(const struct rule_row *row, const struct policy_op *op,
				 const struct undecided *u)
{
	struct crossover_bracket br[4];

	for (size_t c = 0; c < op->ncurves && c < ROW_CURVES; c++) {
		bool ranged = false;

		for (size_t r = 0; r < op->nranges; r++)
			ranged |= !strcmp(op->ranges[r].strategy, op->curves[c].strategy);
		ROW_CHECK(row, u->runs[c] == ranged, "crossover_runs(%s) %d before, ranges %d",
			  row->name, op->curves[c].strategy, u->runs[c], ranged);
	}
	ROW_INT(row, "brackets before and after", crossover_brackets(op, 1.01, 0, br, 4), u->nbr);
	for (size_t b = 0; b < u->nbr; b++) {
		ROW_INT(row, "bracket lo", br[b].lo_bytes, u->br[b].lo_bytes);
		ROW_INT(row, "bracket hi", br[b].hi_bytes, u->br[b].hi_bytes);
		ROW_STR(row, "bracket below", br[b].below, u->br[b].below);
		ROW_STR(row, "bracket above", br[b].above, u->br[b].above);
	}
}

static void run_row(const struct rule_row *row)
{
	struct undecided before;
	struct policy_op *op;
	struct policy *p = row_policy(row, &op);
	struct crossover_cell cells[NSIZES_MAX];
	struct second_look rc[NSIZES_MAX];
	size_t k;

	ROW_INT(row, "crossover_cells()", crossover_cells(op, cells), 0);
	check_rechecks(row, "recheck", op, row->rc, rc,
		       crossover_rechecks(op, cells, rc, NSIZES_MAX));
	check_rechecks(row, "member recheck", op, row->mrc, rc,
		       crossover_member_rechecks(op, cells, rc, NSIZES_MAX));
	if (row->cell.on) {
		const struct crossover_cell *c = &cells[row->cell.at];

		ROW_INT(row, "cell verdict", c->verdict, row->cell.verdict);
		ROW_INT(row, "cell family", c->family, row->cell.family);
		ROW_INT(row, "cell island", c->island, row->cell.island);
		ROW_INT(row, "cell confirmed", c->confirmed, row->cell.confirmed);
	}
	undecided_view(row, op, &before);
	ROW_INT(row, "crossover_decide()", crossover_decide(op), 0);
	check_undecided_view(row, op, &before);
	for (k = 0; k < 4 && row->r[k].strategy; k++) {
		const struct row_range *w = &row->r[k];

		if (k >= op->nranges)
			continue;
		ROW_INT(row, "range from", op->ranges[k].from_bytes, w->from);
		ROW_INT(row, "range to", op->ranges[k].to_bytes, w->to);
		ROW_STR(row, "range strategy", op->ranges[k].strategy, w->strategy);
		ROW_INT(row, "range tie", op->ranges[k].tie, w->tie);
		if (w->family)
			ROW_STR(row, "range family", op->ranges[k].family, w->family);
	}
	ROW_INT(row, "ranges", op->nranges, k);
	for (k = 0; k < 3 && row->x[k].below; k++) {
		const struct row_xo *w = &row->x[k];
		double conf;

		if (k >= op->ncrossovers)
			continue;
		conf = op->crossovers[k].confidence;
		ROW_INT(row, "crossover at", op->crossovers[k].size_bytes, w->size);
		ROW_STR(row, "crossover below", op->crossovers[k].below, w->below);
		ROW_STR(row, "crossover above", op->crossovers[k].above, w->above);
		ROW_CHECK(row, conf > 0 && conf <= 1 && conf > w->conf_gt &&
			  (!w->conf_lt || conf < w->conf_lt),
			  "confidence %g, want in (%g, %g)", row->name, conf, w->conf_gt,
			  w->conf_lt ? w->conf_lt : 1.0);
		if (w->kind)
			ROW_STR(row, "crossover kind", op->crossovers[k].kind, w->kind);
	}
	ROW_INT(row, "crossovers", op->ncrossovers, k);
	if (row->margin)
		ROW_CHECK(row, fabs(op->margin - row->margin) < 1e-12, "margin %g, want %g",
			  row->name, op->margin, row->margin);
	if (row->more)
		row->more(row, op, cells);
	if (row->ex.pmem_movnt) {
		ROW_INT(row, "export_compute()", export_compute(p, NULL), 0);
		ROW_CHECK(row, p->exports.libpmem.present, "no libpmem export", row->name);
		ROW_STR(row, "PMEM_MOVNT_THRESHOLD", env(&p->exports.libpmem,
							 "PMEM_MOVNT_THRESHOLD"),
			row->ex.pmem_movnt);
		ROW_CHECK(row, p->exports.kernel.present, "no kernel export", row->name);
		ROW_INT(row, "flushcache_nt_max_bytes", p->exports.kernel.threshold_bytes,
			row->ex.kernel_nt);
	}
	policy_free(p);
}

/* movnt ahead below 1 KiB, clwb from it: every cell decided, by separation */
static void clean_more(const struct rule_row *row, struct policy_op *op,
		       const struct crossover_cell *cells)
{
	int nt = curve_index(op, "movnt"), fl = curve_index(op, "clwb");

	for (size_t i = 0; i < NGRID; i++) {
		ROW_INT(row, "winner", cells[i].winner, grid[i] < 1024 ? nt : fl);
		ROW_INT(row, "runner-up", cells[i].runner_up, grid[i] < 1024 ? fl : nt);
		ROW_INT(row, "tie", cells[i].tie, 0);
		ROW_CHECK(row, cells[i].p_win > 0.999 && cells[i].p_win <= 1, "p_win %g",
			  row->name, cells[i].p_win);
	}
	/* deciding again replaces, same answer */
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 2);
	CHECK_INT(op->ncrossovers, 1);
	check_xo(op, 0, 1024, "movnt", "clwb");
}

/* every size a tie, p_win the true probability: below 0.5 where clwb's median is higher */
static void noisy_more(const struct rule_row *row, struct policy_op *op,
		       const struct crossover_cell *cells)
{
	int nt = curve_index(op, "movnt_avx2"), fl = curve_index(op, "clwb");

	for (size_t i = 0; i < NGRID; i++) {
		ROW_INT(row, "winner", cells[i].winner, nt);
		ROW_INT(row, "runner-up", cells[i].runner_up, fl);
		ROW_INT(row, "tie", cells[i].tie, 1);
		if (row->c[0].v[i] > row->c[1].v[i])
			ROW_CHECK(row, cells[i].p_win < 0.5 && cells[i].p_win > 0.3, "p_win %g",
				  row->name, cells[i].p_win);
		else
			ROW_CHECK(row, cells[i].p_win >= 0.5 && cells[i].p_win < 0.7, "p_win %g",
				  row->name, cells[i].p_win);
	}
}

/* a reference curve far above the copies is neither winner nor runner-up */
static void reference_more(const struct rule_row *row, struct policy_op *op,
			   const struct crossover_cell *cells)
{
	int ri = curve_index(op, "noflush");

	for (size_t i = 0; i < NGRID; i++) {
		ROW_CHECK(row, cells[i].winner != ri, "winner is the reference", row->name);
		ROW_CHECK(row, cells[i].runner_up != ri, "runner-up is the reference", row->name);
		ROW_INT(row, "tie", cells[i].tie, 0);
	}
}

/*
 * no decision where neither is measured, where a median has no samples,
 * and where one family is measured alone (no comparison)
 */
static void missing_more(const struct rule_row *row, struct policy_op *op,
			 const struct crossover_cell *cells)
{
	ROW_INT(row, "winner at 64", cells[0].winner, -1);
	ROW_INT(row, "winner at 128", cells[1].winner, -1);
	ROW_INT(row, "verdict at 128", cells[1].verdict, POLICY_FAMILY_NONE);
	ROW_INT(row, "winner at 256", cells[2].winner, -1);
	ROW_INT(row, "winner at 1024", cells[4].winner, curve_index(op, "clwb"));
}

/* the island is marked; max bounds the list; no cells or no op, no list */
static void island_more(const struct rule_row *row, struct policy_op *op,
			const struct crossover_cell *cells)
{
	struct second_look rc[NGRID];

	ROW_CHECK(row, cells[4].island, "1 KiB is no island", row->name);
	CHECK_INT(crossover_rechecks(op, cells, rc, 0), 0);
	CHECK_INT(crossover_rechecks(op, NULL, rc, NGRID), 0);
	CHECK_INT(crossover_rechecks(NULL, cells, rc, NGRID), 0);
}

/* the confirmed island at 96 B is clwb's by separation; no other size is touched */
static void kept_island_more(const struct rule_row *row, struct policy_op *op,
			     const struct crossover_cell *cells)
{
	ROW_INT(row, "winner at 96", cells[1].winner, curve_index(op, "clwb"));
	ROW_INT(row, "tie at 96", cells[1].tie, 0);
	for (size_t i = 0; i < op->nsizes; i++)
		if (i != 1)
			ROW_CHECK(row, !cells[i].confirmed &&
				  cells[i].family == POLICY_FAMILY_STREAMING,
				  "size %zu confirmed %d family %d", row->name, i,
				  cells[i].confirmed, cells[i].family);
	/* deciding again (a replay) gives the same: the flags are in the op */
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 3);
	CHECK_INT(op->ncrossovers, 2);
}

/* a 1 % lead is a tie: the default member wins every size */
static void member_tie_more(const struct rule_row *row, struct policy_op *op,
			    const struct crossover_cell *cells)
{
	for (size_t i = 0; i < op->nsizes; i++)
		ROW_INT(row, "winner", cells[i].winner, curve_index(op, "movnt_avx2"));
}

/*
 * the member rechecks are bounded by max; a fresh look that shows the
 * lead at 1 KiB only makes no run spanning 4x: the range is gone
 */
static void member_fresh_more(const struct rule_row *row, struct policy_op *op,
			      const struct crossover_cell *cells)
{
	struct second_look rc[4];
	struct policy_curve *a = mkpolicy_curve_of(op, "movnt_sse2");

	ROW_INT(row, "member rechecks, max 2", crossover_member_rechecks(op, cells, rc, 2), 2);
	a->median_mib_s[1] = a->median_mib_s[2] = 10100;
	a->ci_lo_mib_s[1] = a->ci_lo_mib_s[2] = 10100 * 0.999;
	a->ci_hi_mib_s[1] = a->ci_hi_mib_s[2] = 10100 * 1.001;
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 1);
	CHECK_STR(op->ranges[0].strategy, "movnt_avx2");
}

static const uint64_t six[] = { 64, 128, 256, 512, 1024, 2048 };
static const uint64_t five[] = { 256, 512, 1024, 2048, 4096 };
/* The standard grid's first sizes: 96 B ends in a partial line. */
static const uint64_t lines[] = { 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048 };
static const uint64_t members[] = { 1024, 2048, 4096, 8192 };
/* --quick's grid (x4) */
static const uint64_t quick[] = { 64, 256, 1024, 4096 };

/* movnt and clwb in the clean row's shape */
#define MOVNT_LOW { 2000, 2000, 2000, 2000, 1000, 1000, 1000, 1000, 1000, 1000, 1000 }
#define CLWB_HIGH { 1000, 1000, 1000, 1000, 2000, 2000, 2000, 2000, 2000, 2000, 2000 }
/* the island rows: movnt 50 % ahead everywhere but 96 B, where clwb leads (or not) */
#define ISLAND(nt96) { 3000, nt96, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000 }
#define ISLAND_CLWB(c96) { 2000, c96, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000 }
/* the unresolved rows: streaming flat, cached well below but at 1 KiB */
#define CACHED_1K { 1000, 1000, 1000, 1000, 3000, 1000, 1000, 1000, 1000, 1000, 1000 }
#define CACHED_1K_BY_A_HAIR { 1000, 1000, 1000, 1000, 3001, 1000, 1000, 1000, 1000, 1000, 1000 }
#define STREAMING_FAMILY(hw)								\
	{ "movnt", hw, 0, FLAT(2000) }, { "movnt_sse2", hw, 0, FLAT(2000) },		\
	{ "movnt_avx2", hw, 0, FLAT(2000) }

static const struct rule_row rows[] = {
	{
		.name = "clean: movnt below 1 KiB, clwb from it, far apart and tight",
		.c = { { "movnt", 20, 0, MOVNT_LOW }, { "clwb", 20, 0, CLWB_HIGH } },
		.r = { { 0, 1024, "movnt" }, { 1024, OPEN, "clwb" } },
		.x = { { 1024, "movnt", "clwb", .conf_gt = 0.99 } },
		.more = clean_more,
	},
	{
		.name = "clean, medians only: decided, each side of the boundary a coin toss",
		.c = { { "movnt", 0, 0, MOVNT_LOW }, { "clwb", 0, 0, CLWB_HIGH } },
		.r = { { 0, 1024, "movnt" }, { 1024, OPEN, "clwb" } },
		.x = { { 1024, "movnt", "clwb", CONF_NEAR(0.25) } },
	},
	{
		.name = "clean, and a reference curve far above: it decides nothing",
		.c = { { "movnt", 20, 0, MOVNT_LOW }, { "clwb", 20, 0, CLWB_HIGH },
		       { "noflush", 10, 0, FLAT(50000), .reference_only = true } },
		.r = { { 0, 1024, "movnt" }, { 1024, OPEN, "clwb" } },
		.x = { { 1024, "movnt", "clwb", .conf_gt = 0.9 } },
		.more = reference_more,
	},
	{
		.name = "only a reference curve: nothing to decide",
		.c = { { "noflush", 10, 0, FLAT(50000), .reference_only = true } },
	},
	{
		.name = "two crossovers: clwb, movnt_avx512 in [512, 16 KiB), clwb",
		.c = { { "clwb", 50, 0,
			 { 2800, 2800, 2800, 2003, 2004, 2005, 2006, 2007, 2800, 2800, 2800 } },
		       { "movnt_avx512", 50, 0,
			 { 1500, 1501, 1502, 3000, 3000, 3000, 3000, 3000, 1508, 1509, 1510 } } },
		.r = { { 0, 512, "clwb" }, { 512, 16384, "movnt_avx512" },
		       { 16384, OPEN, "clwb" } },
		.x = { { 512, "clwb", "movnt_avx512", .conf_gt = 0.9 },
		       { 16384, "movnt_avx512", "clwb", .conf_gt = 0.9 } },
	},
	{
		.name = "noisy tie: medians wobble around each other, intervals overlap",
		.c = { { "clwb", 200, 0,
			 { 1025, 980, 980, 1025, 980, 980, 1025, 980, 980, 1025, 980 } },
		       { "movnt_avx2", 200, 0,
			 { 970, 1030, 970, 1030, 970, 1030, 970, 1030, 970, 1030, 970 } } },
		.r = { { 0, OPEN, "movnt_avx2", true } },
		.more = noisy_more,
	},
	{
		.name = "one winner throughout; the reference above both decides nothing",
		.c = { { "movnt_avx2", 30, 0,
			 { 2000, 2300, 2600, 2900, 3200, 3500, 3800, 4100, 4400, 4700, 5000 } },
		       { "clflushopt", 30, 0,
			 { 5000, 5100, 5200, 5300, 5400, 5500, 5600, 5700, 5800, 5900, 6000 } },
		       { "noflush", 30, 0, FLAT(9000), .reference_only = true } },
		.r = { { 0, OPEN, "clflushopt" } },
	},
	{
		.name = "all tied, streaming prior: movnt_avx512, never the highest median",
		.c = { { "clflushopt", 100, 0, FLAT(1000) }, { "movnt", 100, 0, FLAT(1010) },
		       { "clwb", 100, 0, FLAT(1020) }, { "movnt_avx512", 100, 0, FLAT(990) },
		       { "movdir64b", 100, 0, FLAT(1040) } },
		.r = { { 0, OPEN, "movnt_avx512", true } },
	},
	{
		.name = "all tied, cached only: clwb",
		.c = { { "clflush", 100, 0, FLAT(1000) }, { "memcpy_clwb", 100, 0, FLAT(1010) },
		       { "clflushopt", 100, 0, FLAT(1020) }, { "clwb", 100, 0, FLAT(990) } },
		.r = { { 0, OPEN, "clwb", true } },
	},
	{
		.name = "all tied, an unknown name: clflush",
		.c = { { "zzz_unknown", 100, 0, FLAT(1000) }, { "clflush", 100, 0, FLAT(990) } },
		.r = { { 0, OPEN, "clflush", true } },
	},
	{
		.name = "near-ties never make a range: six members within 3 %",
		.c = { { "movnt_avx512", 60, 0, { 5000, 5075, 5150, 5037.5, 5112.5, 5000, 5075,
						  5150, 5037.5, 5112.5, 5000 } },
		       { "movnt_avx2", 60, 0, { 5112.5, 5000, 5075, 5150, 5037.5, 5112.5, 5000,
						5075, 5150, 5037.5, 5112.5 } },
		       { "movdir64b", 60, 0, { 5037.5, 5112.5, 5000, 5075, 5150, 5037.5, 5112.5,
					       5000, 5075, 5150, 5037.5 } },
		       { "clwb", 60, 0, { 5150, 5037.5, 5112.5, 5000, 5075, 5150, 5037.5, 5112.5,
					  5000, 5075, 5150 } },
		       { "clflushopt", 60, 0, { 5075, 5150, 5037.5, 5112.5, 5000, 5075, 5150,
						5037.5, 5112.5, 5000, 5075 } },
		       { "rep_movsb_clwb", 60, 0, { 5000, 5075, 5150, 5037.5, 5112.5, 5000, 5075,
						    5150, 5037.5, 5112.5, 5000 } } },
		.r = { { 0, OPEN, "movnt_avx512", true } },
		.margin = CROSSOVER_MARGIN_FLOOR,
	},
	{
		.name = "unknown names are in no family: nothing decided",
		.c = { { "vendor_a", 100, 0, FLAT(1000) }, { "vendor_b", 100, 0, FLAT(1010) } },
	},
	{
		.name = "missing cells: 64 and 256 unmeasured, movnt missing at 512, clwb at 128",
		SIZES(six),
		.c = { { "movnt", 10, 0, { X, 3000, X, X, 1000, 1000 } },
		       /* a median without samples at 64 does not count */
		       { "clwb", 10, 0, { 99999, X, X, 3000, 3000, 3000 }, .unsampled = 1 << 0 } },
		.r = { { 0, OPEN, "clwb" } },
		.more = missing_more,
	},
	{
		.name = "the boundary is judged at the nearest sizes both were measured",
		SIZES(six),
		.c = { { "movnt", 10, 0, { 3000, 3000, 3000, 3000, 1000, 1000 } },
		       { "clwb", 10, 0, { 1000, 1000, 1000, X, 3000, 3000 } } },
		.r = { { 0, 1024, "movnt" }, { 1024, OPEN, "clwb" } },
		.x = { { 1024, "movnt", "clwb", .conf_gt = 0.9 } },
	},
	{
		/*
		 * 512 and 1024 tie: between the two families they take the
		 * prior, streaming, so the boundary at 2048 is backed by a tied
		 * size below it: P(movnt > clwb at 1024) < 0.5
		 */
		.name = "confidence: a tied size backs the boundary",
		SIZES(five),
		.c = { { "movnt_sse2", 30, 0, { 3000, 1000, 990, 900, 900 } },
		       { "clwb", 30, 0, { 1000, 990, 1000, 2000, 2000 } } },
		.r = { { 0, 2048, "movnt_sse2" }, { 2048, OPEN, "clwb" } },
		.x = { { 2048, "movnt_sse2", "clwb", .conf_lt = 0.5 } },
	},
	{
		.name = "confidence: marginal but right, 1000 vs 980 at the last lower size",
		SIZES(five),
		.c = { { "movnt_sse2", 30, 0, { 3000, 2000, 1000, 900, 900 } },
		       { "clwb", 30, 0, { 1000, 1000, 980, 2000, 2000 } } },
		.r = { { 0, 2048, "movnt_sse2" }, { 2048, OPEN, "clwb" } },
		.x = { { 2048, "movnt_sse2", "clwb", .conf_gt = 0.5, .conf_lt = 0.9 } },
	},
	{
		.name = "rechecks: one clean winner everywhere, nothing to measure again",
		.c = { { "clwb", 50, 0, FLAT(3000) }, { "movnt", 50, 0, FLAT(2000) } },
		.r = { { 0, OPEN, "clwb" } },
	},
	{
		.name = "rechecks: C C S C C won by separation, an island dropped and listed",
		.c = { { "clwb", 50, 0, FLAT(3000) },
		       { "movnt", 50, 0, { 2000, 2000, 2000, 2000, 3500, 2000, 2000, 2000, 2000,
					   2000, 2000 } } },
		.rc = { { 4, SECOND_LOOK_ISLAND, "movnt", "clwb", STREAMING } },
		.r = { { 0, OPEN, "clwb" } },
		.more = island_more,
	},
	{
		.name = "rechecks: within the margin it is a tie, no island, no range",
		.c = { { "clwb", 50, 0, FLAT(3000) },
		       { "movnt", 50, 0, { 2000, 2000, 2000, 2000, 3100, 2000, 2000, 2000, 2000,
					   2000, 2000 } } },
		.r = { { 0, OPEN, "clwb" } },
	},
	{
		.name = "rechecks: a one-size departure from the prior at an edge is an island",
		.c = { { "clwb", 50, 0, { 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
					  1000, 3000 } },
		       { "movnt", 50, 0, FLAT(2000) } },
		.rc = { { NGRID - 1, SECOND_LOOK_EDGE, "clwb", "movnt", CACHED } },
		.r = { { 0, OPEN, "movnt" } },
	},
	{
		.name = "rechecks: two sizes are a range, not an island",
		.c = { { "clwb", 50, 0, { 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
					  3000, 3000 } },
		       { "movnt", 50, 0, FLAT(2000) } },
		.r = { { 0, 32768, "movnt" }, { 32768, OPEN, "clwb" } },
		.x = { { 32768, "movnt", "clwb", .kind = "family" } },
	},
	{
		/* clflushopt best by a hair, clwb second (the representative), wide */
		.name = "unresolved: a tie that only the representative's interval makes",
		.c = { STREAMING_FAMILY(50),
		       { "clwb", 50, 0, CACHED_1K, .wide = { 4, 1500 } },
		       { "clflushopt", 50, 0, CACHED_1K_BY_A_HAIR },
		       { "clflush", 50, 0, CACHED_1K } },
		.rc = { { 4, SECOND_LOOK_UNRESOLVED, "clwb", "movnt_sse2", CACHED } },
		/* the rule itself is unchanged: a tie, and the streaming run holds */
		.r = { { 0, OPEN, "movnt_avx2" } },
	},
	{
		.name = "unresolved: a tie two members' intervals make is not listed",
		.c = { STREAMING_FAMILY(50),
		       { "clwb", 50, 0, CACHED_1K, .wide = { 4, 1500 } },
		       { "clflushopt", 50, 0, CACHED_1K_BY_A_HAIR, .wide = { 4, 1500 } },
		       { "clflush", 50, 0, CACHED_1K } },
		.r = { { 0, OPEN, "movnt_avx2" } },
	},
	{
		.name = "island: clwb 25 % ahead at 96 B, measured once: dropped, listed",
		SIZES(lines),
		.c = { { "movnt", 30, 0, ISLAND(2400) }, { "clwb", 30, 0, ISLAND_CLWB(3000) } },
		.rc = { { 1, SECOND_LOOK_ISLAND, "clwb", "movnt", CACHED } },
		.cell = { true, 1, CACHED, STREAMING, .island = true },
		.r = { { 0, OPEN, "movnt" } },
		/* streaming from the first size */
		.ex = { "64", OPEN },
	},
	{
		.name = "island: confirmed on one family's representative only, still dropped",
		SIZES(lines),
		.c = { { "movnt", 30, 0, ISLAND(2400) },
		       { "clwb", 30, 0, ISLAND_CLWB(3000), .confirmed = 1 << 1 } },
		.rc = { { 1, SECOND_LOOK_ISLAND, "clwb", "movnt", CACHED } },
		.cell = { true, 1, CACHED, STREAMING, .island = true },
		.r = { { 0, OPEN, "movnt" } },
	},
	{
		/*
		 * a threshold cannot express it: the exports take the value
		 * that reproduces the rest of the decision, as without it
		 */
		.name = "island: confirmed on both, kept: a range and a crossover each side",
		SIZES(lines),
		.c = { { "movnt", 30, 0, ISLAND(2400), .confirmed = 1 << 1 },
		       { "clwb", 30, 0, ISLAND_CLWB(3000), .confirmed = 1 << 1 } },
		.cell = { true, 1, CACHED, CACHED, .confirmed = true },
		.r = { { 0, 96, "movnt" }, { 96, 128, "clwb" }, { 128, OPEN, "movnt" } },
		.x = { { 96, "movnt", "clwb", .conf_gt = 0.9, .kind = "family" },
		       { 128, "clwb", "movnt", .conf_gt = 0.9, .kind = "family" } },
		.ex = { "64", OPEN },
		.more = kept_island_more,
	},
	{
		.name = "island: confirmed, but within the margin: a tie, no range",
		SIZES(lines),
		.c = { { "movnt", 30, 0, ISLAND(2950), .confirmed = 1 << 1 },
		       { "clwb", 30, 0, ISLAND_CLWB(3000), .confirmed = 1 << 1 } },
		.cell = { true, 1, CROSSOVER_TIE, STREAMING },
		.r = { { 0, OPEN, "movnt" } },
	},
	{
		.name = "island: a confirmed size that is no island needs no keeping",
		SIZES(lines),
		.c = { { "movnt", 30, 0, ISLAND(3000), .confirmed = 1 << 1 },
		       { "clwb", 30, 0, ISLAND_CLWB(2000), .confirmed = 1 << 1 } },
		.cell = { true, 1, STREAMING, STREAMING },
		.r = { { 0, OPEN, "movnt" } },
	},
	{
		/* sse2 ahead by 1 %, 1 %, then 10 % once, each with a 0.2 % interval */
		.name = "member: a 1 % lead is a tie, one 10 % size no run: the default",
		SIZES(members), .samples = 41,
		.c = { { "movnt_sse2", 0, 0.001, { 10100, 10100, 11000, 10000 } },
		       { "movnt_avx2", 0, 0.001, FLAT(10000) } },
		.r = { { 0, OPEN, "movnt_avx2", true, "streaming" } },
		.more = member_tie_more,
	},
	{
		/* one family only: no family was won by separation */
		.name = "member: a 10 % lead from 1 KiB to 4 KiB, a run spanning 4x",
		SIZES(members), .samples = 41,
		.c = { { "movnt_sse2", 0, 0.001, { 11000, 11000, 11000, 10000 } },
		       { "movnt_avx2", 0, 0.001, FLAT(10000) } },
		.r = { { 0, 8192, "movnt_sse2", true }, { 8192, OPEN, "movnt_avx2", true } },
		.x = { { 8192, "movnt_sse2", "movnt_avx2", .kind = "member" } },
		/* each size of the member range: sse2 and the default, avx2 */
		.mrc = { { 0, SECOND_LOOK_MEMBER, "movnt_sse2", "movnt_avx2", POLICY_FAMILY_NONE },
			 { 1, SECOND_LOOK_MEMBER, "movnt_sse2", "movnt_avx2", POLICY_FAMILY_NONE },
			 { 2, SECOND_LOOK_MEMBER, "movnt_sse2", "movnt_avx2",
			   POLICY_FAMILY_NONE } },
		.more = member_fresh_more,
	},
	{
		/* on --quick's grid two sizes span 4x: a member needs three */
		.name = "member, quick grid: movdir64b 10 % ahead at 64 and 256 B is no range",
		SIZES(quick), .samples = 15,
		.c = { { "movdir64b", 0, 0.001, { 1100, 1100, 1000, 1000 } },
		       { "movnt_avx512", 0, 0.001, FLAT(1000) } },
		.r = { { 0, OPEN, "movnt_avx512", true } },
	},
	{
		.name = "member, quick grid: movdir64b 10 % ahead from 64 B to 1 KiB is",
		SIZES(quick), .samples = 15,
		.c = { { "movdir64b", 0, 0.001, { 1100, 1100, 1100, 1000 } },
		       { "movnt_avx512", 0, 0.001, FLAT(1000) } },
		.r = { { 0, 4096, "movdir64b", true }, { 4096, OPEN, "movnt_avx512", true } },
		.x = { { 4096, "movdir64b", "movnt_avx512", .kind = "member" } },
		.mrc = { { 0, SECOND_LOOK_MEMBER, "movdir64b", "movnt_avx512", POLICY_FAMILY_NONE },
			 { 1, SECOND_LOOK_MEMBER, "movdir64b", "movnt_avx512", POLICY_FAMILY_NONE },
			 { 2, SECOND_LOOK_MEMBER, "movdir64b", "movnt_avx512",
			   POLICY_FAMILY_NONE } },
	},
};

static void test_rule_table(void)
{
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
		run_row(&rows[k]);
}

static const struct rule_row *row_named(const char *prefix)
{
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
		if (!strncmp(rows[k].name, prefix, strlen(prefix)))
			return &rows[k];
	fprintf(stderr, "no row %s\n", prefix);
	exit(EXIT_FAILURE);
}

static struct policy_op *clean_op(void)
{
	return row_op(row_named("clean:"), tgt);
}

/* What an op without measurements decides, and the API's bad input. */
static void test_nothing_measured(void)
{
	static const uint64_t sizes[] = { 64, 128, 256, 512, 1024, 2048 };
	struct crossover_cell cells[6];
	struct policy_op *op;

	/* an op with nothing measured: no ranges, old ones dropped */
	op = new_op(sizes, 6);
	mkpolicy_curve_of(op, "movnt");
	mkpolicy_curve_of(op, "clwb");
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
	mkpolicy_curve_of(op, "movnt")->median_mib_s[2] = 1000;
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 0);

	/* an op without sizes or curves */
	op = new_op(NULL, 0);
	CHECK_INT(crossover_cells(op, NULL), 0);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(op->nranges, 0);
	CHECK_INT(crossover_cells(NULL, cells), -EINVAL);
	CHECK_INT(crossover_decide(NULL), -EINVAL);
}

/*
 * A threshold cannot express a kept island: the island's size shows as
 * regret, the values are those without it (the rows' ex column).
 */
static void test_confirmed_island_regret(void)
{
	struct policy_op *op;
	struct policy *dropped = row_policy(row_named("island: clwb 25 %"), &op);
	struct policy *kept;

	CHECK_INT(crossover_decide(op), 0);
	kept = row_policy(row_named("island: confirmed on both"), &op);
	CHECK_INT(crossover_decide(op), 0);
	CHECK_INT(export_compute(dropped, NULL), 0);
	CHECK_INT(export_compute(kept, NULL), 0);
	CHECK_MSG(kept->exports.libpmem.regret > dropped->exports.libpmem.regret,
		  "regret %g, dropped %g", kept->exports.libpmem.regret,
		  dropped->exports.libpmem.regret);
	policy_free(dropped);
	policy_free(kept);
}

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
	mkpolicy_curve_of(op, "noflush")->reference_only = true;
	m = crossover_margin(op);
	CHECK(m > 0);
	for (size_t k = 0; k < n; k++)
		first[curve_index(op, names[k])] = mkpolicy_curve_of(op, names[k])->median_mib_s[0];

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
		mkpolicy_curve_of(op, names[k])->median_mib_s[1] = NAN;
	}
	CHECK(crossover_looks_agree(op, 1, first));
	first[curve_index(op, "clwb")] /= 3;
	first[curve_index(op, "clflushopt")] /= 3;
	CHECK(!crossover_looks_agree(op, 1, first));
	CHECK(crossover_looks_agree(op, NGRID, first));
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
	set_cell(mkpolicy_curve_of(op, "movnt"), (size_t)idx, 1000, 20);
	set_cell(mkpolicy_curve_of(op, "clwb"), (size_t)idx, 2000, 20);
	mkpolicy_curve_of(op, "movnt_avx2");	/* a curve not measured at the new size */
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

static void test_smooth_confirmed(void)
{
	enum { S = POLICY_FAMILY_STREAMING, C = POLICY_FAMILY_CACHED_FLUSH, T = CROSSOVER_TIE };
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
	mkpolicy_curve_of(op, "noflush")->reference_only = true;
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
	pol = mkpolicy_new(NULL, NULL);
	tgt = mkpolicy_target(pol, "region0", "", NULL);

	test_strategy_class();
	test_rule_table();
	test_nothing_measured();
	test_looks_agree();
	test_confirmed_island_regret();
	test_smooth_confirmed();
	test_brackets_midpoint();
	test_suspect_cells();
	test_spike_cells();

	policy_free(pol);
	return check_report("test_crossover");
}
