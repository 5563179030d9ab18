/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/impl/claims.h - the claim registry: who holds a claim on a ring in
 * shared memory, and whether that holder is still alive. Installed but
 * private (conq__ names): the process-shared rings use it (conq_mpsc_bytes
 * today; the value rings next), users do not.
 *
 * The problem. A producer claims space (a CAS of the ring's tail) and then
 * writes and commits it. If its process dies in between, the consumer waits
 * for that commit for ever. Agrona's unblock() ends the wait after a
 * timeout, on the presumption that a producer that slow is dead; a live
 * producer that was merely descheduled (or SIGSTOPped) for longer than the
 * timeout then commits into memory the consumer has reused, which corrupts
 * the ring. conq reclaims only on proof of death, so that the timeout sets
 * how often liveness is checked and never decides it.
 *
 * The registry: a table of n padded entries that lives in the shared memory
 * next to its ring (found through an offset, no pointers), one entry per
 * producer *thread* that has used the ring:
 *
 *   owner   0 when free, else pid << 32 | tid (of the thread holding it);
 *   start   the owner's process start time (field 22 of /proc/PID/stat, in
 *           clock ticks since boot), read once per process: a pid reused by
 *           a new process has another start time;
 *   intent  0, or the token of the position the thread is claiming or
 *           holds (the ring's choice of encoding: conq__claims_token).
 *
 * A thread takes an entry on its first claim on a ring (conq__claims_enter:
 * a CAS of a free entry's owner, else of an entry whose process is dead),
 * keeps it in a thread-local table keyed by the registry's address, and
 * frees it when it exits (a pthread key destructor), or when its process
 * detaches from the ring (conq__claims_detach). A full table: the claim
 * fails (EUSERS) before it changes the ring.
 *
 * The protocol (docs/memory-model.md, "The claim registry"):
 *
 *   producer                               consumer stuck at position h
 *   intend(e, token(t))      [CL1]         t = tail (acquire, the ring's)
 *   CAS tail t -> t + n      (release)     live(reg, range around h) [CL2]
 *   ... write, commit (release) ...        re-read the ring: still not
 *   done(e)                  [CL1]           committed -> reclaim
 *
 * Why "no live entry has an intent in the range" plus "still not committed"
 * proves the claimer of h dead. The claimer stored its intent before its
 * claim CAS, which is a release; the consumer's acquire of the tail read
 * that CAS or a later one in its release sequence (every later claim is an
 * RMW of the tail), so the intent store happens-before the consumer's scan,
 * and the scan reads that intent or a later value of the entry (coherence).
 * A later value is written only (a) by the claimer after it committed (done,
 * or the intent of its next claim, both release stores after the commit's
 * release store, so the consumer then sees the commit when it re-reads the
 * ring), or (b) by another thread that took the entry over, which it does
 * only when the entry is free (its thread exited) or its process is dead.
 * So if the scan finds no live entry with that intent, the claimer has
 * committed (and the re-read sees it) or is dead; an entry whose owner is a
 * live process is always counted as live. What "dead" means: kill(pid, 0)
 * fails with ESRCH; or /proc/PID/stat is gone, shows another start time
 * (the pid was reused), or shows the process a zombie (Z or X) with no
 * thread left (a group leader that exited while other threads run is a
 * zombie too, with num_threads > 1: alive). Entries of the caller's own
 * process are alive. A thread that exits with a claim outstanding frees its
 * entry (the destructor), and its claim may then be reclaimed: it will
 * never commit it.
 *
 * The death of a process orders its stores before the consumer's later
 * loads: the kernel's exit path and the consumer's kill(2) or /proc read
 * that observed it meet in the kernel under its task-list locking (full
 * barriers on every architecture), after the dying threads' last user-mode
 * instruction. So a dead claimer's stores are all visible to the consumer,
 * in particular whether it got as far as writing its header.
 *
 * Limits:
 *  - pid namespaces: liveness is checked with the pids of the checker's
 *    namespace; processes in different pid namespaces (containers) sharing
 *    a ring are unsupported (an entry would name a pid the checker cannot
 *    see, and look dead).
 *  - Without a readable /proc, zombies and reused pids are not detected:
 *    a zombie producer then counts as alive until it is reaped.
 *  - One claim at a time per thread and ring: the intent names one
 *    position (the rings refuse a second claim with EBUSY).
 *  - The registry must be detached (conq__claims_detach) in each process
 *    before that process unmaps it while its threads may still exit
 *    (their destructors write into their entries).
 *
 * Cost on the producer's path: a call that finds the thread's entry (one
 * compare against the last registry used), and two release stores into the
 * thread's own padded entry per claim (intend, done), on a line no other
 * thread writes. The consumer reads the table only when it is stuck.
 */
#ifndef CONQ_IMPL_CLAIMS_H
#define CONQ_IMPL_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conq/impl/atomic.h"
#include "conq/impl/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One entry, alone on its CONQ_PAD block: its owner writes intent twice per
 * claim; a neighbour's owner must not share the line. */
typedef struct conq__claim_entry {
	uint64_t owner;	 /* 0: free; else pid << 32 | tid */
	uint64_t start;	 /* the owner process's start time (ticks) */
	uint64_t intent; /* 0, or a token (conq__claims_token) */
	CONQ__PAD_AFTER(pad, 3 * sizeof(uint64_t));
} conq__claim_entry;

/* The table's header; n entries follow it. */
typedef struct conq__claims {
	uint64_t magic; /* CONQ__CLAIMS_MAGIC */
	uint64_t n;	/* entries */
	CONQ__PAD_AFTER(pad, 2 * sizeof(uint64_t));
} conq__claims;

CONQ__STATIC_ASSERT(sizeof(conq__claim_entry) == CONQ_PAD,
		    "a claim entry is one padded block");
CONQ__STATIC_ASSERT(sizeof(conq__claims) % CONQ_PAD == 0,
		    "claim entries start a padded block");

#define CONQ__CLAIMS_MAGIC UINT64_C(0x636f6e71636c6d31) /* "conqclm1" */
/* Entries a registry may have. */
#define CONQ__CLAIMS_MAX 4096u

/* Bytes of a registry of n entries (1 <= n <= CONQ__CLAIMS_MAX); 0 with
 * errno = EINVAL otherwise. */
size_t conq__claims_memsize(unsigned n);

/* Build a registry of n entries, all free, in `bytes` >= memsize(n) bytes
 * of CONQ_PAD-aligned memory that no other thread uses yet. 0, or EINVAL. */
int conq__claims_init(conq__claims *reg, unsigned n);

/* True if reg looks like an initialised registry that fits in `bytes`
 * (a ring's attach checks this before trusting its offset). */
bool conq__claims_valid(const conq__claims *reg, size_t bytes);

static inline conq__claim_entry *conq__claims_entries(conq__claims *reg)
{
	/* Through uintptr_t: entries start CONQ_PAD-aligned (asserted). */
	return (conq__claim_entry *)((uintptr_t)reg + sizeof(conq__claims));
}

/*
 * The calling thread's entry in reg, taken on first use (cold: a CAS, and
 * liveness checks of the owners when no entry is free), then found in a
 * thread-local table (hot: a compare). NULL with errno = EUSERS when every
 * entry belongs to a live thread, ENOMEM when the thread-local table cannot
 * grow. Any thread.
 */
conq__claim_entry *conq__claims_enter(conq__claims *reg);

/* A position's token: nonzero, and a range of positions maps to a range of
 * tokens (modulo 2^64) whatever the index width, so that live() can take a
 * range. Positions are conq__idx_t (narrow in CONQ_INDEX_BITS test builds). */
#define CONQ__CLAIMS_SHIFT (65 - CONQ_INDEX_BITS)

static inline uint64_t conq__claims_token(conq__idx_t pos)
{
	return ((uint64_t)pos << CONQ__CLAIMS_SHIFT) | 1u;
}

/* The width, in tokens, of n consecutive positions. */
static inline uint64_t conq__claims_span(uint64_t n)
{
	return n << CONQ__CLAIMS_SHIFT;
}

/* Before the claim's CAS: "I am about to claim (then hold) this token". */
static inline void conq__claims_intend(conq__claim_entry *e, uint64_t token)
{
	/* [CL1] release: pairs with [CL2] (the checker's acquire of intent).
	 * The claim CAS after it is a release too and publishes it to a
	 * checker that read the tail; this release makes the *next* intent,
	 * stored after a commit, carry that commit to a checker that reads
	 * it (docs/memory-model.md). */
	conq__store_release(&e->intent, token);
}

/* After the commit or abort (or a claim that failed): "I hold nothing". */
static inline void conq__claims_done(conq__claim_entry *e)
{
	/* [CL1] release: pairs with [CL2]; orders the commit before it. */
	conq__store_release(&e->intent, (uint64_t)0);
}

/* The token this thread's entry holds (0: none). Its owner only. */
static inline uint64_t conq__claims_held(const conq__claim_entry *e)
{
	/* relaxed: our own last store. */
	return conq__load_relaxed(&e->intent);
}

/*
 * How many entries of reg hold an intent t with t - lo < span (modulo
 * 2^64) and belong to a live process (the rules above; entries of the
 * calling process count as alive); *first (if not NULL) gets the smallest
 * such t - lo, or span when there is none. Cold: a kill(2), and a read of
 * /proc/PID/stat, per entry in range whose pid is not ours. Any thread.
 */
unsigned conq__claims_live(conq__claims *reg, uint64_t lo, uint64_t span,
			   uint64_t *first);

/*
 * This process stops using reg: frees the entries of its threads (whatever
 * they hold) and forgets reg in every thread's table. Call it before
 * unmapping the registry, once no thread of this process claims on it. Any
 * thread.
 */
void conq__claims_detach(conq__claims *reg);

/* Whether the process `pid` whose start time was `start` is alive, by the
 * rules above (the test hook behind live()). */
bool conq__claims_process_alive(uint64_t pid, uint64_t start);

/* This process's start time (field 22 of /proc/PID/stat); 0 when /proc
 * cannot be read. */
uint64_t conq__claims_self_start(void);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_IMPL_CLAIMS_H */
