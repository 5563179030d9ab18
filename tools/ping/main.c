/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq-ping - a round-trip latency baseline (README.md in this folder): the
 * options, the two ends in one command (the server in a forked child) or
 * apart (--server / --client), and the report (text or --json).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <conq/version.h>

#include "proto.h"
#include "run.h"

#define DEFAULT_COUNT	  100000u
#define DEFAULT_WARMUP	  10000u
#define DEFAULT_SIZE	  32u
#define DEFAULT_TIMEOUT_S 2.0
#define OVERHEAD_SAMPLES  200000u /* measured before every run */
#define MAX_MESSAGES	  1000000000000ull

enum role { ROLE_BOTH, ROLE_SERVER, ROLE_CLIENT };

typedef struct opts {
	enum role role;
	const ping_transport *tr;
	ping_cfg cfg;
	int client_cpu, server_cpu; /* -1: not pinned */
	char host[256], port[16];   /* --server / --client */
	enum ping_clock clock;
	bool json, overhead;
	bool set_count, set_warmup; /* given on the command line */
	const char *client_only;    /* a client option given to --server */
} opts;

static const char *prog = "conq-ping";

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: %s [options]                  both ends, the server in a "
	    "child process\n"
	    "       %s --server [ADDR:]PORT [opts]  the server only: echoes "
	    "one client's run\n"
	    "       %s --client HOST:PORT [opts]    the client only, against "
	    "a conq-ping --server\n"
	    "\n"
	    "Round trips of one message between a client and an echoing "
	    "server, timed at the\n"
	    "client: min, p50, p90, p99, p99.9, p99.99, max of the RTT, "
	    "messages/s, and the\n"
	    "CPU time of each end over the measured round trips.\n"
	    "\n"
	    "  -t, --transport NAME   ",
	    prog, prog, prog);
	for (size_t i = 0; ping_transports[i] != NULL; i++)
		fprintf(f, "%s%s", i ? " | " : "", ping_transports[i]->name);
	fprintf(f, " (default %s)\n", ping_transports[0]->name);
	for (size_t i = 0; ping_transports[i] != NULL; i++)
		fprintf(f,
			"                           %s: %s, at most %zu "
			"bytes\n",
			ping_transports[i]->name, ping_transports[i]->about,
			ping_transports[i]->max_size);
	fprintf(
	    f,
	    "  -w, --wait MODE        how both ends wait for a message "
	    "(default spin):\n"
	    "                           spin        non-blocking recv/send "
	    "in a loop\n"
	    "                           epoll-spin  epoll_wait(timeout 0) in "
	    "a loop, then recv\n"
	    "                           epoll       epoll_wait blocking, "
	    "then recv\n"
	    "                           block       blocking recv\n"
	    "  -s, --size BYTES       message size (default %u)\n"
	    "  -n, --count N          measured round trips (default %u)\n"
	    "  -W, --warmup N         round trips before them, not measured "
	    "(default %u)\n"
	    "  -c, --client-cpu CPU   pin the client to CPU\n"
	    "  -C, --server-cpu CPU   pin the server to CPU\n"
	    "  -r, --rate N           open loop: N messages per second, each "
	    "timed from its\n"
	    "                         intended send time (default: closed "
	    "loop, one in flight)\n"
	    "  -T, --timeout SECONDS  the longest wait for a message or the "
	    "server (default %.0f);\n"
	    "                         a peer silent for longer is an error\n"
	    "      --clock auto|tsc|mono  the TSC where invariant (auto), or "
	    "CLOCK_MONOTONIC\n"
	    "      --json             one JSON object on stdout instead of "
	    "the text report\n"
	    "      --overhead         measure the tool's own cost per sample "
	    "(the loop without\n"
	    "                         the I/O; -n samples) and exit\n"
	    "  -h, --help             this text;  -V, --version\n"
	    "\n"
	    "--server takes the size, counts, wait mode and rate from its "
	    "client; it prints\n"
	    "where it listens on stderr (PORT 0: any free port) and ends "
	    "after one client.\n"
	    "\n"
	    "Exit status:\n"
	    "  0  the run completed\n"
	    "  2  bad arguments (size 0 or above the transport's limit, "
	    "count 0, bad\n"
	    "     address or port, a CPU this process may not use, ...)\n"
	    "  3  a local failure: socket, bind, pinning, memory\n"
	    "  4  the server cannot be reached (refused, no answer within "
	    "the timeout,\n"
	    "     not a conq-ping server) or refused the run\n"
	    "  5  the peer went away mid-run: closed, reset, or silent for "
	    "the timeout\n"
	    "  6  a short, long or out-of-sequence message (or a lost UDP "
	    "datagram)\n",
	    DEFAULT_SIZE, DEFAULT_COUNT, DEFAULT_WARMUP, DEFAULT_TIMEOUT_S);
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (%s --help)\n", prog);
	return PING_EXIT_USAGE;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	if (s == NULL || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	*v = (uint64_t)x;
	return true;
}

