// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CPU identification and feature detection from CPUID and XGETBV.
 *
 * A CPUID bit only says the silicon has an instruction; for AVX and
 * AVX-512 the OS must also have enabled the register state in XCR0, or
 * the first VEX/EVEX instruction faults.  So those are reported only
 * when XGETBV says the state is on.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "platform/cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define PT_HAVE_CPUID 1
#endif

static const char *const feature_names[CPU_NR_FEATURES] = {
	[CPU_SSE2]	 = "sse2",
	[CPU_AVX]	 = "avx",
	[CPU_AVX2]	 = "avx2",
	[CPU_AVX512F]	 = "avx512f",
	[CPU_CLFLUSH]	 = "clflush",
	[CPU_CLFLUSHOPT] = "clflushopt",
	[CPU_CLWB]	 = "clwb",
	[CPU_MOVDIR64B]	 = "movdir64b",
	[CPU_ERMS]	 = "erms",
	[CPU_FSRM]	 = "fsrm",
};

const char *cpu_feature_name(enum cpu_feature f)
{
	if ((unsigned)f >= CPU_NR_FEATURES)
		return "unknown";
	return feature_names[f];
}

bool cpu_has(const struct cpu_info *ci, enum cpu_feature f)
{
	if (!ci || (unsigned)f >= CPU_NR_FEATURES)
		return false;
	return ci->features & CPU_BIT(f);
}

/*
 * Display family/model/stepping from leaf 1 EAX (Intel SDM vol. 2A,
 * CPUID; AMD APM vol. 3, E.3.2): the extended family is added only for
 * base family 0xf, the extended model is prepended for families 6 and
 * 0xf (AMD leaves it zero below 0xf, so one rule serves both).
 */
void cpu_decode_signature(uint32_t eax, unsigned *family, unsigned *model,
			  unsigned *stepping)
{
	unsigned fam = (eax >> 8) & 0xf;
	unsigned mod = (eax >> 4) & 0xf;

	if (fam == 0xf || fam == 0x6)
		mod |= ((eax >> 16) & 0xf) << 4;
	if (fam == 0xf)
		fam += (eax >> 20) & 0xff;
	*family = fam;
	*model = mod;
	*stepping = eax & 0xf;
}

/* Names in PMEM_TUNE_DISABLE, cpu_feature_name() spelling, any case. */
static unsigned parse_disable(const char *s)
{
	unsigned mask = 0;

	while (s && *s) {
		size_t n, len;
		unsigned f;

		while (*s == ',' || isspace((unsigned char)*s))
			s++;
		n = strcspn(s, ",");
		len = n;
		while (len && isspace((unsigned char)s[len - 1]))
			len--;
		for (f = 0; f < CPU_NR_FEATURES && len; f++) {
			if (strlen(feature_names[f]) == len &&
			    !strncasecmp(feature_names[f], s, len))
				mask |= CPU_BIT(f);
		}
		s += n;
	}
	/* AVX2 and AVX-512 code needs the AVX state: "no avx" means neither. */
	if (mask & CPU_BIT(CPU_AVX))
		mask |= CPU_BIT(CPU_AVX2) | CPU_BIT(CPU_AVX512F);
	return mask;
}

#ifdef PT_HAVE_CPUID

struct regs {
	unsigned a, b, c, d;
};

