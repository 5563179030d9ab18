/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/mpsc_array.h - bounded multi-producer single-consumer array queue.
 *
 * The counterpart of JCTools' MpscArrayQueue: a power-of-two ring of
 * non-NULL `void *` slots in which NULL means "not written yet".
 *
 *  - A producer claims index p with a CAS on the producer index pidx, and
 *    then stores its element into slot p % capacity. Between the two there is
 *    a claimed but not yet written slot (a "bubble").
 *  - Producers check claims against a cached limit, plimit = a consumer
 *    index + capacity. They re-read the consumer index only when a claim
 *    would pass the limit, which in the common, not-nearly-full case is once
 *    per `capacity` offers (JCTools' producerLimit). plimit sits on its own
 *    padded block, apart from pidx, because every producer reads it on every
 *    offer and it changes rarely, while pidx changes on every offer.
 *  - The consumer owns the consumer index cidx. It reads slots in index
 *    order, clears each slot to NULL as it consumes it, and reads pidx only
 *    to tell "empty" from "bubble" when it meets a NULL slot.
 *  - A batch (offer_bulk, offer_burst, fill) claims all its slots with ONE
 *    CAS, as JCTools' MPSC fill does.
 *
 * Why the consumer clears each slot as it consumes it (JCTools), unlike
 * conq_spsc_array's lazy batches (docs/memory-model.md, conq_mpsc_array, has
 * the reasoning and the measurements): lazy clearing needs B spare slots. A
 * ring of capacity + B slots makes producers compute p % (capacity + B), a
 * division that is moreover discontinuous at the 2^64 wrap of the
 * free-running index, hence wrong there; the only wrap-correct lazy ring is
 * a power-of-two one of 2 * capacity slots. That doubles the memory, and it
 * was not consistently faster at 1P1C and 2P1C (faster at capacity 131072,
 * slower at 1024, both within this project's machine noise).
 *
 * Capacity: the requested capacity rounded up to a power of two, from 1 up to
 * CONQ_ARRAY_MAX_CAPACITY (2^31 on 64-bit targets). 0 or larger: EINVAL.
 *
 * Who may call what, concurrently (P = any number of producer threads, C =
 * the one consumer thread, A = any thread). At most one thread acts as C at
 * a time; handing the role to another thread needs a happens-before edge (a
 * mutex, a thread join, ...) between the old and the new holder.
 *
 *   function                           caller  progress
 *   offer, offer_bulk, offer_burst,    P       lock-free (a CAS loop that
 *   offer_if_below_threshold                   retries only when another
 *                                              producer claimed)
 *   relaxed_offer, fail_fast_offer     P       wait-free (one CAS attempt)
 *   fill                               P       lock-free, except: see fill
 *   poll, peek                         C       blocking on a bubble: they
 *                                              wait for a producer that has
 *                                              claimed the head slot but not
 *                                              written it yet (JCTools poll)
 *   relaxed_poll, relaxed_peek,        C       wait-free (never wait on a
 *   poll_burst, drain                          bubble: they stop before it)
 *   put, put_until                     P       blocking (while full)
 *   take, take_until                   C       blocking (while empty)
 *   size, is_empty, capacity           A       lock-free (size retries while
 *                                              C moves)
 *   create, init, memsize              A       (blocking: malloc)
 *   destroy                            A, once no P or C runs
 *
 * "Full" and "empty" count claimed slots: offer() is false iff capacity()
 * elements are claimed and not yet consumed; poll() is NULL iff no element
 * is claimed and not yet consumed (then it never waits).
 *
 * Ordering: everything a producer wrote before a successful offer of `e`
 * happens-before everything the consumer does after the poll that returns
 * `e` (release on the slot, acquire on the load of it). Everything the
 * consumer did before polling a slot happens-before a producer's reuse of
 * that slot. FIFO: elements from one producer come out in the order it
 * offered them; elements from different producers in the order of their
 * claims (linearizable at the CAS).
 *
 * A producer that dies between its claim and its store leaves a permanent
 * bubble: poll() and peek() then wait forever, the relaxed calls stop before
 * it. conq runs no caller code in that window (fill() asks its supplier
 * before it claims).
 */
#ifndef CONQ_MPSC_ARRAY_H
#define CONQ_MPSC_ARRAY_H

#include <errno.h>

#include "conq/common.h"
#include "conq/impl/blocking.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_mpsc_array conq_mpsc_array;

struct conq_mpsc_array {
	/* Read-mostly: written by init, then only read. */
	uint64_t cap;  /* capacity(), a power of two */
	uint64_t mask; /* cap - 1: slot of index i is i & mask */
	CONQ__PAD_AFTER(pad_cold, 2 * sizeof(uint64_t));

	/* Producer-hot: CASed by every producer on every claim. */
	conq__idx_t pidx; /* next index to claim; read by C and size() */
	conq_eventcount nonempty; /* take() waits here; P notifies */
	CONQ__PAD_AFTER(pad_prod, CONQ__IDX_FIELDS(1) + sizeof(uint64_t));

	/* Producer-shared, read-mostly: read by every producer on every claim,
	 * written by whichever producer refreshes it (rarely). */
	conq__idx_t plimit; /* indices below this are free: cidx + cap */
	CONQ__PAD_AFTER(pad_limit, sizeof(conq__idx_t));

	/* Consumer-hot: written only by C. */
	conq__idx_t cidx; /* next index to read; read by P on refresh, size() */
	uint64_t chase;   /* 1: the last poll() returned an element */
	conq_eventcount nonfull; /* put() waits here; C notifies */
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(1) + 2 * sizeof(uint64_t));

	/* The ring (void *slots[cap]) follows, then CONQ_PAD bytes of guard. */
};

