/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stress/queue_tests.c - conq-stress tests through the real queue code, on
 * every family of the tests' descriptor table (tests/queues.h, tq_queues):
 *
 *   q.<shape>.<family>        the queue contract, shape by shape;
 *   q.<shape>.wrap.<family>   the same with every index started a few
 *                             operations below 2^64 (conq__<family>_init_at);
 *   mm.<label>.<family>       one test per labelled pair of
 *                             docs/memory-model.md, exercising that pair's
 *                             publication through the code path that holds it.
 *
 * Each state holds a small queue built in place (memsize/init) and the plain
 * payloads of its elements; elements are pointers to those payloads. A
 * growing family (no memsize: linked, chunked, growable, unbounded) is
 * created for each use of a state instead (create, or create_at for wrap)
 * and destroyed by the arbiter; the tests' tq_chunk gives it chunks of 2
 * slots at these capacities, so every test crosses chunk boundaries
 * (hand-overs, JUMPs, spare chunks) all the time. An unbounded family runs
 * the shapes that do not need a full queue; a family whose size() is the
 * consumer's only (GROW_CSIZE) runs none with a size() observer.
 * Producers write a payload with plain stores right before offering it;
 * consumers check it with plain loads right after taking it, so a broken
 * release/acquire pair shows as a FORBIDDEN "payload not visible" here and
 * as a data race under ThreadSanitizer. The arbiter drains what is left and
 * checks exactly-once delivery and FIFO order (per producer and, the
 * families being FIFO_TOTAL, the initial contents first).
 *
 * The value rings' zero-copy calls, which the tests' table does not have,
 * are two more operations here (struct qvops): OP_CLAIM (claim a slot,
 * write the element into it, commit) and OP_PEEK_CLAIM (peek_claim the
 * head, read the element and its payload in place, release), in publish
 * and recycle (where peek_claim/release replaces peek and the take).
 *
 * Shapes (the actors; the table of each is below):
 *  publish    P producers offer (offer, offer_bulk, fill, ...) || C
 *             consumers take (poll, poll_burst, drain, ...);
 *  recycle    a full queue; the consumer peeks the head and reads its
 *             payload, then consumes it || producer(s) wait for room (a
 *             successful offer, is_empty(), size()) and then overwrite that
 *             payload: the consumer's reads must happen-before the reuse;
 *  nonempty   producers offer || the consumer polls, probes is_empty() or
 *             size(), polls again: "not empty" must make that poll succeed;
 *  offer_poll P single offers || C single polls on a queue prefilled with k
 *             elements; the arbiter searches for a sequential order of the
 *             operations that explains the returns and the final contents
 *             (the linearizable set);
 *  peek       producer offers two || peek, then poll: equal (or peek NULL);
 *  peek_race  producer offers two || consumer 0 peeks || consumer 1 polls;
 *  size       producer offers || consumer polls || an observer reads size()
 *             and is_empty(): always within [0, capacity];
 *  handback   (mpmc_array, white-box) producer(s) claim `per`
 *             positions with one CAS (as fill does), publish the first j of
 *             them (j by state: 0 .. per - 1) and give the rest back, as
 *             fill does when its supplier stops: the tail moves back down
 *             if no producer claimed after them, else they become
 *             tombstones || the consumer polls (or peeks, then polls) on,
 *             waiting for claimed positions and passing tombstones; the
 *             arbiter drains and checks that the queue is empty and whole.
 *             On the multi-producer value rings the same through their own
 *             calls: fill with a supplier that stops after j (the ring
 *             claims first and hands the rest back), or claim_burst, commit
 *             the first j, abort the rest (tombstones);
 *  park       producers put (blocking) into a capacity-2 queue || consumers
 *             take (blocking) their share, each call with a 5 s watchdog
 *             deadline; put and take park at once (no watching first), so
 *             every hand-over that finds the other side not there yet is a
 *             park/wake race on the eventcount. A call that reaches its
 *             watchdog is a lost wake-up (the other side finished long
 *             before); also the rmw variant (the eventcount's mode without
 *             membarrier) and the spin one (the default watch before the
 *             park).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

#include "conq/conq.h"
#include "conq/impl/testing.h"
#include "queues.h"

#define QMAXE  12 /* payloads per state: elements offered and prefilled */
#define QMAXL  16 /* elements a list (a consumer's, the drain's) may hold */
#define QTRIES 400

enum q_scen {
	QS_PUBLISH,
	QS_RECYCLE,
	QS_NONEMPTY,
	QS_OFFER_POLL,
	QS_PEEK,
	QS_PEEK_RACE,
	QS_SIZE,
	QS_HANDBACK,
	QS_PARK
};

/* park: the watchdog on every put and take. */
#define Q_WATCHDOG_NS (5 * 1000000000LL)

enum q_op {
	OP_OFFER,
	OP_BULK,
	OP_BURST,
	OP_FILL,
	OP_RELAXED_OFFER,
	OP_POLL,
	OP_POLL_BURST,
	OP_DRAIN,
	OP_RELAXED_POLL,
	OP_IS_EMPTY,
	OP_SIZE,
	OP_PEEK, /* handback: the consumer peeks before each poll */
	OP_PUT,
	OP_TAKE,
	OP_CLAIM,     /* value rings: claim, write in place, commit */
	OP_PEEK_CLAIM /* value rings: peek_claim, read in place, release */
};

/* The value rings' zero-copy calls, at 8-byte elements (the tests' `void *`
 * by value), which the tests' table (tests/queues.h) leaves out: claim /
 * commit, claim_burst / commit_burst and, multi-producer, abort;
 * peek_claim / release. NULL where a ring has none. */
struct qvops {
	const char *name;
	void *(*claim)(void *q);
	bool (*commit)(void *q, void *slot);
	size_t (*claim_burst)(void *q, size_t n, void **first);
	bool (*commit_burst)(void *q, void *first, size_t k);
	bool (*abort)(void *q, void *first, size_t k);
	const void *(*peek_claim)(void *q);
	bool (*release)(void *q, const void *slot);
};

#define QV_WRAP(f)                                                             \
	static void *qv_##f##_claim(void *q)                                   \
	{                                                                      \
		return conq_##f##_claim((conq_##f *)q);                        \
	}                                                                      \
	static bool qv_##f##_commit(void *q, void *slot)                       \
	{                                                                      \
		return conq_##f##_commit((conq_##f *)q, slot);                 \
	}                                                                      \
	static size_t qv_##f##_claim_burst(void *q, size_t n, void **first)    \
	{                                                                      \
		return conq_##f##_claim_burst((conq_##f *)q, n, first);        \
	}                                                                      \
	static bool qv_##f##_commit_burst(void *q, void *first, size_t k)      \
	{                                                                      \
		return conq_##f##_commit_burst((conq_##f *)q, first, k);       \
	}                                                                      \
	static const void *qv_##f##_peek_claim(void *q)                        \
	{                                                                      \
		return conq_##f##_peek_claim((conq_##f *)q);                   \
	}                                                                      \
	static bool qv_##f##_release(void *q, const void *slot)                \
	{                                                                      \
		return conq_##f##_release((conq_##f *)q, slot);                \
	}
#define QV_ABORT(f)                                                            \
	static bool qv_##f##_abort(void *q, void *first, size_t k)             \
	{                                                                      \
		return conq_##f##_abort((conq_##f *)q, first, k);              \
	}

QV_WRAP(spsc_value)
QV_WRAP(mpsc_value)
QV_WRAP(spmc_value)
QV_WRAP(mpmc_value)
QV_ABORT(mpsc_value)
QV_ABORT(mpmc_value)

static const struct qvops qvops[] = {
    {"spsc_value", qv_spsc_value_claim, qv_spsc_value_commit,
     qv_spsc_value_claim_burst, qv_spsc_value_commit_burst, NULL,
     qv_spsc_value_peek_claim, qv_spsc_value_release},
    {"mpsc_value", qv_mpsc_value_claim, qv_mpsc_value_commit,
     qv_mpsc_value_claim_burst, qv_mpsc_value_commit_burst, qv_mpsc_value_abort,
     qv_mpsc_value_peek_claim, qv_mpsc_value_release},
    {"spmc_value", qv_spmc_value_claim, qv_spmc_value_commit,
     qv_spmc_value_claim_burst, qv_spmc_value_commit_burst, NULL,
     qv_spmc_value_peek_claim, qv_spmc_value_release},
    {"mpmc_value", qv_mpmc_value_claim, qv_mpmc_value_commit,
     qv_mpmc_value_claim_burst, qv_mpmc_value_commit_burst, qv_mpmc_value_abort,
     qv_mpmc_value_peek_claim, qv_mpmc_value_release}};

static const struct qvops *qvops_of(const char *family)
{
	for (size_t i = 0; i < sizeof qvops / sizeof qvops[0]; i++)
		if (strcmp(qvops[i].name, family) == 0)
			return &qvops[i];
	return NULL;
}

struct qparam {
	const struct tq_desc *d;
	enum q_scen scen;
	unsigned np, nc; /* producers, consumers */
	enum q_op pop;	 /* producers' op (recycle: how room is seen) */
	enum q_op cop;	 /* consumers' op */
	enum q_op probe; /* nonempty: OP_IS_EMPTY or OP_SIZE */
	size_t cap;	 /* requested capacity */
	int prefill;	 /* elements offered by init; -1: capacity() */
	unsigned per;	 /* elements per producer */
	bool wrap;	 /* indices start just below 2^64 */
	bool may_fail;	 /* publish: offers may fail (queue smaller) */
	unsigned spin;	 /* park: ns put/take watch before parking */
	bool rmw;	 /* park: eventcounts in the mode without membarrier */
	bool aborts;	 /* handback, value rings: abort, not fill */
	size_t qoff;	 /* offset of the queue in the state */
	/* The value rings' zero-copy calls (set by q_add), else NULL. */
	const struct qvops *vo;
};

struct qpay {
	uint64_t tag, a, b, c;
};

struct qlist {
	uint8_t id[QMAXL];
	unsigned n;
	int bad; /* a payload that did not check */
};

struct qstate {
	const struct qparam *p;
	void *q;
	unsigned npre;	     /* elements prefilled */
	uint32_t offered[2]; /* producer i: bit k set = element k offered */
	unsigned recycled;   /* producers that reused the head's payload */
	int64_t v[4];	     /* shape-specific observations */
	unsigned back;	     /* handback: producers whose positions went
				back to the tail */
	struct qlist got[2]; /* what each consumer took, in order */
	struct qpay pay[QMAXE];
};

