// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Loading a policy for a command.  The ownership rule (common/trusted.h)
 * guards what pmem-tuned applies; a command that only reads the file
 * (a CI job as root on a checkout, say) warns and reads it anyway,
 * unless --strict asks for the daemon's rule.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "commands.h"
#include "common/trusted.h"
#include "fleet.h"
#include "policy.h"

struct policy_bundle *policy_file_load_quiet(const char *path, unsigned flags, char *err,
					    size_t errlen)
{
	unsigned load = flags & POLICY_LOAD_INSECURE;
	struct stat st;

	if ((flags & READ_ONLY) && !(flags & (READ_STRICT | POLICY_LOAD_INSECURE)) &&
	    !stat(path, &st) && !trusted_stat(&st)) {
		fprintf(stderr, "pmem-tune: warning: %s: owned by uid %u with mode %04o, "
			"pmem-tuned would refuse it; reading it anyway (--strict refuses)\n",
			path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		load |= POLICY_LOAD_INSECURE;
	}
	return policy_bundle_load(path, load, err, errlen);
}

struct policy_bundle *policy_file_load(const char *path, unsigned flags)
{
	char err[600];
	struct policy_bundle *b = policy_file_load_quiet(path, flags, err, sizeof(err));

	if (!b)
		fprintf(stderr, "pmem-tune: %s\n", err);
	return b;
}
