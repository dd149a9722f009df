/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How the probe measures: its constants, each with its reason (the modes'
 * budgets and grids are the table in sweep.c).  docs/decisions.md lists
 * those the second looks and the op set rest on beside the rule's
 * (rule/constants.h); this header holds every tuning constant of the
 * sweep (sweep.c keeps its array bounds of no consequence, target.c the
 * huge-page size).
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

/*
 * The budget: the ops but the last stop at OPS_BUDGET_SHARE of it (less
 * SECOND_LOOK_SHARE), keeping the rest for bisection and second looks;
 * the last op may take what is left up to LAST_OP_BUDGET_SHARE, leaving
 * the closing ceiling its share.
 */
#define OPS_BUDGET_SHARE	0.85
#define LAST_OP_BUDGET_SHARE	0.97
/* Each ceiling (before and after the copies) bounds the plot, no decision reads it: short. */
#define CEILING_SHARE		0.015
/* Each family's thread series: a few samples at one size. */
#define SATURATION_SHARE	0.01
/* Up to this size a cell's samples are batched to sample_ns, so cells cost alike. */
#define CELL_BATCHED_BYTES	(256u << 10)
/* A warm-up that took next to no time must not ask for an unbounded batch. */
#define MAX_BATCH_COPIES	100000
/* Several threads sample this many times longer, so that their runs overlap. */
#define MULTI_THREAD_SAMPLE_FACTOR 4
/*
 * Bisection stops at brackets narrower than 1.06x (and a line): a
 * consumer's threshold gains nothing from a finer place.  At most
 * MAX_BRACKETS per round.
 */
#define BISECT_MIN_RATIO	1.06
#define MAX_BRACKETS		16
/*
 * Array bounds, asserted: the grid's sizes (64 B to 16 MiB at sqrt(2)
 * is 37), an op's sizes with its bisection points (at most refine_rounds
 * x MAX_BRACKETS more), and one cell's samples (thorough takes 201).
 */
#define MAX_GRID		128
#define MAX_OP_SIZES		(2 * MAX_GRID)
#define MAX_CELL_SAMPLES	256

/*
 * A multi-thread sample counts only when the intersection of the
 * threads' intervals is at least this share of their union.  Each
 * thread's own duration d_i then lies in [0.9 U, U] (it contains the
 * intersection and lies in the union), so for 90 % of the union every
 * thread was copying, and total bytes / U is at most 10 % under the rate
 * of a fully concurrent run and never above what was moved in that time:
 * n threads can never report more than n / 0.9 times one thread's rate.
 */
#define CONCURRENCY_MIN_OVERLAP	0.90
/*
 * The threads' start lead covers the barrier's wake-up (workers.c): it
 * doubles after a late arrival and shrinks while everyone is early,
 * within these bounds (ns), since a lead is idle time.
 */
#define LEAD_MIN_NS		20000ull
#define LEAD_MAX_NS		2000000ull
/*
 * The destination area: at least 64 MiB, and per thread twice the largest
 * copy (16 MiB) with room for the random offsets.
 */
#define MIN_AREA		(64ull << 20)
#define AREA_PER_THREAD		(64ull << 20)

#endif