/* ---- payloads and element ids ---- */

static inline unsigned prod_id(const struct qparam *p, unsigned i, unsigned k)
{
	return i * p->per + k;
}
static inline unsigned pre_id(const struct qparam *p, unsigned m)
{
	return p->np * p->per + m;
}

static inline void pay_write(struct qstate *s, unsigned id)
{
	struct qpay *y = &s->pay[id];
	uint64_t t = id + 1;
	y->tag = t;
	y->a = t * 0x9E3779B97F4A7C15ULL;
	y->b = ~t;
	y->c = t ^ 0x5555AAAA5555AAAAULL;
}

/* Overwrite a consumed element's payload (the producer reusing a buffer). */
static inline void pay_recycle(struct qstate *s, unsigned id)
{
	struct qpay *y = &s->pay[id];
	y->tag = 0xdead;
	y->a = 0xdeadbeef;
	y->b = 0;
	y->c = 1;
}

static inline bool pay_ok(const struct qstate *s, unsigned id)
{
	const struct qpay *y = &s->pay[id];
	uint64_t t = id + 1;
	return y->tag == t && y->a == t * 0x9E3779B97F4A7C15ULL && y->b == ~t &&
	       y->c == (t ^ 0x5555AAAA5555AAAAULL);
}

static inline void *elem(struct qstate *s, unsigned id)
{
	return &s->pay[id];
}

/* Element -> id; QMAXE for a pointer that is not one of ours. */
static inline unsigned id_of(const struct qstate *s, const void *e)
{
	const struct qpay *y = e;
	if (y < s->pay || y >= s->pay + QMAXE)
		return QMAXE;
	return (unsigned)(y - s->pay);
}

static inline void list_add(struct qstate *s, struct qlist *l, void *e,
			    bool check)
{
	unsigned id = id_of(s, e);
	if (id == QMAXE || (check && !pay_ok(s, id)))
		l->bad = 1;
	if (l->n < QMAXL)
		l->id[l->n++] = (uint8_t)(id == QMAXE ? 255 : id);
	else
		l->bad = 1;
}

/* ---- state init: a fresh queue in place, prefilled ---- */

static void q_init(void *st, const struct cs_test *t, uint64_t k)
{
	struct qstate *s = st;
	const struct qparam *p = t->param;
	const struct tq_desc *d = p->d;
	char *mem = (char *)st + p->qoff;
	s->p = p;
	if (p->scen == QS_PARK) {
		/* Before the queue's init, which sets its eventcounts' mode. */
		conq__test_block_spin(p->spin);
		conq__test_eventcount_force_rmw(p->rmw);
	}
	/* wrap: the queue's first index is 1..5 operations below 2^64, so the
	 * prefill and the racing operations cross the wrap. */
	if (d->memsize == NULL)
		s->q = p->wrap ? d->create_at(p->cap, UINT64_MAX - k % 5)
			       : d->create(p->cap);
	else
		s->q = p->wrap ? d->init_at(mem, p->cap, UINT64_MAX - k % 5)
			       : d->init(mem, p->cap);
	if (s->q == NULL)
		abort(); /* the parameters are the harness's: a harness bug */
	unsigned n =
	    p->prefill < 0 ? (unsigned)d->capacity(s->q) : (unsigned)p->prefill;
	s->npre = n;
	if (p->scen == QS_HANDBACK)
		s->v[0] = (int64_t)k; /* q_handback_put: how many to publish */
	for (unsigned m = 0; m < n; m++) {
		unsigned id = pre_id(p, m);
		pay_write(s, id);
		if (!d->offer(s->q, elem(s, id)))
			abort();
	}
}

/* ---- producers ---- */

struct qfill {
	struct qstate *s;
	unsigned i, k, n;
	unsigned dry; /* pauses before running dry (handback) */
};

static void *q_supply(void *ctx)
{
	struct qfill *f = ctx;
	if (f->k == f->n) {
		/* handback: hold the claims a while, so that the consumer
		 * meets them claimed and waits at them before they go back */
		for (unsigned u = 0; u < f->dry; u++)
			conq__cpu_relax();
		return NULL;
	}
	unsigned id = prod_id(f->s->p, f->i, f->k);
	pay_write(f->s, id);
	f->s->offered[f->i] |= 1u << f->k;
	f->k++;
	return elem(f->s, id);
}

/* Offer producer i's elements with op; record which were offered. */
static void q_offer_all(struct qstate *s, unsigned i, enum q_op op)
{
	const struct qparam *p = s->p;
	const struct tq_desc *d = p->d;
	void *es[QMAXE];
	unsigned n = p->per;
	for (unsigned k = 0; k < n; k++) {
		unsigned id = prod_id(p, i, k);
		pay_write(s, id);
		es[k] = elem(s, id);
	}
	switch (op) {
	case OP_BULK:
		if (d->offer_bulk(s->q, es, n) == n)
			s->offered[i] = (1u << n) - 1;
		break;
	case OP_BURST: {
		size_t m = d->offer_burst(s->q, es, n);
		s->offered[i] = (uint32_t)((1u << m) - 1);
		break;
	}
	case OP_FILL: {
		struct qfill f = {s, i, 0, n, 0};
		size_t m = d->fill(s->q, q_supply, &f, n);
		/* Everything supplied must have been enqueued. */
		if (m != f.k)
			s->v[3] = 1;
		break;
	}
	case OP_CLAIM:
		/* In place: the element's bytes written into the claimed
		 * slot, then published by commit. */
		for (unsigned k = 0; k < n; k++) {
			void *slot = p->vo->claim(s->q);
			if (slot == NULL)
				continue;
			memcpy(slot, &es[k], sizeof es[k]);
			if (p->vo->commit(s->q, slot))
				s->offered[i] |= 1u << k;
			else
				s->v[3] = 1;
		}
		break;
	default:
		for (unsigned k = 0; k < n; k++) {
			bool ok = op == OP_RELAXED_OFFER
				      ? d->relaxed_offer(s->q, es[k])
				      : d->offer(s->q, es[k]);
			if (ok)
				s->offered[i] |= 1u << k;
		}
		break;
	}
}

/* recycle: wait (bounded) for room, seen through op, then reuse the head's
 * payload. The head is the first prefilled element. */
static void q_recycle(struct qstate *s, unsigned i)
{
	const struct qparam *p = s->p;
	const struct tq_desc *d = p->d;
	unsigned id = prod_id(p, i, 0);
	void *e = elem(s, id);
	pay_write(s, id);
	unsigned spins = 0;
	for (unsigned t = 0; t < QTRIES; t++) {
		bool room;
		switch (p->pop) {
		case OP_BULK:
			room = d->offer_bulk(s->q, &e, 1) == 1;
			break;
		case OP_RELAXED_OFFER:
			room = d->relaxed_offer(s->q, e);
			break;
		case OP_IS_EMPTY:
			room = d->is_empty(s->q);
			break;
		case OP_SIZE:
			room = d->size(s->q) < s->npre;
			break;
		case OP_CLAIM: {
			void *slot = p->vo->claim(s->q);
			room = slot != NULL;
			if (room) {
				memcpy(slot, &e, sizeof e);
				(void)p->vo->commit(s->q, slot);
			}
			break;
		}
		default:
			room = d->offer(s->q, e);
			break;
		}
		if (room) {
			if (p->pop != OP_IS_EMPTY && p->pop != OP_SIZE)
				s->offered[i] = 1;
			/* A plain reuse: safe only because the consumer's
			 * reads happen-before the room we just saw. */
			pay_recycle(s, pre_id(p, 0));
			__atomic_fetch_add(&s->recycled, 1, __ATOMIC_RELAXED);
			return;
		}
		cs_spin(&spins);
	}
}

/* handback: producer i claims `per` positions with one CAS (as fill),
 * publishes the first j of them (j = (state + i) mod per: 0 .. per - 1,
 * each after its cell is free) and gives the others back
 * (conq__mpmc_unclaim: [Q12], or tombstones through [Q4]). */
static void q_handback_value(struct qstate *s, unsigned i);

static void q_handback_put(struct qstate *s, unsigned i)
{
	const struct qparam *p = s->p;
	if (p->vo != NULL) {
		q_handback_value(s, i);
		return;
	}
	conq_mpmc_array *q = s->q;
	for (unsigned k = 0; k < p->per; k++)
		pay_write(s, prod_id(p, i, k));
	conq__idx_t t = 0;
	uint64_t m = conq__mpmc_claim_put(q, p->per, 1, &t);
	uint64_t j = ((uint64_t)s->v[0] + i) % p->per;
	if (j > m)
		j = m;
	for (uint64_t u = 0; u < j; u++) {
		conq__idx_t pos = conq__idx_add(t, u);
		conq__mpmc_wait_free(q, pos);
		conq__mpmc_publish(q, pos, elem(s, prod_id(p, i, (unsigned)u)));
		s->offered[i] |= 1u << u;
	}
	if (j < m &&
	    conq__mpmc_unclaim(q, conq__idx_add(t, j), conq__idx_add(t, m)))
		__atomic_fetch_add(&s->back, 1, __ATOMIC_RELAXED);
}

/* handback on a multi-producer value ring: producer i supplies j =
 * (state + i) mod per of its `per` elements, either through fill (which
 * claims before it asks the supplier, then hands the unfilled claims back
 * to pidx, [VM3] / [V11], or publishes them as tombstones) or, with
 * `aborts`, through claim_burst of per, commit_burst of the first j and
 * abort of the rest (tombstones, [VM1] / [V4]). */
static void q_handback_value(struct qstate *s, unsigned i)
{
	const struct qparam *p = s->p;
	unsigned j = (unsigned)(((uint64_t)s->v[0] + i) % p->per);
	if (!p->aborts) {
		/* 0 to 384 pauses before the supplier runs dry, by state */
		unsigned dry = (unsigned)((uint64_t)s->v[0] / p->per % 4) * 128;
		struct qfill f = {s, i, 0, j, dry};
		size_t m = p->d->fill(s->q, q_supply, &f, p->per);
		if (m != f.k)
			s->v[3] = 1; /* a supplied element not enqueued */
		return;
	}
	void *first = NULL;
	size_t m = p->vo->claim_burst(s->q, p->per, &first);
	if (j > m)
		j = (unsigned)m;
	for (unsigned u = 0; u < j; u++) {
		unsigned id = prod_id(p, i, u);
		pay_write(s, id);
		void *e = elem(s, id);
		memcpy((char *)first + u * sizeof e, &e, sizeof e);
	}
	if (j > 0) {
		if (p->vo->commit_burst(s->q, first, j))
			s->offered[i] |= (1u << j) - 1;
		else
			s->v[3] = 1;
	}
	if (j < m &&
	    !p->vo->abort(s->q, (char *)first + j * sizeof(void *), m - j))
		s->v[3] = 1;
}

