// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pmem-tune --probe: measure each target and write one policy.
 *
 * Targets "auto" and "region:NAME" go through scratch space: a namespace
 * created for the probe and destroyed afterwards, also on error and on
 * SIGINT/SIGTERM (the handler only raises a flag; the sweep stops at its
 * next sample and the normal path releases the scratch).  The policy
 * file is written once, atomically, after every target succeeded: a
 * failed or interrupted probe never replaces an existing policy.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cli/probe_cmd.h"
#include "cli/table.h"
#include "common/path.h"
#include "measure/strategy.h"
#include "measure/sweep.h"
#include "measure/target.h"
#include "measure/workers.h"
#include "platform/cpu.h"
#include "platform/scratch.h"
#include "platform/scratch_state.h"
#include "platform/topology.h"
#include "policy/cxl_sysfs.h"
#include "policy/fingerprint.h"
#include "policy/fleet_file.h"
#include "policy/policy.h"
#include "policy/policy_limits.h"
#include "rule/crossover.h"
#include "rule/export.h"
#include "rule/fleet.h"
#include "rule/stats.h"

#define MAX_REGIONS 64

/* The signal that stops the probe, 0 none: the handler's only way out. */
static volatile sig_atomic_t probe_stop;

/* What every target of one probe shares. */
struct probe_run {
	const struct probe_opts *o;
	const struct cpu_info *ci;
	/* the policy in place (--baseline, or the output file's entry for this host), NULL none */
	const struct policy *base;
	const struct export_weights *weights;	/* --weights, NULL none */
	struct topology topo;	/* the host's nodes and CPUs, read once */
	bool have_topo;		/* false: the threads take the first CPUs of the mask */
	struct probe_progress progress;	/* one estimate over every target */
};

static void on_signal(int sig)
{
	probe_stop = sig;
}

