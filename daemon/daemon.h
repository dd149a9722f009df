/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PT_DAEMON_H
#define PT_DAEMON_H

#include <stdbool.h>
#include <time.h>

#include "daemon/config.h"
#include "daemon/knobmap.h"
#include "daemon/sink.h"
#include "daemon/state.h"
#include "policy/environment.h"

struct policy;
struct bus;

enum reload_result {
	RELOAD_APPLIED,		/* the policy is applied (some knobs may have failed) */
	RELOAD_KEPT,		/* rejected, missing or foreign: previous state kept */
};

struct daemon {
	struct options opt;
	struct policy *policy;		/* the one applied; NULL = none */
	char policy_id[PATH_MAX + 96];
	struct knobmap knobs;
	struct state state;
	int lock_fd;			/* instance_lock(); -1 when not held */
	struct bus *bus;
	struct sink_stats stats;	/* of the last full pass */
	struct policy_env_report env;	/* of the applied policy against this host */
	time_t applied_at;		/* the last pass that applied it; 0 never */
	int metrics_err;		/* the last metrics_file_write() error, logged once */
	char status[2 * PATH_MAX + 1024];	/* STATUS= line */
	bool probe_requested;
};

extern const struct sink *const sinks[];

/*
 * Config, state, bus.  A mode that writes first locks the state
 * directory: -EBUSY (logged) when another instance holds it.
 */
int daemon_init(struct daemon *d);
void daemon_fini(struct daemon *d);
/* (Re)read the knob map. */
void daemon_load_knobs(struct daemon *d);
/* Load policy, knob map and config; apply (or dry-run / verify) everything. */
int daemon_reload(struct daemon *d, const char *why);
/* A module just loaded: its knobs, nothing else. */
int daemon_apply_module(struct daemon *d, const char *module);
/* New block or nd devices: the sysfs sink again, same policy. */
int daemon_apply_sysfs(struct daemon *d);
/*
 * A pmem region appeared: if no valid policy matches the host any more
 * and reprobe_on_region_add = yes, start pmem-tune-probe.service (once).
 * Returns 1 when a probe was requested, 0 when none is needed, none is
 * asked for (said so) or one already was.
 */
int daemon_region_added(struct daemon *d, const char *region);
/*
 * Every sink puts back its originals (honours rollback=).  -EIO when
 * something could not be: an original kept for later, or an entry
 * dropped as invalid.
 */
int daemon_restore(struct daemon *d, bool force);

/* loop.c */
int daemon_loop(struct daemon *d);

#endif
