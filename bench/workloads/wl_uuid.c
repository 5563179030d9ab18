/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Uuid: UUID generation (issue 15), conq's generator (conq/uuid.h: a
 * per-thread ChaCha20 and a buffer of its bytes) against what a C program
 * has at hand, at 1 and N threads, every thread making UUIDs as fast as it
 * can. Not a queue: the contenders (uType) are this file's, each an op
 * inlined into the harness's measured loop (CB_OP_LOOPS: catch-up, a
 * relaxed load of the stop flag per op, warm-down), the same loop for all.
 *
 *   conq:uuid_v4                  conq_uuid_v4
 *   conq:uuid_v4_bulk             conq_uuid_v4_bulk, 64 a call (Score per
 *                                 UUID)
 *   conq:uuid_v7                  conq_uuid_v7
 *   conq:uuid_v4_format           conq_uuid_v4 + conq_uuid_format: the
 *                                 text form, what a log line or a JSON
 *                                 field gets
 *   libuuid:uuid_generate_random  util-linux libuuid, the seed's
 *                                 (JDK-8308804's) shared source
 *   glibc:arc4random_buf          arc4random_buf(b, 16) (glibc 2.36)
 *   linux:getrandom               getrandom(b, 16, 0): a system call each
 *   sodium:randombytes_buf        libsodium's randombytes_buf(b, 16)
 *   baseline:clock_realtime       clock_gettime(CLOCK_REALTIME) alone:
 *                                 what v7 must read besides a v4's work
 *                                 (its target: v7 within 1.5x of clock +
 *                                 v4)
 *
 * The peers that return bytes get the version and variant bits a v4 UUID
 * has (two byte edits, as conq_uuid_v4 does), so every contender but the
 * clock makes a valid v4 (v7) UUID per op. A word of each is folded into a
 * per-thread sink (every UUID is used), and after every iteration each
 * thread's last UUID is checked (version, variant; v7: its timestamp near
 * CLOCK_REALTIME and greater than the thread's previous iteration's last
 * one, as conq_uuid_v7 promises within a thread); a failed call is an
 * invariant violation.
 *
 * Parameters, both interleaved (every value in one process, round k running
 * iteration k of every trial, as the queues of qType): uType (names or
 * globs), and threads (1, 2, ..., max: the CPUs allowed; default 1,2,max),
 * a trial per (uType, threads). avgt (default): the mean over a trial's
 * threads of each one's ns per UUID, with "aggregate" (UUIDs per us, the
 * sum over the threads); thrpt: that sum, with "perThread" (ns per UUID).
 * The report prints the ns and aggregate rates side by side, the ratios and
 * issue 15's targets: conq:uuid_v4 at least 50x libuuid per UUID on one
 * thread, 2 threads at least 1.8x one (aggregate), v7 within 1.5x of (clock
 * read + v4).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef CB_HAVE_GETRANDOM
#include <sys/random.h>
#endif
#ifdef CB_HAVE_LIBUUID
#include <uuid/uuid.h>
#endif
#ifdef CB_HAVE_SODIUM
#include <sodium.h>
#endif

#include "conq/uuid.h"
#include "report.h"
#include "stats.h"
#include "wl_contest.h"

#define UU_BENCH "Uuid.gen"
/* UUIDs per conq_uuid_v4_bulk call. */
#define UU_BULK 64u

/* A contender: what the reports see (a), its measured role, UUIDs per op,
 * and the version of what it makes (0: not a UUID, the clock). */
typedef struct uu_contender {
	cb_adapter a; /* first: results point at it */
	cb_role_fn role;
	unsigned batch;
	unsigned version;
	int (*setup)(void); /* once per process before its first trial; NULL */
} uu_contender;

/* A thread's slot in a trial: its last UUID and its failures, written by
 * the thread at the end of its role call, read by the control thread
 * after the iteration (the group's mutex orders them). */
