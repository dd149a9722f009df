/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Persistent-memory regions as libndctl sees them: the walk, the identity
 * a policy records for a region, names as `ndctl list` prints them, and
 * the pure arithmetic of sizing a scratch namespace.  Shared by --list
 * and the scratch lifecycle; nothing here changes the platform.
 */
#ifndef PMEM_TUNE_REGIONS_H
#define PMEM_TUNE_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ndctl/libndctl.h>

#include "policy/policy.h"

#define REGION_UUID_STR_LEN	37	/* 36 characters and the NUL */
/* The probe needs at least this much usable scratch space. */
#define REGION_MIN_SCRATCH	(64ull << 20)
#define REGION_MAX_DIMMS	32

/* What identifies a region for the policy (and the fingerprint). */
struct region_identity {
	char region[POLICY_NAME_MAX];		/* "region0" */
	char persistence_domain[POLICY_NAME_MAX];
	int numa_node;				/* -1 unknown */
	int target_node;			/* as system RAM; -1 unknown */
	unsigned interleave_ways;
	size_t ndimms;
	struct policy_dimm dimms[REGION_MAX_DIMMS];
};

/*
 * A libndctl context whose own logging stays quiet unless
 * PMEM_TUNE_DEBUG is set: failures are reported once, by the caller, with
 * the context it knows.  Returns 0 or negative errno.
 */
int regions_ctx_new(struct ndctl_ctx **ctx);

/* Persistent-memory region (not BLK, not volatile). */
bool region_is_pmem(struct ndctl_region *region);
/*
 * Label-less: one namespace spanning the region that cannot be
 * subdivided (an nd_namespace_io, e.g. NVDIMMs without a label area or
 * e820 "legacy" pmem).
 */
bool region_is_label_less(struct ndctl_region *region);
/* Every DIMM of the region has a label area (so labels could be initialised). */
bool region_dimms_have_labels(struct ndctl_region *region);
struct ndctl_region *region_find(struct ndctl_ctx *ctx, const char *name);

/* "cpu_cache", "memory_controller", "none", "unknown" as ndctl prints them */
const char *region_pd_name(enum ndctl_persistence_domain pd);
/* Largest free extent, falling back to the available size on old kernels. */
uint64_t region_free_extent(struct ndctl_region *region);
/*
 * Alignment of a namespace's size in this region: the region's align
 * attribute (16 MiB by default), times the interleave ways, at least the
 * given device alignment times the ways.
 */
uint64_t region_size_align(struct ndctl_region *region, uint64_t dev_align);

/*
 * Fill id from libndctl: name, persistence domain, NUMA node (-1 when
 * unknown), interleave ways (the number of mappings, 0 when unknown) and
 * every mapped DIMM with vendor, device and firmware spelled like
 * policy/fingerprint.c does ("0x%04x", "unknown"), so that a probed
 * target and the host's fingerprint describe a region the same way.
 */
void region_identity_fill(struct ndctl_region *region, struct region_identity *id);
/* The DIMM half of the above, for --list. */
void region_dimm_identity(struct ndctl_dimm *dimm, struct policy_dimm *d);

/* "fsdax", "devdax", "sector", "raw", "unknown" */
const char *namespace_mode_name(enum ndctl_namespace_mode mode);
/* A namespace with capacity (not an idle seed). */
bool namespace_is_configured(struct ndctl_namespace *ndns);
/* Usable size in its mode (after the info block and memmap). */
uint64_t namespace_usable_size(struct ndctl_namespace *ndns);
/*
 * The device users open: "dax0.1" (devdax; first device of its dax
 * region), "pmem0.1" (fsdax, raw, sector), "" when disabled.
 */
void namespace_device(struct ndctl_namespace *ndns, char *buf, size_t len);
/* The UUID `ndctl list` shows: the personality's (pfn/dax/btt) or the label's. */
void namespace_display_uuid(struct ndctl_namespace *ndns, char out[REGION_UUID_STR_LEN]);
/* The label's UUID, "" for label-less namespaces. */
void namespace_label_uuid(struct ndctl_namespace *ndns, char out[REGION_UUID_STR_LEN]);

/* UUIDs as text without libuuid: lower-case 8-4-4-4-12. */
void region_uuid_unparse(const unsigned char uu[16], char out[REGION_UUID_STR_LEN]);
int region_uuid_parse(const char *s, unsigned char uu[16]);
bool region_uuid_is_null(const unsigned char uu[16]);
/* A random (version 4) UUID from getrandom(2). */
int region_uuid_generate(unsigned char uu[16]);

/*
 * Size of the scratch namespace to create (pure, for tests).
 * want_usable: the area wanted (0: 4 x llc_bytes, at least
 * REGION_MIN_SCRATCH).  The namespace is made larger by the devdax/fsdax
 * metadata (about 1/64 for the memmap kept on the device, plus the info
 * block and alignment padding), rounded up to align, and capped at the
 * largest free extent rounded down to align.  Returns 0 when what fits
 * leaves less than REGION_MIN_SCRATCH usable.
 */
uint64_t region_scratch_size(uint64_t want_usable, uint64_t llc_bytes, uint64_t extent,
			     uint64_t align);
/* What a namespace of ns_bytes leaves usable, by the same estimate. */
uint64_t region_scratch_usable(uint64_t ns_bytes);

#endif
