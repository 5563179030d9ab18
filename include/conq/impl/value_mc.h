/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/impl/value_mc.h - the multi-consumer value rings' shared protocol
 * (conq_spmc_value, conq_mpmc_value): Dmitry Vyukov's bounded MPMC queue
 * (JCTools' MpmcArrayQueue), with conq_mpmc_array's rule for the edges,
 * over separate tag and slot arrays (conq/impl/value.h).
 *
 * Index i lives in slot i mod n (n = capacity()); the slot's tag says its
 * lap and state: FREE(i), FULL(i), TOMB(i).
 *
 *   produce i: the tag of i is FREE(i): the consumer of i - n released the
 *              slot, which proves room for i (and for every index before
 *              it). Multi-producer: claim i with a CAS of pidx (one CAS
 *              for a run, on the evidence of the run's last tag); single
 *              producer: it is ours. Write the slot; store FULL(i) with
 *              release ([V4]); the single producer then stores pidx.
 *   consume i: the tag of i is FULL(i) (or TOMB(i)): claim i (a run: the
 *              consecutive FULL/TOMB tags from i) with a CAS of cidx, read
 *              the slot, store FREE(i + n) with release ([V6]).
 *
 * A thread claims only indices whose tags prove it may (or, for a batch of
 * offers that the tags do not prove, after cidx proved the room, then waits
 * per slot for a release in progress), so every claimed slot is written
 * and read by exactly the threads that claimed it: slots are plain memory.
 *
 * The edges, where a tag cannot decide (conq_mpmc_array, issue 12): a
 * producer whose tag is still in the previous lap (the ring is full, or the
 * consumer of i - n has claimed and not yet released it) watches the tag
 * CONQ__MPMC_CHASE_SPINS times CONQ__MPMC_CHASE_GAP ns apart, then reads
 * cidx: full iff i - cidx >= n. A multi-producer ring's consumer whose tag
 * is not yet FULL (the ring is empty, or i's producer has claimed and not
 * yet committed) watches likewise, then reads pidx: empty iff pidx <= i.
 * A single producer publishes in index order, so there a tag that is not
 * FULL(i), with i read from cidx before it, is an empty ring: the consumers
 * of a SPMC ring never read pidx.
 *
 * pidx and cidx are accessed seq_cst in the multi-party decisions, as in
 * conq_mpmc_array, so that a side's reads of both counters agree with one
 * total order (the "full" and "empty" arguments compare a counter read
 * with a later read of the other).
 */
#ifndef CONQ_IMPL_VALUE_MC_H
#define CONQ_IMPL_VALUE_MC_H

#include "conq/impl/value.h"
#include "conq/mpmc_array.h" /* CONQ__MPMC_CHASE_*, conq__mpmc_backoff */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq__vring {
	/* Read-mostly. */
	conq__value_geom g;
	CONQ__PAD_AFTER(pad_cold, sizeof(conq__value_geom));

	/* Producer-hot: the producers' index (CASed by MPMC offers). */
	conq__idx_t pidx; /* next index to produce; read by C at the edge */
	conq_eventcount nonempty; /* take() waits here; producers notify */
	CONQ__PAD_AFTER(pad_prod, CONQ__IDX_FIELDS(1) + sizeof(uint64_t));

	/* Consumer-hot: CASed by polls. */
	conq__idx_t cidx; /* next index to consume; read by P at the edge */
	conq_eventcount nonfull; /* put() waits here; consumers notify */
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(1) + sizeof(uint64_t));

	/* tags[cap], slots[cap] follow (conq/impl/value.h), then the guard. */
} conq__vring;

CONQ__STATIC_ASSERT(offsetof(conq__vring, pidx) % CONQ_PAD == 0,
		    "producer fields start a padded block");
CONQ__STATIC_ASSERT(offsetof(conq__vring, cidx) % CONQ_PAD == 0,
		    "consumer fields start a padded block");
CONQ__STATIC_ASSERT(sizeof(conq__vring) % CONQ_PAD == 0,
		    "the tags start a padded block");

/* The state of index i's tag ([V2]/[V5] acquire: pairs with [V6], a
 * consumer's release of FREE(i), and [V4], a producer's of FULL/TOMB(i):
 * what the tag's last writer did before storing it is visible). */
