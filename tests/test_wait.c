/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/test_wait.c - conq/wait.h: drain_wait and fill_wait with every wait
 * strategy and their exit conditions, on every family of the table
 * (tests/queues.h), through the generic verbs conq_drain_wait and
 * conq_fill_wait (conq_mpsc_intrusive with nodes of its own: drain_wait
 * only, it has no fill).
 *
 * Behaviour only, never speed: streams arrive complete, once each, in each
 * producer's order, while the consumer idles between bursts; the call
 * returns once its exit condition holds (from the start: at once, having
 * touched nothing; after one batch: after exactly one batch); a parked call
 * is seen counted in on the queue's eventcount and still returns when only
 * an exit flag changes (a 10 s watchdog, so a hang fails, never flakes);
 * fill_wait keeps order into a slowly drained queue; bad strategies and
 * arguments are EINVAL. The time checks are lower bounds only (a sleep is
 * at least as long as asked).
 *
 * Element counts stay far below 2^15 per queue, so the calls that bypass
 * the narrow-build gate (tests/queues.c) are safe in index16 builds too.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "queues.h"

#include "conq/impl/atomic.h"
#include "conq/wait.h"

#define MS	 1000000LL
#define WATCHDOG (10000 * MS) /* 10 s: a hang fails the test */

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};
	nanosleep(&ts, NULL);
}

/* ---- the strategies under test ------------------------------------------ */

#define TW_NSTRAT 5

static conq_wait tw_strategy(int i)
{
	switch (i) {
	case 0:
		return conq_wait_spin();
	case 1:
		return conq_wait_pause();
	case 2:
		return conq_wait_yield();
	case 3: /* a short back-off, so that the runs reach its sleeps */
		return conq_wait_backoff(4, 4, 1000, 200000);
	default:
		return conq_wait_park(2 * MS);
	}
}

static const char *const tw_strategy_name[TW_NSTRAT] = {
    "spin", "pause", "yield", "sleep", "park"};

/* ---- per-family operations, through the generic verbs -------------------- */

struct tw_ops {
	const char *name;
	void *(*create)(const struct tq_desc *d, size_t cap);
	void (*destroy)(void *q);
	bool (*offer)(void *q, uint64_t v);
	uint64_t (*poll)(void *q);  /* 0: empty */
	uint64_t (*value)(void *e); /* what drain's fn got */
	size_t (*drain_wait)(void *q, conq_consume_fn fn, void *ctx,
			     size_t batch, const conq_wait *w,
			     conq_exit_fn exit_fn, void *exit_ctx);
	/* NULL: no fill (conq_mpsc_intrusive) */
	size_t (*fill_wait)(void *q, conq_supply_fn fn, void *ctx, size_t batch,
			    const conq_wait *w, conq_exit_fn exit_fn,
			    void *exit_ctx);
	unsigned (*take_waiters)(void *q);
	unsigned (*put_waiters)(void *q);
};

static uint64_t tw_elem_value(void *e)
{
	return tq_val(e);
}

