// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Does the policy pay?  A held-out sweep of the policy's own sizes, both
 * patterns, timing side by side (two sweep_bench_measure() calls per
 * size, the second in the reverse order of the first, which puts the
 * policy once before and once after its strategy: see order_size()):
 *
 *   policy         the strategy the policy's ranges pick at that size,
 *                  called directly (see policy_fn())
 *   each strategy  alone; the best median at a size is the naive oracle,
 *                  and the cross-validated oracle takes the best of one
 *                  half's medians and scores it on the other half's
 *                  (the mean of the two ways round): the maximum of
 *                  many noisy medians sits above what any rule can
 *                  reach, so the ratios are to the cross-validated one
 *   dm-writecache  movnt below 768 bytes, clflushopt from 768 up
 *   memcpy+clwb    glibc memcpy, clwb of the range, sfence: that is the
 *                  memcpy_clwb strategy, read from its own column
 *
 * and PMDK's pmem_memcpy_persist with its default settings and with the
 * policy's exported PMEM_* values.  libpmem reads those once, when it
 * loads, so each PMDK variant runs in a child (this binary re-executed
 * with --pmdk-child and its own environment) that times PMDK side by
 * side with the strategies that were within 10 % of the oracle in the
 * parent: a PMDK ratio is formed inside one process, like every other.
 *
 * Without --policy the policy comes from a probe run just now (same
 * machine, same target kind, same area); the benchmark's seed differs
 * from the probe's, so random destinations differ.  Prints figures;
 * never pass/fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_LIBPMEM
#include <libpmem.h>
#define HAVE_PMDK 1
#else
#define HAVE_PMDK 0
#endif

#include "common/atomic_file.h"
#include "common/macros.h"
#include "measure/strategy.h"
#include "measure/sweep.h"
#include "measure/target.h"
#include "measure/workers.h"
#include "platform/cpu.h"
#include "policy/fingerprint.h"
#include "policy/policy.h"
#include "rule/crossover.h"
#include "rule/export.h"
#include "rule/samples.h"
#include "rule/stats.h"
#include "rule/strategy_class.h"

#include "bench/oracle.h"
#include "bench/sweep_record.h"

#ifndef PMEM_TUNE_PATH
#define PMEM_TUNE_PATH "pmem-tune"
#endif
#ifndef LIBPMEM_VERSION
#define LIBPMEM_VERSION "?"
#endif

/* sweep_config_defaults()' seed: the one every probe uses */
#define PROBE_SEED	0x9e3779b97f4a7c15ull
#define BENCH_SEED	0x62656e6368ull		/* "bench" */
/* dm-writecache's memcpy_flushcache_optimized(): clflushopt from here up */
#define DM_WRITECACHE_FLUSH_FROM 768
/* strategies that may hold the oracle in a PMDK child */
#define REF_WITHIN	0.90
#define REF_MAX		3
#define MAX_OPS		16
#define MAX_SIZES	256
#define DISPATCH_MAX	64

enum col {
	COL_POLICY, COL_PMDK_DEFAULT, COL_PMDK_EXPORTED, COL_DM, COL_DM_EXPORTED, COL_MEMCPY,
	NCOLS
};

static const char *const col_name[NCOLS] = {
	"policy", "pmdk-default", "pmdk-exported", "dm-writecache", "dm-exported",
	"memcpy+clwb",
};

struct cell {
	uint64_t size;
	double seconds;			/* this size's time share */
	double v[SWEEP_BENCH_MAX_FNS];	/* parent's medians, MiB/s */
	double vh[2][SWEEP_BENCH_MAX_FNS];	/* each half's medians */
	double oracle;			/* best single strategy, MiB/s (naive) */
	int oracle_idx;			/* into the contenders */
	double oracle_cv;		/* chosen on one half, scored on the other */
	double ratio_naive;		/* policy / oracle */
	const char *policy_pick;
	int pick;			/* policy_pick's contender, -1 if it is none alone */
	double ratio[NCOLS];		/* NAN: not measured */
	unsigned remeasured;		/* times it was found disturbed and measured again */
	int why;			/* enum disturbance: the last one found */
	bool disturbed;			/* still disturbed after REMEASURE_MAX */
};

struct op_run {
	const struct policy_op *op;
	bool random;
	size_t n;
	struct cell *c;
};

struct opts {
	const char *policy;
	const char *target;
	const char *tune;
	const char *save;
	const char *save_sweep;	/* --save-sweep: the held-out sweep, for bench_hindsight */
	enum sweep_mode mode;
	uint64_t seed;
	bool one_thread;
	bool cells;		/* print every contender's per-half medians */
	bool child;
	uint64_t area;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

/* ---- the contenders that are not a strategy ---- */

/*
 * Copy functions take no context, so the ranges of the op being timed
 * live here; set before each op, read by the pinned workers after the
 * barrier of workers_run().
 */
static struct {
	unsigned n;
	uint64_t to[DISPATCH_MAX];	/* exclusive bound of range i */
	strategy_copy_fn fn[DISPATCH_MAX];
	const char *name[DISPATCH_MAX];
} dispatch;

static void copy_policy(void *dst, const void *src, size_t len)
{
	unsigned i = 0;

	/* a handful of ranges: the scan costs a few cycles */
	while (i + 1 < dispatch.n && len >= dispatch.to[i])
		i++;
	dispatch.fn[i](dst, src, len);
}

static strategy_copy_fn dm_nt, dm_flush;

static void copy_dm_writecache(void *dst, const void *src, size_t len)
{
	(len < DM_WRITECACHE_FLUSH_FROM ? dm_nt : dm_flush)(dst, src, len);
}

/* dm-writecache's rule with the exported flushcache_nt_max_bytes: movnt up to it */
static uint64_t dm_exported_max = POLICY_SIZE_OPEN;

static void copy_dm_exported(void *dst, const void *src, size_t len)
{
	(len <= dm_exported_max ? dm_nt : dm_flush)(dst, src, len);
}

#ifdef HAVE_LIBPMEM
static void copy_pmdk(void *dst, const void *src, size_t len)
{
	pmem_memcpy_persist(dst, src, len);
}
#endif

static int dispatch_set(const struct policy_op *op, const struct cpu_info *ci)
{
	if (!op->nranges || op->nranges > DISPATCH_MAX)
		return -EINVAL;
	dispatch.n = 0;
	for (size_t i = 0; i < op->nranges; i++) {
		const struct policy_range *r = &op->ranges[i];
		const struct strategy *s = strategy_find(r->strategy);

		if (!s || !strategy_supported(s, ci, NULL)) {
			fprintf(stderr, "bench_policy: the policy's %s range uses '%s', which "
				"%s\n", op->pattern, r->strategy,
				s ? "this CPU cannot run" : "this build does not have");
			return -ENOENT;
		}
		/* ranges are ascending and contiguous (the schema says so) */
		if (i && r->from_bytes != op->ranges[i - 1].to_bytes)
			return -EINVAL;
		dispatch.to[i] = r->to_bytes;
		dispatch.fn[i] = s->copy;
		dispatch.name[i] = s->name;
		dispatch.n++;
	}
	return 0;
}

static const char *dispatch_pick(uint64_t size)
{
	unsigned i = 0;

	while (i + 1 < dispatch.n && size >= dispatch.to[i])
		i++;
	return dispatch.name[i];
}

/* ---- helpers ---- */

static double cell_weight(uint64_t size)
{
	/* as the sweep: small copies are batched to one sample's length */
	return size <= (256u << 10) ? 1.0 : (double)size / (256u << 10);
}

static const char *op_label(const struct policy_op *op, char *buf, size_t len)
{
	if (op->threads == 1)
		snprintf(buf, len, "%s", op->pattern);
	else
		snprintf(buf, len, "%s, %u threads", op->pattern, op->threads);
	return buf;
}

/* The bench is the judge: tighter intervals than the probe it judges. */
static void bench_config(struct sweep_config *cfg, enum sweep_mode mode, uint64_t seed)
{
	sweep_config_defaults(cfg, mode);
	cfg->seed = seed;
	cfg->stop = &stop;
	cfg->refine_rounds = 0;
	if (mode == SWEEP_QUICK) {
		cfg->rel_ci = 0.04;
		cfg->min_samples = 7;
		cfg->max_samples = 31;
	} else {
		/* +-1 % on each median: two of them make a ratio good to ~1.5 % */
		cfg->rel_ci = 0.01;
		cfg->min_samples = 15;
		cfg->max_samples = 161;
	}
}

/*
 * How far apart the policy and the strategy it runs may be in one half:
 * twice a median's interval, and no less than 5 %.
 */
static double self_apart(enum sweep_mode mode)
{
	struct sweep_config cfg;

	bench_config(&cfg, mode, 0);
	return fmax(0.05, 2 * cfg.rel_ci);
}

static double op_budget_s(enum sweep_mode mode)
{
	return mode == SWEEP_QUICK ? 4.0 : 60.0;
}

static int open_target(const struct opts *o, const struct cpu_info *ci, uint64_t area,
		       struct target *t)
{
	struct target_opts topts = { .area_bytes = area, .nthreads = workers_cpus_available() };
	char err[512];

