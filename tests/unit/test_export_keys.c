// SPDX-License-Identifier: GPL-2.0-or-later
/* The export vocabulary: lookups, decoding, checks, and that producer and consumers share it. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "mkpolicy.h"
#include "policy/export_keys.h"
#include "policy/policy.h"
#include "rule/crossover.h"
#include "rule/export.h"

static void test_table(void)
{
	for (size_t i = 0; i < EXPORT_NKEYS; i++) {
		const struct export_key *k = &export_keys[i];
		const struct export_consumer_info *c = export_consumer(k->consumer);

		CHECK_MSG(k->name && k->key && k->meaning && k->unit && c, "key %zu incomplete", i);
		if (!k->name || !k->key || !c)
			continue;
		CHECK(export_key_find(k->name) == k);
		if (k->alias)
			CHECK(export_key_find(k->alias) == k);
		CHECK(export_key_find_kv(k->consumer, k->key) == k);
		/* a knob map SOURCE says its consumer first */
		CHECK_MSG(!strncmp(k->name, c->name, strlen(c->name)) &&
			  k->name[strlen(c->name)] == '.', "%s is not %s.*", k->name, c->name);
		CHECK_MSG(!k->min || k->too_small, "%s: a minimum without a reason", k->name);
		for (size_t j = 0; j < i; j++)
			CHECK_MSG(strcmp(export_keys[j].name, k->name) ||
				  export_keys[j].consumer != k->consumer,
				  "%s twice", k->name);
	}
	for (int c = 0; c < EXPORT_NCONSUMERS; c++) {
		const struct export_consumer_info *ci = export_consumer(c);

		/* every consumer key the daemon and the fleet commands name resolves */
		CHECK(ci && ci->name);
		if (ci && ci->threshold)
			CHECK_MSG(export_key_find_kv(c, ci->threshold), "%s.%s", ci->name,
				  ci->threshold);
		CHECK((ci && ci->kv_object) == (c != EXPORT_KERNEL));
	}
	CHECK(export_consumer(EXPORT_NCONSUMERS) == NULL);
}

static void test_lookup(void)
{
	/* the names pmem-tuned(8) gives for knob map SOURCEs */
	static const char *const documented[] = {
		"kernel.threshold_bytes", "kernel.flushcache_nt_max_bytes",
		"libpmem.PMEM_MOVNT_THRESHOLD", "libpmem.PMEM_NO_MOVNT", "libpmem.PMEM_NO_CLWB",
		"libpmem.PMEM_NO_CLFLUSHOPT", "libpmem.PMEM_NO_FLUSH", "libpmem.PMEM_AVX",
		"libpmem.PMEM_AVX512F", "libpmem.PMEM_MOVDIR64B",
		"glibc.cpu.x86_non_temporal_threshold", "glibc.cpu.x86_rep_movsb_threshold",
	};
	static const char *const unknown[] = {
		"kernel.bogus", "libpmem.LD_PRELOAD", "libpmem.", "glibc.", "PMEM_AVX", "",
		"kernel.threshold_bytes ", "libpmem.pmem_avx",
	};

	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++)
		CHECK_MSG(export_key_find(documented[i]), "%s not found", documented[i]);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		CHECK_MSG(!export_key_find(unknown[i]), "'%s' found", unknown[i]);
	CHECK(export_key_find("kernel.flushcache_nt_max_bytes") ==
	      &export_keys[EXPORT_KERNEL_NT_MAX]);
	/* glibc's tunables with or without their prefix; others exactly */
	CHECK(export_key_find_kv(EXPORT_GLIBC, "cpu.x86_non_temporal_threshold") ==
	      &export_keys[EXPORT_GLIBC_NT_THRESHOLD]);
	CHECK(export_key_find_kv(EXPORT_GLIBC, "glibc.cpu.x86_rep_movsb_threshold") ==
	      &export_keys[EXPORT_GLIBC_REP_MOVSB_THRESHOLD]);
	CHECK(!export_key_find_kv(EXPORT_GLIBC, "glibc.malloc.check"));
	CHECK(!export_key_find_kv(EXPORT_LIBPMEM, "glibc.cpu.x86_non_temporal_threshold"));
	CHECK(!export_key_find_kv(EXPORT_GLIBC, "PMEM_AVX"));
	CHECK(!export_key_find_kv(EXPORT_LIBPMEM, "libpmem.PMEM_AVX"));
}

