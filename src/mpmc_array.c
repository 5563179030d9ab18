/* SPDX-License-Identifier: BSD-2-Clause */
/* Cold paths of conq_mpmc_array: sizing, init, create, destroy, the waits at
 * the edge, yield. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <sched.h>

#include "conq/mpmc_array.h"
#include "conq/impl/testing.h"
#include "internal.h"

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

static conq_mpmc_array *mpmc_init(void *mem, size_t capacity, uint64_t start,
				  int zeroed)
{
	size_t cap = conq__array_prepare(mem, capacity,
					 conq_mpmc_array_memsize(capacity), zeroed);
	if (cap == 0)
		return NULL;
	/* All-zero memory: every cell FREE for its position of lap 0. */
	conq_mpmc_array *q = (conq_mpmc_array *)mem;
	q->cap = cap;

	/* Cell of position p: FREE(p), for p in [start, start + n). With
	 * start 0 that is the all-zero word, already there. A narrow index
	 * build (CONQ_INDEX_BITS) keeps start's low bits. */
	conq__idx_t s = (conq__idx_t)start;
	if (s != 0)
		for (uint64_t k = 0; k < cap; k++)
			conq__mpmc_cell_at(q, conq__idx_add(s, k))->seq =
			    conq__mpmc_lap(q, conq__idx_add(s, k)) |
			    CONQ__MPMC_FREE;
	q->tail = s;
	q->head = s;
	conq_eventcount_init(&q->nonempty, 0);
	conq_eventcount_init(&q->nonfull, 0);
	return q;
}

CONQ__ARRAY_COLD_PATHS(mpmc_array, mpmc_init)

void conq__mpmc_yield(void)
{
	sched_yield();
}

bool conq__mpmc_edge_put(conq_mpmc_array *q, conq__idx_t t)
{
	/* The watch: the poll of t - n may be releasing the cell right now. */
	for (unsigned i = 0; i < CONQ__MPMC_CHASE_SPINS; i++) {
		conq__watch_gap(CONQ__MPMC_CHASE_GAP);
		/* [Q2] acquire: pairs with [Q6]. */
		if (conq__mpmc_look_cell(q, t) >= 0)
			return true;
	}
	/* [Q8] seq_cst: pairs with [Q7]. t was the tail at some moment of the
	 * caller's call and the head only grows, so t - head >= n here means
	 * n positions were claimed by offers and not by polls then: full. */
	if (conq__idx_diff(t, conq__load_seq_cst(&q->head)) >= (int64_t)q->cap)
		return false;
	/* t - n is claimed by a poll that has not released its cell yet (or
	 * t is stale: the tail moved on). */
	unsigned k = 0;
	for (;;) {
		conq__mpmc_backoff(&k);
		/* [Q2] acquire: pairs with [Q6]. */
		if (conq__mpmc_look_cell(q, t) >= 0 ||
		    /* [Q1] seq_cst: pairs with [Q1]. */
		    conq__load_seq_cst(&q->tail) != t)
			return true;
	}
}

bool conq__mpmc_edge_take(conq_mpmc_array *q, conq__idx_t p, conq__idx_t h)
{
	/* The watch: p's producer may be publishing right now. */
	for (unsigned i = 0; i < CONQ__MPMC_CHASE_SPINS; i++) {
		conq__watch_gap(CONQ__MPMC_CHASE_GAP);
		/* [Q5] acquire: pairs with [Q4]. */
		if (conq__mpmc_look_cell(q, p) >= CONQ__MPMC_FULL)
			return true;
	}
	unsigned k = 0;
	for (;;) {
		/* [Q10] seq_cst: pairs with [Q1] and [Q12]. The head was h <= p
		 * earlier, so the tail at or below p here is an empty queue
		 * (the tail never drops below the head). */
		if (conq__idx_diff(conq__load_seq_cst(&q->tail), p) <= 0)
			return false;
		/* p's producer has claimed it and not published yet. */
		conq__mpmc_backoff(&k);
		/* [Q5] acquire: pairs with [Q4]. */
		if (conq__mpmc_look_cell(q, p) >= CONQ__MPMC_FULL ||
		    /* [Q7] seq_cst: pairs with [Q7]. */
		    conq__load_seq_cst(&q->head) != h)
			return true;
	}
}
