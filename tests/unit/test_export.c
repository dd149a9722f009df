// SPDX-License-Identifier: GPL-2.0-or-later
/* Exports and their regret on synthetic curves with known answers. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mkpolicy.h"
#include "policy/policy.h"
#include "rule/crossover.h"
#include "rule/export.h"

/* sizes 64 .. 64 << (n-1), powers of two: even weights on the log axis */
#define N 8
static const uint64_t sizes[N] = { 64, 128, 256, 512, 1024, 2048, 4096, 8192 };

/* Curve name of op from v, each cell +-1 %, 11 samples. */
static void set_curve(struct policy_op *op, const char *name, const double *v)
{
	mkpolicy_curve(op, name, v, 0.01, 11);
}

static struct policy *two_curve_policy(const char *low, const double *lv, const char *high,
				       const double *hv)
{
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_op *op = mkpolicy_op(mkpolicy_target(p, "dram", "dram", NULL), "sequential",
					   sizes, N, NULL, 0);

	set_curve(op, low, lv);
	set_curve(op, high, hv);
	crossover_decide(op);
	return p;
}

static const char *kv(const struct policy_export *e, const char *key)
{
	for (size_t i = 0; i < e->nkv; i++)
		if (!strcmp(e->kv[i].key, key))
			return e->kv[i].value;
	return NULL;
}

/* PMDK's threshold on curves 2x apart: clwb below 1024, movnt_avx2 from it. */
static const double lv2x[N] = { 200, 400, 800, 1600, 1000, 1000, 1000, 1000 };
static const double hv2x[N] = { 100, 200, 400, 800, 2000, 2000, 2000, 2000 };

static void test_knob_loss(void)
{
	struct policy *p = two_curve_policy("clwb", lv2x, "movnt_avx2", hv2x);
	struct export_knob_loss l;
	char b[24];

	/* the right threshold costs nothing */
	CHECK_INT(export_knob_loss(p, EXPORT_KNOB_PMEM_MOVNT, 1024, 0, NULL, &l), 0);
	CHECK_NEAR(l.mean, 0, 1e-12);
	CHECK_NEAR(l.worst, 0, 1e-12);
	/* always non-temporal: half the throughput on 4 of 8 evenly weighted sizes */
	CHECK_INT(export_knob_loss(p, EXPORT_KNOB_PMEM_MOVNT, 0, 0, NULL, &l), 0);
	CHECK_NEAR(l.mean, 0.25, 1e-12);
	CHECK_NEAR(l.worst, 0.5, 1e-12);
	CHECK_INT(l.worst_bytes, 64);
	/* never non-temporal: likewise */
	CHECK_INT(export_knob_loss(p, EXPORT_KNOB_PMEM_MOVNT, POLICY_SIZE_OPEN, 0, NULL, &l), 0);
	CHECK_NEAR(l.mean, 0.25, 1e-12);
	CHECK_INT(l.worst_bytes, 1024);
	/* one size on the wrong side: 0.5 of it, at 1/8 weight (end sizes weigh half) */
	CHECK_INT(export_knob_loss(p, EXPORT_KNOB_PMEM_MOVNT, 2048, 0, NULL, &l), 0);
	CHECK_NEAR(l.mean, 0.5 / 8, 1e-12);
	CHECK_INT(export_knob_best(p, EXPORT_KNOB_PMEM_MOVNT, 0, NULL, &l), 0);
	CHECK_INT(l.threshold_bytes, 1024);
	CHECK_NEAR(l.mean, 0, 1e-12);
	/* a knob of curves the policy lacks (no noflush): no answer */
	CHECK_INT(export_knob_loss(p, EXPORT_KNOB_GLIBC_NT, 1024, 0, NULL, &l), -ENOENT);
	CHECK_INT(export_knob_best(p, EXPORT_KNOB_GLIBC_NT, 0, NULL, &l), -ENOENT);
	policy_free(p);

	/* glibc takes no x86_non_temporal_threshold under 0x4041: the best is one it takes */
	p = two_curve_policy("noflush", lv2x, "movnt_avx2", hv2x);
	CHECK_INT(export_knob_least(p, EXPORT_KNOB_GLIBC_NT), 0x4041);
	CHECK_INT(export_knob_least(p, EXPORT_KNOB_PMEM_MOVNT), 0);
	/* glibc's least rep movsb threshold: eight vectors, of the widest the CPU has */
	CHECK_INT(export_knob_least(p, EXPORT_KNOB_GLIBC_REP_MOVSB), 128 + 1);
	policy_cpu_add_feature(&p->platform.cpu, "avx2");
	CHECK_INT(export_knob_least(p, EXPORT_KNOB_GLIBC_REP_MOVSB), 256 + 1);
	policy_cpu_add_feature(&p->platform.cpu, "avx512f");
	CHECK_INT(export_knob_least(p, EXPORT_KNOB_GLIBC_REP_MOVSB), 512 + 1);
	/* values as each consumer writes them; the kernel's N is its switch point less one */
	CHECK_STR(export_knob_format(EXPORT_KNOB_GLIBC_NT, 0x4041, b, sizeof(b)), "0x4041");
	CHECK_STR(export_knob_format(EXPORT_KNOB_KERNEL_NT, 769, b, sizeof(b)), "768");
	CHECK_STR(export_knob_format(EXPORT_KNOB_PMEM_MOVNT, POLICY_SIZE_OPEN, b, sizeof(b)),
		  "never");
	CHECK_STR(export_knob_name(EXPORT_KNOB_KERNEL_NT), "flushcache_nt_max_bytes");
	CHECK_INT(export_knob_best(p, EXPORT_KNOB_GLIBC_NT, 0, NULL, &l), 0);
	CHECK_INT(l.threshold_bytes, 0x4041);
	CHECK_NEAR(l.worst, 0.5, 1e-12);
	CHECK_INT(l.worst_bytes, 1024);
	policy_free(p);

	/* unknown strategies are in no family: no answer */
	p = two_curve_policy("nope", lv2x, "nada", hv2x);
	CHECK_INT(export_knob_loss(p, EXPORT_KNOB_PMEM_MOVNT, 1024, 0, NULL, &l), -ENOENT);
	CHECK_INT(export_knob_best(p, EXPORT_KNOB_PMEM_MOVNT, 0, NULL, &l), -ENOENT);
	policy_free(p);
}