	if (target_open(o->target, &topts, t, err, sizeof(err))) {
		fprintf(stderr, "bench_policy: %s\n", err);
		return -1;
	}
	return 0;
}

static int wait_child(pid_t pid, const char *what)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	fprintf(stderr, "bench_policy: %s failed (%s %d)\n", what,
		WIFEXITED(st) ? "exit status" : "signal",
		WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	return -ECHILD;
}

/* ---- the probe this benchmark judges ---- */

static int run_probe(const struct opts *o, const char *out, double *wall_s)
{
	char *argv[10] = { (char *)o->tune, "--probe", "--quiet", "--target", (char *)o->target,
			   "--output", (char *)out };
	extern char **environ;
	posix_spawn_file_actions_t fa;
	uint64_t t0 = now_ns();
	size_t argc = 7;
	pid_t pid;
	int rc;

	if (o->mode == SWEEP_QUICK)
		argv[argc++] = "--quick";
	/* a kept policy keeps its samples too: bench_pairing and --decide read them */
	if (o->save)
		argv[argc++] = "--keep-samples";
	/* the probe prints its table on stdout: this benchmark prints its own */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, o->tune, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		fprintf(stderr, "bench_policy: cannot run %s: %s (see --pmem-tune)\n", o->tune,
			strerror(rc));
		return -rc;
	}
	rc = wait_child(pid, "the probe");
	*wall_s = (double)(now_ns() - t0) * 1e-9;
	return rc;
}

/* The entry for this host; a single entry of another host is used with a warning. */
static struct policy *pick_entry(struct policy_bundle *b, const char *path)
{
	struct policy *host = policy_new();
	struct policy *p = NULL;

	if (host && !fingerprint_host(NULL, host))
		p = policy_bundle_find(b, host->platform.fingerprint);
	policy_free(host);
	if (!p && b->n == 1) {
		fprintf(stderr, "bench_policy: %s: its fingerprint is not this host's; using it "
			"anyway\n", path);
		p = b->entries[0];
	}
	if (!p)
		fprintf(stderr, "bench_policy: %s: no entry for this host\n", path);
	return p;
}

/* The policy target describing spec: dram by kind, a file or device by path. */
static const struct policy_target *pick_target(const struct policy *p, const char *spec)
{
	const char *path = !strncmp(spec, "file:", 5) ? spec + 5 : spec;

	for (size_t i = 0; i < p->ntargets; i++) {
		const struct policy_target *pt = &p->targets[i];

		if (!strcmp(spec, "dram") ? !strcmp(pt->kind, "dram") : !strcmp(pt->device, path))
			return pt;
	}
	if (p->ntargets == 1) {
		fprintf(stderr, "bench_policy: the policy has no target for %s; using its only "
			"one, %s\n", spec, p->targets[0].name);
		return &p->targets[0];
	}
	fprintf(stderr, "bench_policy: the policy has no target for %s\n", spec);
	return NULL;
}

/* ---- the parent's sweep ---- */

struct contenders {
	unsigned n;
	strategy_copy_fn fn[SWEEP_BENCH_MAX_FNS];
	const char *name[SWEEP_BENCH_MAX_FNS];
	unsigned first_single, nsingle;	/* the strategies alone */
	int memcpy_clwb;		/* index, -1 if this CPU lacks clwb */
	int dm, dm_exported;		/* indexes, -1 where not run */
};

static int contenders_set(struct contenders *k, const struct cpu_info *ci, bool cpu_cache)
{
	const struct strategy *nt = strategy_find("movnt");
	const struct strategy *fl = strategy_find("clflushopt");

	memset(k, 0, sizeof(*k));
	k->memcpy_clwb = k->dm = k->dm_exported = -1;
	k->fn[k->n] = copy_policy;
	k->name[k->n++] = "policy";
	k->first_single = k->n;
	for (unsigned i = 0; i < strategy_count && k->n < SWEEP_BENCH_MAX_FNS - 4; i++) {
		const struct strategy *s = &strategy_table[i];

		/* noflush alone is no persistent copy unless the caches are persistent */
		if (!strategy_supported(s, ci, NULL) || (s->cpu_cache_domain_only && !cpu_cache))
			continue;
		if (!strcmp(s->name, "memcpy_clwb"))
			k->memcpy_clwb = (int)k->n;
		k->fn[k->n] = s->copy;
		k->name[k->n++] = s->name;
	}
	k->nsingle = k->n - k->first_single;
	if (!k->nsingle)
		return -ENOENT;
	/* the kernel falls back to memcpy_flushcache() at every size without clflushopt */
	if (nt && strategy_supported(nt, ci, NULL)) {
		dm_nt = nt->copy;
		dm_flush = fl && strategy_supported(fl, ci, NULL) ? fl->copy : nt->copy;
		k->dm = (int)k->n;
		k->fn[k->n] = copy_dm_writecache;
		k->name[k->n++] = "dm-writecache";
		k->dm_exported = (int)k->n;
		k->fn[k->n] = copy_dm_exported;
		k->name[k->n++] = "dm-exported";
	}
	return 0;
}

/*
 * What the policy's column runs at size c: the strategy its ranges pick
 * there, called as that strategy's own column calls it.  A consumer's
 * range lookup is a compare and a direct branch; timed through
 * copy_policy()'s table (an indirect jump), the policy came 0.78-0.84 of
 * the same stores beside it at 96 B random in 3 of 8 runs (2026-12-02),
 * in both halves and again when measured again, and within 3 % in the
 * other five: the harness, not the policy.  copy_policy() stays for a
 * pick that no contender runs alone.
 */
static strategy_copy_fn policy_fn(const struct contenders *k, const struct cell *c)
{
	return c->pick >= 0 ? k->fn[c->pick] : copy_policy;
}

/* The function behind contender j at size c. */
static strategy_copy_fn contender_fn(const struct contenders *k, const struct cell *c,
				     int j)
{
	return j ? k->fn[j] : policy_fn(k, c);
}

