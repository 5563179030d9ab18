/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/common.h - types and rules shared by every queue family.
 *
 * Elements are non-NULL `void *`: NULL is the "no element" answer of poll and
 * peek, and offering NULL is rejected (false, errno = EINVAL), never enqueued.
 *
 * Constructors (`create`, `init`, `memsize`) return NULL (or 0) and set errno:
 *   EINVAL  capacity 0, capacity above CONQ_ARRAY_MAX_CAPACITY, or memory for
 *           `init` that is NULL or not aligned to CONQ_PAD;
 *   ENOMEM  the allocation failed.
 */
#ifndef CONQ_COMMON_H
#define CONQ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conq/impl/atomic.h"
#include "conq/impl/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The largest capacity a bounded array queue accepts, after rounding up to a
 * power of two: 2^31 slots (16 GiB of pointers) on 64-bit targets, 2^26 on
 * 32-bit ones, so that memsize() can never overflow size_t.
 *
 * Narrow index test builds (CONQ_INDEX_BITS, impl/layout.h): 2^28 with 32-bit
 * indices, 2^12 with 16-bit ones, so that the index differences every family
 * takes stay below 2^(CONQ_INDEX_BITS - 1) in magnitude. The tightest bound
 * is conq_mpmc_array's: there the tail may run ahead of the head by the
 * capacity plus one claim (at most a capacity) per thread that overshoots
 * with an FAA, so 2^(CONQ_INDEX_BITS - 4) leaves room for 7 such threads at
 * full capacity (mpmc_array.h asserts it); the others need capacity (plus 32
 * for conq_spsc_array's ring) below 2^(CONQ_INDEX_BITS - 1).
 */
#if CONQ_INDEX_BITS == 16
#define CONQ_ARRAY_MAX_CAPACITY ((size_t)1 << 12)
#elif CONQ_INDEX_BITS == 32 && SIZE_MAX > 0xffffffffu
#define CONQ_ARRAY_MAX_CAPACITY ((size_t)1 << 28)
#elif SIZE_MAX > 0xffffffffu
#define CONQ_ARRAY_MAX_CAPACITY ((size_t)1 << 31)
#else
#define CONQ_ARRAY_MAX_CAPACITY ((size_t)1 << 26)
#endif

/* Every family reads cidx + capacity - pidx, and the like, as signed. */
CONQ__STATIC_ASSERT((uint64_t)CONQ_ARRAY_MAX_CAPACITY < CONQ__IDX_HALF,
		    "capacities keep index differences unambiguous");

/* drain(): called once per element, in FIFO order, on the consumer thread.
 * It must not call back into the same queue's consumer side. */
typedef void (*conq_consume_fn)(void *ctx, void *element);

/* fill(): called once per element to enqueue, on the producer thread, only
 * when a free slot is already known to exist. Returning NULL ends the fill
 * early; nothing is lost, and fill() reports how many elements it enqueued. */
typedef void *(*conq_supply_fn)(void *ctx);

/*
 * Where the growing families (linked, chunked, growable, unbounded, xadd) get
 * their memory: a caller-supplied allocator, passed to their
 * `_create_with(..., const conq_allocator *)`; NULL there means the C
 * library's (malloc). The allocator is called on the thread whose operation
 * needs memory (each family's header says which calls may allocate and which
 * may free), possibly from several threads at once in the multi-producer
 * families: it must be thread-safe, or the caller must keep the calls apart.
 *
 *   alloc(ctx, size, align)  `size` bytes aligned to `align` (a power of
 *                            two, at most CONQ_PAD), or NULL when it cannot:
 *                            then the operation that asked fails with
 *                            errno = ENOMEM, the element stays with its
 *                            caller, and the queue stays usable;
 *   free(ctx, p, size)       gives back a block from alloc, with its size.
 *
 * The memory need not be zeroed: conq initialises what it uses. The
 * allocator structure is copied at create: it need not outlive the call
 * (ctx must outlive the queue).
 */
typedef struct conq_allocator {
	void *(*alloc)(void *ctx, size_t size, size_t align);
	void (*free)(void *ctx, void *p, size_t size);
	void *ctx;
} conq_allocator;

/* capacity() of an unbounded family. */
#define CONQ_UNBOUNDED SIZE_MAX

/* Round `capacity` up to a power of two; 0 when it is 0 or too large. */
size_t conq__array_round_capacity(size_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_COMMON_H */
