// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tune --plot: a policy's throughput curves as one SVG.
 *
 * One section per target (a bundle: per entry, then per target), a
 * legend, then one panel per op that measured something: size on a log2
 * axis, MiB/s on a log10 axis (equal ratios look equal, so the small
 * sizes where crossovers live are as legible as the large ones).  Each
 * family (streaming, cached + flush) is one bold line with its spread,
 * its other members faint; what the policy runs is one highlight; the
 * chosen ranges shaded, crossovers, the ceiling and each consumer's
 * threshold drawn as lines, each curve named at its end.  Under it every
 * strategy's ratio to the best at each size, which shows what a threshold
 * costs, and for a merged entry its hosts over their median.  Written by
 * hand with fixed number formats: no scripts, no external fonts or files,
 * and the same policy gives the same bytes.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/commands.h"
#include "cli/plot.h"
#include "cli/plot_png.h"
#include "cli/table.h"
#include "common/atomic_file.h"
#include "common/macros.h"
#include "policy/export_keys.h"
#include "policy/policy.h"
#include "policy/policy_limits.h"
#include "rule/strategy_class.h"

/* Geometry in px.  Two panels a row fit a laptop browser at 100 %. */
#define PAGE_W		1200
#define MARGIN		20
#define COL_GAP		24
#define ROW_GAP		18
#define PANEL_H		390
#define PLOT_L		66	/* y tick labels and the y axis title */
#define PLOT_R		100	/* the curves' names at their line ends */
#define RATIO_H		150	/* the "ratio to the best" panel under each panel */
#define HOSTS_H		130	/* a merged entry's hosts over their median, under that */
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

/*
 * Fixed colours for the known strategies, so that plots compare: the
 * streaming family in blues and purple, cached stores + flush in reds,
 * oranges and browns, the volatile reference grey.
 */
static const struct {
	const char *name;
	const char *color;
} known_colors[] = {
	{ "movnt", "#6b8fd6" },
	{ "movnt_sse2", "#1799b8" },
	{ "movnt_avx2", "#3a78c2" },
	{ "movnt_avx512", "#1c3f94" },
	{ "movdir64b", "#6a3d9a" },
	{ "clwb", "#c0281f" },
	{ "clflushopt", "#e6731a" },
	{ "clflush", "#8c4a2b" },
	{ "rep_movsb_clwb", "#d6489a" },
	{ "stores8_clwb", "#a0761a" },
	{ "memcpy_clwb", "#e8837a" },
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
	enum policy_family family;
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

/*
 * A size as an operator reads it: "256 B", "768 KiB", "12.4 MiB" (three
 * figures where it is not a whole number of the unit), never "13043648 B".
 */
static const char *fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < ARRAY_SIZE(unit)) {
		v /= 1024;
		u++;
	}
	if (v == floor(v))
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else
		snprintf(buf, len, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v,
			 unit[u]);
	return buf;
}

#define SIZE_TEXT(v) fmt_size((v), (char[24]){ 0 }, 24)

static bool usable(double v)
{
	return isfinite(v) && v > 0;
}

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
	s->family = strategy_family_of(name);
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

			bool measured = false;

			for (size_t k = 0; k < t->ops[o].nsizes; k++)
				measured |= usable(c->median_mib_s[k]);
			if (measured)
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

		fmt_size(x->size_bytes, sz, sizeof(sz));
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

static bool curve_measured(const struct policy_op *op, const struct policy_curve *c)
{
	for (size_t k = 0; k < op->nsizes; k++)
		if (usable(c->median_mib_s[k]))
			return true;
	return false;
}

/* A panel only for an op with something measured: none is drawn empty. */
static bool op_measured(const struct policy_op *op)
{
	for (size_t i = 0; i < op->ncurves; i++)
		if (curve_measured(op, &op->curves[i]))
			return true;
	return false;
}

static int curve_index(const struct policy_op *op, const char *strategy)
{
	for (size_t i = 0; i < op->ncurves; i++)
		if (!strcmp(op->curves[i].strategy, strategy))
			return (int)i;
	return -1;
}

/*
 * A family's line in an op: the member its ranges choose, else the
 * family's default member (strategy_default_rank) measured there; -1
 * when the family has no measured curve.  The other members are faint.
 */
static int family_lead(const struct policy_op *op, enum policy_family fam)
{
	int best = -1, best_rank = 0;

	if (fam == POLICY_FAMILY_NONE)
		return -1;
	for (size_t i = 0; i < op->nranges; i++) {
		int c = curve_index(op, op->ranges[i].strategy);

		if (c >= 0 && strategy_family_of(op->ranges[i].strategy) == fam &&
		    !op->curves[c].reference_only && curve_measured(op, &op->curves[c]))
			return c;
	}
	for (size_t i = 0; i < op->ncurves; i++) {
		const struct policy_curve *c = &op->curves[i];
		int rank = strategy_default_rank(fam, c->strategy);

		if (strategy_family_of(c->strategy) != fam || c->reference_only ||
		    !curve_measured(op, c))
			continue;
		if (rank < 0)
			rank = 1000;
		if (best < 0 || rank < best_rank) {
			best = (int)i;
			best_rank = rank;
		}
	}
	return best;
}

static bool is_lead(const struct policy_op *op, size_t c)
{
	return family_lead(op, strategy_family_of(op->curves[c].strategy)) == (int)c;
}

static const char *family_word(enum policy_family fam)
{
	return fam == POLICY_FAMILY_STREAMING ? "streaming" :
	       fam == POLICY_FAMILY_CACHED_FLUSH ? "cached + flush" : "";
}

