/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/spsc_value.h - bounded single-producer single-consumer ring of
 * fixed-size values: the element's bytes in the ring, copied in and out
 * (offer/poll) or written and read in place (claim/commit,
 * peek_claim/release). No value is reserved (conq/impl/value.h has the
 * stride).
 *
 * The protocol: Lamport's ring with each side caching the other's progress,
 * and the publication in the data's own cache line. The slots are laid out
 * in groups of one cache line: a header, then as many slots as fit (15 of
 * 4 bytes, 7 of 8; a slot too big for two to a line has a group of its
 * own). The producer writes slot p and publishes it by storing, in its
 * group's header, p + 1 with release: "every index that this group has
 * held, below this one, is written" (it may be a later lap's than the
 * consumer's: the consumer counts only up to its group's end). The
 * consumer reads the header of the group it is
 * in, so one line transfer brings both the news and the elements, and it
 * never reads the producer's index; it publishes consumption by storing
 * cidx with release, and the producer reads cidx only when its cached
 * limit (cidx + capacity) is used up. The consumer writes no slot and no
 * header: a line moves one way, from producer to consumer, with up to 15
 * elements (FastFlow's and conq_spsc_array's idea, the publication in the
 * slot's line, without a reserved value).
 *
 * Positions move through the groups (no division per element), so a
 * group's index of a slot is fixed by where the ring started: index start +
 * k lives in slot k mod (groups x slots per group), which is at least
 * capacity().
 *
 * At the edges both sides watch before they give up (conq_mpsc_array's
 * chase): right after a look that found elements (room), a look that finds
 * none is repeated CONQ__SPSC_VALUE_CHASE_SPINS times,
 * CONQ__SPSC_VALUE_CHASE_GAP ns apart, before the call answers empty
 * (full), so that the other side fills (empties) the line undisturbed and
 * the next look takes its progress in one transfer. The answer is still
 * exact.
 *
 * Capacity: the requested capacity rounded up to a power of two, from 1 to
 * CONQ_VALUE_MAX_CAPACITY (2^28); element size from 1 to CONQ_VALUE_MAX_ELEM
 * bytes. Else EINVAL.
 *
 * Who may call what, concurrently (P = the one producer thread, C = the one
 * consumer thread, A = any thread). At most one thread acts as P at a time
 * and one as C; handing a role to another thread needs a happens-before
 * edge between the old and the new holder.
 *
 *   function                                          caller  progress
 *   offer, offer_bulk, offer_burst, fill,             P       wait-free
 *   claim, claim_burst, commit, commit_burst
 *   poll, peek, poll_burst, drain, peek_claim,        C       wait-free
 *   peek_claim_burst, release, release_burst
 *   put, put_until                                    P       blocking
 *   take, take_until, peek_claim_until                C       blocking
 *   size, is_empty, capacity, elem_size               A       wait-free
 *   create, init, memsize, ...                        A       (malloc)
 *   destroy                                           A, once no P or C runs
 *
 * Claims: claim() returns the slot of the next index (NULL when full),
 * the same slot until commit() publishes it; claim_burst() up to n
 * consecutive slots, contiguous in memory: it stops at the end of a group
 * (a cache line of slots), and the next call continues in the next one.
 * One claim (or burst) is outstanding at a time; commit what was claimed,
 * all of it. A claim that is never committed is invisible: the consumer
 * never sees it, and the producer writes the same slot again next time.
 * peek_claim()/release() are the consumer's side of it: the head element in
 * place, until release(); peek_claim_burst() likewise stops at a group's
 * end.
 *
 * Ordering: everything the producer wrote before offering (committing) an
 * element happens-before everything the consumer does after the poll
 * (peek_claim) that returns it ([VS1] -> [VS2]); everything the consumer did
 * with a slot before polling (releasing) it happens-before the producer's
 * reuse of the slot ([VS4] -> [VS3]).
 */
#ifndef CONQ_SPSC_VALUE_H
#define CONQ_SPSC_VALUE_H

#include "conq/impl/value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_spsc_value conq_spsc_value;

struct conq_spsc_value {
	/* Read-mostly. */
	conq__value_geom g;
	CONQ__PAD_AFTER(pad_cold, sizeof(conq__value_geom));

	/* Producer-hot: written only by P. */
	conq__idx_t pidx;   /* next index to write; read by size(), is_empty */
	conq__idx_t plimit; /* cached cidx + cap: indices below it are free */
	uint64_t pgs;	    /* offset of pidx's group from the ring */
	uint64_t ppos;	    /* offset of pidx's slot */
	uint64_t pchase;    /* 1: P's last look at cidx found room */
	conq_eventcount nonempty; /* take() waits here; P notifies */
	CONQ__PAD_AFTER(pad_prod, CONQ__IDX_FIELDS(2) + 4 * sizeof(uint64_t));

	/* Consumer-hot: written only by C. */
	conq__idx_t cidx;   /* next index to read; read by P and size() */
	conq__idx_t cavail; /* indices below it are published (cidx's group) */
	uint64_t cgs;	    /* offset of cidx's group */
	uint64_t cpos;	    /* offset of cidx's slot */
	uint64_t cchase;    /* 1: C's last look at a header found elements */
	uint64_t cpart;	    /* 1: ... and found its group partly written */
	conq_eventcount nonfull; /* put() waits here; C notifies */
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(2) + 5 * sizeof(uint64_t));

	/* The groups follow (conq/impl/value.h, gk/ghead/gbytes/ngroups):
	 * each a conq__vtag_t header in ghead bytes, then gk slots. Then the
	 * guard. */
};

