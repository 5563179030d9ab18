/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_crc32c.c - conq_crc32c (conq/journal.h) against known vectors and a
 * bitwise reference.
 *
 *   test_crc32c          the implementation conq_crc32c picks on this CPU
 *   test_crc32c table    the same checks with CONQ_CRC32C=table (the
 *                        slicing-by-8 fallback), set before the first call
 *   test_crc32c bench    GB/s for 4 KiB and 1 MiB buffers (median of 9
 *                        runs) of the selected implementation; no checks
 *                        beyond the check value. "table bench" benchmarks
 *                        the table implementation.
 *
 * Prints "N passed, N failed"; exits non-zero on a failure.
 */
#include "conq/journal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned passed, failed;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (cond) {                                                    \
			passed++;                                              \
		} else {                                                       \
			failed++;                                              \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);   \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
		}                                                              \
	} while (0)

/* The definition, one bit at a time: reflected polynomial 0x82F63B78,
 * initial value and final xor ~0, continuing from crc like conq_crc32c. */
static uint32_t ref_crc32c(uint32_t crc, const unsigned char *p, size_t n)
{
	crc = ~crc;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
	}
	return ~crc;
}

/* xorshift64*: reproducible data without rand()'s limits. */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Du;
}

static void fill_random(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(rng() >> 56);
}

static void test_vectors(void)
{
	unsigned char buf[32];
	static const char check[] = "123456789";
	uint32_t c;

	c = conq_crc32c(0, check, 9);
	CHECK(c == 0xE3069283u, "check value: %08" PRIx32, c);
	c = ref_crc32c(0, (const unsigned char *)check, 9);
	CHECK(c == 0xE3069283u, "reference check value: %08" PRIx32, c);

	/* RFC 3720 (iSCSI), B.4. */
	memset(buf, 0, sizeof buf);
	c = conq_crc32c(0, buf, sizeof buf);
	CHECK(c == 0x8A9136AAu, "32 zeros: %08" PRIx32, c);
	memset(buf, 0xff, sizeof buf);
	c = conq_crc32c(0, buf, sizeof buf);
	CHECK(c == 0x62A8AB43u, "32 0xff: %08" PRIx32, c);
	for (unsigned i = 0; i < 32; i++)
		buf[i] = (unsigned char)i;
	c = conq_crc32c(0, buf, sizeof buf);
	CHECK(c == 0x46DD794Eu, "32 incrementing: %08" PRIx32, c);
	for (unsigned i = 0; i < 32; i++)
		buf[i] = (unsigned char)(31 - i);
	c = conq_crc32c(0, buf, sizeof buf);
	CHECK(c == 0x113FDB5Cu, "32 decrementing: %08" PRIx32, c);

	/* Empty input leaves the value as it was. */
	CHECK(conq_crc32c(0, buf, 0) == 0, "empty from 0");
	CHECK(conq_crc32c(0x12345678u, buf, 0) == 0x12345678u, "empty chained");
	CHECK(conq_crc32c(0, NULL, 0) == 0, "NULL, 0");

	/* Chaining one byte at a time. */
	c = 0;
	for (size_t i = 0; i < 9; i++)
		c = conq_crc32c(c, check + i, 1);
	CHECK(c == 0xE3069283u, "check value byte by byte: %08" PRIx32, c);
}

/* Every length 0..max at every alignment 0..15: the same bytes copied to
 * each offset, so that one reference value serves the 16 offsets. */
static void test_lengths(unsigned char *buf, unsigned char *src, size_t max)
{
	unsigned bad = 0;

	fill_random(src, max);
	for (size_t len = 0; len <= max; len++) {
		uint32_t want = ref_crc32c(0, src, len);
		for (size_t off = 0; off < 16; off++) {
			memcpy(buf + off, src, len);
			uint32_t got = conq_crc32c(0, buf + off, len);
			if (got != want && bad++ < 10)
				fprintf(stderr,
					"len %zu off %zu: %08" PRIx32
					" want %08" PRIx32 "\n",
					len, off, got, want);
		}
	}
	CHECK(bad == 0, "lengths 0..%zu: %u mismatches", max, bad);
}

static void test_large(unsigned char *buf, unsigned char *src)
{
	/* Around the interleaved blocks of the hardware paths (3 x 64,
	 * 3 x 256, 3 x 1024 and 3 x 4096 bytes) and their sums (lengths up
	 * to 1100 are all covered by test_lengths), and some big ones. */
	static const size_t bases[] = {
	    1536,  2304,  3072,	 3264,	3840,  4032,  4096,   9216,
	    12288, 15360, 16320, 24576, 36864, 65536, 100000, (size_t)1 << 20,
	};
	static const size_t deltas[] = {0, 1, 2, 8}; /* from base - 1 */
	for (size_t i = 0; i < 4 * (sizeof bases / sizeof bases[0]); i++) {
		size_t len = bases[i / 4] - 1 + deltas[i % 4];
		unsigned bad = 0;

		fill_random(src, len);
		uint32_t want = ref_crc32c(0, src, len);
		for (size_t off = 0; off < 16; off++) {
			memcpy(buf + off, src, len);
			uint32_t got = conq_crc32c(0, buf + off, len);
			if (got != want) {
				bad++;
				fprintf(stderr,
					"len %zu off %zu: %08" PRIx32
					" want %08" PRIx32 "\n",
					len, off, got, want);
			}
		}
		CHECK(bad == 0, "length %zu: %u of 16 offsets wrong", len, bad);
	}
}

