/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's own state metrics, for node-exporter's textfile
 * collector: written after every pass that applies or restores (the
 * daemon, --oneshot, --restore), so that they are as fresh as the
 * daemon's state, not as the last run of pmem-tune --metrics.  Only
 * where pmem-tuned.conf names a file (metrics_file=); nothing by
 * default.
 *
 *   pmem_tuned_policy_applied                    1 a policy is applied, 0 none
 *   pmem_tuned_last_apply_timestamp_seconds      when the last pass applied it
 *   pmem_tuned_knobs{result}                     set, unchanged, failed, refused
 *   pmem_tuned_apply_drift_knobs                 knob drift the last apply found
 *   pmem_tuned_environment_changed{what}         kernel, microcode (environment.h)
 *
 * The file is replaced whole (atomic_write_file()).  Its directory is
 * reached without following a symbolic link and must be root's (or
 * this user's) alone, like the state directory; a file in its place
 * that is not a regular file is never replaced.
 */
#ifndef PT_METRICS_FILE_H
#define PT_METRICS_FILE_H

#include <stddef.h>

#include "daemon/daemon.h"

/*
 * The text of d's metrics, applied saying whether a policy is applied
 * now (not after a restore); caller frees; NULL when out of memory.
 */
char *metrics_file_text(const struct daemon *d, bool applied, size_t *len);
/* Write it to d->opt.metrics_file (under --etc-root); errors logged once each. */
void metrics_file_write(struct daemon *d, bool applied);

#endif
