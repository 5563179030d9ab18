/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_harness.c - conq-bench tested from the outside: it runs the binary
 * (argv[1]) in a scratch directory and checks what it writes.
 *
 *  - parameter expansion: the cross product of -p lists and -bm modes, in
 *    JMH's order (modes, then the parameters by name, the last varying
 *    fastest, values as given), each point's exact values (the test
 *    workload HarnessEcho yields a known function of its parameters);
 *  - forks: -f 3 merges three forks' iterations (rawData [3][i]), and the
 *    progress line with its ETA comes once per iteration on stderr;
 *  - JSON: every file parses with the strict parser (json.c) and has JMH's
 *    result shape; CSV has JMH's columns;
 *  - a hanging trial (HarnessHang under -f 1 -to 1s) ends as TIMEOUT with
 *    exit status 3, within seconds;
 *  - --preset smoke on conq's queues: exit 0, and per result the checks
 *    (every element verified, no violation, no reordering, the largest
 *    backlogs within the capacity);
 *  - QueueHandoff (the blocking hand-off): a result per queue with blocking
 *    ends, a latency and CPU per message, no violation; a queue without
 *    blocking ends left out; a bad interval fails the trial;
 *  - -bm ss on QueueBurstCost: one shot per iteration (-i values per fork,
 *    mode "ss", ns/op, all positive, checked), the whole run shorter than
 *    one -r (an ss iteration ends with its shot);
 *  - compare: ratios, verdicts and exit status on files with known data;
 *  - --plot: data and scripts written, rendered when gnuplot is present;
 *  - QueueValueThroughput: conq's value adapters checked (JSON), its report
 *    block and target lines, the elemSize sweep chart, a queue that moves
 *    only part of an element failing as torn, a bad elemSize, the value
 *    preset;
 *  - Uuid and Refcount: contenders and thread counts interleaved in a
 *    fork, their JSON (threads, qType, no violation), ratio and target
 *    lines, the extras preset, usage errors;
 *  - Pool.burst and Pool.sparse: conq:pool alone, then with the ceiling:
 *    their JSON (the pool as qType, the secondary columns, no violation),
 *    the report's tables and target lines, a bad parameter;
 *  - usage errors exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "json.h"

static const char *bench;
static char dir[256];

typedef struct run {
	int status; /* exit status, or 128 + signal */
	double secs;
	char *out, *err;
} run;

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return strdup("");
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = (char *)malloc((size_t)(n > 0 ? n : 0) + 1);
	size_t got = b ? fread(b, 1, (size_t)(n > 0 ? n : 0), f) : 0;
	if (b)
		b[got] = '\0';
	fclose(f);
	return b;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run conq-bench with args (NULL-terminated) in dir. */
static void run_bench(run *r, const char *const *args)
{
	char out[300], err[300];
	snprintf(out, sizeof out, "%s/stdout.txt", dir);
	snprintf(err, sizeof err, "%s/stderr.txt", dir);
	const char *argv[64];
	int n = 0;
	argv[n++] = bench;
	for (int k = 0; args[k] != NULL && n < 63; k++)
		argv[n++] = args[k];
	argv[n] = NULL;
	double t0 = now_s();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fo < 0 || fe < 0 || chdir(dir) != 0)
			_exit(126);
		dup2(fo, 1);
		dup2(fe, 2);
		execv(bench, (char *const *)argv);
		_exit(127);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->secs = now_s() - t0;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->out = slurp(out);
	r->err = slurp(err);
}

/* Run the HarnessEcho test workload: -f forks -wi wi -i i, then the
 * NULL-terminated extra arguments. */
static void run_echo(run *r, const char *forks, const char *wi, const char *i,
		     const char *const *extra)
{
	const char *args[64] = {"--test-workloads", "HarnessEcho", "-f", forks,
				"-wi", wi, "-i", i};
	int n = 8;
	for (int k = 0; extra[k] != NULL && n < 63; k++)
		args[n++] = extra[k];
	args[n] = NULL;
	run_bench(r, args);
}

static void run_free(run *r)
{
	free(r->out);
	free(r->err);
}

