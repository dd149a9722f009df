// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The policy's JSON form.  Writing: json-c objects built in a fixed key
 * order with fixed number formats, so that two probes of one platform
 * differ only where the measurements do.  Reading: every value is
 * checked for type and range, and the first bad one is reported by its
 * JSON path; unknown keys are ignored (forward compatibility), an
 * unknown schema major version is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/macros.h"
#include "policy/export_keys.h"
#include "policy/policy.h"
#include "policy/policy_internal.h"
#include "policy/policy_limits.h"

/* ---- writing ---- */

static struct json_object *jnum(double v, const char *fmt)
{
	char buf[64];

	/* unknown; an infinity has no JSON form, and the reader names its field */
	if (!isfinite(v))
		return NULL;	/* json-c adds NULL as JSON null */
	snprintf(buf, sizeof(buf), fmt, v);
	return json_object_new_double_s(v, buf);
}

static struct json_object *jsize(uint64_t v)
{
	return v == POLICY_SIZE_OPEN ? NULL : json_object_new_int64((int64_t)v);
}

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *double_array(const double *a, size_t n, const char *fmt)
{
	struct json_object *arr = n ? json_object_new_array_ext((int)n) : json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, jnum(a[i], fmt));
	return arr;
}

/* The sizes of c's cells that carry flag; NULL when none does (the key is left out). */
static struct json_object *flagged_sizes(const struct policy_curve *c, const uint64_t *sizes,
					 size_t n, uint8_t flag)
{
	struct json_object *arr = NULL;

	for (size_t i = 0; c->cell_flags && i < n; i++) {
		if (!(c->cell_flags[i] & flag))
			continue;
		if (!arr)
			arr = json_object_new_array();
		json_object_array_add(arr, json_object_new_int64((int64_t)sizes[i]));
	}
	return arr;
}

static const struct {
	const char *key;
	uint8_t flag;
} cell_flag_keys[] = {
	{ "suspect_sizes_bytes", POLICY_CELL_SUSPECT },
	{ "unmeasurable_sizes_bytes", POLICY_CELL_UNMEASURABLE },
	{ "remeasured_sizes_bytes", POLICY_CELL_REMEASURED },
	{ "confirmed_sizes_bytes", POLICY_CELL_CONFIRMED },
};

static struct json_object *curve_to_json(const struct policy_curve *c, const uint64_t *sizes,
					 size_t n)
{
	struct json_object *o = json_object_new_object();
	struct json_object *samples = json_object_new_array_ext((int)n);

	if (c->reference_only)
		add(o, "reference_only", json_object_new_boolean(1));
	add(o, "median_mib_s", double_array(c->median_mib_s, n, "%.1f"));
	add(o, "p10_mib_s", double_array(c->p10_mib_s, n, "%.1f"));
	add(o, "p90_mib_s", double_array(c->p90_mib_s, n, "%.1f"));
	add(o, "ci95_lo_mib_s", double_array(c->ci_lo_mib_s, n, "%.1f"));
	add(o, "ci95_hi_mib_s", double_array(c->ci_hi_mib_s, n, "%.1f"));
	for (size_t i = 0; i < n; i++)
		json_object_array_add(samples, json_object_new_int64(c->samples[i]));
	add(o, "samples", samples);
	if (c->hosts_min_mib_s) {
		add(o, "hosts_min_mib_s", double_array(c->hosts_min_mib_s, n, "%.1f"));
		add(o, "hosts_max_mib_s", double_array(c->hosts_max_mib_s, n, "%.1f"));
	}
	if (c->raw_mib_s) {
		struct json_object *raw = json_object_new_array_ext((int)n);

		for (size_t i = 0; i < n; i++)
			json_object_array_add(raw, double_array(c->raw_mib_s[i],
								c->raw_mib_s[i] ? c->samples[i] : 0,
								"%.1f"));
		add(o, "raw_mib_s", raw);
	}
	for (size_t k = 0; k < ARRAY_SIZE(cell_flag_keys); k++) {
		struct json_object *a = flagged_sizes(c, sizes, n, cell_flag_keys[k].flag);

		if (a)
			add(o, cell_flag_keys[k].key, a);
	}
	return o;
}

/*
 * The sizes that end in a partial cache line, for the reader of a kept
 * island there: a streaming store of part of a line is a read-modify-write
 * at the memory controller.  Derived from sizes_bytes; absent when none.
 */
static void add_partial_lines(struct json_object *o, const struct policy_op *op)
{
	struct json_object *arr = NULL;

	for (size_t i = 0; i < op->nsizes; i++) {
		if (!(op->sizes_bytes[i] % POLICY_LINE_BYTES))
			continue;
		if (!arr)
			arr = json_object_new_array();
		json_object_array_add(arr, json_object_new_int64((int64_t)op->sizes_bytes[i]));
	}
	if (arr)
		add(o, "partial_line_sizes_bytes", arr);
}

/* How a member of a flat struct (a range, a crossover) is written. */
enum field_kind {
	FIELD_BYTES,		/* uint64_t */
	FIELD_BYTES_OR_OPEN,	/* uint64_t, null for POLICY_SIZE_OPEN */
	FIELD_TEXT,		/* char[] */
	FIELD_WORD,		/* char[], left out where empty (older files have none) */
	FIELD_BOOL,		/* bool */
	FIELD_FRACTION,		/* double in [0, 1], three decimals */
};

/* A member written under its own name, in table order. */
struct field {
	const char *key;
	enum field_kind kind;
	size_t off;
};

#define FIELD(type, m, kind) { #m, FIELD_##kind, offsetof(struct type, m) }

static const struct field range_fields[] = {
	FIELD(policy_range, from_bytes, BYTES),
	FIELD(policy_range, to_bytes, BYTES_OR_OPEN),
	FIELD(policy_range, strategy, TEXT),
	FIELD(policy_range, tie, BOOL),
	FIELD(policy_range, family, WORD),
	FIELD(policy_range, baseline, WORD),
}, crossover_fields[] = {
	FIELD(policy_crossover, size_bytes, BYTES),
	FIELD(policy_crossover, below, TEXT),
	FIELD(policy_crossover, above, TEXT),
	FIELD(policy_crossover, confidence, FRACTION),
	FIELD(policy_crossover, kind, WORD),
};

static struct json_object *fields_to_json(const void *base, const struct field *f, size_t nf)
{
	struct json_object *o = json_object_new_object();

	for (size_t k = 0; k < nf; k++) {
		const void *m = (const char *)base + f[k].off;

		switch (f[k].kind) {
		case FIELD_BYTES:
			add(o, f[k].key, json_object_new_int64((int64_t)*(const uint64_t *)m));
			break;
		case FIELD_BYTES_OR_OPEN:
			add(o, f[k].key, jsize(*(const uint64_t *)m));
			break;
		case FIELD_WORD:
			if (!*(const char *)m)
				break;
			/* fall through */
		case FIELD_TEXT:
			add(o, f[k].key, json_object_new_string(m));
			break;
		case FIELD_BOOL:
			add(o, f[k].key, json_object_new_boolean(*(const bool *)m));
			break;
		case FIELD_FRACTION:
			add(o, f[k].key, jnum(*(const double *)m, "%.3f"));
			break;
		}
	}
	return o;
}

/* An array of n structs of size bytes from elems, each written by its fields. */
static struct json_object *object_array(const void *elems, size_t n, size_t size,
					const struct field *f, size_t nf)
{
	struct json_object *arr = json_object_new_array_ext((int)n);

	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, fields_to_json((const char *)elems + i * size, f, nf));
	return arr;
}

static struct json_object *op_to_json(const struct policy_op *op)
{
	struct json_object *o = json_object_new_object();
	struct json_object *sizes = json_object_new_array_ext((int)op->nsizes);
	struct json_object *curves = json_object_new_object();

	add(o, "op", json_object_new_string(op->op));
	add(o, "pattern", json_object_new_string(op->pattern));
	add(o, "threads", json_object_new_int(op->threads));
	add(o, "ceiling_mib_s", jnum(op->ceiling_mib_s, "%.1f"));
	if (!isnan(op->min_overlap)) {
		struct json_object *cc = json_object_new_object();

		add(cc, "min_overlap", jnum(op->min_overlap, "%.3f"));
		add(cc, "rejected_samples", json_object_new_int64(op->rejected_samples));
		add(o, "concurrency", cc);
	}
	if (op->margin > 0)
		add(o, "margin", jnum(op->margin, "%.4f"));
	for (size_t i = 0; i < op->nsizes; i++)
		json_object_array_add(sizes, json_object_new_int64((int64_t)op->sizes_bytes[i]));
	add(o, "sizes_bytes", sizes);
	add_partial_lines(o, op);
	for (size_t i = 0; i < op->ncurves; i++)
		add(curves, op->curves[i].strategy,
		    curve_to_json(&op->curves[i], op->sizes_bytes, op->nsizes));
	add(o, "curves", curves);
	add(o, "ranges", object_array(op->ranges, op->nranges, sizeof(*op->ranges),
				      range_fields, ARRAY_SIZE(range_fields)));
	add(o, "crossovers", object_array(op->crossovers, op->ncrossovers,
					  sizeof(*op->crossovers), crossover_fields,
					  ARRAY_SIZE(crossover_fields)));
	return o;
}

static struct json_object *int_array(const unsigned *a, size_t n)
{
	struct json_object *arr = json_object_new_array_ext((int)n);

	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, json_object_new_int64(a[i]));
	return arr;
}

static struct json_object *saturation_to_json(const struct policy_target *t)
{
	struct json_object *o = NULL;

	for (int f = 0; f < POLICY_NR_FAMILIES; f++) {
		const struct policy_saturation *s = &t->saturation[f];
		struct json_object *js;

		if (!s->present)
			continue;
		if (!o)
			o = json_object_new_object();
		js = json_object_new_object();
		if (s->strategy[0])
			add(js, "strategy", json_object_new_string(s->strategy));
		add(js, "size_bytes", json_object_new_int64((int64_t)s->size_bytes));
		add(js, "threads", int_array(s->threads, s->nsteps));
		add(js, "mib_s", double_array(s->mib_s, s->nsteps, "%.1f"));
		add(js, "saturates_at", json_object_new_int64(s->saturates_at));
		add(o, policy_family_name(f), js);
	}
	return o;
}

static struct json_object *remote_to_json(const struct policy_remote *r)
{
	struct json_object *o = json_object_new_object();
	struct json_object *cells = json_object_new_array();

