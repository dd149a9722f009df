// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * glibc's bounds as the glibc sink reads them: the --list-tunables parser
 * on recorded and constructed listings (tests/data/glibc-tunables), the
 * rule glibc applies to the two x86 thresholds, and running a loader that
 * misbehaves (fails, hangs, floods, is missing), all without this
 * machine's glibc.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "common/read_file.h"
#include "daemon/glibc_bounds.h"
#include "tmptree.h"

#define MOVSB	"glibc.cpu.x86_rep_movsb_threshold"
#define NT	"glibc.cpu.x86_non_temporal_threshold"

static const char *data_dir;

static char *listing(const char *name)
{
	char path[PATH_MAX];
	char *t = NULL;

	snprintf(path, sizeof(path), "%s/glibc-tunables/%s", data_dir, name);
	CHECK_MSG(read_file(path, 0, GLIBC_LIST_MAX, &t, NULL) == 0, "%s: cannot read", path);
	return t ? t : strdup("");
}

static void check_bound(const char *text, const char *name, uint64_t value, uint64_t min,
			uint64_t max)
{
	struct glibc_bound b = { 0 };

	CHECK_INT(glibc_bound_parse(text, name, &b), 0);
	CHECK_INT(b.value, value);
	CHECK_INT(b.min, min);
	CHECK_INT(b.max, max);
}

/* Recorded on this project's AMD guest (Debian glibc 2.36, AVX-512, FSRM). */
static void test_recorded_236(void)
{
	char *t = listing("debian-2.36-amd-f26-kvm.txt");
	struct glibc_bound b;

	check_bound(t, MOVSB, 0x840, 0x200, UINT64_MAX);
	check_bound(t, NT, 0x7f00000, 0x4040, 0xfffffffffffffffull);
	/* decimal (INT_32) lines read too; a string tunable has no bounds */
	check_bound(t, "glibc.malloc.check", 0, 0, 3);
	CHECK_INT(glibc_bound_parse(t, "glibc.cpu.x86_shstk", &b), -EINVAL);
	CHECK_INT(glibc_bound_parse(t, "glibc.cpu.x86_memset_non_temporal_threshold", &b),
		  -ENOENT);
	/* the case: 0x100 is below this glibc's rep movsb floor */
	CHECK_INT(glibc_bound_parse(t, MOVSB, &b), 0);
	CHECK(!glibc_bound_takes(&b, 0x100));
	free(t);
}

/* A newer glibc's lines on an AVX2 host: another floor, more tunables. */
static void test_constructed_240(void)
{
	char *t = listing("constructed-2.40-avx2.txt");
	struct glibc_bound b;

	check_bound(t, MOVSB, 0x2000, 0x100, UINT64_MAX);
	check_bound(t, NT, 0xc0000, 0x4040, 0xfffffffffffffffull);
	CHECK_INT(glibc_bound_parse(t, "glibc.cpu.hwcaps", &b), -EINVAL);
	CHECK_INT(glibc_bound_parse(t, MOVSB, &b), 0);
	CHECK(glibc_bound_takes(&b, 0x101));
	free(t);
}

static void test_parse_edges(void)
{
	struct glibc_bound b;

	/* a name is matched whole, up to its ':' */
	CHECK_INT(glibc_bound_parse(MOVSB "_x: 0x1 (min: 0x0, max: 0x2)\n", MOVSB, &b), -ENOENT);
	CHECK_INT(glibc_bound_parse("x" MOVSB ": 0x1 (min: 0x0, max: 0x2)\n", MOVSB, &b),
		  -ENOENT);
	CHECK_INT(glibc_bound_parse("", MOVSB, &b), -ENOENT);
	/* the last line needs no newline */
	check_bound("a: 1 (min: 0, max: 1)\n" MOVSB ": 0x840 (min: 0x200, max: 0x300)",
		    MOVSB, 0x840, 0x200, 0x300);
	/* anything but the whole form is not read as bounds */
	CHECK_INT(glibc_bound_parse(MOVSB ": 0x840 (min: 0x200, max: 0x300) x\n", MOVSB, &b),
		  -EINVAL);
	CHECK_INT(glibc_bound_parse(MOVSB ": 0x840 (min: -1, max: 0x300)\n", MOVSB, &b),
		  -EINVAL);
	CHECK_INT(glibc_bound_parse(MOVSB ": 0x840 (max: 0x300)\n", MOVSB, &b), -EINVAL);
	CHECK_INT(glibc_bound_parse(MOVSB ": 0x840 (min: 0x200, max: 0x1ffffffffffffffff)\n",
				    MOVSB, &b), -EINVAL);
	{
		char line[600];

		snprintf(line, sizeof(line), MOVSB ": 0x840 (min: 0x200, max: 0x%0500d)", 3);
		CHECK_INT(glibc_bound_parse(line, MOVSB, &b), -EINVAL);
	}
}

