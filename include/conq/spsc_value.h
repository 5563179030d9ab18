/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/spsc_value.h - bounded single-producer single-consumer ring of
 * fixed-size values: the element's bytes in the ring, copied in and out
 * (offer/poll) or written and read in place (claim/commit,
 * peek_claim/release). No value is reserved (conq/impl/value.h has the
 * layout and the stride).
 *
 * The protocol: Lamport's ring with each side caching the other's index
 * (the FastForward / rigtorp SPSCQueue / DPDK SP/SC refinement). The
 * producer writes slot pidx and publishes it by storing pidx + 1 with
 * release; the consumer reads pidx only when its cached copy says the ring
 * is empty, and publishes consumption by storing cidx + 1 with release;
 * the producer reads cidx only when its cached limit (cidx + capacity) is
 * used up. No slot is ever written by the consumer, so a 4-byte ring moves
 * 16 elements per line from producer to consumer and nothing back, and a
 * consumer behind the producer by k elements reads pidx once per k.
 *
 * Capacity: the requested capacity rounded up to a power of two, from 1 to
 * CONQ_VALUE_MAX_CAPACITY (2^28); element size from 1 to CONQ_VALUE_MAX_ELEM
 * bytes. Else EINVAL.
 *
 * Who may call what, concurrently (P = the one producer thread, C = the one
 * consumer thread, A = any thread). At most one thread acts as P at a time
 * and one as C; handing a role to another thread needs a happens-before
 * edge between the old and the new holder.
 *
 *   function                                          caller  progress
 *   offer, offer_bulk, offer_burst, fill,             P       wait-free
 *   claim, claim_burst, commit, commit_burst
 *   poll, peek, poll_burst, drain, peek_claim,        C       wait-free
 *   peek_claim_burst, release, release_burst
 *   put, put_until                                    P       blocking
 *   take, take_until                                  C       blocking
 *   size, is_empty, capacity, elem_size               A       wait-free
 *   create, init, memsize                             A       (malloc)
 *   destroy                                           A, once no P or C runs
 *
 * Claims: claim() returns the slot of the next index (NULL when full),
 * the same slot until commit() publishes it; claim_burst() up to n
 * consecutive slots, contiguous in memory (it stops at the ring's end: the
 * next call continues at its start). One claim (or burst) is outstanding at
 * a time; commit what was claimed, all of it. A claim that is never
 * committed is invisible: the consumer never sees it, and the producer
 * writes the same slot again next time. peek_claim()/release() are the
 * consumer's side of it: the head element in place, until release().
 *
 * Ordering: everything the producer wrote before offering (committing) an
 * element happens-before everything the consumer does after the poll
 * (peek_claim) that returns it ([VS1] -> [VS2]); everything the consumer did
 * with a slot before polling (releasing) it happens-before the producer's
 * reuse of the slot ([VS4] -> [VS3]).
 */
#ifndef CONQ_SPSC_VALUE_H
#define CONQ_SPSC_VALUE_H

#include "conq/impl/value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_spsc_value conq_spsc_value;

struct conq_spsc_value {
	/* Read-mostly. */
	conq__value_geom g;
	CONQ__PAD_AFTER(pad_cold, sizeof(conq__value_geom));

	/* Producer-hot: written only by P. */
	conq__idx_t pidx;   /* next index to write; read by C and size() */
	conq__idx_t plimit; /* cached cidx + cap: indices below it are free */
	conq_eventcount nonempty; /* take() waits here; P notifies */
	uint64_t pchase; /* 1: P's last look at cidx found room */
	CONQ__PAD_AFTER(pad_prod, CONQ__IDX_FIELDS(2) + 2 * sizeof(uint64_t));

	/* Consumer-hot: written only by C. */
	conq__idx_t cidx;   /* next index to read; read by P and size() */
	conq__idx_t cavail; /* cached pidx: indices below it are published */
	conq_eventcount nonfull; /* put() waits here; C notifies */
	uint64_t cchase; /* 1: C's last look at pidx found elements */
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(2) + 2 * sizeof(uint64_t));

	/* slots[cap] follow (conq/impl/value.h), then the guard. */
};

