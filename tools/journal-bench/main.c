/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq-journal-bench - libconq-journal end to end (README.md in this
 * folder), in the shape of Artemis's perf tool: producer threads append
 * durable records, closed or open loop; per run records/s, MB/s, syncs/s,
 * records per sync, append-to-durable latency and CPU per record; against
 * it, alternated iteration by iteration, the ceilings and what a user would
 * pick instead (pwrite + fdatasync in-process, fio, SQLite in WAL mode);
 * replay against a plain read of the same files, warm and cold (replay.c);
 * the medians, the ratios, and a verdict on the targets; then
 * CRC32C throughput and the replay's figures.
 *
 * This file: the options, the files' layout, the order of the runs, and
 * the reports (text on stdout, --json one object per line).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <conq/journal.h>
#include <conq/version.h>

#include "jbench.h"

#define DEFAULT_DURATION_S 3.0
#define DEFAULT_WARMUP_S   0.5
#define DEFAULT_ITERATIONS 3u
#define RAW_SIZE	   ((uint64_t)64 << 20)
#define RAW_SIZE_SMOKE	   ((uint64_t)16 << 20)
/* A record's padded size must fit a default buffer with a file header
 * sector (conq/journal.h): 512 KiB - 512 - the record header. */
#define MAX_RECORD                                                              \
	(CONQ_JOURNAL_DEFAULT_BUFFER_SIZE - 512u - CONQ_JOURNAL_RECORD_HEADER)

/* The targets. */
#define TARGET_FIO   0.9 /* 16+ producers, 4 KiB: rec/s >= 0.9x fio uring16 */
#define TARGET_SQL   5.0 /* ... and >= 5x SQLite WAL */
#define TARGET_P50   1.1 /* 1 producer, 4 KiB: p50 <= 1.1x raw p50 */
#define TARGET_P99   2.0 /* ... p99 <= 2x raw p99 */
#define TARGET_SIZE  4096u
#define TARGET_MANY  16u
#define TARGET_REPLAY 0.8 /* replay (cold) >= 0.8x a read of the same files */
/* A cold pass with more of the files in the page cache than this is not
 * one: the replay target is n/a (tmpfs, say). */
#define COLD_CACHED_MAX 0.1

static const char *const fio_names[3] = {
    "psync fdatasync=1", "io_uring QD16 fdatasync=16",
    "libaio QD16 fdatasync=16"};
static const char *const fio_short[3] = {"psync", "io_uring16", "libaio16"};

/* ---- options --------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: %s [options]\n"
	    "\n"
	    "Producer threads append durable records to a conq journal (each "
	    "record's done\n"
	    "function times append to durable); against it, alternated "
	    "iteration by\n"
	    "iteration: pwrite + fdatasync in-process, fio (psync, io_uring "
	    "and libaio), and\n"
	    "SQLite in WAL mode with synchronous=FULL. Medians, the ratios "
	    "journal/contender,\n"
	    "a verdict on the targets, CRC32C throughput, and replay of the "
	    "journal against\n"
	    "a sequential read of its files, warm and cold cache (the "
	    "journal topped up\n"
	    "to %llu MiB of records first, %llu with --smoke).\n"
	    "\n"
	    "  --threads=LIST         producer threads (default 1,4,16,64)\n"
	    "  --sizes=LIST           record payload bytes, k/m suffixes "
	    "(default 64,1024,4096;\n"
	    "                         at most %u)\n"
	    "  --duration=SECONDS     measured time of each run (default "
	    "%.0f)\n"
	    "  --warmup=SECONDS       unmeasured time before it (default "
	    "%.1f)\n"
	    "  --iterations=N         rounds of every run, contenders "
	    "included (default %u);\n"
	    "                         the report gives the medians\n"
	    "  --mode=closed|open|both  closed loop: each producer waits for "
	    "durability\n"
	    "                         before appending past its window "
	    "(default closed);\n"
	    "                         open loop: --rate records/s in all, "
	    "latency from each\n"
	    "                         record's intended time (both, without "
	    "--rate: half the\n"
	    "                         closed loop's records/s of the same "
	    "iteration)\n"
	    "  --rate=R               the open loop's rate, records/s over "
	    "all producers\n"
	    "                         (implies --mode=open unless --mode is "
	    "given)\n"
	    "  --window=W             closed loop: records in flight per "
	    "producer (default 1)\n"
	    "  --backend=auto|io_uring|libaio|psync  the journal's I/O "
	    "backend (default auto)\n"
	    "  --buffer-timeout-ns=N  the journal's buffer timeout (default 0: "
	    "none; Artemis\n"
	    "                         uses 500000)\n"
	    "  --no-fio               skip the fio contenders (skipped anyway "
	    "when fio is not\n"
	    "                         on $PATH)\n"
	    "  --no-sqlite            skip the SQLite contender (not built "
	    "without sqlite3)\n"
	    "  --json=FILE            one JSON object per line: the header, "
	    "each run, the\n"
	    "                         verdicts, CRC32C, the replay against "
	    "the read\n"
	    "  --dir=DIR              put the files in a fresh directory under "
	    "DIR (default\n"
	    "                         $TMPDIR, else /var/tmp), removed at the "
	    "end\n"
	    "  --keep                 do not remove it\n"
	    "  --allow-tmpfs          run on tmpfs or ramfs anyway (fdatasync "
	    "does nothing there)\n"
	    "  --smoke                a quick check: 1 iteration of 0.2 s "
	    "runs, threads 1,4,\n"
	    "                         size 4096, a smaller journal to replay "
	    "(options given\n"
	    "                         with it still apply)\n"
	    "  -h, --help             this text;  -V, --version\n"
	    "\n"
	    "Exit status: 0 every journal and raw run measured (a failed fio "
	    "or SQLite run\n"
	    "is reported, and its targets are n/a); 2 bad options, or a tmpfs "
	    "directory;\n"
	    "3 setup failed (directory, files, journal open); 4 a journal, "
	    "raw or replay\n"
	    "run, or the read of the journal's files, failed (an I/O error); "
	    "130\n"
	    "interrupted. A missed target is not an error.\n",
	    jb_prog, (unsigned long long)(JB_REPLAY_MIN >> 20),
	    (unsigned long long)(JB_REPLAY_MIN_SMOKE >> 20),
	    (unsigned)MAX_RECORD, DEFAULT_DURATION_S, DEFAULT_WARMUP_S,
	    DEFAULT_ITERATIONS);
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", jb_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (%s --help)\n", jb_prog);
	return JB_EXIT_USAGE;
}

/* A number: digits, then an optional k/K (1024) or m/M (2^20). */
static bool parse_u64(const char *s, bool suffix, uint64_t *v)
{
	if (s == NULL || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno != 0)
		return false;
	unsigned long long mul = 1;
	if (suffix && (*end == 'k' || *end == 'K'))
		mul = 1024, end++;
	else if (suffix && (*end == 'm' || *end == 'M'))
		mul = 1024 * 1024, end++;
	if (*end != '\0' || x > UINT64_MAX / mul)
		return false;
	*v = (uint64_t)(x * mul);
	return true;
}

static bool parse_double(const char *s, double *v)
{
	if (s == NULL || *s == '\0')
		return false;
	errno = 0;
	char *end;
	double d = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(d))
		return false;
	*v = d;
	return true;
}

/* LIST: comma-separated numbers in [lo, hi], at most JB_MAX_LIST, no
 * repeats. */
