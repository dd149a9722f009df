// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

int read_fd(int fd, size_t max, char **out)
{
	size_t len = 0, cap = 4096;
	char *buf;
	int r = 0;

	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *nb;

			if (cap >= max + 1) {
				r = -EFBIG;
				break;
			}
			cap *= 2;
			nb = realloc(buf, cap);
			if (!nb) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += n;
	}
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

static int read_text_flags(const char *path, int flags, size_t max, char **out)
{
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | flags);
	if (fd < 0)
		return -errno;
	r = read_fd(fd, max, out);
	close(fd);
	return r;
}

int read_text(const char *path, size_t max, char **out)
{
	return read_text_flags(path, 0, max, out);
}

int read_text_nofollow(const char *path, size_t max, char **out)
{
	return read_text_flags(path, O_NOFOLLOW, max, out);
}

int read_attr(const char *path, char *buf, size_t len)
{
	ssize_t n;
	char *nl;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
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
			if (read(fd, &more, 1) > 0)
				r = -EFBIG;
		}
	}
	close(fd);
	if (r == 0)
		strtrim(buf);
	return r;
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

int path_join(char *out, size_t len, const char *a, const char *b)
{
	int n = snprintf(out, len, "%s%s", a ? a : "", b ? b : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int mkdir_p(const char *path, unsigned mode)
{
	char buf[4096];
	char *p;

	if (path_join(buf, sizeof(buf), path, NULL) < 0)
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

char *strtrim(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		memmove(s, s + 1, strlen(s));
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

char *next_line(char **cursor)
{
	char *line = *cursor, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*cursor = nl + 1;
	} else {
		*cursor = line + strlen(line);
	}
	return line;
}

void sanitize_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

bool trusted_stat(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;
	int base = 10;

	if (!s || !*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		if (!isxdigit((unsigned char)s[2]))
			return -EINVAL;
	}
	errno = 0;
	x = strtoull(s, &end, base);
	if (errno)
		return -errno;
	if (*end)
		return -EINVAL;
	*v = x;
	return 0;
}

static int as_bool(const char *s)
{
	if (!strcmp(s, "Y") || !strcmp(s, "y") || !strcmp(s, "1"))
		return 1;
	if (!strcmp(s, "N") || !strcmp(s, "n") || !strcmp(s, "0"))
		return 0;
	return -1;
}

bool values_equal(const char *a, const char *b)
{
	uint64_t x, y;
	int ba, bb;

	if (!strcmp(a, b))
		return true;
	if (parse_u64(a, &x) == 0 && parse_u64(b, &y) == 0)
		return x == y;
	/* bool module parameters read back as Y/N whatever was written */
	ba = as_bool(a);
	bb = as_bool(b);
	return ba >= 0 && ba == bb;
}