CONQ__STATIC_ASSERT(offsetof(conq_spsc_value, pidx) % CONQ_PAD == 0,
		    "producer fields start a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_spsc_value, cidx) % CONQ_PAD == 0,
		    "consumer fields start a padded block");
CONQ__STATIC_ASSERT(sizeof(conq_spsc_value) % CONQ_PAD == 0,
		    "the groups start a padded block");

/* The constructors (conq/impl/value.h lists them): memsize, memsize_opts,
 * init, init_opts, attach, detach, create, destroy, shm_create, shm_open,
 * shm_open_fd, shm_close. */
CONQ__VALUE_DECLS(spsc_value)

#ifndef CONQ__SPSC_VALUE_CHASE_SPINS
#define CONQ__SPSC_VALUE_CHASE_SPINS 4u
#endif
#ifndef CONQ__SPSC_VALUE_CHASE_GAP
#define CONQ__SPSC_VALUE_CHASE_GAP 176u /* ns, as CONQ__MPSC_CHASE_GAP */
#endif
/* The gap before C reads a header whose group it last found partly
 * written (ns; 0: none): the producer is writing that line, and a look
 * every gap, not every poll, lets it fill the line between two transfers. */
#ifndef CONQ__SPSC_VALUE_PART_GAP
#define CONQ__SPSC_VALUE_PART_GAP 176u
#endif

/* The header of the group at offset gs, and the slot at offset pos. */
static inline conq__vtag_t *conq__spsc_value_hdr(const conq_spsc_value *q,
						 uint64_t gs)
{
	/* Through uintptr_t: groups start on a ghead-aligned boundary (at
	 * least the tag's alignment), which -Wcast-align cannot see. */
	return (conq__vtag_t *)((uintptr_t)q + gs);
}

static inline void *conq__spsc_value_at(const conq_spsc_value *q, uint64_t pos)
{
	return (void *)((uintptr_t)q + pos);
}

/* Slots left in the group from offset pos (>= 1). */
static inline uint64_t conq__spsc_value_left(const conq_spsc_value *q,
					     uint64_t gs, uint64_t pos)
{
	return (gs + q->g.gend - pos) / q->g.stride;
}

/* Move (*gs, *pos) on by n slots, n at most the slots left in the group:
 * at the group's end, to the next group's first slot (the first group's
 * after the last). */
static inline void conq__spsc_value_step(const conq_spsc_value *q, uint64_t *gs,
					 uint64_t *pos, uint64_t n)
{
	*pos += n * q->g.stride;
	if (*pos == *gs + q->g.gend) {
		*gs += q->g.gbytes;
		if (*gs == q->g.slots + q->g.ngroups * q->g.gbytes)
			*gs = q->g.slots;
		*pos = *gs + q->g.ghead;
	}
}

/* P: free slots from pidx p (0: full), at least `want` if there are. Reads
 * cidx only when the cached limit falls short; watches it right after a
 * look that found room. */
