/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tests of conq_mpsc_bytes (the MPSC ring of variable-length records) and of
 * the claim registry behind its dead-producer recovery
 * (conq/impl/claims.h). One binary, one case per ctest entry:
 *
 *   unit      sizes and every error; records of every length up to
 *             max_record (and EMSGSIZE above it), types (EINVAL), zero-length
 *             records, the wrap with its padding record, "no room at the end
 *             nor at the start" (Agrona #22, Aeron #2015), abort, commit and
 *             abort of pointers that are not claims, peek/release, a record
 *             in progress holding back later ones, read's limit, a full ring
 *             read in one call, positions across the 2^64 wrap, the zeroed
 *             space behind the consumer, attach and its checks, the waiting
 *             calls (timeouts, a woken claim_until and read_until);
 *   transfer  2 and 4 producer threads into one consumer, private and
 *             shared rings: per-producer order, no loss or duplicate, every
 *             payload byte checked; producers use write, claim/commit and
 *             the waiting calls; afterwards the ring is empty and zeroed and
 *             every registry entry is free again (the threads' exits);
 *   fuzz      random operations against a reference model (deterministic
 *             seeds; CONQ_TEST_SCALE scales the count), single-threaded,
 *             outstanding claims committed and aborted out of order;
 *   registry  liveness (alive, reaped, zombie, reused pid, stopped, a
 *             process whose main thread exited while another runs); the
 *             reclaim of dead claims crafted by hand: header zero or
 *             negative, across the wrap, with the padding written, two dead
 *             before a live one, a full ring (Agrona #159/#160); a claim of
 *             a live thread is never reclaimed; a thread that exits holding
 *             a claim frees its entry and its claim is reclaimed; EBUSY,
 *             EUSERS, detach.
 *
 * Killed producer processes are tests/test_bytes_proc.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "conq/conq.h"
#include "conq/impl/testing.h"

static double g_scale = 1.0;

static uint64_t scaled(double base)
{
	double v = base * g_scale;
	return v < 1 ? 1 : (uint64_t)v;
}

/* A ring in fresh CONQ_PAD-aligned memory (free with free()). */
static conq_mpsc_bytes *ring(size_t cap, const conq_mpsc_bytes_opts *o,
			     uint64_t start)
{
	size_t bytes = conq_mpsc_bytes_memsize_opts(cap, o);
	if (bytes == 0)
		return NULL;
	void *mem = aligned_alloc(CONQ_PAD,
				  (bytes + CONQ_PAD - 1) / CONQ_PAD * CONQ_PAD);
	if (mem == NULL)
		return NULL;
	return conq__mpsc_bytes_init_at(mem, cap, o, start);
}

static bool all_zero(const conq_mpsc_bytes *q)
{
	const unsigned char *d = conq__mpsc_bytes_data(q);
	for (size_t i = 0; i < conq_mpsc_bytes_capacity(q); i++)
		if (d[i] != 0)
			return false;
	return true;
}

/* A collecting handler. */
struct got {
	unsigned n;
	int32_t type[64];
	size_t len[64];
	unsigned char data[64][256];
};

static void collect(void *ctx, int32_t type, const void *data, size_t len)
{
	struct got *g = (struct got *)ctx;
	if (g->n < 64) {
		g->type[g->n] = type;
		g->len[g->n] = len;
		memcpy(g->data[g->n], data, len < 256 ? len : 256);
	}
	g->n++;
}

static void fill_pattern(void *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		((unsigned char *)p)[i] =
		    (unsigned char)(seed * 31u + i * 7u + 1u);
}

static bool pattern_ok(const void *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		if (((const unsigned char *)p)[i] !=
		    (unsigned char)(seed * 31u + i * 7u + 1u))
			return false;
	return true;
}

/* ------------------------------------------------------------------ unit */

static void unit_errors(void)
{
	check_context("errors");
	size_t bad[] = {0,	 1,  8,
			32,	 63, 100,
			65,	 96, CONQ_MPSC_BYTES_MAX_CAPACITY * 2,
			SIZE_MAX};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		errno = 0;
		CHECK_EQ(conq_mpsc_bytes_memsize(bad[i]), 0);
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_NULL(conq_mpsc_bytes_create(bad[i]));
		CHECK_EQ(errno, EINVAL);
	}
	CHECK_GT(conq_mpsc_bytes_memsize(64), 64);
	CHECK_GT(conq_mpsc_bytes_memsize(CONQ_MPSC_BYTES_MAX_CAPACITY),
		 CONQ_MPSC_BYTES_MAX_CAPACITY);
	conq_mpsc_bytes_opts o = {7, 0, 0};
	errno = 0;
	CHECK_EQ(conq_mpsc_bytes_memsize_opts(64, &o), 0);
	CHECK_EQ(errno, EINVAL);
	o = (conq_mpsc_bytes_opts){CONQ_MPSC_BYTES_SHARED, CONQ__CLAIMS_MAX + 1,
				   0};
	errno = 0;
	CHECK_EQ(conq_mpsc_bytes_memsize_opts(64, &o), 0);
	CHECK_EQ(errno, EINVAL);
	o = (conq_mpsc_bytes_opts){CONQ_MPSC_BYTES_SHARED, 0, -1};
	errno = 0;
	CHECK_EQ(conq_mpsc_bytes_memsize_opts(64, &o), 0);
	CHECK_EQ(errno, EINVAL);
	o = (conq_mpsc_bytes_opts){CONQ_MPSC_BYTES_SHARED, 3, 0};
	CHECK_EQ(conq_mpsc_bytes_memsize_opts(64, &o),
		 conq_mpsc_bytes_memsize(64) + conq__claims_memsize(3));
	o = (conq_mpsc_bytes_opts){0, 3, 0}; /* private: no registry */
	CHECK_EQ(conq_mpsc_bytes_memsize_opts(64, &o),
		 conq_mpsc_bytes_memsize(64));
	/* init: NULL and misaligned memory. */
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_init(NULL, 64));
	CHECK_EQ(errno, EINVAL);
	void *mem = aligned_alloc(
	    CONQ_PAD,
	    conq_mpsc_bytes_memsize(64) / CONQ_PAD * CONQ_PAD + CONQ_PAD);
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_init((char *)mem + 8, 64));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_init(mem, 48));
	CHECK_EQ(errno, EINVAL);
	free(mem);
}

