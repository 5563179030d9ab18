/* SPDX-License-Identifier: BSD-2-Clause */
/* wl_contest.c - the trials and report lines of the contender benchmarks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "wl_contest.h"

/* The thread counts of wl at o: "threads" when interleaved, else 1. */
static int contest_threads(const cb_workload *wl, const cb_options *o,
			   const cb_env *env, unsigned *tc)
{
	tc[0] = 1;
	return cb_param_is_interleaved(wl, "threads")
		   ? cb_wl_thread_counts(wl, o, env, tc, CB_MAX_LIST)
		   : 1;
}

int cb_wl_contest_init(cb_wl_contest *s, const cb_workload *wl,
		       const cb_options *o, const cb_env *env,
		       size_t ctx_size)
{
	memset(s, 0, sizeof *s);
	s->wl = wl;
	s->o = o;
	s->env = env;
	s->least = CB_MAX_THREADS;
	s->ncpus = 1;
	s->threads = cb_param_is_interleaved(wl, "threads");
	s->nc =
	    cb_select_contenders(wl, o, s->sel, CB_WL_MAX_CONTENDERS, false);
	s->nt = contest_threads(wl, o, env, s->tc);
	if (s->nc < 0 || s->nt < 0)
		return 2;
	if (o->mode != CB_MODE_AVGT && o->mode != CB_MODE_THRPT)
		return 2; /* the plan offers only these */
	s->avgt = o->mode == CB_MODE_AVGT;
	s->n = (size_t)s->nc * (size_t)s->nt;
	s->t = (cb_wl_trial *)calloc(s->n, sizeof *s->t);
	s->ctx = calloc(s->n, ctx_size);
	s->mem = (void **)calloc(s->n, sizeof *s->mem);
	s->label = (char(*)[96])calloc(s->n, sizeof *s->label);
	const bool oom = s->t == NULL || s->ctx == NULL || s->mem == NULL ||
			 s->label == NULL;
	return oom ? 1 : 0;
}

void *cb_wl_contest_mem(cb_wl_contest *s, size_t k, size_t size)
{
	s->mem[k] = cb_alloc_aligned(size);
	return s->mem[k];
}

int cb_wl_contest_start(cb_wl_contest *s, size_t k, cb_wl_after_fn after,
			void *user, cb_role_fn role, void *q)
{
	const cb_adapter *c = cb_wl_contest_contender(s, k);
	const unsigned n = cb_wl_contest_threads(s, k);
	cb_wl_trial *t = &s->t[k];
	if (s->threads)
		snprintf(s->label[k], sizeof s->label[k], "%s threads=%u",
			 c->name, n);
	else
		snprintf(s->label[k], sizeof s->label[k], "%s", c->name);
	t->label = s->label[k];
	t->user = user;
	t->after = after;
	t->sec_label[0] = s->avgt ? "aggregate" : "perThread";
	t->sec_unit[0] = s->avgt ? "ops/us" : "ns/op";
	cb_role_fn roles[CB_MAX_THREADS];
	for (unsigned i = 0; i < n; i++)
		roles[i] = role;
	char aff[sizeof s->aff];
	if (cb_wl_trial_alloc(t, s->o, 1) != 0 ||
	    cb_wl_trial_start(t, s->o, s->env, n, roles, q, aff,
			      sizeof aff) != 0)
		return -1;
	if (n < s->least)
		s->least = n;
	if (n > s->most) {
		s->most = n;
		s->yield = t->yield;
		s->ncpus = t->ncpus;
		snprintf(s->aff, sizeof s->aff, "%s", aff);
	}
	return 0;
}

void cb_wl_contest_header(const cb_wl_contest *s, const char *tail)
{
	char threads[64];
	if (s->least == s->most)
		snprintf(threads, sizeof threads, "%u per trial, all measured",
			 s->most);
	else
		snprintf(threads, sizeof threads,
			 "%u to %u per trial, all measured", s->least, s->most);
	cb_wl_header(s->wl, s->o, threads, s->aff, s->yield, s->most,
		     s->ncpus);
	printf("# Parameters: %s =", s->wl->contender_param);
	for (int j = 0; j < s->nc; j++)
		printf("%s %s", j ? "," : "", s->sel[j]->name);
	if (s->threads) {
		printf("; threads =");
		for (int j = 0; j < s->nt; j++)
			printf("%s %u", j ? "," : "", s->tc[j]);
	}
	printf(" (interleaved: %zu trials)%s\n", s->n,
	       tail != NULL ? tail : "");
	fflush(stdout);
}

