/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box tests of conq_mpmc_array: states that the table-driven tests
 * reach only by chance (a position claimed by a producer but not published
 * yet while a later one is; a cell whose poll has claimed it and not
 * released it; positions fill hands back or turns into tombstones), set up
 * with the header's internal steps (claim, publish, take, unclaim) one at a
 * time.
 *
 * The rules under test: strict peek never looks past a position that may
 * still receive an element, so with one consumer it returns what the next
 * poll returns; poll and peek wait for a position a producer holds, and
 * return NULL once fill has handed it back; offer at a full queue fails and
 * at a cell still being released waits; batches claim only what the cells
 * (or the head) prove.
 * Usage: test_mpmc_array [case...]
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "conq/impl/testing.h"
#include "conq/mpmc_array.h"

#define E1 ((void *)(uintptr_t)0x1001)
#define E2 ((void *)(uintptr_t)0x1002)
#define E3 ((void *)(uintptr_t)0x1003)

/* Start indices: 0, and a few positions before the 2^64 wrap. */
static const uint64_t starts[] = {0, UINT64_MAX - 2};

static conq_mpmc_array *make(size_t cap, uint64_t start)
{
	conq_mpmc_array *q = conq_mpmc_array_create(cap);
	if (q != NULL && start != 0 &&
	    conq__mpmc_array_init_at(q, cap, start) != q) {
		conq_mpmc_array_destroy(q);
		q = NULL;
	}
	return q;
}

/* A thread that runs one call (poll or peek) on q and records its result
 * and that it has returned. */
struct waiter {
	conq_mpmc_array *q;
	bool peek;
	void *got;
	int done;
};

static void *run_waiter(void *arg)
{
	struct waiter *w = (struct waiter *)arg;
	w->got =
	    w->peek ? conq_mpmc_array_peek(w->q) : conq_mpmc_array_poll(w->q);
	/* release: pairs with the main thread's acquire of done; w->got is
	 * visible with it. */
	conq__store_release(&w->done, 1);
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {0, ms * 1000 * 1000};
	nanosleep(&ts, NULL);
}

/* Start w's call in a thread and check, 30 ms later, that it still waits. */
static bool start_waiter(struct waiter *w, pthread_t *th)
{
	if (!CHECK_EQ(pthread_create(th, NULL, run_waiter, w), 0))
		return false;
	sleep_ms(30);
	CHECK_EQ(conq__load_acquire(&w->done), 0); /* waits */
	return true;
}

/* The next element is e: peek returns it, then poll takes it. */
#define CHECK_NEXT(q, e)                                                       \
	do {                                                                   \
		CHECK_PTR_EQ(conq_mpmc_array_peek(q), e);                      \
		CHECK_PTR_EQ(conq_mpmc_array_poll(q), e);                      \
	} while (0)

/* The queue (empty) still works: 20 rounds of offer, peek, poll. */
static void check_rounds(conq_mpmc_array *q)
{
	for (uintptr_t k = 1; k <= 20; k++) {
		CHECK_TRUE(conq_mpmc_array_offer(q, (void *)k));
		CHECK_NEXT(q, (void *)k);
	}
	CHECK_EQ(conq_mpmc_array_size(q), 0);
}

/* Run body on a fresh queue of capacity cap at each start index (and, when
 * variant names one, with variant 0 and 1), under the check context
 * "<name> start <start>[ <variant> <v>]". A body returns false when a
 * thread did not start: the case stops there. */
static void each_start(const char *name, size_t cap, const char *variant,
		       bool (*body)(conq_mpmc_array *q, uint64_t start, int v))
{
	for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
		for (int v = 0; v < (variant ? 2 : 1); v++) {
			unsigned long long st = starts[i];
			if (variant)
				check_context("%s start %llu %s %d", name, st,
					      variant, v);
			else
				check_context("%s start %llu", name, st);
			conq_mpmc_array *q = make(cap, starts[i]);
			if (!CHECK_NOT_NULL(q) || !body(q, starts[i], v))
				return;
			conq_mpmc_array_destroy(q);
		}
	}
	check_context("%s", "");
}

/* Claim t and t+1, publish t+1 only (the producer of t is late). A poll in
 * another thread must wait for t, not return NULL (size() said 2) nor E2;
 * it returns E1 once t's producer publishes. The same for peek: it must not
 * return E2 while E1 may still land at t. */
