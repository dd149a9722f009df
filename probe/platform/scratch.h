/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scratch space on persistent-memory regions, through libndctl: a
 * namespace the probe creates in free capacity (devdax preferred, fsdax
 * plus a DAX-mounted file otherwise), alt-name "pmem-tune-scratch", its
 * UUID recorded in a state file before the first byte is written, and
 * destroyed afterwards.  Nothing else is ever touched unless named and
 * allowed with destroy_data.
 */
#ifndef PMEM_TUNE_SCRATCH_H
#define PMEM_TUNE_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/regions.h"
#include "platform/scratch_state.h"
#include "policy/policy.h"

#define SCRATCH_ALT_NAME "pmem-tune-scratch"

struct scratch {
	/* a target spec for target_open(): "/dev/daxX.Y" or "file:PATH" */
	char spec[POLICY_PATH_MAX + 8];
	/* the probe created what it writes: no --destroy-data needed */
	bool owned;
	/*
	 * Bytes usable at spec (the devdax size, or what the DAX-mounted
	 * filesystem has free): cap target_opts.area_bytes with it.
	 */
	uint64_t area_bytes;
	/* "devdax", "fsdax" (a file on a DAX mount), "label-less" (a whole region) */
	char how[16];
	struct region_identity id;
	void *priv;				/* scratch.c's own state */
};

/*
 * The regions a target spec ("auto" or "region:NAME") stands for.  auto:
 * every pmem region with room for a scratch namespace; regions that are
 * skipped get one line each on stderr saying why.  Returns the count
 * (0: no pmem; the caller falls back to dram) or negative errno with a
 * one-line reason in err.
 */
int scratch_plan(const char *spec, bool destroy_data, char (*regions)[POLICY_NAME_MAX],
		 size_t max, char *err, size_t errlen);

/*
 * Create scratch space of about size_bytes usable (0: 4 x LLC, at least
 * 64 MiB) in region, capped by its largest free extent: a devdax
 * namespace, or fsdax + ext4 -o dax + a file where devdax cannot be had
 * (PMEM_TUNE_SCRATCH_MODE=devdax|fsdax forces one, for tests).
 * A label-less region (not subdividable) needs destroy_data and is
 * taken whole: its namespace is used as it is when already devdax,
 * else turned into devdax for the probe and put back into its mode
 * (raw or fsdax, empty) by scratch_release(); refused while mounted,
 * open elsewhere, or online as system RAM.  Holds a lock file until the
 * process exits: a second probe gets -EBUSY.
 */
int scratch_acquire(const char *region, uint64_t size_bytes, bool destroy_data,
		    struct scratch *s, char *err, size_t errlen);

/*
 * Destroy what scratch_acquire created (after target_close()); safe to
 * call twice.  Call it from the normal path, not a signal handler.  If
 * it cannot (busy), it says so and keeps the record for the next probe.
 */
void scratch_release(struct scratch *s);

/*
 * Remove scratch namespaces a crashed probe left behind (alt-name and
 * the state file's UUID both match), saying so on stderr; namespaces
 * named pmem-tune-scratch without a record are reported and left alone.
 * Returns the number removed or negative errno, already said on stderr
 * (-EBUSY: another probe holds the lock).
 */
int scratch_reap_stale(void);

/*
 * Why `--target auto` would not take a scratch namespace in region (one
 * line, into buf or a constant), or NULL when it would.
 */
const char *scratch_region_skip_reason(struct ndctl_region *region, uint64_t llc_bytes,
				       char *buf, size_t len);

#endif