/* Non-temporal or not, at this size: a copy's class decides what it leaves behind. */
static bool is_nt(const struct contenders *k, unsigned j, uint64_t size, const char *pick)
{
	if (j == 0)
		return strategy_is_nontemporal(pick);
	if ((int)j == k->dm)
		return size < DM_WRITECACHE_FLUSH_FROM || dm_flush == dm_nt;
	if ((int)j == k->dm_exported)
		return size <= dm_exported_max || dm_flush == dm_nt;
	return strategy_is_nontemporal(k->name[j]);
}

/*
 * The order of one size's contenders.  Sampled in turns, a copy is timed
 * in the wake of the ones before it.  On the dev VM, copies of 8 MiB and
 * more after a block of cached copies came out 5-11 % slower the sooner
 * they ran after that block, even behind three throwaway copies (one
 * function at two places in a round; without cached copies in the round
 * both places measured alike).  So:
 *  - the contenders go in two blocks by class, each opened by a
 *    throwaway copy of its first member, so that every timed copy
 *    follows one of its own class;
 *  - the policy goes next to the strategy it dispatches to;
 *  - each size is measured twice (see measure_parent()): the first half
 *    in the table's order with the policy right before its strategy,
 *    the second (reversed) with every block in reverse order, so the
 *    policy comes right after it.  A contender's places in the two
 *    halves then add up to the same for all, so a place's effect favours
 *    none of them in the mean; and the cross-validated oracle, chosen on
 *    one half and scored on the other, does not keep a contender that
 *    won by its place.  With one fixed order, from 8 MiB up the
 *    streaming copies ran faster the later they came in their block
 *    (16 MiB: movnt 12.6k, sse2 14.8k, avx2 17.3k, avx512 19.2k,
 *    movdir64b 20.2k MiB/s), and the oracle kept movdir64b, the last,
 *    at 16 MiB, where the policy (avx512's stores) then scored 0.866.
 * slot[i] is the contender behind fns[i], -1 for a throwaway.  Returns
 * the count.
 */
static unsigned order_size(const struct contenders *k, const struct cell *c, bool reversed,
			   strategy_copy_fn *fns, int *slot)
{
	bool pnt = is_nt(k, 0, c->size, c->policy_pick);
	int block[SWEEP_BENCH_MAX_FNS];
	unsigned n = 0;

	for (int pass = 0; pass < 2; pass++) {
		/* pass 0: the other class; pass 1: the policy's */
		bool want = pass ? pnt : !pnt;
		bool placed = !pass;
		unsigned nb = 0;

		for (unsigned i = 1; i < k->n; i++) {
			unsigned j = reversed ? k->n - i : i;

			if (is_nt(k, j, c->size, c->policy_pick) != want)
				continue;
			bool here = (int)j == c->pick;

			if (here && !reversed)
				block[nb++] = 0;
			block[nb++] = (int)j;
			if (here && reversed)
				block[nb++] = 0;
			placed |= here;
		}
		if (!placed)
			block[nb++] = 0;
		for (unsigned b = 0; b < nb; b++) {
			if (!b) {
				fns[n] = contender_fn(k, c, block[0]);
				slot[n++] = -1;
			}
			fns[n] = contender_fn(k, c, block[b]);
			slot[n++] = block[b];
		}
	}
	return n;
}

static void progress(const char *what, const struct op_run *r, size_t i)
{
	char lb[160], sb[32];

	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\r\033[K[%s] %s %s (%zu/%zu)", what, op_label(r->op, lb, sizeof(lb)),
		policy_format_bytes(r->c[i].size, sb, sizeof(sb)), i + 1, r->n);
}

/*
 * The best single strategy chosen on one half's medians, scored by the
 * other half's, averaged over both ways round; the naive oracle where a
 * half is missing.
 */
static double cross_validated(const struct cell *c, const struct contenders *k)
{
	double v = oracle_cross_validated(c->vh[0], c->vh[1], k->first_single, k->nsingle);

	return isnan(v) ? c->oracle : v;
}

/*
 * A size whose measurement cannot be right is measured again, at most
 * REMEASURE_MAX times (each median is good to +-1 % in standard mode,
 * +-4 % in quick):
 *  - a contender whose two halves are more than HALVES_APART apart was
 *    disturbed in one of them.  The places' effect alone moved one
 *    contender's halves by up to 31 % (movnt at 12 MiB), so at the
 *    largest sizes this can fire without a disturbance; the size is then
 *    measured again for nothing, and listed.  Once, one half of
 *    movnt_avx512 at 768 B read 4.5x its other half and every
 *    neighbour, and the cross-validated oracle, scored on that half, put
 *    the policy at 0.364;
 *  - the policy and the strategy it runs do the same stores, side by
 *    side in the same place of each half: more than self_apart() between
 *    them in one half is a disturbance of that half, not a property of
 *    the policy.  In one standard run 8 of 74 sizes were 3-13 % apart,
 *    mostly in one half only (2 KiB random: 10341 vs 11800 MiB/s, then
 *    11983 vs 11967).
 */
#define HALVES_APART	1.25
#define REMEASURE_MAX	2

enum disturbance { UNDISTURBED, HALVES_DISAGREE, SELF_DISAGREES };

/* Two medians further apart than the factor bar; false where either is missing. */
static bool apart(double a, double e, double bar)
{
	return !isnan(a) && !isnan(e) && fmax(a, e) > bar * fmin(a, e);
}

static enum disturbance disturbance(const struct cell *c, const struct contenders *k,
				    double self_bar)
{
	for (unsigned j = 0; j < k->n; j++)
		if (apart(c->vh[0][j], c->vh[1][j], HALVES_APART))
			return HALVES_DISAGREE;
	for (int h = 0; h < 2 && c->pick >= 0; h++)
		if (apart(c->vh[h][0], c->vh[h][c->pick], 1 + self_bar))
			return SELF_DISAGREES;
	return UNDISTURBED;
}

/* The contender that runs strategy name alone; -1 if none does. */
static int single_contender(const struct contenders *k, const char *name)
{
	for (unsigned j = k->first_single; j < k->first_single + k->nsingle; j++)
		if (!strcmp(k->name[j], name))
			return (int)j;
	return -1;
}

/*
 * One size, both halves: the second in reverse order (the policy after
 * its strategy, not before); each figure is the mean of its two
 * medians, so the places' effects cancel out.
 */
static int measure_halves(struct sweep_bench *b, const struct contenders *k,
			  const struct op_run *run, struct cell *c)
{
	struct sample_summary res[SWEEP_BENCH_MAX_FNS];
	strategy_copy_fn fns[SWEEP_BENCH_MAX_FNS];
	int slot[SWEEP_BENCH_MAX_FNS];
	int rc = 0;

	for (unsigned j = 0; j < k->n; j++)
		c->v[j] = c->vh[0][j] = c->vh[1][j] = NAN;
	for (int half = 0; half < 2 && !rc; half++) {
		unsigned nf = order_size(k, c, half, fns, slot);

		rc = sweep_bench_measure(b, fns, nf, c->size, run->random, run->op->threads,
					 c->seconds / 2, res);
		for (unsigned f = 0; f < nf && !rc; f++) {
			double m = res[f].n ? res[f].median : NAN;
			double *v = slot[f] >= 0 ? &c->v[slot[f]] : NULL;

			if (v && !isnan(m)) {
				*v = isnan(*v) ? m : (*v + m) / 2;
				c->vh[half][slot[f]] = m;
			}
		}
	}
	return rc;
}

static int measure_parent(const struct opts *o, const struct target *t,
			  const struct cpu_info *ci, const struct contenders *k,
			  struct op_run *runs, size_t nruns, unsigned nthreads, uint64_t max_size)
{
	double self_bar = self_apart(o->mode);
	struct sweep_config cfg;
	struct sweep_bench *b;
	int rc;

