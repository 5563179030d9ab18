/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

void *cb_alloc_aligned(size_t size)
{
	size_t sz = (size + CB_PAD - 1) / CB_PAD * CB_PAD;
	if (sz < size)
		return NULL;
	if (sz == 0)
		sz = CB_PAD;
	void *p = aligned_alloc(CB_PAD, sz);
	if (p != NULL)
		memset(p, 0, sz);
	return p;
}

void cb_free_aligned(void *p)
{
	free(p);
}

size_t cb_pow2_ceil(size_t n)
{
	size_t c = 1;
	while (c < n) {
		if (c > SIZE_MAX / 2)
			return 0;
		c <<= 1;
	}
	return c;
}

void cb_usage_read(cb_rusage *u)
{
	struct rusage r;
	memset(&r, 0, sizeof r);
	getrusage(RUSAGE_THREAD, &r);
	u->cpu_ns = ((uint64_t)r.ru_utime.tv_sec + (uint64_t)r.ru_stime.tv_sec) *
			    CB_NS_PER_S +
		    ((uint64_t)r.ru_utime.tv_usec + (uint64_t)r.ru_stime.tv_usec) *
			    CB_NS_PER_US;
	u->ivcsw = (uint64_t)r.ru_nivcsw;
	u->wall_ns = cb_now_ns();
}

void cb_usage_store(cb_worker *w, const cb_rusage *u0)
{
	cb_rusage u1;
	cb_usage_read(&u1);
	w->ivcsw = u1.ivcsw - u0->ivcsw;
	uint64_t wall = u1.wall_ns - u0->wall_ns;
	/* getrusage has 1 us resolution: allow for it. */
	w->cpu_share = wall == 0 ? 1.0
				 : (double)(u1.cpu_ns - u0->cpu_ns + 2000u) /
					   (double)wall;
	if (w->cpu_share > 1.0)
		w->cpu_share = 1.0;
}

int cb_pin_self(int cpu)
{
	if (cpu < 0)
		return EINVAL;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET((size_t)cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0)
		return errno;
	return 0;
}

static void abs_deadline(struct timespec *ts, uint64_t ns)
{
	ts->tv_sec = (time_t)(ns / CB_NS_PER_S);
	ts->tv_nsec = (long)(ns % CB_NS_PER_S);
}

struct worker_arg {
	cb_group *g;
	unsigned i;
};

