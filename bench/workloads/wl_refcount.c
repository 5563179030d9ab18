/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Refcount: reference counts (issue 15), conq/refcount.h against the
 * counts a C program would otherwise use. Not a queue: the contenders
 * (rType) are this file's, each count's operations inlined into the
 * harness's measured loop (CB_OP_LOOPS), the same loop for all.
 *
 *   Refcount.cycle   one thread, a recycled object: init to 1, a write to
 *                    the payload, retain, release (false), release (true:
 *                    the object is "freed" and used again). One op = one
 *                    cycle (avgt: ns per cycle).
 *   Refcount.shared  N threads (threads, default 2) on one object whose
 *                    count is 1 (the control thread's reference): each
 *                    loops retain, release (false), the count's line moving
 *                    between the cores. One op = one pair (avgt: the mean
 *                    over the threads of each one's ns per pair; thrpt:
 *                    pairs per us, all threads).
 *
 * The contenders:
 *
 *   conq:refcount           conq_refcount_init/retain/release: a relaxed
 *                           init, a relaxed saturating fetch_add, a release
 *                           fetch_sub and an acquire load for the last
 *   baseline:seq_cst_init   the same, but the init is a seq_cst store
 *                           (__atomic_store_n(&n, 1, __ATOMIC_SEQ_CST): an
 *                           xchg on x86-64), as Netty's volatile store in
 *                           its constructor; what the relaxed init saves
 *   baseline:kernel         Linux's refcount_t written here (refcount_set,
 *                           refcount_inc, refcount_dec_and_test): a relaxed
 *                           fetch_add whose old value is checked (0: use
 *                           after free; INT_MAX: overflow), a release
 *                           fetch_sub checked below 1, an acquire fence for
 *                           the last; a bad count saturates at INT_MIN / 2
 *   baseline:unchecked      a plain count: relaxed store, relaxed fetch_add,
 *                           release fetch_sub + acquire load for the last,
 *                           no check: what the saturation checks cost is
 *                           conq's time over this one's
 *   glib:g_atomic_ref_count GLib's gatomicrefcount through its functions
 *                           (g_atomic_ref_count_init/inc/dec, libglib: a
 *                           call each, with g_return_if_fail checks, as a
 *                           program built without G_DISABLE_CHECKS gets)
 *   glib:g_atomic_ref_count_inline  the same API as GLib's macros under
 *                           G_DISABLE_CHECKS (inlined seq_cst atomics, a
 *                           plain init, saturating inc)
 *
 * Checks after every iteration: every release returned what it must (the
 * cycle's first false, its second true; the pair's release false), the
 * count is what it must be (cycle: 0, shared: 1), and the payload holds the
 * cycle's last write. A wrong answer is an invariant violation.
 *
 * The report prints the ratios of conq:refcount to each other contender and
 * issue 15's targets: the cycle at most 0.85x the seq_cst-init variant's,
 * and the saturation checks within noise of the unchecked count (conq /
 * unchecked: the median of the per-round ratios at most 1.05x, or 1x
 * within their interquartile range).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CB_HAVE_GLIB
/* The macros of glib/grefcount.h (for ..._inline); the functions are
 * called as (g_atomic_ref_count_inc)(...), the parentheses keeping the
 * macro out. */
#define G_DISABLE_CHECKS 1
#include <glib.h>
#endif

#include "conq/refcount.h"
#include "report.h"
#include "stats.h"
#include "wl_contest.h"

#define RC_CYCLE_BENCH "Refcount.cycle"
#define RC_SHARED_BENCH "Refcount.shared"

/* The counted object: the count and the payload in one line, as a real
 * object has them. Each contender uses its own member of the union. */
typedef struct rc_obj {
	CB_ALIGNAS(CB_PAD) union {
		conq_refcount conq;
		int32_t n;
#ifdef CB_HAVE_GLIB
		gatomicrefcount g;
#endif
	} rc;
	uint64_t payload[7];
} rc_obj;

/* ---- the counts: _init (to 1), _retain, _release, _get ------------------ */

static inline void rc_conq_init(rc_obj *o)
{
	conq_refcount_init(&o->rc.conq, 1);
}
static inline void rc_conq_retain(rc_obj *o)
{
	conq_refcount_retain(&o->rc.conq);
}
static inline bool rc_conq_release(rc_obj *o)
{
	return conq_refcount_release(&o->rc.conq);
}
static inline int32_t rc_conq_get(const rc_obj *o)
{
	return conq_refcount_get(&o->rc.conq);
}