typedef struct uu_slot {
	CB_ALIGNAS(CB_PAD) uint8_t last[16];
	uint8_t prev[16]; /* v7: the previous iteration's last */
	uint64_t failed;  /* calls that failed, all iterations */
	int err;	  /* the errno of the first */
	uint64_t sink;	  /* a word of every UUID, xor'ed */
} uu_slot;

typedef struct uu_ctx {
	const uu_contender *c;
	uu_slot *slot; /* one a thread */
	unsigned iter; /* iterations done */
	bool avgt;     /* the mode: avgt (else thrpt) */
} uu_ctx;

/* ---- the ops: 0, or -1 with errno --------------------------------------- */

/* Version 4, variant 10 (RFC 9562 section 5.4) on 16 random bytes. */
static inline __attribute__((unused)) void uu_set_v4(uint8_t *b)
{
	b[6] = (uint8_t)((b[6] & 0x0fu) | 0x40u);
	b[8] = (uint8_t)((b[8] & 0x3fu) | 0x80u);
}

static inline int uu_op_conq_v4(uint8_t (*b)[16])
{
	return conq_uuid_v4(b[0]);
}

static inline int uu_op_conq_v4_bulk(uint8_t (*b)[16])
{
	return conq_uuid_v4_bulk(b, UU_BULK);
}

static inline int uu_op_conq_v7(uint8_t (*b)[16])
{
	return conq_uuid_v7(b[0]);
}

static inline int uu_op_conq_v4_format(uint8_t (*b)[16])
{
	/* The text into b[1..3] (48 bytes >= 37). */
	if (conq_uuid_v4(b[0]) != 0)
		return -1;
	conq_uuid_format(b[0], (char *)b[1]);
	return 0;
}

#ifdef CB_HAVE_LIBUUID
static inline int uu_op_libuuid(uint8_t (*b)[16])
{
	uuid_generate_random(b[0]);
	return 0;
}
#endif

/* A peer that fills 16 bytes: FILL (an expression on b, 0 when done), then
 * the v4 bits. */
#define UU_OP_FILL(NAME, FILL)                                                 \
	static inline int uu_op_##NAME(uint8_t (*b)[16])                       \
	{                                                                      \
		if ((FILL) != 0)                                               \
			return -1;                                             \
		uu_set_v4(b[0]);                                               \
		return 0;                                                      \
	}

#ifdef CB_HAVE_ARC4RANDOM_BUF
UU_OP_FILL(arc4random, (arc4random_buf(b[0], 16), 0))
#endif
#ifdef CB_HAVE_GETRANDOM
UU_OP_FILL(getrandom, getrandom(b[0], 16, 0) != 16)
#endif
#ifdef CB_HAVE_SODIUM
UU_OP_FILL(sodium, (randombytes_buf(b[0], 16), 0))

/* sodium_init: once, before any randombytes_buf (it picks and seeds the
 * implementation). */
static int uu_setup_sodium(void)
{
	return sodium_init() < 0 ? -1 : 0;
}
#endif

static inline int uu_op_clock(uint8_t (*b)[16])
{
	struct timespec ts;
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return -1;
	uint64_t ns = (uint64_t)ts.tv_sec * CB_NS_PER_S + (uint64_t)ts.tv_nsec;
	memcpy(b[0], &ns, sizeof ns);
	return 0;
}

/* One op: the call, its failure counted (errno kept), a word of its UUID
 * into the sink. */
#define UU_STEP(OP, b, failed, err, sink)                                      \
	do {                                                                   \
		if (CONQ__UNLIKELY(OP(b) != 0) && (failed)++ == 0)             \
			(err) = errno;                                         \
		uint64_t w_;                                                   \
		memcpy(&w_, (b)[0], sizeof w_);                                \
		(sink) ^= w_;                                                  \
	} while (0)

