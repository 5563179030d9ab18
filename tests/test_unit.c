/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Single-threaded unit tests, run on every row of the queue table (or on the
 * reference queue with --ref). Usage: test_unit [--ref] [case...]
 *
 * Most checks go through a model: the queue holds the integers
 * next_out .. next_in-1 in order, so every operation has exactly one right
 * answer (single-threaded, even the relaxed variants and size() are exact).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "queues.h"

/* ---- the model ---------------------------------------------------------- */

/* An unbounded queue is never full: the cases that fill a queue up fill an
 * unbounded one with this many elements (several chunks at tq_chunk sizes). */
#define TQ_UNBOUNDED_FULL 256u

/* The largest batch m_random gives an unbounded queue. Narrow index builds
 * (CONQ_INDEX_BITS < 64): an unbounded queue there holds at most
 * 2^(CONQ_INDEX_BITS - 3) elements (its index differences must stay
 * unambiguous), so the random batches are kept small enough that the
 * random walk of its size stays far below that. */
#if CONQ_INDEX_BITS < 64
#define TQ_UNBOUNDED_SPAN 32u
#else
#define TQ_UNBOUNDED_SPAN 256u
#endif

struct model {
	const struct tq_desc *d;
	void *q;
	uint64_t cap;	   /* capacity() for bounded queues, else UINT64_MAX */
	uint64_t full;	   /* what "fill it up" loops stop at: cap for bounded
			    * queues, TQ_UNBOUNDED_FULL for unbounded ones */
	uint64_t next_in;  /* the next element to offer */
	uint64_t next_out; /* the next element poll must return */
	void **buf;	   /* scratch for bulk/burst, cap + 8 entries */
	size_t buflen;
};

static uint64_t m_count(const struct model *m)
{
	return m->next_in - m->next_out;
}

