// SPDX-License-Identifier: BSD-2-Clause
/*
 * cameron314's moodycamel queues (C++, header-only), each in its
 * non-allocating mode so that it is bounded as every queue here is:
 *
 *   moodycamel:concurrentqueue  ConcurrentQueue<void *>, try_enqueue /
 *       try_dequeue without tokens (implicit producers, as a C caller
 *       would use it). Unbounded by design: built with ceil(qCapacity / 32)
 *       blocks of 32 slots, and try_enqueue never allocates, so it holds
 *       exactly that many elements (a partly consumed block is not reused
 *       until empty: offer may fail below that). Its traits raise the
 *       implicit producers' block index to 2^15 entries (so one producer
 *       can hold every block: qCapacity up to 2^20). Each producer has its
 *       own sub-queue: FIFO per producer with one consumer, but not
 *       linearizable across producers (weak_order: reorderings counted).
 *   moodycamel:readerwriterqueue  ReaderWriterQueue<void *> (SPSC),
 *       try_enqueue / try_dequeue: a chain of rings, built for qCapacity;
 *       holds max_capacity() (its block sizes round it up).
 *   moodycamel:blockingconcurrentqueue  BlockingConcurrentQueue<void *>
 *       (a variant, for QueueHandoff): the same queue with a counting
 *       semaphore (LightweightSemaphore: spins up to 10000 tries, then
 *       sem_timedwait) that every enqueue signals; enqueue (allocating) /
 *       try_dequeue, put = enqueue, take_until = wait_dequeue_timed.
 *
 * The queue object gets its own CB_PAD-aligned block (placement new), the
 * same loops (loops.h) as every other adapter, and C symbols.
 */
#include <concurrentqueue/blockingconcurrentqueue.h>
#include <concurrentqueue/concurrentqueue.h>
#include <readerwriterqueue/readerwriterqueue.h>

#include <cerrno>
#include <new>

#include "loops.h"

namespace {

struct CqTraits : moodycamel::ConcurrentQueueDefaultTraits {
	static const size_t IMPLICIT_INITIAL_INDEX_SIZE = (size_t)1 << 15;
};

using Cq = moodycamel::ConcurrentQueue<void *, CqTraits>;
using Rwq = moodycamel::ReaderWriterQueue<void *>;

constexpr size_t CQ_MAX_BLOCKS = CqTraits::IMPLICIT_INITIAL_INDEX_SIZE;

template <class Q> void *mc_place(size_t capacity)
{
	void *mem = cb_alloc_aligned(sizeof(Q));
	if (mem == nullptr)
		return nullptr;
	try {
		return new (mem) Q(capacity);
	} catch (...) {
		cb_free_aligned(mem);
		errno = ENOMEM;
		return nullptr;
	}
}

void *cq_create(size_t capacity, size_t *usable)
{
	const size_t bs = Cq::BLOCK_SIZE;
	size_t blocks = (capacity + bs - 1) / bs;
	if (capacity == 0 || blocks > CQ_MAX_BLOCKS) {
		errno = EINVAL;
		return nullptr;
	}
	void *q = mc_place<Cq>(capacity);
	if (q != nullptr)
		*usable = blocks * bs;
	return q;
}

void *rwq_create(size_t capacity, size_t *usable)
{
	if (capacity == 0 || capacity > (size_t)1 << 31) {
		errno = EINVAL;
		return nullptr;
	}
	Rwq *q = static_cast<Rwq *>(mc_place<Rwq>(capacity));
	if (q != nullptr)
		*usable = q->max_capacity();
	return q;
}

template <class Q> void mc_destroy(void *p)
{
	if (p == nullptr)
		return;
	static_cast<Q *>(p)->~Q();
	cb_free_aligned(p);
}

template <class Q> inline bool mc_offer(Q *q, void *e)
{
	return q->try_enqueue(e);
}

template <class Q> inline void *mc_poll(Q *q)
{
	void *e = nullptr;
	return q->try_dequeue(e) ? e : nullptr;
}

template <class Q> bool mc_offer_g(void *q, void *e)
{
	return mc_offer(static_cast<Q *>(q), e);
}

template <class Q> void *mc_poll_g(void *q)
{
	return mc_poll(static_cast<Q *>(q));
}

/* Unbounded use (issue 11's peers that grow): enqueue, which allocates a
 * block when the queue has no room, from a queue built small. */
struct CqU : Cq {
	CqU() : Cq() {}
};
struct RwqU : Rwq {
	RwqU() : Rwq(15) {}
};

template <class Q> void *mc_place_u(size_t capacity, size_t *usable)
{
	(void)capacity;
	void *mem = cb_alloc_aligned(sizeof(Q));
	if (mem == nullptr)
		return nullptr;
	try {
		Q *q = new (mem) Q();
		*usable = SIZE_MAX;
		return q;
	} catch (...) {
		cb_free_aligned(mem);
		errno = ENOMEM;
		return nullptr;
	}
}

template <class Q> inline bool mc_offer_u(Q *q, void *e)
{
	return q->enqueue(e);
}

template <class Q> bool mc_offer_u_g(void *q, void *e)
{
	return mc_offer_u(static_cast<Q *>(q), e);
}

/* BlockingConcurrentQueue, unbounded (enqueue), default-built. */
struct Bq : moodycamel::BlockingConcurrentQueue<void *, CqTraits> {
	Bq() : moodycamel::BlockingConcurrentQueue<void *, CqTraits>() {}
};

bool bq_put(void *q, void *e)
{
	return static_cast<Bq *>(q)->enqueue(e);
}

void *bq_take_until(void *q, int64_t deadline)
{
	int64_t left = deadline - (int64_t)cb_now_ns();
	void *e = nullptr;
	return static_cast<Bq *>(q)->wait_dequeue_timed(
		       e, left > 0 ? (left + 999) / 1000 : 0)
		       ? e
		       : nullptr;
}

CB_DEFINE_LOOPS(mc_cq, Cq, mc_offer<Cq>, mc_poll<Cq>)
CB_DEFINE_LOOPS(mc_bq, Bq, mc_offer_u<Bq>, mc_poll<Bq>)
CB_DEFINE_LOOPS(mc_cq_u, CqU, mc_offer_u<CqU>, mc_poll<CqU>)
CB_DEFINE_LOOPS(mc_rwq_u, RwqU, mc_offer_u<RwqU>, mc_poll<RwqU>)
CB_DEFINE_LOOPS(mc_rwq, Rwq, mc_offer<Rwq>, mc_poll<Rwq>)

} // namespace

