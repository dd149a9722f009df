// SPDX-License-Identifier: GPL-2.0-or-later
/* Regions, namespaces and DIMMs through libndctl: names, identity, sizing. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <linux/ndctl.h>
#include <daxctl/libdaxctl.h>
#include <ndctl/libndctl.h>

#include "common/macros.h"
#include "platform/regions.h"

#define SZ_2M	(2ull << 20)
#define SZ_16M	(16ull << 20)

static void debug_log(struct ndctl_ctx *ctx, int priority, const char *file, int line,
		      const char *fn, const char *format, va_list args)
{
	fprintf(stderr, "pmem-tune: libndctl: %s: ", fn);
	vfprintf(stderr, format, args);
}

int regions_ctx_new(struct ndctl_ctx **ctx)
{
	int rc = ndctl_new(ctx);

	if (rc)
		return rc < 0 ? rc : -ENOMEM;
	/*
	 * libndctl prints its own errors by default; most are expected
	 * here (a seed that is not idle, an attribute an older kernel
	 * lacks) and the caller says what failed in its own words.
	 */
	if (getenv("PMEM_TUNE_DEBUG")) {
		ndctl_set_log_fn(*ctx, debug_log);
		ndctl_set_log_priority(*ctx, 7);
	} else {
		ndctl_set_log_priority(*ctx, 0);
	}
	return 0;
}

bool region_is_pmem(struct ndctl_region *region)
{
	return ndctl_region_get_type(region) == ND_DEVICE_REGION_PMEM;
}

bool region_is_label_less(struct ndctl_region *region)
{
	return ndctl_region_get_nstype(region) == ND_DEVICE_NAMESPACE_IO;
}

bool region_dimms_have_labels(struct ndctl_region *region)
{
	struct ndctl_dimm *dimm;
	unsigned n = 0;

	ndctl_dimm_foreach_in_region(region, dimm) {
		if (!ndctl_dimm_is_cmd_supported(dimm, ND_CMD_GET_CONFIG_SIZE) ||
		    !ndctl_dimm_is_cmd_supported(dimm, ND_CMD_GET_CONFIG_DATA) ||
		    !ndctl_dimm_is_cmd_supported(dimm, ND_CMD_SET_CONFIG_DATA))
			return false;
		n++;
	}
	return n > 0;
}

struct ndctl_region *region_find(struct ndctl_ctx *ctx, const char *name)
{
	struct ndctl_region *region;
	struct ndctl_bus *bus;

	ndctl_bus_foreach(ctx, bus)
		ndctl_region_foreach(bus, region)
			if (strcmp(ndctl_region_get_devname(region), name) == 0)
				return region;
	return NULL;
}

/* libndctl's enums by the names we print and write, "unknown" for the rest */
struct enum_name {
	int value;
	const char *name;
};

static const struct enum_name pd_names[] = {
	{ PERSISTENCE_CPU_CACHE, "cpu_cache" },
	{ PERSISTENCE_MEM_CTRL, "memory_controller" },
	{ PERSISTENCE_NONE, "none" },
};

static const struct enum_name mode_names[] = {
	{ NDCTL_NS_MODE_FSDAX, "fsdax" },
	{ NDCTL_NS_MODE_DEVDAX, "devdax" },
	{ NDCTL_NS_MODE_SECTOR, "sector" },
	{ NDCTL_NS_MODE_RAW, "raw" },
};

static const char *enum_name(const struct enum_name *names, size_t n, int value)
{
	for (size_t i = 0; i < n; i++)
		if (names[i].value == value)
			return names[i].name;
	return "unknown";
}

const char *region_pd_name(enum ndctl_persistence_domain pd)
{
	return enum_name(pd_names, ARRAY_SIZE(pd_names), pd);
}