	add(o, "from_node", json_object_new_int(r->from_node));
	add(o, "distance", json_object_new_int(r->distance));
	for (size_t i = 0; i < r->ncells; i++) {
		const struct policy_remote_cell *c = &r->cells[i];
		struct json_object *jc = json_object_new_object();

		add(jc, "strategy", json_object_new_string(c->strategy));
		add(jc, "pattern", json_object_new_string(c->pattern));
		add(jc, "size_bytes", json_object_new_int64((int64_t)c->size_bytes));
		add(jc, "local_mib_s", jnum(c->local_mib_s, "%.1f"));
		add(jc, "remote_mib_s", jnum(c->remote_mib_s, "%.1f"));
		json_object_array_add(cells, jc);
	}
	add(o, "cells", cells);
	add(o, "ratio", jnum(r->ratio, "%.3f"));
	return o;
}

/* Where the probe ran: only what is known, so old readers see nothing new. */
static void placement_to_json(struct json_object *o, const struct policy_target *t)
{
	struct json_object *sat = saturation_to_json(t);

	add(o, "target_node", json_object_new_int(t->target_node));
	add(o, "probed_from_node", json_object_new_int(t->probed_from_node));
	if (t->placement[0])
		add(o, "placement", json_object_new_string(t->placement));
	if (t->ncpus_used) {
		struct json_object *arr = json_object_new_array_ext((int)t->ncpus_used);

		for (size_t i = 0; i < t->ncpus_used; i++)
			json_object_array_add(arr, json_object_new_int(t->cpus_used[i]));
		add(o, "cpus_used", arr);
	}
	if (t->memory_bound >= 0)
		add(o, "memory_bound", json_object_new_boolean(t->memory_bound));
	if (sat)
		add(o, "saturation", sat);
	if (t->remote_penalty.present)
		add(o, "remote_penalty", remote_to_json(&t->remote_penalty));
}

/* A CXL memdev's text members, with cxl list's key names where it has one. */
static const struct named_member cxl_memdev_texts[] = {
	{ "memdev", offsetof(struct policy_cxl_memdev, name) },
	{ "pci_vendor", offsetof(struct policy_cxl_memdev, pci_vendor) },
	{ "pci_device", offsetof(struct policy_cxl_memdev, pci_device) },
	{ "pci_subsystem_vendor", offsetof(struct policy_cxl_memdev, pci_subsystem_vendor) },
	{ "pci_subsystem_device", offsetof(struct policy_cxl_memdev, pci_subsystem_device) },
	{ "pci_revision", offsetof(struct policy_cxl_memdev, pci_revision) },
	{ "firmware_version", offsetof(struct policy_cxl_memdev, firmware) },
};

/* Each text member of the struct at base, under its outside name. */
static void add_texts(struct json_object *o, const void *base, const struct named_member *m,
		      size_t n)
{
	for (size_t k = 0; k < n; k++)
		add(o, m[k].name, json_object_new_string((const char *)base + m[k].off));
}

static struct json_object *cxl_to_json(const struct policy_cxl *c)
{
	struct json_object *memdevs = json_object_new_array();
	struct json_object *o = json_object_new_object();

	add(o, "region", json_object_new_string(c->region));
	add(o, "interleave_ways", json_object_new_int((int)c->interleave_ways));
	add(o, "interleave_granularity", json_object_new_int((int)c->interleave_granularity));
	add(o, "host_bridges", json_object_new_int((int)c->host_bridges));
	for (size_t i = 0; i < c->nmemdevs; i++) {
		struct json_object *m = json_object_new_object();

		add_texts(m, &c->memdevs[i], cxl_memdev_texts, ARRAY_SIZE(cxl_memdev_texts));
		add(m, "depth", json_object_new_int((int)c->memdevs[i].depth));
		json_object_array_add(memdevs, m);
	}
	add(o, "memdevs", memdevs);
	return o;
}

/* The target's and its DIMMs' text members, in the order they are written. */
static const struct named_member target_texts[] = {
	{ "name", offsetof(struct policy_target, name) },
	{ "kind", offsetof(struct policy_target, kind) },
	{ "device", offsetof(struct policy_target, device) },
	{ "mapping", offsetof(struct policy_target, mapping) },
	{ "persistence_domain", offsetof(struct policy_target, persistence_domain) },
}, dimm_texts[] = {
	{ "name", offsetof(struct policy_dimm, name) },
	{ "vendor", offsetof(struct policy_dimm, vendor) },
	{ "device", offsetof(struct policy_dimm, device) },
	{ "firmware", offsetof(struct policy_dimm, firmware) },
};

static struct json_object *target_to_json(const struct policy_target *t)
{
	struct json_object *o = json_object_new_object();
	struct json_object *dimms = json_object_new_array();
	struct json_object *ops = json_object_new_array();

	add_texts(o, t, target_texts, ARRAY_SIZE(target_texts));
	add(o, "numa_node", json_object_new_int(t->numa_node));
	placement_to_json(o, t);
	add(o, "interleave_ways", json_object_new_int((int)t->interleave_ways));
	for (size_t i = 0; i < t->ndimms; i++) {
		struct json_object *d = json_object_new_object();

		add_texts(d, &t->dimms[i], dimm_texts, ARRAY_SIZE(dimm_texts));
		json_object_array_add(dimms, d);
	}
	add(o, "dimms", dimms);
	if (t->cxl.present)
		add(o, "cxl", cxl_to_json(&t->cxl));
	add(o, "area_bytes", json_object_new_int64((int64_t)t->area_bytes));
	add(o, "ceiling_mib_s", jnum(t->ceiling_mib_s, "%.1f"));
	for (size_t i = 0; i < t->nops; i++)
		json_object_array_add(ops, op_to_json(&t->ops[i]));
	add(o, "ops", ops);
	return o;
}

static struct json_object *kv_to_json(const struct policy_export *e)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < e->nkv; i++)
		add(o, e->kv[i].key, json_object_new_string(e->kv[i].value));
	return o;
}

static struct json_object *exports_to_json(const struct policy *p)
{
	struct json_object *o = json_object_new_object();

	for (int c = 0; c < EXPORT_NCONSUMERS; c++) {
		const struct export_consumer_info *ci = export_consumer(c);
		const struct policy_export *x = export_of(p, c);
		struct json_object *e;

		if (!x->present)
			continue;
		e = json_object_new_object();
		add(e, "target", json_object_new_string(x->target));
		if (ci->kv_object)
			add(e, ci->kv_object, kv_to_json(x));
		else
			add(e, ci->threshold, jsize(x->threshold_bytes));
		add(e, "regret", jnum(x->regret, "%.4f"));
		if (x->source[0])
			add(e, "source", json_object_new_string(x->source));
		if (x->margin > 0)
			add(e, "margin", jnum(x->margin, "%.4f"));
		if (x->baseline[0])
			add(e, "baseline", json_object_new_string(x->baseline));
		add(o, ci->name, e);
	}
	return o;
}

/* merged.kernels, merged.microcodes (environment.h): absent when not recorded. */
static void env_values_to_json(struct json_object *m, const char *key,
			       const struct policy_env_values *l)
{
	struct json_object *arr;

	if (!l->n)
		return;
	arr = json_object_new_array();
	for (size_t i = 0; i < l->n; i++)
		json_object_array_add(arr, json_object_new_string(l->v[i]));
	add(m, key, arr);
}

struct json_object *policy_to_json(const struct policy *p)
{
	struct json_object *root = json_object_new_object();
	struct json_object *gen = json_object_new_object();
	struct json_object *plat = json_object_new_object();
	struct json_object *cpu = json_object_new_object();
	struct json_object *feat = json_object_new_array();
	struct json_object *targets = json_object_new_array();
	const struct policy_cpu *c = &p->platform.cpu;

	add(root, "schema", json_object_new_string(p->schema));
	add(gen, "name", json_object_new_string(p->generator.name));
	add(gen, "version", json_object_new_string(p->generator.version));
	add(gen, "created", json_object_new_string(p->generator.created));
	add(gen, "mode", json_object_new_string(p->generator.mode));
	add(gen, "duration_s", jnum(p->generator.duration_s, "%.2f"));
	if (p->generator.host_id[0])
		add(gen, "host_id", json_object_new_string(p->generator.host_id));
	add(root, "generator", gen);
	if (p->merged.hosts) {
		struct json_object *m = json_object_new_object();

		add(m, "hosts", json_object_new_int((int)p->merged.hosts));
		add(m, "created_first", json_object_new_string(p->merged.created_first));
		add(m, "created_last", json_object_new_string(p->merged.created_last));
		if (p->merged.nhost_ids) {
			struct json_object *ids = json_object_new_array();

			for (size_t i = 0; i < p->merged.nhost_ids; i++)
				json_object_array_add(ids,
						json_object_new_string(p->merged.host_ids[i]));
			add(m, "host_ids", ids);
		}
		env_values_to_json(m, "kernels", &p->merged.kernels);
		env_values_to_json(m, "microcodes", &p->merged.microcodes);
		add(root, "merged", m);
	}

	add(plat, "fingerprint", json_object_new_string(p->platform.fingerprint));
	add(cpu, "vendor", json_object_new_string(c->vendor));
	add(cpu, "family", json_object_new_int((int)c->family));
	add(cpu, "model", json_object_new_int((int)c->model));
	add(cpu, "stepping", json_object_new_int((int)c->stepping));
	add(cpu, "microcode", json_object_new_string(c->microcode));
	for (size_t i = 0; i < c->nfeatures; i++)
		json_object_array_add(feat, json_object_new_string(c->features[i]));
	add(cpu, "features", feat);
	add(cpu, "llc_bytes", json_object_new_int64((int64_t)c->llc_bytes));
	add(plat, "cpu", cpu);
	add(plat, "kernel", json_object_new_string(p->platform.kernel));
	add(root, "platform", plat);

	for (size_t i = 0; i < p->ntargets; i++)
		json_object_array_add(targets, target_to_json(&p->targets[i]));
	add(root, "targets", targets);
	add(root, "exports", exports_to_json(p));
	return root;
}

char *policy_json_text(struct json_object *root)
{
	const char *s;
	char *out;

	if (!root)
		return NULL;
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_SPACED |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	out = s ? malloc(strlen(s) + 2) : NULL;
	if (out)
		sprintf(out, "%s\n", s);
	json_object_put(root);
	return out;
}

char *policy_to_string(const struct policy *p)
{
	return policy_json_text(policy_to_json(p));
}

