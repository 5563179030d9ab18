/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The XADD families' cold paths (conq/impl/xadd.h has the protocol and the
 * memory-safety argument; docs/memory-model.md, labels [X1]...): create and
 * destroy, finding a chunk off the fast path (waiting out a rotation,
 * appending, advancing, walking back), the pool, the MPMC release and peek.
 */
#include <errno.h>
#include <string.h>

#include "conq/impl/testing.h"
#include "conq/mpmc_xadd.h"
#include "conq/mpsc_xadd.h"
#include "internal.h"

const char conq__xadd_consumed = 0;

static const conq_allocator *xa_alloc(const conq__xadd *q)
{
	return q->has_alloc ? &q->alloc : NULL;
}

static size_t chunk_bytes(const conq__xadd *q)
{
	return sizeof(conq__xadd_chunk) + (size_t)q->chunk * sizeof(void *);
}

/* A fresh chunk (fields unset); NULL + ENOMEM. */
static conq__xadd_chunk *chunk_new(const conq__xadd *q)
{
	return (conq__xadd_chunk *)conq__alloc_with(
	    xa_alloc(q), chunk_bytes(q), CONQ_CACHE_LINE);
}

static void chunk_free(const conq__xadd *q, conq__xadd_chunk *ch)
{
	if (ch != NULL)
		conq__free_with(xa_alloc(q), ch, chunk_bytes(q));
}

/* Owner of ch (not reachable by any other thread): make it chunk `base`,
 * after `prev`, every slot NULL. */
static void chunk_reset(const conq__xadd *q, conq__xadd_chunk *ch,
			conq__idx_t base, conq__xadd_chunk *prev)
{
	ch->next = NULL;
	ch->prev = prev;
	ch->base = base;
	memset(conq__xadd_slots(ch), 0, (size_t)q->chunk * sizeof(void *));
}

/* The appender (it holds the rotation): a chunk from the pool, else a new
 * one, else the reserve (marking the queue low on memory); NULL when none.
 * errno is left as the caller had it: the offer that appends succeeds. */
static conq__xadd_chunk *pool_take(conq__xadd *q)
{
	/* [X13] exchange acq_rel: pairs with [X13] in pool_put: the
	 * releaser's last reads of the chunk happen before our reuse. */
	conq__xadd_chunk *ch =
	    conq__xchg_acq_rel(&q->spare, (conq__xadd_chunk *)NULL);
	if (ch != NULL)
		return ch;
	int saved = errno;
	ch = chunk_new(q);
	errno = saved;
	if (ch != NULL)
		return ch;
	/* [X13] exchange acq_rel: as above (pool_put, replenish). */
	ch = conq__xchg_acq_rel(&q->reserve, (conq__xadd_chunk *)NULL);
	if (ch != NULL)
		/* relaxed: a hint (conq__xadd_may_claim). */
		conq__store_relaxed(&q->mem_low, 1u);
	return ch;
}

/* The releaser (one at a time): keep ch as the spare, else as the reserve,
 * else free it. Nobody else can reach ch. */
static void pool_put(conq__xadd *q, conq__xadd_chunk *ch)
{
	conq__xadd_chunk *none = NULL;
	/* [X13] CAS acq_rel: pairs with [X13] in pool_take. */
	if (conq__cas_strong_acq_rel(&q->spare, &none, ch))
		return;
	none = NULL;
	/* [X13] CAS acq_rel: pairs with [X13] in pool_take. */
	if (conq__cas_strong_acq_rel(&q->reserve, &none, ch)) {
		/* relaxed: a hint. */
		conq__store_relaxed(&q->mem_low, 0u);
		return;
	}
	chunk_free(q, ch);
}

