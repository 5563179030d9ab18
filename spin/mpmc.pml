/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/mpmc.pml - the cell protocol of conq_mpmc_array
 * (include/conq/mpmc_array.h; docs/memory-model.md, conq_mpmc_array), in
 * Promela, for an exhaustive search by Spin.
 *
 * What is modelled, as the header implements offer() and poll():
 *  - CAP = 2 cells (or 1) of {seq, elem}; position p lives in cell
 *    p & (CAP - 1)
 *    (the header's remap is a bijection of the cells, left out); seq is
 *    lap(p) | state, lap(p) = (p & ~(CAP - 1)) << 2, states FREE, RES, FULL;
 *  - positions (tail, head and the hints headc, tailc) of IB = 4 bits and
 *    seq of IB + 2 bits, both wrapping, compared through signed
 *    differences, starting near the wrap;
 *  - offer: claim_put (an FAA of the tail when the hint headc shows
 *    room to spare, SLACK more than needed: 0 here, the most FAAs and so
 *    the most overshoots, where the library has 8 and a capacity of 2
 *    would never take the FAA path; else read the head (Q6), refresh
 *    headc, fail if full, CAS the tail (Q1)); reserve (Q2 load of seq;
 *    FREE(t): CAS to RES(t) (Q3); a later lap: the position was closed,
 *    claim another; an earlier lap: if the head is not past t - CAP (Q6),
 *    abandon t, else wait for the lap's consumer); publish (elem (Q4), then
 *    FULL(t) (Q5));
 *  - abandon (the queue was full): hand t back with a CAS of the tail
 *    t + 1 -> t (Q1); else record t in the abandoned-position table, HOLES
 *    = 1 entry here (the header has 8; HOLES = 0: a table always full):
 *    CAS EMPTY -> BUSY (Q15), pos
 *    (relaxed), count + 1 (Q19), READY (Q16); else, if the head is now past
 *    t - CAP (Q6), go back to waiting for the cell; else wait (the table is
 *    full) until one of those can change, and try again;
 *  - the claims at the edge look at the cell first (issue 12): a producer
 *    whose cell is FREE(t) (Q20) CASes the tail t -> t + 1 without reading
 *    the head, a consumer whose cell is RES(h) or FULL(h) (Q21) CASes the
 *    head without reading the tail; a lost CAS, or a cell that does not
 *    decide, goes on as below (the header also watches an undecided cell
 *    for a few pauses: more looks, the same steps). -DEVIDENCE=0 leaves
 *    them out: the 3x1 search of the table-full wait (capacity 1, no
 *    table entry), which with them grows from 13 to 45 million states,
 *    runs without; the other four searches have them;
 *  - poll: claim_take (FAA of the head when the hint tailc shows elements,
 *    else read the tail (Q11), refresh tailc, NULL if empty, CAS the head
 *    (Q7)); take (Q8 load; FULL(h): read elem, then FREE(h + CAP) (Q9);
 *    FREE(h): close it, CAS FREE(h) -> FREE(h + CAP) (Q10), only if the
 *    tail is at or below h (Q11: no producer holds h) or h is in the table
 *    (count (Q19), state (Q17), pos), then empty the entry (Q18, Q19);
 *    otherwise, and at RES or an earlier lap, wait. The header re-checks
 *    on the first look and on each yielding round; the model re-checks
 *    whenever the cell, the tail or the table has changed, which covers
 *    every such moment. No catch-up of the tail: consumers write only the
 *    head, the cells and the table.
 *
 * Bounds: NP producers offer K elements each, NC consumers poll until all
 * are delivered; at most CLAIMS positions are claimed per side (a given-up
 * position makes its producer claim another, and the bound also keeps any
 * stale position within the signed range of 4 bits). A thread that finds
 * the budget spent stops between operations; a producer waiting for a
 * consumer to empty the table stops when the consumers' budget is spent.
 *
 * Spin explores every interleaving under sequential consistency (each
 * shared access one step); memory orders are the litmus tests' and TSan's
 * job (the pairs [Q1]..[Q19] of docs/memory-model.md).
 *
 * Safety (assert):
 *  - every element is delivered at most once and from the position it was
 *    published at (no stale or overwritten cell); per consumer each
 *    producer's elements arrive in order; a producer publishes only into
 *    the cell it reserved;
 *  - the guarantee of the new protocol: a poll returns NULL (the tail not
 *    past the head) only when no producer holds a claimed, unpublished
 *    position below the tail, except one that a poll still in progress has
 *    claimed (it waits for it) and one its producer has given up
 *    (abandoned, handed back) or lost to a close that came first (its
 *    consumer saw the tail at or below it before the producer claimed it);
 *  - a consumer that reads the tail at or below its position h finds no
 *    producer holding h (so the close it then makes takes a position from
 *    nobody);
 *  - a claimed position's cell is moved past its lap only by its consumer
 *    (take never finds it later than FULL);
 *  - poll's "empty" holds: every reserved or full cell is below the head;
 *  - when every thread has finished within the bounds, every element was
 *    delivered; no deadlock (invalid end state: a consumer waiting for a
 *    position nobody holds, a producer waiting for a table nobody empties).
 * Progress (spin -l, weak fairness): `progress` marks a delivered element.
 *
 * Planted bugs (-DBUG=n, each must make the check fail; spin/check.sh):
 *   1  take frees the cell (Q9) before reading the element
 *   2  close stores FREE(h + CAP) without the CAS (ignores a reserve)
 *   3  reserve treats a closed cell (a later lap) as free
 *   4  the old rule: a consumer closes a position a producer holds after a
 *      bounded wait (at any time, here)
 *   5  the old give-up: a producer that finds the queue full drops its
 *      position without handing it back or recording it
 *   6  a consumer claims on the evidence of the cell (RES or FULL) with a
 *      load and a store of the head instead of the CAS (Q21)
 *   7  a producer that claimed t on the evidence of FREE(t) (Q20) takes
 *      the cell with a store instead of reserve's CAS (a consumer past the
 *      tail may have closed t in between)
 */

#ifndef BUG
#define BUG 0
#endif

#define IB     4
#define PMOD   16
#define PHALF  8
#define SMOD   64             /* 2^(IB + 2) */
#define SHALF  32
#ifndef CAP
#define CAP    2              /* capacity: 2, or 1 */
#endif
#define MASK   (CAP - 1)
#ifndef NP
#define NP     2              /* producers */
#endif
#ifndef NC
#define NC     2              /* consumers */
#endif
#ifndef K
#define K      1              /* elements per producer */
#endif
#ifndef CLAIMS
#define CLAIMS 4              /* positions claimed per side, at most */
#endif
#define START  14             /* the wrap comes after 2 positions */
#ifndef HOLES
#define HOLES  1              /* table entries: 1 (0: always full) */
#endif
#ifndef SLACK
#define SLACK  0              /* CONQ__MPMC_FAA_SLACK: 0, the most FAAs */
#endif
#ifndef EVIDENCE
#define EVIDENCE 1            /* the claims on the cell's evidence (Q20, Q21) */
#endif

#define FREE 0
#define RES  1
#define FULL 2

/* Abandoned-position entry states (CONQ__MPMC_HOLE_*). */
#define HEMPTY 0
#define HBUSY  1
#define HREADY 2

#define PWRAP(x) (((x) + PMOD) % PMOD)
#define SWRAP(x) (((x) + SMOD) % SMOD)
#define PDIFF(a, b) ((((a) - (b) + PMOD) % PMOD) >= PHALF -> \
		     (((a) - (b) + PMOD) % PMOD) - PMOD : (((a) - (b) + PMOD) % PMOD))
