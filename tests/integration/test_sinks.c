// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon's apply/restore path against a fake sysfs and etc tree:
 * allowlist and symlink escapes, a knob that refuses writes beside ones
 * that work, persistence-domain gating, save/write/read-back/restore,
 * restore after a "crash", dry-run and verify, rollback=never, the
 * libpmem and glibc environment files.
 *
 * Run as root it drops to nobody first, so that a read-only knob really
 * refuses the write (EACCES) the way a kernel knob can.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "common/macros.h"
#include "common/path.h"
#include "common/read_file.h"
#include "common/sysfs_attr.h"
#include "common/text.h"
#include "daemon/daemon.h"
#include "daemon/knobmap.h"
#include "daemon/log.h"
#include "mkpolicy.h"
#include "policy/policy.h"
#include "put_file.h"

static char root[PATH_MAX];
static char *builtin_conf;

static const char *P(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *P(const char *fmt, ...)
{
	static char bufs[8][PATH_MAX];
	static int i;
	char rel[PATH_MAX];
	va_list ap;
	char *b = bufs[i++ % 8];

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (snprintf(b, PATH_MAX, "%s/%s", root, rel) >= PATH_MAX)
		abort();
	return b;
}

static void put(const char *rel, const char *content, unsigned mode)
{
	put_file_mode(root, rel, content, mode);
}

/* first line of a file under root, "<absent>" when missing */
static const char *get(const char *rel)
{
	static char bufs[4][4096];
	static int i;
	char *b = bufs[i++ % 4];

	if (read_attr(P("%s", rel), b, 4096) < 0)
		snprintf(b, 4096, "<absent>");
	return b;
}

/* whole file; the last two results stay valid (one CHECK compares two) */
static char *slurp(const char *rel)
{
	static char *keep[2];
	static int i;
	char *t;

	i ^= 1;
	free(keep[i]);
	keep[i] = NULL;
	if (read_file(P("%s", rel), 0, 1 << 20, &t, NULL) < 0)
		return (char *)"<absent>";
	keep[i] = t;
	return t;
}

static bool exists(const char *rel)
{
	return access(P("%s", rel), F_OK) == 0;
}

/*
 * A sysfs tree shaped like the kernel's: /sys/block and /sys/bus/nd
 * entries are links into /sys/devices, pmem0 is a raw namespace of a
 * cpu_cache region, pmem1 an fsdax (pfn) namespace of an ADR region.
 */
/*
 * The glibc these tests run against, not this machine's: a loader that
 * lists rep_movsb's minimum as movsb_min (glibc 2.36 with AVX-512: 0x200);
 * NULL lists no rep_movsb at all, "fail" makes it exit 1.
 */
static void fake_ldso(const char *movsb_min)
{
	char list[512], script[PATH_MAX + 64];

	snprintf(list, sizeof(list),
		 "glibc.malloc.check: 0 (min: 0, max: 3)\n"
		 "glibc.cpu.x86_non_temporal_threshold: 0x7f00000 (min: 0x4040, "
		 "max: 0xfffffffffffffff)\n"
		 "%s%s%s"
		 "glibc.cpu.x86_shstk:\n",
		 movsb_min ? "glibc.cpu.x86_rep_movsb_threshold: 0x840 (min: " : "",
		 movsb_min ? movsb_min : "", movsb_min ? ", max: 0xffffffffffffffff)\n" : "");
	put("ldso/list", list, 0644);
	if (movsb_min && !strcmp(movsb_min, "fail"))
		snprintf(script, sizeof(script), "#!/bin/sh\nexit 1\n");
	else
		snprintf(script, sizeof(script), "#!/bin/sh\nexec /bin/cat '%s'\n", P("ldso/list"));
	put("ldso/ld.so", script, 0755);
}

static void make_tree(void)
{
	remove_tree(root);
	mkdir_p(root, 0755);
	put("sys/module/alpha/parameters/thresh", "768\n", 0644);
	put("sys/module/alpha/parameters/flag", "N\n", 0644);
	put("sys/module/alpha/parameters/movnt", "0x100\n", 0644);
	put("sys/module/beta/parameters/locked", "5\n", 0444);
	put("sys/devices/ndbus0/region0/persistence_domain", "cpu_cache\n", 0444);
	put("sys/devices/ndbus0/region0/namespace0.0/block/pmem0/dax/write_cache", "1\n", 0644);
	put_link(root, "sys/devices/ndbus0/region0/namespace0.0/block/pmem0/device",
		 "../../../namespace0.0");
	put_link(root, "sys/block/pmem0", "../devices/ndbus0/region0/namespace0.0/block/pmem0");
	put("sys/devices/ndbus0/region1/persistence_domain", "memory_controller\n", 0444);
	put("sys/devices/ndbus0/region1/pfn1.0/block/pmem1/dax/write_cache", "1\n", 0644);
	put_link(root, "sys/devices/ndbus0/region1/pfn1.0/block/pmem1/device", "../../../pfn1.0");
	put_link(root, "sys/block/pmem1", "../devices/ndbus0/region1/pfn1.0/block/pmem1");
	put("sys/devices/ndbus0/region0/knob", "3\n", 0644);
	put_link(root, "sys/bus/nd/devices/region0", "../../../devices/ndbus0/region0");

	/* escapes: every one of these must stay untouched */
	put("outside/secret", "secret\n", 0644);
	put_link(root, "sys/module/evil/parameters/x", "../../../../outside/secret");
	put("outside/fakemod/parameters/x", "outside\n", 0644);
	put_link(root, "sys/module/evil2", "../../outside/fakemod");
	put("outside/blk/dax/write_cache", "outside\n", 0644);
	put_link(root, "sys/block/pmem9", "../../outside/blk");
	put("outside/region/knob", "outside\n", 0644);
	put_link(root, "sys/bus/nd/devices/region9", "../../../../outside/region");
	put_link(root, "sys/module/alpha/parameters/alias", "thresh");

	put("etc/pmem-tuned/knobs.d/50-builtin.conf", builtin_conf, 0644);
	put("etc/pmem-tuned/knobs.d/60-test.conf",
	    "# test knobs\n"
	    "kernel.threshold_bytes\t/sys/module/alpha/parameters/thresh\n"
	    "=Y /sys/module/alpha/parameters/flag %s\n"
	    "libpmem.PMEM_MOVNT_THRESHOLD /sys/module/alpha/parameters/movnt %#llx\n"
	    "=7 /sys/module/beta/parameters/locked\n"
	    "=1 /sys/module/evil/parameters/x\n"
	    "=1 /sys/module/evil2/parameters/x\n"
	    "=0 /sys/block/pmem9/dax/write_cache %s\n"
	    "=1 /sys/bus/nd/devices/region*/knob\n"
	    "=1 /sys/module/alpha/parameters/alias\n"
	    "=9 /sys/module/alpha/parameters/../../../../outside/secret\n"
	    "=9 /sys/kernel/mm/transparent_hugepage/enabled\n", 0644);
	mkdir_p(P("run"), 0755);
	fake_ldso("0x200");
}

static void daemon_setup(struct daemon *d, enum run_mode mode)
{
	memset(d, 0, sizeof(*d));
	d->opt.mode = mode;
	d->opt.force = true;	/* a made-up platform */
	d->opt.no_bus = true;
	snprintf(d->opt.sysfs_root, PATH_MAX, "%s", root);
	snprintf(d->opt.etc_root, PATH_MAX, "%s", root);
	snprintf(d->opt.policy, PATH_MAX, "%s", P("etc/pmem-policy.json"));
	snprintf(d->opt.state_dir, PATH_MAX, "%s", P("run/pmem-tuned"));
	snprintf(d->opt.ldso, PATH_MAX, "%s", P("ldso/ld.so"));
	daemon_init(d);
}

static void write_policy(const struct mkpolicy_opts *o)
{
	int r = mkpolicy_write(o, P("etc/pmem-policy.json"));

	if (r < 0) {
		fprintf(stderr, "mkpolicy: %s\n", strerror(-r));
		exit(2);
	}
}

/* A fresh tree with the policy of o, and a daemon d over it. */
static void fresh_daemon(struct daemon *d, const struct mkpolicy_opts *o, enum run_mode mode)
{
	make_tree();
	write_policy(o);
	daemon_setup(d, mode);
}

/* ... that applies it once (why: the reload's reason) and stops without restoring. */
static void applied_once(const struct mkpolicy_opts *o, const char *why)
{
	struct daemon d;

	fresh_daemon(&d, o, MODE_ONESHOT);
	daemon_reload(&d, why);
	daemon_fini(&d);
}

static const struct mkpolicy_opts base_policy = {
	.movnt = "512", .nt = "0x100000", .movsb = "0x2000", .kernel = 4096,
};

static void test_apply_restore(void)
{
	struct daemon d, d2;
	char *t;

	fresh_daemon(&d, &base_policy, MODE_ONESHOT);
	CHECK_INT(d.knobs.n, 0);	/* loaded by reload, not init */
	CHECK_INT(daemon_reload(&d, "test"), RELOAD_APPLIED);
	/* 11 test lines, 2 refused at parse, + 2 built-in */
	CHECK_INT(d.knobs.n, 11);

	/* knobs that work are set even though one refuses the write */
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "4096");
	CHECK_STR(get("sys/module/alpha/parameters/flag"), "Y");
	CHECK_STR(get("sys/module/alpha/parameters/movnt"), "0x200");
	CHECK_STR(get("sys/devices/ndbus0/region0/knob"), "1");
	CHECK_STR(get("sys/module/beta/parameters/locked"), "5");
	CHECK_INT(d.stats.failed, 1);
	/* persistence domain: cpu_cache region gets 0, ADR region keeps 1 */
	CHECK_STR(get("sys/block/pmem0/dax/write_cache"), "0");
	CHECK_STR(get("sys/block/pmem1/dax/write_cache"), "1");
	/* escapes refused, targets untouched */
	CHECK_STR(get("outside/secret"), "secret");
	CHECK_STR(get("outside/fakemod/parameters/x"), "outside");
	CHECK_STR(get("outside/blk/dax/write_cache"), "outside");
	CHECK_STR(get("outside/region/knob"), "outside");
	/* evil, evil2, pmem9 (twice: the built-in pmem* glob reaches it too), region9, alias */
	CHECK_INT(d.stats.refused, 6);

	/* originals saved before the writes */
	t = slurp("run/pmem-tuned/state.json");
	CHECK(strstr(t, "\"/sys/module/alpha/parameters/thresh\"") != NULL);
	CHECK(strstr(t, "\"original\": \"768\"") != NULL ||
	      strstr(t, "\"original\":\"768\"") != NULL);
	CHECK(strstr(t, "/sys/module/beta/parameters/locked") == NULL);

	/* libpmem: the EnvironmentFile and the environment.d drop-in */
	t = slurp("etc/pmem-tuned/libpmem.env");
	CHECK(startswith(t, "# Written by pmem-tuned"));
	CHECK(strstr(t, "\nPMEM_MOVNT_THRESHOLD=512\n") != NULL);
	CHECK_STR(slurp("etc/environment.d/60-pmem-tuned.conf"),
		  slurp("etc/pmem-tuned/libpmem.env"));

	/* a second pass changes nothing */
	policy_free(d.policy);
	d.policy = NULL;
	CHECK_INT(daemon_reload(&d, "again"), RELOAD_APPLIED);
	CHECK_INT(d.stats.set, 0);
	daemon_fini(&d);

	/* "crash": a new process finds the originals and restores them */
	daemon_setup(&d2, MODE_RESTORE);
	CHECK(d2.state.n >= 6);
	CHECK_INT(daemon_restore(&d2, false), 0);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	CHECK_STR(get("sys/module/alpha/parameters/flag"), "N");
	CHECK_STR(get("sys/module/alpha/parameters/movnt"), "0x100");
	CHECK_STR(get("sys/block/pmem0/dax/write_cache"), "1");
	CHECK_STR(get("sys/devices/ndbus0/region0/knob"), "3");
	CHECK(!exists("etc/pmem-tuned/libpmem.env"));
	CHECK(!exists("etc/pmem-tuned/glibc.env"));
	CHECK(!exists("etc/environment.d/60-pmem-tuned.conf"));
	CHECK(!exists("run/pmem-tuned/state.json"));
	CHECK_INT(d2.state.n, 0);
	daemon_fini(&d2);
}

