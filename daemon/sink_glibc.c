// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * glibc's memcpy/memmove switch strategies at thresholds it reads from
 * GLIBC_TUNABLES once, at process start: x86_non_temporal_threshold
 * (non-temporal stores above it) and x86_rep_movsb_threshold.
 *
 * That changes every memcpy of every process that sees the variable, so
 * the sink does nothing unless pmem-tuned.conf asks (glibc_tunables=):
 * "file" writes only glibc.env, which a unit includes with
 * EnvironmentFile=; "manager" also pushes it into the service manager's
 * environment and user sessions.
 *
 * An administrator's tunables are never overridden nor rewritten: glibc
 * applies the entries of GLIBC_TUNABLES in order, so appending ours
 * after theirs would silently win.  Theirs are kept verbatim, ours are
 * added only for names nobody set.
 *
 * Which values glibc takes depends on its version and the CPU (the rep
 * movsb minimum is eight vectors wide), and a fleet runs several: each
 * value is checked against the bounds the host's own ld.so lists, every
 * time the sink applies.  Outside them, or when they cannot be read,
 * glibc's default is kept (the tunable is not written) and a line says so.
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
#include "daemon/glibc_bounds.h"
#include "daemon/log.h"
#include "daemon/sanitize.h"
#include "daemon/sink.h"
#include "daemon/state.h"
#include "policy/export_keys.h"
#include "policy/policy.h"

#define SINK		"glibc"
#define VAR		"GLIBC_TUNABLES"
#define MAX_OURS	8
/* beyond this an administrator's GLIBC_TUNABLES is refused, not cut */
#define MAX_VALUE	(64 * 1024)

struct tunable {
	char name[POLICY_NAME_MAX];
	char value[32];
};

/* Ours only: a handful, from the policy.  Theirs are never parsed into storage. */
struct tunables {
	int n;
	struct tunable t[MAX_OURS];
};

/*
 * Whether the GLIBC_TUNABLES string s ("a=1:b=2", as glibc reads it)
 * sets name; its value (up to the next ':') in *val, *vlen.
 */
static bool sets(const char *s, const char *name, const char **val, size_t *vlen)
{
	size_t nlen = strlen(name);

	while (s && *s) {
		const char *end = strchrnul(s, ':');

		if ((size_t)(end - s) > nlen && !strncmp(s, name, nlen) && s[nlen] == '=') {
			*val = s + nlen + 1;
			*vlen = end - *val;
			return true;
		}
		s = *end ? end + 1 : end;
	}
	return false;
}

static void add(struct tunables *ts, const char *name, const char *value)
{
	struct tunable *t;

	if (ts->n == MAX_OURS)
		return;
	t = &ts->t[ts->n++];
	snprintf(t->name, sizeof(t->name), "%s", name);
	snprintf(t->value, sizeof(t->value), "%s", value);
}

/* ours as "a=1:b=2" after prefix (verbatim) and a ':' when both are non-empty */
static char *join(const char *prefix, const struct tunables *ts)
{
	size_t len = prefix ? strlen(prefix) : 0, o;
	char *out;
	int i;

	for (i = 0; i < ts->n; i++)
		len += strlen(ts->t[i].name) + strlen(ts->t[i].value) + 2;
	out = malloc(len + 1);
	if (!out)
		return NULL;
	o = snprintf(out, len + 1, "%s", prefix ? prefix : "");
	for (i = 0; i < ts->n; i++)
		o += snprintf(out + o, len + 1 - o, "%s%s=%s", o ? ":" : "", ts->t[i].name,
			      ts->t[i].value);
	return out;
}

/* This host's ld.so --list-tunables, run once a pass and only when needed. */
struct host_glibc {
	bool asked;
	int err;		/* 0: list holds its output */
	char *list;
	char ldso[PATH_MAX];
	char why[128];		/* when err: what went wrong */
};

static void host_list(struct sink_ctx *ctx, struct host_glibc *h)
{
	h->asked = true;
	if (*ctx->opt->ldso) {
		snprintf(h->ldso, sizeof(h->ldso), "%s", ctx->opt->ldso);
	} else {
		h->err = glibc_ldso_self(h->ldso, sizeof(h->ldso));
		if (h->err < 0) {
			snprintf(h->ldso, sizeof(h->ldso), "ld.so");
			snprintf(h->why, sizeof(h->why), "%s",
				 h->err == -ENOENT ? "pmem-tuned has no dynamic loader" :
				 strerror(-h->err));
			return;
		}
	}
	h->err = glibc_list_tunables(h->ldso, GLIBC_LIST_TIMEOUT_MS, &h->list, h->why,
				     sizeof(h->why));
	/* from here on only shown */
	sanitize_line(h->ldso);
}

