// SPDX-License-Identifier: LGPL-2.1-or-later
/* The policy model: allocation and lookup. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/policy_limits.h"
#include "policy/policy_internal.h"

#define copy_name(dst, src) snprintf((dst), sizeof(dst), "%s", (src) ? (src) : "")

struct policy *policy_new(void)
{
	struct policy *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	copy_name(p->schema, POLICY_SCHEMA);
	p->exports.kernel.threshold_bytes = POLICY_SIZE_OPEN;
	return p;
}

static void curve_free(struct policy_curve *c, size_t nsizes)
{
	policy_curve_release_raw(c, nsizes);
	free(c->median_mib_s);
	free(c->p10_mib_s);
	free(c->p90_mib_s);
	free(c->ci_lo_mib_s);
	free(c->ci_hi_mib_s);
	free(c->samples);
	free(c->cell_flags);
	free(c->hosts_min_mib_s);
	free(c->hosts_max_mib_s);
}

void policy_op_release(struct policy_op *op)
{
	for (size_t i = 0; i < op->ncurves; i++)
		curve_free(&op->curves[i], op->nsizes);
	free(op->curves);
	free(op->sizes_bytes);
	free(op->ranges);
	free(op->crossovers);
}

static void target_release(struct policy_target *tg)
{
	for (size_t o = 0; o < tg->nops; o++)
		policy_op_release(&tg->ops[o]);
	free(tg->ops);
	free(tg->dimms);
	free(tg->cpus_used);
}

void policy_free(struct policy *p)
{
	if (!p)
		return;
	for (size_t t = 0; t < p->ntargets; t++)
		target_release(&p->targets[t]);
	free(p->targets);
	for (size_t i = 0; i < p->platform.cpu.nfeatures; i++)
		free(p->platform.cpu.features[i]);
	free(p->platform.cpu.features);
	free(p->merged.host_ids);
	free(p->merged.kernels.v);
	free(p->merged.microcodes.v);
	free(p);
}

/* Grow *arr (of *n elements of size sz) by one zeroed element. */
static void *grow_one(void *arrp, size_t *n, size_t sz)
{
	void **arr = arrp;
	char *na = realloc(*arr, (*n + 1) * sz);

	if (!na)
		return NULL;
	memset(na + *n * sz, 0, sz);
	*arr = na;
	return na + (*n)++ * sz;
}

struct policy_target *policy_add_target(struct policy *p, const char *name)
{
	struct policy_target *t = grow_one(&p->targets, &p->ntargets, sizeof(*t));

	if (!t)
		return NULL;
	copy_name(t->name, name);
	t->numa_node = -1;
	t->target_node = -1;
	t->probed_from_node = -1;
	t->memory_bound = -1;
	t->remote_penalty.from_node = -1;
	t->remote_penalty.distance = -1;
	return t;
}

struct policy_op *policy_target_add_op(struct policy_target *t, const char *op,
				       const char *pattern, unsigned threads,
				       const uint64_t *sizes_bytes, size_t nsizes)
{
	struct policy_op *o;
	uint64_t *sizes = NULL;

	if (nsizes) {
		sizes = malloc(nsizes * sizeof(*sizes));
		if (!sizes)
			return NULL;
		memcpy(sizes, sizes_bytes, nsizes * sizeof(*sizes));
	}
	o = grow_one(&t->ops, &t->nops, sizeof(*o));
	if (!o) {
		free(sizes);
		return NULL;
	}
	copy_name(o->op, op);
	copy_name(o->pattern, pattern);
	o->threads = threads;
	o->sizes_bytes = sizes;
	o->nsizes = nsizes;
	o->ceiling_mib_s = NAN;
	o->min_overlap = NAN;
	return o;
}

static double *nan_array(size_t n)
{
	double *a = malloc((n ? n : 1) * sizeof(*a));

	if (a)
		for (size_t i = 0; i < n; i++)
			a[i] = NAN;
	return a;
}

