/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON as every pmem-tune command prints it: ndctl's style (json-c's
 * pretty printing, two spaces, "key":value), and the one strategy object
 * that --list and --strategies-list share.  The policy file keeps its own
 * format (policy/json.c): fleets diff it byte for byte.
 */
#ifndef PMEM_TUNE_CLI_JSON_OUT_H
#define PMEM_TUNE_CLI_JSON_OUT_H

#include <stdio.h>

struct json_object;
struct strategy;
struct cpu_info;

/* o and a newline to f; 0, or -EIO when f failed. */
int json_out(FILE *f, struct json_object *o);

/*
 * {"name", "supported", "summary", "missing" (the CPU feature it lacks,
 * when unsupported), "needs_persistence_domain" ("cpu_cache", where only
 * eADR makes it persistent)}: a new object (caller puts it), NULL on
 * out-of-memory.
 */
struct json_object *strategy_json(const struct strategy *s, const struct cpu_info *ci);

#endif
