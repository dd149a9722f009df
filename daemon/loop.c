// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event loop: signals, the policy file, kernel modules and pmem
 * devices appearing.  Everything funnels into one short timer so that a
 * burst of events (an editor's save, udev's add storm) costs one pass.
 */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-device.h>
#include <systemd/sd-event.h>

#include "common/path.h"
#include "common/text.h"
#include "daemon/daemon.h"
#include "daemon/log.h"

#define USEC_PER_MSEC	1000ULL
#define SETTLE_USEC	(100 * USEC_PER_MSEC)
#define REWATCH_USEC	(1000 * USEC_PER_MSEC)
#define MAX_PENDING	64

struct loop {
	struct daemon *d;
	sd_event *ev;
	sd_event_source *timer;
	sd_event_source *policy_watch;	/* inotify on the policy's directory */
	sd_event_source *rewatch_timer;	/* while that directory is missing */
	sd_event_source *target_watch;	/* the policy is a symlink: its target's directory */
	sd_device_monitor *mon;
	char policy_dir[PATH_MAX];
	char policy_name[256];
	char target[PATH_MAX];		/* realpath of a symlinked policy; "" otherwise */
	char target_name[256];
	bool pending_reload, pending_sysfs;
	bool pending_recheck;		/* something in a link's directory moved */
	bool rewatch;			/* the watched directory is no longer the path's */
	bool rewatch_warned;
	size_t npending;
	char pending[MAX_PENDING][64];
};

static int watch_policy_dir(struct loop *l);
static void rewatch_policy_dir(struct loop *l);
static bool watch_target(struct loop *l);

static void notify_status(struct loop *l, bool ready)
{
	sd_notifyf(0, "%sSTATUS=%s", ready ? "READY=1\n" : "", l->d->status);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct loop *l = userdata;
	size_t i;

	l->timer = sd_event_source_unref(l->timer);
	if (l->rewatch) {
		/* here, not in the inotify callback: that source is about to go */
		l->rewatch = false;
		rewatch_policy_dir(l);
	}
	/* a link (or one in its chain) now points elsewhere: that is a new policy */
	if (watch_target(l) && l->pending_recheck)
		l->pending_reload = true;
	l->pending_recheck = false;
	if (l->pending_reload) {
		/* a full pass covers modules and devices too */
		l->pending_reload = l->pending_sysfs = false;
		l->npending = 0;
		daemon_reload(l->d, "policy file changed");
		notify_status(l, false);
		return 0;
	}
	if (l->pending_sysfs) {
		l->pending_sysfs = false;
		l->npending = 0;
		daemon_apply_sysfs(l->d);
		notify_status(l, false);
		return 0;
	}
	for (i = 0; i < l->npending; i++)
		daemon_apply_module(l->d, l->pending[i]);
	if (l->npending)
		notify_status(l, false);
	l->npending = 0;
	return 0;
}

static void schedule(struct loop *l)
{
	int r;

	if (l->timer)
		return;
	r = sd_event_add_time_relative(l->ev, &l->timer, CLOCK_MONOTONIC, SETTLE_USEC, 0,
				       on_timer, l);
	if (r < 0) {
		/* cannot defer: do it now rather than lose the event */
		log_err("cannot arm the settle timer: %s", strerror(-r));
		on_timer(NULL, 0, l);
	}
}

static void queue_module(struct loop *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->npending; i++)
		if (!strcmp(l->pending[i], name))
			return;
	if (l->npending == MAX_PENDING || strlen(name) >= sizeof(l->pending[0])) {
		l->pending_sysfs = true;	/* too many: one full sysfs pass */
	} else {
		strcpy(l->pending[l->npending++], name);
	}
	schedule(l);
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct loop *l = userdata;

	if (si->ssi_signo == SIGHUP) {
		struct timespec ts;

		/* MONOTONIC_USEC= pairs RELOADING=1 with this reload (systemd >= 253) */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
			   (unsigned long long)ts.tv_sec * 1000000ULL +
			   (unsigned long long)ts.tv_nsec / 1000);
		log_info("SIGHUP: reloading %s", l->d->opt.policy);
		watch_target(l);
		daemon_reload(l->d, "SIGHUP");
		notify_status(l, true);
		return 0;
	}
	log_info("%s: stopping", strsignal(si->ssi_signo));
	return sd_event_exit(l->ev, 0);
}

static int on_policy_dir(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	struct loop *l = userdata;

	if (ev->mask & IN_Q_OVERFLOW) {
		l->pending_reload = true;
		schedule(l);
		return 0;
	}
	/*
	 * The directory itself was renamed away, deleted or unmounted (a
	 * configuration tool swapping in a new directory): the watch now
	 * follows an inode that is no longer at the path, or is dead.
	 */
	if (ev->mask & (IN_MOVE_SELF | IN_DELETE_SELF | IN_IGNORED | IN_UNMOUNT)) {
		if (!l->rewatch)
			log_notice("policy directory %s was moved or removed; watching the "
				   "path again", l->policy_dir);
		l->rewatch = true;
		schedule(l);
		return 0;
	}
	if (!ev->len)
		return 0;
	if (strcmp(ev->name, l->policy_name)) {
		/* a link chain may go through a sibling (a "..data" swap): look again */
		if (l->target[0] && (ev->mask & (IN_MOVED_TO | IN_CREATE))) {
			l->pending_recheck = true;
			schedule(l);
		}
		return 0;
	}
	if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
		log_notice("policy %s removed; the applied values stay until stop",
			   l->d->opt.policy);
		return 0;
	}
	/*
	 * IN_MOVED_TO: atomic replace by rename; IN_CLOSE_WRITE: in-place
	 * write; IN_CREATE: a symlink made anew (ln -sf).
	 */
	l->pending_reload = true;
	schedule(l);
	return 0;
}

