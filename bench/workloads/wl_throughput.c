/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QueueThroughputBackoffNone, after JCTools' benchmark of that name, with
 * JMH's thread groups (-tg P,C): P producers spin on offer, C consumers spin
 * on poll, each thread counting its own successes and failures
 * (offersMade/offersFailed, pollsMade/pollsFailed) over its own measured
 * window. As JMH aggregates a thread group, a metric is the sum over the
 * threads of each thread's count / its own elapsed time, in ops/us. Score =
 * pollsMade (JMH's primary, the sum of all calls, would flatter a queue that
 * fails fast).
 *
 * Modes: thrpt (the above); avgt (ns/op: the mean over a role's threads of
 * each one's elapsed time / its successful ops; failed ops stay rates);
 * sample (the sampled loops of loops.h time every 2^CB_SAMPLE_LOG2-th call
 * into per-thread histograms, merged per iteration: Score = the mean
 * sampled successful poll, with its percentiles per iteration and the whole
 * run's histogram for the latency block).
 *
 * Only the queues whose contract allows P producers and C consumers run
 * (SPSC: 1,1; MPSC: P,1; SPMC: 1,C; MPMC: any). Threads are pinned round-
 * robin over the allowed CPUs (producers first); with more threads than
 * CPUs the run is flagged oversubscribed, and every failed offer or poll
 * calls sched_yield() after CB_YIELD_EVERY (256) consecutive failures, for
 * every queue alike (loops.h).
 *
 * All the selected queues run in one process, interleaved iteration by
 * iteration (round k runs iteration k of every queue, in an order rotated
 * each round), so that every queue sees the same machine states and the
 * per-iteration ratios between queues are meaningful on a noisy machine.
 *
 * Each trial (queue x capacity x shape) gets its own queue and its own
 * pinned workers, created once and parked between iterations. Before its
 * first iteration the queue is primed single-threaded: filled until offer
 * fails (which must be exactly at its capacity: a check) and drained, which
 * also touches all its memory. After every iteration it is drained single-
 * threaded, so each iteration starts empty, and the counts are checked.
 * Elements are {producer id, sequence} (cb.h):
 *
 *  - drained == (all offers made) - (all polls made), catch-up and warm-down
 *    included (exact conservation of elements), and <= capacity;
 *  - sum(offersMade) - sum(pollsMade) <= capacity + the consumers' uncounted
 *    polls (the measured-window form of the same bound);
 *  - what is drained of each producer's elements is in sequence and ends
 *    with the last element it offered (FIFO: what is left is a suffix);
 *  - with --check, every polled element too: in exact sequence per producer
 *    with one consumer, in increasing order per producer and consumer with
 *    several; and each producer's elements taken exactly once over all
 *    consumers and the drains (count and sum of sequences); and each side
 *    (all producers, all consumers) must make progress.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "loops.h"
#include "stats.h"
#include "vloops.h"
#include "wl_common.h"
#include "workload.h"

#define TPT_MAX_QUEUES 64
#define TPT_BENCH "QueueThroughputBackoffNone.tpt"
#define SLOW_BENCH "QueueThroughputSlowSide.tpt"
#define VALUE_BENCH "QueueValueThroughput.tpt"
/* An iteration is "disturbed" when a worker ran less than this share of it
 * (oversubscribed: when all together ran less than this share of the CPUs
 * they had). */
#define CB_MIN_CPU_SHARE 0.95

/* -bm sample: the per-iteration latency series (ns/op): the mean sampled
 * poll (the Score) and offer, and the poll percentiles, as JMH's
 * SampleTime reports tpt:poll.p0.50... */
#define TPT_NLAT 7
static const char *const tpt_lat_label[TPT_NLAT] = {
	"poll", "offer", "poll.p0.50", "poll.p0.90", "poll.p0.99",
	"poll.p0.999", "poll.p1.00"};
static const double tpt_lat_q[TPT_NLAT] = {-1, -1, 50, 90, 99, 99.9, 100};

typedef struct tpt_trial {
	const cb_adapter *a;
	void *q;
	size_t usable;
	size_t cap; /* requested */
	unsigned np, nc;
	/* QueueValueThroughput: the element size's functions (else NULL),
	 * the size, and the bits of sequence an element's first word holds
	 * (58; 26 in a 4-byte value) with the mask of that word. */
	const cb_vsize *vs;
	size_t esize;
	unsigned sbits;
	uint64_t wmask;
	uint64_t torn; /* elements with a word unlike the first, so far */
	cb_group g;
	int running;
	cb_chk *chk[CB_MAX_THREADS]; /* per consumer, --check only */
	/* Per producer, over all drains: elements and sum of sequences. */
	uint64_t dcnt[CB_MAX_THREADS], dsum[CB_MAX_THREADS];
	double *polls_made, *offers_made, *offers_failed, *polls_failed;
	unsigned char *disturbed;
	unsigned overruns, violations, ndisturbed, starved;
	uint64_t reorders; /* out of order, for a weak_order adapter */
	uint64_t max_drained, max_window; /* the largest backlogs seen */
	/* -bm sample: each worker's histogram (reset every iteration), the
	 * measured iterations' poll samples merged, and per iteration the
	 * mean sampled poll and offer times and the poll percentiles. */
	cb_hist *whist[CB_MAX_THREADS];
	cb_hist *poll_hist;
	double *lat[TPT_NLAT];
	uint64_t stray;    /* consumers' strays seen so far */
	int pinned;
} tpt_trial;

static void violation(tpt_trial *t, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void violation(tpt_trial *t, const char *what, const char *fmt, ...)
{
	char who[200];
	va_list ap;
	if (t->vs != NULL)
		snprintf(who, sizeof who, "%s -tg %u,%u qCapacity=%zu elemSize=%zu",
			 t->a->name, t->np, t->nc, t->cap, t->esize);
	else
		snprintf(who, sizeof who, "%s -tg %u,%u qCapacity=%zu",
			 t->a->name, t->np, t->nc, t->cap);
	va_start(ap, fmt);
	cb_wl_vviolation(&t->violations, who, what, fmt, ap);
	va_end(ap);
}

/* Sum of 1..n mod 2^64. */
static uint64_t tri(uint64_t n)
{
	return n % 2 == 0 ? (n / 2) * (n + 1) : n * ((n + 1) / 2);
}

/* Single-threaded offer and poll of an element by its first word w (a
 * pointer queue: w is the pointer; a value adapter: every word of the
 * element is w, and poll reads them all, counting a torn one in *torn). */
static bool trial_offer(tpt_trial *t, uint64_t w)
{
	if (t->vs != NULL)
		return t->vs->offer(t->q, w);
	return t->a->offer(t->q, (void *)(uintptr_t)w);
}

static bool trial_poll(tpt_trial *t, uint64_t *w, uint64_t *torn)
{
	if (t->vs != NULL)
		return t->vs->poll(t->q, w, torn);
	void *e = t->a->poll(t->q);
	*w = (uint64_t)(uintptr_t)e;
	return e != NULL;
}

/* Fill until offer fails, which must happen at the capacity, then drain
 * (in order) until empty. Producer 0's sequence 1..n; the producers start
 * from 1 afterwards anyway (the queue is empty again). */
static void prime(tpt_trial *t)
{
	const cb_adapter *a = t->a;
	uint64_t n = 0;
	if (t->usable == SIZE_MAX) {
		/* Unbounded (usable SIZE_MAX): qCapacity elements, all taken. */
		while (n < t->cap && trial_offer(t, cb_elem_bits(0, n + 1)))
			n++;
		if (n != t->cap)
			violation(t, "prime",
				  "an unbounded queue refused offer %" PRIu64,
				  n + 1);
	} else {
		while (n <= t->usable && trial_offer(t, cb_elem_bits(0, n + 1)))
			n++;
		if (n != t->usable)
			violation(t, "prime",
				  "offer succeeded %" PRIu64
				  " times on an empty queue of capacity %zu",
				  n, t->usable);
	}
	if (a->flush != NULL)
		a->flush(t->q);
	uint64_t got = 0, errors = 0, torn = 0, e;
	while (got <= t->usable && trial_poll(t, &e, &torn)) {
		errors += e != (cb_elem_bits(0, got + 1) & t->wmask);
		got++;
	}
	if (a->flush != NULL)
		a->flush(t->q);
	if (got != n || errors != 0 || torn != 0)
		violation(t, "prime",
			  "drained %" PRIu64 " of %" PRIu64 " (%" PRIu64
			  " out of order, %" PRIu64 " torn)",
			  got, n, errors, torn);
}

/* Single-threaded, after an iteration: take everything out. Each producer's
 * drained elements must be consecutive and end with the last it offered. */
static uint64_t drain(tpt_trial *t, uint64_t *errors, uint64_t *stray)
{
	const cb_adapter *a = t->a;
	uint64_t last[CB_MAX_THREADS], dn[CB_MAX_THREADS];
	memset(last, 0, sizeof last);
	memset(dn, 0, sizeof dn);
	if (a->flush != NULL)
		a->flush(t->q);
	uint64_t n = 0, e;
	while (n <= t->usable && trial_poll(t, &e, &t->torn)) {
		n++;
		unsigned pid = (unsigned)(e & CB_PID_MASK);
		if (pid >= t->np) {
			(*stray)++;
			continue;
		}
		/* A 4-byte value holds the sequence mod 2^26: the one nearest
		 * the producer's last (what is left is at most a capacity
		 * behind it). */
		uint64_t s = cb_vseq_near(e >> CB_PID_BITS, t->g.w[pid].seq - 1,
					  t->sbits);
		*errors += dn[pid] > 0 && s != last[pid] + 1;
		last[pid] = s;
		dn[pid]++;
		t->dcnt[pid]++;
		t->dsum[pid] += s;
	}
	if (a->flush != NULL)
		a->flush(t->q);
	for (unsigned p = 0; p < t->np; p++) {
		if (dn[p] == 0)
			continue;
		*errors += last[p] != t->g.w[p].seq - 1;
		/* --check: the consumers' next elements of p come after. */
		for (unsigned c = 0; c < t->nc; c++)
			if (t->chk[c] != NULL)
				t->chk[c]->last[p] = last[p];
	}
	return n;
}

static void check_iteration(tpt_trial *t, const cb_options *o, bool oversub,
			    uint64_t drained, uint64_t drain_errors,
			    uint64_t drain_stray)
{
	const cb_worker *w = t->g.w;
	uint64_t pmade = 0, offered = 0, cmade = 0, cextra = 0, polled = 0;
	uint64_t seq_errors = 0;
	unsigned idle = 0;
	for (unsigned k = 0; k < t->np; k++) {
		pmade += w[k].made;
		offered += w[k].made + w[k].extra;
		idle += w[k].made == 0;
	}
	uint64_t torn = t->torn;
	for (unsigned k = t->np; k < t->np + t->nc; k++) {
		cmade += w[k].made;
		cextra += w[k].extra;
		polled += w[k].made + w[k].extra;
		seq_errors += w[k].seq_errors;
		idle += w[k].made == 0;
		torn += t->vs != NULL ? w[k].torn : 0;
	}
	/* QueueValueThroughput: every element read whole, every word as
	 * the producer wrote it. */
	if (torn != 0)
		violation(t, "torn",
			  "%" PRIu64 " element%s of %zu bytes with a word "
			  "unlike the first (polled or drained)",
			  torn, torn == 1 ? "" : "s", t->esize);
	t->torn = 0;
	if (polled > offered || offered - polled != drained)
		violation(t, "conservation",
			  "offered %" PRIu64 " - polled %" PRIu64
			  " != drained %" PRIu64,
			  offered, polled, drained);
	if (drained > t->usable)
		violation(t, "capacity",
			  "drained %" PRIu64 " > capacity %zu", drained,
			  t->usable);
	if (t->usable != SIZE_MAX && pmade > cmade &&
	    pmade - cmade > t->usable + cextra)
		violation(t, "window",
			  "offersMade %" PRIu64 " - pollsMade %" PRIu64
			  " > capacity %zu + uncounted polls %" PRIu64,
			  pmade, cmade, t->usable, cextra);
	/* Elements of no producer: the polled ones are in seq_errors too. */
	uint64_t stray = 0;
	for (unsigned c = 0; o->check && c < t->nc; c++)
		stray += t->chk[c]->stray;
	if (drain_stray != 0 || stray != t->stray)
		violation(t, "stray",
			  "%" PRIu64 " polled and %" PRIu64
			  " drained elements of no producer",
			  stray - t->stray, drain_stray);
	seq_errors -= stray - t->stray;
	t->stray = stray;
	if (t->a->weak_order != NULL)
		t->reorders += seq_errors + drain_errors;
	else if (drain_errors != 0 || seq_errors != 0)
		violation(t, "FIFO",
			  "%" PRIu64 " polled and %" PRIu64
			  " drained elements out of sequence",
			  seq_errors, drain_errors);
	if (!o->check)
		return;
	/* Exactly once: what the consumers and the drains took of each
	 * producer is its whole sequence so far. */
	for (unsigned p = 0; p < t->np; p++) {
		uint64_t cnt = t->dcnt[p], sum = t->dsum[p];
		for (unsigned c = 0; c < t->nc; c++) {
			cnt += t->chk[c]->cnt[p];
			sum += t->chk[c]->sum[p];
		}
		uint64_t n = w[p].seq - 1;
		if (cnt != n || sum != tri(n))
			violation(t, "exactly-once",
				  "producer %u offered %" PRIu64
				  " elements, %" PRIu64
				  " taken (sums of sequences %s)",
				  p, n, cnt, sum == tri(n) ? "equal" : "differ");
	}
	if (pmade == 0 || cmade == 0)
		violation(t, "progress",
			  "offersMade %" PRIu64 ", pollsMade %" PRIu64, pmade,
			  cmade);
	/* A thread that made nothing in its window while having its own CPU
	 * is worth a note (not a violation: an unfair queue may do that). */
	if (idle && !oversub)
		t->starved++;
}

static void trial_stop(tpt_trial *t)
{
	if (t->running)
		cb_group_stop(&t->g);
	t->running = 0;
	if (t->q != NULL) {
		if (t->vs != NULL)
			t->vs->destroy(t->q);
		else
			t->a->destroy(t->q);
	}
	t->q = NULL;
	for (unsigned c = 0; c < CB_MAX_THREADS; c++) {
		cb_free_aligned(t->chk[c]);
		t->chk[c] = NULL;
	}
	free(t->polls_made);
	free(t->offers_made);
	free(t->offers_failed);
	free(t->polls_failed);
	free(t->disturbed);
	for (unsigned k = 0; k < CB_MAX_THREADS; k++)
		cb_hist_free(t->whist[k]);
	cb_hist_free(t->poll_hist);
	for (unsigned k = 0; k < TPT_NLAT; k++)
		free(t->lat[k]);
}

/* -bm sample, after an iteration: the consumers' and the producers'
 * samples merged into *ph and *oh; the workers' histograms reset. */
static void gather_samples(tpt_trial *t, cb_hist *ph, cb_hist *oh)
{
	cb_hist_reset(ph);
	cb_hist_reset(oh);
	for (unsigned k = 0; k < t->np + t->nc; k++) {
		cb_hist_merge(k < t->np ? oh : ph, t->whist[k]);
		cb_hist_reset(t->whist[k]);
	}
}

static void add_series(cb_series *s, const char *label, const char *unit,
		       double *v, size_t n)
{
	s->label = label;
	s->unit = unit;
	s->v = v;
	s->n = n;
}

/* QueueThroughputSlowSide's parameters: the busy work after each
 * successful offer and poll (cb_consume_cpu tokens). Both 0 for the plain
 * benchmark. Returns -1 on a bad value. */
extern const cb_workload cb_wl_slowside;
static int slow_work(const cb_workload *wl, const cb_options *o,
		     uint32_t *ow, uint32_t *pw)
{
	*ow = *pw = 0;
	if (wl != &cb_wl_slowside)
		return 0;
	const char *side = cb_param(o, "slowSide");
	uint64_t work;
	if (side == NULL || cb_param_u64(o, "work", &work) != 0)
		return -1;
	if (work > 1000000) {
		fprintf(stderr, "conq-bench: work at most 1000000 tokens\n");
		return -1;
	}
	if (strcmp(side, "poll") == 0) {
		*pw = (uint32_t)work;
	} else if (strcmp(side, "offer") == 0) {
		*ow = (uint32_t)work;
	} else {
		fprintf(stderr,
			"conq-bench: slowSide is poll or offer, not '%s'\n",
			side);
		return -1;
	}
	return 0;
}

/* The slow side's ceiling: ns for `tokens` of cb_consume_cpu alone, on
 * this thread (the median of 9 timings of about 2 ms each). */
static double work_ns(uint32_t tokens)
{
	double v[9];
	uint64_t reps = 1;
	for (;;) {
		uint64_t t0 = cb_now_ns();
		for (uint64_t r = 0; r < reps; r++)
			cb_consume_cpu(tokens);
		if (cb_now_ns() - t0 > 2000000 || reps > ((uint64_t)1 << 40))
			break;
		reps *= 2;
	}
	for (int k = 0; k < 9; k++) {
		uint64_t t0 = cb_now_ns();
		for (uint64_t r = 0; r < reps; r++)
			cb_consume_cpu(tokens);
		v[k] = (double)(cb_now_ns() - t0) / (double)reps;
	}
	for (int a = 1; a < 9; a++) /* insertion sort: 9 values */
		for (int b = a; b > 0 && v[b] < v[b - 1]; b--) {
			double x = v[b];
			v[b] = v[b - 1];
			v[b - 1] = x;
		}
	return v[4];
}

static int run_trials(const cb_workload *wl, const cb_options *o,
		      const cb_env *env, cb_results *rs,
		      const cb_adapter **ads, size_t na,
		      const cb_adapter **skipped, size_t nskipped, size_t cap,
		      unsigned np, unsigned nc, size_t esize)
{
	const int vsi = esize ? cb_vsize_index(esize) : -1;
	const int avgt = o->mode == CB_MODE_AVGT;
	const int sample = o->mode == CB_MODE_SAMPLE;
	const char *unit = avgt ? "ns/op" : "ops/us";
	cb_hist *ih_poll = NULL, *ih_offer = NULL;
	tpt_trial *t = (tpt_trial *)calloc(na, sizeof *t);
	if (t == NULL) {
		fprintf(stderr, "conq-bench: out of memory\n");
		return 1;
	}
	uint32_t owork, pwork;
	if (slow_work(wl, o, &owork, &pwork) != 0) {
		free(t);
		return 2;
	}
	const unsigned n = np + nc;
	int cpus[CB_MAX_THREADS];
	bool yield;
	unsigned ncpus;
	char aff[200];
	cb_plan_affinity(o, env, n, cpus, &yield, &ncpus, aff, sizeof aff);
	rs->oversubscribed |= yield;
	size_t ni = (size_t)o->i;
	int rc = 0;

	for (size_t j = 0; j < na; j++) {
		tpt_trial *tr = &t[j];
		tr->a = ads[j];
		tr->cap = cap;
		tr->np = np;
		tr->nc = nc;
		tr->esize = esize;
		tr->sbits = 64u - CB_PID_BITS;
		tr->wmask = UINT64_MAX;
		if (vsi >= 0) {
			tr->vs = &ads[j]->vloops->size[vsi];
			tr->sbits = cb_vseq_bits(ads[j]->vloops->how, esize);
			tr->wmask = cb_vword(ads[j]->vloops->how, esize,
					     UINT64_MAX);
			tr->q = tr->vs->create(cap, np, &tr->usable);
		} else {
			tr->q = ads[j]->create(cap, &tr->usable);
		}
		if (tr->q == NULL) {
			fprintf(stderr, "conq-bench: %s: create(%zu) failed\n",
				ads[j]->name, cap);
			rc = 1;
			goto out;
		}
		prime(tr);
		tr->polls_made = (double *)calloc(ni, sizeof(double));
		tr->offers_made = (double *)calloc(ni, sizeof(double));
		tr->offers_failed = (double *)calloc(ni, sizeof(double));
		tr->polls_failed = (double *)calloc(ni, sizeof(double));
		tr->disturbed = (unsigned char *)calloc(ni, 1);
		int oom = !tr->polls_made || !tr->offers_made ||
			  !tr->offers_failed || !tr->polls_failed ||
			  !tr->disturbed;
		for (unsigned c = 0; o->check && c < nc; c++) {
			tr->chk[c] = (cb_chk *)cb_alloc_aligned(sizeof(cb_chk));
			oom |= tr->chk[c] == NULL;
		}
		for (unsigned k = 0; sample && k < n; k++) {
			tr->whist[k] = cb_hist_new();
			oom |= tr->whist[k] == NULL;
		}
		for (unsigned k = 0; sample && k < TPT_NLAT; k++) {
			tr->lat[k] = (double *)calloc(ni, sizeof(double));
			oom |= tr->lat[k] == NULL;
		}
		if (sample && j == 0) {
			ih_poll = cb_hist_new();
			ih_offer = cb_hist_new();
			oom |= ih_poll == NULL || ih_offer == NULL;
		}
		if (sample) {
			tr->poll_hist = cb_hist_new();
			oom |= tr->poll_hist == NULL;
		}
		if (oom) {
			fprintf(stderr, "conq-bench: out of memory\n");
			rc = 1;
			goto out;
		}
		const cb_loops *l = ads[j]->loops;
		cb_role_fn roles[CB_MAX_THREADS];
		for (unsigned k = 0; k < n; k++) {
			if (tr->vs != NULL)
				roles[k] = k < np     ? tr->vs->tpt_offer
					   : o->check ? tr->vs->tpt_poll_checked
						      : tr->vs->tpt_poll;
			else if (sample)
				roles[k] = k < np	? l->tpt_offer_sampled
					   : o->check ? l->tpt_poll_sampled_checked
						      : l->tpt_poll_sampled;
			else
				roles[k] = k < np	? l->tpt_offer
					   : o->check ? l->tpt_poll_checked
						      : l->tpt_poll;
			if (roles[k] == NULL) {
				fprintf(stderr,
					"conq-bench: %s has no %s loop for -bm "
					"%s\n",
					ads[j]->name, k < np ? "offer" : "poll",
					cb_mode_name(o->mode));
				rc = 1;
				goto out;
			}
		}
		int err = cb_group_start(&tr->g, n, roles, cpus, tr->q, yield);
		if (err != 0) {
			fprintf(stderr, "conq-bench: %s: cannot start threads: "
					"%s\n",
				ads[j]->name, strerror(err));
			rc = 1;
			goto out;
		}
		tr->running = 1;
		/* Read by the roles after the next wake-up (mutex). */
		tr->g.ctl->nproducers = np;
		tr->g.ctl->exact = nc == 1;
		tr->g.ctl->offer_work = owork;
		tr->g.ctl->poll_work = pwork;
		for (unsigned k = 0; k < n; k++) {
			cb_worker *w = &tr->g.w[k];
			w->pid = k < np ? k : k - np;
			w->seq = 1;
			w->chk = k < np ? NULL : tr->chk[k - np];
			w->hist = tr->whist[k]; /* NULL unless -bm sample */
		}
		tr->pinned = 1;
		for (unsigned k = 0; k < n; k++)
			if (cpus[k] >= 0 && !tr->g.w[k].pinned)
				tr->pinned = 0;
	}

	/* The trial header, JMH-like. */
	char w[32], r[32];
	if (sample)
		printf("\n# Benchmark: %s.%s  mode sample (ns/op), Score = poll "
		       "(the mean of the sampled times of successful polls: "
		       "every %uth call of each thread timed, clock included)\n",
		       wl->name, wl->group, 1u << CB_SAMPLE_LOG2);
	else if (avgt)
		printf("\n# Benchmark: %s.%s  mode avgt (ns/op), Score = %s "
		       "(mean over the %u consumer%s of each one's time / its "
		       "polls made)\n",
		       wl->name, wl->group, wl->headline, nc,
		       nc == 1 ? "" : "s");
	else
		printf("\n# Benchmark: %s.%s  mode thrpt (ops/us), Score = %s "
		       "(sum over the %u consumer%s of each one's polls / its "
		       "own time)\n",
		       wl->name, wl->group, wl->headline, nc,
		       nc == 1 ? "" : "s");
	printf("# Threads: %u (1 group, -tg %u,%u: %ux \"offer\", %ux \"poll\"), "
	       "synchronized iterations; affinity: %s",
	       n, np, nc, np, nc, aff);
	if (cpus[0] >= 0) {
		int all = 1;
		for (size_t j = 0; j < na; j++)
			all &= t[j].pinned;
		printf(";");
		for (unsigned k = 0; k < n; k++)
			printf(" %s#%u->cpu%d", k < np ? "offer" : "poll",
			       k < np ? k : k - np, cpus[k]);
		printf(" (%s)", all ? "pinned" : "PINNING FAILED");
	}
	printf("\n");
	if (yield)
		printf("# WARNING: %u threads on %u CPU%s: OVERSUBSCRIBED. Every "
		       "failed offer/poll calls sched_yield() after %u "
		       "consecutive failures (every queue alike); the scores "
		       "measure the scheduler as much as the queues.\n",
		       n, ncpus, ncpus == 1 ? "" : "s", CB_YIELD_EVERY);
	if (nskipped > 0) {
		printf("# Not run at -tg %u,%u (contract does not allow it):", np,
		       nc);
		for (size_t j = 0; j < nskipped; j++)
			printf("%s %s (%s)", j ? "," : "", skipped[j]->name,
			       cb_contract_name(skipped[j]->contract));
		printf("\n");
	}
	printf("# Warmup: %d iteration%s, %s each; Measurement: %d "
	       "iteration%s, %s each; queues interleaved iteration by "
	       "iteration%s\n",
	       o->wi, o->wi == 1 ? "" : "s", cb_fmt_time(o->w_ns, w, sizeof w),
	       o->i, o->i == 1 ? "" : "s",
	       cb_fmt_time(o->r_ns, r, sizeof r),
	       o->rotate && na > 1 ? " (order rotated each round)" : "");
	if (esize != 0)
		printf("# Elements: %zu bytes each, every word written by the "
		       "producer and read by the consumer; _value: offer/poll "
		       "(copied in from the producer's buffer, out into the "
		       "consumer's), _claim/_zc: written and read in place, "
		       "_array: the pointer alone (\"pointer only\", whatever "
		       "the size), _array_pool: a pointer to a pooled payload "
		       "of %zu bytes (bench/README.md)\n",
		       esize, esize);
	if (owork || pwork) {
		const uint32_t wk = owork ? owork : pwork;
		const unsigned nslow = owork ? np : nc;
		const double ns = work_ns(wk);
		printf("# Slow side: every %s does %u tokens of busy work after "
		       "each successful %s: %.1f ns alone, so %s can reach at "
		       "most %.3f ops/us (%u thread%s x 1000 / %.1f ns, less "
		       "its own queue calls); how far below it a queue lands "
		       "is what the other side's failed %ss cost it\n",
		       owork ? "producer" : "consumer", wk,
		       owork ? "offer" : "poll", ns,
		       owork ? "offersMade" : "pollsMade",
		       ns > 0 ? nslow * 1000.0 / ns : 0.0, nslow,
		       nslow == 1 ? "" : "s", ns, owork ? "poll" : "offer");
	}
	printf("# Parameters: qCapacity = %zu; qType =", cap);
	for (size_t j = 0; j < na; j++) {
		if (t[j].usable == SIZE_MAX)
			printf("%s %s (%s, unbounded)", j ? "," : "",
			       t[j].a->name, cb_contract_name(t[j].a->contract));
		else
			printf("%s %s (%s, holds %zu)", j ? "," : "",
			       t[j].a->name, cb_contract_name(t[j].a->contract),
			       t[j].usable);
	}
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
					"conq-bench: %s -tg %u,%u: iteration %zu "
					"timed out (a worker is stuck); giving "
					"up\n",
					tr->a->name, np, nc, k + 1);
				fflush(NULL);
				_Exit(3);
			}
			/* JMH's aggregations: thrpt, the sum of each
			 * thread's rate; avgt, the mean of each thread's time
			 * per op (made ops; the failed ones stay rates). */
			double om = 0, of = 0, pm = 0, pf = 0, share = 0;
			double min_share = 1;
			int over = 0;
			uint64_t wmade_p = 0, wmade_c = 0, wextra_c = 0;
			for (unsigned x = 0; x < n; x++) {
				const cb_worker *wk = &tr->g.w[x];
				uint64_t el = wk->t_stop - wk->t_start;
				double us = (double)(el ? el : 1) / 1e3;
				double made = avgt ? (wk->made ? (double)el /
									 (double)wk->made
							       : (double)el)
						   : (double)wk->made / us;
				if (avgt)
					made /= x < np ? (double)np
						       : (double)nc;
				if (x < np) {
					om += made;
					of += (double)wk->failed / us;
					wmade_p += wk->made;
				} else {
					pm += made;
					pf += (double)wk->failed / us;
					wmade_c += wk->made;
					wextra_c += wk->extra;
				}
				share += wk->cpu_share;
				if (wk->cpu_share < min_share)
					min_share = wk->cpu_share;
				over |= (double)el > 1.1 * (double)ns;
			}
			uint64_t derr = 0, dstray = 0;
			uint64_t drained = drain(tr, &derr, &dstray);
			check_iteration(tr, o, yield, drained, derr, dstray);
			if (drained > tr->max_drained)
				tr->max_drained = drained;
			/* offersMade - pollsMade of the windows, less the
			 * polls of elements offered in a producer's window
			 * but taken in a consumer's catch-up or warm-down:
			 * bounded by the capacity (check_iteration). */
			if (wmade_p > wmade_c + wextra_c &&
			    wmade_p - wmade_c - wextra_c > tr->max_window)
				tr->max_window = wmade_p - wmade_c - wextra_c;
			/* Not the context switches alone: our own control
			 * thread's wake-ups preempt a worker for microseconds.
			 * Oversubscribed, the threads share the CPUs by
			 * design: then it is their total that counts. */
			double cpu = yield ? share / (double)ncpus : min_share;
			int dist = cpu < CB_MIN_CPU_SHARE;
			if (measured) {
				size_t m = k - (size_t)o->wi;
				tr->disturbed[m] = (unsigned char)dist;
				tr->ndisturbed += (unsigned)dist;
				tr->polls_made[m] = pm;
				tr->offers_made[m] = om;
				tr->offers_failed[m] = of;
				tr->polls_failed[m] = pf;
				tr->overruns += (unsigned)over;
			}
			if (sample) {
				gather_samples(tr, ih_poll, ih_offer);
				for (unsigned x = 0; measured && x < TPT_NLAT;
				     x++) {
					const cb_hist *h = x == 1 ? ih_offer
								  : ih_poll;
					double v = x < 2 ? cb_hist_mean(h)
							 : (double)cb_hist_percentile(
								   h, tpt_lat_q[x]);
					tr->lat[x][k - (size_t)o->wi] =
						cb_hist_count(h) ? v : NAN;
				}
				if (measured)
					cb_hist_merge(tr->poll_hist, ih_poll);
			}
			char line[256], tg[24];
			snprintf(tg, sizeof tg, "%u,%u", np, nc);
			snprintf(line, sizeof line,
				 "%s %3zu/%zu  -tg %-5s %-26s pollsMade %9.3f  "
				 "offersMade %9.3f %s  cpu %3.0f%%%s",
				 measured ? "measure" : "warmup ",
				 measured ? k - (size_t)o->wi + 1 : k + 1,
				 measured ? ni : (size_t)o->wi, tg, tr->a->name,
				 pm, om, unit, 100 * cpu,
				 dist ? "  [disturbed]" : "");
			cb_progress(o, line);
		}
	}

	for (size_t j = 0; j < na; j++) {
		cb_result *res = cb_results_add(rs);
		if (res == NULL) {
			rc = 1;
			goto out;
		}
		res->benchmark = wl == &cb_wl_slowside ? SLOW_BENCH
				 : esize != 0	       ? VALUE_BENCH
							: TPT_BENCH;
		res->mode = cb_mode_name(o->mode);
		res->adapter = t[j].a;
		res->capacity = cap;
		res->capacity_actual = t[j].usable;
		res->producers = np;
		res->consumers = nc;
		size_t sec = 0;
		if (sample) {
			add_series(&res->primary, tpt_lat_label[0], "ns/op",
				   t[j].lat[0], ni);
			for (unsigned x = 1; x < TPT_NLAT; x++)
				add_series(&res->secondary[sec++],
					   tpt_lat_label[x], "ns/op", t[j].lat[x],
					   ni);
			add_series(&res->secondary[sec++], "pollsMade", unit,
				   t[j].polls_made, ni);
			res->hist = t[j].poll_hist;
			res->hist_unit = "ns";
			t[j].poll_hist = NULL;
			for (unsigned x = 0; x < TPT_NLAT; x++)
				t[j].lat[x] = NULL;
		} else {
			add_series(&res->primary, "pollsMade", unit,
				   t[j].polls_made, ni);
		}
		add_series(&res->secondary[sec++], "offersMade", unit,
			   t[j].offers_made, ni);
		add_series(&res->secondary[sec++], "offersFailed", "ops/us",
			   t[j].offers_failed, ni);
		add_series(&res->secondary[sec++], "pollsFailed", "ops/us",
			   t[j].polls_failed, ni);
		res->nsecondary = sec;
		res->max_drained = t[j].max_drained;
		res->max_window = t[j].max_window;
		res->checked = o->check != 0;
		res->overruns = t[j].overruns;
		res->disturbed = t[j].disturbed;
		res->ndisturbed = t[j].ndisturbed;
		res->starved = t[j].starved;
		res->reorders = t[j].reorders;
		res->violations = t[j].violations;
		res->pinned = t[j].pinned;
		res->oversubscribed = yield;
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
	cb_hist_free(ih_poll);
	cb_hist_free(ih_offer);
	free(t);
	return rc;
}

