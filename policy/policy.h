/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libpmem-policy: the in-memory model of /etc/pmem-policy.json.
 *
 * Ownership: a struct policy owns every array and string below it;
 * policy_free() releases all of it.  Units live in the field names:
 * _bytes, _mib_s (MiB/s, 1 MiB = 2^20 bytes), _s (seconds).
 * A throughput that was not measured is NAN (JSON null).
 */
#ifndef PMEM_POLICY_H
#define PMEM_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POLICY_SCHEMA		"pmem-policy/1"
#define POLICY_SCHEMA_MAJOR	1
#define POLICY_NAME_MAX		64
/* "sha256:" and 64 hex digits, with room to spare */
#define POLICY_HOST_ID_LEN	80
#define POLICY_PATH_MAX		256
/* A kernel release or a microcode revision, NUL included (environment.h) */
#define POLICY_ENV_VALUE_MAX	128
/* to_bytes of the last range: no upper bound (JSON null) */
#define POLICY_SIZE_OPEN	UINT64_MAX

/* What the probe knows of a cell besides its numbers (policy_curve.cell_flags). */
enum policy_cell_flag {
	/* implausible even after a fresh re-measurement: shown, never decides */
	POLICY_CELL_SUSPECT = 1 << 0,
	/* the threads never ran together: median NAN, samples 0 */
	POLICY_CELL_UNMEASURABLE = 1 << 1,
	/* measured again later in the op; the numbers are the later ones */
	POLICY_CELL_REMEASURED = 1 << 2,
	/*
	 * A one-size island measured again, fresh, that gave the same
	 * separated verdict: the decision keeps it (crossover_cells()).
	 */
	POLICY_CELL_CONFIRMED = 1 << 3,
};

/*
 * The cache line partial_line_sizes_bytes is counted in: every x86 CPU
 * the probe runs on has 64-byte lines, and the policy carries none.
 */
#define POLICY_LINE_BYTES	64

struct policy_curve {
	char strategy[POLICY_NAME_MAX];
	/*
	 * Measured but not a valid persistent copy on this target (noflush
	 * where the persistence domain is not the CPU cache): kept for the
	 * exports that need a volatile reference, never chosen by a range.
	 */
	bool reference_only;
	double *median_mib_s;	/* [op->nsizes] */
	double *p10_mib_s;
	double *p90_mib_s;
	double *ci_lo_mib_s;	/* 95 % confidence interval of the median */
	double *ci_hi_mib_s;
	unsigned *samples;	/* samples behind each cell, 0 = not measured */
	uint8_t *cell_flags;	/* POLICY_CELL_* per cell */
	/* merged entries only (else NULL): spread of the hosts' medians */
	double *hosts_min_mib_s;
	double *hosts_max_mib_s;
	/*
	 * --keep-samples only (else NULL): [op->nsizes] cells, each NULL or
	 * its samples[i] samples (MiB/s) in the order they were taken.  At
	 * one size of a one-thread op the strategies are sampled in turns,
	 * one sample each per round, so sample j of every curve there was
	 * taken in round j; several threads drop refused samples, and a
	 * cell measured again (remeasured) may have been so with only some
	 * of the others, which breaks that pairing.
	 */
	double **raw_mib_s;
};

struct policy_range {
	uint64_t from_bytes;	/* inclusive */
	uint64_t to_bytes;	/* exclusive, POLICY_SIZE_OPEN = no bound */
	char strategy[POLICY_NAME_MAX];
	/* true where no size of the range was decided by separation */
	bool tie;
	/* "streaming" | "cached_flush" | "" (unknown: an older file) */
	char family[16];
	/* against a --baseline: "kept" | "changed" | "new", "" without one */
	char baseline[16];
};

struct policy_crossover {
	uint64_t size_bytes;	/* smallest measured size where 'above' wins */
	char below[POLICY_NAME_MAX];
	char above[POLICY_NAME_MAX];
	double confidence;	/* 0..1, probability both sides are right */
	/* "family" (streaming <-> cached+flush) | "member" | "" (older file) */
	char kind[16];
};

