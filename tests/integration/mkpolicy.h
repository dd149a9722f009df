/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PT_MKPOLICY_H
#define PT_MKPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct policy;

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
int mkpolicy_write(const struct mkpolicy_opts *o, const char *path);

#endif
