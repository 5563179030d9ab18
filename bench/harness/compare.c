/* SPDX-License-Identifier: BSD-2-Clause */
/* compare.c - conq-bench compare OLD.json NEW.json (see compare.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "json.h"
#include "stats.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: conq-bench compare [--alpha P] [--threshold PCT] "
		"[--all] OLD.json NEW.json\n"
		"  Ratio new/old of each benchmark's mean, Welch's t and "
		"Mann-Whitney U p-values on\n"
		"  the raw iterations; significant: both p < alpha (0.05) and "
		"|change| > PCT (1%%).\n"
		"  --all: the secondary metrics too (default: the primary "
		"one).\n"
		"  Exit status: 0 no significant regression, 1 a significant "
		"regression, 2 error.\n");
}

/* "benchmark mode {k=v, ...}" identity of one entry. */
static void entry_key(const cb_json *e, char *buf, size_t n)
{
	const cb_json *b = cb_json_get(e, "benchmark");
	const cb_json *m = cb_json_get(e, "mode");
	size_t len = (size_t)snprintf(buf, n, "%s %s",
				      b && b->type == CB_JSTR ? b->str : "?",
				      m && m->type == CB_JSTR ? m->str : "?");
	const cb_json *p = cb_json_get(e, "params");
	if (p == NULL || p->type != CB_JOBJ)
		return;
	/* Params sorted by key, so that the order in the file does not
	 * matter. */
	size_t idx[64], np = p->n < 64 ? p->n : 64;
	for (size_t k = 0; k < np; k++)
		idx[k] = k;
	for (size_t i = 1; i < np; i++)
		for (size_t j = i;
		     j > 0 && strcmp(p->key[idx[j]], p->key[idx[j - 1]]) < 0;
		     j--) {
			size_t t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (size_t k = 0; k < np && len < n; k++) {
		const cb_json *v = &p->kid[idx[k]];
		len += (size_t)snprintf(buf + len, n - len, " %s=%s",
					p->key[idx[k]],
					v->type == CB_JSTR ? v->str : "?");
	}
}

/* A metric's raw data, all forks pooled; NULL if malformed. */
static double *raw_data(const cb_json *metric, size_t *n)
{
	const cb_json *rd = cb_json_get(metric, "rawData");
	*n = 0;
	if (rd == NULL || rd->type != CB_JARR)
		return NULL;
	size_t total = 0;
	for (size_t f = 0; f < rd->n; f++) {
		if (rd->kid[f].type != CB_JARR)
			return NULL;
		total += rd->kid[f].n;
	}
	double *v = (double *)malloc((total + 1) * sizeof *v);
	if (v == NULL)
		return NULL;
	for (size_t f = 0; f < rd->n; f++)
		for (size_t i = 0; i < rd->kid[f].n; i++) {
			double x = cb_json_number(&rd->kid[f].kid[i]);
			if (!isnan(x))
				v[(*n)++] = x;
		}
	return v;
}

static const char *unit_of(const cb_json *metric)
{
	const cb_json *u = cb_json_get(metric, "scoreUnit");
	return u && u->type == CB_JSTR ? u->str : "?";
}

typedef struct tally {
	size_t compared, better, worse, same, small;
	double log_sum;
	size_t nlog;
} tally;

static void compare_metric(const char *key, const char *label,
			   const cb_json *mo, const cb_json *mn, double alpha,
			   double thr, tally *t)
{
	size_t na, nb;
	double *a = raw_data(mo, &na), *b = raw_data(mn, &nb);
	if (a == NULL || b == NULL || na == 0 || nb == 0) {
		printf("%-60s %-14s  (no raw data)\n", key, label);
		free(a);
		free(b);
		return;
	}
	cb_summary sa, sb;
	cb_summarize(a, na, &sa);
	cb_summarize(b, nb, &sb);
	double ratio = sb.mean / sa.mean;
	double tw, df, pw = NAN, u, pu = NAN;
	cb_welch(a, na, b, nb, &tw, &df, &pw);
	cb_mann_whitney(b, nb, a, na, &u, &pu);
	const char *unit = unit_of(mn);
	int higher = strstr(unit, "ops/") != NULL;
	double change = ratio - 1;
	int sig = pw < alpha && pu < alpha && fabs(change) * 100 > thr;
	int good = higher ? change > 0 : change < 0;
	const char *verdict = !sig ? "same" : good ? "BETTER" : "WORSE";
	t->compared++;
	if (!sig)
		t->same++;
	else if (good)
		t->better++;
	else
		t->worse++;
	if (na < 9 || nb < 9)
		t->small++;
	if (ratio > 0 && isfinite(ratio) && strcmp(label, "(primary)") == 0) {
		t->log_sum += log(ratio);
		t->nlog++;
	}
	printf("%-60s %-14s %12.4f %12.4f %-8s %7.3fx %+7.2f%%  %8.2g  %8.2g  "
	       "%3zu/%-3zu %s\n",
	       key, label, sa.mean, sb.mean, unit, ratio, 100 * change, pw, pu,
	       na, nb, verdict);
	free(a);
	free(b);
}

int cb_compare_main(int argc, char **argv)
{
	double alpha = 0.05, thr = 1.0;
	int all = 0;
	const char *files[2];
	int nf = 0;
	for (int k = 1; k < argc; k++) {
		const char *a = argv[k];
		if ((strcmp(a, "--alpha") == 0 ||
		     strcmp(a, "--threshold") == 0) &&
		    k + 1 < argc) {
			char *end;
			errno = 0;
			double v = strtod(argv[k + 1], &end);
			if (*end != '\0' || errno != 0 || !(v >= 0) ||
			    (a[2] == 'a' && !(v > 0 && v < 1))) {
				fprintf(stderr,
					"conq-bench compare: bad %s "
					"'%s'\n",
					a, argv[k + 1]);
				return 2;
			}
			if (a[2] == 'a')
				alpha = v;
			else
				thr = v;
			k++;
		} else if (strcmp(a, "--all") == 0) {
			all = 1;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (a[0] == '-' || nf == 2) {
			usage(stderr);
			return 2;
		} else {
			files[nf++] = a;
		}
	}
	if (nf != 2) {
		usage(stderr);
		return 2;
	}
	cb_json *doc[2];
	for (int k = 0; k < 2; k++) {
		char err[256];
		doc[k] = cb_json_parse_file(files[k], err, sizeof err);
		if (doc[k] == NULL || doc[k]->type != CB_JARR) {
			fprintf(
			    stderr, "conq-bench compare: %s: %s\n", files[k],
			    doc[k] == NULL ? err : "not a JMH result array");
			cb_json_free(doc[0]);
			if (k == 1)
				cb_json_free(doc[1]);
			return 2;
		}
	}
	printf("# conq-bench compare: OLD %s, NEW %s; significant: Welch and "
	       "Mann-Whitney p < %g and |change| > %g%%\n",
	       files[0], files[1], alpha, thr);
	printf("%-60s %-14s %12s %12s %-8s %8s %8s  %8s  %8s  %7s %s\n",
	       "Benchmark (params)", "Metric", "Old mean", "New mean", "Unit",
	       "New/Old", "Change", "p(Welch)", "p(MWU)", "n o/n", "Verdict");
	tally t;
	memset(&t, 0, sizeof t);
	size_t only_old = 0, only_new = 0;
	const cb_json *o = doc[0], *n = doc[1];
	for (size_t j = 0; j < n->n; j++) {
		char kn[1024];
		entry_key(&n->kid[j], kn, sizeof kn);
		const cb_json *eo = NULL;
		for (size_t i = 0; i < o->n && eo == NULL; i++) {
			char ko[1024];
			entry_key(&o->kid[i], ko, sizeof ko);
			if (strcmp(ko, kn) == 0)
				eo = &o->kid[i];
		}
		if (eo == NULL) {
			only_new++;
			continue;
		}
		const cb_json *po = cb_json_get(eo, "primaryMetric");
		const cb_json *pn = cb_json_get(&n->kid[j], "primaryMetric");
		if (po != NULL && pn != NULL)
			compare_metric(kn, "(primary)", po, pn, alpha, thr, &t);
		if (!all)
			continue;
		const cb_json *so = cb_json_get(eo, "secondaryMetrics");
		const cb_json *sn = cb_json_get(&n->kid[j], "secondaryMetrics");
		for (size_t s = 0;
		     sn != NULL && sn->type == CB_JOBJ && s < sn->n; s++) {
			const cb_json *mo = cb_json_get(so, sn->key[s]);
			if (mo != NULL)
				compare_metric(kn, sn->key[s], mo, &sn->kid[s],
					       alpha, thr, &t);
		}
	}
	for (size_t i = 0; i < o->n; i++) {
		char ko[1024];
		entry_key(&o->kid[i], ko, sizeof ko);
		int found = 0;
		for (size_t j = 0; j < n->n && !found; j++) {
			char kn[1024];
			entry_key(&n->kid[j], kn, sizeof kn);
			found = strcmp(ko, kn) == 0;
		}
		only_old += !found;
	}
	printf("\n%zu compared: %zu better, %zu worse, %zu not significant; "
	       "%zu only in OLD, %zu only in NEW",
	       t.compared, t.better, t.worse, t.same, only_old, only_new);
	if (t.nlog > 0)
		printf("; geometric mean of the primary ratios %.3fx",
		       exp(t.log_sum / (double)t.nlog));
	printf("\n");
	if (t.small > 0)
		printf(
		    "[!] %zu comparison%s with fewer than 9 iterations on a "
		    "side: the tests have little power (use more -i or -f)\n",
		    t.small, t.small == 1 ? "" : "s");
	cb_json_free(doc[0]);
	cb_json_free(doc[1]);
	if (t.compared == 0) {
		fprintf(stderr, "conq-bench compare: no benchmark in common\n");
		return 2;
	}
	return t.worse > 0 ? 1 : 0;
}