/* Nearly equal curves: every value loses nothing, so the default stays on every probe. */
static void test_nearly_equal(void)
{
	const double lv[N] = { 1000, 1001, 999, 1002, 1000, 998, 1001, 1000 };
	const double hv[N] = { 1001, 999, 1000, 1000, 1002, 1000, 999, 1001 };
	struct policy *p = two_curve_policy("clwb", lv, "movnt_avx2", hv), *base;
	struct export_knob_loss l;
	const char *v;

	/* ties cost nothing: the best in hindsight is the smallest candidate, at no loss */
	CHECK_INT(export_knob_best(p, EXPORT_KNOB_PMEM_MOVNT, 1, NULL, &l), 0);
	CHECK_INT(l.threshold_bytes, 0);
	CHECK_NEAR(l.worst, 0, 1e-12);
	CHECK_NEAR(l.mean, 0, 1e-12);
	CHECK_INT(export_compute(p, NULL), 0);
	v = kv(&p->exports.libpmem, "PMEM_MOVNT_THRESHOLD");
	CHECK_MSG(v && !strcmp(v, "256"), "PMEM_MOVNT_THRESHOLD=%s", v ? v : "(none)");
	CHECK_STR(p->exports.libpmem.source, "default");
	CHECK_NEAR(p->exports.libpmem.regret, 0, 1e-12);
	policy_free(p);

	/* a baseline value that costs 25 % is not kept */
	p = two_curve_policy("clwb", lv2x, "movnt_avx2", hv2x);
	base = two_curve_policy("clwb", lv2x, "movnt_avx2", hv2x);
	CHECK_INT(export_compute(base, NULL), 0);
	CHECK_STR(base->exports.libpmem.kv[0].key, "PMEM_MOVNT_THRESHOLD");
	snprintf(base->exports.libpmem.kv[0].value, POLICY_NAME_MAX, "%d", 1 << 20);
	CHECK_INT(export_compute_with_baseline(p, NULL, base), 0);
	v = kv(&p->exports.libpmem, "PMEM_MOVNT_THRESHOLD");
	CHECK_MSG(v && !strcmp(v, "1024"), "PMEM_MOVNT_THRESHOLD=%s", v ? v : "(none)");
	CHECK_STR(p->exports.libpmem.baseline, "changed");
	policy_free(base);
	policy_free(p);
}

static void test_weights(void)
{
	struct policy *p = two_curve_policy("clwb", lv2x, "movnt_avx2", hv2x);
	struct export_weights w = { 0 };
	struct export_knob_loss l;
	char path[] = "/tmp/pt-weights-XXXXXX", err[256];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	/* a workload of nothing but 8 KiB copies: never-NT costs the full half */
	fprintf(f, "# size weight\n64 0\n8K 1\n");
	fclose(f);
	CHECK_INT(export_weights_load(path, &w, err, sizeof(err)), 0);
	CHECK_INT(export_knob_loss(p, EXPORT_KNOB_PMEM_MOVNT, POLICY_SIZE_OPEN, 0, &w, &l), 0);
	CHECK_NEAR(l.mean, 0.5, 1e-12);
	/* always non-temporal loses only at sizes of no weight: nothing, at worst too */
	CHECK_INT(export_knob_loss(p, EXPORT_KNOB_PMEM_MOVNT, 0, 0, &w, &l), 0);
	CHECK_NEAR(l.mean, 0, 1e-12);
	CHECK_NEAR(l.worst, 0, 1e-12);
	/* only the large size counts: the smallest threshold that wins there */
	CHECK_INT(export_knob_best(p, EXPORT_KNOB_PMEM_MOVNT, 0, &w, &l), 0);
	CHECK_INT(l.threshold_bytes, 0);
	export_weights_free(&w);

	f = fopen(path, "w");
	fprintf(f, "64 1\n32 1\n");
	fclose(f);
	CHECK(export_weights_load(path, &w, err, sizeof(err)) < 0);
	CHECK_MSG(strstr(err, ":2:") && strstr(err, "ascending"), "%s", err);
	f = fopen(path, "w");
	fprintf(f, "64 -1\n");
	fclose(f);
	CHECK(export_weights_load(path, &w, err, sizeof(err)) < 0);
	CHECK_MSG(strstr(err, path) != NULL, "%s", err);
	unlink(path);
	policy_free(p);
}

