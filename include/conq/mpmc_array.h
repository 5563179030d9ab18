/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/mpmc_array.h - bounded multi-producer multi-consumer array queue.
 *
 * The counterpart of JCTools' MpmcArrayQueue (Vyukov's bounded MPMC queue),
 * with its semantics and its protocol: one compare-and-swap per element on
 * each side, on that side's own counter, and plain release stores into the
 * cells. What is added is where a failed call looks (issue 12): a thread at
 * a full or an empty queue decides on the cell first and reads the other
 * side's counter, which that side moves with a locked instruction per
 * element, only when the cell cannot tell, after watching the cell for a
 * while; so a spinning failed caller does not slow the other side down.
 *
 * The ring: capacity() cells of {seq, element}. Position p (a free-running
 * ticket) lives in cell p mod n, and the cell's seq says which lap of the
 * cell it is in and in what state:
 *
 *   FREE(p)  the producer that claims position p may write the cell;
 *   FULL(p)  the element of position p is there for the consumer that
 *            claims p, who then sets FREE(p + n): the cell's next lap.
 *
 * offer: read the tail t. The cell of t FREE(t) proves room (t - n's
 * consumer released it): claim t with a CAS of the tail, write the element,
 * store FULL(t). The cell still in an earlier lap: the queue is full, or
 * t - n's consumer has claimed it and is releasing it; watch the cell, then
 * the head decides (full: offer is false; else wait for the release). poll,
 * mirrored: FULL(h) proves an element: claim h with a CAS of the head, take
 * the element, store FREE(h + n); FREE(h) (or an earlier lap): empty, or h's
 * producer has claimed h and not yet published; watch, then the tail
 * decides (empty: NULL; else wait for the publish). A thread claims only a
 * position whose cell proves it may (or, for a batch of offers, after the
 * head proved the room), so every claimed position is filled and emptied by
 * exactly the threads that claimed it, and no cell is ever CASed: a cell
 * has one writer at a time, the claimant of its position.
 *
 * fill() is the one call that may claim positions it then does not fill
 * (its supplier returned NULL): it hands them back by moving the tail back
 * down with a CAS when no producer claimed after them, and else publishes
 * them as tombstones (FULL with a NULL element), which polls take and skip.
 * Consumers never claim a position that is not FULL, so none ever holds a
 * handed-back one; a poll or peek that waits for a producer re-reads the
 * tail and returns when the tail has come down to its position.
 *
 * Why CAS, and not the fetch-and-add of SCQ or LCRQ (which this queue used
 * until 2026-12-02): an FAA can hand out a position past the other side's
 * counter, so a producer must then take its cell with a CAS against a
 * consumer that may close it; that locked instruction on the line the other
 * side reads costs a line transfer per element, serialised: 12-31 ops/us at
 * 1P1C against 55-158 for this protocol on the AMD EPYC (Zen 5) guest, and
 * behind at every shape on 2 CPUs (docs/benchmarks.md, "conq_mpmc_array on
 * one CAS a side"). What FAA buys, scaling at many threads per side, is not
 * measured here yet (no many-core machine; "Scaling on many cores").
 *
 * Layout: the producers' tail and the consumers' head each on a padded block
 * of its own; the cells, 16 bytes each, consecutive positions side by side
 * (as JCTools), so that a consumer a few elements behind takes four per line
 * transfer.
 *
 * Capacity: the requested capacity rounded up to a power of two, from 1 up to
 * CONQ_ARRAY_MAX_CAPACITY. 0 or larger: EINVAL. 16 bytes per slot.
 *
 * Who may call what, concurrently (A = any thread, any number of them):
 *
 *   function                                     caller  progress
 *   offer, offer_bulk, offer_burst, fill           A       see "Waits" below
 *   poll, poll_burst, drain, peek                  A       see "Waits" below
 *   is_empty, size                                 A       lock-free
 *   relaxed_offer, relaxed_poll, relaxed_peek      A       lock-free, no wait
 *   put, put_until (wait while full)               A       blocking
 *   take, take_until (wait while empty)            A       blocking
 *   capacity                                       A       wait-free
 *   create, init, memsize                          A       (blocking: malloc)
 *   destroy                                        A, once no other call runs
 *
 * Waits (spin, then sched_yield, so that a preempted thread gets the CPU
 * back), each for a thread inside an operation on this queue, as in JCTools'
 * MpmcArrayQueue: a poll (or peek) whose position's producer has claimed it
 * and not yet published; an offer whose cell's previous lap has been claimed
 * by a poll that has not yet released it. A thread that stops for good
 * inside an offer or a poll stops the others at its position.
 *
 * Ordering: everything a producer wrote before a successful offer of `e`
 * happens-before everything the consumer does after the poll (or peek) that
 * returns `e`. Everything a consumer did before polling `e` happens-before any
 * producer's reuse of e's cell.
 *
 * Semantics (docs/memory-model.md, conq_mpmc_array, has the pairing table
 * and the argument; its labels are [Q1]..[Q12]):
 *
 *  - The queue is linearizable. An offer takes its place when it claims its
 *    position (the tail CAS); a poll, when it claims its element (the head
 *    CAS); FIFO order is position order.
 *  - poll returns NULL iff the queue was empty at some moment of the call:
 *    the tail was not past the head. An offer that has claimed a position
 *    counts as an element, as in JCTools: poll waits for it.
 *  - offer returns false iff the queue was full at some moment of the call:
 *    positions claimed by offers (and not handed back) minus positions
 *    claimed by polls reached capacity(). A poll that has claimed a
 *    position counts as done (offer waits for its release).
 *  - The relaxed variants never wait and may fail spuriously: they look at
 *    one cell and claim it with one CAS, and give up otherwise:
 *    relaxed_offer fails while the previous lap's poll is still releasing
 *    the cell or when another producer wins the CAS, relaxed_poll while the
 *    producer is still writing, or on a tombstone.
 *  - peek returns the oldest element present when it looked, or NULL if
 *    there was none. With one consumer it returns what that consumer's next
 *    poll returns: it never looks past a position whose producer has claimed
 *    it but not published yet; it waits there as poll would, and passes only
 *    tombstones. It writes nothing. relaxed_peek returns NULL there
 *    instead. With several consumers peek is best effort, as in any MPMC
 *    queue. is_empty writes nothing: it looks past such positions.
 *  - size() is within [0, capacity()], counts offers that have claimed a
 *    position, and is exact when no operation is in progress.
 *  - Batches claim their positions with one CAS each: offer_bulk all n at
 *    once (on the evidence of the last cell, or of the head), offer_burst
 *    and poll_burst as many as the cells show ready (or the head shows
 *    room), fill and drain in runs of up to CONQ__MPMC_CHUNK.
 */
#ifndef CONQ_MPMC_ARRAY_H
#define CONQ_MPMC_ARRAY_H

#include <errno.h>

#include "conq/common.h"
#include "conq/impl/blocking.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The head and tail are accessed seq_cst, so that each side's reading of
 * both counters is consistent with one total order (the "full" and "empty"
 * arguments compare a counter read with a later read of the other); on x86
 * a seq_cst RMW or load costs what an acq_rel one does. */

/* Tunables (compile-time). */
#ifndef CONQ__MPMC_SPIN /* pauses before yielding, in every wait */
#define CONQ__MPMC_SPIN 64u
#endif
/* At the edge (a full queue for an offer, an empty one for a poll), looks at
 * the undecided cell before the other side's counter is read, and the
 * nanoseconds of pauses before each (conq__watch_gap): the writer fills its
 * line undisturbed between two looks. */
#ifndef CONQ__MPMC_CHASE_SPINS
#define CONQ__MPMC_CHASE_SPINS 4u
#endif
#ifndef CONQ__MPMC_CHASE_GAP
#define CONQ__MPMC_CHASE_GAP 176u /* ns: 16 pauses of the Intel guest */
#endif
#define CONQ__MPMC_CHUNK 64u /* fill and drain: positions per claim, at most */

/* Cell states, the low two bits of seq. */
#define CONQ__MPMC_FREE 0u
#define CONQ__MPMC_FULL 2u

/* seq arithmetic. With 64-bit positions, plain uint64_t arithmetic: seq
 * wraps with the positions. With narrow ones (CONQ_INDEX_BITS), positions
 * wrap at 2^CONQ_INDEX_BITS, so seq, which holds a position's lap << 2, is
 * kept modulo 2^(CONQ_INDEX_BITS + 2). */
#if CONQ_INDEX_BITS < 64
#define CONQ__MPMC_SEQ_BITS (CONQ_INDEX_BITS + 2)
#define CONQ__MPMC_SEQ(x)                                                      \
	((uint64_t)(x) & (((uint64_t)1 << CONQ__MPMC_SEQ_BITS) - 1))
#else
#define CONQ__MPMC_SEQ(x) ((uint64_t)(x))
#endif

typedef struct conq_mpmc_array conq_mpmc_array;

/* 16 bytes on every target, so that seq never straddles a line. */
typedef struct conq__mpmc_cell {
	uint64_t seq; /* ((p & ~(n - 1)) << 2) | state, for position p */
	union {
		void *e; /* the element; NULL in a FULL cell: tombstone */
		uint64_t pad_;
	} u;
} conq__mpmc_cell;

struct conq_mpmc_array {
	/* Read-mostly: written by init, then only read. */
	uint64_t cap; /* capacity(): n, a power of two */
	CONQ__PAD_AFTER(pad_cold, sizeof(uint64_t));

	/* Producer-hot: CASed by offers. */
	conq__idx_t tail; /* next position to offer at */
	conq_eventcount nonempty; /* take() waits here; offers notify */
	CONQ__PAD_AFTER(pad_prod, CONQ__IDX_FIELDS(1) + sizeof(uint64_t));

	/* Consumer-hot: CASed by polls. */
	conq__idx_t head; /* next position to poll at */
	conq_eventcount nonfull; /* put() waits here; polls notify */
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(1) + sizeof(uint64_t));

	/* conq__mpmc_cell cells[n] follow, then CONQ_PAD bytes of guard. */
};

