/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Catchup, the second of the seeds' lazySet experiments (psy-lob-saw's
 * Catchup): a single writer streams values into a ring and publishes how
 * far it got after every element (values[i] = i, then index = i + 1, the
 * store under test); a reader spins on the index and catches up with it,
 * checking every value up to it. Time-based (JMH avgt) rather than the
 * seed's fixed 100 M elements: Score = the writer's ns per element.
 *
 * The ring (CU_RING = 2^16 slots, 512 KiB: in L2) does not let the writer
 * lap the reader: before it reuses a slot the writer checks the reader's
 * published position (cached; reread only when the cache says the ring is
 * full), so a reader slower than the writer slows the writer down, as the
 * seed's whole-run time (until the reader has caught up) did.
 *
 * How stale the reader's view is, per iteration (secondary metrics):
 *   readerLag     elements gained per index read that saw progress (how far
 *                 behind the reader was when it looked: 1 = in step)
 *   emptyReads    index reads that saw no progress, per element written
 *   writerStalls  writes that waited for the reader (ring full), per
 *                 element written
 * and, counted as a violation under release/seq_cst (where it cannot
 * happen) and as the metric `stale` under relaxed (where C11 allows it: the
 * relaxed index store does not order the value store before it): values
 * older than the index promised.
 *
 * Parameters:
 *   order   the index store: relaxed | release (lazySet) | seq_cst
 *           (volatile: xchg on x86, a full barrier per element: the seed's
 *           5x). The reader's index load is acquire in every case; the
 *           values are relaxed atomics both ways (a plain store would be a
 *           data race in C11).
 *   layout  padded: the index alone on its CB_PAD block; unpadded: the
 *           reader's own position counter (which it stores after each
 *           catch-up) on the index's line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_common.h"

#define CU_BENCH "Catchup.catchup"
#define CU_RING ((uint64_t)1 << 16)

typedef struct cu_ctx {
	CB_ALIGNAS(CB_PAD) uint64_t *index; /* writer: elements written */
	uint64_t *rpos;                     /* reader: elements read */
	uint64_t *values;                   /* CU_RING slots */
	void *mem;
	/* The counts of the last iteration (the measured windows), written
	 * by each role before it returns, read by the control thread after
	 * the iteration (the group's mutex orders them). */
	CB_ALIGNAS(CB_PAD) uint64_t catchups, empty, stale, read; /* reader */
	CB_ALIGNAS(CB_PAD) uint64_t stalls; /* writer */
} cu_ctx;

/* Writer: one element. The index store is the experiment. Before it reuses
 * a slot, the reader must be past it (lim: its position + CU_RING, cached). */
#define CU_WRITE(STORE, c, i, lim, stalls, yield, run)                        \
	do {                                                                   \
		if (CONQ__UNLIKELY((i) == (lim))) {                            \
			/* acquire: pairs with the reader's release store of \
			 * its position: its reads of those slots are done. */ \
			(lim) = conq__load_acquire((c)->rpos) + CU_RING;       \
			if ((i) == (lim))                                      \
				(stalls)++;                                    \
			while ((i) == (lim)) {                                 \
				cb_fail_backoff(yield, &(run));                \
				/* acquire: as above. */                       \
				(lim) = conq__load_acquire((c)->rpos) +        \
					CU_RING;                               \
			}                                                      \
			(run) = 0;                                             \
		}                                                              \
		conq__store_relaxed(&(c)->values[(i) & (CU_RING - 1u)], (i));  \
		(i)++;                                                         \
		STORE((c)->index, (i));                                        \
	} while (0)

#define CU_WRITER(NAME, STORE)                                                 \
	static void cu_write_##NAME(cb_worker *w)                              \
	{                                                                      \
		cu_ctx *const c = (cu_ctx *)w->q;                              \
		cb_ctl *const ctl = w->ctl;                                    \
		const bool yield = ctl->yield;                                 \
		uint64_t i = w->seq, made = 0, extra = 0;                      \
		uint64_t lim = i, st_un = 0, st = 0; /* lim: reread first */   \
		uint32_t run = 0;                                              \
		cb_rusage u0_;                                                 \
		cb_worker_begin(ctl, &u0_);                                    \
		while (cb_ctl_catching_up(ctl)) {                              \
			CU_WRITE(STORE, c, i, lim, st_un, yield, run);         \
			extra++;                                               \
		}                                                              \
		const uint64_t t0 = cb_now_ns();                               \
		do {                                                           \
			CU_WRITE(STORE, c, i, lim, st, yield, run);            \
			made++;                                                \
		} while (cb_ctl_running(ctl));                                 \
		const uint64_t t1 = cb_now_ns();                               \
		cb_ctl_leave(ctl);                                             \
		c->stalls = st;                                                \
		w->seq = i;                                                    \
		cb_worker_done(w, made, 0, extra, 0, t0, t1, &u0_);            \
	}