static void unit_basic(void)
{
	check_context("basic");
	conq_mpsc_bytes *q = conq_mpsc_bytes_create(1024);
	if (!CHECK_NOT_NULL(q))
		return;
	CHECK_EQ(conq_mpsc_bytes_capacity(q), 1024);
	CHECK_EQ(conq_mpsc_bytes_max_record(q), 128);
	CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	CHECK_EQ(conq_mpsc_bytes_size(q), 0);
	/* Types: 0 and negatives are refused, INT32_MAX is fine. */
	int32_t badt[] = {0, -1, -2, INT32_MIN};
	for (size_t i = 0; i < 4; i++) {
		errno = 0;
		CHECK_NULL(conq_mpsc_bytes_claim(q, badt[i], 8));
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_FALSE(conq_mpsc_bytes_write(q, badt[i], "x", 1));
		CHECK_EQ(errno, EINVAL);
	}
	CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	/* Lengths: max_record fits, one more is EMSGSIZE. */
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_claim(q, 1, 129));
	CHECK_EQ(errno, EMSGSIZE);
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_claim(q, 1, SIZE_MAX));
	CHECK_EQ(errno, EMSGSIZE);
	errno = 0;
	CHECK_FALSE(conq_mpsc_bytes_write(q, 1, NULL, 3));
	CHECK_EQ(errno, EINVAL);
	CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	unsigned char buf[128];
	fill_pattern(buf, 128, 9);
	CHECK_TRUE(conq_mpsc_bytes_write(q, INT32_MAX, buf, 128));
	CHECK_TRUE(conq_mpsc_bytes_write(q, 2, NULL, 0)); /* zero-length */
	CHECK_EQ(conq_mpsc_bytes_size(q), 136 + 8);
	CHECK_FALSE(conq_mpsc_bytes_is_empty(q));
	struct got g = {0};
	CHECK_EQ(conq_mpsc_bytes_read(q, collect, &g, 0), 0); /* limit 0 */
	CHECK_EQ(conq_mpsc_bytes_read(q, collect, &g, 10), 2);
	CHECK_EQ(g.type[0], INT32_MAX);
	CHECK_EQ(g.len[0], 128);
	CHECK_TRUE(pattern_ok(g.data[0], 128, 9));
	CHECK_EQ(g.type[1], 2);
	CHECK_EQ(g.len[1], 0);
	CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	CHECK_TRUE(all_zero(q));
	/* Every length from 0 to max_record, read one at a time. */
	for (size_t len = 0; len <= 128; len++) {
		void *p = conq_mpsc_bytes_claim(q, (int32_t)len + 1, len);
		if (!CHECK_NOT_NULL(p))
			break;
		CHECK_EQ((uintptr_t)p % 8, 0);
		fill_pattern(p, len, (unsigned)len);
		CHECK_EQ(conq_mpsc_bytes_size(q) % 8, 0);
		CHECK_TRUE(conq_mpsc_bytes_commit(q, p));
		g.n = 0;
		CHECK_EQ(conq_mpsc_bytes_read(q, collect, &g, 1), 1);
		if (g.len[0] != len || g.type[0] != (int32_t)len + 1 ||
		    !pattern_ok(g.data[0], len, (unsigned)len))
			CHECK_FAIL("record of %zu bytes came back wrong", len);
	}
	CHECK_TRUE(all_zero(q));
	conq_mpsc_bytes_destroy(q);
	conq_mpsc_bytes_destroy(NULL);
}

/* The wrap: a record that does not fit before the end takes the rest of
 * the ring as padding and starts at byte 0. */
static void unit_wrap(void)
{
	check_context("wrap");
	conq_mpsc_bytes *q = conq_mpsc_bytes_create(256); /* max_record 32 */
	if (!CHECK_NOT_NULL(q))
		return;
	struct got g = {0};
	/* 7 records of 24 + 8 = 32 bytes: 224 used, 32 left at the end. */
	for (unsigned k = 0; k < 7; k++)
		CHECK_TRUE(conq_mpsc_bytes_write(
		    q, 1, "abcdefghijklmnopqrstuvwx", 24));
	CHECK_EQ(conq_mpsc_bytes_read(q, collect, &g, 6), 6);
	/* head 192, tail 224: a record of 32 + 8 = 40 bytes does not fit the
	 * 32 at the end: padding of 32, record at 0. */
	unsigned char b[32];
	fill_pattern(b, 32, 3);
	CHECK_TRUE(conq_mpsc_bytes_write(q, 5, b, 32));
	CHECK_EQ(conq_mpsc_bytes_size(q), 32 + 32 + 40);
	uint64_t w = *conq__mpsc_bytes_hdr(q, 224);
	CHECK_EQ_I(conq__mpsc_bytes_len(w), 32);
	CHECK_EQ_I(conq__mpsc_bytes_type(w), CONQ_MPSC_BYTES_PADDING);
	g.n = 0;
	CHECK_EQ(conq_mpsc_bytes_read(q, collect, &g, 10), 2);
	CHECK_EQ(g.type[1], 5);
	CHECK_TRUE(pattern_ok(g.data[1], 32, 3));
	CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	CHECK_TRUE(all_zero(q));
	/* No room at the end nor at the start (Agrona #22, Aeron #2015): head
	 * at 32, tail at 240: 16 bytes at the end, 32 at the start, 48 free
	 * in all; a record of 32 + 8 needs the 16 as padding plus 40 at the
	 * start: EAGAIN, and nothing changes. */
	conq_mpsc_bytes_destroy(q);
	q = conq_mpsc_bytes_create(256);
	CHECK_TRUE(conq_mpsc_bytes_write(q, 1, b, 24)); /* 0..32 */
	for (unsigned k = 0; k < 6; k++)		/* 32..224 */
		CHECK_TRUE(conq_mpsc_bytes_write(q, 1, b, 24));
	CHECK_TRUE(conq_mpsc_bytes_write(q, 1, b, 8)); /* 224..240 */
	g.n = 0;
	CHECK_EQ(conq_mpsc_bytes_read(q, collect, &g, 1), 1);
	size_t before = conq_mpsc_bytes_size(q);
	CHECK_EQ(before, 208);
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_claim(q, 1, 32));
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(conq_mpsc_bytes_size(q), before);
	/* A record of 8 + 8 fits the end exactly; then 24 + 8 the start. */
	CHECK_TRUE(conq_mpsc_bytes_write(q, 1, b, 8));
	CHECK_TRUE(conq_mpsc_bytes_write(q, 1, b, 24));
	CHECK_EQ(conq_mpsc_bytes_size(q), 256);
	g.n = 0;
	CHECK_EQ(conq_mpsc_bytes_read(q, collect, &g, 64), 9);
	CHECK_TRUE(all_zero(q));
	conq_mpsc_bytes_destroy(q);
}

