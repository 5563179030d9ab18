/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/mpsc.pml - the index protocol of conq_mpsc_array
 * (include/conq/mpsc_array.h, src/mpsc_array.c), in Promela, for an
 * exhaustive search by Spin.
 *
 * What is modelled, as the header implements it:
 *  - a power-of-two ring of CAP slots, slot = index & (CAP - 1), 0 = NULL;
 *  - free-running indices pidx, cidx and the shared cached limit plimit, of
 *    IB bits, compared only through their signed difference, starting near
 *    the wrap;
 *  - producers (two): claim (M4 load of plimit, M3 load of pidx; if the
 *    limit shows too little room, refresh it from cidx (M5) and store it
 *    when it moved (M4); fail if still too little room; else a CAS of pidx
 *    (M3), retried on failure with the value it saw), then write the slots,
 *    slot 0 of a batch last (M1). Operations: offer (one element),
 *    offer_bulk of two (all or nothing), relaxed_offer (one CAS attempt);
 *  - the consumer: poll (M2 load of the head slot; NULL: read pidx (M7):
 *    equal to cidx, the queue is empty; else wait for the bubble's
 *    producer), relaxed_poll (never waits), each clearing the slot before
 *    publishing cidx (M6).
 *
 * IB = 4, not 3: a producer may hold a stale pidx or plimit for as many
 * claims as the other producer makes, and stale - fresh must fit the signed
 * range (CAP + staleness < 2^(IB-1)); the library has 64 (or, in the
 * CONQ_INDEX_BITS=16 test build, 16) bits. The indices still wrap: 2 x K
 * claims from START = 13 cross 16.
 *
 * Spin explores every interleaving under sequential consistency (each
 * shared access one step); memory orders are the litmus tests' and TSan's
 * job.
 *
 * Safety (assert): each producer's elements arrive in order, each once
 * (one consumer: exactly consecutive); a slot a producer writes is NULL;
 * offer fails only if CAP elements are claimed and not consumed (offer_bulk
 * of n: more than CAP - n); poll returns NULL only when nothing is claimed
 * and unconsumed. Progress (spin -l, weak fairness): `progress` marks a
 * delivered element.
 *
 * Planted bugs (-DBUG=n, each must make the check fail; spin/check.sh):
 *   1  the consumer publishes cidx before clearing the slot
 *   2  the claim stores pidx plainly (a lost update) instead of a CAS
 *   3  the limit is refreshed from cidx + CAP + 1
 */

#ifndef BUG
#define BUG 0
#endif

#define IB    4
#define IMOD  16
#define IHALF 8
#define CAP   2
#define MASK  1
#define K     2               /* elements per producer */
#define NP    2
#define START 13

#define DIFF(a, b) ((((a) - (b) + IMOD) % IMOD) >= IHALF -> \
		    (((a) - (b) + IMOD) % IMOD) - IMOD : (((a) - (b) + IMOD) % IMOD))
#define WRAP(x) (((x) + IMOD) % IMOD)
#if BUG == 3
#define SLACK 1
#else
#define SLACK 0
#endif

byte slots[CAP];              /* element: pid * 8 + seq, seq 1..K */
byte pidx = START, cidx = START, plimit = (START + CAP) % IMOD;
/* Ghosts: claimed indices, and consumed ones (M6 done). */
byte g_claimed = 0, g_cons = 0;

proctype producer(byte id)
{
	byte seq = 1, limit, newlim, p, want, k;
	int avail;
	bool ok, relaxed;
	do
	:: seq > K -> break
	:: else ->
		relaxed = false;
		if
		:: want = 1                     /* offer */
		:: seq < K -> want = 2          /* offer_bulk of 2 */
		:: want = 1; relaxed = true     /* relaxed_offer */
		fi;
		limit = plimit;                 /* M4 */
		p = pidx;                       /* M3 */
claim:
		avail = DIFF(limit, p);
		if
		:: avail < want ->
			atomic {
				/* M5: the limit from cidx */
				newlim = WRAP(cidx + CAP + SLACK);
				avail = DIFF(newlim, p);
				/* "full" only if it is */
				assert(avail >= want ||
				       g_claimed - g_cons > CAP - want)
			}
			if
			:: DIFF(newlim, limit) > 0 -> plimit = newlim  /* M4 */
			:: else -> skip
			fi;
			limit = newlim;
			if
			:: avail < want -> goto next  /* full */
			:: else -> skip
			fi
		:: else -> skip
		fi;
#if BUG == 2
		pidx = WRAP(p + want);
		g_claimed = g_claimed + want;
		ok = true;
#else
		atomic {                        /* M3: the claim */
			if
			:: pidx == p ->
				pidx = WRAP(p + want);
				g_claimed = g_claimed + want;
				ok = true
			:: else ->
				p = pidx;
				ok = false
			fi
		}
#endif
		if
		:: !ok && relaxed -> goto next  /* lost the race */
		:: !ok -> goto claim
		:: else -> skip
		fi;
		k = 1;
		do
		:: k < want ->
			atomic {
				assert(slots[(p + k) & MASK] == 0);
				slots[(p + k) & MASK] = id * 8 + seq + k
			}
			k++
		:: else -> break
		od;
		atomic {                        /* M1: slot 0 last */
			assert(slots[p & MASK] == 0);
			slots[p & MASK] = id * 8 + seq
		}
		seq = seq + want;
next:
		skip
	od
}

proctype consumer()
{
	byte got = 0, e, slot;
	byte last[NP];
	bool relaxed;
	do
	:: got == NP * K -> break
	:: else ->
		if
		:: relaxed = false              /* poll */
		:: relaxed = true               /* relaxed_poll */
		fi;
		slot = cidx & MASK;
		e = slots[slot];                /* M2 */
		if
		:: e == 0 && relaxed -> skip
		:: e == 0 && !relaxed ->
			atomic {                /* M7 */
				if
				:: pidx == cidx ->
					/* empty: nothing claimed, unconsumed */
					assert(g_claimed == g_cons)
				:: else ->
					e = 1           /* a bubble: wait */
				fi
			}
			if
			:: e != 0 ->
				(slots[slot] != 0);     /* wait for M1 */
				e = slots[slot]
			:: else -> skip
			fi
		:: else -> skip
		fi;
		if
		:: e != 0 ->
			assert(e / 8 < NP && e % 8 == last[e / 8] + 1);
			last[e / 8] = e % 8;
#if BUG == 1
			atomic { cidx = WRAP(cidx + 1); g_cons++ };
			slots[slot] = 0;
#else
			slots[slot] = 0;
			atomic { cidx = WRAP(cidx + 1); g_cons++ };   /* M6 */
#endif
progress:
			got++
		:: else -> skip
		fi
	od
}

init
{
	atomic {
		run producer(0);
		run producer(1);
		run consumer()
	}
}