/* A buffer cut at random points, the pieces chained. */
static void test_chaining(unsigned char *src, size_t max)
{
	unsigned bad = 0;

	for (int round = 0; round < 300; round++) {
		size_t len = (size_t)(rng() % (round < 200 ? 2000 : max));
		fill_random(src, len);
		uint32_t want = ref_crc32c(0, src, len);
		size_t cuts = 1 + (size_t)(rng() % 6);
		size_t pos = 0;
		uint32_t c = 0;
		for (size_t k = 0; k < cuts && pos < len; k++) {
			size_t piece = (size_t)(rng() % (len - pos + 1));
			c = conq_crc32c(c, src + pos, piece);
			pos += piece;
		}
		c = conq_crc32c(c, src + pos, len - pos);
		if (c != want && bad++ < 10)
			fprintf(stderr,
				"chaining len %zu: %08" PRIx32
				" want %08" PRIx32 "\n",
				len, c, want);
		/* Continuing from a value the reference computed. */
		size_t cut = len ? (size_t)(rng() % len) : 0;
		c = conq_crc32c(ref_crc32c(0, src, cut), src + cut, len - cut);
		if (c != want && bad++ < 10)
			fprintf(stderr, "continuing len %zu at %zu\n", len,
				cut);
	}
	CHECK(bad == 0, "chaining: %u mismatches", bad);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* GB/s (10^9 bytes) over len-byte buffers: the median of 9 runs of about
 * 0.1 s each, cycling through enough buffers to stay in L2 for 4 KiB. */
static double bench_one(unsigned char *buf, size_t len, size_t span)
{
	double rates[9];
	size_t nbuf = span / len ? span / len : 1;
	size_t iters = 1;
	volatile uint32_t sink = 0;

	/* Size a run to about 0.1 s. */
	for (;;) {
		double t0 = now_s();
		uint32_t c = 0;
		for (size_t i = 0; i < iters; i++)
			c ^= conq_crc32c(0, buf + (i % nbuf) * len, len);
		sink ^= c;
		if (now_s() - t0 > 0.02)
			break;
		iters *= 2;
	}
	iters *= 5;
	for (int r = 0; r < 9; r++) {
		double t0 = now_s();
		uint32_t c = 0;
		for (size_t i = 0; i < iters; i++)
			c ^= conq_crc32c(0, buf + (i % nbuf) * len, len);
		double t = now_s() - t0;
		sink ^= c;
		rates[r] = (double)len * (double)iters / t / 1e9;
	}
	(void)sink;
	qsort(rates, 9, sizeof rates[0], cmp_double);
	return rates[4];
}

static void bench(void)
{
	size_t span = (size_t)1 << 20;
	unsigned char *buf = malloc(span);
	if (!buf) {
		failed++;
		return;
	}
	fill_random(buf, span);
	double small = bench_one(buf, 4096, (size_t)128 << 10);
	double large = bench_one(buf, span, span);
	printf("crc32c %s: 4 KiB %.2f GB/s, 1 MiB %.2f GB/s\n",
	       conq_crc32c_impl(), small, large);
	free(buf);
}

int main(int argc, char **argv)
{
	int table = 0, do_bench = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "table") == 0) {
			table = 1;
		} else if (strcmp(argv[i], "bench") == 0) {
			do_bench = 1;
		} else {
			fprintf(stderr, "usage: %s [table] [bench]\n", argv[0]);
			return 2;
		}
	}
	/* Before the first call: the implementation is chosen once. */
	if (table && setenv("CONQ_CRC32C", "table", 1) != 0) {
		perror("setenv");
		return 1;
	}

	const char *impl = conq_crc32c_impl();
	CHECK(impl &&
		  (strcmp(impl, "sse4.2") == 0 || strcmp(impl, "armv8") == 0 ||
		   strcmp(impl, "table") == 0),
	      "impl %s", impl ? impl : "(null)");
	if (table)
		CHECK(impl && strcmp(impl, "table") == 0,
		      "CONQ_CRC32C=table gives %s", impl ? impl : "(null)");
	printf("implementation: %s\n", impl ? impl : "(null)");

	if (do_bench) {
		CHECK(conq_crc32c(0, "123456789", 9) == 0xE3069283u,
		      "check value");
		bench();
	} else {
		size_t max = ((size_t)1 << 20) + 64;
		unsigned char *buf = malloc(max + 16);
		unsigned char *src = malloc(max);
		if (!buf || !src) {
			fprintf(stderr, "out of memory\n");
			return 1;
		}
		test_vectors();
		test_lengths(buf, src, 1100);
		test_large(buf, src);
		test_chaining(src, 40000);
		free(buf);
		free(src);
		/* The choice is made once: the same afterwards. */
		CHECK(strcmp(conq_crc32c_impl(), impl) == 0, "impl changed");
	}

	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
