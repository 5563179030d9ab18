/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QueueHandoff: the blocking hand-off at a low message rate, the case the
 * blocking ends exist for (a consumer that sleeps while there is nothing to
 * do, woken for each message). Two threads on their own CPUs:
 *
 *   "send" (thread 0): every intervalUs microseconds (clock_nanosleep to an
 *       absolute CLOCK_MONOTONIC tick; a tick missed by a whole interval is
 *       skipped, not caught up in a burst) stamps cb_now_ns() into an
 *       element and put()s it;
 *   "take" (thread 1): take_until(now + 2 intervals + 1 ms) in a loop (the
 *       deadline only lets it see the stop flag), and records now - stamp for
 * each element into a histogram: the latency from the offer to the woken
 *       consumer's return, the wake-up included.
 *
 * Reported per iteration: Score = the median latency (ns); secondaries: the
 * 99th percentile; CPU time per message of both threads together and of the
 * sender alone (getrusage(RUSAGE_THREAD) at the edges of each thread's
 * measured window: the sleeps, the wake-ups and the queue, the sender's
 * clock_nanosleep included, the same for every queue); the taker's
 * voluntary context switches per message (how often it slept); futex(2)
 * calls and all system calls per message of both threads, counted by the
 * kernel (perf_event_open on the tracepoints syscalls:sys_enter_futex and
 * raw_syscalls:sys_enter; they need tracefs mounted, at
 * /sys/kernel/tracing, and root or perf_event_paranoid -1: without them
 * those two columns are left out, saying why). The sender's one
 * clock_nanosleep per message is inside the system calls.
 *
 * The queues run are those with blocking ends (cb_adapter.put/take_until)
 * whose contract allows 1,1: by default every conq family (chunk-size
 * variants aside) and the blocking peers (mutex:condvar,
 * moodycamel:blockingconcurrentqueue, dpdk:rte_ring_spsc_eventfd); -p
 * qType selects as elsewhere. They alternate iteration by iteration.
 *
 * Checks: the stamps come out strictly increasing (FIFO, nothing twice);
 * nothing is lost: after each iteration, elements put = taken + what is
 * left in the queue; a failed put is a violation. Iterations where a thread
 * was preempted more than once per 100 messages are marked disturbed (the
 * threads sleep by design: the CPU share test does not apply).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "wl_common.h"

#define HO_BENCH      "QueueHandoff.handoff"
#define HO_MAX_QUEUES 64
/* take_until's deadline, 2 intervals + 1 ms: only for seeing the stop
 * flag, never reached while messages come */
#define HO_TAKE_WAIT_NS(interval) (2 * (interval) + 1000000)

enum { HO_SEND, HO_TAKE, HO_SIDES };
enum { HO_EV_FUTEX, HO_EV_SYSCALLS, HO_NEV };

/* One thread's measured window: what it used. */
typedef struct ho_side {
	uint64_t cpu_ns;     /* RUSAGE_THREAD user + system */
	uint64_t nvcsw;	     /* voluntary context switches */
	uint64_t ev[HO_NEV]; /* tracepoint counts (ho_ctx.ev_ok) */
	uint64_t msgs;	     /* sent / taken in the window */
	uint64_t total;	     /* sent / taken in the whole iteration */
	uint64_t errors;     /* take: stamps out of order; send: failed puts */
} ho_side;

typedef struct ho_ctx {
	/* Read-only during an iteration. */
	CB_ALIGNAS(CB_PAD) void *q;
	const cb_adapter *a;
	uint64_t interval_ns;
	uint64_t ev_config[HO_NEV]; /* tracepoint ids */
	bool ev_ok;		    /* the counters can be opened */
	/* Each written by its own thread after its loops, read by the
	 * control thread after the iteration (cb_group_iterate's join is
	 * the edge). */
	CB_ALIGNAS(CB_PAD) ho_side side[HO_SIDES];
	/* The taker's last stamp (carried across iterations: FIFO holds
	 * across them). */
	CB_ALIGNAS(CB_PAD) uint64_t last;
} ho_ctx;

typedef struct ho_trial {
	ho_ctx *ctx;
	size_t usable;
	uint64_t sent, taken; /* over all iterations, warm-up included */
	cb_hist *iter;	      /* the taker's latencies of one iteration */
} ho_trial;

/* ---- the kernel's counts of system calls (tracepoints) ---- */

/* Can this process count the tracepoints? Fills c->ev_config; on failure
 * why (for the header). */
