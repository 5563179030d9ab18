/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/spmc_array.h - bounded single-producer multi-consumer array queue.
 *
 * The counterpart of JCTools' SpmcArrayQueue: a power-of-two ring of
 * non-NULL `void *` slots in which NULL means "free".
 *
 *  - The producer writes a slot, then publishes it by moving the producer
 *    index pidx (release). Consumers never read a slot above pidx, so they
 *    never meet a claimed but unwritten slot: in SPMC poll never waits.
 *  - A consumer claims index c with a CAS on the consumer index cidx, checked
 *    against a shared cache of pidx (pcache, JCTools' producerIndexCache) that
 *    consumers refresh from pidx only when it runs out. Then it reads the slot
 *    and clears it to NULL. Between the CAS and the clear there is a claimed
 *    but not yet cleared slot (a "bubble"); the producer, which checks that a
 *    slot is NULL before it overwrites it, may have to wait for one.
 *  - The producer decides from the slot itself: a NULL slot is free (its
 *    previous element was claimed and read), so an offer into a NULL slot
 *    reads no consumer line at all. Only a slot that still holds an element
 *    needs cidx, to tell "full" from a bubble (below); the producer keeps
 *    the last cidx it read as a limit (plimit = cidx + capacity), and, when
 *    the limit does not decide, first watches the slot for a few pauses
 *    (the consumer that frees it may be about to), so that a producer
 *    spinning on a full queue does not pull cidx, the line every consumer
 *    CASes per element, away from the consumers on every call.
 *  - A consumer whose cache of pidx is used up looks at the slot of the
 *    index it would claim before reading pidx: NULL there (with cidx
 *    unchanged) means the producer has not written it, so the queue is
 *    empty; a consumer spinning on an empty queue reads the slot and cidx,
 *    not pidx, the line the producer stores per element.
 *  - A batch (poll_burst, drain) claims all its slots with ONE CAS.
 *
 * cidx moves on every poll while pcache is read on every poll and written
 * rarely, so the two sit on separate padded blocks (JCTools' MidPad).
 *
 * Capacity: the requested capacity rounded up to a power of two, from 1 up to
 * CONQ_ARRAY_MAX_CAPACITY (2^31 on 64-bit targets). 0 or larger: EINVAL.
 *
 * Who may call what, concurrently (P = the one producer thread, C = any
 * number of consumer threads, A = any thread). At most one thread acts as P
 * at a time; handing the role to another thread needs a happens-before edge
 * (a mutex, a thread join, ...) between the old and the new holder.
 *
 *   function                          caller  progress
 *   offer, offer_bulk                 P       blocking on a bubble: when the
 *                                             slot to write still holds an
 *                                             element a consumer has claimed
 *                                             but not yet read, they wait for
 *                                             that consumer (JCTools offer)
 *   relaxed_offer, offer_burst, fill  P       wait-free (never wait on a
 *                                             bubble: they stop before it)
 *   poll, relaxed_poll, peek,         C       lock-free (a CAS loop that
 *   relaxed_peek, poll_burst, drain           retries only when another
 *                                             consumer made progress)
 *   put, put_until                    P       blocking (while full)
 *   take, take_until                  C       blocking (while empty)
 *   size, is_empty, capacity          A       lock-free (size retries while
 *                                             C moves)
 *   create, init, memsize             A       (blocking: malloc)
 *   destroy                           A, once no P or C runs
 *
 * offer() is false iff capacity() elements are in the queue (a claimed slot
 * no longer counts: its element is consumed); poll() is NULL iff the queue
 * is empty. The relaxed poll and peek are the strict ones: there is no
 * claimed but unwritten slot for them to skip.
 *
 * Ordering: everything the producer wrote before a successful offer of `e`
 * happens-before everything the consumer does after the poll that returns
 * `e` (release on pidx, acquire on the load of it). Everything a consumer
 * did before polling a slot happens-before the producer's reuse of that slot
 * (release on the clear, acquire on the producer's load of the slot). FIFO:
 * elements are claimed in offer order (linearizable at the CAS); consumers
 * then return them concurrently, so the order in which different consumers'
 * poll() calls return is not the claim order.
 *
 * A consumer that dies between its claim and its clear leaves a permanent
 * bubble: offer() and offer_bulk() wait forever once the producer laps round
 * to it, the others stop before it. conq runs no caller code in that window
 * (drain() frees the slots of a batch before it calls fn).
 */
#ifndef CONQ_SPMC_ARRAY_H
#define CONQ_SPMC_ARRAY_H

#include <errno.h>

#include "conq/common.h"
#include "conq/impl/blocking.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_spmc_array conq_spmc_array;

struct conq_spmc_array {
	/* Read-mostly: written by init, then only read. */
	uint64_t cap;  /* capacity(), a power of two */
	uint64_t mask; /* cap - 1: slot of index i is i & mask */
	CONQ__PAD_AFTER(pad_cold, 2 * sizeof(uint64_t));

	/* Producer-hot: written only by P. */
	conq__idx_t pidx;   /* next index to write; read by C and size() */
	conq__idx_t plimit; /* indices below this are claimed: cidx + cap */
	conq_eventcount nonempty; /* take() waits here; P notifies */
	CONQ__PAD_AFTER(pad_prod, CONQ__IDX_FIELDS(2) + sizeof(uint64_t));

	/* Consumer-hot: CASed by every consumer on every claim. */
	conq__idx_t cidx; /* next index to claim; read by P on refresh */
	conq_eventcount nonfull; /* put() waits here; C notifies */
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(1) + sizeof(uint64_t));

	/* Consumer-shared, read-mostly: read by every consumer on every claim,
	 * written by whichever consumer refreshes it (rarely). */
	conq__idx_t pcache; /* a pidx seen by a consumer */
	CONQ__PAD_AFTER(pad_cache, sizeof(conq__idx_t));

	/* The ring (void *slots[cap]) follows, then CONQ_PAD bytes of guard. */
};

CONQ__STATIC_ASSERT(offsetof(conq_spmc_array, pidx) % CONQ_PAD == 0,
		    "producer fields start a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_spmc_array, cidx) % CONQ_PAD == 0,
		    "consumer index starts a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_spmc_array, pcache) % CONQ_PAD == 0,
		    "producer index cache starts a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_spmc_array, cidx) -
				    offsetof(conq_spmc_array, pidx) >=
			    CONQ_PAD,
		    "producer and consumer fields are CONQ_PAD apart");
CONQ__STATIC_ASSERT(offsetof(conq_spmc_array, pcache) -
				    offsetof(conq_spmc_array, cidx) >=
			    CONQ_PAD,
		    "consumer index and cache are CONQ_PAD apart");
CONQ__STATIC_ASSERT(sizeof(conq_spmc_array) % CONQ_PAD == 0,
		    "the slots start a padded block");

/* Bytes of CONQ_PAD-aligned memory that init() needs for `capacity`, or 0
 * with errno = EINVAL when the capacity is 0 or too large. A: any thread. */
size_t conq_spmc_array_memsize(size_t capacity);

/* Build a queue in caller memory (huge pages, shared memory, an arena):
 * `mem` must be aligned to CONQ_PAD and hold memsize(capacity) bytes. The
 * queue holds no pointers into itself, so the memory may be mapped at
 * different addresses in different processes. Returns `mem` as a queue, or
 * NULL with errno = EINVAL. Nothing to free beyond the caller's memory. */
conq_spmc_array *conq_spmc_array_init(void *mem, size_t capacity);

/* Allocate and init. NULL with errno = EINVAL (bad capacity) or ENOMEM. */
conq_spmc_array *conq_spmc_array_create(size_t capacity);

/* Free a queue from create(). Elements still inside are not touched. NULL is
 * a no-op. Only once no thread uses the queue. */
void conq_spmc_array_destroy(conq_spmc_array *q);

/* P, cold: wait (spin, then yield) until a consumer has cleared the slot it
 * claimed. In src/spmc_array.c. */
void conq__spmc_array_wait(void **slot);

/* P, cold: offer e at p, whose slot still holds an element: full (false),
 * or a bubble (wait, then write). In src/spmc_array.c. */
bool conq__spmc_array_offer_held(conq_spmc_array *q, conq__idx_t p, void *e);

/* How many looks a strict offer takes at a slot that still holds an element,
 * each after CONQ__SPMC_CHASE_GAP ns of pauses (conq__watch_gap), before it
 * reads cidx to tell "full" from a bubble: the consumer that frees the slot
 * may be about to, and each read of cidx costs the consumers, who CAS it per
 * element, a line transfer. */
#ifndef CONQ__SPMC_CHASE_GAP
#define CONQ__SPMC_CHASE_GAP 176u /* ns: 16 pauses of the Intel guest */
#endif
#ifndef CONQ__SPMC_CHASE_SPINS
#define CONQ__SPMC_CHASE_SPINS 4
#endif

static inline void **conq__spmc_array_slots(const conq_spmc_array *q)
{
	/* Through uintptr_t: the slots start CONQ_PAD-aligned (asserted above),
	 * which -Wcast-align cannot see through a char pointer. */
	return (void **)((uintptr_t)q + sizeof(conq_spmc_array));
}

/* P, slow path: the cached limit is used up; re-read the consumer index.
 * Returns the room from pidx on (0: full). */
static inline uint64_t conq__spmc_array_refresh_limit(conq_spmc_array *q,
						      conq__idx_t p)
{
	/* [C8] acquire: pairs with [C5] (the consumers' CAS of cidx). Every
	 * index below cidx is claimed, so the slots below cidx + cap hold no
	 * element still in the queue; a claimed slot may not be cleared yet,
	 * which the producer checks slot by slot through [C7]. */
	q->plimit = (conq__idx_t)(conq__load_acquire(&q->cidx) + q->cap);
	return (uint64_t)conq__idx_diff(q->plimit, p);
}

/* P: room from pidx on without re-reading cidx, refreshing if below `want`.
 * plimit may lag behind pidx (offers into free slots do not consult it): a
 * negative difference is no room. (Narrow index builds keep it from
 * trailing: conq__spmc_array_publish.) */
static inline uint64_t conq__spmc_array_room(conq_spmc_array *q, conq__idx_t p,
					     uint64_t want)
{
	conq__sidx_t avail = conq__idx_diff(q->plimit, p);
	if ((int64_t)avail < (int64_t)want)
		return conq__spmc_array_refresh_limit(q, p);
	return (uint64_t)avail;
}

/* P: true if the slot holds no element (its last consumer cleared it). */
static inline bool conq__spmc_array_slot_free(void **slot)
{
	/* [C7] acquire: pairs with [C6] (the consumer's release of its clear):
	 * the consumer's read of the old element, and everything it did
	 * before, happen-before our overwrite. */
	return conq__load_acquire(slot) == NULL;
}

/* P: write e into a free slot. */
static inline void conq__spmc_array_store(void **slot, void *e)
{
	/* [C1] release: pairs with [C9] (peek's acquire of the slot), so a
	 * peek that reads this element also sees the clear and the claim of
	 * the slot's previous element. Consumers that claim the element are
	 * published to by [C2], not by this store. */
	conq__store_release(slot, e);
}

/* P: publish the elements below p. Every publication goes through here
 * (offer, relaxed_offer, offer_bulk, offer_burst, fill: once per call), so
 * here is where a waiting take() is woken. */
static inline void conq__spmc_array_publish(conq_spmc_array *q, conq__idx_t p)
{
	/* [C2] release: pairs with [C3] (the consumers' acquire of pidx):
	 * publishes the elements below p and everything the producer wrote
	 * before. */
	conq__store_release(&q->pidx, p);
#if CONQ_INDEX_BITS < 64
	/* Narrow index test builds: an offer into a free slot never reads
	 * plimit, so plimit could fall behind pidx without bound, and once
	 * half a range behind it would read as ahead (room that is not
	 * there: a strict offer at a full queue would wait for a consumer
	 * forever). Every slot below p was free when written, so
	 * cidx + cap >= p: p is a limit, and plimit never trails pidx.
	 * (64-bit builds: the trail cannot reach 2^63.) */
	if (conq__idx_diff(p, q->plimit) > 0)
		q->plimit = p;
#endif
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
}

/* Offer `e`. True if enqueued; false iff the queue holds capacity()
 * elements, or if e is NULL (then errno = EINVAL: a full queue leaves errno
 * alone). P only. Wait-free, except that it waits (spinning, then yielding)
 * when the slot to write still holds an element a consumer has claimed but
 * not yet read (JCTools' offer; relaxed_offer never waits). A false answer
 * comes after watching the slot (CONQ__SPMC_CHASE_SPINS looks, each after
 * CONQ__SPMC_CHASE_GAP ns of pauses; then one read of cidx). Release: see
 * the header comment. */
static inline bool conq_spmc_array_offer(conq_spmc_array *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	conq__idx_t p = q->pidx;
	void **slot = &conq__spmc_array_slots(q)[p & q->mask];
	/* [C11] (the acquire of [C7]): a free slot is room: its previous
	 * element (index p - cap) was claimed and read, so cidx > p - cap;
	 * no need to read cidx. */
	if (CONQ__UNLIKELY(!conq__spmc_array_slot_free(slot)))
		return conq__spmc_array_offer_held(q, p, e);
	conq__spmc_array_store(slot, e);
	conq__spmc_array_publish(q, conq__idx_add(p, 1));
	return true;
}

/* Offer that never waits: false also when the slot to write still holds an
 * element a consumer has claimed but not yet read. P only. Wait-free.
 * Release, as offer. */
static inline bool conq_spmc_array_relaxed_offer(conq_spmc_array *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	conq__idx_t p = q->pidx;
	void **slot = &conq__spmc_array_slots(q)[p & q->mask];
	/* [C11]: the slot decides alone: free is room (as in offer); holding
	 * an element is full or a bubble, false either way. Never reads
	 * cidx. */
	if (CONQ__UNLIKELY(!conq__spmc_array_slot_free(slot)))
		return false;
	conq__spmc_array_store(slot, e);
	conq__spmc_array_publish(q, conq__idx_add(p, 1));
	return true;
}

/* C, slow path: the cached producer index `old` is used up; re-read pidx,
 * and share it with the other consumers when it moved. */
static inline conq__idx_t conq__spmc_array_refresh(conq_spmc_array *q,
						   conq__idx_t old)
{
	/* [C3] acquire: pairs with [C2]; the elements below p are written. */
	conq__idx_t p = conq__load_acquire(&q->pidx);
	/* [C4] release: pairs with [C4] (other consumers' acquire of pcache),
	 * which thus see the elements below p as [C3] did. The race between
	 * refreshing consumers is benign: every value stored is some pidx, an
	 * older one is only more cautious. */
	if (conq__idx_diff(p, old) > 0)
		conq__store_release(&q->pcache, p);
	return p;
}

/*
 * C: claim up to `want` (>= 1) consecutive indices with one CAS. Returns how
 * many (0: the queue is empty) and the first index in *first.
 *
 * "Empty" is decided first on the slot of c ([C10]): NULL there, read
 * between two loads of cidx that both give c, means element c was not
 * written when the slot was read (a cleared element c would have moved
 * cidx first), so the queue was empty then. Else, on a cidx c seen through
 * [C5] and a pidx read after it through [C3]: the consumer that moved cidx
 * to c had seen pidx >= c, and [C5] carries that to us, so p <= c means
 * p == c: the queue was empty when pidx was read.
 */
static inline uint64_t conq__spmc_array_claim(conq_spmc_array *q,
					      uint64_t want, conq__idx_t *first)
{
	/* [C4] acquire: pairs with [C4] in refresh. */
	conq__idx_t pc = conq__load_acquire(&q->pcache);
	/* [C5] acquire: pairs with [C5] (the CAS of the consumer that moved
	 * cidx here): see above. */
	conq__idx_t c = conq__load_acquire(&q->cidx);
	for (;;) {
		/* avail and want compared as int64_t: a narrow index build
		 * (CONQ_INDEX_BITS) must not truncate want. */
		conq__sidx_t avail = conq__idx_diff(pc, c);
		if (avail <= 0) {
			/* [C10] acquire: pairs with [C1] (the producer's store
			 * of element c) and [C6] (a consumer's clear of it).
			 * NULL: element c is not written (the producer stores
			 * it before [C2]), or it was claimed and cleared; a
			 * cidx still at c, read after, rules the second out:
			 * the queue is empty, and pidx, the line the producer
			 * stores per element, stays unread. */
			void *e = conq__load_acquire(
			    &conq__spmc_array_slots(q)[c & q->mask]);
			if (e == NULL) {
				/* [C5] acquire: as above, after [C10]. */
				conq__idx_t c2 = conq__load_acquire(&q->cidx);
				if (c2 == c)
					return 0;
				c = c2;
				continue;
			}
		}
		if ((int64_t)avail < (int64_t)want) {
			pc = conq__spmc_array_refresh(q, pc);
			avail = conq__idx_diff(pc, c);
			if (avail <= 0)
				return 0;
		}
		uint64_t n = (uint64_t)avail < want ? (uint64_t)avail : want;
		/* [C5] CAS acq_rel: the claim. Pairs with [C5] (the other
		 * consumers' loads and CASes of cidx) as above, and with [C8]
		 * (the producer's acquire of cidx). Weak: a spurious failure
		 * just goes round again. */
		if (conq__cas_weak_acq_rel(&q->cidx, &c, conq__idx_add(c, n))) {
			*first = c;
			return n;
		}
	}
}

/* C: take the element of claimed index c and free its slot. The caller
 * (poll, poll_burst) wakes a waiting put() after its last take. */
static inline void *conq__spmc_array_take(conq_spmc_array *q, conq__idx_t c)
{
	void **slot = &conq__spmc_array_slots(q)[c & q->mask];
	/* relaxed: the element was published by [C2], which we acquired
	 * (through [C3], or [C4] after it) before claiming c; and no one else
	 * writes this slot until we clear it. */
	void *e = conq__load_relaxed(slot);
	/* [C6] release: pairs with [C7] (the producer's acquire of the slot)
	 * and [C9] (peek's): our read of e, and everything before it,
	 * happen-before the slot's reuse. */
	conq__store_release(slot, (void *)NULL);
	return e;
}

/* Poll: the oldest element, or NULL iff the queue is empty. C. Lock-free:
 * retries only when another consumer claimed; never waits on a thread.
 * Acquire: see the header comment. */
static inline void *conq_spmc_array_poll(conq_spmc_array *q)
{
	conq__idx_t c;
	if (conq__spmc_array_claim(q, 1, &c) == 0)
		return NULL;
	void *e = conq__spmc_array_take(q, c);
	conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
	return e;
}

/* Same as poll: nothing in SPMC makes poll wait. C. */
static inline void *conq_spmc_array_relaxed_poll(conq_spmc_array *q)
{
	return conq_spmc_array_poll(q);
}

/* The oldest element without removing it, or NULL iff empty. Another
 * consumer may poll it at any moment, so the answer can be stale as soon as
 * it is returned (but it was in the queue, at its head, during the call). C.
 * Lock-free: retries only when another consumer claimed. Acquire, as poll. */
static inline void *conq_spmc_array_peek(conq_spmc_array *q)
{
	void **slots = conq__spmc_array_slots(q);
	/* [C4] acquire: as in claim. */
	conq__idx_t pc = conq__load_acquire(&q->pcache);
	/* [C5] acquire: as in claim. */
	conq__idx_t c = conq__load_acquire(&q->cidx);
	for (;;) {
		if (conq__idx_diff(pc, c) <= 0) {
			pc = conq__spmc_array_refresh(q, pc);
			if (conq__idx_diff(pc, c) <= 0)
				return NULL;
		}
		/* [C9] acquire: pairs with [C1] and [C6]. The slot of c
		 * holds element c (written before [C2], which we acquired),
		 * or, once c is claimed, NULL or a later element; both were
		 * released after the claim of c, so the re-read of cidx
		 * below then sees it moved. A stable cidx proves e is the
		 * head (JCTools' sandwich). */
		void *e = conq__load_acquire(&slots[c & q->mask]);
		/* [C5] acquire: as in claim, and ordered after [C9]. */
		conq__idx_t c2 = conq__load_acquire(&q->cidx);
		if (c2 == c && e != NULL)
			return e;
		c = c2;
	}
}

/* Same as peek. C. */
static inline void *conq_spmc_array_relaxed_peek(conq_spmc_array *q)
{
	return conq_spmc_array_peek(q);
}

/* The capacity (a power of two). A. Wait-free. */
static inline size_t conq_spmc_array_capacity(const conq_spmc_array *q)
{
	return (size_t)q->cap;
}

/* Elements in the queue (claimed ones are gone), always within
 * [0, capacity()]. Exact when neither P nor C runs; otherwise some value the
 * queue held during the call. A. Lock-free: retries while the consumer index
 * moves (JCTools' IndexedQueueSizeUtil). */
static inline size_t conq_spmc_array_size(const conq_spmc_array *q)
{
	/* [C5] acquire (cidx), [C3] acquire (pidx): pair with [C5], [C2]. */
	return conq__indexed_size(&q->cidx, &q->pidx, q->cap);
}

/* True if the queue held no element at some moment during the call. Reads
 * the consumer index before the producer index, so it errs towards "empty".
 * A. Wait-free. */
static inline bool conq_spmc_array_is_empty(const conq_spmc_array *q)
{
	/* [C5] acquire, then [C3] acquire: pair with [C5], [C2]. */
	conq__idx_t c = conq__load_acquire(&q->cidx);
	return conq__idx_diff(conq__load_acquire(&q->pidx), c) <= 0;
}

/* Offer all n elements or none. Returns n, or 0 if fewer than n slots are
 * free (or n is 0). A NULL among them: 0 with errno = EINVAL, none enqueued.
 * P only. Wait-free (O(n)), except that it waits, as offer, for consumers
 * that have claimed but not yet read the slots' previous elements. Release,
 * as offer; the n elements are published together (one release of pidx). */
static inline size_t conq_spmc_array_offer_bulk(conq_spmc_array *q,
						void *const *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (CONQ__UNLIKELY(es[i] == NULL)) {
			errno = EINVAL;
			return 0;
		}
	conq__idx_t p = q->pidx;
	void **slots = conq__spmc_array_slots(q);
	if (n == 0 || (uint64_t)n > q->cap)
		return 0;
	/* [C11]: the last slot free is room for all n (its previous element,
	 * index p + n - 1 - cap, was claimed: cidx >= p + n - cap); else ask
	 * the limit, and cidx. The slots before it are free or bubbles. */
	if (!conq__spmc_array_slot_free(&slots[(p + n - 1) & q->mask]) &&
	    conq__spmc_array_room(q, p, (uint64_t)n) < n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		void **slot = &slots[(p + i) & q->mask];
		if (CONQ__UNLIKELY(!conq__spmc_array_slot_free(slot)))
			conq__spmc_array_wait(slot);
		conq__spmc_array_store(slot, es[i]);
	}
	conq__spmc_array_publish(q, conq__idx_add(p, n));
	return n;
}

/* Offer as many of the n elements as there is room for, in order. Returns
 * how many. Stops before the first NULL (errno = EINVAL), and before a slot
 * whose previous element a consumer has claimed but not yet read (so it may
 * return fewer than the free slots; it never waits). P only. Wait-free
 * (O(n)). Release, as offer; published together. */
static inline size_t conq_spmc_array_offer_burst(conq_spmc_array *q,
						 void *const *es, size_t n)
{
	void **slots = conq__spmc_array_slots(q);
	conq__idx_t p = q->pidx;
	/* [C11]: the slots decide, as in relaxed_offer: free is room; the
	 * first one that holds an element (full, or a bubble) ends the burst,
	 * at the latest after cap slots (the burst's own). Never reads
	 * cidx. */
	uint64_t k = (uint64_t)n < q->cap ? (uint64_t)n : q->cap;
	uint64_t i = 0;
	for (; i < k; i++) {
		if (CONQ__UNLIKELY(es[i] == NULL)) {
			errno = EINVAL;
			break;
		}
		void **slot = &slots[(p + i) & q->mask];
		if (CONQ__UNLIKELY(!conq__spmc_array_slot_free(slot)))
			break;
		conq__spmc_array_store(slot, es[i]);
	}
	if (i)
		conq__spmc_array_publish(q, conq__idx_add(p, i));
	return (size_t)i;
}

/* Poll up to n elements into out[], oldest first, claimed with one CAS.
 * Returns how many (0 iff empty or n is 0). C. Lock-free, as poll (O(n)).
 * Acquire, as poll. */
static inline size_t conq_spmc_array_poll_burst(conq_spmc_array *q, void **out,
						size_t n)
{
	conq__idx_t c;
	uint64_t k = n ? conq__spmc_array_claim(q, (uint64_t)n, &c) : 0;
	for (uint64_t i = 0; i < k; i++)
		out[i] = conq__spmc_array_take(q, conq__idx_add(c, i));
	if (k)
		conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
	return (size_t)k;
}

/* Elements drain() claims with one CAS before handing them to fn. */
#define CONQ__SPMC_DRAIN_CHUNK 64

/* Hand up to `limit` elements to fn(ctx, e), oldest first; stops early when
 * the queue is empty. The elements are claimed up to CONQ__SPMC_DRAIN_CHUNK
 * at a time with one CAS, and each is consumed (its slot freed) before fn
 * sees it. Returns how many. C; fn must not use this queue's consumer side
 * from this thread. Lock-free apart from fn, as poll. */
static inline size_t conq_spmc_array_drain(conq_spmc_array *q,
					   conq_consume_fn fn, void *ctx,
					   size_t limit)
{
	void *buf[CONQ__SPMC_DRAIN_CHUNK];
	size_t k = 0;
	while (k < limit) {
		size_t want = limit - k;
		if (want > CONQ__SPMC_DRAIN_CHUNK)
			want = CONQ__SPMC_DRAIN_CHUNK;
		size_t n = conq_spmc_array_poll_burst(q, buf, want);
		if (n == 0)
			break;
		for (size_t i = 0; i < n; i++)
			fn(ctx, buf[i]);
		k += n;
	}
	return k;
}

/* Enqueue up to `limit` elements from fn(ctx), asking fn only when a slot is
 * free (its previous element read); stops early when the queue is full, when
 * the next slot's previous element is claimed but not yet read (it never
 * waits), or when fn returns NULL. The elements are published together (one
 * release) at the end. Returns how many. P only; fn must not use this
 * queue's producer side. Wait-free apart from fn. */
static inline size_t conq_spmc_array_fill(conq_spmc_array *q,
					  conq_supply_fn fn, void *ctx,
					  size_t limit)
{
	void **slots = conq__spmc_array_slots(q);
	conq__idx_t p = q->pidx;
	/* [C11]: the slots decide, as in offer_burst. */
	uint64_t k = (uint64_t)limit < q->cap ? (uint64_t)limit : q->cap;
	uint64_t n = 0;
	for (; n < k; n++) {
		void **slot = &slots[(p + n) & q->mask];
		if (!conq__spmc_array_slot_free(slot))
			break;
		void *e = fn(ctx);
		if (e == NULL)
			break;
		conq__spmc_array_store(slot, e);
	}
	if (n)
		conq__spmc_array_publish(q, conq__idx_add(p, n));
	return (size_t)n;
}

CONQ__DEFINE_PUT(spmc_array, nonfull)
CONQ__DEFINE_TAKE(spmc_array, nonempty)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_SPMC_ARRAY_H */
