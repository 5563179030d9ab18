/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/impl/value.h - the skeleton the four value rings share
 * (conq_spsc_value, conq_mpsc_value, conq_spmc_value, conq_mpmc_value):
 * their read-mostly geometry block, slot addressing, the element copy, the
 * slot tags of the multi-party rings, and their blocking calls.
 *
 * A value ring holds the element's bytes in its slots, not a pointer to
 * them: elements of a fixed size chosen at init (1 byte up to
 * CONQ_VALUE_MAX_ELEM), copied in by offer and out by poll, or written and
 * read in place (claim/commit, peek_claim/release). No value is reserved: a
 * zero element is an element. So, unlike the `void *` families, a slot's
 * contents cannot say whether it is full; the rings say it with indices
 * (SPSC) or with a tag per slot (the others).
 *
 * Memory, from the ring's start (aligned to CONQ_PAD):
 *
 *   the family's struct     geometry, then the producers' and the
 *                           consumers' blocks, each CONQ_PAD apart
 *   tags[capacity]          conq__vtag_t each (MPSC, SPMC, MPMC), padded
 *                           to CONQ_PAD
 *   slots[capacity]         `stride` bytes each, from a CONQ_PAD boundary
 *   guard                   CONQ_PAD bytes
 *
 * Offsets, never pointers: the ring may be mapped at different addresses in
 * different processes (conq/shm.h), and its layout depends only on the
 * element size, the capacity, CONQ_PAD and CONQ_INDEX_BITS (the fields are
 * fixed-width).
 *
 * The stride: the element size rounded up to a power of two while it is at
 * most 16 (1, 2, 4, 8, 16), then to a multiple of 16. So a slot is aligned
 * to min(stride, 16) bytes: a caller can claim a slot and write its struct
 * in place. A 4-byte ring moves 16 elements per 64-byte line (a JVM's
 * compressed references), an 8-byte one 8.
 */
#ifndef CONQ_IMPL_VALUE_H
#define CONQ_IMPL_VALUE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "conq/common.h"
#include "conq/impl/blocking.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest element a value ring takes, in bytes. */
#define CONQ_VALUE_MAX_ELEM ((size_t)65536)

/* init flags. CONQ_VALUE_SHARED: the ring lives in memory several
 * processes map (conq/shm.h): its eventcounts are process-shared
 * (CONQ_EVENTCOUNT_SHARED). */
#define CONQ_VALUE_SHARED 1u

/* drain(): called once per element, oldest first, on the consumer thread,
 * with the element's bytes in place (`elem_size()` of them, aligned as a
 * slot). The slot is the consumer's until fn returns; fn must not keep the
 * pointer, nor call back into the ring's consumer side. */
typedef void (*conq_value_consume_fn)(void *ctx, const void *elem);

/* fill(): called once per element to enqueue, on the producer thread, only
 * when a slot is already claimed for it: fn writes the element into `slot`
 * (elem_size() bytes) and returns true, or returns false to end the fill
 * early (the slot is handed back; nothing is lost). */
typedef bool (*conq_value_supply_fn)(void *ctx, void *slot);

/* The geometry: written by init, then only read. 64 bytes, fixed-width. */
typedef struct conq__value_geom {
	uint64_t cap;    /* capacity(), a power of two */
	uint64_t mask;   /* cap - 1 */
	uint64_t esize;  /* element size in bytes */
	uint64_t stride; /* bytes from one slot to the next */
	uint64_t tags;   /* offset of tags[] from the ring, 0: none */
	uint64_t slots;  /* offset of slots[] from the ring */
	uint64_t flags;  /* CONQ_VALUE_SHARED */
	uint64_t bytes;  /* memsize(): the whole ring, guard included */
} conq__value_geom;

CONQ__STATIC_ASSERT(sizeof(conq__value_geom) == 64, "geometry is 64 bytes");

