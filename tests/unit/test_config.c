// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon's command line and pmem-tuned.conf: modes, roots and the
 * paths built from them, and the config file's keys.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "common/macros.h"
#include "daemon/config.h"
#include "tmptree.h"

/* options_parse() on a NULL-terminated list after the program name */
#define PARSE(o, ...)							\
	({								\
		char *_argv[] = { (char *)"pmem-tuned", __VA_ARGS__, NULL }; \
		options_parse((o), (int)ARRAY_SIZE(_argv) - 1, _argv);	\
	})

static void test_defaults(void)
{
	char *argv[] = { (char *)"pmem-tuned", NULL };
	struct options o;

	CHECK_INT(options_parse(&o, 1, argv), 0);
	CHECK_INT(o.mode, MODE_DAEMON);
	CHECK_INT(o.rollback, ROLLBACK_AUTO);
	CHECK(!o.force && !o.no_bus && !o.verbose);
	CHECK_STR(o.policy, PT_POLICY_PATH);
	CHECK_STR(o.state_dir, PT_STATE_DIR);
	CHECK_STR(o.sysfs_root, "");
	CHECK_STR(o.etc_root, "");
}

static void test_modes(void)
{
	static const struct { const char *arg; enum run_mode mode; } cases[] = {
		{ "--oneshot", MODE_ONESHOT },
		{ "--dry-run", MODE_DRY_RUN },
		{ "--verify", MODE_VERIFY },
		{ "--restore", MODE_RESTORE },
	};
	struct options o;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		CHECK_INT(PARSE(&o, (char *)cases[i].arg), 0);
		CHECK_MSG(o.mode == cases[i].mode, "%s: mode %d", cases[i].arg, o.mode);
	}
	/* one mode at a time */
	CHECK_INT(PARSE(&o, "--oneshot", "--restore"), -EINVAL);
	CHECK_INT(PARSE(&o, "--dry-run", "--dry-run"), -EINVAL);

	CHECK_INT(PARSE(&o, "--force", "--no-bus", "-v"), 0);
	CHECK(o.force && o.no_bus && o.verbose);
	CHECK_INT(PARSE(&o, "--help"), 1);
	CHECK_INT(PARSE(&o, "--version"), 1);
}

static void test_refused(void)
{
	char longpath[PATH_MAX + 8];
	struct options o;

	CHECK_INT(PARSE(&o, "--frobnicate"), -EINVAL);
	CHECK_INT(PARSE(&o, "extra"), -EINVAL);
	CHECK_INT(PARSE(&o, "--policy"), -EINVAL);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	CHECK_INT(PARSE(&o, "--policy", longpath), -EINVAL);
	CHECK_INT(PARSE(&o, "--state-dir", longpath), -EINVAL);
}

static void test_roots(void)
{
	char path[PATH_MAX];
	struct options o;

	/* roots are prefixes: trailing slashes go, "/" is no root at all */
	CHECK_INT(PARSE(&o, "--sysfs-root", "/tmp/fake//", "--etc-root", "/"), 0);
	CHECK_STR(o.sysfs_root, "/tmp/fake");
	CHECK_STR(o.etc_root, "");
	CHECK(o.no_bus);		/* any --etc-root keeps away from the manager */

	CHECK_INT(PARSE(&o, "--etc-root", "/tmp/tree/"), 0);
	CHECK_STR(o.policy, "/tmp/tree" PT_POLICY_PATH);
	CHECK_STR(o.state_dir, "/tmp/tree" PT_STATE_DIR);
	CHECK_INT(etc_path(&o, PT_KNOBS_DIR, path, sizeof(path)), 0);
	CHECK_STR(path, "/tmp/tree" PT_KNOBS_DIR);
	CHECK_INT(etc_path(&o, PT_KNOBS_DIR, path, 8), -ENAMETOOLONG);

	/* explicit paths are not moved under the root */
	CHECK_INT(PARSE(&o, "--etc-root", "/tmp/tree", "--policy", "p.json",
			"--state-dir", "/s"), 0);
	CHECK_STR(o.policy, "p.json");
	CHECK_STR(o.state_dir, "/s");
}

