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

/* mkostemp()'s: the fallback's names and ours are one pattern */
static const char suffix_set[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
_Static_assert(ATOMIC_TEMP_RANDOM == 6, "mkostemp() replaces six Xs");

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

/*
 * Our temporaries: ".BASE" ATOMIC_TEMP_TAG and ATOMIC_TEMP_RANDOM characters
 * of the suffix set, nothing before or after.  No one else names a file
 * so; "BASE.backup" or "BASE.231203" beside it is someone's, never ours.
 */
static bool temp_name_of(const char *name, const char *base)
{
	size_t n = strlen(base), t = strlen(ATOMIC_TEMP_TAG);
	const char *x;

	if (name[0] != '.' || strncmp(name + 1, base, n) ||
	    strncmp(name + 1 + n, ATOMIC_TEMP_TAG, t))
		return false;
	x = name + 1 + n + t;
	return strlen(x) == ATOMIC_TEMP_RANDOM && strspn(x, suffix_set) == ATOMIC_TEMP_RANDOM;
}

/* path's directory and last component, into the two buffers (PATH_MAX each) */
static int split_path(const char *path, char *dirbuf, char *basebuf, const char **dir,
		      const char **base)
{
	if (snprintf(dirbuf, PATH_MAX, "%s", path) >= PATH_MAX ||
	    snprintf(basebuf, PATH_MAX, "%s", path) >= PATH_MAX)
		return -ENAMETOOLONG;
	*dir = dirname(dirbuf);
	*base = basename(basebuf);
	return 0;
}

/* As split_path, and the directory opened for the *at() calls: an fd or -errno */
static int open_dir_of(const char *path, char *dirbuf, char *basebuf, const char **dir,
		       const char **base)
{
	int dfd, rc;

	rc = split_path(path, dirbuf, basebuf, dir, base);
	if (rc)
		return rc;
	dfd = open(*dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dfd < 0 ? -errno : dfd;
}

int atomic_sweep_temps(const char *path, unsigned older_s)
{
	char dirbuf[PATH_MAX], basebuf[PATH_MAX];
	const char *dir, *base;
	struct dirent *de;
	time_t now = time(NULL);
	int dfd, n = 0;
	DIR *d;

	dfd = open_dir_of(path, dirbuf, basebuf, &dir, &base);
	if (dfd < 0)
		return dfd;
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

/* Neither empty nor ending in '/': the name of a file, not of a directory. */
static int file_name_check(const char *path)
{
	if (!*path)
		return -ENOENT;
	return path[strlen(path) - 1] == '/' ? -EISDIR : 0;
}

int atomic_write_check(const char *path)
{
	char dirbuf[PATH_MAX], basebuf[PATH_MAX];
	const char *dir, *base;
	long name_max;
	int dfd, fd, rc;

	rc = file_name_check(path) ?: output_path_check(path);
	if (rc)
		return rc;
	dfd = open_dir_of(path, dirbuf, basebuf, &dir, &base);
	if (dfd < 0)
		return dfd;
	/* the temporary's name is the longer one, and it must fit too */
	name_max = fpathconf(dfd, _PC_NAME_MAX);
	if (1 + strlen(base) + strlen(ATOMIC_TEMP_TAG) + ATOMIC_TEMP_RANDOM >
	    (size_t)(name_max > 0 ? name_max : NAME_MAX))
		rc = -ENAMETOOLONG;
	else if (faccessat(dfd, ".", W_OK | X_OK, AT_EACCESS))
		rc = -errno;
	close(dfd);
	if (rc)
		return rc;
	/*
	 * What the write does first, undone by the close: catches what
	 * access() cannot see (no free inode, a quota, a filesystem that
	 * refuses new files).  One without unnamed files (vfat, procfs)
	 * says nothing here.
	 */
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		rc = -errno;
	return rc;
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

/* ATOMIC_TEMP_RANDOM random characters of the suffix set for the Xs */
static int random_suffix(char *x)
{
	unsigned char r[ATOMIC_TEMP_RANDOM];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return errno ? -errno : -EIO;
	for (size_t i = 0; i < sizeof(r); i++)
		x[i] = suffix_set[r[i] % (sizeof(suffix_set) - 1)];
	return 0;
}

/*
 * Name the unnamed (O_TMPFILE) file fd as tmp (".NAME.pmem-tune-tmp.XXXXXX"),
 * once it is whole: through the descriptor itself (needs
 * CAP_DAC_READ_SEARCH), else through /proc/self/fd.  It cannot become
 * PATH directly: linkat() never replaces an existing name and renameat2()
 * takes names, not a descriptor; so a temporary name lives from here to
 * the rename, and a writer killed in between leaves it for
 * atomic_sweep_temps().
 */
static int link_unnamed(int fd, char *tmp)
{
	char *x = tmp + strlen(tmp) - ATOMIC_TEMP_RANDOM, proc[32];

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

/* The file's final mode and owner. */
struct file_attrs {
	unsigned mode;
	uid_t uid;		/* (uid_t)-1: as created */
	gid_t gid;		/* (gid_t)-1: as created */
};

/* data into fd, with its final mode and owner, on stable storage */
static int fill(int fd, const char *data, size_t len, const struct file_attrs *a)
{
	int rc = write_all(fd, data, len);

	if (!rc && fchmod(fd, a->mode))
		rc = -errno;
	if (!rc && (a->uid != (uid_t)-1 || a->gid != (gid_t)-1) && fchown(fd, a->uid, a->gid))
		rc = -errno;
	if (!rc && fsync(fd))
		rc = -errno;
	return rc;
}

/*
 * The new content as tmp (".NAME.pmem-tune-tmp.XXXXXX" in path's
 * directory: rename() must not cross filesystems).  Unnamed (O_TMPFILE)
 * until it is whole, so that a writer killed half-way leaves nothing
 * behind; named from the start where the filesystem has no O_TMPFILE or
 * the file cannot be linked (no CAP_DAC_READ_SEARCH and no /proc).
 */
static int write_temp(const char *dir, char *tmp, const char *data, size_t len,
		      const struct file_attrs *a)
{
	int fd, rc;

	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		rc = fill(fd, data, len, a);
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
	/* mkostemp() fills six Xs from the same set */
	memcpy(tmp + strlen(tmp) - ATOMIC_TEMP_RANDOM, "XXXXXX", ATOMIC_TEMP_RANDOM);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = fill(fd, data, len, a);
	if (close(fd) && !rc)
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

int atomic_write_file(const char *path, const char *data, size_t len, unsigned mode)
{
	return atomic_write_file_owned(path, data, len, mode, (uid_t)-1, (gid_t)-1);
}

int atomic_write_file_owned(const char *path, const char *data, size_t len, unsigned mode,
			    uid_t uid, gid_t gid)
{
	const struct file_attrs a = { .mode = mode, .uid = uid, .gid = gid };
	char dirbuf[PATH_MAX], basebuf[PATH_MAX], tmp[2 * PATH_MAX];
	const char *dir, *base;
	int dfd, rc;

	rc = file_name_check(path) ?: split_path(path, dirbuf, basebuf, &dir, &base);
	if (rc)
		return rc;
	if (snprintf(tmp, sizeof(tmp), "%s/.%s" ATOMIC_TEMP_TAG "XXXXXX", dir, base) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	rc = output_path_check(path);
	if (rc)
		return rc;
	/* what a writer killed between link and rename left behind */
	atomic_sweep_temps(path, ATOMIC_STALE_S);
	rc = write_temp(dir, tmp, data, len, &a);
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
