/* SPDX-License-Identifier: BSD-2-Clause */
/* The adapter registry: what this build compiled in, and the peers it knows. */
#include "adapter.h"

extern const cb_adapter cb_adapter_conq_spsc_array;
extern const cb_adapter cb_adapter_conq_mpsc_array;
extern const cb_adapter cb_adapter_conq_spmc_array;
extern const cb_adapter cb_adapter_conq_mpmc_array;
extern const cb_adapter cb_adapter_ceiling_stream;
extern const cb_adapter cb_adapter_mutex_ring;
#ifdef CB_HAVE_CK
extern const cb_adapter cb_adapter_ck_spsc;
extern const cb_adapter cb_adapter_ck_mpsc;
extern const cb_adapter cb_adapter_ck_spmc;
extern const cb_adapter cb_adapter_ck_mpmc;
#endif
#ifdef CB_HAVE_DPDK
extern const cb_adapter cb_adapter_dpdk_rte_ring_spsc;
extern const cb_adapter cb_adapter_dpdk_rte_ring_mpsc;
extern const cb_adapter cb_adapter_dpdk_rte_ring_spmc;
extern const cb_adapter cb_adapter_dpdk_rte_ring_mpmc;
extern const cb_adapter cb_adapter_dpdk_rte_ring_mpmc_rts;
extern const cb_adapter cb_adapter_dpdk_rte_ring_mpmc_hts;
#endif
#ifdef CB_HAVE_ATOMIC_QUEUE
extern const cb_adapter cb_adapter_aq_spsc;
extern const cb_adapter cb_adapter_aq_mpmc;
#endif

const cb_adapter *const cb_adapters[] = {
	&cb_adapter_conq_spsc_array,
	&cb_adapter_conq_mpsc_array,
	&cb_adapter_conq_spmc_array,
	&cb_adapter_conq_mpmc_array,
#ifdef CB_HAVE_CK
	&cb_adapter_ck_spsc,
	&cb_adapter_ck_mpsc,
	&cb_adapter_ck_spmc,
	&cb_adapter_ck_mpmc,
#endif
#ifdef CB_HAVE_DPDK
	&cb_adapter_dpdk_rte_ring_spsc,
	&cb_adapter_dpdk_rte_ring_mpsc,
	&cb_adapter_dpdk_rte_ring_spmc,
	&cb_adapter_dpdk_rte_ring_mpmc,
	&cb_adapter_dpdk_rte_ring_mpmc_rts,
	&cb_adapter_dpdk_rte_ring_mpmc_hts,
#endif
#ifdef CB_HAVE_ATOMIC_QUEUE
	&cb_adapter_aq_spsc,
	&cb_adapter_aq_mpmc,
#endif
	&cb_adapter_ceiling_stream,
	&cb_adapter_mutex_ring,
};
const size_t cb_nadapters = sizeof cb_adapters / sizeof cb_adapters[0];

const char *cb_contract_name(unsigned contract)
{
	switch (contract) {
	case CB_SPSC:
		return "SPSC";
	case CB_MPSC:
		return "MPSC";
	case CB_SPMC:
		return "SPMC";
	case CB_MPMC:
		return "MPMC";
	default:
		return "?";
	}
}

#if defined(CB_HAVE_CK)
#define CK_STATUS CB_PEER_IN
#elif defined(CB_CK_DISABLED)
#define CK_STATUS CB_PEER_DISABLED
#else
#define CK_STATUS CB_PEER_MISSING
#endif

#if defined(CB_HAVE_DPDK)
#define DPDK_STATUS CB_PEER_IN
#elif defined(CB_DPDK_DISABLED)
#define DPDK_STATUS CB_PEER_DISABLED
#else
#define DPDK_STATUS CB_PEER_MISSING
#endif

#if defined(CB_HAVE_ATOMIC_QUEUE)
#define AQ_STATUS CB_PEER_IN
#elif defined(CB_ATOMIC_QUEUE_DISABLED)
#define AQ_STATUS CB_PEER_DISABLED
#else
#define AQ_STATUS CB_PEER_MISSING
#endif

const cb_peer cb_peers[] = {
	{"ck:*", "ConcurrencyKit ck_ring (spsc, mpsc, spmc, mpmc)",
	 "ck_ring.h + libck", "libck-dev", CK_STATUS,
	 "CONQ_BENCH_CK=OFF, or a ThreadSanitizer build: ck_pr's asm fences "
	 "are invisible to TSan"},
	{"dpdk:*", "DPDK rte_ring (SP/SC, MP/MC, RTS, HTS; caller memory)",
	 "pkg-config libdpdk (rte_ring.h + librte_ring)", "dpdk-dev",
	 DPDK_STATUS,
	 "CONQ_BENCH_DPDK=OFF, or a ThreadSanitizer build: rte_atomic's asm "
	 "and rte_smp_*mb compiler barriers are invisible to TSan"},
	{"atomic_queue:*", "atomic_queue AtomicQueueB (C++; mpmc, spsc)",
	 "atomic_queue/atomic_queue.h + a C++20 compiler",
	 "libatomic-queue-dev", AQ_STATUS,
	 "CONQ_BENCH_ATOMIC_QUEUE=OFF, or no C++ compiler"},
	{"moodycamel:*", "moodycamel ConcurrentQueue (C++)",
	 "concurrentqueue/moodycamel/concurrentqueue.h + g++",
	 "libconcurrentqueue-dev", CB_PEER_PLANNED, NULL},
	{"boost:spsc_queue", "Boost.Lockfree spsc_queue/queue (C++)",
	 "boost/lockfree/spsc_queue.hpp + g++", "libboost-dev", CB_PEER_PLANNED,
	 NULL},
	{"tbb:*", "oneTBB concurrent_bounded_queue (C++)",
	 "tbb/concurrent_queue.h + libtbb", "libtbb-dev", CB_PEER_PLANNED, NULL},
	{"urcu:wfcq", "liburcu wfcqueue / lfqueue", "urcu/wfcqueue.h + liburcu",
	 "liburcu-dev", CB_PEER_PLANNED, NULL},
};
const size_t cb_npeers = sizeof cb_peers / sizeof cb_peers[0];
