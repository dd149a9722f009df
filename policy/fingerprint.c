// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The platform fingerprint.  The canonical text, one "key=value" a line:
 *
 *   schema=pmem-fingerprint/1
 *   cpu.vendor=GenuineIntel
 *   cpu.family=6
 *   cpu.model=85
 *   cpu.stepping=7
 *
 * then, for every target of kind "pmem" or "devdax", a block
 *
 *   target.persistence_domain=memory_controller
 *   target.interleave_ways=6
 *   target.dimm.vendor=0x8089	(three lines per DIMM)
 *   target.dimm.device=0x097a
 *   target.dimm.firmware=0x0101
 *
 * DIMMs sorted by their three lines, blocks sorted by their whole text.
 * Sorting the identity itself, not names or positions, is what makes two
 * identical hosts agree when one enumerated its regions or DIMMs in
 * another order (region0 <-> region1, nmem3 first).  Names, serials,
 * sizes, NUMA nodes, hostnames, kernel and microcode never enter it.
 * Changing any of this text changes every fingerprint in a fleet: bump
 * the schema line when doing so.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/macros.h"
#include "common/nd_region.h"
#include "common/parse.h"
#include "common/read_file.h"
#include "common/sysfs_attr.h"
#include "common/text.h"
#include "policy/cxl_sysfs.h"
#include "policy/fingerprint.h"
#include "policy/policy_internal.h"
#include "policy/policy_limits.h"
#include "policy/sha256.h"

#define FINGERPRINT_SCHEMA	"pmem-fingerprint/1"
#define ND_DEVICES		ND_DEVICES_DIR

/* A growable string; an allocation failure sticks and is reported once at the end. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *ns;

		while (cap < b->len + n + 1)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (!ns) {
			b->oom = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* Hands the string over (never NULL unless out of memory). */
static char *sb_take(struct sbuf *b)
{
	if (!b->oom && !b->s)
		sb_add(b, "", 0);
	if (b->oom) {
		free(b->s);
		b->s = NULL;
	}
	return b->s;
}

/*
 * key=value and a newline.  Control bytes and '\' in values are escaped,
 * so that a value read from a file or a policy can never forge a line
 * or make two different identities hash the same.  An empty value and
 * "unknown" state the same fact and are written the same.
 */
static void sb_line(struct sbuf *b, const char *key, const char *value)
{
	sb_puts(b, key);
	sb_add(b, "=", 1);
	if (!*value)
		value = "unknown";
	for (const unsigned char *c = (const unsigned char *)value; *c; c++) {
		char esc[5];

		if (*c < 0x20 || *c == 0x7f || *c == '\\') {
			snprintf(esc, sizeof(esc), "\\x%02x", *c);
			sb_puts(b, esc);
		} else {
			sb_add(b, (const char *)c, 1);
		}
	}
	sb_add(b, "\n", 1);
}

static void sb_line_uint(struct sbuf *b, const char *key, unsigned v)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", v);
	sb_line(b, key, num);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Sorts v and appends it to b. */
static void sb_sorted(struct sbuf *b, char **v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		sb_puts(b, v[i]);
}

static char *dimm_text(const struct policy_dimm *d)
{
	struct sbuf b = { 0 };

	sb_line(&b, "target.dimm.vendor", d->vendor);
	sb_line(&b, "target.dimm.device", d->device);
	sb_line(&b, "target.dimm.firmware", d->firmware);
	return sb_take(&b);
}

static char *target_text(const struct policy_target *t)
{
	struct sbuf b = { 0 };
	char **dimms = calloc(t->ndimms ? t->ndimms : 1, sizeof(*dimms));

	if (!dimms)
		return NULL;
	sb_line(&b, "target.persistence_domain", t->persistence_domain);
	sb_line_uint(&b, "target.interleave_ways", t->interleave_ways);
	for (size_t i = 0; i < t->ndimms; i++) {
		dimms[i] = dimm_text(&t->dimms[i]);
		if (!dimms[i])
			b.oom = true;
	}
	if (!b.oom)
		sb_sorted(&b, dimms, t->ndimms);
	free_strs(dimms, t->ndimms);
	/* only a CXL target has these lines: no other fingerprint changes */
	if (t->cxl.present) {
		char cxl[POLICY_MAX_CXL_MEMDEVS * 512 + 256];

		if (cxl_fingerprint_lines(&t->cxl, cxl, sizeof(cxl)))
			b.oom = true;
		else
			sb_puts(&b, cxl);
	}
	return sb_take(&b);
}

