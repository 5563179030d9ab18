/* SPDX-License-Identifier: BSD-2-Clause */
/* env.h - what the machine and the build are, printed once per run. */
#ifndef CB_ENV_H
#define CB_ENV_H

#include <stdbool.h>

typedef struct cb_env {
	char cpu_model[128];
	char hypervisor[16]; /* "KVM", "" when none detected */
	char kernel[80];
	int online;          /* CPUs online */
	int allowed;         /* CPUs in our affinity mask */
	int allowed_list[256];
	char compiler[96];
	char build[96]; /* build type and optimization flags */
} cb_env;

void cb_env_probe(cb_env *e);

/* The one-line environment header ("# Env: ..."), without affinity. */
void cb_env_print(const cb_env *e, const char *affinity);

#endif /* CB_ENV_H */
