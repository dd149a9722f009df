// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tune --plot: a policy's throughput curves as one SVG.
 *
 * One section per target (a bundle: per entry, then per target), a
 * legend, then one panel per op: size on a log2 axis, MiB/s on a log10
 * axis (equal ratios look equal, so the small sizes where crossovers
 * live are as legible as the large ones), the p10..p90 spread as a faint
 * band, the chosen ranges shaded, crossovers, the ceiling, the exported
 * thresholds and the consumers' default rules drawn as lines, each curve
 * named at its end; under it, every strategy's ratio to the best at each
 * size, which shows what a threshold costs.  Written by hand with fixed number formats: no scripts, no
 * external fonts or files, and the same policy gives the same bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/plot.h"
#include "cli/table.h"
#include "common/atomic_file.h"
#include "common/macros.h"
#include "policy/export_keys.h"
#include "policy/policy.h"

/* Geometry in px.  Two panels a row fit a laptop browser at 100 %. */
#define PAGE_W		1200
#define MARGIN		20
#define COL_GAP		24
#define ROW_GAP		18
#define PANEL_H		350
#define PLOT_L		66	/* y tick labels and the y axis title */
#define PLOT_R		100	/* the curves' names at their line ends */
#define RATIO_H		150	/* the "ratio to the best" panel under each panel */
#define END_LABEL_GAP	11
#define PLOT_T		26	/* panel title */
#define PLOT_B		44	/* x tick labels and the x axis title */
#define FS		12
#define FS_SMALL	11
/* A generous average glyph width: estimated labels never collide. */
#define TEXT_W(s, fs)	(utf8_chars(s) * (fs) * 0.64)
#define XO_ROW_H	13
#define XO_ROWS_MAX	6
#define CEIL_LABEL_H	16
#define RANGE_LABEL_H	16
#define LEGEND_ROW_H	20
/* default axis when the policy's grid lies inside it: 64 B .. 16 MiB */
#define X_MIN_DEFAULT	64.0
#define X_MAX_DEFAULT	16777216.0

/* Fixed colours for the known strategies, so that plots compare. */
static const struct {
	const char *name;
	const char *color;
} known_colors[] = {
	{ "movnt", "#1f77b4" },
	{ "movnt_sse2", "#17becf" },
	{ "movnt_avx2", "#2ca02c" },
	{ "movnt_avx512", "#393b79" },
	{ "movdir64b", "#9467bd" },
	{ "clwb", "#d62728" },
	{ "clflushopt", "#ff7f0e" },
	{ "clflush", "#8c564b" },
	{ "rep_movsb_clwb", "#e377c2" },
	{ "stores8_clwb", "#bcbd22" },
	{ "memcpy_clwb", "#637939" },
	{ "noflush", "#7f7f7f" },
};

/* Names this build does not know, in order of first appearance. */
static const char *const extra_colors[] = {
	"#000000", "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#843c39", "#636363",
};

struct series {
	const char *name;
	const char *color;
	bool reference;		/* reference_only in some op */
	bool curve;		/* has a curve (else only named by a range) */
};

struct palette {
	size_t n, nextra;
	struct series *s;
};

/* The plot area of one panel and its two log scales. */
struct panel {
	double x, y, w, h;	/* plot area */
	double lx_lo, lx_hi;	/* log2 bytes */
	double ly_lo, ly_hi;	/* log10 MiB/s */
	double top, bottom;	/* where data may go, inside the label strips */
};

