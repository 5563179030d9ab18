/* SPDX-License-Identifier: BSD-2-Clause */
/* cli.h - command-line options, spelled like JMH's where JMH has one. */
#ifndef CB_CLI_H
#define CB_CLI_H

#include <stdio.h>

#include "cb.h"

#define CB_MAX_LIST 32
#define CB_MAX_PARAMS 16
#define CB_MAX_FORKS 1000

enum { CB_AFF_AUTO, CB_AFF_NONE, CB_AFF_LIST };

/* -rf: result formats written to files (several may be given). */
enum { CB_RF_TEXT = 1u << 0, CB_RF_CSV = 1u << 1, CB_RF_JSON = 1u << 2 };

/* -p NAME=V1,V2,... (qType apart): a parameter and its values. */
typedef struct cb_param_vals {
	const char *name;
	const char *val[CB_MAX_LIST];
	size_t nval;
	int given; /* from -p (else: preset or workload default) */
} cb_param_vals;

struct cb_progress; /* main.c */

typedef struct cb_options {
	const char *preset; /* smoke | quick */
	int wi, i;          /* warmup / measurement iterations; -1: preset */
	uint64_t w_ns, r_ns; /* their lengths; 0: preset */
	uint64_t timeout_ns; /* per iteration, for a stuck worker */
	const char *qtype[CB_MAX_LIST]; /* -p qType= patterns (fnmatch) */
	size_t nqtype;
	size_t capacity[CB_MAX_LIST]; /* -p qCapacity= */
	size_t ncapacity;
	const char *include[CB_MAX_LIST]; /* benchmark regexes (ERE) */
	size_t ninclude;
	/* -tg P,C: the thread groups (shapes) to run, in order. */
	unsigned tg_p[CB_MAX_LIST], tg_c[CB_MAX_LIST];
	size_t ntg;
	/* Without -p qType: which adapters run at each shape. 0: those whose
	 * contract is the narrowest that allows the shape (1,1: SPSC; P,1:
	 * MPSC; 1,C: SPMC; else MPMC); CB_ALL_CONTRACTS: every one that allows
	 * it; one contract bit: those of that contract. */
	unsigned sel;
	int check;  /* -1: preset */
	int rotate; /* rotate the queue order each round */
	int affinity;
	int cpus[CB_MAX_THREADS];
	size_t ncpus;
	int list, list_peers, help, selftest;
	const char *selftest_only; /* --self-test SECTION */
	int forks;           /* -f N; -1: preset; 0: in this process */
	unsigned modes;      /* -bm list (CB_MODE_* bits); 0: each default */
	unsigned mode;       /* the mode of the point being run */
	cb_param_vals params[CB_MAX_PARAMS]; /* -p NAME=..., qType apart */
	size_t nparams;
	unsigned rf;         /* -rf formats */
	const char *rff;     /* -rff FILE (one format) or base name */
	const char *plot_dir; /* --plot DIR */
	int test_workloads;  /* --test-workloads: the harness tests' own */
	int argc;            /* the command line, for forks and reports */
	char **argv;
	/* Fork children (--fork-child K --fork-fd FD --progress-at D,T,T0). */
	long child_point;    /* -1: not a child */
	int child_fd;
	struct cb_progress *progress;
} cb_options;

/* Parse argv into o and apply the preset. 0, or 2 after printing an error. */
int cb_parse_args(int argc, char **argv, cb_options *o);

/* The parameter `name` in o->params, NULL if absent. */
cb_param_vals *cb_find_param(cb_options *o, const char *name);
const cb_param_vals *cb_find_param_c(const cb_options *o, const char *name);

/* "P,C" with P, C >= 1 and P + C <= CB_MAX_THREADS; 0 or -1. */
int cb_parse_tg(const char *s, unsigned *p, unsigned *c);

/* "250ms", "1s", "500us", "100ns", "2m"; a bare number is seconds. */
int cb_parse_time(const char *s, uint64_t *ns);

/* "1.5 s", "250 ms"... into buf. */
const char *cb_fmt_time(uint64_t ns, char *buf, size_t n);

void cb_usage(FILE *f);

/* Unit tests of the parsers; prints failures, returns their count. */
int cb_cli_selftest(void);

#endif /* CB_CLI_H */