/* CPU: a number this process may run on. */
static int parse_cpu(const char *opt, const char *s, int *cpu)
{
	uint64_t v;
	if (!parse_u64(s, &v) || v >= CPU_SETSIZE)
		return bad("%s: bad CPU number '%s'", opt, s);
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return bad("%s: sched_getaffinity: %s", opt, strerror(errno));
	if (!CPU_ISSET((size_t)v, &set)) {
		char list[256] = "";
		size_t n = 0;
		for (size_t c = 0; c < CPU_SETSIZE && n + 8 < sizeof list; c++)
			if (CPU_ISSET(c, &set))
				n += (size_t)snprintf(list + n, sizeof list - n,
						      "%s%zu", n ? "," : "", c);
		return bad("%s: CPU %s is not one this process may run on "
			   "(allowed: %s)",
			   opt, s, list);
	}
	*cpu = (int)v;
	return 0;
}

/* [ADDR:]PORT (need_host false) or HOST:PORT; [v6]:PORT. */
static int parse_hostport(const char *opt, const char *s, bool need_host,
			  bool port0_ok, char *host, size_t hn, char *port)
{
	const char *p;
	host[0] = '\0';
	if (s[0] == '[') {
		const char *e = strchr(s, ']');
		if (e == NULL || e[1] != ':')
			return bad("%s: bad address '%s' (want [ADDR]:PORT)",
				   opt, s);
		if ((size_t)(e - s - 1) >= hn || e == s + 1)
			return bad("%s: bad address '%s'", opt, s);
		memcpy(host, s + 1, (size_t)(e - s - 1));
		host[e - s - 1] = '\0';
		p = e + 2;
	} else {
		const char *c = strrchr(s, ':');
		if (c != NULL && strchr(s, ':') != c)
			return bad("%s: bad address '%s' (an IPv6 address "
				   "goes in brackets: [ADDR]:PORT)",
				   opt, s);
		if (c == NULL) {
			if (need_host)
				return bad("%s: '%s' has no port (want "
					   "HOST:PORT)",
					   opt, s);
			p = s;
		} else {
			if (c == s || (size_t)(c - s) >= hn)
				return bad("%s: bad address '%s'", opt, s);
			memcpy(host, s, (size_t)(c - s));
			host[c - s] = '\0';
			p = c + 1;
		}
	}
	uint64_t v;
	if (!parse_u64(p, &v) || v > 65535 || (v == 0 && !port0_ok))
		return bad("%s: bad port '%s' (1..65535%s)", opt, p,
			   port0_ok ? ", or 0: any free one" : "");
	snprintf(port, 16, "%llu", (unsigned long long)v);
	return 0;
}