/* Between lo and hi of one curve: a closed shape per run of cells. */
static void draw_band(FILE *f, const struct policy_op *op, const struct policy_curve *c,
		      const double *lo, const double *hi, const struct panel *p,
		      const struct series *s, const char *id, const char *cls, double opacity)
{
	bool any = false;

	for (size_t a = 0; a < op->nsizes;) {
		size_t z = a;

		if (!usable(lo[a]) || !usable(hi[a])) {
			a++;
			continue;
		}
		while (z + 1 < op->nsizes && usable(lo[z + 1]) && usable(hi[z + 1]))
			z++;
		if (z > a) {
			double ylo = pow(10, p->ly_lo), yhi = pow(10, p->ly_hi);

			if (!any) {
				fprintf(f, "<path class=\"%s\" id=\"%s-%s\" data-strategy=\"", cls,
					id, cls);
				put_esc(f, c->strategy);
				fprintf(f, "\" fill=\"%s\" fill-opacity=\"%.2f\" "
					"stroke=\"none\" d=\"", s->color, opacity);
			}
			any = true;
			for (size_t k = a; k <= z; k++)
				fprintf(f, "%s%s,%s", k == a ? "M" : " L",
					N(px(p, (double)op->sizes_bytes[k])),
					N(py(p, fmin(fmax(hi[k], ylo), yhi))));
			for (size_t k = z + 1; k-- > a;)
				fprintf(f, " L%s,%s", N(px(p, (double)op->sizes_bytes[k])),
					N(py(p, fmin(fmax(lo[k], ylo), yhi))));
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

static const struct policy_range *range_at(const struct policy_op *op, uint64_t size)
{
	for (size_t i = 0; i < op->nranges; i++)
		if (size >= op->ranges[i].from_bytes &&
		    (op->ranges[i].to_bytes == POLICY_SIZE_OPEN || size < op->ranges[i].to_bytes))
			return &op->ranges[i];
	return NULL;
}

/*
 * What the policy does, as one line: at each size the median of the
 * strategy its range names there, a broad highlight under the curves.
 */
static void draw_chosen(FILE *f, const struct policy_op *op, const struct panel *p)
{
	bool pen = false, any = false;

	for (size_t k = 0; k < op->nsizes; k++) {
		const struct policy_range *r = range_at(op, op->sizes_bytes[k]);
		int c = r ? curve_index(op, r->strategy) : -1;

		if (c < 0 || !usable(op->curves[c].median_mib_s[k]) || suspect(&op->curves[c], k)) {
			pen = false;
			continue;
		}
		if (!any)
			fputs("<path class=\"chosen-line\" fill=\"none\" stroke=\"#ffc400\" "
			      "stroke-opacity=\"0.55\" stroke-width=\"9\" "
			      "stroke-linejoin=\"round\" stroke-linecap=\"round\" d=\"", f);
		fprintf(f, "%s%s%s,%s", any ? " " : "", pen ? "L" : "M",
			N(px(p, (double)op->sizes_bytes[k])),
			N(py(p, op->curves[c].median_mib_s[k])));
		pen = any = true;
	}
	if (any)
		fputs("\"><title>chosen: the strategy the policy's ranges name at each size"
		      "</title></path>\n", f);
}

/* How a cell the rule looked at twice is marked, and what its title says. */
struct cell_mark {
	const char *class, *r, *fill, *width, *what;
};

static const struct cell_mark suspect_mark = {
	"suspect", "3.5", "#fff", "1.4", "implausible after a second measurement, not used",
}, confirmed_mark = {
	"confirmed", "5.5", "none", "1.2", "a one-size island measured again and confirmed: kept",
};

static void draw_cell_mark(FILE *f, const struct policy_op *op, const struct policy_curve *c,
			   const struct panel *p, const struct series *s, size_t k,
			   const struct cell_mark *m)
{
	char sz[24];

	fprintf(f, "<circle class=\"%s\" cx=\"%s\" cy=\"%s\" r=\"%s\" fill=\"%s\" "
		"stroke=\"%s\" stroke-width=\"%s\"><title>", m->class,
		N(px(p, (double)op->sizes_bytes[k])), N(py(p, c->median_mib_s[k])), m->r, m->fill,
		s->color, m->width);
	put_esc(f, c->strategy);
	fprintf(f, " at %s: %.0f MiB/s, %s</title></circle>\n",
		fmt_size(op->sizes_bytes[k], sz, sizeof(sz)), c->median_mib_s[k], m->what);
}

/*
 * The median curve: one path (a subpath per run of measured cells) and
 * its points.  A family's lead is bold, its other members faint.  A
 * suspect cell (discarded by the decision) is a hollow marker off the
 * line; a confirmed one (an island measured twice, kept) a ring around
 * its point.
 */
static void draw_curve(FILE *f, const struct policy_op *op, const struct policy_curve *c,
		       const struct panel *p, const struct series *s, const char *id, bool lead)
{
	bool pen = false, first = true;

	fprintf(f, "<path class=\"curve%s%s%s\" id=\"%s\" data-strategy=\"",
		c->reference_only ? " reference" : "", lead ? " lead" : " member",
		chosen(op, c->strategy) ? " chosen" : "", id);
	put_esc(f, c->strategy);
	fprintf(f, "\" data-family=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s%s d=\"",
		strategy_family_name(s->family), s->color, lead ? "2.8" : "1.1",
		lead ? "" : " stroke-opacity=\"0.5\"",
		c->reference_only ? " stroke-dasharray=\"6 4\"" : "");
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
	/* the measured points of a lead: zero-length strokes with round caps are dots */
	fputs("</title></path>\n", f);
	if (lead) {
		fprintf(f, "<path class=\"points\" stroke=\"%s\" stroke-width=\"4.6\" "
			"stroke-linecap=\"round\" d=\"", s->color);
		pen = false;
		for (size_t k = 0; k < op->nsizes; k++)
			if (usable(c->median_mib_s[k]) && !suspect(c, k)) {
				fprintf(f, "%sM%s,%sh0", pen ? " " : "",
					N(px(p, (double)op->sizes_bytes[k])),
					N(py(p, c->median_mib_s[k])));
				pen = true;
			}
		fputs("\"/>\n", f);
	}
	for (size_t k = 0; k < op->nsizes; k++)
		if (usable(c->median_mib_s[k]) && suspect(c, k))
			draw_cell_mark(f, op, c, p, s, k, &suspect_mark);
	for (size_t k = 0; k < op->nsizes; k++)
		if (usable(c->median_mib_s[k]) && !suspect(c, k) && confirmed(c, k))
			draw_cell_mark(f, op, c, p, s, k, &confirmed_mark);
}

/*
 * A merged entry: a host is an outlier at a size where its median lies
 * beyond both the margin the op's decision used (5 % where none was
 * recorded: a host that far off could have decided otherwise) and the
 * p10..p90 a single host's own samples spread over there (noise explains
 * less than that).
 */
static double fleet_margin(const struct policy_op *op)
{
	return op->margin > 0 ? op->margin : 0.05;
}

static bool hosts_known(const struct policy_curve *c)
{
	return c->hosts_min_mib_s && c->hosts_max_mib_s;
}

/* side 0: the slowest host, 1: the fastest */
static bool outlier_side(const struct policy_op *op, const struct policy_curve *c, size_t k,
			 int side)
{
	double m = c->median_mib_s[k], d = fleet_margin(op);
	double v = side ? c->hosts_max_mib_s[k] : c->hosts_min_mib_s[k];
	double q = side ? c->p90_mib_s[k] : c->p10_mib_s[k];

	if (!hosts_known(c) || !usable(m) || !usable(v))
		return false;
	if (side)
		return v > m * (1 + d) && (!usable(q) || v > q);
	return v < m * (1 - d) && (!usable(q) || v < q);
}

/* A size some rule switches at: the exported thresholds and the fixed defaults. */
struct marker {
	double bytes;		/* HUGE_VAL: never switches */
	bool exported;		/* from this policy (else a fixed rule) */
	char text[96];
};

#define MARKERS_MAX	8

static void marker_add(struct marker *m, size_t *n, double bytes, bool exported,
		       const char *what, const char *why)
{
	char sz[24];

	if (*n == MARKERS_MAX || !(bytes >= 0))
		return;
	m[*n].bytes = bytes;
	m[*n].exported = exported;
	if (bytes >= 0x1p63)
		snprintf(m[*n].text, sizeof(m[*n].text), "%s never%s", what, why);
	else
		snprintf(m[*n].text, sizeof(m[*n].text), "%s %s%s", what,
			 fmt_size((uint64_t)bytes, sz, sizeof(sz)), why);
	(*n)++;
}

/* An export key's value as bytes, or -1 (absent, not a number). */
static double key_bytes(const struct policy *p, enum export_key_id id)
{
	const struct export_key *k = &export_keys[id];
	char v[POLICY_NAME_MAX];
	uint64_t n;

	if (export_key_value(p, k, v, sizeof(v)) || export_key_decode(k, v, &n))
		return -1;
	return n == UINT64_MAX ? HUGE_VAL : (double)n;
}

/*
 * Each consumer's threshold from the policy's exports, named by the
 * consumer and its knob, and a consumer's default only where the export
 * moved it: what the policy changes against doing nothing.
 */
static size_t markers_of(const struct policy *p, struct marker *m)
{
	static const struct {
		enum export_key_id id;
		const char *what;
		double dflt;		/* 0: none fixed; -1: 3/4 of the LLC */
		const char *dflt_what;
	} rules[] = {
		{ EXPORT_PMEM_MOVNT_THRESHOLD, "PMDK PMEM_MOVNT_THRESHOLD", 256, "PMDK default" },
		{ EXPORT_KERNEL_NT_MAX, "dm-writecache nt_max_bytes", 768,
		  "dm-writecache default" },
		{ EXPORT_GLIBC_NT_THRESHOLD, "glibc x86_non_temporal_threshold", -1,
		  "glibc default (3/4 LLC)" },
		{ EXPORT_GLIBC_REP_MOVSB_THRESHOLD, "glibc x86_rep_movsb_threshold", 0, NULL },
	};
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		double v = key_bytes(p, rules[i].id), d = rules[i].dflt;
		char why[80];

		if (d < 0)
			d = (double)p->platform.cpu.llc_bytes * 0.75;
		if (v < 0 && d > 0) {
			/* not exported: the consumer keeps its default, which is its threshold */
			snprintf(why, sizeof(why), " (default)");
			marker_add(m, &n, d, false, rules[i].what, why);
			continue;
		}
		marker_add(m, &n, v, true, rules[i].what, v == d ? " (= default)" : "");
		if (d > 0 && v != d)
			marker_add(m, &n, d, false, rules[i].dflt_what, "");
	}
	return n;
}

/*
 * A threshold off the axis sits at its edge with an arrow, so that every
 * consumer's value is on the page.  Labels read upwards along the line,
 * from the top of the data; two at one place stack side by side.
 */
static void draw_markers(FILE *f, const struct panel *p, const struct marker *m, size_t n,
			 bool text)
{
	double xs[MARKERS_MAX];

	for (size_t i = 0; i < n; i++) {
		double x = m[i].bytes > 0 ? px(p, fmin(m[i].bytes, 0x1p70)) : -INFINITY;
		const char *color = m[i].exported ? "#b30000" : "#666";
		const char *arrow = x < p->x ? " \u25c2" : x > p->x + p->w ? " \u25b8" : "";

		x = fmin(fmax(x, p->x + 1), p->x + p->w - 1);
		for (size_t j = 0; j < i; j++)
			if (fabs(xs[j] - x) < 11)
				x = xs[j] + 11 * (x >= p->x + p->w - 12 ? -1 : 1);
		xs[i] = x;
		fprintf(f, "<g class=\"marker%s\" data-size-bytes=\"%.0f\"><line x1=\"%s\" "
			"y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"%s\" "
			"stroke-dasharray=\"%s\"/>", m[i].exported ? " exported" : "",
			fmin(m[i].bytes, 0x1p64), N(x), N(p->top), N(x), N(p->bottom), color,
			m[i].exported ? "1.5" : "1", m[i].exported ? "6 3" : "1.5 2.5");
		if (text) {
			fprintf(f, "<text class=\"halo\" "
				"transform=\"translate(%s,%s) rotate(-90)\" font-size=\"9.5\" "
				"text-anchor=\"end\" fill=\"%s\"%s>", N(x - 3), N(p->top + 2),
				color, m[i].exported ? " font-weight=\"bold\"" : "");
			put_esc(f, m[i].text);
			fputs(arrow, f);
			fputs("</text>", f);
		}
		fputs("</g>\n", f);
	}
}

struct end_label {
	double y, y_line;
	const struct policy_curve *c;
	bool lead;
};

static int end_label_cmp(const void *a, const void *b)
{
	const struct end_label *x = a, *y = b;

	return (x->y > y->y) - (x->y < y->y);
}

/*
 * Each curve's name at its last point, pushed apart so that none
 * overlap; a lead's in bold with its family, a member's faint.
 */
static void draw_end_labels(FILE *f, const struct policy_op *op, const struct panel *p,
			    const struct palette *pal, bool leads_only,
			    double (*yof)(const struct panel *, const struct policy_op *, size_t c,
					  size_t k))
{
	struct end_label l[POLICY_MAX_CURVES];
	size_t n = 0;

	assert(op->ncurves <= POLICY_MAX_CURVES);

	for (size_t i = 0; i < op->ncurves; i++) {
		bool lead = is_lead(op, i);

		if (leads_only && !lead)
			continue;
		for (size_t k = op->nsizes; k-- > 0;) {
			double y = yof(p, op, i, k);

			if (!isfinite(y))
				continue;
			l[n].y = l[n].y_line = y;
			l[n].lead = lead;
			l[n++].c = &op->curves[i];
			break;
		}
	}
	qsort(l, n, sizeof(l[0]), end_label_cmp);
	for (size_t i = 1; i < n; i++)
		l[i].y = fmax(l[i].y, l[i - 1].y + END_LABEL_GAP);
	for (size_t i = n; i-- > 0;)
		l[i].y = fmin(l[i].y, i + 1 < n ? l[i + 1].y - END_LABEL_GAP : p->y + p->h);
	for (size_t i = 0; i < n; i++) {
		const struct series *s = palette_find(pal, l[i].c->strategy);

		fprintf(f, "<g class=\"end-label\"><line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
			"stroke=\"%s\"/><text x=\"%s\" y=\"%s\" font-size=\"10\" fill=\"%s\"%s>",
			N(p->x + p->w), N(l[i].y_line), N(p->x + p->w + 5), N(l[i].y), s->color,
			N(p->x + p->w + 7), N(l[i].y + 3.5), s->color,
			l[i].lead ? " font-weight=\"bold\"" : " fill-opacity=\"0.75\"");
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

/*
 * The ratio panel's scale: log10 from the lowest ratio measured (floored
 * to a 1-2-5 step) to 1, so that every curve shows whole; the lowest the
 * ratio axis goes, stored in the panel's ly_lo (ly_hi is 0).
 */
static double ratio_lo(const struct policy_op *op)
{
	double lo = 1;

	for (size_t i = 0; i < op->ncurves; i++)
		for (size_t k = 0; k < op->nsizes && !op->curves[i].reference_only; k++) {
			double v = op->curves[i].median_mib_s[k], best = best_at(op, k);

			if (usable(v) && usable(best) && !suspect(&op->curves[i], k))
				lo = fmin(lo, v / best);
		}
	lo = step_floor(fmin(lo, 0.9));
	return fmax(lo, 1e-4);
}

static double ratio_y(const struct panel *p, double r)
{
	return p->bottom - (log10(fmax(r, pow(10, p->ly_lo))) - p->ly_lo) / -p->ly_lo *
			   (p->bottom - p->top);
}

static double y_ratio(const struct panel *p, const struct policy_op *op, size_t c, size_t k)
{
	double v = op->curves[c].median_mib_s[k], best = best_at(op, k);

	if (op->curves[c].reference_only || !usable(v) || !usable(best) ||
	    suspect(&op->curves[c], k))
		return NAN;
	return ratio_y(p, v / best);
}

static void draw_xticks(FILE *f, const struct panel *p)
{
	fputs("<g class=\"xticks\" font-size=\"11\" text-anchor=\"middle\">\n", f);
	for (double e = p->lx_lo; e <= p->lx_hi + 1e-9;
	     e += 2 * ceil((p->lx_hi - p->lx_lo) / 2 / 12)) {
		char label[32];

		policy_format_size((uint64_t)pow(2, e), label, sizeof(label));
		fprintf(f, "<text x=\"%s\" y=\"%s\">%s</text>\n", N(px(p, pow(2, e))),
			N(p->y + p->h + 14), label);
	}
	fputs("</g>\n", f);
}

/* Ticks of a log axis from lo to 1 that stay 13 px apart. */
static void draw_ratio_ticks(FILE *f, const struct panel *p, bool percent)
{
	static const double m[] = { 1, 0.8, 0.6, 0.5, 0.4, 0.3, 0.2, 0.15 };
	double last = -INFINITY;

	fputs("<g class=\"ratio-ticks\" font-size=\"11\" text-anchor=\"end\">\n", f);
	for (double d = 1; d >= pow(10, p->ly_lo) * 0.999; d /= 10)
		for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
			double v = m[i] * d, y = ratio_y(p, v);

			if (v < pow(10, p->ly_lo) * 0.999 || y - last < 13)
				continue;
			last = y;
			fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
				"stroke=\"#e3e3e3\"/><text x=\"%s\" y=\"%s\">", N(p->x), N(y),
				N(p->x + p->w), N(y), N(p->x - 5), N(y + 4));
			if (percent)
				fprintf(f, "%g %%", 100 * v);
			else
				fprintf(f, "%g", v);
			fputs("</text>\n", f);
		}
	fputs("</g>\n", f);
}

/*
 * Under each panel: every strategy's median over the best one at that
 * size, the view that shows what a fixed threshold costs.
 */
static void draw_ratio(FILE *f, const struct policy_op *op, const struct panel *main_p,
		       double y0, const struct palette *pal, const struct marker *m, size_t nm)
{
	struct panel p = *main_p;

	p.y = y0;
	p.h = RATIO_H - 40;
	p.top = p.y + 4;
	p.bottom = p.y + p.h;
	p.ly_lo = log10(ratio_lo(op));
	p.ly_hi = 0;
	fprintf(f, "<g class=\"ratio\" data-lo=\"%g\"><rect x=\"%s\" y=\"%s\" width=\"%s\" "
		"height=\"%s\" fill=\"#fff\"/>\n", pow(10, p.ly_lo), N(p.x), N(p.y), N(p.w),
		N(p.h));
	draw_ranges(f, op, &p, pal, "ratio-range");
	draw_ratio_ticks(f, &p, false);
	draw_markers(f, &p, m, nm, false);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < op->ncurves; i++) {
			const struct series *s = palette_find(pal, op->curves[i].strategy);
			bool lead = is_lead(op, i), pen = false;

			if (lead != pass || op->curves[i].reference_only)
				continue;
			fprintf(f, "<path class=\"ratio-curve\" data-strategy=\"");
			put_esc(f, op->curves[i].strategy);
			fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s d=\"",
				s->color, lead ? "2.4" : "1",
				lead ? "" : " stroke-opacity=\"0.45\"");
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
	draw_end_labels(f, op, &p, pal, true, y_ratio);
	fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" "
		"stroke=\"#888\"/>\n", N(p.x), N(p.y), N(p.w), N(p.h));
	fprintf(f, "<text transform=\"translate(%s,%s) rotate(-90)\" font-size=\"%d\" "
		"text-anchor=\"middle\" fill=\"#333\">ratio to the best</text>\n",
		N(p.x - 50), N(p.y + p.h / 2), FS);
	draw_xticks(f, &p);
	fputs("</g>\n", f);
}