extern const cb_workload cb_wl_value;

/* QueueValueThroughput's element size, checked: 0 and an error printed if
 * it is not one the loops were instantiated for (vloops.h), or too small
 * for the capacity (a 4-byte element holds 26 bits of sequence: the check
 * tells a sequence from its neighbours up to 2^25 apart). */
static size_t value_esize(const cb_options *o)
{
	uint64_t v;
	if (cb_param_u64(o, "elemSize", &v) != 0)
		return 0;
	if (cb_vsize_index((size_t)v) < 0) {
		fprintf(stderr,
			"conq-bench: elemSize %" PRIu64 ": one of %s bytes\n", v,
			CB_VSIZES_TEXT);
		return 0;
	}
	if (v == 4 && o->capacity[0] > ((size_t)1 << 24)) {
		fprintf(stderr, "conq-bench: elemSize 4 takes qCapacity up to "
				"2^24 (its elements hold 26 bits of "
				"sequence)\n");
		return 0;
	}
	return (size_t)v;
}

static int tpt_run(const cb_workload *wl, const cb_options *o,
		   const cb_env *env, cb_results *rs)
{
	const cb_adapter *ads[TPT_MAX_QUEUES], *skipped[TPT_MAX_QUEUES];
	size_t nskipped;
	size_t ran = 0;
	const bool values = wl == &cb_wl_value;
	const size_t esize = values ? value_esize(o) : 0;
	if (values && esize == 0)
		return 2;
	for (size_t s = 0; s < o->ntg; s++) {
		unsigned np = o->tg_p[s], nc = o->tg_c[s];
		int na = values ? cb_select_value_adapters(
				      o, np, nc, ads, TPT_MAX_QUEUES, skipped,
				      &nskipped)
				: cb_select_adapters(o, np, nc, ads,
						     TPT_MAX_QUEUES, skipped,
						     &nskipped);
		if (na < 0)
			return 2;
		if (na == 0) {
			fprintf(stderr,
				"conq-bench: %s: no selected queue serves -tg "
				"%u,%u (%u producer%s, %u consumer%s)",
				wl->name, np, nc, np, np == 1 ? "" : "s", nc,
				nc == 1 ? "" : "s");
			for (size_t j = 0; j < nskipped; j++)
				fprintf(stderr, "%s %s (%s)",
					j ? "," : "; not allowed by its contract:",
					skipped[j]->name,
					cb_contract_name(skipped[j]->contract));
			fputc('\n', stderr);
			continue;
		}
		ran++;
		for (size_t c = 0; c < o->ncapacity; c++) {
			int rc = run_trials(wl, o, env, rs, ads, (size_t)na,
					    skipped, nskipped, o->capacity[c],
					    np, nc, esize);
			if (rc != 0)
				return rc;
		}
	}
	return ran ? 0 : 2;
}

