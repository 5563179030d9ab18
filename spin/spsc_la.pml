/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/spsc_la.pml - the chunk hand-over of the SPSC linked-array families
 * (include/conq/impl/spsc_la.h, src/spsc_la.c: conq_spsc_chunked,
 * conq_spsc_unbounded; growable's link is the same, without the spare), in
 * Promela, for an exhaustive search by Spin.
 *
 * What is modelled, as the code implements it:
 *  - NCH chunk objects, each a ring of R slots (0 = free, JUMP = "go on at
 *    slot 0 of next", else an element) and a `next` field; a chunk is in
 *    the allocator's pool, in the queue, or the spare (a ghost state, st[]);
 *  - the producer: one element per offer at ppos, with the reserve
 *    invariant (the slot at ppos is known free when the limit is reached);
 *    its refresh looks at the slot `look` = 1 ahead (SL8); found cleared,
 *    one more offer is allowed; else it links: takes the spare (SL11, an
 *    exchange) or a pool chunk (may fail: ENOMEM, retried later), stores
 *    next, then JUMP into the reserved slot (SL9), and goes on at slot 0 of
 *    the new chunk with R - 1 offers allowed;
 *  - the consumer: reads its slot (SL2); an element is consumed and its
 *    slot cleared (B = 1, SL7); a JUMP: it reads next, moves to slot 0 of
 *    the new chunk, and retires the old one: clears the JUMP's slot (the
 *    only one still set: the code clears the JUMP and its B - 1 pending
 *    slots, here none; the model asserts the rest are free) and next, then
 *    lets it cool: it stays C's (COLD, one of them, as cold_k = 1) until the
 *    next retire, which goes on with it instead: publishes it as the spare
 *    if there is none (SL10), else gives it back to the pool (free).
 *
 * Every shared access is one step (sequential consistency; the orders are
 * the litmus tests', the TSan build's and the proof's job).
 *
 * Both sides wait (block) where the code would return "empty" or ENOMEM
 * and be called again, so a lost element or chunk is a deadlock, which the
 * search reports as an invalid end state.
 *
 * Safety (assert): the consumer gets 1, 2, ..., N in order; every access to
 * a chunk finds it in the queue (never freed, never the spare) - except the
 * producer's own access to a chunk it just took, which it owns; the
 * producer writes only into free slots; the consumer finds a valid next
 * behind every JUMP; at the end everything was delivered.
 *
 * Planted bugs (-DBUG=n, each must make the check fail; spin/check.sh):
 *   1  the producer stores JUMP before the next link
 *   2  the consumer publishes the spare before it clears it
 *   3  the consumer retires the old chunk before it reads next
 *   4  the producer links without keeping the reserve (JUMP overwrites
 *      whatever is in the slot: the limit allows R offers, not R - 1)
 *   5  the consumer retires a chunk without clearing its JUMP slot
 *   6  the cooling list, while empty, hands back the chunk just retired
 *      and keeps it too (a chunk both spare and cooling: the double entry
 *      of a first draft of conq__spsc_la_retire)
 */

#ifndef BUG
#define BUG 0
#endif

#define R     3     /* slots per chunk */
#define NCH   3     /* chunk objects: current, next, spare */
#define NONE  255   /* no chunk */
#define JUMP  254   /* the JUMP marker */
#define N     8     /* elements */

#define QUEUE 0
#define POOL  1
#define SPARE 2
#define COLD  3

byte slot[NCH * R];
byte nxt[NCH] = NONE;
byte st[NCH];
byte spare = NONE;

#define S(c, i) slot[(c) * R + (i)]

/* The consumer's view, for the asserts. */
byte got = 0;

proctype producer()
{
	byte v = 1, pch = 0, ppos = 0, avail, n, i, e;
#if BUG == 4
	avail = R;
#else
	avail = R - 1;
#endif
	do
	:: v > N -> break
	:: else ->
		if
		:: avail == 0 ->
			/* SL8: the slot one ahead cleared? */
			atomic { assert(st[pch] == QUEUE);
				 e = S(pch, (ppos + 1) % R) };
			if
			:: e == 0 -> avail = 1
			:: else ->
				/* ENOMEM is retried later: modelled as waiting
				 * until a chunk is to be had (the spare, or one
				 * back in the pool), so that a lost hand-back
				 * shows as a deadlock. */
				(spare != NONE || st[0] == POOL ||
				 st[1] == POOL || st[2] == POOL);
				/* link: the spare (SL11, an exchange) ... */
				atomic { n = spare; spare = NONE;
					 if
					 :: n != NONE -> assert(st[n] == SPARE);
							 st[n] = QUEUE
					 :: else -> skip
					 fi }
				/* ... or a pool chunk (or ENOMEM) */
				if
				:: n == NONE ->
					atomic {
						i = 0;
						do
						:: i < NCH && st[i] == POOL -> break
						:: i < NCH && st[i] != POOL -> i++
						:: i == NCH -> break
						od;
						if
						:: i < NCH -> n = i; st[n] = QUEUE;
							/* fresh memory: zeroed */
							S(n, 0) = 0; S(n, 1) = 0;
							S(n, 2) = 0; nxt[n] = NONE
						:: else -> skip
						fi
					}
				:: else -> skip
				fi;
				if
				:: n == NONE -> skip /* ENOMEM: retry later */
				:: else ->
#if BUG == 1
					atomic { assert(st[pch] == QUEUE);
						 S(pch, ppos) = JUMP }
					atomic { assert(st[pch] == QUEUE);
						 nxt[pch] = n }
#else
					atomic { assert(st[pch] == QUEUE);
						 nxt[pch] = n }
					/* SL9: JUMP into the reserve */
					atomic { assert(st[pch] == QUEUE);
#if BUG != 4
						 assert(S(pch, ppos) == 0);
#endif
						 S(pch, ppos) = JUMP }
#endif
					/* never touched again by us */
					pch = n;
					ppos = 0;
					avail = R - 1
				fi
			fi
		:: else -> skip
		fi;
		if
		:: avail > 0 ->
			/* SL1: the element */
			atomic { assert(st[pch] == QUEUE);
				 assert(S(pch, ppos) == 0);
				 S(pch, ppos) = v }
			ppos = (ppos + 1) % R;
			avail--;
			v++
		:: else -> skip
		fi
	od
}

/* C: retire chunk `old` (it read its JUMP at slot jpos): clear that slot
 * and next, let it cool, and hand back the one that cooled: to the spare if
 * there is none (SL10), else back to the pool (free). */
inline retire(old)
{
#if BUG != 2
	/* Every slot but the JUMP's is free already (C cleared each element
	 * it consumed; a slot never written was zeroed). */
	i = 0;
	do
	:: i < R -> atomic { assert(st[old] == QUEUE);
			     assert(i == jpos || S(old, i) == 0) }; i++
	:: else -> break
	od;
#if BUG != 5
	atomic { assert(st[old] == QUEUE); S(old, jpos) = 0 };
#endif
	atomic { assert(st[old] == QUEUE); nxt[old] = NONE };
	/* cool it (C-private); go on with the one that cooled */
	x = cool;
#if BUG == 6
	if
	:: x == NONE -> x = old /* and keeps it below, too */
	:: else -> skip
	fi;
#endif
	st[old] = COLD;
	cool = old;
	if
	:: x == NONE -> skip
	:: else ->
		assert(st[x] == COLD);
		sp = spare;
		if
		:: sp == NONE -> atomic { st[x] = SPARE; spare = x }
		:: else -> st[x] = POOL
		fi
	fi
#else
	/* Bug 2: published (no cooling) before it is cleared. */
	sp = spare;
	if
	:: sp == NONE -> atomic { st[old] = SPARE; spare = old }
	:: else -> st[old] = POOL
	fi;
	S(old, jpos) = 0;
	nxt[old] = NONE
#endif
}

/* C: follow the JUMP in chunk `old`: read next, move to its slot 0. */
inline follow(old)
{
	atomic { assert(st[old] == QUEUE || BUG == 3); n = nxt[old] };
	assert(n != NONE);
	cch = n;
	cpos = 0
}

proctype consumer()
{
	byte cch = 0, cpos = 0, e, n, old, sp, i, jpos, x, cool = NONE;
	do
	:: got == N -> break
	:: else ->
		/* SL2; an empty queue (0) is waited out: a lost element
		 * shows as a deadlock (an invalid end state). */
		atomic { assert(st[cch] == QUEUE); S(cch, cpos) != 0;
			 e = S(cch, cpos) }
		if
		:: e == JUMP ->
			old = cch;
			jpos = cpos;
#if BUG == 3
			retire(old);
			follow(old);
#else
			follow(old);
			retire(old);
#endif
		:: else ->
			assert(e == got + 1);
			got++;
			/* SL7: clear (B = 1) */
			atomic { assert(st[cch] == QUEUE); S(cch, cpos) = 0 }
			cpos = (cpos + 1) % R
		fi
	od;
	assert(got == N)
}

init
{
	atomic {
		st[0] = QUEUE;
		st[1] = POOL;
		st[2] = POOL;
		run producer();
		run consumer()
	}
}
