// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pinned worker threads.  A barrier hands them the job; they then spin
 * until a shared start time, so that they begin within a few hundred
 * nanoseconds of each other instead of one futex wake-up after another.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdlib.h>

#include "measure/constants.h"
#include "measure/workers.h"

struct workers {
	unsigned n;
	pthread_t *threads;
	pthread_barrier_t go, done;
	sem_t started;		/* a thread touches no barrier before the pool is whole */
	cpu_set_t saved;	/* the caller's affinity before pinning */
	int cpus[CPU_SETSIZE];
	/* the job, valid between the two barriers */
	workers_fn fn;
	void *arg;
	unsigned nactive;
	bool quit;
	uint64_t start_ns;	/* every active thread spins until then */
	uint64_t lead_ns;	/* start_ns - the hand-off; adapts to the wake-up delay */
	uint64_t late_ns[CPU_SETSIZE];	/* how far past start_ns each thread arrived */
};

/*
 * The lead covers the barrier's wake-up.  It follows the latest arrival
 * seen: a thread that arrives after start_ns starts late and the sample
 * is refused by the overlap check, so the lead doubles; it shrinks
 * slowly again while everyone is early, since a lead is idle time
 * (LEAD_MIN_NS..LEAD_MAX_NS, measure/constants.h).
 */

static void spin_until(struct workers *w, unsigned tid)
{
	uint64_t t = now_ns();

	/* only a thread that found start_ns already gone arrived late */
	w->late_ns[tid] = t > w->start_ns ? t - w->start_ns : 0;
	while (t < w->start_ns) {
		__builtin_ia32_pause();
		t = now_ns();
	}
}

struct worker_arg {
	struct workers *w;
	unsigned tid;
};

unsigned workers_cpus_available(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return (unsigned)CPU_COUNT(&set);
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* best effort: a container may forbid it; timings are then noisier */
	sched_setaffinity(0, sizeof(set), &set);
}

static void *worker_main(void *p)
{
	struct worker_arg a = *(struct worker_arg *)p;
	struct workers *w = a.w;

	free(p);
	pin_self(w->cpus[a.tid]);
	sem_wait(&w->started);
	if (w->quit)
		return NULL;
	for (;;) {
		pthread_barrier_wait(&w->go);
		if (w->quit)
			break;
		if (a.tid < w->nactive) {
			spin_until(w, a.tid);
			w->fn(a.tid, w->arg);
		}
		pthread_barrier_wait(&w->done);
	}
	return NULL;
}

int workers_start(unsigned n, struct workers **out)
{
	return workers_start_on(NULL, n, out);
}

int workers_start_on(const int *cpus, unsigned n, struct workers **out)
{
	struct workers *w = calloc(1, sizeof(*w));
	unsigned k = 0;

	if (!w)
		return -ENOMEM;
	if (sched_getaffinity(0, sizeof(w->saved), &w->saved))
		CPU_ZERO(&w->saved);
	if (cpus) {
		for (; k < n && k < CPU_SETSIZE; k++)
			w->cpus[k] = cpus[k];
	} else {
		for (int c = 0; c < CPU_SETSIZE && k < n; c++)
			if (CPU_ISSET(c, &w->saved))
				w->cpus[k++] = c;
	}
	n = k ? k : 1;
	w->n = n;
	w->lead_ns = 50000;
	w->threads = calloc(n, sizeof(*w->threads));
	if (!w->threads || sem_init(&w->started, 0, 0) ||
	    pthread_barrier_init(&w->go, NULL, n) || pthread_barrier_init(&w->done, NULL, n)) {
		free(w->threads);
		free(w);
		return -ENOMEM;
	}
	pin_self(w->cpus[0]);
	for (unsigned i = 1; i < n; i++) {
		struct worker_arg *a = malloc(sizeof(*a));
		int e = ENOMEM;

		if (a) {
			a->w = w;
			a->tid = i;
			e = pthread_create(&w->threads[i], NULL, worker_main, a);
		}
		if (e) {
			free(a);
			/* the threads started so far leave without a barrier */
			w->quit = true;
			for (unsigned j = 1; j < i; j++)
				sem_post(&w->started);
			for (unsigned j = 1; j < i; j++)
				pthread_join(w->threads[j], NULL);
			w->n = 1;
			workers_stop(w);
			return -e;
		}
	}
	for (unsigned i = 1; i < n; i++)
		sem_post(&w->started);
	*out = w;
	return 0;
}

void workers_run(struct workers *w, unsigned nactive, workers_fn fn, void *arg)
{
	if (w->n == 1 || nactive <= 1) {
		fn(0, arg);
		return;
	}
	uint64_t late = 0;

	if (nactive > w->n)
		nactive = w->n;
	w->fn = fn;
	w->arg = arg;
	w->nactive = nactive;
	w->start_ns = now_ns() + w->lead_ns;
	pthread_barrier_wait(&w->go);
	spin_until(w, 0);
	fn(0, arg);
	pthread_barrier_wait(&w->done);
	for (unsigned i = 1; i < nactive; i++)
		late = w->late_ns[i] > late ? w->late_ns[i] : late;
	if (late > 0)
		w->lead_ns = 2 * w->lead_ns + late;
	else
		w->lead_ns -= w->lead_ns / 16;
	if (w->lead_ns < LEAD_MIN_NS)
		w->lead_ns = LEAD_MIN_NS;
	if (w->lead_ns > LEAD_MAX_NS)
		w->lead_ns = LEAD_MAX_NS;
}

void workers_stop(struct workers *w)
{
	if (!w)
		return;
	if (w->n > 1) {
		w->quit = true;
		pthread_barrier_wait(&w->go);
		for (unsigned i = 1; i < w->n; i++)
			pthread_join(w->threads[i], NULL);
	}
	pthread_barrier_destroy(&w->go);
	pthread_barrier_destroy(&w->done);
	sem_destroy(&w->started);
	if (CPU_COUNT(&w->saved))
		sched_setaffinity(0, sizeof(w->saved), &w->saved);
	free(w->threads);
	free(w);
}
