/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/spsc_array.h - bounded single-producer single-consumer array queue.
 *
 * The counterpart of JCTools' SpscArrayQueue: a ring of non-NULL `void *`
 * slots in which NULL means "free" (the FastFlow protocol), so the consumer
 * never reads the producer's index. Three changes make it faster than JCTools:
 *
 *  - the consumer clears consumed slots lazily, B = min(32, capacity) at a
 *    time and in index order (the Linux ptr_ring idea), so it stops writing
 *    into the cache lines the producer is filling;
 *  - the ring has capacity + B slots, so those at most B - 1 consumed but not
 *    yet cleared slots never make a non-full queue look full: offer() is
 *    still false *iff* the queue holds capacity() elements;
 *  - the producer caches a limit and, when it reaches it, looks first at the
 *    slots, as JCTools does: one slot `look` = min(capacity / 4, 4096)
 *    indices ahead (found cleared: `look` more offers need no look at all),
 *    then the slot of the next index alone. Only when that one is not yet
 *    cleared (the queue is full, or within B - 1 of full) does it read the
 *    consumer index, which is exact. The clears come B at a time, so near
 *    full the two sides hand each other lines once per batch, not once per
 *    element (the consumer index changes with every poll).
 *
 * Capacity: the requested capacity rounded up to a power of two, from 1 up to
 * CONQ_ARRAY_MAX_CAPACITY (2^31 on 64-bit targets). 0 or larger: EINVAL.
 *
 * Who may call what, concurrently (P = the one producer thread, C = the one
 * consumer thread, A = any thread). At most one thread acts as P at a time and
 * one as C; handing a role to another thread needs a happens-before edge
 * (a mutex, a thread join, ...) between the old and the new holder.
 *
 *   function                                       caller  progress
 *   offer, relaxed_offer, offer_bulk, offer_burst, fill   P       wait-free
 *   poll, relaxed_poll, peek, relaxed_peek,
 *   poll_burst, drain                                     C       wait-free
 *   put, put_until                                        P       blocking
 *   take, take_until                                      C       blocking
 *   size, is_empty, capacity                              A       lock-free (size
 *                                                                 retries while C moves)
 *   create, init, memsize                                 A       (blocking: malloc)
 *   destroy                                               A, once no P or C runs
 *
 * Ordering: everything the producer wrote before a successful offer of `e`
 * happens-before everything the consumer does after the poll that returns `e`
 * (release on the slot, acquire on the load of it). Everything the consumer
 * did before polling a slot happens-before the producer's reuse of that slot.
 *
 * In SPSC the relaxed variants are the strict ones: there is no claimed but
 * unwritten slot for them to skip.
 */
#ifndef CONQ_SPSC_ARRAY_H
#define CONQ_SPSC_ARRAY_H

#include <errno.h>

#include "conq/common.h"
#include "conq/impl/blocking.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_spsc_array conq_spsc_array;

struct conq_spsc_array {
	/* Read-mostly: written by init, then only read. */
	uint64_t cap;   /* capacity(), a power of two */
	uint64_t ring;  /* slots in the ring: cap + batch */
	uint64_t batch; /* B: the consumer clears B slots at a time */
	uint64_t look;  /* the producer's look-ahead, 1 <= look <= cap */
	CONQ__PAD_AFTER(pad_cold, 4 * sizeof(uint64_t));

	/* Producer-hot: written only by P. */
	conq__idx_t pidx;   /* next index to write; read by size() */
	conq__idx_t plimit; /* indices below this are free (cached) */
	uint64_t ppos;      /* pidx's slot: pidx modulo ring, kept incrementally */
	conq_eventcount nonempty; /* take() waits here; P notifies */
	CONQ__PAD_AFTER(pad_prod, CONQ__IDX_FIELDS(2) + 2 * sizeof(uint64_t));