static bool op_has_hosts(const struct policy_op *op)
{
	for (size_t i = 0; i < op->ncurves; i++)
		if (hosts_known(&op->curves[i]) && curve_measured(op, &op->curves[i]))
			return true;
	return false;
}

/*
 * A merged entry, under the ratio panel: for each family's line the
 * slowest and the fastest host over the hosts' median, the margin shaded
 * around 100 %.  A host beyond it is an outlier: ringed red here and in
 * the panel above, and the worst one named.
 */
static void draw_hosts(FILE *f, const struct policy_op *op, const struct panel *main_p,
		       double y0, const struct palette *pal, unsigned nhosts)
{
	struct panel p = *main_p;
	double lo = 1, hi = 1, d = fleet_margin(op), worst = 1, span, step;
	size_t worst_c = 0, worst_k = 0;
	char sz[24];

	for (size_t i = 0; i < op->ncurves; i++) {
		const struct policy_curve *c = &op->curves[i];

		if (!is_lead(op, i) || !hosts_known(c))
			continue;
		for (size_t k = 0; k < op->nsizes; k++) {
			double m = c->median_mib_s[k];

			if (!usable(m))
				continue;
			if (usable(c->hosts_min_mib_s[k]) && c->hosts_min_mib_s[k] / m < lo)
				lo = c->hosts_min_mib_s[k] / m;
			if (usable(c->hosts_max_mib_s[k]))
				hi = fmax(hi, c->hosts_max_mib_s[k] / m);
			if (outlier_side(op, c, k, 0) && c->hosts_min_mib_s[k] / m < worst) {
				worst = c->hosts_min_mib_s[k] / m;
				worst_c = i;
				worst_k = k;
			}
		}
	}
	/* a linear scale around 100 %, wide enough for the margin twice */
	lo = floor((fmin(lo, 1 - 2 * d) - 0.03) * 20) / 20;
	hi = ceil((fmax(hi, 1 + 2 * d) + 0.03) * 20) / 20;
	span = hi - lo;
	/* its verdict on a line of its own above it */
	p.y = y0 + 14;
	p.h = HOSTS_H - 54;
	p.top = p.y + 4;
	p.bottom = p.y + p.h;
#define HY(r) (p.bottom - ((r) - lo) / span * (p.bottom - p.top))
	fprintf(f, "<g class=\"hosts\" data-hosts=\"%u\" data-margin=\"%.3f\"><rect x=\"%s\" "
		"y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#fff\"/>\n", nhosts, d, N(p.x), N(p.y),
		N(p.w), N(p.h));
	fprintf(f, "<rect class=\"hosts-margin\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" "
		"fill=\"#2a9d2a\" fill-opacity=\"0.12\"/>\n", N(p.x), N(HY(1 + d)), N(p.w),
		N(HY(1 - d) - HY(1 + d)));
	fputs("<g font-size=\"11\" text-anchor=\"end\">\n", f);
	/* ticks 13 px apart at least */
	step = 0.1;
	while (step / span * (p.bottom - p.top) < 13)
		step = step < 0.15 ? 0.2 : step < 0.3 ? 0.5 : step * 2;
	for (double t = ceil(lo / step - 1e-9) * step; t <= hi + 1e-9; t += step)
		fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\"/>"
			"<text x=\"%s\" y=\"%s\">%.0f %%</text>\n", N(p.x), N(HY(t)), N(p.x + p.w),
			N(HY(t)), fabs(t - 1) < 1e-9 ? "#999" : "#e3e3e3", N(p.x - 5), N(HY(t) + 4),
			fabs(t) < 1e-9 ? 0 : 100 * t);
	fputs("</g>\n", f);
	for (size_t i = 0; i < op->ncurves; i++) {
		const struct policy_curve *c = &op->curves[i];
		const struct series *s = palette_find(pal, c->strategy);

		if (!is_lead(op, i) || !hosts_known(c))
			continue;
		for (int side = 0; side < 2; side++) {
			const double *h = side ? c->hosts_max_mib_s : c->hosts_min_mib_s;
			bool pen = false;

			fprintf(f, "<path class=\"hosts-curve\" data-side=\"%s\" data-strategy=\"",
				side ? "max" : "min");
			put_esc(f, c->strategy);
			fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s d=\"",
				s->color, side ? " stroke-dasharray=\"4 2\"" : "");
			for (size_t k = 0; k < op->nsizes; k++) {
				if (!usable(h[k]) || !usable(c->median_mib_s[k])) {
					pen = false;
					continue;
				}
				fprintf(f, "%s%s,%s ", pen ? "L" : "M",
					N(px(&p, (double)op->sizes_bytes[k])),
					N(HY(h[k] / c->median_mib_s[k])));
				pen = true;
			}
			fputs("\"/>\n", f);
		}
		for (size_t k = 0; k < op->nsizes; k++)
			for (int side = 0; side < 2; side++) {
				double v = side ? c->hosts_max_mib_s[k] : c->hosts_min_mib_s[k];

				if (!outlier_side(op, c, k, side))
					continue;
				fprintf(f, "<circle class=\"outlier\" data-strategy=\"");
				put_esc(f, c->strategy);
				fprintf(f, "\" data-side=\"%s\" data-size-bytes=\"%" PRIu64 "\" "
					"cx=\"%s\" cy=\"%s\" r=\"3.5\" fill=\"#fff\" "
					"stroke=\"#d00000\" stroke-width=\"1.8\"><title>",
					side ? "max" : "min", op->sizes_bytes[k],
					N(px(&p, (double)op->sizes_bytes[k])),
					N(HY(v / c->median_mib_s[k])));
				put_esc(f, c->strategy);
				fprintf(f, " at %s: the %s host %.0f MiB/s, %.0f %% of the hosts' "
					"median</title></circle>\n",
					fmt_size(op->sizes_bytes[k], sz, sizeof(sz)),
					side ? "fastest" : "slowest", v,
					100 * v / c->median_mib_s[k]);
			}
	}
	if (worst < 1) {
		fprintf(f, "<text class=\"outlier-label\" x=\"%s\" y=\"%s\" font-size=\"%d\" "
			"fill=\"#d00000\" font-weight=\"bold\">slowest host: %.0f %% of the hosts' "
			"median, ", N(p.x), N(p.y - 3), FS_SMALL, 100 * worst);
		put_esc(f, op->curves[worst_c].strategy);
		fprintf(f, " at %s</text>\n", fmt_size(op->sizes_bytes[worst_k], sz, sizeof(sz)));
	} else {
		fprintf(f, "<text x=\"%s\" y=\"%s\" font-size=\"%d\" fill=\"#2a7d2a\">"
			"no host slower than the margin (%.0f %%) and its own spread</text>\n",
			N(p.x), N(p.y - 3), FS_SMALL, 100 * d);
	}
