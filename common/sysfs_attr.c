// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sysfs_attr.h"
#include "text.h"

int read_attr(const char *path, char *buf, size_t len)
{
	ssize_t n;
	char *nl;
	int fd, r = 0;

	if (len < 2)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		r = -errno;
	} else {
		buf[n] = '\0';
		nl = strchr(buf, '\n');
		if (nl) {
			*nl = '\0';
		} else if ((size_t)n == len - 1) {
			char more;

			/*
			 * A first line that does not fit would be saved cut short
			 * and a restore would write the stump back.
			 */
			if (read(fd, &more, 1) > 0 && more != '\n')
				r = -EFBIG;
		}
	}
	close(fd);
	if (r == 0)
		strtrim(buf);
	return r;
}

int read_attrf(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return read_attr(path, buf, len);
}

int write_attr(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int fd, r = 0;

	/*
	 * O_NOFOLLOW: the caller resolved the path; a late symlink is refused.
	 * O_TRUNC is what a shell redirection does: sysfs ignores it, a
	 * regular file (test trees) needs it.
	 */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	/* sysfs takes one write per value; a short write is an error */
	n = write(fd, value, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}
