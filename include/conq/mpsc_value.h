/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/mpsc_value.h - bounded multi-producer single-consumer ring of
 * fixed-size values, with zero-copy claim/commit for the producers (the
 * in-place writes of Aeron's and Agrona's many-to-one ring buffers, for
 * fixed-size slots). conq/impl/value.h has the layout and the tags.
 *
 * The protocol is conq_mpsc_array's, with a tag per slot where that queue
 * has a non-NULL pointer:
 *
 *  - A producer claims index i (or a run of them) with a CAS of pidx,
 *    checked against a cached limit plimit = cidx + capacity that it
 *    refreshes from the consumer index only when a claim would pass it
 *    (JCTools' producerLimit). It writes the slot, then commits it by
 *    storing the slot's tag T(i + 1) with release.
 *  - The consumer reads slots in index order, each once its tag says
 *    committed for that lap, and publishes what it consumed by storing
 *    cidx with release; it reads pidx only to tell "empty" from "claimed
 *    but not committed yet" (a bubble) when it meets an uncommitted tag.
 *    It never writes a tag or a slot.
 *
 * So slots committed out of claim order by different producers are
 * delivered in claim order: the consumer waits at the oldest claim.
 *
 * A claim that is never committed: the consumer's strict calls (poll,
 * peek, peek_claim, take) wait at it for ever, its relaxed and batch calls
 * (relaxed_poll, poll_burst, peek_claim_burst, drain) stop before it, and
 * producers go on claiming the capacity() - 1 slots behind it, then find
 * the ring full. The bound: one stuck slot stops the consumer, never a
 * producer's claim, and costs at most one lap of the ring. abort() instead
 * of commit() turns a claim into a tombstone that the consumer skips.
 *
 * In shared memory (init_opts with CONQ_VALUE_SHARED, or shm_create), a
 * producer *process* that dies between claim and commit does not stall the
 * consumer: producers store an intent in the ring's claim registry before
 * each claim (conq/impl/claims.h), and a consumer stuck on the claim for
 * dead_check_ns (10 ms by default) checks the registry: when no live
 * process's thread holds an intent that covers the index, the claimer is
 * dead, and the consumer turns the slot into a tombstone and goes on
 * (poll, take and unblock do this; the calls that never wait need
 * unblock()). Only proof of death reclaims: a producer that is merely slow,
 * or stopped, is waited for. A shared ring allows one claim at a time per
 * producer thread (a second: EBUSY).
 *
 * Capacity: the requested capacity rounded up to a power of two, from 1 to
 * CONQ_VALUE_MAX_CAPACITY (2^28); element size from 1 to
 * CONQ_VALUE_MAX_ELEM bytes. Else EINVAL.
 *
 * Who may call what, concurrently (P = any number of producer threads, C =
 * the one consumer thread, A = any thread):
 *
 *   function                               caller  progress
 *   offer, offer_bulk, offer_burst, fill,  P       lock-free (the CAS loop
 *   claim, claim_burst                             retries only when another
 *                                                  producer claimed)
 *   commit, commit_burst, abort            P       wait-free
 *   poll, peek, peek_claim                 C       blocking on a bubble (see
 *                                                  above), else wait-free
 *   relaxed_poll, poll_burst, drain,       C       wait-free (stop before a
 *   peek_claim_burst, release,                     bubble)
 *   release_burst
 *   put, put_until / take, take_until      P / C   blocking
 *   size, is_empty, capacity, elem_size    A       lock-free (size retries
 *                                                  while C moves)
 *   create, init, memsize                  A       (malloc)
 *   destroy                                A, once no P or C runs
 *
 * Claims: claim() returns a slot (NULL when full) that the calling thread
 * owns until it commits (or aborts) it, from any thread; claim_burst() up
 * to n consecutive slots, contiguous in memory (stopping at the ring's
 * end), with one CAS. A producer may hold several claims and commit them in
 * any order; commit each claimed slot exactly once (committing a slot that
 * is not claimed, or twice, corrupts the ring: only a pointer that is not a
 * slot of this ring is detected, EINVAL). peek_claim()/release(): the
 * consumer's head element in place.
 *
 * "Full" and "empty" count claims: offer is false iff capacity() indices
 * are claimed and not yet consumed; poll false iff none is claimed (then it
 * never waits). size() counts claims, tombstones included.
 *
 * Ordering: everything a producer wrote before committing an element
 * happens-before everything the consumer does after reading it ([VM1] ->
 * [VM2]); everything the consumer did with a slot before consuming it
 * happens-before a producer's reuse of the slot ([VM6] -> [VM5]/[VM4]).
 * FIFO in claim order (linearizable at the CAS).
 */
