/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Paths: joining into a fixed buffer, creating directories. */
#ifndef PT_COMMON_PATH_H
#define PT_COMMON_PATH_H

#include <stddef.h>
#include <sys/types.h>

/* a then b (either may be NULL) into out; -ENAMETOOLONG when it does not fit. */
int path_join(char *out, size_t len, const char *a, const char *b);
/* path and every missing parent with mode; an existing one is fine. */
int mkdir_p(const char *path, mode_t mode);

#endif
