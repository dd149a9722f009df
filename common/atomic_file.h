/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Replacing a file whole: a reader sees the old content or the new, never a mix. */
#ifndef PT_COMMON_ATOMIC_FILE_H
#define PT_COMMON_ATOMIC_FILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The temporary of DIR/NAME is DIR/.NAME.pmem-tune-tmp.XXXXXX: hidden, the
 * tag no one else writes, ATOMIC_TEMP_RANDOM characters of [A-Za-z0-9].
 * Only a name of exactly this shape is ever swept: an administrator's
 * NAME.backup, NAME.golden or NAME.231203 beside it is never ours.
 */
#define ATOMIC_TEMP_TAG		".pmem-tune-tmp."
#define ATOMIC_TEMP_RANDOM	6
/* A temporary older than this is no live writer's: a save takes milliseconds. */
#define ATOMIC_STALE_S		600

/*
 * len bytes of data as path's new content, with mode: written to a
 * temporary file beside path (unnamed until whole where the filesystem
 * allows), fsync, rename over path, fsync of the directory.  A writer
 * killed half-way leaves path as it was.  An existing path that is not a
 * regular file (a device, a FIFO, a directory, a symbolic link: not
 * followed) is refused with -EEXIST, before and again just before the
 * rename; an empty path is -ENOENT, one ending in '/' -EISDIR.  Stale
 * temporaries of path are swept first (atomic_sweep_temps(path,
 * ATOMIC_STALE_S)).  Returns 0 or negative errno.
 */
int atomic_write_file(const char *path, const char *data, size_t len, unsigned mode);

/*
 * As atomic_write_file(), the new file given to uid:gid ((uid_t)-1 /
 * (gid_t)-1: left as created) before it takes path's name.  The mode is
 * set first: chown(2) clears set-user-ID and set-group-ID.  A file
 * owned by others needs CAP_CHOWN; without it (-EPERM) path is left as it
 * was.
 */
int atomic_write_file_owned(const char *path, const char *data, size_t len, unsigned mode,
			    uid_t uid, gid_t gid);

/* 0 when path does not exist or is a regular file (lstat), else -EEXIST or -errno. */
int output_path_check(const char *path);
/* What is at path, for messages: "a character device", "a symbolic link", ... */
const char *output_path_kind(const char *path);

/*
 * 0 when atomic_write_file(path, ...) may succeed, else the negative errno
 * it would certainly fail with, found without writing anything: an empty
 * path or one ending in '/', what output_path_check() refuses, a directory
 * that is missing or not one, a name whose temporary would be too long
 * (-ENAMETOOLONG), a directory we may not create files in (-EACCES,
 * -EROFS, -EPERM).  For commands to refuse before they spend minutes.
 */
int atomic_write_check(const char *path);

/*
 * Remove the temporaries of path (ATOMIC_TEMP_TAG above, matched exactly)
 * that a writer killed between naming and renaming left beside it:
 * regular files of the effective user, unmodified for older_s seconds.
 * Returns how many were removed, or negative errno.
 */
int atomic_sweep_temps(const char *path, unsigned older_s);

#endif