static bool poll_waits(conq_mpmc_array *q, uint64_t start, int pk)
{
	conq__idx_t t = 0;
	CHECK_EQ(conq__mpmc_claim_put(q, 2, 2, &t), 2);
	/* init_at keeps the index width's low bits. */
	CHECK_EQ(t, (conq__idx_t)start);
	conq__mpmc_publish(q, conq__idx_add(t, 1), E2);
	CHECK_EQ(conq_mpmc_array_size(q), 2);
	CHECK_NULL(conq_mpmc_array_relaxed_peek(q));
	CHECK_NULL(conq_mpmc_array_relaxed_poll(q)); /* t not FULL */
	CHECK_FALSE(conq_mpmc_array_is_empty(q));    /* E2 */

	struct waiter w = {q, pk != 0, NULL, 0};
	pthread_t th;
	if (!start_waiter(&w, &th))
		return false;
	conq__mpmc_publish(q, t, E1);
	pthread_join(th, NULL);
	CHECK_PTR_EQ(w.got, E1);
	if (pk)
		CHECK_PTR_EQ(conq_mpmc_array_poll(q), E1);
	CHECK_NEXT(q, E2);
	CHECK_NULL(conq_mpmc_array_poll(q));
	CHECK_TRUE(conq_mpmc_array_is_empty(q));
	CHECK_EQ(conq_mpmc_array_size(q), 0);
	return true;
}

/* fill's hand-back while a poll (or peek) waits: positions t, t+1 claimed
 * and not published, a waiter at t; the claimant gives them back
 * (conq__mpmc_unclaim, no producer claimed after them: the tail moves back
 * to t). The waiter re-reads the tail, finds the queue empty and returns
 * NULL; the next offer takes t again. */
static bool handed_back(conq_mpmc_array *q, uint64_t start, int pk)
{
	(void)start;
	conq__idx_t t = 0;
	CHECK_EQ(conq__mpmc_claim_put(q, 2, 2, &t), 2);
	CHECK_EQ(conq_mpmc_array_size(q), 2);
	CHECK_TRUE(conq_mpmc_array_is_empty(q)); /* no element published */
	struct waiter w = {q, pk != 0, NULL, 0};
	pthread_t th;
	if (!start_waiter(&w, &th))
		return false;
	conq__mpmc_unclaim(q, t, conq__idx_add(t, 2));
	CHECK_EQ(conq__load_seq_cst(&q->tail), t);
	pthread_join(th, NULL);
	CHECK_NULL(w.got);
	CHECK_EQ(conq_mpmc_array_size(q), 0);
	CHECK_NULL(conq_mpmc_array_peek(q));
	CHECK_TRUE(conq_mpmc_array_offer(q, E1));
	CHECK_EQ(conq__load_seq_cst(&q->tail), conq__idx_add(t, 1));
	CHECK_NEXT(q, E1);
	check_rounds(q);
	return true;
}

/* fill's give-back when another producer has claimed after it: t, t+1
 * claimed by A, t+2 by B, who publishes E3; A's hand-back cannot move the
 * tail (B's claim is above), so A's positions become tombstones. peek and
 * poll (and relaxed_peek) pass them to E3. */
static bool tombstones(conq_mpmc_array *q, uint64_t start, int v)
{
	(void)start;
	(void)v;
	conq__idx_t a = 0, b = 0;
	CHECK_EQ(conq__mpmc_claim_put(q, 2, 2, &a), 2);
	CHECK_EQ(conq__mpmc_claim_put(q, 1, 1, &b), 1);
	CHECK_EQ(b, conq__idx_add(a, 2));
	conq__mpmc_publish(q, b, E3);
	conq__mpmc_unclaim(q, a, conq__idx_add(a, 2));
	CHECK_EQ(conq__load_seq_cst(&q->tail), conq__idx_add(b, 1));
	CHECK_EQ(conq_mpmc_array_size(q), 3); /* tombstones count until taken */
	CHECK_PTR_EQ(conq_mpmc_array_relaxed_peek(q), E3);
	CHECK_FALSE(conq_mpmc_array_is_empty(q));
	CHECK_PTR_EQ(conq_mpmc_array_peek(q), E3);
	CHECK_PTR_EQ(conq_mpmc_array_poll(q), E3);
	CHECK_NULL(conq_mpmc_array_poll(q));
	CHECK_EQ(conq_mpmc_array_size(q), 0);
	check_rounds(q);
	return true;
}

struct offerer {
	conq_mpmc_array *q;
	size_t n; /* 1: offer, else offer_bulk of n */
	size_t got;
	int done;
};

static void *run_offerer(void *arg)
{
	struct offerer *o = (struct offerer *)arg;
	void *es[4] = {E3, E3, E3, E3};
	o->got = o->n == 1 ? (size_t)conq_mpmc_array_offer(o->q, E3)
			   : conq_mpmc_array_offer_bulk(o->q, es, o->n);
	/* release: pairs with the main thread's acquire of done. */
	conq__store_release(&o->done, 1);
	return NULL;
}

