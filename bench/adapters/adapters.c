/* SPDX-License-Identifier: BSD-2-Clause */
/* The adapter registry: what this build compiled in, and the peers it knows. */
#include "adapter.h"

extern const cb_adapter cb_adapter_conq_spsc_array;
extern const cb_adapter cb_adapter_conq_mpsc_array;
extern const cb_adapter cb_adapter_conq_spmc_array;
extern const cb_adapter cb_adapter_conq_mpmc_array;
extern const cb_adapter cb_adapter_conq_spsc_chunked;
extern const cb_adapter cb_adapter_conq_spsc_growable;
extern const cb_adapter cb_adapter_conq_spsc_unbounded;
extern const cb_adapter cb_adapter_conq_spsc_linked;
extern const cb_adapter cb_adapter_conq_mpsc_linked;
extern const cb_adapter cb_adapter_conq_mpsc_intrusive;
/* Variants: run when a qType names them. */
extern const cb_adapter cb_adapter_conq_spsc_chunked_16;
extern const cb_adapter cb_adapter_conq_spsc_chunked_128;
extern const cb_adapter cb_adapter_conq_spsc_chunked_1K;
extern const cb_adapter cb_adapter_conq_spsc_chunked_16K;
extern const cb_adapter cb_adapter_conq_spsc_growable_16;
extern const cb_adapter cb_adapter_conq_spsc_growable_128;
extern const cb_adapter cb_adapter_conq_spsc_growable_1K;
extern const cb_adapter cb_adapter_conq_spsc_growable_16K;
extern const cb_adapter cb_adapter_conq_spsc_unbounded_16;
extern const cb_adapter cb_adapter_conq_spsc_unbounded_128;
extern const cb_adapter cb_adapter_conq_spsc_unbounded_1K;
extern const cb_adapter cb_adapter_conq_spsc_unbounded_16K;
extern const cb_adapter cb_adapter_conq_mpsc_chunked;
extern const cb_adapter cb_adapter_conq_mpsc_growable;
extern const cb_adapter cb_adapter_conq_mpsc_unbounded;
extern const cb_adapter cb_adapter_conq_mpsc_xadd;
extern const cb_adapter cb_adapter_conq_mpmc_xadd;
extern const cb_adapter cb_adapter_conq_mpsc_chunked_16;
extern const cb_adapter cb_adapter_conq_mpsc_chunked_128;
extern const cb_adapter cb_adapter_conq_mpsc_chunked_1K;
extern const cb_adapter cb_adapter_conq_mpsc_chunked_16K;
extern const cb_adapter cb_adapter_conq_mpsc_growable_16;
extern const cb_adapter cb_adapter_conq_mpsc_growable_128;
extern const cb_adapter cb_adapter_conq_mpsc_growable_1K;
extern const cb_adapter cb_adapter_conq_mpsc_growable_16K;
extern const cb_adapter cb_adapter_conq_mpsc_unbounded_16;
extern const cb_adapter cb_adapter_conq_mpsc_unbounded_128;
extern const cb_adapter cb_adapter_conq_mpsc_unbounded_1K;
extern const cb_adapter cb_adapter_conq_mpsc_unbounded_16K;
/* QueueValueThroughput only (vloops, no loops). */
extern const cb_adapter cb_adapter_conq_spsc_value;
extern const cb_adapter cb_adapter_conq_spsc_value_claim;
extern const cb_adapter cb_adapter_conq_spsc_array_pool;
extern const cb_adapter cb_adapter_conq_mpsc_value;
extern const cb_adapter cb_adapter_conq_mpsc_value_claim;
extern const cb_adapter cb_adapter_conq_mpsc_array_pool;
extern const cb_adapter cb_adapter_conq_spmc_value;
extern const cb_adapter cb_adapter_conq_spmc_value_claim;
extern const cb_adapter cb_adapter_conq_spmc_array_pool;
extern const cb_adapter cb_adapter_conq_mpmc_value;
extern const cb_adapter cb_adapter_conq_mpmc_value_claim;
extern const cb_adapter cb_adapter_conq_mpmc_array_pool;
extern const cb_adapter cb_adapter_test_value_first_word;
extern const cb_adapter cb_adapter_ceiling_stream;
extern const cb_adapter cb_adapter_ceiling_stream_locked;
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
extern const cb_adapter cb_adapter_dpdk_rte_ring_spsc_eventfd;
extern const cb_adapter cb_adapter_dpdk_rte_ring_spsc_elem;
extern const cb_adapter cb_adapter_dpdk_rte_ring_spsc_elem_zc;
extern const cb_adapter cb_adapter_dpdk_rte_ring_mpsc_elem;
extern const cb_adapter cb_adapter_dpdk_rte_ring_mpsc_elem_zc;
extern const cb_adapter cb_adapter_dpdk_rte_ring_spmc_elem;
extern const cb_adapter cb_adapter_dpdk_rte_ring_spmc_elem_zc;
extern const cb_adapter cb_adapter_dpdk_rte_ring_mpmc_elem;
extern const cb_adapter cb_adapter_dpdk_rte_ring_mpmc_elem_zc;
#endif
#ifdef CB_HAVE_ATOMIC_QUEUE
extern const cb_adapter cb_adapter_aq_spsc;
extern const cb_adapter cb_adapter_aq_mpmc;
extern const cb_adapter cb_adapter_aq_spsc_value;
extern const cb_adapter cb_adapter_aq_mpmc_value;
#endif
#ifdef CB_HAVE_URCU
extern const cb_adapter cb_adapter_urcu_wfcq_mpsc;
extern const cb_adapter cb_adapter_urcu_wfcq_mpmc;
extern const cb_adapter cb_adapter_urcu_wfcq_mpsc_unbounded;
#endif
#ifdef CB_HAVE_MOODYCAMEL_CQ
extern const cb_adapter cb_adapter_mc_cq;
extern const cb_adapter cb_adapter_mc_cq_u;
extern const cb_adapter cb_adapter_mc_bq;
#endif
#ifdef CB_HAVE_MOODYCAMEL_RWQ
extern const cb_adapter cb_adapter_mc_rwq;
extern const cb_adapter cb_adapter_mc_rwq_u;
#endif
#ifdef CB_HAVE_BOOST_LOCKFREE
extern const cb_adapter cb_adapter_boost_spsc;
extern const cb_adapter cb_adapter_boost_queue;
extern const cb_adapter cb_adapter_boost_queue_u;
#endif
#ifdef CB_HAVE_TBB
extern const cb_adapter cb_adapter_tbb_bounded;
#endif
extern const cb_adapter cb_adapter_mutex_condvar;

