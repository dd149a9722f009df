/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The environment of a policy entry: the kernel and the CPU microcode
 * its hosts ran when they probed.  The fingerprint (fingerprint.h)
 * alone decides which entry applies to a host; the environment never
 * does.  A host that runs another kernel or microcode than the entry
 * was probed on has an *environment change*: reported (pmem-tune
 * --check, --metrics, pmem-tuned's log and metrics), never a reason to
 * refuse the entry, to probe again or to replace a fleet's file.  Not
 * to be confused with *knob drift*: a knob that no longer holds the
 * value pmem-tuned wrote.
 *
 * A single probe records its own values (platform.kernel,
 * platform.cpu.microcode).  A merged entry records every distinct
 * value of its hosts (merged.kernels, merged.microcodes), so that a
 * fleet on several kernels is one platform and a host on any of them
 * has no change; its platform.kernel and cpu.microcode hold the one
 * value all its hosts share, else "" (what older readers take for "not
 * recorded").
 */
#ifndef PMEM_POLICY_ENVIRONMENT_H
#define PMEM_POLICY_ENVIRONMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

enum policy_env_what {
	POLICY_ENV_KERNEL,	/* uname -r */
	POLICY_ENV_MICROCODE,	/* /proc/cpuinfo "microcode" of the first CPU */
	POLICY_ENV_N,
};

/* "kernel", "microcode": the word in messages, JSON keys and metric labels. */
const char *policy_env_name(enum policy_env_what w);

/*
 * The values the hosts behind entry p ran, sorted and distinct, into
 * v[0..max) (pointers into p, valid while p is); returns how many there
 * are (which may exceed max), 0 when not recorded.
 */
size_t policy_env_probed(const struct policy *p, enum policy_env_what w, const char **v,
			 size_t max);

struct policy_env_item {
	bool compared;		/* both the host's value and the entry's are known */
	bool changed;		/* compared, and the host's is none of the entry's */
	char host[POLICY_ENV_VALUE_MAX];	/* this host's value, "" not known */
};

struct policy_env_report {
	struct policy_env_item item[POLICY_ENV_N];
	unsigned nchanged;
};

/*
 * The environment of host (as fingerprint_host() fills it) against
 * what the hosts behind entry ran.
 */
void policy_env_compare(const struct policy *entry, const struct policy *host,
			struct policy_env_report *r);

/*
 * "kernel 6.1.0-b, probed on 6.1.0-a" (at most a few of the probed
 * values, then how many more) into buf.
 */
void policy_env_describe(const struct policy *entry, const struct policy_env_report *r,
			 enum policy_env_what w, char *buf, size_t len);

/*
 * The environment of a merged entry out from its inputs g[0..n): the
 * union of their values (an input that recorded none adds none);
 * more distinct values than POLICY_MAX_ENV_VALUES record none.  0 or
 * -ENOMEM.
 */
int policy_env_merge(struct policy *out, struct policy *const *g, size_t n);

#endif