static void q_producer(struct qstate *s, unsigned i)
{
	const struct qparam *p = s->p;
	switch (p->scen) {
	case QS_RECYCLE:
		q_recycle(s, i);
		break;
	case QS_PUBLISH:
		q_offer_all(s, i, p->pop);
		break;
	case QS_HANDBACK:
		q_handback_put(s, i);
		break;
	case QS_PARK: {
		unsigned long z = conq__test_eventcount_sleeps();
		for (unsigned k = 0; k < p->per; k++) {
			unsigned id = prod_id(p, i, k);
			pay_write(s, id);
			if (p->d->put_until(s->q, elem(s, id),
					    conq_now_ns() + Q_WATCHDOG_NS))
				s->offered[i] |= 1u << k;
			else /* relaxed: a count, read by the arbiter */
				__atomic_fetch_add(&s->v[0], 1,
						   __ATOMIC_RELAXED);
		}
		/* relaxed: a count, read by the arbiter */
		__atomic_fetch_add(&s->v[2],
				   (int64_t)(conq__test_eventcount_sleeps() - z),
				   __ATOMIC_RELAXED);
		break;
	}
	default:
		q_offer_all(s, i, OP_OFFER);
		break;
	}
}

/* ---- consumers ---- */

struct qdrain {
	struct qstate *s;
	struct qlist *l;
	bool check;
};

static void q_consume_cb(void *ctx, void *e)
{
	struct qdrain *c = ctx;
	list_add(c->s, c->l, e, c->check);
}

/* Take up to n elements with op into l; returns how many. */
static unsigned q_take(struct qstate *s, struct qlist *l, enum q_op op,
		       unsigned n, bool check)
{
	const struct tq_desc *d = s->p->d;
	unsigned got = 0;
	switch (op) {
	case OP_POLL_BURST: {
		void *out[QMAXL];
		size_t m = d->poll_burst(s->q, out, n);
		for (size_t k = 0; k < m; k++)
			list_add(s, l, out[k], check);
		return (unsigned)m;
	}
	case OP_DRAIN: {
		struct qdrain c = {s, l, check};
		return (unsigned)d->drain(s->q, q_consume_cb, &c, n);
	}
	case OP_PEEK_CLAIM:
		/* In place: the element read from the claimed slot and its
		 * payload checked before the release. */
		for (unsigned k = 0; k < n; k++) {
			const void *slot = s->p->vo->peek_claim(s->q);
			if (slot == NULL)
				continue;
			void *e;
			memcpy(&e, slot, sizeof e);
			list_add(s, l, e, check);
			if (!s->p->vo->release(s->q, slot))
				l->bad = 1;
			got++;
		}
		return got;
	default:
		for (unsigned k = 0; k < n; k++) {
			void *e = op == OP_RELAXED_POLL ? d->relaxed_poll(s->q)
							: d->poll(s->q);
			if (e != NULL) {
				list_add(s, l, e, check);
				got++;
			}
		}
		return got;
	}
}

/* Peek and check the payload of what it returns (l->bad if not intact):
 * 0 if NULL, else the element's id + 1. */
static int64_t q_peek_check(struct qstate *s, struct qlist *l)
{
	void *e = s->p->d->peek(s->q);
	unsigned id = e ? id_of(s, e) : QMAXE;
	if (e != NULL && (id == QMAXE || !pay_ok(s, id)))
		l->bad = 1;
	return e == NULL ? 0 : (int64_t)id + 1;
}

/* One poll into l: 0 if NULL, else the element's id + 1. */
static int64_t q_poll_id(struct qstate *s, struct qlist *l)
{
	void *x = s->p->d->poll(s->q);
	if (x == NULL)
		return 0;
	int64_t v = (int64_t)id_of(s, x) + 1;
	list_add(s, l, x, true);
	return v;
}

static void q_consumer(struct qstate *s, unsigned j)
{
	const struct qparam *p = s->p;
	const struct tq_desc *d = p->d;
	struct qlist *l = &s->got[j];
	switch (p->scen) {
	case QS_PUBLISH: {
		/* As many attempts as elements exist; each may find none. */
		unsigned total = p->np * p->per + s->npre;
		for (unsigned k = 0; k < total; k++)
			q_take(s, l, p->cop, 1, true);
		break;
	}
	case QS_OFFER_POLL:
		q_take(s, l, OP_POLL, 1, true);
		break;
	case QS_RECYCLE: {
		if (p->cop == OP_PEEK_CLAIM) {
			/* The head in place: its payload read while the slot
			 * is claimed; the release makes the room. */
			const void *slot = p->vo->peek_claim(s->q);
			void *e = NULL;
			if (slot != NULL)
				memcpy(&e, slot, sizeof e);
			unsigned hid = e ? id_of(s, e) : QMAXE;
			if (e == NULL)
				s->v[0] = 0;
			else
				s->v[0] = hid < QMAXE && pay_ok(s, hid) ? 1 : 2;
			if (slot != NULL) {
				list_add(s, l, e, false);
				if (!p->vo->release(s->q, slot))
					l->bad = 1;
			}
			s->v[1] = l->n == 1 && e != NULL && l->id[0] == hid;
			break;
		}
		void *e = d->peek(s->q);
		unsigned hid = e ? id_of(s, e) : QMAXE;
		s->v[0] = e == NULL ? 0 : hid < QMAXE && pay_ok(s, hid) ? 1 : 2;
		/* Consume it; its payload may be reused from now on, so it
		 * is not checked again. */
		unsigned spins = 0;
		for (unsigned t = 0; t < QTRIES; t++) {
			if (q_take(s, l, p->cop, 1, false))
				break;
			cs_spin(&spins);
		}
		s->v[1] = l->n == 1 && e != NULL && l->id[0] == hid;
		break;
	}
	case QS_NONEMPTY: {
		s->v[0] = q_take(s, l, OP_POLL, 1, true);
		s->v[1] = p->probe == OP_SIZE ? d->size(s->q) > 0
					      : !d->is_empty(s->q);
		s->v[2] = q_take(s, l, OP_POLL, 1, true);
		break;
	}
	case QS_PEEK:
		s->v[0] = q_peek_check(s, l);
		s->v[1] = q_poll_id(s, l);
		break;
	case QS_PEEK_RACE:
		if (j == 0)
			s->v[0] = q_peek_check(s, l);
		else
			s->v[2] = q_poll_id(s, l);
		break;
	case QS_SIZE:
		q_take(s, l, OP_POLL, 1, true);
		break;
	case QS_PARK: {
		/* This consumer's share: all of them are put, so each take
		 * returns unless a wake-up is lost. */
		unsigned total = p->np * p->per + s->npre;
		unsigned share = total / p->nc + (j == 0 ? total % p->nc : 0);
		unsigned long z = conq__test_eventcount_sleeps();
		for (unsigned k = 0; k < share; k++) {
			void *e = d->take_until(s->q,
						conq_now_ns() + Q_WATCHDOG_NS);
			if (e != NULL)
				list_add(s, l, e, true);
			else /* relaxed: a count, read by the arbiter */
				__atomic_fetch_add(&s->v[1], 1,
						   __ATOMIC_RELAXED);
		}
		/* relaxed: a count, read by the arbiter */
		__atomic_fetch_add(&s->v[2],
				   (int64_t)(conq__test_eventcount_sleeps() - z),
				   __ATOMIC_RELAXED);
		break;
	}
	case QS_HANDBACK: {
		/* One more attempt than elements may exist: the polls that
		 * find no element return NULL. peek: with the only consumer,
		 * a non-NULL peek is what the next poll returns (it passes
		 * tombstones as that poll does). */
		unsigned total = p->np * p->per + s->npre + 1;
		for (unsigned k = 0; k < total; k++) {
			int64_t pk = p->cop == OP_PEEK ? q_peek_check(s, l) : 0;
			int64_t got = q_poll_id(s, l);
			if (pk != 0 && pk != got)
				l->bad = 1;
		}
		break;
	}
	}
}

static void q_observer(struct qstate *s)
{
	const struct tq_desc *d = s->p->d;
	s->v[0] = (int64_t)d->size(s->q);
	s->v[1] = d->is_empty(s->q);
	s->v[2] = (int64_t)d->size(s->q);
}

CS_ACTOR(q_p0, struct qstate, s, r)
{
	q_producer(s, 0);
}
CS_ACTOR(q_p1, struct qstate, s, r)
{
	q_producer(s, 1);
}
CS_ACTOR(q_c0, struct qstate, s, r)
{
	q_consumer(s, 0);
}
CS_ACTOR(q_c1, struct qstate, s, r)
{
	q_consumer(s, 1);
}
CS_ACTOR(q_obs, struct qstate, s, r)
{
	q_observer(s);
}

/* ---- the arbiter: drain, exactly-once, order ---- */

/* Drain what is left (poll until the queue is empty: an mpmc poll may
 * return NULL for a closed position with elements behind it). */
static void q_drain_rest(struct qstate *s, struct qlist *l)
{
	const struct tq_desc *d = s->p->d;
	for (unsigned k = 0; k < 4 * QMAXL; k++) {
		void *e = d->poll(s->q);
		if (e != NULL)
			list_add(s, l, e, true);
		else if (d->is_empty(s->q))
			break;
	}
}

struct qverdict {
	bool lost, dup, order;
};

static struct qverdict q_check(struct qstate *s, const struct qlist *rest)
{
	const struct qparam *p = s->p;
	struct qverdict v = {false, false, false};
	unsigned count[QMAXE + 1] = {0};
	const struct qlist *lists[3] = {&s->got[0], &s->got[1], rest};
	unsigned nl = 3;
	unsigned nprod = p->np * p->per;