#ifndef CONQ_MPSC_VALUE_H
#define CONQ_MPSC_VALUE_H

#include "conq/impl/value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_mpsc_value conq_mpsc_value;

struct conq_mpsc_value {
	/* Read-mostly. */
	conq__value_geom g;
	CONQ__PAD_AFTER(pad_cold, sizeof(conq__value_geom));

	/* Producer-hot: CASed by every claim. */
	conq__idx_t pidx; /* next index to claim; read by C and size() */
	conq_eventcount nonempty; /* take() waits here; P notifies */
	CONQ__PAD_AFTER(pad_prod, CONQ__IDX_FIELDS(1) + sizeof(uint64_t));

	/* Producer-shared, read-mostly: read by every claim, written by the
	 * producer that refreshes it. */
	conq__idx_t plimit; /* indices below it are free: cidx + cap */
	CONQ__PAD_AFTER(pad_limit, sizeof(conq__idx_t));

	/* Consumer-hot: written only by C. */
	conq__idx_t cidx; /* next index to read; read by P and size() */
	uint64_t chase;   /* 1: the last poll got an element */
	conq_eventcount nonfull; /* put() waits here; C notifies */
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(1) + 2 * sizeof(uint64_t));

	/* tags[cap], slots[cap] follow (conq/impl/value.h), then the guard. */
};

CONQ__STATIC_ASSERT(offsetof(conq_mpsc_value, pidx) % CONQ_PAD == 0,
		    "producer index starts a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_mpsc_value, plimit) % CONQ_PAD == 0,
		    "producer limit starts a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_mpsc_value, cidx) % CONQ_PAD == 0,
		    "consumer fields start a padded block");
CONQ__STATIC_ASSERT(sizeof(conq_mpsc_value) % CONQ_PAD == 0,
		    "the tags start a padded block");

/* The constructors (conq/impl/value.h lists them). */
CONQ__VALUE_DECLS(mpsc_value)

/* C, cold: wait (spin, then yield) until index c's tag is no longer the
 * previous lap's (its producer committed or aborted: 1 committed, 2 a
 * tombstone), or pidx came back down to c (a fill handed c back: 0, the
 * ring is empty). A shared ring: every dead_check_ns, a claimer found dead
 * (conq/impl/claims.h) has its claim reclaimed as a tombstone (2). In
 * src/value.c. */
int conq__mpsc_value_wait(conq_mpsc_value *q, conq__idx_t c);

/* A shared ring (conq/shm.h): if the oldest index is claimed, uncommitted,
 * and its producer's process is dead (proof, not a timeout: conq/impl/
 * claims.h), turn it into a tombstone, so that the calls that never wait
 * (relaxed_poll, poll_burst, drain) get past it; true if it did. poll()
 * does this by itself while it waits. Private rings: false. C. Lock-free
 * (a few system calls per producer thread registered). */
bool conq_mpsc_value_unblock(conq_mpsc_value *q);

/* P, slow path: the cached limit `old` is used up; a fresh one from the
 * consumer index, stored for the other producers when it moved. */
