/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The paths pmem-tune writes (--output, --merge OUT, --metrics OUT, --plot FILE). */
#ifndef PMEM_TUNE_OUTPUT_PATH_H
#define PMEM_TUNE_OUTPUT_PATH_H

/*
 * 0 when path may be written: it does not exist or is a regular file
 * (not followed if a link).  Else one line on stderr naming opt and
 * what is there, and 2, the usage exit status.  Checked before any work;
 * the atomic write checks again before its rename.
 */
int output_path_refused(const char *opt, const char *path);

#endif
