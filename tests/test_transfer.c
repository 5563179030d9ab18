/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Threads hand sequence numbers through a queue; the consumers check that
 * none is lost, duplicated or reordered.
 *
 * Usage: test_transfer [--ref] [--family=NAME] [--scale=X] [variant...]
 * Variants (all by default): plain mixed tiny wrap (one producer, one
 * consumer) and mt1 mt2 mt4 (k producers and k consumers, as far as the
 * family allows; see v_threads). The element counts are multiplied by X (or
 * by the environment variable CONQ_TEST_SCALE), e.g. 0.1 under a slow
 * emulator; the default (1) moves 10^7 elements through the plain variant,
 * and >= 10^7 through mt1 + mt2 + mt4, per family.
 *
 * Element of producer `pid` (of np) with sequence number seq (1..n):
 * 1 + (seq - 1) * np + pid, never NULL: it encodes {producer id, sequence}.
 * With one consumer, each producer's numbers must arrive exactly as 1, 2,
 * 3, ... (exactly once, in order); with several consumers, each consumer must
 * see each producer's numbers in increasing order and every element must
 * arrive exactly once (a byte per element records it), and all of them.
 *
 * Payload: before offering element v, the producer writes v into a plain
 * (non-atomic) payload slot; after polling v the consumer reads it back. The
 * queue's release/acquire must order the two (ThreadSanitizer reports a race
 * otherwise, and a weakly ordered CPU may show a stale value). With one
 * producer and one consumer the payload slots are a ring of R >= capacity +
 * 4 * BATCH, reused, which also checks the other direction: what the consumer
 * did before polling happens-before the producer's reuse of the slot. With
 * more threads each element has its own payload slot.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "conq/impl/atomic.h"
#include "queues.h"

/* No progress at all for this long: report and exit instead of hanging. */
#define STALL_SECONDS 30.0
/* Largest batch for bursts, bulks, fills and drains. */
#define BATCH 64

static double g_scale = 1.0;

