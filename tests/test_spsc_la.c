/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * White-box tests of the SPSC linked-array families (conq_spsc_chunked,
 * conq_spsc_growable, conq_spsc_unbounded) through create_with and a
 * counting allocator: every block is freed by destroy, alignment is
 * honoured, allocation failure in offer / offer_bulk / offer_burst / fill is
 * ENOMEM with the elements left with the caller and the queue usable after,
 * offer_bulk is all or nothing under ENOMEM, and a drained queue keeps at
 * most its current chunk, one spare and the cooling chunks; and that a
 * recycled chunk (the spare) is all NULL, since the consumer clears only
 * the slots it knows to be set (conq__spsc_la_retire) and the producer
 * trusts a chunk's first lap without looking.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "counting_alloc.h"
#include "queues.h"

#include "conq/impl/testing.h"
#include "conq/spsc_chunked.h"
#include "conq/spsc_unbounded.h"

static const struct tq_desc *row(const char *name)
{
	for (size_t i = 0; i < tq_queue_count; i++)
		if (strcmp(tq_queues[i].name, name) == 0)
			return &tq_queues[i];
	return NULL;
}

/* conq asks for CONQ_PAD alignment for every block. */
static void *c_alloc_pad(void *ctx, size_t size, size_t align)
{
	tq_counting *c = (tq_counting *)ctx;
	if (align != CONQ_PAD)
		c->bad++;
	return tq_c_alloc(ctx, size, align);
}

static void run_family(const struct tq_desc *d)
{
	tq_counting cnt = TQ_COUNTING_INIT;
	conq_allocator a = {c_alloc_pad, tq_c_free, &cnt};
	const size_t caps[] = {1, 2, 8, 64, 1000};
	for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++) {
		size_t c = caps[ci];
		check_context("%s cap=%zu", d->name, c);
		void *q = d->create_with(c, &a);
		if (!CHECK_NOT_NULL(q))
			continue;
		CHECK_GT(cnt.live, 0);
		uint64_t lim =
		    d->bounded ? (uint64_t)d->capacity(q) : 4 * c + 8;
		uint64_t in = 1, out = 1;
		/* Fill up, then drain: several chunks come and go. */
		for (int round = 0; round < 4; round++) {
			while (in - out < lim && d->offer(q, tq_elem(in)))
				in++;
			CHECK_EQ(in - out, lim);
			if (d->bounded) {
				errno = 0;
				CHECK_FALSE(d->offer(q, tq_elem(in)));
				CHECK_EQ(errno, 0);
			}
			void *e;
			uint64_t bad = 0;
			while ((e = d->poll(q)) != NULL)
				bad += tq_val(e) != out++;
			CHECK_EQ(bad, 0);
			CHECK_EQ(in, out);
			/* Bounded memory: the queue, its chunk, one spare,
			 * and the chunks cooling before they may become the
			 * spare (at most CONQ__COLD_MAX). */
			CHECK_LE(cnt.live, 3 + CONQ__COLD_MAX);
		}
		/* Allocation failure: offer until it fails, ENOMEM (or full).
		 */
		cnt.fail = true;
		bool enomem = false;
		for (uint64_t k = 0; k < lim + 4 * c + 8; k++) {
			errno = 0;
			if (d->offer(q, tq_elem(in))) {
				in++;
				continue;
			}
			if (d->bounded && in - out == lim) {
				CHECK_EQ(errno, 0);
				break;
			}
			CHECK_EQ(errno, ENOMEM);
			enomem = true;
			/* The queue still answers, and still fails. */
			errno = 0;
			CHECK_FALSE(d->offer(q, tq_elem(in)));
			CHECK_EQ(errno, ENOMEM);
			void *es[3] = {tq_elem(in), tq_elem(in + 1),
				       tq_elem(in + 2)};
			/* All or nothing: 3 that can never fit under the
			 * capacity are refused as "full" (errno untouched)
			 * before any chunk is wanted. */
			bool fits3 = !d->bounded || lim - (in - out) >= 3;
			errno = 0;
			CHECK_EQ(d->offer_bulk(q, es, 3), 0);
			CHECK_EQ(errno, fits3 ? ENOMEM : 0);
			errno = 0;
			CHECK_EQ(d->offer_burst(q, es, 3), 0);
			CHECK_EQ(errno, ENOMEM);
			CHECK_EQ(d->size(q), in - out);
			break;
		}
		/* Unbounded queues and any with more than one chunk's worth
		 * must have needed a chunk. */
		if (!d->bounded)
			CHECK_TRUE(enomem);
		cnt.fail = false;
		/* Usable again: offer more, then bulk across chunks. */
		for (int k = 0; k < 3 && (!d->bounded || in - out < lim); k++)
			CHECK_TRUE(d->offer(q, tq_elem(in++)));
		uint64_t bad = 0;
		void *e;
		while ((e = d->poll(q)) != NULL)
			bad += tq_val(e) != out++;
		CHECK_EQ(bad, 0);
		CHECK_EQ(in, out);
		/* offer_bulk under ENOMEM: all or nothing, for every n. */
		size_t maxn = d->bounded ? (size_t)lim : 3 * c + 5;
		void **es = (void **)malloc((maxn + 1) * sizeof(void *));
		if (!CHECK_NOT_NULL(es))
			break;
		for (size_t n = 1; n <= maxn; n++) {
			for (size_t k = 0; k < n; k++)
				es[k] = tq_elem(in + k);
			cnt.fail = true;
			errno = 0;
			size_t got = d->offer_bulk(q, es, n);
			if (got == 0) {
				CHECK_EQ(errno, ENOMEM);
				CHECK_TRUE(d->is_empty(q));
				cnt.fail = false;
				got = d->offer_bulk(q, es, n);
				CHECK_EQ(got, n);
			} else {
				CHECK_EQ(got, n);
			}
			cnt.fail = false;
			in += got;
			CHECK_EQ(d->size(q), n);
			bad = 0;
			while ((e = d->poll(q)) != NULL)
				bad += tq_val(e) != out++;
			CHECK_EQ(bad, 0);
			CHECK_EQ(in, out);
			CHECK_LE(cnt.live, 3 + CONQ__COLD_MAX);
		}
		free(es);
		d->destroy(q);
		CHECK_EQ(cnt.live, 0);
		CHECK_EQ(cnt.bad, 0);
	}
	/* create_with itself under allocation failure: NULL + ENOMEM. */
	check_context("%s create_with ENOMEM", d->name);
	cnt.fail = true;
	errno = 0;
	CHECK_NULL(d->create_with(64, &a));
	CHECK_EQ(errno, ENOMEM);
	cnt.fail = false;
	/* Only the queue itself allocated, then its chunk fails. */
	conq__test_fail_alloc_after(1);
	errno = 0;
	CHECK_NULL(d->create_with(64, NULL));
	CHECK_EQ(errno, ENOMEM);
	conq__test_fail_alloc_after(-1);
	CHECK_EQ(cnt.live, 0);
}

