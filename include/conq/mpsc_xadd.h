/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/mpsc_xadd.h - unbounded multi-producer single-consumer queue whose
 * producers claim with fetch-and-add.
 *
 * JCTools' MpscUnboundedXaddArrayQueue: a producer takes its index with one
 * fetch-and-add (never a CAS that can fail and retry, so producers do not
 * slow each other down with retries under contention), then stores into
 * the slot of that index in a chain of chunks of `chunk` slots, appended as
 * indices reach them. Offer fails only when memory runs out.
 *
 * Sizes: chunk is rounded up to a power of two, at least 2 (a chunk of one
 * slot, on which JCTools' pooled chunks hung (#281), cannot exist); 0 or
 * above CONQ_ARRAY_MAX_CAPACITY: NULL + EINVAL. capacity() is
 * CONQ_UNBOUNDED. (Narrow index test builds, CONQ_INDEX_BITS: at most
 * 2^(CONQ_INDEX_BITS - 3) elements; offer is false beyond, errno untouched.)
 *
 * Memory: the queue holds its current chunk and a pool of at most two more
 * (a spare and a reserve); a chunk the consumer leaves goes to the pool, or
 * is freed when the pool is full, at once: no thread can reach it any more
 * (conq/impl/xadd.h: why no epochs or hazard pointers are needed). So a
 * drained queue's memory is an idle one's plus at most one chunk. create
 * allocates the queue, its first chunk and the reserve.
 *
 * Who may call what, concurrently (P = any number of producer threads, C =
 * the one consumer thread, A = any thread; a hand-over of C needs a
 * happens-before edge):
 *
 *   function              caller  progress; memory
 *   offer, relaxed_offer, P       wait-free claim (one fetch-and-add), then
 *   offer_bulk,                   the slot's chunk: found with two loads
 *   offer_burst, fill             while it is the newest; else it waits
 *                                 while another producer appends one, or
 *                                 appends it itself (may ALLOCATE); blocking
 *                                 only while a chunk is being appended
 *   poll, peek            C       blocking on a bubble (a claimed, unwritten
 *                                 slot, or a chunk not yet appended), as
 *                                 conq_mpsc_array's; may FREE a chunk
 *   relaxed_poll,         C       never wait on a bubble (NULL before it);
 *   relaxed_peek,                 may FREE a chunk
 *   poll_burst, drain
 *   put, put_until        P       offer (never full; the deadline is unused)
 *   take, take_until      C       blocking while empty (parks on nonempty)
 *   size, is_empty,       A       wait-free: read the indices only
 *   capacity
 *   create, create_with   A       ALLOCATE (queue, first chunk, reserve)
 *   destroy               A, once no P or C runs; FREES every chunk
 *
 * Offering NULL: false (0) and errno = EINVAL. Allocation failure: an
 * appender that cannot allocate uses the reserve chunk and marks the queue
 * low on memory; while marked, offer, offer_bulk, offer_burst and fill
 * first try to allocate a new reserve and fail (false, 0, stop short) with
 * errno = ENOMEM when they cannot, having claimed nothing: the elements stay
 * with the caller. (Producers that had claimed just before the mark and
 * need more than the reserve wait for memory: a claimed index is always
 * written, never lost.) Semantics otherwise as conq_mpsc_array: FIFO in
 * claim order; release on offer, acquire on poll; offer_bulk's elements
 * contiguous, all or nothing; drain and poll_burst never wait.
 * (include/conq/impl/xadd.h; docs/memory-model.md, labels [X1]...)
 */
#ifndef CONQ_MPSC_XADD_H
#define CONQ_MPSC_XADD_H

#include "conq/impl/blocking.h"
#include "conq/impl/xadd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_mpsc_xadd conq_mpsc_xadd;

/* An unbounded queue in chunks of `chunk` slots (rounded up to a power of
 * two, at least 2). NULL + EINVAL (bad size) or ENOMEM. a: where chunks come
 * from (NULL: malloc); copied. A. Allocates. */
conq_mpsc_xadd *conq_mpsc_xadd_create_with(size_t chunk,
					   const conq_allocator *a);
conq_mpsc_xadd *conq_mpsc_xadd_create(size_t chunk);

/* The common API, inline on the shared core: see the table above.
 * destroy(NULL) is a no-op; elements are not touched. */
CONQ__XADD_FAMILY(mpsc_xadd, 0)

/* put, put_until (offer: never waits), take, take_until. */
CONQ__DEFINE_PUT_UNBOUNDED(mpsc_xadd)
CONQ__DEFINE_TAKE(mpsc_xadd, q.nonempty)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_MPSC_XADD_H */