static inline conq__svtag_t conq__vring_look(const conq__vring *r,
					     conq__idx_t i)
{
	return conq__vtag_state(
	    r->g.mask,
	    conq__load_acquire(&conq__value_tags(r, &r->g)[i & r->g.mask]), i);
}

/* Cold (src/value.c): the edges, as conq__mpmc_edge_put/take.
 * edge_put: index p's tag is in an earlier lap; watch it, then cidx
 * decides: false if full (p - cidx >= cap), else wait until the tag is
 * FREE(p) or (mp) pidx moved off p, and return true (look again).
 * edge_take (mp): index c's tag is FREE(c) or earlier; watch, then pidx
 * decides: false if empty (pidx <= c) or, with wait false, at a bubble;
 * else wait until the tag is FULL/TOMB or cidx moved off c, true. */
bool conq__vring_edge_put(conq__vring *r, conq__idx_t p, bool mp);
bool conq__vring_edge_take(conq__vring *r, conq__idx_t c, bool wait);

/* P: wait until index i (claimed, its room proven) is FREE(i): a consumer
 * of i - cap may still be releasing it. */
static inline void conq__vring_wait_free(const conq__vring *r, conq__idx_t i)
{
	unsigned k = 0;
	while (conq__vring_look(r, i) != CONQ__VT_FREE)
		conq__mpmc_backoff(&k);
}

/*
 * P: claim up to k >= 1 indices from pidx, at least `need` (1 <= need <= k)
 * or none; `to_end`: not past the ring's end; `wait`: a single index whose
 * slot is still being released (or, for MPMC, whose tag is stale) is
 * waited for, else 0 (the relaxed calls). Returns how many, the first in
 * *first. FREE in the tag of the run's last index proves room for the run;
 * else one index decides at the edge, a run on cidx (then some of its
 * slots may still be under release: the caller waits with wait_free).
 * Single producer (mp false): nothing is CASed; the run is the caller's
 * until it publishes pidx. e: the thread's registry entry on a shared
 * MPMC ring (NULL: private): its intent is stored before every CAS, and
 * cleared when the claim fails.
 */
static inline uint64_t conq__vring_claim_put(conq__vring *r, uint64_t k,
					     uint64_t need, bool to_end,
					     bool wait, bool mp,
					     conq__claim_entry *e,
					     conq__idx_t *first)
{
	/* [V1] seq_cst: pairs with [V1] (the other producers' CAS) and
	 * [V9] (the consumers' reads of pidx). The single producer reads
	 * its own index. */
	conq__idx_t p = mp ? conq__load_seq_cst(&r->pidx)
			   : conq__load_relaxed(&r->pidx);
	for (;;) {
		uint64_t m = k;
		if (to_end) {
			uint64_t end = r->g.cap - (uint64_t)(p & r->g.mask);
			if (m > end)
				m = end;
			if (m < need) {
				conq__value_leave(e);
				return 0;
			}
		}
		conq__svtag_t d = conq__vring_look(r, conq__idx_add(p, m - 1));
		if (d != CONQ__VT_FREE) {
			if (d > 0 || (m > 1 && conq__vring_look(r, p) > 0)) {
				/* Stale p: another producer claimed it. */
				/* [V1] seq_cst, as above. */
				p = conq__load_seq_cst(&r->pidx);
				continue;
			}
			if (m == 1) {
				if (!wait || !conq__vring_edge_put(r, p, mp)) {
					conq__value_leave(e);
					return 0;
				}
				/* [V1] seq_cst, as above. */
				p = mp ? conq__load_seq_cst(&r->pidx) : p;
				continue;
			}
			/* [V8] seq_cst: pairs with [V7]. Indices below cidx
			 * are claimed by consumers (their slots FREE or on
			 * their way): the room when p was read. */
			conq__sidx_t room = conq__idx_diff(
			    conq__idx_add(conq__load_seq_cst(&r->cidx),
					  r->g.cap),
			    p);
			if ((int64_t)room < (int64_t)need) {
				conq__value_leave(e);
				return 0;
			}
			if ((uint64_t)room < m)
				m = (uint64_t)room;
		}
		/* A shared ring: the intent before the CAS ([CL1]). */
		conq__value_intend(e, p);
		/* [V1] seq_cst CAS: pairs with [V1] and [V9]: the claim.
		 * Failure reloads p. */
		if (!mp ||
		    conq__cas_strong_seq_cst(&r->pidx, &p, conq__idx_add(p, m))) {
			*first = p;
			return m;
		}
	}
}

