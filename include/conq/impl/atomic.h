/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/impl/atomic.h - the only door to atomics in conq.
 *
 * Every atomic access in the library goes through these macros, and each name
 * carries its C11 memory order, so `grep _release` lists every publication and
 * `grep _acquire` every subscription (the JCTools lv/so/cas vocabulary, spelled
 * the C11 way).
 *
 * Why the __atomic builtins and not <stdatomic.h>: the public headers must
 * compile as C11 *and* as C++17, and C++17 has no <stdatomic.h> (it arrives in
 * C++23) while `_Atomic T` and `std::atomic<T>` are different types. gcc and
 * clang implement both languages' atomics on the same builtins, with exactly
 * the C11 memory-model semantics, on plain (suitably aligned) objects. So the
 * queues keep plain integer and pointer fields and access them only through
 * these macros; ThreadSanitizer understands the builtins. The cost is that the
 * type system no longer stops a stray plain access: review and the TSan build
 * do.
 *
 * Thread fences are deliberately absent: TSan cannot see them, and every
 * pairing in conq is expressed with ordered accesses (docs/memory-model.md).
 * The one exception is the eventcount's asymmetric fence, a compiler barrier
 * on the fast side and membarrier(2) on the slow one.
 */
#ifndef CONQ_IMPL_ATOMIC_H
#define CONQ_IMPL_ATOMIC_H

#if !defined(__GNUC__) && !defined(__clang__)
#error "conq needs gcc or clang (__atomic builtins)"
#endif

/* Loads. */
#define conq__load_relaxed(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define conq__load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define conq__load_seq_cst(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)

/* Stores. */
#define conq__store_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define conq__store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define conq__store_seq_cst(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)

/* Read-modify-writes. The CAS macros take a pointer to the expected value,
 * which is updated on failure (C11 compare_exchange semantics). */
#define conq__faa_relaxed(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define conq__faa_acq_rel(p, v) __atomic_fetch_add((p), (v), __ATOMIC_ACQ_REL)
#define conq__xchg_acq_rel(p, v) __atomic_exchange_n((p), (v), __ATOMIC_ACQ_REL)
#define conq__xchg_acquire(p, v) __atomic_exchange_n((p), (v), __ATOMIC_ACQUIRE)
#define conq__cas_weak_acq_rel(p, expp, v)                                     \
	__atomic_compare_exchange_n((p), (expp), (v), 1, __ATOMIC_ACQ_REL,     \
				    __ATOMIC_ACQUIRE)
#define conq__cas_strong_acq_rel(p, expp, v)                                   \
	__atomic_compare_exchange_n((p), (expp), (v), 0, __ATOMIC_ACQ_REL,     \
				    __ATOMIC_ACQUIRE)
#define conq__faa_seq_cst(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define conq__faa_release(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELEASE)
#define conq__cas_strong_seq_cst(p, expp, v)                                   \
	__atomic_compare_exchange_n((p), (expp), (v), 0, __ATOMIC_SEQ_CST,     \
				    __ATOMIC_SEQ_CST)
#define conq__cas_weak_relaxed(p, expp, v)                                     \
	__atomic_compare_exchange_n((p), (expp), (v), 1, __ATOMIC_RELAXED,     \
				    __ATOMIC_RELAXED)

/* A compiler barrier (a signal fence: no CPU instruction). Only for the
 * light half of an asymmetric fence, whose heavy half (membarrier(2)) runs
 * on the other side: conq/eventcount.h, [E1]/[E2]. */
#define conq__compiler_barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* Spin-wait hint for loops that wait on another thread. */
#if defined(__x86_64__) || defined(__i386__)
#define conq__cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define conq__cpu_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define conq__cpu_relax() ((void)0)
#endif

/*
 * A watch: a waiter that re-reads a slot the other side is about to write
 * (a consumer chasing producers at an empty queue, a producer at a full
 * one). Each look pulls the slot's line into the watcher's cache, and the
 * writer must take it back before it writes the next element there: a
 * watcher that looks after every pause makes every element a line transfer
 * both ways. conq__watch_gap(ns) is the wait between two looks: about ns
 * nanoseconds of pauses that read nothing, so that the writer fills the
 * line undisturbed and the watcher takes several elements per transfer
 * (docs/benchmarks.md, "The watch gap"). In time, not in pauses: a pause
 * costs 11 ns on one of this project's guests (Intel) and 25-32 ns on the
 * other (AMD), so libconq measures it when it is loaded (src/common.c).
 */
#ifdef __cplusplus
extern "C" {
#endif
/* Nanoseconds that 16 conq__cpu_relax() take on this machine, measured by
 * libconq's load-time constructor; 176 until then. Read-only afterwards. */
extern unsigned conq__pause_ns_x16;
#ifdef __cplusplus
}
#endif

static inline void conq__watch_gap(unsigned ns)
{
	unsigned n = ns * 16u / conq__pause_ns_x16;
	for (unsigned i = 0; i < n; i++)
		conq__cpu_relax();
}

/*
 * CONQ__TEST_PAUSE(): a point where a thread holds a pointer into a chunk or
 * node that another thread may retire (between reading it and using it), or
 * is in the middle of a hand-over. Nothing in a normal build; in a test
 * build with CONQ_TEST_PAUSES (cmake -DCONQ_TEST_PAUSES=ON, the sanitizer
 * builds of CI), the thread sometimes yields or sleeps there, so that the
 * torture engine under ASan meets the interleavings in which a stale pointer
 * would be used after a free (src/alloc.c, conq__test_pause).
 */
#ifdef CONQ_TEST_PAUSES
#ifdef __cplusplus
extern "C" {
#endif
void conq__test_pause(void);
#ifdef __cplusplus
}
#endif
#define CONQ__TEST_PAUSE() conq__test_pause()
#else
#define CONQ__TEST_PAUSE() ((void)0)
#endif

#define CONQ__LIKELY(x) __builtin_expect(!!(x), 1)
#define CONQ__UNLIKELY(x) __builtin_expect(!!(x), 0)

/* A slow path kept out of line, so that the fast path around it stays small
 * enough for the compiler to inline at every call site. For a `static`
 * (not `static inline`) function in a header: `unused` because a file that
 * includes the header need not call it. */
#define CONQ__NOINLINE __attribute__((noinline, unused))

/* A fast-path helper that must not become a call of its own: gcc keeps a
 * small static inline function with an unlikely call inside it out of line
 * once its callers grow (measured: conq_eventcount_notify, a load and a
 * test, as a call per offer and per poll; docs/benchmarks.md). */
#define CONQ__ALWAYS_INLINE inline __attribute__((always_inline))

#endif /* CONQ_IMPL_ATOMIC_H */