static uint64_t scaled(double base)
{
	double v = base * g_scale;
	return v < 1000.0 ? 1000 : (uint64_t)v;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct xfer;

/* What a consumer checks besides the elements themselves. */
enum {
	API_BURST_OVER,	   /* poll_burst returned more than asked */
	API_DRAIN_COUNT,   /* drain's count != the callbacks */
	API_PEEK_POLL,	   /* one consumer: peek saw e, the next poll not e */
	API_NONEMPTY_NULL, /* one consumer: !is_empty, then poll NULL */
	API_SIZE_OVER_CAP, /* size() > capacity() */
	API_KINDS
};
static const char *const api_names[API_KINDS] = {
    "poll_burst returned more than n",
    "drain returned a count other than its callbacks",
    "one consumer: poll after peek returned another element",
    "one consumer: poll returned NULL after is_empty() was false",
    "size() > capacity()",
};

struct producer {
	struct xfer *x;
	unsigned id;
	uint64_t seq; /* the next sequence number to offer, 1-based */
	uint64_t rng;
	uint64_t errors;   /* API contract violations seen by the producer */
	uint64_t progress; /* atomic: elements offered, for the watchdog */
};

struct consumer {
	struct xfer *x;
	unsigned id;
	uint64_t *last; /* per producer: the last sequence number seen */
	uint64_t rng;
	uint64_t got;
	uint64_t errors; /* lost, duplicated or reordered elements */
	uint64_t first_want, first_got; /* the first such error */
	uint64_t api[API_KINDS];	/* API contract violations, by kind */
	uint64_t payload_errors; /* the payload did not match the element */
	uint64_t progress; /* atomic: elements received, for the watchdog */
	void *buf[BATCH];
};

struct xfer {
	const struct tq_desc *d;
	void *q;
	uint64_t cap; /* capacity(), UINT64_MAX if unbounded */
	unsigned np, nc;
	uint64_t n;	/* per producer */
	uint64_t total; /* np * n */
	bool mixed;
	uint64_t consumed;   /* atomic; with several consumers only */
	unsigned char *seen; /* several consumers: one byte per element */
	uint64_t *payload;   /* element v's payload at (v - 1) & pmask */
	uint64_t pmask;
	unsigned finished; /* atomic: threads done */
	struct producer *prod;
	struct consumer *cons;
};

static void *elem(const struct xfer *x, unsigned pid, uint64_t seq)
{
	return tq_elem(1 + (seq - 1) * x->np + pid);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* P: write element v's payload (plain store) before offering it. */
static void *publish(const struct xfer *x, unsigned pid, uint64_t seq)
{
	void *e = elem(x, pid, seq);
	if (x->payload != NULL)
		x->payload[(tq_val(e) - 1) & x->pmask] = tq_val(e);
	return e;
}

/* ---- producer ------------------------------------------------------------ */

struct supply {
	const struct xfer *x;
	unsigned pid;
	uint64_t next, end; /* supplies next .. end-1, then NULL */
};

static void *supply_cb(void *ctx)
{
	struct supply *s = (struct supply *)ctx;
	if (s->next >= s->end)
		return NULL;
	return publish(s->x, s->pid, s->next++);
}

static void *producer_main(void *arg)
{
	struct producer *p = (struct producer *)arg;
	struct xfer *x = p->x;
	const struct tq_desc *d = x->d;
	void *es[BATCH];
	unsigned spins = 0, iter = 0;
	uint64_t bulk_max = min_u64(BATCH, x->cap);
	while (p->seq <= x->n) {
		uint64_t left = x->n - p->seq + 1;
		uint64_t did = 0, m;
		unsigned op =
		    x->mixed ? (unsigned)tq_rand_below(&p->rng, 6) : 0;
		switch (op) {
		case 0:
			did = d->offer(x->q, publish(x, p->id, p->seq)) ? 1 : 0;
			break;
		case 1:
			did = d->relaxed_offer(x->q, publish(x, p->id, p->seq))
				  ? 1
				  : 0;
			break;
		case 2:
			m = min_u64(1 + tq_rand_below(&p->rng, BATCH), left);
			for (uint64_t i = 0; i < m; i++)
				es[i] = publish(x, p->id, p->seq + i);
			did = d->offer_burst(x->q, es, (size_t)m);
			if (did > m)
				p->errors++;
			break;
		case 3:
			m = min_u64(1 + tq_rand_below(&p->rng, bulk_max), left);
			for (uint64_t i = 0; i < m; i++)
				es[i] = publish(x, p->id, p->seq + i);
			did = d->offer_bulk(x->q, es, (size_t)m);
			if (did != 0 && did != m) /* all or nothing */
				p->errors++;
			break;
		default: {
			/* The supplier runs dry after m elements; the limit
			 * is sometimes above m, so fill sees the NULL. */
			m = min_u64(1 + tq_rand_below(&p->rng, BATCH), left);
			struct supply s = {x, p->id, p->seq, p->seq + m};
			size_t limit = (size_t)(m + tq_rand_below(&p->rng, 3));
			did = d->fill(x->q, supply_cb, &s, limit);
			if (did != s.next - p->seq) /* supplied but lost */
				p->errors++;
			break;
		}
		}
		p->seq += did;
		if (did == 0)
			tq_backoff(&spins);
		if ((++iter & 63) == 0)
			__atomic_store_n(&p->progress, p->seq - 1,
					 __ATOMIC_RELAXED);
	}
	__atomic_store_n(&p->progress, p->seq - 1, __ATOMIC_RELAXED);
	/* release: pairs with the acquire load of finished in the waiting
	 * thread; this thread's counters are final before it. */
	__atomic_fetch_add(&x->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- consumer ------------------------------------------------------------ */

static void order_error(struct consumer *c, uint64_t want, uint64_t got)
{
	if (c->errors++ == 0) {
		c->first_want = want;
		c->first_got = got;
	}
}

static void receive(struct consumer *c, void *e)
{
	struct xfer *x = c->x;
	uint64_t v = tq_val(e);
	c->got++;
	if (v == 0 || v > x->total) {
		order_error(c, 0, v);
		return;
	}
	if (x->payload != NULL && x->payload[(v - 1) & x->pmask] != v)
		c->payload_errors++;
	uint64_t pid = (v - 1) % x->np, seq = (v - 1) / x->np + 1;
	if (x->nc == 1) {
		if (seq != c->last[pid] + 1)
			order_error(c, c->last[pid] + 1, seq);
	} else {
		if (seq <= c->last[pid])
			order_error(c, c->last[pid] + 1, seq);
		if (__atomic_exchange_n(&x->seen[v - 1], 1, __ATOMIC_RELAXED))
			order_error(c, 0, v); /* duplicate */
	}
	c->last[pid] = seq;
}

static void drain_cb(void *ctx, void *e)
{
	receive((struct consumer *)ctx, e);
}

static bool consumer_done(struct consumer *c)
{
	struct xfer *x = c->x;
	if (x->nc == 1)
		return c->got >= x->total;
	return __atomic_load_n(&x->consumed, __ATOMIC_RELAXED) >= x->total;
}

static void *consumer_main(void *arg)
{
	struct consumer *c = (struct consumer *)arg;
	struct xfer *x = c->x;
	const struct tq_desc *d = x->d;
	unsigned spins = 0, iter = 0;
	bool one = x->nc == 1;
	while (!consumer_done(c)) {
		uint64_t before = c->got;
		unsigned op =
		    x->mixed ? (unsigned)tq_rand_below(&c->rng, 7) : 0;
		void *e, *e2;
		size_t m = (size_t)(1 + tq_rand_below(&c->rng, BATCH));
		switch (op) {
		case 0:
			if ((e = d->poll(x->q)) != NULL)
				receive(c, e);
			break;
		case 1:
			if ((e = d->relaxed_poll(x->q)) != NULL)
				receive(c, e);
			break;
		case 2: {
			size_t k = d->poll_burst(x->q, c->buf, m);
			if (k > m)
				c->api[API_BURST_OVER]++;
			for (size_t i = 0; i < k && i < m; i++)
				receive(c, c->buf[i]);
			break;
		}
		case 3: {
			size_t k = d->drain(x->q, drain_cb, c, m);
			if (k != c->got - before)
				c->api[API_DRAIN_COUNT]++;
			break;
		}
		case 4:
			/* peek, then poll: the same element (one consumer);
			 * not in a family without peek */
			if (d->peek == NULL)
				break;
			e = (c->rng & 1) ? d->peek(x->q)
					 : d->relaxed_peek(x->q);
			if (e == NULL)
				break;
			e2 = d->poll(x->q);
			if (one && e2 != e)
				c->api[API_PEEK_POLL]++;
			if (e2 != NULL)
				receive(c, e2);
			break;
		case 5:
			/* From the only consumer, !is_empty means poll works */
			if (d->is_empty(x->q))
				break;
			e = d->poll(x->q);
			if (one && e == NULL)
				c->api[API_NONEMPTY_NULL]++;
			if (e != NULL)
				receive(c, e);
			break;
		default:
			if (d->size(x->q) > x->cap)
				c->api[API_SIZE_OVER_CAP]++;
			if ((e = d->poll(x->q)) != NULL)
				receive(c, e);
			break;
		}
		uint64_t k = c->got - before;
		if (k == 0) {
			tq_backoff(&spins);
		} else if (!one) {
			__atomic_fetch_add(&x->consumed, k, __ATOMIC_RELAXED);
		}
		if ((++iter & 63) == 0)
			__atomic_store_n(&c->progress, c->got,
					 __ATOMIC_RELAXED);
	}
	__atomic_store_n(&c->progress, c->got, __ATOMIC_RELAXED);
	/* release: pairs with the acquire load of finished in the waiting
	 * thread; this thread's counters are final before it. */
	__atomic_fetch_add(&x->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- one run ------------------------------------------------------------- */

static uint64_t progress(const struct xfer *x)
{
	uint64_t s = 0;
	for (unsigned i = 0; i < x->np; i++)
		s += __atomic_load_n(&x->prod[i].progress, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < x->nc; i++)
		s += __atomic_load_n(&x->cons[i].progress, __ATOMIC_RELAXED);
	return s;
}

/* Move n elements from each of np producers to nc consumers through a queue
 * of capacity `cap` (indices from `start` if at_start). */
static void transfer(const struct tq_desc *d, size_t cap, bool at_start,
		     uint64_t start, unsigned np, unsigned nc, uint64_t n,
		     bool mixed)
{
	struct xfer x;
	memset(&x, 0, sizeof x);
	x.d = d;
	x.np = np;
	x.nc = nc;
	x.n = n;
	x.total = n * np;
	x.mixed = mixed;
	x.q = at_start ? d->create_at(cap, start) : d->create(cap);
	if (!CHECK_NOT_NULL(x.q))
		return;
	x.cap = d->bounded ? (uint64_t)d->capacity(x.q) : UINT64_MAX;
	x.prod = (struct producer *)calloc(np, sizeof *x.prod);
	x.cons = (struct consumer *)calloc(nc, sizeof *x.cons);
	if (nc > 1)
		x.seen = (unsigned char *)calloc((size_t)x.total, 1);
	if (np == 1 && nc == 1 && d->bounded) {
		x.pmask = tq_pow2(x.cap + 4 * BATCH) - 1; /* a reused ring */
		x.payload = (uint64_t *)calloc((size_t)x.pmask + 1, 8);
	} else if (x.total <= ((uint64_t)1 << 22)) {
		x.pmask = UINT64_MAX; /* one slot per element */
		x.payload = (uint64_t *)calloc((size_t)x.total, 8);
	} else {
		printf("     (no payload check: %llu elements)\n",
		       (unsigned long long)x.total);
	}
	if (!CHECK_NOT_NULL(x.prod) || !CHECK_NOT_NULL(x.cons) ||
	    (nc > 1 && !CHECK_NOT_NULL(x.seen)) ||
	    (x.pmask != 0 && !CHECK_NOT_NULL(x.payload)))
		goto out;
	for (unsigned i = 0; i < np; i++) {
		x.prod[i].x = &x;
		x.prod[i].id = i;
		x.prod[i].seq = 1;
		x.prod[i].rng = 0x1234567ULL + i;
	}
	for (unsigned i = 0; i < nc; i++) {
		x.cons[i].x = &x;
		x.cons[i].id = i;
		x.cons[i].rng = 0x7654321ULL + i;
		x.cons[i].last = (uint64_t *)calloc(np, sizeof(uint64_t));
		if (!CHECK_NOT_NULL(x.cons[i].last))
			goto out;
	}

	pthread_t th[16];
	unsigned nth = 0;
	double t0 = now_s();
	for (unsigned i = 0; i < nc; i++)
		if (CHECK_EQ(pthread_create(&th[nth], NULL, consumer_main,
					    &x.cons[i]),
			     0))
			nth++;
	for (unsigned i = 0; i < np; i++)
		if (CHECK_EQ(pthread_create(&th[nth], NULL, producer_main,
					    &x.prod[i]),
			     0))
			nth++;
	if (nth != np + nc) {
		fprintf(stderr, "cannot start the threads\n");
		fflush(NULL);
		_exit(1);
	}

	/* Watch for a stall, and call size()/is_empty() from a third thread. */
	uint64_t last = progress(&x), size_errors = 0, observed = 0;
	double last_change = now_s();
	while (__atomic_load_n(&x.finished, __ATOMIC_ACQUIRE) < np + nc) {
		struct timespec ts = {0, 2 * 1000 * 1000};
		nanosleep(&ts, NULL);
		/* size() from this third thread only where any thread may
		 * call it (not GROW_CSIZE rows); is_empty() always. */
		size_t s = d->size_any_thread ? d->size(x.q) : 0;
		(void)d->is_empty(x.q);
		observed++;
		if (s > x.cap)
			size_errors++;
		uint64_t pr = progress(&x);
		double t = now_s();
		if (pr != last) {
			last = pr;
			last_change = t;
		} else if (t - last_change > STALL_SECONDS) {
			CHECK_FAIL("stalled for %.0f s: progress %llu of %llu "
				   "(offered + received), size() = %zu",
				   STALL_SECONDS, (unsigned long long)pr,
				   (unsigned long long)(2 * x.total), s);
			check_report();
			_exit(1);
		}
	}
	for (unsigned i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	double secs = now_s() - t0;

	uint64_t got = 0;
	for (unsigned i = 0; i < np; i++) {
		CHECK_EQ(x.prod[i].seq - 1, n);
		CHECK_EQ(x.prod[i].errors, 0);
	}
	for (unsigned i = 0; i < nc; i++) {
		struct consumer *c = &x.cons[i];
		got += c->got;
		if (!CHECK_EQ(c->errors, 0))
			CHECK_EQ(c->first_got, c->first_want);
		for (int k = 0; k < API_KINDS; k++)
			if (!CHECK_EQ(c->api[k], 0))
				CHECK_FAIL("consumer %u: %s (%llu times)", i,
					   api_names[k],
					   (unsigned long long)c->api[k]);
		CHECK_EQ(c->payload_errors, 0);
	}
	CHECK_EQ(got, x.total);
	if (nc == 1) {
		for (unsigned i = 0; i < np; i++)
			CHECK_EQ(x.cons[0].last[i], n);
	} else {
		uint64_t seen = 0;
		for (uint64_t i = 0; i < x.total; i++)
			seen += x.seen[i];
		CHECK_EQ(seen, x.total);
	}
	CHECK_EQ(size_errors, 0);
	CHECK_NULL(d->poll(x.q));
	CHECK_EQ(d->size(x.q), 0);
	CHECK_TRUE(d->is_empty(x.q));
	char from[40] = "";
	if (at_start)
		snprintf(from, sizeof from, " start=2^%d-%llu", CONQ_INDEX_BITS,
			 (unsigned long long)(conq__idx_t)(0 - start));
	printf("     %s: cap=%zu%s np=%u nc=%u n=%llu %s: %.2f s, %.1f M/s, "
	       "%llu size() probes\n",
	       d->name, cap, from, np, nc, (unsigned long long)n,
	       mixed ? "mixed" : "plain", secs, (double)x.total / secs / 1e6,
	       (unsigned long long)observed);
	fflush(stdout);
out:
	for (unsigned i = 0; x.cons != NULL && i < nc; i++)
		free(x.cons[i].last);
	free(x.prod);
	free(x.cons);
	free(x.seen);
	free(x.payload);
	d->destroy(x.q);
}

/* ---- variants ------------------------------------------------------------ */

/* offer/poll only, the full 10^7. */
static void v_plain(const struct tq_desc *d)
{
	transfer(d, 1024, false, 0, 1, 1, scaled(1e7), false);
}

/* Every producer and consumer method, mixed at random. */
static void v_mixed(const struct tq_desc *d)
{
	transfer(d, 64, false, 0, 1, 1, scaled(3e6), true);
}

/* Capacities 1, 2, 3 (-> 4): the ring wraps all the time. */
static void v_tiny(const struct tq_desc *d)
{
	for (size_t cap = 1; cap <= 3; cap++) {
		transfer(d, cap, false, 0, 1, 1, scaled(2e5), true);
		transfer(d, cap, false, 0, 1, 1, scaled(1e5), false);
	}
}

/* Indices start n/2 below 2^64, so the run crosses the wrap midway. */
static void v_wrap(const struct tq_desc *d)
{
	if (d->create_at == NULL) {
		check_skip("no create_at (start index hook)");
		return;
	}
	uint64_t n = scaled(5e5);
	transfer(d, 16, true, UINT64_MAX - n / 2, 1, 1, n, true);
	n = scaled(1e5);
	transfer(d, 1, true, UINT64_MAX - n / 2, 1, 1, n, true);
	n = scaled(2e6);
	transfer(d, 1024, true, UINT64_MAX - n / 2, 1, 1, n, false);
}

/*
 * The multi-threaded runs: P producers and C consumers, P x C = k x k
 * clipped to what the family allows (spsc_array: 1 x 1; mpsc_array: k x 1;
 * spmc_array: 1 x k; mpmc_array: k x k), for k = 1, 2, 4 (variants mt1,
 * mt2, mt4; threads may outnumber the cores). Each variant moves
 * MT_ELEMENTS elements (scaled) in total per family, so mt1 + mt2 + mt4 move
 * >= 10^7 per family, in runs of at most 2^22 elements each (every run
 * checks the payload): offer/poll at capacity 1024; every method mixed at
 * capacity 64; mixed at capacities 1 and 3 (-> 4); and mixed at capacity 8
 * and offer/poll at capacity 1024 with indices starting near 2^64, crossing
 * the wrap midway. Every run checks exactly-once delivery and each
 * producer's order as each consumer sees it (receive()).
 */
#define MT_ELEMENTS 3.4e6

/* One run of `total` elements (scaled) split among np producers. */
static uint64_t mt_run(const struct tq_desc *d, size_t cap, bool wrap,
		       unsigned np, unsigned nc, double total, bool mixed)
{
	uint64_t n = scaled(total) / np;
	if (wrap && d->create_at == NULL)
		return 0;
	transfer(d, cap, wrap, UINT64_MAX - n * np / 2, np, nc, n, mixed);
	return n * np;
}

static void v_threads(const struct tq_desc *d, unsigned k)
{
	unsigned np = k < d->max_producers ? k : d->max_producers;
	unsigned nc = k < d->max_consumers ? k : d->max_consumers;
	if (k > 1 && np == 1 && nc == 1) {
		check_skip("the family allows one producer and one consumer: "
			   "mt1 runs it");
		return;
	}
	/* 1.6 + 1.0 + 2 * 0.1 + 0.3 + 0.3 = 3.4 (* 10^6) */
	uint64_t moved = 0;
	moved += mt_run(d, 1024, false, np, nc, 1.6e6, false);
	moved += mt_run(d, 64, false, np, nc, 1.0e6, true);
	moved += mt_run(d, 1, false, np, nc, 1e5, true);
	moved += mt_run(d, 3, false, np, nc, 1e5, true);
	if (d->create_at == NULL)
		check_skip("no create_at (start index hook): no wrap runs");
	moved += mt_run(d, 8, true, np, nc, 3e5, true);
	moved += mt_run(d, 1024, true, np, nc, 3e5, false);
	printf("     %s: %ux%u: %llu elements in total (target %.0f)\n",
	       d->name, np, nc, (unsigned long long)moved,
	       MT_ELEMENTS * g_scale);
}

static void v_mt1(const struct tq_desc *d)
{
	v_threads(d, 1);
}

static void v_mt2(const struct tq_desc *d)
{
	v_threads(d, 2);
}

static void v_mt4(const struct tq_desc *d)
{
	v_threads(d, 4);
}

static const struct tq_case variants[] = {
    {"plain", v_plain}, {"mixed", v_mixed}, {"tiny", v_tiny}, {"wrap", v_wrap},
    {"mt1", v_mt1},	{"mt2", v_mt2},	    {"mt4", v_mt4},
};

int main(int argc, char **argv)
{
	if (!tq_read_scale(argc, argv, &g_scale))
		return 2;
	if (g_scale != 1.0)
		printf("scale %g\n", g_scale);
	return tq_run_cases(argc, argv, variants,
			    sizeof variants / sizeof variants[0]);
}
