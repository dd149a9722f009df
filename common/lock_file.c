// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/lock_file.h"

int lock_file_open(const char *path, struct stat *st)
{
	int fd, r;

	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}
