/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box tests of the XADD families (conq_mpsc_xadd, conq_mpmc_xadd)
 * through create_with and a counting allocator:
 *  - sizes: chunk 0 is EINVAL; chunk 1 (JCTools #281 hung on pooled chunks
 *    of one slot) is rounded up and carries traffic across thousands of
 *    chunk boundaries, single-threaded and 2P2C under a watchdog;
 *  - memory: create makes three blocks (queue, first chunk, reserve); a
 *    drained queue keeps at most one more (the spare), however long the
 *    backlog was: after 10^7 elements, within 2x an idle queue's bytes;
 *    destroy frees every block with its size;
 *  - allocation failure: the first failing chunk is absorbed by the reserve
 *    (the claim succeeds, nothing is lost), then offer, offer_bulk,
 *    offer_burst and fill fail with ENOMEM, claiming nothing and asking the
 *    supplier for nothing; with memory back everything works, in order;
 *  - peek (JCTools #310: a peek that read a "future" element from a
 *    recycled chunk): single-threaded, peek always returns the next element
 *    as chunks recycle; with one producer and two consumers, one of which
 *    peeks between polls, every peek returns NULL or an element not older
 *    than the last one it saw (the tail only moves forward), never the
 *    CONSUMED marker, and every element is polled exactly once.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "counting_alloc.h"
#include "conq/conq.h"

static void *elem(uint64_t k)
{
	return (void *)(uintptr_t)k;
}

static uint64_t val(void *e)
{
	return (uint64_t)(uintptr_t)e;
}