static const cb_param_def tpt_params[] = {
	{"qCapacity", "131072",
	 "requested capacity (JCTools: 132000; each queue rounds it up as it "
	 "does; the table says what it holds)"},
};

/* The same loops with one side slowed down by busy work after each of its
 * successful calls, so that the other side spins on failures all the time:
 * slowSide=poll, the consumers are slower and the producers spin on a full
 * queue; slowSide=offer, the producers are slower and the consumers spin on
 * an empty one. The slow side's rate, next to what its busy work alone
 * allows (the header's ceiling), shows what the spinning side's failed calls
 * cost it: a queue whose failed calls write, or re-read, a line the slow
 * side changes per element falls well below the ceiling. */
static const cb_param_def slow_params[] = {
	{"qCapacity", "131072",
	 "requested capacity (as QueueThroughputBackoffNone)"},
	{"slowSide", "poll,offer",
	 "the side slowed by busy work: poll (consumers; the producers spin on "
	 "a full queue) or offer (producers; the consumers spin on an empty "
	 "one)"},
	{"work", "200",
	 "busy-work tokens (dependent multiply-adds, JMH's consumeCPU) after "
	 "each successful call of the slow side"},
};

const cb_workload cb_wl_slowside = {
	.name = "QueueThroughputSlowSide",
	.group = "tpt",
	.mode = "thrpt",
	.unit = "ops/us",
	.roles = "offer,poll",
	.headline = "pollsMade",
	.desc = "QueueThroughputBackoffNone with one side slowed by busy work "
		"per element, so that the other spins on failed calls: what "
		"those cost the slow side (-p slowSide=poll|offer -p work=N)",
	.run = tpt_run,
	.modes = CB_MODE_THRPT | CB_MODE_AVGT,
	.groups = true,
	.params = slow_params,
	.nparams = sizeof slow_params / sizeof slow_params[0],
};

