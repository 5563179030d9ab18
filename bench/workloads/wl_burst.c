/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QueueBurstCost, after JCTools' benchmark of that name (jmh/latency): one
 * producer thread sends a burst of burstSize elements, spinning on a full
 * queue; consumerCount consumer threads spin on poll and, after each
 * element, publish how many they took (each on its own counter, a release
 * store: JCTools' lazySet); the producer spins until the counts add up to
 * everything it sent, i.e. until the consumer of the last element signalled
 * it. One op = one whole burst, sent and seen consumed: avgt, ns per burst
 * (the cost includes the return signal, which is the point: not the inverse
 * of a throughput). The loops are loops.h's burst_send / burst_drain, the
 * same for every queue.
 *
 * -bm ss (JMH's SingleShot): each iteration is exactly one burst from a
 * cold start (the workers parked since the last iteration; the producer
 * sends nothing until the consumers are polling), and its score is that
 * burst's time in ns; the producer ends the iteration itself once the last
 * element is signalled (burst_send_shot, cb_ctl.self_stop), so -r and -w
 * do not apply, and -wi / -i count the shots.
 *
 * Queues: those whose contract allows 1 producer and consumerCount
 * consumers (-p qType as elsewhere). Checks after every iteration: the
 * queue is empty (every burst was consumed before the producer went on), the
 * consumers' counts add up to the elements sent; with --check every element
 * is accounted for (per-producer order, exactly once by count and sum).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_common.h"

#define BURST_BENCH "QueueBurstCost.burst"
#define BURST_MAX_QUEUES 64

typedef struct burst_trial {
	void *q;
	size_t usable;
	cb_burst *ctx;
	cb_chk *chk[CB_MAX_CONSUMERS];
	cb_hist *iter; /* -bm sample: the producer's samples of one iteration */
	unsigned nc;
	uint64_t burst;
	int check;
} burst_trial;

static double burst_after(cb_wl_trial *t, int measured, size_t m, char *line,
			  size_t n)
{
	burst_trial *b = (burst_trial *)t->user;
	const cb_worker *p = &t->g.w[0];
	/* The signal came for every element sent: nothing may be left. */
	uint64_t sent = p->seq - 1u, taken = 0;
	for (unsigned k = 0; k < b->nc; k++)
		taken += conq__load_relaxed(&b->ctx->count[k].v);
	if (taken != sent)
		cb_wl_violation(t, "signal",
				"consumers took %" PRIu64 " of %" PRIu64
				" elements sent",
				taken, sent);
	uint64_t left = cb_wl_leftover(t->a, b->q, b->usable);
	if (left != 0)
		cb_wl_violation(t, "empty",
				"%" PRIu64 " elements left after the last "
				"burst was signalled",
				left);
	uint64_t errors = 0;
	for (unsigned k = 1; k <= b->nc; k++)
		errors += t->g.w[k].seq_errors;
	if (b->check) {
		uint64_t cnt = 0, sum = 0;
		for (unsigned k = 0; k < b->nc; k++) {
			cnt += b->chk[k]->cnt[0];
			sum += b->chk[k]->sum[0];
			errors += b->chk[k]->stray;
			b->chk[k]->stray = 0;
		}
		if (cnt != sent || sum != cb_wl_tri(sent))
			cb_wl_violation(t, "exactly-once",
					"%" PRIu64 " elements sent, %" PRIu64
					" taken (sums of sequences %s)",
					sent, cnt,
					sum == cb_wl_tri(sent) ? "equal"
							       : "differ");
	}
	if (errors != 0 && t->a->weak_order == NULL)
		cb_wl_violation(t, "FIFO",
				"%" PRIu64 " elements out of sequence", errors);
	double ns = cb_wl_ns_per_op(p);
	if (measured)
		t->sec[0][m] = ns / (double)b->burst;
	if (b->iter != NULL) {
		if (measured)
			cb_hist_merge(t->hist, b->iter);
		snprintf(line, n,
			 "%10.1f ns/burst (%.2f ns/element)  p50 %" PRIu64
			 " p99 %" PRIu64,
			 ns, ns / (double)b->burst,
			 cb_hist_percentile(b->iter, 50),
			 cb_hist_percentile(b->iter, 99));
		cb_hist_reset(b->iter);
	} else {
		snprintf(line, n, "%10.1f ns/burst (%.2f ns/element)", ns,
			 ns / (double)b->burst);
	}
	return ns;
}

static const cb_param_def burst_params[] = {
	{"burstSize", "1,10,100", "elements per burst (an op is one burst)"},
	{"consumerCount", "1", "consumer threads (the queues whose contract "
			       "allows 1 producer and that many consumers)"},
	{"qCapacity", "131072", "requested queue capacity"},
};

static int burst_run(const cb_workload *wl, const cb_options *o,
		     const cb_env *env, cb_results *rs)
{
	uint64_t burst, nc64, cap;
	if (cb_param_u64(o, "burstSize", &burst) != 0 ||
	    cb_param_u64(o, "consumerCount", &nc64) != 0)
		return 2;
	cap = cb_wl_capacity(o);
	if (burst == 0 || burst > ((uint64_t)1 << 30) || nc64 == 0 ||
	    nc64 > CB_MAX_CONSUMERS || cap == 0) {
		fprintf(stderr,
			"conq-bench: %s: burstSize in [1, 2^30], consumerCount "
			"in [1, %d], qCapacity >= 1\n",
			wl->name, CB_MAX_CONSUMERS);
		return 2;
	}
	const unsigned nc = (unsigned)nc64;
	const cb_adapter *ads[BURST_MAX_QUEUES];
	int na = cb_wl_select_queues(wl, o, nc, ads, BURST_MAX_QUEUES);
	if (na < 0)
		return 2;
	cb_wl_trial *t = (cb_wl_trial *)calloc((size_t)na, sizeof *t);
	burst_trial *bt = (burst_trial *)calloc((size_t)na, sizeof *bt);
	int rc = 0;
	char aff[200] = "";
	if (t == NULL || bt == NULL) {
		rc = 1;
		goto out;
	}
	for (int j = 0; j < na; j++) {
		burst_trial *b = &bt[j];
		t[j].a = ads[j];
		t[j].label = ads[j]->name;
		t[j].user = b;
		t[j].after = burst_after;
		t[j].sec_label[0] = "perElement";
		t[j].sec_unit[0] = "ns/op";
		b->nc = nc;
		b->burst = burst;
		b->check = o->check > 0;
		b->q = ads[j]->create((size_t)cap, &b->usable);
		b->ctx = (cb_burst *)cb_alloc_aligned(sizeof *b->ctx);
		if (b->q == NULL || b->ctx == NULL ||
		    cb_wl_trial_alloc(&t[j], o, 1) != 0) {
			fprintf(stderr, "conq-bench: %s: create(%" PRIu64
					") failed\n",
				ads[j]->name, cap);
			rc = 1;
			goto out;
		}
		b->ctx->q = b->q;
		b->ctx->burst = (uint32_t)burst;
		b->ctx->nconsumers = nc;
		if (o->mode == CB_MODE_SAMPLE) {
			if (cb_wl_sample_hists(&t[j], &b->iter) != 0) {
				rc = 1;
				goto out;
			}
		}
		const cb_loops *lp = ads[j]->loops;
		cb_role_fn roles[CB_MAX_THREADS];
		roles[0] = b->iter != NULL ? lp->burst_send_sampled
			   : o->mode == CB_MODE_SS ? lp->burst_send_shot
						   : lp->burst_send;
		for (unsigned k = 1; k <= nc; k++) {
			roles[k] = lp->burst_drain;
			if (b->check) {
				void *m = cb_alloc_aligned(sizeof(cb_chk));
				b->chk[k - 1] = (cb_chk *)m;
				if (m == NULL) {
					rc = 1;
					goto out;
				}
			}
		}
		if (cb_wl_trial_start(&t[j], o, env, 1 + nc, roles, b->ctx, aff,
				      sizeof aff) != 0) {
			rc = 1;
			goto out;
		}
		t[j].g.ctl->exact = nc == 1;
		t[j].g.ctl->self_stop = o->mode == CB_MODE_SS;
		t[j].g.w[0].pid = 0;
		t[j].g.w[0].seq = 1;
		t[j].g.w[0].hist = b->iter;
		for (unsigned k = 1; k <= nc; k++) {
			t[j].g.w[k].pid = k - 1; /* its counter */
			t[j].g.w[k].chk = b->chk[k - 1];
		}
	}
	char threads[96];
	snprintf(threads, sizeof threads,
		 "%u (1x \"burst\" measured, %ux \"drain\")", 1 + nc, nc);
	cb_wl_header(wl, o, threads, aff, t[0].yield, 1 + nc, t[0].ncpus);
	printf("# Parameters: burstSize = %" PRIu64 ", consumerCount = %u, "
	       "qCapacity = %" PRIu64 "; qType =",
	       burst, nc, cap);
	for (int j = 0; j < na; j++)
		printf("%s %s (holds %zu)", j ? "," : "", ads[j]->name,
		       bt[j].usable);
	printf("\n");
	fflush(stdout);
	cb_wl_rounds(wl, o, t, (size_t)na);
	for (int j = 0; j < na; j++) {
		cb_result *r = cb_wl_result(rs, &t[j], o, BURST_BENCH,
					    "burstCost", "ns/op");
		if (r == NULL) {
			rc = 1;
			goto out;
		}
		r->capacity = (size_t)cap;
		r->capacity_actual = bt[j].usable;
		r->consumers = nc;
		r->checked = bt[j].check;
	}
out:
	for (int j = 0; t != NULL && bt != NULL && j < na; j++) {
		cb_wl_trial_stop(&t[j]);
		if (bt[j].q != NULL)
			t[j].a->destroy(bt[j].q);
		cb_free_aligned(bt[j].ctx);
		for (unsigned k = 0; k < CB_MAX_CONSUMERS; k++)
			cb_free_aligned(bt[j].chk[k]);
		cb_hist_free(bt[j].iter);
	}
	free(t);
	free(bt);
	return rc;
}

static size_t burst_steps(const cb_workload *wl, const cb_options *o)
{
	(void)wl;
	uint64_t nc = 1;
	const char *s = cb_param(o, "consumerCount");
	if (s != NULL)
		nc = strtoull(s, NULL, 10);
	if (nc == 0 || nc > CB_MAX_CONSUMERS)
		nc = 1;
	return cb_wl_queue_steps(o, 1, (unsigned)nc);
}

const cb_workload cb_wl_burst = {
	.name = "QueueBurstCost",
	.group = "burst",
	.mode = "avgt",
	.unit = "ns/op",
	.roles = "burst,drain",
	.headline = "burstCost",
	.desc = "a producer sends burstSize elements and waits until the "
		"consumer signals the last (JCTools' QueueBurstCost); ns per "
		"burst (ss: one cold burst per iteration)",
	.run = burst_run,
	.modes = CB_MODE_AVGT | CB_MODE_SAMPLE | CB_MODE_SS,
	.params = burst_params,
	.nparams = sizeof burst_params / sizeof burst_params[0],
	.steps = burst_steps,
};
