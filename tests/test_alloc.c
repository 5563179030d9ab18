/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Allocation is the caller's to choose and to fail (issue 11): every growing
 * family of the queue table (the rows with create_with) is run with a
 * test allocator that counts, tracks live bytes and fails on command.
 * Usage: test_alloc [--family=NAME] [--scale=X] [case...]
 *
 *   sweep     a scripted single-threaded run (offers, bulks, bursts, fills,
 *             polls, bursts, drains, peeks) in which allocation k fails, for
 *             each k of the first 1,000 allocations the run makes, in turn:
 *             an offer that fails for memory returns false (0, a short
 *             burst) with errno = ENOMEM and keeps its element(s), which
 *             are offered again; what the queue holds is exactly what was
 *             accepted, in order; every block is given back on destroy
 *   random    1 (SPSC) or 2 producers (MPSC) and 1 consumer, every
 *             allocation failing with probability 1/64: nothing lost,
 *             nothing duplicated, each producer's order kept, ENOMEM the
 *             only reason an offer on a non-full queue fails
 *   footprint a backlog of 10^7 elements (a full queue, again and again,
 *             for the bounded families) drains: the live bytes come back to
 *             a bounded footprint (the queue's own at create, plus two of
 *             its largest blocks, plus 256 KiB), far below the peak; and
 *             to zero after destroy
 *   create    create_with's own allocation failing: NULL + ENOMEM, nothing
 *             leaked; then the same allocator works
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conq/impl/atomic.h"
#include "queues.h"

static double g_scale = 1.0;

/* ThreadSanitizer runs this test for its races, not its volume: a tenth of
 * the elements (unless --scale says otherwise) and a sweep over the first
 * 100 allocations instead of 1,000. */
#if defined(__SANITIZE_THREAD__)
#define TA_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TA_TSAN 1
#endif
#endif
#ifndef TA_TSAN
#define TA_TSAN 0
#endif
#define TA_SWEEP (TA_TSAN ? 100u : 1000u)

/* Narrow index test builds (CONQ_INDEX_BITS < 64): capacities are capped
 * (CONQ_ARRAY_MAX_CAPACITY) and an unbounded family holds at most
 * 2^(CONQ_INDEX_BITS - 3) elements (mpsc_unbounded's bound; its header),
 * so a backlog comes in waves of 2^(CONQ_INDEX_BITS - 4). */
#define TA_NARROW (CONQ_INDEX_BITS < 64)
#define TA_WAVE ((uint64_t)1 << (CONQ_INDEX_BITS - 4))

static size_t ta_cap(size_t c)
{
	return c < CONQ_ARRAY_MAX_CAPACITY ? c : CONQ_ARRAY_MAX_CAPACITY;
}

static uint64_t scaled(double base)
{
	double v = base * g_scale;
	return v < 1000.0 ? 1000 : (uint64_t)v;
}

/* ---- the test allocator ------------------------------------------------- */

struct talloc {
	uint64_t calls;	   /* alloc() calls so far */
	uint64_t fail_at;  /* fail exactly the call with this number (1-based) */
	uint64_t fail_run; /* ... and the fail_run - 1 calls after it */
	uint64_t failed;   /* failures returned */
	unsigned fail_one_in; /* fail at random one call in this many; 0: never */
	int64_t live;	   /* bytes allocated and not freed */
	int64_t peak;	   /* the most `live` has been */
	int64_t blocks;	   /* blocks allocated and not freed */
	uint64_t biggest;  /* the largest block asked for */
	uint64_t bad_free; /* free() with a size other than alloc()'s */
};

static _Thread_local uint64_t ta_rng = 0x2545F4914F6CDD1DULL;

/* The block's size and a canary live in the 16 bytes before the block; the
 * block sits `align` (at least 16) bytes into what malloc gave. */
#define TA_MAGIC 0xC0A110C8u

