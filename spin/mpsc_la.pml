/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/mpsc_la.pml - the resize protocol of the MPSC linked-array families
 * (conq_mpsc_chunked / conq_mpsc_unbounded; include/conq/impl/mpsc_la.h,
 * src/mpsc_la.c), in Promela, for an exhaustive search by Spin.
 *
 * What is modelled, as the code implements it:
 *  - chunks of C = 2 slots from a pool of NCH (u = 1 usable slot, one for
 *    JUMP, so every other element resizes); 0 = NULL, JUMP = 255;
 *  - indices in units of 2: pidx (odd while a producer resizes), cidx; the
 *    cached limit plimit; the producers' chunk pbuf, the consumer's cbuf,
 *    chunk->next, one spare slot;
 *  - producers (NP = 2, K = 2 offers each): ML5 load of plimit, ML3 load of
 *    pidx (odd: wait until even, retry); room: read pbuf, CAS pidx p -> p+2
 *    (retry on failure), write the slot (ML1). No room: read cidx (ML7);
 *    a fresh limit that moves: CAS plimit, retry; else CAS pidx p -> p+1
 *    and resize: take the spare (exchange) or a free chunk, write the
 *    element into it at p's offset, store pbuf, plimit (ML5), old->next,
 *    release pidx = p + 2 (ML4), store JUMP into old at p's offset (ML8);
 *  - the consumer: strict poll (waits on a bubble: a NULL head slot blocks
 *    it until written), on JUMP: follow next, clear the JUMP slot, retire
 *    the old chunk to the spare slot (a displaced spare goes back to the
 *    pool), read the same offset in the new chunk; consume: clear the slot,
 *    cidx += 2 (ML6).
 *
 * Spin explores every interleaving under sequential consistency (each
 * shared access one step); the memory orders are TSan's and the pairing
 * tables' job (docs/memory-model.md).
 *
 * Safety (assert / invalid end state): each producer's elements arrive in
 * order and exactly once (all of them: a lost element leaves the consumer
 * blocked, an invalid end state); a slot a producer or resizer writes is
 * NULL; a chunk taken for a resize is clean (all NULL, no next); after a
 * JUMP the new chunk's slot holds an element; and no producer writes into a
 * chunk that was retired since it read the chunk pointer (ghost
 * generation numbers: use after free / reuse).
 *
 * Planted bugs (-DBUG=n, each must make the check fail; spin/check.sh):
 *   1  the resizer releases pidx before it stores pbuf
 *   2  the resizer stores JUMP before the element in the new chunk
 *   3  a producer reads pbuf before its load of pidx (so it may write into
 *      a chunk that its CAS did not validate)
 *   4  the consumer retires the old chunk without clearing its JUMP slot
 */

#ifndef BUG
#define BUG 0
#endif

#define C     2
#define U     1
#define NCH   5
#define NONE  255
#define JUMP  255
#define NP    2
#define K     2

byte slot[NCH * C];
byte nxt[NCH];
byte gen[NCH];                /* ghost: bumped when a chunk is retired */
bool used[NCH];               /* in the queue or the spare slot */
byte pidx = 0, cidx = 0, plimit = 2 * U;
byte pbuf = 0, cbuf = 0;
byte spare = NONE;

#define OFF(i) (((i) / 2) % C)

proctype producer(byte id)
{
	byte seq = 1, limit, p, c, b, g, nb, old, i, e;
	do
	:: seq > K -> break
	:: else ->
		e = id * 8 + seq;
retry:
#if BUG == 3
		b = pbuf; g = gen[b];
#endif
		limit = plimit;                         /* ML5 */
		p = pidx;                               /* ML3 */
		if
		:: p % 2 == 1 -> (pidx % 2 == 0); goto retry
		:: else -> skip
		fi;
		if
		:: limit >= p + 2 ->
#if BUG != 3
			atomic { b = pbuf; g = gen[b] } /* from the queue */
#endif
			if
			:: atomic { pidx == p -> pidx = p + 2 }  /* ML3 CAS */
			:: atomic { pidx != p } -> goto retry
			fi;
			atomic {                        /* ML1 */
				assert(gen[b] == g);
				assert(slot[b * C + OFF(p)] == 0);
				slot[b * C + OFF(p)] = e
			}
		:: else ->
			c = cidx;                       /* ML7 */
			if
			:: c + 2 * U > limit && c + 2 * U > p ->
				atomic {                /* ML5 CAS */
					if
					:: plimit == limit -> plimit = c + 2 * U
					:: else -> skip
					fi
				};
				goto retry
			:: else -> skip
			fi;
			if
			:: atomic { pidx == p -> pidx = p + 1 }  /* ML3: resize */
			:: atomic { pidx != p } -> goto retry
			fi;
			/* take the spare (ML11) or a free chunk */
			atomic {
				nb = spare;
				spare = NONE;
				if
				:: nb == NONE ->
					i = 0;
					do
					:: i < NCH && used[i] -> i++
					:: i < NCH && !used[i] -> break
					:: i == NCH -> break
					od;
					assert(i < NCH);        /* pool large enough */
					nb = i;
					used[nb] = true
				:: else -> skip
				fi;
				assert(nxt[nb] == NONE);
				i = 0;
				do
				:: i < C -> assert(slot[nb * C + i] == 0); i++
				:: else -> break
				od
			};
			old = pbuf;
#if BUG == 2
			slot[old * C + OFF(p)] = JUMP;
#endif
			slot[nb * C + OFF(p)] = e;       /* ML1 (published by ML8) */
#if BUG == 1
			pidx = p + 2;                   /* ML4, too early */
#endif
			pbuf = nb;
			plimit = p + 2 * U;             /* ML5 (p + 2 + 2(U - 1)) */
			nxt[old] = nb;
#if BUG != 1
			pidx = p + 2;                   /* ML4 */
#endif
#if BUG != 2
			atomic {                        /* ML8 */
				assert(slot[old * C + OFF(p)] == 0);
				slot[old * C + OFF(p)] = JUMP
			}
#endif
		fi;
		seq++
	od
}

proctype consumer()
{
	byte got = 0, e, s, old, prev;
	byte last[NP + 1];
	do
	:: got == NP * K -> break
	:: else ->
		s = cbuf * C + OFF(cidx);
		(slot[s] != 0);                         /* ML2; waits (bubble) */
		e = slot[s];
		if
		:: e == JUMP ->
			old = cbuf;
			assert(nxt[old] != NONE);
#if BUG != 4
			slot[s] = 0;
#endif
			cbuf = nxt[old];
			nxt[old] = NONE;
			/* retire: exchange into the spare slot (ML11) */
			atomic {
				gen[old]++;
				prev = spare;
				spare = old;
				if
				:: prev != NONE -> used[prev] = false
				:: else -> skip
				fi
			};
			s = cbuf * C + OFF(cidx);
			e = slot[s];                    /* ML2 */
			assert(e != 0 && e != JUMP)
		:: else -> skip
		fi;
		assert(e % 8 == last[e / 8] + 1);       /* per-producer FIFO */
		last[e / 8] = e % 8;
		slot[s] = 0;
		cidx = cidx + 2;                        /* ML6 */
		got++
	od
}

init {
	byte i = 0;
	do
	:: i < NCH -> nxt[i] = NONE; i++
	:: else -> break
	od;
	used[0] = true;
	atomic {
		run producer(1);
		run producer(2);
		run consumer()
	}
}