CONQ__STATIC_ASSERT(offsetof(conq_mpsc_array, pidx) % CONQ_PAD == 0,
		    "producer index starts a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_mpsc_array, plimit) % CONQ_PAD == 0,
		    "producer limit starts a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_mpsc_array, cidx) % CONQ_PAD == 0,
		    "consumer fields start a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_mpsc_array, plimit) -
				    offsetof(conq_mpsc_array, pidx) >=
			    CONQ_PAD,
		    "producer index and limit are CONQ_PAD apart");
CONQ__STATIC_ASSERT(offsetof(conq_mpsc_array, cidx) -
				    offsetof(conq_mpsc_array, plimit) >=
			    CONQ_PAD,
		    "producer and consumer fields are CONQ_PAD apart");
CONQ__STATIC_ASSERT(sizeof(conq_mpsc_array) % CONQ_PAD == 0,
		    "the slots start a padded block");

/* Bytes of CONQ_PAD-aligned memory that init() needs for `capacity`, or 0
 * with errno = EINVAL when the capacity is 0 or too large. A: any thread. */
size_t conq_mpsc_array_memsize(size_t capacity);

/* Build a queue in caller memory (huge pages, shared memory, an arena):
 * `mem` must be aligned to CONQ_PAD and hold memsize(capacity) bytes. The
 * queue holds no pointers into itself, so the memory may be mapped at
 * different addresses in different processes. Returns `mem` as a queue, or
 * NULL with errno = EINVAL. Nothing to free beyond the caller's memory. */
conq_mpsc_array *conq_mpsc_array_init(void *mem, size_t capacity);

/* Allocate and init. NULL with errno = EINVAL (bad capacity) or ENOMEM. */
conq_mpsc_array *conq_mpsc_array_create(size_t capacity);

/* Free a queue from create(). Elements still inside are not touched. NULL is
 * a no-op. Only once no thread uses the queue. */
void conq_mpsc_array_destroy(conq_mpsc_array *q);

/* C, cold: wait (spin, then yield) until the claimed slot is written; returns
 * its element. In src/mpsc_array.c. */
void *conq__mpsc_array_wait(void **slot);

/* P, cold: publish all n elements, claiming as many as fit with one CAS at a
 * time and waiting for room for the rest. In src/mpsc_array.c. */
void conq__mpsc_array_put_all(conq_mpsc_array *q, void *const *es, size_t n);

static inline void **conq__mpsc_array_slots(const conq_mpsc_array *q)
{
	/* Through uintptr_t: the slots start CONQ_PAD-aligned (asserted above),
	 * which -Wcast-align cannot see through a char pointer. */
	return (void **)((uintptr_t)q + sizeof(conq_mpsc_array));
}

