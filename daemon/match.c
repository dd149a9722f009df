// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/match.h"
#include "policy/environment.h"
#include "policy/fingerprint.h"
#include "policy/policy.h"

/* This host's identity (fingerprint, environment), or -errno with the reason in why. */
static int host_identity(const char *sysfs_root, struct policy **me, char *why, size_t len)
{
	int r;

	*me = policy_new();
	if (!*me)
		return -ENOMEM;
	r = fingerprint_host(sysfs_root && *sysfs_root ? sysfs_root : "/", *me);
	if (r < 0) {
		snprintf(why, len, "cannot fingerprint this host: %s", strerror(-r));
		policy_free(*me);
		*me = NULL;
	}
	return r < 0 ? r : 0;
}

enum pick_result policy_pick(const char *path, const char *sysfs_root, bool force,
			     struct policy **out, struct policy_env_report *env, char *why,
			     size_t len)
{
	char err[512] = "", reason[256] = "";
	struct policy_bundle *b;
	struct policy *p = NULL, *me = NULL;
	const char *host = "";
	size_t i;
	int r;

	*out = NULL;
	if (env)
		memset(env, 0, sizeof(*env));
	errno = 0;
	/* flags 0: refuse a file someone else could have written */
	b = policy_bundle_load(path, 0, err, sizeof(err));
	if (!b) {
		r = errno;
		snprintf(why, len, "%s", err[0] ? err : strerror(r ? r : EINVAL));
		return r == ENOENT ? PICK_MISSING : PICK_INVALID;
	}
	r = host_identity(sysfs_root, &me, reason, sizeof(reason));
	if (r == 0) {
		host = me->platform.fingerprint;
		/* the fingerprint alone: kernel and microcode are the environment */
		p = policy_bundle_find(b, host);
	}
	if (!p && force && b->n == 1)
		p = b->entries[0];
	if (p) {
		if (env && me)
			policy_env_compare(p, me, env);
		/* take the entry out of the bundle rather than copy it */
		for (i = 0; i < b->n; i++)
			if (b->entries[i] == p)
				b->entries[i] = NULL;
		*out = p;
		policy_bundle_free(b);
		policy_free(me);
		return PICK_OK;
	}
	if (r < 0) {
		snprintf(why, len, "%s: %s", path, reason);
	} else if (b->n == 1) {
		snprintf(why, len, "%s is for platform %s, this host is %s", path,
			 b->entries[0]->platform.fingerprint, host);
	} else {
		snprintf(why, len, "%s: none of its %zu entries is for this host (%s)", path,
			 b->n, host);
	}
	policy_bundle_free(b);
	policy_free(me);
	return r < 0 ? PICK_UNKNOWN_HOST : PICK_FOREIGN;
}
