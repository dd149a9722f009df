// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon's state file: originals kept across a restart, the first
 * original winning, undo of an announced write, and files and
 * directories that are damaged, planted or writable by others.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "common/macros.h"
#include "common/read_file.h"
#include "daemon/instance_lock.h"
#include "daemon/state.h"
#include "tmptree.h"

#define KNOB "/sys/module/alpha/parameters/thresh"
#define ENVFILE "file:/etc/pmem-tuned/libpmem.env"

static const char one_entry[] =
	"{\"format\":\"pmem-tuned-state/1\",\"entries\":["
	"{\"sink\":\"sysfs\",\"key\":\"" KNOB "\",\"existed\":true,\"original\":\"100\"}]}";

/* a fresh state directory rel with mode; valid until the next call */
static const char *state_dir(const char *rel, unsigned mode)
{
	static char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", tmptree_path(rel));
	mkdir(dir, mode);
	chmod(dir, mode);
	return dir;
}

static void test_round_trip(void)
{
	const char *dir = state_dir("rt", 0755);
	struct state st, again;
	struct state_entry *e;

	/* no file: nothing to restore, and none written for nothing */
	CHECK_INT(state_load(&st, dir, false), 0);
	CHECK_INT(st.n, 0);
	CHECK(!st.untrusted);
	CHECK_INT(state_save(&st), 0);
	CHECK(!tmptree_exists("rt/state.json"));

	CHECK_INT(state_remember(&st, "sysfs", KNOB, true, "768", "512"), 0);
	CHECK_INT(state_remember(&st, "libpmem", ENVFILE, false, NULL, "A=1"), 0);
	CHECK(tmptree_exists("rt/state.json"));
	/* the first original wins: a restarted daemon's own value is not one */
	CHECK_INT(state_remember(&st, "sysfs", KNOB, true, "512", "1024"), 0);
	CHECK_INT(st.n, 2);

	CHECK_INT(state_load(&again, dir, false), 0);
	CHECK_INT(again.n, 2);
	e = state_find(&again, "sysfs", KNOB);
	CHECK(e != NULL);
	if (e) {
		CHECK(e->existed);
		CHECK_STR(e->original, "768");
		CHECK_STR(e->applied, "1024");
		CHECK(!e->touched);	/* only the current pass touches */
	}
	e = state_find(&again, "libpmem", ENVFILE);
	CHECK(e != NULL);
	if (e) {
		CHECK(!e->existed);
		CHECK(e->original == NULL);
	}
	CHECK(state_find(&again, "glibc", KNOB) == NULL);
	state_free(&again);

	/* forgetting everything removes the file */
	while (st.n)
		state_forget(&st, &st.e[0]);
	CHECK_INT(state_save(&st), 0);
	CHECK(!tmptree_exists("rt/state.json"));
	state_free(&st);
}

static void test_undo(void)
{
	const char *dir = state_dir("undo", 0755);
	struct state st;

	CHECK_INT(state_load(&st, dir, false), 0);
	CHECK_INT(state_remember(&st, "sysfs", KNOB, true, "768", "512"), 0);
	/* the write failed: an entry made for it goes */
	state_undo_remember(&st, "sysfs", KNOB, false, NULL);
	CHECK_INT(st.n, 0);
	CHECK(!tmptree_exists("undo/state.json"));

	/* an entry from before stays: its original may still be ours to restore */
	CHECK_INT(state_remember(&st, "sysfs", KNOB, true, "768", "512"), 0);
	CHECK_INT(state_remember(&st, "sysfs", KNOB, true, "512", "256"), 0);
	state_undo_remember(&st, "sysfs", KNOB, true, "512");
	CHECK_INT(st.n, 1);
	CHECK_STR(st.e[0].original, "768");
	/* and names the value still in place, so that restore knows it for ours */
	CHECK_STR(st.e[0].applied, "512");

	state_untouch(&st, "sysfs");
	CHECK(!st.e[0].touched);
	state_free(&st);
}

