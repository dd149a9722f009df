// SPDX-License-Identifier: LGPL-2.1-or-later
/* The environment of a policy entry: what its hosts ran (environment.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/environment.h"
#include "policy/policy_limits.h"

/* How many probed values a description names before "and N more". */
#define DESCRIBE_MAX	4

static const char *const names[POLICY_ENV_N] = {
	[POLICY_ENV_KERNEL] = "kernel",
	[POLICY_ENV_MICROCODE] = "microcode",
};

const char *policy_env_name(enum policy_env_what w)
{
	return w < POLICY_ENV_N ? names[w] : "?";
}

/* fingerprint_host() writes "unknown" where uname(2) fails */
static bool known(const char *s)
{
	return s[0] && strcmp(s, "unknown");
}

/* A single probe's own value (a merged entry's: the one all its hosts share). */
static char *own(struct policy *p, enum policy_env_what w, size_t *size)
{
	if (w == POLICY_ENV_KERNEL) {
		*size = sizeof(p->platform.kernel);
		return p->platform.kernel;
	}
	*size = sizeof(p->platform.cpu.microcode);
	return p->platform.cpu.microcode;
}

static const char *own_c(const struct policy *p, enum policy_env_what w)
{
	size_t size;

	return own((struct policy *)p, w, &size);
}

static struct policy_env_values *listed(struct policy *p, enum policy_env_what w)
{
	return w == POLICY_ENV_KERNEL ? &p->merged.kernels : &p->merged.microcodes;
}

static const struct policy_env_values *listed_c(const struct policy *p, enum policy_env_what w)
{
	return listed((struct policy *)p, w);
}

size_t policy_env_probed(const struct policy *p, enum policy_env_what w, const char **v,
			 size_t max)
{
	const struct policy_env_values *l = listed_c(p, w);
	const char *mine = own_c(p, w);

	if (l->n) {
		for (size_t i = 0; i < l->n && i < max; i++)
			v[i] = l->v[i];
		return l->n;
	}
	if (!known(mine))
		return 0;
	if (max)
		v[0] = mine;
	return 1;
}

void policy_env_compare(const struct policy *entry, const struct policy *host,
			struct policy_env_report *r)
{
	memset(r, 0, sizeof(*r));
	for (int w = 0; w < POLICY_ENV_N; w++) {
		struct policy_env_item *it = &r->item[w];
		const struct policy_env_values *l = listed_c(entry, w);
		const char *mine = own_c(host, w);
		bool found = false;

		snprintf(it->host, sizeof(it->host), "%s", known(mine) ? mine : "");
		if (!it->host[0])
			continue;
		if (l->n) {
			for (size_t i = 0; i < l->n && !found; i++)
				found = !strcmp(l->v[i], mine);
		} else if (known(own_c(entry, w))) {
			found = !strcmp(own_c(entry, w), mine);
		} else {
			continue;	/* the entry never recorded it: nothing to compare */
		}
		it->compared = true;
		it->changed = !found;
		r->nchanged += it->changed;
	}
}

void policy_env_describe(const struct policy *entry, const struct policy_env_report *r,
			 enum policy_env_what w, char *buf, size_t len)
{
	const struct policy_env_item *it = &r->item[w];
	const char *v[DESCRIBE_MAX];
	size_t n = policy_env_probed(entry, w, v, DESCRIBE_MAX), o;

	o = (size_t)snprintf(buf, len, "%s %s", policy_env_name(w),
			     it->host[0] ? it->host : "not known");
	for (size_t i = 0; i < n && i < DESCRIBE_MAX && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : ", probed on ", v[i]);
	if (n > DESCRIBE_MAX && o < len)
		o += (size_t)snprintf(buf + o, len - o, " and %zu more", n - DESCRIBE_MAX);
	if (!n && o < len)
		snprintf(buf + o, len - o, ", not recorded by the probe");
}

static int cmp_value(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int merge_one(struct policy *out, struct policy *const *g, size_t n,
		     enum policy_env_what w)
{
	struct policy_env_values *dst = listed(out, w);
	char (*u)[POLICY_ENV_VALUE_MAX] = calloc(POLICY_MAX_ENV_VALUES, sizeof(*u));
	bool too_many = false;
	size_t nu = 0, size;
	char *single;

	if (!u)
		return -ENOMEM;
	for (size_t i = 0; i < n && !too_many; i++) {
		const char *v[POLICY_MAX_ENV_VALUES];
		size_t k = policy_env_probed(g[i], w, v, POLICY_MAX_ENV_VALUES);

		too_many = k > POLICY_MAX_ENV_VALUES;
		for (size_t j = 0; j < k && !too_many; j++) {
			bool seen = false;

			for (size_t m = 0; m < nu && !seen; m++)
				seen = !strcmp(u[m], v[j]);
			if (seen)
				continue;
			if (nu == POLICY_MAX_ENV_VALUES)
				too_many = true;
			else
				snprintf(u[nu++], sizeof(*u), "%s", v[j]);
		}
	}
	if (too_many)
		nu = 0;
	qsort(u, nu, sizeof(*u), cmp_value);
	/* the one value every host shares, else "": older readers compare nothing then */
	single = own(out, w, &size);
	snprintf(single, size, "%s", nu == 1 ? u[0] : "");
	free(dst->v);
	dst->v = NULL;
	dst->n = nu;
	if (nu)
		dst->v = u;
	else
		free(u);
	return 0;
}

int policy_env_merge(struct policy *out, struct policy *const *g, size_t n)
{
	for (int w = 0; w < POLICY_ENV_N; w++) {
		int r = merge_one(out, g, n, w);

		if (r)
			return r;
	}
	return 0;
}
