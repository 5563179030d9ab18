/* SPDX-License-Identifier: BSD-2-Clause */
/* env.c - the machine and the build: CPU, hypervisor, TSC calibration,
 * clock cost, governor, clocksource, load; printed once per run. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "conq/version.h"
#include "cb.h"
#include "env.h"

#ifndef CB_BUILD_DESC
#define CB_BUILD_DESC "unknown build"
#endif

static void read_cpu_model(char *out, size_t n)
{
	snprintf(out, n, "unknown CPU");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f == NULL)
		return;
	char line[512];
	while (fgets(line, sizeof line, f) != NULL) {
		/* x86: "model name"; some arm64 kernels: "Model"/"CPU part". */
		if (strncmp(line, "model name", 10) == 0 ||
		    strncmp(line, "Model", 5) == 0) {
			char *v = strchr(line, ':');
			if (v == NULL)
				continue;
			v++;
			while (*v == ' ' || *v == '\t')
				v++;
			v[strcspn(v, "\n")] = '\0';
			snprintf(out, n, "%s", v);
			break;
		}
	}
	fclose(f);
}

static void read_hypervisor(char *out, size_t n)
{
	out[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return;
	__cpuid(0x40000000u, a, b, c, d);
	char sig[13];
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	if (strncmp(sig, "KVMKVMKVM", 9) == 0)
		snprintf(out, n, "KVM");
	else if (strncmp(sig, "Microsoft Hv", 12) == 0)
		snprintf(out, n, "Hyper-V");
	else if (strncmp(sig, "VMwareVMware", 12) == 0)
		snprintf(out, n, "VMware");
	else if (strncmp(sig, "XenVMMXenVMM", 12) == 0)
		snprintf(out, n, "Xen");
	else
		snprintf(out, n, "VM");
#else
	(void)n;
#endif
}

static void read_line(const char *path, char *out, size_t n,
		      const char *dflt)
{
	snprintf(out, n, "%s", dflt);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return;
	char line[256];
	if (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		size_t len = strlen(line) < n - 1 ? strlen(line) : n - 1;
		memcpy(out, line, len); /* truncated to fit */
		out[len] = '\0';
	}
	fclose(f);
}

#if defined(__x86_64__) || defined(__i386__)
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
	return (uint64_t)ts.tv_sec * CB_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* TSC ticks per second against CLOCK_MONOTONIC_RAW: 3 windows of 20 ms. */
static void calibrate_tsc(cb_env *e)
{
	double hz[3];
	for (int k = 0; k < 3; k++) {
		uint64_t n0 = raw_ns(), t0 = __builtin_ia32_rdtsc();
		const struct timespec nap = {0, 20 * 1000 * 1000};
		nanosleep(&nap, NULL);
		uint64_t n1 = raw_ns(), t1 = __builtin_ia32_rdtsc();
		hz[k] = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
	}
	qsort(hz, 3, sizeof hz[0], cmp_d);
	e->tsc_hz = hz[1];
	e->tsc_spread_ppm = (hz[2] - hz[0]) / hz[1] * 1e6;
}
#endif

/* The cost of the clock the harness reads at iteration edges: the median
 * of 5 runs of 10000 back-to-back calls. */
static void time_clock(cb_env *e)
{
	double v[5];
	for (int k = 0; k < 5; k++) {
		uint64_t t0 = cb_now_ns();
		for (int i = 0; i < 10000; i++)
			(void)cb_now_ns(); /* a vDSO call: not optimized out */
		uint64_t t1 = cb_now_ns();
		v[k] = (double)(t1 - t0) / 10000.0;
	}
	for (int i = 1; i < 5; i++)
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	e->timer_ns = v[2];
}

void cb_env_probe(cb_env *e, int calibrate)
{
	memset(e, 0, sizeof *e);
	read_cpu_model(e->cpu_model, sizeof e->cpu_model);
	read_hypervisor(e->hypervisor, sizeof e->hypervisor);
	struct utsname u;
	if (uname(&u) == 0) {
		snprintf(e->kernel, sizeof e->kernel, "%s", u.release);
		size_t len = strlen(u.nodename);
		if (len >= sizeof e->hostname)
			len = sizeof e->hostname - 1;
		memcpy(e->hostname, u.nodename, len); /* truncated to fit */
		e->hostname[len] = '\0';
	}
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm) != NULL)
		strftime(e->date, sizeof e->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		  e->governor, sizeof e->governor, "n/a (no cpufreq)");
	read_line("/sys/devices/system/clocksource/clocksource0/"
		  "current_clocksource",
		  e->clocksource, sizeof e->clocksource, "?");
	e->loadavg[0] = e->loadavg[1] = e->loadavg[2] = -1;
	FILE *f = fopen("/proc/loadavg", "r");
	if (f != NULL) {
		if (fscanf(f, "%lf %lf %lf", &e->loadavg[0], &e->loadavg[1],
			   &e->loadavg[2]) != 3)
			e->loadavg[0] = e->loadavg[1] = e->loadavg[2] = -1;
		fclose(f);
	}
