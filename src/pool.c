/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/pool.c - conq_pool and conq_strand (conq/pool.h): workers, the wake
 * token, parking, wait_idle/destroy's counts, and the strands' hand-over.
 * docs/memory-model.md, "The pool's wake token" and "The strand's
 * hand-over", has the pairing tables ([PK*], [PS*], [PW*], [PR*], [ST*]);
 * spin/pool.pml models the park/wake protocol.
 */
#define _GNU_SOURCE /* pthread_setname_np, pthread_attr_setaffinity_np */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "conq/eventcount.h"
#include "conq/mpmc_value.h"
#include "conq/mpsc_intrusive.h"
#include "conq/mpsc_value.h"
#include "conq/pool.h"
#include "conq/spmc_value.h"
#include "internal.h"

/* The state word: searching workers in the low half, unparked workers in
 * the high half. */
#define CONQ__POOL_SEARCH_ONE	UINT64_C(1)
#define CONQ__POOL_UNPARK_ONE	(UINT64_C(1) << 32)
#define CONQ__POOL_SEARCHING(s) ((uint32_t)(s))
#define CONQ__POOL_UNPARKED(s)	((uint32_t)((s) >> 32))

/* Every 61st task a worker looks at the shared queues before its own (Go's
 * schedule(): one in 61), so that a worker feeding itself cannot starve
 * outside submitters. */
#define CONQ__POOL_FAIR 61u
/* A steal takes half the victim's queue, at most this many. */
#define CONQ__POOL_STEAL_MAX 32u
/* A worker whose own queue is empty takes up to this many tasks from the
 * inject queue with one claim, runs the first and keeps the rest in its
 * own queue (where searchers may steal them): one CAS of the shared
 * consumer index per batch instead of per task. 1: one at a time. */
#ifndef CONQ__POOL_INJECT_BATCH
#define CONQ__POOL_INJECT_BATCH 16u
#endif
/* A strand's runner runs at most this many tasks, then re-schedules. */
#define CONQ__STRAND_BATCH 64u
/* A parked worker whose heavy fence failed sleeps at most this long before
 * it looks again (as conq_eventcount_wait without membarrier). */
#define CONQ__POOL_BOUNDED_SLEEP_NS 1000000L

struct conq__pool_worker {
	/* The owner's block: written by the owner only, read by wait_idle
	 * and stats. */
	uint64_t completed; /* [PW1] tasks finished: release store */
	uint64_t submitted; /* tasks its tasks queued (strand runs included) */
	uint64_t refused;   /* of those, refused: counted as done */
	uint64_t parks, steals;
	unsigned tick;
	unsigned index;
	conq_pool *pool;
	conq_spmc_value *local;
	pthread_t thread;
	/* The park word, on a line of its own: set by a waker [PK3], read
	 * and cleared by the owner [PK4]. */
	uint32_t notified __attribute__((aligned(CONQ_PAD)));
} __attribute__((aligned(CONQ_PAD)));

struct conq_pool {
	/* Read-mostly: set at create; closing and stop once, by destroy. */
	unsigned nworkers;
	unsigned spin_ns;
	unsigned wake;
	int fence_rmw; /* no membarrier: the light side pays an RMW */
	conq_mpmc_value *inject;
	struct conq__pool_worker *workers;
	unsigned *sleepers; /* the LIFO stack of parked workers' indices */
	uint32_t closing;   /* [PS2] */
	uint32_t stop;
	/* Searching | unparked: written by workers on their transitions and
	 * by wakers, read by every submit. */
	uint64_t state __attribute__((aligned(CONQ_PAD)));
	/* Outside submitters' counts (and strand schedules from outside). */
	uint64_t ext_submitted __attribute__((aligned(CONQ_PAD)));
	uint64_t ext_refused;
	uint64_t ext_left; /* [PS3] outside calls' tasks whose call returned */
	/* The sleepers' lock and what it guards. */
	pthread_mutex_t sleep_lock __attribute__((aligned(CONQ_PAD)));
	unsigned nsleepers;
	uint64_t wakes;
	/* wait_idle's and the strands' eventcounts; the ready strands'
	 * consumer lock. */
	conq_eventcount idle_ec __attribute__((aligned(CONQ_PAD)));
	conq_eventcount strand_ec;
	uint32_t ready_lock;
	/* Strands whose runner is due: pushed by any thread, popped by one
	 * worker at a time under ready_lock. */
	conq_mpsc_intrusive ready;
};

struct conq_strand {
	conq_mpsc_intrusive_node node; /* its link in pool->ready */
	conq_pool *pool;
	conq_mpsc_value *q;
	/* Tasks submitted and not yet finished: [ST1]/[ST2]. */
	uint64_t pending __attribute__((aligned(CONQ_PAD)));
} __attribute__((aligned(CONQ_PAD)));

