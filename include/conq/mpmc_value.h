/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/mpmc_value.h - bounded multi-producer multi-consumer ring of
 * fixed-size values, with zero-copy claim/commit on both sides.
 * conq/impl/value.h has the layout and the tags, conq/impl/value_mc.h the
 * protocol (Vyukov's, as conq_mpmc_array: one CAS a side, each on its own
 * counter, a thread claims only what a tag proves) and its edges.
 *
 * Slots committed out of claim order by different producers are delivered
 * in claim order: a consumer claims index i only once i's tag says
 * committed, and claims in index order.
 *
 * A claim that is never committed: the consumers' strict calls (poll,
 * peek_claim, take) wait at it for ever, their relaxed and batch calls stop
 * before it, and producers go on claiming the capacity() - 1 slots after
 * it, then find the ring full. abort() instead of commit() turns a claim
 * into a tombstone the consumers skip. A consumer that claims and never
 * releases holds its slot: producers wait there one lap later (a strict
 * offer waits for a release in progress; relaxed_offer fails). The bound:
 * one slot, at most one lap. In shared memory a producer process that dies
 * mid-claim is reclaimed on proof of death, as conq_mpsc_value's header
 * says (poll, take, unblock); a consumer process that dies mid-claim is
 * not (its slot stays held).
 *
 * Capacity: the requested capacity rounded up to a power of two, from 1 to
 * CONQ_VALUE_MAX_CAPACITY (2^28); element size from 1 to
 * CONQ_VALUE_MAX_ELEM bytes. Else EINVAL.
 *
 * Who may call what, concurrently (A = any thread, any number):
 *
 *   function                                   caller  progress
 *   offer, offer_bulk, offer_burst, fill,      A       waits only for a
 *   claim, claim_burst                                 consumer releasing the
 *                                                      slot (see above)
 *   poll, peek_claim                           A       waits only for a
 *                                                      producer between claim
 *                                                      and commit
 *   relaxed_offer, relaxed_poll, poll_burst,   A       lock-free, never wait
 *   drain, peek_claim_burst                            (stop before a claimed,
 *                                                      uncommitted element)
 *   commit, commit_burst, abort, release,      A       wait-free
 *   release_burst
 *   put, put_until / take, take_until          A       blocking
 *   size, is_empty                             A       lock-free
 *   capacity, elem_size                        A       wait-free
 *   create, init, memsize                      A       (malloc)
 *   destroy                                    A, once no other call runs
 *
 * Claims: claim() returns a slot (NULL when full) the calling thread owns
 * until it commits or aborts it; claim_burst() up to n consecutive,
 * contiguous slots with one CAS. A thread may hold several claims and end
 * them in any order, each exactly once (ending a slot that is not claimed
 * corrupts the ring: only a pointer that is not a slot of this ring is
 * detected, EINVAL). peek_claim()/release(): the consumers' side.
 *
 * "Full" and "empty" count claims, as conq_mpmc_array's: offer is false
 * iff capacity() indices were claimed by producers and not by consumers at
 * some moment of the call; poll false iff no index was claimed by a
 * producer and not by a consumer. size() counts claims, tombstones
 * included.
 *
 * Ordering: everything a producer wrote before committing an element
 * happens-before everything the consumer does after claiming it ([V4] ->
 * [V5]); everything a consumer did with a slot before releasing it
 * happens-before a producer's reuse of it ([V6] -> [V2]). Linearizable: an
 * offer at its CAS of pidx, a poll at its CAS of cidx.
 */
#ifndef CONQ_MPMC_VALUE_H
#define CONQ_MPMC_VALUE_H

#include "conq/impl/value_mc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_mpmc_value conq_mpmc_value;

struct conq_mpmc_value {
	conq__vring r; /* conq/impl/value_mc.h */
};

/* The constructors (conq/impl/value.h lists them). */
CONQ__VALUE_DECLS(mpmc_value)

/* Offer a copy of the element at e. True if enqueued; false iff the ring
 * is full (see the header comment for what counts), or e is NULL (errno =
 * EINVAL; a full ring leaves errno alone). At a full ring, watches the tag
 * before cidx decides; waits only for a consumer releasing the slot.
 * Release. */
static inline bool conq_mpmc_value_offer(conq_mpmc_value *q, const void *e)
{
	return conq__vring_offer(&q->r, e, true, true);
}

/* As offer, but never waits: also false while the slot's previous element
 * is still being released, or when another producer wins the race for the index. */
static inline bool conq_mpmc_value_relaxed_offer(conq_mpmc_value *q, const void *e)
{
	return conq__vring_offer(&q->r, e, false, true);
}