static CONQ__NOINLINE uint64_t conq__spsc_value_refresh(conq_spsc_value *q,
							conq__idx_t p)
{
	/* [VS3] acquire: pairs with [VS4] (C's release of cidx): the
	 * consumer's reads of the slots below cidx happen-before we
	 * overwrite them. */
	q->plimit = conq__idx_add(conq__load_acquire(&q->cidx), q->g.cap);
	conq__sidx_t n = conq__idx_diff(q->plimit, p);
	for (unsigned i = CONQ__SPSC_VALUE_CHASE_SPINS; n <= 0 && q->pchase && i;
	     i--) {
		conq__watch_gap(CONQ__SPSC_VALUE_CHASE_GAP);
		/* [VS3] acquire, as above. */
		q->plimit =
		    conq__idx_add(conq__load_acquire(&q->cidx), q->g.cap);
		n = conq__idx_diff(q->plimit, p);
	}
	q->pchase = n > 0;
	return n > 0 ? (uint64_t)n : 0;
}

static inline uint64_t conq__spsc_value_room(conq_spsc_value *q,
					     conq__idx_t p, uint64_t want)
{
	conq__sidx_t n = conq__idx_diff(q->plimit, p);
	if (CONQ__LIKELY(n > 0 && (uint64_t)n >= want))
		return (uint64_t)n;
	return conq__spsc_value_refresh(q, p);
}

/* P: the run of n written slots from pidx, all in pidx's group, is
 * published; move on. */
static inline void conq__spsc_value_publish_run(conq_spsc_value *q,
						uint64_t n)
{
	conq__idx_t p = conq__idx_add(q->pidx, n);
	/* [VS1] release: pairs with [VS2] (C's acquire of the header): the
	 * run's bytes, and everything P wrote before, are visible with the
	 * header that names an index past them. */
	conq__store_release(conq__spsc_value_hdr(q, q->pgs),
			    (conq__vtag_t)p);
	conq__spsc_value_step(q, &q->pgs, &q->ppos, n);
	/* [VS6] release: pairs with [VS5] (size, is_empty): a thread that
	 * sees pidx past an index sees its header too. */
	conq__store_release(&q->pidx, p);
}

/* P: after the last run of a call, wake a waiting take(). */
static CONQ__ALWAYS_INLINE void conq__spsc_value_published(conq_spsc_value *q)
{
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
}

/* C: published elements from cidx in cidx's group (0: none), at least
 * `want` if there are. Reads the group's header when the cached count
 * falls short; watches it right after a look that found elements. */
static CONQ__NOINLINE uint64_t conq__spsc_value_fetch(conq_spsc_value *q)
{
	conq__idx_t c = q->cidx;
	conq__vtag_t *h = conq__spsc_value_hdr(q, q->cgs);
	/* The last look found this group partly written: the producer is
	 * writing its line now. Every look takes that line from it, and it
	 * must take it back for its next store: let it write on for a gap
	 * first, so that one transfer brings the rest of the line. */
	if (CONQ__SPSC_VALUE_PART_GAP && q->cpart)
		conq__watch_gap(CONQ__SPSC_VALUE_PART_GAP);
	/* [VS2] acquire: pairs with [VS1]. The header names an index past c
	 * (this lap's) or not past it (the previous lap's, or c's not yet
	 * written): the difference, read as signed, says which. */
	conq__svtag_t n = conq__vtag_diff(conq__load_acquire(h), (conq__vtag_t)c);
	for (unsigned i = CONQ__SPSC_VALUE_CHASE_SPINS; n <= 0 && q->cchase && i;
	     i--) {
		conq__watch_gap(CONQ__SPSC_VALUE_CHASE_GAP);
		/* [VS2] acquire, as above. */
		n = conq__vtag_diff(conq__load_acquire(h), (conq__vtag_t)c);
	}
	q->cchase = n > 0;
	if (n <= 0)
		return 0;
	/* The header may be a later lap's (the producer at the group's first
	 * slots again while we read its last ones): every index of this group
	 * below it is written, but those past the group's end are not ours to
	 * count. */
	uint64_t k = conq__spsc_value_left(q, q->cgs, q->cpos);
	q->cpart = (uint64_t)n < k;
	if ((uint64_t)n < k)
		k = (uint64_t)n;
	q->cavail = conq__idx_add(c, k);
	return k;
}

static inline uint64_t conq__spsc_value_ready(conq_spsc_value *q,
					      uint64_t want)
{
	conq__sidx_t n = conq__idx_diff(q->cavail, q->cidx);
	if (CONQ__LIKELY(n > 0 && (uint64_t)n >= want))
		return (uint64_t)n;
	return conq__spsc_value_fetch(q);
}

