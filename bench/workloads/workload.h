/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * workload.h - the benchmark registry and the results every workload hands
 * to the reporters (text table, CSV, JSON, plots, fork merging).
 *
 * How the harness drives a workload (main.c, plan.c, fork.c):
 *
 *  - It expands the run plan as JMH does: for each selected workload, each
 *    mode (-bm, among those the workload supports), each -tg shape (only if
 *    the workload runs thread groups), and the cross product of the
 *    workload's parameters (params[]: keys in name order, the first varying
 *    slowest, values in the order given). qType is not expanded: all the
 *    selected queues of one point run interleaved in one process.
 *  - For each such point it calls run() once (-f 0: in this process), or
 *    once in each of N fresh processes (-f N), with `o` narrowed to the
 *    point: o->mode is one mode, o->ntg == 1, o->ncapacity == 1 (qCapacity),
 *    and every parameter the workload declares has exactly one value,
 *    read with cb_param() / cb_param_u64().
 *  - After each iteration (never during one) run() calls cb_progress() with
 *    a one-line summary: the harness prints the status line with the ETA,
 *    and in a fork it is also the heartbeat the parent's timeout watches.
 *  - The harness stamps each cb_result that run() added with the point's
 *    parameters (params/nparams), and merges the forks' results.
 */
#ifndef CB_WORKLOAD_H
#define CB_WORKLOAD_H

#include <stdio.h>

#include "adapter.h"
#include "cli.h"
#include "env.h"

/* One metric over the measured iterations, one value per iteration, in
 * iteration (round) order, so that two series of one run pair up by index. */
typedef struct cb_series {
	const char *label; /* "pollsMade" */
	const char *unit;  /* "ops/us" */
	double *v;
	size_t n;
} cb_series;

#define CB_MAX_SECONDARY 12

/* A parameter value of a result: name and value, as strings. */
typedef struct cb_kv {
	const char *name;
	const char *value;
} cb_kv;

/* One trial: a benchmark on one queue with one set of parameters. */
typedef struct cb_result {
	const char *benchmark; /* "QueueThroughputBackoffNone.tpt" */
	const char *mode;      /* "thrpt" */
	const cb_adapter *adapter;
	size_t capacity;        /* qCapacity as requested */
	unsigned producers, consumers; /* -tg P,C */
	size_t capacity_actual; /* what the queue holds */
	cb_series primary;      /* the headline (Score) */
	cb_series secondary[CB_MAX_SECONDARY];
	size_t nsecondary;
	unsigned overruns; /* iterations > 110% of the requested time */
	/* Per measured iteration: 1 if a worker was on its CPU for less than
	 * 95% of it (another process or the hypervisor took the CPU). */
	unsigned char *disturbed;
	unsigned ndisturbed;
	unsigned violations;
	uint64_t reorders; /* elements out of per-producer order, for an
			      adapter with weak_order (else: violations) */
	unsigned starved; /* --check: iterations in which a thread with a CPU
			     of its own made no operation */
	int pinned; /* every worker pinned as planned */
	int oversubscribed; /* more threads than CPUs (failed ops yield) */
	/* Checked invariants, for the reports (JSON "checks"): the largest
	 * backlog left after an iteration (drained single-threaded) and the
	 * most elements the measured windows left in flight (offers made -
	 * polls made, counts), both <= capacity_actual when the queue is
	 * sound; checked: --check accounted for every element. */
	uint64_t max_drained, max_window;
	int checked;
	/* -bm sample: the sampled latencies of the headline role over all
	 * measured iterations (and forks), in hist_unit; NULL otherwise. The
	 * result owns it. */
	struct cb_hist *hist;
	const char *hist_unit; /* "ns" */
	/* Set by the harness: the point's parameters (workload params,
	 * qCapacity included; not qType, which is the adapter), after those
	 * the workload gave the result itself (cb_result_param: its values of
	 * the interleaved parameters), the forks the series came from, and
	 * how many values each fork gave (every series of a result has one
	 * value per measured iteration). */
	cb_kv params[16];
	size_t nparams;
	unsigned forks;
	size_t *fork_len; /* forks entries */
} cb_result;

