// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Loading a policy for a command.  The ownership rule (common/trusted.h)
 * guards what pmem-tuned applies; a command that only reads the file
 * (a CI job as root on a checkout, say) warns and reads it anyway,
 * unless --strict asks for the daemon's rule.  The rule's own check of
 * a file (rule/crossover.h) is made here: the loader, which the daemon
 * links, checks the file's structure only.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "common/trusted.h"
#include "policy/policy.h"
#include "rule/crossover.h"
#include "rule/fleet.h"

struct policy_bundle *policy_file_load_quiet(const char *path, unsigned flags, char *err,
					    size_t errlen)
{
	unsigned load = flags & POLICY_LOAD_INSECURE;
	struct policy_bundle *b;
	struct stat st;

	if ((flags & READ_ONLY) && !(flags & (READ_STRICT | POLICY_LOAD_INSECURE)) &&
	    !stat(path, &st) && !trusted_stat(&st)) {
		fprintf(stderr, "pmem-tune: warning: %s: owned by uid %u with mode %04o, "
			"pmem-tuned would refuse it; reading it anyway (--strict refuses)\n",
			path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		load |= POLICY_LOAD_INSECURE;
	}
	b = policy_bundle_load(path, load, err, errlen);
	for (size_t i = 0; b && i < b->n; i++) {
		char why[400];

		if (!crossover_check_unranged(b->entries[i], why, sizeof(why)))
			continue;
		if (b->n > 1)
			snprintf(err, errlen, "%s: bundle[%zu].%s", path, i, why);
		else
			snprintf(err, errlen, "%s: %s", path, why);
		policy_bundle_free(b);
		errno = EINVAL;
		return NULL;
	}
	return b;
}

struct policy_bundle *policy_file_load(const char *path, unsigned flags)
{
	char err[600];
	struct policy_bundle *b = policy_file_load_quiet(path, flags, err, sizeof(err));

	if (!b)
		fprintf(stderr, "pmem-tune: %s\n", err);
	return b;
}
