// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * glibc's memcpy/memmove switch strategies at thresholds it reads from
 * GLIBC_TUNABLES once, at process start: x86_non_temporal_threshold
 * (non-temporal stores above it) and x86_rep_movsb_threshold.
 *
 * An administrator's tunables are never overridden: glibc applies the
 * entries of GLIBC_TUNABLES in order, so appending ours after theirs
 * would silently win.  Ours are added only for names nobody set.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/read_file.h"
#include "common/text.h"
#include "export_keys.h"
#include "log.h"
#include "policy.h"
#include "sanitize.h"
#include "sink.h"
#include "state.h"

#define SINK		"glibc"
#define VAR		"GLIBC_TUNABLES"
#define MAX_TUNABLES	32

struct tunable {
	char name[POLICY_NAME_MAX];
	char value[POLICY_NAME_MAX];
};

struct tunables {
	int n;
	struct tunable t[MAX_TUNABLES];
};

static const struct tunable *find(const struct tunables *ts, const char *name)
{
	int i;

	for (i = 0; i < ts->n; i++)
		if (!strcmp(ts->t[i].name, name))
			return &ts->t[i];
	return NULL;
}

static void add(struct tunables *ts, const char *name, size_t nlen, const char *value,
		size_t vlen)
{
	struct tunable *t;

	if (ts->n == MAX_TUNABLES || nlen >= sizeof(t->name) || vlen >= sizeof(t->value))
		return;
	t = &ts->t[ts->n++];
	memcpy(t->name, name, nlen);
	t->name[nlen] = '\0';
	memcpy(t->value, value, vlen);
	t->value[vlen] = '\0';
}

/* "a=1:b=2" as glibc reads it; anything that is not name=value is skipped. */
static void parse(struct tunables *ts, const char *s)
{
	while (s && *s) {
		const char *end = strchrnul(s, ':');
		const char *eq = memchr(s, '=', end - s);

		if (eq && eq > s)
			add(ts, s, eq - s, eq + 1, end - eq - 1);
		s = *end ? end + 1 : end;
	}
}

static int join(const struct tunables *ts, char *out, size_t len)
{
	size_t o = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < ts->n; i++) {
		int n = snprintf(out + o, len - o, "%s%s=%s", i ? ":" : "",
				 ts->t[i].name, ts->t[i].value);

		if (n < 0 || (size_t)n >= len - o)
			return -ENAMETOOLONG;
		o += n;
	}
	return 0;
}

/* The policy's tunables that glibc will take, normalized to 0x hex. */
static void ours(struct sink_ctx *ctx, struct tunables *ts)
{
	const struct policy *p = ctx->policy;
	const struct policy_export *x = &p->exports.glibc;
	size_t i;

	ts->n = 0;
	if (!x->present)
		return;
	for (i = 0; i < x->nkv && i < POLICY_EXPORT_KV_MAX; i++) {
		const struct policy_kv *kv = &x->kv[i];
		const struct export_key *k;
		char value[32], why[160];
		uint64_t v;
		int r;

		r = export_kv_check(p, EXPORT_GLIBC, kv, &k, &v, why, sizeof(why));
		if (r < 0) {
			/* a target that is not dram is the policy's scope, not a fault */
			log_knob(r == -EPERM ? LOG_NOTICE : LOG_WARNING, SINK, kv->key, kv->value,
				 NULL, "%s: %s=%s: %s; not exported", SINK, kv->key, kv->value,
				 why);
			ctx->stats.refused++;
			continue;
		}
		snprintf(value, sizeof(value), "0x%" PRIx64, v);
		add(ts, k->key, strlen(k->key), value, strlen(value));
	}
}

/* base + the entries of ours whose names base does not set, logging each conflict */
static void merge(const struct tunables *base, const struct tunables *mine,
		  struct tunables *out, struct tunables *added, const char *where)
{
	int i;

	*out = *base;
	added->n = 0;
	for (i = 0; i < mine->n; i++) {
		const struct tunable *t = &mine->t[i], *b = find(base, t->name);

		if (b) {
			if (strcmp(b->value, t->value))
				log_knob(LOG_NOTICE, SINK, t->name, t->value, b->value,
					 "%s: %s: keeping the administrator's %s=%s, policy "
					 "value %s not applied", SINK, where, t->name,
					 b->value, t->value);
			continue;
		}
		add(out, t->name, strlen(t->name), t->value, strlen(t->value));
		add(added, t->name, strlen(t->name), t->value, strlen(t->value));
	}
}

static void scan_file(struct tunables *ts, const char *path)
{
	char *text, *line, *cur;

	if (read_file(path, 0, 1024 * 1024, &text, NULL) < 0)
		return;
	cur = text;
	while ((line = next_line(&cur))) {
		line = strtrim(line);
		if (startswith(line, "export "))
			line = strtrim(line + 7);
		if (!startswith(line, VAR "="))
			continue;
		line += strlen(VAR "=");
		/* /etc/environment may quote; ${...} references carry no names */
		if (*line == '"' || *line == '\'') {
			char q = *line++, *end = strchr(line, q);

			if (end)
				*end = '\0';
		}
		parse(ts, line);
	}
	free(text);
}

