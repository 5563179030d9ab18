/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stress/pool_tests.c - conq-stress tests of conq/pool.h through its real
 * code: the park/wake race of the wake token (docs/memory-model.md, "The
 * pool's wake token": PK1-PK5), the token's promise of few wakes, and the
 * strand's hand-over ([ST1]/[ST2]). Unlike the other groups, the thing under
 * test is not built into each state: one pool (or strand) per test lives as
 * long as the test's child process, created at the first init, and each
 * state is one round of the race against it. The single actor of the pool
 * tests is the submitter; the other side of the race is the pool's workers,
 * pinned away from the submitter's CPU (on a 2-CPU machine both on the
 * other CPU; a pinned submitter that spin-waits would otherwise get the
 * woken worker placed on its own CPU by the scheduler, which serialises
 * the race).
 *
 *   pool.lost_wakeup.1w      a pool of 1 worker, spin_ns 0. Each round: wait
 *                            a delay, submit one task, wait until it ran
 *                            (2 s watchdog). The previous task's end starts
 *                            the worker's park path (find, search, [PK1],
 *                            membarrier, re-check [PK2], futex wait); the
 *                            delay is drawn at every scale from 0 to 20 us
 *                            in ns steps (uniform below 2^j ns, j = 8..12,
 *                            or one time in 8 uniform over 0-20 us), so
 *                            that the submit lands in every phase of that
 *                            path. The table says where it landed (from
 *                            conq_pool_stats: the park and wake counts read
 *                            inside the previous task, before and after the
 *                            submit and inside the task): before the worker
 *                            counted itself out, after, or during the
 *                            submit; and whether the wake came inside the
 *                            submit call or only after it returned (the
 *                            parker's re-check saw the task that the
 *                            submit's read of the state word had missed:
 *                            the race the re-check exists for; a canary on
 *                            x86-64). FORBIDDEN: a task not run within 2 s
 *                            (a lost wake-up: the round, the pool's stats
 *                            and threads on stderr), a refused submit, and
 *                            after the round (the arbiter: wait_idle, then
 *                            conq_pool_stats) submitted != completed;
 *   pool.lost_wakeup.2w      the same with 2 workers: the last worker to park
 *                            races the submit while the other sleeps;
 *   pool.lost_wakeup.2w.pair 2 workers, two tasks submitted back to back per
 *                            round: the token (the second submit sees the
 *                            first one's woken worker searching) and the
 *                            ramp-up (the searcher that finds work wakes
 *                            another) race the parkers;
 *   pool.ramp_up.2w          2 workers, from an idle pool: submit T1, wait
 *                            1-64 us (the woken worker's wake-up, its
 *                            conq__pool_found: the ramp-up), submit T2; T1
 *                            waits up to 20 ms for T2 to start beside it.
 *                            The table counts the rounds where T1 gave up
 *                            with T2's submit returned, a worker parked and
 *                            no wake since: the ramp-up missed T2, which
 *                            then waits for T1 to end (a deadlock, were T1
 *                            to wait for it without a bound). FORBIDDEN
 *                            (it was 0.2 % of rounds with membarrier
 *                            before [PK6]: the submit's relaxed read [PK5]
 *                            and the searcher's look after its RMW [PK7]
 *                            were not ordered);
 *   pool.wake_token.searching 2 workers, the default policy: bursts of 64
 *                            submits, back to back or 0-2 us apart, each
 *                            from an idle pool (both workers parked), then
 *                            wait until all ran. The table counts the wakes
 *                            of each burst (conq_pool_stats): about 2 per
 *                            back-to-back burst; 16 or more while the
 *                            submitter never left its CPU is INTERESTING
 *                            (a figure: see the rows). FORBIDDEN: a burst
 *                            that ran from an idle pool without a wake, a
 *                            lost task;
 *   pool.wake_token.every    the contrast: the same bursts with
 *                            CONQ_POOL_WAKE_EVERY (wake on every submit that
 *                            finds a worker parked); its table forbids only
 *                            lost tasks and a burst without a wake;
 *   pool.strand_handover.2t, .4t
 *                            one strand on a pool of 2 workers; 2 or 4
 *                            actors each submit 1 or 2 tasks to it per round
 *                            (after a 0-4 us delay) and wait until they ran,
 *                            so the strand goes idle and is re-scheduled
 *                            again and again: every round races a submit's
 *                            [ST1] (the 0 -> 1 that schedules the runner)
 *                            against the runner's last [ST2]. Each task
 *                            checks, with an atomic in-flight flag, that no
 *                            other task of the strand runs beside it, and
 *                            that its submitter's tasks run in submit order.
 *                            The table says how many runner activations the
 *                            round's tasks took (the pool's submitted count,
 *                            read inside each task, names its activation).
 *                            FORBIDDEN: an overlap, an order violation, a
 *                            task run twice or never (2 s watchdog), a
 *                            refused submit, counts not equal when idle.
 *
 * And a planted bug the lost-wakeup table must catch (CS_EXPLICIT, run by
 * ctest stress_pool_bug_caught, which expects the failure):
 *
 *   selfcheck.pool.no_recheck pool.lost_wakeup.1w's actor and table on a
 *                            tiny pool-like executor of this file (one
 *                            worker, a ring, the same park protocol with
 *                            the submitter's read a seq_cst RMW, as [PK5'])
 *                            whose parker does not look at the queue again
 *                            after counting itself out ([PK2] removed). A
 *                            submit between the worker's last look and its
 *                            [PK1] reads "not parked" and wakes nobody; the
 *                            worker sleeps with the task queued; the
 *                            watchdog reports the hang. Built with
 *                            -DPT_MINI_RECHECK, the same executor passes.
 *
 * CONQ_EVENTCOUNT_RMW=1 in the environment runs the pools in the mode
 * without membarrier (the submitter's read of the state word an RMW,
 * [PK5']): ctest runs every test in both modes, and the tests' note says
 * which one ran.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"

#include "conq/eventcount.h"
#include "conq/impl/atomic.h"
#include "conq/pool.h"

/* How long a task may stay unrun before the test calls it lost. */
#ifdef CONQ_STRESS_SANITIZED
#define PT_HANG_NS  INT64_C(10000000000)
#define PT_HANG_TXT "10 s"
#else
#define PT_HANG_NS  INT64_C(2000000000)
#define PT_HANG_TXT "2 s"
#endif

/* ---- common: the CPUs, the executors, waiting ---- */

/* The process's CPUs, saved at start-up: inside a test the actors are
 * pinned, and a pool created from a pinned thread would inherit the pin. */
static cpu_set_t pt_cpus;

__attribute__((constructor)) static void pt_save_cpus(void)
{
	if (sched_getaffinity(0, sizeof pt_cpus, &pt_cpus) != 0)
		CPU_ZERO(&pt_cpus);
}

/* The process's CPUs other than `away` (all of them if none is left). */
static unsigned pt_cpus_but(int away, int *out, unsigned max)
{
	unsigned n = 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET((size_t)c, &pt_cpus) && c != away)
			out[n++] = c;
	if (n == 0 && away >= 0 && max > 0)
		out[n++] = away;
	return n;
}

static uint64_t pt_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint64_t pt_seed(const void *salt)
{
	uint64_t s = (uint64_t)conq_now_ns() ^ ((uint64_t)getpid() << 32) ^
		     (uint64_t)(uintptr_t)salt;
	return pt_rand(&s);
}

/* Busy-wait `ns` nanoseconds (the submit's phase; no sleep, whose
 * granularity is tens of microseconds). */
static void pt_delay(uint64_t ns)
{
	if (ns == 0)
		return;
	int64_t until = conq_now_ns() + (int64_t)ns;
	while (conq_now_ns() < until)
		conq__cpu_relax();
}

/* A delay from 0 to 20 us in ns steps, at every scale: one time in 8
 * uniform over 0-20 us (the worker asleep in the futex, on a fast
 * machine), else uniform below 2^j ns, j = 8..12 (256 ns to 4 us: here the
 * worker's park path, from the previous task's end to its futex wait,
 * takes 1-3 us). Each scale gets the same share of rounds, so the sweep
 * finds the path's phases on a slower machine too, and few rounds pay for
 * waking a worker that is fast asleep. */
static uint64_t pt_sweep(uint64_t *rng)
{
	uint64_t x = pt_rand(rng);
	if ((x & 7) == 0)
		return (x >> 8) % 20001;
	unsigned j = 8 + (unsigned)((x >> 3) % 5);
	return (x >> 16) & ((UINT64_C(1) << j) - 1);
}

/* Wait until *w >= want (acquire), spinning `tight` pauses, then pausing
 * with a yield every 64 (the waiter may share a CPU with a worker). false:
 * the watchdog expired. */
static bool pt_wait(const uint32_t *w, uint32_t want, unsigned tight)
{
	unsigned spins = 0;
	int64_t t0 = 0;
	/* acquire: pairs with the tasks' release adds; what they wrote is
	 * ours to read afterwards. */
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < want) {
		if (++spins < tight || spins % 64 != 0) {
			conq__cpu_relax();
			continue;
		}
		int64_t now = conq_now_ns();
		if (t0 == 0)
			t0 = now;
		else if (now - t0 > PT_HANG_NS)
			return false;
		sched_yield();
	}
	return true;
}

