/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq-bench: a JMH-like harness for conq's queues and their peers.
 *
 *   main.c         CLI entry: list, self-test, compare, run the plan, report
 *   cli.c          options and presets
 *   plan.c         the plan (JMH's expansion), forks, results over a pipe
 *   output.c       -rf text | csv | json (JMH's result JSON)
 *   json.c         JSON writer helpers and a strict parser
 *   compare.c      conq-bench compare OLD.json NEW.json
 *   plot.c         --plot DIR: gnuplot data, scripts, PNG and SVG
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
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "env.h"
#include "harness.h"
#include "json.h"
#include "plan.h"
#include "plot.h"
#include "report.h"
#include "stats.h"
#include "workload.h"

static void list_all(const cb_options *o)
{
	printf("Benchmarks (-p NAME=V1,V2 overrides a parameter's values; -bm "
	       "picks among the modes):\n");
	for (size_t k = 0; k < cb_nworkloads; k++) {
		const cb_workload *w = cb_workloads[k];
		if (w->test_only && !o->test_workloads)
			continue;
		unsigned m = w->modes;
		printf("  %s.%s  default mode %s (%s), Score = %s; roles %s%s\n"
		       "      %s\n      modes:%s%s%s%s\n",
		       w->name, w->group, w->mode, w->unit, w->headline,
		       w->roles, w->groups ? " (-tg P,C)" : "", w->desc,
		       m == 0 || (m & CB_MODE_THRPT) ? " thrpt" : "",
		       m & CB_MODE_AVGT ? " avgt" : "",
		       m & CB_MODE_SAMPLE ? " sample" : "",
		       m & CB_MODE_SS ? " ss" : "");
		if (w->groups)
			printf("      qType: default: the preset's selection, "
			       "else the queues of the narrowest contract "
			       "allowing P,C\n");
		for (size_t j = 0; j < w->nparams; j++) {
			const cb_param_vals *pv =
				cb_find_param_c(o, w->params[j].name);
			printf("      %s = %s  %s%s", w->params[j].name,
			       w->params[j].defaults, w->params[j].desc,
			       cb_param_is_interleaved(w, w->params[j].name)
				       ? " (interleaved, as qType)"
				       : "");
			if (pv != NULL && pv->nval > 0) {
				printf(" [this run:");
				for (size_t v = 0; v < pv->nval; v++)
					printf("%s%s", v ? "," : " ", pv->val[v]);
				printf("]");
			}
			printf("\n");
		}
		if (w->ncontenders > 0)
			printf("      %s compiled in:\n", w->contender_param);
		for (size_t j = 0; j < w->ncontenders; j++) {
			static const char *const kn[] = {"own", "peer",
							 "baseline"};
			const cb_adapter *a = w->contenders[j];
			printf("        %-30s %-8s %s\n", a->name, kn[a->kind],
			       a->desc);
		}
	}
	static const char *const kinds[] = {"own", "peer", "baseline"};
	printf("Queue adapters (qType) compiled in; contract SPSC runs at "
	       "-tg 1,1, MPSC at P,1, SPMC at 1,C, MPMC at any P,C; "
	       "[values]: QueueValueThroughput only, [+values]: there too:\n");
	for (size_t k = 0; k < cb_nadapters; k++) {
		const cb_adapter *a = cb_adapters[k];
		if (strcmp(a->family, "test") == 0 && !o->test_workloads)
			continue; /* the harness tests' own */
		printf("  %-26s %-9s %-5s %s%s\n", a->name, kinds[a->kind],
		       cb_contract_name(a->contract),
		       a->vloops == NULL ? ""
		       : a->loops == NULL ? "[values] "
					  : "[+values] ",
		       a->desc);
	}
}

/* Is contender c one of a workload before cb_workloads[w]'s too (two
 * benchmarks may share a table: Refcount.cycle and .shared)? */
static int listed_before(size_t w, const cb_adapter *c)
{
	for (size_t v = 0; v < w; v++)
		for (size_t b = 0; b < cb_workloads[v]->ncontenders; b++)
			if (cb_workloads[v]->contenders[b] == c)
				return 1;
	return 0;
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
			/* The contenders of the benchmarks that are not
			 * queues' (Uuid, Refcount), each once. */
			for (size_t w = 0; w < cb_nworkloads; w++)
				for (size_t a = 0;
				     a < cb_workloads[w]->ncontenders; a++) {
					const cb_adapter *c =
					    cb_workloads[w]->contenders[a];
					if (c->kind == CB_KIND_PEER &&
					    !listed_before(w, c) &&
					    fnmatch(p->qtypes, c->name, 0) == 0)
						printf(" %s", c->name);
				}
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
	printf("Baselines (not queues of a library): ceiling:stream and "
	       "ceiling:stream_locked (SPSC), mutex:ring and mutex:condvar "
	       "(MPMC, the floor): always compiled in; so are the Uuid, "
	       "Refcount and Pool baselines (baseline:*, and Pool's "
	       "ceiling:spin_mpmc_value; see -l).\n");
}

/* The run's first line: which peers this build compares against, and, when
 * some are missing, the packages and the command that brings them in. */
static void peers_header(void)
{
	size_t in = 0, miss = 0, off = 0;
	for (size_t k = 0; k < cb_npeers; k++) {
		in += cb_peers[k].status == CB_PEER_IN;
		miss += cb_peers[k].status == CB_PEER_MISSING;
		off += cb_peers[k].status == CB_PEER_DISABLED;
	}
	printf("# Peers: %zu of %zu compiled in", in, cb_npeers);
	if (miss > 0) {
		printf("; MISSING (not found when CMake configured):");
		for (size_t k = 0; k < cb_npeers; k++)
			if (cb_peers[k].status == CB_PEER_MISSING)
				printf(" %s (%s)", cb_peers[k].qtypes,
				       cb_peers[k].package);
		printf("; install: sudo scripts/install-peers.sh, then make "
		       "bench (it finds them)");
	}
	if (off > 0) {
		printf("; switched off in this build:");
		for (size_t k = 0; k < cb_npeers; k++)
			if (cb_peers[k].status == CB_PEER_DISABLED)
				printf(" %s", cb_peers[k].qtypes);
	}
	printf("\n");
}

static int selftest(const char *only)
{
	int fails = 0, parts = 0;
	if (only == NULL || strcmp(only, "stats") == 0) {
		fails += cb_stats_selftest();
		parts++;
	}
	if (only == NULL || strcmp(only, "cli") == 0) {
		fails += cb_cli_selftest();
		parts++;
	}
	if (only == NULL || strcmp(only, "json") == 0) {
		fails += cb_json_selftest();
		parts++;
	}
	if (parts == 0) {
		fprintf(stderr, "conq-bench: --self-test=stats|cli|json\n");
		return 2;
	}
	printf("conq-bench self-test: %u passed, %d failed\n",
	       cb_selftest_passed, fails);
	return fails ? 1 : 0;
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
	if (argc >= 2 && strcmp(argv[1], "compare") == 0)
		return cb_compare_main(argc - 1, argv + 1);
	cb_options o;
	int rc = cb_parse_args(argc, argv, &o);
	if (rc != 0)
		return rc;
	if (o.help) {
		cb_usage(stdout);
		return 0;
	}
	if (o.selftest)
		return selftest(o.selftest_only);
	if (o.list || o.list_peers) {
		if (o.list)
			list_all(&o);
		if (o.list_peers)
			list_peers();
		return 0;
	}
	cb_env env;
	if (o.child_point >= 0) {
		cb_env_probe(&env, 0);
		return cb_child_main(&o, &env);
	}

	/* Reject a qType that matches nothing before printing anything. */
	if (cb_check_qtypes(&o) != 0)
		return 2;
	cb_plan plan;
	rc = cb_plan_build(&o, &plan, 0);
	if (rc != 0)
		return rc;

	peers_header();
	cb_env_probe(&env, 1);
	char aff[200];
	affinity_header(&o, &env, aff, sizeof aff);
	cb_env_print(stdout, &env, aff);
	char wt[32], rt[32], tt[32];
	printf("# Preset: %s, as run: -f %d -wi %d -w %s -i %d -r %s -to %s "
	       "-tg",
	       o.preset, o.forks, o.wi, cb_fmt_time(o.w_ns, wt, sizeof wt), o.i,
	       cb_fmt_time(o.r_ns, rt, sizeof rt),
	       cb_fmt_time(o.timeout_ns, tt, sizeof tt));
	for (size_t k = 0; k < o.ntg; k++)
		printf(" %u,%u", o.tg_p[k], o.tg_c[k]);
	printf("; %zu point%s%s\n", plan.n, plan.n == 1 ? "" : "s",
	       o.check ? "; --check: every element verified (per-producer "
			 "FIFO order, exactly once)"
		       : "");
	fflush(stdout);

	struct cb_progress pr = {0, 0, cb_now_ns(), -1};
	unsigned nf = o.forks > 0 ? (unsigned)o.forks : 1u;
	for (size_t k = 0; k < plan.n; k++)
		pr.total += cb_point_steps(&o, &plan.p[k]) * nf;
	o.progress = &pr;

	cb_results rs;
	memset(&rs, 0, sizeof rs);
	int worst = 0, ran = 0;
	for (size_t k = 0; k < plan.n; k++) {
		int prc = cb_point_run(&o, &env, &plan, k, &rs);
		ran += prc != 2;
		if (prc == 1 && o.forks == 0) {
			worst = 1; /* in-process: a setup failure is fatal */
			break;
		}
		if (prc != 2 && prc > worst)
			worst = prc;
	}
	if (rs.n > 0)
		cb_report_text(stdout, &rs);
	for (size_t k = 0; k < rs.nfail; k++)
		printf("%s[!] %s: %s: %s\n", k == 0 ? "\n" : "",
		       rs.fail[k].timeout ? "TIMEOUT" : "FAILED",
		       rs.fail[k].what, rs.fail[k].why);
	if (cb_write_results(&o, &env, &rs) != 0 && worst == 0)
		worst = 4;
	if (o.plot_dir != NULL && cb_plot(&o, &rs) != 0 && worst == 0)
		worst = 4;
	int timeouts = 0;
	for (size_t k = 0; k < rs.nfail; k++)
		timeouts |= rs.fail[k].timeout;
	if (rs.violations > 0) {
		fprintf(stderr, "conq-bench: %u invariant violation%s\n",
			rs.violations, rs.violations == 1 ? "" : "s");
		rc = 1;
	} else if (timeouts) {
		rc = 3;
	} else if (rs.nfail > 0) {
		rc = 4;
	} else if (ran == 0) {
		fprintf(stderr, "conq-bench: nothing ran\n");
		rc = 2;
	} else {
		rc = worst == 2 ? 0 : worst;
	}
	cb_results_free(&rs);
	cb_plan_free(&plan);
	return rc;
}
