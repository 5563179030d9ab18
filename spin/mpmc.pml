/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/mpmc.pml - the cell and counter protocol of conq_mpmc_array
 * (include/conq/mpmc_array.h, src/mpmc_array.c; docs/memory-model.md,
 * conq_mpmc_array), in Promela, for an exhaustive search by Spin.
 *
 * What is modelled, as the header implements it:
 *  - CAP cells; position p lives in cell p % CAP, whose state is the
 *    position it is for (cpos) and a FULL bit: FREE(p) is (p, 0), FULL(p)
 *    (p, 1), and the consumer of p releases it to FREE(p + CAP). Positions
 *    and the counters tail and head are IB = 4 bits wide (they wrap every
 *    16), compared through their difference read as signed, starting near
 *    the wrap;
 *  - offer (NP producers, PER elements each): read the tail t [Q1]; the
 *    cell of t FREE(t) [Q2]: claim t with a CAS of the tail [Q1], write
 *    the element, store FULL [Q4]. The cell of a later position (t stale):
 *    read the tail again. An earlier lap: look once more (the watch), then
 *    read the head [Q8]: t - head >= CAP is full (offer false, tried again
 *    later), else wait for the cell to change or the tail to move;
 *  - with K > 1, the producers offer in batches of K (offer_bulk): FREE in
 *    the cell of the K-th position is room for K; else the head decides;
 *    claim K with one CAS, then wait for each cell to be FREE and publish;
 *  - with FILL, each producer ends with a fill of up to K positions: claim
 *    as many as the last cell or the head allow, publish a first j of them
 *    (any j: the supplier may stop anywhere), and give the rest back: a
 *    CAS of the tail back down [Q12] if no producer claimed after them,
 *    else tombstones (FULL with no element). The elements the supplier did
 *    not give never exist;
 *  - poll (NC consumers): read the head h [Q7]; claim the consecutive FULL
 *    cells from h, up to KC (poll_burst; 1: poll) [Q5], with one CAS of
 *    the head; take each (a tombstone is passed) and release the cell to
 *    FREE(p + CAP) [Q6]. No FULL cell at h: a later lap is a stale h; else
 *    look once more, then read the tail [Q10]: at or below h is empty (poll
 *    NULL); else wait for the cell to change, the head to move off h or the
 *    tail to come back down to h (a hand-back), and look again.
 *
 * Spin explores every interleaving under sequential consistency (each
 * shared access one step); memory orders are the litmus tests' and TSan's
 * job (mm.Q1 .. mm.Q12 in conq-stress).
 *
 * Safety (assert): every element is delivered exactly once, from the
 * position it was published at, in increasing position order per consumer
 * and in order per producer; a producer writes only a FREE cell of its own
 * position; offer is false only when the queue was full at the moment its
 * t was read from the tail (tail - head >= CAP then: claimed positions not
 * handed back, less claimed polls); poll is NULL only when the tail was
 * not past the head at its deciding read. The search ends when the
 * producers are done and every element they published has been delivered:
 * a lost element or a thread stuck for good shows as an invalid end state.
 *
 * Planted bugs (-DBUG=n, each must make the check fail; spin/check.sh):
 *   1  offer decides "full" on a cell of an earlier lap without reading
 *      the head (Vyukov's inexact offer: the cell may be being released)
 *   2  poll decides "empty" on a FREE cell without reading the tail (a
 *      producer may have claimed the position and not published yet)
 *   3  poll claims on the tail's word (tail past h) and takes the element
 *      without waiting for FULL
 *   4  a batch claimed on the head's word is written without waiting for
 *      each cell to be FREE (a poll may still be releasing it)
 *   5  fill hands positions back with a plain store of the tail instead of
 *      a CAS (a producer that claimed after them is lost)
 *   6  poll releases the cell to FREE(p) instead of FREE(p + CAP)
 *   7  a poll waiting for a producer does not re-read the tail (it waits
 *      for good at a position fill handed back)
 */

#ifndef BUG
#define BUG 0
#endif

#define IB    4
#define IMOD  16              /* 2^IB */
#define IHALF 8
#ifndef CAP
#define CAP   2
#endif
#ifndef NP
#define NP    2               /* producers */
#endif
#ifndef NC
#define NC    1               /* consumers */
#endif
#ifndef PER
#define PER   2               /* elements per producer (single or bulk) */
#endif
#ifndef K
#define K     1               /* producers' batch (offer_bulk, fill) */
#endif
#ifndef KC
#define KC    1               /* consumers' batch (poll_burst) */
#endif
#ifndef FILL
#define FILL  0
#endif
#ifndef START
#define START 14              /* the wrap comes after 2 */
#endif
#define NV    (NP * (PER + K) + 1)

#define DIFF(a, b) ((((a) - (b) + IMOD) % IMOD) >= IHALF -> \
		    (((a) - (b) + IMOD) % IMOD) - IMOD : (((a) - (b) + IMOD) % IMOD))
#define WRAP(x) (((x) + IMOD) % IMOD)
#define CELL(p) ((p) % CAP)