/*
 * Slot tags (MPSC, SPMC, MPMC), as conq_mpmc_array's cell sequence: a tag
 * is the lap of an index i (i with the slot bits cleared) shifted left by
 * two, truncated to conq__vtag_t, with a state in the low two bits:
 *
 *   FREE(i) = lap(i) << 2 | 0   the slot is free for index i (SPMC, MPMC)
 *   FULL(i) = lap(i) << 2 | 2   the element of index i is committed
 *   TOMB(i) = lap(i) << 2 | 3   index i was claimed and aborted: a tombstone
 *                               the consumer skips (MPSC, MPMC)
 *
 *   MPSC   producers store FULL(i) or TOMB(i); the consumer never writes
 *          tags: producers learn of free slots from the consumer index, as
 *          in conq_mpsc_array. A slot holds FULL/TOMB of its previous
 *          lap's index until its producer commits.
 *   SPMC,  Dmitry Vyukov's bounded MPMC queue (JCTools' MpmcArrayQueue):
 *   MPMC   the producer of i waits for FREE(i) and stores FULL(i) (or
 *          TOMB(i)); the consumer that takes i stores FREE(i + capacity).
 *
 * The difference of a tag and lap(i) << 2, read as signed, is the slot's
 * state for i: FREE, FULL or TOMB; negative, an earlier lap; 4 capacity()
 * or more, a later one. 32 bits are enough with 64-bit indices: a slot's
 * tag is within a lap of any index a thread that is not stale compares it
 * with (4 capacity() <= 2^30 with CONQ_VALUE_MAX_CAPACITY = 2^28), and a
 * stale thread is caught by the 64-bit CAS of the index it claims with.
 * Narrow index builds (CONQ_INDEX_BITS) make tags as narrow as the
 * indices, so that they wrap as often (capacity there is at most 2^12).
 */
#if CONQ_INDEX_BITS == 64
typedef uint32_t conq__vtag_t;
typedef int32_t conq__svtag_t;
#else
typedef conq__idx_t conq__vtag_t;
typedef conq__sidx_t conq__svtag_t;
#endif

/* The largest capacity of a value ring (after rounding up). */
#if CONQ_INDEX_BITS == 64 && SIZE_MAX > 0xffffffffu
#define CONQ_VALUE_MAX_CAPACITY ((size_t)1 << 28)
#else
#define CONQ_VALUE_MAX_CAPACITY CONQ_ARRAY_MAX_CAPACITY
#endif
CONQ__STATIC_ASSERT((uint64_t)CONQ_VALUE_MAX_CAPACITY * 8 <=
			    ((uint64_t)1 << (sizeof(conq__vtag_t) * 8 - 1)),
		    "tags a lap apart stay unambiguous");

#define CONQ__VT_FREE 0
#define CONQ__VT_FULL 2
#define CONQ__VT_TOMB 3
#define CONQ__VT_STATE 3u

/* lap(i) << 2 | state. */
static inline conq__vtag_t conq__vtag(uint64_t mask, conq__idx_t i,
				      unsigned state)
{
	return (conq__vtag_t)((conq__vtag_t)((conq__vtag_t)(i & ~mask) << 2) |
			      state);
}

/* The state of tag t for index i: FREE, FULL, TOMB; < 0 an earlier lap;
 * >= 4 a later one. */
static inline conq__svtag_t conq__vtag_state(uint64_t mask, conq__vtag_t t,
					     conq__idx_t i)
{
	return (conq__svtag_t)(conq__vtag_t)(t - conq__vtag(mask, i, 0));
}

/* The same slot's tag one lap on, in `state`: from FULL/TOMB(i) (or
 * FREE(i)) to <state>(i + capacity). */
static inline conq__vtag_t conq__vtag_next_lap(uint64_t cap, conq__vtag_t t,
					       unsigned state)
{
	return (conq__vtag_t)((conq__vtag_t)((conq__vtag_t)(t & ~(conq__vtag_t)
							    CONQ__VT_STATE) +
					     (conq__vtag_t)(cap << 2)) |
			      state);
}

/* The tag array and the slot of index i. Through uintptr_t: both start on
 * a CONQ_PAD boundary, which -Wcast-align cannot see through a char
 * pointer. */
static inline conq__vtag_t *conq__value_tags(const void *q,
					     const conq__value_geom *g)
{
	return (conq__vtag_t *)((uintptr_t)q + g->tags);
}

