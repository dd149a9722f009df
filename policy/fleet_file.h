/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The installed policy as a fleet's file, and where a host's own probe
 * goes when it is one.  A fleet's file (a bundle, a merged entry, or a
 * symbolic link its configuration management keeps pointing at one) is
 * the fleet's to replace: a probe on one host writes its result where
 * the fleet collects it instead, and the probe unit reads it there.
 */
#ifndef PMEM_POLICY_FLEET_FILE_H
#define PMEM_POLICY_FLEET_FILE_H

#include <stddef.h>

/* The probe's state directory (scratch records, its lock, the kept probe). */
#define POLICY_PROBE_STATE_DIR	"/var/lib/pmem-tune"
/* $PMEM_TUNE_STATE_DIR overrides it (tests; a fleet with its own layout). */
#define POLICY_PROBE_STATE_ENV	"PMEM_TUNE_STATE_DIR"
/* The host's own probe, kept where the fleet's playbook fetches it. */
#define POLICY_KEPT_PROBE	"probe.json"

/* $PMEM_TUNE_STATE_DIR when set and not empty, else POLICY_PROBE_STATE_DIR. */
const char *policy_probe_state_dir(void);
/* <state dir>/probe.json into out; -ENAMETOOLONG when it does not fit. */
int policy_kept_probe_path(char *out, size_t len);

/*
 * Is path a fleet's file, which no probe replaces?  1 when it is a
 * symbolic link (dangling or not) or a regular file whose JSON holds a
 * "bundle" or a "merged" entry (read as text, not validated: a bundle of
 * a newer schema is still the fleet's); why (may be NULL) then says which
 * in a few words.  0 when there is no file, or it is a single probe's
 * policy or no policy at all (a probe may replace it, as before); another
 * kind of file is 0 too, for the caller's own refusal.  Negative errno
 * when it cannot be told (unreadable, or refused by the loader's first
 * pass: over POLICY_MAX_FILE_BYTES, its tree over the memory budget, not
 * UTF-8, a NUL byte, a host id that is none).
 */
int policy_is_fleet_file(const char *path, char *why, size_t len);

#endif
