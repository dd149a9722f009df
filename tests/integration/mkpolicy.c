// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Write a small but complete policy for the integration tests, through
 * the model and policy_save(), so that what the daemon reads is what the
 * probe would write.
 *
 *   mkpolicy OUT [--host ROOT | --fingerprint FP] [--movnt N] [--nt V]
 *                [--movsb V] [--glibc-target NAME] [--kernel N|open]
 *                [--env KEY=VALUE] [--no-libpmem] [--no-glibc] [--no-kernel]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkpolicy.h"
#include "policy/fingerprint.h"
#include "policy/policy.h"

static void *or_exit(void *made)
{
	if (!made) {
		perror("mkpolicy");
		exit(EXIT_FAILURE);
	}
	return made;
}

struct policy *mkpolicy_new(const char *fingerprint, const char *created)
{
	struct policy *p = or_exit(policy_new());

	if (fingerprint)
		snprintf(p->platform.fingerprint, sizeof(p->platform.fingerprint), "%s",
			 fingerprint);
	if (created)
		snprintf(p->generator.created, sizeof(p->generator.created), "%s", created);
	return p;
}

void mkpolicy_cpu(struct policy *p, const char *vendor, unsigned family, unsigned model,
		  unsigned stepping)
{
	struct policy_cpu *c = &p->platform.cpu;

	snprintf(c->vendor, sizeof(c->vendor), "%s", vendor);
	c->family = family;
	c->model = model;
	c->stepping = stepping;
}

struct policy_target *mkpolicy_target(struct policy *p, const char *name, const char *kind,
				      const char *domain)
{
	struct policy_target *t = or_exit(policy_add_target(p, name));

	snprintf(t->kind, sizeof(t->kind), "%s", kind);
	if (domain)
		snprintf(t->persistence_domain, sizeof(t->persistence_domain), "%s", domain);
	return t;
}

struct policy_op *mkpolicy_op(struct policy_target *t, const char *pattern,
			      const uint64_t *sizes, size_t n, const char *const *strategies,
			      size_t ncurves)
{
	struct policy_op *op = or_exit(policy_target_add_op(t, "write", pattern, 1, sizes, n));

	for (size_t i = 0; i < ncurves; i++)
		or_exit(policy_op_add_curve(op, strategies[i]));
	return op;
}

struct policy_curve *mkpolicy_curve_of(struct policy_op *op, const char *name)
{
	struct policy_curve *c = policy_op_find_curve(op, name);

	return c ? c : or_exit(policy_op_add_curve(op, name));
}

void mkpolicy_cell(struct policy_curve *c, size_t i, double median, double ci_halfw,
		   double spread_halfw, unsigned samples)
{
	bool none = isnan(median);

	c->median_mib_s[i] = median;
	c->ci_lo_mib_s[i] = none ? NAN : median - ci_halfw;
	c->ci_hi_mib_s[i] = none ? NAN : median + ci_halfw;
	c->p10_mib_s[i] = none ? NAN : median - spread_halfw;
	c->p90_mib_s[i] = none ? NAN : median + spread_halfw;
	c->samples[i] = none ? 0 : samples;
}

struct policy_curve *mkpolicy_curve(struct policy_op *op, const char *name,
				    const double *medians, double rel, unsigned samples)
{
	struct policy_curve *c = mkpolicy_curve_of(op, name);

	for (size_t i = 0; i < op->nsizes; i++)
		mkpolicy_cell(c, i, medians[i], medians[i] * rel, medians[i] * rel, samples);
	return c;
}

static void kv_add(struct policy_export *e, const char *k, const char *v)
{
	if (e->nkv == POLICY_EXPORT_KV_MAX)
		return;
	snprintf(e->kv[e->nkv].key, POLICY_NAME_MAX, "%s", k);
	snprintf(e->kv[e->nkv].value, POLICY_NAME_MAX, "%s", v);
	e->nkv++;
}

static int add_op(struct policy_target *t)
{
	static const uint64_t sizes[] = { 64, 256, 4096, 65536 };
	static const double clwb[] = { 450, 1500, 3000, 3100 };
	static const double movnt[] = { 300, 1200, 5000, 9000 };
	struct policy_op *op;
	struct policy_curve *c;
	size_t i;

	op = policy_target_add_op(t, "write", "sequential", 1, sizes, 4);
	if (!op)
		return -ENOMEM;
	op->ceiling_mib_s = 9000;
	c = policy_op_add_curve(op, "clwb");
	if (!c)
		return -ENOMEM;
	for (i = 0; i < 4; i++) {
		c->median_mib_s[i] = clwb[i];
		c->samples[i] = 10;
	}
	c = policy_op_add_curve(op, "movnt");
	if (!c)
		return -ENOMEM;
	for (i = 0; i < 4; i++) {
		c->median_mib_s[i] = movnt[i];
		c->samples[i] = 10;
	}
	op->ranges = calloc(2, sizeof(*op->ranges));
	op->crossovers = calloc(1, sizeof(*op->crossovers));
	if (!op->ranges || !op->crossovers)
		return -ENOMEM;
	op->nranges = 2;
	op->ranges[0] = (struct policy_range){ 0, 4096, "clwb", false, "cached_flush", "" };
	op->ranges[1] = (struct policy_range){ 4096, POLICY_SIZE_OPEN, "movnt", false,
						 "streaming", "" };
	op->ncrossovers = 1;
	op->crossovers[0] = (struct policy_crossover){ 4096, "clwb", "movnt", 0.95, "family" };
	t->ceiling_mib_s = 9000;
	return 0;
}