static int watch_policy_dir(struct loop *l)
{
	l->policy_watch = sd_event_source_disable_unref(l->policy_watch);
	return sd_event_add_inotify(l->ev, &l->policy_watch, l->policy_dir,
				    IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |
				    IN_CREATE | IN_MOVE_SELF | IN_DELETE_SELF | IN_ONLYDIR,
				    on_policy_dir, l);
}

/* The target of a symlinked policy replaced or rewritten in its own directory. */
static int on_target_dir(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	struct loop *l = userdata;

	if ((ev->mask & IN_Q_OVERFLOW) ||
	    (ev->len && !strcmp(ev->name, l->target_name) &&
	     (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)))) {
		l->pending_reload = true;
		schedule(l);
	} else if (ev->mask & (IN_MOVE_SELF | IN_DELETE_SELF | IN_IGNORED)) {
		l->pending_recheck = true;
		schedule(l);
	}
	return 0;
}

/*
 * A policy that is a symlink (a fleet tool's usual layout) changes when
 * its target is replaced, in a directory the link's own watch does not
 * see: watch the target's directory too, and follow the link when it is
 * pointed elsewhere.  Returns true when the target changed.
 */
static bool watch_target(struct loop *l)
{
	char real[PATH_MAX], dir[PATH_MAX], name[PATH_MAX];
	struct stat st;
	int r;

	if (lstat(l->d->opt.policy, &st) < 0 || !S_ISLNK(st.st_mode) ||
	    !realpath(l->d->opt.policy, real))
		real[0] = '\0';
	if (!strcmp(real, l->target))
		return false;
	snprintf(l->target, sizeof(l->target), "%s", real);
	l->target_watch = sd_event_source_disable_unref(l->target_watch);
	if (!real[0])
		return true;
	snprintf(dir, sizeof(dir), "%s", real);
	snprintf(name, sizeof(name), "%s", real);
	snprintf(l->target_name, sizeof(l->target_name), "%s", basename(name));
	r = sd_event_add_inotify(l->ev, &l->target_watch, dirname(dir),
				 IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MOVE_SELF |
				 IN_DELETE_SELF | IN_ONLYDIR, on_target_dir, l);
	if (r < 0)
		log_warn("policy %s links to %s; cannot watch that directory: %s; SIGHUP "
			 "reloads it", l->d->opt.policy, real, strerror(-r));
	else
		log_debug("policy %s links to %s: watching its directory too",
			  l->d->opt.policy, real);
	return true;
}

static int on_rewatch_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct loop *l = userdata;

	l->rewatch_timer = sd_event_source_unref(l->rewatch_timer);
	rewatch_policy_dir(l);
	return 0;
}

/* Watch whatever directory is at the path now; retry each second until there is one. */
static void rewatch_policy_dir(struct loop *l)
{
	int r = watch_policy_dir(l);

	if (r >= 0) {
		if (l->rewatch_warned)
			log_notice("watching %s for a new policy again", l->policy_dir);
		l->rewatch_warned = false;
		/* whatever the new directory holds may be a new policy */
		l->pending_reload = true;
		schedule(l);
		return;
	}
	if (!l->rewatch_warned)
		log_warn("cannot watch %s for a new policy: %s; retrying every second "
			 "(SIGHUP reloads meanwhile)", l->policy_dir, strerror(-r));
	l->rewatch_warned = true;
	r = sd_event_add_time_relative(l->ev, &l->rewatch_timer, CLOCK_MONOTONIC, REWATCH_USEC,
				       0, on_rewatch_timer, l);
	if (r < 0)
		log_err("cannot arm the timer to watch %s again: %s; only SIGHUP reloads now",
			l->policy_dir, strerror(-r));
}

/* Test trees have no udev: a directory appearing under sys/module stands in. */
static int on_fake_module(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	struct loop *l = userdata;

	if (ev->len && (ev->mask & IN_ISDIR)) {
		log_debug("module %s appeared (test tree)", ev->name);
		queue_module(l, ev->name);
	}
	return 0;
}

/* ... and an entry appearing under sys/bus/nd/devices for a region's add event. */
static int on_fake_nd(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
	struct loop *l = userdata;

	if (ev->len && startswith(ev->name, "region")) {
		log_debug("region %s appeared (test tree)", ev->name);
		daemon_region_added(l->d, ev->name);
		l->pending_sysfs = true;
		schedule(l);
	}
	return 0;
}

