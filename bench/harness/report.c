/* SPDX-License-Identifier: BSD-2-Clause */
/* report.c - the text report: the JMH-like table (Score = median, with Min,
 * Max, Mean and the 99.9% Error), the ratios of each conq queue to each peer
 * and to the best peer of its contract, the latency blocks of sample mode,
 * and the warnings. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "report.h"
#include "stats.h"

const char *cb_result_params(const cb_result *r, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t j = 0; j < r->nparams && len < n; j++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s=%s",
					j ? " " : "", r->params[j].name,
					r->params[j].value);
	return buf;
}

static const char *qname(const cb_result *r)
{
	return r->adapter ? r->adapter->name : "-";
}

#define MAX_PCOLS 12

/* The parameter names of the table's columns (first appearance order). */
static size_t pcols(const cb_results *rs, const char **names)
{
	size_t n = 0;
	for (size_t k = 0; k < rs->n; k++)
		for (size_t j = 0; j < rs->r[k].nparams; j++) {
			int seen = 0;
			for (size_t i = 0; i < n; i++)
				seen |= strcmp(names[i],
					       rs->r[k].params[j].name) == 0;
			if (!seen && n < MAX_PCOLS)
				names[n++] = rs->r[k].params[j].name;
		}
	return n;
}

static const char *pval(const cb_result *r, const char *name)
{
	for (size_t j = 0; j < r->nparams; j++)
		if (strcmp(r->params[j].name, name) == 0)
			return r->params[j].value;
	return "N/A";
}

typedef struct row {
	char bench[96];
	char tg[24];
	const char *pv[MAX_PCOLS];
	const char *qtype;
	const char *mode;
	size_t cnt;
	cb_summary s;
	const char *unit;
} row;

static int num_width(double v)
{
	char b[64];
	return isnan(v) ? 0 : snprintf(b, sizeof b, "%.3f", v);
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static void print_num(FILE *f, double v, int w)
{
	if (isnan(v))
		fprintf(f, "  %*s", w, "");
	else
		fprintf(f, "  %*.3f", w, v);
}

static void print_table(FILE *f, const cb_results *rs)
{
	size_t nrows = 0;
	for (size_t k = 0; k < rs->n; k++)
		nrows += 1 + rs->r[k].nsecondary;
	row *rows = (row *)calloc(nrows ? nrows : 1, sizeof *rows);
	if (rows == NULL)
		return;
	const char *pn[MAX_PCOLS];
	size_t npc = pcols(rs, pn);
	size_t n = 0;
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		for (size_t j = 0; j <= r->nsecondary; j++) {
			const cb_series *s = j == 0 ? &r->primary
						    : &r->secondary[j - 1];
			row *w = &rows[n++];
			if (j == 0)
				snprintf(w->bench, sizeof w->bench, "%s",
					 r->benchmark);
			else
				snprintf(w->bench, sizeof w->bench, "%s:%s",
					 r->benchmark, s->label);
			for (size_t c = 0; c < npc; c++)
				w->pv[c] = pval(r, pn[c]);
			snprintf(w->tg, sizeof w->tg, "%u,%u", r->producers,
				 r->consumers);
			w->qtype = qname(r);
			w->mode = r->mode;
			w->cnt = s->n;
			w->unit = s->unit;
			cb_summarize(s->v, s->n, &w->s);
		}
	}
	int wb = 9, wt = 4, wq = 7, wm = 4, wn = 3, ws = 5, wmin = 3,
	    wmax = 3, wmean = 4, we = 5, wu = 5;
	int wc[MAX_PCOLS];
	char ph[MAX_PCOLS][64];
	for (size_t c = 0; c < npc; c++) {
		snprintf(ph[c], sizeof ph[c], "(%s)", pn[c]);
		wc[c] = (int)strlen(ph[c]);
	}
	for (size_t k = 0; k < n; k++) {
		const row *w = &rows[k];
		wb = imax(wb, (int)strlen(w->bench));
		wt = imax(wt, (int)strlen(w->tg));
		for (size_t c = 0; c < npc; c++)
			wc[c] = imax(wc[c], (int)strlen(w->pv[c]));
		wq = imax(wq, (int)strlen(w->qtype));
		wm = imax(wm, (int)strlen(w->mode));
		char b[32];
		wn = imax(wn, snprintf(b, sizeof b, "%zu", w->cnt));
		ws = imax(ws, num_width(w->s.median));
		wmin = imax(wmin, num_width(w->s.min));
		wmax = imax(wmax, num_width(w->s.max));
		wmean = imax(wmean, num_width(w->s.mean));
		we = imax(we, num_width(w->s.err));
		wu = imax(wu, (int)strlen(w->unit));
	}
	fprintf(f, "%-*s  %*s", wb, "Benchmark", wt, "(tg)");
	for (size_t c = 0; c < npc; c++)
		fprintf(f, "  %*s", wc[c], ph[c]);
	fprintf(f, "  %-*s  %-*s  %*s  %*s  %*s  %*s  %*s    %*s  %-*s\n", wq,
		"(qType)", wm, "Mode", wn, "Cnt", ws, "Score", wmin, "Min",
		wmax, "Max", wmean, "Mean", we, "Error", wu, "Units");
	for (size_t k = 0; k < n; k++) {
		const row *w = &rows[k];
		if (k > 0 && strchr(w->bench, ':') == NULL)
			fputc('\n', f);
		fprintf(f, "%-*s  %*s", wb, w->bench, wt, w->tg);
		for (size_t c = 0; c < npc; c++)
			fprintf(f, "  %*s", wc[c], w->pv[c]);
		fprintf(f, "  %-*s  %-*s  %*zu", wq, w->qtype, wm, w->mode, wn,
			w->cnt);
		print_num(f, w->s.median, ws);
		print_num(f, w->s.min, wmin);
		print_num(f, w->s.max, wmax);
		print_num(f, w->s.mean, wmean);
		fprintf(f, "  %s", isnan(w->s.err) ? " " : "\xC2\xB1");
		print_num(f, w->s.err, we);
		fprintf(f, "  %-*s\n", wu, w->unit);
	}
	free(rows);
	fprintf(f, "\nScore = median of the per-iteration %s (all forks "
		   "pooled); Min/Max over iterations; Error = half-width of "
		   "the 99.9%% Student-t confidence interval of the Mean "
		   "(JMH's Score and Error). (tg) = -tg P,C: P producers, C "
		   "consumers; thrpt: each metric is the sum over the threads "
		   "of a role of each one's rate; avgt: the mean over them of "
		   "each one's time per op (JMH's aggregations).\n",
		rs->n ? rs->r[0].primary.label : "scores");
}

