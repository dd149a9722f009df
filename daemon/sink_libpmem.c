// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PMDK's libpmem reads PMEM_MOVNT_THRESHOLD (cached stores + flush
 * below it, non-temporal stores above; default 256) and the PMEM_NO_* /
 * PMEM_AVX* switches once, when the library is loaded.  The only way in
 * is the environment of processes started later: an EnvironmentFile=
 * for services, an environment.d drop-in for user sessions and the
 * service manager's own environment block.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/nd_region.h"
#include "common/sysfs_attr.h"
#include "daemon/log.h"
#include "daemon/sink.h"
#include "daemon/state.h"
#include "policy/export_keys.h"
#include "policy/policy.h"

#define SINK "libpmem"

static void say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* The region name under dir is not pmem, or is pmem and says cpu_cache. */
static bool region_agrees(const char *dir, const char *name, char *why, size_t len)
{
	char region[PATH_MAX], dom[64];
	int r = 0;

	if (snprintf(region, sizeof(region), "%s/%s", dir, name) >= (int)sizeof(region))
		r = -ENAMETOOLONG;
	else if (!nd_region_is_pmem(region))
		return true;
	if (r == 0)
		r = read_attrf(dom, sizeof(dom), "%s/persistence_domain", region);
	if (r < 0) {
		say(why, len, "this host's pmem region %s shows no persistence domain, and the "
		    "variable would reach its programs too", name);
		return false;
	}
	if (strcmp(dom, "cpu_cache")) {
		say(why, len, "this host's pmem region %s reports persistence domain '%s', not "
		    "cpu_cache, and the variable would reach its programs too", name, dom);
		return false;
	}
	return true;
}

/*
 * Every pmem region of this host, NVDIMM or CXL (cxl_pmem's regions sit
 * on an nvdimm bus of their own), reports cpu_cache.  The variable goes
 * into the environment of every program started afterwards, whatever
 * region it maps: one ADR region is enough for it to lose data there.
 * No pmem region at all is no objection (the target's own check decides).
 */
static bool every_region_cpu_cache(const struct sink_ctx *ctx, char *why, size_t len)
{
	struct dirent **ents;
	char dir[PATH_MAX];
	bool ok = true;
	int i, n;

	if (snprintf(dir, sizeof(dir), "%s" ND_DEVICES_DIR, ctx->opt->sysfs_root) >=
	    (int)sizeof(dir)) {
		say(why, len, "the sysfs root is too long");
		return false;
	}
	n = scandir(dir, &ents, nd_region_filter, versionsort);
	if (n < 0 && errno == ENOENT)
		return true;	/* no nd bus: no pmem region */
	if (n < 0) {
		say(why, len, "cannot list this host's pmem regions in %s: %s", dir,
		    strerror(errno));
		return false;
	}
	for (i = 0; i < n; i++) {
		/* the first that disagrees is the reason given */
		if (ok)
			ok = region_agrees(dir, ents[i]->d_name, why, len);
		free(ents[i]);
	}
	free(ents);
	return ok;
}

/*
 * PMEM_NO_FLUSH=1 skips the flushes that make a store persistent on an
 * ADR platform: the policy saying "cpu_cache" is a claim, not evidence.
 * Only a pmem target named after its region, whose region this host's
 * sysfs reports as cpu_cache now, is evidence (as for the knob map's
 * persistence_domain= condition), and only when every other pmem region
 * of the host says the same.  A dram or file: target is never.
 */
