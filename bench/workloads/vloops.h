/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vloops.h - QueueValueThroughput's measured loops (wl_throughput.c): the
 * throughput loops of loops.h for elements of a fixed size, instantiated per
 * adapter and per element size, so that the size is a constant in every
 * instance and the producer's writes and the consumer's reads of an element
 * are the same inlined code next to every queue.
 *
 *   CB_DEFINE_VALUE_LOOPS(PFX, HOW, CREATE, DESTROY, A, B, C, D)
 *
 * defines PFX_vloops (a cb_vloops). The operations are macros or functions
 * called as OP(N, q, ...) with N the element size (a constant) and q the
 * adapter's handle as a void * (each operation casts it; inline, so the
 * casts cost nothing):
 *
 *   HOW            A                  B                 C, D
 *   CB_VHOW_COPY   bool offer(N, q,   bool poll(N, q,   unused
 *                  const void *e)     void *out)
 *   CB_VHOW_CLAIM  void *claim(N, q)  commit(N, q, s)   const void *peek(N, q),
 *                  (NULL: full)                         release(N, q, s)
 *   CB_VHOW_PTR    bool offer(N, q,   void *poll(N, q)  unused
 *                  void *p)
 *   CB_VHOW_POOL   as PTR, on the pointer queue of a cb_vpool (below)
 *
 *   CREATE(N, capacity, nproducers, size_t *usable) -> void *, NULL on
 *   failure (errno); DESTROY(N, q).
 *
 * The element: every 8-byte word of it holds W = cb_elem_bits(pid, seq), the
 * producer id and sequence of cb.h (a 4-byte element: W's low 32 bits, the
 * sequence mod 2^26). Per element:
 *
 *   COPY   the producer writes the element into its own buffer (cb_vput)
 *          and offers it (the queue copies it in); the consumer polls into
 *          its own buffer (the queue copies it out) and reads every word
 *          of it (cb_vget);
 *   CLAIM  the producer claims a slot, writes the element there and
 *          commits it; the consumer peeks it in place, reads every word and
 *          releases it;
 *   PTR    "pointer only": the pointer queue moves W itself as the pointer
 *          (the QueueThroughputBackoffNone element), whatever the size;
 *   POOL   a pointer to a payload of N bytes: each producer owns a pool of
 *          capacity + CB_VPOOL_SLACK buffers, used in turn; before reusing
 *          a buffer it waits until the buffer is marked free (an acquire
 *          load of its first word: free = CB_VPOOL_FREE), writes the
 *          element there and offers the buffer's address; the consumer
 *          polls the address, reads every word and marks the buffer free
 *          (a release store of its first word). A buffer goes back once
 *          its consumer has read it, as from any pool of messages; the
 *          mark is a word of a line the consumer holds, and the producer
 *          reads it in the line it is about to write anyway.
 *
 * cb_vget reads every word and counts the element torn when a word differs
 * from the first: a queue cannot win by not moving (or not reading) the
 * bytes, and a torn or stale element is an invariant violation (w->torn,
 * checked after every iteration, with or without --check). With --check the
 * first word's {pid, seq} goes through cb_vchk_take (per-producer order,
 * exactly once), as loops.h's cb_chk_take does with pointers.
 *
 * The failed-call rule and the catch-up/warm-down protocol are loops.h's.
 */
#ifndef CB_VLOOPS_H
#define CB_VLOOPS_H

#include <string.h>

#include "loops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The element sizes the loops are instantiated for (bytes): -p elemSize
 * takes these. */
#define CB__VFOR_SIZES(M, ...)                                                 \
	M(4, __VA_ARGS__)                                                      \
	M(8, __VA_ARGS__)                                                      \
	M(16, __VA_ARGS__)                                                     \
	M(32, __VA_ARGS__)                                                     \
	M(64, __VA_ARGS__)                                                     \
	M(128, __VA_ARGS__)                                                    \
	M(256, __VA_ARGS__)                                                    \
	M(512, __VA_ARGS__)                                                    \
	M(1024, __VA_ARGS__)