CONQ__STATIC_ASSERT(sizeof(conq__mpmc_cell) == 16, "cells are 16 bytes");
/* tail - head stays within [0, capacity]; a cell's seq within a lap or two
 * of any position a thread compares it with (common.h,
 * CONQ_ARRAY_MAX_CAPACITY). */
CONQ__STATIC_ASSERT((uint64_t)CONQ_ARRAY_MAX_CAPACITY * 8 <= CONQ__IDX_HALF,
		    "positions' differences stay unambiguous");
CONQ__STATIC_ASSERT(offsetof(conq_mpmc_array, tail) % CONQ_PAD == 0,
		    "producer fields start a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_mpmc_array, head) -
			    offsetof(conq_mpmc_array, tail) >=
			CONQ_PAD,
		    "producer and consumer fields are CONQ_PAD apart");
CONQ__STATIC_ASSERT(sizeof(conq_mpmc_array) % CONQ_PAD == 0,
		    "the cells start a padded block");

/* Bytes of CONQ_PAD-aligned memory that init() needs for `capacity`, or 0
 * with errno = EINVAL when the capacity is 0 or too large. A. */
size_t conq_mpmc_array_memsize(size_t capacity);

/* Build a queue in caller memory: `mem` aligned to CONQ_PAD, holding
 * memsize(capacity) bytes. No pointers into itself: the memory may be mapped
 * at different addresses in different processes. Returns `mem` as a queue,
 * or NULL with errno = EINVAL. */
