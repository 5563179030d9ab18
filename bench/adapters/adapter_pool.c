/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * adapter_pool.c - the executors of the Pool benchmarks (adapter_pool.h):
 *
 *   conq:pool                  conq_pool, default options (wake
 *                              CONQ_POOL_WAKE_SEARCHING, spin_ns 0), the
 *                              inject queue sized for the burst
 *   conq:pool_naive            the same with wake = CONQ_POOL_WAKE_EVERY
 *   glib:thread_pool           GLib GThreadPool, exclusive = FALSE (threads
 *                              borrowed from GLib's global pool)
 *   glib:thread_pool_exclusive GThreadPool, exclusive = TRUE
 *   libuv:uv_queue_work        libuv's threadpool (UV_THREADPOOL_SIZE set to
 *                              the workers before its first use); a loop per
 *                              submitter, whose completions (after_work) the
 *                              submitter runs with uv_run(UV_RUN_NOWAIT)
 *   baseline:mutex_pool        a ring under one mutex, a condvar the idle
 *                              workers wait on, signalled only when one waits
 *   ceiling:spin_mpmc_value    the executor's ceiling: the tasks ({fn, arg},
 *                              16 bytes) through a bare conq_mpmc_value to
 *                              workers that spin and never park
 *
 * The workers are never pinned (GLib and libuv cannot pin theirs).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CB_HAVE_LIBUV
#include <uv.h>
#endif

#include "adapter_pool.h"

#ifdef CB_HAVE_GLIB_POOL
#include <glib.h>
#endif

#include "conq/mpmc_value.h"
#include "conq/pool.h"

/* ---- conq_pool ---------------------------------------------------------- */

typedef struct cq_exec {
	conq_pool *p;
	cb_exec_fn fn;
} cq_exec;

static void *cq_create_wake(const cb_exec_cfg *cfg, unsigned wake, char *why,
			    size_t n)
{
	cq_exec *x = (cq_exec *)calloc(1, sizeof *x);
	if (x == NULL) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	conq_pool_opts o;
	memset(&o, 0, sizeof o);
	o.threads = cfg->workers;
	/* The default capacity, unless a burst needs more. */
	o.capacity =
	    cfg->capacity > CONQ_POOL_DEFAULT_CAPACITY ? cfg->capacity : 0;
	o.name = "cb-pool";
	o.wake = wake;
	x->fn = cfg->fn;
	x->p = conq_pool_create(&o);
	if (x->p == NULL) {
		snprintf(why, n, "conq_pool_create: %s", strerror(errno));
		free(x);
		return NULL;
	}
	return x;
}

static void *cq_create(const cb_exec_cfg *cfg, char *why, size_t n)
{
	return cq_create_wake(cfg, CONQ_POOL_WAKE_SEARCHING, why, n);
}

static void *cq_create_naive(const cb_exec_cfg *cfg, char *why, size_t n)
{
	return cq_create_wake(cfg, CONQ_POOL_WAKE_EVERY, why, n);
}

static void cq_destroy(void *xp)
{
	cq_exec *x = (cq_exec *)xp;
	conq_pool_destroy(x->p);
	free(x);
}

static int cq_submit(void *xp, unsigned sub, void *arg)
{
	cq_exec *x = (cq_exec *)xp;
	(void)sub;
	return conq_pool_submit(x->p, x->fn, arg);
}

static uint64_t cq_wakes(void *xp)
{
	conq_pool_stats s;
	conq_pool_stats_get(((cq_exec *)xp)->p, &s);
	return s.wakes;
}

const cb_exec cb_exec_conq_pool = {
    .a = {.name = "conq:pool",
	  .family = "conq",
	  .kind = CB_KIND_OWN,
	  .desc = "conq_pool, default options (Go's wakep: wake only when "
		  "nobody searches; spin_ns 0), capacity >= the burst"},
    .create = cq_create,
    .destroy = cq_destroy,
    .submit = cq_submit,
    .wakes = cq_wakes,
};

const cb_exec cb_exec_conq_pool_naive = {
    .a = {.name = "conq:pool_naive",
	  .family = "conq",
	  .kind = CB_KIND_OWN,
	  .desc = "conq_pool with wake = CONQ_POOL_WAKE_EVERY: a wake on "
		  "every submit that finds a worker parked (the naive "
		  "policy)"},
    .create = cq_create_naive,
    .destroy = cq_destroy,
    .submit = cq_submit,
    .wakes = cq_wakes,
};