	/* Consumer-hot: written only by C. */
	conq__idx_t cidx; /* next index to read; read by P on refresh, size() */
	uint64_t cpos;    /* cidx's slot */
	uint64_t tpos;    /* first consumed slot not yet cleared */
	uint64_t pending; /* consumed slots not yet cleared, < batch */
	conq_eventcount nonfull; /* put() waits here; C notifies */
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(1) + 4 * sizeof(uint64_t));

	/* The ring (void *slots[ring]) follows, then CONQ_PAD bytes of guard. */
};

CONQ__STATIC_ASSERT(offsetof(conq_spsc_array, pidx) % CONQ_PAD == 0,
		    "producer fields start a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_spsc_array, cidx) % CONQ_PAD == 0,
		    "consumer fields start a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_spsc_array, cidx) -
				    offsetof(conq_spsc_array, pidx) >=
			    CONQ_PAD,
		    "producer and consumer fields are CONQ_PAD apart");
CONQ__STATIC_ASSERT(sizeof(conq_spsc_array) % CONQ_PAD == 0,
		    "the slots start a padded block");

/* Bytes of CONQ_PAD-aligned memory that init() needs for `capacity`, or 0
 * with errno = EINVAL when the capacity is 0 or too large. A: any thread. */
size_t conq_spsc_array_memsize(size_t capacity);

/* Build a queue in caller memory (huge pages, shared memory, an arena):
 * `mem` must be aligned to CONQ_PAD and hold memsize(capacity) bytes. The
 * queue holds no pointers into itself, so the memory may be mapped at
 * different addresses in different processes. Returns `mem` as a queue, or
 * NULL with errno = EINVAL. Nothing to free beyond the caller's memory. */
conq_spsc_array *conq_spsc_array_init(void *mem, size_t capacity);

/* Allocate and init. NULL with errno = EINVAL (bad capacity) or ENOMEM. */
conq_spsc_array *conq_spsc_array_create(size_t capacity);

/* Free a queue from create(). Elements still inside are not touched. NULL is
 * a no-op. Only once no thread uses the queue. */
void conq_spsc_array_destroy(conq_spsc_array *q);

static inline void **conq__spsc_array_slots(const conq_spsc_array *q)
{
	/* Through uintptr_t: the slots start CONQ_PAD-aligned (asserted above),
	 * which -Wcast-align cannot see through a char pointer. */
	return (void **)((uintptr_t)q + sizeof(conq_spsc_array));
}

/* P: is the slot `ahead` (< ring) indices past pidx p cleared? That slot
 * last held index p + ahead - ring = p + ahead - cap - B; NULL means that
 * index was consumed and cleared, or never written (the first lap). The
 * consumer clears in index order, after reading, so every earlier index is
 * consumed and cleared too. */
static inline bool conq__spsc_array_cleared(const conq_spsc_array *q,
					    uint64_t ahead)
{
	uint64_t pos = q->ppos + ahead; /* < 2 * ring: ahead < ring */
	if (pos >= q->ring)
		pos -= q->ring;
	/* [S8] acquire: pairs with [S7] (the consumer's release of the clear):
	 * its reads and clears of every slot up to this one happen-before we
	 * overwrite them. */
	return conq__load_acquire(&conq__spsc_array_slots(q)[pos]) == NULL;
}

/* P, slow path: the cached limit allows fewer than `want` (1 <= want) offers
 * from pidx p. Returns the free slots found (0: full), which may be fewer
 * than want only when it read the consumer index (exact). Three looks,
 * cheapest first; see docs/memory-model.md for the proof:
 *
 *  1. the slot of index p + look + B - 1 cleared: index p + look - cap - 1
 *     is consumed, so p + look - cidx <= cap: `look` slots are free;
 *  2. the slot of index p + want - 1 + B cleared: likewise `want` are free;
 *  3. cidx: exactly cidx + cap - p free. Needed because up to B - 1
 *     consumed slots wait for their clear: a not-yet-cleared slot does not
 *     mean the queue is full, and offer fails only when it is. */
