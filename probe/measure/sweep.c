// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The timing sweep.
 *
 * Destinations are cold: every thread walks its own slice of the area
 * (sequential: packed, 64-byte aligned appends that continue from cell
 * to cell; random: 64-byte aligned offsets drawn over the whole slice),
 * and after each timed batch, untimed, drops the lines it wrote from the
 * caches, so no copy lands on lines an earlier copy left there.  The
 * area then need not dwarf the LLC: its cost stays the same on a host
 * with a 480 MiB L3.  Small copies are timed after a lead-in of the same
 * walk, untimed: back to back, not from the idle write path a drop
 * leaves.  The source is a fixed buffer per thread, kept warm.
 *
 * A size with a cell that cannot be right (crossover_cell_implausible():
 * a collapse below both neighbours, a spike above them and every other
 * strategy) or that suffered a major page fault, much time stolen by the
 * hypervisor or a thread switched out (an involuntary context switch) in
 * much of its samples is measured again after the rest of the op, every
 * strategy there, once (screen()): the disturbances seen on VMs (the
 * host re-backing memory, a neighbour's burst) outlast one cell.  A cell
 * still implausible then is suspect: kept in the policy, never deciding.
 * The first sizes of a target's first op are measured again too,
 * whatever was counted (look_back_at_start()).
 *
 * Then the rule's own second looks (struct second_look), each asked of
 * the rule from the cells as they stand and measured through
 * take_looks(): the op's islands and unresolved ties before its
 * crossovers are bisected, the baseline's losses after; once every op is
 * measured, the sizes an export's move rests on, and last the member
 * ranges.  The sweep decides nothing: the probe decides every op once,
 * on what the looks gave (crossover_decide_policy()).
 *
 * At one size the strategies are sampled in turns (one sample each per
 * round) rather than one after the other: a burst of noise from a
 * neighbour then hits every contender alike, instead of deciding the
 * crossover by itself.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "measure/concurrency.h"
#include "measure/constants.h"
#include "measure/progress.h"
#include "measure/strategy.h"
#include "measure/strategy_kernels.h"
#include "measure/sweep.h"
#include "measure/workers.h"
#include "platform/topology.h"
#include "policy/policy_limits.h"
#include "rule/crossover.h"
#include "rule/samples.h"
#include "rule/stats.h"
#include "rule/strategy_class.h"

#define LINE 64u
#define MIB (1024.0 * 1024.0)
#define MAX_STRATEGIES 32
#define MAX_SUFFERED 256

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
		.sample_ns = 20e3, .max_sample_ns = 20e6, .half_steps = false, .grid_factor = 4,
		.refine_rounds = 2,
	},
	[SWEEP_STANDARD] = {
		.budget_s = 9.0, .rel_ci = 0.04, .min_samples = 7, .max_samples = 41,
		.sample_ns = 40e3, .max_sample_ns = 20e6, .half_steps = true, .refine_rounds = 3,
	},
	[SWEEP_THOROUGH] = {
		.budget_s = 60.0, .rel_ci = 0.02, .min_samples = 11, .max_samples = 201,
		.sample_ns = 100e3, .max_sample_ns = 100e6, .half_steps = true, .refine_rounds = 5,
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
	cfg->evict = true;
	cfg->lead_in_bytes = SWEEP_LEAD_IN_BYTES;
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
	long nivcsw;		/* involuntary context switches while timed */
	/* keep the cache lines of different threads apart */
	char pad[64];
};

