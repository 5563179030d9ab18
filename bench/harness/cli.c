/* SPDX-License-Identifier: BSD-2-Clause */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"
#include "cli.h"
#include "stats.h"
#include "plan.h"
#include "workload.h"

/* Presets: explicit flags override them (-tg replaces the preset's shapes,
 * -p qType its selection, -p NAME its parameter). quick is what `make bench`
 * runs. */
typedef struct preset {
	const char *name;
	int forks;
	int wi, i;
	uint64_t w_ns, r_ns;
	int check;
	const char *tg; /* shapes, space-separated */
	size_t capacity; /* default qCapacity */
	unsigned sel;   /* as cb_options.sel */
	const char *include; /* benchmarks run without a REGEX; NULL: all */
	const char *desc;
	/* -p settings, space-separated (NULL: none), each unless the command
	 * line gives that parameter (qType: unless it gives a qType; the
	 * preset's qTypes that this build lacks are left out). */
	const char *params;
} preset;

#define TPT_ONLY "^QueueThroughputBackoffNone\\."
/* Every benchmark but QueueThroughputSlowSide (the loops of
 * QueueThroughputBackoffNone; bench_harness runs it). */
#define SMOKE_SET                                                              \
	"^(QueueThroughputBackoffNone|QueueBurstCost|QueueRoundTripLatency|"   \
	"PingPong|Catchup|UnalignedAccess|MachineLimits|QueueHandoff|"         \
	"QueueValueThroughput|Uuid|Refcount|Pool)\\."
/* Issue 14's targets: the SPSC value ring against conq_spsc_array with 4-
 * and 8-byte elements, the MPSC claim/commit against DPDK's MP elem ring
 * with 64-byte ones (wl_value.c prints the verdicts). */
#define VALUE_QTYPES                                                           \
	"qType=conq:spsc_value,conq:spsc_array,conq:mpsc_value_claim,"         \
	"dpdk:rte_ring_mpsc_elem elemSize=4,8,64"

/* Issue 15's targets: conq:uuid_v4 against libuuid (1 thread), at 2 threads
 * against 1, conq:uuid_v7 against the clock read + conq:uuid_v4; every
 * count of Refcount.cycle and .shared (wl_uuid.c, wl_refcount.c print the
 * verdicts). */
#define EXTRAS_UTYPES                                                          \
	"uType=conq:uuid_v4,conq:uuid_v7,baseline:clock_realtime,"             \
	"libuuid:uuid_generate_random"

/* Issue 16's targets: every pool at 1 submitter and 2 workers, bursts of
 * 100000 tasks and a task every 200 us (wl_pool.c prints the verdicts). */
#define POOL_PARAMS "producers=1 workers=2 burstTasks=100000 intervalUs=200"

#define PRESET_MS ((uint64_t)CB_NS_PER_MS)
#define PRESET_S ((uint64_t)CB_NS_PER_S)