static uint64_t m_free(const struct model *m)
{
	return m->cap - m_count(m);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static bool m_open(struct model *m, const struct tq_desc *d, void *q)
{
	memset(m, 0, sizeof *m);
	m->d = d;
	m->q = q;
	m->next_in = m->next_out = 1;
	m->cap = d->bounded ? (uint64_t)d->capacity(q) : UINT64_MAX;
	m->full = d->bounded ? m->cap : TQ_UNBOUNDED_FULL;
	m->buflen = (size_t)min_u64(m->cap, 4096) + 8;
	m->buf = (void **)malloc(m->buflen * sizeof(void *));
	return CHECK_NOT_NULL(m->buf);
}

static void m_close(struct model *m)
{
	free(m->buf);
	m->buf = NULL;
}

static void m_check_size(struct model *m)
{
	CHECK_EQ(m->d->size(m->q), m_count(m));
	CHECK_EQ(m->d->is_empty(m->q), m_count(m) == 0);
	if (m->d->bounded)
		CHECK_LE(m->d->size(m->q), m->cap);
}

/* m_offer and m_poll return false if the queue disagreed with the model,
 * so that loops "until full/empty" end on a failure instead of hanging. */
static bool m_offer(struct model *m, bool relaxed)
{
	bool want = m_count(m) < m->cap;
	bool ok = (relaxed ? m->d->relaxed_offer
			   : m->d->offer)(m->q, tq_elem(m->next_in));
	if (!CHECK_EQ(ok, want))
		return false;
	if (ok)
		m->next_in++;
	return true;
}

static bool m_poll(struct model *m, bool relaxed)
{
	void *e = (relaxed ? m->d->relaxed_poll : m->d->poll)(m->q);
	if (m_count(m) == 0)
		return CHECK_NULL(e);
	if (e == NULL) {
		CHECK_NOT_NULL(e);
		return false;
	}
	m->next_out++;
	return CHECK_EQ(tq_val(e), m->next_out - 1);
}

/* A family without peek (NULL: the multi-consumer value rings) is not
 * peeked; case_peek says SKIP for it. */
static void m_peek(struct model *m, bool relaxed)
{
	if (m->d->peek == NULL)
		return;
	void *e = (relaxed ? m->d->relaxed_peek : m->d->peek)(m->q);
	if (m_count(m) == 0)
		CHECK_NULL(e);
	else
		CHECK_EQ(tq_val(e), m->next_out);
}

static void m_offer_until_full(struct model *m, bool relaxed)
{
	while (m_count(m) < m->cap && m_offer(m, relaxed))
		;
}

/* Poll until empty, each poll preceded by a peek if `peek`. */
static void m_poll_until_empty(struct model *m, bool relaxed, bool peek)
{
	while (m_count(m) > 0) {
		if (peek)
			m_peek(m, relaxed);
		if (!m_poll(m, relaxed))
			break;
	}
}

static void m_offer_bulk(struct model *m, size_t n)
{
	if (n > m->buflen)
		n = m->buflen;
	for (size_t i = 0; i < n; i++)
		m->buf[i] = tq_elem(m->next_in + i);
	size_t want = (n > 0 && n <= m_free(m)) ? n : 0;
	size_t got = m->d->offer_bulk(m->q, m->buf, n);
	if (CHECK_EQ(got, want))
		m->next_in += got;
}

static void m_offer_burst(struct model *m, size_t n)
{
	if (n > m->buflen)
		n = m->buflen;
	for (size_t i = 0; i < n; i++)
		m->buf[i] = tq_elem(m->next_in + i);
	size_t want = (size_t)min_u64(n, m_free(m));
	size_t got = m->d->offer_burst(m->q, m->buf, n);
	if (CHECK_EQ(got, want))
		m->next_in += got;
}

static void m_poll_burst(struct model *m, size_t n)
{
	if (n > m->buflen)
		n = m->buflen;
	size_t want = (size_t)min_u64(n, m_count(m));
	for (size_t i = 0; i < m->buflen; i++)
		m->buf[i] = NULL;
	size_t got = m->d->poll_burst(m->q, m->buf, n);
	if (!CHECK_EQ(got, want))
		return;
	size_t bad = 0;
	for (size_t i = 0; i < got; i++)
		if (tq_val(m->buf[i]) != m->next_out + i)
			bad++;
	for (size_t i = got; i < m->buflen; i++)
		if (m->buf[i] != NULL) /* wrote past what it returned */
			bad++;
	CHECK_EQ(bad, 0);
	m->next_out += got;
}

struct drain_ctx {
	uint64_t next; /* the element expected next */
	uint64_t calls;
	uint64_t bad;
};

static void drain_cb(void *ctx, void *e)
{
	struct drain_ctx *c = (struct drain_ctx *)ctx;
	if (tq_val(e) != c->next)
		c->bad++;
	c->next++;
	c->calls++;
}

static void m_drain(struct model *m, size_t limit)
{
	struct drain_ctx c = {m->next_out, 0, 0};
	size_t want = (size_t)min_u64(limit, m_count(m));
	size_t got = m->d->drain(m->q, drain_cb, &c, limit);
	CHECK_EQ(got, want);
	CHECK_EQ(c.calls, got);
	CHECK_EQ(c.bad, 0);
	/* (min: a buggy drain must not wrap the model's count) */
	m->next_out += min_u64(c.calls, m_count(m));
}

struct fill_ctx {
	uint64_t next; /* the next element to supply */
	uint64_t calls;
	uint64_t stop_at;   /* return NULL on this call (1-based); 0: never */
	uint64_t max_calls; /* past this, NULL: a buggy fill must not hang */
};

static void *fill_cb(void *ctx)
{
	struct fill_ctx *c = (struct fill_ctx *)ctx;
	c->calls++;
	if (c->calls == c->stop_at || c->calls > c->max_calls)
		return NULL;
	return tq_elem(c->next++);
}

/* fill(limit) with a supplier that returns NULL on call `stop_at` (0: never).
 * Exactly the supplied elements must be enqueued: none lost, and the supplier
 * asked only while a slot is free. */
static void m_fill(struct model *m, size_t limit, uint64_t stop_at)
{
	uint64_t k = min_u64(limit, m_free(m));
	struct fill_ctx c = {m->next_in, 0, stop_at, k};
	uint64_t want = k, want_calls = k;
	if (stop_at != 0 && stop_at <= k) {
		want = stop_at - 1;
		want_calls = stop_at;
	}
	size_t got = m->d->fill(m->q, fill_cb, &c, limit);
	CHECK_EQ(got, want);
	CHECK_EQ(c.calls, want_calls);
	/* Every element the supplier handed out is in the queue. */
	CHECK_EQ(c.next - m->next_in, got);
	m->next_in += got;
}

/* Empty the queue with poll, checking every element. */
static void m_drain_all(struct model *m)
{
	uint64_t bad = 0, n = m_count(m);
	if (m->d->bounded && !CHECK_LE(n, m->cap)) /* the model is lost */
		n = m->cap + 1;
	for (uint64_t i = 0; i < n; i++) {
		void *e = m->d->poll(m->q);
		if (tq_val(e) != m->next_out)
			bad++;
		m->next_out++;
	}
	CHECK_EQ(bad, 0);
	CHECK_NULL(m->d->poll(m->q));
	m_check_size(m);
}

/*
 * `nops` random operations, in phases that lean towards offering or towards
 * polling so that both the full and the empty edges are hit often.
 */
static void m_random(struct model *m, uint64_t seed, unsigned nops)
{
	uint64_t s = seed | 1;
	size_t span = (size_t)min_u64(
			  m->d->bounded ? m->cap : TQ_UNBOUNDED_SPAN, 4096) +
		      3;
	for (unsigned i = 0; i < nops; i++) {
		bool lean_offer = (i / 50) % 2 == 0;
		/* An unbounded queue only consumes while it holds 16 *
		 * TQ_UNBOUNDED_FULL (4096) or more: it would grow without
		 * end, past what a narrow index build (CONQ_INDEX_BITS=16)
		 * can count. */
		bool over = !m->d->bounded &&
			    m_count(m) >= 16 * TQ_UNBOUNDED_FULL;
		unsigned cls = (unsigned)tq_rand_below(&s, 100);
		unsigned op = (unsigned)tq_rand_below(&s, 6);
		size_t n = (size_t)tq_rand_below(&s, span);
		if (cls < 10) { /* observe */
			if (op < 2)
				m_peek(m, op == 1);
			else
				m_check_size(m);
		} else if ((cls < 65) == lean_offer && !over) { /* produce */
			switch (op) {
			case 0:
				m_offer(m, false);
				break;
			case 1:
				m_offer(m, true);
				break;
			case 2:
				m_offer_bulk(m, n);
				break;
			case 3:
				m_offer_burst(m, n);
				break;
			case 4:
				m_fill(m, n, 0);
				break;
			default:
				m_fill(m, n, tq_rand_below(&s, n + 2));
				break;
			}
		} else { /* consume */
			switch (op) {
			case 0:
				m_poll(m, false);
				break;
			case 1:
				m_poll(m, true);
				break;
			case 2:
				m_poll_burst(m, n);
				break;
			case 3:
				m_drain(m, n);
				break;
			case 4:
				m_peek(m, false);
				m_poll(m, false);
				break;
			default:
				m_drain(m, n / 2 + 1);
				break;
			}
		}
	}
	m_check_size(m);
	m_drain_all(m);
}

/* ---- helpers ------------------------------------------------------------- */

static bool have(bool present, const char *what)
{
	if (!present) {
		check_skip("the family has no %s", what);
		return false;
	}
	return true;
}

static bool need_bounded(const struct tq_desc *d)
{
	if (!d->bounded) {
		check_skip("unbounded: no capacity to test");
		return false;
	}
	return true;
}

/* The requested capacities at the edges: 1, 2, 3 and 2^k - 1, 2^k, 2^k + 1,
 * up to 2^16 + 1 or CONQ_ARRAY_MAX_CAPACITY (2^12 in a 16-bit index build),
 * whichever is less. */
static size_t edge_caps(size_t *out, size_t max)
{
	size_t n = 0;
	out[n++] = 1;
	out[n++] = 2;
	out[n++] = 3;
	for (unsigned k = 2; k <= 16 && n + 3 <= max; k++) {
		size_t c = (size_t)1 << k;
		if (c > CONQ_ARRAY_MAX_CAPACITY)
			break;
		out[n++] = c - 1;
		out[n++] = c;
		if (c < CONQ_ARRAY_MAX_CAPACITY)
			out[n++] = c + 1;
	}
	return n;
}

/* ---- cases ----------------------------------------------------------------
 */

/* capacity() is the next power of two; exactly capacity() elements fit; they
 * come out in order; then poll is NULL. Twice, the second time with the
 * relaxed variants, from where the first left the ring. */
static void case_capacity(const struct tq_desc *d)
{
	if (!need_bounded(d))
		return;
	size_t caps[64];
	size_t ncaps = edge_caps(caps, 64);
	for (size_t i = 0; i < ncaps; i++) {
		size_t req = caps[i];
		void *q = d->create(req);
		if (!CHECK_NOT_NULL(q))
			continue;
		uint64_t cap = tq_pow2(req);
		CHECK_EQ(d->capacity(q), cap);
		if (d->memsize != NULL)
			CHECK_EQ(d->memsize(req), d->memsize((size_t)cap));
		for (int round = 0; round < 2; round++) {
			bool rx = round == 1;
			uint64_t base = 1 + (uint64_t)round * cap, ok = 0;
			CHECK_TRUE(d->is_empty(q));
			for (uint64_t k = 0; k < cap; k++)
				ok += (rx ? d->relaxed_offer
					  : d->offer)(q, tq_elem(base + k));
			CHECK_EQ(ok, cap);
			CHECK_EQ(d->size(q), cap);
			CHECK_FALSE(d->is_empty(q));
			CHECK_FALSE(d->offer(q, tq_elem(999999)));
			CHECK_FALSE(d->relaxed_offer(q, tq_elem(999999)));
			CHECK_EQ(d->size(q), cap);
			if (d->peek != NULL)
				CHECK_EQ(tq_val(d->peek(q)), base);
			uint64_t bad = 0;
			for (uint64_t k = 0; k < cap; k++) {
				void *e = (rx ? d->relaxed_poll : d->poll)(q);
				if (tq_val(e) != base + k)
					bad++;
			}
			CHECK_EQ(bad, 0);
			CHECK_NULL(d->poll(q));
			CHECK_NULL(d->relaxed_poll(q));
			if (d->peek != NULL)
				CHECK_NULL(d->peek(q));
			CHECK_EQ(d->size(q), 0);
			CHECK_TRUE(d->is_empty(q));
		}
		d->destroy(q);
	}
}

/* Fill to full and drain to empty, many times around the ring, each time
 * with another pair of methods, and with the phase shifted between rounds. */
static void case_wraps(const struct tq_desc *d)
{
	if (!need_bounded(d))
		return;
	static const size_t caps[] = {1, 2, 3, 5, 8, 31, 32, 33, 100};
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		void *q = d->create(caps[i]);
		struct model m;
		if (!CHECK_NOT_NULL(q) || !m_open(&m, d, q)) {
			d->destroy(q);
			continue;
		}
		/* At least 8 trips around a ring of up to cap + 64 slots. */
		unsigned rounds = (unsigned)(8 * (m.cap + 64) / m.cap) + 4;
		for (unsigned r = 0; r < rounds; r++) {
			size_t c = (size_t)m.cap;
			switch (r % 5) {
			case 0:
				m_offer_until_full(&m, false);
				break;
			case 1:
				m_offer_bulk(&m, c);
				break;
			case 2:
				m_offer_burst(&m, c + 1);
				break;
			case 3:
				m_fill(&m, SIZE_MAX, 0);
				break;
			default:
				m_offer_until_full(&m, true);
				break;
			}
			m_check_size(&m);
			CHECK_EQ(m_count(&m), m.cap);
			m_offer(&m, false); /* full: must fail */
			switch (r % 4) {
			case 0:
				m_poll_until_empty(&m, false, false);
				break;
			case 1:
				m_poll_burst(&m, c + 1);
				break;
			case 2:
				m_drain(&m, SIZE_MAX);
				break;
			default:
				m_poll_until_empty(&m, true, true);
				break;
			}
			m_check_size(&m);
			m_poll(&m, false); /* empty: must be NULL */
			for (unsigned k = 0; k < r % 3; k++) { /* shift phase */
				m_offer(&m, false);
				m_poll(&m, false);
			}
		}
		m_close(&m);
		d->destroy(q);
	}
}