/* The worker this thread is (NULL outside every pool). */
static __thread struct conq__pool_worker *conq__pool_me;

static struct conq__pool_worker *conq__pool_self(const conq_pool *p)
{
	struct conq__pool_worker *w = conq__pool_me;
	return w != NULL && w->pool == p ? w : NULL;
}

/* Owner-only counters: a relaxed load of our own value, a store others
 * read. */
static void conq__pool_bump(uint64_t *c, uint64_t n)
{
	conq__store_relaxed(c, conq__load_relaxed(c) + n);
}

/* ------------------------------------------------------------- futexes -- */

static void conq__pool_futex_wait(uint32_t *word, int bounded)
{
	struct timespec ts = {0, CONQ__POOL_BOUNDED_SLEEP_NS};
	int saved = errno;
	syscall(SYS_futex, word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0,
		bounded ? &ts : NULL, NULL, 0);
	errno = saved;
}

static void conq__pool_futex_wake(uint32_t *word)
{
	int saved = errno;
	syscall(SYS_futex, word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL,
		0);
	errno = saved;
}

/* ---------------------------------------------------- the wake token -- */

static bool conq__pool_ready(conq_pool *p, conq_task *t);

/* Is any task visible in any queue? The parker's re-check [PK2], and the
 * searcher's "more work" test. (A ring's is_empty counts a slot claimed
 * and not yet committed: a submitter preempted there can make a parker
 * wake itself and park again until it commits.) */
static bool conq__pool_work_visible(conq_pool *p)
{
	if (!conq_mpmc_value_is_empty(p->inject) || conq__pool_ready(p, NULL))
		return true;
	for (unsigned i = 0; i < p->nworkers; i++)
		if (!conq_spmc_value_is_empty(p->workers[i].local))
			return true;
	return false;
}

/* The slow half of a wake: under the lock, pop the most recently parked
 * worker, count it unparked and searching (the token), then set its park
 * word and wake it. */
static void conq__pool_wake(conq_pool *p)
{
	pthread_mutex_lock(&p->sleep_lock);
	/* [PK8] acq_rel RMW: a searcher that started after the caller's read
	 * of the word is ordered after it only through the word: if we see
	 * it here and let it be, its [PK7] reads from this RMW, so its look
	 * for more work sees the task the caller queued (as [PK6]). */
	uint64_t s = conq__faa_acq_rel(&p->state, (uint64_t)0);
	if (p->nsleepers == 0 || (p->wake == CONQ_POOL_WAKE_SEARCHING &&
				  CONQ__POOL_SEARCHING(s) != 0)) {
		pthread_mutex_unlock(&p->sleep_lock);
		return;
	}
	/* seq_cst, as every RMW of the state: one order of all transitions
	 * ([PK1] of the parkers, the searchers' counts). */
	conq__faa_seq_cst(&p->state,
			  CONQ__POOL_UNPARK_ONE + CONQ__POOL_SEARCH_ONE);
	struct conq__pool_worker *w = &p->workers[p->sleepers[--p->nsleepers]];
	conq__store_relaxed(&p->wakes, p->wakes + 1);
	pthread_mutex_unlock(&p->sleep_lock);
	/* [PK3] release: pairs with [PK4], the sleeper's acquire load; the
	 * futex wake cannot be lost, the kernel compares the word under its
	 * bucket lock before it sleeps. */
	conq__store_release(&w->notified, 1u);
	conq__pool_futex_wake(&w->notified);
}

/* After queueing work: wake a parked worker if nobody searches (Go's
 * wakep). Nobody parked, or a searcher about: a compiler barrier and one
 * relaxed load. */
static inline void conq__pool_notify(conq_pool *p)
{
	uint64_t s;
	if (CONQ__LIKELY(!p->fence_rmw)) {
		/* [PK5] the light half of the asymmetric fence: our queue
		 * store stays before this load in program order; the CPU is
		 * made to keep it by the parker's membarrier after [PK1]. */
		conq__compiler_barrier();
		s = conq__load_relaxed(&p->state);
	} else {
		/* [PK5'] acq_rel RMW: later than [PK1] in the word's order, it
		 * sees the parker; earlier, [PK1] reads from it and our queue
		 * store happens-before the parker's re-check [PK2]. */
		s = conq__faa_acq_rel(&p->state, (uint64_t)0);
	}
	if (CONQ__LIKELY(CONQ__POOL_UNPARKED(s) == p->nworkers))
		return; /* nobody parked */
	if (p->wake == CONQ_POOL_WAKE_SEARCHING &&
	    CONQ__POOL_SEARCHING(s) != 0) {
		/* [PK6] acq_rel RMW: a searcher about, and one parked. The
		 * searcher may find another task, stop searching [PK7] and
		 * look for more before our task is visible to it, while our
		 * relaxed load still read it searching (no fence pairs these
		 * two: spin/pool.pml's JOIN trail). Read again with an RMW,
		 * ordered with [PK7]: later, it shows the searcher gone and
		 * we wake; earlier, [PK7] reads from it and the searcher's
		 * look sees our task. */
		if (!p->fence_rmw)
			s = conq__faa_acq_rel(&p->state, (uint64_t)0);
		if (CONQ__POOL_UNPARKED(s) == p->nworkers ||
		    CONQ__POOL_SEARCHING(s) != 0)
			return; /* it will find our task, or re-check */
	}
	conq__pool_wake(p);
}