/*
 * The exports as a table: each row the curves of one dram target's op
 * (decided as the rule decides them), the CPU, and what export_compute()
 * writes from them.
 */
#define OPEN POLICY_SIZE_OPEN
#define FLAT(x) { x, x, x, x, x, x, x, x }
enum { LIBPMEM = 1, KERNEL = 2, GLIBC = 4 };
#define ABSENT NULL

static const uint64_t gsizes[N] = { 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072 };

struct export_row {
	const char *name;
	const uint64_t *sizes;		/* N of them; NULL: sizes */
	const char *features[3];	/* the CPU's */
	uint64_t llc_bytes;
	double rel;			/* each cell's interval: +-rel of its median; 0: 1 % */
	struct {
		const char *strategy;
		double v[N];
		bool reference_only;
	} c[6];
	/* op's ranges edited by hand after the decision (a baseline's may be so) */
	void (*ranges)(struct policy_op *op);
	const char *range_strategies[3];	/* the ranges' strategies; none: not asserted */
	unsigned present;		/* the exports written: LIBPMEM | KERNEL | GLIBC */
	struct {
		const char *key, *value;	/* value ABSENT: the key is not written */
	} kv[6];
	uint64_t kernel_nt;		/* 0: not asserted */
	const char *source[3];		/* libpmem, kernel, glibc; NULL: not asserted */
	double regret_lt[3];		/* 0: not asserted */
	uint64_t movsb_above;		/* x86_rep_movsb_threshold above it; 0: not asserted */
	void (*more)(const struct export_row *row, struct policy *p);
};

#define ROW_CHECK(row, cond, ...) CHECK_MSG(cond, "row \"%s\": " __VA_ARGS__)

static const char *kv_any(const struct policy *p, const char *key)
{
	const struct policy_export *e[3] = { &p->exports.libpmem, &p->exports.kernel,
					     &p->exports.glibc };

	for (int k = 0; k < 3; k++)
		if (kv(e[k], key))
			return kv(e[k], key);
	return NULL;
}

static struct policy *export_row_policy(const struct export_row *row)
{
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_op *op = mkpolicy_op(mkpolicy_target(p, "dram", "dram", NULL), "sequential",
					   row->sizes ? row->sizes : sizes, N, NULL, 0);

	for (size_t k = 0; k < 6 && row->c[k].strategy; k++)
		mkpolicy_curve(op, row->c[k].strategy, row->c[k].v, row->rel ? row->rel : 0.01,
			       11)->reference_only = row->c[k].reference_only;
	for (size_t k = 0; k < 3 && row->features[k]; k++)
		policy_cpu_add_feature(&p->platform.cpu, row->features[k]);
	p->platform.cpu.llc_bytes = row->llc_bytes;
	ROW_CHECK(row, crossover_decide(op) == 0, "crossover_decide() failed", row->name);
	return p;
}

/*
 * The probe asks for the exports' second looks before it decides: on the
 * same cells undecided, export_rechecks() leaves the exports p has.
 * Ranges kept by hand are a decision the cells do not make: not asked.
 */
static void check_undecided(const struct export_row *row, const struct policy *p)
{
	struct policy *q;
	struct policy_op *op;
	struct second_look rx[64];
	const struct policy_export *a[3], *b[3];

	if (row->ranges)
		return;
	q = export_row_policy(row);
	op = &q->targets[0].ops[0];
	free(op->ranges);
	free(op->crossovers);
	op->ranges = NULL;
	op->crossovers = NULL;
	op->nranges = op->ncrossovers = 0;
	ROW_CHECK(row, export_rechecks(q, NULL, NULL, &q->targets[0], rx, 64) >= 0,
		  "export_rechecks() failed", row->name);
	a[0] = &p->exports.libpmem, a[1] = &p->exports.kernel, a[2] = &p->exports.glibc;
	b[0] = &q->exports.libpmem, b[1] = &q->exports.kernel, b[2] = &q->exports.glibc;
	for (int c = 0; c < 3; c++) {
		ROW_CHECK(row, a[c]->present == b[c]->present && a[c]->nkv == b[c]->nkv &&
			  a[c]->threshold_bytes == b[c]->threshold_bytes,
			  "export %d undecided: present %d, %zu keys, not %d, %zu", row->name, c,
			  b[c]->present, b[c]->nkv, a[c]->present, a[c]->nkv);
		for (size_t i = 0; i < a[c]->nkv && i < b[c]->nkv; i++)
			ROW_CHECK(row, !strcmp(a[c]->kv[i].key, b[c]->kv[i].key) &&
				  !strcmp(a[c]->kv[i].value, b[c]->kv[i].value),
				  "undecided %s=%s, decided %s=%s", row->name, b[c]->kv[i].key,
				  b[c]->kv[i].value, a[c]->kv[i].key, a[c]->kv[i].value);
	}
	policy_free(q);
}

