/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PT_MKPOLICY_H
#define PT_MKPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct policy;
struct policy_curve;
struct policy_op;
struct policy_target;

struct mkpolicy_opts {
	const char *host_root;		/* fingerprint this (fake) root */
	const char *fingerprint;	/* else this, else all zeroes */
	const char *movnt;		/* PMEM_MOVNT_THRESHOLD */
	const char *nt;			/* x86_non_temporal_threshold */
	const char *movsb;		/* x86_rep_movsb_threshold */
	const char *glibc_target;	/* default "dram" */
	const char *libpmem_target;	/* default "region0" */
	const char *region_domain;	/* region0's claim, default "memory_controller" */
	const char *dram_domain;	/* dram's claim, default "none" */
	uint64_t kernel;		/* flushcache_nt_max_bytes */
	bool kernel_open;
	const char *env[8];		/* extra libpmem KEY=VALUE */
	size_t nenv;
	bool no_libpmem, no_glibc, no_kernel;
};

struct policy *mkpolicy_build(const struct mkpolicy_opts *o);

/*
 * The builder of the tests' policies, by hand: each returns what it made,
 * owned by the policy (the policy by the caller); running out of memory
 * ends the test (exit 1).  A NULL string leaves its member as policy_new()
 * and policy_add_target() set it.
 */
struct policy *mkpolicy_new(const char *fingerprint, const char *created);
void mkpolicy_cpu(struct policy *p, const char *vendor, unsigned family, unsigned model,
		  unsigned stepping);
struct policy_target *mkpolicy_target(struct policy *p, const char *name, const char *kind,
				      const char *domain);
/*
 * A one-thread write op of pattern over sizes[0..n), with an empty curve
 * for each of strategies[0..ncurves); adding curves moves them, so look
 * them up with policy_op_find_curve() after.
 */
struct policy_op *mkpolicy_op(struct policy_target *t, const char *pattern,
			      const uint64_t *sizes, size_t n, const char *const *strategies,
			      size_t ncurves);
/* op's curve of strategy name, added where missing (op->curves may move: use it now). */
struct policy_curve *mkpolicy_curve_of(struct policy_op *op, const char *name);
/*
 * Cell i of c (MiB/s): its median, the 95 % interval median +- ci_halfw,
 * p10 and p90 at median -+ spread_halfw, and the samples it took.  A NAN
 * median leaves the cell unmeasured: every figure NAN, no samples.
 */
void mkpolicy_cell(struct policy_curve *c, size_t i, double median, double ci_halfw,
		   double spread_halfw, unsigned samples);
/*
 * op's curve of strategy name (added where missing), its cells from
 * medians[0..op->nsizes), each interval and p10..p90 +- rel of the median.
 */
struct policy_curve *mkpolicy_curve(struct policy_op *op, const char *name,
				    const double *medians, double rel, unsigned samples);
int mkpolicy_write(const struct mkpolicy_opts *o, const char *path);

#endif
