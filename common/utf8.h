/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* UTF-8 as RFC 3629 has it: no overlong form, no surrogate, nothing above U+10FFFF. */
#ifndef PT_COMMON_UTF8_H
#define PT_COMMON_UTF8_H

#include <stddef.h>

/*
 * Length (1 to 4) of the valid UTF-8 sequence at s[0..n), n > 0; 0 when
 * there is none, with *why (if why is not NULL) saying what is wrong.
 */
size_t utf8_seq_len(const unsigned char *s, size_t n, const char **why);

#endif
