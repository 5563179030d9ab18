// SPDX-License-Identifier: BSD-2-Clause
/*
 * Boost.Lockfree (C++, header-only):
 *
 *   boost:queue       boost::lockfree::queue<void *> (MPMC, Michael-Scott
 *                     with a node free-list and tagged pointers), built
 *                     with qCapacity nodes; bounded_push (never allocates:
 *                     fails when the free-list is empty) / pop. Holds
 *                     exactly qCapacity. (Its fixed_sized<true> mode would
 *                     cap the nodes at 65535.)
 *   boost:spsc_queue  boost::lockfree::spsc_queue<void *> (SPSC ring,
 *                     run-time capacity), push / pop; holds qCapacity.
 *
 * The queue object gets its own CB_PAD-aligned block (placement new), the
 * same loops (loops.h) as every other adapter, and C symbols. ThreadSanitizer
 * builds leave boost:queue out (CB_BOOST_QUEUE_DISABLED): it reads nodes
 * another thread may be recycling, a race by design that its tagged
 * pointers make harmless, and that TSan reports.
 */
#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/spsc_queue.hpp>

#include <cerrno>
#include <new>

#include "loops.h"

namespace {

using Bq = boost::lockfree::queue<void *>;
using Bspsc = boost::lockfree::spsc_queue<void *>;

template <class Q> void *bq_create(size_t capacity, size_t *usable)
{
	if (capacity == 0 || capacity > (size_t)1 << 31) {
		errno = EINVAL;
		return nullptr;
	}
	void *mem = cb_alloc_aligned(sizeof(Q));
	if (mem == nullptr)
		return nullptr;
	try {
		new (mem) Q(capacity);
	} catch (...) {
		cb_free_aligned(mem);
		errno = ENOMEM;
		return nullptr;
	}
	*usable = capacity;
	return mem;
}

template <class Q> void bq_destroy(void *p)
{
	if (p == nullptr)
		return;
	static_cast<Q *>(p)->~Q();
	cb_free_aligned(p);
}

inline bool bspsc_offer(Bspsc *q, void *e)
{
	return q->push(e);
}

template <class Q> inline void *b_poll(Q *q)
{
	void *e = nullptr;
	return q->pop(e) ? e : nullptr;
}

bool bspsc_offer_g(void *q, void *e)
{
	return bspsc_offer(static_cast<Bspsc *>(q), e);
}

template <class Q> void *b_poll_g(void *q)
{
	return b_poll(static_cast<Q *>(q));
}

CB_DEFINE_LOOPS(boost_spsc, Bspsc, bspsc_offer, b_poll<Bspsc>)

#ifndef CB_BOOST_QUEUE_DISABLED
inline bool bq_offer(Bq *q, void *e)
{
	return q->bounded_push(e);
}

bool bq_offer_g(void *q, void *e)
{
	return bq_offer(static_cast<Bq *>(q), e);
}

CB_DEFINE_LOOPS(boost_q, Bq, bq_offer, b_poll<Bq>)

/* Unbounded use (issue 11's peers that grow): push, which takes a node
 * from the free-list or allocates one, from a queue built with none. */
struct BqU : Bq {
	BqU() : Bq(0) {}
};

void *bq_u_create(size_t capacity, size_t *usable)
{
	(void)capacity;
	void *mem = cb_alloc_aligned(sizeof(BqU));
	if (mem == nullptr)
		return nullptr;
	try {
		new (mem) BqU();
	} catch (...) {
		cb_free_aligned(mem);
		errno = ENOMEM;
		return nullptr;
	}
	*usable = SIZE_MAX;
	return mem;
}

inline bool bq_u_offer(BqU *q, void *e)
{
	return q->push(e);
}

bool bq_u_offer_g(void *q, void *e)
{
	return bq_u_offer(static_cast<BqU *>(q), e);
}

CB_DEFINE_LOOPS(boost_q_u, BqU, bq_u_offer, b_poll<BqU>)
#endif

} // namespace

extern "C" {
extern const cb_adapter cb_adapter_boost_spsc;

#ifndef CB_BOOST_QUEUE_DISABLED
extern const cb_adapter cb_adapter_boost_queue;
const cb_adapter cb_adapter_boost_queue = {
	.name = "boost:queue",
	.family = "boost",
	.desc = "Boost.Lockfree queue<void*> (C++), qCapacity nodes, "
		"bounded_push/pop",
	.contract = CB_MPMC,
	.kind = CB_KIND_PEER,
	.create = bq_create<Bq>,
	.destroy = bq_destroy<Bq>,
	.offer = bq_offer_g,
	.poll = b_poll_g<Bq>,
	.flush = nullptr,
	.loops = &boost_q_loops,
	.weak_order = nullptr,
	.variant = false,
	.put = nullptr,
	.take_until = nullptr,
	.vloops = nullptr,
};

extern const cb_adapter cb_adapter_boost_queue_u;
const cb_adapter cb_adapter_boost_queue_u = {
	.name = "boost:queue_unbounded",
	.family = "boost",
	.desc = "Boost.Lockfree queue<void*> (C++), push (allocates a node "
		"when its free-list is empty)/pop, built with none",
	.contract = CB_MPMC,
	.kind = CB_KIND_PEER,
	.create = bq_u_create,
	.destroy = bq_destroy<BqU>,
	.offer = bq_u_offer_g,
	.poll = b_poll_g<BqU>,
	.flush = nullptr,
	.loops = &boost_q_u_loops,
	.weak_order = nullptr,
	.variant = true,
	.put = nullptr,
	.take_until = nullptr,
	.vloops = nullptr,
};
#endif

const cb_adapter cb_adapter_boost_spsc = {
	.name = "boost:spsc_queue",
	.family = "boost",
	.desc = "Boost.Lockfree spsc_queue<void*> (C++), run-time capacity, "
		"push/pop",
	.contract = CB_SPSC,
	.kind = CB_KIND_PEER,
	.create = bq_create<Bspsc>,
	.destroy = bq_destroy<Bspsc>,
	.offer = bspsc_offer_g,
	.poll = b_poll_g<Bspsc>,
	.flush = nullptr,
	.loops = &boost_spsc_loops,
	.weak_order = nullptr,
	.variant = false,
	.put = nullptr,
	.take_until = nullptr,
	.vloops = nullptr,
};
}
