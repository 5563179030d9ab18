/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The floors: bounded power-of-two rings of void* under one pthread mutex
 * (the default, non-adaptive type: glibc's futex lock, which sleeps in the
 * kernel on contention). Any number of producers and consumers. Not peers,
 * reference points: a lock-free queue that falls below them has no reason
 * to be lock-free.
 *
 *   mutex:ring     offer/poll take the lock, and fail at once when full or
 *                  empty (the harness spins on failure, as for every queue)
 *   mutex:condvar  the blocking queue a C programmer writes first: the same
 *                  ring with two condition variables; a poll on an empty
 *                  ring (an offer on a full one) sleeps on not_empty
 *                  (not_full) for up to MUTEX_CV_WAIT_NS before it fails,
 *                  and a side that changes the state signals the other only
 *                  when someone sleeps (a waiter count), so a busy queue
 *                  makes no futex wake-up calls; its put/take_until
 *                  (QueueHandoff) wait on the same condvars without a
 *                  time limit (take_until: until its deadline)
 *
 * Layout: the mutex and both indices on one CB_PAD block (every operation
 * takes the lock anyway: splitting them would only add a line to move), the
 * read-only size on its own, then the slots.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "loops.h"

typedef struct mutex_ring {
	CB_ALIGNAS(CB_PAD) pthread_mutex_t mu;
	uint64_t head; /* next to poll, under mu */
	uint64_t tail; /* next to offer, under mu */
	/* mutex:condvar only: threads sleeping on each, under mu */
	pthread_cond_t not_empty, not_full;
	unsigned wait_empty, wait_full;
	bool cv;			 /* the condvars were initialised */
	CB_ALIGNAS(CB_PAD) uint64_t cap; /* read-only: a power of two */
	uint64_t mask;
	void **slots;
} mutex_ring;

static void *mutex_create_cv(size_t capacity, size_t *usable, bool cv)
{
	size_t cap = cb_pow2_ceil(capacity == 0 ? 1 : capacity);
	if (cap == 0 || cap > (size_t)1 << 40) {
		errno = EINVAL;
		return NULL;
	}
	mutex_ring *r = (mutex_ring *)cb_alloc_aligned(sizeof *r);
	if (r == NULL)
		return NULL;
	r->slots = (void **)cb_alloc_aligned(cap * sizeof(void *));
	if (r->slots == NULL) {
		cb_free_aligned(r);
		return NULL;
	}
	int rc = pthread_mutex_init(&r->mu, NULL);
	if (rc != 0) {
		cb_free_aligned(r->slots);
		cb_free_aligned(r);
		errno = rc;
		return NULL;
	}
	if (cv) {
		/* Timed waits on CLOCK_MONOTONIC (immune to clock steps). */
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		rc = pthread_cond_init(&r->not_empty, &ca);
		if (rc == 0) {
			rc = pthread_cond_init(&r->not_full, &ca);
			if (rc != 0)
				pthread_cond_destroy(&r->not_empty);
		}
		pthread_condattr_destroy(&ca);
		if (rc != 0) {
			pthread_mutex_destroy(&r->mu);
			cb_free_aligned(r->slots);
			cb_free_aligned(r);
			errno = rc;
			return NULL;
		}
		r->cv = true;
	}
	r->cap = cap;
	r->mask = cap - 1;
	*usable = cap;
	return r;
}

static void *mutex_create(size_t capacity, size_t *usable)
{
	return mutex_create_cv(capacity, usable, false);
}

static void *condvar_create(size_t capacity, size_t *usable)
{
	return mutex_create_cv(capacity, usable, true);
}

static void mutex_destroy(void *q)
{
	mutex_ring *r = (mutex_ring *)q;
	if (r == NULL)
		return;
	if (r->cv) {
		pthread_cond_destroy(&r->not_empty);
		pthread_cond_destroy(&r->not_full);
	}
	pthread_mutex_destroy(&r->mu);
	cb_free_aligned(r->slots);
	cb_free_aligned(r);
}

static inline bool mutex_offer(mutex_ring *r, void *e)
{
	bool ok = false;
	pthread_mutex_lock(&r->mu);
	if (r->tail - r->head < r->cap) {
		r->slots[r->tail & r->mask] = e;
		r->tail++;
		ok = true;
	}
	pthread_mutex_unlock(&r->mu);
	return ok;
}

static inline void *mutex_poll(mutex_ring *r)
{
	void *e = NULL;
	pthread_mutex_lock(&r->mu);
	if (r->tail != r->head) {
		e = r->slots[r->head & r->mask];
		r->head++;
	}
	pthread_mutex_unlock(&r->mu);
	return e;
}

static bool mutex_offer_g(void *q, void *e)
{
	return mutex_offer((mutex_ring *)q, e);
}

static void *mutex_poll_g(void *q)
{
	return mutex_poll((mutex_ring *)q);
}

/* mutex:condvar: how long a poll (offer) sleeps on an empty (full) ring
 * before it fails. Long enough for a partner's operation, short enough that
 * a stop flag is seen promptly. */
