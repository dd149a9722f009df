/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake root (sysfs, /proc, /etc) for a test: files, links and
 * directories under it, parents made, what stands at a name replaced;
 * removed whole at the end.  Any failure to make it ends the test (exit 1).
 */
#ifndef PT_PUT_FILE_H
#define PT_PUT_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static inline void fake_root_fail(const char *path)
{
	perror(path);
	exit(EXIT_FAILURE);
}

/* root/rel into path (4096 bytes), its parents made below root */
static inline void fake_root_parents(char *path, const char *root, const char *rel)
{
	if ((size_t)snprintf(path, 4096, "%s/%s", root, rel) >= 4096)
		abort();
	for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fake_root_fail(path);
		*s = '/';
	}
}

/* root/rel with content and mode, replacing what is there */
static inline void put_file_mode(const char *root, const char *rel, const char *content,
				 unsigned mode)
{
	size_t n = strlen(content);
	char path[4096];
	int fd;

	fake_root_parents(path, root, rel);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, content, n) != (ssize_t)n || close(fd))
		fake_root_fail(path);
	if (chmod(path, mode))
		fake_root_fail(path);
}

/* root/rel with content (mode 0644) */
static inline void put_file(const char *root, const char *rel, const char *content)
{
	put_file_mode(root, rel, content, 0644);
}

/* root/rel -> target, replacing what is there */
static inline void put_link(const char *root, const char *rel, const char *target)
{
	char path[4096];

	fake_root_parents(path, root, rel);
	unlink(path);
	if (symlink(target, path))
		fake_root_fail(path);
}

/* root/rel, an empty directory */
static inline void put_dir(const char *root, const char *rel)
{
	char path[4096];

	fake_root_parents(path, root, rel);
	if (mkdir(path, 0755) && errno != EEXIST)
		fake_root_fail(path);
}

static inline int fake_root_unlink(const char *path, const struct stat *st, int flag,
				   struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* path and all below it, links not followed; nothing there is no error */
static inline void remove_tree(const char *path)
{
	nftw(path, fake_root_unlink, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