static void run_export_row(const struct export_row *row)
{
	static const char *const consumer[3] = { "libpmem", "kernel", "glibc" };
	struct policy *p = export_row_policy(row);
	struct policy_op *op = &p->targets[0].ops[0];
	const struct policy_export *e[3] = { &p->exports.libpmem, &p->exports.kernel,
					     &p->exports.glibc };
	double margin = NAN;
	size_t k;

	if (row->ranges)
		row->ranges(op);
	for (k = 0; k < 3 && row->range_strategies[k]; k++)
		ROW_CHECK(row, k < op->nranges && !strcmp(op->ranges[k].strategy,
							  row->range_strategies[k]),
			  "range %zu is %s, want %s", row->name, k,
			  k < op->nranges ? op->ranges[k].strategy : "(none)",
			  row->range_strategies[k]);
	if (k)
		ROW_CHECK(row, op->nranges == k, "%zu ranges, want %zu", row->name, op->nranges, k);
	ROW_CHECK(row, export_compute(p, NULL) == 0, "export_compute() failed", row->name);
	check_undecided(row, p);
	for (int c = 0; c < 3; c++) {
		bool want = row->present & (1u << c);

		ROW_CHECK(row, e[c]->present == want, "%s %s, want %s", row->name, consumer[c],
			  e[c]->present ? "exported" : "not exported", want ? "exported" : "not");
		if (!e[c]->present)
			continue;
		/* no baseline: every value is new, against the export margin */
		ROW_CHECK(row, !strcmp(e[c]->baseline, "new"), "%s baseline %s", row->name,
			  consumer[c], e[c]->baseline);
		if (isnan(margin))
			margin = e[c]->margin;
		ROW_CHECK(row, e[c]->margin >= CROSSOVER_MARGIN_FLOOR &&
			  e[c]->margin <= CROSSOVER_MARGIN_CAP && e[c]->margin == margin,
			  "%s margin %g, the first %g", row->name, consumer[c], e[c]->margin,
			  margin);
		if (row->source[c])
			ROW_CHECK(row, !strcmp(e[c]->source, row->source[c]),
				  "%s source %s, want %s", row->name, consumer[c], e[c]->source,
				  row->source[c]);
		if (row->regret_lt[c])
			ROW_CHECK(row, e[c]->regret >= 0 && e[c]->regret < row->regret_lt[c],
				  "%s regret %g, want below %g", row->name, consumer[c],
				  e[c]->regret, row->regret_lt[c]);
	}
	for (k = 0; k < 6 && row->kv[k].key; k++) {
		const char *v = kv_any(p, row->kv[k].key), *want = row->kv[k].value;

		ROW_CHECK(row, want ? v && !strcmp(v, want) : !v, "%s=%s, want %s", row->name,
			  row->kv[k].key, v ? v : "(none)", want ? want : "(none)");
	}
	if (row->kernel_nt)
		ROW_CHECK(row, p->exports.kernel.threshold_bytes == row->kernel_nt,
			  "flushcache_nt_max_bytes %llu, want %llu", row->name,
			  (unsigned long long)p->exports.kernel.threshold_bytes,
			  (unsigned long long)row->kernel_nt);
	if (row->movsb_above) {
		const char *v = kv_any(p, "glibc.cpu.x86_rep_movsb_threshold");

		ROW_CHECK(row, v && strtoull(v, NULL, 16) > row->movsb_above,
			  "%s is not above glibc's %#llx", row->name, v ? v : "(none)",
			  (unsigned long long)row->movsb_above);
	}
	if (row->more)
		row->more(row, p);
	policy_free(p);
}

/* op's ranges made by hand: movnt_avx512, then movnt_avx2 on [512, 1024), then avx512 again */
static void avx2_at_512(struct policy_op *op)
{
	static const uint64_t bound[4] = { 0, 512, 1024, POLICY_SIZE_OPEN };
	struct policy_range *r = calloc(3, sizeof(*r));

	if (!r)
		exit(EXIT_FAILURE);
	for (int k = 0; k < 3; k++) {
		r[k].from_bytes = bound[k];
		r[k].to_bytes = bound[k + 1];
		snprintf(r[k].strategy, sizeof(r[k].strategy), "%s",
			 k == 1 ? "movnt_avx2" : "movnt_avx512");
		snprintf(r[k].family, sizeof(r[k].family), "streaming");
	}
	free(op->ranges);
	free(op->crossovers);
	op->crossovers = NULL;
	op->ncrossovers = 0;
	op->ranges = r;
	op->nranges = 3;
}

/* the scoring as tests and benchmarks see it: the export is the best value here */
static void scored_as_exported(const struct export_row *row, struct policy *p)
{
	struct export_knob_loss l, e;
	uint64_t t;

	(void)row;
	CHECK_INT(export_knob_value(p, EXPORT_KNOB_GLIBC_NT, &t), 0);
	CHECK_INT(t, 0x8000);
	/* glibc's least, the first of the values that act as 0x8000 on this grid */
	CHECK_INT(export_knob_best(p, EXPORT_KNOB_GLIBC_NT, 1, NULL, &l), 0);
	CHECK_INT(l.threshold_bytes, 0x4041);
	CHECK_NEAR(l.worst, 0, 1e-12);
	CHECK_INT(export_knob_loss(p, EXPORT_KNOB_GLIBC_NT, t, 1, NULL, &e), 0);
	CHECK_NEAR(e.worst, l.worst, 1e-12);
	CHECK_NEAR(e.mean, l.mean, 1e-12);
	/* the default (3/4 of 1 MiB) leaves 1 - 1000 / 1100 at 32-128 KiB, the first its worst */
	CHECK_INT(export_knob_loss(p, EXPORT_KNOB_GLIBC_NT, 786432, 0, NULL, &l), 0);
	CHECK_NEAR(l.worst, 1 - 1000.0 / 1100, 1e-9);
	CHECK_INT(l.worst_bytes, 32768);
	CHECK_INT(export_knob_value(p, EXPORT_KNOB_PMEM_MOVNT, &t), -ENOENT);
}