#define SDIFF(a, b) ((((a) - (b) + SMOD) % SMOD) >= SHALF -> \
		     (((a) - (b) + SMOD) % SMOD) - SMOD : (((a) - (b) + SMOD) % SMOD))
#define LAP(p) ((((p) & (PMOD - 1 - MASK)) * 4) % SMOD)
/* The position a cell's seq serves. */
#define CPOS(c) ((((cseq[c] >> 2) & (PMOD - 1)) | (c)))
/* Position p's cell is past p's lap: p was closed (it is claimed). */
#define CLOSED(p) (SDIFF(cseq[(p) & MASK], LAP(p)) > FULL)
/* A cell holding an element, or about to: RES or FULL. */
#define BUSY(c) ((cseq[c] & 3) == RES || (cseq[c] & 3) == FULL)

byte cseq[CAP];
byte celem[CAP];              /* element: pid * 8 + seq; 0 none */
byte tail = START, headc = START, head = START, tailc = START;
byte pclaims = 0, cclaims = 0;
/* The abandoned-position table: one entry, and its count (a hint). */
byte hstate = HEMPTY, hpos = 0, nholes = 0;
/* Positions in hand: producer j's claimed position (its t), consumer i's
 * (its h); global so that the assertions can see them. */
byte gt[NP], gh[NC];
/* Ghosts: does producer j hold gt[j] (claimed, not yet published, given up
 * or found closed)? Was it closed by a consumer that had seen the tail at
 * or below it before the claim (lost, legitimately)? Is consumer i in take
 * (it has claimed gh[i] and not moved on)? */