CONQ__STATIC_ASSERT(offsetof(conq_spsc_value, pidx) % CONQ_PAD == 0,
		    "producer fields start a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_spsc_value, cidx) % CONQ_PAD == 0,
		    "consumer fields start a padded block");
CONQ__STATIC_ASSERT(sizeof(conq_spsc_value) % CONQ_PAD == 0,
		    "the slots start a padded block");

/* The constructors (conq/impl/value.h lists them): memsize, memsize_opts,
 * init, init_opts, attach, detach, create, destroy, shm_create, shm_open,
 * shm_open_fd, shm_close. */
CONQ__VALUE_DECLS(spsc_value)

/*
 * The chase (the watch of conq/impl/atomic.h). A side whose cached index is
 * used up reads the other side's index, whose line the other side writes
 * once per element. Looked at again at once, at a full ring (an empty
 * one), every element would cost the writer a line transfer: its index's
 * line taken from it by every look and taken back for every store. So,
 * right after a look that found room (elements), a look that finds none
 * is repeated up to CONQ__SPSC_VALUE_CHASE_SPINS times,
 * CONQ__SPSC_VALUE_CHASE_GAP ns of pauses apart (conq__watch_gap), before
 * the call answers full (empty): the other side runs undisturbed between
 * two looks, and the next look takes its progress in one transfer. The
 * answer is still the index's (the protocol is unchanged); a full (empty)
 * answer right after a run of successes costs up to SPINS x GAP ns more,
 * as conq_mpsc_array's chase. Measured (docs/benchmarks.md, "Value rings
 * and claim/commit"): 1P1C 4-byte offer/poll at a full ring 2.3-3.4x
 * faster. 0 spins: no chase.
 */
#ifndef CONQ__SPSC_VALUE_CHASE_SPINS
#define CONQ__SPSC_VALUE_CHASE_SPINS 4u
#endif
#ifndef CONQ__SPSC_VALUE_CHASE_GAP
#define CONQ__SPSC_VALUE_CHASE_GAP 176u /* ns, as CONQ__MPSC_CHASE_GAP */
#endif

/* P: free slots from pidx p, at least `want` if there are (reads cidx only
 * when the cached limit falls short). */
static CONQ__NOINLINE uint64_t conq__spsc_value_refresh(conq_spsc_value *q,
							conq__idx_t p)
{
	/* [VS3] acquire: pairs with [VS4] (C's release of cidx): the
	 * consumer's reads of the slots below cidx happen-before we
	 * overwrite them. */
	q->plimit = conq__idx_add(conq__load_acquire(&q->cidx), q->g.cap);
	conq__sidx_t n = conq__idx_diff(q->plimit, p);
	for (unsigned i = CONQ__SPSC_VALUE_CHASE_SPINS; n <= 0 && q->pchase && i;
	     i--) {
		conq__watch_gap(CONQ__SPSC_VALUE_CHASE_GAP);
		/* [VS3] acquire, as above. */
		q->plimit =
		    conq__idx_add(conq__load_acquire(&q->cidx), q->g.cap);
		n = conq__idx_diff(q->plimit, p);
	}
	q->pchase = n > 0;
	return n > 0 ? (uint64_t)n : 0;
}

static inline uint64_t conq__spsc_value_room(conq_spsc_value *q,
					     conq__idx_t p, uint64_t want)
{
	conq__sidx_t n = conq__idx_diff(q->plimit, p);
	if (CONQ__LIKELY(n > 0 && (uint64_t)n >= want))
		return (uint64_t)n;
	return conq__spsc_value_refresh(q, p);
}

/* P: publish n written slots from pidx p. */
static inline void conq__spsc_value_publish(conq_spsc_value *q, conq__idx_t p,
					    uint64_t n)
{
	/* [VS1] release: pairs with [VS2] (C's acquire of pidx): the slots'
	 * bytes, and everything P wrote before, are visible with the index. */
	conq__store_release(&q->pidx, conq__idx_add(p, n));
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
}

/* C: published elements from cidx c, at least `want` if there are (reads
 * pidx only when the cached copy falls short). */
