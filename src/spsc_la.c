/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Cold paths of the SPSC linked-array families (conq_spsc_chunked,
 * conq_spsc_growable, conq_spsc_unbounded): create, destroy, linking a chunk
 * (P), retiring one (C), offer_bulk across chunks, the test start hook.
 */
#include <errno.h>

#include "conq/spsc_chunked.h"
#include "conq/spsc_growable.h"
#include "conq/spsc_unbounded.h"
#include "conq/impl/testing.h"
#include "internal.h"

#define SPSC_LA_MAX_BATCH 32u
#define SPSC_LA_MAX_LOOK  4096u

const char conq__spsc_la_jump_mark = 'J';

/* The final chunk's ring is max + B; index differences up to that apart. */
CONQ__STATIC_ASSERT((uint64_t)CONQ_ARRAY_MAX_CAPACITY + SPSC_LA_MAX_BATCH <
			CONQ__IDX_HALF,
		    "capacity + batch keeps index differences unambiguous");

static const conq_allocator *la_alloc(const conq__spsc_la *q)
{
	return q->has_alloc ? &q->alloc : NULL;
}

static uint64_t la_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t la_ring(uint64_t cap, uint64_t final)
{
	return final ? cap + la_min(SPSC_LA_MAX_BATCH, cap) : cap;
}

/* A new chunk of nominal size cap (>= 2 unless final), zeroed; NULL with
 * errno = ENOMEM. */
static conq__spsc_la_chunk *la_chunk_new(const conq__spsc_la *q, uint64_t cap,
					 uint64_t final)
{
	uint64_t ring = la_ring(cap, final);
	size_t bytes = sizeof(conq__spsc_la_chunk) +
		       (size_t)ring * sizeof(void *) + CONQ_PAD;
	conq__spsc_la_chunk *ch = (conq__spsc_la_chunk *)conq__alloc_with(
	    la_alloc(q), bytes, CONQ_PAD);
	if (ch == NULL)
		return NULL;
	ch->cap = cap;
	ch->ring = ring;
	ch->final = final;
	ch->bytes = bytes;
	if (final) {
		/* As conq_spsc_array: B = min(32, cap), ring = cap + B. */
		ch->batch = la_min(SPSC_LA_MAX_BATCH, cap);
	} else {
		/* A chunk given up as "full" with B - 1 clears pending still
		 * holds 7/8 of its ring. */
		ch->batch = la_min(SPSC_LA_MAX_BATCH, cap / 8);
		if (ch->batch == 0)
			ch->batch = 1;
	}
	ch->look = la_min(cap / 4, SPSC_LA_MAX_LOOK);
	if (ch->look == 0)
		ch->look = 1;
	return ch;
}

static void la_chunk_free(const conq__spsc_la *q, conq__spsc_la_chunk *ch)
{
	if (ch != NULL)
		conq__free_with(la_alloc(q), ch, ch->bytes);
}

/* The nominal size and finality of the chunk linked after one of `cap`. */
static void la_next_size(const conq__spsc_la *q, uint64_t cap, uint64_t *ncap,
			 uint64_t *nfinal)
{
	if (q->kind != CONQ__SPSC_LA_GROWABLE) {
		*ncap = q->chunk;
		*nfinal = 0;
		return;
	}
	uint64_t c = cap * 2;
	if (c >= q->max) {
		*ncap = q->max;
		*nfinal = 1;
	} else {
		*ncap = c;
		*nfinal = 0;
	}
}

/* Set every index to `start` and the limits relative to it; the queue is
 * empty and both sides sit at position 0 of their (same) chunk. */
static void la_reset(conq__spsc_la *q, uint64_t start)
{
	conq__spsc_la_chunk *ch = q->pchunk;
	/* A narrow index build (CONQ_INDEX_BITS) keeps start's low bits. */
	q->pidx = q->cidx = q->pstart = (conq__idx_t)start;
	q->ppos = q->cpos = q->tpos = q->pending = 0;
	q->pqlimit = conq__idx_add(q->pidx, q->max);
	uint64_t room;
	if (ch->final)
		room = q->max;
	else if (q->max != 0)
		room = la_min(ch->ring - 1, q->max);
	else
		room = ch->ring - 1;
	q->plimit = conq__idx_add(q->pidx, room);
}

