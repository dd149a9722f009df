// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the libpmem and glibc sinks share: files we own (an
 * EnvironmentFile= for services, an environment.d drop-in for user
 * sessions) and variables in the service manager's environment.  Both
 * libraries read their settings once, when they load, so these only
 * reach processes started afterwards.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "common/path.h"
#include "common/read_file.h"
#include "common/text.h"
#include "common/trusted.h"
#include "daemon/bus.h"
#include "daemon/log.h"
#include "daemon/sink.h"
#include "daemon/state.h"
#include "policy/export_keys.h"
#include "policy/policy.h"

/* "A=1 B=2" from the assignments of a file, for log lines */
static void summarize(const char *content, char *out, size_t len)
{
	const char *p = content;
	size_t o = 0;

	out[0] = '\0';
	while (*p && o + 1 < len) {
		const char *nl = strchrnul(p, '\n');

		if (*p != '#' && nl > p) {
			int n = snprintf(out + o, len - o, "%s%.*s", o ? " " : "",
					 (int)(nl - p), p);

			if (n < 0 || (size_t)n >= len - o)
				break;
			o += n;
		}
		p = *nl ? nl + 1 : nl;
	}
}

static int parent_dir(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash || (size_t)(slash - path) >= len)
		return -EINVAL;
	memcpy(out, path, slash - path);
	out[slash - path] = '\0';
	return 0;
}

/*
 * Whether path's directory, and every one above it, is root's alone
 * (common/trusted.h): whoever else can write there can swap the file we
 * write, or plant the "original" we would put back.  A missing one is
 * fine, created ours.  Else logged (doing: "written", "restored"), and
 * -EPERM or another -errno.
 */
static int out_dir_refused(struct sink_ctx *ctx, const char *sink, const char *path,
			   const char *doing)
{
	char dir[PATH_MAX], why[PATH_MAX + 64];
	int r = parent_dir(path, dir, sizeof(dir));

	if (r < 0)
		snprintf(why, sizeof(why), "%s: no directory", path);
	else
		r = trusted_dir(dir, why, sizeof(why));
	if (r == 0 || r == -ENOENT)
		return 0;
	log_knob(LOG_ERR, sink, path, NULL, NULL, "%s: %s: %s%s, not root's alone; not %s", sink,
		 path, r == -EPERM ? "refused: " : "", why, doing);
	ctx->stats.refused++;
	return r;
}

/*
 * Already what the policy wants: nothing to write, but an entry of ours
 * is still wanted, so the stale pass after apply must not restore it.
 */
static bool already_set(struct sink_ctx *ctx, struct state_entry *e, const char *current,
			const char *wanted)
{
	if (!current || strcmp(current, wanted))
		return false;
	if (e)
		e->touched = true;
	ctx->stats.unchanged++;
	return true;
}

/*
 * Whether to go on and change the value key of sink, read as current
 * (NULL: not set), to wanted; *e is our state entry for it.  Not where it
 * holds wanted already, nor where we only verify or preview: that is
 * drift, counted, printed on a dry run as "would " and the rest of the
 * format, and logged on verify where knob names what differs (NULL:
 * not logged) and shown the wanted value as logs show it.
 */
__attribute__((format(printf, 9, 10)))
static bool change_needed(struct sink_ctx *ctx, const char *sink, const char *key,
			  const char *current, const char *wanted, struct state_entry **e,
			  const char *knob, const char *shown, const char *preview_fmt, ...)
{
	va_list ap;

	*e = state_find(ctx->state, sink, key);
	if (already_set(ctx, *e, current, wanted))
		return false;
	if (!ctx->verify && !ctx->dry_run) {
		/* knob drift: someone changed what we wrote; it is written again */
		if (*e && (*e)->applied && (!current || strcmp(current, (*e)->applied)))
			ctx->stats.drifted++;
		return true;
	}
	ctx->stats.drift++;
	if (ctx->dry_run) {
		printf("%s: would ", sink);
		va_start(ap, preview_fmt);
		vprintf(preview_fmt, ap);
		va_end(ap);
		putchar('\n');
	} else if (knob) {
		log_knob(LOG_NOTICE, sink, knob, shown, NULL,
			 "%s: %s differs from the policy (%s)", sink, knob, shown);
	}
	return false;
}

/* envfile_apply() reads at most this much of a file it replaces */
#define ENV_FILE_MAX	(1024 * 1024)

/*
 * One of our environment files as it is now: its content and, in owner,
 * its permission bits and owner.  Not through a symlink: what it points
 * at would be saved as "the original" and written back here,
 * world-readable, on restore.  -ENOENT, -ELOOP (a symbolic link),
 * -EINVAL (not a regular file), -EFBIG or another -errno.
 */