bool conq__xadd_replenish(conq__xadd *q)
{
	if (q->mc) {
		/* A release held off may refill the reserve (as above). */
		conq__xadd_release(q);
		/* relaxed: a hint, as in conq__xadd_may_claim. */
		if (conq__load_relaxed(&q->mem_low) == 0)
			return true;
	}
	conq__xadd_chunk *ch = chunk_new(q);
	if (ch == NULL)
		return false; /* errno = ENOMEM, from the allocator call */
	conq__xadd_chunk *none = NULL;
	/* [X13] CAS acq_rel: pairs with [X13] in pool_take. */
	if (!conq__cas_strong_acq_rel(&q->reserve, &none, ch))
		chunk_free(q, ch);
	/* relaxed: a hint. */
	conq__store_relaxed(&q->mem_low, 0u);
	return true;
}

void *conq__xadd_wait_slot(void **slot)
{
	unsigned spins = 0;
	void *e;
	/* [X2] acquire: pairs with [X2] (the producer that claimed it). */
	while ((e = conq__load_acquire(slot)) == NULL)
		conq__wait_backoff(&spins);
	return e;
}

/* Walk back from ch (base >= want) to the chunk of base want. Every chunk
 * from want's up is unreleased (released in order; want's holds a slot of
 * ours), so each prev read is of a live chunk. */
static conq__xadd_chunk *walk_back(conq__xadd_chunk *ch, conq__idx_t want)
{
	while (ch->base != want)
		ch = ch->prev;
	return ch;
}

/* P, holding the rotation of pbase b: append the chunk of base b + C. false
 * when no memory (the rotation is given back; the caller retries). */
static bool append(conq__xadd *q, conq__idx_t b)
{
	/* relaxed: stable while we hold the rotation. */
	conq__xadd_chunk *old = conq__load_relaxed(&q->pchunk);
	conq__xadd_chunk *nu = pool_take(q);
	if (nu == NULL) {
		/* [X3] release: pairs with [X3]; nothing changed. */
		conq__store_release(&q->pbase, b);
		return false;
	}
	chunk_reset(q, nu, conq__idx_add(b, q->chunk), old);
	CONQ__TEST_PAUSE();
	/* [X4] release: pairs with [X4] (consumers' acquire of next): the
	 * new chunk's fields and NULL slots are seen. Our last access to
	 * old: a consumer may leave and release it from here on. */
	conq__store_release(&old->next, nu);
	/* [X3] release: pairs with [X3] (producers' acquire of pchunk). */
	conq__store_release(&q->pchunk, nu);
	/* [X3] release: pairs with [X3] (producers' acquire of pbase): the
	 * rotation ends. */
	conq__store_release(&q->pbase, conq__idx_add(b, q->chunk));
	return true;
}

conq__xadd_chunk *conq__xadd_pchunk_slow(conq__xadd *q, conq__idx_t want)
{
	unsigned spins = 0;
	for (;;) {
		/* [X3] acquire: pairs with [X3]. */
		conq__idx_t b = conq__load_acquire(&q->pbase);
		if (conq__idx_diff(conq__xadd_even(b), want) >= 0)
			/* [X3] acquire: pchunk is even(b)'s chunk or later
			 * (during a rotation, the new one once stored). */
			return walk_back(conq__load_acquire(&q->pchunk), want);
		if (b & 1u) { /* a rotation to our chunk: wait for it */
			conq__wait_backoff(&spins);
			continue;
		}
		/* b's chunk is older than ours: append its successor. */
		/* [X3] CAS acq_rel: the rotation; pairs with [X3] (the last
		 * appender's release of pbase: its chunk is seen). */
		if (conq__cas_strong_acq_rel(&q->pbase, &b, (conq__idx_t)(b | 1u))) {
			if (append(q, b))
				continue;
			/* No memory. MPMC: a release held off (a slot still
			 * being read, a peek in progress) may be due by now,
			 * and the consumers may all be waiting for this very
			 * chunk: help, or we could wait for good
			 * (spin/xadd.pml found it). */
			if (q->mc)
				conq__xadd_release(q);
			conq__wait_backoff(&spins);
		} else {
			conq__wait_backoff(&spins);
		}
	}
}