/* The stores under test; each pairs with the reader's acquire load of the
 * index (cu_catch_up). */
CB_WL_FOR_ORDERS(CU_WRITER)

typedef struct cu_counts {
	uint64_t catchups, empty, stale, read;
} cu_counts;

/* Reader: one look at the index, and catch up with it. */
static inline void cu_catch_up(cu_ctx *c, uint64_t *pos, cu_counts *n,
			       bool yield, uint32_t *run)
{
	/* acquire: pairs with the writer's index store (relaxed: pairs with
	 * nothing, which is what the stale count measures). */
	uint64_t idx = conq__load_acquire(c->index);
	uint64_t p = *pos;
	if (idx == p) {
		n->empty++;
		cb_fail_backoff(yield, run);
		return;
	}
	*run = 0;
	for (; p < idx; p++) {
		/* The writer cannot be a ring ahead (it waits for rpos): a
		 * value other than p is an older one. */
		uint64_t v = conq__load_relaxed(&c->values[p & (CU_RING - 1u)]);
		n->stale += v != p;
		n->read++;
	}
	n->catchups++;
	*pos = p;
	/* release: pairs with the writer's acquire load of rpos (CU_WRITE):
	 * our reads of the slots below p are done before it reuses them. */
	conq__store_release(c->rpos, p);
}

static void cu_read(cb_worker *w)
{
	cu_ctx *const c = (cu_ctx *)w->q;
	cb_ctl *const ctl = w->ctl;
	const bool yield = ctl->yield;
	uint64_t pos = conq__load_relaxed(c->rpos);
	cu_counts un, me;
	memset(&un, 0, sizeof un);
	memset(&me, 0, sizeof me);
	uint32_t run = 0;
	cb_rusage u0_;
	cb_worker_begin(ctl, &u0_);
	while (cb_ctl_catching_up(ctl))
		cu_catch_up(c, &pos, &un, yield, &run);
	const uint64_t t0 = cb_now_ns();
	do {
		cu_catch_up(c, &pos, &me, yield, &run);
	} while (cb_ctl_running(ctl));
	const uint64_t t1 = cb_now_ns();
	cb_ctl_leave(ctl);
	/* Catch up with everything written, for the next iteration. */
	while (cb_ctl_warming_down(ctl) ||
	       pos != conq__load_acquire(c->index))
		cu_catch_up(c, &pos, &un, yield, &run);
	c->catchups = me.catchups;
	c->empty = me.empty;
	c->stale = me.stale + un.stale;
	c->read = me.read;
	cb_worker_done(w, me.read, me.empty, un.read, me.stale + un.stale,
		       t0, t1, &u0_);
}

static const struct {
	const char *name;
	cb_role_fn write;
} cu_orders[] = {
	{"relaxed", cu_write_relaxed},
	{"release", cu_write_release},
	{"seq_cst", cu_write_seq_cst},
};

typedef struct cu_trial {
	cu_ctx *c;
	bool relaxed;
} cu_trial;

static double cu_after(cb_wl_trial *t, int measured, size_t m, char *line,
		       size_t n)
{
	cu_trial *u = (cu_trial *)t->user;
	cu_ctx *c = u->c;
	const cb_worker *wr = &t->g.w[0];
	if (conq__load_relaxed(c->rpos) != wr->seq)
		cb_wl_violation(t, "catch-up",
				"reader at %" PRIu64 ", writer at %" PRIu64,
				conq__load_relaxed(c->rpos), wr->seq);
	if (c->stale != 0 && !u->relaxed)
		cb_wl_violation(t, "stale",
				"%" PRIu64 " values older than the index "
				"(acquire/release must order them)",
				c->stale);
	double ns = cb_wl_ns_per_op(wr);
	double elems = wr->made ? (double)wr->made : 1;
	double lag = c->catchups ? (double)c->read / (double)c->catchups : 0;
	if (measured) {
		t->sec[0][m] = lag;
		t->sec[1][m] = (double)c->empty / elems;
		t->sec[2][m] = (double)c->stalls / elems;
		t->sec[3][m] = (double)c->stale;
	}
	snprintf(line, n,
		 "%7.2f ns/element  lag %.1f  empty %.3f  stalls %.4f  stale "
		 "%" PRIu64,
		 ns, lag, (double)c->empty / elems, (double)c->stalls / elems,
		 c->stale);
	return ns;
}