static void test_decode(void)
{
	const struct export_key *dec = &export_keys[EXPORT_PMEM_MOVNT_THRESHOLD];
	const struct export_key *num = &export_keys[EXPORT_GLIBC_NT_THRESHOLD];
	static const char *const bad_dec[] = {
		"", "0x10", " 1", "1 ", "-1", "+1", "1k", "123456789012345678901",
	};
	static const char *const bad_num[] = { "", "0x", "x10", "-1", "0x10g", "1 ", "0xx1" };
	uint64_t v = 0;

	CHECK_INT(export_key_decode(dec, "256", &v), 0);
	CHECK_INT(v, 256);
	CHECK_INT(export_key_decode(dec, "00", &v), 0);
	CHECK_INT(v, 0);
	for (size_t i = 0; i < sizeof(bad_dec) / sizeof(bad_dec[0]); i++)
		CHECK_MSG(export_key_decode(dec, bad_dec[i], &v) < 0, "decimal '%s' taken",
			  bad_dec[i]);
	CHECK_INT(export_key_decode(num, "0x4041", &v), 0);
	CHECK_INT(v, 0x4041);
	CHECK_INT(export_key_decode(num, "16449", &v), 0);
	CHECK_INT(v, 16449);
	CHECK_INT(export_key_decode(num, "0X10", &v), 0);
	CHECK_INT(v, 16);
	CHECK_INT(export_key_decode(num, "0x10000000000000000", &v), -ERANGE);
	for (size_t i = 0; i < sizeof(bad_num) / sizeof(bad_num[0]); i++)
		CHECK_MSG(export_key_decode(num, bad_num[i], &v) < 0, "number '%s' taken",
			  bad_num[i]);
}

static void set_kv(struct policy_export *e, const char *key, const char *value)
{
	snprintf(e->kv[e->nkv].key, sizeof(e->kv[0].key), "%s", key);
	snprintf(e->kv[e->nkv].value, sizeof(e->kv[0].value), "%s", value);
	e->nkv++;
}

static int check_kv(const struct policy *p, enum export_consumer c, const char *key,
		    const char *value)
{
	struct policy_kv kv;
	const struct export_key *k = NULL;
	char why[160] = "";
	uint64_t v;
	int r;

	snprintf(kv.key, sizeof(kv.key), "%s", key);
	snprintf(kv.value, sizeof(kv.value), "%s", value);
	r = export_kv_check(p, c, &kv, &k, &v, why, sizeof(why));
	CHECK_MSG(r == 0 ? k != NULL && !why[0] : why[0] != '\0', "%s=%s: %d '%s'", key, value,
		  r, why);
	return r;
}

