/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fleet operations: merge hosts' policies, diff two policies. */
#ifndef PMEM_RULE_FLEET_H
#define PMEM_RULE_FLEET_H

#include <stdio.h>

#include "policy/policy.h"
#include "rule/export.h"

/*
 * Merge the entries of every input into one bundle.  Entries with one
 * fingerprint are aggregated robustly: for each target any of them
 * probed and each op of it, the union of sizes and strategies, each cell
 * the median over the hosts that measured it, the hosts' min and max
 * kept beside; decisions and exports are then recomputed.  Other
 * fingerprints become separate entries, in order of first appearance.
 *
 * Hosts are counted, not claims: an entry stands for the hosts whose ids
 * it holds (a merged entry's host_ids, a probe's host_id) and weighs as
 * many; one that names none (a file from before host ids, or a merged
 * entry that only says how many hosts it holds) is one host, known by
 * the sha256 of its text, its samples aside.  A merged entry lists every
 * id it holds, sorted, so that a host is known however deep in a bundle
 * it is; one host twice is refused (-EEXIST), so is an output of more
 * than POLICY_MAX_HOST_IDS ids or POLICY_MAX_BUNDLE platforms, or an op
 * whose hosts' grids together exceed POLICY_MAX_SIZES sizes or
 * POLICY_MAX_CURVES strategies (-E2BIG).  Linear in the hosts: no two
 * entries are compared, hosts are told apart by hash.
 * Inputs are not changed; *out is the caller's.
 */
int policy_merge(struct policy_bundle *const *in, size_t nin, const struct export_weights *w,
		 struct policy_bundle **out, char *err, size_t errlen);
/* The same, naming in[i] names[i] in the error (policy_merge: "input i+1"). */
int policy_merge_named(struct policy_bundle *const *in, const char *const *names, size_t nin,
		       const struct export_weights *w, struct policy_bundle **out, char *err,
		       size_t errlen);

/*
 * The host's identity in a policy: "sha256:<hex>" of its machine-id
 * (machine_id_path, normally /etc/machine-id) salted with the platform
 * fingerprint; neither the machine-id nor the hostname can be read back.
 * Returns 0 or negative errno.
 */
int policy_host_id(const char *machine_id_path, const char *fingerprint, char *out, size_t len);

/*
 * What changed from a to b in decisions (ranges and crossovers) and
 * exports, one line each to f (NULL: count only).  A crossover or a
 * threshold that moved by at most one step of the probe's sqrt(2) grid
 * (at most 1.5x) with the same strategies is noise, not a change.
 * Returns the number of changes.
 */
int policy_bundle_diff(const struct policy_bundle *a, const struct policy_bundle *b, FILE *f);

#endif