static int parse_list(const char *opt, const char *s, bool suffix, uint64_t lo,
		      uint64_t hi, uint64_t *out, size_t *n)
{
	char buf[512];
	if (strlen(s) >= sizeof buf)
		return bad("%s: list too long", opt);
	snprintf(buf, sizeof buf, "%s", s);
	*n = 0;
	char *save = NULL;
	if (buf[0] == '\0' || buf[strlen(buf) - 1] == ',' || buf[0] == ',' ||
	    strstr(buf, ",,") != NULL)
		return bad("%s: '%s' is not a comma-separated list", opt, s);
	for (char *t = strtok_r(buf, ",", &save); t != NULL;
	     t = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		if (!parse_u64(t, suffix, &v) || v < lo || v > hi)
			return bad("%s: '%s' is not a number from %llu to "
				   "%llu",
				   opt, t, (unsigned long long)lo,
				   (unsigned long long)hi);
		for (size_t i = 0; i < *n; i++)
			if (out[i] == v)
				return bad("%s: %llu is listed twice", opt,
					   (unsigned long long)v);
		if (*n == JB_MAX_LIST)
			return bad("%s: more than %d values", opt,
				   JB_MAX_LIST);
		out[(*n)++] = v;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, jb_cfg *c)
{
	enum {
		O_THREADS = 256,
		O_SIZES,
		O_DURATION,
		O_WARMUP,
		O_ITER,
		O_MODE,
		O_RATE,
		O_WINDOW,
		O_BACKEND,
		O_BTO,
		O_NOFIO,
		O_NOSQL,
		O_JSON,
		O_SMOKE,
		O_DIR,
		O_TMPFS,
		O_KEEP,
	};
	static const struct option lo[] = {
	    {"threads", required_argument, NULL, O_THREADS},
	    {"sizes", required_argument, NULL, O_SIZES},
	    {"duration", required_argument, NULL, O_DURATION},
	    {"warmup", required_argument, NULL, O_WARMUP},
	    {"iterations", required_argument, NULL, O_ITER},
	    {"mode", required_argument, NULL, O_MODE},
	    {"rate", required_argument, NULL, O_RATE},
	    {"window", required_argument, NULL, O_WINDOW},
	    {"backend", required_argument, NULL, O_BACKEND},
	    {"buffer-timeout-ns", required_argument, NULL, O_BTO},
	    {"no-fio", no_argument, NULL, O_NOFIO},
	    {"no-sqlite", no_argument, NULL, O_NOSQL},
	    {"json", required_argument, NULL, O_JSON},
	    {"smoke", no_argument, NULL, O_SMOKE},
	    {"dir", required_argument, NULL, O_DIR},
	    {"allow-tmpfs", no_argument, NULL, O_TMPFS},
	    {"keep", no_argument, NULL, O_KEEP},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	memset(c, 0, sizeof *c);
	c->window = 1;
	c->backend = CONQ_JOURNAL_AUTO;
	c->fio = c->sqlite = true;
	bool set_threads = false, set_sizes = false, set_dur = false,
	     set_warm = false, set_iter = false, set_mode = false;
	uint64_t list[JB_MAX_LIST], v;
	size_t n;
	double d;
	int ch, rc;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":hV", lo, NULL)) != -1) {
		switch (ch) {
		case O_THREADS:
			if ((rc = parse_list("--threads", optarg, false, 1,
					     JB_MAX_THREADS, list, &n)) != 0)
				return rc;
			for (size_t i = 0; i < n; i++)
				c->threads[i] = (unsigned)list[i];
			c->nthreads = n;
			set_threads = true;
			break;
		case O_SIZES:
			if ((rc = parse_list("--sizes", optarg, true, 1,
					     MAX_RECORD, list, &n)) != 0)
				return rc;
			for (size_t i = 0; i < n; i++)
				c->sizes[i] = (size_t)list[i];
			c->nsizes = n;
			set_sizes = true;
			break;
		case O_DURATION:
			if (!parse_double(optarg, &d) || !(d >= 0.01) ||
			    !(d <= 86400))
				return bad("--duration: '%s' is not a time "
					   "in seconds (0.01 .. 86400)",
					   optarg);
			c->duration_s = d;
			set_dur = true;
			break;
		case O_WARMUP:
			if (!parse_double(optarg, &d) || !(d >= 0) ||
			    !(d <= 3600))
				return bad("--warmup: '%s' is not a time in "
					   "seconds (0 .. 3600)",
					   optarg);
			c->warmup_s = d;
			set_warm = true;
			break;
		case O_ITER:
			if (!parse_u64(optarg, false, &v) || v < 1 ||
			    v > 1000)
				return bad("--iterations: '%s' is not a "
					   "count (1 .. 1000)",
					   optarg);
			c->iterations = (unsigned)v;
			set_iter = true;
			break;
		case O_MODE:
			if (strcmp(optarg, "closed") == 0)
				c->closed = true, c->open = false;
			else if (strcmp(optarg, "open") == 0)
				c->closed = false, c->open = true;
			else if (strcmp(optarg, "both") == 0)
				c->closed = c->open = true;
			else
				return bad("--mode: '%s' is not closed, open "
					   "or both",
					   optarg);
			set_mode = true;
			break;
		case O_RATE:
			if (!parse_double(optarg, &d) || !(d >= 1) ||
			    !(d <= 1e9))
				return bad("--rate: '%s' is not a rate in "
					   "records per second (1 .. 10^9)",
					   optarg);
			c->rate = d;
			break;
		case O_WINDOW:
			if (!parse_u64(optarg, false, &v) || v < 1 ||
			    v > JB_MAX_WINDOW)
				return bad("--window: '%s' is not a count of "
					   "records (1 .. %u)",
					   optarg, JB_MAX_WINDOW);
			c->window = (unsigned)v;
			break;
		case O_BACKEND:
			if (strcmp(optarg, "auto") == 0)
				c->backend = CONQ_JOURNAL_AUTO;
			else if (strcmp(optarg, "io_uring") == 0)
				c->backend = CONQ_JOURNAL_IO_URING;
			else if (strcmp(optarg, "libaio") == 0)
				c->backend = CONQ_JOURNAL_LIBAIO;
			else if (strcmp(optarg, "psync") == 0)
				c->backend = CONQ_JOURNAL_PSYNC;
			else
				return bad("--backend: '%s' is not auto, "
					   "io_uring, libaio or psync",
					   optarg);
			break;
		case O_BTO:
			if (!parse_u64(optarg, false, &v) || v > 1000000000u)
				return bad("--buffer-timeout-ns: '%s' is not "
					   "a time in ns (0 .. 10^9)",
					   optarg);
			c->buffer_timeout_ns = v;
			break;
		case O_NOFIO:
			c->fio = false;
			break;
		case O_NOSQL:
			c->sqlite = false;
			break;
		case O_JSON:
			if (optarg[0] == '\0')
				return bad("--json: no file name");
			c->json_path = optarg;
			break;
		case O_SMOKE:
			c->smoke = true;
			break;
		case O_DIR:
			if (optarg[0] == '\0')
				return bad("--dir: no directory");
			c->parent = optarg;
			break;
		case O_TMPFS:
			c->allow_tmpfs = true;
			break;
		case O_KEEP:
			c->keep = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("%s (conq %s)\n", jb_prog, CONQ_VERSION_STRING);
			exit(0);
		case ':':
			return bad("%s needs a value", argv[optind - 1]);
		default:
			if (optopt != 0)
				return bad("unknown option '-%c'", optopt);
			return bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);

	if (!set_threads) {
		static const unsigned def[] = {1, 4, 16, 64}, smk[] = {1, 4};
		const unsigned *t = c->smoke ? smk : def;
		c->nthreads = c->smoke ? 2 : 4;
		for (size_t i = 0; i < c->nthreads; i++)
			c->threads[i] = t[i];
	}
	if (!set_sizes) {
		static const size_t def[] = {64, 1024, 4096};
		if (c->smoke) {
			c->sizes[0] = 4096;
			c->nsizes = 1;
		} else {
			for (size_t i = 0; i < 3; i++)
				c->sizes[i] = def[i];
			c->nsizes = 3;
		}
	}
	if (!set_dur)
		c->duration_s = c->smoke ? 0.2 : DEFAULT_DURATION_S;
	if (!set_warm)
		c->warmup_s = c->smoke ? 0.05 : DEFAULT_WARMUP_S;
	if (!set_iter)
		c->iterations = c->smoke ? 1 : DEFAULT_ITERATIONS;
	if (!set_mode) {
		c->closed = c->rate == 0;
		c->open = c->rate > 0;
	}
	if (c->rate > 0 && !c->open)
		return bad("--rate is the open loop's: with --mode=closed it "
			   "has nothing to set");
	if (c->open && !c->closed && c->rate == 0)
		return bad("--mode=open needs --rate=R (records/s over all "
			   "producers); --mode=both takes half the closed "
			   "loop's rate without it");
	if (c->window > 1 && !c->closed)
		return bad("--window is the closed loop's: with --mode=open "
			   "it has nothing to set");
	c->raw_size = c->smoke ? RAW_SIZE_SMOKE : RAW_SIZE;
	return 0;
}

