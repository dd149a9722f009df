/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Prometheus textfile of pmem-tune --metrics, built in memory. */
#ifndef PMEM_TUNE_METRICS_TEXT_H
#define PMEM_TUNE_METRICS_TEXT_H

#include <stddef.h>

#include <json-c/json.h>

#include "policy.h"

/*
 * The metrics of b's entry for host_fp (path names the file they came
 * from) and of pmem-tuned's status and verify objects (NULL, or not
 * "pmem-tuned-status/1": none).  Returns the text, *len its length, or
 * NULL when out of memory; the caller frees it.
 */
char *metrics_text(const char *path, const struct policy_bundle *b, const char *host_fp,
		   struct json_object *status, struct json_object *verify, size_t *len);

#endif