/* conq's count with the init of a constructor's volatile store. */
static inline void rc_seqcst_init(rc_obj *o)
{
	__atomic_store_n(&o->rc.conq.n, 1, __ATOMIC_SEQ_CST);
}
#define rc_seqcst_retain rc_conq_retain
#define rc_seqcst_release rc_conq_release
#define rc_seqcst_get rc_conq_get

/* Linux's refcount_t (include/linux/refcount.h, lib/refcount.c). */
#define RC_KERNEL_SATURATED (INT32_MIN / 2)
/* refcount_warn_saturate, less the warning: out of line, as the kernel's. */
static __attribute__((noinline, cold)) void rc_kernel_saturate(rc_obj *o)
{
	__atomic_store_n(&o->rc.n, RC_KERNEL_SATURATED, __ATOMIC_RELAXED);
}
static inline void rc_kernel_init(rc_obj *o)
{
	/* refcount_set: atomic_set, a plain (relaxed) store. */
	__atomic_store_n(&o->rc.n, 1, __ATOMIC_RELAXED);
}
static inline void rc_kernel_retain(rc_obj *o)
{
	/* __refcount_add: fetch_add relaxed; 0 is a use after free, old < 0
	 * or old + 1 < 0 (old == INT_MAX) an overflow. */
	int32_t old = __atomic_fetch_add(&o->rc.n, 1, __ATOMIC_RELAXED);
	if (CONQ__UNLIKELY(old <= 0 || old == INT32_MAX))
		rc_kernel_saturate(o);
}
static inline bool rc_kernel_release(rc_obj *o)
{
	/* __refcount_sub_and_test: fetch_sub release; the last one then
	 * smp_acquire__after_ctrl_dep(), an acquire fence; old - 1 < 0 is
	 * an underflow. */
	int32_t old = __atomic_fetch_sub(&o->rc.n, 1, __ATOMIC_RELEASE);
	if (old == 1) {
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		return true;
	}
	if (CONQ__UNLIKELY(old <= 0))
		rc_kernel_saturate(o);
	return false;
}
static inline int32_t rc_kernel_get(const rc_obj *o)
{
	return __atomic_load_n(&o->rc.n, __ATOMIC_RELAXED);
}

/* A count with no check at all. */
static inline void rc_plain_init(rc_obj *o)
{
	__atomic_store_n(&o->rc.n, 1, __ATOMIC_RELAXED);
}
static inline void rc_plain_retain(rc_obj *o)
{
	__atomic_fetch_add(&o->rc.n, 1, __ATOMIC_RELAXED);
}
static inline bool rc_plain_release(rc_obj *o)
{
	if (__atomic_fetch_sub(&o->rc.n, 1, __ATOMIC_RELEASE) != 1)
		return false;
	(void)__atomic_load_n(&o->rc.n, __ATOMIC_ACQUIRE);
	return true;
}
#define rc_plain_get rc_kernel_get

#ifdef CB_HAVE_GLIB
/* GLib's functions (libglib: a call each). */
static inline void rc_glib_init(rc_obj *o)
{
	(g_atomic_ref_count_init)(&o->rc.g);
}
static inline void rc_glib_retain(rc_obj *o)
{
	(g_atomic_ref_count_inc)(&o->rc.g);
}
static inline bool rc_glib_release(rc_obj *o)
{
	return (g_atomic_ref_count_dec)(&o->rc.g) != 0;
}
static inline int32_t rc_glib_get(const rc_obj *o)
{
	return __atomic_load_n(&o->rc.g, __ATOMIC_RELAXED);
}

/* GLib's macros under G_DISABLE_CHECKS. */
static inline void rc_glibm_init(rc_obj *o)
{
	g_atomic_ref_count_init(&o->rc.g);
}
static inline void rc_glibm_retain(rc_obj *o)
{
	g_atomic_ref_count_inc(&o->rc.g);
}
static inline bool rc_glibm_release(rc_obj *o)
{
	return g_atomic_ref_count_dec(&o->rc.g) != 0;
}
#define rc_glibm_get rc_glib_get
#endif