#define CB_VNSIZES     9
#define CB_VSIZES_TEXT "4, 8, 16, 32, 64, 128, 256, 512, 1024"

/* The index of element size n among the instantiated ones, -1 if none. */
static inline int cb_vsize_index(size_t n)
{
	int k = 0;
	for (size_t s = 4; s <= 1024; s *= 2, k++)
		if (s == n)
			return k;
	return -1;
}

typedef enum {
	CB_VHOW_COPY,  /* a value ring's offer/poll (copy in, copy out) */
	CB_VHOW_CLAIM, /* a value ring's claim/commit, peek/release in place */
	CB_VHOW_PTR,   /* a pointer queue moving W as the pointer */
	CB_VHOW_POOL   /* a pointer queue moving pointers to pooled payloads */
} cb_vhow;

/* One element size's functions. */
typedef struct cb_vsize {
	void *(*create)(size_t capacity, unsigned nproducers, size_t *usable);
	void (*destroy)(void *q);
	/* Setup and teardown, single-threaded: offer the element of first
	 * word w (all its words w), as producer 0 would; poll one (false:
	 * empty), *w its first word, *torn += 1 if another word differs. */
	bool (*offer)(void *q, uint64_t w);
	bool (*poll)(void *q, uint64_t *w, uint64_t *torn);
	cb_role_fn tpt_offer, tpt_poll, tpt_poll_checked;
} cb_vsize;

typedef struct cb_vloops {
	cb_vhow how;
	cb_vsize size[CB_VNSIZES];
} cb_vloops;

/* Sequence bits in an element's first word: 26 in a 4-byte value, 58
 * otherwise (and in a pointer). */
static inline unsigned cb_vseq_bits(cb_vhow how, size_t n)
{
	return how != CB_VHOW_PTR && n == 4 ? 32u - CB_PID_BITS
					    : 64u - CB_PID_BITS;
}

/* W as the element holds it (truncated to 32 bits in a 4-byte value). */
static inline uint64_t cb_vword(cb_vhow how, size_t n, uint64_t w)
{
	return how != CB_VHOW_PTR && n == 4 ? (uint64_t)(uint32_t)w : w;
}

/* The full sequence of truncated sequence s (sbits bits), the one nearest
 * to ref: ref + the signed difference, modulo 2^sbits. */
static inline uint64_t cb_vseq_near(uint64_t s, uint64_t ref, unsigned sbits)
{
	const uint64_t m = ((uint64_t)1 << sbits) - 1u;
	const uint64_t d = (s - ref) & m;
	const uint64_t half = (uint64_t)1 << (sbits - 1u);
	return d & half ? ref - ((m - d) + 1u) : ref + d;
}

/* --check: account for one polled element of first word w, as cb_chk_take
 * (exact: the next of its producer; else: later than the last this
 * consumer took of it), the sequence taken as the one nearest to the last
 * seen (sbits < 58: a 4-byte element). 1 if out of order or stray. */
static inline uint64_t cb_vchk_take(cb_chk *k, uint64_t w, unsigned sbits,
				    bool exact, uint32_t nproducers)
{
	const unsigned pid = (unsigned)(w & CB_PID_MASK);
	if (CONQ__UNLIKELY(pid >= nproducers)) {
		k->stray++;
		return 1;
	}
	const uint64_t last = k->last[pid];
	const uint64_t s = cb_vseq_near(w >> CB_PID_BITS, last, sbits);
	const uint64_t bad =
	    exact ? (uint64_t)(s != last + 1u)
		  : (uint64_t)(s - last - 1u >= ((uint64_t)1 << 62));
	k->last[pid] = s;
	k->cnt[pid]++;
	k->sum[pid] += s;
	return bad;
}

/* JMH's Blackhole.consume: x is computed (its loads done), then forgotten. */
#define cb_blackhole(x) __asm__ volatile("" : : "r"(x))

/* Write the element of first word w into dst (n bytes: every 8-byte word w;
 * 4 bytes: w's low half). n is a constant at every call. */