/* ---- the planted bug: a pool-like executor without the re-check ---- */

#define MINI_CAP 64u

/* One worker, a ring from one submitter, the pool's park protocol: the
 * worker that finds nothing counts itself out under a lock ([PK1], a
 * seq_cst RMW) and sleeps on a futex word of its own; the submitter stores
 * the task, reads the parked flag with a seq_cst RMW ([PK5'], as the pool
 * without membarrier) and, if set, clears it, sets the worker's word and
 * wakes it. What is missing is the parker's look at the ring after [PK1]
 * ([PK2]): with it, either the submitter's RMW sees the flag or the look
 * sees the task (-DPT_MINI_RECHECK puts it back). */
struct mini {
	conq_task ring[MINI_CAP];
	uint64_t tail; /* the submitter's: release store */
	uint64_t submitted, wakes;
	CS_LINE_GAP(g0);
	uint64_t head; /* the worker's: release store */
	uint64_t completed, parks;
	CS_LINE_GAP(g1);
	uint32_t parked;
	CS_LINE_GAP(g2);
	uint32_t notified;
	pthread_mutex_t lock;
};

static void pt_futex_wait(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, NULL, NULL,
		0);
}

static void pt_futex_wake(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL,
		0);
}

/* Under the lock: wake the worker if it is counted out. */
static void mini_wake(struct mini *m)
{
	pthread_mutex_lock(&m->lock);
	if (__atomic_load_n(&m->parked, __ATOMIC_RELAXED)) {
		__atomic_store_n(&m->parked, 0u, __ATOMIC_SEQ_CST);
		__atomic_store_n(&m->wakes, m->wakes + 1, __ATOMIC_RELAXED);
		/* release: pairs with the worker's acquire load. */
		__atomic_store_n(&m->notified, 1u, __ATOMIC_RELEASE);
		pt_futex_wake(&m->notified);
	}
	pthread_mutex_unlock(&m->lock);
}

#ifdef PT_MINI_RECHECK
static bool mini_has_work(struct mini *m)
{
	return __atomic_load_n(&m->head, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&m->tail, __ATOMIC_ACQUIRE);
}
#endif