static void *ta_alloc(void *ctx, size_t size, size_t align)
{
	struct talloc *t = (struct talloc *)ctx;
	/* relaxed: counters; the tests read them after joining the threads. */
	uint64_t n = conq__faa_relaxed(&t->calls, 1) + 1;
	uint64_t at = conq__load_relaxed(&t->fail_at);
	bool fail = at != 0 && n >= at &&
		    n - at < (t->fail_run ? t->fail_run : 1);
	unsigned one_in = conq__load_relaxed(&t->fail_one_in);
	if (one_in != 0 && tq_rand_below(&ta_rng, one_in) == 0)
		fail = true;
	if (fail) {
		conq__faa_relaxed(&t->failed, 1);
		return NULL;
	}
	if (align == 0 || (align & (align - 1)) != 0 || align > CONQ_PAD) {
		conq__faa_relaxed(&t->bad_free, 1); /* bad alignment asked */
		return NULL;
	}
	size_t off = align < 16 ? 16 : align;
	unsigned char *raw = (unsigned char *)aligned_alloc(
	    off, (size + off + off - 1) / off * off);
	if (raw == NULL)
		return NULL;
	unsigned char *p = raw + off;
	uint64_t hdr[2] = {size, ((uint64_t)TA_MAGIC << 32) | off};
	memcpy(p - sizeof hdr, hdr, sizeof hdr);
	/* Garbage: the families must not assume zeroed memory. */
	memset(p, 0x5A, size);
	int64_t live =
	    conq__faa_relaxed(&t->live, (int64_t)size) + (int64_t)size;
	conq__faa_relaxed(&t->blocks, 1);
	int64_t pk = conq__load_relaxed(&t->peak);
	while (live > pk && !conq__cas_weak_relaxed(&t->peak, &pk, live))
		;
	uint64_t big = conq__load_relaxed(&t->biggest);
	while (size > big && !conq__cas_weak_relaxed(&t->biggest, &big, size))
		;
	return p;
}

static void ta_free(void *ctx, void *p, size_t size)
{
	struct talloc *t = (struct talloc *)ctx;
	if (p == NULL) {
		conq__faa_relaxed(&t->bad_free, 1);
		return;
	}
	uint64_t hdr[2];
	memcpy(hdr, (unsigned char *)p - sizeof hdr, sizeof hdr);
	if (hdr[0] != size || hdr[1] >> 32 != TA_MAGIC) {
		conq__faa_relaxed(&t->bad_free, 1);
		return; /* a double free, or not ours: do not free it */
	}
	size_t off = (size_t)(hdr[1] & 0xFFFFFFFFu);
	hdr[1] = 0; /* a second free of the block shows as bad */
	memcpy((unsigned char *)p - sizeof hdr, hdr, sizeof hdr);
	conq__faa_relaxed(&t->live, -(int64_t)size);
	conq__faa_relaxed(&t->blocks, -1);
	free((unsigned char *)p - off);
}

static conq_allocator ta_make(struct talloc *t)
{
	memset(t, 0, sizeof *t);
	conq_allocator a = {ta_alloc, ta_free, t};
	return a;
}

/* After destroy: nothing left, nothing freed wrongly. */
static void ta_check_empty(const struct talloc *t)
{
	CHECK_EQ_I(t->live, 0);
	CHECK_EQ_I(t->blocks, 0);
	CHECK_EQ(t->bad_free, 0);
}

static bool need_grow(const struct tq_desc *d)
{
	if (d->create_with == NULL) {
		check_skip("no create_with: not a growing family");
		return false;
	}
	return true;
}

/* ---- the scripted run ---------------------------------------------------- */

/* A FIFO model of what the queue must hold: next_out .. next_in - 1. */
struct script {
	const struct tq_desc *d;
	void *q;
	struct talloc *t;
	uint64_t cap;	   /* capacity(), or UINT64_MAX */
	uint64_t next_in;  /* next element to offer (retried until accepted) */
	uint64_t next_out; /* next element poll must return */
	uint64_t enomem;   /* offers that failed for memory */
	uint64_t bad;	   /* disagreements with the model */
	uint64_t supplied; /* fill: elements handed out by the supplier */
};

static uint64_t sc_count(const struct script *s)
{
	return s->next_in - s->next_out;
}

/* A failed (or short) offer of `want` elements, `got` taken: explained by a
 * full queue, or else by a failed allocation during the call with errno =
 * ENOMEM. */
static void sc_short(struct script *s, uint64_t fails_before, uint64_t want,
		     uint64_t got, bool all_or_nothing)
{
	if (got >= want)
		return;
	uint64_t room = s->cap - sc_count(s);
	/* Full: bulk needs room for all; the others stop when the queue is. */
	bool full = all_or_nothing ? room < want : got >= room;
	if (full)
		return;
	if (s->t->failed == fails_before || errno != ENOMEM) {
		if (s->bad++ < 5)
			CHECK_FAIL("%s: %llu of %llu offered with room %llu, "
				   "no failed allocation or errno %d",
				   s->d->name, (unsigned long long)got,
				   (unsigned long long)want,
				   (unsigned long long)room, errno);
		return;
	}
	s->enomem++;
}

