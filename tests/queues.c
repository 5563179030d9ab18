/* SPDX-License-Identifier: BSD-2-Clause */
#include "queues.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#include "conq/impl/atomic.h"
#include "conq/impl/testing.h"

/* The wrappers of family `fam`: conq_<fam>_* behind `void *` signatures. */
#define TQ__WRAP(fam, maxp, maxc, bounded, fifo, at, kind, args)              \
	TQ__WRAP_##kind(fam, args)                                             \
	static void tq_##fam##_destroy(void *q)                                \
	{                                                                      \
		conq_##fam##_destroy((conq_##fam *)q);                         \
	}                                                                      \
	static bool tq_##fam##_offer(void *q, void *e)                         \
	{                                                                      \
		return conq_##fam##_offer((conq_##fam *)q, e);                 \
	}                                                                      \
	static void *tq_##fam##_poll(void *q)                                  \
	{                                                                      \
		return conq_##fam##_poll((conq_##fam *)q);                     \
	}                                                                      \
	static void *tq_##fam##_peek(void *q)                                  \
	{                                                                      \
		return conq_##fam##_peek((conq_##fam *)q);                     \
	}                                                                      \
	static bool tq_##fam##_relaxed_offer(void *q, void *e)                 \
	{                                                                      \
		return conq_##fam##_relaxed_offer((conq_##fam *)q, e);         \
	}                                                                      \
	static void *tq_##fam##_relaxed_poll(void *q)                          \
	{                                                                      \
		return conq_##fam##_relaxed_poll((conq_##fam *)q);             \
	}                                                                      \
	static void *tq_##fam##_relaxed_peek(void *q)                          \
	{                                                                      \
		return conq_##fam##_relaxed_peek((conq_##fam *)q);             \
	}                                                                      \
	static size_t tq_##fam##_size(void *q)                                 \
	{                                                                      \
		return conq_##fam##_size((conq_##fam *)q);                     \
	}                                                                      \
	static bool tq_##fam##_is_empty(void *q)                               \
	{                                                                      \
		return conq_##fam##_is_empty((conq_##fam *)q);                 \
	}                                                                      \
	static size_t tq_##fam##_capacity(void *q)                             \
	{                                                                      \
		return conq_##fam##_capacity((conq_##fam *)q);                 \
	}                                                                      \
	static size_t tq_##fam##_drain(void *q, conq_consume_fn fn, void *ctx, \
				       size_t limit)                           \
	{                                                                      \
		return conq_##fam##_drain((conq_##fam *)q, fn, ctx, limit);    \
	}                                                                      \
	static size_t tq_##fam##_fill(void *q, conq_supply_fn fn, void *ctx,   \
				      size_t limit)                            \
	{                                                                      \
		return conq_##fam##_fill((conq_##fam *)q, fn, ctx, limit);     \
	}                                                                      \
	static size_t tq_##fam##_offer_bulk(void *q, void *const *es,          \
					    size_t n)                          \
	{                                                                      \
		return conq_##fam##_offer_bulk((conq_##fam *)q, es, n);        \
	}                                                                      \
	static size_t tq_##fam##_offer_burst(void *q, void *const *es,         \
					     size_t n)                         \
	{                                                                      \
		return conq_##fam##_offer_burst((conq_##fam *)q, es, n);       \
	}                                                                      \
	static size_t tq_##fam##_poll_burst(void *q, void **out, size_t n)     \
	{                                                                      \
		return conq_##fam##_poll_burst((conq_##fam *)q, out, n);       \
	}                                                                      \
	TQ__WRAP_##at##_##kind(fam)

/* The constructors of an array family: create, memsize, init. */
#define TQ__WRAP_ARRAY(fam, args)                                              \
	static void *tq_##fam##_create(size_t c)                               \
	{                                                                      \
		return conq_##fam##_create(c);                                 \
	}                                                                      \
	static size_t tq_##fam##_memsize(size_t c)                             \
	{                                                                      \
		return conq_##fam##_memsize(c);                                \
	}                                                                      \
	static void *tq_##fam##_init(void *mem, size_t c)                      \
	{                                                                      \
		return conq_##fam##_init(mem, c);                              \
	}

