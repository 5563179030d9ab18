/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * loops.h - the measured loops, as macros that each adapter instantiates on
 * its own static inline offer/poll (JMH generates a loop per benchmark method
 * for the same reason: no call through a pointer per operation).
 *
 *   CB_DEFINE_LOOPS(prefix, QueueType, OFFER, POLL)
 *
 * defines prefix_loops (a cb_loops), where `bool OFFER(QueueType *, void *)`
 * and `void *POLL(QueueType *)` (NULL: empty) are functions or macros the
 * compiler can inline. Elements are {producer id, sequence 1, 2, 3...} packed
 * into the pointer (cb.h; never NULL), so the checked consumer can verify
 * each producer's FIFO order for free. loops.h also compiles as C++20 (the
 * C++ peers' adapters), so they get the very same loops.
 *
 * The loops, one set per adapter: QueueThroughputBackoffNone's offer and
 * poll (plain, --check, and sampled for -bm sample), QueueBurstCost's
 * producer (plain, sampled, and single-shot for -bm ss) and consumers, and
 * the round trip's ping (plain and sampled) and links. A workload added
 * here reaches every adapter with no per-adapter code.
 */
#ifndef CB_LOOPS_H
#define CB_LOOPS_H

#include <sched.h>

#include "adapter.h"
#include "histogram.h"

/* Announce readiness, then run the op uncounted until all are ready. */
static inline void cb_ctl_enter(cb_ctl *c)
{
	/* acq_rel: pairs with the acquire loads of ready (the other workers'
	 * cb_ctl_catching_up, the control thread's wait in harness.c). */
	conq__faa_acq_rel(&c->ready, 1u);
}
static inline bool cb_ctl_catching_up(const cb_ctl *c)
{
	/* acquire: pairs with cb_ctl_enter's increments. */
	return conq__load_acquire(&c->ready) < c->nthreads;
}
/* The stop flag, read on every measured operation: relaxed (a plain load;
 * nothing is published through it). */
static inline bool cb_ctl_running(const cb_ctl *c)
{
	return conq__load_relaxed(&c->done) == 0;
}
/* -bm ss (cb_ctl.self_stop): the measured role ends the iteration itself. */
static inline void cb_ctl_stop(cb_ctl *c)
{
	/* release: as the control thread's store of done (harness.c); the
	 * workers read it relaxed (cb_ctl_running), and what they publish
	 * afterwards goes through stopped (cb_ctl_leave). */
	conq__store_release(&c->done, 1u);
}
static inline void cb_ctl_leave(cb_ctl *c)
{
	/* acq_rel: pairs with the acquire loads of stopped
	 * (cb_ctl_warming_down). */
	conq__faa_acq_rel(&c->stopped, 1u);
}
static inline bool cb_ctl_warming_down(const cb_ctl *c)
{
	/* acquire: pairs with cb_ctl_leave's increments. */
	return conq__load_acquire(&c->stopped) < c->nthreads;
}
/* A role's start: note its CPU usage so far (u0), announce readiness. */
static inline void cb_worker_begin(cb_ctl *c, cb_rusage *u0)
{
	cb_usage_read(u0);
	cb_ctl_enter(c);
}
/* A role's end: store its counts and measured window [t0, t1] in w, and its
 * CPU usage since u0 (cb_usage_store). */
static inline void cb_worker_done(cb_worker *w, uint64_t made, uint64_t failed,
				  uint64_t extra, uint64_t errors, uint64_t t0,
				  uint64_t t1, const cb_rusage *u0)
{
	w->made = made;
	w->failed = failed;
	w->extra = extra;
	w->seq_errors = errors;
	w->t_start = t0;
	w->t_stop = t1;
	cb_usage_store(w, u0);
}
/* A sample per op, one clock read each: record the time since *tp into h,
 * and make now the start of the next (the samples add up to the elapsed
 * time, the clock's cost inside each). */
