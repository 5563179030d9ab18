/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/bytes.pml - conq_mpsc_bytes (include/conq/mpsc_bytes.h,
 * src/mpsc_bytes.c) and its claim registry (conq/impl/claims.h), in
 * Promela, for an exhaustive search by Spin: the claim, the padding at the
 * wrap, the commit, the consumer's zeroing, and the reclaim of a dead
 * producer's claim (unblock) with its liveness rule.
 *
 * What is modelled, as the code implements it:
 *  - a ring of CAPW words (a word is 8 bytes: a header, or payload); word
 *    positions free-running mod IMOD, compared through their difference;
 *  - NP producers, each writing K records of LEN0 / LEN1 words (producer
 *    0 / 1; LEN 1 is a header alone, the element in its type; LEN 2 adds a
 *    payload word holding the element): the claim reads the head cache, the
 *    tail; too little room (padding included): refresh the cache from the
 *    head, else wait for the head to move; stores its intent (the tail it
 *    read) into its registry entry, then CASes the tail; then the padding
 *    header (committed) if the record wraps, the header "in progress", the
 *    payload, the commit, and clears its intent;
 *  - death: one producer (DEAD, or any when DEAD = -1) may die at any step
 *    between its first intent store and the clearing of its last; it stops,
 *    its entry keeps its intent, and alive[] (what kill(2) and /proc say)
 *    turns false at the same step;
 *  - the consumer: reads the header at the head; committed: takes the
 *    record (checks it), or skips padding, zeroes the words, then moves the
 *    head; not committed: calls unblock() (at any moment: the code's
 *    timeout only sets how often), and if it reclaimed nothing, waits for
 *    the head's word or a death to change;
 *  - unblock as src/mpsc_bytes.c: the tail [B8]; the registry, entry by
 *    entry: intent [CL2], then liveness; a live intent in [h - CAPW, h]:
 *    stop; the first live one above h bounds the rest; then from h, header
 *    by header [B2]: committed, stop; in progress, pad its extent; zero,
 *    scan zero words up to a nonzero one or the bound, pad that; padding
 *    split at the end of the ring, its first header by CAS.
 *
 * Ghosts: gown[w], the producer that claimed word w (set with the claim
 * CAS, cleared by the consumer's zeroing); committed, the records
 * committed; got, the records delivered.
 *
 * Safety (assert): the words a claim takes are zero and unowned (the
 * consumer zeroed them before moving the head); a producer writes only
 * words it owns; unblock pads only words whose owner is dead; a nonzero
 * word at the head is a header; records arrive once, in each producer's
 * order, with their payload; at the end nothing committed is lost and the
 * ring is empty. No invalid end state: a dead producer's claim is always
 * reclaimed (the consumer would wait for ever), and nobody waits for a
 * live one in vain.
 *
 * Not modelled: entry reuse and the thread-exit path (an entry is a
 * producer, for ever), pid reuse, memory orders (Spin is sequentially
 * consistent: the release/acquire pairs are the litmus tests' and TSan's),
 * the head cache's staleness beyond one refresh.
 *
 * Planted bugs (-DBUG=n, each must make the check fail; spin/check.sh):
 *   1  the intent is stored after the claim CAS, not before
 *   2  unblock looks for a live intent equal to the head, not in
 *      [h - cap, h] (a wrap claim's record is not at its claim's start)
 *   3  unblock's scan ignores live claims above the head (Agrona's
 *      unblock: up to the first nonzero word)
 *   4  the consumer moves the head before it zeroes the words
 *   5  the producer writes its payload before its "in progress" header
 *      (no [B7])
 *   6  the producer clears its intent before its commit
 *   7  unblock reads the tail after the registry, not before
 */

#ifndef BUG
#define BUG 0
#endif
#ifndef NP
#define NP 2
#endif
#ifndef K
#define K 2
#endif
#ifndef LEN0
#define LEN0 2
#endif
#ifndef LEN1
#define LEN1 1
#endif
#ifndef DEAD
#define DEAD 0
#endif
#ifndef START
#define START 13
#endif

#define CAPW  4
#define MASK  3
#define IMOD  16
#define IHALF 8

#define WRAP(x)	   (((x) + IMOD) % IMOD)
#define UDIFF(a, b) (((a) - (b) + IMOD) % IMOD)
#define DIFF(a, b) (UDIFF(a, b) >= IHALF -> UDIFF(a, b) - IMOD : UDIFF(a, b))