int cb_wl_contest_run(cb_wl_contest *s, cb_results *rs, const char *benchmark,
		      const char *label)
{
	cb_wl_rounds(s->wl, s->o, s->t, s->n);
	for (size_t k = 0; k < s->n; k++) {
		const char *unit = s->avgt ? "ns/op" : "ops/us";
		cb_result *r =
		    cb_wl_result(rs, &s->t[k], s->o, benchmark, label, unit);
		char threads[12];
		snprintf(threads, sizeof threads, "%u", s->t[k].nthreads);
		if (r == NULL ||
		    (s->threads && cb_result_param(r, "threads", threads)))
			return 1;
		r->adapter = cb_wl_contest_contender(s, k);
		r->producers = s->t[k].nthreads;
		r->consumers = 0;
	}
	return 0;
}

void cb_wl_contest_free(cb_wl_contest *s)
{
	for (size_t k = 0; s->t != NULL && k < s->n; k++)
		cb_wl_trial_stop(&s->t[k]);
	for (size_t k = 0; s->mem != NULL && k < s->n; k++)
		cb_free_aligned(s->mem[k]);
	free(s->t);
	free(s->ctx);
	free(s->mem);
	free(s->label);
	s->t = NULL;
	s->ctx = NULL;
	s->mem = NULL;
	s->label = NULL;
}

size_t cb_wl_contest_steps(const cb_workload *wl, const cb_options *o)
{
	const cb_adapter *c[CB_WL_MAX_CONTENDERS];
	unsigned tc[CB_MAX_LIST];
	int nc = cb_select_contenders(wl, o, c, CB_WL_MAX_CONTENDERS, true);
	int nt = contest_threads(wl, o, NULL, tc);
	return (size_t)(nc > 0 ? nc : 1) * (size_t)(nt > 0 ? nt : 1) *
	       ((size_t)o->wi + (size_t)o->i);
}

double cb_wl_contest_score(cb_wl_trial *t, int measured, size_t m,
			   uint64_t per, bool avgt, double *ns, double *rate)
{
	cb_wl_thread_rates(t, per, ns, rate);
	if (measured)
		t->sec[0][m] = avgt ? *rate : *ns;
	return avgt ? *ns : *rate;
}

const cb_series *cb_wl_contest_ns(const cb_result *r)
{
	return strcmp(r->mode, "avgt") == 0 ? &r->primary : &r->secondary[0];
}

const cb_series *cb_wl_contest_rate(const cb_result *r)
{
	return strcmp(r->mode, "avgt") == 0 ? &r->secondary[0] : &r->primary;
}

cb_wl_pair cb_wl_contest_ns_pair(const cb_result *a, const cb_result *b)
{
	cb_wl_pair p = {cb_wl_contest_ns(a)->v, cb_wl_contest_ns(b)->v,
			cb_wl_contest_n(a, b), a->disturbed, b->disturbed};
	return p;
}

cb_wl_pair cb_wl_contest_rate_pair(const cb_result *a, const cb_result *b)
{
	cb_wl_pair p = {cb_wl_contest_rate(a)->v, cb_wl_contest_rate(b)->v,
			cb_wl_contest_n(a, b), a->disturbed, b->disturbed};
	return p;
}

void cb_wl_contest_ratio(FILE *f, const char *prefix, const cb_result *a,
			 const cb_result *b)
{
	char lhs[160];
	snprintf(lhs, sizeof lhs, "%s%s / %s:", prefix, a->adapter->name,
		 b->adapter->name);
	cb_wl_pair p = cb_wl_contest_ns_pair(a, b);
	cb_report_ratio_series(f, lhs, p.a, p.b, p.n, p.da, p.db);
}

void cb_wl_contest_target(FILE *f, const char *what, double min, double max,
			  bool noise, cb_wl_pair p)
{
	double p25 = NAN, p75 = NAN;
	double q = cb_round_ratio_series(p.a, p.b, p.n, &p25, &p75);
	bool ok = (min <= q && q <= max) || (noise && p25 <= 1.0 && 1.0 <= p75);
	fprintf(f, "  %s: %s\n", what, ok ? "met" : "NOT MET");
	cb_report_ratio_series(f, "", p.a, p.b, p.n, p.da, p.db);
}