conq__xadd_chunk *conq__xadd_cchunk_slow(conq__xadd *q, conq__idx_t want)
{
	unsigned spins = 0;
	for (;;) {
		/* [X5] acquire: pairs with [X5]. */
		conq__idx_t b = conq__load_acquire(&q->cbase);
		/* An index of an older chunk does not wait for an advance:
		 * its chunk is unreleased (its slot is not CONSUMED), and the
		 * advancer may be waiting for a chunk that only the release
		 * of ours lets the producers allocate (spin/xadd.pml). */
		if (conq__idx_diff(conq__xadd_even(b), want) >= 0)
			/* [X5] acquire: ccur is even(b)'s chunk or later. */
			return walk_back(conq__load_acquire(&q->ccur), want);
		if (b & 1u) { /* an advance to our chunk: wait for it */
			conq__wait_backoff(&spins);
			continue;
		}
		/* [X5] CAS acq_rel: the consumers' rotation. */
		if (!conq__cas_strong_acq_rel(&q->cbase, &b, (conq__idx_t)(b | 1u))) {
			conq__wait_backoff(&spins);
			continue;
		}
		/* relaxed: stable while we hold the rotation; the chunk is
		 * unreleased (released only once cbase passed it). */
		conq__xadd_chunk *old = conq__load_relaxed(&q->ccur);
		conq__xadd_chunk *nx;
		unsigned s2 = 0;
		/* [X4] acquire: pairs with [X4]. An index of a later chunk
		 * is claimed (ours), so the producers append this one. */
		while ((nx = conq__load_acquire(&old->next)) == NULL)
			conq__wait_backoff(&s2);
		/* [X5] release: pairs with [X5] (consumers' acquire). */
		conq__store_release(&q->ccur, nx);
		/* [X5] seq_cst: ends the rotation; pairs with [X5]; seq_cst
		 * for the peekers' argument ([X12]). */
		conq__store_seq_cst(&q->cbase, conq__idx_add(b, q->chunk));
		conq__xadd_release(q);
	}
}

conq__xadd_chunk *conq__xadd_follow(conq__xadd *q, bool strict)
{
	conq__xadd_chunk *ch = q->cchunk;
	/* [X4] acquire: pairs with [X4] (the appender's link). */
	conq__xadd_chunk *nx = conq__load_acquire(&ch->next);
	if (nx == NULL) {
		/* [X9] acquire: pairs with [X1]: head == tail is empty;
		 * else the index's producer appends (or waits to). */
		if (!strict || conq__load_acquire(&q->phead) == q->ctail)
			return NULL;
		unsigned spins = 0;
		/* [X4] acquire: as above. */
		while ((nx = conq__load_acquire(&ch->next)) == NULL)
			conq__wait_backoff(&spins);
	}
	q->cchunk = nx;
	/* Every slot of ch was consumed and its appender has linked nx: no
	 * thread can reach ch any more. */
	pool_put(q, ch);
	return nx;
}

