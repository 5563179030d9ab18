/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shm_consumer: the consumer half of the shared-memory example pair.
 *
 *   shm_consumer NAME COUNT     create the region NAME ("/orders") holding
 *                               a conq_mpsc_value ring of struct order,
 *                               take COUNT orders from any number of
 *                               shm_producer processes, print a summary,
 *                               remove the region
 *
 * The consumer creates the ring; producers open it by name, at whatever
 * address their kernel maps it (the ring holds no pointers). take_until
 * blocks on the ring's process-shared eventcount: a producer's commit wakes
 * it, no polling. A producer process that dies between claim and commit
 * cannot stall the consumer: take_until reclaims its slot once the process
 * is gone (conq/mpsc_value.h). Exits 0 when all COUNT orders arrived, 1 on
 * an error or after 10 s without an order.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

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
	conq_shm *shm;
	conq_mpsc_value *q = conq_mpsc_value_shm_create(
	    name, sizeof(struct order), ORDER_RING_CAPACITY, NULL, NULL, &shm);
	if (q == NULL) {
		fprintf(stderr, "shm_consumer: %s\n", conq_shm_last_error());
		return 1;
	}
	printf("shm_consumer: ring %s ready (%zu orders of %zu bytes)\n", name,
	       conq_mpsc_value_capacity(q), conq_mpsc_value_elem_size(q));
	fflush(stdout);
	long got = 0;
	int64_t qty = 0, worst_ns = 0;
	while (got < count) {
		struct order o;
		if (!conq_mpsc_value_take_until(q, &o, conq_now_ns() + 10000000000)) {
			fprintf(stderr, "shm_consumer: no order for 10 s\n");
			break;
		}
		int64_t lat = conq_now_ns() - o.sent_ns;
		if (lat > worst_ns)
			worst_ns = lat;
		qty += o.qty;
		got++;
	}
	printf("shm_consumer: %ld orders, total quantity %" PRId64
	       ", slowest hand-over %.1f us\n",
	       got, qty, (double)worst_ns / 1000.0);
	conq_mpsc_value_shm_close(shm);
	conq_shm_unlink(name);
	return got == count ? 0 : 1;
}