	bench_config(&cfg, o->mode, o->seed);
	cfg.nthreads = nthreads;
	cfg.max_size_bytes = max_size;
	rc = sweep_bench_open(t, &cfg, &b);
	if (rc) {
		fprintf(stderr, "bench_policy: cannot set up the sweep: %s\n", strerror(-rc));
		return rc;
	}
	for (size_t r = 0; r < nruns && !rc; r++) {
		struct op_run *run = &runs[r];
		double left = 0, budget = op_budget_s(o->mode);
		uint64_t end = now_ns() + (uint64_t)(budget * 1e9);

		rc = dispatch_set(run->op, ci);
		if (rc) {
			fprintf(stderr, "bench_policy: the policy's %s ranges are unusable\n",
				run->op->pattern);
			break;
		}
		for (size_t i = 0; i < run->n; i++)
			left += cell_weight(run->c[i].size);
		for (size_t i = 0; i < run->n && !rc; i++) {
			struct cell *c = &run->c[i];
			double w = cell_weight(c->size), now = (double)now_ns();

			/* this size's share of what is left, as the sweep shares its budget */
			c->seconds = fmax(0.0, ((double)end - now) * 1e-9 * w / left);
			left -= w;
			progress("bench", run, i);
			c->policy_pick = dispatch_pick(c->size);
			c->pick = single_contender(k, c->policy_pick);
			for (unsigned tries = 0;; tries++) {
				enum disturbance why;

				rc = measure_halves(b, k, run, c);
				if (rc)
					break;
				why = disturbance(c, k, self_bar);
				if (why == UNDISTURBED)
					break;
				c->why = why;
				if (tries == REMEASURE_MAX) {
					c->disturbed = true;
					break;
				}
				c->remeasured++;
			}
			if (rc)
				break;
			c->oracle = 0;
			c->oracle_idx = -1;
			for (unsigned j = k->first_single; j < k->first_single + k->nsingle; j++)
				if (c->v[j] > c->oracle) {
					c->oracle = c->v[j];
					c->oracle_idx = (int)j;
				}
			c->oracle_cv = cross_validated(c, k);
			c->ratio_naive = c->v[0] / c->oracle;
			c->ratio[COL_POLICY] = c->v[0] / c->oracle_cv;
			c->ratio[COL_DM] = k->dm >= 0 ? c->v[k->dm] / c->oracle_cv : NAN;
			c->ratio[COL_DM_EXPORTED] = k->dm_exported >= 0 ?
						    c->v[k->dm_exported] / c->oracle_cv : NAN;
			c->ratio[COL_MEMCPY] = k->memcpy_clwb >= 0 ?
					       c->v[k->memcpy_clwb] / c->oracle_cv : NAN;
		}
	}
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	sweep_bench_close(b);
	if (rc == -EINTR)
		fprintf(stderr, "bench_policy: interrupted by signal %d\n", (int)stop);
	else if (rc)
		fprintf(stderr, "bench_policy: measuring failed: %s\n", strerror(-rc));
	return rc;
}

/* ---- PMDK, in children ---- */

/*
 * The child's input, one line per cell:
 *   THREADS RANDOM SIZE SECONDS REF[,REF...]
 * and its output, one line per cell:
 *   SIZE PMDK_MIB_S REF_MIB_S REF
 * where REF is the best of the listed strategies in the child's own run.
 */
static int pmdk_child(const struct opts *o)
{
#ifdef HAVE_LIBPMEM
	struct {
		unsigned threads;
		int random;
		uint64_t size;
		double seconds;
		char refs[256];
	} *in = calloc(MAX_OPS * MAX_SIZES, sizeof(*in));
	struct sample_summary res[REF_MAX + 3];
	unsigned n = 0, nthreads = 1;
	uint64_t max_size = 64;
	struct sweep_config cfg;
	struct sweep_bench *b = NULL;
	struct cpu_info ci;
	struct target t;
	int rc = 0;

	if (!in || cpu_detect(&ci))
		return 1;
	strategy_init(&ci);
	while (n < MAX_OPS * MAX_SIZES &&
	       scanf("%u %d %" SCNu64 " %lf %255s", &in[n].threads, &in[n].random, &in[n].size,
		     &in[n].seconds, in[n].refs) == 5) {
		nthreads = in[n].threads > nthreads ? in[n].threads : nthreads;
		max_size = in[n].size > max_size ? in[n].size : max_size;
		n++;
	}
	if (open_target(o, &ci, o->area, &t))
		return 1;
	bench_config(&cfg, o->mode, o->seed);
	cfg.nthreads = nthreads;
	cfg.max_size_bytes = max_size;
	rc = sweep_bench_open(&t, &cfg, &b);
	for (unsigned i = 0; i < n && !rc; i++) {
		/*
		 * Two blocks, each opened by a throwaway copy of its first
		 * member (see order_size()): PMDK, then the references.
		 */
		strategy_copy_fn fns[REF_MAX + 3] = { copy_pmdk, copy_pmdk };
		const char *names[REF_MAX + 3] = { "-", "pmdk", "-" };
		unsigned nf = 3, best = 3;
		char *save = NULL;

		for (char *s = strtok_r(in[i].refs, ",", &save); s && nf < REF_MAX + 3;
		     s = strtok_r(NULL, ",", &save)) {
			const struct strategy *st = strategy_find(s);

			if (st) {
				fns[nf] = st->copy;
				names[nf++] = st->name;
			}
		}
		if (nf < 4)
			continue;
		fns[2] = fns[3];
		rc = sweep_bench_measure(b, fns, nf, in[i].size, in[i].random, in[i].threads,
					 in[i].seconds, res);
		for (unsigned j = 4; j < nf; j++)
			if (res[j].median > res[best].median)
				best = j;
		if (!rc)
			printf("%" PRIu64 " %.3f %.3f %s\n", in[i].size, res[1].median,
			       res[best].median, names[best]);
	}
	fflush(stdout);
	sweep_bench_close(b);
	target_close(&t);
	free(in);
	return rc ? 1 : 0;
#else
	(void)o;
	return 1;
#endif
}

/*
 * The environment of a PMDK child: ours without any PMEM_* knob, plus
 * env; the entries from *owned on are allocated (child_env_free()).
 */
static char **child_env(const struct policy_export *env, size_t *owned)
{
	extern char **environ;
	size_t n = 0, k = 0;
	char **e;

	while (environ[n])
		n++;
	e = calloc(n + POLICY_EXPORT_KV_MAX + 1, sizeof(*e));
	if (!e)
		return NULL;
	for (size_t i = 0; i < n; i++)
		/* PMEM_TUNE_DISABLE stays: the child's strategies must be the parent's */
		if (strncmp(environ[i], "PMEM_", 5) || !strncmp(environ[i], "PMEM_TUNE_", 10))
			e[k++] = environ[i];
	*owned = k;
	for (size_t i = 0; env && i < env->nkv; i++) {
		if (asprintf(&e[k], "%s=%s", env->kv[i].key, env->kv[i].value) < 0) {
			e[k] = NULL;
			break;
		}
		k++;
	}
	return e;
}

static void child_env_free(char **e, size_t owned)
{
	for (size_t i = owned; e && e[i]; i++)
		free(e[i]);
	free(e);
}

