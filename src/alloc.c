/* SPDX-License-Identifier: BSD-2-Clause */
#define _POSIX_C_SOURCE 200809L /* sched_yield, nanosleep under -std=c11 */

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conq/common.h"
#include "conq/impl/testing.h"
#include "internal.h"

static _Thread_local int fail_after = -1;

void conq__test_fail_alloc_after(int n)
{
	fail_after = n;
}

/*
 * calloc, not posix_memalign + memset: for a large ring glibc maps fresh
 * zero pages, and calloc knows not to touch them, so creating a 16 GiB queue
 * costs nothing until it is used. The block is over-allocated by CONQ_PAD and
 * aligned by hand; the pointer to free sits in the word just below it.
 */
void *conq__alloc_aligned(size_t size)
{
	if (fail_after == 0) {
		errno = ENOMEM;
		return NULL;
	}
	if (fail_after > 0)
		fail_after--;
	if (size > SIZE_MAX - CONQ_PAD) {
		errno = ENOMEM;
		return NULL;
	}
	char *raw = (char *)calloc(1, size + CONQ_PAD);
	if (raw == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	char *p = raw + CONQ_PAD - (uintptr_t)raw % CONQ_PAD;
	memcpy(p - sizeof raw, &raw, sizeof raw);
	return p;
}

void conq__free_aligned(void *p)
{
	if (p == NULL)
		return;
	char *raw;
	memcpy(&raw, (char *)p - sizeof raw, sizeof raw);
	free(raw);
}

void *conq__alloc_with(const conq_allocator *a, size_t size, size_t align)
{
	if (a != NULL) {
		void *p = a->alloc(a->ctx, size, align);
		if (p == NULL) {
			errno = ENOMEM;
			return NULL;
		}
		memset(p, 0, size);
		return p;
	}
	/* conq__alloc_aligned zeroes and aligns to CONQ_PAD >= align. */
	(void)align;
	return conq__alloc_aligned(size);
}

void conq__free_with(const conq_allocator *a, void *p, size_t size)
{
	if (p == NULL)
		return;
	if (a != NULL)
		a->free(a->ctx, p, size);
	else
		conq__free_aligned(p);
}

void *conq__alloc_node(const conq_allocator *a, size_t size)
{
	if (a != NULL)
		return conq__alloc_with(a, size, 16);
	if (fail_after == 0) {
		errno = ENOMEM;
		return NULL;
	}
	if (fail_after > 0)
		fail_after--;
	void *p = calloc(1, size);
	if (p == NULL)
		errno = ENOMEM;
	return p;
}

void conq__free_node(const conq_allocator *a, void *p, size_t size)
{
	if (a != NULL)
		conq__free_with(a, p, size);
	else
		free(p);
}

size_t conq__array_prepare(void *mem, size_t capacity, size_t bytes,
			   int zeroed)
{
	if (bytes == 0)
		return 0; /* memsize() set errno */
	if (mem == NULL || (uintptr_t)mem % CONQ_PAD != 0) {
		errno = EINVAL;
		return 0;
	}
	if (!zeroed)
		memset(mem, 0, bytes);
	return conq__array_round_capacity(capacity);
}

void conq__wait_backoff(unsigned *spins)
{
	if (*spins < CONQ__WAIT_SPINS) {
		++*spins;
		conq__cpu_relax();
	} else {
		sched_yield();
	}
}

#ifdef CONQ_TEST_PAUSES
/* One call in 64 yields the CPU, one in 8192 sleeps 20-300 us: long enough
 * for the other threads of a torture run to retire and reuse what this one
 * holds a pointer to. A per-thread xorshift: no shared state. */
void conq__test_pause(void)
{
	static _Thread_local uint64_t x;
	if (x == 0)
		x = (uint64_t)(uintptr_t)&x | 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	if ((x & 8191) == 0) {
		struct timespec ts = {0, (long)(20000 + (x >> 13) % 280000)};
		nanosleep(&ts, NULL);
	} else if ((x & 63) == 0) {
		sched_yield();
	}
}
#endif