static const preset presets[] = {
	{"quick", 1, 2, 10, 100 * PRESET_MS, 200 * PRESET_MS, 0, "1,1", 131072,
	 CB_ALL_CONTRACTS, TPT_ONLY,
	 "the default, `make bench`: every queue at -tg 1,1 (one thread per "
	 "CPU on 2 CPUs), interleaved in one fork; each conq queue against the "
	 "best peer of its contract (about 80 s)",
	 NULL},
	{"smoke", 1, 1, 2, 10 * PRESET_MS, 20 * PRESET_MS, 1, "1,1 2,1 1,2 2,2",
	 1024, CB_ALL_CONTRACTS, SMOKE_SET,
	 "CI: every benchmark (QueueThroughputSlowSide aside), every queue at "
	 "every shape it allows, --check, qCapacity 1024 (wraps and fills "
	 "often); QueueValueThroughput at elemSize 64, Pool.burst with bursts "
	 "of 10000",
	 "elemSize=64 burstTasks=10000"},
	{"default", 3, 5, 10, 500 * PRESET_MS, 500 * PRESET_MS, 0,
	 "1,1 2,1 1,2 2,2", 131072, 0, NULL,
	 "JMH-like: every benchmark, 3 forks, each shape with the queues of its narrowest "
	 "contract (~10 min with every peer, ~11 more for Uuid and "
	 "Refcount, ~6 for Pool); QueueValueThroughput at elemSize 64",
	 "elemSize=64"},
	{"jctools", 5, 10, 10, 1 * PRESET_S, 1 * PRESET_S, 0, "1,1", 132000, 0,
	 "^Queue(ThroughputBackoffNone|BurstCost|RoundTripLatency)\\.",
	 "JCTools' benchmarks with JCTools' settings: JMH's 5 forks, "
	 "@Warmup/@Measurement(iterations = 10, time = 1 s), qCapacity 132000 "
	 "(rounded up by each queue), -tg 1,1",
	 NULL},
	{"mpmc", 1, 2, 20, 200 * PRESET_MS, 200 * PRESET_MS, 0, "1,1 2,2", 131072,
	 CB_MPMC, TPT_ONLY, "MPMC queues (and the mutex floor) at -tg 1,1 and 2,2",
	 NULL},
	{"mpsc", 1, 2, 20, 200 * PRESET_MS, 200 * PRESET_MS, 0, "1,1 2,1", 131072,
	 CB_MPSC, TPT_ONLY, "MPSC queues at -tg 1,1 and 2,1", NULL},
	{"spmc", 1, 2, 20, 200 * PRESET_MS, 200 * PRESET_MS, 0, "1,1 1,2", 131072,
	 CB_SPMC, TPT_ONLY, "SPMC queues at -tg 1,1 and 1,2", NULL},
	{"slowside", 1, 2, 10, 200 * PRESET_MS, 200 * PRESET_MS, 0, "1,1",
	 131072, CB_ALL_CONTRACTS, "^QueueThroughputSlowSide\\.",
	 "every queue at -tg 1,1 with the consumer slowed (the producer spins "
	 "on a full queue), then the producer slowed (the consumer spins on "
	 "an empty one): what failed calls cost the other side",
	 NULL},
	{"value", 1, 2, 10, 100 * PRESET_MS, 200 * PRESET_MS, 0, "1,1", 131072,
	 CB_ALL_CONTRACTS, "^QueueValueThroughput\\.",
	 "issue 14's targets: conq:spsc_value and conq:spsc_array, "
	 "conq:mpsc_value_claim and dpdk:rte_ring_mpsc_elem, interleaved, at "
	 "elemSize 4, 8 and 64, -tg 1,1; prints the ratios and the verdicts",
	 VALUE_QTYPES},
	{"extras", 1, 2, 10, 100 * PRESET_MS, 200 * PRESET_MS, 0, "1,1", 131072,
	 CB_ALL_CONTRACTS, "^(Uuid|Refcount)\\.",
	 "issue 15's targets: conq:uuid_v4, conq:uuid_v7, the clock read and "
	 "libuuid at 1, 2 (and max) threads; every count of Refcount.cycle and "
	 ".shared; prints the ratios and the verdicts (about 45 s)",
	 EXTRAS_UTYPES},
	{"pool", 1, 2, 8, 200 * PRESET_MS, 500 * PRESET_MS, 0, "1,1", 131072,
	 CB_ALL_CONTRACTS, "^Pool\\.",
	 "issue 16's targets: every pool (conq_pool and its naive wake "
	 "policy, GLib's, libuv's, a mutex pool, the spinning ceiling) "
	 "interleaved, Pool.burst (bursts of 100000 tasks) and Pool.sparse (a "
	 "task every 200 us) at 1 submitter and 2 workers; prints the tables, "
	 "the ratios and the verdicts (about 70 s)",
	 POOL_PARAMS},
	{"uuid", 1, 2, 10, 100 * PRESET_MS, 200 * PRESET_MS, 0, "1,1", 131072,
	 CB_ALL_CONTRACTS, "^Uuid\\.",
	 "every UUID generator at 1, 2 (and max) threads, interleaved; the "
	 "ratios and issue 15's UUID targets",
	 NULL},
	{"refcount", 1, 2, 10, 100 * PRESET_MS, 200 * PRESET_MS, 0, "1,1", 131072,
	 CB_ALL_CONTRACTS, "^Refcount\\.",
	 "every count, Refcount.cycle and .shared, interleaved; the ratios and "
	 "issue 15's refcount targets",
	 NULL},
};