conq__spsc_la *conq__spsc_la_create(unsigned kind, size_t chunk, size_t max,
				    const conq_allocator *a)
{
	size_t c = conq__array_round_capacity(chunk);
	size_t m = 0;
	if (kind != CONQ__SPSC_LA_UNBOUNDED) {
		m = conq__array_round_capacity(max);
		if (m == 0) {
			errno = EINVAL;
			return NULL;
		}
	}
	if (c == 0) {
		errno = EINVAL;
		return NULL;
	}
	if (c < 2)
		c = 2;
	uint64_t final = 0;
	if (kind == CONQ__SPSC_LA_CHUNKED && c > m)
		c = m < 2 ? 2 : m;
	if (kind == CONQ__SPSC_LA_GROWABLE && c >= m) {
		c = m;
		final = 1;
	}
	conq__spsc_la *q = (conq__spsc_la *)conq__alloc_with(
	    a, sizeof(conq__spsc_la), CONQ_PAD);
	if (q == NULL)
		return NULL;
	q->kind = kind;
	q->max = m;
	q->chunk = c;
	if (a != NULL) {
		q->alloc = *a;
		q->has_alloc = 1;
	}
	conq__spsc_la_chunk *ch = la_chunk_new(q, c, final);
	if (ch == NULL) {
		conq__free_with(a, q, sizeof(conq__spsc_la));
		return NULL;
	}
	q->pchunk = q->cchunk = ch;
	q->pslots = q->cslots = conq__spsc_la_slots(ch);
	q->pring = q->cring = ch->ring;
	q->cbatch = ch->batch;
	if (kind != CONQ__SPSC_LA_GROWABLE)
		conq__cold_init(&q->cold, ch->bytes);
	la_reset(q, 0);
	conq_eventcount_init(&q->nonempty, 0);
	conq_eventcount_init(&q->nonfull, 0);
	return q;
}

void conq__spsc_la_test_start(conq__spsc_la *q, uint64_t start)
{
	la_reset(q, start);
}

void conq__spsc_la_destroy(conq__spsc_la *q)
{
	if (q == NULL)
		return;
	conq__spsc_la_chunk *ch = q->cchunk;
	while (ch != NULL) {
		conq__spsc_la_chunk *n = conq__load_relaxed(&ch->next);
		la_chunk_free(q, ch);
		ch = n;
	}
	la_chunk_free(q, q->spare);
	while ((ch = (conq__spsc_la_chunk *)conq__cold_pop(&q->cold)) != NULL)
		la_chunk_free(q, ch);
	for (ch = q->pres; ch != NULL;) {
		conq__spsc_la_chunk *n = ch->next;
		la_chunk_free(q, ch);
		ch = n;
	}
	conq_allocator a = q->alloc;
	conq__free_with(q->has_alloc ? &a : NULL, q, sizeof(conq__spsc_la));
}

bool conq__spsc_la_link(conq__spsc_la *q)
{
	conq__spsc_la_chunk *old = q->pchunk;
	conq__spsc_la_chunk *n = q->pres;
	if (n != NULL) {
		q->pres = n->next;
		n->next = NULL;
	} else if (q->kind != CONQ__SPSC_LA_GROWABLE &&
		   conq__load_relaxed(&q->spare) != NULL) {
		/* [SL11] acquire: pairs with [SL10] (C's release of the
		 * spare): C's reads of the chunk and its zeroing
		 * happen-before our writes into it. Only C stores non-NULL
		 * here, so a non-NULL relaxed look is still non-NULL for
		 * the exchange. */
		n = conq__xchg_acquire(&q->spare, (conq__spsc_la_chunk *)NULL);
		CONQ__TEST_PAUSE(); /* a recycled chunk in hand */
	}
	if (n == NULL) {
		uint64_t ncap, nfinal;
		la_next_size(q, old->cap, &ncap, &nfinal);
		n = la_chunk_new(q, ncap, nfinal);
		if (n == NULL)
			return false; /* errno = ENOMEM */
	}
	/* relaxed: published by [SL9] below, which C acquires ([SL2]) before
	 * it reads next. */
	conq__store_relaxed(&old->next, n);
	/* Linked, not yet published: C sees the old chunk full. */
	CONQ__TEST_PAUSE();
	/* [SL9] release: pairs with [SL2] (C's acquire of the slot that reads
	 * the JUMP): the link, and every access of ours to the old chunk,
	 * happen-before C follows the link and frees or recycles the old
	 * chunk. Our last access to it: the slot at ppos was the reserve,
	 * free, so JUMP overwrites no element. */
	conq__store_release(&q->pslots[q->ppos], CONQ__SPSC_LA_JUMP);
	q->pchunk = n;
	q->pslots = conq__spsc_la_slots(n);
	q->pring = n->ring;
	q->ppos = 0;
	q->pstart = q->pidx;
	return true;
}

