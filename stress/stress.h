/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stress/stress.h - how a conq-stress test is declared.
 *
 * conq-stress is a jcstress-like harness: a test is a state struct, 2-4 actor
 * functions that each run exactly once per state instance, an optional
 * arbiter that runs after all actors have visited an instance, a tuple of
 * results (int64_t r[0..nresults)) and an outcome table that grades every
 * observed tuple ACCEPTABLE, INTERESTING or FORBIDDEN. A tuple that no row
 * matches is FORBIDDEN. A row may also be REQUIRED on some platforms (a
 * "canary"): the run fails there if that outcome was never seen, which proves
 * that the harness can provoke that behaviour on that machine.
 *
 * Adding a test is one declaration:
 *
 *	struct sb { int x; CS_LINE_GAP(a); int y; };
 *	CS_ACTOR(sb_t0, struct sb, s, r)
 *	{
 *		__atomic_store_n(&s->x, 1, __ATOMIC_RELAXED);
 *		r[0] = __atomic_load_n(&s->y, __ATOMIC_RELAXED);
 *	}
 *	CS_ACTOR(sb_t1, ...) { ... }
 *	CS_TEST(sb_rlx, .name = "litmus.sb.rlx", .desc = "...",
 *		CS_STATE(struct sb), CS_ACTORS(sb_t0, sb_t1), .nresults = 2,
 *		CS_OUTCOMES({"0, 0", CS_INTERESTING, CS_ON_X86_64, "..."},
 *			    {"*, *", CS_ACCEPTABLE, 0, "..."}));
 *
 * Outcome patterns: comma-separated fields, each a decimal number, `*` (any
 * value) or a range `a..b` (inclusive). The first matching row grades a tuple.
 *
 * CS_ACTOR emits the actor body as a static inline function and a loop that
 * calls it over a span of states, so the compiler optimises the actor inside
 * the loop rather than behind an indirect call per state.
 *
 * Tests built at run time (the queue tests, one per family of
 * tests/queues.h) fill a struct cs_test themselves and call cs_register()
 * from a constructor; `param` then carries their parameters, which init()
 * copies into the state.
 */
#ifndef CONQ_STRESS_H
#define CONQ_STRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CS_MAX_ACTORS  4
#define CS_MAX_RESULTS 8

enum cs_grade { CS_ACCEPTABLE, CS_INTERESTING, CS_FORBIDDEN };

/* Platforms, for REQUIRED canaries (cs_outcome.required_on). */
#define CS_ON_X86_64  0x1u
#define CS_ON_AARCH64 0x2u

/* Test flags. */
/* Run only when a --test pattern names it (not through a leading `*`): the
 * harness's self-checks, which must fail. */
#define CS_EXPLICIT 0x1u
/* Needs the hardware's order of a seq_cst store before a later seq_cst
 * load (Arm: STLR then LDAR). qemu-user 7.2 on an x86 host does not
 * emulate it (stress/litmus.c): SKIPPED when the run says --emulated. */
#define CS_HW_SC_STORE_LOAD 0x2u

struct cs_outcome {
	const char *pattern;
	enum cs_grade grade;
	unsigned required_on; /* CS_ON_* mask: a canary there; 0: none */
	const char *desc;
};

/* What an actor loop walks: states [from, to) of the epoch, in the order of
 * perm[], each `stride` bytes apart from `base`; res[k * CS_MAX_RESULTS]
 * are state k's results. */
struct cs_span {
	char *base;
	size_t stride;
	const uint32_t *perm;
	size_t from, to;
	int64_t *res;
};

typedef void (*cs_actor_fn)(const struct cs_span *sp);

