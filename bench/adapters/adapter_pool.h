/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * adapter_pool.h - the executors that the Pool benchmarks (wl_pool.c) run,
 * behind one shape: conq_pool (conq/pool.h) with its default wake policy
 * and with the naive one, GLib's GThreadPool (shared and exclusive),
 * libuv's threadpool (uv_queue_work), a mutex + condvar pool written here,
 * and the ceiling: the same tasks through a bare conq queue to workers
 * that spin and never park.
 *
 * Every executor runs one function, given at create (the benchmark's task),
 * on the argument of each submit: no allocation per task in the benchmark
 * (an executor's own, GLib's list node per push, is its design). Like the
 * contenders of Uuid and Refcount, each is a cb_adapter for the reports
 * (name, family, kind, desc; contract 0: no queue workload runs it).
 */
#ifndef CB_ADAPTER_POOL_H
#define CB_ADAPTER_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "adapter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GLib's pools run their tasks on GLib's threads, which synchronise through
 * GLib's own futex-based mutexes: ThreadSanitizer would see a race in every
 * task, so its builds leave them out (CMake: CB_GLIB_POOL_DISABLED). */
#if defined(CB_HAVE_GLIB) && !defined(CB_GLIB_POOL_DISABLED)
#define CB_HAVE_GLIB_POOL 1
#endif

typedef void (*cb_exec_fn)(void *arg);

typedef struct cb_exec_cfg {
	unsigned workers;    /* worker threads */
	unsigned submitters; /* threads that submit, as 0..submitters-1 */
	/* Tasks that may be queued at once: a bounded executor holds at
	 * least this many (a burst always fits). */
	size_t capacity;
	cb_exec_fn fn; /* every task runs fn(arg) */
} cb_exec_cfg;

typedef struct cb_exec {
	cb_adapter a; /* first: results point at it */
	/* Start the executor (its workers); NULL with the reason in why. */
	void *(*create)(const cb_exec_cfg *cfg, char *why, size_t n);
	/* Stop it (every submitted task has run), free it. */
	void (*destroy)(void *x);
	/* Queue fn(arg) from submitter `sub` (each submitter index is used
	 * by one thread at a time): 0, EAGAIN (full: nothing queued, retry
	 * later), or another errno value. */
	int (*submit)(void *x, unsigned sub, void *arg);
	/* Optional, called by submitter `sub` between its submits and while
	 * it waits, never blocking: what the executor needs the submitting
	 * thread to do (libuv: run its loop's completions, uv_run NOWAIT). */
	void (*service)(void *x, unsigned sub);
	/* Optional: before an iteration (from its submitters; may be called
	 * several times) and after it (once every task of it has run). The
	 * ceiling's workers spin in between and sleep outside, so that they
	 * do not take the CPUs from the other contenders' iterations. */
	void (*begin)(void *x);
	void (*end)(void *x);
	/* Optional: the wake-ups of parked workers the executor made so far
	 * (its own count: conq_pool_stats' wakes, the signals of the mutex
	 * pool); NULL: it does not count them. */
	uint64_t (*wakes)(void *x);
} cb_exec;

/* The executors compiled in (GLib's and libuv's when found), in the order
 * the benchmarks list them. */
extern const cb_exec cb_exec_conq_pool, cb_exec_conq_pool_naive,
    cb_exec_mutex_pool, cb_exec_ceiling;
#ifdef CB_HAVE_GLIB_POOL
extern const cb_exec cb_exec_glib_shared, cb_exec_glib_exclusive;
#endif
#ifdef CB_HAVE_LIBUV
extern const cb_exec cb_exec_libuv;
#endif

#ifdef __cplusplus
}
#endif

#endif /* CB_ADAPTER_POOL_H */
