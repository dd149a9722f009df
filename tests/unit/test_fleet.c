// SPDX-License-Identifier: GPL-2.0-or-later
/* Fleet bundles: load, merge (robust aggregation), diff (decisions, not noise). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "crossover.h"
#include "fleet.h"
#include "policy.h"

#define N 6
#define FP64 "0000000000000000000000000000000000000000000000000000000000000000"
#define FP(c) "sha256:" c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
	      c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c
static const uint64_t sizes[N] = { 256, 512, 1024, 2048, 4096, 8192 };

/* A host whose clwb curve is scaled by k, crossing movnt_avx2 near 'at'. */
static struct policy *host(const char *fp, const char *created, double k, uint64_t at)
{
	struct policy *p = policy_new();
	struct policy_target *t = policy_add_target(p, "region0");
	struct policy_op *op;
	struct policy_curve *a, *b;

	snprintf(p->platform.fingerprint, sizeof(p->platform.fingerprint), "%s", fp);
	snprintf(p->generator.created, sizeof(p->generator.created), "%s", created);
	snprintf(t->kind, sizeof(t->kind), "pmem");
	t->ceiling_mib_s = 3000 * k;
	op = policy_target_add_op(t, "write", "sequential", 1, sizes, N);
	op->ceiling_mib_s = 3000 * k;
	policy_op_add_curve(op, "clwb");
	policy_op_add_curve(op, "movnt_avx2");
	a = policy_op_find_curve(op, "clwb");
	b = policy_op_find_curve(op, "movnt_avx2");
	for (size_t i = 0; i < N; i++) {
		double va = 1000 * k, vb = sizes[i] >= at ? 2000 : 500;

		a->median_mib_s[i] = va;
		a->ci_lo_mib_s[i] = a->p10_mib_s[i] = va * 0.98;
		a->ci_hi_mib_s[i] = a->p90_mib_s[i] = va * 1.02;
		a->samples[i] = 9;
		b->median_mib_s[i] = vb;
		b->ci_lo_mib_s[i] = b->p10_mib_s[i] = vb * 0.98;
		b->ci_hi_mib_s[i] = b->p90_mib_s[i] = vb * 1.02;
		b->samples[i] = 9;
	}
	crossover_decide(op);
	return p;
}

static struct policy_bundle *one(struct policy *p)
{
	struct policy_bundle *b = policy_bundle_new();

	policy_bundle_add(b, p);
	return b;
}

/* b round-trips through its JSON form: it loads back, the same text and decisions */
static void check_round_trip(const struct policy_bundle *b)
{
	char err[256], *s = policy_bundle_to_string(b);
	struct policy_bundle *back = s ? policy_bundle_parse(s, strlen(s), err, sizeof(err)) : NULL;

	CHECK_MSG(back != NULL, "%s", s ? err : "no text");
	if (back) {
		char *s2 = policy_bundle_to_string(back);

		CHECK_STR(s, s2);
		CHECK_INT(policy_bundle_diff(b, back, NULL), 0);
		free(s2);
		policy_bundle_free(back);
	}
	free(s);
}

static void test_merge(void)
{
	struct policy_bundle *in[4], *out = NULL;
	struct policy_curve *c;
	struct policy *m;
	char err[256];

	/* three hosts of platform A (one an outlier), one of platform B */
	in[0] = one(host(FP("a"), "2026-11-01T00:00:00Z", 1.0, 2048));
	in[1] = one(host(FP("a"), "2026-11-03T00:00:00Z", 1.1, 2048));
	in[2] = one(host(FP("a"), "2026-11-02T00:00:00Z", 0.1, 2048));
	in[3] = one(host(FP("b"), "2026-11-02T00:00:00Z", 1.0, 1024));
	CHECK_INT(policy_merge(in, 4, NULL, &out, err, sizeof(err)), 0);
	CHECK_INT(out->n, 2);
	m = policy_bundle_find(out, FP("a"));
	CHECK(m != NULL);
	if (!m)
		goto out;
	CHECK_INT(m->merged.hosts, 3);
	CHECK_STR(m->merged.created_first, "2026-11-01T00:00:00Z");
	CHECK_STR(m->merged.created_last, "2026-11-03T00:00:00Z");
	c = policy_op_find_curve(&m->targets[0].ops[0], "clwb");
	/* the median of 1000, 1100 and the outlier's 100 */
	CHECK_NEAR(c->median_mib_s[0], 1000, 1e-9);
	CHECK_NEAR(c->hosts_min_mib_s[0], 100, 1e-9);
	CHECK_NEAR(c->hosts_max_mib_s[0], 1100, 1e-9);
	CHECK_INT(c->samples[0], 27);
	/* decisions recomputed from the aggregate: clwb below 2048, movnt_avx2 from it */
	CHECK_INT(m->targets[0].ops[0].ncrossovers, 1);
	CHECK_INT(m->targets[0].ops[0].crossovers[0].size_bytes, 2048);
	CHECK_NEAR(m->targets[0].ceiling_mib_s, 3000, 1e-6);
	/* a lone host's entry is itself */
	m = policy_bundle_find(out, FP("b"));
	CHECK(m && m->merged.hosts == 0 && m->targets[0].ops[0].crossovers[0].size_bytes == 1024);

	check_round_trip(out);
out:
	for (int i = 0; i < 4; i++)
		policy_bundle_free(in[i]);
	policy_bundle_free(out);
}