struct cs_test {
	const char *name; /* dotted: group.shape.variant[.family] */
	const char *desc;
	const char *ref; /* a memory-model label, an issue, a URL; or NULL */
	size_t state_size;
	size_t state_align; /* power of two; states never share a line */
	/* Make state k fresh (before every use). NULL: zero it. The harness
	 * zeroes the state before calling init. */
	void (*init)(void *state, const struct cs_test *t, uint64_t k);
	cs_actor_fn actors[CS_MAX_ACTORS];
	unsigned nactors;
	/* Runs after every actor has visited the state; all their effects are
	 * visible. May write results. */
	void (*arbiter)(void *state, int64_t *r);
	unsigned nresults;
	const char *rnames; /* column header, e.g. "r0, r1" */
	const struct cs_outcome *outcomes;
	size_t noutcomes;
	/* The test is meaningful only with this many CPUs (IRIW: 4); fewer:
	 * SKIPPED. 0: 2. Tests with more actors than min_cpus run the
	 * actors oversubscribed (queue tests whose waits yield). */
	unsigned min_cpus;
	unsigned flags;
	/* States per epoch; 0: 10240. */
	unsigned epoch_states;
	/* Non-NULL: the test cannot run on this build or platform: SKIPPED,
	 * with this reason. */
	const char *skip;
	/* Extra line printed under the header (e.g. how 128-bit atomics are
	 * done); may be NULL. */
	const char *note;
	const void *param;
};

void cs_register(const struct cs_test *t);

/* A gap that puts the next field on another cache line (128 bytes: the
 * adjacent-line prefetcher pairs lines). */
#define CS_LINE_GAP(name) char name[128]

#define CS__UNUSED __attribute__((unused))

#define CS_ACTOR(fn, type, s, r)                                               \
	static inline void fn##_body(type *s, int64_t *r);                     \
	static void fn(const struct cs_span *sp)                               \
	{                                                                      \
		for (size_t i_ = sp->from; i_ < sp->to; i_++) {                \
			size_t k_ = sp->perm[i_];                              \
			fn##_body(                                             \
			    (type *)(uintptr_t)(sp->base + k_ * sp->stride),   \
			    sp->res + k_ * CS_MAX_RESULTS);                    \
		}                                                              \
	}                                                                      \
	static inline void fn##_body(type *s CS__UNUSED, int64_t *r CS__UNUSED)

#define CS_ARBITER(fn, type, s, r)                                             \
	static inline void fn##_body(type *s, int64_t *r);                     \
	static void fn(void *st, int64_t *res)                                 \
	{                                                                      \
		fn##_body((type *)st, res);                                    \
	}                                                                      \
	static inline void fn##_body(type *s CS__UNUSED, int64_t *r CS__UNUSED)

#define CS__NARGS(...)		       CS__NARGS_(__VA_ARGS__, 4, 3, 2, 1, 0)
#define CS__NARGS_(a, b, c, d, n, ...) n

#define CS_STATE(type) .state_size = sizeof(type), .state_align = _Alignof(type)
#define CS_ACTORS(...)                                                         \
	.actors = {__VA_ARGS__}, .nactors = CS__NARGS(__VA_ARGS__)
#define CS_OUTCOMES(...)                                                       \
	.outcomes = (const struct cs_outcome[]){__VA_ARGS__},                  \
	.noutcomes = sizeof((const struct cs_outcome[]){__VA_ARGS__}) /        \
		     sizeof(struct cs_outcome)

#define CS_TEST(id, ...)                                                       \
	static const struct cs_test id = {__VA_ARGS__};                        \
	__attribute__((constructor)) static void id##_register(void)           \
	{                                                                      \
		cs_register(&id);                                              \
	}

/*
 * Fences in tests. ThreadSanitizer does not model atomic_thread_fence (it
 * reports correct fence-based code as racy, google/sanitizers#1415), so in
 * the TSan build (CONQ_STRESS_TSAN_FENCES, set by stress/CMakeLists.txt when
 * CONQ_SANITIZE contains "thread") every fence becomes a seq_cst
 * read-modify-write on one shared dummy word, which TSan does model as an
 * acquire and a release. That is at least as strong as any fence on every
 * target, so the FORBIDDEN grades stay right; the fence tests then test the
 * RMW, which the TSan build's report says (cs_fence_mode).
 */
#ifdef CONQ_STRESS_TSAN_FENCES
extern int cs_fence_word;
#define CS_FENCE(order)                                                        \
	((void)__atomic_fetch_add(&cs_fence_word, 0, __ATOMIC_SEQ_CST))
#else
#define CS_FENCE(order) __atomic_thread_fence(order)
#endif

/* Spin-wait step inside an actor (a pause; a yield now and then, since
 * actors may be oversubscribed). */
void cs_spin(unsigned *spins);

#endif /* CONQ_STRESS_H */
