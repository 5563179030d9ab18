/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * output.c - the result files (-rf text | csv | json, -rff FILE).
 *
 * JSON is JMH's result JSON: a top-level array with one object per
 * (benchmark, mode, params) and JMH's keys (jmhVersion, benchmark, mode,
 * threads, forks, warmup/measurement settings, params, primaryMetric and
 * secondaryMetrics each with score, scoreError, scoreConfidence,
 * scorePercentiles, scoreUnit and rawData [per fork][per iteration]), so
 * that JMH's visualisers load it. As in JMH, score is the mean and
 * scoreError the half-width of the 99.9% Student-t interval ("NaN" when
 * n <= 2); qType, qCapacity and the thread groups (tg) are params. What JMH
 * has no key for is under "conqBench" in each object (median, min, max,
 * stdev, MdAPE, per-fork means and their spread, disturbed iterations,
 * checks, the latency histogram of sample mode, warnings, environment).
 *
 * CSV is JMH's columns ("Benchmark","Mode","Threads","Samples","Score",
 * "Score Error (99.9%)","Unit","Param: ..."), then "Median","Min","Max" and
 * "Warnings"; one row per metric (secondaries as "Benchmark:label").
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "json.h"
#include "report.h"
#include "stats.h"

/* JMH's score percentiles. */
static const double pct[] = {0.0,  50.0,  90.0,	  95.0,	   99.0,
			     99.9, 99.99, 99.999, 99.9999, 100.0};
#define NPCT (sizeof pct / sizeof pct[0])

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The parameter names over all results (qType, tg and the rest), sorted as
 * JMH sorts its param columns. */
static size_t param_names(const cb_results *rs, const char **names, size_t max)
{
	size_t n = 0;
	names[n++] = "qType";
	names[n++] = "tg";
	for (size_t k = 0; k < rs->n; k++)
		for (size_t j = 0; j < rs->r[k].nparams; j++) {
			const char *nm = rs->r[k].params[j].name;
			int seen = 0;
			for (size_t i = 0; i < n; i++)
				seen |= strcmp(names[i], nm) == 0;
			if (!seen && n < max)
				names[n++] = nm;
		}
	qsort(names, n, sizeof *names, cmp_str);
	return n;
}

/* The value of parameter `name` of r into buf; NULL if it has none. */
static const char *param_value(const cb_result *r, const char *name, char *buf,
			       size_t n)
{
	if (strcmp(name, "qType") == 0)
		return r->adapter ? r->adapter->name : NULL;
	if (strcmp(name, "tg") == 0) {
		snprintf(buf, n, "%u,%u", r->producers, r->consumers);
		return buf;
	}
	for (size_t j = 0; j < r->nparams; j++)
		if (strcmp(r->params[j].name, name) == 0)
			return r->params[j].value;
	return NULL;
}

