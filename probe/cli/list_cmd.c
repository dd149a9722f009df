// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tune --list [--json]: what the probe would work with.  The CPU
 * features that decide which strategies exist, then persistent memory
 * as libndctl and libdaxctl see it (never sysfs by hand): buses,
 * regions with their DIMMs, namespaces, and dax regions, including the
 * ones only libdaxctl knows (hmem, CXL).  The JSON nests like
 * `ndctl list -BRDNu` and uses its key names where it has them.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <linux/ndctl.h>
#include <daxctl/libdaxctl.h>
#include <ndctl/libndctl.h>

#include "cli/commands.h"
#include "cli/json_out.h"
#include "measure/strategy.h"
#include "platform/cpu.h"
#include "platform/list_cxl.h"
#include "platform/list_json.h"
#include "platform/regions.h"
#include "platform/scratch.h"
#include "platform/topology.h"

/* One libndctl dax region, to tell which libdaxctl regions are NVDIMM-backed. */
struct nd_dax_link {
	char path[PATH_MAX];
	char region[POLICY_NAME_MAX];
};

struct list_ctx {
	struct cpu_info ci;
	uint64_t llc;
	struct nd_dax_link *links;
	size_t nlinks;
	unsigned nregions;
	bool oom;
	struct topology topo;	/* valid when have_topo */
	bool have_topo;
	struct topo_choice choice;	/* scratch for region_where() */
};

/*
 * Where --probe would time a region of these nodes: "from node 1, CPUs
 * 4-7 (local)" into buf; false when the host's topology is not known.
 */
static bool region_where(struct list_ctx *lc, const struct region_identity *id, char *cpus,
			 size_t len)
{
	if (!lc->have_topo ||
	    topo_choose(&lc->topo, topo_region_node(&lc->topo, id->numa_node, id->target_node),
			&lc->choice) ||
	    topo_format_cpulist(lc->choice.cpus, lc->choice.ncpus, cpus, len) < 0)
		return false;
	return true;
}

/* "1.00 GiB", "250.00 MiB", "4096" */
static void fmt_size(uint64_t b, char *buf, size_t len)
{
	if (b >= 2ull << 40)
		snprintf(buf, len, "%.2f TiB", (double)b / (double)(1ull << 40));
	else if (b >= 2ull << 30)
		snprintf(buf, len, "%.2f GiB", (double)b / (double)(1ull << 30));
	else if (b >= 1ull << 20)
		snprintf(buf, len, "%.2f MiB", (double)b / (double)(1ull << 20));
	else if (b >= 1ull << 10)
		snprintf(buf, len, "%.2f KiB", (double)b / (double)(1ull << 10));
	else
		snprintf(buf, len, "%" PRIu64, b);
}

/* json-c's adders with the allocation failure remembered, reported once. */
static void jstr(struct list_ctx *lc, struct json_object *o, const char *key, const char *s)
{
	jadd(&lc->oom, o, key, json_object_new_string(s ? s : ""));
}

static void jnum(struct list_ctx *lc, struct json_object *o, const char *key, int64_t v)
{
	jadd(&lc->oom, o, key, json_object_new_int64(v));
}

static void jbool(struct list_ctx *lc, struct json_object *o, const char *key, bool v)
{
	jadd(&lc->oom, o, key, json_object_new_boolean(v));
}

static struct json_object *jarr(struct list_ctx *lc, struct json_object *o, const char *key)
{
	struct json_object *a = json_object_new_array();
	bool failed = false;

	jadd(&failed, o, key, a);	/* a is freed when it could not be added */
	lc->oom |= failed;
	return failed ? NULL : a;
}

/* ---- CPU and strategies ---- */

static struct json_object *cpu_json(struct list_ctx *lc)
{
	struct json_object *o = json_object_new_object(), *feat, *masked;
	const struct cpu_info *ci = &lc->ci;

	if (!o)
		return NULL;
	jstr(lc, o, "vendor", ci->vendor);
	jstr(lc, o, "brand", ci->brand);
	jnum(lc, o, "family", ci->family);
	jnum(lc, o, "model", ci->model);
	jnum(lc, o, "stepping", ci->stepping);
	jnum(lc, o, "llc_bytes", (int64_t)ci->llc_bytes);
	jnum(lc, o, "cache_line_bytes", ci->cache_line_bytes);
	feat = jarr(lc, o, "features");
	masked = ci->masked ? jarr(lc, o, "masked") : NULL;
	for (int f = 0; f < CPU_NR_FEATURES; f++) {
		if (cpu_has(ci, f))
			jpush(&lc->oom, feat, json_object_new_string(cpu_feature_name(f)));
		if (masked && (ci->masked & CPU_BIT(f)))
			jpush(&lc->oom, masked, json_object_new_string(cpu_feature_name(f)));
	}
	return o;
}

