/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/mpsc_chunked.h - bounded multi-producer single-consumer queue of linked chunks.
 *
 * JCTools' MpscChunkedArrayQueue: a queue of up to max_capacity elements held
 * in rings ("chunks") of `chunk` slots, linked as they fill up. A chunk of C
 * slots holds C - 1 elements (one slot is kept for the JUMP marker that
 * sends the consumer to the next chunk); while the consumer keeps up, the
 * producers go round one chunk as a ring, with conq_mpsc_array's fast path
 * (one CAS against a cached limit). Memory grows with the contents and
 * shrinks back.
 *
 * Sizes: chunk and max_capacity are rounded up to powers of two; 0 or
 * above CONQ_ARRAY_MAX_CAPACITY: NULL + EINVAL. A chunk larger than the
 * capacity is cut to it, and a chunk is at least 2 slots. capacity() is the
 * rounded max_capacity: offer is false iff that many elements are claimed
 * and not consumed (exact, as conq_mpsc_array).
 *
 * Bounded memory: a drained queue keeps its current chunk and at most one
 * spare chunk (the consumer hands each chunk it leaves to the next resize
 * through one spare slot; a second one is freed). A full queue holds about
 * max_capacity / (chunk - 1) + 2 chunks.
 *
 * Who may call what, concurrently (P = any number of producer threads, C =
 * the one consumer thread, A = any thread; at most one thread acts as C at
 * a time, a hand-over needs a happens-before edge):
 *
 *   function              caller  progress; memory
 *   offer, relaxed_offer, P       lock-free, except while another producer
 *   offer_bulk,                   resizes (links a chunk): then it waits
 *   offer_burst                   (spins, then yields) for it, as JCTools'
 *                                 linked-array queues; may ALLOCATE (when
 *                                 it becomes the resizer)
 *   fill                  P       as offer; may also wait for the consumer
 *                                 (and, rarely, for memory) when producers
 *                                 race it into a nearly full chunk; may
 *                                 ALLOCATE (before it asks its supplier)
 *   poll, peek            C       blocking on a bubble (a claimed, unwritten
 *                                 slot, or a resize in progress), as
 *                                 conq_mpsc_array's; may FREE a chunk
 *   relaxed_poll,         C       never wait on a bubble (stop before it);
 *   relaxed_peek,                 may FREE a chunk
 *   poll_burst, drain
 *   put, put_until        P       blocking while full (parks on the queue's
 *                                 nonfull eventcount; the consumer wakes
 *                                 it); otherwise as offer, may ALLOCATE;
 *                                 ENOMEM fails at once (never waits for
 *                                 memory)
 *   take, take_until      C       blocking while empty (parks on nonempty;
 *                                 every publication wakes it); otherwise
 *                                 as poll, may FREE a chunk
 *   size, is_empty,       A       lock-free / wait-free: read the indices
 *   capacity                      only, never a chunk
 *   create, create_with   A       ALLOCATE (the queue, its first chunk)
 *   destroy               A, once no P or C runs; FREES every chunk
 *
 * relaxed_offer is offer (the CAS loop retries only when another producer
 * claimed). Offering NULL: false (0) and errno = EINVAL. When a chunk
 * cannot be allocated, offer is false, offer_bulk/offer_burst 0 and fill
 * stops short, with errno = ENOMEM; the elements not enqueued stay with the
 * caller and the queue stays usable. Semantics otherwise as conq_mpsc_array
 * (FIFO in claim order; release on offer, acquire on poll; offer_bulk all or
 * nothing, its elements contiguous; drain and poll_burst never wait).
 *
 * Memory safety (no thread touches a chunk after it is freed or reused,
 * under any interleaving): producers read the chunk pointer only from the
 * queue, between their acquire of pidx and their CAS, and write into the
 * chunk only after the CAS succeeded; pidx never comes back to a value it
 * had (but for a failed resize's rollback, which published nothing), so a
 * successful CAS proves no chunk was linked since the pointer was read, and
 * the claimed slot lies below the chunk's JUMP, which the consumer reaches
 * only after consuming (so after the producer wrote) that slot. A producer
 * descheduled between reading the pointer and its CAS fails its CAS and
 * never dereferences the pointer. The resizer's last access to the old
 * chunk is its JUMP store, which the consumer must read before it retires
 * the chunk. size/is_empty/capacity read indices only.
 * (include/conq/impl/mpsc_la.h; docs/memory-model.md, labels [ML1]...)
 */
#ifndef CONQ_MPSC_CHUNKED_H
#define CONQ_MPSC_CHUNKED_H

#include "conq/impl/blocking.h"
#include "conq/impl/mpsc_la.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_mpsc_chunked conq_mpsc_chunked;

/* A queue of at most max_capacity elements in chunks of `chunk` slots
 * (both rounded up to powers of two). NULL + EINVAL (bad sizes) or ENOMEM.
 * a: where chunks come from (NULL: malloc); copied. A. Allocates. */
conq_mpsc_chunked *conq_mpsc_chunked_create_with(size_t chunk,
						 size_t max_capacity,
						 const conq_allocator *a);
conq_mpsc_chunked *conq_mpsc_chunked_create(size_t chunk, size_t max_capacity);

/* The common API (offer, relaxed_offer, poll, relaxed_poll, peek,
 * relaxed_peek, size, is_empty, capacity, drain, fill, offer_bulk,
 * offer_burst, poll_burst, destroy), inline, on the shared core: see the
 * table above for callers, progress and memory. destroy(NULL) is a no-op;
 * destroy frees every chunk, elements are not touched. */
CONQ__MPSC_LA_FAMILY(mpsc_chunked, 1)

/* put, put_until, take, take_until (conq/impl/blocking.h): offer and poll
 * that wait, put while the queue holds capacity() elements, take while it
 * is empty; see the table above. put is false with errno = ENOMEM, without
 * waiting, when the queue must grow and a chunk cannot be allocated. */
CONQ__DEFINE_PUT(mpsc_chunked, q.nonfull)
CONQ__DEFINE_TAKE(mpsc_chunked, q.nonempty)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_MPSC_CHUNKED_H */
