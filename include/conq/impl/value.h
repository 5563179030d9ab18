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
#include "conq/impl/claims.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest element a value ring takes, in bytes. */
#define CONQ_VALUE_MAX_ELEM ((size_t)65536)

/* init_opts() flags. CONQ_VALUE_SHARED: the ring lives in memory several
 * processes map (conq/shm.h): its eventcounts are process-shared
 * (CONQ_EVENTCOUNT_SHARED), and a multi-producer ring (MPSC, MPMC) carries
 * a claim registry (conq/impl/claims.h), so that a consumer stuck on a
 * claim whose producer process died reclaims it (as a tombstone) instead
 * of waiting for ever. */
#define CONQ_VALUE_SHARED 1u
/* Registry entries (producer threads) of a shared multi-producer ring, by
 * default. */
#define CONQ_VALUE_DEFAULT_PRODUCERS 64u
/* How often a consumer of a shared ring, stuck on an uncommitted claim,
 * checks that its producer is alive, by default (ns). Only proof of death
 * reclaims, so this sets how soon a dead producer's claim is skipped, never
 * whether a live one's is. */
#define CONQ_VALUE_DEAD_CHECK_NS (10 * 1000 * 1000)

/* init_opts() options; NULL (or a field 0) takes the default. */
typedef struct conq_value_opts {
	unsigned flags;		/* 0 or CONQ_VALUE_SHARED */
	unsigned max_producers; /* shared MPSC/MPMC: registry entries */
	int64_t dead_check_ns;	/* shared: liveness check period */
} conq_value_opts;

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

/* The geometry: written by init, then only read. 192 bytes, fixed-width,
 * so that a ring in shared memory reads alike in every process of the same
 * build (attach() checks the magic and the layout word). */
typedef struct conq__value_geom {
	uint64_t magic;	 /* CONQ__VALUE_MAGIC */
	uint64_t layout; /* CONQ__VALUE_LAYOUT(kind, sizeof the ring's struct) */
	uint64_t cap;	 /* capacity(), a power of two */
	uint64_t mask;	 /* cap - 1 */
	uint64_t esize;	 /* element size in bytes */
	uint64_t stride; /* bytes from one slot to the next */
	uint64_t tags;	 /* offset of tags[] from the ring, 0: none */
	uint64_t slots;	 /* offset of slots[] (SPSC: of the groups) */
	uint64_t flags;	 /* CONQ_VALUE_SHARED */
	uint64_t bytes;	 /* the ring, guard included, registry excluded */
	uint64_t claims; /* offset of the claim registry, 0: none */
	int64_t dead_ns; /* shared: the liveness check period */
	uint64_t nclaim; /* the registry's entries */
	/* SPSC's groups (conq/spsc_value.h): gk slots after a header of
	 * ghead bytes, gbytes apart, ngroups of them (gk = 0: no groups). */
	uint64_t gk, ghead, gend, gbytes, ngroups;
	uint64_t reserved[6];
} conq__value_geom;

CONQ__STATIC_ASSERT(sizeof(conq__value_geom) == 192, "geometry is 192 bytes");

#define CONQ__VALUE_MAGIC UINT64_C(0x65756c61766e6f63) /* "conqvalu" */
/* What two builds must agree on to share a ring: the format version, the
 * index width, CONQ_PAD, the family, and its struct's size. */
#define CONQ__VALUE_LAYOUT(kind, size)                                         \
	((uint64_t)1 << 56 | (uint64_t)CONQ_INDEX_BITS << 48 |                 \
	 (uint64_t)CONQ_PAD << 32 | (uint64_t)(kind) << 24 | (uint64_t)(size))

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

/* a - b read as signed, for tags holding plain truncated indices (the
 * SPSC ring's group headers). */
