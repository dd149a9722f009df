// SPDX-License-Identifier: GPL-2.0-or-later
/* bench_policy's held-out sweep as JSON, for bench_hindsight. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/sweep_record.h"
#include "common/atomic_file.h"
#include "common/read_file.h"

#define RECORD_MAX_BYTES (16u << 20)
#define RECORD_FORMAT "pmem-tune bench_policy sweep 1"

static json_object *rate(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

static json_object *op_json(const struct sweep_record_op *op)
{
	json_object *o = json_object_new_object(), *names = json_object_new_array(),
		    *cells = json_object_new_array();

	json_object_object_add(o, "pattern", json_object_new_string(op->pattern));
	json_object_object_add(o, "threads", json_object_new_int((int)op->threads));
	for (unsigned j = 0; j < op->ncontenders; j++)
		json_object_array_add(names, json_object_new_string(op->names[j]));
	json_object_object_add(o, "contenders", names);
	json_object_object_add(o, "first_strategy", json_object_new_int((int)op->first_strategy));
	json_object_object_add(o, "strategies", json_object_new_int((int)op->nstrategies));
	for (size_t i = 0; i < op->nsizes; i++) {
		json_object *c = json_object_new_object(), *halves = json_object_new_array();

		json_object_object_add(c, "size_bytes", json_object_new_uint64(op->sizes_bytes[i]));
		json_object_object_add(c, "policy_uses",
				       json_object_new_string(op->policy_uses[i]));
		for (int h = 0; h < 2; h++) {
			json_object *a = json_object_new_array();
			const double *v = sweep_record_half(op, i, h);

			for (unsigned j = 0; j < op->ncontenders; j++)
				json_object_array_add(a, rate(v[j]));
			json_object_array_add(halves, a);
		}
		json_object_object_add(c, "halves_mib_s", halves);
		json_object_array_add(cells, c);
	}
	json_object_object_add(o, "cells", cells);
	return o;
}

int sweep_record_save(const struct sweep_record *r, const char *path)
{
	json_object *root = json_object_new_object(), *ops = json_object_new_array();
	const char *text;
	int rc;

	if (!root || !ops) {
		json_object_put(root);
		json_object_put(ops);
		return -ENOMEM;
	}
	json_object_object_add(root, "format", json_object_new_string(RECORD_FORMAT));
	json_object_object_add(root, "mode", json_object_new_string(r->mode));
	json_object_object_add(root, "policy", json_object_new_string(r->policy));
	for (size_t k = 0; k < r->nops; k++)
		json_object_array_add(ops, op_json(&r->ops[k]));
	json_object_object_add(root, "ops", ops);
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	rc = text ? atomic_write_file(path, text, strlen(text), 0644) : -ENOMEM;
	json_object_put(root);
	return rc;
}

void sweep_record_free(struct sweep_record *r)
{
	if (!r)
		return;
	for (size_t k = 0; k < r->nops; k++) {
		struct sweep_record_op *op = &r->ops[k];

		for (unsigned j = 0; j < op->ncontenders && op->names; j++)
			free(op->names[j]);
		for (size_t i = 0; i < op->nsizes && op->policy_uses; i++)
			free(op->policy_uses[i]);
		free(op->pattern);
		free(op->names);
		free(op->sizes_bytes);
		free(op->policy_uses);
		free(op->halves_mib_s);
	}
	free(r->ops);
	free(r->mode);
	free(r->policy);
	memset(r, 0, sizeof(*r));
}

/* The reader's state: the file, and the first thing wrong with it. */
struct reader {
	const char *path;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int bad(struct reader *rd, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(rd->err, rd->errlen, "%s: %s", rd->path, what);
	return -EINVAL;
}

static json_object *field(json_object *o, const char *key, json_type type)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, type) ? v : NULL;
}

static char *dup_string(json_object *o, const char *key)
{
	json_object *v = field(o, key, json_type_string);

	return v ? strdup(json_object_get_string(v)) : NULL;
}

