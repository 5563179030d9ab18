/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq_mpsc_intrusive (conq/mpsc_intrusive.h): the unbounded intrusive MPSC
 * queue, strict push/pop, driven as urcu:wfcq_mpsc is (adapter_urcu.c), so
 * the two compare like for like:
 *
 * Intrusive nodes. An element is a {producer id, sequence} word, so each
 * queue keeps, per producer id, a ring of R nodes (R = qCapacity rounded up
 * to a power of two, allocated on the id's first offer); the producer's
 * n-th element travels in node n mod R of its ring: no allocation per
 * element, as with embedded nodes.
 *
 * Capacity, without a CAS: node n mod R of producer pid may be reused once
 * the consumer has taken that producer's element n - R (the queue is FIFO
 * per producer). The consumer keeps per-producer taken counters (it knows
 * pid from the element; a plain increment and a release store, one
 * consumer), each on its own CB_PAD block; the producer caches its counter
 * and refreshes it with an acquire load only when its ring looks full.
 * offer fails (a failed offer, as the harness counts it) when the
 * producer's ring is full: each producer may have up to R elements in, so
 * with P producers the queue holds up to P x R. No single figure bounds it,
 * so the adapter reports it unbounded (usable = SIZE_MAX, as the linked
 * queues' CONQ_UNBOUNDED), and the harness skips its full/window checks.
 */
#include <errno.h>
#include <stdlib.h>

#include "conq/mpsc_intrusive.h"
#include "loops.h"

typedef struct ci_node {
	conq_mpsc_intrusive_node node; /* first: a node is its ci_node */
	void *e;
} ci_node;

typedef struct ci_prod {
	/* Written only by the thread offering as this pid. */
	CB_ALIGNAS(CB_PAD) ci_node *ring;
	uint64_t sent; /* elements offered */
	uint64_t seen; /* a past value of taken */
} ci_prod;

typedef struct ci_taken {
	/* Written only by the consumer. */
	CB_ALIGNAS(CB_PAD) uint64_t taken;
} ci_taken;

typedef struct ci_q {
	conq_mpsc_intrusive q; /* aligned to CONQ_PAD: its own blocks */
	CB_ALIGNAS(CB_PAD) uint64_t rmask; /* R - 1; read-only */
	ci_prod prod[CB_MAX_THREADS];
	ci_taken taken[CB_MAX_THREADS];
} ci_q;

static void *ci_create(size_t capacity, size_t *usable)
{
	size_t r = cb_pow2_ceil(capacity == 0 ? 1 : capacity);
	if (capacity == 0 || r == 0 || r > (size_t)1 << 31) {
		errno = EINVAL;
		return NULL;
	}
	ci_q *q = (ci_q *)cb_alloc_aligned(sizeof *q);
	if (q == NULL)
		return NULL;
	conq_mpsc_intrusive_init(&q->q);
	q->rmask = r - 1;
	*usable = SIZE_MAX;
	return q;
}

static void ci_destroy(void *p)
{
	ci_q *q = (ci_q *)p;
	if (q == NULL)
		return;
	for (unsigned k = 0; k < CB_MAX_THREADS; k++)
		cb_free_aligned(q->prod[k].ring);
	cb_free_aligned(q);
}

static inline bool ci_offer(ci_q *q, void *e)
{
	ci_prod *pr = &q->prod[cb_elem_pid(e)];
	if (CONQ__UNLIKELY(pr->sent - pr->seen > q->rmask)) {
		/* acquire: pairs with the consumer's release of taken, after
		 * it read the element out of its node: free to reuse. */
		pr->seen = conq__load_acquire(&q->taken[cb_elem_pid(e)].taken);
		if (pr->sent - pr->seen > q->rmask)
			return false;
	}
	if (CONQ__UNLIKELY(pr->ring == NULL)) {
		pr->ring = (ci_node *)cb_alloc_aligned((q->rmask + 1u) *
						       sizeof(ci_node));
		if (pr->ring == NULL)
			return false;
	}
	ci_node *n = &pr->ring[pr->sent & q->rmask];
	n->e = e;
	pr->sent++;
	/* push's [MI1]/[MI2] order the node's content before it is seen. */
	conq_mpsc_intrusive_push(&q->q, &n->node);
	return true;
}

static inline void *ci_poll(ci_q *q)
{
	conq_mpsc_intrusive_node *n = conq_mpsc_intrusive_pop(&q->q);
	if (n == NULL)
		return NULL;
	void *e = ((ci_node *)(void *)n)->e;
	uint64_t *t = &q->taken[cb_elem_pid(e)].taken;
	/* release: pairs with ci_offer's acquire; our read of the node is
	 * done before its producer reuses it. */
	conq__store_release(t, conq__load_relaxed(t) + 1u);
	return e;
}

static bool ci_offer_g(void *q, void *e)
{
	return ci_offer((ci_q *)q, e);
}

static void *ci_poll_g(void *q)
{
	return ci_poll((ci_q *)q);
}

CB_DEFINE_LOOPS(conq_mpsc_intrusive, ci_q, ci_offer, ci_poll)

extern const cb_adapter cb_adapter_conq_mpsc_intrusive;
const cb_adapter cb_adapter_conq_mpsc_intrusive = {
	.name = "conq:mpsc_intrusive",
	.family = "conq",
	.desc = "conq_mpsc_intrusive: unbounded intrusive MPSC list (push/pop); "
		"nodes reused per producer, bounded to R per producer by the "
		"consumer's taken counters",
	.contract = CB_MPSC,
	.kind = CB_KIND_OWN,
	.create = ci_create,
	.destroy = ci_destroy,
	.offer = ci_offer_g,
	.poll = ci_poll_g,
	.flush = NULL,
	.loops = &conq_mpsc_intrusive_loops,
};
