/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"
#include "cli.h"

/* Presets: explicit flags override them (-tg replaces the preset's shapes,
 * -p qType its selection). quick is what `make bench` runs. */
typedef struct preset {
	const char *name;
	int wi, i;
	uint64_t w_ns, r_ns;
	int check;
	const char *tg; /* shapes, space-separated */
	size_t capacity; /* default qCapacity */
	unsigned sel;   /* as cb_options.sel */
	const char *desc;
} preset;

#define PRESET_MS ((uint64_t)CB_NS_PER_MS)

static const preset presets[] = {
	{"quick", 4, 60, 250 * PRESET_MS, 250 * PRESET_MS, 0, "1,1", 131072, 0,
	 "the headline of `make bench`: SPSC queues at -tg 1,1 (60-90 s)"},
	{"smoke", 1, 2, 10 * PRESET_MS, 20 * PRESET_MS, 1, "1,1 2,1 1,2 2,2",
	 1024, CB_ALL_CONTRACTS,
	 "CI: every queue at every shape it allows, --check, qCapacity 1024 "
	 "(wraps and fills often); a few seconds"},
	{"mpmc", 2, 20, 200 * PRESET_MS, 200 * PRESET_MS, 0, "1,1 2,2", 131072, CB_MPMC,
	 "MPMC queues (and the mutex floor) at -tg 1,1 and 2,2 (~1 min)"},
	{"mpsc", 2, 20, 200 * PRESET_MS, 200 * PRESET_MS, 0, "1,1 2,1", 131072, CB_MPSC,
	 "MPSC queues at -tg 1,1 and 2,1 (~30 s)"},
	{"spmc", 2, 20, 200 * PRESET_MS, 200 * PRESET_MS, 0, "1,1 1,2", 131072, CB_SPMC,
	 "SPMC queues at -tg 1,1 and 1,2 (~30 s)"},
};

void cb_usage(FILE *f)
{
	fprintf(f,
		"usage: conq-bench [options] [REGEX ...]\n"
		"  REGEX                benchmarks to run (POSIX ERE over "
		"\"Benchmark.group\"; default: all)\n"
		"Selection\n"
		"  -l                   list benchmarks and queue adapters\n"
		"  --list-peers         peer libraries: compiled in, missing "
		"(with the package to install), planned\n"
		"  -p qType=A,B,...     queues to run (names or globs, e.g. "
		"'conq:*'; default: all compiled in)\n"
		"  -p qCapacity=N,...   requested capacity (default 131072; "
		"smoke: 1024)\n"
		"Run control\n"
		"  --preset NAME        quick (default, `make bench`) | smoke | "
		"mpmc | mpsc | spmc (below)\n"
		"  -wi N  -w TIME       warmup iterations / time each "
		"(TIME: 100ns 50us 250ms 1s 2m)\n"
		"  -i N   -r TIME       measurement iterations / time each\n"
		"  -to TIME             give up on an iteration stuck this long "
		"(default 30s)\n"
		"  -tg P,C              P producer threads, C consumer threads "
		"(default 1,1); repeat for\n"
		"                       several shapes. Only queues whose contract "
		"allows P,C run (SPSC: 1,1;\n"
		"                       MPSC: P,1; SPMC: 1,C; MPMC: any); without "
		"-p qType, those of the\n"
		"                       narrowest such contract. More threads than "
		"CPUs: oversubscribed, and\n"
		"                       failed ops call sched_yield() every 256 "
		"consecutive failures\n"
		"  --check              verify every element (per-producer FIFO "
		"order, exactly once) and the\n"
		"                       per-iteration invariants; exit 1 on a "
		"violation\n"
		"  --no-check           the opposite (the counting invariants "
		"are checked anyway)\n"
		"  --no-rotate          fixed queue order within each round "
		"(default: rotate it every round)\n"
		"  --affinity MODE      auto (default: producers then consumers, "
		"round-robin over the allowed\n"
		"                       CPUs) | none | CPU,CPU,... (thread k on "
		"the (k mod n)-th)\n"
		"Other\n"
		"  --self-test          run the harness's own unit tests\n"
		"  -h, --help           this help\n"
		"Presets:\n");
	for (size_t k = 0; k < sizeof presets / sizeof presets[0]; k++) {
		char w[32], r[32];
		fprintf(f,
			"  %-6s -wi %d -w %s -i %d -r %s%s, -tg %s, qCapacity "
			"%zu\n         %s\n",
			presets[k].name, presets[k].wi,
			cb_fmt_time(presets[k].w_ns, w, sizeof w), presets[k].i,
			cb_fmt_time(presets[k].r_ns, r, sizeof r),
			presets[k].check ? " --check" : "", presets[k].tg,
			presets[k].capacity, presets[k].desc);
	}
}

