// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading a policy file: bounded, regular, and, when the reader is root,
 * trusted.  The daemon writes kernel knobs and every service's
 * environment from this file, so a file another user could have written
 * must not steer it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy_internal.h"
#include "policy_limits.h"

int policy_read_file(const char *path, unsigned flags, char **bufp, size_t *lenp, char *err,
		     size_t errlen)
{
	struct stat st;
	size_t got = 0;
	char *buf = NULL;
	int fd, rc = 0;

	/* O_NOFOLLOW would refuse the usual /etc symlinks; ownership is checked on the fd */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		snprintf(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	if (!(flags & POLICY_LOAD_INSECURE) && geteuid() == 0 &&
	    (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		rc = -EPERM;
		snprintf(err, errlen, "%s: refused: owned by uid %u with mode %04o; a policy read "
			 "by root must be owned by root and not writable by group or others",
			 path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		goto out;
	}
	if (st.st_size > POLICY_MAX_FILE_BYTES) {
		rc = -EFBIG;
		snprintf(err, errlen, "%s: %lld bytes, larger than the %d bytes a policy may have",
			 path, (long long)st.st_size, POLICY_MAX_FILE_BYTES);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	/* to EOF, never past the size fstat saw: a growing file is refused */
	for (;;) {
		char one;
		ssize_t r = got < (size_t)st.st_size
			? read(fd, buf + got, (size_t)st.st_size - got) : read(fd, &one, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
			goto out;
		}
		if (r == 0)
			break;
		if (got == (size_t)st.st_size) {
			rc = -EAGAIN;
			snprintf(err, errlen, "%s: changed while being read", path);
			goto out;
		}
		got += (size_t)r;
	}
	buf[got] = '\0';
	*bufp = buf;
	*lenp = got;
	buf = NULL;
out:
	free(buf);
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
