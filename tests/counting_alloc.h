/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * counting_alloc.h - what the white-box tests of the growing families
 * (test_spsc_la.c, test_mpsc_la.c, test_xadd.c) give create_with and check
 * through the generic verbs:
 *
 *  - tq_counting, a counting allocator (conq_allocator{tq_c_alloc,
 *    tq_c_free, &cnt}): every block carries its size and the raw pointer in
 *    a header (the size given back to free is checked: `bad`), is filled
 *    with 0x5A (conq must not rely on zeroed memory) and honours the
 *    alignment asked for (else `bad`); `live` blocks allocated and not
 *    freed, `bytes` their sizes, `total` allocations that succeeded; failure on demand: every
 *    allocation fails while `fail` is set, and `allow` >= 0 lets that many
 *    more succeed before setting it. A mutex guards the counters (the XADD
 *    tests allocate from several threads); single-threaded tests may read
 *    and set the fields directly;
 *  - tq_src / tq_supply, a conq_supply_fn handing out tq_elem(next),
 *    tq_elem(next + 1), ... and counting its calls;
 *  - TQ_CHECK_BATCH_ENOMEM, the batch verbs refused while memory is out.
 */
#ifndef CONQ_TESTS_COUNTING_ALLOC_H
#define CONQ_TESTS_COUNTING_ALLOC_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct tq_counting {
	pthread_mutex_t mu;
	long live;  /* blocks allocated, not yet freed */
	size_t bytes; /* their sizes, summed */
	long total; /* allocations that succeeded */
	bool fail;  /* every allocation fails while set */
	long allow; /* >= 0: this many more succeed, then fail is set */
	size_t bad; /* wrong sizes given back, misaligned blocks */
} tq_counting;

#define TQ_COUNTING_INIT {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, false, -1, 0}

struct tq_counting_hdr {
	size_t size;
	void *raw;
};

static inline void *tq_c_alloc(void *ctx, size_t size, size_t align)
{
	tq_counting *c = (tq_counting *)ctx;
	pthread_mutex_lock(&c->mu);
	if (c->allow == 0)
		c->fail = true;
	if (c->allow > 0)
		c->allow--;
	bool fail = c->fail;
	pthread_mutex_unlock(&c->mu);
	if (fail)
		return NULL;
	unsigned char *raw = (unsigned char *)malloc(
	    size + align + sizeof(struct tq_counting_hdr));
	if (raw == NULL)
		return NULL;
	uintptr_t a = (uintptr_t)(raw + sizeof(struct tq_counting_hdr));
	a = (a + align - 1) / align * align;
	unsigned char *p = (unsigned char *)a;
	struct tq_counting_hdr h = {size, raw};
	memcpy(p - sizeof h, &h, sizeof h);
	memset(p, 0x5A, size); /* not zeroed: conq must not rely on it */
	pthread_mutex_lock(&c->mu);
	if ((uintptr_t)p % align != 0)
		c->bad++;
	c->live++;
	c->bytes += size;
	c->total++;
	pthread_mutex_unlock(&c->mu);
	return p;
}

static inline void tq_c_free(void *ctx, void *p, size_t size)
{
	tq_counting *c = (tq_counting *)ctx;
	struct tq_counting_hdr h;
	memcpy(&h, (unsigned char *)p - sizeof h, sizeof h);
	pthread_mutex_lock(&c->mu);
	if (h.size != size)
		c->bad++;
	c->live--;
	c->bytes -= h.size;
	pthread_mutex_unlock(&c->mu);
	free(h.raw);
}

/* The live count, read under the mutex (while other threads allocate). */
static inline long tq_live(tq_counting *c)
{
	pthread_mutex_lock(&c->mu);
	long n = c->live;
	pthread_mutex_unlock(&c->mu);
	return n;
}

/* Supplies tq_elem(next), tq_elem(next + 1), ...; counts calls. */
typedef struct tq_src {
	uint64_t next;
	uint64_t calls;
} tq_src;

static inline void *tq_supply(void *ctx)
{
	tq_src *s = (tq_src *)ctx;
	s->calls++;
	return (void *)(uintptr_t)s->next++;
}

/*
 * While allocation fails (after a single offer has been refused): es[0..20)
 * = elements in, in + 1, ... (an array of 20 the caller declared), and
 * offer_bulk, offer_burst and fill of 20 each refuse with ENOMEM, adding
 * nothing and asking the supplier for nothing, the size still in - out.
 * Through the generic verbs, on any growing family's q.
 */
#define TQ_CHECK_BATCH_ENOMEM(q, es, in, out)                                  \
	do {                                                                   \
		for (int i_ = 0; i_ < 20; i_++)                                \
			(es)[i_] = (void *)(uintptr_t)((in) + (uint64_t)i_);   \
		errno = 0;                                                     \
		CHECK_EQ(conq_offer_bulk(q, es, 20), 0);                       \
		CHECK_EQ(errno, ENOMEM);                                       \
		errno = 0;                                                     \
		CHECK_EQ(conq_offer_burst(q, es, 20), 0);                      \
		CHECK_EQ(errno, ENOMEM);                                       \
		tq_src s_ = {(in), 0};                                         \
		errno = 0;                                                     \
		CHECK_EQ(conq_fill(q, tq_supply, &s_, 20), 0);                 \
		CHECK_EQ(errno, ENOMEM);                                       \
		CHECK_EQ(s_.calls, 0); /* no element stranded */               \
		CHECK_EQ(conq_size(q), (in) - (out));                          \
	} while (0)

#endif /* CONQ_TESTS_COUNTING_ALLOC_H */