static bool cpuid(unsigned leaf, unsigned sub, struct regs *r)
{
	memset(r, 0, sizeof(*r));
	/* Checks the leaf against the maximum of its range first. */
	return __get_cpuid_count(leaf, sub, &r->a, &r->b, &r->c, &r->d);
}

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	/* xgetbv, spelled as bytes for assemblers that predate it */
	__asm__ volatile(".byte 0x0f, 0x01, 0xd0"
			 : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * The largest data or unified cache at the highest level, from Intel's
 * leaf 4 or AMD's leaf 0x8000001D (same register layout).  Bounded: a
 * hypervisor that never reports type 0 must not loop us forever.
 */
static uint64_t llc_from_cache_leaf(unsigned leaf)
{
	unsigned best_level = 0, i;
	uint64_t best = 0;
	struct regs r;

	for (i = 0; i < 32; i++) {
		unsigned type, level;
		uint64_t size;

		if (!cpuid(leaf, i, &r))
			break;
		type = r.a & 0x1f;
		if (type == 0)
			break;
		if (type == 2)		/* instruction cache */
			continue;
		level = (r.a >> 5) & 0x7;
		size = (uint64_t)(((r.b >> 22) & 0x3ff) + 1) *
		       (((r.b >> 12) & 0x3ff) + 1) *
		       ((r.b & 0xfff) + 1) * ((uint64_t)r.c + 1);
		if (level > best_level ||
		    (level == best_level && size > best)) {
			best_level = level;
			best = size;
		}
	}
	return best;
}

static uint64_t detect_llc(bool amd, unsigned max_ext)
{
	uint64_t llc = 0;
	struct regs r;
	long sc;

	if (amd) {
		/* leaf 0x8000001D is valid only with TOPOEXT */
		if (max_ext >= 0x8000001d && cpuid(0x80000001, 0, &r) &&
		    (r.c & (1u << 22)))
			llc = llc_from_cache_leaf(0x8000001d);
		/* older AMD: L3 size in 512 KiB units */
		if (!llc && max_ext >= 0x80000006 && cpuid(0x80000006, 0, &r))
			llc = (uint64_t)(r.d >> 18) * 512 * 1024;
	} else if (cpuid(0, 0, &r) && r.a >= 4) {
		llc = llc_from_cache_leaf(4);
	}
	if (llc)
		return llc;
	sc = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (sc <= 0)
		sc = sysconf(_SC_LEVEL2_CACHE_SIZE);
	return sc > 0 ? (uint64_t)sc : 0;
}

static void detect_brand(struct cpu_info *ci, unsigned max_ext)
{
	char *p = ci->brand;
	size_t n;
	unsigned i;
	struct regs r;

	if (max_ext < 0x80000004)
		return;
	for (i = 0; i < 3; i++) {
		cpuid(0x80000002 + i, 0, &r);
		memcpy(ci->brand + 16 * i, &r, 16);
	}
	ci->brand[48] = '\0';
	/* Intel right-justifies the string; nobody wants the padding */
	while (*p == ' ')
		p++;
	n = strlen(p);
	memmove(ci->brand, p, n + 1);
	while (n && ci->brand[n - 1] == ' ')
		ci->brand[--n] = '\0';
}

int cpu_detect(struct cpu_info *ci)
{
	unsigned max_basic, max_ext, feat = 0;
	bool amd, os_ymm = false, os_zmm = false;
	struct regs r1, r7, r;

	memset(ci, 0, sizeof(*ci));
	max_basic = __get_cpuid_max(0, NULL);
	if (max_basic < 1)
		return -ENOTSUP;

	cpuid(0, 0, &r);
	memcpy(ci->vendor + 0, &r.b, 4);
	memcpy(ci->vendor + 4, &r.d, 4);
	memcpy(ci->vendor + 8, &r.c, 4);
	ci->vendor[12] = '\0';
	amd = !strcmp(ci->vendor, "AuthenticAMD") ||
	      !strcmp(ci->vendor, "HygonGenuine");
	max_ext = __get_cpuid_max(0x80000000, NULL);
	if (max_ext < 0x80000000)
		max_ext = 0;

	cpuid(1, 0, &r1);
	cpuid(7, 0, &r7);	/* all zero when max_basic < 7 */
	cpu_decode_signature(r1.a, &ci->family, &ci->model, &ci->stepping);
	ci->cache_line_bytes = ((r1.b >> 8) & 0xff) * 8;

	if (r1.c & (1u << 27)) {	/* OSXSAVE: XGETBV is usable */
		uint64_t xcr0 = xgetbv0();

		os_ymm = (xcr0 & 0x6) == 0x6;		/* XMM, YMM */
		os_zmm = (xcr0 & 0xe6) == 0xe6;		/* + opmask, ZMM */
	}

	if (r1.d & (1u << 26))
		feat |= CPU_BIT(CPU_SSE2);
	if (r1.d & (1u << 19))
		feat |= CPU_BIT(CPU_CLFLUSH);
	if ((r1.c & (1u << 28)) && os_ymm)
		feat |= CPU_BIT(CPU_AVX);
	if ((r7.b & (1u << 5)) && os_ymm)
		feat |= CPU_BIT(CPU_AVX2);
	if ((r7.b & (1u << 16)) && os_zmm)
		feat |= CPU_BIT(CPU_AVX512F);
	if (r7.b & (1u << 23))
		feat |= CPU_BIT(CPU_CLFLUSHOPT);
	if (r7.b & (1u << 24))
		feat |= CPU_BIT(CPU_CLWB);
	if (r7.c & (1u << 28))
		feat |= CPU_BIT(CPU_MOVDIR64B);
	if (r7.b & (1u << 9))
		feat |= CPU_BIT(CPU_ERMS);
	if (r7.d & (1u << 4))
		feat |= CPU_BIT(CPU_FSRM);

	ci->masked = feat & parse_disable(getenv("PMEM_TUNE_DISABLE"));
	ci->features = feat & ~ci->masked;

	detect_brand(ci, max_ext);
	ci->llc_bytes = detect_llc(amd, max_ext);
	return 0;
}

#else /* !PT_HAVE_CPUID */

int cpu_detect(struct cpu_info *ci)
{
	memset(ci, 0, sizeof(*ci));
	(void)parse_disable;
	return -ENOTSUP;
}

#endif