uint64_t region_free_extent(struct ndctl_region *region)
{
	unsigned long long extent;

	if (region_is_label_less(region))
		return 0;
	extent = ndctl_region_get_max_available_extent(region);
	if (extent == ULLONG_MAX)
		extent = ndctl_region_get_available_size(region);
	return extent == ULLONG_MAX ? 0 : extent;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

uint64_t region_size_align(struct ndctl_region *region, uint64_t dev_align)
{
	unsigned long ralign = ndctl_region_get_align(region);
	uint64_t ways = ndctl_region_get_interleave_ways(region);
	uint64_t a, b;

	/* older kernels have no align attribute: their fixed 16 MiB */
	a = ralign == ULONG_MAX || !ralign ? SZ_16M : ralign;
	b = (dev_align ? dev_align : SZ_2M) * ways;
	return a / gcd64(a, b) * b;
}

static void hex16(char *out, unsigned short v)
{
	/* libndctl's "not reported" is all ones, as fingerprint.c's "unknown" */
	if (v == USHRT_MAX)
		snprintf(out, POLICY_NAME_MAX, "unknown");
	else
		snprintf(out, POLICY_NAME_MAX, "0x%04x", v);
}

void region_dimm_identity(struct ndctl_dimm *dimm, struct policy_dimm *d)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", ndctl_dimm_get_devname(dimm));
	hex16(d->vendor, ndctl_dimm_get_vendor(dimm));
	hex16(d->device, ndctl_dimm_get_device(dimm));
	/*
	 * The running firmware version needs a DSM most platforms (and
	 * qemu) do not implement; the NFIT revision id stands in, as in
	 * the fingerprint.
	 */
	hex16(d->firmware, ndctl_dimm_get_revision(dimm));
}

void region_identity_fill(struct ndctl_region *region, struct region_identity *id)
{
	struct ndctl_mapping *mapping;

	memset(id, 0, sizeof(*id));
	snprintf(id->region, sizeof(id->region), "%s", ndctl_region_get_devname(region));
	snprintf(id->persistence_domain, sizeof(id->persistence_domain), "%s",
		 region_pd_name(ndctl_region_get_persistence_domain(region)));
	id->numa_node = ndctl_region_has_numa(region) ? ndctl_region_get_numa_node(region) : -1;
	if (id->numa_node < 0)
		id->numa_node = -1;
	id->target_node = ndctl_region_get_target_node(region);
	if (id->target_node < 0)
		id->target_node = -1;
	/* the mappings count, like the fingerprint: 0 means not known */
	id->interleave_ways = ndctl_region_get_mappings(region);
	ndctl_mapping_foreach(region, mapping) {
		struct ndctl_dimm *dimm = ndctl_mapping_get_dimm(mapping);

		if (!dimm || id->ndimms >= REGION_MAX_DIMMS)
			continue;
		region_dimm_identity(dimm, &id->dimms[id->ndimms++]);
	}
}

const char *namespace_mode_name(enum ndctl_namespace_mode mode)
{
	return enum_name(mode_names, ARRAY_SIZE(mode_names), mode);
}

bool namespace_is_configured(struct ndctl_namespace *ndns)
{
	unsigned long long size = ndctl_namespace_get_size(ndns);

	return ndctl_namespace_is_active(ndns) || (size > 0 && size < ULLONG_MAX);
}

uint64_t namespace_usable_size(struct ndctl_namespace *ndns)
{
	struct ndctl_pfn *pfn = ndctl_namespace_get_pfn(ndns);
	struct ndctl_dax *dax = ndctl_namespace_get_dax(ndns);
	struct ndctl_btt *btt = ndctl_namespace_get_btt(ndns);
	unsigned long long size;

	if (dax)
		size = ndctl_dax_get_size(dax);
	else if (pfn)
		size = ndctl_pfn_get_size(pfn);
	else if (btt)
		size = ndctl_btt_get_size(btt);
	else
		size = ndctl_namespace_get_size(ndns);
	return size == ULLONG_MAX ? 0 : size;
}

void namespace_device(struct ndctl_namespace *ndns, char *buf, size_t len)
{
	struct ndctl_pfn *pfn = ndctl_namespace_get_pfn(ndns);
	struct ndctl_dax *dax = ndctl_namespace_get_dax(ndns);
	struct ndctl_btt *btt = ndctl_namespace_get_btt(ndns);
	const char *name = NULL;

	buf[0] = '\0';
	if (dax) {
		struct daxctl_region *dr = ndctl_dax_is_enabled(dax) ?
			ndctl_dax_get_daxctl_region(dax) : NULL;
		struct daxctl_dev *dev = dr ? daxctl_dev_get_first(dr) : NULL;

		name = dev ? daxctl_dev_get_devname(dev) : NULL;
	} else if (pfn) {
		name = ndctl_pfn_is_enabled(pfn) ? ndctl_pfn_get_block_device(pfn) : NULL;
	} else if (btt) {
		name = ndctl_btt_is_enabled(btt) ? ndctl_btt_get_block_device(btt) : NULL;
	} else if (ndctl_namespace_is_enabled(ndns)) {
		name = ndctl_namespace_get_block_device(ndns);
	}
	if (name)
		snprintf(buf, len, "%s", name);
}