static CONQ__ALWAYS_INLINE void cb_vput(void *dst, uint64_t w, size_t n)
{
	if (n == 4) {
		const uint32_t v = (uint32_t)w;
		memcpy(dst, &v, 4);
		return;
	}
	for (size_t k = 0; k < n; k += 8)
		memcpy((unsigned char *)dst + k, &w, 8);
}

/* Read every word of the element at src; returns its first word, and adds 1
 * to *torn if another differs. */
static CONQ__ALWAYS_INLINE uint64_t cb_vget(const void *src, size_t n,
					    uint64_t *torn)
{
	if (n == 4) {
		uint32_t v;
		memcpy(&v, src, 4);
		return v;
	}
	uint64_t w0, acc = 0;
	memcpy(&w0, src, 8);
	for (size_t k = 0; k < n; k += 8) {
		uint64_t x;
		memcpy(&x, (const unsigned char *)src + k, 8);
		acc |= x ^ w0;
	}
	*torn += acc != 0;
	return w0;
}

/* ---- the payload pool of CB_VHOW_POOL --------------------------------- */

/* Buffers per producer beyond the queue's capacity: a full queue holds
 * capacity of them, the consumers a few more between poll and free. */
#define CB_VPOOL_SLACK 64u
/* A free buffer's first word: pid 63, sequence 0, never an element's (a
 * trial has at most 63 producers), in 4 bytes as in 8. */
#define CB_VPOOL_FREE ((uint64_t)CB_PID_MASK)

typedef struct cb_vpool {
	CB_ALIGNAS(CB_PAD) void *q; /* the pointer queue */
	size_t esize;		    /* payload bytes */
	size_t n;		    /* buffers per producer */
	unsigned np;
	unsigned char *buf[CB_MAX_THREADS]; /* producer p's n buffers */
} cb_vpool;

/* The first word of a buffer, as an atomic location. */
static inline uint32_t *cb_vpool_w32(void *b)
{
	return (uint32_t *)(uintptr_t)b;
}
static inline uint64_t *cb_vpool_w64(void *b)
{
	return (uint64_t *)(uintptr_t)b;
}

/* Producer: if buffer b (n bytes) is free, write element e into it and
 * return true (it is the producer's until offered); false if a consumer
 * has not given it back yet. */
static CONQ__ALWAYS_INLINE bool cb_vpool_take(void *b, uint64_t e, size_t n)
{
	/* acquire: pairs with cb_vpool_release's release store: the
	 * consumer's reads of the buffer happen-before our writes. */
	if (n == 4 ? conq__load_acquire(cb_vpool_w32(b)) !=
			 (uint32_t)CB_VPOOL_FREE
		   : conq__load_acquire(cb_vpool_w64(b)) != CB_VPOOL_FREE)
		return false;
	cb_vput(b, e, n);
	return true;
}

/* Consumer: buffer b (n bytes) read; give it back. */
static CONQ__ALWAYS_INLINE void cb_vpool_release(void *b, size_t n)
{
	/* release: pairs with cb_vpool_take's acquire. */
	if (n == 4)
		conq__store_release(cb_vpool_w32(b), (uint32_t)CB_VPOOL_FREE);
	else
		conq__store_release(cb_vpool_w64(b), CB_VPOOL_FREE);
}

static inline void cb_vpool_destroy(cb_vpool *p)
{
	if (p == NULL)
		return;
	for (unsigned k = 0; k < CB_MAX_THREADS; k++)
		cb_free_aligned(p->buf[k]);
	cb_free_aligned(p);
}

/* A pool around pointer queue pq (holding `usable`), for np producers of
 * esize-byte payloads; NULL on ENOMEM (pq is then the caller's). */
static inline cb_vpool *cb_vpool_create(void *pq, size_t usable, size_t esize,
					unsigned np)
{
	cb_vpool *p = (cb_vpool *)cb_alloc_aligned(sizeof *p);
	if (p == NULL)
		return NULL;
	p->q = pq;
	p->esize = esize;
	p->n = usable + CB_VPOOL_SLACK;
	p->np = np;
	for (unsigned k = 0; k < np && k < CB_MAX_THREADS; k++) {
		p->buf[k] = (unsigned char *)cb_alloc_aligned(p->n * esize);
		if (p->buf[k] == NULL) {
			p->q = NULL;
			cb_vpool_destroy(p);
			return NULL;
		}
		for (size_t i = 0; i < p->n; i++)
			cb_vpool_release(p->buf[k] + i * esize, esize);
	}
	return p;
}

