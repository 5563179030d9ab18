/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq-bench: a JMH-like harness for conq's queues and their peers.
 *
 *   main.c         CLI entry: list, self-test, run the selected workloads
 *   cli.c          options and presets
 *   env.c          machine and build description
 *   harness.c      worker threads, pinning, the per-iteration protocol
 *   loops.h        the measured loops, instantiated per adapter (inlined ops)
 *   adapter_*.c    one file per queue family (conq, peers, baselines)
 *   adapters.c     the adapter registry and the known peers
 *   workloads.c    the workload registry and shared helpers
 *   wl_*.c         one file per workload
 *   stats.c        median, CI (Student t via the incomplete beta)...
 *   report.c       the text table and the ratio block
 */
#include <regex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "env.h"
#include "harness.h"
#include "report.h"
#include "stats.h"
#include "workload.h"

static const char *contract_names(unsigned c, char *buf, size_t n)
{
	static const char *const names[] = {"SPSC", "MPSC", "SPMC", "MPMC"};
	buf[0] = '\0';
	size_t len = 0;
	for (unsigned k = 0; k < 4; k++)
		if (c & (1u << k))
			len += (size_t)snprintf(buf + len, n - len, "%s%s",
						len ? "," : "", names[k]);
	return buf;
}

static void list_all(void)
{
	printf("Benchmarks:\n");
	for (size_t k = 0; k < cb_nworkloads; k++) {
		const cb_workload *w = cb_workloads[k];
		printf("  %s.%s  %s %s, Score = %s; roles %s (-tg 1,1)\n"
		       "      %s\n"
		       "      params: qType (default: all compiled in), "
		       "qCapacity (default 131072)\n",
		       w->name, w->group, w->mode, w->unit, w->headline,
		       w->roles, w->desc);
	}
	static const char *const kinds[] = {"own", "peer", "baseline"};
	printf("Queue adapters (qType) compiled in:\n");
	for (size_t k = 0; k < cb_nadapters; k++) {
		const cb_adapter *a = cb_adapters[k];
		char c[32];
		printf("  %-18s %-9s %-5s %s\n", a->name, kinds[a->kind],
		       contract_names(a->contracts, c, sizeof c), a->desc);
	}
}

static void list_peers(void)
{
	static const char *const st[] = {"compiled in", "MISSING", "planned",
					 "disabled"};
	printf("Peer libraries:\n");
	for (size_t k = 0; k < cb_npeers; k++) {
		const cb_peer *p = &cb_peers[k];
		printf("  %-17s %-12s %s\n", p->qtypes, st[p->status],
		       p->library);
		if (p->status == CB_PEER_MISSING)
			printf("  %-17s %-12s not found at build time (%s): "
			       "apt-get install %s, then reconfigure\n",
			       "", "", p->needs, p->package);
		else if (p->status == CB_PEER_DISABLED)
			printf("  %-17s %-12s switched off in this build "
			       "(CONQ_BENCH_CK=OFF, or a ThreadSanitizer build: "
			       "its asm fences are invisible to TSan)\n",
			       "", "");
		else if (p->status == CB_PEER_PLANNED)
			printf("  %-17s %-12s adapter not written yet (needs "
			       "%s; Debian: %s)\n",
			       "", "", p->needs, p->package);
	}
}

static int selftest(void)
{
	int fails = cb_stats_selftest() + cb_cli_selftest();
	printf("conq-bench self-test: %d failure%s\n", fails,
	       fails == 1 ? "" : "s");
	return fails ? 1 : 0;
}

static int selected(const cb_options *o, const cb_workload *w, int *err)
{
	if (o->ninclude == 0)
		return 1;
	char name[160];
	snprintf(name, sizeof name, "%s.%s", w->name, w->group);
	for (size_t k = 0; k < o->ninclude; k++) {
		regex_t re;
		if (regcomp(&re, o->include[k], REG_EXTENDED | REG_NOSUB) != 0) {
			fprintf(stderr, "conq-bench: bad regex '%s'\n",
				o->include[k]);
			*err = 1;
			return 0;
		}
		int hit = regexec(&re, name, 0, NULL, 0) == 0;
		regfree(&re);
		if (hit)
			return 1;
	}
	return 0;
}

/* Check on the main thread that the planned CPUs accept us, then put the
 * original mask back; describe the outcome for the header. */
static void affinity_header(const cb_options *o, const cb_env *env,
			    char *out, size_t n)
{
	int cpus[2];
	bool yield;
	char desc[160];
	cb_plan_affinity(o, env, 2, cpus, &yield, desc, sizeof desc);
	if (cpus[0] < 0) {
		snprintf(out, n, "pinning: %s", desc);
		return;
	}
	cpu_set_t orig;
	int ok = sched_getaffinity(0, sizeof orig, &orig) == 0;
	for (int k = 0; k < 2 && ok; k++)
		ok = cb_pin_self(cpus[k]) == 0;
	sched_setaffinity(0, sizeof orig, &orig);
	snprintf(out, n, "pinning: producer->cpu%d consumer->cpu%d (%s%s)",
		 cpus[0], cpus[1], ok ? "sched_setaffinity ok" : "FAILED",
		 yield ? ", OVERSUBSCRIBED" : "");
}

int main(int argc, char **argv)
{
	cb_options o;
	int rc = cb_parse_args(argc, argv, &o);
	if (rc != 0)
		return rc;
	if (o.help) {
		cb_usage(stdout);
		return 0;
	}
	if (o.selftest)
		return selftest();
	if (o.list || o.list_peers) {
		if (o.list)
			list_all();
		if (o.list_peers)
			list_peers();
		return 0;
	}

	/* Reject a qType that matches nothing before printing anything. */
	const cb_adapter *ads[CB_MAX_LIST * 4];
	if (cb_select_adapters(&o, CB_SPSC | CB_MPSC | CB_SPMC | CB_MPMC, ads,
			       sizeof ads / sizeof ads[0]) < 0)
		return 2;

	cb_env env;
	cb_env_probe(&env);
	char aff[200];
	affinity_header(&o, &env, aff, sizeof aff);
	cb_env_print(&env, aff);
	printf("# Preset: %s%s\n", o.preset,
	       o.check ? "; --check: FIFO order of every element verified" : "");
	fflush(stdout);

	cb_results rs;
	memset(&rs, 0, sizeof rs);
	int ran = 0, err = 0;
	for (size_t k = 0; k < cb_nworkloads && rc == 0; k++) {
		if (!selected(&o, cb_workloads[k], &err))
			continue;
		ran++;
		rc = cb_workloads[k]->run(cb_workloads[k], &o, &env, &rs);
	}
	if (err)
		rc = 2;
	else if (ran == 0 && rc == 0) {
		fprintf(stderr, "conq-bench: no benchmark matches (see -l)\n");
		rc = 2;
	}
	if (rs.n > 0)
		cb_report_text(stdout, &rs);
	if (rc == 0 && rs.violations > 0) {
		fprintf(stderr, "conq-bench: %u invariant violation%s\n",
			rs.violations, rs.violations == 1 ? "" : "s");
		rc = 1;
	}
	cb_results_free(&rs);
	return rc;
}
