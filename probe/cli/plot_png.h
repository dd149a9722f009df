/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmem-tune --plot FILE.png: the plot's SVG rendered by librsvg and cairo,
 * where the build has their headers (PT_HAVE_RSVG) and the host has
 * librsvg-2.so.2 (loaded then, never linked).
 */
#ifndef PMEM_TUNE_PLOT_PNG_H
#define PMEM_TUNE_PLOT_PNG_H

#include <stdbool.h>
#include <stddef.h>

/* Whether this build and host render PNG (loads librsvg the first time). */
bool plot_png_available(void);
/*
 * Render svg (len bytes) at its own size on white.  0 with the PNG in
 * *png (caller frees) and its length in *png_len; -ENOTSUP without
 * librsvg, -EINVAL when librsvg refuses the SVG (its message on stderr),
 * -ENOMEM.
 */
int plot_png(const char *svg, size_t len, char **png, size_t *png_len);

#endif