static inline void cb_hist_lap(cb_hist *h, uint64_t *tp)
{
	const uint64_t tn = cb_now_ns();
	cb_hist_record(h, tn - *tp);
	*tp = tn;
}
/*
 * The measured part of a role whose op is one STEP(...) (a ping, a burst):
 * uncounted (extra) until all the threads are ready, then counted (made)
 * over [t0, t1] until the stop flag; with SAMPLE (an expression, constant
 * in the loops) each op is timed into hist, one clock read per op
 * (cb_hist_lap).
 */
#define CB_OP_LOOPS(ctl, hist, SAMPLE, made, extra, t0, t1, STEP, ...)         \
	while (cb_ctl_catching_up(ctl)) {                                      \
		STEP(__VA_ARGS__);                                             \
		(extra)++;                                                     \
	}                                                                      \
	const uint64_t t0 = cb_now_ns();                                       \
	uint64_t tp_ = t0;                                                     \
	do {                                                                   \
		STEP(__VA_ARGS__);                                             \
		(made)++;                                                      \
		if (SAMPLE)                                                    \
			cb_hist_lap(hist, &tp_);                               \
	} while (cb_ctl_running(ctl));                                         \
	const uint64_t t1 = cb_now_ns();                                       \
	cb_ctl_leave(ctl);                                                     \
	(void)tp_

/*
 * The same for -bm ss (JMH's SingleShot), with CB_OP_LOOPS' arguments: one
 * op from a cold start. No op until all the threads are ready (it only
 * waits, with the failed-op backoff: nothing warms the shot up), then
 * exactly one STEP(...) over [t0, t1], made = 1; then
 * it sets the stop flag itself (cb_ctl.self_stop: the control thread does
 * not sleep out the iteration time). hist, SAMPLE and extra are unused.
 */
#define CB_OP_SHOT(ctl, hist, SAMPLE, made, extra, t0, t1, STEP, ...)          \
	for (uint32_t wait_ = 0; cb_ctl_catching_up(ctl);)                     \
		cb_fail_backoff((ctl)->yield, &wait_);                         \
	const uint64_t t0 = cb_now_ns();                                       \
	STEP(__VA_ARGS__);                                                     \
	(made)++;                                                              \
	const uint64_t t1 = cb_now_ns();                                       \
	cb_ctl_stop(ctl);                                                      \
	cb_ctl_leave(ctl)

/*
 * The measured part of a role that answers another (a consumer, a link, an
 * echo): STEP(..., n) adds what it did to n; uncounted (extra) until all
 * the threads are ready, counted (made) over [t0, t1] until the stop flag,
 * then uncounted again while the others warm down (one may be waiting for
 * this thread's answer).
 */
#define CB_ANSWER_LOOPS(ctl, made, extra, t0, t1, STEP, ...)                   \
	while (cb_ctl_catching_up(ctl))                                        \
		STEP(__VA_ARGS__, extra);                                      \
	const uint64_t t0 = cb_now_ns();                                       \
	do {                                                                   \
		STEP(__VA_ARGS__, made);                                       \
	} while (cb_ctl_running(ctl));                                         \
	const uint64_t t1 = cb_now_ns();                                       \
	cb_ctl_leave(ctl);                                                     \
	while (cb_ctl_warming_down(ctl))                                       \
		STEP(__VA_ARGS__, extra)

/*
 * Failed-op backoff: none (BackoffNone), unless the threads outnumber the
 * CPUs (or share one under --affinity), where a thread spinning on a full or
 * empty queue would otherwise hold its CPU for a whole time slice waiting for
 * a partner that cannot run: then it calls sched_yield() after every
 * CB_YIELD_EVERY consecutive failures. The same loops serve every queue,
 * conq's and the peers', so the rule is the same for all of them.
 */
#define CB_YIELD_EVERY 256u

static inline void cb_fail_backoff(bool yield, uint32_t *run)
{
	if (CONQ__UNLIKELY(yield) && ++*run == CB_YIELD_EVERY) {
		*run = 0;
		sched_yield();
	}
}

/* Busy work of `tokens` dependent multiply-adds (JMH's
 * Blackhole.consumeCPU): the slow side of QueueThroughputSlowSide. The
 * empty asm keeps the compiler from folding the loop; it touches no
 * memory, so it costs the same next to every queue. */