struct xo_label {
	double x, x0, x1;	/* line, and the label's extent */
	int row;
	bool left;		/* text ends at the line (right edge) */
	char text[3 * POLICY_NAME_MAX];
};

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Length of the valid UTF-8 sequence at u that XML 1.0 allows, 0 if none. */
static size_t utf8_seq(const unsigned char *u)
{
	unsigned c = u[0];

	if (c < 0x80)
		return (c >= 0x20 && c != 0x7f) ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		return (u[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;

		if (u[1] < lo || u[1] > hi || (u[2] & 0xc0) != 0x80)
			return 0;
		/* U+FFFE and U+FFFF are not XML characters */
		if (c == 0xef && u[1] == 0xbf && u[2] >= 0xbe)
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;

		if (u[1] < lo || u[1] > hi || (u[2] & 0xc0) != 0x80 || (u[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

/*
 * Text and attribute values: names come from a file anyone may have
 * written, so escape markup and replace what XML cannot hold at all
 * (control characters, broken UTF-8) with '?'.
 */
static void put_esc(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		size_t n = utf8_seq(u);

		if (!n) {
			fputc('?', f);
			u++;
			continue;
		}
		switch (*u) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fwrite(u, 1, n, f); break;
		}
		u += n;
	}
}

/* Coordinates: one decimal, never "-0.0". */
static const char *num(char *buf, double v)
{
	if (fabs(v) < 0.05)
		v = 0;
	snprintf(buf, 24, "%.1f", v);
	return buf;
}

#define N(v) num((char[24]){ 0 }, (v))

static struct series *palette_find(const struct palette *pal, const char *name)
{
	for (size_t i = 0; i < pal->n; i++)
		if (!strcmp(pal->s[i].name, name))
			return &pal->s[i];
	return NULL;
}

static struct series *palette_add(struct palette *pal, const char *name, bool curve)
{
	struct series *s = palette_find(pal, name);

	if (s) {
		s->curve |= curve;
		return s;
	}
	s = &pal->s[pal->n++];
	s->name = name;
	s->curve = curve;
	s->reference = false;
	for (size_t i = 0; i < ARRAY_SIZE(known_colors); i++)
		if (!strcmp(known_colors[i].name, name))
			s->color = known_colors[i].color;
	if (!s->color)
		s->color = extra_colors[pal->nextra++ %
					ARRAY_SIZE(extra_colors)];
	return s;
}

/* Every strategy a target's curves or ranges name; colours by name. */
static int palette_build(struct palette *pal, const struct policy_target *t)
{
	size_t max = 0;

	for (size_t o = 0; o < t->nops; o++)
		max += t->ops[o].ncurves + t->ops[o].nranges;
	pal->n = pal->nextra = 0;
	pal->s = calloc(max ? max : 1, sizeof(*pal->s));
	if (!pal->s)
		return -ENOMEM;
	for (size_t o = 0; o < t->nops; o++)
		for (size_t i = 0; i < t->ops[o].ncurves; i++) {
			const struct policy_curve *c = &t->ops[o].curves[i];

			palette_add(pal, c->strategy, true)->reference |= c->reference_only;
		}
	for (size_t o = 0; o < t->nops; o++)
		for (size_t i = 0; i < t->ops[o].nranges; i++)
			palette_add(pal, t->ops[o].ranges[i].strategy, false);
	return 0;
}

static double px(const struct panel *p, double bytes)
{
	return p->x + (log2(bytes) - p->lx_lo) / (p->lx_hi - p->lx_lo) * p->w;
}

static double py(const struct panel *p, double mib_s)
{
	return p->bottom - (log10(mib_s) - p->ly_lo) / (p->ly_hi - p->ly_lo) *
			   (p->bottom - p->top);
}

static bool usable(double v)
{
	return isfinite(v) && v > 0;
}

/* Largest 1-2-5 step <= v, and smallest >= v. */
static double step_floor(double v)
{
	double d = pow(10, floor(log10(v))), m = v / d;

	return (m >= 5 ? 5 : m >= 2 ? 2 : 1) * d;
}

static double step_ceil(double v)
{
	double d = pow(10, floor(log10(v))), m = v / d;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * d;
}

/* The x range: powers of 4 around 64 B .. 16 MiB and the op's grid. */
static void x_range(const struct policy_op *op, struct panel *p)
{
	double lo = X_MIN_DEFAULT, hi = X_MAX_DEFAULT;

	for (size_t s = 0; s < op->nsizes; s++) {
		double v = (double)op->sizes_bytes[s];

		if (v >= 1 && v < lo)
			lo = v;
		if (v > hi)
			hi = v;
	}
	p->lx_lo = 2 * floor(log2(lo) / 2);
	p->lx_hi = 2 * ceil(log2(hi) / 2);
}

/*
 * The y range holds every median and the ceiling; the spread only as far
 * as half the lowest and twice the highest median, so that one noisy
 * p10 does not squash the curves (the band is clamped to the axis).
 */
static void y_range(const struct policy_op *op, struct panel *p)
{
	double lo = INFINITY, hi = 0, slo = INFINITY, shi = 0;

	for (size_t i = 0; i < op->ncurves; i++) {
		const struct policy_curve *c = &op->curves[i];

		for (size_t s = 0; s < op->nsizes; s++) {
			if (usable(c->median_mib_s[s])) {
				lo = fmin(lo, c->median_mib_s[s]);
				hi = fmax(hi, c->median_mib_s[s]);
			}
			if (usable(c->p10_mib_s[s]))
				slo = fmin(slo, c->p10_mib_s[s]);
			if (usable(c->p90_mib_s[s]))
				shi = fmax(shi, c->p90_mib_s[s]);
		}
	}
	if (usable(op->ceiling_mib_s)) {
		lo = fmin(lo, op->ceiling_mib_s);
		hi = fmax(hi, op->ceiling_mib_s);
	}
	if (isfinite(lo)) {
		lo = fmin(lo, fmax(slo, lo / 2));
		hi = fmax(hi, fmin(shi, hi * 2));
	} else {
		lo = 100;
		hi = 10000;
	}
	lo = step_floor(lo);
	hi = step_ceil(hi);
	if (hi <= lo)
		hi = step_ceil(lo * 1.5);
	p->ly_lo = log10(lo);
	p->ly_hi = log10(hi);
}

/*
 * Crossover labels sit in a strip at the top of the plot area, stacked
 * in as few rows as keep them apart.  Returns the rows used.
 */
static int layout_crossovers(const struct policy_op *op, const struct panel *p,
			     struct xo_label *xl)
{
	int rows = 0;

	for (size_t i = 0; i < op->ncrossovers; i++) {
		const struct policy_crossover *x = &op->crossovers[i];
		struct xo_label *l = &xl[i];
		double size = fmin(fmax((double)x->size_bytes, pow(2, p->lx_lo)), pow(2, p->lx_hi));
		char sz[32];
		double w;

		policy_format_bytes(x->size_bytes, sz, sizeof(sz));
		snprintf(l->text, sizeof(l->text), "%s: %s \u2192 %s", sz, x->below, x->above);
		w = TEXT_W(l->text, FS_SMALL);
		l->x = px(p, size);
		l->left = l->x + 3 + w > p->x + p->w;
		l->x0 = l->left ? l->x - 3 - w : l->x + 3;
		l->x1 = l->left ? l->x - 3 : l->x + 3 + w;
		for (l->row = 0; l->row < XO_ROWS_MAX - 1; l->row++) {
			bool clash = false;

			for (size_t j = 0; j < i && !clash; j++)
				clash = xl[j].row == l->row && l->x0 < xl[j].x1 + 6 &&
					xl[j].x0 < l->x1 + 6;
			if (!clash)
				break;
		}
		if (l->row + 1 > rows)
			rows = l->row + 1;
	}
	return rows;
}

/* Where a range lies across the panel, clipped to it. */
static void range_span(const struct panel *p, const struct policy_range *r, double *x0,
		       double *x1)
{
	*x0 = r->from_bytes ? fmax(px(p, (double)r->from_bytes), p->x) : p->x;
	*x1 = r->to_bytes == POLICY_SIZE_OPEN ? p->x + p->w
					      : fmin(px(p, (double)r->to_bytes), p->x + p->w);
}

/* cls: "range" in the main panel, where a test counts them; "ratio-range" under it */
static void draw_ranges(FILE *f, const struct policy_op *op, const struct panel *p,
			const struct palette *pal, const char *cls)
{
	for (size_t i = 0; i < op->nranges; i++) {
		const struct policy_range *r = &op->ranges[i];
		const struct series *s = palette_find(pal, r->strategy);
		double x0, x1;
		char to[24];

		range_span(p, r, &x0, &x1);
		if (x1 <= x0)
			continue;
		if (r->to_bytes == POLICY_SIZE_OPEN)
			snprintf(to, sizeof(to), "inf");
		else
			snprintf(to, sizeof(to), "%" PRIu64, r->to_bytes);
		fprintf(f, "<rect class=\"%s\" data-strategy=\"", cls);
		put_esc(f, r->strategy);
		fprintf(f, "\" data-from-bytes=\"%" PRIu64 "\" data-to-bytes=\"%s\" "
			"x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" "
			"fill-opacity=\"0.09\"/>\n",
			r->from_bytes, to, N(x0), N(p->y), N(x1 - x0), N(p->h), s->color);
	}
}

/* Range names along the bottom strip, where they fit. */
static void label_ranges(FILE *f, const struct policy_op *op, const struct panel *p,
			 const struct palette *pal)
{
	for (size_t i = 0; i < op->nranges; i++) {
		const struct policy_range *r = &op->ranges[i];
		const struct series *s = palette_find(pal, r->strategy);
		char text[POLICY_NAME_MAX + 16];
		double x0, x1;

		range_span(p, r, &x0, &x1);
		snprintf(text, sizeof(text), "%s%s", r->strategy, r->tie ? " (tie)" : "");
		if (TEXT_W(text, FS_SMALL) > x1 - x0 - 8) {
			snprintf(text, sizeof(text), "%s", r->strategy);
			if (TEXT_W(text, FS_SMALL) > x1 - x0 - 8)
				continue;
		}
		fprintf(f, "<text class=\"halo\" x=\"%s\" y=\"%s\" font-size=\"%d\" fill=\"%s\">",
			N(x0 + 4), N(p->y + p->h - 5), FS_SMALL, s->color);
		put_esc(f, text);
		fputs("</text>\n", f);
	}
}

static void draw_grid(FILE *f, const struct panel *p)
{
	double ylo = pow(10, p->ly_lo), yhi = pow(10, p->ly_hi);
	int d0 = (int)floor(p->ly_lo), d1 = (int)ceil(p->ly_hi) + 1;
	/* 1-2-5 steps, or only decades when the range is wide */
	bool decades = p->ly_hi - p->ly_lo > 4;

	fputs("<g class=\"grid\" stroke=\"#e3e3e3\" stroke-width=\"1\">\n", f);
	for (double e = p->lx_lo; e <= p->lx_hi + 1e-9; e += 1)
		fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\"%s/>\n",
			N(px(p, pow(2, e))), N(p->y), N(px(p, pow(2, e))), N(p->y + p->h),
			fmod(e, 2) ? " stroke-opacity=\"0.5\"" : "");
	fputs("</g>\n<g class=\"yticks\" font-size=\"11\" text-anchor=\"end\">\n", f);
	for (int d = d0; d <= d1; d++)
		for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
			double v = m * pow(10, d), y;
			char label[32];

			/* none in the label strip above the data */
			if ((decades && m != 1) || v < ylo * (1 - 1e-9) || v > yhi * (1 + 1e-9))
				continue;
			y = py(p, v);
			snprintf(label, sizeof(label), v >= 1 ? "%.0f" : "%g", v);
			fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
				"stroke=\"#e3e3e3\"/><text x=\"%s\" y=\"%s\">%s</text>\n",
				N(p->x), N(y), N(p->x + p->w), N(y), N(p->x - 5), N(y + 4), label);
		}
	fputs("</g>\n", f);
}

static void draw_axes(FILE *f, const struct policy_op *op, const struct panel *p)
{
	/* ticks at the powers of 4: 64, 256, 1K, ... 16M; fewer on a wider axis */
	double step = 2 * ceil((p->lx_hi - p->lx_lo) / 2 / 12);

	fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" "
		"stroke=\"#888\"/>\n", N(p->x), N(p->y), N(p->w), N(p->h));
	fputs("<g class=\"xticks\" font-size=\"11\" text-anchor=\"middle\">\n", f);
	for (double e = p->lx_lo; e <= p->lx_hi + 1e-9; e += step) {
		char label[32];
		double x = px(p, pow(2, e));

		policy_format_size((uint64_t)pow(2, e), label, sizeof(label));
		fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#888\"/>"
			"<text x=\"%s\" y=\"%s\">%s</text>\n", N(x), N(p->y + p->h), N(x),
			N(p->y + p->h + 4), N(x), N(p->y + p->h + 16), label);
	}
	fputs("</g>\n", f);
	fprintf(f, "<text x=\"%s\" y=\"%s\" font-size=\"%d\" text-anchor=\"middle\" "
		"fill=\"#333\">copy size (bytes, log scale)</text>\n", N(p->x + p->w / 2),
		N(p->y + p->h + 36), FS);
	fprintf(f, "<text transform=\"translate(%s,%s) rotate(-90)\" font-size=\"%d\" "
		"text-anchor=\"middle\" fill=\"#333\">throughput (MiB/s, log scale)</text>\n",
		N(p->x - 50), N(p->y + p->h / 2), FS);
	fprintf(f, "<text x=\"%s\" y=\"%s\" font-size=\"13\" font-weight=\"bold\">", N(p->x),
		N(p->y - 9));
	put_esc(f, op->op);
	fputc(' ', f);
	put_esc(f, op->pattern);
	fprintf(f, ", %u thread%s</text>\n", op->threads, op->threads == 1 ? "" : "s");
}

