/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_histogram - conq-bench's log-linear histogram (histogram.h) against
 * exact answers:
 *
 *  - layout: the buckets tile [0, 2^64) with no gap or overlap, each value's
 *    index lies in its bucket, the width is 1 below 256 and at most
 *    low / 2^CB_HIST_BITS above;
 *  - ranks: cb_hist_rank on known cases (99.9 % of 1000 is rank 999);
 *  - percentiles: for random samples of several distributions (uniform
 *    small and wide, exponential, Pareto heavy tail, bimodal, constant,
 *    near UINT64_MAX), every reported percentile r and the exact sample x
 *    at that rank (sorted array) satisfy |r - x| <= x / 2^(CB_HIST_BITS+1),
 *    the stated bound; count, min and max are exact, the mean within 1e-9;
 *  - merge: a histogram merged from parts equals the one recorded whole,
 *    bucket by bucket, and merging an empty one changes nothing;
 *  - the printed block: the seeds' "%-6s%20.2f" layout, byte for byte.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "histogram.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void) /* splitmix64 */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static double rnd01(void) /* (0, 1] */
{
	return ((double)(rnd() >> 11) + 1.0) / 9007199254740992.0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void test_layout(void)
{
	check_context("layout");
	unsigned bad_tile = 0, bad_index = 0, bad_width = 0;
	for (unsigned i = 0; i < CB_HIST_NBUCKETS; i++) {
		uint64_t lo = cb_hist_bucket_low(i);
		uint64_t w = cb_hist_bucket_width(i);
		uint64_t hi = lo + (w - 1u);
		if (i + 1 < CB_HIST_NBUCKETS)
			bad_tile += cb_hist_bucket_low(i + 1) != lo + w;
		else
			bad_tile += hi != UINT64_MAX;
		bad_index += cb_hist_index(lo) != i || cb_hist_index(hi) != i;
		if (lo < 2 * CB_HIST_SUB)
			bad_width += w != 1;
		else
			bad_width += w > lo >> CB_HIST_BITS;
	}
	CHECK_EQ(cb_hist_bucket_low(0), 0);
	CHECK_EQ(bad_tile, 0);
	CHECK_EQ(bad_index, 0);
	CHECK_EQ(bad_width, 0);
	CHECK_EQ(cb_hist_index(UINT64_MAX), CB_HIST_NBUCKETS - 1);
	CHECK_EQ(cb_hist_index(255), 255);
	CHECK_EQ(cb_hist_index(256), 256);
	CHECK_EQ(cb_hist_index(257), 256);
	CHECK_EQ(cb_hist_index(258), 257);
}

static void test_rank(void)
{
	check_context("rank");
	CHECK_EQ(cb_hist_rank(0, 50), 0);
	CHECK_EQ(cb_hist_rank(1000, 0), 1);
	CHECK_EQ(cb_hist_rank(1000, 50), 500);
	CHECK_EQ(cb_hist_rank(1000, 99.9), 999);
	CHECK_EQ(cb_hist_rank(10000, 99.99), 9999);
	CHECK_EQ(cb_hist_rank(1000, 99.95), 1000);
	CHECK_EQ(cb_hist_rank(1000, 100), 1000);
	CHECK_EQ(cb_hist_rank(3, 50), 2);
	CHECK_EQ(cb_hist_rank(1, 99.99), 1);
	CHECK_EQ(cb_hist_rank(7, 1e-9), 1);
}

enum dist { UNI_SMALL, UNI_WIDE, EXPO, PARETO, BIMODAL, CONSTANT, HUGE_V };
static const char *const dist_name[] = {
	"uniform [0, 300)", "uniform [0, 2^40)", "exponential mean 2000",
	"Pareto alpha 1.2 from 100", "bimodal 250 / 40000", "constant 12345",
	"near UINT64_MAX"};

static uint64_t draw(enum dist d)
{
	switch (d) {
	case UNI_SMALL:
		return rnd() % 300u;
	case UNI_WIDE:
		return rnd() >> 24;
	case EXPO:
		return (uint64_t)(-2000.0 * log(rnd01()));
	case PARETO: {
		double v = 100.0 / pow(rnd01(), 1.0 / 1.2);
		return v > 1e18 ? (uint64_t)1e18 : (uint64_t)v;
	}
	case BIMODAL:
		return (rnd() & 1) ? 250 + rnd() % 50u : 40000 + rnd() % 8000u;
	case CONSTANT:
		return 12345;
	case HUGE_V:
		return UINT64_MAX - (rnd() >> 8);
	}
	return 0;
}

#define NSAMPLES 200000u
#define NPARTS 4u

static const double qs[] = {0,    0.1,  1,     10,     25,  50,
			    75,   90,   99,    99.9,   99.99, 99.999,
			    99.9999, 100};

static void test_dist(enum dist d, uint64_t *x)
{
	check_context("%s", dist_name[d]);
	cb_hist *whole = cb_hist_new(), *merged = cb_hist_new();
	cb_hist *part[NPARTS];
	for (unsigned p = 0; p < NPARTS; p++)
		part[p] = cb_hist_new();
	if (!CHECK_NOT_NULL(whole) || !CHECK_NOT_NULL(merged))
		return;
	long double sum = 0;
	uint64_t mn = UINT64_MAX, mx = 0;
	for (unsigned k = 0; k < NSAMPLES; k++) {
		x[k] = draw(d);
		cb_hist_record(whole, x[k]);
		cb_hist_record(part[rnd() % NPARTS], x[k]);
		sum += (long double)x[k];
		mn = x[k] < mn ? x[k] : mn;
		mx = x[k] > mx ? x[k] : mx;
	}
	CHECK_EQ(cb_hist_count(whole), NSAMPLES);
	CHECK_EQ(cb_hist_min(whole), mn);
	CHECK_EQ(cb_hist_max(whole), mx);
	double mean = (double)(sum / NSAMPLES);
	CHECK_TRUE(fabs(cb_hist_mean(whole) - mean) <= 1e-9 * mean + 1e-9);

	qsort(x, NSAMPLES, sizeof *x, cmp_u64);
	double worst = 0;
	for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
		uint64_t r = cb_hist_rank(NSAMPLES, qs[k]);
		uint64_t exact = x[r - 1];
		uint64_t got = cb_hist_percentile(whole, qs[k]);
		uint64_t diff = got > exact ? got - exact : exact - got;
		/* |got - exact| <= exact / 2^(BITS + 1); exact below 256. */
		if (!CHECK_LE(diff, exact >> (CB_HIST_BITS + 1u)))
			printf("  q = %g: exact %llu, reported %llu\n", qs[k],
			       (unsigned long long)exact,
			       (unsigned long long)got);
		if (exact > 0 && (double)diff / (double)exact > worst)
			worst = (double)diff / (double)exact;
	}
	printf("%-28s worst relative error %.5f%% (bound %.5f%%)\n",
	       dist_name[d], 100 * worst,
	       100.0 / (double)(2u * CB_HIST_SUB));

	/* Merge: the parts (one of them possibly empty: merge it too). */
	cb_hist *empty = cb_hist_new();
	if (CHECK_NOT_NULL(empty)) {
		cb_hist_merge(merged, empty);
		CHECK_EQ(cb_hist_count(merged), 0);
		cb_hist_free(empty);
	}
	for (unsigned p = 0; p < NPARTS; p++) {
		cb_hist_merge(merged, part[p]);
		cb_hist_free(part[p]);
	}
	unsigned differ = 0;
	for (unsigned i = 0; i < CB_HIST_NBUCKETS; i++)
		differ += merged->b[i] != whole->b[i];
	CHECK_EQ(differ, 0);
	CHECK_EQ(cb_hist_count(merged), cb_hist_count(whole));
	CHECK_EQ(cb_hist_min(merged), cb_hist_min(whole));
	CHECK_EQ(cb_hist_max(merged), cb_hist_max(whole));
	CHECK_TRUE(fabs(cb_hist_mean(merged) - cb_hist_mean(whole)) <=
		   1e-9 * cb_hist_mean(whole) + 1e-9);
	for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++)
		CHECK_EQ(cb_hist_percentile(merged, qs[k]),
			 cb_hist_percentile(whole, qs[k]));
	cb_hist_free(whole);
	cb_hist_free(merged);
}

