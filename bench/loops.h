/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * loops.h - the measured loops, as macros that each adapter instantiates on
 * its own static inline offer/poll (JMH generates a loop per benchmark method
 * for the same reason: no call through a pointer per operation).
 *
 *   CB_DEFINE_LOOPS(prefix, QueueType, OFFER, POLL)
 *
 * defines prefix_loops (a cb_loops), where `bool OFFER(QueueType *, void *)`
 * and `void *POLL(QueueType *)` (NULL: empty) are functions or macros the
 * compiler can inline. Elements are {producer id, sequence 1, 2, 3...} packed
 * into the pointer (cb.h; never NULL), so the checked consumer can verify
 * each producer's FIFO order for free. loops.h also compiles as C++20 (the
 * atomic_queue adapter), so the C++ peer gets the very same loops.
 */
#ifndef CB_LOOPS_H
#define CB_LOOPS_H

#include <sched.h>

#include "adapter.h"

/* Announce readiness, then run the op uncounted until all are ready. */
static inline void cb_ctl_enter(cb_ctl *c)
{
	conq__faa_acq_rel(&c->ready, 1u);
}
static inline bool cb_ctl_catching_up(const cb_ctl *c)
{
	return conq__load_acquire(&c->ready) < c->nthreads;
}
/* The stop flag, read on every measured operation: relaxed (a plain load;
 * nothing is published through it). */
static inline bool cb_ctl_running(const cb_ctl *c)
{
	return conq__load_relaxed(&c->done) == 0;
}
static inline void cb_ctl_leave(cb_ctl *c)
{
	conq__faa_acq_rel(&c->stopped, 1u);
}
static inline bool cb_ctl_warming_down(const cb_ctl *c)
{
	return conq__load_acquire(&c->stopped) < c->nthreads;
}
/*
 * Failed-op backoff: none (BackoffNone), unless the threads outnumber the
 * CPUs (or share one under --affinity), where a thread spinning on a full or
 * empty queue would otherwise hold its CPU for a whole time slice waiting for
 * a partner that cannot run: then it calls sched_yield() after every
 * CB_YIELD_EVERY consecutive failures. The same loops serve every queue,
 * conq's and the peers', so the rule is the same for all of them.
 */
#define CB_YIELD_EVERY 256u

static inline void cb_fail_backoff(bool yield, uint32_t *run)
{
	if (CONQ__UNLIKELY(yield) && ++*run == CB_YIELD_EVERY) {
		*run = 0;
		sched_yield();
	}
}

/* --check: account for one polled element; returns 1 if it is out of order
 * (or belongs to no producer). With one consumer (exact), each producer's
 * elements must come in exactly in sequence; with several, each consumer
 * must see each producer's elements in increasing order (FIFO seen from one
 * consumer); exactly-once over all consumers is checked per iteration from
 * cnt and sum. */
static inline uint64_t cb_chk_take(cb_chk *k, const void *e, bool exact,
				   uint32_t nproducers)
{
	const unsigned pid = cb_elem_pid(e);
	const uint64_t s = cb_elem_seq(e);
	if (CONQ__UNLIKELY(pid >= nproducers)) {
		k->stray++;
		return 1;
	}
	const uint64_t last = k->last[pid];
	const uint64_t bad = exact ? (uint64_t)(s != last + 1)
				   : (uint64_t)(s <= last);
	k->last[pid] = s;
	k->cnt[pid]++;
	k->sum[pid] += s;
	return bad;
}

