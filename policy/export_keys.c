// SPDX-License-Identifier: LGPL-2.1-or-later
/* The export vocabulary: one table, its lookups, decoding and checks. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "policy/export_keys.h"

static const struct export_consumer_info consumers[EXPORT_NCONSUMERS] = {
	[EXPORT_LIBPMEM] = { "libpmem", "env", "PMEM_MOVNT_THRESHOLD" },
	[EXPORT_GLIBC] = { "glibc", "tunables", NULL },
	[EXPORT_KERNEL] = { "kernel", NULL, "flushcache_nt_max_bytes" },
};

#define LIBPMEM_FLAG(id, m) \
	[EXPORT_##id] = { "libpmem." #id, NULL, EXPORT_LIBPMEM, #id, m, "flag", EXPORT_DECIMAL, \
			  0, NULL, EXPORT_NEEDS_NOTHING }

const struct export_key export_keys[EXPORT_NKEYS] = {
	/* PMDK reads these once, when libpmem is loaded (default threshold 256) */
	[EXPORT_PMEM_MOVNT_THRESHOLD] = { "libpmem.PMEM_MOVNT_THRESHOLD", NULL, EXPORT_LIBPMEM,
		"PMEM_MOVNT_THRESHOLD",
		"cached stores + flush below, non-temporal stores at and above", "bytes",
		EXPORT_DECIMAL, 0, NULL, EXPORT_NEEDS_NOTHING },
	LIBPMEM_FLAG(PMEM_NO_MOVNT, "1: never non-temporal stores"),
	LIBPMEM_FLAG(PMEM_NO_CLWB, "1: flush with clflushopt or clflush, not clwb"),
	LIBPMEM_FLAG(PMEM_NO_CLFLUSHOPT, "1: flush with clflush, not clflushopt"),
	[EXPORT_PMEM_NO_FLUSH] = { "libpmem.PMEM_NO_FLUSH", NULL, EXPORT_LIBPMEM,
		"PMEM_NO_FLUSH",
		"1: no cache flush at all", "flag", EXPORT_DECIMAL, 0, NULL,
		EXPORT_NEEDS_CPU_CACHE_IF_SET },
	LIBPMEM_FLAG(PMEM_AVX, "0/1: AVX (256-bit) non-temporal stores"),
	LIBPMEM_FLAG(PMEM_AVX512F, "0/1: AVX-512 non-temporal stores"),
	LIBPMEM_FLAG(PMEM_MOVDIR64B, "0/1: movdir64b stores"),
	/* glibc reads GLIBC_TUNABLES at process start (sysdeps/x86/dl-cacheinfo.h) */
	[EXPORT_GLIBC_NT_THRESHOLD] = { "glibc.cpu.x86_non_temporal_threshold", NULL,
		EXPORT_GLIBC, "glibc.cpu.x86_non_temporal_threshold",
		"memcpy: cached stores below, non-temporal stores at and above", "bytes",
		EXPORT_NUMBER, 0x4041, "glibc ignores values not above 0x4040",
		EXPORT_NEEDS_NOTHING },
	/*
	 * 0x80: the smallest minimum glibc has (eight 16-byte vectors), and
	 * it takes only values above its minimum; the host's own minimum is
	 * the daemon's to check (ld.so --list-tunables)
	 */
	[EXPORT_GLIBC_REP_MOVSB_THRESHOLD] = { "glibc.cpu.x86_rep_movsb_threshold", NULL,
		EXPORT_GLIBC, "glibc.cpu.x86_rep_movsb_threshold",
		"memcpy: vector copies below, rep movsb at and above", "bytes",
		EXPORT_NUMBER, 0x81, "glibc ignores values not above 0x80", EXPORT_NEEDS_DRAM },
	/* dm-writecache-style code; JSON null = non-temporal at every size */
	[EXPORT_KERNEL_NT_MAX] = { "kernel.threshold_bytes", "kernel.flushcache_nt_max_bytes",
		EXPORT_KERNEL, "flushcache_nt_max_bytes",
		"non-temporal stores up to and including it, cached stores + flush above",
		"bytes", EXPORT_SIZE, 0, NULL, EXPORT_NEEDS_NOTHING },
};

const struct export_consumer_info *export_consumer(enum export_consumer c)
{
	return c < EXPORT_NCONSUMERS ? &consumers[c] : NULL;
}

