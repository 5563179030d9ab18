/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Cold paths of the MPSC linked-array families (conq_mpsc_chunked,
 * conq_mpsc_growable, conq_mpsc_unbounded): create, destroy, the slow offer
 * (limit refresh and resize), fill, the consumer's chunk change and retire.
 * The protocol: include/conq/impl/mpsc_la.h and docs/memory-model.md.
 */
#include <errno.h>

#include "conq/mpsc_chunked.h"
#include "conq/mpsc_growable.h"
#include "conq/mpsc_unbounded.h"
#include "conq/impl/testing.h"
#include "internal.h"

const char conq__mpsc_la_jump = 0;

#define CONQ__MPSC_LA_MIN_UNBOUNDED 8u

static const conq_allocator *la_alloc(const conq__mpsc_la *q)
{
	return q->has_alloc ? &q->alloc : NULL;
}

static size_t chunk_bytes(uint64_t size)
{
	return sizeof(conq__mpsc_la_chunk) + (size_t)size * sizeof(void *);
}

/* A fresh chunk of `size` slots, all NULL, next NULL; NULL + ENOMEM. */
static conq__mpsc_la_chunk *chunk_new(const conq__mpsc_la *q, uint64_t size)
{
	conq__mpsc_la_chunk *ch = (conq__mpsc_la_chunk *)conq__alloc_with(
	    la_alloc(q), chunk_bytes(size), CONQ_CACHE_LINE);
	if (ch != NULL)
		ch->size = size; /* published with the chunk ([ML4]/[ML8]) */
	return ch;
}

static void chunk_free(const conq__mpsc_la *q, conq__mpsc_la_chunk *ch)
{
	if (ch != NULL)
		conq__free_with(la_alloc(q), ch, chunk_bytes(ch->size));
}

/* Usable slots of a chunk of `size` slots in queue q. */
static uint64_t chunk_usable(const conq__mpsc_la *q, uint64_t size)
{
	/* Growable's final chunk (size max) never resizes: no JUMP slot. */
	if (q->kind == CONQ__MPSC_LA_GROWABLE && size >= q->max)
		return size;
	return size - 1;
}

/* Any thread that owns `ch` (not in the queue, every slot NULL, next NULL):
 * make it the spare (chunked, unbounded); a spare already there is freed. */
static void spare_put(conq__mpsc_la *q, conq__mpsc_la_chunk *ch)
{
	if (q->kind == CONQ__MPSC_LA_GROWABLE || ch->size != q->chunk) {
		chunk_free(q, ch);
		return;
	}
	/* [ML11] exchange acq_rel: pairs with [ML11] (the taker's exchange):
	 * our reset of the chunk happens before its reuse. */
	conq__mpsc_la_chunk *old = conq__xchg_acq_rel(&q->spare, ch);
	chunk_free(q, old);
}

/* The spare or a fresh standard chunk; NULL + ENOMEM. */
static conq__mpsc_la_chunk *chunk_take(conq__mpsc_la *q)
{
	/* [ML11] exchange acq_rel: pairs with [ML11] in spare_put. */
	conq__mpsc_la_chunk *ch =
	    conq__xchg_acq_rel(&q->spare, (conq__mpsc_la_chunk *)NULL);
	if (ch == NULL)
		ch = chunk_new(q, q->chunk);
	return ch;
}

static uint64_t pow2_at_least(uint64_t n)
{
	uint64_t c = 1;
	while (c < n)
		c <<= 1;
	return c;
}

