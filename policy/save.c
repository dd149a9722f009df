// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Atomic replacement of a file: readers (the daemon, a fleet agent) see
 * the old content or the new, never a torn one, even if we are killed
 * or the machine loses power half-way.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "policy_internal.h"

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t w = write(fd, data, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

int atomic_write_file(const char *path, const char *data, size_t len, unsigned mode)
{
	char dirbuf[PATH_MAX], tmp[PATH_MAX + 16];
	const char *dir;
	int fd, dfd, rc;

	if (snprintf(dirbuf, sizeof(dirbuf), "%s", path) >= (int)sizeof(dirbuf) ||
	    snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	dir = dirname(dirbuf);
	/* same directory as the target: rename() must not cross filesystems */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = write_all(fd, data, len);
	if (!rc && fchmod(fd, mode))
		rc = -errno;
	if (!rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		unlink(tmp);
		return rc;
	}
	/* the rename itself is durable only once the directory is synced */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	rc = fsync(dfd) ? -errno : 0;
	close(dfd);
	return rc;
}

int policy_save_text(char *text, const char *path)
{
	int rc;

	if (!text)
		return -ENOMEM;
	rc = atomic_write_file(path, text, strlen(text), 0644);
	free(text);
	return rc;
}

int policy_save(const struct policy *p, const char *path)
{
	return policy_save_text(policy_to_string(p), path);
}
