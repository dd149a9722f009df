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
 * Every entry's targets, one panel per op with a measured cell.  Returns
 * the SVG text (caller frees) and its length in *len, or NULL with errno
 * set.
 *
 * Elements a test can find: g.panel (data-op, data-pattern,
 * data-threads), path.curve (data-strategy, data-family; class "lead"
 * for a family's bold line, "member" for the faint others, "reference"
 * when reference_only), path.chosen-line, path.band / path.hosts-band,
 * rect.range (data-strategy, data-from-bytes, data-to-bytes),
 * g.crossover (data-size-bytes, data-below, data-above), g.ceiling
 * (data-mib-s), g.marker (data-size-bytes; class "exported" for a
 * threshold the policy exports), g.ratio (data-lo: its axis' floor),
 * g.hosts (data-hosts, data-margin) with circle.outlier (data-strategy,
 * data-side, data-size-bytes), text.not-measured.
 */
char *plot_render(const struct policy_bundle *b, size_t *len);
/*
 * The same curves as CSV (curves_csv.c): a header, then one row per
 * entry, target, op, strategy and size.  NULL when out of memory.
 */
char *curves_csv(const struct policy_bundle *b, size_t *len);

#endif
