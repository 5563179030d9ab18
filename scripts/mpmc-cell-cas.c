/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mpmc-cell-cas.c - what one CAS on the cell costs a bounded MPMC queue: a
 * minimal Vyukov/JCTools queue (one CAS a side on its own counter, the cell
 * written with plain release stores) against the same queue with the
 * producer also CASing its cell before writing it (what an FAA-claiming
 * queue such as SCQ, or conq_mpmc_array until 2026-12-02, must do, since a
 * consumer may close the cell), and conq_mpmc_array itself; P producers and
 * C consumers, the variants alternating run by run in one process, 200 ms
 * a run, 8 runs each; prints each variant's polls per us, sorted, and the
 * median (docs/benchmarks.md, "conq_mpmc_array on one CAS a side"). The
 * toy queues' polls return NULL on an unpublished cell (inexact), which
 * only flatters them. Not built by CMake:
 *
 *   cc -O2 -std=c11 -Iinclude scripts/mpmc-cell-cas.c build/libconq.a \
 *      -lpthread -o /tmp/mpmc-cell-cas && /tmp/mpmc-cell-cas 1 1
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "conq/mpmc_array.h"

#define CAP (1u << 17)
#define RUNS 8
#define NVAR 3

typedef struct {
	_Atomic uint64_t seq;
	void *e;
} cell;

typedef struct {
	_Alignas(128) _Atomic uint64_t tail;
	_Alignas(128) _Atomic uint64_t head;
	_Alignas(128) cell c[CAP];
} vq;

static vq *V;
static conq_mpmc_array *M;
static int variant; /* 0 plain cells, 1 a CAS on the cell, 2 conq */
static int np = 1, nc = 1;
static atomic_int stop, go, pid_ctr, cid_ctr;
static _Atomic uint64_t polls;

static void vq_init(vq *q)
{
	for (uint64_t i = 0; i < CAP; i++)
		atomic_store(&q->c[i].seq, i);
	q->tail = q->head = 0;
}

static int vq_offer(vq *q, void *e, int cell_cas)
{
	uint64_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);
	for (;;) {
		cell *c = &q->c[t & (CAP - 1)];
		uint64_t s = atomic_load_explicit(&c->seq, memory_order_acquire);
		int64_t d = (int64_t)(s - t);
		if (d == 0) {
			if (atomic_compare_exchange_weak_explicit(
				&q->tail, &t, t + 1, memory_order_relaxed,
				memory_order_relaxed)) {
				if (cell_cas) {
					/* the reserve: FREE(t) -> RES(t) */
					uint64_t x = t;
					atomic_compare_exchange_strong_explicit(
					    &c->seq, &x, t + CAP * 4,
					    memory_order_acq_rel,
					    memory_order_relaxed);
				}
				c->e = e;
				atomic_store_explicit(&c->seq, t + 1,
						      memory_order_release);
				return 1;
			}
		} else if (d < 0) {
			return 0;
		} else {
			t = atomic_load_explicit(&q->tail, memory_order_relaxed);
		}
	}
}

static void *vq_poll(vq *q)
{
	uint64_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
	for (;;) {
		cell *c = &q->c[h & (CAP - 1)];
		uint64_t s = atomic_load_explicit(&c->seq, memory_order_acquire);
		int64_t d = (int64_t)(s - (h + 1));
		if (d == 0) {
			if (atomic_compare_exchange_weak_explicit(
				&q->head, &h, h + 1, memory_order_relaxed,
				memory_order_relaxed)) {
				void *e = c->e;
				atomic_store_explicit(&c->seq, h + CAP,
						      memory_order_release);
				return e;
			}
		} else if (d < 0) {
			return NULL;
		} else {
			h = atomic_load_explicit(&q->head, memory_order_relaxed);
		}
	}
}

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu % 2, &s);
	sched_setaffinity(0, sizeof s, &s);
}

static void *producer(void *a)
{
	(void)a;
	pin(atomic_fetch_add(&pid_ctr, 1));
	uintptr_t x = 1;
	while (!atomic_load(&go))
		;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int ok = variant == 2 ? conq_mpmc_array_offer(M, (void *)x)
				      : vq_offer(V, (void *)x, variant);
		if (ok)
			x++;
	}
	return NULL;
}

static void *consumer(void *a)
{
	(void)a;
	pin(np + atomic_fetch_add(&cid_ctr, 1));
	uint64_t n = 0;
	while (!atomic_load(&go))
		;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		if ((variant == 2 ? conq_mpmc_array_poll(M) : vq_poll(V)) != NULL)
			n++;
	atomic_fetch_add(&polls, n);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const char *names[NVAR] = {"plain cells", "a CAS on the cell",
					  "conq_mpmc_array"};
	double r[NVAR][RUNS];
	if (argc > 2) {
		np = atoi(argv[1]);
		nc = atoi(argv[2]);
	}
	if (np < 1 || nc < 1 || np + nc > 16) {
		fprintf(stderr, "usage: %s [P C]\n", argv[0]);
		return 2;
	}
	V = aligned_alloc(128, sizeof(vq));
	if (V == NULL)
		return 1;
	for (int k = 0; k < RUNS * NVAR; k++) {
		variant = k % NVAR;
		if (variant == 2)
			M = conq_mpmc_array_create(CAP);
		else
			vq_init(V);
		atomic_store(&stop, 0);
		atomic_store(&go, 0);
		atomic_store(&polls, 0);
		atomic_store(&pid_ctr, 0);
		atomic_store(&cid_ctr, 0);
		pthread_t th[16];
		int n = 0;
		for (int i = 0; i < np; i++)
			pthread_create(&th[n++], NULL, producer, NULL);
		for (int i = 0; i < nc; i++)
			pthread_create(&th[n++], NULL, consumer, NULL);
		struct timespec ts = {0, 200000000};
		atomic_store(&go, 1);
		nanosleep(&ts, NULL);
		atomic_store(&stop, 1);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		r[variant][k / NVAR] = (double)atomic_load(&polls) / 200000.0;
		if (variant == 2)
			conq_mpmc_array_destroy(M);
	}
	printf("%dP%dC, polls per us (%d runs of 200 ms, sorted):\n", np, nc,
	       RUNS);
	for (int v = 0; v < NVAR; v++) {
		qsort(r[v], RUNS, sizeof r[v][0], cmp);
		printf("  %-18s median %6.1f  [", names[v],
		       (r[v][RUNS / 2 - 1] + r[v][RUNS / 2]) / 2);
		for (int i = 0; i < RUNS; i++)
			printf("%s%.1f", i ? " " : "", r[v][i]);
		printf("]\n");
	}
	free(V);
	return 0;
}
