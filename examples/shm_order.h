/* SPDX-License-Identifier: BSD-2-Clause */
/* The message of the shared-memory example pair (shm_producer.c,
 * shm_consumer.c): a fixed-size order, written in place into the ring. */
#ifndef CONQ_EXAMPLE_SHM_ORDER_H
#define CONQ_EXAMPLE_SHM_ORDER_H

#include <stdint.h>

struct order {
	uint64_t id;	   /* 1, 2, ... per producer */
	uint32_t producer; /* its pid */
	uint32_t qty;
	int64_t price;	   /* in 1/10000 */
	int64_t sent_ns;   /* CLOCK_MONOTONIC when committed */
};

#define ORDER_RING_CAPACITY 1024

#endif