static void ref_list(const struct contenders *k, const struct cell *c, char *buf, size_t len)
{
	unsigned used[REF_MAX], nu = 0;
	size_t off = 0;

	/* the oracle first, then the next best within REF_WITHIN of it */
	while (nu < REF_MAX) {
		int best = -1;

		for (unsigned j = k->first_single; j < k->first_single + k->nsingle; j++) {
			bool taken = false;

			for (unsigned u = 0; u < nu; u++)
				taken |= used[u] == j;
			if (!taken && c->v[j] >= REF_WITHIN * c->oracle &&
			    (best < 0 || c->v[j] > c->v[best]))
				best = (int)j;
		}
		if (best < 0)
			break;
		used[nu++] = (unsigned)best;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "",
					k->name[best]);
	}
	if (!nu)
		snprintf(buf, len, "%s", k->name[k->first_single]);
}

static int run_pmdk(const struct opts *o, const char *self, uint64_t area,
		    const struct contenders *k, struct op_run *runs, size_t nruns,
		    const struct policy_export *env, enum col col)
{
	char seed[32], areab[32];
	char *argv[] = { (char *)self, "--pmdk-child", "--target", (char *)o->target,
			 "--mode", o->mode == SWEEP_QUICK ? "quick" : "standard",
			 "--seed", seed, "--area", areab, NULL };
	size_t owned = 0;
	char **envp = child_env(env, &owned);
	posix_spawn_file_actions_t fa;
	int in[2], out[2], rc;
	FILE *fi, *fo;
	pid_t pid;

	if (!envp || pipe2(in, O_CLOEXEC)) {
		child_env_free(envp, owned);
		return -ENOMEM;
	}
	if (pipe2(out, O_CLOEXEC)) {
		close(in[0]);
		close(in[1]);
		child_env_free(envp, owned);
		return -EMFILE;
	}
	snprintf(seed, sizeof(seed), "%" PRIu64, o->seed);
	snprintf(areab, sizeof(areab), "%" PRIu64, area);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	rc = posix_spawn(&pid, self, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	child_env_free(envp, owned);
	close(in[0]);
	close(out[1]);
	if (rc) {
		close(in[1]);
		close(out[0]);
		return -rc;
	}
	/* all of the input fits in the pipe: write it, then read the answers */
	fi = fdopen(in[1], "w");
	for (size_t r = 0; fi && r < nruns; r++)
		for (size_t i = 0; i < runs[r].n; i++) {
			struct cell *c = &runs[r].c[i];
			char refs[256];
			unsigned nref = 1;

			ref_list(k, c, refs, sizeof(refs));
			for (const char *p = refs; (p = strchr(p, ',')); p++)
				nref++;
			/* the child times 3 + nref functions: its share of the parent's time */
			fprintf(fi, "%u %d %" PRIu64 " %.6f %s\n", runs[r].op->threads,
				runs[r].random, c->size, c->seconds * (3 + nref) / (k->n + 2),
				refs);
		}
	if (fi)
		fclose(fi);
	else
		close(in[1]);
	fo = fdopen(out[0], "r");
	for (size_t r = 0; fo && r < nruns; r++)
		for (size_t i = 0; i < runs[r].n; i++) {
			struct cell *c = &runs[r].c[i];
			uint64_t size;
			double pm, ref;
			char name[POLICY_NAME_MAX];

			if (fscanf(fo, "%" SCNu64 " %lf %lf %63s", &size, &pm, &ref, name) != 4 ||
			    size != c->size)
				goto done;
			c->ratio[col] = pm / ref;
		}
done:
	if (fo)
		fclose(fo);
	else
		close(out[0]);
	return wait_child(pid, col == COL_PMDK_DEFAULT ? "the default PMDK child" :
						       "the exported PMDK child");
}

/* ---- report ---- */

static void print_env(const char *what, const struct policy_export *e)
{
	printf("  %-14s", what);
	if (!e) {
		printf(" (no PMEM_* set: PMDK's defaults)\n");
		return;
	}
	for (size_t i = 0; i < e->nkv; i++)
		printf(" %s=%s", e->kv[i].key, e->kv[i].value);
	printf("  (the policy's export; expected regret %.1f %%)\n", 100 * e->regret);
}

static void print_ratio(double r)
{
	if (isnan(r))
		printf(" %13s", "-");
	else
		printf(" %13.3f", r);
}

static void print_run(const struct op_run *r, const struct contenders *k, double self_bar)
{
	char lb[160], sb[32];

	printf("\nwrite %s: ratio to the cross-validated oracle (the best single strategy of "
	       "one half, scored on the other)\n", op_label(r->op, lb, sizeof(lb)));
	printf("%10s  %-14s %8s %8s %8s", "size", "oracle", "MiB/s", "cv MiB/s", "pol/nai");
	for (int c = 0; c < NCOLS; c++)
		printf(" %13s", col_name[c]);
	printf("  %s\n", "policy uses");
	for (size_t i = 0; i < r->n; i++) {
		const struct cell *c = &r->c[i];

		printf("%10s  %-14s %8.0f %8.0f %8.3f",
		       policy_format_bytes(c->size, sb, sizeof(sb)),
		       c->oracle_idx >= 0 ? k->name[c->oracle_idx] : "-", c->oracle, c->oracle_cv,
		       c->ratio_naive);
		for (int j = 0; j < NCOLS; j++)
			print_ratio(c->ratio[j]);
		printf("  %s\n", c->policy_pick);
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct cell *c = &r->c[i];

		if (!c->remeasured && !c->disturbed)
			continue;
		printf("%10s  measured again (%ux): ", policy_format_bytes(c->size, sb, sizeof(sb)),
		       c->remeasured);
		if (c->why == HALVES_DISAGREE)
			printf("a contender's halves were more than %.0f %% apart",
			       (HALVES_APART - 1) * 100);
		else
			printf("the policy and the strategy it runs were more than %.0f %% apart "
			       "in one half", self_bar * 100);
		printf("%s\n", c->disturbed ? ", and still were" : "");
	}
}

/* --cells: what the ratios came from, each contender's median in each half. */
static void print_cells(const struct op_run *r, const struct contenders *k)
{
	char lb[160], sb[32];

	printf("\nwrite %s: each contender's median, MiB/s, in order / in reverse order\n",
	       op_label(r->op, lb, sizeof(lb)));
	printf("%10s", "size");
	for (unsigned j = 0; j < k->n; j++)
		printf(" %14.14s", k->name[j]);
	printf("\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct cell *c = &r->c[i];

		for (int h = 0; h < 2; h++) {
			printf("%10s", h ? "" : policy_format_bytes(c->size, sb, sizeof(sb)));
			for (unsigned j = 0; j < k->n; j++)
				printf(" %14.0f", c->vh[h][j]);
			printf("\n");
		}
	}
}

/* --save-sweep: each half's medians, as print_cells() shows them. */
static int save_sweep(const char *path, const char *mode, const char *policy,
		      const struct op_run *runs, size_t nruns, const struct contenders *k)
{
	struct sweep_record_op ops[MAX_OPS];
	struct sweep_record rec = { .mode = (char *)mode, .policy = (char *)policy,
				    .nops = nruns, .ops = ops };
	int rc = -ENOMEM;

	memset(ops, 0, sizeof(ops));
	for (size_t r = 0; r < nruns; r++) {
		const struct op_run *run = &runs[r];
		struct sweep_record_op *op = &ops[r];

		*op = (struct sweep_record_op){
			.pattern = (char *)run->op->pattern, .threads = run->op->threads,
			.ncontenders = k->n, .names = (char **)k->name,
			.first_strategy = k->first_single, .nstrategies = k->nsingle,
			.nsizes = run->n,
			.sizes_bytes = malloc(run->n * sizeof(uint64_t)),
			.policy_uses = malloc(run->n * sizeof(char *)),
			.halves_mib_s = malloc(run->n * 2 * k->n * sizeof(double)),
		};
		if (!op->sizes_bytes || !op->policy_uses || !op->halves_mib_s)
			goto out;
		for (size_t i = 0; i < run->n; i++) {
			op->sizes_bytes[i] = run->c[i].size;
			op->policy_uses[i] = (char *)run->c[i].policy_pick;
			for (int h = 0; h < 2; h++)
				memcpy(sweep_record_half(op, i, h), run->c[i].vh[h],
				       k->n * sizeof(double));
		}
	}
	rc = sweep_record_save(&rec, path);
out:
	for (size_t r = 0; r < nruns; r++) {
		free(ops[r].sizes_bytes);
		free(ops[r].policy_uses);
		free(ops[r].halves_mib_s);
	}
	if (rc)
		fprintf(stderr, "bench_policy: --save-sweep %s: %s\n", path, strerror(-rc));
	return rc;
}

/* The worst ratio of col over every measured cell; NULL if none. */
static const struct cell *worst(const struct op_run *runs, size_t nruns, enum col col,
				const struct op_run **wr)
{
	const struct cell *wc = NULL;

	for (size_t r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].n; i++) {
			const struct cell *c = &runs[r].c[i];

			if (!isnan(c->ratio[col]) && (!wc || c->ratio[col] < wc->ratio[col])) {
				wc = c;
				*wr = &runs[r];
			}
		}
	return wc;
}

