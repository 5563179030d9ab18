/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_contest.h - what the benchmarks whose contenders are their own, not
 * queues (cb_workload.contenders: Uuid, Refcount), share. Their run is a
 * contest: a trial per (contender, thread count), every thread of a trial
 * running the contender's one role, all the trials interleaved round by
 * round in one process (cb_wl_rounds). The thread counts are the
 * interleaved parameter "threads" where the benchmark has one (else one
 * thread a trial, and no "threads" in labels, the header or the results).
 * Their modes: avgt (default), the Score the mean over a trial's threads of
 * each one's ns per op, with "aggregate" (ops/us, all threads) as the
 * secondary; thrpt, the converse, with "perThread" (ns/op).
 */
#ifndef CB_WL_CONTEST_H
#define CB_WL_CONTEST_H

#include <stdio.h>

#include "wl_common.h"

/* The most contenders a benchmark may have. */
#define CB_WL_MAX_CONTENDERS 16

typedef struct cb_wl_contest {
	const cb_workload *wl;
	const cb_options *o;
	const cb_env *env;
	const cb_adapter *sel[CB_WL_MAX_CONTENDERS]; /* selected, in order */
	unsigned tc[CB_MAX_LIST];                    /* the thread counts */
	int nc, nt;
	bool threads; /* "threads" is interleaved */
	bool avgt;    /* the mode: avgt (else thrpt) */
	size_t n;     /* trials: nc x nt, by contender then thread count */
	cb_wl_trial *t;
	void *ctx;         /* the workload's contexts, n of them */
	void **mem;        /* cb_wl_contest_mem's, one a trial */
	char (*label)[96]; /* the trials' labels */
	/* For the header: the fewest and most threads of a trial, and the
	 * placement of the first with the most. */
	unsigned least, most, ncpus;
	bool yield;
	char aff[200];
} cb_wl_contest;

/* The selected contenders and thread counts of wl at o, s->n zeroed
 * trials and as many zeroed contexts of ctx_size bytes (s->ctx, an array
 * of the workload's own struct); 0, 2 (usage: printed) or 1 (ENOMEM). s
 * can be given to cb_wl_contest_free whatever it returned. */
int cb_wl_contest_init(cb_wl_contest *s, const cb_workload *wl,
		       const cb_options *o, const cb_env *env,
		       size_t ctx_size);

/* Trial k's contender and thread count. */
static inline const cb_adapter *cb_wl_contest_contender(const cb_wl_contest *s,
							 size_t k)
{
	return s->sel[k / (size_t)s->nt];
}
static inline unsigned cb_wl_contest_threads(const cb_wl_contest *s, size_t k)
{
	return s->tc[k % (size_t)s->nt];
}

/* Zeroed memory aligned to CB_PAD for trial k (what its threads share),
 * freed by cb_wl_contest_free once they are stopped; NULL on ENOMEM. */
void *cb_wl_contest_mem(cb_wl_contest *s, size_t k, size_t size);

/* Label trial k, give it `after` and `user` (t->user), allocate its series
 * and start its threads, each running `role` with w->q = q; 0 or -1
 * (printed). */
int cb_wl_contest_start(cb_wl_contest *s, size_t k, cb_wl_after_fn after,
			void *user, cb_role_fn role, void *q);

/* The header (cb_wl_header) and the "# Parameters:" line, `tail` (NULL:
 * none) at its end; stdout flushed. */
void cb_wl_contest_header(const cb_wl_contest *s, const char *tail);

/* Run the rounds, then hand each trial's series to a result of
 * `benchmark` (headline `label`), whose adapter is its contender, with its
 * thread count (producers; "threads" too when interleaved); 0 or 1
 * (ENOMEM). */
int cb_wl_contest_run(cb_wl_contest *s, cb_results *rs, const char *benchmark,
		      const char *label);

/* Stop the trials' workers, free them, their memory and the contexts. */
void cb_wl_contest_free(cb_wl_contest *s);

/* For cb_workload.steps: (wi + i) x the trials that would run. */
size_t cb_wl_contest_steps(const cb_workload *wl, const cb_options *o);

/* The tail of a trial's `after` for ops of `per` units each (UUIDs,
 * cycles): *ns and *rate of the iteration (cb_wl_thread_rates), the one
 * the mode does not score into sec[0][m] when measured; returns the
 * score (*ns under avgt, else *rate). */
double cb_wl_contest_score(cb_wl_trial *t, int measured, size_t m,
			   uint64_t per, bool avgt, double *ns, double *rate);

/* The measured part of a contender's role whose op is STEP(...): the role's
 * start (u0: its rusage, declared here, for cb_worker_done), CB_OP_LOOPS
 * without samples (declaring t0 and t1), then the op uncounted while the
 * other threads warm down, so that no measured window runs alone. */
#define CB_WL_CONTEST_LOOPS(ctl, u0, made, extra, t0, t1, STEP, ...)           \
	cb_rusage u0;                                                          \
	cb_worker_begin(ctl, &u0);                                             \
	CB_OP_LOOPS(ctl, (cb_hist *)NULL, 0, made, extra, t0, t1, STEP,        \
		    __VA_ARGS__);                                              \
	while (cb_ctl_warming_down(ctl))                                       \
		STEP(__VA_ARGS__)

/* The cb_workload fields alike in every contest: avgt by default (ns/op)
 * and thrpt, cb_wl_contest_steps, and the contenders (an array of
 * const cb_adapter *) that parameter PARAM selects. */
#define CB_WL_CONTEST_FIELDS(PARAM, CONTENDERS)                                \
	.mode = "avgt", .unit = "ns/op",                                       \
	.modes = CB_MODE_AVGT | CB_MODE_THRPT, .steps = cb_wl_contest_steps,   \
	.contender_param = PARAM, .contenders = CONTENDERS,                    \
	.ncontenders = sizeof CONTENDERS / sizeof CONTENDERS[0]

/* ---- the reports ---- */

/* r's ns per op (per thread) and its ops per us (all threads), whatever
 * the mode (one is the primary, the other the secondary). */
const cb_series *cb_wl_contest_ns(const cb_result *r);
const cb_series *cb_wl_contest_rate(const cb_result *r);

/* The rounds both a and b have. */
static inline size_t cb_wl_contest_n(const cb_result *a, const cb_result *b)
{
	return a->primary.n < b->primary.n ? a->primary.n : b->primary.n;
}

/* Two series of the same n rounds, for the ratios a[k] / b[k]; da, db:
 * their disturbed rounds (may be NULL). */
typedef struct cb_wl_pair {
	const double *a, *b;
	size_t n;
	const unsigned char *da, *db;
} cb_wl_pair;

/* Results a's and b's ns per op (ns), or their ops per us (rate). */
cb_wl_pair cb_wl_contest_ns_pair(const cb_result *a, const cb_result *b);
cb_wl_pair cb_wl_contest_rate_pair(const cb_result *a, const cb_result *b);

/* The line of the per-round ratios of a's ns per op to b's, labelled
 * "<prefix><a's contender> / <b's>:". */
void cb_wl_contest_ratio(FILE *f, const char *prefix, const cb_result *a,
			 const cb_result *b);

/* A target on the per-round ratios of p: met when their median is at least
 * min and at most max (-INFINITY, INFINITY: no bound), or, with noise, when
 * 1x lies within their interquartile range. Prints the verdict line
 * ("  what: met", or NOT MET), then the ratios' line. */
void cb_wl_contest_target(FILE *f, const char *what, double min, double max,
			  bool noise, cb_wl_pair p);

#endif /* CB_WL_CONTEST_H */