static void test_first_original_wins(void)
{
	struct mkpolicy_opts o = base_policy;
	struct daemon d;

	applied_once(&o, "first");
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "4096");

	/* restarted without restoring, with a new policy */
	o.kernel = 8192;
	write_policy(&o);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "second");
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "8192");
	daemon_restore(&d, false);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	daemon_fini(&d);
}

static void test_stale_restored(void)
{
	struct mkpolicy_opts o = base_policy;
	struct daemon d;

	fresh_daemon(&d, &o, MODE_ONESHOT);
	daemon_reload(&d, "with kernel export");
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "4096");
	CHECK(exists("etc/pmem-tuned/libpmem.env"));

	/* the new policy has no kernel and no libpmem export */
	o.no_kernel = true;
	o.no_libpmem = true;
	write_policy(&o);
	CHECK_INT(daemon_reload(&d, "without"), RELOAD_APPLIED);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	CHECK_STR(get("sys/module/alpha/parameters/movnt"), "0x100");
	CHECK(!exists("etc/pmem-tuned/libpmem.env"));
	CHECK_STR(get("sys/module/alpha/parameters/flag"), "Y");
	daemon_restore(&d, false);
	daemon_fini(&d);
}

static void test_bad_policy_keeps_state(void)
{
	struct daemon d;

	fresh_daemon(&d, &base_policy, MODE_ONESHOT);
	CHECK_INT(daemon_reload(&d, "good"), RELOAD_APPLIED);
	put("etc/pmem-policy.json", "{\"schema\": \"pmem-policy/1\", \"targets\": 3}", 0644);
	CHECK_INT(daemon_reload(&d, "bad"), RELOAD_KEPT);
	CHECK(d.policy != NULL);
	CHECK(strstr(d.status, "rejected") != NULL);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "4096");
	CHECK_STR(get("sys/block/pmem0/dax/write_cache"), "0");
	unlink(P("etc/pmem-policy.json"));
	CHECK_INT(daemon_reload(&d, "gone"), RELOAD_KEPT);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "4096");
	daemon_restore(&d, false);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	daemon_fini(&d);
}

static void test_foreign_platform(void)
{
	struct daemon d;

	fresh_daemon(&d, &base_policy, MODE_ONESHOT);	/* all-zero fingerprint */
	d.opt.force = false;
	CHECK_INT(daemon_reload(&d, "foreign"), RELOAD_KEPT);
	CHECK(strstr(d.status, "not applied") != NULL);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	CHECK(!exists("run/pmem-tuned/state.json"));
	daemon_fini(&d);
}

