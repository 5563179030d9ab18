/* SPDX-License-Identifier: BSD-2-Clause */
/* plot.c - --plot DIR: gnuplot data, scripts, PNG and SVG (see plot.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "histogram.h"
#include "plot.h"
#include "report.h"
#include "stats.h"

static int same_chart(const cb_result *a, const cb_result *b)
{
	if (strcmp(a->benchmark, b->benchmark) != 0 ||
	    strcmp(a->mode, b->mode) != 0 || a->producers != b->producers ||
	    a->consumers != b->consumers || a->nparams != b->nparams ||
	    strcmp(a->primary.unit, b->primary.unit) != 0)
		return 0;
	return cb_result_same_params(a, b);
}

/* A file name from the group's identity. */
static void slug(const cb_result *r, const char *suffix, char *buf, size_t n)
{
	char raw[512], pbuf[256];
	snprintf(raw, sizeof raw, "%s_%s_tg%u-%u_%s%s", r->benchmark, r->mode,
		 r->producers, r->consumers,
		 cb_result_params(r, pbuf, sizeof pbuf), suffix);
	size_t k = 0;
	for (const char *c = raw; *c && k + 1 < n; c++) {
		char x = *c;
		int ok = (x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') ||
			 (x >= '0' && x <= '9') || x == '-' || x == '.';
		buf[k++] = ok ? x : '_';
	}
	buf[k] = '\0';
}

static int on_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (path == NULL)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char f[4096];
		snprintf(f, sizeof f, "%.*s/%s", (int)len, path, prog);
		if (access(f, X_OK) == 0)
			return 1;
		path += len;
		if (*path == ':')
			path++;
	}
	return 0;
}

/* Run gnuplot on script (a file name inside dir), in dir. */
static int run_gnuplot(const char *dir, const char *script)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(127);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static const char *kind_name(const cb_result *r)
{
	if (r->adapter == NULL)
		return "other";
	return r->adapter->kind == CB_KIND_OWN	  ? "conq"
	       : r->adapter->kind == CB_KIND_PEER ? "peer"
						  : "baseline";
}

static FILE *open_in(const char *dir, const char *name, const char *ext)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
	FILE *f = fopen(path, "w");
	if (f == NULL)
		fprintf(stderr, "conq-bench: --plot: %s: %s\n", path,
			strerror(errno));
	return f;
}

/* The bar chart of group g (the results like rs->r[g]). */
static int bar_chart(const cb_options *o, const cb_results *rs, size_t g,
		     char *name, size_t nlen)
{
	const cb_result *r0 = &rs->r[g];
	slug(r0, "", name, nlen);
	FILE *d = open_in(o->plot_dir, name, "dat");
	if (d == NULL)
		return -1;
	fprintf(d,
		"# %s %s -tg %u,%u; columns: index qType kind median min "
		"max mean error (%s)\n",
		r0->benchmark, r0->mode, r0->producers, r0->consumers,
		r0->primary.unit);
	size_t nb = 0;
	double top = 0;
	for (size_t k = g; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		if (!same_chart(r0, r))
			continue;
		cb_summary s;
		cb_summarize(r->primary.v, r->primary.n, &s);
		fprintf(d, "%zu \"%s\" %s %.6g %.6g %.6g %.6g %.6g\n", nb,
			r->adapter ? r->adapter->name : r->benchmark,
			kind_name(r), s.median, s.min, s.max, s.mean,
			isnan(s.err) ? 0.0 : s.err);
		if (s.max > top)
			top = s.max;
		nb++;
	}
	if (fclose(d) != 0)
		return -1;
	FILE *f = open_in(o->plot_dir, name, "gp");
	if (f == NULL)
		return -1;
	char pbuf[256];
	double width = 360 + 46 * (double)nb;
	fprintf(
	    f,
	    "# gnuplot script written by conq-bench --plot; run: gnuplot "
	    "%s.gp\n"
	    "set title \"%s %s -tg %u,%u %s\\n(bar: median of %zu "
	    "iterations; whiskers: min..max)\" noenhanced\n"
	    "set ylabel \"%s\" noenhanced\n"
	    "set style fill solid 0.8 border -1\n"
	    "set boxwidth 0.7\n"
	    "set xtics rotate by -40 nomirror noenhanced\n"
	    "set yrange [0:%.6g]\n"
	    "set grid ytics\n"
	    "set key top right\n"
	    "set bmargin 13\n"
	    "kind(k) = (k eq \"conq\") ? 0x1f77b4 : (k eq \"peer\") ? "
	    "0xff7f0e : 0x7f7f7f\n"
	    "plot_it = \"plot '%s.dat' using 1:4:(kind(strcol(3))):"
	    "xtic(2) with boxes lc rgb variable notitle, "
	    "'' using 1:4:5:6 with yerrorbars lc rgb 'black' pt -1 notitle, "
	    "NaN with boxes lc rgb '#1f77b4' title 'conq', "
	    "NaN with boxes lc rgb '#ff7f0e' title 'peers', "
	    "NaN with boxes lc rgb '#7f7f7f' title 'baselines'\"\n"
	    "set terminal pngcairo size %.0f,600 font 'sans,9'\n"
	    "set output '%s.png'\n"
	    "eval plot_it\n"
	    "set terminal svg size %.0f,600 font 'sans,9' background "
	    "'white'\n"
	    "set output '%s.svg'\n"
	    "eval plot_it\n",
	    name, r0->benchmark, r0->mode, r0->producers, r0->consumers,
	    cb_result_params(r0, pbuf, sizeof pbuf), r0->primary.n,
	    r0->primary.unit, top * 1.12 > 0 ? top * 1.12 : 1.0, name, width,
	    name, width, name);
	return fclose(f) != 0 ? -1 : 0;
}