/* ------------------------------------------------------------ workers -- */

static void conq__pool_run(struct conq__pool_worker *w, const conq_task *t)
{
	t->fn(t->arg);
	/* [PW1] release: the task's effects, and the counts of what it
	 * submitted, before wait_idle's acquire load of completed [PW2]. */
	conq__store_release(&w->completed,
			    conq__load_relaxed(&w->completed) + 1);
}

static void conq__strand_run(void *arg);

/* The ready strands, one consumer at a time: pop one as a task running
 * its queue (t non-NULL), or only look (t NULL: the re-check). False when
 * empty; when the oldest is still a bubble (its pusher links it, then
 * notifies: a look that misses it is the [PK1]/[PK5] case again, the link
 * being the store); and when another worker holds the consumer role (it
 * is running: it looks again, or re-checks as it parks). */
static bool conq__pool_ready(conq_pool *p, conq_task *t)
{
	if (conq_mpsc_intrusive_is_empty(&p->ready))
		return false;
	uint32_t free_ = 0;
	/* [PR1] acquire on success: pairs with [PR2], the previous
	 * holder's release, handing the consumer role on. Strong: a
	 * spurious failure would read as "somebody else holds it". */
	if (!conq__cas_strong_acq_rel(&p->ready_lock, &free_, 1u))
		return false;
	conq_mpsc_intrusive_node *n =
	    t != NULL ? conq_mpsc_intrusive_relaxed_pop(&p->ready)
		      : conq_mpsc_intrusive_relaxed_peek(&p->ready);
	conq__store_release(&p->ready_lock, 0u); /* [PR2] */
	if (n == NULL)
		return false;
	if (t != NULL) {
		t->fn = conq__strand_run;
		t->arg = (conq_strand *)(void *)n;
	}
	return true;
}

/* From the inject queue into an empty own queue: up to
 * CONQ__POOL_INJECT_BATCH with one claim; the first in *t. */
static bool conq__pool_take_inject(conq_pool *p, struct conq__pool_worker *w,
				   conq_task *t)
{
#if CONQ__POOL_INJECT_BATCH > 1
	conq_task got[CONQ__POOL_INJECT_BATCH];
	size_t k =
	    conq_mpmc_value_poll_burst(p->inject, got, CONQ__POOL_INJECT_BATCH);
	if (k == 0)
		return false;
	size_t put = conq_spmc_value_offer_burst(w->local, got + 1, k - 1);
	/* Our queue was empty and holds at least 64: it all fits. Should it
	 * not, run the rest here rather than drop one. */
	for (size_t j = 1 + put; j < k; j++)
		conq__pool_run(w, &got[j]);
	*t = got[0];
	return true;
#else
	(void)w;
	return conq_mpmc_value_relaxed_poll(p->inject, t);
#endif
}

/* The worker's own queue first; the shared ones first every 61st time. */
static bool conq__pool_find(conq_pool *p, struct conq__pool_worker *w,
			    conq_task *t)
{
	if (CONQ__UNLIKELY(++w->tick % CONQ__POOL_FAIR == 0) &&
	    (conq_mpmc_value_relaxed_poll(p->inject, t) ||
	     conq__pool_ready(p, t)))
		return true;
	return conq_spmc_value_relaxed_poll(w->local, t) ||
	       conq__pool_take_inject(p, w, t) || conq__pool_ready(p, t);
}

/* A searcher's round: the other workers' queues (half of one, at most 32;
 * the rest into our own, which is empty), then the shared ones again. */
static bool conq__pool_steal(conq_pool *p, struct conq__pool_worker *w,
			     conq_task *t)
{
	conq_task got[CONQ__POOL_STEAL_MAX];
	unsigned n = p->nworkers;
	for (unsigned i = 1; i < n; i++) {
		struct conq__pool_worker *v = &p->workers[(w->index + i) % n];
		size_t k = conq_spmc_value_size(v->local);
		if (k == 0)
			continue;
		k = (k + 1) / 2;
		if (k > CONQ__POOL_STEAL_MAX)
			k = CONQ__POOL_STEAL_MAX;
		k = conq_spmc_value_poll_burst(v->local, got, k);
		if (k == 0)
			continue;
		conq__pool_bump(&w->steals, k);
		size_t put =
		    conq_spmc_value_offer_burst(w->local, got + 1, k - 1);
		/* Our queue was empty and only we fill it, and it holds at
		 * least 64: everything fits. Should it not, run the rest here
		 * rather than drop one. */
		for (size_t j = 1 + put; j < k; j++)
			conq__pool_run(w, &got[j]);
		*t = got[0];
		return true;
	}
	return conq_mpmc_value_relaxed_poll(p->inject, t) ||
	       conq__pool_ready(p, t);
}

