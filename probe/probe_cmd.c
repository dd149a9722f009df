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
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "export.h"
#include "fingerprint.h"
#include "fleet.h"
#include "policy.h"
#include "probe_cmd.h"
#include "scratch.h"
#include "strategy.h"
#include "sweep.h"
#include "table.h"
#include "target.h"
#include "workers.h"

#define MAX_REGIONS 64

static volatile sig_atomic_t probe_stop;

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
	if (id->ndimms) {
		pt->dimms = calloc(id->ndimms, sizeof(*pt->dimms));
		if (!pt->dimms)
			return -ENOMEM;
		memcpy(pt->dimms, id->dimms, id->ndimms * sizeof(*pt->dimms));
		pt->ndimms = id->ndimms;
	}
	return 0;
}

/*
 * Map spec and sweep it into a new target of p.  id: the region's
 * identity when spec is scratch space on a pmem region.  Returns an
 * exit status.
 */
static int probe_one(struct policy *p, const char *spec, const char *name,
		     const struct region_identity *id, bool may_destroy, uint64_t area_bytes,
		     const struct probe_opts *o, const struct cpu_info *ci)
{
	struct target_opts topts = { .area_bytes = area_bytes, .destroy_data = may_destroy,
				     .llc_bytes = target_cache_bytes(ci->llc_bytes) };
	struct sweep_config cfg;
	struct policy_target *pt;
	struct target t;
	char err[512];
	int rc, status = 1;

	sweep_config_defaults(&cfg, o->mode);
	if (o->threads)
		cfg.nthreads = o->threads;
	cfg.only = o->strategies;
	cfg.progress = !o->quiet && isatty(STDERR_FILENO);
	cfg.stop = &probe_stop;

	rc = target_open(spec, &topts, &t, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "pmem-tune: %s\n", err);
		return 2;
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
	if (!o->quiet)
		fprintf(stderr, "pmem-tune: probing %s (%s, %zu MiB, %s mode, up to %u threads)\n",
			t.name, spec, t.len >> 20, sweep_mode_name(o->mode), cfg.nthreads);
	rc = sweep_run(&t, ci, &cfg, pt);
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
static int probe_regions(struct policy *p, const char *spec, const struct probe_opts *o,
			 const struct cpu_info *ci)
{
	char regions[MAX_REGIONS][POLICY_NAME_MAX], err[512];
	uint64_t area = o->area_bytes ? o->area_bytes
				      : target_default_area(target_cache_bytes(ci->llc_bytes));
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
		return probe_one(p, "dram", NULL, NULL, false, o->area_bytes, o, ci);
	}
	for (int i = 0; i < n && !status && !probe_stop; i++) {
		struct scratch s = { 0 };

		if (scratch_acquire(regions[i], size, o->destroy_data, &s, err, sizeof(err))) {
			fprintf(stderr, "pmem-tune: %s\n", err);
			status = 1;
			break;
		}
		/* an fsdax scratch file can hold less than the default area */
		status = probe_one(p, s.spec, regions[i], &s.id, s.owned || o->destroy_data,
				   s.area_bytes && s.area_bytes < area ? s.area_bytes : area, o, ci);
		scratch_release(&s);
	}
	return probe_stop ? 1 : status;
}

static bool is_region_spec(const char *spec)
{
	return !strcmp(spec, "auto") || !strncmp(spec, "region:", 7);
}

int probe_cmd(const struct probe_opts *o)
{
	struct export_weights w = { 0 };
	struct policy *p = NULL;
	char err[512];
	struct cpu_info ci;
	uint64_t t0 = now_ns();
	int rc, status = 1;

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
	catch_signals(true);
	status = 0;
	for (unsigned i = 0; i < (o->ntargets ? o->ntargets : 1) && !status && !probe_stop; i++) {
		const char *spec = o->ntargets ? o->targets[i] : "auto";

		if (is_region_spec(spec))
			status = probe_regions(p, spec, o, &ci);
		else
			status = probe_one(p, spec, NULL, NULL, o->destroy_data, o->area_bytes, o,
					   &ci);
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
	rc = export_compute(p, o->weights ? &w : NULL);
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
		for (size_t i = 0; i < p->ntargets; i++) {
			table_print_target(stdout, &p->targets[i], isatty(STDOUT_FILENO));
			table_print_unmeasured(stdout, p, &p->targets[i]);
		}
		export_print(stdout, p);
	}
	if (o->output) {
		rc = policy_save(p, o->output);
		if (rc) {
			fprintf(stderr, "pmem-tune: %s: cannot write the policy: %s\n", o->output,
				strerror(-rc));
			goto out;
		}
		if (!o->quiet)
			fprintf(stderr, "pmem-tune: wrote %s\n", o->output);
	}
	status = 0;
out:
	export_weights_free(&w);
	policy_free(p);
	return status;
}