static void *mini_main(void *arg)
{
	struct mini *m = arg;
	for (;;) {
		uint64_t h = m->head;
		/* acquire: pairs with the submitter's release of tail. */
		if (h != __atomic_load_n(&m->tail, __ATOMIC_ACQUIRE)) {
			conq_task t = m->ring[h % MINI_CAP];
			__atomic_store_n(&m->head, h + 1, __ATOMIC_RELEASE);
			t.fn(t.arg);
			__atomic_store_n(&m->completed, m->completed + 1,
					 __ATOMIC_RELEASE);
			continue;
		}
		pthread_mutex_lock(&m->lock);
		(void)__atomic_exchange_n(&m->parked, 1u, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&m->lock);
		__atomic_store_n(&m->parks, m->parks + 1, __ATOMIC_RELAXED);
#ifdef PT_MINI_RECHECK
		if (mini_has_work(m))
			mini_wake(m); /* [PK2] */
#endif
		while (!__atomic_load_n(&m->notified, __ATOMIC_ACQUIRE))
			pt_futex_wait(&m->notified);
		__atomic_store_n(&m->notified, 0u, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int mini_submit(struct mini *m, conq_task_fn fn, void *arg)
{
	uint64_t t = m->tail;
	if (t - __atomic_load_n(&m->head, __ATOMIC_ACQUIRE) == MINI_CAP)
		return EAGAIN;
	m->ring[t % MINI_CAP] = (conq_task){fn, arg};
	__atomic_store_n(&m->tail, t + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&m->submitted, m->submitted + 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&m->parked, 0u, __ATOMIC_SEQ_CST) != 0)
		mini_wake(m);
	return 0;
}

/* ---- the executor under test, and its creation ---- */

struct pt_exec {
	conq_pool *pool; /* the real pool, or NULL */
	conq_strand *strand;
	struct mini *mini; /* the planted bug, or NULL */
	unsigned workers;
};

static int pt_submit(struct pt_exec *e, conq_task_fn fn, void *arg)
{
	if (e->mini != NULL)
		return mini_submit(e->mini, fn, arg);
	return conq_pool_submit(e->pool, fn, arg);
}

static void pt_stats(struct pt_exec *e, conq_pool_stats *st)
{
	if (e->mini == NULL) {
		conq_pool_stats_get(e->pool, st);
		return;
	}
	struct mini *m = e->mini;
	memset(st, 0, sizeof *st);
	st->submitted = __atomic_load_n(&m->submitted, __ATOMIC_RELAXED);
	st->completed = __atomic_load_n(&m->completed, __ATOMIC_ACQUIRE);
	st->wakes = __atomic_load_n(&m->wakes, __ATOMIC_RELAXED);
	st->parks = __atomic_load_n(&m->parks, __ATOMIC_RELAXED);
}

/* After a round: wait until everything submitted has run (the pool's own
 * wait_idle), then compare the counts. 1: equal. */
static int64_t pt_idle_ok(struct pt_exec *e)
{
	conq_pool_stats st;
	if (e->mini != NULL) {
		int64_t t0 = conq_now_ns();
		do
			pt_stats(e, &st);
		while (st.completed != st.submitted &&
		       conq_now_ns() - t0 < PT_HANG_NS);
		return st.completed == st.submitted;
	}
	if (e->strand != NULL && conq_strand_wait_idle(e->strand) != 0)
		return 0;
	if (conq_pool_wait_idle(e->pool) != 0)
		return 0;
	pt_stats(e, &st);
	return st.submitted == st.completed;
}

struct pt_make {
	struct pt_exec *e;
	unsigned workers, wake;
	int away;  /* pin the workers off this CPU; -1: leave them free */
	bool mini; /* the planted bug instead of a pool */
	bool strand;
	int err;
};

static void *pt_make_main(void *arg)
{
	struct pt_make *mk = arg;
	struct pt_exec *e = mk->e;
	int cpus[64];
	unsigned ncpus = mk->away >= 0 ? pt_cpus_but(mk->away, cpus, 64) : 0;
	e->workers = mk->workers;
	if (mk->mini) {
		struct mini *m = calloc(1, sizeof *m);
		pthread_t th;
		pthread_attr_t attr;
		if (m == NULL) {
			mk->err = ENOMEM;
			return NULL;
		}
		pthread_mutex_init(&m->lock, NULL);
		pthread_attr_init(&attr);
		if (ncpus > 0) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET((size_t)cpus[0], &set);
			pthread_attr_setaffinity_np(&attr, sizeof set, &set);
		}
		mk->err = pthread_create(&th, &attr, mini_main, m);
		pthread_attr_destroy(&attr);
		if (mk->err == 0) {
			pthread_setname_np(th, "stressmini");
			pthread_detach(th);
			e->mini = m;
		}
		return NULL;
	}
	conq_pool_opts o = {.threads = mk->workers,
			    .spin_ns = 0,
			    .wake = mk->wake,
			    .name = "stresspool",
			    .cpus = cpus,
			    .ncpus = ncpus};
	e->pool = conq_pool_create(&o);
	if (e->pool == NULL) {
		mk->err = errno;
		return NULL;
	}
	if (mk->strand) {
		e->strand = conq_strand_create(e->pool, 0);
		if (e->strand == NULL)
			mk->err = errno;
	}
	return NULL;
}

/* Create the executor on a thread that may use every CPU of the process
 * (conq_pool_create checks its CPU list against the caller's affinity). */
static int pt_make(struct pt_make *mk)
{
	pthread_attr_t attr;
	pthread_t th;
	pthread_attr_init(&attr);
	if (CPU_COUNT(&pt_cpus) > 0)
		pthread_attr_setaffinity_np(&attr, sizeof pt_cpus, &pt_cpus);
	int rc = pthread_create(&th, &attr, pt_make_main, mk);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		return rc;
	pthread_join(th, NULL);
	return mk->err;
}

/* Wait (bounded) until every worker is parked. parks - wakes counts the
 * workers pushed on the sleepers' stack and not popped since, or fewer (a
 * worker counts its park after the push, so a pop may be counted first:
 * the difference can even be negative), provided the parks are read before
 * the wakes: the stats' loads are relaxed, so the parks come from the
 * previous read, a fence before this one. The result is then never above
 * the number of sleepers at the fence. 1: they are (*st: this read). */
static int64_t pt_wait_parked(struct pt_exec *e, conq_pool_stats *st,
			      int64_t limit_ns)
{
	int64_t t0 = 0;
	pt_stats(e, st);
	for (unsigned spins = 0;; spins++) {
		uint64_t parks = st->parks;
		for (int i = 0; i < 32; i++)
			conq__cpu_relax();
		CS_FENCE(__ATOMIC_SEQ_CST);
		pt_stats(e, st);
		if ((int64_t)(parks - st->wakes) >= (int64_t)e->workers)
			return 1;
		if (spins % 64 != 63)
			continue;
		int64_t now = conq_now_ns();
		if (t0 == 0)
			t0 = now;
		else if (now - t0 > limit_ns)
			return 0;
		sched_yield();
	}
}

/* What every test keeps for the life of its child process. */
struct pt_ctx {
	uint32_t ready;
	uint32_t wedged; /* a task was lost: the executor is not used again */
	int err;	 /* creating it failed */
	struct pt_exec e;
	uint64_t rounds;
	uint64_t rng;
	conq_pool_stats prev; /* the previous round's, read in its task */
	/* The strand tests: per role (actor index), the next sequence number
	 * and a random stream; per role, the last sequence number that ran
	 * (read and written by the strand's tasks only). */
	int64_t next_seq[CS_MAX_ACTORS];
	uint64_t rngs[CS_MAX_ACTORS];
	CS_LINE_GAP(g0);
	int64_t last_seq[CS_MAX_ACTORS];
	CS_LINE_GAP(g1);
	uint32_t inflight;
};

struct pt_param {
	const char *name;
	struct pt_ctx *ctx;
	unsigned workers;
	unsigned wake;	 /* enum conq_pool_wake */
	unsigned ntasks; /* lost_wakeup: tasks per round */
	bool mini;
	bool strand;
};

static pthread_mutex_t pt_make_lock = PTHREAD_MUTEX_INITIALIZER;

/* The test's executor, created by the first init (from an actor: the
 * lost-wakeup and wake-token tests pin the workers off its CPU). */
static struct pt_ctx *pt_ctx_get(const struct cs_test *t)
{
	const struct pt_param *prm = t->param;
	struct pt_ctx *c = prm->ctx;
	/* acquire: pairs with the release below. */
	if (__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE))
		return c;
	pthread_mutex_lock(&pt_make_lock);
	if (!c->ready) {
		struct pt_make mk = {.e = &c->e,
				     .workers = prm->workers,
				     .wake = prm->wake,
				     .away = prm->strand ? -1 : sched_getcpu(),
				     .mini = prm->mini,
				     .strand = prm->strand};
		c->err = pt_make(&mk);
		if (c->err != 0) {
			fprintf(stderr,
				"conq-stress: %s: cannot create the "
				"executor: %s\n",
				prm->name, strerror(c->err));
			c->wedged = 1;
		} else if (!prm->strand) {
			pt_wait_parked(&c->e, &c->prev, PT_HANG_NS);
		}
		c->rng = pt_seed(c);
		for (unsigned i = 0; i < CS_MAX_ACTORS; i++)
			c->rngs[i] = pt_seed(&c->rngs[i]);
		__atomic_store_n(&c->ready, 1u, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&pt_make_lock);
	return c;
}

/* Read a small /proc file into buf (NUL-terminated, trailing newline cut). */
static void pt_read_small(const char *path, char *buf, size_t n)
{
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return;
	size_t got = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[got] = '\0';
	if (got > 0 && buf[got - 1] == '\n')
		buf[got - 1] = '\0';
}

/* The executor's threads (named "stresspool-<i>" or "stressmini"): their
 * scheduler state and wait channel (S and a futex wait: asleep, a lost
 * wake-up; R: runnable, starved of CPU by a loaded machine). */
static void pt_print_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	if (d == NULL)
		return;
	for (struct dirent *de; (de = readdir(d)) != NULL;) {
		char path[320], comm[32], stat[256], wchan[64];
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%s/comm",
			 de->d_name);
		pt_read_small(path, comm, sizeof comm);
		if (strncmp(comm, "stress", 6) != 0)
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%s/stat",
			 de->d_name);
		pt_read_small(path, stat, sizeof stat);
		snprintf(path, sizeof path, "/proc/self/task/%s/wchan",
			 de->d_name);
		pt_read_small(path, wchan, sizeof wchan);
		const char *st = strrchr(stat, ')');
		fprintf(stderr, "; %s (tid %s): state %c%s%s", comm, de->d_name,
			st != NULL && st[1] == ' ' ? st[2] : '?',
			wchan[0] && strcmp(wchan, "0") ? ", in " : "", wchan);
	}
	closedir(d);
}

