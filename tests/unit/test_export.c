// SPDX-License-Identifier: GPL-2.0-or-later
/* Exports and their regret on synthetic curves with known answers. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "policy/policy.h"
#include "rule/crossover.h"
#include "rule/export.h"

/* sizes 64 .. 64 << (n-1), powers of two: even weights on the log axis */
#define N 8
static const uint64_t sizes[N] = { 64, 128, 256, 512, 1024, 2048, 4096, 8192 };

static void set_curve(struct policy_op *op, const char *name, const double *v)
{
	struct policy_curve *c = policy_op_find_curve(op, name);

	if (!c) {
		policy_op_add_curve(op, name);
		c = policy_op_find_curve(op, name);
	}
	for (size_t i = 0; i < op->nsizes; i++) {
		c->median_mib_s[i] = v[i];
		c->p10_mib_s[i] = c->ci_lo_mib_s[i] = v[i] * 0.99;
		c->p90_mib_s[i] = c->ci_hi_mib_s[i] = v[i] * 1.01;
		c->samples[i] = isnan(v[i]) ? 0 : 11;
	}
}

static struct policy *two_curve_policy(const char *low, const double *lv, const char *high,
				       const double *hv)
{
	struct policy *p = policy_new();
	struct policy_target *t = policy_add_target(p, "dram");
	struct policy_op *op;

	snprintf(t->kind, sizeof(t->kind), "dram");
	op = policy_target_add_op(t, "write", "sequential", 1, sizes, N);
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

static void test_compute(void)
{
	/* PMDK's rule fits: flush below 1024, non-temporal above */
	const double lv[N] = { 200, 400, 800, 1600, 1000, 1000, 1000, 1000 };
	const double hv[N] = { 100, 200, 400, 800, 2000, 2000, 2000, 2000 };
	const double movnt[N] = { 190, 380, 760, 1500, 2100, 2100, 2100, 2100 };
	const double clflushopt[N] = { 50, 100, 200, 400, 900, 900, 900, 900 };
	const double noflush[N] = { 9000, 9000, 9000, 9000, 9000, 8000, 1500, 1200 };
	struct policy *p = two_curve_policy("clwb", lv, "movnt_avx2", hv);
	struct policy_op *op = &p->targets[0].ops[0];
	const char *v;

	policy_cpu_add_feature(&p->platform.cpu, "avx");
	policy_cpu_add_feature(&p->platform.cpu, "clwb");
	policy_cpu_add_feature(&p->platform.cpu, "clflushopt");
	set_curve(op, "movnt", movnt);
	set_curve(op, "clflushopt", clflushopt);
	set_curve(op, "noflush", noflush);
	policy_op_find_curve(op, "noflush")->reference_only = true;
	crossover_decide(op);
	CHECK_INT(export_compute(p, NULL), 0);

	CHECK(p->exports.libpmem.present);
	/*
	 * cached+flush leads by 5-6.25 % below 1024 (1600 against 1500 at 512
	 * B): where PMDK's own 256 and 1024 differ, 256 loses 0.0625 at worst,
	 * over the 0.05 margin, so the threshold moves to 1024
	 */
	v = kv(&p->exports.libpmem, "PMEM_MOVNT_THRESHOLD");
	CHECK_MSG(v && !strcmp(v, "1024"), "PMEM_MOVNT_THRESHOLD=%s", v ? v : "(none)");
	/* the default members hold everywhere: no feature switch */
	CHECK(kv(&p->exports.libpmem, "PMEM_AVX") == NULL);
	CHECK(kv(&p->exports.libpmem, "PMEM_NO_CLWB") == NULL);
	CHECK(kv(&p->exports.libpmem, "PMEM_AVX512F") == NULL);
	CHECK(p->exports.libpmem.regret < CROSSOVER_MARGIN_FLOOR);

	/* the kernel's rule: movnt (2100 at >= 1024, else below clwb) vs clflushopt: never switch */
	CHECK(p->exports.kernel.present);
	CHECK(p->exports.kernel.threshold_bytes == POLICY_SIZE_OPEN);

	/* glibc: noflush wins up to 2048, movnt_avx2 from 4096 on (glibc's minimum is 0x4041) */
	CHECK(p->exports.glibc.present);
	v = kv(&p->exports.glibc, "glibc.cpu.x86_non_temporal_threshold");
	CHECK_MSG(v && !strcmp(v, "0x4041"), "x86_non_temporal_threshold=%s", v ? v : "(none)");

	/* where each value came from, the margin it had to beat; no baseline: new */
	CHECK_STR(p->exports.libpmem.source, "measured");
	CHECK_STR(p->exports.glibc.source, "measured");
	CHECK_STR(p->exports.libpmem.baseline, "new");
	CHECK_STR(p->exports.kernel.baseline, "new");
	CHECK(p->exports.libpmem.margin >= CROSSOVER_MARGIN_FLOOR &&
	      p->exports.libpmem.margin <= CROSSOVER_MARGIN_CAP);
	CHECK_NEAR(p->exports.kernel.margin, p->exports.libpmem.margin, 1e-12);
	policy_free(p);
}

/*
 * clwb, movnt_avx512 and movnt_avx2 (avx2 at a2 times avx512's, but a2_512
 * at 512 B, confirmed there), decided and exported.
 */
static struct policy *member_policy(double a2, double a2_512)
{
	const double fl[N] = { 900, 900, 900, 900, 900, 900, 900, 900 };
	const double a512[N] = { 2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000 };
	double v[N];
	struct policy *p = two_curve_policy("clwb", fl, "movnt_avx512", a512);
	struct policy_op *op = &p->targets[0].ops[0];

	for (size_t i = 0; i < N; i++)
		v[i] = a512[i] * (sizes[i] == 512 ? a2_512 : a2);
	set_curve(op, "movnt_avx2", v);
	crossover_decide(op);
	return p;
}

/* op's ranges made by hand: strategy a, then b on [from, to), then a again */
static void one_size_range(struct policy_op *op, const char *a, const char *b, uint64_t from,
			   uint64_t to)
{
	const uint64_t bound[4] = { 0, from, to, POLICY_SIZE_OPEN };
	struct policy_range *r = calloc(3, sizeof(*r));

	if (!r)
		exit(EXIT_FAILURE);
	for (int k = 0; k < 3; k++) {
		r[k].from_bytes = bound[k];
		r[k].to_bytes = bound[k + 1];
		snprintf(r[k].strategy, sizeof(r[k].strategy), "%s", k == 1 ? b : a);
		snprintf(r[k].family, sizeof(r[k].family), "streaming");
	}
	free(op->ranges);
	free(op->crossovers);
	op->crossovers = NULL;
	op->ncrossovers = 0;
	op->ranges = r;
	op->nranges = 3;
}

/*
 * A feature switch acts at every streaming size: it is set as thresholds
 * are, by the worst size first, not by a range.
 */
static void test_feature_switches(void)
{
	/*
	 * avx2 1.04x at 512 B only, holding a range of that one size (as a
	 * baseline's range may): within the margin, the range stays, yet no
	 * switch
	 */
	struct policy *p = member_policy(0.98, 1.04);
	struct policy_op *op = &p->targets[0].ops[0];

	one_size_range(op, "movnt_avx512", "movnt_avx2", 512, 1024);
	CHECK_INT(export_compute(p, NULL), 0);
	CHECK(p->exports.libpmem.present);
	CHECK(kv(&p->exports.libpmem, "PMEM_AVX512F") == NULL);
	CHECK(kv(&p->exports.libpmem, "PMEM_AVX") == NULL);
	policy_free(p);

	/*
	 * avx2 1.5x at 512 B and 0.9x elsewhere: the default leaves 0.33 at
	 * 512 B, avx2 0.10 at its worst: the worst size decides, PMDK is told
	 * (by the mean, about 0.05 against 0.09, it was not)
	 */
	p = member_policy(0.9, 1.5);
	op = &p->targets[0].ops[0];
	one_size_range(op, "movnt_avx512", "movnt_avx2", 512, 1024);
	CHECK_INT(export_compute(p, NULL), 0);
	CHECK_STR(kv(&p->exports.libpmem, "PMEM_AVX512F") ?: "(none)", "0");
	policy_free(p);

	/* avx2 1.3x at every size, well above the margin: PMDK is told */
	p = member_policy(1.3, 1.3);
	CHECK_INT(export_compute(p, NULL), 0);
	op = &p->targets[0].ops[0];
	CHECK_INT(op->nranges, 1);
	CHECK_STR(op->ranges[0].strategy, "movnt_avx2");
	CHECK_STR(kv(&p->exports.libpmem, "PMEM_AVX512F") ?: "(none)", "0");
	CHECK(kv(&p->exports.libpmem, "PMEM_AVX") == NULL);
	policy_free(p);
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
 * rep movsb ahead at every size: a threshold glibc takes, never 0 nor its
 * minimum of 8 vectors, which it ignores (glibc 2.36 with AVX-512 keeps its
 * default for 0x200 and takes 0x201).  Every value from just above the
 * minimum to the first size above it loses the same (the sizes up to the
 * minimum run the vector copy whatever is written), so the rule's last
 * tie-break, nearest glibc's default of 4 KiB, takes that first size.
 */
static void test_glibc_movsb_min(void)
{
	static const struct {
		const char *feature;
		const char *want;
		unsigned long long min;		/* 8 vectors: glibc takes only a value above */
	} cases[] = { { NULL, "0x100", 0x80 }, { "avx2", "0x200", 0x100 },
		      { "avx512f", "0x400", 0x200 } };
	const double clwb[N] = { 100, 200, 400, 800, 1000, 1000, 1000, 1000 };
	const double movsb[N] = { 150, 300, 600, 1200, 1500, 1500, 1500, 1500 };
	const double noflush[N] = { 9000, 9000, 9000, 9000, 9000, 9000, 9000, 9000 };
	const double movnt[N] = { 90, 180, 360, 720, 900, 900, 900, 900 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct policy *p = two_curve_policy("clwb", clwb, "rep_movsb_clwb", movsb);
		struct policy_op *op = &p->targets[0].ops[0];
		const char *v;

		if (cases[i].feature)
			policy_cpu_add_feature(&p->platform.cpu, cases[i].feature);
		set_curve(op, "noflush", noflush);
		set_curve(op, "movnt_avx2", movnt);
		policy_op_find_curve(op, "noflush")->reference_only = true;
		crossover_decide(op);
		CHECK_INT(export_compute(p, NULL), 0);
		v = kv(&p->exports.glibc, "glibc.cpu.x86_rep_movsb_threshold");
		CHECK_MSG(v && !strcmp(v, cases[i].want), "%s: x86_rep_movsb_threshold=%s, want %s",
			  cases[i].feature ? cases[i].feature : "sse2", v ? v : "(none)",
			  cases[i].want);
		CHECK_MSG(v && strtoull(v, NULL, 16) > cases[i].min, "%s: %s is not above glibc's %#llx",
			  cases[i].feature ? cases[i].feature : "sse2", v ? v : "(none)",
			  cases[i].min);
		policy_free(p);
	}
}

static void test_kernel_rule(void)
{
	/* movnt wins up to 512, clflushopt from 1024 on: dm-writecache's shape */
	const double movnt[N] = { 500, 600, 700, 700, 500, 500, 500, 500 };
	const double clflushopt[N] = { 100, 200, 300, 400, 900, 1000, 1000, 1000 };
	struct policy *p = two_curve_policy("movnt", movnt, "clflushopt", clflushopt);

	CHECK_INT(export_compute(p, NULL), 0);
	CHECK(p->exports.kernel.present);
	/*
	 * dm-writecache's own 768 already gives movnt up to 512 and
	 * clflushopt from 1024: kept, and written as the module's default
	 */
	CHECK_INT(p->exports.kernel.threshold_bytes, 768);
	CHECK_NEAR(p->exports.kernel.regret, 0, 1e-12);
	/* both families measured: PMDK gets a threshold; no noflush curve: no glibc */
	CHECK(p->exports.libpmem.present);
	CHECK(!p->exports.glibc.present);
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
	static const uint64_t gsizes[N] = { 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072 };
	const double noflush[N] = { 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000 };
	const double movnt[N] = { 500, 500, 500, 500, 500, nt, nt, nt };
	struct policy *p = policy_new();
	struct policy_target *t = policy_add_target(p, "dram");
	struct policy_op *op;

	snprintf(t->kind, sizeof(t->kind), "dram");
	op = policy_target_add_op(t, "write", "sequential", 1, gsizes, N);
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
		CHECK_INT(rx[k].verdict, VERDICT_NONE);
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

/* Every cell of p's first op gets an interval of +-frac around its median. */
static void widen(struct policy *p, double frac)
{
	struct policy_op *op = &p->targets[0].ops[0];

	for (size_t c = 0; c < op->ncurves; c++)
		for (size_t i = 0; i < op->nsizes; i++) {
			double m = op->curves[c].median_mib_s[i];

			op->curves[c].ci_lo_mib_s[i] = m * (1 - frac);
			op->curves[c].ci_hi_mib_s[i] = m * (1 + frac);
		}
}

/*
 * nt 10 % ahead over 3 of the 8 log steps: the default loses 0.091 at its
 * worst size by the medians, over the margin of 0.05, and the threshold
 * moves.  On a host whose cells are +-10 % wide the margin (the op's
 * noise) is 0.10: the same gain does not clear it, and the default stays.
 */
static void test_least_gain(void)
{
	struct policy *p = glibc_policy(1100);

	struct export_knob_loss l;
	uint64_t t;

	CHECK_INT(export_compute(p, NULL), 0);
	CHECK_MSG(nt_threshold(p) && !strcmp(nt_threshold(p), "0x8000"),
		  "x86_non_temporal_threshold=%s", nt_threshold(p) ? nt_threshold(p) : "(none)");
	/* the scoring as tests and benchmarks see it: the export is the best value here */
	CHECK_INT(export_knob_value(p, EXPORT_KNOB_GLIBC_NT, &t), 0);
	CHECK_INT(t, 0x8000);
	CHECK_INT(export_knob_best(p, EXPORT_KNOB_GLIBC_NT, 1, NULL, &l), 0);
	CHECK_INT(l.threshold_bytes, 0x8000);
	CHECK_NEAR(l.worst, 0, 1e-12);
	/* the default (3/4 of 1 MiB) leaves 1 - 1000 / 1100 at 32-128 KiB, the first its worst */
	CHECK_INT(export_knob_loss(p, EXPORT_KNOB_GLIBC_NT, 786432, 0, NULL, &l), 0);
	CHECK_NEAR(l.worst, 1 - 1000.0 / 1100, 1e-9);
	CHECK_INT(l.worst_bytes, 32768);
	CHECK_INT(export_knob_value(p, EXPORT_KNOB_PMEM_MOVNT, &t), -ENOENT);
	widen(p, 0.10);
	crossover_decide(&p->targets[0].ops[0]);
	CHECK_INT(export_compute(p, NULL), 0);
	CHECK_MSG(!nt_threshold(p), "x86_non_temporal_threshold=%s",
		  nt_threshold(p) ? nt_threshold(p) : "(none)");
	CHECK_STR(p->exports.glibc.source, "default");
	policy_free(p);
}

/*
 * nt 2x ahead at 4-16 KiB, where glibc takes no threshold (its least is
 * 0x4041), and 8 % ahead from 32 KiB: the value 4 KiB would lose nothing,
 * but glibc takes it as 0x4041, which loses the same 0.5 at 4 KiB as the
 * default.  Scored as glibc takes it, the move acts from 32 KiB on, where
 * it gains 0.074 at three sizes spanning 4x: the threshold moves there,
 * and to no value below glibc's least.
 */
static void test_least_value(void)
{
	const double nt[N] = { 500, 500, 2000, 2000, 2000, 1080, 1080, 1080 };
	struct policy *p = glibc_policy(1080);

	set_curve(&p->targets[0].ops[0], "movnt_avx512", nt);
	crossover_decide(&p->targets[0].ops[0]);
	CHECK_INT(export_compute(p, NULL), 0);
	CHECK_MSG(nt_threshold(p) && !strcmp(nt_threshold(p), "0x8000"),
		  "x86_non_temporal_threshold=%s", nt_threshold(p) ? nt_threshold(p) : "(none)");
	CHECK_STR(p->exports.glibc.source, "measured");
	policy_free(p);
}

int main(void)
{
	test_knob_loss();
	test_nearly_equal();
	test_weights();
	test_compute();
	test_feature_switches();
	test_provenance();
	test_glibc_movsb_min();
	test_kernel_rule();
	test_rechecks();
	test_least_gain();
	test_least_value();
	return check_report("test_export");
}
