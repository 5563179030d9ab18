/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/spmc.pml - the slot and index protocol of conq_spmc_array
 * (include/conq/spmc_array.h; docs/memory-model.md, conq_spmc_array), in
 * Promela, for an exhaustive search by Spin.
 *
 * What is modelled, as the header implements offer() and poll():
 *  - CAP = 2 slots in which 0 (NULL) means free; index i lives in slot
 *    i % CAP; free-running indices pidx, cidx and the consumers' shared
 *    cache pcache of IB = 4 bits (they wrap every 16), compared through
 *    their difference read as signed, starting near the wrap (4 bits: a
 *    consumer's index may be stale by all N elements and still compare
 *    right, as 64-bit ones always do);
 *  - offer (one producer): the slot decides first (C7/C11): NULL is room,
 *    write it (C1) and publish pidx (C2). A slot that still holds an
 *    element: if the producer's limit plimit (the last cidx read + CAP)
 *    shows its element claimed, it is a bubble: wait for the clear (C7);
 *    else watch the slot once more (the header's chase), then read cidx
 *    (C8): full (offer is false, try again) or a bubble (wait);
 *  - poll (NC consumers): read pcache (C4) and cidx (C5); when the cache is
 *    used up, look at the slot of cidx first (C10): NULL with cidx
 *    unchanged (re-read, C5) is empty, NULL with cidx moved goes round
 *    again; a slot that holds an element goes to the refresh: read pidx
 *    (C3), store pcache if it moved (C4), empty if pidx is not past cidx;
 *    then claim with a CAS of cidx (C5), read the element and clear the
 *    slot (C6).
 *
 * Spin explores every interleaving under sequential consistency (each
 * shared access one step); memory orders are the litmus tests' and TSan's
 * job (mm.C1 .. mm.C11 in conq-stress).
 *
 * Safety (assert): every element is delivered exactly once, from the index
 * it was published at (no stale or overwritten slot), in increasing order
 * per consumer; the producer writes only NULL slots; offer is false only
 * when CAP elements are in the queue (claimed ones are out) at the moment
 * it reads cidx; poll is NULL only when the queue is empty at the moment of
 * its deciding read (the slot, or pidx).
 * The search ends when the consumers have taken all N elements; a lost
 * element shows as an empty answer while the ghosts count it in the queue,
 * a deadlock as an invalid end state.
 *
 * Planted bugs (-DBUG=n, each must make the check fail; spin/check.sh):
 *   1  a consumer takes a NULL slot on a used-up cache as "empty" without
 *      re-reading cidx (another consumer may have taken and cleared it)
 *   2  the producer decides "full" on its stale limit, without reading cidx
 *   3  the producer overwrites a slot its limit shows claimed, without
 *      waiting for the consumer's clear (a bubble)
 */

#ifndef BUG
#define BUG 0
#endif

#define IB    4
#define IMOD  16              /* 2^IB */
#define IHALF 8
#define CAP   2
#ifndef NC
#define NC    2               /* consumers */
#endif
#ifndef N
#define N     4               /* elements */
#endif
#define START 14              /* the wrap comes after 2 */

#define DIFF(a, b) ((((a) - (b) + IMOD) % IMOD) >= IHALF -> \
		    (((a) - (b) + IMOD) % IMOD) - IMOD : (((a) - (b) + IMOD) % IMOD))
#define WRAP(x) (((x) + IMOD) % IMOD)

byte slots[CAP];
byte pidx = START, cidx = START, pcache = START;
/* Ghosts: elements published (C2 done) and claimed (C5 CAS done); the
 * index each element was published at; what was delivered. */
byte g_pub = 0, g_claimed = 0;
byte pos_of[N + 1];
bit seen[N + 1];
byte delivered = 0;

active proctype producer()
{
	byte v = 1, p = START, plimit = WRAP(START + CAP), s, pos;
	bool ok;
	do
	:: v > N -> break
	:: else ->
		pos = p % CAP;
		atomic { s = slots[pos] }           /* C7 / C11 */
		if
		:: s == 0 -> goto write
		:: else -> skip
		fi;
#if BUG == 3
		if
		:: DIFF(plimit, p) > 0 -> goto write  /* no bubble wait */
		:: else -> skip
		fi;
#else
		if
		:: DIFF(plimit, p) > 0 -> goto bubble
		:: else -> skip
		fi;
#endif
		atomic { s = slots[pos] }           /* the chase: one more look */
		if
		:: s == 0 -> goto write
		:: else -> skip
		fi;
#if BUG == 2
		/* "full" on the stale limit */
		atomic {
			ok = DIFF(plimit, p) > 0;
			assert(ok || g_pub - g_claimed == CAP)
		}
#else
		atomic {                            /* C8 */
			plimit = WRAP(cidx + CAP);
			ok = DIFF(plimit, p) > 0;
			/* false only if full now */
			assert(ok || g_pub - g_claimed == CAP)
		}
#endif
		if
		:: !ok -> goto next                 /* full: offer is false */
		:: else -> skip
		fi;
bubble:
		atomic { slots[pos] == 0 }          /* C7: wait for the clear */
write:
		atomic {                            /* C1 */
#if BUG != 3
			assert(slots[pos] == 0);
#endif
			slots[pos] = v;
			pos_of[v] = p
		}
		atomic {                            /* C2 */
			pidx = WRAP(p + 1);
			g_pub++
		}
		p = WRAP(p + 1);
		v++;
next:
		skip
	od
}

proctype consumer(byte id)
{
	byte pc, c, c2, pp, s, e, last = 0;
	bool emp, ok;
	do
	:: delivered == N -> break
	:: else ->
		atomic { pc = pcache }              /* C4 */
		atomic { c = cidx }                 /* C5 */
loop:
		if
		:: DIFF(pc, c) <= 0 ->
			atomic {                    /* C10 */
				s = slots[c % CAP];
				emp = g_pub == g_claimed
			}
			if
			:: s == 0 ->
#if BUG == 1
				assert(emp);        /* "empty" */
				goto next;
#else
				atomic { c2 = cidx }    /* C5, after C10 */
				if
				:: c2 == c ->
					assert(emp);    /* empty at C10 */
					goto next
				:: else -> c = c2; goto loop
				fi
#endif
			:: else -> skip
			fi;
			atomic {                    /* C3: refresh */
				pp = pidx;
				assert(DIFF(pp, c) > 0 || g_pub == g_claimed)
			}
			if
			:: DIFF(pp, pc) > 0 -> pcache = pp  /* C4 */
			:: else -> skip
			fi;
			pc = pp;
			if
			:: DIFF(pc, c) <= 0 -> goto next    /* empty */
			:: else -> skip
			fi
		:: else -> skip
		fi;
		atomic {                            /* C5: the claim */
			if
			:: cidx == c ->
				cidx = WRAP(c + 1);
				g_claimed++;
				ok = true
			:: else ->
				c = cidx;
				ok = false
			fi
		}
		if
		:: !ok -> goto loop
		:: else -> skip
		fi;
		atomic {                            /* the element (relaxed) */
			e = slots[c % CAP];
			assert(e != 0 && e <= N && !seen[e] && pos_of[e] == c &&
			       e > last);
			seen[e] = 1;
			last = e;
			delivered++
		}
		slots[c % CAP] = 0;                 /* C6 */
next:
		atomic { pc = 0; c = 0; c2 = 0; pp = 0; s = 0; e = 0;
			 emp = false; ok = false }
	od
}

init
{
	byte k = 0;
	atomic {
		do
		:: k < NC -> run consumer(k); k++
		:: else -> break
		od
	}
}