size_t cb_result_warnings(const cb_result *r, char (*w)[160], size_t max)
{
	size_t n = 0;
	cb_summary s;
	cb_summarize(r->primary.v, r->primary.n, &s);
	if (n < max && !isnan(s.err) && s.mean != 0 &&
	    fabs(s.err / s.mean) > 0.05)
		snprintf(w[n++], 160, "unstable: error %.0f%% of the score",
			 100 * fabs(s.err / s.mean));
	if (n < max && r->forks > 1) {
		double lo = INFINITY, hi = -INFINITY;
		size_t off = 0;
		for (unsigned f = 0; f < r->forks; f++) {
			double m = 0;
			for (size_t i = 0; i < r->fork_len[f]; i++)
				m += r->primary.v[off + i];
			if (r->fork_len[f] > 0) {
				m /= (double)r->fork_len[f];
				lo = m < lo ? m : lo;
				hi = m > hi ? m : hi;
			}
			off += r->fork_len[f];
		}
		if (lo > 0 && hi / lo > 1.10)
			snprintf(w[n++], 160,
				 "fork spread %.2fx (max/min of "
				 "the forks' means)",
				 hi / lo);
	}
	if (n < max && r->ndisturbed)
		snprintf(w[n++], 160, "%u of %zu iterations disturbed",
			 r->ndisturbed, r->primary.n);
	if (n < max && r->overruns)
		snprintf(w[n++], 160,
			 "%u iterations overran 110%% of their "
			 "time",
			 r->overruns);
	if (n < max && r->oversubscribed)
		snprintf(w[n++], 160, "oversubscribed");
	if (n < max && !r->pinned)
		snprintf(w[n++], 160, "not pinned");
	if (n < max && r->reorders)
		snprintf(w[n++], 160, "%llu elements out of per-producer order",
			 (unsigned long long)r->reorders);
	if (n < max && r->starved)
		snprintf(w[n++], 160, "starved in %u iterations", r->starved);
	if (n < max && r->violations)
		snprintf(w[n++], 160, "%u INVARIANT VIOLATIONS", r->violations);
	return n;
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_metric(FILE *f, const cb_result *r, const cb_series *m,
			const char *ind, int primary)
{
	cb_summary s;
	cb_summarize(m->v, m->n, &s);
	fprintf(f, "{\n%s    \"score\" : ", ind);
	cb_json_num(f, s.mean);
	fprintf(f, ",\n%s    \"scoreError\" : ", ind);
	cb_json_num(f, s.err);
	fprintf(f, ",\n%s    \"scoreConfidence\" : [ ", ind);
	cb_json_num(f, isnan(s.err) ? s.mean : s.mean - s.err);
	fprintf(f, ", ");
	cb_json_num(f, isnan(s.err) ? s.mean : s.mean + s.err);
	fprintf(f, " ],\n%s    \"scorePercentiles\" : {", ind);
	double *x = (double *)malloc((m->n + 1) * sizeof *x);
	int hist = primary && r->hist != NULL && cb_hist_count(r->hist) > 0;
	for (size_t k = 0; k < NPCT; k++) {
		double v = NAN;
		if (hist)
			v = (double)cb_hist_percentile(r->hist, pct[k]);
		else if (x != NULL && m->n > 0) {
			if (k == 0) {
				memcpy(x, m->v, m->n * sizeof *x);
				qsort(x, m->n, sizeof *x, cmp_d);
			}
			v = cb_quantile_sorted(x, m->n, pct[k] / 100);
		}
		fprintf(f, "%s\n%s        \"%g%s\" : ", k ? "," : "", ind,
			pct[k], pct[k] == floor(pct[k]) ? ".0" : "");
		cb_json_num(f, v);
	}
	free(x);
	fprintf(f, "\n%s    },\n%s    \"scoreUnit\" : ", ind, ind);
	cb_json_str(f, m->unit);
	fprintf(f, ",\n%s    \"rawData\" : [", ind);
	size_t off = 0;
	unsigned forks = r->forks ? r->forks : 1;
	for (unsigned fk = 0; fk < forks; fk++) {
		size_t len = r->fork_len ? r->fork_len[fk] : m->n;
		fprintf(f, "%s\n%s        [", fk ? "," : "", ind);
		for (size_t i = 0; i < len && off + i < m->n; i++) {
			fprintf(f, "%s", i ? ", " : " ");
			cb_json_num(f, m->v[off + i]);
		}
		fprintf(f, " ]");
		off += len;
	}
	fprintf(f, "\n%s    ]\n%s}", ind, ind);
}

static void json_result(FILE *f, const cb_options *o, const cb_env *env,
			const cb_result *r)
{
	char w[32], rt[32], buf[32];
	fprintf(f, "    {\n        \"jmhVersion\" : ");
	cb_json_str(f, "conq-bench " CB_VERSION " (JMH 1.37 result format)");
	fprintf(f, ",\n        \"benchmark\" : ");
	cb_json_str(f, r->benchmark);
	fprintf(f, ",\n        \"mode\" : ");
	cb_json_str(f, r->mode);
	fprintf(f,
		",\n        \"threads\" : %u,\n        \"forks\" : %u,\n"
		"        \"jvm\" : ",
		r->producers + r->consumers,
		o->forks > 0 ? (unsigned)o->forks : 0u);
	cb_json_str(f, o->argv[0]);
	fprintf(f, ",\n        \"jvmArgs\" : [ ],\n        \"jdkVersion\" : ");
	cb_json_str(f, env->compiler);
	fprintf(f, ",\n        \"vmName\" : \"conq-bench\",\n        "
		   "\"vmVersion\" : ");
	cb_json_str(f, env->build);
	fprintf(f,
		",\n        \"warmupIterations\" : %d,\n        "
		"\"warmupTime\" : ",
		o->wi);
	cb_json_str(f, cb_fmt_time(o->w_ns, w, sizeof w));
	fprintf(f,
		",\n        \"warmupBatchSize\" : 1,\n        "
		"\"measurementIterations\" : %d,\n        "
		"\"measurementTime\" : ",
		o->i);
	cb_json_str(f, cb_fmt_time(o->r_ns, rt, sizeof rt));
	fprintf(f, ",\n        \"measurementBatchSize\" : 1,\n        "
		   "\"params\" : {");
	const char *names[CB_MAX_PARAMS + 2];
	size_t nn = 0;
	names[nn++] = "qType";
	names[nn++] = "tg";
	for (size_t j = 0; j < r->nparams && nn < CB_MAX_PARAMS + 2; j++)
		names[nn++] = r->params[j].name;
	qsort(names, nn, sizeof *names, cmp_str);
	int first = 1;
	for (size_t j = 0; j < nn; j++) {
		const char *v = param_value(r, names[j], buf, sizeof buf);
		if (v == NULL)
			continue;
		fprintf(f, "%s\n            ", first ? "" : ",");
		cb_json_str(f, names[j]);
		fprintf(f, " : ");
		cb_json_str(f, v);
		first = 0;
	}
	fprintf(f, "\n        },\n        \"primaryMetric\" : ");
	json_metric(f, r, &r->primary, "        ", 1);
	fprintf(f, ",\n        \"secondaryMetrics\" : {");
	for (size_t j = 0; j < r->nsecondary; j++) {
		fprintf(f, "%s\n            ", j ? "," : "");
		cb_json_str(f, r->secondary[j].label);
		fprintf(f, " : ");
		json_metric(f, r, &r->secondary[j], "            ", 0);
	}
	fprintf(f, "%s},\n", r->nsecondary ? "\n        " : "");

	/* What JMH has no key for. */
	cb_summary s;
	cb_summarize(r->primary.v, r->primary.n, &s);
	fprintf(f, "        \"conqBench\" : {\n            \"status\" : "
		   "\"ok\",\n            \"headline\" : ");
	cb_json_str(f, r->primary.label);
	fprintf(f, ",\n            \"contract\" : ");
	cb_json_str(f,
		    r->adapter ? cb_contract_name(r->adapter->contract) : "-");
	fprintf(f, ",\n            \"kind\" : ");
	cb_json_str(f, r->adapter == NULL		  ? "-"
		       : r->adapter->kind == CB_KIND_OWN  ? "own"
		       : r->adapter->kind == CB_KIND_PEER ? "peer"
							  : "baseline");
	fprintf(f,
		",\n            \"threadGroups\" : [ %u, %u ],\n"
		"            \"capacityActual\" : %zu,\n"
		"            \"n\" : %zu,\n            \"median\" : ",
		r->producers, r->consumers, r->capacity_actual, s.n);
	cb_json_num(f, s.median);
	fprintf(f, ",\n            \"min\" : ");
	cb_json_num(f, s.min);
	fprintf(f, ",\n            \"max\" : ");
	cb_json_num(f, s.max);
	fprintf(f, ",\n            \"stdev\" : ");
	cb_json_num(f, s.stdev);
	fprintf(f, ",\n            \"mdape\" : ");
	cb_json_num(f, s.mdape);
	fprintf(f, ",\n            \"forkMeans\" : [");
	size_t off = 0;
	for (unsigned fk = 0; r->fork_len && fk < r->forks; fk++) {
		double m = 0;
		for (size_t i = 0; i < r->fork_len[fk]; i++)
			m += r->primary.v[off + i];
		off += r->fork_len[fk];
		fprintf(f, "%s", fk ? ", " : " ");
		cb_json_num(f, r->fork_len[fk] ? m / (double)r->fork_len[fk]
					       : NAN);
	}
	fprintf(f,
		" ],\n            \"disturbedIterations\" : %u,\n"
		"            \"overruns\" : %u,\n"
		"            \"oversubscribed\" : %s,\n"
		"            \"pinned\" : %s,\n"
		"            \"checks\" : {\n"
		"                \"everyElement\" : %s,\n"
		"                \"violations\" : %u,\n"
		"                \"reorders\" : %llu,\n"
		"                \"starvedIterations\" : %u,\n"
		"                \"maxDrained\" : %llu,\n"
		"                \"maxWindowBacklog\" : %llu\n"
		"            },\n",
		r->ndisturbed, r->overruns,
		r->oversubscribed ? "true" : "false",
		r->pinned ? "true" : "false", r->checked ? "true" : "false",
		r->violations, (unsigned long long)r->reorders, r->starved,
		(unsigned long long)r->max_drained,
		(unsigned long long)r->max_window);
	if (r->hist != NULL) {
		const cb_hist *h = r->hist;
		fprintf(f, "            \"latency\" : {\n                "
			   "\"unit\" : ");
		cb_json_str(f, r->hist_unit ? r->hist_unit : "ns");
		fprintf(f,
			",\n                \"count\" : %llu,\n"
			"                \"mean\" : ",
			(unsigned long long)cb_hist_count(h));
		cb_json_num(f, cb_hist_mean(h));
		fprintf(f,
			",\n                \"min\" : %llu,\n"
			"                \"max\" : %llu,\n"
			"                \"percentiles\" : {",
			(unsigned long long)cb_hist_min(h),
			(unsigned long long)cb_hist_max(h));
		static const double lq[] = {50, 90, 99, 99.9, 99.99};
		for (size_t k = 0; k < sizeof lq / sizeof lq[0]; k++)
			fprintf(
			    f, "%s \"%g\" : %llu", k ? "," : "", lq[k],
			    (unsigned long long)cb_hist_percentile(h, lq[k]));
		fprintf(f, " }\n            },\n");
	}
	char warn[12][160];
	size_t nw = cb_result_warnings(r, warn, 12);
	fprintf(f, "            \"warnings\" : [");
	for (size_t k = 0; k < nw; k++) {
		fprintf(f, "%s\n                ", k ? "," : "");
		cb_json_str(f, warn[k]);
	}
	char line[768];
	cb_env_line(env, line, sizeof line);
	fprintf(f, "%s],\n            \"env\" : ", nw ? "\n            " : " ");
	cb_json_str(f, line);
	fprintf(f, ",\n            \"date\" : ");
	cb_json_str(f, env->date);
	fprintf(f, "\n        }\n    }");
}

int cb_report_json(FILE *f, const cb_options *o, const cb_env *env,
		   const cb_results *rs)
{
	fprintf(f, "[\n");
	for (size_t k = 0; k < rs->n; k++) {
		json_result(f, o, env, &rs->r[k]);
		fprintf(f, "%s\n", k + 1 < rs->n ? "," : "");
	}
	fprintf(f, "]\n");
	return ferror(f) ? -1 : 0;
}

/* ---- CSV ----------------------------------------------------------------- */

static void csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("NaN", f);
	else
		fprintf(f, "%.6f", v);
}