/* Near full, room is exact: from a full queue, each poll makes room for
 * exactly one offer, through every phase of a lazily clearing consumer (the
 * SPSC consumer clears 32 slots at a time, and its producer, finding the
 * next slot not yet cleared, must fall back on the consumer index) and
 * every offer flavour. Then the same with k elements out and k in. */
static void case_near_full(const struct tq_desc *d)
{
	if (!need_bounded(d))
		return;
	static const size_t caps[] = {1, 2, 31, 32, 33, 64, 100, 1000, 4096};
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		void *q = d->create(caps[i]);
		struct model m;
		if (!CHECK_NOT_NULL(q) || !m_open(&m, d, q)) {
			d->destroy(q);
			continue;
		}
		m_offer_until_full(&m, false);
		CHECK_EQ(m_count(&m), m.cap);
		for (unsigned r = 0; r < 100; r++) {
			m_poll(&m, r & 1);
			m_offer(&m, (r & 2) != 0); /* one slot: must succeed */
			m_offer(&m, false);         /* full again: must fail */
			m_check_size(&m);
		}
		for (size_t k = 1; k <= 70 && k <= m.cap; k++) {
			for (size_t j = 0; j < k; j++)
				m_poll(&m, false);
			switch (k % 3) {
			case 0:
				m_offer_bulk(&m, k); /* exactly k fit */
				break;
			case 1:
				m_offer_burst(&m, k + 1); /* k of k + 1 */
				break;
			default:
				m_fill(&m, SIZE_MAX, 0);
				break;
			}
			CHECK_EQ(m_count(&m), m.cap);
			m_offer(&m, false);
			m_check_size(&m);
		}
		m_drain_all(&m);
		m_close(&m);
		d->destroy(q);
	}
}