conq_mpmc_array *conq_mpmc_array_init(void *mem, size_t capacity);

/* Allocate and init. NULL with errno = EINVAL (bad capacity) or ENOMEM. */
conq_mpmc_array *conq_mpmc_array_create(size_t capacity);

/* Free a queue from create(). Elements still inside are not touched. NULL is
 * a no-op. Only once no thread uses the queue. */
void conq_mpmc_array_destroy(conq_mpmc_array *q);

/* sched_yield(), compiled in src/ so that this header needs no POSIX. */
void conq__mpmc_yield(void);

static inline conq__mpmc_cell *conq__mpmc_cells(const conq_mpmc_array *q)
{
	/* Through uintptr_t: the cells start CONQ_PAD-aligned (asserted
	 * above), which -Wcast-align cannot see through a char pointer. */
	return (conq__mpmc_cell *)((uintptr_t)q + sizeof(conq_mpmc_array));
}

/* The cell of position p: p mod n. */
static inline conq__mpmc_cell *conq__mpmc_cell_at(const conq_mpmc_array *q,
						  conq__idx_t p)
{
	return &conq__mpmc_cells(q)[p & (q->cap - 1)];
}

/* seq of position p's lap, state FREE. seq - lap(p), read as signed, is the
 * cell's state for p: FREE or FULL; negative: an earlier lap; 4n or more: a
 * later one. (The 2^64 wrap of positions is harmless.) */
static inline uint64_t conq__mpmc_lap(const conq_mpmc_array *q, conq__idx_t p)
{
	return CONQ__MPMC_SEQ((uint64_t)(p & ~(q->cap - 1)) << 2);
}

static inline int64_t conq__mpmc_state(uint64_t seq, uint64_t lap)
{
#if CONQ_INDEX_BITS < 64
	/* seq - lap modulo 2^CONQ__MPMC_SEQ_BITS, sign-extended. */
	const uint64_t sign = (uint64_t)1 << (CONQ__MPMC_SEQ_BITS - 1);
	return (int64_t)(CONQ__MPMC_SEQ(seq - lap) ^ sign) - (int64_t)sign;
#else
	return (int64_t)(seq - lap);
#endif
}

/* The state of position p's cell (see conq__mpmc_lap). [Q2]/[Q5] acquire:
 * pairs with [Q6] (a consumer's release of FREE(p)) and [Q4] (a producer's
 * release of FULL(p)): what the cell's last writer did before it stored seq
 * is visible once this load sees it. */
static inline int64_t conq__mpmc_look_cell(const conq_mpmc_array *q,
					   conq__idx_t p)
{
	return conq__mpmc_state(conq__load_acquire(&conq__mpmc_cell_at(q, p)->seq),
				conq__mpmc_lap(q, p));
}

/* One round of waiting for a thread inside an operation: spin, then yield. */
static inline void conq__mpmc_backoff(unsigned *k)
{
	if (*k < CONQ__MPMC_SPIN) {
		(*k)++;
		conq__cpu_relax();
	} else {
		conq__mpmc_yield();
	}
}