/* The clwb cell at sizes[at] of b's host gets flag f (and the value v, when v > 0). */
static void flag_cell(struct policy_bundle *b, size_t at, uint8_t f, double v)
{
	struct policy_curve *c = policy_op_find_curve(&b->entries[0]->targets[0].ops[0], "clwb");

	c->cell_flags[at] |= f;
	if (v > 0) {
		c->median_mib_s[at] = v;
		c->ci_lo_mib_s[at] = c->p10_mib_s[at] = v * 0.98;
		c->ci_hi_mib_s[at] = c->p90_mib_s[at] = v * 1.02;
	}
	if (f & POLICY_CELL_UNMEASURABLE) {
		c->median_mib_s[at] = c->p10_mib_s[at] = c->p90_mib_s[at] = NAN;
		c->ci_lo_mib_s[at] = c->ci_hi_mib_s[at] = NAN;
		c->samples[at] = 0;
	}
}

/* in merged into *out: platform a's entry *m and its clwb curve, NULL on failure */
static struct policy_curve *merged_clwb(struct policy_bundle **in, size_t n,
					struct policy_bundle **out, struct policy **m)
{
	char err[256];

	CHECK_INT(policy_merge(in, n, NULL, out, err, sizeof(err)), 0);
	*m = *out ? policy_bundle_find(*out, FP("a")) : NULL;
	CHECK(*m != NULL);
	return *m ? policy_op_find_curve(&(*m)->targets[0].ops[0], "clwb") : NULL;
}

/*
 * The merged op is decided by the rule each host's was: its cells carry
 * the hosts' flags over.
 */
