/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/conq.h - the umbrella header: every queue family, the version, and
 * one spelling for every family's operations.
 *
 * The generic verbs pick the family's function from the queue's type at
 * compile time (C11 _Generic; overloaded inline functions in C++), so
 *
 *   conq_mpsc_array *q = conq_mpsc_array_create(1024);
 *   conq_offer(q, e);          // conq_mpsc_array_offer(q, e)
 *   void *x = conq_poll(q);    // conq_mpsc_array_poll(q)
 *   conq_destroy(q);           // conq_mpsc_array_destroy(q)
 *
 * cost exactly what the family's own call costs. The verbs, with the
 * arguments of conq_<family>_<verb> after the queue:
 *
 *   conq_offer(q, e)           conq_relaxed_offer(q, e)
 *   conq_poll(q)               conq_relaxed_poll(q)
 *   conq_peek(q)               conq_relaxed_peek(q)
 *   conq_size(q)               conq_is_empty(q)        conq_capacity(q)
 *   conq_drain(q, fn, ctx, limit)      conq_fill(q, fn, ctx, limit)
 *   conq_offer_bulk(q, es, n)  conq_offer_burst(q, es, n)
 *   conq_poll_burst(q, out, n) conq_destroy(q)
 *   conq_put(q, e)             conq_put_until(q, e, deadline)
 *   conq_take(q)               conq_take_until(q, deadline)
 *
 * and, from conq/wait.h (a wait strategy and an exit condition):
 *
 *   conq_drain_wait(q, fn, ctx, batch, wait, exit_fn, exit_ctx)
 *   conq_fill_wait(q, fn, ctx, batch, wait, exit_fn, exit_ctx)
 *
 * The value rings (conq_<pc>_value) move bytes, not `void *`, so their
 * offer/poll take a pointer to the element and to the place to poll into;
 * they keep their family's names and are not in the generic verbs.
 *
 * size, is_empty and capacity also take a pointer to a const queue. Any other
 * type (void *, NULL, a const queue for the others) does not compile. Family-
 * specific operations (conq_mpsc_array_fail_fast_offer, ...) and the
 * constructors keep their family's name. In C, q is not evaluated by the
 * selection, only by the call: each argument is evaluated once.
 */
#ifndef CONQ_CONQ_H
#define CONQ_CONQ_H

#include "conq/version.h"
#include "conq/common.h"
#include "conq/eventcount.h"
#include "conq/refcount.h"
#include "conq/pool.h"
#include "conq/uuid.h"
#include "conq/shm.h"
#include "conq/spsc_array.h"
#include "conq/mpsc_array.h"
#include "conq/spmc_array.h"
#include "conq/mpmc_array.h"
#include "conq/spsc_chunked.h"
#include "conq/spsc_growable.h"
#include "conq/spsc_unbounded.h"
#include "conq/spsc_linked.h"
#include "conq/mpsc_linked.h"
#include "conq/mpsc_intrusive.h"
#include "conq/mpsc_chunked.h"
#include "conq/mpsc_growable.h"
#include "conq/mpsc_unbounded.h"
#include "conq/mpsc_xadd.h"
#include "conq/mpmc_xadd.h"
#include "conq/spsc_value.h"
#include "conq/mpsc_value.h"
#include "conq/spmc_value.h"
#include "conq/mpmc_value.h"
#include "conq/mpsc_bytes.h"

/*
 * The families with the common API, in one list: conq_<family> is the queue
 * type and conq_<family>_<verb> its functions. Adding a family to the generic
 * verbs (C and C++) is one entry here, after including its header above.
 * At most 16 entries. conq_mpsc_intrusive is not in it: its API moves
 * caller-embedded nodes (push/pop), not `void *` elements.
 */
#define CONQ__FAMILY_LIST                                                      \
	spsc_array, mpsc_array, spmc_array, mpmc_array, spsc_chunked,         \
	    spsc_growable, spsc_unbounded, spsc_linked, mpsc_linked,           \
	    mpsc_chunked, mpsc_growable, mpsc_unbounded, mpsc_xadd, mpmc_xadd

/*
 * CONQ__FAMILIES(X): X(family) for each family of the list, e.g. to write a
 * test or wrapper per family. The generic verbs work inside it (they iterate
 * the list with their own macros, CONQ__GMAP*); CONQ__FAMILIES itself does
 * not nest, as no X-macro does.
 */
#define CONQ__FAMILIES(X) CONQ__FMAP(X, CONQ__FAMILY_LIST)