static int parse_opts(int argc, char **argv, opts *o)
{
	enum { O_SERVER = 256, O_CLIENT, O_CLOCK, O_JSON, O_OVERHEAD };
	static const struct option lo[] = {
	    {"transport", required_argument, NULL, 't'},
	    {"wait", required_argument, NULL, 'w'},
	    {"size", required_argument, NULL, 's'},
	    {"count", required_argument, NULL, 'n'},
	    {"warmup", required_argument, NULL, 'W'},
	    {"client-cpu", required_argument, NULL, 'c'},
	    {"server-cpu", required_argument, NULL, 'C'},
	    {"rate", required_argument, NULL, 'r'},
	    {"timeout", required_argument, NULL, 'T'},
	    {"server", required_argument, NULL, O_SERVER},
	    {"client", required_argument, NULL, O_CLIENT},
	    {"clock", required_argument, NULL, O_CLOCK},
	    {"json", no_argument, NULL, O_JSON},
	    {"overhead", no_argument, NULL, O_OVERHEAD},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	memset(o, 0, sizeof *o);
	o->tr = ping_transports[0];
	o->cfg.wait = PING_WAIT_SPIN;
	o->cfg.size = DEFAULT_SIZE;
	o->cfg.count = DEFAULT_COUNT;
	o->cfg.warmup = DEFAULT_WARMUP;
	o->cfg.timeout_ns = (uint64_t)(DEFAULT_TIMEOUT_S * 1e9);
	o->client_cpu = o->server_cpu = -1;
	const char *server_arg = NULL, *client_arg = NULL, *size_arg = NULL;
	int c, rc;
	uint64_t v;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:w:s:n:W:c:C:r:T:hV", lo,
				NULL)) != -1) {
		switch (c) {
		case 't':
			o->tr = ping_transport_find(optarg);
			if (o->tr == NULL)
				return bad("unknown transport '%s'", optarg);
			break;
		case 'w': {
			int w = -1;
			for (int i = 0; i < PING_NWAITS; i++)
				if (strcmp(optarg, ping_wait_names[i]) == 0)
					w = i;
			if (w < 0)
				return bad("unknown wait mode '%s'", optarg);
			o->cfg.wait = (ping_wait)w;
			o->client_only = "--wait";
			break;
		}
		case 's':
			size_arg = optarg;
			if (!parse_u64(optarg, &v) || v == 0)
				return bad("--size: '%s' is not a size in "
					   "bytes (1 or more)",
					   optarg);
			o->cfg.size = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
			o->client_only = "--size";
			break;
		case 'n':
			if (!parse_u64(optarg, &v) || v == 0 ||
			    v > MAX_MESSAGES)
				return bad("--count: '%s' is not a count of "
					   "round trips (1 .. 10^12)",
					   optarg);
			o->cfg.count = v;
			o->set_count = true;
			break;
		case 'W':
			if (!parse_u64(optarg, &v) || v > MAX_MESSAGES)
				return bad("--warmup: '%s' is not a count "
					   "(0 .. 10^12)",
					   optarg);
			o->cfg.warmup = v;
			o->set_warmup = true;
			break;
		case 'c':
			if ((rc = parse_cpu("--client-cpu", optarg,
					    &o->client_cpu)) != 0)
				return rc;
			break;
		case 'C':
			if ((rc = parse_cpu("--server-cpu", optarg,
					    &o->server_cpu)) != 0)
				return rc;
			break;
		case 'r':
			if (!parse_u64(optarg, &v) || v == 0 || v > 1000000000u)
				return bad("--rate: '%s' is not a rate in "
					   "messages per second (1 .. 10^9)",
					   optarg);
			o->cfg.rate = v;
			o->client_only = "--rate";
			break;
		case 'T': {
			char *end;
			errno = 0;
			double s = strtod(optarg, &end);
			if (errno != 0 || *end != '\0' || !(s >= 0.001) ||
			    !(s <= 3600))
				return bad("--timeout: '%s' is not a time in "
					   "seconds (0.001 .. 3600)",
					   optarg);
			o->cfg.timeout_ns = (uint64_t)(s * 1e9);
			break;
		}
		case O_SERVER:
			server_arg = optarg;
			break;
		case O_CLIENT:
			client_arg = optarg;
			break;
		case O_CLOCK:
			if (strcmp(optarg, "auto") == 0)
				o->clock = PING_CLOCK_AUTO;
			else if (strcmp(optarg, "tsc") == 0)
				o->clock = PING_CLOCK_TSC;
			else if (strcmp(optarg, "mono") == 0)
				o->clock = PING_CLOCK_MONO;
			else
				return bad("unknown clock '%s'", optarg);
			break;
		case O_JSON:
			o->json = true;
			break;
		case O_OVERHEAD:
			o->overhead = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("conq-ping (conq %s)\n", CONQ_VERSION_STRING);
			exit(0);
		case ':':
			return bad("%s needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (server_arg && client_arg)
		return bad("--server and --client: one or the other");
	if (server_arg) {
		o->role = ROLE_SERVER;
		if ((rc = parse_hostport("--server", server_arg, false, true,
					 o->host, sizeof o->host, o->port)) !=
		    0)
			return rc;
		if (o->set_count || o->set_warmup)
			o->client_only = "--count/--warmup";
		if (o->client_only)
			return bad("%s is the client's to choose: the server "
				   "takes it from the client",
				   o->client_only);
		if (o->client_cpu >= 0)
			return bad("--client-cpu with --server: the server "
				   "is pinned with --server-cpu");
		if (o->overhead)
			return bad("--overhead measures the client's loop: "
				   "not with --server");
	} else if (client_arg) {
		o->role = ROLE_CLIENT;
		if ((rc = parse_hostport("--client", client_arg, true, false,
					 o->host, sizeof o->host, o->port)) !=
		    0)
			return rc;
		if (o->server_cpu >= 0)
			return bad("--server-cpu with --client: pin the "
				   "server where it runs (--server-cpu "
				   "there)");
	}
	if (o->cfg.size > o->tr->max_size)
		return bad("--size %s is above %s (%zu bytes)", size_arg,
			   o->tr->max_why, o->tr->max_size);
	if (!(o->tr->waits & (1u << o->cfg.wait)))
		return bad("transport %s has no wait mode %s", o->tr->name,
			   ping_wait_names[o->cfg.wait]);
	if (o->cfg.rate != 0 && o->cfg.size < 16)
		return bad("--rate needs --size 16 or more (a message carries "
			   "its sequence number and intended send time)");
	if (o->overhead && !o->set_count)
		o->cfg.count = 1000000u;
	return 0;
}

static int pin(int cpu, char *err, size_t n)
{
	if (cpu < 0)
		return 0;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET((size_t)cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0) {
		snprintf(err, n, "cannot pin to CPU %d: %s", cpu,
			 strerror(errno));
		return PING_EXIT_SETUP;
	}
	return 0;
}

static int allowed_cpus(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 0;
	return CPU_COUNT(&set);
}

/* ---- the report -------------------------------------------------------- */

static const double qs[5] = {50.0, 90.0, 99.0, 99.9, 99.99};
static const char *const qnames[5] = {"p50", "p90", "p99", "p99.9", "p99.99"};

typedef struct summary {
	double min, q[5], max, mean; /* ns */
	uint64_t n;
} summary;

static void summarize(const cb_hist *h, summary *s)
{
	s->n = cb_hist_count(h);
	s->min = ping_ticks_to_ns(cb_hist_min(h));
	s->max = ping_ticks_to_ns(cb_hist_max(h));
	s->mean = cb_hist_mean(h) * ping_tick_ns;
	for (int k = 0; k < 5; k++)
		s->q[k] = ping_ticks_to_ns(cb_hist_percentile(h, qs[k]));
}

static void json_cpu(const char *name, const ping_cpu *c, uint64_t msgs,
		     bool comma)
{
	if (!c->known) {
		printf("    \"%s\": null%s\n", name, comma ? "," : "");
		return;
	}
	double cpu = c->user_s + c->sys_s;
	printf("    \"%s\": {\"user_s\": %.6f, \"sys_s\": %.6f, "
	       "\"cpu_s\": %.6f, \"wall_s\": %.6f, \"utilisation\": %.4f, "
	       "\"ns_per_msg\": %.1f, \"ctx_voluntary\": %llu, "
	       "\"ctx_involuntary\": %llu}%s\n",
	       name, c->user_s, c->sys_s, cpu, c->wall_s,
	       c->wall_s > 0 ? cpu / c->wall_s : 0.0,
	       msgs ? cpu * 1e9 / (double)msgs : 0.0,
	       (unsigned long long)c->nvcsw, (unsigned long long)c->nivcsw,
	       comma ? "," : "");
}

/* A string for JSON: the addresses are ours or the user's (no quote or
 * control characters get this far: getaddrinfo refused them). */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void json_cpu_num(const char *name, int cpu)
{
	if (cpu < 0)
		printf("  \"%s\": null,\n", name);
	else
		printf("  \"%s\": %d,\n", name, cpu);
}

static void report_json(const opts *o, const ping_result *r, const char *server,
			double overhead)
{
	summary s;
	summarize(r->hist, &s);
	printf("{\n  \"tool\": \"conq-ping\",\n  \"version\": \"%s\",\n",
	       CONQ_VERSION_STRING);
	printf("  \"transport\": \"%s\",\n  \"wait\": \"%s\",\n", o->tr->name,
	       ping_wait_names[o->cfg.wait]);
	printf("  \"size\": %zu,\n  \"count\": %llu,\n  \"warmup\": %llu,\n",
	       o->cfg.size, (unsigned long long)o->cfg.count,
	       (unsigned long long)o->cfg.warmup);
	printf("  \"loop\": \"%s\",\n  \"rate\": %llu,\n",
	       o->cfg.rate ? "open" : "closed",
	       (unsigned long long)o->cfg.rate);
	printf("  \"server\": ");
	json_str(server);
	printf(",\n");
	json_cpu_num("client_cpu", o->client_cpu);
	json_cpu_num("server_cpu", o->server_cpu);
	printf("  \"yield\": %s,\n", o->cfg.yield ? "true" : "false");
	printf("  \"clock\": \"%s\",\n  \"clock_hz\": %.0f,\n",
	       ping_clock_is_tsc ? "tsc" : "monotonic", ping_clock_hz);
	printf("  \"overhead_ns\": %.1f,\n", overhead);
	printf("  \"samples\": %llu,\n", (unsigned long long)s.n);
	printf("  \"rtt_ns\": {\"min\": %.0f", s.min);
	for (int k = 0; k < 5; k++)
		printf(", \"%s\": %.0f", qnames[k], s.q[k]);
	printf(", \"max\": %.0f, \"mean\": %.1f},\n", s.max, s.mean);
	printf("  \"elapsed_s\": %.6f,\n", r->elapsed_s);
	printf("  \"msgs_per_s\": %.1f,\n",
	       r->elapsed_s > 0 ? (double)s.n / r->elapsed_s : 0.0);
	printf("  \"cpu\": {\n");
	json_cpu("client", &r->client, s.n, true);
	json_cpu("server", &r->server, s.n, false);
	printf("  }\n}\n");
}

static void text_cpu(const char *name, const ping_cpu *c, uint64_t msgs)
{
	if (!c->known) {
		printf("  %-7s (not reported)\n", name);
		return;
	}
	double cpu = c->user_s + c->sys_s;
	printf("  %-7s %9.3f %9.3f %9.1f %9.2f %9llu %9llu\n", name, c->user_s,
	       c->sys_s, c->wall_s > 0 ? 100.0 * cpu / c->wall_s : 0.0,
	       msgs ? cpu * 1e6 / (double)msgs : 0.0,
	       (unsigned long long)c->nvcsw, (unsigned long long)c->nivcsw);
}

static void report_text(const opts *o, const ping_result *r, const char *server,
			double overhead)
{
	summary s;
	summarize(r->hist, &s);
	printf("conq-ping (conq %s): %s, wait %s, %zu-byte messages, ",
	       CONQ_VERSION_STRING, o->tr->name, ping_wait_names[o->cfg.wait],
	       o->cfg.size);
	if (o->cfg.rate)
		printf("open loop at %llu/s", (unsigned long long)o->cfg.rate);
	else
		printf("closed loop");
	printf(": %llu round trips after %llu warm-up\n",
	       (unsigned long long)o->cfg.count,
	       (unsigned long long)o->cfg.warmup);
	printf("server %s", server);
	if (o->server_cpu >= 0)
		printf(" on cpu %d", o->server_cpu);
	printf(", client");
	if (o->client_cpu >= 0)
		printf(" on cpu %d", o->client_cpu);
	else
		printf(" not pinned");
	if (o->cfg.yield && (o->cfg.wait == PING_WAIT_SPIN ||
			     o->cfg.wait == PING_WAIT_EPOLL_SPIN))
		printf(" (both ends share a CPU: the spin loops yield)");
	if (ping_clock_is_tsc)
		printf("; clock TSC %.2f MHz", ping_clock_hz / 1e6);
	else
		printf("; clock CLOCK_MONOTONIC");
	printf("; own cost %.1f ns per sample\n", overhead);
	printf("RTT us %10s", "min");
	for (int k = 0; k < 5; k++)
		printf(" %10s", qnames[k]);
	printf(" %10s %10s\n       %10.3f", "max", "mean", s.min / 1e3);
	for (int k = 0; k < 5; k++)
		printf(" %10.3f", s.q[k] / 1e3);
	printf(" %10.3f %10.3f\n", s.max / 1e3, s.mean / 1e3);
	printf("%.0f round trips/s (%llu in %.3f s)\n",
	       r->elapsed_s > 0 ? (double)s.n / r->elapsed_s : 0.0,
	       (unsigned long long)s.n, r->elapsed_s);
	printf("cpu       user s    sys s    %% wall    us/msg   ctx vol "
	       "ctx invol\n");
	text_cpu("client", &r->client, s.n);
	text_cpu("server", &r->server, s.n);
}

/* ---- the modes ----------------------------------------------------------- */

static int run_overhead(const opts *o)
{
	char err[256];
	int rc = pin(o->client_cpu, err, sizeof err);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return rc;
	}
	cb_hist *h = cb_hist_new();
	if (h == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return PING_EXIT_SETUP;
	}
	double ns = ping_overhead(o->cfg.warmup, o->cfg.count, o->cfg.size, h);
	summary s;
	summarize(h, &s);
	if (o->json) {
		printf("{\n  \"tool\": \"conq-ping\",\n  \"mode\": "
		       "\"overhead\",\n  \"clock\": \"%s\",\n  \"clock_hz\": "
		       "%.0f,\n  \"size\": %zu,\n  \"samples\": %llu,\n  "
		       "\"overhead_ns\": %.2f,\n  \"sample_ns\": {\"min\": "
		       "%.1f",
		       ping_clock_is_tsc ? "tsc" : "monotonic", ping_clock_hz,
		       o->cfg.size, (unsigned long long)s.n, ns, s.min);
		for (int k = 0; k < 5; k++)
			printf(", \"%s\": %.1f", qnames[k], s.q[k]);
		printf(", \"max\": %.1f}\n}\n", s.max);
	} else {
		printf("conq-ping own cost: %.2f ns per sample (%llu samples "
		       "of the closed loop\nwith a transport that does no "
		       "I/O, %zu-byte messages, clock %s)\n",
		       ns, (unsigned long long)s.n, o->cfg.size,
		       ping_clock_is_tsc ? "TSC" : "CLOCK_MONOTONIC");
		printf("per sample ns: min %.1f", s.min);
		for (int k = 0; k < 5; k++)
			printf(", %s %.1f", qnames[k], s.q[k]);
		printf(", max %.1f\n", s.max);
	}
	cb_hist_free(h);
	return 0;
}

static int run_server(const opts *o)
{
	ping_ep ep;
	ping_ep_init(&ep, o->tr, o->cfg.timeout_ns);
	char err[256];
	int rc = pin(o->server_cpu, err, sizeof err);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return rc;
	}
	rc = o->tr->listen(&ep, o->host, o->port);
	if (rc == 0) {
		fprintf(stderr, "conq-ping server: %s listening on %s\n",
			o->tr->name, ep.local);
		fflush(stderr);
		rc = o->tr->accept(&ep);
	}
	ping_hello hello;
	ping_cpu cpu;
	memset(&hello, 0, sizeof hello);
	memset(&cpu, 0, sizeof cpu);
	if (rc == 0)
		rc = ping_server(&ep, &hello, &cpu);
	if (rc != 0) {
		fprintf(stderr, "conq-ping server: %s\n", ep.err);
		o->tr->close(&ep);
		return rc;
	}
	uint64_t msgs = hello.total - hello.warmup;
	if (o->json) {
		printf("{\n  \"tool\": \"conq-ping\",\n  \"mode\": "
		       "\"server\",\n  \"transport\": \"%s\",\n  \"wait\": "
		       "\"%s\",\n  \"client\": ",
		       o->tr->name, ping_wait_names[hello.wait]);
		json_str(ep.peer);
		printf(",\n  \"size\": %llu,\n  \"count\": %llu,\n  "
		       "\"warmup\": %llu,\n",
		       (unsigned long long)hello.size, (unsigned long long)msgs,
		       (unsigned long long)hello.warmup);
		json_cpu_num("server_cpu", o->server_cpu);
		printf("  \"cpu\": {\n");
		json_cpu("server", &cpu, msgs, false);
		printf("  }\n}\n");
	} else {
		printf("conq-ping server: echoed %llu messages of %llu bytes "
		       "after %llu warm-up for %s (wait %s)\n",
		       (unsigned long long)msgs, (unsigned long long)hello.size,
		       (unsigned long long)hello.warmup, ep.peer,
		       ping_wait_names[hello.wait]);
		printf(
		    "cpu       user s    sys s    %% wall    us/msg   ctx vol "
		    "ctx invol\n");
		text_cpu("server", &cpu, msgs);
	}
	o->tr->close(&ep);
	return 0;
}

