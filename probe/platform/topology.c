// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NUMA topology from sysfs and the choice of CPUs for a target.
 *
 * The distance file of a node has one column per *online* node in id
 * order, not per id: with online nodes 0 and 2 the row "20 10" is for
 * ids 0 and 2.  A node's cpulist lists its present CPUs, so it is
 * intersected with cpu/online and with the affinity mask.
 */
#include <errno.h>
#include <linux/mempolicy.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/sysfs_attr.h"
#include "platform/topology.h"

#define ATTR_MAX 4096
#define SYS_NODE "%s/sys/devices/system/node"
#define SYS_CPU "%s/sys/devices/system/cpu"

static int parse_num(const char **p, long *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	*v = strtol(*p, &end, 10);
	if (errno || *v >= CPU_SETSIZE)
		return -EINVAL;
	*p = end;
	return 0;
}

int topo_parse_cpulist(const char *s, cpu_set_t *out)
{
	const char *p = s;

	CPU_ZERO(out);
	while (*p) {
		long a, b;

		if (parse_num(&p, &a))
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p++;
			if (parse_num(&p, &b) || b < a)
				return -EINVAL;
		}
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, out);
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return -EINVAL;
	}
	return 0;
}

int topo_format_cpulist(const int *cpus, unsigned n, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (unsigned i = 0; i < n;) {
		unsigned j = i;
		int w;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j > i)
			w = snprintf(buf + used, len - used, "%s%d-%d", i ? "," : "", cpus[i],
				     cpus[j]);
		else
			w = snprintf(buf + used, len - used, "%s%d", i ? "," : "", cpus[i]);
		if (w < 0 || (size_t)w >= len - used)
			return -ENOSPC;
		used += (size_t)w;
		i = j + 1;
	}
	return (int)used;
}

/* "10 20 17": one distance per online node, in id order. */
static int parse_distances(const char *s, const struct topology *t, int *dist)
{
	const char *p = s;

	for (int id = 0; id < t->nnodes; id++) {
		long v;
		char *end;

		dist[id] = -1;
		if (!t->nodes[id].online)
			continue;
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v > 255)
			return -EINVAL;
		dist[id] = (int)v;
		p = end;
	}
	while (*p == ' ')
		p++;
	return *p ? -EINVAL : 0;
}

static int read_list(char *buf, cpu_set_t *set, const char *fmt, const char *root,
		     const char *what)
{
	int rc = read_attrf(buf, ATTR_MAX, fmt, root, what);

	return rc ? rc : topo_parse_cpulist(buf, set);
}

/*
 * Thread order: the lowest allowed CPU of each core first, then the
 * others, so that two threads share no core while cores are left.  A
 * kernel without core_cpus_list (before 5.7) has thread_siblings_list.
 */
static int order_cpus(const char *root, struct topology *t, cpu_set_t *usable, char *buf)
{
	cpu_set_t firsts;

	CPU_ZERO(&firsts);
	t->order = calloc((size_t)CPU_COUNT(usable) + 1, sizeof(*t->order));
	if (!t->order)
		return -ENOMEM;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		cpu_set_t sib;
		int first = c;

		if (!CPU_ISSET(c, usable))
			continue;
		if (!read_attrf(buf, ATTR_MAX, SYS_CPU "/cpu%d/topology/core_cpus_list", root, c) ||
		    !read_attrf(buf, ATTR_MAX, SYS_CPU "/cpu%d/topology/thread_siblings_list",
				root, c)) {
			if (!topo_parse_cpulist(buf, &sib))
				for (int s = 0; s < c; s++)
					if (CPU_ISSET(s, &sib) && CPU_ISSET(s, usable)) {
						first = s;
						break;
					}
		}
		if (first == c)
			CPU_SET(c, &firsts);
	}
	for (int pass = 0; pass < 2; pass++)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, usable) && (CPU_ISSET(c, &firsts) ? 0 : 1) == pass)
				t->order[t->norder++] = c;
	return 0;
}

