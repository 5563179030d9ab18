/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/tg_create.h - for the generic-verb tests (test_generic.c,
 * test_generic_cxx.cpp): tg_create_<family>() makes the scenario's queue of
 * every family of CONQ__FAMILIES, of requested capacity 5 (the growing
 * families with their smallest chunks, so that the scenario crosses chunk
 * boundaries). One line per family.
 */
#ifndef CONQ_TESTS_TG_CREATE_H
#define CONQ_TESTS_TG_CREATE_H

#include "conq/conq.h"

#define TG_CREATE(f, call)                                                     \
	static inline conq_##f *tg_create_##f(void)                            \
	{                                                                      \
		return call;                                                   \
	}

TG_CREATE(spsc_array, conq_spsc_array_create(5))
TG_CREATE(mpsc_array, conq_mpsc_array_create(5))
TG_CREATE(spmc_array, conq_spmc_array_create(5))
TG_CREATE(mpmc_array, conq_mpmc_array_create(5))
TG_CREATE(spsc_chunked, conq_spsc_chunked_create(2, 5))
TG_CREATE(spsc_growable, conq_spsc_growable_create(2, 5))
TG_CREATE(spsc_unbounded, conq_spsc_unbounded_create(2))
TG_CREATE(spsc_linked, conq_spsc_linked_create())
TG_CREATE(mpsc_linked, conq_mpsc_linked_create())
TG_CREATE(mpsc_chunked, conq_mpsc_chunked_create(2, 5))
TG_CREATE(mpsc_growable, conq_mpsc_growable_create(2, 5))
TG_CREATE(mpsc_unbounded, conq_mpsc_unbounded_create(2))
TG_CREATE(mpsc_xadd, conq_mpsc_xadd_create(2))
TG_CREATE(mpmc_xadd, conq_mpmc_xadd_create(2))

#undef TG_CREATE

#endif
