/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * DPDK's rte_ring (DPDK >= 20.02 for RTS/HTS), on caller memory: the ring is
 * sized with rte_ring_get_memsize() and set up with rte_ring_init() in a
 * CB_PAD-aligned block of ours. Neither needs the EAL: rte_eal_init() is
 * never called (no hugepages, no lcores, no memzones); the enqueue/dequeue
 * functions are inline and use only the ring's own memory.
 *
 * One adapter per synchronisation mode, each calling the explicit single-
 * element variant (not the flag-dispatching rte_ring_enqueue), with the
 * matching RING_F_* flags set at init as well:
 *
 *   dpdk:rte_ring_spsc      rte_ring_sp_enqueue / rte_ring_sc_dequeue
 *   dpdk:rte_ring_mpsc      rte_ring_mp_enqueue / rte_ring_sc_dequeue
 *   dpdk:rte_ring_spmc      rte_ring_sp_enqueue / rte_ring_mc_dequeue
 *   dpdk:rte_ring_mpmc      rte_ring_mp_enqueue / rte_ring_mc_dequeue
 *   dpdk:rte_ring_mpmc_rts  "relaxed tail sync": rte_ring_mp_rts_enqueue_bulk
 *                           / rte_ring_mc_rts_dequeue_bulk, n = 1
 *   dpdk:rte_ring_mpmc_hts  "head/tail sync": rte_ring_mp_hts_enqueue_bulk /
 *                           rte_ring_mc_hts_dequeue_bulk, n = 1
 *
 *   dpdk:rte_ring_spsc_eventfd  (a variant, for QueueHandoff) the SPSC ring
 *                           paired with an eventfd, as DPDK applications
 *                           pair a ring with a thread that sleeps: every
 *                           enqueue writes the eventfd; a take on an empty
 *                           ring waits in ppoll() on it, reads it and
 *                           tries again
 *
 * RTS and HTS are DPDK's answer to preempted producers/consumers (the MP/MC
 * mode waits for every earlier claimant to commit, in order, so one
 * preempted thread stalls all): they are here for the oversubscribed runs.
 *
 * Like ck, a ring of `count` slots holds count - 1 elements (without
 * RING_F_EXACT_SZ): the requested capacity rounded up to a power of two in
 * slots (131072 -> 131071 usable). The build drops DPDK's -march from its
 * pkg-config flags: every adapter is compiled with the same flags.
 */
#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_ring.h>
#include <rte_ring_hts.h>
#include <rte_ring_rts.h>

#include "loops.h"

static void *dpdk_create_flags(size_t capacity, size_t *usable,
			       unsigned flags)
{
	size_t count = cb_pow2_ceil(capacity < 2 ? 2 : capacity);
	if (count == 0 || count > RTE_RING_SZ_MASK) {
		errno = EINVAL;
		return NULL;
	}
	ssize_t sz = rte_ring_get_memsize((unsigned)count);
	if (sz <= 0) {
		errno = EINVAL;
		return NULL;
	}
	struct rte_ring *r = (struct rte_ring *)cb_alloc_aligned((size_t)sz);
	if (r == NULL)
		return NULL;
	if (rte_ring_init(r, "conq-bench", (unsigned)count, flags) != 0) {
		cb_free_aligned(r);
		errno = EINVAL;
		return NULL;
	}
	*usable = rte_ring_get_capacity(r);
	return r;
}

static void dpdk_destroy(void *q)
{
	cb_free_aligned(q);
}

static inline bool dpdk_sp_offer(struct rte_ring *r, void *e)
{
	return rte_ring_sp_enqueue(r, e) == 0;
}
static inline bool dpdk_mp_offer(struct rte_ring *r, void *e)
{
	return rte_ring_mp_enqueue(r, e) == 0;
}
static inline bool dpdk_rts_offer(struct rte_ring *r, void *e)
{
	return rte_ring_mp_rts_enqueue_bulk(r, &e, 1, NULL) == 1;
}
static inline bool dpdk_hts_offer(struct rte_ring *r, void *e)
{
	return rte_ring_mp_hts_enqueue_bulk(r, &e, 1, NULL) == 1;
}
static inline void *dpdk_sc_poll(struct rte_ring *r)
{
	void *e = NULL;
	return rte_ring_sc_dequeue(r, &e) == 0 ? e : NULL;
}
static inline void *dpdk_mc_poll(struct rte_ring *r)
{
	void *e = NULL;
	return rte_ring_mc_dequeue(r, &e) == 0 ? e : NULL;
}
static inline void *dpdk_rts_poll(struct rte_ring *r)
{
	void *e = NULL;
	return rte_ring_mc_rts_dequeue_bulk(r, &e, 1, NULL) == 1 ? e : NULL;
}
static inline void *dpdk_hts_poll(struct rte_ring *r)
{
	void *e = NULL;
	return rte_ring_mc_hts_dequeue_bulk(r, &e, 1, NULL) == 1 ? e : NULL;
}

