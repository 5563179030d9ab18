/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/impl/spsc_la.h - the shared core of the SPSC linked-array families
 * (conq_spsc_chunked, conq_spsc_growable, conq_spsc_unbounded). Not API: the
 * families' own headers (conq/spsc_chunked.h, ...) state the contract; this
 * file holds the protocol, and docs/memory-model.md ("SPSC linked arrays",
 * labels [SL1]...) its pairing table and proof.
 *
 * The queue is a chain of chunks. A chunk is a ring of `void *` slots used
 * as conq_spsc_array's ring is (NULL = free, lazy batched clears by the
 * consumer, a producer that caches a limit and looks at slots before it
 * reads the consumer index), plus one more slot value: CONQ__SPSC_LA_JUMP,
 * "the queue goes on at position 0 of the chunk in `next`".
 *
 * Producer invariant: when pidx == plimit, the slot at ppos is known free
 * (the "reserve"): a refresh that finds room reserves the slot just past
 * the room it grants (it looked at that very slot), and the first plimit in
 * a new chunk stops one slot short of the ring. So when a chunk is full the
 * producer writes JUMP into a free slot, never over an element.
 *
 * Chunks that are not final (every chunk of chunked/unbounded, growable's
 * smaller ones) have ring = their nominal size, batch B = min(32, max(1,
 * ring / 8)) (so that a chunk abandoned as "full" while up to B - 1 clears
 * are pending holds at least 7/8 of its ring in elements), look =
 * min(ring / 4, 4096), at least 1. Their refresh takes the queue limit
 * (bounded: pqlimit = cidx + max, refreshed only when pidx reaches it) and
 * the buffer room (the slot `look` ahead, then the next one, else link a
 * chunk) separately. Growable's final chunk has ring = max + B and never
 * links; its refresh is conq_spsc_array's (the slot look proves the queue
 * limit too), with a guard for slots of the chunk's first lap.
 */
#ifndef CONQ_IMPL_SPSC_LA_H
#define CONQ_IMPL_SPSC_LA_H

#include <errno.h>

#include "conq/common.h"
#include "conq/eventcount.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The JUMP marker's address: a private object, never an element (offering
 * its address is undefined; nobody outside conq can name it by accident). */
extern const char conq__spsc_la_jump_mark;
#define CONQ__SPSC_LA_JUMP ((void *)(uintptr_t)&conq__spsc_la_jump_mark)

/* The kinds of the core. */
#define CONQ__SPSC_LA_UNBOUNDED 0u
#define CONQ__SPSC_LA_CHUNKED	1u
#define CONQ__SPSC_LA_GROWABLE	2u

typedef struct conq__spsc_la_chunk conq__spsc_la_chunk;

struct conq__spsc_la_chunk {
	/* Written by P once, before the JUMP store ([SL9]) that publishes it;
	 * read by C after the acquire of that JUMP ([SL2]). */
	conq__spsc_la_chunk *next;
	/* Written when the chunk is made (before any thread but its maker can
	 * reach it), then only read. */
	uint64_t cap;	/* nominal size (a power of two) */
	uint64_t ring;	/* slots: cap, or cap + batch for a final chunk */
	uint64_t batch; /* B: the consumer clears B slots at a time */
	uint64_t look;	/* the producer's look-ahead, 1 <= look < ring */
	uint64_t final; /* 1: growable's last chunk; never links */
	size_t bytes;	/* the allocation's size, for the allocator's free */
	CONQ__PAD_AFTER(pad, 6 * sizeof(uint64_t) + sizeof(size_t));
	/* void *slots[ring] follows, then CONQ_PAD bytes of guard. */
};

CONQ__STATIC_ASSERT(sizeof(conq__spsc_la_chunk) % CONQ_PAD == 0,
		    "a chunk's slots start a padded block");

typedef struct conq__spsc_la conq__spsc_la;

struct conq__spsc_la {
	/* Read-mostly: written by create, then only read. */
	uint64_t max;	/* capacity() (bounded), 0 for unbounded */
	uint64_t chunk; /* the standard (or growable's first) chunk size */
	unsigned kind;	/* CONQ__SPSC_LA_* */
	unsigned has_alloc;
	conq_allocator alloc; /* valid when has_alloc */
	CONQ__PAD_AFTER(pad_cold, 2 * sizeof(uint64_t) + 2 * sizeof(unsigned) +
				      sizeof(conq_allocator));

