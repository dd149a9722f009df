// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Exports: the best value of each consumer's single knob, and its regret.
 *
 *  libpmem  PMEM_MOVNT_THRESHOLD: PMDK copies with cached stores + flush
 *           below it and non-temporal stores at and above it.  Which
 *           flush and which vector width it uses is chosen with
 *           PMEM_NO_CLWB / PMEM_NO_CLFLUSHOPT / PMEM_AVX / PMEM_AVX512F /
 *           PMEM_MOVDIR64B, set explicitly both ways because PMDK 1.x
 *           and 2.x default some of them differently.
 *  kernel   __memcpy_flushcache (movnti) up to flushcache_nt_max_bytes,
 *           cached copy + clflushopt above, as dm-writecache does at 768.
 *  glibc    x86_non_temporal_threshold: cached memcpy below, streaming
 *           stores above, on DRAM (noflush vs the widest movnt);
 *           x86_rep_movsb_threshold: vector copy below, rep movsb above
 *           (clwb vs rep_movsb_clwb: both pay the same flush, so their
 *           difference is the copy's).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/read_file.h"
#include "export.h"
#include "export_keys.h"
#include "strategy_class.h"

/*
 * The consumers' own defaults: kept when the measured best beats them by
 * no more than EXPORT_REGRET_TOLERANCE.  PMDK switches to non-temporal at
 * 256 bytes, dm-writecache's rule would be "non-temporal below 768"
 * (threshold 768 in this rule's terms), glibc's rep movsb threshold is
 * 2 KiB per 16 bytes of vector (4 KiB with AVX2).
 */
static const uint64_t pmdk_default = 256, kernel_default = 768, glibc_rep_movsb = 4096;

static double cell(const struct policy_curve *c, size_t i)
{
	return c && c->samples[i] ? c->median_mib_s[i] : NAN;
}

static double size_weight(const struct policy_op *op, size_t i, const struct export_weights *w)
{
	double lo, hi;

	if (w && w->n) {
		/* the distribution's weight of the nearest listed size */
		size_t best = 0;
		double d = INFINITY;

		for (size_t k = 0; k < w->n; k++) {
			double dk = fabs(log((double)w->size_bytes[k]) -
					 log((double)op->sizes_bytes[i]));

			if (dk < d) {
				d = dk;
				best = k;
			}
		}
		return w->weight[best];
	}
	/* even on the log-size axis: half the distance to each neighbour */
	lo = log((double)op->sizes_bytes[i > 0 ? i - 1 : i]);
	hi = log((double)op->sizes_bytes[i + 1 < op->nsizes ? i + 1 : i]);
	return hi - lo > 0 ? (hi - lo) / (i > 0 && i + 1 < op->nsizes ? 2 : 1) : 1;
}

double export_rule_regret(const struct policy_op *op, const char *low, const char *high,
			  uint64_t threshold_bytes, const struct export_weights *w)
{
	const struct policy_curve *cl = policy_op_find_curve(op, low);
	const struct policy_curve *ch = policy_op_find_curve(op, high);
	double sum = 0, wsum = 0;

	for (size_t i = 0; i < op->nsizes; i++) {
		double v = op->sizes_bytes[i] < threshold_bytes ? cell(cl, i) : cell(ch, i);
		double best = 0, wi;

		if (isnan(v))
			continue;
		for (size_t k = 0; k < op->ncurves; k++) {
			const struct policy_curve *c = &op->curves[k];
			double x = cell(c, i);

			/*
			 * The oracle is what either rule strategy or any valid
			 * persistent strategy achieves; a reference-only curve
			 * counts only when the rule itself uses it.
			 */
			if (c->reference_only && c != cl && c != ch)
				continue;
			if (!isnan(x) && x > best)
				best = x;
		}
		if (best <= 0)
			continue;
		wi = size_weight(op, i, w);
		sum += wi * (1.0 - v / best);
		wsum += wi;
	}
	return wsum > 0 ? sum / wsum : NAN;
}

/* Mean regret over the ops that have both curves; NAN if none does. */
static double mean_regret(const struct policy_op *const *ops, size_t nops, const char *low,
			  const char *high, uint64_t thr, const struct export_weights *w)
{
	double sum = 0;
	size_t n = 0;

	for (size_t k = 0; k < nops; k++) {
		double r = export_rule_regret(ops[k], low, high, thr, w);

		if (!isnan(r)) {
			sum += r;
			n++;
		}
	}
	return n ? sum / (double)n : NAN;
}

int export_best_threshold(const struct policy_op *const *ops, size_t nops, const char *low,
			  const char *high, const struct export_weights *w,
			  const uint64_t *prefer, uint64_t *threshold_bytes, double *regret)
{
	double best = INFINITY, r;
	uint64_t best_thr = POLICY_SIZE_OPEN;

	for (int pass = 0; pass < 2; pass++)
		for (size_t o = 0; o < nops; o++) {
			const struct policy_op *op = ops[o];

			if (!policy_op_find_curve(op, low) || !policy_op_find_curve(op, high))
				continue;
			/* candidates: 0 (always high), every measured size, no bound */
			for (size_t i = 0; i <= op->nsizes + 1; i++) {
				uint64_t thr = i == 0 ? 0 : i <= op->nsizes ? op->sizes_bytes[i - 1]
									    : POLICY_SIZE_OPEN;

				r = mean_regret(ops, nops, low, high, thr, w);
				if (isnan(r))
					continue;
				/*
				 * Pass 0 finds the least regret; pass 1 takes the
				 * smallest threshold within the tolerance of it, so
				 * that two nearly equal curves do not make the
				 * exported value wander from probe to probe.
				 */
				if (pass == 0 && r < best)
					best = r;
				else if (pass == 1 && r <= best + EXPORT_REGRET_TOLERANCE &&
					 thr < best_thr)
					best_thr = thr;
			}
		}
	if (isinf(best))
		return -ENOENT;
	/* the consumer's own default stays unless measurably worse */
	if (prefer) {
		r = mean_regret(ops, nops, low, high, *prefer, w);
		if (!isnan(r) && r <= best + EXPORT_REGRET_TOLERANCE)
			best_thr = *prefer;
	}
	*threshold_bytes = best_thr;
	*regret = mean_regret(ops, nops, low, high, best_thr, w);
	return 0;
}

/* The ops of a target with a given thread count (0 = all). */
static size_t target_ops(const struct policy_target *t, unsigned threads,
			 const struct policy_op **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nops && n < max; i++)
		if (!threads || t->ops[i].threads == threads)
			out[n++] = &t->ops[i];
	return n;
}

