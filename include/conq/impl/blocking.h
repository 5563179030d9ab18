/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/impl/blocking.h - put() and take(), every family's blocking calls,
 * written once over the family's offer() and poll() and two eventcounts
 * (conq/eventcount.h).
 *
 * Each family keeps two eventcounts, each in the cache line of the side that
 * notifies it, so that with nobody waiting a notify is a load that hits:
 *
 *   nonempty  consumers wait on it in take(); producers notify it after
 *             every publication (offer, offer_bulk, offer_burst, fill:
 *             once per call), in their own line;
 *   nonfull   producers wait on it in put() (bounded families only);
 *             consumers notify it after every consumption (poll, drain,
 *             poll_burst: once per call), in their own line.
 *
 * Consumers that only poll and producers that only offer never wait, and pay
 * the notify's one load. The unbounded families have no nonfull: their
 * put() never waits (it fails only on NULL or when memory runs out).
 *
 * The calls, for a family <f> (each also in the generic verbs, conq.h):
 *
 *   bool  conq_<f>_put(q, e)                  offer, waiting while full
 *   bool  conq_<f>_put_until(q, e, deadline)  ... until the deadline
 *   void *conq_<f>_take(q)                    poll, waiting while empty
 *   void *conq_<f>_take_until(q, deadline)    ... until the deadline
 *
 * Who may call: put as offer (P), take as poll (C), with the family's limits
 * on producers and consumers. Deadlines are CLOCK_MONOTONIC nanoseconds
 * (conq_now_ns() + timeout); CONQ_NO_DEADLINE waits for ever. Returns:
 * put true once e is in the queue; false with errno = EINVAL for a NULL e
 * (never waits), ENOMEM when the family could not allocate (never waits for
 * memory), ETIMEDOUT at the deadline (e is not in the queue). take: the
 * element; NULL with errno = ETIMEDOUT at the deadline (never without one).
 * A deadline in the past makes one attempt, as offer/poll.
 *
 * Ordering: put/take order exactly as offer/poll. Progress: blocking. A
 * waiting call first watches the queue for about CONQ__BLOCK_SPIN_NS
 * nanoseconds (a hand-over within that time costs no system call), then
 * parks on the eventcount.
 *
 * The wake-up (docs/memory-model.md, "Blocking"): a waiting call counts
 * itself in on the eventcount ([E1]), re-tries offer/poll, and sleeps only
 * if that fails too; the other side's publishing call loads the eventcount's
 * word after its publication ([E2]) and wakes a waiter it sees. Either the
 * re-try sees the publication or the publisher sees the waiter.
 */
#ifndef CONQ_IMPL_BLOCKING_H
#define CONQ_IMPL_BLOCKING_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "conq/eventcount.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Watching before parking: looks about 128 ns apart for ~1 us (the
 * default of conq__block_spin_ns, which conq's stress tests set to 0 so
 * that every wait parks). */
#define CONQ__BLOCK_SPIN_NS 1000u
extern unsigned conq__block_spin_ns;

/* The compiled waits, type-erased: try(q) / offer(q, e) is the family's own
 * call, ec the eventcount to park on. */
void *conq__take_wait(void *q, void *(*poll)(void *), conq_eventcount *ec,
		      int64_t deadline);
bool conq__put_wait(void *q, bool (*offer)(void *, void *), void *e,
		    conq_eventcount *ec, int64_t deadline);

/* take and take_until for family f, whose queue has eventcount `ne` (a
 * member path: nonempty, la.nonempty, ...). Each macro also defines
 * conq__<f>_take_waiters / _put_waiters: the threads counted in on the
 * eventcount (tests, statistics). */
#define CONQ__DEFINE_TAKE(f, ne)                                               \
	static inline void *conq__##f##_poll_erased(void *q)                  \
	{                                                                      \
		return conq_##f##_poll((conq_##f *)q);                         \
	}                                                                      \
	static inline void *conq_##f##_take_until(conq_##f *q,                 \
						  int64_t deadline)            \
	{                                                                      \
		void *e = conq_##f##_poll(q);                                  \
		if (CONQ__LIKELY(e != NULL))                                   \
			return e;                                              \
		return conq__take_wait(q, conq__##f##_poll_erased, &q->ne,     \
				       deadline);                              \
	}                                                                      \
	static inline void *conq_##f##_take(conq_##f *q)                       \
	{                                                                      \
		return conq_##f##_take_until(q, CONQ_NO_DEADLINE);             \
	}                                                                      \
	static inline unsigned conq__##f##_take_waiters(const conq_##f *q)     \
	{                                                                      \
		return conq_eventcount_waiters(&q->ne);                        \
	}

/* put and put_until for a bounded family f with eventcount `nf`; also
 * conq__<f>_nonfull(q), that eventcount (conq/wait.h parks a fill on it). */
#define CONQ__DEFINE_PUT(f, nf)                                                \
	static inline bool conq__##f##_offer_erased(void *q, void *e)         \
	{                                                                      \
		return conq_##f##_offer((conq_##f *)q, e);                     \
	}                                                                      \
	static inline bool conq_##f##_put_until(conq_##f *q, void *e,          \
						int64_t deadline)              \
	{                                                                      \
		if (CONQ__LIKELY(e != NULL && conq_##f##_offer(q, e)))         \
			return true;                                           \
		return conq__put_wait(q, conq__##f##_offer_erased, e, &q->nf,  \
				      deadline);                               \
	}                                                                      \
	static inline bool conq_##f##_put(conq_##f *q, void *e)                \
	{                                                                      \
		return conq_##f##_put_until(q, e, CONQ_NO_DEADLINE);           \
	}                                                                      \
	static inline unsigned conq__##f##_put_waiters(const conq_##f *q)      \
	{                                                                      \
		return conq_eventcount_waiters(&q->nf);                        \
	}                                                                      \
	static inline conq_eventcount *conq__##f##_nonfull(conq_##f *q)        \
	{                                                                      \
		return &q->nf;                                                 \
	}

/* put and put_until for an unbounded family f: offer, which fails only on
 * NULL (EINVAL) or allocation failure (ENOMEM), and never waits;
 * conq__<f>_nonfull(q) is NULL (there is no nonfull to wait on). */
#define CONQ__DEFINE_PUT_UNBOUNDED(f)                                          \
	static inline bool conq_##f##_put_until(conq_##f *q, void *e,          \
						int64_t deadline)              \
	{                                                                      \
		(void)deadline;                                                \
		return conq_##f##_offer(q, e);                                 \
	}                                                                      \
	static inline bool conq_##f##_put(conq_##f *q, void *e)                \
	{                                                                      \
		return conq_##f##_offer(q, e);                                 \
	}                                                                      \
	static inline unsigned conq__##f##_put_waiters(const conq_##f *q)      \
	{                                                                      \
		(void)q;                                                       \
		return 0;                                                      \
	}                                                                      \
	static inline conq_eventcount *conq__##f##_nonfull(conq_##f *q)        \
	{                                                                      \
		(void)q;                                                       \
		return NULL;                                                   \
	}

#ifdef __cplusplus
}
#endif

#endif /* CONQ_IMPL_BLOCKING_H */
