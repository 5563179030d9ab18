/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/eventcount.c - the eventcount's slow paths: the membarrier probe,
 * prepare/cancel/wait, and the wake (conq/eventcount.h).
 */
#define _GNU_SOURCE /* syscall() */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "conq/eventcount.h"
#include "conq/impl/blocking.h"
#include "conq/impl/testing.h"
#include "internal.h"

/* membarrier(2)'s commands, from <linux/membarrier.h> (not every libc's
 * kernel headers have it). */
#define CONQ__MB_QUERY			    0
#define CONQ__MB_PRIVATE_EXPEDITED	    (1 << 3)
#define CONQ__MB_REGISTER_PRIVATE_EXPEDITED (1 << 4)

/* 1: membarrier works here, so notify may be free; 0: every eventcount is
 * initialised in RMW mode; -1: not probed yet. */
static int conq__ec_mb = -1;
static pthread_once_t conq__ec_once = PTHREAD_ONCE_INIT;
static int conq__ec_force_rmw; /* conq__test_eventcount_force_rmw */
static __thread unsigned long conq__ec_sleeps; /* futex waits, this thread */

unsigned long conq__test_eventcount_sleeps(void)
{
	return conq__ec_sleeps;
}

static long conq__membarrier(int cmd)
{
#ifdef SYS_membarrier
	return syscall(SYS_membarrier, cmd, 0, 0);
#else
	(void)cmd;
	errno = ENOSYS;
	return -1;
#endif
}

static void conq__ec_probe(void)
{
	int saved = errno;
	long mask = conq__membarrier(CONQ__MB_QUERY);
	int ok = mask >= 0 && (mask & CONQ__MB_PRIVATE_EXPEDITED) &&
		 conq__membarrier(CONQ__MB_REGISTER_PRIVATE_EXPEDITED) == 0 &&
		 conq__membarrier(CONQ__MB_PRIVATE_EXPEDITED) == 0;
	/* CONQ_EVENTCOUNT_RMW=1 in the environment: run every eventcount in
	 * the mode without membarrier (the tests run both modes). */
	const char *env = getenv("CONQ_EVENTCOUNT_RMW");
	if (env != NULL && env[0] == '1')
		ok = 0;
	conq__store_relaxed(&conq__ec_mb, ok);
	errno = saved;
}

static int conq__ec_membarrier_ok(void)
{
	pthread_once(&conq__ec_once, conq__ec_probe);
	return conq__load_relaxed(&conq__ec_mb) == 1 &&
	       !conq__load_relaxed(&conq__ec_force_rmw);
}

/* The asymmetric fence's heavy half for other conq protocols (the pool's
 * wake token, src/pool.c): 1 if membarrier works here (the light side may
 * then be a compiler barrier and a relaxed load), 0 if the light side must
 * pay a read-modify-write (CONQ_EVENTCOUNT_RMW=1 forces 0, as for the
 * eventcounts). */
int conq__heavy_fence_available(void)
{
	return conq__ec_membarrier_ok();
}

/* Run the heavy half: every running thread of this process executes a full
 * fence. 0, or -1 when it could not (a child after fork that cannot
 * register): the caller then bounds its sleeps, as conq_eventcount_wait
 * does. */
int conq__heavy_fence(void)
{
	if (conq__membarrier(CONQ__MB_PRIVATE_EXPEDITED) == 0)
		return 0;
	int saved = errno, rc = 0;
	if (conq__membarrier(CONQ__MB_REGISTER_PRIVATE_EXPEDITED) != 0 ||
	    conq__membarrier(CONQ__MB_PRIVATE_EXPEDITED) != 0)
		rc = -1;
	errno = saved;
	return rc;
}

void conq__test_eventcount_force_rmw(int on)
{
	conq__store_relaxed(&conq__ec_force_rmw, on);
}

int conq_eventcount_init(conq_eventcount *ec, unsigned flags)
{
	if (flags & ~CONQ_EVENTCOUNT_SHARED)
		return EINVAL;
	uint64_t w = 0;
	if (flags & CONQ_EVENTCOUNT_SHARED)
		w |= CONQ__EC_SHARED | CONQ__EC_RMW;
	else if (!conq__ec_membarrier_ok())
		w |= CONQ__EC_RMW;
	/* Plain store: nobody else may see ec yet (the queue or the caller
	 * publishes it, e.g. by creating the threads that use it). */
	conq__store_relaxed(&ec->word, w);
	return 0;
}