/* ---- reading ---- */

struct rd {
	char path[512];		/* JSON path of the value being read */
	char *err;
	size_t errlen;
	int failed;
};

static int fail(struct rd *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct rd *rd, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (rd->failed)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(rd->err, rd->errlen, "%s: %s", rd->path[0] ? rd->path : "(top level)", msg);
	rd->failed = 1;
	return -EINVAL;
}

/*
 * Push a path component; returns the length to pop back to.  Keys come
 * from the file: a control character in one is shown as '?', so that
 * the error stays one line.
 */
static size_t push_key(struct rd *rd, const char *key)
{
	size_t len = strlen(rd->path), end;

	snprintf(rd->path + len, sizeof(rd->path) - len, "%s%s", len ? "." : "", key);
	for (end = len; rd->path[end]; end++)
		if ((unsigned char)rd->path[end] < 0x20 || rd->path[end] == 0x7f)
			rd->path[end] = '?';
	return len;
}

static size_t push_index(struct rd *rd, size_t i)
{
	size_t len = strlen(rd->path);

	snprintf(rd->path + len, sizeof(rd->path) - len, "[%zu]", i);
	return len;
}

static void pop(struct rd *rd, size_t len)
{
	rd->path[len] = '\0';
}

static const char *type_name(struct json_object *v)
{
	return v ? json_type_to_name(json_object_get_type(v)) : "null";
}

/* What the value was, for messages: its JSON text, shortened. */
static const char *shown(struct json_object *v, char *buf, size_t len)
{
	const char *s = v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN) : "null";

	snprintf(buf, len, "%.40s%s", s, strlen(s) > 40 ? "..." : "");
	return buf;
}

static struct json_object *member(struct json_object *obj, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(obj, key, &v);
	return v;
}

/* A required member of a type; reports at path.key. */
static struct json_object *need(struct rd *rd, struct json_object *obj, const char *key,
				enum json_type type, int nullable)
{
	struct json_object *v;
	size_t mark;
	int present;

	if (rd->failed)
		return NULL;
	present = json_object_object_get_ex(obj, key, &v);
	mark = push_key(rd, key);
	if (!present)
		fail(rd, "missing");
	else if (!v && !nullable)
		fail(rd, "expected %s, got null", json_type_to_name(type));
	else if (v && !json_object_is_type(v, type) &&
		 !(type == json_type_double && json_object_is_type(v, json_type_int)))
		fail(rd, "expected %s, got %s", json_type_to_name(type), type_name(v));
	pop(rd, mark);
	return rd->failed ? NULL : v;
}

/*
 * A string value fit to be printed on one line and written into a file:
 * bounded, and without NUL or any other control character.  Every
 * string of the policy reaches logs, sd_notify's STATUS= or an
 * environment file's header somewhere.
 */
static int check_text(struct rd *rd, struct json_object *v, size_t maxlen)
{
	const char *str = json_object_get_string(v);
	size_t len = (size_t)json_object_get_string_len(v);

	if (len >= maxlen)
		return fail(rd, "string longer than %zu bytes", maxlen - 1);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)str[i] < 0x20 || str[i] == 0x7f)
			return fail(rd, "control character (0x%02x) at byte %zu",
				    (unsigned char)str[i], i);
	return 0;
}

/* Names the policy uses as identifiers: a-z, A-Z, 0-9, '_' and '.'. */
static bool valid_ident(const char *s, bool upper_and_dot)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      (upper_and_dot && ((*s >= 'A' && *s <= 'Z') || *s == '.'))))
			return false;
	return true;
}

static void read_str(struct rd *rd, struct json_object *obj, const char *key, char *dst,
		     size_t dstlen, int required)
{
	struct json_object *v;
	size_t mark;

	if (rd->failed)
		return;
	if (!required && !json_object_object_get_ex(obj, key, NULL))
		return;
	v = need(rd, obj, key, json_type_string, 0);
	if (!v)
		return;
	mark = push_key(rd, key);
	if (check_text(rd, v, dstlen) == 0)
		snprintf(dst, dstlen, "%s", json_object_get_string(v));
	pop(rd, mark);
}

/* An integer in [lo, hi] from v; path already pushed. */
static int int_value(struct rd *rd, struct json_object *v, int64_t lo, int64_t hi, int64_t *out,
		     const char *what)
{
	char buf[64];
	int64_t x;

	if (!v || !json_object_is_type(v, json_type_int))
		return fail(rd, "expected %s, got %s", what, shown(v, buf, sizeof(buf)));
	errno = 0;
	x = json_object_get_int64(v);
	/* json-c saturates out-of-range integers; catch that too */
	if (errno || x < lo || x > hi)
		return fail(rd, "expected %s, got %s", what, shown(v, buf, sizeof(buf)));
	*out = x;
	return 0;
}

/*
 * An optional member key of obj that must be an object where it is there,
 * its path pushed at *mark for the caller to pop; NULL, nothing pushed,
 * where reading failed already, it is absent or it is no object.
 */
static struct json_object *enter_object_member(struct rd *rd, struct json_object *obj,
					       const char *key, size_t *mark)
{
	struct json_object *v;

	if (rd->failed || !json_object_object_get_ex(obj, key, NULL))
		return NULL;
	v = need(rd, obj, key, json_type_object, 0);
	if (v)
		*mark = push_key(rd, key);
	return v;
}

/*
 * The optional object member key of obj read by read_members into dst:
 * *present set where it is there, to whether it all read.
 */
static void read_object_member(struct rd *rd, struct json_object *obj, const char *key,
			       void (*read_members)(struct rd *rd, struct json_object *o,
						    void *dst),
			       void *dst, bool *present)
{
	size_t mark;
	struct json_object *o = enter_object_member(rd, obj, key, &mark);

	if (!o)
		return;
	read_members(rd, o, dst);
	pop(rd, mark);
	*present = !rd->failed;
}

/* A number in [lo, hi] or null (NAN) from v; path already pushed. */
static int double_value(struct rd *rd, struct json_object *v, double lo, double hi, double *out,
			int nullable)
{
	char buf[64];
	double x;

	if (!v && nullable) {
		*out = NAN;
		return 0;
	}
	if (!v || !(json_object_is_type(v, json_type_double) ||
		    json_object_is_type(v, json_type_int)))
		return fail(rd, "expected a number in [%g, %g], got %s", lo, hi,
			    shown(v, buf, sizeof(buf)));
	x = json_object_get_double(v);
	if (!isfinite(x) || x < lo || x > hi)
		return fail(rd, "expected a number in [%g, %g], got %s", lo, hi,
			    shown(v, buf, sizeof(buf)));
	*out = x;
	return 0;
}

/*
 * The number member key of obj, where it is there, checked with its path
 * pushed: an integer in [lo, hi] into *i where i is given (what names it in
 * messages), else a number in [lo, hi], or null (NAN) where nullable, into
 * *d.  Integer bounds stay below 2^53, so a double holds them exactly.
 */
static void read_number(struct rd *rd, struct json_object *obj, const char *key, int required,
			double lo, double hi, const char *what, int nullable, int64_t *i, double *d)
{
	struct json_object *v;
	size_t mark;

	if (rd->failed || (!required && !json_object_object_get_ex(obj, key, NULL)))
		return;
	mark = push_key(rd, key);
	if (!json_object_object_get_ex(obj, key, &v))
		fail(rd, "missing");
	else if (i)
		int_value(rd, v, (int64_t)lo, (int64_t)hi, i, what);
	else
		double_value(rd, v, lo, hi, d, nullable);
	pop(rd, mark);
}

/* An integer member; dflt where it is absent or bad. */
static int64_t read_int(struct rd *rd, struct json_object *obj, const char *key, int64_t lo,
			int64_t hi, const char *what, int required, int64_t dflt)
{
	int64_t x = dflt;

	read_number(rd, obj, key, required, (double)lo, (double)hi, what, 0, &x, NULL);
	return x;
}

/* A number member; NAN where it is absent, null or bad. */
static double read_double(struct rd *rd, struct json_object *obj, const char *key, double lo,
			  double hi, int nullable, int required)
{
	double x = NAN;

	read_number(rd, obj, key, required, lo, hi, NULL, nullable, NULL, &x);
	return x;
}

static struct json_object *need_array(struct rd *rd, struct json_object *obj, const char *key,
				      size_t max, int required)
{
	struct json_object *v;
	size_t mark;

	if (rd->failed || (!required && !json_object_object_get_ex(obj, key, NULL)))
		return NULL;
	v = need(rd, obj, key, json_type_array, 0);
	if (!v)
		return NULL;
	if (json_object_array_length(v) > max) {
		mark = push_key(rd, key);
		fail(rd, "array of %zu elements, at most %zu allowed",
		     json_object_array_length(v), max);
		pop(rd, mark);
		return NULL;
	}
	return v;
}

/*
 * The array member key of obj of at most max elements: its length in *n,
 * its path pushed at *mark for the caller to pop; NULL, nothing pushed,
 * where reading failed, an optional key is absent, or the value is no such
 * array.
 */
static struct json_object *enter_array(struct rd *rd, struct json_object *obj, const char *key,
				       size_t max, int required, size_t *n, size_t *mark)
{
	struct json_object *arr = need_array(rd, obj, key, max, required);

	if (!arr)
		return NULL;
	*n = json_object_array_length(arr);
	*mark = push_key(rd, key);
	return arr;
}

/*
 * n zeroed elements of size bytes for the array entered at mark (one at
 * least: an empty array is no failed allocation).  Running out of memory
 * is no fault of the array, so it is reported at the path above it.
 */
static void *alloc_elems(struct rd *rd, size_t n, size_t size, size_t mark)
{
	void *elems = calloc(n ? n : 1, size);

	if (!elems) {
		pop(rd, mark);
		fail(rd, "out of memory");
	}
	return elems;
}

/* Reads element i of n (v, its path pushed) into the array at elems. */
typedef void (*read_elem_fn)(struct rd *rd, struct json_object *v, void *elems, size_t i,
			     size_t n, void *ctx);

/* An array member read element by element into a C array. */
struct array_of {
	const char *key;
	size_t max;		/* elements at most */
	int required;
	bool objects;		/* each element must be an object */
	size_t size;		/* bytes of one element read into */
	read_elem_fn read;
	/* then, where they all read, the whole array of n at its path (NULL: nothing) */
	void (*check)(struct rd *rd, size_t n, void *ctx, size_t mark);
};