	/* Producer-hot: written only by P. */
	conq__idx_t pidx;    /* next index to write; read by size() */
	conq__idx_t plimit;  /* indices below this are writable (cached) */
	conq__idx_t pqlimit; /* bounded: cidx + max as last read */
	conq__idx_t pstart;  /* the first index written into pchunk */
	uint64_t ppos;	     /* pidx's slot in pchunk */
	uint64_t pring;	     /* pchunk->ring */
	void **pslots;	     /* pchunk's slots */
	conq__spsc_la_chunk *pchunk;
	conq__spsc_la_chunk *pres; /* P-private chunks reserved by offer_bulk */
	uint64_t pfull; /* bounded: the last cidx read found it nearly full */
	conq_eventcount nonempty; /* take() waits here; P notifies */
	CONQ__PAD_AFTER(pad_prod, CONQ__IDX_FIELDS(4) + 4 * sizeof(uint64_t) +
				      3 * sizeof(void *));

	/* Consumer-hot: written only by C. */
	conq__idx_t cidx; /* next index to read; read by P, size() */
	uint64_t cpos;	  /* cidx's slot in cchunk */
	uint64_t tpos;	  /* first consumed slot not yet cleared */
	uint64_t pending; /* consumed slots not yet cleared, < cbatch */
	uint64_t cring;	  /* cchunk->ring */
	uint64_t cbatch;  /* cchunk->batch */
	void **cslots;	  /* cchunk's slots */
	conq__spsc_la_chunk *cchunk;
	/* put() waits here (bounded kinds); C notifies, bounded kinds only:
	 * an unbounded kind's put never waits (conq__spsc_la_consumed). */
	conq_eventcount nonfull;
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(1) + 6 * sizeof(uint64_t) +
				      2 * sizeof(void *));

	/* The spare chunk (chunked, unbounded): C publishes a retired, zeroed
	 * chunk here ([SL10]), P takes it when it links ([SL11]). */
	conq__spsc_la_chunk *spare;
	CONQ__PAD_AFTER(pad_spare, sizeof(void *));

	/* C-private: retired, zeroed chunks cooling before they may become
	 * the spare (conq__cold, impl/layout.h; chunked and unbounded). */
	conq__cold cold;
	CONQ__PAD_AFTER(pad_cold_list, sizeof(conq__cold));
};

CONQ__STATIC_ASSERT(offsetof(conq__spsc_la, pidx) % CONQ_PAD == 0,
		    "producer fields start a padded block");
CONQ__STATIC_ASSERT(offsetof(conq__spsc_la, cidx) % CONQ_PAD == 0,
		    "consumer fields start a padded block");
CONQ__STATIC_ASSERT(offsetof(conq__spsc_la, spare) % CONQ_PAD == 0,
		    "the spare starts a padded block");

/* Compiled cold paths (src/spsc_la.c). */
/* P: link a new chunk after pchunk (taken from pres, the spare, or the
 * allocator) and move to it; false with errno = ENOMEM, nothing changed. */
bool conq__spsc_la_link(conq__spsc_la *q);
/* C: the chunk C just left (it read its JUMP at slot jpos; the pending
 * consumed slots from tpos on were not cleared): to the spare, or freed. */
void conq__spsc_la_retire(conq__spsc_la *q, conq__spsc_la_chunk *ch,
			  uint64_t jpos, uint64_t tpos, uint64_t pending);
/* P: offer_bulk when the cached limit is short. */
size_t conq__spsc_la_offer_bulk_slow(conq__spsc_la *q, void *const *es,
				     size_t n);
/* Constructor and destructor of the core (the families wrap them). */
conq__spsc_la *conq__spsc_la_create(unsigned kind, size_t chunk, size_t max,
				    const conq_allocator *a);
void conq__spsc_la_destroy(conq__spsc_la *q);
void conq__spsc_la_test_start(conq__spsc_la *q, uint64_t start);

static inline void **conq__spsc_la_slots(const conq__spsc_la_chunk *ch)
{
	return (void **)((uintptr_t)ch + sizeof(conq__spsc_la_chunk));
}

/* P: is the slot `ahead` (< pring) positions past ppos cleared? Then every
 * slot from ppos to it is free: the consumer clears in index order, after
 * reading, and a slot of the chunk's first lap was never written. */
