// SPDX-License-Identifier: GPL-2.0-or-later
/* Destination areas the probe writes: anonymous DRAM, a file, a devdax device. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <daxctl/libdaxctl.h>

#include "common/macros.h"
#include "common/proc_kb.h"
#include "measure/constants.h"
#include "measure/target.h"
#include "platform/topology.h"

#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif

#define SZ_2M (2ull << 20)

/*
 * The sweep drops what it wrote from the caches after each batch, so the
 * area need not dwarf the LLC (4 x a 480 MiB L3 was 1.9 GiB to fault in
 * and walk): its size depends on the threads only.
 */
uint64_t target_default_area(unsigned nthreads)
{
	uint64_t a = AREA_PER_THREAD * (nthreads ? nthreads : 1);

	return a < MIN_AREA ? MIN_AREA : a;
}

/*
 * The cache the destination area must dwarf.  CPUID gives the L3 one
 * core can fill (a core complex's on AMD); the OS may report the whole
 * socket's, which threads on several complexes do fill together.  The
 * larger keeps every thread's destinations cold.
 */
uint64_t target_cache_bytes(uint64_t cpuid_llc_bytes)
{
	long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
	uint64_t c = cpuid_llc_bytes;

	if (l3 > 0 && (uint64_t)l3 > c)
		c = (uint64_t)l3;
	return c ? c : 32u << 20;
}

static uint64_t mem_available_bytes(void)
{
	return proc_kb("/proc/meminfo", "MemAvailable") * 1024;
}

/* Reserve len + align of address space and return the aligned start. */
static void *reserve_aligned(size_t len, size_t align, void **map, size_t *map_len)
{
	size_t total = len + align;
	char *p = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	*map = p;
	*map_len = total;
	return (void *)a;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * Fault every page in now, so that no page fault lands in a timed copy:
 * in one call where the kernel can (5.14+), else by touching each page.
 */
static void prefault(void *base, size_t len)
{
	volatile char *p = base;

	if (!madvise(base, len, MADV_POPULATE_WRITE))
		return;
	for (size_t off = 0; off < len; off += 4096)
		p[off] = 0;
}

static int open_dram(const char *spec __attribute__((unused)), const struct target_opts *o,
		     struct target *t, char *err, size_t errlen)
{
	uint64_t want = o->area_bytes ? o->area_bytes : target_default_area(o->nthreads);
	uint64_t avail = mem_available_bytes();
	void *base;

	/* leave the machine at least half of what it has available */
	if (avail && want > avail / 2) {
		uint64_t cap = (avail / 2) & ~(SZ_2M - 1);

		if (o->area_bytes || cap < MIN_AREA) {
			snprintf(err, errlen,
				 "dram: a %" PRIu64 " MiB area does not fit in half of the %" PRIu64
				 " MiB available memory", want >> 20, avail >> 20);
			return -ENOMEM;
		}
		fprintf(stderr, "pmem-tune: dram: area capped at %" PRIu64
			" MiB (half the available memory)\n", cap >> 20);
		want = cap;
	}
	base = reserve_aligned(want, SZ_2M, &t->map, &t->map_len);
	if (!base || mmap(base, want, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		int e = errno;

		if (t->map)
			munmap(t->map, t->map_len);
		t->map = NULL;
		snprintf(err, errlen, "dram: cannot map %" PRIu64 " MiB: %s", want >> 20,
			 strerror(e));
		return -e;
	}
	/* huge pages keep TLB misses out of the timings; best effort */
	madvise(base, want, MADV_HUGEPAGE);
	/*
	 * Before the first touch: else the pages land wherever the main
	 * thread runs now.  A kernel without NUMA or a cpuset says no; the
	 * policy then records memory_bound false.
	 */
	if (o->bind && o->node >= 0 && !topo_bind_area(base, want, o->node)) {
		t->node = o->node;
		t->memory_bound = true;
	}
	prefault(base, want);
	t->base = base;
	t->len = want;
	snprintf(t->name, sizeof(t->name), "dram");
	snprintf(t->kind, sizeof(t->kind), "dram");
	snprintf(t->mapping, sizeof(t->mapping), "anonymous");
	/* volatile: the flushes are measured as they would cost on pmem */
	snprintf(t->persistence_domain, sizeof(t->persistence_domain), "none");
	return 0;
}

static int map_shared_file(struct target *t, size_t len, char *err, size_t errlen)
{
	void *base = reserve_aligned(len, SZ_2M, &t->map, &t->map_len);

	if (!base)
		goto fail;
	/* MAP_SYNC is refused unless the file is on a DAX filesystem */
	if (mmap(base, len, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC | MAP_FIXED,
		 t->fd, 0) != MAP_FAILED) {
		snprintf(t->mapping, sizeof(t->mapping), "map_sync");
	} else if (errno == EOPNOTSUPP || errno == EINVAL) {
		if (mmap(base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, t->fd, 0) ==
		    MAP_FAILED)
			goto fail;
		snprintf(t->mapping, sizeof(t->mapping), "shared");
	} else {
		goto fail;
	}
	t->base = base;
	t->len = len;
	return 0;
fail:
	{
		int e = errno;

		if (t->map)
			munmap(t->map, t->map_len);
		t->map = NULL;
		snprintf(err, errlen, "%s: cannot map %zu bytes: %s", t->device, len, strerror(e));
		return -e;
	}
}

/*
 * A file in dir with no name, so that nothing is left whatever ends the
 * probe (a SIGKILL included): O_TMPFILE, or where the filesystem refuses
 * it, a file created and unlinked at once, before anything is allocated.
 */
static int open_unnamed(const char *path, char *err, size_t errlen)
{
	char dir[4096], tmpl[4096 + 32];
	const char *slash = strrchr(path, '/');
	int fd, e;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	/* O_EXCL: it can never be linked into the directory either */
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	e = errno;
	if (e != EOPNOTSUPP && e != EISDIR && e != EINVAL) {
		snprintf(err, errlen, "file:%s: cannot create a file in %s: %s", path, dir,
			 strerror(e));
		return -e;
	}
	snprintf(tmpl, sizeof(tmpl), "%s/.pmem-tune-probe.XXXXXX", dir);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "file:%s: cannot create a file in %s: %s", path, dir,
			 strerror(e));
		return -e;
	}
	unlink(tmpl);
	return fd;
}

