/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stress/torture/torture.c - conq-torture, the queue torture engine.
 *
 * One engine for every family in the tests' table (tq_queues, tests/queues.h):
 * a family is driven only through its descriptor, so a family added to
 * TQ_FAMILIES is tortured without a change here. A run puts P producers and
 * C consumers (as many as the family allows) on one queue for a while, each
 * thread choosing its operations at random from a seeded generator, plus an
 * observer thread, while the main thread is the watchdog. docs/stress.md
 * ("The queue torture engine") has the user's view; in short:
 *
 * Elements are pointers to payload slots {seq, pid, check, taken}: producer
 * `pid` owns a ring of R slots, and its element number `seq` (0, 1, ...)
 * lives in slot seq mod R. Before offering it the producer writes seq, pid
 * and check = a hash of (run salt, pid, seq) with plain stores; the consumer
 * reads them back with plain loads after the poll, so a payload that is torn
 * or stale (the queue's release/acquire did not order the producer's writes
 * before the consumer's reads) fails the checksum or the ledger below, and
 * ThreadSanitizer reports the race.
 *
 * Checks, each a failure of the run:
 *  - exactly once: slot.taken holds the last sequence consumed from the slot
 *    (a ledger, the exactly-once bitmap of a window of R sequences per
 *    producer); the consumer moves it from seq - R to seq with a CAS, so a
 *    duplicate, or a stale payload, fails the CAS at once. The producer
 *    reuses a slot only once its previous element is taken (R exceeds what
 *    can be in flight, so it waits only for a consumer that holds that
 *    element). After the run every slot must hold the last sequence that
 *    mapped to it: nothing lost.
 *  - order: per consumer, each producer's sequences strictly increase; with
 *    one consumer they are exactly consecutive (0, 1, 2, ...); and at
 *    quiescence what is left in the queue is exactly the rest of each
 *    producer's sequence, in order.
 *  - conservation: after quiescence (all threads joined) the elements left,
 *    counted by draining, equal produced - consumed; size() equals that count
 *    where the accounting is exact (see exact_size) and lies between it and
 *    capacity() otherwise; is_empty() agrees; then the queue takes exactly
 *    capacity() offers and refuses the next (bounded families), and gives
 *    them back in order.
 *  - contracts checked during the run: poll_burst and drain return at most
 *    what was asked and drain returns its callbacks' count; offer_bulk is all
 *    or nothing; fill loses nothing it was supplied; with one consumer, peek
 *    (and relaxed_peek) returns what the next poll returns, and !is_empty()
 *    means the next poll succeeds; a strict poll() returns NULL only if the
 *    queue was empty at some moment of the call, and a strict offer() (and
 *    offer_bulk()) fails only if it was full (audited on a random eighth of
 *    the calls, see below).
 *  - the observer thread: 0 <= size() <= capacity(); size() is at least the
 *    elements known to be in the queue; is_empty() is true only if the queue
 *    could have been empty.
 *  - the watchdog: no element moved for --stall seconds: dump every thread's
 *    counters and last sequences, fail, exit.
 *
 * The audits use per-thread published counters: a producer publishes
 * `upper` (its sequence plus the elements of the operation it is starting)
 * before each operation and `done` after; a consumer publishes `upper` (its
 * count plus what it asks for) before and `done` after. Elements in the
 * queue at any moment t in [t0, t1] are then at least
 * sum(producer done at t0) - sum(consumer upper at t1) and at most
 * sum(producer upper at t1) - sum(consumer done at t0).
 *
 * exact_size: conq_mpmc_array and the multi-producer value rings document
 * that positions without an element (an abandoned claim, a batch's
 * tombstones) count in size() and against offer() until a poll passes them
 * (the table's exact_size false): there, size() is only bounded (elements
 * <= size() <= capacity) at quiescence and offer failures are not audited
 * during the run (they are at quiescence, single-threaded, exactly).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conq/impl/atomic.h"
#include "queues.h"

/* ---- build flavour -------------------------------------------------------- */

#if defined(__SANITIZE_THREAD__)
#define TT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TT_TSAN 1
#endif
#endif
#ifndef TT_TSAN
#define TT_TSAN 0
#endif

/* The index width the library was built with (CONQ_INDEX16 builds pass
 * -DCONQ_INDEX_BITS=16 to the library and to this engine). Narrow indices
 * wrap every 2^bits operations; capacities stay at most 2^(bits - 4). */
#ifdef CONQ_INDEX_BITS
#define TT_INDEX_BITS CONQ_INDEX_BITS
#else
#define TT_INDEX_BITS 64
#endif
#if TT_INDEX_BITS < 64
#define TT_MAX_CAP ((size_t)1 << (TT_INDEX_BITS - 4))
#else
#define TT_MAX_CAP ((size_t)1 << 24)
#endif

/* Largest batch for offer_bulk, offer_burst, fill, poll_burst, drain. */
#define BATCH 64
/* Threads per side at most. */
#define MAX_SIDE 16
/* Errors printed per run; later ones are counted only. */
#define MAX_PRINTED 12

enum { P_OFFER, P_RELAXED, P_BULK, P_BURST, P_FILL, P_OPS };
enum {
	C_POLL,
	C_RELAXED,
	C_BURST,
	C_DRAIN,
	C_PEEK,
	C_RPEEK,
	C_EMPTY,
	C_OPS
};
static const char *const p_names[P_OPS] = {"offer", "relaxed_offer",
					   "offer_bulk", "offer_burst", "fill"};
static const char *const c_names[C_OPS] = {
    "poll", "relaxed_poll", "poll_burst", "drain",
    "peek", "relaxed_peek", "is_empty"};

/* ---- small helpers --------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	nanosleep(&ts, NULL);
}

static uint64_t splitmix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

/* A non-zero xorshift state from a seed. */
static uint64_t rng_from(uint64_t seed, uint64_t stream)
{
	uint64_t s = splitmix(seed ^ splitmix(stream + 0x51ed2701ULL));
	return s ? s : 1;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* ---- a run ----------------------------------------------------------------- */

/* One payload slot. seq, pid and check are plain, written by the producer
 * before it offers the slot's address and read by the consumer after it
 * polls it (ordered by the queue); taken is atomic. 32 bytes. */
struct payload {
	uint64_t seq;
	uint64_t pid;
	uint64_t check;
	uint64_t taken; /* the last sequence consumed from this slot */
};

/* The configuration of a run; everything a replay needs. */
struct cfg {
	const struct tq_desc *d;
	unsigned np, nc;
	size_t cap;	       /* requested capacity */
	uint64_t start;	       /* first index (create_at), 0: create */
	double duration;       /* seconds, at least */
	uint64_t min_elements; /* and at least this many verified */
	uint64_t seed;
};

struct run;

/* What a producer or consumer publishes about its operations (atomic); its
 * count is the producer's seq, the consumer's got. */
struct tally {
	uint64_t upper; /* count + the elements of the op in progress */
	uint64_t done;	/* count after the last op */
	uint64_t ops;	/* operations called */
	unsigned op;	/* the operation in progress */
};

struct prod {
	_Alignas(128) struct run *r;
	unsigned id;
	uint64_t rng;
	uint64_t seq; /* the next sequence to offer; owned */
	/* Published (atomic): */
	struct tally pub;
	uint64_t fails;	   /* operations that moved nothing */
	uint64_t waits;	   /* times it waited for a payload slot */
	uint64_t wait_for; /* 1 + the sequence it waits to reuse a slot for */
	uint64_t audits;   /* failed strict offers audited */
	/* For fill's supplier: */
	uint64_t sup_next, sup_end;
	bool sup_failed;
};

struct cons {
	_Alignas(128) struct run *r;
	unsigned id;
	uint64_t rng;
	uint64_t got;	/* elements received; owned */
	uint64_t *next; /* per producer: the next sequence expected (one
			   consumer) or allowed (several); published */
	/* Published (atomic): */
	struct tally pub;
	uint64_t empties; /* operations that got nothing */
	uint64_t audits;  /* NULL strict polls audited */
	void *buf[BATCH];
};

struct run {
	struct cfg c;
	const struct tq_desc *d;
	void *q;
	uint64_t cap;	 /* capacity(); UINT64_MAX if unbounded */
	bool exact_size; /* see the file comment */
	bool one;	 /* one consumer: the strict single-consumer checks */
	uint64_t R, rmask;
	unsigned rshift;
	struct payload *pay; /* np * R slots */
	uint64_t salt;
	struct prod *prod;
	struct cons *cons;
	unsigned pw[P_OPS], cw[C_OPS]; /* operation weights (the mix) */
	unsigned maxb;		       /* batch sizes: 1..maxb */
	/* Atomic: */
	int stop_prod, stop_cons, stop_obs;
	unsigned prod_exited, cons_exited, obs_exited;
	uint64_t errors;
	uint64_t obs_samples;
};

static uint64_t tt_check(uint64_t salt, uint64_t pid, uint64_t seq)
{
	return splitmix(salt ^ (pid << 56) ^ splitmix(seq));
}

/* Report an error of the run (any thread). */
static void run_error(struct run *r, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void run_error(struct run *r, const char *fmt, ...)
{
	/* relaxed: a count; the main thread reads it after joining. */
	uint64_t k = conq__faa_relaxed(&r->errors, 1);
	if (k >= MAX_PRINTED) {
		if (k == MAX_PRINTED)
			printf("     (further errors are counted only)\n");
		return;
	}
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	printf("     ERROR %s: %s\n", r->d->name, msg);
	fflush(stdout);
}

enum side { PRODUCERS, CONSUMERS };

static struct tally *tally_of(struct run *r, enum side sd, unsigned i)
{
	return sd == CONSUMERS ? &r->cons[i].pub : &r->prod[i].pub;
}

/* Sums of the published counters of one side. The loads of `done` are
 * acquire: each pairs with the release store of that counter (tally_done),
 * so what the operations counted there did to the queue happens-before the
 * caller's next look at the queue. `upper` loads are relaxed: see
 * tally_begin. */
static uint64_t sum_done(struct run *r, enum side sd)
{
	uint64_t s = 0;
	unsigned n = sd == CONSUMERS ? r->c.nc : r->c.np;
	for (unsigned i = 0; i < n; i++)
		/* acquire: pairs with the release in tally_done. */
		s += conq__load_acquire(&tally_of(r, sd, i)->done);
	return s;
}

static uint64_t sum_upper(struct run *r, enum side sd)
{
	uint64_t s = 0;
	unsigned n = sd == CONSUMERS ? r->c.nc : r->c.np;
	for (unsigned i = 0; i < n; i++)
		/* relaxed: see tally_begin. */
		s += conq__load_relaxed(&tally_of(r, sd, i)->upper);
	return s;
}

/*
 * Announce an operation of n elements (upper: the count after it). relaxed:
 * the store precedes, in program order, the operation's own release of the
 * queue (the slot or index store, or the claiming RMW), so a thread that
 * observes the operation in the queue through an acquire also sees this
 * store (write-read coherence after happens-before). That is the only use of
 * `upper`.
 */
static void tally_begin(struct tally *t, unsigned op, uint64_t upper)
{
	conq__store_relaxed(&t->op, op);
	conq__store_relaxed(&t->upper, upper);
	conq__store_relaxed(&t->ops, conq__load_relaxed(&t->ops) + 1);
}

/* The operations up to `count` are complete. */
static void tally_done(struct tally *t, uint64_t count)
{
	/* release: pairs with the acquire in sum_done; the operations
	 * counted are complete in the queue for whoever sees the count. */
	conq__store_release(&t->done, count);
	/* relaxed: the operation is over; the next tally_begin raises it. */
	conq__store_relaxed(&t->upper, count);
}

/* ---- producers ------------------------------------------------------------- */

static void prod_begin(struct prod *p, unsigned op, uint64_t n)
{
	tally_begin(&p->pub, op, p->seq + n);
}

static void prod_publish_done(struct prod *p)
{
	tally_done(&p->pub, p->seq);
}

/* The slot of producer p's element `seq`, with the payload written. Waits
 * until the slot's previous element (seq - R) is consumed, unless !may_wait
 * (then NULL if it is not). */
static struct payload *make(struct prod *p, uint64_t seq, bool may_wait)
{
	struct run *r = p->r;
	struct payload *s = &r->pay[((uint64_t)p->id << r->rshift) +
				    (seq & r->rmask)];
	uint64_t prev = seq - r->R;
	unsigned spins = 0;
	/* acquire: pairs with the consumer's CAS of taken in receive(): its
	 * reads of the old payload happen-before our writes below. */
	if (conq__load_acquire(&s->taken) != prev) {
		if (!may_wait)
			return NULL;
		conq__store_relaxed(&p->waits,
				    conq__load_relaxed(&p->waits) + 1);
		conq__store_relaxed(&p->wait_for, seq + 1);
		/* Inside fill() (the supplier), we are inside a queue call:
		 * the narrow-build gate must not make the consumers wait
		 * for it (tests/queues.h). */
		tq_gate_suspend();
		/* acquire: as above. */
		while (conq__load_acquire(&s->taken) != prev)
			tq_backoff(&spins);
		tq_gate_resume();
		conq__store_relaxed(&p->wait_for, 0);
	}
	s->seq = seq;
	s->pid = p->id;
	s->check = tt_check(r->salt, p->id, seq);
	return s;
}

static void *supply_cb(void *ctx)
{
	struct prod *p = (struct prod *)ctx;
	if (p->sup_next >= p->sup_end)
		return NULL;
	return make(p, p->sup_next++, true);
}

static unsigned pick(uint64_t *rng, const unsigned *w, unsigned n)
{
	unsigned total = 0;
	for (unsigned i = 0; i < n; i++)
		total += w[i];
	unsigned x = (unsigned)tq_rand_below(rng, total);
	for (unsigned i = 0; i < n; i++) {
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return 0;
}

/* A failed strict offer of n elements (n <= cap): the queue had fewer than
 * n free slots at some moment, so at most elements... the bound in the file
 * comment: sum(upper at t1) - own n - sum(consumer done at t0) >= cap - n + 1.
 */
static void audit_offer(struct prod *p, const char *what, uint64_t n,
			uint64_t cdone0)
{
	struct run *r = p->r;
	uint64_t pu = sum_upper(r, PRODUCERS) - n;
	conq__store_relaxed(&p->audits, conq__load_relaxed(&p->audits) + 1);
	if (pu - cdone0 < r->cap - n + 1)
		run_error(r,
			  "producer %u: %s of %" PRIu64 " failed, but the "
			  "queue never held more than %" PRIu64
			  " elements during the call (capacity %" PRIu64 ")",
			  p->id, what, n, pu - cdone0, r->cap);
}

static void *prod_main(void *arg)
{
	struct prod *p = (struct prod *)arg;
	struct run *r = p->r;
	const struct tq_desc *d = r->d;
	void *es[BATCH];
	unsigned spins = 0;
	bool audit_ok = r->exact_size && d->bounded;
	/* relaxed: a stop request carries no data; pthread_join orders what
	 * the thread did before the main thread's checks. */
	while (!conq__load_relaxed(&r->stop_prod)) {
		unsigned op = pick(&p->rng, r->pw, P_OPS);
		uint64_t n = 1 + tq_rand_below(&p->rng, r->maxb), did = 0;
		bool audit = audit_ok && (tq_rand(&p->rng) & 7) == 0;
		uint64_t cdone0 = audit ? sum_done(r, CONSUMERS) : 0;
		switch (op) {
		case P_OFFER:
		case P_RELAXED: {
			void *e = make(p, p->seq, true);
			prod_begin(p, op, 1);
			bool ok = op == P_OFFER ? d->offer(r->q, e)
						: d->relaxed_offer(r->q, e);
			did = ok ? 1 : 0;
			if (!ok && audit && op == P_OFFER)
				audit_offer(p, "offer", 1, cdone0);
			break;
		}
		case P_BULK:
			n = min_u64(n, r->cap);
			for (uint64_t i = 0; i < n; i++)
				es[i] = make(p, p->seq + i, true);
			prod_begin(p, op, n);
			did = d->offer_bulk(r->q, es, (size_t)n);
			if (did != 0 && did != n)
				run_error(r,
					  "producer %u: offer_bulk of %" PRIu64
					  " returned %" PRIu64
					  " (all or nothing)",
					  p->id, n, did);
			if (did == 0 && audit)
				audit_offer(p, "offer_bulk", n, cdone0);
			break;
		case P_BURST:
			for (uint64_t i = 0; i < n; i++)
				es[i] = make(p, p->seq + i, true);
			prod_begin(p, op, n);
			did = d->offer_burst(r->q, es, (size_t)n);
			if (did > n)
				run_error(r,
					  "producer %u: offer_burst of %" PRIu64
					  " returned %" PRIu64,
					  p->id, n, did);
			break;
		default: {
			/* The supplier runs dry after n elements; the limit
			 * is sometimes above n, so fill sees the NULL. */
			size_t limit =
			    (size_t)(n + tq_rand_below(&p->rng, 3));
			p->sup_next = p->seq;
			p->sup_end = p->seq + n;
			prod_begin(p, op, n);
			did = d->fill(r->q, supply_cb, p, limit);
			if (did != p->sup_next - p->seq)
				run_error(r,
					  "producer %u: fill returned %" PRIu64
					  " after %" PRIu64
					  " elements were supplied",
					  p->id, did, p->sup_next - p->seq);
			break;
		}
		}
		if (did > n)
			did = n;
		p->seq += did;
		prod_publish_done(p);
		if (did == 0) {
			conq__store_relaxed(&p->fails,
					    conq__load_relaxed(&p->fails) + 1);
			tq_backoff(&spins);
		}
	}
	/* release: pairs with the watchdog's acquire of prod_exited. */
	conq__faa_acq_rel(&r->prod_exited, 1);
	return NULL;
}

/* ---- consumers ------------------------------------------------------------- */

static void cons_begin(struct cons *c, unsigned op, uint64_t n)
{
	tally_begin(&c->pub, op, c->got + n);
}

static void cons_publish_done(struct cons *c)
{
	tally_done(&c->pub, c->got);
}

/* Verify a received element: its address, its payload, the ledger, the
 * order. `exact`: sequences from one producer must be consecutive. */
static void receive(struct cons *c, void *e, bool exact)
{
	struct run *r = c->r;
	c->got++;
	uintptr_t base = (uintptr_t)r->pay, a = (uintptr_t)e;
	uint64_t nslots = (uint64_t)r->c.np << r->rshift;
	if (a < base || (a - base) % sizeof(struct payload) != 0 ||
	    (a - base) / sizeof(struct payload) >= nslots) {
		run_error(r, "consumer %u: element %p is no payload slot",
			  c->id, e);
		return;
	}
	uint64_t idx = (uint64_t)((a - base) / sizeof(struct payload));
	uint64_t pid = idx >> r->rshift, slot = idx & r->rmask;
	struct payload *s = (struct payload *)e;
	uint64_t seq = s->seq, spid = s->pid, chk = s->check;
	if (spid != pid || (seq & r->rmask) != slot ||
	    chk != tt_check(r->salt, pid, seq)) {
		run_error(r,
			  "consumer %u: torn or stale payload in producer "
			  "%" PRIu64 "'s slot %" PRIu64 ": seq %" PRIu64
			  " pid %" PRIu64 " check %016" PRIx64
			  " (want %016" PRIx64 ")",
			  c->id, pid, slot, seq, spid, chk,
			  tt_check(r->salt, spid, seq));
		return;
	}
	uint64_t prev = seq - r->R;
	/* acq_rel: the release pairs with make()'s acquire of taken (our
	 * reads of the payload above happen-before the producer rewrites the
	 * slot); the acquire orders us after the slot's previous consumer. */
	if (!conq__cas_strong_acq_rel(&s->taken, &prev, seq)) {
		if (prev == seq)
			run_error(r,
				  "consumer %u: producer %" PRIu64
				  "'s element %" PRIu64 " delivered twice",
				  c->id, pid, seq);
		else
			run_error(r,
				  "consumer %u: producer %" PRIu64
				  "'s element %" PRIu64
				  ": its slot's ledger says %" PRIu64
				  " was taken last (want %" PRIu64
				  "): a stale element",
				  c->id, pid, seq, prev, seq - r->R);
		return;
	}
	uint64_t want = c->next[pid];
	if (exact ? seq != want : seq < want)
		run_error(r,
			  "consumer %u: producer %" PRIu64 "'s element %" PRIu64
			  " after %" PRIu64 " (want %s%" PRIu64 ")",
			  c->id, pid, seq, want - 1, exact ? "" : ">= ", want);
	/* relaxed: read by the watchdog's dump only. */
	conq__store_relaxed(&c->next[pid], seq + 1);
}

static void drain_cb(void *ctx, void *e)
{
	struct cons *c = (struct cons *)ctx;
	receive(c, e, c->r->one);
}

/* A strict poll returned NULL: the queue was empty at some moment, so
 * sum(producer done at t0) <= sum(consumer upper at t1). */
static void audit_poll(struct cons *c, uint64_t pdone0)
{
	struct run *r = c->r;
	uint64_t cu = sum_upper(r, CONSUMERS);
	conq__store_relaxed(&c->audits, conq__load_relaxed(&c->audits) + 1);
	if (pdone0 > cu)
		run_error(r,
			  "consumer %u: poll returned NULL, but at least "
			  "%" PRIu64 " elements were in the queue during the "
			  "call",
			  c->id, pdone0 - cu);
}

static void *cons_main(void *arg)
{
	struct cons *c = (struct cons *)arg;
	struct run *r = c->r;
	const struct tq_desc *d = r->d;
	bool one = r->one;
	unsigned spins = 0;
	/* relaxed: as stop_prod in prod_main. */
	while (!conq__load_relaxed(&r->stop_cons)) {
		unsigned op = pick(&c->rng, r->cw, C_OPS);
		uint64_t n = 1 + tq_rand_below(&c->rng, r->maxb);
		uint64_t before = c->got;
		bool audit = (tq_rand(&c->rng) & 7) == 0;
		uint64_t pdone0 = 0;
		void *e, *e2;
		switch (op) {
		case C_POLL:
			if (audit)
				pdone0 = sum_done(r, PRODUCERS);
			cons_begin(c, op, 1);
			if ((e = d->poll(r->q)) != NULL)
				receive(c, e, one);
			else if (audit)
				audit_poll(c, pdone0);
			break;
		case C_RELAXED:
			cons_begin(c, op, 1);
			if ((e = d->relaxed_poll(r->q)) != NULL)
				receive(c, e, one);
			break;
		case C_BURST: {
			cons_begin(c, op, n);
			size_t k = d->poll_burst(r->q, c->buf, (size_t)n);
			if (k > n)
				run_error(r,
					  "consumer %u: poll_burst of %" PRIu64
					  " returned %zu",
					  c->id, n, k);
			for (size_t i = 0; i < k && i < n; i++)
				receive(c, c->buf[i], one);
			break;
		}
		case C_DRAIN: {
			cons_begin(c, op, n);
			size_t k = d->drain(r->q, drain_cb, c, (size_t)n);
			if (k != c->got - before || k > n)
				run_error(r,
					  "consumer %u: drain of %" PRIu64
					  " returned %zu after %" PRIu64
					  " callbacks",
					  c->id, n, k, c->got - before);
			break;
		}
		case C_PEEK:
		case C_RPEEK:
			/* peek, then poll: with one consumer, the same. */
			e = op == C_PEEK ? d->peek(r->q)
					 : d->relaxed_peek(r->q);
			if (e == NULL) {
				cons_begin(c, op, 0);
				break;
			}
			cons_begin(c, op, 1);
			e2 = d->poll(r->q);
			if (one && e2 != e)
				run_error(r,
					  "consumer: %s returned %p, the next "
					  "poll %p",
					  c_names[op], e, e2);
			if (e2 != NULL)
				receive(c, e2, one);
			break;
		default:
			/* From the only consumer, !is_empty: poll succeeds. */
			if (d->is_empty(r->q)) {
				cons_begin(c, op, 0);
				break;
			}
			cons_begin(c, op, 1);
			e = d->poll(r->q);
			if (one && e == NULL)
				run_error(r, "consumer: is_empty() was false, "
					     "then poll returned NULL");
			if (e != NULL)
				receive(c, e, one);
			break;
		}
		cons_publish_done(c);
		if (c->got == before) {
			conq__store_relaxed(&c->empties,
					    conq__load_relaxed(&c->empties) + 1);
			tq_backoff(&spins);
		}
	}
	/* release: pairs with the watchdog's acquire of cons_exited. */
	conq__faa_acq_rel(&r->cons_exited, 1);
	return NULL;
}

/* ---- the observer ---------------------------------------------------------- */

static void *obs_main(void *arg)
{
	struct run *r = (struct run *)arg;
	const struct tq_desc *d = r->d;
	uint64_t k = 0;
	/* relaxed: as stop_prod in prod_main. */
	while (!conq__load_relaxed(&r->stop_obs)) {
		uint64_t pd = sum_done(r, PRODUCERS);
		/* size() from this thread only where any thread may call it
		 * (not GROW_CSIZE rows); is_empty() below always. */
		size_t s = d->size_any_thread ? d->size(r->q) : SIZE_MAX;
		uint64_t cu = sum_upper(r, CONSUMERS);
		if (s == SIZE_MAX)
			; /* not probed */
		else if (s > r->cap)
			run_error(r, "observer: size() = %zu > capacity %" PRIu64,
				  s, r->cap);
		if (pd > cu && (uint64_t)s < pd - cu)
			run_error(r,
				  "observer: size() = %zu, but at least %" PRIu64
				  " elements were in the queue during the call",
				  s, pd - cu);
		pd = sum_done(r, PRODUCERS);
		bool empty = d->is_empty(r->q);
		cu = sum_upper(r, CONSUMERS);
		if (empty && pd > cu)
			run_error(r,
				  "observer: is_empty() is true, but at least "
				  "%" PRIu64
				  " elements were in the queue during the call",
				  pd - cu);
		k++;
		/* relaxed: a count for the report, read after the join. */
		conq__store_relaxed(&r->obs_samples, k);
		if (k % 8 == 0)
			sleep_us(50);
	}
	/* release: pairs with the watchdog's acquire of obs_exited. */
	conq__faa_acq_rel(&r->obs_exited, 1);
	return NULL;
}

/* ---- the watchdog's dump ----------------------------------------------------- */

static void replay_line(const struct cfg *c, const char *prefix);

static void dump(struct run *r, const char *why)
{
	printf("     WATCHDOG %s: %s\n", r->d->name, why);
	/* First, and flushed: a run that hangs never prints its run line, and
	 * the queue's own calls below may wait on the stuck threads. */
	replay_line(&r->c, "       ");
	fflush(stdout);
	for (unsigned i = 0; i < r->c.np; i++) {
		struct prod *p = &r->prod[i];
		/* relaxed (all): a diagnostic snapshot. */
		uint64_t wf = conq__load_relaxed(&p->wait_for);
		printf("       producer %u: in %s, next seq %" PRIu64
		       " (upper %" PRIu64 "), %" PRIu64 " ops, %" PRIu64
		       " failed, %" PRIu64 " slot waits%s",
		       i, p_names[conq__load_relaxed(&p->pub.op)],
		       conq__load_relaxed(&p->pub.done),
		       conq__load_relaxed(&p->pub.upper),
		       conq__load_relaxed(&p->pub.ops),
		       conq__load_relaxed(&p->fails),
		       conq__load_relaxed(&p->waits),
		       wf ? ", waiting to reuse the slot of" : "");
		if (wf) {
			struct payload *s =
			    &r->pay[((uint64_t)i << r->rshift) +
				    ((wf - 1) & r->rmask)];
			printf(" %" PRIu64 " (its element %" PRIu64
			       " not consumed; ledger %" PRIu64 ")",
			       wf - 1, wf - 1 - r->R,
			       conq__load_relaxed(&s->taken));
		}
		printf("\n");
	}
	for (unsigned i = 0; i < r->c.nc; i++) {
		struct cons *c = &r->cons[i];
		printf("       consumer %u: in %s, %" PRIu64 " received, %" PRIu64
		       " ops, %" PRIu64 " empty; next per producer:",
		       i, c_names[conq__load_relaxed(&c->pub.op)],
		       conq__load_relaxed(&c->pub.done),
		       conq__load_relaxed(&c->pub.ops),
		       conq__load_relaxed(&c->empties));
		for (unsigned j = 0; j < r->c.np && j < 8; j++)
			printf(" %" PRIu64, conq__load_relaxed(&c->next[j]));
		printf("\n");
	}
	fflush(stdout); /* is_empty() may wait on a thread that is stuck */
	printf("       queue: size() %zu, is_empty() %d\n",
	       r->d->size_any_thread ? r->d->size(r->q) : 0,
	       (int)r->d->is_empty(r->q));
	fflush(stdout);
}

/* ---- one run ----------------------------------------------------------------- */

static const char *g_prog = "conq-torture";
/* --ops: the operations a run may use (all by default). */
static bool g_pops[P_OPS] = {true, true, true, true, true};
static bool g_cops[C_OPS] = {true, true, true, true, true, true, true};
static const char *g_ops_arg;
static double g_stall = 20.0;
static unsigned g_passed, g_failed;

static void replay_line(const struct cfg *c, const char *prefix)
{
	printf("%sreplay: %s --family=%s --producers=%u --consumers=%u "
	       "--capacity=%zu --start=0x%" PRIx64 " --duration=%g "
	       "--min-elements=%" PRIu64 " --seed=0x%" PRIx64 "%s%s\n",
	       prefix, g_prog, c->d->name, c->np, c->nc, c->cap, c->start,
	       c->duration, c->min_elements, c->seed,
	       g_ops_arg ? " --ops=" : "", g_ops_arg ? g_ops_arg : "");
}

/* A run that stalled: its FAIL line, what replays it, the totals; then exit
 * at once (its threads are stuck: nothing is joined or freed). */
static void fail_stalled(const struct cfg *c, const char *where)
{
	printf("FAIL %s %ux%u cap=%zu seed=0x%" PRIx64 ": stalled%s\n",
	       c->d->name, c->np, c->nc, c->cap, c->seed, where);
	replay_line(c, "     ");
	g_failed++;
	printf("%u passed, %u failed\n", g_passed, g_failed);
	fflush(NULL);
	_exit(1);
}

/* The operation mix of a run, from its seed: a quarter of the runs use
 * offer and poll only (the fast paths), the others every operation the
 * family has, with random weights. */
static void choose_mix(struct run *r, uint64_t *rng)
{
	const struct tq_desc *d = r->d;
	bool plain = tq_rand_below(rng, 4) == 0;
	const bool pf[P_OPS] = {d->offer != NULL, d->relaxed_offer != NULL,
				d->offer_bulk != NULL, d->offer_burst != NULL,
				d->fill != NULL};
	const bool cf[C_OPS] = {d->poll != NULL,	 d->relaxed_poll != NULL,
				d->poll_burst != NULL, d->drain != NULL,
				d->peek != NULL,	 d->relaxed_peek != NULL,
				d->is_empty != NULL};
	for (unsigned i = 0; i < P_OPS; i++)
		r->pw[i] = !pf[i] || !g_pops[i] || (plain && i != P_OFFER)
			       ? 0
			       : 1 + (unsigned)tq_rand_below(rng, 4);
	for (unsigned i = 0; i < C_OPS; i++)
		r->cw[i] = !cf[i] || !g_cops[i] || (plain && i != C_POLL)
			       ? 0
			       : 1 + (unsigned)tq_rand_below(rng, 4);
	/* Every weight 0 (plain, and --ops left out offer or poll): the
	 * first operation --ops allows. */
	unsigned ps = 0, cs = 0;
	for (unsigned i = 0; i < P_OPS; i++)
		ps += r->pw[i];
	for (unsigned i = 0; i < C_OPS; i++)
		cs += r->cw[i];
	for (unsigned i = 0; i < P_OPS && ps == 0; i++)
		if (pf[i] && g_pops[i])
			r->pw[i] = ps = 1;
	for (unsigned i = 0; i < C_OPS && cs == 0; i++)
		if (cf[i] && g_cops[i])
			r->cw[i] = cs = 1;
	/* peek, relaxed_peek and is_empty also poll. */
	if (d->poll == NULL)
		r->cw[C_PEEK] = r->cw[C_RPEEK] = r->cw[C_EMPTY] = 0;
	static const unsigned maxbs[] = {1, 4, 16, BATCH};
	r->maxb = maxbs[tq_rand_below(rng, 4)];
}

static void mix_name(const struct run *r, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "mix");
	for (unsigned i = 0; i < P_OPS && o < len; i++)
		if (r->pw[i])
			o += (size_t)snprintf(buf + o, len - o, " %s:%u",
					      p_names[i], r->pw[i]);
	for (unsigned i = 0; i < C_OPS && o < len; i++)
		if (r->cw[i])
			o += (size_t)snprintf(buf + o, len - o, " %s:%u",
					      c_names[i], r->cw[i]);
	if (o < len)
		snprintf(buf + o, len - o, ", batch <= %u", r->maxb);
}

/* After quiescence: poll until NULL with the final consumer fc (exact order),
 * returns the count. */
static uint64_t drain_all(struct run *r, struct cons *fc)
{
	uint64_t k = 0;
	void *e;
	while ((e = r->d->poll(r->q)) != NULL) {
		receive(fc, e, true);
		k++;
		if (k > r->cap + 1 && r->cap != UINT64_MAX) {
			run_error(r, "drain: more than capacity() elements");
			break;
		}
	}
	return k;
}

/* The quiescent checks run on the main thread after every worker has
 * joined, so the watchdog loop no longer watches; a queue left in a wrong
 * state can make one of their calls wait for ever (a strict offer waiting
 * for a consumer that is gone). A thread of their own watches them: the
 * step they are at, and whether they finished within the stall limit. */
struct qwatch {
	struct run *r;
	const char *step; /* relaxed (both sides): a label for the report */
	int done;	  /* relaxed (both sides): the checks returned */
};

static void q_step(struct qwatch *w, const char *step)
{
	/* relaxed: a label, read by the watcher's report only. */
	conq__store_relaxed(&w->step, step);
}

static void *qwatch_main(void *arg)
{
	struct qwatch *w = (struct qwatch *)arg;
	struct run *r = w->r;
	double t0 = now_s();
	/* relaxed: a flag polled; the checks' results are read after the
	 * join. */
	while (!conq__load_relaxed(&w->done)) {
		if (now_s() - t0 > g_stall) {
			printf("     WATCHDOG %s: the quiescent checks (one "
			       "thread, every worker joined) did not finish "
			       "within %.0f s, at: %s; %" PRIu64
			       " error(s) found before\n",
			       r->d->name, g_stall,
			       conq__load_relaxed(&w->step),
			       conq__load_relaxed(&r->errors));
			fail_stalled(&r->c, " in the quiescent checks");
		}
		sleep_us(5000);
	}
	return NULL;
}

static void quiescent_checks(struct run *r, struct qwatch *w,
			     uint64_t *verified)
{
	const struct tq_desc *d = r->d;
	uint64_t produced = 0, consumed = 0;
	for (unsigned i = 0; i < r->c.np; i++)
		produced += r->prod[i].seq;
	for (unsigned i = 0; i < r->c.nc; i++)
		consumed += r->cons[i].got;
	if (consumed > produced) {
		run_error(r, "consumed %" PRIu64 " > produced %" PRIu64,
			  consumed, produced);
		*verified = consumed;
		return;
	}
	/* The final consumer: after every consumer (joined), what is left
	 * of each producer's sequence must follow the highest seen. */
	struct cons fc;
	memset(&fc, 0, sizeof fc);
	fc.r = r;
	fc.id = r->c.nc;
	uint64_t fnext[MAX_SIDE];
	fc.next = fnext;
	for (unsigned j = 0; j < r->c.np; j++) {
		fnext[j] = 0;
		for (unsigned i = 0; i < r->c.nc; i++)
			if (r->cons[i].next[j] > fnext[j])
				fnext[j] = r->cons[i].next[j];
	}
	q_step(w, "size() and is_empty() of what the consumers left");
	size_t s = d->size(r->q);
	bool empty = d->is_empty(r->q);
	q_step(w, "draining what the consumers left");
	uint64_t left = drain_all(r, &fc);
	if (left != produced - consumed)
		run_error(r,
			  "conservation: produced %" PRIu64 ", consumed %" PRIu64
			  ", but %" PRIu64 " left in the queue (want %" PRIu64 ")",
			  produced, consumed, left, produced - consumed);
	if (r->exact_size ? (uint64_t)s != left
			  : ((uint64_t)s < left || (uint64_t)s > r->cap))
		run_error(r,
			  "at quiescence size() = %zu with %" PRIu64
			  " elements in the queue",
			  s, left);
	if (empty != (left == 0))
		run_error(r,
			  "at quiescence is_empty() = %d with %" PRIu64
			  " elements in the queue",
			  (int)empty, left);
	for (unsigned j = 0; j < r->c.np; j++)
		if (fnext[j] != r->prod[j].seq)
			run_error(r,
				  "producer %u offered %" PRIu64
				  " elements, the last received is %" PRIu64
				  " (lost at the tail)",
				  j, r->prod[j].seq, fnext[j] - 1);
	q_step(w, "size(), is_empty(), poll() and peek() of the drained "
		  "queue");
	if (d->size(r->q) != 0 || !d->is_empty(r->q) ||
	    d->poll(r->q) != NULL || (d->peek != NULL && d->peek(r->q) != NULL))
		run_error(r, "drained queue: size() %zu, is_empty() %d, or "
			     "poll/peek not NULL",
			  d->size(r->q), (int)d->is_empty(r->q));
	uint64_t extra = 0;
	/* Bounded: exactly capacity() offers fit, the next fails (the main
	 * thread is producer 0 now: the joins hand it the role). */
	if (d->bounded && r->cap <= ((uint64_t)1 << 20)) {
		struct prod *p = &r->prod[0];
		uint64_t ok = 0;
		q_step(w, "fill check: capacity() offers into the drained "
			  "queue, then one more");
		for (uint64_t i = 0; i < r->cap; i++) {
			struct payload *e = make(p, p->seq, false);
			if (e == NULL) {
				run_error(r, "fill check: payload slot of %" PRIu64
					     " still in use",
					  p->seq);
				break;
			}
			if (!d->offer(r->q, e))
				break;
			p->seq++;
			ok++;
		}
		if (ok != r->cap)
			run_error(r,
				  "fill check: offer failed after %" PRIu64
				  " of capacity() = %" PRIu64 " into an empty "
				  "queue",
				  ok, r->cap);
		struct payload *e = make(p, p->seq, false);
		if (ok == r->cap && e != NULL && d->offer(r->q, e)) {
			run_error(r, "fill check: offer into a full queue "
				     "succeeded");
			p->seq++;
			ok++;
		}
		if (ok == r->cap && d->size(r->q) != r->cap)
			run_error(r, "fill check: size() %zu when full",
				  d->size(r->q));
		q_step(w, "fill check: draining the full queue");
		extra = drain_all(r, &fc);
		if (extra != ok)
			run_error(r,
				  "fill check: %" PRIu64 " offered, %" PRIu64
				  " polled back",
				  ok, extra);
	}
	/* The ledger: every slot holds the last sequence that mapped to it. */
	for (unsigned j = 0; j < r->c.np; j++) {
		uint64_t n = r->prod[j].seq;
		for (uint64_t i = 0; i < r->R; i++) {
			uint64_t want =
			    n > i ? i + ((n - 1 - i) >> r->rshift << r->rshift)
				  : i - r->R;
			uint64_t got = r->pay[((uint64_t)j << r->rshift) + i]
					   .taken;
			if (got != want) {
				run_error(r,
					  "ledger: producer %u slot %" PRIu64
					  " last took %" PRIu64
					  ", want %" PRIu64 " (lost)",
					  j, i, got, want);
				break;
			}
		}
	}
	*verified = consumed + left + extra;
}

/* Run one configuration; true if it passed. *verified_out: the elements
 * verified. */
static bool run_one(const struct cfg *c, uint64_t *verified_out)
{
	struct run *r = (struct run *)calloc(1, sizeof *r);
	if (r == NULL) {
		perror("calloc");
		exit(2);
	}
	r->c = *c;
	r->d = c->d;
	const struct tq_desc *d = c->d;
	uint64_t rng = rng_from(c->seed, 0);
	r->salt = tq_rand(&rng);
	choose_mix(r, &rng);
	r->q = c->start != 0 ? d->create_at(c->cap, c->start)
			     : d->create(c->cap);
	if (r->q == NULL) {
		printf("FAIL %s: create(%zu) failed: %s\n", d->name, c->cap,
		       strerror(errno));
		free(r);
		g_failed++;
		*verified_out = 0;
		return false;
	}
	r->cap = d->bounded ? (uint64_t)d->capacity(r->q) : UINT64_MAX;
	r->exact_size = d->bounded && d->exact_size;
	r->one = c->nc == 1;
	/* In flight at most: capacity + a batch per consumer + the
	 * producer's own batch; R is above that. */
	/* An unbounded family: held to 2^16 in flight per producer by the
	 * payload ring (make() waits for its slot); in a narrow index build
	 * to 2^(CONQ_INDEX_BITS - 8), so that up to 8 producers stay below
	 * its element bound (2^(CONQ_INDEX_BITS - 3) for mpsc_unbounded,
	 * its header). */
	uint64_t unb = (uint64_t)1 << (TT_INDEX_BITS < 64 ? TT_INDEX_BITS - 8
							  : 16);
	uint64_t in_flight = (d->bounded ? r->cap : unb) +
			     (uint64_t)BATCH * (c->nc + 2);
	r->R = tq_pow2(in_flight + 64);
	r->rmask = r->R - 1;
	while (((uint64_t)1 << r->rshift) < r->R)
		r->rshift++;
	size_t nslots = (size_t)c->np << r->rshift;
	r->pay = (struct payload *)aligned_alloc(
	    64, nslots * sizeof(struct payload));
	r->prod = (struct prod *)aligned_alloc(128, c->np * sizeof *r->prod);
	r->cons = (struct cons *)aligned_alloc(128, c->nc * sizeof *r->cons);
	if (r->pay == NULL || r->prod == NULL || r->cons == NULL) {
		perror("aligned_alloc");
		exit(2);
	}
	memset(r->pay, 0, nslots * sizeof(struct payload));
	for (size_t i = 0; i < nslots; i++)
		r->pay[i].taken = (i & r->rmask) - r->R;
	memset(r->prod, 0, c->np * sizeof *r->prod);
	memset(r->cons, 0, c->nc * sizeof *r->cons);
	for (unsigned i = 0; i < c->np; i++) {
		r->prod[i].r = r;
		r->prod[i].id = i;
		r->prod[i].rng = rng_from(c->seed, 1 + i);
	}
	for (unsigned i = 0; i < c->nc; i++) {
		r->cons[i].r = r;
		r->cons[i].id = i;
		r->cons[i].rng = rng_from(c->seed, 1 + MAX_SIDE + i);
		r->cons[i].next = (uint64_t *)calloc(c->np, sizeof(uint64_t));
		if (r->cons[i].next == NULL) {
			perror("calloc");
			exit(2);
		}
	}

	pthread_t th[2 * MAX_SIDE + 1];
	unsigned nth = 0;
	int err = 0;
	for (unsigned i = 0; i < c->nc && !err; i++)
		err = pthread_create(&th[nth++], NULL, cons_main, &r->cons[i]);
	for (unsigned i = 0; i < c->np && !err; i++)
		err = pthread_create(&th[nth++], NULL, prod_main, &r->prod[i]);
	if (!err)
		err = pthread_create(&th[nth++], NULL, obs_main, r);
	if (err) {
		fprintf(stderr, "pthread_create: %s\n", strerror(err));
		exit(2);
	}

	/* The watchdog, and the stop sequence: producers first (consumers
	 * keep going, so a producer waiting for room, or for a payload slot,
	 * gets it), then consumers (leaving what is in the queue), then the
	 * observer. */
	double t0 = now_s(), t_stop = 0, last_change = t0;
	double max_time = c->min_elements ? 20.0 * c->duration + 120.0
					  : c->duration;
	uint64_t last_prog = 0;
	int phase = 0;
	for (;;) {
		sleep_us(5000);
		double t = now_s();
		uint64_t prog = 0, verified = 0;
		for (unsigned i = 0; i < c->np; i++)
			/* relaxed: progress only. */
			prog += conq__load_relaxed(&r->prod[i].pub.done);
		for (unsigned i = 0; i < c->nc; i++)
			/* relaxed: progress only. */
			verified += conq__load_relaxed(&r->cons[i].pub.done);
		prog += verified;
		/* acquire (all three): pair with the threads' final
		 * release increments; only counts, joined below. */
		unsigned pe = conq__load_acquire(&r->prod_exited);
		unsigned ce = conq__load_acquire(&r->cons_exited);
		unsigned oe = conq__load_acquire(&r->obs_exited);
		prog += pe + ce + oe;
		if (prog != last_prog) {
			last_prog = prog;
			last_change = t;
		} else if (t - last_change > g_stall) {
			char why[128];
			snprintf(why, sizeof why,
				 "no element moved for %.0f s (%s)", g_stall,
				 phase == 0   ? "running"
				 : phase == 1 ? "stopping producers"
					      : "stopping consumers");
			dump(r, why);
			fail_stalled(c, "");
		}
		if (phase == 0 &&
		    ((t - t0 >= c->duration && verified >= c->min_elements) ||
		     t - t0 >= max_time)) {
			/* relaxed: see prod_main. */
			conq__store_relaxed(&r->stop_prod, 1);
			t_stop = t;
			phase = 1;
		}
		if (phase == 1 && pe == c->np) {
			/* relaxed: see prod_main. */
			conq__store_relaxed(&r->stop_cons, 1);
			phase = 2;
		}
		if (phase == 2 && ce == c->nc) {
			/* relaxed: see prod_main. */
			conq__store_relaxed(&r->stop_obs, 1);
			phase = 3;
		}
		if (phase == 3 && oe == 1)
			break;
	}
	for (unsigned i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	double secs = (t_stop > t0 ? t_stop : now_s()) - t0;

	uint64_t verified = 0;
	struct qwatch qw = {r, "start", 0};
	pthread_t qth;
	err = pthread_create(&qth, NULL, qwatch_main, &qw);
	if (err) {
		fprintf(stderr, "pthread_create: %s\n", strerror(err));
		exit(2);
	}
	quiescent_checks(r, &qw, &verified);
	/* relaxed: see qwatch_main. */
	conq__store_relaxed(&qw.done, 1);
	pthread_join(qth, NULL);

	uint64_t ops = 0, audits = 0;
	for (unsigned i = 0; i < c->np; i++) {
		ops += r->prod[i].pub.ops;
		audits += r->prod[i].audits;
	}
	for (unsigned i = 0; i < c->nc; i++) {
		ops += r->cons[i].pub.ops;
		audits += r->cons[i].audits;
	}
	bool ok = r->errors == 0;
	char mix[256];
	mix_name(r, mix, sizeof mix);
	printf("%-4s %s %ux%u cap=%" PRIu64 " start=0x%" PRIx64
	       " seed=0x%" PRIx64 ": %" PRIu64
	       " elements verified, %.2f s, %.2f M elem/s, %.2f M ops/s, "
	       "%" PRIu64 " audits, %" PRIu64 " observer samples\n",
	       ok ? "ok" : "FAIL", d->name, c->np, c->nc, r->cap, c->start,
	       c->seed, verified, secs, (double)verified / secs / 1e6,
	       (double)ops / secs / 1e6, audits, r->obs_samples);
	printf("     %s\n", mix);
	if (!ok) {
		printf("     %" PRIu64 " errors\n", r->errors);
		replay_line(c, "     ");
	}
	fflush(stdout);

	for (unsigned i = 0; i < c->nc; i++)
		free(r->cons[i].next);
	free(r->pay);
	free(r->prod);
	free(r->cons);
	d->destroy(r->q);
	free(r);
	if (ok)
		g_passed++;
	else
		g_failed++;
	*verified_out = verified;
	return ok;
}

/* ---- tiers --------------------------------------------------------------------- */

/* A plan row: k producers and l consumers (clipped to what the family
 * allows), a capacity class, indices near the 2^64 wrap or not, and the share
 * of the short tier's elements. */
struct plan_row {
	unsigned p, c;
	int capclass; /* 1, 2, 3: that capacity; 'S': small; 'L': large */
	bool wrap;
	double share;
};

static const struct plan_row plan[] = {
    {1, 1, 1, false, 0.02},   {2, 2, 1, true, 0.02},
    {1, 1, 2, true, 0.03},    {2, 1, 3, false, 0.03},
    {1, 2, 3, true, 0.03},    {1, 1, 'S', true, 0.10},
    {2, 2, 'S', false, 0.10}, {2, 1, 'S', true, 0.07},
    {1, 1, 'L', false, 0.30}, {2, 2, 'L', true, 0.30},
};
#define PLAN_ROWS (sizeof plan / sizeof plan[0])

enum tier { TIER_SHORT, TIER_QUICK, TIER_LONG };
static const char *const tier_names[] = {"short", "quick", "long"};
/* Seconds per run (short: at least; its element quota decides). */
static const double tier_secs[] = {0.2, 2.0, 60.0};
/* Verified elements per family in the short tier (before scaling). */
#define SHORT_TARGET 1e7

static size_t cap_of(const struct plan_row *pr, uint64_t *rng)
{
	size_t cap;
	if (pr->capclass == 'S')
		cap = (size_t)(4 + tq_rand_below(rng, 61)); /* 4..64 */
	else if (pr->capclass == 'L')
		cap = (size_t)1024 << tq_rand_below(rng, 7); /* 2^10..2^16 */
	else
		cap = (size_t)pr->capclass;
	return cap > TT_MAX_CAP ? TT_MAX_CAP : cap;
}

/* Indices start a little below the wrap: 2^64 - c * capacity - delta. */
static uint64_t start_of(size_t cap, uint64_t *rng)
{
	uint64_t back = tq_rand_below(rng, 3) * (uint64_t)cap + 1 +
			tq_rand_below(rng, 3 * (uint64_t)cap + 64);
	return (uint64_t)0 - back;
}

static unsigned clip(unsigned k, unsigned max)
{
	return k < max ? k : max;
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--tier=short|quick|long] [--family=NAME]... "
		"[--duration=S]\n"
		"       [--producers=P] [--consumers=C] [--capacity=N] "
		"[--start=I] [--min-elements=N]\n"
		"       [--seed=S] [--ops=OP,...] [--scale=X] [--stall=S] "
		"[--list]\n"
		"A tier runs its plan on every family (or those named); any "
		"of --producers,\n"
		"--consumers, --capacity, --start instead runs that one "
		"configuration per family\n"
		"(replay). Every run line gives its seed; a failure prints its "
		"replay command.\n",
		g_prog);
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || *s == '-')
		return false;
	*out = (uint64_t)v;
	return true;
}

static bool parse_pos_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= 0.0))
		return false;
	*out = v;
	return true;
}