/* The list's length (1 to 16), and X applied to each entry. Two chains of
 * macros, so that the generic verbs expand inside CONQ__FAMILIES(X). */
#define CONQ__NARG(...)                                                        \
	CONQ__NARG_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, \
		    3, 2, 1, 0)
#define CONQ__NARG_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13,    \
		    a14, a15, a16, n, ...)                                     \
	n
#define CONQ__FCAT(a, b)    CONQ__FCAT_(a, b)
#define CONQ__FCAT_(a, b)   a##b
#define CONQ__FMAP(X, list) CONQ__FMAP__(X, list)
#define CONQ__FMAP__(X, ...)                                                   \
	CONQ__FCAT(CONQ__FMAP_, CONQ__NARG(__VA_ARGS__))(X, __VA_ARGS__)
#define CONQ__GCAT(a, b)    CONQ__GCAT_(a, b)
#define CONQ__GCAT_(a, b)   a##b
#define CONQ__GMAP(X, list) CONQ__GMAP__(X, list)
#define CONQ__GMAP__(X, ...)                                                   \
	CONQ__GCAT(CONQ__GMAP_, CONQ__NARG(__VA_ARGS__))(X, __VA_ARGS__)
#define CONQ__FMAP_1(X, a)	 X(a)
#define CONQ__FMAP_2(X, a, ...)	 X(a) CONQ__FMAP_1(X, __VA_ARGS__)
#define CONQ__FMAP_3(X, a, ...)	 X(a) CONQ__FMAP_2(X, __VA_ARGS__)
#define CONQ__FMAP_4(X, a, ...)	 X(a) CONQ__FMAP_3(X, __VA_ARGS__)
#define CONQ__FMAP_5(X, a, ...)	 X(a) CONQ__FMAP_4(X, __VA_ARGS__)
#define CONQ__FMAP_6(X, a, ...)	 X(a) CONQ__FMAP_5(X, __VA_ARGS__)
#define CONQ__FMAP_7(X, a, ...)	 X(a) CONQ__FMAP_6(X, __VA_ARGS__)
#define CONQ__FMAP_8(X, a, ...)	 X(a) CONQ__FMAP_7(X, __VA_ARGS__)
#define CONQ__FMAP_9(X, a, ...)	 X(a) CONQ__FMAP_8(X, __VA_ARGS__)
#define CONQ__FMAP_10(X, a, ...) X(a) CONQ__FMAP_9(X, __VA_ARGS__)
#define CONQ__FMAP_11(X, a, ...) X(a) CONQ__FMAP_10(X, __VA_ARGS__)
#define CONQ__FMAP_12(X, a, ...) X(a) CONQ__FMAP_11(X, __VA_ARGS__)
#define CONQ__FMAP_13(X, a, ...) X(a) CONQ__FMAP_12(X, __VA_ARGS__)
#define CONQ__FMAP_14(X, a, ...) X(a) CONQ__FMAP_13(X, __VA_ARGS__)
#define CONQ__FMAP_15(X, a, ...) X(a) CONQ__FMAP_14(X, __VA_ARGS__)
#define CONQ__FMAP_16(X, a, ...) X(a) CONQ__FMAP_15(X, __VA_ARGS__)
#define CONQ__GMAP_1(X, a)	 X(a)
#define CONQ__GMAP_2(X, a, ...)	 X(a) CONQ__GMAP_1(X, __VA_ARGS__)
#define CONQ__GMAP_3(X, a, ...)	 X(a) CONQ__GMAP_2(X, __VA_ARGS__)
#define CONQ__GMAP_4(X, a, ...)	 X(a) CONQ__GMAP_3(X, __VA_ARGS__)
#define CONQ__GMAP_5(X, a, ...)	 X(a) CONQ__GMAP_4(X, __VA_ARGS__)
#define CONQ__GMAP_6(X, a, ...)	 X(a) CONQ__GMAP_5(X, __VA_ARGS__)
#define CONQ__GMAP_7(X, a, ...)	 X(a) CONQ__GMAP_6(X, __VA_ARGS__)
#define CONQ__GMAP_8(X, a, ...)	 X(a) CONQ__GMAP_7(X, __VA_ARGS__)
#define CONQ__GMAP_9(X, a, ...)	 X(a) CONQ__GMAP_8(X, __VA_ARGS__)
#define CONQ__GMAP_10(X, a, ...) X(a) CONQ__GMAP_9(X, __VA_ARGS__)
#define CONQ__GMAP_11(X, a, ...) X(a) CONQ__GMAP_10(X, __VA_ARGS__)
#define CONQ__GMAP_12(X, a, ...) X(a) CONQ__GMAP_11(X, __VA_ARGS__)
#define CONQ__GMAP_13(X, a, ...) X(a) CONQ__GMAP_12(X, __VA_ARGS__)
#define CONQ__GMAP_14(X, a, ...) X(a) CONQ__GMAP_13(X, __VA_ARGS__)
#define CONQ__GMAP_15(X, a, ...) X(a) CONQ__GMAP_14(X, __VA_ARGS__)
#define CONQ__GMAP_16(X, a, ...) X(a) CONQ__GMAP_15(X, __VA_ARGS__)