static struct json_object *strategies_json(struct list_ctx *lc)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; a && i < strategy_count; i++)
		jpush(&lc->oom, a, strategy_json(&strategy_table[i], &lc->ci));
	return a;
}

static void cpu_print(struct list_ctx *lc)
{
	const struct cpu_info *ci = &lc->ci;

	printf("CPU: %s (%s family %u model %u stepping %u), LLC %" PRIu64 " KiB, "
	       "%u-byte lines\n", ci->brand[0] ? ci->brand : "?", ci->vendor, ci->family,
	       ci->model, ci->stepping, ci->llc_bytes >> 10, ci->cache_line_bytes);
	printf("  features:");
	for (int f = 0; f < CPU_NR_FEATURES; f++)
		if (cpu_has(ci, f))
			printf(" %s", cpu_feature_name(f));
	if (ci->masked) {
		printf("  (disabled by PMEM_TUNE_DISABLE:");
		for (int f = 0; f < CPU_NR_FEATURES; f++)
			if (ci->masked & CPU_BIT(f))
				printf(" %s", cpu_feature_name(f));
		printf(")");
	}
	printf("\n\nStrategies:\n");
	for (unsigned i = 0; i < strategy_count; i++) {
		const struct strategy *s = &strategy_table[i];
		const char *missing = NULL;
		bool ok = strategy_supported(s, ci, &missing);

		if (ok)
			printf("  %-15s %-12s %s\n", s->name, "supported", s->summary);
		else
			printf("  %-15s %-12s needs %s\n", s->name, "unsupported",
			       missing ? missing : "?");
	}
}

/* ---- namespaces ---- */

static struct json_object *namespace_json(struct list_ctx *lc, struct ndctl_namespace *ndns)
{
	struct json_object *o = json_object_new_object();
	enum ndctl_namespace_mode mode = ndctl_namespace_get_mode(ndns);
	struct ndctl_pfn *pfn = ndctl_namespace_get_pfn(ndns);
	struct ndctl_dax *dax = ndctl_namespace_get_dax(ndns);
	char uuid[REGION_UUID_STR_LEN], dev[64];
	const char *alt = ndctl_namespace_get_alt_name(ndns);
	unsigned long align = 0;
	int numa;

	if (!o)
		return NULL;
	jstr(lc, o, "dev", ndctl_namespace_get_devname(ndns));
	jstr(lc, o, "mode", namespace_mode_name(mode));
	if (dax || pfn) {
		enum ndctl_pfn_loc loc = dax ? ndctl_dax_get_location(dax) :
					 ndctl_pfn_get_location(pfn);

		jstr(lc, o, "map", loc == NDCTL_PFN_LOC_PMEM ? "dev" :
		     loc == NDCTL_PFN_LOC_RAM ? "mem" : "none");
		align = dax ? ndctl_dax_get_align(dax) : ndctl_pfn_get_align(pfn);
	}
	jnum(lc, o, "size", (int64_t)namespace_usable_size(ndns));
	jnum(lc, o, "raw_size", (int64_t)ndctl_namespace_get_size(ndns));
	namespace_display_uuid(ndns, uuid);
	if (uuid[0])
		jstr(lc, o, "uuid", uuid);
	namespace_label_uuid(ndns, uuid);
	if (uuid[0] && (dax || pfn))
		jstr(lc, o, "raw_uuid", uuid);
	if (align)
		jnum(lc, o, "align", (int64_t)align);
	namespace_device(ndns, dev, sizeof(dev));
	if (dev[0])
		jstr(lc, o, dax ? "chardev" : "blockdev", dev);
	if (alt && *alt)
		jstr(lc, o, "name", alt);
	/* is_enabled() is 0 for a namespace fsdax/devdax claimed: ask is_active() */
	jbool(lc, o, "active", ndctl_namespace_is_active(ndns));
	if (!ndctl_namespace_is_active(ndns))
		jstr(lc, o, "state", "disabled");
	numa = ndctl_namespace_get_numa_node(ndns);
	if (numa >= 0)
		jnum(lc, o, "numa_node", numa);
	if (alt && strcmp(alt, SCRATCH_ALT_NAME) == 0)
		jbool(lc, o, "scratch_name", true);
	return o;
}