struct policy_op {
	char op[POLICY_NAME_MAX];	/* "write" */
	char pattern[POLICY_NAME_MAX];	/* "sequential" | "random" */
	unsigned threads;
	double ceiling_mib_s;		/* non-temporal fill, same threads */
	/*
	 * Several threads: the least overlap (intersection / union of the
	 * threads' timed intervals, a fraction 0..1) of a sample kept, NAN unknown, and how
	 * many samples were refused for overlapping less.
	 */
	double min_overlap;
	unsigned rejected_samples;
	/* the margin the decision used, a fraction (0.05 = 5 %); 0 = not recorded */
	double margin;
	size_t nsizes;
	uint64_t *sizes_bytes;		/* ascending, unique */
	size_t ncurves;
	struct policy_curve *curves;
	size_t nranges;
	struct policy_range *ranges;
	size_t ncrossovers;
	struct policy_crossover *crossovers;
};

struct policy_dimm {
	char name[POLICY_NAME_MAX];
	char vendor[POLICY_NAME_MAX];
	char device[POLICY_NAME_MAX];
	char firmware[POLICY_NAME_MAX];
};

/*
 * A CXL Type-3 memory device behind a CXL pmem region, as sysfs
 * (/sys/bus/cxl) shows it: what tells one device model from another.
 * The PCI ids are sysfs's text ("0x8086"); never the serial number.
 */
struct policy_cxl_memdev {
	char name[POLICY_NAME_MAX];		/* "mem0": in the file, not in the fingerprint */
	char pci_vendor[16], pci_device[16];
	char pci_subsystem_vendor[16], pci_subsystem_device[16];
	char pci_revision[16];
	char firmware[POLICY_NAME_MAX];		/* firmware_version */
	unsigned depth;				/* ports from the CXL root to the endpoint */
};

#define POLICY_MAX_CXL_MEMDEVS 16

/* A target on a CXL pmem region (libnvdimm's region bridged by cxl_pmem). */
struct policy_cxl {
	bool present;
	char region[POLICY_NAME_MAX];		/* the CXL region, "region1" */
	unsigned interleave_ways;		/* devices the region interleaves */
	unsigned interleave_granularity;	/* bytes */
	unsigned host_bridges;			/* the root decoder's interleave ways */
	size_t nmemdevs;
	struct policy_cxl_memdev memdevs[POLICY_MAX_CXL_MEMDEVS];
};

/*
 * The one family enum: what consumers choose between (streaming stores, or
 * cached stores and a flush; the rule decides these two), and fill, the
 * saturation series' non-temporal fill.  NONE: a strategy in no family
 * (noflush, a volatile reference) or a size no family won.
 */
enum policy_family {
	POLICY_FAMILY_NONE = -1,
	POLICY_FAMILY_STREAMING = 0,
	POLICY_FAMILY_CACHED_FLUSH = 1,
	POLICY_FAMILY_FILL = 2,
	POLICY_NR_FAMILIES
};
/* Bandwidth against threads for one strategy family: where adding threads stops paying. */
#define POLICY_SATURATION_STEPS 16
#define POLICY_STEP_GAIN 0.05		/* a step adding less than 5 % ends the series */

struct policy_saturation {
	bool present;
	char strategy[POLICY_NAME_MAX];	/* the family's member timed; "" for fill */
	uint64_t size_bytes;		/* copy size timed (fill: its chunk) */
	size_t nsteps;
	unsigned threads[POLICY_SATURATION_STEPS];	/* 1, 2, 4, ... ascending */
	double mib_s[POLICY_SATURATION_STEPS];
	unsigned saturates_at;		/* the last step that added >= POLICY_STEP_GAIN */
};

/* The best strategies timed again from the farthest node (--remote). */
#define POLICY_REMOTE_CELLS 8
struct policy_remote_cell {
	char strategy[POLICY_NAME_MAX];
	char pattern[POLICY_NAME_MAX];
	uint64_t size_bytes;
	double local_mib_s, remote_mib_s;
};

struct policy_remote {
	bool present;
	int from_node;
	int distance;			/* -1 unknown */
	size_t ncells;
	struct policy_remote_cell cells[POLICY_REMOTE_CELLS];
	double ratio;			/* median of local / remote over the cells */
};

