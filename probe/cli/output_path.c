// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every path pmem-tune writes is replaced by a rename: as root, a device
 * node or a link there would be replaced for the whole system
 * (--output /dev/null).  Refused up front, before a probe spends minutes,
 * and so is every path the write would certainly fail on.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/output_path.h"
#include "common/atomic_file.h"

int output_path_refused(const char *opt, const char *path)
{
	int rc = atomic_write_check(path);

	if (!rc)
		return 0;
	if (!*path)
		fprintf(stderr, "pmem-tune: %s '': refused: an empty path names no file\n", opt);
	else if (rc == -EEXIST)
		fprintf(stderr, "pmem-tune: %s %s: refused: %s is there, not a regular file\n",
			opt, path, output_path_kind(path));
	else if (rc == -EISDIR)
		fprintf(stderr, "pmem-tune: %s %s: refused: ending in '/', it names a directory, "
			"not a file\n", opt, path);
	else if (rc == -ENAMETOOLONG)
		fprintf(stderr, "pmem-tune: %s %s: refused: name too long for its temporary "
			"file (.NAME" ATOMIC_TEMP_TAG "XXXXXX)\n", opt, path);
	else
		fprintf(stderr, "pmem-tune: %s %s: cannot be written: %s\n", opt, path,
			strerror(-rc));
	return 2;
}
