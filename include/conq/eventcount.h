/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/eventcount.h - waiting for a condition that other threads make true,
 * at no cost to them until somebody waits.
 *
 * An eventcount (Dmitry Vyukov's; folly's EventCount) turns any non-blocking
 * check into a blocking wait without a lost wake-up. It is how every conq
 * queue's put() and take() block, and it is public for callers who wait on
 * conditions of their own (several queues at once, a queue and a flag, ...).
 *
 * The waiter:                              The notifier:
 *
 *   for (;;) {                               make_condition_true();
 *       if (condition()) break;              conq_eventcount_notify(&ec);
 *       uint32_t key = conq_eventcount_prepare(&ec);
 *       if (condition()) {
 *           conq_eventcount_cancel(&ec);
 *           break;
 *       }
 *       conq_eventcount_wait(&ec, key, CONQ_NO_DEADLINE);
 *   }
 *
 * Either the waiter's second check sees the condition, or the notifier sees
 * the waiter and wakes it (or makes its wait return at once): prepare() takes
 * the key before the check, and every notify() that sees a waiter moves the
 * key on. The condition must be something the notifier makes true *before*
 * notify() with an ordinary (or release) store, and the waiter's check must
 * read it: conq's queues publish an element and then notify.
 *
 * The cost. notify() with nobody waiting is a compiler barrier and one
 * relaxed load of the eventcount's word, which stays in the notifier's cache
 * (the queues keep it in their producers' or consumers' own line): no fence,
 * no atomic read-modify-write, no write. The order "publish, then read the
 * word" needs a store-load fence on the notifier's side, which a waiter
 * supplies for it instead: prepare() calls membarrier(2)
 * (MEMBARRIER_CMD_PRIVATE_EXPEDITED), which runs a full fence on every CPU
 * that is running a thread of this process (the asymmetric fence of
 * liburcu's urcu-memb flavour and of folly's hazard pointers). A waiter is
 * about to sleep; it pays for both sides. With somebody waiting, notify() is
 * an atomic add to the word and a futex wake.
 *
 * Where membarrier is unavailable (kernels before 4.14, seccomp filters,
 * valgrind, some emulators), and for process-shared eventcounts (membarrier
 * fences only this process's threads), init() marks the word instead, and
 * notify() then pays an atomic read-modify-write of it on every call: still
 * correct, no longer free. conq_eventcount_is_free() says which one you got.
 *
 * The word: bits 32-63 the epoch (the futex word, the key), bits 0-29 the
 * waiters, bit 30 "notify must pay" (CONQ__EC_RMW), bit 31 process-shared.
 * A key wraps after 2^32 notifies; a waiter descheduled between prepare()
 * and wait() for exactly a multiple of 2^32 notifies would sleep through
 * them (returning on its deadline, if it has one).
 *
 * Who may call what: any thread calls any function, concurrently. notify,
 * notify_all: wait-free with nobody waiting, otherwise a system call.
 * prepare, cancel: a system call (membarrier) and an atomic add. wait:
 * blocking. At most 2^30 - 1 threads wait at once.
 *
 * Ordering: the eventcount orders nothing by itself; the condition's own
 * accesses do (a queue's release of an element, its acquire in poll). Its
 * guarantee is only that the waiter's re-check after prepare() and the
 * notifier's look at the word after its store cannot both miss.
 */
#ifndef CONQ_EVENTCOUNT_H
#define CONQ_EVENTCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "conq/impl/atomic.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_eventcount {
	uint64_t word; /* epoch << 32 | shared << 31 | rmw << 30 | waiters */
} conq_eventcount;

#define CONQ__EC_WAITERS  UINT64_C(0x3fffffff)
#define CONQ__EC_RMW	  (UINT64_C(1) << 30)
#define CONQ__EC_SHARED	  (UINT64_C(1) << 31)
#define CONQ__EC_LOW	  UINT64_C(0xffffffff)
#define CONQ__EC_EPOCH	  (UINT64_C(1) << 32)

/* init() flags. CONQ_EVENTCOUNT_SHARED: the eventcount lives in memory that
 * several processes map (a futex without FUTEX_PRIVATE_FLAG; notify pays a
 * read-modify-write, see above). */
#define CONQ_EVENTCOUNT_SHARED 1u

/* A deadline that never comes (wait, and every _until call). */
#define CONQ_NO_DEADLINE INT64_MAX

/* Initialise: nobody waiting, and the mode notify() will run in (free, or
 * paying a read-modify-write; see above), which is why a zeroed eventcount
 * is not initialised. conq's queues call it in their create and init. 0 on
 * success; EINVAL for unknown flags. Not concurrently with any other call on
 * ec, and before any. */
int conq_eventcount_init(conq_eventcount *ec, unsigned flags);

/* True if notify() with nobody waiting costs a load and no read-modify-write
 * (membarrier works, and the eventcount is not process-shared). */
bool conq_eventcount_is_free(const conq_eventcount *ec);

/* The waiter's first step: count us in and take the key. Call, re-check the
 * condition, then wait() with the key or cancel(). Any thread. */
uint32_t conq_eventcount_prepare(conq_eventcount *ec);

/* The waiter found its condition after prepare(): count us out. */
void conq_eventcount_cancel(conq_eventcount *ec);

/* Sleep until a notify() after our prepare(), or the CLOCK_MONOTONIC
 * `deadline` (nanoseconds, conq_now_ns()), or spuriously; counts us out in
 * every case. Returns 0, or ETIMEDOUT once the deadline has passed. The
 * caller re-checks its condition either way. */
int conq_eventcount_wait(conq_eventcount *ec, uint32_t key, int64_t deadline);

/* CLOCK_MONOTONIC now, in nanoseconds: the clock of every deadline. */
int64_t conq_now_ns(void);

void conq__eventcount_wake(conq_eventcount *ec, uint64_t word, int all);

/* An eventcount nobody will ever wait on (a queue used only inside conq,
 * such as conq_spsc_linked's node cache): notify stays a plain load in
 * every mode. Not concurrently with any other call on ec. */
static inline void conq__eventcount_unwaited(conq_eventcount *ec)
{
	conq__store_relaxed(&ec->word, (uint64_t)0);
}

/* After making the condition true: wake one waiter, if any waits. Any
 * thread. Wait-free when nobody waits (see the header comment). */
static CONQ__ALWAYS_INLINE void conq_eventcount_notify(conq_eventcount *ec)
{
	/* The light half of the asymmetric fence: the compiler keeps our
	 * stores that made the condition true before the load below; the CPU
	 * is made to by the membarrier of the waiter's prepare(), which pairs
	 * with this point ([E2] with [E1], docs/memory-model.md). */
	conq__compiler_barrier();
	uint64_t w = conq__load_relaxed(&ec->word);
	if (CONQ__UNLIKELY((w & CONQ__EC_LOW) != 0))
		conq__eventcount_wake(ec, w, 0);
}

/* The same, waking every waiter. */
static inline void conq_eventcount_notify_all(conq_eventcount *ec)
{
	conq__compiler_barrier(); /* [E2], as in notify() */
	uint64_t w = conq__load_relaxed(&ec->word);
	if (CONQ__UNLIKELY((w & CONQ__EC_LOW) != 0))
		conq__eventcount_wake(ec, w, 1);
}

/* How many threads are counted in as waiting (or about to), at some moment
 * of the call.
 * Relaxed; for statistics and tests. */
static inline uint32_t
conq_eventcount_waiters(const conq_eventcount *ec)
{
	return (uint32_t)(conq__load_relaxed(&ec->word) & CONQ__EC_WAITERS);
}

#ifdef __cplusplus
}
#endif

#endif /* CONQ_EVENTCOUNT_H */