/* The p10..p90 band of one curve: a closed shape per run of cells. */
static void draw_band(FILE *f, const struct policy_op *op, const struct policy_curve *c,
		      const struct panel *p, const struct series *s, const char *id)
{
	bool any = false;

	for (size_t a = 0; a < op->nsizes;) {
		size_t z = a;

		if (!usable(c->p10_mib_s[a]) || !usable(c->p90_mib_s[a])) {
			a++;
			continue;
		}
		while (z + 1 < op->nsizes && usable(c->p10_mib_s[z + 1]) &&
		       usable(c->p90_mib_s[z + 1]))
			z++;
		if (z > a) {
			double ylo = pow(10, p->ly_lo), yhi = pow(10, p->ly_hi);

			if (!any) {
				fprintf(f, "<path class=\"band\" id=\"%s-band\" "
					"data-strategy=\"", id);
				put_esc(f, c->strategy);
				fprintf(f, "\" fill=\"%s\" fill-opacity=\"0.13\" "
					"stroke=\"none\" d=\"", s->color);
			}
			any = true;
			for (size_t k = a; k <= z; k++)
				fprintf(f, "%s%s,%s", k == a ? "M" : " L",
					N(px(p, (double)op->sizes_bytes[k])),
					N(py(p, fmin(fmax(c->p90_mib_s[k], ylo), yhi))));
			for (size_t k = z + 1; k-- > a;)
				fprintf(f, " L%s,%s", N(px(p, (double)op->sizes_bytes[k])),
					N(py(p, fmin(fmax(c->p10_mib_s[k], ylo), yhi))));
			fputs(" Z", f);
		}
		a = z + 1;
	}
	if (any)
		fputs("\"/>\n", f);
}

static bool chosen(const struct policy_op *op, const char *strategy)
{
	for (size_t i = 0; i < op->nranges; i++)
		if (!strcmp(op->ranges[i].strategy, strategy))
			return true;
	return false;
}

static bool suspect(const struct policy_curve *c, size_t k)
{
	return c->cell_flags && (c->cell_flags[k] & POLICY_CELL_SUSPECT);
}

static bool confirmed(const struct policy_curve *c, size_t k)
{
	return c->cell_flags && (c->cell_flags[k] & POLICY_CELL_CONFIRMED);
}

