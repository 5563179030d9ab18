/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The checks check themselves.
 *   check_selftest         passing checks pass, evaluate operands once, and
 *                          the binary exits 0;
 *   check_selftest --fail  two checks pass and four fail on purpose: ctest
 *                          expects a non-zero exit (WILL_FAIL) and, in a
 *                          second entry, the failure report with file:line,
 *                          expression, both values and "2 passed, 4 failed".
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static int calls;

static unsigned long long once(unsigned long long v)
{
	calls++;
	return v;
}

static int pass_mode(void)
{
	unsigned long long p0 = check_passed();
	bool all = true;
	all &= CHECK_EQ(once(3), once(3));
	all &= CHECK_NE(1, 2);
	all &= CHECK_LT(1, 2);
	all &= CHECK_LE(2, 2);
	all &= CHECK_GT(UINT64_MAX, 0);
	all &= CHECK_GE(SIZE_MAX, SIZE_MAX);
	all &= CHECK_EQ_I(-1, -1);
	all &= CHECK_LE_I(-5, 0);
	all &= CHECK_GE_I(0, -5);
	all &= CHECK_TRUE(1 + 1 == 2);
	all &= CHECK_FALSE(1 + 1 == 3);
	all &= CHECK_NULL(NULL);
	all &= CHECK_NOT_NULL(&calls);
	all &= CHECK_PTR_EQ(&calls, &calls);
	all &= CHECK_PTR_NE(&calls, &p0);
	/* 15 checks above, each counted once; operands evaluated once. */
	CHECK_TRUE(all);
	CHECK_EQ(calls, 2);
	CHECK_EQ(check_passed() - p0, 17);
	CHECK_EQ(check_failed(), 0);
	return check_report();
}

static int fail_mode(void)
{
	unsigned long long five = 5, six = 6;
	check_context("selftest");
	CHECK_EQ(five, five);
	CHECK_TRUE(five < six);
	bool r1 = CHECK_EQ(five, six);
	bool r2 = CHECK_PTR_EQ(&five, &six);
	bool r3 = CHECK_EQ_I(-1, 1);
	bool r4 = CHECK_TRUE(five > six);
	printf("returned %s\n", (r1 || r2 || r3 || r4) ? "true" : "false");
	return check_report();
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--fail") == 0)
		return fail_mode();
	return pass_mode();
}