static void test_check_and_value(void)
{
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_target *pm = mkpolicy_target(p, "region0", "pmem", "memory_controller");
	char out[64];

	p->exports.libpmem.present = true;
	snprintf(p->exports.libpmem.target, sizeof(p->exports.libpmem.target), "region0");
	set_kv(&p->exports.libpmem, "PMEM_MOVNT_THRESHOLD", "1024");
	p->exports.glibc.present = true;
	snprintf(p->exports.glibc.target, sizeof(p->exports.glibc.target), "region0");
	set_kv(&p->exports.glibc, "glibc.cpu.x86_non_temporal_threshold", "0x8000");

	CHECK_INT(check_kv(p, EXPORT_LIBPMEM, "PMEM_MOVNT_THRESHOLD", "1024"), 0);
	CHECK_INT(check_kv(p, EXPORT_LIBPMEM, "PMEM_NO_FLUSH", "0"), 0);
	CHECK_INT(check_kv(p, EXPORT_LIBPMEM, "PMEM_NO_FLUSH", "1"), -EPERM);
	CHECK_INT(check_kv(p, EXPORT_LIBPMEM, "LD_PRELOAD", "1"), -ENOENT);
	CHECK_INT(check_kv(p, EXPORT_LIBPMEM, "PMEM_AVX", "0x1"), -EINVAL);
	CHECK_INT(check_kv(p, EXPORT_GLIBC, "glibc.cpu.x86_non_temporal_threshold", "0x4040"),
		  -ERANGE);
	CHECK_INT(check_kv(p, EXPORT_GLIBC, "cpu.x86_non_temporal_threshold", "0x4041"), 0);
	CHECK_INT(check_kv(p, EXPORT_GLIBC, "glibc.cpu.x86_non_temporal_threshold", "big"),
		  -EINVAL);
	/* rep movsb from a pmem target says nothing about DRAM copies */
	CHECK_INT(check_kv(p, EXPORT_GLIBC, "glibc.cpu.x86_rep_movsb_threshold", "0x1000"),
		  -EPERM);
	CHECK_INT(check_kv(p, EXPORT_GLIBC, "glibc.malloc.check", "3"), -ENOENT);
	snprintf(pm->persistence_domain, sizeof(pm->persistence_domain), "cpu_cache");
	snprintf(pm->kind, sizeof(pm->kind), "dram");
	CHECK_INT(check_kv(p, EXPORT_LIBPMEM, "PMEM_NO_FLUSH", "1"), 0);
	CHECK_INT(check_kv(p, EXPORT_GLIBC, "glibc.cpu.x86_rep_movsb_threshold", "0x1000"), 0);
	CHECK_INT(check_kv(p, EXPORT_GLIBC, "glibc.cpu.x86_rep_movsb_threshold", "0x7f"),
		  -ERANGE);
	/* no glibc takes its minimum, and none has one below 0x80 */
	CHECK_INT(check_kv(p, EXPORT_GLIBC, "glibc.cpu.x86_rep_movsb_threshold", "0x80"),
		  -ERANGE);
	CHECK_INT(check_kv(p, EXPORT_GLIBC, "glibc.cpu.x86_rep_movsb_threshold", "0x81"), 0);

	/* values as the knob map reads them */
	CHECK_INT(export_key_value(p, &export_keys[EXPORT_PMEM_MOVNT_THRESHOLD], out,
				   sizeof(out)), 0);
	CHECK_STR(out, "1024");
	CHECK_INT(export_key_value(p, &export_keys[EXPORT_PMEM_NO_CLWB], out, sizeof(out)),
		  -ENOENT);
	CHECK_INT(export_key_value(p, &export_keys[EXPORT_PMEM_MOVNT_THRESHOLD], out, 4),
		  -ENAMETOOLONG);
	CHECK_INT(export_key_value(p, &export_keys[EXPORT_GLIBC_NT_THRESHOLD], out, sizeof(out)),
		  0);
	CHECK_STR(out, "0x8000");
	CHECK_INT(export_key_value(p, &export_keys[EXPORT_KERNEL_NT_MAX], out, sizeof(out)),
		  -ENOENT);
	p->exports.kernel.present = true;
	p->exports.kernel.threshold_bytes = POLICY_SIZE_OPEN;
	CHECK_INT(export_key_value(p, &export_keys[EXPORT_KERNEL_NT_MAX], out, sizeof(out)), 0);
	CHECK_STR(out, "18446744073709551615");
	p->exports.kernel.threshold_bytes = 768;
	CHECK_INT(export_key_value(p, &export_keys[EXPORT_KERNEL_NT_MAX], out, sizeof(out)), 0);
	CHECK_STR(out, "768");
	policy_free(p);
}

