/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_common.h - what the group workloads besides the throughput share
 * (burst, rtt, pingpong, catchup, align, limits): trials of pinned worker
 * threads (harness.h) run interleaved round by round, one iteration of each
 * trial per round (the order rotated each round, as wl_throughput.c does),
 * with the per-iteration bookkeeping every one of them needs: the timeout,
 * the disturbance test (a worker on its CPU for less than 95 % of the
 * iteration), overruns, violations, the progress line, and the series that
 * become a cb_result.
 */
#ifndef CB_WL_COMMON_H
#define CB_WL_COMMON_H

#include <stdarg.h>

#include "loops.h"
#include "workload.h"

/* An iteration is disturbed when a worker ran less than this share of it
 * (oversubscribed: when all together ran less than this share of the CPUs
 * they had). */
#define CB_WL_MIN_CPU_SHARE 0.95
#define CB_WL_MAX_SEC	    10
#define CB_WL_SLEEPER_OPS   100

typedef struct cb_wl_trial cb_wl_trial;

/* After each iteration of trial t (k: round; measured: m is its index among
 * the measured ones): check, compute t's score (returned) and fill t->sec[]
 * [m] when measured; write the metric part of the progress line to line. */
typedef double (*cb_wl_after_fn)(cb_wl_trial *t, int measured, size_t m,
				 char *line, size_t n);

struct cb_wl_trial {
	const char *label;   /* for the progress line: "conq:spsc_array" */
	const cb_adapter *a; /* NULL: not a queue */
	cb_group g;
	bool running, yield, pinned;
	/* The workers sleep by design (QueueHandoff's blocking ends): the CPU
	 * share says nothing; an iteration is disturbed when a worker was
	 * preempted (involuntary context switches) more than once per
	 * CB_WL_SLEEPER_OPS of the measured thread's ops. */
	bool sleeps;
	/* The workload's own threads preempt the measured one by design
	 * (Pool: a woken worker takes the submitter's CPU): no iteration is
	 * marked disturbed (the progress line still says how often it was
	 * preempted). */
	bool no_disturbance;
	unsigned nthreads, ncpus;
	double *score; /* per measured iteration */
	double *sec[CB_WL_MAX_SEC];
	const char *sec_label[CB_WL_MAX_SEC], *sec_unit[CB_WL_MAX_SEC];
	size_t nsec;
	unsigned char *disturbed;
	unsigned ndisturbed, overruns, violations;
	cb_wl_after_fn after;
	cb_hist *hist; /* merged samples of the measured iterations */
	void *user;    /* the workload's own state */
};

/* Allocate t's series (score, nsec secondaries, disturbed) for o->i
 * measured iterations; 0 or -1 (ENOMEM, printed). */
int cb_wl_trial_alloc(cb_wl_trial *t, const cb_options *o, size_t nsec);

/* Pin and start t's n workers (roles[k] on the CPUs of o's --affinity),
 * all given `ctx` as w->q; describe the placement in aff. 0 or -1
 * (printed). */
int cb_wl_trial_start(cb_wl_trial *t, const cb_options *o, const cb_env *env,
		      unsigned n, const cb_role_fn *roles, void *ctx, char *aff,
		      size_t aff_len);

/* Stop the workers and free the series not handed to a result. */
void cb_wl_trial_stop(cb_wl_trial *t);

/* Run o->wi warmup and o->i measured rounds over trials t[0..n); each
 * trial's `after` is called after each of its iterations. A stuck worker
 * ends the process (exit status 3, as the throughput workload does: a
 * spinning thread cannot be cancelled). */
void cb_wl_rounds(const cb_workload *wl, const cb_options *o, cb_wl_trial *t,
		  size_t n);