int cb_parse_time(const char *s, uint64_t *ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno != 0 || !(v >= 0))
		return -1;
	double mul;
	if (*end == '\0' || strcmp(end, "s") == 0)
		mul = 1e9;
	else if (strcmp(end, "ms") == 0)
		mul = 1e6;
	else if (strcmp(end, "us") == 0)
		mul = 1e3;
	else if (strcmp(end, "ns") == 0)
		mul = 1;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		mul = 60e9;
	else
		return -1;
	double r = v * mul;
	if (r > 1e18)
		return -1;
	*ns = (uint64_t)(r + 0.5);
	return 0;
}

const char *cb_fmt_time(uint64_t ns, char *buf, size_t n)
{
	if (ns % CB_NS_PER_S == 0)
		snprintf(buf, n, "%" PRIu64 " s", ns / CB_NS_PER_S);
	else if (ns % CB_NS_PER_MS == 0)
		snprintf(buf, n, "%" PRIu64 " ms", ns / CB_NS_PER_MS);
	else if (ns % CB_NS_PER_US == 0)
		snprintf(buf, n, "%" PRIu64 " us", ns / CB_NS_PER_US);
	else
		snprintf(buf, n, "%" PRIu64 " ns", ns);
	return buf;
}

int cb_parse_tg(const char *s, unsigned *p, unsigned *c)
{
	char *end;
	errno = 0;
	long a = strtol(s, &end, 10);
	if (end == s || *end != ',' || errno != 0)
		return -1;
	const char *s2 = end + 1;
	long b = strtol(s2, &end, 10);
	if (end == s2 || *end != '\0' || errno != 0)
		return -1;
	if (a < 1 || b < 1 || a + b > CB_MAX_THREADS)
		return -1;
	*p = (unsigned)a;
	*c = (unsigned)b;
	return 0;
}

static int add_tg(cb_options *o, const char *s)
{
	unsigned p, c;
	if (cb_parse_tg(s, &p, &c) != 0) {
		fprintf(stderr,
			"conq-bench: -tg wants P,C (producers, consumers), "
			"each >= 1, P + C <= %d; not '%s'\n",
			CB_MAX_THREADS, s);
		return -1;
	}
	for (size_t k = 0; k < o->ntg; k++)
		if (o->tg_p[k] == p && o->tg_c[k] == c)
			return 0;
	if (o->ntg == CB_MAX_LIST) {
		fprintf(stderr, "conq-bench: too many -tg\n");
		return -1;
	}
	o->tg_p[o->ntg] = p;
	o->tg_c[o->ntg++] = c;
	return 0;
}

