/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box tests of conq_mpmc_array's peek: states that the table-driven
 * tests reach only by chance (a position claimed by a producer but not
 * published yet, while a later one is), set up with the header's internal
 * steps (claim, reserve, publish) one at a time.
 *
 * The rules under test: strict peek never looks past a position that may
 * still receive an element, so with one consumer it returns what the next
 * poll returns; poll and peek wait for (never close) a position a producer
 * holds, unless that producer abandoned it; every element lies within a
 * capacity of the head, where is_empty and peek look.
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

/* Claim t (not reserved: the producer is late). A poll in another thread
 * must wait for it, not close it and return NULL (size() said 1); it returns
 * E1 once the producer reserves and publishes. The same for peek, with t+1
 * published first: peek must not return E2 while E1 may still land at t. */
static bool poll_waits(conq_mpmc_array *q, uint64_t start, int pk)
{
	conq__idx_t t = 0;
	CHECK_EQ(conq__mpmc_claim_put(q, 2, 2, &t), 2);
	/* init_at keeps the index width's low bits. */
	CHECK_EQ(t, (conq__idx_t)start);
	CHECK_TRUE(conq__mpmc_reserve(q, conq__idx_add(t, 1)));
	conq__mpmc_publish(q, conq__idx_add(t, 1), E2);
	CHECK_EQ(conq_mpmc_array_size(q), 2);
	CHECK_NULL(conq_mpmc_array_relaxed_peek(q));
	CHECK_FALSE(conq_mpmc_array_is_empty(q)); /* E2 */

	struct waiter w = {q, pk != 0, NULL, 0};
	pthread_t th;
	if (!start_waiter(&w, &th))
		return false;
	/* t is not closed: the producer reserves it. */
	CHECK_TRUE(conq__mpmc_reserve(q, t));
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

/* An abandoned position: the queue is full (E1, E2 in a capacity-2 queue),
 * producers C and D claim the next two positions with an FAA (their hint
 * was stale). C finds the queue full and, not being the last claimed,
 * records its position as abandoned; D, the last, hands its position back
 * to the tail. The consumer that reaches C's position closes it at once
 * (no wait), removes the entry, and poll goes on to the next element. */
static bool abandoned(conq_mpmc_array *q, uint64_t start, int v)
{
	(void)start;
	(void)v;
	CHECK_TRUE(conq_mpmc_array_offer(q, E1));
	CHECK_TRUE(conq_mpmc_array_offer(q, E2));
	CHECK_FALSE(conq_mpmc_array_offer(q, E3)); /* full */
	conq__idx_t c = conq__faa_seq_cst(&q->tail, (conq__idx_t)2);
	conq__idx_t d = conq__idx_add(c, 1);
	CHECK_FALSE(conq__mpmc_reserve(q, c)); /* C: abandoned */
	CHECK_EQ(conq__load_seq_cst(&q->nholes), 1);
	CHECK_FALSE(conq__mpmc_reserve(q, d)); /* D: handed back */
	CHECK_EQ(conq__load_seq_cst(&q->tail), d);
	CHECK_EQ(conq__load_seq_cst(&q->nholes), 1);
	CHECK_EQ(conq_mpmc_array_size(q), 2);

	CHECK_PTR_EQ(conq_mpmc_array_poll(q), E1);
	CHECK_NEXT(q, E2);
	/* Only the abandoned position is left: no element. */
	CHECK_TRUE(conq_mpmc_array_is_empty(q));
	CHECK_NULL(conq_mpmc_array_peek(q)); /* passes it, no wait */
	CHECK_EQ(conq__load_seq_cst(&q->nholes), 1);
	CHECK_TRUE(conq_mpmc_array_offer(q, E3)); /* at d */
	CHECK_NEXT(q, E3);			  /* the poll closes c */
	CHECK_EQ(conq__load_seq_cst(&q->nholes), 0);
	for (unsigned k = 0; k < CONQ__MPMC_HOLES; k++)
		CHECK_EQ(q->holes[k].state, CONQ__MPMC_HOLE_EMPTY);
	CHECK_NULL(conq_mpmc_array_poll(q));
	CHECK_EQ(conq_mpmc_array_size(q), 0);
	check_rounds(q);
	return true;
}

/* The torture finding (is_empty() true / peek() NULL with an element in the
 * queue): producers A and B claim positions 0 and 1 of a capacity-2 queue
 * and stall; the only consumer peeks. peek used to close both after a
 * bounded wait, without moving the head, so that producer C's overshooting
 * FAA (position 2) found its cell free a lap ahead and published there, out
 * of the scan. Now peek waits for A, C finds the queue full (it is the last
 * claimed, so it hands position 2 back), and A's and B's elements are seen
 * by is_empty and peek, and polled in order. */
static bool look_window(conq_mpmc_array *q, uint64_t start, int v)
{
	(void)start;
	(void)v;
	/* [Q1] seq_cst: as in conq__mpmc_claim_put (a white-box claim). */
	conq__idx_t a = conq__faa_seq_cst(&q->tail, (conq__idx_t)2);
	conq__idx_t b = conq__idx_add(a, 1);
	struct waiter w = {q, true, NULL, 0};
	pthread_t th;
	if (!start_waiter(&w, &th)) /* peek waits */
		return false;
	CHECK_TRUE(conq_mpmc_array_is_empty(q)); /* nothing yet */
	/* C: an FAA past head + n; the cell holds the earlier lap */
	conq__idx_t c = conq__faa_seq_cst(&q->tail, (conq__idx_t)1);
	CHECK_FALSE(conq__mpmc_reserve(q, c));
	CHECK_EQ(conq__load_seq_cst(&q->tail), c); /* handed back */
	CHECK_TRUE(conq__mpmc_reserve(q, b));
	conq__mpmc_publish(q, b, E2);
	CHECK_FALSE(conq_mpmc_array_is_empty(q));
	CHECK_TRUE(conq__mpmc_reserve(q, a));
	conq__mpmc_publish(q, a, E1);
	pthread_join(th, NULL);
	CHECK_PTR_EQ(w.got, E1);
	CHECK_FALSE(conq_mpmc_array_is_empty(q));
	CHECK_NEXT(q, E1);
	CHECK_FALSE(conq_mpmc_array_is_empty(q));
	CHECK_NEXT(q, E2);
	CHECK_TRUE(conq_mpmc_array_is_empty(q));
	CHECK_NULL(conq_mpmc_array_poll(q));
	/* C offers again, now in the window */
	CHECK_TRUE(conq_mpmc_array_offer(q, E3));
	CHECK_FALSE(conq_mpmc_array_is_empty(q));
	CHECK_NEXT(q, E3);
	CHECK_EQ(conq_mpmc_array_size(q), 0);
	return true;
}

struct later {
	conq_mpmc_array *q;
	conq__idx_t t;
};

static void *publish_later(void *arg)
{
	struct later *l = (struct later *)arg;
	sleep_ms(20);
	conq__mpmc_publish(l->q, l->t, E1);
	return NULL;
}

/* t reserved (RES: the producer is writing it), t+1 published: peek waits
 * for t's element instead of returning E2 (another thread publishes t 20 ms
 * later); relaxed_peek returns NULL meanwhile. */
static bool reserved(conq_mpmc_array *q, uint64_t start, int v)
{
	(void)start;
	(void)v;
	conq__idx_t t = 0;
	CHECK_EQ(conq__mpmc_claim_put(q, 2, 2, &t), 2);
	CHECK_TRUE(conq__mpmc_reserve(q, t));
	CHECK_TRUE(conq__mpmc_reserve(q, t + 1));
	conq__mpmc_publish(q, t + 1, E2);
	CHECK_NULL(conq_mpmc_array_relaxed_peek(q));

	struct later l = {q, t};
	pthread_t th;
	if (!CHECK_EQ(pthread_create(&th, NULL, publish_later, &l), 0))
		return false;
	CHECK_PTR_EQ(conq_mpmc_array_peek(q), E1);
	pthread_join(th, NULL);
	CHECK_PTR_EQ(conq_mpmc_array_relaxed_peek(q), E1);
	CHECK_PTR_EQ(conq_mpmc_array_poll(q), E1);
	CHECK_NEXT(q, E2);
	CHECK_NULL(conq_mpmc_array_peek(q));
	return true;
}

/* A tombstone (a batch's unused position) is looked past by every peek. */
static void case_tombstone(void)
{
	conq_mpmc_array *q = make(4, 0);
	if (!CHECK_NOT_NULL(q))
		return;
	conq__idx_t t = 0;
	CHECK_EQ(conq__mpmc_claim_put(q, 2, 2, &t), 2);
	CHECK_TRUE(conq__mpmc_reserve(q, t));
	CHECK_TRUE(conq__mpmc_reserve(q, t + 1));
	conq__mpmc_publish(q, t, NULL);
	conq__mpmc_publish(q, t + 1, E3);
	CHECK_NULL(conq_mpmc_array_relaxed_peek(q)); /* head: a tombstone */
	CHECK_PTR_EQ(conq_mpmc_array_peek(q), E3);
	CHECK_FALSE(conq_mpmc_array_is_empty(q));
	CHECK_PTR_EQ(conq_mpmc_array_poll(q), E3);
	CHECK_NULL(conq_mpmc_array_poll(q));
	conq_mpmc_array_destroy(q);
}

/* fill gives positions back (the tail moves back) while a peek waits for
 * them: the peek, which waited because a producer held the positions, sees
 * the tail at or below them and returns NULL, closing nothing; the positions
 * are claimed again by the next offer. The interleaving of
 * conq__mpmc_unclaim's two steps with a peek, done by hand. */
static void case_closed_then_unclaimed(void)
{
	conq_mpmc_array *q = make(4, 0);
	if (!CHECK_NOT_NULL(q))
		return;
	conq__idx_t t = 0;
	CHECK_EQ(conq__mpmc_claim_put(q, 2, 2, &t), 2);
	CHECK_TRUE(conq__mpmc_reserve(q, t));
	/* unclaim, step 1: undo the RES */
	conq__store_release(&conq__mpmc_cell_at(q, t)->seq,
			    conq__mpmc_lap(q, t) | CONQ__MPMC_FREE);
	struct waiter w = {q, true, NULL, 0};
	pthread_t th;
	if (!start_waiter(&w, &th)) /* peek waits */
		return;
	/* unclaim, step 2: the tail goes back to t */
	conq__idx_t to = t + 2;
	CHECK_TRUE(conq__cas_strong_seq_cst(&q->tail, &to, t));
	pthread_join(th, NULL);
	CHECK_NULL(w.got);
	CHECK_TRUE(conq_mpmc_array_is_empty(q));
	CHECK_NULL(conq_mpmc_array_peek(q));
	/* offer takes t again: nothing was closed */
	CHECK_TRUE(conq_mpmc_array_offer(q, E1));
	CHECK_EQ(conq__load_seq_cst(&q->tail), t + 1);
	CHECK_NEXT(q, E1);
	CHECK_NULL(conq_mpmc_array_poll(q));
	check_rounds(q);
	conq_mpmc_array_destroy(q);
}

/* A poll past the tail (its FAA overshot) closes its position at once, as no
 * producer holds it, and leaves the tail alone; the producer that claims
 * that position next finds it closed and offers at the next one. */
static void case_past_tail(void)
{
	conq_mpmc_array *q = make(4, 0);
	if (!CHECK_NOT_NULL(q))
		return;
	/* [Q7] seq_cst: as in conq__mpmc_claim_take (a white-box claim past
	 * the tail); the tail load, [Q11], as in take. */
	conq__idx_t h = conq__faa_seq_cst(&q->head, (conq__idx_t)1);
	CHECK_NULL(conq__mpmc_take(q, h));
	CHECK_EQ(conq__load_seq_cst(&q->tail), h);
	CHECK_EQ(conq_mpmc_array_size(q), 0);
	CHECK_TRUE(conq_mpmc_array_is_empty(q));
	CHECK_TRUE(conq_mpmc_array_offer(q, E1)); /* h lost, then h + 1 */
	CHECK_EQ(conq__load_seq_cst(&q->tail), h + 2);
	CHECK_PTR_EQ(conq_mpmc_array_poll(q), E1);
	CHECK_NULL(conq_mpmc_array_poll(q));
	conq_mpmc_array_destroy(q);
}

static void case_poll_waits(void)
{
	each_start("poll_waits", 8, "peek", poll_waits);
}
static void case_abandoned(void)
{
	each_start("abandoned", 2, NULL, abandoned);
}
static void case_look_window(void)
{
	each_start("look_window", 2, NULL, look_window);
}
static void case_reserved(void)
{
	each_start("reserved", 4, NULL, reserved);
}

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
    {"poll_waits", case_poll_waits},
    {"abandoned", case_abandoned},
    {"look_window", case_look_window},
    {"past_tail", case_past_tail},
    {"reserved", case_reserved},
    {"tombstone", case_tombstone},
    {"closed_then_unclaimed", case_closed_then_unclaimed},
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