/* ---- results ----------------------------------------------------------------- */

typedef struct results {
	size_t nit, nt, ns, nb;
	size_t ran_it; /* iterations started (fewer when interrupted) */
	size_t bs[JB_MAX_LIST]; /* the distinct sizes rounded up to 4 KiB */
	jb_result *j[2];	/* closed, open: [size][threads][iteration] */
	jb_result *sq;		/* the same */
	jb_result *raw;		/* [bs][iteration] */
	jb_result *fio[3];	/* the same */
	/* the replay against a read of the same files: warm, cold */
	jb_result *rep[2], *rd[2]; /* [iteration] */
	size_t rp_it[2];	   /* iterations run */
	double cached_lo[2], cached_hi[2]; /* fraction of the files cached
					      before a pass, least and most */
	bool rp_setup, rp_ok;	   /* set up; and every pass measured */
	char rp_why[256];	   /* why not */
} results;

static size_t jix(const results *R, size_t si, size_t ti, size_t it)
{
	return (si * R->nt + ti) * R->nit + it;
}

static size_t bix(const results *R, size_t bi, size_t it)
{
	return bi * R->nit + it;
}

static size_t bs_index(const results *R, size_t size)
{
	size_t bs = jb_round_up(size, JB_PAGE);
	for (size_t i = 0; i < R->nb; i++)
		if (R->bs[i] == bs)
			return i;
	return 0;
}

/* A field of a result; NAN where the result has none. */
typedef double (*getter)(const jb_result *r);
static double g_rec_s(const jb_result *r) { return r->rec_s; }
static double g_mb_s(const jb_result *r) { return r->mb_s; }
static double g_syncs_s(const jb_result *r)
{
	return r->syncs_s > 0 ? r->syncs_s : NAN;
}
static double g_rps(const jb_result *r)
{
	return r->rec_per_sync > 0 ? r->rec_per_sync : NAN;
}
static double g_cpu(const jb_result *r)
{
	return r->cpu_ns >= 0 ? r->cpu_ns : NAN;
}
static double g_rate(const jb_result *r) { return r->rate; }
static double g_elapsed(const jb_result *r) { return r->elapsed_s; }
static double g_cpu_share(const jb_result *r) /* replay.c's passes */
{
	return r->cpu_ns >= 0 && r->elapsed_s > 0
		   ? r->cpu_ns / 1e9 / r->elapsed_s
		   : NAN;
}
static double lat(const jb_result *r, int k)
{
	return r->lat_count > 0 ? r->lat[k] : NAN;
}
static double g_p50(const jb_result *r) { return lat(r, 0); }
static double g_p90(const jb_result *r) { return lat(r, 1); }
static double g_p99(const jb_result *r) { return lat(r, 2); }
static double g_p999(const jb_result *r) { return lat(r, 3); }
static double g_max(const jb_result *r) { return lat(r, 4); }
static const getter g_lat[JB_NLAT] = {g_p50, g_p90, g_p99, g_p999, g_max};

/* The median of f over the n results that measured; NAN when none. */
static double med(const jb_result *rs, size_t n, getter f)
{
	double v[1000];
	size_t k = 0;
	for (size_t i = 0; i < n && k < 1000; i++)
		if (rs[i].ok && !isnan(f(&rs[i])))
			v[k++] = f(&rs[i]);
	return k ? jb_median(v, k) : NAN;
}

/* The median of the per-iteration ratios f(a[i]) / f(b[i]); with an even
 * count, the geometric mean of the middle two (ratios multiply: 4x and
 * 0.25x meet at 1x, not at 2.1x). */
static double med_ratio(const jb_result *a, const jb_result *b, size_t n,
			getter f)
{
	double v[1000];
	size_t k = 0;
	for (size_t i = 0; i < n && k < 1000; i++)
		if (a[i].ok && b[i].ok && f(&a[i]) > 0 && f(&b[i]) > 0)
			v[k++] = f(&a[i]) / f(&b[i]);
	if (k == 0)
		return NAN;
	jb_median(v, k); /* sorts */
	return k % 2 ? v[k / 2] : sqrt(v[k / 2 - 1] * v[k / 2]);
}

static void pnum(double v, int width, int prec)
{
	if (isnan(v))
		printf(" %*s", width, "-");
	else
		printf(" %*.*f", width, prec, v);
}

static void pratio(double v, int width)
{
	if (isnan(v)) {
		printf(" %*s", width, "-");
		return;
	}
	char b[32];
	snprintf(b, sizeof b, "%.2fx", v);
	printf(" %*s", width, b);
}

/* ---- JSON lines -------------------------------------------------------------- */

static FILE *jf;

static void jnum(const char *key, double v, int prec)
{
	if (isnan(v) || isinf(v))
		fprintf(jf, ",\"%s\":null", key);
	else
		fprintf(jf, ",\"%s\":%.*f", key, prec, v);
}

static void json_run(const jb_cfg *c, unsigned it, enum jb_what w,
		     const jb_result *r)
{
	if (jf == NULL)
		return;
	static const char *const kinds[JB_NWHAT] = {
	    "journal", "journal", "raw", "fio", "fio", "fio", "sqlite"};
	fprintf(jf,
		"{\"tool\":\"conq-journal-bench\",\"kind\":\"%s\","
		"\"iteration\":%u,\"threads\":%u,\"size\":%zu",
		kinds[w], it + 1, r->threads, r->size);
	if (w == JB_JOURNAL_CLOSED || w == JB_JOURNAL_OPEN) {
		fprintf(jf, ",\"loop\":\"%s\"",
			w == JB_JOURNAL_OPEN ? "open" : "closed");
		if (w == JB_JOURNAL_OPEN) {
			fprintf(jf, ",\"window\":null");
			jnum("rate", r->rate, 1);
		} else {
			fprintf(jf, ",\"window\":%u,\"rate\":null", c->window);
		}
		fprintf(jf,
			",\"backend\":\"%s\",\"direct\":%s,"
			"\"buffer_timeout_ns\":%llu",
			r->ok ? jb_backend_name(r->backend)
			      : jb_backend_name(c->backend),
			r->direct ? "true" : "false",
			(unsigned long long)c->buffer_timeout_ns);
	} else if (w == JB_FIO_PSYNC || w == JB_FIO_URING ||
		   w == JB_FIO_AIO) {
		unsigned qd = w == JB_FIO_PSYNC ? 1 : 16;
		fprintf(jf,
			",\"engine\":\"%s\",\"iodepth\":%u,\"fdatasync\":%u",
			w == JB_FIO_PSYNC   ? "psync"
			: w == JB_FIO_URING ? "io_uring"
					    : "libaio",
			qd, qd);
	} else if (w == JB_RAW) {
		fprintf(jf, ",\"direct\":%s", r->direct ? "true" : "false");
	}
	fprintf(jf, ",\"ok\":%s,\"error\":", r->ok ? "true" : "false");
	if (r->ok)
		fprintf(jf, "null");
	else
		jb_json_str(jf, r->err);
	jnum("elapsed_s", r->elapsed_s, 6);
	fprintf(jf, ",\"records\":%llu", (unsigned long long)r->records);
	jnum("records_per_s", r->rec_s, 1);
	jnum("mb_per_s", r->mb_s, 3);
	if (w == JB_JOURNAL_CLOSED || w == JB_JOURNAL_OPEN) {
		jnum("disk_mb_per_s", r->disk_mb_s, 3);
		jnum("syncs_per_s", r->syncs_s, 1);
		jnum("records_per_sync", r->rec_per_sync, 3);
		jnum("records_per_write", r->rec_per_write, 3);
		fprintf(jf, ",\"new_files\":%llu",
			(unsigned long long)r->new_files);
	} else if (r->syncs_s > 0) {
		jnum("syncs_per_s", r->syncs_s, 1);
		jnum("records_per_sync", r->rec_per_sync, 3);
	}
	if (r->lat_count > 0) {
		fprintf(jf, ",\"latency_ns\":{\"count\":%llu",
			(unsigned long long)r->lat_count);
		for (int k = 0; k < JB_NLAT; k++)
			fprintf(jf, ",\"%s\":%.0f", jb_lat_names[k], r->lat[k]);
		fprintf(jf, ",\"mean\":%.1f}", r->lat_mean);
	}
	if (r->cpu_ns >= 0)
		jnum("cpu_ns_per_record", r->cpu_ns, 1);
	else
		fprintf(jf, ",\"cpu_ns_per_record\":null");
	fprintf(jf, "}\n");
	fflush(jf);
}

