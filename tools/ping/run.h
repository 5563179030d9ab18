/* SPDX-License-Identifier: BSD-2-Clause */
/* run.h - conq-ping's two ends over any transport (run.c). */
#ifndef CONQ_PING_RUN_H
#define CONQ_PING_RUN_H

#include "histogram.h"
#include "ping.h"

typedef struct ping_cfg {
	ping_wait wait;
	size_t size;
	uint64_t count, warmup; /* measured round trips, and those before */
	uint64_t rate;		/* open loop: messages per second; 0: closed */
	uint64_t timeout_ns;
	bool yield; /* both ends share a CPU: the spin loops yield */
} ping_cfg;

/* CPU time of one end over the measured round trips. */
typedef struct ping_cpu {
	bool known;
	double user_s, sys_s, wall_s;
	uint64_t nvcsw, nivcsw; /* context switches: voluntary, involuntary */
} ping_cpu;

typedef struct ping_result {
	cb_hist *hist;	  /* RTT samples, in ticks */
	double elapsed_s; /* the measured window */
	ping_cpu client, server;
} ping_result;

/* The client on a connected endpoint: the hello, the warm-up, the measured
 * round trips (closed loop, or open loop when cfg->rate), the server's
 * statistics. 0 or an exit code with ep->err. */
int ping_client(ping_ep *ep, const ping_cfg *cfg, ping_result *res);

/* The server on an accepted endpoint: takes its parameters from the
 * client's hello, echoes every message, sends its statistics. 0 or an exit
 * code with ep->err; *hello and *cpu say what it served. */
struct ping_hello;
int ping_server(ping_ep *ep, struct ping_hello *hello, ping_cpu *cpu);

/* The tool's own cost: the closed loop's code, clock and histogram
 * included, over a transport that does no I/O, for warmup + n samples into
 * h (ticks). Returns the mean ns per sample. */
double ping_overhead(uint64_t warmup, uint64_t n, size_t size, cb_hist *h);

#endif /* CONQ_PING_RUN_H */
