/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A scratch directory for unit tests that read files: made under $TMPDIR,
 * filled with files of a given mode, removed at the end unless a check
 * failed (then kept for a look).
 */
#ifndef PT_TMPTREE_H
#define PT_TMPTREE_H

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "put_file.h"

static char tmptree_root[PATH_MAX];

static inline void tmptree_make(const char *name)
{
	const char *tmp = getenv("TMPDIR");

	/* the daemon refuses files that others can write */
	umask(022);
	if (!tmp || access(tmp, W_OK) < 0)
		tmp = "/tmp";
	snprintf(tmptree_root, sizeof(tmptree_root), "%s/%s.XXXXXX", tmp, name);
	if (!mkdtemp(tmptree_root)) {
		perror(tmptree_root);
		exit(2);
	}
}

/* root/rel; the last four results stay valid */
static inline const char *tmptree_path(const char *rel)
{
	static char bufs[4][PATH_MAX];
	static int i;
	char *b = bufs[i++ % 4];

	if (snprintf(b, PATH_MAX, "%s/%s", tmptree_root, rel) >= PATH_MAX)
		abort();
	return b;
}

/* rel with content and mode (put_file.h's writer) */
static inline void tmptree_put(const char *rel, const char *content, unsigned mode)
{
	put_file_mode(tmptree_root, rel, content, mode);
}

static inline int tmptree_exists(const char *rel)
{
	return access(tmptree_path(rel), F_OK) == 0;
}

static inline void tmptree_remove(unsigned failed)
{
	if (failed) {
		fprintf(stderr, "tree kept in %s\n", tmptree_root);
		return;
	}
	remove_tree(tmptree_root);
}

#endif