static inline void cb_consume_cpu(uint32_t tokens)
{
	uint64_t x = tokens;
	for (uint32_t i = 0; i < tokens; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		__asm__ volatile("" : "+r"(x));
	}
}

/* --check: account for one polled element; returns 1 if it is out of order
 * (or belongs to no producer). With one consumer (exact), each producer's
 * elements must come in exactly in sequence; with several, each consumer
 * must see each producer's elements in increasing order (FIFO seen from one
 * consumer); exactly-once over all consumers is checked per iteration from
 * cnt and sum. */
static inline uint64_t cb_chk_take(cb_chk *k, const void *e, bool exact,
				   uint32_t nproducers)
{
	const unsigned pid = cb_elem_pid(e);
	const uint64_t s = cb_elem_seq(e);
	if (CONQ__UNLIKELY(pid >= nproducers)) {
		k->stray++;
		return 1;
	}
	const uint64_t last = k->last[pid];
	const uint64_t bad = exact ? (uint64_t)(s != last + 1)
				   : (uint64_t)(s <= last);
	k->last[pid] = s;
	k->cnt[pid]++;
	k->sum[pid] += s;
	return bad;
}

/*
 * Sampled roles (-bm sample): the measured loop times every
 * 2^CB_SAMPLE_LOG2-th call (made + failed, so the sampling does not follow
 * the queue's state) with two clock reads around it, and records the
 * duration into w->hist when that call succeeded. The clock is cb_now_ns()
 * (the vDSO clock: its own cost, ~25-50 ns on a VM, is inside every sample,
 * as in JMH's SampleTime, which times with System.nanoTime). Sampling one
 * call in 1024 keeps the clock's share of the throughput under 1 %.
 */
#ifndef CB_SAMPLE_LOG2
#define CB_SAMPLE_LOG2 10u
#endif
#define CB_SAMPLE_MASK (((uint64_t)1 << CB_SAMPLE_LOG2) - 1u)

/* QueueThroughputBackoffNone, role "offer": spin on offer. SAMPLE (a
 * constant) times every 2^CB_SAMPLE_LOG2-th call into w->hist. */
