/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The e2e CXL guest's sysfs as a fake tree, for the unit tests that read
 * CXL (test_cxl: the fingerprint, by path; test_list_cxl: --list through
 * libcxl, in a user namespace).  Recorded from the guest of
 * tests/e2e/cxl-test.sh (qemu cxl-type3 behind pxb-cxl and cxl-rp,
 * kernel 6.1) after `cxl create-region -m -d decoder0.0 -w 1 -g 256 mem0
 * -t pmem`: root0 > port1 (host bridge ACPI0016:00, dport 0000:0c:00.0) >
 * endpoint2 (mem0 at 0000:0d:00.0), root decoder decoder0.0 (4 GiB window
 * at 0x310000000) holding region1 (256 MiB, target decoder2.0), and
 * libnvdimm's region1 on ndbus1 at the same address beside the NVDIMM's
 * region0.  Only what the project's code or libcxl reads is written;
 * device nodes are plain files (stat() is all libcxl asks of them).
 */
#ifndef PT_CXL_TREE_H
#define PT_CXL_TREE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "put_file.h"

/* What tells one guest's device from another's ("\n"-terminated, as sysfs reads) */
struct cxl_tree_dev {
	const char *pci_device, *firmware, *serial, *memdev;
	unsigned ways_root;	/* the root decoder's interleave ways (host bridges) */
};

/* The e2e guest's device (--cxl-sn 1) */
static const struct cxl_tree_dev cxl_tree_guest = {
	"0x0d93\n", "BWFW VERSION 00\n", "0x1\n", "mem0", 1
};

/* root/dir/attr with content */
static inline void cxl_tree_attr(const char *root, const char *dir, const char *attr,
				 const char *content)
{
	char rel[1024];

	if ((size_t)snprintf(rel, sizeof(rel), "%s/%s", dir, attr) >= sizeof(rel))
		abort();
	put_file(root, rel, content);
}

/*
 * The guest's tree under r: /proc, the NVDIMM's region0 and, with cxl,
 * the CXL topology, region1 on both buses, /dev/cxl and the PCI function.
 */