/*
 * The array member a->key of obj, read by a->read() into *n zeroed
 * elements of a->size bytes (room for one where it is empty), then
 * checked whole by a->check(); returned for the caller to own, whether
 * reading them failed or not.  NULL where reading failed already, an
 * optional key is absent, or memory ran out.
 */
static void read_elems(struct rd *rd, struct json_object *arr, const struct array_of *a,
		       void *elems, size_t n, void *ctx, size_t mark)
{
	for (size_t i = 0; i < n && !rd->failed; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);
		size_t m2 = push_index(rd, i);

		if (a->objects && !json_object_is_type(v, json_type_object))
			fail(rd, "expected object, got %s", type_name(v));
		else
			a->read(rd, v, elems, i, n, ctx);
		pop(rd, m2);
	}
	if (a->check && !rd->failed)
		a->check(rd, n, ctx, mark);
	pop(rd, mark);
}

static void *read_array(struct rd *rd, struct json_object *obj, const struct array_of *a,
			void *ctx, size_t *n)
{
	size_t mark;
	struct json_object *arr = enter_array(rd, obj, a->key, a->max, a->required, n, &mark);
	void *elems = arr ? alloc_elems(rd, *n, a->size, mark) : NULL;

	if (!elems) {
		*n = 0;
		return NULL;
	}
	read_elems(rd, arr, a, elems, *n, ctx, mark);
	return elems;
}

/* As read_array, into elems of the caller's (room for a->max) */
static void read_array_into(struct rd *rd, struct json_object *obj, const struct array_of *a,
			    void *elems, void *ctx)
{
	size_t mark, n;
	struct json_object *arr = enter_array(rd, obj, a->key, a->max, a->required, &n, &mark);

	if (arr)
		read_elems(rd, arr, a, elems, n, ctx, mark);
}

static int read_name(struct rd *rd, struct json_object *obj, const char *key, char *dst,
		     size_t len)
{
	read_str(rd, obj, key, dst, len, 1);
	if (!rd->failed && !dst[0]) {
		size_t mark = push_key(rd, key);

		fail(rd, "must not be empty");
		pop(rd, mark);
	}
	return rd->failed ? -EINVAL : 0;
}

static void read_double_array(struct rd *rd, struct json_object *obj, const char *key,
			      double *dst, size_t n)
{
	struct json_object *arr = need_array(rd, obj, key, POLICY_MAX_SIZES, 1);
	size_t mark;

	if (!arr)
		return;
	mark = push_key(rd, key);
	if (json_object_array_length(arr) != n)
		fail(rd, "has %zu elements, sizes_bytes has %zu", json_object_array_length(arr), n);
	for (size_t i = 0; i < n && !rd->failed; i++) {
		size_t m2 = push_index(rd, i);

		double_value(rd, json_object_array_get_idx(arr, i), 0, POLICY_MAX_MIB_S,
			     &dst[i], 1);
		pop(rd, m2);
	}
	pop(rd, mark);
}

/*
 * The optional array key of obj: sizes of at least lo, each one of op's
 * sizes_bytes; each sets flag on its cell in flags, where flags is given.
 */
static void read_size_list(struct rd *rd, struct json_object *obj, const char *key, int64_t lo,
			   const struct policy_op *op, uint8_t *flags, uint8_t flag)
{
	struct json_object *arr = need_array(rd, obj, key, POLICY_MAX_SIZES, 0);
	size_t mark;

	if (!arr)
		return;
	mark = push_key(rd, key);
	for (size_t i = 0; i < json_object_array_length(arr) && !rd->failed; i++) {
		size_t m2 = push_index(rd, i);
		int64_t x;
		int j;

		if (!int_value(rd, json_object_array_get_idx(arr, i), lo, POLICY_MAX_SIZE_BYTES,
			       &x, "a size in bytes")) {
			j = policy_op_size_index(op, (uint64_t)x);
			if (j < 0)
				fail(rd, "%" PRId64 " is not one of sizes_bytes", x);
			else if (flags)
				flags[j] |= flag;
		}
		pop(rd, m2);
	}
	pop(rd, mark);
}

/*
 * raw_mib_s, where there: one array per size, each of that cell's samples
 * (samples[i] of them, as the probe took them, or none), every one a
 * throughput.
 */
static void read_raw(struct rd *rd, struct json_object *jc, struct policy_curve *c,
		     const struct policy_op *op)
{
	size_t n = op->nsizes, ncells, mark;
	struct json_object *arr = enter_array(rd, jc, "raw_mib_s", POLICY_MAX_SIZES, 0, &ncells,
					      &mark);

	if (!arr)
		return;
	if (ncells != n)
		fail(rd, "has %zu elements, sizes_bytes has %zu", ncells, n);
	for (size_t i = 0; i < n && !rd->failed; i++) {
		struct json_object *cell = json_object_array_get_idx(arr, i);
		size_t m2 = push_index(rd, i), len;
		double *v;
		int ret;

		if (!cell || !json_object_is_type(cell, json_type_array)) {
			fail(rd, "expected an array of samples, got %s", type_name(cell));
			pop(rd, m2);
			break;
		}
		len = json_object_array_length(cell);
		/* empty: none kept (out of memory, or unpaired by a later second look) */
		if (len && len != c->samples[i]) {
			fail(rd, "has %zu samples, samples[%zu] says %u", len, i, c->samples[i]);
			pop(rd, m2);
			break;
		}
		v = malloc((len ? len : 1) * sizeof(*v));
		if (!v) {
			fail(rd, "out of memory");
			pop(rd, m2);
			break;
		}
		for (size_t k = 0; k < len && !rd->failed; k++) {
			size_t m3 = push_index(rd, k);

			double_value(rd, json_object_array_get_idx(cell, k), 0, POLICY_MAX_MIB_S,
				     &v[k], 0);
			pop(rd, m3);
		}
		ret = rd->failed ? 0 : policy_curve_set_raw(c, n, i, v, (unsigned)len);
		free(v);
		if (ret)
			fail(rd, "out of memory");
		pop(rd, m2);
	}
	pop(rd, mark);
}

static void read_curve(struct rd *rd, struct json_object *jc, struct policy_curve *c,
		       const struct policy_op *op)
{
	size_t n = op->nsizes;
	struct json_object *arr, *ro;

	if (!json_object_is_type(jc, json_type_object)) {
		fail(rd, "expected object, got %s", type_name(jc));
		return;
	}
	ro = member(jc, "reference_only");
	if (ro && !json_object_is_type(ro, json_type_boolean)) {
		size_t mark = push_key(rd, "reference_only");

		fail(rd, "expected boolean, got %s", type_name(ro));
		pop(rd, mark);
		return;
	}
	c->reference_only = ro && json_object_get_boolean(ro);
	read_double_array(rd, jc, "median_mib_s", c->median_mib_s, n);
	/* the spread arrays may be absent (hand-written or minimal policies) */
	if (member(jc, "p10_mib_s"))
		read_double_array(rd, jc, "p10_mib_s", c->p10_mib_s, n);
	if (member(jc, "p90_mib_s"))
		read_double_array(rd, jc, "p90_mib_s", c->p90_mib_s, n);
	if (member(jc, "ci95_lo_mib_s"))
		read_double_array(rd, jc, "ci95_lo_mib_s", c->ci_lo_mib_s, n);
	if (member(jc, "ci95_hi_mib_s"))
		read_double_array(rd, jc, "ci95_hi_mib_s", c->ci_hi_mib_s, n);
	if (member(jc, "hosts_min_mib_s") || member(jc, "hosts_max_mib_s")) {
		c->hosts_min_mib_s = malloc((n ? n : 1) * sizeof(double));
		c->hosts_max_mib_s = malloc((n ? n : 1) * sizeof(double));
		if (!c->hosts_min_mib_s || !c->hosts_max_mib_s) {
			fail(rd, "out of memory");
			return;
		}
		read_double_array(rd, jc, "hosts_min_mib_s", c->hosts_min_mib_s, n);
		read_double_array(rd, jc, "hosts_max_mib_s", c->hosts_max_mib_s, n);
	}
	arr = need_array(rd, jc, "samples", POLICY_MAX_SIZES, 0);
	if (arr) {
		size_t mark = push_key(rd, "samples");

		if (json_object_array_length(arr) != n)
			fail(rd, "has %zu elements, sizes_bytes has %zu",
			     json_object_array_length(arr), n);
		for (size_t i = 0; i < n && !rd->failed; i++) {
			size_t m2 = push_index(rd, i);
			int64_t x;

			if (!int_value(rd, json_object_array_get_idx(arr, i), 0,
				       POLICY_MAX_SAMPLES, &x, "a sample count"))
				c->samples[i] = (unsigned)x;
			pop(rd, m2);
		}
		pop(rd, mark);
	} else {
		for (size_t i = 0; i < n; i++)
			c->samples[i] = isnan(c->median_mib_s[i]) ? 0 : 1;
	}
	if (member(jc, "raw_mib_s") && !member(jc, "samples")) {
		size_t mark = push_key(rd, "raw_mib_s");

		fail(rd, "needs the samples array it is counted by");
		pop(rd, mark);
	}
	read_raw(rd, jc, c, op);
	for (size_t k = 0; k < ARRAY_SIZE(cell_flag_keys); k++)
		read_size_list(rd, jc, cell_flag_keys[k].key, 0, op, c->cell_flags,
			       cell_flag_keys[k].flag);
	/* a cell's interval must contain its median */
	for (size_t i = 0; i < n && !rd->failed; i++) {
		if (isnan(c->median_mib_s[i]))
			continue;
		if (isnan(c->ci_lo_mib_s[i]))
			c->ci_lo_mib_s[i] = c->median_mib_s[i];
		if (isnan(c->ci_hi_mib_s[i]))
			c->ci_hi_mib_s[i] = c->median_mib_s[i];
		if (c->ci_lo_mib_s[i] > c->median_mib_s[i] ||
		    c->ci_hi_mib_s[i] < c->median_mib_s[i]) {
			size_t mark = push_key(rd, "ci95_lo_mib_s");

			push_index(rd, i);
			fail(rd, "interval [%g, %g] does not contain the median %g",
			     c->ci_lo_mib_s[i], c->ci_hi_mib_s[i], c->median_mib_s[i]);
			pop(rd, mark);
		}
	}
}

/*
 * A strategy named by a decision: an identifier with a curve in this op;
 * a range must not choose a reference_only one (not a persistent copy).
 */