static void sc_expect(struct script *s, void *e)
{
	if (tq_val(e) != s->next_out) {
		if (s->bad++ < 5)
			CHECK_FAIL("%s: polled %llu, expected %llu", s->d->name,
				   (unsigned long long)tq_val(e),
				   (unsigned long long)s->next_out);
	}
	s->next_out++;
}

static void sc_consume(void *ctx, void *e)
{
	sc_expect((struct script *)ctx, e);
}

static void *sc_supply(void *ctx)
{
	struct script *s = (struct script *)ctx;
	s->supplied++;
	return tq_elem(s->next_in + s->supplied - 1);
}

/* One operation chosen by the script's generator. `grow`: the phase in
 * which the script mostly offers (it swings the backlog between empty and
 * a few thousand elements, so the growing families allocate again and
 * again, past their spare chunks and node caches). */
static void sc_step(struct script *s, uint64_t *rng, bool grow)
{
	const struct tq_desc *d = s->d;
	void *buf[64];
	unsigned r = (unsigned)tq_rand_below(rng, 100);
	bool offer = grow ? r < 75 : r < 25;
	if (offer) {
		unsigned kind = (unsigned)tq_rand_below(rng, 4);
		size_t n = 1 + (size_t)tq_rand_below(rng, 40);
		uint64_t f0 = s->t->failed;
		errno = 0;
		if (kind == 0) {
			bool ok = d->offer(s->q, tq_elem(s->next_in));
			sc_short(s, f0, 1, ok, false);
			s->next_in += ok;
		} else if (kind == 1) {
			for (size_t i = 0; i < n; i++)
				buf[i] = tq_elem(s->next_in + i);
			size_t k = d->offer_bulk(s->q, buf, n);
			if (k != 0 && k != n && s->bad++ < 5)
				CHECK_FAIL("%s: offer_bulk took %zu of %zu",
					   d->name, k, n);
			sc_short(s, f0, n, k, true);
			s->next_in += k;
		} else if (kind == 2) {
			for (size_t i = 0; i < n; i++)
				buf[i] = tq_elem(s->next_in + i);
			size_t k = d->offer_burst(s->q, buf, n);
			sc_short(s, f0, n, k, false);
			s->next_in += k;
		} else {
			s->supplied = 0;
			size_t k = d->fill(s->q, sc_supply, s, n);
			/* Every element the supplier handed out is in. */
			if (k != s->supplied && s->bad++ < 5)
				CHECK_FAIL("%s: fill enqueued %zu of %llu supplied",
					   d->name, k,
					   (unsigned long long)s->supplied);
			sc_short(s, f0, n, k, false);
			s->next_in += k;
		}
		return;
	}
	unsigned kind = (unsigned)tq_rand_below(rng, 4);
	if (kind == 0) {
		void *e = d->poll(s->q);
		if (e != NULL)
			sc_expect(s, e);
		else if (sc_count(s) != 0 && s->bad++ < 5)
			CHECK_FAIL("%s: poll NULL with %llu in", d->name,
				   (unsigned long long)sc_count(s));
	} else if (kind == 1) {
		size_t n = 1 + (size_t)tq_rand_below(rng, 64);
		size_t k = d->poll_burst(s->q, buf, n);
		uint64_t want = sc_count(s) < n ? sc_count(s) : n;
		if (k != want && s->bad++ < 5)
			CHECK_FAIL("%s: poll_burst %zu of %zu with %llu in",
				   d->name, k, n,
				   (unsigned long long)sc_count(s));
		for (size_t i = 0; i < k; i++)
			sc_expect(s, buf[i]);
	} else if (kind == 2) {
		size_t n = 1 + (size_t)tq_rand_below(rng, 64);
		uint64_t want = sc_count(s) < n ? sc_count(s) : n;
		size_t k = d->drain(s->q, sc_consume, s, n);
		if (k != want && s->bad++ < 5)
			CHECK_FAIL("%s: drain %zu with %llu in", d->name, k,
				   (unsigned long long)sc_count(s));
	} else {
		void *e = d->peek(s->q);
		uint64_t want = sc_count(s) ? s->next_out : 0;
		if (tq_val(e) != want && s->bad++ < 5)
			CHECK_FAIL("%s: peek %llu, expected %llu", d->name,
				   (unsigned long long)tq_val(e),
				   (unsigned long long)want);
	}
}