/* P, cold: the cell of t (read `d`, an earlier lap) cannot tell room from a
 * consumer still releasing t - n. Watch it (CONQ__MPMC_CHASE_SPINS looks,
 * CONQ__MPMC_CHASE_GAP ns apart), then read the head: false if t - n is not
 * claimed (t - head >= n: the queue was full when t was read from the tail,
 * the head only grows); else wait until the cell changes or the tail moves
 * off t, and return true (look again). In src/mpmc_array.c. */
bool conq__mpmc_edge_put(conq_mpmc_array *q, conq__idx_t t);

/* C (and peek), cold: the cell of position p (FREE(p), or an earlier lap),
 * p at or past h, a value of the head with only tombstones between them,
 * cannot tell an empty queue from p's producer between its claim and its
 * publish. Watch it (CONQ__MPMC_CHASE_SPINS looks, CONQ__MPMC_CHASE_GAP ns
 * apart), then read the tail: false if the tail is not past p (empty at
 * that read: the head was at least h <= p); else wait until the cell
 * changes, the head moves off h or the tail comes back down to p (fill
 * handed p back), and return true (look again). In src/mpmc_array.c. */
bool conq__mpmc_edge_take(conq_mpmc_array *q, conq__idx_t p, conq__idx_t h);

/* A position this thread has claimed (the room for it proven) whose cell may
 * still hold the previous lap: wait (for the poll releasing it) until it is
 * FREE(p). */
static inline void conq__mpmc_wait_free(const conq_mpmc_array *q,
					conq__idx_t p)
{
	unsigned k = 0;
	/* [Q2] acquire: pairs with [Q6]. */
	while (conq__mpmc_look_cell(q, p) != CONQ__MPMC_FREE)
		conq__mpmc_backoff(&k);
}

/* P: claim up to k >= 1 positions from the tail, at least `need` (1 <= need
 * <= k) or none: returns how many (the first in *first), 0 if fewer than
 * `need` were free when the tail was read. Evidence first: FREE in the cell
 * of the k-th position proves room for k (its previous lap's poll released
 * it, so the head is past every earlier position's previous lap); else, for
 * one position, the cell of t watched and then the head; for a batch, the
 * head at once. A batch claimed on the head's word may find some cells
 * still being released: the caller waits for them (conq__mpmc_wait_free)
 * before writing. */
static inline uint64_t conq__mpmc_claim_put(conq_mpmc_array *q, uint64_t k,
					    uint64_t need, conq__idx_t *first)
{
	/* [Q1] seq_cst: pairs with [Q10] (the consumers' reads of the tail)
	 * and [Q11]. */
	conq__idx_t t = conq__load_seq_cst(&q->tail);
	for (;;) {
		uint64_t m = k;
		/* [Q2] acquire: pairs with [Q6]. */
		int64_t d = conq__mpmc_look_cell(q, conq__idx_add(t, k - 1));
		if (d != CONQ__MPMC_FREE) {
			if (d > 0 || (k > 1 && conq__mpmc_look_cell(q, t) > 0)) {
				/* t is stale: another producer claimed it.
				 * [Q1] seq_cst, as above. */
				t = conq__load_seq_cst(&q->tail);
				continue;
			}
			if (k == 1) {
				if (!conq__mpmc_edge_put(q, t))
					return 0; /* full */
				/* [Q1] seq_cst, as above. */
				t = conq__load_seq_cst(&q->tail);
				continue;
			}
			/* [Q8] seq_cst: pairs with [Q7]. Positions below the
			 * head are claimed by polls (their cells FREE or on
			 * their way); the room at the moment t was read is at
			 * least this much. */
			conq__sidx_t room = conq__idx_diff(
			    conq__idx_add(conq__load_seq_cst(&q->head), q->cap),
			    t);
			if ((int64_t)room < (int64_t)need)
				return 0;
			if ((uint64_t)room < m)
				m = (uint64_t)room;
		}
		/* [Q1] seq_cst CAS: pairs with [Q10] and [Q11]; the claim.
		 * Failure reloads t. */
		if (conq__cas_strong_seq_cst(&q->tail, &t, conq__idx_add(t, m))) {
			*first = t;
			return m;
		}
	}
}

/* P: publish e (NULL: a tombstone) in the cell of position t, claimed by
 * this thread and FREE(t). Per element: the caller wakes a waiting take()
 * after its last publish (conq_eventcount_notify on nonempty). */
static inline void conq__mpmc_publish(conq_mpmc_array *q, conq__idx_t t,
				      void *e)
{
	conq__mpmc_cell *c = conq__mpmc_cell_at(q, t);
	/* [Q3] release: pairs with [Q9] (peek's acquire of the element). A
	 * poll needs no more than relaxed: [Q4] -> [Q5] orders it. */
	conq__store_release(&c->u.e, e);
	/* [Q4] release: pairs with [Q5]: the element, and everything the
	 * producer wrote before offering it, is visible with FULL. */
	conq__store_release(&c->seq, conq__mpmc_lap(q, t) | CONQ__MPMC_FULL);
}