	for (unsigned li = 0; li < nl; li++)
		for (unsigned k = 0; k < lists[li]->n; k++) {
			unsigned id = lists[li]->id[k];
			count[id < QMAXE ? id : QMAXE]++;
		}
	if (count[QMAXE])
		v.dup = true;
	for (unsigned id = 0; id < QMAXE; id++) {
		bool expected;
		if (id < nprod)
			expected =
			    (s->offered[id / p->per] >> (id % p->per)) & 1;
		else
			expected = id < nprod + s->npre;
		if (expected && count[id] == 0)
			v.lost = true;
		if (count[id] > (expected ? 1u : 0u))
			v.dup = true;
	}
	/* Sources: producer i, or the prefill (source np). */
	for (unsigned li = 0; li < nl; li++) {
		const struct qlist *l = lists[li];
		int last[3] = {-1, -1, -1};
		bool seen_prod = false;
		for (unsigned k = 0; k < l->n; k++) {
			unsigned id = l->id[k];
			if (id >= QMAXE)
				continue;
			unsigned src = id < nprod ? id / p->per : p->np;
			int seq = (int)(id < nprod ? id % p->per : id - nprod);
			if (seq <= last[src])
				v.order = true;
			last[src] = seq;
			if (src < p->np)
				seen_prod = true;
			else if (seen_prod && p->d->fifo == TQ_FIFO_TOTAL)
				v.order = true; /* prefill after a new one */
		}
	}
	/* What the consumers took precedes what was left, per source. */
	for (unsigned li = 0; li < 2; li++)
		for (unsigned k = 0; k < lists[li]->n; k++)
			for (unsigned m = 0; m < rest->n; m++) {
				unsigned a = lists[li]->id[k], b = rest->id[m];
				if (a >= QMAXE || b >= QMAXE)
					continue;
				unsigned sa = a < nprod ? a / p->per : p->np;
				unsigned sb = b < nprod ? b / p->per : p->np;
				if (sa == sb && a > b)
					v.order = true;
				/* FIFO total: an initial element left behind
				 * while a consumer took a new one. */
				if (p->d->fifo == TQ_FIFO_TOTAL && sa < p->np &&
				    sb == p->np)
					v.order = true;
			}
	return v;
}

/* offer_poll: is there a sequential order of the single offers and polls
 * that gives every return value seen and leaves exactly `rest`? */
static bool q_linearizable(const struct qstate *s, const struct qlist *rest)
{
	const struct qparam *p = s->p;
	unsigned nops = p->np + p->nc;
	unsigned cap = (unsigned)p->d->capacity(s->q);
	unsigned perm[4] = {0, 1, 2, 3};
	/* Heap's algorithm over nops <= 4 operations, iteratively. */
	unsigned c[4] = {0};
	unsigned i = 0;
	bool first = true;
	for (;;) {
		if (!first) {
			while (i < nops && c[i] >= i) {
				c[i] = 0;
				i++;
			}
			if (i >= nops)
				return false;
			unsigned j = (i % 2) ? c[i] : 0;
			unsigned x = perm[j];
			perm[j] = perm[i];
			perm[i] = x;
			c[i]++;
			i = 0;
		}
		first = false;
		/* Simulate this order. */
		unsigned q[QMAXE + 4], head = 0, tail = 0;
		for (unsigned m = 0; m < s->npre; m++)
			q[tail++] = pre_id(p, m);
		bool ok = true;
		for (unsigned k = 0; k < nops && ok; k++) {
			unsigned op = perm[k];
			if (op < p->np) {
				bool offered = s->offered[op] & 1;
				bool room = tail - head < cap;
				if (offered != room)
					ok = false;
				else if (room)
					q[tail++] = prod_id(p, op, 0);
			} else {
				const struct qlist *l = &s->got[op - p->np];
				if (head == tail)
					ok = l->n == 0;
				else
					ok = l->n == 1 && l->id[0] == q[head++];
			}
		}
		if (ok && tail - head == rest->n) {
			for (unsigned k = 0; k < rest->n && ok; k++)
				ok = rest->id[k] == q[head + k];
			if (ok)
				return true;
		}
	}
}

static void q_arbiter(void *st, int64_t *r)
{
	struct qstate *s = st;
	const struct qparam *p = s->p;
	const struct tq_desc *d = p->d;
	struct qlist rest = {{0}, 0, 0};
	/* size() at quiescence, before draining, must count what is left. */
	size_t sz = d->size(s->q);
	q_drain_rest(s, &rest);
	struct qverdict v = q_check(s, &rest);
	int bad = s->got[0].bad || s->got[1].bad || rest.bad;
	bool viol = v.lost || v.dup || v.order;
	unsigned offered_fail = 0, took = s->got[0].n + s->got[1].n;
	for (unsigned i = 0; i < p->np; i++)
		for (unsigned k = 0; k < p->per; k++)
			if (!((s->offered[i] >> k) & 1))
				offered_fail++;
	switch (p->scen) {
	case QS_PUBLISH:
		r[0] = offered_fail;
		r[1] = took;
		r[2] = bad || s->v[3];
		r[3] = v.lost;
		r[4] = v.dup;
		r[5] = v.order;
		r[6] = sz != rest.n;
		break;
	case QS_RECYCLE:
		r[0] = s->v[0];
		r[1] = s->v[1];
		r[2] = s->recycled;
		r[3] = viol || rest.bad;
		break;
	case QS_NONEMPTY:
		r[0] = s->v[0];
		r[1] = s->v[1];
		r[2] = s->v[2];
		r[3] = bad;
		r[4] = viol;
		break;
	case QS_OFFER_POLL:
		r[0] = p->np - offered_fail;
		r[1] = took;
		r[2] = q_linearizable(s, &rest);
		r[3] = bad;
		break;
	case QS_PEEK:
		r[0] = s->v[0];
		r[1] = s->v[1];
		r[2] = bad || viol;
		break;
	case QS_PEEK_RACE:
		r[0] = s->v[0];
		r[1] = bad || viol;
		r[2] = s->v[2];
		break;
	case QS_SIZE:
		r[0] = s->v[0];
		r[1] = s->v[2];
		r[2] = sz == rest.n && !viol && !bad;
		r[3] = s->v[1];
		break;
	case QS_PARK:
		r[0] = s->v[0];
		r[1] = s->v[1];
		r[2] = bad;
		r[3] = v.lost;
		r[4] = v.dup;
		r[5] = v.order;
		r[6] = s->v[2] > 0;
		break;
	case QS_HANDBACK: {
		/* size() counts a tombstone until a poll takes it: compared
		 * only after the drain, which takes them all; then the queue
		 * must be empty and take one more round trip. */
		bool whole = d->size(s->q) == 0 && d->is_empty(s->q);
		pay_write(s, pre_id(p, 0));
		void *e = elem(s, pre_id(p, 0));
		whole = whole && d->offer(s->q, e) && d->poll(s->q) == e &&
			d->poll(s->q) == NULL;
		r[0] = s->back;
		r[1] = took;
		r[2] = (int64_t)(p->np * p->per) - offered_fail;
		r[3] = bad || viol || s->v[3];
		r[4] = !whole;
		break;
	}
	}
	/* A growing family's queue was created by q_init for this use. */
	if (d->memsize == NULL) {
		d->destroy(s->q);
		s->q = NULL;
	}
}

/* ---- outcome tables ---- */

#define PUB_FORBIDDEN                                                          \
	{"*, *, 1, *, *, *, *", CS_FORBIDDEN, 0,                               \
	 "a payload written before the offer was not intact after the "        \
	 "take: publication broken"},                                          \
	    {"*, *, *, 1, *, *, *", CS_FORBIDDEN, 0, "an element was lost"},   \
	    {"*, *, *, *, 1, *, *", CS_FORBIDDEN, 0,                           \
	     "an element was taken twice (or one never offered)"},             \
	    {"*, *, *, *, *, 1, *", CS_FORBIDDEN, 0,                           \
	     "FIFO order broken (per producer, or initial contents first)"},   \
	{                                                                      \
		"*, *, *, *, *, *, 1", CS_FORBIDDEN, 0,                        \
		    "size() at quiescence differs from what was left"          \
	}

/* An outcome table and its length. */
struct qtable {
	const struct cs_outcome *rows;
	size_t n;
};
#define QTABLE(a)                                                              \
	{                                                                      \
		a, sizeof a / sizeof a[0]                                      \
	}

static const struct cs_outcome publish_out[] = {
    {"0, *, 0, 0, 0, 0, 0", CS_ACCEPTABLE, 0,
     "every element taken exactly once, in order, payload intact"},
    {"1..99, *, 0, 0, 0, 0, 0", CS_FORBIDDEN, 0,
     "an offer failed although the queue had room"},
    PUB_FORBIDDEN};
static const struct cs_outcome publish_mayfail_out[] = {
    {"*, *, 0, 0, 0, 0, 0", CS_ACCEPTABLE, 0,
     "every element offered taken exactly once, in order, payload intact "
     "(the queue is smaller than the elements: offers may fail)"},
    PUB_FORBIDDEN};
static const struct cs_outcome recycle_out[] = {
    {"1, 1, 0..1, 0", CS_ACCEPTABLE, 0,
     "payload intact when read; reused (1) or not (0) after the take"},
    {"2, *, *, *", CS_FORBIDDEN, 0,
     "the payload changed under the consumer: its reads did not "
     "happen-before the producer's reuse"},
    {"0, *, *, *", CS_FORBIDDEN, 0, "peek found a full queue empty"},
    {"1, 0, *, *", CS_FORBIDDEN, 0,
     "the consumer did not take the element it peeked"},
    {"1, 1, 2, *", CS_FORBIDDEN, 0,
     "two producers found room for one element: overfilled"},
    {"1, 1, *, 1", CS_FORBIDDEN, 0, "lost, duplicated or reordered"}};
static const struct cs_outcome nonempty_out[] = {
    {"*, 0, *, 0, 0", CS_ACCEPTABLE, 0, "looked empty"},
    {"*, 1, 1, 0, 0", CS_ACCEPTABLE, 0, "not empty, then poll succeeded"},
    {"*, 1, 0, *, *", CS_FORBIDDEN, 0, "not empty, then poll returned NULL"},
    {"*, *, *, 1, *", CS_FORBIDDEN, 0, "payload not intact"},
    {"*, *, *, *, 1", CS_FORBIDDEN, 0, "lost, duplicated or reordered"}};
static const struct cs_outcome offer_poll_out[] = {
    {"*, *, 1, 0", CS_ACCEPTABLE, 0,
     "a sequential order of the operations explains it"},
    {"*, *, 0, *", CS_FORBIDDEN, 0,
     "no sequential order explains the returns and the contents: not "
     "linearizable"},
    {"*, *, *, 1", CS_FORBIDDEN, 0, "payload not intact"}};
static const struct cs_outcome peek_out[] = {
    {"0, 0..1, 0", CS_ACCEPTABLE, 0, "peek found it empty"},
    {"1, 1, 0", CS_ACCEPTABLE, 0, "peek equals the following poll"},
    {"*, *, 1", CS_FORBIDDEN, 0, "payload not intact, or lost/duplicated"},
    {"1..2, *, 0", CS_FORBIDDEN, 0, "peek differs from the following poll"}};