/* The scripted run with allocations `fail_at` to fail_at + run - 1 failing
 * (0: none). Returns the number of allocations it made (the queue's create
 * included). */
static uint64_t sc_run(const struct tq_desc *d, uint64_t fail_at,
		       uint64_t run, uint64_t *enomem)
{
	struct talloc t;
	conq_allocator a = ta_make(&t);
	t.fail_at = fail_at;
	t.fail_run = run;
	errno = 0;
	void *q = d->create_with(256, &a);
	if (q == NULL) {
		/* Only the create's own allocations may make it fail. */
		CHECK_EQ(errno, ENOMEM);
		CHECK_EQ(t.failed, 1);
		ta_check_empty(&t);
		return t.calls;
	}
	struct script s = {d, q, &t, d->bounded ? d->capacity(q) : UINT64_MAX,
			   1, 1, 0, 0, 0};
	uint64_t rng = 0x5eed0011;
	for (unsigned phase = 0; phase < 8; phase++) {
		bool grow = phase % 2 == 0;
		uint64_t top = 300 + 700 * (uint64_t)phase;
		for (unsigned i = 0; i < 4000; i++) {
			sc_step(&s, &rng, grow);
			if (grow && sc_count(&s) >= top)
				break;
			if (!grow && sc_count(&s) == 0)
				break;
		}
	}
	/* Drain: exactly what was accepted, in order. */
	void *e;
	while ((e = d->poll(q)) != NULL)
		sc_expect(&s, e);
	CHECK_EQ(sc_count(&s), 0);
	CHECK_EQ(s.bad, 0);
	CHECK_TRUE(d->is_empty(q));
	/* The queue is usable after the failures. */
	t.fail_at = 0;
	CHECK_TRUE(d->offer(q, tq_elem(7)));
	CHECK_EQ(tq_val(d->poll(q)), 7);
	d->destroy(q);
	ta_check_empty(&t);
	*enomem += s.enomem;
	return t.calls;
}

static void case_sweep(const struct tq_desc *d)
{
	if (!need_grow(d))
		return;
	uint64_t enomem = 0;
	uint64_t total = sc_run(d, 0, 1, &enomem);
	CHECK_EQ(enomem, 0);
	/* The run must allocate past create for the sweep to mean something
	 * (node queues: thousands; chunked ones: hundreds; growable: one per
	 * doubling). */
	CHECK_GE(total, 3);
	uint64_t upto = total < TA_SWEEP ? total : TA_SWEEP;
	unsigned long long f0 = check_failed();
	for (uint64_t k = 1; k <= upto && check_failed() == f0; k++) {
		check_context("%s sweep: allocation %llu of %llu fails", d->name,
			      (unsigned long long)k, (unsigned long long)total);
		sc_run(d, k, 1, &enomem);
	}
	/* A family that keeps a reserve chunk (the XADD queues: a claimed
	 * index must be written) absorbs one failure: then two failures in a
	 * row, the reserve's refill failing too, must reach an offer. */
	uint64_t pairs = 0;
	for (uint64_t k = 1; enomem == 0 && k <= upto &&
			     check_failed() == f0;
	     k++, pairs++) {
		check_context("%s sweep: allocations %llu and %llu of %llu fail",
			      d->name, (unsigned long long)k,
			      (unsigned long long)k + 1,
			      (unsigned long long)total);
		sc_run(d, k, 2, &enomem);
	}
	check_context("%s", "");
	/* Failures past the create's allocation reached an offer. */
	CHECK_GT(enomem, 0);
	if (pairs)
		printf("     %s: single failures absorbed (its reserve); "
		       "%llu runs with two in a row\n",
		       d->name, (unsigned long long)pairs);
	printf("     %s: %llu allocations per run, each of the first %llu "
	       "failed in turn; %llu offers refused with ENOMEM\n",
	       d->name, (unsigned long long)total, (unsigned long long)upto,
	       (unsigned long long)enomem);
}

/* ---- random failures, threads ------------------------------------------- */

#define RP_MAXP 2

