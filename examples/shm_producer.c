/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shm_producer: the producer half of the shared-memory example pair.
 *
 *   shm_producer NAME COUNT     open the region NAME that shm_consumer
 *                               created (waiting up to 5 s for it), write
 *                               COUNT orders in place (claim, fill in,
 *                               commit), then exit
 *
 * Start any number of them; their orders arrive in claim order, each
 * producer's in its own order.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "conq/mpsc_value.h"
#include "conq/shm.h"
#include "shm_order.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s NAME COUNT\n", argv[0]);
		return 2;
	}
	const char *name = argv[1];
	long count = atol(argv[2]);
	conq_shm *shm = NULL;
	conq_mpsc_value *q = NULL;
	int64_t give_up = conq_now_ns() + 5000000000;
	/* The consumer may not have created it yet: ENOENT, try again. */
	while ((q = conq_mpsc_value_shm_open(name, sizeof(struct order), 0, NULL,
					     &shm)) == NULL) {
		if (errno != ENOENT || conq_now_ns() > give_up) {
			fprintf(stderr, "shm_producer: %s\n",
				conq_shm_last_error());
			return 1;
		}
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	for (long i = 1; i <= count; i++) {
		struct order *o;
		while ((o = conq_mpsc_value_claim(q)) == NULL)
			sched_yield(); /* full: the consumer is behind */
		o->id = (uint64_t)i;
		o->producer = (uint32_t)getpid();
		o->qty = (uint32_t)(i % 100 + 1);
		o->price = 99500 + i % 17;
		o->sent_ns = conq_now_ns();
		conq_mpsc_value_commit(q, o);
	}
	conq_mpsc_value_shm_close(shm);
	return 0;
}
