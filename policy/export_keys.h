/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The export vocabulary: every value a policy exports, named once.
 *
 * The producer (export.c) writes these keys, the daemon's sinks and knob
 * map read them, the probe's fleet commands report them.  Each key says
 * which consumer reads it, where it lives in the JSON, what it means,
 * its unit, how its value is decoded and what the consumer refuses.
 *
 *   consumer  JSON                                knob map SOURCE
 *   libpmem   exports.libpmem.env.NAME            libpmem.NAME
 *   glibc     exports.glibc.tunables.TUNABLE      TUNABLE (glibc.cpu.x86_...)
 *   kernel    exports.kernel.flushcache_nt_max_bytes
 *                                                 kernel.threshold_bytes (or
 *                                                 kernel.flushcache_nt_max_bytes)
 */
#ifndef PMEM_POLICY_EXPORT_KEYS_H
#define PMEM_POLICY_EXPORT_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/policy.h"

enum export_consumer {
	EXPORT_LIBPMEM,
	EXPORT_GLIBC,
	EXPORT_KERNEL,
	EXPORT_NCONSUMERS,
};

struct export_consumer_info {
	const char *name;	/* exports.NAME in the JSON, the metrics' consumer label */
	const char *kv_object;	/* the object of its key/value pairs; NULL: kernel */
	const char *threshold;	/* its key that is a switch size in bytes; NULL: none */
};

enum export_decoding {
	/* plain decimal digits, at most 20: what PMDK reads with strtoul/atoi */
	EXPORT_DECIMAL,
	/* decimal or 0x hex (as glibc's tunables parser takes them); written 0x hex */
	EXPORT_NUMBER,
	/* bytes, a JSON number; POLICY_SIZE_OPEN (null) = never switch, written UINT64_MAX */
	EXPORT_SIZE,
};

/* A target condition a key needs before a sink may apply it. */
enum export_needs {
	EXPORT_NEEDS_NOTHING,
	/* a non-zero value skips flushes: only where the CPU cache is persistent (eADR) */
	EXPORT_NEEDS_CPU_CACHE_IF_SET,
	/* a DRAM-to-DRAM decision: a pmem curve says nothing about it */
	EXPORT_NEEDS_DRAM,
};

struct export_key {
	const char *name;	/* knob map SOURCE */
	const char *alias;	/* another SOURCE for it, or NULL */
	enum export_consumer consumer;
	const char *key;	/* JSON key in the consumer's object */
	const char *meaning;
	const char *unit;	/* "bytes", "flag" (0/1) */
	enum export_decoding decoding;
	uint64_t min;		/* smallest value the consumer takes (0: any) */
	const char *too_small;	/* why a value below min is refused */
	enum export_needs needs;
};

/* Indexes of export_keys[]: the producer names what it writes by these. */
enum export_key_id {
	EXPORT_PMEM_MOVNT_THRESHOLD,
	EXPORT_PMEM_NO_MOVNT,
	EXPORT_PMEM_NO_CLWB,
	EXPORT_PMEM_NO_CLFLUSHOPT,
	EXPORT_PMEM_NO_FLUSH,
	EXPORT_PMEM_AVX,
	EXPORT_PMEM_AVX512F,
	EXPORT_PMEM_MOVDIR64B,
	EXPORT_GLIBC_NT_THRESHOLD,
	EXPORT_GLIBC_REP_MOVSB_THRESHOLD,
	EXPORT_KERNEL_NT_MAX,
	EXPORT_NKEYS,
};

extern const struct export_key export_keys[EXPORT_NKEYS];

const struct export_consumer_info *export_consumer(enum export_consumer c);
/* The export of consumer c in p (NULL for no such consumer). */
const struct policy_export *export_of(const struct policy *p, enum export_consumer c);
struct policy_export *export_slot(struct policy_exports *x, enum export_consumer c);

/* The key named by a knob map SOURCE (name or alias); NULL if none. */
const struct export_key *export_key_find(const char *name);
/*
 * The key of c stored under kv_key in the JSON; NULL if none.  A glibc
 * tunable may be written with or without its "glibc." prefix.
 */
const struct export_key *export_key_find_kv(enum export_consumer c, const char *kv_key);

/* Decode value by k's rule into *v: 0, or -EINVAL (-ERANGE past 64 bits). */
int export_key_decode(const struct export_key *k, const char *value, uint64_t *v);

/*
 * The value of k in p, as the JSON has it (the kernel's size in
 * decimal, "never switch" as UINT64_MAX).  -ENOENT when p has no such
 * export, -ENAMETOOLONG when out is short.
 */
int export_key_value(const struct policy *p, const struct export_key *k, char *out, size_t len);

/*
 * May a sink apply kv of consumer c from p?  0 with *key and the
 * decoded *v; else why gets the reason, phrased to follow "NAME=VALUE: ",
 * and the return says which rule refused it (checked in this order):
 * -ENOENT not a key of c, -EINVAL value not decodable, -EPERM the
 * export's target does not meet the key's condition, -ERANGE below the
 * consumer's minimum.
 */
int export_kv_check(const struct policy *p, enum export_consumer c, const struct policy_kv *kv,
		    const struct export_key **key, uint64_t *v, char *why, size_t whylen);

#endif
