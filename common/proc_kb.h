/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One "Key:   N kB" figure of a /proc file such as meminfo or smaps_rollup. */
#ifndef PT_COMMON_PROC_KB_H
#define PT_COMMON_PROC_KB_H

#include <stdint.h>

/* The figure of key in path, in kB; 0 where the file or the key is not there. */
uint64_t proc_kb(const char *path, const char *key);

#endif