/* Become a searcher, if fewer than half the workers search (tokio's cap;
 * a pool of one may always). */
static bool conq__pool_try_search(conq_pool *p)
{
	uint64_t s = conq__load_relaxed(&p->state);
	if (2 * CONQ__POOL_SEARCHING(s) >= p->nworkers && p->nworkers > 1)
		return false;
	/* seq_cst, as every RMW of the word: ordered with the submitters'
	 * [PK6] and the wakers' [PK8] (a stale cap check above only lets one
	 * searcher too many in for a moment, or keeps one out). */
	conq__faa_seq_cst(&p->state, CONQ__POOL_SEARCH_ONE);
	return true;
}

/* A searcher found work: stop searching; the last one wakes another worker
 * if more work is visible (the ramp-up; Go's resetspinning). */
static void conq__pool_found(conq_pool *p)
{
	/* [PK7] seq_cst: pairs with [PK6], a submitter's RMW that saw us
	 * searching. */
	uint64_t s = conq__faa_seq_cst(&p->state, -CONQ__POOL_SEARCH_ONE);
	if (CONQ__POOL_SEARCHING(s) == 1 && conq__pool_work_visible(p))
		conq__pool_notify(p);
}

/* Park: count out, push ourselves on the sleepers' stack, re-check every
 * queue, sleep until a waker sets our word. Returns false if the pool is
 * stopping (then we exit without sleeping). On return we are counted as
 * searching (the waker's token). */
static bool conq__pool_park(conq_pool *p, struct conq__pool_worker *w,
			    bool searching)
{
	pthread_mutex_lock(&p->sleep_lock);
	/* acquire (and the lock): pairs with conq__pool_stop's release
	 * [PS4]; destroy set stop before it took this lock to wake all, so
	 * we would sleep through it. */
	if (conq__load_acquire(&p->stop)) {
		pthread_mutex_unlock(&p->sleep_lock);
		return false;
	}
	/* [PK1] seq_cst: count us out. Pairs with [PK5] (a submitter's
	 * relaxed load) through the membarrier below, or with [PK5'] (its
	 * RMW): either the submitter sees us parked and wakes one of us, or
	 * our re-check [PK2] sees its task. */
	conq__faa_seq_cst(
	    &p->state,
	    -(CONQ__POOL_UNPARK_ONE + (searching ? CONQ__POOL_SEARCH_ONE : 0)));
	p->sleepers[p->nsleepers++] = w->index;
	pthread_mutex_unlock(&p->sleep_lock);
	conq__pool_bump(&w->parks, 1);
	int bounded = 0;
	if (!p->fence_rmw && conq__heavy_fence() != 0)
		bounded = 1; /* no heavy fence: look again every 1 ms */
	/* [PK2] the re-check: a task queued before a submitter's [PK5] that
	 * did not see us. We may wake ourselves (we are on top). */
	if (conq__pool_work_visible(p))
		conq__pool_notify(p);
	/* [PK4] acquire: pairs with [PK3]. */
	while (!conq__load_acquire(&w->notified)) {
		conq__pool_futex_wait(&w->notified, bounded);
		if (bounded && !conq__load_acquire(&w->notified) &&
		    conq__pool_work_visible(p))
			conq__pool_notify(p);
	}
	conq__store_relaxed(&w->notified, 0u);
	return true;
}

/* Spin as a searcher for up to spin_ns (opts.spin_ns) before parking. */
static bool conq__pool_spin(conq_pool *p, struct conq__pool_worker *w,
			    conq_task *t)
{
	int64_t until = conq_now_ns() + (int64_t)p->spin_ns;
	do {
		for (int i = 0; i < 16; i++)
			conq__cpu_relax();
		if (conq__pool_find(p, w, t) || conq__pool_steal(p, w, t))
			return true;
		if (conq__load_relaxed(&p->stop))
			return false;
	} while (conq_now_ns() < until);
	return false;
}