static CONQ__NOINLINE conq__idx_t
conq__mpsc_value_refresh(conq_mpsc_value *q, conq__idx_t old)
{
	/* [VM5] acquire: pairs with [VM6] (C's release of cidx): the
	 * consumer's reads of the slots below cidx happen-before we reuse
	 * them. */
	conq__idx_t limit = conq__idx_add(conq__load_acquire(&q->cidx), q->g.cap);
	/* [VM4] release: pairs with [VM4] (the other producers' acquire of
	 * plimit), passing [VM5]'s edge on. Every limit stored is some cidx +
	 * cap and cidx only grows, so a stale one is only more cautious; not
	 * stored when unmoved, so that producers at a full ring do not
	 * bounce its line. */
	if (conq__idx_diff(limit, old) > 0)
		conq__store_release(&q->plimit, limit);
	return limit;
}

/* P: claim up to `want` (>= 1) consecutive indices with one CAS; `all`:
 * exactly want or none; `to_end`: not past the ring's end. Returns how
 * many (0: not enough room), the first in *first. "Not enough room" is
 * decided on a pidx read before a cidx ([VM3] then [VM5]): cidx only
 * grows, so the ring really was that full when pidx was read (not
 * necessarily when cidx was: fill's hand-back moves pidx back down). e: the
 * thread's registry entry on a shared ring (NULL: private): its intent is
 * stored before every CAS, and cleared when the claim fails. */
static inline uint64_t conq__mpsc_value_claim(conq_mpsc_value *q,
					      uint64_t want, bool all,
					      bool to_end, conq__claim_entry *e,
					      conq__idx_t *first)
{
	if (want > q->g.cap) {
		if (all) {
			conq__value_leave(e);
			return 0;
		}
		want = q->g.cap;
	}
	/* [VM4] acquire: pairs with [VM4] in refresh. */
	conq__idx_t limit = conq__load_acquire(&q->plimit);
	/* [VM3] acquire: pairs with [VM3] (the CAS of the producer that
	 * moved pidx here), so the cidx that justified its claim
	 * happens-before our read of cidx. */
	conq__idx_t p = conq__load_acquire(&q->pidx);
	uint64_t n;
	do {
		conq__sidx_t avail = conq__idx_diff(limit, p);
		if ((int64_t)avail < (int64_t)want) {
			limit = conq__mpsc_value_refresh(q, limit);
			avail = conq__idx_diff(limit, p);
			if (avail <= 0 ||
			    (all && (int64_t)avail < (int64_t)want)) {
				conq__value_leave(e);
				return 0;
			}
		}
		n = (uint64_t)avail < want ? (uint64_t)avail : want;
		if (to_end) {
			uint64_t end = q->g.cap - (uint64_t)(p & q->g.mask);
			if (n > end)
				n = end;
		}
		/* A shared ring: the intent before the CAS ([CL1]; the CAS's
		 * release publishes it to a consumer that reads pidx). */
		conq__value_intend(e, p);
		/* [VM3] CAS acq_rel: the claim. Pairs with [VM3] as above
		 * and with [VM7] (C's and size()'s acquire of pidx). The
		 * element is published by [VM1], not by this CAS. */
	} while (!conq__cas_weak_acq_rel(&q->pidx, &p, conq__idx_add(p, n)));
	*first = p;
	return n;
}

/* P: commit (st FULL) or abort (st TOMB) n claimed slots from index p.
 * Tags 1..n-1 are stored first, relaxed, and tag 0 last with release: the
 * consumer reads tags in index order with acquire, so it sees the run only
 * through [VM1] of its first slot, and then all of it. */
static inline void conq__mpsc_value_publish(conq_mpsc_value *q, conq__idx_t p,
					    uint64_t n, unsigned st)
{
	conq__vtag_t *tags = conq__value_tags(q, &q->g);
	for (uint64_t k = 1; k < n; k++) {
		conq__idx_t i = conq__idx_add(p, k);
		/* relaxed: published by [VM1] of the run's first slot. */
		conq__store_relaxed(&tags[i & q->g.mask],
				    conq__vtag(q->g.mask, i, st));
	}
	/* [VM1] release: pairs with [VM2] (C's acquire of the tag): the
	 * slots' bytes, and everything the producer wrote before, are
	 * visible with it. */
	conq__store_release(&tags[p & q->g.mask], conq__vtag(q->g.mask, p, st));
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
}

