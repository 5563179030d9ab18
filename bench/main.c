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
#include <fnmatch.h>
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

static void list_all(void)
{
	printf("Benchmarks:\n");
	for (size_t k = 0; k < cb_nworkloads; k++) {
		const cb_workload *w = cb_workloads[k];
		printf("  %s.%s  %s %s, Score = %s; roles %s (-tg P,C)\n"
		       "      %s\n"
		       "      params: qType (default: the queues of the "
		       "narrowest contract allowing P,C), qCapacity (default "
		       "131072)\n",
		       w->name, w->group, w->mode, w->unit, w->headline,
		       w->roles, w->desc);
	}
	static const char *const kinds[] = {"own", "peer", "baseline"};
	printf("Queue adapters (qType) compiled in; contract SPSC runs at "
	       "-tg 1,1, MPSC at P,1, SPMC at 1,C, MPMC at any P,C:\n");
	for (size_t k = 0; k < cb_nadapters; k++) {
		const cb_adapter *a = cb_adapters[k];
		printf("  %-24s %-9s %-5s %s\n", a->name, kinds[a->kind],
		       cb_contract_name(a->contract), a->desc);
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
		if (p->status == CB_PEER_IN) {
			printf("  %-17s %-12s", "", "");
			for (size_t a = 0; a < cb_nadapters; a++)
				if (cb_adapters[a]->kind == CB_KIND_PEER &&
				    fnmatch(p->qtypes, cb_adapters[a]->name,
					    0) == 0)
					printf(" %s", cb_adapters[a]->name);
			printf("\n");
		} else if (p->status == CB_PEER_MISSING)
			printf("  %-17s %-12s not found at build time (%s): "
			       "apt-get install %s, then reconfigure\n",
			       "", "", p->needs, p->package);
		else if (p->status == CB_PEER_DISABLED)
			printf("  %-17s %-12s switched off in this build (%s)\n",
			       "", "", p->off ? p->off : "");
		else if (p->status == CB_PEER_PLANNED)
			printf("  %-17s %-12s adapter not written yet (needs "
			       "%s; Debian: %s)\n",
			       "", "", p->needs, p->package);
	}
	printf("Baselines (not queues of a library): ceiling:stream (SPSC), "
	       "mutex:ring (MPMC, the floor): always compiled in.\n");
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

/* Check on the main thread that the CPUs the largest thread group will be
 * pinned to accept us, then put the original mask back; describe the
 * outcome for the header. */
static void affinity_header(const cb_options *o, const cb_env *env,
			    char *out, size_t n)
{
	unsigned most = 2;
	for (size_t k = 0; k < o->ntg; k++)
		if (o->tg_p[k] + o->tg_c[k] > most)
			most = o->tg_p[k] + o->tg_c[k];
	int cpus[CB_MAX_THREADS];
	bool yield;
	unsigned ncpus;
	char desc[160];
	cb_plan_affinity(o, env, most, cpus, &yield, &ncpus, desc, sizeof desc);
	if (cpus[0] < 0) {
		snprintf(out, n, "pinning: %.160s", desc);
		return;
	}
	cpu_set_t orig;
	int ok = sched_getaffinity(0, sizeof orig, &orig) == 0;
	for (unsigned k = 0; k < most && ok; k++)
		ok = cb_pin_self(cpus[k]) == 0;
	sched_setaffinity(0, sizeof orig, &orig);
	snprintf(out, n,
		 "pinning: producers then consumers, round-robin over the "
		 "allowed CPUs (%s)",
		 ok ? "sched_setaffinity ok" : "FAILED");
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
	if (cb_check_qtypes(&o) != 0)
		return 2;

	cb_env env;
	cb_env_probe(&env);
	char aff[200];
	affinity_header(&o, &env, aff, sizeof aff);
	cb_env_print(&env, aff);
	char wt[32], rt[32];
	printf("# Preset: %s, as run: -wi %d -w %s -i %d -r %s -tg", o.preset,
	       o.wi, cb_fmt_time(o.w_ns, wt, sizeof wt), o.i,
	       cb_fmt_time(o.r_ns, rt, sizeof rt));
	for (size_t k = 0; k < o.ntg; k++)
		printf(" %u,%u", o.tg_p[k], o.tg_c[k]);
	printf("%s\n", o.check ? "; --check: every element verified (per-"
				 "producer FIFO order, exactly once)"
			       : "");
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
