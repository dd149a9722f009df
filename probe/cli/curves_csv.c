// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tune --plot FILE.csv: the curves as CSV (RFC 4180), one row per
 * strategy and size, for people who plot their own.  An unmeasured cell
 * has empty fields.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/plot.h"
#include "policy/policy.h"

static void field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void number(FILE *f, const double *v, size_t k)
{
	fputc(',', f);
	if (v && isfinite(v[k]))
		fprintf(f, "%.1f", v[k]);
}

static void rows(FILE *f, const struct policy *p, const struct policy_target *t,
		 const struct policy_op *op)
{
	for (size_t c = 0; c < op->ncurves; c++) {
		const struct policy_curve *cv = &op->curves[c];

		for (size_t k = 0; k < op->nsizes; k++) {
			field(f, p->platform.fingerprint);
			fputc(',', f);
			field(f, t->name);
			fputc(',', f);
			field(f, op->op);
			fputc(',', f);
			field(f, op->pattern);
			fprintf(f, ",%u,", op->threads);
			field(f, cv->strategy);
			fprintf(f, ",%d,%llu", cv->reference_only,
				(unsigned long long)op->sizes_bytes[k]);
			number(f, cv->median_mib_s, k);
			number(f, cv->p10_mib_s, k);
			number(f, cv->p90_mib_s, k);
			number(f, cv->ci_lo_mib_s, k);
			number(f, cv->ci_hi_mib_s, k);
			fputc(',', f);
			if (cv->samples && cv->samples[k])
				fprintf(f, "%u", cv->samples[k]);
			fputs("\r\n", f);
		}
	}
}

char *curves_csv(const struct policy_bundle *b, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	fputs("fingerprint,target,op,pattern,threads,strategy,reference_only,size_bytes,"
	      "median_mib_s,p10_mib_s,p90_mib_s,ci_lo_mib_s,ci_hi_mib_s,samples\r\n", f);
	for (size_t e = 0; e < b->n; e++) {
		const struct policy *p = b->entries[e];

		for (size_t t = 0; t < p->ntargets; t++)
			for (size_t o = 0; o < p->targets[t].nops; o++)
				rows(f, p, &p->targets[t], &p->targets[t].ops[o]);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}
