/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MachineLimits: what this machine allows any queue, the ceilings the queue
 * figures are to be read against. Two threads on two CPUs (--affinity):
 *
 *   limit=lineRtt  raw cache-line ping-pong: ONE 8-byte word in one line,
 *                  ping stores an odd value and spins until it reads the
 *                  next even one, which pong stores when it reads the odd
 *                  one (release stores, acquire loads). A round trip moves
 *                  the line twice between the cores: no queue round trip
 *                  (QueueRoundTripLatency at chainLength 2 moves at least
 *                  two lines twice) can beat it. avgt, ns per round trip.
 *                  -bm sample times every round trip into a latency
 *                  histogram (one clock read each), the seeds' block.
 *   limit=stream   the streaming ceiling of a SPSC transfer: the
 *                  ceiling:stream baseline (adapter_ceiling.c: a plain ring
 *                  whose indices are published once every 64 slots) run in
 *                  the throughput loops (loops.h) at -tg 1,1 for the
 *                  iteration time. Score = elements polled per us (thrpt),
 *                  the same count as QueueThroughputBackoffNone's pollsMade.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_common.h"

#define LIM_BENCH "MachineLimits.limits"

extern const cb_adapter cb_adapter_ceiling_stream;

/* ---- lineRtt ------------------------------------------------------------ */

typedef struct lim_line {
	CB_ALIGNAS(CB_PAD) uint64_t word; /* odd: ping's, even: pong's */
} lim_line;

#define LIM_ROUND(l, v, yield, run)                                            \
	do {                                                                   \
		/* release: pairs with pong's acquire load of the word. */     \
		conq__store_release(&(l)->word, (v) + 1u);                     \
		/* acquire: pairs with pong's release store of v + 2. */      \
		while (conq__load_acquire(&(l)->word) != (v) + 2u)             \
			cb_fail_backoff(yield, &(run));                        \
		(v) += 2u;                                                     \
		(run) = 0;                                                     \
	} while (0)

static void lim_ping(cb_worker *w)
{
	lim_line *const l = (lim_line *)w->q;
	cb_ctl *const ctl = w->ctl;
	cb_hist *const hist = w->hist; /* -bm sample */
	const bool yield = ctl->yield;
	uint64_t v = w->seq, made = 0, extra = 0; /* v even: the word's value */
	uint32_t run = 0;
	cb_rusage u0_;
	cb_worker_begin(ctl, &u0_);
	CB_OP_LOOPS(ctl, hist, hist != NULL, made, extra, t0, t1, LIM_ROUND, l,
		    v, yield, run);
	w->seq = v;
	cb_worker_done(w, made, 0, extra, 0, t0, t1, &u0_);
}

/* Answer an odd word with the next even value. */
#define LIM_ECHO(l, yield, run, n)                                             \
	do {                                                                   \
		/* acquire: pairs with ping's release store. */                \
		uint64_t x_ = conq__load_acquire(&(l)->word);                  \
		if (x_ & 1u) {                                                 \
			/* release: pairs with ping's acquire load. */         \
			conq__store_release(&(l)->word, x_ + 1u);              \
			(n)++;                                                 \
			(run) = 0;                                             \
		} else {                                                       \
			cb_fail_backoff(yield, &(run));                        \
		}                                                              \
	} while (0)

static void lim_pong(cb_worker *w)
{
	lim_line *const l = (lim_line *)w->q;
	cb_ctl *const ctl = w->ctl;
	const bool yield = ctl->yield;
	uint64_t made = 0, extra = 0;
	uint32_t run = 0;
	cb_rusage u0_;
	cb_worker_begin(ctl, &u0_);
	/* Ping may wait for its answer. */
	CB_ANSWER_LOOPS(ctl, made, extra, t0, t1, LIM_ECHO, l, yield, run);
	cb_worker_done(w, made, 0, extra, 0, t0, t1, &u0_);
}

static double lim_line_after(cb_wl_trial *t, int measured, size_t m,
			     char *line, size_t n)
{
	const cb_worker *p = &t->g.w[0];
	lim_line *l = (lim_line *)t->user;
	if (conq__load_relaxed(&l->word) != p->seq)
		cb_wl_violation(t, "echo", "word %" PRIu64 ", ping at %" PRIu64,
				conq__load_relaxed(&l->word), p->seq);
	return cb_wl_round_trip_after(t, measured, m, line, n);
}

/* ---- stream ------------------------------------------------------------- */

typedef struct lim_stream {
	const cb_adapter *a;
	void *q;
	size_t usable;
} lim_stream;

static double lim_stream_after(cb_wl_trial *t, int measured, size_t m,
			       char *line, size_t n)
{
	lim_stream *s = (lim_stream *)t->user;
	const cb_worker *p = &t->g.w[0], *c = &t->g.w[1];
	/* Conservation, as the throughput workload checks it. */
	uint64_t offered = p->made + p->extra, polled = c->made + c->extra;
	s->a->flush(s->q);
	uint64_t left = 0, last = 0;
	void *e;
	while (left <= s->usable && (e = s->a->poll(s->q)) != NULL) {
		last = cb_elem_seq(e);
		left++;
	}
	s->a->flush(s->q);
	/* The consumer's next element comes after what we drained. */
	if (left != 0)
		t->g.w[1].chk->last[0] = last;
	if (polled + left != offered)
		cb_wl_violation(t, "conservation",
				"offered %" PRIu64 " - polled %" PRIu64
				" != drained %" PRIu64,
				offered, polled, left);
	/* Each element came in sequence: drained ones too (a suffix). */
	if (c->seq_errors != 0)
		cb_wl_violation(t, "FIFO", "%" PRIu64 " out of sequence",
				c->seq_errors);
	double pm = (double)c->made /
		    ((double)(c->t_stop - c->t_start) / 1e3 + 1e-9);
	double om = (double)p->made /
		    ((double)(p->t_stop - p->t_start) / 1e3 + 1e-9);
	if (measured)
		t->sec[0][m] = om;
	snprintf(line, n, "%8.1f ops/us polled (%.1f offered)", pm, om);
	return pm;
}

