/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a whole small file into memory, bounded.  The files read this
 * way (a policy, a knob map, a daemon state, a config) can be named by
 * someone else, so a FIFO or a device must not hang or flood the reader.
 */
#ifndef PT_COMMON_READ_FILE_H
#define PT_COMMON_READ_FILE_H

#include <stddef.h>

struct stat;

/* Refuse (-ELOOP) a path whose last component is a symbolic link. */
#define READ_FILE_NOFOLLOW	(1u << 0)

/*
 * Open path for reading as a regular file: O_NONBLOCK (a FIFO does not
 * block the open), O_CLOEXEC, fstat into *st.  Returns the descriptor,
 * -EINVAL when it is not a regular file, or another negative errno.
 */
int open_regular(const char *path, unsigned flags, struct stat *st);

/*
 * The rest of the open file fd, at most max bytes (-EFBIG beyond), into
 * a NUL-terminated buffer the caller frees.  *len (may be NULL) is the
 * length without the NUL.  Returns 0 or negative errno.
 */
int read_fd(int fd, size_t max, char **buf, size_t *len);

/* open_regular() then read_fd(): a regular file of at most max bytes. */
int read_file(const char *path, unsigned flags, size_t max, char **buf, size_t *len);

#endif
