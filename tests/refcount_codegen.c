/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/refcount_codegen.c - one function per conq/refcount.h operation,
 * nothing else, for tests/check_codegen.sh to disassemble (ctest
 * refcount_init_codegen): the init is a plain store, a retain one relaxed
 * RMW, a release one release RMW (and the last holder's acquire load), no
 * fence anywhere. Compiled at -O2 without sanitizers whatever the build
 * (tests/CMakeLists.txt), so that the code checked is the code users get.
 */
#include <stdbool.h>
#include <stdint.h>

#include "conq/refcount.h"

void rc_cg_init(conq_refcount *r, int32_t n);
void rc_cg_init_one(conq_refcount *r);
void rc_cg_retain(conq_refcount *r);
bool rc_cg_release(conq_refcount *r);

void rc_cg_init(conq_refcount *r, int32_t n)
{
	conq_refcount_init(r, n);
}

void rc_cg_init_one(conq_refcount *r)
{
	conq_refcount_init(r, 1);
}

void rc_cg_retain(conq_refcount *r)
{
	conq_refcount_retain(r);
}

bool rc_cg_release(conq_refcount *r)
{
	return conq_refcount_release(r);
}