/*
 * Whether this host's glibc takes v for k; if not, one line naming the
 * tunable, the value and the bounds (or why they are unknown).
 */
static bool host_takes(struct sink_ctx *ctx, struct host_glibc *h, const struct export_key *k,
		       const char *value, uint64_t v)
{
	struct glibc_bound b;
	int r;

	if (!h->asked)
		host_list(ctx, h);
	if (h->err < 0) {
		log_knob(LOG_WARNING, SINK, k->key, value, NULL,
			 "%s: %s=%s: this host's glibc bounds unknown (%s --list-tunables: %s); "
			 "glibc's default kept", SINK, k->key, value, h->ldso, h->why);
		return false;
	}
	r = glibc_bound_parse(h->list, k->key, &b);
	if (r < 0) {
		log_knob(LOG_WARNING, SINK, k->key, value, NULL,
			 "%s: %s=%s: %s by this host's glibc (%s --list-tunables); "
			 "glibc's default kept", SINK, k->key, value,
			 r == -ENOENT ? "not a tunable listed" : "bounds not readable", h->ldso);
		return false;
	}
	if (glibc_bound_takes(&b, v))
		return true;
	log_knob(LOG_WARNING, SINK, k->key, value, NULL,
		 "%s: %s=%s: outside this host's glibc bounds (takes above 0x%" PRIx64
		 " up to 0x%" PRIx64 ": %s --list-tunables); glibc's default 0x%" PRIx64 " kept",
		 SINK, k->key, value, b.min, b.max, h->ldso, b.value);
	return false;
}

/* The policy's tunables that glibc will take, normalized to 0x hex. */
static void ours(struct sink_ctx *ctx, struct tunables *ts)
{
	const struct policy *p = ctx->policy;
	const struct policy_export *x = &p->exports.glibc;
	struct host_glibc host = { 0 };
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
		if (!host_takes(ctx, &host, k, value, v)) {
			ctx->stats.refused++;
			continue;
		}
		add(ts, k->key, value);
	}
	free(host.list);
}

/* The entries of mine whose names base does not set, logging each conflict. */
static void not_in(const char *base, const struct tunables *mine, struct tunables *added,
		   const char *where)
{
	int i;

	added->n = 0;
	for (i = 0; i < mine->n; i++) {
		const struct tunable *t = &mine->t[i];
		const char *v;
		size_t vlen;

		if (sets(base, t->name, &v, &vlen)) {
			if (vlen != strlen(t->value) || strncmp(v, t->value, vlen))
				log_knob(LOG_NOTICE, SINK, t->name, t->value, NULL,
					 "%s: %s: keeping the administrator's %s=%.*s, policy "
					 "value %s not applied", SINK, where, t->name,
					 (int)(vlen > 64 ? 64 : vlen), v, t->value);
			continue;
		}
		add(added, t->name, t->value);
	}
}

/* s appended to *acc with a ':'; -ENOMEM */
static int append(char **acc, const char *s, size_t len)
{
	size_t have = *acc ? strlen(*acc) : 0;
	char *n = realloc(*acc, have + len + 2);

	if (!n)
		return -ENOMEM;
	if (have)
		n[have++] = ':';
	memcpy(n + have, s, len);
	n[have + len] = '\0';
	*acc = n;
	return 0;
}

static void scan_file(char **acc, const char *path)
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
		append(acc, line, strlen(line));
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
static void session_base(struct sink_ctx *ctx, char **acc)
{
	char dir[PATH_MAX], path[PATH_MAX];
	const char *ours_name = strrchr(PT_ENVD_GLIBC, '/') + 1;
	struct dirent **names;
	int n, i;

	if (etc_path(ctx->opt, "/etc/environment", path, sizeof(path)) == 0)
		scan_file(acc, path);
	if (etc_path(ctx->opt, PT_ENVD_DIR, dir, sizeof(dir)) < 0)
		return;
	n = scandir(dir, &names, envd_filter, alphasort);
	if (n < 0)
		return;
	for (i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ours_name) < 0 &&
		    snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) <
		    (int)sizeof(path))
			scan_file(acc, path);
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

