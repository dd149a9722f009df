// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tune --check: is the policy file valid, and is it this host's?
 * The fingerprint alone decides; another kernel or microcode than the
 * entry was probed on is an environment change (environment.h): a line
 * (and a JSON field) that says so, not a failure, unless asked.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cli/commands.h"
#include "cli/json_out.h"
#include "policy/environment.h"
#include "policy/fingerprint.h"
#include "policy/policy.h"
#include "policy/policy_limits.h"
#include "rule/fleet.h"

struct verdict {
	/* "valid", "other platform", "environment change", "unknown", "missing", "invalid" */
	const char *result;
	int status;
	char why[1024];
	char host_fp[sizeof(((struct policy_platform *)0)->fingerprint)];
	struct policy_bundle *b;
	struct policy *host;
	const struct policy *entry;	/* b's entry for this host, NULL if none */
	struct policy_env_report env;
};

static void judge(const char *path, unsigned flags, bool fail_on_env, struct verdict *v)
{
	char err[600];

	v->status = 1;
	v->b = policy_file_load_quiet(path, flags, err, sizeof(err));
	if (!v->b) {
		/* 2 all the same: the probe unit measures, a playbook's validate: refuses */
		v->result = errno == ENOENT ? "missing" : "invalid";
		v->status = 2;
		snprintf(v->why, sizeof(v->why), "%s", err);
		return;
	}
	v->host = policy_new();
	if (!v->host || fingerprint_host(NULL, v->host)) {
		v->result = "unknown";
		snprintf(v->why, sizeof(v->why), "%s: cannot read this host's identity", path);
		return;
	}
	snprintf(v->host_fp, sizeof(v->host_fp), "%s", v->host->platform.fingerprint);
	v->entry = policy_bundle_find(v->b, v->host_fp);
	if (!v->entry) {
		v->result = "other platform";
		snprintf(v->why, sizeof(v->why), "%s has no entry for this host (%s)", path,
			 v->host_fp);
		return;
	}
	policy_env_compare(v->entry, v->host, &v->env);
	if (v->env.nchanged && fail_on_env) {
		v->result = "environment change";
		snprintf(v->why, sizeof(v->why), "%s matches this host (%s), whose environment "
			 "changed since the probe (--fail-on-environment-change)", path,
			 v->host_fp);
		return;
	}
	v->result = "valid";
	snprintf(v->why, sizeof(v->why), "%s matches this host (%s)", path, v->host_fp);
	v->status = 0;
}

static struct json_object *env_json(const struct verdict *v)
{
	struct json_object *o = json_object_new_object();

	for (int w = 0; w < POLICY_ENV_N; w++) {
		const struct policy_env_item *it = &v->env.item[w];
		struct json_object *e = json_object_new_object(), *arr = json_object_new_array();
		const char *probed[POLICY_MAX_ENV_VALUES];
		size_t n = policy_env_probed(v->entry, w, probed, POLICY_MAX_ENV_VALUES);

		for (size_t i = 0; i < n && i < POLICY_MAX_ENV_VALUES; i++)
			json_object_array_add(arr, json_object_new_string(probed[i]));
		json_object_object_add(e, "host",
				       it->host[0] ? json_object_new_string(it->host) : NULL);
		json_object_object_add(e, "probed", arr);
		json_object_object_add(e, "changed", json_object_new_boolean(it->changed));
		json_object_object_add(o, policy_env_name(w), e);
	}
	return o;
}

static int print_json(const char *path, const struct verdict *v)
{
	struct json_object *o = json_object_new_object(), *changes = json_object_new_array();

	if (!o || !changes) {
		json_object_put(o);
		json_object_put(changes);
		return -1;
	}
	json_object_object_add(o, "file", json_object_new_string(path));
	json_object_object_add(o, "result", json_object_new_string(v->result));
	json_object_object_add(o, "status", json_object_new_int(v->status));
	json_object_object_add(o, "message", json_object_new_string(v->why));
	json_object_object_add(o, "host_fingerprint",
			       v->host_fp[0] ? json_object_new_string(v->host_fp) : NULL);
	for (int w = 0; w < POLICY_ENV_N; w++)
		if (v->env.item[w].changed)
			json_object_array_add(changes, json_object_new_string(policy_env_name(w)));
	json_object_object_add(o, "environment_changes", changes);
	json_object_object_add(o, "environment", v->entry ? env_json(v) : NULL);
	json_out(stdout, o);
	json_object_put(o);
	return 0;
}

int check_cmd(const char *path, unsigned flags, bool json, bool fail_on_env)
{
	struct verdict v = { 0 };
	char line[512];

	judge(path, flags, fail_on_env, &v);
	if (json) {
		if (print_json(path, &v))
			v.status = 1;
	} else {
		printf("%s: %s\n", v.result, v.why);
		for (int w = 0; w < POLICY_ENV_N; w++) {
			if (!v.env.item[w].changed)
				continue;
			policy_env_describe(v.entry, &v.env, w, line, sizeof(line));
			printf("environment change: %s\n", line);
		}
	}
	policy_free(v.host);
	policy_bundle_free(v.b);
	return v.status;
}