static void *conq__pool_main(void *arg)
{
	struct conq__pool_worker *w = arg;
	conq_pool *p = w->pool;
	conq__pool_me = w;
	bool searching = false, ran = false;
	conq_task t;
	for (;;) {
		if (!searching && conq__pool_find(p, w, &t))
			goto run;
		if (!searching)
			searching = conq__pool_try_search(p);
		if (searching &&
		    (conq__pool_find(p, w, &t) || conq__pool_steal(p, w, &t)))
			goto run;
		if (ran) {
			/* Ran out of work: wait_idle may be waiting [PW3].
			 * Before the spin, which may last spin_ns. */
			ran = false;
			conq_eventcount_notify_all(&p->idle_ec);
		}
		if (searching && p->spin_ns != 0 && conq__pool_spin(p, w, &t))
			goto run;
		if (conq__load_acquire(&p->stop)) /* [PS4] */
			break;
		if (!conq__pool_park(p, w, searching))
			break;
		searching = true; /* the waker's token */
		continue;
	run:
		if (searching) {
			searching = false;
			conq__pool_found(p);
		}
		conq__pool_run(w, &t);
		ran = true;
	}
	conq__pool_me = NULL;
	return NULL;
}

/* -------------------------------------------------------- the counts -- */

/* Count a task in before queueing it: from a worker of p, its own count;
 * else the outside count, refused once destroy has begun. An outside call
 * ends with conq__pool_leave, whatever happened. */
static int conq__pool_count_in(conq_pool *p, struct conq__pool_worker *me,
			       uint64_t n, bool check_closing)
{
	if (me != NULL) {
		conq__pool_bump(&me->submitted, n);
		return 0;
	}
	/* [PS1] seq_cst: pairs with destroy's [PS2] (its store of closing,
	 * then its loads of the counts): either we see closing, or destroy
	 * sees our count and waits for the task and for our leave [PS3]. */
	conq__faa_seq_cst(&p->ext_submitted, n);
	if (check_closing && conq__load_seq_cst(&p->closing)) {
		/* [PW4] release: pairs with [PW2]'s acquire of ext_refused:
		 * a refused task counts as done. */
		conq__faa_release(&p->ext_refused, n);
		conq_eventcount_notify_all(&p->idle_ec); /* [PW3] */
		return EINVAL;
	}
	return 0;
}

/* A counted task that could not be queued: count it done. */
static void conq__pool_count_out(conq_pool *p, struct conq__pool_worker *me,
				 uint64_t n)
{
	if (me != NULL) {
		/* [PW4] release: read with acquire, as completed [PW2]. */
		conq__store_release(&me->refused,
				    conq__load_relaxed(&me->refused) + n);
		return;
	}
	conq__faa_release(&p->ext_refused, n);	 /* [PW4] */
	conq_eventcount_notify_all(&p->idle_ec); /* [PW3] */
}

/* The end of an outside call that counted n in: its last access to p.
 * [PS3] release: pairs with destroy's acquire load of ext_left, after
 * which p may be freed. */
static void conq__pool_leave(conq_pool *p, struct conq__pool_worker *me,
			     uint64_t n)
{
	if (me == NULL)
		conq__faa_release(&p->ext_left, n);
}

/* Everything counted in has finished. Done counts first, then submitted
 * ones: a task counted done was counted in, and so was everything it
 * queued before it finished ([PW1] -> [PW2]), so equal sums mean nothing
 * counted in is left. */
static bool conq__pool_is_idle(conq_pool *p)
{
	/* [PW2] acquire: pairs with [PW4], the refusals. */
	uint64_t done = conq__load_acquire(&p->ext_refused), in = 0;
	for (unsigned i = 0; i < p->nworkers; i++) {
		struct conq__pool_worker *w = &p->workers[i];
		/* [PW2] acquire: pairs with [PW1]. */
		done += conq__load_acquire(&w->completed) +
			conq__load_acquire(&w->refused);
	}
	in = conq__load_seq_cst(&p->ext_submitted);
	for (unsigned i = 0; i < p->nworkers; i++)
		in += conq__load_relaxed(&p->workers[i].submitted);
	return done == in;
}

/* ------------------------------------------------------------ submits -- */

int conq_pool_submit(conq_pool *p, conq_task_fn fn, void *arg)
{
	if (p == NULL || fn == NULL)
		return EINVAL;
	conq_task t = {fn, arg};
	struct conq__pool_worker *me = conq__pool_self(p);
	int rc = conq__pool_count_in(p, me, 1, true);
	if (rc == 0) {
		if ((me != NULL && conq_spmc_value_offer(me->local, &t)) ||
		    conq_mpmc_value_offer(p->inject, &t)) {
			conq__pool_notify(p);
		} else {
			conq__pool_count_out(p, me, 1);
			rc = EAGAIN;
		}
	}
	conq__pool_leave(p, me, 1);
	return rc;
}

