/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What this CPU can do, from CPUID and XGETBV (never from the compiler's
 * target flags): the OS must have enabled the AVX / AVX-512 register
 * state before a kernel that uses it may run.
 */
#ifndef PMEM_TUNE_CPU_H
#define PMEM_TUNE_CPU_H

#include <stdbool.h>
#include <stdint.h>

enum cpu_feature {
	CPU_SSE2,
	CPU_AVX,	/* CPUID bit and OS-enabled YMM state */
	CPU_AVX2,
	CPU_AVX512F,	/* CPUID bit and OS-enabled ZMM/opmask state */
	CPU_CLFLUSH,
	CPU_CLFLUSHOPT,
	CPU_CLWB,
	CPU_MOVDIR64B,
	CPU_ERMS,	/* enhanced rep movsb */
	CPU_FSRM,	/* fast short rep movsb */
	CPU_NR_FEATURES,
};

#define CPU_BIT(f) (1u << (f))

struct cpu_info {
	char vendor[13];		/* "GenuineIntel", "AuthenticAMD" */
	char brand[49];
	unsigned family, model, stepping;	/* display values */
	uint64_t llc_bytes;		/* last-level cache, 0 if unknown */
	unsigned cache_line_bytes;	/* CLFLUSH line size */
	unsigned features;		/* CPU_BIT() mask, after masking */
	unsigned masked;		/* what PMEM_TUNE_DISABLE took away */
};

/*
 * Fill ci from CPUID/XGETBV.  Features named in the environment variable
 * PMEM_TUNE_DISABLE (comma separated, cpu_feature_name() spelling) are
 * removed, for tests and for users who want a strategy left out; "avx"
 * takes avx2 and avx512f with it.  Unknown names are ignored.
 * Returns 0 or -ENOTSUP on a CPU without CPUID (not x86-64).
 */
int cpu_detect(struct cpu_info *ci);
bool cpu_has(const struct cpu_info *ci, enum cpu_feature f);
/* "sse2", "avx", "avx2", "avx512f", "clflush", "clflushopt", "clwb", ... */
const char *cpu_feature_name(enum cpu_feature f);
/* Display family/model/stepping from CPUID leaf 1 EAX (pure; for tests). */
void cpu_decode_signature(uint32_t eax, unsigned *family, unsigned *model,
			  unsigned *stepping);

#endif
