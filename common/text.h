/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Text in place: trimming and splitting lines. */
#ifndef PT_COMMON_TEXT_H
#define PT_COMMON_TEXT_H

#include <stdbool.h>

/* Leading and trailing blanks (isspace) removed in place; returns s itself. */
char *strtrim(char *s);
/*
 * Split text in place: returns the next line (without its '\n') and
 * moves *cursor past it, or NULL at the end.
 */
char *next_line(char **cursor);
bool startswith(const char *s, const char *prefix);

#endif