void conq__xadd_release(conq__xadd *q)
{
	unsigned z = 0;
	/* relaxed: a busy lock is left to its holder. */
	if (conq__load_relaxed(&q->rlock) != 0 ||
	    /* [X11] CAS acq_rel: the try-lock; pairs with [X11] (the last
	     * holder's release): rchunk and roff are its. */
	    !conq__cas_strong_acq_rel(&q->rlock, &z, 1u))
		return;
	/* [X5] seq_cst: pairs with [X5] (the advancer's store); seq_cst for
	 * [X12]. Chunks below cb are no consumer's current chunk. */
	conq__idx_t cb = conq__xadd_even(conq__load_seq_cst(&q->cbase));
	conq__xadd_chunk *ch = q->rchunk;
	uint64_t off = q->roff;
	while (ch->base != cb) {
		void **s = conq__xadd_slots(ch);
		/* [X7] acquire: pairs with [X7] (each consumer's CONSUMED). */
		while (off < q->chunk &&
		       conq__load_acquire(&s[off]) == CONQ__XADD_CONSUMED)
			off++;
		if (off < q->chunk)
			break;
		/* [X12] fetch-and-add of 0, seq_cst: reads the latest count
		 * (an RMW), after our seq_cst load of cbase; pairs with
		 * [X12] (a peek's seq_cst increment, then its seq_cst load
		 * of cbase): either we see the peek, or it sees cbase past
		 * ch and never reaches ch; its release decrement orders its
		 * reads before our release of the chunk. */
		if (conq__faa_seq_cst(&q->peekers, 0u) != 0)
			break;
		/* [X4] acquire: cbase is past ch, so next is set. */
		conq__xadd_chunk *nx = conq__load_acquire(&ch->next);
		pool_put(q, ch);
		ch = nx;
		off = 0;
	}
	q->rchunk = ch;
	q->roff = off;
	/* relaxed: a hint for empty polls (conq__xadd_mc_claim). */
	conq__store_relaxed(&q->rbase, ch->base);
	/* [X11] release: pairs with [X11]. */
	conq__store_release(&q->rlock, 0u);
}

/* One look at the head under the announcement (peekers held): no waiting
 * in here, so that a peek never holds releases off while it waits (a
 * producer out of memory may need one; spin/xadd.pml). Returns 1 with *ep
 * (NULL: empty, or a bubble when !strict), 0 to look again. */
static int mc_peek_once(conq__xadd *q, bool strict, void **ep)
{
	*ep = NULL;
	/* [X12] seq_cst: the tail after our increment. */
	conq__idx_t c = conq__load_seq_cst(&q->ctail);
	/* [X9] acquire: pairs with [X1]. */
	conq__idx_t p = conq__load_acquire(&q->phead);
	if (conq__idx_diff(p, c) <= 0)
		return 1; /* empty */
	/* [X12] seq_cst: pairs with [X5]'s seq_cst store and the releaser's
	 * load: chunks from even(b) on are not released while we hold the
	 * announcement. Odd (an advance): even(b)'s chunk is still ccur or
	 * the new one is, both unreleased. */
	conq__idx_t b = conq__xadd_even(conq__load_seq_cst(&q->cbase));
	conq__idx_t want = conq__xadd_base_of(q, c);
	if (conq__idx_diff(want, b) < 0)
		return 0; /* c already left behind: again */
	/* [X5] acquire: b's chunk or later, unreleased. */
	conq__xadd_chunk *ch = conq__load_acquire(&q->ccur);
	if (conq__idx_diff(ch->base, want) > 0)
		return 0; /* the consumers moved on: c is stale */
	while (ch != NULL && ch->base != want)
		/* [X4] acquire: pairs with [X4]. */
		ch = conq__load_acquire(&ch->next);
	if (ch != NULL) {
		/* [X2] acquire: pairs with [X2]. */
		void *e = conq__load_acquire(&conq__xadd_slots(ch)[c & q->mask]);
		if (e == CONQ__XADD_CONSUMED)
			return 0; /* polled meanwhile */
		if (e != NULL) {
			*ep = e;
			return 1;
		}
	}
	/* A bubble: the chunk or the element is still coming. */
	return strict ? 0 : 1;
}

void *conq__xadd_mc_peek(conq__xadd *q, bool strict)
{
	unsigned spins = 0;
	void *e;
	for (;;) {
		/* [X12] seq_cst: pairs with [X12] in the release. */
		conq__faa_seq_cst(&q->peekers, 1u);
		int done = mc_peek_once(q, strict, &e);
		/* [X12] release: pairs with the releaser's RMW of peekers: our
		 * reads of the chunk happen before its release. */
		conq__faa_release(&q->peekers, (unsigned)-1);
		if (done)
			return e;
		conq__wait_backoff(&spins);
	}
}