/* C: claim up to k >= 1 positions from the head, all of them FULL (as many
 * consecutive FULL cells as there are from the head, up to k): returns how
 * many (the first in *first), 0 if the queue was empty. A poll claims only
 * what its cells show published, so it never waits after its claim and
 * never holds a position that fill might hand back. */
static inline uint64_t conq__mpmc_claim_take(conq_mpmc_array *q, uint64_t k,
					     conq__idx_t *first)
{
	/* [Q7] seq_cst: pairs with [Q8] (the producers' reads of the head)
	 * and [Q11]. */
	conq__idx_t h = conq__load_seq_cst(&q->head);
	for (;;) {
		uint64_t m = 0;
		int64_t d = CONQ__MPMC_FREE;
		/* [Q5] acquire (each): pairs with [Q4]. */
		while (m < k && (d = conq__mpmc_look_cell(
				     q, conq__idx_add(h, m))) == CONQ__MPMC_FULL)
			m++;
		if (m == 0) {
			if (d > CONQ__MPMC_FULL) {
				/* Taken: h is stale. [Q7] seq_cst. */
				h = conq__load_seq_cst(&q->head);
				continue;
			}
			if (!conq__mpmc_edge_take(q, h, h))
				return 0; /* empty */
			/* [Q7] seq_cst, as above. */
			h = conq__load_seq_cst(&q->head);
			continue;
		}
		/* [Q7] seq_cst CAS: pairs with [Q8] and [Q11]; the claim.
		 * Failure reloads h. */
		if (conq__cas_strong_seq_cst(&q->head, &h, conq__idx_add(h, m))) {
			*first = h;
			return m;
		}
	}
}

/* C: the element of position h (claimed by this thread, its cell FULL(h));
 * NULL for a tombstone. Releases the cell to lap h + n. Per element: the
 * caller wakes a waiting put() after its last take of a claim, tombstones
 * included (a released tombstone's cell is room too). */
static inline void *conq__mpmc_take(conq_mpmc_array *q, conq__idx_t h)
{
	conq__mpmc_cell *c = conq__mpmc_cell_at(q, h);
	/* relaxed: [Q4] -> [Q5] (in the claim) ordered the producer's store
	 * before this. */
	void *e = conq__load_relaxed(&c->u.e);
	/* [Q6] release: pairs with [Q2]: our read of the element
	 * happens-before the next lap's producer writes the cell. */
	conq__store_release(&c->seq, CONQ__MPMC_SEQ(conq__mpmc_lap(q, h) +
						    (q->cap << 2)));
	return e;
}

/* Offer `e`. True if enqueued; false if the queue is full (see the header
 * comment for what counts), or if e is NULL (then errno = EINVAL; a full
 * queue leaves errno alone). A. At a full queue, watches the cell up to
 * CONQ__MPMC_CHASE_SPINS x _GAP ns (704) before the head decides. Waits only
 * for a poll that has claimed the cell's previous lap and not released it.
 * Release. */
static inline bool conq_mpmc_array_offer(conq_mpmc_array *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	conq__idx_t t;
	if (conq__mpmc_claim_put(q, 1, 1, &t) == 0)
		return false;
	conq__mpmc_publish(q, t, e);
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
	return true;
}

/* Offer only into a cell that is free now, with one CAS: may return false
 * although the queue is not full (a lost race, a poll still releasing the
 * cell). NULL: false, errno = EINVAL. A. Lock-free, never waits. Release. */
static inline bool conq_mpmc_array_relaxed_offer(conq_mpmc_array *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	/* [Q1] seq_cst: as in claim_put. */
	conq__idx_t t = conq__load_seq_cst(&q->tail);
	/* [Q2] acquire: pairs with [Q6]. */
	if (conq__mpmc_look_cell(q, t) != CONQ__MPMC_FREE ||
	    /* [Q1] seq_cst, as in claim_put. */
	    !conq__cas_strong_seq_cst(&q->tail, &t, conq__idx_add(t, 1)))
		return false;
	conq__mpmc_publish(q, t, e);
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
	return true;
}

/* Poll: the oldest element, or NULL iff the queue was empty at some moment
 * of the call. A. At an empty queue, watches the cell up to
 * CONQ__MPMC_CHASE_SPINS x _GAP ns (704) before the tail decides. Waits for
 * a producer between its claim and its publish. Acquire. */