static int read_op(struct reader *rd, json_object *o, size_t k, struct sweep_record_op *op)
{
	json_object *names = field(o, "contenders", json_type_array),
		    *cells = field(o, "cells", json_type_array),
		    *threads = field(o, "threads", json_type_int),
		    *first = field(o, "first_strategy", json_type_int),
		    *nstrat = field(o, "strategies", json_type_int);

	op->pattern = dup_string(o, "pattern");
	if (!op->pattern || !names || !cells || !threads || !first || !nstrat)
		return bad(rd, "ops[%zu]: pattern, threads, contenders, first_strategy, "
			   "strategies and cells are required", k);
	op->threads = (unsigned)json_object_get_int(threads);
	op->ncontenders = (unsigned)json_object_array_length(names);
	op->first_strategy = (unsigned)json_object_get_int(first);
	op->nstrategies = (unsigned)json_object_get_int(nstrat);
	if (!op->ncontenders || op->first_strategy + op->nstrategies > op->ncontenders ||
	    !op->nstrategies)
		return bad(rd, "ops[%zu]: strategies %u from %u, of %u contenders", k,
			   op->nstrategies, op->first_strategy, op->ncontenders);
	op->nsizes = json_object_array_length(cells);
	op->names = calloc(op->ncontenders, sizeof(*op->names));
	op->sizes_bytes = calloc(op->nsizes ? op->nsizes : 1, sizeof(*op->sizes_bytes));
	op->policy_uses = calloc(op->nsizes ? op->nsizes : 1, sizeof(*op->policy_uses));
	op->halves_mib_s = calloc(op->nsizes * 2 * op->ncontenders + 1,
				  sizeof(*op->halves_mib_s));
	if (!op->names || !op->sizes_bytes || !op->policy_uses || !op->halves_mib_s)
		return -ENOMEM;
	for (unsigned j = 0; j < op->ncontenders; j++) {
		json_object *n = json_object_array_get_idx(names, j);

		if (!json_object_is_type(n, json_type_string))
			return bad(rd, "ops[%zu].contenders[%u]: not a string", k, j);
		op->names[j] = strdup(json_object_get_string(n));
		if (!op->names[j])
			return -ENOMEM;
	}
	for (size_t i = 0; i < op->nsizes; i++) {
		json_object *c = json_object_array_get_idx(cells, i),
			    *size = field(c, "size_bytes", json_type_int),
			    *halves = field(c, "halves_mib_s", json_type_array);

		op->policy_uses[i] = dup_string(c, "policy_uses");
		if (!size || !halves || !op->policy_uses[i] ||
		    json_object_array_length(halves) != 2)
			return bad(rd, "ops[%zu].cells[%zu]: size_bytes, policy_uses and two "
				   "halves_mib_s are required", k, i);
		op->sizes_bytes[i] = json_object_get_uint64(size);
		for (int h = 0; h < 2; h++) {
			json_object *a = json_object_array_get_idx(halves, (size_t)h);
			double *v = sweep_record_half(op, i, h);

			if (!json_object_is_type(a, json_type_array) ||
			    json_object_array_length(a) != op->ncontenders)
				return bad(rd, "ops[%zu].cells[%zu].halves_mib_s[%d]: %u rates "
					   "expected", k, i, h, op->ncontenders);
			for (unsigned j = 0; j < op->ncontenders; j++) {
				json_object *x = json_object_array_get_idx(a, j);

				if (x && !json_object_is_type(x, json_type_double) &&
				    !json_object_is_type(x, json_type_int))
					return bad(rd, "ops[%zu].cells[%zu].halves_mib_s[%d][%u]: "
						   "not a number", k, i, h, j);
				v[j] = x ? json_object_get_double(x) : NAN;
			}
		}
	}
	return 0;
}

int sweep_record_load(const char *path, struct sweep_record *r, char *err, size_t errlen)
{
	struct reader rd = { .path = path, .err = err, .errlen = errlen };
	json_object *root = NULL, *ops, *format;
	char *text = NULL;
	size_t len;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = read_file(path, 0, RECORD_MAX_BYTES, &text, &len);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	root = json_tokener_parse(text);
	free(text);
	format = field(root, "format", json_type_string);
	if (!root || !format || strcmp(json_object_get_string(format), RECORD_FORMAT)) {
		rc = bad(&rd, "not a sweep saved by bench_policy --save-sweep (format \"%s\")",
			 RECORD_FORMAT);
		goto out;
	}
	ops = field(root, "ops", json_type_array);
	r->mode = dup_string(root, "mode");
	r->policy = dup_string(root, "policy");
	if (!ops || !r->mode || !r->policy) {
		rc = bad(&rd, "mode, policy and ops are required");
		goto out;
	}
	r->nops = json_object_array_length(ops);
	r->ops = calloc(r->nops ? r->nops : 1, sizeof(*r->ops));
	if (!r->ops) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < r->nops && !rc; k++)
		rc = read_op(&rd, json_object_array_get_idx(ops, k), k, &r->ops[k]);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
out:
	json_object_put(root);
	if (rc)
		sweep_record_free(r);
	return rc;
}
