/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PT_SANITIZE_H
#define PT_SANITIZE_H

/*
 * Control characters (newline included) become '?': for text from a
 * policy or the environment that ends up in a one-line context (STATUS=,
 * an environment file's comment, a log line).
 */
void sanitize_line(char *s);

#endif