/* The loop's own cost, pinned as the run will be: before connecting (a
 * server waits for the hello only for the timeout). */
static double own_cost(const opts *o)
{
	cb_hist *h = cb_hist_new();
	if (h == NULL)
		return -1.0;
	double ns = ping_overhead(OVERHEAD_SAMPLES / 10, OVERHEAD_SAMPLES,
				  o->cfg.size, h);
	cb_hist_free(h);
	return ns;
}

/* The client's side of both modes, on a connected endpoint. */
static int client_run(opts *o, ping_ep *ep, const char *server, double overhead)
{
	cb_hist *h = cb_hist_new();
	if (h == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return PING_EXIT_SETUP;
	}
	ping_result res;
	memset(&res, 0, sizeof res);
	res.hist = h;
	int rc = ping_client(ep, &o->cfg, &res);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", prog, ep->err);
	} else if (o->json) {
		report_json(o, &res, server, overhead);
	} else {
		report_text(o, &res, server, overhead);
	}
	fflush(stdout);
	cb_hist_free(h);
	return rc;
}

static int run_client(opts *o)
{
	char err[256];
	int rc = pin(o->client_cpu, err, sizeof err);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return rc;
	}
	double overhead = own_cost(o);
	ping_ep ep;
	ping_ep_init(&ep, o->tr, o->cfg.timeout_ns);
	rc = o->tr->connect(&ep, o->host, o->port);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", prog, ep.err);
		o->tr->close(&ep); /* what a failed connect holds */
		return rc;
	}
	char server[128];
	snprintf(server, sizeof server, "%s", ep.peer);
	rc = client_run(o, &ep, server, overhead);
	o->tr->close(&ep);
	return rc;
}