/*
 * Installed PMEM_AVX512F=0 (avx2, half of avx512 here) is beaten: the
 * rule's setting (movdir64b) replaces it, not the default's, although the
 * default holds where nothing is installed (5.2 % at 1-4 KiB, under R).
 */
static void beaten_switch(const struct export_row *row, struct policy *p)
{
	struct policy *base = export_row_policy(row);
	struct policy_export *b = &base->exports.libpmem;
	const char *v;

	ROW_CHECK(row, export_compute(base, NULL) == 0, "export_compute() failed", row->name);
	ROW_CHECK(row, b->nkv < POLICY_EXPORT_KV_MAX, "%zu keys", row->name, b->nkv);
	if (b->nkv >= POLICY_EXPORT_KV_MAX) {
		policy_free(base);
		return;
	}
	snprintf(b->kv[b->nkv].key, sizeof(b->kv[b->nkv].key), "PMEM_AVX512F");
	snprintf(b->kv[b->nkv].value, sizeof(b->kv[b->nkv].value), "0");
	b->nkv++;
	ROW_CHECK(row, export_compute_with_baseline(p, NULL, base) == 0,
		  "export_compute_with_baseline() failed", row->name);
	v = kv(&p->exports.libpmem, "PMEM_MOVDIR64B");
	ROW_CHECK(row, v && !strcmp(v, "1"), "against PMEM_AVX512F=0: PMEM_MOVDIR64B=%s",
		  row->name, v ? v : "(none)");
	ROW_CHECK(row, !kv(&p->exports.libpmem, "PMEM_AVX512F"), "PMEM_AVX512F kept",
		  row->name);
	ROW_CHECK(row, !strcmp(p->exports.libpmem.baseline, "changed"), "baseline %s",
		  row->name, p->exports.libpmem.baseline);
	policy_free(base);
}

/* clwb, movnt_avx512 and movnt_avx2 (at a2 times avx512's, a2_512 at 512 B) */
#define MEMBERS(a2, a2_512)								\
	{ "clwb", FLAT(900) }, { "movnt_avx512", FLAT(2000) },				\
	{ "movnt_avx2", { 2000 * (a2), 2000 * (a2), 2000 * (a2), 2000 * (a2_512),	\
			  2000 * (a2), 2000 * (a2), 2000 * (a2), 2000 * (a2) } }
/* glibc's x86_rep_movsb_threshold: rep movsb ahead at every size, noflush far above */
#define MOVSB_CURVES									\
	{ "clwb", { 100, 200, 400, 800, 1000, 1000, 1000, 1000 } },			\
	{ "rep_movsb_clwb", { 150, 300, 600, 1200, 1500, 1500, 1500, 1500 } },		\
	{ "noflush", FLAT(9000), true },						\
	{ "movnt_avx2", { 90, 180, 360, 720, 900, 900, 900, 900 } }
#define NT_THRESHOLD "glibc.cpu.x86_non_temporal_threshold"
#define MOVSB_THRESHOLD "glibc.cpu.x86_rep_movsb_threshold"
/* glibc's non-temporal threshold: noflush at 1000 MiB/s from 1 KiB to 128 KiB */
#define GLIBC_ROW .sizes = gsizes, .features = { "avx512f" }, .llc_bytes = 1 << 20

