/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq's adapters of QueueValueThroughput (workloads/vloops.h says what each
 * way of moving an element does):
 *
 *   conq:<pc>_value        the value ring's offer/poll: the element copied
 *                          in from the producer's buffer, out into the
 *                          consumer's
 *   conq:<pc>_value_claim  the same ring's claim/commit and
 *                          peek_claim/release: written and read in place
 *   conq:<pc>_array        (adapter_conq.c's, with the loops below) the
 *                          pointer ring moving the element's first word as
 *                          the pointer: "pointer only"
 *   conq:<pc>_array_pool   the pointer ring moving pointers to pooled
 *                          payloads of the element size
 *
 * for <pc> = spsc, mpsc, spmc, mpmc. The value rings' strict calls, as the
 * pointer adapters call the strict offer/poll.
 */
#include "conq/mpmc_array.h"
#include "conq/mpmc_value.h"
#include "conq/mpsc_array.h"
#include "conq/mpsc_value.h"
#include "conq/spmc_array.h"
#include "conq/spmc_value.h"
#include "conq/spsc_array.h"
#include "conq/spsc_value.h"
#include "vloops.h"

/* A value ring's operations, the element size first (vloops.h's calling
 * convention; the ring knows its own). */
#define CQV_OPS(FAM)                                                           \
	static void *FAM##_vnew(size_t n, size_t cap, unsigned np,             \
				size_t *usable)                                \
	{                                                                      \
		(void)np;                                                      \
		conq_##FAM *q = conq_##FAM##_create(n, cap);                   \
		if (q != NULL)                                                 \
			*usable = conq_##FAM##_capacity(q);                    \
		return q;                                                      \
	}                                                                      \
	static void FAM##_vfree(size_t n, void *q)                             \
	{                                                                      \
		(void)n;                                                       \
		conq_##FAM##_destroy((conq_##FAM *)q);                         \
	}                                                                      \
	static CONQ__ALWAYS_INLINE bool FAM##_voffer(size_t n, void *q,        \
						     const void *e)            \
	{                                                                      \
		(void)n;                                                       \
		return conq_##FAM##_offer((conq_##FAM *)q, e);                 \
	}                                                                      \
	static CONQ__ALWAYS_INLINE bool FAM##_vpoll(size_t n, void *q,         \
						    void *out)                 \
	{                                                                      \
		(void)n;                                                       \
		return conq_##FAM##_poll((conq_##FAM *)q, out);                \
	}                                                                      \
	static CONQ__ALWAYS_INLINE void *FAM##_vclaim(size_t n, void *q)       \
	{                                                                      \
		(void)n;                                                       \
		return conq_##FAM##_claim((conq_##FAM *)q);                    \
	}                                                                      \
	static CONQ__ALWAYS_INLINE bool FAM##_vcommit(size_t n, void *q,       \
						      void *s)                 \
	{                                                                      \
		(void)n;                                                       \
		return conq_##FAM##_commit((conq_##FAM *)q, s);                \
	}                                                                      \
	static CONQ__ALWAYS_INLINE const void *FAM##_vpeek(size_t n, void *q)  \
	{                                                                      \
		(void)n;                                                       \
		return conq_##FAM##_peek_claim((conq_##FAM *)q);               \
	}                                                                      \
	static CONQ__ALWAYS_INLINE bool FAM##_vrelease(size_t n, void *q,      \
						       const void *s)          \
	{                                                                      \
		(void)n;                                                       \
		return conq_##FAM##_release((conq_##FAM *)q, s);               \
	}                                                                      \
	CB_DEFINE_VALUE_LOOPS(FAM##_copy, CB_VHOW_COPY, FAM##_vnew,            \
			      FAM##_vfree, FAM##_voffer, FAM##_vpoll,          \
			      CB_VNONE, CB_VNONE)                              \
	CB_DEFINE_VALUE_LOOPS(FAM##_claim, CB_VHOW_CLAIM, FAM##_vnew,          \
			      FAM##_vfree, FAM##_vclaim, FAM##_vcommit,        \
			      FAM##_vpeek, FAM##_vrelease)

/* A pointer ring's operations, and its pool's create/destroy. */
#define CQA_OPS(FAM)                                                           \
	static void *FAM##_pnew(size_t n, size_t cap, unsigned np,             \
				size_t *usable)                                \
	{                                                                      \
		(void)n;                                                       \
		(void)np;                                                      \
		conq_##FAM *q = conq_##FAM##_create(cap);                      \
		if (q != NULL)                                                 \
			*usable = conq_##FAM##_capacity(q);                    \
		return q;                                                      \
	}                                                                      \
	static void FAM##_pfree(size_t n, void *q)                             \
	{                                                                      \
		(void)n;                                                       \
		conq_##FAM##_destroy((conq_##FAM *)q);                         \
	}                                                                      \
	static void *FAM##_poolnew(size_t n, size_t cap, unsigned np,          \
				   size_t *usable)                             \
	{                                                                      \
		conq_##FAM *q = conq_##FAM##_create(cap);                      \
		if (q == NULL)                                                 \
			return NULL;                                           \
		*usable = conq_##FAM##_capacity(q);                            \
		cb_vpool *p = cb_vpool_create(q, *usable, n, np);              \
		if (p == NULL)                                                 \
			conq_##FAM##_destroy(q);                               \
		return p;                                                      \
	}                                                                      \
	static void FAM##_poolfree(size_t n, void *p)                          \
	{                                                                      \
		(void)n;                                                       \
		if (p != NULL)                                                 \
			conq_##FAM##_destroy(                                  \
			    (conq_##FAM *)((cb_vpool *)p)->q);                 \
		cb_vpool_destroy((cb_vpool *)p);                               \
	}                                                                      \
	static CONQ__ALWAYS_INLINE bool FAM##_poffer(size_t n, void *q,        \
						     void *e)                  \
	{                                                                      \
		(void)n;                                                       \
		return conq_##FAM##_offer((conq_##FAM *)q, e);                 \
	}                                                                      \
	static CONQ__ALWAYS_INLINE void *FAM##_ppoll(size_t n, void *q)        \
	{                                                                      \
		(void)n;                                                       \
		return conq_##FAM##_poll((conq_##FAM *)q);                     \
	}                                                                      \
	CB_DEFINE_VALUE_LOOPS_EXTERN(                                          \
	    cb_vloops_conq_##FAM, FAM##_ptr, CB_VHOW_PTR, FAM##_pnew,          \
	    FAM##_pfree, FAM##_poffer, FAM##_ppoll, CB_VNONE, CB_VNONE)        \
	CB_DEFINE_VALUE_LOOPS(FAM##_pool, CB_VHOW_POOL, FAM##_poolnew,         \
			      FAM##_poolfree, FAM##_poffer, FAM##_ppoll,       \
			      CB_VNONE, CB_VNONE)

#define CQ_VADAPTER(ID, NAME, CONTRACT, DESC, VLOOPS)                          \
	extern const cb_adapter cb_adapter_conq_##ID;                          \
	const cb_adapter cb_adapter_conq_##ID = {                              \
	    .name = NAME,                                                      \
	    .family = "conq",                                                  \
	    .desc = DESC,                                                      \
	    .contract = CONTRACT,                                              \
	    .kind = CB_KIND_OWN,                                               \
	    .vloops = &VLOOPS,                                                 \
	};

