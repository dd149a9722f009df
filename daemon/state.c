// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/atomic_file.h"
#include "common/path.h"
#include "common/read_file.h"
#include "common/trusted.h"
#include "daemon/log.h"
#include "daemon/sanitize.h"
#include "daemon/state.h"
#include "policy/policy.h"

#define STATE_FORMAT "pmem-tuned-state/1"

static void entry_free(struct state_entry *e)
{
	free(e->sink);
	free(e->key);
	free(e->original);
	free(e->applied);
}

void state_free(struct state *st)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		entry_free(&st->e[i]);
	free(st->e);
	st->e = NULL;
	st->n = 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int add_entry(struct state *st, const char *sink, const char *key, bool existed,
		     const char *original, const struct state_owner *owner,
		     const char *applied)
{
	struct state_entry *ne, *e;

	ne = realloc(st->e, (st->n + 1) * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	st->e = ne;
	e = &st->e[st->n];
	memset(e, 0, sizeof(*e));
	e->sink = strdup(sink);
	e->key = strdup(key);
	e->existed = existed;
	e->original = existed ? dup_or_null(original) : NULL;
	if (owner)
		e->owner = *owner;	/* state_entry_check() refuses one without an original */
	e->applied = dup_or_null(applied);
	if (!e->sink || !e->key || (existed && original && !e->original) ||
	    (applied && !e->applied)) {
		entry_free(e);
		return -ENOMEM;
	}
	st->n++;
	return 0;
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* An id as JSON writes it: an integer, never (uid_t)-1. */
static bool jid(struct json_object *o, const char *key, unsigned *out)
{
	struct json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	n = json_object_get_int64(v);
	if (n < 0 || n >= UINT32_MAX)
		return false;
	*out = (unsigned)n;
	return true;
}

/*
 * "mode" (octal text, "0640"), "uid" and "gid": all three or none (a
 * state file from before they were kept).  -EINVAL when they are there
 * but not of that shape.
 */
static int parse_owner(struct json_object *e, struct state_owner *o, char *why, size_t len)
{
	bool any = json_object_object_get_ex(e, "mode", NULL) ||
		   json_object_object_get_ex(e, "uid", NULL) ||
		   json_object_object_get_ex(e, "gid", NULL);
	const char *mode = jstr(e, "mode");
	unsigned uid, gid;

	memset(o, 0, sizeof(*o));
	if (!any)
		return 0;
	if (!mode || !*mode || strspn(mode, "01234567") != strlen(mode) || strlen(mode) > 4 ||
	    !jid(e, "uid", &uid) || !jid(e, "gid", &gid)) {
		snprintf(why, len, "mode, uid and gid are not an octal mode and two ids");
		return -EINVAL;
	}
	o->known = true;
	o->mode = (unsigned)strtoul(mode, NULL, 8);
	o->uid = (uid_t)uid;
	o->gid = (gid_t)gid;
	return 0;
}

int state_parse(struct state *st, const char *text, size_t len)
{
	struct json_object *root, *arr;
	struct json_tokener *tok;
	size_t i, n;
	int r = 0;

	if (len > INT_MAX || strlen(text) != len)
		return -EBADMSG;	/* a NUL inside is not JSON */
	tok = json_tokener_new_ex(32);
	if (!tok)
		return -ENOMEM;
	root = json_tokener_parse_ex(tok, text, (int)len);
	/* one document, nothing after it but blanks */
	if (root && text[json_tokener_get_parse_end(tok) +
			 strspn(text + json_tokener_get_parse_end(tok), " \t\r\n")]) {
		json_object_put(root);
		root = NULL;
	}
	json_tokener_free(tok);
	if (!root)
		return -EBADMSG;
	if (!jstr(root, "format") || strcmp(jstr(root, "format"), STATE_FORMAT) ||
	    !json_object_object_get_ex(root, "entries", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		json_object_put(root);
		return -EBADMSG;
	}
	n = json_object_array_length(arr);
	for (i = 0; i < n && r == 0; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i), *ex;
		const char *sink = jstr(e, "sink"), *key = jstr(e, "key");
		struct state_owner owner;
		char why[160];
		int invalid;

		if (!sink || !key || !json_object_object_get_ex(e, "existed", &ex) ||
		    !json_object_is_type(ex, json_type_boolean)) {
			r = -EBADMSG;
			break;
		}
		invalid = parse_owner(e, &owner, why, sizeof(why));
		r = add_entry(st, sink, key, json_object_get_boolean(ex), jstr(e, "original"),
			      &owner, jstr(e, "applied"));
		if (r == 0 && invalid == 0)
			invalid = state_entry_check(&st->e[st->n - 1], why, sizeof(why));
		if (r == 0 && invalid < 0) {
			struct state_entry *bad = &st->e[st->n - 1];

			sanitize_line(why);
			log_warn("state %s: entry %zu (%s): %s; dropped, not restored",
				 st->path[0] ? st->path : "(text)", i, bad->sink, why);
			state_forget(st, bad);
			st->dropped++;
			st->dirty = true;
		}
	}
	json_object_put(root);
	return r;
}

/* What becomes of a refused state file: set aside beside it as suffix; a dry run leaves it. */
static const char *set_aside(const struct state *st, bool read_only, const char *suffix,
			     bool lost, char *buf, size_t len)
{
	if (read_only)
		return "left in place (a dry run)";
	snprintf(buf, len, "moved to %s%s%s", st->path, suffix,
		 lost ? ", originals of an earlier run are lost" : "");
	return buf;
}

/*
 * The state says what to write where on restore: only a directory and a
 * file that no one but root (or this user) could have written are read,
 * and an untrusted directory is never written to either, so that nothing
 * is changed whose original could not be kept safe.  Returns the open
 * file, -ENOENT when there is none, or another -errno (logged).
 */
static int open_trusted(struct state *st, const char *dir, bool read_only)
{
	struct stat sd = { 0 }, sf = { 0 };
	char why[PATH_MAX + 64], fate[PATH_MAX + 128];
	int dfd, fd, r;

	/* and every directory above it: who may rename one may swap the state */
	if (trusted_dir(dir, why, sizeof(why)) == -EPERM) {
		st->untrusted = true;
		log_err("state directory %s: refused: %s, not root's alone; nothing will be "
			"written", dir, why);
		return -EPERM;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 && errno == ENOENT)
		return -ENOENT;		/* --dry-run and --verify do not create it */
	if (dfd < 0 || fstat(dfd, &sd) < 0 || !trusted_stat(&sd)) {
		r = dfd < 0 ? -errno : -EPERM;
		st->untrusted = true;
		if (r == -EPERM)
			log_err("state directory %s: refused: owned by uid %u with mode %04o, "
				"not root's alone; nothing will be written", dir,
				(unsigned)sd.st_uid, (unsigned)(sd.st_mode & 07777));
		else
			log_err("state directory %s: %s; originals cannot be saved, nothing "
				"will be written", dir, strerror(-r));
		if (dfd >= 0)
			close(dfd);
		return r;
	}
	/* O_NONBLOCK: a FIFO in its place must not hang the start, or --restore */
	fd = openat(dfd, "state.json", O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	r = fd < 0 ? -errno : 0;
	if (r == 0 && (fstat(fd, &sf) < 0 || !S_ISREG(sf.st_mode) || !trusted_stat(&sf))) {
		log_err("state %s: refused: owned by uid %u with mode %04o, not root's alone; %s",
			st->path, (unsigned)sf.st_uid, (unsigned)(sf.st_mode & 07777),
			set_aside(st, read_only, ".untrusted", true, fate, sizeof(fate)));
		r = -EPERM;
	} else if (r == -ELOOP) {
		log_err("state %s: refused: a symbolic link; %s", st->path,
			set_aside(st, read_only, ".untrusted", false, fate, sizeof(fate)));
		r = -EPERM;
	} else if (r < 0 && r != -ENOENT) {
		log_err("state %s: cannot read: %s; originals of an earlier run are lost",
			st->path, strerror(-r));
	}
	if (r == -EPERM && !read_only)
		renameat(dfd, "state.json", dfd, "state.json.untrusted");
	if (r < 0 && fd >= 0)
		close(fd);
	close(dfd);
	return r < 0 ? r : fd;
}

int state_load(struct state *st, const char *dir, bool read_only)
{
	size_t len;
	char *text;
	int fd, r;

	memset(st, 0, sizeof(*st));
	r = path_join(st->path, sizeof(st->path), dir, "/state.json");
	if (r < 0)
		return r;
	fd = open_trusted(st, dir, read_only);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	r = read_fd(fd, 16 * 1024 * 1024, &text, &len);
	close(fd);
	if (r < 0) {
		log_err("state %s: cannot read: %s; originals of an earlier run are lost",
			st->path, strerror(-r));
		return r;
	}
	r = state_parse(st, text, len);
	free(text);
	if (r < 0) {
		char aside[4200], fate[4300];

		/* keep the evidence; a fresh file will be written next to it */
		state_free(st);
		snprintf(aside, sizeof(aside), "%s.corrupt", st->path);
		if (!read_only)
			rename(st->path, aside);
		log_err("state %s: malformed (%s); %s", st->path, strerror(-r),
			set_aside(st, read_only, ".corrupt", true, fate, sizeof(fate)));
	}
	return r;
}

int state_save_restored(struct state *st, bool dry_run, int ret)
{
	int r = dry_run ? 0 : state_save(st);

	if (r < 0)
		log_err("state %s: cannot save: %s", st->path, strerror(-r));
	return ret < 0 ? ret : r;
}

int state_save(struct state *st)
{
	struct json_object *root, *arr;
	const char *text;
	size_t i;
	int r;

	if (st->untrusted)
		return -EPERM;
	if (!st->dirty)
		return 0;
	if (st->n == 0) {
		if (unlink(st->path) < 0 && errno != ENOENT)
			return -errno;
		st->dirty = false;
		return 0;
	}
	root = json_object_new_object();
	arr = json_object_new_array();
	if (!root || !arr) {
		json_object_put(root);
		json_object_put(arr);
		return -ENOMEM;
	}
	json_object_object_add(root, "format", json_object_new_string(STATE_FORMAT));
	for (i = 0; i < st->n; i++) {
		const struct state_entry *e = &st->e[i];
		struct json_object *o = json_object_new_object();

		if (!o) {
			json_object_put(root);
			json_object_put(arr);
			return -ENOMEM;
		}
		json_object_object_add(o, "sink", json_object_new_string(e->sink));
		json_object_object_add(o, "key", json_object_new_string(e->key));
		json_object_object_add(o, "existed", json_object_new_boolean(e->existed));
		if (e->original)
			json_object_object_add(o, "original",
					       json_object_new_string(e->original));
		if (e->applied)
			json_object_object_add(o, "applied",
					       json_object_new_string(e->applied));
		if (e->owner.known) {
			char mode[8];

			snprintf(mode, sizeof(mode), "%04o", e->owner.mode & 07777);
			json_object_object_add(o, "mode", json_object_new_string(mode));
			json_object_object_add(o, "uid", json_object_new_int64(e->owner.uid));
			json_object_object_add(o, "gid", json_object_new_int64(e->owner.gid));
		}
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "entries", arr);
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	r = atomic_write_file(st->path, text, strlen(text), 0600);
	json_object_put(root);
	if (r == 0) {
		st->dirty = false;
		st->saves++;
	}
	return r;
}

struct state_entry *state_find(struct state *st, const char *sink, const char *key)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (!strcmp(st->e[i].sink, sink) && !strcmp(st->e[i].key, key))
			return &st->e[i];
	return NULL;
}

static int note(struct state *st, const char *sink, const char *key, bool existed,
		const char *original, const struct state_owner *owner, const char *applied)
{
	struct state_entry *e = state_find(st, sink, key);
	int r;

	if (e) {
		char *a = dup_or_null(applied);

		if (applied && !a)
			return -ENOMEM;
		free(e->applied);
		e->applied = a;
		e->touched = true;
	} else {
		r = add_entry(st, sink, key, existed, original, owner, applied);
		if (r < 0)
			return r;
		st->e[st->n - 1].touched = true;
	}
	st->dirty = true;
	return 0;
}

int state_note(struct state *st, const char *sink, const char *key,
	       bool existed, const char *original, const char *applied)
{
	return note(st, sink, key, existed, original, NULL, applied);
}

int state_remember_file(struct state *st, const char *sink, const char *key, bool existed,
			const char *original, const struct state_owner *owner,
			const char *applied)
{
	struct state_entry *e = state_find(st, sink, key);
	bool had = e != NULL;
	char *prev = NULL;
	int r;

	if (e && e->applied && !(prev = strdup(e->applied)))
		return -ENOMEM;
	r = note(st, sink, key, existed, original, owner, applied);
	if (r == 0)
		r = state_save(st);
	/*
	 * The caller will not write: a new entry would "restore" an unchanged
	 * value, an older one must still name the value in place.
	 */
	if (r < 0)
		state_drop_note(st, sink, key, had, prev);
	free(prev);
	return r;
}

int state_remember(struct state *st, const char *sink, const char *key,
		   bool existed, const char *original, const char *applied)
{
	return state_remember_file(st, sink, key, existed, original, NULL, applied);
}

void state_drop_note(struct state *st, const char *sink, const char *key, bool had,
		     const char *prev_applied)
{
	struct state_entry *e = state_find(st, sink, key);
	char *prev;

	if (!e)
		return;
	if (!had) {
		state_forget(st, e);
		return;
	}
	/* an entry from before keeps its original: the value in place is still ours */
	prev = dup_or_null(prev_applied);
	if (prev_applied && !prev)
		return;		/* kept as noted: restore then leaves the value, logged */
	free(e->applied);
	e->applied = prev;
}

void state_undo_remember(struct state *st, const char *sink, const char *key, bool had,
			 const char *prev_applied)
{
	state_drop_note(st, sink, key, had, prev_applied);
	state_save(st);
}

static bool same(const char *a, const char *b, bool (*eq)(const char *, const char *))
{
	return eq ? eq(a, b) : !strcmp(a, b);
}

enum restore_action state_restore_action(const struct state_entry *e, const char *current,
					 bool known,
					 bool (*eq)(const char *a, const char *b))
{
	if (!known)
		return RESTORE_LEAVE;
	if (!e->applied || (current && same(current, e->applied, eq)))
		return RESTORE_PUT_BACK;
	if (e->existed ? current && same(current, e->original ? e->original : "", eq) :
			 !current)
		return RESTORE_ALREADY;
	return RESTORE_LEAVE;
}

void state_forget(struct state *st, struct state_entry *e)
{
	size_t i = e - st->e;

	entry_free(e);
	memmove(&st->e[i], &st->e[i + 1], (st->n - i - 1) * sizeof(*e));
	st->n--;
	st->dirty = true;
}

void state_keep(struct state *st, const char *sink, const char *key)
{
	struct state_entry *e = state_find(st, sink, key);

	if (e)
		e->touched = true;
}

void state_untouch(struct state *st, const char *sink)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (!strcmp(st->e[i].sink, sink))
			st->e[i].touched = false;
}
