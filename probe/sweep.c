// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The timing sweep.
 *
 * Destinations are cold: every thread walks its own slice of an area
 * several times the LLC (sequential: packed, 64-byte aligned appends
 * that continue from cell to cell; random: 64-byte aligned offsets drawn
 * over the whole slice), so no copy lands on lines an earlier copy left
 * in the cache.  The source is a fixed buffer per thread, kept warm.
 *
 * At one size the strategies are sampled in turns (one sample each per
 * round) rather than one after the other: a burst of noise from a
 * neighbour then hits every contender alike, instead of deciding the
 * crossover by itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crossover.h"
#include "stats.h"
#include "strategy.h"
#include "strategy_class.h"
#include "sweep.h"
#include "topology.h"
#include "workers.h"

#define LINE 64u
#define MIB (1024.0 * 1024.0)
#define MAX_GRID 128
#define MAX_STRATEGIES 32

static const char *const mode_names[] = {
	[SWEEP_QUICK] = "quick", [SWEEP_STANDARD] = "standard", [SWEEP_THOROUGH] = "thorough",
};

const char *sweep_mode_name(enum sweep_mode mode)
{
	return mode_names[mode];
}

/* What each mode changes; everything else is the same for all three. */
static const struct sweep_config mode_defaults[] = {
	/*
	 * A coarse grid (x4) and two bisection rounds: the sizes far from a
	 * crossover are not worth measuring twice as often, and two rounds
	 * narrow each crossover's bracket to sqrt(2).
	 */
	[SWEEP_QUICK] = {
		.budget_s = 2.0, .rel_ci = 0.08, .min_samples = 6, .max_samples = 15,
		.sample_ns = 20e3, .half_steps = false, .grid_factor = 4, .refine_rounds = 2,
	},
	[SWEEP_STANDARD] = {
		.budget_s = 9.0, .rel_ci = 0.04, .min_samples = 7, .max_samples = 41,
		.sample_ns = 40e3, .half_steps = true, .refine_rounds = 3,
	},
	[SWEEP_THOROUGH] = {
		.budget_s = 60.0, .rel_ci = 0.02, .min_samples = 11, .max_samples = 201,
		.sample_ns = 100e3, .half_steps = true, .refine_rounds = 5,
	},
};

void sweep_config_defaults(struct sweep_config *cfg, enum sweep_mode mode)
{
	*cfg = mode_defaults[mode];
	cfg->mode = mode;
	cfg->min_size_bytes = 64;
	cfg->max_size_bytes = 16u << 20;
	cfg->nthreads = workers_cpus_available();
	cfg->mem_node = -1;
	cfg->seed = 0x9e3779b97f4a7c15ull;
}

size_t sweep_grid(const struct sweep_config *cfg, uint64_t *sizes, size_t max)
{
	size_t n = 0;

	unsigned factor = cfg->half_steps || cfg->grid_factor < 2 ? 2 : cfg->grid_factor;

	/* 2^k and 3 * 2^(k-1): a sqrt(2)-spaced grid of whole cache lines */
	for (uint64_t p = LINE; p && p <= cfg->max_size_bytes && n < max; p *= factor) {
		if (p >= cfg->min_size_bytes)
			sizes[n++] = p;
		if (cfg->half_steps && p + p / 2 <= cfg->max_size_bytes && n < max &&
		    p + p / 2 >= cfg->min_size_bytes)
			sizes[n++] = p + p / 2;
	}
	return n;
}

/* ---- one cell ---- */

struct thread_state {
	char *slice;
	size_t slice_len;
	size_t cursor;		/* sequential: where the next copy goes */
	uint64_t rng;
	const char *src;
	uint64_t t0, t1;
	/* keep the cache lines of different threads apart */
	char pad[64];
};

struct cell {
	strategy_copy_fn copy;
	size_t size;
	bool random;
	unsigned nthreads;
	unsigned batch;		/* copies per sample and thread */
	struct thread_state *ts;
};