/* Words: 0; a payload word: the element (1..99); a header: 1000 + 500 if
 * in progress + 100 * length (words) + type (the element, or 99: padding). */
#define PADT	   99
#define HDR(l, t)  (1000 + 100 * (l) + (t))
#define PROG(l, t) (1500 + 100 * (l) + (t))
#define ISHDR(w)   ((w) >= 1000)
#define ISPROG(w)  ((w) >= 1500)
#define HLEN(w)	   ((((w) - 1000) % 500) / 100)
#define HTYPE(w)   ((w) % 100)

int m[CAPW];
byte tail = START, head = START, hcache = START;
byte intent[NP]; /* 0, or the claimed position + 1 */
bool alive[NP];
byte ndead = 0, pdone = 0;
byte ich = 0; /* intent stores so far (the consumer's waits watch it) */
/* Ghosts. */
byte gown[CAPW]; /* producer + 1 */
byte committed = 0, got = 0;

inline die_here()
{
	if
	:: (DEAD == -1 || DEAD == id) && ndead == 0 ->
		atomic { alive[id] = false; ndead++; pdone++ };
		goto dead
	:: true -> skip
	fi
}

inline pwrite(w, v)
{
	atomic {
		assert(gown[(w) & MASK] == id + 1);
		m[(w) & MASK] = v
	}
}

proctype producer(byte id)
{
	byte seq = 1, t, hc, need, pad, i, k, h0;
	bool ok;
	need = (id == 0 -> LEN0 : LEN1);
	do
	:: seq > K -> break
	:: else ->
		hc = hcache;
		t = tail;
claim:
		if
		:: CAPW - (t & MASK) < need -> pad = CAPW - (t & MASK)
		:: else -> pad = 0
		fi;
		if
		:: DIFF(t, hc) + pad + need > CAPW ->
			hc = head;			/* [B5] */
			if
			:: DIFF(hc, hcache) > 0 -> hcache = hc	/* [B4] */
			:: else -> skip
			fi;
			if
			:: DIFF(t, hc) + pad + need > CAPW ->
				/* no room: wait for the head to move, then
				 * look again (claim_until) */
				atomic { intent[id] = 0; ich++ };	/* done */
				h0 = hc;
				(head != h0);
				hc = hcache;
				t = tail;
				goto claim
			:: else -> skip
			fi
		:: else -> skip
		fi;
#if BUG != 1
		atomic { intent[id] = t + 1; ich++ };	/* [CL1] */
		die_here();
#endif
		atomic {				/* [B3] the claim */
			if
			:: tail == t ->
				k = 0;
				do
				:: k < pad + need ->
					assert(m[(t + k) & MASK] == 0 &&
					       gown[(t + k) & MASK] == 0);
					gown[(t + k) & MASK] = id + 1;
					k++
				:: else -> break
				od;
				tail = WRAP(t + pad + need);
				ok = true
			:: else ->
				t = tail;
				ok = false
			fi
		}
		if
		:: !ok -> goto claim
		:: else -> skip
		fi;
#if BUG == 1
		atomic { intent[id] = t + 1; ich++ };
#endif
		die_here();
		if
		:: pad > 0 ->
			pwrite(t, HDR(pad, PADT));	/* [B1] */
			die_here();
			t = WRAP(t + pad)
		:: else -> skip
		fi;
		i = id * 8 + seq;
#if BUG == 5
		if
		:: need == 2 -> pwrite(t + 1, i); die_here()
		:: else -> skip
		fi;
		pwrite(t, PROG(need, i));
#else
		pwrite(t, PROG(need, i));		/* then [B7] */
		die_here();
		if
		:: need == 2 -> pwrite(t + 1, i)
		:: else -> skip
		fi;
#endif
		die_here();
#if BUG == 6
		atomic { intent[id] = 0; ich++ };
		die_here();
		atomic { pwrite(t, HDR(need, i)); committed++ };
#else
		atomic { pwrite(t, HDR(need, i)); committed++ };  /* [B1] */
		die_here();
		atomic { intent[id] = 0; ich++ };	/* [CL1] */
#endif
		seq++
	od;
	pdone++;
dead:
	skip
}

