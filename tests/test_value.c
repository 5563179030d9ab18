/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The value rings (conq_spsc_value, conq_mpsc_value, conq_spmc_value,
 * conq_mpmc_value): what the `void *` table of tests/queues.c cannot ask,
 * since it moves 8-byte values only (its rows value_* run every table test
 * at 8 bytes):
 *
 *  - geometry: element sizes 1 to CONQ_VALUE_MAX_ELEM, the stride and the
 *    slot alignment it promises, capacity rounding, memsize, and every bad
 *    argument (EINVAL), init in caller memory (aligned, not, NULL);
 *  - contents: elements of sizes 1, 3, 4, 8, 12, 64, 256 and 4096 bytes,
 *    each filled with a pattern of its index, FIFO across several laps and
 *    the 2^64 index wrap (init_at), through offer/poll, the bulk and burst
 *    calls, claim/commit, peek_claim/release, drain and fill; a zero
 *    element is an element;
 *  - claim rules: a claim_burst stops at the ring's end; commits with a
 *    foreign pointer are refused (EINVAL); MPSC and MPMC abort() makes a
 *    tombstone that every consumer call skips; fill whose supplier stops
 *    leaves nothing visible (or tombstones that are skipped);
 *  - claim order: two producers of a multi-producer ring commit out of
 *    claim order, and the consumer gets the elements in claim order;
 *  - threads: P producers and C consumers (as the family allows) move 64-
 *    byte elements whose every byte is checked, half of them through the
 *    zero-copy calls: nothing lost, nothing duplicated, per-producer order;
 *  - blocking: take() on an empty ring is woken by an offer, put() on a
 *    full one by a poll, and the _until forms time out with ETIMEDOUT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "queues.h"
#include "conq/conq.h"
#include "conq/impl/testing.h"

/* ---- a vtable over the four families ---- */
struct vfam {
	const char *name;
	unsigned maxp, maxc; /* TQ_ANY: any number */
	bool tombs;          /* abort() and tombstones (multi-producer) */
	size_t (*memsize)(size_t, size_t);
	void *(*init)(void *, size_t, size_t);
	void *(*init_at)(void *, size_t, size_t, uint64_t);
	void *(*create)(size_t, size_t);
	void (*destroy)(void *);
	bool (*offer)(void *, const void *);
	bool (*poll)(void *, void *);
	size_t (*offer_bulk)(void *, const void *, size_t);
	size_t (*offer_burst)(void *, const void *, size_t);
	size_t (*poll_burst)(void *, void *, size_t);
	void *(*claim)(void *);
	size_t (*claim_burst)(void *, size_t, void **);
	bool (*commit)(void *, void *);
	bool (*commit_burst)(void *, void *, size_t);
	bool (*abort)(void *, void *, size_t); /* NULL: none */
	const void *(*peek_claim)(void *);
	size_t (*peek_claim_burst)(void *, size_t, const void **);
	bool (*release)(void *, const void *);
	bool (*release_burst)(void *, const void *, size_t);
	size_t (*drain)(void *, conq_value_consume_fn, void *, size_t);
	size_t (*fill)(void *, conq_value_supply_fn, void *, size_t);
	size_t (*size)(void *);
	bool (*is_empty)(void *);
	size_t (*capacity)(void *);
	size_t (*elem_size)(void *);
	bool (*put_until)(void *, const void *, int64_t);
	bool (*take_until)(void *, void *, int64_t);
	const void *(*peek_claim_until)(void *, int64_t);
};

