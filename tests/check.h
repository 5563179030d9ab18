/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/check.h - the tests' tiny assertion library.
 *
 * Every CHECK_* evaluates each operand exactly once, counts one pass or one
 * failure, and returns true iff it passed, so a test can bail out of a case
 * that cannot go on:  if (!CHECK_NOT_NULL(q)) return;
 *
 * A failure prints file:line, the current context (check_context), the
 * expression and both operand values, then the test goes on (set the
 * environment variable CHECK_ABORT=1 to abort() at the first failure instead,
 * e.g. under a debugger). main() ends with `return check_report();`, which
 * prints the final line "N passed, N failed" and returns non-zero if any check
 * failed or if no check ran at all (77, "skipped" for ctest, if every case
 * was skipped with check_skip()).
 *
 * The integer checks compare as unsigned long long (so compare signed values
 * with the CHECK_*_I variants); pointers with CHECK_PTR_* / CHECK_NULL. The
 * counters are atomic: checks may run on several threads (keep them out of
 * per-element loops, though; aggregate and check once).
 */
#ifndef CONQ_TESTS_CHECK_H
#define CONQ_TESTS_CHECK_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

enum check_op {
	CHECK_OP_EQ,
	CHECK_OP_NE,
	CHECK_OP_LT,
	CHECK_OP_LE,
	CHECK_OP_GT,
	CHECK_OP_GE
};

bool check__u(const char *file, int line, const char *expr, enum check_op op,
	      unsigned long long a, unsigned long long b);
bool check__i(const char *file, int line, const char *expr, enum check_op op,
	      long long a, long long b);
bool check__p(const char *file, int line, const char *expr, enum check_op op,
	      const void *a, const void *b);
bool check__t(const char *file, int line, const char *expr, bool value,
	      bool expected);

/* Unsigned comparisons (size_t, uint64_t, bool, errno values...). */
#define CHECK__U(str, a, b, op)                                                \
	check__u(__FILE__, __LINE__, str, op, (unsigned long long)(a),         \
		 (unsigned long long)(b))
#define CHECK_EQ(a, b) CHECK__U("CHECK_EQ(" #a ", " #b ")", a, b, CHECK_OP_EQ)
#define CHECK_NE(a, b) CHECK__U("CHECK_NE(" #a ", " #b ")", a, b, CHECK_OP_NE)
#define CHECK_LT(a, b) CHECK__U("CHECK_LT(" #a ", " #b ")", a, b, CHECK_OP_LT)
#define CHECK_LE(a, b) CHECK__U("CHECK_LE(" #a ", " #b ")", a, b, CHECK_OP_LE)
#define CHECK_GT(a, b) CHECK__U("CHECK_GT(" #a ", " #b ")", a, b, CHECK_OP_GT)
#define CHECK_GE(a, b) CHECK__U("CHECK_GE(" #a ", " #b ")", a, b, CHECK_OP_GE)

/* Signed comparisons. */
#define CHECK__I(str, a, b, op)                                                \
	check__i(__FILE__, __LINE__, str, op, (long long)(a), (long long)(b))
#define CHECK_EQ_I(a, b)                                                       \
	CHECK__I("CHECK_EQ_I(" #a ", " #b ")", a, b, CHECK_OP_EQ)
#define CHECK_LE_I(a, b)                                                       \
	CHECK__I("CHECK_LE_I(" #a ", " #b ")", a, b, CHECK_OP_LE)
#define CHECK_GE_I(a, b)                                                       \
	CHECK__I("CHECK_GE_I(" #a ", " #b ")", a, b, CHECK_OP_GE)

/* Pointer comparisons (printed with %p). */
#define CHECK__P(str, a, b, op)                                                \
	check__p(__FILE__, __LINE__, str, op, (const void *)(a),               \
		 (const void *)(b))
#define CHECK_PTR_EQ(a, b)                                                     \
	CHECK__P("CHECK_PTR_EQ(" #a ", " #b ")", a, b, CHECK_OP_EQ)
#define CHECK_PTR_NE(a, b)                                                     \
	CHECK__P("CHECK_PTR_NE(" #a ", " #b ")", a, b, CHECK_OP_NE)
#define CHECK_NULL(a) CHECK__P("CHECK_NULL(" #a ")", a, NULL, CHECK_OP_EQ)
#define CHECK_NOT_NULL(a)                                                      \
	CHECK__P("CHECK_NOT_NULL(" #a ")", a, NULL, CHECK_OP_NE)

/* Truth. */
#define CHECK_TRUE(x)                                                          \
	check__t(__FILE__, __LINE__, "CHECK_TRUE(" #x ")", (x) ? true : false, \
		 true)
#define CHECK_FALSE(x)                                                         \
	check__t(__FILE__, __LINE__, "CHECK_FALSE(" #x ")",                    \
		 (x) ? true : false, false)

/* Context printed with every failure (e.g. "spsc_array cap=3"); printf-style.
 * Set it from the main thread only, between cases. */
void check_context(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Fail with a free-form message (counts one failure). printf-style. */
void check_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#define CHECK_FAIL(...) check_fail(__FILE__, __LINE__, __VA_ARGS__)

/* Print "SKIP <context>: <why>" and count a skip: a test that cannot run on a
 * queue says so, it never passes silently. printf-style. */
void check_skip(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

unsigned long long check_passed(void);
unsigned long long check_failed(void);

/* The exit status of a binary in which everything was skipped (ctest's
 * SKIP_RETURN_CODE: reported as "Skipped", not as passed). */
#define CHECK_EXIT_SKIPPED 77

/* Print "[K skipped]" (if any) and the final "N passed, N failed" line;
 * returns the exit status: 0 if nothing failed and something passed,
 * CHECK_EXIT_SKIPPED if nothing ran but something was skipped, else 1. */
int check_report(void);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_TESTS_CHECK_H */