/* C: the n consumed slots from cidx, all in cidx's group, go back to P. */
static inline void conq__spsc_value_consume_run(conq_spsc_value *q, uint64_t n)
{
	conq__idx_t c = conq__idx_add(q->cidx, n);
	conq__spsc_value_step(q, &q->cgs, &q->cpos, n);
	/* [VS4] release: pairs with [VS3]: our reads of the slots
	 * happen-before the producer's reuse of them. */
	conq__store_release(&q->cidx, c);
}

static CONQ__ALWAYS_INLINE void conq__spsc_value_consumed(conq_spsc_value *q)
{
	conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
}

/* Offer a copy of the element at e (elem_size() bytes). True if enqueued;
 * false iff the ring holds capacity() elements, or e is NULL (errno =
 * EINVAL; a full ring leaves errno alone). P. Wait-free. Release. */
static inline bool conq_spsc_value_offer(conq_spsc_value *q, const void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	if (CONQ__UNLIKELY(conq__spsc_value_room(q, q->pidx, 1) == 0))
		return false;
	conq__value_copy(conq__spsc_value_at(q, q->ppos), e, q->g.esize);
	conq__spsc_value_publish_run(q, 1);
	conq__spsc_value_published(q);
	return true;
}

/* Poll the oldest element into out (elem_size() bytes). True if there was
 * one; false iff the ring is empty, or out is NULL (errno = EINVAL). C.
 * Wait-free. Acquire. */
static inline bool conq_spsc_value_poll(conq_spsc_value *q, void *out)
{
	if (CONQ__UNLIKELY(out == NULL)) {
		errno = EINVAL;
		return false;
	}
	if (CONQ__UNLIKELY(conq__spsc_value_ready(q, 1) == 0))
		return false;
	conq__value_copy(out, conq__spsc_value_at(q, q->cpos), q->g.esize);
	conq__spsc_value_consume_run(q, 1);
	conq__spsc_value_consumed(q);
	return true;
}

/* Copy the oldest element into out without removing it. False iff empty
 * (or out NULL: EINVAL). C. Wait-free. Acquire. */
static inline bool conq_spsc_value_peek(conq_spsc_value *q, void *out)
{
	if (CONQ__UNLIKELY(out == NULL)) {
		errno = EINVAL;
		return false;
	}
	if (conq__spsc_value_ready(q, 1) == 0)
		return false;
	conq__value_copy(out, conq__spsc_value_at(q, q->cpos), q->g.esize);
	return true;
}

/* P: copy n packed elements from es into the slots from pidx (room known),
 * a group at a time, each group's run published by its header. */
static inline void conq__spsc_value_put_n(conq_spsc_value *q, const void *es,
					  uint64_t n)
{
	const unsigned char *src = (const unsigned char *)es;
	while (n > 0) {
		uint64_t k = conq__spsc_value_left(q, q->pgs, q->ppos);
		if (k > n)
			k = n;
		unsigned char *dst = (unsigned char *)conq__spsc_value_at(q, q->ppos);
		if (q->g.stride == q->g.esize) {
			memcpy(dst, src, (size_t)(k * q->g.esize));
		} else {
			for (uint64_t i = 0; i < k; i++)
				conq__value_copy(dst + i * q->g.stride,
						 src + i * q->g.esize,
						 q->g.esize);
		}
		src += k * q->g.esize;
		conq__spsc_value_publish_run(q, k);
		n -= k;
	}
	conq__spsc_value_published(q);
}

/* Offer all n elements of es[] (packed, elem_size() bytes apart) or none.
 * Returns n, or 0 if fewer than n slots are free, n is 0, or es is NULL
 * (EINVAL). P. Wait-free (O(n)). One release per group. */
static inline size_t conq_spsc_value_offer_bulk(conq_spsc_value *q,
						const void *es, size_t n)
{
	if (CONQ__UNLIKELY(es == NULL)) {
		errno = EINVAL;
		return 0;
	}
	if (n == 0 || conq__spsc_value_room(q, q->pidx, n) < n)
		return 0;
	conq__spsc_value_put_n(q, es, n);
	return n;
}

/* Offer as many of the n elements of es[] as there is room for, in order.
 * Returns how many (es NULL: 0, EINVAL). P. Wait-free (O(n)). */