int conq_pool_submit_batch(conq_pool *p, const conq_task *ts, size_t n)
{
	if (p == NULL || ts == NULL)
		return EINVAL;
	for (size_t i = 0; i < n; i++)
		if (ts[i].fn == NULL)
			return EINVAL;
	if (n == 0)
		return 0;
	struct conq__pool_worker *me = conq__pool_self(p);
	int rc = conq__pool_count_in(p, me, n, true);
	if (rc == 0) {
		if ((me != NULL &&
		     conq_spmc_value_offer_bulk(me->local, ts, n) == n) ||
		    conq_mpmc_value_offer_bulk(p->inject, ts, n) == n) {
			conq__pool_notify(p);
		} else {
			conq__pool_count_out(p, me, n);
			rc = EAGAIN;
		}
	}
	conq__pool_leave(p, me, n);
	return rc;
}

/* ------------------------------------------------- wait_idle, destroy -- */

int conq_pool_wait_idle(conq_pool *p)
{
	if (p == NULL)
		return EINVAL;
	if (conq__pool_self(p) != NULL)
		return EDEADLK;
	for (;;) {
		if (conq__pool_is_idle(p))
			return 0;
		uint32_t key = conq_eventcount_prepare(&p->idle_ec);
		/* The re-check after prepare: conq/eventcount.h; [PW3], the
		 * notify of a worker that ran out of work, is the other side.
		 */
		if (conq__pool_is_idle(p)) {
			conq_eventcount_cancel(&p->idle_ec);
			return 0;
		}
		conq_eventcount_wait(&p->idle_ec, key, CONQ_NO_DEADLINE);
	}
}

/* Wake every parked worker (destroy, a failed create). */
static void conq__pool_wake_all(conq_pool *p)
{
	pthread_mutex_lock(&p->sleep_lock);
	while (p->nsleepers > 0) {
		struct conq__pool_worker *w =
		    &p->workers[p->sleepers[--p->nsleepers]];
		/* seq_cst as every RMW of the word (the count no longer
		 * matters once stop is set). */
		conq__faa_seq_cst(&p->state, CONQ__POOL_UNPARK_ONE +
						 CONQ__POOL_SEARCH_ONE);
		conq__store_release(&w->notified, 1u); /* [PK3] */
		conq__pool_futex_wake(&w->notified);
	}
	pthread_mutex_unlock(&p->sleep_lock);
}

static void conq__pool_free(conq_pool *p)
{
	if (p->workers != NULL) {
		for (unsigned i = 0; i < p->nworkers; i++)
			conq_spmc_value_destroy(p->workers[i].local);
		conq__free_aligned(p->workers);
	}
	conq_mpmc_value_destroy(p->inject);
	free(p->sleepers);
	pthread_mutex_destroy(&p->sleep_lock);
	conq__free_aligned(p);
}

/* Stop and join the first `started` workers (after the work is done). */
static void conq__pool_stop(conq_pool *p, unsigned started)
{
	/* [PS4] release: pairs with the workers' acquire loads of stop;
	 * everything ran before (wait_idle), so a worker that sees it exits. */
	conq__store_release(&p->stop, 1u);
	conq__pool_wake_all(p);
	for (unsigned i = 0; i < started; i++)
		pthread_join(p->workers[i].thread, NULL);
}

int conq_pool_destroy(conq_pool *p)
{
	if (p == NULL)
		return EINVAL;
	if (conq__pool_self(p) != NULL)
		return EDEADLK;
	/* [PS2] seq_cst: pairs with [PS1]. */
	conq__store_seq_cst(&p->closing, 1u);
	conq_pool_wait_idle(p);
	/* Outside calls still between their count and their last access
	 * (a notify, a wake, a refusal's): wait until each has left. Those
	 * that start now see closing and leave at once. [PS3] acquire. */
	unsigned spins = 0;
	while (conq__load_acquire(&p->ext_left) !=
	       conq__load_seq_cst(&p->ext_submitted))
		conq__wait_backoff(&spins);
	conq__pool_stop(p, p->nworkers);
	conq__pool_free(p);
	return 0;
}

/* ------------------------------------------------------------- create -- */

static int conq__pool_check_cpus(const conq_pool_opts *o)
{
	if (o->ncpus == 0)
		return 0;
	if (o->cpus == NULL)
		return EINVAL;
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		return EINVAL;
	for (unsigned i = 0; i < o->ncpus; i++)
		if (o->cpus[i] < 0 || o->cpus[i] >= CPU_SETSIZE ||
		    !CPU_ISSET((unsigned)o->cpus[i], &allowed))
			return EINVAL;
	return 0;
}

static unsigned conq__pool_default_threads(void)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set);
	if (n < 1)
		n = 1;
	return n > (long)CONQ_POOL_MAX_THREADS ? CONQ_POOL_MAX_THREADS
					       : (unsigned)n;
}

