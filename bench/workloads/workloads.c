/* SPDX-License-Identifier: BSD-2-Clause */
/* The workload registry and helpers shared by the workloads. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "plan.h"
#include "workload.h"

extern const cb_workload cb_wl_throughput, cb_wl_slowside, cb_wl_value;
extern const cb_workload cb_wl_test_hang;
extern const cb_workload cb_wl_test_echo;
extern const cb_workload cb_wl_burst, cb_wl_rtt, cb_wl_pingpong, cb_wl_catchup,
	cb_wl_align, cb_wl_limits, cb_wl_handoff;
extern const cb_workload cb_wl_uuid, cb_wl_refcount_cycle,
	cb_wl_refcount_shared;
extern const cb_workload cb_wl_pool_burst, cb_wl_pool_sparse;

/* One line per workload (the order of the plan and of -l). */
const cb_workload *const cb_workloads[] = {
	&cb_wl_throughput,
	&cb_wl_slowside,
	&cb_wl_value,
	&cb_wl_burst,
	&cb_wl_rtt,
	&cb_wl_pingpong,
	&cb_wl_catchup,
	&cb_wl_align,
	&cb_wl_limits,
	&cb_wl_handoff,
	&cb_wl_uuid,
	&cb_wl_refcount_cycle,
	&cb_wl_refcount_shared,
	&cb_wl_pool_burst,
	&cb_wl_pool_sparse,
	&cb_wl_test_hang,
	&cb_wl_test_echo,
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

int cb_result_same_params(const cb_result *a, const cb_result *b)
{
	if (a->nparams != b->nparams)
		return 0;
	for (size_t k = 0; k < a->nparams; k++)
		if (strcmp(a->params[k].name, b->params[k].name) != 0 ||
		    strcmp(a->params[k].value, b->params[k].value) != 0)
			return 0;
	return 1;
}

void cb_results_free(cb_results *rs)
{
	for (size_t k = 0; k < rs->n; k++) {
		free(rs->r[k].primary.v);
		free(rs->r[k].disturbed);
		free(rs->r[k].fork_len);
		cb_hist_free(rs->r[k].hist);
		for (size_t j = 0; j < rs->r[k].nsecondary; j++)
			free(rs->r[k].secondary[j].v);
	}
	free(rs->r);
	free(rs->fail);
	memset(rs, 0, sizeof *rs);
}

int cb_results_fail(cb_results *rs, int timeout, const char *what,
		    const char *why)
{
	cb_failure *f = (cb_failure *)realloc(rs->fail,
					      (rs->nfail + 1) * sizeof *f);
	if (f == NULL)
		return -1;
	rs->fail = f;
	f = &rs->fail[rs->nfail++];
	memset(f, 0, sizeof *f);
	f->timeout = timeout;
	snprintf(f->what, sizeof f->what, "%s", what);
	snprintf(f->why, sizeof f->why, "%s", why);
	/* Tabs and newlines would break the fork pipe's lines. */
	for (char *c = f->what; *c; c++)
		if (*c == '\t' || *c == '\n')
			*c = ' ';
	for (char *c = f->why; *c; c++)
		if (*c == '\t' || *c == '\n')
			*c = ' ';
	return 0;
}

static int listed(const cb_adapter *const *v, size_t n, const cb_adapter *a)
{
	for (size_t j = 0; j < n; j++)
		if (v[j] == a)
			return 1;
	return 0;
}

bool cb_param_is_interleaved(const cb_workload *wl, const char *name)
{
	const char *s = wl->interleaved;
	const size_t len = strlen(name);
	while (s != NULL && *s != '\0') {
		size_t n = strcspn(s, ",");
		if (n == len && strncmp(s, name, n) == 0)
			return true;
		s += n;
		if (*s == ',')
			s++;
	}
	return false;
}

size_t cb_param_list(const cb_workload *wl, const cb_options *o,
		     const char *name, const char **out, size_t max)
{
	const cb_param_vals *pv = cb_find_param_c(o, name);
	size_t n = 0;
	if (pv != NULL && pv->nval > 0) {
		for (size_t k = 0; k < pv->nval && n < max; k++)
			out[n++] = pv->val[k];
		return n;
	}
	const char *s = NULL;
	for (size_t d = 0; d < wl->nparams && s == NULL; d++)
		if (strcmp(wl->params[d].name, name) == 0)
			s = wl->params[d].defaults;
	while (s != NULL && *s != '\0' && n < max) {
		size_t len = strcspn(s, ",");
		char buf[128];
		snprintf(buf, sizeof buf, "%.*s", (int)len, s);
		const char *v = cb_intern(buf);
		if (v == NULL)
			break;
		out[n++] = v;
		s += len;
		if (*s == ',')
			s++;
	}
	return n;
}

int cb_result_param(cb_result *r, const char *name, const char *value)
{
	const size_t max = sizeof r->params / sizeof r->params[0];
	const char *n = cb_intern(name), *v = cb_intern(value);
	if (n == NULL || v == NULL || r->nparams == max)
		return -1;
	r->params[r->nparams].name = n;
	r->params[r->nparams++].value = v;
	return 0;
}

int cb_select_contenders(const cb_workload *wl, const cb_options *o,
			 const cb_adapter **out, size_t max, bool quiet)
{
	const char *pat[CB_MAX_LIST];
	size_t np = cb_param_list(wl, o, wl->contender_param, pat, CB_MAX_LIST);
	const cb_param_vals *pv = cb_find_param_c(o, wl->contender_param);
	const int given = pv != NULL && pv->given;
	size_t n = 0;
	for (size_t p = 0; p < np; p++) {
		int hit = 0;
		for (size_t k = 0; k < wl->ncontenders; k++) {
			const cb_adapter *a = wl->contenders[k];
			if (fnmatch(pat[p], a->name, 0) != 0)
				continue;
			hit = 1;
			if (!listed(out, n, a) && n < max)
				out[n++] = a;
		}
		if (!hit && given) {
			if (quiet)
				return -1;
			fprintf(stderr,
				"conq-bench: %s: %s '%s' matches nothing "
				"compiled in (see -l and --list-peers)\n",
				wl->name, wl->contender_param, pat[p]);
			return -1;
		}
	}
	if (n == 0 && !quiet)
		fprintf(stderr, "conq-bench: %s: no %s selected\n", wl->name,
			wl->contender_param);
	return n == 0 ? -1 : (int)n;
}

const cb_adapter *cb_contender_by_name(const char *name)
{
	for (size_t w = 0; w < cb_nworkloads; w++)
		for (size_t k = 0; k < cb_workloads[w]->ncontenders; k++)
			if (strcmp(cb_workloads[w]->contenders[k]->name,
				   name) == 0)
				return cb_workloads[w]->contenders[k];
	return NULL;
}

int cb_check_qtypes(const cb_options *o)
{
	for (size_t p = 0; p < o->nqtype; p++) {
		int hit = 0;
		for (size_t k = 0; k < cb_nadapters; k++)
			hit |= fnmatch(o->qtype[p], cb_adapters[k]->name, 0) == 0;
		if (!hit) {
			fprintf(stderr,
				"conq-bench: qType '%s' matches no compiled-in "
				"queue (see -l and --list-peers)\n",
				o->qtype[p]);
			return -1;
		}
	}
	return 0;
}

/* Does adapter a have the loops of the workloads asked (values: vloops)? */
static int serves(const cb_adapter *a, bool values)
{
	return values ? a->vloops != NULL : a->loops != NULL;
}

static int select_adapters(bool values, const cb_options *o, unsigned p,
			   unsigned c, const cb_adapter **out, size_t max,
			   const cb_adapter **skipped, size_t *nskipped)
{
	size_t n = 0;
	*nskipped = 0;
	if (o->nqtype == 0) {
		unsigned sel = o->sel ? o->sel : cb_contract_of_shape(p, c);
		for (size_t k = 0; k < cb_nadapters && n < max; k++) {
			const cb_adapter *a = cb_adapters[k];
			if ((a->contract & sel) && !a->variant &&
			    serves(a, values) &&
			    cb_contract_allows(a->contract, p, c))
				out[n++] = a;
		}
		return (int)n;
	}
	if (cb_check_qtypes(o) != 0)
		return -1;
	/* In the order given; each adapter once. */
	for (size_t q = 0; q < o->nqtype; q++) {
		for (size_t k = 0; k < cb_nadapters; k++) {
			const cb_adapter *a = cb_adapters[k];
			if (!serves(a, values) ||
			    fnmatch(o->qtype[q], a->name, 0) != 0)
				continue;
			/* A variant ("conq:spsc_growable.16") only when the
			 * pattern names one: it has a '.' (a name, or a glob
			 * such as "conq:*.1K"); "conq:*" leaves them out. */
			if (a->variant && strchr(o->qtype[q], '.') == NULL &&
			    strcmp(o->qtype[q], a->name) != 0)
				continue;
			if (!cb_contract_allows(a->contract, p, c)) {
				if (!listed(skipped, *nskipped, a) &&
				    *nskipped < max)
					skipped[(*nskipped)++] = a;
				continue;
			}
			if (!listed(out, n, a) && n < max)
				out[n++] = a;
		}
	}
	return (int)n;
}

int cb_select_adapters(const cb_options *o, unsigned p, unsigned c,
		       const cb_adapter **out, size_t max,
		       const cb_adapter **skipped, size_t *nskipped)
{
	return select_adapters(false, o, p, c, out, max, skipped, nskipped);
}

int cb_select_value_adapters(const cb_options *o, unsigned p, unsigned c,
			     const cb_adapter **out, size_t max,
			     const cb_adapter **skipped, size_t *nskipped)
{
	return select_adapters(true, o, p, c, out, max, skipped, nskipped);
}

void cb_plan_affinity(const cb_options *o, const cb_env *env, unsigned n,
		      int *cpus, bool *yield, unsigned *ncpus, char *desc,
		      size_t desc_len)
{
	unsigned allowed = env->allowed > 0 ? (unsigned)env->allowed : 1u;
	*yield = allowed < n;
	*ncpus = n < allowed ? n : allowed;
	for (unsigned k = 0; k < n; k++)
		cpus[k] = -1;
	if (o->affinity == CB_AFF_NONE) {
		snprintf(desc, desc_len, "not pinned (--affinity none)%s",
			 *yield ? "; OVERSUBSCRIBED: more threads than CPUs"
				: "");
		return;
	}
	if (o->affinity == CB_AFF_LIST) {
		unsigned distinct = 0;
		for (unsigned k = 0; k < n; k++) {
			cpus[k] = o->cpus[k % o->ncpus];
			int seen = 0;
			for (unsigned j = 0; j < k; j++)
				seen |= cpus[j] == cpus[k];
			distinct += !seen;
		}
		*yield = distinct < n;
		*ncpus = distinct;
		snprintf(desc, desc_len, "pinned as asked (--affinity)%s",
			 *yield ? "; OVERSUBSCRIBED: threads share a CPU" : "");
		return;
	}
	for (unsigned k = 0; k < n; k++)
		cpus[k] = env->allowed_list[k % allowed];
	if (*yield)
		snprintf(desc, desc_len,
			 "round-robin over the %u allowed CPU%s; "
			 "OVERSUBSCRIBED: %u threads on %u CPU%s",
			 allowed, allowed == 1 ? "" : "s", n, allowed,
			 allowed == 1 ? "" : "s");
	else
		snprintf(desc, desc_len, "one thread per CPU");
}
