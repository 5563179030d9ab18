/* SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "stats.h"

typedef struct row {
	char bench[96];
	char cap[24];
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
			snprintf(w->cap, sizeof w->cap, "%zu", r->capacity);
			w->qtype = r->adapter->name;
			w->mode = r->mode;
			w->cnt = s->n;
			w->unit = s->unit;
			cb_summarize(s->v, s->n, &w->s);
		}
	}
	int wb = 9, wc = 11, wq = 7, wm = 4, wn = 3, ws = 5, wmin = 3,
	    wmax = 3, wmean = 4, we = 5, wu = 5;
	for (size_t k = 0; k < n; k++) {
		const row *w = &rows[k];
		wb = imax(wb, (int)strlen(w->bench));
		wc = imax(wc, (int)strlen(w->cap));
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
	fprintf(f, "%-*s  %*s  %-*s  %-*s  %*s  %*s  %*s  %*s  %*s    %*s  %-*s\n",
		wb, "Benchmark", wc, "(qCapacity)", wq, "(qType)", wm, "Mode",
		wn, "Cnt", ws, "Score", wmin, "Min", wmax, "Max", wmean,
		"Mean", we, "Error", wu, "Units");
	for (size_t k = 0; k < n; k++) {
		const row *w = &rows[k];
		if (k > 0 && strchr(w->bench, ':') == NULL)
			fputc('\n', f);
		fprintf(f, "%-*s  %*s  %-*s  %-*s  %*zu", wb, w->bench, wc,
			w->cap, wq, w->qtype, wm, w->mode, wn, w->cnt);
		print_num(f, w->s.median, ws);
		print_num(f, w->s.min, wmin);
		print_num(f, w->s.max, wmax);
		print_num(f, w->s.mean, wmean);
		fprintf(f, "  %s", isnan(w->s.err) ? " " : "\xC2\xB1");
		print_num(f, w->s.err, we);
		fprintf(f, "  %-*s\n", wu, w->unit);
	}
	free(rows);
	fprintf(f, "\nScore = median of the per-iteration %s; Min/Max over "
		   "iterations; Error = half-width of the 99.9%% Student-t "
		   "confidence interval of the Mean (JMH's Error).\n",
		rs->n ? rs->r[0].primary.label : "scores");
}

static void print_ratios(FILE *f, const cb_results *rs)
{
	int header = 0;
	for (size_t a = 0; a < rs->n; a++) {
		const cb_result *ra = &rs->r[a];
		if (ra->adapter->kind != CB_KIND_OWN)
			continue;
		for (size_t b = 0; b < rs->n; b++) {
			const cb_result *rb = &rs->r[b];
			if (b == a || rb->adapter->kind == CB_KIND_OWN ||
			    strcmp(ra->benchmark, rb->benchmark) != 0 ||
			    ra->capacity != rb->capacity)
				continue;
			size_t n = ra->primary.n < rb->primary.n
					   ? ra->primary.n
					   : rb->primary.n;
			if (n == 0)
				continue;
			if (!header) {
				fprintf(f,
					"\nRatios of %s, same run (iteration k of "
					"each queue ran in round k):\n",
					ra->primary.label);
				header = 1;
			}
			double *q = (double *)malloc(n * sizeof *q);
			if (q == NULL)
				return;
			for (size_t k = 0; k < n; k++)
				q[k] = ra->primary.v[k] / rb->primary.v[k];
			cb_summary s;
			cb_summarize(q, n, &s);
			free(q);
			double med = cb_median(ra->primary.v, n) /
				     cb_median(rb->primary.v, n);
			/* The same over the rounds in which neither queue's
			 * iteration was disturbed. */
			double *qa = (double *)malloc(n * sizeof *qa);
			double *qb = (double *)malloc(n * sizeof *qb);
			size_t nu = 0;
			for (size_t k = 0; qa && qb && k < n; k++) {
				if (ra->disturbed && ra->disturbed[k])
					continue;
				if (rb->disturbed && rb->disturbed[k])
					continue;
				qa[nu] = ra->primary.v[k];
				qb[nu++] = rb->primary.v[k];
			}
			double medu = nu ? cb_median(qa, nu) / cb_median(qb, nu)
					 : NAN;
			free(qa);
			free(qb);
			char lhs[160];
			snprintf(lhs, sizeof lhs, "%s / %s:", ra->adapter->name,
				 rb->adapter->name);
			fprintf(f,
				"  %-36s %7.2fx  (median of per-iteration "
				"ratios %.2fx, IQR %.2fx..%.2fx, n = %zu; "
				"qCapacity = %zu)\n",
				lhs, med, s.median, s.p25, s.p75, n,
				ra->capacity);
			if (nu > 0 && nu < n)
				fprintf(f,
					"  %-36s %7.2fx  (ratio of medians over "
					"the %zu of %zu rounds that neither "
					"queue had disturbed)\n",
					"", medu, nu, n);
			else if (nu == 0)
				fprintf(f,
					"  %-36s %8s  (every round disturbed for "
					"one of the two: re-run on a quieter "
					"machine)\n",
					"", "");
		}
	}
}

static void print_notes(FILE *f, const cb_results *rs)
{
	int any = 0;
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		if (r->overruns) {
			fprintf(f,
				"%s[!] %s qCapacity=%zu: %u of %zu iterations "
				"ran over 110%% of their time (preempted "
				"control thread or worker?)\n",
				any++ ? "" : "\n", r->adapter->name,
				r->capacity, r->overruns, r->primary.n);
		}
		if (r->ndisturbed)
			fprintf(f,
				"%s[!] %s qCapacity=%zu: %u of %zu iterations "
				"disturbed (a worker was on its CPU < 95%% of the "
				"time: other load on the machine)\n",
				any++ ? "" : "\n", r->adapter->name,
				r->capacity, r->ndisturbed, r->primary.n);
		if (!r->pinned)
			fprintf(f, "%s[!] %s: worker threads NOT pinned\n",
				any++ ? "" : "\n", r->adapter->name);
		if (r->violations)
			fprintf(f,
				"%s[!] %s qCapacity=%zu: %u INVARIANT "
				"VIOLATIONS (see stderr)\n",
				any++ ? "" : "\n", r->adapter->name,
				r->capacity, r->violations);
	}
	if (rs->oversubscribed)
		fprintf(f,
			"%s[!] oversubscribed: more worker threads than CPUs; "
			"numbers measure the scheduler as much as the queues\n",
			any++ ? "" : "\n");
}

void cb_report_text(FILE *f, const cb_results *rs)
{
	fprintf(f, "\n");
	print_table(f, rs);
	print_ratios(f, rs);
	print_notes(f, rs);
	fprintf(f, "\nREMEMBER: these numbers are just data: a 2-thread "
		   "benchmark on a shared or virtual machine measures the "
		   "machine too.\n");
}