static void test_dry_run_and_verify(void)
{
	struct daemon d;

	fresh_daemon(&d, &base_policy, MODE_DRY_RUN);
	CHECK_INT(daemon_reload(&d, "dry"), RELOAD_APPLIED);
	CHECK(d.stats.drift >= 6);
	CHECK_INT(d.stats.set, 0);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	CHECK_STR(get("sys/block/pmem0/dax/write_cache"), "1");
	CHECK(!exists("etc/pmem-tuned/libpmem.env"));
	CHECK(!exists("etc/pmem-tuned/glibc.env"));
	CHECK(!exists("etc/environment.d"));
	CHECK(!exists("run/pmem-tuned/state.json"));
	CHECK(!exists("run/pmem-tuned"));
	daemon_fini(&d);

	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "apply");
	daemon_fini(&d);
	daemon_setup(&d, MODE_VERIFY);
	CHECK_INT(daemon_reload(&d, "verify"), RELOAD_APPLIED);
	/* only the knob that refused the write differs */
	CHECK_INT(d.stats.drift, 1);
	put("sys/module/alpha/parameters/thresh", "100\n", 0644);
	CHECK_INT(daemon_reload(&d, "verify"), RELOAD_APPLIED);
	CHECK_INT(d.stats.drift, 2);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "100");
	daemon_fini(&d);
}

static void test_rollback_never(void)
{
	struct daemon d;

	make_tree();
	put("etc/pmem-tuned/pmem-tuned.conf", "# test\nrollback = never\n", 0644);
	write_policy(&base_policy);
	daemon_setup(&d, MODE_ONESHOT);
	CHECK_INT(d.opt.rollback, ROLLBACK_NEVER);
	daemon_reload(&d, "apply");
	CHECK_INT(daemon_restore(&d, false), 0);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "4096");
	CHECK(exists("etc/pmem-tuned/libpmem.env"));
	CHECK(exists("run/pmem-tuned/state.json"));
	/* pmem-tuned --restore --force */
	CHECK_INT(daemon_restore(&d, true), 0);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	CHECK(!exists("etc/pmem-tuned/libpmem.env"));
	daemon_fini(&d);

	put("etc/pmem-tuned/pmem-tuned.conf", "rollback=sometimes\n", 0644);
	daemon_setup(&d, MODE_ONESHOT);
	CHECK_INT(d.opt.rollback, ROLLBACK_AUTO);
	daemon_fini(&d);
}

static unsigned file_mode(const char *rel)
{
	struct stat st;

	return lstat(P("%s", rel), &st) == 0 ? (unsigned)(st.st_mode & 07777) : 07777;
}

/*
 * Restore puts back what we changed, where what we set is still there;
 * what someone changed since is theirs and stays, whatever it is.
 */
static void test_restore_what_we_changed(void)
{
	struct mkpolicy_opts o = base_policy;
	struct daemon d;

	/* a knob the administrator set after our apply keeps their value */
	applied_once(&o, "apply");
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "4096");
	put("sys/module/alpha/parameters/thresh", "2048\n", 0644);
	/* and the environment file we created, edited by the administrator, stays */
	put("etc/pmem-tuned/libpmem.env", "PMEM_MOVNT_THRESHOLD=1024\n", 0644);
	daemon_setup(&d, MODE_RESTORE);
	CHECK_INT(daemon_restore(&d, false), 0);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "2048");
	CHECK_STR(slurp("etc/pmem-tuned/libpmem.env"), "PMEM_MOVNT_THRESHOLD=1024\n");
	/* what nobody touched is restored */
	CHECK_STR(get("sys/module/alpha/parameters/flag"), "N");
	CHECK_STR(get("sys/module/alpha/parameters/movnt"), "0x100");
	CHECK(!exists("etc/environment.d/60-pmem-tuned.conf"));
	/* nothing is kept for a later --restore: those values are not ours */
	CHECK(!exists("run/pmem-tuned/state.json"));
	daemon_fini(&d);

	/* the same rule when a new policy no longer sets a knob */
	fresh_daemon(&d, &o, MODE_ONESHOT);
	daemon_reload(&d, "with the kernel export");
	put("sys/module/alpha/parameters/thresh", "2048\n", 0644);
	o.no_kernel = true;
	write_policy(&o);
	daemon_reload(&d, "without it");
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "2048");
	daemon_restore(&d, false);
	daemon_fini(&d);
	o.no_kernel = false;

	/* a value that is the original again (a restore cut short) is simply done */
	applied_once(&o, "apply");
	put("sys/module/alpha/parameters/thresh", "768\n", 0644);
	daemon_setup(&d, MODE_RESTORE);
	CHECK_INT(daemon_restore(&d, false), 0);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	CHECK_STR(get("sys/module/alpha/parameters/flag"), "N");
	daemon_fini(&d);

	/* a write that failed leaves the entry naming the value still in place */
	fresh_daemon(&d, &o, MODE_ONESHOT);
	daemon_reload(&d, "4096");
	chmod(P("sys/module/alpha/parameters/thresh"), 0444);
	o.kernel = 8192;
	write_policy(&o);
	policy_free(d.policy);
	d.policy = NULL;
	daemon_reload(&d, "8192, refused");
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "4096");
	chmod(P("sys/module/alpha/parameters/thresh"), 0644);
	CHECK_INT(daemon_restore(&d, false), 0);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	daemon_fini(&d);
	o.kernel = base_policy.kernel;

	/* an administrator's file comes back with its own mode */
	make_tree();
	write_policy(&o);
	put("etc/pmem-tuned/libpmem.env", "PMEM_MOVNT_THRESHOLD=1024\nTOKEN=s3cret\n", 0600);
	put("etc/environment.d/60-pmem-tuned.conf", "PMEM_MOVNT_THRESHOLD=1024\n", 0640);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "over the administrator's files");
	CHECK(strstr(slurp("etc/pmem-tuned/libpmem.env"), "s3cret") == NULL);
	daemon_fini(&d);
	daemon_setup(&d, MODE_RESTORE);
	CHECK_INT(daemon_restore(&d, false), 0);
	CHECK_STR(slurp("etc/pmem-tuned/libpmem.env"), "PMEM_MOVNT_THRESHOLD=1024\nTOKEN=s3cret\n");
	CHECK_INT(file_mode("etc/pmem-tuned/libpmem.env"), 0600);
	CHECK_STR(slurp("etc/environment.d/60-pmem-tuned.conf"), "PMEM_MOVNT_THRESHOLD=1024\n");
	CHECK_INT(file_mode("etc/environment.d/60-pmem-tuned.conf"), 0640);
	daemon_fini(&d);
}

/*
 * As root (--owner; the other tests run as nobody): an administrator's
 * file comes back with its owner too, not as a file of root's.
 */
static void test_restore_owner(void)
{
	const struct group *g = getgrnam("adm");
	const gid_t adm = g ? g->gr_gid : 4;
	const uid_t nobody = 65534;
	struct daemon d;
	struct stat st;

	make_tree();
	write_policy(&base_policy);
	put("etc/pmem-tuned/libpmem.env", "PMEM_MOVNT_THRESHOLD=1024\nTOKEN=s3cret\n", 0600);
	CHECK_INT(chown(P("etc/pmem-tuned/libpmem.env"), 0, adm), 0);
	put("etc/environment.d/60-pmem-tuned.conf", "PMEM_MOVNT_THRESHOLD=1024\n", 0640);
	CHECK_INT(chown(P("etc/environment.d/60-pmem-tuned.conf"), nobody, nobody), 0);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "over the administrator's files");
	CHECK(strstr(slurp("etc/pmem-tuned/libpmem.env"), "PMEM_MOVNT_THRESHOLD=512") != NULL);
	daemon_fini(&d);

	daemon_setup(&d, MODE_RESTORE);
	CHECK_INT(daemon_restore(&d, false), 0);
	daemon_fini(&d);
	CHECK_STR(slurp("etc/pmem-tuned/libpmem.env"), "PMEM_MOVNT_THRESHOLD=1024\nTOKEN=s3cret\n");
	CHECK(lstat(P("etc/pmem-tuned/libpmem.env"), &st) == 0);
	CHECK_INT(st.st_mode & 07777, 0600);
	CHECK_INT(st.st_uid, 0);
	CHECK_INT(st.st_gid, adm);
	CHECK_STR(slurp("etc/environment.d/60-pmem-tuned.conf"), "PMEM_MOVNT_THRESHOLD=1024\n");
	CHECK(lstat(P("etc/environment.d/60-pmem-tuned.conf"), &st) == 0);
	CHECK_INT(st.st_mode & 07777, 0640);
	CHECK_INT(st.st_uid, nobody);
	CHECK_INT(st.st_gid, nobody);
}