/* P, slow path: the cached limit `old` is used up; a fresh limit from the
 * consumer index, stored for the other producers when it moved. */
static CONQ__NOINLINE conq__idx_t
conq__mpsc_array_refresh(conq_mpsc_array *q, conq__idx_t old)
{
	/* [M5] acquire: pairs with [M6] (the consumer's release of cidx). The
	 * consumer read and cleared every slot below cidx before [M6], so the
	 * slots of the indices below cidx + cap are free and NULL. */
	conq__idx_t limit =
	    (conq__idx_t)(conq__load_acquire(&q->cidx) + q->cap);
	/* [M4] release: pairs with [M4] (other producers' acquire of plimit):
	 * a producer that claims below this limit sees the clears behind it.
	 * The race between refreshing producers is benign: every limit ever
	 * stored is some cidx + cap, and cidx only grows, so an older limit
	 * is only more cautious. Not stored when it did not move, so that
	 * producers spinning on a full queue do not bounce plimit's line. */
	if (conq__idx_diff(limit, old) > 0)
		conq__store_release(&q->plimit, limit);
	return limit;
}

/*
 * P: claim up to `want` (>= 1) consecutive indices with one CAS. `all`:
 * claim exactly `want` or nothing. Returns how many were claimed (0: not
 * enough room) and the first index in *first.
 *
 * "Not enough room" is decided on a pidx p seen through [M3] and a cidx read
 * after it through [M5]: pidx only grows, so p + want > cidx + cap held at
 * the moment cidx was read; the queue really was that full then.
 */
static inline uint64_t conq__mpsc_array_claim(conq_mpsc_array *q,
					      uint64_t want, bool all,
					      conq__idx_t *first)
{
	/* [M4] acquire: pairs with [M4] in refresh; see there. */
	conq__idx_t limit = conq__load_acquire(&q->plimit);
	/* [M3] acquire: pairs with [M3] (the CAS of the producer that moved
	 * pidx here), so the cidx that justified that producer's claim
	 * happens-before our own read of cidx: a p seen here is never ahead
	 * of the cidx we read next (DPDK's 2025 head/tail fix). */
	conq__idx_t p = conq__load_acquire(&q->pidx);
	uint64_t n;
	do {
		/* avail and want compared as int64_t: a narrow index build
		 * (CONQ_INDEX_BITS) must not truncate want. */
		conq__sidx_t avail = conq__idx_diff(limit, p);
		if ((int64_t)avail < (int64_t)want) {
			limit = conq__mpsc_array_refresh(q, limit);
			avail = conq__idx_diff(limit, p);
			if (avail <= 0 ||
			    (all && (int64_t)avail < (int64_t)want))
				return 0;
		}
		n = (uint64_t)avail < want ? (uint64_t)avail : want;
		/* [M3] CAS acq_rel: the claim. Pairs with [M3] (the other
		 * producers' loads and CASes of pidx) as above, and with [M7]
		 * (the consumer's and size()'s acquire of pidx). The element
		 * itself is published by [M1], not by this CAS. Weak: a
		 * spurious failure just goes round again. */
	} while (!conq__cas_weak_acq_rel(&q->pidx, &p, conq__idx_add(p, n)));
	*first = p;
	return n;
}

/* P: write n claimed elements from es[] at index p. Slots 1..n-1 are written
 * first with relaxed stores and slot 0 last with release, so the consumer,
 * which reads slots in index order with acquire, sees the batch only through
 * [M1] of its first slot and then all of it. Every publication goes through
 * here (offer and its variants, offer_bulk, offer_burst, fill and put_all:
 * once per claim), so here is where a waiting take() is woken. */
static inline void conq__mpsc_array_put(conq_mpsc_array *q, conq__idx_t p,
					void *const *es, uint64_t n)
{
	void **slots = conq__mpsc_array_slots(q);
	for (uint64_t i = 1; i < n; i++)
		/* relaxed: published by [M1] of the batch's first slot below,
		 * which the consumer must read first. */
		conq__store_relaxed(&slots[(p + i) & q->mask], es[i]);
	/* [M1] release: publishes the element(s) and everything the producer
	 * wrote before; pairs with [M2] (the consumer's acquire of the
	 * slot). */
	conq__store_release(&slots[p & q->mask], es[0]);
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
}