static inline size_t conq_spsc_value_offer_burst(conq_spsc_value *q,
						 const void *es, size_t n)
{
	if (CONQ__UNLIKELY(es == NULL)) {
		errno = EINVAL;
		return 0;
	}
	uint64_t k = n == 0 ? 0 : conq__spsc_value_room(q, q->pidx, n);
	if (k > n)
		k = n;
	if (k == 0)
		return 0;
	conq__spsc_value_put_n(q, es, k);
	return (size_t)k;
}

/* Poll up to n elements into out[] (packed), oldest first. Returns how many
 * (0 iff empty or n is 0; out NULL: 0, EINVAL). C. Wait-free (O(n)). One
 * header read and one release per group. */
static inline size_t conq_spsc_value_poll_burst(conq_spsc_value *q, void *out,
						size_t n)
{
	if (CONQ__UNLIKELY(out == NULL)) {
		errno = EINVAL;
		return 0;
	}
	unsigned char *dst = (unsigned char *)out;
	size_t done = 0;
	while (done < n) {
		uint64_t k = conq__spsc_value_ready(q, 1);
		if (k == 0)
			break;
		if (k > n - done)
			k = n - done;
		const unsigned char *src =
		    (const unsigned char *)conq__spsc_value_at(q, q->cpos);
		if (q->g.stride == q->g.esize) {
			memcpy(dst, src, (size_t)(k * q->g.esize));
		} else {
			for (uint64_t i = 0; i < k; i++)
				conq__value_copy(dst + i * q->g.esize,
						 src + i * q->g.stride,
						 q->g.esize);
		}
		dst += k * q->g.esize;
		conq__spsc_value_consume_run(q, k);
		done += (size_t)k;
	}
	if (done)
		conq__spsc_value_consumed(q);
	return done;
}

/* The slot of the next element to write, or NULL if the ring is full. The
 * same slot until commit(). P. Wait-free. */
static inline void *conq_spsc_value_claim(conq_spsc_value *q)
{
	if (conq__spsc_value_room(q, q->pidx, 1) == 0)
		return NULL;
	return conq__spsc_value_at(q, q->ppos);
}

/* Up to n free slots from the next index, contiguous (stopping at the end
 * of the group): the first in *first; returns how many (0: full, or n 0).
 * P. Wait-free. */
static inline size_t conq_spsc_value_claim_burst(conq_spsc_value *q, size_t n,
						 void **first)
{
	uint64_t k = n == 0 ? 0 : conq__spsc_value_room(q, q->pidx, n);
	uint64_t left = conq__spsc_value_left(q, q->pgs, q->ppos);
	if (k > n)
		k = n;
	if (k > left)
		k = left;
	*first = k ? conq__spsc_value_at(q, q->ppos) : NULL;
	return (size_t)k;
}

/* Publish the k claimed slots from `first` (a claim: k = 1). False with
 * errno = EINVAL if first is not the next index's slot or k is 0 or more
 * than the free slots of the group (nothing is published). P. Wait-free.
 * Release. */
static inline bool conq_spsc_value_commit_burst(conq_spsc_value *q,
						void *first, size_t k)
{
	if (CONQ__UNLIKELY(first != conq__spsc_value_at(q, q->ppos) || k == 0 ||
			   k > conq__spsc_value_left(q, q->pgs, q->ppos) ||
			   (uint64_t)conq__idx_diff(q->plimit, q->pidx) < k)) {
		errno = EINVAL;
		return false;
	}
	conq__spsc_value_publish_run(q, k);
	conq__spsc_value_published(q);
	return true;
}

static inline bool conq_spsc_value_commit(conq_spsc_value *q, void *slot)
{
	return conq_spsc_value_commit_burst(q, slot, 1);
}

/* The oldest element in place, or NULL if the ring is empty; the same
 * until release(). C. Wait-free. Acquire. */
static inline const void *conq_spsc_value_peek_claim(conq_spsc_value *q)
{
	if (conq__spsc_value_ready(q, 1) == 0)
		return NULL;
	return conq__spsc_value_at(q, q->cpos);
}

/* Up to n elements in place from the oldest, contiguous (stopping at the
 * group's end): the first in *first; returns how many (0: empty). C.
 * Wait-free. Acquire. */
static inline size_t conq_spsc_value_peek_claim_burst(conq_spsc_value *q,
						      size_t n,
						      const void **first)
{
	uint64_t k = n == 0 ? 0 : conq__spsc_value_ready(q, n);
	if (k > n)
		k = n;
	*first = k ? conq__spsc_value_at(q, q->cpos) : NULL;
	return (size_t)k;
}