/* Poll the oldest element into out. True if there was one; false iff the
 * ring was empty at some moment of the call (or out NULL: EINVAL).
 * Waits for a producer between its claim and its commit of the oldest
 * element; watches the tag before pidx decides.
 * Acquire. */
static inline bool conq_mpmc_value_poll(conq_mpmc_value *q, void *out)
{
	return conq__vring_poll(&q->r, out, true, true);
}

/* As poll, but never waits: false also while the oldest element is claimed and
 * not yet committed, or on a tombstone. */
static inline bool conq_mpmc_value_relaxed_poll(conq_mpmc_value *q, void *out)
{
	return conq__vring_poll(&q->r, out, false, true);
}

/* Offer all n packed elements of es[] or none: n, or 0 if fewer than n
 * slots were free, n is 0 or above capacity() (es NULL: 0, EINVAL). One
 * claim. Waits as offer. Release. */
static inline size_t conq_mpmc_value_offer_bulk(conq_mpmc_value *q, const void *es, size_t n)
{
	return conq__vring_offer_n(&q->r, es, n, true, true);
}

/* Offer as many of the n elements of es[] as fit, in order; how many. */
static inline size_t conq_mpmc_value_offer_burst(conq_mpmc_value *q, const void *es, size_t n)
{
	return conq__vring_offer_n(&q->r, es, n, false, true);
}

/* Poll up to n elements into out[] (packed), oldest first; how many (0 if
 * the ring was empty, n is 0, or the oldest is claimed and not committed
 * yet: it never waits). One claim for the run the tags show. */
static inline size_t conq_mpmc_value_poll_burst(conq_mpmc_value *q, void *out, size_t n)
{
	return conq__vring_poll_n(&q->r, out, n, true);
}

/* Up to n free slots from the next index, contiguous (stopping at the
 * ring's end): the first in *first; how many (0: full, or n 0). Waits, as
 * offer, only for slots still being released. */
static inline size_t conq_mpmc_value_claim_burst(conq_mpmc_value *q, size_t n, void **first)
{
	conq__idx_t p;
	conq__claim_entry *ce;
	uint64_t m = 0;
	if (n != 0 && conq__value_enter(&q->r, &q->r.g, &ce, true))
		m = conq__vring_claim_put(&q->r, n, 1, true, true, true, ce, &p);
	for (uint64_t u = 0; u < m; u++)
		conq__vring_wait_free(&q->r, conq__idx_add(p, u));
	*first = m ? conq__value_slot(&q->r, &q->r.g, p) : NULL;
	return (size_t)m;
}

/* A slot to write in place (NULL if full), owned by the calling thread until commit() or abort(). */
static inline void *conq_mpmc_value_claim(conq_mpmc_value *q)
{
	void *s;
	return conq_mpmc_value_claim_burst(q, 1, &s) ? s : NULL;
}

/* Publish the k claimed slots from `first` (a claim: k = 1). False with
 * errno = EINVAL if the pointer is not a slot of this ring or the run
 * passes its end (nothing published). A. Wait-free. Release. */
static inline bool conq_mpmc_value_commit_burst(conq_mpmc_value *q, void *first, size_t k)
{
	return conq__vring_end_claim(&q->r, first, k, CONQ__VT_FULL);
}

static inline bool conq_mpmc_value_commit(conq_mpmc_value *q, void *slot)
{
	return conq__vring_end_claim(&q->r, slot, 1, CONQ__VT_FULL);
}

/* A shared ring (conq/shm.h): if the oldest index is claimed by a producer,
 * uncommitted, and that producer's process is dead (proof, not a timeout:
 * conq/impl/claims.h), turn it into a tombstone, so that the calls that
 * never wait get past it; true if it did. poll() and peek_claim() do this
 * by themselves while they wait. Private rings: false. Lock-free. */
bool conq_mpmc_value_unblock(conq_mpmc_value *q);

/* Give up k claimed slots from `first`: tombstones the consumers skip. */
static inline bool conq_mpmc_value_abort(conq_mpmc_value *q, void *first, size_t k)
{
	return conq__vring_end_claim(&q->r, first, k, CONQ__VT_TOMB);
}

/* Enqueue up to `limit` elements written in place by fn(ctx, slot); stops
 * at full or when fn returns false. The claimed slots fn did not fill are
 * handed back (pidx moved back down with a CAS) when no producer claimed
 * after them, else they become tombstones the consumers skip. Claims 1, 2,
 * 4, ... up to CONQ__MPMC_CHUNK slots at a time while fn keeps supplying,
 * so that a fill that ends at once leaves at most one slot to give back.
 * How many. A; fn must not use this ring. Waits as offer. */