/* ---- what the mutex pool and the ceiling share ---------------------- */

/* Worker threads that sleep on a mutex + condvar and stop on a flag. */
typedef struct ex_threads {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;  /* under mu */
	unsigned n; /* started */
	pthread_t *th;
} ex_threads;

static bool ex_threads_init(ex_threads *t, unsigned workers)
{
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	t->th = (pthread_t *)calloc(workers, sizeof *t->th);
	return t->th != NULL;
}

/* Set stop, wake every sleeper, join the started threads, free. */
static void ex_threads_stop(ex_threads *t)
{
	pthread_mutex_lock(&t->mu);
	t->stop = true;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
	for (unsigned k = 0; k < t->n; k++)
		pthread_join(t->th[k], NULL);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	free(t->th);
}

/* Start `workers` threads running fn(arg); false (why filled) when one
 * cannot be started (those started are left for ex_threads_stop). */
static bool ex_threads_start(ex_threads *t, unsigned workers,
			     void *(*fn)(void *), void *arg, char *why,
			     size_t n)
{
	for (t->n = 0; t->n < workers; t->n++) {
		int e = pthread_create(&t->th[t->n], NULL, fn, arg);
		if (e != 0) {
			snprintf(why, n, "pthread_create: %s", strerror(e));
			return false;
		}
	}
	return true;
}

/* ---- a mutex + condvar pool --------------------------------------------- */

typedef struct mx_exec {
	ex_threads t; /* t.mu guards the ring, the counts and t.stop */
	void **ring;
	size_t mask;
	uint64_t head, tail;
	unsigned waiting; /* workers in pthread_cond_wait */
	uint64_t signals;
	/* Read-only once the workers run. */
	cb_exec_fn fn;
} mx_exec;

static void *mx_worker(void *arg)
{
	mx_exec *x = (mx_exec *)arg;
	pthread_mutex_lock(&x->t.mu);
	for (;;) {
		while (x->head == x->tail && !x->t.stop) {
			x->waiting++;
			pthread_cond_wait(&x->t.cv, &x->t.mu);
			x->waiting--;
		}
		if (x->head == x->tail)
			break; /* stop, and nothing left */
		void *a = x->ring[x->head++ & x->mask];
		pthread_mutex_unlock(&x->t.mu);
		x->fn(a);
		pthread_mutex_lock(&x->t.mu);
	}
	pthread_mutex_unlock(&x->t.mu);
	return NULL;
}

static void mx_stop(mx_exec *x)
{
	ex_threads_stop(&x->t);
	free(x->ring);
	cb_free_aligned(x);
}

static void *mx_create(const cb_exec_cfg *cfg, char *why, size_t n)
{
	mx_exec *x = (mx_exec *)cb_alloc_aligned(sizeof *x);
	if (x == NULL) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	const size_t cap = cb_pow2_ceil(cfg->capacity ? cfg->capacity : 1);
	const bool th = ex_threads_init(&x->t, cfg->workers);
	x->fn = cfg->fn;
	x->mask = cap - 1;
	x->ring = (void **)calloc(cap ? cap : 1, sizeof *x->ring);
	if (cap == 0 || x->ring == NULL || !th) {
		snprintf(why, n, "out of memory");
		mx_stop(x);
		return NULL;
	}
	if (!ex_threads_start(&x->t, cfg->workers, mx_worker, x, why, n)) {
		mx_stop(x);
		return NULL;
	}
	return x;
}

static void mx_destroy(void *x)
{
	mx_stop((mx_exec *)x);
}

static int mx_submit(void *xp, unsigned sub, void *arg)
{
	mx_exec *x = (mx_exec *)xp;
	(void)sub;
	pthread_mutex_lock(&x->t.mu);
	if (x->tail - x->head > x->mask) {
		pthread_mutex_unlock(&x->t.mu);
		return EAGAIN;
	}
	x->ring[x->tail++ & x->mask] = arg;
	if (x->waiting > 0) {
		x->signals++;
		pthread_cond_signal(&x->t.cv);
	}
	pthread_mutex_unlock(&x->t.mu);
	return 0;
}

static uint64_t mx_wakes(void *xp)
{
	mx_exec *x = (mx_exec *)xp;
	pthread_mutex_lock(&x->t.mu);
	uint64_t s = x->signals;
	pthread_mutex_unlock(&x->t.mu);
	return s;
}