static void test_corrupt(void)
{
	static const char *const bad[] = {
		"{\"format\": 7",
		"{\"format\":\"pmem-tuned-state/2\",\"entries\":[]}",
		"{\"format\":\"pmem-tuned-state/1\",\"entries\":{}}",
		"{\"format\":\"pmem-tuned-state/1\",\"entries\":[{\"sink\":\"sysfs\"}]}",
		"[]",
	};
	const char *dir = state_dir("bad", 0755);
	struct state st;
	size_t i;

	/* a dry run reads nothing from it and leaves it as found */
	tmptree_put("bad/state.json", bad[0], 0600);
	CHECK(state_load(&st, dir, true) < 0);
	CHECK_INT(st.n, 0);
	CHECK(tmptree_exists("bad/state.json"));
	CHECK(!tmptree_exists("bad/state.json.corrupt"));
	state_free(&st);

	/* set aside as evidence, nothing read */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		unlink(tmptree_path("bad/state.json.corrupt"));
		tmptree_put("bad/state.json", bad[i], 0600);
		CHECK_MSG(state_load(&st, dir, false) < 0, "state_load('%s') accepted", bad[i]);
		CHECK_INT(st.n, 0);
		CHECK(!st.untrusted);
		CHECK(!tmptree_exists("bad/state.json"));
		CHECK(tmptree_exists("bad/state.json.corrupt"));
		state_free(&st);
	}
}

static void test_untrusted(void)
{
	const char *dir;
	struct state st;

	/* a file others can write: set aside unread; a dry run leaves it where it is */
	dir = state_dir("shared-file", 0755);
	tmptree_put("shared-file/state.json", one_entry, 0666);
	CHECK_INT(state_load(&st, dir, true), -EPERM);
	CHECK_INT(st.n, 0);
	CHECK(tmptree_exists("shared-file/state.json"));
	CHECK(!tmptree_exists("shared-file/state.json.untrusted"));
	state_free(&st);
	CHECK_INT(state_load(&st, dir, false), -EPERM);
	CHECK_INT(st.n, 0);
	CHECK(!st.untrusted);
	CHECK(tmptree_exists("shared-file/state.json.untrusted"));
	state_free(&st);

	/* a symlink in its place: not followed */
	dir = state_dir("link", 0755);
	tmptree_put("target.json", one_entry, 0600);
	CHECK_INT(symlink("../target.json", tmptree_path("link/state.json")), 0);
	CHECK_INT(state_load(&st, dir, false), -EPERM);
	CHECK_INT(st.n, 0);
	CHECK(tmptree_exists("link/state.json.untrusted"));
	CHECK(tmptree_exists("target.json"));
	state_free(&st);

	/* a directory others can write: nothing read, nothing ever saved */
	dir = state_dir("shared-dir", 0777);
	tmptree_put("shared-dir/state.json", one_entry, 0600);
	CHECK_INT(state_load(&st, dir, false), -EPERM);
	CHECK_INT(st.n, 0);
	CHECK(st.untrusted);
	CHECK_INT(state_remember(&st, "sysfs", KNOB, true, "1", "2"), -EPERM);
	CHECK_INT(st.n, 0);
	CHECK_INT(state_save(&st), -EPERM);
	state_free(&st);
	chmod(dir, 0755);
}