static CONQ__NOINLINE uint64_t
conq__spsc_array_refresh(conq_spsc_array *q, conq__idx_t p, uint64_t want)
{
	/* want == look: look 2 reads the same slot, and gives the same. */
	if (want < q->look &&
	    conq__spsc_array_cleared(q, q->look + q->batch - 1)) {
		q->plimit = conq__idx_add(p, q->look);
		return q->look;
	}
	if (want <= q->cap && conq__spsc_array_cleared(q, want - 1 + q->batch)) {
		q->plimit = conq__idx_add(p, want);
		return want;
	}
	/* [S3] acquire: pairs with [S4] (the consumer's release of cidx). The
	 * consumer read and cleared every slot below cidx - B + 1 (the ring's
	 * B extra slots cover the rest) before [S4], so the slots below
	 * cidx + cap are free and already NULL for us to overwrite. */
	conq__idx_t c = conq__load_acquire(&q->cidx);
	/* Negative when cidx lags a clear that look 1 or 2 above has already
	 * used (the consumer clears before it publishes cidx): full then, and
	 * plimit stays >= p. */
	conq__sidx_t avail = conq__idx_diff(conq__idx_add(c, q->cap), p);
	if (avail <= 0)
		return 0;
	q->plimit = conq__idx_add(c, q->cap);
	return (uint64_t)avail;
}

/* P: free slots we may write without looking, refreshing if needed. */
static inline uint64_t conq__spsc_array_free(conq_spsc_array *q, conq__idx_t p,
					     uint64_t want)
{
	uint64_t avail = (uint64_t)conq__idx_diff(q->plimit, p);
	if (avail < want)
		avail = conq__spsc_array_refresh(q, p, want);
	return avail;
}

/* P: write n elements from es[] at pidx and publish them. Slots 1..n-1 are
 * written first with relaxed stores and slot 0 last with release, so the
 * consumer, which reads slots in order with acquire, sees the batch only
 * through [S1] of its first slot and then all of it. */
static inline void conq__spsc_array_put(conq_spsc_array *q, conq__idx_t p,
					void *const *es, uint64_t n)
{
	void **slots = conq__spsc_array_slots(q);
	uint64_t first = q->ppos, pos = first;
	for (uint64_t i = 1; i < n; i++) {
		if (++pos == q->ring)
			pos = 0;
		/* relaxed: published by [S1] of the batch's first slot below,
		 * which the consumer must read first. */
		conq__store_relaxed(&slots[pos], es[i]);
	}
	if (++pos == q->ring)
		pos = 0;
	q->ppos = pos;
	/* [S1] release: publishes the element(s) and everything the producer
	 * wrote before; pairs with [S2] (the consumer's acquire of the slot).
	 * (CONQ_TEST_MUTANT_WEAK_PUBLISH: a deliberately broken test build
	 * that conq-stress must catch; stress/CMakeLists.txt.) */
#ifdef CONQ_TEST_MUTANT_WEAK_PUBLISH
	conq__store_relaxed(&slots[first], es[0]);
#else
	conq__store_release(&slots[first], es[0]);
#endif
	/* [S5] release: pairs with [S6] (size/is_empty), so a thread that sees
	 * the queue non-empty also sees the element. */
	conq__store_release(&q->pidx, conq__idx_add(p, n));
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
}

/* Offer `e`. True if enqueued; false if the queue holds capacity() elements,
 * or if e is NULL (then errno = EINVAL: a full queue leaves errno alone, so a
 * caller that may pass NULL tells the two apart by e or by errno).
 * P only. Wait-free. Release: see the header comment. */
static inline bool conq_spsc_array_offer(conq_spsc_array *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	conq__idx_t p = q->pidx;
	if (CONQ__UNLIKELY(conq__idx_diff(q->plimit, p) <= 0) &&
	    conq__spsc_array_refresh(q, p, 1) == 0)
		return false;
	void *es[1] = {e};
	conq__spsc_array_put(q, p, es, 1);
	return true;
}

/* Same as offer: SPSC has no spurious failure to relax. P only. */
static inline bool conq_spsc_array_relaxed_offer(conq_spsc_array *q, void *e)
{
	return conq_spsc_array_offer(q, e);
}

