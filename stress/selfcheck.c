/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stress/selfcheck.c - tests that must fail, proving that the harness can:
 * a planted FORBIDDEN outcome that always happens, a canary that can never
 * be seen, an actor that crashes and one that hangs. They run only when a
 * --test pattern names them (CS_EXPLICIT); stress/CMakeLists.txt runs each
 * and expects the failure (WILL_FAIL and an expected-output regex).
 */
#include <signal.h>
#include <unistd.h>

#include "stress.h"

struct one {
	int x;
};

CS_ACTOR(planted_0, struct one, s, r)
{
	__atomic_store_n(&s->x, 1, __ATOMIC_RELAXED);
}
CS_ACTOR(planted_1, struct one, s, r)
{
	r[0] = 7;
}
CS_ARBITER(planted_arb, struct one, s, r)
{
	r[1] = s->x;
}
CS_TEST(planted, .name = "selfcheck.forbidden",
	.desc = "planted failure: the arbiter always sees x == 1, which the "
		"table forbids",
	CS_STATE(struct one), CS_ACTORS(planted_0, planted_1),
	.arbiter = planted_arb, .nresults = 2, .rnames = "r0, x",
	.flags = CS_EXPLICIT,
	CS_OUTCOMES({"7, 0", CS_ACCEPTABLE, 0, "x not written (never)"},
		    {"7, 1", CS_FORBIDDEN, 0, "x written (always): planted"}))

CS_TEST(canary, .name = "selfcheck.canary",
	.desc = "planted failure: a canary outcome that can never happen",
	CS_STATE(struct one), CS_ACTORS(planted_0, planted_1),
	.arbiter = planted_arb, .nresults = 2, .rnames = "r0, x",
	.flags = CS_EXPLICIT,
	CS_OUTCOMES({"7, 1", CS_ACCEPTABLE, 0, "always"},
		    {"7, 0", CS_INTERESTING, CS_ON_X86_64 | CS_ON_AARCH64,
		     "impossible, yet REQUIRED: planted"}))

CS_ACTOR(crash_0, struct one, s, r)
{
	if (__atomic_load_n(&s->x, __ATOMIC_RELAXED) == 0)
		raise(SIGSEGV);
}
CS_TEST(crash, .name = "selfcheck.crash",
	.desc = "planted failure: an actor that dies of SIGSEGV",
	CS_STATE(struct one), CS_ACTORS(crash_0, planted_1), .nresults = 1,
	.flags = CS_EXPLICIT,
	CS_OUTCOMES({"7", CS_ACCEPTABLE, 0, "never reached"}))

CS_ACTOR(hang_0, struct one, s, r)
{
	for (;;)
		pause();
}
CS_TEST(hang, .name = "selfcheck.hang",
	.desc = "planted failure: an actor that never returns",
	CS_STATE(struct one), CS_ACTORS(hang_0, planted_1), .nresults = 1,
	.flags = CS_EXPLICIT,
	CS_OUTCOMES({"7", CS_ACCEPTABLE, 0, "never reached"}))