void cb_usage(FILE *f)
{
	fprintf(f,
		"usage: conq-bench [options] [REGEX ...]\n"
		"       conq-bench compare [--alpha P] [--threshold PCT] OLD.json "
		"NEW.json\n"
		"  REGEX                benchmarks to run (POSIX ERE over "
		"\"Benchmark.group\"; default: all)\n"
		"Selection\n"
		"  -l                   list benchmarks (modes, parameters) and "
		"queue adapters\n"
		"  --list-peers         peer libraries: compiled in, missing "
		"(with the package to install)\n"
		"  -p qType=A,B,...     queues to run (names or globs, e.g. "
		"'conq:*'; default: the preset's)\n"
		"  -p NAME=V1,V2,...    a benchmark parameter (qCapacity, or one "
		"that -l lists); repeat -p\n"
		"                       for several: the run is their cross "
		"product (as JMH), qType apart:\n"
		"                       the queues of one point run interleaved "
		"in one process\n"
		"Run control\n"
		"  --preset NAME        quick (default, `make bench`) | smoke | "
		"default | jctools | mpmc |\n"
		"                       mpsc | spmc | slowside | value | extras | "
		"pool | uuid | refcount\n"
		"                       (below);"
		" explicit options override the preset's\n"
		"  -f N                 forks: each point runs in N fresh "
		"processes, one after the other, and\n"
		"                       their iterations are merged (0: in this "
		"process)\n"
		"  -wi N  -w TIME       warmup iterations / time each "
		"(TIME: 100ns 50us 250ms 1s 2m)\n"
		"  -i N   -r TIME       measurement iterations / time each\n"
		"  -to TIME             an iteration stuck this long fails the "
		"trial; a fork silent this long\n"
		"                       (plus the iteration time) is killed and "
		"reported TIMEOUT (default 30s; smoke: 10s)\n"
		"  -bm MODE[,MODE]      thrpt | avgt | sample | ss (JMH's); "
		"default: each benchmark's own\n"
		"  -t N[,N...]          threads (JMH's -t; N or max: the CPUs "
		"allowed) of the benchmarks\n"
		"                       that have a threads parameter (Uuid, "
		"Refcount.shared): -p threads=...\n"
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
		"Output\n"
		"  -rf FMT[,FMT]        also write the results as text | csv | "
		"json (JMH's result JSON)\n"
		"  -rff FILE            to FILE (one format; alone: csv, "
		"JMH's default; default\n"
		"                       file: conq-bench-result.<fmt>)\n"
		"  --plot DIR           write gnuplot data and scripts to DIR, and "
		"render PNG and SVG if\n"
		"                       gnuplot is installed\n"
		"Other\n"
		"  --self-test[=PART]   the harness's unit tests (stats, cli, "
		"json; default: all)\n"
		"  -h, --help           this help\n"
		"Exit status: 0 ok; 1 an invariant violated; 2 usage error or "
		"nothing to run; 3 a trial\n"
		"timed out (hung); 4 a trial failed (its process died or it could "
		"not start).\n"
		"Presets:\n");
	for (size_t k = 0; k < sizeof presets / sizeof presets[0]; k++) {
		char w[32], r[32];
		fprintf(f,
			"  %-7s -f %d -wi %d -w %s -i %d -r %s%s, -tg %s, "
			"qCapacity %zu%s%s%s%s\n          %s\n",
			presets[k].name, presets[k].forks, presets[k].wi,
			cb_fmt_time(presets[k].w_ns, w, sizeof w), presets[k].i,
			cb_fmt_time(presets[k].r_ns, r, sizeof r),
			presets[k].check ? " --check" : "", presets[k].tg,
			presets[k].capacity,
			presets[k].include ? ", REGEX " : "",
			presets[k].include ? presets[k].include : "",
			presets[k].params ? ", -p " : "",
			presets[k].params ? presets[k].params : "",
			presets[k].desc);
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

/* The strings the options point into live until exit: each is kept
 * here (reachable, so no leak checker reports them). */
static void *kept[4 * CB_MAX_LIST + 16];
static size_t nkept;

static void *keep(void *p)
{
	if (p != NULL && nkept < sizeof kept / sizeof kept[0])
		kept[nkept++] = p;
	return p;
}

/* Split a comma list into out[] (pointers into a strdup'd copy). */
static int split_list(const char *s, const char **out, size_t *n)
{
	char *copy = (char *)keep(strdup(s));
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

cb_param_vals *cb_find_param(cb_options *o, const char *name)
{
	for (size_t k = 0; k < o->nparams; k++)
		if (strcmp(o->params[k].name, name) == 0)
			return &o->params[k];
	return NULL;
}

const cb_param_vals *cb_find_param_c(const cb_options *o, const char *name)
{
	for (size_t k = 0; k < o->nparams; k++)
		if (strcmp(o->params[k].name, name) == 0)
			return &o->params[k];
	return NULL;
}

/* A capacity value: a number in [1, 2^31]. */
static int capacity_ok(const char *v, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long c = strtoull(v, &end, 10);
	if (end == v || *end != '\0' || errno != 0 || c == 0 ||
	    c > ((unsigned long long)1 << 31) || v[0] == '-')
		return 0;
	if (out != NULL)
		*out = (size_t)c;
	return 1;
}

/* The threads parameter's values (Uuid, Refcount.shared; -t): each a
 * number in [1, CB_MAX_THREADS] or "max" (the CPUs allowed); 0, or -1
 * after printing an error. */
static int threads_ok(const cb_param_vals *p)
{
	for (size_t k = 0; k < p->nval; k++) {
		const char *v = p->val[k];
		char *end;
		errno = 0;
		unsigned long t = strtoul(v, &end, 10);
		if (strcmp(v, "max") == 0 ||
		    (end != v && *end == '\0' && errno == 0 && v[0] != '-' &&
		     t >= 1 && t <= CB_MAX_THREADS))
			continue;
		fprintf(stderr,
			"conq-bench: threads (-t) wants numbers in [1, %d] or "
			"max, not '%s'\n",
			CB_MAX_THREADS, v);
		return -1;
	}
	return 0;
}

/* Set parameter `name` to the values of the comma list v (replacing any
 * earlier ones). */
static int set_param(cb_options *o, const char *name, const char *v,
		     int given)
{
	cb_param_vals *p = cb_find_param(o, name);
	if (p == NULL) {
		if (o->nparams == CB_MAX_PARAMS) {
			fprintf(stderr, "conq-bench: too many parameters\n");
			return -1;
		}
		p = &o->params[o->nparams++];
		p->name = name;
	}
	p->nval = 0;
	p->given = given;
	if (split_list(v, p->val, &p->nval) != 0 || p->nval == 0) {
		fprintf(stderr, "conq-bench: bad value list '%s' for %s\n", v,
			name);
		return -1;
	}
	for (size_t j = 0; j < p->nval; j++)
		for (size_t k = 0; k < j; k++)
			if (strcmp(p->val[j], p->val[k]) == 0) {
				fprintf(stderr,
					"conq-bench: %s: value '%s' given "
					"twice\n",
					name, p->val[j]);
				return -1;
			}
	return 0;
}

static int parse_param(const char *kv, cb_options *o)
{
	const char *eq = strchr(kv, '=');
	if (eq == NULL || eq == kv) {
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
	char *name = (char *)keep(strndup(kv, klen));
	if (name == NULL)
		return -1;
	for (size_t k = 0; k < klen; k++)
		if (!(isalnum((unsigned char)name[k]) || name[k] == '_' ||
		      name[k] == '.')) {
			fprintf(stderr, "conq-bench: bad parameter name '%s'\n",
				name);
			return -1;
		}
	if (set_param(o, name, v, 1) != 0)
		return -1;
	if (strcmp(name, "threads") == 0 &&
	    threads_ok(cb_find_param(o, name)) != 0)
		return -1;
	if (strcmp(name, "qCapacity") == 0) {
		const cb_param_vals *p = cb_find_param(o, name);
		for (size_t k = 0; k < p->nval; k++)
			if (!capacity_ok(p->val[k], NULL)) {
				fprintf(stderr,
					"conq-bench: qCapacity wants numbers "
					"in [1, 2^31], not '%s'\n",
					p->val[k]);
				return -1;
			}
	}
	return 0;
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

static int parse_rf(const char *s, unsigned *rf)
{
	const char *vals[CB_MAX_LIST];
	size_t nv = 0;
	if (split_list(s, vals, &nv) != 0 || nv == 0)
		goto bad;
	for (size_t k = 0; k < nv; k++) {
		if (strcmp(vals[k], "text") == 0)
			*rf |= CB_RF_TEXT;
		else if (strcmp(vals[k], "csv") == 0)
			*rf |= CB_RF_CSV;
		else if (strcmp(vals[k], "json") == 0)
			*rf |= CB_RF_JSON;
		else
			goto bad;
	}
	return 0;
bad:
	fprintf(stderr, "conq-bench: -rf wants text, csv or json, not '%s'\n",
		s);
	return -1;
}

/* A preset's -p settings ("NAME=V1,V2 NAME=..."), each unless the command
 * line set it; its qTypes without the ones this build lacks. */
static int preset_params(cb_options *o, const char *params)
{
	char *copy = (char *)keep(strdup(params));
	if (copy == NULL)
		return -1;
	char *save = NULL;
	for (char *kv = strtok_r(copy, " ", &save); kv != NULL;
	     kv = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(kv, '=');
		if (eq == NULL)
			return -1;
		*eq = '\0';
		const char *v = eq + 1;
		if (strcmp(kv, "qType") != 0) {
			if (cb_find_param(o, kv) == NULL &&
			    set_param(o, kv, v, 0) != 0)
				return -1;
			continue;
		}
		if (o->nqtype > 0)
			continue;
		const char *vals[CB_MAX_LIST];
		size_t nv = 0;
		if (split_list(v, vals, &nv) != 0)
			return -1;
		for (size_t k = 0; k < nv; k++)
			for (size_t a = 0; a < cb_nadapters; a++)
				if (fnmatch(vals[k], cb_adapters[a]->name,
					    0) == 0) {
					o->qtype[o->nqtype++] = vals[k];
					break;
				}
	}
	return 0;
}

int cb_parse_args(int argc, char **argv, cb_options *o)
{
	memset(o, 0, sizeof *o);
	o->argc = argc;
	o->argv = argv;
	o->forks = -1;
	o->child_point = -1;
	o->child_fd = -1;
	o->preset = "quick";
	o->wi = o->i = -1;
	o->check = -1;
	o->rotate = 1;
	o->timeout_ns = 0; /* the preset's, below */
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
		} else if (strncmp(a, "--self-test=", 12) == 0) {
			o->selftest = 1;
			o->selftest_only = a + 12;
		} else if (strcmp(a, "--test-workloads") == 0) {
			o->test_workloads = 1;
		} else if (strcmp(a, "-f") == 0) {
			NEED_ARG;
			if (parse_count(a, arg, &o->forks) != 0)
				return 2;
			if (o->forks > CB_MAX_FORKS) {
				fprintf(stderr, "conq-bench: -f: at most %d\n",
					CB_MAX_FORKS);
				return 2;
			}
		} else if (strcmp(a, "-bm") == 0) {
			NEED_ARG;
			if (cb_parse_modes(arg, &o->modes) != 0) {
				fprintf(stderr,
					"conq-bench: -bm wants thrpt, avgt, "
					"sample or ss (comma-separated), not "
					"'%s'\n",
					arg);
				return 2;
			}
		} else if (strcmp(a, "-rf") == 0) {
			NEED_ARG;
			if (parse_rf(arg, &o->rf) != 0)
				return 2;
		} else if (strcmp(a, "-rff") == 0) {
			NEED_ARG;
			o->rff = arg;
		} else if (strcmp(a, "--plot") == 0) {
			NEED_ARG;
			o->plot_dir = arg;
		} else if (strcmp(a, "--fork-child") == 0) {
			NEED_ARG;
			int v;
			if (parse_count(a, arg, &v) != 0)
				return 2;
			o->child_point = v;
		} else if (strcmp(a, "--fork-fd") == 0) {
			NEED_ARG;
			if (parse_count(a, arg, &o->child_fd) != 0)
				return 2;
		} else if (strcmp(a, "--progress-at") == 0) {
			NEED_ARG;
			if (cb_progress_parse(o, arg) != 0)
				return 2;
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
		} else if (strcmp(a, "-t") == 0) {
			/* JMH's thread count: the threads parameter. */
			NEED_ARG;
			if (set_param(o, "threads", arg, 1) != 0 ||
			    threads_ok(cb_find_param(o, "threads")) != 0)
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
			"conq-bench: unknown preset '%s' (quick | smoke | "
			"default | jctools | mpmc | mpsc | spmc | slowside | "
			"value | extras | pool | uuid | refcount)\n",
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
	if (o->ninclude == 0 && p->include != NULL)
		o->include[o->ninclude++] = p->include;
	if (p->params != NULL && preset_params(o, p->params) != 0)
		return 2;
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
	if (o->forks < 0)
		o->forks = p->forks;
	if (o->timeout_ns == 0) /* smoke's iterations are short: so is -to */
		o->timeout_ns = (strcmp(p->name, "smoke") == 0 ? 10 : 30) *
				(uint64_t)CB_NS_PER_S;
	if (o->rff != NULL && o->rf == 0)
		o->rf = CB_RF_CSV; /* JMH's default result format */
	if (o->rff != NULL && (o->rf & (o->rf - 1)) != 0) {
		fprintf(stderr, "conq-bench: -rff names one file: give one -rf "
				"format with it\n");
		return 2;
	}
	if (cb_find_param(o, "qCapacity") == NULL) {
		/* The preset's (quick & co: JCTools' 132000 as a power of 2;
		 * jctools: 132000 itself). */
		char *v = (char *)keep(malloc(24));
		if (v == NULL)
			return 2;
		snprintf(v, 24, "%zu", p->capacity);
		if (set_param(o, "qCapacity", v, 0) != 0)
			return 2;
	}
	/* o->capacity: every qCapacity value (the harness narrows both to
	 * the point's). */
	const cb_param_vals *cp = cb_find_param(o, "qCapacity");
	o->ncapacity = 0;
	for (size_t k = 0; k < cp->nval; k++)
		capacity_ok(cp->val[k], &o->capacity[o->ncapacity++]);
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
		} else {
			cb_selftest_passed++;
		}
	}
	static const char *const bad[] = {"", "x", "1h", "-1s", "1 s"};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		uint64_t ns;
		if (cb_parse_time(bad[k], &ns) == 0) {
			printf("FAIL parse_time(%s) accepted\n", bad[k]);
			fails++;
		} else {
			cb_selftest_passed++;
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
		} else {
			cb_selftest_passed++;
		}
	}
	if (strcmp(cb_fmt_time(250000000u, buf, sizeof buf), "250 ms") != 0 ||
	    strcmp(cb_fmt_time(2000000000u, buf, sizeof buf), "2 s") != 0) {
		printf("FAIL fmt_time\n");
		fails++;
	} else {
		cb_selftest_passed++;
	}
	return fails;
}
