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
#include "conq/spsc_chunked.h"
#include "conq/spsc_growable.h"
#include "conq/spsc_unbounded.h"
#include "conq/spsc_linked.h"
#include "conq/mpsc_linked.h"
#include "conq/mpsc_chunked.h"
#include "conq/mpsc_growable.h"
#include "conq/mpsc_unbounded.h"
#include "conq/mpsc_xadd.h"
#include "conq/mpmc_xadd.h"
#include "loops.h"

/*
 * One adapter per family (and per chunk size of a growing family): create/
 * destroy/offer/poll wrappers, the loops on the inline offer/poll, and the
 * table entry.
 *
 *   CONQ_ADAPTER(FAM, CONTRACT, DESC)   "conq:FAM", create(capacity)
 *   CONQ_ADAPTER_ARGS(ID, NAME, FAM, CONTRACT, DESC, ARGS, VARIANT)
 *       adapter cb_adapter_conq_ID named NAME, built by
 *       conq_FAM_create ARGS (a parenthesised argument list in terms of
 *       the requested `capacity`); VARIANT true: run only when a qType
 *       names it (the chunk sizes of the seed's tables).
 *   CONQ_ADAPTER_V(FAM, CONTRACT, DESC) as CONQ_ADAPTER, and the family
 *       runs QueueValueThroughput's "pointer only" loops too
 *       (cb_vloops_conq_FAM, adapter_conq_value.c).
 *
 * The unbounded families run unbounded (capacity() CONQ_UNBOUNDED: the
 * harness primes them with qCapacity elements and lets them grow), as
 * JCTools' benchmarks run its unbounded queues and as the peers' unbounded
 * uses run here (moodycamel's enqueue, liburcu with a node per element).
 * put/take_until are the families' blocking calls (conq/impl/blocking.h),
 * for QueueHandoff.
 */
#define CONQ_ADAPTER(FAM, CONTRACT, DESC)                                      \
	CONQ_ADAPTER_ARGS(FAM, "conq:" #FAM, FAM, CONTRACT, DESC, (capacity),  \
			  false)
#define CONQ_ADAPTER_ARGS(ID, NAME, FAM, CONTRACT, DESC, ARGS, VARIANT)        \
	CONQ_ADAPTER_ARGS_V(ID, NAME, FAM, CONTRACT, DESC, ARGS, VARIANT, NULL)
/* ... that also runs QueueValueThroughput ("pointer only": VLOOPS, from
 * adapter_conq_value.c). */
#define CONQ_ADAPTER_V(FAM, CONTRACT, DESC)                                    \
	extern const struct cb_vloops cb_vloops_conq_##FAM;                    \
	CONQ_ADAPTER_ARGS_V(FAM, "conq:" #FAM, FAM, CONTRACT, DESC,            \
			    (capacity), false, &cb_vloops_conq_##FAM)
#define CONQ_ADAPTER_ARGS_V(ID, NAME, FAM, CONTRACT, DESC, ARGS, VARIANT,      \
			    VLOOPS)                                            \
	static void *ID##_create(size_t capacity, size_t *usable)              \
	{                                                                      \
		(void)capacity;                                                \
		conq_##FAM *q = conq_##FAM##_create ARGS;                      \
		if (q != NULL)                                                 \
			*usable = conq_##FAM##_capacity(q);                    \
		return q;                                                      \
	}                                                                      \
	static void ID##_destroy(void *q)                                      \
	{                                                                      \
		conq_##FAM##_destroy((conq_##FAM *)q);                         \
	}                                                                      \
	static bool ID##_offer(void *q, void *e)                               \
	{                                                                      \
		return conq_##FAM##_offer((conq_##FAM *)q, e);                 \
	}                                                                      \
	static void *ID##_poll(void *q)                                        \
	{                                                                      \
		return conq_##FAM##_poll((conq_##FAM *)q);                     \
	}                                                                      \
	static bool ID##_put(void *q, void *e)                                 \
	{                                                                      \
		return conq_##FAM##_put((conq_##FAM *)q, e);                   \
	}                                                                      \
	static void *ID##_take_until(void *q, int64_t deadline)                \
	{                                                                      \
		return conq_##FAM##_take_until((conq_##FAM *)q, deadline);     \
	}                                                                      \
	CB_DEFINE_LOOPS(conq_##ID, conq_##FAM, conq_##FAM##_offer,             \
			conq_##FAM##_poll)                                     \
	extern const cb_adapter cb_adapter_conq_##ID;                          \
	const cb_adapter cb_adapter_conq_##ID = {                              \
		.name = NAME,                                                  \
		.family = "conq",                                              \
		.desc = DESC,                                                  \
		.contract = CONTRACT,                                          \
		.kind = CB_KIND_OWN,                                           \
		.create = ID##_create,                                         \
		.destroy = ID##_destroy,                                       \
		.offer = ID##_offer,                                           \
		.poll = ID##_poll,                                             \
		.flush = NULL,                                                 \
		.loops = &conq_##ID##_loops,                                   \
		.variant = VARIANT,                                            \
		.put = ID##_put,                                               \
		.take_until = ID##_take_until,                                 \
		.vloops = VLOOPS,                                              \
	};