int cb_report_csv(FILE *f, const cb_results *rs)
{
	const char *names[CB_MAX_PARAMS * 4];
	size_t nn = param_names(rs, names, sizeof names / sizeof names[0]);
	fputs("\"Benchmark\",\"Mode\",\"Threads\",\"Samples\",\"Score\","
	      "\"Score Error (99.9%)\",\"Unit\"",
	      f);
	for (size_t k = 0; k < nn; k++) {
		char h[96];
		snprintf(h, sizeof h, "Param: %s", names[k]);
		fputc(',', f);
		csv_str(f, h);
	}
	fputs(",\"Median\",\"Min\",\"Max\",\"Warnings\"\n", f);
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		char warn[12][160], wl[1024] = "";
		size_t nw = cb_result_warnings(r, warn, 12);
		for (size_t i = 0; i < nw; i++) {
			size_t len = strlen(wl);
			snprintf(wl + len, sizeof wl - len, "%s%s",
				 i ? "; " : "", warn[i]);
		}
		for (size_t j = 0; j <= r->nsecondary; j++) {
			const cb_series *m =
			    j ? &r->secondary[j - 1] : &r->primary;
			char bench[160];
			if (j)
				snprintf(bench, sizeof bench, "%s:%s",
					 r->benchmark, m->label);
			else
				snprintf(bench, sizeof bench, "%s",
					 r->benchmark);
			cb_summary s;
			cb_summarize(m->v, m->n, &s);
			csv_str(f, bench);
			fputc(',', f);
			csv_str(f, r->mode);
			fprintf(f, ",%u,%zu,", r->producers + r->consumers,
				m->n);
			csv_num(f, s.mean);
			fputc(',', f);
			csv_num(f, s.err);
			fputc(',', f);
			csv_str(f, m->unit);
			for (size_t p = 0; p < nn; p++) {
				char buf[32];
				const char *v =
				    param_value(r, names[p], buf, sizeof buf);
				fputc(',', f);
				if (v != NULL)
					csv_str(f, v);
			}
			fputc(',', f);
			csv_num(f, s.median);
			fputc(',', f);
			csv_num(f, s.min);
			fputc(',', f);
			csv_num(f, s.max);
			fputc(',', f);
			csv_str(f, j == 0 ? wl : "");
			fputc('\n', f);
		}
	}
	return ferror(f) ? -1 : 0;
}

