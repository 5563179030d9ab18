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
#include <memory>
#include <new>

#include "loops.h"

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
};
}