static inline bool conq__spsc_la_cleared(const conq__spsc_la *q, uint64_t ahead)
{
	uint64_t pos = q->ppos + ahead;
	if (pos >= q->pring)
		pos -= q->pring;
	/* [SL8] acquire: pairs with [SL7] (the consumer's release of the
	 * clear): its reads and clears of this slot and every earlier one
	 * happen-before we overwrite them. */
	return conq__load_acquire(&q->pslots[pos]) == NULL;
}

/* P, final chunk: the slot `ahead` (< pring) past pidx p last held index
 * p + ahead - ring. True iff that index is one of this chunk's (>= pstart;
 * an older one was never written here, so its NULL proves nothing about
 * cidx: older elements may still sit in older chunks) and is cleared. */
static inline bool conq__spsc_la_seen(const conq__spsc_la *q, conq__idx_t p,
				      uint64_t ahead)
{
	conq__idx_t prev = conq__idx_sub(conq__idx_add(p, ahead), q->pring);
	if (conq__idx_diff(prev, q->pstart) < 0)
		return false;
	return conq__spsc_la_cleared(q, ahead);
}

/* P, final chunk (ring = max + B): conq_spsc_array's three looks. */
static inline uint64_t
conq__spsc_la_refresh_final(conq__spsc_la *q, const conq__spsc_la_chunk *ch,
			    conq__idx_t p, uint64_t want)
{
	/* Past the first lap every slot was written here: keep pstart within
	 * a ring of p, so that narrow index builds (CONQ_INDEX_BITS) never see
	 * it half a range old. */
	if ((uint64_t)conq__idx_diff(p, q->pstart) > q->pring)
		q->pstart = conq__idx_sub(p, q->pring);
	if (want < ch->look &&
	    conq__spsc_la_seen(q, p, ch->look + ch->batch - 1)) {
		q->plimit = conq__idx_add(p, ch->look);
		return ch->look;
	}
	if (want <= q->max && conq__spsc_la_seen(q, p, want - 1 + ch->batch)) {
		q->plimit = conq__idx_add(p, want);
		return want;
	}
	/* [SL3] acquire: pairs with [SL4] (the consumer's release of cidx):
	 * the consumer read and cleared every slot of this chunk below
	 * cidx - B + 1 before it, so indices below cidx + max are free. */
	conq__idx_t c = conq__load_acquire(&q->cidx);
	conq__sidx_t avail = conq__idx_diff(conq__idx_add(c, q->max), p);
	if (avail <= 0)
		return 0;
	q->plimit = conq__idx_add(c, q->max);
	return (uint64_t)avail;
}

/* The bounded queue's "nearly full": at most max >> CONQ__SPSC_LA_NEAR_SHIFT
 * (1/64 of the capacity) free. A producer (of a non-final chunk) whose last
 * read of cidx found it so waits CONQ__SPSC_LA_NEAR_GAP ns of pauses
 * (conq__watch_gap) before the next read. Why: C stores cidx per element,
 * and each read of it by P costs C a line transfer at its next store. A
 * queue that runs full (the producer faster) was refreshed 37 times per
 * 1,000 elements, each for a few slots, and ran at 0.45x conq_spsc_array;
 * with the wait the consumer frees ~500 slots meanwhile, reads fall to 1 per
 * 1,000 and it ran at 0.97x (chunk 1K, max 128K, Intel guest,
 * scripts/spsc-la-regimes.c; docs/benchmarks.md, "The chunked queue's
 * regimes"). The wait only
 * delays an offer into a queue at least 63/64 full: its element then waits
 * behind max - max/64 others anyway. Strict offer stays exact: the wait
 * comes before the read that decides. */
#ifndef CONQ__SPSC_LA_NEAR_GAP
#define CONQ__SPSC_LA_NEAR_GAP 1400u
#endif
#ifndef CONQ__SPSC_LA_NEAR_SHIFT
#define CONQ__SPSC_LA_NEAR_SHIFT 6
#endif

/* P, slow path: the cached limit allows fewer than `want` (>= 1) offers from
 * pidx p. Returns the slots now writable in pchunk from ppos on (0: full, or
 * errno = ENOMEM when a needed chunk could not be had); may be fewer than
 * want. May link a chunk (and allocate). */