/* dram and file targets say nothing about the platform's persistent memory */
static bool in_fingerprint(const struct policy_target *t)
{
	return strcmp(t->kind, "pmem") == 0 || strcmp(t->kind, "devdax") == 0;
}

char *fingerprint_canonical(const struct policy *p)
{
	const struct policy_cpu *c;
	struct sbuf b = { 0 };
	size_t n = 0;
	char **blocks;

	if (!p) {
		errno = EINVAL;
		return NULL;
	}
	c = &p->platform.cpu;
	blocks = calloc(p->ntargets ? p->ntargets : 1, sizeof(*blocks));
	if (!blocks)
		return NULL;
	sb_line(&b, "schema", FINGERPRINT_SCHEMA);
	sb_line(&b, "cpu.vendor", c->vendor);
	sb_line_uint(&b, "cpu.family", c->family);
	sb_line_uint(&b, "cpu.model", c->model);
	sb_line_uint(&b, "cpu.stepping", c->stepping);
	for (size_t i = 0; i < p->ntargets; i++) {
		if (!in_fingerprint(&p->targets[i]))
			continue;
		blocks[n] = target_text(&p->targets[i]);
		if (!blocks[n++])
			b.oom = true;
	}
	if (!b.oom)
		sb_sorted(&b, blocks, n);
	free_strs(blocks, n);
	if (b.oom) {
		free(b.s);
		errno = ENOMEM;
		return NULL;
	}
	return sb_take(&b);
}

int fingerprint_compute(const struct policy *p, char out[FINGERPRINT_LEN])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t d[SHA256_DIGEST_LEN];
	char *text = fingerprint_canonical(p);
	char *o = out;

	if (!text)
		return p ? -ENOMEM : -EINVAL;
	sha256(text, strlen(text), d);
	free(text);
	o += sprintf(o, "sha256:");
	for (size_t i = 0; i < sizeof(d); i++) {
		*o++ = hex[d[i] >> 4];
		*o++ = hex[d[i] & 15];
	}
	*o = '\0';
	return 0;
}

/* ---- fingerprint_host: the identity from procfs and sysfs ---- */

static unsigned parse_uint_or0(const char *s)
{
	uint64_t v;

	return parse_u64_dec(s, &v) == 0 && v <= UINT_MAX ? (unsigned)v : 0;
}

/* "39424 KB" (cpuinfo) or "32768K" (sysfs cache size): bytes, 0 if not a size */
static uint64_t parse_cache_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		return 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return 0;
	end = strtrim(end);
	switch (toupper((unsigned char)*end)) {
	case 'K':
		return (uint64_t)v << 10;
	case 'M':
		return (uint64_t)v << 20;
	case '\0':
		return v;
	default:
		return 0;
	}
}

/* The flags that choose between copy strategies; the rest is noise here. */
static const char *const copy_flags[] = {
	"sse2", "avx", "avx2", "avx512f", "clflush", "clflushopt", "clwb",
	"movdir64b", "erms", "fsrm",
};

static int add_flags(struct policy_cpu *cpu, char *flags)
{
	char *save = NULL;

	for (char *f = strtok_r(flags, " \t", &save); f; f = strtok_r(NULL, " \t", &save))
		for (size_t i = 0; i < ARRAY_SIZE(copy_flags); i++)
			if (strcmp(f, copy_flags[i]) == 0) {
				int rc = policy_cpu_add_feature(cpu, f);

				if (rc)
					return rc;
			}
	return 0;
}

/*
 * The first processor's block of /proc/cpuinfo: a mixed-stepping
 * machine is not something a fingerprint can describe anyway, and the
 * probe reads the CPU it runs on.  *cache_size gets "cache size", which
 * is the L3 on Intel but the per-core L2 on AMD (see llc_from_sysfs).
 */
