/* SPDX-License-Identifier: BSD-2-Clause */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "queues.h"

#include <errno.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#include "conq/impl/atomic.h"
#include "conq/impl/testing.h"

/* ---- the narrow-build gate ------------------------------------------------
 *
 * A narrow index build (CONQ_INDEX_BITS < 64, impl/layout.h) is correct only
 * while no thread stays inside one queue call for about 2^15 index moves of
 * the others: an index it read is then half a range old, a difference of it
 * reads with the wrong sign, a CAS on it can succeed a whole lap late. On a
 * 2-CPU machine running several such tests at once, a thread preempted
 * inside a call sleeps for milliseconds, in which the others can move the
 * indices by 2^16 (a stale pidx stored into conq_spmc_array's shared
 * pcache, measured: 136,046 claims by the others during one claim call).
 * So in those builds every call through this table passes a gate: each
 * thread shows, in a line of its own, a counter that is odd while it is in
 * a call; every TQ_GATE_EVERY calls a thread looks at the others, and once
 * another has been in the same call for TQ_GATE_MOVES of its own index
 * moves (elements moved, at least one per call), it waits, yielding, until
 * that call returns. The others then move the indices by at most about
 * (TQ_GATE_MOVES + 2 * TQ_GATE_EVERY * 64) each (64: the largest batch the
 * tests pass), 2,048 per thread, during any one call: far below 2^15 for
 * the tests' at most nine threads (conq-torture: 4 + 4 and its observer).
 * A call may itself wait for another thread to begin a call (a strict call
 * of an earlier conq_mpmc_array waited so), so the wait gives up after
 * TQ_GATE_WAIT_NS and grants another TQ_GATE_MOVES; and a
 * test whose callback (fill's supplier) waits for the other threads says
 * so with tq_gate_suspend() and tq_gate_resume(). 64-bit builds: no gate (a
 * stall would need 2^63 moves).
 */
#if CONQ_INDEX_BITS < 64
#include <pthread.h>
#include <time.h>

#define TQ_GATE_SLOTS 64
#define TQ_GATE_EVERY 8u
#define TQ_GATE_MOVES 1024u
#define TQ_GATE_WAIT_NS 20000000ull /* 20 ms */

struct tq_gate_slot {
	uint64_t seq; /* odd: its thread is inside a call */
	int owner;    /* 1: held by a live thread */
	char pad[128 - sizeof(uint64_t) - sizeof(int)];
};

static _Alignas(128) struct tq_gate_slot tq_gate[TQ_GATE_SLOTS];
static unsigned tq_gate_hi; /* 1 + the highest slot ever held */
static uint64_t tq_gate_waits;	 /* waits for a call (tq_gate_stats) */
static uint64_t tq_gate_gave_up; /* of which gave up after 20 ms */
static pthread_key_t tq_gate_key;
static pthread_once_t tq_gate_once = PTHREAD_ONCE_INIT;

struct tq_gate_self {
	int idx; /* the thread's slot, -1 before its first call */
	bool suspended; /* in a call, shown as out of it (tq_gate_suspend) */
	unsigned calls;
	uint64_t moves;
	uint64_t seen_seq[TQ_GATE_SLOTS];   /* the other's call we saw */
	uint64_t seen_moves[TQ_GATE_SLOTS]; /* our moves when we saw it */
};

static _Thread_local struct tq_gate_self tq_self = {.idx = -1};

static void tq_gate_release(void *v)
{
	int idx = (int)(intptr_t)v - 1;
	/* release: pairs with the acquire CAS of the next holder. */
	conq__store_release(&tq_gate[idx].owner, 0);
}

static void tq_gate_init(void)
{
	if (pthread_key_create(&tq_gate_key, tq_gate_release) != 0)
		abort();
}

static uint64_t tq_gate_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void tq_gate_register(void)
{
	pthread_once(&tq_gate_once, tq_gate_init);
	for (int i = 0; i < TQ_GATE_SLOTS; i++) {
		int free_ = 0;
		/* acquire: pairs with the release of the last holder. */
		if (conq__load_relaxed(&tq_gate[i].owner) == 0 &&
		    conq__cas_strong_acq_rel(&tq_gate[i].owner, &free_, 1)) {
			tq_self.idx = i;
			unsigned hi = conq__load_relaxed(&tq_gate_hi);
			while (hi < (unsigned)i + 1 &&
			       !conq__cas_weak_relaxed(&tq_gate_hi, &hi,
						       (unsigned)i + 1))
				;
			pthread_setspecific(tq_gate_key,
					    (void *)(intptr_t)(i + 1));
			return;
		}
	}
	fprintf(stderr, "tests: more than %d threads at once use the queue "
			"table\n",
		TQ_GATE_SLOTS);
	abort();
}

/* Wait while slot j's thread is still in its call `seq`. */
static void tq_gate_wait(unsigned j, uint64_t seq)
{
	/* relaxed: a count, for tq_gate_stats(). */
	conq__faa_relaxed(&tq_gate_waits, 1);
	uint64_t t0 = tq_gate_ns();
	unsigned spins = 0;
	/* relaxed: a heuristic bound, see above; no data passes. */
	while (conq__load_relaxed(&tq_gate[j].seq) == seq) {
		tq_backoff(&spins);
		if (spins % 64 == 0 && tq_gate_ns() - t0 > TQ_GATE_WAIT_NS) {
			/* relaxed: a count, for tq_gate_stats(). */
			conq__faa_relaxed(&tq_gate_gave_up, 1);
			break;
		}
	}
	tq_self.seen_moves[j] = tq_self.moves; /* another TQ_GATE_MOVES */
}

static void tq_gate_check(void)
{
	unsigned hi = conq__load_relaxed(&tq_gate_hi);
	for (unsigned j = 0; j < hi; j++) {
		if ((int)j == tq_self.idx)
			continue;
		/* relaxed: as in tq_gate_wait. */
		uint64_t s = conq__load_relaxed(&tq_gate[j].seq);
		if ((s & 1) == 0)
			continue;
		if (s != tq_self.seen_seq[j]) {
			tq_self.seen_seq[j] = s;
			tq_self.seen_moves[j] = tq_self.moves;
		} else if (tq_self.moves - tq_self.seen_moves[j] >
			   TQ_GATE_MOVES) {
			tq_gate_wait(j, s);
		}
	}
}

