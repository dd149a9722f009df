/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line every benchmark shares. */
#ifndef PT_BENCH_CLI_H
#define PT_BENCH_CLI_H

#include <stdio.h>

/*
 * The exit status for getopt's c where it is -h/--help ('h': usage on
 * stdout, 0) or an option the tool does not take (usage on stderr, 2).
 */
static inline int bench_usage_exit(int c, void (*usage)(FILE *f))
{
	usage(c == 'h' ? stdout : stderr);
	return c == 'h' ? 0 : 2;
}

#endif
