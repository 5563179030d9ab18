/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/impl/testing.h - hooks for conq's own tests and harnesses. Not API:
 * they may change in any release. They live in the library (not in the
 * tests) so that the tests exercise the very code users run.
 */
#ifndef CONQ_IMPL_TESTING_H
#define CONQ_IMPL_TESTING_H

#include <stdint.h>

#include "conq/spsc_array.h"
#include "conq/mpsc_array.h"
#include "conq/spmc_array.h"
#include "conq/mpmc_array.h"
#include "conq/spsc_chunked.h"
#include "conq/spsc_growable.h"
#include "conq/spsc_unbounded.h"
#include "conq/spsc_linked.h"
#include "conq/mpsc_chunked.h"
#include "conq/mpsc_growable.h"
#include "conq/mpsc_unbounded.h"
#include "conq/mpsc_xadd.h"
#include "conq/mpmc_xadd.h"
#include "conq/spsc_value.h"
#include "conq/mpsc_value.h"
#include "conq/spmc_value.h"
#include "conq/mpmc_value.h"
#include "conq/mpsc_bytes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* init() with every index starting at `start` instead of 0, so a test can put
 * the 2^64 wrap of the free-running indices a few operations away. A narrow
 * index build (CONQ_INDEX_BITS, impl/layout.h) keeps start's low bits. */
conq_spsc_array *conq__spsc_array_init_at(void *mem, size_t capacity,
					  uint64_t start);
conq_mpsc_array *conq__mpsc_array_init_at(void *mem, size_t capacity,
					  uint64_t start);
conq_spmc_array *conq__spmc_array_init_at(void *mem, size_t capacity,
					  uint64_t start);
conq_mpmc_array *conq__mpmc_array_init_at(void *mem, size_t capacity,
					  uint64_t start);
/* The value rings: init() (flags 0) with every index starting at `start`. */
conq_spsc_value *conq__spsc_value_init_at(void *mem, size_t elem_size,
					  size_t capacity, uint64_t start);
conq_mpsc_value *conq__mpsc_value_init_at(void *mem, size_t elem_size,
					  size_t capacity, uint64_t start);
conq_spmc_value *conq__spmc_value_init_at(void *mem, size_t elem_size,
					  size_t capacity, uint64_t start);
conq_mpmc_value *conq__mpmc_value_init_at(void *mem, size_t elem_size,
					  size_t capacity, uint64_t start);

/* conq_mpsc_bytes: init_opts() with the positions starting at `start`
 * (rounded down to a multiple of 8; a narrow index build keeps its low
 * bits), to put the wrap of the positions a few records away. */
conq_mpsc_bytes *conq__mpsc_bytes_init_at(void *mem, size_t capacity,
					  const conq_mpsc_bytes_opts *opts,
					  uint64_t start);

/* The growing families: on a new, empty queue, move every index (and every
 * limit relative to one) to `start`. Narrow index builds keep start's low
 * bits. */
void conq__spsc_chunked_test_start(conq_spsc_chunked *q, uint64_t start);
void conq__spsc_growable_test_start(conq_spsc_growable *q, uint64_t start);
void conq__spsc_unbounded_test_start(conq_spsc_unbounded *q, uint64_t start);
/* A growing family's start hook: on a new, empty queue, every index moves
 * to `start` (narrow builds: its low bits). */
void conq__spsc_linked_test_start(conq_spsc_linked *q, uint64_t start);
/* The growing families: on a new, empty queue, move every index to `start`
 * (a narrow index build keeps its low bits), so that a test can cross the
 * index wrap. The MPSC linked-array families count in units of 2: their
 * indices become 2 * start. */
void conq__mpsc_chunked_test_start(conq_mpsc_chunked *q, uint64_t start);
void conq__mpsc_growable_test_start(conq_mpsc_growable *q, uint64_t start);
void conq__mpsc_unbounded_test_start(conq_mpsc_unbounded *q, uint64_t start);
void conq__mpsc_xadd_test_start(conq_mpsc_xadd *q, uint64_t start);
void conq__mpmc_xadd_test_start(conq_mpmc_xadd *q, uint64_t start);

/* Make the library's allocator fail (NULL, ENOMEM) once `n` further
 * allocations have succeeded, and every allocation from then on, until a
 * negative n switches the injection off. Per thread. */
void conq__test_fail_alloc_after(int n);

/* on != 0: every eventcount initialised from now on (the queues' too) runs
 * in the mode without membarrier, where notify pays a read-modify-write
 * (conq/eventcount.h), as on a kernel without membarrier. Process-wide;
 * CONQ_EVENTCOUNT_RMW=1 in the environment does the same from the start. */
void conq__test_eventcount_force_rmw(int on);

/* How long put() and take() watch the queue before they park, in ns
 * (default CONQ__BLOCK_SPIN_NS; 0: park at once). Process-wide. */
void conq__test_block_spin(unsigned ns);

/* How many times this thread went to sleep in conq_eventcount_wait (a futex
 * wait system call made), since it started. */
unsigned long conq__test_eventcount_sleeps(void);

/* conq/uuid.h: how many threads' generator states are mapped now (made at
 * a thread's first call, unmapped at its exit). */
size_t conq__uuid_live_states(void);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_IMPL_TESTING_H */