static void read_strategy(struct rd *rd, struct json_object *obj, const char *key,
			  const struct policy_op *op, char *dst, bool chosen)
{
	const struct policy_curve *c;
	size_t mark;

	if (read_name(rd, obj, key, dst, POLICY_NAME_MAX))
		return;
	mark = push_key(rd, key);
	c = policy_op_find_curve(op, dst);
	if (!valid_ident(dst, false))
		fail(rd, "not a strategy name (a-z, 0-9, _)");
	else if (!c)
		fail(rd, "'%s' has no curve in this op", dst);
	else if (chosen && c->reference_only)
		fail(rd, "'%s' is reference_only: measured, not a persistent copy", dst);
	pop(rd, mark);
}

/*
 * An optional JSON boolean into *dst: false when absent; "no", 0 or null
 * are not one.
 */
static bool read_bool(struct rd *rd, struct json_object *obj, const char *key, int *dst)
{
	struct json_object *v;
	size_t mark;

	if (rd->failed || !json_object_object_get_ex(obj, key, &v))
		return false;
	if (!json_object_is_type(v, json_type_boolean)) {
		mark = push_key(rd, key);
		fail(rd, "expected boolean, got %s", type_name(v));
		pop(rd, mark);
		return false;
	}
	*dst = json_object_get_boolean(v);
	return true;
}

/* x, the crossover i of op, is the boundary between ranges i and i + 1, and says so. */
static void crossover_matches(struct rd *rd, const struct policy_op *op,
			      const struct policy_crossover *x, size_t i)
{
	const struct policy_range *lo = &op->ranges[i], *hi = lo + 1;

	if (i + 1 >= op->nranges)
		fail(rd, "no range boundary for this crossover (%zu ranges)", op->nranges);
	else if (x->size_bytes != lo->to_bytes)
		fail(rd, "size_bytes %" PRIu64 " is not the boundary %" PRIu64 " of ranges[%zu] "
		     "and ranges[%zu]", x->size_bytes, lo->to_bytes, i, i + 1);
	else if (strcmp(x->below, lo->strategy) || strcmp(x->above, hi->strategy))
		fail(rd, "'%s' -> '%s' does not match the ranges' '%s' -> '%s'", x->below,
		     x->above, lo->strategy, hi->strategy);
}

/* An optional member that is one of words[] (NULL-terminated); "" when absent. */
static void read_word(struct rd *rd, struct json_object *obj, const char *key, char *dst,
		      size_t len, const char *const *words)
{
	size_t mark;

	dst[0] = 0;
	if (rd->failed || !member(obj, key))
		return;
	read_str(rd, obj, key, dst, len, 1);
	for (size_t i = 0; !rd->failed && words[i]; i++)
		if (!strcmp(dst, words[i]))
			return;
	if (rd->failed)
		return;
	mark = push_key(rd, key);
	fail(rd, "unknown value '%s'", dst);
	pop(rd, mark);
}

static const char *const families[] = { "streaming", "cached_flush", NULL };
static const char *const baselines[] = { "kept", "changed", "new", NULL };
static const char *const kinds[] = { "family", "member", NULL };
static const char *const export_sources[] = { "default", "baseline", "measured", NULL };

static void read_range(struct rd *rd, struct json_object *jr, void *elems, size_t i, size_t n,
		       void *ctx)
{
	const struct policy_op *op = ctx;
	struct policy_range *r = (struct policy_range *)elems + i, *prev = i ? r - 1 : NULL;
	struct json_object *to;
	int tie;

	r->from_bytes = (uint64_t)read_int(rd, jr, "from_bytes", 0, POLICY_MAX_SIZE_BYTES,
					   "a size in bytes", 1, 0);
	to = need(rd, jr, "to_bytes", json_type_int, 1);
	if (!rd->failed) {
		r->to_bytes = to ? (uint64_t)read_int(rd, jr, "to_bytes", 1, POLICY_MAX_SIZE_BYTES,
						      "a size in bytes or null", 1, 0)
				 : POLICY_SIZE_OPEN;
	}
	read_strategy(rd, jr, "strategy", op, r->strategy, true);
	r->tie = read_bool(rd, jr, "tie", &tie) && tie;
	read_word(rd, jr, "family", r->family, sizeof(r->family), families);
	read_word(rd, jr, "baseline", r->baseline, sizeof(r->baseline), baselines);
	if (!rd->failed && r->to_bytes <= r->from_bytes)
		fail(rd, "to_bytes %" PRIu64 " is not above from_bytes %" PRIu64,
		     r->to_bytes, r->from_bytes);
	if (!rd->failed && prev && prev->to_bytes != r->from_bytes)
		fail(rd, "from_bytes %" PRIu64 " does not continue the previous range",
		     r->from_bytes);
	if (!rd->failed && !prev && r->from_bytes != 0)
		fail(rd, "the first range must start at 0");
	if (!rd->failed && i + 1 == n && r->to_bytes != POLICY_SIZE_OPEN)
		fail(rd, "the last range must end at null (no bound)");
	if (!rd->failed && prev && !strcmp(prev->strategy, r->strategy))
		fail(rd, "'%s' continues the previous range: one range per run", r->strategy);
}

static const struct array_of ranges_array = {
	"ranges", POLICY_MAX_SIZES, 1, true, sizeof(struct policy_range), read_range,
	NULL,
};

static void read_crossover(struct rd *rd, struct json_object *jx, void *elems, size_t i,
			   size_t n, void *ctx)
{
	const struct policy_op *op = ctx;
	struct policy_crossover *x = (struct policy_crossover *)elems + i;

	(void)n;
	x->size_bytes = (uint64_t)read_int(rd, jx, "size_bytes", 1, POLICY_MAX_SIZE_BYTES,
					   "a positive size in bytes", 1, 0);
	read_strategy(rd, jx, "below", op, x->below, false);
	read_strategy(rd, jx, "above", op, x->above, false);
	x->confidence = read_double(rd, jx, "confidence", 0, 1, 1, 1);
	read_word(rd, jx, "kind", x->kind, sizeof(x->kind), kinds);
	if (!rd->failed)
		crossover_matches(rd, op, x, i);
}

/* a crossover between each two ranges, and no other */
static void check_crossovers(struct rd *rd, size_t n, void *ctx, size_t mark)
{
	const struct policy_op *op = ctx;

	(void)mark;
	if (n != (op->nranges ? op->nranges - 1 : 0))
		fail(rd, "%zu crossovers for %zu ranges: expected one between each two", n,
		     op->nranges);
}

static const struct array_of crossovers_array = {
	"crossovers", POLICY_MAX_SIZES, 1, true, sizeof(struct policy_crossover), read_crossover,
	check_crossovers,
};

static void read_op(struct rd *rd, struct json_object *jo, struct policy_target *t)
{
	char name[POLICY_NAME_MAX] = "", pattern[POLICY_NAME_MAX] = "";
	struct json_object *jsizes, *jcurves;
	struct policy_op *op;
	uint64_t *sizes;
	int64_t threads;
	size_t n, sizes_mark;

	if (!json_object_is_type(jo, json_type_object)) {
		fail(rd, "expected object, got %s", type_name(jo));
		return;
	}
	read_name(rd, jo, "op", name, sizeof(name));
	read_name(rd, jo, "pattern", pattern, sizeof(pattern));
	threads = read_int(rd, jo, "threads", 1, POLICY_MAX_THREADS, "a thread count", 1, 1);
	jsizes = enter_array(rd, jo, "sizes_bytes", POLICY_MAX_SIZES, 1, &n, &sizes_mark);
	if (!jsizes)
		return;
	sizes = alloc_elems(rd, n, sizeof(*sizes), sizes_mark);
	if (!sizes)
		return;
	for (size_t i = 0; i < n && !rd->failed; i++) {
		size_t m2 = push_index(rd, i);
		int64_t x;

		if (!int_value(rd, json_object_array_get_idx(jsizes, i), 1, POLICY_MAX_SIZE_BYTES,
			       &x, "a positive integer"))
			sizes[i] = (uint64_t)x;
		if (!rd->failed && i && sizes[i] <= sizes[i - 1])
			fail(rd, "sizes must be ascending and unique, %" PRIu64 " follows %" PRIu64,
			     sizes[i], sizes[i - 1]);
		pop(rd, m2);
	}
	pop(rd, sizes_mark);
	op = rd->failed ? NULL : policy_target_add_op(t, name, pattern, (unsigned)threads,
						      sizes, n);
	free(sizes);
	if (!op) {
		fail(rd, "out of memory");
		return;
	}
	op->ceiling_mib_s = read_double(rd, jo, "ceiling_mib_s", 0, POLICY_MAX_MIB_S, 1, 0);
	if (member(jo, "concurrency")) {
		struct json_object *cc = need(rd, jo, "concurrency", json_type_object, 0);

		if (cc) {
			size_t mark = push_key(rd, "concurrency");

			op->min_overlap = read_double(rd, cc, "min_overlap", 0, 1, 0, 1);
			op->rejected_samples = (unsigned)read_int(rd, cc, "rejected_samples", 0,
								  POLICY_MAX_SAMPLES,
								  "a sample count", 1, 0);
			pop(rd, mark);
		}
	}
	op->margin = read_double(rd, jo, "margin", 0, 1, 0, 0);
	if (isnan(op->margin))
		op->margin = 0;
	/* derived from sizes_bytes, so only checked */
	read_size_list(rd, jo, "partial_line_sizes_bytes", 1, op, NULL, 0);

	jcurves = need(rd, jo, "curves", json_type_object, 0);
	if (jcurves && json_object_object_length(jcurves) > POLICY_MAX_CURVES) {
		size_t mark = push_key(rd, "curves");

		fail(rd, "%d curves, at most %d allowed", json_object_object_length(jcurves),
		     POLICY_MAX_CURVES);
		pop(rd, mark);
	}
	if (!rd->failed) {
		json_object_object_foreach(jcurves, key, val) {
			size_t mark = push_key(rd, "curves");
			struct policy_curve *c;

			push_key(rd, key);
			if (strlen(key) >= POLICY_NAME_MAX || !valid_ident(key, false)) {
				fail(rd, "not a strategy name (a-z, 0-9, _; at most %d bytes)",
				     POLICY_NAME_MAX - 1);
			} else if (policy_op_find_curve(op, key)) {
				fail(rd, "duplicate strategy");
			} else {
				c = policy_op_add_curve(op, key);
				if (!c)
					fail(rd, "out of memory");
				else
					read_curve(rd, val, c, op);
			}
			pop(rd, mark);
			if (rd->failed)
				break;
		}
	}
	op->ranges = read_array(rd, jo, &ranges_array, op, &op->nranges);
	op->crossovers = read_array(rd, jo, &crossovers_array, op, &op->ncrossovers);
}

