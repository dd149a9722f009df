// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fingerprint.c: what enters the hash and what must not, and
 * fingerprint_host() on a fake /proc + /sys tree and on this machine.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"
#include "mkpolicy.h"
#include "policy/fingerprint.h"
#include "policy/policy.h"
#include "policy/sha256.h"
#include "put_file.h"

static void add_dimm(struct policy_target *t, const char *name, const char *vendor,
		     const char *device, const char *fw)
{
	struct policy_dimm *d = realloc(t->dimms, (t->ndimms + 1) * sizeof(*d));

	if (!d) {
		perror("realloc");
		exit(EXIT_FAILURE);
	}
	t->dimms = d;
	d = &t->dimms[t->ndimms++];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->vendor, sizeof(d->vendor), "%s", vendor);
	snprintf(d->device, sizeof(d->device), "%s", device);
	snprintf(d->firmware, sizeof(d->firmware), "%s", fw);
}

static struct policy_target *add_target(struct policy *p, const char *name, const char *kind,
					const char *domain, unsigned ways, int numa)
{
	struct policy_target *t = mkpolicy_target(p, name, kind, domain);

	t->interleave_ways = ways;
	t->numa_node = numa;
	return t;
}

/*
 * A two-socket Cascade Lake host: 6-way region on socket 0, 4-way on
 * socket 1 (blocks differ, so their order matters to a naive hash), and
 * one DIMM on newer firmware (so DIMM order matters too).
 */
static struct policy *host_a(void)
{
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_target *t;
	char name[16];

	mkpolicy_cpu(p, "GenuineIntel", 6, 85, 7);
	snprintf(p->platform.cpu.microcode, sizeof(p->platform.cpu.microcode), "0x5003006");
	p->platform.cpu.llc_bytes = 28160ull << 10;
	policy_cpu_add_feature(&p->platform.cpu, "clwb");
	snprintf(p->platform.kernel, sizeof(p->platform.kernel), "5.15.0-91-generic");
	snprintf(p->generator.created, sizeof(p->generator.created), "2024-01-01T00:00:00Z");

	t = add_target(p, "dram", "dram", "none", 0, 0);
	t->area_bytes = 1ull << 30;
	t = add_target(p, "region0", "pmem", "memory_controller", 6, 0);
	snprintf(t->device, sizeof(t->device), "/mnt/host-a/pmem0/pool");
	t->area_bytes = 8ull << 30;
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "nmem%d", i);
		add_dimm(t, name, "0x8089", "0x097a", i == 2 ? "0x0102" : "0x0101");
	}
	t = add_target(p, "region1", "pmem", "memory_controller", 4, 1);
	snprintf(t->device, sizeof(t->device), "/dev/pmem1");
	for (int i = 6; i < 10; i++) {
		snprintf(name, sizeof(name), "nmem%d", i);
		add_dimm(t, name, "0x8089", "0x097a", "0x0101");
	}
	add_target(p, "scratch", "file", "unknown", 0, -1);
	return p;
}

/* The same hardware seen from another host: everything that is not identity differs. */
static struct policy *host_b(void)
{
	struct policy *p = mkpolicy_new(NULL, NULL);
	struct policy_target *t;
	char name[16];

	mkpolicy_cpu(p, "GenuineIntel", 6, 85, 7);
	snprintf(p->platform.cpu.microcode, sizeof(p->platform.cpu.microcode), "0x5003302");
	p->platform.cpu.llc_bytes = 39424ull << 10;
	snprintf(p->platform.kernel, sizeof(p->platform.kernel), "6.1.0-13-amd64");
	snprintf(p->generator.created, sizeof(p->generator.created), "2025-06-30T12:34:56Z");