static inline conq__svtag_t conq__vtag_diff(conq__vtag_t a, conq__vtag_t b)
{
	return (conq__svtag_t)(conq__vtag_t)(a - b);
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
 * is not the start of one of this ring's slots. A commit, release or abort
 * starts here: a stride that is a power of two (every element size up to
 * 16, and the powers of two above) takes a shift and a mask, not the two
 * 64-bit divisions (tens of cycles each) that other strides need. */
static inline uint64_t conq__value_pos_of(const void *q,
					  const conq__value_geom *g,
					  const void *slot)
{
	uintptr_t base = (uintptr_t)q + g->slots, s = (uintptr_t)slot;
	if (s < base)
		return UINT64_MAX;
	uint64_t off = (uint64_t)(s - base), pos;
	if (CONQ__LIKELY((g->stride & (g->stride - 1)) == 0)) {
		if ((off & (g->stride - 1)) != 0)
			return UINT64_MAX;
		pos = off >> __builtin_ctzll((unsigned long long)g->stride);
	} else {
		if (off % g->stride != 0)
			return UINT64_MAX;
		pos = off / g->stride;
	}
	return pos < g->cap ? pos : UINT64_MAX;
}

/* Copy one element. 4 and 8 bytes, the fast case, are one move each, and
 * 16, 32 and 64 a few (the branches on a read-mostly field are
 * predicted); the rest is a call of memcpy. Slots are plain memory: the
 * ring's tags or indices order every access to them (each family's header
 * says how), so there is no data race to make atomic.
 *
 * gcc (12, -O2 -Wall) follows the fixed-size branches into a caller's
 * object smaller than them (a uint32_t offered to a ring of 4-byte
 * elements, seen through the 8-byte branch) and warns -Warray-bounds; the
 * branches a ring never takes are not accesses, so the copy is kept out
 * of those warnings. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#if __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
#endif
static CONQ__ALWAYS_INLINE void conq__value_copy(void *dst, const void *src,
						 uint64_t esize)
{
	if (esize == 8)
		memcpy(dst, src, 8);
	else if (esize == 4)
		memcpy(dst, src, 4);
	else if (esize == 16)
		memcpy(dst, src, 16);
	else if (esize == 32)
		memcpy(dst, src, 32);
	else if (esize == 64)
		memcpy(dst, src, 64);
	else
		memcpy(dst, src, (size_t)esize);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

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

/* Fill in the geometry for (esize, capacity) and a tag array or not, with
 * `opts` (NULL: private, no registry); `kind` 1..4 (SPSC, MPSC, SPMC, MPMC)
 * and `head` (sizeof the family's struct) make its layout word; `reg`:
 * the family can carry a claim registry (a shared multi-producer ring).
 * false with errno = EINVAL when esize is 0 or above CONQ_VALUE_MAX_ELEM,
 * the capacity 0 or above CONQ_VALUE_MAX_CAPACITY, the options bad, or the
 * ring would not fit in memory. *total: memsize, the registry included. */
bool conq__value_geometry(conq__value_geom *g, unsigned kind, size_t head,
			  size_t esize, size_t capacity, bool tags, bool reg,
			  const conq_value_opts *opts, size_t *total);
/* kind 1 (SPSC) lays its slots out in groups (conq/spsc_value.h). */

/* The start of every value ring's init: checks mem (non-NULL, aligned to
 * CONQ_PAD), zeroes the ring unless `zeroed`, writes the geometry at its
 * start and builds the registry. false with errno = EINVAL on bad input. */
bool conq__value_prepare(void *mem, const conq__value_geom *g, size_t total,
			 int zeroed);

/* Check that `bytes` bytes at mem hold a ring of `kind` with `head` bytes
 * of struct that init built with this build's layout (any process). NULL
 * with errno = EINVAL (not such a ring, or it does not fit) or EPROTO (a
 * ring of another layout). Writes nothing. */
void *conq__value_attach(void *mem, size_t bytes, unsigned kind, size_t head,
			 bool tags);

/* This process stops using a shared ring: its threads' registry entries
 * are freed (conq__claims_detach). No-op without a registry. */
void conq__value_detach(void *q);

/* Allocate a zeroed, CONQ_PAD-aligned block of `total` bytes (create);
 * NULL with errno = ENOMEM. conq__value_free gives it back (NULL: no-op). */
void *conq__value_alloc(size_t total);
void conq__value_free(void *q);

/* A waiting call's round (spin, then yield): conq__wait_backoff. */
void conq__value_backoff(unsigned *spins);

/* The claim registry of a shared multi-producer ring, or NULL. */
static inline conq__claims *conq__value_reg(const void *q,
					    const conq__value_geom *g)
{
	return g->claims ? (conq__claims *)((uintptr_t)q + g->claims) : NULL;
}

/* P, a shared multi-producer ring: the calling thread's registry entry
 * (cold: src/value.c). `fresh`: refused when the thread already holds a
 * claim on this ring (EBUSY: one claim at a time per thread, which the
 * registry's intent can name), and when the registry has no room (EUSERS,
 * ENOMEM). */
bool conq__value_enter_slow(const void *q, const conq__value_geom *g,
			    conq__claim_entry **e, bool fresh);

/* *e = the entry, or NULL on a private ring (the common case: a branch on
 * a read-mostly field). */
static CONQ__ALWAYS_INLINE bool conq__value_enter(const void *q,
						  const conq__value_geom *g,
						  conq__claim_entry **e,
						  bool fresh)
{
	*e = NULL;
	if (CONQ__LIKELY(g->claims == 0))
		return true;
	return conq__value_enter_slow(q, g, e, fresh);
}

/* P: the claim is over (committed, aborted, handed back, or refused). */
static CONQ__ALWAYS_INLINE void conq__value_leave(conq__claim_entry *e)
{
	if (CONQ__UNLIKELY(e != NULL))
		conq__claims_done(e); /* [CL1]: after the commit's release */
}

/* P: before the claim's CAS of the index, at position p. */
static CONQ__ALWAYS_INLINE void conq__value_intend(conq__claim_entry *e,
						   conq__idx_t p)
{
	if (CONQ__UNLIKELY(e != NULL))
		conq__claims_intend(e, conq__claims_token(p)); /* [CL1] */
}

/* C, a shared ring's consumer stuck at index c, claimed and uncommitted:
 * true if no live producer thread's intent covers c (the registry's rule:
 * conq/impl/claims.h), so that its claimer is dead (or has committed since:
 * the caller re-checks the tag with a CAS before it reclaims). */
bool conq__value_claimer_dead(const void *q, const conq__value_geom *g,
			      conq__idx_t c);

/* ---- the constructors every value ring declares ---------------------
 *
 *   memsize(esize, capacity)           bytes for init() (private ring)
 *   memsize_opts(esize, capacity, o)   bytes for init_opts() (a shared
 *                                      multi-producer ring adds its
 *                                      registry)
 *   init(mem, esize, capacity)         build in caller memory, aligned to
 *                                      CONQ_PAD; NULL + EINVAL on bad input
 *   init_opts(mem, esize, capacity, o) the same with options (o NULL: as
 *                                      init). Only the creator inits: init
 *                                      zeroes, which would erase a ring in
 *                                      use (Agrona PR #229)
 *   attach(mem, bytes)                 a ring another process built in
 *                                      shared memory, checked (EINVAL: not
 *                                      one, or it does not fit in bytes;
 *                                      EPROTO: another build's layout)
 *   detach(q)                          this process stops using a shared
 *                                      ring: frees its threads' registry
 *                                      entries (before unmapping it)
 *   create(esize, capacity)            malloc + init; destroy(q) frees it
 *   shm_create(name, esize, capacity, o, shm_opts, &shm)
 *   shm_open(name, esize, capacity, shm_opts, &shm)
 *   shm_open_fd(fd, esize, capacity, shm_opts, &shm)
 *   shm_close(shm)                     the ring in a named region or memfd
 *                                      (conq/shm.h), shared by processes:
 *                                      create makes it CONQ_VALUE_SHARED;
 *                                      open checks the region (kind,
 *                                      layout, geometry: esize and
 *                                      capacity 0 accept the region's) and
 *                                      attaches; close detaches and unmaps.
 *                                      NULL with errno and
 *                                      conq_shm_last_error() on failure.
 *
 * Who may call: any thread; init/attach/create before the ring's use,
 * destroy/detach/shm_close after it. */
struct conq_shm;
struct conq_shm_options;
#define CONQ__VALUE_DECLS(f)                                                   \
	size_t conq_##f##_memsize(size_t elem_size, size_t capacity);          \
	size_t conq_##f##_memsize_opts(size_t elem_size, size_t capacity,      \
				       const conq_value_opts *opts);           \
	conq_##f *conq_##f##_init(void *mem, size_t elem_size,                 \
				  size_t capacity);                            \
	conq_##f *conq_##f##_init_opts(void *mem, size_t elem_size,            \
				       size_t capacity,                        \
				       const conq_value_opts *opts);           \
	conq_##f *conq_##f##_attach(void *mem, size_t bytes);                  \
	void conq_##f##_detach(conq_##f *q);                                   \
	conq_##f *conq_##f##_create(size_t elem_size, size_t capacity);        \
	void conq_##f##_destroy(conq_##f *q);                                  \
	conq_##f *conq_##f##_shm_create(                                       \
	    const char *name, size_t elem_size, size_t capacity,               \
	    const conq_value_opts *opts,                                       \
	    const struct conq_shm_options *shm_opts, struct conq_shm **shm);   \
	conq_##f *conq_##f##_shm_open(const char *name, size_t elem_size,      \
				      size_t capacity,                         \
				      const struct conq_shm_options *shm_opts, \
				      struct conq_shm **shm);                  \
	conq_##f *conq_##f##_shm_open_fd(int fd, size_t elem_size,             \
					 size_t capacity,                      \
					 const struct conq_shm_options *opts,  \
					 struct conq_shm **shm);               \
	int conq_##f##_shm_close(struct conq_shm *shm);

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
 *   const void *conq_<f>_peek_claim_until(q, deadline)
 *                                                peek_claim, waiting while
 *                                                empty (NULL + ETIMEDOUT at
 *                                                the deadline): a consumer
 *                                                that sleeps and reads in
 *                                                place
 *
 * put: true once e is in the ring; false with errno = EINVAL for a NULL e
 * (never waits), ETIMEDOUT at the deadline. take: true with the element in
 * *out; false with errno = EINVAL for a NULL out, ETIMEDOUT at the
 * deadline, which take keeps even while the oldest element is claimed and
 * not yet committed (it parks until the commit, instead of spinning on it
 * as poll does); on a shared multi-producer ring it also reclaims such a
 * claim once its producer's process is dead (unblock). Who may call: put
 * as offer, take as poll. Blocking. Ordering as offer/poll.
 */
