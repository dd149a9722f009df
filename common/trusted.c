// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trusted.h"

/* As the kernel's MAXSYMLINKS: a loop is refused, not followed forever. */
#define TRUSTED_MAX_LINKS	40

static bool owned_by_us(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

bool trusted_stat(const struct stat *st)
{
	return owned_by_us(st) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static int refuse(char *why, size_t len, const char *path, const struct stat *st)
{
	snprintf(why, len, "%s owned by uid %u with mode %04o", *path ? path : "/",
		 (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777));
	return -EPERM;
}

static int failed(char *why, size_t len, const char *path, int r)
{
	snprintf(why, len, "%s: %s", *path ? path : "/", strerror(-r));
	return r;
}

/* Drop the last component of path ("/a/b" -> "/a", "/a" -> ""). */
static void strip_last(char *path)
{
	char *slash = strrchr(path, '/');

	if (slash)
		*slash = '\0';
}

/* A directory above the one asked about: a sticky one keeps our entry ours (checked next). */
static bool trusted_above(const struct stat *st)
{
	return trusted_stat(st) || ((st->st_mode & S_ISVTX) && owned_by_us(st));
}

/* "/", opened and judged as a directory above; -errno or -EPERM (why said). */
static int open_root(char *why, size_t len)
{
	struct stat st;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int r = fd < 0 || fstat(fd, &st) < 0 ? failed(why, len, "/", -errno) : 0;

	if (!r && !trusted_above(&st))
		r = refuse(why, len, "/", &st);
	if (r && fd >= 0)
		close(fd);
	return r ?: fd;
}

int trusted_dir(const char *dir, char *why, size_t whylen)
{
	char todo[PATH_MAX], walked[PATH_MAX] = "", next[PATH_MAX];
	unsigned links = 0;
	struct stat st;
	const char *rest;
	int fd, nfd, r;

	if (!*dir)
		return failed(why, whylen, dir, -ENOENT);
	if (*dir == '/') {
		r = snprintf(todo, sizeof(todo), "%s", dir);
	} else {
		if (!getcwd(next, sizeof(next)))
			return failed(why, whylen, dir, -errno);
		r = snprintf(todo, sizeof(todo), "%s/%s", next, dir);
	}
	if (r < 0 || (size_t)r >= sizeof(todo))
		return failed(why, whylen, dir, -ENAMETOOLONG);
	fd = open_root(why, whylen);
	if (fd < 0)
		return fd;
	/* one component at a time, never following a link we have not judged */
	for (rest = todo;;) {
		char name[NAME_MAX + 1];
		size_t n;

		rest += strspn(rest, "/");
		if (!*rest)
			break;
		n = strcspn(rest, "/");
		if (n > NAME_MAX) {
			r = failed(why, whylen, dir, -ENAMETOOLONG);
			goto out;
		}
		memcpy(name, rest, n);
		name[n] = '\0';
		rest += n;
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			strip_last(walked);
		} else if (strlen(walked) + 1 + n >= sizeof(walked)) {
			r = failed(why, whylen, dir, -ENAMETOOLONG);
			goto out;
		} else {
			strcat(strcat(walked, "/"), name);
		}
		nfd = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 || fstat(nfd, &st) < 0) {
			r = failed(why, whylen, walked, -errno);
			if (nfd >= 0)
				close(nfd);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t len;

			close(nfd);
			/* in a sticky directory anyone may own a link: whoever does can turn it */
			if (!owned_by_us(&st)) {
				r = refuse(why, whylen, walked, &st);
				goto out;
			}
			if (++links > TRUSTED_MAX_LINKS) {
				r = failed(why, whylen, walked, -ELOOP);
				goto out;
			}
			len = readlinkat(fd, name, target, sizeof(target) - 1);
			if (len < 0) {
				r = failed(why, whylen, walked, -errno);
				goto out;
			}
			target[len] = '\0';
			r = snprintf(next, sizeof(next), "%s%s", target, rest);
			if (r < 0 || (size_t)r >= sizeof(next)) {
				r = failed(why, whylen, walked, -ENAMETOOLONG);
				goto out;
			}
			memcpy(todo, next, (size_t)r + 1);
			rest = todo;
			strip_last(walked);
			if (*target == '/') {
				close(fd);
				walked[0] = '\0';
				fd = open_root(why, whylen);
				if (fd < 0)
					return fd;
			}
			continue;
		}
		close(fd);
		fd = nfd;
		if (!S_ISDIR(st.st_mode)) {
			r = failed(why, whylen, walked, -ENOTDIR);
			goto out;
		}
		if (!trusted_above(&st)) {
			r = refuse(why, whylen, walked, &st);
			goto out;
		}
	}
	/* dir itself: no one else may add, remove or rename what it holds */
	if (fstat(fd, &st) < 0)
		r = failed(why, whylen, walked, -errno);
	else
		r = trusted_stat(&st) ? 0 : refuse(why, whylen, walked, &st);
out:
	close(fd);
	return r;
}
