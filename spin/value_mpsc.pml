/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/value_mpsc.pml - the claim, tag and hand-back protocol of
 * conq_mpsc_value (include/conq/mpsc_value.h, include/conq/impl/value.h,
 * conq__mpsc_value_wait in src/value.c; docs/memory-model.md, "The value
 * rings", VM1..VM7), in Promela, for an exhaustive search by Spin.
 *
 * What is modelled, as the header implements it:
 *  - CAP = 2 slots of element bytes (a value: no value is reserved, 0 is
 *    just "never written") and a tag per slot: lap(i) << 2 | state, lap(i)
 *    = i with the slot bit cleared, FULL 2, TOMB 3, compared with
 *    lap(c) << 2 through their difference read as signed. init stores
 *    FULL(i - CAP) in the slot of each first-lap index i. Indices pidx,
 *    cidx, plimit are IB = 4 bits wide (they wrap every 16), starting near
 *    the wrap; tags IB + 2 bits (every index bit in the lap: the header's
 *    static assertion, a lap apart stays unambiguous);
 *  - the claim (conq__mpsc_value_claim): plimit [VM4], pidx [VM3]; too
 *    little room on the limit: cidx [VM5], plimit stored if it moved
 *    [VM4], "full" if still too little; else a CAS of pidx [VM3], retried
 *    with the value it saw;
 *  - producers (NP, PER elements each, in any mix of): offer (claim 1,
 *    write, store FULL(i) [VM1]); offer_bulk of 2 (claim 2, write both,
 *    the second tag relaxed, the first with release [VM1]); claim/commit
 *    (claim 1, write, then commit: the slot's tag read relaxed and moved
 *    one lap on, conq__vtag_next_lap); with ABORT, one claim/abort each
 *    (the same, to TOMB, no element); with FILL = k, a last fill of up to
 *    k: claim (not all-or-nothing), the supplier gives any first j, the j
 *    are published FULL, and the other claimed indices are handed back
 *    with a CAS of pidx from the claim's end down to the first unfilled
 *    [VM3] when no producer claimed after them, else published TOMB;
 *  - the consumer: poll (the head tag [VM2]: FULL(c) take, TOMB(c) skip
 *    (consume it and look again), else read pidx [VM7]: equal to cidx,
 *    empty; else a bubble: conq__mpsc_value_wait, which re-reads the tag
 *    and pidx until the tag changes or pidx comes back down to c),
 *    relaxed_poll (stops at an uncommitted head without reading pidx),
 *    poll_burst of 2 (the head as relaxed_poll, then the next tag while
 *    FULL); consuming stores cidx [VM6]. The chase (a few more looks at
 *    the tag before pidx) is a delayed first look: not modelled.
 *
 * Spin explores every interleaving under sequential consistency (each
 * shared access one step); memory orders are the litmus tests' and TSan's
 * job (mm.VM1 .. mm.VM7 in conq-stress).
 *
 * Ghosts: g_live counts indices claimed (less those handed back) and not
 * consumed; g_pub elements committed; delivered. Safety (assert): every
 * element is delivered exactly once, from the index it was written at, in
 * order per producer; a producer writes only a slot whose previous lap the
 * consumer has consumed, and whose tag is still that lap's; offer (and a
 * fill) is false
 * only when the ring was full when its pidx was read (g_live >= CAP, or
 * more than CAP - n for offer_bulk of n; cidx only grows, and pidx may
 * come back down, so the pidx read is the moment); poll is empty only
 * when no index is claimed and unconsumed at its pidx read (g_live 0).
 * The search ends when the producers are done and every element they
 * committed has been delivered; a consumer waiting for good (at a bubble
 * nobody ends) or a lost element shows as an invalid end state: an empty
 * answer, or a full one, waits for a counter or the head tag to move before
 * it tries again, so that a stuck thread is a deadlock rather than a
 * polling loop. Progress (pan -l -f, weak fairness): `progress` marks a
 * delivered element.
 *
 * Planted bugs (-DBUG=n, each must make the check fail; spin/check.sh):
 *   1  the bubble wait does not re-read pidx (a fill's hand-back leaves the
 *      consumer waiting for a tag that never changes)
 *   2  fill hands its unfilled claims back with a plain store of pidx
 *      instead of a CAS (another producer's later claim is given away)
 *   3  the consumer delivers a tombstone as an element
 *   4  commit moves the tag to the claim's state without adding a lap
 *   5  poll decides "empty" at an uncommitted head tag without reading pidx
 *   6  the consumer takes a tag for a tombstone on its state bits alone,
 *      without its lap (a previous lap's TOMB is skipped as this lap's)
 */

#ifndef BUG
#define BUG 0
#endif

#define IB    4
#define IMOD  16              /* 2^IB */
#define IHALF 8
#define CAP   2
#define TMOD  64              /* tags: 2^(IB + 2) */
#define THALF 32
#ifndef NP
#define NP    2               /* producers */
#endif
#ifndef PER
#define PER   2               /* elements per producer: offer, bulk, claim */
#endif
#ifndef ABORT
#define ABORT 0               /* 1: one claim/abort per producer */
#endif
#ifndef FILL
#define FILL  0               /* k: a last fill of up to k per producer */
#endif
#ifndef START
#define START 13
#endif
#ifndef RELAXED
#define RELAXED 0             /* 1: relaxed_poll too (poll_burst covers it) */
#endif
#define VPP   (PER + FILL)    /* element values per producer */
#define NV    (NP * VPP + 1)

#define FULL  2
#define TOMB  3

#define DIFF(a, b) ((((a) - (b) + IMOD) % IMOD) >= IHALF -> \
		    (((a) - (b) + IMOD) % IMOD) - IMOD : (((a) - (b) + IMOD) % IMOD))
