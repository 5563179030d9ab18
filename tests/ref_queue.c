/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The reference queue: a bounded ring behind one mutex, with the full tq API
 * and the library's contract (power-of-two capacity, NULL rejected with
 * EINVAL, all-or-nothing offer_bulk, ...), any number of producers and
 * consumers, one total FIFO order. Obviously correct, so that the harness
 * itself can be tested with it, multi-producer and multi-consumer paths
 * included (run a test binary with --ref).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "queues.h"

struct ref {
	pthread_mutex_t m;
	uint64_t cap;
	uint64_t head; /* next index to poll */
	uint64_t tail; /* next index to offer */
	void *slots[];
};

static struct ref *R(void *q)
{
	return (struct ref *)q;
}

static size_t ref_memsize(size_t c)
{
	size_t cap = conq__array_round_capacity(c);
	if (cap == 0) {
		errno = EINVAL;
		return 0;
	}
	return sizeof(struct ref) + cap * sizeof(void *);
}

static void *ref_init_at(void *mem, size_t c, uint64_t start)
{
	if (ref_memsize(c) == 0)
		return NULL;
	if (mem == NULL || (uintptr_t)mem % CONQ_PAD != 0) {
		errno = EINVAL;
		return NULL;
	}
	struct ref *r = R(mem);
	pthread_mutex_init(&r->m, NULL);
	r->cap = conq__array_round_capacity(c);
	r->head = r->tail = start;
	for (uint64_t i = 0; i < r->cap; i++)
		r->slots[i] = NULL;
	return r;
}

static void *ref_init(void *mem, size_t c)
{
	return ref_init_at(mem, c, 0);
}

static void *ref_create_at(size_t c, uint64_t start)
{
	size_t bytes = ref_memsize(c);
	if (bytes == 0)
		return NULL;
	bytes = (bytes + CONQ_PAD - 1) / CONQ_PAD * CONQ_PAD;
	void *mem = aligned_alloc(CONQ_PAD, bytes);
	if (mem == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	return ref_init_at(mem, c, start);
}

static void *ref_create(size_t c)
{
	return ref_create_at(c, 0);
}

static void ref_destroy(void *q)
{
	if (q == NULL)
		return;
	pthread_mutex_destroy(&R(q)->m);
	free(q);
}

static void lock(struct ref *r)
{
	pthread_mutex_lock(&r->m);
}

static void unlock(struct ref *r)
{
	pthread_mutex_unlock(&r->m);
}

/* Locked helpers. */
static uint64_t used(const struct ref *r)
{
	return r->tail - r->head;
}

static void push(struct ref *r, void *e)
{
	r->slots[r->tail++ & (r->cap - 1)] = e;
}

static void *pop(struct ref *r)
{
	if (used(r) == 0)
		return NULL;
	void **s = &r->slots[r->head++ & (r->cap - 1)];
	void *e = *s;
	*s = NULL;
	return e;
}

static bool ref_offer(void *q, void *e)
{
	if (e == NULL) {
		errno = EINVAL;
		return false;
	}
	struct ref *r = R(q);
	lock(r);
	bool ok = used(r) < r->cap;
	if (ok)
		push(r, e);
	unlock(r);
	return ok;
}

static void *ref_poll(void *q)
{
	struct ref *r = R(q);
	lock(r);
	void *e = pop(r);
	unlock(r);
	return e;
}

static void *ref_peek(void *q)
{
	struct ref *r = R(q);
	lock(r);
	void *e = used(r) ? r->slots[r->head & (r->cap - 1)] : NULL;
	unlock(r);
	return e;
}

static size_t ref_size(void *q)
{
	struct ref *r = R(q);
	lock(r);
	size_t n = (size_t)used(r);
	unlock(r);
	return n;
}

static bool ref_is_empty(void *q)
{
	return ref_size(q) == 0;
}

static size_t ref_capacity(void *q)
{
	return (size_t)R(q)->cap;
}

static size_t ref_drain(void *q, conq_consume_fn fn, void *ctx, size_t limit)
{
	size_t k = 0;
	void *e;
	while (k < limit && (e = ref_poll(q)) != NULL) {
		fn(ctx, e);
		k++;
	}
	return k;
}

static size_t ref_fill(void *q, conq_supply_fn fn, void *ctx, size_t limit)
{
	struct ref *r = R(q);
	size_t k = 0;
	lock(r);
	while (k < limit && used(r) < r->cap) {
		void *e = fn(ctx);
		if (e == NULL)
			break;
		push(r, e);
		k++;
	}
	unlock(r);
	return k;
}

static size_t ref_offer_bulk(void *q, void *const *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (es[i] == NULL) {
			errno = EINVAL;
			return 0;
		}
	struct ref *r = R(q);
	lock(r);
	bool ok = n > 0 && r->cap - used(r) >= n;
	if (ok)
		for (size_t i = 0; i < n; i++)
			push(r, es[i]);
	unlock(r);
	return ok ? n : 0;
}

static size_t ref_offer_burst(void *q, void *const *es, size_t n)
{
	struct ref *r = R(q);
	size_t k = 0;
	lock(r);
	while (k < n && used(r) < r->cap) {
		if (es[k] == NULL) {
			errno = EINVAL;
			break;
		}
		push(r, es[k++]);
	}
	unlock(r);
	return k;
}

static size_t ref_poll_burst(void *q, void **out, size_t n)
{
	struct ref *r = R(q);
	size_t k = 0;
	lock(r);
	while (k < n && used(r) > 0)
		out[k++] = pop(r);
	unlock(r);
	return k;
}

const struct tq_desc tq_reference = {
    .name = "reference(mutex)",
    .max_producers = TQ_ANY,
    .max_consumers = TQ_ANY,
    .bounded = true,
    .exact_size = true,
    .fifo = TQ_FIFO_TOTAL,
    .alloc_hook = false,
    .size_any_thread = true,
    .create = ref_create,
    .create_at = ref_create_at,
    .destroy = ref_destroy,
    .offer = ref_offer,
    .poll = ref_poll,
    .peek = ref_peek,
    .relaxed_offer = ref_offer,
    .relaxed_poll = ref_poll,
    .relaxed_peek = ref_peek,
    .size = ref_size,
    .is_empty = ref_is_empty,
    .capacity = ref_capacity,
    .drain = ref_drain,
    .fill = ref_fill,
    .offer_bulk = ref_offer_bulk,
    .offer_burst = ref_offer_burst,
    .poll_burst = ref_poll_burst,
    .memsize = ref_memsize,
    .init = ref_init,
    .init_at = ref_init_at,
};
