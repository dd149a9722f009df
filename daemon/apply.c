// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Policy -> sinks.  A new policy replaces the applied one only once it
 * has loaded, validated and matched this host; until then what is
 * applied stays applied.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/path.h"
#include "daemon/bus.h"
#include "daemon/daemon.h"
#include "daemon/instance_lock.h"
#include "daemon/log.h"
#include "daemon/match.h"
#include "daemon/metrics_file.h"
#include "daemon/sanitize.h"
#include "daemon/status_file.h"
#include "policy/environment.h"
#include "policy/policy.h"

/* A restart's old instance is still restoring: long enough for that, short for a unit. */
#define LOCK_WAIT_MS	5000

const struct sink *const sinks[] = { &sink_sysfs, &sink_libpmem, &sink_glibc, NULL };

int daemon_init(struct daemon *d)
{
	int r;

	d->lock_fd = -1;
	config_load(&d->opt);
	log_set_policy(d->opt.policy);
	if (d->opt.mode != MODE_DRY_RUN && d->opt.mode != MODE_VERIFY) {
		r = mkdir_p(d->opt.state_dir, 0700);
		if (r < 0)
			log_err("state directory %s: %s; originals cannot be saved, "
				"nothing will be written", d->opt.state_dir, strerror(-r));
		/*
		 * Before the state is read: the holder may be about to rewrite
		 * it.  Any failure refuses, said why already: a lock we could
		 * not take keeps no second instance out.
		 */
		if (r == 0) {
			d->lock_fd = instance_lock(d->opt.state_dir, LOCK_WAIT_MS);
			if (d->lock_fd < 0)
				return d->lock_fd;
		}
	}
	/* --verify answers from the policy and the knobs: the originals are none of its business */
	if (d->opt.mode != MODE_VERIFY)
		state_load(&d->state, d->opt.state_dir, d->opt.mode == MODE_DRY_RUN);
	if (!d->opt.no_bus) {
		r = bus_open(&d->bus);
		if (r < 0) {
			log_notice("no system bus (%s): the service manager's environment "
				   "is left alone, the environment files still apply",
				   strerror(-r));
			d->bus = NULL;
		}
	}
	return 0;
}

void daemon_fini(struct daemon *d)
{
	policy_free(d->policy);
	d->policy = NULL;
	knobmap_free(&d->knobs);
	state_free(&d->state);
	bus_close(d->bus);
	d->bus = NULL;
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	d->lock_fd = -1;
}

static void ctx_init(struct daemon *d, struct sink_ctx *ctx, const struct policy *p)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->opt = &d->opt;
	ctx->policy = p;
	ctx->policy_id = d->policy_id;
	ctx->knobs = &d->knobs;
	ctx->state = &d->state;
	ctx->bus = d->bus;
	ctx->dry_run = d->opt.mode == MODE_DRY_RUN;
	ctx->verify = d->opt.mode == MODE_VERIFY;
}

static void add_stats(struct sink_stats *a, const struct sink_stats *b)
{
	a->set += b->set;
	a->unchanged += b->unchanged;
	a->failed += b->failed;
	a->refused += b->refused;
	a->drift += b->drift;
	a->drifted += b->drifted;
}

/* One sink's pass; its counts are added to *stats. */
static void run_sink(struct daemon *d, const struct sink *s, const struct policy *p,
		     struct sink_stats *stats)
{
	struct sink_ctx ctx;

	ctx_init(d, &ctx, p);
	if (ctx.verify || ctx.dry_run) {
		/* ctx says to change nothing: count drift, or print */
		s->apply(&ctx);
	} else {
		state_untouch(&d->state, s->name);
		s->apply(&ctx);
		/* what the policy no longer sets (or may not now) goes back to its original */
		s->restore(s, &ctx, true);
	}
	add_stats(stats, &ctx.stats);
}

static void run_sinks(struct daemon *d, const struct policy *p)
{
	const struct sink *const *s;

	memset(&d->stats, 0, sizeof(d->stats));
	bus_pass_begin(d->bus);
	for (s = sinks; *s; s++)
		run_sink(d, *s, p, &d->stats);
}

/*
 * STATUS= is one field of a newline-separated sd_notify message and
 * quotes policy text (a fingerprint, a validation error): a newline in it
 * would smuggle in fields such as WATCHDOG=trigger or MAINPID=.
 */
static void set_status(struct daemon *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_status(struct daemon *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->status, sizeof(d->status), fmt, ap);
	va_end(ap);
	sanitize_line(d->status);
}

static void status_applied(struct daemon *d, const char *last)
{
	set_status(d, "Applied %s: %u set, %u unchanged, %u failed, %u refused%s%s", d->policy_id,
		   d->stats.set, d->stats.unchanged, d->stats.failed, d->stats.refused,
		   last[0] ? "; last: " : "", last);
}

