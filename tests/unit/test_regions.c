// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What of regions and scratch space can be checked without persistent
 * memory: scratch sizing, UUID text, the state file (round trip, every
 * malformed shape refused), the reaper dropping records whose region is
 * gone, and the planner's answers on a host without an NVDIMM bus.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "platform/regions.h"
#include "platform/scratch.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

static void test_sizes(void)
{
	uint64_t ns;

	/* default: 4 x LLC usable, metadata on top, 16 MiB granules */
	ns = region_scratch_size(0, 32 * MiB, 1 * GiB, 16 * MiB);
	CHECK(ns % (16 * MiB) == 0);
	CHECK_MSG(region_scratch_usable(ns) >= 128 * MiB, "usable %llu MiB",
		  (unsigned long long)(region_scratch_usable(ns) / MiB));
	CHECK(ns <= 160 * MiB);
	/* a small LLC still gets the probe's minimum */
	ns = region_scratch_size(0, 1 * MiB, 1 * GiB, 16 * MiB);
	CHECK(region_scratch_usable(ns) >= REGION_MIN_SCRATCH);
	/* an explicit size wins over the LLC */
	ns = region_scratch_size(512 * MiB, 32 * MiB, 1 * GiB, 16 * MiB);
	CHECK(region_scratch_usable(ns) >= 512 * MiB);
	/* capped by the largest free extent, rounded down to the alignment */
	ns = region_scratch_size(4 * GiB, 32 * MiB, 1000 * MiB, 16 * MiB);
	CHECK_INT(ns, 992 * MiB);
	/* too little room for 64 MiB usable: nothing */
	CHECK_INT(region_scratch_size(0, 1 * MiB, 64 * MiB, 16 * MiB), 0);
	CHECK_INT(region_scratch_size(0, 1 * MiB, 0, 16 * MiB), 0);
	CHECK(region_scratch_size(0, 1 * MiB, 96 * MiB, 16 * MiB) != 0);
	/* ndctl: 256 MiB devdax leaves about 250 MiB */
	CHECK(region_scratch_usable(256 * MiB) >= 240 * MiB);
	CHECK(region_scratch_usable(256 * MiB) <= 252 * MiB);
	CHECK_INT(region_scratch_usable(2 * MiB), 0);
	/* interleave: a 3-way alignment is not a power of two */
	ns = region_scratch_size(0, 32 * MiB, 3 * GiB, 48 * MiB);
	CHECK(ns % (48 * MiB) == 0);
	CHECK_INT(region_scratch_size(UINT64_MAX, 0, UINT64_MAX, 16 * MiB), 0);
}

static void test_uuid(void)
{
	const char *text = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
	unsigned char uu[16], again[16];
	char out[REGION_UUID_STR_LEN];

	CHECK_INT(region_uuid_parse(text, uu), 0);
	region_uuid_unparse(uu, out);
	CHECK_STR(out, text);
	CHECK_INT(region_uuid_parse("0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", again), 0);
	CHECK(memcmp(uu, again, 16) == 0);
	CHECK(region_uuid_parse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f", uu) < 0);
	CHECK(region_uuid_parse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1fg", uu) < 0);
	CHECK(region_uuid_parse("0f1e2d3c4b5a-6978-8796-a5b4c3d2e1f0-", uu) < 0);
	CHECK(region_uuid_parse(NULL, uu) < 0);
	CHECK_INT(region_uuid_generate(uu), 0);
	CHECK_INT(region_uuid_generate(again), 0);
	CHECK(memcmp(uu, again, 16) != 0);
	CHECK_INT(uu[6] >> 4, 4);
	CHECK_INT(uu[8] >> 6, 2);
	CHECK(!region_uuid_is_null(uu));
	memset(uu, 0, sizeof(uu));
	CHECK(region_uuid_is_null(uu));
}

static void test_names(void)
{
	/* as `ndctl list` prints them, and as the policy stores them */
	CHECK_STR(region_pd_name(PERSISTENCE_CPU_CACHE), "cpu_cache");
	CHECK_STR(region_pd_name(PERSISTENCE_MEM_CTRL), "memory_controller");
	CHECK_STR(region_pd_name(PERSISTENCE_NONE), "none");
	CHECK_STR(region_pd_name(PERSISTENCE_UNKNOWN), "unknown");
	CHECK_STR(namespace_mode_name(NDCTL_NS_MODE_DEVDAX), "devdax");
	CHECK_STR(namespace_mode_name(NDCTL_NS_MODE_FSDAX), "fsdax");
	CHECK_STR(namespace_mode_name(NDCTL_NS_MODE_RAW), "raw");
	CHECK_STR(namespace_mode_name(NDCTL_NS_MODE_SECTOR), "sector");
}

static void fill(struct scratch_record *r, const char *uuid, const char *mode, long pid)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->uuid, sizeof(r->uuid), "%s", uuid);
	snprintf(r->region, sizeof(r->region), "region7");
	snprintf(r->ns, sizeof(r->ns), "namespace7.1");
	snprintf(r->mode, sizeof(r->mode), "%s", mode);
	snprintf(r->created, sizeof(r->created), "2026-11-29T20:00:00Z");
	r->pid = pid;
}