/* P: store index i's tag, state st (FULL or TOMB), for a slot written. */
static inline void conq__vring_publish(conq__vring *r, conq__idx_t i,
				       unsigned st)
{
	/* [V4] release: pairs with [V5] (a consumer's acquire of the tag):
	 * the slot's bytes, and everything the producer wrote before, are
	 * visible with FULL. Each tag its own release: consumers read them
	 * independently. */
	conq__store_release(&conq__value_tags(r, &r->g)[i & r->g.mask],
			    conq__vtag(r->g.mask, i, st));
}

/* P, single producer: publish pidx after the run's tags (for size(),
 * is_empty() and put's waiters), and wake a waiting take(). MPMC: the
 * wake only (its CAS moved pidx). */
static inline void conq__vring_published(conq__vring *r, conq__idx_t next,
					 bool mp)
{
	if (!mp)
		/* [V3] release: pairs with [V10] (size, is_empty), so that a
		 * thread that sees the index also sees the tags. The SPMC
		 * consumers never read pidx (see the header comment). */
		conq__store_release(&r->pidx, next);
	conq_eventcount_notify(&r->nonempty); /* [E2]: a waiting take() */
}

/* P (MPMC): give back indices [from, to), claimed by this thread and not
 * published: to pidx if no producer claimed after them, else as
 * tombstones. Both wake the other side (conq__mpmc_unclaim says why). */
static inline void conq__vring_unclaim(conq__vring *r, conq__idx_t from,
				       conq__idx_t to)
{
	conq__idx_t p = to;
	/* [V11] seq_cst CAS: pairs with [V1] and [V9]: a consumer waiting at
	 * one of these indices re-reads pidx and finds the ring empty. */
	if (conq__cas_strong_seq_cst(&r->pidx, &p, from)) {
		conq_eventcount_notify(&r->nonfull); /* [E2]: a waiting put() */
		return;
	}
	for (conq__idx_t i = from; i != to; i = conq__idx_add(i, 1)) {
		conq__vring_wait_free(r, i);
		conq__vring_publish(r, i, CONQ__VT_TOMB);
	}
	conq_eventcount_notify(&r->nonempty); /* [E2]: a waiting take() */
}

/*
 * C: claim up to k >= 1 consecutive indices from cidx whose tags are FULL
 * or TOMB (the run stops at the first that is not, and at the ring's end
 * when `to_end`; `pure`: at the first whose state differs from the first
 * one's, so that a run is all elements or all tombstones). Returns how
 * many, the first in *first; 0 if the ring was empty (or, mp and `wait`
 * false, at a bubble). A consumer claims only what its tags show
 * committed, so it never waits after its claim.
 */
static inline uint64_t conq__vring_claim_take(conq__vring *r, uint64_t k,
					      bool to_end, bool pure, bool wait,
					      bool mp, conq__idx_t *first)
{
	/* [V7] seq_cst: pairs with [V7] (the other consumers' CAS) and [V8]
	 * (the producers' reads of cidx). */
	conq__idx_t c = conq__load_seq_cst(&r->cidx);
	for (;;) {
		uint64_t m = 0, lim = k;
		if (to_end) {
			uint64_t e = r->g.cap - (uint64_t)(c & r->g.mask);
			if (lim > e)
				lim = e;
		}
		conq__svtag_t d = CONQ__VT_FREE, d0 = CONQ__VT_FREE;
		/* [V5] acquire (each): pairs with [V4]. */
		while (m < lim &&
		       ((d = conq__vring_look(r, conq__idx_add(c, m))) ==
			    CONQ__VT_FULL ||
			d == CONQ__VT_TOMB)) {
			if (m == 0)
				d0 = d;
			else if (pure && d != d0)
				break;
			m++;
		}
		if (m == 0) {
			if (d > CONQ__VT_TOMB) {
				/* Taken: c is stale. [V7] seq_cst. */
				c = conq__load_seq_cst(&r->cidx);
				continue;
			}
			/* Not committed: a single producer commits in
			 * order and c was read from cidx before the tag,
			 * so nothing was left to take then: empty, if c
			 * is still cidx. (A thread stalled between the two
			 * reads for 2^29 indices, 2^13 in a 16-bit index
			 * build, could read a far later lap's tag as an
			 * earlier one: tags compare 4 x index distances;
			 * the re-read sees that cidx moved.) [V7]
			 * seq_cst, as above. */
			if (!mp) {
				conq__idx_t c2 = conq__load_seq_cst(&r->cidx);
				if (c2 == c)
					return 0;
				c = c2;
				continue;
			}
			if (!conq__vring_edge_take(r, c, wait))
				return 0;
			/* [V7] seq_cst, as above. */
			c = conq__load_seq_cst(&r->cidx);
			continue;
		}
		/* [V7] seq_cst CAS: pairs with [V7] and [V8]: the claim.
		 * Failure reloads c. */
		if (conq__cas_strong_seq_cst(&r->cidx, &c, conq__idx_add(c, m))) {
			*first = c;
			return m;
		}
	}
}

