/* SPDX-License-Identifier: BSD-2-Clause */
/* env.h - what the machine and the build are, printed once per run. */
#ifndef CB_ENV_H
#define CB_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct cb_env {
	char cpu_model[128];
	char hypervisor[16]; /* "KVM", "" when none detected */
	char kernel[80];
	int online;          /* CPUs online */
	int allowed;         /* CPUs in our affinity mask */
	int allowed_list[256];
	char compiler[96];
	char build[96]; /* build type and optimization flags */
	char hostname[64];
	char date[32];        /* ISO 8601, UTC, at the probe */
	char governor[48];    /* cpu0's scaling_governor, "n/a (no cpufreq)" */
	char clocksource[32]; /* current_clocksource */
	double loadavg[3];    /* /proc/loadavg; -1 if unreadable */
	/* The TSC against CLOCK_MONOTONIC_RAW: 3 windows of 20 ms, median;
	 * tsc_hz 0 when not measured (no TSC, or not asked). */
	bool tsc_invariant; /* CPUID: invariant TSC */
	double tsc_hz;
	double tsc_spread_ppm; /* max - min of the 3 windows, ppm */
	double timer_ns; /* clock_gettime(CLOCK_MONOTONIC) cost, median */
} cb_env;

/* Probe the machine; calibrate: also time the TSC and the clock (~70 ms). */
void cb_env_probe(cb_env *e, int calibrate);

/* The environment header: one line ("# conq-bench ... "), plus the affinity
 * line. */
void cb_env_print(FILE *f, const cb_env *e, const char *affinity);

/* The environment in one line, without the header's prefix (reports). */
void cb_env_line(const cb_env *e, char *buf, size_t n);

#endif /* CB_ENV_H */