/* Offer a copy of the element at e. True if enqueued; false iff
 * capacity() indices are claimed and not consumed, or e is NULL (EINVAL).
 * P. Lock-free. Release. */
static inline bool conq_mpsc_value_offer(conq_mpsc_value *q, const void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	conq__idx_t p;
	conq__claim_entry *ce;
	if (!conq__value_enter(q, &q->g, &ce, true) ||
	    conq__mpsc_value_claim(q, 1, true, false, ce, &p) == 0)
		return false;
	conq__value_copy(conq__value_slot(q, &q->g, p), e, q->g.esize);
	conq__mpsc_value_publish(q, p, 1, CONQ__VT_FULL);
	conq__value_leave(ce);
	return true;
}

/* P: offer n packed elements, all or none (`all`), else as many as fit;
 * one claim, one release. */
static inline size_t conq__mpsc_value_offer_n(conq_mpsc_value *q,
					      const void *es, size_t n, bool all)
{
	if (CONQ__UNLIKELY(es == NULL)) {
		errno = EINVAL;
		return 0;
	}
	conq__idx_t p;
	conq__claim_entry *ce;
	if (n == 0 || !conq__value_enter(q, &q->g, &ce, true))
		return 0;
	uint64_t k = conq__mpsc_value_claim(q, n, all, false, ce, &p);
	if (k == 0)
		return 0;
	conq__value_copy_n(q, &q->g, p, (void *)(uintptr_t)es, k, true);
	conq__mpsc_value_publish(q, p, k, CONQ__VT_FULL);
	conq__value_leave(ce);
	return (size_t)k;
}

/* Offer all n elements of es[] (packed) or none: n, or 0 if fewer than n
 * slots are free (es NULL: 0, EINVAL). One CAS, one release. P. Lock-free. */
static inline size_t conq_mpsc_value_offer_bulk(conq_mpsc_value *q,
						const void *es, size_t n)
{
	return conq__mpsc_value_offer_n(q, es, n, true);
}

/* Offer as many of the n elements of es[] as fit, in order; how many. P.
 * Lock-free. */
static inline size_t conq_mpsc_value_offer_burst(conq_mpsc_value *q,
						 const void *es, size_t n)
{
	return conq__mpsc_value_offer_n(q, es, n, false);
}

/* A slot for the calling thread to write (NULL if full); publish it with
 * commit(), or give it up with abort(). P. Lock-free. */
static inline void *conq_mpsc_value_claim(conq_mpsc_value *q)
{
	conq__idx_t p;
	conq__claim_entry *ce;
	if (!conq__value_enter(q, &q->g, &ce, true) ||
	    conq__mpsc_value_claim(q, 1, true, false, ce, &p) == 0)
		return NULL;
	return conq__value_slot(q, &q->g, p);
}

/* Up to n consecutive slots, contiguous (stopping at the ring's end), with
 * one CAS: the first in *first; how many (0: full or n 0). P. Lock-free. */
static inline size_t conq_mpsc_value_claim_burst(conq_mpsc_value *q, size_t n,
						 void **first)
{
	conq__idx_t p;
	conq__claim_entry *ce;
	uint64_t k = 0;
	if (n != 0 && conq__value_enter(q, &q->g, &ce, true))
		k = conq__mpsc_value_claim(q, n, false, true, ce, &p);
	*first = k ? conq__value_slot(q, &q->g, p) : NULL;
	return (size_t)k;
}

/* P: the claimed run of k slots from `first`: stores their tags FULL(i)
 * (or TOMB(i)), each one lap on from the previous lap's FULL/TOMB(i - cap),
 * which only this thread may change while it holds the claim. */
