/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stress/litmus.c - the classic litmus shapes, each under the memory orders
 * where the answer differs: SB, MP (and lazySet publication of a plain
 * payload), LB, S, R, 2+2W, IRIW, coherence (CoRR, CoWR, CoRW, CoWW), RMW
 * atomicity and the release sequence.
 *
 * Variants: .rlx relaxed loads and stores; .ra release stores and acquire
 * loads; .sc seq_cst; .fence relaxed accesses with fences (CS_FENCE, which
 * the TSan build turns into seq_cst RMWs on a dummy word). Grades follow the
 * C11/RC11 model (../shared/research/verification.md section 3.3): an
 * outcome C11 allows is INTERESTING (seeing it is news about the hardware or
 * the compiler, not a bug), one it forbids is FORBIDDEN. The SB store-buffer
 * outcome is also REQUIRED on x86-64 (a canary: TSO shows it in most runs,
 * so a harness that never sees it is not racing its actors).
 *
 * Pairing, for the atomics rule: in every variant a release store (or
 * fence) pairs with the acquire load (or fence) of the same location (or
 * through it) in the other actor(s), and seq_cst accesses additionally join
 * the single total order S; the comment at each variant says what that
 * pairing does or does not forbid.
 *
 * Locations live on different cache lines (CS_LINE_GAP). Atomics here are
 * __atomic builtins on plain ints (as in include/conq/impl/atomic.h), because
 * the tests need orders that header does not name.
 */
#include "stress.h"

#define RLX __ATOMIC_RELAXED
#define ACQ __ATOMIC_ACQUIRE
#define REL __ATOMIC_RELEASE
#define SC  __ATOMIC_SEQ_CST

#define LD(p, o)    ((int64_t)__atomic_load_n((p), (o)))
#define ST(p, v, o) __atomic_store_n((p), (v), (o))
#define NOFENCE	    ((void)0)

struct xy {
	int x;
	CS_LINE_GAP(gap);
	int y;
};

/* A two-actor test on struct xy, in one declaration: t0 and t1 are the
 * actors' bodies (blocks over s and r, written as the test's desc writes
 * them), the rest are cs_test fields. clang-format is off from here to the
 * release sequence, to keep each body on one line. */
