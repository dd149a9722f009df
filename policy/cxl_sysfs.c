// SPDX-License-Identifier: LGPL-2.1-or-later
#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sysfs_attr.h"
#include "policy/cxl_sysfs.h"

#define CXL_DEVICES "/sys/bus/cxl/devices"
#define ND_DEVICES "/sys/bus/nd/devices"

static int read_u64(uint64_t *v, const char *fmt, const char *a, const char *b)
{
	char buf[64], *end;
	int rc = read_attrf(buf, sizeof(buf), fmt, a, b);

	if (rc)
		return rc;
	errno = 0;
	*v = strtoull(buf, &end, 0);
	return errno || end == buf || *end ? -EINVAL : 0;
}

static unsigned read_uint_or0(const char *fmt, const char *a, const char *b)
{
	uint64_t v;

	return read_u64(&v, fmt, a, b) || v > UINT_MAX ? 0 : (unsigned)v;
}

static int region_filter(const struct dirent *d)
{
	return !strncmp(d->d_name, "region", 6) && isdigit((unsigned char)d->d_name[6]);
}

/* The CXL region whose resource is res, into name; -ENOENT when none is. */
static int cxl_region_at(const char *pre, uint64_t res, char *name, size_t len)
{
	char dir[PATH_MAX];
	struct dirent **ents;
	int n, rc = -ENOENT;

	if ((size_t)snprintf(dir, sizeof(dir), "%s" CXL_DEVICES, pre) >= sizeof(dir))
		return -ENAMETOOLONG;
	n = scandir(dir, &ents, region_filter, versionsort);
	if (n < 0)
		return -ENOENT;	/* no CXL bus */
	for (int i = 0; i < n; i++) {
		uint64_t r;

		if (rc == -ENOENT &&
		    !read_u64(&r, "%s" CXL_DEVICES "/%s/resource", pre, ents[i]->d_name) &&
		    r == res) {
			snprintf(name, len, "%.*s", (int)len - 1, ents[i]->d_name);
			rc = 0;
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

/* "0x8086" as sysfs writes it, else "unknown" */
static void read_id(char *out, size_t len, const char *pre, const char *dir, const char *attr)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s%s/%s", pre, dir, attr) >= sizeof(path) ||
	    read_attr(path, out, len) || !*out)
		snprintf(out, len, "unknown");
}

/* The ports between the CXL root and the endpoint: "port"/"endpoint" components of its path. */
static unsigned depth_of(const char *real)
{
	unsigned depth = 0;

	for (const char *p = real; (p = strchr(p, '/')); p++)
		if ((!strncmp(p + 1, "port", 4) && isdigit((unsigned char)p[5])) ||
		    (!strncmp(p + 1, "endpoint", 8) && isdigit((unsigned char)p[9])))
			depth++;
	return depth;
}

/*
 * Target decoder dec of a region: its port's uport is the memdev; the
 * memdev's parent is its PCI function.
 */
static int read_memdev(const char *pre, const char *dec, struct policy_cxl_memdev *m)
{
	char path[PATH_MAX], real[PATH_MAX], port[PATH_MAX], rpre[PATH_MAX] = "", *slash;
	size_t plen;

	if (*pre && !realpath(pre, rpre))
		return -errno;
	plen = strlen(rpre);

	if ((size_t)snprintf(path, sizeof(path), "%s" CXL_DEVICES "/%s", pre, dec) >=
	    sizeof(path) || !realpath(path, real))
		return -ENOENT;
	/* the decoder's parent is its endpoint port */
	slash = strrchr(real, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	m->depth = depth_of(real);
	if ((size_t)snprintf(path, sizeof(path), "%s/uport", real) >= sizeof(path) ||
	    !realpath(path, port))
		return -ENOENT;
	slash = strrchr(port, '/');
	snprintf(m->name, sizeof(m->name), "%.*s", (int)sizeof(m->name) - 1,
		 slash ? slash + 1 : port);
	/* attributes are read below pre again: port is a resolved path under it */
	if (plen && strncmp(port, rpre, plen))
		return -EXDEV;
	read_id(m->firmware, sizeof(m->firmware), "", port, "firmware_version");
	slash = strrchr(port, '/');
	*slash = '\0';	/* the PCI function */
	read_id(m->pci_vendor, sizeof(m->pci_vendor), "", port, "vendor");
	read_id(m->pci_device, sizeof(m->pci_device), "", port, "device");
	read_id(m->pci_subsystem_vendor, sizeof(m->pci_subsystem_vendor), "", port,
		"subsystem_vendor");
	read_id(m->pci_subsystem_device, sizeof(m->pci_subsystem_device), "", port,
		"subsystem_device");
	read_id(m->pci_revision, sizeof(m->pci_revision), "", port, "revision");
	return 0;
}

int cxl_identity_of_nd_region(const char *pre, const char *nd_region, struct policy_cxl *out)
{
	char region[POLICY_NAME_MAX], path[PATH_MAX], real[PATH_MAX], dec[POLICY_NAME_MAX];
	uint64_t res;
	int rc;

	assert(pre && nd_region && out);
	memset(out, 0, sizeof(*out));
	if (read_u64(&res, "%s" ND_DEVICES "/%s/resource", pre, nd_region))
		return -ENOENT;
	rc = cxl_region_at(pre, res, region, sizeof(region));
	if (rc)
		return rc;
	snprintf(out->region, sizeof(out->region), "%s", region);
	out->interleave_ways = read_uint_or0("%s" CXL_DEVICES "/%s/interleave_ways", pre, region);
	out->interleave_granularity =
		read_uint_or0("%s" CXL_DEVICES "/%s/interleave_granularity", pre, region);
	/* the region's parent is the root decoder: its ways are the host bridges */
	if ((size_t)snprintf(path, sizeof(path), "%s" CXL_DEVICES "/%s/..", pre, region) <
	    sizeof(path) && realpath(path, real))
		out->host_bridges = read_uint_or0("%s%s/interleave_ways", "", real);
	for (unsigned i = 0; i < out->interleave_ways && i < POLICY_MAX_CXL_MEMDEVS; i++) {
		char tpath[PATH_MAX];

		if ((size_t)snprintf(tpath, sizeof(tpath), "%s" CXL_DEVICES "/%s/target%u", pre,
				     region, i) >= sizeof(tpath) ||
		    read_attr(tpath, dec, sizeof(dec)) || !*dec || strchr(dec, '/'))
			continue;
		if (!read_memdev(pre, dec, &out->memdevs[out->nmemdevs]))
			out->nmemdevs++;
	}
	out->present = true;
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int cxl_fingerprint_lines(const struct policy_cxl *c, char *buf, size_t len)
{
	char lines[POLICY_MAX_CXL_MEMDEVS][512], *sorted[POLICY_MAX_CXL_MEMDEVS];
	size_t n = 0, used;

	assert(c && buf && len);
	used = (size_t)snprintf(buf, len,
				"target.cxl.interleave_ways=%u\n"
				"target.cxl.interleave_granularity=%u\n"
				"target.cxl.host_bridges=%u\n", c->interleave_ways,
				c->interleave_granularity, c->host_bridges);
	if (used >= len)
		return -ENOSPC;
	/* a device a line, in sorted order: the devices' order is no property */
	for (size_t i = 0; i < c->nmemdevs && i < POLICY_MAX_CXL_MEMDEVS; i++) {
		const struct policy_cxl_memdev *m = &c->memdevs[i];

		snprintf(lines[n], sizeof(lines[n]),
			 "target.cxl.memdev=%s:%s subsystem %s:%s rev %s firmware %s depth %u\n",
			 m->pci_vendor, m->pci_device, m->pci_subsystem_vendor,
			 m->pci_subsystem_device, m->pci_revision, m->firmware, m->depth);
		sorted[n] = lines[n];
		n++;
	}
	qsort(sorted, n, sizeof(*sorted), cmp_line);
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(sorted[i]);

		if (used + l >= len)
			return -ENOSPC;
		memcpy(buf + used, sorted[i], l + 1);
		used += l;
	}
	return 0;
}