/* ---- the steps, per HOW ------------------------------------------------ */

/* A producer's or consumer's own element buffer: at least 16 bytes (gcc's
 * -Warray-bounds sees the 8-byte copy of conq__value_copy, which a ring of
 * 4-byte elements never takes, reach past a 4-byte buffer). */
#define CB_VBUF(N) ((N) < 16 ? 16 : (N))

/* Producer: locals (DECL), the element of first word e made ready once per
 * element (PREP, after each success), one attempt to enqueue it (TRY, an
 * expression: true if enqueued), and what is left to undo when the role
 * ends with an element made ready (END). */
#define CB__VPDECL_CB_VHOW_COPY(N, Q_, W_)                                     \
	CB_ALIGNAS(64) unsigned char vb_[CB_VBUF(N)];                          \
	void *const vq_ = (Q_)
#define CB__VPREP_CB_VHOW_COPY(N, e)		cb_vput(vb_, e, N)
#define CB__VTRY_CB_VHOW_COPY(N, e, A, B, C, D) A(N, vq_, (const void *)vb_)
#define CB__VEND_CB_VHOW_COPY(N)		(void)0

#define CB__VPDECL_CB_VHOW_CLAIM(N, Q_, W_)                                    \
	void *vs_;                                                             \
	void *const vq_ = (Q_)
#define CB__VPREP_CB_VHOW_CLAIM(N, e) (void)0
#define CB__VEND_CB_VHOW_CLAIM(N)     (void)0
#define CB__VTRY_CB_VHOW_CLAIM(N, e, A, B, C, D)                               \
	((vs_ = A(N, vq_)) != NULL                                             \
	     ? (cb_vput(vs_, e, N), (void)B(N, vq_, vs_), true)                \
	     : false)

#define CB__VPDECL_CB_VHOW_PTR(N, Q_, W_)      void *const vq_ = (Q_)
#define CB__VPREP_CB_VHOW_PTR(N, e)	       (void)0
#define CB__VEND_CB_VHOW_PTR(N)		       (void)0
#define CB__VTRY_CB_VHOW_PTR(N, e, A, B, C, D) A(N, vq_, (void *)(uintptr_t)(e))

/* The next buffer is chosen after each success (PREP), and taken in TRY:
 * an attempt whose buffer is not back from the consumers yet fails like a
 * full queue (counted, backed off, the stop flag read between attempts),
 * so that a producer never waits where the iteration's end cannot reach
 * it (a wait in PREP could outlive the consumers' warm-down). */
#define CB__VPDECL_CB_VHOW_POOL(N, Q_, W_)                                     \
	cb_vpool *const vp_ = (cb_vpool *)(Q_);                                \
	void *const vq_ = vp_->q;                                              \
	unsigned char *const vpool_ = vp_->buf[(W_)->pid];                     \
	const size_t vn_ = vp_->n;                                             \
	size_t vi_ = (size_t)(((W_)->seq - 1u) % vn_);                         \
	unsigned char *vb_;                                                    \
	bool vown_ = false
#define CB__VPREP_CB_VHOW_POOL(N, e)                                           \
	do {                                                                   \
		vb_ = vpool_ + vi_ * (N);                                      \
		if (++vi_ == vn_)                                              \
			vi_ = 0;                                               \
		vown_ = false;                                                 \
	} while (0)
#define CB__VTRY_CB_VHOW_POOL(N, e, A, B, C, D)                                \
	((vown_ || (vown_ = cb_vpool_take(vb_, e, N))) &&                      \
	 A(N, vq_, (void *)vb_))
/* The buffer taken for the next element was not offered: free again (the
 * next call starts with it); one not taken is not ours to free. */