/* The latency percentile curve of result r (sample mode). */
static int latency_chart(const cb_options *o, const cb_result *r, char *name,
			 size_t nlen)
{
	char base[400];
	slug(r, "_latency", base, sizeof base);
	snprintf(name, nlen, "%s_%s", base,
		 r->adapter ? r->adapter->name : "x");
	for (char *c = name; *c; c++)
		if (*c == ':')
			*c = '_';
	FILE *d = open_in(o->plot_dir, name, "dat");
	if (d == NULL)
		return -1;
	fprintf(d, "# percentile 1/(1-p) value(%s)\n",
		r->hist_unit ? r->hist_unit : "ns");
	static const double q[] = {0,	 25,   50,    75,    90,     95,    99,
				   99.5, 99.9, 99.95, 99.99, 99.995, 99.999};
	for (size_t k = 0; k < sizeof q / sizeof q[0]; k++)
		fprintf(d, "%g %.6g %llu\n", q[k], 1 / (1 - q[k] / 100),
			(unsigned long long)cb_hist_percentile(r->hist, q[k]));
	if (fclose(d) != 0)
		return -1;
	FILE *f = open_in(o->plot_dir, name, "gp");
	if (f == NULL)
		return -1;
	fprintf(
	    f,
	    "# gnuplot script written by conq-bench --plot\n"
	    "set title \"%s %s (%s): sampled latency by percentile\" "
	    "noenhanced\n"
	    "set logscale x\n"
	    "set xlabel 'percentile (x = 1/(1-p))'\n"
	    "set xtics ('0' 1, '90' 10, '99' 100, '99.9' 1000, "
	    "'99.99' 10000, '99.999' 100000)\n"
	    "set ylabel '%s'\n"
	    "set grid\n"
	    "plot_it = \"plot '%s.dat' using 2:3 with linespoints notitle\"\n"
	    "set terminal pngcairo size 640,420 font 'sans,9'\n"
	    "set output '%s.png'\n"
	    "eval plot_it\n"
	    "set terminal svg size 640,420 font 'sans,9' background "
	    "'white'\n"
	    "set output '%s.svg'\n"
	    "eval plot_it\n",
	    r->benchmark, r->adapter ? r->adapter->name : "", r->mode,
	    r->hist_unit ? r->hist_unit : "ns", name, name, name);
	return fclose(f) != 0 ? -1 : 0;
}

/* ---- sweeps: a numeric parameter on the x axis ------------------------- */

static const char *pget(const cb_result *r, const char *name)
{
	for (size_t j = 0; j < r->nparams; j++)
		if (strcmp(r->params[j].name, name) == 0)
			return r->params[j].value;
	return NULL;
}

/* Same benchmark, mode, shape, unit and parameters, parameter `p` aside
 * (which both have). */
static int same_but(const cb_result *a, const cb_result *b, const char *p)
{
	if (strcmp(a->benchmark, b->benchmark) != 0 ||
	    strcmp(a->mode, b->mode) != 0 || a->producers != b->producers ||
	    a->consumers != b->consumers || a->nparams != b->nparams ||
	    strcmp(a->primary.unit, b->primary.unit) != 0 ||
	    pget(a, p) == NULL || pget(b, p) == NULL)
		return 0;
	for (size_t j = 0; j < a->nparams; j++) {
		if (strcmp(a->params[j].name, p) == 0)
			continue;
		const char *v = pget(b, a->params[j].name);
		if (v == NULL || strcmp(v, a->params[j].value) != 0)
			return 0;
	}
	return 1;
}