#define VWRAP(f)                                                               \
	static void *f##_init_w(void *m, size_t e, size_t c)                   \
	{                                                                      \
		return conq_##f##_init(m, e, c);                               \
	}                                                                      \
	static void *f##_init_at_w(void *m, size_t e, size_t c, uint64_t s)    \
	{                                                                      \
		return conq__##f##_init_at(m, e, c, s);                        \
	}                                                                      \
	static void *f##_create_w(size_t e, size_t c)                          \
	{                                                                      \
		return conq_##f##_create(e, c);                                \
	}                                                                      \
	static void f##_destroy_w(void *q)                                     \
	{                                                                      \
		conq_##f##_destroy((conq_##f *)q);                             \
	}                                                                      \
	static bool f##_offer_w(void *q, const void *e)                        \
	{                                                                      \
		return conq_##f##_offer((conq_##f *)q, e);                     \
	}                                                                      \
	static bool f##_poll_w(void *q, void *o)                               \
	{                                                                      \
		return conq_##f##_poll((conq_##f *)q, o);                      \
	}                                                                      \
	static size_t f##_offer_bulk_w(void *q, const void *e, size_t n)       \
	{                                                                      \
		return conq_##f##_offer_bulk((conq_##f *)q, e, n);             \
	}                                                                      \
	static size_t f##_offer_burst_w(void *q, const void *e, size_t n)      \
	{                                                                      \
		return conq_##f##_offer_burst((conq_##f *)q, e, n);            \
	}                                                                      \
	static size_t f##_poll_burst_w(void *q, void *o, size_t n)             \
	{                                                                      \
		return conq_##f##_poll_burst((conq_##f *)q, o, n);             \
	}                                                                      \
	static void *f##_claim_w(void *q)                                      \
	{                                                                      \
		return conq_##f##_claim((conq_##f *)q);                        \
	}                                                                      \
	static size_t f##_claim_burst_w(void *q, size_t n, void **s)           \
	{                                                                      \
		return conq_##f##_claim_burst((conq_##f *)q, n, s);            \
	}                                                                      \
	static bool f##_commit_w(void *q, void *s)                             \
	{                                                                      \
		return conq_##f##_commit((conq_##f *)q, s);                    \
	}                                                                      \
	static bool f##_commit_burst_w(void *q, void *s, size_t k)             \
	{                                                                      \
		return conq_##f##_commit_burst((conq_##f *)q, s, k);           \
	}                                                                      \
	static const void *f##_peek_claim_w(void *q)                           \
	{                                                                      \
		return conq_##f##_peek_claim((conq_##f *)q);                   \
	}                                                                      \
	static size_t f##_peek_claim_burst_w(void *q, size_t n,                \
					     const void **s)                   \
	{                                                                      \
		return conq_##f##_peek_claim_burst((conq_##f *)q, n, s);       \
	}                                                                      \
	static bool f##_release_w(void *q, const void *s)                      \
	{                                                                      \
		return conq_##f##_release((conq_##f *)q, s);                   \
	}                                                                      \
	static bool f##_release_burst_w(void *q, const void *s, size_t k)      \
	{                                                                      \
		return conq_##f##_release_burst((conq_##f *)q, s, k);          \
	}                                                                      \
	static size_t f##_drain_w(void *q, conq_value_consume_fn fn, void *c,  \
				  size_t l)                                    \
	{                                                                      \
		return conq_##f##_drain((conq_##f *)q, fn, c, l);              \
	}                                                                      \
	static size_t f##_fill_w(void *q, conq_value_supply_fn fn, void *c,    \
				 size_t l)                                     \
	{                                                                      \
		return conq_##f##_fill((conq_##f *)q, fn, c, l);               \
	}                                                                      \
	static size_t f##_size_w(void *q)                                      \
	{                                                                      \
		return conq_##f##_size((conq_##f *)q);                         \
	}                                                                      \
	static bool f##_is_empty_w(void *q)                                    \
	{                                                                      \
		return conq_##f##_is_empty((conq_##f *)q);                     \
	}                                                                      \
	static size_t f##_capacity_w(void *q)                                  \
	{                                                                      \
		return conq_##f##_capacity((conq_##f *)q);                     \
	}                                                                      \
	static size_t f##_elem_size_w(void *q)                                 \
	{                                                                      \
		return conq_##f##_elem_size((conq_##f *)q);                    \
	}                                                                      \
	static bool f##_put_until_w(void *q, const void *e, int64_t d)         \
	{                                                                      \
		return conq_##f##_put_until((conq_##f *)q, e, d);              \
	}                                                                      \
	static bool f##_take_until_w(void *q, void *o, int64_t d)              \
	{                                                                      \
		return conq_##f##_take_until((conq_##f *)q, o, d);             \
	}                                                                      \
	static const void *f##_peek_claim_until_w(void *q, int64_t d)          \
	{                                                                      \
		return conq_##f##_peek_claim_until((conq_##f *)q, d);          \
	}

VWRAP(spsc_value)
VWRAP(mpsc_value)
VWRAP(spmc_value)
VWRAP(mpmc_value)