static void tq_gate_in(void)
{
	if (CONQ__UNLIKELY(tq_self.idx < 0))
		tq_gate_register();
	if (++tq_self.calls % TQ_GATE_EVERY == 0)
		tq_gate_check();
	struct tq_gate_slot *g = &tq_gate[tq_self.idx];
	/* relaxed: only this thread writes it; read by the others' checks. */
	conq__store_relaxed(&g->seq, g->seq + 1);
}

static void tq_gate_out(uint64_t moved)
{
	struct tq_gate_slot *g = &tq_gate[tq_self.idx];
	tq_self.moves += moved ? moved : 1;
	/* relaxed: as in tq_gate_in. */
	conq__store_relaxed(&g->seq, g->seq + 1);
}

/* The body of a wrapper: return `call`, through the gate; moved_of(r):
 * the index moves of a call that returned r. */
#define TQ_GATED(type, moved_of, call)                                         \
	do {                                                                   \
		tq_gate_in();                                                  \
		type tq_r_ = call;                                             \
		tq_gate_out(moved_of(tq_r_));                                  \
		return tq_r_;                                                  \
	} while (0)
#else
#define TQ_GATED(type, moved_of, call) return call
#endif
#define TQ_MOVED_N(r)	 ((uint64_t)(r))
#define TQ_MOVED_PTR(r)	 ((uint64_t)((r) != NULL))
#define TQ_MOVED_NONE(r) ((void)(r), (uint64_t)0)

#if CONQ_INDEX_BITS < 64
void tq_gate_suspend(void)
{
	if (tq_self.idx < 0 || tq_self.suspended)
		return;
	struct tq_gate_slot *g = &tq_gate[tq_self.idx];
	/* relaxed: as in tq_gate_in. Odd: in a call, which the wait
	 * suspends; even: not in a call (a wait before offer), nothing to
	 * do. */
	if (g->seq & 1) {
		conq__store_relaxed(&g->seq, g->seq + 1);
		tq_self.suspended = true;
	}
}

void tq_gate_resume(void)
{
	if (!tq_self.suspended)
		return;
	tq_self.suspended = false;
	struct tq_gate_slot *g = &tq_gate[tq_self.idx];
	/* relaxed: as in tq_gate_in; odd again: a call the others count
	 * anew. */
	conq__store_relaxed(&g->seq, g->seq + 1);
}

void tq_gate_stats(uint64_t *waits, uint64_t *gave_up)
{
	/* relaxed: counts. */
	*waits = conq__load_relaxed(&tq_gate_waits);
	*gave_up = conq__load_relaxed(&tq_gate_gave_up);
}
#else
void tq_gate_suspend(void)
{
}

void tq_gate_resume(void)
{
}

void tq_gate_stats(uint64_t *waits, uint64_t *gave_up)
{
	*waits = *gave_up = 0;
}
#endif

/* The wrappers of family `fam`: conq_<fam>_* behind `void *` signatures,
 * each through the narrow-build gate (nothing in a 64-bit build). */