static CONQ__NOINLINE uint64_t
conq__spsc_value_fetch(conq_spsc_value *q, conq__idx_t c)
{
	/* [VS2] acquire: pairs with [VS1]. */
	q->cavail = conq__load_acquire(&q->pidx);
	uint64_t n = (uint64_t)conq__idx_diff(q->cavail, c);
	for (unsigned i = CONQ__SPSC_VALUE_CHASE_SPINS; n == 0 && q->cchase && i;
	     i--) {
		conq__watch_gap(CONQ__SPSC_VALUE_CHASE_GAP);
		/* [VS2] acquire, as above. */
		q->cavail = conq__load_acquire(&q->pidx);
		n = (uint64_t)conq__idx_diff(q->cavail, c);
	}
	q->cchase = n != 0;
	return n;
}

static inline uint64_t conq__spsc_value_ready(conq_spsc_value *q,
					      conq__idx_t c, uint64_t want)
{
	uint64_t n = (uint64_t)conq__idx_diff(q->cavail, c);
	if (CONQ__LIKELY(n >= want))
		return n;
	return conq__spsc_value_fetch(q, c);
}

/* C: hand n consumed slots from cidx c back to P. */
static inline void conq__spsc_value_consume(conq_spsc_value *q, conq__idx_t c,
					    uint64_t n)
{
	/* [VS4] release: pairs with [VS3]: our reads of the slots
	 * happen-before the producer's reuse of them. */
	conq__store_release(&q->cidx, conq__idx_add(c, n));
	conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
}

/* Offer a copy of the element at e (elem_size() bytes). True if enqueued;
 * false iff the ring holds capacity() elements, or e is NULL (errno =
 * EINVAL; a full ring leaves errno alone). P. Wait-free. Release. */
static inline bool conq_spsc_value_offer(conq_spsc_value *q, const void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	conq__idx_t p = q->pidx;
	if (CONQ__UNLIKELY(conq__spsc_value_room(q, p, 1) == 0))
		return false;
	conq__value_copy(conq__value_slot(q, &q->g, p), e, q->g.esize);
	conq__spsc_value_publish(q, p, 1);
	return true;
}

/* Poll the oldest element into out (elem_size() bytes). True if there was
 * one; false iff the ring is empty, or out is NULL (errno = EINVAL). C.
 * Wait-free. Acquire. */
static inline bool conq_spsc_value_poll(conq_spsc_value *q, void *out)
{
	if (CONQ__UNLIKELY(out == NULL)) {
		errno = EINVAL;
		return false;
	}
	conq__idx_t c = q->cidx;
	if (CONQ__UNLIKELY(conq__spsc_value_ready(q, c, 1) == 0))
		return false;
	conq__value_copy(out, conq__value_slot(q, &q->g, c), q->g.esize);
	conq__spsc_value_consume(q, c, 1);
	return true;
}

/* Copy the oldest element into out without removing it. False iff empty
 * (or out NULL: EINVAL). C. Wait-free. Acquire. */
static inline bool conq_spsc_value_peek(conq_spsc_value *q, void *out)
{
	if (CONQ__UNLIKELY(out == NULL)) {
		errno = EINVAL;
		return false;
	}
	conq__idx_t c = q->cidx;
	if (conq__spsc_value_ready(q, c, 1) == 0)
		return false;
	conq__value_copy(out, conq__value_slot(q, &q->g, c), q->g.esize);
	return true;
}

/* Offer all n elements of es[] (packed, elem_size() bytes apart) or none.
 * Returns n, or 0 if fewer than n slots are free, n is 0, or es is NULL
 * (EINVAL). P. Wait-free (O(n)). One release for the batch. */
static inline size_t conq_spsc_value_offer_bulk(conq_spsc_value *q,
						const void *es, size_t n)
{
	if (CONQ__UNLIKELY(es == NULL)) {
		errno = EINVAL;
		return 0;
	}
	conq__idx_t p = q->pidx;
	if (n == 0 || conq__spsc_value_room(q, p, n) < n)
		return 0;
	conq__value_copy_n(q, &q->g, p, (void *)(uintptr_t)es, n, true);
	conq__spsc_value_publish(q, p, n);
	return n;
}

/* Offer as many of the n elements of es[] as there is room for, in order.
 * Returns how many (es NULL: 0, EINVAL). P. Wait-free (O(n)). */
