// SPDX-License-Identifier: LGPL-2.1-or-later
/* Saving a policy: its text, written atomically (common/atomic_file.c). */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic_file.h"
#include "policy/policy.h"
#include "policy/policy_internal.h"
#include "policy/policy_limits.h"

int policy_save_text(char *text, const char *path, char *err, size_t errlen)
{
	struct policy_bundle *back;
	char own[256];
	size_t len;
	int rc;

	if (!err || !errlen) {
		err = own;
		errlen = sizeof(own);
	}
	err[0] = '\0';
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	len = strlen(text);
	/*
	 * A text no reader would take is not written: beyond the bounds (its
	 * size, an entry's, its host ids: -EFBIG), or refused for its content,
	 * which would leave the daemon without the policy it runs.  The parse
	 * is the reader's own, bounds first; a writer's fault stops here, named.
	 */
	back = policy_bundle_parse(text, len, err, errlen);
	if (!back) {
		rc = errno == E2BIG || errno == EFBIG ? -EFBIG :
		     errno == ENOMEM ? -ENOMEM : -EINVAL;
		free(text);
		return rc;
	}
	policy_bundle_free(back);
	rc = atomic_write_file(path, text, len, 0644);
	free(text);
	if (rc)
		snprintf(err, errlen, "%s", strerror(-rc));
	return rc;
}

int policy_save(const struct policy *p, const char *path, char *err, size_t errlen)
{
	return policy_save_text(policy_to_string(p), path, err, errlen);
}

int policy_save_shedding_raw(struct policy *p, const char *path, bool *raw_dropped, char *err,
			     size_t errlen)
{
	int rc = policy_save(p, path, err, errlen);

	assert(raw_dropped);
	*raw_dropped = rc == -EFBIG && policy_drop_raw(p);
	return *raw_dropped ? policy_save(p, path, err, errlen) : rc;
}
