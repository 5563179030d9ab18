/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Differential fuzzing: the bytes of an input choose a queue family (a row of
 * the tests' table, tq_queues, so every family there is fuzzed), a capacity,
 * where its indices start (near 2^64 through the init_at hook) and how it is
 * built, then a sequence of operations. Each operation runs on the queue and
 * on a plain FIFO (the reference); every return value, element, errno and
 * supplier call is compared, and size() and is_empty() after every
 * operation. Single-threaded, every family is exact, relaxed variants
 * included. A mismatch prints what differs and abort()s.
 *
 * Built two ways (tests/fuzz/CMakeLists.txt):
 *   conq_fuzz          libFuzzer (clang, -DCONQ_FUZZ=ON):
 *                      conq_fuzz [libFuzzer flags] CORPUS_DIR...
 *   conq_fuzz_replay   any compiler, part of `make test`: runs every file of
 *                      the directories (or the files) named on the command
 *                      line once: conq_fuzz_replay tests/fuzz/corpus
 *
 * Input format (missing bytes read as 0, so every input is valid):
 *   [0] family: tq_queues[b] if b < tq_queue_count, else b % count (the
 *       table only grows at its end, so old inputs keep their family)
 *   [1] capacity: b < 210: 1 + b % 70; else 2^((b - 210) % 13)
 *   [2] setup: bits 0-1 start index: 0; 2^64 - 1 - [3]; 2^63 - 1 - [3];
 *       the next 8 bytes (little-endian);  bit 2: build in our own memory
 *       (memsize + init/init_at) instead of create/create_at;  bit 3, on
 *       a growing family (create_with): allocation faults: the queue is
 *       built with an allocator that fails allocation n (counted from 1,
 *       create's own excluded) when bit n % 64 of the next 8 bytes is set;
 *       an offer that then fails, or stops short, must say ENOMEM, and
 *       what it took is what the reference takes
 *   then operations: an opcode byte (mod FZ_NOPS) and its argument bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queues.h"

#include "conq/impl/testing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- reading the input --------------------------------------------------- */

struct input {
	const uint8_t *p;
	size_t n, at;
};

static uint8_t next_byte(struct input *in)
{
	return in->at < in->n ? in->p[in->at++] : 0;
}

/* ---- the reference: a FIFO of element values ------------------------------
 */

struct ref {
	uint64_t *v; /* values, v[head .. tail) */
	size_t head, tail, alloc;
	uint64_t cap; /* bounded: the capacity; else UINT64_MAX */
};

static size_t ref_count(const struct ref *r)
{
	return r->tail - r->head;
}

static uint64_t ref_room(const struct ref *r)
{
	return r->cap - ref_count(r);
}

static void ref_push(struct ref *r, uint64_t x)
{
	if (r->tail == r->alloc) {
		/* Compact, then grow. */
		size_t n = ref_count(r);
		if (r->head > 0) {
			memmove(r->v, r->v + r->head, n * sizeof *r->v);
			r->head = 0;
			r->tail = n;
		}
		if (n * 2 >= r->alloc) {
			r->alloc = r->alloc ? r->alloc * 2 : 256;
			r->v =
			    (uint64_t *)realloc(r->v, r->alloc * sizeof *r->v);
			if (r->v == NULL)
				abort();
		}
	}
	r->v[r->tail++] = x;
}

static uint64_t ref_front(const struct ref *r)
{
	return r->v[r->head];
}

static uint64_t ref_pop(struct ref *r)
{
	return r->v[r->head++];
}

/* ---- the run's state, for the checks and the failure report -------------- */

enum fz_op {
	FZ_OFFER,
	FZ_RELAXED_OFFER,
	FZ_POLL,
	FZ_RELAXED_POLL,
	FZ_PEEK,
	FZ_RELAXED_PEEK,
	FZ_OFFER_NULL,
	FZ_OFFER_BULK,
	FZ_OFFER_BURST,
	FZ_POLL_BURST,
	FZ_DRAIN,
	FZ_FILL,
	FZ_SIZE,
	FZ_IS_EMPTY,
	FZ_CAPACITY,
	FZ_FAIL_FAST_OFFER,    /* mpsc_array only; others: offer */
	FZ_OFFER_BELOW_THRESH, /* mpsc_array only; others: offer */
	FZ_OFFER_MANY,
	FZ_POLL_MANY,
	FZ_NOPS
};

static const char *const fz_op_names[FZ_NOPS] = {
    "offer",
    "relaxed_offer",
    "poll",
    "relaxed_poll",
    "peek",
    "relaxed_peek",
    "offer(NULL)",
    "offer_bulk",
    "offer_burst",
    "poll_burst",
    "drain",
    "fill",
    "size",
    "is_empty",
    "capacity",
    "fail_fast_offer",
    "offer_if_below_threshold",
    "offer x k",
    "poll x k",
};

struct fz {
	const struct tq_desc *d;
	/* allocation faults (setup bit 3) */
	uint64_t fault_mask;  /* allocation n fails iff bit n % 64 is set */
	uint64_t alloc_calls; /* allocations asked for since create */
	uint64_t alloc_fails; /* of which failed */
	int64_t alloc_live;   /* bytes held */
	bool faults;
	void *q;
	struct ref ref;
	uint64_t next; /* the next element value to offer (never 0) */
	bool is_mpsc;
	/* for the report */
	size_t req_cap;
	uint64_t start;
	int setup;
	size_t op_index;
	int op;
	/* drain / fill callbacks */
	size_t calls;
	size_t null_at; /* fill: the supplier's call that returns NULL */
};

static const char *fz_input_name; /* replay: the file being run */

static void fz_fail(const struct fz *f, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;

static void fz_fail(const struct fz *f, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr,
		"\nconq_fuzz MISMATCH%s%s: %s, capacity %zu (%" PRIu64
		"), start %" PRIu64 ", %s memory, op #%zu %s (reference holds "
		"%zu)\n  ",
		fz_input_name ? " in " : "", fz_input_name ? fz_input_name : "",
		f->d->name, f->req_cap, f->ref.cap, f->start,
		(f->setup & 4) ? "own"
		: f->faults    ? "create_with() faulty"
			       : "create()",
		f->op_index, f->op >= 0 ? fz_op_names[f->op] : "(setup)",
		ref_count(&f->ref));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	abort();
}

#define FZ_EXPECT(f, cond, ...)                                                \
	do {                                                                   \
		if (!(cond))                                                   \
			fz_fail(f, __VA_ARGS__);                               \
	} while (0)

static void *el(uint64_t k)
{
	return (void *)(uintptr_t)k;
}

static uint64_t vl(const void *e)
{
	return (uint64_t)(uintptr_t)e;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Byte -> a count: 0..254, or 255 = "unlimited" (SIZE_MAX). */
static size_t limit_of(uint8_t b)
{
	return b == 255 ? SIZE_MAX : (size_t)b;
}

/* ---- checks shared by the operations ------------------------------------- */

static void check_errno_clear(const struct fz *f)
{
	FZ_EXPECT(f, errno == 0, "errno %d after a call that must leave it",
		  errno);
}

static void check_einval(const struct fz *f)
{
	FZ_EXPECT(f, errno == EINVAL, "errno %d, expected EINVAL (%d)", errno,
		  EINVAL);
}

/* Allocation faults: the op began when alloc_fails was `before`; true if an
 * allocation failed during it, and then errno must be ENOMEM. */
static bool enomem_since(const struct fz *f, uint64_t before)
{
	if (f->alloc_fails == before)
		return false;
	FZ_EXPECT(f, errno == ENOMEM,
		  "an allocation failed and the call stopped short, but errno "
		  "is %d, not ENOMEM",
		  errno);
	return true;
}

static uint64_t g_fails_before; /* alloc_fails when the op began */

/* A single offer of a fresh element, expected to succeed iff there is room
 * (or to fail with ENOMEM after a failed allocation, keeping the element). */
static void check_offer(struct fz *f, bool ok)
{
	bool want = ref_room(&f->ref) > 0;
	if (want && !ok && enomem_since(f, g_fails_before)) {
		f->next++;
		errno = 0;
		return;
	}
	FZ_EXPECT(f, ok == want, "returned %d, expected %d", ok, want);
	if (ok)
		ref_push(&f->ref, f->next);
	f->next++;
	check_errno_clear(f);
}

static void check_taken(struct fz *f, void *e, bool remove)
{
	check_errno_clear(f);
	if (ref_count(&f->ref) == 0) {
		FZ_EXPECT(f, e == NULL,
			  "returned %" PRIu64 " from an empty queue", vl(e));
		return;
	}
	uint64_t want = ref_front(&f->ref);
	FZ_EXPECT(f, vl(e) == want, "returned %" PRIu64 ", expected %" PRIu64,
		  vl(e), want);
	if (remove)
		ref_pop(&f->ref);
}

static void check_state(const struct fz *f)
{
	size_t n = ref_count(&f->ref);
	size_t s = f->d->size(f->q);
	FZ_EXPECT(f, s == n, "after it, size() %zu, expected %zu", s, n);
	bool e = f->d->is_empty(f->q);
	FZ_EXPECT(f, e == (n == 0), "after it, is_empty() %d with %zu held", e,
		  n);
}

/* ---- drain and fill callbacks -------------------------------------------- */

static void fz_consume(void *ctx, void *e)
{
	struct fz *f = (struct fz *)ctx;
	f->calls++;
	FZ_EXPECT(f, ref_count(&f->ref) > 0,
		  "drain handed %" PRIu64 " with the reference empty", vl(e));
	uint64_t want = ref_pop(&f->ref);
	FZ_EXPECT(f, vl(e) == want,
		  "drain's element #%zu is %" PRIu64 ", expected %" PRIu64,
		  f->calls, vl(e), want);
	/* Each element is consumed before fn sees it (possibly with others
	 * claimed in the same chunk); in place (drain_in_place), those handed
	 * in this call may still count until fn has seen them. */
	size_t s = f->d->size(f->q);
	size_t held = f->d->drain_in_place ? f->calls : 0;
	FZ_EXPECT(f, s <= ref_count(&f->ref) + held,
		  "inside drain's callback, size() %zu > %zu left", s,
		  ref_count(&f->ref));
}

static void *fz_supply(void *ctx)
{
	struct fz *f = (struct fz *)ctx;
	size_t call = f->calls++;
	if (call == f->null_at)
		return NULL;
	FZ_EXPECT(f, ref_room(&f->ref) > 0,
		  "fill asked its supplier for element #%zu with no free slot",
		  call + 1);
	ref_push(&f->ref, f->next);
	return el(f->next++);
}

/* ---- the operations ------------------------------------------------------ */

/* es[0..n) fresh elements, es[null_at] NULL if null_at < n. */
static void make_elems(struct fz *f, void **es, size_t n, size_t null_at)
{
	for (size_t i = 0; i < n; i++)
		es[i] = i == null_at ? NULL : el(f->next + i);
}

static void op_bulk(struct fz *f, struct input *in, bool burst)
{
	void *es[256];
	size_t n = next_byte(in);
	uint8_t b = next_byte(in);
	size_t null_at = (b & 0x80) && n ? (size_t)(b & 0x7f) % n : SIZE_MAX;
	make_elems(f, es, n, null_at);
	size_t k = burst ? f->d->offer_burst(f->q, es, n)
			 : f->d->offer_bulk(f->q, es, n);
	uint64_t room = ref_room(&f->ref);
	size_t want;
	if (f->alloc_fails != g_fails_before) {
		/* A failed allocation: bulk takes none, burst a prefix (of
		 * the elements before a NULL). A burst that stops short of
		 * what fits says ENOMEM, even past a NULL it saw. */
		size_t fit = (size_t)min_u64(n, room);
		if (burst && null_at < fit)
			fit = null_at;
		FZ_EXPECT(f, burst ? k <= fit : (k == 0 || k == n),
			  "%s(n=%zu) = %zu after a failed allocation (room "
			  "%" PRIu64 ")",
			  burst ? "offer_burst" : "offer_bulk", n, k, room);
		if (k < (burst ? fit : (n <= room ? n : 0)))
			enomem_since(f, g_fails_before);
		for (size_t i = 0; i < k; i++)
			ref_push(&f->ref, f->next + i);
		f->next += n;
		errno = 0;
		return;
	}
	if (!burst) {
		want = null_at < n || n == 0 || n > room ? 0 : n;
		FZ_EXPECT(f, k == want,
			  "offer_bulk(n=%zu, NULL at %zd) = %zu, "
			  "expected %zu (room %" PRIu64 ")",
			  n, null_at < n ? (ssize_t)null_at : (ssize_t)-1, k,
			  want, room);
		if (null_at < n)
			check_einval(f);
		else
			check_errno_clear(f);
	} else {
		size_t fit = (size_t)min_u64(n, room);
		want = null_at < fit ? null_at : fit;
		FZ_EXPECT(f, k == want,
			  "offer_burst(n=%zu, NULL at %zd) = %zu, "
			  "expected %zu (room %" PRIu64 ")",
			  n, null_at < n ? (ssize_t)null_at : (ssize_t)-1, k,
			  want, room);
		if (null_at < fit)
			check_einval(f); /* the NULL was looked at */
		else if (null_at < n)
			FZ_EXPECT(f, errno == 0 || errno == EINVAL,
				  "errno %d after a NULL beyond the room",
				  errno);
		else
			check_errno_clear(f);
	}
	for (size_t i = 0; i < k; i++)
		ref_push(&f->ref, f->next + i);
	f->next += n;
}

static void op_poll_burst(struct fz *f, struct input *in)
{
	void *out[256];
	size_t n = next_byte(in);
	size_t k = f->d->poll_burst(f->q, out, n);
	size_t want = (size_t)min_u64(n, ref_count(&f->ref));
	FZ_EXPECT(f, k == want, "poll_burst(n=%zu) = %zu, expected %zu", n, k,
		  want);
	for (size_t i = 0; i < k; i++) {
		uint64_t w = ref_pop(&f->ref);
		FZ_EXPECT(f, vl(out[i]) == w,
			  "poll_burst's out[%zu] = %" PRIu64
			  ", expected %" PRIu64,
			  i, vl(out[i]), w);
	}
	check_errno_clear(f);
}

static void op_drain(struct fz *f, struct input *in)
{
	size_t limit = limit_of(next_byte(in));
	size_t want = (size_t)min_u64(limit, ref_count(&f->ref));
	f->calls = 0;
	size_t k = f->d->drain(f->q, fz_consume, f, limit);
	FZ_EXPECT(f, k == want && f->calls == want,
		  "drain(limit=%zu) = %zu with %zu callbacks, expected %zu",
		  limit, k, f->calls, want);
	check_errno_clear(f);
}

static void op_fill(struct fz *f, struct input *in)
{
	size_t limit = limit_of(next_byte(in));
	uint8_t b = next_byte(in);
	f->null_at = (b & 0x80) ? (size_t)(b & 0x7f) : SIZE_MAX;
	/* An unbounded queue never stops an unlimited fill: its supplier
	 * ends after 300 elements instead. */
	if (!f->d->bounded && f->null_at == SIZE_MAX && limit == SIZE_MAX)
		f->null_at = 300;
	uint64_t asked = min_u64(limit, ref_room(&f->ref));
	size_t want = (size_t)min_u64(asked, f->null_at);
	size_t want_calls = (size_t)min_u64(asked, (uint64_t)f->null_at + 1);
	if (f->null_at == SIZE_MAX)
		want_calls = (size_t)asked;
	f->calls = 0;
	size_t k = f->d->fill(f->q, fz_supply, f, limit);
	if (f->alloc_fails != g_fails_before &&
	    (k < want || f->calls < want_calls)) {
		/* Stopped by a failed allocation (perhaps just before the
		 * supplier's NULL): every element the supplier handed out was
		 * enqueued (fz_supply pushed it). */
		FZ_EXPECT(f, f->calls == k,
			  "fill stopped by a failed allocation at %zu with %zu "
			  "supplier calls: an element was lost",
			  k, f->calls);
		enomem_since(f, g_fails_before);
		errno = 0;
		return;
	}
	FZ_EXPECT(f, k == want && f->calls == want_calls,
		  "fill(limit=%zu, NULL at call %zd) = %zu with %zu supplier "
		  "calls, expected %zu with %zu",
		  limit,
		  f->null_at == SIZE_MAX ? (ssize_t)-1 : (ssize_t)f->null_at, k,
		  f->calls, want, want_calls);
	check_errno_clear(f);
}

static void op_offer_null(struct fz *f, struct input *in)
{
	uint8_t how = next_byte(in) % 4;
	if (!f->is_mpsc)
		how %= 2;
	switch (how) {
	case 0:
		FZ_EXPECT(f, !f->d->offer(f->q, NULL), "offer(NULL) true");
		break;
	case 1:
		FZ_EXPECT(f, !f->d->relaxed_offer(f->q, NULL),
			  "relaxed_offer(NULL) true");
		break;
	case 2: {
		int r = conq_mpsc_array_fail_fast_offer((conq_mpsc_array *)f->q,
							NULL);
		FZ_EXPECT(f, r == 1, "fail_fast_offer(NULL) = %d, expected 1",
			  r);
		break;
	}
	default:
		FZ_EXPECT(f,
			  !conq_mpsc_array_offer_if_below_threshold(
			      (conq_mpsc_array *)f->q, NULL, SIZE_MAX),
			  "offer_if_below_threshold(NULL) true");
		break;
	}
	check_einval(f);
}

static void run_op(struct fz *f, int op, struct input *in)
{
	const struct tq_desc *d = f->d;
	switch (op) {
	case FZ_OFFER:
		check_offer(f, d->offer(f->q, el(f->next)));
		break;
	case FZ_RELAXED_OFFER:
		check_offer(f, d->relaxed_offer(f->q, el(f->next)));
		break;
	case FZ_POLL:
		check_taken(f, d->poll(f->q), true);
		break;
	case FZ_RELAXED_POLL:
		check_taken(f, d->relaxed_poll(f->q), true);
		break;
	case FZ_PEEK: /* none in the multi-consumer value rings */
		if (d->peek != NULL)
			check_taken(f, d->peek(f->q), false);
		break;
	case FZ_RELAXED_PEEK:
		if (d->relaxed_peek != NULL)
			check_taken(f, d->relaxed_peek(f->q), false);
		break;
	case FZ_OFFER_NULL:
		op_offer_null(f, in);
		break;
	case FZ_OFFER_BULK:
		op_bulk(f, in, false);
		break;
	case FZ_OFFER_BURST:
		op_bulk(f, in, true);
		break;
	case FZ_POLL_BURST:
		op_poll_burst(f, in);
		break;
	case FZ_DRAIN:
		op_drain(f, in);
		break;
	case FZ_FILL:
		op_fill(f, in);
		break;
	case FZ_SIZE:
	case FZ_IS_EMPTY:
		break; /* check_state() after every operation */
	case FZ_CAPACITY: {
		size_t c = d->capacity(f->q);
		if (d->bounded)
			FZ_EXPECT(f, c == f->ref.cap,
				  "capacity() %zu, expected %" PRIu64, c,
				  f->ref.cap);
		check_errno_clear(f);
		break;
	}
	case FZ_FAIL_FAST_OFFER:
		if (f->is_mpsc) {
			int r = conq_mpsc_array_fail_fast_offer(
			    (conq_mpsc_array *)f->q, el(f->next));
			/* -1 (lost a race) is impossible single-threaded. */
			FZ_EXPECT(f, r == 0 || r == 1,
				  "fail_fast_offer = %d, expected 0 or 1", r);
			check_offer(f, r == 0);
		} else {
			check_offer(f, d->offer(f->q, el(f->next)));
		}
		break;
	case FZ_OFFER_BELOW_THRESH: {
		size_t t = limit_of(next_byte(in));
		if (f->is_mpsc) {
			bool ok = conq_mpsc_array_offer_if_below_threshold(
			    (conq_mpsc_array *)f->q, el(f->next), t);
			bool want = (uint64_t)ref_count(&f->ref) <
				    min_u64(t, f->ref.cap);
			FZ_EXPECT(f, ok == want,
				  "offer_if_below_threshold(t=%zu) = %d, "
				  "expected %d",
				  t, ok, want);
			if (ok)
				ref_push(&f->ref, f->next);
			f->next++;
			check_errno_clear(f);
		} else {
			check_offer(f, d->offer(f->q, el(f->next)));
		}
		break;
	}
	case FZ_OFFER_MANY: {
		size_t k = next_byte(in);
		for (size_t i = 0; i < k; i++)
			check_offer(f, d->offer(f->q, el(f->next)));
		break;
	}
	case FZ_POLL_MANY: {
		size_t k = next_byte(in);
		for (size_t i = 0; i < k; i++)
			check_taken(f, d->poll(f->q), true);
		break;
	}
	default:
		abort();
	}
}

/* ---- the faulty allocator (setup bit 3) ---------------------------------- */

static void *fz_alloc(void *ctx, size_t size, size_t align)
{
	struct fz *f = (struct fz *)ctx;
	uint64_t n = f->alloc_calls++;
	if (n > 0 && ((f->fault_mask >> (n % 64)) & 1)) {
		f->alloc_fails++;
		return NULL;
	}
	void *p = NULL;
	if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align,
			   size ? size : 1) != 0)
		abort();
	memset(p, 0xa5, size); /* the families must not rely on zeroes */
	f->alloc_live += (int64_t)size;
	return p;
}

static void fz_free(void *ctx, void *p, size_t size)
{
	struct fz *f = (struct fz *)ctx;
	f->alloc_live -= (int64_t)size;
	free(p);
}

/* ---- one input ----------------------------------------------------------- */

static uint64_t start_of(int setup, struct input *in)
{
	switch (setup & 3) {
	case 0:
		return 0;
	case 1:
		return UINT64_MAX - next_byte(in);
	case 2:
		return ((uint64_t)1 << 63) - 1 - next_byte(in);
	default: {
		uint64_t s = 0;
		for (int i = 0; i < 8; i++)
			s |= (uint64_t)next_byte(in) << (8 * i);
		return s;
	}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size, 0};
	struct fz f;
	memset(&f, 0, sizeof f);
	f.op = -1;

	uint8_t b = next_byte(&in);
	if (tq_queue_count == 0)
		abort();
	f.d = &tq_queues[b < tq_queue_count ? b : b % tq_queue_count];
	const struct tq_desc *d = f.d;
	f.is_mpsc = strcmp(d->name, "mpsc_array") == 0;

	b = next_byte(&in);
	f.req_cap =
	    b < 210 ? 1 + (size_t)(b % 70) : (size_t)1 << ((b - 210) % 13);
	f.setup = next_byte(&in);
	f.start = start_of(f.setup, &in);
	f.ref.cap = d->bounded ? tq_pow2(f.req_cap) : UINT64_MAX;
	f.next = 1;

	/* Build the queue. */
	void *mem = NULL;
	bool own = (f.setup & 4) && d->memsize != NULL &&
		   (f.start == 0 ? d->init != NULL : d->init_at != NULL);
	if (!own)
		f.setup &= ~4;
	if (own) {
		size_t bytes = d->memsize(f.req_cap);
		FZ_EXPECT(&f, bytes > 0, "memsize(%zu) = 0", f.req_cap);
		if (posix_memalign(&mem, CONQ_PAD, bytes) != 0)
			abort();
		memset(mem, 0xa5, bytes); /* init must not rely on zeroes */
		f.q = f.start ? d->init_at(mem, f.req_cap, f.start)
			      : d->init(mem, f.req_cap);
		FZ_EXPECT(&f, f.q == mem, "init returned %p, not its memory",
			  f.q);
	} else if ((f.setup & 8) && d->create_with != NULL) {
		for (int i = 0; i < 8; i++)
			f.fault_mask |= (uint64_t)next_byte(&in) << (8 * i);
		f.faults = true;
		f.start = 0;
		conq_allocator a = {fz_alloc, fz_free, &f};
		f.q = d->create_with(f.req_cap, &a);
		if (f.q == NULL) {
			/* One of create's later allocations failed. */
			FZ_EXPECT(&f, errno == ENOMEM && f.alloc_fails > 0,
				  "create_with failed: errno %d, %" PRIu64
				  " failed allocations",
				  errno, f.alloc_fails);
			FZ_EXPECT(&f, f.alloc_live == 0,
				  "a failed create_with kept %lld bytes",
				  (long long)f.alloc_live);
			return 0;
		}
	} else if (f.start != 0 && d->create_at != NULL) {
		f.q = d->create_at(f.req_cap, f.start);
	} else {
		f.start = 0;
		f.q = d->create(f.req_cap);
	}
	FZ_EXPECT(&f, f.q != NULL, "could not build the queue (errno %d)",
		  errno);
	if (d->bounded)
		FZ_EXPECT(&f, d->capacity(f.q) == f.ref.cap,
			  "capacity() %zu, expected %" PRIu64, d->capacity(f.q),
			  f.ref.cap);
	check_state(&f);

	while (in.at < in.n) {
		f.op = next_byte(&in) % FZ_NOPS;
		errno = 0;
		g_fails_before = f.alloc_fails;
		run_op(&f, f.op, &in);
		check_state(&f);
		f.op_index++;
	}

	/* Empty it: everything still held comes out, in order. */
	f.op = FZ_POLL;
	while (ref_count(&f.ref) > 0) {
		errno = 0;
		check_taken(&f, d->poll(f.q), true);
	}
	FZ_EXPECT(&f, d->poll(f.q) == NULL, "poll() on the emptied queue");
	check_state(&f);

	if (own)
		free(mem);
	else
		d->destroy(f.q);
	if (f.faults)
		FZ_EXPECT(&f, f.alloc_live == 0,
			  "destroy left %lld bytes of the allocator's",
			  (long long)f.alloc_live);
	free(f.ref.v);
	return 0;
}

/* ---- the replay driver (no libFuzzer) ------------------------------------ */

#ifdef CONQ_FUZZ_REPLAY
#include <dirent.h>
#include <sys/stat.h>

static size_t replayed;

static int replay_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (fp == NULL) {
		perror(path);
		return 1;
	}
	uint8_t *buf = NULL;
	size_t n = 0, alloc = 0;
	for (;;) {
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 4096;
			buf = (uint8_t *)realloc(buf, alloc);
			if (buf == NULL)
				abort();
		}
		size_t got = fread(buf + n, 1, alloc - n, fp);
		n += got;
		if (got == 0)
			break;
	}
	int err = ferror(fp);
	fclose(fp);
	if (err) {
		perror(path);
		free(buf);
		return 1;
	}
	fz_input_name = path;
	LLVMFuzzerTestOneInput(buf, n);
	fz_input_name = NULL;
	free(buf);
	replayed++;
	return 0;
}

static int replay(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	DIR *dir = opendir(path);
	if (dir == NULL) {
		perror(path);
		return 1;
	}
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		size_t len = strlen(path) + strlen(de->d_name) + 2;
		char *p = (char *)malloc(len);
		if (p == NULL)
			abort();
		snprintf(p, len, "%s/%s", path, de->d_name);
		rc |= replay(p);
		free(p);
	}
	closedir(dir);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
		return 2;
	}
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= replay(argv[i]);
	printf("conq_fuzz_replay: %zu inputs over %zu families, all agree with "
	       "the reference\n",
	       replayed, tq_queue_count);
	if (replayed == 0) {
		fprintf(stderr, "no inputs found\n");
		return 1;
	}
	return rc;
}
#endif