static inline size_t conq_spsc_value_offer_burst(conq_spsc_value *q,
						 const void *es, size_t n)
{
	if (CONQ__UNLIKELY(es == NULL)) {
		errno = EINVAL;
		return 0;
	}
	conq__idx_t p = q->pidx;
	uint64_t k = n == 0 ? 0 : conq__spsc_value_room(q, p, n);
	if (k > n)
		k = n;
	if (k == 0)
		return 0;
	conq__value_copy_n(q, &q->g, p, (void *)(uintptr_t)es, k, true);
	conq__spsc_value_publish(q, p, k);
	return (size_t)k;
}

/* Poll up to n elements into out[] (packed), oldest first. Returns how many
 * (0 iff empty or n is 0; out NULL: 0, EINVAL). C. Wait-free (O(n)). */
static inline size_t conq_spsc_value_poll_burst(conq_spsc_value *q, void *out,
						size_t n)
{
	if (CONQ__UNLIKELY(out == NULL)) {
		errno = EINVAL;
		return 0;
	}
	conq__idx_t c = q->cidx;
	uint64_t k = n == 0 ? 0 : conq__spsc_value_ready(q, c, n);
	if (k > n)
		k = n;
	if (k == 0)
		return 0;
	conq__value_copy_n(q, &q->g, c, out, k, false);
	conq__spsc_value_consume(q, c, k);
	return (size_t)k;
}

/* The slot of the next element to write, or NULL if the ring is full. The
 * same slot until commit(). P. Wait-free. */
static inline void *conq_spsc_value_claim(conq_spsc_value *q)
{
	conq__idx_t p = q->pidx;
	if (conq__spsc_value_room(q, p, 1) == 0)
		return NULL;
	return conq__value_slot(q, &q->g, p);
}

/* Up to n free slots from the next index, contiguous (stopping at the
 * ring's end): the first in *first; returns how many (0: full, or n 0).
 * P. Wait-free. */
static inline size_t conq_spsc_value_claim_burst(conq_spsc_value *q, size_t n,
						 void **first)
{
	conq__idx_t p = q->pidx;
	uint64_t k = n == 0 ? 0 : conq__spsc_value_room(q, p, n);
	uint64_t to_end = q->g.cap - (uint64_t)(p & q->g.mask);
	if (k > n)
		k = n;
	if (k > to_end)
		k = to_end;
	*first = k ? conq__value_slot(q, &q->g, p) : NULL;
	return (size_t)k;
}

/* Publish the k claimed slots from `first` (a claim: k = 1). False with
 * errno = EINVAL if first is not the next index's slot or k is 0 or more
 * than the free slots (nothing is published). P. Wait-free. Release. */
static inline bool conq_spsc_value_commit_burst(conq_spsc_value *q,
						void *first, size_t k)
{
	conq__idx_t p = q->pidx;
	if (CONQ__UNLIKELY(first != conq__value_slot(q, &q->g, p) || k == 0 ||
			   (uint64_t)conq__idx_diff(q->plimit, p) < k)) {
		errno = EINVAL;
		return false;
	}
	conq__spsc_value_publish(q, p, k);
	return true;
}

static inline bool conq_spsc_value_commit(conq_spsc_value *q, void *slot)
{
	return conq_spsc_value_commit_burst(q, slot, 1);
}

/* The oldest element in place, or NULL if the ring is empty; the same
 * until release(). C. Wait-free. Acquire. */
static inline const void *conq_spsc_value_peek_claim(conq_spsc_value *q)
{
	conq__idx_t c = q->cidx;
	if (conq__spsc_value_ready(q, c, 1) == 0)
		return NULL;
	return conq__value_slot(q, &q->g, c);
}

/* Up to n elements in place from the oldest, contiguous (stopping at the
 * ring's end): the first in *first; returns how many (0: empty). C.
 * Wait-free. Acquire. */
static inline size_t conq_spsc_value_peek_claim_burst(conq_spsc_value *q,
						      size_t n,
						      const void **first)
{
	conq__idx_t c = q->cidx;
	uint64_t k = n == 0 ? 0 : conq__spsc_value_ready(q, c, n);
	uint64_t to_end = q->g.cap - (uint64_t)(c & q->g.mask);
	if (k > n)
		k = n;
	if (k > to_end)
		k = to_end;
	*first = k ? conq__value_slot(q, &q->g, c) : NULL;
	return (size_t)k;
}