void namespace_label_uuid(struct ndctl_namespace *ndns, char out[REGION_UUID_STR_LEN])
{
	uuid_t uu;

	out[0] = '\0';
	if (ndctl_namespace_get_type(ndns) == ND_DEVICE_NAMESPACE_IO)
		return;
	ndctl_namespace_get_uuid(ndns, uu);
	if (!region_uuid_is_null(uu))
		region_uuid_unparse(uu, out);
}

void namespace_display_uuid(struct ndctl_namespace *ndns, char out[REGION_UUID_STR_LEN])
{
	struct ndctl_pfn *pfn = ndctl_namespace_get_pfn(ndns);
	struct ndctl_dax *dax = ndctl_namespace_get_dax(ndns);
	struct ndctl_btt *btt = ndctl_namespace_get_btt(ndns);
	uuid_t uu;

	if (dax)
		ndctl_dax_get_uuid(dax, uu);
	else if (pfn)
		ndctl_pfn_get_uuid(pfn, uu);
	else if (btt)
		ndctl_btt_get_uuid(btt, uu);
	else {
		namespace_label_uuid(ndns, out);
		return;
	}
	out[0] = '\0';
	if (!region_uuid_is_null(uu))
		region_uuid_unparse(uu, out);
}

void region_uuid_unparse(const unsigned char uu[16], char out[REGION_UUID_STR_LEN])
{
	char *p = out;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		p += sprintf(p, "%02x", uu[i]);
	}
	*p = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int region_uuid_parse(const char *s, unsigned char uu[16])
{
	int n = 0;

	if (!s || strlen(s) != 36)
		return -EINVAL;
	for (int i = 0; i < 36; i++) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -EINVAL;
			continue;
		}
		hi = hexval(s[i]);
		lo = hexval(s[++i]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		uu[n++] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

bool region_uuid_is_null(const unsigned char uu[16])
{
	for (int i = 0; i < 16; i++)
		if (uu[i])
			return false;
	return true;
}

int region_uuid_generate(unsigned char uu[16])
{
	size_t got = 0;

	while (got < 16) {
		ssize_t n = getrandom(uu + got, 16 - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	uu[6] = (uu[6] & 0x0f) | 0x40;	/* version 4 */
	uu[8] = (uu[8] & 0x3f) | 0x80;	/* RFC 4122 variant */
	return 0;
}

/*
 * devdax and fsdax keep the memmap on the device by default (map=dev,
 * as ndctl does): 64 bytes of struct page per 4 KiB page, 1/64, plus the
 * info block padded to the device alignment.  4 MiB covers the padding
 * for a 2 MiB alignment; a 256 MiB namespace leaves about 250 MiB.
 */
#define META_PAD (4ull << 20)

uint64_t region_scratch_usable(uint64_t ns_bytes)
{
	uint64_t meta = ns_bytes / 64 + META_PAD;

	return ns_bytes > meta ? (ns_bytes - meta) & ~(SZ_2M - 1) : 0;
}

uint64_t region_scratch_size(uint64_t want_usable, uint64_t llc_bytes, uint64_t extent,
			     uint64_t align)
{
	uint64_t want = want_usable, ns, cap;

	if (!align)
		align = SZ_16M;
	if (!want) {
		want = 4 * llc_bytes;
		if (want < REGION_MIN_SCRATCH)
			want = REGION_MIN_SCRATCH;
	}
	/* usable = ns - ns/64 - pad  =>  ns = (usable + pad) * 64 / 63 */
	if (want > (UINT64_MAX - META_PAD) / 64 - align)
		return 0;
	ns = ((want + META_PAD) * 64 + 62) / 63;
	ns = (ns + align - 1) / align * align;
	cap = extent / align * align;
	if (ns > cap)
		ns = cap;
	if (region_scratch_usable(ns) < REGION_MIN_SCRATCH)
		return 0;
	return ns;
}
