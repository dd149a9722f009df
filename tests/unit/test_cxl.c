// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CXL side of a pmem region, on fake sysfs trees laid out as the e2e
 * guest's (qemu 7.2 cxl-type3 behind pxb-cxl and cxl-rp, kernel 6.1): the
 * fingerprint tells device models and firmware apart, never serials or
 * names; the JSON keeps it; and no host without CXL changes fingerprint
 * (every recorded policy in tests/data keeps its own).
 */
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <unistd.h>

#include "check.h"
#include "policy/cxl_sysfs.h"
#include "policy/fingerprint.h"
#include "policy/policy.h"
#include "put_file.h"

struct dev {
	const char *pci_device, *firmware, *serial, *memdev;
	unsigned ways_root;
};

static void link_at(const char *root, const char *target, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
	if (symlink(target, path)) {
		perror(path);
		exit(1);
	}
}

/* The guest's tree: an NVDIMM region0 and CXL region1 (its nd region on ndbus1). */
static void build(const char *r, const struct dev *d, bool cxl)
{
	char buf[512], pci[] = "sys/devices/pci0000:0c/0000:0c:00.0/0000:0d:00.0";
	const char *root0 = "sys/devices/platform/ACPI0017:00/root0";

	put_file(r, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
		 "model\t\t: 143\nstepping\t: 8\nflags\t\t: sse2 clwb\n\n");
	put_file(r, "proc/sys/kernel/osrelease", "6.1.0-57-cloud-amd64\n");
	/* the NVDIMM's region: no CXL side */
	put_file(r, "sys/bus/nd/devices/region0/uevent", "DEVTYPE=nd_pmem\n");
	put_file(r, "sys/bus/nd/devices/region0/mappings", "1\n");
	put_file(r, "sys/bus/nd/devices/region0/mapping0", "nmem0,0,1073610752,0\n");
	put_file(r, "sys/bus/nd/devices/region0/persistence_domain", "memory_controller\n");
	put_file(r, "sys/bus/nd/devices/region0/resource", "0x140000000\n");
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/vendor", "0x8086\n");
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/device", "0x0001\n");
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/rev_id", "0x0001\n");
	if (!cxl)
		return;
	/* libnvdimm's side of the CXL region: its nmem knows nothing */
	put_file(r, "sys/bus/nd/devices/region1/uevent", "DEVTYPE=nd_pmem\n");
	put_file(r, "sys/bus/nd/devices/region1/mappings", "1\n");
	put_file(r, "sys/bus/nd/devices/region1/mapping0", "nmem1,0,268435456,0\n");
	put_file(r, "sys/bus/nd/devices/region1/persistence_domain", "memory_controller\n");
	put_file(r, "sys/bus/nd/devices/region1/resource", "0x310000000\n");
	put_file(r, "sys/bus/nd/devices/nmem1/devtype", "nvdimm\n");
	/* the CXL topology */
	snprintf(buf, sizeof(buf), "%s/decoder0.0/interleave_ways", root0);
	put_file(r, buf, d->ways_root == 2 ? "2\n" : "1\n");
	snprintf(buf, sizeof(buf), "%s/decoder0.0/interleave_granularity", root0);
	put_file(r, buf, "256\n");
	snprintf(buf, sizeof(buf), "%s/decoder0.0/region1/resource", root0);
	put_file(r, buf, "0x310000000\n");
	snprintf(buf, sizeof(buf), "%s/decoder0.0/region1/interleave_ways", root0);
	put_file(r, buf, "1\n");
	snprintf(buf, sizeof(buf), "%s/decoder0.0/region1/interleave_granularity", root0);
	put_file(r, buf, "256\n");
	snprintf(buf, sizeof(buf), "%s/decoder0.0/region1/target0", root0);
	put_file(r, buf, "decoder2.0\n");
	snprintf(buf, sizeof(buf), "%s/port1/endpoint2/decoder2.0/mode", root0);
	put_file(r, buf, "pmem\n");
	snprintf(buf, sizeof(buf), "%s/%s/firmware_version", pci, d->memdev);
	put_file(r, buf, d->firmware);
	snprintf(buf, sizeof(buf), "%s/%s/serial", pci, d->memdev);
	put_file(r, buf, d->serial);
	snprintf(buf, sizeof(buf), "%s/vendor", pci);
	put_file(r, buf, "0x8086\n");
	snprintf(buf, sizeof(buf), "%s/device", pci);
	put_file(r, buf, d->pci_device);
	snprintf(buf, sizeof(buf), "%s/subsystem_vendor", pci);
	put_file(r, buf, "0x1af4\n");
	snprintf(buf, sizeof(buf), "%s/subsystem_device", pci);
	put_file(r, buf, "0x1100\n");
	snprintf(buf, sizeof(buf), "%s/revision", pci);
	put_file(r, buf, "0x01\n");
	snprintf(buf, sizeof(buf), "../../../../../pci0000:0c/0000:0c:00.0/0000:0d:00.0/%s",
		 d->memdev);
	link_at(r, buf, "sys/devices/platform/ACPI0017:00/root0/port1/endpoint2/uport");
	put_file(r, "sys/bus/cxl/devices/.keep", "");
	link_at(r, "../../../devices/platform/ACPI0017:00/root0/decoder0.0/region1",
		"sys/bus/cxl/devices/region1");
	link_at(r, "../../../devices/platform/ACPI0017:00/root0/port1/endpoint2/decoder2.0",
		"sys/bus/cxl/devices/decoder2.0");
	snprintf(buf, sizeof(buf), "../../../devices/pci0000:0c/0000:0c:00.0/0000:0d:00.0/%s",
		 d->memdev);
	snprintf(pci, sizeof(pci), "sys/bus/cxl/devices/%s", d->memdev);
	link_at(r, buf, pci);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static char *tree(const struct dev *d, bool cxl)
{
	char *r = strdup("/tmp/pt-test-cxl.XXXXXX");

	if (!r || !mkdtemp(r))
		exit(2);
	build(r, d, cxl);
	return r;
}

static const struct policy_target *target(const struct policy *p, const char *name)
{
	for (size_t i = 0; i < p->ntargets; i++)
		if (!strcmp(p->targets[i].name, name))
			return &p->targets[i];
	return NULL;
}

static const struct dev guest = { "0x0d93\n", "BWFW VERSION 00\n", "0x1\n", "mem0", 1 };

static void test_identity(void)
{
	char *r = tree(&guest, true);
	struct policy *p = policy_new();
	const struct policy_target *t0, *t1;
	struct policy_cxl c;

	CHECK(p);
	CHECK_INT(fingerprint_host(r, p), 0);
	t0 = target(p, "region0");
	t1 = target(p, "region1");
	CHECK(t0 && t1);
	if (!t0 || !t1)
		goto out;
	CHECK(!t0->cxl.present);
	CHECK(t1->cxl.present);
	CHECK_STR(t1->cxl.region, "region1");
	CHECK_INT(t1->cxl.interleave_ways, 1);
	CHECK_INT(t1->cxl.interleave_granularity, 256);
	CHECK_INT(t1->cxl.host_bridges, 1);
	CHECK_INT(t1->cxl.nmemdevs, 1);
	CHECK_STR(t1->cxl.memdevs[0].name, "mem0");
	CHECK_STR(t1->cxl.memdevs[0].pci_vendor, "0x8086");
	CHECK_STR(t1->cxl.memdevs[0].pci_device, "0x0d93");
	CHECK_STR(t1->cxl.memdevs[0].pci_subsystem_vendor, "0x1af4");
	CHECK_STR(t1->cxl.memdevs[0].pci_revision, "0x01");
	CHECK_STR(t1->cxl.memdevs[0].firmware, "BWFW VERSION 00");
	CHECK_INT(t1->cxl.memdevs[0].depth, 2);
	/* an nd region that is not CXL's */
	CHECK_INT(cxl_identity_of_nd_region(r, "region0", &c), -ENOENT);
	CHECK_INT(cxl_identity_of_nd_region(r, "region9", &c), -ENOENT);
out:
	policy_free(p);
	nftw(r, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(r);
}

/* Same model and firmware, another serial and name: one platform; else another. */
static void test_fingerprint(void)
{
	const struct dev other_sn = { "0x0d93\n", "BWFW VERSION 00\n", "0x2a\n", "mem3", 1 };
	const struct dev other_fw = { "0x0d93\n", "BWFW VERSION 01\n", "0x1\n", "mem0", 1 };
	const struct dev other_model = { "0x0d94\n", "BWFW VERSION 00\n", "0x1\n", "mem0", 1 };
	const struct dev two_bridges = { "0x0d93\n", "BWFW VERSION 00\n", "0x1\n", "mem0", 2 };
	const struct dev *devs[] = { &guest, &other_sn, &other_fw, &other_model, &two_bridges };
	char fps[5][FINGERPRINT_LEN], nocxl[FINGERPRINT_LEN];

	for (size_t i = 0; i < 5; i++) {
		char *r = tree(devs[i], true);
		struct policy *p = policy_new();

		CHECK_INT(fingerprint_host(r, p), 0);
		snprintf(fps[i], sizeof(fps[i]), "%s", p->platform.fingerprint);
		policy_free(p);
		nftw(r, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(r);
	}
	CHECK_STR(fps[0], fps[1]);
	CHECK(strcmp(fps[0], fps[2]) != 0);
	CHECK(strcmp(fps[0], fps[3]) != 0);
	CHECK(strcmp(fps[0], fps[4]) != 0);
	/* the same host without its CXL region: the NVDIMM alone, not the CXL host's */
	{
		char *r = tree(&guest, false);
		struct policy *p = policy_new();

		CHECK_INT(fingerprint_host(r, p), 0);
		snprintf(nocxl, sizeof(nocxl), "%s", p->platform.fingerprint);
		CHECK_INT(p->ntargets, 1);
		CHECK(!p->targets[0].cxl.present);
		policy_free(p);
		nftw(r, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(r);
	}
	CHECK(strcmp(nocxl, fps[0]) != 0);
}

/* The cxl object through the file and back. */
static void test_json(void)
{
	char *r = tree(&guest, true), err[256], *text, *again;
	struct policy *p = policy_new(), *q;
	const struct policy_target *t;

	CHECK_INT(fingerprint_host(r, p), 0);
	snprintf(p->generator.name, sizeof(p->generator.name), "pmem-tune");
	text = policy_to_string(p);
	CHECK(text && strstr(text, "\"cxl\"") && strstr(text, "\"mem0\"") &&
	      strstr(text, "\"BWFW VERSION 00\""));
	CHECK(text && !strstr(text, "0x1\""));	/* no serial */
	q = text ? policy_parse(text, strlen(text), err, sizeof(err)) : NULL;
	CHECK_MSG(q, "parse: %s", err);
	t = q ? target(q, "region1") : NULL;
	CHECK(t && t->cxl.present && t->cxl.nmemdevs == 1 && t->cxl.memdevs[0].depth == 2);
	again = q ? policy_to_string(q) : NULL;
	CHECK(again && text && !strcmp(again, text));
	free(again);
	free(text);
	policy_free(q);
	policy_free(p);
	nftw(r, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(r);
}

/* Every recorded policy (no CXL among them) keeps the fingerprint it was written with. */
static void test_recorded(const char *data)
{
	char path[PATH_MAX];
	unsigned n = 0;
	DIR *top = opendir(data);
	struct dirent *e;

	CHECK_MSG(top, "%s: %s", data, strerror(errno));
	while (top && (e = readdir(top))) {
		DIR *d;
		struct dirent *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", data, e->d_name);
		d = opendir(path);
		while (d && (f = readdir(d))) {
			char file[PATH_MAX * 2], err[256], fp[FINGERPRINT_LEN];
			struct policy_bundle *b;
			size_t len = strlen(f->d_name);

			if (len < 5 || strcmp(f->d_name + len - 5, ".json"))
				continue;
			snprintf(file, sizeof(file), "%s/%s", path, f->d_name);
			b = policy_bundle_load(file, POLICY_LOAD_INSECURE, err, sizeof(err));
			if (!b)
				continue;	/* not a policy (a table of the reference set) */
			for (size_t i = 0; i < b->n; i++) {
				CHECK_INT(fingerprint_compute(b->entries[i], fp), 0);
				CHECK_MSG(!strcmp(fp, b->entries[i]->platform.fingerprint),
					  "%s: %s, recorded %s", file, fp,
					  b->entries[i]->platform.fingerprint);
				n++;
			}
			policy_bundle_free(b);
		}
		if (d)
			closedir(d);
	}
	if (top)
		closedir(top);
	CHECK_MSG(n >= 20, "only %u recorded policies", n);
}

int main(int argc, char **argv)
{
	test_identity();
	test_fingerprint();
	test_json();
	if (argc > 1)
		test_recorded(argv[1]);
	printf("test_cxl: %u passed, %u failed\n", check_passed, check_failed);
	return check_failed != 0;
}