struct cell {
	strategy_copy_fn copy;
	size_t size;
	bool random;
	unsigned nthreads;
	unsigned batch;		/* copies per sample and thread */
	unsigned lead_in;	/* untimed copies before them, same walk */
	bool evict;		/* drop the written lines after the timed batch */
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

/* Where the next copy of c goes in a slice of slice_len; advances *rng or *cursor. */
static inline size_t next_offset(const struct cell *c, size_t slice_len, uint64_t nslots,
				 size_t step, uint64_t *rng, size_t *cursor)
{
	size_t off;

	if (c->random)	/* multiply-shift: no division in the timed loop */
		return (size_t)(((unsigned __int128)xorshift64s(rng) * nslots) >> 64) * LINE;
	/* checked before the copy: the cursor carries over from smaller sizes */
	if (*cursor + c->size > slice_len)
		*cursor = 0;
	off = *cursor;
	*cursor += step;
	return off;
}

/* n copies of c on ts's walk, advancing it. */
static inline void copy_walk(const struct cell *c, struct thread_state *ts, unsigned n,
			     uint64_t nslots, size_t step)
{
	for (unsigned k = 0; k < n; k++)
		c->copy(ts->slice + next_offset(c, ts->slice_len, nslots, step, &ts->rng,
						&ts->cursor), ts->src, c->size);
}

static void cell_work(unsigned tid, void *arg)
{
	struct cell *c = arg;
	struct thread_state *ts = &c->ts[tid];
	const size_t size = c->size;
	const uint64_t nslots = (ts->slice_len - size) / LINE + 1;
	const size_t step = (size + LINE - 1) & ~(size_t)(LINE - 1);
	uint64_t rng = ts->rng;
	size_t cursor = ts->cursor;
	struct rusage r0, r1;
	/* before the lead-in: during a system call the queues drain again */
	bool counted = !getrusage(RUSAGE_THREAD, &r0);

	copy_walk(c, ts, c->lead_in, nslots, step);
	ts->t0 = now_ns();
	copy_walk(c, ts, c->batch, nslots, step);
	ts->t1 = now_ns();
	/* outside the timed window: a system call costs a microsecond or less */
	ts->nivcsw = counted && !getrusage(RUSAGE_THREAD, &r1) ? r1.ru_nivcsw - r0.ru_nivcsw : 0;
	/* the same walk again from the saved state: the lines just written */
	for (unsigned k = 0; c->evict && k < c->lead_in + c->batch; k++)
		strategy_evict(ts->slice + next_offset(c, ts->slice_len, nslots, step, &rng,
						       &cursor), size);
}

/*
 * The threads' rate together, from their own start and end times: total
 * bytes over the union of their intervals, and only when the intervals
 * overlap almost wholly (CONCURRENCY_MIN_OVERLAP).  Summing each
 * thread's own rate, as fio sums its jobs, adds up threads that ran one
 * after the other on a busy machine.  NAN: the threads did not run
 * together.  *overlap gets their overlap (1 for one thread).
 */
static double threads_rate(const struct thread_state *ts, unsigned n, double bytes_each,
			   double *overlap)
{
	uint64_t t0[CPU_SETSIZE], t1[CPU_SETSIZE];
	struct concurrency cc;

	assert(n >= 1 && n <= CPU_SETSIZE);
	if (n == 1) {
		*overlap = 1;
		return bytes_each / MIB / ((double)(ts->t1 > ts->t0 ? ts->t1 - ts->t0 : 1) * 1e-9);
	}
	for (unsigned i = 0; i < n; i++) {
		t0[i] = ts[i].t0;
		t1[i] = ts[i].t1;
	}
	concurrency_of(t0, t1, n, &cc);
	*overlap = cc.overlap;
	if (!concurrency_ok(&cc, n))
		return NAN;
	return concurrency_rate_mib_s(&cc, bytes_each * n);
}

/*
 * Run one sample of c: its threads' MiB/s together, NAN if they did not
 * run together; *preempted: a thread was switched out while timed.
 */
static double cell_sample(struct workers *w, struct cell *c, double *overlap, bool *preempted)
{
	workers_run(w, c->nthreads, cell_work, c);
	*preempted = false;
	for (unsigned i = 0; i < c->nthreads; i++)
		*preempted |= c->ts[i].nivcsw > 0;
	return threads_rate(c->ts, c->nthreads, (double)c->size * c->batch, overlap);
}

/* ---- the sweep state ---- */

struct contender {
	const char *name;
	strategy_copy_fn copy;
	struct policy_curve *curve;
	double *v;		/* this size's samples */
	unsigned n;
	unsigned batch;
	unsigned rejected;	/* samples whose threads did not run together */
	unsigned preempted;	/* kept samples during which a thread was switched out */
	unsigned doublings;	/* of the batch, to make them overlap */
	bool done;
	bool unmeasurable;	/* the threads never ran together: no result */
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
	unsigned next_line_pct;	/* progress_lines: the next share that gets a line */
	struct probe_progress *whole;	/* cfg->whole, or own_progress */
	struct probe_progress own_progress;
	const char *phase;
	/* this op's multi-thread samples: the least overlap kept, how many refused */
	double min_overlap;
	unsigned rejected;
	/* what each size of this op suffered while measured (by size: bisection inserts) */
	struct suffered {
		uint64_t size;
		long majflt;
		double stolen;	/* share of the wall time others took */
		double preempted;	/* the largest share of one strategy's samples preempted */
	} suffered[MAX_SUFFERED];
	unsigned nsuffered;
	bool src_bound;		/* the sources are mbind()-ed to cfg->mem_node */
	bool start_looked_at;	/* look_back_at_start() done: once per target */
	unsigned raw_lost;	/* --keep-samples: cells whose samples found no memory */
};

/* Relative cost of a cell: small copies are batched to one sample_ns. */
static double cell_weight(uint64_t size)
{
	return size <= CELL_BATCHED_BYTES ? 1.0 : (double)size / CELL_BATCHED_BYTES;
}

/* Seconds left: the share of cells done extrapolated, never past the budget. */
static double eta_s(const struct sweep *sw, uint64_t now)
{
	double done = sw->cells_total ? (double)sw->cells_done / sw->cells_total : 1;
	double el = (double)(now - sw->start_ns) / 1e9;
	double budget = now < sw->deadline_ns ? (double)(sw->deadline_ns - now) / 1e9 : 0;

	return done > 0 ? fmin(el * (1 - done) / done, budget) : budget;
}

/*
 * On a terminal, one line rewritten in place; elsewhere (the probe unit's
 * journal) a plain line at each quarter, so the log shows it is alive.
 */
static void progress(struct sweep *sw, const struct policy_op *op, uint64_t size)
{
	double frac = sw->cells_total ? (double)sw->cells_done / sw->cells_total : 1, eta;
	uint64_t now = now_ns();
	unsigned pct;
	char sz[32];

	probe_progress_estimate(sw->whole, frac, eta_s(sw, now), now, &pct, &eta);
	if (sw->cfg->progress) {
		fprintf(stderr, "\r\033[K[%s] %3u%% %s %s, %u thread%s, %s, about %.0f s left",
			sw->t->name, pct, sw->phase, op->pattern, op->threads,
			op->threads == 1 ? "" : "s", policy_format_bytes(size, sz, sizeof(sz)),
			ceil(eta));
	} else if (sw->cfg->progress_lines && pct >= sw->next_line_pct) {
		fprintf(stderr, "pmem-tune: %s: %u%% measured (%s %s, %u thread%s), about %.0f s "
			"left\n", sw->t->name, pct, sw->phase, op->pattern, op->threads,
			op->threads == 1 ? "" : "s", ceil(eta));
		while (sw->next_line_pct <= pct)
			sw->next_line_pct += 25;
	}
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
 * A multi-thread sample whose threads did not run together is refused
 * and the batch doubled, up to MAX_DOUBLINGS times while one sample
 * stays under the mode's max_sample_ns.  A contender with more refused
 * samples than kept ones, or none kept, is not measurable.
 */

static void refused(struct sweep *sw, struct contender *k, uint64_t sample_ns)
{
	k->rejected++;
	sw->rejected++;
	if (k->doublings < MAX_DOUBLINGS && 2.0 * (double)sample_ns <= sw->cfg->max_sample_ns &&
	    k->batch < UINT32_MAX / 2) {
		k->batch *= 2;
		k->doublings++;
	}
}

/*
 * Copies before a timed batch, untimed, on the same walk.  The evict
 * pass after the previous sample leaves the write path idle, and the
 * first copies after it run into empty queues, faster than any later
 * one and faster for some strategies than for others: a short batch
 * would time the idle path, not the copy (bench_lead_in measures it).
 * A quarter of the batch fills the queues and costs a size a fifth of
 * its samples; lead_in_bytes bounds it, and from lead_in_bytes up one
 * copy outlasts the start by itself.
 */
static unsigned lead_in(uint64_t lead_in_bytes, uint64_t size, unsigned batch)
{
	unsigned quarter = (batch + 3) / 4;
	uint64_t n;

	if (size >= lead_in_bytes)
		return 0;
	n = (lead_in_bytes + size - 1) / size;
	return n < quarter ? (unsigned)n : quarter;
}

/*
 * Warm-up: code, TLB and the source.  Also sizes the batch, from its
 * wall time, which holds the calls around the copies: at small sizes that
 * makes a sample a few microseconds of copying rather than sample_ns, and
 * samples of sample_ns measured noisier on a shared guest.
 */
static unsigned warm_up(struct sweep *sw, struct cell *c, unsigned nthreads)
{
	uint64_t t0 = now_ns();

	c->batch = 2;
	c->lead_in = 0;
	workers_run(sw->w, nthreads, cell_work, c);
	/* several threads: longer samples, so that their runs overlap */
	return (unsigned)fmax(1.0, fmin(MAX_BATCH_COPIES, sw->cfg->sample_ns * 2 *
					(nthreads > 1 ? MULTI_THREAD_SAMPLE_FACTOR : 1) /
					fmax(1.0, (double)(now_ns() - t0))));
}

/*
 * Sample the contenders at one size in turns until each one's interval
 * is tight, max_samples are taken (refused ones included), or end
 * passes (min_samples always).
 */
static void measure_contenders(struct sweep *sw, struct contender *ct, unsigned nct,
			       uint64_t size, bool random, unsigned nthreads, uint64_t end)
{
	const struct sweep_config *cfg = sw->cfg;
	struct cell c = { .size = size, .random = random, .nthreads = nthreads, .ts = sw->ts,
			  .evict = cfg->evict };
	unsigned active = nct;

	for (unsigned i = 0, most = 0; i < nct; i++) {
		struct contender *k = &ct[i];

		k->n = 0;
		k->rejected = 0;
		k->preempted = 0;
		k->doublings = 0;
		k->done = false;
		k->unmeasurable = false;
		c.copy = k->copy;
		k->batch = warm_up(sw, &c, nthreads);
		/*
		 * A warm-up slowed by an interrupt sizes a batch of one or two
		 * copies, and a cell of such samples is mostly the clock and
		 * the lines still in flight, far from its siblings beside it.
		 * The first warm-up of a size also pays its cold lines.  Those
		 * get a second warm-up, and the larger batch.
		 */
		if (!i || 2 * k->batch < most) {
			unsigned again = warm_up(sw, &c, nthreads);

			if (again > k->batch)
				k->batch = again;
		}
		if (k->batch > most)
			most = k->batch;
	}
	/*
	 * Each round starts one contender later: at large sizes a copy
	 * sampled right after another strategy's pays for what that one left
	 * in the caches and write queues, and a fixed order would hand that
	 * handicap to the same strategy always.  For the same reason a
	 * contender that is done still copies in its turn, untimed, while
	 * another one is sampled: alone, the last contender of a cell would
	 * run faster than beside the others, and the one that needed the most
	 * samples would win.
	 */
	for (unsigned round = 0; active && !(cfg->stop && *cfg->stop); round++) {
		for (unsigned j = 0; j < nct && active; j++) {
			struct contender *k = &ct[(j + round) % nct];
			double v, overlap;
			bool preempted;
			uint64_t t0;

			c.copy = k->copy;
			c.batch = k->batch;
			c.lead_in = lead_in(cfg->lead_in_bytes, size, k->batch);
			if (k->done) {
				cell_sample(sw->w, &c, &overlap, &preempted);
				continue;
			}
			t0 = now_ns();
			v = cell_sample(sw->w, &c, &overlap, &preempted);
			if (isnan(v)) {
				refused(sw, k, now_ns() - t0);
			} else {
				k->preempted += preempted;
				/* to the file's precision: its samples replay exactly */
				k->v[k->n++] = policy_mib_s_as_saved(v);
				if (nthreads > 1 && overlap < sw->min_overlap)
					sw->min_overlap = overlap;
			}
			if (k->n + k->rejected >= cfg->max_samples) {
				k->done = true;
			} else if (k->rejected > k->n &&
				   (k->rejected >= MAX_DOUBLINGS || now_ns() >= end)) {
				/* mostly refused, doubled enough or out of time: not measurable */
				k->done = true;
			} else if (k->n < cfg->min_samples) {
				k->done = k->rejected && k->n + k->rejected >= cfg->min_samples &&
					  now_ns() >= end;
			} else {
				struct sample_summary s;
				double tmp[MAX_CELL_SAMPLES];

				memcpy(tmp, k->v, k->n * sizeof(*tmp));
				stats_summarize(tmp, k->n, &s);
				k->done = stats_ci_rel_width(&s) <= cfg->rel_ci ||
					  now_ns() >= end;
			}
			if (k->done)
				active--;
		}
	}
	for (unsigned i = 0; i < nct; i++) {
		ct[i].unmeasurable = ct[i].rejected && (!ct[i].n || ct[i].rejected > ct[i].n);
		if (ct[i].unmeasurable)
			ct[i].n = 0;
		if (ct[i].n) {	/* else interrupted or unmeasurable */
			/* on a copy: v stays in the order taken (--keep-samples) */
			double tmp[MAX_CELL_SAMPLES];

			memcpy(tmp, ct[i].v, ct[i].n * sizeof(*tmp));
			stats_summarize(tmp, ct[i].n, &ct[i].res);
		} else {
			ct[i].res = (struct sample_summary){ .median = NAN, .p10 = NAN, .p90 = NAN,
							     .ci_lo = NAN, .ci_hi = NAN };
		}
	}
}

/* ---- what a cell suffered ---- */

struct disturbance {
	uint64_t wall_ns;
	uint64_t stolen_ns;	/* the hypervisor's steal, summed over the CPUs */
	long majflt;
	double preempted;	/* the largest share of one contender's samples preempted */
};

/* Steal time of all CPUs, ns (/proc/stat "cpu" line, 8th value, USER_HZ ticks); 0 unknown. */
static uint64_t steal_ns(void)
{
	unsigned long long v[8] = { 0 };
	char line[512];
	FILE *f = fopen("/proc/stat", "re");
	long hz = sysconf(_SC_CLK_TCK);

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) != 8)
		v[7] = 0;
	fclose(f);
	return hz > 0 ? v[7] * (1000000000ull / (unsigned long long)hz) : 0;
}

