/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/mpsc_linked.h - unbounded multi-producer single-consumer linked
 * queue of `void *`, one library-owned 16-byte node {next, value} per
 * element, with a node cache.
 *
 * The protocol is conq_mpsc_intrusive's (push: exchange tail, then link;
 * pop: from the embedded head, with the CAS of tail back to &head on the
 * last node; see conq/mpsc_intrusive.h for the protocol, its progress and
 * its memory-safety argument), on nodes the library allocates. A popped
 * node is the consumer's at once, so it recycles it:
 *
 * Node cache: a bounded conq_spmc_array of node pointers
 * (CONQ__MPSC_LINKED_CACHE) in which the consumer is the single producer
 * (it offers popped nodes, relaxed_offer: never waits) and the queue's
 * producers are the consumers (offer polls a node from it). malloc (or the
 * caller's allocator) is called only when the cache is empty, free only when
 * it is full, by a batch that could not use its nodes (a producer cannot
 * give nodes back to the cache), and by destroy.
 *
 * Who may call what, concurrently (P = any number of producer threads, C =
 * the one consumer thread, A = any thread). One thread acts as C at a time;
 * handing the role on needs a happens-before edge (mutex, join, ...).
 *
 *   function                          caller  progress           allocates/frees
 *   offer, relaxed_offer, offer_bulk, P       lock-free (the     may allocate;
 *   offer_burst, fill                         cache's CAS) apart bulk/fill may
 *                                             from the allocator free
 *   poll, peek                        C       blocking on a      poll may free
 *                                             bubble (as         (cache full)
 *                                             mpsc_intrusive)
 *   relaxed_poll, relaxed_peek,       C       wait-free apart    may free
 *   poll_burst, drain                         from the allocator
 *   put, put_until                    P       as offer (never    as offer
 *                                             waits: never full;
 *                                             deadline unused)
 *   take, take_until                  C       blocking while     as poll
 *                                             empty (parks on
 *                                             list.nonempty;
 *                                             every push wakes
 *                                             it)
 *   size                              C only  wait-free (amort.  no
 *                                             O(1))
 *   is_empty, capacity                A       wait-free          no
 *   create, create_with               A       (allocator)        allocates
 *   destroy                           A, once no P or C runs     frees all
 *
 * size() walks the nodes: the consumer's only (GROW_CSIZE); is_empty() reads
 * the tail pointer only, capacity() nothing.
 *
 * capacity() is CONQ_UNBOUNDED: offer fails only when no node can be had
 * (false, errno = ENOMEM; the element stays the caller's, the queue stays
 * usable) or for a NULL element (false, EINVAL).
 *
 * Ordering and FIFO: as conq_mpsc_intrusive (release on the link, acquire
 * on its load; linearizable at the exchange: FIFO per producer and total).
 * A node's value is written before its push and read after its pop; the
 * cache orders the consumer's read before the next producer's write (the
 * spmc's release/acquire pair).
 *
 * Memory safety: conq_mpsc_intrusive's argument: a node popped is touched by
 * no producer again, so the consumer may give it to the cache (and through
 * it to another producer) or free it at once. is_empty reads no node.
 *
 * Bounded memory: a drained queue keeps the nodes in the cache (at most
 * CONQ__MPSC_LINKED_CACHE), no more; the dummy head is embedded.
 */
#ifndef CONQ_MPSC_LINKED_H
#define CONQ_MPSC_LINKED_H

#include <errno.h>

#include "conq/common.h"
#include "conq/impl/blocking.h"
#include "conq/mpsc_intrusive.h"
#include "conq/spmc_array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Nodes in the node cache. */
#define CONQ__MPSC_LINKED_CACHE 1024

typedef struct conq_mpsc_linked conq_mpsc_linked;

struct conq__mpsc_linked_node {
	conq_mpsc_intrusive_node link; /* first: a link is its node */
	void *value;
};

struct conq_mpsc_linked {
	/* The protocol: tail, then head blocks. Its eventcount nonempty (in
	 * the tail block) is this queue's: every offer pushes through
	 * conq_mpsc_intrusive_push_chain, which notifies it. */
	conq_mpsc_intrusive list;

	/* Read-mostly: written by create, then only read. */
	const conq_allocator *a; /* &acopy, or NULL: the library's */
	conq_spmc_array *cache;	 /* popped nodes: C offers, P polls */
	conq_allocator acopy;
	CONQ__PAD_AFTER(pad_cold, 2 * sizeof(void *) + sizeof(conq_allocator));
};

/* Allocate a queue (and its cache). `a` NULL: the library's allocator. NULL
 * with errno = ENOMEM. A. */
conq_mpsc_linked *conq_mpsc_linked_create_with(const conq_allocator *a);
conq_mpsc_linked *conq_mpsc_linked_create(void);

/* Free the queue, every node and the cache. Elements are not touched. NULL
 * is a no-op. Once no thread uses the queue. */
void conq_mpsc_linked_destroy(conq_mpsc_linked *q);

/* P, cold: a node from the allocator; NULL with errno = ENOMEM. */
struct conq__mpsc_linked_node *conq__mpsc_linked_alloc(conq_mpsc_linked *q);
/* P or C, cold: give a node back to the allocator. */
void conq__mpsc_linked_free(conq_mpsc_linked *q,
			    struct conq__mpsc_linked_node *n);
/* P, cold: free the chain first -> ... (NULL-terminated). */
void conq__mpsc_linked_free_chain(conq_mpsc_linked *q,
				  struct conq__mpsc_linked_node *first);

/* P: a node from the cache, else a new one (NULL + ENOMEM). */
static inline struct conq__mpsc_linked_node *
conq__mpsc_linked_take(conq_mpsc_linked *q)
{
	/* [MN2] the cache's acquire (conq_spmc_array's, in its poll): pairs
	 * with [MN1]; the consumer's reads of the node happen-before our
	 * writes to it. */
	struct conq__mpsc_linked_node *n =
	    (struct conq__mpsc_linked_node *)conq_spmc_array_poll(q->cache);
	if (CONQ__UNLIKELY(n == NULL))
		n = conq__mpsc_linked_alloc(q);
	return n;
}

/* C: a popped node goes to the cache, or to the allocator. */
static inline void conq__mpsc_linked_retire(conq_mpsc_linked *q,
					    struct conq__mpsc_linked_node *n)
{
	/* [MN1] the cache's release (conq_spmc_array's, in its offer): pairs
	 * with [MN2]; our reads of n before a producer's reuse of it. */
	if (CONQ__UNLIKELY(!conq_spmc_array_relaxed_offer(q->cache, n)))
		conq__mpsc_linked_free(q, n);
}

static inline struct conq__mpsc_linked_node *
conq__mpsc_linked_node_of(conq_mpsc_intrusive_node *l)
{
	return (struct conq__mpsc_linked_node *)(void *)l;
}

/* Offer `e`. True if enqueued; false with errno = EINVAL (e NULL) or ENOMEM
 * (no node). P. Lock-free apart from the allocator; the push itself is
 * wait-free. */
static inline bool conq_mpsc_linked_offer(conq_mpsc_linked *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	struct conq__mpsc_linked_node *n = conq__mpsc_linked_take(q);
	if (CONQ__UNLIKELY(n == NULL))
		return false;
	n->value = e; /* published by [MI2] */
	conq_mpsc_intrusive_push(&q->list, &n->link);
	return true;
}

/* Same as offer (it fails only for want of memory). P. */
static inline bool conq_mpsc_linked_relaxed_offer(conq_mpsc_linked *q, void *e)
{
	return conq_mpsc_linked_offer(q, e);
}

/* C: the value of a popped node, which is then recycled. */
static inline void *conq__mpsc_linked_value(conq_mpsc_linked *q,
					    conq_mpsc_intrusive_node *l)
{
	if (l == NULL)
		return NULL;
	struct conq__mpsc_linked_node *n = conq__mpsc_linked_node_of(l);
	void *e = n->value;
	conq__mpsc_linked_retire(q, n);
	return e;
}

/* Poll: the oldest element, or NULL iff empty. C only. Blocking on a
 * bubble (a producer between its exchange and its link), as
 * conq_mpsc_intrusive_pop. */
static inline void *conq_mpsc_linked_poll(conq_mpsc_linked *q)
{
	return conq__mpsc_linked_value(q, conq_mpsc_intrusive_pop(&q->list));
}

/* Poll that never waits: NULL also before a bubble. C only. Wait-free
 * apart from the allocator. */
static inline void *conq_mpsc_linked_relaxed_poll(conq_mpsc_linked *q)
{
	return conq__mpsc_linked_value(q,
				       conq_mpsc_intrusive_relaxed_pop(&q->list));
}

/* The oldest element without removing it, or NULL iff empty. C only.
 * Blocking on a bubble, as poll. */
static inline void *conq_mpsc_linked_peek(conq_mpsc_linked *q)
{
	conq_mpsc_intrusive_node *l = conq_mpsc_intrusive_peek(&q->list);
	return l != NULL ? conq__mpsc_linked_node_of(l)->value : NULL;
}

/* peek that never waits. C only. Wait-free. */
static inline void *conq_mpsc_linked_relaxed_peek(conq_mpsc_linked *q)
{
	conq_mpsc_intrusive_node *l =
	    conq_mpsc_intrusive_relaxed_peek(&q->list);
	return l != NULL ? conq__mpsc_linked_node_of(l)->value : NULL;
}

/* CONQ_UNBOUNDED. A. */
static inline size_t conq_mpsc_linked_capacity(const conq_mpsc_linked *q)
{
	(void)q;
	return CONQ_UNBOUNDED;
}

/* Elements linked and not polled: exact when no P runs. C ONLY (it walks
 * the nodes; a const queue only for the generic verbs' sake). Amortized
 * O(1), see conq_mpsc_intrusive_size. */
static inline size_t conq_mpsc_linked_size(const conq_mpsc_linked *q)
{
	/* The walk's bookmark is C's own state: not a const object (every
	 * queue comes from create). */
	return conq_mpsc_intrusive_size((conq_mpsc_intrusive *)&q->list);
}

/* True iff no element was in the queue at the moment of its one load. A.
 * Wait-free; reads no node. */
static inline bool conq_mpsc_linked_is_empty(const conq_mpsc_linked *q)
{
	return conq_mpsc_intrusive_is_empty(&q->list);
}

/* P: n nodes holding es[0..n-1], or only the first k < n (ENOMEM) or a NULL
 * element stops it (EINVAL). Returns k, and the chain in first, last. */
static inline size_t conq__mpsc_linked_chain(conq_mpsc_linked *q,
					     void *const *es, size_t n,
					     struct conq__mpsc_linked_node **first,
					     struct conq__mpsc_linked_node **last)
{
	struct conq__mpsc_linked_node *f = NULL, *l = NULL;
	size_t k = 0;
	for (; k < n; k++) {
		if (CONQ__UNLIKELY(es[k] == NULL)) {
			errno = EINVAL;
			break;
		}
		struct conq__mpsc_linked_node *m = conq__mpsc_linked_take(q);
		if (CONQ__UNLIKELY(m == NULL))
			break;
		m->value = es[k];
		if (f == NULL)
			f = m;
		else /* relaxed: published by [MI2] */
			conq__store_relaxed(&l->link.next, &m->link);
		l = m;
	}
	if (l != NULL)
		conq__store_relaxed(&l->link.next,
				    (conq_mpsc_intrusive_node *)NULL);
	*first = f;
	*last = l;
	return k;
}

/* Offer all n elements or none, contiguous (one exchange). Returns n, or 0
 * (n is 0; a NULL among them: errno = EINVAL; no nodes: errno = ENOMEM, the
 * nodes taken are freed). P. Lock-free apart from the allocator (O(n)). */
static inline size_t conq_mpsc_linked_offer_bulk(conq_mpsc_linked *q,
						 void *const *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (CONQ__UNLIKELY(es[i] == NULL)) {
			errno = EINVAL;
			return 0;
		}
	struct conq__mpsc_linked_node *f, *l;
	size_t k = conq__mpsc_linked_chain(q, es, n, &f, &l);
	if (k < n) {
		conq__mpsc_linked_free_chain(q, f);
		return 0;
	}
	if (k)
		conq_mpsc_intrusive_push_chain(&q->list, &f->link, &l->link);
	return k;
}

/* Offer the n elements in order until one is NULL (errno = EINVAL) or no
 * node can be had (errno = ENOMEM); those enqueued are contiguous (one
 * exchange). Returns how many. P. Lock-free apart from the allocator. */
static inline size_t conq_mpsc_linked_offer_burst(conq_mpsc_linked *q,
						  void *const *es, size_t n)
{
	struct conq__mpsc_linked_node *f, *l;
	size_t k = conq__mpsc_linked_chain(q, es, n, &f, &l);
	if (k)
		conq_mpsc_intrusive_push_chain(&q->list, &f->link, &l->link);
	return k;
}

/* Poll up to n elements into out[], oldest first; stops before a bubble,
 * never waits. Returns how many. C only. */
static inline size_t conq_mpsc_linked_poll_burst(conq_mpsc_linked *q,
						 void **out, size_t n)
{
	size_t k = 0;
	void *e;
	while (k < n && (e = conq_mpsc_linked_relaxed_poll(q)) != NULL)
		out[k++] = e;
	return k;
}

/* Hand up to `limit` elements to fn(ctx, e), oldest first; stops when
 * empty or before a bubble, never waits. Each element is polled before fn
 * sees it. Returns how many. C only; fn must not use this queue's consumer
 * side. */
static inline size_t conq_mpsc_linked_drain(conq_mpsc_linked *q,
					    conq_consume_fn fn, void *ctx,
					    size_t limit)
{
	size_t k = 0;
	void *e;
	while (k < limit && (e = conq_mpsc_linked_relaxed_poll(q)) != NULL) {
		fn(ctx, e);
		k++;
	}
	return k;
}

/* Enqueue up to `limit` elements from fn(ctx), asking fn only once a node
 * for its element is in hand; stops early when fn returns NULL (that node
 * is freed) or no node can be had (errno = ENOMEM). Pushed together at the
 * end (one exchange). Returns how many. P; fn must not use this queue's
 * producer side. */
static inline size_t conq_mpsc_linked_fill(conq_mpsc_linked *q,
					   conq_supply_fn fn, void *ctx,
					   size_t limit)
{
	struct conq__mpsc_linked_node *f = NULL, *l = NULL;
	size_t k = 0;
	while (k < limit) {
		struct conq__mpsc_linked_node *m = conq__mpsc_linked_take(q);
		if (CONQ__UNLIKELY(m == NULL))
			break;
		void *e = fn(ctx);
		if (e == NULL) {
			conq__mpsc_linked_free(q, m);
			break;
		}
		m->value = e;
		if (f == NULL)
			f = m;
		else /* relaxed: published by [MI2] */
			conq__store_relaxed(&l->link.next, &m->link);
		l = m;
		k++;
	}
	if (k)
		conq_mpsc_intrusive_push_chain(&q->list, &f->link, &l->link);
	return k;
}

/* put, put_until (offer: never waits), take, take_until (poll that waits
 * while the queue is empty, on the list's eventcount); conq/impl/blocking.h,
 * the table above. */
CONQ__DEFINE_PUT_UNBOUNDED(mpsc_linked)
CONQ__DEFINE_TAKE(mpsc_linked, list.nonempty)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_MPSC_LINKED_H */