static bool mpsc_value_abort_w(void *q, void *s, size_t k)
{
	return conq_mpsc_value_abort((conq_mpsc_value *)q, s, k);
}
static bool mpmc_value_abort_w(void *q, void *s, size_t k)
{
	return conq_mpmc_value_abort((conq_mpmc_value *)q, s, k);
}

#define VROW(f, mp, mc, ab)                                                    \
	{#f,                     mp,                                           \
	 mc,                     ab != NULL,                                   \
	 conq_##f##_memsize,     f##_init_w,                                   \
	 f##_init_at_w,          f##_create_w,                                 \
	 f##_destroy_w,          f##_offer_w,                                  \
	 f##_poll_w,             f##_offer_bulk_w,                             \
	 f##_offer_burst_w,      f##_poll_burst_w,                             \
	 f##_claim_w,            f##_claim_burst_w,                            \
	 f##_commit_w,           f##_commit_burst_w,                           \
	 ab,                     f##_peek_claim_w,                             \
	 f##_peek_claim_burst_w, f##_release_w,                                \
	 f##_release_burst_w,    f##_drain_w,                                  \
	 f##_fill_w,             f##_size_w,                                   \
	 f##_is_empty_w,         f##_capacity_w,                               \
	 f##_elem_size_w,        f##_put_until_w,                              \
	 f##_take_until_w,       f##_peek_claim_until_w}

static const struct vfam fams[] = {
    VROW(spsc_value, 1, 1, NULL),
    VROW(mpsc_value, TQ_ANY, 1, mpsc_value_abort_w),
    VROW(spmc_value, 1, TQ_ANY, NULL),
    VROW(mpmc_value, TQ_ANY, TQ_ANY, mpmc_value_abort_w),
};
#define NFAMS (sizeof(fams) / sizeof(fams[0]))

/* ---- element patterns ---- */

/* Element k of size n: every byte a function of (k, byte position), so a
 * torn, shifted or stale copy shows. */
static void pat(void *dst, size_t n, uint64_t k)
{
	unsigned char *d = (unsigned char *)dst;
	uint64_t x = k * 0x9E3779B97F4A7C15ull + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x >> 29;
		x *= 0xBF58476D1CE4E5B9ull;
		d[i] = (unsigned char)(x >> 56);
	}
	if (n >= 8)
		memcpy(d, &k, 8); /* readable in a debugger */
}

static bool pat_ok(const void *src, size_t n, uint64_t k)
{
	unsigned char buf[4096];
	pat(buf, n, k);
	return memcmp(src, buf, n) == 0;
}

static const size_t esizes[] = {1, 3, 4, 8, 12, 64, 256, 4096};
#define NSIZES (sizeof(esizes) / sizeof(esizes[0]))

/* ---- geometry and bad input ---- */

static void test_geometry(const struct vfam *f)
{
	check_context("%s geometry", f->name);
	errno = 0;
	CHECK_EQ(f->memsize(0, 8), 0);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(f->memsize(CONQ_VALUE_MAX_ELEM + 1, 8), 0);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(f->memsize(8, 0), 0);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(f->memsize(8, CONQ_VALUE_MAX_CAPACITY + 1), 0);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_NULL(f->create(0, 8));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_NULL(f->create(8, SIZE_MAX));
	CHECK_EQ(errno, EINVAL);
	CHECK_GT(f->memsize(CONQ_VALUE_MAX_ELEM, 4), 4 * CONQ_VALUE_MAX_ELEM);

	/* Caller memory: NULL, misaligned, flags. */
	size_t bytes = f->memsize(4, 100);
	CHECK_GT(bytes, 128 * 4);
	void *mem = aligned_alloc(CONQ_PAD, (bytes + CONQ_PAD) / CONQ_PAD *
						    CONQ_PAD);
	if (!CHECK_NOT_NULL(mem))
		return;
	errno = 0;
	CHECK_NULL(f->init(NULL, 4, 100));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_NULL(f->init((char *)mem + 8, 4, 100));
	CHECK_EQ(errno, EINVAL);
	memset(mem, 0xa5, bytes); /* init must not rely on zeroed memory */
	void *q = f->init(mem, 4, 100);
	if (CHECK_PTR_EQ(q, mem)) {
		CHECK_EQ(f->capacity(q), 128);
		CHECK_EQ(f->elem_size(q), 4);
		CHECK_TRUE(f->is_empty(q));
		uint32_t v = 7, w = 0;
		CHECK_TRUE(f->offer(q, &v));
		CHECK_TRUE(f->poll(q, &w));
		CHECK_EQ(w, 7);
	}
	free(mem);

	/* Slot alignment: min(stride, 16), stride = esize rounded. */
	for (size_t e = 1; e <= 300; e += (e < 40 ? 1 : 37)) {
		void *r = f->create(e, 4);
		if (!CHECK_NOT_NULL(r))
			continue;
		size_t align = 1;
		while (align < e && align < 16)
			align <<= 1;
		for (int k = 0; k < 3; k++) {
			void *s1 = f->claim(r);
			if (!CHECK_NOT_NULL(s1))
				break;
			CHECK_EQ((uintptr_t)s1 % align, 0);
			CHECK_TRUE(f->commit(r, s1));
		}
		CHECK_EQ(f->size(r), 3);
		f->destroy(r);
	}
}