static inline void *conq__value_slot(const void *q, const conq__value_geom *g,
				     conq__idx_t i)
{
	return (void *)((uintptr_t)q + g->slots +
			(uint64_t)(i & g->mask) * g->stride);
}

/* The ring position (0 .. cap - 1) of a slot pointer, or UINT64_MAX if it
 * is not the start of one of this ring's slots. */
static inline uint64_t conq__value_pos_of(const void *q,
					  const conq__value_geom *g,
					  const void *slot)
{
	uintptr_t base = (uintptr_t)q + g->slots, s = (uintptr_t)slot;
	if (s < base)
		return UINT64_MAX;
	uint64_t off = (uint64_t)(s - base);
	if (off % g->stride != 0 || off / g->stride >= g->cap)
		return UINT64_MAX;
	return off / g->stride;
}

/* Copy one element. 4 and 8 bytes, the fast case, are one move each (the
 * branch on a read-mostly field is predicted); the rest is memcpy. Slots
 * are plain memory: the ring's tags or indices order every access to them
 * (each family's header says how), so there is no data race to make
 * atomic. */
static CONQ__ALWAYS_INLINE void conq__value_copy(void *dst, const void *src,
						 uint64_t esize)
{
	if (esize == 8)
		memcpy(dst, src, 8);
	else if (esize == 4)
		memcpy(dst, src, 4);
	else
		memcpy(dst, src, (size_t)esize);
}

/* Copy n elements between the ring and a caller's array of packed
 * elements (esize bytes apart), the ring side starting at index i and
 * wrapping at the ring's end. to_ring: es -> slots; else slots -> es. */
static inline void conq__value_copy_n(void *q, const conq__value_geom *g,
				      conq__idx_t i, void *es, uint64_t n,
				      bool to_ring)
{
	unsigned char *p = (unsigned char *)es;
	if (g->stride == g->esize) {
		/* Packed: at most two memcpy, split at the ring's end. */
		uint64_t pos = (uint64_t)(i & g->mask);
		uint64_t first = g->cap - pos < n ? g->cap - pos : n;
		void *s = conq__value_slot(q, g, i);
		size_t b1 = (size_t)(first * g->esize);
		if (to_ring)
			memcpy(s, p, b1);
		else
			memcpy(p, s, b1);
		if (first < n) {
			void *s0 = (void *)((uintptr_t)q + g->slots);
			size_t b2 = (size_t)((n - first) * g->esize);
			if (to_ring)
				memcpy(s0, p + b1, b2);
			else
				memcpy(p + b1, s0, b2);
		}
		return;
	}
	for (uint64_t k = 0; k < n; k++, p += g->esize) {
		void *s = conq__value_slot(q, g, conq__idx_add(i, k));
		if (to_ring)
			conq__value_copy(s, p, g->esize);
		else
			conq__value_copy(p, s, g->esize);
	}
}

/* ---- cold paths shared by the four rings (src/value.c) ---------------- */

/* Fill in the geometry for (esize, capacity) and a tag array or not;
 * false with errno = EINVAL when esize is 0 or above CONQ_VALUE_MAX_ELEM,
 * the capacity 0 or above CONQ_VALUE_MAX_CAPACITY, or the ring would not
 * fit in memory. `head` is sizeof the family's struct. Capacity: at most
 * CONQ_VALUE_MAX_CAPACITY. */
bool conq__value_geometry(conq__value_geom *g, size_t head, size_t esize,
			  size_t capacity, bool tags);

/* The start of every value ring's init: checks mem (non-NULL, aligned to
 * CONQ_PAD) and flags, zeroes the ring unless `zeroed`, and writes the
 * geometry at its start. false with errno = EINVAL on bad input. */
bool conq__value_prepare(void *mem, const conq__value_geom *g,
			 unsigned flags, int zeroed);

/* Allocate a zeroed, CONQ_PAD-aligned block of g->bytes (create); NULL
 * with errno = ENOMEM. conq__value_free gives it back (NULL: no-op). */