/* C: is index i (claimed by this consumer) a tombstone? */
static inline bool conq__vring_is_tomb(const conq__vring *r, conq__idx_t i)
{
	/* relaxed: [V4] -> [V5] in the claim ordered the producer's store
	 * before this; the tag is ours until we release it. */
	return (conq__load_relaxed(&conq__value_tags(r, &r->g)[i & r->g.mask]) &
		CONQ__VT_STATE) == CONQ__VT_TOMB;
}

/* C: release index i's slot (read) to lap i + cap. */
static inline void conq__vring_release(conq__vring *r, conq__idx_t i)
{
	/* [V6] release: pairs with [V2] (a producer's acquire of the tag):
	 * our read of the slot happens-before the next lap's write. */
	conq__store_release(&conq__value_tags(r, &r->g)[i & r->g.mask],
			    conq__vtag(r->g.mask, conq__idx_add(i, r->g.cap),
				       CONQ__VT_FREE));
}

/* P / C: the index of a slot this thread holds (a claim, a peek_claim),
 * from its pointer: the slot's tag gives the lap. UINT64_MAX in *pos if
 * the pointer is not a slot of this ring. */
static inline conq__vtag_t *conq__vring_tag_of(const conq__vring *r,
					       const void *slot)
{
	uint64_t pos = conq__value_pos_of(r, &r->g, slot);
	if (pos == UINT64_MAX)
		return NULL;
	return &conq__value_tags(r, &r->g)[pos];
}

/* Offer (one element): claim, wait for its slot, copy, publish. */
static inline bool conq__vring_offer(conq__vring *r, const void *e, bool wait,
				     bool mp)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	conq__idx_t p;
	conq__claim_entry *ce;
	if (!conq__value_enter(r, &r->g, &ce, true) ||
	    conq__vring_claim_put(r, 1, 1, false, wait, mp, ce, &p) == 0)
		return false;
	conq__value_copy(conq__value_slot(r, &r->g, p), e, r->g.esize);
	conq__vring_publish(r, p, CONQ__VT_FULL);
	conq__vring_published(r, conq__idx_add(p, 1), mp);
	conq__value_leave(ce);
	return true;
}

/* Poll (one element): claim one committed index, skip tombstones. */
static inline bool conq__vring_poll(conq__vring *r, void *out, bool wait,
				    bool mp)
{
	if (CONQ__UNLIKELY(out == NULL)) {
		errno = EINVAL;
		return false;
	}
	for (;;) {
		conq__idx_t c;
		if (conq__vring_claim_take(r, 1, false, false, wait, mp, &c) == 0)
			return false;
		bool tomb = conq__vring_is_tomb(r, c);
		if (!tomb)
			conq__value_copy(out, conq__value_slot(r, &r->g, c),
					 r->g.esize);
		conq__vring_release(r, c);
		conq_eventcount_notify(&r->nonfull); /* [E2]: a waiting put() */
		if (!tomb)
			return true;
		if (!wait)
			return false; /* relaxed: one attempt */
	}
}