/* The single-threaded scenario, through the generic verbs. */
#define SCENARIO(fam)                                                          \
	static void run_##fam(size_t chunk)                                    \
	{                                                                      \
		tq_counting cnt = TQ_COUNTING_INIT;                            \
		conq_allocator a = {tq_c_alloc, tq_c_free, &cnt};              \
		check_context("%s, chunk %zu", #fam, chunk);                   \
		errno = 0;                                                     \
		CHECK_NULL(conq_##fam##_create_with(0, &a));                   \
		CHECK_EQ(errno, EINVAL);                                       \
		conq_##fam *q = conq_##fam##_create_with(chunk, &a);           \
		if (!CHECK_NOT_NULL(q))                                        \
			return;                                                \
		CHECK_EQ(tq_live(&cnt), 3); /* queue, chunk, reserve */        \
		CHECK_EQ(conq_capacity(q), CONQ_UNBOUNDED);                    \
		uint64_t in = 1, out = 1;                                      \
		/* Through thousands of chunks, peeking before every poll:     \
		 * chunks are recycled all along, and the peek must be the     \
		 * next element, never one of a recycled chunk's. */           \
		for (int round = 0; round < 3000; round++) {                   \
			int k = 1 + round % 7;                                 \
			for (int i = 0; i < k; i++)                            \
				CHECK_TRUE(conq_offer(q, elem(in++)));         \
			for (int i = 0; i < k - round % 2; i++) {              \
				CHECK_EQ(val(conq_peek(q)), out);              \
				CHECK_EQ(val(conq_poll(q)), out);              \
				out++;                                         \
			}                                                      \
		}                                                              \
		CHECK_EQ(conq_size(q), in - out);                              \
		while (out < in) {                                             \
			CHECK_EQ(val(conq_relaxed_peek(q)), out);              \
			CHECK_EQ(val(conq_poll(q)), out);                      \
			out++;                                                 \
		}                                                              \
		CHECK_NULL(conq_poll(q));                                      \
		CHECK_NULL(conq_peek(q));                                      \
		CHECK_TRUE(conq_is_empty(q));                                  \
		CHECK_LE(tq_live(&cnt), 4); /* + the spare */                  \
		/* A backlog of 100 chunks (narrow index builds: of their      \
		 * element bound's half), drained: memory comes back. */       \
		uint64_t backlog = 100 * q->q.chunk;                           \
		if (CONQ_INDEX_BITS < 64 && backlog > CONQ__XADD_MAX / 2)      \
			backlog = CONQ__XADD_MAX / 2;                          \
		for (uint64_t i = 0; i < backlog; i++)                         \
			CHECK_TRUE(conq_offer(q, elem(in++)));                 \
		CHECK_GE((uint64_t)tq_live(&cnt), backlog / q->q.chunk);       \
		while (out < in) {                                             \
			if (!CHECK_EQ(val(conq_poll(q)), out))                 \
				break;                                         \
			out++;                                                 \
		}                                                              \
		CHECK_NULL(conq_poll(q)); /* MPMC: releases here */            \
		CHECK_LE(tq_live(&cnt), 4);                                    \
		/* Memory runs out: the reserve takes the first chunk that     \
		 * cannot be allocated, then offers fail with ENOMEM. */       \
		cnt.fail = true;                                               \
		errno = 0;                                                     \
		bool ok;                                                       \
		uint64_t accepted = 0;                                         \
		while ((ok = conq_offer(q, elem(in))) && accepted < 64 * q->q.chunk) { \
			in++;                                                  \
			accepted++;                                            \
		}                                                              \
		CHECK_FALSE(ok);                                               \
		CHECK_EQ(errno, ENOMEM);                                       \
		CHECK_GE(accepted, 1);                                         \
		void *es[20];                                                  \
		TQ_CHECK_BATCH_ENOMEM(q, es, in, out);                         \
		/* Memory is back. */                                          \
		cnt.fail = false;                                              \
		CHECK_EQ(conq_offer_bulk(q, es, 20), 20);                      \
		in += 20;                                                      \
		tq_src s = {in, 0};                                            \
		CHECK_EQ(conq_fill(q, tq_supply, &s, 70), 70);                 \
		CHECK_EQ(s.calls, 70);                                         \
		in += 70;                                                      \
		while (out < in) {                                             \
			if (!CHECK_EQ(val(conq_poll(q)), out))                 \
				break;                                         \
			out++;                                                 \
		}                                                              \
		CHECK_NULL(conq_poll(q));                                      \
		conq_destroy(q);                                               \
		CHECK_EQ(tq_live(&cnt), 0);                                    \
		CHECK_EQ(cnt.bad, 0);                                          \
		check_context("%s", "");                                       \
	}

SCENARIO(mpsc_xadd)
SCENARIO(mpmc_xadd)

/* The bound: the memory (bytes through the allocator hooks) of a
 * queue that held a backlog of 10^7 elements (narrow index builds: their
 * element bound's half) and was drained is within 2x an idle queue's. */
#define BACKLOG(fam)                                                           \
	static void backlog_##fam(size_t chunk, uint64_t n)                    \
	{                                                                      \
		tq_counting cnt = TQ_COUNTING_INIT;                            \
		conq_allocator a = {tq_c_alloc, tq_c_free, &cnt};              \
		check_context("%s, chunk %zu, backlog", #fam, chunk);          \
		conq_##fam *q = conq_##fam##_create_with(chunk, &a);           \
		if (!CHECK_NOT_NULL(q))                                        \
			return;                                                \
		const size_t idle = cnt.bytes;                                 \
		if (CONQ_INDEX_BITS < 64 && n > CONQ__XADD_MAX / 2)            \
			n = CONQ__XADD_MAX / 2;                                \
		size_t peak = 0;                                               \
		for (uint64_t i = 1; i <= n; i++)                              \
			if (!CHECK_TRUE(conq_offer(q, elem(i))))               \
				break;                                         \
		peak = cnt.bytes;                                              \
		CHECK_GE(peak, n * sizeof(void *));                            \
		for (uint64_t i = 1; i <= n; i++)                              \
			if (!CHECK_EQ(val(conq_poll(q)), i))                   \
				break;                                         \
		CHECK_NULL(conq_poll(q));                                      \
		printf("# %s chunk %zu: idle %zu B, %" PRIu64                  \
		       " queued %zu B, drained %zu B\n",                       \
		       #fam, chunk, idle, n, peak, cnt.bytes);                 \
		CHECK_LE(cnt.bytes, 2 * idle);                                 \
		conq_destroy(q);                                               \
		CHECK_EQ(cnt.live, 0);                                         \
		CHECK_EQ(cnt.bytes, 0);                                        \
	}

BACKLOG(mpsc_xadd)
BACKLOG(mpmc_xadd)

/* ------------------------------------------------ threads, chunk 1 (#281) */

#define MT_N 200000u

struct mt {
	conq_mpmc_xadd *q;
	unsigned producers;
	uint64_t n;	    /* per producer */
	unsigned char *seen; /* [producer * n + seq] */
	uint64_t taken;
	int peeker_bad;
	uint64_t peeks;
};

struct mt_arg {
	struct mt *m;
	unsigned id;
};

static void *mt_producer(void *p)
{
	struct mt_arg *a = (struct mt_arg *)p;
	for (uint64_t k = 0; k < a->m->n; k++)
		/* element: producer id in the top bits, seq + 1 below */
		while (!conq_mpmc_xadd_offer(
		    a->m->q, elem(((uint64_t)a->id << 40) | (k + 1))))
			;
	return NULL;
}

static void *mt_consumer(void *p)
{
	struct mt_arg *a = (struct mt_arg *)p;
	struct mt *m = a->m;
	uint64_t total = (uint64_t)m->producers * m->n;
	uint64_t last_peek = 0; /* with one producer: the tail's order */
	uint64_t spins = 0;
	while (conq__load_relaxed(&m->taken) < total) {
		if (a->id == 1 && m->producers == 1) {
			void *pe = conq_mpmc_xadd_peek(m->q);
			if (pe != NULL) {
				m->peeks++;
				if (pe == CONQ__XADD_CONSUMED ||
				    val(pe) < last_peek || val(pe) > m->n)
					m->peeker_bad++;
				else
					last_peek = val(pe);
			}
		}
		void *e = conq_mpmc_xadd_poll(m->q);
		if (e == NULL) {
			if (++spins % 64 == 0)
				sched_yield();
			continue;
		}
		uint64_t v = val(e), id = v >> 40, seq = (v & ((1ull << 40) - 1));
		if (id < m->producers && seq >= 1 && seq <= m->n)
			/* each byte written by the one consumer that polled
			 * its element (a duplicate would race: TSan, and the
			 * count below, see it) */
			__atomic_fetch_add(&m->seen[id * m->n + seq - 1], 1,
					   __ATOMIC_RELAXED);
		conq__faa_relaxed(&m->taken, 1);
	}
	return NULL;
}

static void run_mt(unsigned producers, uint64_t n, size_t chunk)
{
	check_context("mpmc_xadd, %uP2C, chunk %zu", producers, chunk);
	struct mt m = {conq_mpmc_xadd_create(chunk), producers, n, NULL, 0, 0,
		       0};
	if (!CHECK_NOT_NULL(m.q))
		return;
	m.seen = (unsigned char *)calloc((size_t)(producers * n), 1);
	pthread_t t[4];
	struct mt_arg args[4];
	for (unsigned i = 0; i < producers; i++) {
		args[i] = (struct mt_arg){&m, i};
		pthread_create(&t[i], NULL, mt_producer, &args[i]);
	}
	struct mt_arg ca[2] = {{&m, 0}, {&m, 1}};
	pthread_t c[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&c[i], NULL, mt_consumer, &ca[i]);
	for (unsigned i = 0; i < producers; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(c[i], NULL);
	uint64_t lost = 0, dup = 0;
	for (uint64_t i = 0; i < producers * n; i++) {
		lost += m.seen[i] == 0;
		dup += m.seen[i] > 1;
	}
	CHECK_EQ(lost, 0);
	CHECK_EQ(dup, 0);
	CHECK_EQ(m.peeker_bad, 0);
	printf("     mpmc_xadd %uP2C chunk %zu: %llu peeks, all in order\n",
	       producers, chunk, (unsigned long long)m.peeks);
	CHECK_NULL(conq_mpmc_xadd_poll(m.q));
	free(m.seen);
	conq_mpmc_xadd_destroy(m.q);
	check_context("%s", "");
}

static void *watchdog(void *p)
{
	(void)p;
	sleep(100);
	check_fail(__FILE__, __LINE__, "watchdog: 100 s (a hang: JCTools #281?)");
	_exit(check_report() ? 1 : 1);
}

int main(void)
{
	pthread_t w;
	pthread_create(&w, NULL, watchdog, NULL);
	pthread_detach(w);
	size_t chunks[] = {1, 2, 8, 1024};
	for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
		run_mpsc_xadd(chunks[i]);
		run_mpmc_xadd(chunks[i]);
	}
	backlog_mpsc_xadd(1024, 10000000);
	backlog_mpmc_xadd(1024, 10000000);
	backlog_mpmc_xadd(16, 1000000);
	const char *s = getenv("CONQ_TEST_SCALE");
	double scale = s ? atof(s) : 1.0;
	uint64_t n = (uint64_t)(MT_N * (scale > 0 && scale < 1 ? scale : 1));
	/* Narrow index builds: a consumer descheduled while the others claim
	 * 2^CONQ_INDEX_BITS indices would see the same tail again and its
	 * CAS succeed (ABA: every CAS-claimed index shares this; docs/
	 * memory-model.md). Below half the range no index repeats. */
	if (CONQ_INDEX_BITS < 64 && 2 * n > CONQ__IDX_HALF / 2)
		n = CONQ__IDX_HALF / 4;
	run_mt(1, n, 1);  /* chunk 1 -> 2: a chunk every two elements */
	run_mt(2, n, 1);
	run_mt(1, n, 64);
	run_mt(2, n, 64);
	return check_report();
}
