/* SPDX-License-Identifier: BSD-2-Clause */
/* Cold paths of the value rings (conq/impl/value.h): geometry, init,
 * create, destroy, and the test hook that starts the indices anywhere. */
#include <errno.h>
#include <string.h>

#include "conq/mpmc_value.h"
#include "conq/mpsc_value.h"
#include "conq/spmc_value.h"
#include "conq/spsc_value.h"
#include "conq/impl/testing.h"
#include "internal.h"

static uint64_t value_stride(uint64_t esize)
{
	if (esize <= 16) {
		uint64_t s = 1;
		while (s < esize)
			s <<= 1;
		return s;
	}
	return (esize + 15) / 16 * 16;
}

static uint64_t round_pad(uint64_t n)
{
	return (n + CONQ_PAD - 1) / CONQ_PAD * CONQ_PAD;
}

bool conq__value_geometry(conq__value_geom *g, size_t head, size_t esize,
			  size_t capacity, bool tags)
{
	size_t cap = conq__array_round_capacity(capacity);
	if (cap == 0 || cap > CONQ_VALUE_MAX_CAPACITY || esize == 0 ||
	    esize > CONQ_VALUE_MAX_ELEM) {
		errno = EINVAL;
		return false;
	}
	memset(g, 0, sizeof(*g));
	g->cap = cap;
	g->mask = cap - 1;
	g->esize = esize;
	g->stride = value_stride(esize);
	uint64_t off = round_pad(head);
	if (tags) {
		g->tags = off;
		off += round_pad((uint64_t)cap * sizeof(conq__vtag_t));
	}
	g->slots = off;
	/* cap <= 2^31 and stride <= 2^16: no overflow in 64 bits; a 32-bit
	 * size_t must still hold it all. */
	uint64_t bytes = off + round_pad((uint64_t)cap * g->stride) + CONQ_PAD;
	if (bytes > (uint64_t)(SIZE_MAX >> 1)) {
		errno = EINVAL;
		return false;
	}
	g->bytes = bytes;
	return true;
}

bool conq__value_prepare(void *mem, const conq__value_geom *g, unsigned flags,
			 int zeroed)
{
	if (mem == NULL || (uintptr_t)mem % CONQ_PAD != 0 ||
	    (flags & ~CONQ_VALUE_SHARED) != 0) {
		errno = EINVAL;
		return false;
	}
	if (!zeroed)
		memset(mem, 0, (size_t)g->bytes);
	conq__value_geom *dst = (conq__value_geom *)mem;
	*dst = *g;
	dst->flags = flags;
	return true;
}

void *conq__value_alloc(const conq__value_geom *g)
{
	return conq__alloc_aligned((size_t)g->bytes);
}

void conq__value_free(void *q)
{
	conq__free_aligned(q);
}

void conq__value_backoff(unsigned *spins)
{
	conq__wait_backoff(spins);
}

static unsigned ec_flags(const conq__value_geom *g)
{
	return (g->flags & CONQ_VALUE_SHARED) ? CONQ_EVENTCOUNT_SHARED : 0;
}

/*
 * The public cold paths of family `fam`, around its `static void
 * fam_setup(conq_<fam> *q, conq__idx_t start, unsigned ecf)`, which sets the
 * indices (and tags) of a prepared, zeroed ring to start at `start` and
 * inits its eventcounts with flags `ecf`: memsize,
 * init, init_flags, the test hook init_at, create, destroy.
 */