#define DPDK_ADAPTER(NAME, OFFER, POLL, FLAGS, CONTRACT, DESC)                 \
	static void *dpdk_##NAME##_create(size_t capacity, size_t *usable)     \
	{                                                                      \
		return dpdk_create_flags(capacity, usable, FLAGS);             \
	}                                                                      \
	static bool dpdk_##NAME##_offer_g(void *q, void *e)                    \
	{                                                                      \
		return OFFER((struct rte_ring *)q, e);                         \
	}                                                                      \
	static void *dpdk_##NAME##_poll_g(void *q)                             \
	{                                                                      \
		return POLL((struct rte_ring *)q);                             \
	}                                                                      \
	CB_DEFINE_LOOPS(dpdk_##NAME, struct rte_ring, OFFER, POLL)             \
	extern const cb_adapter cb_adapter_dpdk_##NAME;                        \
	const cb_adapter cb_adapter_dpdk_##NAME = {                            \
		.name = "dpdk:" #NAME,                                         \
		.family = "dpdk",                                              \
		.desc = DESC,                                                  \
		.contract = CONTRACT,                                          \
		.kind = CB_KIND_PEER,                                          \
		.create = dpdk_##NAME##_create,                                \
		.destroy = dpdk_destroy,                                       \
		.offer = dpdk_##NAME##_offer_g,                                \
		.poll = dpdk_##NAME##_poll_g,                                  \
		.flush = NULL,                                                 \
		.loops = &dpdk_##NAME##_loops,                                 \
	};

DPDK_ADAPTER(rte_ring_spsc, dpdk_sp_offer, dpdk_sc_poll,
	     RING_F_SP_ENQ | RING_F_SC_DEQ, CB_SPSC,
	     "DPDK rte_ring, rte_ring_sp_enqueue/sc_dequeue (caller memory)")
DPDK_ADAPTER(rte_ring_mpsc, dpdk_mp_offer, dpdk_sc_poll, RING_F_SC_DEQ,
	     CB_MPSC,
	     "DPDK rte_ring, rte_ring_mp_enqueue/sc_dequeue (caller memory)")
DPDK_ADAPTER(rte_ring_spmc, dpdk_sp_offer, dpdk_mc_poll, RING_F_SP_ENQ,
	     CB_SPMC,
	     "DPDK rte_ring, rte_ring_sp_enqueue/mc_dequeue (caller memory)")
DPDK_ADAPTER(rte_ring_mpmc, dpdk_mp_offer, dpdk_mc_poll, 0, CB_MPMC,
	     "DPDK rte_ring, rte_ring_mp_enqueue/mc_dequeue (caller memory)")
DPDK_ADAPTER(rte_ring_mpmc_rts, dpdk_rts_offer, dpdk_rts_poll,
	     RING_F_MP_RTS_ENQ | RING_F_MC_RTS_DEQ, CB_MPMC,
	     "DPDK rte_ring, relaxed tail sync (RTS) MP/MC mode, bulk n=1")
DPDK_ADAPTER(rte_ring_mpmc_hts, dpdk_hts_offer, dpdk_hts_poll,
	     RING_F_MP_HTS_ENQ | RING_F_MC_HTS_DEQ, CB_MPMC,
	     "DPDK rte_ring, head/tail sync (HTS) MP/MC mode, bulk n=1")

/* The ring with an eventfd: the blocking pairing a DPDK user writes. */
typedef struct dpdk_evring {
	CB_ALIGNAS(CB_PAD) struct rte_ring *r;
	int fd; /* eventfd, non-blocking; written once per enqueue */
} dpdk_evring;

