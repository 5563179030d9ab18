/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/spsc_linked.h - unbounded single-producer single-consumer linked
 * queue, one 24-byte node {next, value, slab} per element, with a node
 * cache and slab allocation.
 *
 * The Vyukov/FastFlow unbounded SPSC list: the consumer keeps a dummy node
 * `head` whose successor is the oldest element; the producer keeps `tail`,
 * the last node. offer links a node after tail (release); poll reads
 * head->next (acquire), takes its value, and the old dummy node is retired: that
 * node becomes the new dummy node's predecessor no thread will read again.
 *
 * Node cache: retired nodes go into an embedded bounded conq_spsc_array of
 * node pointers (capacity CONQ__SPSC_LINKED_CACHE) in which the consumer is
 * the producer and the producer the consumer; offer takes its node from
 * there. When the cache is empty the producer takes the next node of its
 * slab, a block of CONQ__SPSC_LINKED_SLAB nodes it allocates at once (so
 * malloc, or the caller's allocator, runs once per that many nodes, and
 * fresh nodes are consecutive in memory, which the consumer's reads
 * stream through). A node the cache has no room for is dropped: its slab's
 * count of live nodes (the consumer's alone, after the producer's
 * initial store, published by the link of the slab's first node) goes
 * down, and the slab is freed when it reaches 0.
 *
 * Counters: the producer index pidx (elements offered) and the consumer
 * index cidx (elements polled) sit on their own padded blocks and are
 * released as conq_spsc_array's, so size() and is_empty() are O(1) from any
 * thread and never read a node.
 *
 * Who may call what, concurrently (P = the one producer thread, C = the one
 * consumer thread, A = any thread). One thread acts as P at a time and one
 * as C; handing a role on needs a happens-before edge (mutex, join, ...).
 *
 *   function                            caller  progress        allocates/frees
 *   offer, relaxed_offer, offer_bulk,   P       wait-free       may allocate
 *   offer_burst, fill                           (apart from the (cache empty);
 *                                               allocator)      bulk may free
 *   poll, relaxed_poll, poll_burst,     C       wait-free       may free
 *   drain                                       (apart from the (cache full)
 *                                               allocator)
 *   peek, relaxed_peek                  C       wait-free       no
 *   put, put_until                      P       as offer (never as offer
 *                                               waits)
 *   take, take_until                    C       blocking        as poll
 *   size, is_empty, capacity            A       lock-free (size no
 *                                               retries while C
 *                                               moves)
 *   create, create_with                 A       (allocator)     allocates
 *   destroy                             A, once no P or C runs  frees all
 *
 * capacity() is CONQ_UNBOUNDED: offer fails only when no node can be had
 * (false, errno = ENOMEM; the element stays the caller's, the queue stays
 * usable) or for a NULL element (false, EINVAL). The relaxed variants are
 * the strict ones (SPSC: no bubble).
 *
 * Ordering: everything the producer wrote before a successful offer of `e`
 * happens-before everything the consumer does after the poll that returns
 * `e` ([SN1] release of the link, [SN2] acquire of it).
 *
 * Memory safety: the producer touches only tail (its last node) and nodes it
 * took from the cache or the allocator; the consumer touches only head and
 * head->next. A node leaves the consumer (retired) only once it is the dummy node
 * and its successor is linked: the producer's last access to it was that
 * link, which the consumer has acquired ([SN2]), and tail has moved past it.
 * The cache hands it to the producer with a release/acquire pair
 * (conq_spsc_array's [S1]/[S2]), so the consumer's reads of it happen-before
 * the producer's rewrites. size/is_empty read the two counters only.
 *
 * Bounded memory: a drained queue keeps its dummy node, the nodes in the cache
 * (at most CONQ__SPSC_LINKED_CACHE), the producer's spares (nodes a batch
 * took but could not use: at most the largest failed offer_bulk or one for
 * fill) and the slabs these nodes live in (a node pins its slab: at most
 * CONQ__SPSC_LINKED_CACHE slabs of CONQ__SPSC_LINKED_SLAB nodes, about
 * 200 KiB, when each cached node is from another slab, as after many small
 * bursts, each leaving its last dummy node in the cache), plus the producer's
 * current slab.
 */
#ifndef CONQ_SPSC_LINKED_H
#define CONQ_SPSC_LINKED_H

#include <errno.h>

#include "conq/common.h"
#include "conq/impl/blocking.h"
#include "conq/spsc_array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Nodes in the node cache. */
#define CONQ__SPSC_LINKED_CACHE 64
/* Nodes per slab (one allocation). */
#define CONQ__SPSC_LINKED_SLAB 128

typedef struct conq_spsc_linked conq_spsc_linked;

struct conq__spsc_linked_slab;

struct conq__spsc_linked_node {
	struct conq__spsc_linked_node *next;
	void *value;
	struct conq__spsc_linked_slab *slab; /* the block it lives in */
};

struct conq_spsc_linked {
	/* Read-mostly: written by create, then only read. */
	const conq_allocator *a; /* &acopy, or NULL: the library's */
	conq_spsc_array *cache;	 /* retired nodes: C offers, P polls */
	conq_allocator acopy;
	CONQ__PAD_AFTER(pad_cold, 2 * sizeof(void *) + sizeof(conq_allocator));

	/* Producer-hot: written only by P. */
	conq__idx_t pidx;		      /* elements offered; size() */
	struct conq__spsc_linked_node *tail;  /* the last node */
	struct conq__spsc_linked_node *spare; /* P's unused nodes, a list */
	struct conq__spsc_linked_slab *pslab; /* P's slab being handed out */
	uint64_t pnext;			      /* its next node to hand out */
	conq_eventcount nonempty; /* take() waits here; P notifies */
	CONQ__PAD_AFTER(pad_prod, CONQ__IDX_FIELDS(1) + 3 * sizeof(void *) +
				      2 * sizeof(uint64_t));

	/* Consumer-hot: written only by C. */
	conq__idx_t cidx;		     /* elements polled; size() */
	struct conq__spsc_linked_node *head; /* the dummy node */
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(1) + sizeof(void *));
};

