/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The harness's own test workloads, hidden unless --test-workloads (they
 * measure nothing; ctest bench_harness runs them):
 *
 *  - HarnessHang.hang: one iteration completes, then the trial hangs forever
 *    (a stuck queue, as far as the harness can tell). Under -f N the parent
 *    must kill the fork once it has been silent for the timeout and report
 *    it TIMEOUT (exit status 3). It refuses to run in-process (-f 0).
 *  - HarnessEcho.echo: parameters alpha (1,2) and beta (x,y,z) and every
 *    mode; each point yields one result whose per-iteration values are a
 *    known function of the point (alpha * 1000 + index of beta * 100 +
 *    iteration), so that the expansion, the forks' merging and the JSON and
 *    CSV writers can be checked against exact expected values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

static int hang_run(const cb_workload *wl, const cb_options *o,
		    const cb_env *env, cb_results *rs)
{
	(void)env;
	(void)rs;
	if (o->forks == 0 || o->child_point < 0) {
		fprintf(stderr,
			"conq-bench: %s hangs by design: run it under "
			"-f 1 or more\n",
			wl->name);
		return 2;
	}
	printf("# Benchmark: %s.%s (a harness test: hangs after one "
	       "iteration)\n",
	       wl->name, wl->group);
	fflush(stdout);
	cb_progress(o, "warmup 1/1 HarnessHang (then it hangs)");
	for (;;)
		pause();
}

const cb_workload cb_wl_test_hang = {
    .name = "HarnessHang",
    .group = "hang",
    .mode = "thrpt",
    .unit = "ops/us",
    .roles = "hang",
    .headline = "none",
    .desc = "harness test: hangs after one iteration (needs -f >= 1)",
    .run = hang_run,
    .test_only = true,
};

static const cb_param_def echo_params[] = {
    {"beta", "x,y,z", "a string parameter"},
    {"alpha", "1,2", "a numeric parameter"},
};

static int echo_run(const cb_workload *wl, const cb_options *o,
		    const cb_env *env, cb_results *rs)
{
	(void)env;
	uint64_t alpha;
	if (cb_param_u64(o, "alpha", &alpha) != 0)
		return 2;
	const char *beta = cb_param(o, "beta");
	if (beta == NULL)
		return 2;
	double b = beta[0] == 'x'   ? 0
		   : beta[0] == 'y' ? 1
		   : beta[0] == 'z' ? 2
				    : 9;
	size_t n = (size_t)o->i;
	double *v = (double *)calloc(n, sizeof *v);
	double *w = (double *)calloc(n, sizeof *w);
	if (v == NULL || w == NULL) {
		free(v);
		free(w);
		return 1;
	}
	const char *mode = cb_mode_name(o->mode);
	for (int k = 0; k < o->wi; k++) {
		char line[128];
		snprintf(line, sizeof line, "warmup %d/%d %s.%s %s", k + 1,
			 o->wi, wl->name, wl->group, mode);
		cb_progress(o, line);
	}
	for (size_t k = 0; k < n; k++) {
		v[k] = (double)alpha * 1000 + b * 100 + (double)k;
		w[k] = (double)k;
		char line[128];
		snprintf(line, sizeof line, "measure %zu/%zu %s.%s %s %.0f",
			 k + 1, n, wl->name, wl->group, mode, v[k]);
		cb_progress(o, line);
	}
	cb_result *r = cb_results_add(rs);
	if (r == NULL) {
		free(v);
		free(w);
		return 1;
	}
	r->benchmark = "HarnessEcho.echo";
	r->mode = mode;
	r->producers = r->consumers = 1;
	r->primary.label = "value";
	r->primary.unit = o->mode == CB_MODE_THRPT ? "ops/us" : "ns/op";
	r->primary.v = v;
	r->primary.n = n;
	r->secondary[0].label = "iteration";
	r->secondary[0].unit = "#";
	r->secondary[0].v = w;
	r->secondary[0].n = n;
	r->nsecondary = 1;
	r->pinned = 1;
	return 0;
}

const cb_workload cb_wl_test_echo = {
    .name = "HarnessEcho",
    .group = "echo",
    .mode = "thrpt",
    .unit = "ops/us",
    .roles = "echo",
    .headline = "value",
    .desc = "harness test: parameters and modes echoed as known values",
    .run = echo_run,
    .modes = CB_ALL_MODES,
    .params = echo_params,
    .nparams = sizeof echo_params / sizeof echo_params[0],
    .test_only = true,
};