static bool ho_counters_probe(ho_ctx *c, char *why, size_t n)
{
	if (cb_wl_tracepoint_id("syscalls/sys_enter_futex",
				&c->ev_config[HO_EV_FUTEX]) != 0 ||
	    cb_wl_tracepoint_id("raw_syscalls/sys_enter",
				&c->ev_config[HO_EV_SYSCALLS]) != 0) {
		snprintf(why, n,
			 "no tracefs (mount -t tracefs nodev "
			 "/sys/kernel/tracing, as root)");
		return false;
	}
	long fd = cb_wl_tracepoint_open(c->ev_config[HO_EV_FUTEX], 0, 0);
	if (fd < 0) {
		snprintf(why, n,
			 "perf_event_open: %s (root, or "
			 "kernel.perf_event_paranoid = -1)",
			 strerror(errno));
		return false;
	}
	close((int)fd);
	return true;
}

typedef struct ho_meter {
	long fd[HO_NEV];
	struct rusage ru;
	uint64_t ev[HO_NEV];
} ho_meter;

static void ho_meter_open(const ho_ctx *c, ho_meter *m)
{
	for (int k = 0; k < HO_NEV; k++)
		m->fd[k] = c->ev_ok
			       ? cb_wl_tracepoint_open(c->ev_config[k], 0, 0)
			       : -1;
}

static void ho_meter_close(ho_meter *m)
{
	for (int k = 0; k < HO_NEV; k++)
		if (m->fd[k] >= 0)
			close((int)m->fd[k]);
}

/* A snapshot at a window's edge (a getrusage and two reads: three system
 * calls, each counted once in the window at most). */
static void ho_meter_read(ho_meter *m)
{
	for (int k = 0; k < HO_NEV; k++) {
		uint64_t v = 0;
		if (m->fd[k] >= 0 &&
		    read((int)m->fd[k], &v, sizeof v) != sizeof v)
			v = 0;
		m->ev[k] = v;
	}
	getrusage(RUSAGE_THREAD, &m->ru);
}

static void ho_meter_store(ho_side *s, const ho_meter *a, const ho_meter *b)
{
	s->cpu_ns = cb_wl_tv_ns(&b->ru.ru_utime) +
		    cb_wl_tv_ns(&b->ru.ru_stime) -
		    cb_wl_tv_ns(&a->ru.ru_utime) - cb_wl_tv_ns(&a->ru.ru_stime);
	s->nvcsw = (uint64_t)(b->ru.ru_nvcsw - a->ru.ru_nvcsw);
	for (int k = 0; k < HO_NEV; k++)
		s->ev[k] = b->ev[k] - a->ev[k];
}

/* ---- the two roles ---- */

static void ho_tick(struct timespec *next, uint64_t interval)
{
	uint64_t t = (uint64_t)next->tv_sec * CB_NS_PER_S +
		     (uint64_t)next->tv_nsec + interval;
	const uint64_t now = cb_now_ns();
	if (t + interval < now) /* a whole tick late: start again from now */
		t = now + interval;
	next->tv_sec = (time_t)(t / CB_NS_PER_S);
	next->tv_nsec = (long)(t % CB_NS_PER_S);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) ==
	       EINTR)
		;
}

/* One message: wait for the tick, stamp, put. */
static inline void ho_send_one(ho_ctx *c, struct timespec *next, uint64_t *sent,
			       uint64_t *errors)
{
	ho_tick(next, c->interval_ns);
	void *e = (void *)cb_elem_bits(0, cb_now_ns());
	if (c->a->put(c->q, e))
		(*sent)++;
	else
		(*errors)++;
}

static void ho_send(cb_worker *w)
{
	ho_ctx *const c = (ho_ctx *)w->q;
	cb_ctl *const ctl = w->ctl;
	ho_meter m0, m1;
	ho_meter_open(c, &m0);
	m1 = m0;
	uint64_t made = 0, extra = 0, errors = 0;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	cb_rusage u0;
	cb_worker_begin(ctl, &u0);
	while (cb_ctl_catching_up(ctl))
		ho_send_one(c, &next, &extra, &errors);
	ho_meter_read(&m0);
	const uint64_t t0 = cb_now_ns();
	do
		ho_send_one(c, &next, &made, &errors);
	while (cb_ctl_running(ctl));
	const uint64_t t1 = cb_now_ns();
	ho_meter_read(&m1);
	cb_ctl_leave(ctl);
	/* The taker's take_until returns within HO_TAKE_WAIT_NS: no need to
	 * keep it fed while it warms down. */
	while (cb_ctl_warming_down(ctl))
		ho_tick(&next, c->interval_ns);
	ho_meter_store(&c->side[HO_SEND], &m0, &m1);
	ho_meter_close(&m0);
	c->side[HO_SEND].msgs = made;
	c->side[HO_SEND].total = made + extra;
	c->side[HO_SEND].errors = errors;
	cb_worker_done(w, made, errors, extra, 0, t0, t1, &u0);
}