/* The constructors of a growing family: create_with `args` (in terms of c
 * and a), and create = create_with a NULL allocator. */
#define TQ__WRAP_GROW(fam, args)                                               \
	static void *tq_##fam##_create_with(size_t c, const conq_allocator *a) \
	{                                                                      \
		(void)c;                                                       \
		return conq_##fam##_create_with args;                          \
	}                                                                      \
	static void *tq_##fam##_create(size_t c)                               \
	{                                                                      \
		return tq_##fam##_create_with(c, NULL);                        \
	}
#define TQ__WRAP_GROW_CSIZE(fam, args) TQ__WRAP_GROW(fam, args)

/*
 * create_at: create() (the library's allocator, so destroy() frees it), then
 * re-init the same memory with the indices at `start`. Valid for array
 * families, whose create() is allocate(memsize) + init.
 */
#define TQ__WRAP_AT_ARRAY(fam)                                                 \
	static void *tq_##fam##_init_at(void *mem, size_t c, uint64_t start)   \
	{                                                                      \
		return conq__##fam##_init_at(mem, c, start);                   \
	}                                                                      \
	static void *tq_##fam##_create_at(size_t c, uint64_t start)            \
	{                                                                      \
		conq_##fam *q = conq_##fam##_create(c);                        \
		if (q != NULL && conq__##fam##_init_at(q, c, start) != q) {    \
			conq_##fam##_destroy(q);                               \
			q = NULL;                                              \
		}                                                              \
		return q;                                                      \
	}
/* A growing family's start hook: conq__<fam>_test_start(q, start) on the
 * new, empty queue. */
#define TQ__WRAP_AT_GROW(fam)                                                  \
	static void *tq_##fam##_create_at(size_t c, uint64_t start)            \
	{                                                                      \
		conq_##fam *q = (conq_##fam *)tq_##fam##_create(c);            \
		if (q != NULL)                                                 \
			conq__##fam##_test_start(q, start);                    \
		return q;                                                      \
	}
#define TQ__WRAP_AT_GROW_CSIZE(fam) TQ__WRAP_AT_GROW(fam)
#define TQ__WRAP_NOAT_ARRAY(fam)
#define TQ__WRAP_NOAT_GROW(fam)
#define TQ__WRAP_NOAT_GROW_CSIZE(fam)

#define TQ__ROW_AT_ARRAY(fam)	    tq_##fam##_create_at, tq_##fam##_init_at
#define TQ__ROW_AT_GROW(fam)	    tq_##fam##_create_at, NULL
#define TQ__ROW_AT_GROW_CSIZE(fam)  tq_##fam##_create_at, NULL
#define TQ__ROW_NOAT_ARRAY(fam)	    NULL, NULL
#define TQ__ROW_NOAT_GROW(fam)	    NULL, NULL
#define TQ__ROW_NOAT_GROW_CSIZE(fam) NULL, NULL

/* The fields that differ between the kinds. */
#define TQ__ROW_KIND_ARRAY(fam)                                                \
	.alloc_hook = true, .size_any_thread = true, .create_with = NULL,      \
	.memsize = tq_##fam##_memsize, .init = tq_##fam##_init
#define TQ__ROW_KIND_GROW(fam)                                                 \
	.alloc_hook = false, .size_any_thread = true,                          \
	.create_with = tq_##fam##_create_with, .memsize = NULL, .init = NULL
#define TQ__ROW_KIND_GROW_CSIZE(fam)                                           \
	.alloc_hook = false, .size_any_thread = false,                         \
	.create_with = tq_##fam##_create_with, .memsize = NULL, .init = NULL