bool conq_eventcount_is_free(const conq_eventcount *ec)
{
	return (conq__load_relaxed(&ec->word) & CONQ__EC_RMW) == 0;
}

int64_t conq_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The futex word: the epoch, the word's high half. */
static uint32_t *conq__ec_futex(conq_eventcount *ec)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (uint32_t *)(void *)&ec->word;
#else
	return (uint32_t *)(void *)&ec->word + 1;
#endif
}

uint32_t conq_eventcount_prepare(conq_eventcount *ec)
{
	/* [E1] seq_cst: counts us in. Pairs with [E2] (notify's load of the
	 * word) through the heavy fence below when the word is free, and
	 * with [E3] (the notifier's RMW) in RMW mode: either the notifier's
	 * load or RMW sees our count, or our re-check of the condition, after
	 * this, sees what the notifier stored before [E2]/[E3]. */
	uint64_t w = conq__faa_seq_cst(&ec->word, 1);
	if ((w & CONQ__EC_RMW) == 0) {
		/* The heavy half of the asymmetric fence: every thread of this
		 * process that runs now executes a full fence, and those that
		 * do not will at their next switch in. A notifier whose store
		 * came before its fence is visible to our re-check; one whose
		 * store came after it loads the word after our count. */
		if (conq__membarrier(CONQ__MB_PRIVATE_EXPEDITED) != 0) {
			/* Not registered (a child after fork: the
			 * registration belongs to the parent's memory). */
			int saved = errno;
			if (conq__membarrier(
				    CONQ__MB_REGISTER_PRIVATE_EXPEDITED) != 0 ||
			    conq__membarrier(CONQ__MB_PRIVATE_EXPEDITED) !=
				    0) {
				/* No heavy fence: conq_eventcount_wait
				 * sleeps at most 1 ms at a time then, so a
				 * missed wake-up is late, never lost. */
				conq__store_relaxed(&conq__ec_mb, 2);
			}
			errno = saved;
		}
	}
	return (uint32_t)(w >> 32);
}

void conq_eventcount_cancel(conq_eventcount *ec)
{
	/* relaxed: counting out orders nothing; a notifier that still sees
	 * our count makes a spurious wake. */
	conq__faa_relaxed(&ec->word, (uint64_t)-1);
}

int conq_eventcount_wait(conq_eventcount *ec, uint32_t key, int64_t deadline)
{
	int saved = errno, rc = 0;
	uint32_t *fw = conq__ec_futex(ec);
	uint64_t w = conq__load_relaxed(&ec->word);
	int op = FUTEX_WAIT_BITSET;
	if ((w & CONQ__EC_SHARED) == 0)
		op |= FUTEX_PRIVATE_FLAG;
	int64_t until = deadline;
	if (conq__load_relaxed(&conq__ec_mb) == 2) {
		int64_t soon = conq_now_ns() + 1000000;
		if (soon < until)
			until = soon;
	}
	if ((uint32_t)(w >> 32) == key) {
		struct timespec ts, *tsp = NULL;
		if (until != CONQ_NO_DEADLINE) {
			if (until < 0)
				until = 0;
			ts.tv_sec = (time_t)(until / 1000000000);
			ts.tv_nsec = (long)(until % 1000000000);
			tsp = &ts;
		}
		/* FUTEX_WAIT_BITSET: an absolute CLOCK_MONOTONIC timeout.
		 * Sleeps only while the epoch still equals key (the kernel
		 * checks under its lock, against the notifier's wake). */
		conq__ec_sleeps++;
		long r = syscall(SYS_futex, fw, op, key, tsp, NULL,
				 FUTEX_BITSET_MATCH_ANY);
		if (r != 0 && errno == ETIMEDOUT && until == deadline)
			rc = ETIMEDOUT;
	}
	conq_eventcount_cancel(ec);
	if (rc == 0 && deadline != CONQ_NO_DEADLINE &&
	    conq_now_ns() >= deadline)
		rc = ETIMEDOUT;
	errno = saved;
	return rc;
}