static const struct export_row export_rows[] = {
	{
		/*
		 * PMDK's rule fits: flush below 1024, non-temporal above;
		 * cached+flush leads by 5-6.25 % below 1024 (1600 against 1500
		 * at 512 B): where PMDK's own 256 and 1024 differ, 256 loses
		 * 0.0625, over the 0.05 margin, so the threshold moves; the
		 * default members hold everywhere: no feature switch.  The
		 * kernel's movnt (2100 at >= 1 KiB, else below clwb) against
		 * clflushopt: never switch.  glibc: noflush wins up to 2 KiB,
		 * movnt_avx2 from 4 KiB on (glibc's least value is 0x4041).
		 */
		.name = "every consumer: PMDK 1024, kernel never, glibc 0x4041",
		.features = { "avx", "clwb", "clflushopt" },
		.c = { { "clwb", { 200, 400, 800, 1600, 1000, 1000, 1000, 1000 } },
		       { "movnt_avx2", { 100, 200, 400, 800, 2000, 2000, 2000, 2000 } },
		       { "movnt", { 190, 380, 760, 1500, 2100, 2100, 2100, 2100 } },
		       { "clflushopt", { 50, 100, 200, 400, 900, 900, 900, 900 } },
		       { "noflush", { 9000, 9000, 9000, 9000, 9000, 8000, 1500, 1200 }, true } },
		.present = LIBPMEM | KERNEL | GLIBC,
		.kv = { { "PMEM_MOVNT_THRESHOLD", "1024" }, { "PMEM_AVX", ABSENT },
			{ "PMEM_NO_CLWB", ABSENT }, { "PMEM_AVX512F", ABSENT },
			{ NT_THRESHOLD, "0x4041" } },
		.kernel_nt = OPEN,
		.source = { "measured", NULL, "measured" },
		.regret_lt = { CROSSOVER_MARGIN_FLOOR },
	},
	{
		/*
		 * dm-writecache's own 768 already gives movnt up to 512 and
		 * clflushopt from 1024: kept, and written as the module's default
		 */
		.name = "kernel: movnt up to 512, clflushopt from 1 KiB, 768 kept",
		.c = { { "movnt", { 500, 600, 700, 700, 500, 500, 500, 500 } },
		       { "clflushopt", { 100, 200, 300, 400, 900, 1000, 1000, 1000 } } },
		/* both families measured: PMDK gets a threshold; no noflush curve: no glibc */
		.present = LIBPMEM | KERNEL,
		.kernel_nt = 768,
		.regret_lt = { 0, 1e-12 },
	},
	{
		/*
		 * rep movsb ahead at every size: a threshold glibc takes, never 0
		 * nor its least of 8 vectors, which it ignores (glibc 2.36 with
		 * AVX-512 keeps its default for 0x200 and takes 0x201).  Every
		 * value from just above the least to the first size above it
		 * loses the same (the sizes up to it run the vector copy
		 * whatever is written), so the rule's last tie-break, nearest
		 * glibc's default of 4 KiB, takes that first size.
		 */
		.name = "glibc rep movsb, sse2: the first size above 0x80",
		.c = { MOVSB_CURVES },
		.present = LIBPMEM | KERNEL | GLIBC,
		.kv = { { MOVSB_THRESHOLD, "0x100" } },
		.movsb_above = 0x80,
	},
	{
		.name = "glibc rep movsb, avx2: the first size above 0x100",
		.features = { "avx2" },
		.c = { MOVSB_CURVES },
		.present = LIBPMEM | KERNEL | GLIBC,
		.kv = { { MOVSB_THRESHOLD, "0x200" } },
		.movsb_above = 0x100,
	},
	{
		.name = "glibc rep movsb, avx512f: the first size above 0x200",
		.features = { "avx512f" },
		.c = { MOVSB_CURVES },
		.present = LIBPMEM | KERNEL | GLIBC,
		.kv = { { MOVSB_THRESHOLD, "0x400" } },
		.movsb_above = 0x200,
	},
	{
		/*
		 * A feature switch acts at every streaming size: it is set as
		 * thresholds are, by the worst size first, not by a range.
		 * avx2 1.04x at 512 B only, holding a range of that one size
		 * (as a baseline's range may): within the margin, no switch.
		 */
		.name = "switch: avx2 4 % ahead at 512 B, its range kept by hand: none",
		.c = { MEMBERS(0.98, 1.04) },
		.ranges = avx2_at_512,
		.present = LIBPMEM | KERNEL,
		.kv = { { "PMEM_AVX512F", ABSENT }, { "PMEM_AVX", ABSENT } },
	},
	{
		/*
		 * the default leaves 0.33 at 512 B, avx2 0.10 at its worst: the
		 * worst size decides, PMDK is told (by the mean, about 0.05
		 * against 0.09, it was not)
		 */
		.name = "switch: avx2 1.5x at 512 B, 0.9x elsewhere: PMEM_AVX512F=0",
		.c = { MEMBERS(0.9, 1.5) },
		.ranges = avx2_at_512,
		.present = LIBPMEM | KERNEL,
		.kv = { { "PMEM_AVX512F", "0" } },
	},
	{
		/* movdir64b 5.2 % ahead at 1-4 KiB: a range; the default loses under R */
		.name = "switch: movdir64b 5.2 % ahead at 1-4 KiB: none; installed avx2 moves "
			"to it",
		.c = { { "clwb", FLAT(900) }, { "movnt_avx512", FLAT(2000) },
		       { "movnt_avx2", FLAT(1000) },
		       { "movdir64b", { 2000, 2000, 2000, 2000, 2104, 2104, 2104, 2000 } } },
		.range_strategies = { "movnt_avx512", "movdir64b", "movnt_avx512" },
		.present = LIBPMEM | KERNEL,
		.kv = { { "PMEM_MOVDIR64B", ABSENT }, { "PMEM_AVX512F", ABSENT } },
		.more = beaten_switch,
	},
	{
		.name = "switch: avx2 1.3x at every size, well above the margin: PMEM_AVX512F=0",
		.c = { MEMBERS(1.3, 1.3) },
		.range_strategies = { "movnt_avx2" },
		.present = LIBPMEM | KERNEL,
		.kv = { { "PMEM_AVX512F", "0" }, { "PMEM_AVX", ABSENT } },
	},
	{
		/*
		 * nt 10 % ahead over 3 of the 8 log steps: the default loses
		 * 0.091 at its worst size by the medians, over the margin of
		 * 0.05; with intervals of +-1 % the least the move gains (the
		 * default's loss at its least, the new value's at its most)
		 * still clears the margin, and the threshold moves
		 */
		.name = "glibc nt: 10 % ahead from 32 KiB, +-1 %: 0x8000",
		GLIBC_ROW,
		.c = { { "noflush", FLAT(1000) },
		       { "movnt_avx512", { 500, 500, 500, 500, 500, 1100, 1100, 1100 } } },
		.present = GLIBC,
		.kv = { { NT_THRESHOLD, "0x8000" } },
		.source = { [2] = "measured" },
		.more = scored_as_exported,
	},
	{
		/*
		 * on a host whose cells are +-10 % wide the margin (the op's
		 * noise) is 0.10: the same 0.091 gain does not clear it
		 */
		.name = "glibc nt: 10 % ahead from 32 KiB, +-10 %: the default",
		GLIBC_ROW, .rel = 0.10,
		.c = { { "noflush", FLAT(1000) },
		       { "movnt_avx512", { 500, 500, 500, 500, 500, 1100, 1100, 1100 } } },
		.present = GLIBC,
		.kv = { { NT_THRESHOLD, ABSENT } },
		.source = { [2] = "default" },
	},
	{
		/*
		 * nt 2x ahead at 4-16 KiB, where glibc takes no threshold (its
		 * least is 0x4041), and 8 % ahead from 32 KiB: the value 4 KiB
		 * would lose nothing, but glibc takes it as 0x4041, which loses
		 * the same 0.5 at 4 KiB as the default.  Scored as glibc takes
		 * it, the move acts from 32 KiB on, where it gains 0.074 at
		 * three sizes spanning 4x: it moves there, not below the least.
		 */
		.name = "glibc nt: 2x ahead below glibc's least value, 8 % above: 0x8000",
		GLIBC_ROW,
		.c = { { "noflush", FLAT(1000) },
		       { "movnt_avx512", { 500, 500, 2000, 2000, 2000, 1080, 1080, 1080 } } },
		.present = GLIBC,
		.kv = { { NT_THRESHOLD, "0x8000" } },
		.source = { [2] = "measured" },
	},
};

