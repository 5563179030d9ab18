/* SPDX-License-Identifier: BSD-2-Clause */
/* wl_common.c - trials and rounds shared by the group workloads. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* syscall() */
#endif
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "wl_common.h"

int cb_wl_trial_alloc(cb_wl_trial *t, const cb_options *o, size_t nsec)
{
	size_t n = (size_t)o->i;
	t->score = (double *)calloc(n, sizeof(double));
	t->disturbed = (unsigned char *)calloc(n, 1);
	int oom = t->score == NULL || t->disturbed == NULL;
	t->nsec = nsec < CB_WL_MAX_SEC ? nsec : CB_WL_MAX_SEC;
	for (size_t k = 0; k < t->nsec; k++) {
		t->sec[k] = (double *)calloc(n, sizeof(double));
		oom |= t->sec[k] == NULL;
	}
	if (oom)
		fprintf(stderr, "conq-bench: out of memory\n");
	return oom ? -1 : 0;
}

int cb_wl_trial_start(cb_wl_trial *t, const cb_options *o, const cb_env *env,
		      unsigned n, const cb_role_fn *roles, void *ctx, char *aff,
		      size_t aff_len)
{
	int cpus[CB_MAX_THREADS];
	bool yield;
	unsigned ncpus;
	cb_plan_affinity(o, env, n, cpus, &yield, &ncpus, aff, aff_len);
	int err = cb_group_start(&t->g, n, roles, cpus, ctx, yield);
	if (err != 0) {
		fprintf(stderr, "conq-bench: %s: cannot start %u threads: %s\n",
			t->label, n, strerror(err));
		return -1;
	}
	t->running = true;
	t->yield = yield;
	t->nthreads = n;
	t->ncpus = ncpus;
	t->pinned = true;
	for (unsigned k = 0; k < n; k++)
		if (cpus[k] >= 0 && !t->g.w[k].pinned)
			t->pinned = false;
	/* Read by the roles after their next wake-up (the group's mutex). */
	t->g.ctl->nproducers = 1;
	t->g.ctl->exact = true;
	return 0;
}

void cb_wl_trial_stop(cb_wl_trial *t)
{
	if (t->running)
		cb_group_stop(&t->g);
	t->running = false;
	free(t->score);
	free(t->disturbed);
	for (size_t k = 0; k < t->nsec; k++)
		free(t->sec[k]);
	cb_hist_free(t->hist);
	t->score = NULL;
	t->disturbed = NULL;
	t->hist = NULL;
	t->nsec = 0;
}