/* Offer `e`. True if enqueued; false iff capacity() elements are claimed and
 * not yet consumed, or if e is NULL (then errno = EINVAL: a full queue leaves
 * errno alone). P. Lock-free: the CAS loop retries only when another producer
 * claimed. Release: see the header comment. */
static inline bool conq_mpsc_array_offer(conq_mpsc_array *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	conq__idx_t p;
	if (conq__mpsc_array_claim(q, 1, true, &p) == 0)
		return false;
	void *es[1] = {e};
	conq__mpsc_array_put(q, p, es, 1);
	return true;
}

/* Offer with a single claim attempt (JCTools failFastOffer). Returns 0 if
 * enqueued, 1 if the queue is full, -1 if another producer won the race for
 * the index (the queue was not full: retry, or back off). A NULL e: 1 with
 * errno = EINVAL, as offer's false. P. Wait-free. Release, as offer. */
static inline int conq_mpsc_array_fail_fast_offer(conq_mpsc_array *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return 1;
	}
	/* [M3] acquire: as in claim. */
	conq__idx_t p = conq__load_acquire(&q->pidx);
	/* [M4] acquire: as in claim. */
	conq__idx_t limit = conq__load_acquire(&q->plimit);
	if (conq__idx_diff(limit, p) <= 0 &&
	    conq__idx_diff(conq__mpsc_array_refresh(q, limit), p) <= 0)
		return 1;
	/* [M3] CAS acq_rel: as in claim. Strong: -1 must mean that another
	 * producer claimed, not a spurious LL/SC failure. */
	if (!conq__cas_strong_acq_rel(&q->pidx, &p, conq__idx_add(p, 1)))
		return -1;
	void *es[1] = {e};
	conq__mpsc_array_put(q, p, es, 1);
	return 0;
}

/* Offer that may fail spuriously: false if the queue is full, if e is NULL
 * (errno = EINVAL), or if another producer won the race for the index. P.
 * Wait-free (one CAS attempt). Release, as offer. */
static inline bool conq_mpsc_array_relaxed_offer(conq_mpsc_array *q, void *e)
{
	return conq_mpsc_array_fail_fast_offer(q, e) == 0;
}

/* Offer only while fewer than `threshold` elements are claimed and not yet
 * consumed (JCTools offerIfBelowThreshold): false if size would be >=
 * threshold, so a threshold of 0 always refuses; a threshold above
 * capacity() acts as capacity(), i.e. as offer. A NULL e: false with errno =
 * EINVAL. P. Lock-free, as offer. Release, as offer. */
static inline bool conq_mpsc_array_offer_if_below_threshold(conq_mpsc_array *q,
							    void *e,
							    size_t threshold)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	uint64_t t = threshold < q->cap ? (uint64_t)threshold : q->cap;
	if (t == 0)
		return false;
	/* The limit logic with the threshold: the slots below limit - cap + t
	 * are the ones a size below t allows. */
	/* [M4] acquire: as in claim. */
	conq__idx_t limit = conq__load_acquire(&q->plimit);
	/* [M3] acquire: as in claim. */
	conq__idx_t p = conq__load_acquire(&q->pidx);
	do {
		if (conq__idx_diff(
			conq__idx_add(conq__idx_sub(limit, q->cap), t), p) <=
		    0) {
			limit = conq__mpsc_array_refresh(q, limit);
			if (conq__idx_diff(
				conq__idx_add(conq__idx_sub(limit, q->cap), t),
				p) <= 0)
				return false;
		}
		/* [M3] CAS acq_rel: as in claim. */
	} while (!conq__cas_weak_acq_rel(&q->pidx, &p, conq__idx_add(p, 1)));
	void *es[1] = {e};
	conq__mpsc_array_put(q, p, es, 1);
	return true;
}

/* C: the slot of cidx. */
static inline void **conq__mpsc_array_head_slot(const conq_mpsc_array *q)
{
	return &conq__mpsc_array_slots(q)[q->cidx & q->mask];
}