static void *dpdk_ev_create(size_t capacity, size_t *usable)
{
	dpdk_evring *q = (dpdk_evring *)cb_alloc_aligned(sizeof *q);
	if (q == NULL)
		return NULL;
	q->r = (struct rte_ring *)dpdk_create_flags(
		capacity, usable, RING_F_SP_ENQ | RING_F_SC_DEQ);
	q->fd = q->r == NULL ? -1 : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (q->fd < 0) {
		int err = errno;
		dpdk_destroy(q->r);
		cb_free_aligned(q);
		errno = err;
		return NULL;
	}
	return q;
}

static void dpdk_ev_destroy(void *p)
{
	dpdk_evring *q = (dpdk_evring *)p;
	if (q == NULL)
		return;
	close(q->fd);
	dpdk_destroy(q->r);
	cb_free_aligned(q);
}

static inline bool dpdk_ev_offer(dpdk_evring *q, void *e)
{
	if (rte_ring_sp_enqueue(q->r, e) != 0)
		return false;
	const uint64_t one = 1;
	ssize_t n = write(q->fd, &one, sizeof one); /* cannot fail: the count
						       never nears 2^64 */
	(void)n;
	return true;
}

static inline void *dpdk_ev_poll(dpdk_evring *q)
{
	return dpdk_sc_poll(q->r);
}

static bool dpdk_ev_offer_g(void *q, void *e)
{
	return dpdk_ev_offer((dpdk_evring *)q, e);
}

static void *dpdk_ev_poll_g(void *q)
{
	return dpdk_ev_poll((dpdk_evring *)q);
}

static bool dpdk_ev_put(void *p, void *e)
{
	dpdk_evring *q = (dpdk_evring *)p;
	while (!dpdk_ev_offer(q, e))
		sched_yield(); /* full: QueueHandoff never fills it */
	return true;
}

/* Empty: sleep in ppoll() until the eventfd is readable (a write after an
 * enqueue we may not have seen) or the deadline, drain the count, retry.
 * No lost wake-up: the producer's write follows its enqueue. */
static void *dpdk_ev_take_until(void *p, int64_t deadline)
{
	dpdk_evring *q = (dpdk_evring *)p;
	for (;;) {
		void *e = dpdk_sc_poll(q->r);
		if (e != NULL)
			return e;
		int64_t left = deadline - (int64_t)cb_now_ns();
		if (left <= 0)
			return NULL;
		struct pollfd pfd = {.fd = q->fd, .events = POLLIN};
		struct timespec ts = {.tv_sec = (time_t)(left / 1000000000),
				      .tv_nsec = (long)(left % 1000000000)};
		if (ppoll(&pfd, 1, &ts, NULL) > 0) {
			uint64_t v;
			ssize_t n = read(q->fd, &v, sizeof v);
			(void)n;
		}
	}
}

CB_DEFINE_LOOPS(dpdk_ev, dpdk_evring, dpdk_ev_offer, dpdk_ev_poll)

extern const cb_adapter cb_adapter_dpdk_rte_ring_spsc_eventfd;
const cb_adapter cb_adapter_dpdk_rte_ring_spsc_eventfd = {
	.name = "dpdk:rte_ring_spsc_eventfd",
	.family = "dpdk",
	.desc = "DPDK rte_ring SPSC + an eventfd written per enqueue; take "
		"waits in ppoll()",
	.contract = CB_SPSC,
	.kind = CB_KIND_PEER,
	.create = dpdk_ev_create,
	.destroy = dpdk_ev_destroy,
	.offer = dpdk_ev_offer_g,
	.poll = dpdk_ev_poll_g,
	.flush = NULL,
	.loops = &dpdk_ev_loops,
	.variant = true,
	.put = dpdk_ev_put,
	.take_until = dpdk_ev_take_until,
};