#ifndef __cplusplus

/* ", conq_<f> *: conq_<f>_<verb>" for every family: the association list of a
 * _Generic whose controlling expression comes first. No default: any other
 * type is a compile-time error. */
#define CONQ__GSEL(f, verb) , conq_##f * : conq_##f##_##verb
#define CONQ__GSEL_CONST(f, verb)                                              \
	, conq_##f * : conq_##f##_##verb, const conq_##f * : conq_##f##_##verb
#define CONQ__G_offer(f)	 CONQ__GSEL(f, offer)
#define CONQ__G_poll(f)		 CONQ__GSEL(f, poll)
#define CONQ__G_peek(f)		 CONQ__GSEL(f, peek)
#define CONQ__G_relaxed_offer(f) CONQ__GSEL(f, relaxed_offer)
#define CONQ__G_relaxed_poll(f)	 CONQ__GSEL(f, relaxed_poll)
#define CONQ__G_relaxed_peek(f)	 CONQ__GSEL(f, relaxed_peek)
#define CONQ__G_drain(f)	 CONQ__GSEL(f, drain)
#define CONQ__G_fill(f)		 CONQ__GSEL(f, fill)
#define CONQ__G_offer_bulk(f)	 CONQ__GSEL(f, offer_bulk)
#define CONQ__G_offer_burst(f)	 CONQ__GSEL(f, offer_burst)
#define CONQ__G_poll_burst(f)	 CONQ__GSEL(f, poll_burst)
#define CONQ__G_destroy(f)	 CONQ__GSEL(f, destroy)
#define CONQ__G_put(f)		 CONQ__GSEL(f, put)
#define CONQ__G_put_until(f)	 CONQ__GSEL(f, put_until)
#define CONQ__G_take(f)		 CONQ__GSEL(f, take)
#define CONQ__G_take_until(f)	 CONQ__GSEL(f, take_until)
#define CONQ__G_size(f)		 CONQ__GSEL_CONST(f, size)
#define CONQ__G_is_empty(f)	 CONQ__GSEL_CONST(f, is_empty)
#define CONQ__G_capacity(f)	 CONQ__GSEL_CONST(f, capacity)

