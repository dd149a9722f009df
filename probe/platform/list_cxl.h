/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CXL side of --list, through libcxl: memory devices (serial,
 * firmware, PCI ids, capacities, endpoint port and decoders), the root
 * decoders, and the regions with their interleave, targets and the
 * libnvdimm region each backs.  Key names are cxl list's where it has one.
 */
#ifndef PMEM_TUNE_LIST_CXL_H
#define PMEM_TUNE_LIST_CXL_H

#include <stdio.h>

struct json_object;

/*
 * Into root["cxl"] (json) or as text on f: nothing on a host without a
 * CXL memory device (PCI class 0502), one line on a host that has one but
 * no CXL driver bound.  Returns 0 or a negative errno (-ENOMEM).
 */
int list_cxl(FILE *f, struct json_object *root);

#endif
