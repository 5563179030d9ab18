/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * liburcu's wfcqueue (urcu/wfcqueue.h): an unbounded, intrusive linked
 * queue; enqueue is wait-free for any number of producers (an xchg on the
 * tail), dequeue needs mutual exclusion among consumers:
 *
 *   urcu:wfcq_mpsc  cds_wfcq_enqueue / __cds_wfcq_dequeue_nonblocking (one
 *                   consumer, no lock; "would block" - a producer between
 *                   its xchg and its link - counts as empty)
 *   urcu:wfcq_mpmc  the same, the dequeue inside cds_wfcq_dequeue_lock()/
 *                   unlock() (wfcqueue's own mutex serialises consumers)
 *
 * The library's functions are called, not inlined: defining _LGPL_SOURCE
 * would compile LGPL code into this BSD file, so every operation is a call
 * into liburcu-common (a few ns; stated in -l).
 *
 * Intrusive nodes. A user embeds the cds_wfcq_node in its own message. Here
 * an element is a {producer id, sequence} word, so each queue keeps, per
 * producer id, a ring of R nodes (R = qCapacity rounded up to a power of
 * two, allocated on the id's first offer) and element (pid, s) travels in
 * node s mod R of ring pid: no allocation per element, as with embedded
 * nodes. Reusing node s mod R is safe because element s - R of the same
 * producer has been dequeued: the queue is FIFO per producer and holds at
 * most qCapacity <= R elements (below).
 *
 * Capacity. wfcqueue has none; the adapter bounds it to exactly qCapacity
 * with two counters on their own CB_PAD blocks: `enq` (claims, a CAS among
 * producers, which the queue alone does not have) with `limit`, a cached
 * deq + capacity refreshed only when the claim reaches it; and `deq`
 * (elements taken, a plain increment and release store by the one consumer
 * or under the dequeue lock). offer fails when qCapacity elements are in.
 */
#include <errno.h>
#include <stdlib.h>

#include <urcu/wfcqueue.h>

#include "loops.h"

typedef struct urcu_node {
	struct cds_wfcq_node node;
	void *e;
} urcu_node;

typedef struct urcu_q {
	CB_ALIGNAS(CB_PAD) struct cds_wfcq_head head; /* consumers' side */
	CB_ALIGNAS(CB_PAD) struct cds_wfcq_tail tail; /* producers' xchg */
	CB_ALIGNAS(CB_PAD) uint64_t enq;              /* claims (producers) */
	uint64_t limit; /* enq may reach it: a past deq + cap */
	CB_ALIGNAS(CB_PAD) uint64_t deq; /* elements taken (consumers) */
	/* Read-only after create, but for ring[pid]: written once, by the
	 * one thread offering as pid, before its first enqueue. */
	CB_ALIGNAS(CB_PAD) uint64_t cap;
	uint64_t rmask; /* R - 1 */
	urcu_node *ring[CB_MAX_THREADS];
} urcu_q;

static void *urcu_create(size_t capacity, size_t *usable)
{
	size_t r = cb_pow2_ceil(capacity == 0 ? 1 : capacity);
	if (capacity == 0 || r == 0 || r > (size_t)1 << 31) {
		errno = EINVAL;
		return NULL;
	}
	urcu_q *q = (urcu_q *)cb_alloc_aligned(sizeof *q);
	if (q == NULL)
		return NULL;
	cds_wfcq_init(&q->head, &q->tail);
	q->cap = capacity;
	q->rmask = r - 1;
	q->limit = capacity;
	*usable = capacity;
	return q;
}

static void urcu_destroy(void *p)
{
	urcu_q *q = (urcu_q *)p;
	if (q == NULL)
		return;
	cds_wfcq_destroy(&q->head, &q->tail);
	for (unsigned k = 0; k < CB_MAX_THREADS; k++)
		cb_free_aligned(q->ring[k]);
	cb_free_aligned(q);
}

/* Claim room for one element; false when qCapacity are in. */
static inline bool urcu_claim(urcu_q *q)
{
	uint64_t c = conq__load_relaxed(&q->enq);
	do {
		/* acquire: pairs with the release store of limit below (by
		 * whichever producer refreshed it), which carries the
		 * consumers' release of deq: the nodes of the elements
		 * taken are free to reuse. */
		uint64_t lim = conq__load_acquire(&q->limit);
		if (CONQ__UNLIKELY(c >= lim)) {
			/* acquire: pairs with the consumer's release store of
			 * deq after it read the element out of its node. */
			lim = conq__load_acquire(&q->deq) + q->cap;
			/* release: pairs with the acquire above in other
			 * producers. A stale value is never above the truth
			 * (deq only grows): at worst a refresh too many. */
			conq__store_release(&q->limit, lim);
			if (c >= lim)
				return false;
		}
	} while (!conq__cas_weak_relaxed(&q->enq, &c, c + 1u));
	return true;
}

static inline bool urcu_offer(urcu_q *q, void *e)
{
	const unsigned pid = cb_elem_pid(e);
	urcu_node *ring = q->ring[pid];
	if (CONQ__UNLIKELY(ring == NULL)) {
		ring = (urcu_node *)cb_alloc_aligned((q->rmask + 1u) *
						     sizeof *ring);
		if (ring == NULL)
			return false;
		q->ring[pid] = ring;
	}
	if (!urcu_claim(q))
		return false;
	urcu_node *n = &ring[cb_elem_seq(e) & q->rmask];
	cds_wfcq_node_init(&n->node);
	n->e = e;
	/* wfcqueue orders the node's content before its publication. */
	cds_wfcq_enqueue(&q->head, &q->tail, &n->node);
	return true;
}

/* One consumer at a time (the caller's, or under the dequeue lock). */
static inline void *urcu_take(urcu_q *q)
{
	struct cds_wfcq_node *n =
		__cds_wfcq_dequeue_nonblocking(&q->head, &q->tail);
	if (n == NULL || n == CDS_WFCQ_WOULDBLOCK)
		return NULL;
	void *e = ((urcu_node *)n)->e;
	/* release: pairs with urcu_claim()'s acquire of deq; our read of
	 * the node is done before a producer reuses it. */
	conq__store_release(&q->deq, conq__load_relaxed(&q->deq) + 1u);
	return e;
}

static inline void *urcu_poll_sc(urcu_q *q)
{
	return urcu_take(q);
}

static inline void *urcu_poll_mc(urcu_q *q)
{
	cds_wfcq_dequeue_lock(&q->head, &q->tail);
	void *e = urcu_take(q);
	cds_wfcq_dequeue_unlock(&q->head, &q->tail);
	return e;
}

#define URCU_ADAPTER(NAME, POLL, CONTRACT, DESC)                               \
	static bool urcu_##NAME##_offer_g(void *q, void *e)                    \
	{                                                                      \
		return urcu_offer((urcu_q *)q, e);                             \
	}                                                                      \
	static void *urcu_##NAME##_poll_g(void *q)                             \
	{                                                                      \
		return POLL((urcu_q *)q);                                      \
	}                                                                      \
	CB_DEFINE_LOOPS(urcu_##NAME, urcu_q, urcu_offer, POLL)                 \
	extern const cb_adapter cb_adapter_urcu_##NAME;                        \
	const cb_adapter cb_adapter_urcu_##NAME = {                            \
		.name = "urcu:" #NAME,                                         \
		.family = "urcu",                                              \
		.desc = DESC,                                                  \
		.contract = CONTRACT,                                          \
		.kind = CB_KIND_PEER,                                          \
		.create = urcu_create,                                         \
		.destroy = urcu_destroy,                                       \
		.offer = urcu_##NAME##_offer_g,                                \
		.poll = urcu_##NAME##_poll_g,                                  \
		.flush = NULL,                                                 \
		.loops = &urcu_##NAME##_loops,                                 \
		.weak_order = NULL,                                            \
	};

URCU_ADAPTER(wfcq_mpsc, urcu_poll_sc, CB_MPSC,
	     "liburcu wfcqueue (unbounded, intrusive; library calls): "
	     "enqueue / __dequeue_nonblocking; bounded to qCapacity by the "
	     "adapter's counters, nodes reused per producer")
URCU_ADAPTER(wfcq_mpmc, urcu_poll_mc, CB_MPMC,
	     "liburcu wfcqueue, dequeue under its dequeue lock; bounded to "
	     "qCapacity by the adapter's counters, nodes reused per producer")

/*
 * urcu:wfcq_mpsc_unbounded (issue 11's peers that grow): wfcqueue as a user
 * without a node pool runs it, unbounded: offer mallocs a node for the
 * element, poll frees it (one consumer, no lock). No counters, no capacity.
 */
typedef struct urcu_uq {
	CB_ALIGNAS(CB_PAD) struct cds_wfcq_head head; /* the consumer's */
	CB_ALIGNAS(CB_PAD) struct cds_wfcq_tail tail; /* producers' xchg */
} urcu_uq;

static void *urcu_u_create(size_t capacity, size_t *usable)
{
	(void)capacity;
	urcu_uq *q = (urcu_uq *)cb_alloc_aligned(sizeof *q);
	if (q == NULL)
		return NULL;
	cds_wfcq_init(&q->head, &q->tail);
	*usable = SIZE_MAX;
	return q;
}

static inline void *urcu_u_poll(urcu_uq *q)
{
	struct cds_wfcq_node *n =
		__cds_wfcq_dequeue_nonblocking(&q->head, &q->tail);
	if (n == NULL || n == CDS_WFCQ_WOULDBLOCK)
		return NULL;
	void *e = ((urcu_node *)n)->e;
	free(n);
	return e;
}

static void urcu_u_destroy(void *p)
{
	urcu_uq *q = (urcu_uq *)p;
	if (q == NULL)
		return;
	while (urcu_u_poll(q) != NULL)
		;
	cds_wfcq_destroy(&q->head, &q->tail);
	cb_free_aligned(q);
}

static inline bool urcu_u_offer(urcu_uq *q, void *e)
{
	urcu_node *n = (urcu_node *)malloc(sizeof *n);
	if (n == NULL)
		return false;
	cds_wfcq_node_init(&n->node);
	n->e = e;
	/* wfcqueue orders the node's content before its publication. */
	cds_wfcq_enqueue(&q->head, &q->tail, &n->node);
	return true;
}

static bool urcu_u_offer_g(void *q, void *e)
{
	return urcu_u_offer((urcu_uq *)q, e);
}

static void *urcu_u_poll_g(void *q)
{
	return urcu_u_poll((urcu_uq *)q);
}

CB_DEFINE_LOOPS(urcu_u, urcu_uq, urcu_u_offer, urcu_u_poll)

extern const cb_adapter cb_adapter_urcu_wfcq_mpsc_unbounded;
const cb_adapter cb_adapter_urcu_wfcq_mpsc_unbounded = {
	.name = "urcu:wfcq_mpsc_unbounded",
	.family = "urcu",
	.desc = "liburcu wfcqueue, unbounded: a malloc'd node per element "
		"(freed by poll), enqueue / __dequeue_nonblocking",
	.contract = CB_MPSC,
	.kind = CB_KIND_PEER,
	.create = urcu_u_create,
	.destroy = urcu_u_destroy,
	.offer = urcu_u_offer_g,
	.poll = urcu_u_poll_g,
	.flush = NULL,
	.loops = &urcu_u_loops,
	.weak_order = NULL,
	.variant = true,
};