/* Entries that a fresh pass could not have saved are dropped, counted, never restored. */
static void test_invalid_entries(void)
{
	static const struct { const char *entry; bool valid; } cases[] = {
		{ "{\"sink\":\"sysfs\",\"key\":\"" KNOB "\",\"existed\":true,"
		  "\"original\":\"100\"}", true },
		{ "{\"sink\":\"tuned\",\"key\":\"" KNOB "\",\"existed\":true,"
		  "\"original\":\"100\"}", false },
		{ "{\"sink\":\"sysfs\",\"key\":\"/sys/kernel/mm/ksm/run\",\"existed\":true,"
		  "\"original\":\"1\"}", false },
		{ "{\"sink\":\"sysfs\",\"key\":\"" KNOB "\",\"existed\":true,"
		  "\"original\":\"1\\n2\"}", false },
		{ "{\"sink\":\"sysfs\",\"key\":\"" KNOB "\",\"existed\":false}", false },
		{ "{\"sink\":\"libpmem\",\"key\":\"file:/etc/pmem-tuned/libpmem.env\","
		  "\"existed\":true,\"original\":\"PMEM_MOVNT_THRESHOLD=1024\\n\"}", true },
		{ "{\"sink\":\"libpmem\",\"key\":\"file:/etc/pmem-tuned/glibc.env\","
		  "\"existed\":false}", false },
		{ "{\"sink\":\"glibc\",\"key\":\"file:/etc/shadow\",\"existed\":false}",
		  false },
		{ "{\"sink\":\"glibc\",\"key\":\"file:/etc/pmem-tuned/glibc.env\","
		  "\"existed\":true,\"original\":\"# Written by pmem-tuned from x\\n\"}", false },
		{ "{\"sink\":\"glibc\",\"key\":\"manager:GLIBC_TUNABLES\",\"existed\":true,"
		  "\"original\":\"glibc.malloc.check=3\"}", true },
		{ "{\"sink\":\"glibc\",\"key\":\"manager:LD_PRELOAD\",\"existed\":false}",
		  false },
		{ "{\"sink\":\"libpmem\",\"key\":\"manager:PMEM_MOVNT_THRESHOLD\","
		  "\"existed\":true,\"original\":\"1\\nLD_PRELOAD=x\"}", false },
		/* a file original's mode and owner: permission bits and two ids, or none */
		{ "{\"sink\":\"libpmem\",\"key\":\"" ENVFILE "\",\"existed\":true,"
		  "\"original\":\"A=1\\n\",\"mode\":\"0640\",\"uid\":0,\"gid\":4}", true },
		{ "{\"sink\":\"libpmem\",\"key\":\"" ENVFILE "\",\"existed\":true,"
		  "\"original\":\"A=1\\n\",\"mode\":\"4755\",\"uid\":0,\"gid\":4}", false },
		{ "{\"sink\":\"libpmem\",\"key\":\"" ENVFILE "\",\"existed\":true,"
		  "\"original\":\"A=1\\n\",\"mode\":\"0648\",\"uid\":0,\"gid\":4}", false },
		{ "{\"sink\":\"libpmem\",\"key\":\"" ENVFILE "\",\"existed\":true,"
		  "\"original\":\"A=1\\n\",\"mode\":\"0640\",\"uid\":-1,\"gid\":4}", false },
		{ "{\"sink\":\"libpmem\",\"key\":\"" ENVFILE "\",\"existed\":true,"
		  "\"original\":\"A=1\\n\",\"mode\":\"0640\",\"uid\":4294967295,"
		  "\"gid\":4}", false },
		{ "{\"sink\":\"libpmem\",\"key\":\"" ENVFILE "\",\"existed\":true,"
		  "\"original\":\"A=1\\n\",\"mode\":\"0640\"}", false },
		{ "{\"sink\":\"libpmem\",\"key\":\"" ENVFILE "\",\"existed\":true,"
		  "\"original\":\"A=1\\n\",\"mode\":416,\"uid\":0,\"gid\":4}", false },
		{ "{\"sink\":\"libpmem\",\"key\":\"" ENVFILE "\",\"existed\":false,"
		  "\"mode\":\"0640\",\"uid\":0,\"gid\":4}", false },
		{ "{\"sink\":\"sysfs\",\"key\":\"" KNOB "\",\"existed\":true,"
		  "\"original\":\"100\",\"mode\":\"0644\",\"uid\":0,\"gid\":0}", false },
	};
	const char *dir = state_dir("invalid", 0755);
	char text[1024];
	struct state st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(text, sizeof(text), "{\"format\":\"pmem-tuned-state/1\","
			 "\"entries\":[%s]}", cases[i].entry);
		tmptree_put("invalid/state.json", text, 0600);
		CHECK_INT(state_load(&st, dir, false), 0);
		CHECK_MSG(st.n == (cases[i].valid ? 1u : 0u), "%s: %zu entries", cases[i].entry,
			  st.n);
		CHECK_MSG(st.dropped == (cases[i].valid ? 0u : 1u), "%s: %u dropped",
			  cases[i].entry, st.dropped);
		state_free(&st);
	}
	/* a NUL inside, or a second document after the first: not a state */
	memset(&st, 0, sizeof(st));
	CHECK_INT(state_parse(&st, "{}\0{}", 5), -EBADMSG);
	snprintf(text, sizeof(text), "{\"format\":\"pmem-tuned-state/1\",\"entries\":[]} []");
	CHECK_INT(state_parse(&st, text, strlen(text)), -EBADMSG);
	state_free(&st);
}

