/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A pool of pinned threads that run one function together: the "several
 * threads" dimension of the sweep.  Thread 0 is the caller.  Each thread
 * is pinned to its own CPU of the process's affinity mask, so one
 * thread's timing never includes a migration.
 */
#ifndef PMEM_TUNE_WORKERS_H
#define PMEM_TUNE_WORKERS_H

#include <stdint.h>
#include <time.h>

struct workers;
typedef void (*workers_fn)(unsigned tid, void *arg);

/* CPUs this process may run on. */
unsigned workers_cpus_available(void);
/* Start n threads (n - 1 new, plus the caller, which is pinned too). */
int workers_start(unsigned n, struct workers **out);
/* The same on the given CPUs, thread i on cpus[i] (a node's CPUs, in thread order). */
int workers_start_on(const int *cpus, unsigned n, struct workers **out);
/*
 * Run fn(tid, arg) on threads 0..nactive-1 at once: handed the job by a
 * barrier, every thread spins until one shared start time, so that fn
 * starts on all of them together.  Returns when all finish.
 */
void workers_run(struct workers *w, unsigned nactive, workers_fn fn, void *arg);
/* Join the threads and give the caller back its original affinity. */
void workers_stop(struct workers *w);

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
