/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sink pushes one consumer's share of the policy somewhere: kernel
 * knobs (sysfs), PMDK's environment (libpmem), glibc's tunables.  Like
 * tuned's plugins each can apply, verify and restore; the originals
 * live in the shared state so that restore works after a restart.
 */
#ifndef PT_SINK_H
#define PT_SINK_H

#include <stdbool.h>

#include "daemon/config.h"

struct policy;
struct knobmap;
struct state;
struct state_entry;
struct bus;

struct sink_stats {
	unsigned set;		/* written and read back */
	unsigned unchanged;	/* already at the policy's value */
	unsigned failed;	/* write or read-back failed */
	unsigned refused;	/* outside the allowlist, invalid value */
	unsigned drift;		/* verify / dry-run: would change */
	/* apply: knobs found not holding the value we wrote (knob drift), set again */
	unsigned drifted;
};

struct sink_ctx {
	const struct options *opt;
	const struct policy *policy;	/* NULL: nothing to apply */
	const char *policy_id;		/* fingerprint, for file headers */
	const struct knobmap *knobs;
	struct state *state;
	struct bus *bus;		/* NULL: no service manager */
	const char *only_module;	/* sysfs: just this module (it loaded) */
	bool dry_run;			/* print, change nothing */
	bool verify;			/* count drift, change nothing */
	struct sink_stats stats;
};

struct sink {
	const char *name;
	/*
	 * Push the policy; failures are logged and counted, others go on.
	 * With ctx->verify it changes nothing and counts (ctx->stats.drift)
	 * and logs what differs from the policy instead: that is verify.
	 */
	int (*apply)(struct sink_ctx *ctx);
	/* Put s's originals back: all, or only those this pass did not touch. */
	int (*restore)(const struct sink *s, struct sink_ctx *ctx, bool stale_only);
};

extern const struct sink sink_sysfs;
extern const struct sink sink_libpmem;
extern const struct sink sink_glibc;

/* Shared by the environment sinks (envfile.c). */
#define PT_FILE_MARKER "# Written by pmem-tuned"
int envfile_apply(struct sink_ctx *ctx, const char *sink, const char *rel_path,
		  const char *content);
int manager_env_apply(struct sink_ctx *ctx, const char *sink, const char *name,
		      const char *value);
int manager_env_base(struct sink_ctx *ctx, const char *sink, const char *name,
		     char **value);
/* Restore one state entry of key "file:..." or "manager:..."; 0 = forget it. */
int env_entry_restore(struct sink_ctx *ctx, struct state_entry *e);
/* The restore of a sink whose entries are all "file:..." or "manager:...". */
int env_restore(const struct sink *s, struct sink_ctx *ctx, bool stale_only);

#endif
