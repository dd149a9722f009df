/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sysfs (and /proc) attributes: one short value each.  Reading is
 * strict: a value that does not fit is an error, never a cut-short
 * value that a restore would write back or a fingerprint would hash.
 */
#ifndef PT_COMMON_SYSFS_ATTR_H
#define PT_COMMON_SYSFS_ATTR_H

#include <stddef.h>

/*
 * First line of the attribute at path into buf (len bytes with the NUL),
 * leading and trailing blanks removed.  Returns 0, -EFBIG when that line
 * does not fit in len - 1 bytes, or another negative errno.
 */
int read_attr(const char *path, char *buf, size_t len);

/* As read_attr(), the path printf-style; -ENAMETOOLONG when it is over PATH_MAX. */
int read_attrf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * value in one write(2), not through a symlink; the kernel's errno
 * (EINVAL, EACCES...) comes back, a short write is -EIO.
 */
int write_attr(const char *path, const char *value);

#endif