static bool host_confirms_cpu_cache(const struct sink_ctx *ctx, const char *target,
				    char *why, size_t len)
{
	const struct policy_target *t = policy_find_target(ctx->policy, target);
	const char *d;
	char dom[64];

	if (!t || strcmp(t->kind, "pmem")) {
		snprintf(why, len, "target '%s' is not a pmem region", target);
		return false;
	}
	for (d = t->name + strlen("region"); *d && isdigit((unsigned char)*d); d++)
		;
	if (strncmp(t->name, "region", 6) || d == t->name + 6 || *d) {
		snprintf(why, len, "target '%s' names no pmem region", target);
		return false;
	}
	if (read_attrf(dom, sizeof(dom), "%s" ND_DEVICES_DIR "/%s/persistence_domain",
		       ctx->opt->sysfs_root, t->name) < 0) {
		snprintf(why, len, "this host shows no persistence domain for %s", t->name);
		return false;
	}
	if (strcmp(dom, "cpu_cache")) {
		snprintf(why, len, "this host reports %s's persistence domain as '%s', "
			 "not cpu_cache", t->name, dom);
		return false;
	}
	return every_region_cpu_cache(ctx, why, len);
}

/* A setting PMDK knows, with a value it takes, for this export's target. */
static bool kv_ok(const struct sink_ctx *ctx, const struct policy_kv *kv, char *why,
		  size_t len)
{
	const struct export_key *k;
	uint64_t v;

	if (export_kv_check(ctx->policy, EXPORT_LIBPMEM, kv, &k, &v, why, len) < 0)
		return false;
	if (k->needs == EXPORT_NEEDS_CPU_CACHE_IF_SET && v &&
	    !host_confirms_cpu_cache(ctx, ctx->policy->exports.libpmem.target, why, len))
		return false;
	return true;
}

/* KEY=VALUE lines of the export that pass the checks; 0 = none. */
static int build(struct sink_ctx *ctx, char *body, size_t len)
{
	const struct policy_export *x = &ctx->policy->exports.libpmem;
	size_t i, o = 0;
	int n = 0;

	body[0] = '\0';
	if (!x->present)
		return 0;
	for (i = 0; i < x->nkv && i < POLICY_EXPORT_KV_MAX; i++) {
		const struct policy_kv *kv = &x->kv[i];
		char why[256];
		int w;

		if (!kv_ok(ctx, kv, why, sizeof(why))) {
			log_knob(LOG_WARNING, SINK, kv->key, kv->value, NULL,
				 "%s: %s=%s: %s; not exported", SINK, kv->key, kv->value, why);
			ctx->stats.refused++;
			continue;
		}
		w = snprintf(body + o, len - o, "%s=%s\n", kv->key, kv->value);
		if (w < 0 || (size_t)w >= len - o)
			break;
		o += w;
		n++;
	}
	return n;
}

static int libpmem_apply(struct sink_ctx *ctx)
{
	char body[1024], content[2048];
	int r, ret = 0;

	if (!ctx->policy || build(ctx, body, sizeof(body)) == 0)
		return 0;	/* nothing touched: the stale pass restores */
	snprintf(content, sizeof(content),
		 PT_FILE_MARKER " from policy %s; removed when it stops.\n"
		 "# PMDK's libpmem reads these once, when it is loaded.\n%s",
		 ctx->policy_id, body);
	r = envfile_apply(ctx, SINK, PT_LIBPMEM_ENV, content);
	if (r < 0)
		ret = r;
	r = envfile_apply(ctx, SINK, PT_ENVD_LIBPMEM, content);
	if (r < 0 && ret == 0)
		ret = r;
	if (ctx->bus) {
		const struct policy_export *x = &ctx->policy->exports.libpmem;
		size_t i;

		/* the same filter as build(): set exactly what the files say */
		for (i = 0; i < x->nkv && i < POLICY_EXPORT_KV_MAX; i++) {
			char why[256];

			if (!kv_ok(ctx, &x->kv[i], why, sizeof(why)))
				continue;
			r = manager_env_apply(ctx, SINK, x->kv[i].key, x->kv[i].value);
			if (r < 0 && ret == 0)
				ret = r;
		}
	}
	return ret;
}

const struct sink sink_libpmem = {
	.name = SINK,
	.apply = libpmem_apply,
	.restore = env_restore,
};