static void test_export_table(void)
{
	for (size_t k = 0; k < sizeof(export_rows) / sizeof(export_rows[0]); k++)
		run_export_row(&export_rows[k]);
}

/* Against a baseline: its values kept say so; a moved one says "changed". */
static void test_provenance(void)
{
	const double lv[N] = { 200, 400, 800, 1600, 1000, 1000, 1000, 1000 };
	const double hv[N] = { 100, 200, 400, 800, 2000, 2000, 2000, 2000 };
	struct policy *p = two_curve_policy("clwb", lv, "movnt_avx2", hv);
	struct policy *base = two_curve_policy("clwb", lv, "movnt_avx2", hv);
	const char *v;

	crossover_decide(&p->targets[0].ops[0]);
	crossover_decide(&base->targets[0].ops[0]);
	CHECK_INT(export_compute(base, NULL), 0);
	/* the same curves against their own exports: every value kept */
	CHECK_INT(export_compute_with_baseline(p, NULL, base), 0);
	CHECK_STR(p->exports.libpmem.baseline, "kept");
	CHECK_STR(p->exports.kernel.baseline, "kept");
	/* a value equal to the default is the default's, whichever was tried first */
	CHECK(!strcmp(p->exports.libpmem.source, "baseline") ||
	      !strcmp(p->exports.libpmem.source, "default"));
	/* a baseline of 0 (always non-temporal) costs too much here: measured, changed */
	snprintf(base->exports.libpmem.kv[0].value, POLICY_NAME_MAX, "0");
	CHECK_INT(export_compute_with_baseline(p, NULL, base), 0);
	v = kv(&p->exports.libpmem, "PMEM_MOVNT_THRESHOLD");
	CHECK_MSG(v && strcmp(v, "0"), "PMEM_MOVNT_THRESHOLD=%s", v ? v : "(none)");
	CHECK(strcmp(p->exports.libpmem.source, "baseline"));
	CHECK_STR(p->exports.libpmem.baseline, "changed");
	/* a consumer the baseline did not export is new */
	base->exports.kernel.present = false;
	CHECK_INT(export_compute_with_baseline(p, NULL, base), 0);
	CHECK_STR(p->exports.kernel.baseline, "new");
	policy_free(base);
	policy_free(p);
}

/*
 * One hysteresis rule: the installed value, else the default.  A beaten
 * installed value gives the rule's value, not the default, even where the
 * default would have held without a baseline.
 */
static void test_beaten_baseline(void)
{
	/* clwb ahead 2x at 64-128 B and by 5.2 % at 256 B; movnt_avx2 2x from 512 B */
	const double lv[N] = { 200, 400, 1052, 800, 1000, 1000, 1000, 1000 };
	const double hv[N] = { 100, 200, 1000, 1600, 2000, 2000, 2000, 2000 };
	struct policy *p = two_curve_policy("clwb", lv, "movnt_avx2", hv);
	struct policy *base = two_curve_policy("clwb", lv, "movnt_avx2", hv);
	const char *v;

	/* no baseline: the default 256 loses 4.9 % at 256 B, under R: it stays */
	CHECK_INT(export_compute(base, NULL), 0);
	v = kv(&base->exports.libpmem, "PMEM_MOVNT_THRESHOLD");
	CHECK_MSG(v && !strcmp(v, "256"), "PMEM_MOVNT_THRESHOLD=%s", v ? v : "(none)");
	CHECK_STR(base->exports.libpmem.source, "default");
	/* installed 0 loses half at 64-128 B: moved, to the rule's 512, not back to 256 */
	snprintf(base->exports.libpmem.kv[0].value, POLICY_NAME_MAX, "0");
	CHECK_INT(export_compute_with_baseline(p, NULL, base), 0);
	v = kv(&p->exports.libpmem, "PMEM_MOVNT_THRESHOLD");
	CHECK_MSG(v && !strcmp(v, "512"), "PMEM_MOVNT_THRESHOLD=%s", v ? v : "(none)");
	CHECK_STR(p->exports.libpmem.source, "measured");
	CHECK_STR(p->exports.libpmem.baseline, "changed");
	policy_free(base);
	policy_free(p);
}