void conq__spsc_la_retire(conq__spsc_la *q, conq__spsc_la_chunk *ch,
			  uint64_t jpos, uint64_t tpos, uint64_t pending)
{
	if (q->kind == CONQ__SPSC_LA_GROWABLE || ch->cap != q->chunk) {
		la_chunk_free(q, ch);
		return;
	}
	/* P is done with it (it read the JUMP, [SL2] after [SL9]): zero it
	 * for reuse. Every slot but the JUMP and the `pending` consumed ones
	 * from tpos on is NULL already: each slot P wrote in this chunk held
	 * an element below the JUMP's index, which C consumed and cleared
	 * (batches of B) or left pending; a slot P never wrote was zeroed.
	 * So C clears those few, not the ring (test_spsc_la checks that a
	 * recycled chunk is all NULL). */
	void **slots = conq__spsc_la_slots(ch);
	for (uint64_t i = 0; i < pending; i++) {
		slots[tpos] = NULL;
		if (++tpos == ch->ring)
			tpos = 0;
	}
	slots[jpos] = NULL;
	conq__store_relaxed(&ch->next, (conq__spsc_la_chunk *)NULL);
	/* Let it cool (conq__cold): go on with the one that cooled, if any. */
	ch = (conq__spsc_la_chunk *)conq__cold_push(&q->cold, ch);
	if (ch == NULL)
		return;
	/* relaxed: only we store non-NULL; P only takes (stores NULL). A
	 * spare P takes right after this look only costs a recycle. */
	if (conq__load_relaxed(&q->spare) != NULL) {
		la_chunk_free(q, ch);
		return;
	}
	CONQ__TEST_PAUSE(); /* zeroed, not yet handed back */
	/* [SL10] release: pairs with [SL11] (P's acquire exchange): the
	 * zeroing and our reads of the chunk happen-before P writes into it. */
	conq__store_release(&q->spare, ch);
}