static int load_nodes(const char *root, struct topology *t, char *buf)
{
	cpu_set_t online_nodes;
	int rc;

	/* node ids share the list syntax and the bound of CPU numbers */
	rc = read_list(buf, &online_nodes, SYS_NODE "/%s", root, "online");
	if (rc)
		return rc;
	for (int id = 0; id < CPU_SETSIZE; id++)
		if (CPU_ISSET(id, &online_nodes))
			t->nnodes = id + 1;
	if (!t->nnodes)
		return -EINVAL;
	t->nodes = calloc((size_t)t->nnodes, sizeof(*t->nodes));
	if (!t->nodes)
		return -ENOMEM;
	for (int id = 0; id < t->nnodes; id++)
		t->nodes[id].online = CPU_ISSET(id, &online_nodes);
	for (int id = 0; id < t->nnodes; id++) {
		struct topo_node *n = &t->nodes[id];
		char name[32];

		if (!n->online)
			continue;
		snprintf(name, sizeof(name), "node%d/cpulist", id);
		rc = read_list(buf, &n->cpus, SYS_NODE "/%s", root, name);
		if (rc)
			return rc;
		CPU_AND(&n->cpus, &n->cpus, &t->online);
		n->dist = malloc((size_t)t->nnodes * sizeof(*n->dist));
		if (!n->dist)
			return -ENOMEM;
		rc = read_attrf(buf, ATTR_MAX, SYS_NODE "/node%d/distance", root, id);
		if (rc == -ENOENT) {	/* no SLIT: only "local" is known */
			for (int j = 0; j < t->nnodes; j++)
				n->dist[j] = j == id ? TOPO_DIST_LOCAL : -1;
			continue;
		}
		if (rc || (rc = parse_distances(buf, t, n->dist)))
			return rc;
	}
	return 0;
}

int topo_load(const char *root, const cpu_set_t *allowed, struct topology *t)
{
	char *buf = malloc(ATTR_MAX), path[PATH_MAX];
	cpu_set_t usable;
	struct stat st;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!buf)
		return -ENOMEM;
	if (!root)
		root = "";
	if (allowed)
		t->allowed = *allowed;
	else if (sched_getaffinity(0, sizeof(t->allowed), &t->allowed))
		CPU_ZERO(&t->allowed);
	rc = read_list(buf, &t->online, SYS_CPU "/%s", root, "online");
	if (rc)
		goto out;
	snprintf(path, sizeof(path), SYS_NODE, root);
	t->numa = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	if (t->numa) {
		rc = load_nodes(root, t, buf);
		if (rc == -ENOENT && !t->nnodes) {	/* no node/online: treat as one node */
			t->numa = false;
			rc = 0;
		}
		if (rc)
			goto out;
	}
	CPU_AND(&usable, &t->online, &t->allowed);
	rc = order_cpus(root, t, &usable, buf);
out:
	free(buf);
	if (rc)
		topo_free(t);
	return rc;
}

void topo_free(struct topology *t)
{
	for (int id = 0; t->nodes && id < t->nnodes; id++)
		free(t->nodes[id].dist);
	free(t->nodes);
	free(t->order);
	memset(t, 0, sizeof(*t));
}

bool topo_node_online(const struct topology *t, int node)
{
	return t->numa && node >= 0 && node < t->nnodes && t->nodes[node].online;
}

int topo_node_of_cpu(const struct topology *t, int cpu)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -1;
	for (int id = 0; t->numa && id < t->nnodes; id++)
		if (t->nodes[id].online && CPU_ISSET(cpu, &t->nodes[id].cpus))
			return id;
	return -1;
}

/*
 * target_node is where the memory would live as system RAM; when its
 * proximity domain has no online node the kernel gives the nearest
 * online one as numa_node.
 */
int topo_region_node(const struct topology *t, int numa_node, int target_node)
{
	if (topo_node_online(t, target_node))
		return target_node;
	if (topo_node_online(t, numa_node))
		return numa_node;
	return -1;
}

int topo_blockdev_node(const char *root, unsigned major, unsigned minor)
{
	char buf[32], path[PATH_MAX];
	struct stat st;
	long v;
	char *end;

	if (!major)	/* tmpfs, overlayfs, btrfs: no block device of their own */
		return -1;
	if (!root)
		root = "";
	/* a partition's device attributes are its disk's */
	snprintf(path, sizeof(path), "%s/sys/dev/block/%u:%u/partition", root, major, minor);
	if (read_attrf(buf, sizeof(buf), "%s/sys/dev/block/%u:%u/%sdevice/numa_node", root,
		       major, minor, stat(path, &st) ? "" : "../"))
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || *end || end == buf || v < 0 || v >= CPU_SETSIZE)
		return -1;
	return (int)v;
}

