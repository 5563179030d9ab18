/* SPDX-License-Identifier: BSD-2-Clause */
/* report.h - the results as text (a JMH-like table and the ratios), CSV and
 * JSON. */
#ifndef CB_REPORT_H
#define CB_REPORT_H

#include <stdio.h>

#include "workload.h"

/* The JMH-like text report: table, ratios, latency blocks, warnings. */
void cb_report_text(FILE *f, const cb_results *rs);

/* -rf csv and -rf json (output.c); 0 or -1 on a write error. */
int cb_report_csv(FILE *f, const cb_results *rs);
int cb_report_json(FILE *f, const cb_options *o, const cb_env *env,
		   const cb_results *rs);

/* Write the -rf formats to their files; 0 or -1. */
int cb_write_results(const cb_options *o, const cb_env *env,
		     const cb_results *rs);

/* The warnings of one result (JMH's [!] footnotes): at most max lines. */
size_t cb_result_warnings(const cb_result *r, char (*w)[160], size_t max);

/* A ratio line of the ratio block for a / b (their primary scores, the
 * same rounds): the ratio of medians, the median and IQR of the per-round
 * ratios, and over the undisturbed rounds. -1 on ENOMEM. */
int cb_report_ratio_line(FILE *f, const char *lhs, const cb_result *a,
			 const cb_result *b);

/* The same for two series of n rounds (da/db: their disturbed rounds, may
 * be NULL): a ratio of things other than two primary scores (a sum of two
 * contenders' times, a secondary metric). -1 on ENOMEM. */
int cb_report_ratio_series(FILE *f, const char *lhs, const double *a,
			   const double *b, size_t n, const unsigned char *da,
			   const unsigned char *db);

/* The median of the per-round ratios a[k] / b[k] over n rounds, and their
 * quartiles (p25, p75: may be NULL); NAN if none. */
double cb_round_ratio_series(const double *a, const double *b, size_t n,
			     double *p25, double *p75);

/* The median of the per-round ratios a[k] / b[k]; NAN if none. */
double cb_round_ratio(const cb_result *a, const cb_result *b);

/* "qCapacity=1024 burstSize=10" (the result's parameters) into buf. */
const char *cb_result_params(const cb_result *r, char *buf, size_t n);

#endif /* CB_REPORT_H */