/* A full queue whose oldest cells a poll has claimed and not released yet
 * (claim_take without take): the queue is no longer full, so offer (and an
 * offer_bulk the head proves room for) waits for the release instead of
 * failing or overwriting; a plain full queue fails at once. */
static bool releasing(conq_mpmc_array *q, uint64_t start, int bulk)
{
	(void)start;
	size_t cap = conq_mpmc_array_capacity(q); /* 2 */
	CHECK_TRUE(conq_mpmc_array_offer(q, E1));
	CHECK_TRUE(conq_mpmc_array_offer(q, E2));
	CHECK_FALSE(conq_mpmc_array_offer(q, E3)); /* full */
	CHECK_FALSE(conq_mpmc_array_relaxed_offer(q, E3));
	void *two[2] = {E3, E3};
	CHECK_EQ(conq_mpmc_array_offer_bulk(q, two, 1), 0);
	conq__idx_t h = 0;
	size_t k = bulk ? cap : 1;
	CHECK_EQ(conq__mpmc_claim_take(q, k, &h), k);
	CHECK_FALSE(conq_mpmc_array_relaxed_offer(q, E3)); /* not released */
	struct offerer o = {q, bulk ? cap : 1, 0, 0};
	pthread_t th;
	if (!CHECK_EQ(pthread_create(&th, NULL, run_offerer, &o), 0))
		return false;
	sleep_ms(30);
	CHECK_EQ(conq__load_acquire(&o.done), 0); /* waits */
	CHECK_PTR_EQ(conq__mpmc_take(q, h), E1);
	if (bulk)
		CHECK_PTR_EQ(conq__mpmc_take(q, conq__idx_add(h, 1)), E2);
	pthread_join(th, NULL);
	CHECK_EQ(o.got, bulk ? cap : 1);
	if (!bulk)
		CHECK_NEXT(q, E2);
	CHECK_NEXT(q, E3);
	if (bulk)
		CHECK_NEXT(q, E3);
	CHECK_NULL(conq_mpmc_array_poll(q));
	check_rounds(q);
	return true;
}

/* poll_burst claims only the consecutive published cells from the head: t
 * and t+2 published, t+1 not: one element, then the poll of t+1 waits for
 * its producer. */
static bool burst_stops(conq_mpmc_array *q, uint64_t start, int v)
{
	(void)start;
	(void)v;
	conq__idx_t t = 0;
	CHECK_EQ(conq__mpmc_claim_put(q, 3, 3, &t), 3);
	conq__mpmc_publish(q, t, E1);
	conq__mpmc_publish(q, conq__idx_add(t, 2), E3);
	void *out[4] = {NULL, NULL, NULL, NULL};
	CHECK_EQ(conq_mpmc_array_poll_burst(q, out, 4), 1);
	CHECK_PTR_EQ(out[0], E1);
	struct waiter w = {q, false, NULL, 0};
	pthread_t th;
	if (!start_waiter(&w, &th))
		return false;
	conq__mpmc_publish(q, conq__idx_add(t, 1), E2);
	pthread_join(th, NULL);
	CHECK_PTR_EQ(w.got, E2);
	CHECK_EQ(conq_mpmc_array_poll_burst(q, out, 4), 1);
	CHECK_PTR_EQ(out[0], E3);
	CHECK_EQ(conq_mpmc_array_poll_burst(q, out, 4), 0);
	check_rounds(q);
	return true;
}

static void case_poll_waits(void)
{
	each_start("poll_waits", 8, "peek", poll_waits);
}
static void case_handed_back(void)
{
	each_start("handed_back", 4, "peek", handed_back);
}
static void case_tombstones(void)
{
	each_start("tombstones", 4, NULL, tombstones);
}
static void case_releasing(void)
{
	each_start("releasing", 2, "bulk", releasing);
}
static void case_burst_stops(void)
{
	each_start("burst_stops", 4, NULL, burst_stops);
}

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
    {"poll_waits", case_poll_waits},
    {"handed_back", case_handed_back},
    {"tombstones", case_tombstones},
    {"releasing", case_releasing},
    {"burst_stops", case_burst_stops},
};

int main(int argc, char **argv)
{
	size_t n = sizeof cases / sizeof cases[0];
	for (size_t c = 0; c < n; c++) {
		bool run = argc < 2;
		for (int a = 1; a < argc && !run; a++)
			run = strcmp(argv[a], cases[c].name) == 0;
		if (!run)
			continue;
		unsigned long long f = check_failed();
		cases[c].fn();
		printf("%-4s mpmc_array: %s\n",
		       check_failed() == f ? "ok" : "FAIL", cases[c].name);
	}
	return check_report();
}
