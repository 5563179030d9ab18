/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/wait.h - drain and fill that wait for work, with a wait strategy and
 * an exit condition (JCTools' drain(consumer, wait, exit) and
 * fill(supplier, wait, exit)), for every family.
 *
 *   static bool stop_requested(void *ctx)
 *   {
 *       return conq__load_relaxed((int *)ctx) != 0; // or your own atomics
 *   }
 *
 *   conq_wait w = CONQ_WAIT_SLEEP_INIT;    // or conq_wait_sleep(1000, 1000000)
 *   size_t n = conq_drain_wait(q, handle, hctx, 64, &w, stop_requested, &stop);
 *
 * The verbs, for every family of conq.h's list (and conq_drain_wait for
 * conq_mpsc_intrusive too, whose fn gets the nodes), as
 * conq_<family>_drain_wait / _fill_wait and generic, C11 _Generic and C++
 * overloads, like conq.h's verbs:
 *
 *   size_t conq_drain_wait(q, fn, ctx, batch, w, exit_fn, exit_ctx)
 *   size_t conq_fill_wait(q, fn, ctx, batch, w, exit_fn, exit_ctx)
 *
 * Each loops until exit_fn(exit_ctx) returns true:
 *
 *   while (!exit_fn(exit_ctx)):
 *       n = drain(q, fn, ctx, batch)       (fill: fill(q, fn, ctx, batch))
 *       if n > 0: total += n, idle = 0     progress resets the idle count
 *       else:     idle = <one idle step of w>(idle)
 *   return total
 *
 * so the exit condition is checked before the first batch, between batches
 * and after every idle step, never per element: a batch of `batch`
 * elements (SIZE_MAX: all there are) always completes. It returns how many
 * elements went to fn (drain) or into the queue (fill). What is still queued
 * when it returns stays queued; nothing is lost. An exit condition that is
 * true from the start returns 0 at once, having touched nothing.
 *
 * Who may call: drain_wait as the family's drain (the consumer; one of the
 * consumers of a multi-consumer family), fill_wait as its fill (a producer,
 * as the family allows producers). fn is called on the calling thread, once
 * per element, in the queue's order, as drain's and fill's (common.h); it
 * must not call back into the same side of the same queue (drain: the
 * consumer side, fill: the producer side). The supplier of fill_wait is
 * asked only when a slot is known to be free (as fill), so fill_wait never
 * holds an element of its own: exit loses nothing. exit_fn runs on the
 * calling thread, between queue calls; it should be cheap (with SPIN it
 * runs once per empty poll) and it orders nothing: read a flag another
 * thread sets with an acquire load if what it guards must be visible.
 *
 * The waits. drain_wait idles when drain() found the queue empty. fill_wait
 * idles when fill() enqueued nothing: the queue was full (bounded families),
 * the supplier returned NULL at once ("nothing to supply now"), or a growing
 * family could not allocate (errno ENOMEM; it tries again after the idle
 * step). For an unbounded family only the last two can happen.
 *
 *   strategy  idle step                        wake-up latency   CPU idle
 *   SPIN      nothing: poll again at once      a poll            one core,
 *                                                                and the
 *                                                                queue's line
 *   PAUSE     one CPU pause (x86 `pause`,      a pause (10-30    one core,
 *             aarch64 `yield`)                 ns)               less traffic
 *   YIELD     sched_yield()                    a system call;    one core if
 *                                              a time slice if   nobody else
 *                                              others run        runs
 *   SLEEP     `spins` pauses, then `yields`    up to max_ns plus little
 *             sched_yield()s, then nanosleep   timer slack (50
 *             from min_ns doubling to max_ns   us by default)
 *   PARK      take_until / a wait for room on  a futex wake (~5- none
 *             the queue's eventcount, at most  20 us); the other
 *             park_ns at a time (see below)    side pays one
 *                                              system call per
 *                                              notify while parked
 *
 * PARK. drain_wait parks with the family's take_until(q, now + park_ns)
 * (impl/blocking.h: it watches the queue for ~1 us, then sleeps on the
 * nonempty eventcount, which every publication notifies); the element it
 * returns goes to fn before the next batch (it counts as progress). A
 * bounded family's fill_wait, at a full queue, waits the same way on the
 * nonfull eventcount, re-trying fill() (not offer: the supplier is asked
 * only once there is room) on each wake-up, at most park_ns. Between two
 * parks the exit condition is checked, so an exit condition that becomes
 * true without any queue traffic is noticed within park_ns (plus the
 * scheduler's delay). Where there is no queue condition to wait on, PARK
 * sleeps park_ns (nanosleep) per idle step: fill_wait when the supplier
 * had nothing (any family), and every idle step of an unbounded family's
 * fill_wait (its fill never waits for room).
 *
 * Returns: the number of elements transferred; 0 with errno = EINVAL, and
 * nothing done, when fn or exit_fn is NULL, batch is 0, or w is not a valid
 * strategy (conq_wait_valid). Otherwise errno is as fn, the supplier,
 * exit_fn and the family's fill leave it (ENOMEM: see above); the waits
 * themselves (ETIMEDOUT of a park slice) leave it alone.
 *
 * Ordering: that of the family's drain/fill and take_until/put; the
 * strategy and the exit condition add none. Progress: blocking (returns
 * only once exit_fn says so); each batch is as the family's drain/fill.
 *
 * The strategy on its own: conq_wait_idle(w, idle_count) is one idle step,
 * for loops of your own (JCTools' WaitStrategy.idle): call it with 0 after
 * progress and with what it returned otherwise. PARK without a queue sleeps
 * park_ns.
 */
#ifndef CONQ_WAIT_H
#define CONQ_WAIT_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conq/conq.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The strategies (see the table above). */
typedef enum conq_wait_kind {
	CONQ_WAIT_SPIN = 0,
	CONQ_WAIT_PAUSE = 1,
	CONQ_WAIT_YIELD = 2,
	CONQ_WAIT_SLEEP = 3,
	CONQ_WAIT_PARK = 4
} conq_wait_kind;

/* A wait strategy: a value, copied freely, read-only while in use (several
 * threads may share one). The fields a kind does not use are ignored. */
typedef struct conq_wait {
	conq_wait_kind kind;
	unsigned spins;	 /* SLEEP: first idle steps that pause */
	unsigned yields; /* SLEEP: next idle steps that sched_yield() */
	int64_t min_ns;	 /* SLEEP: the first sleep, >= 1 */
	int64_t max_ns;	 /* SLEEP: the longest sleep, >= min_ns */
	int64_t park_ns; /* PARK: the longest park (or sleep) at once, >= 1 */
} conq_wait;

/* SLEEP's and PARK's defaults. */
#define CONQ_WAIT_SLEEP_SPINS  100u
#define CONQ_WAIT_SLEEP_YIELDS 10u
#define CONQ_WAIT_SLEEP_MIN_NS INT64_C(1000)	/* 1 us */
#define CONQ_WAIT_SLEEP_MAX_NS INT64_C(1000000) /* 1 ms */
#define CONQ_WAIT_PARK_NS      INT64_C(1000000) /* 1 ms */

/* Initialisers (conq_wait w = CONQ_WAIT_PARK_INIT;), C and C++. */
/* clang-format off */
#define CONQ_WAIT_SPIN_INIT  {CONQ_WAIT_SPIN, 0u, 0u, 0, 0, 0}
#define CONQ_WAIT_PAUSE_INIT {CONQ_WAIT_PAUSE, 0u, 0u, 0, 0, 0}
#define CONQ_WAIT_YIELD_INIT {CONQ_WAIT_YIELD, 0u, 0u, 0, 0, 0}
#define CONQ_WAIT_SLEEP_INIT                                                   \
	{CONQ_WAIT_SLEEP, CONQ_WAIT_SLEEP_SPINS, CONQ_WAIT_SLEEP_YIELDS,       \
	 CONQ_WAIT_SLEEP_MIN_NS, CONQ_WAIT_SLEEP_MAX_NS, 0}
#define CONQ_WAIT_PARK_INIT  {CONQ_WAIT_PARK, 0u, 0u, 0, 0, CONQ_WAIT_PARK_NS}
/* clang-format on */

/* Constructors. They do not validate: a strategy is checked where it is
 * used (conq_wait_valid; drain_wait and fill_wait reject an invalid one
 * with EINVAL, never clamp it). */
static inline conq_wait conq_wait_spin(void)
{
	conq_wait w = CONQ_WAIT_SPIN_INIT;
	return w;
}

static inline conq_wait conq_wait_pause(void)
{
	conq_wait w = CONQ_WAIT_PAUSE_INIT;
	return w;
}

static inline conq_wait conq_wait_yield(void)
{
	conq_wait w = CONQ_WAIT_YIELD_INIT;
	return w;
}

/* SLEEP with every parameter: `spins` pauses, `yields` yields, then sleeps
 * from min_ns doubling up to max_ns. */
static inline conq_wait conq_wait_backoff(unsigned spins, unsigned yields,
					  int64_t min_ns, int64_t max_ns)
{
	conq_wait w = CONQ_WAIT_SLEEP_INIT;
	w.spins = spins;
	w.yields = yields;
	w.min_ns = min_ns;
	w.max_ns = max_ns;
	return w;
}

/* SLEEP with the default spins and yields. */
static inline conq_wait conq_wait_sleep(int64_t min_ns, int64_t max_ns)
{
	return conq_wait_backoff(CONQ_WAIT_SLEEP_SPINS, CONQ_WAIT_SLEEP_YIELDS,
				 min_ns, max_ns);
}

/* PARK, at most park_ns at a time: the bound on noticing an exit condition
 * that becomes true without queue traffic. */
static inline conq_wait conq_wait_park(int64_t park_ns)
{
	conq_wait w = CONQ_WAIT_PARK_INIT;
	w.park_ns = park_ns;
	return w;
}

/* True if w is a strategy drain_wait/fill_wait/idle accept; false with
 * errno = EINVAL if w is NULL, its kind unknown, a SLEEP's min_ns < 1 or
 * max_ns < min_ns (min above max is an error, not clamped), or a PARK's
 * park_ns < 1. */
static inline bool conq_wait_valid(const conq_wait *w)
{
	bool ok = false;
	if (w != NULL) {
		switch (w->kind) {
		case CONQ_WAIT_SPIN:
		case CONQ_WAIT_PAUSE:
		case CONQ_WAIT_YIELD:
			ok = true;
			break;
		case CONQ_WAIT_SLEEP:
			ok = w->min_ns >= 1 && w->max_ns >= w->min_ns;
			break;
		case CONQ_WAIT_PARK:
			ok = w->park_ns >= 1;
			break;
		default:
			break;
		}
	}
	if (!ok)
		errno = EINVAL;
	return ok;
}

/* The exit condition: true to stop. Called with exit_ctx on the calling
 * thread before the first batch, between batches and after every idle
 * step. */
typedef bool (*conq_exit_fn)(void *ctx);

/* YIELD, SLEEP and PARK's step, compiled (src/wait.c). Keeps errno. */
unsigned conq__wait_idle_slow(const conq_wait *w, unsigned idle_count);

/* One idle step of a valid strategy w, the idle_count-th in a row since the
 * last progress (0: the first). Returns the count to pass next time
 * (idle_count + 1, saturating at UINT_MAX); pass 0 again after progress.
 * SPIN returns at once, PAUSE after one CPU pause; YIELD yields; SLEEP
 * pauses for counts below `spins`, yields for the next `yields`, then
 * sleeps min_ns << (count - spins - yields), at most max_ns; PARK (with no
 * queue to park on) sleeps park_ns. Any thread. Keeps errno. */
static inline unsigned conq_wait_idle(const conq_wait *w, unsigned idle_count)
{
	if (w->kind == CONQ_WAIT_SPIN) {
		/* nothing: poll again */
	} else if (w->kind == CONQ_WAIT_PAUSE) {
		conq__cpu_relax();
	} else {
		return conq__wait_idle_slow(w, idle_count);
	}
	return idle_count + (unsigned)(idle_count != UINT_MAX);
}

/* now + ns as a deadline, CONQ_NO_DEADLINE if it would overflow. */
static inline int64_t conq__wait_deadline(int64_t ns)
{
	int64_t now = conq_now_ns();
	return ns >= CONQ_NO_DEADLINE - now ? CONQ_NO_DEADLINE : now + ns;
}

static inline bool conq__wait_args_ok(bool have_fn, size_t batch,
				      const conq_wait *w, conq_exit_fn exit_fn)
{
	if (!have_fn || batch == 0 || exit_fn == NULL) {
		errno = EINVAL;
		return false;
	}
	return conq_wait_valid(w);
}

/* The loops, type-erased: the per-family verbs below pass their family's
 * calls, which the compiler inlines where it inlines the loop. */
static inline size_t conq__drain_wait(
    void *q, size_t (*drain)(void *, conq_consume_fn, void *, size_t),
    void *(*take_until)(void *, int64_t), conq_consume_fn fn, void *ctx,
    size_t batch, const conq_wait *w, conq_exit_fn exit_fn, void *exit_ctx)
{
	if (!conq__wait_args_ok(fn != NULL, batch, w, exit_fn))
		return 0;
	size_t total = 0;
	unsigned idle = 0;
	while (!exit_fn(exit_ctx)) {
		size_t n = drain(q, fn, ctx, batch);
		if (n != 0) {
			total += n;
			idle = 0;
		} else if (w->kind == CONQ_WAIT_PARK) {
			int saved = errno;
			void *e =
			    take_until(q, conq__wait_deadline(w->park_ns));
			errno = saved; /* ETIMEDOUT of an empty slice */
			if (e != NULL) {
				/* The element the park returned is ours:
				 * hand it over before anything else. */
				fn(ctx, e);
				total++;
				idle = 0;
			} else {
				idle += (unsigned)(idle != UINT_MAX);
			}
		} else {
			idle = conq_wait_idle(w, idle);
		}
	}
	return total;
}

/* fill_wait's park at a full bounded queue: conq__put_wait (the put()
 * machinery: watch, then park on nonfull) with a probe in place of offer,
 * which runs fill() and succeeds once it has enqueued something. */
struct conq__fill_probe {
	size_t (*fill)(void *, conq_supply_fn, void *, size_t);
	conq_supply_fn fn;
	void *ctx;
	size_t batch;
	size_t n;
};

static inline bool conq__fill_probe_try(void *q, void *probe)
{
	struct conq__fill_probe *p = (struct conq__fill_probe *)probe;
	p->n = p->fill(q, p->fn, p->ctx, p->batch);
	return p->n != 0;
}

static inline size_t
conq__fill_wait(void *q, size_t (*fill)(void *, conq_supply_fn, void *, size_t),
		bool (*full)(void *), conq_eventcount *nonfull,
		conq_supply_fn fn, void *ctx, size_t batch, const conq_wait *w,
		conq_exit_fn exit_fn, void *exit_ctx)
{
	if (!conq__wait_args_ok(fn != NULL, batch, w, exit_fn))
		return 0;
	size_t total = 0;
	unsigned idle = 0;
	while (!exit_fn(exit_ctx)) {
		size_t n = fill(q, fn, ctx, batch);
		if (n != 0) {
			total += n;
			idle = 0;
			continue;
		}
		/* Full (not merely a dry supplier): park for room. */
		if (w->kind == CONQ_WAIT_PARK && nonfull != NULL && full(q)) {
			struct conq__fill_probe p = {fill, fn, ctx, batch, 0};
			int saved = errno;
			(void)conq__put_wait(q, conq__fill_probe_try, &p,
					     nonfull,
					     conq__wait_deadline(w->park_ns));
			if (p.n != 0) {
				errno = saved;
				total += p.n;
				idle = 0;
			} else {
				if (errno == ETIMEDOUT)
					errno = saved;
				idle += (unsigned)(idle != UINT_MAX);
			}
			continue;
		}
		idle = conq_wait_idle(w, idle);
	}
	return total;
}

/* conq_<f>_drain_wait and conq_<f>_fill_wait for family f of conq.h's
 * list; full(q) is size() >= capacity(), read only by a bounded family's
 * PARK (any thread may call a bounded family's size). */
#define CONQ__DEFINE_WAIT(f)                                                   \
	static inline size_t conq__##f##_drain_erased(                         \
	    void *q, conq_consume_fn fn, void *ctx, size_t limit)              \
	{                                                                      \
		return conq_##f##_drain((conq_##f *)q, fn, ctx, limit);        \
	}                                                                      \
	static inline size_t conq__##f##_fill_erased(                          \
	    void *q, conq_supply_fn fn, void *ctx, size_t limit)               \
	{                                                                      \
		return conq_##f##_fill((conq_##f *)q, fn, ctx, limit);         \
	}                                                                      \
	static inline void *conq__##f##_take_until_erased(void *q,             \
							  int64_t deadline)    \
	{                                                                      \
		return conq_##f##_take_until((conq_##f *)q, deadline);         \
	}                                                                      \
	static inline bool conq__##f##_full_erased(void *q)                    \
	{                                                                      \
		const conq_##f *t = (const conq_##f *)q;                       \
		return conq_##f##_size(t) >= conq_##f##_capacity(t);           \
	}                                                                      \
	static inline size_t conq_##f##_drain_wait(                            \
	    conq_##f *q, conq_consume_fn fn, void *ctx, size_t batch,          \
	    const conq_wait *w, conq_exit_fn exit_fn, void *exit_ctx)          \
	{                                                                      \
		return conq__drain_wait(q, conq__##f##_drain_erased,           \
					conq__##f##_take_until_erased, fn,     \
					ctx, batch, w, exit_fn, exit_ctx);     \
	}                                                                      \
	static inline size_t conq_##f##_fill_wait(                             \
	    conq_##f *q, conq_supply_fn fn, void *ctx, size_t batch,           \
	    const conq_wait *w, conq_exit_fn exit_fn, void *exit_ctx)          \
	{                                                                      \
		return conq__fill_wait(q, conq__##f##_fill_erased,             \
				       conq__##f##_full_erased,                \
				       conq__##f##_nonfull(q), fn, ctx, batch, \
				       w, exit_fn, exit_ctx);                  \
	}

