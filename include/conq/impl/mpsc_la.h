/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/impl/mpsc_la.h - the shared core of the MPSC linked-array families
 * (conq_mpsc_chunked, conq_mpsc_growable, conq_mpsc_unbounded). Not API on
 * its own: use the families' headers, which document the contracts.
 *
 * The protocol (JCTools' BaseMpscLinkedArrayQueue, adapted to C without a
 * garbage collector; docs/memory-model.md, "conq_mpsc_chunked/growable/
 * unbounded", labels [ML1]...):
 *
 *  - Elements live in chunks: power-of-two rings of C slots. Element number
 *    k (counted from the queue's start) sits at offset k % C of the chunk
 *    that was the producers' chunk when it was claimed.
 *  - Both indices count in units of 2: the producer index pidx is 2k for
 *    the next element k to claim, and odd while a producer (the resizer)
 *    links a new chunk; the consumer index cidx is 2k for the next element
 *    to poll. Every other producer waits while pidx is odd.
 *  - A producer claims with a CAS on pidx (p -> p + 2n) against a cached
 *    limit plimit (in pidx units), as conq_mpsc_array. Between its acquire
 *    load of pidx and its CAS it reads the chunk pointer pbuf and its mask
 *    from the QUEUE (never through a chunk pointer); a successful CAS from
 *    p proves that pidx did not move since, hence no resize linked another
 *    chunk in between (pidx never returns to an even value it had, except
 *    the rollback of a resize that failed to allocate, which changes
 *    nothing else), so pbuf was current when read and its chunk cannot be
 *    retired before the claimed element is consumed. Only then does it
 *    write into the chunk.
 *  - The limit of a chunk is cidx + 2u, u = C - 1 usable slots (one slot is
 *    kept for the JUMP marker), except growable's final chunk (C == max),
 *    which never resizes and uses all C. When a claim would pass the limit,
 *    the producer refreshes it from cidx (a CAS on plimit); when the chunk
 *    has no room, it checks the capacity and becomes the resizer: CAS
 *    p -> p + 1, take the spare chunk or allocate, write its element(s) into
 *    the new chunk at the same offsets, publish pbuf, mask, usable and
 *    plimit, link old->next, release pidx = p + 2n, and last store JUMP
 *    into the old chunk's slot of p, after which it never touches the old
 *    chunk again.
 *  - The consumer reads slots in order as conq_mpsc_array's (clears each
 *    slot it consumes, waits on a bubble in strict poll/peek); on JUMP it
 *    follows old->next, clears the JUMP slot and retires the old chunk: the
 *    spare for chunked/unbounded (all their chunks have one size), freed for
 *    growable. No thread uses a chunk after its JUMP was read: every claim
 *    in it is below the JUMP index, consumed (so written) before the JUMP is
 *    reached; the resizer's JUMP store is its last access; producers that
 *    read pbuf and then lost their CAS never dereference it.
 *  - put/take (conq/impl/blocking.h): a producer notifies nonempty (in
 *    pidx's block) once per call that published, after the store that
 *    makes its elements reachable: the fast path's [ML1], the slow path's
 *    claim [ML1] or resize JUMP [ML8] (fill: once per claim of a batch).
 *    The consumer notifies nonfull (in cidx's block) after each [ML6], the
 *    cidx store that a producer's full check reads ([ML7]); chunked and
 *    growable only (CONQ__MPSC_LA_FAMILY's `bounded`).
 */
#ifndef CONQ_IMPL_MPSC_LA_H
#define CONQ_IMPL_MPSC_LA_H

#include <errno.h>

#include "conq/common.h"
#include "conq/impl/blocking.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A chunk: this header, then `size` slots. */
typedef struct conq__mpsc_la_chunk conq__mpsc_la_chunk;
struct conq__mpsc_la_chunk {
	/* The next chunk: written by the resizer before [ML3]/[ML4], read by
	 * C after its acquire of JUMP ([ML2]); reset by C on retire. */
	conq__mpsc_la_chunk *next;
	uint64_t size; /* slots, a power of two; fixed at allocation */
	char pad[CONQ_CACHE_LINE - sizeof(void *) - sizeof(uint64_t)];
};

/* The kinds, with their chunk policies. */
#define CONQ__MPSC_LA_CHUNKED	0u
#define CONQ__MPSC_LA_GROWABLE	1u
#define CONQ__MPSC_LA_UNBOUNDED 2u

/* The element limit of an unbounded queue: never reached with 64-bit
 * indices (2^61 elements); it keeps index differences (twice the count)
 * below CONQ__IDX_HALF in narrow index test builds. */
#define CONQ__MPSC_LA_UNBOUNDED_MAX (CONQ__IDX_HALF / 4)

typedef struct conq__mpsc_la conq__mpsc_la;
struct conq__mpsc_la {
	/* Read-mostly: written by create, then only read. */
	uint64_t max;	 /* elements at most (unbounded: the internal cap) */
	uint64_t chunk;	 /* chunk slots: every chunk's (chunked, unbounded),
			    the first one's (growable) */
	size_t capacity; /* capacity(): max, or CONQ_UNBOUNDED */
	unsigned kind;	 /* CONQ__MPSC_LA_* */
	unsigned has_alloc;
	conq_allocator alloc;
	CONQ__PAD_AFTER(pad_cold, 3 * sizeof(uint64_t) + 2 * sizeof(unsigned) +
				      sizeof(conq_allocator));

	/* Producer-hot: CASed by every producer on every claim. */
	conq__idx_t pidx; /* 2 * next element to claim; odd: resizing */
	conq_eventcount nonempty; /* take() waits here; P notifies */
	CONQ__PAD_AFTER(pad_prod, CONQ__IDX_FIELDS(1) + sizeof(uint64_t));

	/* Producer-shared, read-mostly: read by every producer on every
	 * claim; plimit written on a refresh, all four by the resizer. */
	conq__idx_t plimit;	    /* claims below it fit the chunk */
	conq__mpsc_la_chunk *pbuf; /* the producers' chunk */
	uint64_t pmask;		    /* pbuf's size - 1 */
	uint64_t pusable;	    /* pbuf's usable slots u */
	CONQ__PAD_AFTER(pad_limit, CONQ__IDX_FIELDS(1) + sizeof(void *) +
				       2 * sizeof(uint64_t));

	/* Consumer-hot: written only by C. */
	conq__idx_t cidx;	    /* 2 * next element to read */
	conq__mpsc_la_chunk *cbuf; /* the consumer's chunk */
	uint64_t cmask;		    /* cbuf's size - 1 */
	uint64_t chase;		    /* 1: the last poll() returned an element */
	/* put() waits here (chunked, growable); C notifies. Unbounded keeps
	 * it (one layout) but never notifies it: its put never waits. */
	conq_eventcount nonfull;
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(1) + sizeof(void *) +
				      3 * sizeof(uint64_t));

	/* The spare chunk (chunked, unbounded): exchanged by C (retire) and
	 * the resizer (take). */
	conq__mpsc_la_chunk *spare;
	CONQ__PAD_AFTER(pad_spare, sizeof(void *));
};

CONQ__STATIC_ASSERT(offsetof(conq__mpsc_la, pidx) % CONQ_PAD == 0,
		    "producer index starts a padded block");
CONQ__STATIC_ASSERT(offsetof(conq__mpsc_la, plimit) % CONQ_PAD == 0,
		    "producer limit starts a padded block");
CONQ__STATIC_ASSERT(offsetof(conq__mpsc_la, cidx) % CONQ_PAD == 0,
		    "consumer fields start a padded block");
CONQ__STATIC_ASSERT(sizeof(conq__mpsc_la_chunk) == CONQ_CACHE_LINE,
		    "chunk header is one line");
/* Twice the largest count stays below CONQ__IDX_HALF. */
CONQ__STATIC_ASSERT(2 * (uint64_t)CONQ_ARRAY_MAX_CAPACITY < CONQ__IDX_HALF,
		    "index differences of a full queue are unambiguous");

/* The JUMP marker: an address no caller can offer (it is the library's). */
extern const char conq__mpsc_la_jump;
#define CONQ__MPSC_LA_JUMP ((void *)(uintptr_t)&conq__mpsc_la_jump)

/* Cold paths, in src/mpsc_la.c. */
conq__mpsc_la *conq__mpsc_la_create(unsigned kind, size_t chunk, size_t max,
				    const conq_allocator *a);
void conq__mpsc_la_destroy(conq__mpsc_la *q);
void conq__mpsc_la_test_start(conq__mpsc_la *q, uint64_t start);
/* P: the slow offer: waits out a resize, refreshes the limit, resizes.
 * all: n or nothing; else as many as fit (at most a chunk's worth when it
 * resizes). Returns how many were enqueued; 0 with errno = ENOMEM when the
 * chunk could not be allocated, 0 (errno untouched) when full. */
size_t conq__mpsc_la_offer_slow(conq__mpsc_la *q, void *const *es, size_t n,
				bool all);
/* P: fill's loop (fn asked only when room or a chunk for it is known). */
size_t conq__mpsc_la_fill(conq__mpsc_la *q, conq_supply_fn fn, void *ctx,
			  size_t limit);
/* C: the slot of index c read JUMP: move to the next chunk, retire the old
 * one; returns the slot of c in the new chunk. */
void **conq__mpsc_la_follow(conq__mpsc_la *q, void **slot, conq__idx_t c);
/* C: wait (spin, then yield) until the claimed slot is written; NULL if the
 * claim was a resize that failed to allocate (pidx rolled back to cidx). */
void *conq__mpsc_la_wait(const conq__mpsc_la *q, void **slot);

static inline void **conq__mpsc_la_slots(const conq__mpsc_la_chunk *ch)
{
	return (void **)((uintptr_t)ch + sizeof(conq__mpsc_la_chunk));
}

/* The offset of index i (pidx/cidx units) in a chunk of mask `mask`. */
static inline uint64_t conq__mpsc_la_off(conq__idx_t i, uint64_t mask)
{
	return ((uint64_t)i >> 1) & mask;
}

/* P: write n claimed elements at index p into chunk ch (mask). Slots
 * 1..n-1 relaxed, slot 0 last with release: the consumer meets slot 0
 * first. */
static inline void conq__mpsc_la_put(conq__mpsc_la_chunk *ch, uint64_t mask,
				     conq__idx_t p, void *const *es, uint64_t n)
{
	void **slots = conq__mpsc_la_slots(ch);
	uint64_t k = (uint64_t)p >> 1;
	for (uint64_t i = 1; i < n; i++)
		/* relaxed: published by [ML1] of the first slot below. */
		conq__store_relaxed(&slots[(k + i) & mask], es[i]);
	/* [ML1] release: publishes the element(s); pairs with [ML2] (C's
	 * acquire of the slot). */
	conq__store_release(&slots[k & mask], es[0]);
}

/*
 * P, the fast path: claim n (>= 1) elements in the current chunk with one
 * CAS and write them. Returns false, having claimed nothing, when the
 * cached limit does not allow all n or a resize is in progress: then the
 * caller takes the slow path. Wakes a waiting take() after its [ML1]; the
 * slow path (conq__mpsc_la_offer_slow, fill) wakes it in src/mpsc_la.c
 * after each claim or resize, so every publication notifies once.
 */
static inline bool conq__mpsc_la_try(conq__mpsc_la *q, void *const *es,
				     uint64_t n)
{
	/* [ML5] acquire: pairs with [ML5] (the release of plimit by a
	 * refresher or the resizer): pusable read after it is that chunk's or
	 * a later one's; a limit seen here was stored after the pidx CAS
	 * [ML3] that began its chunk. */
	conq__idx_t limit = conq__load_acquire(&q->plimit);
	/* [ML3] acquire: pairs with [ML3] (producers' CAS) and [ML4] (the
	 * resizer's release of pidx): pbuf and pmask read after it are at
	 * least as new as the chunk that pidx is in. */
	conq__idx_t p = conq__load_acquire(&q->pidx);
	for (;;) {
		/* Odd p: a resize is in progress (the limit may still be
		 * the old chunk's); the slow path waits for it. */
		if (CONQ__UNLIKELY((p & 1u) ||
				   conq__idx_diff(limit, p) < (int64_t)(2 * n)))
			return false;
		conq__mpsc_la_chunk *ch = conq__load_relaxed(&q->pbuf);
		uint64_t mask = conq__load_relaxed(&q->pmask);
		/* A stale pbuf may be retired meanwhile: the CAS fails then. */
		CONQ__TEST_PAUSE();
		/* [ML3] CAS acq_rel: the claim; success proves that pidx
		 * stayed at p since the load above, so no resize published
		 * another pbuf in between. Weak: a spurious failure goes
		 * round again. */
		if (conq__cas_weak_acq_rel(&q->pidx, &p,
					   conq__idx_add(p, 2 * n))) {
			/* Claimed: the consumer waits for us, the chunk
			 * stays. */
			CONQ__TEST_PAUSE();
			conq__mpsc_la_put(ch, mask, p, es, n);
			break;
		}
	}
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
	return true;
}

/* C: the slot of index c in the consumer's chunk. */
static inline void **conq__mpsc_la_head_slot(const conq__mpsc_la *q,
					     conq__idx_t c)
{
	return &conq__mpsc_la_slots(q->cbuf)[conq__mpsc_la_off(c, q->cmask)];
}

/* C, after a store of cidx ([ML6]), the index a producer's offer reads
 * ([ML7]) to decide "full": wake a waiting put(). `bounded` is the family's
 * constant (CONQ__MPSC_LA_FAMILY): the unbounded family's put never waits,
 * so it pays nothing here, not even the load (which in the eventcount's RMW
 * mode would be a read-modify-write). */
static inline void conq__mpsc_la_consumed(conq__mpsc_la *q, bool bounded)
{
	if (bounded)
		conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
}

/* C: consume the element at cidx from `slot`. poll and relaxed_poll (and so
 * drain) consume through here; poll_burst stores cidx itself, once per
 * batch. Retiring a chunk (follow) moves no index: the cidx store after it
 * is the one that frees room. */
static inline void conq__mpsc_la_advance(conq__mpsc_la *q, void **slot,
					 bool bounded)
{
	/* relaxed: producers learn of the clear through [ML6] below. */
	conq__store_relaxed(slot, (void *)NULL);
	/* [ML6] release: pairs with [ML7] (a refresher's acquire of cidx):
	 * our read and clear of the slot happen before its reuse. */
	conq__store_release(&q->cidx, conq__idx_add(q->cidx, 2));
	conq__mpsc_la_consumed(q, bounded);
}

#ifndef CONQ__MPSC_LA_CHASE_SPINS
#define CONQ__MPSC_LA_CHASE_SPINS 4
#endif
#ifndef CONQ__MPSC_LA_CHASE_GAP
#define CONQ__MPSC_LA_CHASE_GAP 176u /* ns: 16 pauses of the Intel guest */
#endif

/* C: the head slot read NULL; as conq_mpsc_array's head_miss: a few more
 * looks while chasing, then pidx tells empty from a bubble (a claim, or a
 * resize in progress: odd pidx), and a bubble is waited for. */
static inline void *conq__mpsc_la_head_miss(conq__mpsc_la *q, void **slot)
{
	if (q->chase) {
		for (unsigned i = 0; i < CONQ__MPSC_LA_CHASE_SPINS; i++) {
			conq__watch_gap(CONQ__MPSC_LA_CHASE_GAP);
			/* [ML2] acquire: pairs with [ML1] / [ML8]. */
			void *e = conq__load_acquire(slot);
			if (e != NULL)
				return e;
		}
		q->chase = 0;
	}
	/* [ML9] acquire: pairs with [ML3]/[ML4]. pidx == cidx: empty. */
	if (conq__load_acquire(&q->pidx) == q->cidx)
		return NULL;
	return conq__mpsc_la_wait(q, slot);
}

/* C: the element at cidx, NULL when empty; strict: waits for a bubble.
 * Follows a JUMP (the consumer's chunk may change; cidx does not). */
static inline void *conq__mpsc_la_head(conq__mpsc_la *q, void ***slotp,
				       bool strict)
{
	void **slot = conq__mpsc_la_head_slot(q, q->cidx);
	/* [ML2] acquire: pairs with [ML1] (a producer's element) and [ML8]
	 * (the resizer's JUMP). */
	void *e = conq__load_acquire(slot);
	if (CONQ__UNLIKELY(e == NULL)) {
		if (!strict)
			return NULL;
		e = conq__mpsc_la_head_miss(q, slot);
		if (e == NULL)
			return NULL;
	}
	if (CONQ__UNLIKELY(e == CONQ__MPSC_LA_JUMP)) {
		slot = conq__mpsc_la_follow(q, slot, q->cidx);
		/* [ML2] acquire: the resizer wrote this element before its
		 * JUMP ([ML8]), so it is there (non-NULL). */
		e = conq__load_acquire(slot);
	}
	*slotp = slot;
	return e;
}

static inline void *conq__mpsc_la_poll(conq__mpsc_la *q, bool bounded)
{
	void **slot;
	void *e = conq__mpsc_la_head(q, &slot, true);
	if (e == NULL)
		return NULL;
	q->chase = 1;
	conq__mpsc_la_advance(q, slot, bounded);
	return e;
}

static inline void *conq__mpsc_la_relaxed_poll(conq__mpsc_la *q,
					       bool bounded)
{
	void **slot;
	void *e = conq__mpsc_la_head(q, &slot, false);
	if (e != NULL)
		conq__mpsc_la_advance(q, slot, bounded);
	return e;
}

static inline void *conq__mpsc_la_peek(conq__mpsc_la *q)
{
	void **slot;
	return conq__mpsc_la_head(q, &slot, true);
}

static inline void *conq__mpsc_la_relaxed_peek(conq__mpsc_la *q)
{
	void **slot;
	return conq__mpsc_la_head(q, &slot, false);
}

static inline bool conq__mpsc_la_offer(conq__mpsc_la *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	void *es[1] = {e};
	if (CONQ__LIKELY(conq__mpsc_la_try(q, es, 1)))
		return true;
	return conq__mpsc_la_offer_slow(q, es, 1, true) == 1;
}

static inline size_t conq__mpsc_la_size(const conq__mpsc_la *q)
{
	/* [ML10] acquire (all three): pair with [ML6] and [ML3]/[ML4]. An
	 * odd pidx counts the resizer's element(s) as one claimed. */
	size_t n = conq__indexed_size(&q->cidx, &q->pidx, 2 * q->max);
	n = (n + 1) / 2;
	return n > q->max ? (size_t)q->max : n;
}

static inline bool conq__mpsc_la_is_empty(const conq__mpsc_la *q)
{
	/* [ML10] acquire: pairs with [ML6], then [ML3]/[ML4]. */
	conq__idx_t c = conq__load_acquire(&q->cidx);
	return conq__idx_diff(conq__load_acquire(&q->pidx), c) <= 0;
}

static inline size_t conq__mpsc_la_offer_bulk(conq__mpsc_la *q,
					      void *const *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (CONQ__UNLIKELY(es[i] == NULL)) {
			errno = EINVAL;
			return 0;
		}
	if (n == 0 || (uint64_t)n > q->max)
		return 0;
	if (conq__mpsc_la_try(q, es, (uint64_t)n))
		return n;
	return conq__mpsc_la_offer_slow(q, es, n, true);
}

static inline size_t conq__mpsc_la_offer_burst(conq__mpsc_la *q,
					       void *const *es, size_t n)
{
	size_t k = 0;
	while (k < n && es[k] != NULL)
		k++;
	if (k < n)
		errno = EINVAL;
	if (k == 0)
		return 0;
	if ((uint64_t)k <= q->max && conq__mpsc_la_try(q, es, (uint64_t)k))
		return k;
	return conq__mpsc_la_offer_slow(q, es, k, false);
}

static inline size_t conq__mpsc_la_poll_burst(conq__mpsc_la *q, void **out,
					      size_t n, bool bounded)
{
	conq__idx_t c = q->cidx;
	size_t k = 0;
	while (k < n) {
		void **slot = conq__mpsc_la_head_slot(q, c);
		/* [ML2] acquire: pairs with [ML1] / [ML8]. */
		void *e = conq__load_acquire(slot);
		if (e == NULL)
			break;
		if (CONQ__UNLIKELY(e == CONQ__MPSC_LA_JUMP)) {
			slot = conq__mpsc_la_follow(q, slot, c);
			/* [ML2] acquire: written before the JUMP. */
			e = conq__load_acquire(slot);
		}
		out[k++] = e;
		/* relaxed: published to producers by [ML6] below. */
		conq__store_relaxed(slot, (void *)NULL);
		c = conq__idx_add(c, 2);
	}
	if (k) {
		/* [ML6] release: pairs with [ML7]; see advance. */
		conq__store_release(&q->cidx, c);
		conq__mpsc_la_consumed(q, bounded);
	}
	return k;
}

/* One cidx store, and so one notify, per element, as the other families'
 * drain: each element is consumed before fn sees it, and a put() parked on
 * a full queue is woken while fn runs, not after the whole drain (fn is an
 * opaque call per element: the notify's load adds little to it). */
static inline size_t conq__mpsc_la_drain(conq__mpsc_la *q, conq_consume_fn fn,
					 void *ctx, size_t limit, bool bounded)
{
	size_t k = 0;
	void *e;
	while (k < limit &&
	       (e = conq__mpsc_la_relaxed_poll(q, bounded)) != NULL) {
		fn(ctx, e);
		k++;
	}
	return k;
}

/*
 * The family wrappers: struct conq_<fam> holds the core, and every common
 * verb forwards to it (inline, so the family call costs the core call).
 * bounded: 1 for chunked and growable (the consumer wakes a waiting put()),
 * 0 for unbounded; a constant, so the test folds away. The family's header
 * adds put and take (conq/impl/blocking.h) on q.nonfull and q.nonempty.
 */
#define CONQ__MPSC_LA_FAMILY(fam, bounded)                                     \
	struct conq_##fam {                                                    \
		conq__mpsc_la q;                                               \
	};                                                                     \
	static inline void conq_##fam##_destroy(conq_##fam *q)                 \
	{                                                                      \
		conq__mpsc_la_destroy(q == NULL ? NULL : &q->q);               \
	}                                                                      \
	static inline bool conq_##fam##_offer(conq_##fam *q, void *e)          \
	{                                                                      \
		return conq__mpsc_la_offer(&q->q, e);                          \
	}                                                                      \
	static inline bool conq_##fam##_relaxed_offer(conq_##fam *q, void *e)  \
	{                                                                      \
		return conq__mpsc_la_offer(&q->q, e);                          \
	}                                                                      \
	static inline void *conq_##fam##_poll(conq_##fam *q)                   \
	{                                                                      \
		return conq__mpsc_la_poll(&q->q, (bounded));                   \
	}                                                                      \
	static inline void *conq_##fam##_relaxed_poll(conq_##fam *q)           \
	{                                                                      \
		return conq__mpsc_la_relaxed_poll(&q->q, (bounded));           \
	}                                                                      \
	static inline void *conq_##fam##_peek(conq_##fam *q)                   \
	{                                                                      \
		return conq__mpsc_la_peek(&q->q);                              \
	}                                                                      \
	static inline void *conq_##fam##_relaxed_peek(conq_##fam *q)           \
	{                                                                      \
		return conq__mpsc_la_relaxed_peek(&q->q);                      \
	}                                                                      \
	static inline size_t conq_##fam##_size(const conq_##fam *q)            \
	{                                                                      \
		return conq__mpsc_la_size(&q->q);                              \
	}                                                                      \
	static inline bool conq_##fam##_is_empty(const conq_##fam *q)          \
	{                                                                      \
		return conq__mpsc_la_is_empty(&q->q);                          \
	}                                                                      \
	static inline size_t conq_##fam##_capacity(const conq_##fam *q)        \
	{                                                                      \
		return q->q.capacity;                                          \
	}                                                                      \
	static inline size_t conq_##fam##_drain(                               \
	    conq_##fam *q, conq_consume_fn fn, void *ctx, size_t limit)        \
	{                                                                      \
		return conq__mpsc_la_drain(&q->q, fn, ctx, limit, (bounded));  \
	}                                                                      \
	static inline size_t conq_##fam##_fill(                                \
	    conq_##fam *q, conq_supply_fn fn, void *ctx, size_t limit)         \
	{                                                                      \
		return conq__mpsc_la_fill(&q->q, fn, ctx, limit);              \
	}                                                                      \
	static inline size_t conq_##fam##_offer_bulk(                          \
	    conq_##fam *q, void *const *es, size_t n)                          \
	{                                                                      \
		return conq__mpsc_la_offer_bulk(&q->q, es, n);                 \
	}                                                                      \
	static inline size_t conq_##fam##_offer_burst(                         \
	    conq_##fam *q, void *const *es, size_t n)                          \
	{                                                                      \
		return conq__mpsc_la_offer_burst(&q->q, es, n);                \
	}                                                                      \
	static inline size_t conq_##fam##_poll_burst(conq_##fam *q,            \
						     void **out, size_t n)     \
	{                                                                      \
		return conq__mpsc_la_poll_burst(&q->q, out, n, (bounded));     \
	}

#ifdef __cplusplus
}
#endif

#endif /* CONQ_IMPL_MPSC_LA_H */
