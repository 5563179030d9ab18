/* SPDX-License-Identifier: BSD-2-Clause */
/* histogram.c - the log-linear latency histogram (histogram.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"

const double cb_hist_block_q[CB_HIST_NBLOCK] = {50.0, 90.0, 99.0, 99.9,
						 99.99};

void cb_hist_reset(cb_hist *h)
{
	memset(h, 0, sizeof *h);
	h->min = UINT64_MAX;
}

cb_hist *cb_hist_new(void)
{
	/* Its own 128-byte-aligned block: a recording thread shares no line
	 * with anyone. */
	size_t sz = (sizeof(cb_hist) + 127u) / 128u * 128u;
	cb_hist *h = (cb_hist *)aligned_alloc(128, sz);
	if (h != NULL)
		cb_hist_reset(h);
	return h;
}

void cb_hist_free(cb_hist *h)
{
	free(h);
}

void cb_hist_merge(cb_hist *dst, const cb_hist *src)
{
	if (src->count == 0)
		return;
	for (unsigned i = 0; i < CB_HIST_NBUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t cb_hist_bucket_low(unsigned i)
{
	if (i < 2 * CB_HIST_SUB)
		return i;
	unsigned shift = i / (unsigned)CB_HIST_SUB - 1u;
	uint64_t sub = i - shift * (unsigned)CB_HIST_SUB; /* SUB .. 2 SUB - 1 */
	return sub << shift;
}

uint64_t cb_hist_bucket_width(unsigned i)
{
	if (i < 2 * CB_HIST_SUB)
		return 1;
	return (uint64_t)1 << (i / (unsigned)CB_HIST_SUB - 1u);
}

uint64_t cb_hist_count(const cb_hist *h)
{
	return h->count;
}

uint64_t cb_hist_min(const cb_hist *h)
{
	return h->count ? h->min : 0;
}

uint64_t cb_hist_max(const cb_hist *h)
{
	return h->max;
}

double cb_hist_mean(const cb_hist *h)
{
	return h->count ? h->sum / (double)h->count : 0.0;
}

double cb_hist_stdev(const cb_hist *h)
{
	if (h->count == 0)
		return 0.0;
	double m = h->sum / (double)h->count;
	double var = h->sumsq / (double)h->count - m * m;
	return var > 0 ? sqrt(var) : 0.0;
}

uint64_t cb_hist_rank(uint64_t count, double q)
{
	if (count == 0)
		return 0;
	if (!(q > 0)) /* 0, negative, NaN: the minimum */
		return 1;
	if (q >= 100)
		return count;
	double x = q / 100.0 * (double)count;
	uint64_t r = (uint64_t)x;
	/* ceil(x), forgiving the last bits of rounding in q / 100 * count
	 * (99.9 / 100 * 1000 is 999.0000000000001 in binary). */
	if ((double)r < x * (1.0 - 1e-12))
		r++;
	if (r < 1)
		r = 1;
	if (r > count)
		r = count;
	return r;
}

uint64_t cb_hist_percentile(const cb_hist *h, double q)
{
	uint64_t r = cb_hist_rank(h->count, q);
	if (r == 0)
		return 0;
	if (r == 1)
		return h->min;
	if (r == h->count)
		return h->max;
	uint64_t cum = 0;
	for (unsigned i = 0; i < CB_HIST_NBUCKETS; i++) {
		cum += h->b[i];
		if (cum >= r) {
			/* The middle of the bucket: at most half a width from
			 * any sample in it. */
			uint64_t v = cb_hist_bucket_low(i) +
				     (cb_hist_bucket_width(i) - 1u) / 2u;
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max; /* not reached: the buckets sum to count */
}

void cb_hist_print(FILE *f, const cb_hist *h, double divisor)
{
	static const char *const labels[CB_HIST_NBLOCK] = {
		"50.00%", "90.00%", "99.00%", "99.90%", "99.99%"};
	if (!(divisor > 0))
		divisor = 1;
	fprintf(f, "%-6s%20.2f\n", "mean", cb_hist_mean(h) / divisor);
	fprintf(f, "%-6s%20.2f\n", "min", (double)cb_hist_min(h) / divisor);
	for (int k = 0; k < CB_HIST_NBLOCK; k++)
		fprintf(f, "%-6s%20.2f\n", labels[k],
			(double)cb_hist_percentile(h, cb_hist_block_q[k]) /
				divisor);
	fprintf(f, "%-6s%20.2f\n", "max", (double)cb_hist_max(h) / divisor);
	fprintf(f, "%-6s%20llu\n", "count", (unsigned long long)h->count);
	fputc('\n', f);
}
