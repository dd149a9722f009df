/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The paths pmem-tune writes (--output, --merge OUT, --metrics OUT, --plot FILE). */
#ifndef PMEM_TUNE_OUTPUT_PATH_H
#define PMEM_TUNE_OUTPUT_PATH_H

/*
 * 0 when path may be written: it does not exist or is a regular file
 * (not followed if a link), in a directory we may create files in, and
 * the write is not certain to fail (atomic_write_check(): an empty path,
 * one ending in '/', a name too long for its temporary).  Else one line
 * on stderr naming opt, the path and why, and 2, the usage exit status.
 * Checked before any work; the atomic write checks again before its rename.
 */
int output_path_refused(const char *opt, const char *path);

#endif
