/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How the probe measures: its constants, each with its reason (the modes'
 * budgets and grids are the table in sweep.c).  docs/decisions.md lists
 * them beside the rule's (rule/constants.h).
 */
#ifndef PMEM_TUNE_MEASURE_CONSTANTS_H
#define PMEM_TUNE_MEASURE_CONSTANTS_H

/*
 * A cell timed while the hypervisor took more than this share is measured
 * again (our own guest's other tasks are not counted: on a busy guest they
 * are in every cell, and measuring each twice buys nothing).
 */
#define STOLEN_SHARE		0.25
/* The median holds up to half; a quarter of preempted samples are outliers. */
#define PREEMPTED_SHARE		0.25
/* Second looks per op and screening, and for the exports per target: bounded. */
#define MAX_REMEASURE		8
#define MAX_EXPORT_RECHECK	128
/* The second looks come out of the budget, not on top of it. */
#define SECOND_LOOK_SHARE	0.10
/* Longer multi-thread batches make the threads' start skew a smaller share. */
#define MAX_DOUBLINGS		6
/* Threads to saturation are timed where copies are bandwidth-bound, yet cheap. */
#define SATURATION_SIZE		(256u << 10)
/* The op set moves only on a clear step, seen twice. */
#define SATURATION_MARGIN	0.05
/* The default lead-in: small batches timed back to back, not from an idle write path. */
#define SWEEP_LEAD_IN_BYTES	(16u << 10)

#endif
