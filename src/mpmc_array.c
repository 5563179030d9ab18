/* SPDX-License-Identifier: BSD-2-Clause */
/* Cold paths of conq_mpmc_array: sizing, init, create, destroy, yield. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <sched.h>

#include "conq/mpmc_array.h"
#include "conq/impl/testing.h"
#include "internal.h"

/* Cells per rotation block: consecutive positions go to 16 different pads,
 * and come back to the same pads every 16 * (cells per pad) positions. */
#define MPMC_SPAN_PADS 16u

size_t conq_mpmc_array_memsize(size_t capacity)
{
	size_t cap = conq__array_round_capacity(capacity);
	if (cap == 0) {
		errno = EINVAL;
		return 0;
	}
	/* Cannot overflow: CONQ_ARRAY_MAX_CAPACITY keeps 16 * cap far below
	 * SIZE_MAX. */
	return sizeof(conq_mpmc_array) + cap * sizeof(conq__mpmc_cell) +
	       CONQ_PAD;
}

static uint32_t log2u(uint64_t x)
{
	uint32_t s = 0;
	while (((uint64_t)1 << s) < x)
		s++;
	return s;
}

static conq_mpmc_array *mpmc_init(void *mem, size_t capacity, uint64_t start,
				  int zeroed)
{
	size_t cap = conq__array_prepare(mem, capacity,
					 conq_mpmc_array_memsize(capacity), zeroed);
	if (cap == 0)
		return NULL;
	/* All-zero memory: NULL slots are the free ones. */
	conq_mpmc_array *q = (conq_mpmc_array *)mem;
	uint64_t n = cap;
	uint32_t bits = log2u(n);
	uint32_t rot = log2u(CONQ_PAD / sizeof(conq__mpmc_cell));
	uint32_t span = rot + log2u(MPMC_SPAN_PADS);
#ifdef CONQ__MPMC_NO_REMAP /* for benchmarks: the identity map */
	rot = 0;
#endif
	if (bits <= rot)
		rot = span = 0; /* the whole ring fits in one pad */
	else if (span > bits)
		span = bits;
	q->cap = n;
	q->span = (uint64_t)1 << span;
	q->rot = rot;
	q->shr = span - rot;

	/* Cell of position p: FREE(p), for p in [start, start + n). With
	 * start 0 that is the all-zero word, already there. A narrow index
	 * build (CONQ_INDEX_BITS) keeps start's low bits. */
	conq__idx_t s = (conq__idx_t)start;
	if (s != 0)
		for (uint64_t k = 0; k < n; k++)
			conq__mpmc_cell_at(q, conq__idx_add(s, k))->seq =
			    conq__mpmc_lap(q, conq__idx_add(s, k)) |
			    CONQ__MPMC_FREE;
	q->tail = q->headc = s;
	q->head = q->tailc = s;
	return q;
}

CONQ__ARRAY_COLD_PATHS(mpmc_array, mpmc_init)

void conq__mpmc_yield(void)
{
	sched_yield();
}
