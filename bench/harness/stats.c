/* SPDX-License-Identifier: BSD-2-Clause */
/* stats.c - summaries (mean, median, quantiles, 99.9% Student-t CI, MdAPE)
 * and the two-sample tests of `compare` (Welch's t, Mann-Whitney U). */
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

double cb_normal_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

int cb_welch(const double *a, size_t na, const double *b, size_t nb,
	     double *t, double *df, double *p)
{
	*t = *df = *p = NAN;
	if (na < 2 || nb < 2)
		return -1;
	cb_summary sa, sb;
	cb_summarize(a, na, &sa);
	cb_summarize(b, nb, &sb);
	double va = sa.stdev * sa.stdev / (double)na;
	double vb = sb.stdev * sb.stdev / (double)nb;
	double d = sb.mean - sa.mean;
	if (va + vb == 0) {
		*t = d == 0 ? 0 : (d > 0 ? INFINITY : -INFINITY);
		*df = (double)(na + nb - 2);
		*p = d == 0 ? 1 : 0;
		return 0;
	}
	*t = d / sqrt(va + vb);
	*df = (va + vb) * (va + vb) /
	      (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	*p = 2 * cb_student_t_cdf(-fabs(*t), *df);
	return 0;
}

/* Exact two-sided p of U for samples of na and nb without ties: count the
 * rank-sum distribution by dynamic programming (C(16, 8) = 12870 at most). */
static double mw_exact(double u, size_t na, size_t nb)
{
	/* Under the null hypothesis each of the C(na + nb, na) orders of
	 * the pooled sample is equally likely. U is the sum over the a's of
	 * the number of b's below each, and an order is one non-decreasing
	 * sequence of na such counts in 0..nb: c[k][s] counts the multisets
	 * of k values in 0..nb with sum s. */
	const size_t umax = na * nb;
	double c[9][65];
	memset(c, 0, sizeof c);
	c[0][0] = 1;
	for (size_t j = 0; j <= nb; j++) /* value j, any number of times */
		for (size_t k = 1; k <= na; k++)
			for (size_t s = j; s <= umax; s++)
				c[k][s] += c[k - 1][s - j];
	/* c[na][s] now counts multisets of na values in 0..nb with sum s,
	 * the null distribution of U (each equally likely). */
	double total = 0, le = 0, ge = 0;
	for (size_t s = 0; s <= umax; s++) {
		total += c[na][s];
		if ((double)s <= u)
			le += c[na][s];
		if ((double)s >= u)
			ge += c[na][s];
	}
	double p = 2 * (le < ge ? le : ge) / total;
	return p > 1 ? 1 : p;
}

int cb_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		    double *u, double *p)
{
	*u = *p = NAN;
	if (na == 0 || nb == 0)
		return -1;
	/* U of a: pairs (a_i, b_j) with a_i > b_j, ties count one half. */
	double U = 0;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			U += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
	*u = U;
	/* Ties: sum over groups of equal values of (t^3 - t). */
	size_t n = na + nb;
	double *x = (double *)malloc(n * sizeof *x);
	if (x == NULL)
		return -1;
	memcpy(x, a, na * sizeof *x);
	memcpy(x + na, b, nb * sizeof *x);
	qsort(x, n, sizeof *x, cmp_double);
	double ties = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && x[j] == x[i])
			j++;
		double tcount = (double)(j - i);
		ties += tcount * tcount * tcount - tcount;
		i = j;
	}
	free(x);
	if (ties == 0 && na <= 8 && nb <= 8) {
		*p = mw_exact(U, na, nb);
		return 0;
	}
	double dn = (double)n, mu = (double)na * (double)nb / 2;
	double var = (double)na * (double)nb / 12 *
		     ((dn + 1) - ties / (dn * (dn - 1)));
	if (var <= 0) {
		*p = 1;
		return 0;
	}
	double z = (fabs(U - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	*p = 2 * (1 - cb_normal_cdf(z));
	if (*p > 1)
		*p = 1;
	return 0;
}

unsigned cb_selftest_passed;

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
		} else {
			cb_selftest_passed++;
		}
	}
	/* df = 1 is Cauchy: t(0.9995) = tan(pi * 0.4995). */
	double cauchy = tan(3.14159265358979323846 * 0.4995);
	if (!(fabs(cb_student_t_quantile(0.9995, 1) / cauchy - 1) < 1e-6)) {
		printf("FAIL t(0.9995, df=1) = %.6f, want %.6f\n",
		       cb_student_t_quantile(0.9995, 1), cauchy);
		fails++;
	} else {
		cb_selftest_passed++;
	}
	if (!(fabs(cb_student_t_quantile(0.975, 1e6) - 1.959966) < 1e-4)) {
		printf("FAIL t(0.975, df=1e6) -> normal 1.959966\n");
		fails++;
	} else {
		cb_selftest_passed++;
	}
	double v[] = {5, 1, 4, 2, 3};
	cb_summary s;
	cb_summarize(v, 5, &s);
	if (s.median != 3 || s.min != 1 || s.max != 5 || s.mean != 3 ||
	    fabs(s.stdev - sqrt(2.5)) > 1e-12 || s.p25 != 2 || s.p75 != 4) {
		printf("FAIL summary of 1..5\n");
		fails++;
	} else {
		cb_selftest_passed++;
	}
	if (fabs(s.err - 8.610 * sqrt(2.5) / sqrt(5.0)) > 1e-2) {
		printf("FAIL error of 1..5: %f\n", s.err);
		fails++;
	} else {
		cb_selftest_passed++;
	}
	double w[] = {4, 1, 3, 2};
	if (cb_median(w, 4) != 2.5) {
		printf("FAIL median of 1..4\n");
		fails++;
	} else {
		cb_selftest_passed++;
	}
	cb_summarize(w, 2, &s);
	if (!isnan(s.err)) {
		printf("FAIL error of n=2 must be NaN\n");
		fails++;
	} else {
		cb_selftest_passed++;
	}
	/* The CI of a known sample: 10 values, mean 5.5, s = sqrt(55/6),
	 * error = t(0.9995, 9) * s / sqrt(10) = 4.781 * 0.9574 = 4.5776. */
	double ten[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	cb_summarize(ten, 10, &s);
	if (fabs(s.mean - 5.5) > 1e-12 ||
	    fabs(s.err - 4.780912 * sqrt(55.0 / 6) / sqrt(10.0)) > 1e-4) {
		printf("FAIL CI of 1..10: %f\n", s.err);
		fails++;
	} else {
		cb_selftest_passed++;
	}
	/* Welch: a = 1..5, b = 3..7 (equal variances 2.5, n 5): t = 2 /
	 * sqrt(1) = 2, df = 8, p = 2 * P(T8 > 2) = 0.0805. */
	double a5[] = {1, 2, 3, 4, 5}, b5[] = {3, 4, 5, 6, 7};
	double t, df, pv, u;
	cb_welch(a5, 5, b5, 5, &t, &df, &pv);
	if (fabs(t - 2) > 1e-12 || fabs(df - 8) > 1e-9 ||
	    fabs(pv - 0.080516) > 1e-5) {
		printf("FAIL welch t=%f df=%f p=%f\n", t, df, pv);
		fails++;
	} else {
		cb_selftest_passed++;
	}
	/* Unequal variances: df from Welch-Satterthwaite. a = {1,2,3} (var 1),
	 * b = {10,20,30,40} (var 166.67): va = 1/3, vb = 41.667, df =
	 * 42^2 / ((1/3)^2/2 + 41.667^2/3) = 3.0487. */
	double a3[] = {1, 2, 3}, b4[] = {10, 20, 30, 40};
	cb_welch(a3, 3, b4, 4, &t, &df, &pv);
	if (fabs(df - 3.04867) > 1e-3 || fabs(t - 23 / sqrt(42.0)) > 1e-9) {
		printf("FAIL welch (unequal) t=%f df=%f\n", t, df);
		fails++;
	} else {
		cb_selftest_passed++;
	}
	/* Mann-Whitney, exact: complete separation of 5 and 5: U = 0, p =
	 * 2 / C(10,5) = 0.0079365. 4 vs 4 separated: 2/70 = 0.028571. */
	double c5[] = {6, 7, 8, 9, 10};
	cb_mann_whitney(a5, 5, c5, 5, &u, &pv);
	if (u != 0 || fabs(pv - 2.0 / 252) > 1e-9) {
		printf("FAIL mann-whitney 5v5 U=%f p=%f\n", u, pv);
		fails++;
	} else {
		cb_selftest_passed++;
	}
	double d4[] = {1, 2, 3, 4}, e4[] = {5, 6, 7, 8};
	cb_mann_whitney(e4, 4, d4, 4, &u, &pv);
	if (u != 16 || fabs(pv - 2.0 / 70) > 1e-9) {
		printf("FAIL mann-whitney 4v4 U=%f p=%f\n", u, pv);
		fails++;
	} else {
		cb_selftest_passed++;
	}
	/* Interleaved samples: U = 12.5 of 25, p = 1. {1,3,5,7,9} vs
	 * {2,4,6,8,10}: U(a) = 0+1+2+3+4 = 10, exact p = 0.690476. */
	double o5[] = {1, 3, 5, 7, 9}, e5[] = {2, 4, 6, 8, 10};
	cb_mann_whitney(o5, 5, e5, 5, &u, &pv);
	if (u != 10 || fabs(pv - 0.690476) > 1e-5) {
		printf("FAIL mann-whitney interleaved U=%f p=%f\n", u, pv);
		fails++;
	} else {
		cb_selftest_passed++;
	}
	/* Normal approximation with ties (n > 8): 10 zeros vs 10 ones:
	 * U = 0, var = 100/12 * (21 - 1980/380) = 131.58, z = (50 - 0.5) /
	 * 11.471 = 4.3153, p = 1.594e-5. */
	double z10[10] = {0}, o10[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	cb_mann_whitney(z10, 10, o10, 10, &u, &pv);
	if (u != 0 || fabs(pv / 1.594e-5 - 1) > 0.01) {
		printf("FAIL mann-whitney ties U=%f p=%g\n", u, pv);
		fails++;
	} else {
		cb_selftest_passed++;
	}
	return fails;
}