static void test_null_args(const struct vfam *f)
{
	check_context("%s null args", f->name);
	void *q = f->create(8, 4);
	if (!CHECK_NOT_NULL(q))
		return;
	uint64_t v = 0;
	errno = 0;
	CHECK_FALSE(f->offer(q, NULL));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_FALSE(f->poll(q, NULL));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(f->offer_bulk(q, NULL, 1), 0);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(f->offer_burst(q, NULL, 1), 0);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(f->poll_burst(q, NULL, 1), 0);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_FALSE(f->put_until(q, NULL, 0));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_FALSE(f->take_until(q, NULL, 0));
	CHECK_EQ(errno, EINVAL);
	/* Commits and releases with pointers that are not this ring's slots. */
	errno = 0;
	CHECK_FALSE(f->commit(q, &v));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_FALSE(f->release(q, &v));
	CHECK_EQ(errno, EINVAL);
	void *s = f->claim(q);
	if (CHECK_NOT_NULL(s)) {
		errno = 0;
		CHECK_FALSE(f->commit(q, (char *)s + 1)); /* inside a slot */
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_FALSE(f->commit_burst(q, s, 5)); /* past the ring's end */
		CHECK_EQ(errno, EINVAL);
		CHECK_TRUE(f->commit(q, s));
	}
	CHECK_TRUE(f->poll(q, &v));
	CHECK_TRUE(f->is_empty(q));
	f->destroy(q);
}

/* ---- FIFO over every path, every size, across the index wrap ---- */

struct seq_ctx {
	size_t esize;
	uint64_t next; /* the next index to write or to expect */
	uint64_t stop; /* fill: supply until next == stop */
	unsigned bad;
};

static bool supply(void *c, void *slot)
{
	struct seq_ctx *s = (struct seq_ctx *)c;
	if (s->next == s->stop)
		return false;
	pat(slot, s->esize, s->next++);
	return true;
}

static void consume(void *c, const void *e)
{
	struct seq_ctx *s = (struct seq_ctx *)c;
	if (!pat_ok(e, s->esize, s->next++))
		s->bad++;
}

static size_t stride_of(size_t e)
{
	if (e > 16)
		return (e + 15) / 16 * 16;
	size_t s = 1;
	while (s < e)
		s <<= 1;
	return s;
}

/* Write the next element through path `way` (0..4); how many written. */
static size_t put_some(const struct vfam *f, void *q, struct seq_ctx *w,
		       unsigned way, unsigned char *buf, size_t room)
{
	size_t e = w->esize, n;
	switch (way) {
	case 0:
		pat(buf, e, w->next);
		if (!f->offer(q, buf))
			return 0;
		w->next++;
		return 1;
	case 1:
		n = room < 5 ? room : 5;
		for (size_t i = 0; i < n; i++)
			pat(buf + i * e, e, w->next + i);
		n = f->offer_burst(q, buf, n);
		w->next += n;
		return n;
	case 2: {
		void *s = f->claim(q);
		if (s == NULL)
			return 0;
		pat(s, e, w->next++);
		return f->commit(q, s) ? 1 : 0;
	}
	case 3: {
		void *s = NULL;
		n = f->claim_burst(q, 3, &s);
		for (size_t i = 0; i < n; i++)
			pat((char *)s + i * stride_of(e), e, w->next++);
		if (n && !f->commit_burst(q, s, n))
			return 0;
		return n;
	}
	default:
		w->stop = w->next + (room < 4 ? room : 4);
		return f->fill(q, supply, w, 4);
	}
}