/* Wait for the child up to ns; then kill it. Its exit code, or
 * PING_EXIT_PEER when a signal ended it. */
static int reap(pid_t pid, uint64_t ns, bool kill_now)
{
	int st = 0;
	if (kill_now)
		kill(pid, SIGKILL);
	uint64_t end = ping_mono_ns() + ns;
	for (;;) {
		pid_t r = waitpid(pid, &st, kill_now ? 0 : WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return PING_EXIT_PEER;
		if (ping_mono_ns() >= end) {
			kill(pid, SIGKILL);
			kill_now = true;
			continue;
		}
		const struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return PING_EXIT_PEER;
}

static int run_both(opts *o)
{
	ping_ep srv;
	ping_ep_init(&srv, o->tr, o->cfg.timeout_ns);
	int rc = o->tr->listen(&srv, "127.0.0.1", "0");
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", prog, srv.err);
		o->tr->close(&srv); /* what a failed listen holds */
		return rc;
	}
	/* Both ends on one CPU (or only one to run on): a spinning end
	 * would hold it for a whole time slice while the other waits. */
	o->cfg.yield = (o->client_cpu >= 0 && o->client_cpu == o->server_cpu) ||
		       allowed_cpus() < 2;
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
		return PING_EXIT_SETUP;
	}
	if (pid == 0) {
		/* The server: dies with the parent, whatever happens. */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(PING_EXIT_PEER);
		char err[256];
		rc = pin(o->server_cpu, err, sizeof err);
		if (rc != 0) {
			fprintf(stderr, "%s server: %s\n", prog, err);
			_exit(rc);
		}
		rc = o->tr->accept(&srv);
		ping_hello hello;
		ping_cpu cpu;
		if (rc == 0)
			rc = ping_server(&srv, &hello, &cpu);
		if (rc != 0)
			fprintf(stderr, "%s server: %s\n", prog, srv.err);
		o->tr->close(&srv);
		_exit(rc);
	}
	char port[16];
	const char *colon = strrchr(srv.local, ':');
	snprintf(port, sizeof port, "%s", colon ? colon + 1 : "0");
	o->tr->close(&srv); /* the child's copy serves */

	char err[256];
	rc = pin(o->client_cpu, err, sizeof err);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		reap(pid, 0, true);
		return rc;
	}
	double overhead = own_cost(o);
	ping_ep ep;
	ping_ep_init(&ep, o->tr, o->cfg.timeout_ns);
	rc = o->tr->connect(&ep, "127.0.0.1", port);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", prog, ep.err);
		reap(pid, 0, true);
		return rc;
	}
	rc = client_run(o, &ep, "forked", overhead);
	o->tr->close(&ep);
	if (rc != 0) {
		reap(pid, 0, true);
		return rc;
	}
	int crc = reap(pid, o->cfg.timeout_ns, false);
	if (crc != 0)
		fprintf(stderr, "%s: the server ended with status %d\n", prog,
			crc);
	return crc;
}

int main(int argc, char **argv)
{
	opts o;
	int rc = parse_opts(argc, argv, &o);
	if (rc != 0)
		return rc;
	char err[256];
	if (ping_clock_init(o.clock, err, sizeof err) != 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return PING_EXIT_USAGE;
	}
	signal(SIGPIPE, SIG_IGN);
	if (o.overhead)
		return run_overhead(&o);
	switch (o.role) {
	case ROLE_SERVER:
		return run_server(&o);
	case ROLE_CLIENT:
		return run_client(&o);
	case ROLE_BOTH:
		break;
	}
	return run_both(&o);
}