static int same_group(const cb_result *a, const cb_result *b)
{
	if (strcmp(a->benchmark, b->benchmark) != 0 ||
	    strcmp(a->mode, b->mode) != 0 || a->capacity != b->capacity ||
	    a->producers != b->producers || a->consumers != b->consumers ||
	    a->nparams != b->nparams || a->adapter == NULL ||
	    b->adapter == NULL)
		return 0;
	return cb_result_same_params(a, b);
}

/* Higher is better for a rate (ops/us), lower for a time (ns/op...). */
static int higher_better(const cb_result *r)
{
	return strstr(r->primary.unit, "ops/") != NULL;
}

/* One ratio line: a[k] / b[k] over the rounds k < n (n >= 1). da/db:
 * disturbed rounds (may be NULL). Returns -1 on allocation failure. */
static int ratio_line(FILE *f, const char *lhs, const char *note,
		      const double *a, const double *b, size_t n,
		      const unsigned char *da, const unsigned char *db)
{
	if (n == 0)
		return 0;
	double *q = (double *)calloc(n, sizeof *q);
	double *qa = (double *)calloc(n, sizeof *qa);
	double *qb = (double *)calloc(n, sizeof *qb);
	if (q == NULL || qa == NULL || qb == NULL) {
		free(q);
		free(qa);
		free(qb);
		return -1;
	}
	for (size_t k = 0; k < n; k++)
		q[k] = a[k] / b[k];
	cb_summary s;
	cb_summarize(q, n, &s);
	double med = cb_median(a, n) / cb_median(b, n);
	/* The same over the rounds in which neither side was disturbed. */
	size_t nu = 0;
	for (size_t k = 0; k < n; k++) {
		if ((da && da[k]) || (db && db[k]))
			continue;
		qa[nu] = a[k];
		qb[nu++] = b[k];
	}
	double medu = nu ? cb_median(qa, nu) / cb_median(qb, nu) : NAN;
	fprintf(f,
		"  %-48s %7.2fx  (median of per-iteration ratios %.2fx, IQR "
		"%.2fx..%.2fx, n = %zu)%s\n",
		lhs, med, s.median, s.p25, s.p75, n, note);
	/* (Every round disturbed: said once per group, by print_ratios.) */
	if (nu > 0 && nu < n)
		fprintf(f,
			"  %-48s %7.2fx  (ratio of medians over the %zu of %zu "
			"rounds that neither side had disturbed)\n",
			"", medu, nu, n);
	free(q);
	free(qa);
	free(qb);
	return 0;
}