	/* the 4-way region enumerated first and under another name */
	t = add_target(p, "region0", "pmem", "memory_controller", 4, 0);
	snprintf(t->device, sizeof(t->device), "/mnt/host-b.example.com/pmem0");
	t->area_bytes = 64ull << 30;
	for (int i = 3; i >= 0; i--) {
		snprintf(name, sizeof(name), "nmem%d", i + 20);
		add_dimm(t, name, "0x8089", "0x097a", "0x0101");
	}
	t = add_target(p, "region7", "devdax", "memory_controller", 6, 1);
	snprintf(t->device, sizeof(t->device), "/dev/dax1.0");
	t->area_bytes = 2ull << 30;
	/* the newer-firmware DIMM is enumerated first here */
	add_dimm(t, "nmem11", "0x8089", "0x097a", "0x0102");
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "nmem%d", 17 - i);
		add_dimm(t, name, "0x8089", "0x097a", "0x0101");
	}
	t = add_target(p, "dram-node1", "dram", "none", 0, 1);
	t->area_bytes = 4ull << 30;
	add_target(p, "tmpfs", "file", "none", 0, 0);
	add_target(p, "other-file", "file", "cpu_cache", 3, 0);
	return p;
}

static void fp(const struct policy *p, char out[FINGERPRINT_LEN])
{
	int rc = fingerprint_compute(p, out);

	CHECK_INT(rc, 0);
	if (rc)
		out[0] = '\0';
}