static size_t get_some(const struct vfam *f, void *q, struct seq_ctx *r,
		       unsigned way, unsigned char *buf)
{
	size_t e = r->esize, n;
	switch (way) {
	case 0:
		if (!f->poll(q, buf))
			return 0;
		if (!pat_ok(buf, e, r->next++))
			r->bad++;
		return 1;
	case 1:
		n = f->poll_burst(q, buf, 4);
		for (size_t i = 0; i < n; i++)
			if (!pat_ok(buf + i * e, e, r->next++))
				r->bad++;
		return n;
	case 2: {
		const void *s = f->peek_claim(q);
		if (s == NULL)
			return 0;
		if (!pat_ok(s, e, r->next++))
			r->bad++;
		return f->release(q, s) ? 1 : 0;
	}
	case 3: {
		const void *s = NULL;
		n = f->peek_claim_burst(q, 3, &s);
		for (size_t i = 0; i < n; i++)
			if (!pat_ok((const char *)s + i * stride_of(e), e,
				    r->next++))
				r->bad++;
		if (n && !f->release_burst(q, s, n))
			return 0;
		return n;
	}
	default:
		return f->drain(q, consume, r, 3);
	}
}

static void test_fifo(const struct vfam *f)
{
	static const uint64_t starts[] = {0, UINT64_MAX - 70};
	for (size_t si = 0; si < NSIZES; si++)
		for (size_t st = 0; st < 2; st++) {
			size_t e = esizes[si], cap = e >= 1024 ? 8 : 32;
			check_context("%s fifo esize %zu start %llu", f->name, e,
				      (unsigned long long)starts[st]);
			size_t bytes = f->memsize(e, cap);
			void *mem = aligned_alloc(CONQ_PAD, bytes);
			if (!CHECK_NOT_NULL(mem))
				return;
			void *q = f->init_at(mem, e, cap, starts[st]);
			if (!CHECK_PTR_EQ(q, mem)) {
				free(mem);
				return;
			}
			unsigned char *buf = (unsigned char *)malloc(8 * e);
			struct seq_ctx w = {e, 0, 0, 0}, r = {e, 0, 0, 0};
			uint64_t rng = 42 + si * 7 + st;
			unsigned stuck = 0;
			while (r.next < 8 * cap && stuck < 1000) {
				size_t before = (size_t)(w.next - r.next);
				CHECK_LE(before, cap);
				if (tq_rand_below(&rng, 2)) {
					size_t room = cap - before;
					put_some(f, q, &w, (unsigned)tq_rand_below(&rng, 5),
						 buf, room);
				} else {
					get_some(f, q, &r, (unsigned)tq_rand_below(&rng, 5),
						 buf);
				}
				stuck = (w.next - r.next == before) ? stuck + 1 : 0;
				if (f->size(q) != (size_t)(w.next - r.next))
					break;
			}
			CHECK_EQ(f->size(q), w.next - r.next);
			CHECK_EQ(r.bad, 0);
			CHECK_GE(r.next, 8 * cap);
			/* Full exactly at capacity, empty exactly at 0. */
			while (put_some(f, q, &w, 0, buf, 1))
				;
			CHECK_EQ(f->size(q), cap);
			CHECK_FALSE(f->offer(q, buf));
			CHECK_NULL(f->claim(q));
			CHECK_FALSE(f->is_empty(q));
			while (get_some(f, q, &r, 0, buf))
				;
			CHECK_TRUE(f->is_empty(q));
			CHECK_EQ(f->size(q), 0);
			CHECK_FALSE(f->poll(q, buf));
			CHECK_NULL(f->peek_claim(q));
			CHECK_EQ(r.next, w.next);
			CHECK_EQ(r.bad, 0);
			/* A zero element is an element. */
			memset(buf, 0, e);
			CHECK_TRUE(f->offer(q, buf));
			CHECK_FALSE(f->is_empty(q));
			memset(buf, 0xff, e);
			CHECK_TRUE(f->poll(q, buf));
			for (size_t i = 0; i < e; i++)
				if (buf[i] != 0) {
					CHECK_EQ(buf[i], 0);
					break;
				}
			free(buf);
			free(mem);
		}
}