/* A contender's role: its op, inlined into the harness's loop. */
#define UU_ROLE(NAME, OP, LAST)                                                \
	static void uu_role_##NAME(cb_worker *w)                               \
	{                                                                      \
		uu_ctx *const x = (uu_ctx *)w->q;                              \
		uu_slot *const s = &x->slot[w->index];                         \
		cb_ctl *const ctl = w->ctl;                                    \
		CB_ALIGNAS(64) uint8_t b[UU_BULK][16];                         \
		uint64_t made = 0, extra = 0, failed = 0, sink = s->sink;      \
		int err = 0;                                                   \
		memset(b, 0, sizeof b);                                        \
		CB_WL_CONTEST_LOOPS(ctl, u0_, made, extra, t0, t1, UU_STEP,    \
				    OP, b, failed, err, sink);                 \
		memcpy(s->last, b[LAST], 16);                                  \
		if (failed != 0 && s->failed == 0)                             \
			s->err = err;                                          \
		s->failed += failed;                                           \
		s->sink = sink;                                                \
		cb_worker_done(w, made, failed, extra, 0, t0, t1, &u0_);       \
	}

/* Contender ID: its role (uu_role_ID, on uu_op_ID; of a batch, the last
 * UUID is checked) and uu_ID. */
#define UU_CONTENDER(ID, NAME, FAMILY, KIND, DESC, BATCH, VERSION, SETUP)      \
	UU_ROLE(ID, uu_op_##ID, (BATCH) - 1)                                   \
	static const uu_contender uu_##ID = {                                  \
	    .a = {.name = NAME, .family = FAMILY, .desc = DESC, .kind = KIND}, \
	    .role = uu_role_##ID,                                              \
	    .batch = BATCH,                                                    \
	    .version = VERSION,                                                \
	    .setup = SETUP,                                                    \
	};

UU_CONTENDER(conq_v4, "conq:uuid_v4", "conq", CB_KIND_OWN,
	     "conq_uuid_v4 (a per-thread ChaCha20's buffered bytes)", 1, 4,
	     NULL)
UU_CONTENDER(conq_v4_bulk, "conq:uuid_v4_bulk", "conq", CB_KIND_OWN,
	     "conq_uuid_v4_bulk, 64 UUIDs a call (Score per UUID)", UU_BULK, 4,
	     NULL)
UU_CONTENDER(conq_v7, "conq:uuid_v7", "conq", CB_KIND_OWN,
	     "conq_uuid_v7 (CLOCK_REALTIME ms + sub-ms fraction, 62 random "
	     "bits)",
	     1, 7, NULL)
UU_CONTENDER(conq_v4_format, "conq:uuid_v4_format", "conq", CB_KIND_OWN,
	     "conq_uuid_v4 + conq_uuid_format (the 36-character text)", 1, 4,
	     NULL)
#ifdef CB_HAVE_LIBUUID
UU_CONTENDER(libuuid, "libuuid:uuid_generate_random", "libuuid",
	     CB_KIND_PEER, "util-linux libuuid uuid_generate_random", 1, 4,
	     NULL)
#endif
#ifdef CB_HAVE_ARC4RANDOM_BUF
UU_CONTENDER(arc4random, "glibc:arc4random_buf", "glibc", CB_KIND_PEER,
	     "glibc arc4random_buf(b, 16) + the v4 bits", 1, 4, NULL)
#endif
#ifdef CB_HAVE_GETRANDOM
UU_CONTENDER(getrandom, "linux:getrandom", "linux", CB_KIND_PEER,
	     "getrandom(b, 16, 0) + the v4 bits (a system call per UUID)", 1,
	     4, NULL)
#endif
#ifdef CB_HAVE_SODIUM
UU_CONTENDER(sodium, "sodium:randombytes_buf", "sodium", CB_KIND_PEER,
	     "libsodium randombytes_buf(b, 16) + the v4 bits", 1, 4,
	     uu_setup_sodium)
#endif
UU_CONTENDER(clock, "baseline:clock_realtime", "baseline", CB_KIND_BASELINE,
	     "clock_gettime(CLOCK_REALTIME) alone: v7's clock read (not a "
	     "UUID)",
	     1, 0, NULL)

