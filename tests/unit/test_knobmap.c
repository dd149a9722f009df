// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The knob map's parsers: the sysfs path allowlist, one line of a map,
 * knob formats, export names and their values, and loading a directory
 * of maps (order, bad lines, files others can write).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "common/macros.h"
#include "daemon/knobmap.h"
#include "policy/export_keys.h"
#include "policy/policy.h"
#include "tmptree.h"

static void test_path_check(void)
{
	static const struct { const char *path; int ok; } cases[] = {
		{ "/sys/module/dm_writecache/parameters/x", 1 },
		{ "/sys/module/*/parameters/*", 1 },
		{ "/sys/block/pmem0/dax/write_cache", 1 },
		{ "/sys/bus/nd/devices/region0/deep/attr", 1 },
		{ "/sys//module/m/parameters/x", 1 },
		{ "/sys/module/m/parameters/../../../etc/passwd", 0 },
		{ "/sys/module/m/./parameters/x", 0 },
		{ "/sys/module/m/parameters", 0 },
		{ "/sys/module/m/holders/x", 0 },
		{ "/sys/kernel/mm/transparent_hugepage/enabled", 0 },
		{ "/sys/block/pmem0/queue/write_cache", 0 },
		{ "/sys/bus/nd/devices/region0", 0 },
		{ "/proc/sys/vm/swappiness", 0 },
		{ "sys/module/m/parameters/x", 0 },
	};
	enum knob_root kind;
	char why[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int r = knob_path_check(cases[i].path, &kind, why, sizeof(why));

		CHECK_MSG((r == 0) == cases[i].ok, "knob_path_check(%s) = %d (%s)",
			  cases[i].path, r, r ? why : "ok");
	}
	CHECK_INT(knob_path_check("/sys/module/m/parameters/x", &kind, why, sizeof(why)), 0);
	CHECK_INT(kind, KNOB_MODULE);
	CHECK_INT(knob_path_check("/sys/block/pmem*/dax/write_cache", &kind, why, sizeof(why)),
		  0);
	CHECK_INT(kind, KNOB_BLOCK_DAX);
	CHECK_INT(knob_path_check("/sys/bus/nd/devices/region0/x", &kind, why, sizeof(why)), 0);
	CHECK_INT(kind, KNOB_ND_DEVICE);
	CHECK_INT(knob_path_check("/etc/passwd", &kind, why, sizeof(why)), -EPERM);
}

static void test_parse_line(void)
{
	static const struct { const char *line; int ok; } cases[] = {
		{ "kernel.threshold_bytes /sys/module/m/parameters/x", 1 },
		{ "kernel.flushcache_nt_max_bytes /sys/module/m/parameters/x %#llx", 1 },
		{ "libpmem.PMEM_MOVNT_THRESHOLD\t/sys/module/m/parameters/x\t%llu", 1 },
		{ "glibc.cpu.x86_non_temporal_threshold /sys/module/m/parameters/x %s", 1 },
		{ "=0 /sys/block/pmem*/dax/write_cache %s persistence_domain=cpu_cache", 1 },
		{ "=0 /sys/block/pmem*/dax/write_cache persistence_domain=cpu_cache", 1 },
		{ "kernel.threshold_bytes /sys/module/m/parameters/x %d", 0 },
		{ "kernel.threshold_bytes /sys/module/m/parameters/x %n", 0 },
		{ "kernel.threshold_bytes /sys/module/m/parameters/x %llu%llu", 0 },
		{ "kernel.bogus /sys/module/m/parameters/x", 0 },
		{ "libpmem.LD_PRELOAD /sys/module/m/parameters/x", 0 },
		{ "=abc /sys/module/m/parameters/x %llu", 0 },
		{ "= /sys/module/m/parameters/x", 0 },
		{ "=1 /sys/module/m/parameters/x persistence_domain=cpu_cache", 0 },
		{ "=1 /sys/module/m/parameters/x frobnicate", 0 },
		{ "=1 /sys/module/m/parameters/../x", 0 },
		{ "=1 /etc/passwd", 0 },
		{ "kernel.threshold_bytes", 0 },
	};
	char line[256], why[256] = "";
	struct knob k;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int r;

		snprintf(line, sizeof(line), "%s", cases[i].line);
		r = knob_parse_line(&k, line, why, sizeof(why));
		CHECK_MSG((r == 0) == cases[i].ok, "knob_parse_line('%s') = %d (%s)",
			  cases[i].line, r, why);
	}

	/* the fields land where the sinks look for them */
	snprintf(line, sizeof(line), "=0 /sys/block/pmem*/dax/write_cache "
		 "persistence_domain=cpu_cache");
	CHECK_INT(knob_parse_line(&k, line, why, sizeof(why)), 0);
	CHECK_STR(k.source, "=0");
	CHECK_STR(k.path, "/sys/block/pmem*/dax/write_cache");
	CHECK_STR(k.format, "%s");		/* a literal's default */
	CHECK_STR(k.cond_domain, "cpu_cache");
	CHECK_INT(k.root, KNOB_BLOCK_DAX);

	snprintf(line, sizeof(line), "kernel.threshold_bytes /sys/module/m/parameters/x");
	CHECK_INT(knob_parse_line(&k, line, why, sizeof(why)), 0);
	CHECK_STR(k.format, "%llu");		/* an export's default */
	CHECK_STR(k.cond_domain, "");
	CHECK_INT(k.root, KNOB_MODULE);
}

