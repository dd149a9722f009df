// SPDX-License-Identifier: GPL-2.0-or-later
/* pmem-tune --diff, --merge: policies as fleets use them. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "cli/commands.h"
#include "cli/json_out.h"
#include "policy/policy.h"
#include "rule/export.h"
#include "rule/fleet.h"

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
			json_out(stdout, o);
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

/* The paths --merge reads, in order; each a copy the list owns. */
struct inputs {
	char **path;
	size_t n, cap;
	dev_t out_dev;		/* OUT, when it exists: never read from a directory */
	ino_t out_ino;
	bool out_exists;
};

static int inputs_add(struct inputs *in, const char *path)
{
	if (in->n == in->cap) {
		size_t cap = in->cap ? 2 * in->cap : 64;
		char **p = realloc(in->path, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		in->path = p;
		in->cap = cap;
	}
	in->path[in->n] = strdup(path);
	return in->path[in->n] ? (in->n++, 0) : -ENOMEM;
}

static void inputs_free(struct inputs *in)
{
	for (size_t i = 0; i < in->n; i++)
		free(in->path[i]);
	free(in->path);
}

/* scandir()'s entries by their names' bytes (alphasort() follows the locale) */
static int cmp_name(const void *a, const void *b)
{
	const struct dirent *const *x = a, *const *y = b;

	return strcmp((*x)->d_name, (*y)->d_name);
}

/*
 * A directory's *.json, in byte order of their names: not hidden ones
 * (as a glob), not a directory (not its subdirectories' either), not OUT
 * (a merge into the directory it reads must not read its last output
 * again).  Anything else named so is read, and refused if no policy.
 */
static int inputs_add_dir(struct inputs *in, const char *dir)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, NULL), rc = 0;

	if (n < 0) {
		rc = -errno;
		fprintf(stderr, "pmem-tune: --merge: %s: %s\n", dir, strerror(errno));
		return rc;
	}
	qsort(names, (size_t)n, sizeof(*names), cmp_name);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		char *path = NULL;
		struct stat st;

		if (!rc && name[0] != '.' && len > 5 && !strcmp(name + len - 5, ".json")) {
			if (asprintf(&path, "%s/%s", dir, name) < 0)
				rc = -ENOMEM;
			else if (stat(path, &st) || !(S_ISDIR(st.st_mode) || (in->out_exists &&
				 st.st_dev == in->out_dev && st.st_ino == in->out_ino)))
				rc = inputs_add(in, path);
			free(path);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

/* A file, or a directory's *.json. */
static int inputs_add_any(struct inputs *in, const char *path)
{
	struct stat st;

	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return inputs_add_dir(in, path);
	return inputs_add(in, path);
}

/* --from-list FILE ("-": standard input): one path per line, blank lines skipped. */
static int inputs_add_list(struct inputs *in, const char *list)
{
	FILE *f = strcmp(list, "-") ? fopen(list, "re") : stdin;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	if (!f) {
		rc = -errno;
		fprintf(stderr, "pmem-tune: --from-list %s: %s\n", list, strerror(errno));
		return rc;
	}
	while (!rc && (len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (strlen(line) != (size_t)len) {
			fprintf(stderr, "pmem-tune: --from-list %s: a NUL byte in a line\n", list);
			rc = -EINVAL;
		} else if (len) {
			rc = inputs_add_any(in, line);
		}
	}
	if (!rc && ferror(f)) {
		rc = -EIO;
		fprintf(stderr, "pmem-tune: --from-list %s: %s\n", list, strerror(EIO));
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}

/*
 * An entry that says it merged hosts but names none counts as one host:
 * say so, once per entry, rather than let the count drop unexplained.
 */
static void warn_unnamed(const char *path, const struct policy_bundle *b)
{
	for (size_t e = 0; e < b->n; e++) {
		const struct policy *p = b->entries[e];

		if (p->merged.hosts > 1 && !p->merged.nhost_ids)
			fprintf(stderr, "pmem-tune: --merge: %s: %s says it holds %u hosts but "
				"lists no host_ids: counted as one\n", path,
				p->platform.fingerprint, p->merged.hosts);
	}
}

int merge_cmd(const char *out, char **in, int nin, const char *list, const char *weights,
	      unsigned flags)
{
	struct inputs inp = { 0 };
	struct policy_bundle **b = NULL, *m = NULL;
	struct export_weights w = { 0 };
	char err[600];
	struct stat st;
	int status = 2, rc = 0;

	if (!stat(out, &st)) {
		inp.out_exists = true;
		inp.out_dev = st.st_dev;
		inp.out_ino = st.st_ino;
	}
	for (int i = 0; i < nin && !rc; i++)
		rc = inputs_add_any(&inp, in[i]);
	if (!rc && list)
		rc = inputs_add_list(&inp, list);
	if (rc == -ENOMEM)
		fprintf(stderr, "pmem-tune: --merge: out of memory\n");
	if (rc)
		goto out;
	if (!inp.n) {
		fprintf(stderr, "pmem-tune: --merge %s: no input files\n", out);
		goto out;
	}
	b = calloc(inp.n, sizeof(*b));
	if (!b) {
		status = 1;
		goto out;
	}
	if (weights && export_weights_load(weights, &w, err, sizeof(err))) {
		fprintf(stderr, "pmem-tune: --weights: %s\n", err);
		goto out;
	}
	for (size_t i = 0; i < inp.n; i++) {
		b[i] = policy_file_load(inp.path[i], flags);
		if (!b[i])
			goto out;
		warn_unnamed(inp.path[i], b[i]);
		/* a fleet file holds no samples: thousands of hosts' would not fit in memory */
		for (size_t e = 0; e < b[i]->n; e++)
			policy_drop_raw(b[i]->entries[e]);
	}
	status = 1;
	rc = policy_merge_named(b, (const char *const *)inp.path, inp.n, weights ? &w : NULL, &m,
				err, sizeof(err));
	if (rc) {
		fprintf(stderr, "pmem-tune: --merge: %s\n", err);
		/* one host twice, or more than a file may hold, is an input error */
		if (rc == -EEXIST || rc == -E2BIG)
			status = 2;
		goto out;
	}
	rc = policy_bundle_save(m, out, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "pmem-tune: %s: cannot write the bundle: %s\n", out, err);
		/* more than a file may hold is the inputs' */
		if (rc == -EFBIG)
			status = 2;
		goto out;
	}
	printf("merged %zu file%s into %s: %zu platform%s\n", inp.n, inp.n == 1 ? "" : "s", out,
	       m->n, m->n == 1 ? "" : "s");
	for (size_t e = 0; e < m->n; e++)
		printf("  %s: %u host%s\n", m->entries[e]->platform.fingerprint,
		       m->entries[e]->merged.hosts ? m->entries[e]->merged.hosts : 1,
		       m->entries[e]->merged.hosts > 1 ? "s" : "");
	status = 0;
out:
	for (size_t i = 0; b && i < inp.n; i++)
		policy_bundle_free(b[i]);
	free(b);
	inputs_free(&inp);
	policy_bundle_free(m);
	export_weights_free(&w);
	return status;
}