/*
 * The median curve: one path (a subpath per run of measured cells) and
 * its points.  A strategy some range chose is drawn heavier.  A suspect
 * cell (discarded by the decision) is a hollow marker off the line; a
 * confirmed one (an island measured twice, kept) a ring around its point.
 */
static void draw_curve(FILE *f, const struct policy_op *op, const struct policy_curve *c,
		       const struct panel *p, const struct series *s, const char *id)
{
	bool pen = false, first = true, heavy = chosen(op, c->strategy);

	fprintf(f, "<path class=\"curve%s%s\" id=\"%s\" data-strategy=\"",
		c->reference_only ? " reference" : "", heavy ? " chosen" : "", id);
	put_esc(f, c->strategy);
	fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s d=\"", s->color,
		heavy ? "2.6" : "1.5", c->reference_only ? " stroke-dasharray=\"6 4\"" : "");
	for (size_t k = 0; k < op->nsizes; k++) {
		if (suspect(c, k))	/* the line passes it by */
			continue;
		if (!usable(c->median_mib_s[k])) {
			pen = false;
			continue;
		}
		fprintf(f, "%s%s%s,%s", first ? "" : " ", pen ? "L" : "M",
			N(px(p, (double)op->sizes_bytes[k])), N(py(p, c->median_mib_s[k])));
		pen = true;
		first = false;
	}
	fputs("\"><title>", f);
	put_esc(f, c->strategy);
	fputs(c->reference_only ? " (reference: not a persistent copy on this target)" :
	      " (median)", f);
	/* the measured points: zero-length strokes with round caps are dots */
	fprintf(f, "</title></path>\n<path class=\"points\" stroke=\"%s\" stroke-width=\"%s\" "
		"stroke-linecap=\"round\" d=\"", s->color, heavy ? "4.6" : "3.8");
	pen = false;
	for (size_t k = 0; k < op->nsizes; k++)
		if (usable(c->median_mib_s[k]) && !suspect(c, k)) {
			fprintf(f, "%sM%s,%sh0", pen ? " " : "",
				N(px(p, (double)op->sizes_bytes[k])), N(py(p, c->median_mib_s[k])));
			pen = true;
		}
	fputs("\"/>\n", f);
	for (size_t k = 0; k < op->nsizes; k++) {
		if (!usable(c->median_mib_s[k]) || !suspect(c, k))
			continue;
		fprintf(f, "<circle class=\"suspect\" cx=\"%s\" cy=\"%s\" r=\"3.5\" fill=\"#fff\" "
			"stroke=\"%s\" stroke-width=\"1.4\"><title>", N(px(p, (double)op->sizes_bytes[k])),
			N(py(p, c->median_mib_s[k])), s->color);
		put_esc(f, c->strategy);
		fprintf(f, " at %" PRIu64 " B: %.0f MiB/s, implausible after a second "
			"measurement, not used</title></circle>\n", op->sizes_bytes[k],
			c->median_mib_s[k]);
	}
	for (size_t k = 0; k < op->nsizes; k++) {
		if (!usable(c->median_mib_s[k]) || suspect(c, k) || !confirmed(c, k))
			continue;
		fprintf(f, "<circle class=\"confirmed\" cx=\"%s\" cy=\"%s\" r=\"5.5\" "
			"fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\"><title>",
			N(px(p, (double)op->sizes_bytes[k])), N(py(p, c->median_mib_s[k])),
			s->color);
		put_esc(f, c->strategy);
		fprintf(f, " at %" PRIu64 " B: %.0f MiB/s, a one-size island measured again "
			"and confirmed: kept</title></circle>\n", op->sizes_bytes[k],
			c->median_mib_s[k]);
	}
}

/* A size some rule switches at: the exported thresholds and the fixed defaults. */
struct marker {
	double bytes;
	bool exported;		/* from this policy (else a fixed rule) */
	char text[80];
};

#define MARKERS_MAX	8

static void marker_add(struct marker *m, size_t *n, double bytes, bool exported,
		       const char *what)
{
	char sz[24];

	if (*n == MARKERS_MAX || !(bytes > 0))
		return;
	m[*n].bytes = bytes;
	m[*n].exported = exported;
	snprintf(m[*n].text, sizeof(m[*n].text), "%s %s", what,
		 policy_format_bytes((uint64_t)bytes, sz, sizeof(sz)));
	(*n)++;
}

/* An export key's value as bytes, or 0 (absent, "never", not a number). */
static double key_bytes(const struct policy *p, const struct export_key *k)
{
	char v[POLICY_NAME_MAX], *end;
	unsigned long long n;

	if (!k || export_key_value(p, k, v, sizeof(v)))
		return 0;
	n = strtoull(v, &end, 0);
	return end != v && !*end ? (double)n : 0;
}

static size_t markers_of(const struct policy *p, struct marker *m)
{
	size_t n = 0;

	for (int c = 0; c < EXPORT_NCONSUMERS; c++) {
		const struct export_consumer_info *ci = export_consumer(c);

		if (ci->threshold)
			marker_add(m, &n, key_bytes(p, export_key_find_kv(c, ci->threshold)), true,
				   ci->name);
	}
	marker_add(m, &n, key_bytes(p, export_key_find("glibc.cpu.x86_non_temporal_threshold")),
		   true, "glibc");
	/* what the consumers do without a policy */
	marker_add(m, &n, 256, false, "PMDK default");
	marker_add(m, &n, 768, false, "dm-writecache default");
	/* glibc's x86 default: 3/4 of the shared cache */
	if (p->platform.cpu.llc_bytes)
		marker_add(m, &n, (double)p->platform.cpu.llc_bytes * 0.75, false,
			   "glibc default (3/4 LLC)");
	return n;
}

static void draw_markers(FILE *f, const struct panel *p, const struct marker *m, size_t n,
			 bool text)
{
	for (size_t i = 0; i < n; i++) {
		double x = px(p, m[i].bytes);
		const char *color = m[i].exported ? "#b30000" : "#555";

		if (x < p->x || x > p->x + p->w)
			continue;
		fprintf(f, "<g class=\"marker%s\" data-size-bytes=\"%.0f\"><line x1=\"%s\" "
			"y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"1.3\" "
			"stroke-dasharray=\"%s\"/>", m[i].exported ? " exported" : "", m[i].bytes,
			N(x), N(p->top), N(x), N(p->bottom), color,
			m[i].exported ? "6 3" : "1.5 2.5");
		if (text) {
			/* along the line, reading upwards, from the top of the data */
			fprintf(f, "<text class=\"halo\" transform=\"translate(%s,%s) rotate(-90)\" "
				"font-size=\"10\" text-anchor=\"end\" fill=\"%s\">", N(x - 3),
				N(p->top + 2), color);
			put_esc(f, m[i].text);
			fputs("</text>", f);
		}
		fputs("</g>\n", f);
	}
}

