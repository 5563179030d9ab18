/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QueueRoundTripLatency, after JCTools' (nitsanw's QueueEvolution) benchmark
 * and its generalisation RingBurstRoundTripWithGroups: chainLength queues in
 * a ring and a thread per stage. Thread 0 ("ping", measured) offers
 * burstSize elements to q[0] and polls them back from q[chainLength - 1];
 * thread k ("link") polls q[k - 1] and offers to q[k]. One op = one round
 * trip. chainLength 2 is the classic ping-pong through two queues. Every
 * queue of the chain has one producer and one consumer: the queues run are
 * those whose contract allows 1,1 (-p qType as elsewhere).
 *
 * Modes: sample (the default) times every round trip (one clock read per
 * round trip, so the samples add up to the elapsed time; the clock's own
 * cost, printed in the header, is inside each sample) into a log-linear
 * histogram (histogram.h), printed as the seeds' block (mean, min, 50%,
 * 90%, 99%, 99.9%, 99.99%, max, count); Score = the mean. avgt runs the
 * same loop without the clock: Score = elapsed / round trips.
 *
 * Round trips are closed-loop (one burst in flight): the figures are
 * service time, not response time under a load (no coordinated-omission
 * correction applies). Checks: each element comes back as the next of its
 * sequence (the chain is FIFO end to end), and after every iteration every
 * queue of the chain is empty.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_common.h"

#define RTT_BENCH "QueueRoundTripLatency.rtt"
#define RTT_MAX_QUEUES 64

typedef struct rtt_trial {
	cb_chain *ctx;
	void *q[CB_MAX_CHAIN];
	size_t usable;
	unsigned len;
	uint64_t burst;
	cb_hist *iter; /* the ping's samples of one iteration */
} rtt_trial;

static double rtt_after(cb_wl_trial *t, int measured, size_t m, char *line,
			size_t n)
{
	rtt_trial *c = (rtt_trial *)t->user;
	const cb_worker *p = &t->g.w[0];
	if (p->seq_errors != 0)
		cb_wl_violation(t, "FIFO",
				"%" PRIu64 " elements came back out of "
				"sequence",
				p->seq_errors);
	for (unsigned k = 0; k < c->len; k++) {
		uint64_t left = cb_wl_leftover(t->a, c->q[k], c->usable);
		if (left != 0)
			cb_wl_violation(t, "empty",
					"%" PRIu64 " elements left in queue "
					"%u of the chain",
					left, k);
	}
	double ns = cb_wl_ns_per_op(p);
	if (c->iter != NULL) {
		if (measured)
			cb_hist_merge(t->hist, c->iter);
		snprintf(line, n, "%9.1f ns/rtt  p50 %6" PRIu64 " p99 %6" PRIu64
				  " max %8" PRIu64,
			 ns, cb_hist_percentile(c->iter, 50),
			 cb_hist_percentile(c->iter, 99), cb_hist_max(c->iter));
		cb_hist_reset(c->iter);
	} else {
		snprintf(line, n, "%9.1f ns/rtt", ns);
	}
	if (measured)
		t->sec[0][m] = ns / (double)c->len; /* a hop: one queue */
	return ns;
}

static const cb_param_def rtt_params[] = {
	{"chainLength", "2", "queues in the ring = threads (ping + links)"},
	{"burstSize", "1", "elements per round trip"},
	{"qCapacity", "131072", "requested capacity of each queue"},
};