/* unblock(): sets `reclaimed`. */
inline unblock()
{
	reclaimed = false;
#if BUG != 7
	ut = tail;					/* [B8] */
#endif
	/* The registry: live intents in [h - CAPW, ut). */
	first = 2 * CAPW + IMOD;	/* none yet (beyond any span) */
	j = 0;
	do
	:: j < NP ->
		it = intent[j];				/* [CL2] */
		if
		:: it != 0 && alive[j] ->
#if BUG == 7
			d = UDIFF(it - 1, head - CAPW);
			if
			:: d < first -> first = d
			:: else -> skip
			fi
#else
			d = UDIFF(it - 1, head - CAPW);
#if BUG == 2
			if
			:: d < CAPW -> d = first	/* not h: ignored */
			:: else -> skip
			fi;
#endif
			if
			:: d < CAPW + UDIFF(ut, head) && d < first -> first = d
			:: else -> skip
			fi
#endif
		:: else -> skip
		fi;
		j++
	:: else -> break
	od;
#if BUG == 7
	ut = tail;
#endif
	used = UDIFF(ut, head);
#if BUG == 2
	if
	:: first == CAPW -> goto udone	/* only an intent equal to h */
	:: else -> skip
	fi;
#else
	if
	:: first <= CAPW -> goto udone	/* a live claim may cover h */
	:: else -> skip
	fi;
#endif
#if BUG == 3
	lim = used;
#else
	if
	:: first < CAPW + used -> lim = first - CAPW
	:: else -> lim = used
	fi;
#endif
	off = 0;
	do
	:: off >= lim -> break
	:: else ->
		p = WRAP(head + off);
		w = m[p & MASK];			/* [B2] */
		if
		:: ISHDR(w) && !ISPROG(w) -> break	/* committed */
		:: ISPROG(w) -> n = HLEN(w)
		:: w == 0 ->
			n = 1;
			do
			:: off + n < lim && m[(p + n) & MASK] == 0 -> n++
			:: else -> break
			od
		:: else -> assert(false)	/* a payload word at a boundary */
		fi;
		if
		:: n > CAPW - (p & MASK) -> here = CAPW - (p & MASK)
		:: else -> here = n
		fi;
		atomic {				/* the CAS, and the check */
			k = 0;
			do
			:: k < n ->
				assert(gown[(p + k) & MASK] != 0 &&
				       !alive[gown[(p + k) & MASK] - 1]);
				k++
			:: else -> break
			od;
			if
			:: m[p & MASK] == w -> m[p & MASK] = HDR(here, PADT)
			:: else -> goto udone
			fi
		}
		if
		:: n > here -> m[0] = HDR(n - here, PADT)
		:: else -> skip
		fi;
		reclaimed = true;
		off = off + n
	od;
udone:
	skip
}

proctype consumer()
{
	byte last[NP];
	byte h, n, k, e, ut, used, first, j, it, d, lim, off, p, here, nd, ic;
	int w, hw;
	bool reclaimed;
	do
	:: tail == head && pdone == NP -> break
	:: else ->
		h = head;
		hw = m[h & MASK];			/* [B2] */
		if
		:: ISHDR(hw) && !ISPROG(hw) ->
			n = HLEN(hw);
			e = HTYPE(hw);
			if
			:: e != PADT ->
				assert(e / 8 < NP && e % 8 == last[e / 8] + 1);
				last[e / 8] = e % 8;
				if
				:: n == 2 -> assert(m[(h + 1) & MASK] == e)
				:: else -> skip
				fi;
				got++
			:: else -> skip
			fi;
#if BUG == 4
			head = WRAP(h + n);
#endif
			k = 0;
			do
			:: k < n ->
				atomic {
					m[(h + k) & MASK] = 0;
					gown[(h + k) & MASK] = 0
				}
				k++
			:: else -> break
			od;
#if BUG != 4
			head = WRAP(h + n)			/* [B6] */
#endif
		:: else ->
			assert(hw == 0 || ISPROG(hw));
			if
			:: tail != h ->
				nd = ndead;
				ic = ich;
				unblock();
				if
				:: !reclaimed ->
					/* wait for a change: the header, a
					 * death, an intent (the code looks
					 * again every dead_check_ns) */
					(m[h & MASK] != hw || ndead != nd ||
					 ich != ic)
				:: else -> skip
				fi
			:: else ->
				/* empty: wait for a claim, or the end */
				(tail != h || pdone == NP)
			fi
		fi
	od;
	assert(got == committed);
	k = 0;
	do
	:: k < CAPW -> assert(m[k] == 0); k++
	:: else -> break
	od
}

init
{
	atomic {
		byte q = 0;
		do
		:: q < NP -> alive[q] = true; run producer(q); q++
		:: else -> break
		od;
		run consumer()
	}
}
