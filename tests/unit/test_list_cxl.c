// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tune --list's CXL side (list_cxl.c, through libcxl) on the e2e
 * guest's tree (cxl_tree.h).  libcxl reads /sys and /dev/cxl by their
 * absolute paths, so the test runs it in a user and mount namespace of
 * its own where the fake tree's sys and dev are bind-mounted over /sys
 * and /dev: libcxl itself parses the tree, nothing of it is mocked.
 * Where unprivileged user namespaces are not available it says skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "check.h"
#include "cxl_tree.h"
#include "platform/list_cxl.h"

#define SKIP 77

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));
	int err = errno;

	if (fd >= 0)
		close(fd);
	errno = err;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Root of a user namespace of our own, whose /sys and /dev are tree's; SKIP when denied. */
static int enter_tree(const char *tree)
{
	const char *over[] = { "sys", "dev" };
	char map[64], src[4096];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		printf("skipped: no unprivileged user and mount namespace here (unshare: %s)\n",
		       strerror(errno));
		return SKIP;
	}
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) ||
	    write_file("/proc/self/setgroups", "deny") ||
	    (snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid),
	     write_file("/proc/self/gid_map", map))) {
		printf("skipped: cannot map our ids in the user namespace: %s\n", strerror(errno));
		return SKIP;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		printf("skipped: cannot make / private in the namespace: %s\n", strerror(errno));
		return SKIP;
	}
	for (size_t i = 0; i < 2; i++) {
		char dst[16];

		snprintf(src, sizeof(src), "%s/%s", tree, over[i]);
		snprintf(dst, sizeof(dst), "/%s", over[i]);
		if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL)) {
			int denied = errno == EPERM || errno == EACCES;

			printf("%scannot bind %s over %s in the namespace: %s\n",
			       denied ? "skipped: " : "", src, dst, strerror(errno));
			return denied ? SKIP : 1;
		}
	}
	return 0;
}

