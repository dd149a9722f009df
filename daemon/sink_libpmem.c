// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PMDK's libpmem reads PMEM_MOVNT_THRESHOLD (cached stores + flush
 * below it, non-temporal stores above; default 256) and the PMEM_NO_* /
 * PMEM_AVX* switches once, when the library is loaded.  The only way in
 * is the environment of processes started later: an EnvironmentFile=
 * for services, an environment.d drop-in for user sessions and the
 * service manager's own environment block.
 */
#include <stdio.h>
#include <string.h>

#include "export_keys.h"
#include "log.h"
#include "policy.h"
#include "sink.h"
#include "state.h"

#define SINK "libpmem"

/* A setting PMDK knows, with a value it takes, for this export's target. */
static bool kv_ok(const struct policy *p, const struct policy_kv *kv, char *why, size_t len)
{
	const struct export_key *k;
	uint64_t v;

	return export_kv_check(p, EXPORT_LIBPMEM, kv, &k, &v, why, len) == 0;
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
		char why[128];
		int w;

		if (!kv_ok(ctx->policy, kv, why, sizeof(why))) {
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
			char why[128];

			if (!kv_ok(ctx->policy, &x->kv[i], why, sizeof(why)))
				continue;
			r = manager_env_apply(ctx, SINK, x->kv[i].key, x->kv[i].value);
			if (r < 0 && ret == 0)
				ret = r;
		}
	}
	return ret;
}

static int libpmem_restore(struct sink_ctx *ctx, bool stale_only)
{
	return env_restore(ctx, SINK, stale_only);
}

const struct sink sink_libpmem = {
	.name = SINK,
	.apply = libpmem_apply,
	.restore = libpmem_restore,
};
