// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Atomic replacement of a file: readers (the daemon, a fleet agent) see
 * the old content or the new, never a torn one, even if we are killed
 * or the machine loses power half-way.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"

static const char suffix_set[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

int output_path_check(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	/* a link is not followed: renaming over it would not write where it points */
	return S_ISREG(st.st_mode) ? 0 : -EEXIST;
}

const char *output_path_kind(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return "nothing";
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFLNK:
		return "a symbolic link";
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	}
	return "not a regular file";
}

/* "BASE.XXXXXX" with six characters of the suffix set: a name we make */
static bool temp_name_of(const char *name, const char *base)
{
	size_t n = strlen(base);

	if (strncmp(name, base, n) || name[n] != '.' || strlen(name + n + 1) != 6)
		return false;
	return strspn(name + n + 1, suffix_set) == 6;
}

int atomic_sweep_temps(const char *path, unsigned older_s)
{
	char dirbuf[PATH_MAX], basebuf[PATH_MAX];
	const char *dir, *base;
	struct dirent *de;
	time_t now = time(NULL);
	int dfd, n = 0;
	DIR *d;

	if (snprintf(dirbuf, sizeof(dirbuf), "%s", path) >= (int)sizeof(dirbuf) ||
	    snprintf(basebuf, sizeof(basebuf), "%s", path) >= (int)sizeof(basebuf))
		return -ENAMETOOLONG;
	dir = dirname(dirbuf);
	base = basename(basebuf);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!temp_name_of(de->d_name, base) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		/* ours: a regular file of our user, left long enough to be no writer's */
		if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    st.st_mtime > now - (time_t)older_s)
			continue;
		if (!unlinkat(dfd, de->d_name, 0))
			n++;
	}
	closedir(d);
	return n;
}

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
	unsigned char r[6];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return errno ? -errno : -EIO;
	for (size_t i = 0; i < sizeof(r); i++)
		x[i] = suffix_set[r[i] % (sizeof(suffix_set) - 1)];
	return 0;
}

/*
 * Name the unnamed (O_TMPFILE) file fd as tmp ("PATH.XXXXXX"), once it
 * is whole: through the descriptor itself (needs CAP_DAC_READ_SEARCH),
 * else through /proc/self/fd.  It cannot become PATH directly: linkat()
 * never replaces an existing name and renameat2() takes names, not a
 * descriptor; so a temporary name lives from here to the rename, and a
 * writer killed in between leaves it for atomic_sweep_temps().
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
	rc = output_path_check(path);
	if (rc)
		return rc;
	/* what a writer killed between link and rename left behind */
	atomic_sweep_temps(path, ATOMIC_STALE_S);
	rc = write_temp(dir, tmp, data, len, mode);
	if (rc)
		return rc;
	/* again: it may have changed while the data went to disk */
	rc = output_path_check(path);
	if (rc || rename(tmp, path)) {
		rc = rc ? rc : -errno;
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