static int rtt_run(const cb_workload *wl, const cb_options *o,
		   const cb_env *env, cb_results *rs)
{
	uint64_t len, burst, cap;
	if (cb_param_u64(o, "chainLength", &len) != 0 ||
	    cb_param_u64(o, "burstSize", &burst) != 0)
		return 2;
	cap = cb_wl_capacity(o);
	if (len < 2 || len > CB_MAX_CHAIN || burst == 0 || cap == 0) {
		fprintf(stderr,
			"conq-bench: %s: chainLength in [2, %d], burstSize >= "
			"1, qCapacity >= 1\n",
			wl->name, CB_MAX_CHAIN);
		return 2;
	}
	const bool sample = o->mode == CB_MODE_SAMPLE;
	const cb_adapter *ads[RTT_MAX_QUEUES];
	int na = cb_wl_select_queues(wl, o, 1, ads, RTT_MAX_QUEUES);
	if (na < 0)
		return 2;
	cb_wl_trial *t = (cb_wl_trial *)calloc((size_t)na, sizeof *t);
	rtt_trial *rt = (rtt_trial *)calloc((size_t)na, sizeof *rt);
	int rc = 0;
	char aff[200] = "";
	if (t == NULL || rt == NULL) {
		rc = 1;
		goto out;
	}
	for (int j = 0; j < na; j++) {
		rtt_trial *c = &rt[j];
		t[j].a = ads[j];
		t[j].label = ads[j]->name;
		t[j].user = c;
		t[j].after = rtt_after;
		t[j].sec_label[0] = "perHop";
		t[j].sec_unit[0] = "ns/op";
		c->len = (unsigned)len;
		c->burst = burst;
		c->ctx = (cb_chain *)cb_alloc_aligned(sizeof *c->ctx);
		if (c->ctx == NULL || cb_wl_trial_alloc(&t[j], o, 1) != 0) {
			rc = 1;
			goto out;
		}
		for (unsigned k = 0; k < c->len; k++) {
			size_t u = 0;
			c->q[k] = ads[j]->create((size_t)cap, &u);
			if (c->q[k] == NULL) {
				fprintf(stderr,
					"conq-bench: %s: create(%" PRIu64
					") failed\n",
					ads[j]->name, cap);
				rc = 1;
				goto out;
			}
			c->usable = u;
			c->ctx->q[k] = c->q[k];
		}
		if (burst > c->usable) {
			fprintf(stderr,
				"conq-bench: %s: burstSize %" PRIu64
				" > the %zu elements %s holds\n",
				wl->name, burst, c->usable, ads[j]->name);
			rc = 2;
			goto out;
		}
		c->ctx->len = c->len;
		c->ctx->burst = (uint32_t)burst;
		if (sample) {
			if (cb_wl_sample_hists(&t[j], &c->iter) != 0) {
				rc = 1;
				goto out;
			}
		}
		cb_role_fn roles[CB_MAX_THREADS];
		roles[0] = sample ? ads[j]->loops->rtt_ping_sampled
				  : ads[j]->loops->rtt_ping;
		for (unsigned k = 1; k < c->len; k++)
			roles[k] = ads[j]->loops->rtt_link;
		if (cb_wl_trial_start(&t[j], o, env, c->len, roles, c->ctx, aff,
				      sizeof aff) != 0) {
			rc = 1;
			goto out;
		}
		t[j].g.w[0].pid = 0;
		t[j].g.w[0].seq = 1;
		t[j].g.w[0].hist = c->iter;
	}
	char threads[96];
	snprintf(threads, sizeof threads,
		 "%" PRIu64 " (1x \"ping\" measured, %" PRIu64 "x \"link\")",
		 len, len - 1);
	cb_wl_header(wl, o, threads, aff, t[0].yield, (unsigned)len,
		     t[0].ncpus);
	printf("# Parameters: chainLength = %" PRIu64 ", burstSize = %" PRIu64
	       ", qCapacity = %" PRIu64 "; qType =",
	       len, burst, cap);
	for (int j = 0; j < na; j++)
		printf("%s %s (holds %zu)", j ? "," : "", ads[j]->name,
		       rt[j].usable);
	printf("\n");
	if (sample)
		printf("# Sampling: every round trip, one cb_now_ns() read each "
		       "(its cost, %.0f ns here, is inside every sample); "
		       "service time of a closed loop\n",
		       cb_wl_clock_cost_ns());
	fflush(stdout);
	cb_wl_rounds(wl, o, t, (size_t)na);
	for (int j = 0; j < na; j++) {
		/* sample mode: Score is the mean of the samples, as JMH's. */
		cb_result *r = cb_wl_result(rs, &t[j], o, RTT_BENCH, "rtt",
					    "ns/op");
		if (r == NULL) {
			rc = 1;
			goto out;
		}
		r->capacity = (size_t)cap;
		r->capacity_actual = rt[j].usable;
		r->producers = 1;
		r->consumers = 1;
	}
out:
	for (int j = 0; t != NULL && rt != NULL && j < na; j++) {
		cb_wl_trial_stop(&t[j]);
		for (unsigned k = 0; k < CB_MAX_CHAIN; k++)
			if (rt[j].q[k] != NULL)
				t[j].a->destroy(rt[j].q[k]);
		cb_free_aligned(rt[j].ctx);
		cb_hist_free(rt[j].iter);
	}
	free(t);
	free(rt);
	return rc;
}

static size_t rtt_steps(const cb_workload *wl, const cb_options *o)
{
	(void)wl;
	return cb_wl_queue_steps(o, 1, 1);
}

const cb_workload cb_wl_rtt = {
	.name = "QueueRoundTripLatency",
	.group = "rtt",
	.mode = "sample",
	.unit = "ns/op",
	.roles = "ping,link",
	.headline = "rtt",
	.desc = "round trip through a ring of chainLength queues, a thread per "
		"stage; every round trip timed into a latency histogram",
	.run = rtt_run,
	.modes = CB_MODE_SAMPLE | CB_MODE_AVGT,
	.params = rtt_params,
	.nparams = sizeof rtt_params / sizeof rtt_params[0],
	.steps = rtt_steps,
};
