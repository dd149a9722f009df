/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Exports: for each consumer whose knob cannot express the full decision
 * (one threshold between two strategies, a few feature switches), the
 * value that loses least at the sizes the consumer serves, worst size
 * first, and its mean loss (regret).
 *
 * Loss of a threshold at a size decided by separation: 1 - v(the side it
 * puts there) / v(the decided side), 0 where it agrees or the size is a
 * tie; of a switch, 1 - v(its member) / v(the best measured strategy).
 * The mean weighs sizes evenly on the log-size axis (each size by half
 * the log-distance to its neighbours), or by a size distribution (struct
 * export_weights).
 */
#ifndef PMEM_RULE_EXPORT_H
#define PMEM_RULE_EXPORT_H

#include <stdint.h>
#include <sys/types.h>
#include <stdio.h>

#include "policy/policy.h"
#include "rule/constants.h"
#include "rule/second_look.h"

/* A size distribution: weight[i] for sizes near size_bytes[i]. */
struct export_weights {
	size_t n;
	uint64_t *size_bytes;	/* ascending */
	double *weight;		/* >= 0 */
};

/* Fill p->exports (libpmem, kernel, glibc) from p's targets. */
int export_compute(struct policy *p, const struct export_weights *w);
/*
 * The same, keeping each of baseline's export values (NULL: none), else
 * the consumer's default, unless the best value gains on it by more than
 * the export margin where the two act differently: the old value's worst
 * loss by the medians at the sizes they put on different sides, less the
 * new one's (see knob_threshold()).
 */
int export_compute_with_baseline(struct policy *p, const struct export_weights *w,
				 const struct policy *baseline);

/*
 * Where the exports of p, computed as export_compute_with_baseline()
 * does, change a threshold on this look: the sizes of target t (one of
 * p's) that were decided by separation and that the old value (the
 * baseline's, else the consumer's default) and the new one put on
 * different sides (SECOND_LOOK_EXPORT_MOVE, every strategy at the size;
 * curves: the two the knob chooses between, none where it chooses between
 * the families; no verdict claimed).  The probe measures them again,
 * fresh, and the change stands only if the fresh cells show it too.  At
 * most max into out, each (op, size, curves) once;
 * returns the count, or a negative errno.  p->exports is left computed
 * from the cells as they are.  The ops need not be decided: the ranges a
 * switch's member needs are those the rule would draw (crossover_runs()).
 */
ssize_t export_rechecks(struct policy *p, const struct export_weights *w,
			const struct policy *baseline, const struct policy_target *t,
			struct second_look *out, size_t max);

/* A consumer's single knob, as the exports decide it. */
enum export_knob {
	EXPORT_KNOB_PMEM_MOVNT,		/* libpmem PMEM_MOVNT_THRESHOLD: cached below */
	EXPORT_KNOB_KERNEL_NT,		/* flushcache_nt_max_bytes: non-temporal below */
	EXPORT_KNOB_GLIBC_NT,		/* x86_non_temporal_threshold: noflush below */
	EXPORT_KNOB_GLIBC_REP_MOVSB,	/* x86_rep_movsb_threshold: clwb below */
	EXPORT_KNOBS,
};

/*
 * What a knob at a threshold loses on a policy's cells, as the exports
 * score it: at the sizes decided by separation that the threshold puts on
 * the other side, 1 - v(its side) / v(decided side).  worst: the largest
 * (at worst_bytes, 0 where none); mean: per op the weighted mean over the
 * decided sizes, averaged over the one-thread ops.  bound 0 takes the
 * medians, +1 each loss at the most its cells' 95 % intervals allow, -1
 * at the least.
 */
struct export_knob_loss {
	/* below it the knob's first side, POLICY_SIZE_OPEN: never */
	uint64_t threshold_bytes;
	double worst, mean;
	uint64_t worst_bytes;
};

/* k at threshold_bytes on p's cells; -ENOENT where p decides nothing for k. */
int export_knob_loss(const struct policy *p, enum export_knob k, uint64_t threshold_bytes,
		     int bound, const struct export_weights *w, struct export_knob_loss *out);
/* k's name as its consumer spells it. */
const char *export_knob_name(enum export_knob k);
/*
 * A threshold of export_knob_loss() as k's consumer writes it, into buf:
 * "never" for POLICY_SIZE_OPEN, the kernel's N for its switch point N + 1,
 * glibc's in hex, PMDK's in decimal.  Returns buf.
 */
const char *export_knob_format(enum export_knob k, uint64_t threshold_bytes, char *buf,
			       size_t len);
/* The least value k's consumer takes on p's CPU (bytes): one below it acts as it. */
uint64_t export_knob_least(const struct policy *p, enum export_knob k);
/*
 * The best single value of k in hindsight: the candidate (0, a decided
 * size, never; each as the consumer takes it, export_knob_least()) of
 * least worst-size loss, then least mean; no margin, no default.
 * -ENOENT where p decides nothing for k.
 */
int export_knob_best(const struct policy *p, enum export_knob k, int bound,
		     const struct export_weights *w, struct export_knob_loss *out);
/*
 * The value p's exports give k, as a threshold of export_knob_loss()
 * (the consumer's default where the export keeps it; glibc's "never",
 * EXPORT_GLIBC_NEVER, as POLICY_SIZE_OPEN); -ENOENT where p exports
 * nothing for k.
 */
int export_knob_value(const struct policy *p, enum export_knob k, uint64_t *threshold_bytes);

/* One line per export, for humans. */
void export_print(FILE *f, const struct policy *p);

/* Read "SIZE WEIGHT" lines (SIZE accepts K/M/G suffixes). err gets one line. */
int export_weights_load(const char *path, struct export_weights *w, char *err, size_t errlen);
void export_weights_free(struct export_weights *w);

#endif