static CONQ__NOINLINE uint64_t conq__spsc_la_refresh(conq__spsc_la *q,
						     conq__idx_t p,
						     uint64_t want)
{
	const conq__spsc_la_chunk *ch = q->pchunk;
	if (ch->final)
		return conq__spsc_la_refresh_final(q, ch, p, want);
	uint64_t qa = UINT64_MAX;
	if (q->max != 0) {
		conq__sidx_t r = conq__idx_diff(q->pqlimit, p);
		if (r <= 0 || (uint64_t)r < want) {
			/* The last read found the queue nearly full: wait
			 * first (CONQ__SPSC_LA_NEAR_GAP above). */
			if (q->pfull)
				conq__watch_gap(CONQ__SPSC_LA_NEAR_GAP);
			/* [SL3] acquire: pairs with [SL4]; every index
			 * below cidx was consumed, so cidx + max - p more
			 * fit under the capacity. */
			conq__idx_t c = conq__load_acquire(&q->cidx);
			q->pqlimit = conq__idx_add(c, q->max);
			r = conq__idx_diff(q->pqlimit, p);
			q->pfull =
			    r <=
			    (conq__sidx_t)(q->max >> CONQ__SPSC_LA_NEAR_SHIFT);
			if (r <= 0)
				return 0;
		}
		qa = (uint64_t)r;
	}
	/* Keep pstart within a ring of p (so that narrow index builds never
	 * see it half a range old): past the first lap it only has to say
	 * "not the first lap". refresh runs at least once a lap. */
	if ((uint64_t)conq__idx_diff(p, q->pstart) > q->pring)
		q->pstart = conq__idx_sub(p, q->pring);
	uint64_t a;
	if ((uint64_t)conq__idx_diff(p, q->pstart) < q->pring &&
	    q->ppos + 1 < q->pring)
		/* The chunk's first lap: the slots from ppos to the end were
		 * never written since the chunk was zeroed (new, or recycled
		 * by C: [SL11]), so they are free without a look; the last
		 * stays the reserve. Without this, the last `look` slots of
		 * every chunk of a queue that runs full were granted one at
		 * a time (the look wraps onto this lap's own elements):
		 * 250 refreshes per 1,000 offers at chunk 1K. */
		a = q->pring - 1 - q->ppos;
	else if (want > ch->look && want < ch->ring &&
		 conq__spsc_la_cleared(q, want))
		a = want;
	else if (conq__spsc_la_cleared(q, ch->look))
		a = ch->look;
	else if (ch->look > 1 && conq__spsc_la_cleared(q, 1))
		a = 1;
	else if (conq__spsc_la_link(q))
		a = q->pring - 1; /* the new chunk: all but the reserve */
	else
		return 0; /* errno = ENOMEM */
	if (a > qa)
		a = qa;
	q->plimit = conq__idx_add(p, a);
	return a;
}

/* P: slots writable without looking, refreshing if fewer than want. */
static inline uint64_t conq__spsc_la_free(conq__spsc_la *q, conq__idx_t p,
					  uint64_t want)
{
	conq__sidx_t d = conq__idx_diff(q->plimit, p);
	uint64_t avail = d > 0 ? (uint64_t)d : 0;
	if (avail < want)
		avail = conq__spsc_la_refresh(q, p, want);
	return avail;
}

/* P: write n (<= free) elements from es[] at pidx p and publish them: slots
 * 1..n-1 relaxed, slot 0 last with release, as conq_spsc_array. */
static inline void conq__spsc_la_put(conq__spsc_la *q, conq__idx_t p,
				     void *const *es, uint64_t n)
{
	void **slots = q->pslots;
	uint64_t first = q->ppos, pos = first, ring = q->pring;
	for (uint64_t i = 1; i < n; i++) {
		if (++pos == ring)
			pos = 0;
		/* relaxed: published by [SL1] of the batch's first slot. */
		conq__store_relaxed(&slots[pos], es[i]);
	}
	if (++pos == ring)
		pos = 0;
	q->ppos = pos;
	/* [SL1] release: publishes the element(s) and everything P wrote
	 * before; pairs with [SL2] (the consumer's acquire of the slot). */
	conq__store_release(&slots[first], es[0]);
	/* [SL5] release: pairs with [SL6] (size/is_empty). */
	conq__store_release(&q->pidx, conq__idx_add(p, n));
}

