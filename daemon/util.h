/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PT_UTIL_H
#define PT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct stat;

/* Whole file into a NUL-terminated buffer (at most max bytes); caller frees. */
int read_text(const char *path, size_t max, char **out);
/* The same, refusing (-ELOOP) a path whose last component is a symlink. */
int read_text_nofollow(const char *path, size_t max, char **out);
/* The rest of an open file, as read_text. */
int read_fd(int fd, size_t max, char **out);
/*
 * First line of a sysfs attribute, trailing newline and blanks removed;
 * -EFBIG when that line does not fit in len - 1 bytes.
 */
int read_attr(const char *path, char *buf, size_t len);
/* One write(2) of value; the kernel's errno (EINVAL, EACCES...) comes back. */
int write_attr(const char *path, const char *value);
/* a + b into out; -ENAMETOOLONG when it does not fit. */
int path_join(char *out, size_t len, const char *a, const char *b);
int mkdir_p(const char *path, unsigned mode);
char *strtrim(char *s);
/*
 * Control characters (newline included) become '?': for text from a
 * policy or the environment that ends up in a one-line context (STATUS=,
 * an environment file's comment, a log line).
 */
void sanitize_line(char *s);
/*
 * Owned by root or by us, writable by nobody else: the test for a file
 * or directory whose content steers what root writes.
 */
bool trusted_stat(const struct stat *st);
/* Split text in place: returns the next line (without '\n') or NULL at the end. */
char *next_line(char **cursor);
bool startswith(const char *s, const char *prefix);
/* Decimal or 0x hexadecimal, whole string, no sign. */
int parse_u64(const char *s, uint64_t *v);
/* Sysfs values compare equal as text, as numbers, or as booleans (Y/1, N/0). */
bool values_equal(const char *a, const char *b);

#endif