static bool is_fingerprint(const char *s)
{
	if (strncmp(s, "sha256:", 7) != 0 || strlen(s) != 7 + 64)
		return false;
	for (s += 7; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

static void test_identical_hosts(void)
{
	struct policy *a = host_a(), *b = host_b();
	char fa[FINGERPRINT_LEN], fb[FINGERPRINT_LEN];
	char *ca = fingerprint_canonical(a), *cb = fingerprint_canonical(b);

	CHECK(ca && cb);
	if (ca && cb)
		CHECK_STR(ca, cb);
	fp(a, fa);
	fp(b, fb);
	CHECK(is_fingerprint(fa));
	CHECK_STR(fa, fb);
	/* nothing host-specific leaks into the text */
	if (ca) {
		CHECK(!strstr(ca, "region"));
		CHECK(!strstr(ca, "nmem"));
		CHECK(!strstr(ca, "host-a"));
		CHECK(!strstr(ca, "0x5003006"));
		CHECK(!strstr(ca, "5.15.0"));
		CHECK(!strstr(ca, "none"));	/* the dram target's domain */
	}
	free(ca);
	free(cb);
	policy_free(a);
	policy_free(b);
}

/* Each mutation of the identity must give a new fingerprint. */
static void test_identity_changes(void)
{
	struct policy *base = host_a();
	char f0[FINGERPRINT_LEN], f[FINGERPRINT_LEN];
	struct policy *p;

	fp(base, f0);

#define MUTATION(what, ...)						\
	do {								\
		p = host_a();						\
		__VA_ARGS__;						\
		fp(p, f);						\
		CHECK_MSG(strcmp(f, f0) != 0, "%s: fingerprint unchanged", what); \
		policy_free(p);						\
	} while (0)

	MUTATION("firmware update of one DIMM",
		 snprintf(p->targets[1].dimms[4].firmware, POLICY_NAME_MAX, "0x0102"));
	MUTATION("firmware of the odd DIMM",
		 snprintf(p->targets[1].dimms[2].firmware, POLICY_NAME_MAX, "0x0101"));
	MUTATION("DIMM vendor", snprintf(p->targets[2].dimms[0].vendor, POLICY_NAME_MAX, "0x802c"));
	MUTATION("DIMM device", snprintf(p->targets[2].dimms[3].device, POLICY_NAME_MAX, "0x097b"));
	MUTATION("stepping", p->platform.cpu.stepping = 6);
	MUTATION("model", p->platform.cpu.model = 106);
	MUTATION("family", p->platform.cpu.family = 25);
	MUTATION("vendor", snprintf(p->platform.cpu.vendor, 16, "AuthenticAMD"));
	MUTATION("persistence domain",
		 snprintf(p->targets[1].persistence_domain, POLICY_NAME_MAX, "cpu_cache"));
	MUTATION("persistence domain unknown",
		 snprintf(p->targets[2].persistence_domain, POLICY_NAME_MAX, "unknown"));
	MUTATION("interleave", p->targets[1].interleave_ways = 3);
	MUTATION("a DIMM fewer", p->targets[2].ndimms--);
	MUTATION("one more pmem region", add_target(p, "region9", "pmem", "cpu_cache", 1, 0));
	MUTATION("a devdax target", add_target(p, "dax0.0", "devdax", "memory_controller", 2, 0));
	/* the same blocks in other targets: a 6+4 host is not a 6+6 host */
	MUTATION("interleave moved between regions", {
		p->targets[1].interleave_ways = 4;
		p->targets[2].interleave_ways = 6;
	});
#undef MUTATION

#define SAME(what, ...)							\
	do {								\
		p = host_a();						\
		__VA_ARGS__;						\
		fp(p, f);						\
		CHECK_MSG(strcmp(f, f0) == 0, "%s: fingerprint changed", what); \
		policy_free(p);						\
	} while (0)

	SAME("dram target changed", {
		p->targets[0].interleave_ways = 8;
		snprintf(p->targets[0].persistence_domain, POLICY_NAME_MAX, "cpu_cache");
		add_dimm(&p->targets[0], "dimm0", "0x80ce", "0x0001", "1.0");
	});
	SAME("another dram target", add_target(p, "dram1", "dram", "none", 2, 1));
	SAME("file target changed", p->targets[3].interleave_ways = 2);
	SAME("microcode", snprintf(p->platform.cpu.microcode, 32, "0x5003999"));
	SAME("kernel", snprintf(p->platform.kernel, 128, "6.8.0"));
	SAME("llc and features", {
		p->platform.cpu.llc_bytes = 1;
		policy_cpu_add_feature(&p->platform.cpu, "avx512f");
	});
	SAME("numa node", p->targets[1].numa_node = 3);
	SAME("sizes and paths", {
		p->targets[1].area_bytes = 12345;
		snprintf(p->targets[1].device, POLICY_PATH_MAX, "/mnt/elsewhere/x");
		snprintf(p->targets[1].mapping, POLICY_NAME_MAX, "devdax");
	});
	SAME("target and DIMM names", {
		snprintf(p->targets[1].name, POLICY_NAME_MAX, "pmem-socket0");
		snprintf(p->targets[1].dimms[0].name, POLICY_NAME_MAX, "nmem99");
	});
#undef SAME
	policy_free(base);

	/* "" and "unknown" are the same fact */
	{
		struct policy *u = host_a(), *e = host_a();
		char fu[FINGERPRINT_LEN], fe[FINGERPRINT_LEN];

		snprintf(u->targets[1].persistence_domain, POLICY_NAME_MAX, "unknown");
		snprintf(u->targets[1].dimms[0].firmware, POLICY_NAME_MAX, "unknown");
		e->targets[1].persistence_domain[0] = '\0';
		e->targets[1].dimms[0].firmware[0] = '\0';
		fp(u, fu);
		fp(e, fe);
		CHECK_STR(fu, fe);
		policy_free(u);
		policy_free(e);
	}
}

/* The text is part of the fleet contract: pin it, and its hash. */
static void test_canonical_text(void)
{
	static const char want[] =
		"schema=pmem-fingerprint/1\n"
		"cpu.vendor=GenuineIntel\n"
		"cpu.family=6\n"
		"cpu.model=85\n"
		"cpu.stepping=7\n"
		"target.persistence_domain=cpu_cache\n"
		"target.interleave_ways=1\n"
		"target.dimm.vendor=0x8089\n"
		"target.dimm.device=0x097a\n"
		"target.dimm.firmware=0x0101\n"
		"target.persistence_domain=memory_controller\n"
		"target.interleave_ways=2\n"
		"target.dimm.vendor=0x8089\n"
		"target.dimm.device=0x097a\n"
		"target.dimm.firmware=0x0101\n"
		"target.dimm.vendor=0x8089\n"
		"target.dimm.device=0x097a\n"
		"target.dimm.firmware=0x0102\n";
	/* printf '%s' "$want" | sha256sum */
	static const char want_fp[] =
		"sha256:a57bf8e2f7b90f940ea7b9bbd5aed9b9df7321b476e9b4744d98404a2cd4d478";
	struct policy *p = policy_new();
	struct policy_target *t;
	char f[FINGERPRINT_LEN], hex[FINGERPRINT_LEN];
	uint8_t d[SHA256_DIGEST_LEN];
	char *text;

	mkpolicy_cpu(p, "GenuineIntel", 6, 85, 7);
	t = add_target(p, "region0", "pmem", "memory_controller", 2, 0);
	add_dimm(t, "nmem1", "0x8089", "0x097a", "0x0102");
	add_dimm(t, "nmem0", "0x8089", "0x097a", "0x0101");
	t = add_target(p, "region1", "devdax", "cpu_cache", 1, 1);
	add_dimm(t, "nmem2", "0x8089", "0x097a", "0x0101");
	add_target(p, "dram", "dram", "none", 0, 0);

	text = fingerprint_canonical(p);
	CHECK(text != NULL);
	if (!text)
		goto out;
	CHECK_STR(text, want);
	fp(p, f);
	sha256(want, strlen(want), d);
	strcpy(hex, "sha256:");
	for (int i = 0; i < SHA256_DIGEST_LEN; i++)
		sprintf(hex + 7 + 2 * i, "%02x", d[i]);
	CHECK_STR(f, hex);
	CHECK_STR(f, want_fp);
	free(text);
out:
	policy_free(p);
}

/* A value can never forge a line: control bytes are escaped. */
static void test_escaping(void)
{
	struct policy *a = policy_new(), *b = policy_new();
	struct policy_target *t;
	char fa[FINGERPRINT_LEN], fb[FINGERPRINT_LEN];
	char *text;

	mkpolicy_cpu(a, "GenuineIntel", 6, 85, 7);
	mkpolicy_cpu(b, "GenuineIntel", 6, 85, 7);
	t = add_target(a, "r", "pmem", "memory_controller", 1, 0);
	add_dimm(t, "nmem0", "0x8089", "0x097a", "0x0101\ntarget.dimm.vendor=0x8089");
	t = add_target(b, "r", "pmem", "memory_controller", 1, 0);
	add_dimm(t, "nmem0", "0x8089", "0x097a", "0x0101");
	fp(a, fa);
	fp(b, fb);
	CHECK(strcmp(fa, fb) != 0);
	text = fingerprint_canonical(a);
	CHECK(text && strstr(text, "target.dimm.firmware=0x0101\\x0atarget.dimm.vendor=0x8089\n"));
	free(text);
	snprintf(a->targets[0].dimms[0].firmware, POLICY_NAME_MAX, "a\\b");
	text = fingerprint_canonical(a);
	CHECK(text && strstr(text, "target.dimm.firmware=a\\x5cb\n"));
	free(text);
	policy_free(a);
	policy_free(b);

	CHECK(fingerprint_canonical(NULL) == NULL);
	CHECK_INT(fingerprint_compute(NULL, fa), -EINVAL);
}

/* ---- fake root ---- */

static const char cpu_block[] =
	"vendor_id\t: GenuineIntel\n"
	"cpu family\t: 6\n"
	"model\t\t: 85\n"
	"model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\n"
	"stepping\t: 7\n"
	"microcode\t: 0x5003302\n"
	"cpu MHz\t\t: 2100.000\n"
	"cache size\t: 28160 KB\n"
	"physical id\t: 0\n"
	"flags\t\t: fpu vme de sse sse2 ssse3 avx avx2 avx512f avx512bw avx512_vnni "
	"clflush clflushopt clwb erms pku movdiri\n"
	"bugs\t\t: spectre_v1 spectre_v2\n"
	"clflush size\t: 64\n"
	"power management:\n";

static void build_root(const char *r)
{
	char cpuinfo[4096];

	snprintf(cpuinfo, sizeof(cpuinfo), "processor\t: 0\n%s\nprocessor\t: 1\n%s\n",
		 cpu_block, cpu_block);
	put_file(r, "proc/cpuinfo", cpuinfo);
	put_file(r, "proc/sys/kernel/osrelease", "6.1.0-fake\n");

	put_dir(r, "sys/bus/nd/devices/ndbus0");
	put_dir(r, "sys/bus/nd/devices/namespace0.0");
	/* a 2-way pmem region whose DIMMs are listed out of order */
	put_file(r, "sys/bus/nd/devices/region0/uevent", "DEVTYPE=nd_pmem\nMODALIAS=nd:t2\n");
	put_file(r, "sys/bus/nd/devices/region0/mappings", "2\n");
	put_file(r, "sys/bus/nd/devices/region0/mapping0", "nmem1,0,135291469824,1\n");
	put_file(r, "sys/bus/nd/devices/region0/mapping1", "nmem0,0,135291469824,0\n");
	put_file(r, "sys/bus/nd/devices/region0/persistence_domain", "memory_controller\n");
	put_file(r, "sys/bus/nd/devices/region0/numa_node", "1\n");
	put_file(r, "sys/bus/nd/devices/region0/size", "270582939648\n");
	/* BLK and volatile regions are not pmem targets */
	put_file(r, "sys/bus/nd/devices/region1/uevent", "DEVTYPE=nd_blk\nMODALIAS=nd:t3\n");
	put_file(r, "sys/bus/nd/devices/region1/mappings", "1\n");
	put_file(r, "sys/bus/nd/devices/region1/mapping0", "nmem0,0,1,0\n");
	put_file(r, "sys/bus/nd/devices/region3/uevent", "DEVTYPE=nd_volatile\n");
	put_file(r, "sys/bus/nd/devices/region3/mappings", "0\n");
	/* no uevent, no persistence_domain, a DIMM without nfit attributes */
	put_file(r, "sys/bus/nd/devices/region2/mappings", "1\n");
	put_file(r, "sys/bus/nd/devices/region2/mapping0", "nmem2,0,4096,0\n");
	put_file(r, "sys/bus/nd/devices/region2/numa_node", "0\n");
	put_file(r, "sys/bus/nd/devices/region2/persistence_domain", "\n");
	/* no "mappings": the mappingN files are read until one is missing */
	put_file(r, "sys/bus/nd/devices/region10/uevent", "DEVTYPE=nd_pmem\n");
	put_file(r, "sys/bus/nd/devices/region10/mapping0", "nmem3,0,4096\n");
	put_file(r, "sys/bus/nd/devices/region10/mapping1", "nmem4,0,4096\n");
	put_file(r, "sys/bus/nd/devices/region10/persistence_domain", "cpu_cache\n");

	put_file(r, "sys/bus/nd/devices/nmem0/nfit/vendor", "0x8089\n");
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/device", "0x097a\n");
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/rev_id", "0x0018\n");
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/serial", "0x00001111\n");
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/id", "8089-a2-1834-00001111\n");
	put_file(r, "sys/bus/nd/devices/nmem1/nfit/vendor", "0x8089\n");
	put_file(r, "sys/bus/nd/devices/nmem1/nfit/device", "0x097a\n");
	put_file(r, "sys/bus/nd/devices/nmem1/nfit/rev_id", "0x0018\n");
	put_file(r, "sys/bus/nd/devices/nmem1/nfit/serial", "0x00002222\n");
	put_dir(r, "sys/bus/nd/devices/nmem2");
	put_file(r, "sys/bus/nd/devices/nmem3/nfit/vendor", "0x8089\n");
	put_file(r, "sys/bus/nd/devices/nmem3/nfit/device", "0x097b\n");
	put_file(r, "sys/bus/nd/devices/nmem3/nfit/rev_id", "0x0020\n");
	put_file(r, "sys/bus/nd/devices/nmem4/nfit/vendor", "0x8089\n");
	put_file(r, "sys/bus/nd/devices/nmem4/nfit/device", "0x097b\n");
	put_file(r, "sys/bus/nd/devices/nmem4/nfit/rev_id", "0x0020\n");
}

/* The identity build_root() describes, typed in by hand under other names. */
static struct policy *fake_root_by_hand(void)
{
	struct policy *p = policy_new();
	struct policy_target *t;

	mkpolicy_cpu(p, "GenuineIntel", 6, 85, 7);
	t = add_target(p, "c", "pmem", "cpu_cache", 0, -1);
	add_dimm(t, "x", "0x8089", "0x097b", "0x0020");
	add_dimm(t, "y", "0x8089", "0x097b", "0x0020");
	t = add_target(p, "a", "pmem", "memory_controller", 2, 0);
	add_dimm(t, "x", "0x8089", "0x097a", "0x0018");
	add_dimm(t, "y", "0x8089", "0x097a", "0x0018");
	t = add_target(p, "b", "pmem", "unknown", 1, 0);
	add_dimm(t, "z", "unknown", "unknown", "unknown");
	add_target(p, "dram", "dram", "none", 0, 0);
	return p;
}

static void check_dimm(const struct policy_dimm *d, const char *name, const char *vendor,
		       const char *device, const char *fw)
{
	CHECK_STR(d->name, name);
	CHECK_STR(d->vendor, vendor);
	CHECK_STR(d->device, device);
	CHECK_STR(d->firmware, fw);
}

static void host_fp(const char *root, char out[FINGERPRINT_LEN])
{
	struct policy *p = policy_new();

	CHECK_INT(fingerprint_host(root, p), 0);
	snprintf(out, FINGERPRINT_LEN, "%s", p->platform.fingerprint);
	policy_free(p);
}

static void test_fake_root(void)
{
	static const char *const features[] = {
		"avx", "avx2", "avx512f", "clflush", "clflushopt", "clwb", "erms", "sse2",
	};
	char tmpl[] = "/tmp/test_fingerprint.XXXXXX", from[4096], to[4096];
	char f1[FINGERPRINT_LEN], f2[FINGERPRINT_LEN], fh[FINGERPRINT_LEN];
	const struct policy_cpu *c;
	const struct policy_target *t;
	struct policy *p, *hand;
	const char *r = mkdtemp(tmpl);

	CHECK(r != NULL);
	if (!r)
		return;
	build_root(r);

	p = policy_new();
	CHECK_INT(fingerprint_host(r, p), 0);
	c = &p->platform.cpu;
	CHECK_STR(c->vendor, "GenuineIntel");
	CHECK_INT(c->family, 6);
	CHECK_INT(c->model, 85);
	CHECK_INT(c->stepping, 7);
	CHECK_STR(c->microcode, "0x5003302");
	CHECK_INT(c->llc_bytes, 28160ull << 10);
	CHECK_INT(c->nfeatures, sizeof(features) / sizeof(features[0]));
	for (size_t i = 0; i < c->nfeatures && i < sizeof(features) / sizeof(features[0]); i++)
		CHECK_STR(c->features[i], features[i]);
	CHECK_STR(p->platform.kernel, "6.1.0-fake");

	/* region0, region2, region10: numeric order; region1 (blk), region3 (volatile) skipped */
	CHECK_INT(p->ntargets, 3);
	if (p->ntargets == 3) {
		t = &p->targets[0];
		CHECK_STR(t->name, "region0");
		CHECK_STR(t->kind, "pmem");
		CHECK_STR(t->persistence_domain, "memory_controller");
		CHECK_INT(t->interleave_ways, 2);
		CHECK_INT(t->numa_node, 1);
		CHECK_INT(t->ndimms, 2);
		if (t->ndimms == 2) {
			check_dimm(&t->dimms[0], "nmem1", "0x8089", "0x097a", "0x0018");
			check_dimm(&t->dimms[1], "nmem0", "0x8089", "0x097a", "0x0018");
		}
		t = &p->targets[1];
		CHECK_STR(t->name, "region2");
		CHECK_STR(t->kind, "pmem");
		CHECK_STR(t->persistence_domain, "unknown");
		CHECK_INT(t->interleave_ways, 1);
		CHECK_INT(t->numa_node, 0);
		CHECK_INT(t->ndimms, 1);
		if (t->ndimms == 1)
			check_dimm(&t->dimms[0], "nmem2", "unknown", "unknown", "unknown");
		t = &p->targets[2];
		CHECK_STR(t->name, "region10");
		CHECK_STR(t->persistence_domain, "cpu_cache");
		CHECK_INT(t->interleave_ways, 0);
		CHECK_INT(t->numa_node, -1);
		CHECK_INT(t->ndimms, 2);
		if (t->ndimms == 2) {
			check_dimm(&t->dimms[0], "nmem3", "0x8089", "0x097b", "0x0020");
			check_dimm(&t->dimms[1], "nmem4", "0x8089", "0x097b", "0x0020");
		}
	}
	CHECK(is_fingerprint(p->platform.fingerprint));
	snprintf(f1, sizeof(f1), "%s", p->platform.fingerprint);
	/* what fingerprint_host stored is fingerprint_compute of what it filled */
	fp(p, f2);
	CHECK_STR(f1, f2);
	policy_free(p);

	/* stable across calls, and equal to the same identity built by hand */
	host_fp(r, f2);
	CHECK_STR(f1, f2);
	hand = fake_root_by_hand();
	fp(hand, fh);
	CHECK_STR(f1, fh);
	policy_free(hand);

	/* serial and size are not identity; region names are not either */
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/serial", "0x00009999\n");
	put_file(r, "sys/bus/nd/devices/region0/size", "1\n");
	put_file(r, "proc/sys/kernel/osrelease", "6.9.0-other\n");
	snprintf(from, sizeof(from), "%s/sys/bus/nd/devices/region0", r);
	snprintf(to, sizeof(to), "%s/sys/bus/nd/devices/region5", r);
	CHECK_INT(rename(from, to), 0);
	host_fp(r, f2);
	CHECK_STR(f1, f2);

	/* a firmware (rev_id) change or a new persistence domain is a new platform */
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/rev_id", "0x0019\n");
	host_fp(r, f2);
	CHECK(strcmp(f1, f2) != 0);
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/rev_id", "0x0018\n");
	host_fp(r, f2);
	CHECK_STR(f1, f2);
	put_file(r, "sys/bus/nd/devices/region2/persistence_domain", "cpu_cache\n");
	host_fp(r, f2);
	CHECK(strcmp(f1, f2) != 0);
	put_file(r, "sys/bus/nd/devices/region2/persistence_domain", "\n");

	/* the cache hierarchy in sysfs wins over cpuinfo's "cache size" (AMD: the L2) */
	put_file(r, "sys/devices/system/cpu/cpu0/cache/index0/level", "1\n");
	put_file(r, "sys/devices/system/cpu/cpu0/cache/index0/type", "Data\n");
	put_file(r, "sys/devices/system/cpu/cpu0/cache/index0/size", "48K\n");
	put_file(r, "sys/devices/system/cpu/cpu0/cache/index1/level", "1\n");
	put_file(r, "sys/devices/system/cpu/cpu0/cache/index1/type", "Instruction\n");
	put_file(r, "sys/devices/system/cpu/cpu0/cache/index1/size", "32K\n");
	put_file(r, "sys/devices/system/cpu/cpu0/cache/index2/level", "2\n");
	put_file(r, "sys/devices/system/cpu/cpu0/cache/index2/type", "Unified\n");
	put_file(r, "sys/devices/system/cpu/cpu0/cache/index2/size", "1024K\n");
	put_file(r, "sys/devices/system/cpu/cpu0/cache/index3/level", "3\n");
	put_file(r, "sys/devices/system/cpu/cpu0/cache/index3/type", "Unified\n");
	put_file(r, "sys/devices/system/cpu/cpu0/cache/index3/size", "39424K\n");
	p = policy_new();
	CHECK_INT(fingerprint_host(r, p), 0);
	CHECK_INT(p->platform.cpu.llc_bytes, 39424ull << 10);
	CHECK_STR(p->platform.kernel, "6.9.0-other");
	CHECK_STR(p->platform.fingerprint, f1);
	policy_free(p);
	remove_tree(r);
}

/* No nd bus, no cache size, no osrelease: still a fingerprint; no cpuinfo: an error. */
static void test_sparse_root(void)
{
	char tmpl[] = "/tmp/test_fingerprint.XXXXXX";
	const char *r = mkdtemp(tmpl);
	struct utsname u;
	struct policy *p;

	CHECK(r != NULL);
	if (!r)
		return;
	p = policy_new();
	CHECK_INT(fingerprint_host(r, p), -ENOENT);
	policy_free(p);

	put_file(r, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
			       "model\t\t: 1\nstepping\t: 1\nflags\t\t: sse2 fsrm movdir64b\n");
	p = policy_new();
	p->platform.cpu.llc_bytes = 12345;
	CHECK_INT(fingerprint_host(r, p), 0);
	CHECK_STR(p->platform.cpu.vendor, "AuthenticAMD");
	CHECK_INT(p->platform.cpu.family, 25);
	CHECK_INT(p->platform.cpu.llc_bytes, 12345);	/* left as it was */
	CHECK_STR(p->platform.cpu.microcode, "");
	CHECK_INT(p->platform.cpu.nfeatures, 3);
	CHECK_INT(p->ntargets, 0);
	CHECK(is_fingerprint(p->platform.fingerprint));
	CHECK(uname(&u) == 0 && strcmp(p->platform.kernel, u.release) == 0);
	policy_free(p);

	/* unreadable cpuinfo is the one failure (root reads a mode 0 file: skip that) */
	{
		char path[4096];

		snprintf(path, sizeof(path), "%s/proc/cpuinfo", r);
		if (geteuid() != 0) {
			chmod(path, 0);
			p = policy_new();
			CHECK_INT(fingerprint_host(r, p), -EACCES);
			policy_free(p);
		}
		/* opens, but read(2) fails */
		CHECK_INT(remove(path), 0);
		CHECK_INT(mkdir(path, 0755), 0);
		p = policy_new();
		CHECK_INT(fingerprint_host(r, p), -EISDIR);
		policy_free(p);
	}
	remove_tree(r);
}

static void test_this_host(void)
{
	char f1[FINGERPRINT_LEN], f2[FINGERPRINT_LEN], f3[FINGERPRINT_LEN];
	struct policy *p = policy_new();
	const struct policy_cpu *c = &p->platform.cpu;
	struct utsname u;
	char *text;

	CHECK_INT(fingerprint_host("/", p), 0);
	CHECK(c->vendor[0] != '\0');
	CHECK(c->family != 0);
	CHECK(c->model != 0 || c->stepping != 0);
	CHECK(is_fingerprint(p->platform.fingerprint));
	CHECK(uname(&u) == 0 && strcmp(p->platform.kernel, u.release) == 0);
	snprintf(f1, sizeof(f1), "%s", p->platform.fingerprint);
	text = fingerprint_canonical(p);
	if (text)
		printf("this host (%zu pmem regions, llc %llu bytes, %s):\n%s%s\n", p->ntargets,
		       (unsigned long long)c->llc_bytes, p->platform.kernel, text, f1);
	free(text);
	policy_free(p);

	host_fp(NULL, f2);
	host_fp("", f3);
	CHECK_STR(f1, f2);
	CHECK_STR(f1, f3);
}

int main(void)
{
	test_identical_hosts();
	test_identity_changes();
	test_canonical_text();
	test_escaping();
	test_fake_root();
	test_sparse_root();
	test_this_host();
	return check_report("test_fingerprint");
}
