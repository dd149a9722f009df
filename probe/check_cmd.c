// SPDX-License-Identifier: GPL-2.0-or-later
/* pmem-tune --check: is the policy file valid, and is it this host's? */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"
#include "fingerprint.h"
#include "fleet.h"
#include "policy.h"

struct verdict {
	const char *result;	/* "valid", "other platform", "drift", "unknown", "invalid" */
	int status;
	char why[1024];
	char host[sizeof(((struct policy_platform *)0)->fingerprint)];
};

static void judge(const char *path, unsigned flags, struct verdict *v)
{
	char err[600];
	struct policy_bundle *b = policy_file_load_quiet(path, flags, err, sizeof(err));
	struct policy *host = NULL, *p;

	v->status = 1;
	if (!b) {
		v->result = "invalid";
		v->status = 2;
		snprintf(v->why, sizeof(v->why), "%s", err);
		return;
	}
	host = policy_new();
	if (!host || fingerprint_host(NULL, host)) {
		v->result = "unknown";
		snprintf(v->why, sizeof(v->why), "%s: cannot read this host's identity", path);
		goto out;
	}
	snprintf(v->host, sizeof(v->host), "%s", host->platform.fingerprint);
	p = policy_bundle_find(b, host->platform.fingerprint);
	if (!p) {
		v->result = "other platform";
		snprintf(v->why, sizeof(v->why), "%s has no entry for this host (%s)", path,
			 host->platform.fingerprint);
		goto out;
	}
	/*
	 * Same hardware, but the software that decides the copy speed moved
	 * since the probe: new microcode or a new kernel may change either
	 * side of a crossover, so the policy asks to be measured again.
	 */
	v->result = "drift";
	if (p->platform.cpu.microcode[0] &&
	    strcmp(p->platform.cpu.microcode, host->platform.cpu.microcode)) {
		snprintf(v->why, sizeof(v->why), "%s was probed with microcode %s, this host runs %s",
			 path, p->platform.cpu.microcode, host->platform.cpu.microcode);
		goto out;
	}
	if (p->platform.kernel[0] && strcmp(p->platform.kernel, host->platform.kernel)) {
		snprintf(v->why, sizeof(v->why), "%s was probed on kernel %s, this host runs %s",
			 path, p->platform.kernel, host->platform.kernel);
		goto out;
	}
	v->result = "valid";
	snprintf(v->why, sizeof(v->why), "%s matches this host (%s)", path,
		 host->platform.fingerprint);
	v->status = 0;
out:
	policy_free(host);
	policy_bundle_free(b);
}

int check_cmd(const char *path, unsigned flags, bool json)
{
	struct verdict v = { 0 };
	struct json_object *o;

	judge(path, flags, &v);
	if (!json) {
		printf("%s: %s\n", v.result, v.why);
		return v.status;
	}
	o = json_object_new_object();
	if (!o)
		return 1;
	json_object_object_add(o, "file", json_object_new_string(path));
	json_object_object_add(o, "result", json_object_new_string(v.result));
	json_object_object_add(o, "status", json_object_new_int(v.status));
	json_object_object_add(o, "message", json_object_new_string(v.why));
	json_object_object_add(o, "host_fingerprint",
			       v.host[0] ? json_object_new_string(v.host) : NULL);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return v.status;
}
