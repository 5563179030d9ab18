/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_value.c - QueueValueThroughput's block of the text report (the
 * workload itself is wl_throughput.c's loops and trials with vloops.h's
 * elements): per shape, element size and contract, each way of moving an
 * element side by side, with the ratios of the value rings to conq's
 * pointer rings and to the peers; then issue 14's targets, when the run
 * has what they compare.
 *
 * Every ratio is the median of the per-round ratios (the queues of a point
 * ran interleaved, round k running iteration k of each), as the harness's
 * ratio block gives after the ratio of medians.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "stats.h"
#include "workload.h"

#define VALUE_BENCH "QueueValueThroughput.tpt"

static const char *param(const cb_result *r, const char *name)
{
	for (size_t j = 0; j < r->nparams; j++)
		if (strcmp(r->params[j].name, name) == 0)
			return r->params[j].value;
	return "?";
}

static int same_point(const cb_result *a, const cb_result *b)
{
	return strcmp(a->benchmark, b->benchmark) == 0 &&
	       strcmp(a->mode, b->mode) == 0 && a->producers == b->producers &&
	       a->consumers == b->consumers && cb_result_same_params(a, b);
}

static int is_value_thrpt(const cb_result *r)
{
	return r->adapter != NULL && strcmp(r->benchmark, VALUE_BENCH) == 0 &&
	       strcmp(r->mode, "thrpt") == 0 && r->primary.n > 0;
}

/* The result of qType `name` at the point of r0, NULL if it did not run. */
static const cb_result *find(const cb_results *rs, const cb_result *r0,
			     const char *name)
{
	for (size_t k = 0; k < rs->n; k++)
		if (same_point(&rs->r[k], r0) && rs->r[k].adapter != NULL &&
		    strcmp(rs->r[k].adapter->name, name) == 0)
			return &rs->r[k];
	return NULL;
}

static double med(const cb_result *r)
{
	return r != NULL ? cb_median(r->primary.v, r->primary.n) : NAN;
}

static double ratio(const cb_result *a, const cb_result *b)
{
	return a != NULL && b != NULL ? cb_round_ratio(a, b) : NAN;
}

static void cell(FILE *f, double v, int w, const char *fmt)
{
	if (isnan(v))
		fprintf(f, " %*s", w, "-");
	else
		fprintf(f, fmt, w, v);
}

/* The columns: how the element moves, by qType (%s: spsc, mpsc...). */
enum { C_PTR, C_POOL, C_VALUE, C_CLAIM, C_DPDK, C_DPDK_ZC, C_AQ, NCOL };
static const char *const col_name[NCOL] = {"ptr",  "pool",    "value", "claim",
					   "dpdk", "dpdk_zc", "aq"};
static const char *const col_fmt[NCOL] = {
    "conq:%s_array",	    "conq:%s_array_pool",    "conq:%s_value",
    "conq:%s_value_claim",  "dpdk:rte_ring_%s_elem", "dpdk:rte_ring_%s_elem_zc",
    "atomic_queue:%s_value"};
/* The ratios: column a / column b. */
static const int ratio_cols[][2] = {{C_VALUE, C_PTR},	  {C_CLAIM, C_PTR},
				    {C_VALUE, C_POOL},	  {C_CLAIM, C_POOL},
				    {C_VALUE, C_DPDK},	  {C_CLAIM, C_DPDK},
				    {C_CLAIM, C_DPDK_ZC}, {C_VALUE, C_AQ}};
#define NRATIO (sizeof ratio_cols / sizeof ratio_cols[0])