/* glibc 2.36, measured: rep_movsb=0x200 and non_temporal=0x4040 are ignored. */
static void test_takes(void)
{
	const struct glibc_bound movsb = { 0x840, 0x200, UINT64_MAX };
	const struct glibc_bound nt = { 0x7f00000, 0x4040, 0xfffffffffffffffull };

	CHECK(!glibc_bound_takes(&movsb, 0x100));
	CHECK(!glibc_bound_takes(&movsb, 0x200));
	CHECK(glibc_bound_takes(&movsb, 0x201));
	CHECK(glibc_bound_takes(&movsb, UINT64_MAX));
	CHECK(!glibc_bound_takes(&nt, 0x4040));
	CHECK(glibc_bound_takes(&nt, 0x4041));
	CHECK(glibc_bound_takes(&nt, 0xfffffffffffffffull));
	CHECK(!glibc_bound_takes(&nt, 0x1000000000000000ull));
}

static void test_ldso_self(void)
{
	char path[PATH_MAX];

	/* this test is a dynamic program: it has a loader, and runs it */
	CHECK_INT(glibc_ldso_self(path, sizeof(path)), 0);
	CHECK_MSG(path[0] == '/' && access(path, X_OK) == 0, "loader '%s'", path);
	CHECK_INT(glibc_ldso_self(path, 4), -ENAMETOOLONG);
}

static int run(const char *script, int timeout_ms, char **text, char *why)
{
	tmptree_put("ld.so", script, 0755);
	return glibc_list_tunables(tmptree_path("ld.so"), timeout_ms, text, why, 128);
}

static void test_run(void)
{
	char script[PATH_MAX + 64], why[128], *text, *want = listing("debian-2.36-amd-f26-kvm.txt");
	int r;

	tmptree_make("pt-glibc-bounds");

	/* what it prints, whole; its only argument is --list-tunables */
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n[ \"$*\" = --list-tunables ] || exit 9\n"
		 "exec /bin/cat '%s/glibc-tunables/debian-2.36-amd-f26-kvm.txt'\n",
		 data_dir);
	CHECK_INT(run(script, GLIBC_LIST_TIMEOUT_MS, &text, why), 0);
	CHECK(text && !strcmp(text, want));
	free(text);

	/* an empty environment: none of ours reaches the listing */
	setenv("GLIBC_TUNABLES", MOVSB "=0x100", 1);
	CHECK_INT(run("#!/bin/sh\nexec /usr/bin/env\n", GLIBC_LIST_TIMEOUT_MS, &text, why), 0);
	CHECK(text && !strstr(text, "GLIBC_TUNABLES"));
	free(text);
	unsetenv("GLIBC_TUNABLES");

	r = run("#!/bin/sh\necho 'glibc.x: 1 (min: 0, max: 1)'\nexit 3\n", GLIBC_LIST_TIMEOUT_MS,
		&text, why);
	CHECK_INT(r, -EIO);
	CHECK_STR(why, "exited with status 3");
	CHECK(text == NULL);

	r = run("#!/bin/sh\nkill -SEGV $$\n", GLIBC_LIST_TIMEOUT_MS, &text, why);
	CHECK_INT(r, -EIO);
	CHECK_STR(why, "killed by signal 11");

	/* hangs: killed, with what it started (a group of its own) */
	r = run("#!/bin/sh\n/bin/sleep 60\n", 300, &text, why);
	CHECK_INT(r, -ETIMEDOUT);
	CHECK_STR(why, "no answer within 300 ms");
	/* closes its output and goes on */
	r = run("#!/bin/sh\nexec >&-\nexec /bin/sleep 60\n", 300, &text, why);
	CHECK_INT(r, -ETIMEDOUT);

	/* floods: cut at the bound */
	r = run("#!/bin/sh\nexec /usr/bin/yes\n", GLIBC_LIST_TIMEOUT_MS, &text, why);
	CHECK_INT(r, -EFBIG);
	CHECK(text == NULL);

	r = glibc_list_tunables(tmptree_path("none"), GLIBC_LIST_TIMEOUT_MS, &text, why,
				sizeof(why));
	CHECK_INT(r, -ENOENT);
	CHECK_STR(why, "cannot run it: No such file or directory");
	free(want);
	tmptree_remove(check_failed);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_glibc_bounds DATA_DIR\n");
		return 2;
	}
	data_dir = argv[1];
	test_recorded_236();
	test_constructed_240();
	test_parse_edges();
	test_takes();
	test_ldso_self();
	test_run();
	return check_report("test_glibc_bounds");
}