static int read_cpuinfo(const char *pre, struct policy_cpu *cpu, uint64_t *cache_size)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	bool seen = false;
	int rc = 0;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/proc/cpuinfo", pre) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	for (;;) {
		char *colon, *key, *val;

		errno = 0;
		if (getline(&line, &cap, f) < 0) {
			if (ferror(f))
				rc = errno ? -errno : -EIO;
			break;
		}
		colon = strchr(line, ':');
		if (!colon) {
			if (seen && *strtrim(line) == '\0')
				break;		/* end of the first processor */
			continue;
		}
		*colon = '\0';
		key = strtrim(line);
		val = strtrim(colon + 1);
		seen = true;
		if (strcmp(key, "vendor_id") == 0)
			snprintf(cpu->vendor, sizeof(cpu->vendor), "%s", val);
		else if (strcmp(key, "cpu family") == 0)
			cpu->family = parse_uint_or0(val);
		else if (strcmp(key, "model") == 0)
			cpu->model = parse_uint_or0(val);
		else if (strcmp(key, "stepping") == 0)
			cpu->stepping = parse_uint_or0(val);
		else if (strcmp(key, "microcode") == 0)
			snprintf(cpu->microcode, sizeof(cpu->microcode), "%s", val);
		else if (strcmp(key, "cache size") == 0)
			*cache_size = parse_cache_size(val);
		else if (strcmp(key, "flags") == 0 && (rc = add_flags(cpu, val)))
			break;
	}
	free(line);
	fclose(f);
	return rc;
}

/*
 * The largest data or unified cache of the highest level cpu0 reports
 * (drivers/base/cacheinfo.c: indexN/{level,type,size}), 0 if none.
 * Preferred over cpuinfo's "cache size", which is not the L3 on AMD.
 */
static uint64_t llc_from_sysfs(const char *pre)
{
	unsigned best_level = 0;
	uint64_t best = 0;

	for (int i = 0; i < 16; i++) {
		char level[16], type[32], size[32];
		unsigned lv;
		uint64_t sz;

		if (read_attrf(level, sizeof(level),
			       "%s/sys/devices/system/cpu/cpu0/cache/index%d/level", pre, i) ||
		    read_attrf(type, sizeof(type),
			       "%s/sys/devices/system/cpu/cpu0/cache/index%d/type", pre, i) ||
		    read_attrf(size, sizeof(size),
			       "%s/sys/devices/system/cpu/cpu0/cache/index%d/size", pre, i))
			continue;
		if (strcmp(type, "Data") != 0 && strcmp(type, "Unified") != 0)
			continue;
		lv = parse_uint_or0(level);
		sz = parse_cache_size(size);
		if (!lv || !sz)
			continue;
		if (lv > best_level || (lv == best_level && sz > best)) {
			best_level = lv;
			best = sz;
		}
	}
	return best;
}

static void read_kernel(const char *root, const char *pre, char *out, size_t size)
{
	struct utsname u;

	/* a test root brings its own release; the live system answers uname(2) */
	if (root && *root && read_attrf(out, size, "%s/proc/sys/kernel/osrelease", pre) == 0 &&
	    *out)
		return;
	if (uname(&u) == 0)
		snprintf(out, size, "%s", u.release);
	else
		snprintf(out, size, "unknown");
}

/* The kernel prints "cpu_cache", "memory_controller" or "" (or hides the file). */
static void read_persistence_domain(const char *dir, char *out, size_t size)
{
	char buf[64];

	if (read_attrf(buf, sizeof(buf), "%s/persistence_domain", dir) == 0 &&
	    (strcmp(buf, "cpu_cache") == 0 || strcmp(buf, "memory_controller") == 0))
		snprintf(out, size, "%s", buf);
	else
		snprintf(out, size, "unknown");
}

static int read_numa_node(const char *dir)
{
	char buf[32], *end;
	long v;

	if (read_attrf(buf, sizeof(buf), "%s/numa_node", dir))
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || *end || v < -1 || v > INT_MAX)
		return -1;
	return (int)v;
}

