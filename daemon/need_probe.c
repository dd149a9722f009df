// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tuned --need-probe: whether pmem-tune-probe.service measures this
 * host now (its ExecCondition=).  A host that no policy fits is probed;
 * one that a policy fits only when the administrator asked for it
 * (reprobe_on_environment_change = yes and a new kernel or microcode).
 * Where the installed policy is a fleet's file the probe keeps its result
 * in the state directory for the fleet: a kept probe that fits the host
 * already is not measured again at every boot.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "daemon/config.h"
#include "daemon/match.h"
#include "daemon/need_probe.h"
#include "policy/environment.h"
#include "policy/fingerprint.h"
#include "policy/fleet_file.h"
#include "policy/policy.h"

/*
 * Kernel or microcode differ from what p was probed with (any of a merged
 * entry's hosts' values is no change): 1 and why says how, else 0.
 */
static int env_change(const struct policy *p, const struct policy *host, char *why, size_t len)
{
	struct policy_env_report r;
	size_t used = 0;

	policy_env_compare(p, host, &r);
	why[0] = '\0';
	for (int w = 0; w < POLICY_ENV_N; w++) {
		if (!r.item[w].changed)
			continue;
		if (used && used + 2 < len)
			used += (size_t)snprintf(why + used, len - used, ", ");
		if (used < len)
			policy_env_describe(p, &r, w, why + used, len - used);
		used = strlen(why);
	}
	return r.nchanged > 0;
}

/* The host's kept probe fits it (and its environment, when that counts): its path, else NULL. */
static const char *kept_probe_fits(const struct policy *host, bool env_counts, char *path,
				   size_t len)
{
	struct policy_bundle *b;
	struct policy *p;
	char err[256], why[256];
	bool fits;

	if (policy_kept_probe_path(path, len) < 0)
		return NULL;
	b = policy_bundle_load(path, 0, err, sizeof(err));
	if (!b)
		return NULL;
	p = policy_bundle_find(b, host->platform.fingerprint);
	fits = p && !(env_counts && env_change(p, host, why, sizeof(why)));
	policy_bundle_free(b);
	return fits ? path : NULL;
}

int need_probe(const struct options *o)
{
	char reason[2 * PATH_MAX], env[512], fleet[512] = "", kept[PATH_MAX];
	struct policy *p = NULL, *host = policy_new();
	enum pick_result pick;
	int is_fleet, rc = NEED_PROBE_NO;

	if (!host) {
		printf("no probe: out of memory\n");
		return NEED_PROBE_NO;
	}
	pick = policy_pick(o->policy, o->sysfs_root, false, &p, NULL, reason, sizeof(reason));
	if (pick == PICK_UNKNOWN_HOST ||
	    fingerprint_host(o->sysfs_root[0] ? o->sysfs_root : "/", host) < 0) {
		/* a host we cannot fingerprint would only probe in circles */
		printf("no probe: %s\n", pick == PICK_UNKNOWN_HOST ? reason :
		       "cannot fingerprint this host");
		goto out;
	}
	is_fleet = policy_is_fleet_file(o->policy, fleet, sizeof(fleet)) > 0;
	if (pick == PICK_OK) {
		if (!env_change(p, host, env, sizeof(env))) {
			printf("no probe: %s fits this host (%s)\n", o->policy,
			       host->platform.fingerprint);
		} else if (!o->reprobe_env) {
			printf("no probe: %s fits this host; environment change: %s "
			       "(reprobe_on_environment_change = no)\n", o->policy, env);
		} else if (is_fleet && kept_probe_fits(host, true, kept, sizeof(kept))) {
			printf("no probe: environment change: %s; this host's probe for it is "
			       "kept in %s, for the fleet\n", env, kept);
		} else {
			printf("probe: environment change: %s "
			       "(reprobe_on_environment_change = yes)\n", env);
			rc = NEED_PROBE_YES;
		}
		goto out;
	}
	if (is_fleet && kept_probe_fits(host, o->reprobe_env, kept, sizeof(kept))) {
		printf("no probe: %s (%s) has no entry for this host yet; its probe is kept in "
		       "%s, for the fleet\n", o->policy, fleet, kept);
		goto out;
	}
	printf("probe: %s\n", reason);
	rc = NEED_PROBE_YES;
out:
	policy_free(p);
	policy_free(host);
	return rc;
}