static const struct cs_outcome peek_race_out[] = {
    {"0..1, 0, 0..1", CS_ACCEPTABLE, 0,
     "peek saw nothing or the head; the other consumer took the head or "
     "nothing"},
    {"2, 0, 1", CS_ACCEPTABLE, 0,
     "the other consumer took the head; peek saw the next"},
    {"*, 1, *", CS_FORBIDDEN, 0,
     "peeked payload not intact, or lost/duplicated"},
    {"2, 0, *", CS_FORBIDDEN, 0, "peek skipped a head nobody took"}};
static const struct cs_outcome size_out[] = {
    {"0..2, 0..2, 1, *", CS_ACCEPTABLE, 0,
     "size() within [0, capacity]; consistent at quiescence"},
    {"*, *, 0, *", CS_FORBIDDEN, 0,
     "size() at quiescence wrong, or lost/duplicated/reordered"},
    {"*, *, *, *", CS_FORBIDDEN, 0, "size() outside [0, capacity]"}};

/* The same on an unbounded queue: never more than the prefill (1) and the
 * producer's 2 (size_bounds' shape), never negative. */
static const struct cs_outcome size_unbounded_out[] = {
    {"0..3, 0..3, 1, *", CS_ACCEPTABLE, 0,
     "size() within [0, elements ever in]; consistent at quiescence"},
    {"*, *, 0, *", CS_FORBIDDEN, 0,
     "size() at quiescence wrong, or lost/duplicated/reordered"},
    {"*, *, *, *", CS_FORBIDDEN, 0,
     "size() above the elements ever in, or negative"}};

static const struct cs_outcome handback_out[] = {
    {"0, *, *, 0, 0", CS_ACCEPTABLE, 0,
     "every producer's unused positions became tombstones (another claimed "
     "after them), or it published them all"},
    {"1..2, *, *, 0, 0", CS_ACCEPTABLE, 0,
     "unused positions went back to the tail; a poll waiting for them "
     "found the queue empty"},
    {"*, *, *, 1, *", CS_FORBIDDEN, 0,
     "an element lost, taken twice, out of order or not one of ours, a "
     "peek differing from the next poll, or a payload not intact"},
    {"*, *, *, *, 1", CS_FORBIDDEN, 0,
     "after the drain the queue is not empty (a tombstone or a handed-back "
     "position left counted) or not usable"}};

/* handback on a value ring: whether a fill handed its unfilled claims back
 * to pidx or published them as tombstones cannot be seen from outside, so
 * the first column stays 0. */
static const struct cs_outcome handback_value_out[] = {
    {"0, *, *, 0, 0", CS_ACCEPTABLE, 0,
     "the unused claims went back to pidx or became tombstones (not told "
     "apart); every element taken once, in order, the ring whole after "
     "the drain"},
    {"*, *, *, 1, *", CS_FORBIDDEN, 0,
     "an element lost, taken twice, out of order or not one of ours, a "
     "peek differing from the next poll, a payload not intact, or a "
     "commit, abort or fill that failed"},
    {"*, *, *, *, 1", CS_FORBIDDEN, 0,
     "after the drain the ring is not empty (a tombstone or a handed-back "
     "index left counted) or not usable"}};

static const struct cs_outcome park_out[] = {
    {"0, 0, 0, 0, 0, 0, 0", CS_ACCEPTABLE, 0,
     "every put and take returned before its watchdog, none slept; every "
     "element taken exactly once, in order, payload intact"},
    {"0, 0, 0, 0, 0, 0, 1", CS_ACCEPTABLE, 0,
     "the same, and at least one call slept on the futex and was woken: "
     "the park/wake race ran"},
    {"1..99, *, *, *, *, *, *", CS_FORBIDDEN, 0,
     "a put reached its 5 s watchdog: the producer's wake-up was lost"},
    {"*, 1..99, *, *, *, *, *", CS_FORBIDDEN, 0,
     "a take reached its 5 s watchdog: the consumer's wake-up was lost"},
    {"*, *, 1, *, *, *, *", CS_FORBIDDEN, 0, "payload not intact"},
    {"*, *, *, 1, *, *, *", CS_FORBIDDEN, 0, "an element was lost"},
    {"*, *, *, *, 1, *, *", CS_FORBIDDEN, 0, "an element was taken twice"},
    {"*, *, *, *, *, 1, *", CS_FORBIDDEN, 0, "FIFO order broken"}};

/* Per shape (enum q_scen): its outcome table, results and summary. */
static const struct qshape {
	struct qtable out;
	unsigned nresults;
	const char *rnames, *shape;
} shapes[] = {
    [QS_PUBLISH] = {QTABLE(publish_out), 7,
		    "failed, taken, bad, lost, dup, order, size",
		    "producer(s) write payloads, offer || consumer(s) take "
		    "and check; arbiter drains"},
    [QS_RECYCLE] = {QTABLE(recycle_out), 4, "peeked, took, reused, viol",
		    "full queue: consumer peeks the head, reads its payload, "
		    "takes it || producer(s) wait for room, then reuse "
		    "that payload"},
    [QS_NONEMPTY] = {QTABLE(nonempty_out), 5,
		     "poll1, nonempty, poll2, bad, viol",
		     "producer(s) offer || consumer: poll, probe, poll"},
    [QS_OFFER_POLL] = {QTABLE(offer_poll_out), 4,
		       "offers ok, polls ok, lin, bad",
		       "single offers || single polls on a prefilled queue; "
		       "the arbiter checks the linearizable set"},
    [QS_PEEK] = {QTABLE(peek_out), 3, "peek, poll, bad",
		 "producer offers e1, e2 || consumer: peek, then poll"},
    [QS_PEEK_RACE] = {QTABLE(peek_race_out), 3, "peek, bad, poll",
		      "producer offers e1, e2 || consumer 0 peeks || consumer "
		      "1 polls"},
    [QS_SIZE] = {QTABLE(size_out), 4, "size1, size2, final, empty",
		 "producer offers 2 || consumer polls || observer: "
		 "size(), is_empty(), size()"},
    [QS_HANDBACK] = {QTABLE(handback_out), 5, "back, took, pub, viol, final",
		     "producer(s) claim `per` positions with one CAS, publish "
		     "some and give the rest back (to the tail, or as "
		     "tombstones) || consumer polls on; arbiter drains, checks "
		     "the queue empty and whole"},
    [QS_PARK] = {QTABLE(park_out), 7,
		 "put timeouts, take timeouts, bad, lost, dup, order, slept",
		 "producer(s) put (blocking) || consumer(s) take (blocking) "
		 "their share, each call with a 5 s watchdog"},
};

/* ---- building the tests ---- */

struct qtest {
	struct cs_test t;
	struct qparam p;
	char name[96];
	char desc[400];
};

static const char *op_name(enum q_op op)
{
	static const char *const names[] = {
	    "offer",	     "offer_bulk", "offer_burst", "fill",
	    "relaxed_offer", "poll",	   "poll_burst",  "drain",
	    "relaxed_poll",  "is_empty",   "size",	  "peek",
	    "put",	     "take",	   "claim",	  "peek_claim"};
	return names[op];
}

static void q_add(const struct qparam *tmpl, const char *name,
		  const char *label, const char *what)
{
	struct qtest *x = calloc(1, sizeof *x);
	if (x == NULL)
		abort();
	x->p = *tmpl;
	struct qparam *p = &x->p;
	const struct tq_desc *d = p->d;
	size_t hdr = sizeof(struct qstate);
	p->qoff = (hdr + CONQ_PAD - 1) / CONQ_PAD * CONQ_PAD;
	/* A growing family: the state holds only the pointer (q_init). */
	size_t qsize = d->memsize != NULL ? d->memsize(p->cap) : 0;
	/* The value rings' zero-copy calls; handback drives
	 * conq_mpmc_array's internals, or a multi-producer value ring's fill
	 * or abort. */
	p->vo = qvops_of(d->name);
	bool zc = p->pop == OP_CLAIM || p->cop == OP_PEEK_CLAIM;
	if ((zc && p->vo == NULL) ||
	    (p->scen == QS_HANDBACK && strcmp(d->name, "mpmc_array") != 0 &&
	     (p->vo == NULL || p->vo->abort == NULL)))
		abort(); /* a harness bug: the table asks what the row lacks */
	snprintf(x->name, sizeof x->name, "%s", name);

	struct cs_test *t = &x->t;
	t->name = x->name;
	t->param = p;
	t->state_size = p->qoff + qsize;
	t->state_align = CONQ_PAD;
	t->init = q_init;
	t->arbiter = q_arbiter;
	t->epoch_states = 2048;
	t->min_cpus = 2;
	t->ref = label;
	unsigned n = 0;
	if (p->scen == QS_PEEK_RACE) {
		t->actors[n++] = q_p0;
		t->actors[n++] = q_c0;
		t->actors[n++] = q_c1;
	} else {
		t->actors[n++] = q_p0;
		if (p->np > 1)
			t->actors[n++] = q_p1;
		t->actors[n++] = q_c0;
		if (p->nc > 1)
			t->actors[n++] = q_c1;
		if (p->scen == QS_SIZE)
			t->actors[n++] = q_obs;
	}
	t->nactors = n;
	const struct qshape *sh = &shapes[p->scen];
	struct qtable ot = sh->out;
	if (p->scen == QS_PUBLISH && p->may_fail)
		ot = (struct qtable)QTABLE(publish_mayfail_out);
	if (p->scen == QS_HANDBACK && p->vo != NULL)
		ot = (struct qtable)QTABLE(handback_value_out);
	if (p->scen == QS_SIZE && !d->bounded) {
		if (p->prefill + (int)p->per > 3)
			abort(); /* size_unbounded_out is for size_bounds */
		ot = (struct qtable)QTABLE(size_unbounded_out);
	}
	t->outcomes = ot.rows;
	t->noutcomes = ot.n;
	t->nresults = sh->nresults;
	t->rnames = sh->rnames;
	const char *shape = sh->shape;
	char ops[160] = "";
	if (p->scen == QS_PUBLISH || p->scen == QS_RECYCLE)
		snprintf(ops, sizeof ops, "; %s %s / %s",
			 p->scen == QS_RECYCLE ? "room via" : "ops",
			 op_name(p->pop), op_name(p->cop));
	else if (p->scen == QS_NONEMPTY)
		snprintf(ops, sizeof ops, "; probe %s", op_name(p->probe));
	else if (p->scen == QS_HANDBACK)
		snprintf(ops, sizeof ops, "; %sconsumer %s",
			 p->vo == NULL ? ""
			 : p->aborts   ? "claim_burst, commit, abort; "
				       : "the ring's fill; ",
			 p->cop == OP_PEEK ? "peek, poll" : "poll");
	else if (p->scen == QS_PARK)
		snprintf(ops, sizeof ops, "; watch %u ns before parking%s",
			 p->spin,
			 p->rmw ? "; eventcounts without membarrier" : "");
	char pre[24];
	if (p->prefill < 0)
		snprintf(pre, sizeof pre, "full");
	else
		snprintf(pre, sizeof pre, "%d", p->prefill);
	snprintf(x->desc, sizeof x->desc,
		 "%s%s%s: %s; %up%uc, capacity %zu, prefill %s%s%s", d->name,
		 what ? ": " : "", what ? what : "", shape, p->np, p->nc,
		 p->cap, pre, ops, p->wrap ? "; indices start below 2^64" : "");
	t->desc = x->desc;
	cs_register(t);
}