void daemon_load_knobs(struct daemon *d)
{
	char dir[PATH_MAX];

	knobmap_free(&d->knobs);
	if (etc_path(&d->opt, PT_KNOBS_DIR, dir, sizeof(dir)) == 0)
		knobmap_load(&d->knobs, dir);
}

/*
 * Another kernel or microcode than the entry was probed on: said, and
 * applied all the same (the fingerprint decides; a probe is the
 * administrator's call, not a boot-time one).
 */
static void log_environment(const struct policy *p, const struct policy_env_report *env)
{
	char line[512];

	for (int w = 0; w < POLICY_ENV_N; w++) {
		if (!env->item[w].changed)
			continue;
		policy_env_describe(p, env, w, line, sizeof(line));
		log_notice("environment change: %s; the policy applies all the same", line);
	}
}

static int reload(struct daemon *d, const char *why)
{
	const char *path = d->opt.policy;
	const char *kept = d->policy ? "keeping the applied one" : "nothing applied";
	char reason[2 * PATH_MAX];
	struct policy_env_report env;
	struct policy *p;

	log_debug("reloading (%s)", why);
	config_load(&d->opt);
	daemon_load_knobs(d);

	switch (policy_pick(path, d->opt.sysfs_root, d->opt.force, &p, &env, reason,
			    sizeof(reason))) {
	case PICK_OK:
		break;
	case PICK_MISSING:
		set_status(d, "No policy at %s; %s", path, kept);
		log_notice("%s", d->status);
		return RELOAD_KEPT;
	case PICK_INVALID:
		set_status(d, "Policy rejected: %s; %s", reason, kept);
		log_err("%s", d->status);
		return RELOAD_KEPT;
	case PICK_FOREIGN:
	case PICK_UNKNOWN_HOST:
		set_status(d, "Policy not applied: %s (--force overrides); %s", reason, kept);
		log_warn("%s", d->status);
		return RELOAD_KEPT;
	}
	if (d->opt.force)
		log_debug("policy %s taken with --force", path);
	log_environment(p, &env);

	snprintf(d->policy_id, sizeof(d->policy_id), "%s (%s)", path,
		 p->platform.fingerprint[0] ? p->platform.fingerprint : "no fingerprint");
	/* it heads every environment file we write: one comment line, always */
	sanitize_line(d->policy_id);
	run_sinks(d, p);

	if (d->opt.mode == MODE_DRY_RUN || d->opt.mode == MODE_VERIFY) {
		set_status(d, "Policy %s: %u to change, %u unchanged, %u refused", d->policy_id,
			   d->stats.drift, d->stats.unchanged, d->stats.refused);
		policy_free(p);
		return RELOAD_APPLIED;
	}
	policy_free(d->policy);
	d->policy = p;
	d->env = env;
	d->applied_at = time(NULL);
	d->probe_requested = false;
	status_applied(d, "");
	log_kv_msg(d->stats.failed ? LOG_WARNING : LOG_INFO, NULL, "%s", d->status);
	return RELOAD_APPLIED;
}

int daemon_reload(struct daemon *d, const char *why)
{
	int r = reload(d, why);

	/* a kept policy keeps its status (and its apply time), unless there is none */
	if (r == RELOAD_APPLIED || d->opt.mode == MODE_VERIFY || !d->policy)
		status_file_write(d, r == RELOAD_APPLIED);
	metrics_file_write(d, d->policy != NULL);
	return r;
}

/* A later pass (a module loaded, devices changed) adds to what STATUS= says. */
static void add_pass(struct daemon *d, const struct sink_ctx *ctx, const char *what)
{
	d->stats.set += ctx->stats.set;
	d->stats.failed += ctx->stats.failed;
	d->stats.refused += ctx->stats.refused;
	d->stats.drifted += ctx->stats.drifted;
	d->applied_at = time(NULL);
	status_applied(d, what);
	metrics_file_write(d, true);
}

int daemon_apply_module(struct daemon *d, const char *module)
{
	struct sink_ctx ctx;
	int r;

	if (!d->policy)
		return 0;
	ctx_init(d, &ctx, d->policy);
	ctx.only_module = module;
	r = sink_sysfs.apply(&ctx);
	if (ctx.stats.set || ctx.stats.failed || ctx.stats.refused) {
		char what[128];

		log_info("module %s loaded: %u set, %u unchanged, %u failed, %u refused",
			 module, ctx.stats.set, ctx.stats.unchanged, ctx.stats.failed,
			 ctx.stats.refused);
		snprintf(what, sizeof(what), "module %s, %u set, %u failed", module,
			 ctx.stats.set, ctx.stats.failed);
		add_pass(d, &ctx, what);
	}
	return r;
}

