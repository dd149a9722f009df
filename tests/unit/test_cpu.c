// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cpu_detect(): stable names, sane identification, PMEM_TUNE_DISABLE
 * masking, and agreement with the kernel's view in /proc/cpuinfo.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "platform/cpu.h"

static const char *const expected_names[CPU_NR_FEATURES] = {
	"sse2", "avx", "avx2", "avx512f", "clflush", "clflushopt", "clwb",
	"movdir64b", "erms", "fsrm",
};

static void test_names(void)
{
	unsigned f, g;

	/* Names are written into policy files: they must never change. */
	for (f = 0; f < CPU_NR_FEATURES; f++) {
		CHECK_STR(cpu_feature_name(f), expected_names[f]);
		for (g = 0; g < f; g++)
			CHECK(strcmp(cpu_feature_name(f), cpu_feature_name(g)));
	}
	CHECK(cpu_feature_name(CPU_NR_FEATURES) != NULL);
	CHECK(cpu_feature_name((enum cpu_feature)-1) != NULL);
	CHECK(!cpu_has(NULL, CPU_SSE2));
}

static void test_signature(void)
{
	static const struct {
		uint32_t eax;
		unsigned family, model, stepping;
	} sig[] = {
		{ 0x00a00f11, 0x19, 0x01, 1 },	/* AMD Milan (Zen 3) */
		{ 0x00a10f11, 0x19, 0x11, 1 },	/* AMD Genoa (Zen 4) */
		{ 0x00830f10, 0x17, 0x31, 0 },	/* AMD Rome (Zen 2) */
		{ 0x000806f8, 0x06, 0x8f, 8 },	/* Intel Sapphire Rapids */
		{ 0x00050657, 0x06, 0x55, 7 },	/* Intel Cascade Lake */
		{ 0x00000f29, 0x0f, 0x02, 9 },	/* Intel Pentium 4 */
		{ 0x00100f42, 0x10, 0x04, 2 },	/* AMD family 10h */
		{ 0x00010fa0, 0x0f, 0x1a, 0 },	/* ext model with family 0xf */
		{ 0x000f0542, 0x05, 0x04, 2 },	/* no ext model below family 6 */
	};
	unsigned i, fam, mod, step;

	for (i = 0; i < sizeof(sig) / sizeof(sig[0]); i++) {
		cpu_decode_signature(sig[i].eax, &fam, &mod, &step);
		CHECK_MSG(fam == sig[i].family && mod == sig[i].model &&
			  step == sig[i].stepping,
			  "signature %#x: %#x/%#x/%u, want %#x/%#x/%u",
			  sig[i].eax, fam, mod, step, sig[i].family,
			  sig[i].model, sig[i].stepping);
	}
}

static void test_identity(const struct cpu_info *ci)
{
	CHECK_INT(strlen(ci->vendor), 12);
	CHECK(strlen(ci->brand) < sizeof(ci->brand));
	CHECK(ci->brand[0] != ' ');
	CHECK(ci->family >= 4 && ci->family <= 0xf + 0xff);
	CHECK(ci->model <= 0xff);
	CHECK(ci->stepping <= 0xf);
	CHECK(ci->cache_line_bytes >= 16 && ci->cache_line_bytes <= 256 &&
	      !(ci->cache_line_bytes & (ci->cache_line_bytes - 1)));
	CHECK_INT(ci->masked, 0);
	/* x86-64 baseline */
	CHECK(cpu_has(ci, CPU_SSE2));
	CHECK(cpu_has(ci, CPU_CLFLUSH));
	/* AVX2 and AVX-512 code runs in the AVX state */
	if (cpu_has(ci, CPU_AVX2) || cpu_has(ci, CPU_AVX512F))
		CHECK(cpu_has(ci, CPU_AVX));
	CHECK_MSG(ci->llc_bytes == 0 ||
		  (ci->llc_bytes >= 256 * 1024 && ci->llc_bytes <= (1ull << 40)),
		  "llc_bytes %llu", (unsigned long long)ci->llc_bytes);
	printf("cpu: %s \"%s\" family %#x model %#x stepping %u, line %u, llc %llu KiB\n",
	       ci->vendor, ci->brand, ci->family, ci->model, ci->stepping,
	       ci->cache_line_bytes, (unsigned long long)ci->llc_bytes >> 10);
	printf("cpu: features:");
	for (unsigned f = 0; f < CPU_NR_FEATURES; f++)
		if (cpu_has(ci, f))
			printf(" %s", cpu_feature_name(f));
	printf("\n");
}

static void detect_with(const char *disable, struct cpu_info *ci)
{
	if (disable)
		setenv("PMEM_TUNE_DISABLE", disable, 1);
	else
		unsetenv("PMEM_TUNE_DISABLE");
	CHECK_INT(cpu_detect(ci), 0);
	unsetenv("PMEM_TUNE_DISABLE");
}