const cb_exec cb_exec_mutex_pool = {
    .a = {.name = "baseline:mutex_pool",
	  .family = "baseline",
	  .kind = CB_KIND_BASELINE,
	  .desc = "a ring under one pthread mutex, idle workers on a condvar, "
		  "signalled only when one waits (what libuv and GLib do)"},
    .create = mx_create,
    .destroy = mx_destroy,
    .submit = mx_submit,
    .wakes = mx_wakes,
};

/* ---- the ceiling: a bare conq queue, spinning workers ------------------- */

typedef struct sp_task {
	cb_exec_fn fn;
	void *arg;
} sp_task;

typedef struct sp_exec {
	conq_mpmc_value *q;
	cb_exec_fn fn;
	bool yield; /* more threads than CPUs: yield every 256 empty polls */
	/* Set by begin/end (the submitters), read by the workers on every
	 * empty poll. */
	CB_ALIGNAS(CB_PAD) uint32_t active;
	ex_threads t; /* the sleep between iterations, and the stop */
} sp_exec;

static void *sp_worker(void *arg)
{
	sp_exec *x = (sp_exec *)arg;
	unsigned empty = 0;
	for (;;) {
		sp_task t;
		if (conq_mpmc_value_poll(x->q, &t)) {
			t.fn(t.arg);
			empty = 0;
			continue;
		}
		/* acquire: pairs with sp_begin's/sp_end's release stores (the
		 * flag orders nothing else: the tasks come through the ring,
		 * the sleep through the mutex). */
		if (conq__load_acquire(&x->active)) {
			conq__cpu_relax();
			if (x->yield && ++empty % 256u == 0)
				sched_yield();
			continue;
		}
		/* Between iterations: sleep once the queue is empty. */
		pthread_mutex_lock(&x->t.mu);
		while (!conq__load_relaxed(&x->active) && !x->t.stop &&
		       conq_mpmc_value_is_empty(x->q))
			pthread_cond_wait(&x->t.cv, &x->t.mu);
		const bool stop = x->t.stop && conq_mpmc_value_is_empty(x->q);
		pthread_mutex_unlock(&x->t.mu);
		if (stop)
			break;
	}
	return NULL;
}

static void sp_stop(sp_exec *x)
{
	ex_threads_stop(&x->t);
	conq_mpmc_value_destroy(x->q);
	cb_free_aligned(x);
}

static void *sp_create(const cb_exec_cfg *cfg, char *why, size_t n)
{
	sp_exec *x = (sp_exec *)cb_alloc_aligned(sizeof *x);
	if (x == NULL) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	const bool th = ex_threads_init(&x->t, cfg->workers);
	x->fn = cfg->fn;
	cpu_set_t set;
	const int cpus =
	    sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
	x->yield = cfg->workers + cfg->submitters > (unsigned)cpus;
	x->q = conq_mpmc_value_create(sizeof(sp_task),
				      cfg->capacity ? cfg->capacity : 1);
	if (x->q == NULL || !th) {
		snprintf(why, n, "out of memory");
		sp_stop(x);
		return NULL;
	}
	if (!ex_threads_start(&x->t, cfg->workers, sp_worker, x, why, n)) {
		sp_stop(x);
		return NULL;
	}
	return x;
}

static void sp_destroy(void *x)
{
	sp_stop((sp_exec *)x);
}

static int sp_submit(void *xp, unsigned sub, void *arg)
{
	sp_exec *x = (sp_exec *)xp;
	(void)sub;
	const sp_task t = {x->fn, arg};
	return conq_mpmc_value_offer(x->q, &t) ? 0 : EAGAIN;
}

static void sp_begin(void *xp)
{
	sp_exec *x = (sp_exec *)xp;
	if (conq__load_relaxed(&x->active))
		return;
	pthread_mutex_lock(&x->t.mu);
	conq__store_release(&x->active, 1u); /* pairs with sp_worker's load */
	pthread_cond_broadcast(&x->t.cv);
	pthread_mutex_unlock(&x->t.mu);
}

static void sp_end(void *xp)
{
	sp_exec *x = (sp_exec *)xp;
	pthread_mutex_lock(&x->t.mu);
	conq__store_release(&x->active, 0u); /* pairs with sp_worker's load */
	pthread_mutex_unlock(&x->t.mu);
}

static uint64_t sp_wakes(void *x)
{
	(void)x;
	return 0; /* it never parks during an iteration */
}

