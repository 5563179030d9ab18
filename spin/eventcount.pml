/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/eventcount.pml - conq/eventcount.h's park/wake protocol, as the
 * queues' put() and take() use it (src/eventcount.c, impl/blocking.h), with
 * store buffers: the one reordering the protocol must survive.
 *
 * One producer puts N elements into a queue of capacity CAP; NC consumers
 * take PER elements each (N = NC * PER). Two eventcounts: ne (consumers park
 * on it while empty; the producer notifies after each publication) and nf
 * (the producer parks on it while full; consumers notify after each
 * consumption). Each eventcount is an epoch and a waiter count; the futex is
 * "sleep while the epoch equals my key", checked atomically (the kernel's
 * bucket lock), and "wake one sleeper".
 *
 * The memory model: a thread's plain/release store goes to its store buffer
 * and reaches memory later (the flusher process) or at the thread's next
 * read-modify-write, or when another thread's membarrier() runs a fence on
 * it; loads read memory (after the thread's own buffer). That is TSO: a
 * store followed by a load of another location may be reordered, exactly
 * what the notify's "publish, then load the waiter word" with only a
 * compiler barrier between allows, and what the waiter's membarrier must
 * repair. With NC = 1 the consumer publishes its consumption with a buffered
 * store (SPSC); with NC > 1 consumers claim with a read-modify-write (the
 * CAS of the multi-consumer families).
 *
 * Checked: no invalid end state (a thread parked for ever while the others
 * have finished: a lost wake-up shows as exactly that), and the counts.
 *
 * Parameters: -DN=... (elements, default NC * PER), -DNC (1), -DPER (3),
 * -DCAP (1), -DRMW=1: the mode without membarrier (notify does a
 * read-modify-write of the word instead of a load).
 *
 * Planted bugs (-DBUG=n; each must make the check fail):
 *   1  prepare() without the membarrier (free mode)
 *   2  the waiter parks without re-checking after prepare()
 *   3  notify wakes without moving the epoch on
 *   4  the waiter reads its key after the re-check, not in prepare()
 *   5  the producer notifies before it publishes
 *   6  wait counts the waiter out before it sleeps
 *   7  RMW mode, but notify reads the word with a plain load
 */
#ifndef NC
#define NC 1
#endif
#ifndef PER
#define PER 3
#endif
#ifndef N
#define N (NC * PER)
#endif
#ifndef CAP
#define CAP 1
#endif
#ifndef RMW
#define RMW 0
#endif
#ifndef BUG
#define BUG 0
#endif
#if BUG == 7
#undef RMW
#define RMW 1
#endif

/* Memory. */
byte pub = 0;   /* elements published (what consumers read) */
byte con = 0;   /* elements consumed (what the producer reads) */
/* Store buffers: the producer's pending publications, the (single)
 * consumer's pending consumption count. */
byte psb = 0;
byte csb = 0;
/* Eventcounts: epoch (wraps mod 256), waiters. */
byte ne_ep = 0, ne_w = 0, nf_ep = 0, nf_w = 0;
/* Futex sleepers: bit 0..NC-1 consumers on ne; nfs the producer on nf. */
byte nes = 0;
bit nfs = 0;
byte taken = 0;

/* A thread's fence (RMW, membarrier's IPI): its buffer reaches memory. */
#define FLUSH_P() pub = pub + psb; psb = 0
#define FLUSH_C() con = con + csb; csb = 0
/* membarrier(): a full fence on every other running thread. */
#define MEMBARRIER() atomic { FLUSH_P(); FLUSH_C() }

active proctype flusher()
{
end:	do
	:: atomic { psb > 0 -> pub++; psb-- }
	:: atomic { csb > 0 -> con++; csb-- }
	od
}

/* notify(ec): the load of the waiter word (or the RMW in RMW mode), then,
 * with a waiter, move the epoch on (an RMW: flushes our buffer) and wake one
 * sleeper. FLUSHME: our buffer's flush; SLEEPERS: the futex's sleeper set. */
#define NOTIFY_NE()                                                          \
	if                                                                     \
	:: RMW && BUG != 7 -> atomic { FLUSH_P(); w = ne_w }                  \
	:: else -> w = ne_w                                                    \
	fi;                                                                    \
	if                                                                     \
	:: w > 0 ->                                                            \
		if                                                             \
		:: BUG != 3 -> atomic { FLUSH_P(); ne_ep++ }                   \
		:: else -> skip                                                \
		fi;                                                            \
		atomic {                                                       \
			if                                                     \
			:: nes & 1 -> nes = nes & ~1                           \
			:: nes & 2 -> nes = nes & ~2                           \
			:: nes == 0 -> skip                                    \
			fi                                                     \
		}                                                              \
	:: else -> skip                                                        \
	fi

#define NOTIFY_NF()                                                          \
	if                                                                     \
	:: RMW && BUG != 7 -> atomic { FLUSH_C(); w = nf_w }                  \
	:: else -> w = nf_w                                                    \
	fi;                                                                    \
	if                                                                     \
	:: w > 0 ->                                                            \
		if                                                             \
		:: BUG != 3 -> atomic { FLUSH_C(); nf_ep++ }                   \
		:: else -> skip                                                \
		fi;                                                            \
		atomic { nfs = 0 }                                             \
	:: else -> skip                                                        \
	fi

active proctype producer()
{
	byte made = 0, w, key;
	do
	:: made == N -> break
	:: made < N ->
try:		if
		:: made - con < CAP ->
			/* offer: publish (buffered), then notify */
			if
			:: BUG == 5 -> NOTIFY_NE(); psb++
			:: else -> psb++; NOTIFY_NE()
			fi;
			made++
		:: else ->
			/* put's wait on nf: prepare, re-check, park */
			atomic { FLUSH_P(); key = nf_ep; nf_w++ };
			if
			:: !RMW && BUG != 1 -> MEMBARRIER()
			:: else -> skip
			fi;
			if
			:: BUG == 4 -> skip
			:: else ->
				if
				:: BUG != 2 && made - con < CAP ->
					atomic { FLUSH_P(); nf_w-- };
					goto try
				:: else -> skip
				fi
			fi;
			if
			:: BUG == 4 ->
				if
				:: made - con < CAP ->
					atomic { FLUSH_P(); nf_w-- };
					goto try
				:: else -> skip
				fi;
				key = nf_ep
			:: else -> skip
			fi;
			if
			:: BUG == 6 -> atomic { FLUSH_P(); nf_w-- }
			:: else -> skip
			fi;
			atomic { if :: nf_ep == key -> nfs = 1 :: else -> skip fi };
			(nfs == 0);
			if
			:: BUG != 6 -> atomic { FLUSH_P(); nf_w-- }
			:: else -> skip
			fi;
			goto try
		fi
	od
}

proctype consumer(byte me)
{
	byte got = 0, w, key, mask;
	bit ok;
	mask = 1 << me;
	do
	:: got == PER -> break
	:: got < PER ->
try:		/* poll: claim an element if one is published */
		if
		:: NC == 1 ->
			if
			:: pub > con + csb ->
				csb++; /* the SPSC consumer's store */
				ok = 1
			:: else -> ok = 0
			fi
		:: NC > 1 ->
			/* the multi-consumer claim: a read-modify-write */
			atomic {
				if
				:: pub > con -> con++; ok = 1
				:: else -> ok = 0
				fi
			}
		fi;
		if
		:: ok -> got++; NOTIFY_NF()
		:: else ->
			/* take's wait on ne */
			atomic { FLUSH_C(); key = ne_ep; ne_w++ };
			if
			:: !RMW && BUG != 1 -> MEMBARRIER()
			:: else -> skip
			fi;
			if
			:: BUG == 4 -> skip
			:: else ->
				if
				:: BUG != 2 && pub > con + csb ->
					atomic { FLUSH_C(); ne_w-- };
					goto try
				:: else -> skip
				fi
			fi;
			if
			:: BUG == 4 ->
				if
				:: pub > con + csb ->
					atomic { FLUSH_C(); ne_w-- };
					goto try
				:: else -> skip
				fi;
				key = ne_ep
			:: else -> skip
			fi;
			if
			:: BUG == 6 -> atomic { FLUSH_C(); ne_w-- }
			:: else -> skip
			fi;
			atomic { if :: ne_ep == key -> nes = nes | mask :: else -> skip fi };
			((nes & mask) == 0);
			if
			:: BUG != 6 -> atomic { FLUSH_C(); ne_w-- }
			:: else -> skip
			fi;
			goto try
		fi
	od;
	atomic { taken = taken + got }
}

init
{
	byte i;
	atomic {
		for (i : 0 .. NC - 1) {
			run consumer(i)
		}
	}
	/* Everyone finishes: the producer made N, the consumers took N. */
	(taken == N);
	assert(pub + psb == N && con + csb == N)
}