#define WRAP(x) (((x) + IMOD) % IMOD)
#define SLOT(i) ((i) % CAP)
/* conq__vtag: lap(i) << 2 | st */
#define VTAG(i, st) ((((i) - (i) % CAP) * 4 + (st)) % TMOD)
/* conq__vtag_state: (t - lap(i) << 2) read as signed */
#define VSTATE(t, i) ((((t) - VTAG(i, 0) + TMOD) % TMOD) >= THALF -> \
		      (((t) - VTAG(i, 0) + TMOD) % TMOD) - TMOD : \
		      (((t) - VTAG(i, 0) + TMOD) % TMOD))
/* conq__vtag_next_lap: (t & ~3) + (CAP << 2) | st */
#if BUG == 4
#define NEXT_LAP(t, st) (((t) - (t) % 4) % TMOD + (st))
#else
#define NEXT_LAP(t, st) (((t) - (t) % 4 + CAP * 4) % TMOD + (st))
#endif
/* The consumer's test of the head tag (conq__mpsc_value_head). */
#if BUG == 6
#define IS(t, c, st) ((st) == TOMB -> (t) % 4 == TOMB : (t) == VTAG(c, st))
#else
#define IS(t, c, st) ((t) == VTAG(c, st))
#endif

byte pidx = START, cidx = START, plimit = (START + CAP) % IMOD;
byte tags[CAP];
byte slots[CAP];
/* Ghosts. */
byte g_live = 0, g_pub = 0, delivered = 0, pdone = 0;
byte pos_of[NV];
bit seen[NV];
byte lastv[NP];

/* Store the tags of the n indices from p (state st): 1..n-1 relaxed first,
 * then the first with release (conq__mpsc_value_publish); pub elements. */
inline publish(p, n, st, pub)
{
	u = 1;
	do
	:: u < n -> tags[SLOT(WRAP(p + u))] = VTAG(WRAP(p + u), st); u++
	:: else -> break
	od;
	atomic {                                    /* VM1 */
		tags[SLOT(p)] = VTAG(p, st);
		g_pub = g_pub + pub
	}
}