static int read_env_file(const char *path, char **content, struct state_owner *owner)
{
	struct stat st;
	int fd, r;

	*content = NULL;
	fd = open_regular(path, READ_FILE_NOFOLLOW, &st);
	if (fd < 0)
		return fd;
	r = read_fd(fd, ENV_FILE_MAX, content, NULL);
	close(fd);
	if (r == 0 && owner) {
		owner->known = true;
		owner->mode = st.st_mode & 0777;
		owner->uid = st.st_uid;
		owner->gid = st.st_gid;
	}
	return r;
}

int envfile_apply(struct sink_ctx *ctx, const char *sink, const char *rel_path,
		  const char *content)
{
	char path[PATH_MAX], key[PATH_MAX + 8], dir[PATH_MAX], summary[512];
	struct state_owner owner = { 0 };
	char *current = NULL, *prev = NULL;
	bool existed, had_entry;
	struct state_entry *e;
	int r;

	r = etc_path(ctx->opt, rel_path, path, sizeof(path));
	if (r < 0)
		return r;
	r = out_dir_refused(ctx, sink, path, "written");
	if (r < 0)
		return r;
	snprintf(key, sizeof(key), "file:%s", rel_path);
	summarize(content, summary, sizeof(summary));

	r = read_env_file(path, &current, &owner);
	if (r == -ELOOP) {
		log_knob(LOG_WARNING, sink, path, summary, NULL,
			 "%s: %s is a symbolic link; refused, not written", sink, path);
		ctx->stats.refused++;
		return r;
	}
	if (r < 0 && r != -ENOENT) {
		log_knob(LOG_ERR, sink, path, summary, NULL,
			 "%s: %s: cannot read: %s; not written", sink, path, strerror(-r));
		ctx->stats.failed++;
		return r;
	}
	existed = r == 0;
	if (!change_needed(ctx, sink, key, existed ? current : NULL, content, &e, path, summary,
			   "write %s: %s", path, summary)) {
		free(current);
		return 0;
	}
	/*
	 * A file carrying our marker with no state behind it is a leftover
	 * of a run whose state was lost (reboot after a crash): restoring
	 * means removing it, not writing it back.
	 */
	if (existed && startswith(current, PT_FILE_MARKER) && !e)
		existed = false;
	had_entry = e != NULL;
	if (e && e->applied && !(prev = strdup(e->applied))) {
		free(current);
		ctx->stats.failed++;
		return -ENOMEM;
	}
	r = state_remember_file(ctx->state, sink, key, existed, existed ? current : NULL,
				existed ? &owner : NULL, content);
	free(current);
	if (r < 0) {
		log_knob(LOG_ERR, sink, path, summary, NULL,
			 "%s: %s: cannot save the original in %s: %s; not written",
			 sink, path, ctx->state->path, strerror(-r));
		ctx->stats.failed++;
		free(prev);
		return r;
	}
	r = parent_dir(path, dir, sizeof(dir));
	if (r == 0)
		r = mkdir_p(dir, 0755);
	if (r == 0)
		r = atomic_write_file(path, content, strlen(content), 0644);
	if (r < 0) {
		log_knob(LOG_ERR, sink, path, summary, NULL,
			 "%s: %s: cannot write: %s", sink, path, strerror(-r));
		ctx->stats.failed++;
		state_undo_remember(ctx->state, sink, key, had_entry, prev);
		free(prev);
		return r;
	}
	free(prev);
	log_knob(LOG_INFO, sink, path, summary, NULL, "%s: wrote %s: %s", sink, path, summary);
	ctx->stats.set++;
	return 0;
}

int manager_env_base(struct sink_ctx *ctx, const char *sink, const char *name,
		     char **value)
{
	char key[256];
	struct state_entry *e;
	const char *v;

	snprintf(key, sizeof(key), "manager:%s", name);
	e = state_find(ctx->state, sink, key);
	if (e) {
		/* the manager holds our value now; the original is what counts */
		if (!e->existed)
			return -ENOENT;
		*value = strdup(e->original ? e->original : "");
		return *value ? 0 : -ENOMEM;
	}
	if (ctx->bus)
		return bus_manager_getenv(ctx->bus, name, value);
	/* without a bus, what we inherited from the manager is the best view */
	v = getenv(name);
	if (!v)
		return -ENOENT;
	*value = strdup(v);
	return *value ? 0 : -ENOMEM;
}