/* A fake glibc loader for test trees; a production daemon runs its own. */
static void test_ldso(void)
{
	struct options o;

	setenv("PMEM_TUNED_LDSO", "/tmp/tree/ld.so", 1);
	CHECK_INT(PARSE(&o, "--oneshot"), 0);
	CHECK_STR(o.ldso, "");
	CHECK_INT(PARSE(&o, "--etc-root", "/", "--oneshot"), 0);
	CHECK_STR(o.ldso, "");
	CHECK_INT(PARSE(&o, "--etc-root", "/tmp/tree"), 0);
	CHECK_STR(o.ldso, "/tmp/tree/ld.so");
	unsetenv("PMEM_TUNED_LDSO");
	CHECK_INT(PARSE(&o, "--etc-root", "/tmp/tree"), 0);
	CHECK_STR(o.ldso, "");
}

static void test_config_file(void)
{
	static const struct { const char *text; enum rollback rollback; } cases[] = {
		{ "rollback=never\n", ROLLBACK_NEVER },
		{ "# comment\n[Daemon]\n  rollback = never  \n", ROLLBACK_NEVER },
		{ "rollback=auto\n", ROLLBACK_AUTO },
		{ "rollback=sometimes\n", ROLLBACK_AUTO },
		{ "; only a comment\nno equals sign\nfrobnicate=1\n", ROLLBACK_AUTO },
		{ "", ROLLBACK_AUTO },
	};
	struct options o;
	size_t i;

	CHECK_INT(PARSE(&o, "--etc-root", (char *)tmptree_root), 0);
	/* no file: the defaults */
	o.rollback = ROLLBACK_NEVER;
	CHECK_INT(config_load(&o), 0);
	CHECK_INT(o.rollback, ROLLBACK_AUTO);

	mkdir(tmptree_path("etc"), 0755);
	mkdir(tmptree_path("etc/pmem-tuned"), 0755);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		tmptree_put("etc/pmem-tuned/pmem-tuned.conf", cases[i].text, 0644);
		o.rollback = ROLLBACK_NEVER;
		CHECK_INT(config_load(&o), 0);
		CHECK_MSG(o.rollback == cases[i].rollback, "'%s': rollback %d", cases[i].text,
			  o.rollback);
	}
}

/* glibc's tunables are opt-in; the file steering root's writes must be root's alone. */
static void test_config_glibc_and_trust(void)
{
	static const struct { const char *text; enum glibc_scope glibc; } cases[] = {
		{ "", GLIBC_OFF },
		{ "glibc_tunables = file\n", GLIBC_FILE },
		{ "glibc_tunables=manager\n", GLIBC_MANAGER },
		{ "glibc_tunables=off\n", GLIBC_OFF },
		{ "glibc_tunables=yes\n", GLIBC_OFF },
	};
	struct options o;
	size_t i;

	CHECK_INT(PARSE(&o, "--etc-root", (char *)tmptree_root), 0);
	CHECK_INT(o.glibc, GLIBC_OFF);
	mkdir(tmptree_path("etc"), 0755);
	mkdir(tmptree_path("etc/pmem-tuned"), 0755);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		tmptree_put("etc/pmem-tuned/pmem-tuned.conf", cases[i].text, 0644);
		o.glibc = GLIBC_MANAGER;
		CHECK_INT(config_load(&o), 0);
		CHECK_MSG(o.glibc == cases[i].glibc, "'%s': glibc %d", cases[i].text, o.glibc);
	}

	/* writable by others: refused, defaults */
	tmptree_put("etc/pmem-tuned/pmem-tuned.conf", "glibc_tunables=manager\n"
		    "rollback=never\n", 0666);
	chmod(tmptree_path("etc/pmem-tuned/pmem-tuned.conf"), 0666);
	CHECK_INT(config_load(&o), -EPERM);
	CHECK_INT(o.glibc, GLIBC_OFF);
	CHECK_INT(o.rollback, ROLLBACK_AUTO);

	/* a FIFO does not hang the reader */
	unlink(tmptree_path("etc/pmem-tuned/pmem-tuned.conf"));
	CHECK_INT(mkfifo(tmptree_path("etc/pmem-tuned/pmem-tuned.conf"), 0600), 0);
	CHECK_INT(config_load(&o), -EINVAL);
	unlink(tmptree_path("etc/pmem-tuned/pmem-tuned.conf"));
}

