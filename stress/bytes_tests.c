/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stress/bytes_tests.c - conq-stress tests of conq_mpsc_bytes through its
 * real code: the publication of a record by its commit, the hand-back of
 * consumed space, and the reclaim rule of unblock against live producers
 * (docs/memory-model.md, conq_mpsc_bytes: B1-B8, CL1-CL3).
 *
 *   bytes.publish.claim     a producer claims, writes its payload with plain
 *                           stores, commits; then write()s a second record
 *                           || the consumer reads: a record it sees has its
 *                           whole payload ([B1]/[B2]), in order;
 *   bytes.publish.2p1c      two producers (claim/commit and write) on a
 *                           shared ring || the consumer reads: each
 *                           producer's records whole and in its order
 *                           ([B3] among producers);
 *   bytes.recycle           a full ring; the consumer peeks the head, reads
 *                           its payload, releases it || a producer claims
 *                           the space it frees and overwrites it: the
 *                           consumer's reads happen-before the reuse, and
 *                           the space arrives zeroed ([B6]/[B5], [B4]);
 *   bytes.unblock.live      a producer claims and commits twice on a shared
 *                           ring || the consumer calls unblock() again and
 *                           again, then reads: unblock never reclaims a live
 *                           producer's claim, whatever step it is at
 *                           ([CL1] before [B3], [B8], [CL2]);
 *   bytes.unblock.dead      a dead producer's claim at the head (crafted:
 *                           intent and tail moved, header zero, its pid
 *                           beyond pid_max) and a live producer claiming
 *                           and committing behind it || the consumer
 *                           unblocks and reads: the dead claim is
 *                           reclaimed, the live record never touched.
 *
 * Payloads are checked with plain loads right after the acquire that
 * should publish them, so a broken pair shows as a FORBIDDEN outcome here
 * and as a data race under ThreadSanitizer. The shared rings' arbiters
 * detach them (the actors' registry entries), as a process must before the
 * memory is reused.
 */
#include <errno.h>
#include <string.h>

#include "stress.h"

#include "conq/mpsc_bytes.h"

#define B_CAP	  256
#define B_ENTRIES 4
#define B_BYTES                                                                \
	(sizeof(conq_mpsc_bytes) + B_CAP + CONQ_PAD + sizeof(conq__claims) +   \
	 B_ENTRIES * sizeof(conq__claim_entry))
#define B_STATES 256 /* shared rings: each actor takes an entry in each */
#define B_TRIES	 64

struct bst {
	_Alignas(CONQ_PAD) unsigned char mem[B_BYTES];
	int64_t v[4];
};

static conq_mpsc_bytes *bq(struct bst *s)
{
	return (conq_mpsc_bytes *)(void *)s->mem;
}

static void b_init_private(void *st, const struct cs_test *t, uint64_t k)
{
	(void)t;
	(void)k;
	conq_mpsc_bytes_init(((struct bst *)st)->mem, B_CAP);
}

static void b_init_shared(void *st, const struct cs_test *t, uint64_t k)
{
	(void)t;
	(void)k;
	conq_mpsc_bytes_opts o = {CONQ_MPSC_BYTES_SHARED, B_ENTRIES, 0};
	conq_mpsc_bytes_init_opts(((struct bst *)st)->mem, B_CAP, &o);
}

/* Payload of record (producer p, sequence n): 3 words. */
static void b_put(void *d, unsigned p, unsigned n)
{
	uint64_t *w = (uint64_t *)d;
	for (unsigned i = 0; i < 3; i++)
		w[i] = (uint64_t)p << 32 | n << 8 | (i + 1); /* plain */
}

struct bcheck {
	unsigned next[2];
	int64_t got, bad;
};

/* A record's payload, checked with plain loads right after the acquire
 * that published it; per producer in order. */
static void b_check(void *ctx, int32_t type, const void *data, size_t len)
{
	struct bcheck *c = (struct bcheck *)ctx;
	const uint64_t *w = (const uint64_t *)data;
	unsigned p = (unsigned)(type - 1) / 16, n = (unsigned)(type - 1) % 16;
	c->got++;
	if (len != 24 || p > 1 || n != c->next[p]) {
		c->bad++;
		return;
	}
	for (unsigned i = 0; i < 3; i++)
		if (w[i] != ((uint64_t)p << 32 | n << 8 | (i + 1)))
			c->bad++;
	c->next[p] = n + 1;
}

static int32_t b_type(unsigned p, unsigned n)
{
	return (int32_t)(p * 16 + n + 1);
}

/* Producer p's record n: by claim/commit (a retry on a full ring). */
static void b_claim_commit(conq_mpsc_bytes *q, unsigned p, unsigned n)
{
	void *d;
	unsigned spins = 0;
	while ((d = conq_mpsc_bytes_claim(q, b_type(p, n), 24)) == NULL)
		cs_spin(&spins);
	b_put(d, p, n);
	conq_mpsc_bytes_commit(q, d);
}

static void b_write(conq_mpsc_bytes *q, unsigned p, unsigned n)
{
	uint64_t buf[3];
	b_put(buf, p, n);
	unsigned spins = 0;
	while (!conq_mpsc_bytes_write(q, b_type(p, n), buf, 24))
		cs_spin(&spins);
}

/* The arbiter's part: read what is left, into the consumer's tally. */
static void b_drain(struct bst *s, struct bcheck *c)
{
	while (conq_mpsc_bytes_read(bq(s), b_check, c, 16) != 0)
		;
}

/* ---- bytes.publish.claim ---- */

CS_ACTOR(pub_p, struct bst, s, r)
{
	b_claim_commit(bq(s), 0, 0);
	b_write(bq(s), 0, 1);
}

CS_ACTOR(pub_c, struct bst, s, r)
{
	struct bcheck c = {{0, 0}, 0, 0};
	for (int i = 0; i < 4 && c.got < 2; i++)
		conq_mpsc_bytes_read(bq(s), b_check, &c, 2);
	r[0] = c.got;
	s->v[0] = c.bad;
	s->v[1] = (int64_t)c.next[0];
}

CS_ARBITER(pub_arb, struct bst, s, r)
{
	struct bcheck c = {{(unsigned)s->v[1], 0}, r[0], s->v[0]};
	b_drain(s, &c);
	r[1] = c.bad;
	r[2] = c.got;
}

CS_TEST(bytes_pub, .name = "bytes.publish.claim",
	.desc = "claim, plain payload stores, commit; then write || read: a "
		"record seen has its payload, in order",
	.ref = "B1, B2", CS_STATE(struct bst), .init = b_init_private,
	CS_ACTORS(pub_p, pub_c), .arbiter = pub_arb, .nresults = 3,
	.rnames = "seen by the reader, bad, total",
	CS_OUTCOMES({"0..2, 0, 2", CS_ACCEPTABLE, 0,
		     "records whole and in order"},
		    {"*, *, *", CS_FORBIDDEN, 0,
		     "a record torn, lost, repeated or out of order"}))

/* ---- bytes.publish.2p1c ---- */

CS_ACTOR(pub2_p0, struct bst, s, r)
{
	b_claim_commit(bq(s), 0, 0);
	b_write(bq(s), 0, 1);
}

CS_ACTOR(pub2_p1, struct bst, s, r)
{
	b_write(bq(s), 1, 0);
	b_claim_commit(bq(s), 1, 1);
}

CS_ACTOR(pub2_c, struct bst, s, r)
{
	struct bcheck c = {{0, 0}, 0, 0};
	for (int i = 0; i < 8 && c.got < 4; i++)
		conq_mpsc_bytes_read(bq(s), b_check, &c, 4);
	r[0] = c.got;
	s->v[0] = c.bad;
	s->v[1] = (int64_t)c.next[0];
	s->v[2] = (int64_t)c.next[1];
}

CS_ARBITER(pub2_arb, struct bst, s, r)
{
	struct bcheck c = {{(unsigned)s->v[1], (unsigned)s->v[2]}, r[0],
			   s->v[0]};
	b_drain(s, &c);
	r[1] = c.bad;
	r[2] = c.got;
	conq_mpsc_bytes_detach(bq(s));
}

CS_TEST(bytes_pub2, .name = "bytes.publish.2p1c",
	.desc = "two producers (claim/commit, write) on a shared ring || "
		"read: each producer's records whole and in its order",
	.ref = "B1, B2, B3", CS_STATE(struct bst), .init = b_init_shared,
	CS_ACTORS(pub2_p0, pub2_p1, pub2_c), .arbiter = pub2_arb,
	.nresults = 3, .rnames = "seen by the reader, bad, total",
	.epoch_states = B_STATES,
	CS_OUTCOMES({"0..4, 0, 4", CS_ACCEPTABLE, 0,
		     "records whole and in order"},
		    {"*, *, *", CS_FORBIDDEN, 0,
		     "a record torn, lost, repeated or out of order"}))

/* ---- bytes.recycle ---- */

/* A full ring of 24-byte records (32 bytes each): 8 of them. */
static void b_init_full(void *st, const struct cs_test *t, uint64_t k)
{
	b_init_private(st, t, k);
	for (unsigned n = 0; n < 8; n++)
		b_write(bq((struct bst *)st), 0, n);
}

CS_ACTOR(rec_c, struct bst, s, r)
{
	int32_t type = 0;
	size_t len = 0;
	const uint64_t *w =
	    (const uint64_t *)conq_mpsc_bytes_peek(bq(s), &type, &len);
	int64_t ok = w != NULL && type == b_type(0, 0) && len == 24;
	for (unsigned i = 0; ok && i < 3; i++) /* plain loads */
		ok = w[i] == ((uint64_t)0 << 32 | 0 << 8 | (i + 1));
	r[0] = w == NULL ? 0 : ok ? 1 : 2;
	conq_mpsc_bytes_release(bq(s));
}

CS_ACTOR(rec_p, struct bst, s, r)
{
	void *d = NULL;
	unsigned spins = 0;
	for (int i = 0; i < B_TRIES && d == NULL; i++) {
		d = conq_mpsc_bytes_claim(bq(s), b_type(1, 0), 24);
		if (d == NULL)
			cs_spin(&spins);
	}
	if (d == NULL) {
		r[1] = 0;
		return;
	}
	/* The space comes zeroed, then we overwrite what the reader read. */
	const unsigned char *z = (const unsigned char *)d;
	int64_t zero = 1;
	for (unsigned i = 0; i < 24; i++)
		zero &= z[i] == 0;
	memset(d, 0xee, 24);
	conq_mpsc_bytes_commit(bq(s), d);
	r[1] = 1;
	r[2] = zero;
}

CS_TEST(bytes_rec, .name = "bytes.recycle",
	.desc = "full ring: peek the head, read its payload, release || claim "
		"the freed space, check it zero, overwrite it",
	.ref = "B4, B5, B6", CS_STATE(struct bst), .init = b_init_full,
	CS_ACTORS(rec_c, rec_p), .nresults = 3,
	.rnames = "reader (1 intact), claimed, zeroed",
	CS_OUTCOMES({"1, 1, 1", CS_ACCEPTABLE, 0,
		     "read intact, then the space reused, zeroed"},
		    {"1, 0, 0", CS_ACCEPTABLE, 0,
		     "read intact; the producer gave up first"},
		    {"*, *, *", CS_FORBIDDEN, 0,
		     "the reader saw the reuse, or the space was not zero"}))

/* ---- bytes.unblock.live ---- */

CS_ACTOR(ubl_p, struct bst, s, r)
{
	b_claim_commit(bq(s), 0, 0);
	b_claim_commit(bq(s), 0, 1);
}

CS_ACTOR(ubl_c, struct bst, s, r)
{
	int64_t reclaimed = 0;
	struct bcheck c = {{0, 0}, 0, 0};
	for (int i = 0; i < 16 && c.got < 2; i++) {
		reclaimed += conq_mpsc_bytes_unblock(bq(s));
		conq_mpsc_bytes_read(bq(s), b_check, &c, 2);
	}
	r[0] = reclaimed;
	s->v[0] = c.bad;
	s->v[1] = c.got;
	s->v[2] = (int64_t)c.next[0];
}

CS_ARBITER(ubl_arb, struct bst, s, r)
{
	struct bcheck c = {{(unsigned)s->v[2], 0}, s->v[1], s->v[0]};
	b_drain(s, &c);
	r[1] = c.bad;
	r[2] = c.got;
	conq_mpsc_bytes_detach(bq(s));
}

CS_TEST(bytes_ubl, .name = "bytes.unblock.live",
	.desc = "claim, commit, twice, on a shared ring || unblock, read, "
		"again and again: a live claim is never reclaimed",
	.ref = "CL1, CL2, B3, B8", CS_STATE(struct bst), .init = b_init_shared,
	CS_ACTORS(ubl_p, ubl_c), .arbiter = ubl_arb, .nresults = 3,
	.rnames = "reclaimed, bad, total", .epoch_states = B_STATES,
	CS_OUTCOMES({"0, 0, 2", CS_ACCEPTABLE, 0,
		     "nothing reclaimed, both records whole"},
		    {"*, *, *", CS_FORBIDDEN, 0,
		     "a live producer's claim reclaimed"}))

/* ---- bytes.unblock.dead ---- */

/* A claim of 24 payload bytes by a dead process at the head: its entry
 * (the last) holds the intent, the tail has moved, nothing is written. The
 * pid is above any pid_max (2^22), so kill(2) says ESRCH. */
static void b_init_dead(void *st, const struct cs_test *t, uint64_t k)
{
	b_init_shared(st, t, k);
	conq_mpsc_bytes *q = bq((struct bst *)st);
	conq__claim_entry *e =
	    &conq__claims_entries(conq__mpsc_bytes_reg(q))[B_ENTRIES - 1];
	e->owner = (uint64_t)0x7ffffff0 << 32 | 1;
	e->start = 1;
	e->intent = conq__claims_token(q->tail);
	q->tail = conq__idx_add(q->tail, 32);
}

CS_ACTOR(ubd_c, struct bst, s, r)
{
	int64_t reclaimed = 0;
	struct bcheck c = {{0, 0}, 0, 0};
	for (int i = 0; i < 16 && c.got < 2; i++) {
		reclaimed += conq_mpsc_bytes_unblock(bq(s));
		conq_mpsc_bytes_read(bq(s), b_check, &c, 2);
	}
	r[0] = reclaimed > 0;
	s->v[0] = c.bad;
	s->v[1] = c.got;
	s->v[2] = (int64_t)c.next[0];
}

CS_ARBITER(ubd_arb, struct bst, s, r)
{
	struct bcheck c = {{(unsigned)s->v[2], 0}, s->v[1], s->v[0]};
	for (int i = 0; i < 4; i++) {
		conq_mpsc_bytes_unblock(bq(s));
		b_drain(s, &c);
	}
	r[1] = c.bad;
	r[2] = c.got;
	conq_mpsc_bytes_detach(bq(s));
}

CS_TEST(bytes_ubd, .name = "bytes.unblock.dead",
	.desc = "a dead claim at the head, a live producer claims and commits "
		"behind it || unblock and read: the dead one reclaimed, the "
		"live one whole",
	.ref = "CL1, CL2, B7, B8", CS_STATE(struct bst), .init = b_init_dead,
	CS_ACTORS(ubl_p, ubd_c), .arbiter = ubd_arb, .nresults = 3,
	.rnames = "reclaimed by the reader, bad, total",
	.epoch_states = B_STATES,
	CS_OUTCOMES({"0..1, 0, 2", CS_ACCEPTABLE, 0,
		     "the dead claim reclaimed; the live records whole"},
		    {"*, *, *", CS_FORBIDDEN, 0,
		     "a live record reclaimed, torn or lost"}))