conq__mpsc_la *conq__mpsc_la_create(unsigned kind, size_t chunk, size_t max,
				    const conq_allocator *a)
{
	uint64_t c = conq__array_round_capacity(chunk);
	uint64_t m = kind == CONQ__MPSC_LA_UNBOUNDED
			 ? CONQ__MPSC_LA_UNBOUNDED_MAX
			 : conq__array_round_capacity(max);
	if (c == 0 || m == 0) {
		errno = EINVAL;
		return NULL;
	}
	uint64_t first;
	if (kind == CONQ__MPSC_LA_GROWABLE) {
		first = c < m ? c : m;
		if (first < 2 && m >= 2)
			first = 2;
	} else {
		if (kind == CONQ__MPSC_LA_CHUNKED && c > m)
			c = m;
		if (c < 2)
			c = 2; /* one usable slot and the JUMP slot */
		/* Unbounded: at least CONQ__MPSC_LA_MIN_UNBOUNDED slots, so
		 * that a resize (and an allocation) comes at most every 7
		 * elements, not every element. */
		if (kind == CONQ__MPSC_LA_UNBOUNDED &&
		    c < CONQ__MPSC_LA_MIN_UNBOUNDED)
			c = CONQ__MPSC_LA_MIN_UNBOUNDED;
		first = c;
	}
	conq__mpsc_la *q = (conq__mpsc_la *)conq__alloc_with(
	    a, sizeof(conq__mpsc_la), CONQ_PAD);
	if (q == NULL)
		return NULL;
	q->max = m;
	q->chunk = c;
	q->kind = kind;
	q->capacity = kind == CONQ__MPSC_LA_UNBOUNDED ? CONQ_UNBOUNDED
						      : (size_t)m;
	if (a != NULL) {
		q->has_alloc = 1;
		q->alloc = *a;
	}
	conq__mpsc_la_chunk *ch = chunk_new(q, first);
	if (ch == NULL) {
		conq__free_with(a, q, sizeof(conq__mpsc_la));
		return NULL;
	}
	/* No other thread sees q before create returns: plain stores. */
	q->pbuf = q->cbuf = ch;
	q->pmask = q->cmask = first - 1;
	q->pusable = chunk_usable(q, first);
	q->pidx = q->cidx = 0;
	q->plimit = conq__idx_add(0, 2 * q->pusable);
	conq_eventcount_init(&q->nonempty, 0);
	conq_eventcount_init(&q->nonfull, 0);
	return q;
}

void conq__mpsc_la_destroy(conq__mpsc_la *q)
{
	if (q == NULL)
		return;
	conq__mpsc_la_chunk *ch = q->cbuf;
	while (ch != NULL) {
		conq__mpsc_la_chunk *next = ch->next;
		chunk_free(q, ch);
		ch = next;
	}
	chunk_free(q, q->spare);
	conq_allocator a = q->alloc;
	conq__free_with(q->has_alloc ? &a : NULL, q, sizeof(conq__mpsc_la));
}

void conq__mpsc_la_test_start(conq__mpsc_la *q, uint64_t start)
{
	/* A narrow index build keeps start's low bits (as 2 * start's). */
	q->pidx = q->cidx = (conq__idx_t)(2 * start);
	q->plimit = conq__idx_add(q->pidx, 2 * q->pusable);
}

void *conq__mpsc_la_wait(const conq__mpsc_la *q, void **slot)
{
	unsigned spins = 0;
	for (;;) {
		/* [ML2] acquire: pairs with [ML1] / [ML8] of the producer
		 * that claimed this index; it is past its CAS and will
		 * store. */
		void *e = conq__load_acquire(slot);
		if (e != NULL)
			return e;
		/* [ML9] acquire: pairs with [ML4]. A resize that failed to
		 * allocate rolls pidx back to cidx: nothing will come, the
		 * queue is empty. */
		if (conq__load_acquire(&q->pidx) == q->cidx)
			return NULL;
		conq__wait_backoff(&spins);
	}
}

void **conq__mpsc_la_follow(conq__mpsc_la *q, void **slot, conq__idx_t c)
{
	conq__mpsc_la_chunk *old = q->cbuf;
	/* relaxed: the resizer stored next before its JUMP [ML8], which our
	 * acquire [ML2] of the slot read. */
	conq__mpsc_la_chunk *next = conq__load_relaxed(&old->next);
	/* A producer may still hold a stale pbuf == old (its CAS fails). */
	CONQ__TEST_PAUSE();
	/* relaxed: old is ours now; its reuse is ordered by [ML11]. */
	conq__store_relaxed(slot, (void *)NULL);
	conq__store_relaxed(&old->next, (conq__mpsc_la_chunk *)NULL);
	q->cbuf = next;
	q->cmask = next->size - 1;
	/* Retire old: every element claimed in it is below the JUMP index,
	 * so it was consumed (and written) before we reached the JUMP; the
	 * resizer's JUMP store was its last access; producers that read pbuf
	 * == old and then lost their CAS never dereference it. Every slot is
	 * NULL again (cleared per poll, the JUMP just above). */
	spare_put(q, old);
	return &conq__mpsc_la_slots(next)[conq__mpsc_la_off(c, q->cmask)];
}

