/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Pool: executors (issue 16), conq_pool (conq/pool.h) against GLib's
 * GThreadPool, libuv's threadpool, a mutex + condvar pool and the ceiling
 * of a bare conq queue to spinning workers (adapter_pool.c lists them, the
 * poolType values). Not a queue: like Uuid and Refcount, the contenders
 * are interleaved iteration by iteration in one process (round k runs
 * iteration k of every pool, the order rotated each round), each pool
 * created once per point with `workers` threads.
 *
 *   Pool.burst   `producers` submitter threads (default 1) each submit
 *                their share of a burst of burstTasks empty tasks (default
 *                100000 in all), then wait until all of theirs have run;
 *                again until the stop flag. Score: end-to-end tasks per us
 *                (the sum over the submitters of each one's tasks / its
 *                measured window: Mtasks/s). Secondaries: submitNs, the time
 *                in the submit calls per task (the submitter's side, the
 *                mean over the submitters); cpuPerTask, the CPU time of the
 *                whole process (getrusage(RUSAGE_SELF): the submitters, the
 *                workers, every thread) over the window per task;
 *                ctxSwitchesPerTask (ru_nvcsw + ru_nivcsw of the process);
 *                futexWakesPerTask and futexPerTask (futex(2) calls that
 *                wake, and all futex calls, of every thread: below);
 *                poolWakesPerTask, the wakes the executor counts itself
 *                (conq_pool_stats' wakes; the mutex pool's signals).
 *   Pool.sparse  one submitter, one task every intervalUs (default 200):
 *                it sleeps to an absolute CLOCK_MONOTONIC tick (timer
 *                slack 1 us) and submits a task that stamps its start; the
 *                latency is from the tick, the task's intended start, to
 *                the task's start, so that a late submitter (or a submit
 *                that blocks) is counted, not hidden (coordinated
 *                omission): a late tick is submitted at once, never
 *                skipped (unless a whole second late: counted). Score: the
 *                median start latency (ns); secondaries its p99 and p99.9
 *                (the histogram of every task; -bm sample's block prints
 *                the whole distribution), cpuPerTask, ctxSwitchesPerTask,
 *                futexWakesPerTask, futexPerTask, submitLag (the median
 *                of submit - tick: the submitter's own lateness, inside
 *                every latency), and fromSubmitP50 / P99 (the latency from
 *                the submit call instead: the pool's part alone).
 *
 * Waiting for a burst: the submitter sleeps (nanosleep, timer slack 1 us)
 * while the burst runs, for the time the rate so far says is left (2 us to
 * 1 ms at a time), then looks again: it never spins on a CPU the workers
 * need, and its few wake-ups are the same for every pool. Each task counts
 * itself done in a counter of the thread that runs it (one per runner
 * thread and submitter, written by that thread alone: no shared line, no
 * RMW), which the submitter sums. The executors run the same function,
 * given at create, on the argument of each submit: no allocation per task
 * in the benchmark. Their workers are not pinned (GLib and libuv cannot pin
 * theirs), nor, unless --affinity gives CPUs, are the submitters (a thread
 * a submitter starts, as GLib's shared pool does on a push, would inherit
 * its CPU).
 *
 * futex(2) calls are counted by the kernel: perf_event_open on the
 * tracepoint syscalls:sys_enter_futex, one counter per thread of the
 * process (inherited by the threads they start), opened before each
 * iteration and read at the lead submitter's window edges; the wakes are
 * the calls whose op is a wake (FUTEX_WAKE, _WAKE_OP, _WAKE_BITSET,
 * _REQUEUE, _CMP_REQUEUE, private or not: a tracepoint filter). They need
 * tracefs (/sys/kernel/tracing) and root or perf_event_paranoid -1; without
 * them those columns are left out, saying why, and the wake target uses the
 * pool's own count.
 *
 * Checks: every task runs exactly once (a burst's counts equal its submits;
 * each sparse task's run count is 1), nothing is lost (a burst or a task
 * not done within -to / 2 is an invariant violation: a lost wake-up), no
 * submit fails but for a full queue (EAGAIN, retried and counted).
 *
 * The report prints per point a table of the medians, the ratios of
 * conq:pool to each other pool, and, at 1 submitter and 2 workers, issue
 * 16's targets: burst tasks/s >= 5x the better of GLib's and libuv's and
 * >= 0.5x the ceiling's; CPU per task <= 0.2x GLib's and libuv's; futex
 * wakes per task <= 0.01; sparse start latency p50 and p99 no worse than
 * the best peer's; CPU per sparse task <= 1.1x the best blocking peer's.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "adapter_pool.h"
#include "report.h"
#include "stats.h"
#include "wl_contest.h"

#define PL_BURST_BENCH	  "Pool.burst"
#define PL_SPARSE_BENCH	  "Pool.sparse"
#define PL_MAX_CONTENDERS 16
#define PL_MAX_SUB	  8 /* producers */
#define PL_MAX_WORKERS	  256
/* Completion counters: a slot per (trial, submitter), a block of them per
 * runner thread. */
#define PL_MAX_SLOTS   64
#define PL_MAX_RUNNERS 256
/* Pool.sparse: tasks in flight at most (the ring of stamps). */
#define PL_RING 1024u
/* A tick this late starts the schedule again from now (counted). */
#define PL_SKIP_NS   ((uint64_t)CB_NS_PER_S)
#define PL_MAX_FDS   1024
#define PL_TAG(slot) ((void *)(uintptr_t)((slot) + 1u))

/* The futex ops that wake (linux/futex.h), private (| 128) or not. */
#define PL_WAKE_FILTER                                                         \
	"op == 1 || op == 129 || op == 3 || op == 131 || op == 4 || "          \
	"op == 132 || op == 5 || op == 133 || op == 10 || op == 138"

/* ---- completion counts: per runner thread, per slot ---------------------- */

typedef struct pl_runner {
	CB_ALIGNAS(CB_PAD) uint64_t done[PL_MAX_SLOTS];
} pl_runner;

static pl_runner pl_runners[PL_MAX_RUNNERS];
static uint32_t pl_nrunners;
/* The runners past PL_MAX_RUNNERS count here (an RMW: slower, correct). */
static pl_runner pl_overflow;
static __thread pl_runner *pl_me;
static __thread bool pl_me_none;

static pl_runner *pl_register(void)
{
	if (pl_me_none)
		return NULL;
	const uint32_t k = conq__faa_relaxed(&pl_nrunners, 1u);
	if (k >= PL_MAX_RUNNERS) {
		pl_me_none = true;
		return NULL;
	}
	pl_me = &pl_runners[k];
	return pl_me;
}

/* A task of `slot` has run (on this thread). */
static inline void pl_count(unsigned slot)
{
	pl_runner *r = pl_me;
	if (CONQ__UNLIKELY(r == NULL) && (r = pl_register()) == NULL) {
		conq__faa_release(&pl_overflow.done[slot], 1u);
		return;
	}
	/* release: pairs with pl_done's acquire (the task's effects before
	 * the submitter sees it counted). Only this thread writes it. */
	conq__store_release(&r->done[slot],
			    conq__load_relaxed(&r->done[slot]) + 1u);
}

/* The tasks of `slot` run so far, on every thread. */
static uint64_t pl_done(unsigned slot)
{
	uint32_t n = conq__load_acquire(&pl_nrunners);
	if (n > PL_MAX_RUNNERS)
		n = PL_MAX_RUNNERS;
	uint64_t sum = conq__load_acquire(&pl_overflow.done[slot]);
	for (uint32_t k = 0; k < n; k++)
		sum += conq__load_acquire(&pl_runners[k].done[slot]);
	return sum;
}

/* Pool.burst's task: count itself (its slot is its argument). */
static void pl_burst_task(void *arg)
{
	pl_count((unsigned)((uintptr_t)arg - 1u));
}

/* ---- the kernel's futex counts (tracepoints) ----------------------------- */

enum { PL_EV_FUTEX, PL_EV_WAKE, PL_NEV };

typedef struct pl_events {
	uint64_t id;	 /* syscalls:sys_enter_futex */
	bool ok[PL_NEV]; /* this counter can be opened */
	char why[200];	 /* else why not */
} pl_events;

static void pl_events_probe(pl_events *e)
{
	memset(e, 0, sizeof *e);
	if (cb_wl_tracepoint_id("syscalls/sys_enter_futex", &e->id) != 0) {
		snprintf(e->why, sizeof e->why,
			 "n/a: no tracefs (mount -t tracefs nodev "
			 "/sys/kernel/tracing, as root)");
		return;
	}
	long fd = cb_wl_tracepoint_open(e->id, 0, 1);
	if (fd < 0) {
		snprintf(e->why, sizeof e->why,
			 "n/a: perf_event_open: %s (root, or "
			 "kernel.perf_event_paranoid = -1)",
			 strerror(errno));
		return;
	}
	e->ok[PL_EV_FUTEX] = true;
	e->ok[PL_EV_WAKE] =
	    ioctl((int)fd, PERF_EVENT_IOC_SET_FILTER, PL_WAKE_FILTER) == 0;
	snprintf(e->why, sizeof e->why,
		 "tracepoint syscalls:sys_enter_futex, every thread%s",
		 e->ok[PL_EV_WAKE] ? "; wakes: a filter on its op"
				   : "; wakes n/a (the filter was refused)");
	close((int)fd);
}

/* The counters of one iteration: one per thread and event. */
typedef struct pl_fds {
	int fd[PL_MAX_FDS];
	unsigned char ev[PL_MAX_FDS];
	size_t n;
} pl_fds;

static void pl_fds_open(const pl_events *e, pl_fds *f)
{
	f->n = 0;
	if (!e->ok[PL_EV_FUTEX])
		return;
	DIR *d = opendir("/proc/self/task");
	if (d == NULL)
		return;
	for (struct dirent *de; (de = readdir(d)) != NULL;) {
		char *end;
		const long tid = strtol(de->d_name, &end, 10);
		if (end == de->d_name || *end != '\0' || tid <= 0)
			continue;
		for (unsigned k = 0; k < PL_NEV && f->n < PL_MAX_FDS; k++) {
			if (!e->ok[k])
				continue;
			long fd = cb_wl_tracepoint_open(e->id, (int)tid, 1);
			if (fd < 0)
				continue; /* it has exited */
			if (k == PL_EV_WAKE &&
			    ioctl((int)fd, PERF_EVENT_IOC_SET_FILTER,
				  PL_WAKE_FILTER) != 0) {
				close((int)fd);
				continue;
			}
			f->fd[f->n] = (int)fd;
			f->ev[f->n++] = (unsigned char)k;
		}
	}
	closedir(d);
}

static void pl_fds_close(pl_fds *f)
{
	for (size_t k = 0; k < f->n; k++)
		close(f->fd[k]);
	f->n = 0;
}

/* ---- the trials ---------------------------------------------------------- */

/* What the process used up to a window's edge. */
typedef struct pl_snap {
	uint64_t cpu_ns, csw, wakes;
	uint64_t ev[PL_NEV];
} pl_snap;

/* Pool.sparse: one task in flight. */
typedef struct pl_slot {
	CB_ALIGNAS(CB_PAD) uint64_t intended; /* its tick (ns) */
	uint64_t submitted;		      /* the submit call's start (ns) */
	uint64_t started; /* set by the task (release); 0: not yet */
	uint32_t runs;	  /* the task's runs: 1 */
	bool measured;
} pl_slot;

/* A submitter's state, its own line. */
typedef struct pl_sub {
	CB_ALIGNAS(CB_PAD) unsigned slot, index;
	uint64_t base;	    /* its slot's count when the trial began */
	uint64_t submitted; /* tasks it queued, every iteration */
	bool stuck;	    /* a burst or a task was lost: stop */
	/* The iteration's, for `after`. */
	uint64_t tasks, submit_ns, t0, t1;
	uint64_t full, errors, excess, lost, skipped, twice;
} pl_sub;

typedef struct pl_ctx {
	const cb_exec *ex;
	void *x;
	bool sparse;
	unsigned np, nw;
	uint64_t burst;	   /* tasks per submitter per burst */
	uint64_t interval; /* ns between sparse tasks */
	uint64_t wait_ns;  /* a burst or task later than this is lost */
	const pl_events *ev;
	/* The secondaries' indices, -1: not reported. */
	int s_submit, s_cpu, s_cs, s_futex, s_wake, s_pool, s_p99, s_p999,
	    s_lag, s_from50, s_from99;
	pl_snap s0, s1;	     /* the lead submitter's window edges */
	pl_slot *ring;	     /* sparse */
	uint64_t head, tail; /* slots submitted, collected */
	/* Sparse, this iteration's: start latencies from the tick, from the
	 * submit call, and the submits' lags behind their ticks. */
	cb_hist *iter, *from, *lag;
	CB_ALIGNAS(CB_PAD) uint32_t finished; /* submitters past an iteration */
	pl_sub sub[PL_MAX_SUB];
} pl_ctx;

static void pl_snap_read(pl_ctx *c, const pl_fds *f, pl_snap *s)
{
	memset(s->ev, 0, sizeof s->ev);
	for (size_t k = 0; k < f->n; k++) {
		uint64_t v = 0;
		if (read(f->fd[k], &v, sizeof v) == (ssize_t)sizeof v)
			s->ev[f->ev[k]] += v;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	s->cpu_ns = cb_wl_tv_ns(&ru.ru_utime) + cb_wl_tv_ns(&ru.ru_stime);
	s->csw = (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
	s->wakes = c->ex->wakes != NULL ? c->ex->wakes(c->x) : 0;
}

static void pl_sleep_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / CB_NS_PER_S),
			      (long)(ns % CB_NS_PER_S)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void pl_sleep_until(uint64_t t)
{
	struct timespec ts = {(time_t)(t / CB_NS_PER_S),
			      (long)(t % CB_NS_PER_S)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* A submitter's start: timer slack 1 us (its sleeps end on time), the
 * executor's begin, the lead's counters. */
static void pl_role_start(pl_ctx *c, pl_sub *s, bool lead, pl_fds *f)
{
	prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
	if (c->ex->begin != NULL)
		c->ex->begin(c->x);
	f->n = 0;
	if (lead)
		pl_fds_open(c->ev, f);
	s->tasks = s->submit_ns = 0;
	s->full = s->errors = s->excess = s->lost = s->skipped = s->twice = 0;
}

/* A submitter's end; the last one ends the executor's iteration. */
static void pl_role_end(pl_ctx *c, pl_fds *f)
{
	pl_fds_close(f);
	if (conq__faa_acq_rel(&c->finished, 1u) + 1u == c->np &&
	    c->ex->end != NULL)
		c->ex->end(c->x);
}

/* Queue one task (EAGAIN: retried, counted in s->full); 0, or the error. */
static int pl_submit(pl_ctx *c, pl_sub *s, void *arg, uint64_t since)
{
	int rc;
	while ((rc = c->ex->submit(c->x, s->index, arg)) == EAGAIN) {
		s->full++;
		if (c->ex->service != NULL)
			c->ex->service(c->x, s->index);
		if (cb_now_ns() - since > c->wait_ns)
			return EAGAIN;
		sched_yield();
	}
	return rc;
}

/* ---- Pool.burst ---------------------------------------------------------- */

/* Sleep until every task s submitted has run (the burst began at `start`,
 * when `before` had run). */
static void pl_burst_wait(pl_ctx *c, pl_sub *s, uint64_t start, uint64_t before)
{
	for (;;) {
		if (c->ex->service != NULL)
			c->ex->service(c->x, s->index);
		const uint64_t done = pl_done(s->slot) - s->base;
		if (done >= s->submitted) {
			/* More than submitted: some ran twice. */
			s->excess += done - s->submitted;
			s->base += done - s->submitted;
			return;
		}
		const uint64_t now = cb_now_ns();
		if (now - start > c->wait_ns) {
			s->lost += s->submitted - done;
			s->stuck = true;
			return;
		}
		/* The time the rate so far says is left. */
		const uint64_t left = s->submitted - done, got = done - before;
		double ns = got == 0 ? 20e3
				     : (double)left * (double)(now - start) /
					   (double)got;
		ns = ns < 2e3 ? 2e3 : ns > 1e6 ? 1e6 : ns;
		pl_sleep_ns((uint64_t)ns);
	}
}

/* One burst of submitter s, seen done: its tasks (0 once stuck); the time
 * in submit calls added to *submit_ns. */
static uint64_t pl_burst(pl_ctx *c, pl_sub *s, uint64_t *submit_ns)
{
	if (s->stuck) {
		pl_sleep_ns(100000);
		return 0;
	}
	void *const arg = PL_TAG(s->slot);
	const uint64_t before = s->submitted;
	const uint64_t a = cb_now_ns();
	uint64_t k = 0;
	for (; k < c->burst; k++) {
		const int rc = pl_submit(c, s, arg, a);
		if (rc != 0) {
			s->errors++;
			break;
		}
	}
	*submit_ns += cb_now_ns() - a;
	s->submitted += k;
	pl_burst_wait(c, s, a, before);
	return k;
}

static void pl_burst_role(cb_worker *w)
{
	pl_ctx *const c = (pl_ctx *)w->q;
	pl_sub *const s = &c->sub[w->index];
	cb_ctl *const ctl = w->ctl;
	const bool lead = w->index == 0;
	pl_fds *f = (pl_fds *)malloc(sizeof *f);
	pl_fds none = {.n = 0};
	if (f == NULL)
		f = &none;
	pl_role_start(c, s, lead && f != &none, f);
	uint64_t made = 0, extra = 0, ns = 0, junk = 0;
	cb_rusage u0;
	cb_worker_begin(ctl, &u0);
	while (cb_ctl_catching_up(ctl))
		extra += pl_burst(c, s, &junk);
	if (lead)
		pl_snap_read(c, f, &c->s0);
	const uint64_t t0 = cb_now_ns();
	do
		made += pl_burst(c, s, &ns);
	while (cb_ctl_running(ctl));
	const uint64_t t1 = cb_now_ns();
	if (lead)
		pl_snap_read(c, f, &c->s1);
	cb_ctl_leave(ctl);
	while (cb_ctl_warming_down(ctl))
		extra += pl_burst(c, s, &junk);
	s->tasks = made;
	s->submit_ns = ns;
	s->t0 = t0;
	s->t1 = t1;
	pl_role_end(c, f);
	if (f != &none)
		free(f);
	cb_worker_done(w, made, 0, extra, 0, t0, t1, &u0);
}

/* ---- Pool.sparse --------------------------------------------------------- */

static void pl_sparse_task(void *arg)
{
	pl_slot *sl = (pl_slot *)arg;
	const uint64_t now = cb_now_ns();
	conq__faa_relaxed(&sl->runs, 1u);
	/* release: pairs with pl_collect's acquire. */
	conq__store_release(&sl->started, now);
}

/* Record the tasks that have started, in submit order. */
static void pl_collect(pl_ctx *c)
{
	while (c->tail < c->head) {
		pl_slot *sl = &c->ring[c->tail % PL_RING];
		const uint64_t st = conq__load_acquire(&sl->started);
		if (st == 0)
			return;
		if (sl->measured) {
			cb_hist_record(
			    c->iter, st > sl->intended ? st - sl->intended : 0);
			cb_hist_record(c->from, st > sl->submitted
						    ? st - sl->submitted
						    : 0);
		}
		c->tail++;
	}
}

/* Wait (sleeping) until every submitted task has started, at most
 * c->wait_ns after the oldest one's tick; the rest are lost. */
static void pl_drain(pl_ctx *c, pl_sub *s)
{
	for (;;) {
		pl_collect(c);
		if (c->tail == c->head)
			return;
		if (c->ex->service != NULL)
			c->ex->service(c->x, 0);
		const pl_slot *old = &c->ring[c->tail % PL_RING];
		if (cb_now_ns() - old->intended > c->wait_ns) {
			s->lost += c->head - c->tail;
			s->stuck = true;
			return;
		}
		pl_sleep_ns(20000);
	}
}

/* One tick: sleep to it, submit its task, collect what started. */
static void pl_tick(pl_ctx *c, pl_sub *s, uint64_t *next, bool measured,
		    uint64_t *made)
{
	*next += c->interval;
	uint64_t now = cb_now_ns();
	if (*next + PL_SKIP_NS < now) {
		s->skipped += (now - *next) / c->interval;
		*next = now;
	}
	if (*next > now)
		pl_sleep_until(*next);
	if (s->stuck)
		return;
	if (c->head - c->tail == PL_RING) { /* the oldest is not started */
		pl_drain(c, s);
		if (s->stuck)
			return;
	}
	pl_slot *sl = &c->ring[c->head % PL_RING];
	if (c->head >= PL_RING && conq__load_relaxed(&sl->runs) != 1u)
		s->twice++; /* its last task ran again after it was seen */
	conq__store_relaxed(&sl->runs, 0u);
	conq__store_relaxed(&sl->started, (uint64_t)0);
	sl->intended = *next;
	sl->measured = measured;
	const uint64_t at = cb_now_ns();
	sl->submitted = at;
	if (pl_submit(c, s, sl, at) != 0) {
		s->errors++;
		return;
	}
	c->head++;
	s->submitted++;
	(*made)++;
	if (measured)
		cb_hist_record(c->lag, at > *next ? at - *next : 0);
	if (c->ex->service != NULL)
		c->ex->service(c->x, 0);
	pl_collect(c);
}

static void pl_sparse_role(cb_worker *w)
{
	pl_ctx *const c = (pl_ctx *)w->q;
	pl_sub *const s = &c->sub[0];
	cb_ctl *const ctl = w->ctl;
	pl_fds *f = (pl_fds *)malloc(sizeof *f);
	pl_fds none = {.n = 0};
	if (f == NULL)
		f = &none;
	pl_role_start(c, s, f != &none, f);
	uint64_t made = 0, extra = 0, next = cb_now_ns();
	cb_rusage u0;
	cb_worker_begin(ctl, &u0);
	while (cb_ctl_catching_up(ctl))
		pl_tick(c, s, &next, false, &extra);
	pl_snap_read(c, f, &c->s0);
	const uint64_t t0 = cb_now_ns();
	do
		pl_tick(c, s, &next, true, &made);
	while (cb_ctl_running(ctl));
	const uint64_t t1 = cb_now_ns();
	pl_snap_read(c, f, &c->s1);
	cb_ctl_leave(ctl);
	while (cb_ctl_warming_down(ctl))
		pl_tick(c, s, &next, false, &extra);
	pl_drain(c, s);
	s->tasks = made;
	s->t0 = t0;
	s->t1 = t1;
	pl_role_end(c, f);
	if (f != &none)
		free(f);
	cb_worker_done(w, made, 0, extra, 0, t0, t1, &u0);
}

/* ---- after each iteration ------------------------------------------------ */

static double pl_per(uint64_t v, uint64_t n)
{
	return n == 0 ? 0.0 : (double)v / (double)n;
}

/* The violations of an iteration, from the submitters' counts. */
static void pl_check(cb_wl_trial *t, pl_ctx *c)
{
	for (unsigned k = 0; k < c->np; k++) {
		const pl_sub *s = &c->sub[k];
		if (s->errors != 0)
			cb_wl_violation(t, "submit",
					"%" PRIu64 " submits failed (not "
					"EAGAIN, or a queue full for -to / 2)",
					s->errors);
		if (s->excess != 0 || s->twice != 0)
			cb_wl_violation(t, "twice",
					"%" PRIu64 " tasks ran more than once",
					s->excess + s->twice);
		if (s->lost != 0)
			cb_wl_violation(t, "lost",
					"%" PRIu64 " tasks not run %.1f s "
					"after their submit (a lost wake-up?)",
					s->lost, (double)c->wait_ns / 1e9);
	}
	conq__store_relaxed(&c->finished, 0u);
}

/* The futex, CPU and context-switch columns of an iteration of `tasks`. */
static void pl_sec_common(cb_wl_trial *t, pl_ctx *c, size_t m, uint64_t tasks)
{
	const pl_snap *a = &c->s0, *b = &c->s1;
	t->sec[c->s_cpu][m] = pl_per(b->cpu_ns - a->cpu_ns, tasks);
	t->sec[c->s_cs][m] = pl_per(b->csw - a->csw, tasks);
	if (c->s_futex >= 0)
		t->sec[c->s_futex][m] =
		    pl_per(b->ev[PL_EV_FUTEX] - a->ev[PL_EV_FUTEX], tasks);
	if (c->s_wake >= 0)
		t->sec[c->s_wake][m] =
		    pl_per(b->ev[PL_EV_WAKE] - a->ev[PL_EV_WAKE], tasks);
	if (c->s_pool >= 0)
		t->sec[c->s_pool][m] = pl_per(b->wakes - a->wakes, tasks);
}

static double pl_burst_after(cb_wl_trial *t, int measured, size_t m, char *line,
			     size_t n)
{
	pl_ctx *c = (pl_ctx *)t->user;
	pl_check(t, c);
	uint64_t tasks = 0, full = 0;
	double rate = 0, submit = 0;
	for (unsigned k = 0; k < c->np; k++) {
		const pl_sub *s = &c->sub[k];
		tasks += s->tasks;
		full += s->full;
		rate +=
		    (double)s->tasks * 1e3 / ((double)(s->t1 - s->t0) + 1e-9);
		submit += pl_per(s->submit_ns, s->tasks);
	}
	submit /= c->np;
	const pl_snap *a = &c->s0, *b = &c->s1;
	if (measured) {
		t->sec[c->s_submit][m] = submit;
		pl_sec_common(t, c, m, tasks);
	}
	int len = snprintf(line, n,
			   "%7.2f Mtasks/s submit %6.1f ns cpu %7.1f ns "
			   "cs %.4f",
			   rate, submit, pl_per(b->cpu_ns - a->cpu_ns, tasks),
			   pl_per(b->csw - a->csw, tasks));
	if (len > 0 && (size_t)len < n && c->s_wake >= 0)
		len += snprintf(
		    line + len, n - (size_t)len, " futexWakes %.4f",
		    pl_per(b->ev[PL_EV_WAKE] - a->ev[PL_EV_WAKE], tasks));
	if (len > 0 && (size_t)len < n && c->s_pool >= 0)
		len += snprintf(line + len, n - (size_t)len, " poolWakes %.4f",
				pl_per(b->wakes - a->wakes, tasks));
	if (len > 0 && (size_t)len < n)
		len += snprintf(line + len, n - (size_t)len, " /task");
	if (len > 0 && (size_t)len < n && full != 0)
		snprintf(line + len, n - (size_t)len, " (full %" PRIu64 "x)",
			 full);
	return rate;
}

static double pl_sparse_after(cb_wl_trial *t, int measured, size_t m,
			      char *line, size_t n)
{
	pl_ctx *c = (pl_ctx *)t->user;
	pl_check(t, c);
	const pl_sub *s = &c->sub[0];
	const uint64_t p50 = cb_hist_percentile(c->iter, 50);
	const uint64_t p99 = cb_hist_percentile(c->iter, 99);
	const uint64_t p999 = cb_hist_percentile(c->iter, 99.9);
	const uint64_t lag = cb_hist_percentile(c->lag, 50);
	const pl_snap *a = &c->s0, *b = &c->s1;
	if (measured) {
		cb_hist_merge(t->hist, c->iter);
		t->sec[c->s_p99][m] = (double)p99;
		t->sec[c->s_p999][m] = (double)p999;
		t->sec[c->s_lag][m] = (double)lag;
		t->sec[c->s_from50][m] =
		    (double)cb_hist_percentile(c->from, 50);
		t->sec[c->s_from99][m] =
		    (double)cb_hist_percentile(c->from, 99);
		pl_sec_common(t, c, m, s->tasks);
	}
	int len = snprintf(line, n,
			   "p50 %6.1f p99 %7.1f p99.9 %7.1f us lag %5.1f us "
			   "cpu %6.1f us cs %.2f",
			   (double)p50 / 1e3, (double)p99 / 1e3,
			   (double)p999 / 1e3, (double)lag / 1e3,
			   pl_per(b->cpu_ns - a->cpu_ns, s->tasks) / 1e3,
			   pl_per(b->csw - a->csw, s->tasks));
	if (len > 0 && (size_t)len < n && c->s_futex >= 0)
		len += snprintf(
		    line + len, n - (size_t)len, " futex %.2f",
		    pl_per(b->ev[PL_EV_FUTEX] - a->ev[PL_EV_FUTEX], s->tasks));
	if (len > 0 && (size_t)len < n)
		len += snprintf(line + len, n - (size_t)len, " /task");
	if (len > 0 && (size_t)len < n && s->skipped != 0)
		snprintf(line + len, n - (size_t)len,
			 " (%" PRIu64 " ticks skipped)", s->skipped);
	cb_hist_reset(c->iter);
	cb_hist_reset(c->from);
	cb_hist_reset(c->lag);
	return (double)p50;
}

/* ---- the run ------------------------------------------------------------- */

static const cb_adapter *const pl_contenders[] = {
    &cb_exec_conq_pool.a,   &cb_exec_conq_pool_naive.a,
#ifdef CB_HAVE_GLIB_POOL
    &cb_exec_glib_shared.a, &cb_exec_glib_exclusive.a,
#endif
#ifdef CB_HAVE_LIBUV
    &cb_exec_libuv.a,
#endif
    &cb_exec_mutex_pool.a,  &cb_exec_ceiling.a,
};

static const cb_exec *pl_exec_of(const cb_adapter *a)
{
	return (const cb_exec *)(const void *)a;
}

/* The secondaries of a trial: their labels, units, indices in c. */
static size_t pl_secondaries(cb_wl_trial *t, pl_ctx *c)
{
	size_t k = 0;
#define PL_SEC(IDX, LABEL, UNIT)                                               \
	do {                                                                   \
		c->IDX = (int)k;                                               \
		t->sec_label[k] = LABEL;                                       \
		t->sec_unit[k++] = UNIT;                                       \
	} while (0)
	c->s_submit = c->s_p99 = c->s_p999 = c->s_lag = -1;
	c->s_from50 = c->s_from99 = -1;
	c->s_futex = c->s_wake = c->s_pool = -1;
	if (c->sparse) {
		PL_SEC(s_p99, "p99", "ns");
		PL_SEC(s_p999, "p99.9", "ns");
	} else {
		PL_SEC(s_submit, "submitNs", "ns/task");
	}
	PL_SEC(s_cpu, "cpuPerTask", "ns/task");
	PL_SEC(s_cs, "ctxSwitchesPerTask", "1/task");
	if (c->ev->ok[PL_EV_WAKE])
		PL_SEC(s_wake, "futexWakesPerTask", "calls/task");
	if (c->ev->ok[PL_EV_FUTEX])
		PL_SEC(s_futex, "futexPerTask", "calls/task");
	if (c->sparse) {
		PL_SEC(s_lag, "submitLag", "ns");
		PL_SEC(s_from50, "fromSubmitP50", "ns");
		PL_SEC(s_from99, "fromSubmitP99", "ns");
	} else if (c->ex->wakes != NULL) {
		PL_SEC(s_pool, "poolWakesPerTask", "1/task");
	}
#undef PL_SEC
	return k;
}

typedef struct pl_point {
	bool sparse;
	uint64_t np, nw, burst, us;
} pl_point;

static int pl_point_read(const cb_workload *wl, const cb_options *o,
			 pl_point *p)
{
	memset(p, 0, sizeof *p);
	p->sparse = strcmp(wl->group, "sparse") == 0;
	p->np = 1;
	if (cb_param_u64(o, "workers", &p->nw) != 0 ||
	    (!p->sparse && (cb_param_u64(o, "producers", &p->np) != 0 ||
			    cb_param_u64(o, "burstTasks", &p->burst) != 0)) ||
	    (p->sparse && cb_param_u64(o, "intervalUs", &p->us) != 0))
		return 2;
	if (p->nw < 1 || p->nw > PL_MAX_WORKERS || p->np < 1 ||
	    p->np > PL_MAX_SUB) {
		fprintf(stderr,
			"conq-bench: %s: workers in [1, %d], producers in "
			"[1, %d]\n",
			wl->name, PL_MAX_WORKERS, PL_MAX_SUB);
		return 2;
	}
	if (!p->sparse &&
	    (p->burst < p->np || p->burst > ((uint64_t)1 << 26))) {
		fprintf(stderr,
			"conq-bench: %s: burstTasks in [producers, 2^26]\n",
			wl->name);
		return 2;
	}
	if (p->sparse && (p->us < 1 || p->us > 1000000)) {
		fprintf(stderr, "conq-bench: %s: intervalUs in [1, 1000000]\n",
			wl->name);
		return 2;
	}
	return 0;
}

static void pl_header(const cb_workload *wl, const cb_options *o,
		      const pl_point *p, const cb_wl_trial *t, size_t n,
		      const char *aff, const pl_events *ev)
{
	char threads[96];
	snprintf(threads, sizeof threads,
		 "%" PRIu64 " submitter%s measured, %" PRIu64
		 " worker%s per pool",
		 p->np, p->np == 1 ? "" : "s", p->nw, p->nw == 1 ? "" : "s");
	cb_wl_header(wl, o, threads, aff, false, (unsigned)p->np,
		     (unsigned)p->np);
	if (p->sparse)
		printf("# Parameters: workers = %" PRIu64
		       ", intervalUs = %" PRIu64 "; poolType =",
		       p->nw, p->us);
	else
		printf("# Parameters: producers = %" PRIu64
		       ", workers = %" PRIu64 ", burstTasks = %" PRIu64
		       " (%" PRIu64 " a submitter); poolType =",
		       p->np, p->nw, p->burst, p->burst / p->np);
	for (size_t k = 0; k < n; k++)
		printf("%s %s", k ? "," : "", t[k].label);
	printf(" (interleaved: %zu trials)\n", n);
	printf("# CPU and context switches: getrusage(RUSAGE_SELF), every "
	       "thread; futex calls: %s; no iteration is marked disturbed "
	       "(a woken worker preempts the submitter by design)\n",
	       ev->why);
	if (p->sparse)
		printf("# Start latency: from the tick (the intended start) to "
		       "the task's cb_now_ns(), every task (%.0f ns a clock "
		       "read)\n",
		       cb_wl_clock_cost_ns());
	fflush(stdout);
}

static int pl_run(const cb_workload *wl, const cb_options *o, const cb_env *env,
		  cb_results *rs)
{
	pl_point p;
	int rc = pl_point_read(wl, o, &p);
	if (rc != 0)
		return rc;
	const cb_adapter *sel[PL_MAX_CONTENDERS];
	const int nsel =
	    cb_select_contenders(wl, o, sel, PL_MAX_CONTENDERS, false);
	if (nsel < 0)
		return 2;
	if ((uint64_t)nsel * p.np > PL_MAX_SLOTS) {
		fprintf(stderr,
			"conq-bench: %s: at most %d pools x producers\n",
			wl->name, PL_MAX_SLOTS);
		return 2;
	}
	pl_events ev;
	pl_events_probe(&ev);
	/* The submitters are pinned only as --affinity lists. */
	cb_options oo = *o;
	if (oo.affinity == CB_AFF_AUTO)
		oo.affinity = CB_AFF_NONE;
	cb_wl_trial *t = (cb_wl_trial *)calloc((size_t)nsel, sizeof *t);
	pl_ctx **cs = (pl_ctx **)calloc((size_t)nsel, sizeof *cs);
	size_t n = 0;
	char aff[200] = "", why[200];
	rc = 0;
	if (t == NULL || cs == NULL) {
		rc = 1;
		goto out;
	}
	for (int j = 0; j < nsel; j++) {
		const cb_exec *ex = pl_exec_of(sel[j]);
		pl_ctx *c = (pl_ctx *)cb_alloc_aligned(sizeof *c);
		if (c == NULL) {
			rc = 1;
			goto out;
		}
		c->ex = ex;
		c->sparse = p.sparse;
		c->np = (unsigned)p.np;
		c->nw = (unsigned)p.nw;
		c->burst = p.burst / p.np;
		c->interval = p.us * CB_NS_PER_US;
		c->wait_ns = o->timeout_ns / 2 > CB_NS_PER_S ? o->timeout_ns / 2
							     : CB_NS_PER_S;
		c->ev = &ev;
		const cb_exec_cfg cfg = {
		    .workers = c->nw,
		    .submitters = c->np,
		    .capacity = p.sparse ? PL_RING : c->burst * c->np,
		    .fn = p.sparse ? pl_sparse_task : pl_burst_task,
		};
		why[0] = '\0';
		c->x = ex->create(&cfg, why, sizeof why);
		if (c->x == NULL) {
			printf("# %s.%s: %s left out: %s\n", wl->name,
			       wl->group, ex->a.name, why);
			cb_free_aligned(c);
			continue;
		}
		cs[n] = c;
		cb_wl_trial *tr = &t[n++];
		for (unsigned k = 0; k < c->np; k++) {
			pl_sub *s = &c->sub[k];
			s->index = k;
			s->slot = (unsigned)(n - 1) * c->np + k;
			s->base = pl_done(s->slot);
		}
		tr->label = ex->a.name;
		tr->user = c;
		tr->after = p.sparse ? pl_sparse_after : pl_burst_after;
		tr->sleeps = true;
		tr->no_disturbance = true;
		if (p.sparse) {
			c->ring = (pl_slot *)cb_alloc_aligned(PL_RING *
							      sizeof *c->ring);
			c->iter = cb_hist_new();
			c->from = cb_hist_new();
			c->lag = cb_hist_new();
			tr->hist = cb_hist_new();
			if (c->ring == NULL || c->iter == NULL ||
			    c->from == NULL || c->lag == NULL ||
			    tr->hist == NULL) {
				rc = 1;
				goto out;
			}
		}
		if (cb_wl_trial_alloc(tr, o, pl_secondaries(tr, c)) != 0) {
			rc = 1;
			goto out;
		}
		cb_role_fn roles[PL_MAX_SUB];
		for (unsigned k = 0; k < c->np; k++)
			roles[k] = p.sparse ? pl_sparse_role : pl_burst_role;
		if (cb_wl_trial_start(tr, &oo, env, c->np, roles, c, aff,
				      sizeof aff) != 0) {
			rc = 1;
			goto out;
		}
	}
	if (n == 0) {
		fprintf(stderr, "conq-bench: %s.%s: no pool could start\n",
			wl->name, wl->group);
		rc = 2;
		goto out;
	}
	if (o->affinity == CB_AFF_AUTO)
		snprintf(aff, sizeof aff,
			 "not pinned, nor are the pools' workers (a thread a "
			 "pinned submitter starts, as GLib's shared pool does, "
			 "would inherit its CPU); --affinity CPU,... pins the "
			 "submitters");
	pl_header(wl, o, &p, t, n, aff, &ev);
	cb_wl_rounds(wl, o, t, n);
	for (size_t j = 0; j < n; j++) {
		cb_result *r = cb_wl_result(
		    rs, &t[j], o, p.sparse ? PL_SPARSE_BENCH : PL_BURST_BENCH,
		    p.sparse ? "start" : "burst", p.sparse ? "ns" : "ops/us");
		if (r == NULL) {
			rc = 1;
			goto out;
		}
		r->adapter = &cs[j]->ex->a;
		r->capacity = 0;
		r->producers = cs[j]->np;
		r->consumers = cs[j]->nw;
	}
out:
	for (size_t j = 0; t != NULL && cs != NULL && j < n; j++) {
		cb_wl_trial_stop(&t[j]);
		pl_ctx *c = cs[j];
		if (c == NULL)
			continue;
		if (c->x != NULL)
			c->ex->destroy(c->x);
		cb_free_aligned(c->ring);
		cb_hist_free(c->iter);
		cb_hist_free(c->from);
		cb_hist_free(c->lag);
		cb_free_aligned(c);
	}
	free(t);
	free(cs);
	return rc;
}

static size_t pl_steps(const cb_workload *wl, const cb_options *o)
{
	const cb_adapter *c[PL_MAX_CONTENDERS];
	const int n = cb_select_contenders(wl, o, c, PL_MAX_CONTENDERS, true);
	return (size_t)(n > 0 ? n : 1) * ((size_t)o->wi + (size_t)o->i);
}

/* ---- the report ---------------------------------------------------------- */

static int pl_is(const cb_result *r, const char *bench)
{
	return r->adapter != NULL && r->primary.n > 0 &&
	       strcmp(r->benchmark, bench) == 0;
}

/* The secondary `label` of r, NULL if it has none. */
static const cb_series *pl_sec(const cb_result *r, const char *label)
{
	for (size_t k = 0; k < r->nsecondary; k++)
		if (strcmp(r->secondary[k].label, label) == 0)
			return &r->secondary[k];
	return NULL;
}

static double pl_med(const cb_result *r, const char *label)
{
	const cb_series *s = label == NULL ? &r->primary : pl_sec(r, label);
	return s != NULL ? cb_median(s->v, s->n) : NAN;
}

/* The result of pool `name` at r0's point, NULL if it did not run. */
static const cb_result *pl_find(const cb_results *rs, const cb_result *r0,
				const char *name)
{
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		if (pl_is(r, r0->benchmark) && strcmp(r->mode, r0->mode) == 0 &&
		    strcmp(r->adapter->name, name) == 0 &&
		    cb_result_same_params(r, r0))
			return r;
	}
	return NULL;
}

/* The first result of r0's point (its table is printed once). */
static int pl_first_of_point(const cb_results *rs, size_t k0)
{
	const cb_result *r0 = &rs->r[k0];
	for (size_t k = 0; k < k0; k++)
		if (pl_is(&rs->r[k], r0->benchmark) &&
		    strcmp(rs->r[k].mode, r0->mode) == 0 &&
		    cb_result_same_params(&rs->r[k], r0))
			return 0;
	return 1;
}

static void pl_cell(FILE *f, double v, int w, int prec)
{
	if (isnan(v))
		fprintf(f, " %*s", w, "n/a");
	else
		fprintf(f, " %*.*f", w, prec, v);
}

static void pl_table(FILE *f, const cb_results *rs, size_t k0)
{
	const cb_result *r0 = &rs->r[k0];
	const bool sparse = strcmp(r0->benchmark, PL_SPARSE_BENCH) == 0;
	char pbuf[160];
	cb_result_params(r0, pbuf, sizeof pbuf);
	if (sparse)
		fprintf(f,
			"\n%s %s: medians of the iterations; start latency "
			"from the tick (p50, p99, p99.9) and from the "
			"submit call (sub50, sub99), the submit's lag behind "
			"its tick, CPU in us per task:\n  %-28s %7s %7s "
			"%7s %7s %7s %7s %7s %6s %6s\n",
			r0->benchmark, pbuf, "poolType", "p50", "p99", "p99.9",
			"sub50", "sub99", "lag", "cpu", "cs", "futex");
	else
		fprintf(f,
			"\n%s %s: medians of the iterations; ns and calls "
			"per task:\n  %-28s %9s %8s %9s %8s %10s %8s "
			"%9s\n",
			r0->benchmark, pbuf, "poolType", "Mtasks/s", "submit",
			"cpu", "cs", "futexWake", "futex", "poolWake");
	for (size_t k = k0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		if (!pl_is(r, r0->benchmark) || strcmp(r->mode, r0->mode) ||
		    !cb_result_same_params(r, r0))
			continue;
		fprintf(f, "  %-28s", r->adapter->name);
		if (sparse) {
			pl_cell(f, pl_med(r, NULL) / 1e3, 7, 1);
			pl_cell(f, pl_med(r, "p99") / 1e3, 7, 1);
			pl_cell(f, pl_med(r, "p99.9") / 1e3, 7, 1);
			pl_cell(f, pl_med(r, "fromSubmitP50") / 1e3, 7, 1);
			pl_cell(f, pl_med(r, "fromSubmitP99") / 1e3, 7, 1);
			pl_cell(f, pl_med(r, "submitLag") / 1e3, 7, 1);
			pl_cell(f, pl_med(r, "cpuPerTask") / 1e3, 7, 1);
			pl_cell(f, pl_med(r, "ctxSwitchesPerTask"), 6, 2);
			pl_cell(f, pl_med(r, "futexPerTask"), 6, 2);
		} else {
			pl_cell(f, pl_med(r, NULL), 9, 2);
			pl_cell(f, pl_med(r, "submitNs"), 8, 1);
			pl_cell(f, pl_med(r, "cpuPerTask"), 9, 1);
			pl_cell(f, pl_med(r, "ctxSwitchesPerTask"), 8, 4);
			pl_cell(f, pl_med(r, "futexWakesPerTask"), 10, 4);
			pl_cell(f, pl_med(r, "futexPerTask"), 8, 4);
			pl_cell(f, pl_med(r, "poolWakesPerTask"), 9, 4);
		}
		fprintf(f, "\n");
	}
	/* conq:pool against each other pool: its primary (rate, or p50). */
	const cb_result *cq = pl_find(rs, r0, "conq:pool");
	if (cq == NULL)
		return;
	fprintf(f,
		"  ratios of conq:pool's %s to each pool's, per round "
		"(%s):\n",
		sparse ? "p50 start latency" : "tasks/s",
		sparse ? "< 1x: conq's starts sooner"
		       : "> 1x: conq's is faster");
	for (size_t k = k0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		if (r == cq || !pl_is(r, r0->benchmark) ||
		    strcmp(r->mode, r0->mode) || !cb_result_same_params(r, r0))
			continue;
		char lhs[160];
		snprintf(lhs, sizeof lhs,
			 "  conq:pool / %s:", r->adapter->name);
		cb_report_ratio_line(f, lhs, cq, r);
	}
}

/* Per round, the best (the largest when `most`, else the smallest) of
 * metric `label` (NULL: the primary) over the results peers[0..np). */
typedef struct pl_best {
	double *v;
	unsigned char *dis;
	size_t n;
} pl_best;

static int pl_best_of(const cb_result *const *peers, size_t np,
		      const char *label, bool most, size_t n, pl_best *b)
{
	b->v = (double *)calloc(n ? n : 1, sizeof *b->v);
	b->dis = (unsigned char *)calloc(n ? n : 1, 1);
	b->n = n;
	if (b->v == NULL || b->dis == NULL)
		return -1;
	for (size_t k = 0; k < n; k++) {
		double best = NAN;
		for (size_t j = 0; j < np; j++) {
			const cb_series *s = label == NULL
						 ? &peers[j]->primary
						 : pl_sec(peers[j], label);
			if (s == NULL || k >= s->n)
				continue;
			const double v = s->v[k];
			if (isnan(best) || (most ? v > best : v < best))
				best = v;
			if (peers[j]->disturbed != NULL &&
			    peers[j]->disturbed[k])
				b->dis[k] = 1;
		}
		b->v[k] = best;
	}
	return 0;
}

static void pl_best_free(pl_best *b)
{
	free(b->v);
	free(b->dis);
}

/* A target on conq:pool's `label` (NULL: primary) against the per-round
 * best of peers; the verdict and the ratios' line. */
static void pl_target(FILE *f, const char *what, const cb_result *cq,
		      const cb_result *const *peers, size_t np,
		      const char *label, bool most, double min, double max,
		      bool noise)
{
	if (np == 0) {
		fprintf(f, "  %s: n/a (none of them ran)\n", what);
		return;
	}
	const cb_series *a = label == NULL ? &cq->primary : pl_sec(cq, label);
	if (a == NULL) {
		fprintf(f, "  %s: n/a (not measured)\n", what);
		return;
	}
	size_t n = a->n;
	for (size_t j = 0; j < np; j++)
		if (peers[j]->primary.n < n)
			n = peers[j]->primary.n;
	pl_best b;
	if (pl_best_of(peers, np, label, most, n, &b) == 0) {
		const cb_wl_pair p = {a->v, b.v, n, cq->disturbed, b.dis};
		cb_wl_contest_target(f, what, min, max, noise, p);
	}
	pl_best_free(&b);
}

/* The peers (GLib's and libuv's) of r0's point; how many. */
static size_t pl_peers(const cb_results *rs, const cb_result *r0,
		       const cb_result **out, size_t max)
{
	size_t n = 0;
	for (size_t k = 0; k < rs->n && n < max; k++) {
		const cb_result *r = &rs->r[k];
		if (pl_is(r, r0->benchmark) && strcmp(r->mode, r0->mode) == 0 &&
		    cb_result_same_params(r, r0) &&
		    r->adapter->kind == CB_KIND_PEER)
			out[n++] = r;
	}
	return n;
}

/* Issue 16's targets at r0's point (conq:pool's result), if it is one of
 * 1 submitter and 2 workers. */
static void pl_targets(FILE *f, const cb_results *rs, const cb_result *cq,
		       int *header)
{
	const bool sparse = strcmp(cq->benchmark, PL_SPARSE_BENCH) == 0;
	if (cq->producers != 1 || cq->consumers != 2)
		return;
	const cb_result *peers[PL_MAX_CONTENDERS];
	const size_t np = pl_peers(rs, cq, peers, PL_MAX_CONTENDERS);
	if (!*header)
		fprintf(f, "\nIssue 16's targets, 1 submitter and 2 workers, "
			   "same run (the verdict on the median of the "
			   "per-round ratios; peers: GLib's and libuv's "
			   "pools, the best of them each round):\n");
	*header = 1;
	char what[256], pbuf[160];
	cb_result_params(cq, pbuf, sizeof pbuf);
	if (!sparse) {
		snprintf(what, sizeof what,
			 "%s %s conq:pool / best peer, tasks/s >= 5x",
			 cq->benchmark, pbuf);
		pl_target(f, what, cq, peers, np, NULL, true, 5, INFINITY,
			  false);
		const cb_result *ceil =
		    pl_find(rs, cq, "ceiling:spin_mpmc_value");
		snprintf(what, sizeof what,
			 "%s conq:pool / ceiling:spin_mpmc_value, tasks/s "
			 ">= 0.5x",
			 cq->benchmark);
		pl_target(f, what, cq, &ceil, ceil != NULL, NULL, true, 0.5,
			  INFINITY, false);
		cpu_set_t set;
		const int cpus = sched_getaffinity(0, sizeof set, &set) == 0
				     ? CPU_COUNT(&set)
				     : 0;
		if (ceil != NULL && cpus > 0 &&
		    cq->producers + cq->consumers > (unsigned)cpus)
			fprintf(f,
				"  (%u submitter and %u spinning workers on %d "
				"CPUs: the ceiling's workers share the CPUs "
				"with the submitter, which they slow down; "
				"it is a ceiling only with a CPU each)\n",
				cq->producers, cq->consumers, cpus);
		snprintf(what, sizeof what,
			 "%s conq:pool / the cheapest peer, CPU per task "
			 "<= 0.2x",
			 cq->benchmark);
		pl_target(f, what, cq, peers, np, "cpuPerTask", false,
			  -INFINITY, 0.2, false);
		/* An absolute bound: the kernel's count, else the pool's. */
		const char *lab = pl_sec(cq, "futexWakesPerTask") != NULL
				      ? "futexWakesPerTask"
				      : "poolWakesPerTask";
		const cb_series *w = pl_sec(cq, lab);
		if (w != NULL) {
			const double med = cb_median(w->v, w->n);
			fprintf(f,
				"  %s conq:pool futex wakes per task <= 0.01 "
				"(%s): %s (median %.5f)\n",
				cq->benchmark,
				strcmp(lab, "futexWakesPerTask") == 0
				    ? "the kernel's count, every thread"
				    : "the pool's own count: no tracepoints",
				med <= 0.01 ? "met" : "NOT MET", med);
		}
		return;
	}
	snprintf(what, sizeof what,
		 "%s %s conq:pool / best peer, start latency p50 <= 1x (or "
		 "1x within the IQR)",
		 cq->benchmark, pbuf);
	pl_target(f, what, cq, peers, np, NULL, false, -INFINITY, 1, true);
	snprintf(what, sizeof what,
		 "%s conq:pool / best peer, start latency p99 <= 1x (or 1x "
		 "within the IQR)",
		 cq->benchmark);
	pl_target(f, what, cq, peers, np, "p99", false, -INFINITY, 1, true);
	snprintf(what, sizeof what,
		 "%s conq:pool / the cheapest peer, CPU per task <= 1.1x",
		 cq->benchmark);
	pl_target(f, what, cq, peers, np, "cpuPerTask", false, -INFINITY, 1.1,
		  false);
}

static void pl_report(FILE *f, const cb_results *rs)
{
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		if ((pl_is(r, PL_BURST_BENCH) || pl_is(r, PL_SPARSE_BENCH)) &&
		    pl_first_of_point(rs, k))
			pl_table(f, rs, k);
	}
	int header = 0;
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		if ((pl_is(r, PL_BURST_BENCH) || pl_is(r, PL_SPARSE_BENCH)) &&
		    strcmp(r->adapter->name, "conq:pool") == 0)
			pl_targets(f, rs, r, &header);
	}
}

static const cb_param_def pl_burst_params[] = {
    {"poolType", "*",
     "the pools, names or globs (conq:*, glib:*, libuv:*, baseline:*, "
     "ceiling:*; below)"},
    {"producers", "1", "submitter threads (1..8)"},
    {"workers", "2", "worker threads of each pool"},
    {"burstTasks", "100000",
     "tasks of a burst, all submitters together (each its share)"},
};

static const cb_param_def pl_sparse_params[] = {
    {"poolType", "*",
     "the pools, names or globs (conq:*, glib:*, libuv:*, baseline:*, "
     "ceiling:*; below)"},
    {"workers", "2", "worker threads of each pool"},
    {"intervalUs", "200", "microseconds between tasks (absolute ticks)"},
};

const cb_workload cb_wl_pool_burst = {
    .name = "Pool",
    .group = "burst",
    .mode = "thrpt",
    .unit = "ops/us",
    .roles = "submit",
    .headline = "burst",
    .desc = "executors: a burst of empty tasks from `producers` "
	    "submitters, waited for; end-to-end tasks/us, submit ns, "
	    "CPU, context switches and futex calls per task (conq_pool, "
	    "GLib, libuv, a mutex pool, the spinning ceiling)",
    .run = pl_run,
    .modes = CB_MODE_THRPT,
    .params = pl_burst_params,
    .nparams = sizeof pl_burst_params / sizeof pl_burst_params[0],
    .steps = pl_steps,
    .report = pl_report,
    .interleaved = "poolType",
    .contender_param = "poolType",
    .contenders = pl_contenders,
    .ncontenders = sizeof pl_contenders / sizeof pl_contenders[0],
};

const cb_workload cb_wl_pool_sparse = {
    .name = "Pool",
    .group = "sparse",
    .mode = "sample",
    .unit = "ns",
    .roles = "submit",
    .headline = "start",
    .desc = "executors: one task every intervalUs to an idle pool; start "
	    "latency from the intended tick (p50, p99, p99.9), CPU, "
	    "context switches and futex calls per task",
    .run = pl_run,
    .modes = CB_MODE_SAMPLE,
    .params = pl_sparse_params,
    .nparams = sizeof pl_sparse_params / sizeof pl_sparse_params[0],
    .steps = pl_steps,
    .interleaved = "poolType",
    .contender_param = "poolType",
    .contenders = pl_contenders,
    .ncontenders = sizeof pl_contenders / sizeof pl_contenders[0],
};
