/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/queues.h - the table of queue families every test iterates.
 *
 * Each family is one row: a descriptor of what it allows (producers,
 * consumers, boundedness, FIFO scope) and its API behind function pointers
 * that take the queue as `void *`. Tests read the capabilities and skip, with
 * a printed SKIP line, what a family does not allow; they never hard-code a
 * family.
 *
 * Adding a family with the standard array API (conq_<fam>_create, _offer, ...,
 * conq_<fam>_memsize, _init, and the test hook conq__<fam>_init_at) is one
 * line in TQ_FAMILIES below. A family whose API differs writes its own
 * wrappers and row in queues.c; a missing operation is a NULL pointer, which
 * the tests skip with a message.
 */
#ifndef CONQ_TESTS_QUEUES_H
#define CONQ_TESTS_QUEUES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conq/conq.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The families under test, one X(...) line each:
 *   X(family, max_producers, max_consumers, bounded, fifo, at, kind, args)
 * family         the suffix of conq_<family>_* (spsc_array -> conq_spsc_array)
 * max_producers  threads that may offer concurrently (TQ_ANY: no limit)
 * max_consumers  threads that may poll concurrently (TQ_ANY: no limit)
 * bounded        true: capacity() is the requested capacity rounded up to a
 *                power of two, and offer fails iff that many are queued;
 *                false: capacity() is CONQ_UNBOUNDED and offer fails only
 *                when memory runs out
 * fifo           TQ_FIFO_TOTAL or TQ_FIFO_PER_PRODUCER
 * at             AT if the family has a start-index hook (start indices near
 *                2^64: conq__<family>_init_at for ARRAY, conq__<family>_
 *                test_start for the growing kinds), NOAT otherwise
 * kind           ARRAY: conq_<family>_create(capacity), memsize, init;
 *                GROW: a growing family, built by
 *                conq_<family>_create_with args, where args is the last
 *                column, a parenthesised argument list in terms of the
 *                requested capacity `c` and the allocator `a`;
 *                GROW_CSIZE: GROW, but size() may be called by the consumer
 *                only (the tests call it from no other thread)
 * args           (): for ARRAY; for GROW, e.g. (tq_chunk(c), c, a)
 *
 * e.g. issue 3 added:
 *   X(mpsc_array, TQ_ANY, 1, true, TQ_FIFO_TOTAL, AT, ARRAY, ())
 * (the family's header must be reachable from conq/conq.h, and the header
 * declaring its test hook must be included by queues.c).
 */
#define TQ_FAMILIES(X)                                                         \
	X(spsc_array, 1, 1, true, TQ_FIFO_TOTAL, AT, ARRAY, ())                \
	X(mpsc_array, TQ_ANY, 1, true, TQ_FIFO_TOTAL, AT, ARRAY, ())           \
	X(spmc_array, 1, TQ_ANY, true, TQ_FIFO_TOTAL, AT, ARRAY, ())           \
	X(mpmc_array, TQ_ANY, TQ_ANY, true, TQ_FIFO_TOTAL, AT, ARRAY, ())       \
	X(spsc_chunked, 1, 1, true, TQ_FIFO_TOTAL, AT, GROW,                   \
	  (tq_chunk(c), c, a))                                                 \
	X(spsc_growable, 1, 1, true, TQ_FIFO_TOTAL, AT, GROW,                  \
	  (tq_chunk(c), c, a))                                                 \
	X(spsc_unbounded, 1, 1, false, TQ_FIFO_TOTAL, AT, GROW, (tq_chunk(c), a)) \
	X(spsc_linked, 1, 1, false, TQ_FIFO_TOTAL, AT, GROW, (a))              \
	X(mpsc_linked, TQ_ANY, 1, false, TQ_FIFO_TOTAL, NOAT, GROW_CSIZE, (a)) \
	X(mpsc_chunked, TQ_ANY, 1, true, TQ_FIFO_TOTAL, AT, GROW,              \
	  (tq_chunk(c), c, a))                                                 \
	X(mpsc_growable, TQ_ANY, 1, true, TQ_FIFO_TOTAL, AT, GROW,             \
	  (tq_chunk(c), c, a))                                                 \
	X(mpsc_unbounded, TQ_ANY, 1, false, TQ_FIFO_TOTAL, AT, GROW,           \
	  (tq_chunk(c), a))                                                    \
	X(mpsc_xadd, TQ_ANY, 1, false, TQ_FIFO_TOTAL, AT, GROW,                \
	  (tq_chunk(c), a))                                                    \
	X(mpmc_xadd, TQ_ANY, TQ_ANY, false, TQ_FIFO_TOTAL, AT, GROW,           \
	  (tq_chunk(c), a))