static void namespace_print(struct ndctl_namespace *ndns)
{
	char uuid[REGION_UUID_STR_LEN], dev[64], size[32], path[80];
	const char *alt = ndctl_namespace_get_alt_name(ndns);

	namespace_display_uuid(ndns, uuid);
	namespace_device(ndns, dev, sizeof(dev));
	fmt_size(namespace_usable_size(ndns), size, sizeof(size));
	snprintf(path, sizeof(path), "%s%s", dev[0] ? "/dev/" : "", dev[0] ? dev : "-");
	printf("    %-14s %-7s %-11s %-13s %-8s %-18s %s\n", ndctl_namespace_get_devname(ndns),
	       namespace_mode_name(ndctl_namespace_get_mode(ndns)), size, path,
	       ndctl_namespace_is_active(ndns) ? "active" : "disabled",
	       alt && *alt ? alt : "-", uuid[0] ? uuid : "-");
}

/* ---- regions ---- */

static const char *labels_state(struct ndctl_region *region)
{
	if (!region_is_label_less(region))
		return "active";
	return region_dimms_have_labels(region) ? "uninitialized" : "none";
}

static void remember_dax_regions(struct list_ctx *lc, struct ndctl_region *region)
{
	struct ndctl_dax *dax;

	ndctl_dax_foreach(region, dax) {
		struct daxctl_region *dr;
		struct nd_dax_link *l;

		if (!ndctl_dax_is_enabled(dax))
			continue;
		dr = ndctl_dax_get_daxctl_region(dax);
		if (!dr || !daxctl_region_get_path(dr))
			continue;
		l = realloc(lc->links, (lc->nlinks + 1) * sizeof(*l));
		if (!l) {
			lc->oom = true;
			return;
		}
		lc->links = l;
		l = &l[lc->nlinks++];
		snprintf(l->path, sizeof(l->path), "%s", daxctl_region_get_path(dr));
		snprintf(l->region, sizeof(l->region), "%s", ndctl_region_get_devname(region));
	}
}

static struct json_object *region_json(struct list_ctx *lc, struct ndctl_region *region)
{
	struct json_object *o = json_object_new_object(), *maps, *nss, *sc;
	struct region_identity id;
	struct ndctl_mapping *mapping;
	struct ndctl_namespace *ndns;
	unsigned long long extent = ndctl_region_get_max_available_extent(region);
	unsigned long align = ndctl_region_get_align(region);
	const char *reason;
	char why[512], cpus[256];
	int target;

	if (!o)
		return NULL;
	region_identity_fill(region, &id);
	jstr(lc, o, "dev", ndctl_region_get_devname(region));
	jnum(lc, o, "size", (int64_t)ndctl_region_get_size(region));
	if (align && align != ULONG_MAX)
		jnum(lc, o, "align", (int64_t)align);
	jnum(lc, o, "available_size", (int64_t)ndctl_region_get_available_size(region));
	jnum(lc, o, "max_available_extent",
	     (int64_t)(extent == ULLONG_MAX ? region_free_extent(region) : extent));
	jstr(lc, o, "type", region_is_pmem(region) ? "pmem" : "blk");
	jstr(lc, o, "persistence_domain", id.persistence_domain);
	jnum(lc, o, "numa_node", id.numa_node);
	target = ndctl_region_get_target_node(region);
	if (target >= 0)
		jnum(lc, o, "target_node", target);
	if (region_where(lc, &id, cpus, sizeof(cpus))) {
		jstr(lc, o, "local_cpus", cpus);
		jnum(lc, o, "probe_from_node", lc->choice.from_node);
		jstr(lc, o, "probe_placement", topo_placement_name(lc->choice.how));
	}
	jnum(lc, o, "interleave_ways", id.interleave_ways);
	jbool(lc, o, "label_less", region_is_label_less(region));
	jstr(lc, o, "labels", labels_state(region));
	if (!ndctl_region_is_enabled(region))
		jstr(lc, o, "state", "disabled");
	if (ndctl_region_get_ro(region) > 0)
		jbool(lc, o, "read_only", true);

