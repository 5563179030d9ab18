/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/value_mc.pml - the tag protocol of the multi-consumer value rings,
 * conq_spmc_value (NP = 1) and conq_mpmc_value (NP = 2): Vyukov's queue
 * with conq_mpmc_array's edges over a tag array (include/conq/impl/
 * value_mc.h, include/conq/spmc_value.h, include/conq/mpmc_value.h, the
 * edges in src/value.c; docs/memory-model.md, "The value rings", V1..V11),
 * in Promela, for an exhaustive search by Spin.
 *
 * What is modelled, as the headers implement it:
 *  - CAP = 2 slots of element bytes (0 is "never written", not a reserved
 *    value) and a tag per slot: lap(i) << 2 | state, lap(i) = i with the
 *    slot bit cleared, FREE 0, FULL 2, TOMB 3, compared with lap(i) << 2
 *    through their difference read as signed (a state; negative, an
 *    earlier lap; 4 or more, a later one). init stores FREE(i) in the slot
 *    of each first-lap index i. pidx and cidx are IB = 4 bits wide (they
 *    wrap every 16), starting near the wrap; tags IB + 2 bits (every index
 *    bit in the lap: the header's static assertion);
 *  - the producers' claim (conq__vring_claim_put): MPMC reads pidx [V1],
 *    the single producer its own; the tag of the run's last index [V2]:
 *    FREE is room; a later state or lap is a stale p (MPMC: read pidx
 *    again); an earlier lap, for one index: the edge (conq__vring_edge_put:
 *    one more look, then cidx [V8]: full iff p - cidx >= CAP, else wait
 *    until the tag is FREE or, MPMC, pidx moved off p), for a run: cidx
 *    decides the room [V8]; then MPMC claims with a CAS of pidx [V1];
 *  - offer (claim 1, write, FULL(i) [V4], the single producer then pidx
 *    [V3]); relaxed_offer (RELAXED: no edge, false at an earlier lap);
 *    offer_bulk of K (claim K, each slot waited FREE, written, FULL);
 *    with ABORT, one claim (claim_burst of 1: claim, wait FREE) ended by
 *    abort (conq__vring_end_claim: the tag read relaxed, | TOMB) per MPMC
 *    producer; with FILL = k, a last fill of up to k: SPMC claims up to k
 *    at once, MPMC runs of 1, 2, ... (conq_mpmc_value_fill); each slot is
 *    waited FREE before the supplier is asked, which gives any first j;
 *    MPMC hands the rest back (conq__vring_unclaim: a CAS of pidx from the
 *    run's end down to its first unfilled index [V11], else tombstones,
 *    each slot waited FREE, TOMB [V4]); SPMC just does not publish them;
 *  - the consumers' claim (conq__vring_claim_take): cidx [V7], then the
 *    consecutive FULL/TOMB tags from it [V5] (up to KC); none: a later lap
 *    is a stale c (read cidx again); else SPMC answers empty without
 *    reading pidx, and MPMC goes to the edge (conq__vring_edge_take: one
 *    more look, then pidx [V9]: empty iff pidx <= c; else, strict, wait
 *    until the tag is committed, cidx moved, or pidx came back down to c
 *    (a hand-back), and read pidx again); then a CAS of cidx [V7]; each
 *    claimed index: a tombstone (the tag read relaxed) is passed, an
 *    element read; then the slot released, FREE(i + CAP) [V6]. Operations:
 *    poll (strict; passes tombstones and claims again), relaxed_poll
 *    (RELAXED, MPMC: false at a bubble or after a tombstone), poll_burst of
 *    KC (never waits), peek_claim / release (PEEKC: the run `pure`, the
 *    release the next lap of the tag read relaxed).
 *
 * What it reuses from spin/mpmc.pml (conq_mpmc_array, the same protocol on
 * cells {position, FULL bit}): the shape of the search (claims and the
 * edges as above, an empty poll or a full offer waiting for a counter to
 * move so that a stuck thread shows as a deadlock), the fill hand-back
 * (there a tombstone is a FULL cell holding NULL) and its planted bugs 5
 * and 7, here 3 and 4. New here: the tags' arithmetic (laps, truncation,
 * the next-lap and | state computations of commit, abort and release),
 * TOMB as a state of its own (abort, the hand-back's tombstones, pure runs),
 * the MPMC fill's runs of 1, 2, and the single producer: its consumers
 * decide "empty" on the tag alone, and the producer's pidx is not a claim.
 *
 * Spin explores every interleaving under sequential consistency (each
 * shared access one step); memory orders are the litmus tests' and TSan's
 * job (mm.V1 .. mm.V11 in conq-stress).
 *
 * Ghosts: g_pc counts indices claimed by producers (MPMC: at the CAS, less
 * those handed back; SPMC: published with pidx), g_cc those claimed by
 * consumers, g_pub elements committed, delivered. Safety (assert): every
 * element is delivered exactly once, from the index it was written at, in
 * increasing index order per consumer and in order per producer; a
 * producer writes only a slot whose tag is FREE for its index; a tag of a
 * later state or lap is met only by a thread whose index is stale (the
 * counter has moved past it); offer is false (full) only when g_pc - g_cc
 * >= CAP when its p was read (offer_bulk of n: more than CAP - n); a
 * SPMC poll is empty only when no element is committed and unclaimed at
 * its deciding read, the tag; a MPMC poll only when no index is claimed by
 * a producer and not by a consumer at its deciding read, pidx. The search
 * ends when the producers are done and every element they committed has
 * been delivered; a lost element or a thread waiting for good shows as an
 * invalid end state.
 *
 * Planted bugs (-DBUG=n, each must make the check fail; spin/check.sh):
 *   1  a SPMC consumer decides "empty" on a later-lap tag (a stale cidx)
 *      instead of reading cidx again
 *   2  the SPMC producer writes a slot whose tag is still of the previous
 *      lap (FULL, or claimed and not released) without reading cidx
 *   3  MPMC fill hands its unfilled claims back with a plain store of pidx
 *      instead of a CAS
 *   4  a MPMC poll waiting at the edge does not re-read pidx (it waits for
 *      good at an index fill handed back)
 *   5  a consumer delivers a tombstone as an element
 *   6  abort (end_claim) moves the tag a lap on (next_lap) instead of
 *      or-ing the state into FREE(i)
 *   7  the SPMC producer decides "full" on an earlier-lap tag without
 *      reading cidx (the consumer of i - CAP may be releasing the slot)
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
#define NP    1               /* 1: conq_spmc_value, 2: conq_mpmc_value */
#endif
#ifndef NC
#define NC    2
#endif
#ifndef PER
#define PER   3               /* elements per producer (offer, bulk) */
#endif
#ifndef K
#define K     1               /* offer_bulk of K too, if > 1 */
#endif
#ifndef KC
#define KC    1               /* poll_burst of KC */
#endif
#ifndef ABORT
#define ABORT 0               /* 1: one claim/abort per producer (MPMC) */
#endif
#ifndef FILL
#define FILL  0               /* k: a last fill of up to k per producer */
#endif
#ifndef RELAXED
#define RELAXED 0             /* 1: relaxed_offer, relaxed_poll too */
#endif
#ifndef PEEKC
#define PEEKC 0               /* 1: peek_claim / release too */
#endif
#ifndef START
#define START 14
#endif
#define MP    (NP > 1)
#define VPP   (PER + FILL)
#define NV    (NP * VPP + 1)

#define FREE  0
#define FULL  2
#define TOMB  3

#define DIFF(a, b) ((((a) - (b) + IMOD) % IMOD) >= IHALF -> \
		    (((a) - (b) + IMOD) % IMOD) - IMOD : (((a) - (b) + IMOD) % IMOD))
