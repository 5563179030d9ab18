/* SPDX-License-Identifier: BSD-2-Clause */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
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

void cb_env_probe(cb_env *e)
{
	memset(e, 0, sizeof *e);
	read_cpu_model(e->cpu_model, sizeof e->cpu_model);
	read_hypervisor(e->hypervisor, sizeof e->hypervisor);
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(e->kernel, sizeof e->kernel, "%s", u.release);
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

void cb_env_print(const cb_env *e, const char *affinity)
{
	printf("# conq-bench %s (conq %s): %s%s%s, %d CPU%s online, %d allowed; "
	       "%s; %s %s, C11, kernel %s\n",
	       CB_VERSION, conq_version(), e->cpu_model,
	       e->hypervisor[0] ? " under " : "", e->hypervisor, e->online,
	       e->online == 1 ? "" : "s", e->allowed, affinity, e->compiler,
	       e->build, e->kernel);
}