	maps = jarr(lc, o, "mappings");
	ndctl_mapping_foreach(region, mapping) {
		struct ndctl_dimm *dimm = ndctl_mapping_get_dimm(mapping);
		struct json_object *m = json_object_new_object();
		struct policy_dimm d;
		const char *uid;
		int pos;

		if (!m || !dimm) {
			if (m)
				json_object_put(m);
			continue;
		}
		region_dimm_identity(dimm, &d);
		jstr(lc, m, "dimm", d.name);
		jstr(lc, m, "vendor", d.vendor);
		jstr(lc, m, "device", d.device);
		jstr(lc, m, "firmware", d.firmware);
		uid = ndctl_dimm_get_unique_id(dimm);
		if (uid && *uid)
			jstr(lc, m, "id", uid);
		jnum(lc, m, "offset", (int64_t)ndctl_mapping_get_offset(mapping));
		jnum(lc, m, "length", (int64_t)ndctl_mapping_get_length(mapping));
		pos = ndctl_mapping_get_position(mapping);
		if (pos >= 0)
			jnum(lc, m, "position", pos);
		jpush(&lc->oom, maps, m);
	}

	nss = jarr(lc, o, "namespaces");
	ndctl_namespace_foreach(region, ndns)
		if (namespace_is_configured(ndns))
			jpush(&lc->oom, nss, namespace_json(lc, ndns));

	sc = json_object_new_object();
	reason = scratch_region_skip_reason(region, lc->llc, why, sizeof(why));
	if (sc) {
		jbool(lc, sc, "auto", !reason);
		if (reason)
			jstr(lc, sc, "reason", reason);
	}
	jadd(&lc->oom, o, "scratch", sc);
	return o;
}

static void region_print(struct list_ctx *lc, struct ndctl_region *region)
{
	char size[32], avail[32], ext[32], why[512], cpus[256];
	struct region_identity id;
	struct ndctl_namespace *ndns;
	const char *reason;
	bool any = false;

	region_identity_fill(region, &id);
	fmt_size(ndctl_region_get_size(region), size, sizeof(size));
	fmt_size(ndctl_region_get_available_size(region), avail, sizeof(avail));
	fmt_size(region_free_extent(region), ext, sizeof(ext));
	printf("  %-9s %s %s, %s available, largest free extent %s%s\n", id.region,
	       region_is_pmem(region) ? "pmem" : "blk", size, avail, ext,
	       ndctl_region_is_enabled(region) ? "" : " [disabled]");
	printf("            persistence domain %s, NUMA node %d, interleave ways %u, labels %s%s\n",
	       id.persistence_domain, id.numa_node, id.interleave_ways, labels_state(region),
	       region_is_label_less(region) ? " (label-less: cannot be subdivided)" : "");
	if (region_where(lc, &id, cpus, sizeof(cpus)) && lc->choice.how == TOPO_LOCAL)
		printf("            target node %d, local CPUs %s\n", lc->choice.target_node, cpus);
	else if (lc->have_topo && lc->choice.from_node >= 0)
		printf("            target node %d has no CPU here: probed from node %d, CPUs %s "
		       "(%s)\n", lc->choice.target_node, lc->choice.from_node, cpus,
		       topo_placement_name(lc->choice.how));
	for (size_t i = 0; i < id.ndimms; i++)
		printf("            dimm %-7s vendor %s device %s firmware %s\n", id.dimms[i].name,
		       id.dimms[i].vendor, id.dimms[i].device, id.dimms[i].firmware);
	reason = scratch_region_skip_reason(region, lc->llc, why, sizeof(why));
	printf("            --target auto: %s%s\n", reason ? "skipped: " : "scratch namespace here",
	       reason ? reason : "");
	ndctl_namespace_foreach(region, ndns) {
		if (!namespace_is_configured(ndns))
			continue;
		if (!any)
			printf("    %-14s %-7s %-11s %-13s %-8s %-18s %s\n", "NAMESPACE", "MODE",
			       "SIZE", "DEVICE", "STATE", "NAME", "UUID");
		any = true;
		namespace_print(ndns);
	}
	if (!any)
		printf("    no namespaces\n");
}

/* ---- libdaxctl ---- */

/* Where a dax region comes from: an NVDIMM region, hmem (EFI soft-reserved), CXL. */
static const char *dax_backing(struct list_ctx *lc, struct daxctl_region *dr, const char **nd)
{
	const char *path = daxctl_region_get_path(dr);

	*nd = NULL;
	if (!path)
		return "unknown";
	for (size_t i = 0; i < lc->nlinks; i++)
		if (strcmp(lc->links[i].path, path) == 0) {
			*nd = lc->links[i].region;
			return "nvdimm";
		}
	if (strstr(path, "/cxl") || strstr(path, "ACPI0017"))
		return "cxl";
	if (strstr(path, "hmem"))
		return "hmem";
	if (strstr(path, "/ndbus") || strstr(path, "ACPI0012"))
		return "nvdimm";
	return "other";
}