CONQ__STATIC_ASSERT(offsetof(conq_spsc_linked, pidx) % CONQ_PAD == 0,
		    "producer fields start a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_spsc_linked, cidx) % CONQ_PAD == 0,
		    "consumer fields start a padded block");

/* Allocate a queue (and its dummy node and cache). `a` NULL: the library's
 * allocator. NULL with errno = ENOMEM. A. */
conq_spsc_linked *conq_spsc_linked_create_with(const conq_allocator *a);
conq_spsc_linked *conq_spsc_linked_create(void);

/* Free the queue, every node and the cache. Elements are not touched. NULL
 * is a no-op. Once no thread uses the queue. */
void conq_spsc_linked_destroy(conq_spsc_linked *q);

/* P, cold: the next node of P's slab (a new slab when it is used up);
 * NULL with errno = ENOMEM. */
struct conq__spsc_linked_node *conq__spsc_linked_alloc(conq_spsc_linked *q);
/* C, cold: drop a node the cache has no room for: its slab's live count
 * goes down, and the slab goes back to the allocator at 0. */
void conq__spsc_linked_free(conq_spsc_linked *q,
			    struct conq__spsc_linked_node *n);

/* P: a node to fill: a spare, else one from the cache, else a new one. */
static inline struct conq__spsc_linked_node *
conq__spsc_linked_take(conq_spsc_linked *q)
{
	struct conq__spsc_linked_node *n = q->spare;
	if (CONQ__UNLIKELY(n != NULL)) {
		q->spare = n->next;
		return n;
	}
	/* The cache's [S2] acquire (pairs with its [S1] in retire): the
	 * consumer's reads of the node happen-before our writes to it. */
	n = (struct conq__spsc_linked_node *)conq_spsc_array_poll(q->cache);
	if (CONQ__UNLIKELY(n == NULL))
		n = conq__spsc_linked_alloc(q);
	return n;
}

/* P: keep nodes first..last (linked) for later offers. */
static inline void conq__spsc_linked_keep(conq_spsc_linked *q,
					  struct conq__spsc_linked_node *first,
					  struct conq__spsc_linked_node *last)
{
	last->next = q->spare;
	q->spare = first;
}

/* P: append the chain first..last of n filled nodes and publish it. */
static inline void conq__spsc_linked_link(conq_spsc_linked *q,
					  struct conq__spsc_linked_node *first,
					  struct conq__spsc_linked_node *last,
					  uint64_t n)
{
	/* relaxed: last->next is read by the consumer only after [SN1]. */
	conq__store_relaxed(&last->next, (struct conq__spsc_linked_node *)NULL);
	/* [SN1] release: publishes the chain (values, links) and everything
	 * the producer wrote before; pairs with [SN2]. Our last access to the
	 * old tail. */
	conq__store_release(&q->tail->next, first);
	q->tail = last;
	/* [SN3] release: pairs with [SN5] (size/is_empty). */
	conq__store_release(&q->pidx, conq__idx_add(q->pidx, n));
	/* After [SN1]: every publication (offer, offer_bulk, offer_burst,
	 * fill) is one link of its whole chain, so once per call. */
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
}