/* peek shows the head without removing it, and it is what poll returns. */
static void case_peek(const struct tq_desc *d)
{
	if (d->peek == NULL) {
		check_skip("%s: no peek", d->name);
		return;
	}
	void *q = d->create(4);
	if (!CHECK_NOT_NULL(q))
		return;
	CHECK_NULL(d->peek(q));
	CHECK_NULL(d->relaxed_peek(q));
	CHECK_TRUE(d->offer(q, tq_elem(7)));
	CHECK_TRUE(d->offer(q, tq_elem(8)));
	CHECK_EQ(tq_val(d->peek(q)), 7);
	CHECK_EQ(tq_val(d->peek(q)), 7);
	CHECK_EQ(tq_val(d->relaxed_peek(q)), 7);
	CHECK_EQ(d->size(q), 2);
	CHECK_EQ(tq_val(d->poll(q)), 7);
	CHECK_EQ(tq_val(d->relaxed_peek(q)), 8);
	CHECK_EQ(d->size(q), 1);
	CHECK_EQ(tq_val(d->relaxed_poll(q)), 8);
	CHECK_NULL(d->peek(q));
	CHECK_TRUE(d->is_empty(q));
	/* peek == the next poll, across several wraps of a small ring */
	uint64_t bad = 0, v = 100;
	for (int i = 0; i < 300; i++) {
		int k = 1 + i % 4;
		for (int j = 0; j < k; j++)
			CHECK_TRUE(d->offer(q, tq_elem(v++)));
		for (int j = 0; j < k; j++) {
			void *p = d->peek(q);
			if (p == NULL || p != d->relaxed_peek(q) ||
			    p != d->poll(q))
				bad++;
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_NULL(d->peek(q));
	d->destroy(q);
}

/* size() and is_empty() are exact at every step, within [0, capacity]. */
static void case_size(const struct tq_desc *d)
{
	static const size_t caps[] = {1, 2, 4, 16, 64};
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		void *q = d->create(caps[i]);
		struct model m;
		if (!CHECK_NOT_NULL(q) || !m_open(&m, d, q)) {
			d->destroy(q);
			continue;
		}
		uint64_t full = m.full;
		for (int round = 0; round < 3; round++) {
			m_check_size(&m);
			while (m_count(&m) < m.full) {
				if (!m_offer(&m, false))
					break;
				m_check_size(&m);
			}
			m_offer(&m, true);
			m_check_size(&m);
			while (m_count(&m) > 0) {
				if (!m_poll(&m, round == 1))
					break;
				m_check_size(&m);
			}
			m_offer_bulk(&m, (size_t)full);
			m_check_size(&m);
			m_poll_burst(&m, (size_t)full / 2 + 1);
			m_check_size(&m);
			m_drain(&m, SIZE_MAX);
			m_check_size(&m);
		}
		m_close(&m);
		d->destroy(q);
	}
}

/* Random mixes of every operation against the model. */
static void case_random(const struct tq_desc *d)
{
	static const size_t caps[] = {1, 2, 3, 4, 7, 16, 33, 64, 1000};
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		void *q = d->create(caps[i]);
		struct model m;
		if (!CHECK_NOT_NULL(q) || !m_open(&m, d, q)) {
			d->destroy(q);
			continue;
		}
		m_random(&m, 0x9E3779B97F4A7C15ULL * (i + 1), 5000);
		m_close(&m);
		d->destroy(q);
	}
}