const cb_exec cb_exec_ceiling = {
    .a = {.name = "ceiling:spin_mpmc_value",
	  .family = "ceiling",
	  .kind = CB_KIND_BASELINE,
	  .desc = "the executor's ceiling: the same tasks through a bare "
		  "conq_mpmc_value to workers that spin, never park (they "
		  "sleep between iterations only)"},
    .create = sp_create,
    .destroy = sp_destroy,
    .submit = sp_submit,
    .begin = sp_begin,
    .end = sp_end,
    .wakes = sp_wakes,
};

/* ---- GLib's GThreadPool -------------------------------------------------- */

#ifdef CB_HAVE_GLIB_POOL
typedef struct gl_exec {
	GThreadPool *pool;
	cb_exec_fn fn;
} gl_exec;

static void gl_func(gpointer data, gpointer user)
{
	((gl_exec *)user)->fn(data);
}

static void *gl_create_ex(const cb_exec_cfg *cfg, gboolean exclusive, char *why,
			  size_t n)
{
	gl_exec *x = (gl_exec *)calloc(1, sizeof *x);
	if (x == NULL) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	x->fn = cfg->fn;
	GError *err = NULL;
	x->pool =
	    g_thread_pool_new(gl_func, x, (gint)cfg->workers, exclusive, &err);
	if (x->pool == NULL) {
		snprintf(why, n, "g_thread_pool_new: %s",
			 err != NULL ? err->message : "failed");
		if (err != NULL)
			g_error_free(err);
		free(x);
		return NULL;
	}
	return x;
}

static void *gl_create_shared(const cb_exec_cfg *cfg, char *why, size_t n)
{
	return gl_create_ex(cfg, FALSE, why, n);
}

static void *gl_create_exclusive(const cb_exec_cfg *cfg, char *why, size_t n)
{
	return gl_create_ex(cfg, TRUE, why, n);
}

static void gl_destroy(void *xp)
{
	gl_exec *x = (gl_exec *)xp;
	g_thread_pool_free(x->pool, FALSE, TRUE);
	free(x);
}

static int gl_submit(void *xp, unsigned sub, void *arg)
{
	gl_exec *x = (gl_exec *)xp;
	(void)sub;
	GError *err = NULL;
	if (g_thread_pool_push(x->pool, arg, &err))
		return 0;
	if (err != NULL)
		g_error_free(err);
	return EAGAIN; /* a thread could not be started: retry */
}

const cb_exec cb_exec_glib_shared = {
    .a = {.name = "glib:thread_pool",
	  .family = "glib",
	  .kind = CB_KIND_PEER,
	  .desc = "GLib GThreadPool, max_threads = workers, exclusive = FALSE "
		  "(g_thread_pool_push: a GAsyncQueue, mutex + condvar)"},
    .create = gl_create_shared,
    .destroy = gl_destroy,
    .submit = gl_submit,
};

const cb_exec cb_exec_glib_exclusive = {
    .a = {.name = "glib:thread_pool_exclusive",
	  .family = "glib",
	  .kind = CB_KIND_PEER,
	  .desc = "GLib GThreadPool, max_threads = workers, exclusive = TRUE "
		  "(its threads started at once and kept)"},
    .create = gl_create_exclusive,
    .destroy = gl_destroy,
    .submit = gl_submit,
};
#endif

/* ---- libuv's threadpool -------------------------------------------------- */

#ifdef CB_HAVE_LIBUV
struct lu_exec;

typedef struct lu_req {
	uv_work_t req; /* first: the callbacks get its address */
	void *arg;
	struct lu_sub *sub;
} lu_req;

/* A submitter's loop and its requests (a free stack: taken by submit,
 * given back by after_work, both on the submitter's thread). */
typedef struct lu_sub {
	CB_ALIGNAS(CB_PAD) uv_loop_t loop;
	struct lu_exec *x;
	lu_req *reqs;
	lu_req **free;
	size_t nfree, nreq;
	bool loop_ok;
} lu_sub;

typedef struct lu_exec {
	cb_exec_fn fn;
	unsigned nsub;
	lu_sub *sub;
} lu_exec;

/* The threadpool's size, fixed at its first use in the process. */
static unsigned lu_pool_size;

static void lu_work(uv_work_t *req)
{
	lu_req *r = (lu_req *)(void *)req;
	r->sub->x->fn(r->arg);
}

static void lu_after(uv_work_t *req, int status)
{
	lu_req *r = (lu_req *)(void *)req;
	(void)status;
	r->sub->free[r->sub->nfree++] = r;
}

