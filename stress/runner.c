/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stress/runner.c - conq-stress's runner: selects tests, forks one child per
 * test, runs its actors over arrays of fresh states in epochs, grades the
 * histogram of results against the test's outcome table, prints jcstress-like
 * tables and JSON lines, and ends with "N passed, N failed".
 *
 * Inside a child (one test):
 *  - one thread per actor, pinned (round robin from a seeded shift over the
 *    CPUs this process may use);
 *  - each epoch: the leader (the last thread into a barrier) decides, once
 *    for everyone, whether to stop and the epoch's parameters: which thread
 *    plays which actor (role swap), the state stride and base offset
 *    (layout), a direct or shuffled walk order, and a start skew per actor;
 *  - every thread inits its slice of the states, then all actors walk the
 *    states in strides of CS_STRIDE with a checkpoint after each stride (so
 *    they stay within a stride of each other and collide on the same
 *    states), then every thread runs the arbiter over its slice and counts
 *    the result tuples in its own histogram;
 *  - the stop decision is taken by one thread per epoch and shared (a
 *    per-thread clock check lets one actor leave while the other waits at
 *    the next checkpoint: a hang);
 *  - at the end the per-thread histograms are merged and graded.
 *
 * The parent waits for each child with a watchdog: a child that crashes is
 * ERROR, one that runs past the timeout is killed and TIMEOUT.
 *
 * Exit status: 0 all passed (INTERESTING and SKIPPED included); 1 a FORBIDDEN
 * outcome or a missing canary; 2 ERROR or TIMEOUT; 3 usage; 4 no test
 * selected; 77 every selected test was skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"

#include "conq/impl/atomic.h"

#define CS_STRIDE	  256
#define CS_DEFAULT_STATES (CS_STRIDE * 40)
#define CS_HIST_SLOTS	  4096
#define CS_MAX_CANARIES	  4

#if defined(__x86_64__)
#define CS_PLATFORM	 CS_ON_X86_64
#define CS_PLATFORM_NAME "x86-64"
#elif defined(__aarch64__)
#define CS_PLATFORM	 CS_ON_AARCH64
#define CS_PLATFORM_NAME "aarch64"
#else
#define CS_PLATFORM	 0u
#define CS_PLATFORM_NAME "other"
#endif

#ifdef CONQ_STRESS_TSAN_FENCES
#define CS_FENCE_MODE "seq_cst RMW on a dummy word (TSan build)"
#else
#define CS_FENCE_MODE "atomic_thread_fence"
#endif

/* Sanitizer builds (CONQ_SANITIZE) run 5-20x slower and change the timing
 * the canaries depend on: there, fewer states per epoch, and a canary that
 * was not seen is reported but does not fail the run (the plain build is
 * where the harness proves its sensitivity). */
#ifdef CONQ_STRESS_SANITIZED
#define CS_STATES_DIV	 4
#define CS_CANARY_STRICT 0
#else
#define CS_STATES_DIV	 1
#define CS_CANARY_STRICT 1
#endif

#ifndef CS_BUILD_INFO
#define CS_BUILD_INFO "unknown build"
#endif

int cs_fence_word;

void cs_spin(unsigned *spins)
{
	if (++*spins % 64 == 0)
		sched_yield();
	else
		conq__cpu_relax();
}

/* ---- registry ---- */

static const struct cs_test **cs_tests;
static size_t cs_ntests, cs_cap_tests;

void cs_register(const struct cs_test *t)
{
	if (cs_ntests == cs_cap_tests) {
		size_t n = cs_cap_tests ? 2 * cs_cap_tests : 256;
		const struct cs_test **p = realloc(cs_tests, n * sizeof *p);
		if (p == NULL) {
			perror("conq-stress: registering tests");
			exit(2);
		}
		cs_tests = p;
		cs_cap_tests = n;
	}
	cs_tests[cs_ntests++] = t;
}

/* ---- small utilities ---- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t *s, uint64_t n)
{
	return splitmix(s) % n;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A growable string (the JSON record). */
struct sbuf {
	char *p;
	size_t len, cap;
};

__attribute__((format(printf, 2, 3))) static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		size_t room = b->cap - b->len;
		int n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap : 256;
		while (cap - b->len <= (size_t)n)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (p == NULL)
			return;
		b->p = p;
		b->cap = cap;
	}
}

static void sb_json_str(struct sbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20)
			sb_printf(b, "\\u%04x", c);
		else
			sb_printf(b, "%c", c);
	}
	sb_printf(b, "\"");
}

static void print_count(char *out, size_t n, uint64_t v)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof tmp, "%" PRIu64, v);
	size_t o = 0;
	for (int i = 0; i < len && o + 2 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = tmp[i];
	}
	out[o] = '\0';
}

/* ---- outcome patterns ---- */

struct cs_field {
	bool any;
	int64_t lo, hi;
};

struct cs_pattern {
	struct cs_field f[CS_MAX_RESULTS];
	unsigned n;
	bool exact; /* no `*` and no range: printable as a 0-sample row */
};

static bool parse_pattern(const char *s, struct cs_pattern *p)
{
	memset(p, 0, sizeof *p);
	p->exact = true;
	while (*s) {
		while (*s == ' ')
			s++;
		if (p->n == CS_MAX_RESULTS)
			return false;
		struct cs_field *f = &p->f[p->n++];
		char *end;
		if (*s == '*') {
			f->any = true;
			p->exact = false;
			s++;
		} else {
			errno = 0;
			f->lo = strtoll(s, &end, 10);
			if (end == s || errno)
				return false;
			s = end;
			f->hi = f->lo;
			if (s[0] == '.' && s[1] == '.') {
				f->hi = strtoll(s + 2, &end, 10);
				if (end == s + 2)
					return false;
				s = end;
				p->exact = false;
			}
		}
		while (*s == ' ')
			s++;
		if (*s == ',')
			s++;
		else if (*s)
			return false;
	}
	return true;
}