static int curve_alloc(struct policy_curve *c, size_t n)
{
	c->median_mib_s = nan_array(n);
	c->p10_mib_s = nan_array(n);
	c->p90_mib_s = nan_array(n);
	c->ci_lo_mib_s = nan_array(n);
	c->ci_hi_mib_s = nan_array(n);
	c->samples = calloc(n ? n : 1, sizeof(*c->samples));
	c->cell_flags = calloc(n ? n : 1, sizeof(*c->cell_flags));
	if (!c->median_mib_s || !c->p10_mib_s || !c->p90_mib_s || !c->ci_lo_mib_s ||
	    !c->ci_hi_mib_s || !c->samples || !c->cell_flags) {
		curve_free(c, 0);
		memset(c, 0, sizeof(*c));
		return -ENOMEM;
	}
	return 0;
}

struct policy_curve *policy_op_add_curve(struct policy_op *op, const char *strategy)
{
	struct policy_curve tmp = { 0 }, *c;

	if (curve_alloc(&tmp, op->nsizes))
		return NULL;
	c = grow_one(&op->curves, &op->ncurves, sizeof(*c));
	if (!c) {
		curve_free(&tmp, 0);
		return NULL;
	}
	*c = tmp;
	copy_name(c->strategy, strategy);
	return c;
}

/*
 * The element of the n at elems (size bytes each) whose name, the string
 * at offset off in it, is name; NULL if none is.
 */
static void *find_named(const void *elems, size_t n, size_t size, size_t off, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		const char *e = (const char *)elems + i * size;

		if (strcmp(e + off, name) == 0)
			return (void *)e;
	}
	return NULL;
}

struct policy_curve *policy_op_find_curve(const struct policy_op *op, const char *strategy)
{
	return find_named(op->curves, op->ncurves, sizeof(*op->curves),
			  offsetof(struct policy_curve, strategy), strategy);
}

bool policy_op_within_limits(const struct policy_op *op)
{
	return op->nsizes <= POLICY_MAX_SIZES && op->ncurves <= POLICY_MAX_CURVES;
}

int policy_op_size_index(const struct policy_op *op, uint64_t size_bytes)
{
	for (size_t i = 0; i < op->nsizes; i++)
		if (op->sizes_bytes[i] == size_bytes)
			return (int)i;
	return -ENOENT;
}

/* Room for one more element in an array of n elements of size sz, contents kept. */
static int array_grow(void **arr, size_t n, size_t sz)
{
	void *na = realloc(*arr, (n + 1) * sz);

	if (!na)
		return -ENOMEM;
	*arr = na;
	return 0;
}

/* Insert val at index at of an array of n elements already grown by one. */
static void array_shift_in(void *arr, size_t n, size_t sz, size_t at, const void *val)
{
	char *a = arr;

	memmove(a + (at + 1) * sz, a + at * sz, (n - at) * sz);
	memcpy(a + at * sz, val, sz);
}

/* A per-size array of a curve and the value a new cell starts with. */
struct cell_array {
	void **arr;
	size_t sz;
	const void *blank;
};

#define CELL_ARRAYS_MAX 10

static size_t cell_arrays(struct policy_curve *c, struct cell_array *a)
{
	static const double nan = NAN;
	static const unsigned zero;
	static const uint8_t no_flags;
	static double *const no_raw;
	size_t n = 0;

	a[n++] = (struct cell_array){ (void **)&c->median_mib_s, sizeof(double), &nan };
	a[n++] = (struct cell_array){ (void **)&c->p10_mib_s, sizeof(double), &nan };
	a[n++] = (struct cell_array){ (void **)&c->p90_mib_s, sizeof(double), &nan };
	a[n++] = (struct cell_array){ (void **)&c->ci_lo_mib_s, sizeof(double), &nan };
	a[n++] = (struct cell_array){ (void **)&c->ci_hi_mib_s, sizeof(double), &nan };
	a[n++] = (struct cell_array){ (void **)&c->samples, sizeof(unsigned), &zero };
	a[n++] = (struct cell_array){ (void **)&c->cell_flags, sizeof(uint8_t), &no_flags };
	if (c->hosts_min_mib_s) {
		a[n++] = (struct cell_array){ (void **)&c->hosts_min_mib_s, sizeof(double), &nan };
		a[n++] = (struct cell_array){ (void **)&c->hosts_max_mib_s, sizeof(double), &nan };
	}
	if (c->raw_mib_s)
		a[n++] = (struct cell_array){ (void **)&c->raw_mib_s, sizeof(double *), &no_raw };
	return n;
}