const cb_adapter *const cb_adapters[] = {
	&cb_adapter_conq_spsc_array,
	&cb_adapter_conq_mpsc_array,
	&cb_adapter_conq_spmc_array,
	&cb_adapter_conq_mpmc_array,
	&cb_adapter_conq_spsc_chunked,
	&cb_adapter_conq_spsc_growable,
	&cb_adapter_conq_spsc_unbounded,
	&cb_adapter_conq_spsc_linked,
	&cb_adapter_conq_mpsc_linked,
	&cb_adapter_conq_mpsc_intrusive,
	&cb_adapter_conq_spsc_chunked_16,
	&cb_adapter_conq_spsc_chunked_128,
	&cb_adapter_conq_spsc_chunked_1K,
	&cb_adapter_conq_spsc_chunked_16K,
	&cb_adapter_conq_spsc_growable_16,
	&cb_adapter_conq_spsc_growable_128,
	&cb_adapter_conq_spsc_growable_1K,
	&cb_adapter_conq_spsc_growable_16K,
	&cb_adapter_conq_spsc_unbounded_16,
	&cb_adapter_conq_spsc_unbounded_128,
	&cb_adapter_conq_spsc_unbounded_1K,
	&cb_adapter_conq_spsc_unbounded_16K,
	&cb_adapter_conq_mpsc_chunked,
	&cb_adapter_conq_mpsc_growable,
	&cb_adapter_conq_mpsc_unbounded,
	&cb_adapter_conq_mpsc_xadd,
	&cb_adapter_conq_mpmc_xadd,
	&cb_adapter_conq_mpsc_chunked_16,
	&cb_adapter_conq_mpsc_chunked_128,
	&cb_adapter_conq_mpsc_chunked_1K,
	&cb_adapter_conq_mpsc_chunked_16K,
	&cb_adapter_conq_mpsc_growable_16,
	&cb_adapter_conq_mpsc_growable_128,
	&cb_adapter_conq_mpsc_growable_1K,
	&cb_adapter_conq_mpsc_growable_16K,
	&cb_adapter_conq_mpsc_unbounded_16,
	&cb_adapter_conq_mpsc_unbounded_128,
	&cb_adapter_conq_mpsc_unbounded_1K,
	&cb_adapter_conq_mpsc_unbounded_16K,
	&cb_adapter_conq_spsc_value,
	&cb_adapter_conq_spsc_value_claim,
	&cb_adapter_conq_spsc_array_pool,
	&cb_adapter_conq_mpsc_value,
	&cb_adapter_conq_mpsc_value_claim,
	&cb_adapter_conq_mpsc_array_pool,
	&cb_adapter_conq_spmc_value,
	&cb_adapter_conq_spmc_value_claim,
	&cb_adapter_conq_spmc_array_pool,
	&cb_adapter_conq_mpmc_value,
	&cb_adapter_conq_mpmc_value_claim,
	&cb_adapter_conq_mpmc_array_pool,
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
	&cb_adapter_dpdk_rte_ring_spsc_eventfd,
	&cb_adapter_dpdk_rte_ring_spsc_elem,
	&cb_adapter_dpdk_rte_ring_spsc_elem_zc,
	&cb_adapter_dpdk_rte_ring_mpsc_elem,
	&cb_adapter_dpdk_rte_ring_mpsc_elem_zc,
	&cb_adapter_dpdk_rte_ring_spmc_elem,
	&cb_adapter_dpdk_rte_ring_spmc_elem_zc,
	&cb_adapter_dpdk_rte_ring_mpmc_elem,
	&cb_adapter_dpdk_rte_ring_mpmc_elem_zc,
#endif
#ifdef CB_HAVE_ATOMIC_QUEUE
	&cb_adapter_aq_spsc,
	&cb_adapter_aq_mpmc,
	&cb_adapter_aq_spsc_value,
	&cb_adapter_aq_mpmc_value,
#endif
#ifdef CB_HAVE_MOODYCAMEL_RWQ
	&cb_adapter_mc_rwq,
	&cb_adapter_mc_rwq_u,
#endif
#ifdef CB_HAVE_BOOST_LOCKFREE
	&cb_adapter_boost_spsc,
#endif
#ifdef CB_HAVE_URCU
	&cb_adapter_urcu_wfcq_mpsc,
	&cb_adapter_urcu_wfcq_mpmc,
	&cb_adapter_urcu_wfcq_mpsc_unbounded,
#endif
#ifdef CB_HAVE_MOODYCAMEL_CQ
	&cb_adapter_mc_cq,
	&cb_adapter_mc_cq_u,
	&cb_adapter_mc_bq,
#endif
#if defined(CB_HAVE_BOOST_LOCKFREE) && !defined(CB_BOOST_QUEUE_DISABLED)
	&cb_adapter_boost_queue,
	&cb_adapter_boost_queue_u,
#endif
#ifdef CB_HAVE_TBB
	&cb_adapter_tbb_bounded,
#endif
	&cb_adapter_ceiling_stream,
	&cb_adapter_ceiling_stream_locked,
	&cb_adapter_mutex_ring,
	&cb_adapter_mutex_condvar,
	&cb_adapter_test_value_first_word,
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
	case 0: /* a contender that is not a queue (Uuid, Refcount) */
		return "-";
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

/* Status of a peer: compiled in, switched off, or not found. */
#define CB_STATUS(HAVE, OFF)                                                   \
	((HAVE) ? CB_PEER_IN : (OFF) ? CB_PEER_DISABLED : CB_PEER_MISSING)

#ifdef CB_HAVE_URCU
#define URCU_IN 1
#else
#define URCU_IN 0
#endif
#ifdef CB_URCU_DISABLED
#define URCU_OFF 1
#else
#define URCU_OFF 0
#endif
#ifdef CB_HAVE_MOODYCAMEL_CQ
#define MC_CQ_IN 1
#else
#define MC_CQ_IN 0
#endif
#ifdef CB_HAVE_MOODYCAMEL_RWQ
#define MC_RWQ_IN 1
#else
#define MC_RWQ_IN 0
#endif
#ifdef CB_MOODYCAMEL_DISABLED
#define MC_OFF 1
#else
#define MC_OFF 0
#endif
#ifdef CB_HAVE_BOOST_LOCKFREE
#define BOOST_IN 1
#else
#define BOOST_IN 0
#endif
#ifdef CB_BOOST_LOCKFREE_DISABLED
#define BOOST_OFF 1
#else
#define BOOST_OFF 0
#endif
#ifdef CB_HAVE_TBB
#define TBB_IN 1
#else
#define TBB_IN 0
#endif
#ifdef CB_TBB_DISABLED
#define TBB_OFF 1
#else
#define TBB_OFF 0
#endif

/* The peers of the benchmarks that are not queues' (Uuid, Refcount). */
#ifdef CB_HAVE_LIBUUID
#define LIBUUID_IN 1
#else
#define LIBUUID_IN 0
#endif
#ifdef CB_LIBUUID_DISABLED
#define LIBUUID_OFF 1
#else
#define LIBUUID_OFF 0
#endif
#ifdef CB_HAVE_SODIUM
#define SODIUM_IN 1
#else
#define SODIUM_IN 0
#endif
#ifdef CB_SODIUM_DISABLED
#define SODIUM_OFF 1
#else
#define SODIUM_OFF 0
#endif
#ifdef CB_HAVE_GLIB
#define GLIB_IN 1
#else
#define GLIB_IN 0
#endif
#ifdef CB_GLIB_DISABLED
#define GLIB_OFF 1
#else
#define GLIB_OFF 0
#endif
#ifdef CB_HAVE_LIBUV
#define LIBUV_IN 1
#else
#define LIBUV_IN 0
#endif
#ifdef CB_LIBUV_DISABLED
#define LIBUV_OFF 1
#else
#define LIBUV_OFF 0
#endif
#ifdef CB_HAVE_ARC4RANDOM_BUF
#define ARC4_IN 1
#else
#define ARC4_IN 0
#endif
#ifdef CB_HAVE_GETRANDOM
#define GETRANDOM_IN 1
#else
#define GETRANDOM_IN 0
#endif

const cb_peer cb_peers[] = {
	{"ck:*", "ConcurrencyKit ck_ring (spsc, mpsc, spmc, mpmc)",
	 "ck_ring.h + libck", "libck-dev", CK_STATUS,
	 "CONQ_BENCH_CK=OFF, or a ThreadSanitizer build: ck_pr's asm fences "
	 "are invisible to TSan"},
	{"dpdk:*",
	 "DPDK rte_ring (SP/SC, MP/MC, RTS, HTS, _elem, zero-copy; caller "
	 "memory)",
	 "pkg-config libdpdk (rte_ring.h + librte_ring)", "libdpdk-dev",
	 DPDK_STATUS,
	 "CONQ_BENCH_DPDK=OFF, or a ThreadSanitizer build: rte_atomic's asm "
	 "and rte_smp_*mb compiler barriers are invisible to TSan"},
	{"atomic_queue:*",
	 "atomic_queue AtomicQueueB (C++; mpmc, spsc), AtomicQueueB2 (values)",
	 "atomic_queue/atomic_queue.h + a C++20 compiler",
	 "libatomic-queue-dev", AQ_STATUS,
	 "CONQ_BENCH_ATOMIC_QUEUE=OFF, or no C++ compiler"},
	{"urcu:*", "liburcu wfcqueue (mpsc, mpmc; bounded by the adapter)",
	 "urcu/wfcqueue.h + liburcu-common", "liburcu-dev",
	 CB_STATUS(URCU_IN, URCU_OFF),
	 "CONQ_BENCH_URCU=OFF, or a ThreadSanitizer build: liburcu's own "
	 "atomics are not instrumented"},
	{"moodycamel:concurrentqueue",
	 "moodycamel ConcurrentQueue (C++; MPMC, not linearizable)",
	 "concurrentqueue/concurrentqueue.h + a C++20 compiler",
	 "libconcurrentqueue-dev", CB_STATUS(MC_CQ_IN, MC_OFF),
	 "CONQ_BENCH_MOODYCAMEL=OFF, no C++ compiler, or a ThreadSanitizer "
	 "build: its std::atomic_thread_fence orderings are invisible to "
	 "TSan"},
	{"moodycamel:readerwriterqueue",
	 "moodycamel ReaderWriterQueue (C++; SPSC)",
	 "readerwriterqueue/readerwriterqueue.h + a C++20 compiler",
	 "libreaderwriterqueue-dev", CB_STATUS(MC_RWQ_IN, MC_OFF),
	 "CONQ_BENCH_MOODYCAMEL=OFF, no C++ compiler, or a ThreadSanitizer "
	 "build: its fences are invisible to TSan"},
	{"boost:*", "Boost.Lockfree queue (MPMC) and spsc_queue (C++)",
	 "boost/lockfree/queue.hpp + a C++20 compiler", "libboost-dev",
	 CB_STATUS(BOOST_IN, BOOST_OFF),
	 "CONQ_BENCH_BOOST=OFF, or no C++ compiler (a ThreadSanitizer build "
	 "keeps spsc_queue only: queue<> reads recycled nodes by design)"},
	{"tbb:*", "oneTBB concurrent_bounded_queue (C++; MPMC)",
	 "tbb/concurrent_queue.h + libtbb + a C++20 compiler", "libtbb-dev",
	 CB_STATUS(TBB_IN, TBB_OFF),
	 "CONQ_BENCH_TBB=OFF, no C++ compiler, or a ThreadSanitizer build: "
	 "libtbb is not instrumented"},
	{"libuuid:*", "util-linux libuuid uuid_generate_random (Uuid)",
	 "pkg-config uuid (uuid/uuid.h + libuuid)", "uuid-dev",
	 CB_STATUS(LIBUUID_IN, LIBUUID_OFF),
	 "CONQ_BENCH_UUID=OFF, or a static build without libuuid.a"},
	{"sodium:*", "libsodium randombytes_buf (Uuid)",
	 "pkg-config libsodium (sodium.h + libsodium)", "libsodium-dev",
	 CB_STATUS(SODIUM_IN, SODIUM_OFF),
	 "CONQ_BENCH_SODIUM=OFF, or a static build without libsodium.a"},
	{"glibc:*", "glibc arc4random_buf (Uuid; glibc >= 2.36)",
	 "arc4random_buf in stdlib.h", "libc6-dev (glibc >= 2.36)",
	 CB_STATUS(ARC4_IN, 0), NULL},
	{"linux:*", "Linux getrandom(2) through glibc (Uuid)",
	 "getrandom in sys/random.h", "libc6-dev (glibc >= 2.25)",
	 CB_STATUS(GETRANDOM_IN, 0), NULL},
	{"glib:*",
	 "GLib gatomicrefcount g_atomic_ref_count_init/inc/dec (Refcount), "
	 "GThreadPool (Pool)",
	 "pkg-config glib-2.0 (glib.h + libglib-2.0)", "libglib2.0-dev",
	 CB_STATUS(GLIB_IN, GLIB_OFF),
	 "CONQ_BENCH_GLIB=OFF, or a static build without libglib-2.0.a and "
	 "its dependencies' archives (a ThreadSanitizer build keeps the "
	 "refcounts only: GThreadPool's futex-based locks are invisible to "
	 "TSan)"},
	{"libuv:*", "libuv's threadpool, uv_queue_work (Pool)",
	 "pkg-config libuv (uv.h + libuv)", "libuv1-dev",
	 CB_STATUS(LIBUV_IN, LIBUV_OFF),
	 "CONQ_BENCH_LIBUV=OFF, or a static build without libuv.a"},
};
const size_t cb_npeers = sizeof cb_peers / sizeof cb_peers[0];
