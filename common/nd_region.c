// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd_region.h"
#include "parse.h"
#include "read_file.h"
#include "sysfs_attr.h"
#include "text.h"

/* include/uapi/linux/ndctl.h: a region whose nstype is this holds BLK namespaces */
#define ND_DEVICE_NAMESPACE_BLK	6

int nd_region_filter(const struct dirent *d)
{
	return strncmp(d->d_name, "region", 6) == 0 && isdigit((unsigned char)d->d_name[6]);
}

/* The device_type names are drivers/nvdimm/region_devs.c's. */
bool nd_region_is_pmem(const char *dir)
{
	char buf[64], path[PATH_MAX], *text, *cur, *l;
	uint64_t nstype;

	if ((size_t)snprintf(path, sizeof(path), "%s/uevent", dir) < sizeof(path) &&
	    read_file(path, 0, 4096, &text, NULL) == 0) {
		int found = -1;

		for (cur = text; found < 0 && (l = next_line(&cur)); )
			if (startswith(l, "DEVTYPE="))
				found = strcmp(strtrim(l + 8), "nd_pmem") == 0;
		free(text);
		if (found >= 0)
			return found;
	}
	if (read_attrf(buf, sizeof(buf), "%s/nstype", dir) == 0 &&
	    parse_u64_dec(buf, &nstype) == 0 && nstype == ND_DEVICE_NAMESPACE_BLK)
		return false;
	return true;
}