/* Every key written is one of the export vocabulary's. */
static void kv_set(struct policy_export *e, enum export_key_id id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void kv_set(struct policy_export *e, enum export_key_id id, const char *fmt, ...)
{
	va_list ap;

	if (e->nkv == POLICY_EXPORT_KV_MAX)
		return;
	snprintf(e->kv[e->nkv].key, sizeof(e->kv[0].key), "%s", export_keys[id].key);
	va_start(ap, fmt);
	vsnprintf(e->kv[e->nkv].value, sizeof(e->kv[0].value), fmt, ap);
	va_end(ap);
	e->nkv++;
}

/* The target the persistent exports describe: pmem first, then the rest. */
static const struct policy_target *persistent_target(const struct policy *p)
{
	static const char *const order[] = { "pmem", "devdax", "file", "dram" };

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (size_t i = 0; i < p->ntargets; i++)
			if (!strcmp(p->targets[i].kind, order[k]) && p->targets[i].nops)
				return &p->targets[i];
	return NULL;
}

static int export_libpmem(struct policy *p, const struct policy_target *t,
			  const struct export_weights *w)
{
	static const char *const flushes[] = { "clwb", "clflushopt", "clflush" };
	static const char *const nts[] = { "movdir64b", "movnt_avx512", "movnt_avx2", "movnt_sse2" };
	struct policy_export *e = &p->exports.libpmem;
	const struct policy_cpu *cpu = &p->platform.cpu;
	const struct policy_op *ops[64];
	size_t nops = target_ops(t, 1, ops, 64);
	double best = INFINITY;
	const char *bf = NULL, *bn = NULL;
	uint64_t bthr = 0;

	for (size_t f = 0; f < 3; f++)
		for (size_t n = 0; n < 4; n++) {
			uint64_t thr;
			double r;

			if (!policy_target_has_curve(t, flushes[f]) ||
			    !policy_target_has_curve(t, nts[n]))
				continue;
			if (export_best_threshold(ops, nops, flushes[f], nts[n], w, &pmdk_default, &thr,
						  &r))
				continue;
			if (r < best - 1e-12) {
				best = r;
				bf = flushes[f];
				bn = nts[n];
				bthr = thr;
			}
		}
	memset(e, 0, sizeof(*e));
	if (!bf)
		return 0;
	e->present = true;
	snprintf(e->target, sizeof(e->target), "%s", t->name);
	e->regret = best;
	if (bthr == POLICY_SIZE_OPEN)
		kv_set(e, EXPORT_PMEM_NO_MOVNT, "1");
	else
		kv_set(e, EXPORT_PMEM_MOVNT_THRESHOLD, "%" PRIu64, bthr);
	if (policy_cpu_has_feature(cpu, "clwb") && strcmp(bf, "clwb"))
		kv_set(e, EXPORT_PMEM_NO_CLWB, "1");
	if (policy_cpu_has_feature(cpu, "clflushopt") && !strcmp(bf, "clflush"))
		kv_set(e, EXPORT_PMEM_NO_CLFLUSHOPT, "1");
	if (policy_cpu_has_feature(cpu, "avx"))
		kv_set(e, EXPORT_PMEM_AVX, "%d", strcmp(bn, "movnt_sse2") ? 1 : 0);
	if (policy_cpu_has_feature(cpu, "avx512f"))
		kv_set(e, EXPORT_PMEM_AVX512F, "%d", !strcmp(bn, "movnt_avx512"));
	if (policy_cpu_has_feature(cpu, "movdir64b"))
		kv_set(e, EXPORT_PMEM_MOVDIR64B, "%d", !strcmp(bn, "movdir64b"));
	return 0;
}

static int export_kernel(struct policy *p, const struct policy_target *t,
			 const struct export_weights *w)
{
	struct policy_export *e = &p->exports.kernel;
	const char *flush = policy_target_has_curve(t, "clflushopt") ? "clflushopt" : "clflush";
	const struct policy_op *ops[64];
	size_t nops = target_ops(t, 1, ops, 64);
	uint64_t thr;
	double r;

	memset(e, 0, sizeof(*e));
	e->threshold_bytes = POLICY_SIZE_OPEN;
	/* the kernel's rule is PMDK's reversed: non-temporal below */
	if (export_best_threshold(ops, nops, "movnt", flush, w, &kernel_default, &thr, &r))
		return 0;
	e->present = true;
	snprintf(e->target, sizeof(e->target), "%s", t->name);
	/*
	 * "non-temporal up to and including N bytes": N is the largest
	 * measured size below the switch, so that it names a size whose
	 * winner was seen, not one between two grid points.
	 */
	e->threshold_bytes = thr;
	if (thr && thr != POLICY_SIZE_OPEN) {
		e->threshold_bytes = 0;
		for (size_t o = 0; o < nops; o++)
			for (size_t i = 0; i < ops[o]->nsizes; i++)
				if (ops[o]->sizes_bytes[i] < thr &&
				    ops[o]->sizes_bytes[i] > e->threshold_bytes)
					e->threshold_bytes = ops[o]->sizes_bytes[i];
	}
	e->regret = r;
	return 0;
}

/*
 * The smallest x86_rep_movsb_threshold glibc takes (sysdeps/x86/
 * dl-cacheinfo.h: 8 vectors of the width it copies with; a value below
 * is ignored, leaving its default): 512 with AVX-512, 256 with AVX2,
 * 128 else.  Where AVX-512 is usable but not preferred the minimum is
 * 256, and 512 is still taken.
 */
static uint64_t glibc_movsb_min(const struct policy_cpu *cpu)
{
	if (policy_cpu_has_feature(cpu, "avx512f"))
		return 512;
	return policy_cpu_has_feature(cpu, "avx2") ? 256 : 128;
}

static int export_glibc(struct policy *p, const struct export_weights *w)
{
	struct policy_export *e = &p->exports.glibc;
	const struct policy_target *t = policy_find_target(p, "dram");
	static const char *const nts[] = { "movnt_avx512", "movnt_avx2", "movnt_sse2" };
	const struct policy_op *ops[64];
	double r, rr, best = INFINITY;
	uint64_t thr, rthr, bthr = 0, movsb_min = glibc_movsb_min(&p->platform.cpu);
	uint64_t nt_min = export_keys[EXPORT_GLIBC_NT_THRESHOLD].min;
	size_t nops;

	memset(e, 0, sizeof(*e));
	if (!t || strcmp(t->kind, "dram"))
		return 0;
	nops = target_ops(t, 1, ops, 64);
	/* glibc picks its widest vector itself: use the best-scoring one */
	for (size_t n = 0; n < 3; n++) {
		if (!policy_target_has_curve(t, nts[n]) || !policy_target_has_curve(t, "noflush"))
			continue;
		if (!export_best_threshold(ops, nops, "noflush", nts[n], w, NULL, &thr, &r) &&
		    r < best) {
			best = r;
			bthr = thr;
		}
	}
	if (isinf(best))
		return 0;
	e->present = true;
	snprintf(e->target, sizeof(e->target), "%s", t->name);
	e->regret = best;
	if (bthr == POLICY_SIZE_OPEN)
		bthr = 1ull << 40;	/* never: glibc has no "off" value */
	kv_set(e, EXPORT_GLIBC_NT_THRESHOLD, "0x%" PRIx64,
	       bthr < nt_min ? nt_min : bthr);
	if (policy_target_has_curve(t, "clwb") && policy_target_has_curve(t, "rep_movsb_clwb") &&
	    !export_best_threshold(ops, nops, "clwb", "rep_movsb_clwb", w, &glibc_rep_movsb,
				   &rthr, &rr))
		kv_set(e, EXPORT_GLIBC_REP_MOVSB_THRESHOLD, "0x%" PRIx64,
		       rthr == POLICY_SIZE_OPEN ? bthr : rthr < movsb_min ? movsb_min : rthr);
	return 0;
}

int export_compute(struct policy *p, const struct export_weights *w)
{
	const struct policy_target *t = persistent_target(p);
	int rc;

	memset(&p->exports, 0, sizeof(p->exports));
	p->exports.kernel.threshold_bytes = POLICY_SIZE_OPEN;
	if (t) {
		rc = export_libpmem(p, t, w);
		if (!rc)
			rc = export_kernel(p, t, w);
		if (rc)
			return rc;
	}
	return export_glibc(p, w);
}

void export_print(FILE *f, const struct policy *p)
{
	const struct policy_exports *x = &p->exports;

	fprintf(f, "\nexports (regret = mean loss against the per-size best):\n");
	if (x->libpmem.present) {
		fprintf(f, "  libpmem (%s):", x->libpmem.target);
		for (size_t i = 0; i < x->libpmem.nkv; i++)
			fprintf(f, " %s=%s", x->libpmem.kv[i].key, x->libpmem.kv[i].value);
		fprintf(f, "  regret %.1f%%\n", 100 * x->libpmem.regret);
	}
	if (x->kernel.present) {
		if (x->kernel.threshold_bytes == POLICY_SIZE_OPEN)
			fprintf(f, "  kernel (%s): non-temporal at every size", x->kernel.target);
		else
			fprintf(f, "  kernel (%s): non-temporal up to %" PRIu64
				" bytes, clflushopt above (dm-writecache: 768)", x->kernel.target,
				x->kernel.threshold_bytes);
		fprintf(f, "  regret %.1f%%\n", 100 * x->kernel.regret);
	}
	if (x->glibc.present) {
		fprintf(f, "  glibc (%s): GLIBC_TUNABLES=", x->glibc.target);
		for (size_t i = 0; i < x->glibc.nkv; i++)
			fprintf(f, "%s%s=%s", i ? ":" : "", x->glibc.kv[i].key,
				x->glibc.kv[i].value);
		fprintf(f, "  regret %.1f%%\n", 100 * x->glibc.regret);
	}
	if (!x->libpmem.present && !x->kernel.present && !x->glibc.present)
		fprintf(f, "  none: the measured strategies do not cover any consumer's rule\n");
}

/* 4096 'SIZE WEIGHT' lines with room for comments */
#define EXPORT_WEIGHTS_MAX_BYTES	(1 << 20)

int export_weights_load(const char *path, struct export_weights *w, char *err, size_t errlen)
{
	char line[256], *text = NULL;
	unsigned lineno = 0;
	size_t len = 0;
	FILE *f;
	int rc;

	memset(w, 0, sizeof(*w));
	/* bounded and regular: /dev/zero or a FIFO must not keep us reading */
	rc = read_file(path, 0, EXPORT_WEIGHTS_MAX_BYTES, &text, &len);
	if (rc == -EINVAL)
		snprintf(err, errlen, "%s: not a regular file", path);
	else if (rc == -EFBIG)
		snprintf(err, errlen, "%s: larger than %d bytes", path, EXPORT_WEIGHTS_MAX_BYTES);
	else if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	else if (memchr(text, '\0', len))
		snprintf(err, errlen, "%s: contains a NUL byte: not a text file", path);
	f = rc || memchr(text, '\0', len) ? NULL : fmemopen(text, len ? len : 1, "r");
	if (!f) {
		rc = rc ? rc : -EINVAL;
		free(text);
		return rc;
	}
	while (fgets(line, sizeof(line), f)) {
		char sz[64], *p = line;
		double weight;
		uint64_t size;
		void *a, *b;

		lineno++;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		if (sscanf(p, "%63s %lf", sz, &weight) != 2 || policy_parse_size(sz, &size) || !size ||
		    !isfinite(weight) || weight < 0) {
			snprintf(err, errlen, "%s:%u: expected 'SIZE WEIGHT' (SIZE > 0, WEIGHT >= 0), "
				 "got '%.40s'", path, lineno, strtok(p, "\n"));
			rc = -EINVAL;
			break;
		}
		if (w->n && size <= w->size_bytes[w->n - 1]) {
			snprintf(err, errlen, "%s:%u: sizes must be ascending", path, lineno);
			rc = -EINVAL;
			break;
		}
		if (w->n >= 4096) {
			snprintf(err, errlen, "%s:%u: more than 4096 sizes", path, lineno);
			rc = -E2BIG;
			break;
		}
		a = realloc(w->size_bytes, (w->n + 1) * sizeof(*w->size_bytes));
		if (a)
			w->size_bytes = a;
		b = realloc(w->weight, (w->n + 1) * sizeof(*w->weight));
		if (b)
			w->weight = b;
		if (!a || !b) {
			snprintf(err, errlen, "%s: out of memory", path);
			rc = -ENOMEM;
			break;
		}
		w->size_bytes[w->n] = size;
		w->weight[w->n++] = weight;
	}
	fclose(f);
	free(text);
	if (!rc && !w->n) {
		snprintf(err, errlen, "%s: no 'SIZE WEIGHT' lines", path);
		rc = -EINVAL;
	}
	if (rc)
		export_weights_free(w);
	return rc;
}

void export_weights_free(struct export_weights *w)
{
	free(w->size_bytes);
	free(w->weight);
	memset(w, 0, sizeof(*w));
}