/* P, after a call's last conq__spsc_la_put (its [SL1] and [SL5]): wake a
 * take() that may wait. Once per offer call, not per put: the calls that
 * put a segment per chunk (offer_bulk, offer_burst) run no caller code in
 * between, so one notify after the last covers them. fill, which calls fn
 * between its segments, notifies after each. */
static inline void conq__spsc_la_published(conq__spsc_la *q)
{
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
}

static inline bool conq__spsc_la_offer(conq__spsc_la *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	conq__idx_t p = q->pidx;
	if (CONQ__UNLIKELY(conq__idx_diff(q->plimit, p) <= 0) &&
	    conq__spsc_la_refresh(q, p, 1) == 0)
		return false;
	void *es[1] = {e};
	conq__spsc_la_put(q, p, es, 1);
	conq__spsc_la_published(q);
	return true;
}

/* C: follow the JUMP at cpos: move to the next chunk (position 0) and
 * retire the old one. The old chunk's pending clears are moot. */
static CONQ__NOINLINE void conq__spsc_la_follow(conq__spsc_la *q)
{
	conq__spsc_la_chunk *old = q->cchunk;
	/* relaxed: ordered by [SL2], the acquire that read the JUMP, after
	 * [SL9], which P made after storing next. */
	conq__spsc_la_chunk *n = conq__load_relaxed(&old->next);
	CONQ__TEST_PAUSE(); /* between reading the link and retiring */
	uint64_t jpos = q->cpos, tpos = q->tpos, pending = q->pending;
	q->cchunk = n;
	q->cslots = conq__spsc_la_slots(n);
	q->cring = n->ring;
	q->cbatch = n->batch;
	q->cpos = 0;
	q->tpos = 0;
	q->pending = 0;
	conq__spsc_la_retire(q, old, jpos, tpos, pending);
}

/* C: the element at cidx, or NULL if P has not written it; follows a JUMP
 * (a new chunk's first slot is never a JUMP: P writes it before it can
 * link again). */
static inline void *conq__spsc_la_head(conq__spsc_la *q)
{
	/* [SL2] acquire: pairs with [SL1] (an element) and [SL9] (a JUMP). */
	void *e = conq__load_acquire(&q->cslots[q->cpos]);
	if (CONQ__UNLIKELY(e == CONQ__SPSC_LA_JUMP)) {
		conq__spsc_la_follow(q);
		/* [SL2] acquire: pairs with [SL1]. */
		e = conq__load_acquire(&q->cslots[0]);
	}
	return e;
}

/* C: consume n elements from cidx on, in cchunk (already read): clears in
 * batches of B, in index order, then publishes cidx. */
static inline void conq__spsc_la_advance(conq__spsc_la *q, uint64_t n)
{
	void **slots = q->cslots;
	uint64_t ring = q->cring;
	uint64_t pos = q->cpos + n;
	if (pos >= ring)
		pos -= ring;
	q->cpos = pos;
	q->pending += n;
	if (q->pending >= q->cbatch) {
		uint64_t t = q->tpos;
		for (uint64_t i = 0; i < q->pending; i++) {
			/* [SL7] release: pairs with [SL8]: our reads of this
			 * slot and every earlier one, and the earlier clears,
			 * happen-before P overwrites them. */
			conq__store_release(&slots[t], (void *)NULL);
			if (++t == ring)
				t = 0;
		}
		q->tpos = t;
		q->pending = 0;
	}
	/* [SL4] release: pairs with [SL3]. */
	conq__store_release(&q->cidx, conq__idx_add(q->cidx, n));
}

/* C, after a call's last conq__spsc_la_advance (its [SL4]): wake a put()
 * that may wait. cidx is what P reads to decide "full" ([SL3] in every
 * refresh: the non-final chunks' queue limit, the final chunk's, and
 * offer_bulk's); the clears ([SL7]) come before it, and following a JUMP
 * frees no capacity (a chunk P lacks is linked or allocated, never waited
 * for). Bounded kinds only: nobody waits on an unbounded kind's nonfull, and
 * q->max (read-mostly, never written) spares it the notify, which in the
 * eventcount's read-modify-write mode (no membarrier) is an atomic RMW.
 * Once per poll and poll_burst call (poll_burst runs no caller code between
 * its per-chunk advances); drain, which calls fn between elements, publishes
 * cidx and notifies per element, through poll, as conq_spsc_array's. */
