/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spin/pool.pml - conq_pool's park/wake protocol (conq/pool.h, src/pool.c:
 * conq__pool_notify, conq__pool_wake, conq__pool_park, conq__pool_found,
 * conq__pool_try_search, conq__pool_main), with store buffers, as
 * spin/eventcount.pml models them.
 *
 * NW workers; NS outside submitters, each submitting PER tasks into the
 * inject queue (T = NS * PER tasks in all). The state word: srch (searching
 * workers) and unp (unparked workers); every RMW of it is seq_cst, one
 * atomic step here, and a load of it reads both halves at once. The
 * sleepers: a LIFO stack under sleep_lock; each worker's futex word
 * notified (futex_wait sleeps only while the word is 0, compared under the
 * kernel's bucket lock, so "loop: sleep while 0" is a blocking guard).
 *
 * The memory model (TSO, as eventcount.pml): a submitter's push is the
 * inject queue's claim (a CAS of pidx: an RMW, so its earlier stores reach
 * memory first) and the slot's publication (the tag's release store: it
 * goes to the submitter's store buffer, sb[], and reaches memory later (the
 * flusher), at the submitter's next RMW, or at a parker's membarrier). A
 * worker sees a task (poll, work_visible: is_empty looks past claimed,
 * unpublished slots) only once it is in memory (q). Workers' own stores
 * need no buffer: each that matters is followed by an RMW of theirs (the
 * clear of notified by the next park's lock and count-out, before anybody
 * can pop the worker again), and a waker's store of notified reaches
 * memory in the futex wake's system call (the bucket lock).
 *
 * A submitter: push, then notify: a compiler barrier and a relaxed load of
 * the word (the light half of the asymmetric fence; RMW mode: an RMW of
 * the word, which flushes the buffer first). Nobody parked (unp == NW) or
 * somebody searching (srch != 0, Go's wakep): nothing. Else wake: lock (an
 * RMW), re-read the word, nobody on the stack or a searcher: unlock; else
 * one RMW adds a searcher (the token: the woken worker counts as
 * searching) and an unparked worker, pop the most recently parked worker,
 * unlock, set its word and wake it.
 *
 * A worker (spin_ns = 0): not searching, look for a task; none: become a
 * searcher if 2 * srch < NW (always when NW = 1; a relaxed load, then the
 * RMW); a searcher looks again. A task: a searcher stops searching (found:
 * the RMW; the last searcher (srch was 1) that sees more work calls notify,
 * the ramp-up), then runs it. None: park: lock, count out ([PK1]: one RMW,
 * unp - 1 and srch - 1 if searching), push itself, unlock, the heavy fence
 * (membarrier: every other thread's buffer reaches memory; RMW mode: none),
 * the re-check [PK2] (a task visible: notify, which may pop and wake the
 * parker itself), sleep until notified, clear it, go on as a searcher.
 *
 * Checked:
 *   - no lost task: init waits for every task to be taken, so a task left
 *     for ever while every worker sleeps is an invalid end state (a parked
 *     worker ends at end_park, the flusher at its end label);
 *   - the wake token: at every wake's RMW no other wake is in flight (a
 *     wake is in flight from that RMW until its worker takes a task or
 *     parks again: ghosts tok[], infl), whichever path called the wake (a
 *     submit, the parker's re-check, the ramp-up): never more than one;
 *   - the counts (a monitor, in every state): srch equals the number of
 *     workers counted searching (ghost scnt[], set and cleared with each
 *     RMW of the word: so srch never underflows, and a token nobody holds
 *     is caught at once); unp + (stack size) == NW whenever the lock is
 *     free; at most one wake in flight. Each decrement of srch asserts
 *     srch > 0.
 * Not asserted, because it does not hold: "no wake while a worker
 * searches" at the wake's RMW. A worker's try_search (outside the lock)
 * can slip between the waker's re-read of srch under the lock and its
 * RMW (harmless: one more searcher than the cap allows, for a moment).
 *
 * -DJOIN=1: one task (any one, chosen by the search) blocks until every
 * task has been taken (a task that waits for another: a join). Then a task
 * left queued while one worker sleeps and the other runs the join is a
 * deadlock (invalid end state): "no task waits in a queue, behind a
 * running task, while a worker sleeps". In the membarrier mode src/pool.c
 * fails it (docs/stress.md, "Spin models"): a submitter that reads srch =
 * 1 relies on the searcher, whose found() RMW is not paired with the
 * submitter's relaxed load by any fence, so its "more work visible?" can
 * miss the task still in the submitter's store buffer; nobody is woken,
 * and the task waits for the running one to end. RMW mode passes. Two
 * repairs, each passes: -DFIX=1, found()'s last searcher that sees no work
 * while its RMW showed a worker parked runs the heavy fence and looks
 * again; -DFIX=2, a notify whose load shows a worker parked and a searcher
 * reads the word again with an RMW (as RMW mode does for every notify) and
 * decides on that.
 *
 * Parameters: -DNW (workers, 1-3; 2), -DNS (submitters, 1-2; 1), -DPER
 * (tasks per submitter, 2), -DRMW=1 (the mode without membarrier: notify
 * does an RMW of the word, park no heavy fence), -DJOIN=1, -DFIX=1 or 2
 * (above; src/pool.c has FIX 2, [PK6], the default).
 *
 * Not modelled: destroy (stop, wake_all), the local queues and stealing
 * (a task's own submits: the same protocol, the push a store into the
 * worker's local queue, as buffered), the strands' ready queue (one more
 * queue work_visible reads), submit_batch (one notify for n tasks),
 * spin_ns > 0, the bounded sleep of a failed membarrier,
 * CONQ_POOL_WAKE_EVERY (no token), the fairness tick.
 *
 * Planted bugs (-DBUG=n; each must make the check fail):
 *   1  the parker does not re-check the queues after the fence
 *   2  park without the heavy fence (the re-check can miss a task still
 *      in the submitter's store buffer)
 *   3  the waker does not count the woken worker as searching (no token;
 *      the woken worker goes on as a non-searcher)
 *   4  the parker re-checks (fence, look, notify) before it counts itself
 *      out
 *   5  the submitter reads the state word before its push (the load
 *      moved above the task's store)
 *   6  the pool prototype's bug (research notes, extras.md section 2,
 *      finding 4): the waker sets the token (srch + 1) before it knows
 *      whom it wakes and, finding nobody on the stack, leaves it set
 *   7  RMW mode, but notify reads the word with a plain load
 *   8  wake without the re-read of srch under the lock
 *   9  notify without [PK6] (FIX 0), with JOIN: the task stranded behind
 *      a running one while a worker sleeps (the trail that found it)
 */
#ifndef NW
#define NW 2
#endif
#ifndef NS
#define NS 1
#endif
#ifndef PER
#define PER 2
#endif
#define T (NS * PER)
#ifndef RMW
#define RMW 0
#endif
#ifndef JOIN
#define JOIN 0
#endif
#ifndef FIX
#define FIX 2 /* src/pool.c's [PK6] */
#endif
#ifndef BUG
#define BUG 0
#endif
#if BUG == 7
#undef RMW
#define RMW 1
#endif
#if BUG == 9 /* no [PK6]: the JOIN trail */
#undef FIX
#define FIX 0
#undef JOIN
#define JOIN 1
#endif

/* Memory. */
byte q = 0;     /* tasks published in the inject queue (visible) */
byte sb[3];     /* each submitter's store buffer: a published task not yet
		 * in memory (0 or 1: its next push's CAS flushes it); sb[2],
		 * the workers' index, stays 0 */
byte srch = 0;  /* the state word: searching workers ... */
byte unp = NW;  /* ... and unparked workers */
bit lk = 0;     /* sleep_lock */
byte stk[NW];   /* the sleepers' stack (of worker indices) */
byte nsl = 0;
bit notified[NW]; /* the park words */
byte taken = 0;

/* Ghosts. */
bit scnt[NW];   /* worker i is counted in srch */
bit tok[NW];    /* worker i was woken and has not taken a task or parked */
byte infl = 0;  /* wakes in flight: the number of tok[i] set */
bit joined = 0; /* JOIN: a join task has been started */

/* A thread's own fence (an RMW): its buffer reaches memory. */
#define FLUSH(b) q = q + sb[b]; sb[b] = 0
/* membarrier(): a full fence on every other running thread. */
#define MEMBARRIER() atomic { q = q + sb[0] + sb[1]; sb[0] = 0; sb[1] = 0 }

#define SUMCNT (scnt[0] + (NW > 1) * scnt[1 % NW] + (NW > 2) * scnt[2 % NW])
#define INV (srch == SUMCNT && (lk || unp + nsl == NW) && infl <= 1)

active proctype monitor()
{
end:	atomic {
		!(INV) ->
		assert(srch == SUMCNT);
		assert(lk || unp + nsl == NW);
		assert(infl <= 1)
	}
}

active proctype flusher()
{
end:	do
	:: atomic { sb[0] > 0 -> q++; sb[0]-- }
	:: atomic { sb[1] > 0 -> q++; sb[1]-- }
	od
}

/* conq__pool_wake: b is the caller's buffer (2: a worker's, none). */
inline wake(b)
{
	atomic { !lk -> lk = 1; FLUSH(b) };  /* the lock: an RMW */
	ws = srch; /* src/pool.c: an RMW adding 0 ([PK8]); the lock's own
		    * RMW has flushed the buffer already, as on TSO (a C11
		    * lock acquire alone would not: hence the RMW) */
	if
	:: BUG == 6 && nsl == 0 && ws == 0 ->
		/* the token counted with nobody to give it to, kept */
		atomic { srch++ };
		lk = 0
	:: !(BUG == 6 && nsl == 0 && ws == 0) &&
	   (nsl == 0 || (BUG != 8 && ws != 0)) -> lk = 0
	:: else ->
		/* the token's RMW, and the pop (under the lock: one step) */
		atomic {
			assert(infl == 0);
			if
			:: BUG != 3 -> srch++
			:: else -> skip
			fi;
			unp++;
			nsl--;
			w = stk[nsl];
			stk[nsl] = 0;
			scnt[w] = (BUG != 3);
			tok[w] = 1;
			infl++
		};
		lk = 0;
		notified[w] = 1; /* [PK3] and the futex wake */
		w = 0
	fi;
	ws = 0
}

/* conq__pool_notify: the light half of the fence, then the policy. */
inline notify(b)
{
	if
	:: RMW && BUG != 7 -> atomic { FLUSH(b); ls = srch; lu = unp }
	:: else -> atomic { ls = srch; lu = unp } /* one relaxed load */
	fi;
#if FIX == 2 && !RMW
	if
	:: lu != NW && ls != 0 ->
		/* the second repair: a searcher about, read again with an
		 * RMW (ordered with the searcher's found) */
		atomic { FLUSH(b); ls = srch; lu = unp }
	:: else -> skip
	fi;
#endif
	if
	:: lu == NW -> skip       /* nobody parked */
	:: lu != NW && ls != 0 -> skip /* a searcher about */
	:: else -> wake(b)
	fi;
	ls = 0;
	lu = 0
}

proctype submitter(byte me)
{
	byte n = 0, ls, lu, ws, w;
	do
	:: n == PER -> break
	:: else ->
		if
		:: BUG == 5 ->
			notify(me);
			atomic { FLUSH(me); sb[me] = 1 }
		:: else ->
			/* the claim's CAS flushes, the publication is buffered */
			atomic { FLUSH(me); sb[me] = 1 };
			notify(me)
		fi;
		n++
	od
}

/* A take (the poll's claim, an RMW); a woken worker's wake ends here. */
inline take()
{
	atomic {
		if
		:: q > 0 ->
			q--;
			taken++;
			got = 1;
			if
			:: tok[me] -> tok[me] = 0; infl--
			:: else -> skip
			fi
		:: else -> got = 0
		fi
	}
}

/* The parker's heavy fence and re-check [PK2]. */
inline recheck()
{
	if
	:: !RMW && BUG != 2 -> MEMBARRIER()
	:: else -> skip
	fi;
	if
	:: BUG != 1 && q > 0 -> notify(2)
	:: else -> skip
	fi
}

proctype worker(byte me)
{
	bit searching = 0, got = 0;
	byte ls, lu, ws, w, old;
top:
	if
	:: !searching ->
		take();
		if
		:: got -> goto ran
		:: else -> skip
		fi;
		/* conq__pool_try_search */
		ls = srch;
		if
		:: NW > 1 && 2 * ls >= NW -> skip
		:: else -> atomic { srch++; scnt[me] = 1; searching = 1 }
		fi;
		ls = 0
	:: else -> skip
	fi;
	if
	:: searching ->
		take();
		if
		:: got -> goto ran
		:: else -> skip
		fi
	:: else -> skip
	fi;
	/* conq__pool_park */
	if
	:: BUG == 4 -> recheck()
	:: else -> skip
	fi;
	atomic { !lk -> lk = 1 };
	atomic {
		/* [PK1] count out */
		unp--;
		if
		:: searching -> assert(srch > 0); srch--; scnt[me] = 0
		:: else -> skip
		fi;
		searching = 0;
		if
		:: tok[me] -> tok[me] = 0; infl--
		:: else -> skip
		fi
	};
	atomic { stk[nsl] = me; nsl++ };
	lk = 0;
	if
	:: BUG != 4 -> recheck()
	:: else -> skip
	fi;
end_park:
	atomic { notified[me] -> notified[me] = 0 };
	searching = (BUG != 3); /* the waker's token */
	goto top;
ran:
	got = 0;
	if
	:: searching ->
		/* conq__pool_found */
		searching = 0;
		atomic {
			assert(srch > 0);
			old = srch;
			lu = unp;
			srch--;
			scnt[me] = 0
		};
		if
		:: old == 1 && q > 0 -> old = 0; lu = 0; notify(2)
		:: FIX == 1 && !RMW && old == 1 && q == 0 && lu != NW ->
			/* the proposed fix: nothing seen, somebody parked:
			 * the heavy fence, then look again */
			old = 0;
			lu = 0;
			MEMBARRIER();
			if
			:: q > 0 -> notify(2)
			:: else -> skip
			fi
		:: else -> old = 0; lu = 0
		fi
	:: else -> skip
	fi;
	/* run the task: JOIN, one of them may wait for all to be taken */
	if
	:: atomic { JOIN && !joined -> joined = 1 }; (taken == T)
	:: true -> skip
	fi;
	goto top
}

init
{
	byte i;
	atomic {
		for (i : 0 .. NW - 1) {
			run worker(i)
		}
		for (i : 0 .. NS - 1) {
			run submitter(i)
		}
		i = 0
	}
	/* Every task taken: else a task is lost (an invalid end state). */
	(taken == T);
	assert(q == 0 && sb[0] == 0 && sb[1] == 0)
}