#define CB__VEND_CB_VHOW_POOL(N)                                               \
	do {                                                                   \
		if (vown_)                                                     \
			cb_vpool_release(vb_, N);                              \
	} while (0)

/* Consumer: locals (DECL); one attempt to take an element (TAKE, an
 * expression: true if it got one, its first word in vw_, every word read,
 * *torn counted). */
#define CB__VCDECL_CB_VHOW_COPY(N, Q_)                                         \
	CB_ALIGNAS(64) unsigned char vb_[CB_VBUF(N)] = {0};                    \
	void *const vq_ = (Q_)
#define CB__VTAKE_CB_VHOW_COPY(N, A, B, C, D, vw, torn)                        \
	(B(N, vq_, (void *)vb_) ? ((vw) = cb_vget(vb_, N, &(torn)), true)      \
				: false)

#define CB__VCDECL_CB_VHOW_CLAIM(N, Q_)                                        \
	const void *vs_;                                                       \
	void *const vq_ = (Q_)
#define CB__VTAKE_CB_VHOW_CLAIM(N, A, B, C, D, vw, torn)                       \
	((vs_ = C(N, vq_)) != NULL                                             \
	     ? ((vw) = cb_vget(vs_, N, &(torn)), (void)D(N, vq_, vs_), true)   \
	     : false)

#define CB__VCDECL_CB_VHOW_PTR(N, Q_)                                          \
	void *vp_;                                                             \
	void *const vq_ = (Q_)
#define CB__VTAKE_CB_VHOW_PTR(N, A, B, C, D, vw, torn)                         \
	((vp_ = B(N, vq_)) != NULL ? ((vw) = (uint64_t)(uintptr_t)vp_, true)   \
				   : false)

#define CB__VCDECL_CB_VHOW_POOL(N, Q_)                                         \
	void *vp_;                                                             \
	void *const vq_ = ((cb_vpool *)(Q_))->q
#define CB__VTAKE_CB_VHOW_POOL(N, A, B, C, D, vw, torn)                        \
	((vp_ = B(N, vq_)) != NULL ? ((vw) = cb_vget(vp_, N, &(torn)),         \
				      cb_vpool_release(vp_, N), true)          \
				   : false)

/* The roles are compiled with every call in them inlined (gcc's and
 * clang's flatten; the queues' cold paths are noinline and stay calls):
 * without it, gcc leaves conq's static inline offer/poll out of line in a
 * translation unit that instantiates many loops (its unit-growth limits),
 * while DPDK's always_inline operations are inlined: a call per element
 * for one queue and not for another. */
#define CB_FLATTEN __attribute__((flatten))

