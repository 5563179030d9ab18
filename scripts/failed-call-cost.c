/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * failed-call-cost.c - what a failed strict call costs, single-threaded:
 * offer on a full and poll on an empty capacity-16 queue, 2 x 10^5 calls
 * each, ns per call (docs/benchmarks.md, "Waiting at the edge": the price of
 * the watch before the other side's counter is read). Not built by CMake:
 *
 *   cc -O2 -Iinclude scripts/failed-call-cost.c build/libconq.a -lpthread \
 *      -o /tmp/failed-call-cost && /tmp/failed-call-cost
 *
 * Build libconq (and this file) with -DCONQ__SPMC_CHASE_SPINS=K and
 * -DCONQ__MPMC_CHASE_SPINS=Ku (and _GAP=NSu) to see other watch lengths.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <conq/mpmc_array.h>
#include <conq/spmc_array.h>

#define CALLS 200000

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(void)
{
	conq_spmc_array *sf = conq_spmc_array_create(16);
	conq_mpmc_array *mf = conq_mpmc_array_create(16);
	conq_spmc_array *se = conq_spmc_array_create(16);
	conq_mpmc_array *me = conq_mpmc_array_create(16);
	if (!sf || !mf || !se || !me)
		return 1;
	void *x = (void *)(uintptr_t)1;
	while (conq_spmc_array_offer(sf, x))
		;
	while (conq_mpmc_array_offer(mf, x))
		;
	unsigned ok = 0;
	double t[8];
	t[0] = now_ns();
	for (int i = 0; i < CALLS; i++)
		ok += conq_spmc_array_offer(sf, x);
	t[1] = now_ns();
	for (int i = 0; i < CALLS; i++)
		ok += conq_spmc_array_relaxed_offer(sf, x);
	t[2] = now_ns();
	for (int i = 0; i < CALLS; i++)
		ok += conq_mpmc_array_offer(mf, x);
	t[3] = now_ns();
	for (int i = 0; i < CALLS; i++)
		ok += conq_mpmc_array_relaxed_offer(mf, x);
	t[4] = now_ns();
	for (int i = 0; i < CALLS; i++)
		ok += conq_spmc_array_poll(se) != NULL;
	t[5] = now_ns();
	for (int i = 0; i < CALLS; i++)
		ok += conq_mpmc_array_poll(me) != NULL;
	t[6] = now_ns();
	for (int i = 0; i < CALLS; i++)
		ok += conq_mpmc_array_relaxed_poll(me) != NULL;
	t[7] = now_ns();
	if (ok != 0) {
		fprintf(stderr, "a call that had to fail succeeded\n");
		return 1;
	}
	printf("ns per failed call: spmc offer %.1f, relaxed_offer %.1f; "
	       "mpmc offer %.1f, relaxed_offer %.1f; spmc poll %.1f; "
	       "mpmc poll %.1f, relaxed_poll %.1f\n",
	       (t[1] - t[0]) / CALLS, (t[2] - t[1]) / CALLS,
	       (t[3] - t[2]) / CALLS, (t[4] - t[3]) / CALLS,
	       (t[5] - t[4]) / CALLS, (t[6] - t[5]) / CALLS,
	       (t[7] - t[6]) / CALLS);
	conq_spmc_array_destroy(sf);
	conq_mpmc_array_destroy(mf);
	conq_spmc_array_destroy(se);
	conq_mpmc_array_destroy(me);
	return 0;
}
