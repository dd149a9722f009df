/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PMEM_TUNE_TABLE_H
#define PMEM_TUNE_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "policy/policy.h"

/* f is a terminal that takes escape sequences: a tty, TERM set and not "dumb". */
bool table_terminal(FILE *f);
/* Colour on f: table_terminal(), and NO_COLOR (no-color.org) unset or empty. */
bool table_color(FILE *f);
/* No table is wider: it fits a terminal of 100 columns and a mail or a log. */
#define TABLE_MAX_WIDTH 100
/* The columns a table on f may take: the terminal's, at most TABLE_MAX_WIDTH. */
int table_width(FILE *f);

struct table_style {
	bool color;	/* ANSI marks for a terminal */
	bool all;	/* every strategy a column (else a column per family) */
	int width;	/* columns at most (table_width()) */
};
/*
 * text onto f with every line within width columns: a longer line (prose:
 * an export, a crossover) breaks at its last space that fits, the rest
 * indented two more.  Table rows are made to fit and pass unchanged.
 */
void table_fit(FILE *f, const char *text, int width);
/* What print(out, arg) writes, onto f through table_fit(); 0 or -errno. */
int table_print_fitted(FILE *f, int width, void (*print)(FILE *out, const void *arg),
		       const void *arg);
/* Every op of t as a table. */
void table_print_target(FILE *f, const struct policy_target *t, const struct table_style *st);

/* The strategies t has no curve of, and why (the CPU lacks a feature, or not asked for). */
void table_print_unmeasured(FILE *f, const struct policy *p, const struct policy_target *t);

#endif
