/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box tests of conq_mpmc_array's peek: states that the table-driven
 * tests reach only by chance (a position claimed by a producer but not
 * published yet, while a later one is), set up with the header's internal
 * steps (claim, reserve, publish) one at a time.
 *
 * The rule under test: strict peek never looks past a position that may
 * still receive an element, so with one consumer it returns what the next
 * poll returns. Usage: test_mpmc_array [case...]
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

/* Claim positions t, t+1 (as offer_burst, offer_bulk and fill do), publish
 * only t+1, so t is claimed but its cell still FREE (the producer is late).
 * peek must not return E2 while E1 may still land at t: it closes t, as
 * poll would, and then E2 is what poll returns; the late producer then finds
 * t lost. relaxed_peek, which never waits, returns NULL there. */
static void case_late_producer(void)
{
	for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
		check_context("late_producer start %llu",
			      (unsigned long long)starts[i]);
		conq_mpmc_array *q = make(8, starts[i]);
		if (!CHECK_NOT_NULL(q))
			return;
		conq__idx_t t = 0;
		CHECK_EQ(conq__mpmc_claim_put(q, 2, 2, &t), 2);
		/* init_at keeps the index width's low bits of start. */
		CHECK_EQ(t, (conq__idx_t)starts[i]);
		CHECK_TRUE(conq__mpmc_reserve(q, t + 1));
		conq__mpmc_publish(q, t + 1, E2);

		CHECK_NULL(conq_mpmc_array_relaxed_peek(q));
		CHECK_FALSE(conq_mpmc_array_is_empty(q));    /* E2 is there */
		CHECK_NULL(conq_mpmc_array_relaxed_peek(q)); /* no close */
		CHECK_TRUE(conq__mpmc_state(conq__mpmc_cell_at(q, t)->seq,
					    conq__mpmc_lap(q, t)) ==
			   CONQ__MPMC_FREE);

		CHECK_PTR_EQ(conq_mpmc_array_peek(q), E2);
		CHECK_FALSE(conq__mpmc_reserve(q, t)); /* closed by peek */
		CHECK_PTR_EQ(conq_mpmc_array_peek(q), E2);
		CHECK_PTR_EQ(conq_mpmc_array_relaxed_peek(q), NULL);
		CHECK_PTR_EQ(conq_mpmc_array_poll(q), E2);
		CHECK_NULL(conq_mpmc_array_poll(q));
		CHECK_NULL(conq_mpmc_array_peek(q));
		CHECK_TRUE(conq_mpmc_array_is_empty(q));
		CHECK_EQ(conq_mpmc_array_size(q), 0);

		/* The late producer offers again, at a later position; the
		 * ring keeps working over several laps. */
		CHECK_TRUE(conq_mpmc_array_offer(q, E1));
		void *head = E1;
		for (uintptr_t k = 0; k < 40; k++) {
			CHECK_TRUE(
			    conq_mpmc_array_offer(q, (void *)(0x2000 + k)));
			CHECK_PTR_EQ(conq_mpmc_array_peek(q), head);
			CHECK_PTR_EQ(conq_mpmc_array_poll(q), head);
			head = (void *)(0x2000 + k);
		}
		CHECK_PTR_EQ(conq_mpmc_array_poll(q), head);
		CHECK_NULL(conq_mpmc_array_poll(q));
		CHECK_EQ(conq_mpmc_array_size(q), 0);
		conq_mpmc_array_destroy(q);
	}
	check_context("%s", "");
}

struct later {
	conq_mpmc_array *q;
	conq__idx_t t;
};

static void *publish_later(void *arg)
{
	struct later *l = (struct later *)arg;
	struct timespec ts = {0, 20 * 1000 * 1000};
	nanosleep(&ts, NULL);
	conq__mpmc_publish(l->q, l->t, E1);
	return NULL;
}

/* t reserved (RES: the producer is writing it), t+1 published: peek waits
 * for t's element instead of returning E2 (another thread publishes t 20 ms
 * later); relaxed_peek returns NULL meanwhile. */
static void case_reserved(void)
{
	for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
		check_context("reserved start %llu",
			      (unsigned long long)starts[i]);
		conq_mpmc_array *q = make(4, starts[i]);
		if (!CHECK_NOT_NULL(q))
			return;
		conq__idx_t t = 0;
		CHECK_EQ(conq__mpmc_claim_put(q, 2, 2, &t), 2);
		CHECK_TRUE(conq__mpmc_reserve(q, t));
		CHECK_TRUE(conq__mpmc_reserve(q, t + 1));
		conq__mpmc_publish(q, t + 1, E2);
		CHECK_NULL(conq_mpmc_array_relaxed_peek(q));

		struct later l = {q, t};
		pthread_t th;
		if (!CHECK_EQ(pthread_create(&th, NULL, publish_later, &l), 0))
			return;
		CHECK_PTR_EQ(conq_mpmc_array_peek(q), E1);
		pthread_join(th, NULL);
		CHECK_PTR_EQ(conq_mpmc_array_relaxed_peek(q), E1);
		CHECK_PTR_EQ(conq_mpmc_array_poll(q), E1);
		CHECK_PTR_EQ(conq_mpmc_array_peek(q), E2);
		CHECK_PTR_EQ(conq_mpmc_array_poll(q), E2);
		CHECK_NULL(conq_mpmc_array_peek(q));
		conq_mpmc_array_destroy(q);
	}
	check_context("%s", "");
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

/* fill gives positions back (the tail moves back) after a peek closed them:
 * the closed positions are lost to producers and skipped by polls, and the
 * queue goes on working. The interleaving of conq__mpmc_unclaim's two steps
 * with a peek, done by hand. */
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
	/* a peek closes t and t + 1 (claimed, FREE) and finds nothing */
	CHECK_NULL(conq_mpmc_array_peek(q));
	/* unclaim, step 2: the tail goes back to t */
	conq__idx_t to = t + 2;
	CHECK_TRUE(conq__cas_strong_seq_cst(&q->tail, &to, t));
	CHECK_TRUE(conq_mpmc_array_is_empty(q));
	CHECK_NULL(conq_mpmc_array_peek(q));
	/* offer skips the two closed positions */
	CHECK_TRUE(conq_mpmc_array_offer(q, E1));
	CHECK_EQ(conq__load_seq_cst(&q->tail), t + 3);
	CHECK_PTR_EQ(conq_mpmc_array_peek(q), E1);
	CHECK_PTR_EQ(conq_mpmc_array_poll(q), E1);
	CHECK_NULL(conq_mpmc_array_poll(q));
	for (uintptr_t k = 1; k <= 20; k++) {
		CHECK_TRUE(conq_mpmc_array_offer(q, (void *)k));
		CHECK_PTR_EQ(conq_mpmc_array_peek(q), (void *)k);
		CHECK_PTR_EQ(conq_mpmc_array_poll(q), (void *)k);
	}
	CHECK_EQ(conq_mpmc_array_size(q), 0);
	conq_mpmc_array_destroy(q);
}

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
    {"late_producer", case_late_producer},
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