/* One take_until: an element, its latency recorded (into h when not NULL),
 * or the deadline. */
static inline void ho_take_one(ho_ctx *c, cb_hist *h, uint64_t *taken,
			       uint64_t *errors)
{
	const int64_t dl =
	    (int64_t)(cb_now_ns() + HO_TAKE_WAIT_NS(c->interval_ns));
	void *e = c->a->take_until(c->q, dl);
	if (e == NULL)
		return;
	const uint64_t now = cb_now_ns();
	const uint64_t stamp = cb_elem_seq(e);
	*errors += stamp <= c->last || stamp > now;
	c->last = stamp;
	if (h != NULL)
		cb_hist_record(h, now - stamp);
	(*taken)++;
}

static void ho_take(cb_worker *w)
{
	ho_ctx *const c = (ho_ctx *)w->q;
	cb_ctl *const ctl = w->ctl;
	cb_hist *const hist = w->hist;
	ho_meter m0, m1;
	ho_meter_open(c, &m0);
	m1 = m0;
	uint64_t made = 0, extra = 0, errors = 0;
	cb_rusage u0;
	cb_worker_begin(ctl, &u0);
	while (cb_ctl_catching_up(ctl))
		ho_take_one(c, NULL, &extra, &errors);
	ho_meter_read(&m0);
	const uint64_t t0 = cb_now_ns();
	do
		ho_take_one(c, hist, &made, &errors);
	while (cb_ctl_running(ctl));
	const uint64_t t1 = cb_now_ns();
	ho_meter_read(&m1);
	cb_ctl_leave(ctl);
	while (cb_ctl_warming_down(ctl))
		ho_take_one(c, NULL, &extra, &errors);
	ho_meter_store(&c->side[HO_TAKE], &m0, &m1);
	ho_meter_close(&m0);
	c->side[HO_TAKE].msgs = made;
	c->side[HO_TAKE].total = made + extra;
	c->side[HO_TAKE].errors = errors;
	cb_worker_done(w, made, 0, extra, errors, t0, t1, &u0);
}

/* ---- the workload ---- */

static double ho_per(uint64_t v, uint64_t msgs)
{
	return msgs == 0 ? 0.0 : (double)v / (double)msgs;
}

static double ho_after(cb_wl_trial *t, int measured, size_t m, char *line,
		       size_t n)
{
	ho_trial *h = (ho_trial *)t->user;
	ho_ctx *c = h->ctx;
	const ho_side *s = &c->side[HO_SEND], *k = &c->side[HO_TAKE];
	if (s->errors != 0)
		cb_wl_violation(t, "put", "%" PRIu64 " puts failed", s->errors);
	if (k->errors != 0)
		cb_wl_violation(t, "FIFO",
				"%" PRIu64 " stamps came out of order or twice",
				k->errors);
	h->sent += s->total;
	h->taken += k->total + cb_wl_leftover(t->a, c->q, h->usable);
	if (h->taken != h->sent)
		cb_wl_violation(t, "lost",
				"%" PRIu64 " elements put, %" PRIu64
				" taken or left in the queue",
				h->sent, h->taken);
	h->sent = h->taken; /* report each loss once */
	const uint64_t p50 = cb_hist_percentile(h->iter, 50);
	const uint64_t p99 = cb_hist_percentile(h->iter, 99);
	const double cpu =
	    ho_per(s->cpu_ns, s->msgs) + ho_per(k->cpu_ns, k->msgs);
	const double parks = ho_per(k->nvcsw, k->msgs);
	const double futex = ho_per(s->ev[HO_EV_FUTEX], s->msgs) +
			     ho_per(k->ev[HO_EV_FUTEX], k->msgs);
	const double sys = ho_per(s->ev[HO_EV_SYSCALLS], s->msgs) +
			   ho_per(k->ev[HO_EV_SYSCALLS], k->msgs);
	if (measured) {
		cb_hist_merge(t->hist, h->iter);
		t->sec[0][m] = (double)p99;
		t->sec[1][m] = cpu;
		t->sec[2][m] = ho_per(s->cpu_ns, s->msgs);
		t->sec[3][m] = parks;
		if (c->ev_ok) {
			t->sec[4][m] = futex;
			t->sec[5][m] = sys;
		}
	}
	if (c->ev_ok)
		snprintf(line, n,
			 "p50 %6" PRIu64 " p99 %7" PRIu64
			 " ns  cpu %6.0f ns/msg"
			 "  sleeps %.2f futex %.2f sys %.2f /msg",
			 p50, p99, cpu, parks, futex, sys);
	else
		snprintf(line, n,
			 "p50 %6" PRIu64 " p99 %7" PRIu64
			 " ns  cpu %6.0f ns/msg"
			 "  sleeps %.2f /msg",
			 p50, p99, cpu, parks);
	cb_hist_reset(h->iter);
	return (double)p50;
}