proctype producer(byte id)
{
	byte k = 0, v, limit, newlim, p, want, need, n, j, u, i, t, snap, sc;
	int avail;
	bit aborted = 0, filled = 0, isfill, isclaim, isabort;
	do
	:: k >= PER && (ABORT == 0 || aborted) && (FILL == 0 || filled) -> break
	:: else ->
		/* each shared access a step, with the local decisions after it */
		atomic {
			isfill = 0; isclaim = 0; isabort = 0;
			if
			:: k < PER -> want = 1                  /* offer */
			:: k + 1 < PER -> want = 2              /* offer_bulk */
			:: k < PER -> want = 1; isclaim = 1     /* claim, commit */
			:: ABORT && !aborted -> want = 1; isabort = 1   /* abort */
			:: FILL && !filled && k >= PER && (ABORT == 0 || aborted) ->
				want = FILL; isfill = 1         /* fill */
			fi;
			need = (isfill -> 1 : want);
			v = id * VPP + k + 1;
			/* the claim: conq__mpsc_value_claim */
			limit = plimit                          /* VM4 */
		};
		atomic { p = pidx; snap = g_live };             /* VM3 */
claim:
		atomic {
			avail = DIFF(limit, p);
			if
			:: avail >= want -> n = want; goto cas
			:: else -> skip
			fi
		};
		atomic {                                        /* VM5 */
			sc = cidx;
			newlim = WRAP(sc + CAP);
			avail = DIFF(newlim, p);
			if
			:: avail < need ->
				/* full when p was read */
				assert(snap > CAP - need)
			:: else -> skip
			fi;
			if
			:: DIFF(newlim, limit) <= 0 ->
				limit = newlim;
				if
				:: avail < need -> goto noroom
				:: else -> skip
				fi
			:: else -> skip
			fi
		};
		if
		:: DIFF(newlim, limit) > 0 ->
			atomic {                                /* VM4 */
				plimit = newlim;
				limit = newlim;
				if
				:: avail < need -> goto noroom
				:: else -> skip
				fi
			}
		:: else -> skip
		fi;
		n = (avail < want -> avail : want);
cas:
		atomic {                                        /* VM3: the CAS */
			if
			:: pidx == p ->
				pidx = WRAP(p + n);
				g_live = g_live + n
			:: else ->
				p = pidx;
				snap = g_live;
				goto claim
			fi;
			/* the supplier of a fill gives any first j; the
			 * others all */
			if
			:: isfill ->
				j = 0;
				do
				:: j < n -> j++
				:: j < n -> break
				:: j == n -> break
				od
			:: isabort -> j = 0
			:: else -> j = n
			fi;
			u = 0
		};
		do
		:: u < j ->
			atomic {
				i = WRAP(p + u);
				/* the consumer has consumed i - CAP, and
				 * the tag is still that lap's */
				assert(DIFF(i, cidx) < CAP &&
				       (VSTATE(tags[SLOT(i)], WRAP(i - CAP)) == FULL ||
					VSTATE(tags[SLOT(i)], WRAP(i - CAP)) == TOMB));
				slots[SLOT(i)] = v + u;
				pos_of[v + u] = i;
				u++
			}
		:: u == j -> break
		od;
		if
		:: isclaim || isabort ->
			/* commit / abort (conq__mpsc_value_end_claim): the
			 * previous lap's tag, read relaxed, one lap on */
			atomic { t = tags[SLOT(p)] };
			atomic {                                /* VM1 */
				tags[SLOT(p)] = NEXT_LAP(t, (isabort -> TOMB : FULL));
				g_pub = g_pub + j
			}
		:: !isclaim && !isabort && j > 0 -> publish(p, j, FULL, j)
		:: else -> skip
		fi;
		if
		:: isfill && j < n ->
			/* fill's hand-back of p + j .. p + n - 1 */
#if BUG == 2
			atomic {
				pidx = WRAP(p + j);
				g_live = g_live - (n - j)
			}
#else
			atomic {                                /* VM3: the CAS */
				if
				:: pidx == WRAP(p + n) ->
					pidx = WRAP(p + j);
					g_live = g_live - (n - j);
					goto done
				:: else -> skip
				fi
			};
			publish(WRAP(p + j), n - j, TOMB, 0)
#endif
		:: else -> skip
		fi;
done:
		atomic {
			if
			:: isfill -> filled = 1
			:: isabort -> aborted = 1
			:: else -> k = k + n
			fi;
			goto next
		};
noroom:
		if
		:: isfill -> filled = 1                  /* a fill of nothing */
		:: else ->
			/* offer false: again once a counter moves off
			 * what it decided on */
			atomic { cidx != sc || pidx != p }
		fi;
next:
		atomic { limit = 0; newlim = 0; p = 0; want = 0; need = 0; n = 0;
			 j = 0; u = 0; i = 0; t = 0; snap = 0; sc = 0;
			 avail = 0; isfill = 0; isclaim = 0; isabort = 0; v = 0 }
	od;
	pdone++
}

