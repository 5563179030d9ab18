/* SPDX-License-Identifier: BSD-2-Clause */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <stdint.h>
#include <time.h>

#include "conq/common.h"
#include "conq/version.h"
#include "internal.h"

unsigned conq__pause_ns_x16 = 176;

/* The cost of a pause, for conq__watch_gap (impl/atomic.h): the fastest of
 * three timings of 256 pauses (a preempted timing only reads slower; a
 * clock read of ~20 ns is under 1% of one), as nanoseconds per 16, within
 * [16, 16000] (a no-op conq__cpu_relax counts as 1 ns). 3 x 256 pauses at
 * load: about 9 us on the Intel guest, 25 us on the AMD one. */
__attribute__((constructor)) static void conq__calibrate_pause(void)
{
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < 3; r++) {
		struct timespec t0, t1;
		if (clock_gettime(CLOCK_MONOTONIC, &t0) != 0)
			return;
		for (int i = 0; i < 256; i++)
			conq__cpu_relax();
		if (clock_gettime(CLOCK_MONOTONIC, &t1) != 0)
			return;
		uint64_t ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
			      (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
		if (ns < best)
			best = ns;
	}
	uint64_t x16 = best / 16; /* ns per 16 pauses = ns per 256 / 16 */
	if (x16 < 16)
		x16 = 16;
	if (x16 > 16000)
		x16 = 16000;
	conq__pause_ns_x16 = (unsigned)x16;
}

const char *conq_version(void)
{
	return CONQ_VERSION_STRING;
}

size_t conq__array_round_capacity(size_t capacity)
{
	if (capacity == 0 || capacity > CONQ_ARRAY_MAX_CAPACITY)
		return 0;
	size_t c = 1;
	while (c < capacity)
		c <<= 1;
	return c;
}

void conq__cold_init(conq__cold *c, size_t bytes)
{
	size_t k = CONQ__COLD_BYTES / bytes;
	if (k == 0)
		k = 1;
	c->head = c->n = 0;
	c->k = (uint32_t)(k < CONQ__COLD_MAX ? k : CONQ__COLD_MAX);
}

void *conq__cold_push(conq__cold *c, void *ch)
{
	if (c->k == 0)
		return ch;
	void *oldest = NULL;
	if (c->n == c->k)
		oldest = conq__cold_pop(c);
	c->ch[(c->head + c->n) % CONQ__COLD_MAX] = ch;
	c->n++;
	return oldest;
}

void *conq__cold_pop(conq__cold *c)
{
	if (c->n == 0)
		return NULL;
	void *ch = c->ch[c->head];
	c->head = (c->head + 1) % CONQ__COLD_MAX;
	c->n--;
	return ch;
}
