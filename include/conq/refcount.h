/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/refcount.h - a reference count for objects that several threads hold,
 * such as the elements passed through conq's queues: the last holder to let
 * go frees the object. Saturating, as the Linux kernel's refcount_t: a count
 * that goes wrong (overflow, a retain from 0, a release below 0) is stuck at
 * CONQ_REFCOUNT_SATURATED and reported, so that the bug leaks the object
 * instead of freeing it under another thread's feet.
 *
 *   Thread A                              Thread B
 *   m = malloc(sizeof *m); fill(m);
 *   conq_refcount_init(&m->ref, 2);
 *   conq_spsc_array_offer(q, m);          m = conq_spsc_array_poll(q);
 *   use(m);                               use(m);
 *   if (conq_refcount_release(&m->ref))   if (conq_refcount_release(&m->ref))
 *           free(m);                              free(m);
 *
 * Exactly one of the two frees m, and it does so after everything both did
 * with it.
 *
 * Who may call what, and its progress (the hook, called only when a count
 * goes wrong, runs the caller's code: no guarantee then):
 *
 *   function     caller                                        progress
 *   init         the object's owner, while no other thread     wait-free
 *                can reach the object (before publishing it;
 *                or again once a release returned true)
 *   retain       a thread that holds a reference (the new      wait-free
 *                one is its to hand on)
 *   release      a holder, once per reference it holds          wait-free
 *   try_retain   any thread that can still safely read the     lock-free
 *                object's memory while the count may reach 0
 *                (under a lock, in an RCU read-side section,
 *                behind a hazard pointer, ...)
 *   get          any thread                                    wait-free
 *   set_hook     any thread                                    wait-free
 *
 * (Wait-free: one atomic read-modify-write, which is one instruction on
 * x86-64 and on AArch64 with LSE atomics, and an LL/SC loop that only the
 * hardware retries on AArch64 without them.)
 *
 * Ordering, and why each access is as weak as it is (docs/memory-model.md,
 * "Reference count", RC1..RC5):
 *
 * [RC1] init is a relaxed store. A count being initialised belongs to an
 * object that no other thread can reach yet. The first time another thread
 * touches the count is after it has received the object's address, and the
 * edge that carried the address - a conq queue's offer and poll (a release
 * store of the slot, [S1], read by an acquire load, [S2]), a mutex,
 * pthread_create, any release store read by an acquire load - orders every
 * write before it, the count's initial value and the payload alike, before
 * everything the receiver does after it. A stronger init (a release or
 * seq_cst store: an xchg or a fence on x86-64, an stlr on AArch64) would
 * order nothing that the publication does not order already; and without
 * such a publication it cannot help: a release store orders the writes
 * *before* it; it cannot make a thread that found the address by a data
 * race see the store itself. That is Netty #14649: AbstractReferenceCounted
 * set its count with a volatile store in the constructor, and an object
 * without final fields handed to another thread by a racy publication may
 * show that thread the count's default 0 on AArch64 (a volatile field is not
 * a final one: no safe initialisation), where x86-64, which makes stores
 * visible in program order, never does. So the object must be published
 * with release/acquire (every conq queue does, and so do locks and thread
 * creation); then a relaxed init is exactly right, and without that, nothing
 * in the count could make it right.
 *
 * retain is one relaxed fetch-and-add. The caller holds a reference, so the
 * object cannot be freed under it, and the new reference orders nothing by
 * itself: whoever receives it receives it through a publication of its own,
 * as above. Atomicity alone keeps the count exact.
 *
 * [RC2] release is one fetch-and-subtract with release order, and the last
 * holder (the one whose decrement took the count from 1 to 0) then does
 * [RC3], an acquire load of the count, before it returns true. Every
 * holder's accesses to the object must happen before the free, and they do:
 * let D be any earlier holder's decrement (a release) and L the last
 * holder's. Every modification of the count between D and L in its
 * modification order is a read-modify-write (retain, try_retain, release:
 * the only plain stores are init, before any of them, and the saturating
 * store of a count that is already wrong), so the value L wrote is in D's
 * release sequence (C11 5.1.2.4; C++ [intro.races]). The acquire load reads
 * exactly the value L wrote, 0: coherence forbids an earlier value (L is
 * sequenced before the load), and nothing may change a count at 0 (a retain
 * from 0 is a reported bug, try_retain never does one). An acquire load that
 * reads a value from the release sequence of a release D synchronizes with
 * D. So every holder's release synchronizes with the last holder's load, and
 * whatever each holder did before it released happens before the last
 * holder's return, hence before its free. The kernel writes that acquire as
 * smp_acquire__after_ctrl_dep(), a fence; conq has no fences
 * (ThreadSanitizer cannot see them: conq/impl/atomic.h), and the load costs
 * the same: a plain mov on x86-64, one ldar on AArch64, paid by the last
 * holder alone. The other releases pay a release RMW only (lock xadd on
 * x86-64 as for any RMW; ldaddl or ldxr/stlxr on AArch64): no acquire on
 * the common path, as an acq_rel decrement would have.
 *
 * try_retain is a relaxed load and a relaxed compare-and-swap loop from that
 * value, which gives up at 0. Atomicity is what "never from 0" needs: the
 * CAS succeeds only if the count held the non-zero value it expects
 * immediately before it in the modification order, and once the last
 * release has written 0, every later CAS finds 0 (or what follows it), the
 * loop reloads and returns false. It orders nothing: the caller found the
 * object through a structure that keeps its memory valid (a lock, RCU, a
 * hazard pointer), whose own edges order the object's contents. Memory
 * that can be freed and reused for another object of the same type while
 * the caller looks (the kernel's SLAB_TYPESAFE_BY_RCU) needs an acquire
 * after a successful try_retain, which this function does not give.
 *
 * get is a relaxed load: a value that was the count at some moment during
 * the call, for statistics and tests. It orders nothing: a holder that reads
 * 1 is the only holder at that moment, but the others' accesses before
 * their releases are not ordered before its next ones by that read.
 *
 * Saturation, as Linux's refcount_t (include/linux/refcount.h): the counts
 * in use are 1..CONQ_REFCOUNT_MAX. A retain of a count at 0 (the object may
 * already be freed: a use after free), a retain of a count at
 * CONQ_REFCOUNT_MAX (overflow), a release of a count at 0 (underflow), an
 * init with n <= 0, and any use of a count that is negative (saturated)
 * store CONQ_REFCOUNT_SATURATED, INT32_MIN / 2, and report the event to the
 * hook. A negative count is never freed (release returns false, try_retain
 * true): the bug leaks the object instead of freeing it twice or early.
 * INT32_MIN / 2 is 2^30 operations from both ends of the negative range, so
 * operations racing with the saturating store (whose effect it overwrites)
 * cannot bring the count back to the positive range. Between the overflowing
 * fetch-and-add and its saturating store the count reads INT32_MIN for an
 * instant; an operation in that instant also finds it negative and saturates
 * it in turn. The saturating store is relaxed: it orders nothing, as a count
 * that went wrong orders nothing any more. On a retain from 0 it writes to
 * memory that may already be freed: the report is a diagnosis, as the
 * kernel's.
 *
 * The hook (set_hook) is process-wide. The default prints one line to
 * stderr the first time a count goes wrong (as the kernel's WARN_ONCE) and,
 * when the environment variable CONQ_REFCOUNT_ABORT is "1", aborts at every
 * report. A hook of the caller's runs on the thread whose call went wrong,
 * after the count was saturated; it may return (the call then returns as
 * described above) or not.
 *
 * The count is a plain int32_t field accessed only through conq's atomic
 * macros (conq/impl/atomic.h), so that the header compiles as C and as C++;
 * touch it only through these functions.
 */
#ifndef CONQ_REFCOUNT_H
#define CONQ_REFCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "conq/impl/atomic.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_refcount {
	int32_t n; /* the count: 1.. held, 0 released, < 0 saturated */
} conq_refcount;

/* Where a count that went wrong stays (negative: never freed). */
#define CONQ_REFCOUNT_SATURATED (INT32_MIN / 2)
/* The largest count; one more retain saturates. */
#define CONQ_REFCOUNT_MAX INT32_MAX

/* What went wrong, as the hook is told. */
enum conq_refcount_event {
	CONQ_REFCOUNT_ADD_ON_ZERO, /* retain of a count at 0: use after free */
	CONQ_REFCOUNT_OVERFLOW,	   /* retain of a count at CONQ_REFCOUNT_MAX */
	CONQ_REFCOUNT_UNDERFLOW,   /* release of a count at 0 */
	CONQ_REFCOUNT_SATURATED_USE, /* retain/release/try_retain of a
					saturated (negative) count */
	CONQ_REFCOUNT_BAD_INIT	     /* init with n <= 0 */
};

/* Called with the count (already saturated) and the event. */
typedef void (*conq_refcount_hook)(const conq_refcount *r,
				   enum conq_refcount_event ev);

/* Install `h` as the process-wide hook (NULL: the default, see above).
 * Returns the previous hook, NULL if it was the default, so that
 * set_hook(previous) restores it. Any thread. */
conq_refcount_hook conq_refcount_set_hook(conq_refcount_hook h);

/* The cold path of every function below: store CONQ_REFCOUNT_SATURATED
 * (relaxed) and call the hook. Out of line (src/refcount.c). */
void conq__refcount_saturate(conq_refcount *r, enum conq_refcount_event ev);

/* Set the count to n >= 1 (n <= 0: saturated and reported, BAD_INIT). A
 * relaxed store, [RC1]: publish the object with release/acquire (a conq
 * queue, a lock) and the other threads see n. Only while no other thread
 * can reach the count. */
static inline void conq_refcount_init(conq_refcount *r, int32_t n)
{
	if (CONQ__UNLIKELY(n <= 0)) {
		conq__refcount_saturate(r, CONQ_REFCOUNT_BAD_INIT);
		return;
	}
	/* [RC1] relaxed: the object's publication (release/acquire, e.g.
	 * [S1]/[S2]) orders it before any other thread's access. */
	conq__store_relaxed(&r->n, n);
}

/* Take one more reference; the caller holds one. One relaxed
 * fetch-and-add. A count at 0, at CONQ_REFCOUNT_MAX or saturated is
 * saturated and reported (ADD_ON_ZERO, OVERFLOW, SATURATED_USE). */
static inline void conq_refcount_retain(conq_refcount *r)
{
	/* relaxed: the caller's reference keeps the object alive; the new
	 * reference is published by whoever hands it on. */
	int32_t old = conq__faa_relaxed(&r->n, 1);
	/* old in 1 .. MAX - 1 is the fast path: one unsigned compare. */
	if (CONQ__UNLIKELY((uint32_t)old - 1u >=
			   (uint32_t)CONQ_REFCOUNT_MAX - 1u))
		conq__refcount_saturate(r, old == 0 ? CONQ_REFCOUNT_ADD_ON_ZERO
					   : old > 0
					       ? CONQ_REFCOUNT_OVERFLOW
					       : CONQ_REFCOUNT_SATURATED_USE);
}

/* Take a reference unless the count is 0: true if taken. Never from 0. A
 * saturated count: true (reported, SATURATED_USE), and it stays saturated;
 * at CONQ_REFCOUNT_MAX: true, saturated (OVERFLOW). Relaxed: orders nothing
 * (see above). Lock-free: the CAS fails only when another thread changed
 * the count. */
static inline bool conq_refcount_try_retain(conq_refcount *r)
{
	/* relaxed, as the CAS below: atomicity alone keeps 0 final. */
	int32_t old = conq__load_relaxed(&r->n);
	do {
		if (old == 0)
			return false;
		if (CONQ__UNLIKELY((uint32_t)old - 1u >=
				   (uint32_t)CONQ_REFCOUNT_MAX - 1u)) {
			conq__refcount_saturate(
			    r, old > 0 ? CONQ_REFCOUNT_OVERFLOW
				       : CONQ_REFCOUNT_SATURATED_USE);
			return true;
		}
	} while (!conq__cas_weak_relaxed(&r->n, &old, old + 1));
	return true;
}

/* Give up one reference: true for the last one (the count reached 0), whose
 * caller may then free the object: everything every holder did before its
 * release happens before that return. A count at 0 or saturated: false,
 * saturated and reported (UNDERFLOW, SATURATED_USE). One release
 * fetch-and-subtract, and for the last holder one acquire load. */
static inline bool conq_refcount_release(conq_refcount *r)
{
	/* [RC2] release: pairs with [RC3], the last holder's acquire load,
	 * which reads a value in this decrement's release sequence. */
	int32_t old = conq__faa_release(&r->n, -1);
	if (old == 1) {
		/* [RC3] acquire: pairs with [RC2] of every earlier release
		 * (it reads the 0 our own decrement wrote, the end of each
		 * of their release sequences): their holders' accesses
		 * happen before our caller's free. (Left out in the mutant
		 * test build CONQ_TEST_MUTANT_REFCOUNT_NO_ACQUIRE, which
		 * ThreadSanitizer must catch: tests/CMakeLists.txt.) */
#ifndef CONQ_TEST_MUTANT_REFCOUNT_NO_ACQUIRE
		(void)conq__load_acquire(&r->n);
#endif
		return true;
	}
	if (CONQ__UNLIKELY(old <= 0))
		conq__refcount_saturate(r, old == 0
					       ? CONQ_REFCOUNT_UNDERFLOW
					       : CONQ_REFCOUNT_SATURATED_USE);
	return false;
}

/* The count at some moment during the call (negative: saturated). A
 * relaxed load: orders nothing. Any thread. */
static inline int32_t conq_refcount_get(const conq_refcount *r)
{
	/* relaxed: a snapshot (see above). */
	return conq__load_relaxed(&r->n);
}

#ifdef __cplusplus
}
#endif

#endif /* CONQ_REFCOUNT_H */
