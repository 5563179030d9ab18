/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cb.h - basics shared by every part of conq-bench: version, padding, the
 * clock, aligned allocation.
 *
 * Every flag or counter that two threads touch goes through the conq atomics
 * macros (conq/impl/atomic.h), as in the library.
 */
#ifndef CB_H
#define CB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "conq/impl/atomic.h"
#include "conq/impl/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_VERSION "0.2"

/* _Alignas in C, alignas in C++ (the atomic_queue adapter is C++ and
 * instantiates the same loops). */
#ifdef __cplusplus
#define CB_ALIGNAS(n) alignas(n)
#else
#define CB_ALIGNAS(n) _Alignas(n)
#endif

/* Shared hot fields live CB_PAD bytes apart (two lines on x86: the adjacent
 * line prefetcher), like the queues themselves. */
#define CB_PAD CONQ_PAD

/* The most threads one trial may run (the sum over its roles). */
#define CB_MAX_THREADS 64

/*
 * Elements: {producer id, sequence}, packed into the pointer as
 * (seq << CB_PID_BITS) | pid, sequences starting at 1 (never NULL, and
 * never atomic_queue's NIL). A producer adds CB_SEQ_ONE per element, which
 * costs what seq++ costs. 2^58 elements per producer before a wrap.
 */
#define CB_PID_BITS 6u
#define CB_PID_MASK (((uintptr_t)1 << CB_PID_BITS) - 1u)
#define CB_SEQ_ONE ((uintptr_t)1 << CB_PID_BITS)
CONQ__STATIC_ASSERT(sizeof(uintptr_t) >= 8, "conq-bench wants 64-bit pointers");
CONQ__STATIC_ASSERT(CB_MAX_THREADS <= (1u << CB_PID_BITS),
		    "producer ids fit in CB_PID_BITS");

static inline uintptr_t cb_elem_bits(unsigned pid, uint64_t seq)
{
	return ((uintptr_t)seq << CB_PID_BITS) | (uintptr_t)pid;
}
static inline unsigned cb_elem_pid(const void *e)
{
	return (unsigned)((uintptr_t)e & CB_PID_MASK);
}
static inline uint64_t cb_elem_seq(const void *e)
{
	return (uint64_t)((uintptr_t)e >> CB_PID_BITS);
}

#define CB_NS_PER_US 1000u
#define CB_NS_PER_MS 1000000u
#define CB_NS_PER_S 1000000000u

/* CLOCK_MONOTONIC in ns: a vDSO call (~50 ns here), used only at iteration
 * boundaries, never per operation. */
static inline uint64_t cb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * CB_NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Zeroed memory aligned to CB_PAD, its size rounded up to a multiple of
 * CB_PAD, so that nothing else shares its first or last line pair. */
void *cb_alloc_aligned(size_t size);
void cb_free_aligned(void *p);

/* Round up to a power of two (n >= 1); 0 on overflow. */
size_t cb_pow2_ceil(size_t n);

#ifdef __cplusplus
}
#endif

#endif /* CB_H */
