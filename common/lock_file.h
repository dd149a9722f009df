/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A lock file a pid is written into, opened so that nothing else is
 * written through it: a link planted at its name, or a FIFO, is refused.
 */
#ifndef PT_COMMON_LOCK_FILE_H
#define PT_COMMON_LOCK_FILE_H

struct stat;

/*
 * Open path read-write, created 0600 where missing, never through a
 * symbolic link (-ELOOP), without blocking on a FIFO, and only a regular
 * file (-EINVAL); *st is its stat, for the caller's own checks (owner,
 * links).  Returns the descriptor, or negative errno.
 */
int lock_file_open(const char *path, struct stat *st);

#endif