/* Offer n packed elements: all or none (`all`), else as many as fit. */
static inline size_t conq__vring_offer_n(conq__vring *r, const void *es,
					 size_t n, bool all, bool mp)
{
	if (CONQ__UNLIKELY(es == NULL)) {
		errno = EINVAL;
		return 0;
	}
	const unsigned char *src = (const unsigned char *)es;
	size_t done = 0;
	conq__claim_entry *ce;
	if (!conq__value_enter(r, &r->g, &ce, true))
		return 0;
	while (done < n) {
		uint64_t want = n - done;
		if (want > r->g.cap)
			want = r->g.cap;
		if (all && want < n)
			return 0; /* more than the ring holds */
		conq__idx_t p;
		uint64_t m = conq__vring_claim_put(r, want, all ? want : 1,
						   false, true, mp, ce, &p);
		for (uint64_t u = 0; u < m; u++) {
			conq__idx_t i = conq__idx_add(p, u);
			conq__vring_wait_free(r, i);
			conq__value_copy(conq__value_slot(r, &r->g, i), src,
					 r->g.esize);
			src += r->g.esize;
			conq__vring_publish(r, i, CONQ__VT_FULL);
		}
		if (m) {
			conq__vring_published(r, conq__idx_add(p, m), mp);
			conq__value_leave(ce);
		}
		done += (size_t)m;
		if (m < want)
			break;
	}
	return done;
}

/* Poll up to n elements into out[] (packed), skipping tombstones; stops
 * before a bubble (never waits). */
static inline size_t conq__vring_poll_n(conq__vring *r, void *out, size_t n,
					bool mp)
{
	if (CONQ__UNLIKELY(out == NULL)) {
		errno = EINVAL;
		return 0;
	}
	unsigned char *dst = (unsigned char *)out;
	size_t done = 0;
	while (done < n) {
		conq__idx_t c;
		uint64_t m = conq__vring_claim_take(r, n - done, false, false,
						    false, mp, &c);
		if (m == 0)
			break;
		size_t got = 0;
		for (uint64_t u = 0; u < m; u++) {
			conq__idx_t i = conq__idx_add(c, u);
			if (!conq__vring_is_tomb(r, i)) {
				conq__value_copy(dst, conq__value_slot(r, &r->g, i),
						 r->g.esize);
				dst += r->g.esize;
				got++;
			}
			conq__vring_release(r, i);
		}
		conq_eventcount_notify(&r->nonfull); /* [E2]: a waiting put() */
		done += got;
		if (got)
			break; /* one claim that delivered is enough */
	}
	return done;
}

/* Consumer side of zero-copy: claim a run of up to n committed elements
 * (to the ring's end, no tombstone among them: tombstones at the head are
 * taken and released first); the first slot in *first; how many. */
static inline size_t conq__vring_peek_claim_n(conq__vring *r, size_t n,
					      const void **first, bool wait,
					      bool mp)
{
	*first = NULL;
	while (n > 0) {
		conq__idx_t c;
		uint64_t m = conq__vring_claim_take(r, n, true, true, wait, mp,
						    &c);
		if (m == 0)
			return 0;
		if (!conq__vring_is_tomb(r, c)) {
			*first = conq__value_slot(r, &r->g, c);
			return (size_t)m;
		}
		for (uint64_t u = 0; u < m; u++)
			conq__vring_release(r, conq__idx_add(c, u));
		conq_eventcount_notify(&r->nonfull); /* [E2]: a waiting put() */
	}
	return 0;
}

/* Release the k slots from `first` that this thread holds (a peek_claim
 * run), each to its next lap. False with errno = EINVAL if first is not a
 * slot of this ring, k is 0 or passes the ring's end. */
static inline bool conq__vring_release_n(conq__vring *r, const void *first,
					 size_t k)
{
	uint64_t pos = conq__value_pos_of(r, &r->g, first);
	if (CONQ__UNLIKELY(pos == UINT64_MAX || k == 0 || k > r->g.cap - pos)) {
		errno = EINVAL;
		return false;
	}
	conq__vtag_t *tags = conq__value_tags(r, &r->g);
	for (uint64_t j = 0; j < k; j++)
		/* [V6] release: as in release; the tag (FULL(i)) is ours,
		 * read through [V5] in the claim. */
		conq__store_release(
		    &tags[pos + j],
		    conq__vtag_next_lap(r->g.cap, conq__load_relaxed(&tags[pos + j]),
					CONQ__VT_FREE));
	conq_eventcount_notify(&r->nonfull); /* [E2]: a waiting put() */
	return true;
}