/* C: the element at cidx, or NULL if the producer has not written it. */
static inline void *conq__spsc_array_head(const conq_spsc_array *q)
{
	/* [S2] acquire: pairs with [S1]; the payload behind the element is
	 * visible once its slot is. (The mutant build: see [S1].) */
#ifdef CONQ_TEST_MUTANT_WEAK_PUBLISH
	return conq__load_relaxed(&conq__spsc_array_slots(q)[q->cpos]);
#else
	return conq__load_acquire(&conq__spsc_array_slots(q)[q->cpos]);
#endif
}

/* C: consume the n elements from cidx on (already read). Clears slots in
 * batches of B, in index order, then publishes cidx. */
static inline void conq__spsc_array_advance(conq_spsc_array *q, uint64_t n)
{
	void **slots = conq__spsc_array_slots(q);
	uint64_t pos = q->cpos + n;
	if (pos >= q->ring)
		pos -= q->ring;
	q->cpos = pos;
	q->pending += n;
	if (q->pending >= q->batch) {
		uint64_t t = q->tpos;
		for (uint64_t i = 0; i < q->pending; i++) {
			/* [S7] release: pairs with [S8] (the producer's look
			 * at a slot): our reads of this slot and of every
			 * earlier one, and the clears of the earlier ones,
			 * happen-before the producer overwrites them. */
			conq__store_release(&slots[t], (void *)NULL);
			if (++t == q->ring)
				t = 0;
		}
		q->tpos = t;
		q->pending = 0;
	}
	/* [S4] release: pairs with [S3]; orders our reads and clears of the
	 * consumed slots before the producer's reuse of them. */
	conq__store_release(&q->cidx, conq__idx_add(q->cidx, n));
	conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
}

/* Poll: the oldest element, or NULL iff the queue is empty. C only.
 * Wait-free. Acquire: see the header comment. */
static inline void *conq_spsc_array_poll(conq_spsc_array *q)
{
	void *e = conq__spsc_array_head(q);
	if (e != NULL)
		conq__spsc_array_advance(q, 1);
	return e;
}

/* Same as poll. C only. */
static inline void *conq_spsc_array_relaxed_poll(conq_spsc_array *q)
{
	return conq_spsc_array_poll(q);
}

/* The oldest element without removing it, or NULL iff empty. C only.
 * Wait-free. Acquire, as poll. */
static inline void *conq_spsc_array_peek(conq_spsc_array *q)
{
	return conq__spsc_array_head(q);
}

/* Same as peek. C only. */
static inline void *conq_spsc_array_relaxed_peek(conq_spsc_array *q)
{
	return conq_spsc_array_peek(q);
}

/* The capacity (a power of two). A. Wait-free. */
static inline size_t conq_spsc_array_capacity(const conq_spsc_array *q)
{
	return (size_t)q->cap;
}

/* Elements in the queue, always within [0, capacity()]. Exact when neither P
 * nor C runs; otherwise some value the queue held during the call. A.
 * Lock-free: retries while the consumer index moves (JCTools'
 * IndexedQueueSizeUtil). */
static inline size_t conq_spsc_array_size(const conq_spsc_array *q)
{
	/* [S6] acquire (all three): pair with [S4] and [S5]. */
	return conq__indexed_size(&q->cidx, &q->pidx, q->cap);
}

/* True if the queue held no element at some moment during the call. Reads the
 * consumer index before the producer index, so it errs towards "empty". From
 * C, false means the next poll succeeds. A. Wait-free. */
static inline bool conq_spsc_array_is_empty(const conq_spsc_array *q)
{
	/* [S6] acquire: pairs with [S4], then [S5]. */
	conq__idx_t c = conq__load_acquire(&q->cidx);
	return conq__idx_diff(conq__load_acquire(&q->pidx), c) <= 0;
}

/* Offer all n elements or none. Returns n, or 0 if fewer than n slots are
 * free (or n is 0). A NULL among them: 0 with errno = EINVAL, none enqueued.
 * P only. Wait-free (O(n)). */
