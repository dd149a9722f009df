/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * When a file (or directory) may steer what we write: the policy, a
 * knob map, the daemon's state.  Root writes kernel knobs and every
 * service's environment from them, so no one else may have written them.
 */
#ifndef PT_COMMON_TRUSTED_H
#define PT_COMMON_TRUSTED_H

#include <stdbool.h>

struct stat;

/* Owned by root or by our effective uid, and writable by neither group nor others. */
bool trusted_stat(const struct stat *st);

#endif
