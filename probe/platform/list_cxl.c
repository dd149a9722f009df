// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cxl/libcxl.h>
#include <json-c/json.h>

#include "common/sysfs_attr.h"
#include "platform/list_cxl.h"
#include "platform/list_json.h"

/* CXL memory devices on the PCI bus (class 0502xx), whatever drivers are loaded. */
static unsigned pci_cxl_devices(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	unsigned n = 0;

	while (d && (e = readdir(d))) {
		char cls[32];

		if (e->d_name[0] != '.' &&
		    !read_attrf(cls, sizeof(cls), "/sys/bus/pci/devices/%s/class", e->d_name) &&
		    !strncmp(cls, "0x0502", 6))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

/* The memdev's PCI function attribute (vendor, device), "" where unreadable. */
static void pci_attr(struct cxl_memdev *m, const char *attr, char *out, size_t len)
{
	const char *host = cxl_memdev_get_host(m);

	if (!host || read_attrf(out, len, "/sys/bus/pci/devices/%s/%s", host, attr))
		*out = '\0';
}

/* The libnvdimm region at the CXL region's address (cxl_pmem gives it that range). */
static bool nd_region_of(unsigned long long res, char *out, size_t len)
{
	DIR *d = opendir("/sys/bus/nd/devices");
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char buf[64];

		if (!strncmp(e->d_name, "region", 6) &&
		    !read_attrf(buf, sizeof(buf), "/sys/bus/nd/devices/%s/resource", e->d_name) &&
		    strtoull(buf, NULL, 0) == res) {
			snprintf(out, len, "%.*s", (int)len - 1, e->d_name);
			found = true;
		}
	}
	if (d)
		closedir(d);
	return found;
}

static const char *mode_name(enum cxl_decoder_mode m)
{
	switch (m) {
	case CXL_DECODER_MODE_PMEM:
		return "pmem";
	case CXL_DECODER_MODE_RAM:
		return "ram";
	case CXL_DECODER_MODE_MIXED:
		return "mixed";
	default:
		return "none";
	}
}

struct out {
	FILE *f;
	struct json_object *memdevs, *decoders, *regions;
	bool oom;
};

static void list_memdev(struct out *o, struct cxl_memdev *m)
{
	struct cxl_endpoint *ep = cxl_memdev_get_endpoint(m);
	struct cxl_port *port = ep ? cxl_endpoint_get_port(ep) : NULL;
	struct cxl_port *parent = port ? cxl_port_get_parent(port) : NULL;
	const char *fw = cxl_memdev_get_firmware_verison(m);
	char vendor[16], device[16];
	struct cxl_decoder *dec;

	pci_attr(m, "vendor", vendor, sizeof(vendor));
	pci_attr(m, "device", device, sizeof(device));
	if (o->f) {
		fprintf(o->f, "  %s: serial 0x%llx, firmware %s, PCI %s %s:%s, pmem %llu MiB, "
			"ram %llu MiB", cxl_memdev_get_devname(m), cxl_memdev_get_serial(m),
			fw ? fw : "unknown", cxl_memdev_get_host(m) ?: "?", vendor, device,
			cxl_memdev_get_pmem_size(m) >> 20, cxl_memdev_get_ram_size(m) >> 20);
		if (port)
			fprintf(o->f, ", %s below %s", cxl_port_get_devname(port),
				parent ? cxl_port_get_devname(parent) : "?");
		fputc('\n', o->f);
		return;
	}
	{
		struct json_object *j = json_object_new_object(), *decs = json_object_new_array();
		bool *oom = &o->oom;

		if (!j || !decs) {
			json_object_put(j);
			json_object_put(decs);
			o->oom = true;
			return;
		}
		jadd(oom, j, "memdev", json_object_new_string(cxl_memdev_get_devname(m)));
		jadd(oom, j, "pmem_size",
		     json_object_new_int64((int64_t)cxl_memdev_get_pmem_size(m)));
		jadd(oom, j, "ram_size",
		     json_object_new_int64((int64_t)cxl_memdev_get_ram_size(m)));
		jadd(oom, j, "serial", json_object_new_int64((int64_t)cxl_memdev_get_serial(m)));
		jadd(oom, j, "host", json_object_new_string(cxl_memdev_get_host(m) ?: ""));
		jadd(oom, j, "firmware_version", json_object_new_string(fw ? fw : ""));
		jadd(oom, j, "pci_vendor", json_object_new_string(vendor));
		jadd(oom, j, "pci_device", json_object_new_string(device));
		if (port) {
			jadd(oom, j, "endpoint",
			     json_object_new_string(cxl_port_get_devname(port)));
			jadd(oom, j, "depth", json_object_new_int(cxl_port_get_depth(port)));
			if (parent)
				jadd(oom, j, "port",
				     json_object_new_string(cxl_port_get_devname(parent)));
			cxl_decoder_foreach(port, dec)
				jpush(oom, decs,
				      json_object_new_string(cxl_decoder_get_devname(dec)));
		}
		jadd(oom, j, "decoders", decs);
		jpush(oom, o->memdevs, j);
	}
}

static void list_region(struct out *o, struct cxl_region *r)
{
	struct cxl_decoder *first = cxl_region_get_target_decoder(r, 0);
	struct cxl_memdev_mapping *map;
	char nd[64] = "";
	bool backs = nd_region_of(cxl_region_get_resource(r), nd, sizeof(nd));
	const char *type = first ? mode_name(cxl_decoder_get_mode(first)) : "none";

	if (o->f) {
		fprintf(o->f, "  %s: %s, %llu MiB, %u way%s at %u B, targets",
			cxl_region_get_devname(r), type, cxl_region_get_size(r) >> 20,
			cxl_region_get_interleave_ways(r),
			cxl_region_get_interleave_ways(r) == 1 ? "" : "s",
			cxl_region_get_interleave_granularity(r));
		cxl_mapping_foreach(r, map) {
			struct cxl_decoder *d = cxl_mapping_get_decoder(map);
			struct cxl_memdev *m = d ? cxl_decoder_get_memdev(d) : NULL;

			fprintf(o->f, " %s", m ? cxl_memdev_get_devname(m) : "?");
		}
		fprintf(o->f, "%s%s\n", backs ? "; backs libnvdimm " : "", nd);
		return;
	}
	{
		struct json_object *j = json_object_new_object(), *maps = json_object_new_array();
		bool *oom = &o->oom;

		if (!j || !maps) {
			json_object_put(j);
			json_object_put(maps);
			o->oom = true;
			return;
		}
		jadd(oom, j, "region", json_object_new_string(cxl_region_get_devname(r)));
		jadd(oom, j, "resource",
		     json_object_new_int64((int64_t)cxl_region_get_resource(r)));
		jadd(oom, j, "size", json_object_new_int64((int64_t)cxl_region_get_size(r)));
		jadd(oom, j, "type", json_object_new_string(type));
		jadd(oom, j, "interleave_ways",
		     json_object_new_int((int)cxl_region_get_interleave_ways(r)));
		jadd(oom, j, "interleave_granularity",
		     json_object_new_int((int)cxl_region_get_interleave_granularity(r)));
		cxl_mapping_foreach(r, map) {
			struct cxl_decoder *d = cxl_mapping_get_decoder(map);
			struct cxl_memdev *m = d ? cxl_decoder_get_memdev(d) : NULL;
			struct json_object *jm = json_object_new_object();

			if (!jm) {
				o->oom = true;
				continue;
			}
			jadd(oom, jm, "position",
			     json_object_new_int((int)cxl_mapping_get_position(map)));
			jadd(oom, jm, "memdev",
			     json_object_new_string(m ? cxl_memdev_get_devname(m) : ""));
			jadd(oom, jm, "decoder",
			     json_object_new_string(d ? cxl_decoder_get_devname(d) : ""));
			jpush(oom, maps, jm);
		}
		jadd(oom, j, "mappings", maps);
		if (backs)
			jadd(oom, j, "nd_region", json_object_new_string(nd));
		else
			jnull(oom, j, "nd_region");
		jpush(oom, o->regions, j);
	}
}

static void list_root_decoder(struct out *o, struct cxl_decoder *d)
{
	struct cxl_region *r;

	if (o->f) {
		fprintf(o->f, "  %s: %llu MiB window, %u way%s at %u B%s%s\n",
			cxl_decoder_get_devname(d), cxl_decoder_get_size(d) >> 20,
			cxl_decoder_get_interleave_ways(d),
			cxl_decoder_get_interleave_ways(d) == 1 ? "" : "s",
			cxl_decoder_get_interleave_granularity(d),
			cxl_decoder_is_pmem_capable(d) ? ", pmem" : "",
			cxl_decoder_is_volatile_capable(d) ? ", ram" : "");
	} else {
		struct json_object *j = json_object_new_object();
		bool *oom = &o->oom;

		if (!j) {
			o->oom = true;
			return;
		}
		jadd(oom, j, "decoder", json_object_new_string(cxl_decoder_get_devname(d)));
		jadd(oom, j, "resource",
		     json_object_new_int64((int64_t)cxl_decoder_get_resource(d)));
		jadd(oom, j, "size", json_object_new_int64((int64_t)cxl_decoder_get_size(d)));
		jadd(oom, j, "interleave_ways",
		     json_object_new_int((int)cxl_decoder_get_interleave_ways(d)));
		jadd(oom, j, "interleave_granularity",
		     json_object_new_int((int)cxl_decoder_get_interleave_granularity(d)));
		jadd(oom, j, "pmem_capable",
		     json_object_new_boolean(cxl_decoder_is_pmem_capable(d)));
		jadd(oom, j, "volatile_capable",
		     json_object_new_boolean(cxl_decoder_is_volatile_capable(d)));
		jpush(oom, o->decoders, j);
	}
	cxl_region_foreach(d, r)
		list_region(o, r);
}

int list_cxl(FILE *f, struct json_object *root)
{
	unsigned pci = pci_cxl_devices();
	struct out o = { .f = root ? NULL : f };
	struct cxl_ctx *ctx;
	struct cxl_memdev *m;
	struct cxl_bus *bus;
	bool any = false;
	int rc;

	if (!pci)
		return 0;	/* no CXL memory device: nothing more than before */
	rc = cxl_new(&ctx);
	if (!rc) {
		cxl_memdev_foreach(ctx, m)
			any = true;
	}
	if (rc || !any) {
		const char *why = "no CXL memdev: load cxl_acpi, cxl_pci, cxl_mem, cxl_pmem";

		if (root) {
			struct json_object *j = json_object_new_object();

			jadd(&o.oom, j, "pci_devices", json_object_new_int((int)pci));
			jadd(&o.oom, j, "problem", json_object_new_string(why));
			jadd(&o.oom, root, "cxl", j);
		} else {
			fprintf(f, "\nCXL: %u memory device%s on PCI (class 0502), %s\n", pci,
				pci == 1 ? "" : "s", why);
		}
		if (!rc)
			cxl_unref(ctx);
		return o.oom ? -ENOMEM : 0;
	}
	if (root) {
		o.memdevs = json_object_new_array();
		o.decoders = json_object_new_array();
		o.regions = json_object_new_array();
		if (!o.memdevs || !o.decoders || !o.regions)
			o.oom = true;
	} else {
		fprintf(f, "\nCXL memory devices (libcxl):\n");
	}
	cxl_memdev_foreach(ctx, m)
		list_memdev(&o, m);
	if (!root)
		fprintf(f, "CXL root decoders and regions:\n");
	cxl_bus_foreach(ctx, bus) {
		struct cxl_port *port = cxl_bus_get_port(bus);
		struct cxl_decoder *d;

		cxl_decoder_foreach(port, d)
			list_root_decoder(&o, d);
	}
	if (root) {
		struct json_object *j = json_object_new_object();

		jadd(&o.oom, j, "memdevs", o.memdevs);
		jadd(&o.oom, j, "root_decoders", o.decoders);
		jadd(&o.oom, j, "regions", o.regions);
		jadd(&o.oom, root, "cxl", j);
	}
	cxl_unref(ctx);
	return o.oom ? -ENOMEM : 0;
}