/* Indices started just below 2^64: thousands of operations of every kind
 * across the wrap, FIFO order and size() checked all the way. */
static void case_wrap_2p64(const struct tq_desc *d)
{
	if (!have(d->create_at != NULL, "create_at (start index hook)"))
		return;
	static const size_t caps[] = {1, 2, 3, 4, 16, 64};
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		uint64_t cap = tq_pow2(caps[i]);
		const uint64_t backs[] = {0,   1,	2,  cap / 2, cap - 1,
					  cap, cap + 1, 37, 1000};
		for (size_t j = 0; j < sizeof backs / sizeof backs[0]; j++) {
			uint64_t start = UINT64_MAX - backs[j];
			check_context(
			    "%s wrap_2p64 cap=%zu start=UINT64_MAX-%llu",
			    d->name, caps[i], (unsigned long long)backs[j]);
			void *q = d->create_at(caps[i], start);
			struct model m;
			if (!CHECK_NOT_NULL(q) || !m_open(&m, d, q)) {
				d->destroy(q);
				continue;
			}
			CHECK_EQ(d->capacity(q),
				 d->bounded ? cap : CONQ_UNBOUNDED);
			m_check_size(&m);
			/* Fill to full: the producer index crosses 2^64 before
			 * the consumer index does (for small backs). */
			while (m_count(&m) < m.full) {
				if (!m_offer(&m, false))
					break;
				m_check_size(&m);
			}
			m_offer(&m, false);
			m_peek(&m, false);
			while (m_count(&m) > 0) {
				if (!m_poll(&m, false))
					break;
				m_check_size(&m);
			}
			m_poll(&m, false);
			/* Then every kind of operation, across the wrap. */
			uint64_t seed = start ^ (cap << 32);
			for (int k = 0;
			     k < 20 && m.next_in - 1 <= backs[j] + 500; k++)
				m_random(&m, seed++, 1000);
			/* The wrap was crossed: more offers than backs + 1. */
			CHECK_GT(m.next_in - 1, backs[j] + 1);
			m_close(&m);
			d->destroy(q);
		}
	}
}

