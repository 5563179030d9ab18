/* SPDX-License-Identifier: BSD-2-Clause */
/* clock.c - conq-ping's clock (ping.h): the TSC, calibrated, or
 * CLOCK_MONOTONIC. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ping.h"

#ifdef PING_HAVE_TSC
#include <cpuid.h>
#endif

bool ping_clock_is_tsc = false;
double ping_tick_ns = 1.0;
double ping_clock_hz = 1e9;

uint64_t ping_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#ifdef PING_HAVE_TSC
static bool tsc_invariant(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return false;
	__cpuid(0x80000007u, a, b, c, d);
	return (d & (1u << 8)) != 0;
}

static uint64_t raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* TSC ticks per second against CLOCK_MONOTONIC_RAW: 3 windows of 10 ms,
 * the median. */
static double tsc_hz(void)
{
	double hz[3];
	for (int k = 0; k < 3; k++) {
		uint64_t n0 = raw_ns(), t0 = __builtin_ia32_rdtsc();
		const struct timespec nap = {0, 10 * 1000 * 1000};
		nanosleep(&nap, NULL);
		uint64_t n1 = raw_ns(), t1 = __builtin_ia32_rdtsc();
		hz[k] = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
	}
	qsort(hz, 3, sizeof hz[0], cmp_d);
	return hz[1];
}
#else
static bool tsc_invariant(void)
{
	return false;
}
static double tsc_hz(void)
{
	return 0;
}
#endif

int ping_clock_init(enum ping_clock want, char *err, size_t errlen)
{
	ping_clock_is_tsc = false;
	ping_tick_ns = 1.0;
	ping_clock_hz = 1e9;
	if (want == PING_CLOCK_MONO)
		return 0;
	if (!tsc_invariant()) {
		if (want == PING_CLOCK_TSC) {
			snprintf(err, errlen,
				 "--clock tsc: no invariant TSC on this CPU");
			return -1;
		}
		return 0;
	}
	double hz = tsc_hz();
	if (!(hz > 1e6)) { /* nonsense: keep the monotonic clock */
		if (want == PING_CLOCK_TSC) {
			snprintf(err, errlen,
				 "--clock tsc: calibration failed (%.0f Hz)",
				 hz);
			return -1;
		}
		return 0;
	}
	ping_clock_is_tsc = true;
	ping_clock_hz = hz;
	ping_tick_ns = 1e9 / hz;
	return 0;
}