/* Bulk is all or nothing; a burst claim stops at the ring's end. */
static void test_batches(const struct vfam *f)
{
	check_context("%s batches", f->name);
	void *q = f->create(8, 8);
	if (!CHECK_NOT_NULL(q))
		return;
	uint64_t es[9], out[9];
	for (int i = 0; i < 9; i++)
		es[i] = (uint64_t)i + 100;
	CHECK_EQ(f->offer_bulk(q, es, 9), 0); /* more than the capacity */
	CHECK_EQ(f->offer_bulk(q, es, 0), 0);
	CHECK_EQ(f->offer_bulk(q, es, 6), 6);
	CHECK_EQ(f->offer_bulk(q, es, 3), 0); /* only 2 free */
	CHECK_EQ(f->size(q), 6);
	CHECK_EQ(f->offer_burst(q, es + 6, 3), 2);
	CHECK_EQ(f->poll_burst(q, out, 9), 8);
	for (int i = 0; i < 8; i++)
		CHECK_EQ(out[i], (uint64_t)i + 100);
	/* Zero-copy bursts: each claims up to n contiguous slots (stopping
	 * at the ring's end, or at a group's end in SPSC), stride apart;
	 * claiming until 8 are in, then reading them back the same way,
	 * gives the 8 in order, from any start. */
	for (int round = 0; round < 3; round++) {
		CHECK_EQ(f->offer_bulk(q, es, (size_t)(1 + round)), (size_t)(1 + round));
		CHECK_EQ(f->poll_burst(q, out, 9), (size_t)(1 + round));
		size_t in = 0;
		while (in < 8) {
			void *s = NULL;
			size_t k = f->claim_burst(q, 8 - in, &s);
			if (!CHECK_GT(k, 0))
				break;
			for (size_t i = 0; i < k; i++)
				memcpy((char *)s + 8 * i, &es[in + i], 8);
			CHECK_TRUE(f->commit_burst(q, s, k));
			in += k;
		}
		CHECK_EQ(f->size(q), 8);
		size_t got = 0;
		while (got < 8) {
			const void *c = NULL;
			size_t k = f->peek_claim_burst(q, 8, &c);
			if (!CHECK_GT(k, 0))
				break;
			CHECK_EQ(memcmp(c, es + got, 8 * k), 0);
			CHECK_TRUE(f->release_burst(q, c, k));
			got += k;
		}
		CHECK_EQ(got, 8);
	}
	CHECK_TRUE(f->is_empty(q));
	f->destroy(q);
}

/* abort(): tombstones every consumer path skips; fill that stops early. */
static void test_tombstones(const struct vfam *f)
{
	check_context("%s tombstones", f->name);
	void *q = f->create(8, 16);
	if (!CHECK_NOT_NULL(q))
		return;
	uint64_t v = 1, out = 0;
	struct seq_ctx w = {8, 0, 3, 0};
	CHECK_EQ(f->fill(q, supply, &w, 10), 3); /* stops at 3 of 10 */
	if (f->abort == NULL) {
		/* A single producer's unfilled claims are invisible. */
		CHECK_EQ(f->size(q), 3);
	} else {
		void *s = f->claim(q);
		CHECK_TRUE(f->abort(q, s, 1));
		CHECK_TRUE(f->offer(q, &v));
		void *b = NULL;
		size_t n = f->claim_burst(q, 2, &b);
		CHECK_EQ(n, 2);
		CHECK_TRUE(f->abort(q, b, n));
		v = 2;
		CHECK_TRUE(f->offer(q, &v));
	}
	struct seq_ctx r = {8, 0, 0, 0};
	for (int i = 0; i < 3; i++) {
		CHECK_TRUE(f->poll(q, &out));
		CHECK_TRUE(pat_ok(&out, 8, r.next++));
	}
	if (f->abort != NULL) {
		const void *p = f->peek_claim(q); /* past a tombstone */
		if (CHECK_NOT_NULL(p)) {
			CHECK_EQ(*(const uint64_t *)p, 1);
			CHECK_TRUE(f->release(q, p));
		}
		CHECK_EQ(f->poll_burst(q, &out, 1), 1); /* past two */
		CHECK_EQ(out, 2);
	}
	CHECK_FALSE(f->poll(q, &out));
	CHECK_TRUE(f->is_empty(q));
	f->destroy(q);
}

