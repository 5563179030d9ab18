/* SPDX-License-Identifier: BSD-2-Clause */
/* The workload registry and helpers shared by the workloads. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

extern const cb_workload cb_wl_throughput;

const cb_workload *const cb_workloads[] = {
	&cb_wl_throughput,
};
const size_t cb_nworkloads = sizeof cb_workloads / sizeof cb_workloads[0];

cb_result *cb_results_add(cb_results *rs)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 8;
		cb_result *r = (cb_result *)realloc(rs->r, cap * sizeof *r);
		if (r == NULL)
			return NULL;
		rs->r = r;
		rs->cap = cap;
	}
	cb_result *r = &rs->r[rs->n++];
	memset(r, 0, sizeof *r);
	return r;
}

void cb_results_free(cb_results *rs)
{
	for (size_t k = 0; k < rs->n; k++) {
		free(rs->r[k].primary.v);
		free(rs->r[k].disturbed);
		for (size_t j = 0; j < rs->r[k].nsecondary; j++)
			free(rs->r[k].secondary[j].v);
	}
	free(rs->r);
	memset(rs, 0, sizeof *rs);
}

int cb_select_adapters(const cb_options *o, unsigned contracts,
		       const cb_adapter **out, size_t max)
{
	size_t n = 0;
	if (o->nqtype == 0) {
		for (size_t k = 0; k < cb_nadapters && n < max; k++)
			if (cb_adapters[k]->contracts & contracts)
				out[n++] = cb_adapters[k];
		return (int)n;
	}
	/* In the order given; each adapter once. */
	for (size_t p = 0; p < o->nqtype; p++) {
		int hit = 0;
		for (size_t k = 0; k < cb_nadapters; k++) {
			const cb_adapter *a = cb_adapters[k];
			if (fnmatch(o->qtype[p], a->name, 0) != 0)
				continue;
			hit = 1;
			if (!(a->contracts & contracts))
				continue;
			int dup = 0;
			for (size_t j = 0; j < n; j++)
				dup |= out[j] == a;
			if (!dup && n < max)
				out[n++] = a;
		}
		if (!hit) {
			fprintf(stderr,
				"conq-bench: qType '%s' matches no compiled-in "
				"queue (see -l and --list-peers)\n",
				o->qtype[p]);
			return -1;
		}
	}
	return (int)n;
}

void cb_plan_affinity(const cb_options *o, const cb_env *env, unsigned n,
		      int *cpus, bool *yield, char *desc, size_t desc_len)
{
	*yield = (unsigned)env->allowed < n;
	for (unsigned k = 0; k < n; k++)
		cpus[k] = -1;
	if (o->affinity == CB_AFF_NONE) {
		snprintf(desc, desc_len, "not pinned (--affinity none)%s",
			 *yield ? "; OVERSUBSCRIBED: more threads than CPUs"
				: "");
		return;
	}
	if (o->affinity == CB_AFF_LIST) {
		for (unsigned k = 0; k < n; k++)
			cpus[k] = o->cpus[k % o->ncpus];
		int distinct = 1;
		for (unsigned k = 0; k < n; k++)
			for (unsigned j = 0; j < k; j++)
				if (cpus[j] == cpus[k])
					distinct = 0;
		*yield = !distinct;
		snprintf(desc, desc_len, "pinned as asked (--affinity)%s",
			 distinct ? "" : "; OVERSUBSCRIBED: threads share a CPU");
		return;
	}
	if ((unsigned)env->allowed < n) {
		snprintf(desc, desc_len,
			 "not pinned: OVERSUBSCRIBED, %u threads but %d CPU%s "
			 "allowed (failed ops yield)",
			 n, env->allowed, env->allowed == 1 ? "" : "s");
		return;
	}
	for (unsigned k = 0; k < n; k++)
		cpus[k] = env->allowed_list[k];
	snprintf(desc, desc_len, "one thread per CPU");
}