/* Offer `e`. True if enqueued; false with errno = EINVAL (e NULL) or ENOMEM
 * (no node). P only. Wait-free apart from the allocator. */
static inline bool conq_spsc_linked_offer(conq_spsc_linked *q, void *e)
{
	if (CONQ__UNLIKELY(e == NULL)) {
		errno = EINVAL;
		return false;
	}
	struct conq__spsc_linked_node *n = conq__spsc_linked_take(q);
	if (CONQ__UNLIKELY(n == NULL))
		return false;
	CONQ__TEST_PAUSE(); /* a recycled node in hand */
	n->value = e;
	conq__spsc_linked_link(q, n, n, 1);
	return true;
}

/* Same as offer. P only. */
static inline bool conq_spsc_linked_relaxed_offer(conq_spsc_linked *q, void *e)
{
	return conq_spsc_linked_offer(q, e);
}

/* C: the node of the oldest element, or NULL iff empty. */
static inline struct conq__spsc_linked_node *
conq__spsc_linked_first(const conq_spsc_linked *q)
{
	/* [SN2] acquire: pairs with [SN1]; the node's value and everything
	 * the producer wrote before are visible. */
	return conq__load_acquire(&q->head->next);
}

/* C: the old dummy node goes to the cache, or to the allocator if it is full. */
static inline void conq__spsc_linked_retire(conq_spsc_linked *q,
					    struct conq__spsc_linked_node *h)
{
	/* The cache's [S1] release: our reads of h before the producer's
	 * reuse of it. */
	if (CONQ__UNLIKELY(!conq_spsc_array_offer(q->cache, h)))
		conq__spsc_linked_free(q, h);
}

/* Poll: the oldest element, or NULL iff empty. C only. Wait-free apart
 * from the allocator (free, when the cache is full). */
static inline void *conq_spsc_linked_poll(conq_spsc_linked *q)
{
	struct conq__spsc_linked_node *h = q->head;
	struct conq__spsc_linked_node *n = conq__spsc_linked_first(q);
	if (n == NULL)
		return NULL;
	void *e = n->value;
	q->head = n;
	CONQ__TEST_PAUSE(); /* the old dummy node, about to be recycled */
	conq__spsc_linked_retire(q, h);
	/* [SN4] release: pairs with [SN5]. */
	conq__store_release(&q->cidx, conq__idx_add(q->cidx, 1));
	return e;
}

/* Same as poll. C only. */
static inline void *conq_spsc_linked_relaxed_poll(conq_spsc_linked *q)
{
	return conq_spsc_linked_poll(q);
}

/* The oldest element without removing it, or NULL iff empty. C only. */
static inline void *conq_spsc_linked_peek(conq_spsc_linked *q)
{
	struct conq__spsc_linked_node *n = conq__spsc_linked_first(q);
	return n != NULL ? n->value : NULL;
}

/* Same as peek. C only. */
static inline void *conq_spsc_linked_relaxed_peek(conq_spsc_linked *q)
{
	return conq_spsc_linked_peek(q);
}

/* CONQ_UNBOUNDED. A. */
static inline size_t conq_spsc_linked_capacity(const conq_spsc_linked *q)
{
	(void)q;
	return CONQ_UNBOUNDED;
}

/* Elements in the queue: exact when neither P nor C runs, otherwise some
 * value the queue held during the call. A. Lock-free (retries while C
 * moves). Reads the counters only. */
static inline size_t conq_spsc_linked_size(const conq_spsc_linked *q)
{
	/* [SN5] acquire (all three): pair with [SN4] and [SN3]. */
	return conq__indexed_size(&q->cidx, &q->pidx, (uint64_t)SIZE_MAX);
}

/* True if the queue held no element at some moment during the call. From
 * C, false means the next poll succeeds. A. Wait-free. */
static inline bool conq_spsc_linked_is_empty(const conq_spsc_linked *q)
{
	/* [SN5] acquire: pairs with [SN4], then [SN3]. */
	conq__idx_t c = conq__load_acquire(&q->cidx);
	return conq__idx_diff(conq__load_acquire(&q->pidx), c) <= 0;
}

/* Offer all n elements or none. Returns n, or 0 (n is 0; a NULL among them:
 * errno = EINVAL; no nodes: errno = ENOMEM, the nodes taken are kept as
 * spares). P only. Wait-free apart from the allocator (O(n)). */
