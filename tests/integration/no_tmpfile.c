// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD shim for the file: target's tests: open(2) with O_TMPFILE
 * fails with EOPNOTSUPP, as it does on a filesystem without unnamed files
 * (vfat, NFS before 4.2), so that the probe's fallback runs on this one.
 * Each refusal is appended to $PT_NO_TMPFILE_LOG: a test that asks for the
 * fallback can tell that it ran.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*open_fn)(const char *path, int flags, ...);

int open(const char *path, int flags, ...)
{
	open_fn real = (open_fn)dlsym(RTLD_NEXT, "open");
	const char *log = getenv("PT_NO_TMPFILE_LOG");
	mode_t mode = 0;
	va_list ap;

	if ((flags & O_TMPFILE) == O_TMPFILE) {
		FILE *f = log ? fopen(log, "ae") : NULL;

		if (f) {
			fprintf(f, "%s: O_TMPFILE refused\n", path);
			fclose(f);
		}
		errno = EOPNOTSUPP;
		return -1;
	}
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	/* the mode is there only with O_CREAT, as open(2) reads it */
	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return real(path, flags, mode);
}

/* one open on 64-bit glibc: a caller built for large files links to open64 */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));
