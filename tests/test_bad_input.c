/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bad input, on every row of the queue table (or the reference queue with
 * --ref): invalid capacities, allocation failure, NULL elements.
 * Usage: test_bad_input [--ref] [case...]
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conq/impl/testing.h"
#include "queues.h"

/* Poll everything; true iff it is exactly first, first+1, ..., first+n-1. */
static bool contents_are(const struct tq_desc *d, void *q, uint64_t first,
			 uint64_t n)
{
	uint64_t bad = 0;
	for (uint64_t i = 0; i < n; i++)
		if (tq_val(d->poll(q)) != first + i)
			bad++;
	bool ok = CHECK_EQ(bad, 0);
	return CHECK_NULL(d->poll(q)) && ok;
}

static void put(const struct tq_desc *d, void *q, uint64_t first, uint64_t n)
{
	uint64_t ok = 0;
	for (uint64_t i = 0; i < n; i++)
		ok += d->offer(q, tq_elem(first + i));
	CHECK_EQ(ok, n);
}

static bool need_bounded(const struct tq_desc *d)
{
	if (!d->bounded) {
		check_skip("unbounded: no capacity limits");
		return false;
	}
	return true;
}

/* 0, above the maximum, SIZE_MAX: EINVAL everywhere. */
static void case_bad_capacity(const struct tq_desc *d)
{
	if (!need_bounded(d))
		return;
	const size_t bad[] = {0,
			      CONQ_ARRAY_MAX_CAPACITY + 1,
			      CONQ_ARRAY_MAX_CAPACITY * 2,
			      (SIZE_MAX >> 1) + 1,
			      SIZE_MAX - 1,
			      SIZE_MAX};
	void *mem = aligned_alloc(CONQ_PAD, 64 * CONQ_PAD);
	if (!CHECK_NOT_NULL(mem))
		return;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		size_t c = bad[i];
		check_context("%s bad_capacity %zu", d->name, c);
		errno = 0;
		void *q = d->create(c);
		CHECK_NULL(q);
		CHECK_EQ(errno, EINVAL);
		d->destroy(q);
		if (d->create_at != NULL) {
			errno = 0;
			q = d->create_at(c, UINT64_MAX - 3);
			CHECK_NULL(q);
			CHECK_EQ(errno, EINVAL);
			d->destroy(q);
		}
		if (d->memsize != NULL) {
			errno = 0;
			CHECK_EQ(d->memsize(c), 0);
			CHECK_EQ(errno, EINVAL);
		}
		if (d->init != NULL) {
			errno = 0;
			CHECK_NULL(d->init(mem, c));
			CHECK_EQ(errno, EINVAL);
		}
		if (d->init_at != NULL) {
			errno = 0;
			CHECK_NULL(d->init_at(mem, c, 5));
			CHECK_EQ(errno, EINVAL);
		}
	}
	free(mem);
}

/* The family's largest capacity (CONQ_ARRAY_MAX_CAPACITY, 16 GiB of
 * pointers; the value rings' CONQ_VALUE_MAX_CAPACITY) is accepted (sized
 * only), and one more is not. */
static void case_max_capacity(const struct tq_desc *d)
{
	if (!need_bounded(d))
		return;
	if (d->memsize == NULL) {
		check_skip("no memsize");
		return;
	}
	const size_t max =
	    d->max_capacity ? d->max_capacity : CONQ_ARRAY_MAX_CAPACITY;
	size_t ms = d->memsize(max);
	CHECK_GT(ms, 0);
	CHECK_GE(ms / sizeof(void *),
		 max); /* no overflow: room for the slots */
	CHECK_EQ(d->memsize(max - 1), ms);
	CHECK_EQ(d->memsize(max / 2 + 1), ms);
	CHECK_LT(d->memsize(max / 2), ms);
	errno = 0;
	CHECK_EQ(d->memsize(max + 1), 0);
	CHECK_EQ(errno, EINVAL);
}