#define TW_OPS(f)                                                              \
	static void *tw_##f##_create(const struct tq_desc *d, size_t cap)      \
	{                                                                      \
		return d->create(cap);                                         \
	}                                                                      \
	static void tw_##f##_destroy(void *q)                                  \
	{                                                                      \
		conq_destroy((conq_##f *)q);                                   \
	}                                                                      \
	static bool tw_##f##_offer(void *q, uint64_t v)                        \
	{                                                                      \
		return conq_offer((conq_##f *)q, tq_elem(v));                  \
	}                                                                      \
	static uint64_t tw_##f##_poll(void *q)                                 \
	{                                                                      \
		return tq_val(conq_poll((conq_##f *)q));                       \
	}                                                                      \
	static size_t tw_##f##_drain_wait(                                     \
	    void *q, conq_consume_fn fn, void *ctx, size_t batch,              \
	    const conq_wait *w, conq_exit_fn exit_fn, void *exit_ctx)          \
	{                                                                      \
		return conq_drain_wait((conq_##f *)q, fn, ctx, batch, w,       \
				       exit_fn, exit_ctx);                     \
	}                                                                      \
	static size_t tw_##f##_fill_wait(                                      \
	    void *q, conq_supply_fn fn, void *ctx, size_t batch,               \
	    const conq_wait *w, conq_exit_fn exit_fn, void *exit_ctx)          \
	{                                                                      \
		return conq_fill_wait((conq_##f *)q, fn, ctx, batch, w,        \
				      exit_fn, exit_ctx);                      \
	}                                                                      \
	static unsigned tw_##f##_take_waiters(void *q)                         \
	{                                                                      \
		return conq__##f##_take_waiters((conq_##f *)q);                \
	}                                                                      \
	static unsigned tw_##f##_put_waiters(void *q)                          \
	{                                                                      \
		return conq__##f##_put_waiters((conq_##f *)q);                 \
	}

CONQ__FAMILIES(TW_OPS)

/* conq_mpsc_intrusive: nodes from a pool, one per element of a run (the
 * pool restarts with each queue, which starts empty). */
#define TW_POOL 8192

struct tw_node {
	conq_mpsc_intrusive_node node; /* first: a node is its tw_node */
	uint64_t v;
};

static struct tw_node tw_pool[TW_POOL];
static unsigned tw_pool_next;

static void *tw_intrusive_create(const struct tq_desc *d, size_t cap)
{
	(void)d;
	(void)cap;
	tw_pool_next = 0;
	return conq_mpsc_intrusive_create();
}

static void tw_intrusive_destroy(void *q)
{
	conq_mpsc_intrusive_destroy((conq_mpsc_intrusive *)q);
}

static bool tw_intrusive_offer(void *q, uint64_t v)
{
	/* relaxed: a unique index; the push publishes the node. */
	unsigned i = conq__faa_relaxed(&tw_pool_next, 1u);
	if (i >= TW_POOL)
		return false; /* the test asks too much: the run fails */
	tw_pool[i].v = v;
	conq_mpsc_intrusive_push((conq_mpsc_intrusive *)q, &tw_pool[i].node);
	return true;
}

static uint64_t tw_intrusive_value(void *e)
{
	return e == NULL ? 0 : ((struct tw_node *)e)->v;
}

static uint64_t tw_intrusive_poll(void *q)
{
	return tw_intrusive_value(
	    conq_mpsc_intrusive_pop((conq_mpsc_intrusive *)q));
}

static size_t tw_intrusive_drain_wait(void *q, conq_consume_fn fn, void *ctx,
				      size_t batch, const conq_wait *w,
				      conq_exit_fn exit_fn, void *exit_ctx)
{
	return conq_drain_wait((conq_mpsc_intrusive *)q, fn, ctx, batch, w,
			       exit_fn, exit_ctx);
}

static unsigned tw_intrusive_take_waiters(void *q)
{
	return conq__mpsc_intrusive_take_waiters((conq_mpsc_intrusive *)q);
}

#define TW_ROW(f)                                                              \
	{#f,                                                                   \
	 tw_##f##_create,                                                      \
	 tw_##f##_destroy,                                                     \
	 tw_##f##_offer,                                                       \
	 tw_##f##_poll,                                                        \
	 tw_elem_value,                                                        \
	 tw_##f##_drain_wait,                                                  \
	 tw_##f##_fill_wait,                                                   \
	 tw_##f##_take_waiters,                                                \
	 tw_##f##_put_waiters},

static const struct tw_ops tw_ops[] = {CONQ__FAMILIES(TW_ROW){
    "mpsc_intrusive", tw_intrusive_create, tw_intrusive_destroy,
    tw_intrusive_offer, tw_intrusive_poll, tw_intrusive_value,
    tw_intrusive_drain_wait, NULL, tw_intrusive_take_waiters, NULL}};

static const struct tw_ops *tw_find(const char *name)
{
	for (size_t i = 0; i < sizeof tw_ops / sizeof tw_ops[0]; i++)
		if (strcmp(tw_ops[i].name, name) == 0)
			return &tw_ops[i];
	return NULL;
}

/* ---- sinks, sources, exit conditions ------------------------------------- */

#define TW_MAXP 2

/* drain's fn: elements p << 32 | seq, seq 1, 2, ... per producer p. Any
 * loss, duplicate or reordering within a producer shows as a seq that is
 * not its producer's last + 1. */
struct tw_sink {
	const struct tw_ops *o;
	uint64_t got;
	uint64_t bad;
	uint64_t last[TW_MAXP];
	uint64_t target;  /* exit when got reaches it */
	int64_t deadline; /* or at this time (the watchdog) */
};

static void tw_sink_take(struct tw_sink *s, uint64_t v)
{
	unsigned p = (unsigned)(v >> 32);
	uint64_t seq = v & UINT64_C(0xffffffff);
	if (p >= TW_MAXP || seq != s->last[p] + 1)
		s->bad++;
	else
		s->last[p] = seq;
	s->got++;
}

static void tw_sink_fn(void *ctx, void *e)
{
	struct tw_sink *s = (struct tw_sink *)ctx;
	tw_sink_take(s, s->o->value(e));
}

static bool tw_exit_count(void *ctx)
{
	struct tw_sink *s = (struct tw_sink *)ctx;
	return s->got >= s->target || conq_now_ns() > s->deadline;
}

static bool tw_exit_flag(void *ctx)
{
	/* acquire: pairs with tw_no_traffic's release store of the flag. */
	return conq__load_acquire((int *)ctx) != 0;
}

/* true once `np` producers are done (each adds 1 after its last offer). */
struct tw_all_done {
	int *done;
	int np;
};

static bool tw_exit_all_done(void *ctx)
{
	struct tw_all_done *a = (struct tw_all_done *)ctx;
	/* acquire: pairs with tw_produce's release add. */
	return conq__load_acquire(a->done) >= a->np;
}

static bool tw_exit_true(void *ctx)
{
	(void)ctx;
	return true;
}

/* true from the n-th call on (1: at once). */
struct tw_nth {
	unsigned calls;
	unsigned n;
};

static bool tw_exit_nth(void *ctx)
{
	struct tw_nth *x = (struct tw_nth *)ctx;
	return ++x->calls >= x->n;
}

/* A supplier of 1, 2, ..., n, counting its calls; 0 for n: endless. In
 * bursts of `burst` (0: no bursts), between which it has nothing (NULL)
 * for gap_ns. */
struct tw_source {
	uint64_t next;
	uint64_t n;
	uint64_t calls;
	unsigned burst;
	unsigned in_burst;
	int64_t gap_ns;
	int64_t resume;
	int64_t deadline; /* for tw_exit_supplied */
};

static void *tw_source_fn(void *ctx)
{
	struct tw_source *s = (struct tw_source *)ctx;
	s->calls++;
	if (s->n != 0 && s->next > s->n)
		return NULL;
	if (s->burst != 0) {
		if (s->in_burst == s->burst) {
			if (conq_now_ns() < s->resume)
				return NULL;
			s->in_burst = 0;
		}
		if (++s->in_burst == s->burst)
			s->resume = conq_now_ns() + s->gap_ns;
	}
	return tq_elem(s->next++);
}

static void *tw_dry_fn(void *ctx)
{
	((struct tw_source *)ctx)->calls++;
	return NULL;
}

static bool tw_exit_supplied(void *ctx)
{
	struct tw_source *s = (struct tw_source *)ctx;
	return s->next > s->n || conq_now_ns() > s->deadline;
}

/* Wait (up to the watchdog) until n threads are counted in. */
static bool tw_wait_counted(void *q, unsigned (*waiters)(void *), unsigned n)
{
	int64_t until = conq_now_ns() + WATCHDOG;
	while (waiters(q) < n) {
		if (conq_now_ns() > until)
			return false;
		sleep_us(500);
	}
	return true;
}

/* ---- (a) a stream, drained with each strategy ---------------------------- */

#define TW_PER	 1500u /* elements per producer */
#define TW_BURST 100u  /* offered back to back, then a pause */

struct tw_prod {
	const struct tw_ops *o;
	void *q;
	unsigned id;
	int *done; /* +1 after the last offer */
	bool ok;
};

static void *tw_produce(void *arg)
{
	struct tw_prod *p = (struct tw_prod *)arg;
	p->ok = true;
	int64_t until = conq_now_ns() + WATCHDOG;
	for (uint64_t seq = 1; seq <= TW_PER && p->ok; seq++) {
		uint64_t v = (uint64_t)p->id << 32 | seq;
		unsigned spins = 0;
		while (!p->o->offer(p->q, v)) {
			tq_backoff(&spins);
			if (conq_now_ns() > until) {
				p->ok = false;
				break;
			}
		}
		if (seq % TW_BURST == 0)
			sleep_us(1000); /* the consumer idles */
	}
	/* release: pairs with tw_exit_all_done's acquire; our offers come
	 * first. */
	conq__faa_release(p->done, 1);
	return NULL;
}

static void case_stream(const struct tq_desc *d, const struct tw_ops *o)
{
	unsigned np = d->max_producers >= 2 ? 2 : 1;
	uint64_t n = (uint64_t)np * TW_PER;
	for (int si = 0; si < TW_NSTRAT; si++) {
		for (int by_flag = 0; by_flag < 2; by_flag++) {
			conq_wait w = tw_strategy(si);
			void *q = o->create(d, 64);
			if (!CHECK_NOT_NULL(q))
				return;
			int done = 0;
			struct tw_prod prod[TW_MAXP];
			pthread_t t[TW_MAXP];
			for (unsigned i = 0; i < np; i++) {
				prod[i] =
				    (struct tw_prod){o, q, i, &done, false};
				CHECK_EQ(pthread_create(&t[i], NULL, tw_produce,
							&prod[i]),
					 0);
			}
			struct tw_sink s = {
			    o, 0, 0, {0, 0}, n, conq_now_ns() + WATCHDOG};
			struct tw_all_done all = {&done, (int)np};
			size_t r =
			    by_flag ? o->drain_wait(q, tw_sink_fn, &s, 16, &w,
						    tw_exit_all_done, &all)
				    : o->drain_wait(q, tw_sink_fn, &s, 7, &w,
						    tw_exit_count, &s);
			size_t ret_got = (size_t)s.got;
			for (unsigned i = 0; i < np; i++)
				pthread_join(t[i], NULL);
			if (by_flag) {
				/* It stopped at the flag: the rest is still
				 * queued, in order. */
				CHECK_EQ(conq__load_relaxed(&done), np);
				uint64_t v;
				while ((v = o->poll(q)) != 0)
					tw_sink_take(&s, v);
			} else {
				/* Exit once all N are in: not one more
				 * batch, nothing left. */
				CHECK_EQ(o->poll(q), 0);
			}
			if (!CHECK_EQ(r, ret_got) || !CHECK_EQ(s.got, n) ||
			    !CHECK_EQ(s.bad, 0))
				printf("  (strategy %s, exit by %s)\n",
				       tw_strategy_name[si],
				       by_flag ? "flag" : "count");
			for (unsigned i = 0; i < np; i++) {
				CHECK_TRUE(prod[i].ok);
				CHECK_EQ(s.last[i], TW_PER);
			}
			o->destroy(q);
		}
	}
}

/* ---- (b) exit before the first batch, after one, and bad arguments ------- */

static void case_exit_checks(const struct tq_desc *d, const struct tw_ops *o)
{
	for (int si = 0; si < TW_NSTRAT; si++) {
		conq_wait w = tw_strategy(si);
		void *q = o->create(d, 16);
		if (!CHECK_NOT_NULL(q))
			return;
		for (uint64_t v = 1; v <= 10; v++)
			CHECK_TRUE(o->offer(q, v));
		struct tw_sink s = {o, 0, 0, {0, 0}, 0, 0};
		/* True from the start: nothing drained. */
		CHECK_EQ(
		    o->drain_wait(q, tw_sink_fn, &s, 4, &w, tw_exit_true, NULL),
		    0);
		CHECK_EQ(s.got, 0);
		/* True from the second check: exactly one batch. */
		struct tw_nth x = {0, 2};
		CHECK_EQ(
		    o->drain_wait(q, tw_sink_fn, &s, 4, &w, tw_exit_nth, &x),
		    4);
		CHECK_EQ(x.calls, 2);
		CHECK_EQ(s.got, 4);
		CHECK_EQ(s.bad, 0);
		/* Bad arguments: EINVAL, nothing drained. */
		conq_wait bad = conq_wait_sleep(10, 5);
		errno = 0;
		CHECK_EQ(o->drain_wait(q, tw_sink_fn, &s, 4, &bad, tw_exit_true,
				       NULL),
			 0);
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_EQ(
		    o->drain_wait(q, tw_sink_fn, &s, 0, &w, tw_exit_true, NULL),
		    0);
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_EQ(o->drain_wait(q, NULL, &s, 4, &w, tw_exit_true, NULL),
			 0);
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_EQ(o->drain_wait(q, tw_sink_fn, &s, 4, &w, NULL, NULL),
			 0);
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_EQ(o->drain_wait(q, tw_sink_fn, &s, 4, NULL, tw_exit_true,
				       NULL),
			 0);
		CHECK_EQ(errno, EINVAL);
		CHECK_EQ(s.got, 4);
		/* The other 6 are still there, in order. */
		uint64_t v, k = 4, bad_order = 0;
		while ((v = o->poll(q)) != 0)
			bad_order += v != ++k;
		CHECK_EQ(k, 10);
		CHECK_EQ(bad_order, 0);

		if (o->fill_wait != NULL) {
			struct tw_source src = {1, 0, 0, 0, 0, 0, 0, 0};
			CHECK_EQ(o->fill_wait(q, tw_source_fn, &src, 3, &w,
					      tw_exit_true, NULL),
				 0);
			CHECK_EQ(src.calls, 0);
			CHECK_EQ(o->poll(q), 0);
			x = (struct tw_nth){0, 2};
			CHECK_EQ(o->fill_wait(q, tw_source_fn, &src, 3, &w,
					      tw_exit_nth, &x),
				 3);
			CHECK_EQ(src.calls, 3);
			errno = 0;
			CHECK_EQ(o->fill_wait(q, tw_source_fn, &src, 3, &bad,
					      tw_exit_true, NULL),
				 0);
			CHECK_EQ(errno, EINVAL);
			errno = 0;
			CHECK_EQ(o->fill_wait(q, NULL, &src, 3, &w,
					      tw_exit_true, NULL),
				 0);
			CHECK_EQ(errno, EINVAL);
			errno = 0;
			CHECK_EQ(o->fill_wait(q, tw_source_fn, &src, 0, &w,
					      tw_exit_true, NULL),
				 0);
			CHECK_EQ(errno, EINVAL);
			errno = 0;
			CHECK_EQ(o->fill_wait(q, tw_source_fn, &src, 3, &w,
					      NULL, NULL),
				 0);
			CHECK_EQ(errno, EINVAL);
			CHECK_EQ(src.calls, 3);
			CHECK_EQ(o->poll(q), 1);
			CHECK_EQ(o->poll(q), 2);
			CHECK_EQ(o->poll(q), 3);
			CHECK_EQ(o->poll(q), 0);
		}
		o->destroy(q);
	}
}

/* ---- (c) an exit flag set with no queue traffic -------------------------- */

struct tw_waiter {
	const struct tw_ops *o;
	void *q;
	conq_wait w;
	bool fill; /* fill_wait, else drain_wait */
	int stop;
	unsigned checks; /* exit checks so far */
	int returned;
	size_t result;
	struct tw_sink sink;
	struct tw_source src;
};

/* tw_exit_flag on t->stop, counting the checks. */
static bool tw_exit_waiter(void *ctx)
{
	struct tw_waiter *t = (struct tw_waiter *)ctx;
	/* relaxed: a count the test thread waits for; orders nothing. */
	conq__faa_relaxed(&t->checks, 1u);
	return tw_exit_flag(&t->stop);
}

static void *tw_wait_thread(void *arg)
{
	struct tw_waiter *t = (struct tw_waiter *)arg;
	t->result = t->fill ? t->o->fill_wait(t->q, tw_dry_fn, &t->src, 8,
					      &t->w, tw_exit_waiter, t)
			    : t->o->drain_wait(t->q, tw_sink_fn, &t->sink, 8,
					       &t->w, tw_exit_waiter, t);
	/* release: pairs with the watchdog's acquire load of `returned`;
	 * result and the sink are written before. */
	conq__store_release(&t->returned, 1);
	return NULL;
}

/* Run drain_wait (fill = false) or fill_wait on q with strategy w from
 * another thread; once it waits (PARK: counted in on `waiters`), set its
 * exit flag; it must return within the watchdog. Returns how often the
 * fill's supplier was asked. */
static uint64_t tw_no_traffic(const struct tw_ops *o, void *q, conq_wait w,
			      bool fill, unsigned (*waiters)(void *),
			      const char *what)
{
	struct tw_waiter t;
	memset(&t, 0, sizeof t);
	t.o = o;
	t.q = q;
	t.w = w;
	t.fill = fill;
	t.sink.o = o;
	pthread_t th;
	if (!CHECK_EQ(pthread_create(&th, NULL, tw_wait_thread, &t), 0))
		return 0;
	/* It has checked its exit condition twice, so it has idled at least
	 * once (a thread not yet running when the flag is set would only
	 * test "exit at once"); PARK: it is counted in on the eventcount. */
	int64_t until = conq_now_ns() + WATCHDOG;
	while (conq__load_relaxed(&t.checks) < 2 && conq_now_ns() < until)
		sleep_us(500);
	if (!CHECK_GE(conq__load_relaxed(&t.checks), 2))
		printf("  (%s: never idled)\n", what);
	if (waiters != NULL && !CHECK_TRUE(tw_wait_counted(q, waiters, 1)))
		printf("  (%s: never parked)\n", what);
	sleep_us(5000);
	/* release: pairs with tw_exit_flag's acquire. */
	conq__store_release(&t.stop, 1);
	until = conq_now_ns() + WATCHDOG;
	/* acquire: pairs with tw_wait_thread's release of `returned`. */
	while (!conq__load_acquire(&t.returned) && conq_now_ns() < until)
		sleep_us(1000);
	if (!CHECK_TRUE(conq__load_acquire(&t.returned) != 0)) {
		printf("  (%s: did not return within 10 s of its exit)\n",
		       what);
		/* Unstick it, if it can be, so that the test ends. */
		if (!fill)
			o->offer(q, 1);
		else
			o->poll(q);
	}
	pthread_join(th, NULL);
	CHECK_EQ(t.result, 0);
	CHECK_EQ(t.sink.got, 0);
	return t.src.calls;
}

static void case_exit_no_traffic(const struct tq_desc *d,
				 const struct tw_ops *o)
{
	for (int si = 0; si < TW_NSTRAT; si++) {
		conq_wait w = tw_strategy(si);
		bool park = w.kind == CONQ_WAIT_PARK;
		char what[64];
		void *q = o->create(d, 8);
		if (!CHECK_NOT_NULL(q))
			return;
		snprintf(what, sizeof what, "drain_wait, %s",
			 tw_strategy_name[si]);
		tw_no_traffic(o, q, w, false, park ? o->take_waiters : NULL,
			      what);
		CHECK_EQ(o->take_waiters(q), 0);
		if (o->fill_wait != NULL) {
			/* Bounded: full, so that the fill waits for room
			 * (PARK: on nonfull) and its supplier is never
			 * asked. Unbounded: the supplier has nothing. */
			size_t k = 0;
			if (d->bounded)
				while (o->offer(q, ++k))
					;
			snprintf(what, sizeof what, "fill_wait, %s",
				 tw_strategy_name[si]);
			uint64_t asked = tw_no_traffic(
			    o, q, w, true,
			    park && d->bounded ? o->put_waiters : NULL, what);
			/* Full: never asked (no slot was free); dry: asked,
			 * and it had nothing. */
			if (d->bounded)
				CHECK_EQ(asked, 0);
			else
				CHECK_GT(asked, 0);
			CHECK_EQ(o->put_waiters(q), 0);
		}
		o->destroy(q);
	}
}

/* ---- (d) fill_wait into a slowly drained queue --------------------------- */

#define TW_FILL_N 600u

struct tw_slow {
	const struct tw_ops *o;
	void *q;
	uint64_t got;
	uint64_t bad;
};

static void *tw_slow_consume(void *arg)
{
	struct tw_slow *c = (struct tw_slow *)arg;
	int64_t until = conq_now_ns() + WATCHDOG;
	while (c->got < TW_FILL_N && conq_now_ns() < until) {
		for (int i = 0; i < 4; i++) {
			uint64_t v = c->o->poll(c->q);
			if (v == 0)
				break;
			c->bad += v != ++c->got;
		}
		sleep_us(200);
	}
	return NULL;
}

static void case_fill_stream(const struct tq_desc *d, const struct tw_ops *o)
{
	if (o->fill_wait == NULL) {
		check_skip("no fill");
		return;
	}
	for (int si = 0; si < TW_NSTRAT; si++) {
		conq_wait w = tw_strategy(si);
		void *q = o->create(d, 8);
		if (!CHECK_NOT_NULL(q))
			return;
		struct tw_slow c = {o, q, 0, 0};
		pthread_t th;
		if (!CHECK_EQ(pthread_create(&th, NULL, tw_slow_consume, &c),
			      0))
			return;
		/* Bursts of 50, then nothing for 1 ms: a bounded queue is
		 * found both full and with a dry supplier, an unbounded one
		 * only dry. */
		struct tw_source src = {
		    1, TW_FILL_N, 0, 50,
		    0, 1 * MS,	  0, conq_now_ns() + WATCHDOG};
		size_t r = o->fill_wait(q, tw_source_fn, &src, 5, &w,
					tw_exit_supplied, &src);
		pthread_join(th, NULL);
		if (!CHECK_EQ(r, TW_FILL_N) || !CHECK_EQ(c.got, TW_FILL_N) ||
		    !CHECK_EQ(c.bad, 0))
			printf("  (strategy %s)\n", tw_strategy_name[si]);
		CHECK_EQ(src.next, TW_FILL_N + 1);
		CHECK_EQ(o->poll(q), 0);
		o->destroy(q);
	}
}

/* ---- (e) the strategies themselves (once, not per family) ---------------- */

static void case_strategies(void)
{
	conq_wait good[] = {CONQ_WAIT_SPIN_INIT,
			    CONQ_WAIT_PAUSE_INIT,
			    CONQ_WAIT_YIELD_INIT,
			    CONQ_WAIT_SLEEP_INIT,
			    CONQ_WAIT_PARK_INIT,
			    conq_wait_spin(),
			    conq_wait_pause(),
			    conq_wait_yield(),
			    conq_wait_sleep(1, 1),
			    conq_wait_sleep(5, 5000),
			    conq_wait_backoff(0, 0, 1, INT64_MAX),
			    conq_wait_park(1)};
	size_t bad_good = 0;
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		bad_good += !conq_wait_valid(&good[i]);
	CHECK_EQ(bad_good, 0);

	/* min > max is EINVAL, not clamped; so are a minimum below 1 ns and
	 * a park slice below 1 ns, an unknown kind and NULL. */
	conq_wait bad[] = {
	    conq_wait_sleep(10, 5), conq_wait_sleep(0, 5),
	    conq_wait_sleep(-1, 5), conq_wait_backoff(1, 1, 2, 1),
	    conq_wait_park(0),	    conq_wait_park(-5)};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		errno = 0;
		CHECK_FALSE(conq_wait_valid(&bad[i]));
		CHECK_EQ(errno, EINVAL);
	}
	conq_wait unknown = conq_wait_spin();
	unknown.kind = (conq_wait_kind)99;
	errno = 0;
	CHECK_FALSE(conq_wait_valid(&unknown));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_FALSE(conq_wait_valid(NULL));
	CHECK_EQ(errno, EINVAL);
	/* The constructors keep what they are given. */
	conq_wait b = conq_wait_backoff(3, 2, 7, 11);
	CHECK_EQ(b.kind, CONQ_WAIT_SLEEP);
	CHECK_EQ(b.spins, 3);
	CHECK_EQ(b.yields, 2);
	CHECK_EQ_I(b.min_ns, 7);
	CHECK_EQ_I(b.max_ns, 11);
	CHECK_EQ_I(conq_wait_park(123).park_ns, 123);

	/* The idle count: +1 per step, saturating; errno kept. */
	for (int si = 0; si < TW_NSTRAT; si++) {
		conq_wait w = tw_strategy(si);
		if (w.kind == CONQ_WAIT_PARK)
			w.park_ns = 1000;
		errno = ERANGE;
		CHECK_EQ(conq_wait_idle(&w, 0), 1);
		CHECK_EQ(conq_wait_idle(&w, 41), 42);
		CHECK_EQ(conq_wait_idle(&w, UINT_MAX), UINT_MAX);
		CHECK_EQ(errno, ERANGE);
	}

	/* SLEEP: 2 pauses, 2 yields, then 1 ms, 2 ms, 4 ms, 4 ms, ... (lower
	 * bounds only: a sleep lasts at least what it asks). */
	conq_wait s = conq_wait_backoff(2, 2, 1 * MS, 4 * MS);
	struct {
		unsigned count;
		int64_t at_least;
	} steps[] = {{4, 1 * MS}, {5, 2 * MS},	  {6, 4 * MS},
		     {7, 4 * MS}, {1000, 4 * MS}, {UINT_MAX, 4 * MS}};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		int64_t t0 = conq_now_ns();
		conq_wait_idle(&s, steps[i].count);
		CHECK_GE_I(conq_now_ns() - t0, steps[i].at_least);
	}
	/* PARK with no queue: sleeps its slice. */
	conq_wait p = conq_wait_park(3 * MS);
	int64_t t0 = conq_now_ns();
	conq_wait_idle(&p, 0);
	CHECK_GE_I(conq_now_ns() - t0, 3 * MS);
}

/* ---- main ---------------------------------------------------------------- */

struct tw_case {
	const char *name;
	void (*fn)(const struct tq_desc *d, const struct tw_ops *o);
};

static const struct tw_case tw_cases[] = {
    {"exit_checks", case_exit_checks},
    {"exit_no_traffic", case_exit_no_traffic},
    {"stream", case_stream},
    {"fill_stream", case_fill_stream},
};

int main(int argc, char **argv)
{
	const struct tq_desc *rows;
	size_t nrows = tq_select(argc, argv, &rows);
	if (nrows == 0)
		return 2;
	check_context("strategies");
	unsigned long long f0 = check_failed();
	case_strategies();
	check_context("%s", "");
	printf("%-4s strategies\n", check_failed() == f0 ? "ok" : "FAIL");
	for (size_t r = 0; r < nrows; r++) {
		const struct tw_ops *o = tw_find(rows[r].name);
		for (size_t c = 0; c < sizeof tw_cases / sizeof tw_cases[0];
		     c++) {
			check_context("%s %s", rows[r].name, tw_cases[c].name);
			unsigned long long f = check_failed();
			if (o == NULL)
				check_skip("no wait.h verbs for this family");
			else
				tw_cases[c].fn(&rows[r], o);
			check_context("%s", "");
			printf("%-4s %s: %s\n",
			       check_failed() == f ? "ok" : "FAIL",
			       rows[r].name, tw_cases[c].name);
			fflush(stdout);
		}
	}
	return check_report();
}
