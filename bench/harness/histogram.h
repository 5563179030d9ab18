/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * histogram.h - a log-linear latency histogram in the spirit of HdrHistogram
 * (Debian packages no C HdrHistogram): uint64 values (ns, or TSC ticks: the
 * histogram does not care), fixed memory, O(1) record, exact count, min, max
 * and mean, percentiles within a stated relative error.
 *
 * Buckets. Values below 2^(CB_HIST_BITS + 1) = 256 each have their own
 * bucket (exact). Above, each power of two [2^m, 2^(m+1)) is split into
 * 2^CB_HIST_BITS = 128 equal sub-buckets of width 2^(m - CB_HIST_BITS):
 *
 *   shift = max(0, floor(log2 v) - CB_HIST_BITS)
 *   index = shift * 2^CB_HIST_BITS + (v >> shift)
 *
 * which covers all of uint64 in CB_HIST_NBUCKETS = 7424 buckets (58 KiB).
 *
 * Error bound. A percentile is reported as the middle of the bucket that
 * holds the exact sample at that rank (clamped to [min, max]), so for the
 * exact value x and the reported value r:
 *
 *   |r - x| <= x / 2^(CB_HIST_BITS + 1)      (2^-8 = 0.39 % with 7 bits)
 *
 * and r == x for x < 256. Ranks follow HdrHistogram: the value at
 * percentile q (0..100) is the smallest sample v such that at least
 * ceil(q / 100 * count) samples are <= v (q = 0: the minimum).
 *
 * Threads: a histogram belongs to one thread while it records; merge the
 * per-thread histograms afterwards (cb_hist_merge). No atomics inside.
 *
 * API:
 *   cb_hist *cb_hist_new(void)                 zeroed, CB_PAD-aligned; NULL
 *                                              on ENOMEM
 *   void cb_hist_free(cb_hist *h)
 *   void cb_hist_reset(cb_hist *h)             back to empty
 *   void cb_hist_record(cb_hist *h, uint64_t v)        one sample (inline)
 *   void cb_hist_record_n(cb_hist *h, uint64_t v, uint64_t n)  n samples
 *   void cb_hist_merge(cb_hist *dst, const cb_hist *src)  dst += src
 *   uint64_t cb_hist_count/min/max(const cb_hist *h)   exact (min/max 0
 *                                              when empty)
 *   double cb_hist_mean(const cb_hist *h)      exact up to double rounding
 *   double cb_hist_stdev(const cb_hist *h)     population stdev, same
 *   uint64_t cb_hist_percentile(const cb_hist *h, double q)  within the bound
 *   uint64_t cb_hist_rank(uint64_t count, double q)    the rank used above
 *   void cb_hist_print(FILE *f, const cb_hist *h, double divisor)
 *       the seeds' block (artemis-load-generator's LONG format): mean, min,
 *       50.00%, 90.00%, 99.00%, 99.90%, 99.99%, max as "%-6s%20.2f", count
 *       as "%-6s%20llu", then a blank line; every value divided by divisor
 *       (1: as recorded; 1000: ns -> us). The caller prints the title line,
 *       e.g. "EndToEnd SERVICE-TIME Latencies distribution in NANOSECONDS".
 */
#ifndef CB_HISTOGRAM_H
#define CB_HISTOGRAM_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CB_HIST_BITS 7u
#define CB_HIST_SUB ((uint64_t)1 << CB_HIST_BITS)
/* Buckets: shift 0 covers [0, 2 * SUB); shift s >= 1 adds SUB buckets; the
 * largest shift is 63 - CB_HIST_BITS. */
#define CB_HIST_NBUCKETS ((64u - CB_HIST_BITS + 1u) * (unsigned)CB_HIST_SUB)

/* The percentiles of the printed block, in its order. */
#define CB_HIST_NBLOCK 5
extern const double cb_hist_block_q[CB_HIST_NBLOCK]; /* 50 90 99 99.9 99.99 */

typedef struct cb_hist {
	uint64_t count;
	uint64_t min, max; /* UINT64_MAX, 0 while empty */
	double sum, sumsq; /* for the mean and stdev */
	uint64_t b[CB_HIST_NBUCKETS];
} cb_hist;

static inline unsigned cb_hist_index(uint64_t v)
{
	if (v < 2 * CB_HIST_SUB)
		return (unsigned)v;
	unsigned m = 63u - (unsigned)__builtin_clzll(v); /* floor(log2 v) */
	unsigned shift = m - CB_HIST_BITS;
	return shift * (unsigned)CB_HIST_SUB + (unsigned)(v >> shift);
}

static inline void cb_hist_record_n(cb_hist *h, uint64_t v, uint64_t n)
{
	h->b[cb_hist_index(v)] += n;
	h->count += n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	double d = (double)v, dn = (double)n;
	h->sum += d * dn;
	h->sumsq += d * d * dn;
}

static inline void cb_hist_record(cb_hist *h, uint64_t v)
{
	cb_hist_record_n(h, v, 1);
}

cb_hist *cb_hist_new(void);
void cb_hist_free(cb_hist *h);
void cb_hist_reset(cb_hist *h);
void cb_hist_merge(cb_hist *dst, const cb_hist *src);

/* Bucket i's lowest value and width (for tests and full distributions). */
uint64_t cb_hist_bucket_low(unsigned i);
uint64_t cb_hist_bucket_width(unsigned i);

uint64_t cb_hist_count(const cb_hist *h);
uint64_t cb_hist_min(const cb_hist *h);
uint64_t cb_hist_max(const cb_hist *h);
double cb_hist_mean(const cb_hist *h);
double cb_hist_stdev(const cb_hist *h);
uint64_t cb_hist_rank(uint64_t count, double q);
uint64_t cb_hist_percentile(const cb_hist *h, double q);
void cb_hist_print(FILE *f, const cb_hist *h, double divisor);

#ifdef __cplusplus
}
#endif

#endif /* CB_HISTOGRAM_H */
