/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/mpmc_array.h - bounded multi-producer multi-consumer array queue.
 *
 * The counterpart of JCTools' MpmcArrayQueue, with its semantics, but built
 * to scale: JCTools, Vyukov, DPDK, ConcurrencyKit and atomic_queue all claim
 * a position with a CAS on a shared index, and under contention every loser
 * retries, which is why they fall below a plain mutex at 4 and 8 threads per
 * side. Here, as in FAA queues (Nikolaev's SCQ, DISC 2019; LCRQ), positions
 * are claimed with fetch-and-add, which never fails, whenever there is room
 * to spare; a CAS is used only at the edge (a nearly full queue for offers, a
 * nearly empty one for polls), where a crowd racing for the last slot or
 * element would otherwise overshoot.
 *
 * The ring: capacity() cells of {seq, element}. Position p (a free-running
 * 64-bit ticket) lives in cell p mod n, and the cell's seq says, as in
 * JCTools' sequence array, which lap of the cell it is in and in what state:
 *
 *   FREE(p)  the producer of position p may take the cell;
 *   RES(p)   that producer has taken it and is writing the element;
 *   FULL(p)  the element of position p is there for its consumer, who then
 *            sets FREE(p + n): the cell's next lap.
 *
 * offer: claim a position t from the tail (an FAA if a cached copy of the
 * head shows CONQ__MPMC_FAA_SLACK free slots to spare; else, when the cell
 * of t is FREE(t), which proves room, a CAS of the tail without reading the
 * head; else it reads the head, fails if the queue is full, and claims with
 * a CAS), CAS the cell FREE(t) -> RES(t), store the element, store
 * FULL(t). poll: claim a position h from the head (the same, mirrored:
 * RES(h) or FULL(h) in the cell proves an element; NULL if the tail is not
 * past it), wait for FULL(h), load the element, store FREE(h + n). 3 atomic
 * read-modify-writes per element (Vyukov's queue: 2; SCQ's data queue: 8).
 *
 * An FAA can hand out a position nobody will fill (a consumer past the tail)
 * or one that is not free (a producer past the head + n). Two rules, after
 * SCQ, keep that harmless:
 *
 *  - A consumer that finds its cell still FREE(h) *closes* the position
 *    (CAS FREE(h) -> FREE(h + n)) when no producer holds it: the tail is at
 *    or below h (a poll past the tail; fill handed the position back); a
 *    producer that claims h later finds its CAS failing and takes a new
 *    position. If a producer holds h, the consumer waits for it (as
 *    JCTools' poll waits for a claimed slot), re-checking on every slow
 *    round whether h became closable, unless that producer has abandoned h
 *    (next rule): then it closes h.
 *  - A producer whose cell still holds the previous lap waits for that lap's
 *    consumer if it has claimed the position (it is between its claim and
 *    its release), and otherwise gives the position up (the queue was full):
 *    back to the tail if it is the last one claimed, else recorded in a
 *    small table of abandoned positions (CONQ__MPMC_HOLES entries) for its
 *    consumer to close. With the table full it waits for a consumer to free
 *    an entry (or for the head to move, or to be the last claimed).
 *
 * Waits that remain (spin, then sched_yield, so that a preempted thread gets
 * the CPU back): a poll (or peek) whose producer is between its claim and its
 * publish (not yet RES, or RES); a thread whose cell is still in the previous
 * lap because that lap's consumer, having claimed it, has not released it
 * yet. All are for a thread inside an operation on this queue, as in
 * JCTools' MpmcArrayQueue. The one exception: an offer that must give up
 * its position while CONQ__MPMC_HOLES others are abandoned and not yet
 * closed waits for a consumer to reach one of them.
 *
 * Layout: the producers' tail and their copy of the head share one padded
 * block, the consumers' head and their copy of the tail another; each side
 * reads the other's counter only at the edge, and there only when the cell
 * cannot decide (after watching it for CONQ__MPMC_CHASE pauses): a thread
 * spinning on a full or empty queue does not pull the other side's counter,
 * which that side moves with a locked instruction per element, away from
 * it on every call (issue 12). Consecutive positions map to
 * cells CONQ_PAD bytes apart within blocks of 16 pads (an index rotation, as
 * SCQ's and atomic_queue's remap, but local, so that one thread streaming
 * through the ring still reuses its lines).
 *
 * Capacity: the requested capacity rounded up to a power of two, from 1 up to
 * CONQ_ARRAY_MAX_CAPACITY. 0 or larger: EINVAL. 16 bytes per slot.
 *
 * Who may call what, concurrently (A = any thread, any number of them):
 *
 *   function                                     caller  progress
 *   offer, offer_bulk, offer_burst, fill           A       see "Waits" above
 *   poll, poll_burst, drain, peek                  A       see "Waits" above
 *   is_empty                                       A       waits for RES only
 *   relaxed_offer, relaxed_poll, relaxed_peek      A       lock-free, no wait
 *   size                                           A       lock-free
 *   capacity                                       A       wait-free
 *   create, init, memsize                          A       (blocking: malloc)
 *   destroy                                        A, once no other call runs
 *
 * Ordering: everything a producer wrote before a successful offer of `e`
 * happens-before everything the consumer does after the poll (or peek) that
 * returns `e`. Everything a consumer did before polling `e` happens-before any
 * producer's reuse of e's cell.
 *
 * Semantics (docs/memory-model.md, conq_mpmc_array, has the pairing table
 * and the argument; its labels are [Q1]..[Q21]):
 *
 *  - The queue is linearizable. An offer takes its place when it takes its
 *    cell (RES); a poll, when it takes the element; FIFO order is position
 *    order (docs/memory-model.md, "Linearizability").
 *  - poll returns NULL iff the queue was empty at some moment of the call:
 *    the tail was not past the head. An offer that has claimed a position
 *    counts as an element, as in JCTools: poll waits for it. Positions that
 *    will hold no element (abandoned, tombstones) are passed by poll, which
 *    then looks at the next.
 *  - offer returns false iff the queue was full at some moment of the call,
 *    counted as in JCTools: positions claimed by offers minus positions
 *    claimed by polls reach capacity(). A poll that has claimed a position
 *    but not yet released its cell counts as done (offer waits for it); an
 *    offer that has claimed a position counts as an element. One departure:
 *    a position an offer abandoned (above; not the last claimed) counts as
 *    an element until a poll passes it, so offer may fail (and size() count
 *    one more, and with one consumer "size() > 0, then poll() NULL" can
 *    happen) with capacity() - 1 elements in the queue; that needs two
 *    producers stopped between reading the hint and their FAA while the
 *    queue filled up, and the earlier one to find it full.
 *  - The relaxed variants never wait and may fail spuriously: they claim only
 *    a position whose cell is ready (FREE for relaxed_offer, FULL for
 *    relaxed_poll), with one CAS, and give up otherwise: relaxed_offer fails
 *    while the poll of the cell's previous lap is still releasing it, and
 *    relaxed_poll while the producer is still writing.
 *  - peek returns the oldest element present when it looked, or NULL if there
 *    was none. With one consumer it returns what that consumer's next poll
 *    returns: it never looks past a position whose producer has claimed it
 *    but not published yet; it waits there as poll would, and passes only
 *    positions that will never hold an element (tombstones, abandoned
 *    positions). It writes nothing. relaxed_peek returns NULL there
 *    instead. With several consumers peek is best effort, as in any MPMC
 *    queue: another consumer may take the element before the caller looks
 *    at it. is_empty writes nothing: it looks past such positions.
 *  - size() is within [0, capacity()], counts offers that have claimed a
 *    position, and is exact when no operation is in progress.
 *  - Batches claim their positions with one FAA or CAS each
 *    (offer_bulk: all n at once; offer_burst, poll_burst: as many as
 *    possible at once; fill, drain: CONQ__MPMC_CHUNK at a time). fill hands
 *    back the positions it claimed for nothing (fn returned NULL); if
 *    another producer has claimed after them, or when offer_bulk loses one
 *    of its positions to a poll past the tail, the unused positions are
 *    published as tombstones (NULL elements), which polls skip, and count
 *    as elements (for offer and size) until they do.
 */
#ifndef CONQ_MPMC_ARRAY_H
#define CONQ_MPMC_ARRAY_H

#include <errno.h>

#include "conq/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The head and tail are accessed seq_cst, so that each side's reading of
 * both counters is consistent with one total order; on x86 a seq_cst RMW or
 * load costs what an acq_rel one does.
 *
 * No software prefetch of the cell an FAA will most likely return: with two
 * threads per side on 2 CPUs it cost 25-40% of the throughput (the other
 * producer or consumer had often moved the counter, so the line fetched was
 * a cell that thread was about to write), and it gained nothing at 1P1C
 * (docs/benchmarks.md, "conq_mpmc_array: the prefetch"). */

/* Tunables (compile-time). */
#ifndef CONQ__MPMC_FAA_SLACK /* FAA if the hint shows this much more room */
#define CONQ__MPMC_FAA_SLACK 8
#endif
#ifndef CONQ__MPMC_SPIN /* pauses before yielding, in every wait */
#define CONQ__MPMC_SPIN 64u
#endif
/* Pauses a single claim watches an undecided cell, a look after each. Not
 * conq__watch_gap: with 4 looks 176 ns apart, test_transfer mt2 (2P2C) hung
 * in the 16-bit index build (4 of 150 runs) and conq-torture in CI. The
 * 16-bit hangs were the narrow-build hint bug (conq__mpmc_hint_at_least,
 * fixed); one hang under qemu-aarch64, a 64-bit build, is not explained,
 * so the gap stays out until it is (docs/benchmarks.md, "The watch gap"). */
#ifndef CONQ__MPMC_CHASE
#define CONQ__MPMC_CHASE 8u
#endif
#define CONQ__MPMC_HOLES 8u /* abandoned positions recorded at once */
#define CONQ__MPMC_CHUNK 64u /* fill and drain: positions per claim */

/* Cell states, the low two bits of seq. */
#define CONQ__MPMC_FREE 0u
#define CONQ__MPMC_RES	1u
#define CONQ__MPMC_FULL 2u

/* States of an abandoned-position entry (conq__mpmc_hole). */
#define CONQ__MPMC_HOLE_EMPTY 0u
#define CONQ__MPMC_HOLE_BUSY  1u /* being written by the abandoning producer */
#define CONQ__MPMC_HOLE_READY 2u /* pos is an abandoned position */

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

/* An abandoned position: one a producer claimed and gave up (the queue was
 * full), waiting for its consumer to close it. */
typedef struct conq__mpmc_hole {
	uint32_t state; /* CONQ__MPMC_HOLE_* */
	conq__idx_t pos;
} conq__mpmc_hole;

struct conq_mpmc_array {
	/* Read-mostly: written by init, then only read. */
	uint64_t cap;  /* capacity(): n, a power of two */
	uint64_t span; /* position -> cell: within blocks of span cells, */
	uint32_t rot;  /* ... rotate the low log2(span) bits left by rot */
	uint32_t shr;  /* ... (and right by log2(span) - rot) */
	CONQ__PAD_AFTER(pad_cold, 2 * sizeof(uint64_t) + 2 * sizeof(uint32_t));

	/* Producer-hot: written by offers only. */
	conq__idx_t tail;  /* next position to offer at */
	conq__idx_t headc; /* a past value of head (a hint) */
	CONQ__PAD_AFTER(pad_prod, 2 * sizeof(conq__idx_t));

	/* Consumer-hot: written by polls. */
	conq__idx_t head;  /* next position to poll at */
	conq__idx_t tailc; /* a past value of tail (a hint) */
	CONQ__PAD_AFTER(pad_cons, 2 * sizeof(conq__idx_t));

	/* Abandoned positions: written by producers that give a position up
	 * (rare: an FAA that overshot a full queue, not the last claimed) and
	 * by the consumers that close them; read by consumers and peeks only
	 * while they wait for a producer. */
	uint64_t nholes; /* entries READY or about to be (a hint) */
	conq__mpmc_hole holes[CONQ__MPMC_HOLES];
	CONQ__PAD_AFTER(pad_holes,
			sizeof(uint64_t) +
			    CONQ__MPMC_HOLES * sizeof(conq__mpmc_hole));

	/* conq__mpmc_cell cells[n] follow, then CONQ_PAD bytes of guard. */
};

CONQ__STATIC_ASSERT(sizeof(conq__mpmc_cell) == 16, "cells are 16 bytes");
/* tail - head, and seq - lap in positions, stay within capacity + one
 * overshooting claim (at most a capacity) per thread: unambiguous for 7 such
 * threads at full capacity (common.h, CONQ_ARRAY_MAX_CAPACITY). */
CONQ__STATIC_ASSERT((uint64_t)CONQ_ARRAY_MAX_CAPACITY * 8 <= CONQ__IDX_HALF,
		    "positions' differences stay unambiguous");
CONQ__STATIC_ASSERT(offsetof(conq_mpmc_array, tail) % CONQ_PAD == 0,
		    "producer fields start a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_mpmc_array, head) -
			    offsetof(conq_mpmc_array, tail) >=
			CONQ_PAD,
		    "producer and consumer fields are CONQ_PAD apart");
CONQ__STATIC_ASSERT(offsetof(conq_mpmc_array, nholes) % CONQ_PAD == 0,
		    "the abandoned-position table starts a padded block");
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

/* The cell of position p: p mod n, with the low log2(span) bits rotated, so
 * that consecutive positions are CONQ_PAD bytes apart, yet come back to the
 * same few lines within `span` positions (a bijection on [0, n)). */
static inline conq__mpmc_cell *conq__mpmc_cell_at(const conq_mpmc_array *q,
						  conq__idx_t p)
{
	uint64_t x = p & (q->cap - 1), m = q->span - 1, l = x & m;
	return &conq__mpmc_cells(
	    q)[(x & ~m) | (((l << q->rot) | (l >> q->shr)) & m)];
}

/* seq of position p's lap, state FREE. seq - lap(p), read as signed, is the
 * cell's state for p: FREE, RES or FULL; negative: an earlier lap; 4n or
 * more: a later one. (The 2^64 wrap of positions is harmless.) */
static inline uint64_t conq__mpmc_lap(const conq_mpmc_array *q, conq__idx_t p)
{
	return CONQ__MPMC_SEQ((p & ~(q->cap - 1)) << 2);
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

/* P: give up position t, claimed by this thread, whose cell still holds an
 * earlier lap: true when done; false if the head has meanwhile passed
 * t - n (the previous lap's consumer has claimed it: the queue is no longer
 * full, and the caller goes back to waiting for the cell). If t is the last
 * position claimed, hand it back to the tail; else record it in the
 * abandoned-position table, so that its consumer closes it instead of
 * waiting for this thread. Waits (for consumers) only while the table is
 * full: more than CONQ__MPMC_HOLES positions abandoned at once. */
static inline bool conq__mpmc_abandon(conq_mpmc_array *q, conq__idx_t t)
{
	unsigned k = 0;
	for (;;) {
		conq__idx_t x = conq__idx_add(t, 1);
		/* [Q1] seq_cst: as in claim_put. A consumer of t (past the
		 * tail, then) finds the tail at or below t and closes t. */
		if (conq__cas_strong_seq_cst(&q->tail, &x, t))
			return true;
		for (unsigned i = 0; i < CONQ__MPMC_HOLES; i++) {
			conq__mpmc_hole *o = &q->holes[i];
			uint32_t st = CONQ__MPMC_HOLE_EMPTY;
			/* relaxed: a pre-check; the CAS decides. */
			if (conq__load_relaxed(&o->state) != st ||
			    /* [Q15] acq_rel: pairs with [Q18]: the last
			     * user's read of pos happens-before our store. */
			    !conq__cas_strong_acq_rel(&o->state, &st,
						      CONQ__MPMC_HOLE_BUSY))
				continue;
			/* relaxed: published by [Q16]. */
			conq__store_relaxed(&o->pos, t);
			/* [Q19] acq_rel: the count, before READY, so that it
			 * never drops below the READY entries; pairs with
			 * [Q19] (a hint: consumers look when non-zero). */
			conq__faa_acq_rel(&q->nholes, (uint64_t)1);
			/* [Q16] release: pairs with [Q17]: pos is visible
			 * with READY. */
			conq__store_release(&o->state, CONQ__MPMC_HOLE_READY);
			return true;
		}
		/* [Q6] seq_cst: pairs with [Q7]. */
		if (conq__idx_diff(conq__load_seq_cst(&q->head),
				   conq__idx_sub(t, q->cap)) > 0)
			return false; /* room again: wait for the cell */
		conq__mpmc_backoff(&k);
	}
}

/* C, peek: is position p abandoned (recorded by conq__mpmc_abandon)? The
 * entry's index in *slot. Looks only when the count says an entry may be
 * there. A consumer of p that finds it true may close p. */
static inline bool conq__mpmc_abandoned(const conq_mpmc_array *q,
					conq__idx_t p, unsigned *slot)
{
	/* [Q19] acquire: the hint, as in abandon. */
	if (conq__load_acquire(&q->nholes) == 0)
		return false;
	for (unsigned i = 0; i < CONQ__MPMC_HOLES; i++)
		/* [Q17] acquire: pairs with [Q16]: pos is that entry's. */
		if (conq__load_acquire(&q->holes[i].state) ==
			CONQ__MPMC_HOLE_READY &&
		    /* relaxed: ordered by [Q17]; a later owner's value is
		     * also an abandoned position, and only p's consumer
		     * removes p's entry. */
		    conq__load_relaxed(&q->holes[i].pos) == p) {
			*slot = i;
			return true;
		}
	return false;
}

/* C: remove entry `slot` (position p, which this thread has just closed). */
static inline void conq__mpmc_unhole(conq_mpmc_array *q, unsigned slot)
{
	/* [Q18] release: pairs with [Q15]: our read of pos happens-before the
	 * next producer's store into the entry. */
	conq__store_release(&q->holes[slot].state, CONQ__MPMC_HOLE_EMPTY);
	/* [Q19] acq_rel: the count, as in abandon. */
	conq__faa_acq_rel(&q->nholes, (uint64_t)-1);
}

/* P: take the cell of position t, claimed by this thread: true with the cell
 * RES(t); false if the position is lost: its consumer closed it (the tail was
 * then at or below t: this thread claimed it after a poll past the tail), or
 * the queue was full (the previous lap's consumer has not claimed its
 * position) and this thread gave t up (conq__mpmc_abandon). Waits while the
 * previous lap's consumer, having claimed it, has not released the cell. */
static inline bool conq__mpmc_reserve(conq_mpmc_array *q, conq__idx_t t)
{
	conq__mpmc_cell *c = conq__mpmc_cell_at(q, t);
	const uint64_t lap = conq__mpmc_lap(q, t);
	unsigned k = 0;
	/* [Q2] acquire: pairs with [Q9] and [Q10]: the previous lap's
	 * consumer read its element before it freed (or closed) the cell. */
	uint64_t s = conq__load_acquire(&c->seq);
	for (;;) {
		int64_t d = conq__mpmc_state(s, lap);
		if (d == CONQ__MPMC_FREE) {
			/* [Q3] acq_rel: pairs with [Q10]: of this CAS and the
			 * consumer's close, from FREE(t), one succeeds; and
			 * with [Q9], as [Q2] (the acquire on success). */
			if (conq__cas_weak_acq_rel(&c->seq, &s,
						   lap | CONQ__MPMC_RES))
				return true;
			continue;
		}
		if (d > 0)
			return false; /* closed by its consumer */
		/* [Q6] seq_cst: pairs with [Q7]. */
		if (conq__idx_diff(conq__load_seq_cst(&q->head),
				   conq__idx_sub(t, q->cap)) <= 0 &&
		    conq__mpmc_abandon(q, t))
			return false; /* full: the position is given up */
		conq__mpmc_backoff(&k);
		/* [Q2] acquire, as above. */
		s = conq__load_acquire(&c->seq);
	}
}

/* P: publish e (NULL: a tombstone) in the RES cell of position t. */
static inline void conq__mpmc_publish(conq_mpmc_array *q, conq__idx_t t,
				      void *e)
{
	conq__mpmc_cell *c = conq__mpmc_cell_at(q, t);
	/* [Q4] release: pairs with [Q12] (peek's acquire of the element). A
	 * poll needs no more than relaxed: [Q5] -> [Q8] orders it. */
	conq__store_release(&c->u.e, e);
	/* [Q5] release: pairs with [Q8]: the element, and everything the
	 * producer wrote before offering it, is visible with FULL. */
	conq__store_release(&c->seq, conq__mpmc_lap(q, t) | CONQ__MPMC_FULL);
}

/* C: the element of position h, claimed by this thread; NULL if the position
 * held none: a tombstone, or a position this call closed because no producer
 * holds it (the tail is at or below h: a poll past the tail, or fill handed
 * it back) or because its producer abandoned it (the queue was full). Waits
 * for a producer that holds h, until it publishes (RES, or not yet taken the
 * cell: as JCTools' poll waits for a claimed slot), and for a previous lap's
 * consumer; on the first look and on every yielding round, checks whether h
 * has become closable. */
static inline void *conq__mpmc_take(conq_mpmc_array *q, conq__idx_t h)
{
	conq__mpmc_cell *c = conq__mpmc_cell_at(q, h);
	const uint64_t lap = conq__mpmc_lap(q, h);
	const uint64_t next = CONQ__MPMC_SEQ(lap + (q->cap << 2));
	unsigned k = 0;
	/* [Q8] acquire: pairs with [Q5]. */
	uint64_t s = conq__load_acquire(&c->seq);
	for (;;) {
		int64_t d = conq__mpmc_state(s, lap);
		if (d == CONQ__MPMC_FULL) {
			/* relaxed: [Q5] -> [Q8] ordered the producer's store
			 * before this. */
			void *e = conq__load_relaxed(&c->u.e);
			/* [Q9] release: pairs with [Q2]/[Q3]: our read of the
			 * element happens-before the next lap's producer
			 * writes the cell. Only we may move a FULL(h) cell,
			 * so a plain store suffices. */
			conq__store_release(&c->seq, next);
			return e;
		}
		if (d > CONQ__MPMC_FULL)
			return NULL; /* not reached: only we move lap h on */
		if (d == CONQ__MPMC_FREE && (k == 0 || k >= CONQ__MPMC_SPIN)) {
			unsigned slot = 0;
			/* [Q11] seq_cst: pairs with [Q1]. */
			if (conq__idx_diff(conq__load_seq_cst(&q->tail), h) <=
			    0) {
				/* [Q10] acq_rel: pairs with [Q3]: close h
				 * to a producer that claims it from now on;
				 * its reserve fails, and it claims another.
				 * The tail is left alone: raising it past h
				 * would leave positions below h that no
				 * producer holds, whose consumers would then
				 * wait for nobody. */
				if (conq__cas_strong_acq_rel(&c->seq, &s,
							     next))
					return NULL;
				continue;
			}
			if (conq__mpmc_abandoned(q, h, &slot)) {
				/* [Q10] acq_rel, as above; its producer has
				 * given h up, so the CAS cannot fail. */
				if (conq__cas_strong_acq_rel(&c->seq, &s,
							     next)) {
					conq__mpmc_unhole(q, slot);
					return NULL;
				}
				continue;
			}
		}
		/* FREE: a producer holds h and has not taken the cell. RES:
		 * it is writing. Earlier lap: its consumer has claimed it
		 * (positions are claimed in order) and not yet released the
		 * cell. Each time, a thread inside an operation. */
		conq__mpmc_backoff(&k);
		/* [Q8] acquire, as above. */
		s = conq__load_acquire(&c->seq);
	}
}

/* A claim decided by its cell, with no read of the other side's counter,
 * leaves that side's hint (headc, tailc) where it was. In a narrow index
 * test build (CONQ_INDEX_BITS) a hint left behind for half a range would
 * read as ahead of the counter: room or elements to spare that are not
 * there, and FAAs past a full queue until the abandoned-position table
 * fills and the offer waits for a consumer that may never come. So there
 * the cell's evidence raises the hint to the bound it proves: FREE(t)
 * proves head > t - n, RES(h) or FULL(h) proves tail > h; the hint stays a
 * lower bound of its counter, within a lap of it. 64-bit builds: nothing
 * (the trail cannot reach 2^63). */
static inline void conq__mpmc_hint_at_least(conq__idx_t *hint, conq__idx_t v)
{
#if CONQ_INDEX_BITS < 64
	/* relaxed: a hint, as in the claims below. */
	if (conq__idx_diff(v, conq__load_relaxed(hint)) > 0)
		conq__store_relaxed(hint, v);
#else
	(void)hint;
	(void)v;
#endif
}

/* P: claim up to k positions (none if fewer than `need` >= 1 are free, i.e.
 * full); the first in *first. FAA if the hint shows room to spare. */
static inline uint64_t conq__mpmc_claim_put(conq_mpmc_array *q, uint64_t k,
					    uint64_t need, conq__idx_t *first)
{
	/* [Q1] seq_cst: pairs with [Q11] (the consumers' reads of the tail).
	 */
	conq__idx_t t = conq__load_seq_cst(&q->tail);
	/* relaxed: a hint that decides FAA or CAS only; every value it held
	 * was the head once, and the head never decreases, so it errs low. */
	if ((int64_t)conq__idx_diff(
		(conq__idx_t)(conq__load_relaxed(&q->headc) + q->cap), t) >=
	    (int64_t)(k + CONQ__MPMC_FAA_SLACK)) {
		/* [Q1] seq_cst, as above. */
		*first = conq__faa_seq_cst(&q->tail, (conq__idx_t)k);
		return k;
	}
	if (k == 1) {
		/* One position, near the edge: the cell of t decides when it
		 * can, so that a producer at a nearly full queue reads the
		 * head, the line consumers move per element, only when the
		 * cell cannot tell. FREE(t) is room: t - n's consumer freed
		 * the cell ([Q9]), so head > t - n. An earlier lap is full,
		 * or that consumer is still releasing it: watched for a few
		 * pauses, then the head decides, as below. */
		conq__mpmc_cell *c = conq__mpmc_cell_at(q, t);
		const uint64_t lap = conq__mpmc_lap(q, t);
		for (unsigned i = 0;; i++) {
			/* [Q20] acquire: pairs with [Q9] (the release of the
			 * cell by t - n's consumer). */
			int64_t d =
			    conq__mpmc_state(conq__load_acquire(&c->seq), lap);
			if (d == CONQ__MPMC_FREE) {
				/* [Q1] seq_cst, as above. A lost race goes to
				 * the head, which also refreshes the hint. */
				if (conq__cas_strong_seq_cst(
					&q->tail, &t, conq__idx_add(t, 1))) {
					conq__mpmc_hint_at_least(
					    &q->headc,
					    conq__idx_sub(conq__idx_add(t, 1),
							  q->cap));
					*first = t;
					return 1;
				}
				break;
			}
			if (d > 0 || i == CONQ__MPMC_CHASE)
				break; /* t is stale, or undecided */
			conq__cpu_relax();
		}
	}
	for (;;) {
		/* [Q6] seq_cst: pairs with [Q7]. */
		conq__idx_t h = conq__load_seq_cst(&q->head);
		/* relaxed: the hint, as above; written only when it changes,
		 * so that producers failing on a full queue do not keep
		 * writing their shared line. */
		if (conq__load_relaxed(&q->headc) != h)
			conq__store_relaxed(&q->headc, h);
		conq__sidx_t room = conq__idx_diff(conq__idx_add(h, q->cap), t);
		if ((int64_t)room < (int64_t)need)
			return 0;
		uint64_t m = (uint64_t)room < k ? (uint64_t)room : k;
		/* [Q1] seq_cst, as above. */
		if (conq__cas_strong_seq_cst(&q->tail, &t,
					     conq__idx_add(t, m))) {
			*first = t;
			return m;
		}
	}
}

/* C: claim up to k positions (none if the queue looks empty); the first in
 * *first. FAA if the hint shows elements to spare. */
static inline uint64_t conq__mpmc_claim_take(conq_mpmc_array *q, uint64_t k,
					     conq__idx_t *first)
{
	/* [Q7] seq_cst: pairs with [Q6] (the producers' reads of the head). */
	conq__idx_t h = conq__load_seq_cst(&q->head);
	/* relaxed: a hint, as in claim_put, for the tail. */
	if (conq__idx_diff(conq__load_relaxed(&q->tailc), h) >=
	    (int64_t)(k + CONQ__MPMC_FAA_SLACK)) {
		/* [Q7] seq_cst, as above. */
		*first = conq__faa_seq_cst(&q->head, (conq__idx_t)k);
		return k;
	}
	if (k == 1) {
		/* One position, near the edge: the cell of h decides when it
		 * can, so that a consumer at a nearly empty queue reads the
		 * tail, the line producers move per element, only when the
		 * cell cannot tell. RES(h) or FULL(h): a producer has taken
		 * the cell of h ([Q3], [Q5]) after claiming h, so tail > h.
		 * FREE(h): empty, or h's producer has claimed it and not yet
		 * taken the cell: watched for a few pauses, then the tail
		 * decides, as below. */
		conq__mpmc_cell *c = conq__mpmc_cell_at(q, h);
		const uint64_t lap = conq__mpmc_lap(q, h);
		for (unsigned i = 0;; i++) {
			/* [Q21] acquire: pairs with [Q3] and [Q5] (h's
			 * producer taking and filling the cell). */
			int64_t d =
			    conq__mpmc_state(conq__load_acquire(&c->seq), lap);
			if (d == CONQ__MPMC_RES || d == CONQ__MPMC_FULL) {
				/* [Q7] seq_cst, as above. A lost race goes to
				 * the tail, which also refreshes the hint. */
				if (conq__cas_strong_seq_cst(
					&q->head, &h, conq__idx_add(h, 1))) {
					conq__mpmc_hint_at_least(
					    &q->tailc, conq__idx_add(h, 1));
					*first = h;
					return 1;
				}
				break;
			}
			if (d != CONQ__MPMC_FREE || i == CONQ__MPMC_CHASE)
				break; /* h is stale, or undecided */
			conq__cpu_relax();
		}
	}
	for (;;) {
		/* [Q11] seq_cst: pairs with [Q1]. */
		conq__idx_t t = conq__load_seq_cst(&q->tail);
		/* relaxed: the hint; written only when it changes. */
		if (conq__load_relaxed(&q->tailc) != t)
			conq__store_relaxed(&q->tailc, t);
		conq__sidx_t avail = conq__idx_diff(t, h);
		if (avail <= 0)
			return 0;
		uint64_t m = (uint64_t)avail < k ? (uint64_t)avail : k;
		/* [Q7] seq_cst, as above. */
		if (conq__cas_strong_seq_cst(&q->head, &h,
					     conq__idx_add(h, m))) {
			*first = h;
			return m;
		}
	}
}

/* Offer `e`. True if enqueued; false if the queue is full (see the header
 * comment for what counts), or if e is NULL (then errno = EINVAL; a full
 * queue leaves errno alone). A. Waits only for a poll that has claimed the
 * cell's previous lap and not released it. Release. */
static inline bool conq_mpmc_array_offer(conq_mpmc_array *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	for (;;) {
		conq__idx_t t;
		if (conq__mpmc_claim_put(q, 1, 1, &t) == 0)
			return false;
		if (CONQ__LIKELY(conq__mpmc_reserve(q, t))) {
			conq__mpmc_publish(q, t, e);
			return true;
		}
	}
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
	conq__mpmc_cell *c = conq__mpmc_cell_at(q, t);
	const uint64_t lap = conq__mpmc_lap(q, t);
	/* [Q2] acquire: as in reserve. */
	uint64_t s = conq__load_acquire(&c->seq);
	if (conq__mpmc_state(s, lap) != CONQ__MPMC_FREE ||
	    /* [Q1] seq_cst: as in claim_put. */
	    !conq__cas_strong_seq_cst(&q->tail, &t, conq__idx_add(t, 1)))
		return false;
	conq__mpmc_hint_at_least(&q->headc,
				 conq__idx_sub(conq__idx_add(t, 1), q->cap));
	/* [Q3] acq_rel: as in reserve; fails only if a poll past the tail
	 * closed t, which is then lost. */
	if (!conq__cas_strong_acq_rel(&c->seq, &s, lap | CONQ__MPMC_RES))
		return false;
	conq__mpmc_publish(q, t, e);
	return true;
}

/* Poll: the oldest element, or NULL iff the queue was empty at some moment
 * of the call. A. Waits for a producer between its claim and its publish,
 * and for a poll releasing the cell's previous lap. Acquire. */
static inline void *conq_mpmc_array_poll(conq_mpmc_array *q)
{
	for (;;) {
		conq__idx_t h;
		if (conq__mpmc_claim_take(q, 1, &h) == 0)
			return NULL;
		void *e = conq__mpmc_take(q, h);
		if (CONQ__LIKELY(e != NULL))
			return e;
	}
}

/* Poll only an element that is there now, with one CAS: may return NULL
 * although the queue is not empty. A. Lock-free, never waits. Acquire. */
static inline void *conq_mpmc_array_relaxed_poll(conq_mpmc_array *q)
{
	/* [Q7] seq_cst: as in claim_take. */
	conq__idx_t h = conq__load_seq_cst(&q->head);
	conq__mpmc_cell *c = conq__mpmc_cell_at(q, h);
	const uint64_t lap = conq__mpmc_lap(q, h);
	/* [Q8] acquire: as in take. */
	uint64_t s = conq__load_acquire(&c->seq);
	if (conq__mpmc_state(s, lap) != CONQ__MPMC_FULL ||
	    /* [Q7] seq_cst: as in claim_take. */
	    !conq__cas_strong_seq_cst(&q->head, &h, conq__idx_add(h, 1)))
		return NULL;
	conq__mpmc_hint_at_least(&q->tailc, conq__idx_add(h, 1));
	/* relaxed: as in take. */
	void *e = conq__load_relaxed(&c->u.e);
	/* [Q9] release: as in take. */
	conq__store_release(&c->seq, CONQ__MPMC_SEQ(lap + (q->cap << 2)));
	return e; /* NULL for a tombstone: a spurious failure */
}

/* is_empty, relaxed_peek: the oldest element present, scanning at most
 * `limit` positions from the head; NULL if none. Writes nothing. `strict`:
 * wait for RES cells (their element is in the queue) and rescan when a
 * consumer moves; else give up. A position whose producer has not taken its
 * cell (FREE) holds no element yet and is looked past: right for "is there an
 * element", not for "which is the oldest" (peek). */
static inline void *conq__mpmc_look(const conq_mpmc_array *q, uint64_t limit,
				    bool strict)
{
	for (;;) {
		/* [Q12] seq_cst (head, then tail): pairs with [Q7] and [Q1];
		 * head first: the tail read at or below it means empty. */
		conq__idx_t h = conq__load_seq_cst(&q->head);
		conq__sidx_t avail =
		    conq__idx_diff(conq__load_seq_cst(&q->tail), h);
		if (avail <= 0)
			return NULL;
		uint64_t lim =
		    (uint64_t)avail < limit ? (uint64_t)avail : limit;
		if (lim > q->cap)
			lim = q->cap;
		bool moved = false;
		for (uint64_t u = 0; u < lim && !moved; u++) {
			conq__idx_t p = conq__idx_add(h, u);
			conq__mpmc_cell *c = conq__mpmc_cell_at(q, p);
			const uint64_t lap = conq__mpmc_lap(q, p);
			unsigned k = 0;
			/* [Q12] acquire: pairs with [Q5] and [Q9]. */
			uint64_t s = conq__load_acquire(&c->seq);
			int64_t d = conq__mpmc_state(s, lap);
			while (strict && d == CONQ__MPMC_RES) {
				conq__mpmc_backoff(&k);
				/* [Q12] acquire, as above. */
				s = conq__load_acquire(&c->seq);
				d = conq__mpmc_state(s, lap);
			}
			if (d == CONQ__MPMC_FULL) {
				/* [Q12] acquire: pairs with [Q4]. If it reads
				 * a later lap's element, this lap's release
				 * happened before, and the re-read sees it. */
				void *e = conq__load_acquire(&c->u.e);
				/* [Q12] acquire: unchanged, e was this
				 * position's element when read. */
				if (conq__load_acquire(&c->seq) != s)
					moved = true;
				else if (e != NULL)
					return e;
				/* else a tombstone: look further */
			} else if (d > CONQ__MPMC_FULL) {
				/* Taken or closed by its consumer, who
				 * claimed p: the head moved.
				 * [Q12] seq_cst: as above. */
				if (!strict ||
				    conq__load_seq_cst(&q->head) != h)
					moved = true;
			} else if (d == CONQ__MPMC_RES) {
				moved = true; /* !strict: not ready */
			}
			/* FREE, or an earlier lap: no element here yet. */
		}
		/* [Q12] seq_cst: as above. */
		if (!strict || (!moved && conq__load_seq_cst(&q->head) == h))
			return NULL;
	}
}

/* peek at position p (h: the head when the scan began, p in [h, h + n) and
 * below the tail then): 1 with *out the element; 0 if p holds none and
 * never will (a tombstone, or an abandoned position); -1 if a consumer has
 * moved (rescan); -2 if no producer holds p any more (the tail is at or
 * below it: no element at p or above). Writes nothing. Never passes a
 * position that may still get an element: waits for a RES cell's producer,
 * for a producer that holds p and has not taken the cell (as poll does), and
 * for the previous lap's consumer. */
static inline int conq__mpmc_peek_at(const conq_mpmc_array *q, conq__idx_t p,
				     conq__idx_t h, void **out)
{
	conq__mpmc_cell *c = conq__mpmc_cell_at(q, p);
	const uint64_t lap = conq__mpmc_lap(q, p);
	unsigned k = 0;
	/* [Q12] acquire: pairs with [Q5] and [Q9]. */
	uint64_t s = conq__load_acquire(&c->seq);
	for (;;) {
		int64_t d = conq__mpmc_state(s, lap);
		if (d == CONQ__MPMC_FULL) {
			/* [Q12] acquire: pairs with [Q4]. If it reads a later
			 * lap's element, this lap's release happened before,
			 * and the re-read sees it. */
			void *e = conq__load_acquire(&c->u.e);
			/* [Q12] acquire: unchanged, e was this position's
			 * element when read. Changed: its consumer took it. */
			if (conq__load_acquire(&c->seq) != s)
				return -1;
			if (e == NULL)
				return 0; /* a tombstone */
			*out = e;
			return 1;
		}
		if (d > CONQ__MPMC_FULL) {
			/* Taken or closed by its consumer, who claimed p: the
			 * head moved past h. [Q12] seq_cst: pairs with [Q7]. */
			return conq__load_seq_cst(&q->head) == h ? 0 : -1;
		}
		if (d == CONQ__MPMC_FREE && (k == 0 || k >= CONQ__MPMC_SPIN)) {
			unsigned slot = 0;
			/* [Q12] seq_cst: pairs with [Q1]. */
			if (conq__idx_diff(conq__load_seq_cst(&q->tail), p) <= 0)
				return -2;
			if (conq__mpmc_abandoned(q, p, &slot))
				return 0;
		}
		/* FREE: a producer holds p and has not taken the cell. RES:
		 * it is writing. Earlier lap (p - n is below h): its consumer
		 * has claimed it and not yet released the cell. Either way, a
		 * thread inside an operation; never the caller, which is in
		 * no other operation on this queue. */
		conq__mpmc_backoff(&k);
		/* [Q12] acquire, as above. */
		s = conq__load_acquire(&c->seq);
	}
}

/* The oldest element without removing it, or NULL if the queue held none
 * when it looked. With one consumer (no other poll or peek running), the
 * element is the one the caller's next poll returns: peek never looks past
 * a position that may still receive an element; it waits where that poll
 * would wait, and passes only tombstones and abandoned positions, which that
 * poll skips. It writes nothing, so every element lies within a capacity of
 * the head, and a scan of capacity() positions sees them all. With several
 * consumers, best effort: another consumer may take the element right
 * after, or take or close a position while peek looks (peek then rescans).
 * A. Waits as poll. Acquire. */
static inline void *conq_mpmc_array_peek(conq_mpmc_array *q)
{
	for (;;) {
		/* [Q12] seq_cst (head, then tail): pairs with [Q7] and [Q1];
		 * head first: the tail read at or below it means empty. */
		conq__idx_t h = conq__load_seq_cst(&q->head);
		conq__sidx_t avail =
		    conq__idx_diff(conq__load_seq_cst(&q->tail), h);
		if (avail <= 0)
			return NULL;
		uint64_t lim =
		    (uint64_t)avail < q->cap ? (uint64_t)avail : q->cap;
		int r = 0;
		for (uint64_t u = 0; u < lim && r == 0; u++) {
			void *e;
			r = conq__mpmc_peek_at(q, conq__idx_add(h, u), h, &e);
			if (r > 0)
				return e;
		}
		/* [Q12] seq_cst: as above. */
		if (r != -1 && conq__load_seq_cst(&q->head) == h)
			return NULL;
	}
}

/* Peek at the head position only, once: NULL also when its element is not
 * ready (RES, or a producer that has not taken the cell), when it holds a
 * tombstone, or when a consumer moves. A. Lock-free, never waits. Acquire. */
static inline void *conq_mpmc_array_relaxed_peek(conq_mpmc_array *q)
{
	return conq__mpmc_look(q, 1, false);
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
	/* [Q13] seq_cst (all three): pair with [Q1], [Q7] and [Q11]. */
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

/* True if the queue held no element when it looked. Unlike peek, it looks
 * past a position whose producer has not taken its cell (no element there
 * yet) instead of waiting for it; like peek, it writes nothing. From the
 * only consumer, false means the next poll returns an element. A. Waits only
 * for a producer between its two stores. */
static inline bool conq_mpmc_array_is_empty(const conq_mpmc_array *q)
{
	return conq__mpmc_look(q, UINT64_MAX, true) == NULL;
}

/* Offer all n elements or none: returns n, or 0 if fewer than n slots are
 * free, or n is 0 or above capacity(). A NULL among them: 0 with errno =
 * EINVAL, none enqueued. The n positions are claimed with one FAA or CAS;
 * their cells are all taken before any element is published, and if one is
 * lost the others get tombstones. A. Waits as offer. Release. */
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
	size_t first_lost = n;
	for (size_t i = 0; i < n; i++) {
		if (!conq__mpmc_reserve(q, conq__idx_add(t, i))) {
			if (first_lost == n)
				first_lost = i;
		} else if (first_lost < n) {
			conq__mpmc_publish(q, conq__idx_add(t, i), NULL);
		}
	}
	for (size_t i = 0; i < first_lost; i++)
		conq__mpmc_publish(q, conq__idx_add(t, i),
				   first_lost == n ? es[i] : NULL);
	return first_lost == n ? n : 0;
}

/* Offer as many of the n elements as there are free slots for, in order;
 * returns how many. Stops before the first NULL (errno = EINVAL). One claim
 * for all of them (more only if a claimed position is lost). A. Waits as
 * offer. Release. */
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
		uint64_t m = conq__mpmc_claim_put(q, k - done, 1, &t);
		if (m == 0)
			break;
		uint64_t want = k - done;
		for (uint64_t u = 0; u < m; u++)
			if (conq__mpmc_reserve(q, conq__idx_add(t, u)))
				conq__mpmc_publish(q, conq__idx_add(t, u),
						   es[done++]);
		if (m < want)
			break; /* no more room */
	}
	return done;
}

/* Poll up to n elements into out[], oldest first; returns how many (0 iff
 * the queue was empty, or n is 0). One claim for all of them (more only if
 * claimed positions held nothing). A. Waits as poll. Acquire. */
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

/* P: give back positions [from, to), claimed by this thread, `from` RES and
 * the others untouched: hand them back to the tail if no producer claimed
 * after them, else fill them with tombstones. */
static inline void conq__mpmc_unclaim(conq_mpmc_array *q, conq__idx_t from,
				      conq__idx_t to)
{
	/* [Q14] release: pairs with [Q2]: undo our RES; nobody else can take
	 * the cell meanwhile (only its position's producer may, and that is
	 * us), though its consumer may close it. */
	conq__store_release(&conq__mpmc_cell_at(q, from)->seq,
			    conq__mpmc_lap(q, from) | CONQ__MPMC_FREE);
	conq__idx_t t = to;
	/* [Q1] seq_cst: as in claim_put. Consumers that claimed some of the
	 * positions meanwhile find them FREE with the tail below them, and
	 * close them. */
	if (conq__cas_strong_seq_cst(&q->tail, &t, from))
		return;
	for (conq__idx_t p = from; p != to; p++)
		if (conq__mpmc_reserve(q, p))
			conq__mpmc_publish(q, p, NULL);
}

/* Enqueue up to `limit` elements from fn(ctx), asking fn only for a cell
 * already taken; stops early when the queue is full or fn returns NULL (the
 * positions claimed for nothing are handed back). Claims CONQ__MPMC_CHUNK
 * positions at a time. Returns how many. A; fn must not use this queue (a
 * poll might wait for the cell fn is filling). Waits as offer. Release. */
static inline size_t conq_mpmc_array_fill(conq_mpmc_array *q, conq_supply_fn fn,
					  void *ctx, size_t limit)
{
	size_t done = 0;
	while (done < limit) {
		uint64_t want = limit - done < CONQ__MPMC_CHUNK
				    ? limit - done
				    : CONQ__MPMC_CHUNK;
		conq__idx_t t;
		uint64_t m = conq__mpmc_claim_put(q, want, 1, &t);
		if (m == 0)
			break;
		for (uint64_t u = 0; u < m; u++) {
			if (!conq__mpmc_reserve(q, conq__idx_add(t, u)))
				continue;
			void *e = fn(ctx);
			if (e == NULL) {
				conq__mpmc_unclaim(q, conq__idx_add(t, u),
						   conq__idx_add(t, m));
				return done;
			}
			conq__mpmc_publish(q, conq__idx_add(t, u), e);
			done++;
		}
		if (m < want)
			break;
	}
	return done;
}

#ifdef __cplusplus
}
#endif

#endif /* CONQ_MPMC_ARRAY_H */