/* A positive number, else 0. */
static double num(const char *v)
{
	char *end;
	double x = v != NULL ? strtod(v, &end) : 0;
	return v != NULL && end != v && *end == '\0' && x > 0 ? x : 0;
}

/* The sweep of the results like rs->r[g] over parameter p (its values
 * numbers, at least two of them): a line per queue, x = p (a log2 axis),
 * y = the median with min..max whiskers. 1 if written, 0 if not a sweep,
 * -1 on error. */
static int sweep_chart(const cb_options *o, const cb_results *rs, size_t g,
		       const char *p, char *name, size_t nlen)
{
	const cb_result *r0 = &rs->r[g];
	double x0 = num(pget(r0, p));
	size_t nx = 0, nq = 0;
	double lo = INFINITY, hi = 0;
	for (size_t k = g; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		if (!same_but(r0, r, p))
			continue;
		double x = num(pget(r, p));
		if (x == 0)
			return 0;
		nx += x != x0;
		int seen = 0;
		for (size_t h = g; h < k && !seen; h++)
			seen = same_but(r0, &rs->r[h], p) &&
			       rs->r[h].adapter == r->adapter;
		nq += !seen;
	}
	if (nx == 0)
		return 0;
	/* The name: the group's slug with p's value out. */
	char raw[512], pbuf[256];
	size_t len = 0;
	pbuf[0] = '\0';
	for (size_t j = 0; j < r0->nparams && len < sizeof pbuf; j++)
		if (strcmp(r0->params[j].name, p) != 0)
			len += (size_t)snprintf(pbuf + len, sizeof pbuf - len,
						"%s%s=%s", len ? " " : "",
						r0->params[j].name,
						r0->params[j].value);
	snprintf(raw, sizeof raw, "%s_%s_tg%u-%u_%s_sweep_%s", r0->benchmark,
		 r0->mode, r0->producers, r0->consumers, pbuf, p);
	size_t k = 0;
	for (const char *c = raw; *c && k + 1 < nlen; c++) {
		char x = *c;
		int ok = (x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') ||
			 (x >= '0' && x <= '9') || x == '-' || x == '.';
		name[k++] = ok ? x : '_';
	}
	name[k] = '\0';
	FILE *d = open_in(o->plot_dir, name, "dat");
	if (d == NULL)
		return -1;
	fprintf(d, "# %s %s -tg %u,%u %s, over %s; a block per qType: %s "
		   "median min max (%s)\n",
		r0->benchmark, r0->mode, r0->producers, r0->consumers, pbuf, p,
		p, r0->primary.unit);
	/* One block per queue, in the order of the results. */
	const cb_adapter **qs =
	    (const cb_adapter **)calloc(nq ? nq : 1, sizeof *qs);
	if (qs == NULL) {
		fclose(d);
		return -1;
	}
	size_t n = 0;
	for (size_t a = g; a < rs->n; a++) {
		const cb_result *r = &rs->r[a];
		int seen = 0;
		for (size_t i = 0; i < n; i++)
			seen |= qs[i] == r->adapter;
		if (!same_but(r0, r, p) || seen || n == nq)
			continue;
		qs[n++] = r->adapter;
		fprintf(d, "%s\"%s\" median min max\n", n > 1 ? "\n\n" : "",
			r->adapter ? r->adapter->name : r->benchmark);
		/* Its points in increasing x. */
		double last = 0;
		for (;;) {
			const cb_result *best = NULL;
			double bx = INFINITY;
			for (size_t b = g; b < rs->n; b++) {
				const cb_result *rb = &rs->r[b];
				double x = num(pget(rb, p));
				if (same_but(r0, rb, p) &&
				    rb->adapter == r->adapter && x > last &&
				    x < bx) {
					bx = x;
					best = rb;
				}
			}
			if (best == NULL)
				break;
			cb_summary sm;
			cb_summarize(best->primary.v, best->primary.n, &sm);
			fprintf(d, "%g %.6g %.6g %.6g\n", bx, sm.median, sm.min,
				sm.max);
			if (sm.min > 0 && sm.min < lo)
				lo = sm.min;
			if (sm.max > hi)
				hi = sm.max;
			last = bx;
		}
	}
	if (fclose(d) != 0) {
		free(qs);
		return -1;
	}
	FILE *f = open_in(o->plot_dir, name, "gp");
	if (f == NULL) {
		free(qs);
		return -1;
	}
	int logy = hi > 0 && lo < INFINITY && hi / lo > 20;
	fprintf(f,
		"# gnuplot script written by conq-bench --plot; run: gnuplot "
		"%s.gp\n"
		"set title \"%s %s -tg %u,%u %s\\n(median over the "
		"iterations; whiskers: min..max)\" noenhanced\n"
		"set xlabel \"%s\" noenhanced\n"
		"set ylabel \"%s\" noenhanced\n"
		"set logscale x 2\n%s"
		"set grid\n"
		"set key outside right top noenhanced\n"
		"plot_it = \"plot ",
		name, r0->benchmark, r0->mode, r0->producers, r0->consumers,
		pbuf, p, r0->primary.unit, logy ? "set logscale y\n" : "");
	for (size_t i = 0; i < n; i++) {
		const cb_adapter *a = qs[i];
		int kind = a == NULL ? 2 : (int)a->kind;
		fprintf(f,
			"%s'%s.dat' index %zu using 1:2:3:4 with yerrorlines "
			"lw %s dt %d pt %zu title columnheader(1)",
			i ? ", " : "", name, i, kind == CB_KIND_OWN ? "2" : "1",
			kind == CB_KIND_OWN ? 1 : kind == CB_KIND_PEER ? 2 : 3,
			i % 13 + 1);
	}
	fprintf(f,
		"\"\n"
		"set terminal pngcairo size 1000,600 font 'sans,9'\n"
		"set output '%s.png'\n"
		"eval plot_it\n"
		"set terminal svg size 1000,600 font 'sans,9' background "
		"'white'\n"
		"set output '%s.svg'\n"
		"eval plot_it\n",
		name, name);
	free(qs);
	return fclose(f) != 0 ? -1 : 1;
}

/* A chart written (name.dat, name.gp): count it, and render it when gnuplot
 * is on the PATH (gp). */
static void count_chart(const cb_options *o, const char *name, int gp,
			size_t *charts, size_t *rendered)
{
	(*charts)++;
	if (gp) {
		char s[700];
		snprintf(s, sizeof s, "%s.gp", name);
		*rendered += run_gnuplot(o->plot_dir, s) == 0;
	}
}

int cb_plot(const cb_options *o, const cb_results *rs)
{
	if (mkdir(o->plot_dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "conq-bench: --plot %s: %s\n", o->plot_dir,
			strerror(errno));
		return -1;
	}
	int gp = on_path("gnuplot");
	size_t charts = 0, rendered = 0;
	int rc = 0;
	for (size_t g = 0; g < rs->n && rc == 0; g++) {
		int first = 1;
		for (size_t h = 0; h < g && first; h++)
			first = !same_chart(&rs->r[h], &rs->r[g]);
		char name[600];
		if (first) {
			rc = bar_chart(o, rs, g, name, sizeof name);
			if (rc == 0)
				count_chart(o, name, gp, &charts, &rendered);
		}
		if (rc == 0 && rs->r[g].hist != NULL &&
		    cb_hist_count(rs->r[g].hist) > 0) {
			rc = latency_chart(o, &rs->r[g], name, sizeof name);
			if (rc == 0)
				count_chart(o, name, gp, &charts, &rendered);
		}
	}
	/* Sweeps: per group of results that differ in one numeric parameter
	 * only, at its first result. */
	for (size_t g = 0; g < rs->n && rc == 0; g++) {
		const cb_result *r = &rs->r[g];
		for (size_t j = 0; j < r->nparams && rc == 0; j++) {
			const char *p = r->params[j].name;
			int first = 1;
			for (size_t h = 0; h < g && first; h++)
				first = !same_but(&rs->r[h], r, p);
			if (!first)
				continue;
			char name[600];
			int w = sweep_chart(o, rs, g, p, name, sizeof name);
			if (w < 0)
				rc = -1;
			else if (w > 0)
				count_chart(o, name, gp, &charts, &rendered);
		}
	}
	if (rc != 0)
		return -1;
	if (!gp)
		printf(
		    "# --plot: %zu chart%s written to %s (.dat + .gp); "
		    "gnuplot is not installed: not rendered (apt-get install "
		    "gnuplot-nox, then run gnuplot on each .gp there)\n",
		    charts, charts == 1 ? "" : "s", o->plot_dir);
	else
		printf("# --plot: %zu chart%s in %s: .dat, .gp, and %zu "
		       "rendered to PNG and SVG by gnuplot\n",
		       charts, charts == 1 ? "" : "s", o->plot_dir, rendered);
	if (gp && rendered < charts) {
		fprintf(stderr,
			"conq-bench: --plot: gnuplot failed on %zu "
			"chart%s\n",
			charts - rendered, charts - rendered == 1 ? "" : "s");
		return -1;
	}
	return 0;
}