/* Role "offer" at element size N. */
#define CB__VOFFER_LOOP(FN, N, HOW, A, B, C, D)                                \
	static CB_FLATTEN void FN(cb_worker *w)                                \
	{                                                                      \
		cb_ctl *const ctl = w->ctl;                                    \
		const bool yield = ctl->yield;                                 \
		CB__VPDECL_##HOW(N, w->q, w);                                  \
		uint64_t e = cb_elem_bits(w->pid, w->seq);                     \
		uint64_t made = 0, failed = 0, extra = 0;                      \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		CB__VPREP_##HOW(N, e);                                         \
		cb_worker_begin(ctl, &u0_);                                    \
		while (cb_ctl_catching_up(ctl)) {                              \
			if (CB__VTRY_##HOW(N, e, A, B, C, D)) {                \
				e += CB_SEQ_ONE;                               \
				CB__VPREP_##HOW(N, e);                         \
				extra++;                                       \
				run = 0;                                       \
			} else {                                               \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		}                                                              \
		run = 0;                                                       \
		const uint64_t t0 = cb_now_ns();                               \
		do {                                                           \
			if (CB__VTRY_##HOW(N, e, A, B, C, D)) {                \
				e += CB_SEQ_ONE;                               \
				CB__VPREP_##HOW(N, e);                         \
				made++;                                        \
				run = 0;                                       \
			} else {                                               \
				failed++;                                      \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		} while (cb_ctl_running(ctl));                                 \
		const uint64_t t1 = cb_now_ns();                               \
		cb_ctl_leave(ctl);                                             \
		while (cb_ctl_warming_down(ctl)) {                             \
			if (CB__VTRY_##HOW(N, e, A, B, C, D)) {                \
				e += CB_SEQ_ONE;                               \
				CB__VPREP_##HOW(N, e);                         \
				extra++;                                       \
				run = 0;                                       \
			} else {                                               \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		}                                                              \
		CB__VEND_##HOW(N);                                             \
		w->seq = e >> CB_PID_BITS;                                     \
		w->torn = 0;                                                   \
		cb_worker_done(w, made, failed, extra, 0, t0, t1, &u0_);       \
	}

/* One consumer attempt: count it in `cnt` (made or extra) or in failed. */
#define CB__VPOLL_ONE(N, HOW, A, B, C, D, CHECK, cnt, failed)                  \
	do {                                                                   \
		uint64_t vw_ = 0;                                              \
		if (CB__VTAKE_##HOW(N, A, B, C, D, vw_, torn)) {               \
			(cnt)++;                                               \
			run = 0;                                               \
			cb_blackhole(vw_);                                     \
			if (CHECK)                                             \
				errors +=                                      \
				    cb_vchk_take(chk, vw_, sbits, exact, np);  \
		} else {                                                       \
			(failed)++;                                            \
			cb_fail_backoff(yield, &run);                          \
		}                                                              \
	} while (0)

/* Role "poll" at element size N; CHECK (a constant): --check. */
#define CB__VPOLL_LOOP(FN, N, HOW, A, B, C, D, CHECK)                          \
	static CB_FLATTEN void FN(cb_worker *w)                                \
	{                                                                      \
		cb_ctl *const ctl = w->ctl;                                    \
		const bool yield = ctl->yield;                                 \
		const bool exact = ctl->exact;                                 \
		const uint32_t np = ctl->nproducers;                           \
		const unsigned sbits = cb_vseq_bits(HOW, N);                   \
		cb_chk *const chk = w->chk;                                    \
		CB__VCDECL_##HOW(N, w->q);                                     \
		uint64_t made = 0, failed = 0, extra = 0, errors = 0;          \
		uint64_t torn = 0, uncounted = 0;                              \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		cb_worker_begin(ctl, &u0_);                                    \
		while (cb_ctl_catching_up(ctl))                                \
			CB__VPOLL_ONE(N, HOW, A, B, C, D, CHECK, extra,        \
				      uncounted);                              \
		run = 0;                                                       \
		const uint64_t t0 = cb_now_ns();                               \
		do {                                                           \
			CB__VPOLL_ONE(N, HOW, A, B, C, D, CHECK, made,         \
				      failed);                                 \
		} while (cb_ctl_running(ctl));                                 \
		const uint64_t t1 = cb_now_ns();                               \
		cb_ctl_leave(ctl);                                             \
		while (cb_ctl_warming_down(ctl))                               \
			CB__VPOLL_ONE(N, HOW, A, B, C, D, CHECK, extra,        \
				      uncounted);                              \
		(void)exact;                                                   \
		(void)np;                                                      \
		(void)chk;                                                     \
		(void)sbits;                                                   \
		(void)uncounted;                                               \
		w->torn = torn;                                                \
		cb_worker_done(w, made, failed, extra, errors, t0, t1, &u0_);  \
	}

/* Setup/teardown: offer one element of first word e as producer 0. */
#define CB__VGEN_OFFER_BODY_CB_VHOW_COPY(N, e, A, B, C, D)                     \
	CB_ALIGNAS(64) unsigned char vb_[CB_VBUF(N)];                          \
	void *const vq_ = q;                                                   \
	cb_vput(vb_, e, N);                                                    \
	return CB__VTRY_CB_VHOW_COPY(N, e, A, B, C, D)
#define CB__VGEN_OFFER_BODY_CB_VHOW_CLAIM(N, e, A, B, C, D)                    \
	void *vs_;                                                             \
	void *const vq_ = q;                                                   \
	return CB__VTRY_CB_VHOW_CLAIM(N, e, A, B, C, D)
#define CB__VGEN_OFFER_BODY_CB_VHOW_PTR(N, e, A, B, C, D)                      \
	void *const vq_ = q;                                                   \
	return CB__VTRY_CB_VHOW_PTR(N, e, A, B, C, D)
#define CB__VGEN_OFFER_BODY_CB_VHOW_POOL(N, e, A, B, C, D)                     \
	cb_vpool *const vp_ = (cb_vpool *)q;                                   \
	void *const vq_ = vp_->q;                                              \
	unsigned char *const vb_ =                                             \
	    vp_->buf[0] + (size_t)(((e >> CB_PID_BITS) - 1u) % vp_->n) * (N);  \
	bool vown_ = false;                                                    \
	if (CB__VTRY_CB_VHOW_POOL(N, e, A, B, C, D))                           \
		return true;                                                   \
	if (vown_) /* taken, not offered: free again */                        \
		cb_vpool_release(vb_, N);                                      \
	return false /* or not given back: a bug the counts show */

/* One element size's functions and table entry. */
#define CB__VSIZE_DEF(N, PFX, HOW, CREATE, DESTROY, A, B, C, D)                \
	static void *PFX##_vcreate_##N(size_t capacity, unsigned np,           \
				       size_t *usable)                         \
	{                                                                      \
		return CREATE(N, capacity, np, usable);                        \
	}                                                                      \
	static void PFX##_vdestroy_##N(void *q)                                \
	{                                                                      \
		DESTROY(N, q);                                                 \
	}                                                                      \
	static bool PFX##_voffer_##N(void *q, uint64_t e)                      \
	{                                                                      \
		CB__VGEN_OFFER_BODY_##HOW(N, e, A, B, C, D);                   \
	}                                                                      \
	static bool PFX##_vpoll_##N(void *q, uint64_t *vw, uint64_t *tornp)    \
	{                                                                      \
		uint64_t torn = 0;                                             \
		CB__VCDECL_##HOW(N, q);                                        \
		const bool got_ = CB__VTAKE_##HOW(N, A, B, C, D, *vw, torn);   \
		*tornp += torn;                                                \
		return got_;                                                   \
	}                                                                      \
	CB__VOFFER_LOOP(PFX##_vtpt_offer_##N, N, HOW, A, B, C, D)              \
	CB__VPOLL_LOOP(PFX##_vtpt_poll_##N, N, HOW, A, B, C, D, 0)             \
	CB__VPOLL_LOOP(PFX##_vtpt_pollc_##N, N, HOW, A, B, C, D, 1)

#define CB__VSIZE_ENTRY(N, PFX)                                                \
	{PFX##_vcreate_##N,   PFX##_vdestroy_##N,   PFX##_voffer_##N,          \
	 PFX##_vpoll_##N,     PFX##_vtpt_offer_##N, PFX##_vtpt_poll_##N,       \
	 PFX##_vtpt_pollc_##N},

#define CB_DEFINE_VALUE_LOOPS(PFX, HOW, CREATE, DESTROY, A, B, C, D)           \
	CB__VFOR_SIZES(CB__VSIZE_DEF, PFX, HOW, CREATE, DESTROY, A, B, C, D)   \
	static const cb_vloops PFX##_vloops = {                                \
	    HOW, {CB__VFOR_SIZES(CB__VSIZE_ENTRY, PFX)}};

/* The same, the table an external object VAR (for an adapter defined in
 * another file). */
#define CB_DEFINE_VALUE_LOOPS_EXTERN(VAR, PFX, HOW, CREATE, DESTROY, A, B, C,  \
				     D)                                        \
	CB__VFOR_SIZES(CB__VSIZE_DEF, PFX, HOW, CREATE, DESTROY, A, B, C, D)   \
	extern const cb_vloops VAR;                                            \
	const cb_vloops VAR = {HOW, {CB__VFOR_SIZES(CB__VSIZE_ENTRY, PFX)}};

/* An unused operation (C and D of COPY, PTR and POOL). */
#define CB_VNONE(...) 0

#ifdef __cplusplus
}
#endif

#endif /* CB_VLOOPS_H */