static void disturbance_start(struct disturbance *d)
{
	struct rusage ru;

	d->wall_ns = now_ns();
	d->stolen_ns = steal_ns();
	d->majflt = getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_majflt;
}

static void disturbance_end(struct disturbance *d)
{
	struct rusage ru;
	uint64_t stolen = steal_ns();

	d->wall_ns = now_ns() - d->wall_ns;
	d->stolen_ns = stolen > d->stolen_ns ? stolen - d->stolen_ns : 0;
	d->majflt = getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_majflt - d->majflt;
}

static void record_suffered(struct sweep *sw, uint64_t size, const struct disturbance *d)
{
	struct suffered *s = NULL;

	for (unsigned i = 0; i < sw->nsuffered && !s; i++)
		if (sw->suffered[i].size == size)
			s = &sw->suffered[i];
	if (!s) {
		if (sw->nsuffered == MAX_SUFFERED)
			return;
		s = &sw->suffered[sw->nsuffered++];
	}
	s->size = size;
	s->majflt = d->majflt;
	s->stolen = d->wall_ns ? (double)d->stolen_ns / (double)d->wall_ns : 0;
	s->preempted = d->preempted;
}

/*
 * Cell idx of cv gets the samples just taken (or loses its old ones):
 * --keep-samples.  Out of memory, the cell keeps none rather than stale ones.
 */