/* Two claims committed in the reverse order are read in claim order. */
static void test_claim_order(const struct vfam *f)
{
	if (f->abort == NULL)
		return; /* single producer: one claim at a time */
	check_context("%s claim order", f->name);
	void *q = f->create(8, 8);
	if (!CHECK_NOT_NULL(q))
		return;
	uint64_t out = 0;
	void *a = f->claim(q), *b = f->claim(q);
	if (!CHECK_NOT_NULL(a) || !CHECK_NOT_NULL(b))
		return;
	uint64_t va = 1, vb = 2;
	memcpy(b, &vb, 8);
	CHECK_TRUE(f->commit(q, b));
	CHECK_FALSE(f->is_empty(q));
	/* The head is a (claimed, uncommitted): a relaxed read finds
	 * nothing; drain and poll_burst stop before it. */
	CHECK_EQ(f->poll_burst(q, &out, 1), 0);
	memcpy(a, &va, 8);
	CHECK_TRUE(f->commit(q, a));
	CHECK_TRUE(f->poll(q, &out));
	CHECK_EQ(out, 1);
	CHECK_TRUE(f->poll(q, &out));
	CHECK_EQ(out, 2);
	f->destroy(q);
}

/* ---- threads ---- */

#define T_ESIZE 64
struct tctx {
	const struct vfam *f;
	void *q;
	unsigned id, np;
	uint64_t n;        /* elements per producer */
	uint64_t *seen;    /* consumers: per producer, next sequence */
	uint64_t got, bad; /* consumers */
	uint64_t *total;   /* shared: polled so far */
};

static void tfill(unsigned char *d, unsigned p, uint64_t s)
{
	uint64_t k = ((uint64_t)p << 40) | s;
	pat(d, T_ESIZE, k);
}

static void *producer(void *arg)
{
	struct tctx *t = (struct tctx *)arg;
	unsigned char buf[T_ESIZE];
	unsigned spins = 0;
	for (uint64_t s = 0; s < t->n;) {
		bool ok;
		if (s % 2) {
			void *slot = t->f->claim(t->q);
			ok = slot != NULL;
			if (ok) {
				tfill(slot, t->id, s);
				t->f->commit(t->q, slot);
			}
		} else {
			tfill(buf, t->id, s);
			ok = t->f->offer(t->q, buf);
		}
		if (ok)
			s++;
		else
			tq_backoff(&spins);
	}
	return NULL;
}

static void check_elem(struct tctx *t, const unsigned char *e)
{
	uint64_t k;
	memcpy(&k, e, 8);
	unsigned p = (unsigned)(k >> 40);
	uint64_t s = k & ((1ull << 40) - 1);
	if (p >= t->np || !pat_ok(e, T_ESIZE, k) || s < t->seen[p]) {
		t->bad++;
		return;
	}
	t->seen[p] = s + 1;
	t->got++;
}

static void *consumer(void *arg)
{
	struct tctx *t = (struct tctx *)arg;
	unsigned char buf[T_ESIZE];
	unsigned spins = 0;
	uint64_t all = t->n * t->np;
	for (uint64_t i = 0;; i++) {
		size_t got = 0;
		if (i % 2) {
			const void *s = t->f->peek_claim(t->q);
			if (s != NULL) {
				check_elem(t, s);
				t->f->release(t->q, s);
				got = 1;
			}
		} else if (t->f->poll(t->q, buf)) {
			check_elem(t, buf);
			got = 1;
		}
		if (got) {
			spins = 0;
			conq__faa_relaxed(t->total, 1);
		} else {
			if (conq__load_relaxed(t->total) >= all)
				break;
			tq_backoff(&spins);
		}
	}
	return NULL;
}

