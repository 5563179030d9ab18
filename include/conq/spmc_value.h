/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/spmc_value.h - bounded single-producer multi-consumer ring of
 * fixed-size values: the element's bytes in the ring, copied in and out
 * (offer/poll) or written and read in place (claim/commit,
 * peek_claim/release). conq/impl/value.h has the layout and the tags,
 * conq/impl/value_mc.h the protocol (Vyukov's, one CAS per consumer claim,
 * none for the producer) and its edges.
 *
 * Consumers claim indices with a CAS of cidx, only indices whose tags show
 * them committed, and release each slot by storing its tag one lap on. The
 * producer writes a slot once its tag shows it released (FREE), stores
 * FULL and then pidx. Consumers never read pidx: the producer commits in
 * index order, so an uncommitted tag at cidx means an empty ring.
 *
 * A claim that is never committed (the producer's) is invisible: nobody
 * sees it, and the producer claims the same slot again. A consumer that
 * claims (peek_claim) and never releases holds that slot: the producer
 * fills the capacity() - 1 slots after it, then waits there (a strict
 * offer waits for a release in progress; relaxed_offer fails); the other
 * consumers go on until the ring is empty. The bound: one slot, at most
 * one lap.
 *
 * Capacity: the requested capacity rounded up to a power of two, from 1 to
 * CONQ_VALUE_MAX_CAPACITY (2^28); element size from 1 to
 * CONQ_VALUE_MAX_ELEM bytes. Else EINVAL.
 *
 * Who may call what, concurrently (P = the one producer thread, C = any
 * number of consumer threads, A = any thread):
 *
 *   function                                   caller  progress
 *   offer, offer_bulk, offer_burst, fill,      P       waits only for a
 *   claim, claim_burst                                 consumer releasing the
 *                                                      slot (see above)
 *   relaxed_offer, commit, commit_burst        P       wait-free
 *   poll, relaxed_poll, poll_burst, drain,     C       lock-free (the CAS
 *   peek_claim, peek_claim_burst                       loop retries only when
 *                                                      another consumer took)
 *   release, release_burst                     C       wait-free
 *   put, put_until / take, take_until          P / C   blocking
 *   size, is_empty                             A       lock-free
 *   capacity, elem_size                        A       wait-free
 *   create, init, memsize                      A       (malloc)
 *   destroy                                    A, once no P or C runs
 *
 * Claims: the producer's claim() returns the slot of the next index (NULL
 * when full), the same until commit(); claim_burst() up to n consecutive,
 * contiguous slots (stopping at the ring's end); one outstanding claim.
 * A consumer's peek_claim() claims the oldest element in place (NULL if
 * empty) until it calls release() with it; peek_claim_burst() a run; a
 * consumer may hold several and release them in any order.
 *
 * Ordering: everything the producer wrote before committing an element
 * happens-before everything the consumer does after claiming it ([V4] ->
 * [V5]); everything a consumer did with a slot before releasing it
 * happens-before the producer's reuse of it ([V6] -> [V2]). FIFO: index
 * order (linearizable at each consumer's CAS).
 */
#ifndef CONQ_SPMC_VALUE_H
#define CONQ_SPMC_VALUE_H

#include "conq/impl/value_mc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_spmc_value conq_spmc_value;

struct conq_spmc_value {
	conq__vring r; /* conq/impl/value_mc.h */
};

/* The constructors (conq/impl/value.h lists them). */
CONQ__VALUE_DECLS(spmc_value)

/* Offer a copy of the element at e. True if enqueued; false iff the ring
 * is full (see the header comment for what counts), or e is NULL (errno =
 * EINVAL; a full ring leaves errno alone). At a full ring, watches the tag
 * before cidx decides; waits only for a consumer releasing the slot.
 * Release. */
static inline bool conq_spmc_value_offer(conq_spmc_value *q, const void *e)
{
	return conq__vring_offer(&q->r, e, true, false);
}

/* As offer, but never waits: also false while the slot's previous element
 * is still being released. */
static inline bool conq_spmc_value_relaxed_offer(conq_spmc_value *q, const void *e)
{
	return conq__vring_offer(&q->r, e, false, false);
}

/* Poll the oldest element into out. True if there was one; false iff the
 * ring was empty at some moment of the call (or out NULL: EINVAL).
 * Acquire. */
static inline bool conq_spmc_value_poll(conq_spmc_value *q, void *out)
{
	return conq__vring_poll(&q->r, out, true, false);
}

/* As poll, but never waits: false also while another consumer wins the race. */
static inline bool conq_spmc_value_relaxed_poll(conq_spmc_value *q, void *out)
{
	return conq__vring_poll(&q->r, out, false, false);
}

/* Offer all n packed elements of es[] or none: n, or 0 if fewer than n
 * slots were free, n is 0 or above capacity() (es NULL: 0, EINVAL). One
 * claim. Waits as offer. Release. */
static inline size_t conq_spmc_value_offer_bulk(conq_spmc_value *q, const void *es, size_t n)
{
	return conq__vring_offer_n(&q->r, es, n, true, false);
}

/* Offer as many of the n elements of es[] as fit, in order; how many. */
static inline size_t conq_spmc_value_offer_burst(conq_spmc_value *q, const void *es, size_t n)
{
	return conq__vring_offer_n(&q->r, es, n, false, false);
}

/* Poll up to n elements into out[] (packed), oldest first; how many (0 iff
 * the ring was empty, or n is 0). One claim for the run the tags show. */
static inline size_t conq_spmc_value_poll_burst(conq_spmc_value *q, void *out, size_t n)
{
	return conq__vring_poll_n(&q->r, out, n, false);
}

/* Up to n free slots from the next index, contiguous (stopping at the
 * ring's end): the first in *first; how many (0: full, or n 0). Waits, as
 * offer, only for slots still being released. */
static inline size_t conq_spmc_value_claim_burst(conq_spmc_value *q, size_t n, void **first)
{
	conq__idx_t p;
	uint64_t m = n == 0 ? 0
			    : conq__vring_claim_put(&q->r, n, 1, true, true,
						    false, NULL, &p);
	for (uint64_t u = 0; u < m; u++)
		conq__vring_wait_free(&q->r, conq__idx_add(p, u));
	*first = m ? conq__value_slot(&q->r, &q->r.g, p) : NULL;
	return (size_t)m;
}

/* A slot to write in place (NULL if full), the same until commit(); P. */
static inline void *conq_spmc_value_claim(conq_spmc_value *q)
{
	void *s;
	return conq_spmc_value_claim_burst(q, 1, &s) ? s : NULL;
}

/* Publish the k claimed slots from `first` (a claim: k = 1). False with
 * errno = EINVAL (nothing published) if first is not the next index's slot
 * or a slot of the run is not free. P. Wait-free. Release. */
static inline bool conq_spmc_value_commit_burst(conq_spmc_value *q, void *first, size_t k)
{
	conq__vring *r = &q->r;
	conq__idx_t p = conq__load_relaxed(&r->pidx);
	if (CONQ__UNLIKELY(first != conq__value_slot(r, &r->g, p) || k == 0 ||
			   k > r->g.cap - (uint64_t)(p & r->g.mask))) {
		errno = EINVAL;
		return false;
	}
	for (uint64_t u = 0; u < k; u++)
		if (conq__vring_look(r, conq__idx_add(p, u)) != CONQ__VT_FREE) {
			errno = EINVAL;
			return false;
		}
	for (uint64_t u = 0; u < k; u++)
		conq__vring_publish(r, conq__idx_add(p, u), CONQ__VT_FULL);
	conq__vring_published(r, conq__idx_add(p, k), false);
	return true;
}

static inline bool conq_spmc_value_commit(conq_spmc_value *q, void *slot)
{
	return conq_spmc_value_commit_burst(q, slot, 1);
}

/* Enqueue up to `limit` elements written in place by fn(ctx, slot), while
 * slots are free; stops at full or when fn returns false. One claim, one
 * publication of pidx. How many. P; fn must not use this ring's producer
 * side. Waits as offer. */
static inline size_t conq_spmc_value_fill(conq_spmc_value *q, conq_value_supply_fn fn, void *ctx,
			       size_t limit)
{
	conq__vring *r = &q->r;
	uint64_t want = limit < r->g.cap ? limit : r->g.cap;
	conq__idx_t p;
	uint64_t m = want == 0 ? 0
			       : conq__vring_claim_put(r, want, 1, false, true,
						       false, NULL, &p);
	uint64_t n = 0;
	for (; n < m; n++) {
		conq__idx_t i = conq__idx_add(p, n);
		conq__vring_wait_free(r, i);
		if (!fn(ctx, conq__value_slot(r, &r->g, i)))
			break;
		conq__vring_publish(r, i, CONQ__VT_FULL);
	}
	if (n)
		conq__vring_published(r, conq__idx_add(p, n), false);
	return (size_t)n;
}

/* The oldest element in place, claimed by the calling consumer until it
 * release()s it; NULL if the ring was empty. Lock-free. Acquire. */
static inline const void *conq_spmc_value_peek_claim(conq_spmc_value *q)
{
	const void *s;
	return conq__vring_peek_claim_n(&q->r, 1, &s, true, false) ? s : NULL;
}

/* Up to n elements in place from the oldest, contiguous (stopping at the
 * ring's end or a tombstone), claimed with one CAS: the first in *first;
 * how many (0: empty). Acquire. */
static inline size_t conq_spmc_value_peek_claim_burst(conq_spmc_value *q, size_t n,
                                                      const void **first)
{
	return conq__vring_peek_claim_n(&q->r, n, first, true, false);
}

/* Release k slots from `first` that this consumer claimed with
 * peek_claim(_burst) (each exactly once). False with errno = EINVAL if the
 * pointer is not a slot of this ring or the run passes its end. Wait-free.
 * Release. */
static inline bool conq_spmc_value_release_burst(conq_spmc_value *q, const void *first,
                                                 size_t k)
{
	return conq__vring_release_n(&q->r, first, k);
}

static inline bool conq_spmc_value_release(conq_spmc_value *q, const void *slot)
{
	return conq__vring_release_n(&q->r, slot, 1);
}

/* Hand up to `limit` elements to fn(ctx, elem) in place, oldest first, in
 * claims of up to CONQ__MPMC_CHUNK, each run released after fn has seen
 * it; stops when the ring is empty. How many. C; fn must not use this
 * ring's consumer side. */
static inline size_t conq_spmc_value_drain(conq_spmc_value *q, conq_value_consume_fn fn, void *ctx,
				size_t limit)
{
	return conq__vring_drain(&q->r, fn, ctx, limit, false);
}

static inline size_t conq_spmc_value_capacity(const conq_spmc_value *q)
{
	return (size_t)q->r.g.cap;
}

static inline size_t conq_spmc_value_elem_size(const conq_spmc_value *q)
{
	return (size_t)q->r.g.esize;
}

/* Claimed indices (producers' minus consumers'), within [0, capacity()];
 * exact when no call runs. A. Lock-free. */
static inline size_t conq_spmc_value_size(const conq_spmc_value *q)
{
	return conq__vring_size(&q->r);
}

/* True if no committed element was there when it looked (it looks past
 * claimed, uncommitted indices). Writes nothing. A. Lock-free. */
static inline bool conq_spmc_value_is_empty(const conq_spmc_value *q)
{
	return conq__vring_is_empty(&q->r);
}

CONQ__DEFINE_VALUE_BLOCKING(spmc_value, r.g, r.nonempty, r.nonfull, conq_spmc_value_poll, conq_spmc_value_peek_claim, conq__value_no_unblock)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_SPMC_VALUE_H */