static inline void cxl_tree_build(const char *r, const struct cxl_tree_dev *d, bool cxl)
{
	const char *pci = "sys/devices/pci0000:0c/0000:0c:00.0/0000:0d:00.0";
	const char *root0 = "sys/devices/platform/ACPI0017:00/root0";
	const char *port1 = "sys/devices/platform/ACPI0017:00/root0/port1";
	const char *ep2 = "sys/devices/platform/ACPI0017:00/root0/port1/endpoint2";
	char buf[1024], mem[512];

	put_file(r, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
		 "model\t\t: 143\nstepping\t: 8\nflags\t\t: sse2 clwb\n\n");
	put_file(r, "proc/sys/kernel/osrelease", "6.1.0-57-cloud-amd64\n");
	/* the NVDIMM's region: no CXL side */
	put_file(r, "sys/bus/nd/devices/region0/uevent", "DEVTYPE=nd_pmem\n");
	put_file(r, "sys/bus/nd/devices/region0/mappings", "1\n");
	put_file(r, "sys/bus/nd/devices/region0/mapping0", "nmem0,0,1073610752,0\n");
	put_file(r, "sys/bus/nd/devices/region0/persistence_domain", "memory_controller\n");
	put_file(r, "sys/bus/nd/devices/region0/resource", "0x100000000\n");
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/vendor", "0x8086\n");
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/device", "0x0001\n");
	put_file(r, "sys/bus/nd/devices/nmem0/nfit/rev_id", "0x0001\n");
	if (!cxl)
		return;
	/* libnvdimm's side of the CXL region: its nmem knows nothing */
	put_file(r, "sys/bus/nd/devices/region1/uevent", "DEVTYPE=nd_pmem\n");
	put_file(r, "sys/bus/nd/devices/region1/mappings", "1\n");
	put_file(r, "sys/bus/nd/devices/region1/mapping0", "nmem1,0,268435456,0\n");
	put_file(r, "sys/bus/nd/devices/region1/persistence_domain", "memory_controller\n");
	put_file(r, "sys/bus/nd/devices/region1/resource", "0x310000000\n");
	put_file(r, "sys/bus/nd/devices/nmem1/devtype", "nvdimm\n");

	/* the CXL root (ACPI0017) and its decoder: the fixed memory window */
	put_file(r, "sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0016:00/.keep", "");
	cxl_tree_attr(r, root0, "devtype", "cxl_port\n");
	put_link(r, "sys/devices/platform/ACPI0017:00/root0/uport", "../../ACPI0017:00");
	put_link(r, "sys/devices/platform/ACPI0017:00/root0/dport12",
		 "../../../LNXSYSTM:00/LNXSYBUS:00/ACPI0016:00");
	snprintf(buf, sizeof(buf), "%s/decoder0.0", root0);
	cxl_tree_attr(r, buf, "devtype", "cxl_decoder_root\n");
	cxl_tree_attr(r, buf, "cap_pmem", "1\n");
	cxl_tree_attr(r, buf, "cap_ram", "1\n");
	cxl_tree_attr(r, buf, "cap_type2", "1\n");
	cxl_tree_attr(r, buf, "cap_type3", "1\n");
	cxl_tree_attr(r, buf, "locked", "0\n");
	cxl_tree_attr(r, buf, "start", "0x310000000\n");
	cxl_tree_attr(r, buf, "size", "0x100000000\n");
	cxl_tree_attr(r, buf, "interleave_ways", d->ways_root == 2 ? "2\n" : "1\n");
	cxl_tree_attr(r, buf, "interleave_granularity", "256\n");
	cxl_tree_attr(r, buf, "target_list", "12\n");	/* the guest's one host bridge */
	/* the region the test made, below its root decoder */
	snprintf(buf, sizeof(buf), "%s/decoder0.0/region1", root0);
	cxl_tree_attr(r, buf, "devtype", "cxl_region\n");
	cxl_tree_attr(r, buf, "uuid", "ea226488-331a-4dab-95fa-ef1efef65c94\n");
	cxl_tree_attr(r, buf, "commit", "1\n");
	cxl_tree_attr(r, buf, "resource", "0x310000000\n");
	cxl_tree_attr(r, buf, "size", "0x10000000\n");
	cxl_tree_attr(r, buf, "interleave_ways", "1\n");
	cxl_tree_attr(r, buf, "interleave_granularity", "256\n");
	cxl_tree_attr(r, buf, "target0", "decoder2.0\n");
	put_link(r, "sys/devices/platform/ACPI0017:00/root0/decoder0.0/region1/driver",
		 "../../../../../../bus/cxl/drivers/cxl_region");

	/* the host bridge's port and its decoder */
	cxl_tree_attr(r, port1, "devtype", "cxl_port\n");
	put_link(r, "sys/devices/platform/ACPI0017:00/root0/port1/uport",
		 "../../../../LNXSYSTM:00/LNXSYBUS:00/ACPI0016:00");
	put_link(r, "sys/devices/platform/ACPI0017:00/root0/port1/dport0",
		 "../../../../pci0000:0c/0000:0c:00.0");
	put_link(r, "sys/devices/platform/ACPI0017:00/root0/port1/driver",
		 "../../../../../bus/cxl/drivers/cxl_port");
	snprintf(buf, sizeof(buf), "%s/decoder1.0", port1);
	cxl_tree_attr(r, buf, "devtype", "cxl_decoder_switch\n");
	cxl_tree_attr(r, buf, "locked", "0\n");
	cxl_tree_attr(r, buf, "start", "0x310000000\n");
	cxl_tree_attr(r, buf, "size", "0x10000000\n");
	cxl_tree_attr(r, buf, "interleave_ways", "1\n");
	cxl_tree_attr(r, buf, "interleave_granularity", "256\n");
	cxl_tree_attr(r, buf, "target_list", "0\n");
	cxl_tree_attr(r, buf, "target_type", "expander\n");
	cxl_tree_attr(r, buf, "region", "region1\n");

	/* the memory device's endpoint port and its decoder */
	cxl_tree_attr(r, ep2, "devtype", "cxl_port\n");
	snprintf(buf, sizeof(buf), "../../../../../pci0000:0c/0000:0c:00.0/0000:0d:00.0/%s",
		 d->memdev);
	put_link(r, "sys/devices/platform/ACPI0017:00/root0/port1/endpoint2/uport", buf);
	put_link(r, "sys/devices/platform/ACPI0017:00/root0/port1/endpoint2/driver",
		 "../../../../../../bus/cxl/drivers/cxl_port");
	snprintf(buf, sizeof(buf), "%s/decoder2.0", ep2);
	cxl_tree_attr(r, buf, "devtype", "cxl_decoder_endpoint\n");
	cxl_tree_attr(r, buf, "locked", "0\n");
	cxl_tree_attr(r, buf, "start", "0x310000000\n");
	cxl_tree_attr(r, buf, "size", "0x10000000\n");
	cxl_tree_attr(r, buf, "dpa_resource", "0x0\n");
	cxl_tree_attr(r, buf, "dpa_size", "0x0000000010000000\n");
	cxl_tree_attr(r, buf, "mode", "pmem\n");
	cxl_tree_attr(r, buf, "interleave_ways", "1\n");
	cxl_tree_attr(r, buf, "interleave_granularity", "256\n");
	cxl_tree_attr(r, buf, "target_type", "expander\n");
	cxl_tree_attr(r, buf, "region", "region1\n");

	/* the PCI function (class 0502: CXL memory device) and its memdev */
	cxl_tree_attr(r, "sys/devices/pci0000:0c/0000:0c:00.0", "class", "0x060400\n");
	cxl_tree_attr(r, pci, "class", "0x050210\n");
	cxl_tree_attr(r, pci, "vendor", "0x8086\n");
	cxl_tree_attr(r, pci, "device", d->pci_device);
	cxl_tree_attr(r, pci, "subsystem_vendor", "0x1af4\n");
	cxl_tree_attr(r, pci, "subsystem_device", "0x1100\n");
	cxl_tree_attr(r, pci, "revision", "0x01\n");
	snprintf(mem, sizeof(mem), "%s/%s", pci, d->memdev);
	cxl_tree_attr(r, mem, "dev", "248:0\n");
	cxl_tree_attr(r, mem, "firmware_version", d->firmware);
	cxl_tree_attr(r, mem, "serial", d->serial);
	cxl_tree_attr(r, mem, "numa_node", "-1\n");
	cxl_tree_attr(r, mem, "payload_max", "2048\n");
	cxl_tree_attr(r, mem, "label_storage_size", "268435456\n");
	cxl_tree_attr(r, mem, "pmem/size", "0x10000000\n");
	cxl_tree_attr(r, mem, "ram/size", "0x0\n");
	snprintf(buf, sizeof(buf), "%s/driver", mem);
	put_link(r, buf, "../../../../../bus/cxl/drivers/cxl_mem");
	snprintf(buf, sizeof(buf), "dev/cxl/%s", d->memdev);
	put_file(r, buf, "");

	/* the buses' device lists */
	put_file(r, "sys/bus/cxl/drivers/cxl_mem/.keep", "");
	put_file(r, "sys/bus/cxl/devices/.keep", "");
	put_link(r, "sys/bus/cxl/devices/root0", "../../../devices/platform/ACPI0017:00/root0");
	put_link(r, "sys/bus/cxl/devices/port1",
		 "../../../devices/platform/ACPI0017:00/root0/port1");
	put_link(r, "sys/bus/cxl/devices/endpoint2",
		 "../../../devices/platform/ACPI0017:00/root0/port1/endpoint2");
	put_link(r, "sys/bus/cxl/devices/decoder0.0",
		 "../../../devices/platform/ACPI0017:00/root0/decoder0.0");
	put_link(r, "sys/bus/cxl/devices/decoder1.0",
		 "../../../devices/platform/ACPI0017:00/root0/port1/decoder1.0");
	put_link(r, "sys/bus/cxl/devices/decoder2.0",
		 "../../../devices/platform/ACPI0017:00/root0/port1/endpoint2/decoder2.0");
	put_link(r, "sys/bus/cxl/devices/region1",
		 "../../../devices/platform/ACPI0017:00/root0/decoder0.0/region1");
	snprintf(buf, sizeof(buf), "../../../devices/pci0000:0c/0000:0c:00.0/0000:0d:00.0/%s",
		 d->memdev);
	snprintf(mem, sizeof(mem), "sys/bus/cxl/devices/%s", d->memdev);
	put_link(r, mem, buf);
	put_file(r, "sys/bus/pci/devices/.keep", "");
	put_link(r, "sys/bus/pci/devices/0000:0c:00.0", "../../../devices/pci0000:0c/0000:0c:00.0");
	put_link(r, "sys/bus/pci/devices/0000:0d:00.0",
		 "../../../devices/pci0000:0c/0000:0c:00.0/0000:0d:00.0");
}

#endif
