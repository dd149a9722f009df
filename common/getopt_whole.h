/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * getopt_long() that takes whole option names only.
 *
 * glibc's getopt_long() accepts any unambiguous prefix of a long option:
 * "--prob" runs --probe, "--des" is --destroy-data.  A command that writes
 * a policy or destroys a namespace must not run on a typo, so these
 * programs accept a long option only by its whole name and answer a prefix
 * or a near miss with "did you mean --NAME?".
 */
#ifndef PT_COMMON_GETOPT_WHOLE_H
#define PT_COMMON_GETOPT_WHOLE_H

#include <getopt.h>

/*
 * As getopt_long(argc, argv, shortopts, longopts, NULL), except that:
 * - a long option given by a prefix of its name is refused;
 * - errors are printed here, once, as "PROG: WHAT" with a suggestion where
 *   one option is near (getopt's own messages are turned off);
 * - every error returns '?' (a missing argument too).
 * shortopts must not start with ':' or '+'/'-'; prog names the program in
 * the messages.
 */
int getopt_whole(int argc, char **argv, const char *shortopts, const struct option *longopts,
		 const char *prog);

/*
 * The long option whose name is nearest to name (at most two edits away,
 * or the only one that name is a prefix of), or NULL.  name has no "--".
 */
const struct option *getopt_nearest(const struct option *longopts, const char *name,
				    size_t name_len);

#endif