typedef struct conq__value_call {
	void *q;
	void *buf; /* the element to offer, or where to poll into */
} conq__value_call;

/* take() on a shared multi-producer ring (cold, src/value.c): waits as
 * conq__take_wait, in slices of the ring's dead_check_ns, calling
 * unblock(q) between them, so that an element stuck behind a dead
 * producer's claim is reached. */
bool conq__value_take_shared(conq__value_call *v, void *(*poll)(void *),
			     conq_eventcount *ec, int64_t deadline,
			     int64_t slice, bool (*unblock)(void *));

/* For the rings that have no unblock (the single-producer ones). */
static inline bool conq__value_no_unblock(void *q)
{
	(void)q;
	return false;
}

/* f: the family; G: its geometry member; ne, nf: its eventcounts; tpoll:
 * the poll that take() retries (the multi-producer rings' relaxed_poll,
 * which never waits on a claimed, uncommitted element: take() then parks
 * until its commit notifies, or until its deadline, instead of waiting
 * inside the poll without one); tpeek: the peek_claim that
 * peek_claim_until retries (likewise never waiting on a claimed,
 * uncommitted element); unblock: the ring's unblock(void *), or
 * conq__value_no_unblock. */
#define CONQ__DEFINE_VALUE_BLOCKING(f, G, ne, nf, tpoll, tpeek, unblock)       \
	static inline void *conq__##f##_poll_erased(void *c)                  \
	{                                                                      \
		conq__value_call *v = (conq__value_call *)c;                   \
		return tpoll((conq_##f *)v->q, v->buf) ? c : NULL;             \
	}                                                                      \
	static inline void *conq__##f##_peek_erased(void *c)                  \
	{                                                                      \
		conq__value_call *v = (conq__value_call *)c;                   \
		const void *s = tpeek((conq_##f *)v->q);                       \
		v->buf = (void *)(uintptr_t)s;                                 \
		return s != NULL ? c : NULL;                                   \
	}                                                                      \
	static inline const void *conq_##f##_peek_claim_until(                 \
	    conq_##f *q, int64_t deadline)                                     \
	{                                                                      \
		const void *s = tpeek(q);                                      \
		if (CONQ__LIKELY(s != NULL))                                   \
			return s;                                              \
		conq__value_call v = {q, NULL};                                \
		bool got = q->G.claims != 0                                    \
			       ? conq__value_take_shared(                      \
				     &v, conq__##f##_peek_erased, &q->ne,      \
				     deadline, q->G.dead_ns, unblock)          \
			       : conq__take_wait(&v, conq__##f##_peek_erased,  \
						 &q->ne, deadline) != NULL;    \
		return got ? v.buf : NULL;                                     \
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
		if (CONQ__LIKELY(tpoll(q, out)))                               \
			return true;                                           \
		conq__value_call v = {q, out};                                 \
		if (q->G.claims != 0)                                          \
			return conq__value_take_shared(                        \
			    &v, conq__##f##_poll_erased, &q->ne, deadline,     \
			    q->G.dead_ns, unblock);                            \
		return conq__take_wait(&v, conq__##f##_poll_erased, &q->ne,    \
				       deadline) != NULL;                      \
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