#define WRAP(x) (((x) + IMOD) % IMOD)
#define SLOT(i) ((i) % CAP)
#define VTAG(i, st) ((((i) - (i) % CAP) * 4 + (st)) % TMOD)
#define VSTATE(t, i) ((((t) - VTAG(i, 0) + TMOD) % TMOD) >= THALF -> \
		      (((t) - VTAG(i, 0) + TMOD) % TMOD) - TMOD : \
		      (((t) - VTAG(i, 0) + TMOD) % TMOD))
#define LOOK(i) VSTATE(tags[SLOT(i)], i)
/* conq__vtag_next_lap: (t & ~3) + (CAP << 2) | st */
#define NEXT_LAP(t, st) (((t) - (t) % 4 + CAP * 4) % TMOD + (st))

byte pidx = START, cidx = START;
byte tags[CAP];
byte slots[CAP];
/* Ghosts. */
byte g_pc = 0, g_cc = 0, g_pub = 0, delivered = 0, pdone = 0;
byte pos_of[NV];
bit seen[NV];
byte lastv[NC * NP];

#define DONE (pdone == NP && delivered == g_pub)

/* Write element v into the slot of index i, claimed and FREE(i). */
inline write(i, v)
{
	atomic {
		assert(LOOK(i) == FREE);
		slots[SLOT(i)] = v;
		pos_of[v] = i
	}
}