static int envd_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".conf");
}

/*
 * Names set for user sessions before our drop-in: /etc/environment
 * (pam_env) and the environment.d files that sort before ours.
 */
static void session_base(struct sink_ctx *ctx, struct tunables *ts)
{
	char dir[PATH_MAX], path[PATH_MAX];
	const char *ours_name = strrchr(PT_ENVD_GLIBC, '/') + 1;
	struct dirent **names;
	int n, i;

	if (etc_path(ctx->opt, "/etc/environment", path, sizeof(path)) == 0)
		scan_file(ts, path);
	if (etc_path(ctx->opt, PT_ENVD_DIR, dir, sizeof(dir)) < 0)
		return;
	n = scandir(dir, &names, envd_filter, alphasort);
	if (n < 0)
		return;
	for (i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ours_name) < 0 &&
		    snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) <
		    (int)sizeof(path))
			scan_file(ts, path);
		free(names[i]);
	}
	free(names);
}

/*
 * The manager's GLIBC_TUNABLES is copied into glibc.env as one unquoted
 * assignment.  systemd's EnvironmentFile= parser gives quotes and
 * backslashes a meaning and a newline starts another assignment, so a
 * value with any of those (or blanks, '$', '`') cannot be carried over
 * unchanged: such a line would set other variables or mangle theirs.
 */
static bool env_file_safe(const char *v)
{
	for (; *v; v++)
		if (!isgraph((unsigned char)*v) || strchr("\"'\\$`", *v))
			return false;
	return true;
}

static int glibc_apply(struct sink_ctx *ctx)
{
	struct tunables mine, base = { 0 }, merged, added, sess = { 0 }, sess_added, tmp;
	char *basestr = NULL, value[2048], content[4096];
	int i, r, ret = 0;

	if (!ctx->policy)
		return 0;
	ours(ctx, &mine);
	if (mine.n == 0)
		return 0;	/* nothing touched: the stale pass restores */

	/* services: the manager's environment as it was before us */
	r = manager_env_base(ctx, SINK, VAR, &basestr);
	if (r == 0)
		parse(&base, basestr);
	merge(&base, &mine, &merged, &added, "services");
	if (added.n > 0 && basestr && !env_file_safe(basestr)) {
		sanitize_line(basestr);
		log_knob(LOG_WARNING, SINK, VAR, NULL, basestr,
			 "%s: the service manager's %s (%s) has characters an environment "
			 "file cannot carry; %s and the manager's %s left alone", SINK, VAR,
			 basestr, PT_GLIBC_ENV, VAR);
		ctx->stats.refused++;
	} else if (added.n > 0 && join(&merged, value, sizeof(value)) == 0) {
		snprintf(content, sizeof(content),
			 PT_FILE_MARKER " from policy %s; removed when it stops.\n"
			 "# Merged with the service manager's " VAR "; setuid programs "
			 "ignore it.\n" VAR "=%s\n", ctx->policy_id, value);
		r = envfile_apply(ctx, SINK, PT_GLIBC_ENV, content);
		if (r < 0)
			ret = r;
		if (!basestr || strcmp(basestr, value)) {
			r = manager_env_apply(ctx, SINK, VAR, value);
			if (r < 0 && ret == 0)
				ret = r;
		}
	}
	free(basestr);

	/*
	 * User sessions: environment.d expands ${VAR} to what came before,
	 * so the drop-in appends; names set there or by the manager stay.
	 */
	session_base(ctx, &sess);
	for (i = 0; i < base.n; i++)
		if (!find(&sess, base.t[i].name))
			add(&sess, base.t[i].name, strlen(base.t[i].name), base.t[i].value,
			    strlen(base.t[i].value));
	merge(&sess, &mine, &tmp, &sess_added, "user sessions");
	if (sess_added.n > 0 && join(&sess_added, value, sizeof(value)) == 0) {
		snprintf(content, sizeof(content),
			 PT_FILE_MARKER " from policy %s; removed when it stops.\n"
			 VAR "=${" VAR "}${" VAR ":+:}%s\n", ctx->policy_id, value);
		r = envfile_apply(ctx, SINK, PT_ENVD_GLIBC, content);
		if (r < 0 && ret == 0)
			ret = r;
	}
	return ret;
}

static int glibc_restore(struct sink_ctx *ctx, bool stale_only)
{
	return env_restore(ctx, SINK, stale_only);
}

const struct sink sink_glibc = {
	.name = SINK,
	.apply = glibc_apply,
	.restore = glibc_restore,
};
