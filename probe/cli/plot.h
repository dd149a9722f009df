/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmem-tune --plot: a policy's curves as one self-contained SVG (no
 * scripts, no external fonts or files).  The output depends only on the
 * policy, so the same policy always gives the same bytes.
 */
#ifndef PMEM_TUNE_PLOT_H
#define PMEM_TUNE_PLOT_H

#include <stddef.h>

#include "policy/policy.h"

/*
 * Every entry's targets, one panel per op.  Returns the SVG text
 * (caller frees) and its length in *len, or NULL with errno set.
 *
 * Elements a test can find: g.panel (data-op, data-pattern,
 * data-threads), path.curve (data-strategy; also class "reference" when
 * reference_only), path.band, rect.range (data-strategy, data-from-bytes,
 * data-to-bytes), g.crossover (data-size-bytes, data-below, data-above),
 * g.ceiling (data-mib-s).
 */
char *plot_render(const struct policy_bundle *b, size_t *len);
/*
 * The same curves as CSV (curves_csv.c): a header, then one row per
 * entry, target, op, strategy and size.  NULL when out of memory.
 */
char *curves_csv(const struct policy_bundle *b, size_t *len);

#endif
