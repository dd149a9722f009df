/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PMEM_TUNE_TABLE_H
#define PMEM_TUNE_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "policy.h"

/* "64", "1536", "4K", "16M", "inf" */
void table_format_size(uint64_t bytes, char *buf, size_t len);
/* "64 B", "1536 B", "4 KiB", "16 MiB", "inf": for labels and prose; returns buf */
const char *table_format_bytes(uint64_t bytes, char *buf, size_t len);
/* f is a terminal that takes escape sequences: a tty, TERM set and not "dumb". */
bool table_terminal(FILE *f);
/* Colour on f: table_terminal(), and NO_COLOR (no-color.org) unset or empty. */
bool table_color(FILE *f);
/* Every op of t as a table; color: ANSI marks for a terminal. */
void table_print_target(FILE *f, const struct policy_target *t, bool color);

/* The strategies t has no curve of, and why (the CPU lacks a feature, or not asked for). */
void table_print_unmeasured(FILE *f, const struct policy *p, const struct policy_target *t);

#endif