/* ---- the files ----------------------------------------------------------- */

int cb_write_results(const cb_options *o, const cb_env *env,
		     const cb_results *rs)
{
	static const struct {
		unsigned bit;
		const char *ext;
	} fmts[] = {
	    {CB_RF_TEXT, "text"}, {CB_RF_CSV, "csv"}, {CB_RF_JSON, "json"}};
	int rc = 0;
	for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
		if (!(o->rf & fmts[k].bit))
			continue;
		char path[4096];
		if (o->rff != NULL)
			snprintf(path, sizeof path, "%s", o->rff);
		else
			snprintf(path, sizeof path, "conq-bench-result.%s",
				 fmts[k].ext);
		FILE *f = fopen(path, "w");
		if (f == NULL) {
			fprintf(stderr, "conq-bench: -rff %s: %s\n", path,
				strerror(errno));
			rc = -1;
			continue;
		}
		int w = 0;
		if (fmts[k].bit == CB_RF_TEXT)
			cb_report_text(f, rs);
		else if (fmts[k].bit == CB_RF_CSV)
			w = cb_report_csv(f, rs);
		else
			w = cb_report_json(f, o, env, rs);
		if (fclose(f) != 0 || w != 0) {
			fprintf(stderr, "conq-bench: writing %s failed\n",
				path);
			rc = -1;
		} else {
			printf("# Results (%s) written to %s\n", fmts[k].ext,
			       path);
		}
	}
	return rc;
}