#define POLICY_MAX_NODE 4095
#define POLICY_MAX_CPU 65535

static void read_cpu(struct rd *rd, struct json_object *v, void *elems, size_t i, size_t n,
		     void *ctx)
{
	int64_t x = 0;

	(void)n;
	(void)ctx;
	if (!int_value(rd, v, 0, POLICY_MAX_CPU, &x, "a CPU number"))
		((int *)elems)[i] = (int)x;
}

static const struct array_of cpus_used_array = {
	"cpus_used", POLICY_MAX_THREADS, 0, false, sizeof(int), read_cpu, NULL,
};

static void read_saturation_one(struct rd *rd, struct json_object *js,
				struct policy_saturation *s)
{
	struct json_object *th, *mb;
	size_t n, mark;
	bool found = false;

	if (!json_object_is_type(js, json_type_object)) {
		fail(rd, "expected object, got %s", type_name(js));
		return;
	}
	read_str(rd, js, "strategy", s->strategy, sizeof(s->strategy), 0);
	if (s->strategy[0] && !valid_ident(s->strategy, false)) {
		mark = push_key(rd, "strategy");
		fail(rd, "not a strategy name");
		pop(rd, mark);
	}
	s->size_bytes = (uint64_t)read_int(rd, js, "size_bytes", 0, POLICY_MAX_SIZE_BYTES,
					   "a size in bytes", 1, 0);
	th = need_array(rd, js, "threads", POLICY_SATURATION_STEPS, 1);
	if (!th)
		return;
	n = json_object_array_length(th);
	mark = push_key(rd, "threads");
	if (!n)
		fail(rd, "must not be empty");
	for (size_t i = 0; i < n && !rd->failed; i++) {
		size_t m2 = push_index(rd, i);
		int64_t x;

		if (!int_value(rd, json_object_array_get_idx(th, i), 1, POLICY_MAX_THREADS, &x,
			       "a thread count")) {
			if (i && (unsigned)x <= s->threads[i - 1])
				fail(rd, "thread counts must ascend");
			s->threads[i] = (unsigned)x;
		}
		pop(rd, m2);
	}
	pop(rd, mark);
	s->nsteps = n;
	mb = need_array(rd, js, "mib_s", POLICY_SATURATION_STEPS, 1);
	if (!mb)
		return;
	mark = push_key(rd, "mib_s");
	if (json_object_array_length(mb) != n)
		fail(rd, "has %zu elements, threads has %zu", json_object_array_length(mb), n);
	for (size_t i = 0; i < n && !rd->failed; i++) {
		size_t m2 = push_index(rd, i);

		double_value(rd, json_object_array_get_idx(mb, i), 0, POLICY_MAX_MIB_S,
			     &s->mib_s[i], 1);
		pop(rd, m2);
	}
	pop(rd, mark);
	s->saturates_at = (unsigned)read_int(rd, js, "saturates_at", 1, POLICY_MAX_THREADS,
					     "a thread count", 1, 1);
	for (size_t i = 0; i < n; i++)
		found |= s->threads[i] == s->saturates_at;
	if (!rd->failed && !found) {
		mark = push_key(rd, "saturates_at");
		fail(rd, "not one of the thread counts");
		pop(rd, mark);
	}
	s->present = !rd->failed;
}

static void read_saturation(struct rd *rd, struct json_object *jt, struct policy_target *t)
{
	size_t mark;
	struct json_object *o = enter_object_member(rd, jt, "saturation", &mark);

	if (!o)
		return;
	json_object_object_foreach(o, key, val) {
		int f = policy_family_of(key);
		size_t m2 = push_key(rd, key);

		if (f < 0)
			fail(rd, "not a strategy family (streaming, cached_flush, fill)");
		else
			read_saturation_one(rd, val, &t->saturation[f]);
		pop(rd, m2);
		if (rd->failed)
			break;
	}
	pop(rd, mark);
}

static void read_remote_cell(struct rd *rd, struct json_object *jc, void *elems, size_t i,
			     size_t n, void *ctx)
{
	struct policy_remote_cell *c = (struct policy_remote_cell *)elems + i;

	read_name(rd, jc, "strategy", c->strategy, sizeof(c->strategy));
	read_name(rd, jc, "pattern", c->pattern, sizeof(c->pattern));
	c->size_bytes = (uint64_t)read_int(rd, jc, "size_bytes", 1, POLICY_MAX_SIZE_BYTES,
					   "a size in bytes", 1, 0);
	c->local_mib_s = read_double(rd, jc, "local_mib_s", 0, POLICY_MAX_MIB_S, 1, 1);
	c->remote_mib_s = read_double(rd, jc, "remote_mib_s", 0, POLICY_MAX_MIB_S, 1, 1);
	((struct policy_remote *)ctx)->ncells = i + 1;
}

static const struct array_of remote_cells_array = {
	.key = "cells", .max = POLICY_REMOTE_CELLS, .required = 1, .objects = true,
	.read = read_remote_cell,
};

static void read_remote(struct rd *rd, struct json_object *o, void *dst)
{
	struct policy_remote *r = dst;

	r->from_node = (int)read_int(rd, o, "from_node", 0, POLICY_MAX_NODE, "a NUMA node", 1, -1);
	r->distance = (int)read_int(rd, o, "distance", -1, 255, "a NUMA distance or -1", 0, -1);
	r->ratio = read_double(rd, o, "ratio", 0, 1000, 1, 1);
	read_array_into(rd, o, &remote_cells_array, r->cells, r);
}

static void read_cxl_memdev(struct rd *rd, struct json_object *jm, void *elems, size_t i,
			    size_t n, void *ctx)
{
	struct policy_cxl_memdev *m = (struct policy_cxl_memdev *)elems + i;

	for (size_t k = 0; k < ARRAY_SIZE(cxl_memdev_texts); k++) {
		char *dst = (char *)m + cxl_memdev_texts[k].off;
		size_t len = k == 0 || k == ARRAY_SIZE(cxl_memdev_texts) - 1 ?
			     POLICY_NAME_MAX : sizeof(m->pci_vendor);

		read_str(rd, jm, cxl_memdev_texts[k].name, dst, len, 0);
	}
	m->depth = (unsigned)read_int(rd, jm, "depth", 0, 64, "a port depth", 0, 0);
	((struct policy_cxl *)ctx)->nmemdevs = i + 1;
}

static const struct array_of cxl_memdevs_array = {
	.key = "memdevs", .max = POLICY_MAX_CXL_MEMDEVS, .required = 0, .objects = true,
	.read = read_cxl_memdev,
};

static void read_cxl(struct rd *rd, struct json_object *o, void *dst)
{
	struct policy_cxl *c = dst;

	read_name(rd, o, "region", c->region, sizeof(c->region));
	c->interleave_ways = (unsigned)read_int(rd, o, "interleave_ways", 0, 1024,
						"an interleave count", 0, 0);
	c->interleave_granularity = (unsigned)read_int(rd, o, "interleave_granularity", 0,
						       1 << 30, "a granularity in bytes", 0, 0);
	c->host_bridges = (unsigned)read_int(rd, o, "host_bridges", 0, 1024,
					     "a host bridge count", 0, 0);
	read_array_into(rd, o, &cxl_memdevs_array, c->memdevs, c);
}

static void read_placement(struct rd *rd, struct json_object *jt, struct policy_target *t)
{
	static const char *const placements[] = { "local", "nearest", "caller", "no_numa" };
	bool known = false;

	t->target_node = (int)read_int(rd, jt, "target_node", -1, POLICY_MAX_NODE,
				       "a NUMA node or -1", 0, -1);
	t->probed_from_node = (int)read_int(rd, jt, "probed_from_node", -1, POLICY_MAX_NODE,
					    "a NUMA node or -1", 0, -1);
	read_str(rd, jt, "placement", t->placement, sizeof(t->placement), 0);
	for (size_t i = 0; i < sizeof(placements) / sizeof(placements[0]); i++)
		known |= !strcmp(t->placement, placements[i]);
	if (!rd->failed && t->placement[0] && !known) {
		size_t mark = push_key(rd, "placement");

		fail(rd, "expected local, nearest, caller or no_numa");
		pop(rd, mark);
	}
	t->cpus_used = read_array(rd, jt, &cpus_used_array, NULL, &t->ncpus_used);
	if (!read_bool(rd, jt, "memory_bound", &t->memory_bound))
		t->memory_bound = -1;
	read_saturation(rd, jt, t);
	read_object_member(rd, jt, "remote_penalty", read_remote, &t->remote_penalty,
			   &t->remote_penalty.present);
}

static void read_dimm(struct rd *rd, struct json_object *jd, void *elems, size_t i, size_t n,
		      void *ctx)
{
	struct policy_dimm *d = (struct policy_dimm *)elems + i;

	(void)n;
	(void)ctx;
	read_str(rd, jd, "name", d->name, sizeof(d->name), 0);
	read_str(rd, jd, "vendor", d->vendor, sizeof(d->vendor), 0);
	read_str(rd, jd, "device", d->device, sizeof(d->device), 0);
	read_str(rd, jd, "firmware", d->firmware, sizeof(d->firmware), 0);
}

static const struct array_of dimms_array = {
	"dimms", POLICY_MAX_DIMMS, 0, true, sizeof(struct policy_dimm), read_dimm, NULL,
};