#if defined(__x86_64__) || defined(__i386__)
	e->tsc_invariant = tsc_invariant();
	if (calibrate)
		calibrate_tsc(e);
#endif
	if (calibrate)
		time_clock(e);
	e->online = (int)sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) == 0) {
		for (int i = 0; i < CPU_SETSIZE && e->allowed < 256; i++)
			if (CPU_ISSET((size_t)i, &set))
				e->allowed_list[e->allowed++] = i;
	}
#if defined(__clang__)
	snprintf(e->compiler, sizeof e->compiler, "clang %d.%d.%d",
		 __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
	snprintf(e->compiler, sizeof e->compiler, "gcc %d.%d.%d", __GNUC__,
		 __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
	snprintf(e->compiler, sizeof e->compiler, "unknown compiler");
#endif
	snprintf(e->build, sizeof e->build, "%s", CB_BUILD_DESC);
}

void cb_env_line(const cb_env *e, char *buf, size_t n)
{
	char tsc[96];
	if (e->tsc_hz > 0)
		snprintf(tsc, sizeof tsc, "TSC %.2f MHz (%s, calibrated, spread "
			 "%.0f ppm)",
			 e->tsc_hz / 1e6,
			 e->tsc_invariant ? "invariant" : "NOT invariant",
			 e->tsc_spread_ppm);
	else
		snprintf(tsc, sizeof tsc, "TSC %s",
			 e->tsc_invariant ? "invariant" : "not invariant/none");
	snprintf(buf, n,
		 "%s%s%s, %d CPU%s online, %d allowed; %s; clocksource %s, "
		 "clock_gettime %.0f ns; pause %.1f ns; governor %s; "
		 "load %.2f %.2f %.2f; %s %s, C11, kernel %s",
		 e->cpu_model, e->hypervisor[0] ? " under " : "", e->hypervisor,
		 e->online, e->online == 1 ? "" : "s", e->allowed, tsc,
		 e->clocksource, e->timer_ns,
		 /* libconq's load-time timing, what conq__watch_gap uses */
		 conq__pause_ns_x16 / 16.0, e->governor, e->loadavg[0],
		 e->loadavg[1], e->loadavg[2], e->compiler, e->build, e->kernel);
}

void cb_env_print(FILE *f, const cb_env *e, const char *affinity)
{
	char line[768];
	cb_env_line(e, line, sizeof line);
	fprintf(f, "# conq-bench %s (conq %s): %s\n# %s\n", CB_VERSION,
		conq_version(), line, affinity);
	if (e->loadavg[0] > 0.5)
		fprintf(f, "# WARNING: load average %.2f at start: other work "
			   "on this machine will disturb the figures\n",
			e->loadavg[0]);
}