static void unit_claims(void)
{
	check_context("claim, commit, abort, peek");
	conq_mpsc_bytes *q = conq_mpsc_bytes_create(512);
	if (!CHECK_NOT_NULL(q))
		return;
	struct got g = {0};
	/* A record in progress holds back the ones claimed after it. */
	void *a = conq_mpsc_bytes_claim(q, 1, 10);
	CHECK_TRUE(conq_mpsc_bytes_write(q, 2, "later", 5));
	CHECK_EQ(conq_mpsc_bytes_read(q, collect, &g, 10), 0);
	CHECK_NULL(conq_mpsc_bytes_peek(q, NULL, NULL));
	errno = 0;
	CHECK_FALSE(conq_mpsc_bytes_release(q));
	CHECK_EQ(errno, EINVAL);
	memcpy(a, "0123456789", 10);
	CHECK_TRUE(conq_mpsc_bytes_commit(q, a));
	int32_t type = 0;
	size_t len = 0;
	const void *p = conq_mpsc_bytes_peek(q, &type, &len);
	CHECK_NOT_NULL(p);
	CHECK_EQ(type, 1);
	CHECK_EQ(len, 10);
	CHECK_PTR_EQ(conq_mpsc_bytes_peek(q, NULL, NULL), p); /* again */
	CHECK_TRUE(p != NULL && memcmp(p, "0123456789", 10) == 0);
	CHECK_TRUE(conq_mpsc_bytes_release(q));
	p = conq_mpsc_bytes_peek(q, &type, &len);
	CHECK_TRUE(p != NULL && type == 2 && len == 5 &&
		   memcmp(p, "later", 5) == 0);
	CHECK_TRUE(conq_mpsc_bytes_release(q));
	CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	/* commit and abort of what is not a claim in progress. */
	unsigned char local[16];
	void *bogus[] = {NULL,
			 local,
			 conq__mpsc_bytes_data(q),
			 conq__mpsc_bytes_data(q) + 4,
			 conq__mpsc_bytes_data(q) + 16,
			 conq__mpsc_bytes_data(q) + 512 + 8};
	for (size_t i = 0; i < sizeof bogus / sizeof bogus[0]; i++) {
		errno = 0;
		CHECK_FALSE(conq_mpsc_bytes_commit(q, bogus[i]));
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK_FALSE(conq_mpsc_bytes_abort(q, bogus[i]));
		CHECK_EQ(errno, EINVAL);
	}
	/* Double commit, commit after abort. */
	a = conq_mpsc_bytes_claim(q, 3, 0);
	CHECK_TRUE(conq_mpsc_bytes_commit(q, a));
	errno = 0;
	CHECK_FALSE(conq_mpsc_bytes_commit(q, a));
	CHECK_EQ(errno, EINVAL);
	/* Abort: the record becomes padding, read skips it, out of order. */
	void *x = conq_mpsc_bytes_claim(q, 4, 20);
	void *y = conq_mpsc_bytes_claim(q, 5, 20);
	void *z = conq_mpsc_bytes_claim(q, 6, 3);
	memset(x, 0xee, 20);
	memcpy(z, "zzz", 3);
	CHECK_TRUE(conq_mpsc_bytes_commit(q, z));
	CHECK_TRUE(conq_mpsc_bytes_abort(q, x));
	errno = 0;
	CHECK_FALSE(conq_mpsc_bytes_commit(q, x));
	CHECK_EQ(errno, EINVAL);
	g.n = 0;
	CHECK_EQ(conq_mpsc_bytes_read(q, collect, &g, 10), 1); /* 3; y holds */
	CHECK_EQ(g.type[0], 3);
	CHECK_TRUE(conq_mpsc_bytes_abort(q, y));
	g.n = 0;
	CHECK_EQ(conq_mpsc_bytes_read(q, collect, &g, 10), 1);
	CHECK_EQ(g.type[0], 6);
	CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	CHECK_TRUE(all_zero(q));
	/* peek passes padding at the head (an aborted record). */
	x = conq_mpsc_bytes_claim(q, 7, 8);
	CHECK_TRUE(conq_mpsc_bytes_write(q, 8, "p", 1));
	CHECK_TRUE(conq_mpsc_bytes_abort(q, x));
	p = conq_mpsc_bytes_peek(q, &type, &len);
	CHECK_TRUE(p != NULL && type == 8 && len == 1);
	CHECK_TRUE(conq_mpsc_bytes_release(q));
	/* A full ring of committed records is read in one call, once. */
	unsigned k = 0;
	while (conq_mpsc_bytes_write(q, (int32_t)k + 1, &k, sizeof k))
		k++;
	CHECK_EQ(errno, EAGAIN);
	CHECK_GE(conq_mpsc_bytes_size(q), 512 - 15);
	g.n = 0;
	CHECK_EQ(conq_mpsc_bytes_read(q, collect, &g, 1000), k);
	CHECK_TRUE(all_zero(q));
	conq_mpsc_bytes_destroy(q);
}

/* Positions a few records below the 2^64 wrap (or the narrow build's). */
static void unit_index_wrap(void)
{
	check_context("positions across the wrap");
	conq_mpsc_bytes *q = ring(128, NULL, UINT64_MAX - 100);
	if (!CHECK_NOT_NULL(q))
		return;
	struct got g;
	for (unsigned k = 0; k < 200; k++) {
		unsigned char b[16];
		size_t len = k % 17;
		fill_pattern(b, len, k);
		if (!conq_mpsc_bytes_write(q, (int32_t)k + 1, b, len)) {
			CHECK_FAIL("write %u failed (errno %d)", k, errno);
			break;
		}
		CHECK_LE(conq_mpsc_bytes_size(q), 128);
		g.n = 0;
		if (conq_mpsc_bytes_read(q, collect, &g, 1) != 1 ||
		    g.type[0] != (int32_t)k + 1 || g.len[0] != len ||
		    !pattern_ok(g.data[0], len, k)) {
			CHECK_FAIL("record %u came back wrong", k);
			break;
		}
		CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	}
	CHECK_TRUE(all_zero(q));
	free(q);
}

static void unit_attach(void)
{
	check_context("attach");
	conq_mpsc_bytes_opts o = {CONQ_MPSC_BYTES_SHARED, 4, 0};
	size_t bytes = conq_mpsc_bytes_memsize_opts(256, &o);
	conq_mpsc_bytes *q = ring(256, &o, 0);
	if (!CHECK_NOT_NULL(q))
		return;
	CHECK_PTR_EQ(conq_mpsc_bytes_attach(q, bytes), q);
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_attach(q, bytes - 1));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_attach(NULL, bytes));
	CHECK_EQ(errno, EINVAL);
	q->layout ^= 1;
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_attach(q, bytes));
	CHECK_EQ(errno, EPROTO);
	q->layout ^= 1;
	q->reg_off += CONQ_PAD;
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_attach(q, bytes));
	CHECK_EQ(errno, EINVAL);
	q->reg_off -= CONQ_PAD;
	q->magic ^= 1;
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_attach(q, bytes));
	CHECK_EQ(errno, EINVAL);
	q->magic ^= 1;
	CHECK_PTR_EQ(conq_mpsc_bytes_attach(q, bytes), q);
	/* A private ring has no registry; unblock does nothing there. */
	conq_mpsc_bytes *p = conq_mpsc_bytes_create(64);
	CHECK_PTR_EQ(conq_mpsc_bytes_attach(p, conq_mpsc_bytes_memsize(64)), p);
	CHECK_NOT_NULL(conq_mpsc_bytes_claim(p, 1, 1));
	CHECK_FALSE(conq_mpsc_bytes_unblock(p));
	conq_mpsc_bytes_detach(p); /* a no-op */
	conq_mpsc_bytes_destroy(p);
	conq_mpsc_bytes_detach(q);
	free(q);
}

