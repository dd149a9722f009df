/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state file: what scratch_acquire() created and has not yet
 * destroyed, one record each, written (atomically) before the first
 * byte of a namespace label is; and the lock file beside it that
 * serialises probes.  The record format is exposed for tests and --list.
 */
#ifndef PMEM_TUNE_SCRATCH_STATE_H
#define PMEM_TUNE_SCRATCH_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

/*
 * Labelled namespaces outlive a reboot, so the records of those a crash
 * left behind must too: /var/lib, not /run (POLICY_PROBE_STATE_DIR).
 */
#define SCRATCH_STATE_FILE	"scratch.json"
#define SCRATCH_STATE_SCHEMA	"pmem-tune-scratch/1"

struct scratch_record {
	char uuid[40];			/* the namespace label's (or, label-less, the dax's) */
	char region[POLICY_NAME_MAX];
	char ns[POLICY_NAME_MAX];	/* "namespace0.1" */
	char mode[16];			/* "devdax" | "fsdax" | "label-less" */
	char mount[POLICY_PATH_MAX];	/* fsdax: the DAX mount's directory */
	char restore[16];		/* label-less: the mode to put back */
	char phase[16];			/* label-less: "disabled" once the probe took it offline */
	long pid;			/* the probe that wrote it */
	char created[32];		/* RFC 3339 UTC */
};

/* The state directory: policy_probe_state_dir(). */
const char *scratch_state_dir(void);
/* JSON text of n records; caller frees.  NULL on allocation failure. */
char *scratch_state_format(const struct scratch_record *recs, size_t n);
/*
 * Parse the state file's text.  *recs is allocated (free() it), *n set.
 * On a malformed file: -EINVAL with a one-line reason in err.
 */
int scratch_state_parse(const char *text, struct scratch_record **recs, size_t *n, char *err,
			size_t errlen);
/*
 * Load path (a missing file is zero records) / save (zero records removes
 * it).  Load refuses (-EPERM, why in err) a file or a directory, or one
 * above it, that someone other than root or us owns or can write
 * (common/trusted.h), and a symbolic link.
 */
int scratch_state_load(const char *path, struct scratch_record **recs, size_t *n, char *err,
		       size_t errlen);
int scratch_state_save(const char *path, const struct scratch_record *recs, size_t n);
/* name in the state directory into buf; -ENAMETOOLONG when it does not fit. */
int scratch_state_path(char *buf, size_t len, const char *name);
/*
 * Add rec to the state file (add) or drop the record of rec->uuid
 * (!add), under the lock.  Returns 0 or negative errno with a reason in err.
 */
int scratch_state_update(const struct scratch_record *rec, bool add, char *err, size_t errlen);
/* --insecure: read and lock where the rule above would refuse. */
void scratch_state_insecure(bool insecure);
/*
 * Take the probes' lock (once; held until the process exits, the kernel
 * drops it when a probe is killed).  -EBUSY when another probe holds
 * it, with its pid in err when known; -EPERM when the state directory
 * or one above it is not trusted (common/trusted.h), said in err.
 */
int scratch_lock(char *err, size_t errlen);

#endif
