/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/test_refcount.c - conq/refcount.h: counts, the last release,
 * try_retain, saturation (overflow, retain from 0, underflow, bad init, a
 * saturated count stays saturated), the hook and the default hook (one line
 * once; CONQ_REFCOUNT_ABORT=1 aborts), and 2- and 4-thread hammers over one
 * count (ctest refcount_unit).
 *
 * CONQ_TEST_SCALE (environment) scales the hammers' 10^6 cycles a thread
 * (e.g. 0.1 under qemu).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "conq/refcount.h"

/* ---- a hook that records ---- */

static unsigned long rec_count;
static const conq_refcount *rec_r;
static enum conq_refcount_event rec_ev;

static void rec_hook(const conq_refcount *r, enum conq_refcount_event ev)
{
	rec_r = r;
	rec_ev = ev;
	__atomic_fetch_add(&rec_count, 1, __ATOMIC_RELAXED);
}

static void other_hook(const conq_refcount *r, enum conq_refcount_event ev)
{
	(void)r;
	(void)ev;
}

static unsigned long events(void)
{
	return __atomic_load_n(&rec_count, __ATOMIC_RELAXED);
}

/* The call just made reported exactly one event, ev, for r. */
static void expect_event(unsigned long before, const conq_refcount *r,
			 enum conq_refcount_event ev)
{
	CHECK_EQ(events(), before + 1);
	CHECK_PTR_EQ(rec_r, r);
	CHECK_EQ(rec_ev, ev);
	CHECK_EQ_I(conq_refcount_get(r), CONQ_REFCOUNT_SATURATED);
}

static void test_counts(void)
{
	check_context("counts");
	unsigned long e0 = events();
	conq_refcount r;
	conq_refcount_init(&r, 1);
	CHECK_EQ_I(conq_refcount_get(&r), 1);
	conq_refcount_init(&r, 7);
	CHECK_EQ_I(conq_refcount_get(&r), 7);
	conq_refcount_init(&r, CONQ_REFCOUNT_MAX);
	CHECK_EQ_I(conq_refcount_get(&r), CONQ_REFCOUNT_MAX);

	conq_refcount_init(&r, 1);
	for (int i = 0; i < 3; i++)
		conq_refcount_retain(&r);
	CHECK_EQ_I(conq_refcount_get(&r), 4);
	CHECK_TRUE(conq_refcount_try_retain(&r));
	CHECK_EQ_I(conq_refcount_get(&r), 5);
	int trues = 0, falses = 0;
	for (int i = 0; i < 5; i++) {
		if (conq_refcount_release(&r))
			trues++;
		else
			falses++;
		CHECK_EQ_I(conq_refcount_get(&r), 4 - i);
	}
	CHECK_EQ(trues, 1);
	CHECK_EQ(falses, 4);
	/* The last release is the fifth: the count was 1 before it. */
	conq_refcount_init(&r, 2);
	CHECK_FALSE(conq_refcount_release(&r));
	CHECK_TRUE(conq_refcount_release(&r));
	CHECK_EQ_I(conq_refcount_get(&r), 0);

	/* try_retain from 0: false, and the count stays 0, unreported. */
	CHECK_FALSE(conq_refcount_try_retain(&r));
	CHECK_FALSE(conq_refcount_try_retain(&r));
	CHECK_EQ_I(conq_refcount_get(&r), 0);

	/* A count released to 0 can be initialised again (a pool). */
	conq_refcount_init(&r, 1);
	CHECK_TRUE(conq_refcount_release(&r));

	/* The edge below the maximum is not an overflow. */
	conq_refcount_init(&r, CONQ_REFCOUNT_MAX - 1);
	conq_refcount_retain(&r);
	CHECK_EQ_I(conq_refcount_get(&r), CONQ_REFCOUNT_MAX);
	CHECK_FALSE(conq_refcount_release(&r));
	CHECK_TRUE(conq_refcount_try_retain(&r));
	CHECK_EQ_I(conq_refcount_get(&r), CONQ_REFCOUNT_MAX);
	CHECK_EQ(events(), e0);
}