static void lu_noop(uv_work_t *req)
{
	(void)req;
}

static void lu_noop_after(uv_work_t *req, int status)
{
	(void)req;
	(void)status;
}

static void lu_destroy(void *xp)
{
	lu_exec *x = (lu_exec *)xp;
	for (unsigned k = 0; x->sub != NULL && k < x->nsub; k++) {
		lu_sub *s = &x->sub[k];
		if (s->loop_ok) {
			uv_run(&s->loop, UV_RUN_DEFAULT);
			uv_loop_close(&s->loop);
		}
		free(s->reqs);
		free(s->free);
	}
	cb_free_aligned(x->sub);
	free(x);
}

static void *lu_create(const cb_exec_cfg *cfg, char *why, size_t n)
{
	if (lu_pool_size != 0 && lu_pool_size != cfg->workers) {
		snprintf(why, n,
			 "libuv's threadpool has %u threads in this process "
			 "(UV_THREADPOOL_SIZE is read once): run each workers "
			 "value in a fork of its own (-f 1)",
			 lu_pool_size);
		return NULL;
	}
	lu_exec *x = (lu_exec *)calloc(1, sizeof *x);
	if (x == NULL) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	x->fn = cfg->fn;
	x->nsub = cfg->submitters;
	x->sub = (lu_sub *)cb_alloc_aligned(x->nsub * sizeof *x->sub);
	if (x->sub == NULL) {
		snprintf(why, n, "out of memory");
		lu_destroy(x);
		return NULL;
	}
	/* Each submitter's requests: a burst of its share in flight. */
	const size_t per = cfg->capacity / x->nsub + 1;
	for (unsigned k = 0; k < x->nsub; k++) {
		lu_sub *s = &x->sub[k];
		s->x = x;
		s->reqs = (lu_req *)calloc(per, sizeof *s->reqs);
		s->free = (lu_req **)calloc(per, sizeof *s->free);
		int e = uv_loop_init(&s->loop);
		s->loop_ok = e == 0;
		if (s->reqs == NULL || s->free == NULL || e != 0) {
			snprintf(why, n, "%s",
				 e != 0 ? uv_strerror(e) : "out of memory");
			lu_destroy(x);
			return NULL;
		}
		s->nreq = per;
		for (size_t j = 0; j < per; j++) {
			s->reqs[j].sub = s;
			s->free[s->nfree++] = &s->reqs[j];
		}
	}
	if (lu_pool_size == 0) {
		/* Before the first uv_queue_work of the process; then one,
		 * so that the threads start now, not in a measured burst. */
		char v[16];
		snprintf(v, sizeof v, "%u", cfg->workers);
		setenv("UV_THREADPOOL_SIZE", v, 1);
		lu_pool_size = cfg->workers;
	}
	uv_work_t w;
	int e = uv_queue_work(&x->sub[0].loop, &w, lu_noop, lu_noop_after);
	if (e == 0)
		uv_run(&x->sub[0].loop, UV_RUN_DEFAULT);
	if (e != 0) {
		snprintf(why, n, "uv_queue_work: %s", uv_strerror(e));
		lu_destroy(x);
		return NULL;
	}
	return x;
}

static void lu_service(void *xp, unsigned sub)
{
	lu_exec *x = (lu_exec *)xp;
	uv_run(&x->sub[sub].loop, UV_RUN_NOWAIT);
}

static int lu_submit_(void *xp, unsigned sub, void *arg)
{
	lu_exec *x = (lu_exec *)xp;
	lu_sub *s = &x->sub[sub];
	if (s->nfree == 0) {
		uv_run(&s->loop, UV_RUN_NOWAIT);
		if (s->nfree == 0)
			return EAGAIN;
	}
	lu_req *r = s->free[--s->nfree];
	r->arg = arg;
	int e = uv_queue_work(&s->loop, &r->req, lu_work, lu_after);
	if (e != 0) {
		s->free[s->nfree++] = r;
		return EINVAL;
	}
	return 0;
}

const cb_exec cb_exec_libuv = {
    .a = {.name = "libuv:uv_queue_work",
	  .family = "libuv",
	  .kind = CB_KIND_PEER,
	  .desc = "libuv's threadpool (uv_queue_work; UV_THREADPOOL_SIZE = "
		  "workers), a loop per submitter running the completions "
		  "(uv_run NOWAIT)"},
    .create = lu_create,
    .destroy = lu_destroy,
    .submit = lu_submit_,
    .service = lu_service,
};
#endif
