/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box tests of the MPSC linked-array families (conq_mpsc_chunked,
 * conq_mpsc_growable, conq_mpsc_unbounded) through create_with and a
 * counting allocator: destroy frees every block with its size; allocation
 * failure in offer / offer_bulk / offer_burst / fill is ENOMEM with the
 * elements left with the caller (nothing lost, nothing duplicated) and the
 * queue usable afterwards; offer_bulk across several chunks is all or
 * nothing; a drained queue keeps at most its current chunk and one spare.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "counting_alloc.h"
#include "conq/conq.h"

static void *elem(uint64_t k)
{
	return (void *)(uintptr_t)k;
}

/* The scenario on one queue, through the generic verbs. Q: the type. */
#define SCENARIO(fam, Q, create_expr, bounded)                                 \
	static void run_##fam(void)                                            \
	{                                                                      \
		tq_counting cnt = TQ_COUNTING_INIT;                            \
		conq_allocator a = {tq_c_alloc, tq_c_free, &cnt};              \
		check_context("%s", #fam);                                     \
		Q *q = create_expr;                                            \
		if (!CHECK_NOT_NULL(q))                                        \
			return;                                                \
		CHECK_EQ(cnt.live, 2); /* the queue and its first chunk */     \
		uint64_t in = 1, out = 1;                                      \
		/* Fill several chunks (chunk 4: 3 elements each). */          \
		for (int i = 0; i < 10; i++)                                   \
			CHECK_TRUE(conq_offer(q, elem(in++)));                 \
		/* Now memory runs out: the offers that need a chunk fail. */  \
		cnt.fail = true;                                               \
		errno = 0;                                                     \
		bool ok;                                                       \
		int k = 0;                                                     \
		while ((ok = conq_offer(q, elem(in))) && k < 64) {             \
			in++;                                                  \
			k++;                                                   \
		}                                                              \
		CHECK_FALSE(ok);                                               \
		CHECK_EQ(errno, ENOMEM);                                       \
		void *es[20];                                                  \
		TQ_CHECK_BATCH_ENOMEM(q, es, in, out);                         \
		/* Memory is back: everything works again. */                  \
		cnt.fail = false;                                              \
		CHECK_EQ(conq_offer_bulk(q, es, 20), 20); /* several chunks */ \
		in += 20;                                                      \
		tq_src s = {in, 0};                                            \
		CHECK_EQ(conq_fill(q, tq_supply, &s, 7), 7);                   \
		CHECK_EQ(s.calls, 7);                                          \
		in += 7;                                                       \
		for (int i = 0; i < 20; i++)                                   \
			es[i] = elem(in + (uint64_t)i);                        \
		size_t b = conq_offer_burst(q, es, 9);                         \
		CHECK_EQ(b, 9);                                                \
		in += b;                                                       \
		CHECK_EQ(conq_size(q), in - out);                              \
		void *e;                                                       \
		size_t badorder = 0;                                           \
		while ((e = conq_poll(q)) != NULL)                             \
			if ((uint64_t)(uintptr_t)e != out++)                   \
				badorder++;                                    \
		CHECK_EQ(badorder, 0);                                         \
		CHECK_EQ(out, in);                                             \
		/* Drained: the queue, its current chunk, at most a spare. */  \
		CHECK_LE(cnt.live, bounded ? 3 : 3);                           \
		CHECK_TRUE(conq_is_empty(q));                                  \
		/* Round trips keep memory bounded. */                         \
		for (int r = 0; r < 50; r++) {                                 \
			for (int i = 0; i < 13; i++)                           \
				CHECK_TRUE(conq_offer(q, elem(in++)));         \
			while ((e = conq_poll(q)) != NULL)                     \
				if ((uint64_t)(uintptr_t)e != out++)           \
					badorder++;                            \
		}                                                              \
		CHECK_EQ(badorder, 0);                                         \
		CHECK_LE(cnt.live, 3);                                         \
		conq_destroy(q);                                               \
		CHECK_EQ(cnt.live, 0);                                         \
		CHECK_EQ(cnt.bad, 0);                                          \
	}

SCENARIO(mpsc_chunked, conq_mpsc_chunked,
	 conq_mpsc_chunked_create_with(4, 1024, &a), true)
SCENARIO(mpsc_unbounded, conq_mpsc_unbounded,
	 conq_mpsc_unbounded_create_with(4, &a), false)

/* Growable: rings double up to max, the outgrown ones are freed; the final
 * ring holds max elements exactly. */
static void run_mpsc_growable(void)
{
	tq_counting cnt = TQ_COUNTING_INIT;
	conq_allocator a = {tq_c_alloc, tq_c_free, &cnt};
	check_context("%s", "mpsc_growable");
	conq_mpsc_growable *q = conq_mpsc_growable_create_with(2, 64, &a);
	if (!CHECK_NOT_NULL(q))
		return;
	CHECK_EQ(conq_capacity(q), 64);
	uint64_t in = 1, out = 1;
	CHECK_TRUE(conq_offer(q, elem(in++)));
	cnt.fail = true;
	errno = 0;
	/* The first ring (2 slots) holds 1 element and the JUMP slot. */
	CHECK_FALSE(conq_offer(q, elem(in)));
	CHECK_EQ(errno, ENOMEM);
	cnt.fail = false;
	while (conq_offer(q, elem(in)))
		in++;
	CHECK_EQ(in - out, 64);
	CHECK_EQ(conq_size(q), 64);
	void *e;
	size_t bad = 0;
	for (int r = 0; r < 20; r++) {
		for (int i = 0; i < 40; i++) {
			e = conq_poll(q);
			if ((uint64_t)(uintptr_t)e != out++)
				bad++;
		}
		while (conq_offer(q, elem(in)))
			in++;
		CHECK_EQ(conq_size(q), 64);
	}
	while ((e = conq_poll(q)) != NULL)
		if ((uint64_t)(uintptr_t)e != out++)
			bad++;
	CHECK_EQ(bad, 0);
	CHECK_EQ(out, in);
	CHECK_EQ(cnt.live, 2); /* the queue and its final ring */
	void *es[64];
	for (int i = 0; i < 64; i++)
		es[i] = elem(in + (uint64_t)i);
	CHECK_EQ(conq_offer_bulk(q, es, 64), 64);
	CHECK_EQ(conq_offer_bulk(q, es, 1), 0);
	conq_destroy(q);
	CHECK_EQ(cnt.live, 0);
	CHECK_EQ(cnt.bad, 0);
}

/* A bulk that needs a chain of chunks, with memory for only part of the
 * chain: nothing is enqueued. */
static void bulk_chain_enomem(void)
{
	tq_counting cnt = TQ_COUNTING_INIT;
	conq_allocator a = {tq_c_alloc, tq_c_free, &cnt};
	check_context("%s", "bulk_chain_enomem");
	conq_mpsc_chunked *q = conq_mpsc_chunked_create_with(4, 64, &a);
	if (!CHECK_NOT_NULL(q))
		return;
	void *es[30];
	for (int i = 0; i < 30; i++)
		es[i] = elem((uint64_t)i + 1);
	CHECK_EQ(conq_offer_bulk(q, es, 3), 3);
	/* The chunk is full: 27 more need 9 chunks; 4 allocations pass,
	 * then memory runs out. */
	long before = cnt.live;
	cnt.allow = 4;
	errno = 0;
	CHECK_EQ(conq_offer_bulk(q, es + 3, 27), 0);
	CHECK_EQ(errno, ENOMEM);
	CHECK_LE(cnt.live, before + 1); /* at most the spare kept */
	CHECK_EQ(conq_size(q), 3);
	cnt.fail = false;
	cnt.allow = -1;
	CHECK_EQ(conq_offer_bulk(q, es + 3, 27), 27);
	CHECK_EQ(conq_size(q), 30);
	for (uint64_t i = 1; i <= 30; i++)
		CHECK_EQ((uint64_t)(uintptr_t)conq_poll(q), i);
	CHECK_NULL(conq_poll(q));
	conq_destroy(q);
	CHECK_EQ(cnt.live, 0);
}

/* create_with: NULL + ENOMEM when the queue or its first chunk cannot be
 * allocated, nothing leaked; bad sizes: EINVAL. */
static void create_enomem(void)
{
	check_context("%s", "create_enomem");
	for (long allow = 0; allow < 2; allow++) {
		tq_counting cnt = TQ_COUNTING_INIT;
		cnt.allow = allow;
		conq_allocator a = {tq_c_alloc, tq_c_free, &cnt};
		errno = 0;
		CHECK_NULL(conq_mpsc_chunked_create_with(4, 16, &a));
		CHECK_EQ(errno, ENOMEM);
		cnt.fail = false;
		cnt.allow = allow;
		errno = 0;
		CHECK_NULL(conq_mpsc_growable_create_with(4, 16, &a));
		CHECK_EQ(errno, ENOMEM);
		cnt.fail = false;
		cnt.allow = allow;
		errno = 0;
		CHECK_NULL(conq_mpsc_unbounded_create_with(4, &a));
		CHECK_EQ(errno, ENOMEM);
		CHECK_EQ(cnt.live, 0);
	}
	errno = 0;
	CHECK_NULL(conq_mpsc_chunked_create(0, 16));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_NULL(conq_mpsc_growable_create(4, 0));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_NULL(conq_mpsc_unbounded_create(0));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_NULL(conq_mpsc_unbounded_create(CONQ_ARRAY_MAX_CAPACITY + 1));
	CHECK_EQ(errno, EINVAL);
	conq_mpsc_chunked *q = conq_mpsc_chunked_create(64, 1); /* chunk cut */
	if (CHECK_NOT_NULL(q)) {
		CHECK_EQ(conq_capacity(q), 1);
		CHECK_TRUE(conq_offer(q, elem(1)));
		CHECK_FALSE(conq_offer(q, elem(2)));
		CHECK_EQ((uint64_t)(uintptr_t)conq_poll(q), 1);
		conq_destroy(q);
	}
	conq_mpsc_unbounded *u = conq_mpsc_unbounded_create(4);
	if (CHECK_NOT_NULL(u)) {
		CHECK_EQ(conq_capacity(u), CONQ_UNBOUNDED);
		conq_destroy(u);
	}
	conq_destroy((conq_mpsc_growable *)NULL);
}

int main(void)
{
	create_enomem();
	run_mpsc_chunked();
	run_mpsc_unbounded();
	run_mpsc_growable();
	bulk_chain_enomem();
	return check_report();
}