static void keep_raw(struct sweep *sw, struct policy_curve *cv, size_t nsizes, size_t idx,
		     const struct contender *k)
{
	if (!sw->cfg->keep_samples)
		return;
	if (policy_curve_set_raw(cv, nsizes, idx, k->v, k->unmeasurable ? 0 : k->n)) {
		/* the cell is written without them (a valid file), and said so at the end */
		policy_curve_set_raw(cv, nsizes, idx, NULL, 0);
		sw->raw_lost++;
	}
}

/* One size of the sweep: its share of the remaining time, results into the curves. */
static void measure_size(struct sweep *sw, struct policy_op *op, struct contender *ct,
			 unsigned nct, int idx)
{
	const bool random = !strcmp(op->pattern, "random");
	const unsigned nthreads = op->threads;
	const uint64_t size = op->sizes_bytes[idx];
	double weight = cell_weight(size) * nct;
	uint64_t now = now_ns();
	struct disturbance d;
	double share;

	/* this size's share of what is left, in proportion to its weight */
	share = sw->deadline_ns > now ? (double)(sw->deadline_ns - now) * weight /
					(sw->work_left > weight ? sw->work_left : weight)
				      : 0;
	sw->work_left -= weight;
	disturbance_start(&d);
	measure_contenders(sw, ct, nct, size, random, nthreads, now + (uint64_t)share);
	disturbance_end(&d);
	d.preempted = 0;
	for (unsigned i = 0; i < nct; i++)
		if (ct[i].n)
			d.preempted = fmax(d.preempted, (double)ct[i].preempted / ct[i].n);
	record_suffered(sw, size, &d);
	for (unsigned i = 0; i < nct; i++) {
		struct policy_curve *cv = ct[i].curve;
		const struct sample_summary *r = &ct[i].res;

		if (ct[i].unmeasurable) {
			/* an earlier result at this size is not kept: it was not confirmed */
			cv->median_mib_s[idx] = cv->p10_mib_s[idx] = cv->p90_mib_s[idx] = NAN;
			cv->ci_lo_mib_s[idx] = cv->ci_hi_mib_s[idx] = NAN;
			cv->samples[idx] = 0;
			cv->cell_flags[idx] |= POLICY_CELL_UNMEASURABLE;
			keep_raw(sw, cv, op->nsizes, (size_t)idx, &ct[i]);
			continue;
		}
		if (!ct[i].n)
			continue;
		keep_raw(sw, cv, op->nsizes, (size_t)idx, &ct[i]);
		/* a confirmation was of the numbers replaced here */
		cv->cell_flags[idx] &= (uint8_t)~(POLICY_CELL_UNMEASURABLE | POLICY_CELL_CONFIRMED);
		policy_curve_set_summary(cv, (size_t)idx, r);
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

static bool cell_measured(const struct policy_curve *cv, size_t i)
{
	return cv->samples[i] && !isnan(cv->median_mib_s[i]);
}

/*
 * A second look at size idx of op: the strategies names[0..n) (NULL:
 * every one measured there) measured again, fresh, their new cells
 * replacing the old and flagged with flag.  ct (NULL: none wanted) gets
 * the contenders with their results.  Returns how many were measured: 0
 * when one of them has no contender.
 */
static unsigned measure_again(struct sweep *sw, struct policy_op *op, struct contender *all,
			      unsigned nall, const char *const *names, unsigned n, size_t idx,
			      uint8_t flag, struct contender *ct)
{
	const char *every[MAX_STRATEGIES] = { NULL };
	struct contender own[MAX_STRATEGIES];
	bool some = names != NULL;
	unsigned np;

	if (!names) {
		n = 0;
		for (size_t c = 0; c < op->ncurves && n < MAX_STRATEGIES; c++)
			if (cell_measured(&op->curves[c], idx))
				every[n++] = op->curves[c].strategy;
		names = every;
	}
	if (!ct)
		ct = own;
	np = pick(op, all, nall, names, n, ct);
	if (!np || np != n)
		return 0;
	progress(sw, op, op->sizes_bytes[idx]);
	measure_size(sw, op, ct, np, (int)idx);
	if (some) {
		const struct policy_curve *fresh[MAX_STRATEGIES];

		for (unsigned j = 0; j < np; j++)
			fresh[j] = ct[j].curve;
		policy_op_unpair_earlier_looks(op, idx, fresh, np);
	}
	for (unsigned j = 0; j < np; j++)
		ct[j].curve->cell_flags[idx] |= flag;
	return np;
}

/*
 * Take the second looks lk[0..n) at op, at the sizes only[] (NULL: all):
 * each look's curves measured again, fresh (every strategy measured at
 * the size where it says every: a family's representative is its second
 * best there, which an old cell could otherwise become), the new cells
 * replacing the old.  A look that claims a verdict (an island, a tie one
 * member's wide interval made) has repeated where the fresh cells give
 * it: they are flagged POLICY_CELL_CONFIRMED and the decision keeps it.
 * The others are the cells' second look (POLICY_CELL_REMEASURED).
 * fresh[idx] (NULL: not wanted) is set where a look measured.  Returns
 * how many looks measured.
 */
static size_t take_looks(struct sweep *sw, struct policy_op *op, struct contender *all,
			 unsigned nall, const struct second_look *lk, size_t n, const bool *only,
			 bool *fresh)
{
	struct crossover_cell cells[MAX_OP_SIZES];
	size_t looked = 0;

	assert(op->nsizes <= MAX_OP_SIZES);
	for (size_t k = 0; k < n && !(sw->cfg->stop && *sw->cfg->stop); k++) {
		size_t idx = lk[k].index;
		bool claim = lk[k].verdict >= 0;
		const char *names[SECOND_LOOK_MAX_CURVES];
		struct contender ct[MAX_STRATEGIES];
		unsigned np;

		if (only && !only[idx])
			continue;
		for (unsigned j = 0; !lk[k].every && j < lk[k].ncurves; j++)
			names[j] = op->curves[lk[k].curves[j]].strategy;
		np = measure_again(sw, op, all, nall, lk[k].every ? NULL : names,
				   lk[k].ncurves, idx, claim ? 0 : POLICY_CELL_REMEASURED, ct);
		if (!np)
			continue;
		looked++;
		if (fresh)
			fresh[idx] = true;
		if (!claim || crossover_cells(op, cells) || cells[idx].verdict != lk[k].verdict)
			continue;
		for (unsigned j = 0; j < np; j++)
			if (!ct[j].curve->reference_only && ct[j].n)
				ct[j].curve->cell_flags[idx] |= POLICY_CELL_CONFIRMED;
	}
	return looked;
}

/* The decision code's islands and unresolved ties (crossover_rechecks()), looked at again. */
static void recheck(struct sweep *sw, struct policy_op *op, struct contender *all, unsigned nall)
{
	struct crossover_cell cells[MAX_OP_SIZES];
	struct second_look lk[MAX_OP_SIZES];

	assert(op->nsizes <= MAX_OP_SIZES);
	if (!crossover_cells(op, cells))
		take_looks(sw, op, all, nall, lk,
			   crossover_rechecks(op, cells, lk, op->nsizes), NULL, NULL);
}

static const struct suffered *suffered_at(const struct sweep *sw, uint64_t size)
{
	for (unsigned i = 0; i < sw->nsuffered; i++)
		if (sw->suffered[i].size == size)
			return &sw->suffered[i];
	return NULL;
}

/* Why size index i is measured again: 2 implausible, 1 disturbed, 0 not. */
static int remeasure_reason(const struct sweep *sw, const struct policy_op *op, size_t i)
{
	const struct suffered *s = suffered_at(sw, op->sizes_bytes[i]);
	bool disturbed = s && (s->majflt > 0 || s->stolen > STOLEN_SHARE ||
			       s->preempted > PREEMPTED_SHARE);

	for (size_t c = 0; c < op->ncurves; c++) {
		/* once only: a second look that agrees is what the cell is */
		if (op->curves[c].cell_flags[i] & POLICY_CELL_REMEASURED)
			return 0;
	}
	for (size_t c = 0; c < op->ncurves; c++)
		if (crossover_cell_implausible(op, c, i))
			return 2;
	return disturbed ? 1 : 0;
}

/*
 * Measure again, after the rest of the op, the sizes whose cells cannot
 * be right or that suffered (implausible first, then the most stolen),
 * every strategy measured there; then flag suspect what stays
 * implausible.
 */
static void screen(struct sweep *sw, struct policy_op *op, struct contender *all, unsigned nall)
{
	size_t pick_idx[MAX_REMEASURE];
	unsigned npick = 0;

	for (int want = 2; want >= 1; want--)
		for (size_t i = 0; i < op->nsizes && npick < MAX_REMEASURE; i++)
			if (remeasure_reason(sw, op, i) == want)
				pick_idx[npick++] = i;
	for (unsigned k = 0; k < npick && !(sw->cfg->stop && *sw->cfg->stop); k++)
		measure_again(sw, op, all, nall, NULL, 0, pick_idx[k], POLICY_CELL_REMEASURED,
			      NULL);
	for (size_t c = 0; c < op->ncurves; c++) {
		struct policy_curve *cv = &op->curves[c];

		for (size_t i = 0; i < op->nsizes; i++) {
			cv->cell_flags[i] &= (uint8_t)~POLICY_CELL_SUSPECT;
			if (crossover_cell_implausible(op, c, i))
				cv->cell_flags[i] |= POLICY_CELL_SUSPECT;
		}
	}
}

/* Bisect each crossover with fresh measurements of its two strategies. */
static int refine(struct sweep *sw, struct policy_op *op, struct contender *all, unsigned nall)
{
	struct crossover_bracket br[MAX_BRACKETS];

	recheck(sw, op, all, nall);
	for (unsigned round = 0; round < sw->cfg->refine_rounds; round++) {
		size_t nb = crossover_brackets(op, BISECT_MIN_RATIO, LINE, br, MAX_BRACKETS);

		if (!nb || now_ns() >= sw->deadline_ns)
			break;
		for (size_t b = 0; b < nb; b++) {
			uint64_t mid = crossover_midpoint(br[b].lo_bytes, br[b].hi_bytes, LINE);
			const char *names[2] = { br[b].below, br[b].above };
			struct contender pair[2];
			int idx;

			if (!mid)
				continue;
			if (op->nsizes >= MAX_OP_SIZES)
				break;
			idx = policy_op_insert_size(op, mid);
			if (idx < 0)
				return idx;
			/* after the insertion: the curve arrays moved */
			if (pick(op, all, nall, names, 2, pair) != 2)
				continue;
			progress(sw, op, mid);
			measure_size(sw, op, pair, 2, idx);
		}
	}
	if (sw->cfg->stop && *sw->cfg->stop)
		return -EINTR;
	return 0;
}

/*
 * Measure again, fresh, after the rest of the op, the baseline's strategy
 * and the challenger at every size where the baseline's decision lost
 * (crossover_baseline_losses()) among only[] (NULL: all); the decision
 * may change only where the fresh cells show the loss again.
 */
static void remeasure_losses(struct sweep *sw, struct policy_op *op, struct contender *all,
			     unsigned nall, const bool *only)
{
	const struct policy_op *bo = sw->cfg->baseline ?
				     policy_find_op(sw->cfg->baseline, op->op, op->pattern,
						    op->threads) : NULL;
	struct second_look lk[MAX_OP_SIZES];
	size_t n = crossover_baseline_losses(op, bo, lk, MAX_OP_SIZES);

	take_looks(sw, op, all, nall, lk, n, only, NULL);
}

/* Has size idx of op had a second look already, on any curve? */
static bool looked_twice(const struct policy_op *op, size_t idx)
{
	for (size_t c = 0; c < op->ncurves; c++)
		if (op->curves[c].cell_flags[idx] &
		    (POLICY_CELL_REMEASURED | POLICY_CELL_CONFIRMED))
			return true;
	return false;
}

/*
 * A second look at the member ranges (crossover_member_rechecks()): the
 * member and its family's default measured again, fresh and side by
 * side, after every op and every other second look, so that a range of
 * another member than the default stands only where the fresh cells give
 * it too.  Always, even where one of the cells was measured again
 * already: a second look at some curves of a size (the baseline's
 * losses, an export's) puts two moments of a shared host side by side,
 * and a member can win on that alone.  The baseline's losses at those
 * sizes get their own second look, as a cell made fresh here must not
 * let a range change against the baseline on one look.
 */
static void recheck_members(struct sweep *sw, struct policy_op *op, struct contender *all,
			    unsigned nall)
{
	struct crossover_cell cells[MAX_OP_SIZES];
	struct second_look lk[MAX_OP_SIZES];
	bool fresh[MAX_OP_SIZES];
	size_t n;

	assert(op->nsizes <= MAX_OP_SIZES);
	/* a thin op decides nothing: no range to look at */
	if (crossover_op_thin(op) || crossover_cells(op, cells))
		return;
	n = crossover_member_rechecks(op, cells, lk, op->nsizes);
	memset(fresh, 0, sizeof(fresh));
	if (take_looks(sw, op, all, nall, lk, n, NULL, fresh))
		remeasure_losses(sw, op, all, nall, fresh);
}

/*
 * An op with an unmeasurable cell is thin and decides nothing whatever
 * its other cells say (crossover_op_thin()), so its sizes from idx on are
 * left unmeasured and their share of the budget goes to the ops after it:
 * on a host with few CPUs the multi-thread ops are often thin, and would
 * otherwise take much of a short probe's wall time.
 */
static void thin_rest(struct sweep *sw, const struct policy_op *op, unsigned nct, size_t idx)
{
	for (; idx < op->nsizes; idx++) {
		double weight = cell_weight(op->sizes_bytes[idx]) * nct;

		sw->work_left = sw->work_left > weight ? sw->work_left - weight : 0;
		sw->cells_done += nct;
	}
}

/*
 * The first sizes of a target's first op, measured again after the rest
 * of it, from the smallest up until a second look agrees with the first
 * (crossover_looks_agree()); every look is kept as the second one is.
 * The start of a probe is its least settled moment, and nothing counted
 * shows it: a probe right after boot can read every strategy at its
 * smallest sizes at a fraction of what it reads minutes later, with
 * tight intervals, no fault and no steal, or its very first cell far
 * high.  Settled, this costs one size: the smallest, the cheapest.
 */
static void look_back_at_start(struct sweep *sw, struct policy_op *op, struct contender *all,
			       unsigned nall)
{
	double first[POLICY_MAX_CURVES];

	assert(op->ncurves <= POLICY_MAX_CURVES);
	for (size_t idx = 0; idx < op->nsizes && idx < MAX_REMEASURE; idx++) {
		if (sw->cfg->stop && *sw->cfg->stop)
			return;
		for (size_t c = 0; c < op->ncurves; c++)
			first[c] = cell_measured(&op->curves[c], idx) ?
					   op->curves[c].median_mib_s[idx] : NAN;
		if (!measure_again(sw, op, all, nall, NULL, 0, idx, POLICY_CELL_REMEASURED, NULL) ||
		    crossover_looks_agree(op, idx, first))
			return;
	}
}

static int sweep_op(struct sweep *sw, struct policy_op *op, struct contender *ct, unsigned nct)
{
	int rc = 0;

	for (unsigned i = 0; i < nct; i++)
		ct[i].curve = policy_op_find_curve(op, ct[i].name);
	set_threads(sw, op->threads);
	sw->min_overlap = 1;
	sw->rejected = 0;
	sw->nsuffered = 0;
	for (size_t idx = 0; idx < op->nsizes; idx++) {
		if (sw->cfg->stop && *sw->cfg->stop)
			return -EINTR;
		progress(sw, op, op->sizes_bytes[idx]);
		measure_size(sw, op, ct, nct, (int)idx);
		if (crossover_op_thin(op)) {
			thin_rest(sw, op, nct, idx + 1);
			goto out;
		}
	}
	if (!sw->start_looked_at) {
		sw->start_looked_at = true;
		look_back_at_start(sw, op, ct, nct);
	}
	screen(sw, op, ct, nct);
	rc = refine(sw, op, ct, nct);
	/* the bisection points, measured last, get the same second look */
	if (!rc) {
		screen(sw, op, ct, nct);
		remeasure_losses(sw, op, ct, nct, NULL);
	}
out:
	if (op->threads > 1) {
		op->min_overlap = sw->min_overlap;
		op->rejected_samples = sw->rejected;
	}
	return rc;
}

/*
 * A second look at the cells that a marginal change of an export rests
 * on (export_rechecks()), measured again after every op and flagged
 * POLICY_CELL_REMEASURED, so that the change stands only where the fresh
 * cells show it too.  Every strategy measured at the size, not only the
 * knob's two curves: the ranges read them all, and a fresh default beside
 * an old member compares two moments of a shared host.  A size that had
 * a second look already is what it is.  The baseline's losses at those
 * sizes then get their own second look, as in sweep_op(): a cell made
 * fresh here must not let a range change on one look.
 */
static int recheck_exports(struct sweep *sw, struct policy_target *t, struct contender *all,
			   unsigned nall)
{
	struct second_look rx[MAX_EXPORT_RECHECK];
	ssize_t n = export_rechecks(sw->cfg->exports_of, sw->cfg->weights,
				    sw->cfg->exports_baseline, t, rx, MAX_EXPORT_RECHECK);
	bool *fresh = n > 0 ? calloc(t->nops * MAX_OP_SIZES, sizeof(*fresh)) : NULL;
	int rc = 0;

	if (n <= 0)
		return (int)n;
	if (!fresh)
		return -ENOMEM;
	for (ssize_t k = 0; k < n && !(sw->cfg->stop && *sw->cfg->stop); k++) {
		struct policy_op *op = &t->ops[rx[k].op];

		if (rx[k].index >= MAX_OP_SIZES || looked_twice(op, rx[k].index))
			continue;
		set_threads(sw, op->threads);
		take_looks(sw, op, all, nall, &rx[k], 1, NULL, &fresh[rx[k].op * MAX_OP_SIZES]);
	}
	for (size_t o = 0; o < t->nops; o++) {
		struct policy_op *op = &t->ops[o];
		bool any = false;

		for (size_t i = 0; i < op->nsizes && i < MAX_OP_SIZES; i++)
			any |= fresh[o * MAX_OP_SIZES + i];
		if (!any)
			continue;
		set_threads(sw, op->threads);
		remeasure_losses(sw, op, all, nall, &fresh[o * MAX_OP_SIZES]);
	}
	free(fresh);
	if (!rc && sw->cfg->stop && *sw->cfg->stop)
		rc = -EINTR;
	return rc;
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

/*
 * The non-temporal fill rate of nthreads threads together; refused
 * samples (threads not together) double the chunk as cells double their
 * batch.  NAN when the threads never ran together.
 */
static double ceiling_of(struct sweep *sw, unsigned nthreads, double seconds)
{
	struct fill f = { .chunk = 1u << 20, .ts = sw->ts };
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	struct sample_summary s;
	unsigned n = 0, rejected = 0;
	double v[64];

	set_threads(sw, nthreads);
	workers_run(sw->w, nthreads, fill_work, &f);	/* warm-up */
	while (n + rejected < 64 && (n + rejected < 7 || now_ns() < end)) {
		double r, overlap;

		workers_run(sw->w, nthreads, fill_work, &f);
		r = threads_rate(sw->ts, nthreads, (double)f.chunk, &overlap);
		if (!isnan(r)) {
			v[n++] = r;
			continue;
		}
		rejected++;
		if (f.chunk * 2 <= sw->ts[0].slice_len / 2 && rejected <= MAX_DOUBLINGS)
			f.chunk *= 2;
	}
	if (!n || rejected > n)
		return NAN;
	stats_summarize(v, n, &s);
	return s.median;
}

/* ---- threads to saturation ---- */


/* 1, 2, 4, ... below max, then max itself. */
static size_t thread_steps(unsigned max, unsigned *steps)
{
	size_t n = 0;

	for (unsigned k = 1; k < max && n < POLICY_SATURATION_STEPS - 1; k *= 2)
		steps[n++] = k;
	steps[n++] = max;
	return n;
}

/*
 * One member of a family for the saturation series: its default among
 * the contenders (strategy_default_rank(), as the rule's), which needs no
 * decision.
 */
static int family_member(const struct contender *ct, unsigned nct, enum policy_family f)
{
	int best = -1, best_rank = INT_MAX;

	for (unsigned i = 0; i < nct; i++) {
		int r = strategy_default_rank(f, ct[i].name);

		if (r >= 0 && r < best_rank) {
			best = (int)i;
			best_rank = r;
		}
	}
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

/*
 * Against a baseline, the op set changes only on clear evidence: a step
 * must add POLICY_STEP_GAIN plus SATURATION_MARGIN to add a thread count,
 * or less than POLICY_STEP_GAIN minus it, measured, to drop one -- in two
 * series in a row.  A step whose threads never ran together is no
 * evidence either way.
 */

/*
 * The last step of s up to which every step added at least gain; with
 * measured_only false, a step that could not be timed ends the series
 * there, with true it counts as still growing (nothing says it stopped).
 */
static unsigned series_at(const struct policy_saturation *s, double gain, unsigned nthreads,
			  bool measured_only)
{
	unsigned at = s->nsteps ? s->threads[0] : 1;

	for (size_t i = 1; i < POLICY_SATURATION_STEPS; i++) {
		if (i >= s->nsteps) {
			/* not timed: the series ended by a failed step or by the last one */
			if (!measured_only || !s->nsteps || s->threads[s->nsteps - 1] >= nthreads)
				break;
			return nthreads;
		}
		if (s->mib_s[i] < s->mib_s[i - 1] * (1 + gain))
			break;
		at = s->threads[i];
	}
	return at;
}

/* Most threads over the families: with gain > POLICY_STEP_GAIN, a clear gain. */
static unsigned families_at(const struct policy_saturation *sat, double gain, unsigned nthreads,
			    bool measured_only)
{
	unsigned most = 1;

	for (int f = 0; f < POLICY_NR_FAMILIES; f++)
		if (sat[f].present) {
			unsigned at = series_at(&sat[f], gain, nthreads, measured_only);

			most = at > most ? at : most;
		}
	return most;
}

static void saturation_all(struct sweep *sw, struct contender *ct, unsigned nct,
			   struct policy_saturation *sat)
{
	for (int f = 0; f < POLICY_NR_FAMILIES; f++) {
		int m = f == POLICY_FAMILY_FILL ? -1 : family_member(ct, nct, f);

		if (f != POLICY_FAMILY_FILL && m < 0)
			continue;
		saturation_series(sw, ct, m, &sat[f], sw->cfg->budget_s * SATURATION_SHARE);
	}
}

/* The thread count of the baseline's second grid (1: it has none). */
static unsigned baseline_threads(const struct policy_target *b, unsigned nthreads)
{
	unsigned most = 1;

	for (size_t i = 0; b && i < b->nops; i++)
		if (b->ops[i].threads > most && b->ops[i].threads <= nthreads)
			most = b->ops[i].threads;
	return most;
}

/*
 * The thread count of the second grid: where the families saturate (the
 * most of them).  On a host where several threads rarely run together
 * (a small, shared guest) that answer flickers from probe to probe, and
 * with it the op set; so against a baseline its thread count stays unless
 * this series and a fresh one both show clearly otherwise.
 */
static unsigned saturate(struct sweep *sw, struct contender *ct, unsigned nct,
			 struct policy_target *out)
{
	struct policy_saturation again[POLICY_NR_FAMILIES] = { { 0 } };
	unsigned n = sw->cfg->nthreads, most, bt;
	bool change;

	sw->phase = "threads";
	saturation_all(sw, ct, nct, out->saturation);
	most = families_at(out->saturation, POLICY_STEP_GAIN, n, false);
	if (!sw->cfg->baseline)
		return most;
	bt = baseline_threads(sw->cfg->baseline, n);
	if (most == bt)
		return bt;
	saturation_all(sw, ct, nct, again);
	if (most > bt)
		change = families_at(out->saturation, POLICY_STEP_GAIN + SATURATION_MARGIN, n,
				     false) > bt &&
			 families_at(again, POLICY_STEP_GAIN + SATURATION_MARGIN, n, false) > bt;
	else
		change = families_at(out->saturation, POLICY_STEP_GAIN - SATURATION_MARGIN, n,
				     true) < bt &&
			 families_at(again, POLICY_STEP_GAIN - SATURATION_MARGIN, n, true) < bt;
	return change ? most : bt;
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

/*
 * The strategies of cfg this CPU runs, into ct[] (their sample buffers
 * allocated) and whether each needs a cpu_cache domain.  Returns how
 * many, -ENOENT for none, or -ENOMEM (nothing left allocated).
 */
static int pick_contenders(const struct cpu_info *ci, const struct sweep_config *cfg,
			   struct contender *ct, bool *domain_only)
{
	int nct = 0;

	for (unsigned i = 0; i < strategy_count && nct < MAX_STRATEGIES; i++) {
		const struct strategy *s = &strategy_table[i];
		const char *missing = NULL;

		if (!strategy_wanted(cfg, s->name))
			continue;
		if (!strategy_supported(s, ci, &missing)) {
			if (cfg->progress || isatty(STDERR_FILENO))
				fprintf(stderr, "pmem-tune: %s: not supported by this CPU "
					"(needs %s)\n",
					s->name, missing);
			continue;
		}
		ct[nct].name = s->name;
		ct[nct].copy = s->copy;
		domain_only[nct] = s->cpu_cache_domain_only;
		assert(cfg->max_samples <= MAX_CELL_SAMPLES);
		ct[nct].v = calloc(cfg->max_samples, sizeof(double));
		if (!ct[nct].v) {
			while (nct--)
				free(ct[nct].v);
			return -ENOMEM;
		}
		nct++;
	}
	return nct ? nct : -ENOENT;
}

/*
 * out's ops, a sequential and a random one per thread count of
 * nthr[0..ndims), each with every contender's curve over the grid, and
 * their work counted into sw.
 */
static int add_ops(struct sweep *sw, struct policy_target *out, const uint64_t *sizes,
		   size_t nsizes, const unsigned *nthr, unsigned ndims, const struct contender *ct,
		   unsigned nct, const bool *domain_only, bool cpu_cache)
{
	for (unsigned d = 0; d < ndims; d++)
		for (unsigned r = 0; r < 2; r++) {
			struct policy_op *op = policy_target_add_op(out, "write",
								    r ? "random" : "sequential",
								    nthr[d], sizes, nsizes);

			if (!op)
				return -ENOMEM;
			for (unsigned i = 0; i < nct; i++) {
				struct policy_curve *c = policy_op_add_curve(op, ct[i].name);

				if (!c)
					return -ENOMEM;
				/* noflush alone leaves data in a volatile cache */
				c->reference_only = domain_only[i] && !cpu_cache;
			}
			for (size_t k = 0; k < nsizes; k++)
				sw->work_left += cell_weight(sizes[k]) * nct;
		}
	sw->cells_total = (unsigned)(out->nops * nsizes * nct);
	return 0;
}

/* The clock, the progress lines and the first deadline of a target's sweep. */
static void start_clock(struct sweep *sw, const struct sweep_config *cfg)
{
	sw->start_ns = now_ns();
	if (cfg->whole) {
		sw->whole = cfg->whole;
	} else {
		sw->whole = &sw->own_progress;
		probe_progress_init(sw->whole, 1);
	}
	probe_progress_begin_target(sw->whole, sw->start_ns);
	/* the next quarter of the whole probe gets a line */
	sw->next_line_pct = ((unsigned)(sw->whole->shown_frac * 4) + 1) * 25;
	/* a share of the budget is kept for the bisection rounds and the second looks */
	sw->deadline_ns = sw->start_ns +
			  (uint64_t)(cfg->budget_s * (OPS_BUDGET_SHARE - SECOND_LOOK_SHARE) * 1e9);
}

int sweep_run(const struct target *t, const struct cpu_info *ci, const struct sweep_config *cfg,
	      struct policy_target *out)
{
	const bool cpu_cache = strcmp(t->persistence_domain, "cpu_cache") == 0;
	uint64_t sizes[MAX_GRID];
	size_t nsizes = sweep_grid(cfg, sizes, MAX_GRID);
	struct contender ct[MAX_STRATEGIES];
	bool domain_only[MAX_STRATEGIES];
	unsigned nct, nthr_dims[2] = { 1, cfg->nthreads }, ndims;
	double ceilings[2] = { NAN, NAN };
	struct sweep sw;
	int rc = pick_contenders(ci, cfg, ct, domain_only);

	if (rc < 0)
		return rc;
	nct = (unsigned)rc;
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
	rc = add_ops(&sw, out, sizes, nsizes, nthr_dims, ndims, ct, nct, domain_only, cpu_cache);
	if (rc)
		goto out;
	start_clock(&sw, cfg);

	/*
	 * The ceiling is taken before and after the copies and the higher
	 * kept: a neighbour's burst or a frequency change during one of the
	 * two would otherwise set the bar below what the copies reach.
	 */
	sw.phase = "ceiling";
	for (unsigned d = 0; d < ndims; d++)
		ceilings[d] = ceiling_of(&sw, nthr_dims[d], cfg->budget_s * CEILING_SHARE);
	sw.phase = "write";
	for (size_t o = 0; o < out->nops && !rc; o++) {
		struct policy_op *op = &out->ops[o];

		if (o == out->nops - 1)
			sw.deadline_ns = sw.start_ns +
				(uint64_t)(cfg->budget_s *
					   (LAST_OP_BUDGET_SHARE - SECOND_LOOK_SHARE) * 1e9);
		rc = sweep_op(&sw, op, ct, nct);
	}
	if (!rc && cfg->exports_of)
		rc = recheck_exports(&sw, out, ct, nct);
	/* the member ranges last: every other look is in by then */
	for (size_t o = 0; o < out->nops && !rc; o++) {
		struct policy_op *op = &out->ops[o];

		set_threads(&sw, op->threads);
		recheck_members(&sw, op, ct, nct);
	}
	if (!rc && cfg->stop && *cfg->stop)
		rc = -EINTR;
	sw.phase = "ceiling";
	/* fmax: a ceiling not measurable once (NAN) takes the other one */
	for (unsigned d = 0; d < ndims && !rc; d++)
		ceilings[d] = fmax(ceilings[d],
				   ceiling_of(&sw, nthr_dims[d], cfg->budget_s * CEILING_SHARE));
	for (size_t o = 0; o < out->nops; o++)
		out->ops[o].ceiling_mib_s = ceilings[out->ops[o].threads == 1 ? 0 : 1];
	out->ceiling_mib_s = fmax(ceilings[0], ndims > 1 ? ceilings[1] : 0);
	if (cfg->progress)
		fprintf(stderr, "\r\033[K");
out:
	if (sw.raw_lost)
		fprintf(stderr, "pmem-tune: --keep-samples: out of memory, %u cells written "
			"without their samples\n", sw.raw_lost);
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
		assert(cfg->max_samples <= MAX_CELL_SAMPLES);
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