static const char *glibc_var(void)
{
	static char v[1024];
	char *t = slurp("etc/pmem-tuned/glibc.env"), *l;

	l = strstr(t, "\nGLIBC_TUNABLES=");
	if (!l)
		return "<none>";
	l += strlen("\nGLIBC_TUNABLES=");
	snprintf(v, sizeof(v), "%.*s", (int)strcspn(l, "\n"), l);
	return v;
}

/* pmem-tuned.conf's glibc_tunables= (the tree's own conf, root's alone) */
static void glibc_scope(const char *scope)
{
	char conf[128];

	snprintf(conf, sizeof(conf), "glibc_tunables = %s\n", scope);
	put("etc/pmem-tuned/pmem-tuned.conf", conf, 0644);
}

static void test_glibc(void)
{
	struct mkpolicy_opts o = base_policy;
	struct daemon d;

	/* by default nothing: every service's memcpy is not ours to change */
	make_tree();
	unsetenv("GLIBC_TUNABLES");
	write_policy(&o);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "glibc default");
	CHECK(!exists("etc/pmem-tuned/glibc.env"));
	CHECK(!exists("etc/environment.d/60-pmem-tuned-glibc.conf"));
	CHECK(state_find(&d.state, "glibc", "file:" PT_GLIBC_ENV) == NULL);
	daemon_fini(&d);

	/* file: only the environment file units include, no user sessions */
	glibc_scope("file");
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "glibc file");
	CHECK(exists("etc/pmem-tuned/glibc.env"));
	CHECK(!exists("etc/environment.d/60-pmem-tuned-glibc.conf"));
	/* opting out again takes back what was written */
	glibc_scope("off");
	policy_free(d.policy);
	d.policy = NULL;
	daemon_reload(&d, "glibc off again");
	CHECK(!exists("etc/pmem-tuned/glibc.env"));
	daemon_fini(&d);

	/* plain: both tunables, hex */
	glibc_scope("manager");
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "glibc");
	CHECK_STR(glibc_var(), "glibc.cpu.x86_non_temporal_threshold=0x100000:"
		  "glibc.cpu.x86_rep_movsb_threshold=0x2000");
	daemon_restore(&d, false);
	CHECK(!exists("etc/pmem-tuned/glibc.env"));
	daemon_fini(&d);

	/* the administrator's tunables stay, theirs win on the same name */
	setenv("GLIBC_TUNABLES", "glibc.malloc.check=3:"
	       "glibc.cpu.x86_non_temporal_threshold=0x200000", 1);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "merge");
	CHECK_STR(glibc_var(), "glibc.malloc.check=3:glibc.cpu.x86_non_temporal_threshold="
		  "0x200000:glibc.cpu.x86_rep_movsb_threshold=0x2000");
	daemon_restore(&d, false);
	daemon_fini(&d);
	unsetenv("GLIBC_TUNABLES");

	/* user sessions: names set by an earlier environment.d file stay */
	put("etc/environment.d/50-admin.conf",
	    "GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=0x3000\n", 0644);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "session");
	{
		char *t = slurp("etc/environment.d/60-pmem-tuned-glibc.conf");

		CHECK(strstr(t, "\nGLIBC_TUNABLES=${GLIBC_TUNABLES}${GLIBC_TUNABLES:+:}"
			     "glibc.cpu.x86_non_temporal_threshold=0x100000\n") != NULL);
		CHECK(strstr(t, "rep_movsb") == NULL);
	}
	CHECK_STR(get("etc/environment.d/50-admin.conf"),
		  "GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=0x3000");
	daemon_restore(&d, false);
	CHECK(!exists("etc/environment.d/60-pmem-tuned-glibc.conf"));
	CHECK(exists("etc/environment.d/50-admin.conf"));
	daemon_fini(&d);
	unlink(P("etc/environment.d/50-admin.conf"));

	/* glibc ignores x86_non_temporal_threshold <= 0x4040: never exported */
	o.nt = "0x4040";
	o.movsb = NULL;
	write_policy(&o);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "0x4040");
	CHECK(!exists("etc/pmem-tuned/glibc.env"));
	CHECK(d.stats.refused >= 1);
	daemon_fini(&d);
	o.nt = "16449";		/* 0x4041 */
	write_policy(&o);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "0x4041");
	CHECK_STR(glibc_var(), "glibc.cpu.x86_non_temporal_threshold=0x4041");
	daemon_restore(&d, false);
	daemon_fini(&d);

	/* rep_movsb only from a calibrated dram target */
	o.nt = "0x100000";
	o.movsb = "0x2000";
	o.glibc_target = "region0";
	write_policy(&o);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "pmem target");
	CHECK_STR(glibc_var(), "glibc.cpu.x86_non_temporal_threshold=0x100000");
	daemon_restore(&d, false);
	daemon_fini(&d);
}

/*
 * Each value against the bounds the host's glibc lists: outside them, or
 * when they cannot be read, glibc's default is kept (nothing written).
 */
static void test_glibc_host_bounds(void)
{
	struct mkpolicy_opts o = base_policy;
	struct daemon d;
	unsigned others;

	make_tree();
	unsetenv("GLIBC_TUNABLES");
	glibc_scope("file");
	/* the refusals of the test knob map, which are not glibc's */
	write_policy(&o);
	daemon_setup(&d, MODE_DRY_RUN);
	daemon_reload(&d, "all in bounds");
	others = d.stats.refused;
	daemon_fini(&d);

	/* glibc 2.36 with AVX-512 ignores rep_movsb=0x200 (and 0x100) */
	o.movsb = "0x200";
	write_policy(&o);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "rep_movsb at the minimum");
	CHECK_STR(glibc_var(), "glibc.cpu.x86_non_temporal_threshold=0x100000");
	CHECK_INT(d.stats.refused - others, 1);
	daemon_restore(&d, false);
	daemon_fini(&d);
	/* decimal, as a policy may write it: the same value */
	o.movsb = "256";
	write_policy(&o);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "rep_movsb below the minimum");
	CHECK_STR(glibc_var(), "glibc.cpu.x86_non_temporal_threshold=0x100000");
	daemon_restore(&d, false);
	daemon_fini(&d);

	/* another host's glibc (AVX2: minimum 0x100) takes what this one refused */
	fake_ldso("0x100");
	o.movsb = "0x200";
	write_policy(&o);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "another glibc");
	CHECK_STR(glibc_var(), "glibc.cpu.x86_non_temporal_threshold=0x100000:"
		  "glibc.cpu.x86_rep_movsb_threshold=0x200");
	CHECK_INT(d.stats.refused - others, 0);
	daemon_fini(&d);

	/* dry-run and verify apply the same bounds: no drift for what is kept */
	fake_ldso("0x200");
	daemon_setup(&d, MODE_VERIFY);
	daemon_reload(&d, "verify, minimum raised");
	CHECK_INT(d.stats.refused - others, 1);
	CHECK_INT(d.stats.drift, 2);	/* the file holds rep_movsb; and a sysfs knob */
	daemon_fini(&d);
	daemon_setup(&d, MODE_RESTORE);
	daemon_restore(&d, false);
	daemon_fini(&d);

	/* above the maximum: x86_non_temporal_threshold is ignored there too */
	o.nt = "0x1000000000000000";
	o.movsb = "0x2000";
	write_policy(&o);
	daemon_setup(&d, MODE_DRY_RUN);
	daemon_reload(&d, "above the maximum");
	CHECK_INT(d.stats.refused - others, 1);
	CHECK(!exists("etc/pmem-tuned/glibc.env"));
	daemon_fini(&d);

	/* a glibc without the tunable, and one whose loader fails: nothing */
	o.nt = "0x100000";
	write_policy(&o);
	fake_ldso(NULL);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "no rep_movsb tunable");
	CHECK_STR(glibc_var(), "glibc.cpu.x86_non_temporal_threshold=0x100000");
	CHECK_INT(d.stats.refused - others, 1);
	daemon_restore(&d, false);
	daemon_fini(&d);
	fake_ldso("fail");
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "loader fails");
	CHECK(!exists("etc/pmem-tuned/glibc.env"));
	CHECK_INT(d.stats.refused - others, 2);
	daemon_fini(&d);
	unlink(P("etc/pmem-tuned/pmem-tuned.conf"));
}

