/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libnvdimm regions as sysfs shows them (/sys/bus/nd/devices/regionN),
 * NVDIMM and CXL alike: cxl_pmem registers its regions on an nvdimm bus
 * of its own (provider "CXL"), beside the NFIT's.
 */
#ifndef PT_COMMON_ND_REGION_H
#define PT_COMMON_ND_REGION_H

#include <stdbool.h>

struct dirent;

/* Below a sysfs root: where the regions are listed. */
#define ND_DEVICES_DIR		"/sys/bus/nd/devices"

/* scandir(3) filter: "regionN" entries. */
int nd_region_filter(const struct dirent *d);

/*
 * Whether the region directory dir holds persistent memory: DEVTYPE
 * nd_pmem in its uevent (nd_blk and nd_volatile regions are not).
 * Without a uevent, as in a hand-built tree, anything but a region of
 * BLK namespaces counts.
 */
bool nd_region_is_pmem(const char *dir);

#endif