byte tail = START, head = START;
byte cpos[CAP];
bit cfull[CAP];
byte celem[CAP];
/* Ghosts: elements published; delivered; the position of each element;
 * producers done. */
byte g_pub = 0, delivered = 0, pdone = 0;
byte pos_of[NV];
bit seen[NV];
byte lastv[NC * NP];     /* per consumer, its last element of each producer */

/* Publish v (0: a tombstone) at position t, claimed by the caller. */
inline publish(t, v)
{
	atomic {
		assert(cpos[CELL(t)] == t && !cfull[CELL(t)]);
		celem[CELL(t)] = v;
		if
		:: v != 0 -> pos_of[v] = t
		:: else -> skip
		fi
	}
	atomic {                                    /* Q4 */
		cfull[CELL(t)] = 1;
		if
		:: v != 0 -> g_pub++
		:: else -> skip
		fi
	}
}

/* Wait until the cell of p is FREE(p) (a poll releasing it). */
inline wait_free(p)
{
#if BUG == 4
	skip
#else
	atomic { cpos[CELL(p)] == p && !cfull[CELL(p)] }     /* Q2 */
#endif
}

proctype producer(byte id)
{
	byte k = 0, v, t, gh, hd, m, j, u, p, need;
	int d, room;
	bit f, isfill = 0, filled = 0;
	bool ok, isfull;
	do
	:: k >= PER && (!FILL || filled) -> break
	:: else ->
		isfill = k >= PER;
		v = id * (PER + K) + k + 1;
		if
		:: !isfill && K == 1 ->
			atomic { t = tail; gh = head }      /* Q1 */
retry:
			atomic {                            /* Q2 */
				d = DIFF(cpos[CELL(t)], t);
				f = cfull[CELL(t)]
			}
			if
			:: d == 0 && !f ->
				atomic {                    /* Q1: the CAS */
					if
					:: tail == t -> tail = WRAP(t + 1); ok = true
					:: else -> t = tail; gh = head; ok = false
					fi
				}
				if
				:: !ok -> goto retry
				:: else -> skip
				fi;
				publish(t, v);
				k++
			:: d > 0 || (d == 0 && f) ->        /* t stale */
				atomic { t = tail; gh = head };
				goto retry
			:: d < 0 ->
#if BUG == 1
				/* "full" on the cell alone */
				atomic { assert(DIFF(t, gh) >= CAP) };
				goto pnext;
#else
				atomic { d = DIFF(cpos[CELL(t)], t) }  /* the watch */
				if
				:: d >= 0 -> goto retry
				:: else -> skip
				fi;
				atomic {                    /* Q8 */
					hd = head;
					isfull = DIFF(t, hd) >= CAP;
					/* full when t was read */
					assert(!isfull || DIFF(t, gh) >= CAP)
				}
				if
				:: isfull ->                /* offer false */
					/* again once a counter moves */
					atomic { head != hd || tail != t };
					goto pnext
				:: else -> skip
				fi;
				/* t - CAP's poll is releasing the cell (or t
				 * is stale): wait for a change */
				atomic { DIFF(cpos[CELL(t)], t) >= 0 || tail != t };
				atomic { t = tail; gh = head };
				goto retry
#endif
			fi
		:: else ->
			/* offer_bulk of the next K elements (PER a multiple
			 * of K), or the final fill: up to K positions */
			need = (isfill -> 1 : K);
			atomic { t = tail; gh = head }      /* Q1 */
bretry:
			atomic {                            /* Q2: the K-th cell */
				d = DIFF(cpos[CELL(WRAP(t + K - 1))], WRAP(t + K - 1));
				f = cfull[CELL(WRAP(t + K - 1))]
			}
			if
			:: d == 0 && !f -> m = K
			:: else ->
				atomic {
					d = DIFF(cpos[CELL(t)], t);
					f = cfull[CELL(t)]
				}
				if
				:: d > 0 || (d == 0 && f) -> /* t stale */
					atomic { t = tail; gh = head };
					goto bretry
				:: else -> skip
				fi;
				atomic {                    /* Q8 */
					room = DIFF(WRAP(head + CAP), t);
					/* fewer than need free at the tail
					 * read */
					assert(room >= need ||
					       DIFF(WRAP(gh + CAP), t) < need)
				}
				if
				:: room < need -> goto bfull
				:: room < K -> m = room
				:: else -> m = K
				fi
			fi;
			atomic {                            /* Q1: the CAS */
				if
				:: tail == t -> tail = WRAP(t + m); ok = true
				:: else -> t = tail; gh = head; ok = false
				fi
			}
			if
			:: !ok -> goto bretry
			:: else -> skip
			fi;
			/* the supplier gives j (a bulk: all m) */
			j = 0;
			if
			:: !isfill -> j = m
			:: else ->
				do
				:: j < m -> j++
				:: j < m -> break
				:: j == m -> break
				od
			fi;
			u = 0;
			do
			:: u < j ->
				p = WRAP(t + u);
				wait_free(p);
				publish(p, v + u);
				u++
			:: else -> break
			od;
			if
			:: j < m ->
#if BUG == 5
				tail = WRAP(t + j);         /* a plain store */
#else
				atomic {                    /* Q12: the hand-back */
					if
					:: tail == WRAP(t + m) ->
						tail = WRAP(t + j); ok = true
					:: else -> ok = false
					fi
				}
				if
				:: !ok ->                   /* tombstones */
					u = j;
					do
					:: u < m ->
						p = WRAP(t + u);
						wait_free(p);
						publish(p, 0);
						u++
					:: else -> break
					od
				:: else -> skip
				fi
#endif
			:: else -> skip
			fi;
			if
			:: isfill -> filled = 1
			:: else -> k = k + K
			fi;
			goto pnext;
bfull:
			if
			:: isfill -> filled = 1            /* fill: nothing */
			:: else -> skip                    /* bulk false: again */
			fi
		fi;
pnext:
		atomic { t = 0; gh = 0; hd = 0; m = 0; j = 0; u = 0; p = 0; room = 0;
			 d = 0; f = 0; ok = false; isfull = false }
	od;
	pdone++
}