static inline uint64_t xorshift64s(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static void cell_work(unsigned tid, void *arg)
{
	struct cell *c = arg;
	struct thread_state *ts = &c->ts[tid];
	const size_t size = c->size;
	const uint64_t nslots = (ts->slice_len - size) / LINE + 1;
	const size_t step = (size + LINE - 1) & ~(size_t)(LINE - 1);

	ts->t0 = now_ns();
	for (unsigned k = 0; k < c->batch; k++) {
		size_t off;

		if (c->random) {
			/* multiply-shift: no division in the timed loop */
			off = (size_t)(((unsigned __int128)xorshift64s(&ts->rng) * nslots) >> 64) *
			      LINE;
		} else {
			/* checked before the copy: the cursor carries over from smaller sizes */
			if (ts->cursor + size > ts->slice_len)
				ts->cursor = 0;
			off = ts->cursor;
			ts->cursor += step;
		}
		c->copy(ts->slice + off, ts->src, size);
	}
	ts->t1 = now_ns();
}

/*
 * Run one sample of c; returns the aggregate MiB/s of its threads: the
 * sum of each thread's own rate, as fio sums its jobs.  Timing the
 * group from the first start to the last end would charge the threads
 * for the wake-up skew of the barrier, which on a busy two-core machine
 * is as long as a whole sample of small copies.
 */
static double cell_sample(struct workers *w, struct cell *c)
{
	double sum = 0;

	workers_run(w, c->nthreads, cell_work, c);
	for (unsigned i = 0; i < c->nthreads; i++) {
		uint64_t ns = c->ts[i].t1 > c->ts[i].t0 ? c->ts[i].t1 - c->ts[i].t0 : 1;

		sum += (double)c->size * c->batch / MIB / ((double)ns * 1e-9);
	}
	return sum;
}

/* ---- the sweep state ---- */

struct contender {
	const char *name;
	strategy_copy_fn copy;
	struct policy_curve *curve;
	double *v;		/* this size's samples */
	unsigned n;
	unsigned batch;
	bool done;
	struct sample_summary res;	/* valid when n > 0 */
};

struct sweep {
	const struct target *t;
	const struct sweep_config *cfg;
	struct workers *w;
	struct thread_state *ts;
	char *src;		/* nthreads buffers of max_size + LINE */
	uint64_t start_ns, deadline_ns;
	double work_left;	/* weight of the cells not measured yet */
	unsigned cells_done, cells_total;
	const char *phase;
	bool src_bound;		/* the sources are mbind()-ed to cfg->mem_node */
};

/* Relative cost of a cell: small copies are batched to one sample_ns. */
static double cell_weight(uint64_t size)
{
	return size <= (256u << 10) ? 1.0 : (double)size / (256u << 10);
}

static void progress(struct sweep *sw, const struct policy_op *op, uint64_t size)
{
	if (!sw->cfg->progress)
		return;
	fprintf(stderr, "\r\033[K[%s] %3u%% %s %s %ut %" PRIu64 " B", sw->t->name,
		sw->cells_total ? 100 * sw->cells_done / sw->cells_total : 100, sw->phase,
		op->pattern, op->threads, size);
}

static void set_threads(struct sweep *sw, unsigned nthreads)
{
	/* whole 2 MiB pages per thread: no huge page shared by two slices */
	size_t slice = (sw->t->len / nthreads) & ~(size_t)((2u << 20) - 1);

	for (unsigned i = 0; i < nthreads; i++) {
		sw->ts[i].slice = (char *)sw->t->base + (size_t)i * slice;
		sw->ts[i].slice_len = slice;
		sw->ts[i].cursor = 0;
	}
}

/*
 * Sample the contenders at one size in turns until each one's interval
 * is tight, max_samples are taken, or end passes (min_samples always).
 */
static void measure_contenders(struct sweep *sw, struct contender *ct, unsigned nct,
			       uint64_t size, bool random, unsigned nthreads, uint64_t end)
{
	const struct sweep_config *cfg = sw->cfg;
	struct cell c = { .size = size, .random = random, .nthreads = nthreads, .ts = sw->ts };
	unsigned active = nct;

	for (unsigned i = 0; i < nct; i++) {
		struct contender *k = &ct[i];
		uint64_t t0;

		k->n = 0;
		k->done = false;
		/* warm-up: code, TLB and the source; also sizes the batch */
		c.copy = k->copy;
		c.batch = 2;
		t0 = now_ns();
		workers_run(sw->w, nthreads, cell_work, &c);
		/* several threads: longer samples, so that their runs overlap */
		k->batch = (unsigned)fmax(1.0, fmin(1e5, cfg->sample_ns * 2 * (nthreads > 1 ? 4 : 1) /
						     fmax(1.0, (double)(now_ns() - t0))));
	}
	/*
	 * Each round starts one contender later: at 8 MiB and up a streaming
	 * copy sampled right after cached ones measured 5-11 % slower, and a
	 * fixed order would hand that handicap to the same strategy always.
	 */
	for (unsigned round = 0; active && !(cfg->stop && *cfg->stop); round++) {
		for (unsigned j = 0; j < nct; j++) {
			struct contender *k = &ct[(j + round) % nct];

			if (k->done)
				continue;
			c.copy = k->copy;
			c.batch = k->batch;
			k->v[k->n++] = cell_sample(sw->w, &c);
			if (k->n >= cfg->max_samples) {
				k->done = true;
			} else if (k->n >= cfg->min_samples) {
				struct sample_summary s;
				double tmp[k->n];

				memcpy(tmp, k->v, sizeof(tmp));
				stats_summarize(tmp, k->n, &s);
				k->done = stats_ci_rel_width(&s) <= cfg->rel_ci ||
					  now_ns() >= end;
			}
			if (k->done)
				active--;
		}
	}
	for (unsigned i = 0; i < nct; i++)
		if (ct[i].n)	/* else interrupted before its first sample */
			stats_summarize(ct[i].v, ct[i].n, &ct[i].res);
}

/* One size of the sweep: its share of the remaining time, results into the curves. */
static void measure_size(struct sweep *sw, struct policy_op *op, unsigned nthreads, bool random,
			 struct contender *ct, unsigned nct, int idx)
{
	const uint64_t size = op->sizes_bytes[idx];
	double weight = cell_weight(size) * nct;
	uint64_t now = now_ns();
	double share;

	/* this size's share of what is left, in proportion to its weight */
	share = sw->deadline_ns > now ? (double)(sw->deadline_ns - now) * weight /
					(sw->work_left > weight ? sw->work_left : weight)
				      : 0;
	sw->work_left -= weight;
	measure_contenders(sw, ct, nct, size, random, nthreads, now + (uint64_t)share);
	for (unsigned i = 0; i < nct; i++) {
		struct policy_curve *cv = ct[i].curve;
		const struct sample_summary *r = &ct[i].res;

		if (!ct[i].n)
			continue;
		cv->median_mib_s[idx] = r->median;
		cv->p10_mib_s[idx] = r->p10;
		cv->p90_mib_s[idx] = r->p90;
		cv->ci_lo_mib_s[idx] = r->ci_lo;
		cv->ci_hi_mib_s[idx] = r->ci_hi;
		cv->samples[idx] = r->n;
	}
	sw->cells_done += nct;
}

/* The contenders named in names[0..n-1], copied into out[] with their curves. */
static unsigned pick(struct policy_op *op, const struct contender *all, unsigned nall,
		     const char *const *names, unsigned n, struct contender *out)
{
	unsigned np = 0;

	for (unsigned i = 0; i < nall && np < n; i++)
		for (unsigned j = 0; j < n; j++)
			if (!strcmp(all[i].name, names[j])) {
				out[np] = all[i];
				out[np++].curve = policy_op_find_curve(op, all[i].name);
				break;
			}
	return np;
}

/*
 * Measure again, fresh, what the decision code will not believe from
 * one grid point (crossover_rechecks()); the new cells replace the old.
 */
static void recheck(struct sweep *sw, struct policy_op *op, bool random,
		    struct contender *all, unsigned nall)
{
	struct crossover_cell cells[op->nsizes ? op->nsizes : 1];
	struct crossover_recheck rc[op->nsizes ? op->nsizes : 1];
	size_t n;

	if (crossover_cells(op, cells))
		return;
	n = crossover_rechecks(op, cells, rc, op->nsizes);
	for (size_t k = 0; k < n; k++) {
		struct contender ct[CROSSOVER_RECHECK_MAX_CURVES];
		const char *names[CROSSOVER_RECHECK_MAX_CURVES];

		for (unsigned j = 0; j < rc[k].ncurves; j++)
			names[j] = op->curves[rc[k].curves[j]].strategy;
		if (pick(op, all, nall, names, rc[k].ncurves, ct) != rc[k].ncurves)
			continue;
		progress(sw, op, op->sizes_bytes[rc[k].index]);
		measure_size(sw, op, op->threads, random, ct, rc[k].ncurves, (int)rc[k].index);
	}
}

/* Bisect each crossover with fresh measurements of its two strategies. */
static int refine(struct sweep *sw, struct policy_op *op, bool random, struct contender *all,
		  unsigned nall)
{
	struct crossover_bracket br[16];
	int rc;

	recheck(sw, op, random, all, nall);
	rc = crossover_decide(op);

	for (unsigned round = 0; !rc && round < sw->cfg->refine_rounds; round++) {
		size_t nb = crossover_brackets(op, 1.06, LINE, br, 16);

		if (!nb || now_ns() >= sw->deadline_ns)
			break;
		for (size_t b = 0; b < nb; b++) {
			uint64_t mid = crossover_midpoint(br[b].lo_bytes, br[b].hi_bytes, LINE);
			const char *names[2] = { br[b].below, br[b].above };
			struct contender pair[2];
			int idx;

			if (!mid)
				continue;
			idx = policy_op_insert_size(op, mid);
			if (idx < 0)
				return idx;
			/* after the insertion: the curve arrays moved */
			if (pick(op, all, nall, names, 2, pair) != 2)
				continue;
			progress(sw, op, mid);
			measure_size(sw, op, op->threads, random, pair, 2, idx);
		}
		rc = crossover_decide(op);
	}
	if (sw->cfg->stop && *sw->cfg->stop)
		return -EINTR;
	return rc;
}

static int sweep_op(struct sweep *sw, struct policy_op *op, bool random, struct contender *ct,
		    unsigned nct)
{
	for (unsigned i = 0; i < nct; i++)
		ct[i].curve = policy_op_find_curve(op, ct[i].name);
	set_threads(sw, op->threads);
	for (size_t idx = 0; idx < op->nsizes; idx++) {
		if (sw->cfg->stop && *sw->cfg->stop)
			return -EINTR;
		progress(sw, op, op->sizes_bytes[idx]);
		measure_size(sw, op, op->threads, random, ct, nct, (int)idx);
	}
	return refine(sw, op, random, ct, nct);
}

/* ---- ceiling ---- */

struct fill {
	size_t chunk;
	struct thread_state *ts;
};

static void fill_work(unsigned tid, void *arg)
{
	struct fill *f = arg;
	struct thread_state *ts = &f->ts[tid];

	ts->t0 = now_ns();
	if (ts->cursor + f->chunk > ts->slice_len)
		ts->cursor = 0;
	strategy_fill_nt(ts->slice + ts->cursor, f->chunk);
	ts->cursor += f->chunk;
	ts->t1 = now_ns();
}

static double ceiling_of(struct sweep *sw, unsigned nthreads, double seconds)
{
	struct fill f = { .chunk = 1u << 20, .ts = sw->ts };
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	struct sample_summary s;
	double v[64];
	unsigned n = 0;

	set_threads(sw, nthreads);
	workers_run(sw->w, nthreads, fill_work, &f);	/* warm-up */
	while (n < 64 && (n < 7 || now_ns() < end)) {
		double sum = 0;

		workers_run(sw->w, nthreads, fill_work, &f);
		for (unsigned i = 0; i < nthreads; i++)
			sum += (double)f.chunk / MIB /
			       ((double)(sw->ts[i].t1 - sw->ts[i].t0 + 1) * 1e-9);
		v[n++] = sum;
	}
	stats_summarize(v, n, &s);
	return s.median;
}

/* ---- threads to saturation ---- */

#define SATURATION_SIZE (256u << 10)

/* 1, 2, 4, ... below max, then max itself. */
static size_t thread_steps(unsigned max, unsigned *steps)
{
	size_t n = 0;

	for (unsigned k = 1; k < max && n < POLICY_SATURATION_STEPS - 1; k *= 2)
		steps[n++] = k;
	steps[n++] = max;
	return n;
}

/* The family's default member: the best tie rank of its class among the contenders. */
static int family_member(const struct contender *ct, unsigned nct, enum strategy_class cls)
{
	int best = -1;

	for (unsigned i = 0; i < nct; i++)
		if (strategy_class_of(ct[i].name) == cls &&
		    (best < 0 || strategy_tie_rank(ct[i].name) < strategy_tie_rank(ct[best].name)))
			best = (int)i;
	return best;
}

/*
 * Bandwidth at 1, 2, 4, ... threads of one family's member at one size
 * (member < 0: the non-temporal fill), until a step adds less than
 * POLICY_STEP_GAIN: beyond it more threads only share the same channels.
 */
static void saturation_series(struct sweep *sw, struct contender *ct, int member,
			      struct policy_saturation *s, double seconds)
{
	uint64_t size = sw->cfg->max_size_bytes < SATURATION_SIZE ? sw->cfg->max_size_bytes
								    : SATURATION_SIZE;
	unsigned steps[POLICY_SATURATION_STEPS];
	size_t nsteps = thread_steps(sw->cfg->nthreads, steps);

	memset(s, 0, sizeof(*s));
	if (member >= 0)
		snprintf(s->strategy, sizeof(s->strategy), "%s", ct[member].name);
	s->size_bytes = member >= 0 ? size : 1u << 20;	/* ceiling_of()'s chunk */
	for (size_t i = 0; i < nsteps && !(sw->cfg->stop && *sw->cfg->stop); i++) {
		double v;

		if (member < 0) {
			v = ceiling_of(sw, steps[i], seconds);
		} else {
			set_threads(sw, steps[i]);
			measure_contenders(sw, &ct[member], 1, size, false, steps[i],
					   now_ns() + (uint64_t)(seconds * 1e9));
			v = ct[member].n ? ct[member].res.median : NAN;
		}
		if (isnan(v))
			break;
		s->threads[i] = steps[i];
		s->mib_s[i] = v;
		s->nsteps = i + 1;
		if (i && v < s->mib_s[i - 1] * (1 + POLICY_STEP_GAIN))
			break;
		s->saturates_at = steps[i];
	}
	s->present = s->nsteps > 0;
}

/* The thread count of the second grid: where the families saturate (the most of them). */
static unsigned saturate(struct sweep *sw, struct contender *ct, unsigned nct,
			 struct policy_target *out)
{
	static const enum strategy_class cls[] = {
		[POLICY_FAMILY_STREAMING] = STRATEGY_CLASS_NONTEMPORAL,
		[POLICY_FAMILY_CACHED_FLUSH] = STRATEGY_CLASS_FLUSH,
	};
	unsigned most = 1;

	sw->phase = "threads";
	for (int f = 0; f < POLICY_NR_FAMILIES; f++) {
		int m = f == POLICY_FAMILY_FILL ? -1 : family_member(ct, nct, cls[f]);

		if (f != POLICY_FAMILY_FILL && m < 0)
			continue;
		saturation_series(sw, ct, m, &out->saturation[f], sw->cfg->budget_s * 0.01);
		if (out->saturation[f].present && out->saturation[f].saturates_at > most)
			most = out->saturation[f].saturates_at;
	}
	return most;
}

static int sweep_setup(struct sweep *sw, const struct target *t, const struct sweep_config *cfg)
{
	unsigned n = cfg->nthreads ? cfg->nthreads : 1;
	size_t srclen = cfg->max_size_bytes + LINE;
	int rc;

	memset(sw, 0, sizeof(*sw));
	sw->t = t;
	sw->cfg = cfg;
	if (t->len / n < 2 * cfg->max_size_bytes)
		return -ENOSPC;
	rc = workers_start_on(cfg->cpus, n, &sw->w);
	if (rc)
		return rc;
	sw->ts = calloc(n, sizeof(*sw->ts));
	sw->src = aligned_alloc(4096, ((srclen * n) + 4095) & ~(size_t)4095);
	if (!sw->ts || !sw->src)
		return -ENOMEM;
	/* before the fill below touches them: the sources live on the threads' node */
	if (cfg->mem_node >= 0)
		sw->src_bound = !topo_bind_area(sw->src, ((srclen * n) + 4095) & ~(size_t)4095,
						cfg->mem_node);
	for (unsigned i = 0; i < n; i++) {
		sw->ts[i].src = sw->src + i * srclen;
		sw->ts[i].rng = cfg->seed + 0x9e3779b97f4a7c15ull * (i + 1);
	}
	/* non-zero, non-repeating bytes: a copy that drops data would show */
	for (size_t i = 0; i < srclen * n; i++)
		sw->src[i] = (char)(i * 131 + (i >> 12));
	return 0;
}

static void sweep_teardown(struct sweep *sw)
{
	if (sw->w)
		workers_stop(sw->w);
	free(sw->ts);
	free(sw->src);
}

static bool strategy_wanted(const struct sweep_config *cfg, const char *name)
{
	const char *p = cfg->only;
	size_t len = strlen(name);

	if (!p)
		return true;
	while (*p) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return false;
}

int sweep_run(const struct target *t, const struct cpu_info *ci, const struct sweep_config *cfg,
	      struct policy_target *out)
{
	const bool cpu_cache = strcmp(t->persistence_domain, "cpu_cache") == 0;
	uint64_t sizes[MAX_GRID];
	size_t nsizes = sweep_grid(cfg, sizes, MAX_GRID);
	struct contender ct[MAX_STRATEGIES];
	bool domain_only[MAX_STRATEGIES];
	unsigned nct = 0, nthr_dims[2] = { 1, cfg->nthreads }, ndims;
	double ceilings[2] = { NAN, NAN };
	struct sweep sw;
	int rc;

	for (unsigned i = 0; i < strategy_count && nct < MAX_STRATEGIES; i++) {
		const struct strategy *s = &strategy_table[i];
		const char *missing = NULL;

		if (!strategy_wanted(cfg, s->name))
			continue;
		if (!strategy_supported(s, ci, &missing)) {
			if (cfg->progress || isatty(STDERR_FILENO))
				fprintf(stderr, "pmem-tune: %s: not supported by this CPU (needs %s)\n",
					s->name, missing);
			continue;
		}
		ct[nct].name = s->name;
		ct[nct].copy = s->copy;
		domain_only[nct] = s->cpu_cache_domain_only;
		ct[nct].v = calloc(cfg->max_samples, sizeof(double));
		if (!ct[nct].v)
			return -ENOMEM;
		nct++;
	}
	if (!nct)
		return -ENOENT;
	rc = sweep_setup(&sw, t, cfg);
	if (rc)
		goto out;
	if (cfg->mem_node >= 0)
		out->memory_bound = sw.src_bound;
	/* the grid at one thread and where bandwidth stops growing */
	if (cfg->nthreads > 1)
		nthr_dims[1] = saturate(&sw, ct, nct, out);
	if (cfg->stop && *cfg->stop) {
		rc = -EINTR;
		goto out;
	}
	ndims = nthr_dims[1] > 1 ? 2 : 1;
	for (unsigned d = 0; d < ndims; d++)
		for (unsigned r = 0; r < 2; r++) {
			struct policy_op *op = policy_target_add_op(out, "write",
								    r ? "random" : "sequential",
								    nthr_dims[d], sizes, nsizes);

			if (!op) {
				rc = -ENOMEM;
				goto out;
			}
			for (unsigned i = 0; i < nct; i++) {
				struct policy_curve *c = policy_op_add_curve(op, ct[i].name);

				if (!c) {
					rc = -ENOMEM;
					goto out;
				}
				/* noflush alone leaves data in a volatile cache */
				c->reference_only = domain_only[i] && !cpu_cache;
			}
			for (size_t k = 0; k < nsizes; k++)
				sw.work_left += cell_weight(sizes[k]) * nct;
		}
	sw.cells_total = (unsigned)(out->nops * nsizes * nct);
	sw.start_ns = now_ns();
	/* a share of the budget is kept for the bisection rounds */
	sw.deadline_ns = sw.start_ns + (uint64_t)(cfg->budget_s * 0.85 * 1e9);

	/*
	 * The ceiling is taken before and after the copies and the higher
	 * kept: a neighbour's burst or a frequency change during one of the
	 * two would otherwise set the bar below what the copies reach.
	 */
	sw.phase = "ceiling";
	for (unsigned d = 0; d < ndims; d++)
		ceilings[d] = ceiling_of(&sw, nthr_dims[d], cfg->budget_s * 0.015);
	sw.phase = "write";
	for (size_t o = 0; o < out->nops && !rc; o++) {
		struct policy_op *op = &out->ops[o];

		if (o == out->nops - 1)
			sw.deadline_ns = sw.start_ns + (uint64_t)(cfg->budget_s * 0.97 * 1e9);
		rc = sweep_op(&sw, op, !strcmp(op->pattern, "random"), ct, nct);
	}
	sw.phase = "ceiling";
	for (unsigned d = 0; d < ndims && !rc; d++)
		ceilings[d] = fmax(ceilings[d], ceiling_of(&sw, nthr_dims[d], cfg->budget_s * 0.015));
	for (size_t o = 0; o < out->nops; o++)
		out->ops[o].ceiling_mib_s = ceilings[out->ops[o].threads == 1 ? 0 : 1];
	out->ceiling_mib_s = fmax(ceilings[0], ndims > 1 ? ceilings[1] : 0);
	if (cfg->progress)
		fprintf(stderr, "\r\033[K");
out:
	sweep_teardown(&sw);
	for (unsigned i = 0; i < nct; i++)
		free(ct[i].v);
	return rc;
}

/* ---- measuring any copy functions: the benchmarks' entry ---- */

struct sweep_bench {
	struct sweep sw;
	struct sweep_config cfg;
	struct contender ct[SWEEP_BENCH_MAX_FNS];
	unsigned nthreads;	/* slices are laid out for this many */
};

int sweep_bench_open(const struct target *t, const struct sweep_config *cfg,
		     struct sweep_bench **out)
{
	struct sweep_bench *b = calloc(1, sizeof(*b));
	int rc;

	if (!b)
		return -ENOMEM;
	b->cfg = *cfg;
	rc = sweep_setup(&b->sw, t, &b->cfg);
	for (unsigned i = 0; !rc && i < SWEEP_BENCH_MAX_FNS; i++) {
		b->ct[i].v = calloc(cfg->max_samples ? cfg->max_samples : 1, sizeof(double));
		if (!b->ct[i].v)
			rc = -ENOMEM;
	}
	if (rc) {
		sweep_bench_close(b);
		return rc;
	}
	*out = b;
	return 0;
}

int sweep_bench_measure(struct sweep_bench *b, const strategy_copy_fn *fns, unsigned n,
			uint64_t size_bytes, bool random, unsigned nthreads, double seconds,
			struct sample_summary *out)
{
	if (n > SWEEP_BENCH_MAX_FNS || !nthreads || nthreads > b->cfg.nthreads ||
	    size_bytes > b->cfg.max_size_bytes)
		return -EINVAL;
	if (b->nthreads != nthreads) {
		set_threads(&b->sw, nthreads);
		b->nthreads = nthreads;
	}
	for (unsigned i = 0; i < n; i++)
		b->ct[i].copy = fns[i];
	measure_contenders(&b->sw, b->ct, n, size_bytes, random, nthreads,
			   now_ns() + (uint64_t)(seconds * 1e9));
	for (unsigned i = 0; i < n; i++)
		out[i] = b->ct[i].res;
	return b->cfg.stop && *b->cfg.stop ? -EINTR : 0;
}

void sweep_bench_close(struct sweep_bench *b)
{
	if (!b)
		return;
	sweep_teardown(&b->sw);
	for (unsigned i = 0; i < SWEEP_BENCH_MAX_FNS; i++)
		free(b->ct[i].v);
	free(b);
}