/* ---- the per-run lines --------------------------------------------------------- */

/* syncs: show syncs/s and records per sync (not fio's: with io_uring its
 * sync count, sync.lat_ns.N, is not one per --fdatasync writes; --json
 * has it). */
static void print_run(const jb_cfg *c, unsigned it, const char *what,
		      const jb_result *r, bool syncs)
{
	printf("[%u/%u] %-34s", it + 1, c->iterations, what);
	if (!r->ok) {
		printf(" FAILED: %s\n", r->err);
		fflush(stdout);
		return;
	}
	printf(" %9.0f rec/s %8.1f MB/s", r->rec_s, r->mb_s);
	if (syncs && r->syncs_s > 0)
		printf(" %8.0f syncs/s %6.2f rec/sync", r->syncs_s,
		       r->rec_per_sync);
	if (r->lat_count > 0)
		printf("  p50 %.1f p99 %.1f p99.9 %.1f max %.1f us",
		       r->lat[0] / 1e3, r->lat[2] / 1e3, r->lat[3] / 1e3,
		       r->lat[4] / 1e3);
	if (r->cpu_ns >= 0)
		printf("  cpu %.2f us/rec", r->cpu_ns / 1e3);
	if (r->new_files > 0)
		printf("  (%llu new journal files)",
		       (unsigned long long)r->new_files);
	printf("\n");
	fflush(stdout);
}

/* ---- the summary ----------------------------------------------------------------- */

static const char *backend_desc(const jb_result *rs, size_t n)
{
	static char b[64];
	for (size_t i = 0; i < n; i++)
		if (rs[i].ok) {
			snprintf(b, sizeof b, "%s%s",
				 jb_backend_name(rs[i].backend),
				 rs[i].direct ? "" : " buffered");
			return b;
		}
	return "-";
}

static void lat_header(void)
{
	for (int k = 0; k < JB_NLAT; k++)
		printf(" %8s", jb_lat_names[k]);
}

static void lat_row(const jb_result *rs, size_t n)
{
	for (int k = 0; k < JB_NLAT; k++)
		pnum(med(rs, n, g_lat[k]) / 1e3, 8, 1);
}

static void summary_journal(const jb_cfg *c, const results *R, int loop)
{
	printf("\njournal, %s loop", loop ? "open" : "closed");
	if (!loop)
		printf(" (window %u)", c->window);
	printf(": medians of %zu iteration%s; latency append to durable, "
	       "us\n",
	       R->ran_it, R->ran_it == 1 ? "" : "s");
	printf(" thr   size");
	if (loop)
		printf("     rate");
	printf("     rec/s     MB/s  syncs/s rec/sync");
	lat_header();
	printf(" cpu us/rec  backend\n");
	for (size_t si = 0; si < R->ns; si++)
		for (size_t ti = 0; ti < R->nt; ti++) {
			const jb_result *rs = &R->j[loop][jix(R, si, ti, 0)];
			printf("%4u %6zu", c->threads[ti], c->sizes[si]);
			if (loop)
				pnum(med(rs, R->nit, g_rate), 8, 0);
			pnum(med(rs, R->nit, g_rec_s), 9, 0);
			pnum(med(rs, R->nit, g_mb_s), 8, 1);
			pnum(med(rs, R->nit, g_syncs_s), 8, 0);
			pnum(med(rs, R->nit, g_rps), 8, 2);
			lat_row(rs, R->nit);
			pnum(med(rs, R->nit, g_cpu) / 1e3, 10, 2);
			printf("  %s\n", backend_desc(rs, R->nit));
		}
}

static void summary_contenders(const jb_cfg *c, const results *R,
			       const char *fio_ver)
{
	printf("\nraw pwrite + fdatasync, one thread, sequential over a "
	       "pre-written file: medians;\nlatency per op, us\n");
	printf("    bs     ops/s     MB/s");
	lat_header();
	printf("  cpu us/op\n");
	for (size_t bi = 0; bi < R->nb; bi++) {
		const jb_result *rs = &R->raw[bix(R, bi, 0)];
		printf("%6zu", R->bs[bi]);
		pnum(med(rs, R->nit, g_rec_s), 9, 0);
		pnum(med(rs, R->nit, g_mb_s), 8, 1);
		lat_row(rs, R->nit);
		pnum(med(rs, R->nit, g_cpu) / 1e3, 10, 2);
		bool direct = true;
		for (size_t i = 0; i < R->nit; i++)
			if (rs[i].ok && !rs[i].direct)
				direct = false;
		printf("%s\n", direct ? "" : "  (buffered: no O_DIRECT)");
	}
	if (c->fio) {
		printf("\n%s, sequential O_DIRECT writes over the same file: "
		       "write IOPS, medians\n",
		       fio_ver);
		printf("    bs");
		for (int e = 0; e < 3; e++)
			printf(" %26s", fio_names[e]);
		printf("\n");
		for (size_t bi = 0; bi < R->nb; bi++) {
			printf("%6zu", R->bs[bi]);
			for (int e = 0; e < 3; e++)
				pnum(med(&R->fio[e][bix(R, bi, 0)], R->nit,
					 g_rec_s),
				     26, 0);
			printf("\n");
		}
	}
	if (c->sqlite) {
		printf("\nsqlite %s, WAL, synchronous=FULL, a transaction per "
		       "record, a connection per\nthread: medians; latency "
		       "BEGIN to COMMIT, us\n",
		       jb_sqlite_version());
		printf(" thr   size     rec/s     MB/s");
		lat_header();
		printf(" cpu us/rec\n");
		for (size_t si = 0; si < R->ns; si++)
			for (size_t ti = 0; ti < R->nt; ti++) {
				const jb_result *rs = &R->sq[jix(R, si, ti, 0)];
				printf("%4u %6zu", c->threads[ti],
				       c->sizes[si]);
				pnum(med(rs, R->nit, g_rec_s), 9, 0);
				pnum(med(rs, R->nit, g_mb_s), 8, 1);
				lat_row(rs, R->nit);
				pnum(med(rs, R->nit, g_cpu) / 1e3, 10, 2);
				printf("\n");
			}
	}
}

static void summary_ratios(const jb_cfg *c, const results *R)
{
	printf("\njournal / contender, closed loop: medians of the "
	       "per-iteration ratios (geometric\nfor an even count)\n");
	printf(" thr   size rec/s:raw p50:raw p99:raw");
	if (c->fio)
		for (int e = 0; e < 3; e++)
			printf(" rec/s:%-10s", fio_short[e]);
	if (c->sqlite)
		printf(" rec/s:sqlite p50:sqlite p99:sqlite");
	printf("\n");
	for (size_t si = 0; si < R->ns; si++)
		for (size_t ti = 0; ti < R->nt; ti++) {
			const jb_result *j = &R->j[0][jix(R, si, ti, 0)];
			size_t bi = bs_index(R, c->sizes[si]);
			const jb_result *raw = &R->raw[bix(R, bi, 0)];
			printf("%4u %6zu", c->threads[ti], c->sizes[si]);
			pratio(med_ratio(j, raw, R->nit, g_rec_s), 9);
			pratio(med_ratio(j, raw, R->nit, g_p50), 7);
			pratio(med_ratio(j, raw, R->nit, g_p99), 7);
			if (c->fio)
				for (int e = 0; e < 3; e++)
					pratio(med_ratio(j,
							 &R->fio[e][bix(R, bi,
									0)],
							 R->nit, g_rec_s),
					       16);
			if (c->sqlite) {
				const jb_result *s = &R->sq[jix(R, si, ti, 0)];
				pratio(med_ratio(j, s, R->nit, g_rec_s), 12);
				pratio(med_ratio(j, s, R->nit, g_p50), 10);
				pratio(med_ratio(j, s, R->nit, g_p99), 10);
			}
			printf("\n");
		}
}

