/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the probe writes: a mapped destination area that it owns for the
 * duration of the probe.  Specs: "dram", "file:PATH", "/dev/daxX.Y".
 * A file or device that already holds data is written only with
 * destroy_data; a file: target leaves nothing behind, however the probe
 * ends (a new or short file is measured on an unnamed one beside it).
 */
#ifndef PMEM_TUNE_TARGET_H
#define PMEM_TUNE_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct target_opts {
	uint64_t area_bytes;	/* 0: target_default_area(nthreads) */
	unsigned nthreads;	/* for the default area */
	bool destroy_data;	/* allow overwriting an existing file/device */
	bool bind;		/* dram: bind the area to node before touching it */
	int node;
};

struct target {
	char name[64];
	char kind[16];		/* "dram" | "file" | "devdax" */
	char device[256];	/* path, "" for dram */
	char mapping[16];	/* "anonymous" | "map_sync" | "shared" | "devdax" */
	char persistence_domain[64];
	void *base;		/* the area, 2 MiB aligned where possible */
	size_t len;		/* bytes usable at base */
	int node;		/* NUMA node of the area, -1 unknown */
	int target_node;	/* devdax: libdaxctl's target_node, else -1 */
	bool memory_bound;	/* dram: the area is mbind()-ed to node */
	/* private */
	void *map;
	size_t map_len;
	int fd;
};

/* The larger of the CPUID and the OS's last-level cache size (32 MiB if neither). */
uint64_t target_cache_bytes(uint64_t cpuid_llc_bytes);
/* Default destination area for nthreads threads: 64 MiB each, whatever the LLC. */
uint64_t target_default_area(unsigned nthreads);

/*
 * Is spec one target_open() takes ("dram", "file:PATH", "/dev/daxX.Y"),
 * by its form alone: checked before anything is measured.
 */
bool target_spec_known(const char *spec);
/*
 * Map the destination for spec.  On error returns negative errno with a
 * one-line reason in err naming the spec and the value at fault.
 */
int target_open(const char *spec, const struct target_opts *o, struct target *t, char *err,
		size_t errlen);
void target_close(struct target *t);

#endif