static void test_format(void)
{
	static const struct { const char *format, *value, *out; int r; } cases[] = {
		{ "%llu", "512", "512", 0 },
		{ "%llu", "0x200", "512", 0 },
		{ "%#llx", "512", "0x200", 0 },
		{ "%llx", "4096", "1000", 0 },
		{ "%s", "Y", "Y", 0 },
		{ "%llu%%", "5", "5%", 0 },
		{ "%llu", "abc", NULL, -EINVAL },
		{ "%llu", "-1", NULL, -EINVAL },
		{ "%s", "a\nb", NULL, -EINVAL },
		{ "%d", "1", NULL, -EINVAL },
		{ "%s %s", "1", NULL, -EINVAL },
		{ "none", "1", NULL, -EINVAL },
	};
	struct knob k;
	char out[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int r;

		memset(&k, 0, sizeof(k));
		snprintf(k.format, sizeof(k.format), "%s", cases[i].format);
		r = knob_format(&k, cases[i].value, out, sizeof(out));
		CHECK_MSG(r == cases[i].r, "knob_format(%s, %s) = %d", cases[i].format,
			  cases[i].value, r);
		if (r == 0 && cases[i].out)
			CHECK_STR(out, cases[i].out);
	}
	snprintf(k.format, sizeof(k.format), "%%llu");
	CHECK_INT(knob_format(&k, "123456", out, 4), -ENAMETOOLONG);
}