extern "C" {
extern const cb_adapter cb_adapter_mc_cq;
extern const cb_adapter cb_adapter_mc_rwq;
extern const cb_adapter cb_adapter_mc_cq_u;
extern const cb_adapter cb_adapter_mc_rwq_u;
extern const cb_adapter cb_adapter_mc_bq;

const cb_adapter cb_adapter_mc_cq = {
	.name = "moodycamel:concurrentqueue",
	.family = "moodycamel",
	.desc = "moodycamel ConcurrentQueue<void*> (C++), try_enqueue/"
		"try_dequeue, implicit producers; unbounded, held to "
		"ceil(qCapacity/32) preallocated blocks of 32",
	.contract = CB_MPMC,
	.kind = CB_KIND_PEER,
	.create = cq_create,
	.destroy = mc_destroy<Cq>,
	.offer = mc_offer_g<Cq>,
	.poll = mc_poll_g<Cq>,
	.flush = nullptr,
	.loops = &mc_cq_loops,
	.weak_order = "a sub-queue per producer: not linearizable across "
		      "producers",
	.variant = false,
	.put = nullptr,
	.take_until = nullptr,
	.vloops = nullptr,
};

const cb_adapter cb_adapter_mc_rwq = {
	.name = "moodycamel:readerwriterqueue",
	.family = "moodycamel",
	.desc = "moodycamel ReaderWriterQueue<void*> (C++), try_enqueue/"
		"try_dequeue; holds max_capacity() (>= qCapacity)",
	.contract = CB_SPSC,
	.kind = CB_KIND_PEER,
	.create = rwq_create,
	.destroy = mc_destroy<Rwq>,
	.offer = mc_offer_g<Rwq>,
	.poll = mc_poll_g<Rwq>,
	.flush = nullptr,
	.loops = &mc_rwq_loops,
	.weak_order = nullptr,
	.variant = false,
	.put = nullptr,
	.take_until = nullptr,
	.vloops = nullptr,
};

const cb_adapter cb_adapter_mc_cq_u = {
	.name = "moodycamel:concurrentqueue_unbounded",
	.family = "moodycamel",
	.desc = "moodycamel ConcurrentQueue<void*> (C++), enqueue (allocates "
		"blocks as it grows)/try_dequeue, built with the default size",
	.contract = CB_MPMC,
	.kind = CB_KIND_PEER,
	.create = mc_place_u<CqU>,
	.destroy = mc_destroy<CqU>,
	.offer = mc_offer_u_g<CqU>,
	.poll = mc_poll_g<CqU>,
	.flush = nullptr,
	.loops = &mc_cq_u_loops,
	.weak_order = "a sub-queue per producer: not linearizable across "
		      "producers",
	.variant = true,
	.put = nullptr,
	.take_until = nullptr,
	.vloops = nullptr,
};

const cb_adapter cb_adapter_mc_rwq_u = {
	.name = "moodycamel:readerwriterqueue_unbounded",
	.family = "moodycamel",
	.desc = "moodycamel ReaderWriterQueue<void*> (C++), enqueue (allocates "
		"a larger block when full)/try_dequeue, built for 15",
	.contract = CB_SPSC,
	.kind = CB_KIND_PEER,
	.create = mc_place_u<RwqU>,
	.destroy = mc_destroy<RwqU>,
	.offer = mc_offer_u_g<RwqU>,
	.poll = mc_poll_g<RwqU>,
	.flush = nullptr,
	.loops = &mc_rwq_u_loops,
	.weak_order = nullptr,
	.variant = true,
	.put = nullptr,
	.take_until = nullptr,
	.vloops = nullptr,
};

const cb_adapter cb_adapter_mc_bq = {
	.name = "moodycamel:blockingconcurrentqueue",
	.family = "moodycamel",
	.desc = "moodycamel BlockingConcurrentQueue<void*> (C++), enqueue/"
		"try_dequeue; put = enqueue, take_until = wait_dequeue_timed "
		"(a semaphore signalled per enqueue)",
	.contract = CB_MPMC,
	.kind = CB_KIND_PEER,
	.create = mc_place_u<Bq>,
	.destroy = mc_destroy<Bq>,
	.offer = mc_offer_u_g<Bq>,
	.poll = mc_poll_g<Bq>,
	.flush = nullptr,
	.loops = &mc_bq_loops,
	.weak_order = "a sub-queue per producer: not linearizable across "
		      "producers",
	.variant = true,
	.put = bq_put,
	.take_until = bq_take_until,
	.vloops = nullptr,
};
}
