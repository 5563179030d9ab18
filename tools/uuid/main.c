/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq-uuid - print random UUIDs, one a line, in uuidgen's format (36
 * lower-case characters, util-linux): version 4 by default, version 7 with
 * --v7 (time-ordered: each line sorts after the one before it).
 *
 *   conq-uuid                  one v4 UUID
 *   conq-uuid -n 1000000       a million, one a line
 *   conq-uuid --v7 -n 10       ten v7 UUIDs, in increasing order
 *   conq-uuid --bulk -n 1e6    made 1,024 at a time (conq_uuid_*_bulk)
 *
 * Exit status: 0; 1 when no UUID could be made (the entropy source failed:
 * the error is printed) or the output could not be written; 2 on a usage
 * error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <conq/uuid.h>
#include <conq/version.h>

#define BULK 1024

static const char *prog = "conq-uuid";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-n COUNT] [-r | -7] [--bulk]\n"
		"\n"
		"Print COUNT random UUIDs (RFC 9562), one a line, in the "
		"canonical\n"
		"lower-case form uuidgen prints.\n"
		"\n"
		"  -n, --count COUNT  how many (default 1; 0 prints nothing)\n"
		"  -r, --random       version 4, 122 random bits (the "
		"default)\n"
		"  -7, --v7           version 7: Unix milliseconds, then "
		"random bits; each\n"
		"                     line sorts after the previous one\n"
		"  -b, --bulk         make them %d at a time "
		"(conq_uuid_v4_bulk / _v7_bulk)\n"
		"  -B, --backend      print the randomness source (vdso | "
		"chacha20) and exit\n"
		"  -h, --help         this text\n"
		"  -V, --version      the version\n"
		"\n"
		"The source: the kernel's vDSO getrandom where it exists, else "
		"a per-thread\n"
		"ChaCha20 keyed from getrandom(2); CONQ_UUID_BACKEND=chacha20 "
		"forces the second.\n",
		prog, BULK);
}

/* A count: decimal digits, or a float such as 1e6 that is a whole
 * number; -1 if it is neither. */
static long long parse_count(const char *s)
{
	char *end;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	if (errno == 0 && *s != '\0' && *end == '\0' && n >= 0)
		return n;
	errno = 0;
	double d = strtod(s, &end);
	if (errno == 0 && *s != '\0' && *end == '\0' && d >= 0 && d <= 1e18 &&
	    d == (double)(long long)d)
		return (long long)d;
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
	    {"count", required_argument, NULL, 'n'},
	    {"random", no_argument, NULL, 'r'},
	    {"v7", no_argument, NULL, '7'},
	    {"bulk", no_argument, NULL, 'b'},
	    {"backend", no_argument, NULL, 'B'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	long long count = 1;
	int v7 = 0, bulk = 0, c;
	while ((c = getopt_long(argc, argv, "n:r7bBhV", longs, NULL)) != -1) {
		switch (c) {
		case 'n':
			count = parse_count(optarg);
			if (count < 0) {
				fprintf(stderr, "%s: -n: not a count: '%s'\n",
					prog, optarg);
				return 2;
			}
			break;
		case 'r':
			v7 = 0;
			break;
		case '7':
			v7 = 1;
			break;
		case 'b':
			bulk = 1;
			break;
		case 'B':
			puts(conq_uuid_backend());
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("%s %s\n", prog, CONQ_VERSION_STRING);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog,
			argv[optind]);
		usage(stderr);
		return 2;
	}
	static char out[BULK * (CONQ_UUID_STR_LEN + 1)];
	static uint8_t u[BULK][16];
	while (count > 0) {
		size_t k = count < BULK ? (size_t)count : BULK;
		int rc = 0;
		if (bulk)
			rc = v7 ? conq_uuid_v7_bulk(u, k)
				: conq_uuid_v4_bulk(u, k);
		else
			for (size_t i = 0; i < k && rc == 0; i++)
				rc = v7 ? conq_uuid_v7(u[i])
					: conq_uuid_v4(u[i]);
		if (rc != 0) {
			fprintf(stderr, "%s: no UUID: %s\n", prog,
				strerror(errno));
			return 1;
		}
		for (size_t i = 0; i < k; i++) {
			char *line = out + i * (CONQ_UUID_STR_LEN + 1);
			conq_uuid_format(u[i], line);
			line[CONQ_UUID_STR_LEN] = '\n';
		}
		if (fwrite(out, CONQ_UUID_STR_LEN + 1, k, stdout) != k)
			break;
		count -= (long long)k;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write error: %s\n", prog, strerror(errno));
		return 1;
	}
	return 0;
}
