// SPDX-License-Identifier: BSD-2-Clause
/*
 * oneTBB's concurrent_bounded_queue<void *> (C++; MPMC, ticket-ordered
 * micro-queues), set_capacity(qCapacity) and the non-blocking try_push /
 * try_pop (its push/pop block). Holds exactly qCapacity. The queue object
 * gets its own CB_PAD-aligned block (placement new), the same loops
 * (loops.h) as every other adapter, and C symbols.
 */
#include <tbb/concurrent_queue.h>

#include <cerrno>
#include <new>

#include "loops.h"

namespace {

using Tq = tbb::concurrent_bounded_queue<void *>;

void *tq_create(size_t capacity, size_t *usable)
{
	if (capacity == 0 || capacity > (size_t)1 << 31) {
		errno = EINVAL;
		return nullptr;
	}
	void *mem = cb_alloc_aligned(sizeof(Tq));
	if (mem == nullptr)
		return nullptr;
	Tq *q;
	try {
		q = new (mem) Tq();
		q->set_capacity((std::ptrdiff_t)capacity);
	} catch (...) {
		cb_free_aligned(mem);
		errno = ENOMEM;
		return nullptr;
	}
	*usable = capacity;
	return q;
}

void tq_destroy(void *p)
{
	if (p == nullptr)
		return;
	static_cast<Tq *>(p)->~Tq();
	cb_free_aligned(p);
}

inline bool tq_offer(Tq *q, void *e)
{
	return q->try_push(e);
}

inline void *tq_poll(Tq *q)
{
	void *e = nullptr;
	return q->try_pop(e) ? e : nullptr;
}

bool tq_offer_g(void *q, void *e)
{
	return tq_offer(static_cast<Tq *>(q), e);
}

void *tq_poll_g(void *q)
{
	return tq_poll(static_cast<Tq *>(q));
}

CB_DEFINE_LOOPS(tbb_bq, Tq, tq_offer, tq_poll)

} // namespace

extern "C" {
extern const cb_adapter cb_adapter_tbb_bounded;

const cb_adapter cb_adapter_tbb_bounded = {
	.name = "tbb:concurrent_bounded_queue",
	.family = "tbb",
	.desc = "oneTBB concurrent_bounded_queue<void*> (C++), set_capacity, "
		"try_push/try_pop",
	.contract = CB_MPMC,
	.kind = CB_KIND_PEER,
	.create = tq_create,
	.destroy = tq_destroy,
	.offer = tq_offer_g,
	.poll = tq_poll_g,
	.flush = nullptr,
	.loops = &tbb_bq_loops,
	.weak_order = nullptr,
	.variant = false,
	.put = nullptr,
	.take_until = nullptr,
	.vloops = nullptr,
};
}