/* C: the element at cidx; NULL if the queue is empty; waits for a bubble. */
static inline void *conq__mpsc_array_head_wait(const conq_mpsc_array *q,
					       void **slot)
{
	/* [M2] acquire: pairs with [M1]; the payload behind the element is
	 * visible once its slot is. */
	void *e = conq__load_acquire(slot);
	/* [M7] acquire: pairs with [M3]. pidx == cidx: nothing is claimed,
	 * the queue is empty. pidx != cidx (it is then above it): a producer
	 * claimed index cidx and will write its slot; wait for it. */
	if (CONQ__UNLIKELY(e == NULL) &&
	    conq__load_acquire(&q->pidx) != q->cidx)
		e = conq__mpsc_array_wait(slot);
	return e;
}

/* C: consume the element at cidx (already read from `slot`). poll and
 * relaxed_poll (and so drain) consume through here; poll_burst stores cidx
 * itself, once per batch. */
static inline void conq__mpsc_array_advance(conq_mpsc_array *q, void **slot)
{
	/* relaxed: producers learn of the clear through [M6] below, never by
	 * reading the slot. */
	conq__store_relaxed(slot, (void *)NULL);
	/* [M6] release: pairs with [M5]; orders our read and clear of the slot
	 * before a producer's reuse of it. */
	conq__store_release(&q->cidx, conq__idx_add(q->cidx, 1));
	conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
}

/* Re-reads of a NULL head slot before poll() asks pidx whether the queue is
 * empty, when the previous poll() got an element, and the nanoseconds of
 * pauses before each (conq__watch_gap). */
#ifndef CONQ__MPSC_CHASE_SPINS
#define CONQ__MPSC_CHASE_SPINS 4
#endif
#ifndef CONQ__MPSC_CHASE_GAP
#define CONQ__MPSC_CHASE_GAP 176u /* ns: 16 pauses of the Intel guest */
#endif

/* C: the head slot was NULL. While chasing the producers (the last poll got
 * an element), look at the slot a few more times, CONQ__MPSC_CHASE_GAP ns
 * apart so that a producer fills the slot's line undisturbed between
 * two looks (conq__watch_gap), before reading pidx: the
 * next element is likely on its way, and every read of pidx pulls the line
 * that producers CAS away from them, which slows every producer down just
 * when the consumer is waiting for them (measured: 1P1C strict spin
 * offer/poll about 2x faster; docs/memory-model.md). Then as head_wait. */
static inline void *conq__mpsc_array_head_miss(conq_mpsc_array *q, void **slot)
{
	void *e = NULL;
	if (q->chase) {
		for (unsigned i = 0; i < CONQ__MPSC_CHASE_SPINS; i++) {
			conq__watch_gap(CONQ__MPSC_CHASE_GAP);
			/* [M2] acquire: pairs with [M1]. */
			e = conq__load_acquire(slot);
			if (e != NULL)
				return e;
		}
		q->chase = 0;
	}
	/* [M7] acquire: pairs with [M3]; see head_wait. */
	if (conq__load_acquire(&q->pidx) == q->cidx)
		return NULL;
	return conq__mpsc_array_wait(slot);
}

/* Poll: the oldest element, or NULL iff the queue is empty (no element is
 * claimed and not yet consumed). C only. Blocking on a bubble: when the
 * oldest element is claimed but not yet written, waits for its producer
 * (spinning, then yielding), as JCTools' poll does; relaxed_poll never waits.
 * Right after a poll that got an element, an empty answer costs up to
 * CONQ__MPSC_CHASE_SPINS * CONQ__MPSC_CHASE_GAP ns more (see head_miss).
 * Acquire: see the header comment. */
static inline void *conq_mpsc_array_poll(conq_mpsc_array *q)
{
	void **slot = conq__mpsc_array_head_slot(q);
	/* [M2] acquire: pairs with [M1]; the payload behind the element is
	 * visible once its slot is. */
	void *e = conq__load_acquire(slot);
	if (CONQ__UNLIKELY(e == NULL)) {
		e = conq__mpsc_array_head_miss(q, slot);
		if (e == NULL)
			return NULL;
	}
	q->chase = 1;
	conq__mpsc_array_advance(q, slot);
	return e;
}

/* Poll that never waits: NULL if the queue is empty or if its oldest element
 * is claimed but not yet written. C only. Wait-free. Acquire, as poll. */