#define VALUE_COLD_PATHS(fam, tags)                                            \
	size_t conq_##fam##_memsize(size_t esize, size_t capacity)             \
	{                                                                      \
		conq__value_geom g;                                            \
		if (!conq__value_geometry(&g, sizeof(conq_##fam), esize,       \
					  capacity, tags))                     \
			return 0;                                              \
		return (size_t)g.bytes;                                        \
	}                                                                      \
	static conq_##fam *fam##_init(void *mem, size_t esize, size_t capacity, \
				      unsigned flags, uint64_t start,          \
				      int zeroed)                              \
	{                                                                      \
		conq__value_geom g;                                            \
		if (!conq__value_geometry(&g, sizeof(conq_##fam), esize,       \
					  capacity, tags) ||                   \
		    !conq__value_prepare(mem, &g, flags, zeroed))              \
			return NULL;                                           \
		conq_##fam *q = (conq_##fam *)mem;                             \
		fam##_setup(q, (conq__idx_t)start,                             \
			    ec_flags((const conq__value_geom *)mem));          \
		return q;                                                      \
	}                                                                      \
	conq_##fam *conq_##fam##_init_flags(void *mem, size_t esize,           \
					    size_t capacity, unsigned flags)   \
	{                                                                      \
		return fam##_init(mem, esize, capacity, flags, 0, 0);          \
	}                                                                      \
	conq_##fam *conq_##fam##_init(void *mem, size_t esize,                 \
				      size_t capacity)                         \
	{                                                                      \
		return fam##_init(mem, esize, capacity, 0, 0, 0);              \
	}                                                                      \
	conq_##fam *conq__##fam##_init_at(void *mem, size_t esize,             \
					  size_t capacity, uint64_t start)     \
	{                                                                      \
		return fam##_init(mem, esize, capacity, 0, start, 0);          \
	}                                                                      \
	conq_##fam *conq_##fam##_create(size_t esize, size_t capacity)         \
	{                                                                      \
		conq__value_geom g;                                            \
		if (!conq__value_geometry(&g, sizeof(conq_##fam), esize,       \
					  capacity, tags))                     \
			return NULL;                                           \
		void *mem = conq__value_alloc(&g);                             \
		if (mem == NULL)                                               \
			return NULL;                                           \
		return fam##_init(mem, esize, capacity, 0, 0, 1);              \
	}                                                                      \
	void conq_##fam##_destroy(conq_##fam *q)                               \
	{                                                                      \
		conq__value_free(q);                                           \
	}

/* ---- conq_spsc_value ---- */
static void spsc_value_setup(conq_spsc_value *q, conq__idx_t start,
			     unsigned ecf)
{
	conq_eventcount_init(&q->nonempty, ecf);
	conq_eventcount_init(&q->nonfull, ecf);
	q->pidx = q->cidx = q->cavail = start;
	q->plimit = conq__idx_add(start, q->g.cap);
}
VALUE_COLD_PATHS(spsc_value, false)

/* ---- conq_mpsc_value ---- */
/* Every slot's tag says "the index one lap before the first index that
 * will use it is committed": FULL(i - cap) for the slot of i, i the first
 * lap's index. */
static void mpsc_value_setup(conq_mpsc_value *q, conq__idx_t start,
			     unsigned ecf)
{
	conq_eventcount_init(&q->nonempty, ecf);
	conq_eventcount_init(&q->nonfull, ecf);
	q->pidx = q->cidx = start;
	q->plimit = conq__idx_add(start, q->g.cap);
	conq__vtag_t *t = conq__value_tags(q, &q->g);
	for (uint64_t k = 0; k < q->g.cap; k++) {
		conq__idx_t i = conq__idx_add(start, k);
		t[i & q->g.mask] = conq__vtag(q->g.mask, conq__idx_sub(i, q->g.cap),
					      CONQ__VT_FULL);
	}
}
VALUE_COLD_PATHS(mpsc_value, true)

/* SPMC and MPMC: FREE(i) for the first lap's index i of every slot. */
static void vring_setup(conq__vring *r, conq__idx_t start, unsigned ecf)
{
	conq_eventcount_init(&r->nonempty, ecf);
	conq_eventcount_init(&r->nonfull, ecf);
	r->pidx = r->cidx = start;
	conq__vtag_t *t = conq__value_tags(r, &r->g);
	for (uint64_t k = 0; k < r->g.cap; k++) {
		conq__idx_t i = conq__idx_add(start, k);
		t[i & r->g.mask] = conq__vtag(r->g.mask, i, CONQ__VT_FREE);
	}
}

/* ---- conq_spmc_value ---- */
static void spmc_value_setup(conq_spmc_value *q, conq__idx_t start,
			     unsigned ecf)
{
	vring_setup(&q->r, start, ecf);
}
VALUE_COLD_PATHS(spmc_value, true)

/* ---- conq_mpmc_value ---- */
static void mpmc_value_setup(conq_mpmc_value *q, conq__idx_t start,
			     unsigned ecf)
{
	vring_setup(&q->r, start, ecf);
}
VALUE_COLD_PATHS(mpmc_value, true)

int conq__mpsc_value_wait(conq_mpsc_value *q, conq__idx_t c)
{
	unsigned spins = 0;
	for (;;) {
		conq__svtag_t d = conq__vtag_state(q->g.mask,
						   conq__mpsc_value_tag(q, c), c);
		if (d == CONQ__VT_FULL)
			return 1;
		if (d == CONQ__VT_TOMB)
			return 2;
		/* [VM7] acquire: pairs with [VM3] (fill's hand-back). */
		if (conq__load_acquire(&q->pidx) == c)
			return 0;
		conq__wait_backoff(&spins);
	}
}

/* ---- the multi-consumer rings' edges (conq/impl/value_mc.h) ---- */

bool conq__vring_edge_put(conq__vring *r, conq__idx_t p, bool mp)
{
	/* The watch: the consumer of p - n may be releasing the slot. */
	for (unsigned i = 0; i < CONQ__MPMC_CHASE_SPINS; i++) {
		conq__watch_gap(CONQ__MPMC_CHASE_GAP);
		if (conq__vring_look(r, p) >= 0)
			return true;
	}
	/* [V8] seq_cst: pairs with [V7]. p was pidx at some moment of the
	 * caller's call (its own, for a single producer) and cidx only
	 * grows, so p - cidx >= n here means n indices were produced and not
	 * claimed by consumers then: full. */
	if (conq__idx_diff(p, conq__load_seq_cst(&r->cidx)) >= (int64_t)r->g.cap)
		return false;
	/* p - n is claimed by a consumer that has not released it yet (or,
	 * MPMC, p is stale: pidx moved on). */
	unsigned k = 0;
	for (;;) {
		conq__mpmc_backoff(&k);
		if (conq__vring_look(r, p) >= 0 ||
		    /* [V1] seq_cst: pairs with [V1]. */
		    (mp && conq__load_seq_cst(&r->pidx) != p))
			return true;
	}
}

bool conq__vring_edge_take(conq__vring *r, conq__idx_t c, bool wait)
{
	/* The watch: c's producer may be committing right now. */
	for (unsigned i = 0; i < CONQ__MPMC_CHASE_SPINS; i++) {
		conq__watch_gap(CONQ__MPMC_CHASE_GAP);
		if (conq__vring_look(r, c) >= CONQ__VT_FULL)
			return true;
	}
	unsigned k = 0;
	for (;;) {
		/* [V9] seq_cst: pairs with [V1]. cidx was c earlier and pidx
		 * never drops below it, so pidx at or below c here is an
		 * empty ring. */
		if (conq__idx_diff(conq__load_seq_cst(&r->pidx), c) <= 0)
			return false;
		/* c's producer has claimed it and not committed yet. */
		if (!wait)
			return false;
		conq__mpmc_backoff(&k);
		if (conq__vring_look(r, c) >= CONQ__VT_FULL ||
		    /* [V7] seq_cst: pairs with [V7]. */
		    conq__load_seq_cst(&r->cidx) != c)
			return true;
	}
}
