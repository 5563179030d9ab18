/* SPDX-License-Identifier: BSD-2-Clause */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Failures printed in full; later ones are only counted. */
#define CHECK_MAX_PRINTED 50

static unsigned long long n_passed, n_failed, n_skipped;
static char context[256];

static const char *const op_names[] = {"==", "!=", "<", "<=", ">", ">="};

static void pass(void)
{
	__atomic_fetch_add(&n_passed, 1, __ATOMIC_RELAXED);
}

/* Count a failure; true if it should be printed. */
static bool fail(void)
{
	unsigned long long k =
	    __atomic_fetch_add(&n_failed, 1, __ATOMIC_RELAXED);
	if (k == CHECK_MAX_PRINTED)
		fprintf(stderr,
			"(further failures are counted, not printed)\n");
	return k < CHECK_MAX_PRINTED;
}

static void maybe_abort(void)
{
	const char *a = getenv("CHECK_ABORT");
	if (a != NULL && *a != '\0' && strcmp(a, "0") != 0) {
		fflush(NULL);
		abort();
	}
}

static const char *ctx_sep(void)
{
	return context[0] ? ": " : "";
}

void check_context(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(context, sizeof context, fmt, ap);
	va_end(ap);
}

/* Does `a op b` hold, given cmp = -1, 0, 1 for a <, ==, > b? One table for
 * the unsigned and the signed checks. */
static bool holds(enum check_op op, int cmp)
{
	switch (op) {
	case CHECK_OP_EQ:
		return cmp == 0;
	case CHECK_OP_NE:
		return cmp != 0;
	case CHECK_OP_LT:
		return cmp < 0;
	case CHECK_OP_LE:
		return cmp <= 0;
	case CHECK_OP_GT:
		return cmp > 0;
	default:
		return cmp >= 0;
	}
}

bool check__u(const char *file, int line, const char *expr, enum check_op op,
	      unsigned long long a, unsigned long long b)
{
	if (holds(op, (a > b) - (a < b))) {
		pass();
		return true;
	}
	if (fail())
		fprintf(stderr,
			"%s:%d: %s%s%s failed: %llu (0x%llx) %s %llu (0x%llx) "
			"is false\n",
			file, line, context, ctx_sep(), expr, a, a,
			op_names[op], b, b);
	maybe_abort();
	return false;
}

bool check__i(const char *file, int line, const char *expr, enum check_op op,
	      long long a, long long b)
{
	if (holds(op, (a > b) - (a < b))) {
		pass();
		return true;
	}
	if (fail())
		fprintf(stderr, "%s:%d: %s%s%s failed: %lld %s %lld is false\n",
			file, line, context, ctx_sep(), expr, a, op_names[op],
			b);
	maybe_abort();
	return false;
}

bool check__p(const char *file, int line, const char *expr, enum check_op op,
	      const void *a, const void *b)
{
	bool ok = op == CHECK_OP_NE ? a != b : a == b;
	if (ok) {
		pass();
		return true;
	}
	if (fail())
		fprintf(stderr, "%s:%d: %s%s%s failed: %p %s %p is false\n",
			file, line, context, ctx_sep(), expr, a,
			op == CHECK_OP_NE ? "!=" : "==", b);
	maybe_abort();
	return false;
}

bool check__t(const char *file, int line, const char *expr, bool value,
	      bool expected)
{
	if (value == expected) {
		pass();
		return true;
	}
	if (fail())
		fprintf(stderr, "%s:%d: %s%s%s failed: value %d, expected %d\n",
			file, line, context, ctx_sep(), expr, (int)value,
			(int)expected);
	maybe_abort();
	return false;
}

void check_fail(const char *file, int line, const char *fmt, ...)
{
	if (fail()) {
		char msg[512];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		fprintf(stderr, "%s:%d: %s%sFAIL: %s\n", file, line, context,
			ctx_sep(), msg);
	}
	maybe_abort();
}

void check_skip(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	__atomic_fetch_add(&n_skipped, 1, __ATOMIC_RELAXED);
	printf("SKIP %s%s%s\n", context, ctx_sep(), msg);
}

unsigned long long check_passed(void)
{
	return __atomic_load_n(&n_passed, __ATOMIC_RELAXED);
}

unsigned long long check_failed(void)
{
	return __atomic_load_n(&n_failed, __ATOMIC_RELAXED);
}

int check_report(void)
{
	unsigned long long p = check_passed(), f = check_failed();
	unsigned long long s = __atomic_load_n(&n_skipped, __ATOMIC_RELAXED);
	fflush(stderr);
	if (s)
		printf("[%llu skipped]\n", s);
	if (p == 0 && f == 0 && s == 0)
		printf("no check ran: that is a failure\n");
	printf("%llu passed, %llu failed\n", p, f);
	fflush(stdout);
	if (f == 0 && p == 0 && s > 0)
		return CHECK_EXIT_SKIPPED;
	return (f == 0 && p > 0) ? 0 : 1;
}
