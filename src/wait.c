/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/wait.c - the idle steps of conq/wait.h that make a system call:
 * YIELD's sched_yield(), SLEEP's back-off and PARK's sleep (where it has no
 * queue to park on).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <time.h>

#include "conq/wait.h"

static void conq__wait_sleep_ns(int64_t ns)
{
	struct timespec ts;
	ts.tv_sec = (time_t)(ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	/* A signal cuts the sleep short: the caller re-checks its exit
	 * condition sooner, which is what an interrupted wait is for. */
	nanosleep(&ts, NULL);
}

/* SLEEP's k-th sleep (k >= 0): min_ns << k, at most max_ns. */
static int64_t conq__wait_backoff_ns(const conq_wait *w, unsigned k)
{
	int64_t ns = w->min_ns;
	for (; k != 0 && ns < w->max_ns; k--) {
		if (ns > w->max_ns / 2)
			return w->max_ns;
		ns *= 2;
	}
	return ns < w->max_ns ? ns : w->max_ns;
}

unsigned conq__wait_idle_slow(const conq_wait *w, unsigned idle_count)
{
	int saved = errno;
	switch (w->kind) {
	case CONQ_WAIT_YIELD:
		sched_yield();
		break;
	case CONQ_WAIT_SLEEP: {
		unsigned spins = w->spins, yields = w->yields;
		if (idle_count < spins) {
			conq__cpu_relax();
		} else if (idle_count - spins < yields) {
			sched_yield();
		} else {
			unsigned k = idle_count - spins - yields;
			conq__wait_sleep_ns(conq__wait_backoff_ns(w, k));
		}
		break;
	}
	case CONQ_WAIT_PARK:
		conq__wait_sleep_ns(w->park_ns);
		break;
	case CONQ_WAIT_PAUSE:
		conq__cpu_relax();
		break;
	case CONQ_WAIT_SPIN:
	default:
		break;
	}
	errno = saved;
	return idle_count + (unsigned)(idle_count != UINT_MAX);
}