conq__xadd *conq__xadd_create(unsigned mc, size_t chunk,
			      const conq_allocator *a)
{
	uint64_t c = conq__array_round_capacity(chunk);
	if (c == 0) {
		errno = EINVAL;
		return NULL;
	}
	if (c < 2)
		c = 2; /* bases stay even: base | 1 marks a rotation */
	conq__xadd *q =
	    (conq__xadd *)conq__alloc_with(a, sizeof(conq__xadd), CONQ_PAD);
	if (q == NULL)
		return NULL;
	memset(q, 0, sizeof(*q));
	q->chunk = c;
	q->mask = c - 1;
	q->mc = mc;
	if (a != NULL) {
		q->has_alloc = 1;
		q->alloc = *a;
	}
	conq__xadd_chunk *ch = chunk_new(q);
	conq__xadd_chunk *rs = ch == NULL ? NULL : chunk_new(q);
	if (rs == NULL) {
		chunk_free(q, ch);
		conq__free_with(a, q, sizeof(conq__xadd));
		return NULL;
	}
	chunk_reset(q, ch, 0, NULL);
	chunk_reset(q, rs, 0, NULL);
	/* No other thread sees q before create returns: plain stores. */
	q->pchunk = q->cchunk = q->ccur = q->rchunk = ch;
	q->reserve = rs;
	conq_eventcount_init(&q->nonempty, 0);
	conq_eventcount_init(&q->nonfull, 0);
	return q;
}

void conq__xadd_test_start(conq__xadd *q, uint64_t start)
{
	conq__idx_t s = (conq__idx_t)start;
	conq__idx_t base = conq__xadd_base_of(q, s);
	q->phead = q->ctail = q->climit = s;
	q->pbase = q->cbase = q->rbase = base;
	q->pchunk->base = base;
	/* The slots below the start were never used: released as consumed
	 * (MPMC; the MPSC consumer starts at s and never looks below). */
	for (uint64_t k = 0; k < (uint64_t)(s - base); k++)
		conq__xadd_slots(q->pchunk)[k] =
		    q->mc ? CONQ__XADD_CONSUMED : NULL;
}

void conq__xadd_destroy(conq__xadd *q)
{
	if (q == NULL)
		return;
	conq__xadd_chunk *ch = q->mc ? q->rchunk : q->cchunk;
	while (ch != NULL) {
		conq__xadd_chunk *nx = ch->next;
		chunk_free(q, ch);
		ch = nx;
	}
	chunk_free(q, q->spare);
	chunk_free(q, q->reserve);
	conq_allocator a = q->alloc;
	conq__free_with(q->has_alloc ? &a : NULL, q, sizeof(conq__xadd));
}

/* The families' constructors and test hooks. */
conq_mpsc_xadd *conq_mpsc_xadd_create_with(size_t chunk,
					   const conq_allocator *a)
{
	return (conq_mpsc_xadd *)conq__xadd_create(0, chunk, a);
}

conq_mpsc_xadd *conq_mpsc_xadd_create(size_t chunk)
{
	return conq_mpsc_xadd_create_with(chunk, NULL);
}

conq_mpmc_xadd *conq_mpmc_xadd_create_with(size_t chunk,
					   const conq_allocator *a)
{
	return (conq_mpmc_xadd *)conq__xadd_create(1, chunk, a);
}

conq_mpmc_xadd *conq_mpmc_xadd_create(size_t chunk)
{
	return conq_mpmc_xadd_create_with(chunk, NULL);
}

void conq__mpsc_xadd_test_start(conq_mpsc_xadd *q, uint64_t start)
{
	conq__xadd_test_start(&q->q, start);
}

void conq__mpmc_xadd_test_start(conq_mpmc_xadd *q, uint64_t start)
{
	conq__xadd_test_start(&q->q, start);
}