#define MUTEX_CV_WAIT_NS 100000L

static void cv_deadline(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_nsec += MUTEX_CV_WAIT_NS;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_nsec -= 1000000000L;
		ts->tv_sec++;
	}
}

static inline bool condvar_offer(mutex_ring *r, void *e)
{
	bool ok = false;
	pthread_mutex_lock(&r->mu);
	if (r->tail - r->head == r->cap) {
		struct timespec dl;
		cv_deadline(&dl);
		r->wait_full++;
		while (r->tail - r->head == r->cap &&
		       pthread_cond_timedwait(&r->not_full, &r->mu, &dl) == 0)
			;
		r->wait_full--;
	}
	if (r->tail - r->head < r->cap) {
		r->slots[r->tail & r->mask] = e;
		r->tail++;
		ok = true;
		if (r->wait_empty > 0)
			pthread_cond_signal(&r->not_empty);
	}
	pthread_mutex_unlock(&r->mu);
	return ok;
}

/* Take the oldest element, sleeping on not_empty until one comes or the
 * absolute CLOCK_MONOTONIC deadline *dl passes (dl NULL: MUTEX_CV_WAIT_NS
 * from when it must sleep, read only then): the timed poll and
 * take_until share it. */
static inline void *condvar_poll_until(mutex_ring *r, const struct timespec *dl)
{
	void *e = NULL;
	pthread_mutex_lock(&r->mu);
	if (r->tail == r->head) {
		struct timespec soon;
		if (dl == NULL) {
			cv_deadline(&soon);
			dl = &soon;
		}
		r->wait_empty++;
		while (r->tail == r->head &&
		       pthread_cond_timedwait(&r->not_empty, &r->mu, dl) == 0)
			;
		r->wait_empty--;
	}
	if (r->tail != r->head) {
		e = r->slots[r->head & r->mask];
		r->head++;
		if (r->wait_full > 0)
			pthread_cond_signal(&r->not_full);
	}
	pthread_mutex_unlock(&r->mu);
	return e;
}

static inline void *condvar_poll(mutex_ring *r)
{
	return condvar_poll_until(r, NULL);
}

static bool condvar_offer_g(void *q, void *e)
{
	return condvar_offer((mutex_ring *)q, e);
}

static void *condvar_poll_g(void *q)
{
	return condvar_poll((mutex_ring *)q);
}

/* The blocking ends, for QueueHandoff: put sleeps on not_full for as long
 * as the ring is full; take_until sleeps on not_empty until an element
 * comes or the deadline passes. The signals are condvar_offer's and
 * condvar_poll's (only when someone sleeps). */
static bool condvar_put(void *q, void *e)
{
	mutex_ring *r = (mutex_ring *)q;
	pthread_mutex_lock(&r->mu);
	r->wait_full++;
	while (r->tail - r->head == r->cap)
		pthread_cond_wait(&r->not_full, &r->mu);
	r->wait_full--;
	r->slots[r->tail & r->mask] = e;
	r->tail++;
	if (r->wait_empty > 0)
		pthread_cond_signal(&r->not_empty);
	pthread_mutex_unlock(&r->mu);
	return true;
}

static void *condvar_take_until(void *q, int64_t deadline)
{
	struct timespec dl = {
	    .tv_sec = (time_t)(deadline / 1000000000),
	    .tv_nsec = (long)(deadline % 1000000000),
	};
	return condvar_poll_until((mutex_ring *)q, &dl);
}

CB_DEFINE_LOOPS(mutex_ring, mutex_ring, mutex_offer, mutex_poll)
CB_DEFINE_LOOPS(mutex_condvar, mutex_ring, condvar_offer, condvar_poll)

extern const cb_adapter cb_adapter_mutex_ring;
const cb_adapter cb_adapter_mutex_ring = {
    .name = "mutex:ring",
    .family = "mutex",
    .desc = "not lock-free: power-of-two ring under one pthread mutex",
    .contract = CB_MPMC,
    .kind = CB_KIND_BASELINE,
    .create = mutex_create,
    .destroy = mutex_destroy,
    .offer = mutex_offer_g,
    .poll = mutex_poll_g,
    .flush = NULL,
    .loops = &mutex_ring_loops,
};

extern const cb_adapter cb_adapter_mutex_condvar;
const cb_adapter cb_adapter_mutex_condvar = {
    .name = "mutex:condvar",
    .family = "mutex",
    .desc = "not lock-free: the same ring with not_empty/not_full "
	    "condvars; a poll on empty (offer on full) sleeps up to 100 us",
    .contract = CB_MPMC,
    .kind = CB_KIND_BASELINE,
    .create = condvar_create,
    .destroy = mutex_destroy,
    .offer = condvar_offer_g,
    .poll = condvar_poll_g,
    .flush = NULL,
    .loops = &mutex_condvar_loops,
    .put = condvar_put,
    .take_until = condvar_take_until,
};