/* A growing family at chunk (or initial) size N, labelled L ("1K"): the
 * adapter conq:FAM.L, a variant. BOUNDED: max capacity = qCapacity. */
#define CONQ_ADAPTER_CHUNK_B(FAM, CONTRACT, N, L)                              \
	CONQ_ADAPTER_ARGS(FAM##_##L, "conq:" #FAM "." #L, FAM, CONTRACT,       \
			  "conq_" #FAM ", chunk " #L ", max qCapacity",        \
			  (N, capacity), true)
#define CONQ_ADAPTER_CHUNK_U(FAM, CONTRACT, N, L)                              \
	CONQ_ADAPTER_ARGS(FAM##_##L, "conq:" #FAM "." #L, FAM, CONTRACT,       \
			  "conq_" #FAM ", chunk " #L ", unbounded", (N), true)

CONQ_ADAPTER_V(spsc_array, CB_SPSC,
	     "conq_spsc_array: bounded SPSC ring of void* (offer/poll)")
CONQ_ADAPTER_V(mpsc_array, CB_MPSC,
	     "conq_mpsc_array: bounded MPSC ring of void* (offer/poll)")
CONQ_ADAPTER_V(spmc_array, CB_SPMC,
	     "conq_spmc_array: bounded SPMC ring of void* (offer/poll)")
CONQ_ADAPTER_V(mpmc_array, CB_MPMC,
	     "conq_mpmc_array: bounded MPMC ring of void* (offer/poll)")
CONQ_ADAPTER_ARGS(spsc_chunked, "conq:spsc_chunked", spsc_chunked, CB_SPSC,
		  "conq_spsc_chunked: bounded SPSC linked chunks of 1024 void*",
		  (1024, capacity), false)
CONQ_ADAPTER_ARGS(spsc_growable, "conq:spsc_growable", spsc_growable, CB_SPSC,
		  "conq_spsc_growable: bounded SPSC chunks growing from 1024",
		  (1024, capacity), false)
CONQ_ADAPTER_ARGS(spsc_unbounded, "conq:spsc_unbounded", spsc_unbounded,
		  CB_SPSC, "conq_spsc_unbounded: unbounded SPSC linked chunks "
		  "of 1024", (1024), false)
CONQ_ADAPTER_ARGS(spsc_linked, "conq:spsc_linked", spsc_linked, CB_SPSC,
		  "conq_spsc_linked: unbounded SPSC list, node cache", (),
		  false)
CONQ_ADAPTER_ARGS(mpsc_linked, "conq:mpsc_linked", mpsc_linked, CB_MPSC,
		  "conq_mpsc_linked: unbounded MPSC list, node cache", (),
		  false)

/* The seed's chunk sizes (scripts/bench-growing.sh). */
#define CONQ_ADAPTER_CHUNKS(FAM, CONTRACT, KIND)                               \
	CONQ_ADAPTER_CHUNK_##KIND(FAM, CONTRACT, 16, 16)                       \
	CONQ_ADAPTER_CHUNK_##KIND(FAM, CONTRACT, 128, 128)                     \
	CONQ_ADAPTER_CHUNK_##KIND(FAM, CONTRACT, 1024, 1K)                     \
	CONQ_ADAPTER_CHUNK_##KIND(FAM, CONTRACT, 16384, 16K)
CONQ_ADAPTER_CHUNKS(spsc_chunked, CB_SPSC, B)
CONQ_ADAPTER_CHUNKS(spsc_growable, CB_SPSC, B)
CONQ_ADAPTER_CHUNKS(spsc_unbounded, CB_SPSC, U)
CONQ_ADAPTER_ARGS(mpsc_chunked, "conq:mpsc_chunked", mpsc_chunked, CB_MPSC,
		  "conq_mpsc_chunked: bounded MPSC linked chunks of 1024 void*",
		  (1024, capacity), false)
CONQ_ADAPTER_ARGS(mpsc_growable, "conq:mpsc_growable", mpsc_growable, CB_MPSC,
		  "conq_mpsc_growable: bounded MPSC chunks growing from 1024",
		  (1024, capacity), false)
CONQ_ADAPTER_ARGS(mpsc_unbounded, "conq:mpsc_unbounded", mpsc_unbounded,
		  CB_MPSC, "conq_mpsc_unbounded: unbounded MPSC linked chunks "
		  "of 1024", (1024), false)
CONQ_ADAPTER_CHUNKS(mpsc_chunked, CB_MPSC, B)
CONQ_ADAPTER_CHUNKS(mpsc_growable, CB_MPSC, B)
CONQ_ADAPTER_CHUNKS(mpsc_unbounded, CB_MPSC, U)
CONQ_ADAPTER_ARGS(mpsc_xadd, "conq:mpsc_xadd", mpsc_xadd, CB_MPSC,
		  "conq_mpsc_xadd: unbounded MPSC, fetch-and-add claims, "
		  "chunks of 1024", (1024), false)
CONQ_ADAPTER_ARGS(mpmc_xadd, "conq:mpmc_xadd", mpmc_xadd, CB_MPMC,
		  "conq_mpmc_xadd: unbounded MPMC, fetch-and-add claims, "
		  "chunks of 1024", (1024), false)