static inline bool conq__mpsc_value_end_claim(conq_mpsc_value *q,
					      const void *first, size_t k,
					      unsigned st)
{
	uint64_t pos = conq__value_pos_of(q, &q->g, first);
	if (CONQ__UNLIKELY(pos == UINT64_MAX || k == 0 || k > q->g.cap - pos)) {
		errno = EINVAL;
		return false;
	}
	conq__vtag_t *tags = conq__value_tags(q, &q->g);
	for (uint64_t j = k; j-- > 1;)
		/* relaxed: as in publish, [VM1] below publishes the run. Our
		 * own claim: the previous tag came to us through [VM5]. */
		conq__store_relaxed(
		    &tags[pos + j],
		    conq__vtag_next_lap(q->g.cap,
					conq__load_relaxed(&tags[pos + j]), st));
	/* [VM1] release: as in publish. */
	conq__store_release(
	    &tags[pos],
	    conq__vtag_next_lap(q->g.cap, conq__load_relaxed(&tags[pos]), st));
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
	conq__claim_entry *ce;
	if (conq__value_enter(q, &q->g, &ce, false))
		conq__value_leave(ce);
	return true;
}

/* Publish the claimed slot (commit) or the k slots of a claim_burst from
 * `first` (commit_burst). False with errno = EINVAL if the pointer is not a
 * slot of this ring or the run passes its end (nothing is published). P.
 * Wait-free. Release. */
static inline bool conq_mpsc_value_commit_burst(conq_mpsc_value *q,
						void *first, size_t k)
{
	return conq__mpsc_value_end_claim(q, first, k, CONQ__VT_FULL);
}

static inline bool conq_mpsc_value_commit(conq_mpsc_value *q, void *slot)
{
	return conq__mpsc_value_end_claim(q, slot, 1, CONQ__VT_FULL);
}

/* Give up k claimed slots from `first` (1 for a claim()): they become
 * tombstones the consumer skips, and count as consumed once it has. P.
 * Wait-free. */
static inline bool conq_mpsc_value_abort(conq_mpsc_value *q, void *first,
					 size_t k)
{
	return conq__mpsc_value_end_claim(q, first, k, CONQ__VT_TOMB);
}

/* Enqueue up to `limit` elements written in place by fn(ctx, slot), with
 * one claim for as many as are free; stops at full or when fn returns
 * false. The claimed slots fn did not fill are handed back (pidx moved
 * back down with a CAS) when no producer claimed after them, else they
 * become tombstones the consumer skips (then size() counts them until it
 * has). Returns how many. P; fn must not use this ring's producer side.
 * Lock-free apart from fn. */
static inline size_t conq_mpsc_value_fill(conq_mpsc_value *q,
					  conq_value_supply_fn fn, void *ctx,
					  size_t limit)
{
	conq__idx_t p;
	conq__claim_entry *ce;
	if (limit == 0 || !conq__value_enter(q, &q->g, &ce, true))
		return 0;
	uint64_t k = conq__mpsc_value_claim(q, limit, false, false, ce, &p);
	uint64_t n = 0;
	while (n < k && fn(ctx, conq__value_slot(q, &q->g, conq__idx_add(p, n))))
		n++;
	if (n > 0)
		conq__mpsc_value_publish(q, p, n, CONQ__VT_FULL);
	if (n < k) {
		conq__idx_t end = conq__idx_add(p, k);
		/* [VM3] CAS acq_rel: pairs with [VM3] and [VM7]. The consumer
		 * waiting at index p + n for its commit re-reads pidx and
		 * finds the ring empty there. */
		if (!conq__cas_strong_acq_rel(&q->pidx, &end,
					      conq__idx_add(p, n)))
			conq__mpsc_value_publish(q, conq__idx_add(p, n), k - n,
						 CONQ__VT_TOMB);
	}
	if (k)
		conq__value_leave(ce);
	return (size_t)n;
}

/* ---- the consumer ---- */

/* Re-reads of an uncommitted head tag before the consumer asks pidx, right
 * after a poll that got an element, and the ns between them: the chase of
 * conq_mpsc_array (its header says why: a read of pidx pulls the line
 * every producer CASes). */