struct end_label {
	double y, y_line;
	const struct policy_curve *c;
};

static int end_label_cmp(const void *a, const void *b)
{
	const struct end_label *x = a, *y = b;

	return (x->y > y->y) - (x->y < y->y);
}

/* Each curve's name at its last point, pushed apart so that none overlap. */
static void draw_end_labels(FILE *f, const struct policy_op *op, const struct panel *p,
			    const struct palette *pal, double (*yof)(const struct panel *,
								     const struct policy_op *,
								     size_t c, size_t k))
{
	struct end_label l[op->ncurves ? op->ncurves : 1];
	size_t n = 0;

	for (size_t i = 0; i < op->ncurves; i++)
		for (size_t k = op->nsizes; k-- > 0;) {
			double y = yof(p, op, i, k);

			if (!isfinite(y))
				continue;
			l[n].y = l[n].y_line = y;
			l[n++].c = &op->curves[i];
			break;
		}
	qsort(l, n, sizeof(l[0]), end_label_cmp);
	for (size_t i = 1; i < n; i++)
		l[i].y = fmax(l[i].y, l[i - 1].y + END_LABEL_GAP);
	for (size_t i = n; i-- > 0;)
		l[i].y = fmin(l[i].y, i + 1 < n ? l[i + 1].y - END_LABEL_GAP : p->y + p->h);
	for (size_t i = 0; i < n; i++) {
		const struct series *s = palette_find(pal, l[i].c->strategy);

		fprintf(f, "<g class=\"end-label\"><line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
			"stroke=\"%s\"/><text x=\"%s\" y=\"%s\" font-size=\"10\" fill=\"%s\">",
			N(p->x + p->w), N(l[i].y_line), N(p->x + p->w + 5), N(l[i].y), s->color,
			N(p->x + p->w + 7), N(l[i].y + 3.5), s->color);
		put_esc(f, l[i].c->strategy);
		fputs("</text></g>\n", f);
	}
}

static double y_median(const struct panel *p, const struct policy_op *op, size_t c, size_t k)
{
	double v = op->curves[c].median_mib_s[k];

	return usable(v) ? py(p, v) : NAN;
}

/* The best persistent median at size k, or NAN. */
static double best_at(const struct policy_op *op, size_t k)
{
	double best = NAN;

	for (size_t i = 0; i < op->ncurves; i++)
		if (!op->curves[i].reference_only && usable(op->curves[i].median_mib_s[k]))
			best = isnan(best) ? op->curves[i].median_mib_s[k]
					   : fmax(best, op->curves[i].median_mib_s[k]);
	return best;
}

#define RATIO_LO	0.4

static double y_ratio(const struct panel *p, const struct policy_op *op, size_t c, size_t k)
{
	double v = op->curves[c].median_mib_s[k], best = best_at(op, k);

	if (op->curves[c].reference_only || !usable(v) || !usable(best))
		return NAN;
	/* below RATIO_LO the curve runs along the floor: such a rule is out anyway */
	return p->bottom - (fmax(v / best, RATIO_LO) - RATIO_LO) / (1 - RATIO_LO) *
			   (p->bottom - p->top);
}

/*
 * Under each panel: every strategy's median over the best one at that
 * size, the view that shows what a fixed threshold costs.
 */
static void draw_ratio(FILE *f, const struct policy_op *op, const struct panel *main_p,
		       double y0, const struct palette *pal, const struct marker *m, size_t nm)
{
	struct panel p = *main_p;
	static const double ticks[] = { 0.4, 0.6, 0.8, 1.0 };

	p.y = y0;
	p.h = RATIO_H - 40;
	p.top = p.y + 4;
	p.bottom = p.y + p.h;
	fprintf(f, "<g class=\"ratio\"><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" "
		"fill=\"#fff\"/>\n", N(p.x), N(p.y), N(p.w), N(p.h));
	draw_ranges(f, op, &p, pal, "ratio-range");
	fputs("<g font-size=\"11\" text-anchor=\"end\">\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(ticks); i++) {
		double y = p.bottom - (ticks[i] - RATIO_LO) / (1 - RATIO_LO) * (p.bottom - p.top);

		fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#e3e3e3\"/>"
			"<text x=\"%s\" y=\"%s\">%.1f</text>\n", N(p.x), N(y), N(p.x + p.w), N(y),
			N(p.x - 5), N(y + 4), ticks[i]);
	}
	fputs("</g>\n", f);
	draw_markers(f, &p, m, nm, false);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < op->ncurves; i++) {
			const struct series *s = palette_find(pal, op->curves[i].strategy);
			bool heavy = chosen(op, op->curves[i].strategy), pen = false;

			if (heavy != pass || op->curves[i].reference_only)
				continue;
			fprintf(f, "<path class=\"ratio-curve\" data-strategy=\"");
			put_esc(f, op->curves[i].strategy);
			fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" d=\"", s->color,
				heavy ? "2.2" : "1.2");
			for (size_t k = 0; k < op->nsizes; k++) {
				double y = y_ratio(&p, op, i, k);

				if (!isfinite(y)) {
					pen = false;
					continue;
				}
				fprintf(f, "%s%s,%s ", pen ? "L" : "M",
					N(px(&p, (double)op->sizes_bytes[k])), N(y));
				pen = true;
			}
			fputs("\"/>\n", f);
		}
	draw_end_labels(f, op, &p, pal, y_ratio);
	fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" "
		"stroke=\"#888\"/>\n", N(p.x), N(p.y), N(p.w), N(p.h));
	fprintf(f, "<text transform=\"translate(%s,%s) rotate(-90)\" font-size=\"%d\" "
		"text-anchor=\"middle\" fill=\"#333\">ratio to the best</text>\n",
		N(p.x - 50), N(p.y + p.h / 2), FS);
	fputs("<g class=\"xticks\" font-size=\"11\" text-anchor=\"middle\">\n", f);
	for (double e = p.lx_lo; e <= p.lx_hi + 1e-9;
	     e += 2 * ceil((p.lx_hi - p.lx_lo) / 2 / 12)) {
		char label[32];

		policy_format_size((uint64_t)pow(2, e), label, sizeof(label));
		fprintf(f, "<text x=\"%s\" y=\"%s\">%s</text>\n", N(px(&p, pow(2, e))),
			N(p.y + p.h + 14), label);
	}
	fputs("</g></g>\n", f);
}

