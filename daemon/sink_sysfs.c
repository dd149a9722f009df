// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel knobs from the knob map.  Each matched path is resolved and
 * must stay inside the allowed sysfs areas after every symlink is
 * followed; the original is saved before the write, the value is read
 * back after it.  One knob failing never stops the others.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/parse.h"
#include "common/path.h"
#include "common/sysfs_attr.h"
#include "common/text.h"
#include "daemon/knobmap.h"
#include "daemon/log.h"
#include "daemon/sink.h"
#include "daemon/state.h"
#include "policy/export_keys.h"
#include "policy/policy.h"

#define SINK "sysfs"

static int as_bool(const char *s)
{
	if (!strcmp(s, "Y") || !strcmp(s, "y") || !strcmp(s, "1"))
		return 1;
	if (!strcmp(s, "N") || !strcmp(s, "n") || !strcmp(s, "0"))
		return 0;
	return -1;
}

/* Sysfs values compare equal as text, as numbers, or as booleans (Y/1, N/0). */
static bool values_equal(const char *a, const char *b)
{
	uint64_t x, y;
	int ba, bb;

	if (!strcmp(a, b))
		return true;
	if (parse_u64(a, &x) == 0 && parse_u64(b, &y) == 0)
		return x == y;
	/* bool module parameters read back as Y/N whatever was written */
	ba = as_bool(a);
	bb = as_bool(b);
	return ba >= 0 && ba == bb;
}

/* realpath(<root><sub>) or -errno */
static int root_real(const struct options *o, const char *sub, char *out)
{
	char p[PATH_MAX];

	if (path_join(p, sizeof(p), o->sysfs_root, sub) < 0)
		return -ENAMETOOLONG;
	if (!realpath(p, out))
		return -errno;
	return 0;
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/';
}

/*
 * Where the knob really is.  rel is an expanded path below the sysfs
 * root.  The entry a path goes through (/sys/module/NAME,
 * /sys/block/NAME, /sys/bus/nd/devices/NAME) must be that directory
 * itself or, for devices, the kernel's own link into /sys/devices; the
 * rest of the path must not contain a symlink at all.  -ENOENT when it
 * does not exist, -EPERM with a reason when it escapes.
 */