static cb_json *load_json(const char *name)
{
	char path[300], err[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	cb_json *j = cb_json_parse_file(path, err, sizeof err);
	if (j == NULL)
		CHECK_FAIL("%s does not parse: %s", name, err);
	return j;
}

static const char *jstr(const cb_json *j, const char *key)
{
	const cb_json *v = cb_json_get(j, key);
	return v && v->type == CB_JSTR ? v->str : "";
}

static size_t count_lines(const char *s, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);
	for (const char *p = s; p && *p;) {
		if (strncmp(p, prefix, len) == 0)
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* JMH's metric shape: score, scoreError, scoreConfidence[2],
 * scorePercentiles with JMH's keys, scoreUnit, rawData [forks][iters]. */
static void check_metric(const cb_json *m, size_t forks, size_t iters)
{
	CHECK_TRUE(m != NULL && m->type == CB_JOBJ);
	if (m == NULL)
		return;
	const cb_json *sc = cb_json_get(m, "score");
	CHECK_TRUE(sc != NULL && sc->type == CB_JNUM);
	const cb_json *er = cb_json_get(m, "scoreError");
	CHECK_TRUE(er != NULL &&
		   (er->type == CB_JNUM ||
		    (er->type == CB_JSTR && strcmp(er->str, "NaN") == 0)));
	const cb_json *ci = cb_json_get(m, "scoreConfidence");
	CHECK_TRUE(ci != NULL && ci->type == CB_JARR && ci->n == 2);
	const cb_json *pc = cb_json_get(m, "scorePercentiles");
	CHECK_TRUE(pc != NULL && pc->type == CB_JOBJ && pc->n == 10 &&
		   cb_json_get(pc, "0.0") && cb_json_get(pc, "50.0") &&
		   cb_json_get(pc, "99.9999") && cb_json_get(pc, "100.0"));
	CHECK_TRUE(strlen(jstr(m, "scoreUnit")) > 0);
	const cb_json *rd = cb_json_get(m, "rawData");
	CHECK_TRUE(rd != NULL && rd->type == CB_JARR && rd->n == forks);
	for (size_t f = 0; rd != NULL && f < rd->n; f++) {
		CHECK_TRUE(rd->kid[f].type == CB_JARR);
		CHECK_EQ(rd->kid[f].n, iters);
		for (size_t i = 0; i < rd->kid[f].n; i++)
			if (rd->kid[f].kid[i].type != CB_JNUM)
				CHECK_FAIL("rawData[%zu][%zu] not a number", f,
					   i);
	}
	/* The score is the mean of the raw data (JMH). */
	double sum = 0;
	size_t n = 0;
	for (size_t f = 0; rd != NULL && f < rd->n; f++)
		for (size_t i = 0; i < rd->kid[f].n; i++, n++)
			sum += rd->kid[f].kid[i].num;
	if (sc != NULL && n > 0)
		CHECK_TRUE(fabs(sc->num - sum / (double)n) <=
			   1e-9 * fabs(sc->num) + 1e-12);
}

static void check_jmh_entry(const cb_json *e, size_t forks, size_t iters)
{
	static const char *const str_keys[] = {
	    "jmhVersion", "benchmark", "mode", "warmupTime", "measurementTime"};
	for (size_t k = 0; k < sizeof str_keys / sizeof str_keys[0]; k++)
		CHECK_TRUE(strlen(jstr(e, str_keys[k])) > 0);
	static const char *const num_keys[] = {
	    "threads", "forks", "warmupIterations", "measurementIterations"};
	for (size_t k = 0; k < sizeof num_keys / sizeof num_keys[0]; k++) {
		const cb_json *v = cb_json_get(e, num_keys[k]);
		CHECK_TRUE(v != NULL && v->type == CB_JNUM);
	}
	const cb_json *p = cb_json_get(e, "params");
	CHECK_TRUE(p != NULL && p->type == CB_JOBJ);
	for (size_t k = 0; p != NULL && k < p->n; k++)
		CHECK_TRUE(p->kid[k].type == CB_JSTR); /* JMH: strings */
	check_metric(cb_json_get(e, "primaryMetric"), forks, iters);
	const cb_json *sm = cb_json_get(e, "secondaryMetrics");
	CHECK_TRUE(sm != NULL && sm->type == CB_JOBJ);
	for (size_t k = 0; sm != NULL && k < sm->n; k++)
		check_metric(&sm->kid[k], forks, iters);
}

static void test_expansion(void)
{
	check_context("expansion");
	run r;
	static const char *const extra[] = {"-p", "alpha=3,1,2", "-p",
					    "beta=z,x", "-bm", "avgt,thrpt",
					    "-rf", "json", "-rff", "echo.json",
					    NULL};
	run_echo(&r, "0", "0", "2", extra);
	CHECK_EQ(r.status, 0);
	cb_json *j = load_json("echo.json");
	CHECK_TRUE(j != NULL && j->type == CB_JARR);
	if (j != NULL && j->type == CB_JARR && CHECK_EQ(j->n, 12)) {
		static const char *const modes[] = {"thrpt", "avgt"};
		static const unsigned alpha[] = {3, 1, 2};
		static const char *const beta[] = {"z", "x"};
		size_t k = 0;
		for (int m = 0; m < 2; m++)
			for (int a = 0; a < 3; a++)
				for (int b = 0; b < 2; b++, k++) {
					const cb_json *e = &j->kid[k];
					const cb_json *p =
					    cb_json_get(e, "params");
					char av[8];
					snprintf(av, sizeof av, "%u", alpha[a]);
					CHECK_TRUE(strcmp(jstr(e, "mode"),
							  modes[m]) == 0);
					CHECK_TRUE(
					    strcmp(jstr(p, "alpha"), av) == 0);
					CHECK_TRUE(strcmp(jstr(p, "beta"),
							  beta[b]) == 0);
					check_jmh_entry(e, 1, 2);
					const cb_json *rd = cb_json_get(
					    cb_json_get(e, "primaryMetric"),
					    "rawData");
					double bv = beta[b][0] == 'x' ? 0 : 2;
					for (size_t i = 0; rd && rd->n == 1 &&
							   i < rd->kid[0].n;
					     i++)
						CHECK_TRUE(
						    rd->kid[0].kid[i].num ==
						    alpha[a] * 1000.0 +
							bv * 100 + (double)i);
				}
	}
	cb_json_free(j);
	/* The text table has a column per parameter. */
	CHECK_TRUE(strstr(r.out, "(alpha)") != NULL &&
		   strstr(r.out, "(beta)") != NULL);
	run_free(&r);
}

static void test_forks(void)
{
	check_context("forks");
	run r;
	static const char *const extra[] = {"-p", "alpha=1", "-p", "beta=y",
					    "-rf", "json", "-rff", "forks.json",
					    NULL};
	run_echo(&r, "3", "1", "2", extra);
	CHECK_EQ(r.status, 0);
	cb_json *j = load_json("forks.json");
	if (j != NULL && j->type == CB_JARR && CHECK_EQ(j->n, 1)) {
		const cb_json *e = &j->kid[0];
		CHECK_EQ(cb_json_number(cb_json_get(e, "forks")), 3);
		check_jmh_entry(e, 3, 2);
		const cb_json *rd =
		    cb_json_get(cb_json_get(e, "primaryMetric"), "rawData");
		for (size_t f = 0; rd && f < rd->n; f++)
			CHECK_TRUE(rd->kid[f].n == 2 &&
				   rd->kid[f].kid[0].num == 1100 &&
				   rd->kid[f].kid[1].num == 1101);
	}
	cb_json_free(j);
	/* Three forks of (1 warmup + 2 measured) iterations: nine status
	 * lines with an ETA, and the parent's fork headers. */
	CHECK_EQ(count_lines(r.err, "# ["), 9);
	CHECK_TRUE(strstr(r.err, "ETA") != NULL);
	CHECK_EQ(count_lines(r.out, "# Fork: "), 3);
	run_free(&r);
}

static void test_csv(void)
{
	check_context("csv");
	run r;
	static const char *const extra[] = {"-rf", "csv", NULL};
	run_echo(&r, "0", "0", "3", extra);
	CHECK_EQ(r.status, 0);
	char path[300];
	snprintf(path, sizeof path, "%s/conq-bench-result.csv", dir);
	char *csv = slurp(path);
	const char *head = "\"Benchmark\",\"Mode\",\"Threads\",\"Samples\","
			   "\"Score\",\"Score Error (99.9%)\",\"Unit\","
			   "\"Param: alpha\",\"Param: beta\"";
	CHECK_TRUE(strncmp(csv, head, strlen(head)) == 0);
	/* 6 points (alpha 1,2 x beta x,y,z), primary + 1 secondary each. */
	CHECK_EQ(count_lines(csv, "\"HarnessEcho.echo\""), 6);
	CHECK_EQ(count_lines(csv, "\"HarnessEcho.echo:iteration\""), 6);
	free(csv);
	run_free(&r);
}

static void test_hang(void)
{
	check_context("hang");
	run r;
	const char *args[] = {"--test-workloads",
			      "HarnessHang",
			      "-f",
			      "1",
			      "-to",
			      "1s",
			      "-wi",
			      "1",
			      "-w",
			      "10ms",
			      "-i",
			      "1",
			      "-r",
			      "10ms",
			      NULL};
	run_bench(&r, args);
	CHECK_EQ(r.status, 3);
	CHECK_TRUE(strstr(r.out, "[!] TIMEOUT: HarnessHang.hang") != NULL);
	CHECK_TRUE(r.secs < 20);
	run_free(&r);
	/* In-process it refuses (it would hang the harness itself). */
	const char *args0[] = {"--test-workloads", "HarnessHang", "-f", "0",
			       NULL};
	run_bench(&r, args0);
	CHECK_EQ(r.status, 2);
	run_free(&r);
}

static void test_smoke(void)
{
	check_context("smoke");
	run r;
	const char *args[] = {"--preset",
			      "smoke",
			      "-p",
			      "qType=conq:*",
			      "-rf",
			      "json",
			      "-rff",
			      "smoke.json",
			      "QueueThroughputBackoffNone",
			      NULL};
	run_bench(&r, args);
	CHECK_EQ(r.status, 0);
	CHECK_TRUE(strstr(r.out, "--check") != NULL);
	cb_json *j = load_json("smoke.json");
	/* conq's queues at the shapes their contracts allow among 1,1 2,1
	 * 1,2 2,2: the 4 arrays 4 + 2 + 2 + 1, the 3 SPSC linked arrays and
	 * spsc_linked 1 each, the 3 MPSC linked arrays, mpsc_linked,
	 * mpsc_intrusive and mpsc_xadd 2 each, mpmc_xadd 4. */
	if (j != NULL && j->type == CB_JARR &&
	    CHECK_EQ(j->n, 9 + 4 + 6 * 2 + 4)) {
		for (size_t k = 0; k < j->n; k++) {
			const cb_json *e = &j->kid[k];
			check_context("smoke %s %s",
				      jstr(cb_json_get(e, "params"), "qType"),
				      jstr(cb_json_get(e, "params"), "tg"));
			check_jmh_entry(e, 1, 2);
			const cb_json *cb = cb_json_get(e, "conqBench");
			const cb_json *ck = cb_json_get(cb, "checks");
			double cap =
			    cb_json_number(cb_json_get(cb, "capacityActual"));
			CHECK_TRUE(cb_json_get(ck, "everyElement") != NULL &&
				   cb_json_get(ck, "everyElement")->type ==
				       CB_JTRUE);
			CHECK_EQ(cb_json_number(cb_json_get(ck, "violations")),
				 0);
			CHECK_EQ(cb_json_number(cb_json_get(ck, "reorders")),
				 0);
			CHECK_TRUE(cap >= 1024);
			CHECK_TRUE(cb_json_number(
				       cb_json_get(ck, "maxDrained")) <= cap);
			CHECK_TRUE(cb_json_number(cb_json_get(
				       ck, "maxWindowBacklog")) <= cap);
		}
	}
	cb_json_free(j);
	run_free(&r);
}

/* QueueThroughputSlowSide: both slow sides, every queue at the shapes its
 * contract allows, --check; the header's ceiling line per side; a bad
 * slowSide is a usage error. */
static void test_slow_side(void)
{
	check_context("slow side");
	run r;
	const char *args[] = {
	    "QueueThroughputSlowSide", "-p",
	    "qType=conq:spmc_array,conq:mpmc_array,mutex:ring", "-p", "work=50",
	    "-tg", "1,1", "-tg", "1,2", "--check", "-wi", "1", "-w", "10ms",
	    "-i", "2", "-r", "20ms", "-rf", "json", "-rff", "slow.json", NULL};
	run_bench(&r, args);
	CHECK_EQ(r.status, 0);
	CHECK_TRUE(
	    strstr(r.out, "# Slow side: every consumer does 50 tokens") !=
	    NULL);
	CHECK_TRUE(
	    strstr(r.out, "# Slow side: every producer does 50 tokens") !=
	    NULL);
	cb_json *j = load_json("slow.json");
	/* 3 queues x 2 shapes x 2 sides. */
	if (j != NULL && j->type == CB_JARR && CHECK_EQ(j->n, 12)) {
		size_t poll = 0, offer = 0;
		for (size_t k = 0; k < j->n; k++) {
			const cb_json *e = &j->kid[k];
			const char *side =
			    jstr(cb_json_get(e, "params"), "slowSide");
			check_context("slow side %s %s %s",
				      jstr(cb_json_get(e, "params"), "qType"),
				      jstr(cb_json_get(e, "params"), "tg"),
				      side);
			check_jmh_entry(e, 1, 2);
			CHECK_TRUE(strcmp(jstr(e, "benchmark"),
					  "QueueThroughputSlowSide.tpt") == 0);
			CHECK_TRUE(
			    strcmp(jstr(cb_json_get(e, "params"), "work"),
				   "50") == 0);
			poll += strcmp(side, "poll") == 0;
			offer += strcmp(side, "offer") == 0;
			const cb_json *ck =
			    cb_json_get(cb_json_get(e, "conqBench"), "checks");
			CHECK_EQ(cb_json_number(cb_json_get(ck, "violations")),
				 0);
		}
		CHECK_EQ(poll, 6);
		CHECK_EQ(offer, 6);
	}
	cb_json_free(j);
	run_free(&r);
	const char *bad[] = {"QueueThroughputSlowSide",
			     "-p",
			     "qType=mutex:ring",
			     "-p",
			     "slowSide=both",
			     "-i",
			     "1",
			     "-wi",
			     "0",
			     "-r",
			     "10ms",
			     "-f",
			     "0",
			     NULL};
	run_bench(&r, bad);
	CHECK_TRUE(r.status != 0);
	CHECK_TRUE(strstr(r.err, "slowSide is poll or offer") != NULL);
	run_free(&r);
}

static void test_single_shot(void)
{
	check_context("single shot");
	run r;
	const char *args[] = {"burst", "-bm", "ss", "-p",
			      "qType=conq:spsc_array", "-p", "burstSize=10",
			      "--check", "-f", "2", "-wi", "1", "-i", "5",
			      "-w", "5s", "-r", "5s", "-rf", "json", "-rff",
			      "ss.json", NULL};
	run_bench(&r, args);
	CHECK_EQ(r.status, 0);
	/* 2 forks x 6 shots: had an iteration slept out -r, 60 s. */
	CHECK_TRUE(r.secs < 5);
	CHECK_TRUE(strstr(r.out, "single-shot each") != NULL);
	cb_json *j = load_json("ss.json");
	if (j != NULL && j->type == CB_JARR && CHECK_EQ(j->n, 1)) {
		const cb_json *e = &j->kid[0];
		check_jmh_entry(e, 2, 5);
		CHECK_TRUE(strcmp(jstr(e, "mode"), "ss") == 0);
		const cb_json *pm = cb_json_get(e, "primaryMetric");
		CHECK_TRUE(strcmp(jstr(pm, "scoreUnit"), "ns/op") == 0);
		const cb_json *rd = cb_json_get(pm, "rawData");
		for (size_t f = 0; rd != NULL && f < rd->n; f++)
			for (size_t i = 0; i < rd->kid[f].n; i++)
				if (!(rd->kid[f].kid[i].num > 0))
					CHECK_FAIL("rawData[%zu][%zu] = %g", f,
						   i, rd->kid[f].kid[i].num);
		const cb_json *ck =
		    cb_json_get(cb_json_get(e, "conqBench"), "checks");
		CHECK_TRUE(cb_json_get(ck, "everyElement") != NULL &&
			   cb_json_get(ck, "everyElement")->type == CB_JTRUE);
		CHECK_EQ(cb_json_number(cb_json_get(ck, "violations")), 0);
	}
	cb_json_free(j);
	run_free(&r);
}

/* QueueHandoff: conq's blocking ends against the mutex+condvar floor; a
 * score and a latency per message, CPU accounted, no violation (FIFO,
 * nothing lost); a queue without blocking ends is left out, saying so, and
 * a bad interval fails the trial. */
static void test_handoff(void)
{
	check_context("handoff");
	run r;
	const char *args[] = {
	    "QueueHandoff", "-p",
	    "qType=conq:spsc_array,conq:mpmc_xadd,conq:mpsc_intrusive,"
	    "mutex:condvar",
	    "-p", "intervalUs=200", "-wi", "1", "-w", "20ms", "-i", "2", "-r",
	    "50ms", "-rf", "json", "-rff", "handoff.json", NULL};
	run_bench(&r, args);
	CHECK_EQ(r.status, 0);
	CHECK_TRUE(strstr(r.out, "conq:mpsc_intrusive has no blocking ends") !=
		   NULL);
	cb_json *j = load_json("handoff.json");
	if (j != NULL && j->type == CB_JARR && CHECK_EQ(j->n, 3)) {
		for (size_t k = 0; k < j->n; k++) {
			const cb_json *e = &j->kid[k];
			check_context("handoff %s",
				      jstr(cb_json_get(e, "params"), "qType"));
			check_jmh_entry(e, 1, 2);
			const cb_json *pm = cb_json_get(e, "primaryMetric");
			CHECK_TRUE(strcmp(jstr(pm, "scoreUnit"), "ns") == 0);
			/* a latency: more than nothing, less than the
			 * 1 ms take_until deadline plus an interval */
			double sc = cb_json_number(cb_json_get(pm, "score"));
			CHECK_TRUE(sc > 0 && sc < 1e7);
			const cb_json *sm = cb_json_get(e, "secondaryMetrics");
			double cpu = cb_json_number(cb_json_get(
			    cb_json_get(sm, "cpuPerMsg"), "score"));
			CHECK_TRUE(cpu > 0);
			CHECK_TRUE(cb_json_get(sm, "sleepsPerMsg") != NULL);
			const cb_json *ck =
			    cb_json_get(cb_json_get(e, "conqBench"), "checks");
			CHECK_EQ(cb_json_number(cb_json_get(ck, "violations")),
				 0);
		}
	}
	cb_json_free(j);
	run_free(&r);
	const char *bad[] = {"QueueHandoff", "-p", "qType=conq:spsc_array",
			     "-p", "intervalUs=0", NULL};
	run_bench(&r, bad);
	CHECK_EQ(r.status, 4); /* the fork's usage error: a failed trial */
	CHECK_TRUE(strstr(r.err, "intervalUs in [1, 1000000]") != NULL);
	run_free(&r);
	const char *none[] = {"QueueHandoff", "-p",
			      "qType=conq:mpsc_intrusive", NULL};
	run_bench(&r, none);
	CHECK_EQ(r.status, 4);
	CHECK_TRUE(strstr(r.err, "no selected queue has blocking ends") !=
		   NULL);
	run_free(&r);
}

static int write_file(const char *name, const char *text)
{
	char path[300];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* A one-entry JMH result with rawData base * (1 + 0.01 * (i % 3 - 1)). */
static void jmh_file(const char *name, double base, const char *unit)
{
	char buf[4096];
	size_t n = (size_t)snprintf(
	    buf, sizeof buf,
	    "[{\"jmhVersion\":\"1.37\",\"benchmark\":\"B.x\",\"mode\":"
	    "\"thrpt\",\"threads\":1,\"forks\":1,\"params\":{\"qType\":"
	    "\"q\"},\"primaryMetric\":{\"score\":%g,\"scoreUnit\":\"%s\","
	    "\"rawData\":[[",
	    base, unit);
	for (int i = 0; i < 12; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%g",
				      i ? "," : "",
				      base * (1 + 0.01 * (i % 3 - 1)));
	snprintf(buf + n, sizeof buf - n, "]]},\"secondaryMetrics\":{}}]\n");
	CHECK_EQ(write_file(name, buf), 0);
}

static void test_compare(void)
{
	check_context("compare");
	jmh_file("old.json", 100, "ops/us");
	jmh_file("up.json", 120, "ops/us");
	jmh_file("down.json", 80, "ops/us");
	jmh_file("same.json", 100.2, "ops/us");
	jmh_file("slower.json", 120, "ns/op");
	jmh_file("base_ns.json", 100, "ns/op");
	CHECK_EQ(write_file("bad.json", "[{\"benchmark\":1,]"), 0);
	struct {
		const char *a, *b;
		int status;
		const char *verdict;
	} cases[] = {{"old.json", "up.json", 0, "BETTER"},
		     {"old.json", "down.json", 1, "WORSE"},
		     {"old.json", "same.json", 0, "same"},
		     {"base_ns.json", "slower.json", 1, "WORSE"},
		     {"slower.json", "base_ns.json", 0, "BETTER"},
		     {"old.json", "bad.json", 2, NULL},
		     {"old.json", "forks.json", 2, NULL}};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		check_context("compare %s %s", cases[k].a, cases[k].b);
		run r;
		const char *args[] = {"compare", cases[k].a, cases[k].b, NULL};
		run_bench(&r, args);
		CHECK_EQ(r.status, cases[k].status);
		if (cases[k].verdict != NULL)
			CHECK_TRUE(strstr(r.out, cases[k].verdict) != NULL);
		run_free(&r);
	}
	run r;
	const char *args[] = {"compare", "old.json", "up.json", NULL};
	run_bench(&r, args);
	CHECK_TRUE(strstr(r.out, "1.200x") != NULL);
	CHECK_TRUE(strstr(r.out, "+20.00%") != NULL);
	run_free(&r);
}

/* Whether file base.ext (relative to the scratch directory) exists and is
 * not empty. */
static int exists_ext(const char *base, const char *ext)
{
	char path[600];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s.%s", dir, base, ext);
	return stat(path, &st) == 0 && st.st_size > 0;
}

static void test_plot(void)
{
	check_context("plot");
	run r;
	static const char *const extra[] = {"-p", "alpha=1", "-p", "beta=x",
					    "--plot", "plots", NULL};
	run_echo(&r, "0", "0", "3", extra);
	CHECK_EQ(r.status, 0);
	const char *base = "plots/HarnessEcho.echo_thrpt_tg1-1_alpha_1_beta_x";
	CHECK_TRUE(exists_ext(base, "dat"));
	CHECK_TRUE(exists_ext(base, "gp"));
	int gp = access("/usr/bin/gnuplot", X_OK) == 0 ||
		 access("/usr/local/bin/gnuplot", X_OK) == 0;
	if (gp) {
		CHECK_TRUE(exists_ext(base, "png"));
		CHECK_TRUE(exists_ext(base, "svg"));
		CHECK_TRUE(strstr(r.out, "rendered to PNG and SVG") != NULL);
	} else {
		CHECK_TRUE(strstr(r.out, "not rendered") != NULL);
	}
	run_free(&r);
}

/* Occurrences of needle in hay. */
static size_t count_str(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* QueueValueThroughput: conq's value adapters at 1,1 and 2,2 with 4-byte
 * elements (the sequence mod 2^26) and --check, every result's checks read
 * back from its JSON; the value block and the targets' lines of the text
 * report; the elemSize sweep of --plot; a queue that moves only the first
 * word of a 64-byte element fails as torn (exit 1); a size the loops were
 * not built for is a usage error; the value preset's target lines. */
static void test_value(void)
{
	check_context("value");
	run r;
	const char *args[] = {"QueueValueThroughput", "-tg", "1,1", "-tg",
			      "2,2", "-p", "qType=conq:*", "-p", "elemSize=4",
			      "-p", "qCapacity=1024", "--check", "-wi", "1",
			      "-i", "2", "-w", "10ms", "-r", "20ms", "-rf",
			      "json", "-rff", "value.json", NULL};
	run_bench(&r, args);
	CHECK_EQ(r.status, 0);
	cb_json *j = load_json("value.json");
	/* At 1,1 every contract's 4 (array, array_pool, value,
	 * value_claim); at 2,2 the MPMC ones. */
	if (j != NULL && j->type == CB_JARR && CHECK_EQ(j->n, 16 + 4)) {
		for (size_t k = 0; k < j->n; k++) {
			const cb_json *e = &j->kid[k];
			check_context("value %s %s",
				      jstr(cb_json_get(e, "params"), "qType"),
				      jstr(cb_json_get(e, "params"), "tg"));
			check_jmh_entry(e, 1, 2);
			CHECK_TRUE(strcmp(jstr(cb_json_get(e, "params"),
					       "elemSize"),
					  "4") == 0);
			const cb_json *cb = cb_json_get(e, "conqBench");
			const cb_json *ck = cb_json_get(cb, "checks");
			double cap =
			    cb_json_number(cb_json_get(cb, "capacityActual"));
			CHECK_TRUE(cb_json_get(ck, "everyElement") != NULL &&
				   cb_json_get(ck, "everyElement")->type ==
				       CB_JTRUE);
			CHECK_EQ(cb_json_number(cb_json_get(ck, "violations")),
				 0);
			CHECK_TRUE(cb_json_number(
				       cb_json_get(ck, "maxDrained")) <= cap);
		}
	}
	cb_json_free(j);
	check_context("value report");
	CHECK_TRUE(strstr(r.out, "QueueValueThroughput: pollsMade") != NULL);
	CHECK_EQ(count_str(r.out, "conq:spsc_value / conq:spsc_array >= 1.6x"),
		 1);
	run_free(&r);

	check_context("value sweep");
	const char *sweep[] = {"QueueValueThroughput", "-p",
			       "qType=conq:spsc_value,conq:spsc_array", "-p",
			       "elemSize=8,16", "-p", "qCapacity=1024", "-wi",
			       "0", "-i", "2", "-w", "10ms", "-r", "10ms",
			       "--plot", "vplots", NULL};
	run_bench(&r, sweep);
	CHECK_EQ(r.status, 0);
	CHECK_TRUE(exists_ext("vplots/QueueValueThroughput.tpt_thrpt_tg1-1_"
			      "qCapacity_1024_sweep_elemSize",
			      "dat"));
	CHECK_TRUE(exists_ext("vplots/QueueValueThroughput.tpt_thrpt_tg1-1_"
			      "elemSize_16_qCapacity_1024",
			      "gp"));
	run_free(&r);

	check_context("value torn");
	const char *torn[] = {"QueueValueThroughput", "-p",
			      "qType=test:value_first_word", "-p",
			      "elemSize=64", "-p", "qCapacity=1024", "-wi",
			      "0", "-i", "2", "-w", "10ms", "-r", "10ms",
			      NULL};
	run_bench(&r, torn);
	CHECK_EQ(r.status, 1);
	CHECK_TRUE(strstr(r.err, "torn") != NULL);
	run_free(&r);

	check_context("value bad size");
	const char *bad[] = {"QueueValueThroughput", "-p", "elemSize=12",
			     "-wi", "0", "-i", "1", "-f", "0", NULL};
	run_bench(&r, bad);
	CHECK_EQ(r.status, 2);
	CHECK_TRUE(strstr(r.err, "elemSize 12") != NULL);
	run_free(&r);

	check_context("value preset");
	const char *pre[] = {"--preset", "value", "-wi", "0", "-i", "1",
			     "-r", "10ms", "-p", "qCapacity=1024", NULL};
	run_bench(&r, pre);
	CHECK_EQ(r.status, 0);
	CHECK_TRUE(strstr(r.out, "Issue 14's targets") != NULL);
	CHECK_EQ(count_str(r.out, "conq:spsc_value / conq:spsc_array >= "), 2);
	run_free(&r);
}

/* Uuid and Refcount (issue 15): some of conq's generators and counts with
 * baselines, at 1 and 2 threads interleaved in one fork (the results come
 * back over the pipe with their threads parameter), every result in the
 * JSON with its contender as qType and no violation; the report's ratio
 * and target lines; the extras preset's target lines; a uType this build
 * lacks, or a bad -t, is a usage error. */
static void test_extras(void)
{
	check_context("extras");
	run r;
	const char *args[] = {
	    "Uuid|Refcount", "-p",
	    "uType=conq:uuid_v4,conq:uuid_v7,baseline:clock_realtime", "-p",
	    "rType=conq:refcount,baseline:*", "-t", "1,2", "-f", "1", "-wi",
	    "0", "-i", "2", "-r", "10ms", "-rf", "json", "-rff", "extras.json",
	    NULL};
	run_bench(&r, args);
	CHECK_EQ(r.status, 0);
	cb_json *j = load_json("extras.json");
	/* Uuid.gen 3 x 2 thread counts, Refcount.cycle 4 (one thread),
	 * Refcount.shared 4 x 2. */
	if (j != NULL && j->type == CB_JARR && CHECK_EQ(j->n, 6 + 4 + 8)) {
		for (size_t k = 0; k < j->n; k++) {
			const cb_json *e = &j->kid[k];
			const cb_json *p = cb_json_get(e, "params");
			const char *bm = jstr(e, "benchmark");
			check_context("extras %s %s threads=%s", bm,
				      jstr(p, "qType"), jstr(p, "threads"));
			check_jmh_entry(e, 1, 2);
			CHECK_TRUE(strncmp(jstr(p, "qType"), "conq:", 5) == 0 ||
				   strncmp(jstr(p, "qType"), "baseline:", 9) ==
				       0);
			double th = cb_json_number(cb_json_get(e, "threads"));
			if (strcmp(bm, "Refcount.cycle") == 0)
				CHECK_EQ(th, 1);
			else
				CHECK_EQ(th, atof(jstr(p, "threads")));
			const cb_json *ck =
			    cb_json_get(cb_json_get(e, "conqBench"), "checks");
			CHECK_EQ(cb_json_number(cb_json_get(ck, "violations")),
				 0);
			CHECK_TRUE(cb_json_number(cb_json_get(
				       cb_json_get(e, "primaryMetric"),
				       "score")) > 0);
		}
	}
	cb_json_free(j);
	check_context("extras report");
	CHECK_TRUE(strstr(r.out, "Issue 15's UUID targets") != NULL);
	CHECK_EQ(count_str(r.out, "conq:uuid_v4 threads=2 / threads=1 "), 1);
	CHECK_EQ(count_str(r.out, "conq:uuid_v7 / (baseline:clock_realtime "
				  "+ conq:uuid_v4)"),
		 1);
	CHECK_EQ(count_str(r.out, "Refcount.cycle conq:refcount / "
				  "baseline:seq_cst_init <= 0.85x"),
		 1);
	CHECK_EQ(count_str(r.out, "Refcount.shared threads=2 conq:refcount / "
				  "baseline:unchecked within noise"),
		 1);
	run_free(&r);

	check_context("extras preset");
	const char *pre[] = {"--preset", "extras", "-wi", "0", "-i", "1",
			     "-r",	 "10ms",   "-t",  "1,2", NULL};
	run_bench(&r, pre);
	CHECK_EQ(r.status, 0);
	CHECK_TRUE(strstr(r.out, "Issue 15's UUID targets") != NULL);
	CHECK_TRUE(strstr(r.out, "Issue 15's refcount targets") != NULL);
	run_free(&r);

	check_context("extras usage");
	static const char *const bad[][4] = {{"Uuid", "-p", "uType=nosuch:x", NULL},
					     {"Uuid", "-t", "0", NULL},
					     {"Refcount", "-t", "x", NULL}};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		run_bench(&r, bad[k]);
		check_context("extras usage %s %s", bad[k][1], bad[k][2]);
		CHECK_EQ(r.status, 2);
		run_free(&r);
	}
}

/* Pool.burst and Pool.sparse (issue 16): conq:pool alone, a result of
 * each with its pool as qType, a positive score, its secondary columns and
 * no violation (every task ran once, none lost); the report's tables; with
 * the ceiling too, the target lines; a bad producers count fails the
 * trial. */
static void test_pool(void)
{
	check_context("pool");
	run r;
	const char *args[] = {"Pool", "-p", "poolType=conq:pool", "-p",
			      "burstTasks=2000", "-wi", "1", "-i", "2", "-w",
			      "10ms", "-r", "20ms", "-rf", "json", "-rff",
			      "pool.json", NULL};
	run_bench(&r, args);
	CHECK_EQ(r.status, 0);
	cb_json *j = load_json("pool.json");
	static const char *const burst_sec[] = {
	    "submitNs", "cpuPerTask", "ctxSwitchesPerTask", "poolWakesPerTask"};
	static const char *const sparse_sec[] = {
	    "p99",	  "p99.9",	   "cpuPerTask",   "ctxSwitchesPerTask",
	    "submitLag", "fromSubmitP50", "fromSubmitP99"};
	if (j != NULL && j->type == CB_JARR && CHECK_EQ(j->n, 2)) {
		for (size_t k = 0; k < j->n; k++) {
			const cb_json *e = &j->kid[k];
			const char *bm = jstr(e, "benchmark");
			const int burst = strcmp(bm, "Pool.burst") == 0;
			check_context("pool %s", bm);
			CHECK_TRUE(burst || strcmp(bm, "Pool.sparse") == 0);
			check_jmh_entry(e, 1, 2);
			const cb_json *p = cb_json_get(e, "params");
			CHECK_TRUE(strcmp(jstr(p, "qType"), "conq:pool") == 0);
			CHECK_TRUE(strcmp(jstr(p, "workers"), "2") == 0);
			const cb_json *pm = cb_json_get(e, "primaryMetric");
			CHECK_TRUE(strcmp(jstr(pm, "scoreUnit"),
					  burst ? "ops/us" : "ns") == 0);
			CHECK_TRUE(cb_json_number(cb_json_get(pm, "score")) > 0);
			const cb_json *sm = cb_json_get(e, "secondaryMetrics");
			const char *const *sec = burst ? burst_sec : sparse_sec;
			const size_t nsec =
			    burst ? sizeof burst_sec / sizeof burst_sec[0]
				  : sizeof sparse_sec / sizeof sparse_sec[0];
			for (size_t s = 0; s < nsec; s++)
				if (cb_json_get(sm, sec[s]) == NULL)
					CHECK_FAIL("%s: no %s", bm, sec[s]);
			const cb_json *ck =
			    cb_json_get(cb_json_get(e, "conqBench"), "checks");
			CHECK_EQ(cb_json_number(cb_json_get(ck, "violations")),
				 0);
		}
	}
	cb_json_free(j);
	check_context("pool report");
	CHECK_TRUE(strstr(r.out, "Pool.burst burstTasks=2000 producers=1 "
				 "workers=2: medians") != NULL);
	CHECK_TRUE(strstr(r.out, "Mtasks/s") != NULL);
	CHECK_TRUE(strstr(r.out, "Pool.sparse intervalUs=200 workers=2: "
				 "medians") != NULL);
	CHECK_TRUE(strstr(r.out, "sub50") != NULL);
	run_free(&r);

	check_context("pool targets");
	const char *tg[] = {"Pool.burst", "-p",
			    "poolType=conq:pool,ceiling:*", "-p",
			    "burstTasks=2000", "-wi", "0", "-i", "2", "-r",
			    "10ms", NULL};
	run_bench(&r, tg);
	CHECK_EQ(r.status, 0);
	CHECK_TRUE(strstr(r.out, "Issue 16's targets") != NULL);
	CHECK_EQ(count_str(r.out, "conq:pool / ceiling:spin_mpmc_value, "
				  "tasks/s >= 0.5x: "),
		 1);
	CHECK_EQ(count_str(r.out, "conq:pool futex wakes per task <= 0.01"),
		 1);
	run_free(&r);

	check_context("pool usage");
	const char *bad[] = {"Pool.burst", "-p", "poolType=conq:pool", "-p",
			     "producers=9", NULL};
	run_bench(&r, bad);
	CHECK_EQ(r.status, 4); /* the fork's usage error: a failed trial */
	CHECK_TRUE(strstr(r.err, "producers in [1, 8]") != NULL);
	run_free(&r);
}

static void test_usage(void)
{
	check_context("usage");
	static const char *const bad[][6] = {
	    {"-p", "nosuch=1", NULL},	 {"-bm", "ss", "QueueThroughput", NULL},
	    {"-bm", "fast", NULL},	 {"-f", "x", NULL},
	    {"-rf", "xml", NULL},	 {"-rf", "csv,json", "-rff", "x", NULL},
	    {"-p", "qCapacity=0", NULL}, {"--preset", "nosuch", NULL}};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		run r;
		run_bench(&r, bad[k]);
		check_context("usage %s %s", bad[k][0], bad[k][1]);
		CHECK_EQ(r.status, 2);
		run_free(&r);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_harness PATH/TO/conq-bench\n");
		return 2;
	}
	/* Absolute: the runs chdir into the scratch directory. */
	static char abs_bench[4096];
	if (realpath(argv[1], abs_bench) == NULL) {
		fprintf(stderr, "test_harness: %s: %s\n", argv[1],
			strerror(errno));
		return 2;
	}
	bench = abs_bench;
	if (access(bench, X_OK) != 0) {
		fprintf(stderr, "test_harness: %s: not executable\n", bench);
		return 2;
	}
	snprintf(dir, sizeof dir, "%s/conq-bench-test-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	test_expansion();
	test_forks();
	test_csv();
	test_hang();
	test_smoke();
	test_handoff();
	test_slow_side();
	test_single_shot();
	test_compare();
	test_plot();
	test_value();
	test_extras();
	test_pool();
	test_usage();
	/* Leave the scratch directory for a failed run's post-mortem. */
	if (check_failed() == 0) {
		char cmd[400];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "test_harness: could not remove %s\n",
				dir);
	} else {
		printf("scratch directory kept: %s\n", dir);
	}
	return check_report();
}