static int draw_panel(FILE *f, const struct policy *pol, const struct policy_op *op, double x0,
		      double y0, double w, const struct palette *pal, const char *pid)
{
	struct marker m[MARKERS_MAX];
	size_t nm = markers_of(pol, m);
	struct xo_label *xl = calloc(op->ncrossovers ? op->ncrossovers : 1, sizeof(*xl));
	struct panel p = { .x = x0 + PLOT_L, .y = y0 + PLOT_T, .w = w - PLOT_L - PLOT_R,
			   .h = PANEL_H - PLOT_T - PLOT_B };
	char id[128];
	int rows;

	if (!xl)
		return -ENOMEM;
	x_range(op, &p);
	y_range(op, &p);
	rows = layout_crossovers(op, &p, xl);
	p.top = p.y + 4 + rows * XO_ROW_H + CEIL_LABEL_H;
	p.bottom = p.y + p.h - RANGE_LABEL_H;

	fprintf(f, "<g class=\"panel\" id=\"%s\" data-op=\"", pid);
	put_esc(f, op->op);
	fputs("\" data-pattern=\"", f);
	put_esc(f, op->pattern);
	fprintf(f, "\" data-threads=\"%u\">\n", op->threads);
	fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#fff\"/>\n",
		N(p.x), N(p.y), N(p.w), N(p.h));
	draw_ranges(f, op, &p, pal, "range");
	draw_grid(f, &p);
	for (size_t i = 0; i < op->ncurves; i++) {
		snprintf(id, sizeof(id), "%s-c%zu", pid, i);
		draw_band(f, op, &op->curves[i], &p, palette_find(pal, op->curves[i].strategy), id);
	}
	if (usable(op->ceiling_mib_s)) {
		double y = py(&p, op->ceiling_mib_s);

		fprintf(f, "<g class=\"ceiling\" data-mib-s=\"%.1f\">"
			"<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#222\" "
			"stroke-width=\"1.2\" stroke-dasharray=\"8 4\"/>"
			"<text class=\"halo\" x=\"%s\" y=\"%s\" font-size=\"%d\" "
			"text-anchor=\"end\" fill=\"#222\">"
			"ceiling %.0f MiB/s (non-temporal fill)</text></g>\n",
			op->ceiling_mib_s, N(p.x), N(y), N(p.x + p.w), N(y), N(p.x + p.w - 4),
			N(y - 4), FS_SMALL, op->ceiling_mib_s);
	}
	for (size_t i = 0; i < op->ncrossovers; i++)
		fprintf(f, "<line class=\"crossover-line\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
			"stroke=\"#444\" stroke-width=\"1.2\" stroke-dasharray=\"3 2\"/>\n",
			N(xl[i].x), N(p.y), N(xl[i].x), N(p.y + p.h));
	/* the chosen strategies last, on top */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < op->ncurves; i++) {
			if (chosen(op, op->curves[i].strategy) != pass)
				continue;
			snprintf(id, sizeof(id), "%s-c%zu", pid, i);
			draw_curve(f, op, &op->curves[i], &p,
				   palette_find(pal, op->curves[i].strategy), id);
		}
	for (size_t i = 0; i < op->ncrossovers; i++) {
		const struct policy_crossover *x = &op->crossovers[i];

		fprintf(f, "<g class=\"crossover\" data-size-bytes=\"%" PRIu64 "\" data-below=\"",
			x->size_bytes);
		put_esc(f, x->below);
		fputs("\" data-above=\"", f);
		put_esc(f, x->above);
		fprintf(f, "\" data-confidence=\"%.2f\"><text class=\"halo\" x=\"%s\" y=\"%s\" "
			"font-size=\"%d\"%s fill=\"#222\">", x->confidence,
			N(xl[i].left ? xl[i].x - 3 : xl[i].x + 3),
			N(p.y + 4 + (xl[i].row + 1) * XO_ROW_H - 3), FS_SMALL,
			xl[i].left ? " text-anchor=\"end\"" : "");
		put_esc(f, xl[i].text);
		fputs("</text></g>\n", f);
	}
	draw_markers(f, &p, m, nm, true);
	draw_end_labels(f, op, &p, pal, y_median);
	label_ranges(f, op, &p, pal);
	if (!op->ncurves || !op->nsizes)
		fprintf(f, "<text x=\"%s\" y=\"%s\" font-size=\"%d\" text-anchor=\"middle\" "
			"fill=\"#888\">nothing measured</text>\n", N(p.x + p.w / 2),
			N(p.y + p.h / 2), FS);
	draw_axes(f, op, &p);
	if (op->ncurves && op->nsizes)
		draw_ratio(f, op, &p, y0 + PANEL_H, pal, m, nm);
	fputs("</g>\n", f);
	free(xl);
	return 0;
}

/* Legend items flow left to right and wrap. */
struct flow {
	double x, y, x0, x1;
	int rows;
};

static void flow_item(struct flow *fl, double w)
{
	if (fl->x > fl->x0 && fl->x + w > fl->x1) {
		fl->x = fl->x0;
		fl->y += LEGEND_ROW_H;
		fl->rows++;
	}
}