const cb_workload cb_wl_throughput = {
	.name = "QueueThroughputBackoffNone",
	.group = "tpt",
	.mode = "thrpt",
	.unit = "ops/us",
	.roles = "offer,poll",
	.headline = "pollsMade",
	.desc = "P producers spin on offer, C consumers spin on poll "
		"(JCTools' QueueThroughputBackoffNone, -tg P,C)",
	.run = tpt_run,
	.modes = CB_MODE_THRPT | CB_MODE_AVGT | CB_MODE_SAMPLE,
	.groups = true,
	.params = tpt_params,
	.nparams = sizeof tpt_params / sizeof tpt_params[0],
};

/* QueueValueThroughput: QueueThroughputBackoffNone's protocol and counts
 * with elements of elemSize bytes (vloops.h): the value rings by copy and
 * by claim/commit, DPDK's rte_ring_*_elem (copy, zero-copy), atomic_queue's
 * AtomicQueueB2 of a struct, and conq's pointer rings as the reference
 * (pointer only, and pointers to pooled payloads). Each element size is a
 * point of its own (JMH's @Param); the queues of a point interleave. */
static const cb_param_def value_params[] = {
	{"elemSize", "4,8,64,256",
	 "element size in bytes: " CB_VSIZES_TEXT " (every word written by "
	 "the producer, read by the consumer)"},
	{"qCapacity", "131072",
	 "requested capacity in elements (as QueueThroughputBackoffNone)"},
};

const cb_workload cb_wl_value = {
	.name = "QueueValueThroughput",
	.group = "tpt",
	.mode = "thrpt",
	.unit = "ops/us",
	.roles = "offer,poll",
	.headline = "pollsMade",
	.desc = "QueueThroughputBackoffNone with elements of elemSize bytes: "
		"value rings (offer/poll, claim/commit), rte_ring_*_elem, "
		"AtomicQueueB2, and conq's pointer rings (pointer only, pooled "
		"payloads)",
	.run = tpt_run,
	.modes = CB_MODE_THRPT | CB_MODE_AVGT,
	.groups = true,
	.params = value_params,
	.nparams = sizeof value_params / sizeof value_params[0],
	.values = true,
	.report = cb_value_report,
};