static const cb_param_def cu_params[] = {
	{"order", "relaxed,release,seq_cst",
	 "the index store: relaxed (plain) | release (lazySet) | seq_cst "
	 "(volatile)"},
	{"layout", "padded,unpadded",
	 "padded: the index alone on its block; unpadded: with the reader's "
	 "position"},
};

static int cu_run(const cb_workload *wl, const cb_options *o,
		  const cb_env *env, cb_results *rs)
{
	size_t oi;
	bool padded;
	if (cb_wl_order_layout(wl, o, &oi, &padded) != 0)
		return 2;
	const char *order = cu_orders[oi].name;
	const char *layout = cb_param(o, "layout");
	cb_wl_trial t;
	memset(&t, 0, sizeof t);
	cu_trial u = {NULL, oi == 0};
	int rc = 0;
	char aff[200] = "", label[48];
	u.c = (cu_ctx *)cb_alloc_aligned(sizeof *u.c);
	if (u.c == NULL ||
	    (u.c->mem = cb_alloc_aligned(2 * CB_PAD +
					 CU_RING * sizeof(uint64_t))) == NULL ||
	    cb_wl_trial_alloc(&t, o, 4) != 0) {
		rc = 1;
		goto out;
	}
	cu_ctx *c = u.c;
	c->index = (uint64_t *)c->mem;
	c->rpos = c->index + (padded ? CB_PAD / sizeof(uint64_t) : 1);
	c->values = c->index + 2 * CB_PAD / sizeof(uint64_t);
	snprintf(label, sizeof label, "%s/%s", order, layout);
	t.label = label;
	t.user = &u;
	t.after = cu_after;
	t.sec_label[0] = "readerLag";
	t.sec_unit[0] = "elements";
	t.sec_label[1] = "emptyReads";
	t.sec_unit[1] = "#/element";
	t.sec_label[2] = "writerStalls";
	t.sec_unit[2] = "#/element";
	t.sec_label[3] = "stale";
	t.sec_unit[3] = "#";
	const cb_role_fn roles[2] = {cu_orders[oi].write, cu_read};
	if (cb_wl_trial_start(&t, o, env, 2, roles, c, aff, sizeof aff) != 0) {
		rc = 1;
		goto out;
	}
	t.g.w[0].seq = 0;
	cb_wl_header(wl, o, "2 (1x \"write\" measured, 1x \"read\")", aff,
		     t.yield, 2, t.ncpus);
	printf("# Parameters: order = %s, layout = %s (index and reader "
	       "position %td bytes apart), ring %" PRIu64 " slots\n",
	       order, layout, (char *)c->rpos - (char *)c->index, CU_RING);
	fflush(stdout);
	cb_wl_rounds(wl, o, &t, 1);
	if (cb_wl_result(rs, &t, o, CU_BENCH, "writeCost", "ns/op") == NULL)
		rc = 1;
out:
	cb_wl_trial_stop(&t);
	if (u.c != NULL)
		cb_free_aligned(u.c->mem);
	cb_free_aligned(u.c);
	return rc;
}

const cb_workload cb_wl_catchup = {
	.name = "Catchup",
	.group = "catchup",
	.mode = "avgt",
	.unit = "ns/op",
	.roles = "write,read",
	.headline = "writeCost",
	.desc = "a writer publishes an index after each element (relaxed / "
		"release / seq_cst), a reader catches up (psy-lob-saw's lazySet "
		"Catchup); ns per element, and how stale the reader is",
	.run = cu_run,
	.modes = CB_MODE_AVGT,
	.params = cu_params,
	.nparams = sizeof cu_params / sizeof cu_params[0],
};