conq_pool *conq_pool_create(const conq_pool_opts *opts)
{
	conq_pool_opts o;
	memset(&o, 0, sizeof o);
	if (opts != NULL)
		o = *opts;
	if (o.threads == 0)
		o.threads = conq__pool_default_threads();
	if (o.threads > CONQ_POOL_MAX_THREADS)
		o.threads = 0;
	/* A narrow-index test build (CONQ_INDEX_BITS) has smaller rings:
	 * the defaults shrink with them, the limits stay those of 64-bit. */
	if (o.capacity == 0)
		o.capacity =
		    CONQ_POOL_DEFAULT_CAPACITY < CONQ_VALUE_MAX_CAPACITY
			? CONQ_POOL_DEFAULT_CAPACITY
			: CONQ_VALUE_MAX_CAPACITY;
	if (o.local_capacity == 0)
		o.local_capacity = 256;
	if (o.local_capacity < 2 * CONQ__POOL_STEAL_MAX)
		o.local_capacity = 2 * CONQ__POOL_STEAL_MAX;
	if (o.threads == 0 || o.spin_ns > 1000000000u ||
	    o.capacity > ((size_t)1 << 28) ||
	    o.capacity > CONQ_VALUE_MAX_CAPACITY ||
	    o.local_capacity > ((size_t)1 << 20) ||
	    o.local_capacity > CONQ_VALUE_MAX_CAPACITY ||
	    (o.wake != CONQ_POOL_WAKE_SEARCHING &&
	     o.wake != CONQ_POOL_WAKE_EVERY) ||
	    conq__pool_check_cpus(&o) != 0) {
		errno = EINVAL;
		return NULL;
	}
	conq_pool *p = conq__alloc_aligned(sizeof *p);
	if (p == NULL)
		return NULL;
	p->nworkers = o.threads;
	p->spin_ns = o.spin_ns;
	p->wake = o.wake;
	p->fence_rmw = !conq__heavy_fence_available();
	p->state = (uint64_t)o.threads * CONQ__POOL_UNPARK_ONE;
	pthread_mutex_init(&p->sleep_lock, NULL);
	conq_eventcount_init(&p->idle_ec, 0);
	conq_eventcount_init(&p->strand_ec, 0);
	conq_mpsc_intrusive_init(&p->ready);
	p->inject = conq_mpmc_value_create(sizeof(conq_task), o.capacity);
	p->workers = conq__alloc_aligned(o.threads * sizeof *p->workers);
	p->sleepers = calloc(o.threads, sizeof *p->sleepers);
	if (p->inject == NULL || p->workers == NULL || p->sleepers == NULL)
		goto nomem;
	for (unsigned i = 0; i < o.threads; i++) {
		struct conq__pool_worker *w = &p->workers[i];
		w->index = i;
		w->pool = p;
		w->local =
		    conq_spmc_value_create(sizeof(conq_task), o.local_capacity);
		if (w->local == NULL)
			goto nomem;
	}
	const char *name = o.name != NULL ? o.name : "conq-pool";
	unsigned started = 0;
	int rc = 0;
	for (; started < o.threads; started++) {
		struct conq__pool_worker *w = &p->workers[started];
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		if (o.ncpus != 0) {
			cpu_set_t one;
			CPU_ZERO(&one);
			CPU_SET((unsigned)o.cpus[started % o.ncpus], &one);
			pthread_attr_setaffinity_np(&attr, sizeof one, &one);
		}
		/* The thread sees everything above: pthread_create
		 * synchronises. */
		rc = pthread_create(&w->thread, &attr, conq__pool_main, w);
		pthread_attr_destroy(&attr);
		if (rc != 0)
			break;
		char buf[16];
		/* "<name>-<i>": the name cut to 10 characters, the kernel's
		 * 15 in all (started < 1024). */
		snprintf(buf, sizeof buf, "%.10s-%u", name, started % 10000u);
		pthread_setname_np(w->thread, buf);
	}
	if (rc != 0) {
		conq__pool_stop(p, started);
		conq__pool_free(p);
		errno = rc == EAGAIN || rc == ENOMEM ? EAGAIN : rc;
		return NULL;
	}
	return p;
nomem:
	conq__pool_free(p);
	errno = ENOMEM;
	return NULL;
}

unsigned conq_pool_threads(const conq_pool *p)
{
	return p != NULL ? p->nworkers : 0;
}

void conq_pool_stats_get(const conq_pool *p, conq_pool_stats *out)
{
	if (out == NULL)
		return;
	memset(out, 0, sizeof *out);
	if (p == NULL)
		return;
	/* The refusals before the submits (each refusal was counted in
	 * first), so that the difference cannot go below 0 ([PW2]'s
	 * acquire loads, pairing with [PW4]). */
	uint64_t refused = conq__load_acquire(&p->ext_refused);
	for (unsigned i = 0; i < p->nworkers; i++)
		refused += conq__load_acquire(&p->workers[i].refused);
	out->submitted = conq__load_seq_cst(&p->ext_submitted);
	for (unsigned i = 0; i < p->nworkers; i++) {
		const struct conq__pool_worker *w = &p->workers[i];
		out->submitted += conq__load_relaxed(&w->submitted);
		out->completed += conq__load_relaxed(&w->completed);
		out->parks += conq__load_relaxed(&w->parks);
		out->steals += conq__load_relaxed(&w->steals);
	}
	out->submitted -= refused;
	out->wakes = conq__load_relaxed(&p->wakes);
}