void cb_wl_vviolation(unsigned *count, const char *who, const char *what,
		      const char *fmt, va_list ap)
{
	if (++*count > 10) {
		if (*count == 11)
			fprintf(stderr,
				"conq-bench: %s: further violations counted, "
				"not shown\n",
				who);
		return;
	}
	fprintf(stderr, "conq-bench: INVARIANT VIOLATED: %s %s: ", who, what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cb_wl_violation(cb_wl_trial *t, const char *what, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cb_wl_vviolation(&t->violations, t->label, what, fmt, ap);
	va_end(ap);
}

void cb_wl_rounds(const cb_workload *wl, const cb_options *o, cb_wl_trial *t,
		  size_t n)
{
	const size_t rounds = (size_t)o->wi + (size_t)o->i;
	for (size_t k = 0; k < rounds; k++) {
		const int measured = k >= (size_t)o->wi;
		const size_t m = measured ? k - (size_t)o->wi : 0;
		const uint64_t ns = measured ? o->r_ns : o->w_ns;
		for (size_t jj = 0; jj < n; jj++) {
			cb_wl_trial *tr = &t[o->rotate ? (jj + k) % n : jj];
			if (cb_group_iterate(&tr->g, ns, o->timeout_ns) != 0) {
				fprintf(stderr,
					"conq-bench: %s.%s %s: iteration %zu "
					"timed out (a worker is stuck); giving "
					"up\n",
					wl->name, wl->group, tr->label, k + 1);
				fflush(NULL);
				_Exit(3);
			}
			double share = 0, min_share = 1;
			uint64_t ivcsw = 0;
			int over = 0;
			for (unsigned x = 0; x < tr->nthreads; x++) {
				const cb_worker *w = &tr->g.w[x];
				share += w->cpu_share;
				ivcsw += w->ivcsw;
				if (w->cpu_share < min_share)
					min_share = w->cpu_share;
				over |= (double)(w->t_stop - w->t_start) >
					1.1 * (double)ns;
			}
			/* Oversubscribed, the threads share the CPUs by
			 * design: then their total counts. */
			double cpu =
			    tr->yield ? share / (double)tr->ncpus : min_share;
			int dist = cpu < CB_WL_MIN_CPU_SHARE;
			char load[48];
			snprintf(load, sizeof load, "cpu %3.0f%%", 100 * cpu);
			/* ss: a shot is far shorter than the scheduler tick at
			 * which a thread's CPU time (getrusage) advances; it is
			 * disturbed when a worker was preempted (by design
			 * when oversubscribed). */
			if (tr->sleeps) {
				dist = ivcsw * CB_WL_SLEEPER_OPS >
				       tr->g.w[0].made + CB_WL_SLEEPER_OPS;
				snprintf(load, sizeof load,
					 "preempted %" PRIu64 "x", ivcsw);
			} else if (o->mode == CB_MODE_SS) {
				dist = !tr->yield && ivcsw > 0;
				snprintf(load, sizeof load,
					 "preempted %" PRIu64 "x", ivcsw);
			}
			if (tr->no_disturbance)
				dist = 0;
			char metric[160];
			metric[0] = '\0';
			double s =
			    tr->after(tr, measured, m, metric, sizeof metric);
			if (measured) {
				tr->score[m] = s;
				tr->disturbed[m] = (unsigned char)dist;
				tr->ndisturbed += (unsigned)dist;
				tr->overruns += (unsigned)over;
			}
			char line[320];
			snprintf(
			    line, sizeof line, "%s %zu/%d %s.%s %s %s  %s%s",
			    measured ? "measure" : "warmup",
			    measured ? m + 1 : k + 1, measured ? o->i : o->wi,
			    wl->name, wl->group, tr->label, metric, load,
			    dist ? "  [disturbed]" : "");
			cb_progress(o, line);
		}
	}
}

cb_result *cb_wl_result(cb_results *rs, cb_wl_trial *t, const cb_options *o,
			const char *benchmark, const char *label,
			const char *unit)
{
	cb_result *r = cb_results_add(rs);
	if (r == NULL)
		return NULL;
	size_t n = (size_t)o->i;
	r->benchmark = benchmark;
	r->mode = cb_mode_name(o->mode);
	r->adapter = t->a;
	r->capacity = t->a != NULL && o->ncapacity ? o->capacity[0] : 0;
	r->producers = 1;
	r->consumers = t->nthreads > 1 ? t->nthreads - 1 : 1;
	r->primary.label = label;
	r->primary.unit = unit;
	r->primary.v = t->score;
	r->primary.n = n;
	for (size_t k = 0; k < t->nsec; k++) {
		r->secondary[k].label = t->sec_label[k];
		r->secondary[k].unit = t->sec_unit[k];
		r->secondary[k].v = t->sec[k];
		r->secondary[k].n = n;
		t->sec[k] = NULL;
	}
	r->nsecondary = t->nsec;
	r->disturbed = t->disturbed;
	r->ndisturbed = t->ndisturbed;
	r->overruns = t->overruns;
	r->violations = t->violations;
	r->pinned = t->pinned;
	r->oversubscribed = t->yield;
	r->hist = t->hist;
	r->hist_unit = t->hist != NULL ? "ns" : NULL;
	rs->violations += t->violations;
	rs->oversubscribed |= t->yield;
	t->score = NULL;
	t->disturbed = NULL;
	t->hist = NULL;
	t->nsec = 0;
	return r;
}

int cb_wl_drop_batched(const cb_workload *wl, const cb_adapter **ads, int n)
{
	int k = 0;
	for (int j = 0; j < n; j++) {
		if (ads[j]->flush == NULL) {
			ads[k++] = ads[j];
			continue;
		}
		printf(
		    "# %s.%s: %s left out: it publishes in batches (an element "
		    "alone may never become visible)\n",
		    wl->name, wl->group, ads[j]->name);
	}
	return k;
}

size_t cb_wl_queue_steps(const cb_options *o, unsigned p, unsigned c)
{
	const cb_adapter *ads[CB_MAX_LIST * 4], *skp[CB_MAX_LIST * 4];
	size_t nskp, n = 0;
	int na = cb_select_adapters(o, p, c, ads, CB_MAX_LIST * 4, skp, &nskp);
	for (int j = 0; j < na; j++)
		n += ads[j]->flush == NULL;
	return (n ? n : 1) * ((size_t)o->wi + (size_t)o->i);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

double cb_wl_clock_cost_ns(void)
{
	enum { N = 1001 };
	uint64_t d[N];
	for (int k = 0; k < N; k++) {
		uint64_t a = cb_now_ns();
		uint64_t b = cb_now_ns();
		d[k] = b - a;
	}
	qsort(d, N, sizeof d[0], cmp_u64);
	return (double)d[N / 2];
}

void cb_wl_header(const cb_workload *wl, const cb_options *o,
		  const char *threads, const char *aff, bool yield,
		  unsigned nthreads, unsigned ncpus)
{
	char w[32], r[32];
	/* JMH's wording: ss ignores the iteration time. */
	if (o->mode == CB_MODE_SS) {
		snprintf(w, sizeof w, "single-shot");
		snprintf(r, sizeof r, "single-shot");
	} else {
		cb_fmt_time(o->w_ns, w, sizeof w);
		cb_fmt_time(o->r_ns, r, sizeof r);
	}
	printf("\n# Benchmark: %s.%s  mode %s (%s)\n", wl->name, wl->group,
	       cb_mode_name(o->mode), wl->unit);
	printf("# Threads: %s; affinity: %s\n", threads, aff);
	if (yield)
		printf(
		    "# WARNING: %u threads on %u CPU%s: OVERSUBSCRIBED. Every "
		    "spin calls sched_yield() after %u consecutive failures; "
		    "the scores measure the scheduler as much as the "
		    "code.\n",
		    nthreads, ncpus, ncpus == 1 ? "" : "s", CB_YIELD_EVERY);
	printf("# Warmup: %d iteration%s, %s each; Measurement: %d "
	       "iteration%s, %s each; trials interleaved iteration by "
	       "iteration\n",
	       o->wi, o->wi == 1 ? "" : "s", w, o->i, o->i == 1 ? "" : "s", r);
}

int cb_wl_parse_size(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (end == s || errno != 0 || s[0] == '-')
		return -1;
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift != 0)
		end++;
	if (*end != '\0' || x == 0 || x > (~0ull >> shift))
		return -1;
	*v = (uint64_t)x << shift;
	return 0;
}

double cb_wl_round_trip_after(cb_wl_trial *t, int measured, size_t m,
			      char *line, size_t n)
{
	cb_hist *h = t->g.w[0].hist;
	uint64_t p50 = 0;
	if (h != NULL) {
		p50 = cb_hist_percentile(h, 50);
		if (measured)
			cb_hist_merge(t->hist, h);
		cb_hist_reset(h);
	}
	double ns = cb_wl_ns_per_op(&t->g.w[0]);
	if (measured)
		t->sec[0][m] = ns / 2;
	if (h != NULL)
		snprintf(line, n, "%8.1f ns/round trip  p50 %" PRIu64, ns, p50);
	else
		snprintf(line, n, "%8.1f ns/round trip", ns);
	return ns;
}

int cb_wl_sample_hists(cb_wl_trial *t, cb_hist **iter)
{
	*iter = cb_hist_new();
	t->hist = cb_hist_new();
	return *iter == NULL || t->hist == NULL ? -1 : 0;
}

int cb_wl_order_layout(const cb_workload *wl, const cb_options *o,
		       size_t *order, bool *padded)
{
	static const char *const names[] = {"relaxed", "release", "seq_cst"};
	const size_t norders = sizeof names / sizeof names[0];
	const char *ord = cb_param(o, "order");
	const char *layout = cb_param(o, "layout");
	size_t oi = norders;
	for (size_t k = 0; ord != NULL && k < norders; k++)
		if (strcmp(ord, names[k]) == 0)
			oi = k;
	*order = oi;
	*padded = layout != NULL && strcmp(layout, "padded") == 0;
	if (oi == norders || layout == NULL ||
	    (!*padded && strcmp(layout, "unpadded") != 0)) {
		fprintf(stderr,
			"conq-bench: %s: order is relaxed | release | "
			"seq_cst, layout padded | unpadded\n",
			wl->name);
		return 2;
	}
	return 0;
}

uint64_t cb_wl_capacity(const cb_options *o)
{
	uint64_t cap;
	if (cb_param_u64(o, "qCapacity", &cap) != 0)
		cap = o->ncapacity ? o->capacity[0] : 131072;
	return cap;
}

int cb_wl_select_queues(const cb_workload *wl, const cb_options *o, unsigned nc,
			const cb_adapter **ads, int max)
{
	const cb_adapter *skipped[CB_MAX_LIST * 4];
	size_t nskipped;
	if (max > CB_MAX_LIST * 4)
		max = CB_MAX_LIST * 4;
	int na =
	    cb_select_adapters(o, 1, nc, ads, (size_t)max, skipped, &nskipped);
	if (na < 0)
		return -1;
	na = cb_wl_drop_batched(wl, ads, na);
	if (na == 0) {
		fprintf(stderr,
			"conq-bench: %s: no selected queue allows 1 "
			"producer and %u consumer%s\n",
			wl->name, nc, nc == 1 ? "" : "s");
		return -1;
	}
	return na;
}

uint64_t cb_wl_leftover(const cb_adapter *a, void *q, size_t usable)
{
	uint64_t left = 0;
	if (a->flush != NULL)
		a->flush(q);
	while (left <= usable && a->poll(q) != NULL)
		left++;
	return left;
}

void cb_wl_thread_rates(const cb_wl_trial *t, uint64_t per, double *ns,
			double *rate)
{
	double sum_ns = 0, sum_rate = 0;
	for (unsigned k = 0; k < t->nthreads; k++) {
		const cb_worker *w = &t->g.w[k];
		double el = (double)(w->t_stop - w->t_start);
		double units = (double)w->made * (double)per;
		sum_ns += units > 0 ? el / units : el;
		sum_rate += units / (el / 1e3 + 1e-9);
	}
	*ns = t->nthreads ? sum_ns / (double)t->nthreads : 0;
	*rate = sum_rate;
}

int cb_wl_thread_counts(const cb_workload *wl, const cb_options *o,
			const cb_env *env, unsigned *out, size_t max)
{
	const char *v[CB_MAX_LIST];
	size_t nv = cb_param_list(wl, o, "threads", v, CB_MAX_LIST);
	size_t n = 0;
	for (size_t k = 0; k < nv; k++) {
		unsigned long t;
		char *end = NULL;
		if (strcmp(v[k], "max") == 0) {
			cpu_set_t set;
			int cpus = env != NULL ? env->allowed
				   : sched_getaffinity(0, sizeof set, &set) == 0
				       ? CPU_COUNT(&set)
				       : 1;
			t = cpus > 0 ? (unsigned long)cpus : 1;
			if (t > CB_MAX_THREADS)
				t = CB_MAX_THREADS;
		} else {
			errno = 0;
			t = strtoul(v[k], &end, 10);
			if (end == v[k] || *end != '\0' || errno != 0 ||
			    v[k][0] == '-' || t < 1 || t > CB_MAX_THREADS) {
				if (env != NULL)
					fprintf(stderr,
						"conq-bench: %s: threads is a "
						"number in 1..%d or max, not "
						"'%s'\n",
						wl->name, CB_MAX_THREADS, v[k]);
				return -1;
			}
		}
		int seen = 0;
		for (size_t j = 0; j < n; j++)
			seen |= out[j] == (unsigned)t;
		if (!seen && n < max)
			out[n++] = (unsigned)t;
	}
	if (n == 0) {
		if (env != NULL)
			fprintf(stderr, "conq-bench: %s: no thread count\n",
				wl->name);
		return -1;
	}
	return (int)n;
}

int cb_wl_tracepoint_id(const char *event, uint64_t *id)
{
	static const char *const roots[] = {"/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing"};
	for (size_t k = 0; k < sizeof roots / sizeof roots[0]; k++) {
		char path[200];
		snprintf(path, sizeof path, "%s/events/%s/id", roots[k], event);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			continue;
		unsigned long long v;
		const int ok = fscanf(f, "%llu", &v) == 1;
		fclose(f);
		if (ok) {
			*id = (uint64_t)v;
			return 0;
		}
	}
	return -1;
}

long cb_wl_tracepoint_open(uint64_t id, int tid, int inherit)
{
	struct perf_event_attr at;
	memset(&at, 0, sizeof at);
	at.size = sizeof at;
	at.type = PERF_TYPE_TRACEPOINT;
	at.config = id;
	at.inherit = inherit ? 1u : 0u;
	return syscall(SYS_perf_event_open, &at, (pid_t)tid, -1, -1,
		       inherit ? PERF_FLAG_FD_CLOEXEC : 0UL);
}

uint64_t cb_wl_tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * CB_NS_PER_S +
	       (uint64_t)tv->tv_usec * CB_NS_PER_US;
}