static void test_merge_flags(void)
{
	struct policy_bundle *in[3], *out = NULL;
	struct policy_curve *c;
	struct policy *m;

	for (int i = 0; i < 3; i++)
		in[i] = one(host(FP("a"), "2026-11-01T00:00:00Z", 1.0, 2048));
	/* a cell one host flagged suspect, at 10x: no part of the median */
	flag_cell(in[0], 0, POLICY_CELL_SUSPECT, 10000);
	flag_cell(in[1], 0, 0, 1100);
	/* confirmed on two hosts of three: confirmed merged; on one: not */
	flag_cell(in[0], 1, POLICY_CELL_CONFIRMED, 0);
	flag_cell(in[1], 1, POLICY_CELL_CONFIRMED, 0);
	flag_cell(in[2], 2, POLICY_CELL_CONFIRMED, 0);
	/* fresh on every host: fresh merged; on two of three: not */
	for (int i = 0; i < 3; i++)
		flag_cell(in[i], 3, POLICY_CELL_REMEASURED, 0);
	flag_cell(in[0], 4, POLICY_CELL_REMEASURED, 0);
	flag_cell(in[1], 4, POLICY_CELL_REMEASURED, 0);
	c = merged_clwb(in, 3, &out, &m);
	if (!c)
		goto out;
	/* the median of the two believed cells, 1000 and 1100 */
	CHECK_NEAR(c->median_mib_s[0], 1050, 1e-9);
	CHECK_NEAR(c->hosts_max_mib_s[0], 1100, 1e-9);
	CHECK(c->cell_flags[1] & POLICY_CELL_CONFIRMED);
	CHECK(!(c->cell_flags[2] & POLICY_CELL_CONFIRMED));
	CHECK(c->cell_flags[3] & POLICY_CELL_REMEASURED);
	CHECK(!(c->cell_flags[4] & POLICY_CELL_REMEASURED));
	CHECK(!(c->cell_flags[0] & POLICY_CELL_UNMEASURABLE));
	CHECK_INT(m->targets[0].ops[0].ncrossovers, 1);
	policy_bundle_free(out);
	out = NULL;

	/* one host could not measure one cell: the merged op decides nothing, as that host's */
	flag_cell(in[2], 5, POLICY_CELL_UNMEASURABLE, 0);
	crossover_decide(&in[2]->entries[0]->targets[0].ops[0]);
	CHECK_INT(in[2]->entries[0]->targets[0].ops[0].nranges, 0);
	c = merged_clwb(in, 3, &out, &m);
	if (!c)
		goto out;
	CHECK(c->cell_flags[5] & POLICY_CELL_UNMEASURABLE);
	CHECK_NEAR(c->median_mib_s[5], 1000, 1e-9);
	CHECK(crossover_op_thin(&m->targets[0].ops[0]));
	CHECK_INT(m->targets[0].ops[0].nranges, 0);
	check_round_trip(out);
out:
	for (int i = 0; i < 3; i++)
		policy_bundle_free(in[i]);
	policy_bundle_free(out);
}

/*
 * Merging a merged bundle again weighs it by its hosts: three hosts near
 * 1000 MiB/s merged, then with one outlier at 100; the outlier must not
 * become the median (unweighted: the median of 1000 and 100 is 550).
 */
static void test_merge_weighted(void)
{
	struct policy_bundle *in[3], *first = NULL, *again = NULL, *two[2];
	const struct policy_curve *c;
	char err[256];

	in[0] = one(host(FP("a"), "2026-11-01T00:00:00Z", 1.0, 2048));
	in[1] = one(host(FP("a"), "2026-11-02T00:00:00Z", 1.0, 2048));
	in[2] = one(host(FP("a"), "2026-11-03T00:00:00Z", 1.0, 2048));
	CHECK_INT(policy_merge(in, 3, NULL, &first, err, sizeof(err)), 0);
	two[0] = first;
	two[1] = one(host(FP("a"), "2026-11-04T00:00:00Z", 0.1, 2048));
	CHECK_INT(policy_merge(two, 2, NULL, &again, err, sizeof(err)), 0);
	if (again) {
		CHECK_INT(again->entries[0]->merged.hosts, 4);
		c = policy_op_find_curve(&again->entries[0]->targets[0].ops[0], "clwb");
		CHECK_NEAR(c->median_mib_s[0], 1000, 1e-9);
		CHECK_NEAR(c->hosts_min_mib_s[0], 100, 1e-9);
		CHECK_NEAR(again->entries[0]->targets[0].ceiling_mib_s, 3000, 1e-6);
	}
	policy_bundle_free(again);
	policy_bundle_free(two[1]);
	policy_bundle_free(first);
	for (int i = 0; i < 3; i++)
		policy_bundle_free(in[i]);
}