struct waiter {
	conq_mpsc_bytes *q;
	int rc;
	size_t n;
};

static void *late_claim(void *arg)
{
	struct waiter *w = (struct waiter *)arg;
	void *p = conq_mpsc_bytes_claim_until(w->q, 9, 32, CONQ_NO_DEADLINE);
	w->rc = p != NULL && conq_mpsc_bytes_commit(w->q, p);
	return NULL;
}

static void *late_read(void *arg)
{
	struct waiter *w = (struct waiter *)arg;
	struct got g = {0};
	w->n = conq_mpsc_bytes_read_until(w->q, collect, &g, 10,
					  conq_now_ns() + 5000000000LL);
	w->rc = g.n == 1 && g.type[0] == 11;
	return NULL;
}

static void unit_waiting(bool shared)
{
	check_context("waiting calls, %s", shared ? "shared" : "private");
	conq_mpsc_bytes_opts o = {shared ? CONQ_MPSC_BYTES_SHARED : 0u, 0, 0};
	conq_mpsc_bytes *q = ring(256, &o, 0);
	if (!CHECK_NOT_NULL(q))
		return;
	struct got g = {0};
	/* Timeouts, a deadline in the past included. */
	errno = 0;
	CHECK_EQ(conq_mpsc_bytes_read_until(q, collect, &g, 1, 0), 0);
	CHECK_EQ(errno, ETIMEDOUT);
	errno = 0;
	CHECK_EQ(conq_mpsc_bytes_read_until(q, collect, &g, 1,
					    conq_now_ns() + 20000000),
		 0);
	CHECK_EQ(errno, ETIMEDOUT);
	errno = 0;
	CHECK_NULL(
	    conq_mpsc_bytes_peek_until(q, NULL, NULL, conq_now_ns() + 1000000));
	CHECK_EQ(errno, ETIMEDOUT);
	CHECK_EQ(conq_mpsc_bytes_read_until(q, collect, &g, 0, 0), 0);
	/* Errors do not wait. */
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_claim_until(q, 1, 33, CONQ_NO_DEADLINE));
	CHECK_EQ(errno, EMSGSIZE);
	errno = 0;
	CHECK_FALSE(conq_mpsc_bytes_write_until(q, 0, "", 0, CONQ_NO_DEADLINE));
	CHECK_EQ(errno, EINVAL);
	/* Fill the ring: claim_until times out, then is woken by a read. */
	while (
	    conq_mpsc_bytes_write(q, 1, "0123456789abcdef0123456789abcdef", 32))
		;
	errno = 0;
	CHECK_NULL(
	    conq_mpsc_bytes_claim_until(q, 1, 32, conq_now_ns() + 10000000));
	CHECK_EQ(errno, ETIMEDOUT);
	errno = 0;
	CHECK_FALSE(conq_mpsc_bytes_write_until(
	    q, 1, "0123456789abcdef0123456789abcdef", 32, 0));
	CHECK_EQ(errno, ETIMEDOUT);
	conq__test_block_spin(0); /* park at once */
	struct waiter w = {q, 0, 0};
	pthread_t th;
	pthread_create(&th, NULL, late_claim, &w);
	usleep(20000);
	CHECK_EQ(conq_mpsc_bytes_read(q, collect, &g, 1), 1);
	pthread_join(th, NULL);
	CHECK_EQ(w.rc, 1);
	g.n = 0;
	conq_mpsc_bytes_read(q, collect, &g, 100);
	CHECK_EQ(g.type[g.n - 1], 9);
	CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	/* read_until woken by a write. */
	w = (struct waiter){q, 0, 0};
	pthread_create(&th, NULL, late_read, &w);
	usleep(20000);
	CHECK_TRUE(conq_mpsc_bytes_write(q, 11, "w", 1));
	pthread_join(th, NULL);
	CHECK_EQ(w.n, 1);
	CHECK_EQ(w.rc, 1);
	/* peek_until returns what is there. */
	CHECK_TRUE(conq_mpsc_bytes_write(q, 12, "pk", 2));
	int32_t type = 0;
	size_t len = 0;
	const void *p = conq_mpsc_bytes_peek_until(q, &type, &len, 0);
	CHECK_TRUE(p != NULL && type == 12 && len == 2);
	CHECK_TRUE(conq_mpsc_bytes_release(q));
	conq__test_block_spin(CONQ__BLOCK_SPIN_NS);
	CHECK_TRUE(all_zero(q));
	conq_mpsc_bytes_detach(q);
	free(q);
}

static void run_unit(void)
{
	unit_errors();
	unit_basic();
	unit_wrap();
	unit_claims();
	unit_index_wrap();
	unit_attach();
	unit_waiting(false);
	unit_waiting(true);
}

/* -------------------------------------------------------------- transfer */

/* A record of producer p, sequence s: type p + 1, payload {p, s, len} then
 * pattern bytes; its length is a function of (p, s). */
static size_t rec_len(unsigned p, uint64_t s, size_t max)
{
	return 16 + (size_t)((s * 13 + p * 7) % (max - 15));
}

struct xfer {
	conq_mpsc_bytes *q;
	unsigned id;
	uint64_t n;
	int mode; /* 0 write, 1 claim/commit, 2 write_until */
};

static void put_rec(void *dst, unsigned p, uint64_t s, size_t len)
{
	uint32_t hdr[2] = {p, (uint32_t)len};
	memcpy(dst, hdr, 8);
	memcpy((char *)dst + 8, &s, 8);
	fill_pattern((char *)dst + 16, len - 16, (unsigned)(s + p));
}

static void *xfer_producer(void *arg)
{
	struct xfer *x = (struct xfer *)arg;
	size_t max = conq_mpsc_bytes_max_record(x->q);
	unsigned char buf[1024];
	for (uint64_t s = 0; s < x->n; s++) {
		size_t len = rec_len(x->id, s, max);
		int mode = x->mode == 3 ? (int)(s % 3) : x->mode;
		if (mode == 1) {
			void *p;
			while ((p = conq_mpsc_bytes_claim(
				    x->q, (int32_t)x->id + 1, len)) == NULL)
				sched_yield();
			put_rec(p, x->id, s, len);
			conq_mpsc_bytes_commit(x->q, p);
		} else {
			put_rec(buf, x->id, s, len);
			if (mode == 2)
				conq_mpsc_bytes_write_until(
				    x->q, (int32_t)x->id + 1, buf, len,
				    CONQ_NO_DEADLINE);
			else
				while (!conq_mpsc_bytes_write(
				    x->q, (int32_t)x->id + 1, buf, len))
					sched_yield();
		}
	}
	return NULL;
}

