/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stress/refcount_tests.c - conq-stress tests of conq/refcount.h through its
 * real code (docs/memory-model.md, "Reference count": RC1-RC5):
 *
 *   refcount.mp.init        actor 0 writes a payload, inits the count to 2
 *                           (relaxed, [RC1]) and publishes the object with a
 *                           release store (the container's publication),
 *                           then releases its reference || actor 1
 *                           acquire-loads the pointer, retains, reads the
 *                           payload and the count, writes a field of its
 *                           own, releases twice: the count it sees is never
 *                           below its own two references (0 would be Netty
 *                           #14649's stale init), exactly one release is
 *                           the last, and the last sees every write;
 *   refcount.mp.queue       the same, published through a conq_spsc_array
 *                           (offer [S1] / poll [S2]) instead of the store;
 *   refcount.last.sees.all  a count of 2; each actor writes a field of the
 *                           object with a plain store and releases: the one
 *                           that gets true reads both fields, and must see
 *                           both writes ([RC2] -> [RC3] through the release
 *                           sequence);
 *   refcount.try_retain.zero a count of 1; actor 0 releases it || actor 1
 *                           try_retains (then reads the count and releases):
 *                           FORBIDDEN is a try_retain that succeeds after
 *                           the last release took the count to 0: actor
 *                           1's release would then be a last one too, and
 *                           both would free the object.
 *
 * And a planted bug the tables must catch (CS_EXPLICIT, run by ctest
 * stress_refcount_bug_caught, which expects the failure):
 *
 *   selfcheck.refcount.split  try_retain.zero with actor 1's try_retain
 *                           written as "if (get() != 0) retain()": the count
 *                           can reach 0 between the check and the retain,
 *                           on x86-64 as anywhere (no reordering needed, so
 *                           it is visible there; the ordering bugs of a
 *                           relaxed release would show on Arm only). The
 *                           retain from 0 saturates the count and reports
 *                           (a leak instead of the double free), which the
 *                           table forbids.
 *
 * Payloads are written and read with plain accesses, so a broken pair shows
 * as a FORBIDDEN outcome and as a data race under ThreadSanitizer. A hook
 * counts the reports on each state's count (any report is FORBIDDEN).
 */
#include <pthread.h>
#include <stdlib.h>

#include "stress.h"

#include "conq/refcount.h"
#include "conq/spsc_array.h"

#define RS_WORDS 4

struct robj {
	conq_refcount rc; /* first: the hook finds the object from it */
	int32_t pad_;
	int64_t events;		   /* hook reports on rc (relaxed adds) */
	int64_t payload[RS_WORDS]; /* actor 0's, plain */
	int64_t mark;		   /* actor 1's, plain */
};

struct rst {
	struct robj obj;
	CS_LINE_GAP(g0);
	struct robj *ptr; /* refcount.mp.init: the publication */
};

/* Room for a capacity-1 conq_spsc_array (checked by the init). */
#define RS_QBYTES (sizeof(conq_spsc_array) + 8 * sizeof(void *) + CONQ_PAD)

struct rstq {
	struct rst b;
	_Alignas(CONQ_PAD) unsigned char q[RS_QBYTES];
};

static void rs_hook(const conq_refcount *r, enum conq_refcount_event ev)
{
	(void)ev;
	struct robj *o = (struct robj *)(uintptr_t)r;
	__atomic_fetch_add(&o->events, 1, __ATOMIC_RELAXED);
}

static pthread_once_t rs_once = PTHREAD_ONCE_INIT;

static void rs_install(void)
{
	conq_refcount_set_hook(rs_hook);
}

static void rs_init(void *st, const struct cs_test *t, uint64_t k)
{
	(void)st;
	(void)t;
	(void)k;
	pthread_once(&rs_once, rs_install);
}

static void rs_fill(struct robj *o)
{
	for (int i = 0; i < RS_WORDS; i++)
		o->payload[i] = i + 1; /* plain */
}

static int64_t rs_payload_ok(const struct robj *o)
{
	int64_t ok = 1;
	for (int i = 0; i < RS_WORDS; i++)
		ok &= o->payload[i] == i + 1; /* plain */
	return ok;
}

/* ---- refcount.mp.init, refcount.mp.queue ----
 * r[0] actor 0's release was the last, r[1] then it saw every write,
 * r[2] actor 1's releases that returned true, r[3] actor 1 saw the payload,
 * r[4] the count actor 1 read while holding two references,
 * r[5] the final count, r[6] reports, r[7] the queue left empty (1). */

static void rs_mp_owner_release(struct robj *o, int64_t *r)
{
	if (conq_refcount_release(&o->rc)) {
		r[0] = 1;
		/* plain: actor 1's write, ordered by its releases ([RC2])
		 * before our acquire ([RC3]). */
		r[1] = rs_payload_ok(o) && o->mark == 1;
	}
}

/* Actor 1 with the object in hand (and the reference published with it). */
static void rs_mp_holder(struct robj *o, int64_t *r)
{
	conq_refcount_retain(&o->rc);
	r[4] = conq_refcount_get(&o->rc);
	r[3] = rs_payload_ok(o);
	o->mark = 1; /* plain */
	r[2] = conq_refcount_release(&o->rc);
	r[2] += conq_refcount_release(&o->rc);
}

CS_ACTOR(mpi_a0, struct rst, s, r)
{
	struct robj *o = &s->obj;
	rs_fill(o);
	conq_refcount_init(&o->rc, 2);
	/* The container's publication: pairs with actor 1's acquire. */
	__atomic_store_n(&s->ptr, o, __ATOMIC_RELEASE);
	rs_mp_owner_release(o, r);
}

CS_ACTOR(mpi_a1, struct rst, s, r)
{
	struct robj *o;
	unsigned spins = 0;
	/* Pairs with actor 0's release store of the pointer. */
	while ((o = __atomic_load_n(&s->ptr, __ATOMIC_ACQUIRE)) == NULL)
		cs_spin(&spins);
	rs_mp_holder(o, r);
}

CS_ARBITER(mpi_arb, struct rst, s, r)
{
	r[5] = conq_refcount_get(&s->obj.rc);
	r[6] = s->obj.events;
	r[7] = 1;
}

#define RS_MP_OUTCOMES                                                         \
	CS_OUTCOMES({"1, 1, 0, 1, 2..3, 0, 0, 1", CS_ACCEPTABLE, 0,            \
		     "actor 0's release was the last; it saw actor 1's "       \
		     "write"},                                                 \
		    {"0, 0, 1, 1, 2..3, 0, 0, 1", CS_ACCEPTABLE, 0,            \
		     "actor 1's last release was the last"},                   \
		    {"*, *, *, *, 0..1, *, *, *", CS_FORBIDDEN, 0,             \
		     "actor 1 saw fewer than its own two references (from 0: " \
		     "the init not published, Netty #14649)"},                 \
		    {"*, *, *, *, *, *, *, *", CS_FORBIDDEN, 0,                \
		     "a lost or repeated last release, an unseen write, a "    \
		     "count not back at 0, a report, or a queue not empty"})

#define RS_MP_RNAMES                                                           \
	"a0 last, a0 saw all, a1 lasts, a1 saw payload, count seen by a1, "    \
	"final count, reports, queue empty"

CS_TEST(rc_mp_init, .name = "refcount.mp.init",
	.desc = "payload, init(2) relaxed, release store of the pointer, "
		"release || acquire load, retain, read payload and count, "
		"write, release twice",
	.ref = "RC1, RC2, RC3", CS_STATE(struct rst), .init = rs_init,
	CS_ACTORS(mpi_a0, mpi_a1), .arbiter = mpi_arb, .nresults = 8,
	.rnames = RS_MP_RNAMES, RS_MP_OUTCOMES)

static conq_spsc_array *rs_q(struct rstq *s)
{
	return (conq_spsc_array *)(void *)s->q;
}

static void rs_init_queue(void *st, const struct cs_test *t, uint64_t k)
{
	rs_init(st, t, k);
	if (conq_spsc_array_memsize(1) > RS_QBYTES ||
	    conq_spsc_array_init(((struct rstq *)st)->q, 1) == NULL)
		abort(); /* RS_QBYTES too small: a bug of this file */
}

CS_ACTOR(mpq_a0, struct rstq, s, r)
{
	struct robj *o = &s->b.obj;
	rs_fill(o);
	conq_refcount_init(&o->rc, 2);
	/* The container's publication: offer ([S1], a release store). */
	unsigned spins = 0;
	while (!conq_spsc_array_offer(rs_q(s), o))
		cs_spin(&spins);
	rs_mp_owner_release(o, r);
}

CS_ACTOR(mpq_a1, struct rstq, s, r)
{
	struct robj *o;
	unsigned spins = 0;
	/* poll ([S2], an acquire load): pairs with actor 0's offer. */
	while ((o = (struct robj *)conq_spsc_array_poll(rs_q(s))) == NULL)
		cs_spin(&spins);
	rs_mp_holder(o, r);
}

CS_ARBITER(mpq_arb, struct rstq, s, r)
{
	r[5] = conq_refcount_get(&s->b.obj.rc);
	r[6] = s->b.obj.events;
	r[7] = conq_spsc_array_poll(rs_q(s)) == NULL;
}

CS_TEST(rc_mp_queue, .name = "refcount.mp.queue",
	.desc = "payload, init(2) relaxed, conq_spsc_array offer, release || "
		"poll, retain, read payload and count, write, release twice",
	.ref = "RC1, RC2, RC3, S1, S2", CS_STATE(struct rstq),
	.init = rs_init_queue, CS_ACTORS(mpq_a0, mpq_a1), .arbiter = mpq_arb,
	.nresults = 8, .rnames = RS_MP_RNAMES, RS_MP_OUTCOMES)

/* ---- refcount.last.sees.all ----
 * r[0] actor 0 got true, r[1] then it saw both writes, r[2] actor 1 got
 * true, r[3] then it saw both, r[4] the final count, r[5] reports. */

static void rs_init_two(void *st, const struct cs_test *t, uint64_t k)
{
	rs_init(st, t, k);
	conq_refcount_init(&((struct rst *)st)->obj.rc, 2);
}

static int64_t rs_both(const struct robj *o)
{
	return o->payload[0] == 1 && o->mark == 1; /* plain */
}

CS_ACTOR(lsa_a0, struct rst, s, r)
{
	s->obj.payload[0] = 1; /* plain */
	if (conq_refcount_release(&s->obj.rc)) {
		r[0] = 1;
		r[1] = rs_both(&s->obj);
	}
}

CS_ACTOR(lsa_a1, struct rst, s, r)
{
	s->obj.mark = 1; /* plain */
	if (conq_refcount_release(&s->obj.rc)) {
		r[2] = 1;
		r[3] = rs_both(&s->obj);
	}
}

CS_ARBITER(lsa_arb, struct rst, s, r)
{
	r[4] = conq_refcount_get(&s->obj.rc);
	r[5] = s->obj.events;
}

CS_TEST(rc_last_sees_all, .name = "refcount.last.sees.all",
	.desc = "count 2; write a field, release || write another, release: "
		"the one that gets true sees both writes",
	.ref = "RC2, RC3", CS_STATE(struct rst), .init = rs_init_two,
	CS_ACTORS(lsa_a0, lsa_a1), .arbiter = lsa_arb, .nresults = 6,
	.rnames = "a0 last, a0 saw both, a1 last, a1 saw both, final count, "
		  "reports",
	CS_OUTCOMES({"1, 1, 0, 0, 0, 0", CS_ACCEPTABLE, 0,
		     "actor 0 released last and saw both writes"},
		    {"0, 0, 1, 1, 0, 0", CS_ACCEPTABLE, 0,
		     "actor 1 released last and saw both writes"},
		    {"*, *, *, *, *, *", CS_FORBIDDEN, 0,
		     "no last release or two, the last one missed a write, or "
		     "the count not back at 0"}))

/* ---- refcount.try_retain.zero (and its planted bug) ----
 * r[0] actor 0's release was the last, r[1] actor 1's try_retain
 * succeeded, r[2] then the count it read, r[3] then its release was the
 * last, r[4] the final count, r[5] reports. */

static void rs_init_one(void *st, const struct cs_test *t, uint64_t k)
{
	rs_init(st, t, k);
	conq_refcount_init(&((struct rst *)st)->obj.rc, 1);
}

CS_ACTOR(trz_a0, struct rst, s, r)
{
	r[0] = conq_refcount_release(&s->obj.rc);
}

CS_ACTOR(trz_a1, struct rst, s, r)
{
	if (conq_refcount_try_retain(&s->obj.rc)) {
		r[1] = 1;
		r[2] = conq_refcount_get(&s->obj.rc);
		r[3] = conq_refcount_release(&s->obj.rc);
	}
}

CS_ARBITER(trz_arb, struct rst, s, r)
{
	r[4] = conq_refcount_get(&s->obj.rc);
	r[5] = s->obj.events;
}

#define RS_TRZ_OUTCOMES                                                        \
	CS_OUTCOMES(                                                           \
	    {"1, 0, 0, 0, 0, 0", CS_ACCEPTABLE, 0,                             \
	     "try_retain after the last release: false"},                      \
	    {"0, 1, 1..2, 1, 0, 0", CS_ACCEPTABLE, 0,                          \
	     "try_retain first; actor 1's release was the last"},              \
	    {"1, 1, 2, 0, 0, 0", CS_ACCEPTABLE, 0,                             \
	     "try_retain first; actor 1 released first, actor 0's "            \
	     "release was the last"},                                          \
	    {"1, 1, *, 1, *, *", CS_FORBIDDEN, 0,                              \
	     "both releases the last: try_retain succeeded after the "         \
	     "count reached 0, the object resurrected after its free"},        \
	    {"*, *, *, *, *, *", CS_FORBIDDEN, 0,                              \
	     "no last release, a count not back at 0, or a report (a "         \
	     "retain from 0, saturated)"})

#define RS_TRZ_RNAMES                                                          \
	"a0 last, a1 try_retain ok, count seen by a1, a1 last, final count, "  \
	"reports"

CS_TEST(rc_try_retain_zero, .name = "refcount.try_retain.zero",
	.desc = "count 1; release || try_retain (then get, release): never a "
		"try_retain from 0",
	.ref = "RC2, RC3", CS_STATE(struct rst), .init = rs_init_one,
	CS_ACTORS(trz_a0, trz_a1), .arbiter = trz_arb, .nresults = 6,
	.rnames = RS_TRZ_RNAMES, RS_TRZ_OUTCOMES)

/* The planted bug: try_retain as a check, then a retain. */
static bool rs_split_try_retain(conq_refcount *rc)
{
	if (conq_refcount_get(rc) == 0)
		return false;
	conq_refcount_retain(rc); /* the count may be 0 by now */
	return true;
}

CS_ACTOR(trzb_a1, struct rst, s, r)
{
	if (rs_split_try_retain(&s->obj.rc)) {
		r[1] = 1;
		r[2] = conq_refcount_get(&s->obj.rc);
		r[3] = conq_refcount_release(&s->obj.rc);
	}
}

CS_TEST(rc_bug_split, .name = "selfcheck.refcount.split",
	.desc = "planted bug: refcount.try_retain.zero with try_retain as "
		"get() != 0, then retain(): must fail",
	.ref = "RC2, RC3", CS_STATE(struct rst), .init = rs_init_one,
	CS_ACTORS(trz_a0, trzb_a1), .arbiter = trz_arb, .nresults = 6,
	.rnames = RS_TRZ_RNAMES, .flags = CS_EXPLICIT, RS_TRZ_OUTCOMES)