/* A long stream through a queue that never fills, then the edges. Queues
 * keep copies of the other side's index (a limit, a hint) that a call
 * refreshes only when the copy cannot decide, and an offer into a slot
 * that shows itself free can decide without it; the copy must still be
 * right when, 2^16 + 2^15 + 1234 offers later, the queue fills up (in a
 * 16-bit index build, CONQ_INDEX_BITS, a copy never refreshed is then more
 * than half a range old, and reads as ahead of the index: the bug this
 * case was written for, in conq_spmc_array and conq_mpmc_array), a strict
 * offer then fails (it must not wait), offer_bulk gets 0, and after a drain
 * poll is NULL. With the queue holding 0, then about half its capacity,
 * then all but one, during the stream; with strict calls, then relaxed
 * ones (single-threaded, a relaxed call fails only at the edges). */
static void case_long_stream(const struct tq_desc *d)
{
	if (!need_bounded(d))
		return;
	static const size_t caps[] = {1, 2, 16, 64, 4096};
	const uint64_t stream = ((uint64_t)3 << 15) + 1234;
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		for (unsigned v = 0; v < 6; v++) {
			unsigned level = v % 3;
			bool rx = v >= 3; /* the stream's calls relaxed */
			check_context("%s long_stream cap=%zu level=%u%s",
				      d->name, caps[i], level,
				      rx ? " relaxed" : "");
			void *q = d->create(caps[i]);
			struct model m;
			if (!CHECK_NOT_NULL(q) || !m_open(&m, d, q)) {
				d->destroy(q);
				continue;
			}
			uint64_t keep = level == 0   ? 0
					: level == 1 ? m.cap / 2
						     : m.cap - 1;
			while (m_count(&m) < keep)
				if (!m_offer(&m, false))
					break;
			uint64_t bad = 0;
			for (uint64_t k = 0; k < stream && bad == 0; k++) {
				/* Plain calls, no model checks per element
				 * (a few hundred thousand of them). */
				if (!(rx ? d->relaxed_offer : d->offer)(
					q, tq_elem(m.next_in)))
					bad++;
				else
					m.next_in++;
				if (tq_val((rx ? d->relaxed_poll : d->poll)(
					q)) != m.next_out)
					bad++;
				else
					m.next_out++;
			}
			CHECK_EQ(bad, 0);
			m_check_size(&m);
			m_offer_until_full(&m, false);
			CHECK_EQ(m_count(&m), m.cap);
			m_offer(&m, false); /* full: must fail, not wait */
			m_offer(&m, true);
			m_offer_bulk(&m, 1);
			m_offer_burst(&m, 2);
			m_check_size(&m);
			m_poll_until_empty(&m, false, true);
			m_poll(&m, false); /* empty: NULL */
			m_poll(&m, true);
			m_check_size(&m);
			/* And full once more, through bulk. */
			m_offer_bulk(&m, (size_t)m.cap);
			CHECK_EQ(m_count(&m), m.cap);
			m_offer(&m, false);
			m_drain_all(&m);
			m_close(&m);
			d->destroy(q);
		}
	}
}

