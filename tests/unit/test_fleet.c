// SPDX-License-Identifier: GPL-2.0-or-later
/* Fleet bundles: load, merge (robust aggregation), diff (decisions, not noise). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "check.h"
#include "mkpolicy.h"
#include "policy/policy.h"
#include "policy/policy_limits.h"
#include "rule/crossover.h"
#include "rule/fleet.h"

#define N 6
#define FP64 "0000000000000000000000000000000000000000000000000000000000000000"
#define FP(c) "sha256:" c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
	      c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c
static const uint64_t sizes[N] = { 256, 512, 1024, 2048, 4096, 8192 };

/* A host whose clwb curve is scaled by k, crossing movnt_avx2 near 'at'. */
static struct policy *host(const char *fp, const char *created, double k, uint64_t at)
{
	static const char *const strategies[] = { "clwb", "movnt_avx2" };
	struct policy *p = mkpolicy_new(fp, created);
	struct policy_target *t = mkpolicy_target(p, "region0", "pmem", NULL);
	struct policy_op *op;
	struct policy_curve *a, *b;

	t->ceiling_mib_s = 3000 * k;
	op = mkpolicy_op(t, "sequential", sizes, N, strategies, 2);
	op->ceiling_mib_s = 3000 * k;
	a = policy_op_find_curve(op, "clwb");
	b = policy_op_find_curve(op, "movnt_avx2");
	for (size_t i = 0; i < N; i++) {
		double va = 1000 * k, vb = sizes[i] >= at ? 2000 : 500;

		mkpolicy_cell(a, i, va, va * 0.02, va * 0.02, 9);
		mkpolicy_cell(b, i, vb, vb * 0.02, vb * 0.02, 9);
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
		CHECK_MSG(strstr(err, "the same host twice") &&
			  strstr(err, "in input 1 and in input 2"),
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
	CHECK_MSG(strstr(err, "the same host twice (sha256:0000") &&
		  strstr(err, "3), in ab.json and "
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

	/*
	 * An entry merged before host ids: no ids, so it is one host, known by
	 * its text (what it says it holds counts for nothing), and the result
	 * lists that identity beside host 3's.
	 */
	free(ab->entries[0]->merged.host_ids);
	ab->entries[0]->merged.host_ids = NULL;
	ab->entries[0]->merged.nhost_ids = 0;
	x[1] = in[0];
	abc = merge_back(x, name, 2, 0, err, sizeof(err));
	CHECK(abc && abc->entries[0]->merged.hosts == 2 && abc->entries[0]->merged.nhost_ids == 2);
	/* and the result again with that old entry: the same host twice, by its text's id */
	if (abc) {
		struct policy_bundle *y[2] = { abc, ab };

		CHECK(merge_back(y, (const char *[]){ "abc.json", "old.json" }, 2, -EEXIST, err,
				 sizeof(err)) == NULL);
		CHECK_MSG(strstr(err, "the same host twice (sha256:") &&
			  strstr(err, "in abc.json and in old.json"), "%s", err);
	}
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
		{ "[\"sha256:" FP64 "\",7]", "2", "merged.host_ids[1]: a number or literal, not a "
		  "host id" },
		{ "[[]]", "1", "merged.host_ids[0]: an array, not a host id" },
		{ "[\"sha256:" FP64 FP64 "\"]", "1", "merged.host_ids[0]: a string too long, not a "
		  "host id (a string of at most 79 bytes)" },
		{ "[\"sha256:" FP64 "\\u0000\",\"x\"]", "2", "merged.host_ids[0]: expected" },
		{ "{}", "1", "merged.host_ids: expected array" },
	};
	char text[4096], err[300];
	struct policy *p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"schema\":\"pmem-policy/1\",\"merged\":{\"hosts\":%s,\"host_ids\":%s},"
			 "\"platform\":{\"fingerprint\":\"sha256:" FP64 "\",\"cpu\":"
			 "{\"vendor\":\"v\","
			 "\"family\":1,\"model\":1,\"stepping\":1}},\"targets\":[]}",
			 bad[i].hosts, bad[i].ids);
		p = policy_parse(text, strlen(text), err, sizeof(err));
		CHECK_MSG(!p && strstr(err, bad[i].why), "%zu: %s", i, err);
		policy_free(p);
	}
	/* "host_ids" elsewhere than under merged: held to every array's bound */
	{
		size_t n = POLICY_MAX_ENTRIES + 1, len = 0, cap = n * 4 + 512;
		char *big = malloc(cap);

		CHECK(big != NULL);
		if (!big)
			return;
		len += (size_t)snprintf(big + len, cap - len, "{\"schema\":\"pmem-policy/1\","
					"\"platform\":{\"host_ids\":[");
		for (size_t i = 0; i < n; i++)
			len += (size_t)snprintf(big + len, cap - len, "%s1", i ? "," : "");
		snprintf(big + len, cap - len, "]},\"targets\":[]}");
		p = policy_parse(big, strlen(big), err, sizeof(err));
		CHECK_MSG(!p && strstr(err, "platform.host_ids") &&
			  strstr(err, "entries in one array"), "%s", err);
		policy_free(p);
		free(big);
	}
	/* blanks padding merged.host_ids count against the size bound like any text */
	{
		size_t pad = 9u << 20, len = 0, cap = pad + 1024;
		char *big = malloc(cap);

		CHECK(big != NULL);
		if (!big)
			return;
		len += (size_t)snprintf(big + len, cap - len, "{\"schema\":\"pmem-policy/1\","
					"\"merged\":{\"hosts\":1,\"host_ids\":"
					"[\"sha256:" FP64 "\"");
		memset(big + len, ' ', pad);
		len += pad;
		snprintf(big + len, cap - len, "]},\"platform\":{\"fingerprint\":\"sha256:" FP64
			 "\",\"cpu\":{\"vendor\":\"v\",\"family\":1,\"model\":1,"
			 "\"stepping\":1}},\"targets\":[]}");
		p = policy_parse(big, strlen(big), err, sizeof(err));
		CHECK_MSG(!p && strstr(err, "host ids aside"), "%s", err);
		policy_free(p);
		free(big);
	}
	/* more ids than a file may hold */
	{
		size_t n = POLICY_MAX_HOST_IDS + 1, len = 0, cap = n * 80 + 512;
		char *big = malloc(cap);

		len += (size_t)snprintf(big + len, cap - len, "{\"schema\":\"pmem-policy/1\","
					"\"merged\":{\"hosts\":%zu,\"host_ids\":[", n);
		for (size_t i = 0; i < n; i++)
			len += (size_t)snprintf(big + len, cap - len, "%s\"sha256:%064zu\"",
						i ? "," : "", i);
		snprintf(big + len, cap - len,
			 "]},\"platform\":{\"fingerprint\":\"sha256:" FP64 "\","
			 "\"cpu\":{\"vendor\":\"v\",\"family\":1,\"model\":1,\"stepping\":1}},"
			 "\"targets\":[]}");
		p = policy_parse(big, strlen(big), err, sizeof(err));
		CHECK_MSG(!p && strstr(err, "merged.host_ids") &&
			  strstr(err, "more than 262144 host ids in one file"), "%s", err);
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

/*
 * Sample counts add up in a merge, but never past what a file may hold;
 * what merged entries say they hold counts for nothing without ids.
 */
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
	CHECK(out && out->entries[0]->merged.hosts == 2 && out->entries[0]->merged.nhost_ids == 2);
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
			  "{\"schema\":\"pmem-policy/1\","
			  "\"platform\":{\"fingerprint\":\"sha256:" FP64 "\",\"cpu\":"
			  "{\"vendor\":\"v\",\"family\":1,\"model\":1,\"stepping\":1}},"
			  "\"targets\":[]},"
			  "{\"schema\":\"pmem-policy/1\","
			  "\"platform\":{\"fingerprint\":\"sha256:" FP64 "\",\"cpu\":"
			  "{\"vendor\":\"v\",\"family\":1,\"model\":1,\"stepping\":1}},"
			  "\"targets\":[]}]}";
	const char *bad = "{\"schema\":\"pmem-policy/1\",\"bundle\":["
			  "{\"schema\":\"pmem-policy/1\","
			  "\"platform\":{\"fingerprint\":\"sha256:" FP64 "\",\"cpu\":"
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

/*
 * A merged entry counts the hosts whose ids it holds, nothing it says:
 * three hosts and an entry that claims ten million hosts of its own
 * (cached+flush ten times faster), without one id, are four hosts, and
 * the claim moves no median past the honest hosts'.
 */
static void test_merge_claims(void)
{
	struct policy_bundle *in[4], *out = NULL, *honest = NULL, *alone = NULL;
	const struct policy_curve *c;
	struct policy *fake;
	char err[300] = "";

	in[0] = one(host(FP("a"), "2026-11-01T00:00:00Z", 1.0, 2048));
	in[1] = one(host(FP("a"), "2026-11-02T00:00:00Z", 1.05, 2048));
	in[2] = one(host(FP("a"), "2026-11-03T00:00:00Z", 0.95, 2048));
	for (int i = 0; i < 3; i++)
		set_id(in[i]->entries[0], i + 1);
	fake = host(FP("a"), "2026-11-04T00:00:00Z", 10.0, 2048);
	fake->merged.hosts = 10000000;
	snprintf(fake->merged.created_first, sizeof(fake->merged.created_first), "2026-11-04");
	snprintf(fake->merged.created_last, sizeof(fake->merged.created_last), "2026-11-04");
	in[3] = one(fake);
	CHECK_INT(policy_merge(in, 3, NULL, &honest, err, sizeof(err)), 0);
	CHECK_INT(policy_merge(in, 4, NULL, &out, err, sizeof(err)), 0);
	if (!out || !honest)
		goto out;
	CHECK_INT(out->entries[0]->merged.hosts, 4);
	CHECK_INT(out->entries[0]->merged.nhost_ids, 4);
	c = policy_op_find_curve(&out->entries[0]->targets[0].ops[0], "clwb");
	/* the median of 950, 1000, 1050 and the claim's 10000: four hosts, not ten million */
	CHECK_NEAR(c->median_mib_s[0], 1025, 1e-9);
	CHECK_NEAR(c->hosts_max_mib_s[0], 10000, 1e-9);
	/* the honest hosts' decisions and exports stand */
	CHECK_INT(policy_bundle_diff(honest, out, NULL), 0);
	/* alone, it is one host too, and says so */
	CHECK_INT(policy_merge(in + 3, 1, NULL, &alone, err, sizeof(err)), 0);
	CHECK(alone && alone->entries[0]->merged.hosts == 1 &&
	      alone->entries[0]->merged.nhost_ids == 1);
	if (alone)
		check_round_trip(alone);
out:
	policy_bundle_free(alone);
	policy_bundle_free(honest);
	policy_bundle_free(out);
	for (int i = 0; i < 4; i++)
		policy_bundle_free(in[i]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define MANY 3000

/*
 * A few thousand hosts: every one counted and listed by id (more than
 * the 1024 a merged entry kept before), each cell the median of them
 * all, the result read back; one of them again is refused, and two
 * halves merged apart and then together hold the same hosts.
 */
static void test_merge_thousands(void)
{
	struct policy_bundle **in = calloc(MANY, sizeof(*in)), *out = NULL, *half[2] = { 0 };
	struct policy_bundle *both = NULL, *x[2];
	double *v = calloc(MANY, sizeof(*v));
	char err[300] = "", id[80];
	const struct policy_curve *c;
	const struct policy *m;

	if (!in || !v) {
		CHECK(!"out of memory");
		goto out;
	}
	for (int i = 0; i < MANY; i++) {
		double k = 0.5 + (i * 7919 % 1000) / 1000.0;
		char created[32];

		snprintf(created, sizeof(created), "2026-11-%02dT%02d:%02d:00Z", 1 + i / 1440,
			 i / 60 % 24, i % 60);
		in[i] = one(host(FP("7"), created, k, 2048));
		set_id(in[i]->entries[0], i + 1);
		v[i] = 1000 * k;
	}
	qsort(v, MANY, sizeof(*v), cmp_double);
	CHECK_INT(policy_merge(in, MANY, NULL, &out, err, sizeof(err)), 0);
	if (!out)
		goto out;
	m = out->entries[0];
	CHECK_INT(m->merged.hosts, MANY);
	CHECK_INT(m->merged.nhost_ids, MANY);
	/* sorted: "sha256:" and the zero-padded number */
	for (size_t i = 0; i < m->merged.nhost_ids; i++) {
		snprintf(id, sizeof(id), "sha256:%064zu", i + 1);
		if (strcmp(m->merged.host_ids[i], id)) {
			CHECK_MSG(0, "host_ids[%zu] is %s, expected %s", i,
				  m->merged.host_ids[i], id);
			break;
		}
	}
	c = policy_op_find_curve(&m->targets[0].ops[0], "clwb");
	CHECK_NEAR(c->median_mib_s[0], (v[MANY / 2 - 1] + v[MANY / 2]) / 2, 1e-9);
	CHECK_NEAR(c->hosts_min_mib_s[0], v[0], 1e-9);
	CHECK_NEAR(c->hosts_max_mib_s[0], v[MANY - 1], 1e-9);
	CHECK_INT(c->samples[0], 9 * MANY);
	check_round_trip(out);

	/* the bundle again with one of its hosts */
	x[0] = out;
	x[1] = in[1233];
	CHECK_INT(policy_merge(x, 2, NULL, &both, err, sizeof(err)), -EEXIST);
	CHECK_MSG(strstr(err, "the same host twice (sha256:") && strstr(err, "1234)"), "%s", err);
	/* two halves, then together */
	CHECK_INT(policy_merge(in, MANY / 2, NULL, &half[0], err, sizeof(err)), 0);
	CHECK_INT(policy_merge(in + MANY / 2, MANY - MANY / 2, NULL, &half[1], err, sizeof(err)),
		  0);
	if (half[0] && half[1])
		CHECK_INT(policy_merge(half, 2, NULL, &both, err, sizeof(err)), 0);
	if (both) {
		const struct policy *b = both->entries[0];
		bool same = b->merged.nhost_ids == m->merged.nhost_ids;

		CHECK_INT(b->merged.hosts, MANY);
		for (size_t i = 0; same && i < b->merged.nhost_ids; i++)
			same = !strcmp(b->merged.host_ids[i], m->merged.host_ids[i]);
		CHECK_MSG(same, "two halves merged hold other hosts than all at once");
	}
out:
	policy_bundle_free(both);
	policy_bundle_free(half[0]);
	policy_bundle_free(half[1]);
	policy_bundle_free(out);
	for (int i = 0; in && i < MANY; i++)
		policy_bundle_free(in[i]);
	free(in);
	free(v);
}

/* Hosts without ids, a thousand of them: one repeated is still found, and named. */
static void test_merge_same_text_many(void)
{
	enum { n = 1000 };
	struct policy_bundle *in[n + 1], *out = NULL;
	char err[300] = "";

	for (int i = 0; i < n; i++) {
		char created[32];

		snprintf(created, sizeof(created), "2026-10-%02dT%02d:%02d:00Z", 1 + i / 1440,
			 i / 60 % 24, i % 60);
		in[i] = one(host(FP("8"), created, 1.0, 2048));
	}
	CHECK_INT(policy_merge(in, n, NULL, &out, err, sizeof(err)), 0);
	CHECK(out && out->entries[0]->merged.hosts == n && out->entries[0]->merged.nhost_ids == n);
	policy_bundle_free(out);
	out = NULL;
	in[n] = in[500];
	CHECK_INT(policy_merge(in, n + 1, NULL, &out, err, sizeof(err)), -EEXIST);
	CHECK_MSG(strstr(err, "the same host twice (created 2026-10-01T08:20:00Z), in input 501 "
			  "and in input 1001"), "%s", err);
	for (int i = 0; i < n; i++)
		policy_bundle_free(in[i]);
}

/* A host whose op has nsizes sizes and ncurves curves: a wider entry than host()'s. */
static struct policy *wide_host(const char *fp, size_t nsizes, size_t ncurves)
{
	static const char *const names[] = { "movnt", "movnt_sse2", "movnt_avx2", "movnt_avx512",
					     "movdir64b", "clwb", "clflushopt", "clflush" };
	struct policy *p = mkpolicy_new(fp, "2026-11-01T00:00:00Z");
	struct policy_target *t = mkpolicy_target(p, "region0", "pmem", NULL);
	uint64_t sz[64];
	struct policy_op *op;

	for (size_t i = 0; i < nsizes; i++)
		sz[i] = 64ull << i / 2 | (i % 2 ? 32ull << i / 2 : 0);
	for (int o = 0; o < 2; o++) {
		op = mkpolicy_op(t, o ? "random" : "sequential", sz, nsizes, names, ncurves);
		for (size_t c = 0; c < ncurves; c++) {
			struct policy_curve *cv = policy_op_find_curve(op, names[c]);

			for (size_t i = 0; i < nsizes; i++) {
				double v = 1000.0 + 100.0 * (double)c + (double)i;

				mkpolicy_cell(cv, i, v, 10, 10, 9);
			}
		}
		crossover_decide(op);
	}
	return p;
}

static char *fp_n(char *buf, size_t len, unsigned n)
{
	snprintf(buf, len, "sha256:%064x", n);
	return buf;
}

/*
 * 250 platforms of a probe's size (about 40 KiB each) make a bundle over
 * the 8 MiB a file could have: written and read back, every one.  And
 * no more platforms than the file's size was made for.
 */
static void test_bundle_many_platforms(void)
{
	struct policy_bundle *b = policy_bundle_new(), *back = NULL;
	char fp[80], err[300] = "", *s;

	for (unsigned i = 0; i < 250; i++)
		CHECK_INT(policy_bundle_add(b, wide_host(fp_n(fp, sizeof(fp), i), 24, 8)), 0);
	s = policy_bundle_to_string(b);
	CHECK_MSG(s && strlen(s) > (8u << 20), "%zu bytes", s ? strlen(s) : 0);
	/* written an entry at a time, byte for byte what json-c writes of the whole tree */
	{
		struct json_object *root = json_object_new_object(), *arr = json_object_new_array();
		const char *whole;

		json_object_object_add(root, "schema", json_object_new_string("pmem-policy/1"));
		for (size_t i = 0; i < b->n; i++)
			json_object_array_add(arr, policy_to_json(b->entries[i]));
		json_object_object_add(root, "bundle", arr);
		whole = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
		CHECK(s && whole && strlen(s) == strlen(whole) + 1 &&
		      !strncmp(s, whole, strlen(whole)));
		json_object_put(root);
	}
	back = s ? policy_bundle_parse(s, strlen(s), err, sizeof(err)) : NULL;
	CHECK_MSG(back && back->n == 250, "%s", err);
	CHECK_INT(policy_bundle_check(b, err, sizeof(err)), 0);
	policy_bundle_free(back);
	free(s);
	policy_bundle_free(b);

	b = policy_bundle_new();
	for (unsigned i = 0; i < POLICY_MAX_BUNDLE + 1; i++)
		policy_bundle_add(b, host(fp_n(fp, sizeof(fp), i), "2026-11-01T00:00:00Z", 1.0,
					  2048));
	s = policy_bundle_to_string(b);
	back = s ? policy_bundle_parse(s, strlen(s), err, sizeof(err)) : NULL;
	CHECK_MSG(!back && strstr(err, "bundle: 257 entries, expected 1 to 256"), "%s", err);
	policy_bundle_free(back);
	free(s);
	policy_bundle_free(b);
}

/*
 * One host of fingerprint FP("a"): an op of n sizes, the k-th at
 * 64 (k + 1) + offset bytes, and curves named prefix0.., prefix(ncurves-1),
 * every cell tied.
 */
static struct policy *grid_host(int id, uint64_t offset, size_t n, const char *prefix,
				size_t ncurves)
{
	struct policy *p = mkpolicy_new(FP("a"), "2026-11-01T00:00:00Z");
	struct policy_target *t = mkpolicy_target(p, "region0", "pmem", NULL);
	uint64_t *sz = calloc(n, sizeof(*sz));
	char (*names)[POLICY_NAME_MAX] = calloc(ncurves, sizeof(*names));
	const char **np = calloc(ncurves, sizeof(*np));
	struct policy_op *op;

	CHECK(sz && names && np);
	for (size_t k = 0; k < n; k++)
		sz[k] = 64 * (k + 1) + offset;
	for (size_t c = 0; c < ncurves; c++) {
		snprintf(names[c], sizeof(names[c]), "%s%zu", prefix, c);
		np[c] = names[c];
	}
	op = mkpolicy_op(t, "sequential", sz, n, np, ncurves);
	for (size_t c = 0; c < op->ncurves; c++)
		for (size_t k = 0; k < n; k++)
			mkpolicy_cell(&op->curves[c], k, 1000, 20, 20, 9);
	set_id(p, id);
	free(sz);
	free(names);
	free(np);
	return p;
}

/*
 * A merge whose output no reader would take is refused, naming the bound:
 * hosts on disjoint grids whose union is more sizes, or more strategies,
 * than an op holds, and more platforms than a file holds.
 */
static void test_merge_bounds(void)
{
	struct policy_bundle *in[2], *out = NULL;
	struct policy_bundle **many;
	char err[400] = "", fp[80];

	in[0] = one(grid_host(1, 0, POLICY_MAX_SIZES, "clwb_", 2));
	in[1] = one(grid_host(2, 32, POLICY_MAX_SIZES, "clwb_", 2));
	CHECK_INT(policy_merge(in, 2, NULL, &out, err, sizeof(err)), -E2BIG);
	CHECK_MSG(strstr(err, "region0, write sequential x1") &&
		  strstr(err, "more than 1024 sizes or 64 strategies"), "%s", err);
	CHECK(out == NULL);
	policy_bundle_free(in[0]);
	policy_bundle_free(in[1]);

	in[0] = one(grid_host(1, 0, 8, "a_", 40));
	in[1] = one(grid_host(2, 0, 8, "b_", 40));
	CHECK_INT(policy_merge(in, 2, NULL, &out, err, sizeof(err)), -E2BIG);
	CHECK_MSG(strstr(err, "more than 1024 sizes or 64 strategies"), "%s", err);
	policy_bundle_free(in[0]);
	policy_bundle_free(in[1]);

	many = calloc(POLICY_MAX_BUNDLE + 1, sizeof(*many));
	CHECK(many != NULL);
	for (unsigned i = 0; i < POLICY_MAX_BUNDLE + 1; i++)
		many[i] = one(host(fp_n(fp, sizeof(fp), i), "2026-11-01T00:00:00Z", 1.0, 2048));
	CHECK_INT(policy_merge(many, POLICY_MAX_BUNDLE + 1, NULL, &out, err, sizeof(err)),
		  -E2BIG);
	CHECK_MSG(strstr(err, "257 platforms, more than the 256"), "%s", err);
	for (unsigned i = 0; i < POLICY_MAX_BUNDLE + 1; i++)
		policy_bundle_free(many[i]);
	free(many);
}

/*
 * The text of a bundle of two small entries, the second padded by an
 * unknown key to pad bytes more, and with ids host ids listed: *len.
 */
static char *padded_bundle(size_t pad, size_t ids, size_t *entry_len)
{
	struct policy_bundle *b = policy_bundle_new();
	struct policy *p = host(FP("1"), "2026-11-01T00:00:00Z", 1.0, 2048);
	char *s, *e, *out, *o;
	size_t n;

	policy_bundle_add(b, host(FP("0"), "2026-11-01T00:00:00Z", 1.0, 2048));
	if (ids) {
		p->merged.hosts = (unsigned)ids;
		p->merged.nhost_ids = ids;
		p->merged.host_ids = calloc(ids, sizeof(*p->merged.host_ids));
		for (size_t i = 0; i < ids; i++)
			snprintf(p->merged.host_ids[i], sizeof(p->merged.host_ids[i]),
				 "sha256:%064zx", i);
	}
	policy_bundle_add(b, p);
	s = policy_bundle_to_string(b);
	policy_bundle_free(b);
	/* the second entry starts at the second "{" at four spaces of indent */
	e = strstr(strstr(s, "\n    {") + 1, "\n    {") + 5;
	n = strlen(s);
	out = malloc(n + pad + 64);
	o = out + (e - s) + 1;
	memcpy(out, s, (size_t)(e - s) + 1);
	o += sprintf(o, "\"pad\":\"");
	memset(o, 'x', pad);
	o += pad;
	o += sprintf(o, "\",");
	strcpy(o, e + 1);
	/* the entry: from its "{" to the "}" before the bundle's "]" */
	*entry_len = (size_t)(strrchr(out, ']') - (out + (e - s)));
	while (out[(e - s) + *entry_len - 1] != '}')
		(*entry_len)--;
	free(s);
	return out;
}

/*
 * The bounds the file's size is made of: an entry of a bundle at its
 * largest is read and one byte more is refused naming it; the host ids
 * an entry lists are not part of it, and take in the file the bytes
 * POLICY_MAX_FILE_BYTES counts them at.
 */
static void test_bundle_entry_bounds(void)
{
	struct policy_bundle *b;
	size_t len, len2, base;
	char err[300] = "", *s;

	s = padded_bundle(0, 0, &base);
	free(s);
	s = padded_bundle(POLICY_MAX_ENTRY_BYTES - base, 0, &len);
	CHECK_INT(len, POLICY_MAX_ENTRY_BYTES);
	b = policy_bundle_parse(s, strlen(s), err, sizeof(err));
	CHECK_MSG(b && b->n == 2, "an entry of the largest size: %s", err);
	policy_bundle_free(b);
	free(s);
	s = padded_bundle(POLICY_MAX_ENTRY_BYTES - base + 1, 0, &len);
	b = policy_bundle_parse(s, strlen(s), err, sizeof(err));
	CHECK_MSG(!b && errno == EFBIG && strstr(err, "bundle[1]: 2097153 bytes (its host ids "
		  "aside), more than the 2097152 bytes an entry of a bundle may have"), "%s", err);
	policy_bundle_free(b);
	free(s);

	/* what is not JSON among the bundle's own keys is named at its byte in the file */
	s = padded_bundle(0, 0, &len);
	{
		char whole[300] = "", *end = strrchr(s, '}');

		strcpy(end, ", \"x\": nul}\n");
		CHECK(policy_parse(s, strlen(s), whole, sizeof(whole)) == NULL);
		b = policy_bundle_parse(s, strlen(s), err, sizeof(err));
		CHECK_MSG(!b && strstr(err, "not valid JSON at byte") && !strcmp(err, whole),
			  "%s, read whole: %s", err, whole);
		policy_bundle_free(b);
	}
	free(s);

	/* 30 000 ids: 2.5 MiB more of the entry's text, which its size leaves aside */
	s = padded_bundle(0, 30000, &len);
	CHECK(len > POLICY_MAX_ENTRY_BYTES);
	b = policy_bundle_parse(s, strlen(s), err, sizeof(err));
	CHECK_MSG(b && b->n == 2 && b->entries[1]->merged.nhost_ids == 30000, "%s", err);
	policy_bundle_free(b);
	free(s);
	s = padded_bundle(0, 31000, &len2);
	CHECK_INT((len2 - len) / 1000, POLICY_HOST_ID_TEXT_BYTES);
	free(s);
}

/* Every host id a file may hold, in two entries of a bundle; one more is refused. */
static void test_bundle_host_ids_bound(void)
{
	for (int extra = 0; extra < 2; extra++) {
		size_t n[2] = { POLICY_MAX_HOST_IDS / 2, POLICY_MAX_HOST_IDS / 2 + extra };
		size_t cap = (n[0] + n[1]) * 76 + 4096;
		char *t = malloc(cap), *o = t, err[300] = "";
		struct policy_bundle *b;

		o += sprintf(o, "{\"schema\":\"pmem-policy/1\",\"bundle\":[");
		for (int e = 0; e < 2; e++) {
			o += sprintf(o, "%s{\"schema\":\"pmem-policy/1\",\"merged\":{\"hosts\":%zu,"
				     "\"host_ids\":[", e ? "," : "", n[e]);
			for (size_t i = 0; i < n[e]; i++)
				o += sprintf(o, "%s\"sha256:%02x%062zx\"", i ? "," : "", e, i);
			o += sprintf(o, "]},\"platform\":{\"fingerprint\":\"sha256:%064x\",\"cpu\":"
				     "{\"vendor\":\"v\",\"family\":1,\"model\":1,\"stepping\":1}},"
				     "\"targets\":[]}", e);
		}
		sprintf(o, "]}");
		b = policy_bundle_parse(t, strlen(t), err, sizeof(err));
		if (!extra)
			CHECK_MSG(b && b->n == 2 && b->entries[1]->merged.nhost_ids == n[1], "%s",
				  err);
		else
			CHECK_MSG(!b && strstr(err, "bundle[1].merged.host_ids") &&
				  strstr(err, "more than 262144 host ids in one file"), "%s", err);
		policy_bundle_free(b);
		free(t);
	}
}

/*
 * A bundle is read an entry at a time: entries each within the memory
 * budget load together, however far past it their trees would be all
 * at once (1.5 MiB of "0," costs json-c about 75 MiB: four of them 300).
 */
static void test_bundle_budget_per_entry(void)
{
	size_t cap = 8u << 20, len = 0;
	char *t = malloc(cap), err[300] = "";
	struct policy_bundle *b;

	len += (size_t)snprintf(t + len, cap - len, "{\"schema\":\"pmem-policy/1\",\"bundle\":[");
	for (int e = 0; e < 4; e++) {
		len += (size_t)snprintf(t + len, cap - len, "%s{\"schema\":\"pmem-policy/1\","
					"\"junk\":[", e ? "," : "");
		for (int a = 0; a < 768; a++) {
			len += (size_t)snprintf(t + len, cap - len, "%s[", a ? "," : "");
			for (int i = 0; i < 1000; i++) {
				t[len++] = '0';
				t[len++] = ',';
			}
			t[len - 1] = ']';
		}
		len += (size_t)snprintf(t + len, cap - len, "],\"platform\":{\"fingerprint\":"
					"\"sha256:%064x\",\"cpu\":{\"vendor\":\"v\",\"family\":1,"
					"\"model\":1,\"stepping\":1}},\"targets\":[]}", e);
	}
	snprintf(t + len, cap - len, "]}");
	b = policy_bundle_parse(t, strlen(t), err, sizeof(err));
	CHECK_MSG(b && b->n == 4, "%s", err);
	policy_bundle_free(b);
	/* read as one policy, it is one tree: refused */
	CHECK(policy_parse(t, strlen(t), err, sizeof(err)) == NULL);
	CHECK_MSG(strstr(err, "MiB of memory"), "%s", err);
	free(t);
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
	test_merge_claims();
	test_merge_thousands();
	test_merge_same_text_many();
	test_bundle_many_platforms();
	test_merge_bounds();
	test_bundle_entry_bounds();
	test_bundle_host_ids_bound();
	test_bundle_budget_per_entry();
	test_diff();
	test_bundle_errors();
	return check_report("test_fleet");
}