static inline size_t conq_spsc_array_offer_bulk(conq_spsc_array *q,
						void *const *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (CONQ__UNLIKELY(es[i] == NULL)) {
			errno = EINVAL;
			return 0;
		}
	conq__idx_t p = q->pidx;
	if (n == 0 || conq__spsc_array_free(q, p, n) < n)
		return 0;
	conq__spsc_array_put(q, p, es, n);
	return n;
}

/* Offer as many of the n elements as there is room for, in order. Returns
 * how many. A NULL among the elements that fit ends the burst before it
 * (errno = EINVAL); elements beyond the room are not looked at. P only.
 * Wait-free (O(n)). */
static inline size_t conq_spsc_array_offer_burst(conq_spsc_array *q,
						 void *const *es, size_t n)
{
	conq__idx_t p = q->pidx;
	uint64_t k = conq__spsc_array_free(q, p, n);
	if (k > n)
		k = n;
	for (size_t i = 0; i < k; i++)
		if (CONQ__UNLIKELY(es[i] == NULL)) {
			errno = EINVAL;
			k = i;
			break;
		}
	if (k)
		conq__spsc_array_put(q, p, es, k);
	return (size_t)k;
}

/* Poll up to n elements into out[], oldest first. Returns how many (0 iff
 * empty or n is 0). C only. Wait-free (O(n)). */
static inline size_t conq_spsc_array_poll_burst(conq_spsc_array *q, void **out,
						size_t n)
{
	void **slots = conq__spsc_array_slots(q);
	uint64_t pos = q->cpos;
	size_t k = 0;
	while (k < n) {
		/* [S2] acquire: pairs with [S1], element by element. */
		void *e = conq__load_acquire(&slots[pos]);
		if (e == NULL)
			break;
		out[k++] = e;
		if (++pos == q->ring)
			pos = 0;
	}
	if (k)
		conq__spsc_array_advance(q, k);
	return k;
}

/* Hand up to `limit` elements to fn(ctx, e), oldest first; stops early when
 * the queue is empty. Each element is consumed before fn sees it. Returns
 * how many. C only; fn must not use this queue's consumer side. Wait-free
 * apart from fn. */
static inline size_t conq_spsc_array_drain(conq_spsc_array *q,
					   conq_consume_fn fn, void *ctx,
					   size_t limit)
{
	size_t k = 0;
	void *e;
	while (k < limit && (e = conq_spsc_array_poll(q)) != NULL) {
		fn(ctx, e);
		k++;
	}
	return k;
}

/* Enqueue up to `limit` elements from fn(ctx), asking fn only when a slot is
 * free; stops early when the queue is full or fn returns NULL. The elements
 * are published together (one release) at the end. Returns how many. P only;
 * fn must not use this queue's producer side. Wait-free apart from fn. */
static inline size_t conq_spsc_array_fill(conq_spsc_array *q,
					  conq_supply_fn fn, void *ctx,
					  size_t limit)
{
	void **slots = conq__spsc_array_slots(q);
	conq__idx_t p = q->pidx;
	uint64_t k = conq__spsc_array_free(q, p, limit);
	if (k > limit)
		k = limit;
	uint64_t first = q->ppos, pos = first, n = 0;
	void *head = NULL;
	while (n < k) {
		void *e = fn(ctx);
		if (e == NULL)
			break;
		if (n == 0) {
			head = e;
		} else {
			/* relaxed: published by [S1] on the first slot. */
			conq__store_relaxed(&slots[pos], e);
		}
		n++;
		if (++pos == q->ring)
			pos = 0;
	}
	if (n == 0)
		return 0;
	q->ppos = pos;
	/* [S1] release: pairs with [S2]; publishes the whole batch. */
	conq__store_release(&slots[first], head);
	/* [S5] release: pairs with [S6]. */
	conq__store_release(&q->pidx, conq__idx_add(p, n));
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
	return (size_t)n;
}

CONQ__DEFINE_PUT(spsc_array, nonfull)
CONQ__DEFINE_TAKE(spsc_array, nonempty)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_SPSC_ARRAY_H */