/* One host twice: a repeated input, a repeated bundle, one host_id in two files. */
static void test_merge_same_host(void)
{
	struct policy_bundle *in[3], *out = NULL;
	char err[256] = "";
	struct policy *p;

	in[0] = one(host(FP("a"), "2026-11-01T00:00:00Z", 1.0, 2048));
	in[1] = one(host(FP("a"), "2026-11-02T00:00:00Z", 1.1, 2048));
	in[2] = in[0];
	CHECK_INT(policy_merge(in, 3, NULL, &out, err, sizeof(err)), -EEXIST);
	CHECK_MSG(strstr(err, "the same host twice"), "%s", err);
	CHECK(out == NULL);

	/* a new probe of one host (same host_id) is still that host */
	p = in[1]->entries[0];
	snprintf(p->generator.host_id, sizeof(p->generator.host_id), "sha256:%064d", 1);
	p = in[0]->entries[0];
	snprintf(p->generator.host_id, sizeof(p->generator.host_id), "sha256:%064d", 1);
	CHECK_INT(policy_merge(in, 2, NULL, &out, err, sizeof(err)), -EEXIST);
	CHECK_MSG(strstr(err, "sha256:0000"), "%s", err);
	snprintf(p->generator.host_id, sizeof(p->generator.host_id), "sha256:%064d", 2);
	CHECK_INT(policy_merge(in, 2, NULL, &out, err, sizeof(err)), 0);
	/* the merged bundle twice */
	if (out) {
		struct policy_bundle *twice[2] = { out, out }, *o2 = NULL;

		CHECK_INT(policy_merge(twice, 2, NULL, &o2, err, sizeof(err)), -EEXIST);
		CHECK_MSG(strstr(err, "the same host twice") && strstr(err, "in input 1 and in input 2"),
			  "%s", err);
		policy_bundle_free(o2);
	}
	policy_bundle_free(out);
	policy_bundle_free(in[0]);
	policy_bundle_free(in[1]);
}

static void set_id(struct policy *p, int n)
{
	snprintf(p->generator.host_id, sizeof(p->generator.host_id), "sha256:%064d", n);
}

/* Merge b[0..n) named name[] and load the result back through its text. */
static struct policy_bundle *merge_back(struct policy_bundle **b, const char **name, size_t n,
					int want, char *err, size_t errlen)
{
	struct policy_bundle *out = NULL, *back = NULL;
	char *s;

	CHECK_INT(policy_merge_named(b, name, n, NULL, &out, err, errlen), want);
	if (!out)
		return NULL;
	s = policy_bundle_to_string(out);
	back = s ? policy_bundle_parse(s, strlen(s), err, errlen) : NULL;
	CHECK_MSG(back != NULL, "a merged bundle does not load back: %s", err);
	free(s);
	policy_bundle_free(out);
	return back;
}

/*
 * A merged entry keeps its hosts' ids: one of them merged again, or two
 * bundles that share a host, is the same host twice however the inputs
 * nest; inputs without ids fall back to comparing the text.
 */
static void test_merge_host_ids(void)
{
	const char *name[] = { "ab.json", "c.json", "a.json", "bc.json" };
	struct policy_bundle *in[4], *ab, *bc, *abc, *x[2];
	char err[300] = "";
	struct policy *p;

	in[0] = one(host(FP("f"), "2026-11-01T00:00:00Z", 1.0, 2048));
	in[1] = one(host(FP("f"), "2026-11-02T00:00:00Z", 1.1, 2048));
	in[2] = one(host(FP("f"), "2026-11-03T00:00:00Z", 0.9, 2048));
	set_id(in[0]->entries[0], 3);
	set_id(in[1]->entries[0], 1);
	set_id(in[2]->entries[0], 2);
	ab = merge_back(in, name, 2, 0, err, sizeof(err));
	bc = merge_back(in + 1, name, 2, 0, err, sizeof(err));
	if (!ab || !bc)
		goto out;
	p = ab->entries[0];
	CHECK_INT(p->merged.hosts, 2);
	CHECK_INT(p->merged.nhost_ids, 2);
	if (p->merged.nhost_ids == 2) {
		/* sorted, whatever the order of the inputs */
		CHECK(!strcmp(p->merged.host_ids[0] + 7 + 63, "1"));
		CHECK(!strcmp(p->merged.host_ids[1] + 7 + 63, "3"));
	}
	CHECK(!p->generator.host_id[0]);

	/* the bundle again with one of its own hosts */
	x[0] = ab;
	x[1] = in[0];
	CHECK(merge_back(x, (const char *[]){ "ab.json", "a.json" }, 2, -EEXIST, err,
			 sizeof(err)) == NULL);
	CHECK_MSG(strstr(err, "the same host twice (sha256:0000") && strstr(err, "3), in ab.json and "
		  "in a.json"), "%s", err);
	/* two bundles that share host 1 */
	x[1] = bc;
	CHECK(merge_back(x, (const char *[]){ "ab.json", "bc.json" }, 2, -EEXIST, err,
			 sizeof(err)) == NULL);
	CHECK_MSG(strstr(err, "1), in ab.json and in bc.json"), "%s", err);
	/* a third host is welcome, and the ids add up */
	x[1] = in[2];
	abc = merge_back(x, (const char *[]){ "ab.json", "c.json" }, 2, 0, err, sizeof(err));
	CHECK(abc && abc->entries[0]->merged.hosts == 3 && abc->entries[0]->merged.nhost_ids == 3);
	policy_bundle_free(abc);

	/* an entry merged before host ids: no ids, so the text decides, as before */
	free(ab->entries[0]->merged.host_ids);
	ab->entries[0]->merged.host_ids = NULL;
	ab->entries[0]->merged.nhost_ids = 0;
	x[1] = in[0];
	abc = merge_back(x, name, 2, 0, err, sizeof(err));
	CHECK(abc && abc->entries[0]->merged.hosts == 3 && !abc->entries[0]->merged.nhost_ids);
	policy_bundle_free(abc);
	x[1] = ab;
	CHECK(merge_back(x, name, 2, -EEXIST, err, sizeof(err)) == NULL);
	CHECK_MSG(strstr(err, "merged entry twice"), "%s", err);
out:
	policy_bundle_free(ab);
	policy_bundle_free(bc);
	for (int i = 0; i < 3; i++)
		policy_bundle_free(in[i]);
}

