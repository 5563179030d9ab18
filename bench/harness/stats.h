/* SPDX-License-Identifier: BSD-2-Clause */
/* stats.h - summaries of per-iteration scores, as JMH computes them. */
#ifndef CB_STATS_H
#define CB_STATS_H

#include <stddef.h>

typedef struct cb_summary {
	size_t n;
	double mean, stdev; /* sample stdev (n - 1); NaN for n < 2 */
	double median, min, max, p25, p75;
	double err;   /* half-width of the 99.9% Student-t CI of the mean
			 (JMH's "Error"); NaN for n <= 2, as in JMH */
	double mdape; /* median absolute percentage error (nanobench's err%) */
} cb_summary;

void cb_summarize(const double *v, size_t n, cb_summary *s);

/* Quantile q in [0, 1] of sorted[0..n), linear interpolation (R type 7). */
double cb_quantile_sorted(const double *sorted, size_t n, double q);

/* Median of v[0..n) (v is left alone). NaN for n == 0. */
double cb_median(const double *v, size_t n);

/* Regularized incomplete beta I_x(a, b). */
double cb_betai(double a, double b, double x);

/* Student-t CDF and its inverse, df degrees of freedom. */
double cb_student_t_cdf(double t, double df);
double cb_student_t_quantile(double p, double df);

/* JMH's error multiplier: t(1 - (1 - conf) / 2, n - 1). */
double cb_t_multiplier(double confidence, size_t n);

/* Welch's two-sample t test of mean(b) vs mean(a): the t statistic, the
 * Welch-Satterthwaite degrees of freedom, and the two-sided p-value. -1 if
 * either sample has fewer than 2 values (p = NaN). Both samples constant
 * and equal: t = 0, p = 1; constant and different: p = 0. */
int cb_welch(const double *a, size_t na, const double *b, size_t nb,
	     double *t, double *df, double *p);

/* Mann-Whitney U test (two-sided): U of sample a, and the p-value, exact
 * (by enumeration of the rank sums) when there are no ties and na, nb <= 8,
 * else from the normal approximation with the tie correction and a
 * continuity correction. -1 if a sample is empty. */
int cb_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		    double *u, double *p);

/* The standard normal CDF. */
double cb_normal_cdf(double z);

/* Checks that passed in the self-tests (each module adds its own). */
extern unsigned cb_selftest_passed;

/* Unit tests of this module; prints failures, returns their count. */
int cb_stats_selftest(void);

#endif /* CB_STATS_H */