static int parse_count(const char *opt, const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || v < 0 || v > 1000000) {
		fprintf(stderr, "conq-bench: %s wants a count, not '%s'\n", opt,
			s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* Split a comma list into out[] (pointers into a strdup'd copy). */
static int split_list(const char *s, const char **out, size_t *n)
{
	char *copy = strdup(s);
	if (copy == NULL)
		return -1;
	for (char *tok = strtok(copy, ","); tok != NULL;
	     tok = strtok(NULL, ",")) {
		if (*n == CB_MAX_LIST)
			return -1;
		out[(*n)++] = tok;
	}
	return 0; /* copy lives as long as the options */
}

static int parse_param(const char *kv, cb_options *o)
{
	const char *eq = strchr(kv, '=');
	if (eq == NULL) {
		fprintf(stderr, "conq-bench: -p wants NAME=V1,V2,..., not '%s'\n",
			kv);
		return -1;
	}
	size_t klen = (size_t)(eq - kv);
	const char *v = eq + 1;
	if (klen == 5 && strncmp(kv, "qType", 5) == 0) {
		o->nqtype = 0;
		if (split_list(v, o->qtype, &o->nqtype) != 0 || o->nqtype == 0) {
			fprintf(stderr, "conq-bench: bad qType list '%s'\n", v);
			return -1;
		}
		return 0;
	}
	if (klen == 9 && strncmp(kv, "qCapacity", 9) == 0) {
		const char *vals[CB_MAX_LIST];
		size_t nv = 0;
		if (split_list(v, vals, &nv) != 0 || nv == 0)
			goto bad_cap;
		o->ncapacity = 0;
		for (size_t k = 0; k < nv; k++) {
			char *end;
			errno = 0;
			unsigned long long c = strtoull(vals[k], &end, 10);
			if (end == vals[k] || *end != '\0' || errno != 0 ||
			    c == 0 || c > ((unsigned long long)1 << 31))
				goto bad_cap;
			o->capacity[o->ncapacity++] = (size_t)c;
		}
		return 0;
	bad_cap:
		fprintf(stderr,
			"conq-bench: qCapacity wants numbers in [1, 2^31], not "
			"'%s'\n",
			v);
		return -1;
	}
	fprintf(stderr,
		"conq-bench: unknown parameter '%.*s' (known: qType, "
		"qCapacity)\n",
		(int)klen, kv);
	return -1;
}

static int parse_affinity(const char *s, cb_options *o)
{
	if (strcmp(s, "auto") == 0) {
		o->affinity = CB_AFF_AUTO;
		return 0;
	}
	if (strcmp(s, "none") == 0) {
		o->affinity = CB_AFF_NONE;
		return 0;
	}
	const char *vals[CB_MAX_LIST];
	size_t nv = 0;
	if (split_list(s, vals, &nv) != 0 || nv == 0)
		goto bad;
	for (size_t k = 0; k < nv && k < CB_MAX_THREADS; k++) {
		int cpu;
		if (parse_count("--affinity", vals[k], &cpu) != 0 || cpu > 4095)
			return -1;
		o->cpus[k] = cpu;
	}
	o->ncpus = nv;
	o->affinity = CB_AFF_LIST;
	return 0;
bad:
	fprintf(stderr, "conq-bench: --affinity wants auto, none or CPU,CPU\n");
	return -1;
}

int cb_parse_args(int argc, char **argv, cb_options *o)
{
	memset(o, 0, sizeof *o);
	o->preset = "quick";
	o->wi = o->i = -1;
	o->check = -1;
	o->rotate = 1;
	o->timeout_ns = 30 * (uint64_t)CB_NS_PER_S;
	for (int k = 1; k < argc; k++) {
		const char *a = argv[k];
		const char *arg = k + 1 < argc ? argv[k + 1] : NULL;
#define NEED_ARG                                                               \
	do {                                                                   \
		if (arg == NULL) {                                             \
			fprintf(stderr, "conq-bench: %s needs a value\n", a);  \
			return 2;                                              \
		}                                                              \
		k++;                                                           \
	} while (0)
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			o->help = 1;
		} else if (strcmp(a, "-l") == 0 || strcmp(a, "-lp") == 0) {
			o->list = 1;
		} else if (strcmp(a, "--list-peers") == 0) {
			o->list_peers = 1;
		} else if (strcmp(a, "--self-test") == 0) {
			o->selftest = 1;
		} else if (strcmp(a, "--check") == 0) {
			o->check = 1;
		} else if (strcmp(a, "--no-check") == 0) {
			o->check = 0;
		} else if (strcmp(a, "--no-rotate") == 0) {
			o->rotate = 0;
		} else if (strcmp(a, "--preset") == 0) {
			NEED_ARG;
			o->preset = arg;
		} else if (strcmp(a, "-wi") == 0) {
			NEED_ARG;
			if (parse_count(a, arg, &o->wi) != 0)
				return 2;
		} else if (strcmp(a, "-i") == 0) {
			NEED_ARG;
			if (parse_count(a, arg, &o->i) != 0)
				return 2;
			if (o->i == 0) {
				fprintf(stderr, "conq-bench: -i must be >= 1\n");
				return 2;
			}
		} else if (strcmp(a, "-w") == 0 || strcmp(a, "-r") == 0 ||
			   strcmp(a, "-to") == 0) {
			NEED_ARG;
			uint64_t ns;
			if (cb_parse_time(arg, &ns) != 0 || ns == 0) {
				fprintf(stderr,
					"conq-bench: %s wants a time like "
					"250ms or 1s, not '%s'\n",
					a, arg);
				return 2;
			}
			if (strcmp(a, "-w") == 0)
				o->w_ns = ns;
			else if (strcmp(a, "-r") == 0)
				o->r_ns = ns;
			else
				o->timeout_ns = ns;
		} else if (strcmp(a, "-p") == 0) {
			NEED_ARG;
			if (parse_param(arg, o) != 0)
				return 2;
		} else if (strcmp(a, "-tg") == 0) {
			NEED_ARG;
			if (add_tg(o, arg) != 0)
				return 2;
		} else if (strcmp(a, "--affinity") == 0) {
			NEED_ARG;
			if (parse_affinity(arg, o) != 0)
				return 2;
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr,
				"conq-bench: unknown option '%s' (see -h)\n", a);
			return 2;
		} else {
			if (o->ninclude == CB_MAX_LIST) {
				fprintf(stderr, "conq-bench: too many regexes\n");
				return 2;
			}
			o->include[o->ninclude++] = a;
		}
#undef NEED_ARG
	}
	const preset *p = NULL;
	for (size_t k = 0; k < sizeof presets / sizeof presets[0]; k++)
		if (strcmp(o->preset, presets[k].name) == 0)
			p = &presets[k];
	if (p == NULL) {
		fprintf(stderr,
			"conq-bench: unknown preset '%s' (quick | smoke | mpmc "
			"| mpsc | spmc)\n",
			o->preset);
		return 2;
	}
	if (o->ntg == 0) {
		/* The preset's shapes (a static string: copy to split). */
		char buf[128];
		snprintf(buf, sizeof buf, "%s", p->tg);
		for (char *tok = strtok(buf, " "); tok != NULL;
		     tok = strtok(NULL, " "))
			if (add_tg(o, tok) != 0)
				return 2;
	}
	o->sel = p->sel;
	if (o->wi < 0)
		o->wi = p->wi;
	if (o->i < 0)
		o->i = p->i;
	if (o->w_ns == 0)
		o->w_ns = p->w_ns;
	if (o->r_ns == 0)
		o->r_ns = p->r_ns;
	if (o->check < 0)
		o->check = p->check;
	if (o->ncapacity == 0) {
		/* quick & co: JCTools' 132000, as a power of 2 */
		o->capacity[0] = p->capacity;
		o->ncapacity = 1;
	}
	return 0;
}

int cb_cli_selftest(void)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} ok[] = {{"1s", 1000000000u},  {"250ms", 250000000u},
		  {"50us", 50000u},     {"100ns", 100u},
		  {"2m", 120000000000u}, {"1.5", 1500000000u},
		  {"0.2s", 200000000u}};
	int fails = 0;
	for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
		uint64_t ns = 0;
		if (cb_parse_time(ok[k].s, &ns) != 0 || ns != ok[k].ns) {
			printf("FAIL parse_time(%s) = %" PRIu64 "\n", ok[k].s,
			       ns);
			fails++;
		}
	}
	static const char *const bad[] = {"", "x", "1h", "-1s", "1 s"};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		uint64_t ns;
		if (cb_parse_time(bad[k], &ns) == 0) {
			printf("FAIL parse_time(%s) accepted\n", bad[k]);
			fails++;
		}
	}
	char buf[32];
	static const struct {
		const char *s;
		int valid;
		unsigned p, c;
	} tg[] = {{"1,1", 1, 1, 1},  {"2,2", 1, 2, 2}, {"3,1", 1, 3, 1},
		  {"1,63", 1, 1, 63}, {"0,1", 0, 0, 0}, {"1,0", 0, 0, 0},
		  {"1", 0, 0, 0},     {"1,1,", 0, 0, 0}, {"40,40", 0, 0, 0},
		  {"a,1", 0, 0, 0}};
	for (size_t k = 0; k < sizeof tg / sizeof tg[0]; k++) {
		unsigned p = 0, c = 0;
		int valid = cb_parse_tg(tg[k].s, &p, &c) == 0;
		if (valid != tg[k].valid ||
		    (valid && (p != tg[k].p || c != tg[k].c))) {
			printf("FAIL parse_tg(%s)\n", tg[k].s);
			fails++;
		}
	}
	if (strcmp(cb_fmt_time(250000000u, buf, sizeof buf), "250 ms") != 0 ||
	    strcmp(cb_fmt_time(2000000000u, buf, sizeof buf), "2 s") != 0) {
		printf("FAIL fmt_time\n");
		fails++;
	}
	return fails;
}