struct rnd {
	const struct tq_desc *d;
	void *q;
	struct talloc *t;
	uint64_t per;		     /* elements per producer */
	unsigned np;
	uint64_t enomem[RP_MAXP];    /* ENOMEM refusals per producer */
	uint64_t other_fail[RP_MAXP]; /* refusals with another errno */
	uint64_t got[RP_MAXP];	     /* consumer: next seq expected */
	uint64_t bad;		     /* consumer: out of order / foreign */
	uint64_t done;		     /* producers finished */
	unsigned id_next;
};

/* Element: producer id in the top bits, sequence + 1 below. */
static void *rnd_elem(unsigned pid, uint64_t seq)
{
	return tq_elem(((uint64_t)(pid + 1) << 48) | (seq + 1));
}

static void *rnd_prod(void *arg)
{
	struct rnd *r = (struct rnd *)arg;
	/* relaxed: only distinguishes the producers. */
	unsigned pid = conq__faa_relaxed(&r->id_next, 1);
	ta_rng = 0x9E3779B97F4A7C15ULL * (pid + 3);
	unsigned spins = 0;
	for (uint64_t s = 0; s < r->per;) {
		errno = 0;
		if (r->d->offer(r->q, rnd_elem(pid, s))) {
			s++;
			continue;
		}
		if (errno == ENOMEM)
			r->enomem[pid]++;
		else if (!r->d->bounded && !TA_NARROW)
			r->other_fail[pid]++; /* narrow: its element bound */
		tq_backoff(&spins);
	}
	/* release: pairs with the consumer's acquire of done. */
	conq__faa_acq_rel(&r->done, 1);
	return NULL;
}

static void *rnd_cons(void *arg)
{
	struct rnd *r = (struct rnd *)arg;
	unsigned spins = 0;
	uint64_t total = r->per * r->np, n = 0;
	while (n < total) {
		void *e = r->d->poll(r->q);
		if (e == NULL) {
			/* acquire: pairs with the producers' release. */
			if (conq__load_acquire(&r->done) == r->np &&
			    r->d->poll(r->q) == NULL)
				break; /* lost elements: counted below */
			tq_backoff(&spins);
			continue;
		}
		uint64_t v = tq_val(e);
		uint64_t pid = (v >> 48) - 1, seq = (v & 0xFFFFFFFFFFFFULL) - 1;
		if (pid >= r->np || seq != r->got[pid])
			r->bad++;
		else
			r->got[pid]++;
		n++;
	}
	return NULL;
}

static void case_random(const struct tq_desc *d)
{
	if (!need_grow(d))
		return;
	unsigned np = d->max_producers > 1 ? 2 : 1;
	struct talloc t;
	conq_allocator a = ta_make(&t);
	void *q = d->create_with(1024, &a);
	if (!CHECK_NOT_NULL(q))
		return;
	t.fail_one_in = 64;
	struct rnd r;
	memset(&r, 0, sizeof r);
	r.d = d;
	r.q = q;
	r.t = &t;
	r.np = np;
	r.per = scaled(2e6) / np;
	pthread_t th[RP_MAXP + 1];
	for (unsigned i = 0; i < np; i++)
		pthread_create(&th[i], NULL, rnd_prod, &r);
	pthread_create(&th[np], NULL, rnd_cons, &r);
	for (unsigned i = 0; i <= np; i++)
		pthread_join(th[i], NULL);
	t.fail_one_in = 0;
	uint64_t enomem = 0, other = 0;
	for (unsigned i = 0; i < np; i++) {
		CHECK_EQ(r.got[i], r.per); /* nothing lost, none twice */
		enomem += r.enomem[i];
		other += r.other_fail[i];
	}
	CHECK_EQ(r.bad, 0);  /* order kept, nothing foreign */
	CHECK_EQ(other, 0);  /* unbounded: ENOMEM is the only refusal */
	/* Failures happened where allocations did (a growable queue stops
	 * allocating once its chunk reaches the maximum). */
	if (t.calls > 256)
		CHECK_GT(t.failed, 0);
	CHECK_NULL(d->poll(q));
	CHECK_TRUE(d->is_empty(q));
	d->destroy(q);
	ta_check_empty(&t);
	printf("     %s: %u x %llu elements, %llu allocations failed, %llu "
	       "offers refused with ENOMEM\n",
	       d->name, np, (unsigned long long)r.per,
	       (unsigned long long)t.failed, (unsigned long long)enomem);
}

