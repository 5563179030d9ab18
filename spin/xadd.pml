/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/xadd.pml - the chunk protocol of the XADD queues (conq_mpsc_xadd,
 * conq_mpmc_xadd; include/conq/impl/xadd.h, src/xadd.c; docs/memory-model.md,
 * "the XADD queues", labels [X1]...), in Promela, for an exhaustive search
 * by Spin. The point of the model is memory safety without reclamation
 * schemes: that no thread ever touches a chunk after it was released.
 *
 * What is modelled, as the code implements it:
 *  - chunks of C = 2 slots; NOBJ physical chunk objects, each with base,
 *    next, prev and its slots, in one of four ghost states: LIVE (in the
 *    queue, or taken by an appender), SPARE, RESERVE or FREE (the
 *    allocator's). Object 0 is the first chunk, object 1 the reserve that
 *    create allocates; the others are memory the allocator can hand out. A
 *    chunk pointer is a tagged byte: object + NOBJ * generation, where an
 *    object's generation moves on each time it is released (a ghost tag:
 *    the code stores plain pointers). Every read or write of a chunk field
 *    goes through CHK(p): the object must be LIVE and in the generation the
 *    pointer was taken in; so both an access to a pooled or freed chunk and
 *    an access through a stale pointer to a chunk that was released and
 *    reused (ABA) fail an assertion. Waits on a chunk field (a slot, next)
 *    block until the field changes or the chunk stops being valid, so a
 *    release under a waiting thread is caught too;
 *  - producers (NP, PER elements each, claimed K at a time: offer, K = 2
 *    offer_bulk): [X1] i = fetch-and-add(phead, K); for each index, pslot:
 *    the fast path (pbase == want, then pchunk, whose base is want), else
 *    the slow path: even(pbase) >= want: pchunk, walk prev back to want;
 *    pbase odd: wait for the rotation to end; else CAS pbase b -> b | 1 and
 *    append:
 *    old = pchunk, nu = the spare, else a FREE object, else the reserve
 *    (else the rotation is given back, pbase = b; MPMC: the producer helps
 *    the release; it waits for memory, for a release that would free a
 *    chunk (MPMC), or for pbase to move), chunk_reset(nu, b + C,
 *    prev old), [X4] old.next = nu, pchunk = nu, [X3] pbase = b + C; then
 *    [X2] the element into its slot (the producer's last access). Element
 *    of index i: i + 1;
 *  - MC = 0 (conq_mpsc_xadd): one consumer with private ctail and cchunk,
 *    strict poll: at ctail - base == C, follow next (NULL: phead == ctail is
 *    empty, else wait for it), move on and release the old chunk (pool_put:
 *    the spare, else the reserve, else free); read the slot (NULL: phead ==
 *    ctail is empty, else wait for the bubble), ctail++. An empty poll is
 *    retried once phead moves;
 *  - MC = 1 (conq_mpmc_xadd): NC consumers: the claim (ctail below climit,
 *    else [X9] phead: at or below ctail is empty, with the release when
 *    rbase != cbase & ~1, else climit = phead), [X6] CAS ctail c -> c + 1;
 *    cslot as pslot through (cbase, ccur) (an index of an older chunk
 *    than even(cbase)'s does not wait for an advance): the advance CASes
 *    cbase b ->
 *    b | 1, waits for old.next, ccur = next, [X5] cbase = b + C, then the
 *    release; the slot is waited for, read, and [X7] CONSUMED stored (the
 *    consumer's last access). The release, under the try-lock rlock: from
 *    rchunk (resuming at roff), while its base is not cbase & ~1: every
 *    slot CONSUMED and peekers == 0: read next, pool_put, go on; rchunk,
 *    roff, rbase = its base. A consumer ends with an empty poll at the end
 *    (so the drained queue's release runs too);
 *  - PEEK = 1 (MPMC): a peeker thread does PK relaxed peeks at any time,
 *    each look under its own announcement: [X12] peekers++, ctail, phead
 *    (empty), cbase (base(c) below even(cbase): again), ccur (base past
 *    base(c): again), walk next to base(c) (NULL: a bubble), the slot
 *    (CONSUMED: again; NULL: a bubble), peekers-- (also before again).
 *  - START: the first index (test_start): indices START .. START + N - 1
 *    span one more chunk than N / C, so that even 2 x 2 elements reuse a
 *    chunk object (START = 1: the slots below it are CONSUMED for MPMC,
 *    NULL and never read for MPSC).
 *
 * Spin explores every interleaving of these steps under sequential
 * consistency (each shared access one step; pool_take and pool_put are one
 * step each). The code's memory orders (acquire/release, and seq_cst for
 * the X12 Dekker between peek and release) are the pairing table's and the
 * TSan build's job; under sequential consistency X12 is exactly the
 * interleaving argument the model checks.
 *
 * Safety (assert, invalid end state): no access to a released chunk or
 * through a stale pointer (CHK); a producer stores into a chunk of its
 * index's base and an empty slot; a consumer reads the element of its index
 * (i + 1: no loss, no duplication, no stale element of a recycled chunk;
 * MPSC: in index order, hence FIFO per producer; MPMC: each element exactly
 * once, seen[]); a peek returns only the element of the index it read from
 * ctail; the search ends when every element was consumed: a lost element
 * or a thread stuck for good is an invalid end state.
 *
 * Memory is NOBJ objects and no more: the allocator fails for good once
 * they are used, so a wait for memory that nothing can end is a deadlock
 * (an invalid end state). NOBJ = 2 (the first chunk and the reserve) makes
 * every chunk after the second a reused one. The search found two such
 * deadlocks in the first version of the code, both fixed (bugs 11, 12).
 *
 * Not modelled: the memory-low mark and replenish (an offer that fails
 * with ENOMEM claims nothing), relaxed (non-strict) polls, MPSC peek (the
 * consumer's own read), size / is_empty (indices only), index wrap (the
 * code's differences; bytes here never wrap).
 *
 * Parameters: -DMC (0), -DNP (2), -DPER (2), -DK (1), -DNC (MPMC: 2),
 * -DSTART (1), -DNOBJ (3), -DPEEK (0), -DPK (1).
 *
 * Planted bugs (-DBUG=n, each must make the check fail; spin/check.sh):
 *   1  pslot's fast path without the pbase check: reads pchunk and uses it
 *      if its base is want (pchunk may be an old chunk mid-rotation, which
 *      the consumer may have released)
 *   2  the walk back steps to prev before it looks (do-while: from the
 *      chunk of want it walks below want)
 *   3  the MPSC consumer releases its chunk before it reads next
 *   4  the MPMC release does not check that every slot is CONSUMED
 *   5  the MPMC release ignores the cbase bound (releases the consumers'
 *      current chunk once its slots are CONSUMED)
 *   6  the MPMC release ignores peekers
 *   7  the appender publishes pbase = b + C before pchunk and the link
 *   8  an MPMC consumer stores CONSUMED before it reads the element
 *   9  the appender links old.next before it resets the new chunk
 *  10  peek announces itself (peekers++) only after it read ccur
 *  11  an MPMC producer that finds no memory waits for it without helping
 *      a release held off (a slot not yet CONSUMED when the advance
 *      released, a peek): the consumers wait for its chunk, nobody
 *      releases, it waits for good
 *  12  an MPMC consumer whose index is in an older chunk waits for an
 *      advance in progress (the advancer waits for the next chunk, which
 *      needs the memory of the chunk this consumer has yet to finish)
 */

#ifndef BUG
#define BUG 0
#endif
#ifndef MC
#define MC 0
#endif
#ifndef NP
#define NP 2
#endif
#ifndef PER
#define PER 2
#endif
#ifndef K
#define K 1
#endif
#ifndef NC
#if MC
#define NC 2
#else
#define NC 1
#endif
#endif
#ifndef START
#define START 1
#endif
#ifndef NOBJ
#define NOBJ 3
#endif
#ifndef PEEK
#define PEEK 0
#endif
#ifndef PK
#define PK 1
#endif

#define C        2
#define N        (NP * PER)
#define END      (START + N)
#define NONE     255
#define CONSUMED 254
#define BASE(i)  ((i) - (i) % C)
#define EVEN(v)  ((v) - (v) % 2)

/* Ghost states of a chunk object. */
#define LIVE    0
#define SPARE   1
#define RESERVE 2
#define FREE    3

/* Tagged chunk pointers. */
#define OBJ(p)   ((p) % NOBJ)
#define TAG(p)   ((p) / NOBJ)
#define PTR(o)   ((o) + NOBJ * gen[o])
#define VALID(p) ((p) != NONE && st[OBJ(p)] == LIVE && gen[OBJ(p)] == TAG(p))
#define CHK(p)   assert(VALID(p))
#define MEMORY   (spare != NONE || reserve != NONE || nfree > 0)
#define S(p, k)  slot[OBJ(p) * C + (k)]

/* The chunk objects. */
byte base[NOBJ];
byte nxt[NOBJ];
byte prv[NOBJ];
byte slot[NOBJ * C];
byte st[NOBJ];
byte gen[NOBJ];
byte nfree = 0;               /* objects FREE (the allocator's memory) */

/* The queue. */
byte phead = START;
byte pbase = BASE(START);
byte pchunk = 0;
byte spare = NONE;            /* objects, not tagged pointers */
byte reserve = 1;
#if MC
byte ctail = START, climit = START;
byte cbase = BASE(START), ccur = 0;
byte rbase = BASE(START), rchunk = 0, roff = 0;
bit rlock = 0;
byte peekers = 0;
bit seen[END + 1];
#endif
byte pdone = 0;

/* pool_put: the releaser's (one at a time) release of chunk p: the spare,
 * else the reserve, else free. The generation moves on: p and every copy
 * of it are stale from here on. */
inline pool_put(p, o)
{
	atomic {
		o = OBJ(p);
		gen[o]++;
		if
		:: spare == NONE -> spare = o; st[o] = SPARE
		:: else ->
			if
			:: reserve == NONE -> reserve = o; st[o] = RESERVE
			:: else -> st[o] = FREE; nfree++
			fi
		fi;
		o = 0
	}
}

/* pool_take: the appender's: the spare, else a FREE object (the lowest),
 * else the reserve; NONE when there is none. */
inline pool_take(o)
{
	atomic {
		if
		:: spare != NONE -> o = spare; spare = NONE
		:: else ->
			if
			:: nfree > 0 ->
				o = 0;
				do
				:: st[o] == FREE -> break
				:: else -> o++
				od;
				nfree--
			:: else -> o = reserve; reserve = NONE
			fi
		fi;
		if
		:: o != NONE -> st[o] = LIVE
		:: else -> skip
		fi
	}
}

/* chunk_reset of an object the caller owns (nobody can reach it). */
inline chunk_reset(o, b, pv)
{
	atomic {
		base[o] = b;
		nxt[o] = NONE;
		prv[o] = pv;
		slot[o * C] = 0;
		slot[o * C + 1] = 0
	}
}

#if MC
/* The MPMC release (try-lock). Caller's locals: rl, cb, rch, off, x, e,
 * nx, o. */
inline release()
{
	atomic {                                            /* X11 */
		if
		:: rlock == 0 -> rlock = 1; rl = true
		:: else -> rl = false
		fi
	};
	if
	:: rl ->
		atomic { cb = EVEN(cbase); rch = rchunk; off = roff };  /* X5 */
		do
		:: atomic { CHK(rch); x = base[OBJ(rch)] };
#if BUG == 5
			if
			:: x > cb -> break
			:: else -> skip
			fi;
#else
			if
			:: x == cb -> break
			:: else -> skip
			fi;
#endif
#if BUG != 4
			do                                  /* X7 */
			:: off < C ->
				atomic { CHK(rch); e = S(rch, off) };
				if
				:: e == CONSUMED -> off++
				:: else -> break
				fi
			:: else -> break
			od;
#else
			off = C;
#endif
			if
			:: off < C -> break
			:: else -> skip
			fi;
#if BUG != 6
			if                                  /* X12 */
			:: peekers != 0 -> break
			:: else -> skip
			fi;
#endif
			atomic { CHK(rch); nx = nxt[OBJ(rch)] };    /* X4 */
			pool_put(rch, o);
			atomic { rch = nx; off = 0; nx = NONE }
		od;
		atomic { rchunk = rch; roff = off };
		atomic { CHK(rch); rbase = base[OBJ(rch)] };
		atomic { rlock = 0; rch = NONE; off = 0; cb = 0; x = 0; e = 0 }  /* X11 */
	:: else -> skip
	fi
}

/* A release that would free a chunk now (the producer that found no
 * memory waits for one, or for memory). */
#define RELEASABLE (rlock == 0 && peekers == 0 && \
	base[OBJ(rchunk)] != EVEN(cbase) && \
	S(rchunk, 0) == CONSUMED && S(rchunk, 1) == CONSUMED)
#endif

/* The walk back from ch (base >= want) to the chunk of base want. */
inline walk_back(ch, want, x)
{
#if BUG == 2
	atomic { CHK(ch); ch = prv[OBJ(ch)] };
#endif
	do
	:: atomic { CHK(ch); x = base[OBJ(ch)] };
		if
		:: x == want -> break
		:: else -> atomic { CHK(ch); ch = prv[OBJ(ch)] }
		fi
	od
}

proctype producer(byte id)
{
	byte k = 0, j, i, want, b, ch = NONE, x, old = NONE, nu, o;
	bool ok;
#if MC
	byte cb, rch, off, e, nx;
	bool rl;
#endif
	do
	:: k == PER -> break
	:: else ->
		atomic { i = phead; phead = phead + K };    /* X1 */
		j = 0;
		do
		:: j == K -> break
		:: else ->
			want = BASE(i + j);
			/* pslot's fast path */
#if BUG == 1
			ch = pchunk;
			atomic { CHK(ch); x = base[OBJ(ch)] };
			if
			:: x == want -> goto store
			:: else -> skip
			fi;
#else
			b = pbase;                          /* X3 */
			if
			:: b == want ->
				ch = pchunk;                /* X3 */
				atomic { CHK(ch); x = base[OBJ(ch)] };
				if
				:: x == want -> goto store
				:: else -> skip
				fi
			:: else -> skip
			fi;
#endif
slow:
			b = pbase;                          /* X3 */
			if
			:: EVEN(b) >= want ->
				ch = pchunk;                /* X3 */
				walk_back(ch, want, x);
				goto store
			:: b % 2 == 1 && EVEN(b) < want ->  /* a rotation */
				(pbase != b);
				goto slow
			:: b % 2 == 0 && b < want ->
				atomic {                    /* X3: the rotation */
					if
					:: pbase == b -> pbase = b + 1; ok = true
					:: else -> ok = false
					fi
				};
				if
				:: !ok -> goto slow
				:: else -> skip
				fi;
				/* append */
				old = pchunk;
				pool_take(nu);
				if
				:: nu == NONE ->
					pbase = b;          /* X3: given back */
#if MC && BUG != 11
					/* MPMC: a release held off may be
					 * due: help it, then wait for memory
					 * or for a release that can free a
					 * chunk (the code retries in a loop) */
					release();
					(MEMORY || RELEASABLE || pbase != b);
#else
					(MEMORY || pbase != b);
#endif
					goto slow
				:: else -> skip
				fi;
#if BUG != 9
				chunk_reset(nu, b + C, old);
#endif
#if BUG == 7
				pbase = b + C;              /* X3, too early */
#endif
				atomic { CHK(old); nxt[OBJ(old)] = PTR(nu) };   /* X4 */
#if BUG == 9
				chunk_reset(nu, b + C, old);
#endif
				pchunk = PTR(nu);           /* X3 */
#if BUG != 7
				pbase = b + C;              /* X3 */
#endif
				atomic { old = NONE; nu = 0 };
				goto slow
			fi;
store:
			atomic {                            /* X2 */
				CHK(ch);
				assert(base[OBJ(ch)] == want);
				assert(S(ch, (i + j) % C) == 0);
				S(ch, (i + j) % C) = i + j + 1;
				ch = NONE; b = 0; x = 0; want = 0
			};
			j++
		od;
		atomic { k = k + K; i = 0; j = 0 }
	od;
	pdone++
}

#if !MC
/* The MPSC consumer: strict polls until it has every element. */
proctype consumer()
{
	byte ct = START, cc = 0, got = 0, x, nx, old, e, p, o;
	do
	:: got == N -> break
	:: else ->
again:
		atomic { CHK(cc); x = base[OBJ(cc)] };
		if
		:: ct - x >= C ->                           /* follow */
#if BUG == 3
			old = cc;
			pool_put(old, o);
#endif
			atomic { CHK(cc); nx = nxt[OBJ(cc)] };  /* X4 */
			if
			:: nx == NONE ->
				p = phead;                  /* X9 */
				if
				:: p == ct ->               /* empty */
					(phead != ct);
					goto again
				:: else ->                  /* wait for next */
					atomic {
						(!VALID(cc) || nxt[OBJ(cc)] != NONE) ->
						CHK(cc);
						nx = nxt[OBJ(cc)]
					}
				fi
			:: else -> skip
			fi;
			old = cc;
			cc = nx;
#if BUG != 3
			pool_put(old, o);
#endif
			atomic { old = NONE; nx = NONE }
		:: else -> skip
		fi;
		atomic { CHK(cc); e = S(cc, ct % C) };      /* X2 */
		if
		:: e == 0 ->
			p = phead;                          /* X9 */
			if
			:: p == ct ->                       /* empty */
				(phead != ct);
				goto again
			:: else ->                          /* a bubble */
				atomic {
					(!VALID(cc) || S(cc, ct % C) != 0) ->
					CHK(cc);
					e = S(cc, ct % C)
				}
			fi
		:: else -> skip
		fi;
		atomic {
			assert(e == ct + 1);
			ct++;                               /* X8 */
			got++;
			e = 0; x = 0; p = 0
		}
	od
}
#else

proctype consumer(byte id)
{
	byte c, lim, p, want, b, ch = NONE, x, old = NONE, nx, e, o;
	byte cb, rch, off;
	bool ok, rl;
	do
	:: c = ctail;                                       /* relaxed */
claim:
		lim = climit;
		if
		:: lim <= c ->
			p = phead;                          /* X9 */
			if
			:: p <= c ->                        /* empty */
				atomic { x = rbase; b = cbase };
				if
				:: x != EVEN(b) -> release()
				:: else -> skip
				fi;
				if
				:: c >= END -> break        /* drained: done */
				:: else -> skip
				fi;
				atomic { (phead > c) -> x = 0; b = 0; p = 0; lim = 0 };
				goto next
			:: else -> climit = p
			fi
		:: else -> skip
		fi;
		atomic {                                    /* X6 */
			if
			:: ctail == c -> ctail = c + 1; ok = true
			:: else -> c = ctail; ok = false
			fi
		};
		if
		:: !ok -> goto claim
		:: else -> skip
		fi;
		/* cslot */
		want = BASE(c);
		b = cbase;                                  /* X5 */
		if
		:: b == want ->
			ch = ccur;                          /* X5 */
			atomic { CHK(ch); x = base[OBJ(ch)] };
			if
			:: x == want -> goto got
			:: else -> skip
			fi
		:: else -> skip
		fi;
cslow:
		b = cbase;                                  /* X5 */
		if
		:: EVEN(b) >= want ->
			ch = ccur;                          /* X5 */
			walk_back(ch, want, x);
			goto got
#if BUG == 12
		:: b % 2 == 1 && EVEN(b) >= want ->    /* waits anyway */
			(cbase != b);
			goto cslow
#endif
		:: b % 2 == 1 && EVEN(b) < want ->
			(cbase != b);
			goto cslow
		:: b % 2 == 0 && b < want ->
			atomic {                            /* X5: the advance */
				if
				:: cbase == b -> cbase = b + 1; ok = true
				:: else -> ok = false
				fi
			};
			if
			:: !ok -> goto cslow
			:: else -> skip
			fi;
			old = ccur;
			atomic {                            /* X4: wait for next */
				(!VALID(old) || nxt[OBJ(old)] != NONE) ->
				CHK(old);
				nx = nxt[OBJ(old)]
			};
			ccur = nx;                          /* X5 */
			atomic { cbase = b + C; old = NONE; nx = NONE };  /* X5 */
			release();
			goto cslow
		fi;
got:
#if BUG == 8
		atomic { CHK(ch); S(ch, c % C) = CONSUMED };
#endif
		atomic {                                    /* X2: wait, read */
			(!VALID(ch) || S(ch, c % C) != 0) ->
			CHK(ch);
			e = S(ch, c % C);
#if BUG != 8
			assert(e == c + 1 && !seen[e]);
			seen[e] = 1
#endif
		};
#if BUG != 8
		atomic { CHK(ch); S(ch, c % C) = CONSUMED };  /* X7 */
#endif
		atomic { ch = NONE; e = 0; x = 0; b = 0; p = 0; lim = 0; want = 0 };
next:
		skip
	od
}

#if PEEK
/* PK relaxed peeks (conq__xadd_mc_peek, strict = false): each look at the
 * head is made under the announcement (mc_peek_once), and a look that
 * must go round again drops it first. */
proctype peeker()
{
	byte k = 0, c, p, b, want, ch, x, e;
	bit ann = 0;
	do
	:: k == PK -> break
	:: else ->
again:
#if BUG != 10
		atomic { peekers++; ann = 1 };              /* X12 */
#endif
		c = ctail;                                  /* X12 */
		p = phead;                                  /* X9 */
		if
		:: p <= c -> goto done                      /* empty */
		:: else -> skip
		fi;
		b = cbase;                                  /* X12 */
		atomic { b = EVEN(b); want = BASE(c) };
		if
		:: want < b -> goto retry                   /* c stale */
		:: else -> skip
		fi;
		ch = ccur;                                  /* X5 */
#if BUG == 10
		atomic { peekers++; ann = 1 };              /* X12, late */
#endif
		atomic { CHK(ch); x = base[OBJ(ch)] };
		if
		:: x > want -> goto retry                   /* c stale */
		:: else -> skip
		fi;
		do
		:: x == want -> break
		:: else ->
			atomic { CHK(ch); ch = nxt[OBJ(ch)] };  /* X4 */
			if
			:: ch == NONE -> goto done          /* a bubble */
			:: else -> atomic { CHK(ch); x = base[OBJ(ch)] }
			fi
		od;
		atomic { CHK(ch); e = S(ch, c % C) };       /* X2 */
		if
		:: e == CONSUMED -> goto retry              /* polled meanwhile */
		:: e == 0 -> skip                           /* a bubble */
		:: else -> assert(e == c + 1)
		fi;
done:
		atomic {
			if                                  /* X12 */
			:: ann -> peekers--; ann = 0
			:: else -> skip
			fi;
			k++; c = 0; p = 0; b = 0; want = 0; ch = NONE; x = 0; e = 0
		};
		goto next;
retry:
		atomic {
			if                                  /* X12 */
			:: ann -> peekers--; ann = 0
			:: else -> skip
			fi;
			c = 0; p = 0; b = 0; want = 0; ch = NONE; x = 0; e = 0
		};
		goto again;
next:
		skip
	od
}
#endif
#endif

init
{
	byte o = 0;
	atomic {
		do
		:: o < NOBJ ->
			nxt[o] = NONE;
			prv[o] = NONE;
			st[o] = FREE;
			o++
		:: else -> break
		od;
		nfree = NOBJ - 2;
		st[0] = LIVE;
		base[0] = BASE(START);
		st[1] = RESERVE;
#if MC
		o = 0;
		do
		:: o < START - BASE(START) -> slot[o] = CONSUMED; o++
		:: else -> break
		od;
#endif
		o = 0;
		do
		:: o < NP -> run producer(o); o++
		:: else -> break
		od;
#if MC
		o = 0;
		do
		:: o < NC -> run consumer(o); o++
		:: else -> break
		od;
#if PEEK
		run peeker();
#endif
#else
		run consumer();
#endif
		o = 0
	}
}