/* ---- the measured ops --------------------------------------------------- */

/* One cycle of a recycled object; `bad` counts the releases that answered
 * wrong. */
#define RC_CYCLE(P, o, seq, bad)                                               \
	do {                                                                   \
		P##_init(o);                                                   \
		(o)->payload[0] = ++(seq); /* the owner's write */             \
		P##_retain(o);                                                 \
		(bad) += P##_release(o) ? 1u : 0u;                             \
		(bad) += P##_release(o) ? 0u : 1u;                             \
	} while (0)

/* One retain + release on a count others hold too (seq unused). */
#define RC_PAIR(P, o, seq, bad)                                                \
	do {                                                                   \
		P##_retain(o);                                                 \
		(bad) += P##_release(o) ? 1u : 0u;                             \
	} while (0)

/* The role NAME of count P, whose op is OP (RC_CYCLE, RC_PAIR; w->seq: the
 * payload's last value). */
#define RC_ROLE(P, NAME, OP)                                                   \
	static void P##_##NAME##_role(cb_worker *w)                            \
	{                                                                      \
		rc_obj *const o = (rc_obj *)w->q;                              \
		cb_ctl *const ctl = w->ctl;                                    \
		uint64_t made = 0, extra = 0, bad = 0, seq = w->seq;           \
		CB_WL_CONTEST_LOOPS(ctl, u0_, made, extra, t0, t1, OP, P, o,   \
				    seq, bad);                                 \
		w->seq = seq;                                                  \
		cb_worker_done(w, made, 0, extra, bad, t0, t1, &u0_);          \
	}

/* The roles of count P, the cycle and the pair, and its init and count
 * read for the setup and the checks. */
#define RC_ROLES(P)                                                            \
	RC_ROLE(P, cycle, RC_CYCLE)                                            \
	RC_ROLE(P, shared, RC_PAIR)                                            \
	static void P##_init_fn(rc_obj *o)                                     \
	{                                                                      \
		P##_init(o);                                                   \
	}                                                                      \
	static int32_t P##_get_fn(const rc_obj *o)                             \
	{                                                                      \
		return P##_get(o);                                             \
	}

/* A contender: what the reports see (a), its two roles, and its init and
 * count read for the setup and the checks (single-threaded, between
 * iterations). */
typedef struct rc_contender {
	cb_adapter a; /* first: results point at it */
	cb_role_fn cycle, shared;
	void (*init)(rc_obj *o);
	int32_t (*get)(const rc_obj *o);
} rc_contender;

/* Count P's contender, P_contender, after its roles (RC_ROLES). */
#define RC_CONTENDER(P, NAME, FAMILY, KIND, DESC)                              \
	RC_ROLES(P)                                                            \
	static const rc_contender P##_contender = {                            \
	    .a = {.name = NAME, .family = FAMILY, .desc = DESC, .kind = KIND}, \
	    .cycle = P##_cycle_role,                                           \
	    .shared = P##_shared_role,                                         \
	    .init = P##_init_fn,                                               \
	    .get = P##_get_fn,                                                 \
	};

RC_CONTENDER(rc_conq, "conq:refcount", "conq", CB_KIND_OWN,
	     "conq/refcount.h: relaxed init, saturating relaxed retain, "
	     "release + acquire load for the last")
RC_CONTENDER(rc_seqcst, "baseline:seq_cst_init", "baseline", CB_KIND_BASELINE,
	     "conq's count with a seq_cst init (a constructor's volatile "
	     "store: xchg on x86-64)")
RC_CONTENDER(rc_kernel, "baseline:kernel", "baseline", CB_KIND_BASELINE,
	     "Linux refcount_t's checks written here (relaxed inc, release "
	     "dec, acquire fence, saturation)")
RC_CONTENDER(rc_plain, "baseline:unchecked", "baseline", CB_KIND_BASELINE,
	     "a plain count: relaxed inc, release dec + acquire load for the "
	     "last, no check")
#ifdef CB_HAVE_GLIB
RC_CONTENDER(rc_glib, "glib:g_atomic_ref_count", "glib", CB_KIND_PEER,
	     "GLib g_atomic_ref_count_init/inc/dec, the library's functions "
	     "(a call each, with checks)")
