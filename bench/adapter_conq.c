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
#include "loops.h"

/* One adapter per family: create/destroy/offer/poll wrappers, the loops on
 * the inline offer/poll, and the table entry. CONQ_ADAPTER_ARGS: create
 * takes ARGS, a parenthesised argument list in terms of `capacity` (the
 * growing families). */
#define CONQ_ADAPTER(FAM, CONTRACT, DESC)                                      \
	CONQ_ADAPTER_ARGS(FAM, CONTRACT, DESC, (capacity))
#define CONQ_ADAPTER_ARGS(FAM, CONTRACT, DESC, ARGS)                           \
	static void *FAM##_create(size_t capacity, size_t *usable)             \
	{                                                                      \
		conq_##FAM *q = conq_##FAM##_create ARGS;                      \
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
CONQ_ADAPTER_ARGS(spsc_chunked, CB_SPSC,
		  "conq_spsc_chunked: bounded SPSC linked chunks of 1024 void*",
		  (1024, capacity))
CONQ_ADAPTER_ARGS(spsc_growable, CB_SPSC,
		  "conq_spsc_growable: bounded SPSC chunks growing from 1024",
		  (1024, capacity))

/*
 * An unbounded SPSC family, seen as bounded by `capacity` (the harness's
 * invariants, and a fair comparison, need offer to fail at that many, as
 * adapter_urcu.c does): the producer caches limit = cidx + capacity from
 * size() (pidx - cidx, pidx being its own), read again only when it reaches
 * the limit, as a bounded queue's producer does.
 */
#define CONQ_ADAPTER_SPSC_UNBOUNDED(FAM, DESC, ARGS)                           \
	typedef struct FAM##_view {                                            \
		conq_##FAM *q;                                                 \
		uint64_t enq, limit, cap;                                      \
	} FAM##_view;                                                          \
	static void *FAM##_create(size_t capacity, size_t *usable)             \
	{                                                                      \
		FAM##_view *v =                                                \
		    (FAM##_view *)cb_alloc_aligned(sizeof(FAM##_view));        \
		if (v == NULL)                                                 \
			return NULL;                                           \
		v->q = conq_##FAM##_create ARGS;                               \
		if (v->q == NULL) {                                            \
			cb_free_aligned(v);                                    \
			return NULL;                                           \
		}                                                              \
		v->cap = v->limit = capacity;                                  \
		*usable = capacity;                                            \
		return v;                                                      \
	}                                                                      \
	static void FAM##_destroy(void *p)                                     \
	{                                                                      \
		FAM##_view *v = (FAM##_view *)p;                               \
		if (v == NULL)                                                 \
			return;                                                \
		conq_##FAM##_destroy(v->q);                                    \
		cb_free_aligned(v);                                            \
	}                                                                      \
	static inline bool FAM##_view_offer(FAM##_view *v, void *e)            \
	{                                                                      \
		if (CONQ__UNLIKELY(v->enq == v->limit)) {                      \
			v->limit = v->enq - conq_##FAM##_size(v->q) + v->cap;  \
			if (v->enq == v->limit)                                \
				return false;                                  \
		}                                                              \
		if (!conq_##FAM##_offer(v->q, e))                              \
			return false;                                          \
		v->enq++;                                                      \
		return true;                                                   \
	}                                                                      \
	static inline void *FAM##_view_poll(FAM##_view *v)                     \
	{                                                                      \
		return conq_##FAM##_poll(v->q);                                \
	}                                                                      \
	static bool FAM##_offer(void *q, void *e)                              \
	{                                                                      \
		return FAM##_view_offer((FAM##_view *)q, e);                   \
	}                                                                      \
	static void *FAM##_poll(void *q)                                       \
	{                                                                      \
		return FAM##_view_poll((FAM##_view *)q);                       \
	}                                                                      \
	CB_DEFINE_LOOPS(conq_##FAM, FAM##_view, FAM##_view_offer,              \
			FAM##_view_poll)                                       \
	extern const cb_adapter cb_adapter_conq_##FAM;                         \
	const cb_adapter cb_adapter_conq_##FAM = {                             \
		.name = "conq:" #FAM,                                          \
		.family = "conq",                                              \
		.desc = DESC,                                                  \
		.contract = CB_SPSC,                                           \
		.kind = CB_KIND_OWN,                                           \
		.create = FAM##_create,                                        \
		.destroy = FAM##_destroy,                                      \
		.offer = FAM##_offer,                                          \
		.poll = FAM##_poll,                                            \
		.flush = NULL,                                                 \
		.loops = &conq_##FAM##_loops,                                  \
	};

CONQ_ADAPTER_SPSC_UNBOUNDED(spsc_unbounded,
			    "conq_spsc_unbounded: unbounded SPSC linked chunks "
			    "of 1024, held to the capacity",
			    (1024))
