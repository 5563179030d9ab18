/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/impl/xadd.h - the shared core of the XADD families (conq_mpsc_xadd,
 * conq_mpmc_xadd). Not API on its own: use the families' headers, which
 * document the contracts.
 *
 * The protocol (JCTools' Mp*UnboundedXaddArrayQueue, made memory-safe in C
 * without a garbage collector, hazard pointers or epochs;
 * docs/memory-model.md, "the XADD queues", labels [X1]...):
 *
 *  - Element number i (an index, counted from the queue's start) lives in
 *    slot i % C of the chunk whose base is i - i % C: chunks of C slots (a
 *    power of two, at least 2), linked in base order by `next` (and back by
 *    `prev`). Chunks are never a ring: each is used once, then released to
 *    the queue's two-chunk pool (or freed) and reused with a new base.
 *  - A producer claims its index with one fetch-and-add on the head (phead;
 *    n indices for a bulk offer) and never fails or retries: it then finds
 *    the chunk of its index and stores its element into the slot (release).
 *  - The producers' chunk (pchunk) and its base (pbase) sit in a
 *    read-mostly line. The chunk after it is appended by the first producer
 *    that needs it: it CASes pbase from b to b | 1 (a "rotation"; bases are
 *    even), takes a chunk from the pool (or allocates one), links it
 *    (old->next, new->prev), publishes pchunk, then pbase = b + C. Others
 *    that need a later chunk wait while pbase is odd or below theirs (an
 *    index of an earlier chunk never waits: its chunk is reachable).
 *  - MPSC: the one consumer reads slots in order from its private cchunk,
 *    follows `next` at the chunk's end and releases the chunk it leaves.
 *    MPMC: consumers claim an index with a CAS of the tail (ctail) only
 *    below the head they saw (cached in climit), then find the index's
 *    chunk through the consumers' (cbase, cchunk), advanced as the
 *    producers' (a CAS of cbase to cbase | 1), wait for the slot to be
 *    written, read it and store CONSUMED into it (release). Chunks are
 *    released in base order by one consumer at a time (a try-lock), each
 *    once cbase has passed it and every slot of it reads CONSUMED.
 *
 * Memory safety, the argument in full in docs/memory-model.md: a thread
 * dereferences only (a) a chunk that holds a slot it has claimed and not
 * finished with (its producer has not stored, or its consumer has not
 * consumed it), or a later chunk: released chunks are released in base
 * order and only when every slot is finished, so none of these can be
 * released; it reaches them from a (base, chunk) pair whose base it saw at
 * or after its own chunk's base, then walks `prev`, never below its own;
 * (b) the chunk of a rotation it holds (pbase or cbase odd: a chunk is
 * released only after cbase has moved past it, and pchunk's chunk only has
 * a successor once its rotation ended); (c) the chunk a peek protects with
 * the peekers count that the releaser checks (MPMC), held for one look
 * at a time, never while waiting. Nobody holds a pointer
 * to a released chunk, so it can be reused or freed at once: no
 * generations or epochs are needed, and a drained queue keeps its current
 * chunk and the pool (two chunks) only. A stale chunk can never be read as
 * a current one (JCTools #310), and a chunk of one slot, which JCTools #281
 * hung on, cannot exist (C >= 2; chunk 1 is rounded up).
 *
 * Allocation failure: an index, once claimed, must be written, so the
 * appender takes the pool's spare, else allocates, else takes the reserve
 * chunk (kept full while memory allows) and marks the queue low on memory;
 * while it is marked, every offer first tries to allocate a new reserve and
 * fails with ENOMEM (nothing claimed, nothing lost) when it cannot. Only
 * when producers that claimed before the mark need more chunks than the
 * reserve held does an appender wait (yields, retrying the allocation and
 * watching the pool; MPMC: running the release, which a slot still being
 * read or a peek may have held off) until memory comes back: the elements
 * are never lost.
 */
#ifndef CONQ_IMPL_XADD_H
#define CONQ_IMPL_XADD_H

#include <errno.h>

#include "conq/common.h"
#include "conq/impl/blocking.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A chunk: this header (one line), then C slots. */
typedef struct conq__xadd_chunk conq__xadd_chunk;
struct conq__xadd_chunk {
	/* The next chunk: stored by the appender of the next chunk, last of
	 * its accesses to this one ([X4]); read by consumers ([X4]). */
	conq__xadd_chunk *next;
	/* The previous chunk: set before the chunk is published, read by
	 * threads that walk back to their own, older chunk. */
	conq__xadd_chunk *prev;
	conq__idx_t base; /* index of slot 0; set before publication */
	char pad[CONQ_CACHE_LINE - 2 * sizeof(void *) - sizeof(conq__idx_t)];
};
CONQ__STATIC_ASSERT(sizeof(conq__xadd_chunk) == CONQ_CACHE_LINE,
		    "chunk header is one line");

/* The element limit: never reached with 64-bit indices; keeps index
 * differences (head - tail, plus a claim per thread) below CONQ__IDX_HALF in
 * narrow index test builds, as conq_mpsc_unbounded's. */
#define CONQ__XADD_MAX (CONQ__IDX_HALF / 4)

typedef struct conq__xadd conq__xadd;
struct conq__xadd {
	/* Read-mostly: written by create only. */
	uint64_t chunk; /* C, slots per chunk */
	uint64_t mask;	/* C - 1 */
	unsigned mc;	/* 1: multi-consumer (conq_mpmc_xadd) */
	unsigned has_alloc;
	conq_allocator alloc;
	CONQ__PAD_AFTER(pad_cold, 2 * sizeof(uint64_t) + 2 * sizeof(unsigned) +
				      sizeof(conq_allocator));

	/* Producer-hot: every offer's fetch-and-add. */
	conq__idx_t phead; /* next index to claim */
	CONQ__PAD_AFTER(pad_prod, sizeof(conq__idx_t)); /* alone: no tail */

	/* Producer-shared, read-mostly: read by every offer, written once a
	 * chunk by its appender. The waiter word too: every offer reads it,
	 * only a parking take() writes it, so it shares this line rather
	 * than phead's, which the other producers' fetch-and-adds take away
	 * between our claim and our notify. */
	conq__idx_t pbase;	   /* pchunk's base; | 1 while appending */
	conq__xadd_chunk *pchunk; /* the newest chunk */
	conq_eventcount nonempty;  /* take() waits here; P notifies */
	unsigned mem_low;	   /* 1: the reserve is used up */
	CONQ__PAD_AFTER(pad_pchunk, CONQ__IDX_FIELDS(1) + sizeof(void *) +
					sizeof(uint64_t) + sizeof(unsigned));

	/* Consumer-hot: MPSC: written by C only; MPMC: CASed by consumers. */
	conq__idx_t ctail;  /* next index to consume (MPMC: to claim) */
	conq__idx_t climit; /* MPMC: a head seen; claims below it are safe */
	conq__xadd_chunk *cchunk; /* MPSC: C's chunk (MPMC: below) */
	conq_eventcount nonfull;  /* never waited on: one layout for blocking */
	unsigned chase; /* MPSC: the last poll got an element (sc_head_miss) */
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(2) + sizeof(void *) +
				      sizeof(uint64_t) + sizeof(unsigned));

	/* MPMC consumers' chunk, read-mostly as the producers'. */
	conq__idx_t cbase;	   /* ccur's base; | 1 while advancing */
	conq__idx_t rbase;	   /* the oldest unreleased chunk's base */
	conq__xadd_chunk *ccur;	   /* the consumers' chunk */
	CONQ__PAD_AFTER(pad_cchunk, CONQ__IDX_FIELDS(2) + sizeof(void *));

	/* MPMC release: the try-lock, what the holder keeps, the peekers. */
	unsigned rlock;
	unsigned peekers;	  /* peeks in progress: no release meanwhile */
	conq__xadd_chunk *rchunk; /* the oldest unreleased chunk */
	uint64_t roff;		  /* its slots below roff read CONSUMED */
	CONQ__PAD_AFTER(pad_rel, 2 * sizeof(unsigned) + sizeof(void *) +
				     sizeof(uint64_t));

	/* The pool: taken by the appender (one at a time), filled by the
	 * releaser (one at a time); the reserve also by replenishing offers. */
	conq__xadd_chunk *spare;
	conq__xadd_chunk *reserve;
	CONQ__PAD_AFTER(pad_pool, 2 * sizeof(void *));
};

CONQ__STATIC_ASSERT(offsetof(conq__xadd, phead) % CONQ_PAD == 0,
		    "producer index starts a padded block");
CONQ__STATIC_ASSERT(offsetof(conq__xadd, pbase) % CONQ_PAD == 0,
		    "producer chunk starts a padded block");
CONQ__STATIC_ASSERT(offsetof(conq__xadd, ctail) % CONQ_PAD == 0,
		    "consumer index starts a padded block");
CONQ__STATIC_ASSERT(offsetof(conq__xadd, cbase) % CONQ_PAD == 0,
		    "consumer chunk starts a padded block");

/* CONSUMED (MPMC): what a consumer leaves in a slot it consumed; an address
 * no caller can offer (it is the library's). */
extern const char conq__xadd_consumed;
#define CONQ__XADD_CONSUMED ((void *)(uintptr_t)&conq__xadd_consumed)

/* Cold paths, in src/xadd.c. */
conq__xadd *conq__xadd_create(unsigned mc, size_t chunk,
			      const conq_allocator *a);
void conq__xadd_destroy(conq__xadd *q);
void conq__xadd_test_start(conq__xadd *q, uint64_t start);
/* Any: the chunk of index i (base `want`) for a thread that has claimed i;
 * the slow path of pslot/cslot: waits out rotations, appends (P) or
 * advances (C) as needed, walks back. */
conq__xadd_chunk *conq__xadd_pchunk_slow(conq__xadd *q, conq__idx_t want);
conq__xadd_chunk *conq__xadd_cchunk_slow(conq__xadd *q, conq__idx_t want);
/* P: the queue is low on memory: try to refill the reserve; false + ENOMEM
 * when it cannot (then the offer claims nothing). */
bool conq__xadd_replenish(conq__xadd *q);
/* C (MPSC): leave the consumer's chunk for its successor, waiting for it
 * if strict (NULL: none yet, when !strict or empty); releases the old one. */
conq__xadd_chunk *conq__xadd_follow(conq__xadd *q, bool strict);
/* C (MPMC): release what can be released (try-lock; no-op when busy). */
void conq__xadd_release(conq__xadd *q);
/* Wait (spin, then yield) until *slot is not NULL; returns it. */
void *conq__xadd_wait_slot(void **slot);
/* C (MPMC): peek, under the peekers count. */
void *conq__xadd_mc_peek(conq__xadd *q, bool strict);

static inline void **conq__xadd_slots(const conq__xadd_chunk *ch)
{
	return (void **)((uintptr_t)ch + sizeof(conq__xadd_chunk));
}

/* v without a rotation's mark (bases are even). */
static inline conq__idx_t conq__xadd_even(conq__idx_t v)
{
	return (conq__idx_t)(v - (v & 1u));
}

static inline conq__idx_t conq__xadd_base_of(const conq__xadd *q,
					     conq__idx_t i)
{
	return (conq__idx_t)(i & ~(conq__idx_t)q->mask);
}

/* P: the slot of claimed index i. The fast path: pbase is i's base, so
 * pchunk (read after it) is i's chunk or a later one; a later one means a
 * producer appended meanwhile, and the slow path walks back. */
static inline void **conq__xadd_pslot(conq__xadd *q, conq__idx_t i)
{
	conq__idx_t want = conq__xadd_base_of(q, i);
	/* [X3] acquire: pairs with [X3] (the appender's release of pbase):
	 * the pchunk read after it is that chunk or a later one. */
	if (CONQ__LIKELY(conq__load_acquire(&q->pbase) == want)) {
		/* [X3] acquire: pairs with the appender's release of pchunk:
		 * its base and prev, set before, are read after. */
		conq__xadd_chunk *ch = conq__load_acquire(&q->pchunk);
		if (CONQ__LIKELY(ch->base == want))
			return &conq__xadd_slots(ch)[i & q->mask];
	}
	return &conq__xadd_slots(conq__xadd_pchunk_slow(q, want))[i & q->mask];
}

/* P: claim n >= 1 indices and store es[0..n-1]. The caller checked es and
 * the memory mark. Slots are written in index order, each with release: a
 * consumer reads each slot on its own. */
static inline void conq__xadd_publish(conq__xadd *q, void *const *es,
				      uint64_t n)
{
	/* [X1] fetch-and-add acq_rel: the claim; pairs with [X9] (consumers'
	 * acquire of the head: a claimed index is waited for) and orders the
	 * (pbase, pchunk) reads after it. */
	conq__idx_t i = conq__faa_acq_rel(&q->phead, (conq__idx_t)n);
	CONQ__TEST_PAUSE();
	for (uint64_t k = 0; k < n; k++) {
		void **slot = conq__xadd_pslot(q, conq__idx_add(i, k));
		CONQ__TEST_PAUSE();
		/* [X2] release: publishes the element; pairs with [X2] (the
		 * consumer's acquire of the slot). The producer's last
		 * access to the chunk. */
		conq__store_release(slot, es[k]);
	}
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
}

/* P: may this offer of n claim? The narrow-index element limit (64-bit
 * indices never reach it: the test folds away), then the memory mark. */
static inline bool conq__xadd_may_claim(conq__xadd *q, uint64_t n)
{
#if CONQ_INDEX_BITS < 64
	/* relaxed: a bound for test builds; overshoot by the claims in flight
	 * is within CONQ__XADD_MAX's margin. */
	if ((uint64_t)conq__idx_diff(conq__load_relaxed(&q->phead),
				     conq__load_relaxed(&q->ctail)) +
		n >
	    CONQ__XADD_MAX)
		return false;
#else
	(void)n;
#endif
	/* relaxed: a hint; the reserve itself is taken by exchange. */
	if (CONQ__UNLIKELY(conq__load_relaxed(&q->mem_low)))
		return conq__xadd_replenish(q);
	return true;
}

static inline bool conq__xadd_offer(conq__xadd *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	if (CONQ__UNLIKELY(!conq__xadd_may_claim(q, 1)))
		return false;
	void *es[1] = {e};
	conq__xadd_publish(q, es, 1);
	return true;
}

static inline size_t conq__xadd_offer_bulk(conq__xadd *q, void *const *es,
					   size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (CONQ__UNLIKELY(es[i] == NULL)) {
			errno = EINVAL;
			return 0;
		}
	if (n == 0 || !conq__xadd_may_claim(q, (uint64_t)n))
		return 0;
	conq__xadd_publish(q, es, (uint64_t)n);
	return n;
}

static inline size_t conq__xadd_offer_burst(conq__xadd *q, void *const *es,
					    size_t n)
{
	size_t k = 0;
	while (k < n && es[k] != NULL)
		k++;
	if (k < n)
		errno = EINVAL;
	if (k == 0 || !conq__xadd_may_claim(q, (uint64_t)k))
		return 0;
	conq__xadd_publish(q, es, (uint64_t)k);
	return k;
}

/* P: fill. The supplier is asked only after the claim is known to be
 * allowed, at most 64 elements a claim; its NULL ends the fill. */
static inline size_t conq__xadd_fill(conq__xadd *q, conq_supply_fn fn,
				     void *ctx, size_t limit)
{
	size_t done = 0;
	void *es[64];
	while (done < limit) {
		size_t want = limit - done < 64 ? limit - done : 64;
		if (!conq__xadd_may_claim(q, (uint64_t)want))
			break;
		size_t k = 0;
		while (k < want && (es[k] = fn(ctx)) != NULL)
			k++;
		if (k)
			conq__xadd_publish(q, es, (uint64_t)k);
		done += k;
		if (k < want)
			break;
	}
	return done;
}

static inline size_t conq__xadd_size(const conq__xadd *q)
{
	/* [X10] acquire (all): pair with the ctail stores/CASes and [X1]. */
	return conq__indexed_size(&q->ctail, &q->phead, CONQ__XADD_MAX);
}

static inline bool conq__xadd_is_empty(const conq__xadd *q)
{
	/* [X10] acquire: as size. */
	conq__idx_t c = conq__load_acquire(&q->ctail);
	return conq__idx_diff(conq__load_acquire(&q->phead), c) <= 0;
}

/* ---------------------------------------------------------------- MPSC -- */

/* C: a strict look at ctail's slot read NULL. Right after a poll that got
 * an element (chasing the producers), look at the slot a few more times,
 * CONQ__XADD_CHASE_GAP ns apart, before reading phead: phead's line is the
 * one every producer's fetch-and-add needs, and pulling it over while they
 * claim slows them just when the consumer waits for them (as
 * conq_mpsc_array's head_miss; measured in docs/benchmarks.md, 1P1C). Then
 * phead tells empty from a bubble, and a bubble is waited for. */
#ifndef CONQ__XADD_CHASE_SPINS
#define CONQ__XADD_CHASE_SPINS 4
#endif
#ifndef CONQ__XADD_CHASE_GAP
#define CONQ__XADD_CHASE_GAP 176u /* ns: 16 pauses of the Intel guest */
#endif
static inline void *conq__xadd_sc_head_miss(conq__xadd *q, void **slot,
					    conq__idx_t c)
{
	if (q->chase) {
		for (unsigned i = 0; i < CONQ__XADD_CHASE_SPINS; i++) {
			conq__watch_gap(CONQ__XADD_CHASE_GAP);
			/* [X2] acquire: pairs with [X2]. */
			void *e = conq__load_acquire(slot);
			if (e != NULL)
				return e;
		}
		q->chase = 0;
	}
	/* [X9] acquire: pairs with [X1]. head == tail: empty; else the
	 * slot's producer claimed it and has not stored yet. */
	if (conq__load_acquire(&q->phead) == c)
		return NULL;
	return conq__xadd_wait_slot(slot);
}

/* C: the element at ctail, NULL when empty (or, !strict, on a bubble: a
 * claimed slot not yet written, or a chunk not yet appended). consume:
 * take it (advance ctail). */
static inline void *conq__xadd_sc_head(conq__xadd *q, bool strict,
				       bool consume)
{
	conq__idx_t c = q->ctail;
	conq__xadd_chunk *ch = q->cchunk;
	if (CONQ__UNLIKELY(conq__idx_diff(c, ch->base) >= (int64_t)q->chunk)) {
		ch = conq__xadd_follow(q, strict);
		if (ch == NULL)
			return NULL;
	}
	void **slot = &conq__xadd_slots(ch)[c & q->mask];
	/* [X2] acquire: pairs with [X2] (the producer's release). */
	void *e = conq__load_acquire(slot);
	if (CONQ__UNLIKELY(e == NULL)) {
		if (!strict)
			return NULL;
		e = conq__xadd_sc_head_miss(q, slot, c);
		if (e == NULL)
			return NULL;
	}
	q->chase = 1;
	if (consume)
		/* [X8] release: pairs with [X10] (size, is_empty). */
		conq__store_release(&q->ctail, conq__idx_add(c, 1));
	return e;
}

static inline size_t conq__xadd_sc_drain(conq__xadd *q, conq_consume_fn fn,
					 void *ctx, size_t limit)
{
	size_t k = 0;
	void *e;
	while (k < limit && (e = conq__xadd_sc_head(q, false, true)) != NULL) {
		fn(ctx, e);
		k++;
	}
	return k;
}

static inline size_t conq__xadd_sc_poll_burst(conq__xadd *q, void **out,
					      size_t n)
{
	size_t k = 0;
	void *e;
	while (k < n && (e = conq__xadd_sc_head(q, false, true)) != NULL)
		out[k++] = e;
	return k;
}

/* ---------------------------------------------------------------- MPMC -- */

/* C: claim the next index (a CAS of ctail), only below a head seen; false
 * when the queue is empty. */
static inline bool conq__xadd_mc_claim(conq__xadd *q, conq__idx_t *cp)
{
	/* relaxed: the CAS below validates it. */
	conq__idx_t c = conq__load_relaxed(&q->ctail);
	for (;;) {
		/* relaxed: climit only ever holds a head some consumer read
		 * with [X9], and only grows (below); a claim is below it. */
		conq__idx_t lim = conq__load_relaxed(&q->climit);
		if (conq__idx_diff(lim, c) <= 0) {
			/* [X9] acquire: pairs with [X1]: indices below the
			 * head are claimed by producers, so will be written. */
			conq__idx_t p = conq__load_acquire(&q->phead);
			if (conq__idx_diff(p, c) <= 0) {
				/* relaxed: a hint for the releaser. */
				if (conq__load_relaxed(&q->rbase) !=
				    conq__xadd_even(
					conq__load_relaxed(&q->cbase)))
					conq__xadd_release(q);
				return false;
			}
			/* Only forward: a consumer that read an older head
			 * must not store it back over a newer one (with
			 * narrow indices, one more than half the index range
			 * behind the tail would read as ahead of it). CAS
			 * relaxed: climit orders nothing, [X9] did. */
			while (conq__idx_diff(p, lim) > 0 &&
			       !conq__cas_weak_relaxed(&q->climit, &lim, p))
				;
		}
		/* [X6] CAS acq_rel: the claim; pairs with [X6] of the other
		 * consumers (the index is ours alone). Weak: a spurious
		 * failure goes round. */
		if (conq__cas_weak_acq_rel(&q->ctail, &c, conq__idx_add(c, 1)))
			break;
	}
	*cp = c;
	return true;
}

/* C: the slot of claimed index c, as pslot. */
static inline void **conq__xadd_cslot(conq__xadd *q, conq__idx_t c)
{
	conq__idx_t want = conq__xadd_base_of(q, c);
	/* [X5] acquire: pairs with [X5] (the advancer's release of cbase). */
	if (CONQ__LIKELY(conq__load_acquire(&q->cbase) == want)) {
		/* [X5] acquire: pairs with the advancer's release of ccur. */
		conq__xadd_chunk *ch = conq__load_acquire(&q->ccur);
		if (CONQ__LIKELY(ch->base == want))
			return &conq__xadd_slots(ch)[c & q->mask];
	}
	return &conq__xadd_slots(conq__xadd_cchunk_slow(q, want))[c & q->mask];
}

static inline void *conq__xadd_mc_poll(conq__xadd *q)
{
	conq__idx_t c;
	if (!conq__xadd_mc_claim(q, &c))
		return NULL;
	CONQ__TEST_PAUSE();
	void **slot = conq__xadd_cslot(q, c);
	/* [X2] acquire: pairs with [X2]. */
	void *e = conq__load_acquire(slot);
	if (CONQ__UNLIKELY(e == NULL))
		e = conq__xadd_wait_slot(slot);
	CONQ__TEST_PAUSE();
	/* [X7] release: pairs with [X7] (the releaser's acquire scan): our
	 * read of the slot happens before the chunk's release. Our last
	 * access to the chunk. */
	conq__store_release(slot, CONQ__XADD_CONSUMED);
	return e;
}

static inline size_t conq__xadd_mc_drain(conq__xadd *q, conq_consume_fn fn,
					 void *ctx, size_t limit)
{
	size_t k = 0;
	void *e;
	while (k < limit && (e = conq__xadd_mc_poll(q)) != NULL) {
		fn(ctx, e);
		k++;
	}
	return k;
}

static inline size_t conq__xadd_mc_poll_burst(conq__xadd *q, void **out,
					      size_t n)
{
	size_t k = 0;
	void *e;
	while (k < n && (e = conq__xadd_mc_poll(q)) != NULL)
		out[k++] = e;
	return k;
}

/* --------------------------------------------------------- the families -- */

/* struct conq_<fam> holds the core; every verb forwards to it. mc: 0 for
 * mpsc_xadd, 1 for mpmc_xadd (a constant: the tests fold away). */
#define CONQ__XADD_FAMILY(fam, mc)                                             \
	struct conq_##fam {                                                    \
		conq__xadd q;                                                  \
	};                                                                     \
	static inline void conq_##fam##_destroy(conq_##fam *q)                 \
	{                                                                      \
		conq__xadd_destroy(q == NULL ? NULL : &q->q);                  \
	}                                                                      \
	static inline bool conq_##fam##_offer(conq_##fam *q, void *e)          \
	{                                                                      \
		return conq__xadd_offer(&q->q, e);                             \
	}                                                                      \
	static inline bool conq_##fam##_relaxed_offer(conq_##fam *q, void *e)  \
	{                                                                      \
		return conq__xadd_offer(&q->q, e);                             \
	}                                                                      \
	static inline void *conq_##fam##_poll(conq_##fam *q)                   \
	{                                                                      \
		return (mc) ? conq__xadd_mc_poll(&q->q)                        \
			    : conq__xadd_sc_head(&q->q, true, true);           \
	}                                                                      \
	static inline void *conq_##fam##_relaxed_poll(conq_##fam *q)           \
	{                                                                      \
		return (mc) ? conq__xadd_mc_poll(&q->q)                        \
			    : conq__xadd_sc_head(&q->q, false, true);          \
	}                                                                      \
	static inline void *conq_##fam##_peek(conq_##fam *q)                   \
	{                                                                      \
		return (mc) ? conq__xadd_mc_peek(&q->q, true)                  \
			    : conq__xadd_sc_head(&q->q, true, false);          \
	}                                                                      \
	static inline void *conq_##fam##_relaxed_peek(conq_##fam *q)           \
	{                                                                      \
		return (mc) ? conq__xadd_mc_peek(&q->q, false)                 \
			    : conq__xadd_sc_head(&q->q, false, false);         \
	}                                                                      \
	static inline size_t conq_##fam##_size(const conq_##fam *q)            \
	{                                                                      \
		return conq__xadd_size(&q->q);                                 \
	}                                                                      \
	static inline bool conq_##fam##_is_empty(const conq_##fam *q)          \
	{                                                                      \
		return conq__xadd_is_empty(&q->q);                             \
	}                                                                      \
	static inline size_t conq_##fam##_capacity(const conq_##fam *q)        \
	{                                                                      \
		(void)q;                                                       \
		return CONQ_UNBOUNDED;                                         \
	}                                                                      \
	static inline size_t conq_##fam##_drain(                               \
	    conq_##fam *q, conq_consume_fn fn, void *ctx, size_t limit)        \
	{                                                                      \
		return (mc) ? conq__xadd_mc_drain(&q->q, fn, ctx, limit)       \
			    : conq__xadd_sc_drain(&q->q, fn, ctx, limit);      \
	}                                                                      \
	static inline size_t conq_##fam##_fill(                                \
	    conq_##fam *q, conq_supply_fn fn, void *ctx, size_t limit)         \
	{                                                                      \
		return conq__xadd_fill(&q->q, fn, ctx, limit);                 \
	}                                                                      \
	static inline size_t conq_##fam##_offer_bulk(                          \
	    conq_##fam *q, void *const *es, size_t n)                          \
	{                                                                      \
		return conq__xadd_offer_bulk(&q->q, es, n);                    \
	}                                                                      \
	static inline size_t conq_##fam##_offer_burst(                         \
	    conq_##fam *q, void *const *es, size_t n)                          \
	{                                                                      \
		return conq__xadd_offer_burst(&q->q, es, n);                   \
	}                                                                      \
	static inline size_t conq_##fam##_poll_burst(conq_##fam *q,            \
						     void **out, size_t n)     \
	{                                                                      \
		return (mc) ? conq__xadd_mc_poll_burst(&q->q, out, n)          \
			    : conq__xadd_sc_poll_burst(&q->q, out, n);         \
	}

#ifdef __cplusplus
}
#endif

#endif /* CONQ_IMPL_XADD_H */