/* QueueThroughputBackoffNone, role "offer": spin on offer. */
#define CB__TPT_OFFER_LOOP(FN, QT, OFFER)                                      \
	static void FN(cb_worker *w)                                           \
	{                                                                      \
		QT *const q = (QT *)w->q;                                      \
		cb_ctl *const ctl = w->ctl;                                    \
		const bool yield = ctl->yield;                                 \
		uintptr_t e = cb_elem_bits(w->pid, w->seq);                    \
		uint64_t made = 0, failed = 0, extra = 0;                      \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		cb_usage_read(&u0_);                                           \
		cb_ctl_enter(ctl);                                             \
		while (cb_ctl_catching_up(ctl)) {                              \
			if (OFFER(q, (void *)e)) {                             \
				e += CB_SEQ_ONE;                               \
				extra++;                                       \
				run = 0;                                       \
			} else {                                               \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		}                                                              \
		run = 0;                                                       \
		const uint64_t t0 = cb_now_ns();                               \
		do {                                                           \
			if (OFFER(q, (void *)e)) {                             \
				e += CB_SEQ_ONE;                               \
				made++;                                        \
				run = 0;                                       \
			} else {                                               \
				failed++;                                      \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		} while (cb_ctl_running(ctl));                                 \
		const uint64_t t1 = cb_now_ns();                               \
		cb_ctl_leave(ctl);                                             \
		while (cb_ctl_warming_down(ctl)) {                             \
			if (OFFER(q, (void *)e)) {                             \
				e += CB_SEQ_ONE;                               \
				extra++;                                       \
				run = 0;                                       \
			} else {                                               \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		}                                                              \
		w->seq = (uint64_t)(e >> CB_PID_BITS);                         \
		w->made = made;                                                \
		w->failed = failed;                                            \
		w->extra = extra;                                              \
		w->seq_errors = 0;                                             \
		w->t_start = t0;                                               \
		w->t_stop = t1;                                                \
		cb_usage_store(w, &u0_);                                       \
	}

/* Role "poll": spin on poll. CHECK (a constant) accounts for every element
 * (cb_chk_take); the unchecked loop only counts. */
#define CB__TPT_POLL_LOOP(FN, QT, POLL, CHECK)                                 \
	static void FN(cb_worker *w)                                           \
	{                                                                      \
		QT *const q = (QT *)w->q;                                      \
		cb_ctl *const ctl = w->ctl;                                    \
		const bool yield = ctl->yield;                                 \
		const bool exact = ctl->exact;                                 \
		const uint32_t np = ctl->nproducers;                           \
		cb_chk *const chk = w->chk;                                    \
		uint64_t made = 0, failed = 0, extra = 0, errors = 0;          \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		cb_usage_read(&u0_);                                           \
		cb_ctl_enter(ctl);                                             \
		while (cb_ctl_catching_up(ctl)) {                              \
			void *e_ = POLL(q);                                    \
			if (e_ != NULL) {                                      \
				extra++;                                       \
				run = 0;                                       \
				if (CHECK)                                     \
					errors += cb_chk_take(chk, e_, exact,  \
							      np);             \
			} else {                                               \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		}                                                              \
		run = 0;                                                       \
		const uint64_t t0 = cb_now_ns();                               \
		do {                                                           \
			void *e_ = POLL(q);                                    \
			if (e_ != NULL) {                                      \
				made++;                                        \
				run = 0;                                       \
				if (CHECK)                                     \
					errors += cb_chk_take(chk, e_, exact,  \
							      np);             \
			} else {                                               \
				failed++;                                      \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		} while (cb_ctl_running(ctl));                                 \
		const uint64_t t1 = cb_now_ns();                               \
		cb_ctl_leave(ctl);                                             \
		while (cb_ctl_warming_down(ctl)) {                             \
			void *e_ = POLL(q);                                    \
			if (e_ != NULL) {                                      \
				extra++;                                       \
				run = 0;                                       \
				if (CHECK)                                     \
					errors += cb_chk_take(chk, e_, exact,  \
							      np);             \
			} else {                                               \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		}                                                              \
		(void)exact;                                                   \
		(void)np;                                                      \
		(void)chk;                                                     \
		w->made = made;                                                \
		w->failed = failed;                                            \
		w->extra = extra;                                              \
		w->seq_errors = errors;                                        \
		w->t_start = t0;                                               \
		w->t_stop = t1;                                                \
		cb_usage_store(w, &u0_);                                       \
	}

#define CB_DEFINE_LOOPS(PFX, QT, OFFER, POLL)                                  \
	CB__TPT_OFFER_LOOP(PFX##_tpt_offer, QT, OFFER)                         \
	CB__TPT_POLL_LOOP(PFX##_tpt_poll, QT, POLL, 0)                         \
	CB__TPT_POLL_LOOP(PFX##_tpt_poll_checked, QT, POLL, 1)                 \
	static const cb_loops PFX##_loops = {                                  \
		.tpt_offer = PFX##_tpt_offer,                                  \
		.tpt_poll = PFX##_tpt_poll,                                    \
		.tpt_poll_checked = PFX##_tpt_poll_checked,                    \
	};

#endif /* CB_LOOPS_H */
