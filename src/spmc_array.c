/* SPDX-License-Identifier: BSD-2-Clause */
/* Cold paths of conq_spmc_array: sizing, init, create, destroy, waiting. */
#define _POSIX_C_SOURCE 200809L /* sched_yield under -std=c11 */

#include <errno.h>
#include <sched.h>
#include <string.h>

#include "conq/spmc_array.h"
#include "internal.h"
#include "conq/impl/testing.h"

/* Spins with conq__cpu_relax before a waiter starts yielding the CPU, so an
 * oversubscribed machine lets the preempted thread it waits for run. */
#define SPMC_SPINS 1000u

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
	size_t bytes = conq_spmc_array_memsize(capacity);
	if (bytes == 0)
		return NULL;
	if (mem == NULL || (uintptr_t)mem % CONQ_PAD != 0) {
		errno = EINVAL;
		return NULL;
	}
	/* Zero everything: NULL slots are the free ones. No other thread
	 * may see the queue before init returns, so plain stores suffice; the
	 * caller publishes the queue (thread creation, a release store...). */
	if (!zeroed)
		memset(mem, 0, bytes);
	conq_spmc_array *q = (conq_spmc_array *)mem;
	q->cap = conq__array_round_capacity(capacity);
	q->mask = q->cap - 1;
	q->pidx = q->cidx = q->pcache = start;
	q->plimit = start + q->cap;
	return q;
}

CONQ__ARRAY_COLD_PATHS(spmc_array, spmc_init)

static void spmc_backoff(unsigned *spins)
{
	if (*spins < SPMC_SPINS) {
		++*spins;
		conq__cpu_relax();
	} else {
		sched_yield();
	}
}

void conq__spmc_array_wait(void **slot)
{
	unsigned spins = 0;
	/* [C7] acquire: pairs with [C6] of the consumer that claimed the
	 * slot's element; it is past its CAS and will clear the slot. */
	while (conq__load_acquire(slot) != NULL)
		spmc_backoff(&spins);
}