proctype consumer()
{
	byte c, t, P, e, pp, m, op;
	byte h;                 /* 1 element, 2 tombstone, 0 nothing */
	do
	:: pdone == NP && delivered == g_pub -> break
	:: else ->
		atomic {
			c = 0; t = 0; P = 0; e = 0; pp = 0; m = 0; h = 0;
			if
			:: op = 0                       /* poll */
#if RELAXED
			:: op = 1                       /* relaxed_poll */
#endif
			:: op = 2                       /* poll_burst of 2 */
			fi
		};
front:
		atomic {                                /* VM2 */
			c = cidx;                       /* C's own */
			t = tags[SLOT(c)];
			if
			:: IS(t, c, FULL) -> h = 1; goto answer
			:: IS(t, c, TOMB) -> h = 2; goto answer
			:: !IS(t, c, FULL) && !IS(t, c, TOMB) && op != 0 ->
				h = 0; goto answer      /* relaxed: stop */
			:: else -> skip
			fi
		};
#if BUG == 5
		atomic { h = 0; assert(g_live == 0); goto answer };
#endif
		atomic {                                /* VM7 */
			P = pidx;
			assert(P != c || g_live == 0);
			if
			:: P == c -> h = 0; goto answer /* empty */
			:: else -> skip
			fi
		};
		/* a bubble: conq__mpsc_value_wait */
bubble:
#if BUG == 1
		atomic { tags[SLOT(c)] != t };
#else
		atomic { tags[SLOT(c)] != t || pidx == c };
#endif
		atomic {                                /* VM2 */
			t = tags[SLOT(c)];
			if
			:: IS(t, c, FULL) -> h = 1; goto answer
			:: IS(t, c, TOMB) -> h = 2; goto answer
#if BUG == 1
			:: else -> goto bubble
#else
			:: else -> skip
#endif
			fi
		};
		atomic {                                /* VM7 */
			P = pidx;
			assert(P != c || g_live == 0);
			if
			:: P == c -> h = 0
			:: else -> goto bubble
			fi
		};
answer:
#if BUG == 3
		atomic {
			if
			:: h == 2 -> h = 1
			:: else -> skip
			fi
		};
#endif
		if
		:: h == 2 ->
			atomic {                        /* VM6: a tombstone */
				cidx = WRAP(c + 1);
				g_live--;
				goto front
			}
		:: h == 1 && op == 2 ->
			atomic {                        /* VM2: the run's next */
				t = tags[SLOT(WRAP(c + 1))];
				m = (IS(t, WRAP(c + 1), FULL) -> 2 : 1);
				h = 0
			}
		:: h == 1 && op != 2 -> m = 1; h = 0
		:: h == 0 ->
			/* nothing: again once the head tag moves (or the
			 * pidx poll read) */
			atomic { (op == 0 && pidx != P) || tags[SLOT(c)] != t ||
				 (pdone == NP && delivered == g_pub) };
			goto next
		fi;
		do
		:: h < m ->
			atomic {
				e = slots[SLOT(WRAP(c + h))];
				assert(e != 0 && e < NV && !seen[e] &&
				       pos_of[e] == WRAP(c + h));
				pp = (e - 1) / VPP;
				assert(e > lastv[pp]);
				lastv[pp] = e;
				seen[e] = 1;
				delivered++;
				h++
			};
progress:
			skip
		:: h == m -> break
		od;
		atomic {                                /* VM6 */
			cidx = WRAP(c + m);
			g_live = g_live - m
		};
next:
		skip
	od
}

init
{
	byte i = 0;
	atomic {
		do
		:: i < CAP ->
			tags[SLOT(WRAP(START + i))] = VTAG(WRAP(START + i - CAP), FULL);
			i++
		:: else -> break
		od;
		i = 0;
		do
		:: i < NP -> run producer(i); i++
		:: else -> break
		od;
		run consumer()
	}
}
