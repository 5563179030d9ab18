/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/pool.h - an executor whose submit and wake-up cost almost nothing,
 * and strands (serial executors) on it.
 *
 * Why: the cost of a thread pool is rarely its queue; it is waking parked
 * threads (the Artemis journal's poller spent 18.5% -> 59.4% of a core
 * "submitting tasks to awake threads of the pool"; rayon #642 burnt 30-200%
 * CPU on one spawn per 1-10 ms). A pool that wakes a worker on every submit
 * pays a futex wake, an IPI and a context switch per task; one that never
 * parks burns the CPU it should leave to others. conq_pool follows Go's
 * scheduler (wakep, resetspinning) and tokio's: wake a parked worker only
 * when no worker is searching for work and no wake is already in flight.
 *
 * The structure. Each worker owns a bounded local queue (conq_spmc_value of
 * 16-byte tasks: the owner pushes and pops, searching workers steal), and
 * outside threads submit into one shared inject queue (conq_mpmc_value,
 * bounded: a full one refuses with EAGAIN). No allocation per task. A task
 * submitted from inside a task goes to that worker's local queue (or, when
 * it is full, to the inject queue). A worker takes, in turn: its local
 * queue (the inject queue first every 61st task, for fairness), the inject
 * queue (up to 16 tasks with one claim, the rest kept in its own queue for
 * searchers to steal), and, as a searcher, the other workers' local
 * queues.
 *
 * The wake policy (docs/memory-model.md, "The pool's wake token"). One word
 * counts the searching workers and the unparked ones. A submit reads it and
 * wakes a parked worker only when nobody searches and somebody is parked;
 * the waker counts the woken worker as searching before it wakes it (the
 * token), so until that worker finds work no other submit wakes anybody:
 * never more than one wake in flight, and none while a worker searches. A
 * searcher that finds work stops searching and, if it was the last
 * searcher and more work is visible, wakes one more (the ramp-up of a
 * burst). A worker that finds nothing parks: it counts itself out, pushes
 * itself on a LIFO stack of sleepers (the most recently idled thread is
 * woken first: warm caches, and the others stay deeply asleep, as folly's
 * LifoSem), then looks at every queue once more and wakes a worker (maybe
 * itself) if it sees work. The asymmetric fence of conq/eventcount.h makes
 * that look and the submitter's read of the word unable to both miss: the
 * submitter's side is a compiler barrier and a relaxed load, the parker's a
 * membarrier(2) (where membarrier is unavailable, the submitter reads the
 * word with a read-modify-write instead). Each parked worker sleeps on a
 * futex word of its own that the waker sets before it wakes it, so a wake
 * is never lost to a worker between counting out and sleeping.
 *
 * Costs. A submit while workers are busy: the inject queue's offer, two
 * atomic adds on a line of the outside submitters' own (the counts that
 * wait_idle and destroy compare), and one relaxed load; no futex call.
 * While one worker searches and another is parked, one more atomic RMW of
 * the state word ([PK6]: the searcher may take another task). A submit to
 * an idle pool: one futex wake. A worker that runs out of work parks at once
 * (spin_ns = 0, the default: no CPU burnt while idle) or after spinning
 * spin_ns as a searcher.
 *
 * Who may call what (A = any thread, W = a worker of this pool, running a
 * task of it):
 *
 *   function                       caller   progress
 *   conq_pool_create               A        allocates, starts threads
 *   conq_pool_submit, _submit_batch  A, W   lock-free: offers into a
 *                                           bounded queue; a wake takes a
 *                                           short lock, then one futex
 *                                           call
 *   conq_pool_wait_idle            A, not W blocking
 *   conq_pool_destroy              A, not W blocking, once; waits for
 *                                           outside calls in progress
 *   conq_pool_threads, _stats      A        wait-free
 *
 * Ordering: everything a thread did before submitting a task happens-before
 * the task runs (the queues' release/acquire); everything a task did
 * happens-before wait_idle() or destroy() returns in a thread that saw it
 * counted (each worker's count of finished tasks is a release store, read
 * with acquire).
 *
 * Errors: every function that can fail returns 0 or an errno code (and
 * leaves errno alone): EINVAL (NULL pool or fn, bad options, a pool whose
 * destroy() has begun), EAGAIN (the queue is full: nothing was queued, the
 * task is still the caller's), ENOMEM, EDEADLK (wait_idle or destroy from a
 * worker of the same pool, which could never return). A task is never lost
 * silently: it is queued and will run, or the call says why not.
 */
#ifndef CONQ_POOL_H
#define CONQ_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "conq/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_pool conq_pool;
typedef struct conq_strand conq_strand;

/* A task: fn(arg), run once on some worker. */
typedef void (*conq_task_fn)(void *arg);

typedef struct conq_task {
	conq_task_fn fn;
	void *arg;
} conq_task;

/* How a submit wakes parked workers. */
enum conq_pool_wake {
	/* Go's wakep (default): only when nobody searches and no wake is in
	 * flight. */
	CONQ_POOL_WAKE_SEARCHING = 0,
	/* Wake one parked worker on every submit that finds one parked: the
	 * naive policy, kept as the benchmarks' baseline. */
	CONQ_POOL_WAKE_EVERY = 1,
};

/* conq_pool_create's options; a zeroed struct (or NULL) gives defaults. */
typedef struct conq_pool_opts {
	/* Worker threads: 0 means the CPUs this process may run on
	 * (sched_getaffinity); at most CONQ_POOL_MAX_THREADS. */
	unsigned threads;
	/* Nanoseconds a worker that ran out of work keeps searching before
	 * it parks: 0 (default) parks at once. At most 10^9 (one second). */
	unsigned spin_ns;
	/* The inject queue's capacity (rounded up to a power of two): 0 means
	 * CONQ_POOL_DEFAULT_CAPACITY; at most 2^28 (CONQ_VALUE_MAX_CAPACITY,
	 * smaller in narrow-index test builds). A submit to a full queue
	 * fails with EAGAIN. */
	size_t capacity;
	/* Each worker's local queue (tasks submitted from tasks): 0 means
	 * 256 (at least 64); at most 2^20 (and CONQ_VALUE_MAX_CAPACITY).
	 * When it is full they go to the inject queue. */
	size_t local_capacity;
	/* Thread names: "<name>-<i>", the name cut to 10 characters so that
	 * the index fits the kernel's 15; NULL means "conq-pool". */
	const char *name;
	/* CPU affinity: worker i runs on cpus[i % ncpus] (ncpus 0: no
	 * pinning). A CPU the process may not use fails create (EINVAL). */
	const int *cpus;
	unsigned ncpus;
	/* enum conq_pool_wake. */
	unsigned wake;
} conq_pool_opts;

#define CONQ_POOL_MAX_THREADS	   1024u
#define CONQ_POOL_DEFAULT_CAPACITY ((size_t)1 << 16)

/* Start a pool. NULL on failure, nothing left running, errno: EINVAL (bad
 * options), ENOMEM, EAGAIN (a thread could not be started), or another
 * error pthread_create returned (EPERM). */
conq_pool *conq_pool_create(const conq_pool_opts *opts);

/* Queue fn(arg) to run once on a worker. 0, or EINVAL (p or fn NULL, or
 * destroy has begun and the caller is not one of p's workers), EAGAIN (the
 * queue is full; nothing was queued). From a worker of p, the task goes to
 * that worker's local queue. */
int conq_pool_submit(conq_pool *p, conq_task_fn fn, void *arg);

/* Queue the n tasks of ts[] (each fn non-NULL), all or none, with one wake
 * decision: 0, or EINVAL (p or ts NULL, a NULL fn, destroy has begun),
 * EAGAIN (fewer than n free slots, or n above the queue's capacity). n == 0
 * (ts non-NULL) is 0. */
int conq_pool_submit_batch(conq_pool *p, const conq_task *ts, size_t n);

/* Wait until every task submitted before the call, and every task those
 * submitted, has finished. With submitters that never stop it may never
 * return. 0, or EINVAL (p NULL), EDEADLK (called from one of p's tasks). */
int conq_pool_wait_idle(conq_pool *p);

/* Refuse further submits from outside the pool (EINVAL), run everything
 * submitted (tasks may still submit more), wait until every outside call
 * in progress has returned, stop and join the workers, free p. 0, or EINVAL
 * (p NULL), EDEADLK (from one of p's tasks: nothing is done). A submit from
 * another thread that races destroy is refused or runs its task, never
 * lost. Destroy p's strands first; a call on p that starts after destroy
 * returned uses freed memory, as with any freed object. */
int conq_pool_destroy(conq_pool *p);

/* The number of worker threads. */
unsigned conq_pool_threads(const conq_pool *p);

/* Counters, summed over the pool's life (relaxed reads; for benchmarks and
 * tests). */
typedef struct conq_pool_stats {
	uint64_t submitted; /* tasks accepted (a strand's tasks count as
			     * one per activation of its runner) */
	uint64_t completed; /* tasks finished */
	uint64_t wakes;	    /* futex wakes of a parked worker */
	uint64_t parks;	    /* times a worker went to sleep */
	uint64_t steals;    /* tasks taken from another worker's queue */
} conq_pool_stats;

/* Fill *out (p NULL: zeroes; out NULL: nothing). */
void conq_pool_stats_get(const conq_pool *p, conq_pool_stats *out);

/*
 * conq_strand: a serial executor on a pool. Tasks submitted to one strand
 * run one at a time, in the order their submits were linearised (for one
 * submitting thread: its submit order), each on whichever worker; a task of
 * a strand happens-before the strand's next task. Strands of one pool run
 * in parallel with each other. (Artemis' and BookKeeper's OrderedExecutor,
 * asio's strand.)
 *
 * The protocol ("the strand's hand-over", docs/memory-model.md): a bounded
 * MPSC queue of tasks (conq_mpsc_value) and a count of pending tasks. A
 * submit queues its task, then adds 1 to the count; the submit that moves
 * it from 0 schedules the strand's runner on the pool. The runner runs
 * tasks and subtracts 1 per task; it stops when the count reaches 0, and
 * after 64 tasks re-submits itself so that one busy strand cannot hold a
 * worker for ever.
 *
 *   function                 caller    progress
 *   conq_strand_create       A         allocates
 *   conq_strand_submit       A, W      lock-free (a strand that was idle
 *                                      is pushed on the pool's unbounded
 *                                      ready queue: it cannot fail)
 *   conq_strand_wait_idle    A, not W  blocking
 *   conq_strand_destroy      A, not W  blocking; once no other call on
 *                                      the strand runs or starts
 *
 * Errors: EINVAL, EAGAIN (the strand's queue is full: nothing was queued),
 * ENOMEM (create), EDEADLK (wait_idle or destroy from any task of the
 * pool: the strand's runner needs a worker, and each might be waiting).
 */

/* A strand on p whose queue holds `capacity` tasks (rounded up to a power
 * of two; 0 means 1024, at most 2^28). NULL with errno EINVAL / ENOMEM. The
 * strand must be destroyed before its pool. */
conq_strand *conq_strand_create(conq_pool *p, size_t capacity);

/* Queue fn(arg) on the strand. 0, or EINVAL, EAGAIN (see above). */
int conq_strand_submit(conq_strand *s, conq_task_fn fn, void *arg);

/* Wait until the strand has nothing pending: everything submitted before
 * the call has run (with submitters that never stop it may never return).
 * 0, or EINVAL, EDEADLK (from a task of the strand's pool). */
int conq_strand_wait_idle(conq_strand *s);

/* Wait for the strand's pending tasks, then free it. 0, or EINVAL,
 * EDEADLK (from a task of the strand's pool: nothing is done). */
int conq_strand_destroy(conq_strand *s);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_POOL_H */
