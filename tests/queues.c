/* SPDX-License-Identifier: BSD-2-Clause */
#include "queues.h"

#include <errno.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <stdlib.h>
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

/* ---- conq_mpsc_intrusive: hand-written wrappers --------------------------
 * Its API moves caller-embedded nodes, so each `void *` element the tests
 * offer travels in a malloc'd carrier {node, e}, freed when it is polled
 * (or by destroy). The batch calls go through the intrusive batch ops
 * (push_chain, drain, relaxed pops). */
struct tq_carrier {
	conq_mpsc_intrusive_node node; /* first: a node is its carrier */
	void *e;
};

static struct tq_carrier *tq_carrier_of(conq_mpsc_intrusive_node *n)
{
	return (struct tq_carrier *)(void *)n;
}

static struct tq_carrier *tq_carrier_new(void *e)
{
	struct tq_carrier *c = (struct tq_carrier *)malloc(sizeof *c);
	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	c->e = e;
	c->node.next = NULL;
	return c;
}

/* The element of a popped node (its carrier is freed), or NULL. */
static void *tq_carrier_take(conq_mpsc_intrusive_node *n)
{
	if (n == NULL)
		return NULL;
	struct tq_carrier *c = tq_carrier_of(n);
	void *e = c->e;
	free(c);
	return e;
}

static void *tq_mpsc_intrusive_create(size_t c)
{
	(void)c;
	return conq_mpsc_intrusive_create();
}

static void tq_mpsc_intrusive_destroy(void *q)
{
	if (q == NULL)
		return;
	conq_mpsc_intrusive *iq = (conq_mpsc_intrusive *)q;
	while (tq_carrier_take(conq_mpsc_intrusive_pop(iq)) != NULL)
		;
	conq_mpsc_intrusive_destroy(iq);
}

static bool tq_mpsc_intrusive_offer(void *q, void *e)
{
	if (e == NULL) {
		errno = EINVAL;
		return false;
	}
	struct tq_carrier *c = tq_carrier_new(e);
	if (c == NULL)
		return false;
	conq_mpsc_intrusive_push((conq_mpsc_intrusive *)q, &c->node);
	return true;
}

static void *tq_mpsc_intrusive_poll(void *q)
{
	return tq_carrier_take(
	    conq_mpsc_intrusive_pop((conq_mpsc_intrusive *)q));
}

static void *tq_mpsc_intrusive_relaxed_poll(void *q)
{
	return tq_carrier_take(
	    conq_mpsc_intrusive_relaxed_pop((conq_mpsc_intrusive *)q));
}

static void *tq_mpsc_intrusive_peek(void *q)
{
	conq_mpsc_intrusive_node *n =
	    conq_mpsc_intrusive_peek((conq_mpsc_intrusive *)q);
	return n != NULL ? tq_carrier_of(n)->e : NULL;
}

static void *tq_mpsc_intrusive_relaxed_peek(void *q)
{
	conq_mpsc_intrusive_node *n =
	    conq_mpsc_intrusive_relaxed_peek((conq_mpsc_intrusive *)q);
	return n != NULL ? tq_carrier_of(n)->e : NULL;
}

static size_t tq_mpsc_intrusive_size(void *q)
{
	return conq_mpsc_intrusive_size((conq_mpsc_intrusive *)q);
}

static bool tq_mpsc_intrusive_is_empty(void *q)
{
	return conq_mpsc_intrusive_is_empty((conq_mpsc_intrusive *)q);
}

static size_t tq_mpsc_intrusive_capacity(void *q)
{
	(void)q;
	return CONQ_UNBOUNDED;
}

struct tq_drain_ctx {
	conq_consume_fn fn;
	void *ctx;
};

static void tq_drain_node(void *ctx, void *node)
{
	struct tq_drain_ctx *d = (struct tq_drain_ctx *)ctx;
	d->fn(d->ctx, tq_carrier_take((conq_mpsc_intrusive_node *)node));
}

static size_t tq_mpsc_intrusive_drain(void *q, conq_consume_fn fn, void *ctx,
				      size_t limit)
{
	struct tq_drain_ctx d = {fn, ctx};
	return conq_mpsc_intrusive_drain((conq_mpsc_intrusive *)q,
					 tq_drain_node, &d, limit);
}

/* Push the chain of n carriers first..last, if any. */
static size_t tq_push_chain(void *q, struct tq_carrier *first,
			    struct tq_carrier *last, size_t n)
{
	if (n)
		conq_mpsc_intrusive_push_chain((conq_mpsc_intrusive *)q,
					       &first->node, &last->node);
	return n;
}

static void tq_append(struct tq_carrier **first, struct tq_carrier **last,
		      struct tq_carrier *c)
{
	if (*first == NULL)
		*first = c;
	else
		(*last)->node.next = &c->node;
	*last = c;
}

