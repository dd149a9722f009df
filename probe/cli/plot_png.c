// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --plot FILE.png: librsvg parses the SVG plot_render() wrote and draws
 * it on a cairo image surface, which cairo encodes as PNG in memory; the
 * caller writes the bytes as it writes the SVG.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/plot_png.h"

#ifdef PT_HAVE_RSVG
#include <dlfcn.h>

#include <cairo.h>
#include <librsvg/rsvg.h>

/*
 * librsvg (and through it cairo, glib, gobject) is loaded when a PNG is
 * asked for, not linked: the probe runs at boot on servers that need no
 * graphics stack, and the package only suggests librsvg2-2.
 */
#define PLOT_PNG_LIBRSVG "librsvg-2.so.2"

static struct {
	void *lib;
	RsvgHandle *(*new_from_data)(const guint8 *, gsize, GError **);
	gboolean (*intrinsic_size)(RsvgHandle *, gdouble *, gdouble *);
	gboolean (*render_document)(RsvgHandle *, cairo_t *, const RsvgRectangle *, GError **);
	void (*error_free)(GError *);
	void (*object_unref)(gpointer);
	cairo_surface_t *(*surface_create)(cairo_format_t, int, int);
	cairo_t *(*create)(cairo_surface_t *);
	cairo_status_t (*status)(cairo_t *);
	void (*set_source_rgb)(cairo_t *, double, double, double);
	void (*paint)(cairo_t *);
	cairo_status_t (*write_png)(cairo_surface_t *, cairo_write_func_t, void *);
	void (*destroy)(cairo_t *);
	void (*surface_destroy)(cairo_surface_t *);
} rsvg;

/*
 * Every symbol the renderer uses, from librsvg and its dependencies; false
 * and closed if any is missing.
 */
static bool rsvg_load(void)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define SYM(field, name) { #name, offsetof(typeof(rsvg), field) }
		SYM(new_from_data, rsvg_handle_new_from_data),
		SYM(intrinsic_size, rsvg_handle_get_intrinsic_size_in_pixels),
		SYM(render_document, rsvg_handle_render_document),
		SYM(error_free, g_error_free),
		SYM(object_unref, g_object_unref),
		SYM(surface_create, cairo_image_surface_create),
		SYM(create, cairo_create),
		SYM(status, cairo_status),
		SYM(set_source_rgb, cairo_set_source_rgb),
		SYM(paint, cairo_paint),
		SYM(write_png, cairo_surface_write_to_png_stream),
		SYM(destroy, cairo_destroy),
		SYM(surface_destroy, cairo_surface_destroy),
#undef SYM
	};

	if (rsvg.lib)
		return true;
	rsvg.lib = dlopen(PLOT_PNG_LIBRSVG, RTLD_NOW | RTLD_LOCAL);
	if (!rsvg.lib)
		return false;
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(rsvg.lib, syms[i].name);

		if (!f) {
			dlclose(rsvg.lib);
			memset(&rsvg, 0, sizeof(rsvg));
			return false;
		}
		memcpy((char *)&rsvg + syms[i].off, &f, sizeof(f));
	}
	return true;
}

bool plot_png_available(void)
{
	return rsvg_load();
}

static cairo_status_t png_append(void *closure, const unsigned char *data, unsigned int length)
{
	return fwrite(data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS
							   : CAIRO_STATUS_WRITE_ERROR;
}

int plot_png(const char *svg, size_t len, char **png, size_t *png_len)
{
	GError *err = NULL;
	RsvgHandle *h;
	cairo_surface_t *surf = NULL;
	cairo_t *cr = NULL;
	double w = 0, ht = 0;
	FILE *f = NULL;
	int rc = -EINVAL;

	*png = NULL;
	*png_len = 0;
	if (!rsvg_load())
		return -ENOTSUP;
	h = rsvg.new_from_data((const guint8 *)svg, len, &err);
	if (!h)
		goto out;
	if (!rsvg.intrinsic_size(h, &w, &ht) || !(w >= 1) || !(ht >= 1) || w > 32767 ||
	    ht > 32767)
		goto out;
	surf = rsvg.surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)ht);
	cr = rsvg.create(surf);
	if (rsvg.status(cr)) {
		rc = -ENOMEM;
		goto out;
	}
	rsvg.set_source_rgb(cr, 1, 1, 1);
	rsvg.paint(cr);
	if (!rsvg.render_document(h, cr, &(RsvgRectangle){ 0, 0, w, ht }, &err))
		goto out;
	f = open_memstream(png, png_len);
	if (!f) {
		rc = -ENOMEM;
		goto out;
	}
	rc = rsvg.write_png(surf, png_append, f) ? -ENOMEM : 0;
	if (fclose(f) && !rc)
		rc = -ENOMEM;
out:
	if (err) {
		fprintf(stderr, "pmem-tune: librsvg: %s\n", err->message);
		rsvg.error_free(err);
	}
	if (cr)
		rsvg.destroy(cr);
	if (surf)
		rsvg.surface_destroy(surf);
	if (h)
		rsvg.object_unref(h);
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