const char *topo_placement_name(enum topo_placement p)
{
	static const char *const names[] = {
		[TOPO_LOCAL] = "local", [TOPO_NEAREST] = "nearest", [TOPO_CALLER] = "caller",
		[TOPO_NO_NUMA] = "no_numa", [TOPO_REMOTE] = "remote",
	};

	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "unknown";
}

/* The usable CPUs of node (all of them for -1), in thread order. */
static void take_cpus(const struct topology *t, int node, struct topo_choice *c)
{
	c->ncpus = 0;
	for (unsigned i = 0; i < t->norder; i++)
		if (node < 0 || CPU_ISSET(t->order[i], &t->nodes[node].cpus))
			c->cpus[c->ncpus++] = t->order[i];
}

static unsigned node_usable(const struct topology *t, int node)
{
	cpu_set_t s;

	if (!topo_node_online(t, node))
		return 0;
	CPU_AND(&s, &t->nodes[node].cpus, &t->allowed);
	return (unsigned)CPU_COUNT(&s);
}

static int distance(const struct topology *t, int from, int to)
{
	if (!topo_node_online(t, from) || !topo_node_online(t, to))
		return -1;
	return t->nodes[from].dist[to];
}

/* The node with usable CPUs nearest to (far: farthest from) node, skipping skip. */
static int pick_node(const struct topology *t, int node, bool far, int skip)
{
	int best = -1, bd = 0;

	for (int id = 0; id < t->nnodes; id++) {
		int d;

		if (id == skip || !node_usable(t, id))
			continue;
		d = distance(t, node, id);
		/* an unknown distance ranks after every known one */
		if (d < 0)
			d = far ? 0 : INT_MAX;
		if (best < 0 || (far ? d > bd : d < bd)) {
			best = id;
			bd = d;
		}
	}
	return best;
}

int topo_choose(const struct topology *t, int target_node, struct topo_choice *c)
{
	c->target_node = topo_node_online(t, target_node) ? target_node : -1;
	c->distance = -1;
	if (!t->norder)
		return -ENODEV;
	if (!t->numa) {
		c->how = TOPO_NO_NUMA;
		c->from_node = -1;
		take_cpus(t, -1, c);
		return 0;
	}
	if (c->target_node < 0) {
		c->how = TOPO_CALLER;
		c->from_node = topo_node_of_cpu(t, t->order[0]);
	} else if (node_usable(t, target_node)) {
		c->how = TOPO_LOCAL;
		c->from_node = target_node;
	} else {
		c->how = TOPO_NEAREST;
		c->from_node = pick_node(t, target_node, false, -1);
	}
	if (c->from_node < 0) {	/* CPUs in no node's list: take them all */
		c->how = TOPO_NO_NUMA;
		take_cpus(t, -1, c);
		return 0;
	}
	c->distance = distance(t, c->target_node, c->from_node);
	take_cpus(t, c->from_node, c);
	return 0;
}

int topo_choose_farthest(const struct topology *t, int target_node, struct topo_choice *c)
{
	struct topo_choice local;
	int rc = topo_choose(t, target_node, &local), node;

	if (rc)
		return rc;
	if (local.from_node < 0)
		return -ENOENT;
	node = pick_node(t, local.target_node >= 0 ? local.target_node : local.from_node, true,
			 local.from_node);
	if (node < 0)
		return -ENOENT;
	c->target_node = local.target_node;
	c->from_node = node;
	c->how = TOPO_REMOTE;
	c->distance = distance(t, local.target_node, node);
	take_cpus(t, node, c);
	return 0;
}

int topo_bind_area(void *addr, size_t len, int node)
{
	unsigned long mask[CPU_SETSIZE / (8 * sizeof(unsigned long))] = { 0 };
	const unsigned long bits = 8 * sizeof(unsigned long);

	if (node < 0 || node >= CPU_SETSIZE)
		return -EINVAL;
	mask[node / bits] |= 1ul << (node % bits);
	/* the kernel reads maxnode - 1 bits */
	if (syscall(SYS_mbind, addr, len, MPOL_BIND, mask, (unsigned long)CPU_SETSIZE + 1,
		    MPOL_MF_STRICT | MPOL_MF_MOVE))
		return -errno;
	return 0;
}