/* merged.host_ids is validated: valid ids, one per host, none twice, bounded. */
static void test_host_ids_invalid(void)
{
	static const struct {
		const char *ids, *hosts, *why;
	} bad[] = {
		{ "[\"sha256:" FP64 "\"]", "2", "merged.host_ids: has 1 ids, hosts is 2" },
		{ "[\"sha256:" FP64 "\",\"sha256:" FP64 "\"]", "2", "is there twice" },
		{ "[\"sha256:" FP64 "\",\"sha256:X\"]", "2", "merged.host_ids[1]: expected" },
		{ "[\"sha256:" FP64 "\",7]", "2", "merged.host_ids[1]: expected" },
		{ "[\"sha256:" FP64 "\\u0000\",\"x\"]", "2", "merged.host_ids[0]: expected" },
		{ "{}", "1", "merged.host_ids: expected array" },
	};
	char text[4096], err[300];
	struct policy *p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"schema\":\"pmem-policy/1\",\"merged\":{\"hosts\":%s,\"host_ids\":%s},"
			 "\"platform\":{\"fingerprint\":\"sha256:" FP64 "\",\"cpu\":{\"vendor\":\"v\","
			 "\"family\":1,\"model\":1,\"stepping\":1}},\"targets\":[]}",
			 bad[i].hosts, bad[i].ids);
		p = policy_parse(text, strlen(text), err, sizeof(err));
		CHECK_MSG(!p && strstr(err, bad[i].why), "%zu: %s", i, err);
		policy_free(p);
	}
	/* more ids than an array may hold */
	{
		size_t n = 1025, len = 0, cap = n * 80 + 512;
		char *big = malloc(cap);

		len += (size_t)snprintf(big + len, cap - len, "{\"schema\":\"pmem-policy/1\","
					"\"merged\":{\"hosts\":%zu,\"host_ids\":[", n);
		for (size_t i = 0; i < n; i++)
			len += (size_t)snprintf(big + len, cap - len, "%s\"sha256:%064zu\"",
						i ? "," : "", i);
		snprintf(big + len, cap - len, "]},\"platform\":{\"fingerprint\":\"sha256:" FP64 "\","
			 "\"cpu\":{\"vendor\":\"v\",\"family\":1,\"model\":1,\"stepping\":1}},"
			 "\"targets\":[]}");
		p = policy_parse(big, strlen(big), err, sizeof(err));
		CHECK_MSG(!p && strstr(err, "host_ids"), "%s", err);
		policy_free(p);
		free(big);
	}
}

/* --weights: a bounded regular file; /dev/zero spun for ever. */
static void test_weights_bounded(void)
{
	struct export_weights w;
	char err[256] = "";

	CHECK_INT(export_weights_load("/dev/zero", &w, err, sizeof(err)), -EINVAL);
	CHECK_MSG(strstr(err, "not a regular file"), "%s", err);
}