/*
 * Each consumer's knob as the policy exports it beside the best single
 * value in hindsight, on the policy's own cells (export_knob_loss(): the
 * worst-size and mean loss, each cell at the end of its interval least
 * favourable to the value, and by the medians).
 */
static void print_knobs(const struct policy *p)
{
	printf("exports on the policy's cells (threshold; worst-size loss at the bound / "
	       "by the medians, mean loss by the medians):\n");
	for (int k = 0; k < EXPORT_KNOBS; k++) {
		struct export_knob_loss eb, em, bb, bm;
		char v1[24], v2[24];
		uint64_t t;

		if (export_knob_value(p, k, &t) || export_knob_loss(p, k, t, 1, NULL, &eb) ||
		    export_knob_loss(p, k, t, 0, NULL, &em) ||
		    export_knob_best(p, k, 1, NULL, &bb) ||
		    export_knob_loss(p, k, bb.threshold_bytes, 0, NULL, &bm))
			continue;
		printf("  %-27s exported %-8s %.3f / %.3f, mean %.4f; best %-8s %.3f / %.3f, "
		       "mean %.4f\n", export_knob_name(k), export_knob_format(k, t, v1, sizeof(v1)),
		       eb.worst, em.worst, em.mean,
		       export_knob_format(k, bb.threshold_bytes, v2, sizeof(v2)), bb.worst,
		       bm.worst, bm.mean);
	}
}

static void print_summary(const struct op_run *runs, size_t nruns, enum col col)
{
	unsigned n = 0, ok = 0;
	double sum = 0;

	for (size_t r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].n; i++) {
			double v = runs[r].c[i].ratio[col];

			if (isnan(v))
				continue;
			n++;
			ok += v >= 0.97;
			sum += log(v);
		}
	if (n)
		printf("  %-14s geometric mean %.3f, >= 0.97 of the oracle at %u/%u sizes\n",
		       col_name[col], exp(sum / n), ok, n);
}

static void print_worst(const struct op_run *runs, size_t nruns, enum col col)
{
	const struct op_run *wr = NULL;
	const struct cell *wc = worst(runs, nruns, col, &wr);
	char lb[160], sb[32];

	if (!wc) {
		printf("worst %s/oracle: not measured\n", col_name[col]);
		return;
	}
	printf("worst %s/oracle: %.3f at %s (%s)\n", col_name[col], wc->ratio[col],
	       policy_format_bytes(wc->size, sb, sizeof(sb)), op_label(wr->op, lb, sizeof(lb)));
}

/*
 * The judge's own resolution: the policy and the strategy it dispatches
 * to run the same stores, timed side by side, so their ratio would be 1
 * with a perfect judge.  A policy/oracle ratio nearer 1 than this spread
 * says nothing about the policy.
 */
static void print_self(const struct op_run *runs, size_t nruns)
{
	double sum = 0, lo = INFINITY, hi = 0;
	unsigned n = 0, out = 0;

	for (size_t r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].n; i++) {
			const struct cell *c = &runs[r].c[i];
			double q = c->pick >= 0 ? c->v[0] / c->v[c->pick] : NAN;

			if (!(q > 0))
				continue;
			sum += log(q);
			lo = fmin(lo, q);
			hi = fmax(hi, q);
			out += q < 0.97 || q > 1 / 0.97;
			n++;
		}
	if (!n)
		return;
	printf("\nthe judge's resolution: policy / the strategy it runs (the same stores, timed "
	       "beside it)\n  geometric mean %.3f, from %.3f to %.3f, more than 3 %% off at "
	       "%u/%u sizes\n", exp(sum / n), lo, hi, out, n);
}

/*
 * How far the naive oracle sits above the cross-validated one, per size
 * band: the part of a policy/oracle gap that is the score, not the policy.
 */
static void print_bands(const struct op_run *runs, size_t nruns)
{
	static const struct {
		const char *name;
		uint64_t lo, hi;
	} band[] = {
		{ "< 1 KiB", 0, 1024 }, { "1-64 KiB", 1024, 65536 },
		{ "> 64 KiB", 65536, UINT64_MAX },
	};
	char lb[160];

	printf("\nnaive oracle / cross-validated oracle, per size band (geometric mean, max):\n");
	for (size_t r = 0; r < nruns; r++) {
		printf("  %-32s", op_label(runs[r].op, lb, sizeof(lb)));
		for (size_t b = 0; b < sizeof(band) / sizeof(band[0]); b++) {
			double sum = 0, mx = 0;
			unsigned n = 0;

			for (size_t i = 0; i < runs[r].n; i++) {
				const struct cell *c = &runs[r].c[i];
				double q = c->oracle / c->oracle_cv;

				if (c->size < band[b].lo || c->size >= band[b].hi || !(q > 0))
					continue;
				sum += log(q);
				mx = fmax(mx, q);
				n++;
			}
			if (n)
				printf("  %s %.3f, %.3f", band[b].name, exp(sum / n), mx);
			else
				printf("  %s -", band[b].name);
		}
		printf("\n");
	}
}

/*
 * Each size where the policy fell under 0.97 of the oracle, beside what
 * the policy's own cells said of the same two strategies there.  Within
 * the op's margin (or behind) in the probe, no rule with that margin picks
 * the oracle's strategy: the host moved between the probe and this
 * sweep.  Ahead by more than the margin on the medians only, the probe
 * could not tell them apart: its 95 % intervals overlap, and the rule
 * (crossover_pair_verdict()) counts no win there.  A win by the rule's own
 * test that is still not the policy was passed over by the rule: too few
 * consecutive wins for a member range, an island, or a fresh look that
 * did not repeat it.
 */
enum miss_cause {
	MISS_WON, MISS_OVERLAP, MISS_SUSPECT, MISS_WITHIN, MISS_BEHIND, MISS_UNMEASURED, MISS_N
};

static const char *const miss_text[MISS_N] = {
	[MISS_WON] = "won by the margin, intervals apart",
	[MISS_OVERLAP] = "ahead by more than the margin, intervals overlapping",
	[MISS_SUSPECT] = "ahead by more than the margin in a cell not believed",
	[MISS_WITHIN] = "within the margin",
	[MISS_BEHIND] = "behind by more",
	[MISS_UNMEASURED] = "not in the probe",
};