proctype consumer(byte id)
{
	byte h, m, u, p, v, pp, lastp = 0, T;
	int d;
	bit f, any = 0;
	bool ok;
	do
	:: pdone == NP && delivered == g_pub -> break
	:: else ->
		atomic { h = head }                 /* Q7 */
cretry:
		m = 0;
		do
		:: m < KC ->
			atomic {                    /* Q5 */
				d = DIFF(cpos[CELL(WRAP(h + m))], WRAP(h + m));
				f = cfull[CELL(WRAP(h + m))]
			}
			if
			:: d == 0 && f -> m++
			:: else -> break
			fi
		:: else -> break
		od;
		if
		:: m > 0 -> skip
		:: m == 0 && m < KC && (d > 0 || (d == 0 && f)) ->
			atomic { h = head };        /* h stale */
			goto cretry
		:: else ->
			/* FREE(h), or an earlier lap */
#if BUG == 2
			atomic { assert(DIFF(tail, head) <= 0) };  /* "empty" */
			goto cnext;
#elif BUG == 3
			atomic { T = tail };
			if
			:: DIFF(T, h) <= 0 -> goto cnext
			:: else -> m = 1            /* claim on the tail's word */
			fi
#else
			atomic { d = DIFF(cpos[CELL(h)], h); f = cfull[CELL(h)] }
			if                          /* the watch */
			:: d > 0 || (d == 0 && f) -> goto cretry
			:: else -> skip
			fi;
cedge:
			atomic {                    /* Q10 */
				T = tail;
				/* empty at this read */
				assert(DIFF(T, h) > 0 || DIFF(tail, head) <= 0)
			}
			if
			:: DIFF(T, h) <= 0 ->               /* poll NULL */
				/* polling again before the tail moves gives
				 * the same answer: wait for a change (so that
				 * producers stuck for good end the search as
				 * an invalid end state, not a polling loop) */
				atomic { tail != T || pdone == NP };
				goto cnext
			:: else -> skip
			fi;
			/* h's producer has claimed it: wait */
#if BUG == 7
			atomic { DIFF(cpos[CELL(h)], h) > 0 || cfull[CELL(h)] ||
				 head != h };
			goto cretry
#else
			atomic { DIFF(cpos[CELL(h)], h) > 0 || cfull[CELL(h)] ||
				 head != h || DIFF(tail, h) <= 0 };
			if
			:: DIFF(tail, h) <= 0 && head == h -> goto cedge
			:: else -> goto cretry
			fi
#endif
#endif
		fi;
		atomic {                            /* Q7: the CAS */
			if
			:: head == h -> head = WRAP(h + m); ok = true
			:: else -> h = head; ok = false
			fi
		}
		if
		:: !ok -> goto cretry
		:: else -> skip
		fi;
		u = 0;
		do
		:: u < m ->
			p = WRAP(h + u);
			atomic {                    /* take, then Q6 */
				v = celem[CELL(p)];
				if
				:: v != 0 ->
					assert(v < NV && !seen[v] && pos_of[v] == p);
					assert(!any || DIFF(p, lastp) > 0);
					pp = (v - 1) / (PER + K);
					assert(v > lastv[id * NP + pp]);
					lastv[id * NP + pp] = v;
					seen[v] = 1;
					delivered++
				:: else -> skip     /* a tombstone */
				fi;
				any = 1;
				lastp = p;
#if BUG == 6
				cpos[CELL(p)] = p;
#else
				cpos[CELL(p)] = WRAP(p + CAP);
#endif
				cfull[CELL(p)] = 0
			}
			u++
		:: else -> break
		od;
cnext:
		atomic { h = 0; m = 0; u = 0; p = 0; v = 0; pp = 0; T = 0; d = 0;
			 f = 0; ok = false }
	od
}

init
{
	byte i = 0;
	atomic {
		do
		:: i < CAP ->
			cpos[CELL(WRAP(START + i))] = WRAP(START + i);
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
