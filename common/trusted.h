/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * When a file (or directory) may steer what we write: the policy, a
 * knob map, the daemon's state, the probe's scratch record; and where we
 * may write: the daemon's output directories.  Root writes kernel knobs
 * and every service's environment, and destroys namespaces, from them,
 * so no one else may have written them.
 */
#ifndef PT_COMMON_TRUSTED_H
#define PT_COMMON_TRUSTED_H

#include <stdbool.h>
#include <stddef.h>

struct stat;

/* Owned by root or by our effective uid, and writable by neither group nor others. */
bool trusted_stat(const struct stat *st);

/*
 * Whether no one but root and us can change what the directory dir (a
 * relative one from the working directory) holds or which directory its
 * path names: dir itself passes trusted_stat(); every directory above it
 * does too or, like /tmp, is sticky and owned by root or us (its entries
 * then belong to whoever made them); every symbolic link on the way is
 * owned by root or us, and followed (at most 40).  Read once, the path
 * then resolves to the same directory until root or we change it.
 * Returns 0; -EPERM with "PATH owned by uid U with mode 0MMM" of the
 * first component at fault in why; -ENOENT when a component is missing
 * (those above it pass: it may be created); or another -errno, also
 * said in why.
 */
int trusted_dir(const char *dir, char *why, size_t whylen);

#endif
