// SPDX-License-Identifier: GPL-2.0-or-later
/* Loads libpmem (its constructor reads PMEM_*) and reports its version check. */
#include <libpmem.h>
#include <stdio.h>

int main(void)
{
	const char *e = pmem_check_version(PMEM_MAJOR_VERSION, PMEM_MINOR_VERSION);

	printf("libpmem %s\n", e ? e : "loaded");
	return e ? 1 : 0;
}
