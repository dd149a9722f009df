// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * policy_is_fleet_file(): what no probe replaces (a link, a bundle, a
 * merged entry) told apart from a single probe's policy, from the text;
 * and where the host's own probe is kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "policy/fleet_file.h"
#include "tmptree.h"

static void expect(const char *rel, int want, const char *why_has)
{
	char why[256] = "";
	int r = policy_is_fleet_file(tmptree_path(rel), why, sizeof(why));

	CHECK_MSG(r == want, "%s: %d, expected %d (%s)", rel, r, want, why);
	if (why_has)
		CHECK_MSG(strstr(why, why_has), "%s: why '%s' lacks '%s'", rel, why, why_has);
}

static void test_kinds(void)
{
	tmptree_put("plain.json", "{\"schema\": \"pmem-policy/1\", \"targets\": []}", 0644);
	tmptree_put("bundle.json", "{\"schema\": \"pmem-policy/1\", \"bundle\": [{}, {}]}", 0644);
	tmptree_put("one.json", "{\"schema\": \"pmem-policy/1\", \"bundle\": [{}]}", 0644);
	tmptree_put("mbundle.json", "{\"schema\": \"pmem-policy/9\", \"bundle\": "
		    "[{\"merged\": {\"hosts\": 4}}]}", 0644);
	tmptree_put("merged.json", "{\"schema\": \"pmem-policy/1\", \"merged\": "
		    "{\"hosts\": 3, \"created_first\": \"x\"}}", 0644);
	tmptree_put("broken.json", "{\"bundle\": [", 0644);
	tmptree_put("empty.json", "", 0644);
	CHECK_INT(symlink("bundle.json", tmptree_path("link.json")), 0);
	CHECK_INT(symlink("plain.json", tmptree_path("link-plain.json")), 0);
	CHECK_INT(symlink("nowhere.json", tmptree_path("dangling.json")), 0);
	CHECK_INT(mkdir(tmptree_path("dir.json"), 0755), 0);
	CHECK_INT(mkfifo(tmptree_path("fifo.json"), 0600), 0);

	expect("missing.json", 0, NULL);
	expect("plain.json", 0, NULL);
	expect("broken.json", 0, NULL);
	expect("empty.json", 0, NULL);
	expect("bundle.json", 1, "bundle of 2 entries");
	expect("one.json", 1, "bundle of 1 entry");
	/* a newer schema's bundle is still the fleet's: the text decides, not validation */
	expect("mbundle.json", 1, "with merged ones");
	expect("merged.json", 1, "merged entry of 3 hosts");
	/* whatever a link points at, the fleet keeps it */
	expect("link.json", 1, "symbolic link to bundle.json");
	expect("link-plain.json", 1, "symbolic link");
	expect("dangling.json", 1, "symbolic link to nowhere.json");
	/* other kinds: not a fleet's; the caller refuses them as before (no hang on a FIFO) */
	expect("dir.json", 0, NULL);
	expect("fifo.json", 0, NULL);
	/* why may be NULL */
	CHECK_INT(policy_is_fleet_file(tmptree_path("bundle.json"), NULL, 0), 1);
}

/*
 * Read as the loader reads: a text whose tree would outgrow the memory
 * budget cannot be told (and is not read whole); hosts are not summed.
 */
static void test_bounds(void)
{
	size_t cap = 4u << 20, n = 0;
	char *big = malloc(cap);

	CHECK(big != NULL);
	if (!big)
		return;
	/* 1000 x 1000 empty objects: 3 MB of text, about 800 MB of json-c tree */
	n += (size_t)snprintf(big + n, cap - n, "{\"schema\": \"pmem-policy/1\", \"x\": [");
	for (int i = 0; i < 1000; i++) {
		n += (size_t)snprintf(big + n, cap - n, "%s[", i ? "," : "");
		for (int k = 0; k < 1000; k++)
			n += (size_t)snprintf(big + n, cap - n, "%s{}", k ? "," : "");
		n += (size_t)snprintf(big + n, cap - n, "]");
	}
	snprintf(big + n, cap - n, "]}");
	tmptree_put("tree.json", big, 0644);
	free(big);
	expect("tree.json", -E2BIG, NULL);
	tmptree_put("hosts.json", "{\"schema\": \"pmem-policy/1\", \"bundle\": ["
		    "{\"merged\": {\"hosts\": 2147483647}}, "
		    "{\"merged\": {\"hosts\": 2147483647}}]}", 0644);
	expect("hosts.json", 1, "bundle of 2 entries with merged ones");
	/* what the loader's first pass refuses cannot be told: never a probe's to replace */
	tmptree_put("badid.json", "{\"schema\": \"pmem-policy/1\", \"bundle\": ["
		    "{\"merged\": {\"hosts\": 1, \"host_ids\": [\"sha256:"
		    "0000000000000000000000000000000000000000"
		    "0000000000000000000000000000000000000\"]}}]}", 0644);
	expect("badid.json", -EINVAL, NULL);
}

static void test_state_dir(void)
{
	char path[64];

	unsetenv(POLICY_PROBE_STATE_ENV);
	CHECK_STR(policy_probe_state_dir(), "/var/lib/pmem-tune");
	CHECK_INT(policy_kept_probe_path(path, sizeof(path)), 0);
	CHECK_STR(path, "/var/lib/pmem-tune/probe.json");
	setenv(POLICY_PROBE_STATE_ENV, "", 1);
	CHECK_STR(policy_probe_state_dir(), "/var/lib/pmem-tune");
	setenv(POLICY_PROBE_STATE_ENV, "/srv/fleet/state", 1);
	CHECK_INT(policy_kept_probe_path(path, sizeof(path)), 0);
	CHECK_STR(path, "/srv/fleet/state/probe.json");
	CHECK_INT(policy_kept_probe_path(path, 8), -ENAMETOOLONG);
	unsetenv(POLICY_PROBE_STATE_ENV);
}

int main(void)
{
	tmptree_make("pt-fleet-file");
	test_kinds();
	test_bounds();
	test_state_dir();
	tmptree_remove(check_failed);
	return check_report("test_fleet_file");
}
