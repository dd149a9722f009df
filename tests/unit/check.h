/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal assertions for the unit tests: count, report, exit non-zero. */
#ifndef PT_CHECK_H
#define PT_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned check_failed, check_passed;

#define CHECK(cond)							\
	do {								\
		if (cond) {						\
			check_passed++;					\
		} else {						\
			check_failed++;					\
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n",	\
				__FILE__, __LINE__, #cond);		\
		}							\
	} while (0)

#define CHECK_MSG(cond, ...)						\
	do {								\
		if (cond) {						\
			check_passed++;					\
		} else {						\
			check_failed++;					\
			fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);	\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

#define CHECK_STR(a, b) CHECK_MSG(strcmp((a), (b)) == 0,		\
				  "'%s' != '%s' (%s vs %s)", (a), (b), #a, #b)
#define CHECK_INT(a, b) CHECK_MSG((long long)(a) == (long long)(b),	\
				  "%lld != %lld (%s vs %s)",		\
				  (long long)(a), (long long)(b), #a, #b)
#define CHECK_NEAR(a, b, eps) CHECK_MSG(fabs((double)(a) - (double)(b)) <= (eps), \
				  "%g !~ %g (%s vs %s)", (double)(a), (double)(b), #a, #b)

/* The data directory a test takes as its one argument; else usage and exit 1. */
static inline const char *check_data_dir(int argc, char **argv, const char *name)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s TESTS_DATA_DIR\n", name);
		exit(EXIT_FAILURE);
	}
	return argv[1];
}

static inline int check_report(const char *name)
{
	printf("%s: %u passed, %u failed\n", name, check_passed, check_failed);
	return check_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