static void test_export_names(void)
{
	static const struct { const char *name; int ok; } cases[] = {
		{ "kernel.threshold_bytes", 1 },
		{ "kernel.flushcache_nt_max_bytes", 1 },
		{ "libpmem.PMEM_MOVNT_THRESHOLD", 1 },
		{ "libpmem.PMEM_NO_FLUSH", 1 },
		{ "glibc.cpu.x86_non_temporal_threshold", 1 },
		{ "kernel.bogus", 0 },
		{ "libpmem.LD_PRELOAD", 0 },
		{ "glibc.", 0 },
		{ "glibc.cpu.x86_shstk", 0 },
		{ "PMEM_MOVNT_THRESHOLD", 0 },
		{ "", 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK_MSG((export_key_find(cases[i].name) != NULL) == cases[i].ok,
			  "export_key_find(%s)", cases[i].name);
}

static void kv_add(struct policy_export *e, const char *key, const char *value)
{
	snprintf(e->kv[e->nkv].key, sizeof(e->kv[e->nkv].key), "%s", key);
	snprintf(e->kv[e->nkv].value, sizeof(e->kv[e->nkv].value), "%s", value);
	e->nkv++;
}

static int lookup(const struct policy *p, const char *name, char *out, size_t len)
{
	const struct export_key *k = export_key_find(name);

	return k ? export_key_value(p, k, out, len) : -EINVAL;
}

static void test_export_lookup(void)
{
	struct policy *p = policy_new();
	char out[64];

	CHECK(p != NULL);
	if (!p)
		return;
	/* nothing exported yet */
	CHECK_INT(lookup(p, "kernel.threshold_bytes", out, sizeof(out)), -ENOENT);
	CHECK_INT(lookup(p, "libpmem.PMEM_MOVNT_THRESHOLD", out, sizeof(out)), -ENOENT);
	CHECK_INT(lookup(p, "kernel.bogus", out, sizeof(out)), -EINVAL);

	p->exports.kernel.present = true;
	p->exports.kernel.threshold_bytes = 4096;
	CHECK_INT(lookup(p, "kernel.threshold_bytes", out, sizeof(out)), 0);
	CHECK_STR(out, "4096");
	CHECK_INT(lookup(p, "kernel.flushcache_nt_max_bytes", out, sizeof(out)), 0);
	CHECK_STR(out, "4096");
	p->exports.kernel.threshold_bytes = POLICY_SIZE_OPEN;
	/* never switch: a size no copy exceeds, as nt_max_bytes reads it */
	CHECK_INT(lookup(p, "kernel.threshold_bytes", out, sizeof(out)), 0);
	CHECK_STR(out, "18446744073709551615");

	p->exports.libpmem.present = true;
	kv_add(&p->exports.libpmem, "PMEM_MOVNT_THRESHOLD", "512");
	CHECK_INT(lookup(p, "libpmem.PMEM_MOVNT_THRESHOLD", out, sizeof(out)), 0);
	CHECK_STR(out, "512");
	CHECK_INT(lookup(p, "libpmem.PMEM_NO_FLUSH", out, sizeof(out)), -ENOENT);
	CHECK_INT(lookup(p, "libpmem.PMEM_MOVNT_THRESHOLD", out, 3), -ENAMETOOLONG);

	/* a glibc tunable by its own name or by the part after "glibc." */
	p->exports.glibc.present = true;
	kv_add(&p->exports.glibc, "glibc.cpu.x86_non_temporal_threshold", "0x100000");
	kv_add(&p->exports.glibc, "cpu.x86_rep_movsb_threshold", "0x2000");
	CHECK_INT(lookup(p, "glibc.cpu.x86_non_temporal_threshold", out, sizeof(out)),
		  0);
	CHECK_STR(out, "0x100000");
	CHECK_INT(lookup(p, "glibc.cpu.x86_rep_movsb_threshold", out, sizeof(out)), 0);
	CHECK_STR(out, "0x2000");
	CHECK_INT(lookup(p, "glibc.cpu.x86_shstk", out, sizeof(out)), -EINVAL);
	policy_free(p);
}

static void test_load(void)
{
	struct knobmap km;

	/* no directory: an empty map */
	CHECK_INT(knobmap_load(&km, tmptree_path("absent")), 0);
	CHECK_INT(km.n, 0);

	mkdir(tmptree_path("knobs.d"), 0755);
	tmptree_put("knobs.d/20-second.conf",
		    "# comment\n"
		    "\n"
		    "  =2 /sys/module/m/parameters/b  \n"
		    "=3 /etc/passwd\n", 0644);
	tmptree_put("knobs.d/10-first.conf", "kernel.threshold_bytes /sys/module/m/parameters/a\n",
		    0644);
	tmptree_put("knobs.d/30-notes.txt", "=9 /sys/module/m/parameters/txt\n", 0644);
	tmptree_put("knobs.d/.40-hidden.conf", "=9 /sys/module/m/parameters/hidden\n", 0644);
	tmptree_put("knobs.d/50-shared.conf", "=9 /sys/module/m/parameters/shared\n", 0666);

	/* file-name order; bad lines, other names and writable files skipped */
	CHECK_INT(knobmap_load(&km, tmptree_path("knobs.d")), 0);
	CHECK_INT(km.n, 2);
	if (km.n == 2) {
		char origin[PATH_MAX + 16];

		CHECK_STR(km.k[0].path, "/sys/module/m/parameters/a");
		CHECK_STR(km.k[1].path, "/sys/module/m/parameters/b");
		snprintf(origin, sizeof(origin), "%s:3", tmptree_path("knobs.d/20-second.conf"));
		CHECK_STR(km.k[1].origin, origin);
	}
	knobmap_free(&km);
	CHECK_INT(km.n, 0);

	/* a directory others can write: no knob at all */
	chmod(tmptree_path("knobs.d"), 0777);
	CHECK_INT(knobmap_load(&km, tmptree_path("knobs.d")), -EPERM);
	CHECK_INT(km.n, 0);
	knobmap_free(&km);
	chmod(tmptree_path("knobs.d"), 0755);
}

int main(void)
{
	tmptree_make("pt-knobmap");
	test_path_check();
	test_parse_line();
	test_format();
	test_export_names();
	test_export_lookup();
	test_load();
	tmptree_remove(check_failed);
	return check_report("test_knobmap");
}