/* The parameters of one test, by shape (shorthands for the tables below). */
#define QP(scen_, np_, nc_, cap_, per_, ...)                                   \
	{                                                                      \
		.scen = scen_, .np = np_, .nc = nc_, .cap = cap_, .per = per_, \
		__VA_ARGS__                                                    \
	}
#define PUB(np_, nc_, pop_, cop_, cap_, per_)                                  \
	QP(QS_PUBLISH, np_, nc_, cap_, per_, .pop = pop_, .cop = cop_)
#define REC(np_, room, cop_)                                                   \
	QP(QS_RECYCLE, np_, 1, 1, 1, .pop = room, .cop = cop_, .prefill = -1)
#define NONEMPTY(np_, cap_, probe_)                                            \
	QP(QS_NONEMPTY, np_, 1, cap_, 2, .probe = probe_)
#define OFFPOLL(np_, nc_, cap_, pre)                                           \
	QP(QS_OFFER_POLL, np_, nc_, cap_, 1, .prefill = pre)
#define PARK(np_, nc_, per_, ...)                                              \
	QP(QS_PARK, np_, nc_, 2, per_, .pop = OP_PUT, .cop = OP_TAKE,          \
	   __VA_ARGS__)
#define HANDBACK(np_, cap_, per_, cop_, pre)                                   \
	QP(QS_HANDBACK, np_, 1, cap_, per_, .cop = cop_, .prefill = pre)

/* The contract tests (issue 5 item 3), per family and wrap: q.<shape> on
 * every family that has the producers and consumers the shape needs. */
static const struct {
	const char *shape;
	struct qparam p;
} contract[] = {
    {"publish.1p1c", PUB(1, 1, OP_OFFER, OP_POLL, 8, 3)},
    {"publish.2p1c", PUB(2, 1, OP_OFFER, OP_POLL, 8, 2)},
    {"publish.1p2c", PUB(1, 2, OP_OFFER, OP_POLL, 8, 3)},
    {"publish.2p2c", PUB(2, 2, OP_OFFER, OP_POLL, 8, 2)},
    {"nonempty_poll.is_empty", NONEMPTY(1, 4, OP_IS_EMPTY)},
    {"nonempty_poll.size", NONEMPTY(1, 4, OP_SIZE)},
    {"peek_poll", QP(QS_PEEK, 1, 1, 4, 2, .prefill = 0)},
    {"offer_poll.cap1.empty", OFFPOLL(1, 1, 1, 0)},
    {"offer_poll.cap1.full", OFFPOLL(1, 1, 1, -1)},
    {"offer_poll.cap2.empty", OFFPOLL(1, 1, 2, 0)},
    {"offer_poll.cap2.full", OFFPOLL(1, 1, 2, -1)},
    {"offer_poll.cap3.empty", OFFPOLL(1, 1, 3, 0)},
    {"offer_poll.cap3.full", OFFPOLL(1, 1, 3, -1)},
    {"offer_poll.cap1.full.2p1c", OFFPOLL(2, 1, 1, -1)},
    {"offer_poll.cap1.full.1p2c", OFFPOLL(1, 2, 1, -1)},
    {"size_bounds", QP(QS_SIZE, 1, 1, 2, 2, .prefill = 1)},
    {"park.1p1c", PARK(1, 1, 5, .spin = 0)},
    {"park.2p1c", PARK(2, 1, 3, .spin = 0)},
    {"park.1p2c", PARK(1, 2, 5, .spin = 0)},
    {"park.2p2c", PARK(2, 2, 3, .spin = 0)},
    {"park.spin.1p1c", PARK(1, 1, 5, .spin = CONQ__BLOCK_SPIN_NS)},
    {"park.rmw.1p1c", PARK(1, 1, 5, .spin = 0, .rmw = true)},
};

static void q_contract(const struct tq_desc *d, bool wrap)
{
	for (size_t i = 0; i < sizeof contract / sizeof contract[0]; i++) {
		struct qparam p = contract[i].p;
		if (p.np > d->max_producers || p.nc > d->max_consumers)
			continue;
		/* An unbounded family has no full queue to start from. */
		if (!d->bounded && p.prefill < 0)
			continue;
		/* size() from an observer thread: not on a GROW_CSIZE row. */
		if (!d->size_any_thread && p.scen == QS_SIZE)
			continue;
		/* park tests the eventcounts, which do not see the indices. */
		if (wrap && p.scen == QS_PARK)
			continue;
		/* peek: not on a family without one (the multi-consumer value
		 * rings). */
		if (d->peek == NULL && p.scen == QS_PEEK)
			continue;
		p.d = d;
		p.wrap = wrap;
		char name[96];
		snprintf(name, sizeof name, "q.%s.%s%s", contract[i].shape,
			 wrap ? "wrap." : "", d->name);
		q_add(&p, name, NULL, NULL);
	}
}

/*
 * One test per labelled pair of docs/memory-model.md: the label, its
 * family, the shape and the operations that reach the code holding the
 * labelled access, and what the pair guarantees.
 */
struct qlabel {
	const char *label, *family, *what;
	struct qparam p;
};