void *conq__value_alloc(const conq__value_geom *g);
void conq__value_free(void *q);

/* A waiting call's round (spin, then yield): conq__wait_backoff. */
void conq__value_backoff(unsigned *spins);

/* ---- blocking calls ----------------------------------------------------
 *
 * put/put_until/take/take_until over the family's offer/poll and its two
 * eventcounts (members `ne`, nonempty, and `nf`, nonfull), through the type-erased waits of impl/blocking.h (which
 * move `void *`): the value and the ring travel in a conq__value_call, and
 * the erased try returns the call itself for "done", NULL for "not now".
 *
 *   bool conq_<f>_put(q, e)                      offer, waiting while full
 *   bool conq_<f>_put_until(q, e, deadline)      ... until the deadline
 *   bool conq_<f>_take(q, out)                   poll, waiting while empty
 *   bool conq_<f>_take_until(q, out, deadline)   ... until the deadline
 *
 * put: true once e is in the ring; false with errno = EINVAL for a NULL e
 * (never waits), ETIMEDOUT at the deadline. take: true with the element in
 * *out; false with errno = EINVAL for a NULL out, ETIMEDOUT at the
 * deadline. Who may call: put as offer, take as poll. Blocking. Ordering
 * as offer/poll.
 */
typedef struct conq__value_call {
	void *q;
	void *buf; /* the element to offer, or where to poll into */
} conq__value_call;

#define CONQ__DEFINE_VALUE_BLOCKING(f, ne, nf)                                       \
	static inline void *conq__##f##_poll_erased(void *c)                  \
	{                                                                      \
		conq__value_call *v = (conq__value_call *)c;                   \
		return conq_##f##_poll((conq_##f *)v->q, v->buf) ? c : NULL;   \
	}                                                                      \
	static inline bool conq__##f##_offer_erased(void *c, void *e)         \
	{                                                                      \
		conq__value_call *v = (conq__value_call *)c;                   \
		return conq_##f##_offer((conq_##f *)v->q, e);                  \
	}                                                                      \
	static inline bool conq_##f##_take_until(conq_##f *q, void *out,       \
						 int64_t deadline)             \
	{                                                                      \
		if (CONQ__UNLIKELY(out == NULL)) {                             \
			errno = EINVAL;                                        \
			return false;                                          \
		}                                                              \
		if (CONQ__LIKELY(conq_##f##_poll(q, out)))                     \
			return true;                                           \
		conq__value_call v = {q, out};                                 \
		return conq__take_wait(&v, conq__##f##_poll_erased,            \
				       &q->ne, deadline) != NULL;                \
	}                                                                      \
	static inline bool conq_##f##_take(conq_##f *q, void *out)             \
	{                                                                      \
		return conq_##f##_take_until(q, out, CONQ_NO_DEADLINE);        \
	}                                                                      \
	static inline bool conq_##f##_put_until(conq_##f *q, const void *e,    \
						int64_t deadline)              \
	{                                                                      \
		if (CONQ__UNLIKELY(e == NULL)) {                               \
			errno = EINVAL;                                        \
			return false;                                          \
		}                                                              \
		if (CONQ__LIKELY(conq_##f##_offer(q, e)))                      \
			return true;                                           \
		conq__value_call v = {q, NULL};                                \
		return conq__put_wait(&v, conq__##f##_offer_erased,            \
				      (void *)(uintptr_t)e, &q->nf,            \
				      deadline);                               \
	}                                                                      \
	static inline bool conq_##f##_put(conq_##f *q, const void *e)          \
	{                                                                      \
		return conq_##f##_put_until(q, e, CONQ_NO_DEADLINE);           \
	}                                                                      \
	static inline unsigned conq__##f##_take_waiters(const conq_##f *q)     \
	{                                                                      \
		return conq_eventcount_waiters(&q->ne);                        \
	}                                                                      \
	static inline unsigned conq__##f##_put_waiters(const conq_##f *q)      \
	{                                                                      \
		return conq_eventcount_waiters(&q->nf);                        \
	}

#ifdef __cplusplus
}
#endif

#endif /* CONQ_IMPL_VALUE_H */