/*
 * The families whose API differs from the standard ones: their wrappers and
 * rows are hand-written in queues.c (in this order, after TQ_FAMILIES').
 * Listed here in the same X(...) form so that the CMake files, which read
 * this header's X( lines, give them their ctest entries (transfer, stress,
 * torture); kind INTRUSIVE: caller-embedded nodes; VALUE: a value ring at
 * 8-byte elements.
 */
#define TQ_OTHER_FAMILIES(X)                                                   \
	X(mpsc_intrusive, TQ_ANY, 1, false, TQ_FIFO_TOTAL, NOAT, INTRUSIVE, ()) \
	X(spsc_value, 1, 1, true, TQ_FIFO_TOTAL, AT, VALUE, ())                \
	X(mpsc_value, TQ_ANY, 1, true, TQ_FIFO_TOTAL, AT, VALUE, ())           \
	X(spmc_value, 1, TQ_ANY, true, TQ_FIFO_TOTAL, AT, VALUE, ())           \
	X(mpmc_value, TQ_ANY, TQ_ANY, true, TQ_FIFO_TOTAL, AT, VALUE, ())

/* The chunk (or initial chunk) size the tests give a growing family for a
 * requested capacity c: a quarter of it, at least 2, so that a full queue
 * spans several chunks and every test crosses chunk boundaries. */
static inline size_t tq_chunk(size_t c)
{
	size_t k = 2;
	while (k < c / 4 && k < ((size_t)1 << 20))
		k <<= 1;
	return k;
}

#define TQ_ANY UINT_MAX

enum tq_fifo {
	/* One total order: every consumer sees elements in offer order (for
	 * concurrent offers, in the order the offers linearized). */
	TQ_FIFO_TOTAL,
	/* Only each producer's own elements keep their order. */
	TQ_FIFO_PER_PRODUCER,
};

struct tq_desc {
	const char *name;
	unsigned max_producers;
	unsigned max_consumers;
	bool bounded;
	enum tq_fifo fifo;
	/* true if create() makes exactly one allocation, through the
	 * library's allocator, so that conq__test_fail_alloc_after() makes it
	 * fail with ENOMEM. */
	bool alloc_hook;
	/* false: size() only from the consumer thread (GROW_CSIZE). */
	bool size_any_thread;
	/* true: size() counts elements only, and a strict offer fails only
	 * at capacity() elements. false: positions without an element (a
	 * batch's tombstones, handed back too late) count until a consumer
	 * passes them (conq_mpmc_array, the multi-producer value rings). */
	bool exact_size;
	/* true: drain hands elements in place and gives their slots back
	 * after fn has seen them (the value rings: conq_spsc_value by group),
	 * so size() inside fn still counts those handed in the same call.
	 * false: each element is consumed before fn sees it. */
	bool drain_in_place;
	/* The largest capacity a bounded family accepts; 0 means
	 * CONQ_ARRAY_MAX_CAPACITY (the value rings: CONQ_VALUE_MAX_CAPACITY). */
	size_t max_capacity;

	void *(*create)(size_t capacity);
	/* The growing families: create() with allocator `a` (NULL: malloc),
	 * which every later allocation and free of the queue goes through.
	 * NULL for the array families. */
	void *(*create_with)(size_t capacity, const conq_allocator *a);
	/* create() with every index starting at `start` (the 2^64 wrap tests);
	 * NULL if the family has no such hook. Free with destroy(). */
	void *(*create_at)(size_t capacity, uint64_t start);
	void (*destroy)(void *q);

	bool (*offer)(void *q, void *e);
	void *(*poll)(void *q);
	void *(*peek)(void *q);
	bool (*relaxed_offer)(void *q, void *e);
	void *(*relaxed_poll)(void *q);
	void *(*relaxed_peek)(void *q);

	size_t (*size)(void *q);
	bool (*is_empty)(void *q);
	size_t (*capacity)(void *q);

	size_t (*drain)(void *q, conq_consume_fn fn, void *ctx, size_t limit);
	size_t (*fill)(void *q, conq_supply_fn fn, void *ctx, size_t limit);
	size_t (*offer_bulk)(void *q, void *const *es, size_t n);
	size_t (*offer_burst)(void *q, void *const *es, size_t n);
	size_t (*poll_burst)(void *q, void **out, size_t n);

