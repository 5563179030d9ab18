/* SPDX-License-Identifier: BSD-2-Clause */
/* Cold paths of conq_mpsc_array: sizing, init, create, destroy, waiting. */
#include <errno.h>

#include "conq/mpsc_array.h"
#include "internal.h"
#include "conq/impl/testing.h"

size_t conq_mpsc_array_memsize(size_t capacity)
{
	size_t cap = conq__array_round_capacity(capacity);
	if (cap == 0) {
		errno = EINVAL;
		return 0;
	}
	return sizeof(conq_mpsc_array) + cap * sizeof(void *) + CONQ_PAD;
}

static conq_mpsc_array *mpsc_init(void *mem, size_t capacity, uint64_t start,
				  int zeroed)
{
	size_t cap = conq__array_prepare(mem, capacity,
					 conq_mpsc_array_memsize(capacity), zeroed);
	if (cap == 0)
		return NULL;
	/* All-zero memory: NULL slots are the free ones. */
	conq_mpsc_array *q = (conq_mpsc_array *)mem;
	q->cap = cap;
	q->mask = q->cap - 1;
	/* A narrow index build (CONQ_INDEX_BITS) keeps start's low bits. */
	q->pidx = q->cidx = (conq__idx_t)start;
	q->plimit = conq__idx_add(q->pidx, q->cap);
	conq_eventcount_init(&q->nonempty, 0);
	conq_eventcount_init(&q->nonfull, 0);
	return q;
}

CONQ__ARRAY_COLD_PATHS(mpsc_array, mpsc_init)

void *conq__mpsc_array_wait(void **slot)
{
	unsigned spins = 0;
	for (;;) {
		/* [M2] acquire: pairs with [M1] of the producer that claimed
		 * this slot's index; it is past its CAS and will store. */
		void *e = conq__load_acquire(slot);
		if (e != NULL)
			return e;
		conq__wait_backoff(&spins);
	}
}

void conq__mpsc_array_put_all(conq_mpsc_array *q, void *const *es, size_t n)
{
	unsigned spins = 0;
	while (n > 0) {
		conq__idx_t p;
		uint64_t m = conq__mpsc_array_claim(q, (uint64_t)n, false, &p);
		if (m == 0) {
			/* Full: another producer took the room fill saw.
			 * The elements are ours to deliver; wait for C. */
			conq__wait_backoff(&spins);
			continue;
		}
		conq__mpsc_array_put(q, p, es, m);
		es += m;
		n -= (size_t)m;
		spins = 0;
	}
}