static bool pattern_match(const struct cs_pattern *p, const int64_t *key)
{
	for (unsigned i = 0; i < p->n; i++)
		if (!p->f[i].any &&
		    (key[i] < p->f[i].lo || key[i] > p->f[i].hi))
			return false;
	return true;
}

/* ---- histograms ---- */

struct cs_hent {
	int64_t key[CS_MAX_RESULTS];
	uint64_t count;
};

struct cs_hist {
	struct cs_hent *e; /* CS_HIST_SLOTS; count 0 = empty */
	unsigned nres;
	uint64_t overflow;
};

static uint64_t key_hash(const int64_t *k, unsigned n)
{
	uint64_t h = 0x84222325cbf29ce4ULL;
	for (unsigned i = 0; i < n; i++) {
		h ^= (uint64_t)k[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

static void hist_add(struct cs_hist *h, const int64_t *key, uint64_t count)
{
	uint64_t i = key_hash(key, h->nres) % CS_HIST_SLOTS;
	for (unsigned probe = 0; probe < CS_HIST_SLOTS; probe++) {
		struct cs_hent *e = &h->e[i];
		if (e->count == 0) {
			memcpy(e->key, key, h->nres * sizeof *key);
			e->count = count;
			return;
		}
		if (memcmp(e->key, key, h->nres * sizeof *key) == 0) {
			e->count += count;
			return;
		}
		i = (i + 1) % CS_HIST_SLOTS;
	}
	h->overflow += count;
}

/* ---- one test run, inside the child ---- */

struct cs_epoch {
	bool stop;
	size_t stride, offset;
	bool shuffled;
	unsigned role[CS_MAX_ACTORS];
	unsigned skew[CS_MAX_ACTORS];
};

struct cs_barrier {
	unsigned count;
	unsigned sense;
};

struct cs_run;

struct cs_thread {
	struct cs_run *run;
	unsigned idx;
	int cpu;
	struct cs_hist hist;
	pthread_t th;
};

struct cs_run {
	const struct cs_test *t;
	unsigned nthreads;
	size_t nstates;
	char *mem; /* states, allocated at max_align */
	size_t max_stride, base_stride, align;
	int64_t *res;
	uint32_t *perm;
	struct cs_epoch ep;
	struct cs_barrier bar;
	uint64_t ckpt; /* checkpoints passed, all threads together */
	uint64_t rng;
	uint64_t deadline, t0, t1;
	/* A REQUIRED outcome not seen yet when the budget is spent (a loaded
	 * machine gives few samples): run on, up to extend_to, until it is. */
	uint64_t extend_to;
	const struct cs_pattern *canaries[CS_MAX_CANARIES];
	unsigned ncanaries;
	bool extended;
	uint64_t epochs;
	struct cs_thread th[CS_MAX_ACTORS];
};

/* Spin until all nthreads arrive; the last one runs `lead` first. */
static void barrier_wait(struct cs_run *r, void (*lead)(struct cs_run *))
{
	struct cs_barrier *b = &r->bar;
	/* relaxed: the sense cannot move before we arrive below. */
	unsigned s = conq__load_relaxed(&b->sense);
	/* acq_rel: pairs with the other arrivals' increments, so the leader
	 * sees every thread's work before this barrier. */
	if (conq__faa_acq_rel(&b->count, 1) + 1 == r->nthreads) {
		if (lead != NULL)
			lead(r);
		/* relaxed: published by the release of the sense below. */
		conq__store_relaxed(&b->count, 0);
		/* release: pairs with the acquire loads of the waiters; hands
		 * them the leader's decisions and everyone's work. */
		conq__store_release(&b->sense, s + 1);
		return;
	}
	unsigned spins = 0;
	/* acquire: pairs with the leader's release of the sense. */
	while (conq__load_acquire(&b->sense) == s)
		cs_spin(&spins);
}

/* Has every canary been seen? Called by the leader inside a barrier, where
 * every thread's histogram is quiescent. */
static bool canaries_seen(const struct cs_run *r)
{
	for (unsigned c = 0; c < r->ncanaries; c++) {
		bool seen = false;
		for (unsigned i = 0; i < r->nthreads && !seen; i++) {
			const struct cs_hist *h = &r->th[i].hist;
			for (size_t k = 0; k < CS_HIST_SLOTS && !seen; k++)
				seen =
				    h->e[k].count &&
				    pattern_match(r->canaries[c], h->e[k].key);
		}
		if (!seen)
			return false;
	}
	return true;
}

/* The leader's decision for the next epoch: taken once, seen by all. */
static void decide_epoch(struct cs_run *r)
{
	struct cs_epoch *e = &r->ep;
	uint64_t now = now_ns();
	e->stop = r->epochs > 0 && now >= r->deadline;
	if (e->stop && r->ncanaries && now < r->extend_to &&
	    !canaries_seen(r)) {
		e->stop = false;
		r->extended = true;
	}
	if (e->stop) {
		r->t1 = now;
		return;
	}
	unsigned n = r->t->nactors;
	/* Layout: the states' stride (packed to the state's own alignment, or
	 * one to three lines more) and base offset, per epoch. */
	e->stride = r->base_stride + r->align * below(&r->rng, 3);
	if (e->stride > r->max_stride)
		e->stride = r->max_stride;
	e->offset = r->align * below(&r->rng, 4);
	/* Walk order: direct (neighbours in memory) or shuffled. */
	e->shuffled = below(&r->rng, 2) != 0;
	for (size_t i = 0; i < r->nstates; i++)
		r->perm[i] = (uint32_t)i;
	if (e->shuffled)
		for (size_t i = r->nstates - 1; i > 0; i--) {
			size_t j = below(&r->rng, i + 1);
			uint32_t x = r->perm[i];
			r->perm[i] = r->perm[j];
			r->perm[j] = x;
		}
	/* Role swap: which thread (hence which CPU) plays which actor. */
	for (unsigned i = 0; i < n; i++)
		e->role[i] = i;
	for (unsigned i = n - 1; i > 0; i--) {
		unsigned j = (unsigned)below(&r->rng, i + 1);
		unsigned x = e->role[i];
		e->role[i] = e->role[j];
		e->role[j] = x;
	}
	/* Start skew: most epochs none; else one actor starts each stride
	 * 1..255 pauses late, so either order of the racing accesses comes up.
	 */
	for (unsigned i = 0; i < n; i++)
		e->skew[i] = 0;
	if (below(&r->rng, 2) != 0)
		e->skew[below(&r->rng, n)] = 1 + (unsigned)below(&r->rng, 255);
}

static inline char *state_at(struct cs_run *r, size_t k)
{
	return r->mem + r->ep.offset + k * r->ep.stride;
}

static void slice(struct cs_run *r, unsigned idx, size_t *from, size_t *to)
{
	*from = r->nstates * idx / r->nthreads;
	*to = r->nstates * (idx + 1) / r->nthreads;
}

static void *actor_thread(void *arg)
{
	struct cs_thread *me = arg;
	struct cs_run *r = me->run;
	const struct cs_test *t = r->t;
	if (me->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET((size_t)me->cpu, &set);
		/* Best effort: a failed pin (an emulator) leaves it floating.
		 */
		(void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	}
	uint64_t strides_done = 0;
	size_t from, to;
	slice(r, me->idx, &from, &to);
	for (;;) {
		barrier_wait(r, decide_epoch);
		if (r->ep.stop)
			break;
		/* Fresh states (this epoch's layout) and results. */
		for (size_t k = from; k < to; k++) {
			char *s = state_at(r, k);
			memset(s, 0, t->state_size);
			if (t->init != NULL)
				t->init(s, t, k);
			memset(r->res + k * CS_MAX_RESULTS, 0,
			       CS_MAX_RESULTS * sizeof(int64_t));
		}
		barrier_wait(r, NULL);
		unsigned role = r->ep.role[me->idx];
		unsigned skew = r->ep.skew[role];
		struct cs_span sp = {.base = r->mem + r->ep.offset,
				     .stride = r->ep.stride,
				     .perm = r->perm,
				     .res = r->res};
		for (size_t s0 = 0; s0 < r->nstates; s0 += CS_STRIDE) {
			for (unsigned i = 0; i < skew; i++)
				conq__cpu_relax();
			sp.from = s0;
			sp.to = s0 + CS_STRIDE < r->nstates ? s0 + CS_STRIDE
							    : r->nstates;
			t->actors[role](&sp);
			/* The checkpoint: wait for every actor to finish this
			 * stride. acq_rel: pairs with the other actors'
			 * increments and with the acquire loads below; the
			 * purpose is timing, the ordering costs nothing next to
			 * the spin (the barriers order the states). */
			strides_done++;
			uint64_t target = strides_done * r->nthreads;
			conq__faa_acq_rel(&r->ckpt, 1);
			unsigned spins = 0;
			while (conq__load_acquire(&r->ckpt) < target)
				cs_spin(&spins);
		}
		barrier_wait(r, NULL);
		/* Arbiter and histogram over this thread's slice. */
		for (size_t k = from; k < to; k++) {
			int64_t *res = r->res + k * CS_MAX_RESULTS;
			if (t->arbiter != NULL)
				t->arbiter(state_at(r, k), res);
			hist_add(&me->hist, res, 1);
		}
		if (me->idx == 0)
			r->epochs++;
	}
	return NULL;
}

struct cs_opts {
	uint64_t seed;
	uint64_t budget_ms;
	uint64_t timeout_ms; /* 0: derived from the budget */
	const char *json;
	bool fork;
	bool emulated;	   /* under an emulator (qemu-user): see stress.h */
	unsigned max_cpus; /* 0: all */
	const char **patterns;
	size_t npatterns;
	char **copies; /* the --test arguments, split in place */
	size_t ncopies;
	const char *tier;
};

static int cpu_list(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;
	if (sched_getaffinity(0, sizeof set, &set) == 0) {
		for (int c = 0; c < CPU_SETSIZE && n < max; c++)
			if (CPU_ISSET((size_t)c, &set))
				cpus[n++] = c;
	}
	if (n == 0) {
		long k = sysconf(_SC_NPROCESSORS_ONLN);
		for (int c = 0; c < k && n < max; c++)
			cpus[n++] = c;
	}
	return n;
}

/* A grade as the table prints it, or (json) as the JSON record spells it. */
static const char *grade_name(enum cs_grade g, bool json)
{
	static const char *const names[][2] = {
	    [CS_ACCEPTABLE] = {"Acceptable", "ACCEPTABLE"},
	    [CS_INTERESTING] = {"Interesting", "INTERESTING"},
	    [CS_FORBIDDEN] = {"Forbidden", "FORBIDDEN"}};
	if (g != CS_ACCEPTABLE && g != CS_INTERESTING)
		g = CS_FORBIDDEN;
	return names[g][json];
}

static void format_key(char *out, size_t n, const int64_t *k, unsigned nres)
{
	size_t o = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < nres && o < n; i++)
		o += (size_t)snprintf(out + o, n - o, "%s%" PRId64,
				      i ? ", " : "", k[i]);
}

static int cmp_key_nres;
static int cmp_hent(const void *a, const void *b)
{
	const struct cs_hent *x = a, *y = b;
	for (int i = 0; i < cmp_key_nres; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return 0;
}

enum cs_status { CS_OK, CS_FAILED, CS_ERROR, CS_TIMEOUT, CS_SKIPPED };

static const char *status_name(enum cs_status s, bool interesting)
{
	switch (s) {
	case CS_OK:
		return interesting ? "INTERESTING" : "OK";
	case CS_FAILED:
		return "FAILED";
	case CS_ERROR:
		return "ERROR";
	case CS_TIMEOUT:
		return "TIMEOUT";
	default:
		return "SKIPPED";
	}
}

static uint64_t test_seed(uint64_t master, const char *name)
{
	uint64_t s = master ^ fnv1a(name);
	return splitmix(&s);
}

static void json_head(struct sbuf *j, const struct cs_test *t,
		      const struct cs_opts *o)
{
	sb_printf(j, "{\"test\":");
	sb_json_str(j, t->name);
	sb_printf(j,
		  ",\"seed\":\"0x%016" PRIx64 "\",\"test_seed\":\"0x%016" PRIx64
		  "\",\"budget_ms\":%" PRIu64 ",\"tier\":",
		  o->seed, test_seed(o->seed, t->name), o->budget_ms);
	sb_json_str(j, o->tier);
	if (t->ref) {
		sb_printf(j, ",\"ref\":");
		sb_json_str(j, t->ref);
	}
}

/* Run test t in this process; print its table; append its JSON record to
 * *j. Returns CS_OK, CS_FAILED or CS_ERROR. */
static enum cs_status run_test(const struct cs_test *t, const struct cs_opts *o,
			       const int *cpus, int ncpus, struct sbuf *j)
{
	struct cs_run *r = calloc(1, sizeof *r);
	struct cs_pattern *pats = calloc(t->noutcomes + 1, sizeof *pats);
	uint64_t *row_seen = calloc(t->noutcomes + 1, sizeof *row_seen);
	enum cs_status st = CS_OK;
	bool interesting = false;
	char msg[512] = "";
	struct cs_hist all = {0};

	if (r == NULL || pats == NULL || row_seen == NULL) {
		snprintf(msg, sizeof msg, "out of memory");
		st = CS_ERROR;
		goto out;
	}
	for (size_t i = 0; i < t->noutcomes; i++)
		if (!parse_pattern(t->outcomes[i].pattern, &pats[i]) ||
		    pats[i].n != t->nresults) {
			snprintf(msg, sizeof msg,
				 "bad outcome pattern '%s' (%u results)",
				 t->outcomes[i].pattern, t->nresults);
			st = CS_ERROR;
			goto out;
		}
	if (t->nactors < 1 || t->nactors > CS_MAX_ACTORS ||
	    t->nresults > CS_MAX_RESULTS) {
		snprintf(msg, sizeof msg, "bad test declaration");
		st = CS_ERROR;
		goto out;
	}

	r->t = t;
	r->nthreads = t->nactors;
	r->nstates = t->epoch_states ? t->epoch_states : CS_DEFAULT_STATES;
	r->nstates = r->nstates / CS_STATES_DIV < CS_STRIDE
			 ? CS_STRIDE
			 : r->nstates / CS_STATES_DIV;
	r->align = t->state_align < 64 ? 64 : t->state_align;
	r->base_stride = (t->state_size + r->align - 1) / r->align * r->align;
	r->max_stride = r->base_stride + 2 * r->align;
	size_t bytes = r->nstates * r->max_stride + 4 * r->align;
	void *mem = NULL;
	if (posix_memalign(&mem, r->align < 4096 ? 4096 : r->align, bytes)) {
		snprintf(msg, sizeof msg, "cannot allocate %zu bytes", bytes);
		st = CS_ERROR;
		goto out;
	}
	r->mem = mem;
	memset(r->mem, 0, bytes); /* pre-touch */
	r->res = calloc(r->nstates * CS_MAX_RESULTS, sizeof *r->res);
	r->perm = calloc(r->nstates, sizeof *r->perm);
	r->rng = test_seed(o->seed, t->name);
	uint64_t shift = below(&r->rng, (uint64_t)ncpus);
	bool hists = true;
	for (unsigned i = 0; i < r->nthreads; i++) {
		struct cs_thread *th = &r->th[i];
		th->run = r;
		th->idx = i;
		th->cpu = cpus[(shift + i) % (uint64_t)ncpus];
		th->hist.nres = t->nresults;
		th->hist.e = calloc(CS_HIST_SLOTS, sizeof *th->hist.e);
		hists = hists && th->hist.e != NULL;
	}
	all.nres = t->nresults;
	all.e = calloc(CS_HIST_SLOTS, sizeof *all.e);
	if (!hists || r->res == NULL || r->perm == NULL || all.e == NULL) {
		snprintf(msg, sizeof msg, "out of memory");
		st = CS_ERROR;
		goto out;
	}

	r->t0 = now_ns();
	r->deadline = r->t0 + o->budget_ms * 1000000ULL;
	/* Up to 10 x the budget (at least 2 s more) for a missing canary;
	 * the watchdog allows 10 x the budget + 20 s. */
	r->extend_to = r->deadline + 9 * o->budget_ms * 1000000ULL;
	if (r->extend_to < r->deadline + 2000000000ULL)
		r->extend_to = r->deadline + 2000000000ULL;
	if (CS_CANARY_STRICT)
		for (size_t p = 0; p < t->noutcomes; p++)
			if ((t->outcomes[p].required_on & CS_PLATFORM) &&
			    r->ncanaries < CS_MAX_CANARIES)
				r->canaries[r->ncanaries++] = &pats[p];
	unsigned started = 0;
	for (unsigned i = 0; i < r->nthreads; i++) {
		if (pthread_create(&r->th[i].th, NULL, actor_thread, &r->th[i]))
			break;
		started++;
	}
	if (started != r->nthreads) {
		/* Cannot happen in practice; the started threads would wait
		 * forever at the first barrier, so let the watchdog act. */
		snprintf(msg, sizeof msg, "pthread_create failed");
		fprintf(stderr, "conq-stress: %s: %s\n", t->name, msg);
		for (;;)
			pause();
	}
	for (unsigned i = 0; i < r->nthreads; i++)
		pthread_join(r->th[i].th, NULL);

	for (unsigned i = 0; i < r->nthreads; i++) {
		struct cs_hist *h = &r->th[i].hist;
		for (size_t k = 0; k < CS_HIST_SLOTS; k++)
			if (h->e[k].count)
				hist_add(&all, h->e[k].key, h->e[k].count);
		all.overflow += h->overflow;
	}

out:;
	/* Collect, sort and grade. */
	size_t nk = 0;
	uint64_t total = 0, forbidden = 0;
	struct cs_hent *keys = NULL;
	enum cs_grade *kgrade = NULL;
	const char **kdesc = NULL;
	if (st == CS_OK) {
		keys = calloc(CS_HIST_SLOTS, sizeof *keys);
		kgrade = calloc(CS_HIST_SLOTS, sizeof *kgrade);
		kdesc = calloc(CS_HIST_SLOTS, sizeof *kdesc);
		if (keys == NULL || kgrade == NULL || kdesc == NULL) {
			snprintf(msg, sizeof msg, "out of memory");
			st = CS_ERROR;
		}
	}
	if (st == CS_OK) {
		for (size_t k = 0; k < CS_HIST_SLOTS; k++)
			if (all.e[k].count)
				keys[nk++] = all.e[k];
		cmp_key_nres = (int)t->nresults;
		qsort(keys, nk, sizeof *keys, cmp_hent);
		for (size_t i = 0; i < nk; i++) {
			kgrade[i] = CS_FORBIDDEN;
			kdesc[i] = "unlisted outcome: forbidden";
			for (size_t p = 0; p < t->noutcomes; p++)
				if (pattern_match(&pats[p], keys[i].key)) {
					kgrade[i] = t->outcomes[p].grade;
					kdesc[i] = t->outcomes[p].desc;
					row_seen[p] += keys[i].count;
					break;
				}
			total += keys[i].count;
			if (kgrade[i] == CS_FORBIDDEN)
				forbidden += keys[i].count;
			if (kgrade[i] == CS_INTERESTING)
				interesting = true;
		}
		if (all.overflow) {
			snprintf(msg, sizeof msg,
				 "%" PRIu64 " samples of too many distinct "
				 "outcomes (> %d)",
				 all.overflow, CS_HIST_SLOTS);
			st = CS_ERROR;
		} else if (forbidden) {
			snprintf(msg, sizeof msg,
				 "%" PRIu64 " FORBIDDEN samples", forbidden);
			st = CS_FAILED;
		}
		for (size_t p = 0; p < t->noutcomes; p++)
			if ((t->outcomes[p].required_on & CS_PLATFORM) &&
			    row_seen[p] == 0) {
				size_t l = strlen(msg);
				snprintf(msg + l, sizeof msg - l,
					 "%scanary '%s' REQUIRED "
					 "on " CS_PLATFORM_NAME
					 " was not seen%s",
					 l ? "; " : "", t->outcomes[p].pattern,
					 CS_CANARY_STRICT
					     ? ""
					     : " (reported only: sanitizer "
					       "build)");
				if (st == CS_OK && CS_CANARY_STRICT)
					st = CS_FAILED;
			}
	}

	/* The table. */
	double secs = r && r->t1 > r->t0 ? (double)(r->t1 - r->t0) / 1e9 : 0;
	char cnt[40];
	print_count(cnt, sizeof cnt, total);
	printf("\n[%s] %s\n", status_name(st, interesting), t->name);
	printf("    %s\n", t->desc);
	if (t->ref)
		printf("    ref: %s\n", t->ref);
	if (t->note)
		printf("    note: %s\n", t->note);
	if (r && r->epochs) {
		printf("    %s samples in %" PRIu64 " epochs, %.2f s; actors %u"
		       " on cpus",
		       cnt, r->epochs, secs, t->nactors);
		for (unsigned i = 0; i < r->nthreads; i++)
			printf("%c%d", i ? ',' : ' ', r->th[i].cpu);
		printf("; seed 0x%016" PRIx64 " (replay: --seed 0x%016" PRIx64
		       " --test %s)\n",
		       test_seed(o->seed, t->name), o->seed, t->name);
		if (r->extended)
			printf("    ran past the %" PRIu64 " ms budget (up to "
			       "10x) waiting for a REQUIRED outcome\n",
			       o->budget_ms);
	}
	if (msg[0])
		printf("    %s\n", msg);
	if (st == CS_OK || st == CS_FAILED) {
		printf("    %-24s %15s %8s %12s  %s\n",
		       t->rnames ? t->rnames : "RESULT", "SAMPLES", "FREQ",
		       "EXPECT", "DESCRIPTION");
		for (size_t i = 0; i < nk; i++) {
			char key[160], c[40], freq[16];
			format_key(key, sizeof key, keys[i].key, t->nresults);
			print_count(c, sizeof c, keys[i].count);
			double f = 100.0 * (double)keys[i].count /
				   (double)(total ? total : 1);
			if (f < 0.01)
				snprintf(freq, sizeof freq, "<0.01%%");
			else
				snprintf(freq, sizeof freq, "%.2f%%", f);
			printf("    %-24s %15s %8s %12s  %s\n", key, c, freq,
			       grade_name(kgrade[i], false), kdesc[i]);
		}
		/* Declared outcomes never seen: exact ones as 0-sample rows,
		 * every canary with its verdict. */
		for (size_t p = 0; p < t->noutcomes; p++) {
			const struct cs_outcome *oc = &t->outcomes[p];
			bool canary = (oc->required_on & CS_PLATFORM) != 0;
			if (row_seen[p] == 0 && (pats[p].exact || canary))
				printf("    %-24s %15s %8s %12s  %s%s\n",
				       oc->pattern, "0", "0.00%",
				       grade_name(oc->grade, false), oc->desc,
				       !canary ? ""
				       : CS_CANARY_STRICT
					   ? " [canary MISSING]"
					   : " [canary not seen; "
					     "not required in "
					     "sanitizer builds]");
			else if (canary)
				printf("    %-24s %15s %8s %12s  canary "
				       "REQUIRED on " CS_PLATFORM_NAME
				       ": seen\n",
				       oc->pattern, "", "", "");
		}
	}
	fflush(stdout);

	/* The JSON record. */
	json_head(j, t, o);
	sb_printf(j, ",\"status\":\"%s\",\"interesting\":%s",
		  status_name(st, false), interesting ? "true" : "false");
	if (r) {
		sb_printf(j,
			  ",\"actors\":%u,\"epochs\":%" PRIu64
			  ",\"states_per_epoch\":%zu,\"samples\":%" PRIu64
			  ",\"duration_ms\":%.1f,\"cpus\":[",
			  t->nactors, r->epochs, r->nstates, total, secs * 1e3);
		for (unsigned i = 0; i < r->nthreads; i++)
			sb_printf(j, "%s%d", i ? "," : "", r->th[i].cpu);
		sb_printf(j, "],\"extended\":%s",
			  r->extended ? "true" : "false");
	}
	sb_printf(j, ",\"histogram\":[");
	for (size_t i = 0; i < nk; i++) {
		sb_printf(j, "%s{\"key\":[", i ? "," : "");
		for (unsigned f = 0; f < t->nresults; f++)
			sb_printf(j, "%s%" PRId64, f ? "," : "",
				  keys[i].key[f]);
		sb_printf(j, "],\"count\":%" PRIu64 ",\"grade\":\"%s\"",
			  keys[i].count, grade_name(kgrade[i], true));
		sb_printf(j, ",\"desc\":");
		sb_json_str(j, kdesc[i]);
		sb_printf(j, "}");
	}
	sb_printf(j, "],\"message\":");
	sb_json_str(j, msg);
	sb_printf(j, "}\n");

	free(keys);
	free(kgrade);
	free(kdesc);
	free(all.e);
	if (r) {
		for (unsigned i = 0; i < CS_MAX_ACTORS; i++)
			free(r->th[i].hist.e);
		free(r->mem);
		free(r->res);
		free(r->perm);
		free(r);
	}
	free(pats);
	free(row_seen);
	return st;
}

/* ---- the parent: select, fork, watch, summarise ---- */

static bool selected(const struct cs_test *t, const struct cs_opts *o)
{
	if (o->npatterns == 0)
		return !(t->flags & CS_EXPLICIT);
	for (size_t i = 0; i < o->npatterns; i++) {
		const char *p = o->patterns[i];
		if (fnmatch(p, t->name, 0) != 0)
			continue;
		/* An explicit-only test needs a pattern that names its first
		 * component literally (selfcheck.*, not *). */
		if ((t->flags & CS_EXPLICIT) &&
		    strncmp(p, t->name, strcspn(t->name, ".")) != 0)
			continue;
		return true;
	}
	return false;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: conq-stress [options]\n"
	    "  --list              list the tests (selected by --test)\n"
	    "  --test PATTERN      run the tests whose name matches the "
	    "glob (repeatable;\n"
	    "                      comma-separated lists too); default: all\n"
	    "  --tier T            short (ctest), quick (make stress) or "
	    "long: time per test\n"
	    "  --budget-ms N       time per test, overriding the tier\n"
	    "  --timeout-ms N      watchdog per test (default 10 x budget "
	    "+ 20 s)\n"
	    "  --seed N            master seed (decimal or 0x hex); a "
	    "test's seed is derived\n"
	    "                      from it and the test's name\n"
	    "  --json FILE         append one JSON line per test (and a "
	    "header line)\n"
	    "  --cpus N            use at most N CPUs\n"
	    "  --emulated          running under qemu-user: skip the "
	    "tests it cannot emulate\n"
	    "  --no-fork           run tests in this process (debugging)\n");
}

static bool add_patterns(struct cs_opts *o, const char *arg)
{
	char *copy = strdup(arg);
	if (copy == NULL)
		return false;
	char **nc = realloc(o->copies, (o->ncopies + 1) * sizeof *nc);
	if (nc == NULL) {
		free(copy);
		return false;
	}
	o->copies = nc;
	o->copies[o->ncopies++] = copy;
	for (char *save = NULL, *p = strtok_r(copy, ",", &save); p;
	     p = strtok_r(NULL, ",", &save)) {
		const char **np =
		    realloc(o->patterns, (o->npatterns + 1) * sizeof *np);
		if (np == NULL)
			return false;
		o->patterns = np;
		o->patterns[o->npatterns++] = p;
	}
	return true;
}

static void free_opts(struct cs_opts *o)
{
	free(o->patterns);
	for (size_t i = 0; i < o->ncopies; i++)
		free(o->copies[i]);
	free(o->copies);
	o->patterns = NULL;
	o->copies = NULL;
	o->npatterns = o->ncopies = 0;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return end != s && *end == '\0' && errno == 0;
}

int main(int argc, char **argv)
{
	struct cs_opts o = {.fork = true, .tier = "quick"};
	bool list = false, have_seed = false, have_budget = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--list") == 0) {
			list = true;
		} else if (strcmp(a, "--emulated") == 0) {
			o.emulated = true;
		} else if (strcmp(a, "--no-fork") == 0) {
			o.fork = false;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (v == NULL) {
			fprintf(stderr, "conq-stress: bad option '%s'\n", a);
			usage(stderr);
			return 3;
		} else if (strcmp(a, "--test") == 0) {
			if (!add_patterns(&o, v))
				return 3;
			i++;
		} else if (strcmp(a, "--tier") == 0) {
			if (strcmp(v, "short") && strcmp(v, "quick") &&
			    strcmp(v, "long")) {
				fprintf(stderr,
					"conq-stress: unknown tier '%s'\n", v);
				return 3;
			}
			o.tier = v;
			i++;
		} else if (strcmp(a, "--budget-ms") == 0) {
			if (!parse_u64(v, &o.budget_ms))
				return 3;
			have_budget = true;
			i++;
		} else if (strcmp(a, "--timeout-ms") == 0) {
			if (!parse_u64(v, &o.timeout_ms))
				return 3;
			i++;
		} else if (strcmp(a, "--seed") == 0) {
			if (!parse_u64(v, &o.seed))
				return 3;
			have_seed = true;
			i++;
		} else if (strcmp(a, "--json") == 0) {
			o.json = v;
			i++;
		} else if (strcmp(a, "--cpus") == 0) {
			uint64_t n;
			if (!parse_u64(v, &n) || n == 0 || n > 1024)
				return 3;
			o.max_cpus = (unsigned)n;
			i++;
		} else {
			fprintf(stderr, "conq-stress: bad option '%s'\n", a);
			usage(stderr);
			return 3;
		}
	}
	if (!have_budget)
		o.budget_ms = strcmp(o.tier, "short") == 0   ? 350
			      : strcmp(o.tier, "quick") == 0 ? 1000
							     : 10000;
	if (o.timeout_ms == 0)
		o.timeout_ms = 10 * o.budget_ms + 20000;
	if (!have_seed) {
		uint64_t s = now_ns() ^ ((uint64_t)getpid() << 32);
		o.seed = splitmix(&s);
	}

	size_t nsel = 0;
	for (size_t i = 0; i < cs_ntests; i++)
		if (selected(cs_tests[i], &o))
			nsel++;
	if (list) {
		for (size_t i = 0; i < cs_ntests; i++)
			if (selected(cs_tests[i], &o))
				printf("%s\n", cs_tests[i]->name);
		free_opts(&o);
		return nsel ? 0 : 4;
	}
	if (nsel == 0) {
		fprintf(stderr, "conq-stress: no test selected\n");
		free_opts(&o);
		return 4;
	}

	int cpus[1024];
	int ncpus = cpu_list(cpus, 1024);
	if (o.max_cpus && (unsigned)ncpus > o.max_cpus)
		ncpus = (int)o.max_cpus;

	FILE *jf = NULL;
	if (o.json) {
		jf = fopen(o.json, "a");
		if (jf == NULL) {
			perror(o.json);
			return 3;
		}
		struct utsname u;
		struct sbuf h = {0};
		uname(&u);
		sb_printf(&h, "{\"run\":{\"tool\":\"conq-stress\",\"build\":");
		sb_json_str(&h, CS_BUILD_INFO);
		sb_printf(
		    &h, ",\"platform\":\"%s\",\"machine\":", CS_PLATFORM_NAME);
		sb_json_str(&h, u.machine);
		sb_printf(&h, ",\"kernel\":");
		sb_json_str(&h, u.release);
		sb_printf(&h,
			  ",\"cpus\":%d,\"seed\":\"0x%016" PRIx64
			  "\",\"tier\":\"%s\",\"budget_ms\":%" PRIu64
			  ",\"fences\":",
			  ncpus, o.seed, o.tier, o.budget_ms);
		sb_json_str(&h, CS_FENCE_MODE);
		sb_printf(&h, ",\"tests\":%zu}}\n", nsel);
		fputs(h.p, jf);
		fflush(jf);
		free(h.p);
	}

	printf("conq-stress: %zu tests, tier %s, %" PRIu64
	       " ms each, %d cpus, %s, fences: %s, seed 0x%016" PRIx64 "\n",
	       nsel, o.tier, o.budget_ms, ncpus, CS_PLATFORM_NAME,
	       CS_FENCE_MODE, o.seed);
	fflush(stdout);

	unsigned passed = 0, failed = 0, skipped = 0, errors = 0;
	struct sbuf failures = {0};
	for (size_t i = 0; i < cs_ntests; i++) {
		const struct cs_test *t = cs_tests[i];
		if (!selected(t, &o))
			continue;
		struct sbuf j = {0};
		enum cs_status st;
		unsigned need = t->min_cpus ? t->min_cpus : 2;
		char why[160] = "";
		if (t->skip)
			snprintf(why, sizeof why, "%s", t->skip);
		else if (o.emulated && (t->flags & CS_HW_SC_STORE_LOAD))
			snprintf(why, sizeof why,
				 "--emulated: qemu-user does not order a "
				 "seq_cst store before a later seq_cst load "
				 "(Arm STLR; LDAR); run it on hardware");
		else if ((unsigned)ncpus < need)
			snprintf(why, sizeof why, "needs %u CPUs, %d available",
				 need, ncpus);
		if (why[0]) {
			printf("\n[SKIPPED] %s\n    %s\n    %s\n", t->name,
			       t->desc, why);
			fflush(stdout);
			json_head(&j, t, &o);
			sb_printf(&j, ",\"status\":\"SKIPPED\",\"message\":");
			sb_json_str(&j, why);
			sb_printf(&j, "}\n");
			st = CS_SKIPPED;
		} else if (!o.fork) {
			st = run_test(t, &o, cpus, ncpus, &j);
		} else {
			int fds[2];
			fflush(stdout);
			fflush(stderr);
			if (pipe(fds) != 0) {
				perror("pipe");
				return 2;
			}
			pid_t pid = fork();
			if (pid < 0) {
				perror("fork");
				return 2;
			}
			if (pid == 0) {
				close(fds[0]);
				st = run_test(t, &o, cpus, ncpus, &j);
				size_t off = 0;
				while (off < j.len) {
					ssize_t w = write(fds[1], j.p + off,
							  j.len - off);
					if (w <= 0)
						break;
					off += (size_t)w;
				}
				close(fds[1]);
				free(j.p);
				free(failures.p);
				fflush(stdout);
				_exit(st == CS_OK	? 0
				      : st == CS_FAILED ? 1
							: 2);
			}
			close(fds[1]);
			uint64_t deadline =
			    now_ns() + o.timeout_ms * 1000000ULL;
			bool timed_out = false;
			char buf[4096];
			for (;;) {
				uint64_t now = now_ns();
				if (now >= deadline) {
					timed_out = true;
					break;
				}
				struct pollfd pf = {.fd = fds[0],
						    .events = POLLIN};
				uint64_t left = (deadline - now) / 1000000ULL;
				int pr = poll(
				    &pf, 1, left > 1000 ? 1000 : (int)left + 1);
				if (pr < 0 && errno == EINTR)
					continue;
				if (pr <= 0)
					continue;
				ssize_t n = read(fds[0], buf, sizeof buf);
				if (n <= 0)
					break;
				sb_printf(&j, "%.*s", (int)n, buf);
			}
			close(fds[0]);
			int wst = 0;
			if (timed_out) {
				kill(pid, SIGKILL);
				waitpid(pid, &wst, 0);
				st = CS_TIMEOUT;
			} else {
				/* EOF: the child is exiting; give it the rest
				 * of the watchdog to do so. */
				pid_t w;
				while ((w = waitpid(pid, &wst, WNOHANG)) == 0 &&
				       now_ns() < deadline)
					usleep(1000);
				if (w == 0) {
					kill(pid, SIGKILL);
					waitpid(pid, &wst, 0);
					st = CS_TIMEOUT;
				} else if (WIFEXITED(wst)) {
					int c = WEXITSTATUS(wst);
					st = c == 0   ? CS_OK
					     : c == 1 ? CS_FAILED
						      : CS_ERROR;
				} else {
					st = CS_ERROR;
				}
			}
			if (st == CS_TIMEOUT ||
			    (st == CS_ERROR && j.len == 0) ||
			    (WIFSIGNALED(wst) && !timed_out)) {
				char why2[160];
				if (st == CS_TIMEOUT)
					snprintf(why2, sizeof why2,
						 "no result within %" PRIu64
						 " ms: killed (a hang)",
						 o.timeout_ms);
				else if (WIFSIGNALED(wst))
					snprintf(why2, sizeof why2,
						 "crashed: killed by signal %d "
						 "(%s)",
						 WTERMSIG(wst),
						 strsignal(WTERMSIG(wst)));
				else
					snprintf(
					    why2, sizeof why2,
					    "exited %d without a result (a "
					    "sanitizer report above?)",
					    WIFEXITED(wst) ? WEXITSTATUS(wst)
							   : -1);
				if (st != CS_TIMEOUT)
					st = CS_ERROR;
				printf("\n[%s] %s\n    %s\n    %s\n",
				       status_name(st, false), t->name, t->desc,
				       why2);
				fflush(stdout);
				j.len = 0;
				json_head(&j, t, &o);
				sb_printf(&j, ",\"status\":\"%s\",\"message\":",
					  status_name(st, false));
				sb_json_str(&j, why2);
				sb_printf(&j, "}\n");
			}
		}
		if (jf && j.len) {
			fwrite(j.p, 1, j.len, jf);
			fflush(jf);
		}
		free(j.p);
		switch (st) {
		case CS_OK:
			passed++;
			break;
		case CS_SKIPPED:
			skipped++;
			break;
		case CS_FAILED:
			failed++;
			sb_printf(&failures, "  FAILED  %s\n", t->name);
			break;
		default:
			failed++;
			errors++;
			sb_printf(&failures, "  %s  %s\n",
				  status_name(st, false), t->name);
			break;
		}
	}
	if (jf)
		fclose(jf);

	printf("\nRUN RESULTS: seed 0x%016" PRIx64 "\n", o.seed);
	if (failures.len)
		printf("%s", failures.p);
	free(failures.p);
	free_opts(&o);
	if (skipped)
		printf("%u skipped\n", skipped);
	printf("%u passed, %u failed\n", passed, failed);
	fflush(stdout);
	if (errors)
		return 2;
	if (failed)
		return 1;
	if (passed == 0)
		return skipped ? 77 : 4;
	return 0;
}
