/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a policy file may hold.  The root daemon writes kernel knobs from
 * it and fleets feed it from thousands of hosts: every bound here keeps
 * a hostile or corrupt file from costing more than a bounded amount of
 * memory and time.
 */
#ifndef PMEM_POLICY_LIMITS_H
#define PMEM_POLICY_LIMITS_H

#define POLICY_MAX_FILE_BYTES	(8 << 20)	/* a bundle of many hosts fits */
#define POLICY_MAX_DEPTH	16
/* entries of any array or object, known or not: the largest known ones hold 1024 */
#define POLICY_MAX_ENTRIES	1024
/* what json-c may allocate for one file: a legitimate 8 MiB bundle needs about half */
#define POLICY_MAX_TREE_BYTES	(256 << 20)
#define POLICY_MAX_TARGETS	256
#define POLICY_MAX_BUNDLE	1024	/* distinct platforms in one fleet file */
#define POLICY_MAX_OPS		64
#define POLICY_MAX_SIZES	1024
#define POLICY_MAX_CURVES	64
#define POLICY_MAX_DIMMS	64
#define POLICY_MAX_FEATURES	256
#define POLICY_MAX_THREADS	4096
#define POLICY_MAX_SAMPLES	1000000000
#define POLICY_MAX_HOSTS	10000000	/* hosts merged into one entry */
/* merged.host_ids: one array, so no more than any array may hold */
#define POLICY_MAX_HOST_IDS	POLICY_MAX_ENTRIES
/*
 * merged.kernels, merged.microcodes: a fleet in the middle of a rolling
 * update runs a few; an entry of more lists none (not recorded).
 */
#define POLICY_MAX_ENV_VALUES	64
#define POLICY_MAX_SIZE_BYTES	(1LL << 44)	/* 16 TiB */
#define POLICY_MAX_MIB_S	1e8		/* 100 TiB/s: beyond any memory */

#endif