/* The host id: salted, stable, and not the machine-id. */
static void test_host_id(void)
{
	char path[] = "/tmp/pt-machine-id.XXXXXX", a[80], b[80], c[80];
	int fd = mkstemp(path);

	CHECK(fd >= 0 && write(fd, "0123456789abcdef0123456789abcdef\n", 33) == 33);
	close(fd);
	CHECK_INT(policy_host_id(path, FP("a"), a, sizeof(a)), 0);
	CHECK_INT(policy_host_id(path, FP("a"), b, sizeof(b)), 0);
	CHECK_INT(policy_host_id(path, FP("b"), c, sizeof(c)), 0);
	CHECK_STR(a, b);
	CHECK(strcmp(a, c) != 0);
	CHECK(strncmp(a, "sha256:", 7) == 0 && strlen(a) == 71);
	CHECK(!strstr(a, "0123456789abcdef"));
	CHECK_INT(policy_host_id("/dev/null", FP("a"), a, sizeof(a)), -EINVAL);
	unlink(path);
}

/* Sample and host counts add up in a merge, but never past what a file may hold. */
static void test_merge_samples_cap(void)
{
	struct policy_bundle *in[2], *out = NULL, *back;
	char err[256], *s;

	for (int i = 0; i < 2; i++) {
		struct policy *p = host(FP("d"), "2026-11-01T00:00:00Z", 1.0, 2048);

		policy_op_find_curve(&p->targets[0].ops[0], "clwb")->samples[0] = 1000000000;
		p->merged.hosts = 10000000;	/* an entry that was merged already */
		/* two different bundles: the same one twice would be refused */
		snprintf(p->merged.created_first, sizeof(p->merged.created_first), "x%d", i);
		snprintf(p->merged.created_last, sizeof(p->merged.created_last), "y");
		in[i] = one(p);
	}
	CHECK_INT(policy_merge(in, 2, NULL, &out, err, sizeof(err)), 0);
	s = out ? policy_bundle_to_string(out) : NULL;
	back = s ? policy_bundle_parse(s, strlen(s), err, sizeof(err)) : NULL;
	CHECK_MSG(back != NULL, "a merged bundle does not load back: %s", err);
	policy_bundle_free(back);
	free(s);
	policy_bundle_free(out);
	policy_bundle_free(in[0]);
	policy_bundle_free(in[1]);
}

/* A target only an older host probed is kept in the merged entry. */
static void test_merge_target_union(void)
{
	struct policy *older = host(FP("e"), "2026-11-01T00:00:00Z", 1.0, 2048);
	struct policy *newer = host(FP("e"), "2026-11-02T00:00:00Z", 1.0, 2048);
	struct policy_bundle *in[2], *out = NULL;
	struct policy_target *t;
	char err[256];

	/* the older host also probed dram */
	snprintf(older->targets[0].name, sizeof(older->targets[0].name), "dram");
	snprintf(older->targets[0].kind, sizeof(older->targets[0].kind), "dram");
	in[0] = one(older);
	in[1] = one(newer);
	CHECK_INT(policy_merge(in, 2, NULL, &out, err, sizeof(err)), 0);
	CHECK(out && out->n == 1);
	if (out && out->n == 1) {
		CHECK_INT(out->entries[0]->ntargets, 2);
		t = policy_find_target(out->entries[0], "dram");
		CHECK(t != NULL && t->nops == 1 && t->ops[0].ncrossovers == 1);
		CHECK(policy_find_target(out->entries[0], "region0") != NULL);
	}
	policy_bundle_free(out);
	policy_bundle_free(in[0]);
	policy_bundle_free(in[1]);
}