static void test_libpmem(void)
{
	struct mkpolicy_opts o = base_policy;
	struct daemon d;
	char *t;

	make_tree();
	o.env[o.nenv++] = "PMEM_NO_CLWB=1";
	o.env[o.nenv++] = "LD_PRELOAD=1";
	o.env[o.nenv++] = "PMEM_AVX512F=yes";
	write_policy(&o);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "libpmem");
	t = slurp("etc/pmem-tuned/libpmem.env");
	CHECK(strstr(t, "\nPMEM_MOVNT_THRESHOLD=512\nPMEM_NO_CLWB=1\n") != NULL);
	CHECK(strstr(t, "LD_PRELOAD") == NULL);
	CHECK(strstr(t, "PMEM_AVX512F") == NULL);
	CHECK(d.stats.refused >= 2);
	/* an administrator's file in the way is kept and comes back on restore */
	daemon_restore(&d, false);
	put("etc/pmem-tuned/libpmem.env", "PMEM_MOVNT_THRESHOLD=1024\n", 0644);
	daemon_reload(&d, "over admin file");
	CHECK(strstr(slurp("etc/pmem-tuned/libpmem.env"), "=512") != NULL);
	daemon_restore(&d, false);
	CHECK_STR(slurp("etc/pmem-tuned/libpmem.env"), "PMEM_MOVNT_THRESHOLD=1024\n");
	/* our own leftover without state (reboot after a crash) is removed on restore */
	put("etc/pmem-tuned/libpmem.env", "# Written by pmem-tuned from x\nPMEM_X=1\n", 0644);
	daemon_reload(&d, "over leftover");
	daemon_restore(&d, false);
	CHECK(!exists("etc/pmem-tuned/libpmem.env"));
	daemon_fini(&d);
}

static void test_module_only(void)
{
	struct daemon d;

	fresh_daemon(&d, &base_policy, MODE_ONESHOT);
	/* nothing applied yet: a module event does nothing */
	CHECK_INT(daemon_apply_module(&d, "alpha"), 0);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	daemon_reload(&d, "apply");
	put("sys/module/gamma/parameters/thresh", "1\n", 0644);
	put("etc/pmem-tuned/knobs.d/70-gamma.conf",
	    "kernel.threshold_bytes /sys/module/gamma/parameters/thresh\n", 0644);
	daemon_load_knobs(&d);
	put("sys/module/alpha/parameters/thresh", "999\n", 0644);
	daemon_apply_module(&d, "gamma");
	CHECK_STR(get("sys/module/gamma/parameters/thresh"), "4096");
	/* only that module's knobs */
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "999");
	daemon_restore(&d, false);
	CHECK_STR(get("sys/module/gamma/parameters/thresh"), "1");
	daemon_fini(&d);
}

/* A damaged or planted state file never steers a write or unlink. */
static void test_planted_state(void)
{
	struct daemon d;

	make_tree();
	put("etc/victim", "keep me\n", 0644);
	put("run/pmem-tuned/state.json",
	    "{\"format\":\"pmem-tuned-state/1\",\"entries\":["
	    "{\"sink\":\"libpmem\",\"key\":\"file:/etc/victim\",\"existed\":false},"
	    "{\"sink\":\"glibc\",\"key\":\"file:/etc/victim\",\"existed\":true,"
	    "\"original\":\"owned\"},"
	    "{\"sink\":\"sysfs\",\"key\":\"/sys/module/evil/parameters/x\",\"existed\":true,"
	    "\"original\":\"owned\"},"
	    "{\"sink\":\"sysfs\",\"key\":\"/sys/kernel/mm/ksm/run\",\"existed\":true,"
	    "\"original\":\"1\"},"
	    "{\"sink\":\"sysfs\",\"key\":\"/sys/module/alpha/parameters/thresh\","
	    "\"existed\":true,\"original\":\"100\"}]}", 0600);
	daemon_setup(&d, MODE_RESTORE);
	/* checked as they load: the two files and ksm are not ours, dropped */
	CHECK_INT(d.state.n, 2);
	CHECK_INT(d.state.dropped, 3);
	/* the module path escapes on restore; --restore says something was not restored */
	CHECK_INT(daemon_restore(&d, false), -EIO);
	CHECK_STR(slurp("etc/victim"), "keep me\n");
	CHECK_STR(get("outside/secret"), "secret");
	/* the one legitimate entry is restored */
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "100");
	CHECK_INT(d.state.n, 0);
	daemon_fini(&d);
}

/* Every line of an environment file we write: a comment or one of ours (absent: none). */
static bool env_lines_ok(const char *rel, const char *prefix)
{
	char *t, *line, *cur;

	if (!exists(rel))
		return true;
	cur = t = slurp(rel);
	while ((line = next_line(&cur)))
		if (line[0] != '#' && !startswith(line, prefix))
			return false;
	return true;
}

/* Text from the policy (its fingerprint) never becomes a line of its own. */
/*
 * A policy whose fingerprint carries a newline (an env-file line, an
 * sd_notify field) is refused by the loader, before the daemon's own
 * sanitiser would see it: nothing is written, the status stays one line.
 */
static void test_policy_text_injection(void)
{
	struct daemon d;
	char *text, *fp, *bad;
	FILE *f;

	make_tree();
	write_policy(&base_policy);
	text = strdup(slurp("etc/pmem-policy.json"));
	fp = strstr(text, "\"sha256:");
	CHECK(fp != NULL);
	if (!fp) {
		free(text);
		return;
	}
	/* "sha256:<64 hex>" -> "sha256:0\nLD_PRELOAD=/tmp/evil.so\nMAINPID=1" */
	if (asprintf(&bad, "%.*s\"sha256:0\\nLD_PRELOAD=/tmp/evil.so\\nMAINPID=1\"%s",
		     (int)(fp - text), text, fp + 1 + 7 + 64 + 1) < 0)
		exit(2);
	f = fopen(P("etc/pmem-policy.json"), "w");
	fputs(bad, f);
	fclose(f);
	daemon_setup(&d, MODE_ONESHOT);
	CHECK_INT(daemon_reload(&d, "injection"), RELOAD_KEPT);
	CHECK(!exists("etc/pmem-tuned/libpmem.env"));
	CHECK(!exists("etc/environment.d/60-pmem-tuned.conf"));
	CHECK(strstr(d.status, "fingerprint") != NULL);
	CHECK(strchr(d.status, '\n') == NULL);
	CHECK(strstr(d.status, "LD_PRELOAD") == NULL);
	daemon_fini(&d);
	free(bad);
	free(text);
}