static void test_state_text(void)
{
	struct scratch_record in[3], *out = NULL;
	char err[256];
	size_t n = 0;
	char *text;

	fill(&in[0], "11111111-2222-4333-8444-555555555555", "devdax", 42);
	fill(&in[1], "21111111-2222-4333-8444-555555555555", "fsdax", 43);
	snprintf(in[1].mount, sizeof(in[1].mount), "%s/mnt-x", scratch_state_dir());
	fill(&in[2], "31111111-2222-4333-8444-555555555555", "label-less", 44);
	snprintf(in[2].restore, sizeof(in[2].restore), "raw");
	snprintf(in[2].phase, sizeof(in[2].phase), "disabled");
	text = scratch_state_format(in, 3);
	CHECK(text != NULL);
	if (!text)
		return;
	CHECK(strstr(text, SCRATCH_STATE_SCHEMA) != NULL);
	CHECK(text[strlen(text) - 1] == '\n');
	CHECK_INT(scratch_state_parse(text, &out, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 3);
	for (size_t i = 0; out && i < n && i < 3; i++) {
		CHECK_STR(out[i].uuid, in[i].uuid);
		CHECK_STR(out[i].region, in[i].region);
		CHECK_STR(out[i].ns, in[i].ns);
		CHECK_STR(out[i].mode, in[i].mode);
		CHECK_STR(out[i].mount, in[i].mount);
		CHECK_STR(out[i].restore, in[i].restore);
		CHECK_STR(out[i].phase, in[i].phase);
		CHECK_STR(out[i].created, in[i].created);
		CHECK_INT(out[i].pid, in[i].pid);
	}
	free(out);
	free(text);

	text = scratch_state_format(NULL, 0);
	CHECK(text && scratch_state_parse(text, &out, &n, err, sizeof(err)) == 0 && n == 0);
	free(out);
	free(text);
}

static void test_state_malformed(void)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "", "not JSON" },
		{ "[]", "schema" },
		{ "{\"schema\": \"pmem-tune-scratch/2\", \"scratch\": []}", "schema" },
		{ "{\"schema\": \"pmem-tune-scratch/1\"}", "scratch" },
		{ "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": {}}", "scratch" },
		{ "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": [1]}", "not an object" },
		{ "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": [{\"region\": \"region0\", "
		  "\"mode\": \"devdax\"}]}", "uuid" },
		{ "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": [{\"uuid\": \"nope\", "
		  "\"region\": \"region0\", \"mode\": \"devdax\"}]}", "not a UUID" },
		{ "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": [{\"uuid\": "
		  "\"00000000-0000-0000-0000-000000000000\", \"region\": \"region0\", "
		  "\"mode\": \"devdax\"}]}", "not a UUID" },
		{ "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": [{\"uuid\": "
		  "\"11111111-2222-4333-8444-555555555555\", \"region\": \"\", "
		  "\"mode\": \"devdax\"}]}", "empty" },
		{ "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": [{\"uuid\": "
		  "\"11111111-2222-4333-8444-555555555555\", \"region\": \"region0\", "
		  "\"mode\": \"sector\"}]}", "mode" },
		{ "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": [{\"uuid\": "
		  "\"11111111-2222-4333-8444-555555555555\", \"region\": \"region0\", "
		  "\"mode\": \"fsdax\", \"mount\": \"/home\"}]}", "not under" },
		{ "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": [{\"uuid\": "
		  "\"11111111-2222-4333-8444-555555555555\", \"region\": \"region0\", "
		  "\"mode\": \"devdax\", \"pid\": \"12\"}]}", "pid" },
		{ "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": [{\"uuid\": "
		  "\"11111111-2222-4333-8444-555555555555\", \"region\": 7, "
		  "\"mode\": \"devdax\"}]}", "not a string" },
	};
	struct scratch_record *out;
	char err[256], mnt[512];
	size_t n;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		out = (void *)1;
		CHECK_MSG(scratch_state_parse(bad[i].text, &out, &n, err, sizeof(err)) == -EINVAL,
			  "case %zu accepted", i);
		CHECK_MSG(strstr(err, bad[i].why) != NULL, "case %zu: '%s' lacks '%s'", i, err,
			  bad[i].why);
		CHECK(out == NULL && n == 0);
	}
	/* a mount escaping the state directory with .. is refused too */
	snprintf(mnt, sizeof(mnt), "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": [{\"uuid\": "
		 "\"11111111-2222-4333-8444-555555555555\", \"region\": \"region0\", \"mode\": "
		 "\"fsdax\", \"mount\": \"%s/../../etc\"}]}", scratch_state_dir());
	CHECK(scratch_state_parse(mnt, &out, &n, err, sizeof(err)) == -EINVAL);
	/* so is a sibling that shares its prefix, and a path ending in ".." */
	snprintf(mnt, sizeof(mnt), "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": [{\"uuid\": "
		 "\"11111111-2222-4333-8444-555555555555\", \"region\": \"region0\", \"mode\": "
		 "\"fsdax\", \"mount\": \"%s-x/mnt\"}]}", scratch_state_dir());
	CHECK(scratch_state_parse(mnt, &out, &n, err, sizeof(err)) == -EINVAL);
	snprintf(mnt, sizeof(mnt), "{\"schema\": \"pmem-tune-scratch/1\", \"scratch\": [{\"uuid\": "
		 "\"11111111-2222-4333-8444-555555555555\", \"region\": \"region0\", \"mode\": "
		 "\"fsdax\", \"mount\": \"%s/mnt/..\"}]}", scratch_state_dir());
	CHECK(scratch_state_parse(mnt, &out, &n, err, sizeof(err)) == -EINVAL);
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Save, load and reap in a private state directory; no NVDIMM needed. */
static void test_state_files(const char *dir)
{
	struct scratch_record recs[2], *out = NULL;
	char path[512], mnt[200], err[256];
	size_t n = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, SCRATCH_STATE_FILE);
	CHECK_STR(scratch_state_dir(), dir);
	/* no file: no records */
	CHECK_INT(scratch_state_load(path, &out, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 0);
	free(out);

	fill(&recs[0], "41111111-2222-4333-8444-555555555555", "devdax", 1);
	fill(&recs[1], "51111111-2222-4333-8444-555555555555", "fsdax", 2);
	snprintf(mnt, sizeof(mnt), "%s/mnt-%s", dir, recs[1].uuid);
	snprintf(recs[1].mount, sizeof(recs[1].mount), "%s", mnt);
	/* regions that do not exist here: the reaper only drops the records */
	snprintf(recs[0].region, sizeof(recs[0].region), "region-test-absent");
	snprintf(recs[1].region, sizeof(recs[1].region), "region-test-absent");
	CHECK_INT(scratch_state_save(path, recs, 2), 0);
	CHECK_INT(scratch_state_load(path, &out, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 2);
	if (n == 2)
		CHECK_STR(out[1].mount, mnt);
	free(out);
	CHECK_INT(mkdir(mnt, 0700), 0);

	rc = scratch_reap_stale();
	CHECK_INT(rc, 0);
	CHECK(!exists(path));		/* every record settled */
	CHECK(!exists(mnt));		/* the empty mount directory went with it */

	/* zero records: the file goes */
	CHECK_INT(scratch_state_save(path, recs, 1), 0);
	CHECK(exists(path));
	CHECK_INT(scratch_state_save(path, recs, 0), 0);
	CHECK(!exists(path));

	/* a malformed file is left alone and reported */
	{
		FILE *f = fopen(path, "w");

		CHECK(f != NULL);
		if (f) {
			fputs("{ not json", f);
			fclose(f);
		}
	}
	CHECK(scratch_reap_stale() < 0);
	CHECK(exists(path));
	unlink(path);
}

/* On a host without an NVDIMM bus (CI), or with one: answers must be sane. */
static void test_plan(void)
{
	char regions[4][POLICY_NAME_MAX], err[256];
	int n;

	err[0] = '\0';
	CHECK_INT(scratch_plan("dram", false, regions, 4, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "auto") != NULL);
	n = scratch_plan("region:region-test-absent", true, regions, 4, err, sizeof(err));
	CHECK_INT(n, -ENODEV);
	CHECK(strstr(err, "region-test-absent") != NULL);
	n = scratch_plan("auto", false, regions, 4, err, sizeof(err));
	CHECK(n >= 0 && n <= 4);
}

int main(void)
{
	char dir[] = "/tmp/pt-test-regions.XXXXXX";
	char lock[600];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("PMEM_TUNE_STATE_DIR", dir, 1);
	test_sizes();
	test_uuid();
	test_names();
	test_state_text();
	test_state_malformed();
	test_state_files(dir);
	test_plan();
	snprintf(lock, sizeof(lock), "%s/scratch.lock", dir);
	unlink(lock);
	rmdir(dir);
	return check_report("test_regions");
}