struct xcheck {
	uint64_t next[4];
	size_t max;
	uint64_t got, bad;
};

static void xfer_check(void *ctx, int32_t type, const void *data, size_t len)
{
	struct xcheck *c = (struct xcheck *)ctx;
	uint32_t hdr[2];
	uint64_t s;
	c->got++;
	if (len < 16) {
		c->bad++;
		return;
	}
	memcpy(hdr, data, 8);
	memcpy(&s, (const char *)data + 8, 8);
	unsigned p = hdr[0];
	if (p >= 4 || type != (int32_t)p + 1 || hdr[1] != len ||
	    s != c->next[p] || len != rec_len(p, s, c->max) ||
	    !pattern_ok((const char *)data + 16, len - 16, (unsigned)(s + p))) {
		if (c->bad++ < 5)
			fprintf(stderr,
				"bad record: type %d len %zu producer %u seq "
				"%" PRIu64 " (expected %" PRIu64 ")\n",
				type, len, p, s, p < 4 ? c->next[p] : 0);
	}
	if (p < 4)
		c->next[p] = s + 1;
}

static void transfer(unsigned np, bool shared, size_t cap, uint64_t per)
{
	check_context("transfer %uP1C %s cap %zu", np,
		      shared ? "shared" : "private", cap);
	conq_mpsc_bytes_opts o = {shared ? CONQ_MPSC_BYTES_SHARED : 0u, 8, 0};
	conq_mpsc_bytes *q = ring(cap, &o, UINT64_MAX - cap);
	if (!CHECK_NOT_NULL(q))
		return;
	struct xfer x[4];
	pthread_t th[4];
	for (unsigned i = 0; i < np; i++) {
		x[i] = (struct xfer){q, i, per, (int)(i % 4)};
		pthread_create(&th[i], NULL, xfer_producer, &x[i]);
	}
	struct xcheck c = {{0}, conq_mpsc_bytes_max_record(q), 0, 0};
	uint64_t total = per * np;
	int64_t deadline = conq_now_ns() + 60000000000LL;
	while (c.got < total) {
		if (conq_mpsc_bytes_read_until(q, xfer_check, &c, 7,
					       deadline) == 0) {
			CHECK_FAIL("the consumer timed out after %" PRIu64
				   " of %" PRIu64 " records",
				   c.got, total);
			break;
		}
	}
	for (unsigned i = 0; i < np; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ(c.got, total);
	CHECK_EQ(c.bad, 0);
	for (unsigned i = 0; i < np; i++)
		CHECK_EQ(c.next[i], per);
	CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	CHECK_TRUE(all_zero(q));
	if (shared) {
		/* Every producer thread has exited: its entry is free. The
		 * consumer (this thread) never claimed. */
		conq__claim_entry *es =
		    conq__claims_entries(conq__mpsc_bytes_reg(q));
		for (unsigned i = 0; i < 8; i++)
			CHECK_EQ(es[i].owner, 0);
		conq_mpsc_bytes_detach(q);
	}
	free(q);
}

static void run_transfer(void)
{
	size_t big = CONQ_MPSC_BYTES_MAX_CAPACITY < 4096
			 ? CONQ_MPSC_BYTES_MAX_CAPACITY
			 : 4096;
	transfer(2, false, big, scaled(50000));
	transfer(4, false, 1024, scaled(25000));
	transfer(2, true, 512, scaled(25000));
	transfer(4, true, big, scaled(25000));
}

/* ------------------------------------------------------------------ fuzz */

/* The model: every claim since the head, in position order. */
enum { M_PAD, M_PROGRESS, M_COMMITTED };

struct mrec {
	uint64_t pos;	/* offset from the start position */
	uint64_t bytes; /* aligned record (or padding) bytes */
	int state;
	int32_t type;
	size_t len;
	unsigned seed;
	void *p; /* payload, while in progress */
};

struct model {
	struct mrec r[512];
	unsigned head, n; /* records r[head .. head + n) (a ring) */
	uint64_t mhead, mtail;
};

static struct mrec *mrec_at(struct model *m, unsigned k)
{
	return &m->r[(m->head + k) % 512];
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct fcheck {
	struct model *m;
	unsigned k; /* index of the next record expected among m's */
	bool bad;
};

/* Expected delivery: the model's committed records from the head, skipping
 * padding, stopping at the first in progress. */
static void fuzz_handler(void *ctx, int32_t type, const void *data, size_t len)
{
	struct fcheck *c = (struct fcheck *)ctx;
	struct model *m = c->m;
	while (c->k < m->n && mrec_at(m, c->k)->state == M_PAD)
		c->k++;
	if (c->k >= m->n) {
		c->bad = true;
		return;
	}
	struct mrec *r = mrec_at(m, c->k++);
	if (r->state != M_COMMITTED || r->type != type || r->len != len ||
	    !pattern_ok(data, len, r->seed))
		c->bad = true;
}

static void model_pop(struct model *m, unsigned k)
{
	for (unsigned i = 0; i < k; i++) {
		m->mhead += mrec_at(m, 0)->bytes;
		m->head = (m->head + 1) % 512;
		m->n--;
	}
}

static void fuzz_one(uint64_t seed, size_t cap, uint64_t ops)
{
	check_context("fuzz seed %" PRIu64 " cap %zu", seed, cap);
	uint64_t start = (seed & 1 ? UINT64_MAX - 8 * (seed % 97) : seed * 8) &
			 ~(uint64_t)7; /* as init_at rounds it */
	conq_mpsc_bytes *q = ring(cap, NULL, start);
	if (!CHECK_NOT_NULL(q))
		return;
	struct model *m = (struct model *)calloc(1, sizeof *m);
	uint64_t s = seed * 2654435761u + 1;
	size_t max = cap / 8;
	unsigned seeds = 0;
	for (uint64_t op = 0; op < ops; op++) {
		unsigned what = (unsigned)(rng_next(&s) % 100);
		if (what < 40) { /* claim (or write) */
			size_t len = (size_t)(rng_next(&s) % (max + 3));
			int32_t type = (int32_t)(rng_next(&s) % 1000) + 1;
			if (rng_next(&s) % 50 == 0)
				type = -(int32_t)(rng_next(&s) % 3);
			bool w = rng_next(&s) % 2;
			uint64_t need = (len + 8 + 7) & ~(uint64_t)7;
			uint64_t to_end =
			    cap - ((start + m->mtail) & (cap - 1));
			uint64_t pad = to_end < need ? to_end : 0;
			int expect = type < 1	 ? EINVAL
				     : len > max ? EMSGSIZE
				     : m->mtail + pad + need - m->mhead > cap
					 ? EAGAIN
					 : 0;
			if (expect == 0 && m->n + 2 > 512)
				continue;
			unsigned sd = seeds++;
			unsigned char buf[512];
			fill_pattern(buf, len < 512 ? len : 512, sd);
			void *p = NULL;
			errno = 0;
			bool ok;
			if (w) {
				ok = conq_mpsc_bytes_write(q, type, buf, len);
			} else {
				p = conq_mpsc_bytes_claim(q, type, len);
				ok = p != NULL;
				if (ok)
					fill_pattern(p, len, sd);
			}
			if (ok != (expect == 0) || (!ok && errno != expect)) {
				CHECK_FAIL("op %" PRIu64 ": claim(%d, %zu) "
					   "gave %d errno %d, model %d",
					   op, type, len, ok, errno, expect);
				break;
			}
			if (!ok)
				continue;
			if (pad) {
				struct mrec *r = mrec_at(m, m->n++);
				*r = (struct mrec){m->mtail, pad, M_PAD, 0,
						   0,	     0,	  NULL};
				m->mtail += pad;
			}
			struct mrec *r = mrec_at(m, m->n++);
			*r = (struct mrec){
			    m->mtail, need, w ? M_COMMITTED : M_PROGRESS,
			    type,     len,  sd,
			    p};
			m->mtail += need;
		} else if (what < 60) { /* commit or abort one in progress */
			unsigned cand[512], nc = 0;
			for (unsigned k = 0; k < m->n; k++)
				if (mrec_at(m, k)->state == M_PROGRESS)
					cand[nc++] = k;
			if (nc == 0) {
				unsigned char junk[8];
				errno = 0;
				CHECK_FALSE(conq_mpsc_bytes_commit(q, junk));
				CHECK_EQ(errno, EINVAL);
				continue;
			}
			struct mrec *r = mrec_at(m, cand[rng_next(&s) % nc]);
			bool abort = rng_next(&s) % 4 == 0;
			bool ok = abort ? conq_mpsc_bytes_abort(q, r->p)
					: conq_mpsc_bytes_commit(q, r->p);
			if (!ok)
				CHECK_FAIL(
				    "op %" PRIu64 ": commit/abort failed", op);
			r->state = abort ? M_PAD : M_COMMITTED;
			r->p = NULL;
		} else if (what < 85) { /* read */
			size_t limit = (size_t)(rng_next(&s) % 5);
			struct fcheck c = {m, 0, false};
			size_t n =
			    conq_mpsc_bytes_read(q, fuzz_handler, &c, limit);
			/* The model: up to limit records, passing padding
			 * (after the last one delivered too, if the limit
			 * was not reached), up to a record in progress. */
			unsigned k = 0, got = 0;
			uint64_t bytes = 0;
			while (k < m->n && bytes < cap) {
				struct mrec *r = mrec_at(m, k);
				if (r->state == M_PROGRESS || got == limit)
					break;
				if (r->state == M_COMMITTED)
					got++;
				bytes += r->bytes;
				k++;
			}
			if (n != got || c.bad || c.k > k) {
				CHECK_FAIL("op %" PRIu64
					   ": read(%zu) gave %zu, "
					   "model %u%s",
					   op, limit, n, got,
					   c.bad ? " (wrong record)" : "");
				break;
			}
			model_pop(m, k);
		} else if (what < 95) { /* peek, maybe release */
			int32_t type = 0;
			size_t len = 0;
			const void *p = conq_mpsc_bytes_peek(q, &type, &len);
			unsigned k = 0;
			while (k < m->n && mrec_at(m, k)->state == M_PAD)
				k++;
			model_pop(m, k); /* peek consumed the padding */
			struct mrec *r = m->n ? mrec_at(m, 0) : NULL;
			bool expect = r != NULL && r->state == M_COMMITTED;
			if ((p != NULL) != expect ||
			    (p != NULL && (type != r->type || len != r->len ||
					   !pattern_ok(p, len, r->seed)))) {
				CHECK_FAIL("op %" PRIu64 ": peek disagrees",
					   op);
				break;
			}
			if (rng_next(&s) % 2) {
				errno = 0;
				bool ok = conq_mpsc_bytes_release(q);
				if (ok != expect || (!ok && errno != EINVAL)) {
					CHECK_FAIL("op %" PRIu64
						   ": release disagrees",
						   op);
					break;
				}
				if (ok)
					model_pop(m, 1);
			}
		} else { /* observers */
			if (conq_mpsc_bytes_size(q) != m->mtail - m->mhead ||
			    conq_mpsc_bytes_is_empty(q) !=
				(m->mtail == m->mhead)) {
				CHECK_FAIL("op %" PRIu64 ": size %zu, model "
					   "%" PRIu64,
					   op, conq_mpsc_bytes_size(q),
					   m->mtail - m->mhead);
				break;
			}
			if (m->n == 0 && !all_zero(q)) {
				CHECK_FAIL("op %" PRIu64 ": empty ring not "
					   "zero",
					   op);
				break;
			}
		}
	}
	free(m);
	free(q);
}

static void run_fuzz(void)
{
	uint64_t ops = scaled(400000);
	size_t caps[] = {64, 256, 1024};
	for (uint64_t seed = 1; seed <= 12; seed++)
		fuzz_one(seed, caps[seed % 3], ops);
	CHECK_TRUE(true);
}

/* -------------------------------------------------------------- registry */

static conq__claim_entry *entries(conq_mpsc_bytes *q)
{
	return conq__claims_entries(conq__mpsc_bytes_reg(q));
}

/* A pid that is dead (a child, exited and reaped). */
static pid_t dead_pid(void)
{
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	waitpid(c, NULL, 0);
	return c;
}

static uint64_t child_start(pid_t pid);

/* Fake a claim of `len` payload bytes by a thread of process `pid` (start
 * time `start`) in entry k, as the claim CAS would leave it: intent set,
 * tail moved (with padding at the end when it does not fit); `hdr`: 0
 * nothing written, 1 the header written (negative), 2 also the padding
 * written (a wrap claim), 3 header and a payload. Returns the claim's
 * start. */
static conq__idx_t fake_claim(conq_mpsc_bytes *q, unsigned k, pid_t pid,
			      uint64_t start, size_t len, int hdr)
{
	conq__claim_entry *e = &entries(q)[k];
	e->owner = (uint64_t)pid << 32 | (4000000u + k);
	e->start = start;
	conq__idx_t t = q->tail;
	uint64_t need = (len + 8 + 7) & ~(uint64_t)7;
	uint64_t i = t & q->mask, to_end = q->cap - i;
	uint64_t pad = to_end < need ? to_end : 0;
	e->intent = conq__claims_token(t);
	q->tail = conq__idx_add(t, pad + need);
	uint64_t ri = pad ? 0 : i;
	if (hdr >= 2 && pad)
		*conq__mpsc_bytes_hdr(q, i) =
		    conq__mpsc_bytes_header((int64_t)pad, -1);
	if (hdr >= 1)
		*conq__mpsc_bytes_hdr(q, ri) =
		    conq__mpsc_bytes_header(-(int64_t)(len + 8), 77);
	if (hdr >= 3)
		memset(conq__mpsc_bytes_data(q) + ri + 8, 0x5a, len);
	return t;
}

static void reg_liveness(void)
{
	check_context("liveness");
	uint64_t me = conq__claims_self_start();
	CHECK_GT(me, 0);
	CHECK_TRUE(conq__claims_process_alive((uint64_t)getpid(), me));
	CHECK_FALSE(conq__claims_process_alive((uint64_t)getpid(), me + 1));
	CHECK_FALSE(conq__claims_process_alive(0, 0));
	pid_t d = dead_pid();
	CHECK_FALSE(conq__claims_process_alive((uint64_t)d, 0));
	/* A live child; with another start time it is a reused pid. */
	int pfd[2];
	CHECK_EQ(pipe(pfd), 0);
	pid_t c = fork();
	if (c == 0) {
		char b;
		close(pfd[1]);
		(void)!read(pfd[0], &b, 1); /* until the parent closes */
		_exit(0);
	}
	close(pfd[0]);
	uint64_t cs = child_start(c);
	CHECK_TRUE(conq__claims_process_alive((uint64_t)c, cs));
	CHECK_FALSE(conq__claims_process_alive((uint64_t)c, cs + 1));
	/* Stopped: alive. */
	kill(c, SIGSTOP);
	waitpid(c, NULL, WUNTRACED);
	CHECK_TRUE(conq__claims_process_alive((uint64_t)c, cs));
	kill(c, SIGCONT);
	/* A zombie (exited, not reaped): dead, once no thread is left in it
	 * (its other threads, a sanitizer's included, exit a moment after
	 * the leader turns Z). */
	close(pfd[1]);
	for (int i = 0; i < 2000; i++) {
		if (!conq__claims_process_alive((uint64_t)c, cs))
			break;
		usleep(1000);
	}
	CHECK_FALSE(conq__claims_process_alive((uint64_t)c, cs));
	CHECK_FALSE(conq__claims_process_alive((uint64_t)c, cs));
	waitpid(c, NULL, 0);
	CHECK_FALSE(conq__claims_process_alive((uint64_t)c, cs));
}

/* A child whose main thread exits while another thread of it runs: its
 * /proc state is Z, with 2 threads; alive. */
static void *linger(void *arg)
{
	int fd = *(int *)arg;
	char b;
	(void)!read(fd, &b, 1);
	_exit(0);
}

static void reg_leader_exited(void)
{
	check_context("liveness: leader exited");
	int pfd[2];
	CHECK_EQ(pipe(pfd), 0);
	pid_t c = fork();
	if (c == 0) {
		static int fd;
		fd = pfd[0];
		close(pfd[1]);
		pthread_t t;
		pthread_create(&t, NULL, linger, &fd);
		pthread_exit(NULL);
	}
	close(pfd[0]);
	uint64_t cs = child_start(c);
	usleep(50000);
	CHECK_TRUE(conq__claims_process_alive((uint64_t)c, cs));
	close(pfd[1]);
	waitpid(c, NULL, 0);
	CHECK_FALSE(conq__claims_process_alive((uint64_t)c, cs));
}

static uint64_t child_start(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	int field = 2;
	for (; p != NULL && *p; p++)
		if (*p == ' ' && ++field == 22)
			return strtoull(p + 1, NULL, 10);
	return 0;
}

static conq_mpsc_bytes *shared_ring(size_t cap, unsigned np, uint64_t start)
{
	conq_mpsc_bytes_opts o = {CONQ_MPSC_BYTES_SHARED, np, 0};
	return ring(cap, &o, start);
}

/* Read everything committed; returns how many records, checks types. */
static unsigned drain_types(conq_mpsc_bytes *q, struct got *g)
{
	g->n = 0;
	while (conq_mpsc_bytes_read(q, collect, g, 64) != 0)
		;
	return g->n;
}

static void reg_reclaim(uint64_t start)
{
	check_context("reclaim, start %" PRIu64, start);
	pid_t dp = dead_pid();
	struct got g;
	conq_mpsc_bytes *q = shared_ring(512, 8, start);
	if (!CHECK_NOT_NULL(q))
		return;
	/* Nothing stuck: nothing to do. */
	CHECK_FALSE(conq_mpsc_bytes_unblock(q));
	CHECK_TRUE(conq_mpsc_bytes_write(q, 1, "a", 1));
	CHECK_FALSE(conq_mpsc_bytes_unblock(q));
	/* Zero header, then a committed record behind it. */
	for (int hdr = 0; hdr <= 3; hdr++) {
		fake_claim(q, 5, dp, 1, 20, hdr);
		CHECK_TRUE(conq_mpsc_bytes_write(q, 2, "b", 1));
		CHECK_EQ(drain_types(q, &g), hdr == 0 ? 1 : 0);
		CHECK_TRUE(conq_mpsc_bytes_unblock(q));
		CHECK_EQ(drain_types(q, &g), 1);
		CHECK_EQ(g.type[0], 2);
		CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
		CHECK_TRUE(all_zero(q));
	}
	/* Across the wrap: the claim starts near the end. */
	for (int hdr = 0; hdr <= 3; hdr++) {
		check_context("reclaim at the wrap, header %d, start %" PRIu64,
			      hdr, start);
		while ((q->tail & q->mask) < 480) {
			CHECK_TRUE(conq_mpsc_bytes_write(q, 3, "c", 1));
			drain_types(q, &g);
		}
		fake_claim(q, 6, dp, 1, 40, hdr); /* 48 bytes: wraps */
		CHECK_TRUE(conq_mpsc_bytes_write(q, 4, "d", 1));
		drain_types(q, &g);
		CHECK_EQ(g.n, 0);
		CHECK_TRUE(conq_mpsc_bytes_unblock(q));
		CHECK_EQ(drain_types(q, &g), 1);
		CHECK_EQ(g.type[0], 4);
		CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
		CHECK_TRUE(all_zero(q));
	}
	/* A live claim (a thread of this process, or a live child) is never
	 * reclaimed; two dead ones before it are, up to it. */
	check_context("reclaim before a live claim, start %" PRIu64, start);
	fake_claim(q, 1, dp, 1, 8, 0);
	fake_claim(q, 2, dp, 1, 16, 0);
	void *mine = conq_mpsc_bytes_claim(q, 9, 24); /* live: ours */
	fake_claim(q, 3, getpid(), conq__claims_self_start(), 8, 1);
	CHECK_TRUE(conq_mpsc_bytes_unblock(q)); /* the two dead ones */
	CHECK_EQ(drain_types(q, &g), 0);
	CHECK_FALSE(conq_mpsc_bytes_unblock(q)); /* ours */
	CHECK_FALSE(conq_mpsc_bytes_unblock(q));
	memset(mine, 1, 24);
	CHECK_TRUE(conq_mpsc_bytes_commit(q, mine));
	CHECK_EQ(drain_types(q, &g), 1);
	CHECK_FALSE(conq_mpsc_bytes_unblock(q));      /* the fake live one */
	entries(q)[3].owner = (uint64_t)dp << 32 | 3; /* ... now dead */
	CHECK_TRUE(conq_mpsc_bytes_unblock(q));
	CHECK_EQ(drain_types(q, &g), 0);
	CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	CHECK_TRUE(all_zero(q));
	/* A full ring behind a dead claim (Agrona #159/#160). */
	check_context("reclaim in a full ring, start %" PRIu64, start);
	fake_claim(q, 4, dp, 1, 0, 0);
	unsigned k = 0;
	while (conq_mpsc_bytes_write(q, 5, NULL, 0))
		k++;
	CHECK_EQ(conq_mpsc_bytes_size(q), 512);
	CHECK_TRUE(conq_mpsc_bytes_unblock(q));
	CHECK_EQ(drain_types(q, &g), k);
	CHECK_TRUE(all_zero(q));
	/* A dead claim whose zero bytes run into the tail. */
	fake_claim(q, 4, dp, 1, 30, 0);
	CHECK_TRUE(conq_mpsc_bytes_unblock(q));
	CHECK_EQ(drain_types(q, &g), 0);
	CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	CHECK_TRUE(all_zero(q));
	conq_mpsc_bytes_detach(q);
	free(q);
}

struct holder {
	conq_mpsc_bytes *q;
	bool commit;
	conq__claim_entry *e;
};

static void *hold_and_exit(void *arg)
{
	struct holder *h = (struct holder *)arg;
	void *p = conq_mpsc_bytes_claim(h->q, 21, 16);
	h->e = conq__claims_enter(conq__mpsc_bytes_reg(h->q));
	if (p != NULL && h->commit)
		conq_mpsc_bytes_commit(h->q, p);
	return NULL; /* the key's destructor frees the entry */
}

static void *claim_expect(void *arg)
{
	struct holder *h = (struct holder *)arg;
	errno = 0;
	h->e = conq_mpsc_bytes_claim(h->q, 1, 1) == NULL && errno == EUSERS
		   ? (conq__claim_entry *)h
		   : NULL;
	return NULL;
}

static void reg_threads(void)
{
	check_context("registry and threads");
	conq_mpsc_bytes *q = shared_ring(256, 2, 0);
	if (!CHECK_NOT_NULL(q))
		return;
	struct got g;
	/* A thread that commits and exits frees its entry. */
	struct holder h = {q, true, NULL};
	pthread_t t;
	pthread_create(&t, NULL, hold_and_exit, &h);
	pthread_join(t, NULL);
	CHECK_NOT_NULL(h.e);
	CHECK_EQ(h.e->owner, 0);
	CHECK_EQ(h.e->intent, 0);
	CHECK_EQ(drain_types(q, &g), 1);
	/* One that exits holding a claim: freed too, and the claim (header
	 * in progress) is reclaimed: that thread will never commit. */
	h = (struct holder){q, false, NULL};
	pthread_create(&t, NULL, hold_and_exit, &h);
	pthread_join(t, NULL);
	CHECK_EQ(h.e->owner, 0);
	CHECK_TRUE(conq_mpsc_bytes_write(q, 22, "x", 1));
	CHECK_EQ(drain_types(q, &g), 0);
	CHECK_TRUE(conq_mpsc_bytes_unblock(q));
	CHECK_EQ(drain_types(q, &g), 1);
	CHECK_EQ(g.type[0], 22);
	/* EBUSY: one claim at a time per thread on a shared ring. */
	void *p = conq_mpsc_bytes_claim(q, 1, 4);
	CHECK_NOT_NULL(p);
	errno = 0;
	CHECK_NULL(conq_mpsc_bytes_claim(q, 1, 4));
	CHECK_EQ(errno, EBUSY);
	errno = 0;
	CHECK_FALSE(conq_mpsc_bytes_write(q, 1, "y", 1));
	CHECK_EQ(errno, EBUSY);
	CHECK_TRUE(conq_mpsc_bytes_abort(q, p));
	/* A failed claim (no room) holds nothing. */
	while (conq_mpsc_bytes_write(q, 1, "z", 1))
		;
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(conq__claims_held(conq__claims_enter(conq__mpsc_bytes_reg(q))),
		 0);
	drain_types(q, &g);
	/* EUSERS: two entries, one ours, one a live fake; a new thread gets
	 * none, and the ring is unchanged. */
	conq__claim_entry *es = entries(q);
	unsigned other = es[0].owner == 0 ? 0 : 1;
	es[other].owner = (uint64_t)getpid() << 32 | 4242;
	es[other].start = conq__claims_self_start();
	size_t before = conq_mpsc_bytes_size(q);
	h = (struct holder){q, false, NULL};
	pthread_create(&t, NULL, claim_expect, &h);
	pthread_join(t, NULL);
	CHECK_NOT_NULL(h.e);
	CHECK_EQ(conq_mpsc_bytes_size(q), before);
	/* A dead process's entry is taken over. */
	es[other].owner = (uint64_t)dead_pid() << 32 | 4242;
	es[other].intent = conq__claims_token(q->head);
	h = (struct holder){q, true, NULL};
	pthread_create(&t, NULL, hold_and_exit, &h);
	pthread_join(t, NULL);
	CHECK_PTR_EQ(h.e, &es[other]);
	CHECK_EQ(drain_types(q, &g), 1);
	/* detach frees this process's entries; a later claim takes one
	 * again. */
	conq_mpsc_bytes_detach(q);
	CHECK_EQ(es[0].owner, 0);
	CHECK_EQ(es[1].owner, 0);
	CHECK_TRUE(conq_mpsc_bytes_write(q, 1, "again", 5));
	CHECK_TRUE(es[0].owner != 0 || es[1].owner != 0);
	CHECK_EQ(drain_types(q, &g), 1);
	conq_mpsc_bytes_detach(q);
	free(q);
	/* The registry's own checks. */
	errno = 0;
	CHECK_EQ(conq__claims_memsize(0), 0);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(conq__claims_init(NULL, 1), EINVAL);
	CHECK_FALSE(conq__claims_valid(NULL, 1 << 20));
}

static void run_registry(void)
{
	reg_liveness();
	reg_leader_exited();
	reg_reclaim(0);
	reg_reclaim(UINT64_MAX - 200);
	reg_threads();
}

int main(int argc, char **argv)
{
	const char *env = getenv("CONQ_TEST_SCALE");
	if (env != NULL && atof(env) > 0)
		g_scale = atof(env);
	const char *what = argc > 1 ? argv[1] : "all";
	bool all = strcmp(what, "all") == 0;
	if (all || strcmp(what, "unit") == 0)
		run_unit();
	if (all || strcmp(what, "transfer") == 0)
		run_transfer();
	if (all || strcmp(what, "fuzz") == 0)
		run_fuzz();
	if (all || strcmp(what, "registry") == 0)
		run_registry();
	return check_report();
}
