// SPDX-License-Identifier: GPL-2.0-or-later
/* The terminal table: sizes as rows, strategies as columns in MiB/s. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu.h"
#include "crossover.h"
#include "strategy.h"
#include "table.h"

#define BOLD "\033[1m"
#define GREEN "\033[32m"
#define DIM "\033[2m"
#define RESET "\033[0m"

bool table_terminal(FILE *f)
{
	const char *term = getenv("TERM");

	return isatty(fileno(f)) && term && *term && strcmp(term, "dumb");
}

bool table_color(FILE *f)
{
	const char *no = getenv("NO_COLOR");

	return table_terminal(f) && !(no && *no);
}

/* bytes in the largest unit that divides it: unit[0] bytes, [1] KiB, [2] MiB */
static void format_size(uint64_t bytes, const char *const unit[3], char *buf, size_t len)
{
	if (bytes == POLICY_SIZE_OPEN)
		snprintf(buf, len, "inf");
	else if (bytes >= (1u << 20) && !(bytes % (1u << 20)))
		snprintf(buf, len, "%" PRIu64 "%s", bytes >> 20, unit[2]);
	else if (bytes >= 1024 && !(bytes % 1024))
		snprintf(buf, len, "%" PRIu64 "%s", bytes >> 10, unit[1]);
	else
		snprintf(buf, len, "%" PRIu64 "%s", bytes, unit[0]);
}

void table_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[3] = { "", "K", "M" };

	format_size(bytes, unit, buf, len);
}

const char *table_format_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[3] = { " B", " KiB", " MiB" };

	format_size(bytes, unit, buf, len);
	return buf;
}

/*
 * Column header: the column is 9 wide and names are longer
 * (movnt_avx2, movnt_avx512), so a long name breaks at its last '_'
 * over two lines: "movnt" above "avx512".
 */
static void print_header(FILE *f, const struct policy_op *op)
{
	bool two = false;

	for (size_t i = 0; i < op->ncurves; i++)
		two |= strlen(op->curves[i].strategy) > 9;
	for (int line = two ? 0 : 1; line < 2; line++) {
		fprintf(f, "%8s", line ? "size" : "");
		for (size_t i = 0; i < op->ncurves; i++) {
			const char *name = op->curves[i].strategy, *us = strrchr(name, '_');
			bool split = strlen(name) > 9 && us;

			if (!line)
				fprintf(f, " %9.*s", split ? (int)(us - name) : 0, name);
			else
				fprintf(f, " %9.9s", split ? us + 1 : name);
		}
		fprintf(f, "%s\n", line ? "  best" : "");
	}
}

/* Is any cell of size s measured, and is any unmeasurable (threads never together)? */
static bool size_measured(const struct policy_op *op, size_t s, bool *unmeasurable)
{
	bool any = false;

	*unmeasurable = false;
	for (size_t i = 0; i < op->ncurves; i++) {
		any |= !isnan(op->curves[i].median_mib_s[s]);
		*unmeasurable |= op->curves[i].cell_flags &&
				 (op->curves[i].cell_flags[s] & POLICY_CELL_UNMEASURABLE);
	}
	return any;
}

static void print_op(FILE *f, const struct policy_op *op, bool color)
{
	struct crossover_cell cells[op->nsizes ? op->nsizes : 1];
	size_t first_unmeasurable = SIZE_MAX, blank = 0;
	char sz[32];

	fprintf(f, "\n%s%s %s, %u thread%s%s (MiB/s, median; * best, ~ tie)", color ? BOLD : "",
		op->op, op->pattern, op->threads, op->threads == 1 ? "" : "s", color ? RESET : "");
	if (!isnan(op->ceiling_mib_s))
		fprintf(f, ", ceiling %.0f", op->ceiling_mib_s);
	fputc('\n', f);
	print_header(f, op);
	crossover_cells(op, cells);
	for (size_t s = 0; s < op->nsizes; s++) {
		const char *best = cells[s].winner >= 0 ? op->curves[cells[s].winner].strategy : "-";
		bool unmeasurable, any = size_measured(op, s, &unmeasurable);

		if (unmeasurable && first_unmeasurable == SIZE_MAX)
			first_unmeasurable = s;
		if (!any) {	/* a row of dots says nothing: counted below */
			blank++;
			continue;
		}
		table_format_size(op->sizes_bytes[s], sz, sizeof(sz));
		fprintf(f, "%8s", sz);
		for (size_t i = 0; i < op->ncurves; i++) {
			double v = op->curves[i].median_mib_s[s];
			bool win = cells[s].winner == (int)i;
			char mark = win ? (cells[s].tie ? '~' : '*') : ' ';

			if (isnan(v))
				fprintf(f, " %9s", color ? DIM "        ." RESET : "        .");
			else if (win && color)
				fprintf(f, " " GREEN BOLD "%8.0f%c" RESET, v, mark);
			else
				fprintf(f, " %8.0f%c", v, mark);
		}
		fprintf(f, "  %s\n", best);
	}
	if (blank)
		fprintf(f, "  %zu of %zu sizes: nothing measured\n", blank, op->nsizes);
	if (first_unmeasurable != SIZE_MAX)
		fprintf(f, "  no decision: at %s the threads did not run together (unmeasurable)\n",
			table_format_bytes(op->sizes_bytes[first_unmeasurable], sz, sizeof(sz)));
	for (size_t i = 0; i < op->ncurves; i++)
		if (op->curves[i].reference_only)
			fprintf(f, "  %s: measured for reference only, not persistent here\n",
				op->curves[i].strategy);
	for (size_t i = 0; i < op->ncrossovers; i++) {
		const struct policy_crossover *x = &op->crossovers[i];

		table_format_size(x->size_bytes, sz, sizeof(sz));
		fprintf(f, "  crossover at %s: %s below, %s from there (confidence %.2f)\n", sz,
			x->below, x->above, x->confidence);
	}
	if (!op->ncrossovers && op->nranges == 1)
		fprintf(f, "  no crossover: %s at every size%s\n", op->ranges[0].strategy,
			op->ranges[0].tie ? " (by the tie rule)" : "");
}

