// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <string.h>

#include "bench/strategy_list.h"

unsigned bench_strategy_list(const char *prog, const char *list, struct cpu_info *ci,
			     const struct strategy **st, unsigned max)
{
	char names[256], *save = NULL;
	unsigned n = 0;

	if (cpu_detect(ci)) {
		fprintf(stderr, "%s: cannot identify the CPU\n", prog);
		return 0;
	}
	strategy_init(ci);
	snprintf(names, sizeof(names), "%s", list);
	for (char *name = strtok_r(names, ",", &save); name && n < max;
	     name = strtok_r(NULL, ",", &save)) {
		const struct strategy *s = strategy_find(name);
		const char *missing;

		if (s && strategy_supported(s, ci, &missing))
			st[n++] = s;
		else
			fprintf(stderr, "%s: %s: unknown or not supported, skipped\n", prog, name);
	}
	return n;
}