static void catch_signals(bool on)
{
	struct sigaction sa = { .sa_handler = on ? on_signal : SIG_DFL };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int fill_platform(struct policy *p, const struct cpu_info *ci)
{
	struct policy_cpu *c = &p->platform.cpu;
	struct policy *host = policy_new();
	int rc;

	if (!host)
		return -ENOMEM;
	/*
	 * The fingerprint is the host's, over every region it has, exactly
	 * as the daemon and --check compute it: a probe of one region must
	 * match the host it ran on.
	 */
	rc = fingerprint_host(NULL, host);
	if (!rc) {
		memcpy(p->platform.fingerprint, host->platform.fingerprint,
		       sizeof(p->platform.fingerprint));
		memcpy(p->platform.kernel, host->platform.kernel, sizeof(p->platform.kernel));
		memcpy(c->microcode, host->platform.cpu.microcode, sizeof(c->microcode));
	}
	policy_free(host);
	if (rc)
		return rc;
	/* best effort: without a machine-id the policy names no host, as before */
	policy_host_id("/etc/machine-id", p->platform.fingerprint, p->generator.host_id,
		       sizeof(p->generator.host_id));
	/* the CPU as the probe saw it: CPUID, after PMEM_TUNE_DISABLE */
	snprintf(c->vendor, sizeof(c->vendor), "%s", ci->vendor);
	c->family = ci->family;
	c->model = ci->model;
	c->stepping = ci->stepping;
	c->llc_bytes = ci->llc_bytes;
	for (int f = 0; f < CPU_NR_FEATURES; f++)
		if (cpu_has(ci, f) && policy_cpu_add_feature(c, cpu_feature_name(f)))
			return -ENOMEM;
	return 0;
}

static void fill_generator(struct policy *p, enum sweep_mode mode, double duration_s)
{
	struct policy_generator *g = &p->generator;
	time_t now = time(NULL);
	struct tm tm;

	snprintf(g->name, sizeof(g->name), "pmem-tune");
	snprintf(g->version, sizeof(g->version), "%s", PT_VERSION);
	gmtime_r(&now, &tm);
	strftime(g->created, sizeof(g->created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(g->mode, sizeof(g->mode), "%s", sweep_mode_name(mode));
	g->duration_s = duration_s;
}

static int set_identity(struct policy_target *pt, const struct target *t,
			const struct region_identity *id)
{
	int rc;

	snprintf(pt->kind, sizeof(pt->kind), "%s", id ? "pmem" : t->kind);
	snprintf(pt->device, sizeof(pt->device), "%s", t->device);
	snprintf(pt->mapping, sizeof(pt->mapping), "%s", t->mapping);
	snprintf(pt->persistence_domain, sizeof(pt->persistence_domain), "%s",
		 t->persistence_domain);
	pt->area_bytes = t->len;
	if (!id)
		return 0;
	pt->numa_node = id->numa_node;
	pt->interleave_ways = id->interleave_ways;
	/* a CXL region: what libnvdimm does not say, read as fingerprint_host() reads it */
	rc = cxl_identity_of_nd_region("", id->region, &pt->cxl);
	if (rc && rc != -ENOENT)
		return rc;
	if (id->ndimms) {
		pt->dimms = calloc(id->ndimms, sizeof(*pt->dimms));
		if (!pt->dimms)
			return -ENOMEM;
		memcpy(pt->dimms, id->dimms, id->ndimms * sizeof(*pt->dimms));
		pt->ndimms = id->ndimms;
	}
	return 0;
}

/* Record where the threads ran and what was bound, for the policy. */
static int set_placement(struct policy_target *pt, const struct topo_choice *ch, unsigned nthreads,
			 const struct target *t)
{
	pt->target_node = ch->target_node;
	pt->probed_from_node = ch->from_node;
	snprintf(pt->placement, sizeof(pt->placement), "%s", topo_placement_name(ch->how));
	pt->cpus_used = calloc(nthreads ? nthreads : 1, sizeof(*pt->cpus_used));
	if (!pt->cpus_used)
		return -ENOMEM;
	memcpy(pt->cpus_used, ch->cpus, nthreads * sizeof(*pt->cpus_used));
	pt->ncpus_used = nthreads;
	/* set by the sweep for the sources; a dram area must be bound as well */
	if (pt->memory_bound < 0)
		pt->memory_bound = 0;
	if (!strcmp(t->kind, "dram")) {
		pt->numa_node = t->memory_bound ? t->node : -1;
		pt->memory_bound = pt->memory_bound && t->memory_bound;
	}
	return 0;
}

/* The sizes the remote pass times, where the grid has them. */
static const uint64_t remote_sizes[] = { 4096, 256u << 10, 4u << 20 };

/* Fresh single-thread timings of fn at size from the CPUs of ch. */
static double time_from(const struct target *t, const struct sweep_config *cfg,
			const struct topo_choice *ch, strategy_copy_fn fn, uint64_t size)
{
	struct sweep_config rc = *cfg;
	struct sweep_bench *b;
	struct sample_summary res = { 0 };

	rc.nthreads = 1;
	rc.cpus = ch->cpus;
	rc.mem_node = ch->from_node;
	if (sweep_bench_open(t, &rc, &b))
		return NAN;
	if (sweep_bench_measure(b, &fn, 1, size, false, 1, cfg->budget_s * 0.02, &res))
		res.n = 0;
	sweep_bench_close(b);
	return res.n ? res.median : NAN;
}

/*
 * The best strategy at a few sizes, timed from the target's CPUs and
 * again from the farthest node's: what an application on the wrong
 * node pays.  Both fresh, one after the other, so that neither side
 * profits from a quiet moment of the machine alone.
 */
static void remote_penalty(const struct target *t, const struct sweep_config *cfg,
			   const struct topology *topo, const struct topo_choice *local,
			   struct policy_target *pt)
{
	struct policy_remote *r = &pt->remote_penalty;
	struct policy_op *op = policy_find_op(pt, "write", "sequential", 1);
	struct topo_choice *far = malloc(sizeof(*far));
	double ratios[POLICY_REMOTE_CELLS];
	size_t nr = 0;

	if (!far || !op || topo_choose_farthest(topo, local->target_node >= 0 ?
						local->target_node : local->from_node, far)) {
		free(far);
		return;
	}
	for (size_t k = 0; k < sizeof(remote_sizes) / sizeof(remote_sizes[0]); k++) {
		int idx = policy_op_size_index(op, remote_sizes[k]);
		const struct policy_curve *best = NULL;
		const struct strategy *s;
		struct policy_remote_cell *c;

		for (size_t i = 0; idx >= 0 && i < op->ncurves; i++) {
			const struct policy_curve *cv = &op->curves[i];

			if (!cv->reference_only && !isnan(cv->median_mib_s[idx]) &&
			    (!best || cv->median_mib_s[idx] > best->median_mib_s[idx]))
				best = cv;
		}
		s = best ? strategy_find(best->strategy) : NULL;
		if (!s || r->ncells >= POLICY_REMOTE_CELLS || probe_stop)
			continue;
		c = &r->cells[r->ncells];
		snprintf(c->strategy, sizeof(c->strategy), "%s", s->name);
		snprintf(c->pattern, sizeof(c->pattern), "sequential");
		c->size_bytes = remote_sizes[k];
		c->local_mib_s = time_from(t, cfg, local, s->copy, remote_sizes[k]);
		c->remote_mib_s = time_from(t, cfg, far, s->copy, remote_sizes[k]);
		r->ncells++;
		if (c->local_mib_s > 0 && c->remote_mib_s > 0)
			ratios[nr++] = c->local_mib_s / c->remote_mib_s;
	}
	if (r->ncells) {
		struct sample_summary sum;

		r->present = true;
		r->from_node = far->from_node;
		r->distance = far->distance;
		r->ratio = NAN;
		if (nr) {
			stats_summarize(ratios, nr, &sum);
			r->ratio = sum.median;
		}
	}
	free(far);
}

/*
 * Map spec and sweep it into a new target of p.  id: the region's
 * identity when spec is scratch space on a pmem region.  Returns an
 * exit status.
 */
static int probe_one(struct probe_run *run, struct policy *p, const char *spec, const char *name,
		     const struct region_identity *id, bool may_destroy, uint64_t area_bytes)
{
	const struct probe_opts *o = run->o;
	struct target_opts topts = { .area_bytes = area_bytes, .destroy_data = may_destroy };
	struct topo_choice *ch = calloc(1, sizeof(*ch));
	struct sweep_config cfg;
	struct policy_target *pt;
	struct target t;
	char err[512], cpus[128] = "";
	bool placed = false;
	struct stat st;
	int rc, status = 1, node = -1;

	sweep_config_defaults(&cfg, o->mode);
	if (o->threads)
		cfg.nthreads = o->threads;
	cfg.only = o->strategies;
	cfg.keep_samples = o->keep_samples;
	cfg.progress = !o->quiet && table_terminal(stderr);
	cfg.progress_lines = !o->quiet && !cfg.progress;
	cfg.stop = &probe_stop;
	cfg.whole = &run->progress;
	topts.nthreads = cfg.nthreads;
	if (!ch)
		return 1;

	/* dram: its node before the area is touched, so that it can be bound there */
	if (!strcmp(spec, "dram") && run->have_topo && run->topo.numa) {
		node = o->dram_node_set ? o->dram_node
					: (topo_choose(&run->topo, -1, ch) ? -1 : ch->from_node);
		topts.bind = node >= 0;
		topts.node = node;
	}
	/* without NUMA there is node 0 only */
	if (!strcmp(spec, "dram") && o->dram_node_set &&
	    (run->have_topo && run->topo.numa ? !topo_node_online(&run->topo, o->dram_node)
					      : o->dram_node)) {
		fprintf(stderr, "pmem-tune: --dram-node %d: no such online node\n", o->dram_node);
		free(ch);
		return 2;
	}
	rc = target_open(spec, &topts, &t, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "pmem-tune: %s\n", err);
		free(ch);
		return 2;
	}
	/*
	 * A file on a DAX filesystem: its block device's node.  Through the
	 * page cache, its pages land by first touch: the caller's node.
	 */
	if (id)
		node = topo_region_node(&run->topo, id->numa_node, id->target_node);
	else if (t.target_node >= 0)
		node = topo_region_node(&run->topo, -1, t.target_node);
	else if (!strcmp(t.mapping, "map_sync") && t.fd >= 0 && !fstat(t.fd, &st))
		node = topo_region_node(&run->topo, topo_blockdev_node("", major(st.st_dev),
								  minor(st.st_dev)), -1);
	if (run->have_topo && !topo_choose(&run->topo, node, ch)) {
		placed = true;
		cfg.cpus = ch->cpus;
		cfg.mem_node = ch->from_node;
		if (o->threads > ch->ncpus && !o->quiet)
			fprintf(stderr, "pmem-tune: %s: %u threads asked, node %d has %u CPUs\n",
				spec, o->threads, ch->from_node, ch->ncpus);
		if (!o->threads || o->threads > ch->ncpus)
			cfg.nthreads = ch->ncpus;
		topo_format_cpulist(ch->cpus, cfg.nthreads, cpus, sizeof(cpus));
	}
	if (name)
		snprintf(t.name, sizeof(t.name), "%s", name);
	if (id) /* the region decides persistence, not the mapping */
		snprintf(t.persistence_domain, sizeof(t.persistence_domain), "%s",
			 id->persistence_domain);
	if (t.len / cfg.nthreads < 2 * cfg.max_size_bytes) {
		fprintf(stderr, "pmem-tune: %s: %zu MiB is too small for %u threads of %llu MiB "
			"copies (see --area-size, --threads)\n", spec, t.len >> 20, cfg.nthreads,
			(unsigned long long)cfg.max_size_bytes >> 20);
		status = 2;
		goto out;
	}
	if (policy_find_target(p, t.name)) {
		fprintf(stderr, "pmem-tune: %s: target name '%s' given twice\n", spec, t.name);
		status = 2;
		goto out;
	}
	pt = policy_add_target(p, t.name);
	if (!pt || set_identity(pt, &t, id))
		goto out;
	if (!o->quiet && placed && ch->from_node >= 0)
		fprintf(stderr, "pmem-tune: probing %s (%s, %zu MiB, %s mode, up to %u threads) "
			"from node %d, CPUs %s (%s)\n", t.name, spec, t.len >> 20,
			sweep_mode_name(o->mode), cfg.nthreads, ch->from_node, cpus,
			topo_placement_name(ch->how));
	else if (!o->quiet)
		fprintf(stderr, "pmem-tune: probing %s (%s, %zu MiB, %s mode, up to %u threads)\n",
			t.name, spec, t.len >> 20, sweep_mode_name(o->mode), cfg.nthreads);
	cfg.baseline = run->base ? policy_find_target(run->base, t.name) : NULL;
	cfg.exports_of = p;
	cfg.weights = run->weights;
	cfg.exports_baseline = run->base;
	rc = sweep_run(&t, run->ci, &cfg, pt);
	if (!rc && placed && set_placement(pt, ch, cfg.nthreads, &t))
		rc = -ENOMEM;
	if (!rc && placed && (o->remote || o->mode == SWEEP_THOROUGH))
		remote_penalty(&t, &cfg, &run->topo, ch, pt);
	if (rc == -EINTR) {
		fprintf(stderr, "pmem-tune: probe of %s interrupted by signal %d\n", spec,
			(int)probe_stop);
		goto out;
	}
	if (rc) {
		fprintf(stderr, "pmem-tune: probe of %s failed: %s\n", spec, strerror(-rc));
		goto out;
	}
	status = 0;
out:
	target_close(&t);
	free(ch);
	return status;
}

static bool targets_name(const struct probe_opts *o, const char *spec)
{
	for (unsigned i = 0; i < o->ntargets; i++)
		if (!strcmp(o->targets[i], spec))
			return true;
	return false;
}

/*
 * auto / region:NAME: each region through its own scratch space.  auto
 * on a host without pmem falls back to dram, unless dram is one of the
 * targets anyway.
 */
static int probe_regions(struct probe_run *run, struct policy *p, const char *spec)
{
	const struct probe_opts *o = run->o;
	char regions[MAX_REGIONS][POLICY_NAME_MAX], err[512];
	uint64_t area = o->area_bytes ? o->area_bytes
				      : target_default_area(o->threads ? o->threads
								       : workers_cpus_available());
	uint64_t size = o->scratch_bytes ? o->scratch_bytes : area;
	int n, status = 0;

	/* it says what it removed, or why it could not look (-EBUSY: a probe runs) */
	n = scratch_reap_stale();
	if (n == -EBUSY)
		return 1;
	n = scratch_plan(spec, o->destroy_data, regions, MAX_REGIONS, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "pmem-tune: %s\n", err);
		return 2;
	}
	if (n == 0 && targets_name(o, "dram")) {
		fprintf(stderr, "pmem-tune: no persistent-memory region to probe\n");
		return 0;
	}
	if (n == 0) {
		fprintf(stderr, "pmem-tune: no persistent-memory region to probe: using dram "
			"(DRAM-emulated persistent memory)\n");
		return probe_one(run, p, "dram", NULL, NULL, false, o->area_bytes);
	}
	/* the spec counted as one target is n */
	probe_progress_add_targets(&run->progress, (unsigned)n - 1);
	for (int i = 0; i < n && !status && !probe_stop; i++) {
		struct scratch s = { 0 };

		if (scratch_acquire(regions[i], size, o->destroy_data, &s, err, sizeof(err))) {
			fprintf(stderr, "pmem-tune: %s\n", err);
			status = 1;
			break;
		}
		/* an fsdax scratch file can hold less than the default area */
		status = probe_one(run, p, s.spec, regions[i], &s.id, s.owned || o->destroy_data,
				   s.area_bytes && s.area_bytes < area ? s.area_bytes : area);
		scratch_release(&s);
	}
	return probe_stop ? 1 : status;
}

static bool is_region_spec(const char *spec)
{
	return !strcmp(spec, "auto") || !strncmp(spec, "region:", 7);
}

/*
 * This host's entry in path, whose decisions a re-probe keeps unless
 * beaten by the margin, into *base (NULL when there is none; another
 * host's is ignored, said for a --baseline).  A --baseline that cannot
 * be read is the operator's error: -EINVAL, said, before any measuring.
 */
static int load_baseline_from(const struct probe_opts *o, const char *path,
			      const struct policy *p, struct policy **base)
{
	struct policy_bundle *b;
	char err[512];

	*base = NULL;
	if (!path || (!o->baseline && access(path, F_OK)))
		return 0;
	b = policy_bundle_load(path, o->insecure ? POLICY_LOAD_INSECURE : 0, err, sizeof(err));
	if (!b) {
		if (!o->baseline)
			return 0;
		fprintf(stderr, "pmem-tune: --baseline: %s\n", err);
		return -EINVAL;
	}
	*base = policy_bundle_find(b, p->platform.fingerprint);
	if (!*base && o->baseline)
		fprintf(stderr, "pmem-tune: --baseline %s has no entry for this host (%s); "
			"deciding without it\n", path, p->platform.fingerprint);
	*base = *base ? policy_dup(*base) : NULL;
	policy_bundle_free(b);
	return 0;
}

/* The probe's result for the operator: a table per op, then the exports. */
static void print_tables(FILE *f, const void *arg)
{
	const struct policy *p = arg;
	struct table_style st = { .color = table_color(stdout), .width = table_width(stdout) };

	for (size_t i = 0; i < p->ntargets; i++) {
		table_print_target(f, &p->targets[i], &st);
		table_print_unmeasured(f, p, &p->targets[i]);
	}
	export_print(f, p);
}

/* A fleet's file, then the host's kept probe: the installed entry comes first. */
static int load_baseline(const struct probe_opts *o, const struct policy *p, struct policy **base)
{
	if (o->baseline)
		return load_baseline_from(o, o->baseline, p, base);
	*base = NULL;
	if (o->fleet_file)
		load_baseline_from(o, o->fleet_file, p, base);
	return *base ? 0 : load_baseline_from(o, o->output, p, base);
}

int probe_cmd(const struct probe_opts *o)
{
	struct export_weights w = { 0 };
	struct policy *p = NULL, *base = NULL;
	char err[512];
	struct cpu_info ci;
	struct probe_run run = { .o = o, .ci = &ci };
	uint64_t t0 = now_ns();
	int rc, status = 1;

	scratch_state_insecure(o->insecure);
	if (o->weights && export_weights_load(o->weights, &w, err, sizeof(err))) {
		fprintf(stderr, "pmem-tune: --weights: %s\n", err);
		return 2;
	}
	rc = cpu_detect(&ci);
	if (rc) {
		fprintf(stderr, "pmem-tune: cannot identify the CPU: %s\n", strerror(-rc));
		goto out;
	}
	strategy_init(&ci);
	p = policy_new();
	if (!p || fill_platform(p, &ci)) {
		fprintf(stderr, "pmem-tune: cannot describe this platform\n");
		goto out;
	}
	/* before measuring: the sweep re-measures what would change it */
	if (load_baseline(o, p, &base)) {
		status = 2;
		goto out;
	}
	run.base = base;
	run.weights = o->weights ? &w : NULL;
	/* without sysfs (a container) the threads take the first CPUs of the mask */
	run.have_topo = topo_load("", NULL, &run.topo) == 0;
	catch_signals(true);
	status = 0;
	probe_progress_init(&run.progress, o->ntargets ? o->ntargets : 1);
	for (unsigned i = 0; i < (o->ntargets ? o->ntargets : 1) && !status && !probe_stop; i++) {
		const char *spec = o->ntargets ? o->targets[i] : "auto";

		if (is_region_spec(spec))
			status = probe_regions(&run, p, spec);
		else
			status = probe_one(&run, p, spec, NULL, NULL, o->destroy_data,
					   o->area_bytes);
	}
	catch_signals(false);
	if (!status && probe_stop) {	/* between two targets: no policy of half of them */
		fprintf(stderr, "pmem-tune: probe interrupted by signal %d\n", (int)probe_stop);
		status = 1;
	}
	if (status)
		goto out;
	status = 1;
	fill_generator(p, o->mode, (double)(now_ns() - t0) * 1e-9);
	/*
	 * The one decision, on the cells the sweep measured and looked at
	 * again.  Sticky: each decision of the baseline stays unless the new
	 * curves show it losing by more than the margin.
	 */
	rc = crossover_decide_policy(p, base);
	if (!rc)
		rc = export_compute_with_baseline(p, o->weights ? &w : NULL, base);
	if (rc) {
		fprintf(stderr, "pmem-tune: cannot derive the exports: %s\n", strerror(-rc));
		goto out;
	}
	if (o->json_stdout) {
		char *s = policy_to_string(p);

		if (s)
			fputs(s, stdout);
		free(s);
	} else {
		if (table_print_fitted(stdout, table_width(stdout), print_tables, p))
			perror("pmem-tune: the tables");
	}
	if (o->output) {
		bool shed;

		/* the tables first: on the journal both streams share one line otherwise */
		fflush(stdout);
		rc = policy_save_shedding_raw(p, o->output, &shed, err, sizeof(err));
		if (shed)
			fprintf(stderr, "pmem-tune: %s: over %lld MiB with every cell's samples; "
				"written without them\n", o->output, POLICY_MAX_POLICY_BYTES >> 20);
		if (rc) {
			fprintf(stderr, "pmem-tune: %s: cannot write the policy: %s\n", o->output,
				err);
			goto out;
		}
		if (o->fleet_file)
			/* even with --quiet: the file named is not the one written */
			fprintf(stderr, "pmem-tune: %s is %s, which only the fleet replaces: "
				"wrote this host's probe to %s, where the fleet collects it\n",
				o->fleet_file, o->fleet_why ? o->fleet_why : "the fleet's",
				o->output);
		else if (!o->quiet)
			fprintf(stderr, "pmem-tune: wrote %s\n", o->output);
	}
	status = 0;
out:
	if (run.have_topo)
		topo_free(&run.topo);
	export_weights_free(&w);
	policy_free(base);
	policy_free(p);
	return status;
}