static void read_target(struct rd *rd, struct json_object *jt, struct policy *p)
{
	struct json_object *ops;
	struct policy_target *t;
	char name[POLICY_NAME_MAX] = "";

	if (!json_object_is_type(jt, json_type_object)) {
		fail(rd, "expected object, got %s", type_name(jt));
		return;
	}
	if (read_name(rd, jt, "name", name, sizeof(name)))
		return;
	if (policy_find_target(p, name)) {
		size_t mark = push_key(rd, "name");

		fail(rd, "duplicate target name '%s'", name);
		pop(rd, mark);
		return;
	}
	t = policy_add_target(p, name);
	if (!t) {
		fail(rd, "out of memory");
		return;
	}
	read_name(rd, jt, "kind", t->kind, sizeof(t->kind));
	read_str(rd, jt, "device", t->device, sizeof(t->device), 0);
	read_str(rd, jt, "mapping", t->mapping, sizeof(t->mapping), 0);
	read_str(rd, jt, "persistence_domain", t->persistence_domain,
		 sizeof(t->persistence_domain), 0);
	t->numa_node = (int)read_int(rd, jt, "numa_node", -1, POLICY_MAX_NODE, "a NUMA node or -1",
				     0, -1);
	read_placement(rd, jt, t);
	t->interleave_ways = (unsigned)read_int(rd, jt, "interleave_ways", 0, 1024,
						"an interleave count", 0, 0);
	t->area_bytes = (uint64_t)read_int(rd, jt, "area_bytes", 0, POLICY_MAX_SIZE_BYTES,
					   "a size in bytes", 0, 0);
	t->ceiling_mib_s = read_double(rd, jt, "ceiling_mib_s", 0, POLICY_MAX_MIB_S, 1, 0);
	t->dimms = read_array(rd, jt, &dimms_array, NULL, &t->ndimms);
	read_object_member(rd, jt, "cxl", read_cxl, &t->cxl, &t->cxl.present);
	ops = need_array(rd, jt, "ops", POLICY_MAX_OPS, 1);
	if (!ops)
		return;
	for (size_t i = 0; i < json_object_array_length(ops) && !rd->failed; i++) {
		size_t mark = push_key(rd, "ops");

		push_index(rd, i);
		read_op(rd, json_object_array_get_idx(ops, i), t);
		pop(rd, mark);
	}
}

static const char *final_name(enum export_consumer c, const char *key);

static bool kv_duplicate(enum export_consumer c, const struct policy_export *e, const char *key)
{
	for (size_t i = 0; i < e->nkv; i++)
		if (!strcmp(final_name(c, e->kv[i].key), final_name(c, key)))
			return true;
	return false;
}

/* The name a consumer finally sees: glibc's tunables may be written without "glibc.". */
static const char *final_name(enum export_consumer c, const char *key)
{
	const struct export_key *k = export_key_find_kv(c, key);

	return k ? k->key : key;
}

static void read_kv(struct rd *rd, struct json_object *je, const char *key, enum export_consumer c,
		    struct policy_export *e)
{
	struct json_object *obj = need(rd, je, key, json_type_object, 0);
	size_t mark;

	if (!obj)
		return;
	mark = push_key(rd, key);
	json_object_object_foreach(obj, k, v) {
		size_t m2 = push_key(rd, k);

		if (e->nkv == POLICY_EXPORT_KV_MAX)
			fail(rd, "more than %d entries", POLICY_EXPORT_KV_MAX);
		else if (strlen(k) >= POLICY_NAME_MAX || !valid_ident(k, true))
			fail(rd, "not a variable or tunable name (A-Z, a-z, 0-9, '_', '.'; "
			     "at most %d bytes)", POLICY_NAME_MAX - 1);
		else if (!v || !json_object_is_type(v, json_type_string))
			fail(rd, "expected string, got %s", type_name(v));
		else if (check_text(rd, v, POLICY_NAME_MAX))
			;	/* said */
		else if (strpbrk(json_object_get_string(v), "\"'\\$`;:="))
			/* values reach environment files: no quoting games */
			fail(rd, "value contains a character not allowed in a knob value");
		else if (kv_duplicate(c, e, k))
			/* the consumer would see one name twice: which value wins is luck */
			fail(rd, "names %s, as an earlier entry does", final_name(c, k));
		else {
			snprintf(e->kv[e->nkv].key, POLICY_NAME_MAX, "%s", k);
			snprintf(e->kv[e->nkv].value, POLICY_NAME_MAX, "%s",
				 json_object_get_string(v));
			e->nkv++;
		}
		pop(rd, m2);
		if (rd->failed)
			break;
	}
	pop(rd, mark);
}

static void read_exports(struct rd *rd, struct json_object *root, struct policy *p)
{
	struct json_object *jx, *je;
	size_t mark;

	/* a policy without exports is valid: no consumer gets a value */
	jx = enter_object_member(rd, root, "exports", &mark);
	if (!jx)
		return;
	for (int c = 0; c < EXPORT_NCONSUMERS; c++) {
		const struct export_consumer_info *ci = export_consumer(c);
		struct policy_export *e = export_slot(&p->exports, c);
		struct json_object *v;
		size_t m2;

		je = member(jx, ci->name);
		if (!je)
			continue;
		m2 = push_key(rd, ci->name);
		e->present = true;
		read_str(rd, je, "target", e->target, POLICY_NAME_MAX, 1);
		if (ci->kv_object) {
			read_kv(rd, je, ci->kv_object, c, e);
		} else {
			v = need(rd, je, ci->threshold, json_type_int, 1);
			if (!rd->failed)
				e->threshold_bytes =
					v ? (uint64_t)read_int(rd, je, ci->threshold, 0,
							       POLICY_MAX_SIZE_BYTES,
							       "a size in bytes or null", 1, 0)
					  : POLICY_SIZE_OPEN;
		}
		e->regret = read_double(rd, je, "regret", 0, 1e3, 1, 0);
		read_word(rd, je, "source", e->source, sizeof(e->source), export_sources);
		e->margin = read_double(rd, je, "margin", 0, 1, 0, 0);
		if (isnan(e->margin))
			e->margin = 0;
		read_word(rd, je, "baseline", e->baseline, sizeof(e->baseline), baselines);
		pop(rd, m2);
	}
	pop(rd, mark);
}

static bool valid_fingerprint(const char *s)
{
	if (strncmp(s, "sha256:", 7) || strlen(s) != 7 + 64)
		return false;
	for (s += 7; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

static void read_platform(struct rd *rd, struct json_object *root, struct policy *p)
{
	struct json_object *jp = need(rd, root, "platform", json_type_object, 0), *jc, *feat;
	struct policy_cpu *c = &p->platform.cpu;
	size_t mark;

	if (!jp)
		return;
	mark = push_key(rd, "platform");
	read_str(rd, jp, "fingerprint", p->platform.fingerprint,
		 sizeof(p->platform.fingerprint), 1);
	if (!rd->failed && !valid_fingerprint(p->platform.fingerprint)) {
		size_t m2 = push_key(rd, "fingerprint");

		fail(rd, "expected \"sha256:\" and 64 lower-case hex digits");
		pop(rd, m2);
	}
	read_str(rd, jp, "kernel", p->platform.kernel, sizeof(p->platform.kernel), 0);
	jc = need(rd, jp, "cpu", json_type_object, 0);
	if (jc) {
		size_t m2 = push_key(rd, "cpu");

		read_str(rd, jc, "vendor", c->vendor, sizeof(c->vendor), 1);
		c->family = (unsigned)read_int(rd, jc, "family", 0, 0xfff, "a CPU family", 1, 0);
		c->model = (unsigned)read_int(rd, jc, "model", 0, 0xfff, "a CPU model", 1, 0);
		c->stepping = (unsigned)read_int(rd, jc, "stepping", 0, 0xff, "a stepping", 1, 0);
		read_str(rd, jc, "microcode", c->microcode, sizeof(c->microcode), 0);
		c->llc_bytes = (uint64_t)read_int(rd, jc, "llc_bytes", 0, POLICY_MAX_SIZE_BYTES,
						  "a size in bytes", 0, 0);
		feat = need_array(rd, jc, "features", POLICY_MAX_FEATURES, 0);
		for (size_t i = 0; feat && i < json_object_array_length(feat) && !rd->failed; i++) {
			struct json_object *f = json_object_array_get_idx(feat, i);
			size_t m3 = push_key(rd, "features");

			push_index(rd, i);
			if (!f || !json_object_is_type(f, json_type_string) ||
			    json_object_get_string_len(f) >= POLICY_NAME_MAX ||
			    strlen(json_object_get_string(f)) !=
				    (size_t)json_object_get_string_len(f) ||
			    !valid_ident(json_object_get_string(f), false))
				fail(rd, "expected a CPU feature name (a-z, 0-9, '_'), got %s",
				     type_name(f));
			else if (policy_cpu_add_feature(c, json_object_get_string(f)))
				fail(rd, "out of memory");
			pop(rd, m3);
		}
		pop(rd, m2);
	}
	pop(rd, mark);
}

static int cmp_host_id(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * merged.host_ids: one valid id per host, none twice.  Optional (files
 * from before it); kept sorted, so the output is deterministic.
 */
static void read_host_ids(struct rd *rd, struct json_object *jm, struct policy *p)
{
	struct json_object *arr = need_array(rd, jm, "host_ids", POLICY_MAX_HOST_IDS, 0);
	size_t n, mark;

	if (!arr)
		return;
	mark = push_key(rd, "host_ids");
	n = json_object_array_length(arr);
	if (n != p->merged.hosts) {
		fail(rd, "has %zu ids, hosts is %u", n, p->merged.hosts);
		goto out;
	}
	p->merged.host_ids = calloc(n, sizeof(*p->merged.host_ids));
	if (!p->merged.host_ids) {
		fail(rd, "out of memory");
		goto out;
	}
	p->merged.nhost_ids = n;
	for (size_t i = 0; i < n && !rd->failed; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);
		size_t m2 = push_index(rd, i);
		char buf[64];

		if (!v || !json_object_is_type(v, json_type_string) ||
		    json_object_get_string_len(v) != 7 + 64 ||
		    !valid_fingerprint(json_object_get_string(v)))
			fail(rd, "expected \"sha256:\" and 64 lower-case hex digits, got %s",
			     shown(v, buf, sizeof(buf)));
		else
			snprintf(p->merged.host_ids[i], sizeof(p->merged.host_ids[i]), "%s",
				 json_object_get_string(v));
		pop(rd, m2);
	}
	if (rd->failed)
		goto out;
	qsort(p->merged.host_ids, n, sizeof(*p->merged.host_ids), cmp_host_id);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(p->merged.host_ids[i - 1], p->merged.host_ids[i])) {
			fail(rd, "%s is there twice; each host counts once", p->merged.host_ids[i]);
			break;
		}
out:
	pop(rd, mark);
}

/*
 * merged.kernels, merged.microcodes: distinct non-empty strings of at
 * most maxlen - 1 bytes each.  Optional (files from before them, or an
 * entry of more values than a file lists); kept sorted.
 */
static void read_env_values(struct rd *rd, struct json_object *jm, const char *key,
			    struct policy_env_values *l, size_t maxlen)
{
	struct json_object *arr = need_array(rd, jm, key, POLICY_MAX_ENV_VALUES, 0);
	size_t n, mark;

	if (!arr)
		return;
	mark = push_key(rd, key);
	n = json_object_array_length(arr);
	l->v = calloc(n ? n : 1, sizeof(*l->v));
	if (!l->v) {
		fail(rd, "out of memory");
		goto out;
	}
	l->n = n;
	for (size_t i = 0; i < n && !rd->failed; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);
		size_t m2 = push_index(rd, i);
		char buf[64];

		if (!v || !json_object_is_type(v, json_type_string) ||
		    !json_object_get_string_len(v))
			fail(rd, "expected a non-empty string, got %s", shown(v, buf, sizeof(buf)));
		else if (check_text(rd, v, maxlen) == 0)
			snprintf(l->v[i], sizeof(l->v[i]), "%s", json_object_get_string(v));
		pop(rd, m2);
	}
	if (rd->failed)
		goto out;
	qsort(l->v, n, sizeof(*l->v), cmp_host_id);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(l->v[i - 1], l->v[i])) {
			fail(rd, "'%s' is there twice", l->v[i]);
			break;
		}
