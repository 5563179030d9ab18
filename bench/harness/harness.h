/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * harness.h - worker threads and the per-iteration start/stop protocol, a C11
 * copy of JMH's (InfraControl + the generated loops):
 *
 *  1. The control thread resets the iteration control block and wakes the
 *     workers (they block on a condvar between iterations, so an idle worker
 *     never steals a CPU from setup or teardown on a small machine).
 *  2. Each worker announces itself (ready++) and runs its operation, uncounted,
 *     until every worker is ready (the catch-up loop): nobody measures while a
 *     partner is still waking up.
 *  3. Each worker records its own start time and runs its counted loop until
 *     the shared stop flag, which sits alone on a CB_PAD block and is read with
 *     a relaxed load per operation (a plain mov), is set.
 *  4. It records its stop time, announces it (stopped++), and keeps running its
 *     operation, uncounted, until every worker has stopped (warm-down): nobody
 *     measures a window in which a partner has already stopped.
 *  5. The control thread, once all are ready, sleeps for the iteration time,
 *     sets the flag, and blocks until every worker is back on its condvar.
 *     Under -bm ss (cb_ctl.self_stop) it does not sleep: the measured role
 *     sets the flag itself once its single shot is done (JMH's SingleShot
 *     ignores the iteration time).
 *
 * Each worker's rate is its counted operations over its own elapsed time.
 */
#ifndef CB_HARNESS_H
#define CB_HARNESS_H

#include <pthread.h>

#include "cb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The iteration control block: each field that changes during an iteration on
 * its own CB_PAD block. */
typedef struct cb_ctl {
	CB_ALIGNAS(CB_PAD) uint32_t ready;   /* workers past their announcement */
	CB_ALIGNAS(CB_PAD) uint32_t stopped; /* workers past their stop time */
	CB_ALIGNAS(CB_PAD) uint32_t done;    /* the stop flag, set by control */
	/* Read-only during an iteration. */
	CB_ALIGNAS(CB_PAD) uint32_t nthreads;
	uint32_t nproducers; /* producer ids are 0..nproducers-1 */
	bool yield; /* oversubscribed: sched_yield() every CB_YIELD_EVERY
		       consecutive failed ops */
	bool exact; /* --check with one consumer: each producer's elements
		       must arrive exactly in sequence (else: increasing) */
	bool self_stop; /* -bm ss: a role sets `done` after its one shot;
			   the control thread does not sleep out the
			   iteration time (loops.h, CB_OP_SHOT) */
	/* QueueThroughputSlowSide: cb_consume_cpu tokens after each measured
	 * successful offer / poll (0: none). */
	uint32_t offer_work, poll_work;
} cb_ctl;

/* --check, per consumer: what it took of each producer's sequence (all
 * iterations, catch-up and warm-down included). */
typedef struct cb_chk {
	uint64_t last[CB_MAX_THREADS]; /* last sequence taken (0: none) */
	uint64_t cnt[CB_MAX_THREADS];  /* how many taken */
	uint64_t sum[CB_MAX_THREADS];  /* sum of their sequences, mod 2^64 */
	uint64_t stray;                /* elements with no such producer */
} cb_chk;

/* One worker's slot, on its own CB_PAD blocks. The role function keeps its
 * counters in locals and writes them here once, after its warm-down. */
typedef struct cb_worker {
	CB_ALIGNAS(CB_PAD) cb_ctl *ctl;
	void *q;          /* the queue (adapter handle) */
	unsigned index;   /* thread index within the trial */
	unsigned pid;     /* producer id (producers), consumer number (consumers) */
	cb_chk *chk;      /* consumers under --check; owned by the workload */
	int cpu;          /* requested CPU, -1: not pinned */
	int pinned;       /* 1 if sched_setaffinity succeeded */
	int pin_errno;
	/* Carried across iterations, owned by the role (and by the control
	 * thread between iterations). */
	uint64_t seq; /* producer: sequence of its next element (from 1) */
	/* Results of the last iteration. */
	uint64_t made;       /* successful ops in the measured window */
	uint64_t failed;     /* failed ops in the measured window */
	uint64_t extra;      /* successful ops in catch-up and warm-down */
	uint64_t seq_errors; /* --check: elements out of order or stray */
	uint64_t torn; /* QueueValueThroughput: elements whose words differ */
	uint64_t t_start, t_stop;
	/* The thread's own view of the whole role call (catch-up to
	 * warm-down): involuntary context switches and the share of the wall
	 * time it was on a CPU. Either betrays a disturbed iteration. */
	uint64_t ivcsw;
	double cpu_share;
	/* -bm sample: the role records the latency of every 2^k-th operation
	 * here (histogram.h; owned by the workload); NULL in other modes. */
	struct cb_hist *hist;
} cb_worker;

/* getrusage(RUSAGE_THREAD) + the clock, at the edges of a role call (two
 * syscalls per iteration, outside the measured window). */
typedef struct cb_rusage {
	uint64_t wall_ns, cpu_ns, ivcsw;
} cb_rusage;
void cb_usage_read(cb_rusage *u);
void cb_usage_store(cb_worker *w, const cb_rusage *u0);

typedef void (*cb_role_fn)(cb_worker *w);

/* A trial's worker threads: created once, pinned, reused every iteration. */
typedef struct cb_group {
	cb_ctl *ctl;
	cb_worker *w; /* n slots, CB_PAD-aligned */
	pthread_t th[CB_MAX_THREADS];
	cb_role_fn role[CB_MAX_THREADS];
	unsigned n;
	pthread_mutex_t mu;
	pthread_cond_t go, fin;
	uint64_t gen;      /* iteration generation, under mu */
	unsigned started;  /* threads that reached their first wait, under mu */
	unsigned finished; /* threads done with the current iteration, under mu */
	bool quit;
} cb_group;

/* Start n workers; worker i runs role[i] each iteration, pinned to cpus[i]
 * (-1: not pinned), on queue q. Returns 0, or an errno value. */
int cb_group_start(cb_group *g, unsigned n, const cb_role_fn *role,
		   const int *cpus, void *q, bool yield);

/* Run one iteration of `ns` nanoseconds (with ctl->self_stop: until a role
 * sets the stop flag, `ns` unused). Returns 0, or ETIMEDOUT if the workers
 * did not get ready or did not stop within `timeout_ns`. */
int cb_group_iterate(cb_group *g, uint64_t ns, uint64_t timeout_ns);

/* Stop and join the workers. */
void cb_group_stop(cb_group *g);

/* Pin the calling thread to `cpu`; 0 or an errno value. */
int cb_pin_self(int cpu);

#ifdef __cplusplus
}
#endif

#endif /* CB_HARNESS_H */