/* The spare, if any, must be all NULL (it was retired with JUMP, pending
 * clears and a wrapped lap in every position). Single-threaded. */
static uint64_t spare_dirty(const conq__spsc_la *la)
{
	const conq__spsc_la_chunk *ch = la->spare;
	if (ch == NULL)
		return 0;
	const void *const *slots = (const void *const *)conq__spsc_la_slots(ch);
	uint64_t dirty = 0;
	for (uint64_t i = 0; i < ch->ring; i++)
		dirty += slots[i] != NULL;
	return dirty + (ch->next != NULL);
}

/* A scripted random run over one core: offers and polls of every width
 * (offer, offer_bulk, offer_burst, fill; poll, poll_burst, peek), so that
 * chunks are left at every position, wrapped or not, with every count of
 * pending clears; after each step the spare is all NULL and FIFO holds. */
static void *fill_next(void *ctx)
{
	uint64_t *v = (uint64_t *)ctx;
	return tq_elem((*v)++);
}
static void recycle_run(const char *name, conq__spsc_la *la, uint64_t seed)
{
	check_context("%s recycled chunks, seed %llu", name,
		      (unsigned long long)seed);
	uint64_t x = seed, in = 1, out = 1, dirty = 0, bad = 0, steps = 0;
	void *es[40];
	for (int step = 0; step < 50000; step++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		unsigned op = (unsigned)(x >> 60),
			 k = 1 + (unsigned)(x >> 40) % 37;
		switch (op % 8) {
		case 0:
		case 1:
			for (unsigned i = 0; i < k; i++)
				if (conq__spsc_la_offer(la, tq_elem(in)))
					in++;
			break;
		case 2:
			for (unsigned i = 0; i < k; i++)
				es[i] = tq_elem(in + i);
			in += conq__spsc_la_offer_bulk(la, es, k);
			break;
		case 3:
			for (unsigned i = 0; i < k; i++)
				es[i] = tq_elem(in + i);
			in += conq__spsc_la_offer_burst(la, es, k);
			break;
		case 4:
			conq__spsc_la_fill(la, fill_next, &in, k);
			break;
		case 5:
		case 6:
			for (unsigned i = 0; i < k; i++) {
				void *e = conq__spsc_la_poll(la);
				if (e == NULL)
					break;
				bad += tq_val(e) != out++;
			}
			break;
		default: {
			void *e = conq__spsc_la_head(la);
			if (e != NULL)
				bad += tq_val(e) != out;
			size_t got = conq__spsc_la_poll_burst(la, es, k);
			for (size_t i = 0; i < got; i++)
				bad += tq_val(es[i]) != out++;
			break;
		}
		}
		dirty += spare_dirty(la);
		steps++;
	}
	void *e;
	while ((e = conq__spsc_la_poll(la)) != NULL)
		bad += tq_val(e) != out++;
	dirty += spare_dirty(la);
	CHECK_EQ(bad, 0);
	CHECK_EQ(in, out);
	CHECK_EQ(dirty, 0);
	CHECK_EQ(steps, 50000);
}

static void run_recycle(void)
{
	const size_t chunks[] = {2, 8, 16, 64};
	for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
		for (uint64_t seed = 1; seed <= 3; seed++) {
			conq_spsc_chunked *c =
			    conq_spsc_chunked_create(chunks[i], 4 * chunks[i]);
			if (CHECK_NOT_NULL(c)) {
				recycle_run("spsc_chunked", &c->la, seed);
				conq_spsc_chunked_destroy(c);
			}
			conq_spsc_unbounded *u =
			    conq_spsc_unbounded_create(chunks[i]);
			if (CHECK_NOT_NULL(u)) {
				recycle_run("spsc_unbounded", &u->la, seed);
				conq_spsc_unbounded_destroy(u);
			}
		}
	}
}

int main(void)
{
	run_recycle();
	const char *names[] = {"spsc_chunked", "spsc_growable",
			       "spsc_unbounded"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const struct tq_desc *d = row(names[i]);
		if (CHECK_NOT_NULL(d))
			run_family(d);
	}
	return check_report();
}