static void *worker_main(void *p)
{
	struct worker_arg *a = (struct worker_arg *)p;
	cb_group *g = a->g;
	unsigned i = a->i;
	free(a);
	cb_worker *w = &g->w[i];
	if (w->cpu >= 0) {
		w->pin_errno = cb_pin_self(w->cpu);
		w->pinned = w->pin_errno == 0;
	}
	uint64_t seen = 0;
	pthread_mutex_lock(&g->mu);
	g->started++;
	pthread_cond_broadcast(&g->fin);
	for (;;) {
		while (g->gen == seen && !g->quit)
			pthread_cond_wait(&g->go, &g->mu);
		if (g->quit)
			break;
		seen = g->gen;
		cb_role_fn role = g->role[i];
		pthread_mutex_unlock(&g->mu);

		role(w); /* the whole iteration: catch-up, measure, warm-down */

		pthread_mutex_lock(&g->mu);
		g->finished++;
		pthread_cond_broadcast(&g->fin);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int cb_group_start(cb_group *g, unsigned n, const cb_role_fn *role,
		   const int *cpus, void *q, bool yield)
{
	if (n == 0 || n > CB_MAX_THREADS)
		return EINVAL;
	memset(g, 0, sizeof *g);
	g->ctl = (cb_ctl *)cb_alloc_aligned(sizeof *g->ctl);
	g->w = (cb_worker *)cb_alloc_aligned(n * sizeof *g->w);
	if (g->ctl == NULL || g->w == NULL) {
		cb_free_aligned(g->ctl);
		cb_free_aligned(g->w);
		return ENOMEM;
	}
	g->ctl->nthreads = n;
	g->ctl->yield = yield;
	g->n = n;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->go, NULL);
	pthread_cond_init(&g->fin, NULL);
	for (unsigned i = 0; i < n; i++) {
		g->role[i] = role[i];
		g->w[i].ctl = g->ctl;
		g->w[i].q = q;
		g->w[i].index = i;
		g->w[i].cpu = cpus[i];
	}
	for (unsigned i = 0; i < n; i++) {
		struct worker_arg *a = (struct worker_arg *)malloc(sizeof *a);
		int rc = a == NULL ? ENOMEM : 0;
		if (a != NULL) {
			a->g = g;
			a->i = i;
			rc = pthread_create(&g->th[i], NULL, worker_main, a);
			if (rc != 0)
				free(a);
		}
		if (rc != 0) {
			g->n = i; /* join those already started */
			cb_group_stop(g);
			return rc;
		}
	}
	/* Wait until every worker is pinned and parked. */
	pthread_mutex_lock(&g->mu);
	while (g->started < n)
		pthread_cond_wait(&g->fin, &g->mu);
	pthread_mutex_unlock(&g->mu);
	return 0;
}

int cb_group_iterate(cb_group *g, uint64_t ns, uint64_t timeout_ns)
{
	cb_ctl *c = g->ctl;
	/* Published to the workers by the mutex below. */
	conq__store_relaxed(&c->ready, 0u);
	conq__store_relaxed(&c->stopped, 0u);
	conq__store_relaxed(&c->done, 0u);

	pthread_mutex_lock(&g->mu);
	g->finished = 0;
	g->gen++;
	pthread_cond_broadcast(&g->go);
	pthread_mutex_unlock(&g->mu);

	/* Wait for every worker to be ready, sleeping (the workers may need
	 * the CPUs we would spin on). */
	uint64_t t = cb_now_ns(), limit = t + timeout_ns;
	const struct timespec nap = {0, 20000};
	int rc = 0;
	while (conq__load_acquire(&c->ready) < g->n) {
		nanosleep(&nap, NULL);
		if (cb_now_ns() > limit) {
			rc = ETIMEDOUT;
			break;
		}
	}
	if (rc == 0 && !c->self_stop) {
		struct timespec dl;
		abs_deadline(&dl, cb_now_ns() + ns);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl,
				       NULL) == EINTR)
			;
	}
	/* release: nothing to publish, but a stop flag is a stop flag. With
	 * self_stop a role sets it after its shot (a stuck one: the wait
	 * below times out). */
	if (rc != 0 || !c->self_stop)
		conq__store_release(&c->done, 1u);

	struct timespec dl;
	abs_deadline(&dl, 0);
	clock_gettime(CLOCK_REALTIME, &dl); /* condvars time in REALTIME */
	dl.tv_sec += (time_t)(timeout_ns / CB_NS_PER_S) + 1;
	pthread_mutex_lock(&g->mu);
	while (g->finished < g->n) {
		if (pthread_cond_timedwait(&g->fin, &g->mu, &dl) == ETIMEDOUT) {
			rc = ETIMEDOUT;
			break;
		}
	}
	pthread_mutex_unlock(&g->mu);
	return rc;
}

void cb_group_stop(cb_group *g)
{
	pthread_mutex_lock(&g->mu);
	g->quit = true;
	pthread_cond_broadcast(&g->go);
	pthread_mutex_unlock(&g->mu);
	for (unsigned i = 0; i < g->n; i++)
		pthread_join(g->th[i], NULL);
	pthread_cond_destroy(&g->go);
	pthread_cond_destroy(&g->fin);
	pthread_mutex_destroy(&g->mu);
	cb_free_aligned(g->ctl);
	cb_free_aligned(g->w);
	g->ctl = NULL;
	g->w = NULL;
}
