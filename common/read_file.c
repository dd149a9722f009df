// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read_file.h"

int open_regular(const char *path, unsigned flags, struct stat *st)
{
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
		  (flags & READ_FILE_NOFOLLOW ? O_NOFOLLOW : 0));
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int read_fd(int fd, size_t max, char **out, size_t *outlen)
{
	size_t len = 0, cap = 4096;
	char *buf;
	int r = 0;

	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		size_t want;
		ssize_t n;

		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		/* at most one byte past max: enough to know there is more */
		want = cap - len - 1;
		if (want > max + 1 - len)
			want = max + 1 - len;
		n = read(fd, buf + len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			r = -EFBIG;
			break;
		}
	}
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*out = buf;
	if (outlen)
		*outlen = len;
	return 0;
}

int read_file(const char *path, unsigned flags, size_t max, char **buf, size_t *len)
{
	struct stat st;
	int fd, r;

	fd = open_regular(path, flags, &st);
	if (fd < 0)
		return fd;
	/* early refusal of a large file; read_fd() still bounds one that grows */
	if ((unsigned long long)st.st_size > max)
		r = -EFBIG;
	else
		r = read_fd(fd, max, buf, len);
	close(fd);
	return r;
}