struct policy_export *export_slot(struct policy_exports *x, enum export_consumer c)
{
	switch (c) {
	case EXPORT_LIBPMEM:
		return &x->libpmem;
	case EXPORT_GLIBC:
		return &x->glibc;
	case EXPORT_KERNEL:
		return &x->kernel;
	default:
		return NULL;
	}
}

const struct policy_export *export_of(const struct policy *p, enum export_consumer c)
{
	/* read-only view of the same slot, as strchr() does it */
	return export_slot((struct policy_exports *)&p->exports, c);
}

const struct export_key *export_key_find(const char *name)
{
	for (size_t i = 0; i < EXPORT_NKEYS; i++)
		if (!strcmp(export_keys[i].name, name) ||
		    (export_keys[i].alias && !strcmp(export_keys[i].alias, name)))
			return &export_keys[i];
	return NULL;
}

const struct export_key *export_key_find_kv(enum export_consumer c, const char *kv_key)
{
	for (size_t i = 0; i < EXPORT_NKEYS; i++) {
		const struct export_key *k = &export_keys[i];

		if (k->consumer != c)
			continue;
		if (!strcmp(k->key, kv_key))
			return k;
		/* glibc's tunables are also accepted without their "glibc." */
		if (c == EXPORT_GLIBC && !strncmp(k->key, "glibc.", 6) &&
		    !strcmp(k->key + 6, kv_key))
			return k;
	}
	return NULL;
}

int export_key_decode(const struct export_key *k, const char *value, uint64_t *v)
{
	/* PMDK's strtoul/atoi: no sign, no blank, no base prefix, 20 digits */
	if (k->decoding == EXPORT_DECIMAL)
		return strlen(value) > 20 ? -EINVAL : parse_u64_dec(value, v);
	/* glibc's tunables parser takes 0x hex too */
	if (k->decoding == EXPORT_NUMBER)
		return parse_u64(value, v);
	return parse_u64_dec(value, v);
}

/* The entry of e whose key is k (in either spelling); NULL if none. */
static const struct policy_kv *kv_of(const struct policy_export *e, const struct export_key *k)
{
	for (size_t i = 0; i < e->nkv && i < POLICY_EXPORT_KV_MAX; i++)
		if (export_key_find_kv(k->consumer, e->kv[i].key) == k)
			return &e->kv[i];
	return NULL;
}

int export_key_value(const struct policy *p, const struct export_key *k, char *out, size_t len)
{
	const struct policy_export *e = export_of(p, k->consumer);
	const struct policy_kv *kv;
	int n;

	if (!e || !e->present)
		return -ENOENT;
	if (k->decoding == EXPORT_SIZE) {
		/*
		 * "Non-temporal up to N bytes": open (never switch) is
		 * UINT64_MAX, a size no copy exceeds, as the patched
		 * dm-writecache's nt_max_bytes reads it.
		 */
		n = snprintf(out, len, "%" PRIu64, e->threshold_bytes);
	} else {
		kv = kv_of(e, k);
		if (!kv)
			return -ENOENT;
		n = snprintf(out, len, "%s", kv->value);
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int export_kv_check(const struct policy *p, enum export_consumer c, const struct policy_kv *kv,
		    const struct export_key **key, uint64_t *v, char *why, size_t whylen)
{
	const struct policy_export *e = export_of(p, c);
	const struct export_key *k = export_key_find_kv(c, kv->key);
	const struct policy_target *t;

	if (!k || !e) {
		snprintf(why, whylen, "not a %s setting pmem-tuned exports",
			 c < EXPORT_NCONSUMERS ? consumers[c].name : "known");
		return -ENOENT;
	}
	if (export_key_decode(k, kv->value, v)) {
		snprintf(why, whylen, "not a %s number",
			 k->decoding == EXPORT_DECIMAL ? "decimal" : "valid");
		return -EINVAL;
	}
	t = policy_find_target(p, e->target);
	if (k->needs == EXPORT_NEEDS_CPU_CACHE_IF_SET && *v &&
	    (!t || strcmp(t->persistence_domain, "cpu_cache"))) {
		snprintf(why, whylen, "needs a target whose persistence domain is cpu_cache");
		return -EPERM;
	}
	if (k->needs == EXPORT_NEEDS_DRAM && (!t || strcmp(t->kind, "dram"))) {
		snprintf(why, whylen, "comes from target '%s', not a calibrated dram target",
			 e->target);
		return -EPERM;
	}
	if (*v < k->min) {
		snprintf(why, whylen, "%s", k->too_small ? k->too_small : "too small");
		return -ERANGE;
	}
	*key = k;
	return 0;
}