struct policy_target {
	char name[POLICY_NAME_MAX];
	char kind[POLICY_NAME_MAX];	/* "pmem" | "dram" | "file" | "devdax" */
	char device[POLICY_PATH_MAX];	/* path, "" for dram */
	/* "devdax" | "map_sync" | "shared" | "anonymous" */
	char mapping[POLICY_NAME_MAX];
	/* "cpu_cache" | "memory_controller" | "none" | "unknown" */
	char persistence_domain[POLICY_NAME_MAX];
	int numa_node;			/* -1 unknown */
	/* Where the probe ran (all -1 / "" / NULL in a policy from before these fields) */
	int target_node;		/* the node its memory belongs to, -1 unknown */
	int probed_from_node;		/* whose CPUs ran the threads, -1 no NUMA */
	char placement[16];		/* "local" | "nearest" | "caller" | "no_numa" | "" */
	size_t ncpus_used;
	int *cpus_used;			/* in thread order: n threads ran on the first n */
	int memory_bound;		/* 1 / 0: DRAM buffers mbind()-ed there; -1 unknown */
	struct policy_saturation saturation[POLICY_NR_FAMILIES];
	struct policy_remote remote_penalty;
	unsigned interleave_ways;	/* 0 unknown */
	size_t ndimms;
	struct policy_dimm *dimms;
	struct policy_cxl cxl;		/* .present: the region is a CXL region */
	uint64_t area_bytes;		/* destination area walked */
	double ceiling_mib_s;		/* best ceiling of its ops */
	size_t nops;
	struct policy_op *ops;
};

struct policy_cpu {
	char vendor[16];
	unsigned family, model, stepping;
	char microcode[32];		/* "" unknown; environment, not in the fingerprint */
	size_t nfeatures;
	char **features;		/* sorted, lower case */
	uint64_t llc_bytes;
};

struct policy_platform {
	char fingerprint[80];		/* "sha256:<64 hex>" */
	struct policy_cpu cpu;
	char kernel[POLICY_ENV_VALUE_MAX];	/* uname -r; environment, not in the fingerprint */
};

struct policy_generator {
	char name[POLICY_NAME_MAX];
	char version[32];
	char created[32];		/* RFC 3339 UTC */
	char mode[16];			/* "quick" | "standard" | "thorough" */
	double duration_s;
	/*
	 * Which host probed ("sha256:<hex>", "" unknown): a hash of its
	 * machine-id salted with the fingerprint, never the hostname or the
	 * machine-id itself; --merge refuses one host twice by it.
	 */
	char host_id[POLICY_HOST_ID_LEN];
};

struct policy_kv {
	char key[POLICY_NAME_MAX];
	char value[POLICY_NAME_MAX];
};

#define POLICY_EXPORT_KV_MAX 8

/* One consumer whose knob cannot express the whole decision. */
struct policy_export {
	bool present;
	char target[POLICY_NAME_MAX];
	size_t nkv;			/* env (libpmem) or tunables (glibc) */
	struct policy_kv kv[POLICY_EXPORT_KV_MAX];
	/*
	 * kernel: the size up to which dm-writecache-style code should use
	 * non-temporal stores before switching to cached+flush;
	 * POLICY_SIZE_OPEN = never switch (JSON null).
	 */
	uint64_t threshold_bytes;
	double regret;			/* mean loss, a fraction; 0 = the per-size best */
	/*
	 * Where the value came from: "default" (the consumer's own, kept),
	 * "baseline" (the policy in place, kept), "measured" (this probe's
	 * best, which gained by the margin on the installed value, else on
	 * the default); "" in an older file.
	 */
	char source[16];
	double margin;			/* the gain (a fraction) it had to beat, 0 = not recorded */
	char baseline[16];		/* "kept" | "changed" | "new", "" in an older file */
};

struct policy_exports {
	struct policy_export libpmem;
	struct policy_export glibc;
	struct policy_export kernel;
};

/* Distinct environment values, sorted: what the hosts of a merged entry ran. */
struct policy_env_values {
	size_t n;			/* 0: not recorded */
	char (*v)[POLICY_ENV_VALUE_MAX];
};