int manager_env_apply(struct sink_ctx *ctx, const char *sink, const char *name,
		      const char *value)
{
	char key[256], *current = NULL, *prev = NULL;
	struct state_entry *e;
	bool had_entry;
	int r;

	if (!ctx->bus)
		return 0;
	snprintf(key, sizeof(key), "manager:%s", name);
	r = bus_manager_getenv(ctx->bus, name, &current);
	if (r < 0 && r != -ENOENT) {
		log_knob(LOG_WARNING, sink, name, value, NULL,
			 "%s: cannot read the service manager's environment: %s; "
			 "%s not set there", sink, strerror(-r), name);
		ctx->stats.failed++;
		return r;
	}
	/* current stays NULL where the manager has no such variable */
	if (!change_needed(ctx, sink, key, current, value, &e, NULL, NULL,
			   "set %s=%s in the service manager's environment", name, value)) {
		free(current);
		return 0;
	}
	had_entry = e != NULL;
	if (e && e->applied && !(prev = strdup(e->applied))) {
		free(current);
		ctx->stats.failed++;
		return -ENOMEM;
	}
	r = state_remember(ctx->state, sink, key, current != NULL, current, value);
	if (r < 0) {
		log_knob(LOG_ERR, sink, name, value, current,
			 "%s: cannot save the original of %s in %s: %s; not set",
			 sink, name, ctx->state->path, strerror(-r));
		free(current);
		free(prev);
		ctx->stats.failed++;
		return r;
	}
	r = bus_manager_setenv(ctx->bus, name, value);
	if (r < 0) {
		log_knob(LOG_WARNING, sink, name, value, current,
			 "%s: SetEnvironment %s=%s failed: %s", sink, name, value,
			 strerror(-r));
		ctx->stats.failed++;
		state_undo_remember(ctx->state, sink, key, had_entry, prev);
	} else {
		log_knob(LOG_INFO, sink, name, value, current,
			 "%s: service manager environment %s=%s (was %s)", sink, name,
			 value, current ? current : "unset");
		ctx->stats.set++;
	}
	free(current);
	free(prev);
	return r;
}

/* "A=1 B=2" of a file's content, or what stands in its place, for log lines */
static const char *shown(const char *content, int read_r, char *buf, size_t len)
{
	if (read_r == -ENOENT)
		return "absent";
	if (read_r == -ELOOP)
		return "a symbolic link";
	if (read_r < 0)
		return "not a regular file we could read";
	summarize(content, buf, len);
	return buf[0] ? buf : "no assignment";
}

/*
 * What needs no putting back: knob changed by someone else (left as found, counted) or as
 * it was already.  1 (dry run) or 0 when so, -1 when act is to put it back.  where follows
 * the knob's name in the messages; verb is what pmem-tuned did (wrote, set); set and found
 * are the value it set and the one found now (NULL: unset).
 */
static int restore_needless(struct sink_ctx *ctx, const struct state_entry *e,
			    enum restore_action act, const char *knob, const char *where,
			    const char *verb, const char *set, const char *found)
{
	if (act == RESTORE_LEAVE) {
		if (ctx->dry_run) {
			printf("%s: would leave %s%s: changed since pmem-tuned %s it\n", e->sink,
			       knob, where, verb);
		} else {
			log_knob(LOG_WARNING, e->sink, knob, found, e->applied,
				 "%s: %s%s changed since pmem-tuned %s it (%s: %s; found: %s); "
				 "left as found, its original not put back", e->sink, knob, where,
				 verb, verb, set, found ? found : "unset");
			ctx->state->left++;
		}
		return ctx->dry_run ? 1 : 0;
	}
	if (act == RESTORE_ALREADY) {
		log_knob(LOG_INFO, e->sink, knob, e->original, e->applied,
			 "%s: %s%s is as it was already", e->sink, knob, where);
		return ctx->dry_run ? 1 : 0;
	}
	return -1;
}