/* The value ring of family PC_value and the pointer ring PC_array, as the
 * three adapters conq:PC_value, conq:PC_value_claim, conq:PC_array_pool
 * (conq:PC_array is adapter_conq.c's). */
#define CQ_VALUE_FAMILY(PC, CONTRACT, WHO)                                     \
	CQV_OPS(PC##_value)                                                    \
	CQA_OPS(PC##_array)                                                    \
	CQ_VADAPTER(PC##_value, "conq:" #PC "_value", CONTRACT,                \
		    "conq_" #PC "_value: " WHO " ring of fixed-size values, "  \
		    "offer/poll (copy in, copy out)",                          \
		    PC##_value_copy_vloops)                                    \
	CQ_VADAPTER(PC##_value_claim, "conq:" #PC "_value_claim", CONTRACT,    \
		    "conq_" #PC "_value, claim/commit and peek_claim/release " \
		    "(written and read in place)",                             \
		    PC##_value_claim_vloops)                                   \
	CQ_VADAPTER(PC##_array_pool, "conq:" #PC "_array_pool", CONTRACT,      \
		    "conq_" #PC "_array of pointers to pooled payloads of "    \
		    "elemSize bytes, given back by the consumer",              \
		    PC##_array_pool_vloops)

CQ_VALUE_FAMILY(spsc, CB_SPSC, "SPSC")
CQ_VALUE_FAMILY(mpsc, CB_MPSC, "MPSC")
CQ_VALUE_FAMILY(spmc, CB_SPMC, "SPMC")
CQ_VALUE_FAMILY(mpmc, CB_MPMC, "MPMC")

/* A harness test's queue (bench_harness): conq_spsc_value whose poll
 * copies out only the element's first 8 bytes, as a queue that does not
 * move the bytes would: the consumer's read of every word must catch it
 * (a "torn" violation, exit 1). A variant, run only when named; -l shows
 * it under --test-workloads. */
static CONQ__ALWAYS_INLINE bool first_word_vpoll(size_t n, void *q, void *out)
{
	conq_spsc_value *r = (conq_spsc_value *)q;
	const void *s = conq_spsc_value_peek_claim(r);
	if (s == NULL)
		return false;
	memcpy(out, s, n < 8 ? n : 8);
	return conq_spsc_value_release(r, s);
}
CB_DEFINE_VALUE_LOOPS(first_word, CB_VHOW_COPY, spsc_value_vnew,
		      spsc_value_vfree, spsc_value_voffer, first_word_vpoll,
		      CB_VNONE, CB_VNONE)

extern const cb_adapter cb_adapter_test_value_first_word;
const cb_adapter cb_adapter_test_value_first_word = {
    .name = "test:value_first_word",
    .family = "test",
    .desc = "harness test: conq_spsc_value whose poll copies out the "
	    "first 8 bytes only (must fail as torn)",
    .contract = CB_SPSC,
    .kind = CB_KIND_BASELINE,
    .variant = true,
    .vloops = &first_word_vloops,
};