size_t conq__spsc_la_offer_bulk_slow(conq__spsc_la *q, void *const *es,
				     size_t n)
{
	conq__idx_t p = q->pidx;
	if (q->max != 0) {
		conq__sidx_t r = conq__idx_diff(q->pqlimit, p);
		/* The final chunk does not keep pqlimit: read cidx. */
		if (q->pchunk->final || r <= 0 || (uint64_t)r < n) {
			/* As in conq__spsc_la_refresh: after a read that
			 * found the queue nearly full, a gap before the next.
			 */
			if (q->pfull)
				conq__watch_gap(CONQ__SPSC_LA_NEAR_GAP);
			/* [SL3] acquire: pairs with [SL4]. */
			conq__idx_t c = conq__load_acquire(&q->cidx);
			q->pqlimit = conq__idx_add(c, q->max);
			r = conq__idx_diff(q->pqlimit, p);
			q->pfull =
			    r <=
			    (conq__sidx_t)(q->max >> CONQ__SPSC_LA_NEAR_SHIFT);
			if (r <= 0 || (uint64_t)r < n)
				return 0; /* fewer than n free: full */
		}
	}
	if (!q->pchunk->final) {
		/* Reserve, before writing anything, every chunk the n
		 * elements could need: the current chunk gives at least
		 * plimit - p more, each new one ring - 1. */
		conq__sidx_t d = conq__idx_diff(q->plimit, p);
		uint64_t have = d > 0 ? (uint64_t)d : 0;
		uint64_t cap = q->pchunk->cap, fin = 0;
		conq__spsc_la_chunk *head = NULL, **tail = &head;
		while (have < n && !fin) {
			uint64_t ncap;
			la_next_size(q, cap, &ncap, &fin);
			conq__spsc_la_chunk *ch = NULL;
			if (head == NULL && q->kind != CONQ__SPSC_LA_GROWABLE &&
			    conq__load_relaxed(&q->spare) != NULL)
				/* [SL11] acquire: pairs with [SL10]. */
				ch = conq__xchg_acquire(
				    &q->spare, (conq__spsc_la_chunk *)NULL);
			if (ch == NULL)
				ch = la_chunk_new(q, ncap, fin);
			if (ch == NULL) {
				while (head != NULL) {
					conq__spsc_la_chunk *x = head->next;
					la_chunk_free(q, head);
					head = x;
				}
				errno = ENOMEM;
				return 0;
			}
			*tail = ch;
			tail = &ch->next;
			have += ch->ring - 1;
			cap = ncap;
		}
		*tail = q->pres;
		q->pres = head;
	}
	size_t done = 0;
	while (done < n) {
		p = q->pidx;
		uint64_t k = conq__spsc_la_free(q, p, n - done);
		if (k == 0)
			break; /* not reached: the room and chunks are there */
		if (k > n - done)
			k = n - done;
		conq__spsc_la_put(q, p, es + done, k);
		done += (size_t)k;
	}
	if (done)
		conq__spsc_la_published(q);
	while (q->pres != NULL) {
		conq__spsc_la_chunk *x = q->pres->next;
		la_chunk_free(q, q->pres);
		q->pres = x;
	}
	return done;
}

conq_spsc_chunked *conq_spsc_chunked_create_with(size_t chunk,
						 size_t max_capacity,
						 const conq_allocator *a)
{
	return (conq_spsc_chunked *)(void *)conq__spsc_la_create(
	    CONQ__SPSC_LA_CHUNKED, chunk, max_capacity, a);
}

conq_spsc_chunked *conq_spsc_chunked_create(size_t chunk, size_t max_capacity)
{
	return conq_spsc_chunked_create_with(chunk, max_capacity, NULL);
}

void conq_spsc_chunked_destroy(conq_spsc_chunked *q)
{
	conq__spsc_la_destroy(q == NULL ? NULL : &q->la);
}

void conq__spsc_chunked_test_start(conq_spsc_chunked *q, uint64_t start)
{
	conq__spsc_la_test_start(&q->la, start);
}

conq_spsc_growable *conq_spsc_growable_create_with(size_t initial,
						   size_t max_capacity,
						   const conq_allocator *a)
{
	return (conq_spsc_growable *)(void *)conq__spsc_la_create(
	    CONQ__SPSC_LA_GROWABLE, initial, max_capacity, a);
}

conq_spsc_growable *conq_spsc_growable_create(size_t initial,
					      size_t max_capacity)
{
	return conq_spsc_growable_create_with(initial, max_capacity, NULL);
}

void conq_spsc_growable_destroy(conq_spsc_growable *q)
{
	conq__spsc_la_destroy(q == NULL ? NULL : &q->la);
}

void conq__spsc_growable_test_start(conq_spsc_growable *q, uint64_t start)
{
	conq__spsc_la_test_start(&q->la, start);
}

conq_spsc_unbounded *conq_spsc_unbounded_create_with(size_t chunk,
						     const conq_allocator *a)
{
	return (conq_spsc_unbounded *)(void *)conq__spsc_la_create(
	    CONQ__SPSC_LA_UNBOUNDED, chunk, 0, a);
}

conq_spsc_unbounded *conq_spsc_unbounded_create(size_t chunk)
{
	return conq_spsc_unbounded_create_with(chunk, NULL);
}

void conq_spsc_unbounded_destroy(conq_spsc_unbounded *q)
{
	conq__spsc_la_destroy(q == NULL ? NULL : &q->la);
}

void conq__spsc_unbounded_test_start(conq_spsc_unbounded *q, uint64_t start)
{
	conq__spsc_la_test_start(&q->la, start);
}