struct policy *mkpolicy_build(const struct mkpolicy_opts *o)
{
	struct policy *p = policy_new();
	struct policy_target *t;
	size_t i;

	if (!p)
		return NULL;
	snprintf(p->schema, sizeof(p->schema), "%s", POLICY_SCHEMA);
	snprintf(p->generator.name, sizeof(p->generator.name), "mkpolicy");
	snprintf(p->generator.version, sizeof(p->generator.version), "0");
	snprintf(p->generator.created, sizeof(p->generator.created), "2026-01-01T00:00:00Z");
	snprintf(p->generator.mode, sizeof(p->generator.mode), "quick");
	if (o->host_root) {
		struct policy *h = policy_new();

		if (!h || fingerprint_host(o->host_root, h) < 0) {
			policy_free(h);
			policy_free(p);
			return NULL;
		}
		snprintf(p->platform.fingerprint, sizeof(p->platform.fingerprint), "%s",
			 h->platform.fingerprint);
		mkpolicy_cpu(p, h->platform.cpu.vendor, h->platform.cpu.family,
			     h->platform.cpu.model, h->platform.cpu.stepping);
		policy_free(h);
	} else {
		snprintf(p->platform.fingerprint, sizeof(p->platform.fingerprint), "%s",
			 o->fingerprint ? o->fingerprint :
			 "sha256:0000000000000000000000000000000000000000000000000000000000000000");
		mkpolicy_cpu(p, "GenuineIntel", 6, 143, 8);
	}
	snprintf(p->platform.kernel, sizeof(p->platform.kernel), "6.1.0-test");

	t = policy_add_target(p, "region0");
	if (!t)
		goto fail;
	snprintf(t->kind, sizeof(t->kind), "pmem");
	snprintf(t->device, sizeof(t->device), "/dev/dax0.0");
	snprintf(t->persistence_domain, sizeof(t->persistence_domain), "%s",
		 o->region_domain ? o->region_domain : "memory_controller");
	if (add_op(t) < 0)
		goto fail;
	t = policy_add_target(p, "dram");
	if (!t)
		goto fail;
	snprintf(t->kind, sizeof(t->kind), "dram");
	snprintf(t->persistence_domain, sizeof(t->persistence_domain), "%s",
		 o->dram_domain ? o->dram_domain : "none");
	if (add_op(t) < 0)
		goto fail;

	if (!o->no_libpmem) {
		p->exports.libpmem.present = true;
		snprintf(p->exports.libpmem.target, POLICY_NAME_MAX, "%s",
			 o->libpmem_target ? o->libpmem_target : "region0");
		if (o->movnt)
			kv_add(&p->exports.libpmem, "PMEM_MOVNT_THRESHOLD", o->movnt);
		for (i = 0; i < o->nenv; i++) {
			char k[POLICY_NAME_MAX], *eq;

			snprintf(k, sizeof(k), "%s", o->env[i]);
			eq = strchr(k, '=');
			if (!eq)
				continue;
			*eq = '\0';
			kv_add(&p->exports.libpmem, k, eq + 1);
		}
	}
	if (!o->no_glibc) {
		p->exports.glibc.present = true;
		snprintf(p->exports.glibc.target, POLICY_NAME_MAX, "%s",
			 o->glibc_target ? o->glibc_target : "dram");
		if (o->nt)
			kv_add(&p->exports.glibc, "glibc.cpu.x86_non_temporal_threshold", o->nt);
		if (o->movsb)
			kv_add(&p->exports.glibc, "glibc.cpu.x86_rep_movsb_threshold", o->movsb);
	}
	if (!o->no_kernel) {
		p->exports.kernel.present = true;
		snprintf(p->exports.kernel.target, POLICY_NAME_MAX, "region0");
		p->exports.kernel.threshold_bytes = o->kernel_open ? POLICY_SIZE_OPEN :
						    o->kernel;
	}
	return p;
fail:
	policy_free(p);
	return NULL;
}

int mkpolicy_write(const struct mkpolicy_opts *o, const char *path)
{
	char err[512];
	struct policy *p = mkpolicy_build(o), *back;
	int r;

	if (!p)
		return -ENOMEM;
	r = policy_save(p, path, err, sizeof(err));
	policy_free(p);
	if (r < 0) {
		fprintf(stderr, "mkpolicy: %s: %s\n", path, err);
		return r;
	}
	/* what we wrote must be what the daemon accepts */
	back = policy_load(path, err, sizeof(err));
	if (!back) {
		fprintf(stderr, "mkpolicy: %s does not load back: %s\n", path, err);
		return -EINVAL;
	}
	policy_free(back);
	return 0;
}