int cb_report_ratio_series(FILE *f, const char *lhs, const double *a,
			   const double *b, size_t n, const unsigned char *da,
			   const unsigned char *db)
{
	return ratio_line(f, lhs, "", a, b, n, da, db);
}

double cb_round_ratio_series(const double *a, const double *b, size_t n,
			     double *p25, double *p75)
{
	double *q = (double *)calloc(n ? n : 1, sizeof *q);
	if (q == NULL || n == 0) {
		free(q);
		return NAN;
	}
	for (size_t k = 0; k < n; k++)
		q[k] = a[k] / b[k];
	cb_summary s;
	cb_summarize(q, n, &s);
	free(q);
	if (p25 != NULL)
		*p25 = s.p25;
	if (p75 != NULL)
		*p75 = s.p75;
	return s.median;
}

int cb_report_ratio_line(FILE *f, const char *lhs, const cb_result *a,
			 const cb_result *b)
{
	size_t n = a->primary.n < b->primary.n ? a->primary.n : b->primary.n;
	return ratio_line(f, lhs, "", a->primary.v, b->primary.v, n,
			  a->disturbed, b->disturbed);
}

double cb_round_ratio(const cb_result *a, const cb_result *b)
{
	size_t n = a->primary.n < b->primary.n ? a->primary.n : b->primary.n;
	double *q = (double *)calloc(n ? n : 1, sizeof *q);
	if (q == NULL || n == 0) {
		free(q);
		return NAN;
	}
	for (size_t k = 0; k < n; k++)
		q[k] = a->primary.v[k] / b->primary.v[k];
	double m = cb_median(q, n);
	free(q);
	return m;
}

static int is_rival(const cb_result *ra, const cb_result *rb,
		    unsigned contracts)
{
	return same_group(ra, rb) && rb->adapter->kind == CB_KIND_PEER &&
	       (rb->adapter->contract & contracts) &&
	       rb->primary.n == ra->primary.n;
}

/* conq's queue a against the best peer (by median) of its group whose
 * contract is in `contracts`: the ratio of medians and the per-round ratios
 * to that peer. (Not to each round's best: the max of several noisy scores
 * is biased upwards.) */
static size_t best_peer_of(const cb_results *rs, size_t a, unsigned contracts,
			   int *npeers)
{
	const cb_result *ra = &rs->r[a];
	size_t best = (size_t)-1;
	const int hb = higher_better(ra);
	double best_med = hb ? -INFINITY : INFINITY;
	*npeers = 0;
	for (size_t b = 0; b < rs->n; b++) {
		if (!is_rival(ra, &rs->r[b], contracts))
			continue;
		(*npeers)++;
		double m = cb_median(rs->r[b].primary.v, ra->primary.n);
		if (hb ? m > best_med : m < best_med) {
			best_med = m;
			best = b;
		}
	}
	return best;
}

/* The index of that peer's result, (size_t)-1 if none. */
static size_t best_peer(const cb_results *rs, size_t a, unsigned contracts)
{
	int np;
	return best_peer_of(rs, a, contracts, &np);
}

static int best_peer_line(FILE *f, const cb_results *rs, size_t a,
			  unsigned contracts, const char *what)
{
	const cb_result *ra = &rs->r[a];
	const size_t n = ra->primary.n;
	int npeers;
	size_t best = best_peer_of(rs, a, contracts, &npeers);
	if (best == (size_t)-1 || n == 0)
		return 0;
	const cb_result *rb = &rs->r[best];
	char lhs[160];
	snprintf(lhs, sizeof lhs, "%s / best %s peer:", ra->adapter->name,
		 what);
	char note[160];
	snprintf(note, sizeof note, "\n  %-48s           = %s, the best of %d "
		 "by median", "", rb->adapter->name, npeers);
	return ratio_line(f, lhs, note, ra->primary.v, rb->primary.v, n,
			  ra->disturbed, rb->disturbed);
}