static struct json_object *dax_dev_json(struct list_ctx *lc, struct daxctl_dev *dev)
{
	struct json_object *o = json_object_new_object();
	struct daxctl_memory *mem = daxctl_dev_get_memory(dev);
	int node = daxctl_dev_get_target_node(dev);

	if (!o)
		return NULL;
	jstr(lc, o, "chardev", daxctl_dev_get_devname(dev));
	jnum(lc, o, "size", (int64_t)daxctl_dev_get_size(dev));
	if (node >= 0)
		jnum(lc, o, "target_node", node);
	if (daxctl_dev_get_align(dev))
		jnum(lc, o, "align", (int64_t)daxctl_dev_get_align(dev));
	jstr(lc, o, "mode", mem && daxctl_memory_is_online(mem) > 0 ? "system-ram" : "devdax");
	if (!daxctl_dev_is_enabled(dev))
		jstr(lc, o, "state", "disabled");
	return o;
}

static int dax_list(struct list_ctx *lc, struct json_object *jroot)
{
	struct json_object *arr = jroot ? jarr(lc, jroot, "dax_regions") : NULL;
	struct daxctl_region *dr;
	struct daxctl_ctx *dctx;
	unsigned n = 0;

	if (daxctl_new(&dctx))
		return -ENOMEM;
	daxctl_set_log_priority(dctx, 0);
	daxctl_region_foreach(dctx, dr) {
		const char *nd = NULL, *backing = dax_backing(lc, dr, &nd);
		unsigned long long avail = daxctl_region_get_available_size(dr);
		unsigned long long size = daxctl_region_get_size(dr);
		unsigned long align = daxctl_region_get_align(dr);
		struct daxctl_dev *dev;
		char s1[32];

		if (jroot) {
			struct json_object *o = json_object_new_object(), *devs;

			if (!o) {
				lc->oom = true;
				continue;
			}
			jnum(lc, o, "id", daxctl_region_get_id(dr));
			if (daxctl_region_get_devname(dr))
				jstr(lc, o, "dev", daxctl_region_get_devname(dr));
			if (size != ULLONG_MAX)
				jnum(lc, o, "size", (int64_t)size);
			if (avail && avail != ULLONG_MAX)
				jnum(lc, o, "available_size", (int64_t)avail);
			if (align && align != ULONG_MAX)
				jnum(lc, o, "align", (int64_t)align);
			jstr(lc, o, "backing", backing);
			if (nd)
				jstr(lc, o, "region", nd);
			if (daxctl_region_get_path(dr))
				jstr(lc, o, "path", daxctl_region_get_path(dr));
			devs = jarr(lc, o, "devices");
			daxctl_dev_foreach(dr, dev)
				if (daxctl_dev_get_size(dev))
					jpush(&lc->oom, devs, dax_dev_json(lc, dev));
			jpush(&lc->oom, arr, o);
		} else {
			if (!n++)
				printf("\nDAX regions (libdaxctl):\n");
			fmt_size(size == ULLONG_MAX ? 0 : size, s1, sizeof(s1));
			printf("  dax region %d  %s%s%s  %s\n", daxctl_region_get_id(dr), backing,
			       nd ? " " : "", nd ? nd : "", s1);
			daxctl_dev_foreach(dr, dev) {
				struct daxctl_memory *mem = daxctl_dev_get_memory(dev);

				if (!daxctl_dev_get_size(dev))
					continue;
				fmt_size(daxctl_dev_get_size(dev), s1, sizeof(s1));
				printf("    /dev/%-10s %-10s %-11s align %lu%s\n",
				       daxctl_dev_get_devname(dev),
				       mem && daxctl_memory_is_online(mem) > 0 ? "system-ram" :
				       "devdax", s1, daxctl_dev_get_align(dev),
				       daxctl_dev_is_enabled(dev) ? "" : " [disabled]");
			}
		}
	}
	daxctl_unref(dctx);
	if (!jroot && !n)
		printf("\nDAX regions (libdaxctl): none\n");
	return 0;
}

/* ---- scratch records of an unfinished probe ---- */

