/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ping.h - conq-ping's parts: exit codes, the clock, the wait modes and the
 * table of transports (README.md in this folder says what the tool does).
 *
 * A transport is one row of ping_transports[] (transports.c): a name, the
 * wait modes it supports, its largest message, and seven functions over an
 * endpoint (ping_ep). Adding one (say, a pair of conq shared-memory rings)
 * is one file with its functions and one row; nothing else names a
 * transport.
 *
 *   listen(ep, host, port)   server, before the fork: bind what the client
 *                            will reach; fills ep->local (port 0: any free
 *                            one, ep->local says which)
 *   accept(ep)               server: wait (without limit) for the client
 *   connect(ep, host, port)  client: reach the server within ep->timeout_ns
 *   set_wait(ep, w)          both: wait mode for what follows; may be called
 *                            again (the server learns the client's mode from
 *                            its hello, received in PING_WAIT_BLOCK)
 *   send(ep, buf, len, until)  one message of len bytes
 *   recv(ep, buf, len, until)  one message of exactly len bytes; anything
 *                            else is a short message (PING_EXIT_PROTO)
 *   close(ep)                release everything (also after a failed call)
 *
 * until: 0 means "wait at most ep->timeout_ns, then fail": a dead or hung
 * peer is an error within a bounded time in every mode (the spin modes read
 * the clock only while they wait). Otherwise until is an absolute deadline
 * in ticks (ping_now()) and the call returns PING_AGAIN when it passes
 * first, keeping a partly sent or received message in the endpoint for the
 * next call with the same buffer (the open loop waits for replies only until
 * its next send is due). PING_WAIT_BLOCK needs until == 0.
 *
 * Every function returns 0 on success, PING_AGAIN (above), or an exit code
 * (enum ping_exit) with ep->err saying what happened.
 */
#ifndef CONQ_PING_H
#define CONQ_PING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Exit codes, as --help documents them. */
enum ping_exit {
	PING_OK = 0,
	PING_EXIT_FAIL = 1,  /* anything else (not used by the tool itself) */
	PING_EXIT_USAGE = 2, /* bad arguments */
	PING_EXIT_SETUP = 3, /* socket, bind, pinning, memory */
	PING_EXIT_REACH = 4, /* no server there, or it refused the run */
	PING_EXIT_PEER = 5,  /* the peer closed, reset or went silent */
	PING_EXIT_PROTO = 6, /* a short, long or out-of-sequence message */
};
#define PING_AGAIN (-1)

typedef enum ping_wait {
	PING_WAIT_SPIN,	      /* non-blocking recv/send in a loop */
	PING_WAIT_EPOLL_SPIN, /* epoll_wait(timeout 0) in a loop, then recv */
	PING_WAIT_EPOLL,      /* epoll_wait blocking, then recv */
	PING_WAIT_BLOCK,      /* blocking recv */
	PING_NWAITS
} ping_wait;

extern const char *const ping_wait_names[PING_NWAITS];

/* ---- the clock ---------------------------------------------------------
 * Ticks: the TSC where it is invariant (x86), else CLOCK_MONOTONIC ns. One
 * read per sample; converted to ns only when reporting. */
enum ping_clock { PING_CLOCK_AUTO, PING_CLOCK_TSC, PING_CLOCK_MONO };
extern bool ping_clock_is_tsc;
extern double ping_tick_ns;  /* ns per tick */
extern double ping_clock_hz; /* ticks per second */

#if defined(__x86_64__) || defined(__i386__)
#define PING_HAVE_TSC 1
#endif

uint64_t ping_mono_ns(void);

static inline uint64_t ping_now(void)
{
#ifdef PING_HAVE_TSC
	if (ping_clock_is_tsc)
		return __builtin_ia32_rdtsc();
#endif
	return ping_mono_ns();
}

/* Choose and calibrate the clock (the TSC against CLOCK_MONOTONIC_RAW, 3
 * windows of 10 ms, median). 0, or -1 with a message in err when the TSC
 * was asked for and is not there or not invariant. */
int ping_clock_init(enum ping_clock want, char *err, size_t errlen);
static inline uint64_t ping_ns_to_ticks(uint64_t ns)
{
	return (uint64_t)((double)ns / ping_tick_ns);
}
static inline double ping_ticks_to_ns(uint64_t t)
{
	return (double)t * ping_tick_ns;
}

/* ---- endpoints and transports ------------------------------------------ */
typedef struct ping_ep {
	const struct ping_transport *tr;
	int fd;	  /* the connected socket (UDP: bound, then connected) */
	int lfd;  /* TCP: the listening socket until accept */
	int epfd; /* the epoll modes */
	ping_wait wait;
	bool yield;		/* spin loops yield: both ends share a CPU */
	uint64_t timeout_ns;	/* the longest wait for one message */
	uint64_t timeout_tick;	/* the same in ticks */
	size_t rx_got, tx_sent; /* a message in progress (TCP) */
	char local[96];		/* what listen bound, "host:port" */
	char peer[96];		/* who is at the other end */
	char err[256];		/* the last failure */
	void *priv;		/* a transport's own state */
} ping_ep;

typedef struct ping_transport {
	const char *name;
	const char *about; /* for --help */
	unsigned waits;	   /* bit (1u << w) for each wait mode supported */
	size_t max_size;   /* largest message */
	const char *max_why;
	int (*listen)(ping_ep *ep, const char *host, const char *port);
	int (*accept)(ping_ep *ep);
	int (*connect)(ping_ep *ep, const char *host, const char *port);
	int (*set_wait)(ping_ep *ep, ping_wait w);
	int (*send)(ping_ep *ep, const void *buf, size_t len, uint64_t until);
	int (*recv)(ping_ep *ep, void *buf, size_t len, uint64_t until);
	void (*close)(ping_ep *ep);
} ping_transport;

/* NULL-terminated; transports.c. */
extern const ping_transport *const ping_transports[];
const ping_transport *ping_transport_find(const char *name);

/* A fresh endpoint of transport tr (fds -1). */
void ping_ep_init(ping_ep *ep, const ping_transport *tr, uint64_t timeout_ns);

/* Record a failure in ep->err (printf-style) and return code. */
int ping_fail(ping_ep *ep, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The sockets' rows (sock.c), the shared-memory rings' (shm.c). */
extern const ping_transport ping_tcp, ping_udp, ping_shm;

#endif /* CONQ_PING_H */