/* The function conq_<family of q>_<verb>. */
#define CONQ__GENERIC(q, verb)                                                 \
	_Generic((q)CONQ__GMAP(CONQ__G_##verb, CONQ__FAMILY_LIST))

#define conq_offer(q, e)	      CONQ__GENERIC(q, offer)(q, e)
#define conq_poll(q)		      CONQ__GENERIC(q, poll)(q)
#define conq_peek(q)		      CONQ__GENERIC(q, peek)(q)
#define conq_relaxed_offer(q, e)      CONQ__GENERIC(q, relaxed_offer)(q, e)
#define conq_relaxed_poll(q)	      CONQ__GENERIC(q, relaxed_poll)(q)
#define conq_relaxed_peek(q)	      CONQ__GENERIC(q, relaxed_peek)(q)
#define conq_size(q)		      CONQ__GENERIC(q, size)(q)
#define conq_is_empty(q)	      CONQ__GENERIC(q, is_empty)(q)
#define conq_capacity(q)	      CONQ__GENERIC(q, capacity)(q)
#define conq_drain(q, fn, ctx, limit) CONQ__GENERIC(q, drain)(q, fn, ctx, limit)
#define conq_fill(q, fn, ctx, limit)  CONQ__GENERIC(q, fill)(q, fn, ctx, limit)
#define conq_offer_bulk(q, es, n)     CONQ__GENERIC(q, offer_bulk)(q, es, n)
#define conq_offer_burst(q, es, n)    CONQ__GENERIC(q, offer_burst)(q, es, n)
#define conq_poll_burst(q, out, n)    CONQ__GENERIC(q, poll_burst)(q, out, n)
#define conq_destroy(q)		      CONQ__GENERIC(q, destroy)(q)
#define conq_put(q, e)		      CONQ__GENERIC(q, put)(q, e)
#define conq_put_until(q, e, dl)      CONQ__GENERIC(q, put_until)(q, e, dl)
#define conq_take(q)		      CONQ__GENERIC(q, take)(q)
#define conq_take_until(q, dl)	      CONQ__GENERIC(q, take_until)(q, dl)

#else /* __cplusplus: no _Generic; the same spelling as overloads. */

#define CONQ__CXX_VERBS(f)                                                     \
	inline bool conq_offer(conq_##f *q, void *e)                           \
	{                                                                      \
		return conq_##f##_offer(q, e);                                 \
	}                                                                      \
	inline void *conq_poll(conq_##f *q)                                    \
	{                                                                      \
		return conq_##f##_poll(q);                                     \
	}                                                                      \
	inline void *conq_peek(conq_##f *q)                                    \
	{                                                                      \
		return conq_##f##_peek(q);                                     \
	}                                                                      \
	inline bool conq_relaxed_offer(conq_##f *q, void *e)                   \
	{                                                                      \
		return conq_##f##_relaxed_offer(q, e);                         \
	}                                                                      \
	inline void *conq_relaxed_poll(conq_##f *q)                            \
	{                                                                      \
		return conq_##f##_relaxed_poll(q);                             \
	}                                                                      \
	inline void *conq_relaxed_peek(conq_##f *q)                            \
	{                                                                      \
		return conq_##f##_relaxed_peek(q);                             \
	}                                                                      \
	inline size_t conq_size(const conq_##f *q)                             \
	{                                                                      \
		return conq_##f##_size(q);                                     \
	}                                                                      \
	inline bool conq_is_empty(const conq_##f *q)                           \
	{                                                                      \
		return conq_##f##_is_empty(q);                                 \
	}                                                                      \
	inline size_t conq_capacity(const conq_##f *q)                         \
	{                                                                      \
		return conq_##f##_capacity(q);                                 \
	}                                                                      \
	inline size_t conq_drain(conq_##f *q, conq_consume_fn fn, void *ctx,   \
				 size_t limit)                                 \
	{                                                                      \
		return conq_##f##_drain(q, fn, ctx, limit);                    \
	}                                                                      \
	inline size_t conq_fill(conq_##f *q, conq_supply_fn fn, void *ctx,     \
				size_t limit)                                  \
	{                                                                      \
		return conq_##f##_fill(q, fn, ctx, limit);                     \
	}                                                                      \
	inline size_t conq_offer_bulk(conq_##f *q, void *const *es, size_t n)  \
	{                                                                      \
		return conq_##f##_offer_bulk(q, es, n);                        \
	}                                                                      \
	inline size_t conq_offer_burst(conq_##f *q, void *const *es, size_t n) \
	{                                                                      \
		return conq_##f##_offer_burst(q, es, n);                       \
	}                                                                      \
	inline size_t conq_poll_burst(conq_##f *q, void **out, size_t n)       \
	{                                                                      \
		return conq_##f##_poll_burst(q, out, n);                       \
	}                                                                      \
	inline void conq_destroy(conq_##f *q)                                  \
	{                                                                      \
		conq_##f##_destroy(q);                                         \
	}                                                                      \
	inline bool conq_put(conq_##f *q, void *e)                             \
	{                                                                      \
		return conq_##f##_put(q, e);                                   \
	}                                                                      \
	inline bool conq_put_until(conq_##f *q, void *e, int64_t deadline)     \
	{                                                                      \
		return conq_##f##_put_until(q, e, deadline);                   \
	}                                                                      \
	inline void *conq_take(conq_##f *q)                                    \
	{                                                                      \
		return conq_##f##_take(q);                                     \
	}                                                                      \
	inline void *conq_take_until(conq_##f *q, int64_t deadline)            \
	{                                                                      \
		return conq_##f##_take_until(q, deadline);                     \
	}

/* extern "C++": overloads, even if conq.h is included inside extern "C". */
extern "C++" {
CONQ__FAMILIES(CONQ__CXX_VERBS)
}

#undef CONQ__CXX_VERBS

#endif /* __cplusplus */

#endif /* CONQ_CONQ_H */