/* Producer side of zero-copy, multi-producer: commit (FULL) or abort
 * (TOMB) the k claimed slots from `first` (their tags FREE(i): ours). The
 * single producer's commit is in conq/spmc_value.h. */
static inline bool conq__vring_end_claim(conq__vring *r, const void *first,
					 size_t k, unsigned st)
{
	uint64_t pos = conq__value_pos_of(r, &r->g, first);
	if (CONQ__UNLIKELY(pos == UINT64_MAX || k == 0 || k > r->g.cap - pos)) {
		errno = EINVAL;
		return false;
	}
	conq__vtag_t *tags = conq__value_tags(r, &r->g);
	for (uint64_t j = 0; j < k; j++)
		/* [V4] release: as in publish; FREE(i) | st = <st>(i). */
		conq__store_release(&tags[pos + j],
				    (conq__vtag_t)(conq__load_relaxed(&tags[pos + j]) |
						   st));
	conq_eventcount_notify(&r->nonempty); /* [E2]: a waiting take() */
	conq__claim_entry *ce;
	if (conq__value_enter(r, &r->g, &ce, false))
		conq__value_leave(ce);
	return true;
}

/* Drain up to `limit` elements in place to fn, skipping tombstones; each
 * claimed run is released after fn has seen it. Stops before a bubble. */
static inline size_t conq__vring_drain(conq__vring *r, conq_value_consume_fn fn,
				       void *ctx, size_t limit, bool mp)
{
	size_t done = 0;
	while (done < limit) {
		uint64_t want = limit - done;
		if (want > CONQ__MPMC_CHUNK)
			want = CONQ__MPMC_CHUNK;
		conq__idx_t c;
		uint64_t m = conq__vring_claim_take(r, want, false, false,
						    false, mp, &c);
		if (m == 0)
			break;
		for (uint64_t u = 0; u < m; u++) {
			conq__idx_t i = conq__idx_add(c, u);
			if (!conq__vring_is_tomb(r, i)) {
				fn(ctx, conq__value_slot(r, &r->g, i));
				done++;
			}
			conq__vring_release(r, i);
		}
		conq_eventcount_notify(&r->nonfull); /* [E2]: a waiting put() */
	}
	return done;
}

/* Size: pidx - cidx within [0, cap] (claims on both sides). */
static inline size_t conq__vring_size(const conq__vring *r)
{
	/* [V10] seq_cst (all three): pair with [V1] and [V7]. */
	conq__idx_t c = conq__load_seq_cst(&r->cidx), c2, p;
	for (;;) {
		p = conq__load_seq_cst(&r->pidx);
		c2 = conq__load_seq_cst(&r->cidx);
		if (c2 == c)
			break;
		c = c2;
	}
	conq__sidx_t n = conq__idx_diff(p, c);
	if (n < 0)
		return 0;
	return (uint64_t)n > r->g.cap ? (size_t)r->g.cap : (size_t)n;
}

/* Empty: no committed element between cidx and pidx when it looked
 * (looks past claimed, uncommitted indices and tombstones). Writes
 * nothing. */
static inline bool conq__vring_is_empty(const conq__vring *r)
{
	for (;;) {
		/* [V10] seq_cst (cidx, then pidx): pairs with [V7], [V1]. */
		conq__idx_t c = conq__load_seq_cst(&r->cidx);
		conq__sidx_t n = conq__idx_diff(conq__load_seq_cst(&r->pidx), c);
		if (n <= 0)
			return true;
		uint64_t lim = (uint64_t)n < r->g.cap ? (uint64_t)n : r->g.cap;
		bool moved = false;
		for (uint64_t u = 0; u < lim; u++) {
			conq__svtag_t d = conq__vring_look(r, conq__idx_add(c, u));
			if (d == CONQ__VT_FULL)
				return false;
			if (d > CONQ__VT_TOMB) {
				moved = true;
				break;
			}
		}
		/* [V10] seq_cst: as above. */
		if (!moved && conq__load_seq_cst(&r->cidx) == c)
			return true;
	}
}

#ifdef __cplusplus
}
#endif

#endif /* CONQ_IMPL_VALUE_MC_H */