static const struct qlabel labels[] = {
    {"S1", "spsc_array",
     "a batch's slots relaxed, its first slot released last (offer_bulk) "
     "-> the consumer's acquire of each slot",
     PUB(1, 1, OP_BULK, OP_POLL, 8, 3)},
    {"S2", "spsc_array",
     "the consumer's acquire of the slot in poll_burst <- the producer's "
     "release of it",
     PUB(1, 1, OP_OFFER, OP_POLL_BURST, 8, 3)},
    {"S3", "spsc_array",
     "the producer's acquire of cidx in its refresh (offer) <- the "
     "consumer's release: reads before the take happen-before the reuse",
     REC(1, OP_OFFER, OP_POLL)},
    {"S4", "spsc_array",
     "the consumer's release of cidx in drain -> the producer's refresh",
     REC(1, OP_OFFER, OP_DRAIN)},
    {"S5", "spsc_array",
     "the producer's release of pidx -> is_empty(): not empty means the "
     "next poll succeeds",
     NONEMPTY(1, 8, OP_IS_EMPTY)},
    {"S6", "spsc_array",
     "size()'s acquire of cidx <- the consumer's release: room seen "
     "through size() makes reuse safe",
     REC(1, OP_SIZE, OP_POLL)},
    {"M1", "mpsc_array",
     "each producer's batch published by the release of its first slot "
     "(offer_bulk)",
     PUB(2, 1, OP_BULK, OP_POLL, 8, 2)},
    {"M2", "mpsc_array",
     "the consumer's acquire of each slot in drain <- the producers' "
     "release",
     PUB(2, 1, OP_OFFER, OP_DRAIN, 8, 2)},
    {"M3", "mpsc_array",
     "the claim CAS on pidx: offer fails only if full (two producers race "
     "for the one freed slot)",
     OFFPOLL(2, 1, 1, -1)},
    {"M4", "mpsc_array",
     "plimit stored by one producer, used by another: both see the "
     "consumer's reads before the reuse",
     REC(2, OP_OFFER, OP_POLL)},
    {"M5", "mpsc_array",
     "the producer's acquire of cidx in refresh <- the consumer's release "
     "in poll_burst",
     REC(1, OP_OFFER, OP_POLL_BURST)},
    {"M6", "mpsc_array",
     "the consumer's release of cidx after reading and clearing (drain) "
     "-> the producers' refresh",
     REC(1, OP_OFFER, OP_DRAIN)},
    {"M7", "mpsc_array",
     "poll's acquire of pidx on a NULL head slot: a claimed, unwritten "
     "slot is waited for, not reported empty",
     NONEMPTY(2, 8, OP_IS_EMPTY)},
    {"M8", "mpsc_array",
     "size()'s acquires of cidx and pidx: a non-zero size means the next "
     "poll succeeds",
     NONEMPTY(1, 8, OP_SIZE)},
    {"C1", "spmc_array",
     "the producer's release of the slot -> peek's acquire: the peeked "
     "element's payload is intact",
     QP(QS_PEEK, 1, 1, 4, 2, .prefill = 0)},
    {"C2", "spmc_array",
     "the producer's release of pidx -> two consumers' acquire in refresh",
     PUB(1, 2, OP_OFFER, OP_POLL, 8, 4)},
    {"C3", "spmc_array",
     "is_empty()'s acquire of pidx <- the producer's release: not empty "
     "means the next poll succeeds",
     NONEMPTY(1, 8, OP_IS_EMPTY)},
    {"C4", "spmc_array",
     "pcache stored by one consumer, used by another (a batch offered with "
     "offer_bulk)",
     PUB(1, 2, OP_BULK, OP_POLL, 8, 4)},
    {"C5", "spmc_array",
     "the claim CAS on cidx: two consumers, one element, an offer: exactly "
     "once, NULL only if empty",
     OFFPOLL(1, 2, 1, -1)},
    {"C6", "spmc_array",
     "the consumer's release of its slot clear (poll_burst) -> the "
     "producer's acquire before reuse",
     REC(1, OP_OFFER, OP_POLL_BURST)},
    {"C7", "spmc_array",
     "the producer's acquire of the slot before writing (offer_bulk) <- "
     "the consumer's clear",
     REC(1, OP_BULK, OP_POLL)},
    {"C8", "spmc_array",
     "the producer's acquire of cidx in its refresh <- the consumers' "
     "claim (room seen through offer)",
     REC(1, OP_OFFER, OP_DRAIN)},
    {"C9", "spmc_array",
     "peek's slot acquire between two cidx acquires, racing a poll by "
     "another consumer",
     QP(QS_PEEK_RACE, 1, 2, 4, 2, .prefill = 0)},
    {"C10", "spmc_array",
     "a consumer's slot acquire between two cidx acquires on a used-up "
     "pcache: NULL with cidx unmoved is empty (two consumers, an offer)",
     OFFPOLL(1, 2, 1, 0)},
    {"C11", "spmc_array",
     "the producer's slot acquire decides room alone (a free slot is its "
     "previous element read): a full queue, an offer racing a poll",
     OFFPOLL(1, 1, 1, -1)},
    {"Q1", "mpmc_array",
     "the producers' seq_cst tail claims -> size(): non-zero means the "
     "next poll succeeds",
     NONEMPTY(2, 8, OP_SIZE)},
    {"Q2", "mpmc_array",
     "the producer's acquire of FREE(t) <- the previous lap's consumer "
     "release: reads before the take happen-before the reuse",
     REC(1, OP_OFFER, OP_POLL)},
    {"Q2b", "mpmc_array",
     "a producer's acquire of FREE(t) before its tail CAS: two producers "
     "race for the cell a poll frees",
     OFFPOLL(2, 1, 1, -1)},
    {"Q3", "mpmc_array",
     "the producer's release of the element -> peek's acquire",
     QP(QS_PEEK, 1, 1, 4, 2, .prefill = 0)},
    {"Q4", "mpmc_array",
     "the producer's release of FULL -> the consumer's acquire: payload "
     "intact",
     PUB(1, 1, OP_OFFER, OP_POLL, 4, 3)},
    {"Q5", "mpmc_array",
     "FULL release -> acquire with two producers and two consumers",
     PUB(2, 2, OP_OFFER, OP_POLL, 8, 2)},
    {"Q5b", "mpmc_array",
     "a consumer's acquire of FULL(h) before its head CAS: two consumers, "
     "one offer, empty queue",
     OFFPOLL(1, 2, 1, 0)},
    {"Q6", "mpmc_array",
     "the consumer's release of FREE(p+n) (drain) -> the next lap's "
     "producer",
     REC(1, OP_OFFER, OP_DRAIN)},
    {"Q7", "mpmc_array",
     "the consumers' seq_cst head claims: two consumers, one element and "
     "an offer",
     OFFPOLL(1, 2, 2, 1)},
    {"Q8", "mpmc_array",
     "the producer's seq_cst head read at the edge: offer fails only if "
     "full",
     OFFPOLL(1, 1, 1, -1)},
    {"Q9", "mpmc_array",
     "is_empty()'s seqlock-style reads: not empty means the next poll "
     "succeeds",
     NONEMPTY(1, 8, OP_IS_EMPTY)},
    {"Q9b", "mpmc_array",
     "peek's cell and element acquires between two head reads, racing a "
     "poll by another consumer",
     QP(QS_PEEK_RACE, 1, 2, 4, 2, .prefill = 0)},
    {"Q10", "mpmc_array",
     "the consumer's seq_cst tail read at the edge: offer || poll on an "
     "empty queue is linearizable",
     OFFPOLL(1, 1, 1, 0)},
    {"Q10b", "mpmc_array",
     "the consumers' tail reads: two producers into a capacity-2 queue, "
     "offers may fail",
     QP(QS_PUBLISH, 2, 1, 2, 2, .pop = OP_OFFER, .cop = OP_POLL,
	.may_fail = true)},
    {"Q10c", "mpmc_array",
     "both edges at once: two producers and two consumers on an empty "
     "capacity-1 queue, linearizable",
     OFFPOLL(2, 2, 1, 0)},
    {"Q11", "mpmc_array",
     "size()'s head, tail, head snapshot: within [0, capacity]",
     QP(QS_SIZE, 1, 1, 2, 2, .prefill = 1)},
    {"Q12", "mpmc_array",
     "fill gives positions back (the tail CAS down) on a partly full "
     "queue, a consumer racing",
     QP(QS_PUBLISH, 1, 1, 2, 3, .pop = OP_FILL, .cop = OP_POLL, .prefill = 1,
	.may_fail = true)},
    {"Q12b", "mpmc_array",
     "the hand-back CAS -> a poll waiting for the positions re-reads the "
     "tail and finds the queue empty (one producer, capacity 4)",
     HANDBACK(1, 4, 3, OP_POLL, 0)},
    {"Q12c", "mpmc_array",
     "hand-back or tombstones: two producers claim and give back, the "
     "consumer peeks then polls (peek equals the next poll)",
     HANDBACK(2, 8, 3, OP_PEEK, 0)},
    {"Q12d", "mpmc_array",
     "tombstones and hand-backs on a partly full capacity-4 queue, two "
     "producers",
     HANDBACK(2, 4, 2, OP_POLL, 1)},
    /* The queues that grow (issue 11). At these capacities the tests'
     * tq_chunk gives chunks of 2 slots: every few elements cross a chunk
     * (a JUMP, a link, a retired or recycled chunk). */
    {"SL1", "spsc_unbounded",
     "a segment's slots relaxed, its first released last (offer_bulk), "
     "across chunk links",
     PUB(1, 1, OP_BULK, OP_POLL, 8, 3)},
    {"SL2", "spsc_unbounded",
     "poll_burst's acquire of each slot, a JUMP among them <- SL1 / SL9",
     PUB(1, 1, OP_OFFER, OP_POLL_BURST, 8, 3)},
    {"SL3", "spsc_chunked",
     "the queue limit's acquire of cidx <- SL4: reads before the take "
     "happen-before the reuse",
     REC(1, OP_OFFER, OP_POLL)},
    {"SL4", "spsc_chunked",
     "the consumer's release of cidx in drain -> the producer's queue limit",
     REC(1, OP_OFFER, OP_DRAIN)},
    {"SL5", "spsc_unbounded",
     "the release of pidx -> is_empty(): not empty means the next poll "
     "succeeds, in whichever chunk",
     NONEMPTY(1, 8, OP_IS_EMPTY)},
    {"SL6", "spsc_chunked",
     "size()'s acquires <- SL4: room seen through size() makes reuse safe",
     REC(1, OP_SIZE, OP_POLL)},
    {"SL7", "spsc_growable",
     "the final chunk's batched release clears -> the producer's slot "
     "look (SL8), conq_spsc_array's protocol in growable's last chunk",
     REC(1, OP_OFFER, OP_POLL_BURST)},
    {"SL8", "spsc_growable",
     "the producer's acquire look at a slot <- SL7, in drain",
     REC(1, OP_OFFER, OP_DRAIN)},
    {"SL9", "spsc_unbounded",
     "the JUMP's release -> the consumer's acquire: the link, and every "
     "producer access to the old chunk, before it is retired",
     PUB(1, 1, OP_OFFER, OP_POLL, 8, 3)},
    {"SL10", "spsc_chunked",
     "the consumer's release of the zeroed spare -> the producer's "
     "exchange (SL11): its reads of the chunk before the reuse",
     PUB(1, 1, OP_OFFER, OP_DRAIN, 8, 3)},
    {"SL11", "spsc_unbounded",
     "the producer's acquire exchange of the spare <- SL10, under fill",
     PUB(1, 1, OP_FILL, OP_POLL, 8, 3)},
    {"ML1", "mpsc_unbounded",
     "each producer's batch published by the release of its first slot, "
     "in the resizer's new chunk too",
     PUB(2, 1, OP_BULK, OP_POLL, 8, 2)},
    {"ML2", "mpsc_unbounded",
     "the consumer's acquire of each slot in drain, a JUMP among them <- "
     "ML1 / ML8",
     PUB(2, 1, OP_OFFER, OP_DRAIN, 8, 2)},
    {"ML3", "mpsc_chunked",
     "the claim CAS on pidx: offer fails only if full (two producers race "
     "for the one freed slot across a resize)",
     OFFPOLL(2, 1, 1, -1)},
    {"ML4", "mpsc_unbounded",
     "the resizer's release of pidx -> the next claims: pbuf / pmask / the "
     "limit are the new chunk's",
     PUB(2, 1, OP_OFFER, OP_POLL, 8, 2)},
    {"ML5", "mpsc_chunked",
     "the limit stored by one producer, used by another: both see the "
     "consumer's reads before the reuse",
     REC(2, OP_OFFER, OP_POLL)},
    {"ML6", "mpsc_chunked",
     "the consumer's release of cidx after reading and clearing (drain) "
     "-> the producers' refresh (ML7)",
     REC(1, OP_OFFER, OP_DRAIN)},
    {"ML7", "mpsc_growable",
     "the producer's acquire of cidx in refresh <- ML6, in poll_burst",
     REC(1, OP_OFFER, OP_POLL_BURST)},
    {"ML8", "mpsc_growable",
     "the JUMP's release, the resizer's last access to the old chunk -> "
     "the consumer's acquire (two producers, doubling chunks)",
     PUB(2, 1, OP_OFFER, OP_POLL, 8, 2)},
    {"ML9", "mpsc_unbounded",
     "poll's acquire of pidx on a NULL head slot: a claim or a resize in "
     "progress is waited for, not reported empty",
     NONEMPTY(2, 8, OP_IS_EMPTY)},
    {"ML10", "mpsc_chunked",
     "size()'s acquires of cidx and pidx: a non-zero size means the next "
     "poll succeeds",
     NONEMPTY(1, 8, OP_SIZE)},
    {"ML11", "mpsc_unbounded",
     "the spare's exchange: the consumer's reset of a retired chunk before "
     "the resizer writes into it",
     PUB(1, 1, OP_OFFER, OP_POLL_BURST, 8, 3)},
    {"MI1", "mpsc_intrusive",
     "the tail exchange: the NULL store of last->next before the next "
     "producer's link into it",
     PUB(2, 1, OP_OFFER, OP_POLL, 8, 2)},
    {"MI2", "mpsc_intrusive",
     "the link's release publishes a chain (offer_bulk) -> the consumer's "
     "acquire in drain",
     PUB(2, 1, OP_BULK, OP_DRAIN, 8, 2)},
    {"MI3", "mpsc_intrusive",
     "the consumer's acquire of each link in pop_burst <- MI2",
     PUB(1, 1, OP_OFFER, OP_POLL_BURST, 8, 3)},
    {"MI4", "mpsc_intrusive",
     "pop's acquire of tail: a producer between its exchange and its link "
     "is waited for, not reported empty",
     NONEMPTY(2, 8, OP_IS_EMPTY)},
    {"MI5", "mpsc_intrusive",
     "the last-node CAS of tail back to the head: the head's clear before "
     "the next pusher's link (one element each, the queue often empty)",
     PUB(2, 1, OP_OFFER, OP_POLL, 8, 1)},
    {"MN1", "mpsc_linked",
     "the node cache's release of a popped node -> a producer's take "
     "(MN2): the consumer's reads of the node before its reuse",
     PUB(2, 1, OP_OFFER, OP_POLL, 8, 2)},
    {"MN2", "mpsc_linked",
     "a producer's acquire of a cached node <- MN1, under drain",
     PUB(2, 1, OP_OFFER, OP_DRAIN, 8, 2)},
    {"SN1", "spsc_linked",
     "the link's release publishes the node and its value -> SN2",
     PUB(1, 1, OP_OFFER, OP_POLL, 8, 3)},
    {"SN2", "spsc_linked",
     "the consumer's acquire of head->next in poll_burst <- SN1 (chains "
     "from offer_bulk)",
     PUB(1, 1, OP_BULK, OP_POLL_BURST, 8, 3)},
    {"SN3", "spsc_linked",
     "the release of pidx -> is_empty(): not empty means the next poll "
     "succeeds",
     NONEMPTY(1, 8, OP_IS_EMPTY)},
    {"SN4", "spsc_linked",
     "the consumer's release of cidx -> size() from a third thread: "
     "within [0, elements ever in], exact at quiescence",
     QP(QS_SIZE, 1, 1, 2, 2, .prefill = 1)},
    {"SN5", "spsc_linked",
     "size()'s acquires: a non-zero size means the next poll succeeds",
     NONEMPTY(1, 8, OP_SIZE)},
    /* The value rings (issue 14): their elements are the tests' pointers,
     * 8 bytes by value; claim and peek_claim write and read them in
     * place. */
    {"VS1", "spsc_value",
     "the producer's release of its group's header after writing in "
     "place (claim, commit) -> the consumer's acquire: payload intact",
     PUB(1, 1, OP_CLAIM, OP_POLL, 8, 3)},
    {"VS2", "spsc_value",
     "the consumer's acquire of its group's header when its cached count "
     "runs out, reading in place (peek_claim, release) <- VS1",
     PUB(1, 1, OP_OFFER, OP_PEEK_CLAIM, 8, 3)},
    {"VS3", "spsc_value",
     "the producer's acquire of cidx in its refresh (offer) <- VS4: the "
     "consumer's reads of the head happen-before the reuse",
     REC(1, OP_OFFER, OP_POLL)},
    {"VS4", "spsc_value",
     "the consumer's release of cidx in release() after reading in place "
     "-> the producer's refresh in claim()",
     REC(1, OP_CLAIM, OP_PEEK_CLAIM)},
    {"VS5", "spsc_value",
     "is_empty()'s acquires of cidx, then pidx: not empty means the next "
     "poll succeeds",
     NONEMPTY(1, 8, OP_IS_EMPTY)},
    {"VS6", "spsc_value",
     "the producer's release of pidx after the header (VS1) -> size()'s "
     "acquire: a non-zero size means the next poll succeeds",
     NONEMPTY(1, 8, OP_SIZE)},
    {"VM1", "mpsc_value",
     "two producers write in place and commit (claim, commit): each tag's "
     "release publishes its slot, and commits out of claim order are "
     "delivered in claim order",
     PUB(2, 1, OP_CLAIM, OP_POLL, 8, 2)},
    {"VM1b", "mpsc_value",
     "abort's TOMB release: two producers claim_burst 3, commit the first "
     "j, abort the rest; the consumer peeks and polls past the tombstones",
     QP(QS_HANDBACK, 2, 1, 8, 3, .cop = OP_PEEK, .aborts = true)},
    {"VM2", "mpsc_value",
     "the consumer's acquire of each tag of a run (poll_burst) <- a "
     "batch's tags stored relaxed, its first released last (offer_bulk)",
     PUB(2, 1, OP_BULK, OP_POLL_BURST, 8, 2)},
    {"VM3", "mpsc_value",
     "the claim CAS on pidx: offer fails only if full (two producers race "
     "for the one freed slot)",
     OFFPOLL(2, 1, 1, -1)},
    {"VM3b", "mpsc_value",
     "fill's hand-back CAS of pidx, or its tombstones when another "
     "producer claimed after: two producers, the consumer peeks and polls "
     "on, waiting at claimed indices",
     HANDBACK(2, 4, 3, OP_PEEK, 0)},
    {"VM4", "mpsc_value",
     "plimit stored by one producer, used by another: both see the "
     "consumer's reads before the reuse",
     REC(2, OP_OFFER, OP_POLL)},
    {"VM5", "mpsc_value",
     "the producer's acquire of cidx in refresh, reached by claim() <- the "
     "consumer's release in poll_burst",
     REC(1, OP_CLAIM, OP_POLL_BURST)},
    {"VM6", "mpsc_value",
     "the consumer's release of cidx in release() after reading in place "
     "-> the producers' refresh",
     REC(1, OP_OFFER, OP_PEEK_CLAIM)},
    {"VM7", "mpsc_value",
     "poll's acquire of pidx at an uncommitted head tag: a claimed, "
     "uncommitted index is waited for, not reported empty",
     NONEMPTY(2, 8, OP_IS_EMPTY)},
    {"VM7b", "mpsc_value",
     "the bubble wait's acquire of pidx every round <- fill's hand-back "
     "CAS: a poll waiting at an index handed back finds the ring empty "
     "(one producer, capacity 4)",
     HANDBACK(1, 4, 3, OP_POLL, 0)},
    {"V1", "mpmc_value",
     "the producers' seq_cst pidx claims -> size(): non-zero means the "
     "next poll succeeds",
     NONEMPTY(2, 8, OP_SIZE)},
    {"V2", "spmc_value",
     "the producer's acquire of FREE(i) <- the previous lap's release "
     "(peek_claim, release): the consumer's reads in place happen-before "
     "the reuse",
     REC(1, OP_OFFER, OP_PEEK_CLAIM)},
    {"V3", "spmc_value",
     "the single producer's release of pidx after the tags -> size(): a "
     "non-zero size means the next poll succeeds",
     NONEMPTY(1, 8, OP_SIZE)},
    {"V4", "spmc_value",
     "the producer's release of FULL(i) after writing in place (claim, "
     "commit) -> two consumers' acquire",
     PUB(1, 2, OP_CLAIM, OP_POLL, 8, 4)},
    {"V4b", "mpmc_value",
     "abort's TOMB release: two producers claim_burst 3, commit the first "
     "j, abort the rest; the consumer polls past the tombstones",
     QP(QS_HANDBACK, 2, 1, 8, 3, .cop = OP_POLL, .aborts = true)},
    {"V5", "mpmc_value",
     "the consumers' acquire of FULL before their claim: two producers, two "
     "consumers reading in place (peek_claim, release)",
     PUB(2, 2, OP_OFFER, OP_PEEK_CLAIM, 8, 2)},
    {"V6", "mpmc_value",
     "the consumer's release of FREE(i + cap) in release() -> the next "
     "lap's producer (offer)",
     REC(1, OP_OFFER, OP_PEEK_CLAIM)},
    {"V7", "spmc_value",
     "the consumers' seq_cst cidx claims: two consumers, one element and an "
     "offer: exactly once, empty only if empty",
     OFFPOLL(1, 2, 1, -1)},
    {"V7b", "spmc_value",
     "cidx, then the tag, decide empty without pidx (SPMC): two consumers "
     "and an offer on an empty capacity-1 ring, linearizable",
     OFFPOLL(1, 2, 1, 0)},
    {"V8", "spmc_value",
     "the producer's seq_cst cidx read at the edge: offer fails only if "
     "full (a full ring, an offer racing a poll)",
     OFFPOLL(1, 1, 1, -1)},
    {"V8b", "mpmc_value",
     "offer_bulk of 2 on a capacity-2 ring: room the tags do not prove is "
     "decided on cidx, then each slot waited FREE",
     QP(QS_PUBLISH, 2, 1, 2, 2, .pop = OP_BULK, .cop = OP_POLL,
	.may_fail = true)},
    {"V9", "mpmc_value",
     "the consumer's seq_cst pidx read at the edge: offer || poll on an "
     "empty ring is linearizable",
     OFFPOLL(1, 1, 1, 0)},
    {"V9b", "mpmc_value",
     "both edges at once: two producers and two consumers on an empty "
     "capacity-1 ring, linearizable",
     OFFPOLL(2, 2, 1, 0)},
    {"V10", "mpmc_value",
     "is_empty()'s seq_cst reads of cidx and pidx and its tag scan: not "
     "empty means the next poll succeeds",
     NONEMPTY(1, 8, OP_IS_EMPTY)},
    {"V11", "mpmc_value",
     "fill's hand-back CAS of pidx (else tombstones): a poll waiting at the "
     "edge re-reads pidx and finds the ring empty (one producer, capacity "
     "4)",
     HANDBACK(1, 4, 3, OP_POLL, 0)},
};