/* --ops=NAME,NAME,...: the producer and consumer operations allowed. */
static bool parse_ops(const char *v)
{
	memset(g_pops, 0, sizeof g_pops);
	memset(g_cops, 0, sizeof g_cops);
	bool anyp = false, anyc = false;
	while (*v) {
		size_t n = strcspn(v, ",");
		bool found = false;
		for (unsigned i = 0; i < P_OPS; i++)
			if (strlen(p_names[i]) == n &&
			    strncmp(v, p_names[i], n) == 0)
				g_pops[i] = anyp = found = true;
		for (unsigned i = 0; i < C_OPS; i++)
			if (strlen(c_names[i]) == n &&
			    strncmp(v, c_names[i], n) == 0)
				g_cops[i] = anyc = found = true;
		if (!found)
			return false;
		v += n;
		if (*v == ',')
			v++;
	}
	/* peek, relaxed_peek and is_empty are followed by a poll. */
	return anyp && anyc;
}

static const char *opt_val(const char *arg, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(arg, name, n) == 0 && arg[n] == '=')
		return arg + n + 1;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *slash = strrchr(argv[0], '/');
	g_prog = slash ? slash + 1 : argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);

	enum tier tier = TIER_QUICK;
	bool list = false, single = false, have_seed = false;
	bool have_dur = false, have_min = false, have_start = false;
	uint64_t seed = 0, P = 0, C = 0, cap = 0, start = 0, min_el = 0;
	double duration = 0, scale = 1.0;
	const struct tq_desc *fams[64];
	size_t nfam = 0;

	const char *env = getenv("CONQ_TEST_SCALE");
	if (env != NULL && *env != '\0' &&
	    (!parse_pos_double(env, &scale) || scale <= 0.0)) {
		fprintf(stderr, "bad CONQ_TEST_SCALE '%s'\n", env);
		return 2;
	}
	for (int a = 1; a < argc; a++) {
		const char *v;
		bool ok = true;
		if (strcmp(argv[a], "--list") == 0) {
			list = true;
		} else if (strcmp(argv[a], "--help") == 0 ||
			   strcmp(argv[a], "-h") == 0) {
			usage(stdout);
			return 0;
		} else if ((v = opt_val(argv[a], "--tier")) != NULL) {
			if (strcmp(v, "short") == 0)
				tier = TIER_SHORT;
			else if (strcmp(v, "quick") == 0)
				tier = TIER_QUICK;
			else if (strcmp(v, "long") == 0)
				tier = TIER_LONG;
			else
				ok = false;
		} else if ((v = opt_val(argv[a], "--family")) != NULL) {
			size_t i = 0;
			while (i < tq_queue_count &&
			       strcmp(tq_queues[i].name, v) != 0)
				i++;
			if (i == tq_queue_count) {
				fprintf(stderr, "unknown family '%s' (--list)\n",
					v);
				return 2;
			}
			if (nfam < 64)
				fams[nfam++] = &tq_queues[i];
		} else if ((v = opt_val(argv[a], "--producers")) != NULL) {
			ok = parse_u64(v, &P) && P >= 1 && P <= MAX_SIDE;
			single = true;
		} else if ((v = opt_val(argv[a], "--consumers")) != NULL) {
			ok = parse_u64(v, &C) && C >= 1 && C <= MAX_SIDE;
			single = true;
		} else if ((v = opt_val(argv[a], "--capacity")) != NULL) {
			ok = parse_u64(v, &cap) && cap >= 1 &&
			     cap <= TT_MAX_CAP;
			single = true;
		} else if ((v = opt_val(argv[a], "--start")) != NULL) {
			ok = parse_u64(v, &start);
			have_start = single = true;
		} else if ((v = opt_val(argv[a], "--duration")) != NULL) {
			ok = parse_pos_double(v, &duration);
			have_dur = true;
		} else if ((v = opt_val(argv[a], "--min-elements")) != NULL) {
			ok = parse_u64(v, &min_el);
			have_min = true;
		} else if ((v = opt_val(argv[a], "--seed")) != NULL) {
			ok = parse_u64(v, &seed);
			have_seed = true;
		} else if ((v = opt_val(argv[a], "--ops")) != NULL) {
			ok = parse_ops(v);
			g_ops_arg = v;
		} else if ((v = opt_val(argv[a], "--scale")) != NULL) {
			ok = parse_pos_double(v, &scale) && scale > 0.0;
		} else if ((v = opt_val(argv[a], "--stall")) != NULL) {
			ok = parse_pos_double(v, &g_stall) && g_stall > 0.0;
		} else {
			ok = false;
		}
		if (!ok) {
			fprintf(stderr, "bad argument '%s' (capacity at most "
					"%zu in this build)\n",
				argv[a], TT_MAX_CAP);
			usage(stderr);
			return 2;
		}
	}
	if (nfam == 0)
		for (size_t i = 0; i < tq_queue_count && i < 64; i++)
			fams[nfam++] = &tq_queues[i];
	if (!have_seed) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = splitmix((uint64_t)ts.tv_nsec ^
				((uint64_t)ts.tv_sec << 20) ^
				(uint64_t)getpid());
	}
	/* ThreadSanitizer runs everything 5-15x slower: a tenth of the
	 * elements (the short tier's ctest entry stays within minutes). */
	double eff_scale = TT_TSAN ? scale * 0.1 : scale;

	if (list) {
		printf("families (tests/queues.h):\n");
		for (size_t i = 0; i < tq_queue_count; i++) {
			const struct tq_desc *d = &tq_queues[i];
			char mp[16], mc[16];
			snprintf(mp, sizeof mp, "%u", d->max_producers);
			snprintf(mc, sizeof mc, "%u", d->max_consumers);
			printf("  %-12s producers %s, consumers %s, %s, "
			       "start-index hook %s\n",
			       d->name,
			       d->max_producers == TQ_ANY ? "any" : mp,
			       d->max_consumers == TQ_ANY ? "any" : mc,
			       d->bounded ? "bounded" : "unbounded",
			       d->create_at ? "yes" : "no");
		}
		printf("plan per family (P x C clipped to the family; "
		       "capacity S: 4..64, L: 1024..65536, at most %zu here; "
		       "short tier: share of %.0f elements):\n",
		       TT_MAX_CAP, SHORT_TARGET * eff_scale);
		for (size_t i = 0; i < PLAN_ROWS; i++) {
			char cc[8];
			if (plan[i].capclass == 'S' || plan[i].capclass == 'L')
				snprintf(cc, sizeof cc, "%c", plan[i].capclass);
			else
				snprintf(cc, sizeof cc, "%d", plan[i].capclass);
			printf("  %ux%u capacity %s, %s, %.0f%%\n", plan[i].p,
			       plan[i].c, cc,
			       plan[i].wrap ? "indices near 2^64" : "indices 0",
			       plan[i].share * 100);
		}
		printf("tiers: short (0.2 s per run and element quotas), "
		       "quick (%g s per run), long (%g s per run)\n",
		       tier_secs[TIER_QUICK], tier_secs[TIER_LONG]);
		return 0;
	}

	printf("conq-torture: %s, seed 0x%" PRIx64 ", index bits %d%s, "
	       "scale %g\n",
	       single ? "one configuration" : tier_names[tier], seed,
	       TT_INDEX_BITS, TT_TSAN ? ", ThreadSanitizer (elements / 10)" : "",
	       eff_scale);
	for (size_t f = 0; f < nfam; f++) {
		const struct tq_desc *d = fams[f];
		if (single) {
			struct cfg c = {d,
					(unsigned)(P ? P : clip(2, d->max_producers)),
					(unsigned)(C ? C : clip(2, d->max_consumers)),
					cap ? (size_t)cap : 64,
					start,
					have_dur ? duration : 5.0,
					min_el,
					seed};
			if (c.np > d->max_producers ||
			    c.nc > d->max_consumers) {
				printf("FAIL %s: %ux%u is more than the family "
				       "allows\n",
				       d->name, c.np, c.nc);
				g_failed++;
				continue;
			}
			if (have_start && start != 0 && d->create_at == NULL) {
				printf("FAIL %s: no start-index hook\n",
				       d->name);
				g_failed++;
				continue;
			}
			uint64_t v;
			run_one(&c, &v);
			continue;
		}
		uint64_t target = (uint64_t)(SHORT_TARGET * eff_scale);
		uint64_t total = 0;
		double t0 = now_s();
		for (size_t i = 0; i < PLAN_ROWS; i++) {
			const struct plan_row *pr = &plan[i];
			uint64_t rseed = splitmix(seed ^ splitmix(f * 1000 + i));
			uint64_t rng = rng_from(rseed, 999);
			struct cfg c;
			c.d = d;
			c.np = clip(pr->p, d->max_producers);
			c.nc = clip(pr->c, d->max_consumers);
			c.cap = cap_of(pr, &rng);
			c.start = pr->wrap && d->create_at != NULL
				      ? start_of(c.cap, &rng)
				      : 0;
			c.seed = rseed;
			c.duration = have_dur ? duration : tier_secs[tier];
			c.min_elements = 0;
			if (have_min)
				c.min_elements = min_el;
			else if (tier == TIER_SHORT && !have_dur)
				c.min_elements =
				    (uint64_t)(SHORT_TARGET * eff_scale *
					       pr->share);
			/* The last row tops the family up to the target. */
			if (tier == TIER_SHORT && !have_dur && !have_min &&
			    i == PLAN_ROWS - 1 && total < target &&
			    target - total > c.min_elements)
				c.min_elements = target - total;
			uint64_t v = 0;
			run_one(&c, &v);
			total += v;
		}
		double secs = now_s() - t0;
		bool short_quota = tier == TIER_SHORT && !have_dur && !have_min;
		printf("%-4s %s: %zu runs, %" PRIu64
		       " elements verified in %.1f s%s",
		       short_quota && total < target ? "FAIL" : "==", d->name,
		       PLAN_ROWS, total, secs, short_quota ? "" : "\n");
		if (short_quota) {
			printf(" (target %" PRIu64 ")\n", target);
			if (total < target)
				g_failed++;
		}
	}
	if (TT_INDEX_BITS < 64) {
		uint64_t waits, gave_up;
		tq_gate_stats(&waits, &gave_up);
		printf("     narrow-build gate (tests/queues.h): %" PRIu64
		       " waits for a long call, %" PRIu64 " given up\n",
		       waits, gave_up);
	}
	printf("%u passed, %u failed\n", g_passed, g_failed);
	return g_failed ? 1 : 0;
}