/* ---- QueueValueThroughput: rte_ring_*_elem (workloads/vloops.h) ---------
 *
 *   dpdk:rte_ring_<pc>_elem     rte_ring_sp/mp_enqueue_elem and
 *                               rte_ring_sc/mc_dequeue_elem with esize = the
 *                               element size (a constant at each call: the
 *                               copy loops of rte_ring_elem_pvt.h inline)
 *   dpdk:rte_ring_<pc>_elem_zc  the zero-copy API (rte_ring_peek_zc.h):
 *                               rte_ring_enqueue_zc_bulk_elem_start, write
 *                               in place, rte_ring_enqueue_zc_elem_finish;
 *                               rte_ring_dequeue_zc_bulk_elem_start, read in
 *                               place, rte_ring_dequeue_zc_elem_finish. DPDK
 *                               offers it in the single-thread (SP, SC) and
 *                               head/tail-sync (HTS) modes only, so the
 *                               multi-party sides of these rings are HTS
 *
 * for <pc> = spsc, mpsc, spmc, mpmc; on caller memory sized by
 * rte_ring_get_memsize_elem(), rte_ring_init() as above (the element size is
 * not stored in the ring: every call passes it). A ring of `count` slots
 * holds count - 1 elements, as above.
 */
#include <rte_ring_elem.h>
#include <rte_ring_peek_zc.h>

#include "vloops.h"

static void *dpdk_velem_new(size_t esize, size_t capacity, size_t *usable,
			    unsigned flags)
{
	size_t count = cb_pow2_ceil(capacity < 2 ? 2 : capacity);
	if (count == 0 || count > RTE_RING_SZ_MASK || esize % 4 != 0) {
		errno = EINVAL;
		return NULL;
	}
	ssize_t sz = rte_ring_get_memsize_elem((unsigned)esize, (unsigned)count);
	if (sz <= 0) {
		errno = EINVAL;
		return NULL;
	}
	struct rte_ring *r = (struct rte_ring *)cb_alloc_aligned((size_t)sz);
	if (r == NULL)
		return NULL;
	if (rte_ring_init(r, "conq-bench", (unsigned)count, flags) != 0) {
		cb_free_aligned(r);
		errno = EINVAL;
		return NULL;
	}
	*usable = rte_ring_get_capacity(r);
	return r;
}

static void dpdk_vfree(size_t n, void *q)
{
	(void)n;
	cb_free_aligned(q);
}

static CONQ__ALWAYS_INLINE bool dpdk_sp_voffer(size_t n, void *q,
					       const void *e)
{
	return rte_ring_sp_enqueue_elem((struct rte_ring *)q,
					(void *)(uintptr_t)e,
					(unsigned)n) == 0;
}
static CONQ__ALWAYS_INLINE bool dpdk_mp_voffer(size_t n, void *q,
					       const void *e)
{
	return rte_ring_mp_enqueue_elem((struct rte_ring *)q,
					(void *)(uintptr_t)e,
					(unsigned)n) == 0;
}
static CONQ__ALWAYS_INLINE bool dpdk_sc_vpoll(size_t n, void *q, void *out)
{
	return rte_ring_sc_dequeue_elem((struct rte_ring *)q, out,
					(unsigned)n) == 0;
}
static CONQ__ALWAYS_INLINE bool dpdk_mc_vpoll(size_t n, void *q, void *out)
{
	return rte_ring_mc_dequeue_elem((struct rte_ring *)q, out,
					(unsigned)n) == 0;
}
static CONQ__ALWAYS_INLINE void *dpdk_zc_vclaim(size_t n, void *q)
{
	struct rte_ring_zc_data zcd;
	if (rte_ring_enqueue_zc_bulk_elem_start((struct rte_ring *)q,
						(unsigned)n, 1, &zcd,
						NULL) == 0)
		return NULL;
	return zcd.ptr1;
}
static CONQ__ALWAYS_INLINE bool dpdk_zc_vcommit(size_t n, void *q, void *s)
{
	(void)n;
	(void)s;
	rte_ring_enqueue_zc_elem_finish((struct rte_ring *)q, 1);
	return true;
}
static CONQ__ALWAYS_INLINE const void *dpdk_zc_vpeek(size_t n, void *q)
{
	struct rte_ring_zc_data zcd;
	if (rte_ring_dequeue_zc_bulk_elem_start((struct rte_ring *)q,
						(unsigned)n, 1, &zcd,
						NULL) == 0)
		return NULL;
	return zcd.ptr1;
}
static CONQ__ALWAYS_INLINE bool dpdk_zc_vrelease(size_t n, void *q,
						 const void *s)
{
	(void)n;
	(void)s;
	rte_ring_dequeue_zc_elem_finish((struct rte_ring *)q, 1);
	return true;
}

