/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/test_blocking.c - put(), take() and their deadlines, on every family
 * of the table (tests/queues.h), and the eventcount under them.
 *
 * Behaviour only, never speed: a waiting call returns the right thing, is
 * woken by the plain offer/poll of another thread (it is seen counted in on
 * the eventcount first, so the wake really crossed a park), gives up at its
 * deadline and not before, and nothing is lost or duplicated when every
 * side blocks. ctest runs the binary twice: as it is, and with
 * CONQ_EVENTCOUNT_RMW=1 (the eventcounts' mode without membarrier).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "queues.h"

#define MS 1000000LL

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Wait (up to 10 s) until `n` threads are counted in on q's eventcount. */
static bool wait_counted(void *q, unsigned (*waiters)(void *), unsigned n)
{
	int64_t until = conq_now_ns() + 10000 * MS;
	while (waiters(q) < n) {
		if (conq_now_ns() > until)
			return false;
		sleep_ms(1);
	}
	return true;
}

/* The capacity the cases use: small, so that full is near. */
#define CAP 8

/* put and take in one thread: FIFO, a past deadline makes one attempt. */
static void case_fifo(const struct tq_desc *d)
{
	void *q = d->create(CAP);
	if (!CHECK_NOT_NULL(q))
		return;
	size_t n = d->bounded ? d->capacity(q) : 1000;
	bool ok = true;
	for (size_t i = 1; i <= n; i++)
		ok &= d->put(q, tq_elem(i));
	CHECK_TRUE(ok);
	size_t bad = 0;
	for (size_t i = 1; i <= n; i++)
		bad += tq_val(d->take(q)) != i;
	CHECK_EQ(bad, 0);
	/* A deadline already past: one poll, then ETIMEDOUT. */
	errno = 0;
	CHECK_NULL(d->take_until(q, 0));
	CHECK_EQ(errno, ETIMEDOUT);
	CHECK_TRUE(d->put_until(q, tq_elem(7), 0));
	CHECK_EQ(tq_val(d->take_until(q, 0)), 7);
	CHECK_EQ(d->take_waiters(q), 0);
	CHECK_EQ(d->put_waiters(q), 0);
	d->destroy(q);
}

/* take_until on an empty queue: NULL with ETIMEDOUT, not before the
 * deadline; put_until on a full bounded queue: false with ETIMEDOUT, and
 * the queue unchanged. */
static void case_deadline(const struct tq_desc *d)
{
	void *q = d->create(CAP);
	if (!CHECK_NOT_NULL(q))
		return;
	int64_t t0 = conq_now_ns(), dl = t0 + 20 * MS;
	errno = 0;
	CHECK_NULL(d->take_until(q, dl));
	CHECK_EQ(errno, ETIMEDOUT);
	CHECK_GE_I(conq_now_ns(), dl);
	CHECK_EQ(d->take_waiters(q), 0);
	if (d->bounded) {
		size_t cap = d->capacity(q);
		for (size_t i = 1; i <= cap; i++)
			d->offer(q, tq_elem(i));
		dl = conq_now_ns() + 20 * MS;
		errno = 0;
		CHECK_FALSE(d->put_until(q, tq_elem(999), dl));
		CHECK_EQ(errno, ETIMEDOUT);
		CHECK_GE_I(conq_now_ns(), dl);
		CHECK_EQ(d->put_waiters(q), 0);
		size_t bad = 0, k = 0;
		void *e;
		while ((e = d->poll(q)) != NULL)
			bad += tq_val(e) != ++k;
		CHECK_EQ(bad, 0);
		CHECK_EQ(k, cap);
	} else {
		CHECK_TRUE(d->put_until(q, tq_elem(5), conq_now_ns()));
		CHECK_EQ(tq_val(d->poll(q)), 5);
	}
	d->destroy(q);
}

/* put(NULL): false, EINVAL, at once, even on a full queue. */
static void case_null(const struct tq_desc *d)
{
	void *q = d->create(CAP);
	if (!CHECK_NOT_NULL(q))
		return;
	errno = 0;
	CHECK_FALSE(d->put(q, NULL));
	CHECK_EQ(errno, EINVAL);
	if (d->bounded) {
		while (d->offer(q, tq_elem(1)))
			;
		errno = 0;
		CHECK_FALSE(d->put(q, NULL));
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_FALSE(d->put_until(q, NULL, CONQ_NO_DEADLINE));
		CHECK_EQ(errno, EINVAL);
	}
	CHECK_EQ(d->put_waiters(q), 0);
	d->destroy(q);
}

struct waiter {
	const struct tq_desc *d;
	void *q;
	void *got;
	bool ok;
	int64_t deadline;
};

static void *take_thread(void *arg)
{
	struct waiter *w = (struct waiter *)arg;
	w->got = w->deadline ? w->d->take_until(w->q, w->deadline)
			     : w->d->take(w->q);
	return NULL;
}

static void *put_thread(void *arg)
{
	struct waiter *w = (struct waiter *)arg;
	w->ok = w->deadline ? w->d->put_until(w->q, tq_elem(4242), w->deadline)
			    : w->d->put(w->q, tq_elem(4242));
	return NULL;
}

/* A take parked on an empty queue returns the element of a plain offer from
 * another thread; so does a take_until with a far deadline. */
static void case_take_wakes(const struct tq_desc *d)
{
	for (int until = 0; until < 2; until++) {
		void *q = d->create(CAP);
		if (!CHECK_NOT_NULL(q))
			return;
		struct waiter w = {d, q, NULL, false,
				   until ? conq_now_ns() + 60000 * MS : 0};
		pthread_t t;
		if (!CHECK_EQ(pthread_create(&t, NULL, take_thread, &w), 0))
			return;
		CHECK_TRUE(wait_counted(q, d->take_waiters, 1));
		CHECK_TRUE(d->offer(q, tq_elem(77)));
		pthread_join(t, NULL);
		CHECK_EQ(tq_val(w.got), 77);
		CHECK_EQ(d->take_waiters(q), 0);
		d->destroy(q);
	}
}

/* A put parked on a full queue completes after a plain poll from another
 * thread, and its element comes last. */
static void case_put_wakes(const struct tq_desc *d)
{
	if (!d->bounded) {
		check_skip("unbounded: put never waits");
		return;
	}
	for (int until = 0; until < 2; until++) {
		void *q = d->create(CAP);
		if (!CHECK_NOT_NULL(q))
			return;
		size_t cap = d->capacity(q);
		for (size_t i = 1; i <= cap; i++)
			d->offer(q, tq_elem(i));
		struct waiter w = {d, q, NULL, false,
				   until ? conq_now_ns() + 60000 * MS : 0};
		pthread_t t;
		if (!CHECK_EQ(pthread_create(&t, NULL, put_thread, &w), 0))
			return;
		CHECK_TRUE(wait_counted(q, d->put_waiters, 1));
		CHECK_EQ(tq_val(d->poll(q)), 1);
		pthread_join(t, NULL);
		CHECK_TRUE(w.ok);
		size_t k = 1, bad = 0;
		void *e, *last = NULL;
		while ((e = d->poll(q)) != NULL) {
			bad += e != tq_elem(4242) && tq_val(e) != ++k;
			last = e;
		}
		CHECK_EQ(bad, 0);
		CHECK_PTR_EQ(last, tq_elem(4242));
		d->destroy(q);
	}
}

/* Every side blocks: producers put, consumers take, on a queue of capacity
 * 2 (so both waits happen again and again), 2 producers and 2 consumers
 * where the family allows them. The consumers stop at a poison element each
 * (0x1 values are producer-tagged: p << 32 | seq). Nothing lost, nothing
 * twice, each producer's elements in order at each consumer. */
#define XFER_PER 40000u
#define POISON	 UINT64_C(0xffffffff)

struct xfer {
	const struct tq_desc *d;
	void *q;
	unsigned id;
	uint64_t got;  /* elements taken (consumers) */
	uint64_t sum;  /* of their sequence numbers */
	uint64_t disorder;
	uint64_t last[2];
	bool ok;
};

/* put; an unbounded family's put never waits, and in narrow index test
 * builds (CONQ_INDEX_BITS < 64) it is false, errno untouched, at the
 * family's element limit (its header): then try again once the consumers
 * made room. Any other failure is reported. */
static bool xfer_put1(const struct tq_desc *d, void *q, void *e)
{
	for (;;) {
		errno = 0;
		if (d->put(q, e))
			return true;
		if (CONQ_INDEX_BITS == 64 || d->bounded || errno != 0)
			return false;
		sched_yield();
	}
}

static void *xfer_put(void *arg)
{
	struct xfer *x = (struct xfer *)arg;
	x->ok = true;
	for (uint64_t i = 1; i <= XFER_PER; i++)
		x->ok &= xfer_put1(x->d, x->q,
				   tq_elem((uint64_t)x->id << 32 | i));
	return NULL;
}

static void *xfer_take(void *arg)
{
	struct xfer *x = (struct xfer *)arg;
	for (;;) {
		uint64_t v = tq_val(x->d->take(x->q));
		if (v == POISON)
			break;
		unsigned p = (unsigned)(v >> 32) - 1;
		uint64_t s = v & 0xffffffffu;
		if (p > 1 || s <= x->last[p])
			x->disorder++;
		else
			x->last[p] = s;
		x->got++;
		x->sum += s;
	}
	return NULL;
}

static void case_transfer(const struct tq_desc *d)
{
	unsigned np = d->max_producers > 1 ? 2 : 1;
	unsigned nc = d->max_consumers > 1 ? 2 : 1;
	void *q = d->create(2);
	if (!CHECK_NOT_NULL(q))
		return;
	struct xfer px[2], cx[2];
	pthread_t pt[2], ct[2];
	memset(px, 0, sizeof px);
	memset(cx, 0, sizeof cx);
	for (unsigned i = 0; i < nc; i++) {
		cx[i].d = d, cx[i].q = q;
		pthread_create(&ct[i], NULL, xfer_take, &cx[i]);
	}
	for (unsigned i = 0; i < np; i++) {
		px[i].d = d, px[i].q = q, px[i].id = i + 1;
		pthread_create(&pt[i], NULL, xfer_put, &px[i]);
	}
	bool ok = true;
	for (unsigned i = 0; i < np; i++) {
		pthread_join(pt[i], NULL);
		ok &= px[i].ok;
	}
	/* The poison, one per consumer, through put: a consumer that took
	 * its own may not take another's. */
	for (unsigned i = 0; i < nc; i++)
		ok &= xfer_put1(d, q, tq_elem(POISON));
	uint64_t got = 0, sum = 0, disorder = 0;
	for (unsigned i = 0; i < nc; i++) {
		pthread_join(ct[i], NULL);
		got += cx[i].got, sum += cx[i].sum;
		disorder += cx[i].disorder;
	}
	CHECK_TRUE(ok);
	CHECK_EQ(got, (uint64_t)np * XFER_PER);
	CHECK_EQ(sum, (uint64_t)np * XFER_PER * (XFER_PER + 1) / 2);
	CHECK_EQ(disorder, 0);
	CHECK_NULL(d->poll(q));
	CHECK_EQ(d->take_waiters(q), 0);
	CHECK_EQ(d->put_waiters(q), 0);
	d->destroy(q);
}

/* Ping-pong through two queues, each side taking: every hand-over finds
 * the other side about to wait, so parks and wakes alternate quickly. */
#define PINGS 20000u

struct pong {
	const struct tq_desc *d;
	void *a, *b;
};

static void *pong_thread(void *arg)
{
	struct pong *p = (struct pong *)arg;
	for (unsigned i = 0; i < PINGS; i++)
		p->d->put(p->b, p->d->take(p->a));
	return NULL;
}

static void case_pingpong(const struct tq_desc *d)
{
	struct pong p = {d, d->create(CAP), d->create(CAP)};
	if (!CHECK_NOT_NULL(p.a) || !CHECK_NOT_NULL(p.b))
		return;
	pthread_t t;
	pthread_create(&t, NULL, pong_thread, &p);
	uint64_t bad = 0;
	for (unsigned i = 1; i <= PINGS; i++) {
		d->put(p.a, tq_elem(i));
		bad += tq_val(d->take(p.b)) != i;
	}
	pthread_join(t, NULL);
	CHECK_EQ(bad, 0);
	d->destroy(p.a);
	d->destroy(p.b);
}

/* The eventcount alone, on a condition of the test's own: a flag. */
static conq_eventcount ec_flag_ec;
static int ec_flag;

static void *ec_flag_waiter(void *arg)
{
	(void)arg;
	/* acquire: pairs with the release store of the flag below. */
	while (!__atomic_load_n(&ec_flag, __ATOMIC_ACQUIRE)) {
		uint32_t key = conq_eventcount_prepare(&ec_flag_ec);
		if (__atomic_load_n(&ec_flag, __ATOMIC_ACQUIRE)) {
			conq_eventcount_cancel(&ec_flag_ec);
			break;
		}
		conq_eventcount_wait(&ec_flag_ec, key, CONQ_NO_DEADLINE);
	}
	return NULL;
}

static void test_eventcount(void)
{
	check_context("eventcount");
	CHECK_EQ(conq_eventcount_init(&ec_flag_ec, 4), EINVAL);
	CHECK_EQ(conq_eventcount_init(&ec_flag_ec, CONQ_EVENTCOUNT_SHARED), 0);
	CHECK_FALSE(conq_eventcount_is_free(&ec_flag_ec));
	CHECK_EQ(conq_eventcount_init(&ec_flag_ec, 0), 0);
	const char *env = getenv("CONQ_EVENTCOUNT_RMW");
	bool rmw = env != NULL && env[0] == '1';
	printf("eventcount: %s\n", conq_eventcount_is_free(&ec_flag_ec)
				       ? "free notify (membarrier)"
				       : "notify pays an RMW");
	if (rmw)
		CHECK_FALSE(conq_eventcount_is_free(&ec_flag_ec));
	/* A wait with a past deadline returns ETIMEDOUT without sleeping. */
	uint32_t key = conq_eventcount_prepare(&ec_flag_ec);
	CHECK_EQ(conq_eventcount_waiters(&ec_flag_ec), 1);
	CHECK_EQ(conq_eventcount_wait(&ec_flag_ec, key, conq_now_ns()),
		 ETIMEDOUT);
	CHECK_EQ(conq_eventcount_waiters(&ec_flag_ec), 0);
	/* A notify between prepare and wait makes the wait return at once. */
	key = conq_eventcount_prepare(&ec_flag_ec);
	conq_eventcount_notify(&ec_flag_ec);
	CHECK_EQ(conq_eventcount_wait(&ec_flag_ec, key, CONQ_NO_DEADLINE), 0);
	/* Three waiters on a flag, woken together. */
	for (int shared = 0; shared < 2; shared++) {
		conq_eventcount_init(&ec_flag_ec,
				     shared ? CONQ_EVENTCOUNT_SHARED : 0);
		ec_flag = 0;
		pthread_t t[3];
		for (int i = 0; i < 3; i++)
			pthread_create(&t[i], NULL, ec_flag_waiter, NULL);
		int64_t until = conq_now_ns() + 10000 * MS;
		while (conq_eventcount_waiters(&ec_flag_ec) < 3 &&
		       conq_now_ns() < until)
			sleep_ms(1);
		CHECK_EQ(conq_eventcount_waiters(&ec_flag_ec), 3);
		/* release: pairs with the waiters' acquire loads. */
		__atomic_store_n(&ec_flag, 1, __ATOMIC_RELEASE);
		conq_eventcount_notify_all(&ec_flag_ec);
		for (int i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
		CHECK_EQ(conq_eventcount_waiters(&ec_flag_ec), 0);
	}
	check_context("%s", "");
}

static const struct tq_case cases[] = {
    {"fifo", case_fifo},
    {"deadline", case_deadline},
    {"null", case_null},
    {"take_wakes", case_take_wakes},
    {"put_wakes", case_put_wakes},
    {"transfer", case_transfer},
    {"pingpong", case_pingpong},
};

int main(int argc, char **argv)
{
	test_eventcount();
	return tq_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