static void test_small(void)
{
	check_context("small cases");
	cb_hist *h = cb_hist_new();
	if (!CHECK_NOT_NULL(h))
		return;
	CHECK_EQ(cb_hist_count(h), 0);
	CHECK_EQ(cb_hist_percentile(h, 50), 0);
	CHECK_EQ(cb_hist_min(h), 0);
	CHECK_EQ(cb_hist_max(h), 0);
	/* 1..100 exactly: below 256 every percentile is exact. */
	for (uint64_t v = 1; v <= 100; v++)
		cb_hist_record(h, v);
	CHECK_EQ(cb_hist_percentile(h, 50), 50);
	CHECK_EQ(cb_hist_percentile(h, 90), 90);
	CHECK_EQ(cb_hist_percentile(h, 99), 99);
	CHECK_EQ(cb_hist_percentile(h, 99.9), 100);
	CHECK_EQ(cb_hist_percentile(h, 0), 1);
	CHECK_TRUE(cb_hist_mean(h) == 50.5);
	/* n samples at once count as n. */
	cb_hist_record_n(h, 1000000, 900);
	CHECK_EQ(cb_hist_count(h), 1000);
	CHECK_EQ(cb_hist_percentile(h, 10), 100);
	CHECK_EQ(cb_hist_max(h), 1000000);
	/* Clamped to [min, max]: one sample reports itself. */
	cb_hist_reset(h);
	cb_hist_record(h, 1000003);
	CHECK_EQ(cb_hist_percentile(h, 50), 1000003);
	cb_hist_free(h);
}