#undef HY
	fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" "
		"stroke=\"#888\"/>\n", N(p.x), N(p.y), N(p.w), N(p.h));
	fprintf(f, "<text transform=\"translate(%s,%s) rotate(-90)\" font-size=\"%d\" "
		"text-anchor=\"middle\" fill=\"#333\">%u hosts / median</text>\n", N(p.x - 50),
		N(p.y + p.h / 2), FS, nhosts);
	draw_xticks(f, &p);
	fputs("</g>\n", f);
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
	/* the spread of each family's line only: the hosts' where merged, else p10..p90 */
	for (size_t i = 0; i < op->ncurves; i++) {
		const struct policy_curve *c = &op->curves[i];
		const struct series *s = palette_find(pal, c->strategy);

		if (!is_lead(op, i))
			continue;
		snprintf(id, sizeof(id), "%s-c%zu", pid, i);
		if (hosts_known(c))
			draw_band(f, op, c, c->hosts_min_mib_s, c->hosts_max_mib_s, &p, s, id,
				  "hosts-band", 0.2);
		else
			draw_band(f, op, c, c->p10_mib_s, c->p90_mib_s, &p, s, id, "band", 0.15);
	}
	if (usable(op->ceiling_mib_s)) {
		double y = py(&p, op->ceiling_mib_s);

		fprintf(f, "<g class=\"ceiling\" data-mib-s=\"%.1f\">"
			"<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#222\" "
			"stroke-width=\"1.2\" stroke-dasharray=\"8 4\"/>"
			"<text class=\"halo\" x=\"%s\" y=\"%s\" font-size=\"%d\" "
			"text-anchor=\"end\" fill=\"#222\">"
			"ceiling %.0f MiB/s (non-temporal fill)</text></g>\n",
			op->ceiling_mib_s, N(p.x), N(y), N(p.x + p.w), N(y), N(p.x + p.w - 26),
			N(y - 4), FS_SMALL, op->ceiling_mib_s);
	}
	for (size_t i = 0; i < op->ncrossovers; i++)
		fprintf(f, "<line class=\"crossover-line\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
			"stroke=\"#444\" stroke-width=\"1.2\" stroke-dasharray=\"3 2\"/>\n",
			N(xl[i].x), N(p.y), N(xl[i].x), N(p.y + p.h));
	draw_chosen(f, op, &p);
	/* the members faint underneath, each family's line bold on top */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < op->ncurves; i++) {
			bool lead = is_lead(op, i);

			if (lead != pass || !curve_measured(op, &op->curves[i]))
				continue;
			snprintf(id, sizeof(id), "%s-c%zu", pid, i);
			draw_curve(f, op, &op->curves[i], &p,
				   palette_find(pal, op->curves[i].strategy), id, lead);
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
	draw_end_labels(f, op, &p, pal, false, y_median);
	label_ranges(f, op, &p, pal);
	draw_axes(f, op, &p);
	draw_ratio(f, op, &p, y0 + PANEL_H, pal, m, nm);
	if (op_has_hosts(op))
		draw_hosts(f, op, &p, y0 + PANEL_H + RATIO_H, pal,
			   pol->merged.hosts ? pol->merged.hosts : 1);
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
static double draw_legend(FILE *f, const struct palette *pal, double x0, double y0, bool fleet)
{
	struct flow fl = { .x = x0, .y = y0 + 14, .x0 = x0, .x1 = PAGE_W - MARGIN,
			   .rows = 1 };
	static const char *const keys[] = {
		"chosen: what the policy runs at each size", "crossover", "ceiling",
		"a consumer's threshold this policy exports", "a consumer's default rule",
		"p10..p90 spread", "hosts' slowest..fastest", "outlier host (beyond the margin)",
	};
	static const enum policy_family fams[] = {
		POLICY_FAMILY_STREAMING, POLICY_FAMILY_CACHED_FLUSH, POLICY_FAMILY_NONE
	};

	fputs("<g class=\"legend\" font-size=\"11\">\n", f);
	/* a row per family: its name, then its members; the bold one is the family's line */
	for (size_t fi = 0; fi < ARRAY_SIZE(fams); fi++) {
		const char *word = fams[fi] == POLICY_FAMILY_NONE ? "other" : family_word(fams[fi]);
		bool any = false;

		for (size_t i = 0; i < pal->n; i++) {
			const struct series *s = &pal->s[i];
			char text[POLICY_NAME_MAX + 16];
			double w;

			if (s->family != fams[fi])
				continue;
			if (!any) {
				if (fl.x > fl.x0) {
					fl.x = fl.x0;
					fl.y += LEGEND_ROW_H;
					fl.rows++;
				}
				fprintf(f, "<text class=\"legend-family\" x=\"%s\" y=\"%s\" "
					"font-weight=\"bold\">%s</text>\n", N(fl.x), N(fl.y), word);
				fl.x += 110;
				any = true;
			}
			snprintf(text, sizeof(text), "%s%s%s", s->name,
				 s->reference ? " (reference)" : "", s->curve ? "" : " (no curve)");
			w = 28 + TEXT_W(text, FS_SMALL) + 14;
			flow_item(&fl, w);
			if (fl.x == fl.x0)
				fl.x += 110;
			fprintf(f, "<g class=\"legend-item\" data-strategy=\"");
			put_esc(f, s->name);
			fprintf(f, "\"><line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" "
				"stroke-width=\"2.5\"%s/><text x=\"%s\" y=\"%s\">", N(fl.x),
				N(fl.y - 4), N(fl.x + 22), N(fl.y - 4), s->color,
				s->reference ? " stroke-dasharray=\"6 4\"" : "", N(fl.x + 28),
				N(fl.y));
			put_esc(f, text);
			fputs("</text></g>\n", f);
			fl.x += w;
		}
	}
	/* what the other marks mean, on a row of their own */
	if (pal->n) {
		fl.x = fl.x0;
		fl.y += LEGEND_ROW_H;
		fl.rows++;
	}
	fprintf(f, "<text x=\"%s\" y=\"%s\" fill=\"#333\">bold: each family's line (the member "
		"chosen, else its default); faint: the other members.</text>\n", N(fl.x), N(fl.y));
	fl.x = fl.x0;
	fl.y += LEGEND_ROW_H;
	fl.rows++;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		double w = 28 + TEXT_W(keys[i], FS_SMALL) + 14, x, y;

		if ((i == 5 && fleet) || (i >= 6 && !fleet))
			continue;
		flow_item(&fl, w);
		x = fl.x;
		y = fl.y;
		switch (i) {
		case 0:
			fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" "
				"stroke=\"#ffc400\" stroke-opacity=\"0.55\" stroke-width=\"9\" "
				"stroke-linecap=\"round\"/>",
				N(x + 4), N(y - 4), N(x + 18), N(y - 4));
			break;
		case 1:
			fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#444\" "
				"stroke-width=\"1.2\" stroke-dasharray=\"3 2\"/>", N(x + 11),
				N(y - 13), N(x + 11), N(y + 3));
			break;
		case 2:
			fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#222\" "
				"stroke-width=\"1.2\" stroke-dasharray=\"8 4\"/>", N(x), N(y - 4),
				N(x + 22), N(y - 4));
			break;
		case 3:
		case 4:
			fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" "
				"stroke-width=\"1.3\" stroke-dasharray=\"%s\"/>", N(x + 11),
				N(y - 13), N(x + 11), N(y + 3), i == 3 ? "#b30000" : "#666",
				i == 3 ? "6 3" : "1.5 2.5");
			break;
		case 5:
		case 6:
			fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"22\" height=\"10\" "
				"fill=\"#555\" fill-opacity=\"0.2\"/>", N(x), N(y - 9));
			break;
		default:
			fprintf(f, "<circle cx=\"%s\" cy=\"%s\" r=\"4.5\" fill=\"#fff\" "
				"stroke=\"#d00000\" stroke-width=\"2\"/>", N(x + 11), N(y - 4));
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

	/* a series of one step has no line to draw */
	for (int fam = 0; fam < POLICY_NR_FAMILIES; fam++)
		any |= t->saturation[fam].present && t->saturation[fam].nsteps > 1;
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

		if (!s->present || s->nsteps < 2)
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
	size_t nshown = 0, cols;
	bool fleet = false;
	double w, block;
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
	for (size_t o = 0; o < t->nops; o++) {
		nshown += op_measured(&t->ops[o]);
		fleet |= op_has_hosts(&t->ops[o]);
	}
	block = PANEL_H + RATIO_H + (fleet ? HOSTS_H : 0) + ROW_GAP;
	cols = nshown > 1 ? 2 : 1;
	w = (PAGE_W - 2 * MARGIN - (cols - 1) * COL_GAP) / (double)cols;
	if (nshown) {
		y += draw_legend(f, &pal, MARGIN, y, fleet);
	} else if (!t->nops) {
		fprintf(f, "<text x=\"%d\" y=\"%s\" font-size=\"%d\" fill=\"#888\">no measurements"
			"</text>\n", MARGIN, N(y + 6), FS);
		y += 16;
	}
	/* an op without a measured cell gets a line, not an empty panel */
	for (size_t o = 0; o < t->nops; o++) {
		if (op_measured(&t->ops[o]))
			continue;
		fprintf(f, "<text class=\"not-measured\" x=\"%d\" y=\"%s\" font-size=\"%d\" "
			"fill=\"#888\">", MARGIN, N(y + 6), FS);
		put_esc(f, t->ops[o].op);
		fputc(' ', f);
		put_esc(f, t->ops[o].pattern);
		fprintf(f, ", %u thread%s: nothing measured, no panel</text>\n", t->ops[o].threads,
			t->ops[o].threads == 1 ? "" : "s");
		y += 18;
	}
	for (size_t o = 0, shown = 0; o < t->nops && !*rc; o++) {
		double x = MARGIN + (double)(shown % cols) * (w + COL_GAP);
		double py0 = y + (double)(shown / cols) * block;

		if (!op_measured(&t->ops[o]))
			continue;
		shown++;
		snprintf(pid, sizeof(pid), "e%zu-t%zu-o%zu", e, ti, o);
		*rc = draw_panel(f, p, &t->ops[o], x, py0, w, &pal, pid);
	}
	if (nshown)
		y += (double)((nshown + cols - 1) / cols) * block - ROW_GAP;
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