/* A violation of trial t: printed (the first 10), counted. */
void cb_wl_violation(cb_wl_trial *t, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A violation of `who` (its label), counted in *count: the first 10
 * printed, the 11th says the rest are only counted. */
void cb_wl_vviolation(unsigned *count, const char *who, const char *what,
		      const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/* w's time per measured op in ns (its whole window when it made none). */
static inline double cb_wl_ns_per_op(const cb_worker *w)
{
	double el = (double)(w->t_stop - w->t_start);
	return w->made ? el / (double)w->made : el;
}

/* The `after` tail of a two-thread round trip (pingpong, limits'
 * lineRtt), thread 0 measured: its -bm sample histogram (w->hist) merged
 * when measured and reset, sec[0] = one way (half a round trip), the
 * progress line; returns ns per round trip. */
double cb_wl_round_trip_after(cb_wl_trial *t, int measured, size_t m,
			      char *line, size_t n);

/* -bm sample: allocate t's merged histogram and *iter, the measured
 * thread's histogram of one iteration; 0 or -1 (ENOMEM). */
int cb_wl_sample_hists(cb_wl_trial *t, cb_hist **iter);

/* The parameters order (relaxed | release | seq_cst: *order 0, 1, 2) and
 * layout (padded | unpadded) of the lazySet experiments; 0, or 2 (usage,
 * printed). */
int cb_wl_order_layout(const cb_workload *wl, const cb_options *o,
		       size_t *order, bool *padded);

/* The stores of the orders above, in their order, for X(NAME, STORE). */
#define CB_WL_FOR_ORDERS(X)                                                    \
	X(relaxed, conq__store_relaxed)                                        \
	X(release, conq__store_release)                                        \
	X(seq_cst, conq__store_seq_cst)

/* -p qCapacity, else the first -c, else 131072. */
uint64_t cb_wl_capacity(const cb_options *o);

/* The selected queues (at most max) whose contract allows 1 producer and
 * nc consumers, the batched ones dropped (cb_wl_drop_batched); how many,
 * or -1 (none: printed; the caller returns 2). */
int cb_wl_select_queues(const cb_workload *wl, const cb_options *o, unsigned nc,
			const cb_adapter **ads, int max);

/* Poll what is left in q (flushed first; at most usable + 1): how many. */
uint64_t cb_wl_leftover(const cb_adapter *a, void *q, size_t usable);

/* Hand t's series to a new result in rs: benchmark, primary label/unit,
 * the secondaries; t keeps nothing. NULL on ENOMEM. */
cb_result *cb_wl_result(cb_results *rs, cb_wl_trial *t, const cb_options *o,
			const char *benchmark, const char *label,
			const char *unit);

/* Latency workloads need an element to be visible to poll once offered:
 * drop the adapters that publish in batches (those with a flush, e.g.
 * ceiling:stream), saying so on stdout. Returns how many are left. */
int cb_wl_drop_batched(const cb_workload *wl, const cb_adapter **ads, int n);

/* For a workload's `steps`: (wi + i) x the queues that would run with p
 * producers and c consumers (batched ones left out); at least wi + i. */
size_t cb_wl_queue_steps(const cb_options *o, unsigned p, unsigned c);

/* The median cost of one cb_now_ns() call (back to back), in ns. */
double cb_wl_clock_cost_ns(void);

/* The JMH-like header of a trial set: "# Benchmark:", threads, affinity,
 * warmup/measurement. */
void cb_wl_header(const cb_workload *wl, const cb_options *o,
		  const char *threads, const char *aff, bool yield,
		  unsigned nthreads, unsigned ncpus);

/* Parse "16K", "512K", "8M", "1G" or a plain number of bytes; 0 or -1. */
int cb_wl_parse_size(const char *s, uint64_t *v);

/* The rates of an iteration of t whose threads each made w->made ops of
 * `per` units (UUIDs, cycles): *ns, the mean over the threads of each
 * one's ns per unit (avgt, JMH's aggregation); *rate, the sum over them of
 * each one's units per us (thrpt). */
void cb_wl_thread_rates(const cb_wl_trial *t, uint64_t per, double *ns,
			double *rate);

/* The values of wl's interleaved parameter "threads" (a number, or "max":
 * the CPUs this process may run on, env->allowed), each once, in the order
 * given: at most max into out; how many, or -1 after printing an error.
 * env NULL (a workload's `steps`): the CPUs counted here, nothing
 * printed. */
int cb_wl_thread_counts(const cb_workload *wl, const cb_options *o,
			const cb_env *env, unsigned *out, size_t max);

/* The kernel's counts of events (Handoff, Pool): a tracepoint's id from
 * tracefs ("syscalls/sys_enter_futex"; /sys/kernel/tracing, then
 * debugfs), 0 or -1 when it is not there (tracefs not mounted). */
int cb_wl_tracepoint_id(const char *event, uint64_t *id);

/* perf_event_open of tracepoint id, counting from now on thread tid (0:
 * this one), any CPU; inherit: and the threads it starts later. The fd, or
 * -1 with errno. */
long cb_wl_tracepoint_open(uint64_t id, int tid, int inherit);

/* A struct timeval (getrusage's times) in ns. */
struct timeval;
uint64_t cb_wl_tv_ns(const struct timeval *tv);

/* Sum of 1..n mod 2^64. */
static inline uint64_t cb_wl_tri(uint64_t n)
{
	return n % 2 == 0 ? (n / 2) * (n + 1) : n * ((n + 1) / 2);
}

#endif /* CB_WL_COMMON_H */
