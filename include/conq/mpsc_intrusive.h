/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/mpsc_intrusive.h - unbounded multi-producer single-consumer intrusive
 * queue of caller-embedded nodes. Nothing is allocated per element.
 *
 * The caller embeds a conq_mpsc_intrusive_node in each of its objects and
 * pushes the node; pop hands the node back (container_of is the caller's).
 * The protocol (the one of liburcu's wfcqueue and of the Linux llist, written
 * here from the description, not from their code):
 *
 *  - the queue holds an embedded dummy node `head` (on the consumer's padded
 *    block) and a pointer `tail` to the last node (on the producers' block);
 *    empty: head.next == NULL and tail == &head;
 *  - push(node): node->next = NULL; prev = exchange(tail, node); then link
 *    prev->next = node. Between the exchange and the link the node is in the
 *    queue but not reachable from head: a "bubble";
 *  - pop: node = head.next. If node->next is NULL, node may be the last one:
 *    the consumer clears head.next, then CASes tail from node back to &head.
 *    Success: the queue is empty and node is ours. Failure: a producer has
 *    exchanged tail away from node and will link node->next; wait for the
 *    link (strict) and move head.next on to it. A strict pop behind a
 *    stream first watches a NULL link for a while (the chase, below), so
 *    that a consumer keeping up with the producers does not CAS the line
 *    they exchange on every element.
 *
 * Who may call what, concurrently (P = any number of producer threads, C =
 * the one consumer thread, A = any thread). At most one thread acts as C at
 * a time; handing the role on needs a happens-before edge (mutex, join...).
 *
 *   function                           caller  progress
 *   push, push_chain                   P       wait-free (one exchange, one
 *                                              store, and the wake's load;
 *                                              a system call only when a
 *                                              take() waits)
 *   pop, peek                          C       blocking on a bubble: they
 *                                              wait (spin, then yield) for a
 *                                              producer between its exchange
 *                                              and its link
 *   relaxed_pop, relaxed_peek,         C       wait-free (NULL instead of
 *   pop_burst, drain, size                     waiting; size: amortized
 *                                              O(1) per node pushed)
 *   take, take_until                   C       blocking while empty: pop,
 *                                              parking on the nonempty
 *                                              eventcount (every push wakes
 *                                              it)
 *   is_empty                           A       wait-free (reads tail only)
 *   init, create, destroy              A       (create/destroy: the queue
 *                                              struct only; destroy once no
 *                                              P or C runs)
 *
 * No call allocates or frees anything but create and destroy (the queue
 * struct itself); nodes are the caller's memory.
 *
 * Ordering and FIFO: everything a producer wrote before pushing a node
 * happens-before everything the consumer does after the pop that returns it
 * (release on the link, acquire on the consumer's load of it). Linearizable
 * at the exchange: nodes come out in the order of the producers' exchanges,
 * so FIFO per producer and in total.
 *
 * Memory safety (why no thread touches a node after the consumer hands it
 * back, so that the caller may free or reuse it at once):
 *  - a producer touches its own node only before its exchange (the NULL
 *    next), and after the exchange only `prev`, once, to link it;
 *  - pop returns `node` only (a) after reading node->next != NULL, i.e.
 *    after the one producer whose prev is node has linked it (its last
 *    access), or (b) after winning the CAS of tail from node to &head, which
 *    means no producer ever got node as its prev (an exchange that had would
 *    have moved tail off node, failing the CAS);
 *  - the consumer reaches a node only through a link its producer wrote
 *    after its own exchange, so the pushing producer is done with it too.
 * A producer descheduled between its exchange and its link keeps `prev`
 * alive: the consumer cannot pop prev before that link (case (a) needs the
 * link; case (b)'s CAS fails, tail being the producer's node), so it waits
 * (strict) or returns NULL (relaxed), and never frees under the producer.
 * is_empty reads only the tail pointer, never a node.
 *
 * A producer that dies between its exchange and its link leaves a permanent
 * bubble: pop and peek wait forever, the relaxed calls stop before it.
 */
#ifndef CONQ_MPSC_INTRUSIVE_H
#define CONQ_MPSC_INTRUSIVE_H

#include "conq/common.h"
#include "conq/impl/blocking.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_mpsc_intrusive_node {
	struct conq_mpsc_intrusive_node *next;
} conq_mpsc_intrusive_node;

typedef struct conq_mpsc_intrusive conq_mpsc_intrusive;

/* Declare one anywhere (static, on the stack, in a struct) and init() it;
 * aligned to CONQ_PAD so that its blocks sit on lines of their own. */
struct __attribute__((aligned(CONQ_PAD))) conq_mpsc_intrusive {
	/* Producer-hot: exchanged by every producer on every push. */
	conq_mpsc_intrusive_node *tail; /* the last node, &head when empty */
	conq_eventcount nonempty;	/* take() waits here; P notifies */
	CONQ__PAD_AFTER(pad_prod, sizeof(void *) + sizeof(uint64_t));

	/* Consumer-hot: head.next is written by C, and by the producer that
	 * pushes onto an empty queue (its prev is &head). */
	conq_mpsc_intrusive_node head;
	uint64_t pops;			 /* nodes popped; C only */
	conq_mpsc_intrusive_node *wlast; /* size(): the last node it walked */
	uint64_t wmark;			 /* pops when wlast is popped */
	uint64_t chase; /* CONQ__MPSC_INTRUSIVE_GOT | _STREAM; C only */
	CONQ__PAD_AFTER(pad_cons, sizeof(conq_mpsc_intrusive_node) +
				      3 * sizeof(uint64_t) + sizeof(void *));
};

CONQ__STATIC_ASSERT(offsetof(conq_mpsc_intrusive, head) % CONQ_PAD == 0,
		    "consumer fields start a padded block");
CONQ__STATIC_ASSERT(sizeof(conq_mpsc_intrusive) % CONQ_PAD == 0,
		    "the queue is a whole number of padded blocks");

/* Make *q an empty queue (and initialise its eventcount: a zeroed queue is
 * not one). Plain stores: no other thread may see q before init returns
 * (publish it by thread creation, a release store...). A. */
void conq_mpsc_intrusive_init(conq_mpsc_intrusive *q);

/* Allocate (the library's allocator; NULL + ENOMEM) and init a queue. A. */
conq_mpsc_intrusive *conq_mpsc_intrusive_create(void);

/* Free a queue from create(). Nodes still inside are not touched. NULL is a
 * no-op. Once no thread uses the queue. */
void conq_mpsc_intrusive_destroy(conq_mpsc_intrusive *q);

/* C, cold: wait (spin, then yield) until *link is non-NULL; returns it. In
 * src/mpsc_intrusive.c. */
conq_mpsc_intrusive_node *
conq__mpsc_intrusive_wait(conq_mpsc_intrusive_node *const *link);

/* The chase: looks at an empty queue and at a last node (below), and the
 * nanoseconds of pauses before each look (conq__watch_gap). */
#ifndef CONQ__MPSC_INTRUSIVE_CHASE_SPINS
#define CONQ__MPSC_INTRUSIVE_CHASE_SPINS 4
#endif
#ifndef CONQ__MPSC_INTRUSIVE_LAST_SPINS
#define CONQ__MPSC_INTRUSIVE_LAST_SPINS 1
#endif
#ifndef CONQ__MPSC_INTRUSIVE_CHASE_GAP
#define CONQ__MPSC_INTRUSIVE_CHASE_GAP 176u /* ns: 16 pauses, Intel guest */
#endif

/* q->chase, C only: what the strict pops before this one saw. */
#define CONQ__MPSC_INTRUSIVE_GOT 1u    /* the last strict pop got a node */
#define CONQ__MPSC_INTRUSIVE_STREAM 2u /* ... and found its successor linked */

/* C, cold: the chase. A strict pop found a NULL link: head.next (the queue
 * looks empty) right after a strict pop that got a node (GOT), or
 * node->next (node looks like the last) right after one that found its
 * node's successor already linked (STREAM: the consumer is behind a
 * stream). Before it reads tail, and for a last node before it CASes tail,
 * it looks at the link `looks` more times, CONQ__MPSC_INTRUSIVE_CHASE_GAP ns
 * apart: the next push is likely on its way, and every read or CAS of tail
 * pulls away the line that each producer exchanges, a line transfer each way
 * per element (each pop of a last node CASes it) just when the consumer
 * waits for them. The wait comes before the read that decides: pop's
 * contract is unchanged. Returns the link, or NULL if it stayed NULL (and
 * then clears q->chase). In src/mpsc_intrusive.c. */
conq_mpsc_intrusive_node *
conq__mpsc_intrusive_chase(conq_mpsc_intrusive *q,
			   conq_mpsc_intrusive_node *const *link,
			   unsigned looks);

/* Push the chain first -> ... -> last (linked through next by the caller;
 * last->next is overwritten) with one exchange: the nodes stay contiguous.
 * Returns true iff the queue was empty before (tail was &head): the edge on
 * which to wake a sleeping consumer of the caller's own. Wakes a consumer
 * waiting in take() (one load when none waits). Every push, and every
 * conq_mpsc_linked offer, goes through here. P. Wait-free (but for the
 * wake's system call when a take() waits). Release, as push. */
static inline bool conq_mpsc_intrusive_push_chain(conq_mpsc_intrusive *q,
						  conq_mpsc_intrusive_node *first,
						  conq_mpsc_intrusive_node *last)
{
	/* relaxed: ordered before the next producer's link into last->next
	 * (and the consumer's read of it) by [MI1] below. */
	conq__store_relaxed(&last->next, (conq_mpsc_intrusive_node *)NULL);
	/* [MI1] exchange acq_rel. Release: pairs with [MI1] of the producer
	 * that exchanges after us (it gets `last` as its prev) and with [MI5]
	 * (the consumer's CAS): our NULL store to last->next comes before
	 * their link into it. Acquire: pairs with [MI1] of the producer
	 * before us and with [MI5], so that the NULL store of prev->next
	 * (theirs, or the consumer's clear of head.next) is ordered before
	 * our link [MI2]. */
	conq_mpsc_intrusive_node *prev = conq__xchg_acq_rel(&q->tail, last);
	CONQ__TEST_PAUSE(); /* the bubble: exchanged, not linked */
	/* [MI2] release: publishes the chain (its links and everything we
	 * wrote before); pairs with [MI3] (the consumer's acquire of a
	 * link). Our last access to prev. */
	conq__store_release(&prev->next, first);
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting take() */
	return prev == &q->head;
}

/* Push one node. Returns true iff the queue was empty before. P.
 * Wait-free. Release: see the header comment. */
static inline bool conq_mpsc_intrusive_push(conq_mpsc_intrusive *q,
					    conq_mpsc_intrusive_node *node)
{
	return conq_mpsc_intrusive_push_chain(q, node, node);
}

/* C: the node after head; NULL with the queue empty, or (if !wait) with a
 * producer between its exchange onto an empty queue and its link. */
static inline conq_mpsc_intrusive_node *
conq__mpsc_intrusive_first(conq_mpsc_intrusive *q, bool wait)
{
	/* [MI3] acquire: pairs with [MI2] (the link into head.next). */
	conq_mpsc_intrusive_node *node = conq__load_acquire(&q->head.next);
	if (CONQ__UNLIKELY(node == NULL) && wait) {
		if (q->chase != 0) {
			node = conq__mpsc_intrusive_chase(
			    q, &q->head.next, CONQ__MPSC_INTRUSIVE_CHASE_SPINS);
			if (node != NULL)
				return node;
		}
		/* [MI4] acquire: pairs with [MI1]. tail == &head: nothing
		 * pushed and not popped, empty. Else a producer exchanged
		 * with prev == &head and will link head.next. */
		if (conq__load_acquire(&q->tail) != &q->head)
			node = conq__mpsc_intrusive_wait(&q->head.next);
	}
	return node;
}

/* C: take `node` (== head.next) off the queue. Returns false (and leaves the
 * queue as it was) only if !wait and node's successor is exchanged but not
 * yet linked. A strict take (wait) sets q->chase. */
static inline bool conq__mpsc_intrusive_take(conq_mpsc_intrusive *q,
					     conq_mpsc_intrusive_node *node,
					     bool wait)
{
	/* [MI3] acquire: pairs with [MI2] (the link into node->next). */
	conq_mpsc_intrusive_node *next = conq__load_acquire(&node->next);
	if (CONQ__UNLIKELY(next == NULL) && wait &&
	    (q->chase & CONQ__MPSC_INTRUSIVE_STREAM))
		next = conq__mpsc_intrusive_chase(
		    q, &node->next, CONQ__MPSC_INTRUSIVE_LAST_SPINS);
	if (wait)
		q->chase = next != NULL ? CONQ__MPSC_INTRUSIVE_GOT |
					      CONQ__MPSC_INTRUSIVE_STREAM
					: CONQ__MPSC_INTRUSIVE_GOT;
	if (CONQ__UNLIKELY(next == NULL)) {
		/* node may be the last. relaxed: head.next is ours while
		 * tail != &head; ordered before the link of the producer that
		 * next gets prev == &head by [MI5] below (CONQ_MI_BUG 1:
		 * cleared after the CAS, that link could be overwritten). */
		conq__store_relaxed(&q->head.next,
				    (conq_mpsc_intrusive_node *)NULL);
		conq_mpsc_intrusive_node *expect = node;
		CONQ__TEST_PAUSE(); /* a push may exchange node meanwhile */
		/* [MI5] CAS acq_rel: pairs with [MI1]. Release: our clear of
		 * head.next (and our reads of node) before the next pusher's
		 * link. Acquire on failure: the exchange that moved tail off
		 * node, whose producer will link node->next. Strong: a
		 * spurious failure would make relaxed_pop report a bubble. */
		if (conq__cas_strong_acq_rel(&q->tail, &expect, &q->head)) {
			q->pops++;
			return true;
		}
		if (!wait) {
			/* Put head.next back: no producer writes it while
			 * tail != &head. */
			conq__store_relaxed(&q->head.next, node);
			return false;
		}
		/* [MI3] acquire (in wait): pairs with [MI2]. */
		next = conq__mpsc_intrusive_wait(&node->next);
	}
	/* relaxed: head.next is ours while tail != &head (node, at least, is
	 * still queued behind it). */
	conq__store_relaxed(&q->head.next, next);
	q->pops++;
	return true;
}

/* Pop the oldest node, or NULL iff the queue is empty. The node is the
 * caller's at once (no producer touches it again). C only. Blocking on a
 * bubble (see the table). Acquire: see the header comment. The chase (see
 * conq__mpsc_intrusive_chase): right after a pop that got a node, an empty
 * answer costs up to CONQ__MPSC_INTRUSIVE_CHASE_SPINS x _GAP ns (704) more,
 * and right after one that found its successor linked, the pop of a last
 * node up to CONQ__MPSC_INTRUSIVE_LAST_SPINS x _GAP (176) more. */
static inline conq_mpsc_intrusive_node *
conq_mpsc_intrusive_pop(conq_mpsc_intrusive *q)
{
	conq_mpsc_intrusive_node *node = conq__mpsc_intrusive_first(q, true);
	if (node != NULL)
		conq__mpsc_intrusive_take(q, node, true);
	return node;
}

/* Pop that never waits: NULL also when the oldest node, or its successor
 * when it looks like the last, is exchanged but not yet linked. C only.
 * Wait-free. Acquire, as pop. */
static inline conq_mpsc_intrusive_node *
conq_mpsc_intrusive_relaxed_pop(conq_mpsc_intrusive *q)
{
	conq_mpsc_intrusive_node *node = conq__mpsc_intrusive_first(q, false);
	if (node != NULL && !conq__mpsc_intrusive_take(q, node, false))
		node = NULL;
	return node;
}

/* The oldest node without removing it, or NULL iff empty. C only. Blocking
 * on a bubble, as pop. Acquire, as pop. */
static inline conq_mpsc_intrusive_node *
conq_mpsc_intrusive_peek(conq_mpsc_intrusive *q)
{
	return conq__mpsc_intrusive_first(q, true);
}

/* peek that never waits. C only. Wait-free. */
static inline conq_mpsc_intrusive_node *
conq_mpsc_intrusive_relaxed_peek(conq_mpsc_intrusive *q)
{
	return conq__mpsc_intrusive_first(q, false);
}

/* True iff the queue was empty at the moment of the call's one load: no
 * node pushed and not popped. From C, false means the next pop returns a
 * node (possibly after waiting). A. Wait-free; reads no node. */
static inline bool conq_mpsc_intrusive_is_empty(const conq_mpsc_intrusive *q)
{
	/* [MI4] acquire: pairs with [MI1] and [MI5]. */
	return conq__load_acquire(&q->tail) == &q->head;
}

/* Nodes reachable from head (pushed, linked, not popped): exact when no P
 * runs. C only (it walks the nodes, which only C may pop). Wait-free:
 * amortized O(1) per node pushed, as it walks on from where it stopped last
 * time when that node is still queued (pops < wmark), and from head else. */
static inline size_t conq_mpsc_intrusive_size(conq_mpsc_intrusive *q)
{
	uint64_t n;
	conq_mpsc_intrusive_node *p, *nx;
	if (q->wlast != NULL && (int64_t)(q->wmark - q->pops) > 0) {
		n = q->wmark - q->pops;
		p = q->wlast;
	} else {
		/* [MI3] acquire: pairs with [MI2]. */
		p = conq__load_acquire(&q->head.next);
		if (p == NULL)
			return 0;
		n = 1;
	}
	/* [MI3] acquire: pairs with [MI2], node by node. */
	while ((nx = conq__load_acquire(&p->next)) != NULL) {
		p = nx;
		n++;
	}
	q->wlast = p;
	q->wmark = q->pops + n;
	return (size_t)n;
}

/* Pop up to n nodes into out[], oldest first; stops before a bubble, never
 * waits. Returns how many. C only. Wait-free (O(n)). */
static inline size_t conq_mpsc_intrusive_pop_burst(conq_mpsc_intrusive *q,
						   conq_mpsc_intrusive_node **out,
						   size_t n)
{
	size_t k = 0;
	conq_mpsc_intrusive_node *node;
	while (k < n && (node = conq_mpsc_intrusive_relaxed_pop(q)) != NULL)
		out[k++] = node;
	return k;
}

/* Hand up to `limit` nodes to fn(ctx, node), oldest first; stops before a
 * bubble or when empty, never waits. Each node is popped (the caller's)
 * before fn sees it. Returns how many. C only; fn must not use this queue's
 * consumer side. Wait-free apart from fn. */
static inline size_t conq_mpsc_intrusive_drain(conq_mpsc_intrusive *q,
					       conq_consume_fn fn, void *ctx,
					       size_t limit)
{
	size_t k = 0;
	conq_mpsc_intrusive_node *node;
	while (k < limit && (node = conq_mpsc_intrusive_relaxed_pop(q)) != NULL) {
		fn(ctx, node);
		k++;
	}
	return k;
}

/* conq__take_wait's view of pop: type-erased, the node as void *. */
static inline void *conq__mpsc_intrusive_pop_erased(void *q)
{
	return conq_mpsc_intrusive_pop((conq_mpsc_intrusive *)q);
}

/* Pop, waiting while the queue is empty: the oldest node, or NULL with
 * errno = ETIMEDOUT once the CLOCK_MONOTONIC `deadline` (nanoseconds,
 * conq_now_ns() + timeout) has passed; CONQ_NO_DEADLINE waits for ever, a
 * deadline in the past makes one pop. It first watches the queue for about
 * CONQ__BLOCK_SPIN_NS, then parks on q->nonempty, which every push wakes
 * (conq/impl/blocking.h, conq/eventcount.h). C only. Blocking. Acquire, as
 * pop; the node is the caller's at once, as pop's. */
static inline conq_mpsc_intrusive_node *
conq_mpsc_intrusive_take_until(conq_mpsc_intrusive *q, int64_t deadline)
{
	conq_mpsc_intrusive_node *node = conq_mpsc_intrusive_pop(q);
	if (CONQ__LIKELY(node != NULL))
		return node;
	return (conq_mpsc_intrusive_node *)conq__take_wait(
	    q, conq__mpsc_intrusive_pop_erased, &q->nonempty, deadline);
}

/* take_until(q, CONQ_NO_DEADLINE): never NULL. C only. Blocking. */
static inline conq_mpsc_intrusive_node *
conq_mpsc_intrusive_take(conq_mpsc_intrusive *q)
{
	return conq_mpsc_intrusive_take_until(q, CONQ_NO_DEADLINE);
}

/* Threads counted in on the nonempty eventcount (tests, statistics). */
static inline unsigned
conq__mpsc_intrusive_take_waiters(const conq_mpsc_intrusive *q)
{
	return conq_eventcount_waiters(&q->nonempty);
}

#ifdef __cplusplus
}
#endif

#endif /* CONQ_MPSC_INTRUSIVE_H */
