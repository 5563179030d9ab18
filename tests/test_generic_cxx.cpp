// SPDX-License-Identifier: BSD-2-Clause
// The generic verbs of conq/conq.h from C++17, where they are overloaded
// inline functions: every verb on every family of CONQ__FAMILIES, through a
// `T *` and, where the function takes one, a `const T *`; and (built with
// -DTG_WRONG_TYPE=N, a compile-only ctest entry that must fail) a wrong type
// does not compile.
#include <conq/conq.h>

#include <cerrno>
#include <cstdint>

#include "check.h"
#include "tg_create.h"

#if defined(TG_WRONG_TYPE) && TG_WRONG_TYPE == 1
void tg_wrong(int *p);
void tg_wrong(int *p)
{
	(void)conq_size(p); // not a queue
}
#elif defined(TG_WRONG_TYPE) && TG_WRONG_TYPE == 2
void tg_wrong(const conq_spsc_array *q);
void tg_wrong(const conq_spsc_array *q)
{
	(void)conq_poll(q); // poll needs a non-const queue
}
#elif defined(TG_WRONG_TYPE) && TG_WRONG_TYPE == 3
void tg_wrong(void *q);
void tg_wrong(void *q)
{
	conq_destroy(q); // void *: which family?
}
#endif

namespace
{

void *elem(std::uintptr_t k)
{
	return reinterpret_cast<void *>(k);
}

std::uintptr_t val(const void *e)
{
	return reinterpret_cast<std::uintptr_t>(e);
}

struct sink {
	std::uintptr_t got[16];
	std::size_t n;
};

struct source {
	std::uintptr_t next;
	std::size_t calls;
};

// The scenario of test_generic.c, once for every queue type.
template <class Q> void run(const char *name, Q *q)
{
	check_context("%s (C++)", name);
	if (!CHECK_NOT_NULL(q))
		return;
	const Q *cq = q;
	// Unbounded: the same steps, minus the checks that the queue is full.
	const bool bnd = conq_capacity(cq) != CONQ_UNBOUNDED;
	CHECK_EQ(conq_capacity(q), bnd ? 8 : CONQ_UNBOUNDED);
	CHECK_EQ(conq_capacity(cq), bnd ? 8 : CONQ_UNBOUNDED);
	CHECK_TRUE(conq_is_empty(q));
	CHECK_TRUE(conq_is_empty(cq));
	CHECK_EQ(conq_size(q), 0);
	CHECK_EQ(conq_size(cq), 0);
	CHECK_NULL(conq_poll(q));
	CHECK_NULL(conq_peek(q));
	CHECK_NULL(conq_relaxed_poll(q));
	CHECK_NULL(conq_relaxed_peek(q));
	errno = 0;
	CHECK_FALSE(conq_offer(q, nullptr));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_FALSE(conq_relaxed_offer(q, nullptr));
	CHECK_EQ(errno, EINVAL);
	CHECK_TRUE(conq_offer(q, elem(1)));
	CHECK_TRUE(conq_relaxed_offer(q, elem(2)));
	CHECK_EQ(conq_size(cq), 2);
	CHECK_FALSE(conq_is_empty(cq));
	CHECK_EQ(val(conq_peek(q)), 1);
	CHECK_EQ(val(conq_relaxed_peek(q)), 1);
	CHECK_EQ(val(conq_poll(q)), 1);
	CHECK_EQ(val(conq_relaxed_poll(q)), 2);
	CHECK_TRUE(conq_is_empty(q));
	void *es[6] = {elem(3), elem(4), elem(5), elem(6), elem(7), elem(8)};
	CHECK_EQ(conq_offer_bulk(q, es, 3), 3);
	if (bnd)
		CHECK_EQ(conq_offer_bulk(q, es, 6), 0); // 5 free
	void *more[6] = {elem(6), elem(7),  elem(8),
			 elem(9), elem(10), elem(11)};
	CHECK_EQ(conq_offer_burst(q, more, bnd ? 6 : 5), 5);
	CHECK_EQ(conq_size(q), 8);
	if (bnd)
		CHECK_FALSE(conq_offer(q, elem(99)));
	void *out[4] = {nullptr, nullptr, nullptr, nullptr};
	CHECK_EQ(conq_poll_burst(q, out, 2), 2);
	CHECK_EQ(val(out[0]), 3);
	CHECK_EQ(val(out[1]), 4);
	// Captureless lambdas as the C callbacks.
	sink sk{};
	auto sink_fn = [](void *ctx, void *e) {
		sink *s = static_cast<sink *>(ctx);
		if (s->n < 16)
			s->got[s->n] = val(e);
		s->n++;
	};
	CHECK_EQ(conq_drain(q, sink_fn, &sk, 3), 3);
	CHECK_EQ(sk.n, 3);
	CHECK_EQ(sk.got[0], 5);
	CHECK_EQ(sk.got[2], 7);
	source src{100, 0};
	auto source_fn = [](void *ctx) -> void * {
		source *s = static_cast<source *>(ctx);
		s->calls++;
		return elem(s->next++);
	};
	CHECK_EQ(conq_fill(q, source_fn, &src, bnd ? 100 : 5), 5);
	CHECK_EQ(src.calls, 5);
	CHECK_EQ(conq_size(cq), 8);
	sk.n = 0;
	CHECK_EQ(conq_drain(q, sink_fn, &sk, SIZE_MAX), 8);
	CHECK_EQ(sk.got[0], 8);
	CHECK_EQ(sk.got[2], 10);
	CHECK_EQ(sk.got[3], 100);
	CHECK_EQ(sk.got[7], 104);
	CHECK_TRUE(conq_is_empty(cq));
	// The blocking verbs.
	errno = 0;
	CHECK_NULL(conq_take_until(q, conq_now_ns()));
	CHECK_EQ(errno, ETIMEDOUT);
	CHECK_TRUE(conq_put(q, elem(200)));
	CHECK_TRUE(conq_put_until(q, elem(201), CONQ_NO_DEADLINE));
	CHECK_EQ(val(conq_take(q)), 200);
	CHECK_EQ(val(conq_take_until(q, conq_now_ns())), 201);
	conq_destroy(q);
}

} // namespace

int main()
{
#define TG_RUN(f) run(#f, tg_create_##f());
	CONQ__FAMILIES(TG_RUN)
#undef TG_RUN
	return check_report();
}