RC_CONTENDER(rc_glibm, "glib:g_atomic_ref_count_inline", "glib", CB_KIND_PEER,
	     "GLib's gatomicrefcount macros under G_DISABLE_CHECKS (inline "
	     "seq_cst atomics)")
#endif

static const cb_adapter *const rc_contenders[] = {
	&rc_conq_contender.a,
	&rc_seqcst_contender.a,
	&rc_kernel_contender.a,
	&rc_plain_contender.a,
#ifdef CB_HAVE_GLIB
	&rc_glib_contender.a,
	&rc_glibm_contender.a,
#endif
};

/* ---- the trials --------------------------------------------------------- */

typedef struct rc_ctx {
	const rc_contender *c;
	rc_obj *obj;
	bool shared, avgt;
} rc_ctx;

static double rc_after(cb_wl_trial *t, int measured, size_t m, char *line,
		       size_t n)
{
	rc_ctx *x = (rc_ctx *)t->user;
	uint64_t bad = 0;
	for (unsigned k = 0; k < t->nthreads; k++)
		bad += t->g.w[k].seq_errors;
	if (bad != 0)
		cb_wl_violation(t, "release",
				"%" PRIu64 " releases answered wrong (%s)", bad,
				x->shared ? "true on a count still held"
					  : "the last not true, or another "
					    "true");
	const int32_t want = x->shared ? 1 : 0;
	const int32_t got = x->c->get(x->obj);
	if (got != want)
		cb_wl_violation(t, "count", "%" PRId32 " after the iteration, "
				"not %" PRId32, got, want);
	if (!x->shared && x->obj->payload[0] != t->g.w[0].seq)
		cb_wl_violation(t, "payload",
				"%" PRIu64 ", the last write %" PRIu64,
				x->obj->payload[0], t->g.w[0].seq);
	double ns, rate;
	double score =
	    cb_wl_contest_score(t, measured, m, 1, x->avgt, &ns, &rate);
	snprintf(line, n, "%9.2f ns/%s %9.2f ops/us", ns,
		 x->shared ? "pair" : "cycle", rate);
	return score;
}

static const cb_param_def rc_cycle_params[] = {
	{"rType", "*",
	 "the counts, names or globs (conq:*, baseline:*, glib:*; below)"},
};

static const cb_param_def rc_shared_params[] = {
	{"rType", "*",
	 "the counts, names or globs (conq:*, baseline:*, glib:*; below)"},
	{"threads", "2",
	 "threads on the one count, each value a trial (max: the CPUs "
	 "allowed); also -t"},
};

static int rc_run(const cb_workload *wl, const cb_options *o,
		  const cb_env *env, cb_results *rs)
{
	const bool shared = strcmp(wl->group, "shared") == 0;
	cb_wl_contest s;
	int rc = cb_wl_contest_init(&s, wl, o, env, sizeof(rc_ctx));
	rc_ctx *const x = (rc_ctx *)s.ctx;
	if (rc != 0)
		goto out;
	for (size_t k = 0; k < s.n; k++) {
		rc_ctx *xk = &x[k];
		const rc_contender *c =
		    (const rc_contender *)cb_wl_contest_contender(&s, k);
		xk->c = c;
		xk->shared = shared;
		xk->avgt = s.avgt;
		xk->obj = (rc_obj *)cb_wl_contest_mem(&s, k, sizeof *xk->obj);
		if (xk->obj == NULL) {
			rc = 1;
			goto out;
		}
		/* The control thread's reference (shared; a cycle inits it
		 * again). The workers see it after their next wake-up (the
		 * group's mutex). */
		c->init(xk->obj);
		if (cb_wl_contest_start(&s, k, rc_after, xk,
					shared ? c->shared : c->cycle,
					xk->obj) != 0) {
			rc = 1;
			goto out;
		}
	}
	cb_wl_contest_header(&s, NULL);
	rc = cb_wl_contest_run(&s, rs,
			       shared ? RC_SHARED_BENCH : RC_CYCLE_BENCH,
			       shared ? "pair" : "cycle");
out:
	cb_wl_contest_free(&s);
	return rc;
}

/* ---- the report --------------------------------------------------------- */

static int rc_is(const cb_result *r)
{
	return r->adapter != NULL && r->primary.n > 0 &&
	       (strcmp(r->benchmark, RC_CYCLE_BENCH) == 0 ||
		strcmp(r->benchmark, RC_SHARED_BENCH) == 0);
}