#ifndef CONQ__MPSC_VALUE_CHASE_SPINS
#define CONQ__MPSC_VALUE_CHASE_SPINS 4
#endif
#ifndef CONQ__MPSC_VALUE_CHASE_GAP
#define CONQ__MPSC_VALUE_CHASE_GAP 176u
#endif

/* C: index c's tag, acquire. */
static inline conq__vtag_t conq__mpsc_value_tag(const conq_mpsc_value *q,
						conq__idx_t c)
{
	/* [VM2] acquire: pairs with [VM1]: the slot's bytes are visible once
	 * its tag is. */
	return conq__load_acquire(&conq__value_tags(q, &q->g)[c & q->g.mask]);
}

/* C, slow path: index c's tag was neither committed nor a tombstone.
 * While chasing (the last poll got an element), look again a few times,
 * then ask pidx: equal to c, nothing is claimed and the ring is empty (0);
 * else c is claimed, a bubble: 0 unless `wait`, else wait for the
 * producer. Returns 1 for a committed element, 2 for a tombstone. */
static CONQ__NOINLINE int conq__mpsc_value_head_miss(conq_mpsc_value *q,
						     conq__idx_t c, bool wait)
{
	if (q->chase) {
		for (unsigned i = 0; i < CONQ__MPSC_VALUE_CHASE_SPINS; i++) {
			conq__watch_gap(CONQ__MPSC_VALUE_CHASE_GAP);
			conq__svtag_t d = conq__vtag_state(
			    q->g.mask, conq__mpsc_value_tag(q, c), c);
			if (d == CONQ__VT_FULL)
				return 1;
			if (d == CONQ__VT_TOMB)
				return 2;
		}
		q->chase = 0;
	}
	/* [VM7] acquire: pairs with [VM3]. */
	if (!wait || conq__load_acquire(&q->pidx) == c)
		return 0;
	return conq__mpsc_value_wait(q, c);
}

/* C: what is at index c: 1 a committed element, 2 a tombstone, 0 nothing
 * (empty, or a bubble when `wait` is false). */
static inline int conq__mpsc_value_head(conq_mpsc_value *q, conq__idx_t c,
					bool wait)
{
	conq__vtag_t t = conq__mpsc_value_tag(q, c);
	if (CONQ__LIKELY(t == conq__vtag(q->g.mask, c, CONQ__VT_FULL)))
		return 1;
	if (t == conq__vtag(q->g.mask, c, CONQ__VT_TOMB))
		return 2;
	return conq__mpsc_value_head_miss(q, c, wait);
}

/* C: consume n slots from cidx c (read, or tombstones). */
static inline void conq__mpsc_value_consume(conq_mpsc_value *q, conq__idx_t c,
					    uint64_t n)
{
	/* [VM6] release: pairs with [VM5]: our reads of the slots
	 * happen-before a producer's reuse of them. */
	conq__store_release(&q->cidx, conq__idx_add(c, n));
	conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
}

/* C: the head element's slot, skipping tombstones; NULL if empty (or, with
 * wait false, at a bubble). */
static inline void *conq__mpsc_value_front(conq_mpsc_value *q, bool wait)
{
	for (;;) {
		conq__idx_t c = q->cidx;
		int h = conq__mpsc_value_head(q, c, wait);
		if (h == 1) {
			q->chase = 1;
			return conq__value_slot(q, &q->g, c);
		}
		if (h == 0)
			return NULL;
		conq__mpsc_value_consume(q, c, 1); /* a tombstone */
	}
}

/* C: copy the head element into out, waiting at a bubble or not, and
 * consume it or not (poll, relaxed_poll, peek). */
static inline bool conq__mpsc_value_copy_head(conq_mpsc_value *q, void *out,
					      bool wait, bool consume)
{
	if (CONQ__UNLIKELY(out == NULL)) {
		errno = EINVAL;
		return false;
	}
	void *s = conq__mpsc_value_front(q, wait);
	if (s == NULL)
		return false;
	conq__value_copy(out, s, q->g.esize);
	if (consume)
		conq__mpsc_value_consume(q, q->cidx, 1);
	return true;
}

