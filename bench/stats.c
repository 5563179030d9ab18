/* SPDX-License-Identifier: BSD-2-Clause */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double cb_quantile_sorted(const double *sorted, size_t n, double q)
{
	if (n == 0)
		return NAN;
	if (n == 1)
		return sorted[0];
	double h = q * (double)(n - 1);
	double lo = floor(h);
	size_t i = (size_t)lo;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (h - lo) * (sorted[i + 1] - sorted[i]);
}

double cb_median(const double *v, size_t n)
{
	if (n == 0)
		return NAN;
	double *s = (double *)malloc(n * sizeof *s);
	if (s == NULL)
		return NAN;
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	double m = cb_quantile_sorted(s, n, 0.5);
	free(s);
	return m;
}

void cb_summarize(const double *v, size_t n, cb_summary *s)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	s->mean = s->stdev = s->median = s->min = s->max = NAN;
	s->p25 = s->p75 = s->err = s->mdape = NAN;
	if (n == 0)
		return;
	double *x = (double *)malloc(n * sizeof *x);
	if (x == NULL)
		return;
	memcpy(x, v, n * sizeof *x);
	qsort(x, n, sizeof *x, cmp_double);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	s->mean = sum / (double)n;
	if (n > 1) {
		double ss = 0;
		for (size_t i = 0; i < n; i++)
			ss += (x[i] - s->mean) * (x[i] - s->mean);
		s->stdev = sqrt(ss / (double)(n - 1));
	}
	s->min = x[0];
	s->max = x[n - 1];
	s->median = cb_quantile_sorted(x, n, 0.5);
	s->p25 = cb_quantile_sorted(x, n, 0.25);
	s->p75 = cb_quantile_sorted(x, n, 0.75);
	if (n > 2)
		s->err = cb_t_multiplier(0.999, n) * s->stdev / sqrt((double)n);
	if (s->median != 0) {
		for (size_t i = 0; i < n; i++)
			x[i] = fabs(v[i] - s->median) / fabs(s->median);
		s->mdape = cb_median(x, n);
	}
	free(x);
}

/* The continued fraction of I_x(a, b), modified Lentz. */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double f = 1, c = 1, d = 0;
	for (int m = 0; m < 1000; m++) {
		for (int k = 0; k < 2; k++) {
			double num;
			if (k == 0) { /* d_{2m+1} */
				num = -(a + m) * (a + b + m) * x /
				      ((a + 2 * m) * (a + 2 * m + 1));
			} else { /* d_{2m+2} */
				double mm = m + 1;
				num = mm * (b - mm) * x /
				      ((a + 2 * mm - 1) * (a + 2 * mm));
			}
			d = 1 + num * d;
			if (fabs(d) < tiny)
				d = tiny;
			c = 1 + num / c;
			if (fabs(c) < tiny)
				c = tiny;
			d = 1 / d;
			f *= c * d;
			if (fabs(c * d - 1) < eps)
				return f;
		}
	}
	return f;
}

double cb_betai(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	if (x > (a + 1) / (a + b + 2))
		return 1 - cb_betai(b, a, 1 - x);
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) +
			   a * log(x) + b * log1p(-x)) /
		       a;
	return front / betacf(a, b, x);
}

double cb_student_t_cdf(double t, double df)
{
	double x = df / (df + t * t);
	double tail = 0.5 * cb_betai(df / 2, 0.5, x);
	return t >= 0 ? 1 - tail : tail;
}

double cb_student_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p < 0.5)
		return -cb_student_t_quantile(1 - p, df);
	double lo = 0, hi = 1;
	while (cb_student_t_cdf(hi, df) < p && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (cb_student_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double cb_t_multiplier(double confidence, size_t n)
{
	if (n < 2)
		return NAN;
	return cb_student_t_quantile(1 - (1 - confidence) / 2, (double)(n - 1));
}

int cb_stats_selftest(void)
{
	int fails = 0;
	/* Two-sided 99.9% t quantiles, research notes section 1.3. */
	static const struct {
		size_t n;
		double t;
	} tq[] = {{3, 31.599},  {4, 12.924},  {5, 8.610},  {6, 6.869},
		  {8, 5.408},   {10, 4.781},  {15, 4.140}, {20, 3.883},
		  {30, 3.659},  {50, 3.500},  {100, 3.392}};
	for (size_t i = 0; i < sizeof tq / sizeof tq[0]; i++) {
		double t = cb_t_multiplier(0.999, tq[i].n);
		if (!(fabs(t - tq[i].t) < 0.0015)) {
			printf("FAIL t(0.9995, df=%zu) = %.4f, want %.3f\n",
			       tq[i].n - 1, t, tq[i].t);
			fails++;
		}
	}
	/* df = 1 is Cauchy: t(0.9995) = tan(pi * 0.4995). */
	double cauchy = tan(3.14159265358979323846 * 0.4995);
	if (!(fabs(cb_student_t_quantile(0.9995, 1) / cauchy - 1) < 1e-6)) {
		printf("FAIL t(0.9995, df=1) = %.6f, want %.6f\n",
		       cb_student_t_quantile(0.9995, 1), cauchy);
		fails++;
	}
	if (!(fabs(cb_student_t_quantile(0.975, 1e6) - 1.959966) < 1e-4)) {
		printf("FAIL t(0.975, df=1e6) -> normal 1.959966\n");
		fails++;
	}
	double v[] = {5, 1, 4, 2, 3};
	cb_summary s;
	cb_summarize(v, 5, &s);
	if (s.median != 3 || s.min != 1 || s.max != 5 || s.mean != 3 ||
	    fabs(s.stdev - sqrt(2.5)) > 1e-12 || s.p25 != 2 || s.p75 != 4) {
		printf("FAIL summary of 1..5\n");
		fails++;
	}
	if (fabs(s.err - 8.610 * sqrt(2.5) / sqrt(5.0)) > 1e-2) {
		printf("FAIL error of 1..5: %f\n", s.err);
		fails++;
	}
	double w[] = {4, 1, 3, 2};
	if (cb_median(w, 4) != 2.5) {
		printf("FAIL median of 1..4\n");
		fails++;
	}
	cb_summarize(w, 2, &s);
	if (!isnan(s.err)) {
		printf("FAIL error of n=2 must be NaN\n");
		fails++;
	}
	return fails;
}