static inline size_t conq_mpmc_value_fill(conq_mpmc_value *q,
					  conq_value_supply_fn fn, void *ctx,
					  size_t limit)
{
	conq__vring *r = &q->r;
	size_t done = 0;
	uint64_t run = 1;
	conq__claim_entry *ce;
	if (!conq__value_enter(r, &r->g, &ce, true))
		return 0;
	while (done < limit) {
		uint64_t want = limit - done < run ? limit - done : run;
		if (want > r->g.cap)
			want = r->g.cap;
		conq__idx_t p;
		uint64_t m = conq__vring_claim_put(r, want, 1, false, true, true,
						   ce, &p);
		uint64_t u = 0;
		for (; u < m; u++) {
			conq__idx_t i = conq__idx_add(p, u);
			conq__vring_wait_free(r, i);
			if (!fn(ctx, conq__value_slot(r, &r->g, i)))
				break;
			conq__vring_publish(r, i, CONQ__VT_FULL);
			done++;
		}
		if (u)
			conq__vring_published(r, conq__idx_add(p, u), true);
		if (u < m) {
			conq__vring_unclaim(r, conq__idx_add(p, u),
					    conq__idx_add(p, m));
			conq__value_leave(ce);
			break;
		}
		if (m)
			conq__value_leave(ce);
		if (m < want)
			break;
		if (run < CONQ__MPMC_CHUNK)
			run *= 2;
	}
	return done;
}

/* The oldest element in place, claimed by the calling consumer until it
 * release()s it; NULL if the ring was empty. Waits as poll. Acquire. */
static inline const void *conq_mpmc_value_peek_claim(conq_mpmc_value *q)
{
	const void *s;
	return conq__vring_peek_claim_n(&q->r, 1, &s, true, true) ? s : NULL;
}

/* Up to n elements in place from the oldest, contiguous (stopping at the
 * ring's end, a tombstone or a claimed, uncommitted element), claimed with
 * one CAS: the first in *first; how many (0: empty, or the oldest is not
 * committed yet). Never waits. Acquire. */
static inline size_t conq_mpmc_value_peek_claim_burst(conq_mpmc_value *q, size_t n,
                                                      const void **first)
{
	return conq__vring_peek_claim_n(&q->r, n, first, false, true);
}

/* Release k slots from `first` that this consumer claimed with
 * peek_claim(_burst) (each exactly once). False with errno = EINVAL if the
 * pointer is not a slot of this ring or the run passes its end. Wait-free.
 * Release. */
static inline bool conq_mpmc_value_release_burst(conq_mpmc_value *q, const void *first,
                                                 size_t k)
{
	return conq__vring_release_n(&q->r, first, k);
}

static inline bool conq_mpmc_value_release(conq_mpmc_value *q, const void *slot)
{
	return conq__vring_release_n(&q->r, slot, 1);
}

/* Hand up to `limit` elements to fn(ctx, elem) in place, oldest first, in
 * claims of up to CONQ__MPMC_CHUNK, each run released after fn has seen
 * it; stops when the ring is empty. How many. C; fn must not use this
 * ring's consumer side. */
static inline size_t conq_mpmc_value_drain(conq_mpmc_value *q, conq_value_consume_fn fn, void *ctx,
				size_t limit)
{
	return conq__vring_drain(&q->r, fn, ctx, limit, true);
}

static inline size_t conq_mpmc_value_capacity(const conq_mpmc_value *q)
{
	return (size_t)q->r.g.cap;
}

static inline size_t conq_mpmc_value_elem_size(const conq_mpmc_value *q)
{
	return (size_t)q->r.g.esize;
}

/* Claimed indices (producers' minus consumers'), within [0, capacity()];
 * exact when no call runs. A. Lock-free. */
static inline size_t conq_mpmc_value_size(const conq_mpmc_value *q)
{
	return conq__vring_size(&q->r);
}

/* True if no committed element was there when it looked (it looks past
 * claimed, uncommitted indices). Writes nothing. A. Lock-free. */
static inline bool conq_mpmc_value_is_empty(const conq_mpmc_value *q)
{
	return conq__vring_is_empty(&q->r);
}

static inline bool conq__mpmc_value_unblock_erased(void *q)
{
	return conq_mpmc_value_unblock((conq_mpmc_value *)q);
}

/* peek_claim_until's look: as peek_claim, but NULL at a claimed,
 * uncommitted head instead of waiting there. */
static inline const void *
conq__mpmc_value_relaxed_peek_claim(conq_mpmc_value *q)
{
	const void *s;
	return conq__vring_peek_claim_n(&q->r, 1, &s, false, true) ? s : NULL;
}

CONQ__DEFINE_VALUE_BLOCKING(mpmc_value, r.g, r.nonempty, r.nonfull,
			    conq_mpmc_value_relaxed_poll,
			    conq__mpmc_value_relaxed_peek_claim,
			    conq__mpmc_value_unblock_erased)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_MPMC_VALUE_H */
