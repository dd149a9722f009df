// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon's state file: originals kept across a restart, the first
 * original winning, undo of an announced write, and files and
 * directories that are damaged, planted or writable by others.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "state.h"
#include "tmptree.h"
#include "common/macros.h"

#define KNOB "/sys/module/alpha/parameters/thresh"

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
	CHECK_INT(state_load(&st, dir), 0);
	CHECK_INT(st.n, 0);
	CHECK(!st.untrusted);
	CHECK_INT(state_save(&st), 0);
	CHECK(!tmptree_exists("rt/state.json"));

	CHECK_INT(state_remember(&st, "sysfs", KNOB, true, "768", "512"), 0);
	CHECK_INT(state_remember(&st, "libpmem", "file:/etc/x.env", false, NULL, "A=1"), 0);
	CHECK(tmptree_exists("rt/state.json"));
	/* the first original wins: a restarted daemon's own value is not one */
	CHECK_INT(state_remember(&st, "sysfs", KNOB, true, "512", "1024"), 0);
	CHECK_INT(st.n, 2);

	CHECK_INT(state_load(&again, dir), 0);
	CHECK_INT(again.n, 2);
	e = state_find(&again, "sysfs", KNOB);
	CHECK(e != NULL);
	if (e) {
		CHECK(e->existed);
		CHECK_STR(e->original, "768");
		CHECK_STR(e->applied, "1024");
		CHECK(!e->touched);	/* only the current pass touches */
	}
	e = state_find(&again, "libpmem", "file:/etc/x.env");
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

	CHECK_INT(state_load(&st, dir), 0);
	CHECK_INT(state_remember(&st, "sysfs", KNOB, true, "768", "512"), 0);
	/* the write failed: an entry made for it goes */
	state_undo_remember(&st, "sysfs", KNOB, false);
	CHECK_INT(st.n, 0);
	CHECK(!tmptree_exists("undo/state.json"));

	/* an entry from before stays: its original may still be ours to restore */
	CHECK_INT(state_remember(&st, "sysfs", KNOB, true, "768", "512"), 0);
	CHECK_INT(state_remember(&st, "sysfs", KNOB, true, "512", "256"), 0);
	state_undo_remember(&st, "sysfs", KNOB, true);
	CHECK_INT(st.n, 1);
	CHECK_STR(st.e[0].original, "768");

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

	/* set aside as evidence, nothing read */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		unlink(tmptree_path("bad/state.json.corrupt"));
		tmptree_put("bad/state.json", bad[i], 0600);
		CHECK_MSG(state_load(&st, dir) < 0, "state_load('%s') accepted", bad[i]);
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

	/* a file others can write: set aside unread */
	dir = state_dir("shared-file", 0755);
	tmptree_put("shared-file/state.json", one_entry, 0666);
	CHECK_INT(state_load(&st, dir), -EPERM);
	CHECK_INT(st.n, 0);
	CHECK(!st.untrusted);
	CHECK(tmptree_exists("shared-file/state.json.untrusted"));
	state_free(&st);

	/* a symlink in its place: not followed */
	dir = state_dir("link", 0755);
	tmptree_put("target.json", one_entry, 0600);
	CHECK_INT(symlink("../target.json", tmptree_path("link/state.json")), 0);
	CHECK_INT(state_load(&st, dir), -EPERM);
	CHECK_INT(st.n, 0);
	CHECK(tmptree_exists("link/state.json.untrusted"));
	CHECK(tmptree_exists("target.json"));
	state_free(&st);

	/* a directory others can write: nothing read, nothing ever saved */
	dir = state_dir("shared-dir", 0777);
	tmptree_put("shared-dir/state.json", one_entry, 0600);
	CHECK_INT(state_load(&st, dir), -EPERM);
	CHECK_INT(st.n, 0);
	CHECK(st.untrusted);
	CHECK_INT(state_remember(&st, "sysfs", KNOB, true, "1", "2"), -EPERM);
	CHECK_INT(st.n, 0);
	CHECK_INT(state_save(&st), -EPERM);
	state_free(&st);
	chmod(dir, 0755);
}

int main(void)
{
	tmptree_make("pt-state");
	test_round_trip();
	test_undo();
	test_corrupt();
	test_untrusted();
	tmptree_remove(check_failed);
	return check_report("test_state");
}
