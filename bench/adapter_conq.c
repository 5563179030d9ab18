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

#include <stdlib.h>

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

/*
 * conq:mpsc_unbounded: every queue here must hold a known number of elements
 * (the harness primes it to full), so this one gets its chunks (1024 slots,
 * 1023 elements each) from an allocator with a budget of ceil(qCapacity /
 * 1023) chunks: offer fails (ENOMEM) when the budget is spent, and the queue
 * holds exactly that many chunks' worth when it starts empty. The budget
 * counts live blocks (the queue itself too), so it is spent again only when
 * the queue refills: a drained queue keeps its chunk and one spare.
 */
typedef struct mla_budget {
	long live; /* blocks allocated and not freed (atomic) */
	long max;  /* at most this many */
} mla_budget;

static void *mla_alloc(void *ctx, size_t size, size_t align)
{
	mla_budget *b = (mla_budget *)ctx;
	if (conq__faa_relaxed(&b->live, 1) >= b->max) {
		conq__faa_relaxed(&b->live, -1);
		return NULL;
	}
	size_t rounded = (size + align - 1) / align * align;
	void *p = aligned_alloc(align, rounded);
	if (p == NULL)
		conq__faa_relaxed(&b->live, -1);
	return p;
}

static void mla_free(void *ctx, void *p, size_t size)
{
	(void)size;
	free(p);
	conq__faa_relaxed(&((mla_budget *)ctx)->live, -1);
}

static void *mpsc_unbounded_create(size_t capacity, size_t *usable)
{
	size_t chunks = (capacity + 1022) / 1023;
	if (chunks == 0)
		chunks = 1;
	mla_budget *b = (mla_budget *)malloc(sizeof *b);
	if (b == NULL)
		return NULL;
	b->live = 0;
	b->max = (long)chunks + 1; /* + the queue */
	conq_allocator a = {mla_alloc, mla_free, b};
	conq_mpsc_unbounded *q = conq_mpsc_unbounded_create_with(1024, &a);
	if (q == NULL) {
		free(b);
		return NULL;
	}
	*usable = chunks * 1023;
	return q;
}

static void mpsc_unbounded_destroy(void *q)
{
	conq_mpsc_unbounded *u = (conq_mpsc_unbounded *)q;
	void *b = u->q.alloc.ctx;
	conq_mpsc_unbounded_destroy(u);
	free(b);
}

static bool mpsc_unbounded_offer(void *q, void *e)
{
	return conq_mpsc_unbounded_offer((conq_mpsc_unbounded *)q, e);
}

static void *mpsc_unbounded_poll(void *q)
{
	return conq_mpsc_unbounded_poll((conq_mpsc_unbounded *)q);
}

CB_DEFINE_LOOPS(conq_mpsc_unbounded, conq_mpsc_unbounded,
		conq_mpsc_unbounded_offer, conq_mpsc_unbounded_poll)
extern const cb_adapter cb_adapter_conq_mpsc_unbounded;
const cb_adapter cb_adapter_conq_mpsc_unbounded = {
    .name = "conq:mpsc_unbounded",
    .family = "conq",
    .desc = "conq_mpsc_unbounded: unbounded MPSC linked chunks of 1024, "
	    "held to ceil(qCapacity / 1023) chunks by its allocator",
    .contract = CB_MPSC,
    .kind = CB_KIND_OWN,
    .create = mpsc_unbounded_create,
    .destroy = mpsc_unbounded_destroy,
    .offer = mpsc_unbounded_offer,
    .poll = mpsc_unbounded_poll,
    .flush = NULL,
    .loops = &conq_mpsc_unbounded_loops,
};