	/* The blocking calls (impl/blocking.h): put waits while full, take
	 * while empty; the _until forms give up at a CLOCK_MONOTONIC
	 * deadline (conq_now_ns()). NULL where a queue has none (the
	 * reference queue). Not through the narrow-build gate: a call that
	 * waits would hold the gate shut against the thread it waits for. */
	bool (*put)(void *q, void *e);
	bool (*put_until)(void *q, void *e, int64_t deadline);
	void *(*take)(void *q);
	void *(*take_until)(void *q, int64_t deadline);
	/* Threads counted in on the queue's eventcounts: those waiting in
	 * take (nonempty), and in put (nonfull; 0 in unbounded families). */
	unsigned (*take_waiters)(void *q);
	unsigned (*put_waiters)(void *q);

	/* Caller memory; NULL if the family cannot live in caller memory.
	 * peek and relaxed_peek may be NULL too (the multi-consumer value
	 * rings have none): tests skip what needs them. */
	size_t (*memsize)(size_t capacity);
	void *(*init)(void *mem, size_t capacity);
	void *(*init_at)(void *mem, size_t capacity, uint64_t start);
};

/* The library's families, in TQ_FAMILIES order. */
extern const struct tq_desc tq_queues[];
extern const size_t tq_queue_count;

/* A mutex-protected ring with every operation and no limit on producers or
 * consumers (tests/ref_queue.c). Not part of tq_queues: the harness runs its
 * own tests against it (--ref) so that the multi-producer and
 * multi-consumer code paths are exercised before any such family exists. */
extern const struct tq_desc tq_reference;

/* Select the rows a test binary runs: the library's table; with "--ref"
 * among argv the reference queue only; with "--family=NAME" (e.g.
 * --family=mpmc_array) that row only. Returns the count, *rows the rows; 0
 * for an unknown family. */
size_t tq_select(int argc, char **argv, const struct tq_desc **rows);

/* A test case, run on one row. */
struct tq_case {
	const char *name;
	void (*fn)(const struct tq_desc *d);
};

/* The main() of a case-based test binary: runs every case (or those named
 * in argv) on every selected row (see tq_select), printing "ok"/"FAIL" per
 * case and row, and returns check_report(). An unknown case or family: 2. */
int tq_run_cases(int argc, char **argv, const struct tq_case *cases,
		 size_t ncases);

/* The next power of two >= n (n >= 1, n <= 2^63). */
uint64_t tq_pow2(uint64_t n);

/* Elements: the integer k >= 1 as a non-NULL pointer, and back. */
static inline void *tq_elem(uint64_t k)
{
	return (void *)(uintptr_t)k;
}
static inline uint64_t tq_val(const void *e)
{
	return (uint64_t)(uintptr_t)e;
}

/* The element-count scale of the long tests: CONQ_TEST_SCALE from the
 * environment, then a --scale=X argument (X > 0). Returns false (after a
 * message) on a bad value; *scale stays 1.0 when neither is given. */
bool tq_read_scale(int argc, char **argv, double *scale);

/* Narrow index builds (CONQ_INDEX_BITS < 64) pass every call of the table
 * through a gate that keeps any one call from spanning 2^15 index moves of
 * the other threads (queues.c). A callback run inside a call (fill's
 * supplier, drain's consumer) that waits for other threads to make
 * progress calls tq_gate_suspend() before the wait and tq_gate_resume()
 * after it, so that they do not wait for it in turn. No-ops in 64-bit
 * builds. */
void tq_gate_suspend(void);
void tq_gate_resume(void);
/* How often a call waited at the gate, and how many of those waits gave up
 * (the other call still running after 20 ms). 0 in 64-bit builds. */
void tq_gate_stats(uint64_t *waits, uint64_t *gave_up);

/* Spin-wait step for a thread waiting on another: a pause hint, and a
 * sched_yield() every few spins (the machine may have fewer cores than
 * threads). *spins counts the calls. */
void tq_backoff(unsigned *spins);

/* A small deterministic PRNG (xorshift64*). */
static inline uint64_t tq_rand(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform-ish in [0, n), n > 0. */
static inline uint64_t tq_rand_below(uint64_t *state, uint64_t n)
{
	return (tq_rand(state) >> 11) % n;
}

#ifdef __cplusplus
}
#endif

#endif /* CONQ_TESTS_QUEUES_H */