static void test_saturation(void)
{
	conq_refcount r;
	unsigned long e;

	check_context("overflow (retain)");
	conq_refcount_init(&r, CONQ_REFCOUNT_MAX);
	e = events();
	conq_refcount_retain(&r);
	expect_event(e, &r, CONQ_REFCOUNT_OVERFLOW);

	check_context("overflow (try_retain)");
	conq_refcount_init(&r, CONQ_REFCOUNT_MAX);
	e = events();
	CHECK_TRUE(conq_refcount_try_retain(&r));
	expect_event(e, &r, CONQ_REFCOUNT_OVERFLOW);

	check_context("retain from zero");
	conq_refcount_init(&r, 1);
	CHECK_TRUE(conq_refcount_release(&r));
	e = events();
	conq_refcount_retain(&r);
	expect_event(e, &r, CONQ_REFCOUNT_ADD_ON_ZERO);

	check_context("underflow");
	conq_refcount_init(&r, 1);
	CHECK_TRUE(conq_refcount_release(&r));
	e = events();
	CHECK_FALSE(conq_refcount_release(&r));
	expect_event(e, &r, CONQ_REFCOUNT_UNDERFLOW);

	check_context("bad init");
	e = events();
	conq_refcount_init(&r, 0);
	expect_event(e, &r, CONQ_REFCOUNT_BAD_INIT);
	e = events();
	conq_refcount_init(&r, -5);
	expect_event(e, &r, CONQ_REFCOUNT_BAD_INIT);
	e = events();
	conq_refcount_init(&r, INT32_MIN);
	expect_event(e, &r, CONQ_REFCOUNT_BAD_INIT);

	/* A saturated count stays saturated, and each use is reported. */
	check_context("saturated stays");
	conq_refcount_init(&r, 0);
	e = events();
	conq_refcount_retain(&r);
	expect_event(e, &r, CONQ_REFCOUNT_SATURATED_USE);
	e = events();
	CHECK_FALSE(conq_refcount_release(&r));
	expect_event(e, &r, CONQ_REFCOUNT_SATURATED_USE);
	e = events();
	CHECK_TRUE(conq_refcount_try_retain(&r));
	expect_event(e, &r, CONQ_REFCOUNT_SATURATED_USE);
	/* Many releases of a leaked object: never the last one. */
	e = events();
	int trues = 0;
	for (int i = 0; i < 1000; i++)
		trues += conq_refcount_release(&r);
	CHECK_EQ(trues, 0);
	CHECK_EQ(events(), e + 1000);
	CHECK_EQ_I(conq_refcount_get(&r), CONQ_REFCOUNT_SATURATED);

	/* White-box: a count that drifted from SATURATED (operations that
	 * raced with the saturating store) is still saturated: any negative
	 * value is put back. */
	check_context("drifted");
	r.n = CONQ_REFCOUNT_SATURATED - 3;
	e = events();
	conq_refcount_retain(&r);
	expect_event(e, &r, CONQ_REFCOUNT_SATURATED_USE);
	r.n = CONQ_REFCOUNT_SATURATED + 3;
	e = events();
	CHECK_FALSE(conq_refcount_release(&r));
	expect_event(e, &r, CONQ_REFCOUNT_SATURATED_USE);
	r.n = -1; /* as after the wrap of a retain at the maximum */
	e = events();
	CHECK_TRUE(conq_refcount_try_retain(&r));
	expect_event(e, &r, CONQ_REFCOUNT_SATURATED_USE);
	r.n = INT32_MIN; /* the instant after an overflowing retain */
	e = events();
	CHECK_FALSE(conq_refcount_release(&r));
	expect_event(e, &r, CONQ_REFCOUNT_SATURATED_USE);
}

static void test_set_hook(void)
{
	check_context("set_hook");
	/* main() installed rec_hook over the default (NULL). */
	CHECK_TRUE(conq_refcount_set_hook(other_hook) == rec_hook);
	CHECK_TRUE(conq_refcount_set_hook(NULL) == other_hook);
	CHECK_TRUE(conq_refcount_set_hook(rec_hook) == NULL);
	/* other_hook receives the events while installed, rec_hook not. */
	CHECK_TRUE(conq_refcount_set_hook(other_hook) == rec_hook);
	unsigned long e = events();
	conq_refcount r;
	conq_refcount_init(&r, 0);
	CHECK_EQ(events(), e);
	CHECK_EQ_I(conq_refcount_get(&r), CONQ_REFCOUNT_SATURATED);
	CHECK_TRUE(conq_refcount_set_hook(rec_hook) == other_hook);
	conq_refcount_init(&r, 0);
	CHECK_EQ(events(), e + 1);
}

/* ---- the default hook, in child processes ---- */

/* Run `events` bad inits in a child with the default hook, stderr into a
 * pipe; returns the child's wait status and what it wrote (NUL-ended). */
static int run_default(int nevents, bool abort_env, char *out, size_t cap)
{
	int fd[2];
	out[0] = '\0';
	if (pipe(fd) != 0) {
		CHECK_FAIL("pipe failed");
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		CHECK_FAIL("fork failed");
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 2);
		if (abort_env)
			setenv("CONQ_REFCOUNT_ABORT", "1", 1);
		else
			unsetenv("CONQ_REFCOUNT_ABORT");
		/* No core file for the expected abort. */
		struct rlimit nocore = {0, 0};
		setrlimit(RLIMIT_CORE, &nocore);
		conq_refcount_set_hook(NULL);
		conq_refcount r;
		for (int i = 0; i < nevents; i++)
			conq_refcount_init(&r, 0);
		conq_refcount_retain(&r);
		_exit(conq_refcount_get(&r) == CONQ_REFCOUNT_SATURATED ? 0 : 3);
	}
	close(fd[1]);
	size_t len = 0;
	for (;;) {
		ssize_t k = read(fd[0], out + len, cap - 1 - len);
		if (k <= 0)
			break;
		len += (size_t)k;
		if (len == cap - 1)
			break;
	}
	out[len] = '\0';
	close(fd[0]);
	int st = 0;
	if (waitpid(pid, &st, 0) != pid)
		CHECK_FAIL("waitpid failed");
	return st;
}

