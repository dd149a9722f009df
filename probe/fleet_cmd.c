// SPDX-License-Identifier: GPL-2.0-or-later
/* pmem-tune --diff, --merge: policies as fleets use them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"
#include "export.h"
#include "fleet.h"
#include "policy.h"

/* The changes policy_bundle_diff() prints, one string each. */
static struct json_object *diff_json(const char *a, const char *b, const struct policy_bundle *pa,
				     const struct policy_bundle *pb, int *n)
{
	struct json_object *o = json_object_new_object(), *changes = json_object_new_array();
	char *text = NULL, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!o || !changes || !f) {
		if (f)
			fclose(f);
		free(text);
		json_object_put(o);
		json_object_put(changes);
		return NULL;
	}
	*n = policy_bundle_diff(pa, pb, f);
	fclose(f);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		json_object_array_add(changes, json_object_new_string(l));
	free(text);
	json_object_object_add(o, "a", json_object_new_string(a));
	json_object_object_add(o, "b", json_object_new_string(b));
	json_object_object_add(o, "same", json_object_new_boolean(!*n));
	json_object_object_add(o, "changes", changes);
	return o;
}

int diff_cmd(const char *a, const char *b, unsigned flags, bool json)
{
	struct policy_bundle *pa = policy_file_load(a, flags);
	struct policy_bundle *pb = pa ? policy_file_load(b, flags) : NULL;
	struct json_object *o;
	int n = 0;

	if (!pa || !pb) {
		policy_bundle_free(pa);
		return 2;
	}
	if (json) {
		o = diff_json(a, b, pa, pb, &n);
		if (o)
			puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
		else
			n = -1;
		json_object_put(o);
	} else {
		n = policy_bundle_diff(pa, pb, stdout);
		if (!n)
			printf("same: %s and %s make the same decisions and exports\n", a, b);
	}
	policy_bundle_free(pa);
	policy_bundle_free(pb);
	return n ? 1 : 0;
}

int merge_cmd(const char *out, char **in, int nin, const char *weights, unsigned flags)
{
	struct policy_bundle **b = calloc((size_t)nin, sizeof(*b)), *m = NULL;
	struct export_weights w = { 0 };
	char err[600];
	int status = 2, rc;

	if (!b)
		return 1;
	if (weights && export_weights_load(weights, &w, err, sizeof(err))) {
		fprintf(stderr, "pmem-tune: --weights: %s\n", err);
		goto out;
	}
	for (int i = 0; i < nin; i++) {
		b[i] = policy_file_load(in[i], flags);
		if (!b[i])
			goto out;
	}
	status = 1;
	rc = policy_merge_named(b, (const char *const *)in, (size_t)nin, weights ? &w : NULL, &m,
				err, sizeof(err));
	if (rc) {
		fprintf(stderr, "pmem-tune: --merge: %s\n", err);
		/* one host twice is an input error, like an invalid file */
		if (rc == -EEXIST)
			status = 2;
		goto out;
	}
	rc = policy_bundle_save(m, out);
	if (rc) {
		fprintf(stderr, "pmem-tune: %s: cannot write the bundle: %s\n", out, strerror(-rc));
		goto out;
	}
	printf("merged %d file%s into %s: %zu platform%s\n", nin, nin == 1 ? "" : "s", out, m->n,
	       m->n == 1 ? "" : "s");
	for (size_t e = 0; e < m->n; e++)
		printf("  %s: %u host%s\n", m->entries[e]->platform.fingerprint,
		       m->entries[e]->merged.hosts ? m->entries[e]->merged.hosts : 1,
		       m->entries[e]->merged.hosts > 1 ? "s" : "");
	status = 0;
out:
	for (int i = 0; i < nin; i++)
		policy_bundle_free(b[i]);
	free(b);
	policy_bundle_free(m);
	export_weights_free(&w);
	return status;
}
