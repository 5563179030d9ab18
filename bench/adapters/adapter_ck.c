/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ConcurrencyKit's ck_ring in its four pointer flavours, one adapter each:
 * ck_ring_enqueue_spsc/dequeue_spsc, enqueue_mpsc/dequeue_mpsc,
 * enqueue_spmc/dequeue_spmc and enqueue_mpmc/dequeue_mpmc (the dequeue_*mc
 * that retry their CAS, so a failed poll means empty, not a lost race: the
 * trydequeue variants fail on a lost race). Used at its best: the ck_ring_t
 * gets its own CB_PAD-aligned block padded to a multiple of CB_PAD (nothing
 * of the harness shares its lines), the slot array its own aligned block,
 * and the loops inline ck's (force-inlined) functions. ck's layout inside ck_ring_t
 * (64-byte pads, its default CK_MD_CACHELINE) is ck's own and left alone.
 *
 * A ck ring of `size` slots holds size - 1 elements: it gets the requested
 * capacity rounded up to a power of two in slots (131072 -> 131071 usable).
 */
#include <errno.h>

#include <ck_ring.h>

#include "loops.h"

typedef struct ck_q {
	ck_ring_t ring;         /* c_head | p_tail, p_head | size, mask */
	ck_ring_buffer_t *buf;  /* read-only, on the line of size and mask */
} ck_q;

static void *ck_create(size_t capacity, size_t *usable)
{
	size_t slots = cb_pow2_ceil(capacity < 2 ? 2 : capacity);
	if (slots == 0 || slots > (size_t)1 << 31) {
		errno = EINVAL;
		return NULL;
	}
	ck_q *h = (ck_q *)cb_alloc_aligned(sizeof *h);
	if (h == NULL)
		return NULL;
	h->buf = (ck_ring_buffer_t *)cb_alloc_aligned(slots * sizeof *h->buf);
	if (h->buf == NULL) {
		cb_free_aligned(h);
		return NULL;
	}
	ck_ring_init(&h->ring, (unsigned int)slots);
	*usable = slots - 1;
	return h;
}

static void ck_destroy(void *q)
{
	ck_q *h = (ck_q *)q;
	if (h == NULL)
		return;
	cb_free_aligned(h->buf);
	cb_free_aligned(h);
}

/* One adapter per flavour FL: inline offer/poll on ck's force-inlined
 * functions, generic wrappers, the loops, the table entry. */
#define CK_ADAPTER(FL, CONTRACT)                                               \
	static inline bool ck_##FL##_offer(ck_q *h, void *e)                   \
	{                                                                      \
		return ck_ring_enqueue_##FL(&h->ring, h->buf, e);              \
	}                                                                      \
	static inline void *ck_##FL##_poll(ck_q *h)                            \
	{                                                                      \
		void *e = NULL;                                                \
		return ck_ring_dequeue_##FL(&h->ring, h->buf, &e) ? e : NULL;  \
	}                                                                      \
	static bool ck_##FL##_offer_g(void *q, void *e)                        \
	{                                                                      \
		return ck_##FL##_offer((ck_q *)q, e);                          \
	}                                                                      \
	static void *ck_##FL##_poll_g(void *q)                                 \
	{                                                                      \
		return ck_##FL##_poll((ck_q *)q);                              \
	}                                                                      \
	CB_DEFINE_LOOPS(ck_##FL, ck_q, ck_##FL##_offer, ck_##FL##_poll)        \
	extern const cb_adapter cb_adapter_ck_##FL;                            \
	const cb_adapter cb_adapter_ck_##FL = {                                \
		.name = "ck:" #FL,                                             \
		.family = "ck",                                                \
		.desc = "ConcurrencyKit ck_ring, ck_ring_enqueue_" #FL         \
			"/dequeue_" #FL,                                       \
		.contract = CONTRACT,                                          \
		.kind = CB_KIND_PEER,                                          \
		.create = ck_create,                                           \
		.destroy = ck_destroy,                                         \
		.offer = ck_##FL##_offer_g,                                    \
		.poll = ck_##FL##_poll_g,                                      \
		.flush = NULL,                                                 \
		.loops = &ck_##FL##_loops,                                     \
	};

CK_ADAPTER(spsc, CB_SPSC)
CK_ADAPTER(mpsc, CB_MPSC)
CK_ADAPTER(spmc, CB_SPMC)
CK_ADAPTER(mpmc, CB_MPMC)
