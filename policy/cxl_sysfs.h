/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What libnvdimm does not say of a region bridged from CXL (its nmem
 * reads vendor, device and firmware "unknown"), read from /sys/bus/cxl:
 * the CXL region behind it, its interleave, the host bridges the root
 * decoder interleaves, and each memory device's PCI ids, firmware and
 * depth.  Files only (no libcxl), so that the daemon and --check read
 * the same as the probe and tests run on fake sysfs trees.
 */
#ifndef PMEM_POLICY_CXL_SYSFS_H
#define PMEM_POLICY_CXL_SYSFS_H

#include "policy/policy.h"

/*
 * The CXL side of libnvdimm region nd_region (e.g. "region1") under
 * pre ("" for the live system, else a fake root): the CXL region whose
 * physical resource is the nd region's.  Returns 0 with out filled,
 * -ENOENT when the region is not a CXL region (or there is no CXL bus),
 * another negative errno on a read that failed.
 */
int cxl_identity_of_nd_region(const char *pre, const char *nd_region, struct policy_cxl *out);

/* One "key=value" line a property, in a fixed order: the fingerprint's text of c. */
int cxl_fingerprint_lines(const struct policy_cxl *c, char *buf, size_t len);

#endif
