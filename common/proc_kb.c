// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdio.h>
#include <string.h>

#include "proc_kb.h"

uint64_t proc_kb(const char *path, const char *key)
{
	size_t klen = strlen(key);
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':' &&
		    sscanf(line + klen + 1, " %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}
