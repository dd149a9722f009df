/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Prometheus' text exposition format, as node-exporter's textfile
 * collector and promtool read it: a HELP and a TYPE line per metric
 * name, its samples after them, every label value escaped and valid
 * UTF-8 (one bad byte makes the whole file unreadable to them).
 */
#ifndef PT_COMMON_PROM_TEXT_H
#define PT_COMMON_PROM_TEXT_H

#include <stddef.h>
#include <stdio.h>

/*
 * s as a label value into buf (len >= 1): '\', '"' and newline escaped,
 * each byte that is not part of valid UTF-8 replaced by U+FFFD.  Cut
 * short to fit, never inside an escape or a character.
 */
void prom_label_value(char *buf, size_t len, const char *s);
/* "# HELP name help" and "# TYPE name gauge". */
void prom_group(FILE *f, const char *name, const char *help);
/* "name{labels} v" (labels "" for none); nothing when v is not finite. */
void prom_sample(FILE *f, const char *name, const char *labels, double v);

#endif
