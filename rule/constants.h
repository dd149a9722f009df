/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rule's constants, each with its reason.  docs/decisions.md lists
 * them with the rule; a change to one is checked by replaying the
 * recordings (test_replay) and by bench/calibration.sh.
 */
#ifndef PMEM_RULE_CONSTANTS_H
#define PMEM_RULE_CONSTANTS_H

#include "policy/policy.h"

/* A gain under 5 % is not worth a switch, even on a host quieter than that. */
#define CROSSOVER_MARGIN_FLOOR		0.05
/* A very noisy probe must still see effects of 2x and more. */
#define CROSSOVER_MARGIN_CAP		0.15
/* The median cell's noise is the host's; its worst cell's is an accident. */
#define CROSSOVER_NOISE_QUANTILE	0.5
/* The same code does not halve or double one size step away: such a median is not believed. */
#define CROSSOVER_IMPLAUSIBLE_RATIO	0.5
/*
 * A member effect holds over a size range: a non-default member needs
 * consecutive wins spanning 4x in size and 3 grid sizes (--quick's x4
 * grid spans 4x in two).
 */
#define CROSSOVER_MEMBER_MIN_SPAN	4.0
#define CROSSOVER_MEMBER_MIN_SIZES	3
/* Two looks at a settled host differ by less than two margins: more is a host that moved. */
#define CROSSOVER_LOOK_AGREE_MARGINS	2.0
/* Where the families tie throughout: streaming stores do not evict the application's cache. */
#define CROSSOVER_PRIOR			POLICY_FAMILY_STREAMING

/* Mean losses closer than this are one: two probes of one host move them more. */
#define EXPORT_MEAN_TIE			0.005
/* What each consumer does with its knob unset (bytes). */
#define EXPORT_PMDK_DEFAULT		256	/* PMEM_MOVNT_THRESHOLD */
#define EXPORT_KERNEL_DEFAULT		768	/* dm-writecache: non-temporal below 768 */
#define EXPORT_GLIBC_REP_MOVSB_DEFAULT	4096	/* 2 KiB per 16 bytes of vector, AVX2 */
/* glibc's x86_non_temporal_threshold: 3/4 of the shared cache (dl-cacheinfo.h) */
#define EXPORT_GLIBC_NT_DEFAULT(llc_bytes)	((llc_bytes) * 3 / 4)
/* glibc has no "off" for a threshold: "never" is one no copy reaches */
#define EXPORT_GLIBC_NEVER		(1ull << 40)

#endif