static void test_mask(const struct cpu_info *base)
{
	struct cpu_info ci;
	unsigned f, want;
	char *big;

	for (f = 0; f < CPU_NR_FEATURES; f++) {
		detect_with(cpu_feature_name(f), &ci);
		want = CPU_BIT(f);
		if (f == CPU_AVX)
			want |= CPU_BIT(CPU_AVX2) | CPU_BIT(CPU_AVX512F);
		want &= base->features;
		CHECK_MSG(!cpu_has(&ci, f), "%s still present when disabled",
			  cpu_feature_name(f));
		CHECK_MSG(ci.masked == want, "disable %s: masked %#x, want %#x",
			  cpu_feature_name(f), ci.masked, want);
		CHECK_INT(ci.features, base->features & ~want);
		CHECK_INT(ci.family, base->family);
		CHECK_STR(ci.vendor, base->vendor);
	}

	/* a list, odd spacing and case, repeats, unknown names, empty items */
	detect_with(" CLWB ,bogus,,avx2,clwb, ,erms,avx5120", &ci);
	want = (CPU_BIT(CPU_CLWB) | CPU_BIT(CPU_AVX2) | CPU_BIT(CPU_ERMS)) &
	       base->features;
	CHECK_INT(ci.masked, want);
	CHECK_INT(ci.features, base->features & ~want);

	/* prefixes of names are not names */
	detect_with("clflus,cl,avx51,movdir", &ci);
	CHECK_INT(ci.masked, 0);
	CHECK_INT(ci.features, base->features);

	detect_with("", &ci);
	CHECK_INT(ci.features, base->features);
	detect_with(",,,", &ci);
	CHECK_INT(ci.features, base->features);

	/* nothing but junk, and long: no crash, nothing masked */
	big = malloc(11 * 6000 + 1);
	if (big) {
		for (f = 0; f < 11 * 6000; f++)
			big[f] = "x,  ,avx2y\t"[f % 11];
		big[11 * 6000] = '\0';
		detect_with(big, &ci);
		CHECK_INT(ci.masked, 0);
		free(big);
	}
}

/* The first processor's entry in /proc/cpuinfo; 0 when not there. */
static int read_cpuinfo(const char *key, char *val, size_t size)
{
	char line[8192];
	size_t klen = strlen(key);
	FILE *f = fopen("/proc/cpuinfo", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *colon = line + klen;

		if (line[0] == '\n')
			break;		/* end of the first processor */
		if (strncmp(line, key, klen))
			continue;
		/* "model" must not match "model name" */
		colon += strspn(colon, " \t");
		if (*colon != ':')
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(val, size, "%s", colon);
		found = 1;
		break;
	}
	fclose(f);
	return found;
}

static int has_flag(const char *flags, const char *name)
{
	size_t n = strlen(name);
	const char *p = flags;

	while ((p = strstr(p, name))) {
		if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

static void test_proc_cpuinfo(const struct cpu_info *ci)
{
	/*
	 * Bits the kernel reports straight from CPUID (and, for the vector
	 * ones, only with the XSAVE state it enabled).  erms and fsrm are
	 * left out: the kernel may clear them on its own account.
	 */
	static const enum cpu_feature cmp[] = {
		CPU_SSE2, CPU_AVX, CPU_AVX2, CPU_AVX512F, CPU_CLFLUSH,
		CPU_CLFLUSHOPT, CPU_CLWB, CPU_MOVDIR64B,
	};
	char flags[8192], val[256];
	unsigned i;

	if (!read_cpuinfo("flags", flags, sizeof(flags))) {
		printf("skipped: /proc/cpuinfo comparison: no flags line\n");
		return;
	}
	for (i = 0; i < sizeof(cmp) / sizeof(cmp[0]); i++) {
		const char *name = cpu_feature_name(cmp[i]);

		CHECK_MSG(cpu_has(ci, cmp[i]) == !!has_flag(flags, name),
			  "%s: cpuid says %d, /proc/cpuinfo says %d", name,
			  cpu_has(ci, cmp[i]), has_flag(flags, name));
	}
	if (read_cpuinfo("vendor_id", val, sizeof(val)))
		CHECK_STR(ci->vendor, val);
	if (read_cpuinfo("cpu family", val, sizeof(val)))
		CHECK_INT(ci->family, strtoul(val, NULL, 10));
	if (read_cpuinfo("model", val, sizeof(val)))
		CHECK_INT(ci->model, strtoul(val, NULL, 10));
	if (read_cpuinfo("stepping", val, sizeof(val)))
		CHECK_INT(ci->stepping, strtoul(val, NULL, 10));
	if (read_cpuinfo("clflush size", val, sizeof(val)))
		CHECK_INT(ci->cache_line_bytes, strtoul(val, NULL, 10));
}

int main(void)
{
	struct cpu_info ci;

	unsetenv("PMEM_TUNE_DISABLE");
	test_names();
	test_signature();
	CHECK_INT(cpu_detect(&ci), 0);
	test_identity(&ci);
	test_mask(&ci);
	test_proc_cpuinfo(&ci);
	return check_report("test_cpu");
}