/* Poll the oldest element into out. True if there was one; false iff no
 * index is claimed and unconsumed (or out NULL: EINVAL). C. Waits for a
 * bubble (a claimed, uncommitted head). Acquire. */
static inline bool conq_mpsc_value_poll(conq_mpsc_value *q, void *out)
{
	return conq__mpsc_value_copy_head(q, out, true, true);
}

/* As poll, but false at a bubble instead of waiting. C. Wait-free. */
static inline bool conq_mpsc_value_relaxed_poll(conq_mpsc_value *q, void *out)
{
	return conq__mpsc_value_copy_head(q, out, false, true);
}

/* Copy the oldest element into out without consuming it (as poll: waits on
 * a bubble). C. */
static inline bool conq_mpsc_value_peek(conq_mpsc_value *q, void *out)
{
	return conq__mpsc_value_copy_head(q, out, true, false);
}

/* The oldest element in place (as poll: waits on a bubble), or NULL if
 * empty; the same until release(). C. Acquire. */
static inline const void *conq_mpsc_value_peek_claim(conq_mpsc_value *q)
{
	return conq__mpsc_value_front(q, true);
}

/* C: committed elements from the head, up to n, contiguous when `to_end`
 * (stopping at the ring's end), stopping before a bubble or a tombstone
 * (after skipping tombstones at the head). Returns how many; *c0 the
 * first index. */
static inline uint64_t conq__mpsc_value_run(conq_mpsc_value *q, uint64_t n,
					    bool to_end, conq__idx_t *c0)
{
	if (conq__mpsc_value_front(q, false) == NULL)
		return 0;
	conq__idx_t c = q->cidx;
	uint64_t k = 1;
	if (to_end) {
		uint64_t e = q->g.cap - (uint64_t)(c & q->g.mask);
		if (n > e)
			n = e;
	}
	/* [VM2] acquire (each): pairs with [VM1]. */
	while (k < n && conq__mpsc_value_tag(q, conq__idx_add(c, k)) ==
			    conq__vtag(q->g.mask, conq__idx_add(c, k),
				       CONQ__VT_FULL))
		k++;
	*c0 = c;
	return k;
}

/* Up to n elements in place from the oldest, contiguous (stopping at the
 * ring's end, a bubble or a tombstone): the first in *first; how many. C.
 * Wait-free. */
static inline size_t conq_mpsc_value_peek_claim_burst(conq_mpsc_value *q,
						      size_t n,
						      const void **first)
{
	conq__idx_t c;
	uint64_t k = n == 0 ? 0 : conq__mpsc_value_run(q, n, true, &c);
	*first = k ? conq__value_slot(q, &q->g, c) : NULL;
	return (size_t)k;
}

/* Consume the k elements peeked in place from `first`. False with errno =
 * EINVAL if first is not the head's slot or k is 0 or passes the ring's
 * end (nothing consumed). The caller releases only what it peeked. C.
 * Wait-free. Release. */
static inline bool conq_mpsc_value_release_burst(conq_mpsc_value *q,
						 const void *first, size_t k)
{
	conq__idx_t c = q->cidx;
	if (CONQ__UNLIKELY(first != conq__value_slot(q, &q->g, c) || k == 0 ||
			   k > q->g.cap - (uint64_t)(c & q->g.mask))) {
		errno = EINVAL;
		return false;
	}
	conq__mpsc_value_consume(q, c, k);
	return true;
}

static inline bool conq_mpsc_value_release(conq_mpsc_value *q,
					   const void *slot)
{
	return conq_mpsc_value_release_burst(q, slot, 1);
}

/* Poll up to n elements into out[] (packed), oldest first, stopping before
 * a bubble; how many. C. Wait-free. */
