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