int daemon_apply_sysfs(struct daemon *d)
{
	struct sink_ctx ctx;
	int r;

	if (!d->policy)
		return 0;
	ctx_init(d, &ctx, d->policy);
	state_untouch(&d->state, sink_sysfs.name);
	r = sink_sysfs.apply(&ctx);
	sink_sysfs.restore(&sink_sysfs, &ctx, true);
	if (ctx.stats.set || ctx.stats.failed) {
		log_info("devices changed: %u set, %u unchanged, %u failed, %u refused",
			 ctx.stats.set, ctx.stats.unchanged, ctx.stats.failed,
			 ctx.stats.refused);
		add_pass(d, &ctx, "devices changed");
	}
	return r;
}

/*
 * PMEM_NO_FLUSH holds only while every pmem region of the host is
 * cpu_cache: a region that appears (a CXL region committed, an NVDIMM
 * enabled) is checked now, with the policy that is applied, whether or not
 * a probe follows.
 */
static void recheck_libpmem(struct daemon *d, const char *region)
{
	struct sink_stats st = { 0 };

	if (!d->policy || d->opt.mode == MODE_DRY_RUN || d->opt.mode == MODE_VERIFY)
		return;
	run_sink(d, &sink_libpmem, d->policy, &st);
	if (st.set || st.failed || st.refused) {
		struct sink_ctx ctx = { .stats = st };
		char what[128];

		log_info("pmem region %s appeared: libpmem environment checked again: %u set, "
			 "%u failed, %u refused", region, st.set, st.failed, st.refused);
		snprintf(what, sizeof(what), "region %s, libpmem checked again", region);
		add_pass(d, &ctx, what);
	}
}

int daemon_region_added(struct daemon *d, const char *region)
{
	char reason[2 * PATH_MAX];
	enum pick_result pick;
	struct policy *p;
	int r;

	bus_pass_begin(d->bus);
	recheck_libpmem(d, region);
	pick = policy_pick(d->opt.policy, d->opt.sysfs_root, false, &p, NULL, reason,
			   sizeof(reason));
	policy_free(p);
	/* a host we cannot fingerprint would only probe in circles */
	if (pick == PICK_OK || pick == PICK_UNKNOWN_HOST || d->probe_requested)
		return 0;
	/*
	 * An administrator creating a region for data must not find a
	 * scratch namespace on it: measuring it is asked for, not assumed.
	 */
	if (!d->opt.reprobe_region) {
		log_notice("pmem region %s appeared, no policy matches this host; not probing "
			   "(reprobe_on_region_add = no): %s", region, reason);
		return 0;
	}
	d->probe_requested = true;
	if (!d->bus) {
		log_notice("pmem region %s appeared and no valid policy matches this host; "
			   "run pmem-tune --probe (no bus to start %s)", region, PT_PROBE_UNIT);
		return 1;
	}
	r = bus_start_unit(d->bus, PT_PROBE_UNIT);
	if (r < 0)
		log_warn("pmem region %s appeared, no policy matches this host; starting "
			 "%s failed: %s", region, PT_PROBE_UNIT, strerror(-r));
	else
		log_notice("pmem region %s appeared, no policy matches this host; "
			   "started %s", region, PT_PROBE_UNIT);
	return 1;
}

int daemon_restore(struct daemon *d, bool force)
{
	const struct sink *const *s;
	size_t n = 0;
	int ret = 0;

	if (d->opt.rollback == ROLLBACK_NEVER && !force) {
		if (d->state.n)
			log_notice("rollback=never: leaving %zu tuned value(s) in place; "
				   "originals kept in %s", d->state.n, d->state.path);
		return 0;
	}
	d->state.left = 0;	/* counted by this restore, not by earlier passes */
	bus_pass_begin(d->bus);
	/* reverse order of apply */
	while (sinks[n])
		n++;
	for (s = sinks + n; s-- > sinks;) {
		struct sink_ctx ctx;
		int r;

		ctx_init(d, &ctx, NULL);
		r = (*s)->restore(*s, &ctx, false);
		if (r < 0 && ret == 0)
			ret = r;
	}
	if (d->state.n)
		log_warn("%zu original(s) could not be restored; kept in %s for "
			 "pmem-tuned --restore", d->state.n, d->state.path);
	if (d->state.dropped)
		log_warn("%u saved original(s) were invalid or refused and not restored",
			 d->state.dropped);
	/* each said which and why; not a failure: those values are someone else's now */
	if (d->state.left)
		log_notice("%u value(s) changed by someone else since pmem-tuned set them were "
			   "left as found", d->state.left);
	if (ret == 0 && (d->state.n || d->state.dropped))
		ret = -EIO;
	/* the originals are back: monitoring must not go on reading "applied" */
	status_file_write(d, false);
	metrics_file_write(d, false);
	return ret;
}
