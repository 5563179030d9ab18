/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/mpsc_bytes.h - a multi-producer single-consumer ring of
 * variable-length records, written in place: claim, write, commit.
 *
 * Agrona's ManyToOneRingBuffer (the transport of Aeron's IPC and of its
 * driver's command ring), in C, for threads or for processes that share
 * the ring's memory:
 *
 *  - The ring is `capacity` bytes (a power of two) of records. A record is
 *    an 8-byte header {int32 length, int32 type} and `length - 8` bytes of
 *    payload, padded to a multiple of 8 (CONQ_MPSC_BYTES_ALIGN). length
 *    counts the header and the payload, not the padding.
 *  - A producer claims the space of a record with a CAS of the tail
 *    position, checked against a cached head (Agrona's head cache: the
 *    consumer's position is read only when the cache shows too little
 *    room). A record never wraps: when it does not fit before the end of
 *    the ring, the claim also takes the rest of the ring and fills it with
 *    a padding record (type CONQ_MPSC_BYTES_PADDING, reserved).
 *  - The header's length is 0 before the claim, negative while the record
 *    is written ("in progress"), positive once committed; commit is one
 *    release store of the whole header.
 *  - The consumer reads records in position order, stops at the first
 *    header that is not committed, and zeroes the bytes it consumed before
 *    it hands them back to the producers (a release store of the head), so
 *    that the space ahead of the tail is always zero (Agrona's read).
 *
 * Positions are free-running conq__idx_t byte counts (64 bits; 16 or 32 in
 * the CONQ_INDEX_BITS test builds), so the ring's state is three positions
 * and the bytes: no pointers. A ring built by init() in memory that
 * several processes map works at any address in each of them; with
 * CONQ_MPSC_BYTES_SHARED its eventcounts are process-shared futexes and it
 * carries a claim registry (below), which lets its consumer recover from a
 * producer process that dies between claim and commit.
 *
 * Who may call what, concurrently (P = any number of producer threads, in
 * any process mapping the ring; C = the one consumer thread; A = any
 * thread). Handing the role of C to another thread (or process) needs a
 * happens-before edge between the old and the new holder.
 *
 *   function                           caller  progress
 *   claim, write                       P       lock-free (the CAS loop
 *                                              retries only when another
 *                                              producer claimed); on a
 *                                              shared ring a thread's first
 *                                              claim takes a registry entry
 *                                              (a mutex, syscalls)
 *   commit, abort                      P, the  wait-free
 *                                      claimer
 *   claim_until, write_until           P       blocking (while no room)
 *   read, peek, release                C       wait-free (stop before a
 *                                              record not committed)
 *   read_until, peek_until             C       blocking (while no record);
 *                                              shared rings: see below
 *   unblock                            C       cold (syscalls)
 *   size, is_empty, capacity,          A       wait-free (size: lock-free)
 *   max_record
 *   memsize, init, create, attach      A       (create: malloc)
 *   detach, destroy                    A       once this process's threads
 *                                              no longer use the ring
 *
 * Ordering: everything a producer wrote before commit() (the payload
 * included) happens-before everything the consumer does after the read()
 * or peek() that returns the record. Everything the consumer did before it
 * consumed a record (the handler's reads of the payload included)
 * happens-before a producer's reuse of its space. Records come out in the
 * order of their claims (the CAS): a producer's records in the order it
 * claimed them, and a record committed early waits behind an older one not
 * committed yet (as Agrona: no skipping).
 *
 * Records: 0 <= payload length <= max_record() = capacity / 8 (Agrona's
 * maxMsgLength; larger: EMSGSIZE), type in [CONQ_MPSC_BYTES_TYPE_MIN,
 * CONQ_MPSC_BYTES_TYPE_MAX] = [1, 2^31 - 1] (else EINVAL; negative types
 * are reserved, -1 is padding). A record of max_record() bytes always fits
 * an empty ring, padding included. Payloads are 8-byte aligned.
 *
 * Capacity: a power of two from CONQ_MPSC_BYTES_MIN_CAPACITY (64) to
 * CONQ_MPSC_BYTES_MAX_CAPACITY (CONQ_ARRAY_MAX_CAPACITY: 2^31 bytes on
 * 64-bit targets); anything else is EINVAL (not rounded: the record limit
 * and the memory depend on it).
 *
 * size() counts claimed bytes (padding and records in progress included).
 *
 * A claim that is never committed (its producer stalls, loops, or dies
 * between claim and commit/abort):
 *  - the consumer: read() and peek() stop before it, and every record
 *    claimed after it waits behind it (records are never skipped), so the
 *    consumer delivers nothing more until it is committed, aborted or
 *    reclaimed; read_until() and peek_until() wait for it;
 *  - the other producers: unaffected until the ring fills up behind it (at
 *    most capacity bytes in all are claimed and not consumed); then claim()
 *    fails with EAGAIN and claim_until() waits. Nobody spins on it but a
 *    waiting consumer (which parks).
 * Bounded by its producer's life on a shared ring: when the process that
 * claimed dies (or the thread exits), the consumer's unblock() turns the
 * claim into padding, and a read_until()/peek_until() stuck on it calls
 * unblock() by itself every dead_check_ns (CONQ_MPSC_BYTES_DEAD_CHECK_NS,
 * 20 ms by default), so the ring moves on within that time plus a scan. A
 * live producer's claim is never reclaimed, however long it takes
 * (SIGSTOP, a debugger): the timeout only sets how often liveness is
 * checked (conq/impl/claims.h argues why a reclaim needs proof of death,
 * and how it gets it). On a private ring (no CONQ_MPSC_BYTES_SHARED) there
 * is no registry: a thread that dies holding a claim blocks the consumer
 * for good, as conq_mpsc_array's bubble does, and unblock() does nothing.
 *
 * Shared rings, further rules: a thread holds at most one claim on a ring
 * at a time (a second claim: EBUSY), and commits or aborts it itself (the
 * registry entry that proves it alive is its thread's); a process calls
 * detach() before it unmaps the ring. Liveness across pid namespaces is
 * unsupported (conq/impl/claims.h).
 */
#ifndef CONQ_MPSC_BYTES_H
#define CONQ_MPSC_BYTES_H

#include <errno.h>
#include <string.h>

#include "conq/common.h"
#include "conq/eventcount.h"
#include "conq/impl/claims.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_mpsc_bytes conq_mpsc_bytes;

#define CONQ_MPSC_BYTES_ALIGN	     8u
#define CONQ_MPSC_BYTES_HEADER	     8u
#define CONQ_MPSC_BYTES_TYPE_MIN     1
#define CONQ_MPSC_BYTES_TYPE_MAX     INT32_MAX
#define CONQ_MPSC_BYTES_PADDING	     (-1)
#define CONQ_MPSC_BYTES_MIN_CAPACITY ((size_t)64)
#define CONQ_MPSC_BYTES_MAX_CAPACITY CONQ_ARRAY_MAX_CAPACITY

/* init_opts() flags. SHARED: process-shared eventcounts and a claim
 * registry (dead-producer recovery). */
#define CONQ_MPSC_BYTES_SHARED 1u
/* Registry entries (producer threads) of a shared ring, by default. */
#define CONQ_MPSC_BYTES_DEFAULT_PRODUCERS 64u
/* How often a waiting read of a shared ring stuck on a claim checks the
 * claimer's liveness, by default (ns). */
#define CONQ_MPSC_BYTES_DEAD_CHECK_NS (20 * 1000 * 1000)

typedef struct conq_mpsc_bytes_opts {
	unsigned flags;		/* 0 or CONQ_MPSC_BYTES_SHARED */
	unsigned max_producers; /* shared: registry entries; 0: default */
	int64_t dead_check_ns;	/* shared: liveness check period; 0: default */
} conq_mpsc_bytes_opts;

/* read()'s handler: one call per record, in order, on the consumer thread.
 * data (8-byte aligned, len bytes) is valid until read() returns. It must
 * not call back into the ring's consumer side. */
typedef void (*conq_mpsc_bytes_fn)(void *ctx, int32_t type, const void *data,
				   size_t len);

struct conq_mpsc_bytes {
	/* Read-mostly: written by init, then only read. */
	uint64_t magic;	     /* CONQ__MPSC_BYTES_MAGIC */
	uint64_t layout;     /* CONQ__MPSC_BYTES_LAYOUT of the build */
	uint64_t cap;	     /* bytes, a power of two */
	uint64_t mask;	     /* cap - 1 */
	uint64_t max_record; /* cap / 8: the largest payload */
	uint64_t reg_off;    /* the registry's offset from q; 0: none */
	uint64_t bytes;	     /* memsize: what init used */
	int64_t dead_check_ns;
	uint64_t flags;
	CONQ__PAD_AFTER(pad_cold, 9 * sizeof(uint64_t));

	/* Producer-hot: CASed by every claim. */
	conq__idx_t tail;	  /* the next position to claim */
	conq_eventcount nonempty; /* the consumer waits here; P notifies */
	CONQ__PAD_AFTER(pad_prod, CONQ__IDX_FIELDS(1) + sizeof(uint64_t));

	/* Producer-shared, read-mostly: Agrona's head cache. */
	conq__idx_t head_cache; /* some past value of head */
	CONQ__PAD_AFTER(pad_cache, sizeof(conq__idx_t));

	/* Consumer: written only by C. */
	conq__idx_t head;	 /* the next position to read */
	conq__idx_t stuck_at;	 /* waiting reads: the head found stuck */
	int64_t stuck_since;	 /* ... since then (conq_now_ns); 0: no */
	conq_eventcount nonfull; /* producers wait here; C notifies */
	CONQ__PAD_AFTER(pad_cons, CONQ__IDX_FIELDS(2) + 2 * sizeof(uint64_t));

	/* The records (cap bytes) follow, then CONQ_PAD bytes of guard, then
	 * the claim registry of a shared ring (at reg_off). */
};

CONQ__STATIC_ASSERT(offsetof(conq_mpsc_bytes, tail) % CONQ_PAD == 0,
		    "the tail starts a padded block");
CONQ__STATIC_ASSERT(offsetof(conq_mpsc_bytes, head_cache) -
			    offsetof(conq_mpsc_bytes, tail) >=
			CONQ_PAD,
		    "tail and head cache are CONQ_PAD apart");
CONQ__STATIC_ASSERT(offsetof(conq_mpsc_bytes, head) -
			    offsetof(conq_mpsc_bytes, head_cache) >=
			CONQ_PAD,
		    "head cache and head are CONQ_PAD apart");
CONQ__STATIC_ASSERT(sizeof(conq_mpsc_bytes) % CONQ_PAD == 0,
		    "the records start a padded block");

#define CONQ__MPSC_BYTES_MAGIC UINT64_C(0x636f6e716279746d) /* "conqbytm" */
/* What two builds must agree on to share a ring: the format version, the
 * index width, the padding (CONQ_PAD) and the struct's size. */
#define CONQ__MPSC_BYTES_LAYOUT                                                \
	((uint64_t)1 << 56 | (uint64_t)CONQ_INDEX_BITS << 48 |                 \
	 (uint64_t)CONQ_PAD << 32 | (uint64_t)sizeof(conq_mpsc_bytes))

/* Bytes of CONQ_PAD-aligned memory that init() needs for a private ring of
 * `capacity` bytes, or 0 with errno = EINVAL (capacity not a power of two
 * within [CONQ_MPSC_BYTES_MIN_CAPACITY, CONQ_MPSC_BYTES_MAX_CAPACITY]). A. */
size_t conq_mpsc_bytes_memsize(size_t capacity);

/* The same for init_opts(): a shared ring adds its registry. opts NULL:
 * a private ring. 0 with errno = EINVAL for a bad capacity, unknown flags,
 * max_producers above CONQ__CLAIMS_MAX or dead_check_ns < 0. A. */
size_t conq_mpsc_bytes_memsize_opts(size_t capacity,
				    const conq_mpsc_bytes_opts *opts);

/* Build a private ring in caller memory: `mem` aligned to CONQ_PAD, of
 * memsize(capacity) bytes (init zeroes them). Returns mem as a ring, or
 * NULL with errno = EINVAL. A. */
conq_mpsc_bytes *conq_mpsc_bytes_init(void *mem, size_t capacity);

/* Build a ring with options (CONQ_MPSC_BYTES_SHARED: in memory other
 * processes map, e.g. MAP_SHARED; they use the pointer at which they map
 * it, after attach()). mem holds memsize_opts(capacity, opts) bytes. NULL
 * with errno = EINVAL on bad input. Only the creator calls init: it zeroes
 * the memory, which would erase a ring in use (Agrona PR #229). */
conq_mpsc_bytes *conq_mpsc_bytes_init_opts(void *mem, size_t capacity,
					   const conq_mpsc_bytes_opts *opts);

/* Allocate and init a private ring. NULL with errno = EINVAL or ENOMEM. */
conq_mpsc_bytes *conq_mpsc_bytes_create(size_t capacity);

/* Free a ring from create(). NULL is a no-op. */
void conq_mpsc_bytes_destroy(conq_mpsc_bytes *q);

/* Check that `bytes` bytes at mem hold a ring that init() built (in this
 * or another process) with this build's layout, and return it. Writes
 * nothing. NULL with errno = EINVAL (not a ring, or it does not fit in
 * bytes) or EPROTO (a ring of another layout: index width, CONQ_PAD or
 * version). A. */
conq_mpsc_bytes *conq_mpsc_bytes_attach(void *mem, size_t bytes);

/* This process stops using a shared ring: frees its threads' registry
 * entries. Call before unmapping it (a thread's exit would write into its
 * entry), once no thread of this process uses the ring. Private rings: a
 * no-op. A. */
void conq_mpsc_bytes_detach(conq_mpsc_bytes *q);

/* The ring in a named region or a memfd (conq/shm.h), shared by
 * processes. shm_create: CONQ_MPSC_BYTES_SHARED is added to opts (NULL:
 * the defaults); the region's kind is CONQ_SHM_KIND_MPSC_BYTES, its
 * capacity the ring's. shm_open, shm_open_fd: check the region (kind,
 * layout; capacity 0 accepts the region's) and attach. shm_close: detach
 * and unmap. NULL (or -1) with errno and conq_shm_last_error() on
 * failure. A. */
struct conq_shm;
struct conq_shm_options;
conq_mpsc_bytes *conq_mpsc_bytes_shm_create(
    const char *name, size_t capacity, const conq_mpsc_bytes_opts *opts,
    const struct conq_shm_options *shm_opts, struct conq_shm **shm);
conq_mpsc_bytes *conq_mpsc_bytes_shm_open(const char *name, size_t capacity,
					  const struct conq_shm_options *shm_opts,
					  struct conq_shm **shm);
conq_mpsc_bytes *
conq_mpsc_bytes_shm_open_fd(int fd, size_t capacity,
			    const struct conq_shm_options *shm_opts,
			    struct conq_shm **shm);
int conq_mpsc_bytes_shm_close(struct conq_shm *shm);

/* The largest payload a record may have: capacity / 8. A. */
static inline size_t conq_mpsc_bytes_max_record(const conq_mpsc_bytes *q)
{
	return (size_t)q->max_record;
}

/* The capacity in bytes. A. */
static inline size_t conq_mpsc_bytes_capacity(const conq_mpsc_bytes *q)
{
	return (size_t)q->cap;
}

static inline unsigned char *conq__mpsc_bytes_data(const conq_mpsc_bytes *q)
{
	return (unsigned char *)((uintptr_t)q + sizeof(conq_mpsc_bytes));
}

/* The header word at byte index i (a multiple of 8) of the records.
 * Through uintptr_t: the records start CONQ_PAD-aligned (asserted). */
static inline uint64_t *conq__mpsc_bytes_hdr(const conq_mpsc_bytes *q,
					     uint64_t i)
{
	return (uint64_t *)((uintptr_t)conq__mpsc_bytes_data(q) + i);
}

static inline conq__claims *conq__mpsc_bytes_reg(const conq_mpsc_bytes *q)
{
	return (conq__claims *)((uintptr_t)q + q->reg_off);
}

/* A header: length in the low 32 bits, type in the high 32. */
static inline uint64_t conq__mpsc_bytes_header(int64_t len, int32_t type)
{
	return (uint64_t)(uint32_t)(int32_t)len | (uint64_t)(uint32_t)type
						      << 32;
}

static inline int32_t conq__mpsc_bytes_len(uint64_t w)
{
	return (int32_t)(uint32_t)w;
}

static inline int32_t conq__mpsc_bytes_type(uint64_t w)
{
	return (int32_t)(uint32_t)(w >> 32);
}

static inline uint64_t conq__mpsc_bytes_align(uint64_t n)
{
	return (n + CONQ_MPSC_BYTES_ALIGN - 1) &
	       ~(uint64_t)(CONQ_MPSC_BYTES_ALIGN - 1);
}

/* P, slow path: the cached head `old` shows too little room; the head
 * itself, stored into the cache when it moved. */
static CONQ__NOINLINE conq__idx_t conq__mpsc_bytes_refresh(conq_mpsc_bytes *q,
							   conq__idx_t old)
{
	/* [B5] acquire: pairs with [B6] (the consumer's release of head): the
	 * consumer read and zeroed every byte below head first. */
	conq__idx_t h = conq__load_acquire(&q->head);
	/* [B4] release: pairs with [B4] (the other producers' acquire of the
	 * cache): a producer that claims against it sees those zeroes. Every
	 * value stored is some past head, so an older one is only more
	 * cautious; stored only when it moved. */
	if (conq__idx_diff(h, old) > 0)
		conq__store_release(&q->head_cache, h);
	return h;
}

/*
 * P: claim a record of `len` payload bytes (already checked), with entry e
 * of the registry (NULL on a private ring). Returns the payload, its
 * header stored "in progress"; NULL with errno = EAGAIN when the record
 * does not fit (the ring unchanged).
 *
 * "Does not fit" is decided on a tail t seen through [B3] and a head read
 * after it through [B5]: the tail only grows, so t + padding + record >
 * head + capacity held when the head was read.
 */
static inline void *conq__mpsc_bytes_claim(conq_mpsc_bytes *q, int32_t type,
					   size_t len, conq__claim_entry *e)
{
	uint64_t need =
	    conq__mpsc_bytes_align((uint64_t)len + CONQ_MPSC_BYTES_HEADER);
	uint64_t cap = q->cap, pad;
	/* [B4] acquire: as in refresh. */
	conq__idx_t hc = conq__load_acquire(&q->head_cache);
	/* [B3] acquire: pairs with [B3] (the CAS of the producer that moved
	 * the tail here): the head that justified its claim happens-before
	 * our own read of the head (DPDK's head/tail lesson, as [M3]). */
	conq__idx_t t = conq__load_acquire(&q->tail);
	for (;;) {
		uint64_t to_end = cap - (t & q->mask);
		pad = to_end < need ? to_end : 0;
		int64_t after =
		    (int64_t)conq__idx_diff(t, hc) + (int64_t)(pad + need);
		if (after > (int64_t)cap) {
			hc = conq__mpsc_bytes_refresh(q, hc);
			after = (int64_t)conq__idx_diff(t, hc) +
				(int64_t)(pad + need);
			if (after > (int64_t)cap) {
				if (e != NULL)
					conq__claims_done(e); /* [CL1] */
				errno = EAGAIN;
				return NULL;
			}
		}
		if (e != NULL)
			conq__claims_intend(e,
					    conq__claims_token(t)); /* [CL1] */
		/* [B3] CAS acq_rel: the claim. Pairs with [B3] (the other
		 * producers' loads and CASes of the tail) as above, with [B8]
		 * (the consumer's acquire of the tail in unblock, which needs
		 * our intent [CL1] before it) and with size()'s acquire. The
		 * record is published by [B1], not by this CAS. */
		if (conq__cas_weak_acq_rel(&q->tail, &t,
					   conq__idx_add(t, pad + need)))
			break;
	}
	uint64_t i = t & q->mask;
	if (pad != 0) {
		/* [B1] release: the padding, committed at once; pairs with
		 * [B2]. */
		conq__store_release(conq__mpsc_bytes_hdr(q, i),
				    conq__mpsc_bytes_header(
					(int64_t)pad, CONQ_MPSC_BYTES_PADDING));
		i = 0;
	}
	/* relaxed: "in progress"; the consumer stops at it as at a zero. */
	conq__store_relaxed(
	    conq__mpsc_bytes_hdr(q, i),
	    conq__mpsc_bytes_header(-(int64_t)(len + CONQ_MPSC_BYTES_HEADER),
				    type));
	/* [B7] compiler barrier: the header store above stays before the
	 * caller's payload stores in program order, so that a producer
	 * killed after writing any payload has its header written too (a
	 * kill is asynchronous to this thread, as a signal is: an
	 * atomic_signal_fence is the ordering it needs). unblock() relies on
	 * "header 0 => nothing written" (docs/memory-model.md, [B7]). */
	conq__compiler_barrier();
	return conq__mpsc_bytes_data(q) + i + CONQ_MPSC_BYTES_HEADER;
}

/* Shared rings: this thread's registry entry; NULL with errno set. */
static inline conq__claim_entry *conq__mpsc_bytes_entry(conq_mpsc_bytes *q)
{
	return conq__claims_enter(conq__mpsc_bytes_reg(q));
}

/*
 * Claim a record of `type` with `len` payload bytes, to be written in place
 * and then committed (or aborted). Returns the payload (8-byte aligned,
 * len bytes, contents unspecified), or NULL with errno:
 *   EAGAIN    not enough room now (the ring is unchanged);
 *   EMSGSIZE  len > max_record();
 *   EINVAL    type outside [CONQ_MPSC_BYTES_TYPE_MIN, _TYPE_MAX];
 *   EBUSY     shared ring: this thread already holds a claim on it;
 *   EUSERS    shared ring: every registry entry belongs to a live thread;
 *   ENOMEM    shared ring: this thread's table of entries cannot grow.
 * P. Lock-free. The record is published by commit().
 */
static inline void *conq_mpsc_bytes_claim(conq_mpsc_bytes *q, int32_t type,
					  size_t len)
{
	if (CONQ__UNLIKELY(type < CONQ_MPSC_BYTES_TYPE_MIN)) {
		errno = EINVAL;
		return NULL;
	}
	if (CONQ__UNLIKELY((uint64_t)len > q->max_record)) {
		errno = EMSGSIZE;
		return NULL;
	}
	conq__claim_entry *e = NULL;
	if (q->reg_off != 0) { /* a read-mostly field: a predictable branch */
		e = conq__mpsc_bytes_entry(q);
		if (e == NULL)
			return NULL;
		if (conq__claims_held(e) != 0) {
			errno = EBUSY;
			return NULL;
		}
	}
	return conq__mpsc_bytes_claim(q, type, len, e);
}

/* The header of a claimed payload p, or NULL if p cannot be one. */
static inline uint64_t *conq__mpsc_bytes_claimed(const conq_mpsc_bytes *q,
						 const void *p)
{
	uintptr_t d = (uintptr_t)conq__mpsc_bytes_data(q);
	uintptr_t a = (uintptr_t)p;
	if (a < d + CONQ_MPSC_BYTES_HEADER || a - d > q->cap ||
	    (a - d) % CONQ_MPSC_BYTES_ALIGN != 0)
		return NULL;
	return (uint64_t *)(a - CONQ_MPSC_BYTES_HEADER);
}

/* After a commit or an abort: clear the intent, wake a waiting reader. */
static inline void conq__mpsc_bytes_published(conq_mpsc_bytes *q)
{
	if (q->reg_off != 0) {
		conq__claim_entry *e = conq__mpsc_bytes_entry(q);
		if (e != NULL)
			conq__claims_done(e); /* [CL1]: after [B1] */
	}
	conq_eventcount_notify(&q->nonempty); /* [E2]: a waiting read */
}

/*
 * Commit the record claimed at payload p: the consumer may read it from
 * now on. True; false with errno = EINVAL if p is not the payload of a
 * record in progress (never claimed, already committed or aborted). P, the
 * thread that claimed it. Wait-free. Release: everything this thread wrote
 * before (the payload included) is visible to the consumer that reads it.
 */
static inline bool conq_mpsc_bytes_commit(conq_mpsc_bytes *q, void *p)
{
	uint64_t *h = conq__mpsc_bytes_claimed(q, p);
	/* relaxed: our own "in progress" header (a bad p reads some word). */
	uint64_t w = h != NULL ? conq__load_relaxed(h) : 0;
	int32_t len = conq__mpsc_bytes_len(w);
	if (CONQ__UNLIKELY(len >= 0)) {
		errno = EINVAL;
		return false;
	}
	/* [B1] release: publishes the record and everything we wrote before;
	 * pairs with [B2] (the consumer's acquire of the header). */
	conq__store_release(h, conq__mpsc_bytes_header(
				   -(int64_t)len, conq__mpsc_bytes_type(w)));
	conq__mpsc_bytes_published(q);
	return true;
}

/* Abort the record claimed at p: it becomes padding, which the consumer
 * skips (and zeroes). True, or false with errno = EINVAL as commit. P, the
 * claimer. Wait-free. */
static inline bool conq_mpsc_bytes_abort(conq_mpsc_bytes *q, void *p)
{
	uint64_t *h = conq__mpsc_bytes_claimed(q, p);
	/* relaxed: as in commit. */
	uint64_t w = h != NULL ? conq__load_relaxed(h) : 0;
	int32_t len = conq__mpsc_bytes_len(w);
	if (CONQ__UNLIKELY(len >= 0)) {
		errno = EINVAL;
		return false;
	}
	/* [B1] release: the padding; pairs with [B2]. */
	conq__store_release(
	    h, conq__mpsc_bytes_header(
		   (int64_t)conq__mpsc_bytes_align((uint64_t) - (int64_t)len),
		   CONQ_MPSC_BYTES_PADDING));
	conq__mpsc_bytes_published(q);
	return true;
}

/* Claim, copy len bytes from data, commit. True; false with claim's errno
 * (the ring unchanged), or EINVAL for a NULL data with len > 0. P.
 * Lock-free. Release, as commit. */
static inline bool conq_mpsc_bytes_write(conq_mpsc_bytes *q, int32_t type,
					 const void *data, size_t len)
{
	if (CONQ__UNLIKELY(data == NULL && len != 0)) {
		errno = EINVAL;
		return false;
	}
	void *p = conq_mpsc_bytes_claim(q, type, len);
	if (p == NULL)
		return false;
	if (len != 0)
		memcpy(p, data, len);
	uint64_t *h = (uint64_t *)((uintptr_t)p - CONQ_MPSC_BYTES_HEADER);
	/* [B1] release: as in commit. */
	conq__store_release(
	    h, conq__mpsc_bytes_header((int64_t)(len + CONQ_MPSC_BYTES_HEADER),
				       type));
	conq__mpsc_bytes_published(q);
	return true;
}

/* C: hand back n consumed bytes from position h: zero them, then move the
 * head. Every consumption goes through here. */
static inline void conq__mpsc_bytes_consume(conq_mpsc_bytes *q, conq__idx_t h,
					    uint64_t n)
{
	unsigned char *d = conq__mpsc_bytes_data(q);
	uint64_t i = h & q->mask, first = q->cap - i;
	/* Plain stores: the producers learn of them through [B6]. */
	if (n <= first) {
		memset(d + i, 0, (size_t)n);
	} else {
		memset(d + i, 0, (size_t)first);
		memset(d, 0, (size_t)(n - first));
	}
	/* [B6] release: pairs with [B5]; our reads of the records and the
	 * zeroes happen-before a producer's reuse of the space. */
	conq__store_release(&q->head, conq__idx_add(h, n));
	conq_eventcount_notify(&q->nonfull); /* [E2]: a waiting claim */
}

/*
 * Hand up to `limit` records to fn(ctx, type, data, len), oldest first,
 * skipping padding; stops early at a record not committed yet (or at an
 * empty ring). The bytes of the records (and padding) passed over are
 * zeroed and handed back to the producers after the last call of fn, once
 * per read (Agrona's read). Returns the records handed to fn. C only; fn
 * must not use the ring's consumer side. Wait-free apart from fn. Acquire:
 * see the header comment.
 */
static inline size_t conq_mpsc_bytes_read(conq_mpsc_bytes *q,
					  conq_mpsc_bytes_fn fn, void *ctx,
					  size_t limit)
{
	conq__idx_t h = q->head;
	unsigned char *d = conq__mpsc_bytes_data(q);
	uint64_t done = 0;
	size_t n = 0;
	/* done < cap: a ring full of committed records must not be read
	 * round twice (the bytes are zeroed only at the end). */
	while (n < limit && done < q->cap) {
		uint64_t i = (h + done) & q->mask;
		/* [B2] acquire: pairs with [B1]; the payload is visible once
		 * the committed header is. */
		uint64_t w = conq__load_acquire(conq__mpsc_bytes_hdr(q, i));
		int32_t len = conq__mpsc_bytes_len(w);
		if (len <= 0)
			break;
		done += conq__mpsc_bytes_align((uint64_t)len);
		int32_t type = conq__mpsc_bytes_type(w);
		if (type == CONQ_MPSC_BYTES_PADDING)
			continue;
		fn(ctx, type, d + i + CONQ_MPSC_BYTES_HEADER,
		   (size_t)len - CONQ_MPSC_BYTES_HEADER);
		n++;
	}
	if (done != 0)
		conq__mpsc_bytes_consume(q, h, done);
	return n;
}

/*
 * The oldest record without consuming it: its payload (valid until
 * release()), with its type and payload length in *type and *len (either
 * may be NULL); NULL if there is none committed at the head (empty, or the
 * oldest is in progress). Padding at the head is consumed on the way. C
 * only. Wait-free. Acquire, as read.
 */
static inline const void *conq_mpsc_bytes_peek(conq_mpsc_bytes *q,
					       int32_t *type, size_t *len)
{
	for (;;) {
		conq__idx_t h = q->head;
		uint64_t i = h & q->mask;
		/* [B2] acquire: pairs with [B1]. */
		uint64_t w = conq__load_acquire(conq__mpsc_bytes_hdr(q, i));
		int32_t l = conq__mpsc_bytes_len(w);
		if (l <= 0)
			return NULL;
		if (conq__mpsc_bytes_type(w) != CONQ_MPSC_BYTES_PADDING) {
			if (type != NULL)
				*type = conq__mpsc_bytes_type(w);
			if (len != NULL)
				*len = (size_t)l - CONQ_MPSC_BYTES_HEADER;
			return conq__mpsc_bytes_data(q) + i +
			       CONQ_MPSC_BYTES_HEADER;
		}
		conq__mpsc_bytes_consume(q, h,
					 conq__mpsc_bytes_align((uint64_t)l));
	}
}

/* Consume the record peek() returned (zero it, hand it back). True; false
 * with errno = EINVAL if there is no committed record at the head. C only.
 * Wait-free. */
static inline bool conq_mpsc_bytes_release(conq_mpsc_bytes *q)
{
	conq__idx_t h = q->head;
	/* [B2] acquire: pairs with [B1] (our zeroes must follow the
	 * producer's writes). */
	uint64_t w = conq__load_acquire(conq__mpsc_bytes_hdr(q, h & q->mask));
	int32_t l = conq__mpsc_bytes_len(w);
	if (l <= 0 || conq__mpsc_bytes_type(w) == CONQ_MPSC_BYTES_PADDING) {
		errno = EINVAL;
		return false;
	}
	conq__mpsc_bytes_consume(q, h, conq__mpsc_bytes_align((uint64_t)l));
	return true;
}

/* Bytes claimed and not consumed (padding and records in progress
 * included), within [0, capacity()]. Exact when no P or C runs. A.
 * Lock-free (retries while the head moves). */
static inline size_t conq_mpsc_bytes_size(const conq_mpsc_bytes *q)
{
	/* [B8] acquire (all three): pair with [B6] and [B3]. */
	return conq__indexed_size(&q->head, &q->tail, q->cap);
}

/* True if nothing was claimed and not consumed at some moment during the
 * call (a record in progress makes the ring not empty). A. Wait-free. */
static inline bool conq_mpsc_bytes_is_empty(const conq_mpsc_bytes *q)
{
	/* [B8] acquire: pairs with [B6], then [B3]. */
	conq__idx_t h = conq__load_acquire(&q->head);
	return conq__idx_diff(conq__load_acquire(&q->tail), h) <= 0;
}

/*
 * claim(), waiting while there is no room, until the CLOCK_MONOTONIC
 * deadline (conq_now_ns() + timeout; CONQ_NO_DEADLINE: for ever). NULL
 * with errno = ETIMEDOUT at the deadline, or with claim()'s other errors
 * at once (never waits for them). Watches for about 1 us, then parks on
 * the ring's nonfull eventcount. P. Blocking.
 */
void *conq_mpsc_bytes_claim_until(conq_mpsc_bytes *q, int32_t type, size_t len,
				  int64_t deadline);

/* write(), waiting for room as claim_until. P. Blocking. */
bool conq_mpsc_bytes_write_until(conq_mpsc_bytes *q, int32_t type,
				 const void *data, size_t len,
				 int64_t deadline);

/*
 * read(), waiting until it hands at least one record to fn (or limit is
 * 0), until the deadline: 0 with errno = ETIMEDOUT then. Watches for about
 * 1 us, then parks on the nonempty eventcount. On a shared ring, while the
 * head record stays uncommitted it calls unblock() every dead_check_ns,
 * so that a dead producer's claim is reclaimed. C. Blocking.
 */
size_t conq_mpsc_bytes_read_until(conq_mpsc_bytes *q, conq_mpsc_bytes_fn fn,
				  void *ctx, size_t limit, int64_t deadline);

/* peek(), waiting as read_until for a record; NULL with errno = ETIMEDOUT
 * at the deadline. C. Blocking. */
const void *conq_mpsc_bytes_peek_until(conq_mpsc_bytes *q, int32_t *type,
				       size_t *len, int64_t deadline);

/*
 * If the head record is stuck (not committed) and every thread that may
 * hold it is dead (its process died, or its thread exited), turn it into
 * padding, so that read() passes it: Agrona's unblock, with proof of death
 * instead of a timeout (conq/impl/claims.h). Returns true if it reclaimed
 * something. A claim whose header was never written is found by its zero
 * bytes up to the next record or live claim (all of it belonged to dead
 * claimers, which wrote nothing there). Never reclaims a live producer's
 * record. Private rings: false, nothing done. C only. Cold: syscalls per
 * registry entry near the head.
 */
bool conq_mpsc_bytes_unblock(conq_mpsc_bytes *q);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_MPSC_BYTES_H */