/* A fleet entry aggregated from several hosts of one fingerprint. */
struct policy_merged {
	unsigned hosts;			/* 0: a single host's probe */
	char created_first[32];
	char created_last[32];
	/*
	 * One id per host in it, sorted: its generator.host_id, or for an
	 * input without one the sha256 of that input's text; 0 in an entry
	 * merged before host ids, which --merge counts as one host.
	 */
	size_t nhost_ids;
	char (*host_ids)[POLICY_HOST_ID_LEN];
	/*
	 * The environment its hosts ran (environment.h), never part of
	 * the fingerprint: every distinct kernel and microcode.
	 */
	struct policy_env_values kernels;
	struct policy_env_values microcodes;
};

struct policy {
	char schema[32];
	struct policy_generator generator;
	struct policy_merged merged;
	struct policy_platform platform;
	size_t ntargets;
	struct policy_target *targets;
	struct policy_exports exports;
};

/*
 * model.c: allocation; every function returns NULL / -ENOMEM on failure.
 * A pointer returned by an _add_ function is valid until the next
 * addition to the same array (policy_add_target, policy_target_add_op,
 * policy_op_add_curve reallocate): look elements up again after adding.
 */
struct policy *policy_new(void);
void policy_free(struct policy *p);
struct policy_target *policy_add_target(struct policy *p, const char *name);
struct policy_op *policy_target_add_op(struct policy_target *t, const char *op,
				       const char *pattern, unsigned threads,
				       const uint64_t *sizes_bytes, size_t nsizes);
struct policy_curve *policy_op_add_curve(struct policy_op *op, const char *strategy);
struct policy_curve *policy_op_find_curve(const struct policy_op *op, const char *strategy);
/*
 * Within the bounds a loaded op has (POLICY_MAX_SIZES sizes,
 * POLICY_MAX_CURVES curves)?  An op built otherwise (a merge's union) is
 * held to them before the rule, whose scratch is sized by them, sees it.
 */
bool policy_op_within_limits(const struct policy_op *op);
/* Insert a size keeping the grid sorted; new cells are NAN.  Returns its index. */
int policy_op_insert_size(struct policy_op *op, uint64_t size_bytes);
int policy_op_size_index(const struct policy_op *op, uint64_t size_bytes);
int policy_cpu_add_feature(struct policy_cpu *cpu, const char *feature);
bool policy_cpu_has_feature(const struct policy_cpu *cpu, const char *feature);
/* Has any of t's ops a curve of this strategy? */
bool policy_target_has_curve(const struct policy_target *t, const char *strategy);
struct policy_op *policy_find_op(const struct policy_target *t, const char *op,
				 const char *pattern, unsigned threads);
struct policy_target *policy_find_target(const struct policy *p, const char *name);
/*
 * raw_samples.c: the samples behind a cell, as taken (--keep-samples).
 * policy_curve_set_raw() copies n of them into cell idx of c (of an op
 * of nsizes sizes), replacing any there, and makes samples[idx] n; n == 0
 * drops them and, once no cell has any, the array.  policy_drop_raw()
 * drops every curve's and says whether there were any.
 */
int policy_curve_set_raw(struct policy_curve *c, size_t nsizes, size_t idx,
			 const double *v_mib_s, unsigned n);
bool policy_drop_raw(struct policy *p);
bool policy_op_has_raw(const struct policy_op *op);
/*
 * A policy file holds throughputs to 0.1 MiB/s: policy_mib_s_as_saved()
 * rounds a figure to what the file keeps, so that every decision is made
 * from the numbers the file holds (rule/samples.h).
 */
#define POLICY_SAVED_MIB_S_STEP 0.1
double policy_mib_s_as_saved(double mib_s);
/*
 * After a second look at some curves of op at size i (fresh[0..n), their
 * cells just replaced): a cell there that an earlier second look flagged
 * POLICY_CELL_REMEASURED was sampled in other rounds than the fresh ones,
 * which policy_paired_ratio() would pair on the flag alone.  Its samples
 * go; its summary, theirs, stays.  Returns how many cells lost theirs.
 */
size_t policy_op_unpair_earlier_looks(struct policy_op *op, size_t i,
				      const struct policy_curve *const *fresh, size_t n);

/* "streaming", "cached_flush", "fill"; policy_family_of() is -1 for another name. */
const char *policy_family_name(enum policy_family f);
int policy_family_of(const char *name);

