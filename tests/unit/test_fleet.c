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

	/* the bundle round-trips through its JSON form */
	{
		char *s = policy_bundle_to_string(out);
		struct policy_bundle *back = policy_bundle_parse(s, strlen(s), err, sizeof(err));

		CHECK_MSG(back != NULL, "%s", err);
		if (back) {
			char *s2 = policy_bundle_to_string(back);

			CHECK_STR(s, s2);
			CHECK_INT(policy_bundle_diff(out, back, NULL), 0);
			free(s2);
			policy_bundle_free(back);
		}
		free(s);
	}
out:
	for (int i = 0; i < 4; i++)
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
		CHECK_MSG(strstr(err, "merged entry twice"), "%s", err);
		policy_bundle_free(o2);
	}
	policy_bundle_free(out);
	policy_bundle_free(in[0]);
	policy_bundle_free(in[1]);
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
	test_merge_weighted();
	test_merge_same_host();
	test_host_id();
	test_weights_bounded();
	test_merge_samples_cap();
	test_merge_target_union();
	test_diff();
	test_bundle_errors();
	return check_report("test_fleet");
}
