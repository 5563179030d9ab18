/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PingPong, the first of the seeds' lazySet experiments (psy-lob-saw's
 * PingPong): two threads keep in step through two counters, one written by
 * each (the single-writer principle). Ping stores n into its counter and
 * spins until pong's counter reads n; pong spins until ping's counter moves,
 * then stores the same value into its own. One op = one round trip (avgt,
 * ns/op). Not a queue: no adapter.
 *
 * Parameters:
 *   order   the store both threads publish with: relaxed (Java's plain
 *           set, with the C11 guarantee that it is atomic), release
 *           (lazySet/putOrdered), seq_cst (volatile set: xchg on x86).
 *           Loads are acquire in every case (the seed's volatile get).
 *   layout  padded: each counter alone on its CB_PAD block; unpadded: both
 *           in one cache line (each store invalidates the reader's copy of
 *           the line it spins on, and its own counter with it).
 *
 * The seed's lesson to check: the store type barely matters here (the cost
 * is the cache line moving between the cores), unlike in Catchup.
 *
 * -bm sample times every round trip (one clock read each, its cost inside
 * every sample) into a latency histogram, printed as the seeds' block: on
 * a shared machine its median says what the mean (avgt) hides under the
 * preemptions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_common.h"

#define PP_BENCH "PingPong.pingpong"

typedef struct pp_ctx {
	CB_ALIGNAS(CB_PAD) uint64_t *ping; /* written by ping only */
	uint64_t *pong;                    /* written by pong only */
	void *mem;
} pp_ctx;

/* One round trip: publish v, wait for its echo. */
#define PP_ROUND(STORE, c, v, yield, run)                                      \
	do {                                                                   \
		(v)++;                                                         \
		STORE((c)->ping, (v));                                         \
		/* acquire: pairs with pong's store of the echo. */            \
		while (conq__load_acquire((c)->pong) != (v))                   \
			cb_fail_backoff(yield, &(run));                        \
		(run) = 0;                                                     \
	} while (0)

/* Echo ping's counter once it moved. */
#define PP_ECHO(STORE, c, last, yield, run, n)                                 \
	do {                                                                   \
		/* acquire: pairs with ping's store of the value. */           \
		uint64_t x_ = conq__load_acquire((c)->ping);                   \
		if (x_ != (last)) {                                            \
			STORE((c)->pong, x_);                                  \
			(last) = x_;                                           \
			(n)++;                                                 \
			(run) = 0;                                             \
		} else {                                                       \
			cb_fail_backoff(yield, &(run));                        \
		}                                                              \
	} while (0)

/* Ping and pong for one store order. The stores are the experiment: their
 * order is the parameter (each pairs with the other thread's acquire load
 * in PP_ROUND / PP_ECHO). */
#define PP_ROLES(NAME, STORE)                                                  \
	static void pp_ping_##NAME(cb_worker *w)                               \
	{                                                                      \
		pp_ctx *const c = (pp_ctx *)w->q;                              \
		cb_ctl *const ctl = w->ctl;                                    \
		cb_hist *const hist = w->hist; /* -bm sample */                \
		const bool yield = ctl->yield;                                 \
		uint64_t v = w->seq, made = 0, extra = 0;                      \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		cb_worker_begin(ctl, &u0_);                                    \
		CB_OP_LOOPS(ctl, hist, hist != NULL, made, extra, t0, t1,      \
			    PP_ROUND, STORE, c, v, yield, run);                \
		w->seq = v;                                                    \
		cb_worker_done(w, made, 0, extra, 0, t0, t1, &u0_);            \
	}                                                                      \
	static void pp_pong_##NAME(cb_worker *w)                               \
	{                                                                      \
		pp_ctx *const c = (pp_ctx *)w->q;                              \
		cb_ctl *const ctl = w->ctl;                                    \
		const bool yield = ctl->yield;                                 \
		uint64_t last = conq__load_relaxed(c->pong); /* ours */        \
		uint64_t made = 0, extra = 0;                                  \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		cb_worker_begin(ctl, &u0_);                                    \
		/* Ping may still wait for its last echo. */                   \
		CB_ANSWER_LOOPS(ctl, made, extra, t0, t1, PP_ECHO, STORE, c,   \
				last, yield, run);                             \
		cb_worker_done(w, made, 0, extra, 0, t0, t1, &u0_);            \
	}

CB_WL_FOR_ORDERS(PP_ROLES)

