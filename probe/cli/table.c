// SPDX-License-Identifier: GPL-2.0-or-later
/* The terminal table: sizes as rows; families (or every strategy) as columns in MiB/s. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/table.h"
#include "measure/strategy.h"
#include "platform/cpu.h"
#include "rule/crossover.h"
#include "rule/strategy_class.h"

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

/*
 * Column header of the --all table: columns are 10 wide and names are
 * longer (movnt_avx512, rep_movsb_clwb), so a long name breaks at its
 * last '_' over two lines: "movnt" above "avx512".
 */
static void print_header(FILE *f, const struct policy_op *op, size_t from, size_t to, bool last)
{
	bool two = false;

	for (size_t i = from; i < to; i++)
		two |= strlen(op->curves[i].strategy) > 10;
	for (int line = two ? 0 : 1; line < 2; line++) {
		fprintf(f, "%8s", line ? "size" : "");
		for (size_t i = from; i < to; i++) {
			const char *name = op->curves[i].strategy, *us = strrchr(name, '_');
			bool split = strlen(name) > 10 && us;

			if (!line)
				fprintf(f, " %10.*s", split ? (int)(us - name) : 0, name);
			else
				fprintf(f, " %10.10s", split ? us + 1 : name);
		}
		fprintf(f, "%s\n", line && last ? "  decided" : "");
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

int table_width(FILE *f)
{
	struct winsize ws;

	if (isatty(fileno(f)) && !ioctl(fileno(f), TIOCGWINSZ, &ws) && ws.ws_col >= 40 &&
	    ws.ws_col < TABLE_MAX_WIDTH)
		return ws.ws_col;
	return TABLE_MAX_WIDTH;
}

/* Columns text takes on a terminal: escape sequences take none. */
static int visible_len(const char *text, size_t n)
{
	int cols = 0;

	for (size_t i = 0; i < n; i++) {
		if (text[i] == '\033') {
			while (i < n && text[i] != 'm')
				i++;
			continue;
		}
		if ((text[i] & 0xc0) != 0x80)	/* UTF-8: count lead bytes only */
			cols++;
	}
	return cols;
}

void table_fit(FILE *f, const char *text, int width)
{
	const char *line = text, *nl;

	assert(f && text && width > 0);
	for (; *line; line = *nl ? nl + 1 : nl) {
		size_t len, indent;
		const char *p = line;
		int budget = width;

		nl = strchrnul(line, '\n');
		len = (size_t)(nl - line);
		indent = strspn(line, " ");
		while (visible_len(p, len) > budget) {
			/* the last space that leaves a piece within the budget, past the indent */
			const char *cut = NULL;

			for (const char *q = p + (p == line ? indent : 0) + 1; q < p + len; q++)
				if (*q == ' ' && visible_len(p, (size_t)(q - p)) <= budget)
					cut = q;
			if (!cut)
				break;	/* one word longer than the page: as it is */
			/* a continuation is indented two more than its line */
			fprintf(f, "%.*s\n%*s", (int)(cut - p), p, (int)indent + 2, "");
			len -= (size_t)(cut + 1 - p);
			p = cut + 1;
			budget = width - (int)indent - 2 > 20 ? width - (int)indent - 2 : 20;
		}
		fprintf(f, "%.*s%s", (int)len, p, *nl ? "\n" : "");
	}
}

int table_print_fitted(FILE *f, int width, void (*print)(FILE *out, const void *arg),
		       const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int rc = 0;

	if (!out)
		return -errno;
	print(out, arg);
	if (fclose(out))
		rc = -errno;
	else
		table_fit(f, text, width);
	free(text);
	return rc;
}

/* Every strategy a column, in groups of columns as wide as the page allows. */
static void print_all(FILE *f, const struct policy_op *op, const struct crossover_cell *cells,
		      const struct table_style *st)
{
	/* size (8), each column 1 + 10, "  decided" and the longest name (2 + 14) */
	size_t per = (size_t)(st->width - 8 - 16) / 11;
	char sz[32];

	if (per < 1)
		per = 1;
	for (size_t from = 0; from < op->ncurves; from += per) {
		size_t to = from + per < op->ncurves ? from + per : op->ncurves;
		bool last = to == op->ncurves;

		if (from)
			fputc('\n', f);
		print_header(f, op, from, to, last);
		for (size_t s = 0; s < op->nsizes; s++) {
			bool unmeasurable;

			if (!size_measured(op, s, &unmeasurable))
				continue;
			fprintf(f, "%8s", policy_format_bytes(op->sizes_bytes[s], sz, sizeof(sz)));
			for (size_t i = from; i < to; i++) {
				double v = op->curves[i].median_mib_s[s];
				bool win = cells[s].winner == (int)i;
				char mark = win ? (cells[s].tie ? '~' : '*') : ' ';

				if (isnan(v))
					fprintf(f, " %10s", st->color ? DIM "         ." RESET
								      : "         .");
				else if (win && st->color)
					fprintf(f, " " GREEN BOLD "%9.0f%c" RESET, v, mark);
				else
					fprintf(f, " %9.0f%c", v, mark);
			}
			if (last)
				fprintf(f, "  %s", cells[s].winner >= 0 ?
					op->curves[cells[s].winner].strategy : "-");
			fputc('\n', f);
		}
	}
}

/* The range of op that holds size, NULL where none does. */
static const struct policy_range *range_at(const struct policy_op *op, uint64_t size)
{
	for (size_t r = 0; r < op->nranges; r++)
		if (op->ranges[r].from_bytes <= size &&
		    (op->ranges[r].to_bytes == POLICY_SIZE_OPEN || size < op->ranges[r].to_bytes))
			return &op->ranges[r];
	return NULL;
}

static int curve_index(const struct policy_op *op, const char *name)
{
	for (size_t i = 0; i < op->ncurves; i++)
		if (!strcmp(op->curves[i].strategy, name))
			return (int)i;
	return -1;
}

/*
 * A column per family (its fastest member's figure and name), what the
 * policy chose at the size and the choice's figure over the fastest one.
 */
static void print_families(FILE *f, const struct policy_op *op,
			   const struct crossover_cell *cells, const struct table_style *st)
{
	char sz[32];

	/* 80 columns: size 8, each family 24 and 26, chosen 16, /best 6 */
	fprintf(f, "%8s  %9s %-12s  %9s %-14s  %-14s %5s\n", "size", "streaming", "member",
		"cached", "member", "chosen", "/best");
	for (size_t s = 0; s < op->nsizes; s++) {
		const struct policy_range *r = range_at(op, op->sizes_bytes[s]);
		int fast[2] = { -1, -1 }, best = -1, chosen = r ? curve_index(op, r->strategy) : -1;
		bool unmeasurable;

		if (!size_measured(op, s, &unmeasurable))
			continue;
		for (size_t i = 0; i < op->ncurves; i++) {
			double v = op->curves[i].median_mib_s[s];
			int fam = strategy_family_of(op->curves[i].strategy);

			if (isnan(v) || op->curves[i].reference_only || fam < 0)
				continue;
			if (fast[fam] < 0 || v > op->curves[fast[fam]].median_mib_s[s])
				fast[fam] = (int)i;
			if (best < 0 || v > op->curves[best].median_mib_s[s])
				best = (int)i;
		}
		fprintf(f, "%8s", policy_format_bytes(op->sizes_bytes[s], sz, sizeof(sz)));
		for (int fam = 0; fam < 2; fam++) {
			bool won = cells[s].winner >= 0 && cells[s].family == fam;
			char mark = won ? (cells[s].tie ? '~' : '*') : ' ';

			if (fast[fam] < 0) {
				fprintf(f, "  %9s %-*s", ".", fam ? 14 : 12, "");
				continue;
			}
			if (won && st->color)
				fprintf(f, "  " GREEN BOLD "%8.0f%c" RESET,
					op->curves[fast[fam]].median_mib_s[s], mark);
			else
				fprintf(f, "  %8.0f%c",
					op->curves[fast[fam]].median_mib_s[s], mark);
			fprintf(f, " %-*s", fam ? 14 : 12, op->curves[fast[fam]].strategy);
		}
		if (chosen >= 0 && best >= 0 && !isnan(op->curves[chosen].median_mib_s[s]))
			fprintf(f, "  %-14s %5.2f\n", op->curves[chosen].strategy,
				op->curves[chosen].median_mib_s[s] /
				op->curves[best].median_mib_s[s]);
		else
			fprintf(f, "  %-14s %5s\n", r ? r->strategy : "-", "-");
	}
}

static void print_op(FILE *f, const struct policy_op *op, const struct table_style *st)
{
	struct crossover_cell *cells = calloc(op->nsizes ? op->nsizes : 1, sizeof(*cells));
	size_t first_unmeasurable = SIZE_MAX, blank = 0;
	char sz[32];

	if (!cells) {
		fprintf(f, "\n%s %s, %u threads: out of memory\n", op->op, op->pattern,
			op->threads);
		return;
	}

	fprintf(f, "\n%s%s %s, %u thread%s%s: MiB/s, median", st->color ? BOLD : "", op->op,
		op->pattern, op->threads, op->threads == 1 ? "" : "s", st->color ? RESET : "");
	if (!isnan(op->ceiling_mib_s))
		fprintf(f, "; ceiling %.0f", op->ceiling_mib_s);
	fputc('\n', f);
	if (st->all)
		fprintf(f, "  * decided here (its family apart from the other's), ~ decided by the "
			"tie rule\n");
	else
		fprintf(f, "  each family's fastest member (cached: cached stores and a flush);\n"
			"  * the family that wins, apart from the other; ~ wins by the tie rule;\n"
			"  chosen: the policy's strategy; /best: its figure over the fastest\n");
	crossover_cells(op, cells);
	for (size_t s = 0; s < op->nsizes; s++) {
		bool unmeasurable;

		if (!size_measured(op, s, &unmeasurable))
			blank++;	/* a row of dots says nothing: counted below */
		if (unmeasurable && first_unmeasurable == SIZE_MAX)
			first_unmeasurable = s;
	}
	if (st->all)
		print_all(f, op, cells, st);
	else
		print_families(f, op, cells, st);
	if (blank)
		fprintf(f, "  %zu of %zu sizes: nothing measured\n", blank, op->nsizes);
	if (first_unmeasurable != SIZE_MAX)
		fprintf(f, "  no decision: at %s the threads did not run together (unmeasurable)\n",
			policy_format_bytes(op->sizes_bytes[first_unmeasurable], sz, sizeof(sz)));
	for (size_t i = 0; i < op->ncurves; i++)
		if (op->curves[i].reference_only)
			fprintf(f, "  %s: measured for reference only, not persistent here%s\n",
				op->curves[i].strategy, st->all ? "" : " (--all shows it)");
	for (size_t i = 0; i < op->ncrossovers; i++) {
		const struct policy_crossover *x = &op->crossovers[i];

		fprintf(f, "  crossover at %s: %s below, %s from there (confidence %.2f)\n",
			policy_format_bytes(x->size_bytes, sz, sizeof(sz)), x->below, x->above,
			x->confidence);
	}
	if (!op->ncrossovers && op->nranges == 1)
		fprintf(f, "  no crossover: %s at every size%s\n", op->ranges[0].strategy,
			op->ranges[0].tie ? " (by the tie rule)" : "");
	free(cells);
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
		policy_format_size(s->size_bytes, sz, sizeof(sz));
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

		policy_format_size(r->cells[i].size_bytes, sz, sizeof(sz));
		fprintf(f, "%s %s %s %.0f/%.0f", i ? "," : ";", r->cells[i].strategy, sz,
			r->cells[i].local_mib_s, r->cells[i].remote_mib_s);
	}
	fputs(" MiB/s\n", f);
}

void table_print_target(FILE *f, const struct policy_target *t, const struct table_style *st)
{
	bool color = st->color;

	fprintf(f, "%starget %s%s: kind %s, %s%s%s, persistence domain %s\n  area %" PRIu64
		" MiB", color ? BOLD : "", t->name, color ? RESET : "", t->kind,
		t->device[0] ? t->device : "", t->device[0] ? ", " : "", t->mapping,
		t->persistence_domain, t->area_bytes >> 20);
	if (!isnan(t->ceiling_mib_s))
		fprintf(f, ", ceiling %.0f MiB/s", t->ceiling_mib_s);
	fputc('\n', f);
	print_placement(f, t);
	print_saturation(f, t);
	print_remote(f, t);
	for (size_t o = 0; o < t->nops; o++)
		print_op(f, &t->ops[o], st);
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