/* A device name from a mapping attribute, used in a path: no '/', no dot-dirs. */
static bool sane_dev_name(const char *s)
{
	if (!*s || *s == '.' || strlen(s) >= POLICY_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return false;
	return true;
}

/*
 * nmemX/nfit/{vendor,device,rev_id} (drivers/acpi/nfit/core.c, each
 * "0x%04x").  The kernel has no firmware version attribute: nmemX/
 * firmware/ holds only activate and result, the running version comes
 * from a DSM that needs the ioctl path.  rev_id, the revision the module
 * vendor assigns in the NFIT control region, stands in.  Never serial,
 * id or handle: those differ between identical hosts.
 */
static void read_dimm(const char *pre, struct policy_dimm *d)
{
	static const struct named_member fields[] = {
		{ "vendor", offsetof(struct policy_dimm, vendor) },
		{ "device", offsetof(struct policy_dimm, device) },
		{ "rev_id", offsetof(struct policy_dimm, firmware) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		char *out = (char *)d + fields[i].off;

		if (read_attrf(out, POLICY_NAME_MAX, "%s" ND_DEVICES "/%s/nfit/%s", pre, d->name,
			       fields[i].name) || !*out)
			snprintf(out, POLICY_NAME_MAX, "unknown");
	}
}

static struct policy_dimm *add_dimm(struct policy_target *t, const char *name)
{
	struct policy_dimm *nd = realloc(t->dimms, (t->ndimms + 1) * sizeof(*nd));

	if (!nd)
		return NULL;
	t->dimms = nd;
	nd = &t->dimms[t->ndimms++];
	memset(nd, 0, sizeof(*nd));
	snprintf(nd->name, sizeof(nd->name), "%.*s", (int)sizeof(nd->name) - 1, name);
	return nd;
}

/* mappingN: "nmemX,dpa_start,size,position" (position since v4.13; older kernels omit it) */
static int read_mappings(const char *pre, const char *dir, struct policy_target *t)
{
	/* the kernel exposes mapping0..mapping31; without "mappings" read until one is missing */
	unsigned n = t->interleave_ways ? t->interleave_ways : 32;

	for (unsigned i = 0; i < n && t->ndimms < POLICY_MAX_DIMMS; i++) {
		char buf[256], *comma;
		struct policy_dimm *d;

		if (read_attrf(buf, sizeof(buf), "%s/mapping%u", dir, i)) {
			if (t->interleave_ways)
				continue;
			break;
		}
		comma = strchr(buf, ',');
		if (comma)
			*comma = '\0';
		if (!sane_dev_name(buf))
			continue;
		d = add_dimm(t, buf);
		if (!d)
			return -ENOMEM;
		read_dimm(pre, d);
	}
	return 0;
}

static int add_region(const char *pre, const char *name, struct policy *p)
{
	char dir[PATH_MAX], buf[64];
	struct policy_target *t;
	struct stat st;
	int rc;

	if ((size_t)snprintf(dir, sizeof(dir), "%s" ND_DEVICES "/%s", pre, name) >= sizeof(dir))
		return 0;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || !nd_region_is_pmem(dir))
		return 0;
	t = policy_add_target(p, name);
	if (!t)
		return -ENOMEM;
	snprintf(t->kind, sizeof(t->kind), "pmem");
	read_persistence_domain(dir, t->persistence_domain, sizeof(t->persistence_domain));
	if (read_attrf(buf, sizeof(buf), "%s/mappings", dir) == 0)
		t->interleave_ways = parse_uint_or0(buf);
	t->numa_node = read_numa_node(dir);
	rc = cxl_identity_of_nd_region(pre, name, &t->cxl);
	if (rc && rc != -ENOENT)
		return rc;
	return read_mappings(pre, dir, t);
}

static int read_nd_bus(const char *pre, struct policy *p)
{
	char path[PATH_MAX];
	struct dirent **ents;
	int n, rc = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s" ND_DEVICES, pre) >= sizeof(path))
		return 0;
	n = scandir(path, &ents, nd_region_filter, versionsort);
	if (n < 0)
		return errno == ENOMEM ? -ENOMEM : 0;	/* no nd bus: no targets */
	for (int i = 0; i < n; i++) {
		if (!rc && p->ntargets < POLICY_MAX_TARGETS)
			rc = add_region(pre, ents[i]->d_name, p);
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int fingerprint_host(const char *root, struct policy *p)
{
	/* paths are pre + "/proc/...": "/" and "" both mean the live system */
	const char *pre = root && strcmp(root, "/") != 0 ? root : "";
	uint64_t cache_size = 0, llc;
	int rc;

	if (!p)
		return -EINVAL;
	rc = read_cpuinfo(pre, &p->platform.cpu, &cache_size);
	if (rc)
		return rc;
	llc = llc_from_sysfs(pre);
	if (!llc)
		llc = cache_size;
	if (llc)
		p->platform.cpu.llc_bytes = llc;
	read_kernel(root, pre, p->platform.kernel, sizeof(p->platform.kernel));
	rc = read_nd_bus(pre, p);
	if (rc)
		return rc;
	return fingerprint_compute(p, p->platform.fingerprint);
}
