/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/spsc.pml - the index protocol of conq_spsc_array
 * (include/conq/spsc_array.h), in Promela, for an exhaustive search by Spin.
 *
 * What is modelled, as the header implements it:
 *  - a ring of CAP + B slots (B = min(32, CAP) = CAP here) in which 0 (NULL)
 *    means free; the producer's and consumer's slot positions ppos / cpos /
 *    tpos kept incrementally modulo the ring;
 *  - free-running indices pidx, cidx of IB bits (3: they wrap every 8
 *    operations), compared only through their difference read as signed
 *    (conq__idx_diff), starting near the wrap;
 *  - the producer's cached limit plimit = cidx + CAP, refreshed from cidx
 *    (S3) only when used up; offer (one element) and offer_bulk (two, all or
 *    nothing): slots 1..n-1 stored first, slot 0 last (S1), then pidx (S5);
 *  - the consumer: poll and poll_burst (up to two) read slots in order (S2),
 *    then advance: consumed slots are cleared lazily, B at a time in index
 *    order, and cidx is published (S4) after the clearing; is_empty (reads
 *    cidx then pidx, S6) followed by a poll.
 *
 * Spin explores every interleaving of the steps under sequential
 * consistency: each shared-memory access is one step. The memory-order side
 * (that each release/acquire pair orders what the SC model assumes) is the
 * job of the litmus tests, the torture engine and the TSan build.
 *
 * Safety (assert): the consumer gets 1, 2, ..., N in order (no loss, no
 * duplicate, no stale slot read as new); a slot the producer writes is NULL;
 * offer fails only when CAP elements are in the queue, offer_bulk(n) only
 * when fewer than n slots are free; poll (and poll_burst) find nothing only
 * when the queue is empty; after is_empty() is false the next poll succeeds.
 * Progress (spin -l): the `progress` label marks a delivered element; with
 * weak fairness no cycle delivers nothing forever (both sides are
 * wait-free).
 *
 * Planted bugs (-DBUG=n, each must make the check fail; spin/check.sh):
 *   1  the consumer publishes cidx before clearing its batch
 *   2  the ring has CAP slots instead of CAP + B
 *   3  the producer stores pidx (S5) before the slot (S1) (is_empty lies)
 */

#ifndef BUG
#define BUG 0
#endif

#define IB    3               /* index bits */
#define IMOD  8               /* 2^IB */
#define IHALF 4               /* 2^(IB-1) */
#define CAP   2
#define B     2               /* min(32, CAP) */
#if BUG == 2
#define RING  2
#else
#define RING  4               /* CAP + B */
#endif
#define N     9               /* elements: indices wrap at least once */
#define START 6               /* first index: the wrap comes after 2 */

/* a - b read as a signed IB-bit number (conq__idx_diff). */
#define DIFF(a, b) ((((a) - (b) + IMOD) % IMOD) >= IHALF -> \
		    (((a) - (b) + IMOD) % IMOD) - IMOD : (((a) - (b) + IMOD) % IMOD))
#define WRAP(x) (((x) + IMOD) % IMOD)

byte slots[RING];
byte pidx = START, cidx = START;
/* Ghosts (not in the queue): elements published (S1 done), and elements
 * whose consumption was published (S4 done). */
byte g_pub = 0, g_cons = 0;

active proctype producer()
{
	byte v = 1;          /* the next element */
	byte plimit = WRAP(START + CAP);
	byte ppos = 0, pos, first, n, k;
	int avail;
	do
	:: v > N -> break
	:: else ->
		if
		:: n = 1                      /* offer */
		:: v < N -> n = 2             /* offer_bulk of 2 */
		fi;
		avail = DIFF(plimit, pidx);
		if
		:: avail < n ->
			atomic {
				/* S3: refresh the limit from cidx */
				plimit = WRAP(cidx + CAP);
				avail = DIFF(plimit, pidx);
				/* fails only if fewer than n were free now */
				assert(avail >= n || g_pub - g_cons > CAP - n)
			}
		:: else -> skip
		fi;
		if
		:: avail < n -> skip          /* full: try again */
		:: else ->
			first = ppos;
			pos = ppos;
			k = 1;
			do
			:: k < n ->
				pos = (pos + 1) % RING;
				atomic { assert(slots[pos] == 0); slots[pos] = v + k }
				k++
			:: else -> break
			od;
			pos = (pos + 1) % RING;
#if BUG == 3
			pidx = WRAP(pidx + n);
#endif
			atomic {
				/* S1: slot 0 of the batch last */
				assert(slots[first] == 0);
				slots[first] = v;
				g_pub = g_pub + n
			}
			ppos = pos;
#if BUG != 3
			pidx = WRAP(pidx + n);        /* S5 */
#endif
			v = v + n
		fi
	od
}

active proctype consumer()
{
	byte expect = 1;     /* the next element due */
	byte cpos = 0, tpos = 0, pending = 0, pos, e, k, n, t, i;
	bool must = false;   /* is_empty() said false: this poll must work */
	do
	:: expect > N -> break
	:: else ->
		if
		:: n = 1                      /* poll */
		:: n = 2                      /* poll_burst of 2 */
		:: atomic {                   /* is_empty, then poll (S6) */
			must = DIFF(pidx, cidx) > 0
		   };
		   n = 1
		fi;
		k = 0;
		pos = cpos;
		do
		:: k < n ->
			atomic {
				e = slots[pos];       /* S2 */
				/* nothing only if the queue is empty */
				assert(e != 0 || k > 0 || g_pub == g_cons);
				assert(e != 0 || k > 0 || !must)
			}
			if
			:: e == 0 -> break
			:: else ->
				assert(e == expect);
				expect++;
progress:
				k++;
				pos = (pos + 1) % RING
			fi
		:: else -> break
		od;
		must = false;
		if
		:: k > 0 ->
			/* advance: clear a full batch, then publish cidx */
			cpos = pos;
			pending = pending + k;
#if BUG == 1
			atomic { cidx = WRAP(cidx + k); g_cons = g_cons + k };
#endif
			if
			:: pending >= B ->
				t = tpos;
				i = 0;
				do
				:: i < pending ->
					slots[t] = 0;
					t = (t + 1) % RING;
					i++
				:: else -> break
				od;
				tpos = t;
				pending = 0
			:: else -> skip
			fi;
#if BUG != 1
			atomic { cidx = WRAP(cidx + k); g_cons = g_cons + k }  /* S4 */
#endif
		:: else -> skip
		fi
	od
}
