// SPDX-License-Identifier: BSD-2-Clause
// conq/wait.h from C++17, where conq_drain_wait and conq_fill_wait are
// overloads: both on every family of CONQ__FAMILIES (drain_wait also on
// conq_mpsc_intrusive), with a strategy of each kind, single-threaded: what
// is queued comes out in order, exit stops after the batch it follows, a
// PARK with nothing to do returns once exit says so, bad input is EINVAL.
#include <conq/wait.h>

#include <cerrno>
#include <cstdint>

#include "check.h"
#include "tg_create.h"

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
	std::uintptr_t next; // the value expected next
	std::size_t n;
	std::size_t bad;
};

void sink_fn(void *ctx, void *e)
{
	sink *s = static_cast<sink *>(ctx);
	if (val(e) != s->next)
		s->bad++;
	s->next++;
	s->n++;
}

struct source {
	std::uintptr_t next;
	std::size_t calls;
};

void *source_fn(void *ctx)
{
	source *s = static_cast<source *>(ctx);
	s->calls++;
	return elem(s->next++);
}

// true from the n-th call on.
struct nth {
	unsigned calls;
	unsigned n;
};

bool exit_nth(void *ctx)
{
	nth *x = static_cast<nth *>(ctx);
	return ++x->calls >= x->n;
}

conq_wait strategy(int i)
{
	switch (i) {
	case 0:
		return conq_wait_spin();
	case 1:
		return conq_wait_pause();
	case 2:
		return conq_wait_yield();
	case 3:
		return conq_wait_backoff(1, 1, 1000, 100000);
	default:
		return conq_wait_park(1000000);
	}
}

template <class Q> void run(const char *name, Q *q)
{
	check_context("%s", name);
	if (!CHECK_NOT_NULL(q))
		return;
	for (int i = 0; i < 5; i++) {
		conq_wait w = strategy(i);
		for (std::uintptr_t k = 1; k <= 5; k++)
			CHECK_TRUE(conq_offer(q, elem(k)));
		// Exit on the 2nd check: one batch of 3, in order.
		sink s = {1, 0, 0};
		nth x = {0, 2};
		CHECK_EQ(conq_drain_wait(q, sink_fn, &s, 3, &w, exit_nth, &x),
			 3);
		// Then the rest, and (the 5th check) past two idle steps on
		// the empty queue: PARK parks twice, 1 ms each.
		x = nth{0, 5};
		CHECK_EQ(conq_drain_wait(q, sink_fn, &s, 64, &w, exit_nth, &x),
			 2);
		CHECK_EQ(s.n, 5);
		CHECK_EQ(s.bad, 0);
		// fill: one batch of 4 from the supplier, then drained.
		source src = {100, 0};
		x = nth{0, 2};
		CHECK_EQ(
		    conq_fill_wait(q, source_fn, &src, 4, &w, exit_nth, &x), 4);
		CHECK_EQ(src.calls, 4);
		sink t = {100, 0, 0};
		x = nth{0, 2};
		CHECK_EQ(conq_drain_wait(q, sink_fn, &t, 64, &w, exit_nth, &x),
			 4);
		CHECK_EQ(t.bad, 0);
	}
	conq_wait bad = conq_wait_sleep(2, 1);
	sink s = {1, 0, 0};
	nth x = {0, 1};
	errno = 0;
	CHECK_EQ(conq_drain_wait(q, sink_fn, &s, 1, &bad, exit_nth, &x), 0);
	CHECK_EQ(errno, EINVAL);
	source src = {1, 0};
	errno = 0;
	CHECK_EQ(conq_fill_wait(q, source_fn, &src, 1, &bad, exit_nth, &x), 0);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(src.calls, 0);
	conq_destroy(q);
}

struct node {
	conq_mpsc_intrusive_node link; // first: a node is its struct node
	std::uintptr_t v;
};

void node_fn(void *ctx, void *n)
{
	sink_fn(ctx, elem(static_cast<node *>(n)->v));
}

void run_intrusive()
{
	check_context("mpsc_intrusive");
	conq_mpsc_intrusive *q = conq_mpsc_intrusive_create();
	if (!CHECK_NOT_NULL(q))
		return;
	node nodes[5];
	for (int i = 0; i < 5; i++) {
		conq_wait w = strategy(i);
		for (std::uintptr_t k = 0; k < 5; k++) {
			nodes[k].v = k + 1;
			conq_mpsc_intrusive_push(q, &nodes[k].link);
		}
		sink s = {1, 0, 0};
		nth x = {0, 2};
		CHECK_EQ(conq_drain_wait(q, node_fn, &s, 3, &w, exit_nth, &x),
			 3);
		x = nth{0, 4};
		CHECK_EQ(conq_drain_wait(q, node_fn, &s, 64, &w, exit_nth, &x),
			 2);
		CHECK_EQ(s.n, 5);
		CHECK_EQ(s.bad, 0);
	}
	conq_mpsc_intrusive_destroy(q);
}

} // namespace

#define TW_RUN(f) run(#f, tg_create_##f());

int main()
{
	CONQ__FAMILIES(TW_RUN)
	run_intrusive();
	return check_report();
}