static const cb_adapter *const uu_contenders[] = {
	&uu_conq_v4.a,
	&uu_conq_v4_bulk.a,
	&uu_conq_v7.a,
	&uu_conq_v4_format.a,
#ifdef CB_HAVE_LIBUUID
	&uu_libuuid.a,
#endif
#ifdef CB_HAVE_ARC4RANDOM_BUF
	&uu_arc4random.a,
#endif
#ifdef CB_HAVE_GETRANDOM
	&uu_getrandom.a,
#endif
#ifdef CB_HAVE_SODIUM
	&uu_sodium.a,
#endif
	&uu_clock.a,
};

/* ---- the checks and the score ------------------------------------------- */

static uint64_t uu_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static double uu_after(cb_wl_trial *t, int measured, size_t m, char *line,
		       size_t n)
{
	uu_ctx *x = (uu_ctx *)t->user;
	const uu_contender *c = x->c;
	for (unsigned k = 0; k < t->nthreads; k++) {
		uu_slot *s = &x->slot[k];
		const uint8_t *u = s->last;
		if (s->failed != 0) {
			cb_wl_violation(t, "failed",
					"thread %u: %" PRIu64 " calls failed "
					"(%s)",
					k, s->failed, strerror(s->err));
			s->failed = 0;
		}
		if (c->version == 0)
			continue;
		if (conq_uuid_version(u) != c->version ||
		    !conq_uuid_is_rfc9562(u))
			cb_wl_violation(t, "UUID",
					"thread %u: version %u, variant %s "
					"(want %u, RFC 9562)",
					k, conq_uuid_version(u),
					conq_uuid_is_rfc9562(u) ? "ok" : "bad",
					c->version);
		if (c->version != 7)
			continue;
		/* v7: the Unix ms in the first 48 bits; counting on past
		 * the clock in a burst is allowed, within reason. */
		uint64_t ms = 0;
		for (int j = 0; j < 6; j++)
			ms = ms << 8 | u[j];
		uint64_t now = uu_now_ms();
		if (ms + 10000u < now || ms > now + 10000u)
			cb_wl_violation(t, "v7 time",
					"thread %u: %" PRIu64 " ms, the clock "
					"%" PRIu64 " ms",
					k, ms, now);
		if (x->iter > 0 && memcmp(u, s->prev, 16) <= 0)
			cb_wl_violation(t, "v7 order",
					"thread %u: not above its previous "
					"iteration's last UUID",
					k);
		memcpy(s->prev, u, 16);
	}
	x->iter++;
	double ns, rate;
	double score = cb_wl_contest_score(t, measured, m, c->batch, x->avgt,
					   &ns, &rate);
	snprintf(line, n, "%9.2f ns/UUID %9.2f UUIDs/us", ns, rate);
	return score;
}

/* ---- the run ------------------------------------------------------------ */

static const cb_param_def uu_params[] = {
	{"uType", "*",
	 "the generators, names or globs (conq:*, libuuid:*...; below)"},
	{"threads", "1,2,max",
	 "threads making UUIDs at once, each a trial (max: the CPUs "
	 "allowed); also -t"},
};

static int uu_run(const cb_workload *wl, const cb_options *o,
		  const cb_env *env, cb_results *rs)
{
	cb_wl_contest s;
	int rc = cb_wl_contest_init(&s, wl, o, env, sizeof(uu_ctx));
	uu_ctx *const x = (uu_ctx *)s.ctx;
	if (rc != 0)
		goto out;
	for (int j = 0; j < s.nc; j++) {
		const uu_contender *c = (const uu_contender *)s.sel[j];
		if (c->setup != NULL && c->setup() != 0) {
			fprintf(stderr, "conq-bench: %s: %s: setup failed\n",
				wl->name, c->a.name);
			rc = 1;
			goto out;
		}
	}
	for (size_t k = 0; k < s.n; k++) {
		uu_ctx *xk = &x[k];
		xk->c = (const uu_contender *)cb_wl_contest_contender(&s, k);
		xk->avgt = s.avgt;
		const unsigned n = cb_wl_contest_threads(&s, k);
		xk->slot = (uu_slot *)cb_wl_contest_mem(&s, k,
							n * sizeof *xk->slot);
		if (xk->slot == NULL ||
		    cb_wl_contest_start(&s, k, uu_after, xk, xk->c->role,
					xk) != 0) {
			rc = 1;
			goto out;
		}
	}
	char tail[64];
	snprintf(tail, sizeof tail, "; conq's randomness: %s",
		 conq_uuid_backend());
	cb_wl_contest_header(&s, tail);
	rc = cb_wl_contest_run(&s, rs, UU_BENCH, "gen");
out:
	cb_wl_contest_free(&s);
	return rc;
}

