/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * workload.h - the benchmark registry and the results every workload hands
 * to the reporters (text now; JSON/CSV later read the same records).
 */
#ifndef CB_WORKLOAD_H
#define CB_WORKLOAD_H

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

#define CB_MAX_SECONDARY 8

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
} cb_result;

typedef struct cb_results {
	cb_result *r;
	size_t n, cap;
	unsigned violations; /* total; non-zero makes the exit status 1 */
	int oversubscribed;
} cb_results;

cb_result *cb_results_add(cb_results *rs);
void cb_results_free(cb_results *rs);

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

/* The CPUs for `n` threads under o's --affinity (auto: round-robin over the
 * allowed CPUs, thread k on the (k mod allowed)-th); *yield: more threads
 * than CPUs (or two on one CPU); *ncpus: how many CPUs they run on; fills
 * desc. */
void cb_plan_affinity(const cb_options *o, const cb_env *env, unsigned n,
		      int *cpus, bool *yield, unsigned *ncpus, char *desc,
		      size_t desc_len);

#endif /* CB_WORKLOAD_H */