/* One target: the journal's median, the contender's, the median ratio. */
static int verdict(const char *what, const char *unit, const jb_result *j,
		   const jb_result *ctr, size_t nit, getter f, bool at_least,
		   double target, const char *na)
{
	double jv = na ? NAN : med(j, nit, f);
	double cv = na ? NAN : med(ctr, nit, f);
	double ratio = na ? NAN : med_ratio(j, ctr, nit, f);
	const char *state = na		  ? "n/a"
			    : isnan(ratio) ? "n/a"
			    : (at_least ? ratio >= target : ratio <= target)
				? "PASS"
				: "MISS";
	double scale = strcmp(unit, "us") == 0 ? 1e3 : 1.0;
	printf("  %-52s", what);
	pnum(jv / scale, 10, strcmp(unit, "us") == 0 ? 1 : 0);
	pnum(cv / scale, 10, strcmp(unit, "us") == 0 ? 1 : 0);
	pratio(ratio, 8);
	printf(" %s %4.2fx  %s", at_least ? ">=" : "<=", target, state);
	if (na)
		printf(" (%s)", na);
	else if (isnan(ratio))
		printf(" (no iteration where both measured)");
	printf("\n");
	if (jf != NULL) {
		fprintf(jf,
			"{\"tool\":\"conq-journal-bench\",\"kind\":\"verdict\","
			"\"target\":");
		jb_json_str(jf, what);
		fprintf(jf, ",\"unit\":\"%s\"", unit);
		jnum("journal", jv, 1);
		jnum("contender", cv, 1);
		jnum("ratio", ratio, 4);
		fprintf(jf, ",\"op\":\"%s\",\"bound\":%.2f,\"verdict\":\"%s\"",
			at_least ? ">=" : "<=", target, state);
		fprintf(jf, ",\"reason\":");
		if (na)
			jb_json_str(jf, na);
		else
			fprintf(jf, "null");
		fprintf(jf, "}\n");
	}
	return strcmp(state, "MISS") == 0;
}

/* The journal's targets: the count of misses. */
static int verdicts_journal(const jb_cfg *c, const results *R,
			    const char *fio_why, const char *sql_why)
{
	size_t si = R->ns;
	for (size_t i = 0; i < R->ns; i++)
		if (c->sizes[i] == TARGET_SIZE)
			si = i;
	int misses = 0, rows = 0;
	char what[128];
	if (!c->closed) {
		printf("  n/a: the journal's targets are the closed loop's "
		       "(--mode=closed or both)\n");
		return 0;
	}
	if (si == R->ns) {
		printf("  n/a: no run at %u B (--sizes)\n", TARGET_SIZE);
		return 0;
	}
	size_t bi = bs_index(R, TARGET_SIZE);
	for (size_t ti = 0; ti < R->nt; ti++) {
		if (c->threads[ti] < TARGET_MANY)
			continue;
		const jb_result *j = &R->j[0][jix(R, si, ti, 0)];
		snprintf(what, sizeof what,
			 "%u thr %u B: rec/s vs fio io_uring QD16 fdsync=16",
			 c->threads[ti], TARGET_SIZE);
		misses += verdict(what, "rec/s", j, &R->fio[1][bix(R, bi, 0)],
				  R->nit, g_rec_s, true, TARGET_FIO, fio_why);
		snprintf(what, sizeof what,
			 "%u thr %u B: rec/s vs SQLite WAL (same threads)",
			 c->threads[ti], TARGET_SIZE);
		misses += verdict(what, "rec/s", j, &R->sq[jix(R, si, ti, 0)],
				  R->nit, g_rec_s, true, TARGET_SQL, sql_why);
		rows++;
	}
	if (rows == 0)
		printf("  n/a: no run with %u or more producers (--threads)\n",
		       TARGET_MANY);
	rows = 0;
	for (size_t ti = 0; ti < R->nt; ti++) {
		if (c->threads[ti] != 1)
			continue;
		const jb_result *j = &R->j[0][jix(R, si, ti, 0)];
		const jb_result *raw = &R->raw[bix(R, bi, 0)];
		snprintf(what, sizeof what,
			 "1 thr %u B: p50 vs raw pwrite+fdatasync p50 (us)",
			 TARGET_SIZE);
		misses += verdict(what, "us", j, raw, R->nit, g_p50, false,
				  TARGET_P50, NULL);
		snprintf(what, sizeof what,
			 "1 thr %u B: p99 vs raw pwrite+fdatasync p99 (us)",
			 TARGET_SIZE);
		misses += verdict(what, "us", j, raw, R->nit, g_p99, false,
				  TARGET_P99, NULL);
		rows++;
	}
	if (rows == 0)
		printf("  n/a: no run with 1 producer (--threads)\n");
	return misses;
}

/* Replay limited by the device, not by parsing and CRC: cold, its MB/s
 * (the bytes of the files it reads) against a read of the same files. */
static int verdict_replay(const results *R)
{
	char why[320];
	const char *na = NULL;
	if (!R->rp_ok) {
		if (R->rp_why[0] != '\0')
			snprintf(why, sizeof why, "replay failed: %s",
				 R->rp_why);
		else
			snprintf(why, sizeof why, "not run (interrupted)");
		na = why;
	} else if (R->rp_it[1] == 0) {
		na = "no cold pass (interrupted)";
	} else if (!(R->cached_hi[1] <= COLD_CACHED_MAX)) {
		if (isnan(R->cached_hi[1]))
			snprintf(why, sizeof why,
				 "mincore could not say whether the drop "
				 "emptied the page cache");
		else
			snprintf(why, sizeof why,
				 "the drop left %.0f%% of the files in the "
				 "page cache: not a cold read (tmpfs?)",
				 R->cached_hi[1] * 100);
		na = why;
	}
	return verdict("replay (cold) MB/s vs a sequential read, same files",
		       "MB/s", R->rep[1], R->rd[1], R->rp_it[1], g_mb_s, true,
		       TARGET_REPLAY, na);
}

static void summary_verdicts(const jb_cfg *c, const results *R,
			     const char *fio_why, const char *sql_why)
{
	printf("\ntargets (closed loop, window %u; medians; ratio: median of "
	       "the per-iteration ratios,\ngeometric for an even count)\n",
	       c->window);
	printf("  %-52s %10s %10s %8s %8s  %s\n", "", "journal", "contender",
	       "ratio", "target", "verdict");
	int misses = verdicts_journal(c, R, fio_why, sql_why);
	misses += verdict_replay(R);
	if (misses > 0)
		printf("  %d target%s missed\n", misses, misses == 1 ? "" : "s");
}

/* ---- the replay against a read of the same files --------------------------- */

static bool interrupted(void)
{
	return atomic_load(&jb_interrupted) != 0;
}

static void pct(double v, int width)
{
	if (isnan(v)) {
		printf(" %*s", width, "-");
		return;
	}
	char b[32];
	snprintf(b, sizeof b, "%.0f%%", v * 100);
	printf(" %*s", width, b);
}

static void print_pass(const jb_cfg *c, unsigned it, const char *what,
		       const jb_result *r, bool read, double cached)
{
	printf("[%u/%u] %-34s", it + 1, c->iterations, what);
	if (!r->ok) {
		printf(" FAILED: %s\n", r->err);
		fflush(stdout);
		return;
	}
	if (read)
		printf(" %15s", "");
	else
		printf(" %9.0f rec/s", r->rec_s);
	printf(" %8.1f MB/s  %.2f ms, cpu %.0f%%", r->mb_s, r->elapsed_s * 1e3,
	       g_cpu_share(r) * 100);
	if (!isnan(cached))
		printf(", %.0f%% of the files cached before", cached * 100);
	printf("\n");
	fflush(stdout);
}