static const cb_param_def ho_params[] = {
    {"intervalUs", "100", "microseconds between messages"},
    {"qCapacity", "131072",
     "requested capacity of the bounded queues (never full here)"},
};

/* The queues to run: with blocking ends, allowing 1,1; without qType every
 * one but conq's chunk-size variants. */
static int ho_select(const cb_workload *wl, const cb_options *o,
		     const cb_adapter **ads, int max, bool quiet)
{
	int n = 0;
	if (o->nqtype == 0) {
		for (size_t k = 0; k < cb_nadapters && n < max; k++) {
			const cb_adapter *a = cb_adapters[k];
			if (a->take_until != NULL && a->put != NULL &&
			    cb_contract_allows(a->contract, 1, 1) &&
			    (!a->variant || a->kind != CB_KIND_OWN))
				ads[n++] = a;
		}
		return n;
	}
	const cb_adapter *sel[HO_MAX_QUEUES];
	int ns = quiet ? 0 : cb_wl_select_queues(wl, o, 1, sel, HO_MAX_QUEUES);
	if (quiet) {
		const cb_adapter *skipped[HO_MAX_QUEUES];
		size_t nskipped;
		ns = cb_select_adapters(o, 1, 1, sel, HO_MAX_QUEUES, skipped,
					&nskipped);
	}
	if (ns < 0)
		return -1;
	for (int k = 0; k < ns && n < max; k++) {
		if (sel[k]->take_until != NULL && sel[k]->put != NULL)
			ads[n++] = sel[k];
		else if (!quiet)
			printf("# %s: %s has no blocking ends: left out\n",
			       wl->name, sel[k]->name);
	}
	if (n == 0 && !quiet)
		fprintf(stderr,
			"conq-bench: %s: no selected queue has "
			"blocking ends (put/take_until)\n",
			wl->name);
	return n == 0 ? -1 : n;
}