/*
 * P, holding the resize (pidx == p + 1, set by our CAS): link new chunk(s)
 * holding the m elements es[0..m-1] at indices p, p + 2, ...; c is a cidx
 * read after p. Chunked/unbounded chain ceil(m / u) standard chunks (one
 * when m <= u, as offer and burst always ask); growable links one chunk, at
 * least twice the current one and large enough for m, at most max. *pre: a
 * chunk fill obtained before asking its supplier; used when it fits.
 * Returns m, or 0 after rolling pidx back to p when memory ran out.
 */
static size_t la_resize(conq__mpsc_la *q, conq__idx_t p, conq__idx_t c,
			void *const *es, uint64_t m, conq__mpsc_la_chunk **pre)
{
	/* relaxed: stable while we hold the resize; the previous resizer's
	 * stores are visible through [ML3] (our CAS read its [ML4]). */
	conq__mpsc_la_chunk *old = conq__load_relaxed(&q->pbuf);
	uint64_t oldmask = conq__load_relaxed(&q->pmask);
	conq__mpsc_la_chunk *first, *last;
	conq__idx_t rlast;
	uint64_t ulast;

	if (q->kind == CONQ__MPSC_LA_GROWABLE) {
		uint64_t size = 2 * (oldmask + 1);
		uint64_t need = pow2_at_least(m + 1);
		if (size < need)
			size = need;
		if (size > q->max)
			size = q->max;
		conq__mpsc_la_chunk *ch = NULL;
		if (pre != NULL && *pre != NULL) {
			if ((*pre)->size >= size)
				ch = *pre;
			else
				chunk_free(q, *pre);
			*pre = NULL;
		}
		if (ch == NULL)
			ch = chunk_new(q, size);
		if (ch == NULL) {
			/* [ML4] release: the rollback; nothing was published
			 * (pbuf, limit, the old chunk untouched). */
			conq__store_release(&q->pidx, p);
			return 0;
		}
		ulast = chunk_usable(q, ch->size);
		conq__mpsc_la_put(ch, ch->size - 1, p, es, m);
		first = last = ch;
		rlast = p;
	} else {
		uint64_t u = q->chunk - 1;
		uint64_t k = (m + u - 1) / u;
		first = NULL;
		if (pre != NULL && *pre != NULL) {
			first = *pre;
			*pre = NULL;
		} else {
			first = chunk_take(q);
		}
		if (first == NULL) {
			/* [ML4] release: the rollback, as above. */
			conq__store_release(&q->pidx, p);
			return 0;
		}
		last = first;
		for (uint64_t j = 1; j < k; j++) {
			conq__mpsc_la_chunk *ch = chunk_new(q, q->chunk);
			if (ch == NULL) {
				while (first != NULL) {
					conq__mpsc_la_chunk *nx = first->next;
					first->next = NULL;
					spare_put(q, first);
					first = nx;
				}
				/* [ML4] release: the rollback, as above. */
				conq__store_release(&q->pidx, p);
				return 0;
			}
			last->next = ch; /* private until [ML8] */
			last = ch;
		}
		/* Chunk j holds elements j*u .. j*u + u - 1 of the batch and,
		 * but for the last, a JUMP after them. */
		conq__mpsc_la_chunk *ch = first;
		conq__idx_t s = p;
		uint64_t done = 0;
		for (;;) {
			uint64_t cnt = m - done < u ? m - done : u;
			conq__mpsc_la_put(ch, q->chunk - 1, s, es + done, cnt);
			done += cnt;
			if (done == m)
				break;
			s = conq__idx_add(s, 2 * cnt);
			/* relaxed: published by [ML8] in the old chunk, which
			 * the consumer meets first. */
			conq__store_relaxed(
			    &conq__mpsc_la_slots(ch)[conq__mpsc_la_off(
				s, q->chunk - 1)],
			    CONQ__MPSC_LA_JUMP);
			ch = ch->next;
		}
		rlast = s;
		ulast = u;
	}
	/* The new limit: the last chunk's room, at most the capacity. */
	conq__idx_t limit = conq__idx_add(rlast, 2 * ulast);
	conq__idx_t climit = conq__idx_add(c, 2 * q->max);
	if (conq__idx_diff(climit, limit) < 0)
		limit = climit;
	/* relaxed: published by [ML5] / [ML4] below; a producer reads them
	 * only after an acquire of plimit or pidx, and trusts them only
	 * after a successful CAS from an even pidx >= p + 2m. */
	conq__store_relaxed(&q->pbuf, last);
	conq__store_relaxed(&q->pmask, last->size - 1);
	conq__store_relaxed(&q->pusable, ulast);
	/* [ML5] release: pairs with [ML5] (producers' acquire of plimit):
	 * pusable read after it is this chunk's or a later one's. */
	conq__store_release(&q->plimit, limit);
	/* Resize held: producers wait, the consumer meets a bubble. */
	CONQ__TEST_PAUSE();
	/* relaxed: published by [ML8]. */
	conq__store_relaxed(&old->next, first);
	/* [ML4] release: pairs with [ML3] (producers' acquire and CAS of
	 * pidx) and [ML9]/[ML10]: the end of the resize; pbuf, pmask,
	 * pusable and plimit stored above are visible to whoever claims
	 * from here on. */
	conq__store_release(&q->pidx, conq__idx_add(p, 2 * m));
	/* pidx moved on, the JUMP not stored yet: the consumer waits. */
	CONQ__TEST_PAUSE();
	/* [ML8] release: pairs with [ML2] (the consumer's acquire of the
	 * slot): the new chunk(s), their elements and old->next are visible
	 * when the consumer meets JUMP. The slot is free: it last held index
	 * p - 2C (C = old's size), which was consumed, since every claim in
	 * old was below a limit of at most cidx + 2(C - 1) (or old is new to
	 * this position: then the slot was never used in it). This is our
	 * last access to old. */
	conq__store_release(&conq__mpsc_la_slots(old)[conq__mpsc_la_off(
				p, oldmask)],
			    CONQ__MPSC_LA_JUMP);
	return (size_t)m;
}