#define N 8
static const uint64_t sizes[N] = { 64, 128, 256, 512, 1024, 2048, 4096, 8192 };

/* Curve name of op: lo on the lower half of the sizes, hi on the upper, +-1 %. */
static void curve(struct policy_op *op, const char *name, double lo, double hi)
{
	double v[N];

	for (size_t i = 0; i < N; i++)
		v[i] = i < N / 2 ? lo : hi;
	mkpolicy_curve(op, name, v, 0.01, 11);
}

/* The keys under exports.NAME.OBJECT of the JSON all name table keys of NAME. */
static void check_json(const struct policy *p, size_t *nkeys)
{
	struct json_object *root = policy_to_json(p), *x = NULL;

	CHECK(root && json_object_object_get_ex(root, "exports", &x));
	for (int c = 0; x && c < EXPORT_NCONSUMERS; c++) {
		const struct export_consumer_info *ci = export_consumer(c);
		struct json_object *e, *o;

		if (!json_object_object_get_ex(x, ci->name, &e))
			continue;
		if (!ci->kv_object) {
			CHECK(json_object_object_get_ex(e, ci->threshold, NULL));
			(*nkeys)++;
			continue;
		}
		CHECK(json_object_object_get_ex(e, ci->kv_object, &o));
		json_object_object_foreach(o, key, val) {
			CHECK_MSG(export_key_find_kv(c, key), "exports.%s.%s.%s not in the table",
				  ci->name, ci->kv_object, key);
			(void)val;
			(*nkeys)++;
		}
	}
	json_object_put(root);
}

/* Whatever the producer writes, on a platform that lets it write the most. */
static void test_producer(void)
{
	static const char *const features[] = {
		"avx", "avx2", "avx512f", "clwb", "clflushopt", "movdir64b",
	};
	size_t nkeys = 0;

	for (int variant = 0; variant < 2; variant++) {
		struct policy *p = mkpolicy_new(NULL, NULL);
		struct policy_op *op;

		for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
			policy_cpu_add_feature(&p->platform.cpu, features[i]);
		op = mkpolicy_op(mkpolicy_target(p, "region0", "pmem", NULL), "sequential", sizes,
				 N, NULL, 0);
		/* variant 0: clflush below, movnt_sse2 above; 1: never non-temporal */
		curve(op, "clflush", 900, 900);
		curve(op, "clwb", 300, 300);
		curve(op, "movnt_sse2", 100, variant ? 100 : 2000);
		curve(op, "movnt", 100, variant ? 100 : 1900);
		crossover_decide(op);
		op = mkpolicy_op(mkpolicy_target(p, "dram", "dram", NULL), "sequential", sizes, N,
				 NULL, 0);
		curve(op, "noflush", 9000, 1000);
		curve(op, "movnt_avx512", 1000, 9000);
		curve(op, "clwb", 800, 700);
		curve(op, "rep_movsb_clwb", 700, 800);
		crossover_decide(op);
		CHECK_INT(export_compute(p, NULL), 0);
		CHECK(p->exports.libpmem.present && p->exports.glibc.present &&
		      p->exports.kernel.present);
		for (int c = 0; c < EXPORT_NCONSUMERS; c++) {
			const struct policy_export *e = export_of(p, c);

			for (size_t i = 0; i < e->nkv; i++)
				CHECK_MSG(export_key_find_kv(c, e->kv[i].key),
					  "%s.%s not in the table",
					  export_consumer(c)->name, e->kv[i].key);
		}
		check_json(p, &nkeys);
		policy_free(p);
	}
	/*
	 * the two variants between them write most of the table (feature
	 * switches only where a non-default member holds a range)
	 */
	CHECK_MSG(nkeys >= 8, "only %zu keys written", nkeys);
}

int main(void)
{
	test_table();
	test_lookup();
	test_decode();
	test_check_and_value();
	test_producer();
	return check_report("test_export_keys");
}
