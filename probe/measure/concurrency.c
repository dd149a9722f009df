// SPDX-License-Identifier: GPL-2.0-or-later
/* Overlap of the threads' timed intervals (see concurrency.h). */
#include <math.h>

#include "measure/concurrency.h"

void concurrency_of(const uint64_t *t0, const uint64_t *t1, unsigned n, struct concurrency *out)
{
	uint64_t first_start = UINT64_MAX, last_start = 0, first_end = UINT64_MAX, last_end = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t e = t1[i] > t0[i] ? t1[i] : t0[i];

		first_start = t0[i] < first_start ? t0[i] : first_start;
		last_start = t0[i] > last_start ? t0[i] : last_start;
		first_end = e < first_end ? e : first_end;
		last_end = e > last_end ? e : last_end;
	}
	if (!n) {
		*out = (struct concurrency){ 0 };
		return;
	}
	out->union_ns = last_end - first_start;
	out->inter_ns = first_end > last_start ? first_end - last_start : 0;
	out->overlap = out->union_ns ? (double)out->inter_ns / (double)out->union_ns : 0;
}

bool concurrency_ok(const struct concurrency *c, unsigned n)
{
	return n <= 1 || (c->union_ns && c->overlap >= CONCURRENCY_MIN_OVERLAP);
}

double concurrency_rate_mib_s(const struct concurrency *c, double total_bytes)
{
	if (!c->union_ns)
		return NAN;
	return total_bytes / (1024.0 * 1024.0) / ((double)c->union_ns * 1e-9);
}