/*
 * A region appearing changes the host's fingerprint: the policy no longer
 * matches, and a probe is requested only with reprobe_on_region_add = yes,
 * once; a region that was already there requests nothing.
 */
static void test_region_appears(void)
{
	struct mkpolicy_opts o = base_policy;
	struct daemon d;

	make_tree();
	put("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
	    "model\t\t: 143\nstepping\t: 8\nmicrocode\t: 0x2b000590\n"
	    "flags\t\t: sse2 avx avx2 clwb clflushopt\n\n", 0644);
	put("proc/sys/kernel/osrelease", "6.1.0-test\n", 0644);
	o.host_root = root;
	write_policy(&o);
	daemon_setup(&d, MODE_ONESHOT);
	d.opt.force = false;
	CHECK_INT(daemon_reload(&d, "this host"), RELOAD_APPLIED);
	CHECK_INT(daemon_region_added(&d, "region0"), 0);
	put("sys/devices/ndbus0/region1/mappings", "1\n", 0444);
	put("sys/devices/ndbus0/region1/mapping0", "nmem1,0,1073741824,0\n", 0444);
	put_link(root, "sys/bus/nd/devices/region1", "../../../devices/ndbus0/region1");
	/* reprobe_on_region_add = no (the default): said, nothing started */
	CHECK(!d.opt.reprobe_region);
	CHECK_INT(daemon_region_added(&d, "region1"), 0);
	d.opt.reprobe_region = true;
	CHECK_INT(daemon_region_added(&d, "region1"), 1);
	/* requested already: not again for the next uevent */
	CHECK_INT(daemon_region_added(&d, "region1"), 0);
	daemon_fini(&d);
}

/* The manager's GLIBC_TUNABLES is copied into glibc.env only if it stays one assignment. */
static void test_glibc_base_injection(void)
{
	struct daemon d;

	make_tree();
	glibc_scope("manager");
	write_policy(&base_policy);
	setenv("GLIBC_TUNABLES", "glibc.malloc.check=3\nLD_PRELOAD=/tmp/evil.so", 1);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "glibc base with a newline");
	CHECK(env_lines_ok("etc/pmem-tuned/glibc.env", "GLIBC_TUNABLES="));
	CHECK(strstr(slurp("etc/pmem-tuned/glibc.env"), "LD_PRELOAD") == NULL);
	CHECK(d.stats.refused >= 1);
	/* user sessions only ever get our own, normalized, tunables */
	CHECK(exists("etc/environment.d/60-pmem-tuned-glibc.conf"));
	setenv("GLIBC_TUNABLES", "glibc.malloc.check=\"3\"", 1);
	daemon_reload(&d, "glibc base with quotes");
	CHECK(!exists("etc/pmem-tuned/glibc.env"));
	daemon_restore(&d, false);
	daemon_fini(&d);
	unsetenv("GLIBC_TUNABLES");
}

static const char planted_state[] =
	"{\"format\":\"pmem-tuned-state/1\",\"entries\":["
	"{\"sink\":\"sysfs\",\"key\":\"/sys/module/alpha/parameters/thresh\","
	"\"existed\":true,\"original\":\"100\"}]}";

/* A state directory or file others can write never steers a write. */
static void test_untrusted_state(void)
{
	struct daemon d;

	make_tree();
	put("run/pmem-tuned/state.json", planted_state, 0600);
	chmod(P("run/pmem-tuned"), 0777);
	daemon_setup(&d, MODE_RESTORE);
	CHECK_INT(d.state.n, 0);
	CHECK(d.state.untrusted);
	daemon_restore(&d, true);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	daemon_fini(&d);

	/* nor is anything changed whose original could not be kept safe */
	write_policy(&base_policy);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "untrusted state dir");
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	CHECK_STR(get("sys/block/pmem0/dax/write_cache"), "1");
	CHECK(!exists("etc/pmem-tuned/libpmem.env"));
	CHECK_INT(d.stats.set, 0);
	CHECK(d.stats.failed >= 1);
	/* what could not be saved was not changed, so there is nothing to restore */
	CHECK_INT(d.state.n, 0);
	CHECK_STR(slurp("run/pmem-tuned/state.json"), planted_state);
	daemon_fini(&d);

	/* a trusted directory, a file others can write: set aside unread */
	chmod(P("run/pmem-tuned"), 0755);
	put("run/pmem-tuned/state.json", planted_state, 0666);
	daemon_setup(&d, MODE_RESTORE);
	CHECK_INT(d.state.n, 0);
	CHECK(!d.state.untrusted);
	daemon_restore(&d, false);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	CHECK(exists("run/pmem-tuned/state.json.untrusted"));
	daemon_fini(&d);

	/* a symlink in its place: not followed */
	put("outside/state.json", planted_state, 0600);
	put_link(root, "run/pmem-tuned/state.json", "../../outside/state.json");
	daemon_setup(&d, MODE_RESTORE);
	CHECK_INT(d.state.n, 0);
	daemon_restore(&d, false);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	CHECK_STR(slurp("outside/state.json"), planted_state);
	daemon_fini(&d);
}

/* Planted entries the sinks never write are dropped, not restored. */
static void test_planted_values(void)
{
	struct daemon d;

	make_tree();
	put("run/pmem-tuned/state.json",
	    "{\"format\":\"pmem-tuned-state/1\",\"entries\":["
	    "{\"sink\":\"libpmem\",\"key\":\"manager:PMEM_IS_PMEM_FORCE\",\"existed\":true,"
	    "\"original\":\"1\"},"
	    "{\"sink\":\"sysfs\",\"key\":\"/sys/module/alpha/parameters/thresh\","
	    "\"existed\":true,\"original\":\"100\\n200\"}]}", 0600);
	daemon_setup(&d, MODE_RESTORE);
	CHECK_INT(d.state.n, 0);
	CHECK_INT(d.state.dropped, 2);
	CHECK_INT(daemon_restore(&d, false), -EIO);
	CHECK_STR(slurp("sys/module/alpha/parameters/thresh"), "768\n");
	CHECK_INT(d.state.n, 0);
	daemon_fini(&d);
}

/* A knob map others can write picks no knob. */
static void test_untrusted_knobmap(void)
{
	struct daemon d;

	make_tree();
	write_policy(&base_policy);
	chmod(P("etc/pmem-tuned/knobs.d/60-test.conf"), 0666);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "untrusted knob file");
	CHECK_INT(d.knobs.n, 2);	/* the built-in entries only */
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	CHECK_STR(get("sys/block/pmem0/dax/write_cache"), "0");
	daemon_restore(&d, false);
	daemon_fini(&d);

	chmod(P("etc/pmem-tuned/knobs.d/60-test.conf"), 0644);
	chmod(P("etc/pmem-tuned/knobs.d"), 0777);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "untrusted knob dir");
	CHECK_INT(d.knobs.n, 0);
	CHECK_STR(get("sys/module/alpha/parameters/thresh"), "768");
	CHECK_STR(get("sys/block/pmem0/dax/write_cache"), "1");
	daemon_restore(&d, false);
	daemon_fini(&d);
	chmod(P("etc/pmem-tuned/knobs.d"), 0755);
}

/* Our environment file is not read or replaced through a symlink. */
static void test_envfile_symlink(void)
{
	struct daemon d;

	make_tree();
	write_policy(&base_policy);
	put("outside/private", "TOKEN=s3cret\n", 0600);
	put_link(root, "etc/pmem-tuned/libpmem.env", "../../outside/private");
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "env file is a symlink");
	CHECK(strstr(slurp("run/pmem-tuned/state.json"), "s3cret") == NULL);
	CHECK(d.stats.refused >= 1);
	/* the drop-in beside it is still written */
	CHECK(exists("etc/environment.d/60-pmem-tuned.conf"));
	daemon_restore(&d, false);
	{
		struct stat st;

		CHECK(lstat(P("etc/pmem-tuned/libpmem.env"), &st) == 0 && S_ISLNK(st.st_mode));
	}
	CHECK_STR(slurp("outside/private"), "TOKEN=s3cret\n");
	daemon_fini(&d);
}