static const struct {
	const char *name;
	cb_role_fn ping, pong;
} pp_orders[] = {
	{"relaxed", pp_ping_relaxed, pp_pong_relaxed},
	{"release", pp_ping_release, pp_pong_release},
	{"seq_cst", pp_ping_seq_cst, pp_pong_seq_cst},
};

static double pp_after(cb_wl_trial *t, int measured, size_t m, char *line,
		       size_t n)
{
	const cb_worker *p = &t->g.w[0];
	pp_ctx *c = (pp_ctx *)t->user;
	/* Each of ping's values was echoed: pong's counter is ping's. */
	if (conq__load_relaxed(c->pong) != p->seq)
		cb_wl_violation(t, "echo",
				"ping at %" PRIu64 ", pong at %" PRIu64, p->seq,
				conq__load_relaxed(c->pong));
	return cb_wl_round_trip_after(t, measured, m, line, n);
}

static const cb_param_def pp_params[] = {
	{"order", "relaxed,release,seq_cst",
	 "the store: relaxed (plain) | release (lazySet) | seq_cst (volatile)"},
	{"layout", "padded,unpadded",
	 "padded: a CB_PAD block per counter; unpadded: both in one line"},
};

static int pp_run(const cb_workload *wl, const cb_options *o,
		  const cb_env *env, cb_results *rs)
{
	size_t oi;
	bool padded;
	if (cb_wl_order_layout(wl, o, &oi, &padded) != 0)
		return 2;
	const char *order = pp_orders[oi].name;
	const char *layout = cb_param(o, "layout");
	cb_wl_trial t;
	memset(&t, 0, sizeof t);
	pp_ctx *c = (pp_ctx *)cb_alloc_aligned(sizeof *c);
	cb_hist *iter = NULL; /* -bm sample: ping's samples of an iteration */
	int rc = 0;
	char aff[200] = "", label[48];
	if (c == NULL || (c->mem = cb_alloc_aligned(2 * CB_PAD)) == NULL ||
	    cb_wl_trial_alloc(&t, o, 1) != 0) {
		rc = 1;
		goto out;
	}
	c->ping = (uint64_t *)c->mem;
	c->pong = c->ping + (padded ? CB_PAD / sizeof(uint64_t) : 1);
	snprintf(label, sizeof label, "%s/%s", order, layout);
	t.label = label;
	t.user = c;
	t.after = pp_after;
	t.sec_label[0] = "oneWay";
	t.sec_unit[0] = "ns/op";
	const cb_role_fn roles[2] = {pp_orders[oi].ping, pp_orders[oi].pong};
	if (cb_wl_trial_start(&t, o, env, 2, roles, c, aff, sizeof aff) != 0) {
		rc = 1;
		goto out;
	}
	t.g.w[0].seq = 0;
	if (o->mode == CB_MODE_SAMPLE) {
		if (cb_wl_sample_hists(&t, &iter) != 0) {
			rc = 1;
			goto out;
		}
		t.g.w[0].hist = iter; /* read by ping after its next wake-up */
	}
	cb_wl_header(wl, o, "2 (1x \"ping\" measured, 1x \"pong\")", aff,
		     t.yield, 2, t.ncpus);
	printf("# Parameters: order = %s, layout = %s (counters %td bytes "
	       "apart)\n",
	       order, layout, (char *)c->pong - (char *)c->ping);
	fflush(stdout);
	cb_wl_rounds(wl, o, &t, 1);
	if (cb_wl_result(rs, &t, o, PP_BENCH, "roundTrip", "ns/op") == NULL)
		rc = 1;
out:
	cb_wl_trial_stop(&t);
	cb_hist_free(iter);
	if (c != NULL)
		cb_free_aligned(c->mem);
	cb_free_aligned(c);
	return rc;
}

const cb_workload cb_wl_pingpong = {
	.name = "PingPong",
	.group = "pingpong",
	.mode = "avgt",
	.unit = "ns/op",
	.roles = "ping,pong",
	.headline = "roundTrip",
	.desc = "two threads keep in step through a counter each, stored "
		"relaxed / release / seq_cst, padded or in one line "
		"(psy-lob-saw's lazySet PingPong); ns per round trip",
	.run = pp_run,
	.modes = CB_MODE_AVGT | CB_MODE_SAMPLE,
	.params = pp_params,
	.nparams = sizeof pp_params / sizeof pp_params[0],
};