/*
 * Services: glibc.env for the units that include it (EnvironmentFile=),
 * and with glibc_tunables=manager the manager's own environment.  The
 * manager's GLIBC_TUNABLES (the administrator's) is kept verbatim, ours
 * appended for the names it does not set.
 */
static int apply_services(struct sink_ctx *ctx, const struct tunables *mine)
{
	struct tunables added;
	char *basestr = NULL, *value = NULL, *content = NULL;
	int r, ret = 0;

	r = manager_env_base(ctx, SINK, VAR, &basestr);
	if (r < 0 && r != -ENOENT) {
		/*
		 * Without the administrator's base this pass cannot write
		 * glibc.env; what is in place stays until a pass that can
		 * (the restore that follows would remove it).
		 */
		state_keep(ctx->state, SINK, "file:" PT_GLIBC_ENV);
		state_keep(ctx->state, SINK, "manager:" VAR);
		return r;
	}
	not_in(basestr, mine, &added, "services");
	if (added.n == 0)
		goto out;
	if (basestr && (strlen(basestr) > MAX_VALUE || !env_file_safe(basestr))) {
		sanitize_line(basestr);
		log_knob(LOG_WARNING, SINK, VAR, NULL, basestr,
			 "%s: the service manager's %s (%.64s%s) is %s; %s and the manager's "
			 "%s left alone", SINK, VAR, basestr, strlen(basestr) > 64 ? "..." : "",
			 strlen(basestr) > MAX_VALUE ? "too long to carry whole" :
			 "made of characters an environment file cannot carry",
			 PT_GLIBC_ENV, VAR);
		ctx->stats.refused++;
		goto out;
	}
	value = join(basestr, &added);
	if (!value || asprintf(&content, PT_FILE_MARKER " from policy %s; removed when it "
			       "stops.\n# The service manager's " VAR " with ours added; "
			       "setuid programs ignore it.\n" VAR "=%s\n", ctx->policy_id,
			       value) < 0) {
		content = NULL;
		ret = -ENOMEM;
		goto out;
	}
	r = envfile_apply(ctx, SINK, PT_GLIBC_ENV, content);
	if (r < 0)
		ret = r;
	if (ctx->opt->glibc == GLIBC_MANAGER && (!basestr || strcmp(basestr, value))) {
		r = manager_env_apply(ctx, SINK, VAR, value);
		if (r < 0 && ret == 0)
			ret = r;
	}
out:
	free(content);
	free(value);
	free(basestr);
	return ret;
}

/*
 * User sessions (glibc_tunables=manager): environment.d expands ${VAR}
 * to what came before, so the drop-in appends; names set there or by
 * the manager stay.
 */
static int apply_sessions(struct sink_ctx *ctx, const struct tunables *mine)
{
	struct tunables added;
	char *sess = NULL, *basestr = NULL, *value = NULL, *content = NULL;
	int r = 0;

	session_base(ctx, &sess);
	if (manager_env_base(ctx, SINK, VAR, &basestr) == 0)
		append(&sess, basestr, strlen(basestr));
	not_in(sess, mine, &added, "user sessions");
	if (added.n == 0)
		goto out;
	value = join(NULL, &added);
	if (!value || asprintf(&content, PT_FILE_MARKER " from policy %s; removed when it "
			       "stops.\n" VAR "=${" VAR "}${" VAR ":+:}%s\n", ctx->policy_id,
			       value) < 0) {
		content = NULL;
		r = -ENOMEM;
		goto out;
	}
	r = envfile_apply(ctx, SINK, PT_ENVD_GLIBC, content);
out:
	free(content);
	free(value);
	free(basestr);
	free(sess);
	return r;
}

static int glibc_apply(struct sink_ctx *ctx)
{
	struct tunables mine;
	int r, ret;

	/* off (the default): nothing touched, the stale pass removes what was ours */
	if (!ctx->policy || ctx->opt->glibc == GLIBC_OFF)
		return 0;
	ours(ctx, &mine);
	if (mine.n == 0)
		return 0;
	ret = apply_services(ctx, &mine);
	if (ctx->opt->glibc != GLIBC_MANAGER)
		return ret;
	r = apply_sessions(ctx, &mine);
	return ret < 0 ? ret : r;
}

const struct sink sink_glibc = {
	.name = SINK,
	.apply = glibc_apply,
	.restore = env_restore,
};