/* Consume the k elements peeked in place from `first`. False with errno =
 * EINVAL if first is not the oldest element's slot or k is 0 or more than
 * the ring holds (nothing is consumed). C. Wait-free. Release. */
static inline bool conq_spsc_value_release_burst(conq_spsc_value *q,
						 const void *first, size_t k)
{
	conq__idx_t c = q->cidx;
	if (CONQ__UNLIKELY(first != conq__value_slot(q, &q->g, c) || k == 0 ||
			   (uint64_t)conq__idx_diff(q->cavail, c) < k)) {
		errno = EINVAL;
		return false;
	}
	conq__spsc_value_consume(q, c, k);
	return true;
}

static inline bool conq_spsc_value_release(conq_spsc_value *q,
					   const void *slot)
{
	return conq_spsc_value_release_burst(q, slot, 1);
}

/* Hand up to `limit` elements to fn(ctx, elem) in place, oldest first;
 * stops early when the ring is empty. The slots go back to P after fn has
 * seen each run of published elements (one release per run). Returns how
 * many. C; fn must not use this ring's consumer side. Wait-free apart from
 * fn. */
static inline size_t conq_spsc_value_drain(conq_spsc_value *q,
					   conq_value_consume_fn fn, void *ctx,
					   size_t limit)
{
	size_t done = 0;
	while (done < limit) {
		conq__idx_t c = q->cidx;
		uint64_t k = conq__spsc_value_ready(q, c, 1);
		if (k == 0)
			break;
		if (k > limit - done)
			k = limit - done;
		for (uint64_t i = 0; i < k; i++)
			fn(ctx, conq__value_slot(q, &q->g, conq__idx_add(c, i)));
		conq__spsc_value_consume(q, c, k);
		done += (size_t)k;
	}
	return done;
}

/* Enqueue up to `limit` elements that fn(ctx, slot) writes in place, while
 * slots are free; stops when the ring is full or fn returns false. One
 * release at the end. Returns how many. P; fn must not use this ring's
 * producer side. Wait-free apart from fn. */
static inline size_t conq_spsc_value_fill(conq_spsc_value *q,
					  conq_value_supply_fn fn, void *ctx,
					  size_t limit)
{
	conq__idx_t p = q->pidx;
	uint64_t k = limit == 0 ? 0 : conq__spsc_value_room(q, p, limit);
	if (k > limit)
		k = limit;
	uint64_t n = 0;
	while (n < k && fn(ctx, conq__value_slot(q, &q->g, conq__idx_add(p, n))))
		n++;
	if (n)
		conq__spsc_value_publish(q, p, n);
	return (size_t)n;
}

/* The capacity (a power of two) and the element size. A. Wait-free. */
static inline size_t conq_spsc_value_capacity(const conq_spsc_value *q)
{
	return (size_t)q->g.cap;
}

static inline size_t conq_spsc_value_elem_size(const conq_spsc_value *q)
{
	return (size_t)q->g.esize;
}

/* Elements in the ring, within [0, capacity()]; exact when neither P nor
 * C runs, else a value it held during the call. A. Lock-free (retries while
 * C moves). */
static inline size_t conq_spsc_value_size(const conq_spsc_value *q)
{
	/* [VS5] acquire (all): pairs with [VS1] and [VS4]. */
	return conq__indexed_size(&q->cidx, &q->pidx, q->g.cap);
}

/* True if the ring held no element at some moment of the call (reads cidx
 * first, so it errs towards empty). From C, false means the next poll
 * succeeds. A. Wait-free. */
static inline bool conq_spsc_value_is_empty(const conq_spsc_value *q)
{
	/* [VS5] acquire: pairs with [VS4], then [VS1]. */
	conq__idx_t c = conq__load_acquire(&q->cidx);
	return conq__idx_diff(conq__load_acquire(&q->pidx), c) <= 0;
}

CONQ__DEFINE_VALUE_BLOCKING(spsc_value, g, nonempty, nonfull, conq_spsc_value_poll, conq_spsc_value_peek_claim, conq__value_no_unblock)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_SPSC_VALUE_H */