static void table(FILE *f, const cb_results *rs)
{
	static const char *const pcs[] = {"spsc", "mpsc", "spmc", "mpmc"};
	int header = 0;
	for (size_t g = 0; g < rs->n; g++) {
		const cb_result *r0 = &rs->r[g];
		if (!is_value_thrpt(r0))
			continue;
		int first = 1;
		for (size_t h = 0; h < g && first; h++)
			first = !same_point(&rs->r[h], r0);
		if (!first)
			continue;
		for (size_t c = 0; c < 4; c++) {
			const cb_result *q[NCOL];
			for (int k = 0; k < NCOL; k++) {
				char name[64];
				snprintf(name, sizeof name, col_fmt[k], pcs[c]);
				q[k] = find(rs, r0, name);
			}
			/* AtomicQueueB2 is MPMC (and SPSC): the MPMC one
			 * serves the other contracts' rows. */
			if (q[C_AQ] == NULL)
				q[C_AQ] =
				    find(rs, r0, "atomic_queue:mpmc_value");
			if (q[C_VALUE] == NULL && q[C_CLAIM] == NULL)
				continue;
			if (!header) {
				fprintf(f,
					"\nQueueValueThroughput: %s ops/us "
					"(median) by how the element moves, "
					"and the ratios (median of the "
					"per-round ratios), same run:\n"
					"  ptr = conq:<pc>_array moving a "
					"pointer alone, pool = the same moving "
					"pointers to pooled payloads, value = "
					"conq:<pc>_value offer/poll, claim = "
					"its claim/commit, dpdk = "
					"rte_ring_<pc>_elem, dpdk_zc = its "
					"zero-copy API, aq = atomic_queue's "
					"AtomicQueueB2\n",
					r0->primary.label);
				fprintf(f, "  %-5s %-8s %-9s %-4s", "tg",
					"elemSize", "qCapacity", "pc");
				for (int k = 0; k < NCOL; k++)
					fprintf(f, " %7s", col_name[k]);
				for (size_t k = 0; k < NRATIO; k++) {
					char h2[32];
					snprintf(h2, sizeof h2, "%s/%s",
						 col_name[ratio_cols[k][0]],
						 col_name[ratio_cols[k][1]]);
					fprintf(f, " %13s", h2);
				}
				fputc('\n', f);
				header = 1;
			}
			char tg[16];
			snprintf(tg, sizeof tg, "%u,%u", r0->producers,
				 r0->consumers);
			fprintf(f, "  %-5s %-8s %-9s %-4s", tg,
				param(r0, "elemSize"), param(r0, "qCapacity"),
				pcs[c]);
			for (int k = 0; k < NCOL; k++)
				cell(f, med(q[k]), 7, " %*.2f");
			for (size_t k = 0; k < NRATIO; k++)
				cell(f,
				     ratio(q[ratio_cols[k][0]],
					   q[ratio_cols[k][1]]),
				     12, " %*.2fx");
			fputc('\n', f);
		}
	}
}

/* Issue 14: "Same run, 1P1C: the 4-byte SPSC value ring at least 1.6x
 * conq_spsc_array; the 8-byte one at least level with conq_spsc_array;
 * 64-byte claim/commit MPSC at least 2x DPDK's rte_ring_mp_enqueue_elem
 * with 64-byte elements." */
static const struct {
	const char *size, *a, *b;
	double at_least;
} targets[] = {
    {"4", "conq:spsc_value", "conq:spsc_array", 1.6},
    {"8", "conq:spsc_value", "conq:spsc_array", 1.0},
    {"64", "conq:mpsc_value_claim", "dpdk:rte_ring_mpsc_elem", 2.0},
};

static void target_lines(FILE *f, const cb_results *rs)
{
	int header = 0;
	for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
		for (size_t k = 0; k < rs->n; k++) {
			const cb_result *ra = &rs->r[k];
			if (!is_value_thrpt(ra) || ra->producers != 1 ||
			    ra->consumers != 1 ||
			    strcmp(ra->adapter->name, targets[t].a) != 0 ||
			    strcmp(param(ra, "elemSize"), targets[t].size) != 0)
				continue;
			const cb_result *rb = find(rs, ra, targets[t].b);
			if (rb == NULL)
				continue;
			if (!header) {
				fprintf(f,
					"\nIssue 14's targets, -tg 1,1, same "
					"run (the verdict on the median of the "
					"per-round ratios):\n");
				header = 1;
			}
			double r = cb_round_ratio(ra, rb);
			char lhs[200];
			snprintf(
			    lhs, sizeof lhs,
			    "elemSize=%s qCapacity=%s %s / %s >= %.1fx: %s",
			    targets[t].size, param(ra, "qCapacity"),
			    targets[t].a, targets[t].b, targets[t].at_least,
			    r >= targets[t].at_least ? "met" : "NOT MET");
			fprintf(f, "  %s\n", lhs);
			cb_report_ratio_line(f, "", ra, rb);
		}
	}
}

void cb_value_report(FILE *f, const cb_results *rs)
{
	table(f, rs);
	target_lines(f, rs);
}