/* metrics_file=: off by default, an absolute path to a file or nothing. */
static void test_config_metrics_file(void)
{
	static const struct { const char *text, *want; } cases[] = {
		{ "", "" },
		{ "metrics_file = /var/lib/prometheus/node-exporter/pmem_tuned.prom\n",
		  "/var/lib/prometheus/node-exporter/pmem_tuned.prom" },
		{ "metrics_file=\n", "" },
		{ "metrics_file = pmem_tuned.prom\n", "" },
		{ "metrics_file = /var/lib/prometheus/\n", "" },
		{ "metrics_file = /var/lib/..\n", "" },
		{ "metrics_file = /a.prom\nmetrics_file = relative\n", "" },
	};
	struct options o;

	CHECK_INT(PARSE(&o, "--etc-root", (char *)tmptree_root), 0);
	CHECK_STR(o.metrics_file, "");
	mkdir(tmptree_path("etc"), 0755);
	mkdir(tmptree_path("etc/pmem-tuned"), 0755);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		tmptree_put("etc/pmem-tuned/pmem-tuned.conf", cases[i].text, 0644);
		snprintf(o.metrics_file, sizeof(o.metrics_file), "/stale.prom");
		CHECK_INT(config_load(&o), 0);
		CHECK_MSG(!strcmp(o.metrics_file, cases[i].want), "'%s': metrics_file '%s'",
			  cases[i].text, o.metrics_file);
	}
	unlink(tmptree_path("etc/pmem-tuned/pmem-tuned.conf"));
	CHECK_INT(config_load(&o), 0);
	CHECK_STR(o.metrics_file, "");
}

/* Re-probing is the administrator's choice: both keys off unless set to yes. */
static void test_config_reprobe(void)
{
	static const struct { const char *text; bool env, region; } cases[] = {
		{ "", false, false },
		{ "reprobe_on_environment_change = yes\n", true, false },
		{ "reprobe_on_region_add=yes\n", false, true },
		{ "reprobe_on_environment_change = yes\nreprobe_on_region_add = yes\n",
		  true, true },
		{ "reprobe_on_environment_change = no\nreprobe_on_region_add = no\n",
		  false, false },
		/* anything else is warned about and leaves it off */
		{ "reprobe_on_environment_change = always\nreprobe_on_region_add = 1\n",
		  false, false },
	};
	struct options o;
	size_t i;

	CHECK_INT(PARSE(&o, "--etc-root", (char *)tmptree_root), 0);
	CHECK(!o.reprobe_env && !o.reprobe_region);
	mkdir(tmptree_path("etc"), 0755);
	mkdir(tmptree_path("etc/pmem-tuned"), 0755);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		tmptree_put("etc/pmem-tuned/pmem-tuned.conf", cases[i].text, 0644);
		o.reprobe_env = o.reprobe_region = true;
		CHECK_INT(config_load(&o), 0);
		CHECK_MSG(o.reprobe_env == cases[i].env && o.reprobe_region == cases[i].region,
			  "'%s': env %d region %d", cases[i].text, o.reprobe_env,
			  o.reprobe_region);
	}
	/* a file that reverts to the defaults turns them off again (a reload) */
	unlink(tmptree_path("etc/pmem-tuned/pmem-tuned.conf"));
	o.reprobe_env = o.reprobe_region = true;
	CHECK_INT(config_load(&o), 0);
	CHECK(!o.reprobe_env && !o.reprobe_region);

	/* the probe unit's condition is a mode of its own */
	CHECK_INT(PARSE(&o, "--need-probe"), 0);
	CHECK_INT(o.mode, MODE_NEED_PROBE);
	CHECK_INT(PARSE(&o, "--need-probe", "--verify"), -EINVAL);
}

int main(void)
{
	tmptree_make("pt-config");
	test_defaults();
	test_modes();
	test_refused();
	test_roots();
	test_ldso();
	test_config_file();
	test_config_glibc_and_trust();
	test_config_metrics_file();
	test_config_reprobe();
	tmptree_remove(check_failed);
	return check_report("test_config");
}
