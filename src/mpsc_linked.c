/* SPDX-License-Identifier: BSD-2-Clause */
/* Cold paths of conq_mpsc_linked: create, destroy, node allocation. */
#include <errno.h>

#include "conq/mpsc_linked.h"
#include "internal.h"

typedef struct conq__mpsc_linked_node node;

node *conq__mpsc_linked_alloc(conq_mpsc_linked *q)
{
	return (node *)conq__alloc_node(q->a, sizeof(node));
}

void conq__mpsc_linked_free(conq_mpsc_linked *q, node *n)
{
	conq__free_node(q->a, n, sizeof(node));
}

void conq__mpsc_linked_free_chain(conq_mpsc_linked *q, node *n)
{
	while (n != NULL) {
		node *next = conq__mpsc_linked_node_of(n->link.next);
		conq__mpsc_linked_free(q, n);
		n = next;
	}
}

conq_mpsc_linked *conq_mpsc_linked_create_with(const conq_allocator *a)
{
	conq_mpsc_linked *q = (conq_mpsc_linked *)conq__alloc_with(
	    a, sizeof(conq_mpsc_linked), CONQ_PAD);
	if (q == NULL)
		return NULL;
	/* The list and its eventcount (q->list.nonempty, take()'s). */
	conq_mpsc_intrusive_init(&q->list);
	if (a != NULL) {
		q->acopy = *a;
		q->a = &q->acopy;
	}
	size_t bytes = conq_spmc_array_memsize(CONQ__MPSC_LINKED_CACHE);
	void *mem = conq__alloc_with(q->a, bytes, CONQ_PAD);
	if (mem == NULL) {
		conq__free_with(a, q, sizeof(conq_mpsc_linked));
		errno = ENOMEM;
		return NULL;
	}
	q->cache = conq_spmc_array_init(mem, CONQ__MPSC_LINKED_CACHE);
	return q;
}

conq_mpsc_linked *conq_mpsc_linked_create(void)
{
	return conq_mpsc_linked_create_with(NULL);
}

void conq_mpsc_linked_destroy(conq_mpsc_linked *q)
{
	if (q == NULL)
		return;
	/* No thread runs: plain walks. The queued nodes, */
	conq__mpsc_linked_free_chain(q, conq__mpsc_linked_node_of(q->list.head.next));
	/* then the cached ones. */
	void *n;
	while ((n = conq_spmc_array_poll(q->cache)) != NULL)
		conq__mpsc_linked_free(q, (node *)n);
	conq__free_with(q->a, q->cache,
			conq_spmc_array_memsize(CONQ__MPSC_LINKED_CACHE));
	conq_allocator acopy = q->acopy;
	conq__free_with(q->a != NULL ? &acopy : NULL, q,
			sizeof(conq_mpsc_linked));
}