#define DPDK_VADAPTER(NAME, HOW, A, B, C, D, FLAGS, CONTRACT, DESC)            \
	static void *dpdk_##NAME##_vnew(size_t n, size_t cap, unsigned np,     \
					size_t *usable)                        \
	{                                                                      \
		(void)np;                                                      \
		return dpdk_velem_new(n, cap, usable, FLAGS);                  \
	}                                                                      \
	CB_DEFINE_VALUE_LOOPS(dpdk_##NAME, HOW, dpdk_##NAME##_vnew,            \
			      dpdk_vfree, A, B, C, D)                          \
	extern const cb_adapter cb_adapter_dpdk_##NAME;                        \
	const cb_adapter cb_adapter_dpdk_##NAME = {                            \
		.name = "dpdk:" #NAME,                                         \
		.family = "dpdk",                                              \
		.desc = DESC,                                                  \
		.contract = CONTRACT,                                          \
		.kind = CB_KIND_PEER,                                          \
		.vloops = &dpdk_##NAME##_vloops,                               \
	};

DPDK_VADAPTER(rte_ring_spsc_elem, CB_VHOW_COPY, dpdk_sp_voffer, dpdk_sc_vpoll,
	      CB_VNONE, CB_VNONE, RING_F_SP_ENQ | RING_F_SC_DEQ, CB_SPSC,
	      "DPDK rte_ring_sp_enqueue_elem/sc_dequeue_elem (esize = elemSize)")
DPDK_VADAPTER(rte_ring_mpsc_elem, CB_VHOW_COPY, dpdk_mp_voffer, dpdk_sc_vpoll,
	      CB_VNONE, CB_VNONE, RING_F_SC_DEQ, CB_MPSC,
	      "DPDK rte_ring_mp_enqueue_elem/sc_dequeue_elem (esize = elemSize)")
DPDK_VADAPTER(rte_ring_spmc_elem, CB_VHOW_COPY, dpdk_sp_voffer, dpdk_mc_vpoll,
	      CB_VNONE, CB_VNONE, RING_F_SP_ENQ, CB_SPMC,
	      "DPDK rte_ring_sp_enqueue_elem/mc_dequeue_elem (esize = elemSize)")
DPDK_VADAPTER(rte_ring_mpmc_elem, CB_VHOW_COPY, dpdk_mp_voffer, dpdk_mc_vpoll,
	      CB_VNONE, CB_VNONE, 0, CB_MPMC,
	      "DPDK rte_ring_mp_enqueue_elem/mc_dequeue_elem (esize = elemSize)")
DPDK_VADAPTER(rte_ring_spsc_elem_zc, CB_VHOW_CLAIM, dpdk_zc_vclaim,
	      dpdk_zc_vcommit, dpdk_zc_vpeek, dpdk_zc_vrelease,
	      RING_F_SP_ENQ | RING_F_SC_DEQ, CB_SPSC,
	      "DPDK rte_ring zero-copy elem API (enqueue/dequeue_zc_*), SP/SC")
DPDK_VADAPTER(rte_ring_mpsc_elem_zc, CB_VHOW_CLAIM, dpdk_zc_vclaim,
	      dpdk_zc_vcommit, dpdk_zc_vpeek, dpdk_zc_vrelease,
	      RING_F_MP_HTS_ENQ | RING_F_SC_DEQ, CB_MPSC,
	      "DPDK rte_ring zero-copy elem API, MP in HTS mode (zc needs it), "
	      "SC")
DPDK_VADAPTER(rte_ring_spmc_elem_zc, CB_VHOW_CLAIM, dpdk_zc_vclaim,
	      dpdk_zc_vcommit, dpdk_zc_vpeek, dpdk_zc_vrelease,
	      RING_F_SP_ENQ | RING_F_MC_HTS_DEQ, CB_SPMC,
	      "DPDK rte_ring zero-copy elem API, SP, MC in HTS mode (zc needs "
	      "it)")
DPDK_VADAPTER(rte_ring_mpmc_elem_zc, CB_VHOW_CLAIM, dpdk_zc_vclaim,
	      dpdk_zc_vcommit, dpdk_zc_vpeek, dpdk_zc_vrelease,
	      RING_F_MP_HTS_ENQ | RING_F_MC_HTS_DEQ, CB_MPMC,
	      "DPDK rte_ring zero-copy elem API, MP/MC in HTS mode (zc needs "
	      "it)")