/* Consume the k elements peeked in place from `first`. False with errno =
 * EINVAL if first is not the oldest element's slot or k is 0 or more than
 * the group holds (nothing is consumed). C. Wait-free. Release. */
static inline bool conq_spsc_value_release_burst(conq_spsc_value *q,
						 const void *first, size_t k)
{
	conq__sidx_t ready = conq__idx_diff(q->cavail, q->cidx);
	if (CONQ__UNLIKELY(first != conq__spsc_value_at(q, q->cpos) || k == 0 ||
			   ready < 0 || (uint64_t)ready < k)) {
		errno = EINVAL;
		return false;
	}
	conq__spsc_value_consume_run(q, k);
	conq__spsc_value_consumed(q);
	return true;
}

static inline bool conq_spsc_value_release(conq_spsc_value *q,
					   const void *slot)
{
	return conq_spsc_value_release_burst(q, slot, 1);
}

/* Hand up to `limit` elements to fn(ctx, elem) in place, oldest first;
 * stops early when the ring is empty. A group's slots go back to P after
 * fn has seen them (one release per group). Returns how many. C; fn must
 * not use this ring's consumer side. Wait-free apart from fn. */
static inline size_t conq_spsc_value_drain(conq_spsc_value *q,
					   conq_value_consume_fn fn, void *ctx,
					   size_t limit)
{
	size_t done = 0;
	while (done < limit) {
		uint64_t k = conq__spsc_value_ready(q, 1);
		if (k == 0)
			break;
		if (k > limit - done)
			k = limit - done;
		uint64_t pos = q->cpos;
		for (uint64_t i = 0; i < k; i++, pos += q->g.stride)
			fn(ctx, conq__spsc_value_at(q, pos));
		conq__spsc_value_consume_run(q, k);
		done += (size_t)k;
	}
	if (done)
		conq__spsc_value_consumed(q);
	return done;
}

/* Enqueue up to `limit` elements that fn(ctx, slot) writes in place, while
 * slots are free; stops when the ring is full or fn returns false. One
 * release per group. Returns how many. P; fn must not use this ring's
 * producer side. Wait-free apart from fn. */
static inline size_t conq_spsc_value_fill(conq_spsc_value *q,
					  conq_value_supply_fn fn, void *ctx,
					  size_t limit)
{
	uint64_t room = limit == 0 ? 0 : conq__spsc_value_room(q, q->pidx, limit);
	if (room > limit)
		room = limit;
	uint64_t done = 0;
	while (done < room) {
		uint64_t k = conq__spsc_value_left(q, q->pgs, q->ppos), n = 0;
		if (k > room - done)
			k = room - done;
		uint64_t pos = q->ppos;
		while (n < k && fn(ctx, conq__spsc_value_at(q, pos))) {
			n++;
			pos += q->g.stride;
		}
		if (n)
			conq__spsc_value_publish_run(q, n);
		done += n;
		if (n < k)
			break;
	}
	if (done)
		conq__spsc_value_published(q);
	return (size_t)done;
}

/* The capacity (a power of two) and the element size. A. Wait-free. */
static inline size_t conq_spsc_value_capacity(const conq_spsc_value *q)
{
	return (size_t)q->g.cap;
}

static inline size_t conq_spsc_value_elem_size(const conq_spsc_value *q)
{
	return (size_t)q->g.esize;
}

/* Elements in the ring, within [0, capacity()]; exact when neither P nor
 * C runs, else a value it held during the call. A. Lock-free (retries while
 * C moves). */
static inline size_t conq_spsc_value_size(const conq_spsc_value *q)
{
	/* [VS5] acquire (all): pairs with [VS6] and [VS4]. */
	return conq__indexed_size(&q->cidx, &q->pidx, q->g.cap);
}

/* True if the ring held no element at some moment of the call (reads cidx
 * first, so it errs towards empty). From C, false means the next poll
 * succeeds. A. Wait-free. */
static inline bool conq_spsc_value_is_empty(const conq_spsc_value *q)
{
	/* [VS5] acquire: pairs with [VS4], then [VS6] (after [VS1]). */
	conq__idx_t c = conq__load_acquire(&q->cidx);
	return conq__idx_diff(conq__load_acquire(&q->pidx), c) <= 0;
}

CONQ__DEFINE_VALUE_BLOCKING(spsc_value, g, nonempty, nonfull,
			    conq_spsc_value_poll, conq_spsc_value_peek_claim,
			    conq__value_no_unblock)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_SPSC_VALUE_H */