static void test_threads(const struct vfam *f, double scale)
{
	unsigned np = f->maxp == 1 ? 1 : 2, nc = f->maxc == 1 ? 1 : 2;
	uint64_t n = (uint64_t)(200000 * scale) + 100;
	check_context("%s threads %uP%uC", f->name, np, nc);
	void *q = f->create(T_ESIZE, 64);
	if (!CHECK_NOT_NULL(q))
		return;
	uint64_t total = 0;
	struct tctx pt[2], ct[2];
	pthread_t th[4];
	for (unsigned c = 0; c < nc; c++) {
		ct[c] = (struct tctx){f, q, c, np, n, calloc(np, 8), 0, 0, &total};
		pthread_create(&th[np + c], NULL, consumer, &ct[c]);
	}
	for (unsigned p = 0; p < np; p++) {
		pt[p] = (struct tctx){f, q, p, np, n, NULL, 0, 0, &total};
		pthread_create(&th[p], NULL, producer, &pt[p]);
	}
	for (unsigned i = 0; i < np + nc; i++)
		pthread_join(th[i], NULL);
	uint64_t got = 0, bad = 0;
	for (unsigned c = 0; c < nc; c++) {
		got += ct[c].got;
		bad += ct[c].bad;
		free(ct[c].seen);
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(got, n * np);
	CHECK_TRUE(f->is_empty(q));
	f->destroy(q);
}

/* ---- blocking ---- */

struct bctx {
	const struct vfam *f;
	void *q;
};

static void *late_offer(void *arg)
{
	struct bctx *b = (struct bctx *)arg;
	struct timespec ts = {0, 20 * 1000 * 1000};
	nanosleep(&ts, NULL);
	uint32_t v = 77;
	b->f->offer(b->q, &v);
	return NULL;
}

static void *late_poll(void *arg)
{
	struct bctx *b = (struct bctx *)arg;
	struct timespec ts = {0, 20 * 1000 * 1000};
	nanosleep(&ts, NULL);
	uint32_t v = 0;
	b->f->poll(b->q, &v);
	return NULL;
}

static void test_blocking(const struct vfam *f)
{
	check_context("%s blocking", f->name);
	void *q = f->create(4, 1);
	if (!CHECK_NOT_NULL(q))
		return;
	uint32_t v = 5, out = 0;
	errno = 0;
	CHECK_FALSE(f->take_until(q, &out, conq_now_ns() + 1000000));
	CHECK_EQ(errno, ETIMEDOUT);
	struct bctx b = {f, q};
	pthread_t t;
	pthread_create(&t, NULL, late_offer, &b);
	CHECK_TRUE(f->take_until(q, &out, CONQ_NO_DEADLINE));
	CHECK_EQ(out, 77);
	pthread_join(t, NULL);
	CHECK_TRUE(f->put_until(q, &v, CONQ_NO_DEADLINE));
	errno = 0;
	CHECK_FALSE(f->put_until(q, &v, conq_now_ns() + 1000000)); /* full */
	CHECK_EQ(errno, ETIMEDOUT);
	pthread_create(&t, NULL, late_poll, &b);
	CHECK_TRUE(f->put_until(q, &v, CONQ_NO_DEADLINE));
	pthread_join(t, NULL);
	CHECK_TRUE(f->poll(q, &out));
	CHECK_EQ(out, 5);
	/* peek_claim_until: a timeout on an empty ring, then woken by an
	 * offer, the element in place until release. */
	errno = 0;
	CHECK_NULL(f->peek_claim_until(q, conq_now_ns() + 1000000));
	CHECK_EQ(errno, ETIMEDOUT);
	pthread_create(&t, NULL, late_offer, &b);
	const void *s = f->peek_claim_until(q, CONQ_NO_DEADLINE);
	if (CHECK_NOT_NULL(s)) {
		CHECK_EQ(*(const uint32_t *)s, 77);
		CHECK_TRUE(f->release(q, s));
	}
	pthread_join(t, NULL);
	CHECK_TRUE(f->is_empty(q));
	f->destroy(q);
}

int main(int argc, char **argv)
{
	double scale = 1.0;
	if (!tq_read_scale(argc, argv, &scale))
		return 2;
	const char *only = NULL;
	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], "--family=", 9) == 0)
			only = argv[i] + 9;
	for (size_t i = 0; i < NFAMS; i++) {
		const struct vfam *f = &fams[i];
		if (only && strcmp(only, f->name) != 0)
			continue;
		test_geometry(f);
		test_null_args(f);
		test_fifo(f);
		test_batches(f);
		test_tombstones(f);
		test_claim_order(f);
		test_threads(f, scale);
		test_blocking(f);
		printf("%s: done\n", f->name);
	}
	return check_report();
}
