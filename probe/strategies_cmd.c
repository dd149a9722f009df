// SPDX-License-Identifier: GPL-2.0-or-later
/* pmem-tune --strategies-list, and --strategies validation. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "cpu.h"
#include "strategy.h"

int strategies_validate(const char *list)
{
	char buf[512], *save = NULL;

	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf) || !buf[0])
		goto bad;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strategy_find(tok)) {
			fprintf(stderr, "pmem-tune: --strategies: unknown strategy '%s' "
				"(see --strategies-list)\n", tok);
			return -EINVAL;
		}
	return 0;
bad:
	fprintf(stderr, "pmem-tune: --strategies: expected a comma-separated list of names\n");
	return -EINVAL;
}

int strategies_cmd(void)
{
	struct cpu_info ci;

	if (cpu_detect(&ci)) {
		fprintf(stderr, "pmem-tune: cannot identify the CPU\n");
		return 1;
	}
	printf("CPU: %s (%s family %u model %u stepping %u), LLC %llu KiB\n", ci.brand,
	       ci.vendor, ci.family, ci.model, ci.stepping,
	       (unsigned long long)ci.llc_bytes >> 10);
	for (unsigned i = 0; i < strategy_count; i++) {
		const struct strategy *s = &strategy_table[i];
		const char *missing = NULL;
		bool ok = strategy_supported(s, &ci, &missing);

		printf("  %-15s %-13s %s%s\n", s->name,
		       ok ? "supported" : "unsupported", s->summary,
		       s->cpu_cache_domain_only ? " [persistent only with eADR]" : "");
		if (!ok)
			printf("  %-15s               needs %s\n", "", missing);
	}
	return 0;
}