/* ---- footprint ------------------------------------------------------------ */

static void case_footprint(const struct tq_desc *d)
{
	if (!need_grow(d))
		return;
	struct talloc t;
	conq_allocator a = ta_make(&t);
	size_t req = d->bounded ? ta_cap((size_t)1 << 16) : 4096;
	void *q = d->create_with(req, &a);
	if (!CHECK_NOT_NULL(q))
		return;
	int64_t at_create = t.live;
	uint64_t total = scaled(1e7), sent = 0, next_out = 1, bad = 0;
	/* Unbounded: the whole backlog at once. Bounded: full, again and
	 * again. */
	uint64_t wave = d->bounded ? (uint64_t)d->capacity(q)
				   : TA_NARROW ? TA_WAVE : total;
	while (sent < total) {
		uint64_t n = total - sent < wave ? total - sent : wave;
		uint64_t in = 0;
		while (in < n && d->offer(q, tq_elem(sent + in + 1)))
			in++;
		if (!CHECK_EQ(in, n))
			break;
		sent += n;
		void *e;
		while ((e = d->poll(q)) != NULL)
			bad += tq_val(e) != next_out++;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(next_out - 1, total);
	int64_t after = t.live;
	int64_t bound = at_create + 2 * (int64_t)t.biggest + 256 * 1024;
	printf("     %s: live bytes at create %lld, peak %lld, after the "
	       "backlog of %llu drained %lld (bound %lld)\n",
	       d->name, (long long)at_create, (long long)t.peak,
	       (unsigned long long)total, (long long)after, (long long)bound);
	CHECK_LE_I(after, bound);
	if (!d->bounded && !TA_NARROW)
		CHECK_LE_I(after * 16, t.peak);
	/* And again: the drained queue works and does not keep growing. */
	for (uint64_t k = 0; k < 100000; k++) {
		d->offer(q, tq_elem(k + 1));
		d->poll(q);
	}
	CHECK_LE_I(t.live, bound);
	d->destroy(q);
	ta_check_empty(&t);
}

/* ---- create ------------------------------------------------------------------ */

static void case_create(const struct tq_desc *d)
{
	if (!need_grow(d))
		return;
	struct talloc t;
	conq_allocator a = ta_make(&t);
	t.fail_at = 1;
	errno = 0;
	void *q = d->create_with(64, &a);
	CHECK_NULL(q);
	CHECK_EQ(errno, ENOMEM);
	d->destroy(q);
	ta_check_empty(&t);
	/* Every allocation failing: still NULL + ENOMEM, nothing held. */
	t.fail_one_in = 1;
	errno = 0;
	q = d->create_with(64, &a);
	CHECK_NULL(q);
	CHECK_EQ(errno, ENOMEM);
	ta_check_empty(&t);
	t.fail_one_in = 0;
	q = d->create_with(64, &a);
	if (CHECK_NOT_NULL(q)) {
		CHECK_TRUE(d->offer(q, tq_elem(1)));
		CHECK_EQ(tq_val(d->poll(q)), 1);
		d->destroy(q);
	}
	ta_check_empty(&t);
	/* The allocator structure is copied: it need not outlive create. */
	struct talloc t2;
	conq_allocator *ap = (conq_allocator *)malloc(sizeof *ap);
	if (!CHECK_NOT_NULL(ap))
		return;
	*ap = ta_make(&t2);
	q = d->create_with(ta_cap(8192), ap);
	memset(ap, 0, sizeof *ap);
	free(ap);
	if (CHECK_NOT_NULL(q)) {
		uint64_t n = ta_cap(5000);
		for (uint64_t k = 1; k <= n; k++)
			d->offer(q, tq_elem(k));
		uint64_t bad = 0;
		for (uint64_t k = 1; k <= n; k++)
			bad += tq_val(d->poll(q)) != k;
		CHECK_EQ(bad, 0);
		d->destroy(q);
	}
	ta_check_empty(&t2);
}

/* ---- main ------------------------------------------------------------------ */

static const struct tq_case cases[] = {
    {"create", case_create},
    {"sweep", case_sweep},
    {"random", case_random},
    {"footprint", case_footprint},
};

int main(int argc, char **argv)
{
	if (!tq_read_scale(argc, argv, &g_scale))
		return 2;
	if (TA_TSAN && g_scale == 1.0)
		g_scale = 0.1;
	return tq_run_cases(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