int policy_op_insert_size(struct policy_op *op, uint64_t size_bytes)
{
	struct cell_array a[CELL_ARRAYS_MAX];
	size_t at = 0, na;
	int idx = policy_op_size_index(op, size_bytes);

	if (idx >= 0)
		return idx;
	while (at < op->nsizes && op->sizes_bytes[at] < size_bytes)
		at++;
	/*
	 * Every array grows first, and only then do the cells move: out of
	 * memory part-way, every array still holds its cells where they were.
	 */
	for (size_t i = 0; i < op->ncurves; i++) {
		na = cell_arrays(&op->curves[i], a);
		for (size_t k = 0; k < na; k++)
			if (array_grow(a[k].arr, op->nsizes, a[k].sz))
				return -ENOMEM;
	}
	if (array_grow((void **)&op->sizes_bytes, op->nsizes, sizeof(uint64_t)))
		return -ENOMEM;
	for (size_t i = 0; i < op->ncurves; i++) {
		na = cell_arrays(&op->curves[i], a);
		for (size_t k = 0; k < na; k++)
			array_shift_in(*a[k].arr, op->nsizes, a[k].sz, at, a[k].blank);
	}
	array_shift_in(op->sizes_bytes, op->nsizes, sizeof(uint64_t), at, &size_bytes);
	op->nsizes++;
	return (int)at;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool policy_cpu_has_feature(const struct policy_cpu *cpu, const char *feature)
{
	for (size_t i = 0; i < cpu->nfeatures; i++)
		if (strcmp(cpu->features[i], feature) == 0)
			return true;
	return false;
}

bool policy_target_has_curve(const struct policy_target *t, const char *strategy)
{
	for (size_t i = 0; i < t->nops; i++)
		if (policy_op_find_curve(&t->ops[i], strategy))
			return true;
	return false;
}

int policy_cpu_add_feature(struct policy_cpu *cpu, const char *feature)
{
	char **slot, *dup;

	if (policy_cpu_has_feature(cpu, feature))
		return 0;
	dup = strdup(feature);
	if (!dup)
		return -ENOMEM;
	slot = grow_one(&cpu->features, &cpu->nfeatures, sizeof(*slot));
	if (!slot) {
		free(dup);
		return -ENOMEM;
	}
	*slot = dup;
	qsort(cpu->features, cpu->nfeatures, sizeof(*cpu->features), cmp_str);
	return 0;
}

struct policy_op *policy_find_op(const struct policy_target *t, const char *op,
				 const char *pattern, unsigned threads)
{
	for (size_t i = 0; i < t->nops; i++) {
		struct policy_op *o = &t->ops[i];

		if (strcmp(o->op, op) == 0 && strcmp(o->pattern, pattern) == 0 &&
		    (threads == 0 || o->threads == threads))
			return o;
	}
	return NULL;
}

struct policy_target *policy_find_target(const struct policy *p, const char *name)
{
	return find_named(p->targets, p->ntargets, sizeof(*p->targets),
			  offsetof(struct policy_target, name), name);
}

static const char *const family_names[POLICY_NR_FAMILIES] = {
	[POLICY_FAMILY_STREAMING] = "streaming",
	[POLICY_FAMILY_CACHED_FLUSH] = "cached_flush",
	[POLICY_FAMILY_FILL] = "fill",
};

const char *policy_family_name(enum policy_family f)
{
	return (unsigned)f < POLICY_NR_FAMILIES ? family_names[f] : "unknown";
}

int policy_family_of(const char *name)
{
	for (int f = 0; f < POLICY_NR_FAMILIES; f++)
		if (!strcmp(name, family_names[f]))
			return f;
	return -1;
}