static size_t tq_mpsc_intrusive_fill(void *q, conq_supply_fn fn, void *ctx,
				     size_t limit)
{
	struct tq_carrier *first = NULL, *last = NULL;
	size_t k = 0;
	while (k < limit) {
		struct tq_carrier *c = tq_carrier_new(NULL);
		if (c == NULL)
			break;
		if ((c->e = fn(ctx)) == NULL) {
			free(c);
			break;
		}
		tq_append(&first, &last, c);
		k++;
	}
	return tq_push_chain(q, first, last, k);
}

static size_t tq_mpsc_intrusive_offer_bulk(void *q, void *const *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (es[i] == NULL) {
			errno = EINVAL;
			return 0;
		}
	struct tq_carrier *first = NULL, *last = NULL;
	for (size_t i = 0; i < n; i++) {
		struct tq_carrier *c = tq_carrier_new(es[i]);
		if (c == NULL) {
			while (first != NULL) {
				struct tq_carrier *next =
				    first == last
					? NULL
					: tq_carrier_of(first->node.next);
				free(first);
				first = next;
			}
			return 0;
		}
		tq_append(&first, &last, c);
	}
	return tq_push_chain(q, first, last, n);
}

static size_t tq_mpsc_intrusive_offer_burst(void *q, void *const *es,
					    size_t n)
{
	struct tq_carrier *first = NULL, *last = NULL;
	size_t k = 0;
	for (; k < n; k++) {
		if (es[k] == NULL) {
			errno = EINVAL;
			break;
		}
		struct tq_carrier *c = tq_carrier_new(es[k]);
		if (c == NULL)
			break;
		tq_append(&first, &last, c);
	}
	return tq_push_chain(q, first, last, k);
}

static size_t tq_mpsc_intrusive_poll_burst(void *q, void **out, size_t n)
{
	conq_mpsc_intrusive_node *nodes[64];
	size_t k = 0;
	while (k < n) {
		size_t want = n - k < 64 ? n - k : 64;
		size_t got = conq_mpsc_intrusive_pop_burst(
		    (conq_mpsc_intrusive *)q, nodes, want);
		for (size_t i = 0; i < got; i++)
			out[k + i] = tq_carrier_take(nodes[i]);
		k += got;
		if (got < want)
			break;
	}
	return k;
}

#define TQ__ROW_MPSC_INTRUSIVE                                                 \
	{.name = "mpsc_intrusive",                                             \
	 .max_producers = TQ_ANY,                                              \
	 .max_consumers = 1,                                                   \
	 .bounded = false,                                                     \
	 .fifo = TQ_FIFO_TOTAL,                                                \
	 .alloc_hook = false,                                                  \
	 .size_any_thread = false,                                             \
	 .create = tq_mpsc_intrusive_create,                                   \
	 .create_with = NULL,                                                  \
	 .create_at = NULL,                                                    \
	 .destroy = tq_mpsc_intrusive_destroy,                                 \
	 .offer = tq_mpsc_intrusive_offer,                                     \
	 .poll = tq_mpsc_intrusive_poll,                                       \
	 .peek = tq_mpsc_intrusive_peek,                                       \
	 .relaxed_offer = tq_mpsc_intrusive_offer,                             \
	 .relaxed_poll = tq_mpsc_intrusive_relaxed_poll,                       \
	 .relaxed_peek = tq_mpsc_intrusive_relaxed_peek,                       \
	 .size = tq_mpsc_intrusive_size,                                       \
	 .is_empty = tq_mpsc_intrusive_is_empty,                               \
	 .capacity = tq_mpsc_intrusive_capacity,                               \
	 .drain = tq_mpsc_intrusive_drain,                                     \
	 .fill = tq_mpsc_intrusive_fill,                                       \
	 .offer_bulk = tq_mpsc_intrusive_offer_bulk,                           \
	 .offer_burst = tq_mpsc_intrusive_offer_burst,                         \
	 .poll_burst = tq_mpsc_intrusive_poll_burst,                           \
	 .memsize = NULL,                                                      \
	 .init = NULL,                                                         \
	 .init_at = NULL},

/* The table rows, then the hand-written ones (families whose API differs). */
const struct tq_desc tq_queues[] = {TQ_FAMILIES(TQ__ROW)
					TQ__ROW_MPSC_INTRUSIVE};
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

static bool tq_parse_scale(const char *v, double *scale)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno != 0 || end == v || *end != '\0' || !(x > 0.0)) {
		fprintf(stderr, "bad scale '%s' (want a number > 0)\n", v);
		return false;
	}
	*scale = x;
	return true;
}

bool tq_read_scale(int argc, char **argv, double *scale)
{
	*scale = 1.0;
	const char *env = getenv("CONQ_TEST_SCALE");
	if (env != NULL && *env != '\0' && !tq_parse_scale(env, scale))
		return false;
	for (int a = 1; a < argc; a++)
		if (strncmp(argv[a], "--scale=", 8) == 0 &&
		    !tq_parse_scale(argv[a] + 8, scale))
			return false;
	return true;
}