/*
 * file:PATH.  Nothing the probe does to a file outlives it, however it
 * ends: a path that does not exist, or an existing file shorter than
 * the area, is measured on an unnamed file in the same directory (same
 * filesystem, same mount options); an existing file at least as big is
 * used in place with --destroy-data only, and never resized.  The target
 * still describes PATH, the path the user gave.
 */
static int open_file(const char *path, const struct target_opts *o, struct target *t, char *err,
		     size_t errlen)
{
	uint64_t want = o->area_bytes ? o->area_bytes : target_default_area(o->nthreads);
	struct stat st;
	int rc;

	if (!path[0]) {
		snprintf(err, errlen, "file:: a path is needed after 'file:'");
		return -EINVAL;
	}
	snprintf(t->device, sizeof(t->device), "%s", path);
	snprintf(t->name, sizeof(t->name), "file");
	snprintf(t->kind, sizeof(t->kind), "file");
	snprintf(t->persistence_domain, sizeof(t->persistence_domain), "unknown");
	if (lstat(path, &st)) {
		rc = -errno;
		if (rc != -ENOENT) {
			snprintf(err, errlen, "file:%s: %s", path, strerror(-rc));
			return rc;
		}
		t->fd = open_unnamed(path, err, errlen);
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "file:%s: not a regular file", path);
		return -EINVAL;
	} else if ((uint64_t)st.st_size < want) {
		/* growing it would outlive a killed probe: its data stays as it is */
		fprintf(stderr, "pmem-tune: file:%s: %lld bytes, less than the %" PRIu64 " MiB "
			"area: measuring on an unnamed file in its directory, the file untouched\n",
			path, (long long)st.st_size, want >> 20);
		t->fd = open_unnamed(path, err, errlen);
	} else if (!o->destroy_data) {
		snprintf(err, errlen,
			 "file:%s: holds %lld bytes of data; pass --destroy-data to "
			 "overwrite it, or name a file that does not exist",
			 path, (long long)st.st_size);
		return -EEXIST;
	} else {
		t->fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (t->fd < 0 || fstat(t->fd, &st)) {
			rc = -errno;
			snprintf(err, errlen, "file:%s: %s", path, strerror(-rc));
			return rc;
		}
		/* replaced since lstat(): decide again rather than resize */
		if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < want) {
			snprintf(err, errlen, "file:%s: changed while being opened", path);
			return -EAGAIN;
		}
	}
	if (t->fd < 0) {
		rc = t->fd;
		t->fd = -1;
		return rc;
	}
	/* allocate every block now, so no timed store waits for the filesystem */
	rc = posix_fallocate(t->fd, 0, (off_t)want);
	if (rc) {
		snprintf(err, errlen, "file:%s: cannot allocate %" PRIu64 " MiB: %s", path,
			 want >> 20, strerror(rc));
		return -rc;
	}
	rc = map_shared_file(t, want, err, errlen);
	if (rc)
		return rc;
	prefault(t->base, t->len);
	return 0;
}

