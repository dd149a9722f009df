// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every path pmem-tune writes is replaced by a rename: as root, a device
 * node or a link there would be replaced for the whole system
 * (--output /dev/null).  Refused up front, before a probe spends minutes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/atomic_file.h"
#include "output_path.h"

int output_path_refused(const char *opt, const char *path)
{
	int rc = output_path_check(path);

	if (rc == -EEXIST)
		fprintf(stderr, "pmem-tune: %s %s: refused: %s is there, not a regular file\n",
			opt, path, output_path_kind(path));
	else if (rc)
		fprintf(stderr, "pmem-tune: %s %s: %s\n", opt, path, strerror(-rc));
	return rc ? 2 : 0;
}
