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
 * compiler can inline. Elements are the producer's sequence numbers 1, 2, 3...
 * (never NULL), so the checked consumer can verify FIFO order for free.
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
/* Failed-op backoff: none (BackoffNone), unless the threads outnumber the
 * CPUs, where a spinning thread would otherwise hold its CPU for a whole
 * time slice waiting for a partner that cannot run. */
static inline void cb_fail_backoff(bool yield, uint64_t fails)
{
	if (CONQ__UNLIKELY(yield) && (fails & 255u) == 0)
		sched_yield();
}

static inline void *cb_elem(uint64_t seq)
{
	return (void *)(uintptr_t)seq;
}

/* QueueThroughputBackoffNone, role "offer": spin on offer. */
#define CB__TPT_OFFER_LOOP(FN, QT, OFFER)                                      \
	static void FN(cb_worker *w)                                           \
	{                                                                      \
		QT *const q = (QT *)w->q;                                      \
		cb_ctl *const ctl = w->ctl;                                    \
		const bool yield = ctl->yield;                                 \
		uint64_t seq = w->seq, made = 0, failed = 0, extra = 0;        \
		uint64_t spins = 0;                                            \
		cb_rusage u0_;                                                 \
		cb_usage_read(&u0_);                                           \
		cb_ctl_enter(ctl);                                             \
		while (cb_ctl_catching_up(ctl)) {                              \
			if (OFFER(q, cb_elem(seq))) {                          \
				seq++;                                         \
				extra++;                                       \
			} else {                                               \
				cb_fail_backoff(yield, ++spins);               \
			}                                                      \
		}                                                              \
		const uint64_t t0 = cb_now_ns();                               \
		do {                                                           \
			if (OFFER(q, cb_elem(seq))) {                          \
				seq++;                                         \
				made++;                                        \
			} else {                                               \
				failed++;                                      \
				cb_fail_backoff(yield, failed);                \
			}                                                      \
		} while (cb_ctl_running(ctl));                                 \
		const uint64_t t1 = cb_now_ns();                               \
		cb_ctl_leave(ctl);                                             \
		while (cb_ctl_warming_down(ctl)) {                             \
			if (OFFER(q, cb_elem(seq))) {                          \
				seq++;                                         \
				extra++;                                       \
			} else {                                               \
				cb_fail_backoff(yield, ++spins);               \
			}                                                      \
		}                                                              \
		w->seq = seq;                                                  \
		w->made = made;                                                \
		w->failed = failed;                                            \
		w->extra = extra;                                              \
		w->seq_errors = 0;                                             \
		w->t_start = t0;                                               \
		w->t_stop = t1;                                                \
		cb_usage_store(w, &u0_);                                       \
	}

/* Role "poll": spin on poll. CHECK (a constant) compares each element with
 * the next expected sequence number; the unchecked loop only counts. */
#define CB__TPT_POLL_LOOP(FN, QT, POLL, CHECK)                                 \
	static void FN(cb_worker *w)                                           \
	{                                                                      \
		QT *const q = (QT *)w->q;                                      \
		cb_ctl *const ctl = w->ctl;                                    \
		const bool yield = ctl->yield;                                 \
		uint64_t seq = w->seq, made = 0, failed = 0, extra = 0;        \
		uint64_t spins = 0, errors = 0;                                \
		cb_rusage u0_;                                                 \
		cb_usage_read(&u0_);                                           \
		cb_ctl_enter(ctl);                                             \
		while (cb_ctl_catching_up(ctl)) {                              \
			void *e_ = POLL(q);                                    \
			if (e_ != NULL) {                                      \
				extra++;                                       \
				if (CHECK) {                                   \
					errors += (uint64_t)((uintptr_t)e_ != seq);\
					seq++;                                 \
				}                                              \
			} else {                                               \
				cb_fail_backoff(yield, ++spins);               \
			}                                                      \
		}                                                              \
		const uint64_t t0 = cb_now_ns();                               \
		do {                                                           \
			void *e_ = POLL(q);                                    \
			if (e_ != NULL) {                                      \
				made++;                                        \
				if (CHECK) {                                   \
					errors += (uint64_t)((uintptr_t)e_ != seq);\
					seq++;                                 \
				}                                              \
			} else {                                               \
				failed++;                                      \
				cb_fail_backoff(yield, failed);                \
			}                                                      \
		} while (cb_ctl_running(ctl));                                 \
		const uint64_t t1 = cb_now_ns();                               \
		cb_ctl_leave(ctl);                                             \
		while (cb_ctl_warming_down(ctl)) {                             \
			void *e_ = POLL(q);                                    \
			if (e_ != NULL) {                                      \
				extra++;                                       \
				if (CHECK) {                                   \
					errors += (uint64_t)((uintptr_t)e_ != seq);\
					seq++;                                 \
				}                                              \
			} else {                                               \
				cb_fail_backoff(yield, ++spins);               \
			}                                                      \
		}                                                              \
		/* Unchecked: the sequence advances by what was taken. */      \
		w->seq = (CHECK) ? seq : seq + made + extra;                   \
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
