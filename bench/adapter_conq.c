/* SPDX-License-Identifier: BSD-2-Clause */
/* conq's own queues. The loops call the header's inline functions. */
#include "conq/spsc_array.h"
#include "loops.h"

static void *spsc_array_create(size_t capacity, size_t *usable)
{
	conq_spsc_array *q = conq_spsc_array_create(capacity);
	if (q != NULL)
		*usable = conq_spsc_array_capacity(q);
	return q;
}

static void spsc_array_destroy(void *q)
{
	conq_spsc_array_destroy((conq_spsc_array *)q);
}

static bool spsc_array_offer(void *q, void *e)
{
	return conq_spsc_array_offer((conq_spsc_array *)q, e);
}

static void *spsc_array_poll(void *q)
{
	return conq_spsc_array_poll((conq_spsc_array *)q);
}

CB_DEFINE_LOOPS(conq_spsc_array, conq_spsc_array, conq_spsc_array_offer,
		conq_spsc_array_poll)

extern const cb_adapter cb_adapter_conq_spsc_array;
const cb_adapter cb_adapter_conq_spsc_array = {
	.name = "conq:spsc_array",
	.family = "conq",
	.desc = "conq_spsc_array: bounded SPSC ring of void* (offer/poll)",
	.contracts = CB_SPSC,
	.kind = CB_KIND_OWN,
	.create = spsc_array_create,
	.destroy = spsc_array_destroy,
	.offer = spsc_array_offer,
	.poll = spsc_array_poll,
	.flush = NULL,
	.loops = &conq_spsc_array_loops,
};