bit hold[NP], lost[NP], taking[NC];
/* Ghosts: where each element was published, what was delivered. */
byte pos_of[NP * K];
bit seen[NP * K];
byte delivered = 0;
byte finished = 0;

/* Up to 3 producers and 2 consumers: thread j % NP (a repeat is harmless). */
#define P1 (1 % NP)
#define P2 (2 % NP)
#define C1 (1 % NC)
/* Does a producer hold position p? */
#define HOLDS(j, p) (hold[j] && gt[j] == (p))
#define HELD(p) (HOLDS(0, p) || HOLDS(P1, p) || HOLDS(P2, p))
/* Is a poll in progress that has claimed p (and so waits for it)? */
#define TAKING(p) ((taking[0] && gh[0] == (p)) || (taking[C1] && gh[C1] == (p)))
/* Producer j holds a position below the tail t that no poll is waiting
 * for, and that it has not lost to a legitimate close. */
#define STRANDED(j, t) (hold[j] && !lost[j] && PDIFF(gt[j], t) < 0 && \
			!TAKING(gt[j]))
/* A close of h that the consumer may make (ok: it saw the tail at or below
 * h): a producer that holds h now claimed it after that look, and has lost
 * it. */
#define LOSE1(j, hh) if :: ok && HOLDS(j, hh) -> lost[j] = 1 :: else -> skip fi
#define LOSE(hh) LOSE1(0, hh); LOSE1(P1, hh); LOSE1(P2, hh)

/*
 * One step = one shared access, with the local computation that follows it
 * (atomic), so that Spin interleaves exactly the accesses. A spin-wait is a
 * step that blocks until what it waits for can have changed.
 */
