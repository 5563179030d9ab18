/* SPDX-License-Identifier: BSD-2-Clause */
/* src/internal.h - helpers for the compiled cold paths; not installed. */
#ifndef CONQ_SRC_INTERNAL_H
#define CONQ_SRC_INTERNAL_H

#include <stddef.h>

#include "conq/common.h"

/* CONQ_PAD-aligned allocation of `size` bytes, zeroed; NULL + ENOMEM. */
void *conq__alloc_aligned(size_t size);
void conq__free_aligned(void *p);

/* The growing families' memory: `size` bytes aligned to `align` (a power of
 * two, at most CONQ_PAD) from allocator `a`, or from the C library's when a
 * is NULL (then through conq__test_fail_alloc_after's injection, as every
 * library allocation). Zeroed (calloc's fresh pages are not touched twice).
 * NULL with errno = ENOMEM on failure.
 * conq__free_with gives it back (NULL p: a no-op). */
struct conq_allocator;
void *conq__alloc_with(const struct conq_allocator *a, size_t size,
		       size_t align);
void conq__free_with(const struct conq_allocator *a, void *p, size_t size);

/* A node of a linked family (a few words, aligned to 16): as
 * conq__alloc_with(a, size, 16), but from plain calloc when a is NULL,
 * without conq__alloc_aligned's CONQ_PAD of over-allocation (a 16-byte node
 * would cost 144 bytes). Free it with conq__free_node only. */
void *conq__alloc_node(const struct conq_allocator *a, size_t size);
void conq__free_node(const struct conq_allocator *a, void *p, size_t size);

/* The common start of every array family's init: `bytes` is the family's
 * memsize(capacity) (0 when the capacity is bad). Checks that `mem` is
 * non-NULL and CONQ_PAD-aligned, zeroes `bytes` of it unless `zeroed`, and
 * returns the rounded capacity; 0 with errno = EINVAL on bad input. No other
 * thread may see the queue before init returns, so plain stores suffice; the
 * caller publishes the queue (thread creation, a release store...). */
size_t conq__array_prepare(void *mem, size_t capacity, size_t bytes,
			   int zeroed);

/* One round of waiting for a thread that is inside an operation (a claimed
 * but unwritten slot): CONQ__WAIT_SPINS pause hints, then sched_yield() on
 * every later round, so that on an oversubscribed machine the preempted
 * thread we wait for gets the CPU. *spins counts the rounds. */
#define CONQ__WAIT_SPINS 1000u
void conq__wait_backoff(unsigned *spins);

/* The cooling list (conq__cold, impl/layout.h). init: k for chunks of
 * `bytes` (a zeroed list, never initialised, has k = 0: no cooling). push:
 * take ch (retired and reset); returns the chunk to hand back now (ch itself
 * when k == 0, the oldest once k wait), or NULL. pop: the oldest, or NULL
 * when empty (destroy). C only. */
void conq__cold_init(conq__cold *c, size_t bytes);
void *conq__cold_push(conq__cold *c, void *ch);
void *conq__cold_pop(conq__cold *c);

/*
 * The public cold paths every array family shares, written once around the
 * family's own `static conq_<fam> *init_fn(void *mem, size_t capacity,
 * uint64_t start, int zeroed)` and its public memsize(): init, the test hook
 * init_at, create (conq__alloc_aligned zeroes, so init skips its memset and a
 * large ring costs nothing until used) and destroy.
 */
#define CONQ__ARRAY_COLD_PATHS(fam, init_fn)                                   \
	conq_##fam *conq__##fam##_init_at(void *mem, size_t capacity,          \
					  uint64_t start)                      \
	{                                                                      \
		return init_fn(mem, capacity, start, 0);                       \
	}                                                                      \
	conq_##fam *conq_##fam##_init(void *mem, size_t capacity)              \
	{                                                                      \
		return init_fn(mem, capacity, 0, 0);                           \
	}                                                                      \
	conq_##fam *conq_##fam##_create(size_t capacity)                       \
	{                                                                      \
		size_t bytes = conq_##fam##_memsize(capacity);                 \
		if (bytes == 0)                                                \
			return NULL;                                           \
		void *mem = conq__alloc_aligned(bytes);                        \
		if (mem == NULL)                                               \
			return NULL;                                           \
		return init_fn(mem, capacity, 0, 1);                           \
	}                                                                      \
	void conq_##fam##_destroy(conq_##fam *q)                               \
	{                                                                      \
		conq__free_aligned(q);                                         \
	}

/* The asymmetric fence of conq/eventcount.h for other protocols
 * (src/eventcount.c): whether membarrier works here, and its heavy half. */
int conq__heavy_fence_available(void);
int conq__heavy_fence(void);

#endif