/* A point (or one fork of it) that produced no result: it hung and was
 * killed, or its process died. */
typedef struct cb_failure {
	char what[256]; /* "QueueThroughputBackoffNone.tpt -tg 1,1 ..." */
	char why[256];
	int timeout; /* 1: TIMEOUT, 0: FAILED */
} cb_failure;

typedef struct cb_results {
	cb_result *r;
	size_t n, cap;
	unsigned violations; /* total; non-zero makes the exit status 1 */
	int oversubscribed;
	cb_failure *fail;
	size_t nfail;
} cb_results;

cb_result *cb_results_add(cb_results *rs);
void cb_results_free(cb_results *rs);
/* Whether a and b have the same parameters (names and values, in order). */
int cb_result_same_params(const cb_result *a, const cb_result *b);
/* Record a point that produced nothing; -1 on ENOMEM. */
int cb_results_fail(cb_results *rs, int timeout, const char *what,
		    const char *why);

/* Benchmark modes, JMH's -bm spellings. */
enum {
	CB_MODE_THRPT = 1u << 0,  /* thrpt: ops per time unit */
	CB_MODE_AVGT = 1u << 1,   /* avgt: time per op */
	CB_MODE_SAMPLE = 1u << 2, /* sample: sampled per-op latencies */
	CB_MODE_SS = 1u << 3,     /* ss: one invocation per iteration */
};
#define CB_ALL_MODES (CB_MODE_THRPT | CB_MODE_AVGT | CB_MODE_SAMPLE | CB_MODE_SS)
/* "thrpt"... for one mode bit; NULL for anything else. */
const char *cb_mode_name(unsigned mode);
/* "thrpt,avgt" -> bits; 0 or -1. */
int cb_parse_modes(const char *s, unsigned *modes);

/* A workload parameter (JMH's @Param): its values when -p does not give
 * them, comma-separated. */
typedef struct cb_param_def {
	const char *name;     /* "burstSize" */
	const char *defaults; /* "1,10,100" */
	const char *desc;     /* one line for -l */
} cb_param_def;

/* The value of parameter `name` at the point being run (the workload must
 * declare it, or it is qCapacity); NULL if it has none. */
const char *cb_param(const cb_options *o, const char *name);
/* The same as a number; 0, or -1 after printing an error. */
int cb_param_u64(const cb_options *o, const char *name, uint64_t *v);

/* After each iteration (warmup or measurement), never during one: `line`
 * says what ran and what it scored ("measure 3/60 -tg 1,1 conq:spsc_array
 * pollsMade 123.4 ops/us"). Prints the status line with the ETA on stderr;
 * in a fork, also tells the parent the trial is alive. */
void cb_progress(const cb_options *o, const char *line);

typedef struct cb_workload cb_workload;
struct cb_workload {
	const char *name;    /* "QueueThroughputBackoffNone" */
	const char *group;   /* "tpt" */
	const char *mode;    /* "thrpt" */
	const char *unit;    /* "ops/us" */
	const char *roles;   /* "offer,poll" */
	const char *headline; /* the Score metric: "pollsMade" */
	const char *desc;
	int (*run)(const cb_workload *wl, const cb_options *o,
		   const cb_env *env, cb_results *rs);
	/* The modes it supports (CB_MODE_*); 0: only `mode`, its default. */
	unsigned modes;
	/* Runs thread groups: the harness expands -tg for it (else o->tg is
	 * the single shape 1,1). */
	bool groups;
	/* Its parameters, besides qType (and qCapacity, if it declares it:
	 * give it as a param to have it expanded); may be NULL. */
	const cb_param_def *params;
	size_t nparams;
	/* Optional: how many iterations (calls of cb_progress) run() will
	 * make at the point `o`, for the ETA; NULL: (wi + i) per queue. */
	size_t (*steps)(const cb_workload *wl, const cb_options *o);
	/* Hidden from -l and not run unless --test-workloads (harness tests). */
	bool test_only;
	/* Runs the adapters with value loops (cb_adapter.vloops, vloops.h;
	 * QueueValueThroughput) instead of those with pointer loops. */
	bool values;
	/* Optional: its own lines in the text report, after the ratios (the
	 * results of every workload are passed: pick yours by benchmark). */
	void (*report)(FILE *f, const cb_results *rs);
	/* Optional: its parameters that are not expanded (their names,
	 * comma-separated), as qType is not: all the values of each run in
	 * one point, interleaved round by round, so that their per-round
	 * ratios compare the same machine states. run() reads them with
	 * cb_param_list(), and gives each result its own value with
	 * cb_result_param() (a column of the table, a JSON param). */
	const char *interleaved;
	/* A benchmark that is not a queue's (Uuid, Refcount): what its
	 * interleaved parameter `contender_param` ("uType") selects, by name
	 * or glob. Each is a cb_adapter for the reports (name, family, kind,
	 * desc; contract 0, no loops: no queue workload runs it), usually
	 * the first member of the workload's own contender struct; a
	 * result's adapter is its contender. -l lists them, --list-peers
	 * lists the peers' among the libraries. */
	const char *contender_param;
	const cb_adapter *const *contenders;
	size_t ncontenders;
};