static enum miss_cause miss_cause(const struct policy_op *op, const struct policy_curve *a,
				  const struct policy_curve *b, int at, double m, double *then)
{
	*then = NAN;
	if (at < 0 || !a || !b || !(a->median_mib_s[at] > 0) || !(b->median_mib_s[at] > 0))
		return MISS_UNMEASURED;
	*then = a->median_mib_s[at] / b->median_mib_s[at];
	if (!(*then > 1 + m))
		return *then >= 1 / (1 + m) ? MISS_WITHIN : MISS_BEHIND;
	switch (crossover_pair_verdict(op, (int)(a - op->curves), (int)(b - op->curves),
				       (size_t)at, m)) {
	case 0:			/* side 0: a won */
		return MISS_WON;
	case POLICY_FAMILY_NONE:	/* both measured, so a cell not believed */
		return MISS_SUSPECT;
	default:
		return MISS_OVERLAP;
	}
}

/*
 * The paired test on the probe's kept samples (--keep-samples, which
 * --save-policy asks for): the rounds' median ratio of a over b ahead by
 * the margin with its 95 % interval above 1.  *ok is false where the two
 * cells cannot be paired (policy_paired_ratio()).
 */
static bool paired_win(const struct policy_op *op, const struct policy_curve *a,
		       const struct policy_curve *b, int at, double m, bool *ok, double *ratio)
{
	double lo, hi;

	*ok = at >= 0 && a && b &&
	      !policy_paired_ratio(op, (size_t)(a - op->curves), (size_t)(b - op->curves),
				   (size_t)at, ratio, &lo, &hi);
	return *ok && policy_paired_win(*ratio, lo, m);
}

static void print_misses(const struct op_run *runs, size_t nruns, const struct contenders *k)
{
	unsigned count[MISS_N] = { 0 }, total = 0, paired = 0, paired_wins = 0;
	char lb[160], sb[32];

	for (size_t r = 0; r < nruns; r++) {
		const struct policy_op *op = runs[r].op;
		/* a file without its margin: the one its cells give */
		double m = op->margin > 0 ? op->margin : crossover_margin(op);

		for (size_t i = 0; i < runs[r].n; i++) {
			const struct cell *c = &runs[r].c[i];
			const struct policy_curve *oc, *pc;
			enum miss_cause why;
			double then, pr = NAN;
			bool pw, pok;
			int at;

			if (!(c->ratio[COL_POLICY] < 0.97) || c->oracle_idx < 0 || c->pick < 0)
				continue;
			if (!total++)
				printf("\nsizes under 0.97 of the oracle: the oracle's strategy / "
				       "the policy's, in this sweep and in the probe's cells\n");
			oc = policy_op_find_curve(op, k->name[c->oracle_idx]);
			pc = policy_op_find_curve(op, c->policy_pick);
			at = policy_op_size_index(op, c->size);
			why = miss_cause(op, oc, pc, at, m, &then);
			count[why]++;
			pw = paired_win(op, oc, pc, at, m, &pok, &pr);
			paired += pok;
			paired_wins += pw;
			printf("%10s  %-24s %-14s here %.3f, probe %.3f: %s",
			       policy_format_bytes(c->size, sb, sizeof(sb)),
			       op_label(op, lb, sizeof(lb)), k->name[c->oracle_idx],
			       c->v[c->oracle_idx] / c->v[c->pick], then, miss_text[why]);
			if (pok)
				printf("; paired %.3f%s", pr, pw ? ", a win" : "");
			printf("\n");
		}
	}
	if (!total)
		return;
	printf("  %u sizes, by what the probe's cells said of the oracle's strategy:\n", total);
	for (int w = 0; w < MISS_N; w++)
		if (count[w])
			printf("    %-56s %u\n", miss_text[w], count[w]);
	if (paired)
		printf("  the paired test on the probe's kept samples (median ratio of the rounds "
		       "ahead by the margin,\n  95 %% interval above 1) calls a win at %u of the "
		       "%u sizes it can test\n", paired_wins, paired);
}

