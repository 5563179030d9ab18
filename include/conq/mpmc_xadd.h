/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/mpmc_xadd.h - unbounded multi-producer multi-consumer queue whose
 * producers claim with fetch-and-add.
 *
 * JCTools' MpmcUnboundedXaddArrayQueue: producers as conq_mpsc_xadd's (one
 * fetch-and-add, then the slot of that index in a chain of chunks);
 * consumers claim the next index with one CAS of the tail, only below a
 * head they saw (so a poll of an empty queue claims nothing and fails),
 * then wait for that slot to be written and mark it consumed.
 *
 * Sizes, capacity and memory as conq_mpsc_xadd (chunk rounded up to a power
 * of two, at least 2; a pool of a spare and a reserve). A chunk is released
 * (to the pool, or freed) once the consumers' chunk has moved past it and
 * every slot of it is consumed, by one consumer at a time (a try-lock, off
 * the fast path: when the consumers move to a new chunk, and when a poll
 * finds the queue empty); chunks are released in order, and a peek holds
 * releases off while it reads, so no thread ever reads a chunk that was
 * released or reused: a peek never returns an element of a recycled
 * chunk's future (JCTools #310).
 *
 * Who may call what, concurrently (P = any number of producer threads, C =
 * any number of consumer threads, A = any thread):
 *
 *   function              caller  progress; memory
 *   offer, relaxed_offer, P       as conq_mpsc_xadd's: a wait-free claim,
 *   offer_bulk,                   then blocking only while a chunk is being
 *   offer_burst, fill             appended; may ALLOCATE
 *   poll, relaxed_poll,   C       lock-free claim (the CAS retries only when
 *   poll_burst, drain             another consumer claimed); then blocking
 *                                 on a bubble: the claimed index's producer
 *                                 has not stored yet, or the consumers'
 *                                 chunk is being advanced. The relaxed
 *                                 forms are the strict ones: a claim is
 *                                 made before the slot is read, so it
 *                                 cannot be given back. may FREE a chunk
 *   peek                  C       the element at the tail, or NULL when
 *                                 empty; waits on a bubble; a count that
 *                                 holds releases off (one RMW in, one out)
 *   relaxed_peek          C       as peek, NULL at a bubble
 *   put, put_until        P       offer (never full; the deadline is unused)
 *   take, take_until      C       blocking while empty (parks on nonempty)
 *   size, is_empty,       A       wait-free: read the indices only
 *   capacity
 *   create, create_with   A       ALLOCATE (queue, first chunk, reserve)
 *   destroy               A, once no P or C runs; FREES every chunk
 *
 * Offering NULL, allocation failure: as conq_mpsc_xadd. Ordering: FIFO in
 * claim order (consumers claim in index order; elements may be returned
 * by concurrent consumers in either order); release on offer, acquire on
 * poll. With several consumers, peek's element may be polled by another
 * consumer before this one polls.
 * (include/conq/impl/xadd.h; docs/memory-model.md, labels [X1]...)
 */
#ifndef CONQ_MPMC_XADD_H
#define CONQ_MPMC_XADD_H

#include "conq/impl/blocking.h"
#include "conq/impl/xadd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_mpmc_xadd conq_mpmc_xadd;

/* An unbounded queue in chunks of `chunk` slots (rounded up to a power of
 * two, at least 2). NULL + EINVAL (bad size) or ENOMEM. a: where chunks come
 * from (NULL: malloc); copied. A. Allocates. */
conq_mpmc_xadd *conq_mpmc_xadd_create_with(size_t chunk,
					   const conq_allocator *a);
conq_mpmc_xadd *conq_mpmc_xadd_create(size_t chunk);

/* The common API, inline on the shared core: see the table above.
 * destroy(NULL) is a no-op; elements are not touched. */
CONQ__XADD_FAMILY(mpmc_xadd, 1)

/* put, put_until (offer: never waits), take, take_until. */
CONQ__DEFINE_PUT_UNBOUNDED(mpmc_xadd)
CONQ__DEFINE_TAKE(mpmc_xadd, q.nonempty)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_MPMC_XADD_H */
