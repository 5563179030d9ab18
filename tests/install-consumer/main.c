/* SPDX-License-Identifier: BSD-2-Clause */
/* Smoke test of an installed conq: headers, library, a queue that works. */
#define _POSIX_C_SOURCE 200809L
#include <conq/conq.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N 10000u

static void *producer(void *arg)
{
	conq_spsc_array *q = (conq_spsc_array *)arg;
	for (uintptr_t i = 1; i <= N; i++)
		while (!conq_spsc_array_offer(q, (void *)i))
			sched_yield(); /* full; yield: CI machines are small */
	return NULL;
}

int main(void)
{
#ifdef CONQ_EXPECTED_VERSION
	if (strcmp(conq_version(), CONQ_EXPECTED_VERSION) != 0) {
		fprintf(stderr, "conq_version() %s, package says %s\n",
			conq_version(), CONQ_EXPECTED_VERSION);
		return 1;
	}
#endif
	if (strcmp(conq_version(), CONQ_VERSION_STRING) != 0) {
		fprintf(stderr, "conq_version() %s, header says %s\n",
			conq_version(), CONQ_VERSION_STRING);
		return 1;
	}
	conq_spsc_array *q = conq_spsc_array_create(64);
	if (q == NULL) {
		perror("conq_spsc_array_create");
		return 1;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, producer, q) != 0) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	uintptr_t next = 1;
	while (next <= N) {
		void *e = conq_spsc_array_poll(q);
		if (e == NULL) {
			sched_yield();
			continue;
		}
		if ((uintptr_t)e != next) {
			fprintf(stderr, "got %lu, expected %lu\n",
				(unsigned long)(uintptr_t)e,
				(unsigned long)next);
			return 1;
		}
		next++;
	}
	pthread_join(t, NULL);
	conq_spsc_array_destroy(q);
	printf("install-consumer: conq %s ok\n", conq_version());
	return 0;
}
