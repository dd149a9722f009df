/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bounds the running glibc puts on its tunables, as its dynamic
 * loader lists them (ld.so --list-tunables, glibc 2.33 and later):
 *
 *   glibc.cpu.x86_rep_movsb_threshold: 0x840 (min: 0x200, max: 0xffffffffffffffff)
 *
 * They differ between glibc versions and CPUs (the rep movsb minimum is
 * eight vectors of the width glibc copies with), so the glibc sink asks
 * the host, every time it applies, instead of guessing.
 */
#ifndef PT_GLIBC_BOUNDS_H
#define PT_GLIBC_BOUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* a listing is a few KiB; more is not an ld.so's */
#define GLIBC_LIST_MAX		(64 * 1024)
/* it takes milliseconds; a loader that does not answer in this is broken */
#define GLIBC_LIST_TIMEOUT_MS	5000

/* One numeric tunable as listed, for a process without GLIBC_TUNABLES. */
struct glibc_bound {
	uint64_t value;		/* glibc's default on this host */
	uint64_t min, max;
};

/*
 * The line of tunable name in text, a --list-tunables output: 0 and *b;
 * -ENOENT when this glibc does not list it; -EINVAL when its line is not
 * "NAME: VALUE (min: MIN, max: MAX)" with unsigned decimal or 0x numbers.
 */
int glibc_bound_parse(const char *text, const char *name, struct glibc_bound *b);

/*
 * Whether glibc takes v for the x86 copy thresholds the sink sets
 * (x86_non_temporal_threshold, x86_rep_movsb_threshold): only above the
 * listed minimum (sysdeps/x86/dl-cacheinfo.h compares with '>'; glibc
 * 2.36 keeps its default for rep_movsb=min) and at most the maximum.
 */
static inline bool glibc_bound_takes(const struct glibc_bound *b, uint64_t v)
{
	return v > b->min && v <= b->max;
}

/*
 * The path of the dynamic loader this process runs under (its program's
 * PT_INTERP): the running glibc's ld.so.  0, -ENOENT (a static program),
 * -ENAMETOOLONG.
 */
int glibc_ldso_self(char *out, size_t len);

/*
 * "ldso --list-tunables", run without a shell, with an empty environment
 * (no GLIBC_TUNABLES of ours), stdin and stderr on /dev/null, all signals
 * at their defaults, in a process group of its own.  At most
 * GLIBC_LIST_MAX bytes are read; the group is killed when the child has
 * not finished within timeout_ms or says more.  0 and *text (NUL
 * terminated, the caller frees); else a negative errno and why, a phrase
 * saying what went wrong ("exited with status 127", "no answer within
 * 5000 ms", ...).
 */
int glibc_list_tunables(const char *ldso, int timeout_ms, char **text, char *why,
			size_t whylen);

#endif