static void print_ratios(FILE *f, const cb_results *rs)
{
	int header = 0;
	for (size_t g = 0; g < rs->n; g++) {
		/* Each group (benchmark, capacity, shape) once: at its first
		 * result. */
		int first = 1;
		for (size_t h = 0; h < g && first; h++)
			first = !same_group(&rs->r[h], &rs->r[g]);
		if (!first)
			continue;
		/* Headers, if the group has a conq queue and anything else. */
		int own = 0, members = 0;
		for (size_t a = g; a < rs->n; a++) {
			if (!same_group(&rs->r[a], &rs->r[g]))
				continue;
			members++;
			own |= rs->r[a].adapter->kind == CB_KIND_OWN;
		}
		/* Contenders that are not queues (contract 0: Uuid,
		 * Refcount): their workload's report has their ratios. */
		if (!own || members < 2 || rs->r[g].adapter->contract == 0)
			continue;
		if (!header) {
			fprintf(f,
				"\nRatios of the Score, same run (iteration k "
				"of each queue ran in round k%s):\n",
				rs->r[g].forks > 1 ? " of the same fork" : "");
			header = 1;
		}
		int clean = 0;
		for (size_t a = g; a < rs->n; a++)
			clean |= same_group(&rs->r[a], &rs->r[g]) &&
				 rs->r[a].ndisturbed < rs->r[a].primary.n;
		char pbuf[256];
		fprintf(f, "%s %s -tg %u,%u %s (%s %s: %s):%s\n",
			rs->r[g].benchmark, rs->r[g].mode, rs->r[g].producers,
			rs->r[g].consumers,
			cb_result_params(&rs->r[g], pbuf, sizeof pbuf),
			rs->r[g].primary.label, rs->r[g].primary.unit,
			higher_better(&rs->r[g]) ? "> 1x: conq's is faster"
						 : "< 1x: conq's is faster",
			clean ? ""
			      : "  (every iteration of every queue disturbed: "
				"no ratios over undisturbed rounds; the "
				"interleaving is all that keeps these fair)");
		for (size_t a = g; a < rs->n; a++) {
			const cb_result *ra = &rs->r[a];
			if (ra->adapter == NULL ||
			    ra->adapter->kind != CB_KIND_OWN ||
			    !same_group(ra, &rs->r[g]))
				continue;
			for (size_t b = g; b < rs->n; b++) {
				const cb_result *rb = &rs->r[b];
				/* Each peer of the same contract, and the
				 * baselines; peers of other contracts only
				 * through the best-of line below. */
				if (b == a || rb->adapter == NULL ||
				    rb->adapter->kind == CB_KIND_OWN ||
				    !same_group(ra, rb) ||
				    (rb->adapter->kind == CB_KIND_PEER &&
				     rb->adapter->contract !=
					     ra->adapter->contract))
					continue;
				size_t n = ra->primary.n < rb->primary.n
						   ? ra->primary.n
						   : rb->primary.n;
				char lhs[160];
				snprintf(lhs, sizeof lhs, "%s / %s:",
					 ra->adapter->name, rb->adapter->name);
				if (ratio_line(f, lhs, "", ra->primary.v,
					       rb->primary.v, n, ra->disturbed,
					       rb->disturbed) != 0)
					return;
			}
			/* The cost of generality: against conq's own queues
			 * of a narrower contract in the same group. */
			for (size_t b = g; b < rs->n; b++) {
				const cb_result *rb = &rs->r[b];
				if (rb->adapter == NULL)
					continue;
				unsigned ca = ra->adapter->contract;
				unsigned cb = rb->adapter->contract;
				int narrower = ca != cb &&
					       (cb == CB_SPSC || ca == CB_MPMC);
				if (rb->adapter->kind != CB_KIND_OWN ||
				    !same_group(ra, rb) || !narrower ||
				    rb->primary.n != ra->primary.n)
					continue;
				char lhs[160];
				snprintf(lhs, sizeof lhs, "%s / %s:",
					 ra->adapter->name, rb->adapter->name);
				if (ratio_line(f, lhs, "", ra->primary.v,
					       rb->primary.v, ra->primary.n,
					       ra->disturbed,
					       rb->disturbed) != 0)
					return;
			}
			/* The yardstick: the best peer that serves
			 * the same contract, and (if other peers ran) the
			 * best peer of any contract at this shape. */
			unsigned c = ra->adapter->contract;
			int others = 0;
			for (size_t b = g; b < rs->n; b++)
				others |= rs->r[b].adapter != NULL &&
					  rs->r[b].adapter->kind ==
						  CB_KIND_PEER &&
					  same_group(ra, &rs->r[b]) &&
					  rs->r[b].adapter->contract != c;
			size_t same = best_peer(rs, a, c), any = best_peer(
							     rs, a,
							     CB_ALL_CONTRACTS);
			if (best_peer_line(f, rs, a, c, cb_contract_name(c)) != 0)
				return;
			if (others && any != same &&
			    best_peer_line(f, rs, a, CB_ALL_CONTRACTS,
					   "any-contract") != 0)
				return;
		}
	}
}