static void scratch_state_list(struct list_ctx *lc, struct json_object *jroot)
{
	struct scratch_record *recs = NULL;
	char path[PATH_MAX], err[256];
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", scratch_state_dir(), SCRATCH_STATE_FILE);
	if (scratch_state_load(path, &recs, &n, err, sizeof(err))) {
		if (!jroot)
			printf("\nScratch state %s: unreadable (%s)\n", path, err);
		return;
	}
	if (n && jroot) {
		struct json_object *a = jarr(lc, jroot, "scratch_records");

		for (size_t i = 0; i < n; i++) {
			struct json_object *o = json_object_new_object();

			if (!o)
				continue;
			jstr(lc, o, "uuid", recs[i].uuid);
			jstr(lc, o, "region", recs[i].region);
			jstr(lc, o, "namespace", recs[i].ns);
			jstr(lc, o, "mode", recs[i].mode);
			jnum(lc, o, "pid", recs[i].pid);
			jpush(&lc->oom, a, o);
		}
	} else if (n) {
		printf("\nScratch namespaces recorded in %s (a probe is running, or the next "
		       "one removes them):\n", path);
		for (size_t i = 0; i < n; i++)
			printf("  %s %s %s pid %ld uuid %s\n", recs[i].region, recs[i].ns,
			       recs[i].mode, recs[i].pid, recs[i].uuid);
	}
	free(recs);
}

/* ---- the command ---- */

static int nd_list(struct list_ctx *lc, struct json_object *jroot)
{
	struct json_object *jbuses = jroot ? jarr(lc, jroot, "buses") : NULL;
	struct ndctl_region *region;
	struct ndctl_ctx *ctx;
	struct ndctl_bus *bus;
	int rc = regions_ctx_new(&ctx);

	if (rc)
		return rc;
	if (!jroot)
		printf("\nPersistent memory (libndctl):\n");
	ndctl_bus_foreach(ctx, bus) {
		struct json_object *jbus = NULL, *jregions = NULL;

		if (jroot) {
			jbus = json_object_new_object();
			if (!jbus) {
				lc->oom = true;
				continue;
			}
			jstr(lc, jbus, "provider", ndctl_bus_get_provider(bus));
			jstr(lc, jbus, "dev", ndctl_bus_get_devname(bus));
			jregions = jarr(lc, jbus, "regions");
		} else {
			printf("bus %s (%s)\n", ndctl_bus_get_devname(bus),
			       ndctl_bus_get_provider(bus));
		}
		ndctl_region_foreach(bus, region) {
			lc->nregions++;
			remember_dax_regions(lc, region);
			if (jroot)
				jpush(&lc->oom, jregions, region_json(lc, region));
			else
				region_print(lc, region);
		}
		if (jbus)
			jpush(&lc->oom, jbuses, jbus);
	}
	ndctl_unref(ctx);
	if (!lc->nregions) {
		if (jroot)
			jstr(lc, jroot, "message", "no persistent-memory regions found");
		else
			printf("  no persistent-memory regions found: --target auto probes dram\n");
	}
	return 0;
}

int list_cmd(bool json)
{
	struct list_ctx lc = { 0 };
	struct json_object *root = NULL;
	int rc;

	rc = cpu_detect(&lc.ci);
	if (rc) {
		fprintf(stderr, "pmem-tune: --list: cannot identify the CPU: %s\n", strerror(-rc));
		return 1;
	}
	lc.llc = lc.ci.llc_bytes ? lc.ci.llc_bytes : 32ull << 20;
	lc.have_topo = topo_load("", NULL, &lc.topo) == 0;
	if (json) {
		root = json_object_new_object();
		if (!root) {
			fprintf(stderr, "pmem-tune: --list: out of memory\n");
			return 1;
		}
		jadd(&lc.oom, root, "cpu", cpu_json(&lc));
		jadd(&lc.oom, root, "strategies", strategies_json(&lc));
	} else {
		cpu_print(&lc);
	}
	rc = nd_list(&lc, root);
	if (rc)
		fprintf(stderr, "pmem-tune: --list: cannot initialise libndctl: %s\n",
			strerror(-rc));
	else
		rc = dax_list(&lc, root);
	if (!rc)
		rc = list_cxl(stdout, root);
	if (!rc)
		scratch_state_list(&lc, root);
	if (!rc && lc.oom)
		rc = -ENOMEM;
	if (json && !rc)
		json_out(stdout, root);
	if (root)
		json_object_put(root);
	free(lc.links);
	if (lc.have_topo)
		topo_free(&lc.topo);
	if (rc == -ENOMEM)
		fprintf(stderr, "pmem-tune: --list: out of memory\n");
	return rc ? 1 : 0;
}