static const struct tq_desc *family(const char *name)
{
	for (size_t i = 0; i < tq_queue_count; i++)
		if (strcmp(tq_queues[i].name, name) == 0)
			return &tq_queues[i];
	return NULL;
}

__attribute__((constructor)) static void q_register(void)
{
	for (size_t i = 0; i < tq_queue_count; i++) {
		const struct tq_desc *d = &tq_queues[i];
		bool fits = d->memsize != NULL && d->init != NULL;
		if (!fits && d->create == NULL)
			continue; /* cannot be built */
		q_contract(d, false);
		if (fits ? d->init_at != NULL : d->create_at != NULL)
			q_contract(d, true);
	}
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
		const struct qlabel *l = &labels[i];
		const struct tq_desc *d = family(l->family);
		if (d == NULL) {
			fprintf(stderr,
				"conq-stress: label %s: family %s is not in "
				"tests/queues.h\n",
				l->label, l->family);
			abort();
		}
		struct qparam p = l->p;
		p.d = d;
		char name[96], ref[64];
		snprintf(name, sizeof name, "mm.%s.%s", l->label, d->name);
		snprintf(ref, sizeof ref, "docs/memory-model.md [%s]",
			 l->label);
		char *r = strdup(ref);
		if (r == NULL)
			abort();
		q_add(&p, name, r, l->what);
	}
}