static int resolve(const struct options *o, const char *rel, char *real,
		   char *anchor_real, char *why, size_t whylen)
{
	char buf[PATH_MAX], anchor[PATH_MAX], dir_real[PATH_MAX], devices[PATH_MAX];
	char expect[PATH_MAX * 2];
	const char *name, *tail;
	enum knob_root kind;
	struct stat st;
	int skip, i, r;

	if (knob_path_check(rel, &kind, why, whylen) < 0)
		return -EPERM;
	/* the entry is the 3rd (module, block) or 5th (nd) component */
	skip = kind == KNOB_ND_DEVICE ? 5 : 3;
	tail = rel;
	for (i = 0; i < skip; i++) {
		tail += strspn(tail, "/");
		tail += strcspn(tail, "/");
	}
	snprintf(anchor, sizeof(anchor), "%.*s", (int)(tail - rel), rel);
	name = strrchr(anchor, '/') + 1;
	snprintf(buf, sizeof(buf), "%.*s", (int)(name - anchor - 1), anchor);

	r = root_real(o, anchor, anchor_real);
	if (r < 0) {
		snprintf(why, whylen, "%s: %s", anchor, strerror(-r));
		return r == -ENOENT ? -ENOENT : -EPERM;
	}
	r = root_real(o, buf, dir_real);
	if (r < 0) {
		snprintf(why, whylen, "%s: %s", buf, strerror(-r));
		return -EPERM;
	}
	snprintf(expect, sizeof(expect), "%s/%s", dir_real, name);
	if (strcmp(anchor_real, expect)) {
		/* block devices and nd devices are links into /sys/devices */
		bool ok = kind != KNOB_MODULE && root_real(o, "/sys/devices", devices) == 0 &&
			  under(anchor_real, devices);

		if (!ok) {
			snprintf(why, whylen, "%s resolves to %s, outside the sysfs "
				 "device tree", anchor, anchor_real);
			return -EPERM;
		}
	}
	r = root_real(o, rel, real);
	if (r < 0) {
		snprintf(why, whylen, "%s", strerror(-r));
		return r == -ENOENT ? -ENOENT : -EPERM;
	}
	snprintf(expect, sizeof(expect), "%s%s", anchor_real, tail);
	if (strcmp(real, expect)) {
		snprintf(why, whylen, "resolves to %s through a symlink", real);
		return -EPERM;
	}
	if (stat(real, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s is not an attribute file", real);
		return -EPERM;
	}
	return 0;
}

/*
 * The persistence domain of the region a block device or nd device
 * belongs to.  A pmem block device's "device" link points at its
 * namespace (raw), pfn (fsdax) or btt device, whose parent is the
 * region; the region's persistence_domain says "cpu_cache" when the
 * platform flushes CPU caches on power loss (eADR), "memory_controller"
 * for ADR, "" when neither is guaranteed.
 */
static int region_domain(const struct options *o, enum knob_root kind, const char *rel,
			 const char *anchor_real, char *out, size_t len)
{
	char dev[PATH_MAX], sys[PATH_MAX], attr[PATH_MAX + 32];
	int i, r;

	if (kind == KNOB_BLOCK_DAX) {
		char link[PATH_MAX];
		const char *dax = strstr(rel, "/dax/");

		if (!dax || snprintf(link, sizeof(link), "%s%.*s/device", o->sysfs_root,
				     (int)(dax - rel), rel) >= (int)sizeof(link))
			return -ENAMETOOLONG;
		if (!realpath(link, dev))
			return -errno;
	} else {
		snprintf(dev, sizeof(dev), "%s", anchor_real);
	}
	r = root_real(o, "/sys", sys);
	if (r < 0)
		return r;
	/* the region is the parent; a few levels cover namespace/pfn/btt */
	for (i = 0; i < 4 && under(dev, sys); i++) {
		char *slash;

		snprintf(attr, sizeof(attr), "%s/persistence_domain", dev);
		r = read_attr(attr, out, len);
		if (r == 0)
			return 0;
		slash = strrchr(dev, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	return -ENOENT;
}

/*
 * A knob with a persistence_domain= condition is written only where the
 * region is known to have that domain: an unreadable domain is not a yes
 * (write_cache = 0 on an ADR region would lose data on power failure).
 */
static bool domain_allows(struct sink_ctx *ctx, const struct knob *k, const char *rel,
			  const char *anchor_real)
{
	char dom[64] = "", why[PATH_MAX + 64];
	enum knob_root kind;
	int r;

	if (!k->cond_domain[0])
		return true;
	knob_path_check(rel, &kind, why, sizeof(why));
	r = region_domain(ctx->opt, kind, rel, anchor_real, dom, sizeof(dom));
	if (r == 0 && !strcmp(dom, k->cond_domain))
		return true;
	log_debug("%s: %s left alone: region persistence domain is '%s', knob wants '%s' (%s)",
		  SINK, rel, r < 0 ? "unknown" : dom, k->cond_domain, k->origin);
	return false;
}

/* A write this pass will do, once the originals of all of them are saved. */
struct pending {
	char rel[PATH_MAX];
	char real[PATH_MAX];
	char desired[256];
	char cur[256];
	bool had;		/* a state entry existed before this pass */
	bool has_prev;		/* and had an applied value: */
	char prev[256];		/* it, put back if this write fails */
};

struct plan {
	size_t n, cap;
	struct pending *w;
};

/* Read, compare and queue one knob; nothing is written here. */
static void plan_one(struct sink_ctx *ctx, struct plan *plan, const struct knob *k,
		     const char *rel, const char *desired)
{
	char real[PATH_MAX], anchor_real[PATH_MAX], why[PATH_MAX + 64];
	char cur[256];
	struct state_entry *e;
	struct pending *w;
	size_t i;
	int r;

	r = resolve(ctx->opt, rel, real, anchor_real, why, sizeof(why));
	if (r == -ENOENT) {
		log_debug("%s: %s (%s): gone: %s", SINK, rel, k->origin, why);
		return;
	}
	if (r < 0) {
		log_knob(LOG_WARNING, SINK, rel, desired, NULL,
			 "%s: %s (%s): refused: %s", SINK, rel, k->origin, why);
		ctx->stats.refused++;
		return;
	}
	if (!domain_allows(ctx, k, rel, anchor_real))
		return;
	r = read_attr(real, cur, sizeof(cur));
	if (r < 0) {
		log_knob(LOG_ERR, SINK, rel, desired, NULL,
			 "%s: %s: cannot read: %s; not written", SINK, rel, strerror(-r));
		ctx->stats.failed++;
		return;
	}
	e = state_find(ctx->state, SINK, rel);
	if (values_equal(cur, desired)) {
		if (e)
			e->touched = true;
		ctx->stats.unchanged++;
		return;
	}
	if (ctx->dry_run || ctx->verify) {
		ctx->stats.drift++;
		if (ctx->dry_run)
			printf("%s: would set %s = %s (now %s)\n", SINK, rel, desired, cur);
		else
			log_knob(LOG_NOTICE, SINK, rel, desired, cur,
				 "%s: %s is %s, policy says %s", SINK, rel, cur, desired);
		return;
	}
	/* two knob lines reaching one file: the later line wins, as it always did */
	for (i = 0; i < plan->n; i++) {
		if (strcmp(plan->w[i].rel, rel))
			continue;
		snprintf(plan->w[i].desired, sizeof(plan->w[i].desired), "%s", desired);
		state_note(ctx->state, SINK, rel, true, cur, desired);
		return;
	}
	if (plan->n == plan->cap) {
		size_t cap = plan->cap ? 2 * plan->cap : 16;
		struct pending *nw = realloc(plan->w, cap * sizeof(*nw));

		if (!nw) {
			log_knob(LOG_ERR, SINK, rel, desired, cur, "%s: %s: %s; not written",
				 SINK, rel, strerror(ENOMEM));
			ctx->stats.failed++;
			return;
		}
		plan->w = nw;
		plan->cap = cap;
	}
	/* knob drift: someone changed what we wrote; this pass writes it again */
	if (e && e->applied && !values_equal(cur, e->applied))
		ctx->stats.drifted++;
	w = &plan->w[plan->n];
	snprintf(w->rel, sizeof(w->rel), "%s", rel);
	snprintf(w->real, sizeof(w->real), "%s", real);
	snprintf(w->desired, sizeof(w->desired), "%s", desired);
	snprintf(w->cur, sizeof(w->cur), "%s", cur);
	w->had = e != NULL;
	w->has_prev = e && e->applied;
	snprintf(w->prev, sizeof(w->prev), "%s", w->has_prev ? e->applied : "");
	if (state_note(ctx->state, SINK, rel, true, cur, desired) < 0) {
		log_knob(LOG_ERR, SINK, rel, desired, cur, "%s: %s: %s; not written", SINK,
			 rel, strerror(ENOMEM));
		ctx->stats.failed++;
		return;
	}
	plan->n++;
}

/* *resave: the state changed after it was saved (an entry undone or corrected). */
static void write_one(struct sink_ctx *ctx, const struct pending *w, bool *resave)
{
	char back[256];
	int r;

	r = write_attr(w->real, w->desired);
	if (r < 0) {
		int rr = read_attr(w->real, back, sizeof(back));

		log_knob(LOG_ERR, SINK, w->rel, w->desired, w->cur,
			 "%s: %s = %s: write failed: %s", SINK, w->rel, w->desired,
			 strerror(-r));
		ctx->stats.failed++;
		/*
		 * A store can fail and still have changed the knob (a short
		 * write, an array parameter): only a knob that reads as it
		 * was loses its entry; otherwise restore puts it back from
		 * what it reads now (or, unreadable, where it finds ours).
		 */
		if (rr == 0 && values_equal(back, w->cur))
			state_drop_note(ctx->state, SINK, w->rel, w->had,
					w->has_prev ? w->prev : NULL);
		else if (rr == 0)
			state_note(ctx->state, SINK, w->rel, true, w->cur, back);
		*resave = true;
		return;
	}
	r = read_attr(w->real, back, sizeof(back));
	if (r < 0 || !values_equal(back, w->desired)) {
		log_knob(LOG_WARNING, SINK, w->rel, w->desired, w->cur,
			 "%s: %s = %s: reads back as %s", SINK, w->rel, w->desired,
			 r < 0 ? strerror(-r) : back);
		ctx->stats.failed++;
		/* what the kernel made of our write is what restore will find */
		if (r == 0 && state_note(ctx->state, SINK, w->rel, true, w->cur, back) == 0)
			*resave = true;
		return;
	}
	log_knob(LOG_INFO, SINK, w->rel, w->desired, w->cur, "%s: %s = %s (was %s)", SINK,
		 w->rel, w->desired, w->cur);
	ctx->stats.set++;
}

/*
 * The originals of every queued write are saved in one go before the
 * first write: once a knob, a pass over thousands of module parameters
 * would fsync thousands of times and near the watchdog.
 */
static void execute(struct sink_ctx *ctx, struct plan *plan)
{
	bool resave = false;
	size_t i;
	int r;

	if (!plan->n)
		return;
	r = state_save(ctx->state);
	if (r < 0) {
		/* without a saved original a crash could not be undone */
		log_err("%s: cannot save the originals of %zu knob(s) in %s: %s; none written",
			SINK, plan->n, ctx->state->path, strerror(-r));
		for (i = 0; i < plan->n; i++)
			state_drop_note(ctx->state, SINK, plan->w[i].rel, plan->w[i].had,
					plan->w[i].has_prev ? plan->w[i].prev : NULL);
		ctx->stats.failed += plan->n;
		return;
	}
	for (i = 0; i < plan->n; i++)
		write_one(ctx, &plan->w[i], &resave);
	/* a failed write's entry goes where the knob reads as it was, else names what it reads */
	r = resave ? state_save(ctx->state) : 0;
	if (r < 0)
		log_warn("state %s: cannot save: %s", ctx->state->path, strerror(-r));
}

/*
 * Knob lines (by "file:line") whose export found no consumer, said once
 * per daemon lifetime: a host without the patched module is normal, and
 * every re-apply would say it again.
 */
static char **no_consumer;
static size_t n_no_consumer;

static bool first_no_consumer(const char *origin)
{
	char **grown, *copy;
	size_t i;

	for (i = 0; i < n_no_consumer; i++)
		if (!strcmp(no_consumer[i], origin))
			return false;
	copy = strdup(origin);
	grown = copy ? realloc(no_consumer, (n_no_consumer + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(copy);
		return true;	/* said again next time rather than never */
	}
	no_consumer = grown;
	no_consumer[n_no_consumer++] = copy;
	return true;
}

/* glob(3) metacharacters in the root are literal */
static void glob_escape(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in && o + 2 < len; in++) {
		if (strchr("*?[]\\", *in))
			out[o++] = '\\';
		out[o++] = *in;
	}
	out[o] = '\0';
}

static int sysfs_apply(struct sink_ctx *ctx)
{
	const struct options *o = ctx->opt;
	char root[PATH_MAX * 2], module_prefix[PATH_MAX];
	size_t i, rootlen = strlen(o->sysfs_root);
	struct plan plan = { 0 };

	if (!ctx->policy || !ctx->knobs)
		return 0;
	glob_escape(o->sysfs_root, root, sizeof(root));
	if (ctx->only_module)
		snprintf(module_prefix, sizeof(module_prefix), "/sys/module/%s/",
			 ctx->only_module);

	for (i = 0; i < ctx->knobs->n; i++) {
		const struct knob *k = &ctx->knobs->k[i];
		char value[256], desired[256], pattern[PATH_MAX * 3];
		glob_t g;
		size_t j;
		int r;

		if (ctx->only_module && k->root != KNOB_MODULE)
			continue;
		if (k->source[0] == '=') {
			snprintf(value, sizeof(value), "%s", k->source + 1);
		} else {
			r = export_key_value(ctx->policy, k->export, value, sizeof(value));
			if (r == -ENOENT) {
				log_debug("%s: %s: policy has no %s; skipped", SINK, k->origin,
					  k->source);
				continue;
			}
			if (r < 0) {
				log_warn("%s: %s: %s: %s; skipped", SINK, k->origin, k->source,
					 strerror(-r));
				ctx->stats.refused++;
				continue;
			}
		}
		r = knob_format(k, value, desired, sizeof(desired));
		if (r < 0) {
			log_knob(LOG_WARNING, SINK, k->path, value, NULL,
				 "%s: %s: %s=%s does not fit format '%s'; skipped", SINK,
				 k->origin, k->source, value, k->format);
			ctx->stats.refused++;
			continue;
		}
		snprintf(pattern, sizeof(pattern), "%s%s", root, k->path);
		r = glob(pattern, 0, NULL, &g);
		if (r == GLOB_NOMATCH) {
			if (k->source[0] != '=' && first_no_consumer(k->origin))
				log_info("%s: %s: %s has no consumer here: nothing matches %s; "
					 "carrying on", SINK, k->origin, k->source, k->path);
			else
				log_debug("%s: %s: nothing matches %s", SINK, k->origin, k->path);
			continue;
		}
		if (r != 0) {
			log_err("%s: %s: cannot expand %s", SINK, k->origin, k->path);
			ctx->stats.failed++;
			continue;
		}
		for (j = 0; j < g.gl_pathc; j++) {
			const char *rel = g.gl_pathv[j] + rootlen;

			if (ctx->only_module && !startswith(rel, module_prefix))
				continue;
			plan_one(ctx, &plan, k, rel, desired);
		}
		globfree(&g);
	}
	execute(ctx, &plan);
	free(plan.w);
	return ctx->stats.failed ? -EIO : 0;
}

static int sysfs_restore(const struct sink *s, struct sink_ctx *ctx, bool stale_only)
{
	size_t i;
	int ret = 0, r;

	for (i = ctx->state->n; i-- > 0;) {
		struct state_entry *e = &ctx->state->e[i];
		char real[PATH_MAX], anchor_real[PATH_MAX], why[PATH_MAX + 64], back[256] = "";
		char cur[256];

		if (strcmp(e->sink, SINK) || (stale_only && e->touched))
			continue;
		r = resolve(ctx->opt, e->key, real, anchor_real, why, sizeof(why));
		if (r == -ENOENT) {
			/* module unloaded or namespace gone: it comes back at defaults */
			log_knob(LOG_INFO, SINK, e->key, e->original, e->applied,
				 "%s: %s is gone; nothing to restore", SINK, e->key);
			if (!ctx->dry_run)
				state_forget(ctx->state, e);
			continue;
		}
		if (r < 0) {
			log_knob(LOG_WARNING, SINK, e->key, e->original, e->applied,
				 "%s: %s: refused to restore: %s", SINK, e->key, why);
			if (!ctx->dry_run) {
				state_forget(ctx->state, e);
				ctx->state->dropped++;
			}
			continue;
		}
		if (!e->existed || !e->original) {
			if (!ctx->dry_run)
				state_forget(ctx->state, e);
			continue;
		}
		/* read_attr() saves one line: anything else was not saved by us */
		if (strpbrk(e->original, "\n\r")) {
			log_knob(LOG_WARNING, SINK, e->key, NULL, e->applied,
				 "%s: %s: saved original spans lines; refused to restore it",
				 SINK, e->key);
			if (!ctx->dry_run) {
				state_forget(ctx->state, e);
				ctx->state->dropped++;
			}
			continue;
		}
		r = read_attr(real, cur, sizeof(cur));
		if (r < 0) {
			log_knob(LOG_ERR, SINK, e->key, e->original, e->applied,
				 "%s: %s: cannot read it to restore %s: %s; kept for "
				 "pmem-tuned --restore", SINK, e->key, e->original, strerror(-r));
			if (ret == 0)
				ret = r;
			continue;
		}
		switch (state_restore_action(e, cur, true, values_equal)) {
		case RESTORE_LEAVE:
			if (ctx->dry_run) {
				printf("%s: would leave %s = %s (pmem-tuned set %s)\n", SINK,
				       e->key, cur, e->applied);
				continue;
			}
			log_knob(LOG_WARNING, SINK, e->key, cur, e->applied,
				 "%s: %s changed since pmem-tuned set it (set %s, found %s); "
				 "left as found, original %s not put back", SINK, e->key,
				 e->applied, cur, e->original);
			ctx->state->left++;
			state_forget(ctx->state, e);
			continue;
		case RESTORE_ALREADY:
			log_knob(LOG_INFO, SINK, e->key, e->original, e->applied,
				 "%s: %s is %s already", SINK, e->key, e->original);
			if (!ctx->dry_run)
				state_forget(ctx->state, e);
			continue;
		case RESTORE_PUT_BACK:
			break;
		}
		if (ctx->dry_run) {
			printf("%s: would restore %s = %s\n", SINK, e->key, e->original);
			continue;
		}
		r = write_attr(real, e->original);
		if (r < 0) {
			log_knob(LOG_ERR, SINK, e->key, e->original, e->applied,
				 "%s: %s: restoring %s failed: %s", SINK, e->key, e->original,
				 strerror(-r));
			if (ret == 0)
				ret = r;
			continue;	/* kept: a later --restore may succeed */
		}
		if (read_attr(real, back, sizeof(back)) < 0 || !values_equal(back, e->original))
			log_knob(LOG_WARNING, SINK, e->key, e->original, e->applied,
				 "%s: %s: restored %s, reads back as %s", SINK, e->key,
				 e->original, back);
		else
			log_knob(LOG_INFO, SINK, e->key, e->original, e->applied,
				 "%s: %s restored to %s", SINK, e->key, e->original);
		state_forget(ctx->state, e);
	}
	return state_save_restored(ctx->state, ctx->dry_run, ret);
}

const struct sink sink_sysfs = {
	.name = SINK,
	.apply = sysfs_apply,
	.restore = sysfs_restore,
};