/* Returns the height used. */
static double draw_legend(FILE *f, const struct palette *pal, double x0, double y0)
{
	struct flow fl = { .x = x0, .y = y0 + 14, .x0 = x0, .x1 = PAGE_W - MARGIN,
			   .rows = 1 };
	static const char *const keys[] = {
		"p10..p90 spread", "range: the strategy chosen there", "crossover", "ceiling",
		"threshold this policy exports", "a consumer's default rule",
	};

	fputs("<g class=\"legend\" font-size=\"11\">\n", f);
	for (size_t i = 0; i < pal->n; i++) {
		const struct series *s = &pal->s[i];
		char text[POLICY_NAME_MAX + 16];
		double w;

		snprintf(text, sizeof(text), "%s%s%s", s->name, s->reference ? " (reference)" : "",
			 s->curve ? "" : " (no curve)");
		w = 28 + TEXT_W(text, FS_SMALL) + 14;
		flow_item(&fl, w);
		fprintf(f, "<g class=\"legend-item\" data-strategy=\"");
		put_esc(f, s->name);
		fprintf(f, "\"><line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" "
			"stroke-width=\"2.5\"%s/><text x=\"%s\" y=\"%s\">", N(fl.x), N(fl.y - 4),
			N(fl.x + 22), N(fl.y - 4), s->color,
			s->reference ? " stroke-dasharray=\"6 4\"" : "", N(fl.x + 28), N(fl.y));
		put_esc(f, text);
		fputs("</text></g>\n", f);
		fl.x += w;
	}
	/* what the other marks mean, on a row of their own */
	if (pal->n) {
		fl.x = fl.x0;
		fl.y += LEGEND_ROW_H;
		fl.rows++;
	}
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		double w = 28 + TEXT_W(keys[i], FS_SMALL) + 14, x, y;

		flow_item(&fl, w);
		x = fl.x;
		y = fl.y;
		switch (i) {
		case 0:
			fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"22\" height=\"10\" "
				"fill=\"#555\" fill-opacity=\"0.2\"/>", N(x), N(y - 9));
			break;
		case 1:
			fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"22\" height=\"14\" "
				"fill=\"#2ca02c\" fill-opacity=\"0.12\" stroke=\"#888\" "
				"stroke-width=\"0.5\"/>", N(x), N(y - 11));
			break;
		case 2:
			fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#444\" "
				"stroke-width=\"1.2\" stroke-dasharray=\"3 2\"/>", N(x + 11),
				N(y - 13), N(x + 11), N(y + 3));
			break;
		case 3:
			fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#222\" "
				"stroke-width=\"1.2\" stroke-dasharray=\"8 4\"/>", N(x), N(y - 4),
				N(x + 22), N(y - 4));
			break;
		default:
			fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" "
				"stroke-width=\"1.3\" stroke-dasharray=\"%s\"/>", N(x + 11),
				N(y - 13), N(x + 11), N(y + 3), i == 4 ? "#b30000" : "#555",
				i == 4 ? "6 3" : "1.5 2.5");
			break;
		}
		fprintf(f, "<text x=\"%s\" y=\"%s\" fill=\"#333\">%s</text>\n", N(x + 28), N(y),
			keys[i]);
		fl.x += w;
	}
	fputs("</g>\n", f);
	return fl.rows * LEGEND_ROW_H + 8;
}

#define SAT_W		220
#define SAT_H		56
#define SAT_ROW_H	(SAT_H + 34)

/*
 * Bandwidth against threads, one small chart per family, the step where
 * it saturates marked; the placement line above them.  Returns the
 * height used (0 for a policy without these fields).
 */
static double draw_saturation(FILE *f, const struct policy_target *t, double y)
{
	double x = MARGIN, top = 0;
	bool any = false;

	for (int fam = 0; fam < POLICY_NR_FAMILIES; fam++)
		any |= t->saturation[fam].present;
	if (t->placement[0]) {
		fprintf(f, "<text class=\"placement\" x=\"%d\" y=\"%s\" font-size=\"%d\" "
			"fill=\"#444\">probed from node %d (", MARGIN, N(y + 12), FS,
			t->probed_from_node);
		put_esc(f, t->placement);
		fprintf(f, "), %zu CPU%s", t->ncpus_used, t->ncpus_used == 1 ? "" : "s");
		if (t->remote_penalty.present && usable(t->remote_penalty.ratio))
			fprintf(f, "; from node %d, %.2f times slower", t->remote_penalty.from_node,
				t->remote_penalty.ratio);
		fputs("</text>\n", f);
		top = 18;
	}
	if (!any)
		return top;
	fputs("<g class=\"saturation\">\n", f);
	for (int fam = 0; fam < POLICY_NR_FAMILIES; fam++) {
		const struct policy_saturation *s = &t->saturation[fam];
		double max = 0, y0 = y + top + 16;
		char b1[32], b2[32];

		if (!s->present)
			continue;
		for (size_t i = 0; i < s->nsteps; i++)
			max = usable(s->mib_s[i]) && s->mib_s[i] > max ? s->mib_s[i] : max;
		fprintf(f, "<text x=\"%s\" y=\"%s\" font-size=\"%d\">%s", N(x), N(y0 - 4), FS_SMALL,
			policy_family_name(fam));
		if (s->strategy[0]) {
			fputs(" (", f);
			put_esc(f, s->strategy);
			fputc(')', f);
		}
		fprintf(f, ": saturates at %u</text>\n", s->saturates_at);
		fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"%d\" height=\"%d\" fill=\"none\" "
			"stroke=\"#ccc\"/>\n", N(x), N(y0), SAT_W, SAT_H);
		fputs("<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"", f);
		for (size_t i = 0; i < s->nsteps && max > 0; i++) {
			double px_ = x + 10 + (SAT_W - 20) * (s->nsteps > 1 ? (double)i /
							      (double)(s->nsteps - 1) : 0.5);
			double py_ = y0 + SAT_H - 6 - (SAT_H - 12) * (usable(s->mib_s[i]) ?
								     s->mib_s[i] / max : 0);

			fprintf(f, "%s%s,%s", i ? " " : "", num(b1, px_), num(b2, py_));
		}
		fputs("\"/>\n", f);
		for (size_t i = 0; i < s->nsteps; i++) {
			double px_ = x + 10 + (SAT_W - 20) * (s->nsteps > 1 ? (double)i /
							      (double)(s->nsteps - 1) : 0.5);

			fprintf(f, "<text x=\"%s\" y=\"%s\" font-size=\"%d\" text-anchor=\"middle\""
				"%s>%ut</text>\n", N(px_), N(y0 + SAT_H + 12), FS_SMALL,
				s->threads[i] == s->saturates_at ? " font-weight=\"bold\"" : "",
				s->threads[i]);
		}
		x += SAT_W + COL_GAP;
	}
	fputs("</g>\n", f);
	return top + SAT_ROW_H;
}

