/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host's NUMA topology as the probe needs it: which CPUs each node
 * has (online, and in this process's affinity mask), the kernel's
 * distance table, and from which CPUs to time a target of a given node.
 * Read from raw sysfs under a root, so that unit tests pass fake trees;
 * memory binding through the mbind(2) system call (no libnuma).
 */
#ifndef PMEM_TUNE_TOPOLOGY_H
#define PMEM_TUNE_TOPOLOGY_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#define TOPO_DIST_LOCAL 10

struct topo_node {
	bool online;
	cpu_set_t cpus;		/* nodeN/cpulist, online CPUs only */
	int *dist;		/* by node id: the SLIT distance, -1 unknown */
};

struct topology {
	bool numa;		/* false: no node directory (a kernel without NUMA) */
	int nnodes;		/* highest online node id + 1; ids may have holes */
	struct topo_node *nodes;	/* by id; .online false for a hole */
	cpu_set_t online;	/* /sys/devices/system/cpu/online */
	cpu_set_t allowed;	/* the affinity mask the CPUs are chosen from */
	int *order;		/* allowed online CPUs: one per core first, then siblings */
	unsigned norder;
};

/*
 * root: "" for the real /sys, else a directory holding sys/devices/system.
 * allowed: NULL for this thread's affinity mask.  Returns 0 or -errno
 * (-EINVAL for a malformed list or distance row).
 */
int topo_load(const char *root, const cpu_set_t *allowed, struct topology *t);
void topo_free(struct topology *t);

/* "0-3,8,10-11", or "" (none); -EINVAL on anything else or a CPU >= CPU_SETSIZE. */
int topo_parse_cpulist(const char *s, cpu_set_t *out);
/* The inverse: "0-3,8" into buf; returns the length, or -ENOSPC. */
int topo_format_cpulist(const int *cpus, unsigned n, char *buf, size_t len);

/* Node of an online CPU, -1 unknown. */
int topo_node_of_cpu(const struct topology *t, int cpu);
/* Node id is online with a directory (and so a distance row). */
bool topo_node_online(const struct topology *t, int node);
/* A region's node: target_node when it is online, else numa_node, else -1. */
int topo_region_node(const struct topology *t, int numa_node, int target_node);

/*
 * The node of the block device holding a file (st_dev of a file on a DAX
 * filesystem: a pmem namespace or its pfn device), from
 * /sys/dev/block/MAJ:MIN[/..]/device/numa_node; -1 unknown (no device,
 * tmpfs, a device-mapper stack).
 */
int topo_blockdev_node(const char *root, unsigned major, unsigned minor);

enum topo_placement {
	TOPO_LOCAL,		/* the target's own node's CPUs */
	TOPO_NEAREST,		/* its node has no allowed CPU: the nearest node that has */
	TOPO_CALLER,		/* the target's node is unknown: the caller's node */
	TOPO_NO_NUMA,		/* no NUMA information: every allowed CPU */
	TOPO_REMOTE,		/* the node farthest from the target (remote penalty) */
};
const char *topo_placement_name(enum topo_placement p);

struct topo_choice {
	int target_node;	/* -1 unknown */
	int from_node;		/* whose CPUs run the threads, -1 no NUMA */
	int distance;		/* target_node -> from_node, -1 unknown */
	enum topo_placement how;
	unsigned ncpus;
	int cpus[CPU_SETSIZE];	/* thread order: one per core first, then SMT siblings */
};

/*
 * Where to time a target of node target_node (-1 unknown): that node's
 * allowed CPUs; for a node without any, the nearest node by distance
 * that has some (ties: the lower id); for an unknown node, the node of
 * the first allowed CPU; without NUMA, all allowed CPUs.  -ENODEV when
 * no allowed CPU is online.
 */
int topo_choose(const struct topology *t, int target_node, struct topo_choice *c);
/* The node with allowed CPUs farthest from target_node; -ENOENT if only one has any. */
int topo_choose_farthest(const struct topology *t, int target_node, struct topo_choice *c);

/* Bind [addr, addr + len) to node (MPOL_BIND, moving pages already there); 0 or -errno. */
int topo_bind_area(void *addr, size_t len, int node);

#endif