proctype producer(byte id)
{
	byte seq = 1, h, c, s, lap;
	int d;
	bool ok;
	do
	:: seq > K -> break
	:: else ->
retry:
		atomic {                            /* Q1: load the tail */
			if
			:: pclaims >= CLAIMS -> ok = false   /* the bound */
			:: else -> gt[id] = tail; ok = true
			fi
		}
		if
		:: !ok -> break
		:: else -> skip
		fi;
		atomic {                            /* the hint (relaxed) */
			ok = PDIFF(PWRAP(headc + CAP), gt[id]) >= 1 + SLACK
		}
		if
		:: ok ->
			atomic {                    /* Q1: FAA */
				gt[id] = tail;
				tail = PWRAP(tail + 1);
				pclaims++;
				hold[id] = 1; lost[id] = CLOSED(gt[id])
			}
		:: else ->
#if EVIDENCE
			/* Q20: the cell of t decides when it can: FREE(t)
			 * is room (t - CAP's consumer freed it). */
			atomic {
				c = gt[id] & MASK;
				d = SDIFF(cseq[c], LAP(gt[id]))
			}
			if
			:: d == FREE ->
				atomic {            /* Q1: CAS */
					if
					:: tail == gt[id] ->
						tail = PWRAP(gt[id] + 1);
						pclaims++;
						hold[id] = 1;
						lost[id] = CLOSED(gt[id]);
						ok = true
					:: else ->
						gt[id] = tail;
						ok = false
					fi
				}
				if
#if BUG == 7
				:: ok ->            /* no reserve CAS */
					atomic {
						lap = LAP(gt[id]);
						cseq[c] = lap | RES
					}
					goto publish
#else
				:: ok -> goto reserve
#endif
				:: else -> skip     /* lost: the head decides */
				fi
			:: else -> skip
			fi;
#endif
cas:
			atomic {                    /* Q6 */
				h = head;
				ok = PDIFF(PWRAP(h + CAP), gt[id]) >= 1
			}
			headc = h;                  /* the hint (relaxed) */
			if
			:: !ok -> goto next         /* full: offer is false */
			:: else -> skip
			fi;
			atomic {                    /* Q1: CAS */
				if
				:: tail == gt[id] ->
					tail = PWRAP(gt[id] + 1);
					pclaims++;
					hold[id] = 1; lost[id] = CLOSED(gt[id]);
					ok = true
				:: else ->
					gt[id] = tail;
					ok = false
				fi
			}
			if
			:: !ok -> goto cas
			:: else -> skip
			fi
		fi;
reserve:
		atomic {                            /* Q2 */
			c = gt[id] & MASK;
			lap = LAP(gt[id]);
			s = cseq[c];
			d = SDIFF(s, lap)
		}
rloop:
#if BUG == 3
		if
		:: d > FULL -> d = FREE
		:: else -> skip
		fi;
#endif
		if
		:: d == FREE ->
			atomic {                    /* Q3 */
				if
				:: cseq[c] == s || (BUG == 3 && SDIFF(cseq[c], lap) > FULL) ->
					cseq[c] = lap | RES;
					ok = true
				:: else ->
					s = cseq[c];
					d = SDIFF(s, lap);
					ok = false
				fi
			}
			if
			:: ok -> goto publish
			:: else -> goto rloop
			fi
		:: d > 0 ->                         /* closed: another */
			atomic { hold[id] = 0; lost[id] = 0 };
			goto retry
		:: d < 0 ->
			atomic {                    /* Q6 */
				ok = PDIFF(head, PWRAP(gt[id] - CAP)) <= 0
			}
			if
			:: ok -> goto abandon       /* full: give it up */
			:: else -> goto lapwait
			fi
		fi;
lapwait:
		atomic {                            /* Q2: wait for the lap */
			cseq[c] != s ->
			s = cseq[c];
			d = SDIFF(s, lap)
		}
		goto rloop;
abandon:
#if BUG == 5
		/* The old give-up: leave the position to its consumer. */
		atomic { hold[id] = 0; lost[id] = 0 };
		goto retry;
#endif
		atomic {                            /* Q1: hand back t + 1 -> t */
			if
			:: tail == PWRAP(gt[id] + 1) ->
				tail = gt[id];
				hold[id] = 0; lost[id] = 0;
				ok = true
			:: else -> ok = false
			fi
		}
		if
		:: ok -> goto retry                 /* claim again */
		:: else -> skip
		fi;
		atomic {                            /* Q15: CAS EMPTY -> BUSY */
			if
			:: HOLES > 0 && hstate == HEMPTY ->
				hstate = HBUSY; ok = true
			:: else -> ok = false
			fi
		}
		if
		:: ok ->
			hpos = gt[id];              /* relaxed */
			nholes++;                   /* Q19 */
			atomic {                    /* Q16: READY */
				hstate = HREADY;
				hold[id] = 0; lost[id] = 0
			}
			goto retry                  /* claim again */
		:: else -> skip
		fi;
		atomic {                            /* Q6 */
			ok = PDIFF(head, PWRAP(gt[id] - CAP)) > 0
		}
		if
		:: ok -> goto lapwait               /* room again */
		:: else -> skip
		fi;
		/* The table is full: wait until the tail, the entry or the head
		 * may let us through (or the consumers' budget is spent). */
		atomic {
			tail == PWRAP(gt[id] + 1) ||
			(HOLES > 0 && hstate == HEMPTY) ||
			PDIFF(head, PWRAP(gt[id] - CAP)) > 0 ||
			cclaims >= CLAIMS
		}
		if
		:: cclaims >= CLAIMS && tail != PWRAP(gt[id] + 1) &&
		   (HOLES == 0 || hstate != HEMPTY) &&
		   PDIFF(head, PWRAP(gt[id] - CAP)) <= 0 ->
			atomic { hold[id] = 0; lost[id] = 0 };
			break                       /* the bound */
		:: else -> goto abandon
		fi;
publish:
		atomic {                            /* Q4 */
			assert(cseq[c] == (lap | RES));
			/* no lost element: its consumer has not passed t */
			assert(PDIFF(gt[id], head) >= 0 || TAKING(gt[id]));
			celem[c] = id * 8 + seq;
			pos_of[id * K + seq - 1] = gt[id]
		}
		atomic {                            /* Q5 */
			cseq[c] = lap | FULL;
			seq++;
			hold[id] = 0; lost[id] = 0; gt[id] = 0;
			h = 0; c = 0; s = 0; lap = 0; d = 0; ok = false
		}
		goto done;
next:
		atomic { gt[id] = 0; h = 0; c = 0; s = 0; lap = 0; d = 0; ok = false }
done:
		skip
	od;
	finished++
}