/* clang-format off */
#define LITMUS2(id, nm, dsc, t0, t1, ...)                                      \
	CS_ACTOR(id##_0, struct xy, s, r) t0                                   \
	CS_ACTOR(id##_1, struct xy, s, r) t1                                   \
	CS_TEST(id, .name = nm, .desc = dsc, CS_STATE(struct xy),              \
		CS_ACTORS(id##_0, id##_1), __VA_ARGS__)

/* ---- SB: x = 1; r0 = y  ||  y = 1; r1 = x ---- */

#define SB(v, sto, ldo, fence, g, req, d00, fl)                                \
	LITMUS2(sb_##v, "litmus.sb." #v,                                       \
		"SB (Dekker): x = 1; r0 = y || y = 1; r1 = x (" #v ")",        \
		{ ST(&s->x, 1, sto); fence; r[0] = LD(&s->y, ldo); },          \
		{ ST(&s->y, 1, sto); fence; r[1] = LD(&s->x, ldo); },          \
		.nresults = 2, .rnames = "r0, r1", .flags = fl,                \
		CS_OUTCOMES({"0, 0", g, req, d00},                             \
			    {"0, 1", CS_ACCEPTABLE, 0, "T0 before T1"},        \
			    {"1, 0", CS_ACCEPTABLE, 0, "T1 before T0"},        \
			    {"1, 1", CS_ACCEPTABLE, 0, "interleaved"}))

SB(rlx, RLX, RLX, NOFENCE, CS_INTERESTING, CS_ON_X86_64,
   "both loads passed the stores: store buffering (allowed; x86 canary)", 0)
/* The release stores pair with the acquire loads of the same location in
 * the other actor, which orders nothing here: release/acquire does not order
 * a store before a later load. seq_cst accesses (sc) also join the single
 * total order S, which forbids 0, 0. */
SB(ra, REL, ACQ, NOFENCE, CS_INTERESTING, CS_ON_X86_64,
   "store buffering; release/acquire allows it (x86 canary)", 0)
/* qemu-user 7.2 (x86 host) shows 0, 0 here: it lets STLR pass LDAR. */
SB(sc, SC, SC, NOFENCE, CS_FORBIDDEN, 0, "seq_cst forbids store buffering",
   CS_HW_SC_STORE_LOAD)
SB(fence, RLX, RLX, CS_FENCE(SC), CS_FORBIDDEN, 0,
   "seq_cst fences between store and load forbid store buffering", 0)

/* ---- MP: x = 1; y = 1  ||  r0 = y; r1 = x ---- */

#define MP(v, sto_x, sto_y, fence_w, ldo_y, fence_r, ldo_x, g, d10)            \
	LITMUS2(mp_##v, "litmus.mp." #v,                                       \
		"MP: x = 1; y = 1 || r0 = y; r1 = x (" #v ")",                 \
		{ ST(&s->x, 1, sto_x); fence_w; ST(&s->y, 1, sto_y); },        \
		{ r[0] = LD(&s->y, ldo_y); fence_r;                            \
		  r[1] = LD(&s->x, ldo_x); },                                  \
		.nresults = 2, .rnames = "r0 (flag), r1 (data)",               \
		CS_OUTCOMES({"1, 0", g, 0, d10},                               \
			    {"0, 0", CS_ACCEPTABLE, 0, "reader first"},        \
			    {"0, 1", CS_ACCEPTABLE, 0, "data seen, flag not"}, \
			    {"1, 1", CS_ACCEPTABLE, 0, "writer first"}))

MP(rlx, RLX, RLX, NOFENCE, RLX, NOFENCE, RLX, CS_INTERESTING,
   "flag seen, data not: allowed for relaxed (seen on Arm, not on x86)")
/* [release] y pairs with the [acquire] load of y. */
MP(ra, RLX, REL, NOFENCE, ACQ, NOFENCE, RLX, CS_FORBIDDEN,
   "flag seen, data not: release/acquire broken")
MP(sc, SC, SC, NOFENCE, SC, NOFENCE, SC, CS_FORBIDDEN,
   "flag seen, data not: seq_cst broken")
/* The release fence pairs with the acquire fence through the flag. */
MP(fence, RLX, RLX, CS_FENCE(REL), RLX, CS_FENCE(ACQ), RLX, CS_FORBIDDEN,
   "flag seen, data not: release fence / acquire fence broken")

/* ---- lazySet publication: a plain payload, a release flag ---- */

struct lazyset {
	int payload[4];
	CS_LINE_GAP(gap);
	int flag;
};

CS_ACTOR(lazyset_0, struct lazyset, s, r)
{
	/* Plain stores: a race only if the publication below is broken. */
	for (int i = 0; i < 4; i++)
		s->payload[i] = i + 1;
	/* release (lazySet / putOrdered): pairs with the acquire in
	 * lazyset_1. */
	ST(&s->flag, 1, REL);
}
CS_ACTOR(lazyset_1, struct lazyset, s, r)
{
	/* acquire: pairs with the release in lazyset_0. */
	r[0] = LD(&s->flag, ACQ);
	r[1] = -1;
	if (r[0]) {
		int64_t sum = 0;
		for (int i = 0; i < 4; i++)
			sum += s->payload[i];
		r[1] = sum;
	}
}
CS_TEST(lazyset, .name = "litmus.mp.lazyset",
	.desc = "lazySet publication: plain payload {1,2,3,4}, release flag "
		"|| acquire flag, then sum the payload",
	CS_STATE(struct lazyset), CS_ACTORS(lazyset_0, lazyset_1),
	.nresults = 2, .rnames = "flag, sum",
	CS_OUTCOMES({"0, -1", CS_ACCEPTABLE, 0, "not yet published"},
		    {"1, 10", CS_ACCEPTABLE, 0, "published, payload complete"},
		    {"1, *", CS_FORBIDDEN, 0,
		     "published, payload incomplete: release/acquire broken"}))

/* ---- LB: r0 = x; y = 1  ||  r1 = y; x = 1 ---- */

#define LB(v, ldo, fence, sto, g, d11)                                         \
	LITMUS2(lb_##v, "litmus.lb." #v,                                       \
		"LB: r0 = x; y = 1 || r1 = y; x = 1 (" #v ")",                 \
		{ r[0] = LD(&s->x, ldo); fence; ST(&s->y, 1, sto); },          \
		{ r[1] = LD(&s->y, ldo); fence; ST(&s->x, 1, sto); },          \
		.nresults = 2, .rnames = "r0, r1",                             \
		CS_OUTCOMES({"1, 1", g, 0, d11},                               \
			    {"0, 0", CS_ACCEPTABLE, 0, "interleaved"},         \
			    {"0, 1", CS_ACCEPTABLE, 0, "T0 first"},            \
			    {"1, 0", CS_ACCEPTABLE, 0, "T1 first"}))

LB(rlx, RLX, NOFENCE, RLX, CS_INTERESTING,
   "load buffering: C11 and Arm allow it, RC11 and x86 do not")
/* Each acquire load pairs with the other actor's release store. */
LB(ra, ACQ, NOFENCE, REL, CS_FORBIDDEN, "load buffering under acquire/release")
LB(sc, SC, NOFENCE, SC, CS_FORBIDDEN, "load buffering under seq_cst")
LB(fence, RLX, CS_FENCE(__ATOMIC_ACQ_REL), RLX, CS_FORBIDDEN,
   "load buffering across acq_rel fences")

/* ---- S: x = 2; y = 1  ||  r0 = y; x = 1; final x ---- */

#define S_(v, sto_x2, fence_w, sto_y, ldo_y, fence_r, sto_x1, g, d)            \
	LITMUS2(s_##v, "litmus.s." #v,                                         \
		"S: x = 2; y = 1 || r0 = y; x = 1; then final x (" #v ")",     \
		{ ST(&s->x, 2, sto_x2); fence_w; ST(&s->y, 1, sto_y); },       \
		{ r[0] = LD(&s->y, ldo_y); fence_r; ST(&s->x, 1, sto_x1); },   \
		.arbiter = final_x, .nresults = 2, .rnames = "r0, x",          \
		CS_OUTCOMES({"1, 2", g, 0, d},                                 \
			    {"1, 1", CS_ACCEPTABLE, 0, "T0 then T1"},          \
			    {"0, *", CS_ACCEPTABLE, 0, "T1 read y early"}))

CS_ARBITER(final_x, struct xy, s, r)
{
	r[1] = s->x;
}

S_(rlx, RLX, NOFENCE, RLX, RLX, NOFENCE, RLX, CS_INTERESTING,
   "T1 saw y, yet its x = 1 was overwritten by the older x = 2")
/* [release] y pairs with the [acquire] load of y. */
S_(ra, RLX, NOFENCE, REL, ACQ, NOFENCE, RLX, CS_FORBIDDEN,
   "x = 2 coherence-after T1's x = 1 although T1 acquired y")
S_(sc, SC, NOFENCE, SC, SC, NOFENCE, SC, CS_FORBIDDEN,
   "forbidden under seq_cst")
S_(fence, RLX, CS_FENCE(REL), RLX, RLX, CS_FENCE(ACQ), RLX, CS_FORBIDDEN,
   "forbidden with a release fence / acquire fence pair")

/* ---- R: x = 1; y = 1  ||  y = 2; r0 = x; final y ---- */

CS_ARBITER(final_y, struct xy, s, r)
{
	r[1] = s->y;
}

#define R_(v, sto0, sto1, fence, ldo, g, d, fl)                                \
	LITMUS2(r_##v, "litmus.r." #v,                                         \
		"R: x = 1; y = 1 || y = 2; r0 = x; then final y (" #v ")",     \
		{ ST(&s->x, 1, sto0); fence; ST(&s->y, 1, sto0); },            \
		{ ST(&s->y, 2, sto1); fence; r[0] = LD(&s->x, ldo); },         \
		.arbiter = final_y, .nresults = 2, .rnames = "r0, y",          \
		.flags = fl,                                                   \
		CS_OUTCOMES({"0, 2", g, 0, d},                                 \
			    {"0, 1", CS_ACCEPTABLE, 0, "T1 first"},            \
			    {"1, *", CS_ACCEPTABLE, 0, "T1 read x late"}))

R_(rlx, RLX, RLX, NOFENCE, RLX, CS_INTERESTING,
   "y = 2 last, yet x read 0: store buffering in T1 (TSO shows it)", 0)
/* The acquire load of x would pair with T0's release store of x, but
 * reading 0 creates no reads-from edge, so no synchronisation. */
R_(ra, REL, REL, NOFENCE, ACQ, CS_INTERESTING,
   "allowed under release/acquire (TSO shows it)", 0)
R_(sc, SC, SC, NOFENCE, SC, CS_FORBIDDEN, "forbidden under seq_cst",
   CS_HW_SC_STORE_LOAD)
R_(fence, RLX, RLX, CS_FENCE(SC), RLX, CS_FORBIDDEN,
   "forbidden with seq_cst fences in both threads", 0)

/* ---- 2+2W: x = 2; y = 1  ||  y = 2; x = 1; final (x, y) ---- */

CS_ARBITER(final_xy, struct xy, s, r)
{
	r[0] = s->x;
	r[1] = s->y;
}

#define W22(v, sto, fence, g, d)                                               \
	LITMUS2(w22_##v, "litmus.2+2w." #v,                                    \
		"2+2W: x = 2; y = 1 || y = 2; x = 1; then final x, y "         \
		"(" #v ")",                                                    \
		{ ST(&s->x, 2, sto); fence; ST(&s->y, 1, sto); },              \
		{ ST(&s->y, 2, sto); fence; ST(&s->x, 1, sto); },              \
		.arbiter = final_xy, .nresults = 2, .rnames = "x, y",          \
		CS_OUTCOMES({"2, 2", g, 0, d},                                 \
			    {"1, 1", CS_ACCEPTABLE, 0, "interleaved"},         \
			    {"1, 2", CS_ACCEPTABLE, 0, "T0 first"},            \
			    {"2, 1", CS_ACCEPTABLE, 0, "T1 first"}))

W22(rlx, RLX, NOFENCE, CS_INTERESTING,
    "both first stores last: write reordering (allowed; Arm)")
/* Release stores with no acquire anywhere: they pair with nothing. */
W22(rel, REL, NOFENCE, CS_INTERESTING,
    "allowed for release stores under RC11 (no reads-from edge)")
W22(sc, SC, NOFENCE, CS_FORBIDDEN, "forbidden under seq_cst")
W22(fence, RLX, CS_FENCE(SC), CS_FORBIDDEN,
    "forbidden with seq_cst fences between the stores")

/* ---- IRIW: x = 1 || y = 1 || r0 = x; r1 = y || r2 = y; r3 = x ---- */

#define IRIW(v, ldo, g, d)                                                     \
	CS_ACTOR(iriw_##v##_0, struct xy, s, r)                                \
	{                                                                      \
		ST(&s->x, 1, ldo == RLX ? RLX : ldo == ACQ ? REL : SC);        \
	}                                                                      \
	CS_ACTOR(iriw_##v##_1, struct xy, s, r)                                \
	{                                                                      \
		ST(&s->y, 1, ldo == RLX ? RLX : ldo == ACQ ? REL : SC);        \
	}                                                                      \
	CS_ACTOR(iriw_##v##_2, struct xy, s, r)                                \
	{                                                                      \
		r[0] = LD(&s->x, ldo);                                         \
		r[1] = LD(&s->y, ldo);                                         \
	}                                                                      \
	CS_ACTOR(iriw_##v##_3, struct xy, s, r)                                \
	{                                                                      \
		r[2] = LD(&s->y, ldo);                                         \
		r[3] = LD(&s->x, ldo);                                         \
	}                                                                      \
	CS_TEST(                                                               \
	    iriw_##v, .name = "litmus.iriw." #v,                               \
	    .desc = "IRIW: x = 1 || y = 1 || r0 = x; r1 = y || r2 = y; "       \
		    "r3 = x (" #v ")",                                         \
	    CS_STATE(struct xy),                                               \
	    CS_ACTORS(iriw_##v##_0, iriw_##v##_1, iriw_##v##_2, iriw_##v##_3), \
	    .nresults = 4, .rnames = "r0, r1, r2, r3", .min_cpus = 4,          \
	    CS_OUTCOMES({"1, 0, 1, 0", g, 0, d},                               \
			{"*, *, *, *", CS_ACCEPTABLE, 0,                       \
			 "consistent with one order of the writes"}))

IRIW(rlx, RLX, CS_INTERESTING,
     "the readers disagree on the order of the writes (POWER, Arm)")
/* Acquire loads pairing with release stores still allow it. */
IRIW(acq, ACQ, CS_INTERESTING,
     "the readers disagree on the order of the writes: release/acquire "
     "allows it")
IRIW(sc, SC, CS_FORBIDDEN,
     "the readers disagree on the order of the writes: seq_cst forbids it")

CS_ARBITER(final_x0, struct xy, s, r)
{
	r[2] = s->x;
}

/* ---- coherence (relaxed: the orders cannot make it weaker) ---- */

LITMUS2(corr, "litmus.co.rr", "CoRR: x = 1 || r0 = x; r1 = x (relaxed)",
	{ ST(&s->x, 1, RLX); },
	{ r[0] = LD(&s->x, RLX); r[1] = LD(&s->x, RLX); },
	.nresults = 2, .rnames = "r0, r1",
	CS_OUTCOMES({"0, 0", CS_ACCEPTABLE, 0, "both before"},
		    {"0, 1", CS_ACCEPTABLE, 0, "between"},
		    {"1, 1", CS_ACCEPTABLE, 0, "both after"},
		    {"1, 0", CS_FORBIDDEN, 0,
		     "read new then old: coherence broken (Cortex-A9 "
		     "761319)"}))

LITMUS2(cowr, "litmus.co.wr",
	"CoWR: x = 1; r0 = x || x = 2; then final x (relaxed)",
	{ ST(&s->x, 1, RLX); r[0] = LD(&s->x, RLX); },
	{ ST(&s->x, 2, RLX); },
	.arbiter = final_x, .nresults = 2, .rnames = "r0, x",
	CS_OUTCOMES({"1, *", CS_ACCEPTABLE, 0, "read its own write"},
		    {"2, 2", CS_ACCEPTABLE, 0, "x = 2 came between"},
		    {"2, 1", CS_FORBIDDEN, 0,
		     "read a write coherence-before its own"}))

LITMUS2(corw, "litmus.co.rw",
	"CoRW: r0 = x; x = 1 || x = 2; then final x (relaxed)",
	{ r[0] = LD(&s->x, RLX); ST(&s->x, 1, RLX); },
	{ ST(&s->x, 2, RLX); },
	.arbiter = final_x, .nresults = 2, .rnames = "r0, x",
	CS_OUTCOMES({"0, *", CS_ACCEPTABLE, 0, "read the initial value"},
		    {"2, 1", CS_ACCEPTABLE, 0, "x = 2 first"},
		    {"2, 2", CS_FORBIDDEN, 0,
		     "read x = 2, yet its own later write came before it"}))

LITMUS2(coww, "litmus.co.ww",
	"CoWW: x = 1; x = 2 || r0 = x; r1 = x; then final x (relaxed)",
	{ ST(&s->x, 1, RLX); ST(&s->x, 2, RLX); },
	{ r[0] = LD(&s->x, RLX); r[1] = LD(&s->x, RLX); },
	.arbiter = final_x0, .nresults = 3, .rnames = "r0, r1, x",
	CS_OUTCOMES({"0, 0..2, 2", CS_ACCEPTABLE, 0, "in order"},
		    {"1, 1..2, 2", CS_ACCEPTABLE, 0, "in order"},
		    {"2, 2, 2", CS_ACCEPTABLE, 0, "both after"},
		    {"2, 1, *", CS_FORBIDDEN, 0,
		     "saw the writes out of program order"}))

/* ---- RMW atomicity ---- */

LITMUS2(rmw_faa, "litmus.rmw.faa",
	"fetch_add(x, 1) || fetch_add(x, 1) (relaxed): returned "
	"values, then final x",
	{ r[0] = __atomic_fetch_add(&s->x, 1, RLX); },
	{ r[1] = __atomic_fetch_add(&s->x, 1, RLX); },
	.arbiter = final_x0, .nresults = 3, .rnames = "r0, r1, x",
	CS_OUTCOMES({"0, 1, 2", CS_ACCEPTABLE, 0, "T0 first"},
		    {"1, 0, 2", CS_ACCEPTABLE, 0, "T1 first"}))

LITMUS2(rmw_cas, "litmus.rmw.cas",
	"CAS(x, 0 -> 1) || CAS(x, 0 -> 2) (strong, relaxed): "
	"exactly one winner",
	{
		int expect = 0;
		r[0] = __atomic_compare_exchange_n(&s->x, &expect, 1, 0, RLX,
						   RLX);
	},
	{
		int expect = 0;
		r[1] = __atomic_compare_exchange_n(&s->x, &expect, 2, 0, RLX,
						   RLX);
	},
	.arbiter = final_x0, .nresults = 3, .rnames = "won0, won1, x",
	CS_OUTCOMES({"1, 0, 1", CS_ACCEPTABLE, 0, "T0 won"},
		    {"0, 1, 2", CS_ACCEPTABLE, 0, "T1 won"}))

LITMUS2(rmw_xchg, "litmus.rmw.xchg",
	"exchange(x, 1) || exchange(x, 2) (relaxed): one saw the "
	"other",
	{ r[0] = __atomic_exchange_n(&s->x, 1, RLX); },
	{ r[1] = __atomic_exchange_n(&s->x, 2, RLX); },
	.arbiter = final_x0, .nresults = 3, .rnames = "r0, r1, x",
	CS_OUTCOMES({"0, 1, 2", CS_ACCEPTABLE, 0, "T0 first"},
		    {"2, 0, 1", CS_ACCEPTABLE, 0, "T1 first"}))

/* The control: an increment split into a load and a store loses updates;
 * the grade is INTERESTING (it is what atomic RMWs exist for). */
CS_ARBITER(final_x_only, struct xy, s, r)
{
	r[0] = s->x;
}
LITMUS2(rmw_ldst, "litmus.rmw.load_store",
	"x = x + 1 as a relaxed load and a relaxed store, twice: "
	"the non-atomic control",
	{ ST(&s->x, (int)LD(&s->x, RLX) + 1, RLX); },
	{ ST(&s->x, (int)LD(&s->x, RLX) + 1, RLX); },
	.arbiter = final_x_only, .nresults = 1, .rnames = "x",
	CS_OUTCOMES({"2", CS_ACCEPTABLE, 0, "no overlap"},
		    {"1", CS_INTERESTING, 0,
		     "lost update: load/store is not an RMW"}))

/* clang-format on */

/* ---- release sequence: an RMW extends the release of a store ---- */

struct relseq {
	int data;
	CS_LINE_GAP(g1);
	int flag;
};

CS_ACTOR(relseq_0, struct relseq, s, r)
{
	ST(&s->data, 1, RLX);
	/* release: heads a release sequence that relseq_1's RMW continues;
	 * pairs with the acquire in relseq_2. */
	ST(&s->flag, 1, REL);
}
CS_ACTOR(relseq_1, struct relseq, s, r)
{
	(void)__atomic_fetch_add(&s->flag, 1, RLX);
}
CS_ACTOR(relseq_2, struct relseq, s, r)
{
	/* acquire: pairs with relseq_0's release, also when it reads the
	 * value written by relseq_1's RMW (the release sequence). */
	r[0] = LD(&s->flag, ACQ);
	r[1] = LD(&s->data, RLX);
}
CS_TEST(relseq, .name = "litmus.relseq.rmw",
	.desc = "release sequence: data = 1; flag = 1 (release) || "
		"fetch_add(flag, 1) (relaxed) || r0 = flag (acquire); r1 = "
		"data",
	CS_STATE(struct relseq), CS_ACTORS(relseq_0, relseq_1, relseq_2),
	.nresults = 2, .rnames = "flag, data",
	CS_OUTCOMES({"0, *", CS_ACCEPTABLE, 0, "reader first"},
		    {"1, 1", CS_ACCEPTABLE, 0, "read the release store"},
		    {"1, 0", CS_ACCEPTABLE, 0,
		     "read the RMW that came first (flag 0 -> 1): no "
		     "synchronisation"},
		    {"2, 1", CS_ACCEPTABLE, 0,
		     "read the RMW after the release store"},
		    {"2, 0", CS_FORBIDDEN, 0,
		     "RMW after the release store read, data not visible: "
		     "release sequence broken"}))