/* An original longer than the read buffer is not saved cut short. */
static void test_long_original(void)
{
	char longval[301], content[310];
	struct daemon d;

	memset(longval, 'a', 300);
	longval[300] = '\0';
	snprintf(content, sizeof(content), "%s\n", longval);
	make_tree();
	write_policy(&base_policy);
	put("sys/module/alpha/parameters/long", content, 0644);
	put("etc/pmem-tuned/knobs.d/70-long.conf", "=short /sys/module/alpha/parameters/long\n",
	    0644);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "long original");
	daemon_restore(&d, false);
	CHECK_STR(slurp("sys/module/alpha/parameters/long"), content);
	daemon_fini(&d);
}

static void drop_privileges(void)
{
	const uid_t nobody = 65534;

	if (geteuid() != 0)
		return;
	/* root writes through 0444; nobody meets a knob that refuses */
	if (setgroups(0, NULL) < 0 || setresgid(nobody, nobody, nobody) < 0 ||
	    setresuid(nobody, nobody, nobody) < 0) {
		perror("dropping to nobody");
		exit(2);
	}
}

/*
 * A tree and a policy exporting PMEM_NO_FLUSH=1 for region0, cpu_cache;
 * the knob escapes' region9, which shows no domain, taken out.
 */
static void no_flush_policy(struct mkpolicy_opts *o)
{
	make_tree();
	unlink(P("sys/bus/nd/devices/region9"));
	o->env[o->nenv++] = "PMEM_NO_FLUSH=1";
	o->region_domain = "cpu_cache";
	write_policy(o);
}

/*
 * PMEM_NO_FLUSH=1 drops the flushes ADR needs: exported only for a pmem
 * region this host's sysfs shows as cpu_cache, never on the policy's word.
 */
static void test_no_flush_evidence(void)
{
	struct mkpolicy_opts o = base_policy;
	struct daemon d;

	no_flush_policy(&o);
	/* region0 is cpu_cache in the fake sysfs too: the evidence is there */
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "no flush, eADR");
	CHECK(strstr(slurp("etc/pmem-tuned/libpmem.env"), "\nPMEM_NO_FLUSH=1\n") != NULL);
	daemon_restore(&d, false);
	daemon_fini(&d);

	/* the policy claims cpu_cache, this host's region says ADR */
	put("sys/devices/ndbus0/region0/persistence_domain", "memory_controller\n", 0444);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "no flush, ADR");
	CHECK(strstr(slurp("etc/pmem-tuned/libpmem.env"), "PMEM_NO_FLUSH") == NULL);
	CHECK(strstr(slurp("etc/pmem-tuned/libpmem.env"), "PMEM_MOVNT_THRESHOLD=512") != NULL);
	CHECK(d.stats.refused >= 1);
	daemon_restore(&d, false);
	daemon_fini(&d);

	/* no persistence domain shown at all: no evidence either */
	unlink(P("sys/devices/ndbus0/region0/persistence_domain"));
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "no flush, no domain");
	CHECK(strstr(slurp("etc/pmem-tuned/libpmem.env"), "PMEM_NO_FLUSH") == NULL);
	daemon_restore(&d, false);
	daemon_fini(&d);

	/* a dram target that claims cpu_cache: the fingerprint covers no such thing */
	make_tree();
	o.libpmem_target = "dram";
	o.dram_domain = "cpu_cache";
	write_policy(&o);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "no flush, dram");
	CHECK(strstr(slurp("etc/pmem-tuned/libpmem.env"), "PMEM_NO_FLUSH") == NULL);
	CHECK(d.stats.refused >= 1);
	daemon_restore(&d, false);
	daemon_fini(&d);
}

static bool libpmem_has(const char *what)
{
	return strstr(slurp("etc/pmem-tuned/libpmem.env"), what) != NULL &&
	       strstr(slurp("etc/environment.d/60-pmem-tuned.conf"), what) != NULL;
}

static bool libpmem_lacks(const char *what)
{
	return strstr(slurp("etc/pmem-tuned/libpmem.env"), what) == NULL &&
	       strstr(slurp("etc/environment.d/60-pmem-tuned.conf"), what) == NULL;
}

/* cxl_pmem's nvdimm bus (provider "CXL") and one region on it, as a CXL host shows them */
#define CXL_BUS "sys/devices/platform/ACPI0017:00/root0/nvdimm-bridge0/ndbus1"

static void add_cxl_region(const char *name, const char *domain)
{
	char rel[PATH_MAX], target[PATH_MAX];

	put(CXL_BUS "/provider", "CXL\n", 0444);
	snprintf(rel, sizeof(rel), CXL_BUS "/%s/uevent", name);
	put(rel, "DEVTYPE=nd_pmem\nDRIVER=nd_region\n", 0444);
	snprintf(rel, sizeof(rel), CXL_BUS "/%s/persistence_domain", name);
	put(rel, domain, 0444);
	snprintf(rel, sizeof(rel), "sys/bus/nd/devices/%s", name);
	snprintf(target, sizeof(target), "../../../devices/platform/ACPI0017:00/root0/"
		 "nvdimm-bridge0/ndbus1/%s", name);
	put_link(root, rel, target);
}

/*
 * PMEM_NO_FLUSH=1 reaches every program started afterwards, whatever
 * region it maps: exported only while every pmem region of the host,
 * NVDIMM or CXL, is cpu_cache, and taken back when one that is not
 * appears.
 */
static void test_no_flush_every_region(void)
{
	struct mkpolicy_opts o = base_policy;
	struct daemon d;

	no_flush_policy(&o);

	/* the export's region0 is cpu_cache, region1 on the same bus is ADR */
	put_link(root, "sys/bus/nd/devices/region1", "../../../devices/ndbus0/region1");
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "region0 cpu_cache, region1 memory_controller");
	CHECK(libpmem_lacks("PMEM_NO_FLUSH"));
	CHECK(libpmem_has("\nPMEM_MOVNT_THRESHOLD=512\n"));
	CHECK(d.stats.refused >= 1);
	daemon_restore(&d, false);
	daemon_fini(&d);

	/* a region that is not persistent memory has no say */
	put("sys/devices/ndbus0/region1/uevent", "DEVTYPE=nd_volatile\n", 0444);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "region1 volatile");
	CHECK(libpmem_has("\nPMEM_NO_FLUSH=1\n"));
	daemon_restore(&d, false);
	daemon_fini(&d);
	unlink(P("sys/bus/nd/devices/region1"));

	/* a CXL pmem region (memory_controller) already there at the start */
	add_cxl_region("region2", "memory_controller\n");
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "CXL region at start");
	CHECK(libpmem_lacks("PMEM_NO_FLUSH"));
	CHECK(libpmem_has("\nPMEM_MOVNT_THRESHOLD=512\n"));
	daemon_restore(&d, false);
	daemon_fini(&d);
	/* a CXL region in the CPU cache's domain too: all agree */
	add_cxl_region("region2", "cpu_cache\n");
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "CXL region cpu_cache");
	CHECK(libpmem_has("\nPMEM_NO_FLUSH=1\n"));
	daemon_restore(&d, false);
	daemon_fini(&d);
	remove_tree(P("sys/devices/platform"));
	unlink(P("sys/bus/nd/devices/region2"));

	/* applied with region0 alone; then a CXL region (ADR) is committed */
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "region0 alone");
	CHECK(libpmem_has("\nPMEM_NO_FLUSH=1\n"));
	add_cxl_region("region2", "memory_controller\n");
	daemon_region_added(&d, "region2");
	CHECK(libpmem_lacks("PMEM_NO_FLUSH"));
	CHECK(libpmem_has("\nPMEM_MOVNT_THRESHOLD=512\n"));
	daemon_restore(&d, false);
	CHECK(!exists("etc/pmem-tuned/libpmem.env"));
	daemon_fini(&d);

	/* a pmem region whose domain cannot be read (region9) is no evidence either */
	fresh_daemon(&d, &o, MODE_ONESHOT);
	daemon_reload(&d, "region9 without a domain");
	CHECK(libpmem_lacks("PMEM_NO_FLUSH"));
	CHECK(d.stats.refused >= 1);
	daemon_restore(&d, false);
	daemon_fini(&d);
}

