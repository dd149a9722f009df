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
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"

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

/* "NAME.XXXXXX": six random characters for the Xs */
static int random_suffix(char *x)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return errno ? -errno : -EIO;
	for (size_t i = 0; i < sizeof(r); i++)
		x[i] = set[r[i] % (sizeof(set) - 1)];
	return 0;
}

/*
 * Name the unnamed (O_TMPFILE) file fd as tmp ("PATH.XXXXXX"), once it
 * is whole: through the descriptor itself (needs CAP_DAC_READ_SEARCH),
 * else through /proc/self/fd.
 */
static int link_unnamed(int fd, char *tmp)
{
	char *x = tmp + strlen(tmp) - 6, proc[32];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (int tries = 0; tries < 64; tries++) {
		int rc = random_suffix(x);

		if (rc)
			return rc;
		if (!linkat(fd, "", AT_FDCWD, tmp, AT_EMPTY_PATH) ||
		    (errno != EEXIST &&
		     !linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW)))
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* data into fd, with its final mode, on stable storage */
static int fill(int fd, const char *data, size_t len, unsigned mode)
{
	int rc = write_all(fd, data, len);

	if (!rc && fchmod(fd, mode))
		rc = -errno;
	if (!rc && fsync(fd))
		rc = -errno;
	return rc;
}

/*
 * The new content as tmp ("PATH.XXXXXX", next to path: rename() must
 * not cross filesystems).  Unnamed (O_TMPFILE) until it is whole, so
 * that a writer killed half-way leaves nothing behind; named from the
 * start where the filesystem has no O_TMPFILE or the file cannot be
 * linked (no CAP_DAC_READ_SEARCH and no /proc).
 */
static int write_temp(const char *dir, char *tmp, const char *data, size_t len, unsigned mode)
{
	int fd, rc;

	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		rc = fill(fd, data, len, mode);
		if (!rc)
			rc = link_unnamed(fd, tmp);
		if (close(fd) && !rc) {
			rc = -errno;
			unlink(tmp);
		}
		if (!rc || (rc != -ENOENT && rc != -EPERM && rc != -EACCES))
			return rc;
	} else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		return -errno;
	}
	memcpy(tmp + strlen(tmp) - 6, "XXXXXX", 6);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = fill(fd, data, len, mode);
	if (close(fd) && !rc)
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

int atomic_write_file(const char *path, const char *data, size_t len, unsigned mode)
{
	char dirbuf[PATH_MAX], tmp[PATH_MAX + 16];
	const char *dir;
	int dfd, rc;

	if (snprintf(dirbuf, sizeof(dirbuf), "%s", path) >= (int)sizeof(dirbuf) ||
	    snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	dir = dirname(dirbuf);
	rc = write_temp(dir, tmp, data, len, mode);
	if (rc)
		return rc;
	if (rename(tmp, path)) {
		rc = -errno;
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