/* ---- the report --------------------------------------------------------- */

static const char *uu_param(const cb_result *r, const char *name)
{
	for (size_t j = 0; j < r->nparams; j++)
		if (strcmp(r->params[j].name, name) == 0)
			return r->params[j].value;
	return "?";
}

static int uu_is(const cb_result *r)
{
	return r->adapter != NULL && strcmp(r->benchmark, UU_BENCH) == 0 &&
	       r->primary.n > 0;
}

/* The result of contender `name` at `threads` in the run (same mode as r0),
 * NULL if it did not run. */
static const cb_result *uu_find(const cb_results *rs, const cb_result *r0,
				const char *name, const char *threads)
{
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		if (uu_is(r) && strcmp(r->mode, r0->mode) == 0 &&
		    strcmp(r->adapter->name, name) == 0 &&
		    strcmp(uu_param(r, "threads"), threads) == 0)
			return r;
	}
	return NULL;
}

static void uu_report(FILE *f, const cb_results *rs)
{
	const cb_result *r0 = NULL;
	for (size_t k = 0; k < rs->n && r0 == NULL; k++)
		if (uu_is(&rs->r[k]))
			r0 = &rs->r[k];
	if (r0 == NULL)
		return;
	/* The table: a row per contender and thread count. */
	fprintf(f,
		"\nUuid.gen (%s): ns per UUID (per thread) and UUIDs per us "
		"(all threads), medians; xN/x1 = the aggregate rate at N "
		"threads / at 1 (median of the per-round ratios), same run:\n",
		r0->mode);
	fprintf(f, "  %-30s %7s %10s %11s %8s\n", "uType", "threads",
		"ns/UUID", "UUIDs/us", "xN/x1");
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		if (!uu_is(r) || strcmp(r->mode, r0->mode) != 0)
			continue;
		const cb_series *ns = cb_wl_contest_ns(r);
		const cb_series *rt = cb_wl_contest_rate(r);
		const cb_result *one = uu_find(rs, r, r->adapter->name, "1");
		fprintf(f, "  %-30s %7s %10.2f %11.2f", r->adapter->name,
			uu_param(r, "threads"), cb_median(ns->v, ns->n),
			cb_median(rt->v, rt->n));
		if (one != NULL && one != r) {
			cb_wl_pair x1 = cb_wl_contest_rate_pair(r, one);
			fprintf(f, " %7.2fx\n",
				cb_round_ratio_series(x1.a, x1.b, x1.n, NULL,
						      NULL));
		} else {
			fprintf(f, " %8s\n", "");
		}
	}
	/* The ratios of conq:uuid_v4 to the others, per thread count, and
	 * of conq's other forms to conq:uuid_v4 (ns per UUID: < 1x, conq's
	 * is faster). */
	fprintf(f, "\nUuid.gen ratios of ns per UUID, same run (< 1x: the "
		   "left one is faster):\n");
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *v4 = &rs->r[k];
		if (!uu_is(v4) || strcmp(v4->mode, r0->mode) != 0 ||
		    strcmp(v4->adapter->name, "conq:uuid_v4") != 0)
			continue;
		const char *th = uu_param(v4, "threads");
		for (size_t j = 0; j < rs->n; j++) {
			const cb_result *o = &rs->r[j];
			if (o == v4 || !uu_is(o) ||
			    strcmp(o->mode, r0->mode) != 0 ||
			    strcmp(uu_param(o, "threads"), th) != 0)
				continue;
			const int own = o->adapter->kind == CB_KIND_OWN;
			char prefix[24];
			snprintf(prefix, sizeof prefix, "threads=%s ", th);
			cb_wl_contest_ratio(f, prefix, own ? o : v4,
					    own ? v4 : o);
		}
	}
	/* Issue 15's targets, from what ran. */
	int header = 0;
	const cb_result *v4 = uu_find(rs, r0, "conq:uuid_v4", "1");
	const cb_result *lib = uu_find(rs, r0, "libuuid:uuid_generate_random",
				       "1");
	const cb_result *v4x2 = uu_find(rs, r0, "conq:uuid_v4", "2");
	const cb_result *v7 = uu_find(rs, r0, "conq:uuid_v7", "1");
	const cb_result *clk = uu_find(rs, r0, "baseline:clock_realtime", "1");
	if (v4 != NULL && (lib != NULL || v4x2 != NULL ||
			   (v7 != NULL && clk != NULL))) {
		fprintf(f, "\nIssue 15's UUID targets, same run (the verdict "
			   "on the median of the per-round ratios):\n");
		header = 1;
	}
	if (header && lib != NULL)
		cb_wl_contest_target(f,
				     "threads=1 libuuid:uuid_generate_random / "
				     "conq:uuid_v4 (ns per UUID: conq's "
				     "speed-up) >= 50x",
				     50, INFINITY, false,
				     cb_wl_contest_ns_pair(lib, v4));
	if (header && v4x2 != NULL)
		cb_wl_contest_target(f,
				     "conq:uuid_v4 threads=2 / threads=1 "
				     "(UUIDs per us, all threads) >= 1.8x",
				     1.8, INFINITY, false,
				     cb_wl_contest_rate_pair(v4x2, v4));
	if (header && v7 != NULL && clk != NULL) {
		size_t n = cb_wl_contest_n(v7, v4);
		if (clk->primary.n < n)
			n = clk->primary.n;
		double *sum = (double *)calloc(n ? n : 1, sizeof *sum);
		unsigned char *dis = (unsigned char *)calloc(n ? n : 1, 1);
		if (sum == NULL || dis == NULL) {
			free(sum);
			free(dis);
			return;
		}
		for (size_t k = 0; k < n; k++) {
			sum[k] = cb_wl_contest_ns(clk)->v[k] +
				 cb_wl_contest_ns(v4)->v[k];
			dis[k] = (unsigned char)((clk->disturbed &&
						  clk->disturbed[k]) ||
						 (v4->disturbed &&
						  v4->disturbed[k]));
		}
		/* v7 against the clock's time plus v4's, round by round. */
		const cb_wl_pair p = {cb_wl_contest_ns(v7)->v, sum, n,
				      v7->disturbed, dis};
		cb_wl_contest_target(f,
				     "threads=1 conq:uuid_v7 / "
				     "(baseline:clock_realtime + conq:uuid_v4) "
				     "(ns per UUID) <= 1.5x",
				     -INFINITY, 1.5, false, p);
		free(sum);
		free(dis);
	}
	if (header)
		fprintf(f, "  (at most one system call per 1,000 UUIDs in "
			   "steady state: tests/uuid_strace.sh counts them)\n");
}

const cb_workload cb_wl_uuid = {
	.name = "Uuid",
	.group = "gen",
	.roles = "gen",
	.headline = "gen",
	.desc = "UUIDs made as fast as each thread can, conq's v4, bulk v4, "
		"v7 and text form against libuuid, arc4random_buf, getrandom, "
		"libsodium and the clock read alone, at 1 and N threads "
		"(ns per UUID; aggregate UUIDs/us)",
	.run = uu_run,
	.params = uu_params,
	.nparams = sizeof uu_params / sizeof uu_params[0],
	.report = uu_report,
	.interleaved = "uType,threads",
	CB_WL_CONTEST_FIELDS("uType", uu_contenders),
};
