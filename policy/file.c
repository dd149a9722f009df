// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading a policy file: bounded, regular and trusted (common/trusted.h).
 * The daemon writes kernel knobs and every service's environment from
 * this file, so a file another user could have written must not steer it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/read_file.h"
#include "common/trusted.h"
#include "policy/policy_internal.h"
#include "policy/policy_limits.h"

int policy_read_file(const char *path, unsigned flags, char **bufp, size_t *lenp, char *err,
		     size_t errlen)
{
	struct stat st;
	int fd, rc;

	/* O_NOFOLLOW would refuse the usual /etc symlinks; ownership is checked on the fd */
	fd = open_regular(path, 0, &st);
	if (fd == -EINVAL) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return fd;
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-fd));
		return fd;
	}
	if (!(flags & POLICY_LOAD_INSECURE) && !trusted_stat(&st)) {
		rc = -EPERM;
		snprintf(err, errlen, "%s: refused: owned by uid %u with mode %04o; a policy must "
			 "be owned by root or its reader and not writable by group or others",
			 path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		goto out;
	}
	if (st.st_size > POLICY_MAX_FILE_BYTES) {
		rc = -EFBIG;
		snprintf(err, errlen, "%s: %lld bytes, larger than the %lld bytes a policy file "
			 "may have",
			 path, (long long)st.st_size, POLICY_MAX_FILE_BYTES);
		goto out;
	}
	rc = read_fd(fd, POLICY_MAX_FILE_BYTES, bufp, lenp);
	if (rc == -EFBIG)
		snprintf(err, errlen, "%s: grew past the %lld bytes a policy file may have while "
			 "being read", path, POLICY_MAX_FILE_BYTES);
	else if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
out:
	close(fd);
	return rc;
}

void *policy_load_with(const char *path, unsigned flags, policy_parse_fn parse, char *err,
		       size_t errlen)
{
	char msg[400];
	size_t len;
	char *buf;
	void *out;
	int e;

	e = -policy_read_file(path, flags, &buf, &len, err, errlen);
	if (e) {
		errno = e;
		return NULL;
	}
	out = parse(buf, len, msg, sizeof(msg));
	e = errno;
	if (!out)
		snprintf(err, errlen, "%s: %s", path, msg);
	free(buf);
	errno = e;
	return out;
}