proctype consumer(byte id)
{
	byte t, c, s, lap, nxt, e, i;
	int d;
	bool ok, sanct, hole;
	byte last[NP];
	do
	:: atomic {
		delivered == NP * K || cclaims >= CLAIMS   /* or the bound */
	   } -> break
	:: else ->
		/* claim_take */
		atomic {                            /* Q7: load the head */
			gh[id] = head
		}
		atomic {                            /* the hint (relaxed) */
			ok = PDIFF(tailc, gh[id]) >= 1 + SLACK
		}
		if
		:: ok ->
			atomic {                    /* Q7: FAA */
				gh[id] = head;
				head = PWRAP(head + 1);
				cclaims++;
				taking[id] = 1
			}
		:: else ->
#if EVIDENCE
			/* Q21: the cell of h decides when it can: RES(h) or
			 * FULL(h) means a producer claimed h, tail > h. */
			atomic {
				c = gh[id] & MASK;
				d = SDIFF(cseq[c], LAP(gh[id]))
			}
			if
			:: d == RES || d == FULL ->
#if BUG == 6
				/* the claim without the CAS: check, then
				 * store */
				atomic { ok = head == gh[id] };
				if
				:: ok ->
					atomic {
						head = PWRAP(gh[id] + 1);
						cclaims++;
						taking[id] = 1
					}
				:: else -> gh[id] = head
				fi;
#else
				atomic {            /* Q7: CAS */
					if
					:: head == gh[id] ->
						head = PWRAP(gh[id] + 1);
						cclaims++;
						taking[id] = 1;
						ok = true
					:: else ->
						gh[id] = head;
						ok = false
					fi
				}
#endif
				if
				:: ok -> goto take
				:: else -> skip     /* lost: the tail decides */
				fi
			:: else -> skip
			fi;
#endif
cas:
			atomic {                    /* Q11 */
				t = tail;
				/* empty: every busy cell is below the head */
				assert(PDIFF(t, gh[id]) > 0 ||
				       ((!BUSY(0) || PDIFF(CPOS(0), gh[id]) < 0) &&
					(!BUSY(MASK) || PDIFF(CPOS(MASK), gh[id]) < 0)));
				/* empty: no producer holds a position below
				 * the tail that no poll is waiting for */
				assert(PDIFF(t, gh[id]) > 0 ||
				       (!STRANDED(0, t) && !STRANDED(P1, t) &&
					!STRANDED(P2, t)));
				ok = PDIFF(t, gh[id]) > 0
			}
			tailc = t;                  /* the hint (relaxed) */
			if
			:: !ok -> goto next         /* NULL: empty */
			:: else -> skip
			fi;
			atomic {                    /* Q7: CAS */
				if
				:: head == gh[id] ->
					head = PWRAP(gh[id] + 1);
					cclaims++;
					taking[id] = 1;
					ok = true
				:: else ->
					gh[id] = head;
					ok = false
				fi
			}
			if
			:: !ok -> goto cas
			:: else -> skip
			fi
		fi;
take:
		atomic {                            /* Q8 */
			c = gh[id] & MASK;
			lap = LAP(gh[id]);
			nxt = SWRAP(lap + CAP * 4);
			s = cseq[c];
			d = SDIFF(s, lap)
		}
tloop:
		if
		:: d == FULL ->
#if BUG == 1
			cseq[c] = nxt;
			e = celem[c];
#else
			e = celem[c];               /* relaxed, after Q8 */
			cseq[c] = nxt;              /* Q9 */
#endif
			atomic {
				i = (e / 8) * K + e % 8 - 1;
				assert(e != 0 && e / 8 < NP && !seen[i] &&
				       pos_of[i] == gh[id] && e % 8 > last[e / 8]);
				seen[i] = 1;
				last[e / 8] = e % 8;
				delivered++
			}
progress:
			goto next
		:: d > FULL ->
			/* Only its consumer moves a claimed position on. */
			assert(false)
		:: d == FREE ->
#if BUG == 4
			/* The old rule: close after a bounded wait, a
			 * producer holding h or not. */
			if
			:: sanct = false; hole = false; goto close
			:: true
			fi;
#endif
			atomic {                    /* Q11: does a producer hold h? */
				ok = PDIFF(tail, gh[id]) <= 0;
				assert(!ok || !HELD(gh[id]))
			}
			sanct = ok; hole = false;
			if
			:: ok -> goto close
			:: else -> skip
			fi;
			/* abandoned? */
			atomic { ok = nholes != 0 }  /* Q19 */
			if
			:: ok ->
				atomic { ok = hstate == HREADY }   /* Q17 */
				if
				:: ok ->
					atomic { ok = hpos == gh[id] }  /* relaxed */
				:: else -> skip
				fi
			:: else -> skip
			fi;
			if
			:: ok -> hole = true; goto close
			:: else -> skip
			fi;
			/* A producer holds h and has not taken the cell:
			 * wait until the cell, the tail or the table changes. */
			atomic {                    /* Q8 */
				cseq[c] != s || PDIFF(tail, gh[id]) <= 0 ||
				(hstate == HREADY && hpos == gh[id]) ->
				s = cseq[c];
				d = SDIFF(s, lap)
			}
			goto tloop;
close:
			/* sanct: the tail was at or below h; hole: h was in
			 * the table; neither: BUG 4's timeout. */
#if BUG == 2
			atomic {
				cseq[c] = nxt;
				ok = sanct;
				LOSE(gh[id]);
				ok = true
			}
#else
			atomic {                    /* Q10: close */
				if
				:: cseq[c] == s ->
					cseq[c] = nxt;
					ok = sanct;
					LOSE(gh[id]);
					ok = true
				:: else ->
					s = cseq[c];
					d = SDIFF(s, lap);
					ok = false
				fi
			}
#endif
			if
			:: ok && hole ->
				hstate = HEMPTY;    /* Q18 */
				nholes--;           /* Q19 */
				goto next
			:: ok -> goto next
			:: else -> goto tloop
			fi
		:: else ->
			atomic {                    /* Q8: RES or earlier lap */
				cseq[c] != s ->
				s = cseq[c];
				d = SDIFF(s, lap)
			}
			goto tloop
		fi;
next:
		atomic {
			taking[id] = 0; gh[id] = 0;
			t = 0; c = 0; s = 0; lap = 0; nxt = 0; e = 0;
			i = 0; d = 0; ok = false; sanct = false; hole = false
		}
	od;
	finished++
}

/* All threads done within the bounds: every element was delivered. */
active proctype check()
{
	(finished == NP + NC);
	assert(pclaims >= CLAIMS || cclaims >= CLAIMS ||
	       delivered == NP * K)
}

init
{
	byte k = 0;
	atomic {
		do
		:: k < CAP ->
			cseq[PWRAP(START + k) & MASK] = LAP(PWRAP(START + k));
			k++
		:: else -> break
		od;
		k = 0;
		do
		:: k < NP -> run producer(k); k++
		:: else -> break
		od;
		k = 0;
		do
		:: k < NC -> run consumer(k); k++
		:: else -> break
		od
	}
}
