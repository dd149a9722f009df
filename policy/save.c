// SPDX-License-Identifier: LGPL-2.1-or-later
/* Saving a policy: its text, written atomically (common/atomic_file.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic_file.h"
#include "policy/policy.h"
#include "policy/policy_internal.h"
#include "policy/policy_limits.h"

int policy_save_text(char *text, const char *path)
{
	struct policy_scan_info info = { 0 };
	char err[256];
	int rc;

	if (!text)
		return -ENOMEM;
	/* a file no reader would take (its size, an entry's, its host ids) is not written */
	rc = policy_text_check(text, strlen(text), &info, err, sizeof(err));
	free(info.entries);
	if (rc) {
		free(text);
		return rc == -E2BIG ? -EFBIG : rc;
	}
	rc = atomic_write_file(path, text, strlen(text), 0644);
	free(text);
	return rc;
}

int policy_save(const struct policy *p, const char *path)
{
	return policy_save_text(policy_to_string(p), path);
}

int policy_save_shedding_raw(struct policy *p, const char *path, bool *raw_dropped)
{
	int rc = policy_save(p, path);

	*raw_dropped = rc == -EFBIG && policy_drop_raw(p);
	return *raw_dropped ? policy_save(p, path) : rc;
}