/* A task not run within the watchdog: say so on stderr, with the
 * executor's stats and threads, then watch it for as long again: a task
 * that runs late was starved of CPU (still FORBIDDEN: the promise is a
 * prompt run), one that never runs was lost, and the executor is not used
 * again (later rounds: "wedged"). *w >= want is the task's "ran". */
static void pt_report_hang(const struct pt_param *prm, struct pt_ctx *c,
			   const char *what, uint64_t round, const uint32_t *w,
			   uint32_t want)
{
	conq_pool_stats st;
	pt_stats(&c->e, &st);
	fprintf(stderr,
		"conq-stress: %s: round %" PRIu64
		": %s not run within " PT_HANG_TXT "; stats: submitted %" PRIu64
		", completed %" PRIu64 ", wakes %" PRIu64 ", parks %" PRIu64
		", steals %" PRIu64,
		prm->name, round, what, st.submitted, st.completed, st.wakes,
		st.parks, st.steals);
	pt_print_threads();
	fprintf(stderr, "\n");
	int64_t t0 = conq_now_ns();
	if (pt_wait(w, want, 0)) {
		fprintf(stderr,
			"conq-stress: %s: round %" PRIu64 ": it ran %" PRId64
			" ms later (a starved worker, not a lost wake-up)\n",
			prm->name, round, (conq_now_ns() - t0) / 1000000);
		return;
	}
	fprintf(stderr,
		"conq-stress: %s: round %" PRIu64 ": still not run " PT_HANG_TXT
		" later: a lost wake-up\n",
		prm->name, round);
	__atomic_store_n(&c->wedged, 1u, __ATOMIC_RELAXED);
}

/* CONQ_EVENTCOUNT_RMW=1: the pools run without membarrier. */
static bool pt_rmw_mode(void)
{
	const char *env = getenv("CONQ_EVENTCOUNT_RMW");
	return env != NULL && env[0] == '1';
}

static const char *pt_mode_note(void)
{
	if (pt_rmw_mode())
		return "CONQ_EVENTCOUNT_RMW=1: the pool without membarrier (a "
		       "submit reads the state word with an RMW, [PK5'])";
	return "the pool with membarrier where the kernel has it (a submit "
	       "reads the state word with a relaxed load, [PK5]); "
	       "CONQ_EVENTCOUNT_RMW=1 runs the RMW mode";
}

/* ---- pool.lost_wakeup.* ----
 * r[0] where the submit landed: 0 the task was taken before any worker
 * counted itself out (still in the previous task's tail, or searching),
 * 1 a worker had counted itself out before the submit (its park count was
 * visible), 2 a worker counted itself out during the submit; 7 refused,
 * 8 not run (the executor wedged by an earlier hang), 9 hang.
 * r[1] the wake: 0 none, 1 inside the submit call, 2 only after the submit
 * returned, 3 before the submit (a late wake of an earlier round).
 * r[2] after the round: submitted == completed (1), not (0), not checked
 * (2: wedged).
 * r[3] a hang: the round; r[4] a hang: tasks submitted and not completed. */

enum { LW_REFUSED = 7, LW_WEDGED = 8, LW_HANG = 9 };

struct lw_state {
	const struct pt_param *prm;
	uint32_t started, ran;
	conq_pool_stats in_task; /* read by the round's first task */
	CS_LINE_GAP(g);
};

static void lw_init(void *st, const struct cs_test *t, uint64_t k)
{
	(void)k;
	struct lw_state *s = st;
	s->prm = t->param;
	pt_ctx_get(t);
}

static void lw_task(void *arg)
{
	struct lw_state *s = arg;
	if (__atomic_fetch_add(&s->started, 1u, __ATOMIC_RELAXED) == 0)
		pt_stats(&s->prm->ctx->e, &s->in_task);
	/* release: the stats above to the submitter's acquire. */
	__atomic_fetch_add(&s->ran, 1u, __ATOMIC_RELEASE);
}

CS_ACTOR(lw_submitter, struct lw_state, s, r)
{
	const struct pt_param *prm = s->prm;
	struct pt_ctx *c = prm->ctx;
	uint64_t round = c->rounds++;
	if (__atomic_load_n(&c->wedged, __ATOMIC_RELAXED)) {
		r[0] = LW_WEDGED;
		return;
	}
	pt_delay(pt_sweep(&c->rng));
	conq_pool_stats a, b;
	pt_stats(&c->e, &a);
	for (unsigned i = 0; i < prm->ntasks; i++)
		if (pt_submit(&c->e, lw_task, s) != 0) {
			r[0] = LW_REFUSED;
			return;
		}
	pt_stats(&c->e, &b);
	if (!pt_wait(&s->ran, prm->ntasks, 4096)) {
		conq_pool_stats st;
		pt_stats(&c->e, &st);
		r[0] = LW_HANG;
		r[3] = (int64_t)round;
		r[4] = (int64_t)(st.submitted - st.completed);
		pt_report_hang(prm, c, "a task", round, &s->ran, prm->ntasks);
		if (!__atomic_load_n(&c->wedged, __ATOMIC_RELAXED))
			c->prev = s->in_task; /* it ran late */
		return;
	}
	const conq_pool_stats *p = &c->prev, *t = &s->in_task;
	if (t->parks == p->parks)
		r[0] = 0;
	else
		r[0] = a.parks != p->parks ? 1 : 2;
	if (t->wakes == p->wakes)
		r[1] = 0;
	else if (b.wakes != a.wakes)
		r[1] = 1;
	else if (t->wakes != b.wakes)
		r[1] = 2;
	else
		r[1] = 3;
	c->prev = *t;
}

CS_ARBITER(lw_arb, struct lw_state, s, r)
{
	struct pt_ctx *c = s->prm->ctx;
	if (r[0] >= LW_REFUSED || __atomic_load_n(&c->wedged, __ATOMIC_RELAXED))
		r[2] = 2;
	else
		r[2] = pt_idle_ok(&c->e);
}

#define LW_RNAMES "parked, woken, idle ok, hung at, queued"

#define LW_BAD_ROWS                                                            \
	{"9, *, *, *, *", CS_FORBIDDEN, 0,                                     \
	 "a task not run within " PT_HANG_TXT ": a lost wake-up (hung at: "    \
	 "the round; queued: tasks not completed; stats on stderr)"},          \
	    {"8, *, *, *, *", CS_FORBIDDEN, 0,                                 \
	     "not run: the executor was wedged by an earlier hang"},           \
	    {"7, *, *, *, *", CS_FORBIDDEN, 0, "a submit refused"},            \
	{                                                                      \
		"*, *, 0, *, *", CS_FORBIDDEN, 0,                              \
		    "after the round, submitted != completed (wait_idle, "     \
		    "stats)"                                                   \
	}