static inline void *conq_mpmc_array_poll(conq_mpmc_array *q)
{
	for (;;) {
		conq__idx_t h;
		if (conq__mpmc_claim_take(q, 1, &h) == 0)
			return NULL;
		void *e = conq__mpmc_take(q, h);
		/* After every take, a tombstone's too: its cell is room, and
		 * the next claim may wait for a producer. */
		conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
		if (CONQ__LIKELY(e != NULL))
			return e;
		/* a tombstone: taken, look at the next position */
	}
}

/* Poll only an element that is there now, with one CAS: may return NULL
 * although the queue is not empty. A. Lock-free, never waits. Acquire. */
static inline void *conq_mpmc_array_relaxed_poll(conq_mpmc_array *q)
{
	/* [Q7] seq_cst: as in claim_take. */
	conq__idx_t h = conq__load_seq_cst(&q->head);
	/* [Q5] acquire: pairs with [Q4]. */
	if (conq__mpmc_look_cell(q, h) != CONQ__MPMC_FULL ||
	    /* [Q7] seq_cst, as in claim_take. */
	    !conq__cas_strong_seq_cst(&q->head, &h, conq__idx_add(h, 1)))
		return NULL;
	void *e = conq__mpmc_take(q, h); /* NULL for a tombstone: spurious */
	conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
	return e;
}

/* peek, is_empty, relaxed_peek: position p's element, if the cell shows it
 * there now. 1 with *out the element; 0 a tombstone; -1 not (yet) there
 * (FREE, or an earlier lap: p's producer has not published); -2 taken (a
 * later lap: a consumer claimed p, the head has moved). Writes nothing. */
static inline int conq__mpmc_peek_cell(const conq_mpmc_array *q,
				       conq__idx_t p, void **out)
{
	conq__mpmc_cell *c = conq__mpmc_cell_at(q, p);
	const uint64_t lap = conq__mpmc_lap(q, p);
	/* [Q9] acquire: pairs with [Q4] and [Q6]. */
	uint64_t s = conq__load_acquire(&c->seq);
	int64_t d = conq__mpmc_state(s, lap);
	if (d > CONQ__MPMC_FULL)
		return -2;
	if (d != CONQ__MPMC_FULL)
		return -1;
	/* [Q9] acquire: pairs with [Q3]. If it reads a later lap's element,
	 * this lap's release ([Q6]) happened before, and the re-read below
	 * sees it. */
	void *e = conq__load_acquire(&c->u.e);
	/* [Q9] acquire: unchanged, e was position p's element when read. */
	if (conq__load_acquire(&c->seq) != s)
		return -2;
	if (e == NULL)
		return 0;
	*out = e;
	return 1;
}

/* The oldest element without removing it, or NULL if the queue held none
 * when it looked. With one consumer (no other poll or peek running), the
 * element is the one the caller's next poll returns: peek never looks past
 * a position whose producer has claimed it and not published; it waits
 * where that poll would wait (watching, then reading the tail, as poll
 * does), and passes only tombstones, which that poll skips. It writes
 * nothing. With several consumers, best effort: another consumer may take
 * the element right after, or while peek looks (peek then starts again
 * from the head). A. Waits as poll. Acquire. */
static inline void *conq_mpmc_array_peek(conq_mpmc_array *q)
{
	for (;;) {
		/* [Q9] seq_cst: pairs with [Q7]. */
		conq__idx_t h = conq__load_seq_cst(&q->head), p = h;
		for (uint64_t u = 0; u <= q->cap; u++, p = conq__idx_add(p, 1)) {
			void *e = NULL;
			int r = conq__mpmc_peek_cell(q, p, &e);
			if (r == 0)
				continue; /* a tombstone */
			if (r == -2)
				break; /* taken: the head moved */
			if (r == 1) {
				/* [Q9] seq_cst: the head unmoved, e is still
				 * the oldest element. */
				if (conq__load_seq_cst(&q->head) == h)
					return e;
				break;
			}
			/* Not published: empty (the tail not past p), or p's
			 * producer is publishing: wait for it, as poll. */
			if (!conq__mpmc_edge_take(q, p, h))
				return NULL;
			break; /* something changed: from the head again */
		}
	}
}

/* Peek at the oldest position only, once (past tombstones): NULL also when
 * its element is not there yet or a consumer moves meanwhile. A. Lock-free,
 * never waits. Acquire. */
static inline void *conq_mpmc_array_relaxed_peek(conq_mpmc_array *q)
{
	/* [Q9] seq_cst: pairs with [Q7]. */
	conq__idx_t h = conq__load_seq_cst(&q->head), p = h;
	for (uint64_t u = 0; u < q->cap; u++, p = conq__idx_add(p, 1)) {
		void *e = NULL;
		int r = conq__mpmc_peek_cell(q, p, &e);
		if (r == 1)
			/* [Q9] seq_cst: the head unmoved. */
			return conq__load_seq_cst(&q->head) == h ? e : NULL;
		if (r != 0)
			return NULL;
	}
	return NULL;
}

