/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ceiling:stream - not a queue but the streaming ceiling a SPSC ring can hope
 * for on this machine: the producer writes a plain ring and publishes its
 * index (release) once every B = 64 slots; the consumer reads the published
 * index (acquire), consumes up to it, and publishes its own index once every
 * B slots too. Slot accesses are relaxed atomics (plain movs; plain non-atomic
 * ones would be a data race in C11). Counted per element like a queue:
 * offer fails when there is no room, poll when nothing is published.
 *
 * Layout, which is the whole point: each side's private counters and each
 * published index are on different CB_PAD blocks, so the reader polling a
 * published index never false-shares with the writer's private updates.
 *
 * ceiling:stream_locked - the same stream whose producer also makes one
 * locked read-modify-write per offer (on a counter nobody else reads): the
 * ceiling of a producer that claims its slot with an atomic RMW, as every
 * MPSC queue's producers must (conq_mpsc_array's CAS on pidx, even with one
 * producer). It shows what that RMW alone costs against ceiling:stream.
 */
#include <errno.h>

#include "loops.h"

#define STREAM_BATCH 64u

typedef struct stream_ring {
	/* Read-only after create. */
	_Alignas(CB_PAD) uint64_t cap; /* a power of two */
	uint64_t mask;
	uint64_t bmask; /* batch - 1 */
	/* Producer-private. */
	_Alignas(CB_PAD) uint64_t p; /* next index to write */
	uint64_t plimit;             /* p may reach this: pub_c + cap, cached */
	uint64_t claims;             /* ceiling:stream_locked's RMW target */
	/* Published by the producer every batch. */
	_Alignas(CB_PAD) uint64_t pub_p;
	/* Consumer-private. */
	_Alignas(CB_PAD) uint64_t c; /* next index to read */
	uint64_t climit;             /* published pub_p, cached */
	/* Published by the consumer every batch. */
	_Alignas(CB_PAD) uint64_t pub_c;
	char pad[CB_PAD - sizeof(uint64_t)];
	/* The slots follow, CB_PAD-aligned. */
	void *slots[];
} stream_ring;

CONQ__STATIC_ASSERT(offsetof(stream_ring, slots) % CB_PAD == 0,
		    "slots start a padded block");
CONQ__STATIC_ASSERT(offsetof(stream_ring, pub_p) - offsetof(stream_ring, p) >=
			    CB_PAD,
		    "private and published producer index apart");
CONQ__STATIC_ASSERT(offsetof(stream_ring, pub_c) - offsetof(stream_ring, c) >=
			    CB_PAD,
		    "private and published consumer index apart");

static inline bool stream_offer(stream_ring *r, void *e)
{
	uint64_t p = r->p;
	if (CONQ__UNLIKELY(p == r->plimit)) {
		/* acquire: pairs with the consumer's release of pub_c; its
		 * reads of the slots below pub_c are done. */
		r->plimit = conq__load_acquire(&r->pub_c) + r->cap;
		if (p == r->plimit)
			return false;
	}
	conq__store_relaxed(&r->slots[p & r->mask], e);
	r->p = ++p;
	if ((p & r->bmask) == 0)
		/* release: publishes the slots below p. */
		conq__store_release(&r->pub_p, p);
	return true;
}

/* ceiling:stream_locked: the same, with one locked read-modify-write per
 * offer on a producer-private counter, as the claim of a MPSC queue
 * (conq_mpsc_array's CAS on pidx) costs even uncontended: on x86 a locked
 * instruction waits until the producer's earlier stores (the previous slot)
 * are visible, so slot stores no longer overlap. The ceiling of a
 * single-producer stream whose producer claims with an atomic RMW; no
 * consumer ever reads the counter. */
static inline bool stream_offer_locked(stream_ring *r, void *e)
{
	/* acq_rel, as conq_mpsc_array's claim ([M3]); no other thread reads
	 * the counter, so nothing pairs with it: its cost is the point. */
	conq__faa_acq_rel(&r->claims, (uint64_t)1);
	return stream_offer(r, e);
}

static inline void *stream_poll(stream_ring *r)
{
	uint64_t c = r->c;
	if (CONQ__UNLIKELY(c == r->climit)) {
		/* acquire: pairs with the producer's release of pub_p. */
		r->climit = conq__load_acquire(&r->pub_p);
		if (c == r->climit)
			return NULL;
	}
	void *e = conq__load_relaxed(&r->slots[c & r->mask]);
	r->c = ++c;
	if ((c & r->bmask) == 0)
		/* release: our reads of the slots below c are done. */
		conq__store_release(&r->pub_c, c);
	return e;
}

static void *stream_create(size_t capacity, size_t *usable)
{
	size_t cap = cb_pow2_ceil(capacity == 0 ? 1 : capacity);
	if (cap == 0 || cap > (size_t)1 << 40) {
		errno = EINVAL;
		return NULL;
	}
	stream_ring *r = (stream_ring *)cb_alloc_aligned(
		sizeof(stream_ring) + cap * sizeof(void *));
	if (r == NULL)
		return NULL;
	uint64_t batch = STREAM_BATCH;
	while (batch > 1 && batch > cap / 2) /* keep both sides moving */
		batch >>= 1;
	r->cap = cap;
	r->mask = cap - 1;
	r->bmask = batch - 1;
	r->plimit = cap;
	*usable = cap;
	return r;
}

static void stream_destroy(void *q)
{
	cb_free_aligned(q);
}

static bool stream_offer_g(void *q, void *e)
{
	return stream_offer((stream_ring *)q, e);
}

static void *stream_poll_g(void *q)
{
	return stream_poll((stream_ring *)q);
}

/* Single-threaded, between iterations: publish both private indices. */
static void stream_flush(void *q)
{
	stream_ring *r = (stream_ring *)q;
	/* release: pairs with the consumer's acquire of pub_p. */
	conq__store_release(&r->pub_p, r->p);
	/* release: pairs with the producer's acquire of pub_c. */
	conq__store_release(&r->pub_c, r->c);
}

CB_DEFINE_LOOPS(ceiling_stream, stream_ring, stream_offer, stream_poll)
CB_DEFINE_LOOPS(ceiling_stream_locked, stream_ring, stream_offer_locked,
		stream_poll)

static bool stream_offer_locked_g(void *q, void *e)
{
	return stream_offer_locked((stream_ring *)q, e);
}

extern const cb_adapter cb_adapter_ceiling_stream;
const cb_adapter cb_adapter_ceiling_stream = {
	.name = "ceiling:stream",
	.family = "ceiling",
	.desc = "not a queue: plain ring, indices published every 64 slots",
	.contract = CB_SPSC,
	.kind = CB_KIND_BASELINE,
	.create = stream_create,
	.destroy = stream_destroy,
	.offer = stream_offer_g,
	.poll = stream_poll_g,
	.flush = stream_flush,
	.loops = &ceiling_stream_loops,
};

extern const cb_adapter cb_adapter_ceiling_stream_locked;
const cb_adapter cb_adapter_ceiling_stream_locked = {
	.name = "ceiling:stream_locked",
	.family = "ceiling",
	.desc = "ceiling:stream plus one locked RMW per offer (the claim of a MPSC)",
	.contract = CB_SPSC,
	.kind = CB_KIND_BASELINE,
	.create = stream_create,
	.destroy = stream_destroy,
	.offer = stream_offer_locked_g,
	.poll = stream_poll_g,
	.flush = stream_flush,
	.loops = &ceiling_stream_locked_loops,
};