out:
	pop(rd, mark);
}

static void read_merged(struct rd *rd, struct json_object *root, struct policy *p)
{
	struct json_object *jm;
	size_t mark;

	if (!member(root, "merged"))
		return;
	jm = need(rd, root, "merged", json_type_object, 0);
	if (!jm)
		return;
	mark = push_key(rd, "merged");
	p->merged.hosts = (unsigned)read_int(rd, jm, "hosts", 1, POLICY_MAX_HOSTS, "a host count",
					     1, 0);
	read_str(rd, jm, "created_first", p->merged.created_first,
		 sizeof(p->merged.created_first), 0);
	read_str(rd, jm, "created_last", p->merged.created_last,
		 sizeof(p->merged.created_last), 0);
	read_host_ids(rd, jm, p);
	read_env_values(rd, jm, "kernels", &p->merged.kernels, sizeof(p->platform.kernel));
	read_env_values(rd, jm, "microcodes", &p->merged.microcodes,
			sizeof(p->platform.cpu.microcode));
	pop(rd, mark);
}

static void read_generator(struct rd *rd, struct json_object *root, struct policy *p)
{
	struct json_object *jg = member(root, "generator");
	size_t mark;

	if (!jg)
		return;
	jg = need(rd, root, "generator", json_type_object, 0);
	if (!jg)
		return;
	mark = push_key(rd, "generator");
	read_str(rd, jg, "name", p->generator.name, sizeof(p->generator.name), 0);
	read_str(rd, jg, "version", p->generator.version, sizeof(p->generator.version), 0);
	read_str(rd, jg, "created", p->generator.created, sizeof(p->generator.created), 0);
	read_str(rd, jg, "mode", p->generator.mode, sizeof(p->generator.mode), 0);
	p->generator.duration_s = read_double(rd, jg, "duration_s", 0, 1e7, 1, 0);
	read_str(rd, jg, "host_id", p->generator.host_id, sizeof(p->generator.host_id), 0);
	if (!rd->failed && p->generator.host_id[0] && !valid_fingerprint(p->generator.host_id)) {
		size_t m2 = push_key(rd, "host_id");

		fail(rd, "expected \"sha256:\" and 64 lower-case hex digits");
		pop(rd, m2);
	}
	pop(rd, mark);
}

/* "pmem-policy/1" or "pmem-policy/1.N": major 1 only. */
static int schema_major(const char *s)
{
	const char *pre = "pmem-policy/";
	char *end;
	long major;

	if (strncmp(s, pre, strlen(pre)))
		return -1;
	s += strlen(pre);
	if (*s < '0' || *s > '9')
		return -1;
	major = strtol(s, &end, 10);
	if (*end && *end != '.')
		return -1;
	return major > 1000 ? -1 : (int)major;
}

struct policy *policy_from_json(struct json_object *root, char *err, size_t errlen)
{
	return policy_from_json_at(root, "", err, errlen);
}

struct policy *policy_from_json_at(struct json_object *root, const char *path, char *err,
				   size_t errlen)
{
	struct rd rd = { .err = err, .errlen = errlen };
	struct json_object *targets;
	struct policy *p;
	char schema[32] = "";

	snprintf(rd.path, sizeof(rd.path), "%s", path);
	if (!json_object_is_type(root, json_type_object)) {
		fail(&rd, "expected a JSON object, got %s", type_name(root));
		errno = EINVAL;
		return NULL;
	}
	p = policy_new();
	if (!p) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	read_str(&rd, root, "schema", schema, sizeof(schema), 1);
	if (!rd.failed && schema_major(schema) != POLICY_SCHEMA_MAJOR) {
		size_t mark = push_key(&rd, "schema");

		fail(&rd, "unsupported schema '%s' (this reader knows %s)", schema, POLICY_SCHEMA);
		pop(&rd, mark);
	}
	if (!rd.failed)
		snprintf(p->schema, sizeof(p->schema), "%s", schema);
	read_generator(&rd, root, p);
	read_merged(&rd, root, p);
	read_platform(&rd, root, p);
	targets = need_array(&rd, root, "targets", POLICY_MAX_TARGETS, 1);
	for (size_t i = 0; targets && i < json_object_array_length(targets) && !rd.failed; i++) {
		size_t mark = push_key(&rd, "targets");

		push_index(&rd, i);
		read_target(&rd, json_object_array_get_idx(targets, i), p);
		pop(&rd, mark);
	}
	read_exports(&rd, root, p);
	if (rd.failed) {
		policy_free(p);
		errno = EINVAL;
		return NULL;
	}
	return p;
}

int policy_text_check(const char *text, size_t len, struct policy_scan_info *info, char *err,
		      size_t errlen)
{
	if (len > POLICY_MAX_FILE_BYTES) {
		snprintf(err, errlen, "%zu bytes, larger than the %lld bytes a policy may have",
			 len, POLICY_MAX_FILE_BYTES);
		return -EFBIG;
	}
	if (memchr(text, '\0', len)) {
		snprintf(err, errlen, "contains a NUL byte: not a JSON text");
		return -EINVAL;
	}
	/* bounds and encoding first: json-c allocates every value it reads */
	return policy_scan(text, len, info, err, errlen);
}

/* json-c's tree of text[off, off + len), nested at most depth deep. */
static struct json_object *tokenize(const char *text, size_t off, size_t len, int depth,
				    char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *root;
	enum json_tokener_error e;
	size_t end;

	tok = json_tokener_new_ex(depth);
	if (!tok) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	/* strict JSON, and only valid UTF-8: names reach logs and terminals */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, text + off, (int)len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	/* trailing white space after the document is fine */
	while (root && e == json_tokener_success && end < len && strchr(" \t\r\n", text[off + end]))
		end++;
	if (!root || e != json_tokener_success || end < len) {
		snprintf(err, errlen, "not valid JSON at byte %zu: %s", off + end,
			 e == json_tokener_success ? "trailing data"
			 : e == json_tokener_continue ? "unexpected end of input"
			 : json_tokener_error_desc(e));
		json_object_put(root);
		errno = EINVAL;
		return NULL;
	}
	return root;
}

struct json_object *policy_tokenize_skipping(const char *text, size_t len,
					     const struct policy_span *skip, size_t nskip,
					     char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new_ex(POLICY_MAX_DEPTH);
	struct json_object *root = NULL;
	enum json_tokener_error e = json_tokener_continue;
	size_t from = 0, base = 0, end = 0;

	if (!tok) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	/* fed in pieces: the text between the spans, and a 0 where each span is */
	for (size_t i = 0; i <= nskip && e == json_tokener_continue; i++) {
		size_t to = i < nskip ? skip[i].start : len;

		if (to > from) {
			base = from;
			root = json_tokener_parse_ex(tok, text + from, (int)(to - from));
			e = json_tokener_get_error(tok);
			end = base + json_tokener_get_parse_end(tok);
		}
		if (i < nskip && e == json_tokener_continue) {
			base = skip[i].start;
			root = json_tokener_parse_ex(tok, "0", 1);
			e = json_tokener_get_error(tok);
			end = base;
			from = skip[i].start + skip[i].len;
		}
	}
	json_tokener_free(tok);
	while (root && e == json_tokener_success && end < len && strchr(" \t\r\n", text[end]))
		end++;
	if (!root || e != json_tokener_success || end < len) {
		snprintf(err, errlen, "not valid JSON at byte %zu: %s", end,
			 e == json_tokener_success ? "trailing data"
			 : e == json_tokener_continue ? "unexpected end of input"
			 : json_tokener_error_desc(e));
		json_object_put(root);
		errno = EINVAL;
		return NULL;
	}
	return root;
}

struct json_object *policy_tokenize(const char *text, size_t len, char *err, size_t errlen)
{
	int rc = policy_text_check(text, len, NULL, err, errlen);

	if (rc) {
		errno = -rc;
		return NULL;
	}
	return tokenize(text, 0, len, POLICY_MAX_DEPTH, err, errlen);
}

struct json_object *policy_tokenize_part(const char *text, size_t off, size_t len, int below,
					 char *err, size_t errlen)
{
	return tokenize(text, off, len, POLICY_MAX_DEPTH - below, err, errlen);
}

void *policy_parse_root(struct json_object *root, policy_from_json_fn from_json, char *err,
			size_t errlen)
{
	void *obj;
	int e;

	if (!root)
		return NULL;
	obj = from_json(root, err, errlen);
	/* from_json's errno is the caller's answer, not json_object_put()'s */
	e = errno;
	json_object_put(root);
	errno = e;
	return obj;
}

void *policy_parse_json(const char *text, size_t len, policy_from_json_fn from_json, char *err,
			size_t errlen)
{
	return policy_parse_root(policy_tokenize(text, len, err, errlen), from_json, err, errlen);
}

static void *policy_from_root(struct json_object *root, char *err, size_t errlen)
{
	return policy_from_json(root, err, errlen);
}

struct policy *policy_parse(const char *text, size_t len, char *err, size_t errlen)
{
	return policy_parse_json(text, len, policy_from_root, err, errlen);
}

static void *parse_one(const char *text, size_t len, char *err, size_t errlen)
{
	return policy_parse(text, len, err, errlen);
}

struct policy *policy_load(const char *path, char *err, size_t errlen)
{
	return policy_load_with(path, POLICY_LOAD_INSECURE, parse_one, err, errlen);
}