static inline size_t conq_spsc_linked_offer_bulk(conq_spsc_linked *q,
						 void *const *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (CONQ__UNLIKELY(es[i] == NULL)) {
			errno = EINVAL;
			return 0;
		}
	if (n == 0)
		return 0;
	struct conq__spsc_linked_node *first = NULL, *last = NULL;
	for (size_t i = 0; i < n; i++) {
		struct conq__spsc_linked_node *m = conq__spsc_linked_take(q);
		if (CONQ__UNLIKELY(m == NULL)) {
			if (first != NULL)
				conq__spsc_linked_keep(q, first, last);
			return 0;
		}
		m->value = es[i];
		if (first == NULL)
			first = m;
		else
			last->next = m; /* published by [SN1] */
		last = m;
	}
	conq__spsc_linked_link(q, first, last, n);
	return n;
}

/* Offer the n elements in order until one is NULL (errno = EINVAL) or no
 * node can be had (errno = ENOMEM). Returns how many. P only. Wait-free
 * apart from the allocator (O(n)). */
static inline size_t conq_spsc_linked_offer_burst(conq_spsc_linked *q,
						  void *const *es, size_t n)
{
	struct conq__spsc_linked_node *first = NULL, *last = NULL;
	size_t k = 0;
	for (; k < n; k++) {
		if (CONQ__UNLIKELY(es[k] == NULL)) {
			errno = EINVAL;
			break;
		}
		struct conq__spsc_linked_node *m = conq__spsc_linked_take(q);
		if (CONQ__UNLIKELY(m == NULL))
			break;
		m->value = es[k];
		if (first == NULL)
			first = m;
		else
			last->next = m; /* published by [SN1] */
		last = m;
	}
	if (k)
		conq__spsc_linked_link(q, first, last, k);
	return k;
}

/* Poll up to n elements into out[], oldest first. Returns how many (0 iff
 * empty or n is 0). C only. Wait-free apart from the allocator. */
static inline size_t conq_spsc_linked_poll_burst(conq_spsc_linked *q,
						 void **out, size_t n)
{
	size_t k = 0;
	void *e;
	while (k < n && (e = conq_spsc_linked_poll(q)) != NULL)
		out[k++] = e;
	return k;
}

/* Hand up to `limit` elements to fn(ctx, e), oldest first; stops early when
 * empty. Each element is polled before fn sees it. Returns how many. C
 * only; fn must not use this queue's consumer side. */
static inline size_t conq_spsc_linked_drain(conq_spsc_linked *q,
					    conq_consume_fn fn, void *ctx,
					    size_t limit)
{
	size_t k = 0;
	void *e;
	while (k < limit && (e = conq_spsc_linked_poll(q)) != NULL) {
		fn(ctx, e);
		k++;
	}
	return k;
}

/* Enqueue up to `limit` elements from fn(ctx), asking fn only once a node
 * for its element is in hand; stops early when fn returns NULL (the node is
 * kept as a spare) or no node can be had (errno = ENOMEM). Published
 * together at the end (one release). Returns how many. P only; fn must not
 * use this queue's producer side. */
static inline size_t conq_spsc_linked_fill(conq_spsc_linked *q,
					   conq_supply_fn fn, void *ctx,
					   size_t limit)
{
	struct conq__spsc_linked_node *first = NULL, *last = NULL;
	size_t k = 0;
	while (k < limit) {
		struct conq__spsc_linked_node *m = conq__spsc_linked_take(q);
		if (CONQ__UNLIKELY(m == NULL))
			break;
		void *e = fn(ctx);
		if (e == NULL) {
			conq__spsc_linked_keep(q, m, m);
			break;
		}
		m->value = e;
		if (first == NULL)
			first = m;
		else
			last->next = m; /* published by [SN1] */
		last = m;
		k++;
	}
	if (k)
		conq__spsc_linked_link(q, first, last, k);
	return k;
}

/* put, put_until (P): offer (never waits; false with errno = EINVAL or
 * ENOMEM). take, take_until (C): poll, waiting while empty; NULL only with
 * errno = ETIMEDOUT. conq/impl/blocking.h. No nonfull: nobody waits for
 * room. */
CONQ__DEFINE_PUT_UNBOUNDED(spsc_linked)
CONQ__DEFINE_TAKE(spsc_linked, nonempty)

#ifdef __cplusplus
}
#endif

#endif /* CONQ_SPSC_LINKED_H */