void conq__eventcount_wake(conq_eventcount *ec, uint64_t w, int all)
{
	if (w & CONQ__EC_RMW) {
		/* [E3] acq_rel: in RMW mode the notifier's read of the word is
		 * a read-modify-write, later or earlier than [E1] in the
		 * word's modification order: later, it sees the count; earlier,
		 * [E1] reads from it and our stores before it happen-before the
		 * waiter's re-check. */
		w = conq__faa_acq_rel(&ec->word, 0);
		if ((w & CONQ__EC_WAITERS) == 0)
			return;
	}
	/* relaxed: moving the epoch on orders nothing but itself; the kernel
	 * reads it under the futex bucket's lock, so a waiter either sees
	 * the new epoch and does not sleep or is asleep and is woken. */
	conq__faa_relaxed(&ec->word, CONQ__EC_EPOCH);
	int op = FUTEX_WAKE;
	if ((w & CONQ__EC_SHARED) == 0)
		op |= FUTEX_PRIVATE_FLAG;
	int saved = errno;
	syscall(SYS_futex, conq__ec_futex(ec), op, all ? INT_MAX : 1, NULL,
		NULL, 0);
	errno = saved;
}

/* ------------------------------------------------ put and take (blocking.h) */

unsigned conq__block_spin_ns = CONQ__BLOCK_SPIN_NS;

void conq__test_block_spin(unsigned ns)
{
	conq__store_relaxed(&conq__block_spin_ns, ns);
}

/* Looks before parking: one per 128 ns of conq__block_spin_ns. */
static unsigned conq__ec_looks(void)
{
	return conq__load_relaxed(&conq__block_spin_ns) / 128;
}

/* A deadline already passed (one attempt was made inline). */
static int conq__ec_past(int64_t deadline)
{
	return deadline != CONQ_NO_DEADLINE && conq_now_ns() >= deadline;
}

void *conq__take_wait(void *q, void *(*poll)(void *), conq_eventcount *ec,
		      int64_t deadline)
{
	int saved = errno;
	void *e;
	if (conq__ec_past(deadline))
		goto timeout;
	/* Watch first: a hand-over within a microsecond costs no syscall. */
	for (unsigned i = 0, n = conq__ec_looks(); i < n; i++) {
		conq__watch_gap(128);
		if ((e = poll(q)) != NULL)
			goto got;
	}
	for (;;) {
		uint32_t key = conq_eventcount_prepare(ec);
		/* The re-check after [E1]: see conq/eventcount.h. */
		if ((e = poll(q)) != NULL) {
			conq_eventcount_cancel(ec);
			goto got;
		}
		int rc = conq_eventcount_wait(ec, key, deadline);
		if ((e = poll(q)) != NULL)
			goto got;
		if (rc == ETIMEDOUT)
			goto timeout;
	}
got:
	errno = saved;
	return e;
timeout:
	errno = ETIMEDOUT;
	return NULL;
}

/* One offer; -1: failed for good (errno says why), 0: full, 1: done. */
static int conq__put_try(void *q, bool (*offer)(void *, void *), void *e)
{
	errno = 0;
	if (offer(q, e))
		return 1;
	return errno == ENOMEM || errno == EINVAL ? -1 : 0;
}

bool conq__put_wait(void *q, bool (*offer)(void *, void *), void *e,
		    conq_eventcount *ec, int64_t deadline)
{
	int saved = errno, r;
	if (e == NULL) {
		errno = EINVAL;
		return false;
	}
	if ((r = conq__put_try(q, offer, e)) != 0)
		goto done;
	if (conq__ec_past(deadline))
		goto timeout;
	for (unsigned i = 0, n = conq__ec_looks(); i < n; i++) {
		conq__watch_gap(128);
		if ((r = conq__put_try(q, offer, e)) != 0)
			goto done;
	}
	for (;;) {
		uint32_t key = conq_eventcount_prepare(ec);
		if ((r = conq__put_try(q, offer, e)) != 0) {
			conq_eventcount_cancel(ec);
			goto done;
		}
		int rc = conq_eventcount_wait(ec, key, deadline);
		if ((r = conq__put_try(q, offer, e)) != 0)
			goto done;
		if (rc == ETIMEDOUT)
			goto timeout;
	}
done:
	if (r > 0) {
		errno = saved;
		return true;
	}
	return false; /* errno from the offer: ENOMEM */
timeout:
	errno = ETIMEDOUT;
	return false;
}
