/* SPDX-License-Identifier: BSD-2-Clause */
/* Cold paths of conq_spsc_array: sizing, init, create, destroy. */
#include <errno.h>

#include "conq/spsc_array.h"
#include "internal.h"
#include "conq/impl/testing.h"

#define SPSC_MAX_BATCH 32u
#define SPSC_MAX_LOOK 4096u /* JCTools' MAX_LOOK_AHEAD_STEP */

/* The proof (docs/memory-model.md) compares indices up to capacity + B
 * apart. */
CONQ__STATIC_ASSERT((uint64_t)CONQ_ARRAY_MAX_CAPACITY + SPSC_MAX_BATCH <
			CONQ__IDX_HALF,
		    "capacity + batch keeps index differences unambiguous");

static uint64_t spsc_batch(uint64_t cap)
{
	return cap < SPSC_MAX_BATCH ? cap : SPSC_MAX_BATCH;
}

size_t conq_spsc_array_memsize(size_t capacity)
{
	size_t cap = conq__array_round_capacity(capacity);
	if (cap == 0) {
		errno = EINVAL;
		return 0;
	}
	return sizeof(conq_spsc_array) +
	       (cap + spsc_batch(cap)) * sizeof(void *) + CONQ_PAD;
}

static conq_spsc_array *spsc_init(void *mem, size_t capacity, uint64_t start,
				  int zeroed)
{
	size_t cap = conq__array_prepare(mem, capacity,
					 conq_spsc_array_memsize(capacity), zeroed);
	if (cap == 0)
		return NULL;
	/* All-zero memory: NULL slots are the free ones. */
	conq_spsc_array *q = (conq_spsc_array *)mem;
	q->cap = cap;
	q->batch = spsc_batch(q->cap);
	q->ring = q->cap + q->batch;
	/* As JCTools' lookAheadStep, min(capacity / 4, 4096), but at least 1.
	 * Measured against 1024, 2048 and 16384 (docs/benchmarks.md). */
	q->look = q->cap / 4 < SPSC_MAX_LOOK ? q->cap / 4 : SPSC_MAX_LOOK;
	if (q->look == 0)
		q->look = 1;
	/* A narrow index build (CONQ_INDEX_BITS) keeps start's low bits. */
	q->pidx = q->cidx = (conq__idx_t)start;
	q->plimit = conq__idx_add(q->pidx, q->cap);
	conq_eventcount_init(&q->nonempty, 0);
	conq_eventcount_init(&q->nonfull, 0);
	return q;
}

CONQ__ARRAY_COLD_PATHS(spsc_array, spsc_init)
