/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A file under a fake root (sysfs, /proc, /etc) for a unit test, parents made. */
#ifndef PT_PUT_FILE_H
#define PT_PUT_FILE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* root/rel with content; any failure ends the test (exit 1) */
static inline void put_file(const char *root, const char *rel, const char *content)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			perror(path);
			exit(EXIT_FAILURE);
		}
		*s = '/';
	}
	f = fopen(path, "w");
	if (!f || fputs(content, f) < 0 || fclose(f)) {
		perror(path);
		exit(EXIT_FAILURE);
	}
}

#endif
