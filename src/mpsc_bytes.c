/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Cold paths of conq_mpsc_bytes: sizing, init, attach, the waiting calls,
 * and unblock (the reclaim of a dead producer's claim).
 */
#include <errno.h>
#include <string.h>

#include "conq/mpsc_bytes.h"
#include "conq/shm.h"
#include "conq/impl/blocking.h"
#include "conq/impl/testing.h"
#include "internal.h"

static bool conq__bytes_cap_ok(size_t capacity)
{
	return capacity >= CONQ_MPSC_BYTES_MIN_CAPACITY &&
	       capacity <= CONQ_MPSC_BYTES_MAX_CAPACITY &&
	       (capacity & (capacity - 1)) == 0;
}

/* The registry entries opts asks for; 0 for a private ring; -1 if bad. */
static long conq__bytes_producers(const conq_mpsc_bytes_opts *o)
{
	if (o == NULL)
		return 0;
	if ((o->flags & ~CONQ_MPSC_BYTES_SHARED) != 0 || o->dead_check_ns < 0 ||
	    o->max_producers > CONQ__CLAIMS_MAX)
		return -1;
	if ((o->flags & CONQ_MPSC_BYTES_SHARED) == 0)
		return 0;
	return o->max_producers ? (long)o->max_producers
				: (long)CONQ_MPSC_BYTES_DEFAULT_PRODUCERS;
}

/* The ring's part: header, records, guard. */
static size_t conq__bytes_ring_size(size_t capacity)
{
	return sizeof(conq_mpsc_bytes) + capacity + CONQ_PAD;
}

size_t conq_mpsc_bytes_memsize_opts(size_t capacity,
				    const conq_mpsc_bytes_opts *opts)
{
	long np = conq__bytes_producers(opts);
	if (!conq__bytes_cap_ok(capacity) || np < 0) {
		errno = EINVAL;
		return 0;
	}
	size_t bytes = conq__bytes_ring_size(capacity);
	if (np > 0)
		bytes += conq__claims_memsize((unsigned)np);
	return bytes;
}

size_t conq_mpsc_bytes_memsize(size_t capacity)
{
	return conq_mpsc_bytes_memsize_opts(capacity, NULL);
}

static conq_mpsc_bytes *conq__bytes_init(void *mem, size_t capacity,
					 const conq_mpsc_bytes_opts *opts,
					 uint64_t start, int zeroed)
{
	size_t bytes = conq_mpsc_bytes_memsize_opts(capacity, opts);
	if (bytes == 0)
		return NULL;
	if (mem == NULL || (uintptr_t)mem % CONQ_PAD != 0) {
		errno = EINVAL;
		return NULL;
	}
	if (!zeroed)
		memset(mem, 0, bytes);
	/* Plain stores: nobody sees the ring before init returns (the caller
	 * publishes it: thread creation, fork, a release store...). */
	conq_mpsc_bytes *q = (conq_mpsc_bytes *)mem;
	long np = conq__bytes_producers(opts);
	unsigned ecflags = 0;
	q->cap = capacity;
	q->mask = capacity - 1;
	q->max_record = capacity / 8;
	q->bytes = bytes;
	q->flags = opts != NULL ? opts->flags : 0;
	q->dead_check_ns = opts != NULL && opts->dead_check_ns > 0
			       ? opts->dead_check_ns
			       : CONQ_MPSC_BYTES_DEAD_CHECK_NS;
	if (np > 0) {
		q->reg_off = conq__bytes_ring_size(capacity);
		conq__claims_init(conq__mpsc_bytes_reg(q), (unsigned)np);
		ecflags = CONQ_EVENTCOUNT_SHARED;
	}
	/* A narrow index build keeps start's low bits; positions stay
	 * multiples of 8. */
	start &= ~(uint64_t)(CONQ_MPSC_BYTES_ALIGN - 1);
	q->tail = q->head = q->head_cache = (conq__idx_t)start;
	conq_eventcount_init(&q->nonempty, ecflags);
	conq_eventcount_init(&q->nonfull, ecflags);
	q->layout = CONQ__MPSC_BYTES_LAYOUT;
	q->magic = CONQ__MPSC_BYTES_MAGIC;
	return q;
}

conq_mpsc_bytes *conq_mpsc_bytes_init_opts(void *mem, size_t capacity,
					   const conq_mpsc_bytes_opts *opts)
{
	return conq__bytes_init(mem, capacity, opts, 0, 0);
}

conq_mpsc_bytes *conq_mpsc_bytes_init(void *mem, size_t capacity)
{
	return conq__bytes_init(mem, capacity, NULL, 0, 0);
}

conq_mpsc_bytes *conq__mpsc_bytes_init_at(void *mem, size_t capacity,
					  const conq_mpsc_bytes_opts *opts,
					  uint64_t start)
{
	return conq__bytes_init(mem, capacity, opts, start, 0);
}

conq_mpsc_bytes *conq_mpsc_bytes_create(size_t capacity)
{
	size_t bytes = conq_mpsc_bytes_memsize(capacity);
	if (bytes == 0)
		return NULL;
	void *mem = conq__alloc_aligned(bytes);
	if (mem == NULL)
		return NULL;
	return conq__bytes_init(mem, capacity, NULL, 0, 1);
}

void conq_mpsc_bytes_destroy(conq_mpsc_bytes *q)
{
	conq__free_aligned(q);
}

conq_mpsc_bytes *conq_mpsc_bytes_attach(void *mem, size_t bytes)
{
	conq_mpsc_bytes *q = (conq_mpsc_bytes *)mem;
	if (mem == NULL || (uintptr_t)mem % CONQ_PAD != 0 ||
	    bytes < sizeof(conq_mpsc_bytes) ||
	    q->magic != CONQ__MPSC_BYTES_MAGIC) {
		errno = EINVAL;
		return NULL;
	}
	if (q->layout != CONQ__MPSC_BYTES_LAYOUT) {
		errno = EPROTO;
		return NULL;
	}
	if (q->cap > SIZE_MAX || !conq__bytes_cap_ok((size_t)q->cap) ||
	    q->mask != q->cap - 1 || q->max_record != q->cap / 8 ||
	    q->bytes > bytes ||
	    q->bytes < conq__bytes_ring_size((size_t)q->cap) ||
	    (q->flags & ~(uint64_t)CONQ_MPSC_BYTES_SHARED) != 0 ||
	    q->dead_check_ns <= 0) {
		errno = EINVAL;
		return NULL;
	}
	if (q->reg_off != 0 &&
	    (q->reg_off != conq__bytes_ring_size((size_t)q->cap) ||
	     !conq__claims_valid(conq__mpsc_bytes_reg(q),
				 (size_t)(q->bytes - q->reg_off)))) {
		errno = EINVAL;
		return NULL;
	}
	return q;
}

void conq_mpsc_bytes_detach(conq_mpsc_bytes *q)
{
	if (q != NULL && q->reg_off != 0)
		conq__claims_detach(conq__mpsc_bytes_reg(q));
}

/* ------------------------------------------------------- waiting calls */

/* Looks before parking: one per 128 ns of conq__block_spin_ns. */
static unsigned conq__bytes_looks(void)
{
	return conq__load_relaxed(&conq__block_spin_ns) / 128;
}

static bool conq__bytes_past(int64_t deadline)
{
	return deadline != CONQ_NO_DEADLINE && conq_now_ns() >= deadline;
}

/* One claim; 1: got it (*p), 0: no room, -1: failed for good (errno). */
static int conq__bytes_try_claim(conq_mpsc_bytes *q, int32_t type, size_t len,
				 void **p)
{
	*p = conq_mpsc_bytes_claim(q, type, len);
	if (*p != NULL)
		return 1;
	return errno == EAGAIN ? 0 : -1;
}

void *conq_mpsc_bytes_claim_until(conq_mpsc_bytes *q, int32_t type, size_t len,
				  int64_t deadline)
{
	int saved = errno, r;
	void *p;
	if ((r = conq__bytes_try_claim(q, type, len, &p)) != 0)
		goto done;
	if (conq__bytes_past(deadline))
		goto timeout;
	for (unsigned i = 0, n = conq__bytes_looks(); i < n; i++) {
		conq__watch_gap(128);
		if ((r = conq__bytes_try_claim(q, type, len, &p)) != 0)
			goto done;
	}
	for (;;) {
		uint32_t key = conq_eventcount_prepare(&q->nonfull);
		/* The re-try after [E1]: see conq/eventcount.h. */
		if ((r = conq__bytes_try_claim(q, type, len, &p)) != 0) {
			conq_eventcount_cancel(&q->nonfull);
			goto done;
		}
		int rc = conq_eventcount_wait(&q->nonfull, key, deadline);
		if ((r = conq__bytes_try_claim(q, type, len, &p)) != 0)
			goto done;
		if (rc == ETIMEDOUT)
			goto timeout;
	}
done:
	if (r > 0)
		errno = saved;
	return p; /* NULL: claim()'s errno */
timeout:
	errno = ETIMEDOUT;
	return NULL;
}

bool conq_mpsc_bytes_write_until(conq_mpsc_bytes *q, int32_t type,
				 const void *data, size_t len, int64_t deadline)
{
	if (data == NULL && len != 0) {
		errno = EINVAL;
		return false;
	}
	void *p = conq_mpsc_bytes_claim_until(q, type, len, deadline);
	if (p == NULL)
		return false;
	if (len != 0)
		memcpy(p, data, len);
	return conq_mpsc_bytes_commit(q, p);
}

/* C: is a committed header (a record or padding) at the head? */
static bool conq__bytes_ready(conq_mpsc_bytes *q)
{
	/* [B2] acquire: pairs with [B1]. */
	uint64_t w =
	    conq__load_acquire(conq__mpsc_bytes_hdr(q, q->head & q->mask));
	return conq__mpsc_bytes_len(w) > 0;
}

/* C: the head record is claimed and not committed. */
static bool conq__bytes_stuck(conq_mpsc_bytes *q)
{
	/* [B8] acquire: pairs with [B3]. */
	return conq__load_acquire(&q->tail) != q->head && !conq__bytes_ready(q);
}

/*
 * C: wait until a committed header is at the head, or the deadline (then
 * ETIMEDOUT). Shared rings: while the head stays stuck on a claim, unblock()
 * every dead_check_ns (the ring's stuck_at/stuck_since remember since when,
 * across calls, so that short deadlines in a loop still get there).
 */
static int conq__bytes_wait_record(conq_mpsc_bytes *q, int64_t deadline)
{
	for (unsigned i = 0, n = conq__bytes_looks(); i < n; i++) {
		if (conq__bytes_ready(q))
			return 0;
		conq__watch_gap(128);
	}
	for (;;) {
		if (conq__bytes_ready(q))
			return 0;
		int64_t until = deadline;
		if (q->reg_off != 0 && conq__bytes_stuck(q)) {
			int64_t now = conq_now_ns();
			if (q->stuck_since == 0 || q->stuck_at != q->head) {
				q->stuck_at = q->head;
				q->stuck_since = now;
			} else if (now - q->stuck_since >= q->dead_check_ns) {
				if (conq_mpsc_bytes_unblock(q))
					return 0; /* padding at the head */
				q->stuck_since = now;
			}
			int64_t check = q->stuck_since + q->dead_check_ns;
			if (check < until)
				until = check;
		}
		if (conq__bytes_past(deadline))
			return ETIMEDOUT;
		uint32_t key = conq_eventcount_prepare(&q->nonempty);
		/* The re-check after [E1]: see conq/eventcount.h. */
		if (conq__bytes_ready(q)) {
			conq_eventcount_cancel(&q->nonempty);
			return 0;
		}
		conq_eventcount_wait(&q->nonempty, key, until);
	}
}

size_t conq_mpsc_bytes_read_until(conq_mpsc_bytes *q, conq_mpsc_bytes_fn fn,
				  void *ctx, size_t limit, int64_t deadline)
{
	int saved = errno;
	for (;;) {
		size_t n = conq_mpsc_bytes_read(q, fn, ctx, limit);
		if (n != 0 || limit == 0) {
			errno = saved;
			return n;
		}
		if (conq__bytes_wait_record(q, deadline) != 0) {
			errno = ETIMEDOUT;
			return 0;
		}
	}
}

const void *conq_mpsc_bytes_peek_until(conq_mpsc_bytes *q, int32_t *type,
				       size_t *len, int64_t deadline)
{
	int saved = errno;
	for (;;) {
		const void *p = conq_mpsc_bytes_peek(q, type, len);
		if (p != NULL) {
			errno = saved;
			return p;
		}
		if (conq__bytes_wait_record(q, deadline) != 0) {
			errno = ETIMEDOUT;
			return NULL;
		}
	}
}

/* --------------------------------------------------------------- unblock */

/*
 * C: turn the stuck bytes [p, p + n) into padding records (split at the end
 * of the ring); w is the header seen at p. False if it changed since.
 */
static bool conq__bytes_pad(conq_mpsc_bytes *q, conq__idx_t p, uint64_t n,
			    uint64_t w)
{
	uint64_t i = p & q->mask;
	uint64_t here = n < q->cap - i ? n : q->cap - i;
	/* relaxed (the CAS and the store below): only this thread (C) reads
	 * the records, after unblock returns. The CAS only guards against a
	 * header that changed since it was read, which the argument of
	 * unblock excludes; weak, so a spurious failure goes round. */
	uint64_t seen = w;
	while (!conq__cas_weak_relaxed(
	    conq__mpsc_bytes_hdr(q, i), &seen,
	    conq__mpsc_bytes_header((int64_t)here, CONQ_MPSC_BYTES_PADDING)))
		if (seen != w)
			return false;
	if (n > here)
		conq__store_relaxed(
		    conq__mpsc_bytes_hdr(q, 0),
		    conq__mpsc_bytes_header((int64_t)(n - here),
					    CONQ_MPSC_BYTES_PADDING));
	return true;
}

/*
 * The reclaim (docs/memory-model.md, "conq_mpsc_bytes: unblock"). With h
 * the head and t the tail:
 *  1. t through [B8] (acquire): every claim below t is a CAS that
 *     happens-before this point, and so is its claimer's intent [CL1].
 *  2. The registry's live intents in [h - cap, t) [CL2]. Intents are claim
 *     starts (tail values), so a live one in [h - cap, h] may be the claim
 *     that covers h (a wrap claim starts before its record; a claim is
 *     never longer than cap): keep waiting. The first live one above h, m,
 *     bounds what we may touch: every claim that starts in [h, m) belongs
 *     to a thread that is dead, or that has committed it (its commit is
 *     then visible to the reads below: [CL1] follows [B1]).
 *  3. From p = h, each header again [B2] (read after the scan): committed,
 *     stop (read() takes it from there). Negative: its claimer got as far
 *     as the header, which holds the record's extent. Zero: its claimer
 *     died before its header, having written nothing ([B7]), and so did
 *     the claimer of every zero word after it: the extent runs to the
 *     first nonzero word (a header) or to m. Padding over the extent, and
 *     on to the next header.
 * So the scan reads only header words and dead claimers' zero words, never
 * the payload a live producer is writing, and a full ring is no special
 * case (Agrona #159/#160: its unblock compared indices, not positions).
 */
bool conq_mpsc_bytes_unblock(conq_mpsc_bytes *q)
{
	if (q->reg_off == 0)
		return false;
	uint64_t cap = q->cap;
	conq__idx_t h = q->head;
	/* [B8] acquire: pairs with [B3] (every claim CAS below t, with its
	 * claimer's intent [CL1] before it). */
	conq__idx_t t = conq__load_acquire(&q->tail);
	conq__sidx_t used = conq__idx_diff(t, h);
	if (used <= 0 || conq__bytes_ready(q))
		return false;
	conq__idx_t lo = conq__idx_sub(h, cap);
	uint64_t span = conq__claims_span(cap + (uint64_t)used), first;
	conq__claims_live(conq__mpsc_bytes_reg(q), conq__claims_token(lo), span,
			  &first);
	if (first <= conq__claims_span(cap))
		return false; /* a live claim may cover the head */
	/* m - h: the live claim above h, else the tail. */
	uint64_t lim = first == span ? (uint64_t)used
				     : (first >> CONQ__CLAIMS_SHIFT) - cap;
	uint64_t off = 0;
	while (off < lim) {
		conq__idx_t p = conq__idx_add(h, off);
		uint64_t i = p & q->mask;
		/* [B2] acquire: pairs with [B1]; after the scan [CL2]. */
		uint64_t w = conq__load_acquire(conq__mpsc_bytes_hdr(q, i));
		int32_t len = conq__mpsc_bytes_len(w);
		uint64_t n;
		if (len > 0)
			break; /* committed: read() takes it */
		if (len < 0) {
			n = conq__mpsc_bytes_align((uint64_t) - (int64_t)len);
			if (n > cap - i || n > lim - off)
				break; /* not a header we wrote: leave it */
		} else {
			n = CONQ_MPSC_BYTES_ALIGN;
			/* relaxed: a dead claimer's zero word, or the header
			 * of the next claim (see above). */
			while (off + n < lim &&
			       conq__load_relaxed(conq__mpsc_bytes_hdr(
				   q, (p + n) & q->mask)) == 0)
				n += CONQ_MPSC_BYTES_ALIGN;
		}
		if (!conq__bytes_pad(q, p, n, w))
			break;
		off += n;
	}
	if (off == 0)
		return false;
	q->stuck_since = 0;
	return true;
}

/* ---- in shared memory (conq/shm.h) ---- */

#define BYTES_SHM_LAYOUT 1u

static int bytes_shm_init(void *object, const conq_shm_spec *spec, void *ctx)
{
	return conq_mpsc_bytes_init_opts(object, (size_t)spec->capacity,
					 (const conq_mpsc_bytes_opts *)ctx) !=
			   NULL
		       ? 0
		       : errno;
}

conq_mpsc_bytes *conq_mpsc_bytes_shm_create(const char *name, size_t capacity,
					    const conq_mpsc_bytes_opts *opts,
					    const conq_shm_options *shm_opts,
					    conq_shm **shm)
{
	if (shm == NULL) {
		errno = EINVAL;
		return NULL;
	}
	*shm = NULL;
	conq_mpsc_bytes_opts o = {CONQ_MPSC_BYTES_SHARED, 0, 0};
	if (opts != NULL) {
		o = *opts;
		o.flags |= CONQ_MPSC_BYTES_SHARED;
	}
	size_t bytes = conq_mpsc_bytes_memsize_opts(capacity, &o);
	if (bytes == 0)
		return NULL;
	conq_shm_spec spec = {CONQ_SHM_KIND_MPSC_BYTES, BYTES_SHM_LAYOUT, 0,
			      capacity, bytes};
	conq_shm *h = conq_shm_create(name, &spec, bytes_shm_init, &o, shm_opts);
	if (h == NULL)
		return NULL;
	*shm = h;
	return (conq_mpsc_bytes *)conq_shm_object(h);
}

static conq_mpsc_bytes *bytes_shm_attach(conq_shm *h, conq_shm **shm,
					 size_t capacity)
{
	if (h == NULL)
		return NULL;
	conq_mpsc_bytes *q =
	    conq_mpsc_bytes_attach(conq_shm_object(h), conq_shm_object_size(h));
	if (q == NULL || (capacity != 0 && q->cap != capacity)) {
		int err = q == NULL ? errno : CONQ_SHM_EGEOMETRY;
		conq_shm_close(h);
		errno = err;
		return NULL;
	}
	*shm = h;
	return q;
}

conq_mpsc_bytes *conq_mpsc_bytes_shm_open(const char *name, size_t capacity,
					  const conq_shm_options *shm_opts,
					  conq_shm **shm)
{
	if (shm == NULL) {
		errno = EINVAL;
		return NULL;
	}
	*shm = NULL;
	conq_shm_spec e = {CONQ_SHM_KIND_MPSC_BYTES, BYTES_SHM_LAYOUT, 0,
			   capacity, 0};
	return bytes_shm_attach(conq_shm_open(name, &e, shm_opts), shm,
				capacity);
}

conq_mpsc_bytes *conq_mpsc_bytes_shm_open_fd(int fd, size_t capacity,
					     const conq_shm_options *shm_opts,
					     conq_shm **shm)
{
	if (shm == NULL) {
		errno = EINVAL;
		return NULL;
	}
	*shm = NULL;
	conq_shm_spec e = {CONQ_SHM_KIND_MPSC_BYTES, BYTES_SHM_LAYOUT, 0,
			   capacity, 0};
	return bytes_shm_attach(conq_shm_open_fd(fd, &e, shm_opts), shm,
				capacity);
}

int conq_mpsc_bytes_shm_close(conq_shm *shm)
{
	if (shm == NULL)
		return 0;
	conq_mpsc_bytes_detach((conq_mpsc_bytes *)conq_shm_object(shm));
	return conq_shm_close(shm);
}
