/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QueueThroughputBackoffNone, after JCTools' benchmark of that name: one
 * producer spins on offer, one consumer spins on poll, each counting its
 * successes and failures (offersMade/offersFailed, pollsMade/pollsFailed),
 * in ops/us over its own measured window. Score = pollsMade (JMH's primary,
 * the sum of all calls, would flatter a queue that fails fast).
 *
 * All the selected queues run in one process, interleaved iteration by
 * iteration (round k runs iteration k of every queue, in an order rotated
 * each round), so that every queue sees the same machine states and the
 * per-iteration ratios between queues are meaningful on a noisy machine.
 *
 * Each trial (queue x capacity) gets its own queue and its own two pinned
 * workers, created once and parked between iterations. Before its first
 * iteration the queue is primed single-threaded: filled until offer fails
 * (which must be exactly at its capacity: a check) and drained, which also
 * touches all its memory. After every iteration it is drained single-
 * threaded, so each iteration starts empty, and the counts are checked:
 *
 *  - drained == (all offers made) - (all polls made), catch-up and warm-down
 *    included (exact conservation of elements), and <= capacity;
 *  - offersMade - pollsMade <= capacity + the consumer's uncounted polls
 *    (the measured-window form of the same bound);
 *  - the drained elements continue the producer's sequence (FIFO, nothing
 *    lost or duplicated); with --check every polled element is checked too,
 *    and both sides must make progress.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loops.h"
#include "stats.h"
#include "workload.h"

#define TPT_THREADS 2
#define TPT_MAX_QUEUES 64
#define TPT_BENCH "QueueThroughputBackoffNone.tpt"
/* An iteration is "disturbed" when a worker ran less than this share of it. */
#define CB_MIN_CPU_SHARE 0.95

static const char *const role_names[TPT_THREADS] = {"offer", "poll"};

typedef struct tpt_trial {
	const cb_adapter *a;
	void *q;
	size_t usable;
	cb_group g;
	int running;
	double *polls_made, *offers_made, *offers_failed, *polls_failed;
	unsigned char *disturbed;
	unsigned overruns, violations, ndisturbed;
	int pinned;
} tpt_trial;