/* Where the threads ran, from the policy's placement fields (absent in older policies). */
static void print_placement(FILE *f, const struct policy_target *t)
{
	if (!t->placement[0])
		return;
	fprintf(f, "  probed from node %d (%s), %zu CPU%s:", t->probed_from_node, t->placement,
		t->ncpus_used, t->ncpus_used == 1 ? "" : "s");
	for (size_t i = 0; i < t->ncpus_used; i++)
		fprintf(f, "%s%d", i ? "," : " ", t->cpus_used[i]);
	if (t->target_node >= 0)
		fprintf(f, "; target node %d", t->target_node);
	if (t->memory_bound >= 0)
		fprintf(f, "; buffers %sbound to the node", t->memory_bound ? "" : "not ");
	fputc('\n', f);
}

/* Bandwidth against threads per family, and where it stops growing. */
static void print_saturation(FILE *f, const struct policy_target *t)
{
	for (int fam = 0; fam < POLICY_NR_FAMILIES; fam++) {
		const struct policy_saturation *s = &t->saturation[fam];
		char sz[16];

		if (!s->present)
			continue;
		table_format_size(s->size_bytes, sz, sizeof(sz));
		fprintf(f, "  threads, %s (%s%s%s):", policy_family_name(fam), s->strategy,
			s->strategy[0] ? " " : "", sz);
		for (size_t i = 0; i < s->nsteps; i++)
			fprintf(f, " %ut %.0f%s", s->threads[i], s->mib_s[i],
				i + 1 < s->nsteps ? "," : "");
		fprintf(f, " MiB/s; saturates at %u thread%s\n", s->saturates_at,
			s->saturates_at == 1 ? "" : "s");
	}
}

static void print_remote(FILE *f, const struct policy_target *t)
{
	const struct policy_remote *r = &t->remote_penalty;

	if (!r->present)
		return;
	fprintf(f, "  remote penalty from node %d (distance %d): local/remote %.2f", r->from_node,
		r->distance, r->ratio);
	for (size_t i = 0; i < r->ncells; i++) {
		char sz[16];

		table_format_size(r->cells[i].size_bytes, sz, sizeof(sz));
		fprintf(f, "%s %s %s %.0f/%.0f", i ? "," : ";", r->cells[i].strategy, sz,
			r->cells[i].local_mib_s, r->cells[i].remote_mib_s);
	}
	fputs(" MiB/s\n", f);
}

void table_print_target(FILE *f, const struct policy_target *t, bool color)
{
	fprintf(f, "%starget %s%s: kind %s, %s%s%s, persistence domain %s, area %" PRIu64 " MiB",
		color ? BOLD : "", t->name, color ? RESET : "", t->kind,
		t->device[0] ? t->device : "", t->device[0] ? ", " : "", t->mapping,
		t->persistence_domain, t->area_bytes >> 20);
	if (!isnan(t->ceiling_mib_s))
		fprintf(f, ", ceiling %.0f MiB/s", t->ceiling_mib_s);
	fputc('\n', f);
	print_placement(f, t);
	print_saturation(f, t);
	print_remote(f, t);
	for (size_t o = 0; o < t->nops; o++)
		print_op(f, &t->ops[o], color);
}

void table_print_unmeasured(FILE *f, const struct policy *p, const struct policy_target *t)
{
	const struct policy_cpu *cpu = &p->platform.cpu;
	bool any = false;

	for (unsigned i = 0; i < strategy_count; i++) {
		const struct strategy *s = &strategy_table[i];
		const char *lacks = NULL;

		if (policy_target_has_curve(t, s->name))
			continue;
		for (int b = 0; b < CPU_NR_FEATURES && !lacks; b++)
			if ((s->needs & CPU_BIT(b)) &&
			    !policy_cpu_has_feature(cpu, cpu_feature_name(b)))
				lacks = cpu_feature_name(b);
		fprintf(f, "%s %s (%s%s)", any ? "," : "  not measured:", s->name,
			lacks ? "this CPU lacks " : "not requested", lacks ? lacks : "");
		any = true;
	}
	if (any)
		fputc('\n', f);
}
