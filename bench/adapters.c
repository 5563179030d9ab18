/* SPDX-License-Identifier: BSD-2-Clause */
/* The adapter registry: what this build compiled in, and the peers it knows. */
#include "adapter.h"

extern const cb_adapter cb_adapter_conq_spsc_array;
extern const cb_adapter cb_adapter_ceiling_stream;
#ifdef CB_HAVE_CK
extern const cb_adapter cb_adapter_ck_spsc;
#endif

const cb_adapter *const cb_adapters[] = {
	&cb_adapter_conq_spsc_array,
#ifdef CB_HAVE_CK
	&cb_adapter_ck_spsc,
#endif
	&cb_adapter_ceiling_stream,
};
const size_t cb_nadapters = sizeof cb_adapters / sizeof cb_adapters[0];

#if defined(CB_HAVE_CK)
#define CK_STATUS CB_PEER_IN
#elif defined(CB_CK_DISABLED)
#define CK_STATUS CB_PEER_DISABLED
#else
#define CK_STATUS CB_PEER_MISSING
#endif

const cb_peer cb_peers[] = {
	{"ck:spsc", "ConcurrencyKit ck_ring", "ck_ring.h + libck", "libck-dev",
	 CK_STATUS},
	{"dpdk:rte_ring", "DPDK rte_ring (SP/SC, MP/MC)", "rte_ring.h + librte_ring",
	 "dpdk-dev", CB_PEER_PLANNED},
	{"aq:*", "atomic_queue (C++)", "atomic_queue/atomic_queue.h + g++",
	 "libatomic-queue-dev", CB_PEER_PLANNED},
	{"moodycamel:*", "moodycamel ConcurrentQueue (C++)",
	 "concurrentqueue/moodycamel/concurrentqueue.h + g++",
	 "libconcurrentqueue-dev", CB_PEER_PLANNED},
	{"boost:spsc_queue", "Boost.Lockfree spsc_queue/queue (C++)",
	 "boost/lockfree/spsc_queue.hpp + g++", "libboost-dev", CB_PEER_PLANNED},
	{"tbb:*", "oneTBB concurrent_bounded_queue (C++)",
	 "tbb/concurrent_queue.h + libtbb", "libtbb-dev", CB_PEER_PLANNED},
	{"urcu:wfcq", "liburcu wfcqueue / lfqueue", "urcu/wfcqueue.h + liburcu",
	 "liburcu-dev", CB_PEER_PLANNED},
};
const size_t cb_npeers = sizeof cb_peers / sizeof cb_peers[0];