/* The result of contender `name` at the point of r0, NULL if none. */
static const cb_result *rc_find(const cb_results *rs, const cb_result *r0,
				const char *name)
{
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		if (rc_is(r) && strcmp(r->benchmark, r0->benchmark) == 0 &&
		    strcmp(r->mode, r0->mode) == 0 &&
		    strcmp(r->adapter->name, name) == 0 &&
		    cb_result_same_params(r, r0))
			return r;
	}
	return NULL;
}

static void rc_report(FILE *f, const cb_results *rs)
{
	int header = 0;
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *a = &rs->r[k];
		if (!rc_is(a) || strcmp(a->adapter->name, "conq:refcount") != 0)
			continue;
		char pbuf[128];
		if (!header)
			fprintf(f, "\nRefcount ratios of ns per op, same run "
				   "(< 1x: conq's is faster):\n");
		header = 1;
		cb_result_params(a, pbuf, sizeof pbuf);
		fprintf(f, "%s %s%s%s:\n", a->benchmark, a->mode,
			*pbuf ? " " : "", pbuf);
		for (size_t j = 0; j < rs->n; j++) {
			const cb_result *b = &rs->r[j];
			if (b != a && rc_is(b) &&
			    rc_find(rs, a, b->adapter->name) == b)
				cb_wl_contest_ratio(f, "", a, b);
		}
	}
	/* Issue 15's targets. */
	header = 0;
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *a = &rs->r[k];
		if (!rc_is(a) || strcmp(a->adapter->name, "conq:refcount") != 0)
			continue;
		const int cycle = strcmp(a->benchmark, RC_CYCLE_BENCH) == 0;
		const cb_result *sc =
		    cycle ? rc_find(rs, a, "baseline:seq_cst_init") : NULL;
		const cb_result *un = rc_find(rs, a, "baseline:unchecked");
		if (sc == NULL && un == NULL)
			continue;
		if (!header)
			fprintf(f, "\nIssue 15's refcount targets, same run "
				   "(the verdict on the median of the "
				   "per-round ratios of ns per op):\n");
		header = 1;
		char pbuf[128], what[256];
		cb_result_params(a, pbuf, sizeof pbuf);
		if (sc != NULL) {
			snprintf(what, sizeof what,
				 "%s%s%s conq:refcount / baseline:seq_cst_init "
				 "<= 0.85x",
				 a->benchmark, *pbuf ? " " : "", pbuf);
			cb_wl_contest_target(f, what, -INFINITY, 0.85, false,
					     cb_wl_contest_ns_pair(a, sc));
		}
		if (un != NULL) {
			snprintf(what, sizeof what,
				 "%s%s%s conq:refcount / baseline:unchecked "
				 "within noise (<= 1.05x, or 1x within the "
				 "IQR)",
				 a->benchmark, *pbuf ? " " : "", pbuf);
			cb_wl_contest_target(f, what, -INFINITY, 1.05, true,
					     cb_wl_contest_ns_pair(a, un));
		}
	}
}

const cb_workload cb_wl_refcount_cycle = {
	.name = "Refcount",
	.group = "cycle",
	.roles = "cycle",
	.headline = "cycle",
	.desc = "a recycled object's count, one thread: init 1, write the "
		"payload, retain, release, release (true); conq's against a "
		"seq_cst init, Linux refcount_t's checks, an unchecked count, "
		"GLib's gatomicrefcount (ns per cycle)",
	.run = rc_run,
	.params = rc_cycle_params,
	.nparams = sizeof rc_cycle_params / sizeof rc_cycle_params[0],
	.report = rc_report,
	.interleaved = "rType",
	CB_WL_CONTEST_FIELDS("rType", rc_contenders),
};

const cb_workload cb_wl_refcount_shared = {
	.name = "Refcount",
	.group = "shared",
	.roles = "pair",
	.headline = "pair",
	.desc = "retain + release on one count from N threads (default 2): "
		"the count's line moving between the cores (ns per pair per "
		"thread; aggregate pairs/us)",
	.run = rc_run,
	.params = rc_shared_params,
	.nparams = sizeof rc_shared_params / sizeof rc_shared_params[0],
	.interleaved = "rType,threads",
	CB_WL_CONTEST_FIELDS("rType", rc_contenders),
};