static inline void *conq_mpsc_array_relaxed_poll(conq_mpsc_array *q)
{
	void **slot = conq__mpsc_array_head_slot(q);
	/* [M2] acquire: pairs with [M1]. */
	void *e = conq__load_acquire(slot);
	if (e != NULL)
		conq__mpsc_array_advance(q, slot);
	return e;
}

/* The oldest element without removing it, or NULL iff empty. C only.
 * Blocking on a bubble, as poll. Acquire, as poll. */
static inline void *conq_mpsc_array_peek(conq_mpsc_array *q)
{
	return conq__mpsc_array_head_wait(q, conq__mpsc_array_head_slot(q));
}

/* peek that never waits: NULL also when the oldest element is claimed but not
 * yet written. C only. Wait-free. Acquire, as poll. */
static inline void *conq_mpsc_array_relaxed_peek(conq_mpsc_array *q)
{
	/* [M2] acquire: pairs with [M1]. */
	return conq__load_acquire(conq__mpsc_array_head_slot(q));
}

/* The capacity (a power of two). A. Wait-free. */
static inline size_t conq_mpsc_array_capacity(const conq_mpsc_array *q)
{
	return (size_t)q->cap;
}

/* Elements claimed and not yet consumed, always within [0, capacity()]
 * (claimed slots that are not written yet count). Exact when no P or C runs;
 * otherwise some value the queue held during the call. A. Lock-free: retries
 * while the consumer index moves (JCTools' IndexedQueueSizeUtil). */
static inline size_t conq_mpsc_array_size(const conq_mpsc_array *q)
{
	/* [M8] acquire (all three): pair with [M6] and [M3]. */
	return conq__indexed_size(&q->cidx, &q->pidx, q->cap);
}

/* True if no element was claimed and not yet consumed at some moment during
 * the call. Reads the consumer index before the producer index, so it errs
 * towards "empty". From C, false means the next poll returns an element
 * (possibly after waiting for a bubble). A. Wait-free. */
static inline bool conq_mpsc_array_is_empty(const conq_mpsc_array *q)
{
	/* [M8] acquire: pairs with [M6], then [M3]. */
	conq__idx_t c = conq__load_acquire(&q->cidx);
	return conq__idx_diff(conq__load_acquire(&q->pidx), c) <= 0;
}

/* Offer all n elements or none, with one claim (one CAS when uncontended).
 * Returns n, or 0 if fewer than n slots are free (or n is 0). A NULL among
 * them: 0 with errno = EINVAL, none enqueued. The n elements are contiguous
 * in the queue: no other producer's element comes between them. P.
 * Lock-free, as offer (O(n)). Release, as offer. */
static inline size_t conq_mpsc_array_offer_bulk(conq_mpsc_array *q,
						void *const *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (CONQ__UNLIKELY(es[i] == NULL)) {
			errno = EINVAL;
			return 0;
		}
	conq__idx_t p;
	if (n == 0 || (uint64_t)n > q->cap ||
	    conq__mpsc_array_claim(q, (uint64_t)n, true, &p) == 0)
		return 0;
	conq__mpsc_array_put(q, p, es, (uint64_t)n);
	return n;
}

/* Offer as many of the n elements as there is room for, in order, with one
 * claim (one CAS when uncontended). Returns how many (0 iff the queue is
 * full, n is 0 or es[0] is NULL). Stops before the first NULL (errno =
 * EINVAL). The elements enqueued are contiguous in the queue. P. Lock-free,
 * as offer (O(n)). Release, as offer. */
static inline size_t conq_mpsc_array_offer_burst(conq_mpsc_array *q,
						 void *const *es, size_t n)
{
	size_t k = 0;
	while (k < n && es[k] != NULL)
		k++;
	if (k < n)
		errno = EINVAL;
	if (k == 0)
		return 0;
	conq__idx_t p;
	uint64_t m = conq__mpsc_array_claim(q, (uint64_t)k, false, &p);
	if (m)
		conq__mpsc_array_put(q, p, es, m);
	return (size_t)m;
}

/* Poll up to n elements into out[], oldest first. Returns how many: 0 when
 * the queue is empty or n is 0, but also when the oldest element is claimed
 * and not yet written (poll() tells the two apart); it stops before the
 * first such bubble and never waits. C only. Wait-free (O(n)). Acquire, as
 * poll. */