#define CB__TPT_OFFER_LOOP(FN, QT, OFFER, SAMPLE)                              \
	static void FN(cb_worker *w)                                           \
	{                                                                      \
		QT *const q = (QT *)w->q;                                      \
		cb_ctl *const ctl = w->ctl;                                    \
		cb_hist *const hist = w->hist;                                 \
		const bool yield = ctl->yield;                                 \
		uintptr_t e = cb_elem_bits(w->pid, w->seq);                    \
		const uint32_t work_ = ctl->offer_work;                        \
		uint64_t made = 0, failed = 0, extra = 0;                      \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		cb_worker_begin(ctl, &u0_);                                    \
		while (cb_ctl_catching_up(ctl)) {                              \
			if (OFFER(q, (void *)e)) {                             \
				e += CB_SEQ_ONE;                               \
				extra++;                                       \
				run = 0;                                       \
			} else {                                               \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		}                                                              \
		run = 0;                                                       \
		const uint64_t t0 = cb_now_ns();                               \
		do {                                                           \
			const bool smp_ =                                      \
				(SAMPLE) &&                                    \
				((made + failed) & CB_SAMPLE_MASK) == 0;       \
			const uint64_t s0_ = smp_ ? cb_now_ns() : 0;           \
			if (OFFER(q, (void *)e)) {                             \
				if (smp_)                                      \
					cb_hist_record(hist,                   \
						       cb_now_ns() - s0_);     \
				e += CB_SEQ_ONE;                               \
				made++;                                        \
				run = 0;                                       \
				if (work_)                                     \
					cb_consume_cpu(work_);                 \
			} else {                                               \
				failed++;                                      \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		} while (cb_ctl_running(ctl));                                 \
		const uint64_t t1 = cb_now_ns();                               \
		cb_ctl_leave(ctl);                                             \
		while (cb_ctl_warming_down(ctl)) {                             \
			if (OFFER(q, (void *)e)) {                             \
				e += CB_SEQ_ONE;                               \
				extra++;                                       \
				run = 0;                                       \
			} else {                                               \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		}                                                              \
		(void)hist;                                                    \
		w->seq = (uint64_t)(e >> CB_PID_BITS);                         \
		cb_worker_done(w, made, failed, extra, 0, t0, t1, &u0_);       \
	}

/* Role "poll": spin on poll. CHECK (a constant) accounts for every element
 * (cb_chk_take); the unchecked loop only counts. SAMPLE as above. */
#define CB__TPT_POLL_LOOP(FN, QT, POLL, CHECK, SAMPLE)                         \
	static void FN(cb_worker *w)                                           \
	{                                                                      \
		QT *const q = (QT *)w->q;                                      \
		cb_ctl *const ctl = w->ctl;                                    \
		cb_hist *const hist = w->hist;                                 \
		const bool yield = ctl->yield;                                 \
		const bool exact = ctl->exact;                                 \
		const uint32_t np = ctl->nproducers;                           \
		cb_chk *const chk = w->chk;                                    \
		const uint32_t work_ = ctl->poll_work;                         \
		uint64_t made = 0, failed = 0, extra = 0, errors = 0;          \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		cb_worker_begin(ctl, &u0_);                                    \
		while (cb_ctl_catching_up(ctl)) {                              \
			void *e_ = POLL(q);                                    \
			if (e_ != NULL) {                                      \
				extra++;                                       \
				run = 0;                                       \
				if (CHECK)                                     \
					errors += cb_chk_take(chk, e_, exact,  \
							      np);             \
			} else {                                               \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		}                                                              \
		run = 0;                                                       \
		const uint64_t t0 = cb_now_ns();                               \
		do {                                                           \
			const bool smp_ =                                      \
				(SAMPLE) &&                                    \
				((made + failed) & CB_SAMPLE_MASK) == 0;       \
			const uint64_t s0_ = smp_ ? cb_now_ns() : 0;           \
			void *e_ = POLL(q);                                    \
			if (e_ != NULL) {                                      \
				if (smp_)                                      \
					cb_hist_record(hist,                   \
						       cb_now_ns() - s0_);     \
				made++;                                        \
				run = 0;                                       \
				if (CHECK)                                     \
					errors += cb_chk_take(chk, e_, exact,  \
							      np);             \
				if (work_)                                     \
					cb_consume_cpu(work_);                 \
			} else {                                               \
				failed++;                                      \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		} while (cb_ctl_running(ctl));                                 \
		const uint64_t t1 = cb_now_ns();                               \
		cb_ctl_leave(ctl);                                             \
		while (cb_ctl_warming_down(ctl)) {                             \
			void *e_ = POLL(q);                                    \
			if (e_ != NULL) {                                      \
				extra++;                                       \
				run = 0;                                       \
				if (CHECK)                                     \
					errors += cb_chk_take(chk, e_, exact,  \
							      np);             \
			} else {                                               \
				cb_fail_backoff(yield, &run);                  \
			}                                                      \
		}                                                              \
		(void)exact;                                                   \
		(void)np;                                                      \
		(void)chk;                                                     \
		(void)hist;                                                    \
		cb_worker_done(w, made, failed, extra, errors, t0, t1, &u0_);  \
	}

/*
 * QueueBurstCost (JCTools' jmh/latency): the group's w->q is a cb_burst.
 * Role "burst" (one thread, measured; an op is one whole burst): offer
 * `burst` elements, spinning on a full queue, then spin until the
 * consumers' published counts add up to every element sent so far, i.e.
 * until the consumer of the last element has signalled it. Role "drain"
 * (the consumers): spin on poll; after each element, publish the count of
 * elements taken so far (a release store of its own counter, the lazySet
 * of JCTools' consumer). Counts and sequences persist across iterations
 * (w->seq: the producer's next sequence; cb_burst.count[k].v).
 */
typedef struct cb_padded_u64 {
	CB_ALIGNAS(CB_PAD) uint64_t v;
} cb_padded_u64;

#define CB_MAX_CONSUMERS (CB_MAX_THREADS - 1)

typedef struct cb_burst {
	CB_ALIGNAS(CB_PAD) void *q; /* the queue (read-only) */
	uint32_t burst;             /* elements per burst */
	uint32_t nconsumers;
	cb_padded_u64 count[CB_MAX_CONSUMERS]; /* written by consumer k only */
} cb_burst;

/* Elements taken by all consumers so far. */
static inline uint64_t cb_burst_taken(const cb_burst *b)
{
	uint64_t n = 0;
	for (uint32_t k = 0; k < b->nconsumers; k++)
		/* acquire: pairs with the consumer's release store of its
		 * count after it took the element. */
		n += conq__load_acquire(&b->count[k].v);
	return n;
}

/* One burst: offer b->burst elements from *e, then wait for all taken. */
#define CB__BURST_ONE(QT, OFFER, q, b, e, yield, run)                          \
	do {                                                                   \
		for (uint32_t i_ = 0; i_ < (b)->burst; i_++) {                 \
			while (!OFFER(q, (void *)(e)))                         \
				cb_fail_backoff(yield, &(run));                \
			(e) += CB_SEQ_ONE;                                     \
		}                                                              \
		const uint64_t sent_ = (uint64_t)((e) >> CB_PID_BITS) - 1u;    \
		while (cb_burst_taken(b) != sent_)                             \
			cb_fail_backoff(yield, &(run));                        \
		(run) = 0;                                                     \
	} while (0)

/* LOOPS: CB_OP_LOOPS, or CB_OP_SHOT (-bm ss: one burst per iteration).
 * SAMPLE (a constant): time every burst into w->hist, one clock read per
 * burst (each delta runs from the end of the previous burst). */
#define CB__BURST_SEND_LOOP(FN, QT, OFFER, LOOPS, SAMPLE)                      \
	static void FN(cb_worker *w)                                           \
	{                                                                      \
		cb_burst *const b = (cb_burst *)w->q;                          \
		QT *const q = (QT *)b->q;                                      \
		cb_ctl *const ctl = w->ctl;                                    \
		cb_hist *const hist = w->hist;                                 \
		const bool yield = ctl->yield;                                 \
		uintptr_t e = cb_elem_bits(w->pid, w->seq);                    \
		uint64_t made = 0, extra = 0;                                  \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		cb_worker_begin(ctl, &u0_);                                    \
		LOOPS(ctl, hist, SAMPLE, made, extra, t0, t1, CB__BURST_ONE,   \
		      QT, OFFER, q, b, e, yield, run);                         \
		/* The consumers only poll: nothing to keep going. */          \
		(void)hist;                                                    \
		w->seq = (uint64_t)(e >> CB_PID_BITS);                         \
		cb_worker_done(w, made, 0, extra, 0, t0, t1, &u0_);            \
	}

/* A burst consumer: w->pid is its consumer number k (its counter). With
 * w->chk (--check) every element is accounted for (cb_chk_take). */
#define CB__BURST_DRAIN_STEP(POLL, q, cnt, slot, chk, exact, errors, yield,   \
			     run, took)                                        \
	do {                                                                   \
		void *e_ = POLL(q);                                            \
		if (e_ != NULL) {                                              \
			if ((chk) != NULL)                                     \
				(errors) += cb_chk_take(chk, e_, exact, 1u);   \
			/* release: pairs with cb_burst_taken()'s acquire;     \
			 * the element is ours before the producer counts      \
			 * it. */                                              \
			conq__store_release(slot, ++(cnt));                    \
			(took)++;                                              \
			(run) = 0;                                             \
		} else {                                                       \
			cb_fail_backoff(yield, &(run));                        \
		}                                                              \
	} while (0)

#define CB__BURST_DRAIN_LOOP(FN, QT, POLL)                                     \
	static void FN(cb_worker *w)                                           \
	{                                                                      \
		cb_burst *const b = (cb_burst *)w->q;                          \
		QT *const q = (QT *)b->q;                                      \
		cb_ctl *const ctl = w->ctl;                                    \
		const bool yield = ctl->yield;                                 \
		const bool exact = ctl->exact;                                 \
		cb_chk *const chk = w->chk;                                    \
		uint64_t *const slot = &b->count[w->pid].v;                    \
		uint64_t cnt = conq__load_relaxed(slot); /* ours alone */      \
		uint64_t made = 0, extra = 0, errors = 0;                      \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		cb_worker_begin(ctl, &u0_);                                    \
		CB_ANSWER_LOOPS(ctl, made, extra, t0, t1,                      \
				CB__BURST_DRAIN_STEP, POLL, q, cnt, slot, chk, \
				exact, errors, yield, run);                    \
		cb_worker_done(w, made, 0, extra, errors, t0, t1, &u0_);       \
	}

/*
 * Round trip through a chain of queues (JCTools' QueueRoundTripLatency and
 * RingBurstRoundTripWithGroups): the group's w->q is a cb_chain of `len`
 * queues and `len` threads. Role "ping" (thread 0, measured; an op is one
 * round trip): offer `burst` elements to q[0], then poll `burst` elements
 * from q[len - 1], each of which must be the next of its own sequence (the
 * chain is FIFO end to end: anything else is counted in seq_errors). Role
 * "link" (thread k = 1..len-1): poll q[k - 1], offer what it got to q[k]
 * (spinning on a full queue). With SAMPLE, the ping times every round trip
 * into w->hist: one clock read per round trip (each delta runs from the end
 * of the previous round trip), so the samples add up to the elapsed time
 * and the clock's cost (cb_now_ns, once) is inside each of them.
 */
#define CB_MAX_CHAIN 16

typedef struct cb_chain {
	CB_ALIGNAS(CB_PAD) void *q[CB_MAX_CHAIN]; /* read-only */
	uint32_t len;   /* queues = threads, >= 2 */
	uint32_t burst; /* elements per round trip */
} cb_chain;

#define CB__RTT_ONE(OFFER, POLL, qin, qout, burst, e, expect, errors, ctl,     \
		    yield, run)                                                \
	do {                                                                   \
		for (uint32_t i_ = 0; i_ < (burst); i_++) {                    \
			while (!OFFER(qout, (void *)(e)))                      \
				cb_fail_backoff(yield, &(run));                \
			(e) += CB_SEQ_ONE;                                     \
		}                                                              \
		for (uint32_t i_ = 0; i_ < (burst); i_++) {                    \
			void *r_;                                              \
			while ((r_ = POLL(qin)) == NULL)                       \
				cb_fail_backoff(yield, &(run));                \
			(errors) += (uintptr_t)r_ != (expect);                 \
			(expect) = (uintptr_t)r_ + CB_SEQ_ONE;                 \
		}                                                              \
		(run) = 0;                                                     \
	} while (0)

#define CB__RTT_PING_LOOP(FN, QT, OFFER, POLL, SAMPLE)                         \
	static void FN(cb_worker *w)                                           \
	{                                                                      \
		cb_chain *const c = (cb_chain *)w->q;                          \
		QT *const qout = (QT *)c->q[0];                                \
		QT *const qin = (QT *)c->q[c->len - 1u];                       \
		const uint32_t burst = c->burst;                               \
		cb_ctl *const ctl = w->ctl;                                    \
		cb_hist *const hist = w->hist;                                 \
		const bool yield = ctl->yield;                                 \
		uintptr_t e = cb_elem_bits(w->pid, w->seq);                    \
		uintptr_t expect = e;                                          \
		uint64_t made = 0, extra = 0, errors = 0;                      \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		cb_worker_begin(ctl, &u0_);                                    \
		CB_OP_LOOPS(ctl, hist, SAMPLE, made, extra, t0, t1,            \
			    CB__RTT_ONE, OFFER, POLL, qin, qout, burst, e,     \
			    expect, errors, ctl, yield, run);                  \
		/* Every element came back: the links only forward. */         \
		(void)hist;                                                    \
		w->seq = (uint64_t)(e >> CB_PID_BITS);                         \
		cb_worker_done(w, made, 0, extra, errors, t0, t1, &u0_);       \
	}

#define CB__RTT_LINK_STEP(OFFER, POLL, qin, qout, yield, run, took)            \
	do {                                                                   \
		void *e_ = POLL(qin);                                          \
		if (e_ != NULL) {                                              \
			while (!OFFER(qout, e_))                               \
				cb_fail_backoff(yield, &(run));                \
			(took)++;                                              \
			(run) = 0;                                             \
		} else {                                                       \
			cb_fail_backoff(yield, &(run));                        \
		}                                                              \
	} while (0)

#define CB__RTT_LINK_LOOP(FN, QT, OFFER, POLL)                                 \
	static void FN(cb_worker *w)                                           \
	{                                                                      \
		cb_chain *const c = (cb_chain *)w->q;                          \
		QT *const qin = (QT *)c->q[w->index - 1u];                     \
		QT *const qout = (QT *)c->q[w->index];                         \
		cb_ctl *const ctl = w->ctl;                                    \
		const bool yield = ctl->yield;                                 \
		uint64_t made = 0, extra = 0;                                  \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		cb_worker_begin(ctl, &u0_);                                    \
		CB_ANSWER_LOOPS(ctl, made, extra, t0, t1, CB__RTT_LINK_STEP,   \
				OFFER, POLL, qin, qout, yield, run);           \
		cb_worker_done(w, made, 0, extra, 0, t0, t1, &u0_);            \
	}

/*
 * Every loop of every workload, instantiated on one adapter's inline
 * OFFER/POLL: a workload added here reaches every adapter, conq's and the
 * peers', with no per-adapter code.
 */
#define CB_DEFINE_LOOPS(PFX, QT, OFFER, POLL)                                  \
	CB__TPT_OFFER_LOOP(PFX##_tpt_offer, QT, OFFER, 0)                      \
	CB__TPT_POLL_LOOP(PFX##_tpt_poll, QT, POLL, 0, 0)                      \
	CB__TPT_POLL_LOOP(PFX##_tpt_poll_checked, QT, POLL, 1, 0)              \
	CB__TPT_OFFER_LOOP(PFX##_tpt_offer_sampled, QT, OFFER, 1)              \
	CB__TPT_POLL_LOOP(PFX##_tpt_poll_sampled, QT, POLL, 0, 1)              \
	CB__TPT_POLL_LOOP(PFX##_tpt_poll_sampled_checked, QT, POLL, 1, 1)      \
	CB__BURST_SEND_LOOP(PFX##_burst_send, QT, OFFER, CB_OP_LOOPS, 0)       \
	CB__BURST_SEND_LOOP(PFX##_burst_send_sampled, QT, OFFER, CB_OP_LOOPS,  \
			    1)                                                 \
	CB__BURST_SEND_LOOP(PFX##_burst_send_shot, QT, OFFER, CB_OP_SHOT, 0)   \
	CB__BURST_DRAIN_LOOP(PFX##_burst_drain, QT, POLL)                      \
	CB__RTT_PING_LOOP(PFX##_rtt_ping, QT, OFFER, POLL, 0)                  \
	CB__RTT_PING_LOOP(PFX##_rtt_ping_sampled, QT, OFFER, POLL, 1)          \
	CB__RTT_LINK_LOOP(PFX##_rtt_link, QT, OFFER, POLL)                     \
	static const cb_loops PFX##_loops = {                                  \
		.tpt_offer = PFX##_tpt_offer,                                  \
		.tpt_poll = PFX##_tpt_poll,                                    \
		.tpt_poll_checked = PFX##_tpt_poll_checked,                    \
		.tpt_offer_sampled = PFX##_tpt_offer_sampled,                  \
		.tpt_poll_sampled = PFX##_tpt_poll_sampled,                    \
		.tpt_poll_sampled_checked = PFX##_tpt_poll_sampled_checked,    \
		.burst_send = PFX##_burst_send,                                \
		.burst_send_sampled = PFX##_burst_send_sampled,                \
		.burst_send_shot = PFX##_burst_send_shot,                      \
		.burst_drain = PFX##_burst_drain,                              \
		.rtt_ping = PFX##_rtt_ping,                                    \
		.rtt_ping_sampled = PFX##_rtt_ping_sampled,                    \
		.rtt_link = PFX##_rtt_link,                                    \
	};

#endif /* CB_LOOPS_H */