/* The capacity (a power of two). A. Wait-free. */
static inline size_t conq_mpmc_array_capacity(const conq_mpmc_array *q)
{
	return (size_t)q->cap;
}

/* Elements in the queue, within [0, capacity()]: tail - head, counting
 * offers that have claimed a position. Exact when no operation runs. A.
 * Lock-free: retries while the head moves (JCTools' IndexedQueueSizeUtil). */
static inline size_t conq_mpmc_array_size(const conq_mpmc_array *q)
{
	/* [Q11] seq_cst (all three): pair with [Q1] and [Q7]. */
	conq__idx_t h = conq__load_seq_cst(&q->head), h2, t;
	for (;;) {
		t = conq__load_seq_cst(&q->tail);
		h2 = conq__load_seq_cst(&q->head);
		if (h2 == h)
			break;
		h = h2;
	}
	conq__sidx_t n = conq__idx_diff(t, h);
	if (n < 0)
		return 0;
	return (uint64_t)n > q->cap ? (size_t)q->cap : (size_t)n;
}

/* True if the queue held no element when it looked: no position between the
 * head and the tail showed a published element. Unlike peek, it looks past
 * a position whose producer has claimed it and not published yet (no
 * element there yet) instead of waiting for it; like peek, it writes
 * nothing. From the only consumer, false means the next poll returns an
 * element. A. Lock-free: it starts again while the head moves. */
static inline bool conq_mpmc_array_is_empty(const conq_mpmc_array *q)
{
	for (;;) {
		/* [Q11] seq_cst (head, then tail): pairs with [Q7] and [Q1];
		 * head first: the tail read at or below it means empty. */
		conq__idx_t h = conq__load_seq_cst(&q->head);
		conq__sidx_t avail =
		    conq__idx_diff(conq__load_seq_cst(&q->tail), h);
		if (avail <= 0)
			return true;
		uint64_t lim = (uint64_t)avail < q->cap ? (uint64_t)avail : q->cap;
		bool moved = false;
		for (uint64_t u = 0; u < lim && !moved; u++) {
			void *e = NULL;
			int r = conq__mpmc_peek_cell(q, conq__idx_add(h, u), &e);
			if (r == 1)
				return false;
			if (r == -2)
				moved = true;
		}
		/* [Q11] seq_cst: as above. */
		if (!moved && conq__load_seq_cst(&q->head) == h)
			return true;
	}
}

/* Offer all n elements or none: returns n, or 0 if fewer than n slots were
 * free, or n is 0 or above capacity(). A NULL among them: 0 with errno =
 * EINVAL, none enqueued. The n positions are claimed with one CAS. A. Waits
 * as offer. Release. */
static inline size_t conq_mpmc_array_offer_bulk(conq_mpmc_array *q,
						void *const *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (CONQ__UNLIKELY(es[i] == NULL)) {
			errno = EINVAL;
			return 0;
		}
	if (n == 0 || (uint64_t)n > q->cap)
		return 0;
	conq__idx_t t;
	if (conq__mpmc_claim_put(q, n, n, &t) == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		conq__mpmc_wait_free(q, conq__idx_add(t, i));
		conq__mpmc_publish(q, conq__idx_add(t, i), es[i]);
	}
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
	return n;
}

/* Offer as many of the n elements as there are free slots for, in order;
 * returns how many. Stops before the first NULL (errno = EINVAL). One claim
 * for all of them when the cell of the last one is free (else as many as
 * the head shows room for). A. Waits as offer. Release. */
static inline size_t conq_mpmc_array_offer_burst(conq_mpmc_array *q,
						 void *const *es, size_t n)
{
	size_t k = 0;
	while (k < n && es[k] != NULL)
		k++;
	if (k < n)
		errno = EINVAL;
	size_t done = 0;
	while (done < k) {
		conq__idx_t t;
		uint64_t want = k - done;
		if (want > q->cap)
			want = q->cap;
		uint64_t m = conq__mpmc_claim_put(q, want, 1, &t);
		for (uint64_t u = 0; u < m; u++) {
			conq__mpmc_wait_free(q, conq__idx_add(t, u));
			conq__mpmc_publish(q, conq__idx_add(t, u), es[done++]);
		}
		if (m < want)
			break; /* no more room */
	}
	if (done) /* [E2]: a waiting take() */
		conq_eventcount_notify(&q->nonempty);
	return done;
}

/* Poll up to n elements into out[], oldest first; returns how many (0 iff
 * the queue was empty, or n is 0). One claim for as many consecutive
 * published elements as the cells show (more claims only past tombstones).
 * A. Waits as poll. Acquire. */
static inline size_t conq_mpmc_array_poll_burst(conq_mpmc_array *q, void **out,
						size_t n)
{
	size_t done = 0;
	while (done < n) {
		conq__idx_t h;
		uint64_t m = conq__mpmc_claim_take(q, n - done, &h);
		if (m == 0)
			break;
		size_t got = 0;
		for (uint64_t u = 0; u < m; u++) {
			void *e = conq__mpmc_take(q, conq__idx_add(h, u));
			if (e != NULL)
				out[done + got++] = e;
		}
		/* Once per claim, tombstones included (as in poll). */
		conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
		done += got;
		if (got != 0)
			break;
	}
	return done;
}