/* Rounds before a hang are checked for idle no more (2): still graded. */
#define LW_ROWS_1W(canary)                                                     \
	CS_OUTCOMES(                                                           \
	    LW_BAD_ROWS,                                                       \
	    {"0, 0, 1..2, 0, 0", CS_ACCEPTABLE, 0,                             \
	     "taken before the worker counted itself out (the previous "       \
	     "task's tail, or searching): no park, no wake"},                  \
	    {"1, 1, 1..2, 0, 0", CS_ACCEPTABLE, 0,                             \
	     "the worker had counted itself out: woken inside the submit "     \
	     "(by it, or by the parker's re-check beside it)"},                \
	    {"2, 1, 1..2, 0, 0", CS_ACCEPTABLE, 0,                             \
	     "the worker counted itself out during the submit; woken inside "  \
	     "the submit"},                                                    \
	    {"2, 2, 1..2, 0, 0", CS_ACCEPTABLE, canary,                        \
	     "it counted itself out during the submit, which returned "        \
	     "without a wake: the parker's re-check [PK2] saw the task and "   \
	     "woke itself"},                                                   \
	    {"1, 2, 1..2, 0, 0", CS_ACCEPTABLE, 0,                             \
	     "counted out before the submit, woken after it returned: the "    \
	     "re-check's wake, beside the submit's read"},                     \
	    {"*, *, 1..2, 0, 0", CS_ACCEPTABLE, 0,                             \
	     "other interleavings (a late wake of an earlier round)"})

#define LW_ROWS_2W                                                             \
	CS_OUTCOMES(                                                           \
	    LW_BAD_ROWS,                                                       \
	    {"0, 0, 1..2, 0, 0", CS_ACCEPTABLE, 0,                             \
	     "taken by a worker that had not counted itself out: no park, no " \
	     "wake"},                                                          \
	    {"0, 1, 1..2, 0, 0", CS_ACCEPTABLE, 0,                             \
	     "no worker counted itself out since the previous task, yet the "  \
	     "submit woke one: the other, parked before, since the running "   \
	     "one was not searching (a wake whenever nobody searches)"},       \
	    {"1, 0, 1..2, 0, 0", CS_ACCEPTABLE, 0,                             \
	     "a worker counted itself out before the submit; the other one, "  \
	     "awake, took the task: no wake"},                                 \
	    {"1..2, 1, 1..2, 0, 0", CS_ACCEPTABLE, 0,                          \
	     "a worker counted itself out before (1) or during (2) the "       \
	     "submit; a wake inside the submit"},                              \
	    {"1..2, 2, 1..2, 0, 0", CS_ACCEPTABLE, 0,                          \
	     "a worker counted itself out before (1) or during (2) the "       \
	     "submit; the wake came after it returned: a parker's re-check "   \
	     "[PK2], or a searcher's ramp-up (the token seen by the submit)"}, \
	    {"*, *, 1..2, 0, 0", CS_ACCEPTABLE, 0,                             \
	     "other interleavings (the other worker woken; a late wake of an " \
	     "earlier round)"})

static struct pt_ctx lw1_ctx, lw2_ctx, lw2p_ctx, lwbug_ctx;

static const struct pt_param lw1_prm = {
    .name = "pool.lost_wakeup.1w", .ctx = &lw1_ctx, .workers = 1, .ntasks = 1};
static const struct pt_param lw2_prm = {
    .name = "pool.lost_wakeup.2w", .ctx = &lw2_ctx, .workers = 2, .ntasks = 1};
static const struct pt_param lw2p_prm = {.name = "pool.lost_wakeup.2w.pair",
					 .ctx = &lw2p_ctx,
					 .workers = 2,
					 .ntasks = 2};
static const struct pt_param lwbug_prm = {.name = "selfcheck.pool.no_recheck",
					  .ctx = &lwbug_ctx,
					  .workers = 1,
					  .ntasks = 1,
					  .mini = true};

#define LW_COMMON                                                              \
	.init = lw_init, .arbiter = lw_arb, .nresults = 5,                     \
	.rnames = LW_RNAMES, .epoch_states = 1024, CS_STATE(struct lw_state),  \
	CS_ACTORS(lw_submitter)

#define LW_DESC_SWEEP                                                          \
	"delay 0-20 us (every scale, ns steps), submit, wait until it ran "    \
	"(" PT_HANG_TXT " watchdog)"

/* The note (which mode the pool runs in) is known at run time only: these
 * tests are filled in by a constructor. */
static struct cs_test lw_tests[] = {
    {.name = "pool.lost_wakeup.1w",
     .desc = "1 worker, spin_ns 0: " LW_DESC_SWEEP,
     .ref = "PK1, PK2, PK5",
     .param = &lw1_prm,
     LW_COMMON,
     LW_ROWS_1W(CS_ON_X86_64)},
    {.name = "pool.lost_wakeup.2w",
     .desc = "2 workers, spin_ns 0: " LW_DESC_SWEEP,
     .ref = "PK1, PK2, PK5",
     .param = &lw2_prm,
     LW_COMMON,
     LW_ROWS_2W},
    {.name = "pool.lost_wakeup.2w.pair",
     .desc = "2 workers, spin_ns 0: delay 0-20 us, submit two tasks back "
	     "to back, wait until both ran (" PT_HANG_TXT " watchdog)",
     .ref = "PK1, PK2, PK5, the token and the ramp-up",
     .param = &lw2p_prm,
     LW_COMMON,
     LW_ROWS_2W},
    {.name = "selfcheck.pool.no_recheck",
     .desc = "planted bug: pool.lost_wakeup.1w on a pool-like executor "
	     "whose parker does not re-check the queue after counting itself "
	     "out ([PK2] removed): must fail",
     .ref = "PK2",
     .param = &lwbug_prm,
     LW_COMMON,
     .flags = CS_EXPLICIT,
     .note = "the executor is stress/pool_tests.c's struct mini, not "
	     "conq_pool",
     LW_ROWS_1W(0)},
};

/* ---- pool.ramp_up.2w ----
 * 2 workers, from an idle pool: submit T1, wait a delay at every scale up
 * to 64 us (the woken worker's wake-up: its found() is the ramp-up), submit
 * T2. T1 waits (up to 20 ms) for T2 to start, which only the other worker
 * can do. r[0] 1: T2 started while T1 waited; 0: T1 gave up. r[1] 1: when
 * it gave up, T2's submit had returned, no wake had come since, and a
 * worker was parked: nothing would run T2 before T1 ended (a missed
 * ramp-up). r[2] 1: both ran; 0: one not within the watchdog (hang); 2 a
 * submit refused; 3 not run (wedged). */

#define RU_WAIT_NS INT64_C(20000000)

struct ru_state {
	const struct pt_param *prm;
	uint32_t t2_started, t2_submitted, ran;
	uint64_t wakes_after_submit; /* the submitter's, before t2_submitted */
	int64_t gave_up, missed;     /* T1's */
	CS_LINE_GAP(g);
};

static void ru_init(void *st, const struct cs_test *t, uint64_t k)
{
	(void)k;
	struct ru_state *s = st;
	s->prm = t->param;
	pt_ctx_get(t);
}

