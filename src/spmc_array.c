/* SPDX-License-Identifier: BSD-2-Clause */
/* Cold paths of conq_spmc_array: sizing, init, create, destroy, waiting. */
#include <errno.h>

#include "conq/spmc_array.h"
#include "internal.h"
#include "conq/impl/testing.h"

size_t conq_spmc_array_memsize(size_t capacity)
{
	size_t cap = conq__array_round_capacity(capacity);
	if (cap == 0) {
		errno = EINVAL;
		return 0;
	}
	return sizeof(conq_spmc_array) + cap * sizeof(void *) + CONQ_PAD;
}

static conq_spmc_array *spmc_init(void *mem, size_t capacity, uint64_t start,
				  int zeroed)
{
	size_t cap = conq__array_prepare(mem, capacity,
					 conq_spmc_array_memsize(capacity), zeroed);
	if (cap == 0)
		return NULL;
	/* All-zero memory: NULL slots are the free ones. */
	conq_spmc_array *q = (conq_spmc_array *)mem;
	q->cap = cap;
	q->mask = q->cap - 1;
	/* A narrow index build (CONQ_INDEX_BITS) keeps start's low bits. */
	q->pidx = q->cidx = q->pcache = (conq__idx_t)start;
	q->plimit = conq__idx_add(q->pidx, q->cap);
	conq_eventcount_init(&q->nonempty, 0);
	conq_eventcount_init(&q->nonfull, 0);
	return q;
}

CONQ__ARRAY_COLD_PATHS(spmc_array, spmc_init)

void conq__spmc_array_wait(void **slot)
{
	unsigned spins = 0;
	/* [C7] acquire: pairs with [C6] of the consumer that claimed the
	 * slot's element; it is past its CAS and will clear the slot. */
	while (conq__load_acquire(slot) != NULL)
		conq__wait_backoff(&spins);
}

bool conq__spmc_array_offer_held(conq_spmc_array *q, conq__idx_t p, void *e)
{
	void **slot = &conq__spmc_array_slots(q)[p & q->mask];
	if (conq__idx_diff(q->plimit, p) <= 0) {
		/* The limit (the last cidx read + cap) does not decide: the
		 * slot's element may be in the queue (full) or claimed (a
		 * bubble). Its consumer may be about to free it: watch the
		 * slot before reading cidx, which would pull the line every
		 * consumer CASes away from them. */
		for (unsigned i = 0; i < CONQ__SPMC_CHASE_SPINS; i++) {
			conq__watch_gap(CONQ__SPMC_CHASE_GAP);
			if (conq__spmc_array_slot_free(slot))
				goto write;
		}
		/* [C8] inside: full iff cidx + cap <= p. */
		if (conq__spmc_array_refresh_limit(q, p) == 0)
			return false;
	}
	/* cidx is past the slot's element: a bubble; wait for its consumer's
	 * clear ([C7] inside). */
	conq__spmc_array_wait(slot);
write:
	conq__spmc_array_store(slot, e);
	conq__spmc_array_publish(q, conq__idx_add(p, 1));
	return true;
}
