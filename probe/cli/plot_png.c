// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --plot FILE.png: librsvg parses the SVG plot_render() wrote and draws
 * it on a cairo image surface, which cairo encodes as PNG in memory; the
 * caller writes the bytes as it writes the SVG.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/plot_png.h"

#ifdef PT_HAVE_RSVG
#include <cairo.h>
#include <librsvg/rsvg.h>

bool plot_png_available(void)
{
	return true;
}

static cairo_status_t png_append(void *closure, const unsigned char *data, unsigned int length)
{
	return fwrite(data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS
							   : CAIRO_STATUS_WRITE_ERROR;
}

int plot_png(const char *svg, size_t len, char **png, size_t *png_len)
{
	GError *err = NULL;
	RsvgHandle *h = rsvg_handle_new_from_data((const guint8 *)svg, len, &err);
	cairo_surface_t *surf = NULL;
	cairo_t *cr = NULL;
	double w = 0, ht = 0;
	FILE *f = NULL;
	int rc = -EINVAL;

	*png = NULL;
	*png_len = 0;
	if (!h)
		goto out;
	if (!rsvg_handle_get_intrinsic_size_in_pixels(h, &w, &ht) || !(w >= 1) || !(ht >= 1) ||
	    w > 32767 || ht > 32767)
		goto out;
	surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)ht);
	cr = cairo_create(surf);
	if (cairo_status(cr)) {
		rc = -ENOMEM;
		goto out;
	}
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	if (!rsvg_handle_render_document(h, cr, &(RsvgRectangle){ 0, 0, w, ht }, &err))
		goto out;
	f = open_memstream(png, png_len);
	if (!f) {
		rc = -ENOMEM;
		goto out;
	}
	rc = cairo_surface_write_to_png_stream(surf, png_append, f) ? -ENOMEM : 0;
	if (fclose(f) && !rc)
		rc = -ENOMEM;
out:
	if (err) {
		fprintf(stderr, "pmem-tune: librsvg: %s\n", err->message);
		g_error_free(err);
	}
	if (cr)
		cairo_destroy(cr);
	if (surf)
		cairo_surface_destroy(surf);
	if (h)
		g_object_unref(h);
	if (rc) {
		free(*png);
		*png = NULL;
		*png_len = 0;
	}
	return rc;
}

#else

bool plot_png_available(void)
{
	return false;
}

int plot_png(const char *svg, size_t len, char **png, size_t *png_len)
{
	(void)svg;
	(void)len;
	*png = NULL;
	*png_len = 0;
	return -ENOTSUP;
}

#endif