/* Allocation failure: NULL + ENOMEM, and fine again once switched off. */
static void case_enomem(const struct tq_desc *d)
{
	if (!d->alloc_hook) {
		check_skip("create() does not use the library's allocator");
		return;
	}
	conq__test_fail_alloc_after(0);
	errno = 0;
	void *q = d->create(16);
	CHECK_NULL(q);
	CHECK_EQ(errno, ENOMEM);
	d->destroy(q);
	errno = 0;
	q = d->create(1); /* still failing */
	CHECK_NULL(q);
	CHECK_EQ(errno, ENOMEM);
	d->destroy(q);
	if (d->create_at != NULL) {
		errno = 0;
		q = d->create_at(16, UINT64_MAX);
		CHECK_NULL(q);
		CHECK_EQ(errno, ENOMEM);
		d->destroy(q);
	}
	/* One more allocation succeeds, the next fails. */
	conq__test_fail_alloc_after(1);
	void *q1 = d->create(8);
	CHECK_NOT_NULL(q1);
	errno = 0;
	void *q2 = d->create(8);
	CHECK_NULL(q2);
	CHECK_EQ(errno, ENOMEM);
	d->destroy(q2);
	/* Switched off: works again. */
	conq__test_fail_alloc_after(-1);
	q = d->create(16);
	if (CHECK_NOT_NULL(q)) {
		put(d, q, 1, 16);
		contents_are(d, q, 1, 16);
		d->destroy(q);
	}
	if (q1 != NULL) {
		put(d, q1, 1, 8);
		contents_are(d, q1, 1, 8);
		d->destroy(q1);
	}
}

/* destroy(NULL) is a no-op. */
static void case_destroy_null(const struct tq_desc *d)
{
	d->destroy(NULL);
	CHECK_TRUE(true);
}

/* offer(NULL) and relaxed_offer(NULL): false + EINVAL, nothing enqueued, on
 * an empty, a partly full and a full queue; a full queue's plain rejection
 * leaves errno alone. */
static void case_offer_null(const struct tq_desc *d)
{
	void *q = d->create(4);
	if (!CHECK_NOT_NULL(q))
		return;
	/* An unbounded queue: up to 8 in (several chunks), never full. */
	size_t cap = d->bounded ? d->capacity(q) : 8;
	for (uint64_t pre = 0; pre <= cap; pre++) {
		check_context("%s offer_null with %llu in", d->name,
			      (unsigned long long)pre);
		put(d, q, 1, pre);
		errno = 0;
		CHECK_FALSE(d->offer(q, NULL));
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_FALSE(d->relaxed_offer(q, NULL));
		CHECK_EQ(errno, EINVAL);
		CHECK_EQ(d->size(q), pre);
		CHECK_EQ(d->is_empty(q), pre == 0);
		if (pre == cap && d->bounded) {
			errno = 0;
			CHECK_FALSE(d->offer(q, tq_elem(100)));
			CHECK_EQ(errno, 0);
			CHECK_FALSE(d->relaxed_offer(q, tq_elem(100)));
			CHECK_EQ(errno, 0);
		}
		if (pre > 0 && d->peek != NULL)
			CHECK_EQ(tq_val(d->peek(q)), 1);
		contents_are(d, q, 1, pre);
	}
	d->destroy(q);
}

/* offer_bulk with a NULL anywhere: 0 + EINVAL, nothing enqueued. */
static void case_bulk_null(const struct tq_desc *d)
{
	void *q = d->create(8);
	if (!CHECK_NOT_NULL(q))
		return;
	size_t cap = d->bounded ? d->capacity(q) : 8;
	put(d, q, 1, 2);
	void *es[8];
	size_t room = cap - 2;
	for (size_t n = 1; n <= room && n <= 6; n++) {
		for (size_t at = 0; at < n; at++) {
			for (size_t k = 0; k < n; k++)
				es[k] = tq_elem(100 + k);
			es[at] = NULL;
			errno = 0;
			CHECK_EQ(d->offer_bulk(q, es, n), 0);
			CHECK_EQ(errno, EINVAL);
			CHECK_EQ(d->size(q), 2);
		}
	}
	contents_are(d, q, 1, 2);
	d->destroy(q);
}

/* offer_burst stops before the first NULL (EINVAL); what precedes it is
 * enqueued, nothing after it. */
static void case_burst_null(const struct tq_desc *d)
{
	void *q = d->create(8);
	if (!CHECK_NOT_NULL(q))
		return;
	put(d, q, 1, 2);
	void *es[4] = {tq_elem(3), tq_elem(4), NULL, tq_elem(99)};
	errno = 0;
	CHECK_EQ(d->offer_burst(q, es, 4), 2);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(d->size(q), 4);
	void *first_null[2] = {NULL, tq_elem(99)};
	errno = 0;
	CHECK_EQ(d->offer_burst(q, first_null, 2), 0);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(d->size(q), 4);
	contents_are(d, q, 1, 4);
	d->destroy(q);
}

