// SPDX-License-Identifier: GPL-2.0-or-later
/* pmem-tune --strategies-list (text or JSON), and --strategies validation. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cli/commands.h"
#include "cli/json_out.h"
#include "measure/strategy.h"
#include "platform/cpu.h"

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

static void print_json(const struct cpu_info *ci)
{
	struct json_object *o = json_object_new_object(), *cpu = json_object_new_object();
	struct json_object *list = json_object_new_array();

	json_object_object_add(cpu, "vendor", json_object_new_string(ci->vendor));
	json_object_object_add(cpu, "brand", json_object_new_string(ci->brand));
	json_object_object_add(cpu, "family", json_object_new_int64(ci->family));
	json_object_object_add(cpu, "model", json_object_new_int64(ci->model));
	json_object_object_add(cpu, "stepping", json_object_new_int64(ci->stepping));
	json_object_object_add(cpu, "llc_bytes", json_object_new_int64((int64_t)ci->llc_bytes));
	json_object_object_add(o, "cpu", cpu);
	for (unsigned i = 0; i < strategy_count; i++)
		json_object_array_add(list, strategy_json(&strategy_table[i], ci));
	json_object_object_add(o, "strategies", list);
	json_out(stdout, o);
	json_object_put(o);
}

int strategies_cmd(bool json)
{
	struct cpu_info ci;

	if (cpu_detect(&ci)) {
		fprintf(stderr, "pmem-tune: cannot identify the CPU\n");
		return 1;
	}
	if (json) {
		print_json(&ci);
		return 0;
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