/* P: claim m elements at p in the current chunk (CAS) and write them. */
static bool la_claim(conq__mpsc_la *q, conq__idx_t p, void *const *es,
		     uint64_t m)
{
	conq__mpsc_la_chunk *ch = conq__load_relaxed(&q->pbuf);
	uint64_t mask = conq__load_relaxed(&q->pmask);
	CONQ__TEST_PAUSE(); /* as in conq__mpsc_la_try */
	/* [ML3] CAS acq_rel: the claim, as in conq__mpsc_la_try. */
	if (!conq__cas_strong_acq_rel(&q->pidx, &p, conq__idx_add(p, 2 * m)))
		return false;
	conq__mpsc_la_put(ch, mask, p, es, m);
	return true;
}

static size_t la_slow_loop(conq__mpsc_la *q, void *const *es, size_t n,
			   bool all, conq__mpsc_la_chunk **pre, bool wait_nomem)
{
	unsigned spins = 0;
	for (;;) {
		/* [ML5] acquire, [ML3] acquire: as in conq__mpsc_la_try. */
		conq__idx_t limit = conq__load_acquire(&q->plimit);
		conq__idx_t p = conq__load_acquire(&q->pidx);
		if (p & 1u) {
			/* Another producer resizes: wait for its [ML4]. */
			conq__wait_backoff(&spins);
			continue;
		}
		conq__sidx_t avail = conq__idx_diff(limit, p);
		if ((int64_t)avail >= (int64_t)(2 * n)) {
			if (la_claim(q, p, es, n))
				return n;
			continue;
		}
		/* relaxed: read after [ML5]: this chunk's usable or a later
		 * (never smaller) one's. */
		uint64_t u = conq__load_relaxed(&q->pusable);
		/* [ML7] acquire: pairs with [ML6] (the consumer's release of
		 * cidx): the slots below cidx + 2u are consumed and clear. */
		conq__idx_t c = conq__load_acquire(&q->cidx);
		conq__sidx_t used = conq__idx_diff(p, c);
		if (used < 0)
			continue; /* p is stale: the consumer passed it */
		conq__idx_t fresh = conq__idx_add(c, 2 * u);
		if (conq__idx_diff(fresh, limit) > 0 &&
		    conq__idx_diff(fresh, p) > 0) {
			/* [ML5] CAS release (acq_rel): pairs with [ML5]. Every
			 * limit ever stored is cidx + 2u for a u no larger
			 * than the current chunk's, or a resizer's, and so
			 * bounds the current chunk: a lost race is harmless,
			 * so is a stale expected value. */
			conq__cas_strong_acq_rel(&q->plimit, &limit, fresh);
			continue;
		}
		/* Room by capacity, exact as seen at c (read after p). */
		uint64_t room = (2 * q->max - (uint64_t)used) / 2;
		uint64_t m = all ? (uint64_t)n : (n < room ? n : room);
		if (m == 0 || room < m)
			return 0; /* full */
		if ((int64_t)avail >= (int64_t)(2 * m)) {
			if (la_claim(q, p, es, m))
				return (size_t)m;
			continue;
		}
		if (!all && q->kind == CONQ__MPSC_LA_GROWABLE &&
		    pre != NULL && *pre != NULL &&
		    m > chunk_usable(q, (*pre)->size))
			m = chunk_usable(q, (*pre)->size);
		/* [ML3] CAS acq_rel: become the resizer (odd pidx). */
		if (!conq__cas_strong_acq_rel(&q->pidx, &p,
					      conq__idx_add(p, 1)))
			continue;
		size_t r = la_resize(q, p, c, es, m, pre);
		if (r)
			return r;
		if (!wait_nomem) {
			errno = ENOMEM;
			return 0;
		}
		conq__wait_backoff(&spins);
	}
}