/* Warm, then cold: iterations of a replay and a read of the same files,
 * the order swapped every iteration. false when a pass failed. */
static bool replay_runs(const jb_cfg *c, results *R, jb_replay *rp)
{
	char err[256];
	for (int st = 0; st < 2; st++) {
		R->cached_lo[st] = INFINITY;
		R->cached_hi[st] = -INFINITY;
	}
	if (jb_replay_setup(c, rp, err, sizeof err) != 0) {
		printf("replay: FAILED: %s\n", err);
		snprintf(R->rp_why, sizeof R->rp_why, "%s", err);
		fflush(stdout);
		return false;
	}
	R->rp_setup = R->rp_ok = true;
	if (rp->filled > 0)
		printf("replay: topped the journal up with %llu records of %u "
		       "B to %.1f MB of records on disk in %.2f s\n",
		       (unsigned long long)rp->filled, JB_FILL_SIZE,
		       (double)rp->rec_bytes / 1e6, rp->fill_s);
	static const char *const state[2] = {"warm", "cold"};
	char what[64];
	for (int st = 0; st < 2; st++)
		for (size_t it = 0; it < R->nit && !interrupted(); it++) {
			R->rp_it[st] = it + 1;
			for (size_t k = 0; k < 2; k++) {
				bool read = (it + k) % 2 == 1;
				jb_result *r =
				    read ? &R->rd[st][it] : &R->rep[st][it];
				double cached;
				jb_replay_pass(rp, st == 1, read, r, &cached);
				if (isnan(cached) || isnan(R->cached_hi[st])) {
					R->cached_lo[st] = NAN;
					R->cached_hi[st] = NAN;
				} else {
					R->cached_lo[st] =
					    fmin(R->cached_lo[st], cached);
					R->cached_hi[st] =
					    fmax(R->cached_hi[st], cached);
				}
				snprintf(what, sizeof what, "%s, %s cache",
					 read ? "read of the files" : "replay",
					 state[st]);
				print_pass(c, (unsigned)it, what, r, read,
					   cached);
				if (!r->ok) {
					snprintf(R->rp_why, sizeof R->rp_why,
						 "%s", r->err);
					R->rp_ok = false;
					return false;
				}
			}
		}
	return true;
}

static void summary_replay(const results *R, const jb_replay *rp,
			   const char *drop)
{
	if (!R->rp_setup) {
		printf("replay of the last run's journal: FAILED: %s\n",
		       R->rp_why);
		return;
	}
	printf("replay of the last run's journal");
	if (rp->filled > 0)
		printf(", topped up with %llu records of %u B",
		       (unsigned long long)rp->filled, JB_FILL_SIZE);
	printf(": %llu records, %.1f MB\nof payload, %.1f MB of records on "
	       "disk (headers, 512-byte sectors) in %u of its %u\nfiles; "
	       "replay reads %.1f MB of the files (each up to the furthest "
	       "byte read: the\nlast one to its end, where replay looks past "
	       "the tail)\n",
	       (unsigned long long)rp->records, (double)rp->payload / 1e6,
	       (double)rp->rec_bytes / 1e6, rp->used_files, rp->nfiles,
	       (double)rp->scanned / 1e6);
	printf("replay vs a sequential read of the same files: all %u "
	       "journal-*.cqj (%.1f MB), pread\nof %zu MiB, buffered as "
	       "replay reads; medians of %zu iteration%s of each, "
	       "alternated;\nreplay MB/s: the %.1f MB it reads, per second\n",
	       rp->nfiles, (double)rp->file_bytes / 1e6, JB_READ_CHUNK >> 20,
	       R->rp_it[0], R->rp_it[0] == 1 ? "" : "s",
	       (double)rp->scanned / 1e6);
	printf(" cache %10s %11s %12s %11s %10s %7s\n", "read MB/s",
	       "replay MB/s", "replay rec/s", "replay/read", "replay cpu",
	       "cached");
	static const char *const state[2] = {"warm", "cold"};
	for (int st = 0; st < 2; st++) {
		size_t n = R->rp_it[st];
		printf(" %-5s", state[st]);
		pnum(med(R->rd[st], n, g_mb_s), 10, 1);
		pnum(med(R->rep[st], n, g_mb_s), 11, 1);
		pnum(med(R->rep[st], n, g_rec_s), 12, 0);
		pratio(med_ratio(R->rep[st], R->rd[st], n, g_mb_s), 11);
		pct(med(R->rep[st], n, g_cpu_share), 10);
		pct(n > 0 ? (st ? R->cached_hi[st] : R->cached_lo[st]) : NAN,
		    7);
		printf("\n");
	}
	printf("cold: %s\ncached: the files' pages in the page cache before "
	       "a timed pass (mincore; warm: the\nleast, cold: the most)\n",
	       drop);
}

static void json_replay_state(const char *key, const jb_result *rep,
			      const jb_result *rd, size_t n, double cached_lo,
			      double cached_hi)
{
	fprintf(jf, ",\"%s\":{\"iterations\":%zu", key, n);
	jnum("read_mb_per_s", med(rd, n, g_mb_s), 3);
	jnum("replay_mb_per_s", med(rep, n, g_mb_s), 3);
	jnum("replay_records_per_s", med(rep, n, g_rec_s), 1);
	jnum("ratio", med_ratio(rep, rd, n, g_mb_s), 4);
	jnum("replay_cpu_share", med(rep, n, g_cpu_share), 3);
	jnum("cached_min", n > 0 ? cached_lo : NAN, 4);
	jnum("cached_max", n > 0 ? cached_hi : NAN, 4);
	for (int w = 0; w < 2; w++) {
		const jb_result *rs = w ? rd : rep;
		fprintf(jf, ",\"%s_s\":[", w ? "read" : "replay");
		for (size_t i = 0; i < n; i++) {
			double v = rs[i].ok ? g_elapsed(&rs[i]) : NAN;
			if (isnan(v))
				fprintf(jf, "%snull", i ? "," : "");
			else
				fprintf(jf, "%s%.6f", i ? "," : "", v);
		}
		fprintf(jf, "]");
	}
	fprintf(jf, "}");
}

static void json_replay(const results *R, const jb_replay *rp,
			const char *drop)
{
	if (jf == NULL)
		return;
	fprintf(jf, "{\"tool\":\"conq-journal-bench\",\"kind\":\"replay\","
		    "\"ok\":%s,\"error\":",
		R->rp_ok ? "true" : "false");
	if (R->rp_ok)
		fprintf(jf, "null");
	else
		jb_json_str(jf, R->rp_why[0] ? R->rp_why : "interrupted");
	if (R->rp_setup) {
		fprintf(jf,
			",\"records\":%llu,\"payload_bytes\":%llu,"
			"\"record_bytes\":%llu,\"scanned_bytes\":%llu,"
			"\"pread_bytes\":%llu,\"used_files\":%u,\"files\":%u,"
			"\"file_bytes\":%llu,\"filled_records\":%llu,"
			"\"fill_size\":%u,\"read_chunk\":%zu,\"drop\":",
			(unsigned long long)rp->records,
			(unsigned long long)rp->payload,
			(unsigned long long)rp->rec_bytes,
			(unsigned long long)rp->scanned,
			(unsigned long long)rp->pread_bytes, rp->used_files,
			rp->nfiles, (unsigned long long)rp->file_bytes,
			(unsigned long long)rp->filled, JB_FILL_SIZE,
			JB_READ_CHUNK);
		jb_json_str(jf, drop);
		fprintf(jf, ",\"drop_caches\":%s",
			rp->drop_caches > 0 ? "true" : "false");
		json_replay_state("warm", R->rep[0], R->rd[0], R->rp_it[0],
				  R->cached_lo[0], R->cached_hi[0]);
		json_replay_state("cold", R->rep[1], R->rd[1], R->rp_it[1],
				  R->cached_lo[1], R->cached_hi[1]);
	}
	fprintf(jf, "}\n");
}

/* ---- setup ---------------------------------------------------------------------- */

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&jb_interrupted, 1);
}