/* Hand up to `limit` elements to fn(ctx, e), oldest first; stops early when
 * the queue is empty. Each element is consumed (its cell released) before fn
 * sees it, so fn may use the queue. Returns how many. A. Waits as poll. */
static inline size_t conq_mpmc_array_drain(conq_mpmc_array *q,
					   conq_consume_fn fn, void *ctx,
					   size_t limit)
{
	void *es[CONQ__MPMC_CHUNK];
	size_t k = 0;
	while (k < limit) {
		size_t want =
		    limit - k < CONQ__MPMC_CHUNK ? limit - k : CONQ__MPMC_CHUNK;
		size_t m = conq_mpmc_array_poll_burst(q, es, want);
		for (size_t j = 0; j < m; j++)
			fn(ctx, es[j]);
		k += m;
		if (m == 0)
			break;
	}
	return k;
}

/* P: give back positions [from, to), claimed by this thread and not
 * published: hand them back to the tail if no producer claimed after them
 * (true), else publish them as tombstones (false).
 *
 * Both ends wake the other side. The hand-back is room: an offer that found
 * the queue full counting these positions (its tail was `to`) may succeed
 * now, so it wakes a waiting put(), as a consumption does. The tombstones
 * are a publication: they bring no element, but they hold their cells until
 * a poll takes them, so a queue full of tombstones with every consumer
 * asleep in take() (their polls found it empty before these positions were
 * claimed) would keep a put() waiting for ever; the notify wakes a take(),
 * whose poll takes them (and wakes the put(), as every take does) before
 * it finds the queue empty and sleeps again. */
static inline bool conq__mpmc_unclaim(conq_mpmc_array *q, conq__idx_t from,
				      conq__idx_t to)
{
	conq__idx_t t = to;
	/* [Q12] seq_cst CAS: pairs with [Q1] and [Q10]. A poll waiting at one
	 * of these positions (for its producer) re-reads the tail and finds
	 * the queue empty there. */
	if (conq__cas_strong_seq_cst(&q->tail, &t, from)) {
		conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting put() */
		return true;
	}
	for (conq__idx_t p = from; p != to; p = conq__idx_add(p, 1)) {
		conq__mpmc_wait_free(q, p);
		conq__mpmc_publish(q, p, NULL);
	}
	if (from != to) /* [E2]: a waiting take() */
		conq_eventcount_notify(&q->nonempty);
	return false;
}

/* Enqueue up to `limit` elements from fn(ctx), asking fn only for a position
 * already claimed (its cell free); stops early when the queue is full or fn
 * returns NULL (the positions claimed for nothing are handed back, or
 * become tombstones if another producer claimed after them). Claims 1, 2,
 * 4, ... up to CONQ__MPMC_CHUNK positions at a time while fn keeps
 * supplying, so that a fill that ends at once leaves at most one position
 * to give back. Returns how many. A; fn must not use this queue (a poll
 * might wait for the cell fn is filling). Waits as offer. Release. */
static inline size_t conq_mpmc_array_fill(conq_mpmc_array *q, conq_supply_fn fn,
					  void *ctx, size_t limit)
{
	size_t done = 0;
	uint64_t run = 1;
	while (done < limit) {
		uint64_t want = limit - done < run ? limit - done : run;
		if (want > q->cap)
			want = q->cap;
		conq__idx_t t;
		uint64_t m = conq__mpmc_claim_put(q, want, 1, &t);
		uint64_t u = 0;
		for (; u < m; u++) {
			conq__idx_t p = conq__idx_add(t, u);
			conq__mpmc_wait_free(q, p);
			void *e = fn(ctx);
			if (e == NULL)
				break;
			conq__mpmc_publish(q, p, e);
			done++;
		}
		/* Once per run (at most CONQ__MPMC_CHUNK calls of fn), not
		 * once per fill: fn may take its time, and the run's
		 * elements are there for polls already. */
		if (u) /* [E2]: a waiting take() */
			conq_eventcount_notify(&q->nonempty);
		if (u < m) {
			/* fn ran dry: give back the rest of the run
			 * (unclaim notifies whichever side that helps). */
			(void)conq__mpmc_unclaim(q, conq__idx_add(t, u),
						 conq__idx_add(t, m));
			return done;
		}
		if (m < want)
			break;
		if (run < CONQ__MPMC_CHUNK)
			run *= 2;
	}
	return done;
}

CONQ__DEFINE_PUT(mpmc_array, nonfull)
CONQ__DEFINE_TAKE(mpmc_array, nonempty)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_MPMC_ARRAY_H */