/* The slow path's every publication ends here: a claim in the current chunk
 * (la_claim's [ML1]) or a resize (la_resize, whose JUMP [ML8] is its last
 * store; the consumer reaches the new chunk's elements only through it).
 * Nothing published (full, ENOMEM, a rolled-back resize): no notify. */
static size_t la_slow(conq__mpsc_la *q, void *const *es, size_t n, bool all,
		      conq__mpsc_la_chunk **pre, bool wait_nomem)
{
	size_t r = la_slow_loop(q, es, n, all, pre, wait_nomem);
	if (r == 0)
		return 0;
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
	return r;
}

size_t conq__mpsc_la_offer_slow(conq__mpsc_la *q, void *const *es, size_t n,
				bool all)
{
	return la_slow(q, es, n, all, NULL, false);
}

#define LA_FILL_CHUNK 64

size_t conq__mpsc_la_fill(conq__mpsc_la *q, conq_supply_fn fn, void *ctx,
			  size_t limit)
{
	void *buf[LA_FILL_CHUNK];
	size_t done = 0;
	unsigned spins = 0;
	while (done < limit) {
		uint64_t want = limit - done;
		if (want > LA_FILL_CHUNK)
			want = LA_FILL_CHUNK;
		/* [ML5] acquire, [ML3] acquire: as in try. */
		conq__idx_t lim = conq__load_acquire(&q->plimit);
		conq__idx_t p = conq__load_acquire(&q->pidx);
		if (p & 1u) {
			conq__wait_backoff(&spins);
			continue;
		}
		conq__sidx_t avail = conq__idx_diff(lim, p);
		conq__mpsc_la_chunk *pre = NULL;
		uint64_t room = avail > 0 ? (uint64_t)avail / 2 : 0;
		if (room == 0) {
			/* relaxed: after [ML5], as in la_slow. */
			uint64_t u = conq__load_relaxed(&q->pusable);
			/* [ML7] acquire: pairs with [ML6]. */
			conq__idx_t c = conq__load_acquire(&q->cidx);
			conq__sidx_t used = conq__idx_diff(p, c);
			if (used < 0)
				continue;
			conq__idx_t fresh = conq__idx_add(c, 2 * u);
			if (conq__idx_diff(fresh, lim) > 0 &&
			    conq__idx_diff(fresh, p) > 0) {
				/* [ML5] CAS: as in la_slow. */
				conq__cas_strong_acq_rel(&q->plimit, &lim,
							 fresh);
				continue;
			}
			uint64_t croom = (2 * q->max - (uint64_t)used) / 2;
			if (croom == 0)
				break; /* full */
			/* The chunk a resize will need, before fn is asked
			 * for elements that would otherwise be stranded
			 * when memory runs out. */
			if (q->kind == CONQ__MPSC_LA_GROWABLE) {
				/* relaxed: a guess; la_resize checks it. */
				uint64_t size =
				    2 * (conq__load_relaxed(&q->pmask) + 1);
				if (size > q->max)
					size = q->max;
				pre = chunk_new(q, size);
			} else {
				pre = chunk_take(q);
			}
			if (pre == NULL)
				break; /* errno = ENOMEM */
			room = chunk_usable(q, pre->size);
			if (room > croom)
				room = croom;
		}
		if (want > room)
			want = room;
		size_t n = 0;
		while (n < want && (buf[n] = fn(ctx)) != NULL)
			n++;
		/* Deliver all n: they are ours. When other producers took the
		 * room seen above, this waits for the consumer (and, rarely,
		 * for memory). */
		size_t i = 0;
		unsigned wspins = 0;
		while (i < n) {
			size_t m = la_slow(q, buf + i, n - i, false, &pre, true);
			if (m == 0)
				conq__wait_backoff(&wspins);
			i += m;
		}
		if (pre != NULL)
			spare_put(q, pre);
		done += n;
		if (n < want)
			break;
		spins = 0;
	}
	return done;
}