static bool path_join(char *out, size_t n, const char *dir, const char *name)
{
	int w = snprintf(out, n, "%s/%s", dir, name);
	return w > 0 && (size_t)w < n;
}

static double estimate_s(const jb_cfg *c, size_t nb)
{
	double run = c->duration_s + c->warmup_s + 0.05;
	double per = (double)nb * run; /* raw */
	if (c->fio)
		per += 3.0 * (double)nb * (run + 0.3);
	double combos = (double)(c->nsizes * c->nthreads);
	per += combos * run * ((c->closed ? 1 : 0) + (c->open ? 1 : 0));
	if (c->sqlite)
		per += combos * run;
	/* the replay and the read, warm and cold: about 1 s an iteration on
	 * a disk of a few hundred MB/s */
	per += c->smoke ? 0.5 : 1.0;
	return per * c->iterations;
}

int main(int argc, char **argv)
{
	jb_cfg cfg, *c = &cfg;
	int rc = parse_opts(argc, argv, c);
	if (rc != 0)
		return rc;

	/* fio and SQLite: wanted, and there. */
	char fio_ver[64] = "", fio_why[96] = "", sql_why[96] = "";
	if (!c->fio)
		snprintf(fio_why, sizeof fio_why, "--no-fio");
	else if (!jb_fio_find(fio_ver, sizeof fio_ver)) {
		snprintf(fio_why, sizeof fio_why, "fio not found on $PATH");
		c->fio = false;
	}
	if (!c->sqlite)
		snprintf(sql_why, sizeof sql_why, "--no-sqlite");
	else if (jb_sqlite_version() == NULL) {
		snprintf(sql_why, sizeof sql_why,
			 "built without SQLite (no sqlite3 for pkg-config)");
		c->sqlite = false;
	}

	/* The directory. */
	if (c->parent == NULL) {
		const char *t = getenv("TMPDIR");
		c->parent = t != NULL && t[0] != '\0' ? t : "/var/tmp";
	}
	char fs[64];
	bool tmpfs;
	jb_fs_type(c->parent, fs, sizeof fs, &tmpfs);
	if (access(c->parent, W_OK | X_OK) != 0)
		return bad("--dir: %s: %s", c->parent, strerror(errno));
	if (tmpfs && !c->allow_tmpfs)
		return bad("%s is on %s: fdatasync makes nothing durable "
			   "there, so the figures would mean nothing; use "
			   "--dir on a disk file system (--dir=/var/tmp, "
			   "say), or --allow-tmpfs to measure anyway",
			   c->parent, fs);
	if (snprintf(c->root, sizeof c->root, "%s/conq-journal-bench.XXXXXX",
		     c->parent) >= (int)sizeof c->root)
		return bad("--dir: path too long");
	if (mkdtemp(c->root) == NULL) {
		fprintf(stderr, "%s: mkdtemp %s: %s\n", jb_prog, c->root,
			strerror(errno));
		return JB_EXIT_SETUP;
	}
	if (!path_join(c->jdir, sizeof c->jdir, c->root, "journal") ||
	    !path_join(c->raw, sizeof c->raw, c->root, "raw.dat") ||
	    !path_join(c->sqlite_db, sizeof c->sqlite_db, c->root,
		       "sqlite.db")) {
		rmdir(c->root);
		return bad("--dir: path too long");
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	results R;
	memset(&R, 0, sizeof R);
	R.nit = c->iterations;
	R.nt = c->nthreads;
	R.ns = c->nsizes;
	for (size_t i = 0; i < c->nsizes; i++) {
		size_t bs = jb_round_up(c->sizes[i], JB_PAGE);
		bool seen = false;
		for (size_t k = 0; k < R.nb; k++)
			seen = seen || R.bs[k] == bs;
		if (!seen)
			R.bs[R.nb++] = bs;
	}
	size_t nj = R.ns * R.nt * R.nit, nbr = R.nb * R.nit;
	R.j[0] = calloc(nj, sizeof(jb_result));
	R.j[1] = calloc(nj, sizeof(jb_result));
	R.sq = calloc(nj, sizeof(jb_result));
	R.raw = calloc(nbr, sizeof(jb_result));
	for (int e = 0; e < 3; e++)
		R.fio[e] = calloc(nbr, sizeof(jb_result));
	for (int st = 0; st < 2; st++) {
		R.rep[st] = calloc(R.nit, sizeof(jb_result));
		R.rd[st] = calloc(R.nit, sizeof(jb_result));
	}
	jb_replay rp;
	memset(&rp, 0, sizeof rp);
	int status = 0;
	char err[512];
	if (R.j[0] == NULL || R.j[1] == NULL || R.sq == NULL ||
	    R.raw == NULL || R.fio[0] == NULL || R.fio[1] == NULL ||
	    R.fio[2] == NULL || R.rep[0] == NULL || R.rep[1] == NULL ||
	    R.rd[0] == NULL || R.rd[1] == NULL) {
		fprintf(stderr, "%s: out of memory\n", jb_prog);
		status = JB_EXIT_SETUP;
		goto cleanup;
	}
	if (c->json_path != NULL) {
		jf = fopen(c->json_path, "w");
		if (jf == NULL) {
			fprintf(stderr, "%s: --json: %s: %s\n", jb_prog,
				c->json_path, strerror(errno));
			status = JB_EXIT_SETUP;
			goto cleanup;
		}
	}

	/* The header. */
	struct utsname un;
	char cpu[256], kernel[sizeof un.sysname + sizeof un.release + 2] = "?";
	jb_cpu_model(cpu, sizeof cpu);
	if (uname(&un) == 0)
		snprintf(kernel, sizeof kernel, "%s %s", un.sysname,
			 un.release);
	jb_fs_type(c->root, fs, sizeof fs, &tmpfs);
	printf("%s (conq %s): ", jb_prog, CONQ_VERSION_STRING);
	if (c->closed)
		printf("closed loop (window %u)%s", c->window,
		       c->open ? " and " : "");
	if (c->open) {
		if (c->rate > 0)
			printf("open loop at %.0f records/s", c->rate);
		else
			printf("open loop at half the closed loop's rate");
	}
	printf("; threads");
	for (size_t i = 0; i < c->nthreads; i++)
		printf("%s%u", i ? "," : " ", c->threads[i]);
	printf("; sizes");
	for (size_t i = 0; i < c->nsizes; i++)
		printf("%s%zu", i ? "," : " ", c->sizes[i]);
	printf(" B\n%u iteration%s of %.2f s runs after %.2f s warm-up "
	       "(about %.0f s in all)\n",
	       c->iterations, c->iterations == 1 ? "" : "s", c->duration_s,
	       c->warmup_s, estimate_s(c, R.nb));
	printf("cpu: %s, %ld online; %s\n", cpu, sysconf(_SC_NPROCESSORS_ONLN),
	       kernel);
	printf("dir: %s (%s%s)%s\n", c->root, fs,
	       tmpfs ? ": fdatasync does nothing here" : "",
	       c->keep ? "" : ", removed at the end");
	printf("journal: backend %s, buffer timeout %llu ns, %u files of "
	       "%llu MiB, %zu KiB buffers; crc32c %s\n",
	       jb_backend_name(c->backend),
	       (unsigned long long)c->buffer_timeout_ns, JB_JOURNAL_FILES,
	       (unsigned long long)(CONQ_JOURNAL_DEFAULT_FILE_SIZE >> 20),
	       CONQ_JOURNAL_DEFAULT_BUFFER_SIZE >> 10, conq_crc32c_impl());
	printf("contenders: raw pwrite+fdatasync; ");
	if (c->fio)
		printf("%s (psync, io_uring, libaio)", fio_ver);
	else
		printf("fio: skipped (%s)", fio_why);
	if (c->sqlite)
		printf("; sqlite %s (WAL, synchronous=FULL)\n",
		       jb_sqlite_version());
	else
		printf("; sqlite: skipped (%s)\n", sql_why);
	if (jf != NULL) {
		fprintf(jf,
			"{\"tool\":\"conq-journal-bench\",\"kind\":\"header\","
			"\"version\":\"%s\",\"cpu\":",
			CONQ_VERSION_STRING);
		jb_json_str(jf, cpu);
		fprintf(jf, ",\"cpus\":%ld,\"kernel\":",
			sysconf(_SC_NPROCESSORS_ONLN));
		jb_json_str(jf, kernel);
		fprintf(jf, ",\"dir\":");
		jb_json_str(jf, c->root);
		fprintf(jf, ",\"fs\":");
		jb_json_str(jf, fs);
		fprintf(jf,
			",\"duration_s\":%.3f,\"warmup_s\":%.3f,"
			"\"iterations\":%u,\"window\":%u,\"backend\":\"%s\","
			"\"buffer_timeout_ns\":%llu,\"crc32c\":\"%s\","
			"\"fio\":",
			c->duration_s, c->warmup_s, c->iterations, c->window,
			jb_backend_name(c->backend),
			(unsigned long long)c->buffer_timeout_ns,
			conq_crc32c_impl());
		if (c->fio)
			jb_json_str(jf, fio_ver);
		else
			fprintf(jf, "null");
		fprintf(jf, ",\"sqlite\":");
		if (c->sqlite)
			jb_json_str(jf, jb_sqlite_version());
		else
			fprintf(jf, "null");
		fprintf(jf, "}\n");
	}
	fflush(stdout);

	/* The layout: the journal's files, raw.dat, the database; then
	 * everything on disk before the first run. */
	uint64_t t0 = jb_now_ns();
	if (jb_journal_layout(c, err, sizeof err) != 0 ||
	    jb_prewrite(c->raw, c->raw_size, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", jb_prog, err);
		status = JB_EXIT_SETUP;
		goto cleanup;
	}
	if (c->sqlite && jb_sqlite_layout(c, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s (--no-sqlite runs without it)\n",
			jb_prog, err);
		status = JB_EXIT_SETUP;
		goto cleanup;
	}
	int dfd = open(c->root, O_RDONLY | O_DIRECTORY);
	if (dfd >= 0) {
		syncfs(dfd);
		close(dfd);
	}
	printf("laid out %u journal files and %llu MiB of raw.dat in %.2f s\n",
	       JB_JOURNAL_FILES, (unsigned long long)(c->raw_size >> 20),
	       (double)(jb_now_ns() - t0) / 1e9);
	fflush(stdout);

	/* The runs: each iteration runs everything once. A failed journal,
	 * raw or replay run is the exit status's; a failed contender (fio
	 * without an engine, SQLite busy past its timeout) is reported and
	 * its targets are n/a. */
	bool failed = false;
	char what[96];
	for (size_t it = 0; it < R.nit && !interrupted(); it++) {
		unsigned iu = (unsigned)it;
		R.ran_it = it + 1;
		for (size_t bi = 0; bi < R.nb && !interrupted(); bi++) {
			jb_result *r = &R.raw[bix(&R, bi, it)];
			jb_raw_run(c, R.bs[bi], r);
			snprintf(what, sizeof what, "raw pwrite+fdatasync %zu B",
				 R.bs[bi]);
			print_run(c, iu, what, r, true);
			json_run(c, iu, JB_RAW, r);
			failed = failed || !r->ok;
			for (int e = 0; c->fio && e < 3 && !interrupted();
			     e++) {
				r = &R.fio[e][bix(&R, bi, it)];
				jb_fio_run(c, (enum jb_what)(JB_FIO_PSYNC + e),
					   R.bs[bi], r);
				snprintf(what, sizeof what, "fio %s %zu B",
					 fio_short[e], R.bs[bi]);
				print_run(c, iu, what, r, false);
				json_run(c, iu, (enum jb_what)(JB_FIO_PSYNC + e),
					 r);
			}
		}
		for (size_t si = 0; si < R.ns; si++)
			for (size_t ti = 0; ti < R.nt && !interrupted(); ti++) {
				unsigned th = c->threads[ti];
				size_t sz = c->sizes[si];
				size_t x = jix(&R, si, ti, it);
				if (c->closed) {
					jb_result *r = &R.j[0][x];
					jb_journal_run(c, th, sz, false, 0, r);
					snprintf(what, sizeof what,
						 "journal closed %u thr %zu B",
						 th, sz);
					print_run(c, iu, what, r, true);
					json_run(c, iu, JB_JOURNAL_CLOSED, r);
					failed = failed || !r->ok;
				}
				if (c->open && !interrupted()) {
					jb_result *r = &R.j[1][x];
					double rate = c->rate;
					if (rate == 0 && R.j[0][x].ok)
						rate = R.j[0][x].rec_s / 2;
					if (rate >= 1) {
						jb_journal_run(c, th, sz, true,
							       rate, r);
					} else {
						memset(r, 0, sizeof *r);
						r->ran = true;
						r->threads = th;
						r->size = sz;
						jb_result_fail(
						    r, "no rate: the closed "
						       "loop measured none");
					}
					snprintf(what, sizeof what,
						 "journal open %u thr %zu B "
						 "@%.0f/s",
						 th, sz, rate);
					print_run(c, iu, what, r, true);
					json_run(c, iu, JB_JOURNAL_OPEN, r);
					failed = failed || !r->ok;
				}
				if (c->sqlite && !interrupted()) {
					jb_result *r = &R.sq[x];
					jb_sqlite_run(c, th, sz, r);
					snprintf(what, sizeof what,
						 "sqlite %u thr %zu B", th, sz);
					print_run(c, iu, what, r, true);
					json_run(c, iu, JB_SQLITE, r);
				}
			}
	}
	/* The replay against a read of the same files, warm and cold: its
	 * verdict goes in the targets, its figures after CRC32C. */
	if (!interrupted() && !replay_runs(c, &R, &rp))
		failed = true;
	if (interrupted())
		printf("interrupted: the summary covers the runs so far\n");

	/* The summary. */
	if (c->closed)
		summary_journal(c, &R, 0);
	if (c->open)
		summary_journal(c, &R, 1);
	summary_contenders(c, &R, fio_ver);
	if (c->closed)
		summary_ratios(c, &R);
	summary_verdicts(c, &R, c->fio ? NULL : fio_why,
			 c->sqlite ? NULL : sql_why);

	/* CRC32C and replay. */
	double secs = c->smoke ? 0.05 : 0.3;
	double g4 = jb_crc32c_gbs(4096, secs);
	double g1m = jb_crc32c_gbs((size_t)1 << 20, secs);
	printf("\ncrc32c (%s): %.2f GB/s on 4 KiB buffers, %.2f GB/s on 1 MiB "
	       "buffers\n",
	       conq_crc32c_impl(), g4, g1m);
	if (jf != NULL)
		fprintf(jf,
			"{\"tool\":\"conq-journal-bench\",\"kind\":\"crc32c\","
			"\"impl\":\"%s\",\"gb_per_s_4k\":%.3f,"
			"\"gb_per_s_1m\":%.3f}\n",
			conq_crc32c_impl(), g4, g1m);
	char drop[256];
	jb_replay_drop_desc(&rp, drop, sizeof drop);
	printf("\n");
	if (R.rp_setup || R.rp_why[0] != '\0')
		summary_replay(&R, &rp, drop);
	else
		printf("replay: not run (interrupted)\n");
	json_replay(&R, &rp, drop);
	if (failed)
		status = JB_EXIT_RUN;
	if (interrupted())
		status = JB_EXIT_INTR;

cleanup:
	jb_sqlite_done();
	if (jf != NULL && fclose(jf) != 0) {
		fprintf(stderr, "%s: --json: %s: %s\n", jb_prog, c->json_path,
			strerror(errno));
		if (status == 0)
			status = JB_EXIT_SETUP;
	}
	if (c->keep) {
		printf("kept %s\n", c->root);
	} else if (jb_remove_tree(c->root) != 0) {
		fprintf(stderr, "%s: could not remove %s: %s\n", jb_prog,
			c->root, strerror(errno));
	}
	free(R.j[0]);
	free(R.j[1]);
	free(R.sq);
	free(R.raw);
	for (int e = 0; e < 3; e++)
		free(R.fio[e]);
	for (int st = 0; st < 2; st++) {
		free(R.rep[st]);
		free(R.rd[st]);
	}
	jb_replay_free(&rp);
	return status;
}
