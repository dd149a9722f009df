// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CXL side of a pmem region, on fake sysfs trees laid out as the e2e
 * guest's (qemu 7.2 cxl-type3 behind pxb-cxl and cxl-rp, kernel 6.1): the
 * fingerprint tells device models and firmware apart, never serials or
 * names; the JSON keeps it; and no host without CXL changes fingerprint
 * (every recorded policy in tests/data keeps its own).
 */
#include <dirent.h>
#include <limits.h>
#include <unistd.h>

#include "check.h"
#include "cxl_tree.h"
#include "policy/cxl_sysfs.h"
#include "policy/fingerprint.h"
#include "policy/policy.h"

static char *tree(const struct cxl_tree_dev *d, bool cxl)
{
	char *r = strdup("/tmp/pt-test-cxl.XXXXXX");

	if (!r || !mkdtemp(r))
		exit(2);
	cxl_tree_build(r, d, cxl);
	return r;
}

static const struct policy_target *target(const struct policy *p, const char *name)
{
	for (size_t i = 0; i < p->ntargets; i++)
		if (!strcmp(p->targets[i].name, name))
			return &p->targets[i];
	return NULL;
}

static void test_identity(void)
{
	char *r = tree(&cxl_tree_guest, true);
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
	remove_tree(r);
	free(r);
}

/* Same model and firmware, another serial and name: one platform; else another. */
static void test_fingerprint(void)
{
	const struct cxl_tree_dev other_sn = {
		"0x0d93\n", "BWFW VERSION 00\n", "0x2a\n", "mem3", 1
	};
	const struct cxl_tree_dev other_fw = {
		"0x0d93\n", "BWFW VERSION 01\n", "0x1\n", "mem0", 1
	};
	const struct cxl_tree_dev other_model = {
		"0x0d94\n", "BWFW VERSION 00\n", "0x1\n", "mem0", 1
	};
	const struct cxl_tree_dev two_bridges = {
		"0x0d93\n", "BWFW VERSION 00\n", "0x1\n", "mem0", 2
	};
	const struct cxl_tree_dev *devs[] = {
		&cxl_tree_guest, &other_sn, &other_fw, &other_model, &two_bridges
	};
	char fps[5][FINGERPRINT_LEN], nocxl[FINGERPRINT_LEN];

	for (size_t i = 0; i < 5; i++) {
		char *r = tree(devs[i], true);
		struct policy *p = policy_new();

		CHECK_INT(fingerprint_host(r, p), 0);
		snprintf(fps[i], sizeof(fps[i]), "%s", p->platform.fingerprint);
		policy_free(p);
		remove_tree(r);
		free(r);
	}
	CHECK_STR(fps[0], fps[1]);
	CHECK(strcmp(fps[0], fps[2]) != 0);
	CHECK(strcmp(fps[0], fps[3]) != 0);
	CHECK(strcmp(fps[0], fps[4]) != 0);
	/* the same host without its CXL region: the NVDIMM alone, not the CXL host's */
	{
		char *r = tree(&cxl_tree_guest, false);
		struct policy *p = policy_new();

		CHECK_INT(fingerprint_host(r, p), 0);
		snprintf(nocxl, sizeof(nocxl), "%s", p->platform.fingerprint);
		CHECK_INT(p->ntargets, 1);
		CHECK(!p->targets[0].cxl.present);
		policy_free(p);
		remove_tree(r);
		free(r);
	}
	CHECK(strcmp(nocxl, fps[0]) != 0);
}

/* The cxl object through the file and back. */
static void test_json(void)
{
	char *r = tree(&cxl_tree_guest, true), err[256], *text, *again;
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
	remove_tree(r);
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