static void print_notes(FILE *f, const cb_results *rs)
{
	int any = 0;
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		char id[320], pbuf[256];
		snprintf(id, sizeof id, "%s %s -tg %u,%u %s", qname(r), r->mode,
			 r->producers, r->consumers,
			 cb_result_params(r, pbuf, sizeof pbuf));
		if (r->overruns) {
			fprintf(f,
				"%s[!] %s: %u of %zu iterations ran over 110%% "
				"of their time (preempted control thread or "
				"worker?)\n",
				any++ ? "" : "\n", id, r->overruns,
				r->primary.n);
		}
		if (r->ndisturbed)
			fprintf(f,
				"%s[!] %s: %u of %zu iterations disturbed (%s: "
				"other load on the machine)\n",
				any++ ? "" : "\n", id, r->ndisturbed,
				r->primary.n,
				strcmp(r->mode, "ss") == 0
					? "a worker was preempted during the "
					  "shot"
				: r->oversubscribed
					? "the workers together were on their "
					  "CPUs < 95% of the time"
					: "a worker was on its CPU < 95% of "
					  "the time");
		if (!r->pinned)
			fprintf(f, "%s[!] %s: worker threads NOT pinned\n",
				any++ ? "" : "\n", id);
		if (r->reorders)
			fprintf(f,
				"%s[!] %s: %llu element%s out of per-producer "
				"FIFO order (not promised: %s): counted, not "
				"failed\n",
				any++ ? "" : "\n", id,
				(unsigned long long)r->reorders,
				r->reorders == 1 ? "" : "s",
				r->adapter->weak_order);
		if (r->starved)
			fprintf(f,
				"%s[!] %s: in %u iteration%s a thread with a CPU "
				"of its own made no operation (starved)\n",
				any++ ? "" : "\n", id, r->starved,
				r->starved == 1 ? "" : "s");
		if (r->violations)
			fprintf(f,
				"%s[!] %s: %u INVARIANT VIOLATIONS (see "
				"stderr)\n",
				any++ ? "" : "\n", id, r->violations);
	}
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		int first = r->oversubscribed;
		for (size_t h = 0; h < k && first; h++)
			first = !(rs->r[h].oversubscribed &&
				  rs->r[h].producers == r->producers &&
				  rs->r[h].consumers == r->consumers);
		if (first)
			fprintf(f,
				"%s[!] WARNING: -tg %u,%u is OVERSUBSCRIBED (more "
				"worker threads than CPUs): failed ops yield "
				"after %u consecutive failures; the numbers "
				"measure the scheduler as much as the queues\n",
				any++ ? "" : "\n", r->producers, r->consumers,
				256u);
	}
}

/* Sample mode: the seeds' latency block of each result with a histogram. */
static void print_latency(FILE *f, const cb_results *rs)
{
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		if (r->hist == NULL || cb_hist_count(r->hist) == 0)
			continue;
		char pbuf[256];
		const char *u = r->hist_unit ? r->hist_unit : "ns";
		fprintf(f, "\n%s (qType = %s, -tg %u,%u, %s)\n"
			   "%s SERVICE-TIME Latencies distribution in %s\n",
			r->benchmark, qname(r), r->producers, r->consumers,
			cb_result_params(r, pbuf, sizeof pbuf),
			r->primary.label,
			strcmp(u, "ns") == 0 ? "NANOSECONDS" : u);
		cb_hist_print(f, r->hist, 1);
	}
}

void cb_report_text(FILE *f, const cb_results *rs)
{
	fprintf(f, "\n");
	print_table(f, rs);
	print_latency(f, rs);
	print_ratios(f, rs);
	for (size_t k = 0; k < cb_nworkloads; k++)
		if (cb_workloads[k]->report != NULL)
			cb_workloads[k]->report(f, rs);
	print_notes(f, rs);
	fprintf(f, "\nREMEMBER: these numbers are just data: a few-thread "
		   "benchmark on a shared or virtual machine measures the "
		   "machine too.\n");
}
