/* SPDX-License-Identifier: BSD-2-Clause */
/* Cold paths of conq_spsc_linked: create, destroy, node allocation. */
#include <errno.h>

#include "conq/spsc_linked.h"
#include "conq/impl/testing.h"
#include "internal.h"

typedef struct conq__spsc_linked_node node;

/* A slab: the live count on its own line (the consumer's), then the nodes
 * (the producer writes them, the consumer reads them). */
struct conq__spsc_linked_slab {
	/* Nodes not dropped yet, of the CONQ__SPSC_LINKED_SLAB: set by P
	 * before it hands out the first node (published with that node's
	 * link, [SN1]); from then on C's alone (conq__spsc_linked_free, and
	 * destroy). Plain. */
	uint64_t live;
	char pad[CONQ_CACHE_LINE - sizeof(uint64_t)];
	node nodes[CONQ__SPSC_LINKED_SLAB];
};

static void slab_free(conq_spsc_linked *q, struct conq__spsc_linked_slab *s)
{
	conq__free_with(q->a, s, sizeof *s);
}

struct conq__spsc_linked_node *conq__spsc_linked_alloc(conq_spsc_linked *q)
{
	/* A used-up slab (pnext == CONQ__SPSC_LINKED_SLAB) is not touched:
	 * C frees it with its last node. */
	struct conq__spsc_linked_slab *s = q->pslab;
	if (s == NULL || q->pnext == CONQ__SPSC_LINKED_SLAB) {
		s = (struct conq__spsc_linked_slab *)conq__alloc_with(
		    q->a, sizeof *s, CONQ_CACHE_LINE);
		if (s == NULL)
			return NULL; /* errno = ENOMEM; the old slab stays */
		/* The old slab is used up: it lives on in its nodes. */
		s->live = CONQ__SPSC_LINKED_SLAB;
		q->pslab = s;
		q->pnext = 0;
	}
	node *n = &s->nodes[q->pnext++];
	n->slab = s;
	return n;
}

void conq__spsc_linked_free(conq_spsc_linked *q, node *n)
{
	struct conq__spsc_linked_slab *s = n->slab;
	if (--s->live == 0)
		slab_free(q, s);
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
	/* Nobody ever puts or takes on the cache: its eventcounts need not
	 * make its notifies pay an RMW where membarrier is missing. */
	conq__eventcount_unwaited(&q->cache->nonempty);
	conq__eventcount_unwaited(&q->cache->nonfull);
	q->head = q->tail = conq__spsc_linked_alloc(q);
	if (q->head == NULL)
		goto fail;
	conq_eventcount_init(&q->nonempty, 0);
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
	/* The current slab's nodes not handed out yet are dropped first: the
	 * slab is then freed with its last node, below (or now, if every node
	 * it handed out is gone already). */
	/* (A used-up slab may be freed already: not touched.) */
	struct conq__spsc_linked_slab *s = q->pslab;
	if (s != NULL && q->pnext < CONQ__SPSC_LINKED_SLAB) {
		s->live -= CONQ__SPSC_LINKED_SLAB - q->pnext;
		if (s->live == 0)
			slab_free(q, s);
	}
	free_list(q, q->head); /* the dummy node and every queued node */
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