/* Put the file of e back as it was, or leave what someone else made of it. */
static int envfile_restore(struct sink_ctx *ctx, struct state_entry *e)
{
	char path[PATH_MAX], now[512], set[512];
	const char *o = e->original ? e->original : "", *wrote = NULL;
	enum restore_action act;
	char *current = NULL;
	int r, rr;

	r = etc_path(ctx->opt, e->key + 5, path, sizeof(path));
	if (r < 0)
		return r;
	/* kept in the state: put back once the directory is root's again */
	r = out_dir_refused(ctx, e->sink, path, e->existed ? "restored" : "removed");
	if (r < 0)
		return r;
	rr = read_env_file(path, &current, NULL);
	if (rr < 0 && rr != -ENOENT && rr != -ELOOP && rr != -EINVAL && rr != -EFBIG) {
		log_knob(LOG_ERR, e->sink, path, NULL, e->applied,
			 "%s: cannot read %s to restore it: %s; kept for pmem-tuned --restore",
			 e->sink, path, strerror(-rr));
		return rr;
	}
	/* a symbolic link, a FIFO or a huge file in its place is not what we wrote */
	act = state_restore_action(e, rr == 0 ? current : NULL, rr == 0 || rr == -ENOENT,
				   NULL);
	if (act == RESTORE_LEAVE) {
		shown(current, rr, now, sizeof(now));
		wrote = shown(e->applied, 0, set, sizeof(set));
	}
	r = restore_needless(ctx, e, act, path, "", "wrote", wrote, now);
	free(current);
	if (r >= 0)
		return r;
	if (ctx->dry_run) {
		printf("%s: would %s %s\n", e->sink, e->existed ? "restore" : "remove", path);
		return 1;
	}
	if (!e->existed)
		r = unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	else if (e->owner.known)
		r = atomic_write_file_owned(path, o, strlen(o), e->owner.mode, e->owner.uid,
					    e->owner.gid);
	else
		r = atomic_write_file(path, o, strlen(o), 0644);	/* an older state */
	if (r < 0) {
		log_knob(LOG_ERR, e->sink, path, NULL, e->applied,
			 "%s: cannot %s %s%s: %s; kept for pmem-tuned --restore", e->sink,
			 e->existed ? "restore" : "remove", path,
			 e->owner.known ? " with its mode and owner" : "", strerror(-r));
		return r;
	}
	if (e->existed && e->owner.known)
		log_knob(LOG_INFO, e->sink, path, e->original, e->applied,
			 "%s: restored %s (mode %04o, owner %u:%u)", e->sink, path, e->owner.mode,
			 (unsigned)e->owner.uid, (unsigned)e->owner.gid);
	else
		log_knob(LOG_INFO, e->sink, path, e->original, e->applied, "%s: %s %s",
			 e->sink, e->existed ? "restored" : "removed", path);
	return 0;
}

/* The manager's variable of e back as it was, or left as someone else set it. */
static int manager_restore(struct sink_ctx *ctx, struct state_entry *e)
{
	const char *name = e->key + 8;
	enum restore_action act = RESTORE_PUT_BACK;
	char *current = NULL;
	int r;

	if (ctx->bus) {
		r = bus_manager_getenv(ctx->bus, name, &current);
		if (r < 0 && r != -ENOENT) {
			log_knob(LOG_ERR, e->sink, name, e->original, e->applied,
				 "%s: cannot read %s in the service manager's environment: %s; "
				 "kept for pmem-tuned --restore", e->sink, name, strerror(-r));
			return r;
		}
		act = state_restore_action(e, current, true, NULL);
	}
	r = restore_needless(ctx, e, act, name, " in the service manager's environment", "set",
			     e->applied ? e->applied : "", current);
	free(current);
	if (r >= 0)
		return r;
	if (ctx->dry_run) {
		printf("%s: would %s %s in the service manager's environment\n",
		       e->sink, e->existed ? "restore" : "unset", name);
		return 1;
	}
	if (!ctx->bus) {
		log_knob(LOG_WARNING, e->sink, name, e->original, e->applied,
			 "%s: no service manager bus; %s left as %s there", e->sink,
			 name, e->applied ? e->applied : "set");
		return -ENOTCONN;
	}
	if (e->existed)
		r = bus_manager_setenv(ctx->bus, name, e->original ? e->original : "");
	else
		r = bus_manager_unsetenv(ctx->bus, name);
	if (r < 0) {
		log_knob(LOG_ERR, e->sink, name, e->original, e->applied,
			 "%s: cannot restore %s in the service manager's environment: %s",
			 e->sink, name, strerror(-r));
		return r;
	}
	log_knob(LOG_INFO, e->sink, name, e->original, e->applied,
		 "%s: service manager environment %s %s", e->sink, name,
		 e->existed ? "restored" : "unset");
	return 0;
}

int env_entry_restore(struct sink_ctx *ctx, struct state_entry *e)
{
	char why[160];

	/* state_load() checked it already; a caller may have built it otherwise */
	if (state_entry_check(e, why, sizeof(why)) < 0) {
		log_warn("%s: state entry '%s' is not ours to restore (%s); dropped", e->sink,
			 e->key, why);
		ctx->state->dropped++;
		return 0;
	}
	if (startswith(e->key, "file:"))
		return envfile_restore(ctx, e);
	if (startswith(e->key, "manager:"))
		return manager_restore(ctx, e);
	return 0;
}

int env_restore(const struct sink *s, struct sink_ctx *ctx, bool stale_only)
{
	size_t i;
	int ret = 0;

	for (i = ctx->state->n; i-- > 0;) {
		struct state_entry *e = &ctx->state->e[i];
		int r;

		if (strcmp(e->sink, s->name) || (stale_only && e->touched))
			continue;
		r = env_entry_restore(ctx, e);
		if (r == 0)
			state_forget(ctx->state, e);
		else if (r < 0 && ret == 0)
			ret = r;
	}
	return state_save_restored(ctx->state, ctx->dry_run, ret);
}