static double draw_target(FILE *f, const struct policy *p, const struct policy_target *t,
			  double y, size_t e, size_t ti, int *rc)
{
	struct palette pal;
	int cols = t->nops > 1 ? 2 : 1;
	double w = (PAGE_W - 2 * MARGIN - (cols - 1) * COL_GAP) / (double)cols;
	char pid[80];

	*rc = palette_build(&pal, t);
	if (*rc)
		return y;
	fprintf(f, "<g class=\"target\" id=\"e%zu-t%zu\" data-name=\"", e, ti);
	put_esc(f, t->name);
	fputs("\" data-kind=\"", f);
	put_esc(f, t->kind);
	fprintf(f, "\">\n<text x=\"%d\" y=\"%s\" font-size=\"15\" font-weight=\"bold\">target ",
		MARGIN, N(y + 16));
	put_esc(f, t->name);
	fputs(" (", f);
	put_esc(f, t->kind);
	fputs(")</text>\n", f);
	fprintf(f, "<text x=\"%d\" y=\"%s\" font-size=\"12\" fill=\"#444\">", MARGIN, N(y + 33));
	if (t->device[0]) {
		put_esc(f, t->device);
		fputs(", ", f);
	}
	if (t->mapping[0]) {
		put_esc(f, t->mapping);
		fputs(" mapping, ", f);
	}
	fputs("persistence domain ", f);
	put_esc(f, t->persistence_domain[0] ? t->persistence_domain : "unknown");
	if (t->area_bytes)
		fprintf(f, ", area %" PRIu64 " MiB", t->area_bytes >> 20);
	if (usable(t->ceiling_mib_s))
		fprintf(f, ", ceiling %.0f MiB/s", t->ceiling_mib_s);
	fputs("</text>\n", f);
	y += 42;
	y += draw_saturation(f, t, y);
	if (t->nops) {
		y += draw_legend(f, &pal, MARGIN, y);
	} else {
		fprintf(f, "<text x=\"%d\" y=\"%s\" font-size=\"%d\" fill=\"#888\">no measurements"
			"</text>\n", MARGIN, N(y + 6), FS);
		y += 16;
	}
	for (size_t o = 0; o < t->nops && !*rc; o++) {
		double x = MARGIN + (double)(o % cols) * (w + COL_GAP);
		double py0 = y + (double)(o / cols) * (PANEL_H + RATIO_H + ROW_GAP);

		snprintf(pid, sizeof(pid), "e%zu-t%zu-o%zu", e, ti, o);
		*rc = draw_panel(f, p, &t->ops[o], x, py0, w, &pal, pid);
	}
	if (t->nops)
		y += (double)((t->nops + cols - 1) / cols) * (PANEL_H + RATIO_H + ROW_GAP) - ROW_GAP;
	fputs("</g>\n", f);
	free(pal.s);
	return y + 12;
}

static double draw_entry(FILE *f, const struct policy *p, size_t e, double y, int *rc)
{
	const struct policy_cpu *c = &p->platform.cpu;

	fprintf(f, "<g class=\"entry\" id=\"e%zu\" data-fingerprint=\"", e);
	put_esc(f, p->platform.fingerprint);
	fprintf(f, "\">\n<text x=\"%d\" y=\"%s\" font-size=\"19\" font-weight=\"bold\">", MARGIN,
		N(y + 20));
	put_esc(f, c->vendor[0] ? c->vendor : "unknown CPU");
	fprintf(f, " family %u model %u stepping %u: copy throughput per strategy</text>\n",
		c->family, c->model, c->stepping);
	fprintf(f, "<text x=\"%d\" y=\"%s\" font-size=\"12\" fill=\"#444\">", MARGIN, N(y + 38));
	put_esc(f, p->generator.name);
	fputc(' ', f);
	put_esc(f, p->generator.version);
	fputs(", ", f);
	put_esc(f, p->generator.mode);
	fputs(" mode, created ", f);
	put_esc(f, p->generator.created);
	if (p->merged.hosts)
		fprintf(f, ", merged from %u hosts", p->merged.hosts);
	if (p->platform.kernel[0]) {
		fputs(", kernel ", f);
		put_esc(f, p->platform.kernel);
	}
	fputs(", ", f);
	put_esc(f, p->platform.fingerprint);
	fputs("</text>\n", f);
	y += 56;
	if (!p->ntargets) {
		fprintf(f, "<text x=\"%d\" y=\"%s\" font-size=\"%d\" fill=\"#888\">"
			"no targets</text>\n", MARGIN, N(y + 14), FS);
		y += 24;
	}
	for (size_t t = 0; t < p->ntargets && !*rc; t++)
		y = draw_target(f, p, &p->targets[t], y, e, t, rc);
	fputs("</g>\n", f);
	return y;
}

char *plot_render(const struct policy_bundle *b, size_t *len)
{
	char *body = NULL, *out = NULL;
	size_t blen = 0;
	double y = MARGIN;
	int rc = 0;
	FILE *f = open_memstream(&body, &blen);

	if (!f)
		return NULL;
	for (size_t e = 0; e < b->n && !rc; e++) {
		if (e) {
			fprintf(f, "<line x1=\"%d\" y1=\"%s\" x2=\"%d\" y2=\"%s\" "
				"stroke=\"#bbb\"/>\n", MARGIN, N(y), PAGE_W - MARGIN, N(y));
			y += 12;
		}
		y = draw_entry(f, b->entries[e], e, y, &rc);
	}
	if (ferror(f))
		rc = -ENOMEM;
	if (fclose(f) || rc) {
		free(body);
		errno = rc ? -rc : ENOMEM;
		return NULL;
	}
	y += MARGIN;
	f = open_memstream(&out, len);
	if (!f) {
		free(body);
		return NULL;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%.0f\" viewBox=\"0 0 %d %.0f\">\n"
		"<title>pmem-tune policy: copy throughput per strategy and size</title>\n"
		"<style>\n"
		"text { font-family: 'DejaVu Sans', 'Liberation Sans', Arial, Helvetica, "
		"sans-serif; fill: #111; }\n"
		"text.halo { paint-order: stroke; stroke: #fff; stroke-width: 3px; "
		"stroke-linejoin: round; }\n"
		"</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		PAGE_W, ceil(y), PAGE_W, ceil(y));
	fwrite(body, 1, blen, f);
	fputs("</svg>\n", f);
	free(body);
	if (ferror(f)) {
		fclose(f);
		free(out);
		errno = ENOMEM;
		return NULL;
	}
	if (fclose(f)) {
		free(out);
		errno = ENOMEM;
		return NULL;
	}
	return out;
}

int plot_cmd(const char *svg, const char *path, unsigned flags)
{
	struct policy_bundle *b = policy_file_load(path, flags);
	char *text;
	size_t len = 0;
	bool csv;
	int rc;

	if (!b)
		return 2;
	/* FILE.csv: the curves as a table, for people who plot their own */
	csv = strlen(svg) > 4 && !strcmp(svg + strlen(svg) - 4, ".csv");
	text = csv ? curves_csv(b, &len) : plot_render(b, &len);
	policy_bundle_free(b);
	if (!text) {
		fprintf(stderr, "pmem-tune: --plot %s: %s\n", svg, strerror(errno ?: ENOMEM));
		return 1;
	}
	/* through a temporary file and rename: a failed write leaves no torn SVG */
	if (strcmp(svg, "-"))
		rc = atomic_write_file(svg, text, len, 0644);
	else
		rc = fwrite(text, 1, len, stdout) == len && !fflush(stdout) ? 0 : -EIO;
	free(text);
	if (rc) {
		fprintf(stderr, "pmem-tune: %s: cannot write the plot: %s\n", svg, strerror(-rc));
		return 2;
	}
	return 0;
}