/*
 * noflush at 1000 MiB/s from 1 KiB to 128 KiB; movnt_avx512 at 500 below
 * 32 KiB and at nt from 32 KiB on: glibc's x86_non_temporal_threshold
 * leaves its default (3/4 of a 1 MiB LLC: noflush at every size) for
 * 32 KiB once nt is ahead by the margin.
 */
static struct policy *glibc_policy(double nt)
{
	const double noflush[N] = { 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000 };
	const double movnt[N] = { 500, 500, 500, 500, 500, nt, nt, nt };
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_op *op = mkpolicy_op(mkpolicy_target(p, "dram", "dram", NULL), "sequential",
					   gsizes, N, NULL, 0);

	set_curve(op, "noflush", noflush);
	set_curve(op, "movnt_avx512", movnt);
	crossover_decide(op);
	p->platform.cpu.llc_bytes = 1 << 20;
	policy_cpu_add_feature(&p->platform.cpu, "avx512f");
	return p;
}

static const char *nt_threshold(const struct policy *p)
{
	return kv(&p->exports.glibc, "glibc.cpu.x86_non_temporal_threshold");
}

static void test_rechecks(void)
{
	struct second_look rx[16];
	struct policy *p, *base;
	ssize_t n;

	/*
	 * 30 % ahead over 3 of the 8 log steps: the default loses 0.23 at its
	 * worst size against a margin of 0.05: its three sizes are measured
	 * again, the two curves of the knob, before the change stands
	 */
	p = glibc_policy(1300);
	n = export_rechecks(p, NULL, NULL, &p->targets[0], rx, 16);
	CHECK_INT(n, 3);
	for (ssize_t k = 0; k < n && k < 16; k++) {
		CHECK_INT(rx[k].op, 0);
		CHECK_INT(rx[k].index, 5 + k);
		CHECK_INT(rx[k].why, SECOND_LOOK_EXPORT_MOVE);
		CHECK_INT(rx[k].ncurves, 2);
		CHECK_STR(p->targets[0].ops[0].curves[rx[k].curves[0]].strategy, "movnt_avx512");
		CHECK_STR(p->targets[0].ops[0].curves[rx[k].curves[1]].strategy, "noflush");
		/* no claim; every strategy at the size, as the ranges read them all */
		CHECK_INT(rx[k].verdict, POLICY_FAMILY_NONE);
		CHECK(rx[k].every);
	}
	/* the exports are what export_compute() gives on the same cells */
	CHECK_MSG(nt_threshold(p) && !strcmp(nt_threshold(p), "0x8000"),
		  "x86_non_temporal_threshold=%s", nt_threshold(p) ? nt_threshold(p) : "(none)");
	CHECK_STR(p->exports.glibc.source, "measured");
	/* out is bounded by max */
	CHECK_INT(export_rechecks(p, NULL, NULL, &p->targets[0], rx, 2), 2);

	/* against a baseline that has the value already: nothing moves, nothing to look at */
	base = policy_new();
	base->exports.glibc = p->exports.glibc;
	CHECK_INT(export_rechecks(p, NULL, base, &p->targets[0], rx, 16), 0);
	CHECK_STR(p->exports.glibc.baseline, "kept");
	/*
	 * a baseline at 128 KiB loses 0.23 at 32 and 64 KiB: the move rests
	 * on the two sizes between its value and the new one
	 */
	snprintf(base->exports.glibc.kv[0].value, sizeof(base->exports.glibc.kv[0].value),
		 "0x20000");
	n = export_rechecks(p, NULL, base, &p->targets[0], rx, 16);
	CHECK_INT(n, 2);
	CHECK(n == 2 && rx[0].index == 5 && rx[1].index == 6);
	CHECK_STR(p->exports.glibc.baseline, "changed");
	policy_free(base);
	policy_free(p);

	/* 2x ahead: however clear, a change has its second look (one rule for every move) */
	p = glibc_policy(2000);
	CHECK_INT(export_rechecks(p, NULL, NULL, &p->targets[0], rx, 16), 3);
	CHECK(nt_threshold(p) && !strcmp(nt_threshold(p), "0x8000"));
	policy_free(p);

	/* 4 % ahead: within the margin, the default stays; no change, nothing to look at */
	p = glibc_policy(1040);
	CHECK_INT(export_rechecks(p, NULL, NULL, &p->targets[0], rx, 16), 0);
	CHECK(!nt_threshold(p));
	policy_free(p);
}

int main(void)
{
	test_knob_loss();
	test_nearly_equal();
	test_weights();
	test_export_table();
	test_provenance();
	test_beaten_baseline();
	test_rechecks();
	return check_report("test_export");
}