enum plot_format { PLOT_SVG, PLOT_CSV, PLOT_PNG };

/* By the name's extension; -1 for one this command does not write. */
static int plot_format_of(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!strcmp(path, "-") || !dot || dot == base)
		return PLOT_SVG;	/* standard output, or a name without an extension */
	if (!strcasecmp(dot, ".svg"))
		return PLOT_SVG;
	if (!strcasecmp(dot, ".csv"))
		return PLOT_CSV;
	if (!strcasecmp(dot, ".png"))
		return PLOT_PNG;
	return -1;
}

int plot_cmd(const char *out, const char *path, unsigned flags)
{
	int fmt = plot_format_of(out);
	struct policy_bundle *b;
	char *text, *png = NULL;
	size_t len = 0;
	int rc;

	/* refused before the policy is read: a wrong name writes nothing */
	if (fmt < 0) {
		fprintf(stderr, "pmem-tune: --plot %s: unknown format %s (FILE.svg, FILE.csv or "
			"FILE.png)\n", out, strrchr(out, '.'));
		return 2;
	}
	if (fmt == PLOT_PNG && !plot_png_available()) {
		fprintf(stderr, "pmem-tune: --plot %s: cannot write PNG without librsvg "
			"(librsvg-2.so.2: install librsvg2-2); write FILE.svg and convert it "
			"(rsvg-convert)\n", out);
		return 2;
	}
	b = policy_file_load(path, flags);
	if (!b)
		return 2;
	/* FILE.csv: the curves as a table, for people who plot their own */
	text = fmt == PLOT_CSV ? curves_csv(b, &len) : plot_render(b, &len);
	policy_bundle_free(b);
	if (!text) {
		fprintf(stderr, "pmem-tune: --plot %s: %s\n", out, strerror(errno ?: ENOMEM));
		return 1;
	}
	if (fmt == PLOT_PNG) {
		rc = plot_png(text, len, &png, &len);
		free(text);
		if (rc) {
			fprintf(stderr, "pmem-tune: --plot %s: cannot render the PNG: %s\n", out,
				strerror(-rc));
			return 1;
		}
		text = png;
	}
	/* through a temporary file and rename: a failed write leaves no torn file */
	if (strcmp(out, "-"))
		rc = atomic_write_file(out, text, len, 0644);
	else
		rc = fwrite(text, 1, len, stdout) == len && !fflush(stdout) ? 0 : -EIO;
	free(text);
	if (rc) {
		fprintf(stderr, "pmem-tune: %s: cannot write the plot: %s\n", out, strerror(-rc));
		return 2;
	}
	return 0;
}
