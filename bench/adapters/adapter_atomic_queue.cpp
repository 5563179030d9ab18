// SPDX-License-Identifier: BSD-2-Clause
/*
 * max0x7ba/atomic_queue (C++, header-only), its run-time-sized queues of
 * atomic elements with try_push/try_pop (the non-blocking pair, as offer and
 * poll):
 *
 *   atomic_queue:mpmc  AtomicQueueB<void *>: NIL = nullptr (conq-bench's
 *                      elements are never NULL), MAXIMIZE_THROUGHPUT,
 *                      no TOTAL_ORDER; CAS on head/tail, then the element
 *                      slot is exchanged with NIL. Not FIFO per producer
 *                      under preemption (AQ_WEAK_ORDER): --check counts
 *                      and reports its reorderings instead of failing
 *   atomic_queue:spsc  the same with its SPSC = true specialization (plain
 *                      loads and stores of head and tail)
 *   atomic_queue:mpmc_value, atomic_queue:spsc_value
 *                      QueueValueThroughput only: AtomicQueueB2<E> (values
 *                      with a state byte per slot), E a struct of the
 *                      element size, copied in and out (vloops.h)
 *
 * The queue object gets its own CB_PAD-aligned block (placement new); its
 * slot array comes from std::allocator, as atomic_queue does it. Its
 * capacity is the request rounded up to a power of two (at least 64) and it
 * holds exactly that. This file is C++20 only for the designated
 * initializers of the table entry: it instantiates the same loops (loops.h)
 * as the C adapters, with try_push/try_pop inlined, and exports C symbols.
 */
#include <atomic_queue/atomic_queue.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <new>

#include "loops.h"
#include "vloops.h"

namespace {

using AqMpmc = atomic_queue::AtomicQueueB<void *>;
using AqSpsc = atomic_queue::AtomicQueueB<void *, std::allocator<void *>,
					  nullptr, true, false, true>;

template <class Q> void *aq_create(size_t capacity, size_t *usable)
{
	if (capacity == 0 || capacity > (size_t)1 << 30) {
		errno = EINVAL;
		return nullptr;
	}
	void *mem = cb_alloc_aligned(sizeof(Q));
	if (mem == nullptr)
		return nullptr;
	Q *q;
	try {
		q = new (mem) Q((unsigned)capacity);
	} catch (...) {
		cb_free_aligned(mem);
		errno = ENOMEM;
		return nullptr;
	}
	*usable = q->capacity();
	return q;
}

template <class Q> void aq_destroy(void *p)
{
	if (p == nullptr)
		return;
	static_cast<Q *>(p)->~Q();
	cb_free_aligned(p);
}

template <class Q> inline bool aq_offer(Q *q, void *e)
{
	return q->try_push(e);
}

template <class Q> inline void *aq_poll(Q *q)
{
	void *e = nullptr;
	return q->try_pop(e) ? e : nullptr;
}

template <class Q> bool aq_offer_g(void *q, void *e)
{
	return aq_offer(static_cast<Q *>(q), e);
}

template <class Q> void *aq_poll_g(void *q)
{
	return aq_poll(static_cast<Q *>(q));
}

CB_DEFINE_LOOPS(aq_mpmc, AqMpmc, aq_offer<AqMpmc>, aq_poll<AqMpmc>)
CB_DEFINE_LOOPS(aq_spsc, AqSpsc, aq_offer<AqSpsc>, aq_poll<AqSpsc>)

/* QueueValueThroughput (workloads/vloops.h): AtomicQueueB2<E>, atomic_queue's
 * run-time-sized queue of non-atomic values (each slot with a state byte,
 * the element copied in by try_push and out by try_pop), E a struct of the
 * element size. It has no in-place API: copy only. */
template <size_t N> struct AqElem {
	alignas(N >= 16 ? 16 : N) unsigned char b[N];
};
template <size_t N, bool S>
using AqV = atomic_queue::AtomicQueueB2<AqElem<N>, std::allocator<AqElem<N>>,
					true, false, S>;

template <size_t N, bool S>
void *aqv_new(size_t capacity, unsigned np, size_t *usable)
{
	(void)np;
	return aq_create<AqV<N, S>>(capacity, usable);
}
template <size_t N, bool S> void aqv_free(void *q)
{
	aq_destroy<AqV<N, S>>(q);
}
template <size_t N, bool S> inline bool aqv_offer(void *q, const void *e)
{
	AqElem<N> x;
	memcpy(x.b, e, N);
	return static_cast<AqV<N, S> *>(q)->try_push(x);
}
template <size_t N, bool S> inline bool aqv_poll(void *q, void *out)
{
	AqElem<N> x;
	if (!static_cast<AqV<N, S> *>(q)->try_pop(x))
		return false;
	memcpy(out, x.b, N);
	return true;
}

/* vloops.h's calling convention (the size first). */
#define AQV_NEW_M(n, c, np, u) aqv_new<n, false>(c, np, u)
#define AQV_FREE_M(n, q) aqv_free<n, false>(q)
#define AQV_OFFER_M(n, q, e) aqv_offer<n, false>(q, e)
#define AQV_POLL_M(n, q, o) aqv_poll<n, false>(q, o)
#define AQV_NEW_S(n, c, np, u) aqv_new<n, true>(c, np, u)
#define AQV_FREE_S(n, q) aqv_free<n, true>(q)
#define AQV_OFFER_S(n, q, e) aqv_offer<n, true>(q, e)
#define AQV_POLL_S(n, q, o) aqv_poll<n, true>(q, o)

CB_DEFINE_VALUE_LOOPS(aqv_mpmc, CB_VHOW_COPY, AQV_NEW_M, AQV_FREE_M,
		      AQV_OFFER_M, AQV_POLL_M, CB_VNONE, CB_VNONE)
CB_DEFINE_VALUE_LOOPS(aqv_spsc, CB_VHOW_COPY, AQV_NEW_S, AQV_FREE_S,
		      AQV_OFFER_S, AQV_POLL_S, CB_VNONE, CB_VNONE)

} // namespace

