// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "path.h"

int path_join(char *out, size_t len, const char *a, const char *b)
{
	int n = snprintf(out, len, "%s%s", a ? a : "", b ? b : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];

	if (!*path)
		return -ENOENT;
	if (path_join(buf, sizeof(buf), path, NULL) < 0)
		return -ENAMETOOLONG;
	for (char *p = buf + 1; ; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			return 0;
	}
}
