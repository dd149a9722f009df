/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Originals of everything the daemon changed, kept in
 * /run/pmem-tuned/state.json so that a restarted daemon (after a crash,
 * or ExecStopPost=pmem-tuned --restore) can still put them back.
 * The first original recorded for a key wins: a restarted daemon must
 * not mistake its predecessor's value for the original.
 */
#ifndef PT_STATE_H
#define PT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A file original's permission bits and owner, put back with its content. */
struct state_owner {
	bool known;		/* false: not a file, or a state file older than these */
	unsigned mode;		/* permission bits, 0777 at most */
	uid_t uid;
	gid_t gid;
};

struct state_entry {
	char *sink;		/* "sysfs", "libpmem", "glibc" */
	char *key;		/* sysfs path, "file:PATH" or "manager:NAME" */
	bool existed;		/* false: the file or variable was absent */
	char *original;		/* NULL when !existed */
	struct state_owner owner;	/* of the original file, when existed */
	/*
	 * What we last wrote: restore puts the original back only where this
	 * is still found.  NULL in an entry of an older daemon: restored as is.
	 */
	char *applied;
	bool touched;		/* set by the current apply pass */
};

struct state {
	char path[4096];
	bool untrusted;		/* directory others can write: never saved */
	bool dirty;		/* changed since the last save */
	unsigned saves;		/* files written: a pass saves once, not once a knob */
	unsigned dropped;	/* entries given up on: invalid, or refused on restore */
	unsigned left;		/* changed by someone else since: left as found */
	size_t n;
	struct state_entry *e;
};

/*
 * Missing file = empty state; a corrupt one is logged and set aside.  A
 * directory not owned by root (or this user) or writable by others makes
 * the state untrusted: nothing is read from it, and state_save() (so
 * every change) is refused.  A file that is not a regular file owned by
 * root (or this user) and writable only by it is set aside unread.
 * read_only (--dry-run): nothing is set aside, the file stays as found.
 */
int state_load(struct state *st, const char *dir, bool read_only);
/*
 * Parse the text of a state file into st (which must be empty or
 * loaded); every entry is checked as a fresh one would be
 * (state_entry_check()), and one that fails is dropped with a log line
 * and counted in st->dropped.  -EBADMSG when the text is not a state.
 */
int state_parse(struct state *st, const char *text, size_t len);
/*
 * The rules a saved entry must meet to be restored: a sink we have, a
 * key that sink writes, values of the shape it reads.  0, or -EINVAL
 * with the reason in why (state_check.c).
 */
int state_entry_check(const struct state_entry *e, char *why, size_t len);
/* Atomic; removes the file when nothing is left to restore; nothing when unchanged. */
int state_save(struct state *st);
/*
 * The end of a sink's restore pass: state_save() but on a dry run, a
 * failure logged.  Returns ret where it is an error already (the first
 * error wins), else the save's.
 */
int state_save_restored(struct state *st, bool dry_run, int ret);
void state_free(struct state *st);

struct state_entry *state_find(struct state *st, const char *sink, const char *key);
/*
 * Record that key is about to be changed to applied; the original is
 * kept only if none was recorded.  Saved before returning, so the
 * caller writes only once the original is safe.
 */
int state_remember(struct state *st, const char *sink, const char *key,
		   bool existed, const char *original, const char *applied);
/* As state_remember(), for a file whose original has this mode and owner (may be NULL). */
int state_remember_file(struct state *st, const char *sink, const char *key, bool existed,
			const char *original, const struct state_owner *owner,
			const char *applied);
/* As state_remember(), not saved: the caller saves once before the writes. */
int state_note(struct state *st, const char *sink, const char *key,
	       bool existed, const char *original, const char *applied);
/* Undo a state_note() (see state_undo_remember()), not saved. */
void state_drop_note(struct state *st, const char *sink, const char *key, bool had,
		     const char *prev_applied);
/*
 * The write state_remember() announced failed: drop the entry it created
 * (had = false: there was none before) so that restore does not "put
 * back" a value that was never changed; an entry from before (had) gets
 * back prev_applied, its applied value before, which is still in place.
 */
void state_undo_remember(struct state *st, const char *sink, const char *key, bool had,
			 const char *prev_applied);
/* What restore does with an entry. */
enum restore_action {
	RESTORE_PUT_BACK,	/* what we applied is there: the original goes back */
	RESTORE_ALREADY,	/* the original is there already: nothing to write */
	RESTORE_LEAVE,		/* someone else changed it since: left as found */
};

/*
 * The restore rule for e, whose key now holds current (NULL: absent, the
 * file or variable is not there), compared with eq (NULL: strcmp).
 * known = false: something is in its place that we never write (a
 * symbolic link, a FIFO): left.  An entry of an older daemon, with no
 * applied value, is put back as it always was.
 */
enum restore_action state_restore_action(const struct state_entry *e, const char *current,
					 bool known,
					 bool (*eq)(const char *a, const char *b));
void state_forget(struct state *st, struct state_entry *e);
void state_untouch(struct state *st, const char *sink);
/* This pass keeps the entry (sink, key), if any, as it is: its restore does not run. */
void state_keep(struct state *st, const char *sink, const char *key);

#endif