static void print_worst_naive(const struct op_run *runs, size_t nruns)
{
	const struct op_run *wr = NULL;
	const struct cell *wc = NULL;
	char lb[160], sb[32];

	for (size_t r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].n; i++) {
			const struct cell *c = &runs[r].c[i];

			if (!isnan(c->ratio_naive) && (!wc || c->ratio_naive < wc->ratio_naive)) {
				wc = c;
				wr = &runs[r];
			}
		}
	if (wc)
		printf("worst policy/naive-oracle: %.3f at %s (%s)\n", wc->ratio_naive,
		       policy_format_bytes(wc->size, sb, sizeof(sb)),
		       op_label(wr->op, lb, sizeof(lb)));
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: bench_policy [--policy FILE] [--target dram|file:PATH] "
		"[--mode quick|standard]\n"
		"                    [--seed N] [--threads 1|all] [--pmem-tune PATH] "
		"[--save-policy FILE] [--cells]\n"
		"                    [--save-sweep FILE]\n"
		"Without --policy, runs `pmem-tune --probe` on the target first.\n"
		"--save-sweep keeps each contender's medians for bench_hindsight.\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "target", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 'T' },
		{ "pmem-tune", required_argument, NULL, 'P' },
		{ "save-policy", required_argument, NULL, 'S' },
		{ "save-sweep", required_argument, NULL, 'W' },
		{ "cells", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		/* internal: one PMDK variant, run by the parent */
		{ "pmdk-child", no_argument, NULL, 'C' },
		{ "area", required_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	/* the options that only name something keep their argument as given */
	const struct {
		int opt;
		const char **dst;
	} names[] = { { 'p', &o->policy }, { 't', &o->target }, { 'P', &o->tune },
		      { 'S', &o->save }, { 'W', &o->save_sweep } };
	int c;

	/*
	 * One thread by default: on a small shared machine a thread per core
	 * shares its core with whatever else runs, and times that instead.
	 */
	*o = (struct opts){ .target = "dram", .tune = PMEM_TUNE_PATH, .mode = SWEEP_STANDARD,
			    .seed = BENCH_SEED, .one_thread = true };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(names) && names[i].opt != c; i++)
			;
		if (i < ARRAY_SIZE(names)) {
			*names[i].dst = optarg;
			continue;
		}
		switch (c) {
		case 'm':
			if (strcmp(optarg, "quick") && strcmp(optarg, "standard")) {
				fprintf(stderr, "bench_policy: --mode %s: quick or standard\n",
					optarg);
				return 2;
			}
			o->mode = strcmp(optarg, "quick") ? SWEEP_STANDARD : SWEEP_QUICK;
			break;
		case 's':
			o->seed = strtoull(optarg, NULL, 0);
			break;
		case 'T':
			if (strcmp(optarg, "1") && strcmp(optarg, "all")) {
				fprintf(stderr, "bench_policy: --threads %s: 1 or all\n", optarg);
				return 2;
			}
			o->one_thread = !strcmp(optarg, "1");
			break;
		case 'c':
			o->cells = true;
			break;
		case 'C':
			o->child = true;
			break;
		case 'A':
			o->area = strtoull(optarg, NULL, 0);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct op_run runs[MAX_OPS];
	struct policy_bundle *bundle = NULL;
	const struct policy_target *pt;
	struct contenders k;
	char tmpdir[] = "/tmp/bench_policy.XXXXXX", path[PATH_MAX];
	const char *policy_path;
	struct policy *p;
	struct cpu_info ci;
	struct target t;
	unsigned nthreads = 1, cpus = workers_cpus_available();
	uint64_t max_size = 64, t0 = now_ns();
	double probe_s = NAN;
	size_t nruns = 0;
	struct opts o;
	char err[512];
	int rc;

	rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.child)
		return pmdk_child(&o);
	/* before a minute of measuring, not after */
	if (o.save_sweep && output_path_check(o.save_sweep)) {
		fprintf(stderr, "bench_policy: --save-sweep %s: %s, not replaced\n", o.save_sweep,
			output_path_kind(o.save_sweep));
		return 1;
	}
	if (cpu_detect(&ci)) {
		fprintf(stderr, "bench_policy: cannot identify the CPU\n");
		return 1;
	}
	strategy_init(&ci);
	if (o.seed == PROBE_SEED)
		fprintf(stderr, "bench_policy: --seed is the probe's: random destinations are "
			"not held out\n");

	policy_path = o.policy;
	if (!policy_path) {
		if (o.save) {
			policy_path = o.save;
		} else if (mkdtemp(tmpdir)) {
			snprintf(path, sizeof(path), "%s/policy.json", tmpdir);
			policy_path = path;
		} else {
			perror("bench_policy: mkdtemp");
			return 1;
		}
		fprintf(stderr, "bench_policy: probing %s (%s mode) for the policy to judge\n",
			o.target, sweep_mode_name(o.mode));
		rc = run_probe(&o, policy_path, &probe_s);
	}
	if (!rc) {
		bundle = policy_bundle_load(policy_path, POLICY_LOAD_INSECURE, err, sizeof(err));
		if (!bundle)
			fprintf(stderr, "bench_policy: %s\n", err);
	}
	if (!o.policy && !o.save) {
		unlink(path);
		rmdir(tmpdir);
	}
	if (!bundle)
		return 1;
	p = pick_entry(bundle, policy_path);
	pt = p ? pick_target(p, o.target) : NULL;
	if (!pt)
		goto fail;

	/* both patterns at one thread; every core too with --threads all */
	for (size_t i = 0; i < pt->nops && nruns < MAX_OPS; i++) {
		const struct policy_op *op = &pt->ops[i];
		struct op_run *r = &runs[nruns];

		if (strcmp(op->op, "write") || op->threads > cpus ||
		    (op->threads > 1 && o.one_thread) || !op->nsizes || op->nsizes > MAX_SIZES)
			continue;
		r->op = op;
		r->random = !strcmp(op->pattern, "random");
		r->n = op->nsizes;
		r->c = calloc(r->n, sizeof(*r->c));
		if (!r->c)
			goto fail;
		for (size_t j = 0; j < r->n; j++) {
			r->c[j].size = op->sizes_bytes[j];
			r->c[j].oracle_idx = -1;
			r->c[j].oracle_cv = r->c[j].ratio_naive = NAN;
			for (int c = 0; c < NCOLS; c++)
				r->c[j].ratio[c] = NAN;
			if (r->c[j].size > max_size)
				max_size = r->c[j].size;
		}
		if (op->threads > nthreads)
			nthreads = op->threads;
		nruns++;
	}
	if (!nruns) {
		fprintf(stderr, "bench_policy: target %s has no write op to measure\n", pt->name);
		goto fail;
	}
	/* the kernel export's "non-temporal up to N"; without one the module's own 768 */
	dm_exported_max = p->exports.kernel.present ? p->exports.kernel.threshold_bytes :
			  DM_WRITECACHE_FLUSH_FROM - 1;
	if (contenders_set(&k, &ci, !strcmp(pt->persistence_domain, "cpu_cache"))) {
		fprintf(stderr, "bench_policy: no strategy runs on this CPU\n");
		goto fail;
	}
	if (open_target(&o, &ci, pt->area_bytes, &t))
		goto fail;
	rc = measure_parent(&o, &t, &ci, &k, runs, nruns, nthreads, max_size);
	target_close(&t);
	if (rc)
		goto fail;

	/* the parent's area is unmapped first: a child maps its own */
	if (HAVE_PMDK && run_pmdk(&o, "/proc/self/exe", pt->area_bytes, &k, runs, nruns, NULL,
		     COL_PMDK_DEFAULT))
		fprintf(stderr, "bench_policy: PMDK with its defaults: not measured\n");
	if (HAVE_PMDK && !p->exports.libpmem.present)
		fprintf(stderr, "bench_policy: the policy exports nothing for libpmem\n");
	else if (HAVE_PMDK && run_pmdk(&o, "/proc/self/exe", pt->area_bytes, &k, runs, nruns,
				       &p->exports.libpmem, COL_PMDK_EXPORTED))
		fprintf(stderr, "bench_policy: PMDK with the exported values: not measured\n");
	if (stop)
		goto fail;

	printf("policy benchmark: %s, target %s (%s, persistence domain %s), %s mode\n", ci.brand,
	       pt->name, o.target, pt->persistence_domain, sweep_mode_name(o.mode));
	if (o.policy)
		printf("policy: %s (%s mode, created %s)\n", o.policy, p->generator.mode,
		       p->generator.created);
	else
		printf("policy: probed just now (`%s --probe%s --target %s`, %.1f s)\n", o.tune,
		       o.mode == SWEEP_QUICK ? " --quick" : "", o.target, probe_s);
	printf("held-out sweep: seed %#" PRIx64 " (the probe's is %#llx), %u cpus, the "
	       "policy's %zu ops\n", o.seed, (unsigned long long)PROBE_SEED, cpus, nruns);
	if (HAVE_PMDK) {
		printf("PMDK: pmem_memcpy_persist from libpmem %s, each variant in its own "
		       "process:\n", LIBPMEM_VERSION);
		print_env("pmdk-default", NULL);
		if (p->exports.libpmem.present)
			print_env("pmdk-exported", &p->exports.libpmem);
		else
			printf("  pmdk-exported  (the policy exports nothing for libpmem)\n");
	} else {
		printf("PMDK: not built (no libpmem found at configure time)\n");
	}
	printf("dm-writecache: movnt below %d bytes, %s from %d up\n", DM_WRITECACHE_FLUSH_FROM,
	       dm_flush == dm_nt ? "movnt (no clflushopt)" : "clflushopt",
	       DM_WRITECACHE_FLUSH_FROM);
	if (dm_exported_max == POLICY_SIZE_OPEN)
		printf("dm-exported: movnt at every size (the exported flushcache_nt_max_bytes)\n");
	else
		printf("dm-exported: movnt up to %" PRIu64 " bytes, %s above (the exported "
		       "flushcache_nt_max_bytes)\n", dm_exported_max,
		       dm_flush == dm_nt ? "movnt" : "clflushopt");
	printf("memcpy+clwb: the memcpy_clwb strategy (glibc memcpy, clwb each line, sfence)\n");
	print_knobs(p);
	for (size_t r = 0; r < nruns; r++) {
		print_run(&runs[r], &k, self_apart(o.mode));
		if (o.cells)
			print_cells(&runs[r], &k);
	}
	printf("\nover every size and pattern (total wall time %.1f s):\n",
	       (double)(now_ns() - t0) * 1e-9);
	for (int c = 0; c < NCOLS; c++)
		print_summary(runs, nruns, c);
	print_bands(runs, nruns);
	print_self(runs, nruns);
	print_misses(runs, nruns, &k);
	printf("\nthe ratios to the oracle below use the cross-validated oracle:\n");
	for (int c = 0; c < NCOLS; c++)
		print_worst(runs, nruns, c);
	print_worst_naive(runs, nruns);
	if (o.save_sweep && save_sweep(o.save_sweep, sweep_mode_name(o.mode),
				       o.policy ? o.policy : "probed just now", runs, nruns, &k))
		goto fail;
	rc = 0;
	goto out;
fail:
	rc = 1;
out:
	for (size_t r = 0; r < nruns; r++)
		free(runs[r].c);
	policy_bundle_free(bundle);
	return rc;
}