static struct json_object *at(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static struct json_object *idx(struct json_object *a, size_t i)
{
	return a && json_object_is_type(a, json_type_array) &&
	       json_object_array_length(a) > i ? json_object_array_get_idx(a, i) : NULL;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v = at(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "(none)";
}

static long long num(struct json_object *o, const char *key)
{
	struct json_object *v = at(o, key);

	return v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
}

/* --list --json: the memdev, the root decoder, the region and the nd region it backs */
static void test_json(void)
{
	struct json_object *root = json_object_new_object(), *cxl, *m, *d, *r, *map;

	CHECK(root);
	CHECK_INT(list_cxl(stdout, root), 0);
	cxl = at(root, "cxl");
	CHECK_MSG(cxl, "no \"cxl\" in %s", json_object_to_json_string(root));
	CHECK_MSG(!at(cxl, "problem"), "%s", str(cxl, "problem"));
	CHECK_INT(json_object_array_length(at(cxl, "memdevs")), 1);
	m = idx(at(cxl, "memdevs"), 0);
	CHECK_STR(str(m, "memdev"), "mem0");
	CHECK_INT(num(m, "serial"), 1);
	CHECK_STR(str(m, "firmware_version"), "BWFW VERSION 00");
	CHECK_STR(str(m, "host"), "0000:0d:00.0");
	CHECK_STR(str(m, "pci_vendor"), "0x8086");
	CHECK_STR(str(m, "pci_device"), "0x0d93");
	CHECK_INT(num(m, "pmem_size"), 256ll << 20);
	CHECK_INT(num(m, "ram_size"), 0);
	CHECK_STR(str(m, "endpoint"), "endpoint2");
	CHECK_STR(str(m, "port"), "port1");
	CHECK_INT(num(m, "depth"), 2);
	CHECK_STR(json_object_get_string(idx(at(m, "decoders"), 0)), "decoder2.0");

	CHECK_INT(json_object_array_length(at(cxl, "root_decoders")), 1);
	d = idx(at(cxl, "root_decoders"), 0);
	CHECK_STR(str(d, "decoder"), "decoder0.0");
	CHECK_INT(num(d, "resource"), 0x310000000ll);
	CHECK_INT(num(d, "size"), 4ll << 30);
	CHECK(json_object_get_boolean(at(d, "pmem_capable")));

	CHECK_INT(json_object_array_length(at(cxl, "regions")), 1);
	r = idx(at(cxl, "regions"), 0);
	CHECK_STR(str(r, "region"), "region1");
	CHECK_STR(str(r, "type"), "pmem");
	CHECK_INT(num(r, "resource"), 0x310000000ll);
	CHECK_INT(num(r, "size"), 256ll << 20);
	CHECK_INT(num(r, "interleave_ways"), 1);
	CHECK_INT(num(r, "interleave_granularity"), 256);
	map = idx(at(r, "mappings"), 0);
	CHECK_INT(num(map, "position"), 0);
	CHECK_STR(str(map, "memdev"), "mem0");
	CHECK_STR(str(map, "decoder"), "decoder2.0");
	CHECK_STR(str(r, "nd_region"), "region1");
	if (check_failed)
		fprintf(stderr, "%s\n", json_object_to_json_string_ext(root,
								       JSON_C_TO_STRING_PRETTY));
	json_object_put(root);
}

/* --list: the same, one line each */
static void test_text(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CHECK(f);
	if (!f)
		return;
	CHECK_INT(list_cxl(f, NULL), 0);
	fclose(f);
	CHECK_MSG(strstr(text, "  mem0: serial 0x1, firmware BWFW VERSION 00, PCI 0000:0d:00.0 "
			 "0x8086:0x0d93, pmem 256 MiB, ram 0 MiB, endpoint2 below port1\n"),
		  "%s", text);
	CHECK_MSG(strstr(text, "  decoder0.0: 4096 MiB window, 1 way at 256 B, pmem, ram\n"), "%s",
		  text);
	CHECK_MSG(strstr(text, "  region1: pmem, 256 MiB, 1 way at 256 B, targets mem0; "
			 "backs libnvdimm region1\n"), "%s", text);
	free(text);
}

/* The CXL region backs no libnvdimm region (cxl_pmem not loaded): nd_region null */
static void test_no_nd(void)
{
	struct json_object *root = json_object_new_object(), *r, *v = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CHECK_INT(list_cxl(stdout, root), 0);
	r = idx(at(at(root, "cxl"), "regions"), 0);
	CHECK_STR(str(r, "region"), "region1");
	CHECK(r && json_object_object_get_ex(r, "nd_region", &v) && !v);
	json_object_put(root);
	CHECK(f);
	if (!f)
		return;
	CHECK_INT(list_cxl(f, NULL), 0);
	fclose(f);
	CHECK_MSG(strstr(text, "  region1: pmem, 256 MiB, 1 way at 256 B, targets mem0\n"), "%s",
		  text);
	free(text);
}

/* No CXL memory device on PCI: no "cxl" key at all */
static void test_none(void)
{
	struct json_object *root = json_object_new_object();

	CHECK_INT(list_cxl(stdout, root), 0);
	CHECK(!at(root, "cxl"));
	json_object_put(root);
}

/*
 * The guest's tree (with cxl, its CXL side; less rm, a directory of it),
 * one child in its namespace running tests; the child's status.
 */
static int run(bool cxl, const char *rm, void (*test)(void), void (*test2)(void))
{
	char r[] = "/tmp/pt-test-list-cxl.XXXXXX";
	int status = 1;
	pid_t pid;

	if (!mkdtemp(r))
		return 2;
	cxl_tree_build(r, &cxl_tree_guest, cxl);
	put_file(r, "dev/.keep", "");	/* the host's /dev/cxl hidden in any case */
	if (rm) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", r, rm);
		remove_tree(path);
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int rc = enter_tree(r);

		if (rc) {
			fflush(NULL);
			_exit(rc);
		}
		test();
		if (test2)
			test2();
		printf("test_list_cxl (%s%s): %u passed, %u failed\n", cxl ? "guest" : "no CXL",
		       rm ? " less one directory" : "", check_passed, check_failed);
		fflush(NULL);
		_exit(check_failed ? 1 : 0);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	remove_tree(r);
	return status;
}

int main(void)
{
	int rc = run(true, NULL, test_json, test_text);

	if (rc == 0)
		rc = run(true, "sys/bus/nd/devices/region1", test_no_nd, NULL);
	if (rc == 0)
		rc = run(false, NULL, test_none, NULL);
	return rc;
}
