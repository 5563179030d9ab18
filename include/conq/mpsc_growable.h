/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/mpsc_growable.h - bounded multi-producer single-consumer queue that grows its ring.
 *
 * JCTools' MpscGrowableArrayQueue: starts with a ring of `initial` slots and,
 * each time it fills, links a ring twice as large (or as large as a batch
 * needs), up to one of max_capacity slots, the final ring, which then never
 * changes and holds max_capacity elements. The outgrown rings are freed by
 * the consumer as it leaves them. The fast path is conq_mpsc_array's (one
 * CAS against a cached limit).
 *
 * Sizes: initial and max_capacity are rounded up to powers of two; 0 or
 * above CONQ_ARRAY_MAX_CAPACITY: NULL + EINVAL. An initial size above the
 * capacity is cut to it (the first ring is then the final one); rings other
 * than the final one have at least 2 slots. capacity() is the rounded
 * max_capacity: offer is false iff that many elements are claimed and not
 * consumed (exact).
 *
 * Bounded memory: the queue grows to its final ring and keeps it (a drained
 * queue keeps the ring it is in; no spare); while growing, the rings the
 * consumer has not left yet.
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
#ifndef CONQ_MPSC_GROWABLE_H
#define CONQ_MPSC_GROWABLE_H

#include "conq/impl/blocking.h"
#include "conq/impl/mpsc_la.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_mpsc_growable conq_mpsc_growable;

/* A queue of at most max_capacity elements, first ring `initial` slots
 * (both rounded up to powers of two). NULL + EINVAL (bad sizes) or ENOMEM.
 * a: where rings come from (NULL: malloc); copied. A. Allocates. */
conq_mpsc_growable *conq_mpsc_growable_create_with(size_t initial,
						   size_t max_capacity,
						   const conq_allocator *a);
conq_mpsc_growable *conq_mpsc_growable_create(size_t initial,
					      size_t max_capacity);

/* The common API (offer, relaxed_offer, poll, relaxed_poll, peek,
 * relaxed_peek, size, is_empty, capacity, drain, fill, offer_bulk,
 * offer_burst, poll_burst, destroy), inline, on the shared core: see the
 * table above for callers, progress and memory. destroy(NULL) is a no-op;
 * destroy frees every chunk, elements are not touched. */
CONQ__MPSC_LA_FAMILY(mpsc_growable, 1)

/* put, put_until, take, take_until (conq/impl/blocking.h): offer and poll
 * that wait, put while the queue holds capacity() elements, take while it
 * is empty; see the table above. put is false with errno = ENOMEM, without
 * waiting, when the queue must grow and a ring cannot be allocated. */
CONQ__DEFINE_PUT(mpsc_growable, q.nonfull)
CONQ__DEFINE_TAKE(mpsc_growable, q.nonempty)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_MPSC_GROWABLE_H */