static void ru_t1(void *arg)
{
	struct ru_state *s = arg;
	struct pt_exec *e = &s->prm->ctx->e;
	int64_t t0 = conq_now_ns();
	unsigned spins = 0;
	/* acquire: pairs with T2's release. */
	while (!__atomic_load_n(&s->t2_started, __ATOMIC_ACQUIRE)) {
		conq__cpu_relax();
		if (++spins % 64 != 0 || conq_now_ns() - t0 < RU_WAIT_NS)
			continue;
		s->gave_up = 1;
		/* acquire: pairs with the submitter's release after T2's
		 * submit returned (and its read of the wakes). */
		if (__atomic_load_n(&s->t2_submitted, __ATOMIC_ACQUIRE)) {
			conq_pool_stats a, b;
			pt_stats(e, &a);
			CS_FENCE(__ATOMIC_SEQ_CST);
			pt_stats(e, &b);
			s->missed =
			    b.wakes == s->wakes_after_submit &&
			    (int64_t)(a.parks - b.wakes) >= 1 &&
			    !__atomic_load_n(&s->t2_started, __ATOMIC_ACQUIRE);
		}
		break;
	}
	__atomic_fetch_add(&s->ran, 1u, __ATOMIC_RELEASE);
}

static void ru_t2(void *arg)
{
	struct ru_state *s = arg;
	__atomic_store_n(&s->t2_started, 1u, __ATOMIC_RELEASE);
	__atomic_fetch_add(&s->ran, 1u, __ATOMIC_RELEASE);
}

CS_ACTOR(ru_submitter, struct ru_state, s, r)
{
	const struct pt_param *prm = s->prm;
	struct pt_ctx *c = prm->ctx;
	uint64_t round = c->rounds++;
	if (__atomic_load_n(&c->wedged, __ATOMIC_RELAXED)) {
		r[2] = 3;
		return;
	}
	conq_pool_stats st;
	pt_wait_parked(&c->e, &st, 20000000);
	uint64_t x = pt_rand(&c->rng);
	unsigned j = 10 + (unsigned)(x % 7); /* 1 us .. 64 us */
	if (pt_submit(&c->e, ru_t1, s) != 0) {
		r[2] = 2;
		return;
	}
	pt_delay((x >> 8) & ((UINT64_C(1) << j) - 1));
	if (pt_submit(&c->e, ru_t2, s) != 0) {
		r[2] = 2; /* T1 gives up after 20 ms; the state is not reused
			   * before the epoch's end */
		return;
	}
	pt_stats(&c->e, &st);
	s->wakes_after_submit = st.wakes;
	__atomic_store_n(&s->t2_submitted, 1u, __ATOMIC_RELEASE);
	if (!pt_wait(&s->ran, 2, 4096)) {
		r[2] = 0;
		pt_report_hang(prm, c, "a task of the pair", round, &s->ran, 2);
		return;
	}
	r[0] = !s->gave_up;
	r[1] = s->missed;
	r[2] = 1;
}

static struct pt_ctx ru_ctx;
static const struct pt_param ru_prm = {
    .name = "pool.ramp_up.2w", .ctx = &ru_ctx, .workers = 2};

#define RU_MISSED                                                              \
	"T2 sat queued behind T1 for 20 ms, a worker parked and no wake "      \
	"coming: the ramp-up missed it"

#define RU_ROWS(grade, desc)                                                   \
	{"0, 1, 1", grade, 0, desc},                                           \
	    {"*, *, 0", CS_FORBIDDEN, 0,                                       \
	     "a task not run within " PT_HANG_TXT " (stats on stderr)"},       \
	    {"*, *, 2..3", CS_FORBIDDEN, 0,                                    \
	     "a submit refused, or the pool wedged by an earlier hang"},       \
	    {"1, 0, 1", CS_ACCEPTABLE, 0,                                      \
	     "T2 ran beside T1 (the submit or the ramp-up woke the other "     \
	     "worker)"},                                                       \
	    {"0, 0, 1", CS_ACCEPTABLE, 0,                                      \
	     "T1 gave up after 20 ms with a wake on its way (a slow worker)"},

/* With membarrier the submit's read of the state word [PK5] is a plain load
 * after its queue store, and the searcher's look for more work in
 * conq__pool_found follows its own RMW but no heavy fence: store buffering
 * let both miss (the submit saw the searcher and relied on it, the
 * searcher did not see the task) in about 0.2 % of rounds here, until the
 * submit re-read the word with an RMW when it shows a searcher and a
 * worker parked ([PK6], ordered with the searcher's [PK7]). Without
 * membarrier the submit's read is an RMW already [PK5']. */
static const struct cs_outcome ru_rows[] = {
    RU_ROWS(CS_FORBIDDEN, RU_MISSED " ([PK6]/[PK7], or [PK5'] without "
				    "membarrier, order the submit and the "
				    "searcher's look)")};

static struct cs_test ru_tests[] = {
    {.name = "pool.ramp_up.2w",
     .desc = "2 workers, from an idle pool: submit T1, delay 1-64 us, "
	     "submit T2; T1 waits up to 20 ms for T2 to start beside it",
     .ref = "PK5, PK6/PK7, the ramp-up (conq__pool_found)",
     .param = &ru_prm,
     .init = ru_init,
     .nresults = 3,
     .rnames = "T2 beside T1, missed ramp-up, ran",
     .epoch_states = 256,
     CS_STATE(struct ru_state),
     CS_ACTORS(ru_submitter),
     .outcomes = ru_rows,
     .noutcomes = sizeof ru_rows / sizeof ru_rows[0]},
};

/* ---- pool.wake_token.* ----
 * r[0] the burst: 0 back to back, 1 paced (0-2 us between submits);
 * r[1] the wakes during the burst; r[2] every worker was parked at its
 * start (1); r[3] 1 every task ran, 0 one did not (hang), 2 a submit
 * refused, 3 not run (wedged); r[4] the submitter left its CPU during the
 * submits (1: a voluntary or involuntary context switch, getrusage: it
 * was preempted, or slept on the pool's sleepers' lock). A storm of wakes
 * with the token working needs the workers to drain the queue and park
 * between two submits. Back-to-back submits usually leave no time for
 * that, but nothing forbids it: with spin_ns 0 a wake's futex syscall can
 * outlast the woken worker's run and park, so the next submit finds it
 * parked and nobody searching and must wake it again; and a host that
 * stops the submitter's vCPU is no context switch in getrusage. (Seen
 * once: 64 wakes in 64 submits, no switch, ASan, CONQ_EVENTCOUNT_RMW=1,
 * CI's 2-CPU machine.) The wakes are a figure, then, not a verdict:
 * the rows below name the storm INTERESTING, and the FORBIDDEN rows are
 * the token's promises that hold whatever the timing (no lost task, a
 * wake from an idle pool). */

#define WT_BURST 64u