/* Its slots carry no lap number: once the consumer of position i has
 * claimed it, the producer of position i + capacity may fill the slot
 * before the (preempted) producer of i does, and i's consumer takes the
 * later element. Each element is still taken exactly once. */
#define AQ_WEAK_ORDER                                                          \
	"slots carry no lap: position i + capacity can overtake a preempted "  \
	"producer of i"

extern "C" {
extern const cb_adapter cb_adapter_aq_mpmc;
extern const cb_adapter cb_adapter_aq_spsc;
extern const cb_adapter cb_adapter_aq_mpmc_value;
extern const cb_adapter cb_adapter_aq_spsc_value;

const cb_adapter cb_adapter_aq_mpmc_value = {
	.name = "atomic_queue:mpmc_value",
	.family = "atomic_queue",
	.desc = "atomic_queue AtomicQueueB2<struct of elemSize bytes>, "
		"try_push/try_pop (C++)",
	.contract = CB_MPMC,
	.kind = CB_KIND_PEER,
	.create = nullptr,
	.destroy = nullptr,
	.offer = nullptr,
	.poll = nullptr,
	.flush = nullptr,
	.loops = nullptr,
	.weak_order = AQ_WEAK_ORDER,
	.variant = false,
	.put = nullptr,
	.take_until = nullptr,
	.vloops = &aqv_mpmc_vloops,
};

const cb_adapter cb_adapter_aq_spsc_value = {
	.name = "atomic_queue:spsc_value",
	.family = "atomic_queue",
	.desc = "atomic_queue AtomicQueueB2<struct of elemSize bytes, ..., "
		"SPSC=true>, try_push/try_pop (C++)",
	.contract = CB_SPSC,
	.kind = CB_KIND_PEER,
	.create = nullptr,
	.destroy = nullptr,
	.offer = nullptr,
	.poll = nullptr,
	.flush = nullptr,
	.loops = nullptr,
	.weak_order = nullptr,
	.variant = false,
	.put = nullptr,
	.take_until = nullptr,
	.vloops = &aqv_spsc_vloops,
};

const cb_adapter cb_adapter_aq_mpmc = {
	.name = "atomic_queue:mpmc",
	.family = "atomic_queue",
	.desc = "atomic_queue AtomicQueueB<void*>, try_push/try_pop (C++)",
	.contract = CB_MPMC,
	.kind = CB_KIND_PEER,
	.create = aq_create<AqMpmc>,
	.destroy = aq_destroy<AqMpmc>,
	.offer = aq_offer_g<AqMpmc>,
	.poll = aq_poll_g<AqMpmc>,
	.flush = nullptr,
	.loops = &aq_mpmc_loops,
	.weak_order = AQ_WEAK_ORDER,
	.variant = false,
	.put = nullptr,
	.take_until = nullptr,
	.vloops = nullptr,
};

const cb_adapter cb_adapter_aq_spsc = {
	.name = "atomic_queue:spsc",
	.family = "atomic_queue",
	.desc = "atomic_queue AtomicQueueB<void*,...,SPSC=true>, try_push/"
		"try_pop (C++)",
	.contract = CB_SPSC,
	.kind = CB_KIND_PEER,
	.create = aq_create<AqSpsc>,
	.destroy = aq_destroy<AqSpsc>,
	.offer = aq_offer_g<AqSpsc>,
	.poll = aq_poll_g<AqSpsc>,
	.flush = nullptr,
	.loops = &aq_spsc_loops,
	.weak_order = nullptr,
	.variant = false,
	.put = nullptr,
	.take_until = nullptr,
	.vloops = nullptr,
};
}
