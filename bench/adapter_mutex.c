/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mutex:ring - the floor: a bounded power-of-two ring of void* under one
 * pthread mutex (the default, non-adaptive type: glibc's futex lock, which
 * sleeps in the kernel on contention). Any number of producers and
 * consumers. Not a peer, a reference point: a lock-free queue that falls
 * below it has no reason to be lock-free.
 *
 * Layout: the mutex and both indices on one CB_PAD block (every operation
 * takes the lock anyway: splitting them would only add a line to move), the
 * read-only size on its own, then the slots.
 */
#include <errno.h>
#include <pthread.h>

#include "loops.h"

typedef struct mutex_ring {
	CB_ALIGNAS(CB_PAD) pthread_mutex_t mu;
	uint64_t head; /* next to poll, under mu */
	uint64_t tail; /* next to offer, under mu */
	CB_ALIGNAS(CB_PAD) uint64_t cap; /* read-only: a power of two */
	uint64_t mask;
	void **slots;
} mutex_ring;

static void *mutex_create(size_t capacity, size_t *usable)
{
	size_t cap = cb_pow2_ceil(capacity == 0 ? 1 : capacity);
	if (cap == 0 || cap > (size_t)1 << 40) {
		errno = EINVAL;
		return NULL;
	}
	mutex_ring *r = (mutex_ring *)cb_alloc_aligned(sizeof *r);
	if (r == NULL)
		return NULL;
	r->slots = (void **)cb_alloc_aligned(cap * sizeof(void *));
	if (r->slots == NULL) {
		cb_free_aligned(r);
		return NULL;
	}
	int rc = pthread_mutex_init(&r->mu, NULL);
	if (rc != 0) {
		cb_free_aligned(r->slots);
		cb_free_aligned(r);
		errno = rc;
		return NULL;
	}
	r->cap = cap;
	r->mask = cap - 1;
	*usable = cap;
	return r;
}

static void mutex_destroy(void *q)
{
	mutex_ring *r = (mutex_ring *)q;
	if (r == NULL)
		return;
	pthread_mutex_destroy(&r->mu);
	cb_free_aligned(r->slots);
	cb_free_aligned(r);
}

static inline bool mutex_offer(mutex_ring *r, void *e)
{
	bool ok = false;
	pthread_mutex_lock(&r->mu);
	if (r->tail - r->head < r->cap) {
		r->slots[r->tail & r->mask] = e;
		r->tail++;
		ok = true;
	}
	pthread_mutex_unlock(&r->mu);
	return ok;
}

static inline void *mutex_poll(mutex_ring *r)
{
	void *e = NULL;
	pthread_mutex_lock(&r->mu);
	if (r->tail != r->head) {
		e = r->slots[r->head & r->mask];
		r->head++;
	}
	pthread_mutex_unlock(&r->mu);
	return e;
}

static bool mutex_offer_g(void *q, void *e)
{
	return mutex_offer((mutex_ring *)q, e);
}

static void *mutex_poll_g(void *q)
{
	return mutex_poll((mutex_ring *)q);
}

CB_DEFINE_LOOPS(mutex_ring, mutex_ring, mutex_offer, mutex_poll)

extern const cb_adapter cb_adapter_mutex_ring;
const cb_adapter cb_adapter_mutex_ring = {
	.name = "mutex:ring",
	.family = "mutex",
	.desc = "not lock-free: power-of-two ring under one pthread mutex",
	.contract = CB_MPMC,
	.kind = CB_KIND_BASELINE,
	.create = mutex_create,
	.destroy = mutex_destroy,
	.offer = mutex_offer_g,
	.poll = mutex_poll_g,
	.flush = NULL,
	.loops = &mutex_ring_loops,
};
