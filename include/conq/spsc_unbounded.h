/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/spsc_unbounded.h - unbounded single-producer single-consumer queue of
 * linked chunks.
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
 *   put, put_until                                        P       as offer (never
 *                                                         waits: unbounded)
 *   take, take_until                                      C       blocking
 *   size, is_empty, capacity                              A       lock-free (size
 *                                                                 retries while C moves)
 *   create, create_with                                   A       (blocking: allocates)
 *   destroy                                               A, once no P or C runs
 *
 * Allocation and freeing (through the allocator given to create_with):
 *   offer, relaxed_offer, offer_bulk, offer_burst, fill may allocate (when the
 *   current chunk is full and no spare is there); poll, relaxed_poll, peek,
 *   relaxed_peek, poll_burst, drain may free (a chunk done cooling, when
 *   a spare is already kept).
 *   destroy frees every chunk and the queue. Allocation failure: the call
 *   returns false / 0 / a partial count with errno = ENOMEM, the elements not
 *   enqueued stay with the caller, and the queue stays usable.
 *
 * Bounded memory: the chunks holding elements, one spare chunk and the
 * cooling ones. A retired chunk first cools: the consumer keeps it (zeroed,
 * private) until chunks of about 128 KiB in all (at least one, at most 16
 * chunks) were retired after it; then it becomes the spare if the spare
 * slot is empty, else it is freed. So a drained queue keeps its current
 * chunk, one spare and at most max(128 KiB, one chunk) of cooling chunks
 * (CONQ__COLD_BYTES in impl/layout.h says why).
 *
 * Narrow index test builds (CONQ_INDEX_BITS=16 or 32, impl/layout.h): the
 * indices count the elements, so the queue is correct only while it holds
 * fewer than 2^(CONQ_INDEX_BITS - 1) of them (size() reads them as a signed
 * difference). Default builds: 2^63.
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
#ifndef CONQ_SPSC_UNBOUNDED_H
#define CONQ_SPSC_UNBOUNDED_H

#include <errno.h>

#include "conq/common.h"
#include "conq/impl/blocking.h"
#include "conq/impl/spsc_la.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_spsc_unbounded conq_spsc_unbounded;

/* The queue: the shared core (conq/impl/spsc_la.h), as its own type. */
struct conq_spsc_unbounded {
	conq__spsc_la la;
};

/* An unbounded queue (capacity() is CONQ_UNBOUNDED) in chunks of `chunk`
 * slots (rounded up to a power of two, at least 2). Offer fails only when a
 * chunk is needed and cannot be allocated (false, errno = ENOMEM; the queue
 * stays usable). NULL with errno = EINVAL (chunk 0 or above
 * CONQ_ARRAY_MAX_CAPACITY) or ENOMEM. `a`: where every chunk comes from
 * (NULL: malloc), copied. A. Allocates. */
conq_spsc_unbounded *conq_spsc_unbounded_create_with(size_t chunk,
						     const conq_allocator *a);

/* create_with(..., NULL). */
conq_spsc_unbounded *conq_spsc_unbounded_create(size_t chunk);

/* Free every chunk and the queue. Elements still inside are not touched.
 * NULL is a no-op. Only once no thread uses the queue. */
void conq_spsc_unbounded_destroy(conq_spsc_unbounded *q);

/* offer, relaxed_offer (P): true if enqueued; false if full (bounded: iff
 * capacity() elements are queued), or errno = ENOMEM (no chunk), or e NULL
 * (errno = EINVAL). poll, relaxed_poll (C): the oldest element, or NULL iff
 * empty. peek, relaxed_peek (C): the same without removing it. capacity,
 * size, is_empty (A). offer_bulk (P): n or 0 (room, NULL: EINVAL, ENOMEM),
 * offer_burst (P): how many fit, in order. poll_burst, drain (C); fill (P).
 * Semantics as conq_spsc_array's functions of the same names. */
CONQ__SPSC_LA_FORWARD(spsc_unbounded)

/* put, put_until (P): offer (never waits; false with errno = EINVAL or
 * ENOMEM). take, take_until (C): poll, waiting while empty; NULL only with
 * errno = ETIMEDOUT. conq/impl/blocking.h. */
CONQ__DEFINE_PUT_UNBOUNDED(spsc_unbounded)
CONQ__DEFINE_TAKE(spsc_unbounded, la.nonempty)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_SPSC_UNBOUNDED_H */