/* Publish index i: FULL with an element, else TOMB [V4]. */
inline publish(i, st)
{
	atomic {
		tags[SLOT(i)] = VTAG(i, st);
		if
		:: st == FULL -> g_pub++
		:: else -> skip
		fi
	}
}

/* conq__vring_wait_free: a consumer of i - CAP may still be releasing. */
inline wait_free(i)
{
	atomic { LOOK(i) == FREE }                          /* V2 */
}

/* The single producer's pidx after a run [V3]. */
inline published(next)
{
	if
	:: !MP ->
		atomic {
			g_pc = g_pc + DIFF(next, pidx);
			pidx = next
		}
	:: else -> skip
	fi
}

proctype producer(byte id)
{
	byte k = 0, nxt = 0, v, p, want, need, m, u, i, t, snap, sc, tseen, runlen, done;
	short dd;
	bit aborted = 0, filled = 0, op_fill, op_abort, wait;
	bool ok;
	do
	:: k >= PER && (ABORT == 0 || aborted) && (FILL == 0 || filled) -> break
	:: else ->
		atomic {
			op_fill = 0; op_abort = 0; wait = 1;
			if
			:: k < PER -> want = 1                  /* offer */
			:: RELAXED && k < PER -> want = 1; wait = 0     /* relaxed */
			:: K > 1 && k + K <= PER -> want = K    /* offer_bulk */
			:: ABORT && !aborted -> want = 1; op_abort = 1  /* abort */
			:: FILL && !filled && k >= PER && (ABORT == 0 || aborted) ->
				op_fill = 1; done = 0;
				runlen = (MP -> 1 : CAP);
				want = (FILL < runlen -> FILL : runlen)
			fi
		};
		/* conq__vring_claim_put (each shared access a step, with the
		 * local decisions after it) */
claim:
		atomic {                                        /* V1 */
			need = (op_fill -> 1 : want);
			p = pidx;       /* the single producer: its own */
			snap = g_pc - g_cc
		};
cp:
		atomic {                                        /* V2 */
			m = want;
			dd = LOOK(WRAP(p + m - 1));
			tseen = tags[SLOT(WRAP(p + m - 1))];
			sc = cidx;
			/* a later state or lap: p is stale */
			assert(dd <= 0 || DIFF(pidx, WRAP(p + m - 1)) > 0);
#if BUG == 2
			if
			:: !MP && dd < 0 -> dd = FREE   /* no edge at all */
			:: else -> skip
			fi;
#endif
			if
			:: dd == FREE -> goto cas
			:: dd > 0 -> goto stale
			:: dd < 0 && m > 1 -> goto room
			:: dd < 0 && m == 1 && !wait -> m = 0; goto claimed
			:: dd < 0 && m == 1 && wait -> goto edge
			fi
		};
room:
		atomic {
			dd = LOOK(p);
			if
			:: dd > 0 -> goto stale
			:: else -> skip
			fi
		};
		atomic {                                        /* V8 */
			sc = cidx;
			dd = DIFF(WRAP(sc + CAP), p);
			/* fewer than need free when p was read */
			assert(dd >= need || snap > CAP - need);
			if
			:: dd < need -> m = 0; goto claimed
			:: dd >= need && dd < m -> m = dd; goto cas
			:: else -> goto cas
			fi
		};
edge:
		/* conq__vring_edge_put: one more look */
		atomic {
			dd = LOOK(p);
			tseen = tags[SLOT(p)];
			sc = cidx;
			if
			:: dd >= 0 -> goto edge_back
			:: else -> skip
			fi
		};
#if BUG == 7
		atomic {
			if
			:: !MP ->                               /* "full" on the tag */
				assert(snap >= CAP);
				m = 0;
				goto claimed
			:: else -> skip
			fi
		};
#endif
		atomic {                                        /* V8 */
			sc = cidx;
			ok = DIFF(p, sc) >= CAP;
			/* full when p was read */
			assert(!ok || snap >= CAP);
			if
			:: ok -> m = 0; goto claimed            /* full */
			:: else -> skip
			fi
		};
		/* p - CAP is being released (or, MPMC, p is stale) */
		atomic { LOOK(p) >= 0 || (MP && pidx != p) };
edge_back:
		atomic {
			if
			:: MP -> p = pidx; snap = g_pc - g_cc   /* V1 */
			:: else -> skip
			fi;
			goto cp
		};
stale:
		atomic {
			assert(MP);     /* the single producer's p is its own */
			p = pidx;                               /* V1 */
			snap = g_pc - g_cc;
			goto cp
		};
cas:
		atomic {                                        /* V1: the CAS */
			if
			:: !MP -> skip
			:: MP && pidx == p ->
				pidx = WRAP(p + m);
				g_pc = g_pc + m
			:: MP && pidx != p ->
				p = pidx;
				snap = g_pc - g_cc;
				goto cp
			fi;
			u = 0
		};
claimed:
		if
		:: m == 0 && op_fill -> filled = 1
		:: m == 0 && !op_fill ->
			/* full (or relaxed: the slot not yet released):
			 * again once a counter or the tag moves */
			atomic { cidx != sc || pidx != p ||
				 tags[SLOT(WRAP(p + want - 1))] != tseen }
		:: m > 0 && op_abort ->
			wait_free(p);
			/* abort (conq__vring_end_claim): FREE(p) | TOMB, the
			 * tag read relaxed */
			atomic { t = tags[SLOT(p)] };
			atomic {                                /* V4 */
#if BUG == 6
				tags[SLOT(p)] = NEXT_LAP(t, TOMB);
#else
				tags[SLOT(p)] = t | TOMB;
#endif
				aborted = 1
			}
		:: m > 0 && op_fill ->
			do
			:: u < m ->
				i = WRAP(p + u);
				wait_free(i);
				if
				:: true ->                      /* supplied */
					atomic {
						v = id * VPP + nxt + 1;
						nxt++;
						write(i, v)
					};
					publish(i, FULL);
					done++;
					u++
				:: true -> break                /* ran dry */
				fi
			:: else -> break
			od;
			published(WRAP(p + u));
			if
			:: u < m ->
				if
				:: MP ->
					/* conq__vring_unclaim */
#if BUG == 3
					atomic {
						pidx = WRAP(p + u);
						g_pc = g_pc - (m - u)
					}
#else
					atomic {                /* V11 */
						if
						:: pidx == WRAP(p + m) ->
							pidx = WRAP(p + u);
							g_pc = g_pc - (m - u);
							ok = true
						:: else -> ok = false
						fi
					};
					if
					:: !ok ->
						do
						:: u < m ->
							i = WRAP(p + u);
							wait_free(i);
							publish(i, TOMB);
							u++
						:: else -> break
						od
					:: else -> skip
					fi
#endif
				:: else -> skip
				fi;
				filled = 1
			:: u >= m && m < want -> filled = 1
			:: else ->
				if
				:: MP && done < FILL ->         /* the next run */
					runlen = (runlen < 2 -> runlen * 2 : runlen);
					want = (FILL - done < runlen -> FILL - done : runlen);
					goto claim
				:: else -> filled = 1
				fi
			fi
		:: m > 0 && !op_fill && !op_abort ->
			/* offer (one index, FREE when claimed) or offer_bulk
			 * (each slot waited FREE) */
			do
			:: u < m && m > 1 -> wait_free(WRAP(p + u));
				atomic { i = WRAP(p + u); v = id * VPP + nxt + 1; nxt++; write(i, v) };
				atomic { publish(i, FULL); u++ }
			:: u < m && m == 1 ->
				atomic { i = WRAP(p + u); v = id * VPP + nxt + 1; nxt++; write(i, v) };
				atomic { publish(i, FULL); u++ }
			:: u == m -> break
			od;
			atomic { published(WRAP(p + m)); k = k + m }
		fi;
		atomic { v = 0; p = 0; want = 0; need = 0; m = 0; u = 0; i = 0;
			 t = 0; snap = 0; sc = 0; tseen = 0; dd = 0; ok = false;
			 op_fill = 0; op_abort = 0; wait = 0; runlen = 0; done = 0 }
	od;
	pdone++
}