#define LA_FAMILY_COLD(fam, kind)                                              \
	void conq__##fam##_test_start(conq_##fam *q, uint64_t start)           \
	{                                                                      \
		conq__mpsc_la_test_start(&q->q, start);                        \
	}

LA_FAMILY_COLD(mpsc_chunked, CONQ__MPSC_LA_CHUNKED)
LA_FAMILY_COLD(mpsc_growable, CONQ__MPSC_LA_GROWABLE)
LA_FAMILY_COLD(mpsc_unbounded, CONQ__MPSC_LA_UNBOUNDED)

conq_mpsc_chunked *conq_mpsc_chunked_create_with(size_t chunk,
						 size_t max_capacity,
						 const conq_allocator *a)
{
	return (conq_mpsc_chunked *)conq__mpsc_la_create(
	    CONQ__MPSC_LA_CHUNKED, chunk, max_capacity, a);
}

conq_mpsc_chunked *conq_mpsc_chunked_create(size_t chunk, size_t max_capacity)
{
	return conq_mpsc_chunked_create_with(chunk, max_capacity, NULL);
}

conq_mpsc_growable *conq_mpsc_growable_create_with(size_t initial,
						   size_t max_capacity,
						   const conq_allocator *a)
{
	return (conq_mpsc_growable *)conq__mpsc_la_create(
	    CONQ__MPSC_LA_GROWABLE, initial, max_capacity, a);
}

conq_mpsc_growable *conq_mpsc_growable_create(size_t initial,
					      size_t max_capacity)
{
	return conq_mpsc_growable_create_with(initial, max_capacity, NULL);
}

conq_mpsc_unbounded *conq_mpsc_unbounded_create_with(size_t chunk,
						     const conq_allocator *a)
{
	return (conq_mpsc_unbounded *)conq__mpsc_la_create(
	    CONQ__MPSC_LA_UNBOUNDED, chunk, 1, a);
}

conq_mpsc_unbounded *conq_mpsc_unbounded_create(size_t chunk)
{
	return conq_mpsc_unbounded_create_with(chunk, NULL);
}
