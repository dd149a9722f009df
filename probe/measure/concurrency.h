/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether several threads' timed intervals ran together, and the rate
 * they reached together.  Pure arithmetic, so that it is unit-tested.
 */
#ifndef PMEM_TUNE_CONCURRENCY_H
#define PMEM_TUNE_CONCURRENCY_H

#include <stdbool.h>
#include <stdint.h>

#include "measure/constants.h"

/* A multi-thread sample counts only at CONCURRENCY_MIN_OVERLAP or more (measure/constants.h). */

struct concurrency {
	uint64_t union_ns;	/* last end - first start */
	uint64_t inter_ns;	/* first end - last start, 0 if they never all ran at once */
	double overlap;		/* inter_ns / union_ns, 0..1 */
};

/* The intervals [t0[i], t1[i]) of n >= 1 threads; an interval with t1 < t0 counts as empty. */
void concurrency_of(const uint64_t *t0, const uint64_t *t1, unsigned n, struct concurrency *out);
/* The sample counts (see CONCURRENCY_MIN_OVERLAP); one thread always does. */
bool concurrency_ok(const struct concurrency *c, unsigned n);
/* MiB/s of total_bytes over the union, the threads' rate together; NAN for an empty union. */
double concurrency_rate_mib_s(const struct concurrency *c, double total_bytes);

#endif