/*
 * The administrator's GLIBC_TUNABLES is carried verbatim, however many
 * entries and however long, with ours appended; never cut or rebuilt.
 */
static void test_glibc_admin_verbatim(void)
{
	char admin[8192], want[9000];
	struct daemon d;
	size_t o = 0;
	int i;

	make_tree();
	glibc_scope("manager");
	write_policy(&base_policy);
	/* 40 entries (more than any fixed table), one name and one value long */
	for (i = 0; i < 40; i++)
		o += snprintf(admin + o, sizeof(admin) - o, "%sglibc.test.t%02d=%d", i ? ":" : "",
			      i, i);
	o += snprintf(admin + o, sizeof(admin) - o, ":glibc.test.%0200d=1:glibc.rtld.x=%0300d",
		      0, 7);
	/* not name=value: glibc skips it, we keep it */
	snprintf(admin + o, sizeof(admin) - o, ":oddity");
	setenv("GLIBC_TUNABLES", admin, 1);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "admin verbatim");
	snprintf(want, sizeof(want), "%s:glibc.cpu.x86_non_temporal_threshold=0x100000:"
		 "glibc.cpu.x86_rep_movsb_threshold=0x2000", admin);
	{
		char *t = slurp("etc/pmem-tuned/glibc.env"), *l = strstr(t, "\nGLIBC_TUNABLES=");

		CHECK(l != NULL);
		if (l) {
			l += strlen("\nGLIBC_TUNABLES=");
			l[strcspn(l, "\n")] = '\0';
			CHECK_STR(l, want);
		}
	}
	daemon_restore(&d, false);
	daemon_fini(&d);

	/* too long to carry whole: refused with a log line, nothing written */
	{
		static char huge[70 * 1024];

		memset(huge, 'x', sizeof(huge) - 1);
		memcpy(huge, "glibc.a=", 8);
		setenv("GLIBC_TUNABLES", huge, 1);
	}
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "admin too long");
	CHECK(!exists("etc/pmem-tuned/glibc.env"));
	CHECK(d.stats.refused >= 1);
	daemon_restore(&d, false);
	daemon_fini(&d);
	unsetenv("GLIBC_TUNABLES");
}

/* A pass saves the originals once, before its first write, not once a knob. */
static void test_save_once_per_pass(void)
{
	struct mkpolicy_opts o = base_policy;
	char rel[64], map[4096];
	struct daemon d;
	size_t n = 0;
	int i;

	make_tree();
	for (i = 0; i < 40; i++) {
		snprintf(rel, sizeof(rel), "sys/module/many/parameters/p%02d", i);
		put(rel, "0\n", 0644);
	}
	n += snprintf(map + n, sizeof(map) - n, "=5 /sys/module/many/parameters/p*\n");
	put("etc/pmem-tuned/knobs.d/60-test.conf", map, 0644);
	unlink(P("etc/pmem-tuned/knobs.d/50-builtin.conf"));
	o.no_libpmem = o.no_glibc = true;
	write_policy(&o);
	daemon_setup(&d, MODE_ONESHOT);
	daemon_reload(&d, "many knobs");
	CHECK_INT(d.stats.set, 40);
	CHECK_INT(d.state.saves, 1);
	CHECK_INT(d.state.n, 40);
	CHECK_STR(get("sys/module/many/parameters/p39"), "5");
	daemon_fini(&d);
	daemon_setup(&d, MODE_RESTORE);
	CHECK_INT(daemon_restore(&d, false), 0);
	CHECK_STR(get("sys/module/many/parameters/p00"), "0");
	daemon_fini(&d);
}

/* FIFOs where the daemon reads: nothing hangs, each is refused or skipped. */
static void test_fifos(void)
{
	struct mkpolicy_opts o = base_policy;
	struct daemon d;

	make_tree();
	write_policy(&o);
	mkdir_p(P("etc/pmem-tuned"), 0755);
	mkdir_p(P("etc/environment.d"), 0755);
	CHECK_INT(mkfifo(P("etc/pmem-tuned/pmem-tuned.conf"), 0600), 0);
	CHECK_INT(mkfifo(P("etc/environment"), 0600), 0);
	CHECK_INT(mkfifo(P("etc/environment.d/50-admin.conf"), 0600), 0);
	CHECK_INT(mkfifo(P("etc/pmem-tuned/libpmem.env"), 0600), 0);
	mkdir_p(P("run/pmem-tuned"), 0700);
	CHECK_INT(mkfifo(P("run/pmem-tuned/state.json"), 0600), 0);
	daemon_setup(&d, MODE_ONESHOT);
	CHECK_INT(daemon_reload(&d, "fifos"), RELOAD_APPLIED);
	CHECK(d.stats.failed >= 1);	/* libpmem.env is not a file we replace */
	daemon_restore(&d, false);
	daemon_fini(&d);
	daemon_setup(&d, MODE_RESTORE);
	daemon_restore(&d, false);
	daemon_fini(&d);
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	bool owner = argc > 1 && !strcmp(argv[1], "--owner");

	if (owner) {
		argc--;
		argv++;
	}
	if (argc < 2 || read_file(argv[1], 0, 1 << 20, &builtin_conf, NULL) < 0) {
		fprintf(stderr, "usage: test_sinks [--owner] PATH/TO/50-builtin.conf\n");
		return 2;
	}
	if (owner && geteuid() != 0) {
		printf("skipped: giving a file back to another owner needs root\n");
		return 77;
	}
	if (!owner)
		drop_privileges();
	/* the daemon refuses knob maps and state that others can write */
	umask(022);
	if (!tmp || access(tmp, W_OK) < 0)
		tmp = "/tmp";
	snprintf(root, sizeof(root), "%s/pt-sinks.XXXXXX", tmp);
	if (!mkdtemp(root)) {
		perror(root);
		return 2;
	}
	log_setup(getenv("PT_TEST_VERBOSE") != NULL);

	if (owner) {
		test_restore_owner();
		goto out;
	}
	test_apply_restore();
	test_first_original_wins();
	test_stale_restored();
	test_bad_policy_keeps_state();
	test_foreign_platform();
	test_dry_run_and_verify();
	test_rollback_never();
	test_restore_what_we_changed();
	test_glibc();
	test_glibc_host_bounds();
	test_libpmem();
	test_module_only();
	test_planted_state();
	test_policy_text_injection();
	test_region_appears();
	test_glibc_base_injection();
	test_untrusted_state();
	test_planted_values();
	test_untrusted_knobmap();
	test_envfile_symlink();
	test_long_original();
	test_no_flush_evidence();
	test_no_flush_every_region();
	test_glibc_admin_verbatim();
	test_save_once_per_pass();
	test_fifos();
out:
	if (!check_failed)
		remove_tree(root);
	else
		fprintf(stderr, "tree kept in %s\n", root);
	return check_report("test_sinks");
}
