// SPDX-License-Identifier: BSD-2-Clause
// The public API used from C++17: the headers compile, the C symbols link
// (extern "C"), and the inline hot paths behave the same.
#include <conq/conq.h>
#include <conq/impl/testing.h>

#include <cerrno>
#include <cstdint>

#include "check.h"

namespace
{

void *as_elem(std::uintptr_t v)
{
	return reinterpret_cast<void *>(v);
}

std::uintptr_t as_val(const void *e)
{
	return reinterpret_cast<std::uintptr_t>(e);
}

} // namespace

int main()
{
	CHECK_TRUE(conq_version() != nullptr);
	conq_spsc_array *q = conq_spsc_array_create(3);
	if (!CHECK_NOT_NULL(q))
		return check_report();
	CHECK_EQ(conq_spsc_array_capacity(q), 4);
	for (std::uintptr_t i = 1; i <= 4; i++)
		CHECK_TRUE(conq_spsc_array_offer(q, as_elem(i)));
	CHECK_FALSE(conq_spsc_array_offer(q, as_elem(5)));
	errno = 0;
	CHECK_FALSE(conq_spsc_array_offer(q, nullptr));
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(conq_spsc_array_size(q), 4);
	CHECK_EQ(as_val(conq_spsc_array_peek(q)), 1);

	// drain and fill with captureless lambdas as the C callbacks.
	std::uintptr_t sum = 0;
	conq_consume_fn add = [](void *ctx, void *e) {
		*static_cast<std::uintptr_t *>(ctx) += as_val(e);
	};
	CHECK_EQ(conq_spsc_array_drain(q, add, &sum, 10), 4);
	CHECK_EQ(sum, 10);
	std::uintptr_t next = 100;
	conq_supply_fn supply = [](void *ctx) -> void * {
		return as_elem((*static_cast<std::uintptr_t *>(ctx))++);
	};
	CHECK_EQ(conq_spsc_array_fill(q, supply, &next, 10), 4);
	void *out[8];
	CHECK_EQ(conq_spsc_array_poll_burst(q, out, 8), 4);
	CHECK_EQ(as_val(out[0]), 100);
	CHECK_EQ(as_val(out[3]), 103);
	CHECK_TRUE(conq_spsc_array_is_empty(q));
	conq_spsc_array_destroy(q);

	// The test hooks link too.
	conq__test_fail_alloc_after(0);
	CHECK_NULL(conq_spsc_array_create(8));
	conq__test_fail_alloc_after(-1);

	// conq/refcount.h: the inline paths, and the C cold path and hook
	// (a captureless lambda) across the language boundary.
	conq_refcount rc;
	conq_refcount_init(&rc, 1);
	conq_refcount_retain(&rc);
	CHECK_TRUE(conq_refcount_try_retain(&rc));
	CHECK_EQ_I(conq_refcount_get(&rc), 3);
	CHECK_FALSE(conq_refcount_release(&rc));
	CHECK_FALSE(conq_refcount_release(&rc));
	CHECK_TRUE(conq_refcount_release(&rc));
	CHECK_FALSE(conq_refcount_try_retain(&rc));
	static int reports;
	conq_refcount_hook prev = conq_refcount_set_hook(
	    [](const conq_refcount *, conq_refcount_event) { reports++; });
	conq_refcount_release(&rc); // underflow: saturated, reported
	CHECK_EQ_I(conq_refcount_get(&rc), CONQ_REFCOUNT_SATURATED);
	CHECK_EQ(reports, 1);
	conq_refcount_set_hook(prev);
	return check_report();
}