#define TQ__WRAP(fam, maxp, maxc, bounded, fifo, at, kind, args)              \
	TQ__WRAP_##kind(fam, args)                                             \
	static void tq_##fam##_destroy(void *q)                                \
	{                                                                      \
		conq_##fam##_destroy((conq_##fam *)q);                         \
	}                                                                      \
	static bool tq_##fam##_offer(void *q, void *e)                         \
	{                                                                      \
		TQ_GATED(bool, TQ_MOVED_N,                                     \
			 conq_##fam##_offer((conq_##fam *)q, e));              \
	}                                                                      \
	static void *tq_##fam##_poll(void *q)                                  \
	{                                                                      \
		TQ_GATED(void *, TQ_MOVED_PTR,                                 \
			 conq_##fam##_poll((conq_##fam *)q));                  \
	}                                                                      \
	static void *tq_##fam##_peek(void *q)                                  \
	{                                                                      \
		TQ_GATED(void *, TQ_MOVED_NONE,                                \
			 conq_##fam##_peek((conq_##fam *)q));                  \
	}                                                                      \
	static bool tq_##fam##_relaxed_offer(void *q, void *e)                 \
	{                                                                      \
		TQ_GATED(bool, TQ_MOVED_N,                                     \
			 conq_##fam##_relaxed_offer((conq_##fam *)q, e));      \
	}                                                                      \
	static void *tq_##fam##_relaxed_poll(void *q)                          \
	{                                                                      \
		TQ_GATED(void *, TQ_MOVED_PTR,                                 \
			 conq_##fam##_relaxed_poll((conq_##fam *)q));          \
	}                                                                      \
	static void *tq_##fam##_relaxed_peek(void *q)                          \
	{                                                                      \
		TQ_GATED(void *, TQ_MOVED_NONE,                                \
			 conq_##fam##_relaxed_peek((conq_##fam *)q));          \
	}                                                                      \
	static size_t tq_##fam##_size(void *q)                                 \
	{                                                                      \
		TQ_GATED(size_t, TQ_MOVED_NONE,                                \
			 conq_##fam##_size((conq_##fam *)q));                  \
	}                                                                      \
	static bool tq_##fam##_is_empty(void *q)                               \
	{                                                                      \
		TQ_GATED(bool, TQ_MOVED_NONE,                                  \
			 conq_##fam##_is_empty((conq_##fam *)q));              \
	}                                                                      \
	static size_t tq_##fam##_capacity(void *q)                             \
	{                                                                      \
		return conq_##fam##_capacity((conq_##fam *)q);                 \
	}                                                                      \
	static size_t tq_##fam##_drain(void *q, conq_consume_fn fn, void *ctx, \
				       size_t limit)                           \
	{                                                                      \
		TQ_GATED(size_t, TQ_MOVED_N,                                   \
			 conq_##fam##_drain((conq_##fam *)q, fn, ctx, limit)); \
	}                                                                      \
	static size_t tq_##fam##_fill(void *q, conq_supply_fn fn, void *ctx,   \
				      size_t limit)                            \
	{                                                                      \
		TQ_GATED(size_t, TQ_MOVED_N,                                   \
			 conq_##fam##_fill((conq_##fam *)q, fn, ctx, limit));  \
	}                                                                      \
	static size_t tq_##fam##_offer_bulk(void *q, void *const *es,          \
					    size_t n)                          \
	{                                                                      \
		TQ_GATED(size_t, TQ_MOVED_N,                                   \
			 conq_##fam##_offer_bulk((conq_##fam *)q, es, n));     \
	}                                                                      \
	static size_t tq_##fam##_offer_burst(void *q, void *const *es,         \
					     size_t n)                         \
	{                                                                      \
		TQ_GATED(size_t, TQ_MOVED_N,                                   \
			 conq_##fam##_offer_burst((conq_##fam *)q, es, n));    \
	}                                                                      \
	static size_t tq_##fam##_poll_burst(void *q, void **out, size_t n)     \
	{                                                                      \
		TQ_GATED(size_t, TQ_MOVED_N,                                   \
			 conq_##fam##_poll_burst((conq_##fam *)q, out, n));    \
	}                                                                      \
	static bool tq_##fam##_put(void *q, void *e)                           \
	{                                                                      \
		return conq_##fam##_put((conq_##fam *)q, e);                   \
	}                                                                      \
	static bool tq_##fam##_put_until(void *q, void *e, int64_t deadline)   \
	{                                                                      \
		return conq_##fam##_put_until((conq_##fam *)q, e, deadline);   \
	}                                                                      \
	static void *tq_##fam##_take(void *q)                                  \
	{                                                                      \
		return conq_##fam##_take((conq_##fam *)q);                     \
	}                                                                      \
	static void *tq_##fam##_take_until(void *q, int64_t deadline)          \
	{                                                                      \
		return conq_##fam##_take_until((conq_##fam *)q, deadline);     \
	}                                                                      \
	static unsigned tq_##fam##_take_waiters(void *q)                       \
	{                                                                      \
		return conq__##fam##_take_waiters((conq_##fam *)q);            \
	}                                                                      \
	static unsigned tq_##fam##_put_waiters(void *q)                        \
	{                                                                      \
		return conq__##fam##_put_waiters((conq_##fam *)q);             \
	}                                                                      \
	TQ__WRAP_##at##_##kind(fam)

/* The constructors of an array family: create, memsize, init. */
#define TQ__WRAP_ARRAY(fam, args)                                              \
	static void *tq_##fam##_create(size_t c)                               \
	{                                                                      \
		return conq_##fam##_create(c);                                 \
	}                                                                      \
	static size_t tq_##fam##_memsize(size_t c)                             \
	{                                                                      \
		return conq_##fam##_memsize(c);                                \
	}                                                                      \
	static void *tq_##fam##_init(void *mem, size_t c)                      \
	{                                                                      \
		return conq_##fam##_init(mem, c);                              \
	}

/* The constructors of a growing family: create_with `args` (in terms of c
 * and a), and create = create_with a NULL allocator. */
#define TQ__WRAP_GROW(fam, args)                                               \
	static void *tq_##fam##_create_with(size_t c, const conq_allocator *a) \
	{                                                                      \
		(void)c;                                                       \
		return conq_##fam##_create_with args;                          \
	}                                                                      \
	static void *tq_##fam##_create(size_t c)                               \
	{                                                                      \
		return tq_##fam##_create_with(c, NULL);                        \
	}
#define TQ__WRAP_GROW_CSIZE(fam, args) TQ__WRAP_GROW(fam, args)

/*
 * create_at: create() (the library's allocator, so destroy() frees it), then
 * re-init the same memory with the indices at `start`. Valid for array
 * families, whose create() is allocate(memsize) + init.
 */
#define TQ__WRAP_AT_ARRAY(fam)                                                 \
	static void *tq_##fam##_init_at(void *mem, size_t c, uint64_t start)   \
	{                                                                      \
		return conq__##fam##_init_at(mem, c, start);                   \
	}                                                                      \
	static void *tq_##fam##_create_at(size_t c, uint64_t start)            \
	{                                                                      \
		conq_##fam *q = conq_##fam##_create(c);                        \
		if (q != NULL && conq__##fam##_init_at(q, c, start) != q) {    \
			conq_##fam##_destroy(q);                               \
			q = NULL;                                              \
		}                                                              \
		return q;                                                      \
	}
/* A growing family's start hook: conq__<fam>_test_start(q, start) on the
 * new, empty queue. */
#define TQ__WRAP_AT_GROW(fam)                                                  \
	static void *tq_##fam##_create_at(size_t c, uint64_t start)            \
	{                                                                      \
		conq_##fam *q = (conq_##fam *)tq_##fam##_create(c);            \
		if (q != NULL)                                                 \
			conq__##fam##_test_start(q, start);                    \
		return q;                                                      \
	}
#define TQ__WRAP_AT_GROW_CSIZE(fam) TQ__WRAP_AT_GROW(fam)
#define TQ__WRAP_NOAT_ARRAY(fam)
#define TQ__WRAP_NOAT_GROW(fam)
#define TQ__WRAP_NOAT_GROW_CSIZE(fam)

#define TQ__ROW_AT_ARRAY(fam)	    tq_##fam##_create_at, tq_##fam##_init_at
#define TQ__ROW_AT_GROW(fam)	    tq_##fam##_create_at, NULL
#define TQ__ROW_AT_GROW_CSIZE(fam)  tq_##fam##_create_at, NULL
#define TQ__ROW_NOAT_ARRAY(fam)	    NULL, NULL
#define TQ__ROW_NOAT_GROW(fam)	    NULL, NULL
#define TQ__ROW_NOAT_GROW_CSIZE(fam) NULL, NULL

/* The fields that differ between the kinds. */
#define TQ__ROW_KIND_ARRAY(fam)                                                \
	.alloc_hook = true, .size_any_thread = true, .create_with = NULL,      \
	.memsize = tq_##fam##_memsize, .init = tq_##fam##_init
#define TQ__ROW_KIND_GROW(fam)                                                 \
	.alloc_hook = false, .size_any_thread = true,                          \
	.create_with = tq_##fam##_create_with, .memsize = NULL, .init = NULL
#define TQ__ROW_KIND_GROW_CSIZE(fam)                                           \
	.alloc_hook = false, .size_any_thread = false,                         \
	.create_with = tq_##fam##_create_with, .memsize = NULL, .init = NULL

#define TQ__ROW(fam, maxp, maxc, bnd, ff, at, kind, args)                      \
	{.name = #fam,                                                         \
	 .max_producers = (maxp),                                              \
	 .max_consumers = (maxc),                                              \
	 .bounded = (bnd),                                                     \
	 .exact_size = !((maxp) > 1 && (maxc) > 1),                            \
	 .fifo = (ff),                                                         \
	 TQ__ROW_KIND_##kind(fam),                                             \
	 .create = tq_##fam##_create,                                          \
	 .destroy = tq_##fam##_destroy,                                        \
	 .offer = tq_##fam##_offer,                                            \
	 .poll = tq_##fam##_poll,                                              \
	 .peek = tq_##fam##_peek,                                              \
	 .relaxed_offer = tq_##fam##_relaxed_offer,                            \
	 .relaxed_poll = tq_##fam##_relaxed_poll,                              \
	 .relaxed_peek = tq_##fam##_relaxed_peek,                              \
	 .size = tq_##fam##_size,                                              \
	 .is_empty = tq_##fam##_is_empty,                                      \
	 .capacity = tq_##fam##_capacity,                                      \
	 .drain = tq_##fam##_drain,                                            \
	 .fill = tq_##fam##_fill,                                              \
	 .offer_bulk = tq_##fam##_offer_bulk,                                  \
	 .offer_burst = tq_##fam##_offer_burst,                                \
	 .poll_burst = tq_##fam##_poll_burst,                                  \
	 .put = tq_##fam##_put,                                                \
	 .put_until = tq_##fam##_put_until,                                    \
	 .take = tq_##fam##_take,                                              \
	 .take_until = tq_##fam##_take_until,                                  \
	 .take_waiters = tq_##fam##_take_waiters,                              \
	 .put_waiters = tq_##fam##_put_waiters,                                \
	 TQ__ROW_AT_FIELDS(TQ__ROW_##at##_##kind(fam))},
#define TQ__ROW_AT_FIELDS(...)	   TQ__ROW_AT_FIELDS2(__VA_ARGS__)
#define TQ__ROW_AT_FIELDS2(ca, ia) .create_at = ca, .init_at = ia

TQ_FAMILIES(TQ__WRAP)

/* ---- conq_mpsc_intrusive: hand-written wrappers --------------------------
 * Its API moves caller-embedded nodes, so each `void *` element the tests
 * offer travels in a malloc'd carrier {node, e}, freed when it is polled
 * (or by destroy). The batch calls go through the intrusive batch ops
 * (push_chain, drain, relaxed pops). */
struct tq_carrier {
	conq_mpsc_intrusive_node node; /* first: a node is its carrier */
	void *e;
};

static struct tq_carrier *tq_carrier_of(conq_mpsc_intrusive_node *n)
{
	return (struct tq_carrier *)(void *)n;
}

static struct tq_carrier *tq_carrier_new(void *e)
{
	struct tq_carrier *c = (struct tq_carrier *)malloc(sizeof *c);
	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	c->e = e;
	c->node.next = NULL;
	return c;
}

/* The element of a popped node (its carrier is freed), or NULL. */
static void *tq_carrier_take(conq_mpsc_intrusive_node *n)
{
	if (n == NULL)
		return NULL;
	struct tq_carrier *c = tq_carrier_of(n);
	void *e = c->e;
	free(c);
	return e;
}

static void *tq_mpsc_intrusive_create(size_t c)
{
	(void)c;
	return conq_mpsc_intrusive_create();
}

static void tq_mpsc_intrusive_destroy(void *q)
{
	if (q == NULL)
		return;
	conq_mpsc_intrusive *iq = (conq_mpsc_intrusive *)q;
	while (tq_carrier_take(conq_mpsc_intrusive_pop(iq)) != NULL)
		;
	conq_mpsc_intrusive_destroy(iq);
}

static bool tq_mpsc_intrusive_offer(void *q, void *e)
{
	if (e == NULL) {
		errno = EINVAL;
		return false;
	}
	struct tq_carrier *c = tq_carrier_new(e);
	if (c == NULL)
		return false;
	conq_mpsc_intrusive_push((conq_mpsc_intrusive *)q, &c->node);
	return true;
}

static void *tq_mpsc_intrusive_poll(void *q)
{
	return tq_carrier_take(
	    conq_mpsc_intrusive_pop((conq_mpsc_intrusive *)q));
}

static void *tq_mpsc_intrusive_relaxed_poll(void *q)
{
	return tq_carrier_take(
	    conq_mpsc_intrusive_relaxed_pop((conq_mpsc_intrusive *)q));
}

static void *tq_mpsc_intrusive_peek(void *q)
{
	conq_mpsc_intrusive_node *n =
	    conq_mpsc_intrusive_peek((conq_mpsc_intrusive *)q);
	return n != NULL ? tq_carrier_of(n)->e : NULL;
}

static void *tq_mpsc_intrusive_relaxed_peek(void *q)
{
	conq_mpsc_intrusive_node *n =
	    conq_mpsc_intrusive_relaxed_peek((conq_mpsc_intrusive *)q);
	return n != NULL ? tq_carrier_of(n)->e : NULL;
}

static size_t tq_mpsc_intrusive_size(void *q)
{
	return conq_mpsc_intrusive_size((conq_mpsc_intrusive *)q);
}

static bool tq_mpsc_intrusive_is_empty(void *q)
{
	return conq_mpsc_intrusive_is_empty((conq_mpsc_intrusive *)q);
}

static size_t tq_mpsc_intrusive_capacity(void *q)
{
	(void)q;
	return CONQ_UNBOUNDED;
}

struct tq_drain_ctx {
	conq_consume_fn fn;
	void *ctx;
};

static void tq_drain_node(void *ctx, void *node)
{
	struct tq_drain_ctx *d = (struct tq_drain_ctx *)ctx;
	d->fn(d->ctx, tq_carrier_take((conq_mpsc_intrusive_node *)node));
}

static size_t tq_mpsc_intrusive_drain(void *q, conq_consume_fn fn, void *ctx,
				      size_t limit)
{
	struct tq_drain_ctx d = {fn, ctx};
	return conq_mpsc_intrusive_drain((conq_mpsc_intrusive *)q,
					 tq_drain_node, &d, limit);
}

/* Push the chain of n carriers first..last, if any. */
static size_t tq_push_chain(void *q, struct tq_carrier *first,
			    struct tq_carrier *last, size_t n)
{
	if (n)
		conq_mpsc_intrusive_push_chain((conq_mpsc_intrusive *)q,
					       &first->node, &last->node);
	return n;
}

static void tq_append(struct tq_carrier **first, struct tq_carrier **last,
		      struct tq_carrier *c)
{
	if (*first == NULL)
		*first = c;
	else
		(*last)->node.next = &c->node;
	*last = c;
}

static size_t tq_mpsc_intrusive_fill(void *q, conq_supply_fn fn, void *ctx,
				     size_t limit)
{
	struct tq_carrier *first = NULL, *last = NULL;
	size_t k = 0;
	while (k < limit) {
		struct tq_carrier *c = tq_carrier_new(NULL);
		if (c == NULL)
			break;
		if ((c->e = fn(ctx)) == NULL) {
			free(c);
			break;
		}
		tq_append(&first, &last, c);
		k++;
	}
	return tq_push_chain(q, first, last, k);
}

static size_t tq_mpsc_intrusive_offer_bulk(void *q, void *const *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (es[i] == NULL) {
			errno = EINVAL;
			return 0;
		}
	struct tq_carrier *first = NULL, *last = NULL;
	for (size_t i = 0; i < n; i++) {
		struct tq_carrier *c = tq_carrier_new(es[i]);
		if (c == NULL) {
			while (first != NULL) {
				struct tq_carrier *next =
				    first == last
					? NULL
					: tq_carrier_of(first->node.next);
				free(first);
				first = next;
			}
			return 0;
		}
		tq_append(&first, &last, c);
	}
	return tq_push_chain(q, first, last, n);
}

static size_t tq_mpsc_intrusive_offer_burst(void *q, void *const *es,
					    size_t n)
{
	struct tq_carrier *first = NULL, *last = NULL;
	size_t k = 0;
	for (; k < n; k++) {
		if (es[k] == NULL) {
			errno = EINVAL;
			break;
		}
		struct tq_carrier *c = tq_carrier_new(es[k]);
		if (c == NULL)
			break;
		tq_append(&first, &last, c);
	}
	return tq_push_chain(q, first, last, k);
}

static size_t tq_mpsc_intrusive_poll_burst(void *q, void **out, size_t n)
{
	conq_mpsc_intrusive_node *nodes[64];
	size_t k = 0;
	while (k < n) {
		size_t want = n - k < 64 ? n - k : 64;
		size_t got = conq_mpsc_intrusive_pop_burst(
		    (conq_mpsc_intrusive *)q, nodes, want);
		for (size_t i = 0; i < got; i++)
			out[k + i] = tq_carrier_take(nodes[i]);
		k += got;
		if (got < want)
			break;
	}
	return k;
}

/* put: push never waits (a carrier allocation may fail: ENOMEM). */
static bool tq_mpsc_intrusive_put_until(void *q, void *e, int64_t deadline)
{
	(void)deadline;
	return tq_mpsc_intrusive_offer(q, e);
}

static void *tq_mpsc_intrusive_take_until(void *q, int64_t deadline)
{
	conq_mpsc_intrusive_node *n =
	    conq_mpsc_intrusive_take_until((conq_mpsc_intrusive *)q, deadline);
	return n == NULL ? NULL : tq_carrier_take(n);
}

static void *tq_mpsc_intrusive_take(void *q)
{
	return tq_carrier_take(conq_mpsc_intrusive_take((conq_mpsc_intrusive *)q));
}

static unsigned tq_mpsc_intrusive_take_waiters(void *q)
{
	return conq__mpsc_intrusive_take_waiters((conq_mpsc_intrusive *)q);
}

static unsigned tq_mpsc_intrusive_put_waiters(void *q)
{
	(void)q;
	return 0;
}

#define TQ__ROW_MPSC_INTRUSIVE                                                 \
	{.name = "mpsc_intrusive",                                             \
	 .max_producers = TQ_ANY,                                              \
	 .max_consumers = 1,                                                   \
	 .bounded = false,                                                     \
	 .exact_size = true,                                                   \
	 .fifo = TQ_FIFO_TOTAL,                                                \
	 .alloc_hook = false,                                                  \
	 .size_any_thread = false,                                             \
	 .create = tq_mpsc_intrusive_create,                                   \
	 .create_with = NULL,                                                  \
	 .create_at = NULL,                                                    \
	 .destroy = tq_mpsc_intrusive_destroy,                                 \
	 .offer = tq_mpsc_intrusive_offer,                                     \
	 .poll = tq_mpsc_intrusive_poll,                                       \
	 .peek = tq_mpsc_intrusive_peek,                                       \
	 .relaxed_offer = tq_mpsc_intrusive_offer,                             \
	 .relaxed_poll = tq_mpsc_intrusive_relaxed_poll,                       \
	 .relaxed_peek = tq_mpsc_intrusive_relaxed_peek,                       \
	 .size = tq_mpsc_intrusive_size,                                       \
	 .is_empty = tq_mpsc_intrusive_is_empty,                               \
	 .capacity = tq_mpsc_intrusive_capacity,                               \
	 .drain = tq_mpsc_intrusive_drain,                                     \
	 .fill = tq_mpsc_intrusive_fill,                                       \
	 .offer_bulk = tq_mpsc_intrusive_offer_bulk,                           \
	 .offer_burst = tq_mpsc_intrusive_offer_burst,                         \
	 .poll_burst = tq_mpsc_intrusive_poll_burst,                           \
	 .put = tq_mpsc_intrusive_offer,                                       \
	 .put_until = tq_mpsc_intrusive_put_until,                             \
	 .take = tq_mpsc_intrusive_take,                                       \
	 .take_until = tq_mpsc_intrusive_take_until,                           \
	 .take_waiters = tq_mpsc_intrusive_take_waiters,                       \
	 .put_waiters = tq_mpsc_intrusive_put_waiters,                         \
	 .memsize = NULL,                                                      \
	 .init = NULL,                                                         \
	 .init_at = NULL},

/* ---- the value rings at 8 bytes: hand-written wrappers -------------------
 * conq_<pc>_value moves elem_size() bytes per element; with 8-byte elements
 * it carries the tests' `void *` elements by value, so every table test
 * runs on it. NULL is not an element of the table (its offer is EINVAL
 * here, as everywhere in the table), though a value ring takes any bytes;
 * tests/test_value.c covers what only value rings do. The multi-consumer
 * rings have no peek (a copy of a slot another consumer may take and a
 * producer refill is a data race): their peek and relaxed_peek are NULL,
 * which the tests skip. */
#define TQ__VALUE_WRAP(fam)                                                    \
	static void *tq_##fam##_create(size_t c)                               \
	{                                                                      \
		return conq_##fam##_create(sizeof(void *), c);                 \
	}                                                                      \
	static size_t tq_##fam##_memsize(size_t c)                             \
	{                                                                      \
		return conq_##fam##_memsize(sizeof(void *), c);                \
	}                                                                      \
	static void *tq_##fam##_init(void *mem, size_t c)                      \
	{                                                                      \
		return conq_##fam##_init(mem, sizeof(void *), c);              \
	}                                                                      \
	static void *tq_##fam##_init_at(void *mem, size_t c, uint64_t start)   \
	{                                                                      \
		return conq__##fam##_init_at(mem, sizeof(void *), c, start);   \
	}                                                                      \
	static void *tq_##fam##_create_at(size_t c, uint64_t start)            \
	{                                                                      \
		conq_##fam *q = conq_##fam##_create(sizeof(void *), c);        \
		if (q != NULL &&                                               \
		    conq__##fam##_init_at(q, sizeof(void *), c, start) != q) { \
			conq_##fam##_destroy(q);                               \
			q = NULL;                                              \
		}                                                              \
		return q;                                                      \
	}                                                                      \
	static void tq_##fam##_destroy(void *q)                                \
	{                                                                      \
		conq_##fam##_destroy((conq_##fam *)q);                         \
	}                                                                      \
	static bool tq_##fam##_offer_v(void *q, void *e)                       \
	{                                                                      \
		return conq_##fam##_offer((conq_##fam *)q, &e);                \
	}                                                                      \
	static bool tq_##fam##_offer(void *q, void *e)                         \
	{                                                                      \
		if (e == NULL) {                                               \
			errno = EINVAL;                                        \
			return false;                                          \
		}                                                              \
		TQ_GATED(bool, TQ_MOVED_N, tq_##fam##_offer_v(q, e));          \
	}                                                                      \
	static void *tq_##fam##_poll_v(void *q)                                \
	{                                                                      \
		void *e = NULL;                                                \
		return conq_##fam##_poll((conq_##fam *)q, &e) ? e : NULL;      \
	}                                                                      \
	static void *tq_##fam##_poll(void *q)                                  \
	{                                                                      \
		TQ_GATED(void *, TQ_MOVED_PTR, tq_##fam##_poll_v(q));          \
	}                                                                      \
	static size_t tq_##fam##_size(void *q)                                 \
	{                                                                      \
		TQ_GATED(size_t, TQ_MOVED_NONE,                                \
			 conq_##fam##_size((conq_##fam *)q));                  \
	}                                                                      \
	static bool tq_##fam##_is_empty(void *q)                               \
	{                                                                      \
		TQ_GATED(bool, TQ_MOVED_NONE,                                  \
			 conq_##fam##_is_empty((conq_##fam *)q));              \
	}                                                                      \
	static size_t tq_##fam##_capacity(void *q)                             \
	{                                                                      \
		return conq_##fam##_capacity((conq_##fam *)q);                 \
	}                                                                      \
	static void tq_##fam##_drain_one(void *ctx, const void *elem)          \
	{                                                                      \
		struct tq_drain_ctx *dc = (struct tq_drain_ctx *)ctx;          \
		void *e;                                                       \
		memcpy(&e, elem, sizeof e);                                    \
		dc->fn(dc->ctx, e);                                            \
	}                                                                      \
	static size_t tq_##fam##_drain_v(void *q, conq_consume_fn fn,          \
					 void *ctx, size_t limit)              \
	{                                                                      \
		struct tq_drain_ctx dc = {fn, ctx};                            \
		return conq_##fam##_drain((conq_##fam *)q,                     \
					  tq_##fam##_drain_one, &dc, limit);   \
	}                                                                      \
	static size_t tq_##fam##_drain(void *q, conq_consume_fn fn, void *ctx, \
				       size_t limit)                           \
	{                                                                      \
		TQ_GATED(size_t, TQ_MOVED_N,                                   \
			 tq_##fam##_drain_v(q, fn, ctx, limit));               \
	}                                                                      \
	static size_t tq_##fam##_fill_v(void *q, conq_supply_fn fn, void *ctx, \
					size_t limit)                          \
	{                                                                      \
		struct tq_fill_ctx fc = {fn, ctx};                             \
		return conq_##fam##_fill((conq_##fam *)q, tq_value_supply_one, \
					 &fc, limit);                          \
	}                                                                      \
	static size_t tq_##fam##_fill(void *q, conq_supply_fn fn, void *ctx,   \
				      size_t limit)                            \
	{                                                                      \
		TQ_GATED(size_t, TQ_MOVED_N,                                   \
			 tq_##fam##_fill_v(q, fn, ctx, limit));                \
	}                                                                      \
	static size_t tq_##fam##_offer_bulk_v(void *q, void *const *es,        \
					      size_t n)                        \
	{                                                                      \
		for (size_t i = 0; i < n; i++)                                 \
			if (es[i] == NULL) {                                   \
				errno = EINVAL;                                \
				return 0;                                      \
			}                                                      \
		return conq_##fam##_offer_bulk((conq_##fam *)q, es, n);        \
	}                                                                      \
	static size_t tq_##fam##_offer_bulk(void *q, void *const *es,          \
					    size_t n)                          \
	{                                                                      \
		TQ_GATED(size_t, TQ_MOVED_N, tq_##fam##_offer_bulk_v(q, es, n)); \
	}                                                                      \
	static size_t tq_##fam##_offer_burst_v(void *q, void *const *es,       \
					       size_t n)                       \
	{                                                                      \
		size_t k = 0;                                                  \
		while (k < n && es[k] != NULL)                                 \
			k++;                                                   \
		size_t m = conq_##fam##_offer_burst((conq_##fam *)q, es, k);   \
		if (m == k && k < n)                                           \
			errno = EINVAL;                                        \
		return m;                                                      \
	}                                                                      \
	static size_t tq_##fam##_offer_burst(void *q, void *const *es,         \
					     size_t n)                         \
	{                                                                      \
		TQ_GATED(size_t, TQ_MOVED_N, tq_##fam##_offer_burst_v(q, es, n)); \
	}                                                                      \
	static size_t tq_##fam##_poll_burst(void *q, void **out, size_t n)     \
	{                                                                      \
		TQ_GATED(size_t, TQ_MOVED_N,                                   \
			 conq_##fam##_poll_burst((conq_##fam *)q, out, n));    \
	}                                                                      \
	static bool tq_##fam##_put(void *q, void *e)                           \
	{                                                                      \
		if (e == NULL) {                                               \
			errno = EINVAL;                                        \
			return false;                                          \
		}                                                              \
		return conq_##fam##_put((conq_##fam *)q, &e);                  \
	}                                                                      \
	static bool tq_##fam##_put_until(void *q, void *e, int64_t deadline)   \
	{                                                                      \
		if (e == NULL) {                                               \
			errno = EINVAL;                                        \
			return false;                                          \
		}                                                              \
		return conq_##fam##_put_until((conq_##fam *)q, &e, deadline);  \
	}                                                                      \
	static void *tq_##fam##_take(void *q)                                  \
	{                                                                      \
		void *e = NULL;                                                \
		return conq_##fam##_take((conq_##fam *)q, &e) ? e : NULL;      \
	}                                                                      \
	static void *tq_##fam##_take_until(void *q, int64_t deadline)          \
	{                                                                      \
		void *e = NULL;                                                \
		return conq_##fam##_take_until((conq_##fam *)q, &e, deadline)  \
			   ? e                                                 \
			   : NULL;                                             \
	}                                                                      \
	static unsigned tq_##fam##_take_waiters(void *q)                       \
	{                                                                      \
		return conq__##fam##_take_waiters((conq_##fam *)q);            \
	}                                                                      \
	static unsigned tq_##fam##_put_waiters(void *q)                        \
	{                                                                      \
		return conq__##fam##_put_waiters((conq_##fam *)q);             \
	}

/* The rings' own relaxed calls, or their strict ones where the ring has no
 * weaker variant (SPSC: none to relax; MPSC offer: one claim). */
#define TQ__VALUE_RELAXED(fam, poll_fn, offer_fn)                              \
	static bool tq_##fam##_relaxed_offer_v(void *q, void *e)               \
	{                                                                      \
		return offer_fn((conq_##fam *)q, &e);                          \
	}                                                                      \
	static bool tq_##fam##_relaxed_offer(void *q, void *e)                 \
	{                                                                      \
		if (e == NULL) {                                               \
			errno = EINVAL;                                        \
			return false;                                          \
		}                                                              \
		TQ_GATED(bool, TQ_MOVED_N, tq_##fam##_relaxed_offer_v(q, e));  \
	}                                                                      \
	static void *tq_##fam##_relaxed_poll_v(void *q)                        \
	{                                                                      \
		void *e = NULL;                                                \
		return poll_fn((conq_##fam *)q, &e) ? e : NULL;                \
	}                                                                      \
	static void *tq_##fam##_relaxed_poll(void *q)                          \
	{                                                                      \
		TQ_GATED(void *, TQ_MOVED_PTR, tq_##fam##_relaxed_poll_v(q));  \
	}

/* peek (single-consumer rings). */
#define TQ__VALUE_PEEK(fam)                                                    \
	static void *tq_##fam##_peek_v(void *q)                                \
	{                                                                      \
		void *e = NULL;                                                \
		return conq_##fam##_peek((conq_##fam *)q, &e) ? e : NULL;      \
	}                                                                      \
	static void *tq_##fam##_peek(void *q)                                  \
	{                                                                      \
		TQ_GATED(void *, TQ_MOVED_NONE, tq_##fam##_peek_v(q));         \
	}

struct tq_fill_ctx {
	conq_supply_fn fn;
	void *ctx;
};

static bool tq_value_supply_one(void *ctx, void *slot)
{
	struct tq_fill_ctx *fc = (struct tq_fill_ctx *)ctx;
	void *e = fc->fn(fc->ctx);
	if (e == NULL)
		return false;
	memcpy(slot, &e, sizeof e);
	return true;
}

TQ__VALUE_WRAP(spsc_value)
TQ__VALUE_WRAP(mpsc_value)
TQ__VALUE_WRAP(spmc_value)
TQ__VALUE_WRAP(mpmc_value)
TQ__VALUE_RELAXED(spsc_value, conq_spsc_value_poll, conq_spsc_value_offer)
TQ__VALUE_RELAXED(mpsc_value, conq_mpsc_value_relaxed_poll,
		  conq_mpsc_value_offer)
TQ__VALUE_RELAXED(spmc_value, conq_spmc_value_relaxed_poll,
		  conq_spmc_value_relaxed_offer)
TQ__VALUE_RELAXED(mpmc_value, conq_mpmc_value_relaxed_poll,
		  conq_mpmc_value_relaxed_offer)
TQ__VALUE_PEEK(spsc_value)
TQ__VALUE_PEEK(mpsc_value)

#define TQ__VALUE_ROW(fam, maxp, maxc, peek_fn)                                \
	{.name = #fam,                                                         \
	 .max_producers = (maxp),                                              \
	 .max_consumers = (maxc),                                              \
	 .bounded = true,                                                      \
	 .exact_size = (maxp) == 1, /* fill's tombstones (mpsc_value.h) */     \
	 .fifo = TQ_FIFO_TOTAL,                                                \
	 .alloc_hook = true,                                                   \
	 .size_any_thread = true,                                              \
	 .drain_in_place = true,                                               \
	 .max_capacity = CONQ_VALUE_MAX_CAPACITY,                              \
	 .create = tq_##fam##_create,                                          \
	 .create_with = NULL,                                                  \
	 .create_at = tq_##fam##_create_at,                                    \
	 .destroy = tq_##fam##_destroy,                                        \
	 .offer = tq_##fam##_offer,                                            \
	 .poll = tq_##fam##_poll,                                              \
	 .peek = peek_fn,                                                      \
	 .relaxed_offer = tq_##fam##_relaxed_offer,                            \
	 .relaxed_poll = tq_##fam##_relaxed_poll,                              \
	 .relaxed_peek = peek_fn,                                              \
	 .size = tq_##fam##_size,                                              \
	 .is_empty = tq_##fam##_is_empty,                                      \
	 .capacity = tq_##fam##_capacity,                                      \
	 .drain = tq_##fam##_drain,                                            \
	 .fill = tq_##fam##_fill,                                              \
	 .offer_bulk = tq_##fam##_offer_bulk,                                  \
	 .offer_burst = tq_##fam##_offer_burst,                                \
	 .poll_burst = tq_##fam##_poll_burst,                                  \
	 .put = tq_##fam##_put,                                                \
	 .put_until = tq_##fam##_put_until,                                    \
	 .take = tq_##fam##_take,                                              \
	 .take_until = tq_##fam##_take_until,                                  \
	 .take_waiters = tq_##fam##_take_waiters,                              \
	 .put_waiters = tq_##fam##_put_waiters,                                \
	 .memsize = tq_##fam##_memsize,                                        \
	 .init = tq_##fam##_init,                                              \
	 .init_at = tq_##fam##_init_at},

/* The table rows, then the hand-written ones (families whose API differs). */
const struct tq_desc tq_queues[] = {
    TQ_FAMILIES(TQ__ROW) TQ__ROW_MPSC_INTRUSIVE
	TQ__VALUE_ROW(spsc_value, 1, 1, tq_spsc_value_peek)
	    TQ__VALUE_ROW(mpsc_value, TQ_ANY, 1, tq_mpsc_value_peek)
		TQ__VALUE_ROW(spmc_value, 1, TQ_ANY, NULL)
		    TQ__VALUE_ROW(mpmc_value, TQ_ANY, TQ_ANY, NULL)};
const size_t tq_queue_count = sizeof tq_queues / sizeof tq_queues[0];

size_t tq_select(int argc, char **argv, const struct tq_desc **rows)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--ref") == 0) {
			*rows = &tq_reference;
			return 1;
		}
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--family=", 9) != 0)
			continue;
		for (size_t r = 0; r < tq_queue_count; r++)
			if (strcmp(tq_queues[r].name, argv[i] + 9) == 0) {
				*rows = &tq_queues[r];
				return 1;
			}
		fprintf(stderr, "unknown family '%s'\n", argv[i] + 9);
		*rows = NULL;
		return 0;
	}
	*rows = tq_queues;
	return tq_queue_count;
}

uint64_t tq_pow2(uint64_t n)
{
	uint64_t c = 1;
	while (c < n)
		c <<= 1;
	return c;
}

void tq_backoff(unsigned *spins)
{
	if (++*spins % 16 == 0)
		sched_yield();
	else
		conq__cpu_relax();
}

int tq_run_cases(int argc, char **argv, const struct tq_case *cases,
		 size_t ncases)
{
	const struct tq_desc *rows;
	size_t nrows = tq_select(argc, argv, &rows);
	if (nrows == 0)
		return 2;
	bool any_named = false;
	for (int a = 1; a < argc; a++) {
		if (argv[a][0] == '-')
			continue;
		any_named = true;
		size_t c = 0;
		while (c < ncases && strcmp(cases[c].name, argv[a]) != 0)
			c++;
		if (c == ncases) {
			fprintf(stderr, "unknown case '%s'\n", argv[a]);
			return 2;
		}
	}
	for (size_t r = 0; r < nrows; r++) {
		for (size_t c = 0; c < ncases; c++) {
			bool run = !any_named;
			for (int a = 1; a < argc && !run; a++)
				run = strcmp(argv[a], cases[c].name) == 0;
			if (!run)
				continue;
			check_context("%s %s", rows[r].name, cases[c].name);
			unsigned long long f = check_failed();
			cases[c].fn(&rows[r]);
			check_context("%s", "");
			printf("%-4s %s: %s\n",
			       check_failed() == f ? "ok" : "FAIL",
			       rows[r].name, cases[c].name);
			fflush(stdout);
		}
	}
	return check_report();
}

static bool tq_parse_scale(const char *v, double *scale)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno != 0 || end == v || *end != '\0' || !(x > 0.0)) {
		fprintf(stderr, "bad scale '%s' (want a number > 0)\n", v);
		return false;
	}
	*scale = x;
	return true;
}

bool tq_read_scale(int argc, char **argv, double *scale)
{
	*scale = 1.0;
	const char *env = getenv("CONQ_TEST_SCALE");
	if (env != NULL && *env != '\0' && !tq_parse_scale(env, scale))
		return false;
	for (int a = 1; a < argc; a++)
		if (strncmp(argv[a], "--scale=", 8) == 0 &&
		    !tq_parse_scale(argv[a] + 8, scale))
			return false;
	return true;
}