static void violation(tpt_trial *t, size_t cap, const char *what,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void violation(tpt_trial *t, size_t cap, const char *what,
		      const char *fmt, ...)
{
	va_list ap;
	if (++t->violations > 10) {
		if (t->violations == 11)
			fprintf(stderr, "conq-bench: %s qCapacity=%zu: further "
					"violations counted, not shown\n",
				t->a->name, cap);
		return;
	}
	fprintf(stderr, "conq-bench: INVARIANT VIOLATED: %s qCapacity=%zu %s: ",
		t->a->name, cap, what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Single-threaded: take everything out, checking it continues *seq. */
static uint64_t drain(tpt_trial *t, uint64_t *seq, uint64_t *errors)
{
	const cb_adapter *a = t->a;
	if (a->flush != NULL)
		a->flush(t->q);
	uint64_t n = 0;
	void *e;
	while (n <= t->usable && (e = a->poll(t->q)) != NULL) {
		*errors += (uint64_t)((uintptr_t)e != *seq);
		(*seq)++;
		n++;
	}
	if (a->flush != NULL)
		a->flush(t->q);
	return n;
}

/* Fill until offer fails, which must happen at the capacity, then drain. */
static uint64_t prime(tpt_trial *t, size_t cap)
{
	uint64_t seq = 1, n = 0, errors = 0;
	while (n <= t->usable && t->a->offer(t->q, cb_elem(seq))) {
		seq++;
		n++;
	}
	if (n != t->usable)
		violation(t, cap, "prime",
			  "offer succeeded %" PRIu64 " times on an empty queue "
			  "of capacity %zu",
			  n, t->usable);
	uint64_t expect = 1;
	uint64_t got = drain(t, &expect, &errors);
	if (got != n || errors != 0)
		violation(t, cap, "prime",
			  "drained %" PRIu64 " of %" PRIu64 " (%" PRIu64
			  " out of order)",
			  got, n, errors);
	return seq;
}

static void check_iteration(tpt_trial *t, size_t cap, const cb_options *o,
			    const cb_worker *p, const cb_worker *c,
			    uint64_t drained, uint64_t drain_errors)
{
	uint64_t offered = p->made + p->extra, polled = c->made + c->extra;
	if (polled > offered || offered - polled != drained)
		violation(t, cap, "conservation",
			  "offered %" PRIu64 " - polled %" PRIu64
			  " != drained %" PRIu64,
			  offered, polled, drained);
	if (drained > t->usable)
		violation(t, cap, "capacity",
			  "drained %" PRIu64 " > capacity %zu", drained,
			  t->usable);
	if (p->made > c->made && p->made - c->made > t->usable + c->extra)
		violation(t, cap, "window",
			  "offersMade %" PRIu64 " - pollsMade %" PRIu64
			  " > capacity %zu + uncounted polls %" PRIu64,
			  p->made, c->made, t->usable, c->extra);
	if (drain_errors != 0 || c->seq_errors != 0)
		violation(t, cap, "FIFO",
			  "%" PRIu64 " polled and %" PRIu64
			  " drained elements out of sequence",
			  c->seq_errors, drain_errors);
	if (o->check && (p->made == 0 || c->made == 0))
		violation(t, cap, "progress",
			  "offersMade %" PRIu64 ", pollsMade %" PRIu64, p->made,
			  c->made);
}

static const char *fmt_clock(double s, char *buf, size_t n)
{
	unsigned t = s > 359999 ? 359999u : (unsigned)(s + 0.5);
	snprintf(buf, n, "%02u:%02u", t / 60, t % 60);
	return buf;
}

static void trial_stop(tpt_trial *t)
{
	if (t->running)
		cb_group_stop(&t->g);
	t->running = 0;
	if (t->q != NULL)
		t->a->destroy(t->q);
	t->q = NULL;
	free(t->polls_made);
	free(t->offers_made);
	free(t->offers_failed);
	free(t->polls_failed);
	free(t->disturbed);
}

static void add_series(cb_series *s, const char *label, double *v, size_t n)
{
	s->label = label;
	s->unit = "ops/us";
	s->v = v;
	s->n = n;
}

static int run_capacity(const cb_workload *wl, const cb_options *o,
			const cb_env *env, cb_results *rs,
			const cb_adapter **ads, size_t na, size_t cap,
			size_t *done_iters, size_t total_iters, uint64_t t_begin)
{
	tpt_trial t[TPT_MAX_QUEUES];
	memset(t, 0, sizeof t);
	int cpus[TPT_THREADS];
	bool yield;
	char aff[160];
	cb_plan_affinity(o, env, TPT_THREADS, cpus, &yield, aff, sizeof aff);
	rs->oversubscribed |= yield;
	size_t ni = (size_t)o->i;
	int rc = 0;

	for (size_t j = 0; j < na; j++) {
		t[j].a = ads[j];
		t[j].q = ads[j]->create(cap, &t[j].usable);
		if (t[j].q == NULL) {
			fprintf(stderr, "conq-bench: %s: create(%zu) failed\n",
				ads[j]->name, cap);
			rc = 1;
			goto out;
		}
		uint64_t seq = prime(&t[j], cap);
		t[j].polls_made = (double *)calloc(ni, sizeof(double));
		t[j].offers_made = (double *)calloc(ni, sizeof(double));
		t[j].offers_failed = (double *)calloc(ni, sizeof(double));
		t[j].polls_failed = (double *)calloc(ni, sizeof(double));
		t[j].disturbed = (unsigned char *)calloc(ni, 1);
		if (!t[j].polls_made || !t[j].offers_made ||
		    !t[j].offers_failed || !t[j].polls_failed ||
		    !t[j].disturbed) {
			fprintf(stderr, "conq-bench: out of memory\n");
			rc = 1;
			goto out;
		}
		const cb_loops *l = ads[j]->loops;
		cb_role_fn roles[TPT_THREADS] = {
			l->tpt_offer, o->check ? l->tpt_poll_checked : l->tpt_poll};
		int err = cb_group_start(&t[j].g, TPT_THREADS, roles, cpus,
					 t[j].q, yield);
		if (err != 0) {
			fprintf(stderr, "conq-bench: %s: cannot start threads: "
					"%s\n",
				ads[j]->name, strerror(err));
			rc = 1;
			goto out;
		}
		t[j].running = 1;
		/* Read by the roles after the next wake-up (mutex). */
		t[j].g.w[0].seq = seq;
		t[j].g.w[1].seq = seq;
		t[j].pinned = 1;
		for (unsigned k = 0; k < TPT_THREADS; k++)
			if (cpus[k] >= 0 && !t[j].g.w[k].pinned)
				t[j].pinned = 0;
	}

	/* The trial header, JMH-like. */
	char w[32], r[32];
	printf("# Benchmark: %s.%s  mode %s (%s), Score = %s\n", wl->name,
	       wl->group, wl->mode, wl->unit, wl->headline);
	printf("# Threads: %d (1 group; 1x \"%s\", 1x \"%s\"), synchronized "
	       "iterations; affinity: %s",
	       TPT_THREADS, role_names[0], role_names[1], aff);
	if (cpus[0] >= 0) {
		int all = 1;
		for (size_t j = 0; j < na; j++)
			all &= t[j].pinned;
		printf(", %s->cpu%d %s->cpu%d (%s)", role_names[0], cpus[0],
		       role_names[1], cpus[1],
		       all ? "pinned" : "PINNING FAILED");
	}
	printf("\n# Warmup: %d iteration%s, %s each; Measurement: %d "
	       "iteration%s, %s each; queues interleaved iteration by "
	       "iteration%s\n",
	       o->wi, o->wi == 1 ? "" : "s", cb_fmt_time(o->w_ns, w, sizeof w),
	       o->i, o->i == 1 ? "" : "s",
	       cb_fmt_time(o->r_ns, r, sizeof r),
	       o->rotate && na > 1 ? " (order rotated each round)" : "");
	printf("# Parameters: qCapacity = %zu; qType =", cap);
	for (size_t j = 0; j < na; j++)
		printf("%s %s (holds %zu)", j ? "," : "", t[j].a->name,
		       t[j].usable);
	printf("\n");
	fflush(stdout);

	size_t rounds = (size_t)o->wi + ni;
	for (size_t k = 0; k < rounds; k++) {
		int measured = k >= (size_t)o->wi;
		uint64_t ns = measured ? o->r_ns : o->w_ns;
		for (size_t jj = 0; jj < na; jj++) {
			size_t j = o->rotate ? (jj + k) % na : jj;
			tpt_trial *tr = &t[j];
			if (cb_group_iterate(&tr->g, ns, o->timeout_ns) != 0) {
				fprintf(stderr,
					"conq-bench: %s: iteration %zu timed "
					"out (a worker is stuck); giving up\n",
					tr->a->name, k + 1);
				fflush(NULL);
				_Exit(3);
			}
			cb_worker *p = &tr->g.w[0], *c = &tr->g.w[1];
			uint64_t np = p->t_stop - p->t_start;
			uint64_t nc = c->t_stop - c->t_start;
			double up = (double)(np ? np : 1) / 1e3;
			double uc = (double)(nc ? nc : 1) / 1e3;
			double om = (double)p->made / up;
			double of = (double)p->failed / up;
			double pm = (double)c->made / uc;
			double pf = (double)c->failed / uc;
			uint64_t derr = 0;
			uint64_t drained = drain(tr, &c->seq, &derr);
			check_iteration(tr, cap, o, p, c, drained, derr);
			/* Not the context switches alone: our own control
			 * thread's wake-ups preempt a worker for microseconds. */
			int dist = p->cpu_share < CB_MIN_CPU_SHARE ||
				   c->cpu_share < CB_MIN_CPU_SHARE;
			if (measured) {
				tr->disturbed[k - (size_t)o->wi] =
					(unsigned char)dist;
				tr->ndisturbed += (unsigned)dist;
				size_t m = k - (size_t)o->wi;
				tr->polls_made[m] = pm;
				tr->offers_made[m] = om;
				tr->offers_failed[m] = of;
				tr->polls_failed[m] = pf;
				if ((double)np > 1.1 * (double)ns ||
				    (double)nc > 1.1 * (double)ns)
					tr->overruns++;
			}
			(*done_iters)++;
			double el = (double)(cb_now_ns() - t_begin) / 1e9;
			double eta = el / (double)*done_iters *
				     (double)(total_iters - *done_iters);
			char b1[32], b2[32];
			fprintf(stderr,
				"# [%4zu/%zu] %s %3zu/%zu  %-16s pollsMade "
				"%9.3f  offersMade %9.3f ops/us  cpu %3.0f%%  (%s "
				"elapsed, ETA %s)%s\n",
				*done_iters, total_iters,
				measured ? "measure" : "warmup ",
				measured ? k - (size_t)o->wi + 1 : k + 1,
				measured ? ni : (size_t)o->wi, tr->a->name, pm,
				om,
				100 * (p->cpu_share < c->cpu_share ? p->cpu_share
								   : c->cpu_share),
				fmt_clock(el, b1, sizeof b1),
				fmt_clock(eta, b2, sizeof b2),
				dist ? "  [disturbed]" : "");
		}
	}

	for (size_t j = 0; j < na; j++) {
		cb_result *res = cb_results_add(rs);
		if (res == NULL) {
			rc = 1;
			goto out;
		}
		res->benchmark = TPT_BENCH;
		res->mode = wl->mode;
		res->adapter = t[j].a;
		res->capacity = cap;
		res->capacity_actual = t[j].usable;
		add_series(&res->primary, "pollsMade", t[j].polls_made,
			   ni);
		add_series(&res->secondary[0], "offersMade",
			   t[j].offers_made, ni);
		add_series(&res->secondary[1], "offersFailed",
			   t[j].offers_failed, ni);
		add_series(&res->secondary[2], "pollsFailed",
			   t[j].polls_failed, ni);
		res->nsecondary = 3;
		res->overruns = t[j].overruns;
		res->disturbed = t[j].disturbed;
		res->ndisturbed = t[j].ndisturbed;
		res->violations = t[j].violations;
		res->pinned = t[j].pinned;
		rs->violations += t[j].violations;
		/* Ownership moved to the result. */
		t[j].polls_made = t[j].offers_made = NULL;
		t[j].offers_failed = t[j].polls_failed = NULL;
		t[j].disturbed = NULL;
	}
out:
	for (size_t j = 0; j < na; j++) {
		if (rc != 0)
			rs->violations += t[j].violations;
		if (t[j].a != NULL)
			trial_stop(&t[j]);
	}
	return rc;
}

static int tpt_run(const cb_workload *wl, const cb_options *o,
		   const cb_env *env, cb_results *rs)
{
	const cb_adapter *ads[TPT_MAX_QUEUES];
	int na = cb_select_adapters(o, wl->contracts, ads, TPT_MAX_QUEUES);
	if (na < 0)
		return 2;
	if (na == 0) {
		fprintf(stderr, "conq-bench: %s: no selected queue supports "
				"SPSC\n",
			wl->name);
		return 2;
	}
	size_t total = o->ncapacity * (size_t)na * ((size_t)o->wi + (size_t)o->i);
	size_t done = 0;
	uint64_t t0 = cb_now_ns();
	for (size_t c = 0; c < o->ncapacity; c++) {
		int rc = run_capacity(wl, o, env, rs, ads, (size_t)na,
				      o->capacity[c], &done, total, t0);
		if (rc != 0)
			return rc;
	}
	return 0;
}

const cb_workload cb_wl_throughput = {
	.name = "QueueThroughputBackoffNone",
	.group = "tpt",
	.mode = "thrpt",
	.unit = "ops/us",
	.roles = "offer,poll",
	.headline = "pollsMade",
	.desc = "1 producer spins on offer, 1 consumer spins on poll "
		"(JCTools' QueueThroughputBackoffNone, -tg 1,1)",
	.contracts = CB_SPSC | CB_MPSC | CB_SPMC | CB_MPMC,
	.run = tpt_run,
};
