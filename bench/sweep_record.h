/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A held-out sweep of bench_policy, kept (--save-sweep FILE) so that
 * several runs can be judged together (bench_hindsight): per op, per
 * size, each contender's median in each half, MiB/s.
 */
#ifndef PT_BENCH_SWEEP_RECORD_H
#define PT_BENCH_SWEEP_RECORD_H

#include <stddef.h>
#include <stdint.h>

struct sweep_record_op {
	char *pattern;			/* "sequential" or "random" */
	unsigned threads;
	unsigned ncontenders;
	char **names;			/* [ncontenders]; [0] is "policy" */
	unsigned first_strategy;	/* names[first..first+nstrategies) run one strategy */
	unsigned nstrategies;
	size_t nsizes;
	uint64_t *sizes_bytes;		/* [nsizes] */
	char **policy_uses;		/* [nsizes] the strategy the policy picked */
	double *halves_mib_s;		/* [nsizes][2][ncontenders], NAN: not measured */
};

struct sweep_record {
	char *mode;			/* "quick" or "standard" */
	char *policy;			/* where the policy came from */
	size_t nops;
	struct sweep_record_op *ops;
};

/* halves_mib_s of size i, half h (0 or 1) */
static inline double *sweep_record_half(const struct sweep_record_op *op, size_t i, int h)
{
	return &op->halves_mib_s[(i * 2 + (size_t)h) * op->ncontenders];
}

/* Write atomically to path (mode 0644).  0 or a negative errno. */
int sweep_record_save(const struct sweep_record *r, const char *path);

/*
 * Read path into *r (freed with sweep_record_free()).  0, or a negative
 * errno with a one-line reason naming the file and field in err.
 */
int sweep_record_load(const char *path, struct sweep_record *r, char *err, size_t errlen);

void sweep_record_free(struct sweep_record *r);

#endif