/* Size and alignment of a devdax device from libdaxctl. */
static int devdax_geometry(const char *devname, uint64_t *size, uint64_t *align, int *node)
{
	struct daxctl_region *region;
	struct daxctl_ctx *ctx;
	struct daxctl_dev *dev;
	int rc = -ENODEV;

	if (daxctl_new(&ctx))
		return -ENOMEM;
	daxctl_region_foreach(ctx, region)
		daxctl_dev_foreach(region, dev) {
			if (strcmp(daxctl_dev_get_devname(dev), devname))
				continue;
			*size = daxctl_dev_get_size(dev);
			*align = daxctl_dev_get_align(dev);
			*node = daxctl_dev_get_target_node(dev);
			if (!*align)
				*align = daxctl_region_get_align(region);
			rc = 0;
		}
	daxctl_unref(ctx);
	return rc;
}

static int open_devdax(const char *path, const struct target_opts *o, struct target *t,
		       char *err, size_t errlen)
{
	const char *devname = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	uint64_t size = 0, align = 0, want;
	struct stat st;
	void *base;
	int rc;

	snprintf(t->device, sizeof(t->device), "%s", path);
	snprintf(t->name, sizeof(t->name), "%s", devname);
	snprintf(t->kind, sizeof(t->kind), "devdax");
	snprintf(t->mapping, sizeof(t->mapping), "devdax");
	snprintf(t->persistence_domain, sizeof(t->persistence_domain), "unknown");
	if (stat(path, &st) || !S_ISCHR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a devdax character device", path);
		return -ENODEV;
	}
	rc = devdax_geometry(devname, &size, &align, &t->target_node);
	if (rc) {
		snprintf(err, errlen, "%s: libdaxctl does not know device %s", path, devname);
		return rc;
	}
	if (!o->destroy_data) {
		snprintf(err, errlen, "%s: probing overwrites the device's data; pass "
			 "--destroy-data to allow it", path);
		return -EPERM;
	}
	if (!align || (align & (align - 1)))
		align = SZ_2M;
	want = o->area_bytes ? o->area_bytes : target_default_area(o->nthreads);
	want = want > size ? size : want;
	want &= ~(align - 1);
	if (want < MIN_AREA) {
		snprintf(err, errlen, "%s: %" PRIu64 " MiB usable, the probe needs at least "
			 "%llu MiB", path, want >> 20, MIN_AREA >> 20);
		return -ENOSPC;
	}
	t->fd = open(path, O_RDWR | O_CLOEXEC);
	if (t->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	/* a devdax mapping must be aligned to the device's alignment */
	base = reserve_aligned(want, align, &t->map, &t->map_len);
	if (!base || mmap(base, want, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, t->fd, 0) ==
			     MAP_FAILED) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot map %" PRIu64 " MiB aligned to %" PRIu64 ": %s",
			 path, want >> 20, align, strerror(-rc));
		return rc;
	}
	t->base = base;
	t->len = want;
	prefault(t->base, t->len);
	return 0;
}

/*
 * The targets a spec names: "dram" as a whole, a file by "file:" and its
 * path (the opener is given the path), a devdax node by its own path.
 */
static const struct {
	const char *prefix;
	bool whole;		/* the prefix is the whole spec */
	size_t skip;		/* what of the spec the opener is not given */
	int (*open)(const char *spec, const struct target_opts *o, struct target *t, char *err,
		    size_t errlen);
} target_specs[] = {
	{ "dram", true, 0, open_dram },
	{ "file:", false, 5, open_file },
	{ "/dev/dax", false, 0, open_devdax },
};

static size_t target_kind(const char *spec)
{
	size_t k;

	for (k = 0; k < ARRAY_SIZE(target_specs); k++) {
		const char *prefix = target_specs[k].prefix;

		if (target_specs[k].whole ? !strcmp(spec, prefix) :
					    !strncmp(spec, prefix, strlen(prefix)))
			break;
	}
	return k;
}

bool target_spec_known(const char *spec)
{
	size_t k = target_kind(spec);

	/* a prefix with nothing after it names no file and no device */
	return k < ARRAY_SIZE(target_specs) &&
	       (target_specs[k].whole || spec[strlen(target_specs[k].prefix)]);
}

int target_open(const char *spec, const struct target_opts *o, struct target *t, char *err,
		size_t errlen)
{
	int rc = -EINVAL;
	size_t k;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->node = -1;
	t->target_node = -1;
	k = target_kind(spec);
	if (k < ARRAY_SIZE(target_specs))
		rc = target_specs[k].open(spec + target_specs[k].skip, o, t, err, errlen);
	else
		snprintf(err, errlen, "unknown target '%s' (dram, file:PATH, /dev/daxX.Y)", spec);
	if (rc)
		target_close(t);
	return rc;
}

void target_close(struct target *t)
{
	if (t->map)
		munmap(t->map, t->map_len);
	t->map = NULL;
	t->base = NULL;
	if (t->fd >= 0) {
		close(t->fd);
		t->fd = -1;
	}
}