/* Entries made or moved into the test tree's dir call on_entry (no watch: logged only). */
static void watch_fake_dir(struct loop *l, const char *dir, sd_event_inotify_handler_t on_entry)
{
	char path[PATH_MAX];
	int r;

	if (path_join(path, sizeof(path), l->d->opt.sysfs_root, dir) < 0)
		path[0] = '\0';
	r = sd_event_add_inotify(l->ev, NULL, path, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR,
				 on_entry, l);
	if (r < 0)
		log_debug("cannot watch %s: %s", path, strerror(-r));
}

static int on_device(sd_device_monitor *m, sd_device *dev, void *userdata)
{
	struct loop *l = userdata;
	const char *subsystem = NULL, *sysname = NULL;
	sd_device_action_t action;

	if (sd_device_get_action(dev, &action) < 0 || action != SD_DEVICE_ADD)
		return 0;
	if (sd_device_get_subsystem(dev, &subsystem) < 0 ||
	    sd_device_get_sysname(dev, &sysname) < 0)
		return 0;
	if (!strcmp(subsystem, "module")) {
		log_debug("module %s loaded", sysname);
		queue_module(l, sysname);
	} else if (!strcmp(subsystem, "nd")) {
		if (startswith(sysname, "region"))
			daemon_region_added(l->d, sysname);
		l->pending_sysfs = true;
		schedule(l);
	} else if (!strcmp(subsystem, "block") && startswith(sysname, "pmem")) {
		l->pending_sysfs = true;
		schedule(l);
	}
	return 0;
}

static int watch_devices(struct loop *l)
{
	int r;

	r = sd_device_monitor_new(&l->mon);
	if (r < 0)
		return r;
	r = sd_device_monitor_filter_add_match_subsystem_devtype(l->mon, "module", NULL);
	if (r >= 0)
		r = sd_device_monitor_filter_add_match_subsystem_devtype(l->mon, "nd", NULL);
	if (r >= 0)
		r = sd_device_monitor_filter_add_match_subsystem_devtype(l->mon, "block", "disk");
	if (r >= 0)
		r = sd_device_monitor_attach_event(l->mon, l->ev);
	if (r >= 0)
		r = sd_device_monitor_start(l->mon, on_device, l);
	if (r < 0)
		l->mon = sd_device_monitor_unref(l->mon);
	return r;
}

int daemon_loop(struct daemon *d)
{
	struct loop l = { .d = d };
	char dir[PATH_MAX], name[PATH_MAX];
	uint64_t wd_usec = 0;
	int r;

	r = sd_event_default(&l.ev);
	if (r < 0) {
		log_err("cannot create the event loop: %s", strerror(-r));
		return r;
	}
	if ((r = sd_event_add_signal(l.ev, NULL, SIGTERM | SD_EVENT_SIGNAL_PROCMASK,
				     on_signal, &l)) < 0 ||
	    (r = sd_event_add_signal(l.ev, NULL, SIGINT | SD_EVENT_SIGNAL_PROCMASK,
				     on_signal, &l)) < 0 ||
	    (r = sd_event_add_signal(l.ev, NULL, SIGHUP | SD_EVENT_SIGNAL_PROCMASK,
				     on_signal, &l)) < 0) {
		log_err("cannot handle signals: %s", strerror(-r));
		goto out;
	}

	snprintf(dir, sizeof(dir), "%s", d->opt.policy);
	snprintf(name, sizeof(name), "%s", d->opt.policy);
	snprintf(l.policy_name, sizeof(l.policy_name), "%s", basename(name));
	snprintf(l.policy_dir, sizeof(l.policy_dir), "%s", dirname(dir));
	if (watch_policy_dir(&l) < 0)
		rewatch_policy_dir(&l);
	watch_target(&l);

	if (d->opt.sysfs_root[0]) {
		watch_fake_dir(&l, "/sys/module", on_fake_module);
		watch_fake_dir(&l, "/sys/bus/nd/devices", on_fake_nd);
	} else {
		r = watch_devices(&l);
		if (r < 0)
			log_warn("cannot monitor udev events: %s; modules loaded later get "
				 "their knobs on SIGHUP only", strerror(-r));
	}

	if (sd_watchdog_enabled(0, &wd_usec) > 0) {
		/* sd-event pings at half the interval from the loop itself */
		r = sd_event_set_watchdog(l.ev, true);
		if (r < 0)
			log_warn("cannot enable the watchdog: %s", strerror(-r));
		else
			log_debug("watchdog every %llu ms", (unsigned long long)wd_usec / 2000);
	}

	daemon_reload(d, "start");
	notify_status(&l, true);

	r = sd_event_loop(l.ev);
	if (r < 0)
		log_err("event loop failed: %s", strerror(-r));

	sd_notify(0, "STOPPING=1\nSTATUS=Restoring original values");
	daemon_restore(d, false);
out:
	sd_event_source_unref(l.timer);
	sd_event_source_disable_unref(l.policy_watch);
	sd_event_source_disable_unref(l.target_watch);
	sd_event_source_unref(l.rewatch_timer);
	sd_device_monitor_unref(l.mon);
	sd_event_unref(l.ev);
	return r < 0 ? r : 0;
}