static inline void conq__spsc_la_consumed(conq__spsc_la *q)
{
	if (q->max != 0)
		conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
}

static inline void *conq__spsc_la_poll(conq__spsc_la *q)
{
	void *e = conq__spsc_la_head(q);
	if (e != NULL) {
		conq__spsc_la_advance(q, 1);
		conq__spsc_la_consumed(q);
	}
	return e;
}

static inline size_t conq__spsc_la_capacity(const conq__spsc_la *q)
{
	return q->max != 0 ? (size_t)q->max : CONQ_UNBOUNDED;
}

static inline size_t conq__spsc_la_size(const conq__spsc_la *q)
{
	/* [SL6] acquire (all three): pair with [SL4] and [SL5]. Indices only:
	 * no chunk is read. */
	return conq__indexed_size(&q->cidx, &q->pidx,
				  q->max != 0 ? q->max : UINT64_MAX);
}

static inline bool conq__spsc_la_is_empty(const conq__spsc_la *q)
{
	/* [SL6] acquire: pairs with [SL4], then [SL5]. */
	conq__idx_t c = conq__load_acquire(&q->cidx);
	return conq__idx_diff(conq__load_acquire(&q->pidx), c) <= 0;
}

static inline size_t conq__spsc_la_offer_bulk(conq__spsc_la *q, void *const *es,
					      size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (CONQ__UNLIKELY(es[i] == NULL)) {
			errno = EINVAL;
			return 0;
		}
	if (n == 0)
		return 0;
	conq__idx_t p = q->pidx;
	conq__sidx_t d = conq__idx_diff(q->plimit, p);
	if (d > 0 && (uint64_t)d >= n) {
		conq__spsc_la_put(q, p, es, n);
		conq__spsc_la_published(q);
		return n;
	}
	return conq__spsc_la_offer_bulk_slow(q, es, n); /* notifies itself */
}

static inline size_t conq__spsc_la_offer_burst(conq__spsc_la *q,
					       void *const *es, size_t n)
{
	size_t done = 0;
	while (done < n) {
		conq__idx_t p = q->pidx;
		uint64_t k = conq__spsc_la_free(q, p, n - done);
		if (k == 0)
			break;
		if (k > n - done)
			k = n - done;
		uint64_t i = 0;
		while (i < k && CONQ__LIKELY(es[done + i] != NULL))
			i++;
		if (i)
			conq__spsc_la_put(q, p, es + done, i);
		done += (size_t)i;
		if (CONQ__UNLIKELY(i < k)) {
			errno = EINVAL;
			break;
		}
	}
	if (done)
		conq__spsc_la_published(q);
	return done;
}

static inline size_t conq__spsc_la_poll_burst(conq__spsc_la *q, void **out,
					      size_t n)
{
	size_t k = 0;
	while (k < n) {
		void **slots = q->cslots;
		uint64_t pos = q->cpos, ring = q->cring, m = 0;
		void *e = NULL;
		while (k + m < n) {
			/* [SL2] acquire: pairs with [SL1] or [SL9]. */
			e = conq__load_acquire(&slots[pos]);
			if (e == NULL || e == CONQ__SPSC_LA_JUMP)
				break;
			out[k + m++] = e;
			if (++pos == ring)
				pos = 0;
		}
		if (m) {
			conq__spsc_la_advance(q, m);
			k += (size_t)m;
		}
		if (k < n && e == CONQ__SPSC_LA_JUMP)
			conq__spsc_la_follow(q);
		else
			break;
	}
	if (k)
		conq__spsc_la_consumed(q);
	return k;
}

static inline size_t conq__spsc_la_drain(conq__spsc_la *q, conq_consume_fn fn,
					 void *ctx, size_t limit)
{
	size_t k = 0;
	void *e;
	while (k < limit && (e = conq__spsc_la_poll(q)) != NULL) {
		fn(ctx, e);
		k++;
	}
	return k;
}