CONQ__FAMILIES(CONQ__DEFINE_WAIT)

#undef CONQ__DEFINE_WAIT

/* conq_mpsc_intrusive: drain_wait only (it has no fill); fn gets the nodes,
 * as its drain's fn does, and PARK parks in its take_until. */
static inline size_t conq__mpsc_intrusive_drain_erased(void *q,
						       conq_consume_fn fn,
						       void *ctx, size_t limit)
{
	return conq_mpsc_intrusive_drain((conq_mpsc_intrusive *)q, fn, ctx,
					 limit);
}

static inline void *conq__mpsc_intrusive_take_until_erased(void *q,
							   int64_t deadline)
{
	return conq_mpsc_intrusive_take_until((conq_mpsc_intrusive *)q,
					      deadline);
}

static inline size_t
conq_mpsc_intrusive_drain_wait(conq_mpsc_intrusive *q, conq_consume_fn fn,
			       void *ctx, size_t batch, const conq_wait *w,
			       conq_exit_fn exit_fn, void *exit_ctx)
{
	return conq__drain_wait(q, conq__mpsc_intrusive_drain_erased,
				conq__mpsc_intrusive_take_until_erased, fn, ctx,
				batch, w, exit_fn, exit_ctx);
}

#ifdef __cplusplus
}
#endif