/* ------------------------------------------------------------ strands -- */

/* Put the strand's runner on the pool: counted in as one pool task (never
 * refused: the task it runs is queued already), pushed on the ready
 * queue (unbounded, intrusive: it cannot fail), then a wake. */
static void conq__strand_schedule(conq_strand *s)
{
	conq_pool *p = s->pool;
	struct conq__pool_worker *me = conq__pool_self(p);
	conq__pool_count_in(p, me, 1, false);
	/* The push releases everything before it to the worker that pops
	 * the strand (conq/mpsc_intrusive.h). After it we touch only p: the
	 * strand may run, finish and be destroyed at once. */
	conq_mpsc_intrusive_push(&p->ready, &s->node);
	conq__pool_notify(p);
	conq__pool_leave(p, me, 1);
}

static void conq__strand_run(void *arg)
{
	conq_strand *s = arg;
	conq_pool *p = s->pool;
	for (unsigned k = 0; k < CONQ__STRAND_BATCH; k++) {
		conq_task t;
		unsigned spins = 0;
		/* pending > 0: a submit's offer completed before its [ST1],
		 * which our last [ST2] (or the pop that started us) read, so
		 * an element is there; poll waits only for an earlier claim
		 * still being committed. */
		while (!conq_mpsc_value_poll(s->q, &t))
			conq__wait_backoff(&spins);
		t.fn(t.arg);
		/* [ST2] acq_rel: release our task's effects to the strand's
		 * next task and to wait_idle; acquire the next submit's
		 * element. */
		if (conq__faa_acq_rel(&s->pending, (uint64_t)-1) == 1) {
			/* s may be freed from here on; p outlives it. */
			conq_eventcount_notify_all(&p->strand_ec);
			return;
		}
	}
	conq__strand_schedule(s); /* fairness: 64 at a time */
}

conq_strand *conq_strand_create(conq_pool *p, size_t capacity)
{
	if (capacity == 0)
		capacity = 1024;
	if (p == NULL || capacity > ((size_t)1 << 28) ||
	    capacity > CONQ_VALUE_MAX_CAPACITY) {
		errno = EINVAL;
		return NULL;
	}
	conq_strand *s = conq__alloc_aligned(sizeof *s);
	if (s == NULL)
		return NULL;
	s->pool = p;
	s->q = conq_mpsc_value_create(sizeof(conq_task), capacity);
	if (s->q == NULL) {
		conq__free_aligned(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

int conq_strand_submit(conq_strand *s, conq_task_fn fn, void *arg)
{
	if (s == NULL || fn == NULL)
		return EINVAL;
	conq_pool *p = s->pool;
	/* relaxed: a courtesy for a caller who destroys the pool too early
	 * (strands go first: a strand submit racing the pool's destroy is
	 * the caller's error, which this check narrows but cannot close). */
	if (conq__pool_self(p) == NULL && conq__load_relaxed(&p->closing))
		return EINVAL;
	conq_task t = {fn, arg};
	if (!conq_mpsc_value_offer(s->q, &t))
		return EAGAIN;
	/* [ST1] acq_rel: pairs with [ST2]. The submit that finds 0 owns
	 * the scheduling: the runner has stopped (its [ST2] reached 0) or
	 * never ran. */
	if (conq__faa_acq_rel(&s->pending, (uint64_t)1) == 0)
		conq__strand_schedule(s);
	return 0;
}

int conq_strand_wait_idle(conq_strand *s)
{
	if (s == NULL)
		return EINVAL;
	conq_pool *p = s->pool;
	/* From any task of the pool: the runner needs a worker, and every
	 * worker might be waiting here. */
	if (conq__pool_self(p) != NULL)
		return EDEADLK;
	for (;;) {
		/* acquire: pairs with the last task's [ST2]. */
		if (conq__load_acquire(&s->pending) == 0)
			return 0;
		uint32_t key = conq_eventcount_prepare(&p->strand_ec);
		if (conq__load_acquire(&s->pending) == 0) {
			conq_eventcount_cancel(&p->strand_ec);
			return 0;
		}
		conq_eventcount_wait(&p->strand_ec, key, CONQ_NO_DEADLINE);
	}
}

int conq_strand_destroy(conq_strand *s)
{
	if (s == NULL)
		return EINVAL;
	int rc = conq_strand_wait_idle(s);
	if (rc != 0)
		return rc;
	conq_mpsc_value_destroy(s->q);
	conq__free_aligned(s);
	return 0;
}
