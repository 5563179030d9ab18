/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq's own queues, strict offer/poll (as JCTools' benchmarks call offer and
 * poll, not the relaxed variants). The loops call the headers' inline
 * functions.
 */
#include "conq/mpmc_array.h"
#include "conq/mpsc_array.h"
#include "conq/spmc_array.h"
#include "conq/spsc_array.h"
#include "conq/spsc_linked.h"
#include "conq/mpsc_linked.h"
#include "loops.h"

/* The constructor for a requested capacity: the array families take it; the
 * unbounded linked ones ignore it (the bench lets them grow; their
 * capacity() is CONQ_UNBOUNDED). */
#define CONQ_BENCH_CREATE_spsc_array(c)	 conq_spsc_array_create(c)
#define CONQ_BENCH_CREATE_mpsc_array(c)	 conq_mpsc_array_create(c)
#define CONQ_BENCH_CREATE_spmc_array(c)	 conq_spmc_array_create(c)
#define CONQ_BENCH_CREATE_mpmc_array(c)	 conq_mpmc_array_create(c)
#define CONQ_BENCH_CREATE_spsc_linked(c) ((void)(c), conq_spsc_linked_create())
#define CONQ_BENCH_CREATE_mpsc_linked(c) ((void)(c), conq_mpsc_linked_create())

/* One adapter per family: create/destroy/offer/poll wrappers, the loops on
 * the inline offer/poll, and the table entry. */
#define CONQ_ADAPTER(FAM, CONTRACT, DESC)                                      \
	static void *FAM##_create(size_t capacity, size_t *usable)             \
	{                                                                      \
		conq_##FAM *q = CONQ_BENCH_CREATE_##FAM(capacity);             \
		if (q != NULL)                                                 \
			*usable = conq_##FAM##_capacity(q);                    \
		return q;                                                      \
	}                                                                      \
	static void FAM##_destroy(void *q)                                     \
	{                                                                      \
		conq_##FAM##_destroy((conq_##FAM *)q);                         \
	}                                                                      \
	static bool FAM##_offer(void *q, void *e)                              \
	{                                                                      \
		return conq_##FAM##_offer((conq_##FAM *)q, e);                 \
	}                                                                      \
	static void *FAM##_poll(void *q)                                       \
	{                                                                      \
		return conq_##FAM##_poll((conq_##FAM *)q);                     \
	}                                                                      \
	CB_DEFINE_LOOPS(conq_##FAM, conq_##FAM, conq_##FAM##_offer,            \
			conq_##FAM##_poll)                                     \
	extern const cb_adapter cb_adapter_conq_##FAM;                         \
	const cb_adapter cb_adapter_conq_##FAM = {                             \
		.name = "conq:" #FAM,                                          \
		.family = "conq",                                              \
		.desc = DESC,                                                  \
		.contract = CONTRACT,                                          \
		.kind = CB_KIND_OWN,                                           \
		.create = FAM##_create,                                        \
		.destroy = FAM##_destroy,                                      \
		.offer = FAM##_offer,                                          \
		.poll = FAM##_poll,                                            \
		.flush = NULL,                                                 \
		.loops = &conq_##FAM##_loops,                                  \
	};

CONQ_ADAPTER(spsc_array, CB_SPSC,
	     "conq_spsc_array: bounded SPSC ring of void* (offer/poll)")
CONQ_ADAPTER(mpsc_array, CB_MPSC,
	     "conq_mpsc_array: bounded MPSC ring of void* (offer/poll)")
CONQ_ADAPTER(spmc_array, CB_SPMC,
	     "conq_spmc_array: bounded SPMC ring of void* (offer/poll)")
CONQ_ADAPTER(mpmc_array, CB_MPMC,
	     "conq_mpmc_array: bounded MPMC ring of void* (offer/poll)")
CONQ_ADAPTER(spsc_linked, CB_SPSC,
	     "conq_spsc_linked: unbounded SPSC list, node cache (offer/poll)")
CONQ_ADAPTER(mpsc_linked, CB_MPSC,
	     "conq_mpsc_linked: unbounded MPSC list, node cache (offer/poll)")
