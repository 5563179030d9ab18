/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * plan.h - the run plan and its execution: the points (workload x mode x
 * -tg shape x the cross product of the workload's parameters, as JMH
 * expands @Param), each run in this process (-f 0) or in N fresh processes
 * (-f N) whose results come back over a pipe and merge as JMH merges forks.
 */
#ifndef CB_PLAN_H
#define CB_PLAN_H

#include "workload.h"

/* One point: everything but qType (the queues of a point run interleaved
 * in one process). */
typedef struct cb_point {
	const cb_workload *wl;
	unsigned mode;
	unsigned tg_p, tg_c;
	const char *name[CB_MAX_PARAMS]; /* the workload's params, by name */
	const char *value[CB_MAX_PARAMS];
	size_t n;
	size_t nqueues; /* queues selected at this shape (0: not a queue
			   workload) */
} cb_point;

typedef struct cb_plan {
	cb_point *p;
	size_t n, cap;
	size_t skipped; /* points no selected queue serves */
} cb_plan;

/* Is workload w selected by o's regexes (and --test-workloads)? -1: bad
 * regex (printed). */
int cb_workload_selected(const cb_options *o, const cb_workload *w);

/* Expand o into plan (quiet: print nothing about skipped points). 0, or 2
 * after printing an error (unknown parameter, mode no workload supports,
 * nothing to run). */
int cb_plan_build(const cb_options *o, cb_plan *plan, int quiet);
void cb_plan_free(cb_plan *plan);

/* o narrowed to point p (see workload.h). */
void cb_point_options(const cb_options *o, const cb_point *p, cb_options *po);

/* "QueueThroughputBackoffNone.tpt thrpt -tg 1,1 qCapacity=131072" */
void cb_point_desc(const cb_point *p, char *buf, size_t n);

/* The iterations (progress steps) of one run of point p. */
size_t cb_point_steps(const cb_options *o, const cb_point *p);

/* Run point k of the plan: in this process if o->forks == 0, else in
 * o->forks child processes one after the other; merge what they report
 * into rs (failures too). Returns 0, or the workload's error (2: nothing
 * could run). */
int cb_point_run(const cb_options *o, const cb_env *env, const cb_plan *plan,
		 size_t k, cb_results *rs);

/* The child's side: run point o->child_point and write its results to
 * o->child_fd. Returns the process's exit status. */
int cb_child_main(const cb_options *o, const cb_env *env);

/* Progress: the parent's counter (done, total, start) for the status line. */
struct cb_progress {
	size_t done, total;
	uint64_t t0;
	int fd; /* a fork child's pipe to the parent (heartbeats), or -1 */
};

/* "--progress-at D,T,T0" (fork children); 0 or -1. */
int cb_progress_parse(cb_options *o, const char *s);

/* Results over the pipe: a line-oriented text form of cb_results (all the
 * fields the reports read, %.17g for doubles). */
int cb_results_write(int fd, const cb_results *rs);
/* Parse what cb_results_write wrote into rs (appended); 0 or -1. Strings
 * are interned (they live until exit). */
int cb_results_read(const char *buf, size_t len, cb_results *rs);

/* Merge src into dst: results of the same benchmark, mode, queue, shape and
 * parameters get src's iterations appended as a further fork; others are
 * moved. src is left empty. 0 or -1 (ENOMEM). */
int cb_results_merge(cb_results *dst, cb_results *src);

/* A string that lives until exit (deduplicated). */
const char *cb_intern(const char *s);

#endif /* CB_PLAN_H */