/* Lines of s that contain the default hook's "conq: refcount" (qemu-user
 * adds one of its own about the abort). */
static unsigned count_reports(const char *s)
{
	unsigned n = 0;
	for (const char *p = s; (p = strstr(p, "conq: refcount")) != NULL; p++)
		n++;
	return n;
}

static void test_default_hook(void)
{
	char out[4096];
	check_context("default hook: once");
	int st = run_default(5, false, out, sizeof out);
	CHECK_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* Six reports (five bad inits, one saturated use), one line. */
	CHECK_EQ(count_reports(out), 1);
	CHECK_NOT_NULL(strstr(out, "init with a count <= 0"));
	CHECK_NOT_NULL(strstr(out, "leaked"));

	check_context("default hook: CONQ_REFCOUNT_ABORT=1");
	st = run_default(1, true, out, sizeof out);
	CHECK_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK_EQ(count_reports(out), 1);
}

/* ---- hammers ---- */

#define HAMMER_MAX 4

struct hammer {
	conq_refcount rc;
	long cycles;
	/* Per thread, plain: written before the thread's last release, read
	 * by whoever gets true (the release sequence makes it visible). */
	long done[HAMMER_MAX];
	unsigned nthreads;
	unsigned last_count; /* releases that returned true (atomic) */
	unsigned bad_last;   /* a true from a release in the loop */
	unsigned missed;     /* the last one did not see every done[] */
	unsigned failed_try; /* try_retain false on a held count */
	unsigned arrived;    /* the start gate (atomic) */
};

struct hammer_arg {
	struct hammer *h;
	unsigned idx;
};

static void *hammer_thread(void *p)
{
	struct hammer_arg *a = p;
	struct hammer *h = a->h;
	unsigned bad = 0, failed = 0;
	/* Start together, so that the threads overlap on the count. */
	__atomic_fetch_add(&h->arrived, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&h->arrived, __ATOMIC_RELAXED) < h->nthreads)
		sched_yield();
	/* Each thread holds one reference throughout (init: nthreads), so
	 * no release in the loop may be the last. */
	for (long i = 0; i < h->cycles; i++) {
		if (i & 1) {
			if (!conq_refcount_try_retain(&h->rc))
				failed++;
		} else {
			conq_refcount_retain(&h->rc);
		}
		bad += conq_refcount_release(&h->rc);
	}
	h->done[a->idx] = h->cycles; /* plain */
	if (bad != 0)
		__atomic_fetch_add(&h->bad_last, bad, __ATOMIC_RELAXED);
	if (failed != 0)
		__atomic_fetch_add(&h->failed_try, failed, __ATOMIC_RELAXED);
	if (conq_refcount_release(&h->rc)) {
		__atomic_fetch_add(&h->last_count, 1, __ATOMIC_RELAXED);
		for (unsigned t = 0; t < h->nthreads; t++)
			if (h->done[t] != h->cycles) /* plain */
				__atomic_fetch_add(&h->missed, 1,
						   __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_hammer(unsigned nthreads, long cycles)
{
	check_context("hammer %u threads x %ld cycles", nthreads, cycles);
	struct hammer h;
	memset(&h, 0, sizeof h);
	h.cycles = cycles;
	h.nthreads = nthreads;
	conq_refcount_init(&h.rc, (int32_t)nthreads);
	unsigned long e = events();
	pthread_t th[HAMMER_MAX];
	struct hammer_arg args[HAMMER_MAX];
	unsigned started = 0;
	for (unsigned t = 0; t < nthreads; t++) {
		args[t].h = &h;
		args[t].idx = t;
		if (pthread_create(&th[t], NULL, hammer_thread, &args[t]) != 0)
			break;
		started++;
	}
	if (!CHECK_EQ(started, nthreads)) {
		/* The missing threads' references: never released. */
		for (unsigned t = 0; t < started; t++)
			pthread_join(th[t], NULL);
		return;
	}
	for (unsigned t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	CHECK_EQ(h.last_count, 1);
	CHECK_EQ(h.bad_last, 0);
	CHECK_EQ(h.missed, 0);
	CHECK_EQ(h.failed_try, 0);
	CHECK_EQ_I(conq_refcount_get(&h.rc), 0);
	CHECK_EQ(events(), e);
}

static double test_scale(void)
{
	const char *s = getenv("CONQ_TEST_SCALE");
	double x = s != NULL ? atof(s) : 1.0;
	return x > 0 ? x : 1.0;
}

int main(void)
{
	CHECK_TRUE(conq_refcount_set_hook(rec_hook) == NULL);
	test_counts();
	test_saturation();
	test_set_hook();
	test_default_hook();
	long cycles = (long)(1000000 * test_scale());
	if (cycles < 1000)
		cycles = 1000;
	test_hammer(2, cycles);
	test_hammer(4, cycles);
	return check_report();
}