proctype consumer(byte id)
{
	byte c, m, lim, u, i, e, pp, T, tseen, Pseen, lastp = 0, op;
	short dd, d0;
	bit any = 0, wait, pure, tomb, got, e0;
	bool ok;
	do
	:: DONE -> break
	:: else ->
		atomic {
			c = 0; m = 0; u = 0; i = 0; e = 0; pp = 0; T = 0; tseen = 0;
			Pseen = 0; dd = 0; d0 = 0; tomb = 0; got = 0; e0 = 0;
			ok = false;
			if
			:: op = 0; lim = 1; wait = 1; pure = 0  /* poll */
			:: RELAXED && MP -> op = 0; lim = 1; wait = 0; pure = 0
			:: KC > 1 -> op = 1; lim = KC; wait = 0; pure = 0  /* burst */
			:: PEEKC -> op = 2; lim = 1; wait = 1; pure = 1    /* peek_claim */
			fi
		};
again:
		/* conq__vring_claim_take */
		atomic { c = cidx; m = 0 };                     /* V7 */
ct:
		do
		:: atomic {                                     /* V5 */
			dd = LOOK(WRAP(c + m));
			/* a later lap: c + m is stale */
			assert(dd <= TOMB || DIFF(cidx, WRAP(c + m)) > 0);
			if
			:: m == 0 ->
				tseen = tags[SLOT(c)];
				Pseen = pidx;
				/* SPMC: nothing committed and unclaimed
				 * (the empty answer) */
				e0 = g_pub == g_cc;
				d0 = dd
			:: else -> skip
			fi;
			if
			:: (dd == FULL || dd == TOMB) && !(m > 0 && pure && dd != d0) ->
				m++;
				if
				:: m == lim -> break
				:: else -> skip
				fi
			:: else -> break
			fi
		   }
		od;
		if
		:: m == 0 ->
#if BUG == 1
			if
			:: !MP -> assert(e0); goto none
			:: else -> skip
			fi;
#endif
			if
			:: dd > TOMB ->                         /* c is stale */
				atomic { c = cidx; m = 0 };     /* V7 */
				goto ct
			:: dd <= TOMB && !MP -> assert(e0); goto none  /* empty */
			:: else -> skip
			fi;
			/* conq__vring_edge_take: one more look */
			atomic {
				dd = LOOK(c);
				tseen = tags[SLOT(c)];
				if
				:: dd >= FULL -> goto edge_back
				:: else -> skip
				fi
			};
edge:
			atomic {                                /* V9 */
				T = pidx;
				Pseen = T;
				ok = DIFF(T, c) <= 0;
				/* empty: nothing claimed and not taken */
				assert(!ok || g_pc == g_cc);
				if
				:: ok -> goto none              /* empty */
				:: !ok && !wait -> goto none    /* a bubble */
				:: else -> skip
				fi
			};
#if BUG == 4
			atomic { LOOK(c) >= FULL || cidx != c };
			goto edge_back;
#else
			atomic { LOOK(c) >= FULL || cidx != c || DIFF(pidx, c) <= 0 };
			atomic {
				if
				:: LOOK(c) >= FULL || cidx != c -> goto edge_back
				:: else -> goto edge
				fi
			};
#endif
edge_back:
			atomic { c = cidx; m = 0; goto ct }     /* V7 */
		:: else -> skip
		fi;
		atomic {                                        /* V7: the CAS */
			if
			:: cidx == c ->
				cidx = WRAP(c + m);
				g_cc = g_cc + m;
				got = 0;
				u = 0
			:: else ->
				c = cidx;
				m = 0;
				goto ct
			fi
		};
		do
		:: u < m ->
			atomic {
				i = WRAP(c + u);
				tomb = (tags[SLOT(i)] % 4 == TOMB);     /* relaxed */
#if BUG == 5
				tomb = 0;
#endif
				if
				:: !tomb ->
					e = slots[SLOT(i)];
					assert(e != 0 && e < NV && !seen[e] &&
					       pos_of[e] == i);
					assert(!any || DIFF(i, lastp) > 0);
					pp = (e - 1) / VPP;
					assert(e > lastv[id * NP + pp]);
					lastv[id * NP + pp] = e;
					seen[e] = 1;
					delivered++;
					any = 1;
					lastp = i;
					got = 1
				:: else -> skip
				fi
			};
			atomic {                                /* V6 */
				if
				:: op == 2 && !tomb ->
					/* release (conq__vring_release_n):
					 * the tag, ours, read relaxed, one
					 * lap on */
					T = tags[SLOT(i)];
					tags[SLOT(i)] = NEXT_LAP(T, FREE)
				:: else ->
					tags[SLOT(i)] = VTAG(WRAP(i + CAP), FREE)
				fi;
				u++;
				if
				:: u < m -> skip
				:: u == m && got -> goto next
				:: u == m && !got && op == 0 && !wait -> goto none
				:: u == m && !got && !(op == 0 && !wait) ->
					goto again      /* only tombstones */
				fi
			}
		od;
none:
		/* again once the head tag, cidx or pidx moves */
		atomic { tags[SLOT(c)] != tseen || cidx != c || pidx != Pseen || DONE };
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
			tags[SLOT(WRAP(START + i))] = VTAG(WRAP(START + i), FREE);
			i++
		:: else -> break
		od;
		i = 0;
		do
		:: i < NP -> run producer(i); i++
		:: else -> break
		od;
		i = 0;
		do
		:: i < NC -> run consumer(i); i++
		:: else -> break
		od
	}
}
