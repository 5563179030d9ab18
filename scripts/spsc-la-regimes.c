/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spsc-la-regimes.c - which regime an SPSC queue settles in, iteration by
 * iteration: one producer (CPU 0) and one consumer (CPU 1) spin on offer and
 * poll for 200 ms, then both stop, the queue is drained single-threaded and
 * the next iteration starts from empty, as conq-bench's
 * QueueThroughputBackoffNone does. Each iteration prints
 *     polls per us (failed polls per us, elements left at the stop)
 * "left" near the capacity: the queue ran full (the consumer the bottleneck);
 * far below it with failed polls: the consumer chased the producer.
 * Not built by CMake (docs/benchmarks.md, "The chunked queue's regimes").
 *
 *   cc -O2 -Iinclude scripts/spsc-la-regimes.c build/libconq.a -lpthread \
 *       -o /tmp/regimes
 *   /tmp/regimes chunked 1024 131072     # KIND CHUNK MAX
 *   /tmp/regimes unbounded 1024 0
 *   /tmp/regimes array 0 131072
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conq/spsc_array.h"
#include "conq/spsc_chunked.h"
#include "conq/spsc_unbounded.h"

enum kind { ARRAY, CHUNKED, UNBOUNDED };
static enum kind kind;
static void *q;
static atomic_int stop, ready;
static uint64_t polls, pfail;

static bool offer(void *e)
{
	switch (kind) {
	case ARRAY:
		return conq_spsc_array_offer(q, e);
	case CHUNKED:
		return conq_spsc_chunked_offer(q, e);
	default:
		return conq_spsc_unbounded_offer(q, e);
	}
}

static void *poll1(void)
{
	switch (kind) {
	case ARRAY:
		return conq_spsc_array_poll(q);
	case CHUNKED:
		return conq_spsc_chunked_poll(q);
	default:
		return conq_spsc_unbounded_poll(q);
	}
}

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *producer(void *arg)
{
	(void)arg;
	pin(0);
	uintptr_t i = 1;
	atomic_fetch_add(&ready, 1);
	while (atomic_load(&ready) < 2)
		;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		if (offer((void *)i))
			i++;
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	pin(1);
	uint64_t n = 0, f = 0;
	atomic_fetch_add(&ready, 1);
	while (atomic_load(&ready) < 2)
		;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (poll1() != NULL)
			n++;
		else
			f++;
	}
	polls = n;
	pfail = f;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s array|chunked|unbounded CHUNK MAX\n",
			argv[0]);
		return 2;
	}
	size_t chunk = strtoull(argv[2], NULL, 0);
	size_t max = strtoull(argv[3], NULL, 0);
	if (strcmp(argv[1], "array") == 0) {
		kind = ARRAY;
		q = conq_spsc_array_create(max);
	} else if (strcmp(argv[1], "chunked") == 0) {
		kind = CHUNKED;
		q = conq_spsc_chunked_create(chunk, max);
	} else {
		kind = UNBOUNDED;
		q = conq_spsc_unbounded_create(chunk);
	}
	if (q == NULL) {
		perror("create");
		return 1;
	}
	for (int it = 0; it < 12; it++) {
		atomic_store(&stop, 0);
		atomic_store(&ready, 0);
		pthread_t a, b;
		pthread_create(&a, NULL, producer, NULL);
		pthread_create(&b, NULL, consumer, NULL);
		struct timespec ts = {0, 200000000};
		nanosleep(&ts, NULL);
		atomic_store(&stop, 1);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		size_t left = 0;
		while (poll1() != NULL)
			left++;
		printf("%.0f(%.1f,%zu) ", polls / 0.2 / 1e6, pfail / 0.2 / 1e6,
		       left);
		fflush(stdout);
	}
	printf("\n");
	return 0;
}
