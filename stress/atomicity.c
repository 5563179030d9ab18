/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stress/atomicity.c - access atomicity: aligned C11-style atomics of 8, 16,
 * 32, 64 and 128 bits (FORBIDDEN to tear), and plain accesses at unaligned
 * offsets (the seed's "Alignment, Concurrency and Torture" experiment),
 * within a cache line, across a 32-byte boundary, straddling two lines and
 * straddling a page.
 *
 * A writer stores all-ones and all-zeros alternately, K times per state; a
 * reader loads K times and reports whether any load returned a mix (torn).
 *
 * The plain accesses are data races in C, so they are not written in C:
 * each is one inline-asm instruction (x86-64 mov / movdqu, aarch64 ldr / str
 * of the width), so the compiler emits exactly one access of exactly that
 * width, and neither the sanitizers nor the optimiser see a racy C access.
 * Grades: the aligned offset is FORBIDDEN to tear; misaligned ones are
 * INTERESTING (Intel promises atomicity within a line, AMD only within an
 * aligned 8 bytes, and Zen 3 tears at 32-byte boundaries inside a line:
 * verification.md section 7.1); the 8-byte access straddling two lines is
 * also REQUIRED to tear on x86-64 (a canary: the seed saw it, and so does
 * this machine). On other targets these tests are SKIPPED.
 *
 * 128-bit atomics: __atomic_load_n / __atomic_store_n on a 16-byte aligned
 * unsigned __int128. How they compile is the build's choice, printed in the
 * test's note (CS_ATOMIC128_HOW, from stress/CMakeLists.txt): clang with
 * -mcx16 inlines lock cmpxchg16b; gcc calls libatomic (__atomic_load_16,
 * which on x86-64 picks vmovdqa on AVX CPUs, else lock cmpxchg16b).
 */
#include <stdint.h>

#include "stress.h"

#define RLX __ATOMIC_RELAXED
#define K   8

#ifndef CS_ATOMIC128_HOW
#define CS_ATOMIC128_HOW "__atomic builtins (how: unknown)"
#endif

/* ---- aligned atomics ---- */

#define ATOMIC_W(bits, type)                                                   \
	struct at##bits {                                                      \
		type v;                                                        \
	};                                                                     \
	CS_ACTOR(at##bits##_w, struct at##bits, s, r)                          \
	{                                                                      \
		for (int i = 0; i < K; i++)                                    \
			__atomic_store_n(                                      \
			    &s->v, (i & 1) ? (type)0 : (type) ~(type)0, RLX);  \
	}                                                                      \
	CS_ACTOR(at##bits##_r, struct at##bits, s, r)                          \
	{                                                                      \
		int64_t torn = 0;                                              \
		for (int i = 0; i < K; i++) {                                  \
			type v = __atomic_load_n(&s->v, RLX);                  \
			if (v != (type)0 && v != (type) ~(type)0)              \
				torn = 1;                                      \
		}                                                              \
		r[0] = torn;                                                   \
	}                                                                      \
	CS_TEST(at##bits, .name = "atomic.aligned." #bits,                     \
		.desc = "relaxed atomic " #bits "-bit store of all-ones / "    \
			"zeros || relaxed load (8 each): any mix?",            \
		CS_STATE(struct at##bits),                                     \
		CS_ACTORS(at##bits##_w, at##bits##_r), .nresults = 1,          \
		.rnames = "torn",                                              \
		CS_OUTCOMES({"0", CS_ACCEPTABLE, 0, "every load whole"},       \
			    {"1", CS_FORBIDDEN, 0, "torn atomic access"}))

ATOMIC_W(8, uint8_t)
ATOMIC_W(16, uint16_t)
ATOMIC_W(32, uint32_t)
ATOMIC_W(64, uint64_t)

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 cs_u128;
struct at128 {
	_Alignas(16) cs_u128 v;
};
CS_ACTOR(at128_w, struct at128, s, r)
{
	for (int i = 0; i < K; i++)
		__atomic_store_n(&s->v, (i & 1) ? (cs_u128)0 : ~(cs_u128)0,
				 RLX);
}
CS_ACTOR(at128_r, struct at128, s, r)
{
	int64_t torn = 0;
	for (int i = 0; i < K; i++) {
		cs_u128 v = __atomic_load_n(&s->v, RLX);
		if (v != 0 && v != ~(cs_u128)0)
			torn = 1;
	}
	r[0] = torn;
}
CS_TEST(at128, .name = "atomic.aligned.128",
	.desc = "relaxed atomic 128-bit store of all-ones / zeros || relaxed "
		"load ("
		"8"
		" each), 16-byte aligned unsigned __int128",
	.note = "128-bit atomics: " CS_ATOMIC128_HOW, CS_STATE(struct at128),
	CS_ACTORS(at128_w, at128_r), .nresults = 1, .rnames = "torn",
	CS_OUTCOMES({"0", CS_ACCEPTABLE, 0, "every load whole"},
		    {"1", CS_FORBIDDEN, 0, "torn 128-bit atomic access"}))
#endif

/* ---- plain accesses at chosen offsets, one instruction each ---- */

#if defined(__x86_64__) || defined(__aarch64__)
#define CS_RAW 1

typedef long long cs_v2 __attribute__((vector_size(16)));

/* raw_st<w>(p, v) and raw_ld<w>(p): one store or load instruction of w
 * bits; `reg` is the value's register constraint. */
#define RAW_ACCESS(w, ty, st_insn, ld_insn, reg)                               \
	static inline void raw_st##w(void *p, ty v)                            \
	{                                                                      \
		__asm__ volatile(st_insn : : "r"(p), reg(v) : "memory");       \
	}                                                                      \
	static inline ty raw_ld##w(const void *p)                              \
	{                                                                      \
		ty v;                                                          \
		__asm__ volatile(ld_insn : "=" reg(v) : "r"(p) : "memory");    \
		return v;                                                      \
	}

#if defined(__x86_64__)
#define RAW_GPR(w, sfx, ty)                                                    \
	RAW_ACCESS(w, ty, "mov" sfx " %1, (%0)", "mov" sfx " (%1), %0", "r")
RAW_GPR(16, "w", uint16_t)
RAW_GPR(32, "l", uint32_t)
RAW_GPR(64, "q", uint64_t)
RAW_ACCESS(128, cs_v2, "movdqu %1, (%0)", "movdqu (%1), %0", "x")
#else
#define RAW_GPR(w, st, ld, r, ty)                                              \
	RAW_ACCESS(w, ty, st " %" r "1, [%0]", ld " %" r "0, [%1]", "r")
RAW_GPR(16, "strh", "ldrh", "w", uint16_t)
RAW_GPR(32, "str", "ldr", "w", uint32_t)
RAW_GPR(64, "str", "ldr", "x", uint64_t)
RAW_ACCESS(128, cs_v2, "str %q1, [%0]", "ldr %q0, [%1]", "w")
#endif

static inline void raw_put(void *p, int w, int ones)
{
	switch (w) {
	case 16:
		raw_st16(p, ones ? (uint16_t)0xffff : 0);
		break;
	case 32:
		raw_st32(p, ones ? 0xffffffffu : 0);
		break;
	case 64:
		raw_st64(p, ones ? ~(uint64_t)0 : 0);
		break;
	default: {
		cs_v2 v = {ones ? -1LL : 0, ones ? -1LL : 0};
		raw_st128(p, v);
	}
	}
}

/* 0: all zeros, 1: all ones, 2: a mix. */
static inline int raw_class(const void *p, int w)
{
	uint64_t lo, hi;
	switch (w) {
	case 16:
		lo = hi = raw_ld16(p);
		return lo == 0 ? 0 : lo == 0xffff ? 1 : 2;
	case 32:
		lo = hi = raw_ld32(p);
		return lo == 0 ? 0 : lo == 0xffffffffu ? 1 : 2;
	case 64:
		lo = hi = raw_ld64(p);
		break;
	default: {
		cs_v2 v = raw_ld128(p);
		lo = (uint64_t)v[0];
		hi = (uint64_t)v[1];
	}
	}
	if (lo == 0 && hi == 0)
		return 0;
	if (lo == ~(uint64_t)0 && hi == ~(uint64_t)0)
		return 1;
	return 2;
}

/* Offsets within one line (and the next), or within a page. */
struct rawline {
	_Alignas(64) unsigned char b[128];
};
struct rawpage {
	_Alignas(4096) unsigned char b[4096 + 64];
};

#define TEAR(w, off, stype, g, req, d, extra)                                  \
	CS_ACTOR(tear##w##_##off##_w, stype, s, r)                             \
	{                                                                      \
		for (int i = 0; i < K; i++)                                    \
			raw_put(&s->b[off], w, !(i & 1));                      \
	}                                                                      \
	CS_ACTOR(tear##w##_##off##_r, stype, s, r)                             \
	{                                                                      \
		int64_t torn = 0;                                              \
		for (int i = 0; i < K; i++)                                    \
			if (raw_class(&s->b[off], w) == 2)                     \
				torn = 1;                                      \
		r[0] = torn;                                                   \
	}                                                                      \
	CS_TEST(tear##w##_##off, .name = "tear.u" #w ".off" #off,              \
		.desc =                                                        \
		    "plain " #w "-bit store (one instruction) of "             \
		    "all-ones / zeros at byte offset " #off " || plain load (" \
		    "8"                                                        \
		    " each)",                                                  \
		CS_STATE(stype),                                               \
		CS_ACTORS(tear##w##_##off##_w, tear##w##_##off##_r),           \
		.nresults = 1, .rnames = "torn",                               \
		CS_OUTCOMES({"0", CS_ACCEPTABLE, 0, "every load whole"},       \
			    {"1", g, req, d}) extra)

#define EPOCH_STATES(n) , .epoch_states = (n)
#define ALIGNED_D	"torn aligned access"
#define WITHIN_D	"torn inside one line (no architectural promise here)"
#define B32_D		"torn across a 32-byte boundary inside a line (Zen 3 does)"
#define LINE_D		"torn across two cache lines"
#define PAGE_D		"torn across two pages"

TEAR(16, 0, struct rawline, CS_FORBIDDEN, 0, ALIGNED_D, )
TEAR(16, 31, struct rawline, CS_INTERESTING, 0, B32_D, )
TEAR(16, 63, struct rawline, CS_INTERESTING, 0, LINE_D, )
TEAR(32, 0, struct rawline, CS_FORBIDDEN, 0, ALIGNED_D, )
TEAR(32, 2, struct rawline, CS_INTERESTING, 0, WITHIN_D, )
TEAR(32, 30, struct rawline, CS_INTERESTING, 0, B32_D, )
TEAR(32, 62, struct rawline, CS_INTERESTING, 0, LINE_D, )
TEAR(64, 0, struct rawline, CS_FORBIDDEN, 0, ALIGNED_D, )
TEAR(64, 4, struct rawline, CS_INTERESTING, 0, WITHIN_D, )
TEAR(64, 12, struct rawline, CS_INTERESTING, 0, WITHIN_D, )
TEAR(64, 28, struct rawline, CS_INTERESTING, 0, B32_D, )
/* The seed's straddled case: the x86 canary. */
TEAR(64, 60, struct rawline, CS_INTERESTING, CS_ON_X86_64,
     LINE_D " (x86 canary)", )
TEAR(64, 4092, struct rawpage, CS_INTERESTING, 0, PAGE_D, EPOCH_STATES(1024))
TEAR(128, 8, struct rawline, CS_INTERESTING, 0, WITHIN_D, )
TEAR(128, 24, struct rawline, CS_INTERESTING, 0, B32_D, )
TEAR(128, 56, struct rawline, CS_INTERESTING, 0, LINE_D, )

/* Aligned 16-byte plain accesses are atomic on x86-64 CPUs with AVX (Intel
 * SDM 9.1.1, AMD APM 7.3.2) and on Armv8.4+ (FEAT_LSE2); elsewhere nothing
 * is promised. */
#if defined(__x86_64__)
#define CS_128_ALIGNED_GRADE                                                   \
	(__builtin_cpu_supports("avx") ? CS_FORBIDDEN : CS_INTERESTING)
#define CS_128_ALIGNED_NOTE                                                    \
	"aligned 16-byte loads and stores are atomic on AVX CPUs: FORBIDDEN "  \
	"if this CPU has AVX, else INTERESTING"
#else
#define CS_128_ALIGNED_GRADE CS_INTERESTING
#define CS_128_ALIGNED_NOTE                                                    \
	"aligned 16-byte ldr/str is single-copy atomic only with FEAT_LSE2: "  \
	"INTERESTING"
#endif

CS_ACTOR(tear128_0_w, struct rawline, s, r)
{
	for (int i = 0; i < K; i++)
		raw_put(&s->b[0], 128, !(i & 1));
}
CS_ACTOR(tear128_0_r, struct rawline, s, r)
{
	int64_t torn = 0;
	for (int i = 0; i < K; i++)
		if (raw_class(&s->b[0], 128) == 2)
			torn = 1;
	r[0] = torn;
}
static struct cs_outcome tear128_0_out[] = {
    {"0", CS_ACCEPTABLE, 0, "every load whole"},
    {"1", CS_FORBIDDEN, 0, "torn aligned 16-byte access"},
};
static struct cs_test tear128_0 = {
    .name = "tear.u128.off0",
    .desc = "plain 128-bit store (one instruction) of all-ones / zeros at "
	    "byte offset 0 || plain load (8 each)",
    .note = CS_128_ALIGNED_NOTE,
    CS_STATE(struct rawline),
    CS_ACTORS(tear128_0_w, tear128_0_r),
    .nresults = 1,
    .rnames = "torn",
    .outcomes = tear128_0_out,
    .noutcomes = 2,
};
__attribute__((constructor)) static void tear128_0_register(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
#endif
	tear128_0_out[1].grade = CS_128_ALIGNED_GRADE;
	cs_register(&tear128_0);
}

#else /* neither x86-64 nor aarch64 */

struct rawnone {
	int x;
};
CS_ACTOR(raw_none, struct rawnone, s, r)
{
}
CS_TEST(tear_none, .name = "tear.unsupported",
	.desc = "plain unaligned accesses (one instruction each)",
	.skip = "needs x86-64 or aarch64 inline assembly",
	CS_STATE(struct rawnone), CS_ACTORS(raw_none, raw_none), .nresults = 1,
	CS_OUTCOMES({"0", CS_ACCEPTABLE, 0, "-"}))

#endif
