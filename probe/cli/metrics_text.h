/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Prometheus textfile of pmem-tune --metrics, built in memory. */
#ifndef PMEM_TUNE_METRICS_TEXT_H
#define PMEM_TUNE_METRICS_TEXT_H

#include <stddef.h>

#include <json-c/json.h>

#include "policy/policy.h"

struct metrics_in {
	const char *path;			/* the policy file, for its label */
	const struct policy_bundle *bundle;	/* NULL: not read (missing, refused, invalid) */
	const struct policy *host;		/* this host's identity; NULL: unknown */
	/* pmem-tuned's status and verify objects; NULL or not "pmem-tuned-status/1": none */
	struct json_object *status, *verify;
};

/*
 * Whether the policy file was read, then (when it was and the host is
 * known) the metrics of its entry for this host, then pmem-tuned's.
 * Returns the text, *len its length, or NULL when out of memory; the
 * caller frees it.
 */
char *metrics_text(const struct metrics_in *in, size_t *len);

#endif