static void test_print(void)
{
	check_context("print");
	cb_hist *h = cb_hist_new();
	if (!CHECK_NOT_NULL(h))
		return;
	for (uint64_t v = 1; v <= 200; v++)
		cb_hist_record(h, v * 10 + 1); /* 11, 21, ... 2001 */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!CHECK_NOT_NULL(f)) {
		cb_hist_free(h);
		return;
	}
	cb_hist_print(f, h, 1000.0);
	fclose(f);
	/* Mean 1006. Ranks 100, 180, 198 hold 1001, 1801, 1981: buckets
	 * [1000, 1003], [1800, 1807], [1976, 1983], whose middles are 1001,
	 * 1803, 1979; ranks 200 (99.9 %, 99.99 %) are the max, 2001. */
	const char *want = "mean                  1.01\n"
			   "min                   0.01\n"
			   "50.00%                1.00\n"
			   "90.00%                1.80\n"
			   "99.00%                1.98\n"
			   "99.90%                2.00\n"
			   "99.99%                2.00\n"
			   "max                   2.00\n"
			   "count                  200\n"
			   "\n";
	if (!CHECK_TRUE(buf != NULL && strcmp(buf, want) == 0))
		printf("got:\n%s\nwant:\n%s", buf ? buf : "(null)", want);
	free(buf);
	cb_hist_free(h);
}

int main(void)
{
	test_layout();
	test_rank();
	test_small();
	test_print();
	uint64_t *x = (uint64_t *)malloc(NSAMPLES * sizeof *x);
	if (!CHECK_NOT_NULL(x))
		return check_report();
	for (int d = UNI_SMALL; d <= HUGE_V; d++)
		test_dist((enum dist)d, x);
	free(x);
	return check_report();
}