static int ho_run(const cb_workload *wl, const cb_options *o, const cb_env *env,
		  cb_results *rs)
{
	uint64_t us;
	if (cb_param_u64(o, "intervalUs", &us) != 0)
		return 2;
	const uint64_t cap = cb_wl_capacity(o);
	if (us == 0 || us > 1000000 || cap == 0) {
		fprintf(stderr,
			"conq-bench: %s: intervalUs in [1, 1000000], "
			"qCapacity >= 1\n",
			wl->name);
		return 2;
	}
	const cb_adapter *ads[HO_MAX_QUEUES];
	int na = ho_select(wl, o, ads, HO_MAX_QUEUES, false);
	if (na <= 0)
		return 2;
	cb_wl_trial *t = (cb_wl_trial *)calloc((size_t)na, sizeof *t);
	ho_trial *ht = (ho_trial *)calloc((size_t)na, sizeof *ht);
	int rc = 0;
	char aff[200] = "", why[160] = "";
	bool ev_ok = false;
	if (t == NULL || ht == NULL) {
		rc = 1;
		goto out;
	}
	for (int j = 0; j < na; j++) {
		ho_trial *h = &ht[j];
		t[j].a = ads[j];
		t[j].label = ads[j]->name;
		t[j].user = h;
		t[j].after = ho_after;
		t[j].sleeps = true;
		h->ctx = (ho_ctx *)cb_alloc_aligned(sizeof *h->ctx);
		if (h->ctx == NULL) {
			rc = 1;
			goto out;
		}
		ho_ctx *c = h->ctx;
		if (j == 0)
			ev_ok = ho_counters_probe(c, why, sizeof why);
		else
			memcpy(c->ev_config, ht[0].ctx->ev_config,
			       sizeof c->ev_config);
		c->ev_ok = ev_ok;
		t[j].sec_label[0] = "p99";
		t[j].sec_unit[0] = "ns";
		t[j].sec_label[1] = "cpuPerMsg";
		t[j].sec_unit[1] = "ns/msg";
		t[j].sec_label[2] = "sendCpuPerMsg";
		t[j].sec_unit[2] = "ns/msg";
		t[j].sec_label[3] = "sleepsPerMsg";
		t[j].sec_unit[3] = "1/msg";
		t[j].sec_label[4] = "futexPerMsg";
		t[j].sec_unit[4] = "calls/msg";
		t[j].sec_label[5] = "syscallsPerMsg";
		t[j].sec_unit[5] = "calls/msg";
		if (cb_wl_trial_alloc(&t[j], o, ev_ok ? 6 : 4) != 0 ||
		    cb_wl_sample_hists(&t[j], &h->iter) != 0) {
			rc = 1;
			goto out;
		}
		c->a = ads[j];
		c->interval_ns = us * CB_NS_PER_US;
		c->q = ads[j]->create((size_t)cap, &h->usable);
		if (c->q == NULL) {
			fprintf(stderr,
				"conq-bench: %s: create(%" PRIu64 ") failed\n",
				ads[j]->name, cap);
			rc = 1;
			goto out;
		}
		const cb_role_fn roles[2] = {ho_send, ho_take};
		if (cb_wl_trial_start(&t[j], o, env, 2, roles, c, aff,
				      sizeof aff) != 0) {
			rc = 1;
			goto out;
		}
		t[j].g.w[1].hist = h->iter;
	}
	cb_wl_header(wl, o, "2 (1x \"send\" measured, 1x \"take\")", aff,
		     t[0].yield, 2, t[0].ncpus);
	printf("# Parameters: intervalUs = %" PRIu64 ", qCapacity = %" PRIu64
	       "; qType =",
	       us, cap);
	for (int j = 0; j < na; j++)
		printf("%s %s", j ? "," : "", ads[j]->name);
	printf("\n# Latency: put -> the woken take's return, every message "
	       "(two cb_now_ns() reads, %.0f ns each); CPU from "
	       "getrusage(RUSAGE_THREAD) of both threads; futex/system calls: "
	       "%s\n",
	       cb_wl_clock_cost_ns(), ev_ok ? "tracepoints" : why);
	fflush(stdout);
	cb_wl_rounds(wl, o, t, (size_t)na);
	for (int j = 0; j < na; j++) {
		cb_result *r =
		    cb_wl_result(rs, &t[j], o, HO_BENCH, "handoff", "ns");
		if (r == NULL) {
			rc = 1;
			goto out;
		}
		r->capacity = (size_t)cap;
		r->capacity_actual = ht[j].usable;
		r->producers = 1;
		r->consumers = 1;
	}
out:
	for (int j = 0; t != NULL && ht != NULL && j < na; j++) {
		cb_wl_trial_stop(&t[j]);
		if (ht[j].ctx != NULL && ht[j].ctx->q != NULL)
			t[j].a->destroy(ht[j].ctx->q);
		cb_free_aligned(ht[j].ctx);
		cb_hist_free(ht[j].iter);
	}
	free(t);
	free(ht);
	return rc;
}

static size_t ho_steps(const cb_workload *wl, const cb_options *o)
{
	const cb_adapter *ads[HO_MAX_QUEUES];
	int n = ho_select(wl, o, ads, HO_MAX_QUEUES, true);
	return ((size_t)o->wi + (size_t)o->i) * (size_t)(n > 0 ? n : 1);
}

const cb_workload cb_wl_handoff = {
    .name = "QueueHandoff",
    .group = "handoff",
    .mode = "sample",
    .unit = "ns",
    .roles = "send,take",
    .headline = "handoff",
    .desc = "blocking hand-off at one message per intervalUs: latency "
	    "from put to the woken take (histogram), CPU, sleeps, futex "
	    "and system calls per message",
    .run = ho_run,
    .modes = CB_MODE_SAMPLE,
    .params = ho_params,
    .nparams = sizeof ho_params / sizeof ho_params[0],
    .steps = ho_steps,
};