/*
 * What restore needs: the value applied and, for a file, its original's
 * mode and owner, kept across a restart; a state file from before they
 * were kept still loads (crash recovery after an upgrade).
 */
static void test_owner_and_applied(void)
{
	const struct state_owner adm = { .known = true, .mode = 0640, .uid = 0, .gid = 4 };
	static const char old[] =
		"{\"format\":\"pmem-tuned-state/1\",\"entries\":["
		"{\"sink\":\"libpmem\",\"key\":\"" ENVFILE "\",\"existed\":true,"
		"\"original\":\"A=1\\n\",\"applied\":\"B=2\\n\"},"
		"{\"sink\":\"sysfs\",\"key\":\"" KNOB "\",\"existed\":true,"
		"\"original\":\"100\"}]}";
	const char *dir = state_dir("owner", 0755);
	struct state st, again;
	struct state_entry *e;

	CHECK_INT(state_load(&st, dir, false), 0);
	CHECK_INT(state_remember_file(&st, "libpmem", ENVFILE, true, "A=1\n", &adm, "B=2\n"), 0);
	/* the first original wins, its mode and owner with it */
	CHECK_INT(state_remember_file(&st, "libpmem", ENVFILE, true, "B=2\n", NULL, "C=3\n"),
		  0);
	CHECK_INT(state_load(&again, dir, false), 0);
	e = state_find(&again, "libpmem", ENVFILE);
	CHECK(e != NULL);
	if (e) {
		CHECK(e->owner.known);
		CHECK_INT(e->owner.mode, 0640);
		CHECK_INT(e->owner.uid, 0);
		CHECK_INT(e->owner.gid, 4);
		CHECK_STR(e->original, "A=1\n");
		CHECK_STR(e->applied, "C=3\n");
	}
	{
		char *text = NULL;

		CHECK_INT(read_file(tmptree_path("owner/state.json"), 0, 1 << 20, &text, NULL), 0);
		CHECK(text && strstr(text, "\"0640\"") != NULL);
		free(text);
	}
	state_free(&again);
	state_free(&st);

	/* an older daemon's file: no mode, no owner, perhaps no applied value */
	tmptree_put("owner/state.json", old, 0600);
	CHECK_INT(state_load(&st, dir, false), 0);
	CHECK_INT(st.n, 2);
	CHECK_INT(st.dropped, 0);
	e = state_find(&st, "libpmem", ENVFILE);
	CHECK(e && !e->owner.known && e->applied && !strcmp(e->applied, "B=2\n"));
	e = state_find(&st, "sysfs", KNOB);
	CHECK(e && !e->applied);
	state_free(&st);
}

