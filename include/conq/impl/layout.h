/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/impl/layout.h - cache-line size, padding, index arithmetic and
 * compile-time layout checks shared by every family.
 */
#ifndef CONQ_IMPL_LAYOUT_H
#define CONQ_IMPL_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "conq/impl/atomic.h"

/* The coherence unit. 128 on aarch64 and ppc64, where several cores (Apple M,
 * Neoverse with some interconnects, POWER) move lines in 128-byte units;
 * 64 elsewhere. Override with -DCONQ_CACHE_LINE=N. */
#ifndef CONQ_CACHE_LINE
#if defined(__aarch64__) || defined(__powerpc64__)
#define CONQ_CACHE_LINE 128
#else
#define CONQ_CACHE_LINE 64
#endif
#endif

/* Hot field groups are CONQ_PAD bytes apart: two lines on x86 against the
 * adjacent-line (spatial) prefetcher, as JCTools' 128-byte pads and DPDK's
 * RTE_CACHE_GUARD do. Queue memory is aligned to CONQ_PAD. */
#define CONQ_PAD (2 * CONQ_CACHE_LINE)

/* Pad a field group `used` bytes long up to the next multiple of CONQ_PAD. */
#define CONQ__PAD_AFTER(name, used)                                            \
	char name[CONQ_PAD - ((used) % CONQ_PAD)]

/* Bytes that n index fields (conq__idx_t) at the start of a field group take
 * up to a uint64_t field after them: n * 8 with 64-bit indices, padding
 * included with narrower ones. */
#define CONQ__IDX_FIELDS(n) (((n) * sizeof(conq__idx_t) + 7) / 8 * 8)

#if defined(__cplusplus)
#define CONQ__STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define CONQ__STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/*
 * Indices are free-running unsigned integers that wrap modulo 2^64 (2^64
 * operations take 584 years at 10^9 ops/s, but the code is correct across the
 * wrap anyway, and the tests start indices just below it). Never compare two
 * indices with < or >: take the difference, which is exact modulo 2^64, and
 * read it as signed when it may be "negative".
 *
 * CONQ_INDEX_BITS (default 64) narrows the indices to 32 or 16 bits, for
 * test builds only: with 16, every family wraps every 65,536 operations, so
 * the wrap arguments are exercised thousands of times per test run. All index
 * arithmetic is then done modulo 2^CONQ_INDEX_BITS: uint16_t operands are
 * promoted to int, so every sum and difference goes back through
 * conq__idx_t (conq__idx_add, conq__idx_diff) before it is compared, stored
 * or differenced again. The largest capacity shrinks with the width (common.h,
 * CONQ_ARRAY_MAX_CAPACITY) so that every difference the code takes stays far
 * below 2^(CONQ_INDEX_BITS - 1) in magnitude, i.e. unambiguous. A narrow build
 * is also correct only while no thread stalls inside an operation for about
 * 2^(CONQ_INDEX_BITS - 1) operations of the others (an index it read is then
 * a whole half-range old); docs/design.md, "Index width".
 */
#ifndef CONQ_INDEX_BITS
#define CONQ_INDEX_BITS 64
#endif
#if CONQ_INDEX_BITS == 64
typedef uint64_t conq__idx_t;
typedef int64_t conq__sidx_t;
#elif CONQ_INDEX_BITS == 32
typedef uint32_t conq__idx_t;
typedef int32_t conq__sidx_t;
#elif CONQ_INDEX_BITS == 16
typedef uint16_t conq__idx_t;
typedef int16_t conq__sidx_t;
#else
#error "CONQ_INDEX_BITS must be 64 (the default), or 32 or 16 (test builds)"
#endif

/* 2^(CONQ_INDEX_BITS - 1): index differences must stay below it in
 * magnitude to be read right. */
#define CONQ__IDX_HALF ((uint64_t)1 << (CONQ_INDEX_BITS - 1))

static inline conq__sidx_t conq__idx_diff(conq__idx_t a, conq__idx_t b)
{
	/* Through conq__idx_t: a narrow a - b is computed in int. */
	return (conq__sidx_t)(conq__idx_t)(a - b);
}

/* a + n and a - n modulo 2^CONQ_INDEX_BITS (n: a count, a capacity). */
static inline conq__idx_t conq__idx_add(conq__idx_t a, uint64_t n)
{
	return (conq__idx_t)(a + n);
}

static inline conq__idx_t conq__idx_sub(conq__idx_t a, uint64_t n)
{
	return (conq__idx_t)(a - n);
}

/*
 * size() of an array queue from its consumer index *c and producer index *p
 * (JCTools' IndexedQueueSizeUtil): read c, p, c again until c is stable, so
 * that p was read while c held that value, then clamp to [0, cap]. The
 * loads are acquire; each family's caller names the releases they pair with.
 * Lock-free: retries only while the consumer index moves.
 */
static inline size_t conq__indexed_size(const conq__idx_t *c,
					const conq__idx_t *p, uint64_t cap)
{
	conq__idx_t c1 = conq__load_acquire(c), c2, p1;
	for (;;) {
		p1 = conq__load_acquire(p);
		c2 = conq__load_acquire(c);
		if (c2 == c1)
			break;
		c1 = c2;
	}
	conq__sidx_t n = conq__idx_diff(p1, c1);
	if (n < 0)
		return 0;
	return (uint64_t)n > cap ? (size_t)cap : (size_t)n;
}

/*
 * The consumer's cooling list of the SPSC linked arrays (chunked and
 * unbounded): retired, reset chunks wait in this C-private FIFO until
 * chunks of about CONQ__COLD_BYTES in all were retired after them (k of
 * them: at least 1, at most CONQ__COLD_MAX; 0 = no cooling), and only then
 * become the spare (or are freed when one is kept). Why: C has just read
 * and cleared the chunk it retires, so its lines sit modified in C's cache;
 * a spare handed straight back made the producer fetch each line it writes
 * from there, while C chased it. conq_spsc_chunked (chunk 1K, max 16K,
 * Intel guest): 275 ops/us against conq_spsc_array's 335 at the same
 * capacity; cooling 16 chunks (128 KiB), 380-415 (docs/benchmarks.md, "The
 * chunked queue's regimes"). Memory: a drained queue keeps at most
 * max(CONQ__COLD_BYTES, one chunk) more. Push and drain: src/common.c.
 * Tried in the MPSC linked arrays too, where it changed nothing (1P1C,
 * chunk 1K, 45.7 -> 46.0 ops/us, bench-ab -n 3): their cost is the claim.
 */
#ifndef CONQ__COLD_BYTES
#define CONQ__COLD_BYTES (128u * 1024u)
#endif
#define CONQ__COLD_MAX 16u

typedef struct conq__cold {
	void *ch[CONQ__COLD_MAX]; /* a ring of n from head, oldest first */
	uint32_t head, n, k;
} conq__cold;

#endif /* CONQ_IMPL_LAYOUT_H */
