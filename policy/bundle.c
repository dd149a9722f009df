// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fleet files: one policy, or a bundle of entries with distinct
 * fingerprints from which each host picks its own.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "policy/policy_internal.h"
#include "policy/policy_limits.h"

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

/* A bundle's "schema" names version 1 (a minor version after a '.' is fine): 0 or -EINVAL. */
static int bundle_schema_check(struct json_object *root, char *err, size_t errlen)
{
	struct json_object *schema;
	const char *s;

	if (!json_object_object_get_ex(root, "schema", &schema) ||
	    !json_object_is_type(schema, json_type_string) ||
	    strncmp(s = json_object_get_string(schema), "pmem-policy/1", 13) ||
	    (s[13] && s[13] != '.')) {
		snprintf(err, errlen, "schema: a bundle needs \"schema\": \"%s\"", POLICY_SCHEMA);
		return -EINVAL;
	}
	return 0;
}

/* Entry i of a bundle (its tree e) read and added to b: 0, -EINVAL or -ENOMEM, err says why. */
static int bundle_add_entry(struct policy_bundle *b, struct json_object *e, size_t i, char *err,
			    size_t errlen)
{
	char path[64];
	struct policy *p;
	int rc;

	snprintf(path, sizeof(path), "bundle[%zu]", i);
	p = policy_from_json_at(e, path, err, errlen);
	if (!p)
		return -EINVAL;
	rc = policy_bundle_add(b, p);
	if (rc == -EEXIST)
		snprintf(err, errlen, "%s.platform.fingerprint: '%s' appears twice", path,
			 p->platform.fingerprint);
	else if (rc)
		snprintf(err, errlen, "out of memory");
	if (rc) {
		policy_free(p);
		return rc == -EEXIST ? -EINVAL : rc;
	}
	return 0;
}

static struct policy_bundle *bundle_from_json(struct json_object *root, char *err, size_t errlen)
{
	struct policy_bundle *b = policy_bundle_new();
	struct json_object *arr;
	size_t n;

	if (!b) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	if (!json_object_object_get_ex(root, "bundle", &arr)) {
		struct policy *p = policy_from_json(root, err, errlen);

		if (!p || policy_bundle_add(b, p)) {
			if (p)
				snprintf(err, errlen, "out of memory");
			policy_free(p);
			goto fail;
		}
		return b;
	}
	if (bundle_schema_check(root, err, errlen))
		goto fail;
	if (!json_object_is_type(arr, json_type_array)) {
		snprintf(err, errlen, "bundle: expected array");
		goto fail;
	}
	n = json_object_array_length(arr);
	if (n == 0 || n > POLICY_MAX_BUNDLE) {
		snprintf(err, errlen, "bundle: %zu entries, expected 1 to %d", n,
			 POLICY_MAX_BUNDLE);
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		if (bundle_add_entry(b, json_object_array_get_idx(arr, i), i, err, errlen))
			goto fail;
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

/* A bundle read one entry at a time (policy_scan() found where each is). */
static struct policy_bundle *bundle_by_entry(const char *text, size_t len,
					     const struct policy_scan_info *si, char *err,
					     size_t errlen)
{
	/* the bundle's own keys, each entry a 0: json-c holds one entry at a time */
	struct json_object *root = policy_tokenize_skipping(text, len, si->entries, si->nentries,
							    err, errlen);
	struct policy_bundle *b = NULL;
	struct json_object *arr;

	if (!root)
		return NULL;
	if (bundle_schema_check(root, err, errlen))
		goto fail;
	/* the scan found one "bundle" key, an array of exactly these entries */
	if (!json_object_object_get_ex(root, "bundle", &arr) ||
	    !json_object_is_type(arr, json_type_array) ||
	    json_object_array_length(arr) != si->nentries) {
		snprintf(err, errlen, "bundle: expected array");
		goto fail;
	}
	if (si->nentries > POLICY_MAX_BUNDLE) {
		snprintf(err, errlen, "bundle: %zu entries, expected 1 to %d", si->nentries,
			 POLICY_MAX_BUNDLE);
		goto fail;
	}
	b = policy_bundle_new();
	if (!b) {
		snprintf(err, errlen, "out of memory");
		json_object_put(root);
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < si->nentries; i++) {
		struct json_object *e = policy_tokenize_part(text, si->entries[i].start,
							     si->entries[i].len, 2, err, errlen);
		int rc;

		if (!e)
			goto fail;
		rc = bundle_add_entry(b, e, i, err, errlen);
		json_object_put(e);
		if (rc)
			goto fail;
	}
	json_object_put(root);
	return b;
fail:
	json_object_put(root);
	policy_bundle_free(b);
	errno = EINVAL;
	return NULL;
}

struct policy_bundle *policy_bundle_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct policy_scan_info si = { 0 };
	struct policy_bundle *b;
	int rc = policy_text_check(text, len, &si, err, errlen), e;

	if (rc) {
		errno = -rc;
		return NULL;
	}
	if (si.nentries) {
		b = bundle_by_entry(text, len, &si, err, errlen);
		e = errno;
		free(si.entries);
		errno = e;
		return b;
	}
	/* a single policy, or text the scan could not take apart: whole, held to one budget */
	return policy_parse_root(policy_tokenize_part(text, 0, len, 0, err, errlen),
				 bundle_from_root, err, errlen);
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

/*
 * A bundle is written an entry at a time, each indented as json-c would
 * indent it inside the bundle (two spaces a level: four more), so that
 * json-c holds one entry's tree at a time, never the whole fleet's.
 */
char *policy_bundle_to_string(const struct policy_bundle *b)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	bool ok;

	if (b->n == 1)
		return policy_to_string(b->entries[0]);
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	ok = fprintf(f, "{\n  \"schema\": \"%s\",\n  \"bundle\": [\n", POLICY_SCHEMA) > 0;
	for (size_t i = 0; ok && i < b->n; i++) {
		char *s = policy_to_string(b->entries[i]), *line, *nl;

		ok = s != NULL;
		/* its text ends in a newline: every line but that indented */
		for (line = s; ok && *line; line = *nl ? nl + 1 : nl) {
			bool last;

			nl = strchrnul(line, '\n');
			last = !*nl || !nl[1];
			ok = fputs("    ", f) >= 0 &&
			     fwrite(line, 1, (size_t)(nl - line), f) == (size_t)(nl - line) &&
			     fputs(i + 1 < b->n && last ? ",\n" : "\n", f) >= 0;
		}
		free(s);
	}
	ok = ok && fputs("  ]\n}\n", f) >= 0;
	if (fclose(f) || !ok) {
		free(out);
		return NULL;
	}
	return out;
}

int policy_bundle_check(const struct policy_bundle *b, char *err, size_t errlen)
{
	struct policy_scan_info si = { 0 };
	char *s = policy_bundle_to_string(b);
	int rc;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = policy_text_check(s, strlen(s), &si, err, errlen);
	free(si.entries);
	free(s);
	return rc;
}

int policy_bundle_save(const struct policy_bundle *b, const char *path, char *err, size_t errlen)
{
	return policy_save_text(policy_bundle_to_string(b), path, err, errlen);
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