/* offer_bulk: all or nothing at the edges. */
static void case_offer_bulk(const struct tq_desc *d)
{
	if (!need_bounded(d))
		return;
	static const size_t caps[] = {1, 2, 8, 64};
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		void *q = d->create(caps[i]);
		struct model m;
		if (!CHECK_NOT_NULL(q) || !m_open(&m, d, q)) {
			d->destroy(q);
			continue;
		}
		size_t c = (size_t)m.cap;
		for (size_t pre = 0; pre <= c; pre++) {
			/* `pre` elements in, so free = c - pre */
			while (m_count(&m) < pre && m_offer(&m, false))
				;
			size_t fr = (size_t)m_free(&m);
			m_offer_bulk(&m, 0);	  /* n = 0: 0 */
			m_offer_bulk(&m, fr + 1); /* one too many: 0 */
			m_offer_bulk(&m, c + 1);  /* more than capacity: 0 */
			m_check_size(&m);
			CHECK_EQ(m_count(&m), pre); /* nothing enqueued */
			m_offer_bulk(&m, fr);	    /* exactly free: all */
			CHECK_EQ(m_count(&m), m.cap);
			m_offer_bulk(&m, 1); /* full: 0 */
			m_offer_bulk(&m, 0);
			m_check_size(&m);
			m_drain_all(&m);
		}
		m_close(&m);
		d->destroy(q);
	}
}

/* offer_burst and poll_burst: counts at the edges. */
static void case_bursts(const struct tq_desc *d)
{
	if (!need_bounded(d))
		return;
	static const size_t caps[] = {1, 2, 8, 64};
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		void *q = d->create(caps[i]);
		struct model m;
		if (!CHECK_NOT_NULL(q) || !m_open(&m, d, q)) {
			d->destroy(q);
			continue;
		}
		size_t c = (size_t)m.cap;
		m_poll_burst(&m, 0); /* empty */
		m_poll_burst(&m, 5); /* empty: 0 */
		for (size_t pre = 0; pre <= c; pre++) {
			while (m_count(&m) < pre && m_offer(&m, false))
				;
			size_t fr = (size_t)m_free(&m);
			m_offer_burst(&m, 0); /* 0 */
			CHECK_EQ(m_count(&m), pre);
			if (fr > 1) {
				m_offer_burst(&m, fr - 1); /* fewer than free */
				CHECK_EQ(m_count(&m), c - 1);
			}
			m_offer_burst(&m,
				      fr + 3); /* more than free: up to full */
			CHECK_EQ(m_count(&m), c);
			m_offer_burst(&m, 4); /* full: 0 */
			m_check_size(&m);
			m_poll_burst(&m, 0); /* n = 0: 0, nothing removed */
			CHECK_EQ(m_count(&m), c);
			if (c > 1) {
				m_poll_burst(&m,
					     c - 1); /* fewer than there are */
				CHECK_EQ(m_count(&m), 1);
			}
			m_poll_burst(&m, c + 5); /* more than there are */
			CHECK_EQ(m_count(&m), 0);
			m_poll_burst(&m, 3); /* empty: 0 */
			m_check_size(&m);
		}
		m_close(&m);
		d->destroy(q);
	}
}

/* drain and fill limits: 0, below, exactly at and above what is available;
 * fill's supplier ending early (NULL) loses nothing. */
