// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tune --metrics: the policy file, this host's fingerprint and the
 * daemon's status files in, a Prometheus textfile out (metrics_text.c
 * writes it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli/commands.h"
#include "cli/metrics_text.h"
#include "common/atomic_file.h"
#include "policy/fingerprint.h"
#include "policy/policy.h"

static struct json_object *status_load(const char *dir, const char *name)
{
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return NULL;
	return json_object_from_file(path);
}

/*
 * Every run replaces the file, also when the policy cannot be read: a
 * monitoring system must see "read failed", not the last good file.
 * Exit 2 for a policy that could not be read, 1 when this host's
 * identity could not be read or the file not written, else 0.
 */
int metrics_cmd(const char *out, const char *path, const char *daemon_dir, unsigned flags)
{
	struct metrics_in in = { .path = path };
	struct policy_bundle *b = policy_file_load(path, flags);
	struct policy *host = policy_new();
	size_t len = 0;
	char *text = NULL;
	int rc, status = b ? 0 : 2;

	if (!host || fingerprint_host(NULL, host)) {
		fprintf(stderr, "pmem-tune: --metrics: cannot read this host's identity\n");
		policy_free(host);
		host = NULL;
		status = status ?: 1;
	}
	in.bundle = b;
	in.host = host;
	/*
	 * What pmem-tuned wrote after its last apply and the last --verify
	 * (daemon/status_file.h)
	 */
	in.status = status_load(daemon_dir, "status.json");
	in.verify = status_load(daemon_dir, "verify.json");
	text = metrics_text(&in, &len);
	json_object_put(in.status);
	json_object_put(in.verify);
	policy_free(host);
	policy_bundle_free(b);
	if (!text) {
		fprintf(stderr, "pmem-tune: --metrics: out of memory\n");
		return 1;
	}
	/* node-exporter may read the file at any moment: never a torn one */
	rc = strcmp(out, "-") ? atomic_write_file(out, text, len, 0644)
			      : (fwrite(text, 1, len, stdout) == len ? 0 : -EIO);
	free(text);
	if (rc) {
		fprintf(stderr, "pmem-tune: %s: cannot write the metrics: %s\n", out,
			strerror(-rc));
		return 1;
	}
	return status;
}
