// SPDX-License-Identifier: GPL-2.0-or-later
/* pmem-tune --show: a policy file for people, or as JSON. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/table.h"
#include "policy/environment.h"
#include "policy/policy.h"
#include "rule/export.h"
#include "rule/fleet.h"

/* A merged entry's hosts may have run several (environment.h). */
static void print_kernels(FILE *f, const struct policy *p)
{
	const char *v[4];
	size_t n = policy_env_probed(p, POLICY_ENV_KERNEL, v, 4);

	for (size_t i = 0; i < n && i < 4; i++)
		fprintf(f, "%s%s", i ? ", " : "", v[i]);
	if (n > 4)
		fprintf(f, " and %zu more", n - 4);
	if (!n)
		fprintf(f, "unknown");
}

static void show_entry(FILE *f, const char *path, const struct policy *p,
		       const struct table_style *st)
{
	fprintf(f, "policy %s\n  %s %s, %s mode, created %s\n", path, p->generator.name,
		p->generator.version, p->generator.mode, p->generator.created);
	if (p->merged.hosts)
		fprintf(f, "  merged from %u hosts, created %s .. %s\n", p->merged.hosts,
			p->merged.created_first, p->merged.created_last);
	fprintf(f, "platform %s family %u model %u stepping %u, kernel ", p->platform.cpu.vendor,
		p->platform.cpu.family, p->platform.cpu.model, p->platform.cpu.stepping);
	print_kernels(f, p);
	fprintf(f, "\n  fingerprint %s\n\n", p->platform.fingerprint);
	for (size_t i = 0; i < p->ntargets; i++) {
		table_print_target(f, &p->targets[i], st);
		table_print_unmeasured(f, p, &p->targets[i]);
	}
	export_print(f, p);
}

struct show_args {
	const char *path;
	const struct policy_bundle *b;
	const struct table_style *st;
};

static void show_bundle(FILE *f, const void *arg)
{
	const struct show_args *a = arg;

	for (size_t e = 0; e < a->b->n; e++) {
		if (e)
			fputc('\n', f);
		show_entry(f, a->path, a->b->entries[e], a->st);
	}
}

int show_cmd(const char *path, unsigned flags, bool json)
{
	struct table_style st = { .color = table_color(stdout), .all = flags & SHOW_ALL,
				  .width = table_width(stdout) };
	struct policy_bundle *b = policy_file_load(path, flags);
	char *text = NULL;
	int rc = 0;

	if (!b)
		return 2;
	if (json) {
		/* the file as the loader understood it: validated, canonical */
		text = policy_bundle_to_string(b);
		rc = text && puts(text) >= 0 ? 0 : 1;
		free(text);
		policy_bundle_free(b);
		return rc;
	}
	/* written whole, then fitted to the page: prose lines break, tables fit already */
	if (table_print_fitted(stdout, st.width, show_bundle,
			       &(struct show_args){ path, b, &st })) {
		perror("pmem-tune: --show");
		rc = 1;
	}
	free(text);
	policy_bundle_free(b);
	return rc;
}
