/* SPDX-License-Identifier: BSD-2-Clause */
/* Cold paths of conq_spsc_linked: create, destroy, node allocation. */
#include <errno.h>

#include "conq/spsc_linked.h"
#include "conq/impl/testing.h"
#include "internal.h"

typedef struct conq__spsc_linked_node node;

struct conq__spsc_linked_node *conq__spsc_linked_alloc(conq_spsc_linked *q)
{
	return (node *)conq__alloc_node(q->a, sizeof(node));
}

void conq__spsc_linked_free(conq_spsc_linked *q, node *n)
{
	conq__free_node(q->a, n, sizeof(node));
}

static void free_list(conq_spsc_linked *q, node *n)
{
	while (n != NULL) {
		node *next = n->next;
		conq__spsc_linked_free(q, n);
		n = next;
	}
}

conq_spsc_linked *conq_spsc_linked_create_with(const conq_allocator *a)
{
	conq_spsc_linked *q = (conq_spsc_linked *)conq__alloc_with(
	    a, sizeof(conq_spsc_linked), CONQ_PAD);
	if (q == NULL)
		return NULL;
	/* Zeroed: every index 0, no spares. */
	if (a != NULL) {
		q->acopy = *a;
		q->a = &q->acopy;
	}
	size_t bytes = conq_spsc_array_memsize(CONQ__SPSC_LINKED_CACHE);
	void *mem = conq__alloc_with(q->a, bytes, CONQ_PAD);
	if (mem == NULL)
		goto fail;
	q->cache = conq_spsc_array_init(mem, CONQ__SPSC_LINKED_CACHE);
	q->head = q->tail = conq__spsc_linked_alloc(q);
	if (q->head == NULL)
		goto fail;
	return q;
fail:
	if (q->cache != NULL)
		conq__free_with(q->a, q->cache, bytes);
	conq__free_with(a, q, sizeof(conq_spsc_linked));
	errno = ENOMEM;
	return NULL;
}

conq_spsc_linked *conq_spsc_linked_create(void)
{
	return conq_spsc_linked_create_with(NULL);
}

void conq_spsc_linked_destroy(conq_spsc_linked *q)
{
	if (q == NULL)
		return;
	free_list(q, q->head); /* the stub and every queued node */
	free_list(q, q->spare);
	void *n;
	while ((n = conq_spsc_array_poll(q->cache)) != NULL)
		conq__spsc_linked_free(q, (node *)n);
	conq__free_with(q->a, q->cache,
			conq_spsc_array_memsize(CONQ__SPSC_LINKED_CACHE));
	conq_allocator acopy = q->acopy;
	conq__free_with(q->a != NULL ? &acopy : NULL, q,
			sizeof(conq_spsc_linked));
}

void conq__spsc_linked_test_start(conq_spsc_linked *q, uint64_t start)
{
	/* A narrow index build (CONQ_INDEX_BITS) keeps start's low bits. */
	q->pidx = q->cidx = (conq__idx_t)start;
}
