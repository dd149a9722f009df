/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Replacing a file whole: a reader sees the old content or the new, never a mix. */
#ifndef PT_COMMON_ATOMIC_FILE_H
#define PT_COMMON_ATOMIC_FILE_H

#include <stddef.h>

/*
 * len bytes of data as path's new content, with mode: written to a
 * temporary file beside path (unnamed until whole where the filesystem
 * allows), fsync, rename over path, fsync of the directory.  A writer
 * killed half-way leaves path as it was.  Returns 0 or negative errno.
 */
int atomic_write_file(const char *path, const char *data, size_t len, unsigned mode);

#endif
