// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fleet files: one policy, or a bundle of entries with distinct
 * fingerprints from which each host picks its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "policy_internal.h"
#include "policy_limits.h"

struct policy_bundle *policy_bundle_new(void)
{
	return calloc(1, sizeof(struct policy_bundle));
}

void policy_bundle_free(struct policy_bundle *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		policy_free(b->entries[i]);
	free(b->entries);
	free(b);
}

struct policy *policy_bundle_find(const struct policy_bundle *b, const char *fp)
{
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->entries[i]->platform.fingerprint, fp))
			return b->entries[i];
	return NULL;
}

int policy_bundle_add(struct policy_bundle *b, struct policy *p)
{
	struct policy **e;

	if (policy_bundle_find(b, p->platform.fingerprint))
		return -EEXIST;
	e = realloc(b->entries, (b->n + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	b->entries = e;
	b->entries[b->n++] = p;
	return 0;
}

static struct policy_bundle *bundle_from_json(struct json_object *root, char *err, size_t errlen)
{
	struct policy_bundle *b = policy_bundle_new();
	struct json_object *arr, *schema;
	char path[64];
	size_t n;

	if (!b) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	if (!json_object_object_get_ex(root, "bundle", &arr)) {
		struct policy *p = policy_from_json(root, err, errlen);

		if (!p || policy_bundle_add(b, p)) {
			policy_free(p);
			goto fail;
		}
		return b;
	}
	if (!json_object_object_get_ex(root, "schema", &schema) ||
	    !json_object_is_type(schema, json_type_string) ||
	    strncmp(json_object_get_string(schema), "pmem-policy/1", 13) ||
	    (json_object_get_string(schema)[13] && json_object_get_string(schema)[13] != '.')) {
		snprintf(err, errlen, "schema: a bundle needs \"schema\": \"%s\"", POLICY_SCHEMA);
		goto fail;
	}
	if (!json_object_is_type(arr, json_type_array)) {
		snprintf(err, errlen, "bundle: expected array");
		goto fail;
	}
	n = json_object_array_length(arr);
	if (n == 0 || n > POLICY_MAX_BUNDLE) {
		snprintf(err, errlen, "bundle: %zu entries, expected 1 to %d", n, POLICY_MAX_BUNDLE);
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		struct policy *p;

		snprintf(path, sizeof(path), "bundle[%zu]", i);
		p = policy_from_json_at(json_object_array_get_idx(arr, i), path, err, errlen);
		if (!p)
			goto fail;
		if (policy_bundle_add(b, p)) {
			snprintf(err, errlen, "%s.platform.fingerprint: '%s' appears twice", path,
				 p->platform.fingerprint);
			policy_free(p);
			goto fail;
		}
	}
	return b;
fail:
	policy_bundle_free(b);
	errno = EINVAL;
	return NULL;
}

static void *bundle_from_root(struct json_object *root, char *err, size_t errlen)
{
	if (!json_object_is_type(root, json_type_object)) {
		snprintf(err, errlen, "(top level): expected a JSON object");
		errno = EINVAL;
		return NULL;
	}
	return bundle_from_json(root, err, errlen);
}

struct policy_bundle *policy_bundle_parse(const char *text, size_t len, char *err, size_t errlen)
{
	return policy_parse_json(text, len, bundle_from_root, err, errlen);
}

static void *parse_bundle(const char *text, size_t len, char *err, size_t errlen)
{
	return policy_bundle_parse(text, len, err, errlen);
}

struct policy_bundle *policy_bundle_load(const char *path, unsigned flags, char *err,
					 size_t errlen)
{
	return policy_load_with(path, flags, parse_bundle, err, errlen);
}

char *policy_bundle_to_string(const struct policy_bundle *b)
{
	struct json_object *root, *arr;

	if (b->n == 1)
		return policy_to_string(b->entries[0]);
	root = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(root, "schema", json_object_new_string(POLICY_SCHEMA));
	for (size_t i = 0; i < b->n; i++)
		json_object_array_add(arr, policy_to_json(b->entries[i]));
	json_object_object_add(root, "bundle", arr);
	return policy_json_text(root);
}

int policy_bundle_save(const struct policy_bundle *b, const char *path)
{
	return policy_save_text(policy_bundle_to_string(b), path);
}

struct policy *policy_dup(const struct policy *p)
{
	char err[256], *s = policy_to_string(p);
	struct policy *q;

	/*
	 * Through the JSON form: the one serialisation every field already
	 * has, and the fuzzer proves it round-trips.  Numbers are rounded to
	 * the file's precision, as any reader of the file sees them.
	 */
	if (!s)
		return NULL;
	q = policy_parse(s, strlen(s), err, sizeof(err));
	free(s);
	return q;
}