static inline size_t conq__spsc_la_fill(conq__spsc_la *q, conq_supply_fn fn,
					void *ctx, size_t limit)
{
	size_t total = 0;
	while (total < limit) {
		conq__idx_t p = q->pidx;
		uint64_t k = conq__spsc_la_free(q, p, limit - total);
		if (k == 0)
			break;
		if (k > limit - total)
			k = limit - total;
		void **slots = q->pslots;
		uint64_t first = q->ppos, pos = first, ring = q->pring, n = 0;
		void *head = NULL;
		while (n < k) {
			void *e = fn(ctx);
			if (e == NULL)
				break;
			if (n == 0)
				head = e;
			else
				/* relaxed: published by [SL1] below. */
				conq__store_relaxed(&slots[pos], e);
			n++;
			if (++pos == ring)
				pos = 0;
		}
		if (n == 0)
			break;
		q->ppos = pos;
		/* [SL1] release: pairs with [SL2]; publishes the segment. */
		conq__store_release(&slots[first], head);
		/* [SL5] release: pairs with [SL6]. */
		conq__store_release(&q->pidx, conq__idx_add(p, n));
		/* Per segment (at most one per chunk the call writes into):
		 * fn runs before the next one, and a take() must not sleep
		 * through it beside elements it could have. */
		conq__spsc_la_published(q);
		total += (size_t)n;
		if (n < k)
			break; /* fn returned NULL */
	}
	return total;
}

/*
 * The public functions of family `fam` (struct conq_<fam> { conq__spsc_la
 * la; }), forwarding to the core. Each family's header states the contract.
 */
#define CONQ__SPSC_LA_FORWARD(fam)                                             \
	static inline bool conq_##fam##_offer(conq_##fam *q, void *e)          \
	{                                                                      \
		return conq__spsc_la_offer(&q->la, e);                         \
	}                                                                      \
	static inline bool conq_##fam##_relaxed_offer(conq_##fam *q, void *e)  \
	{                                                                      \
		return conq__spsc_la_offer(&q->la, e);                         \
	}                                                                      \
	static inline void *conq_##fam##_poll(conq_##fam *q)                   \
	{                                                                      \
		return conq__spsc_la_poll(&q->la);                             \
	}                                                                      \
	static inline void *conq_##fam##_relaxed_poll(conq_##fam *q)           \
	{                                                                      \
		return conq__spsc_la_poll(&q->la);                             \
	}                                                                      \
	static inline void *conq_##fam##_peek(conq_##fam *q)                   \
	{                                                                      \
		return conq__spsc_la_head(&q->la);                             \
	}                                                                      \
	static inline void *conq_##fam##_relaxed_peek(conq_##fam *q)           \
	{                                                                      \
		return conq__spsc_la_head(&q->la);                             \
	}                                                                      \
	static inline size_t conq_##fam##_capacity(const conq_##fam *q)        \
	{                                                                      \
		return conq__spsc_la_capacity(&q->la);                         \
	}                                                                      \
	static inline size_t conq_##fam##_size(const conq_##fam *q)            \
	{                                                                      \
		return conq__spsc_la_size(&q->la);                             \
	}                                                                      \
	static inline bool conq_##fam##_is_empty(const conq_##fam *q)          \
	{                                                                      \
		return conq__spsc_la_is_empty(&q->la);                         \
	}                                                                      \
	static inline size_t conq_##fam##_offer_bulk(                          \
	    conq_##fam *q, void *const *es, size_t n)                          \
	{                                                                      \
		return conq__spsc_la_offer_bulk(&q->la, es, n);                \
	}                                                                      \
	static inline size_t conq_##fam##_offer_burst(                         \
	    conq_##fam *q, void *const *es, size_t n)                          \
	{                                                                      \
		return conq__spsc_la_offer_burst(&q->la, es, n);               \
	}                                                                      \
	static inline size_t conq_##fam##_poll_burst(conq_##fam *q,            \
						     void **out, size_t n)     \
	{                                                                      \
		return conq__spsc_la_poll_burst(&q->la, out, n);               \
	}                                                                      \
	static inline size_t conq_##fam##_drain(                               \
	    conq_##fam *q, conq_consume_fn fn, void *ctx, size_t limit)        \
	{                                                                      \
		return conq__spsc_la_drain(&q->la, fn, ctx, limit);            \
	}                                                                      \
	static inline size_t conq_##fam##_fill(                                \
	    conq_##fam *q, conq_supply_fn fn, void *ctx, size_t limit)         \
	{                                                                      \
		return conq__spsc_la_fill(&q->la, fn, ctx, limit);             \
	}

#ifdef __cplusplus
}
#endif

#endif /* CONQ_IMPL_SPSC_LA_H */