static const cb_param_def lim_params[] = {
	{"limit", "lineRtt,stream",
	 "lineRtt: one line ping-ponged between two cores (ns/round trip); "
	 "stream: the ceiling:stream SPSC transfer (ops/us)"},
	{"qCapacity", "131072", "stream: the ring's capacity"},
};

static int lim_run(const cb_workload *wl, const cb_options *o,
		   const cb_env *env, cb_results *rs)
{
	const char *limit = cb_param(o, "limit");
	bool stream = limit != NULL && strcmp(limit, "stream") == 0;
	if (limit == NULL || (!stream && strcmp(limit, "lineRtt") != 0)) {
		fprintf(stderr, "conq-bench: %s: limit is lineRtt | stream\n",
			wl->name);
		return 2;
	}
	const uint64_t cap = cb_wl_capacity(o);
	cb_wl_trial t;
	memset(&t, 0, sizeof t);
	lim_line *l = NULL;
	lim_stream s = {&cb_adapter_ceiling_stream, NULL, 0};
	cb_chk *chk = NULL;
	cb_hist *iter = NULL; /* -bm sample, lineRtt: an iteration's samples */
	int rc = 0;
	char aff[200] = "";
	t.label = stream ? "stream" : "lineRtt";
	if (cb_wl_trial_alloc(&t, o, 1) != 0) {
		rc = 1;
		goto out;
	}
	cb_role_fn roles[2];
	void *ctx;
	if (stream && o->mode != CB_MODE_AVGT) {
		printf("# %s.%s: limit=stream has no %s mode (a throughput, "
		       "run in the default mode): skipped\n",
		       wl->name, wl->group, cb_mode_name(o->mode));
		goto out;
	}
	if (stream) {
		s.q = s.a->create((size_t)cap, &s.usable);
		chk = (cb_chk *)cb_alloc_aligned(sizeof *chk);
		if (s.q == NULL || chk == NULL) {
			rc = 1;
			goto out;
		}
		/* The checked poll loop: each element in sequence. */
		roles[0] = s.a->loops->tpt_offer;
		roles[1] = s.a->loops->tpt_poll_checked;
		ctx = s.q;
		t.a = s.a;
		t.user = &s;
		t.after = lim_stream_after;
		t.sec_label[0] = "offersMade";
		t.sec_unit[0] = "ops/us";
	} else {
		l = (lim_line *)cb_alloc_aligned(sizeof *l);
		if (l == NULL) {
			rc = 1;
			goto out;
		}
		roles[0] = lim_ping;
		roles[1] = lim_pong;
		ctx = l;
		t.user = l;
		t.after = lim_line_after;
		t.sec_label[0] = "oneWay";
		t.sec_unit[0] = "ns/op";
	}
	if (cb_wl_trial_start(&t, o, env, 2, roles, ctx, aff, sizeof aff)) {
		rc = 1;
		goto out;
	}
	t.g.w[0].pid = 0;
	t.g.w[0].seq = stream ? 1 : 0;
	t.g.w[1].pid = 0;
	t.g.w[1].chk = chk;
	if (!stream && o->mode == CB_MODE_SAMPLE) {
		if (cb_wl_sample_hists(&t, &iter) != 0) {
			rc = 1;
			goto out;
		}
		t.g.w[0].hist = iter; /* read by ping after its next wake-up */
	}
	cb_wl_header(wl, o,
		     stream ? "2 (1x \"offer\", 1x \"poll\" measured)"
			    : "2 (1x \"ping\" measured, 1x \"pong\")",
		     aff, t.yield, 2, t.ncpus);
	if (stream)
		printf("# Parameters: limit = stream (%s, holds %zu)\n",
		       s.a->name, s.usable);
	else
		printf("# Parameters: limit = lineRtt (one word in one line)\n");
	fflush(stdout);
	cb_wl_rounds(wl, o, &t, 1);
	cb_result *r = cb_wl_result(rs, &t, o, LIM_BENCH,
				    stream ? "pollsMade" : "roundTrip",
				    stream ? "ops/us" : "ns/op");
	if (r == NULL) {
		rc = 1;
		goto out;
	}
	if (stream) {
		r->mode = "thrpt";
		r->capacity = (size_t)cap;
		r->capacity_actual = s.usable;
	}
out:
	cb_wl_trial_stop(&t);
	if (s.q != NULL)
		s.a->destroy(s.q);
	cb_free_aligned(chk);
	cb_free_aligned(l);
	cb_hist_free(iter);
	return rc;
}

const cb_workload cb_wl_limits = {
	.name = "MachineLimits",
	.group = "limits",
	.mode = "avgt",
	.unit = "ns/op",
	.roles = "ping,pong",
	.headline = "roundTrip",
	.desc = "the machine's ceilings: one cache line ping-ponged between "
		"two cores (ns/round trip), the ceiling:stream SPSC transfer "
		"(ops/us)",
	.run = lim_run,
	.modes = CB_MODE_AVGT | CB_MODE_SAMPLE,
	.params = lim_params,
	.nparams = sizeof lim_params / sizeof lim_params[0],
};
