// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The choice of CPUs for a target's node, on fake sysfs trees: one node,
 * no NUMA, two nodes, a CPU-less node (the qemu guest's distance table),
 * offline CPUs, a restricted affinity mask, node-id holes, SMT order and
 * malformed files.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "platform/topology.h"
#include "put_file.h"

static char root[64];

static void put(const char *rel, const char *content)
{
	put_file(root, rel, content);
}

static void fresh_root(void)
{
	if (root[0])
		remove_tree(root);
	snprintf(root, sizeof(root), "/tmp/pt-test-topo.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(EXIT_FAILURE);
	}
}

static cpu_set_t set_of(const char *list)
{
	cpu_set_t s;

	if (topo_parse_cpulist(list, &s))
		abort();
	return s;
}

/* The choice's CPUs as a list, for comparing. */
static const char *cpus_of(const struct topo_choice *c)
{
	static char buf[256];

	if (topo_format_cpulist(c->cpus, c->ncpus, buf, sizeof(buf)) < 0)
		return "?";
	return buf;
}

#define NODE "sys/devices/system/node/"
#define CPU "sys/devices/system/cpu/"

/* The online CPUs' and nodes' lists */
static void put_online(const char *cpus, const char *nodes)
{
	put(CPU "online", cpus);
	put(NODE "online", nodes);
}

/* Node n's CPUs and its row of the distance table */
static void put_node(unsigned n, const char *cpulist, const char *distance)
{
	char rel[64];

	snprintf(rel, sizeof(rel), NODE "node%u/cpulist", n);
	put(rel, cpulist);
	snprintf(rel, sizeof(rel), NODE "node%u/distance", n);
	put(rel, distance);
}

static void two_nodes(const char *online)
{
	fresh_root();
	put_online(online, "0-1\n");
	put_node(0, "0-3\n", "10 20\n");
	put_node(1, "4-7\n", "20 10\n");
}

static void test_cpulist(void)
{
	cpu_set_t s;
	char buf[64];
	int cpus[] = { 0, 1, 2, 3, 8, 10, 11 };

	CHECK_INT(topo_parse_cpulist("", &s), 0);
	CHECK_INT(CPU_COUNT(&s), 0);
	CHECK_INT(topo_parse_cpulist("0-3,8,10-11", &s), 0);
	CHECK_INT(CPU_COUNT(&s), 7);
	CHECK(CPU_ISSET(8, &s) && !CPU_ISSET(9, &s));
	CHECK_INT(topo_parse_cpulist("4-", &s), -EINVAL);
	CHECK_INT(topo_parse_cpulist("3-1", &s), -EINVAL);
	CHECK_INT(topo_parse_cpulist("1,", &s), -EINVAL);
	CHECK_INT(topo_parse_cpulist("x", &s), -EINVAL);
	CHECK_INT(topo_parse_cpulist("-1", &s), -EINVAL);
	CHECK_INT(topo_parse_cpulist("99999", &s), -EINVAL);
	CHECK(topo_format_cpulist(cpus, 7, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "0-3,8,10-11");
	CHECK_INT(topo_format_cpulist(cpus, 7, buf, 4), -ENOSPC);
	CHECK_INT(topo_format_cpulist(cpus, 0, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
}

static void test_one_node(void)
{
	cpu_set_t all = set_of("0-3");
	struct topology t;
	struct topo_choice c;

	fresh_root();
	put_online("0-3\n", "0\n");
	put_node(0, "0-3\n", "10\n");
	CHECK_INT(topo_load(root, &all, &t), 0);
	CHECK(t.numa);
	CHECK_INT(topo_choose(&t, 0, &c), 0);
	CHECK_INT(c.how, TOPO_LOCAL);
	CHECK_INT(c.from_node, 0);
	CHECK_INT(c.distance, 10);
	CHECK_STR(cpus_of(&c), "0-3");
	CHECK_INT(topo_choose(&t, -1, &c), 0);
	CHECK_INT(c.how, TOPO_CALLER);
	CHECK_INT(c.from_node, 0);
	CHECK_INT(c.target_node, -1);
	/* an id the kernel does not know is "unknown", not a node */
	CHECK_INT(topo_choose(&t, 5, &c), 0);
	CHECK_INT(c.how, TOPO_CALLER);
	CHECK_INT(topo_choose_farthest(&t, 0, &c), -ENOENT);
	topo_free(&t);
}

static void test_no_numa(void)
{
	cpu_set_t all = set_of("0-5");
	struct topology t;
	struct topo_choice c;

	fresh_root();
	put(CPU "online", "0-3\n");
	CHECK_INT(topo_load(root, &all, &t), 0);
	CHECK(!t.numa);
	CHECK_INT(topo_choose(&t, 1, &c), 0);
	CHECK_INT(c.how, TOPO_NO_NUMA);
	CHECK_INT(c.from_node, -1);
	CHECK_INT(c.target_node, -1);
	CHECK_STR(cpus_of(&c), "0-3");
	CHECK_STR(topo_placement_name(c.how), "no_numa");
	CHECK_INT(topo_region_node(&t, 1, 1), -1);
	topo_free(&t);
}

static void test_two_nodes(void)
{
	cpu_set_t all = set_of("0-7");
	struct topology t;
	struct topo_choice c;

	two_nodes("0-7\n");
	CHECK_INT(topo_load(root, &all, &t), 0);
	CHECK_INT(t.nnodes, 2);
	CHECK_INT(topo_node_of_cpu(&t, 5), 1);
	CHECK_INT(topo_choose(&t, 1, &c), 0);
	CHECK_INT(c.how, TOPO_LOCAL);
	CHECK_INT(c.from_node, 1);
	CHECK_INT(c.distance, 10);
	CHECK_STR(cpus_of(&c), "4-7");
	CHECK_INT(topo_choose_farthest(&t, 1, &c), 0);
	CHECK_INT(c.how, TOPO_REMOTE);
	CHECK_INT(c.from_node, 0);
	CHECK_INT(c.distance, 20);
	CHECK_STR(cpus_of(&c), "0-3");
	/* the region's node: target_node when online, else numa_node */
	CHECK_INT(topo_region_node(&t, 1, 1), 1);
	CHECK_INT(topo_region_node(&t, 0, 3), 0);
	CHECK_INT(topo_region_node(&t, -1, -1), -1);
	topo_free(&t);
}

static void test_cpuless_node(void)
{
	cpu_set_t all = set_of("0-7");
	struct topology t;
	struct topo_choice c;

	fresh_root();
	put_online("0-7\n", "0-2\n");
	put_node(0, "0-3\n", "10 20 17\n");
	put_node(1, "4-7\n", "20 10 28\n");
	put(NODE "node2/cpulist", "\n");	/* the kernel writes an empty line */
	put(NODE "node2/distance", "17 28 10\n");
	CHECK_INT(topo_load(root, &all, &t), 0);
	CHECK_INT(topo_choose(&t, 2, &c), 0);
	CHECK_INT(c.how, TOPO_NEAREST);
	CHECK_INT(c.target_node, 2);
	CHECK_INT(c.from_node, 0);
	CHECK_INT(c.distance, 17);
	CHECK_STR(cpus_of(&c), "0-3");
	CHECK_INT(topo_choose_farthest(&t, 2, &c), 0);
	CHECK_INT(c.from_node, 1);
	CHECK_INT(c.distance, 28);
	topo_free(&t);
}

static void test_offline_cpus(void)
{
	cpu_set_t all = set_of("0-7");
	struct topology t;
	struct topo_choice c;

	two_nodes("0-5\n");
	CHECK_INT(topo_load(root, &all, &t), 0);
	CHECK_INT(topo_choose(&t, 1, &c), 0);
	CHECK_INT(c.how, TOPO_LOCAL);
	CHECK_STR(cpus_of(&c), "4-5");
	CHECK_INT(topo_node_of_cpu(&t, 7), -1);
	topo_free(&t);
}

static void test_affinity(void)
{
	cpu_set_t some = set_of("0-1,6"), low = set_of("0-1");
	struct topology t;
	struct topo_choice c;

	two_nodes("0-7\n");
	CHECK_INT(topo_load(root, &some, &t), 0);
	CHECK_INT(topo_choose(&t, 1, &c), 0);
	CHECK_INT(c.how, TOPO_LOCAL);
	CHECK_STR(cpus_of(&c), "6");
	CHECK_INT(topo_choose(&t, 0, &c), 0);
	CHECK_STR(cpus_of(&c), "0-1");
	topo_free(&t);

	/* node 1 has no CPU in the mask: probed from node 0, and it says so */
	CHECK_INT(topo_load(root, &low, &t), 0);
	CHECK_INT(topo_choose(&t, 1, &c), 0);
	CHECK_INT(c.how, TOPO_NEAREST);
	CHECK_INT(c.from_node, 0);
	CHECK_INT(c.distance, 20);
	CHECK_STR(cpus_of(&c), "0-1");
	CHECK_INT(topo_choose_farthest(&t, 1, &c), -ENOENT);
	topo_free(&t);

	/* no allowed CPU online at all */
	some = set_of("9");
	CHECK_INT(topo_load(root, &some, &t), 0);
	CHECK_INT(topo_choose(&t, 0, &c), -ENODEV);
	topo_free(&t);
}

static void test_holes(void)
{
	cpu_set_t all = set_of("0-3");
	struct topology t;
	struct topo_choice c;

	fresh_root();
	put_online("0-3\n", "0,2\n");
	put_node(0, "0-1\n", "10 21\n");
	put_node(2, "2-3\n", "21 10\n");
	CHECK_INT(topo_load(root, &all, &t), 0);
	CHECK_INT(t.nnodes, 3);
	CHECK(!topo_node_online(&t, 1));
	CHECK_INT(topo_node_of_cpu(&t, 3), 2);
	CHECK_INT(topo_choose(&t, 2, &c), 0);
	CHECK_STR(cpus_of(&c), "2-3");
	CHECK_INT(c.distance, 10);
	CHECK_INT(topo_choose_farthest(&t, 2, &c), 0);
	CHECK_INT(c.from_node, 0);
	CHECK_INT(c.distance, 21);
	/* the hole is unknown: the caller's node */
	CHECK_INT(topo_choose(&t, 1, &c), 0);
	CHECK_INT(c.how, TOPO_CALLER);
	topo_free(&t);
}

static void test_smt_order(void)
{
	cpu_set_t all = set_of("0-3");
	struct topology t;
	struct topo_choice c;

	fresh_root();
	put_online("0-3\n", "0\n");
	put_node(0, "0-3\n", "10\n");
	/* cores {0,2} and {1,3}: one thread per core first */
	put(CPU "cpu0/topology/core_cpus_list", "0,2\n");
	put(CPU "cpu2/topology/core_cpus_list", "0,2\n");
	put(CPU "cpu1/topology/thread_siblings_list", "1,3\n");
	put(CPU "cpu3/topology/thread_siblings_list", "1,3\n");
	CHECK_INT(topo_load(root, &all, &t), 0);
	CHECK_INT(topo_choose(&t, 0, &c), 0);
	CHECK_INT(c.ncpus, 4);
	CHECK(c.cpus[0] == 0 && c.cpus[1] == 1 && c.cpus[2] == 2 && c.cpus[3] == 3);
	topo_free(&t);

	/* cores {0,1} and {2,3}: 0, 2, then the siblings 1, 3 */
	put(CPU "cpu0/topology/core_cpus_list", "0-1\n");
	put(CPU "cpu1/topology/thread_siblings_list", "0-1\n");
	put(CPU "cpu2/topology/core_cpus_list", "2-3\n");
	put(CPU "cpu3/topology/thread_siblings_list", "2-3\n");
	CHECK_INT(topo_load(root, &all, &t), 0);
	CHECK_INT(topo_choose(&t, 0, &c), 0);
	CHECK(c.cpus[0] == 0 && c.cpus[1] == 2 && c.cpus[2] == 1 && c.cpus[3] == 3);
	topo_free(&t);
}

static void test_blockdev(void)
{
	char link[4096];

	fresh_root();
	put("sys/devices/ndbus0/region1/namespace1.0/numa_node", "1\n");
	put("sys/devices/ndbus0/region1/namespace1.0/block/pmem1/pmem1p1/partition", "1\n");
	put("sys/devices/ndbus0/region0/pfn0.0/numa_node", "-1\n");
	put("sys/devices/ndbus0/region0/pfn0.0/block/pmem0/dev", "259:0\n");
	put("sys/dev/block/.keep", "");
	/* the kernel's links; the device link of a disk points at its parent */
	snprintf(link, sizeof(link),
		 "%s/sys/devices/ndbus0/region1/namespace1.0/block/pmem1/device", root);
	CHECK(symlink("../..", link) == 0);
	snprintf(link, sizeof(link), "%s/sys/devices/ndbus0/region0/pfn0.0/block/pmem0/device",
		 root);
	CHECK(symlink("../..", link) == 0);
	snprintf(link, sizeof(link), "%s/sys/dev/block/259:1", root);
	CHECK(symlink("../../devices/ndbus0/region1/namespace1.0/block/pmem1/pmem1p1", link) == 0);
	snprintf(link, sizeof(link), "%s/sys/dev/block/259:0", root);
	CHECK(symlink("../../devices/ndbus0/region0/pfn0.0/block/pmem0", link) == 0);

	CHECK_INT(topo_blockdev_node(root, 259, 1), 1);		/* a partition: its disk's */
	CHECK_INT(topo_blockdev_node(root, 259, 0), -1);	/* numa_node -1 */
	CHECK_INT(topo_blockdev_node(root, 259, 7), -1);	/* no such device */
	CHECK_INT(topo_blockdev_node(root, 0, 42), -1);		/* tmpfs */
}

static void test_junk(void)
{
	cpu_set_t all = set_of("0-7");
	struct topology t;

	two_nodes("0-7\n");
	put(NODE "node1/cpulist", "4-\n");
	CHECK_INT(topo_load(root, &all, &t), -EINVAL);
	CHECK(t.nodes == NULL && t.order == NULL);
	two_nodes("0-7\n");
	put(NODE "node1/distance", "x 10\n");
	CHECK_INT(topo_load(root, &all, &t), -EINVAL);
	two_nodes("0-7\n");
	put(NODE "node1/distance", "20\n");	/* a column short */
	CHECK_INT(topo_load(root, &all, &t), -EINVAL);
	two_nodes("0-7\n");
	put(NODE "node1/distance", "20 10 30\n");	/* one too many */
	CHECK_INT(topo_load(root, &all, &t), -EINVAL);
	fresh_root();
	CHECK(topo_load(root, &all, &t) < 0);	/* no cpu/online */
}

int main(void)
{
	test_cpulist();
	test_one_node();
	test_no_numa();
	test_two_nodes();
	test_cpuless_node();
	test_offline_cpus();
	test_affinity();
	test_holes();
	test_smt_order();
	test_blockdev();
	test_junk();
	if (root[0])
		remove_tree(root);
	return check_report("test_topology");
}
