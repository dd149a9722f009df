/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a policy file may hold.  The root daemon writes kernel knobs from
 * it and fleets feed it from thousands of hosts: every bound here keeps
 * a hostile or corrupt file from costing more than a bounded amount of
 * memory and time, and the file's size follows from the others, so that
 * the largest file every other bound allows is read.
 */
#ifndef PMEM_POLICY_LIMITS_H
#define PMEM_POLICY_LIMITS_H

#define POLICY_MAX_DEPTH	16
/* entries of any array or object, known or not, but merged.host_ids */
#define POLICY_MAX_ENTRIES	1024
#define POLICY_MAX_TARGETS	256
#define POLICY_MAX_OPS		64
#define POLICY_MAX_SIZES	1024
#define POLICY_MAX_CURVES	64
#define POLICY_MAX_DIMMS	64
#define POLICY_MAX_FEATURES	256
#define POLICY_MAX_THREADS	4096
#define POLICY_MAX_SAMPLES	1000000000
#define POLICY_MAX_HOSTS	10000000	/* merged.hosts of an entry without host_ids */
/*
 * merged.kernels, merged.microcodes: a fleet in the middle of a rolling
 * update runs a few; an entry of more lists none (not recorded).
 */
#define POLICY_MAX_ENV_VALUES	64
#define POLICY_MAX_SIZE_BYTES	(1LL << 44)	/* 16 TiB */
#define POLICY_MAX_MIB_S	1e8		/* 100 TiB/s: beyond any memory */

/*
 * One policy as written, its host ids aside: a probe's file with every
 * cell's samples (--keep-samples) is up to 2.5 MiB, and the probe sheds
 * them rather than write more.
 */
#define POLICY_MAX_POLICY_BYTES	(8LL << 20)
/*
 * One entry of a bundle as written, its host ids aside.  --merge writes
 * summaries (no samples): a standard probe of one target is about
 * 290 KiB, merged (with hosts_min_mib_s/hosts_max_mib_s) and indented as
 * a bundle's entry about 430 KiB, so this holds four such targets.
 */
#define POLICY_MAX_ENTRY_BYTES	(2LL << 20)
/* distinct platforms in one fleet file */
#define POLICY_MAX_BUNDLE	256
/* merged.host_ids of every entry of one file together: a fleet of this many hosts */
#define POLICY_MAX_HOST_IDS	262144
/*
 * One host id as written in a bundle's entry: ten spaces of indent, the
 * 71 characters of "sha256:<hex>" in quotes, a comma and a newline.
 */
#define POLICY_HOST_ID_TEXT_BYTES 85
/*
 * The largest file: every entry of the largest bundle at its largest,
 * each with the ", " between them, every host id, and 4 KiB for the
 * bundle's own keys (about 536 MiB).
 */
#define POLICY_MAX_FILE_BYTES	(POLICY_MAX_BUNDLE * (POLICY_MAX_ENTRY_BYTES + 8) + \
				 (long long)POLICY_MAX_HOST_IDS * POLICY_HOST_ID_TEXT_BYTES + 4096)
/*
 * What json-c may allocate for one policy, or one entry of a bundle (a
 * bundle's entries are read one at a time): its tree takes about 4.4
 * times the text as written (indented) and 15 times the text compacted
 * to one line, so a lone policy at its largest (8 MiB, one line, and
 * every host id at 128 bytes each) fits.
 */
#define POLICY_MAX_TREE_BYTES	(256 << 20)

#endif
