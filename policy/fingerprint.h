/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The platform fingerprint: a hash over what decides copy behaviour and
 * nothing that differs between identical machines.  It covers the CPU
 * (vendor, family, model, stepping) and, per persistent-memory target,
 * the DIMMs' vendor/device/firmware, the interleave ways and the
 * persistence domain, and for a CXL target its memory devices
 * (cxl_fingerprint_lines()).  Hostnames, serial numbers, sizes, the kernel and
 * the microcode are left out: kernel and microcode are the environment
 * (environment.h), kept beside it, reported when they change, never a
 * reason for another entry.
 */
#ifndef PMEM_POLICY_FINGERPRINT_H
#define PMEM_POLICY_FINGERPRINT_H

#include <stddef.h>

#include "policy/policy.h"

#define FINGERPRINT_LEN 80	/* "sha256:" + 64 hex + NUL fits */

/* The canonical text hashed (one "key=value" a line); caller frees. */
char *fingerprint_canonical(const struct policy *p);
/* "sha256:<hex>" of fingerprint_canonical(p) into out. */
int fingerprint_compute(const struct policy *p, char out[FINGERPRINT_LEN]);

/*
 * This host's identity read from files only: <root>/proc/cpuinfo,
 * uname, and the nd bus attributes under <root>/sys/bus/nd/devices
 * (root "" or NULL = "/").  Fills p->platform (cpu, kernel) and one
 * target of kind "pmem" per region with its DIMMs, then the
 * fingerprint.  Used where the probe's libndctl view is not at hand
 * (the daemon, --check).  Returns 0 or negative errno.
 */
int fingerprint_host(const char *root, struct policy *p);

#endif