/* A caller's allocator that counts its live blocks and fails while
 * `fail_after` reaches 0 (negative: never). */
struct test_alloc {
	long live;
	long fail_after;
};

static void *ta_alloc(void *ctx, size_t size, size_t align)
{
	struct test_alloc *t = (struct test_alloc *)ctx;
	if (t->fail_after == 0)
		return NULL;
	if (t->fail_after > 0)
		t->fail_after--;
	void *p = aligned_alloc(align, (size + align - 1) / align * align);
	if (p != NULL)
		t->live++;
	return p;
}

static void ta_free(void *ctx, void *p, size_t size)
{
	(void)size;
	struct test_alloc *t = (struct test_alloc *)ctx;
	t->live--;
	free(p);
}

static void *supply_seq(void *ctx)
{
	uint64_t *next = (uint64_t *)ctx;
	return tq_elem((*next)++);
}

/* The growing families with create_with: allocation failure in offer,
 * offer_bulk, offer_burst and fill gives false/0/partial with ENOMEM,
 * nothing lost or duplicated, the queue usable once memory comes back; and
 * destroy gives back every block. */
static void case_grow_enomem(const struct tq_desc *d)
{
	if (!d->create_with) {
		check_skip("no create_with (allocator)");
		return;
	}
	struct test_alloc t = {0, -1};
	conq_allocator a = {ta_alloc, ta_free, &t};
	void *q = d->create_with(16, &a);
	if (!CHECK_NOT_NULL(q))
		return;
	t.fail_after = 0;
	/* A fresh queue has no cached nodes: the first offer needs memory
	 * (families that preallocate may succeed; then they must hold it). */
	uint64_t in = 0;
	errno = 0;
	if (d->offer(q, tq_elem(1))) {
		in = 1;
	} else {
		CHECK_EQ(errno, ENOMEM);
		CHECK_EQ(d->size(q), 0);
		CHECK_TRUE(d->is_empty(q));
	}
	/* Memory back: 3 more, then it runs out inside a bulk of 6. */
	t.fail_after = -1;
	put(d, q, in + 1, 3);
	in += 3;
	if (d->bounded)
		goto out;
	t.fail_after = 2;
	void *es[6];
	for (size_t k = 0; k < 6; k++)
		es[k] = tq_elem(in + 1 + k);
	errno = 0;
	size_t got = d->offer_bulk(q, es, 6);
	if (got == 0)
		CHECK_EQ(errno, ENOMEM);
	else
		CHECK_EQ(got, 6);
	in += got;
	CHECK_EQ(d->size(q), in);
	/* burst: as many as memory allows, in order. */
	t.fail_after = 2;
	for (size_t k = 0; k < 6; k++)
		es[k] = tq_elem(in + 1 + k);
	errno = 0;
	got = d->offer_burst(q, es, 6);
	CHECK_LE(got, 6);
	if (got < 6)
		CHECK_EQ(errno, ENOMEM);
	in += got;
	/* fill: the supplier is asked only for elements that get in. */
	t.fail_after = 1;
	uint64_t next = in + 1;
	errno = 0;
	got = d->fill(q, supply_seq, &next, 6);
	CHECK_EQ(next - (in + 1), got);
	if (got < 6)
		CHECK_EQ(errno, ENOMEM);
	in += got;
	CHECK_EQ(d->size(q), in);
	t.fail_after = -1;
	put(d, q, in + 1, 2000); /* past the node caches */
	in += 2000;
	contents_are(d, q, 1, in);
	put(d, q, 1, 5);
out:
	d->destroy(q);
	CHECK_EQ(t.live, 0); /* every block given back */
}

static const struct tq_case cases[] = {
    {"grow_enomem", case_grow_enomem},
    {"bad_capacity", case_bad_capacity},
    {"max_capacity", case_max_capacity},
    {"enomem", case_enomem},
    {"destroy_null", case_destroy_null},
    {"offer_null", case_offer_null},
    {"bulk_null", case_bulk_null},
    {"burst_null", case_burst_null},
};

int main(int argc, char **argv)
{
	return tq_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