#ifndef __cplusplus

#define CONQ__G_drain_wait(f) CONQ__GSEL(f, drain_wait)
#define CONQ__G_fill_wait(f)  CONQ__GSEL(f, fill_wait)

#define conq_drain_wait(q, fn, ctx, batch, w, exit_fn, exit_ctx)               \
	_Generic((q)CONQ__GMAP(CONQ__G_drain_wait, CONQ__FAMILY_LIST),         \
		 conq_mpsc_intrusive *                                         \
		 : conq_mpsc_intrusive_drain_wait)(q, fn, ctx, batch, w,       \
						   exit_fn, exit_ctx)
#define conq_fill_wait(q, fn, ctx, batch, w, exit_fn, exit_ctx)                \
	CONQ__GENERIC(q, fill_wait)(q, fn, ctx, batch, w, exit_fn, exit_ctx)

#else /* __cplusplus: overloads, as conq.h's verbs. */

#define CONQ__CXX_WAIT_VERBS(f)                                                \
	inline size_t conq_drain_wait(                                         \
	    conq_##f *q, conq_consume_fn fn, void *ctx, size_t batch,          \
	    const conq_wait *w, conq_exit_fn exit_fn, void *exit_ctx)          \
	{                                                                      \
		return conq_##f##_drain_wait(q, fn, ctx, batch, w, exit_fn,    \
					     exit_ctx);                        \
	}                                                                      \
	inline size_t conq_fill_wait(                                          \
	    conq_##f *q, conq_supply_fn fn, void *ctx, size_t batch,           \
	    const conq_wait *w, conq_exit_fn exit_fn, void *exit_ctx)          \
	{                                                                      \
		return conq_##f##_fill_wait(q, fn, ctx, batch, w, exit_fn,     \
					    exit_ctx);                         \
	}

extern "C++" {
CONQ__FAMILIES(CONQ__CXX_WAIT_VERBS)

inline size_t conq_drain_wait(conq_mpsc_intrusive *q, conq_consume_fn fn,
			      void *ctx, size_t batch, const conq_wait *w,
			      conq_exit_fn exit_fn, void *exit_ctx)
{
	return conq_mpsc_intrusive_drain_wait(q, fn, ctx, batch, w, exit_fn,
					      exit_ctx);
}
}

#undef CONQ__CXX_WAIT_VERBS

#endif /* __cplusplus */

#endif /* CONQ_WAIT_H */
