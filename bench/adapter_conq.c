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
#include "conq/mpsc_chunked.h"
#include "conq/mpsc_growable.h"
#include "conq/mpsc_unbounded.h"
#include "loops.h"

/* One adapter per family: create/destroy/offer/poll wrappers, the loops on
 * the inline offer/poll, and the table entry. CONQ_ADAPTER_ARGS: create
 * takes ARGS, a parenthesised argument list in terms of `capacity` (the
 * growing families); an unbounded queue's usable capacity is the requested
 * one. */
#define CONQ_ADAPTER(FAM, CONTRACT, DESC)                                      \
	CONQ_ADAPTER_ARGS(FAM, CONTRACT, DESC, (capacity))
#define CONQ_ADAPTER_ARGS(FAM, CONTRACT, DESC, ARGS)                           \
	static void *FAM##_create(size_t capacity, size_t *usable)             \
	{                                                                      \
		conq_##FAM *q = conq_##FAM##_create ARGS;                      \
		if (q != NULL) {                                               \
			size_t u = conq_##FAM##_capacity(q);                   \
			*usable = u == CONQ_UNBOUNDED ? capacity : u;          \
		}                                                              \
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
CONQ_ADAPTER_ARGS(mpsc_chunked, CB_MPSC,
		  "conq_mpsc_chunked: bounded MPSC linked chunks of 1024 void*",
		  (1024, capacity))
CONQ_ADAPTER_ARGS(mpsc_growable, CB_MPSC,
		  "conq_mpsc_growable: bounded MPSC chunks growing from 1024",
		  (1024, capacity))
CONQ_ADAPTER_ARGS(mpsc_unbounded, CB_MPSC,
		  "conq_mpsc_unbounded: unbounded MPSC linked chunks of 1024",
		  (1024))