static void test_diff(void)
{
	struct policy_bundle *a = one(host(FP("a"), "2026-11-01T00:00:00Z", 1.0, 2048));
	struct policy_bundle *noise = one(host(FP("a"), "2026-11-02T00:00:00Z", 1.05, 2048));
	struct policy_bundle *moved = one(host(FP("a"), "2026-11-02T00:00:00Z", 1.0, 8192));
	struct policy_bundle *other = one(host(FP("c"), "2026-11-02T00:00:00Z", 1.0, 2048));
	struct policy *near = host(FP("a"), "2026-11-02T00:00:00Z", 1.0, 2048);
	struct policy_bundle *nb;

	/* throughputs moved, decisions did not */
	CHECK_INT(policy_bundle_diff(a, noise, NULL), 0);
	/* the crossover moved two grid steps: a change */
	CHECK(policy_bundle_diff(a, moved, NULL) >= 1);
	/* a different platform is a change, and its decisions are still compared */
	CHECK_INT(policy_bundle_diff(a, other, NULL), 1);
	/* a crossover within one grid step (at most 1.5x) is noise */
	near->targets[0].ops[0].crossovers[0].size_bytes = 2048 + 1024;
	nb = one(near);
	CHECK_INT(policy_bundle_diff(a, nb, NULL), 0);
	nb->entries[0]->targets[0].ops[0].crossovers[0].size_bytes = 4096;
	CHECK(policy_bundle_diff(a, nb, NULL) >= 1);
	/* an op that decides nothing, in one of the two: no decision changed */
	{
		struct policy_target *t = &noise->entries[0]->targets[0];
		struct policy_op *two = policy_target_add_op(t, "write", "sequential", 2, sizes, N);

		CHECK(two != NULL);
		CHECK_INT(policy_bundle_diff(a, noise, NULL), 0);
		CHECK_INT(policy_bundle_diff(noise, a, NULL), 0);
		/* one that decides: added, or removed */
		if (two) {
			two->ranges = calloc(1, sizeof(*two->ranges));
			if (two->ranges) {
				two->nranges = 1;
				snprintf(two->ranges[0].strategy, sizeof(two->ranges[0].strategy),
					 "movnt_avx2");
				two->ranges[0].to_bytes = POLICY_SIZE_OPEN;
			}
		}
		CHECK_INT(policy_bundle_diff(a, noise, NULL), 1);
		CHECK_INT(policy_bundle_diff(noise, a, NULL), 1);
	}
	policy_bundle_free(a);
	policy_bundle_free(noise);
	policy_bundle_free(moved);
	policy_bundle_free(other);
	policy_bundle_free(nb);
}

static void test_bundle_errors(void)
{
	char err[256];
	struct policy_bundle *b;
	const char *dup = "{\"schema\":\"pmem-policy/1\",\"bundle\":["
			  "{\"schema\":\"pmem-policy/1\",\"platform\":{\"fingerprint\":\"sha256:" FP64 "\",\"cpu\":"
			  "{\"vendor\":\"v\",\"family\":1,\"model\":1,\"stepping\":1}},\"targets\":[]},"
			  "{\"schema\":\"pmem-policy/1\",\"platform\":{\"fingerprint\":\"sha256:" FP64 "\",\"cpu\":"
			  "{\"vendor\":\"v\",\"family\":1,\"model\":1,\"stepping\":1}},\"targets\":[]}]}";
	const char *bad = "{\"schema\":\"pmem-policy/1\",\"bundle\":["
			  "{\"schema\":\"pmem-policy/1\",\"platform\":{\"fingerprint\":\"sha256:" FP64 "\",\"cpu\":"
			  "{\"vendor\":\"v\",\"family\":-1,\"model\":1,\"stepping\":1}},"
			  "\"targets\":[]}]}";

	b = policy_bundle_parse(dup, strlen(dup), err, sizeof(err));
	CHECK_MSG(!b && strstr(err, "bundle[1].platform.fingerprint"), "%s", err);
	b = policy_bundle_parse(bad, strlen(bad), err, sizeof(err));
	CHECK_MSG(!b && strstr(err, "bundle[0].platform.cpu.family"), "%s", err);
	{
		const char *empty = "{\"schema\":\"pmem-policy/1\",\"bundle\":[]}";

		b = policy_bundle_parse(empty, strlen(empty), err, sizeof(err));
	}
	CHECK_MSG(!b && strstr(err, "bundle"), "%s", err);
	{
		const char *v2 = "{\"schema\":\"pmem-policy/2\",\"bundle\":[{}]}";

		b = policy_bundle_parse(v2, strlen(v2), err, sizeof(err));
	}
	CHECK_MSG(!b && strstr(err, "schema"), "%s", err);
}

int main(void)
{
	test_merge();
	test_merge_flags();
	test_merge_weighted();
	test_merge_same_host();
	test_merge_host_ids();
	test_host_ids_invalid();
	test_host_id();
	test_weights_bounded();
	test_merge_samples_cap();
	test_merge_target_union();
	test_diff();
	test_bundle_errors();
	return check_report("test_fleet");
}