static inline size_t conq_mpsc_value_poll_burst(conq_mpsc_value *q, void *out,
						size_t n)
{
	if (CONQ__UNLIKELY(out == NULL)) {
		errno = EINVAL;
		return 0;
	}
	conq__idx_t c;
	uint64_t k = n == 0 ? 0 : conq__mpsc_value_run(q, n, false, &c);
	if (k == 0)
		return 0;
	conq__value_copy_n(q, &q->g, c, out, k, false);
	conq__mpsc_value_consume(q, c, k);
	return (size_t)k;
}

/* Hand up to `limit` elements to fn(ctx, elem) in place, oldest first,
 * stopping before a bubble; one release per run. How many. C; fn must not
 * use this ring's consumer side. Wait-free apart from fn. */
static inline size_t conq_mpsc_value_drain(conq_mpsc_value *q,
					   conq_value_consume_fn fn, void *ctx,
					   size_t limit)
{
	size_t done = 0;
	while (done < limit) {
		conq__idx_t c;
		uint64_t k = conq__mpsc_value_run(q, limit - done, false, &c);
		if (k == 0)
			break;
		for (uint64_t i = 0; i < k; i++)
			fn(ctx, conq__value_slot(q, &q->g, conq__idx_add(c, i)));
		conq__mpsc_value_consume(q, c, k);
		done += (size_t)k;
	}
	return done;
}

static inline size_t conq_mpsc_value_capacity(const conq_mpsc_value *q)
{
	return (size_t)q->g.cap;
}

static inline size_t conq_mpsc_value_elem_size(const conq_mpsc_value *q)
{
	return (size_t)q->g.esize;
}

/* Claimed, unconsumed indices, within [0, capacity()]. A. Lock-free. */
static inline size_t conq_mpsc_value_size(const conq_mpsc_value *q)
{
	/* [VM7] acquire (all): pair with [VM6] and [VM3]. */
	return conq__indexed_size(&q->cidx, &q->pidx, q->g.cap);
}

/* True if the ring held no committed element when it looked: it looks past
 * claimed, uncommitted indices and tombstones (a claim handed back by fill
 * never becomes an element). From C, false means the next poll returns an
 * element. Writes nothing. A. Lock-free: it starts again while cidx moves. */
static inline bool conq_mpsc_value_is_empty(const conq_mpsc_value *q)
{
	for (;;) {
		/* [VM7] acquire (cidx, then pidx): pairs with [VM6], [VM3]. */
		conq__idx_t c = conq__load_acquire(&q->cidx);
		conq__sidx_t n = conq__idx_diff(conq__load_acquire(&q->pidx), c);
		if (n <= 0)
			return true;
		uint64_t lim = (uint64_t)n < q->g.cap ? (uint64_t)n : q->g.cap;
		for (uint64_t u = 0; u < lim; u++) {
			conq__idx_t i = conq__idx_add(c, u);
			/* [VM2] acquire: pairs with [VM1]. */
			if (conq__vtag_state(q->g.mask, conq__mpsc_value_tag(q, i),
					     i) == CONQ__VT_FULL)
				return false;
		}
		/* [VM7] acquire: as above; unmoved, nothing was committed
		 * between c and pidx when we looked. */
		if (conq__load_acquire(&q->cidx) == c)
			return true;
	}
}

static inline bool conq__mpsc_value_unblock_erased(void *q)
{
	return conq_mpsc_value_unblock((conq_mpsc_value *)q);
}

/* peek_claim_until's look: as peek_claim, but NULL at a claimed,
 * uncommitted head instead of waiting there. */
static inline const void *
conq__mpsc_value_relaxed_peek_claim(conq_mpsc_value *q)
{
	return conq__mpsc_value_front(q, false);
}

CONQ__DEFINE_VALUE_BLOCKING(mpsc_value, g, nonempty, nonfull,
			    conq_mpsc_value_relaxed_poll,
			    conq__mpsc_value_relaxed_peek_claim,
			    conq__mpsc_value_unblock_erased)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_MPSC_VALUE_H */