extern const cb_workload *const cb_workloads[];
extern const size_t cb_nworkloads;

/* Check that every -p qType pattern matches a compiled-in adapter; 0, or -1
 * after printing an error. */
int cb_check_qtypes(const cb_options *o);

/* The adapters to run with p producers and c consumers: those selected by
 * -p qType (in its order) whose contract allows p,c, or without qType as
 * o->sel says (cli.h); at most `max`. The qType matches whose contract does
 * not allow p,c go to skipped[] (at most `max`, *nskipped). Returns how
 * many, or -1 after printing an error. */
int cb_select_adapters(const cb_options *o, unsigned p, unsigned c,
		       const cb_adapter **out, size_t max,
		       const cb_adapter **skipped, size_t *nskipped);
/* The same among the adapters with value loops (cb_workload.values);
 * cb_select_adapters takes those with pointer loops. */
int cb_select_value_adapters(const cb_options *o, unsigned p, unsigned c,
			     const cb_adapter **out, size_t max,
			     const cb_adapter **skipped, size_t *nskipped);

/* Is `name` one of wl's interleaved parameters (cb_workload.interleaved)? */
bool cb_param_is_interleaved(const cb_workload *wl, const char *name);

/* All the values of wl's parameter `name` at the point `o` (an interleaved
 * one keeps every value): from -p or the preset, else the parameter's
 * defaults. At most `max` into out (strings that live until exit); how
 * many. */
size_t cb_param_list(const cb_workload *wl, const cb_options *o,
		     const char *name, const char **out, size_t max);

/* Give result r a parameter of its own (an interleaved parameter's value:
 * "threads" = "2"), before the point's; 0, or -1 (ENOMEM, or 16 already). */
int cb_result_param(cb_result *r, const char *name, const char *value);

/* The contenders of wl (cb_workload.contenders) that its contender_param
 * selects at the point `o`, in the order of its patterns (fnmatch), each
 * once, at most `max`; how many, or -1 after printing an error (a pattern
 * given with -p that matches none; a pattern from a preset or the defaults
 * that matches none is a peer this build lacks, left out); quiet: print
 * nothing. */
int cb_select_contenders(const cb_workload *wl, const cb_options *o,
			 const cb_adapter **out, size_t max, bool quiet);

/* A contender of any workload, by name; NULL if none (the fork pipe's
 * results name their adapter). */
const cb_adapter *cb_contender_by_name(const char *name);

/* QueueValueThroughput's block of the text report (wl_value.c). */
void cb_value_report(FILE *f, const cb_results *rs);

/* The CPUs for `n` threads under o's --affinity (auto: round-robin over the
 * allowed CPUs, thread k on the (k mod allowed)-th); *yield: more threads
 * than CPUs (or two on one CPU); *ncpus: how many CPUs they run on; fills
 * desc. */
void cb_plan_affinity(const cb_options *o, const cb_env *env, unsigned n,
		      int *cpus, bool *yield, unsigned *ncpus, char *desc,
		      size_t desc_len);

#endif /* CB_WORKLOAD_H */