#define TQ__ROW(fam, maxp, maxc, bnd, ff, at, kind, args)                      \
	{.name = #fam,                                                         \
	 .max_producers = (maxp),                                              \
	 .max_consumers = (maxc),                                              \
	 .bounded = (bnd),                                                     \
	 .fifo = (ff),                                                         \
	 TQ__ROW_KIND_##kind(fam),                                             \
	 .create = tq_##fam##_create,                                          \
	 .destroy = tq_##fam##_destroy,                                        \
	 .offer = tq_##fam##_offer,                                            \
	 .poll = tq_##fam##_poll,                                              \
	 .peek = tq_##fam##_peek,                                              \
	 .relaxed_offer = tq_##fam##_relaxed_offer,                            \
	 .relaxed_poll = tq_##fam##_relaxed_poll,                              \
	 .relaxed_peek = tq_##fam##_relaxed_peek,                              \
	 .size = tq_##fam##_size,                                              \
	 .is_empty = tq_##fam##_is_empty,                                      \
	 .capacity = tq_##fam##_capacity,                                      \
	 .drain = tq_##fam##_drain,                                            \
	 .fill = tq_##fam##_fill,                                              \
	 .offer_bulk = tq_##fam##_offer_bulk,                                  \
	 .offer_burst = tq_##fam##_offer_burst,                                \
	 .poll_burst = tq_##fam##_poll_burst,                                  \
	 TQ__ROW_AT_FIELDS(TQ__ROW_##at##_##kind(fam))},
#define TQ__ROW_AT_FIELDS(...)	   TQ__ROW_AT_FIELDS2(__VA_ARGS__)
#define TQ__ROW_AT_FIELDS2(ca, ia) .create_at = ca, .init_at = ia

TQ_FAMILIES(TQ__WRAP)

const struct tq_desc tq_queues[] = {TQ_FAMILIES(TQ__ROW)};
const size_t tq_queue_count = sizeof tq_queues / sizeof tq_queues[0];

size_t tq_select(int argc, char **argv, const struct tq_desc **rows)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--ref") == 0) {
			*rows = &tq_reference;
			return 1;
		}
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--family=", 9) != 0)
			continue;
		for (size_t r = 0; r < tq_queue_count; r++)
			if (strcmp(tq_queues[r].name, argv[i] + 9) == 0) {
				*rows = &tq_queues[r];
				return 1;
			}
		fprintf(stderr, "unknown family '%s'\n", argv[i] + 9);
		*rows = NULL;
		return 0;
	}
	*rows = tq_queues;
	return tq_queue_count;
}

uint64_t tq_pow2(uint64_t n)
{
	uint64_t c = 1;
	while (c < n)
		c <<= 1;
	return c;
}

void tq_backoff(unsigned *spins)
{
	if (++*spins % 16 == 0)
		sched_yield();
	else
		conq__cpu_relax();
}

int tq_run_cases(int argc, char **argv, const struct tq_case *cases,
		 size_t ncases)
{
	const struct tq_desc *rows;
	size_t nrows = tq_select(argc, argv, &rows);
	if (nrows == 0)
		return 2;
	bool any_named = false;
	for (int a = 1; a < argc; a++) {
		if (argv[a][0] == '-')
			continue;
		any_named = true;
		size_t c = 0;
		while (c < ncases && strcmp(cases[c].name, argv[a]) != 0)
			c++;
		if (c == ncases) {
			fprintf(stderr, "unknown case '%s'\n", argv[a]);
			return 2;
		}
	}
	for (size_t r = 0; r < nrows; r++) {
		for (size_t c = 0; c < ncases; c++) {
			bool run = !any_named;
			for (int a = 1; a < argc && !run; a++)
				run = strcmp(argv[a], cases[c].name) == 0;
			if (!run)
				continue;
			check_context("%s %s", rows[r].name, cases[c].name);
			unsigned long long f = check_failed();
			cases[c].fn(&rows[r]);
			check_context("%s", "");
			printf("%-4s %s: %s\n",
			       check_failed() == f ? "ok" : "FAIL",
			       rows[r].name, cases[c].name);
			fflush(stdout);
		}
	}
	return check_report();
}