static void case_drain_fill(const struct tq_desc *d)
{
	if (!need_bounded(d))
		return;
	static const size_t caps[] = {1, 2, 8, 64};
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		void *q = d->create(caps[i]);
		struct model m;
		if (!CHECK_NOT_NULL(q) || !m_open(&m, d, q)) {
			d->destroy(q);
			continue;
		}
		size_t c = (size_t)m.cap;
		m_drain(&m, 0);	  /* empty, limit 0 */
		m_drain(&m, 10);  /* empty */
		m_fill(&m, 0, 0); /* limit 0: supplier never asked */
		CHECK_EQ(m_count(&m), 0);
		m_fill(&m, c, 1); /* supplier ends at once: 0 */
		CHECK_EQ(m_count(&m), 0);
		if (c > 1) {
			m_fill(&m, c - 1, 0); /* limit < free */
			CHECK_EQ(m_count(&m), c - 1);
			m_drain(&m, 0); /* limit 0: nothing */
			m_drain(&m, 1); /* limit < available */
			CHECK_EQ(m_count(&m), c - 2);
		}
		m_fill(&m, c + 10, 0); /* limit > free: up to full */
		CHECK_EQ(m_count(&m), c);
		m_fill(&m, 5, 0);    /* full: supplier never asked */
		m_drain(&m, c + 10); /* limit > available */
		CHECK_EQ(m_count(&m), 0);
		m_fill(&m, c, 0); /* limit == free */
		m_drain(&m, c);	  /* limit == available */
		for (uint64_t stop = 1; stop <= c + 1; stop++) {
			m_fill(&m, SIZE_MAX, stop); /* ends after stop-1 */
			m_check_size(&m);
			m_fill(&m, SIZE_MAX, 0); /* the rest, in order */
			CHECK_EQ(m_count(&m), c);
			m_drain(&m, stop);
			m_drain_all(&m);
		}
		m_close(&m);
		d->destroy(q);
	}
}

/* memsize/init on caller memory: garbage-filled memory works, nothing is
 * written past memsize(), misaligned or NULL memory is EINVAL. */
static void case_init(const struct tq_desc *d)
{
	if (!have(d->memsize != NULL, "memsize") ||
	    !have(d->init != NULL, "init"))
		return;
	static const size_t caps[] = {1, 3, 64, 1000};
	enum { TAIL = 512 };
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		size_t c = caps[i];
		size_t ms = d->memsize(c);
		if (!CHECK_GT(ms, 0))
			continue;
		CHECK_GE(ms, tq_pow2(c) * sizeof(void *));
		size_t total = (ms + TAIL + CONQ_PAD - 1) / CONQ_PAD * CONQ_PAD;
		unsigned char *mem =
		    (unsigned char *)aligned_alloc(CONQ_PAD, total);
		if (!CHECK_NOT_NULL(mem))
			continue;
		memset(mem, 0xA5, total);

		errno = 0;
		CHECK_NULL(d->init(mem + sizeof(void *), c));
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_NULL(d->init(mem + 1, c));
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_NULL(d->init(mem + CONQ_PAD / 2, c));
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_NULL(d->init(NULL, c));
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_NULL(d->init(mem, 0));
		CHECK_EQ(errno, EINVAL);
		/* The rejected calls wrote nothing. */
		size_t touched = 0;
		for (size_t k = 0; k < total; k++)
			touched += mem[k] != 0xA5;
		CHECK_EQ(touched, 0);

		for (int at = 0; at < 2; at++) {
			void *q;
			if (at == 0) {
				q = d->init(mem, c);
			} else if (d->init_at != NULL) {
				q = d->init_at(mem, c, UINT64_MAX - 20);
			} else {
				check_skip("no init_at");
				break;
			}
			/* Over garbage, or over the previous queue with its
			 * elements still in: a fresh, empty queue. */
			CHECK_PTR_EQ(q, mem);
			struct model m;
			if (q != mem || !m_open(&m, d, q))
				break;
			CHECK_EQ(m.cap, tq_pow2(c));
			m_check_size(&m);
			m_poll(&m, false);
			m_peek(&m, false);
			m_random(&m, 12345 + c, 2000);
			while (m_count(&m) < m.cap && m_offer(&m, false))
				;
			m_close(&m);
			size_t canary = 0;
			for (size_t k = ms; k < total; k++)
				canary += mem[k] != 0xA5;
			CHECK_EQ(canary, 0); /* nothing written past memsize */
		}
		free(mem);
	}
}

/* ---- main ---------------------------------------------------------------- */

static const struct tq_case cases[] = {
    {"capacity", case_capacity},
    {"wraps", case_wraps},
    {"near_full", case_near_full},
    {"peek", case_peek},
    {"size", case_size},
    {"random", case_random},
    {"wrap_2p64", case_wrap_2p64},
    {"long_stream", case_long_stream},
    {"offer_bulk", case_offer_bulk},
    {"bursts", case_bursts},
    {"drain_fill", case_drain_fill},
    {"init", case_init},
};

int main(int argc, char **argv)
{
	return tq_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