static inline size_t conq_mpsc_array_poll_burst(conq_mpsc_array *q, void **out,
						size_t n)
{
	void **slots = conq__mpsc_array_slots(q);
	conq__idx_t c = q->cidx;
	size_t k = 0;
	while (k < n) {
		void **slot = &slots[(c + k) & q->mask];
		/* [M2] acquire: pairs with [M1], element by element. */
		void *e = conq__load_acquire(slot);
		if (e == NULL)
			break;
		out[k++] = e;
		/* relaxed: published to producers by [M6] below. */
		conq__store_relaxed(slot, (void *)NULL);
	}
	if (k) {
		/* [M6] release: pairs with [M5]; see advance. */
		conq__store_release(&q->cidx, conq__idx_add(c, k));
		conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
	}
	return k;
}

/* Hand up to `limit` elements to fn(ctx, e), oldest first; stops early when
 * the queue is empty or its oldest element is claimed and not yet written
 * (JCTools' drain is relaxed the same way; it never waits). Each element is
 * consumed before fn sees it. Returns how many. C only; fn must not use this
 * queue's consumer side. Wait-free apart from fn. Acquire, as poll. */
static inline size_t conq_mpsc_array_drain(conq_mpsc_array *q,
					   conq_consume_fn fn, void *ctx,
					   size_t limit)
{
	size_t k = 0;
	void *e;
	while (k < limit && (e = conq_mpsc_array_relaxed_poll(q)) != NULL) {
		fn(ctx, e);
		k++;
	}
	return k;
}

/* Elements fill() gathers from its supplier before claiming them in one. */
#define CONQ__MPSC_FILL_CHUNK 64

/*
 * Enqueue up to `limit` elements from fn(ctx); stops early when the queue is
 * full or fn returns NULL. Returns how many. P; fn must not use this queue's
 * producer side. Release, as offer.
 *
 * fn is asked only for as many elements as there are free slots (at most
 * CONQ__MPSC_FILL_CHUNK at a time); the elements are gathered in a local
 * buffer, then claimed with one CAS and published together. Claiming before
 * supplying, as JCTools does, would leave claimed slots that can never be
 * written when fn returns NULL early. The price: when another producer takes
 * the free slots between fill's look and its claim, fill claims what remains
 * and waits (spinning, then yielding) for the consumer to make room for the
 * rest, because it must not drop elements fn has handed over. So fill is
 * lock-free apart from fn, except that it may wait for the consumer when
 * producers race it into a nearly full queue; a fill alone never waits.
 */
static inline size_t conq_mpsc_array_fill(conq_mpsc_array *q,
					  conq_supply_fn fn, void *ctx,
					  size_t limit)
{
	void *buf[CONQ__MPSC_FILL_CHUNK];
	size_t done = 0;
	while (done < limit) {
		uint64_t want = limit - done;
		if (want > CONQ__MPSC_FILL_CHUNK)
			want = CONQ__MPSC_FILL_CHUNK;
		/* [M3] acquire, [M4] acquire: as in claim. */
		conq__idx_t p = conq__load_acquire(&q->pidx);
		conq__idx_t lim = conq__load_acquire(&q->plimit);
		conq__sidx_t room = conq__idx_diff(lim, p);
		if ((int64_t)room < (int64_t)want)
			room = conq__idx_diff(conq__mpsc_array_refresh(q, lim),
					      p);
		if (room <= 0)
			break;
		if ((uint64_t)room < want)
			want = (uint64_t)room;
		size_t n = 0;
		while (n < want && (buf[n] = fn(ctx)) != NULL)
			n++;
		if (n == 0)
			break;
		conq__idx_t first;
		uint64_t m = conq__mpsc_array_claim(q, n, false, &first);
		if (m)
			conq__mpsc_array_put(q, first, buf, m);
		if (m < n)
			conq__mpsc_array_put_all(q, buf + m, n - (size_t)m);
		done += n;
		if (n < want)
			break;
	}
	return done;
}

CONQ__DEFINE_PUT(mpsc_array, nonfull)
CONQ__DEFINE_TAKE(mpsc_array, nonempty)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_MPSC_ARRAY_H */