/* The restore rule: ours put back, the original left alone, anyone else's left. */
static void test_restore_action(void)
{
	struct state_entry knob = { .sink = (char *)"sysfs", .key = (char *)KNOB,
		.existed = true, .original = (char *)"768", .applied = (char *)"4096" };
	struct state_entry made = { .sink = (char *)"libpmem", .key = (char *)ENVFILE,
		.existed = false, .applied = (char *)"A=1\n" };
	struct state_entry older = knob;

	CHECK_INT(state_restore_action(&knob, "4096", true, NULL), RESTORE_PUT_BACK);
	CHECK_INT(state_restore_action(&knob, "768", true, NULL), RESTORE_ALREADY);
	CHECK_INT(state_restore_action(&knob, "2048", true, NULL), RESTORE_LEAVE);
	CHECK_INT(state_restore_action(&knob, NULL, true, NULL), RESTORE_LEAVE);
	CHECK_INT(state_restore_action(&made, "A=1\n", true, NULL), RESTORE_PUT_BACK);
	CHECK_INT(state_restore_action(&made, NULL, true, NULL), RESTORE_ALREADY);
	CHECK_INT(state_restore_action(&made, "A=1\nB=2\n", true, NULL), RESTORE_LEAVE);
	/* a symbolic link or a FIFO where our file was: not ours to replace or remove */
	CHECK_INT(state_restore_action(&made, NULL, false, NULL), RESTORE_LEAVE);
	/* an entry of a daemon that kept no applied value: put back, as it was then */
	older.applied = NULL;
	CHECK_INT(state_restore_action(&older, "2048", true, NULL), RESTORE_PUT_BACK);
}

/* A FIFO at the state path is refused, without blocking the load. */
static void test_fifo(void)
{
	const char *dir = state_dir("fifo", 0755);
	struct state st;

	CHECK_INT(mkfifo(tmptree_path("fifo/state.json"), 0600), 0);
	CHECK(state_load(&st, dir, false) < 0);
	CHECK_INT(st.n, 0);
	state_free(&st);
}

/* Saving writes the file only when something changed. */
static void test_save_when_dirty(void)
{
	const char *dir = state_dir("dirty", 0755);
	struct state st;

	CHECK_INT(state_load(&st, dir, false), 0);
	CHECK_INT(state_note(&st, "sysfs", KNOB, true, "1", "2"), 0);
	CHECK_INT(state_note(&st, "sysfs", KNOB "2", true, "1", "2"), 0);
	CHECK(!tmptree_exists("dirty/state.json"));
	CHECK_INT(state_save(&st), 0);
	CHECK_INT(state_save(&st), 0);
	CHECK_INT(st.saves, 1);
	CHECK(tmptree_exists("dirty/state.json"));
	state_drop_note(&st, "sysfs", KNOB "2", false, NULL);
	CHECK_INT(st.n, 1);
	CHECK_INT(state_save(&st), 0);
	CHECK_INT(st.saves, 2);
	state_free(&st);
}

/* One instance at a time: a second one gives up, with -EBUSY, once the wait is over. */
static void test_instance_lock(void)
{
	const char *dir = state_dir("lock", 0755);
	char d[PATH_MAX];
	int a, b;

	snprintf(d, sizeof(d), "%s", dir);
	a = instance_lock(d, 0);
	CHECK(a >= 0);
	b = instance_lock(d, 100);
	CHECK_INT(b, -EBUSY);
	close(a);
	b = instance_lock(d, 0);
	CHECK(b >= 0);
	close(b);

	/* a lock file linked to another file is not written to */
	CHECK_INT(link(tmptree_path("lock/lock"), tmptree_path("lock/other")), 0);
	CHECK_INT(instance_lock(d, 0), -EPERM);
	unlink(tmptree_path("lock/other"));

	/* a FIFO in the lock's place is refused, not opened for ever */
	unlink(tmptree_path("lock/lock"));
	CHECK_INT(mkfifo(tmptree_path("lock/lock"), 0600), 0);
	CHECK(instance_lock(d, 0) < 0);
}

int main(void)
{
	tmptree_make("pt-state");
	test_round_trip();
	test_undo();
	test_corrupt();
	test_untrusted();
	test_invalid_entries();
	test_fifo();
	test_owner_and_applied();
	test_restore_action();
	test_save_when_dirty();
	test_instance_lock();
	tmptree_remove(check_failed);
	return check_report("test_state");
}
