// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The strategy table, and the choice of the helpers its kernels share.
 * The order of the table is the order of --list and of the probe's
 * columns.
 */
#include <string.h>

#include "common/macros.h"
#include "measure/strategy.h"

const struct strategy strategy_table[] = {
	{
		.name = "movnt",
		.summary = "8-byte movnti stores, cached head flushed, NT tail, sfence",
		.needs = CPU_BIT(CPU_SSE2),
		.copy = strategy_copy_movnt,
	}, {
		.name = "movnt_sse2",
		.summary = "16-byte movntdq stores, cached head flushed, NT tail, sfence",
		.needs = CPU_BIT(CPU_SSE2),
		.copy = strategy_copy_movnt_sse2,
	}, {
		/* The name follows PMDK; 256-bit vmovntdq is an AVX instruction. */
		.name = "movnt_avx2",
		.summary = "32-byte vmovntdq stores (needs avx only), NT tail, sfence",
		.needs = CPU_BIT(CPU_AVX),
		.copy = strategy_copy_movnt_avx2,
	}, {
		.name = "movnt_avx512",
		.summary = "64-byte vmovntdq zmm stores, cached head flushed, NT tail, sfence",
		.needs = CPU_BIT(CPU_AVX512F),
		.copy = strategy_copy_movnt_avx512,
	}, {
		.name = "movdir64b",
		.summary = "64-byte direct stores (movdir64b), cached head flushed, NT tail, "
			   "sfence",
		.needs = CPU_BIT(CPU_MOVDIR64B),
		.copy = strategy_copy_movdir64b,
	}, {
		.name = "clwb",
		.summary = "cached vector copy, clwb every line, sfence",
		.needs = CPU_BIT(CPU_CLWB),
		.copy = strategy_copy_clwb,
	}, {
		.name = "clflushopt",
		.summary = "cached vector copy, clflushopt every line, sfence",
		.needs = CPU_BIT(CPU_CLFLUSHOPT),
		.copy = strategy_copy_clflushopt,
	}, {
		.name = "clflush",
		.summary = "cached vector copy, clflush every line, sfence",
		.needs = CPU_BIT(CPU_CLFLUSH),
		.copy = strategy_copy_clflush,
	}, {
		.name = "rep_movsb_clwb",
		.summary = "rep movsb copy, clwb every line, sfence",
		.needs = CPU_BIT(CPU_CLWB),
		.copy = strategy_copy_rep_movsb_clwb,
	}, {
		.name = "stores8_clwb",
		.summary = "per 64-byte line: 8 x 8-byte stores then clwb; sfence",
		.needs = CPU_BIT(CPU_CLWB),
		.copy = strategy_copy_stores8_clwb,
	}, {
		.name = "memcpy_clwb",
		.summary = "libc memcpy, clwb every line, sfence (memcpy + pmem_persist)",
		.needs = CPU_BIT(CPU_CLWB),
		.copy = strategy_copy_memcpy_clwb,
	}, {
		.name = "noflush",
		.summary = "cached vector copy, sfence only: persistent with eADR only",
		.needs = CPU_BIT(CPU_SSE2),
		.cpu_cache_domain_only = true,
		.copy = strategy_copy_noflush,
	},
};

const unsigned strategy_count = ARRAY_SIZE(strategy_table);

void strategy_init(const struct cpu_info *ci)
{
	struct strategy_helpers h = {
		.flush = STRATEGY_FLUSH_CLFLUSH,
		.copy = STRATEGY_VEC_SSE2,
		.fill = STRATEGY_VEC_SSE2,
	};

	/*
	 * clwb keeps the line cached, clflushopt is unordered, clflush is
	 * what is left (every x86-64 has it, so it is used even when
	 * PMEM_TUNE_DISABLE names it: the heads must be flushed somehow).
	 */
	if (cpu_has(ci, CPU_CLWB))
		h.flush = STRATEGY_FLUSH_CLWB;
	else if (cpu_has(ci, CPU_CLFLUSHOPT))
		h.flush = STRATEGY_FLUSH_CLFLUSHOPT;
	h.clflushopt = cpu_has(ci, CPU_CLFLUSHOPT);
	if (cpu_has(ci, CPU_AVX))
		h.copy = h.fill = STRATEGY_VEC_AVX;
	if (cpu_has(ci, CPU_AVX512F))
		h.fill = STRATEGY_VEC_AVX512;
	strategy_helpers = h;
}

const struct strategy *strategy_find(const char *name)
{
	unsigned i;

	if (!name)
		return NULL;
	for (i = 0; i < strategy_count; i++)
		if (!strcmp(strategy_table[i].name, name))
			return &strategy_table[i];
	return NULL;
}

bool strategy_supported(const struct strategy *s, const struct cpu_info *ci,
			const char **missing)
{
	unsigned f;

	for (f = 0; f < CPU_NR_FEATURES; f++) {
		if ((s->needs & CPU_BIT(f)) && !cpu_has(ci, f)) {
			if (missing)
				*missing = cpu_feature_name(f);
			return false;
		}
	}
	if (missing)
		*missing = NULL;
	return true;
}
