/* SPDX-License-Identifier: BSD-2-Clause */
/* cli.h - command-line options, spelled like JMH's where JMH has one. */
#ifndef CB_CLI_H
#define CB_CLI_H

#include <stdio.h>

#include "cb.h"

#define CB_MAX_LIST 32

enum { CB_AFF_AUTO, CB_AFF_NONE, CB_AFF_LIST };

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
} cb_options;

/* Parse argv into o and apply the preset. 0, or 2 after printing an error. */
int cb_parse_args(int argc, char **argv, cb_options *o);

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
