// SPDX-License-Identifier: GPL-2.0-or-later
/* pmem-tune --show: a policy file for people, or as JSON. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "export.h"
#include "fleet.h"
#include "policy.h"
#include "table.h"

int show_cmd(const char *path, unsigned flags, bool json)
{
	struct policy_bundle *b = policy_file_load(path, flags);
	bool color = table_color(stdout);

	if (!b)
		return 2;
	if (json) {
		/* the file as the loader understood it: validated, canonical */
		char *text = policy_bundle_to_string(b);
		int rc = text && puts(text) >= 0 ? 0 : 1;

		free(text);
		policy_bundle_free(b);
		return rc;
	}
	for (size_t e = 0; e < b->n; e++) {
		const struct policy *p = b->entries[e];

		printf("%spolicy %s: %s %s, %s mode, created %s", e ? "\n" : "", path,
		       p->generator.name, p->generator.version, p->generator.mode,
		       p->generator.created);
		if (p->merged.hosts)
			printf(", merged from %u hosts (%s .. %s)", p->merged.hosts,
			       p->merged.created_first, p->merged.created_last);
		printf("\nplatform %s: %s family %u model %u stepping %u, kernel %s\n\n",
		       p->platform.fingerprint, p->platform.cpu.vendor, p->platform.cpu.family,
		       p->platform.cpu.model, p->platform.cpu.stepping, p->platform.kernel);
		for (size_t i = 0; i < p->ntargets; i++) {
			table_print_target(stdout, &p->targets[i], color);
			table_print_unmeasured(stdout, p, &p->targets[i]);
		}
		export_print(stdout, p);
	}
	policy_bundle_free(b);
	return 0;
}