/*
 * json.c: the JSON form (json-c), deterministic key order.
 * policy_load() and policy_parse() put one line naming the JSON path of
 * the bad value into err (errlen bytes) and return NULL with errno set.
 */
struct json_object;
struct json_object *policy_to_json(const struct policy *p);
struct policy *policy_from_json(struct json_object *root, char *err, size_t errlen);
struct policy *policy_parse(const char *text, size_t len, char *err, size_t errlen);
/* policy_load() reads a file of any owner and mode (POLICY_LOAD_INSECURE): the tools' own files. */
struct policy *policy_load(const char *path, char *err, size_t errlen);
/* Pretty, deterministic text; caller frees. */
char *policy_to_string(const struct policy *p);

/*
 * bundle.c: a fleet file holds one policy or a bundle of entries with
 * distinct fingerprints: {"schema": ..., "bundle": [POLICY, ...]}.  Both
 * load as a bundle (n >= 1).  Loading refuses a file owned by neither
 * root nor the reader, or writable by group or others (the daemon writes
 * kernel knobs from it), unless POLICY_LOAD_INSECURE is given.
 */
struct policy_bundle {
	size_t n;
	struct policy **entries;	/* owned */
};

#define POLICY_LOAD_INSECURE	(1u << 0)

struct policy_bundle *policy_bundle_new(void);
void policy_bundle_free(struct policy_bundle *b);
/*
 * Takes ownership of p on success; -EEXIST if an entry has its
 * fingerprint, or -ENOMEM, and p stays the caller's.
 */
int policy_bundle_add(struct policy_bundle *b, struct policy *p);
struct policy_bundle *policy_bundle_parse(const char *text, size_t len, char *err,
					  size_t errlen);
struct policy_bundle *policy_bundle_load(const char *path, unsigned flags, char *err,
					 size_t errlen);
/* The entry for fingerprint fp, NULL if none. */
struct policy *policy_bundle_find(const struct policy_bundle *b, const char *fp);
/* One entry prints as a plain policy, more as a bundle; caller frees. */
char *policy_bundle_to_string(const struct policy_bundle *b);
/* policy_save() for a bundle. */
int policy_bundle_save(const struct policy_bundle *b, const char *path, char *err, size_t errlen);
/*
 * Whether b, as written, is within what every reader takes (the file's
 * size, each entry's, the host ids: pmem-policy.json(5) LIMITS): 0, or
 * -EFBIG / -E2BIG with one line in err naming the bound.
 */
int policy_bundle_check(const struct policy_bundle *b, char *err, size_t errlen);
/* Deep copy (merge works on copies of its inputs). */
struct policy *policy_dup(const struct policy *p);

/* size.c: "4096", "64K", "512M", "1GiB", "0x4041" -> bytes; -EINVAL otherwise. */
int policy_parse_size(const char *s, uint64_t *bytes);
/* In the largest unit that divides it: "64", "1536", "4K", "16M", "inf" (POLICY_SIZE_OPEN) */
void policy_format_size(uint64_t bytes, char *buf, size_t len);
/* The same for labels and prose: "64 B", "4 KiB", "16 MiB", "inf"; returns buf */
const char *policy_format_bytes(uint64_t bytes, char *buf, size_t len);

/*
 * save.c: atomically (temp file beside path, fsync, rename, fsync dir),
 * and only a text that policy_bundle_parse() takes back: path is left
 * as it was on any error.  Returns 0; -EFBIG for a text beyond what a
 * reader takes (a policy over 8 MiB, its host ids aside, or a bundle
 * beyond its bounds: policy_bundle_check()); -EINVAL for one the reader
 * refuses for its content; -ENOMEM; or the write's error.  One line in
 * err (errlen bytes; NULL for none) names the bound, the field or the
 * write's error.  policy_save_shedding_raw() then drops the raw samples
 * (--keep-samples) on -EFBIG and writes the rest, setting *raw_dropped:
 * a probe's measurements are worth more than their samples.
 */
int policy_save(const struct policy *p, const char *path, char *err, size_t errlen);
int policy_save_shedding_raw(struct policy *p, const char *path, bool *raw_dropped, char *err,
			     size_t errlen);

#endif /* PMEM_POLICY_H */
