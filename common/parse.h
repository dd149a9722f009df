/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Numbers from text written by the kernel, a config file or a policy. */
#ifndef PT_COMMON_PARSE_H
#define PT_COMMON_PARSE_H

#include <stdint.h>

/*
 * Decimal, or hexadecimal after "0x", the whole string, no sign, no
 * blanks.  Returns 0, -EINVAL (not such a number) or -ERANGE.
 */
int parse_u64(const char *s, uint64_t *v);
/* As parse_u64(), decimal only ("010" is ten, "0x10" is refused). */
int parse_u64_dec(const char *s, uint64_t *v);

#endif
