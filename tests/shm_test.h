/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/shm_test.h - the object that tests/test_shm.c puts in its regions,
 * shared with the exec'ed helper tests/shm_child.c.
 */
#ifndef CONQ_TESTS_SHM_TEST_H
#define CONQ_TESTS_SHM_TEST_H

#include <stdint.h>

#include "conq/shm.h"

#define TS_KIND	  (CONQ_SHM_KIND_USER + 7u)
#define TS_LAYOUT 3u
#define TS_ELEM	  8u
#define TS_CAP	  16u
/* More than a page, not a multiple of one. */
#define TS_SIZE 5000u

/* The object: written by the creator's init, then by the children. Offsets
 * only, no pointers. */
struct ts_obj {
	uint64_t init_mark;  /* TS_INIT_MARK, by init */
	uint64_t child_mark; /* TS_CHILD_MARK, by a child */
	int64_t child_pid;   /* getpid() of that child */
	char text[64];	     /* a line from that child */
	/* ... up to TS_SIZE: the last byte is written too */
};

#define TS_INIT_MARK  UINT64_C(0x1417a11ced)
#define TS_CHILD_MARK UINT64_C(0xc41dc41d)

#endif