/* This thread's context switches so far (-1: unknown). */
static long pt_switches(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

struct wt_state {
	const struct pt_param *prm;
	uint32_t done;
	CS_LINE_GAP(g);
};

static void wt_init(void *st, const struct cs_test *t, uint64_t k)
{
	(void)k;
	struct wt_state *s = st;
	s->prm = t->param;
	pt_ctx_get(t);
}

static void wt_task(void *arg)
{
	struct wt_state *s = arg;
	__atomic_fetch_add(&s->done, 1u, __ATOMIC_RELEASE);
}

CS_ACTOR(wt_submitter, struct wt_state, s, r)
{
	const struct pt_param *prm = s->prm;
	struct pt_ctx *c = prm->ctx;
	uint64_t round = c->rounds++;
	if (__atomic_load_n(&c->wedged, __ATOMIC_RELAXED)) {
		r[3] = 3;
		return;
	}
	uint64_t x = pt_rand(&c->rng);
	bool paced = (x & 1) != 0;
	conq_pool_stats a, b;
	r[0] = paced;
	/* From an idle pool: the first submit must wake a worker. */
	r[2] = pt_wait_parked(&c->e, &a, 20000000);
	long sw = pt_switches();
	for (unsigned i = 0; i < WT_BURST; i++) {
		if (pt_submit(&c->e, wt_task, s) != 0) {
			r[3] = 2;
			return;
		}
		if (paced)
			pt_delay(pt_rand(&c->rng) % 2001);
	}
	r[4] = pt_switches() != sw;
	if (!pt_wait(&s->done, WT_BURST, 4096)) {
		pt_report_hang(prm, c, "a task of a burst", round, &s->done,
			       WT_BURST);
		r[3] = 0;
		return;
	}
	pt_stats(&c->e, &b);
	r[1] = (int64_t)(b.wakes - a.wakes);
	r[3] = 1;
}

#define WT_RNAMES "paced, wakes, idle at start, ran, switched"

#define WT_BAD_ROWS                                                            \
	{"*, *, *, 0, *", CS_FORBIDDEN, 0,                                     \
	 "a task not run within " PT_HANG_TXT ": a lost wake-up (stats on "    \
	 "stderr)"},                                                           \
	    {"*, *, *, 2, *", CS_FORBIDDEN, 0, "a submit refused"},            \
	    {"*, *, *, 3, *", CS_FORBIDDEN, 0,                                 \
	     "not run: the pool was wedged by an earlier hang"},               \
	{                                                                      \
		"*, 0, 1, 1, *", CS_FORBIDDEN, 0,                              \
		    "every worker was parked, yet the burst ran without a "    \
		    "wake"                                                     \
	}

static struct pt_ctx wts_ctx, wte_ctx;
static const struct pt_param wts_prm = {.name = "pool.wake_token.searching",
					.ctx = &wts_ctx,
					.workers = 2,
					.wake = CONQ_POOL_WAKE_SEARCHING};
static const struct pt_param wte_prm = {.name = "pool.wake_token.every",
					.ctx = &wte_ctx,
					.workers = 2,
					.wake = CONQ_POOL_WAKE_EVERY};

#define WT_COMMON                                                              \
	.init = wt_init, .nresults = 5, .rnames = WT_RNAMES,                   \
	.epoch_states = 256, CS_STATE(struct wt_state),                        \
	CS_ACTORS(wt_submitter)

static struct cs_test wt_tests[] = {
    {.name = "pool.wake_token.searching",
     .desc = "2 workers, spin_ns 0, the default policy (wake only when "
	     "nobody searches): from an idle pool, 64 submits back to back or "
	     "0-2 us apart, wait until all ran; the wakes of each burst",
     .ref = "the wake token (Go's wakep)",
     .param = &wts_prm,
     WT_COMMON,
     CS_OUTCOMES(WT_BAD_ROWS,
		 {"0, 0..15, *, 1, *", CS_ACCEPTABLE, 0,
		  "back to back: at most one wake per 4 submits (typically "
		  "2: the submit's, then the ramp-up's)"},
		 {"0, *, *, 1, 1", CS_ACCEPTABLE, 0,
		  "back to back, 16 or more wakes, and the submitter left "
		  "its CPU during the burst: the workers drained the queue "
		  "and parked in between"},
		 {"0, *, *, 1, 0", CS_INTERESTING, 0,
		  "back to back, the submitter never off its CPU (as its "
		  "kernel saw it), yet 16 or more wakes: each wake's syscall "
		  "outlasted a worker's run and park (spin_ns 0), or the "
		  "host stopped the submitter's vCPU"},
		 {"1, *, *, 1, *", CS_ACCEPTABLE, 0,
		  "paced: workers that drain faster than the submits come "
		  "park and are woken again"})},
    {.name = "pool.wake_token.every",
     .desc = "the contrast: pool.wake_token.searching's bursts with "
	     "CONQ_POOL_WAKE_EVERY (wake on every submit that finds a worker "
	     "parked)",
     .ref = "the wake token (Go's wakep)",
     .param = &wte_prm,
     WT_COMMON,
     CS_OUTCOMES(WT_BAD_ROWS,
		 {"0, *, *, 1, *", CS_ACCEPTABLE, 0,
		  "back to back (no promise: the contrast)"},
		 {"1, *, *, 1, *", CS_ACCEPTABLE, 0,
		  "paced (no promise: the contrast)"})},
};

/* ---- pool.strand_handover.* ----
 * r[a] actor a's tasks of the round: 1 ran once each, alone and in its
 * submit order; 2 one ran beside another task of the strand; 3 one ran
 * out of its submitter's order; 4 one ran twice; 5 a submit refused;
 * 8 not run (wedged by an earlier hang); 9 one not run within the
 * watchdog.
 * r[n] the runner activations the round's tasks took (distinct values of
 * the pool's submitted count, read inside each task: only the strand's
 * 0 -> 1 schedules count there);
 * r[n+1] after the round (strand and pool wait_idle, then
 * conq_pool_stats): submitted == completed (1), not (0), not checked (2). */

#define SH_MAXT 2u

struct sh_task {
	struct sh_state *s;
	unsigned actor, j;
	int64_t seq;
	unsigned work; /* pauses inside the task */
};

struct sh_state {
	const struct pt_param *prm;
	struct sh_task t[CS_MAX_ACTORS][SH_MAXT];
	uint32_t n[CS_MAX_ACTORS];   /* tasks actor a submitted */
	uint32_t ran[CS_MAX_ACTORS]; /* ... of which ran */
	uint32_t bad[CS_MAX_ACTORS]; /* 1 overlap, 2 order */
	uint64_t act[CS_MAX_ACTORS][SH_MAXT];
	int32_t code[CS_MAX_ACTORS]; /* 5 refused, 8 wedged, 9 hang */
	CS_LINE_GAP(g);
};

static void sh_init(void *st, const struct cs_test *t, uint64_t k)
{
	(void)k;
	struct sh_state *s = st;
	s->prm = t->param;
	pt_ctx_get(t);
}

static void sh_task_fn(void *arg)
{
	struct sh_task *t = arg;
	struct sh_state *s = t->s;
	struct pt_ctx *c = s->prm->ctx;
	uint32_t bad = 0;
	/* acq_rel: another task of the strand inside would show as 1. */
	if (__atomic_exchange_n(&c->inflight, 1u, __ATOMIC_ACQ_REL) != 0)
		bad |= 1;
	/* Plain: the strand orders its tasks (a task happens-before the
	 * next); a broken hand-over is a data race here under TSan. */
	if (t->seq != c->last_seq[t->actor] + 1)
		bad |= 2;
	c->last_seq[t->actor] = t->seq;
	conq_pool_stats st;
	conq_pool_stats_get(c->e.pool, &st);
	s->act[t->actor][t->j] = st.submitted;
	for (unsigned i = 0; i < t->work; i++)
		conq__cpu_relax();
	if (__atomic_exchange_n(&c->inflight, 0u, __ATOMIC_ACQ_REL) != 1)
		bad |= 1;
	if (bad)
		__atomic_fetch_or(&s->bad[t->actor], bad, __ATOMIC_RELAXED);
	/* release: the task's writes to the submitter's acquire. */
	__atomic_fetch_add(&s->ran[t->actor], 1u, __ATOMIC_RELEASE);
}

static void sh_submitter(struct sh_state *s, unsigned a)
{
	const struct pt_param *prm = s->prm;
	struct pt_ctx *c = prm->ctx;
	if (__atomic_load_n(&c->wedged, __ATOMIC_RELAXED)) {
		s->code[a] = 8;
		return;
	}
	uint64_t x = pt_rand(&c->rngs[a]);
	unsigned n = 1 + (unsigned)(x & 1);
	/* A delay at every scale below 4 us (64 ns steps up). */
	unsigned j = 6 + (unsigned)((x >> 1) % 7);
	pt_delay((x >> 8) & ((UINT64_C(1) << j) - 1));
	s->n[a] = n;
	for (unsigned i = 0; i < n; i++) {
		struct sh_task *t = &s->t[a][i];
		t->s = s;
		t->actor = a;
		t->j = i;
		t->seq = ++c->next_seq[a];
		t->work = (unsigned)(x >> (40 + 6 * i)) % 64;
		if (conq_strand_submit(c->e.strand, sh_task_fn, t) != 0) {
			s->n[a] = i;
			s->code[a] = 5;
			return;
		}
	}
	if (!pt_wait(&s->ran[a], n, 256)) {
		pt_report_hang(prm, c, "a strand task",
			       (uint64_t)c->next_seq[a], &s->ran[a], n);
		s->code[a] = 9;
	}
}

CS_ACTOR(sh_a0, struct sh_state, s, r)
{
	sh_submitter(s, 0);
}
CS_ACTOR(sh_a1, struct sh_state, s, r)
{
	sh_submitter(s, 1);
}
CS_ACTOR(sh_a2, struct sh_state, s, r)
{
	sh_submitter(s, 2);
}
CS_ACTOR(sh_a3, struct sh_state, s, r)
{
	sh_submitter(s, 3);
}

static void sh_arbiter(struct sh_state *s, int64_t *r, unsigned na)
{
	struct pt_ctx *c = s->prm->ctx;
	uint64_t ids[CS_MAX_ACTORS * SH_MAXT];
	unsigned nids = 0;
	bool any_bad = false;
	for (unsigned a = 0; a < na; a++) {
		int64_t v = 1;
		if (s->code[a] != 0)
			v = s->code[a];
		else if (s->ran[a] != s->n[a])
			v = 4;
		else if (s->bad[a] & 1)
			v = 2;
		else if (s->bad[a] & 2)
			v = 3;
		r[a] = v;
		any_bad |= v != 1;
		if (s->code[a] != 0)
			continue;
		for (unsigned j = 0; j < s->n[a]; j++) {
			unsigned i = 0;
			while (i < nids && ids[i] != s->act[a][j])
				i++;
			if (i == nids)
				ids[nids++] = s->act[a][j];
		}
	}
	r[na] = nids;
	/* Not after a hang (the round is FORBIDDEN already; a wedged strand
	 * would hang wait_idle): 2. */
	if (any_bad || __atomic_load_n(&c->wedged, __ATOMIC_RELAXED))
		r[na + 1] = 2;
	else
		r[na + 1] = pt_idle_ok(&c->e);
}

CS_ARBITER(sh_arb2, struct sh_state, s, r)
{
	sh_arbiter(s, r, 2);
}
CS_ARBITER(sh_arb4, struct sh_state, s, r)
{
	sh_arbiter(s, r, 4);
}

static struct pt_ctx sh2_ctx, sh4_ctx;
static const struct pt_param sh2_prm = {.name = "pool.strand_handover.2t",
					.ctx = &sh2_ctx,
					.workers = 2,
					.strand = true};
static const struct pt_param sh4_prm = {.name = "pool.strand_handover.4t",
					.ctx = &sh4_ctx,
					.workers = 2,
					.strand = true};

#define SH_DESC(n)                                                             \
	n " threads: delay 0-4 us, submit 1 or 2 tasks to one strand on a "    \
	  "pool of 2 workers, wait until they ran (" PT_HANG_TXT               \
	  " watchdog); each task checks that it runs alone and in its "        \
	  "submitter's order"

static struct cs_test sh_tests[] = {
    {.name = "pool.strand_handover.2t",
     .desc = SH_DESC("2"),
     .ref = "ST1, ST2",
     .param = &sh2_prm,
     CS_STATE(struct sh_state),
     .init = sh_init,
     CS_ACTORS(sh_a0, sh_a1),
     .arbiter = sh_arb2,
     .nresults = 4,
     .rnames = "a0, a1, activations, idle ok",
     .epoch_states = 512,
     CS_OUTCOMES({"1, 1, 1, 1..2", CS_ACCEPTABLE, 0,
		  "one runner activation ran the round (the later submits "
		  "found the strand busy: pending > 0)"},
		 {"1, 1, 2..4, 1..2", CS_ACCEPTABLE, 0,
		  "the strand went idle between the round's tasks and a "
		  "submit re-scheduled it (the 0 -> 1 hand-over)"},
		 {"*, *, *, *", CS_FORBIDDEN, 0,
		  "a task beside another (2), out of its submitter's order "
		  "(3), run twice (4) or never (9: stats on stderr); a "
		  "refused submit (5), a wedged strand (8), or counts not "
		  "equal when idle"})},
    {.name = "pool.strand_handover.4t",
     .desc = SH_DESC("4"),
     .ref = "ST1, ST2",
     .param = &sh4_prm,
     CS_STATE(struct sh_state),
     .init = sh_init,
     CS_ACTORS(sh_a0, sh_a1, sh_a2, sh_a3),
     .arbiter = sh_arb4,
     .nresults = 6,
     .rnames = "a0, a1, a2, a3, activations, idle ok",
     .epoch_states = 256,
     CS_OUTCOMES({"1, 1, 1, 1, 1, 1..2", CS_ACCEPTABLE, 0,
		  "one runner activation ran the round"},
		 {"1, 1, 1, 1, 2..8, 1..2", CS_ACCEPTABLE, 0,
		  "the strand went idle within the round and was "
		  "re-scheduled (the 0 -> 1 hand-over)"},
		 {"*, *, *, *, *, *", CS_FORBIDDEN, 0,
		  "a task beside another (2), out of its submitter's order "
		  "(3), run twice (4) or never (9: stats on stderr); a "
		  "refused submit (5), a wedged strand (8), or counts not "
		  "equal when idle"})},
};

__attribute__((constructor)) static void pt_register(void)
{
	const char *note = pt_mode_note();
	for (size_t i = 0; i < sizeof lw_tests / sizeof lw_tests[0]; i++) {
		if (lw_tests[i].note == NULL)
			lw_tests[i].note = note;
		cs_register(&lw_tests[i]);
	}
	for (size_t i = 0; i < sizeof wt_tests / sizeof wt_tests[0]; i++) {
		wt_tests[i].note = note;
		cs_register(&wt_tests[i]);
	}
	for (size_t i = 0; i < sizeof ru_tests / sizeof ru_tests[0]; i++) {
		ru_tests[i].note = note;
		cs_register(&ru_tests[i]);
	}
	for (size_t i = 0; i < sizeof sh_tests / sizeof sh_tests[0]; i++) {
		sh_tests[i].note = note;
		cs_register(&sh_tests[i]);
	}
}
