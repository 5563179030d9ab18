/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/spsc_growable.h - bounded single-producer single-consumer queue that
 * grows its chunk.
 *
 * One of the SPSC linked-array families (with conq_spsc_chunked,
 * conq_spsc_growable, conq_spsc_unbounded; the shared core is
 * conq/impl/spsc_la.h, the proof docs/memory-model.md, "SPSC linked
 * arrays"). Elements live in chunks: rings of `void *` slots used as
 * conq_spsc_array's ring is (NULL = free; the consumer clears consumed slots
 * lazily, B at a time; the producer caches a limit and looks at slots before
 * it reads the consumer index). When the producer's chunk is full it links a
 * new chunk (the spare, or a fresh one), writes a private JUMP marker into
 * the free slot it kept in reserve, and goes on at slot 0 of the new chunk;
 * the consumer that reads JUMP follows the link and retires the old chunk.
 * The API, names and NULL/errno rules are conq_spsc_array's.
 *
 * Who may call what, concurrently (P = the one producer thread, C = the one
 * consumer thread, A = any thread; handing a role to another thread needs a
 * happens-before edge between the old and the new holder):
 *
 *   function                                       caller  progress
 *   offer, relaxed_offer, offer_bulk, offer_burst, fill   P       wait-free,
 *                                                         except a call that
 *                                                         allocates (blocking)
 *   poll, relaxed_poll, peek, relaxed_peek,
 *   poll_burst, drain                                     C       wait-free,
 *                                                         except a call that
 *                                                         frees (blocking)
 *   put, put_until                                        P       blocking
 *   take, take_until                                      C       blocking
 *   size, is_empty, capacity                              A       lock-free (size
 *                                                                 retries while C moves)
 *   create, create_with                                   A       (blocking: allocates)
 *   destroy                                               A, once no P or C runs
 *
 * Allocation and freeing (through the allocator given to create_with):
 *   offer, relaxed_offer, offer_bulk, offer_burst, fill may allocate (when the
 *   producer outgrows a chunk, at most log2(capacity / initial) times in
 *   the queue's life); poll, relaxed_poll, peek, relaxed_peek, poll_burst,
 *   drain may free (an outgrown chunk, once).
 *   destroy frees every chunk and the queue. Allocation failure: the call
 *   returns false / 0 / a partial count with errno = ENOMEM, the elements not
 *   enqueued stay with the caller, and the queue stays usable.
 *
 * Bounded memory: chunks double until the final one (capacity + B slots);
 * outgrown chunks are freed by the consumer once it has read past them, so
 * a queue that once filled ends in its final chunk alone (no spare), like a
 * conq_spsc_array of the same capacity. capacity() is exact at every moment
 * (before the final chunk through a cached cidx + capacity, read again only
 * when reached; in the final chunk as conq_spsc_array), unlike JCTools'
 * SpscGrowableArrayQueue, which can briefly exceed it.
 *
 * Memory safety (no thread touches a chunk after it is freed or reused):
 *  - P's last access to a chunk it leaves is the JUMP store; after it P only
 *    touches the new chunk (its fields pchunk, pslots, ppos name the new one
 *    before it returns). A P descheduled anywhere holds no pointer into an
 *    old chunk it may use again.
 *  - C frees or recycles a chunk only after reading its JUMP, with acquire:
 *    every element of the chunk lies before the JUMP in index order, so all
 *    were consumed, and P's accesses to it happen-before C's free. C reads
 *    `next` before it retires the chunk, and from then on uses only the new
 *    chunk's pointers.
 *  - A recycled (spare) chunk is zeroed by C before C publishes it with a
 *    release store; P takes it with an acquire exchange, so C's last
 *    accesses happen-before P's first ones, and P owns it alone until it
 *    links it. C never keeps a pointer to the spare.
 *  - size, is_empty and capacity read the indices and constants only, never
 *    a chunk: they are safe from any thread at any time.
 *
 * Ordering: everything P wrote before a successful offer of `e` happens-
 * before everything C does after the poll that returns `e`. In SPSC the
 * relaxed variants are the strict ones. Each operation is documented in
 * conq_spsc_array.h; the differences: offer, offer_burst and fill may also
 * fail with ENOMEM, offer_bulk is all or nothing under ENOMEM too, and peek
 * may move C into the next chunk (it follows a JUMP, freeing as poll does).
 */
#ifndef CONQ_SPSC_GROWABLE_H
#define CONQ_SPSC_GROWABLE_H

#include <errno.h>

#include "conq/common.h"
#include "conq/impl/blocking.h"
#include "conq/impl/spsc_la.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_spsc_growable conq_spsc_growable;

/* The queue: the shared core (conq/impl/spsc_la.h), as its own type. */
struct conq_spsc_growable {
	conq__spsc_la la;
};

/* A queue of capacity() = max_capacity rounded up to a power of two (1 up to
 * CONQ_ARRAY_MAX_CAPACITY) whose first chunk has `initial` slots (rounded up
 * to a power of two, at least 2, clamped to the capacity); each chunk linked
 * after it is twice the size of the one before, until the chunk reaches the
 * capacity: that final chunk (capacity + min(32, capacity) slots) is kept
 * for good and never links again. NULL with errno = EINVAL (initial 0 or
 * above CONQ_ARRAY_MAX_CAPACITY, max_capacity 0 or above it) or ENOMEM. `a`:
 * where every chunk comes from (NULL: malloc), copied. A. Allocates. */
conq_spsc_growable *conq_spsc_growable_create_with(size_t initial,
						   size_t max_capacity,
						   const conq_allocator *a);

/* create_with(..., NULL). */
conq_spsc_growable *conq_spsc_growable_create(size_t initial,
					      size_t max_capacity);

/* Free every chunk and the queue. Elements still inside are not touched.
 * NULL is a no-op. Only once no thread uses the queue. */
void conq_spsc_growable_destroy(conq_spsc_growable *q);

/* offer, relaxed_offer (P): true if enqueued; false if full (bounded: iff
 * capacity() elements are queued), or errno = ENOMEM (no chunk), or e NULL
 * (errno = EINVAL). poll, relaxed_poll (C): the oldest element, or NULL iff
 * empty. peek, relaxed_peek (C): the same without removing it. capacity,
 * size, is_empty (A). offer_bulk (P): n or 0 (room, NULL: EINVAL, ENOMEM),
 * offer_burst (P): how many fit, in order. poll_burst, drain (C); fill (P).
 * Semantics as conq_spsc_array's functions of the same names. */
CONQ__SPSC_LA_FORWARD(spsc_growable)

/* put, put_until (P): offer, waiting while the queue holds capacity()
 * elements; false with errno = EINVAL (e NULL), ENOMEM (no chunk: never
 * waits for memory) or ETIMEDOUT. take, take_until (C): poll, waiting while
 * empty; NULL only with errno = ETIMEDOUT. conq/impl/blocking.h. */
CONQ__DEFINE_PUT(spsc_growable, la.nonfull)
CONQ__DEFINE_TAKE(spsc_growable, la.nonempty)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_SPSC_GROWABLE_H */
