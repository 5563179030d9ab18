/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shm.c - conq-ping's shared-memory transport (ping.h): a pair of
 * conq_spsc_value rings, one per direction, each in a named region of its
 * own (conq/shm.h), what two processes on one machine would use instead of
 * loopback TCP.
 *
 * A message is one element: an 8-byte length, then the bytes, written in
 * place (claim, copy, commit) and read in place (peek_claim, copy,
 * release), so a 32-byte message moves 40 bytes and no more.
 *
 * Wait modes:
 *   spin   peek_claim (or claim) in a loop; the clock is read only after a
 *          look that found nothing (for the deadline)
 *   block  peek_claim_until: parks on the ring's process-shared eventcount,
 *          which the other end's commit wakes (a futex wake only when one
 *          is parked)
 *
 * Addresses: the server's listen on "port" N creates "/conq-ping-N.c2s"
 * and "/conq-ping-N.s2c" (N 0: a free number) and reports "shm:N" as its
 * address; the client connects to host "shm" (any), port N. The names go (unlink)
 * once the server has seen the client's first message, or when a server
 * that never saw one closes: a mapping keeps a region alive.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conq/shm.h"
#include "conq/spsc_value.h"
#include "ping.h"

#define SHM_MAX	 4096u /* the largest message */
#define SHM_SLOT (8u + SHM_MAX)
#define SHM_CAP	 8u

struct shm_priv {
	conq_shm *h[2];	 /* 0: client to server, 1: server to client */
	conq_spsc_value *tx, *rx;
	char base[64];	 /* "/conq-ping-N" */
	bool server;
	bool named; /* this process unlinks the names at close */
	bool seen;  /* the server has seen the client's first message */
};

static void shm_names(const char *base, char c2s[80], char s2c[80])
{
	snprintf(c2s, 80, "%s.c2s", base);
	snprintf(s2c, 80, "%s.s2c", base);
}

static void shm_unlink_names(struct shm_priv *p)
{
	char c2s[80], s2c[80];
	shm_names(p->base, c2s, s2c);
	(void)conq_shm_unlink(c2s);
	(void)conq_shm_unlink(s2c);
	p->named = false;
}

static struct shm_priv *shm_new(ping_ep *ep)
{
	struct shm_priv *p = (struct shm_priv *)calloc(1, sizeof *p);
	if (p != NULL)
		ep->priv = p;
	return p;
}

/* Create both regions for number n; EEXIST when taken. */
static int shm_create_pair(ping_ep *ep, struct shm_priv *p, unsigned n)
{
	snprintf(p->base, sizeof p->base, "/conq-ping-%u", n);
	char c2s[80], s2c[80];
	shm_names(p->base, c2s, s2c);
	p->rx = conq_spsc_value_shm_create(c2s, SHM_SLOT, SHM_CAP, NULL, NULL,
					   &p->h[0]);
	if (p->rx == NULL)
		return errno == EEXIST ? EEXIST
				       : ping_fail(ep, PING_EXIT_SETUP, "%s",
						   conq_shm_last_error());
	p->tx = conq_spsc_value_shm_create(s2c, SHM_SLOT, SHM_CAP, NULL, NULL,
					   &p->h[1]);
	if (p->tx == NULL) {
		int e = errno;
		conq_spsc_value_shm_close(p->h[0]);
		p->h[0] = NULL;
		(void)conq_shm_unlink(c2s);
		return e == EEXIST ? EEXIST
				   : ping_fail(ep, PING_EXIT_SETUP, "%s",
					       conq_shm_last_error());
	}
	p->named = true;
	return 0;
}

/* "Port" n names the pair /conq-ping-n.{c2s,s2c}; 0: a free n. */
static int shm_listen(ping_ep *ep, const char *host, const char *port)
{
	(void)host;
	struct shm_priv *p = shm_new(ep);
	if (p == NULL)
		return ping_fail(ep, PING_EXIT_SETUP, "out of memory");
	p->server = true;
	unsigned want = port ? (unsigned)strtoul(port, NULL, 10) : 0, n = want;
	int rc = EEXIST;
	for (unsigned k = 0; rc == EEXIST && k < 64; k++) {
		if (want == 0)
			n = 1 + ((unsigned)getpid() * 7u + k * 7919u) % 65535u;
		rc = shm_create_pair(ep, p, n);
		if (want != 0)
			break;
	}
	if (rc == EEXIST)
		return ping_fail(ep, PING_EXIT_SETUP,
				 "shm: /conq-ping-%u exists (another server, or "
				 "one that died: rm /dev/shm/conq-ping-%u.*)",
				 n, n);
	if (rc != 0)
		return rc;
	snprintf(ep->local, sizeof ep->local, "shm:%u", n);
	return 0;
}

/* Wait, without limit (as a socket's accept), for the client's first
 * message (its hello), which recv then takes. */
static int shm_accept(ping_ep *ep)
{
	struct shm_priv *p = (struct shm_priv *)ep->priv;
	snprintf(ep->peer, sizeof ep->peer, "shm client");
	while (conq_spsc_value_peek_claim_until(p->rx, conq_now_ns() +
							   1000000000) == NULL)
		if (errno != ETIMEDOUT)
			return ping_fail(ep, PING_EXIT_SETUP, "accept: %s",
					 strerror(errno));
	return 0;
}

static int shm_connect(ping_ep *ep, const char *host, const char *port)
{
	(void)host;
	struct shm_priv *p = shm_new(ep);
	if (p == NULL)
		return ping_fail(ep, PING_EXIT_SETUP, "out of memory");
	if (port == NULL || *port == '\0' || strchr(port, '/') != NULL)
		return ping_fail(ep, PING_EXIT_USAGE,
				 "shm: the address is the server's shm:N");
	snprintf(p->base, sizeof p->base, "/conq-ping-%s", port);
	char c2s[80], s2c[80];
	shm_names(p->base, c2s, s2c);
	conq_shm_options o = {0, 0, (int64_t)ep->timeout_ns};
	for (int i = 0; i < 2; i++) {
		conq_spsc_value **q = i == 0 ? &p->tx : &p->rx;
		*q = conq_spsc_value_shm_open(i == 0 ? c2s : s2c, SHM_SLOT,
					      SHM_CAP, &o, &p->h[i]);
		if (*q == NULL && errno == ENOENT)
			return ping_fail(ep, PING_EXIT_REACH,
					 "shm:%s: no server there (refused: "
					 "%s)",
					 port, conq_shm_last_error());
		if (*q == NULL)
			return ping_fail(ep, PING_EXIT_SETUP, "%s",
					 conq_shm_last_error());
	}
	snprintf(ep->peer, sizeof ep->peer, "shm:%s", port);
	return 0;
}

static int shm_set_wait(ping_ep *ep, ping_wait w)
{
	ep->wait = w;
	return 0;
}

/* Spin or park for one slot (peek_claim, or claim when `tx`); NULL with
 * *rc set when the deadline or the timeout passes. */
static void *shm_slot(ping_ep *ep, conq_spsc_value *q, bool tx, uint64_t until,
		      int *rc)
{
	void *s = tx ? conq_spsc_value_claim(q)
		     : (void *)(uintptr_t)conq_spsc_value_peek_claim(q);
	if (s != NULL)
		return s;
	uint64_t end = until ? until : ping_now() + ep->timeout_tick;
	if (ep->wait == PING_WAIT_BLOCK && !tx) {
		/* until is 0 in block mode (ping.h). */
		int64_t d = conq_now_ns() + (int64_t)ep->timeout_ns;
		s = (void *)(uintptr_t)conq_spsc_value_peek_claim_until(q, d);
		if (s == NULL)
			*rc = ping_fail(ep, PING_EXIT_PEER,
					"no message for %.1f s: the peer is "
					"gone or hung",
					(double)ep->timeout_ns / 1e9);
		return s;
	}
	for (unsigned n = 0;; n++) {
		if (ep->yield)
			sched_yield();
		s = tx ? conq_spsc_value_claim(q)
		       : (void *)(uintptr_t)conq_spsc_value_peek_claim(q);
		if (s != NULL)
			return s;
		if ((n & 63) == 0 && ping_now() >= end) {
			*rc = until ? PING_AGAIN
				    : ping_fail(ep, PING_EXIT_PEER,
						"%s for %.1f s: the peer is "
						"gone or hung",
						tx ? "no room" : "no message",
						(double)ep->timeout_ns / 1e9);
			return NULL;
		}
	}
}

static int shm_send(ping_ep *ep, const void *buf, size_t len, uint64_t until)
{
	struct shm_priv *p = (struct shm_priv *)ep->priv;
	if (len > SHM_MAX)
		return ping_fail(ep, PING_EXIT_USAGE, "message above %u bytes",
				 SHM_MAX);
	int rc = 0;
	unsigned char *s = (unsigned char *)shm_slot(ep, p->tx, true, until, &rc);
	if (s == NULL)
		return rc;
	uint64_t n = len;
	memcpy(s, &n, 8);
	memcpy(s + 8, buf, len);
	conq_spsc_value_commit(p->tx, s);
	return 0;
}

static int shm_recv(ping_ep *ep, void *buf, size_t len, uint64_t until)
{
	struct shm_priv *p = (struct shm_priv *)ep->priv;
	int rc = 0;
	const unsigned char *s =
	    (const unsigned char *)shm_slot(ep, p->rx, false, until, &rc);
	if (s == NULL)
		return rc;
	uint64_t n;
	memcpy(&n, s, 8);
	if (n != len) {
		conq_spsc_value_release(p->rx, s);
		return ping_fail(ep, PING_EXIT_PROTO,
				 "a message of %llu bytes, expected %zu",
				 (unsigned long long)n, len);
	}
	memcpy(buf, s + 8, len);
	conq_spsc_value_release(p->rx, s);
	if (p->server && !p->seen) {
		/* The client is attached: the names can go. */
		p->seen = true;
		shm_unlink_names(p);
	}
	return 0;
}

static void shm_close(ping_ep *ep)
{
	struct shm_priv *p = (struct shm_priv *)ep->priv;
	if (p == NULL)
		return;
	/* A server that never saw its client removes the names: but not the
	 * forked client's copy of the listening endpoint (fork mode closes it
	 * in the parent, which connects to the names next). */
	if (p->named && p->server && ep->peer[0] != '\0')
		shm_unlink_names(p);
	for (int i = 0; i < 2; i++)
		conq_spsc_value_shm_close(p->h[i]);
	free(p);
	ep->priv = NULL;
}

const ping_transport ping_shm = {
    .name = "shm",
    .about = "a pair of conq_spsc_value rings in shared memory (conq/shm.h): "
	     "spin on the ring, or block on its eventcount",
    .waits = (1u << PING_WAIT_SPIN) | (1u << PING_WAIT_BLOCK),
    .max_size = SHM_MAX,
    .max_why = "conq-ping's shared-memory slot",
    .listen = shm_listen,
    .accept = shm_accept,
    .connect = shm_connect,
    .set_wait = shm_set_wait,
    .send = shm_send,
    .recv = shm_recv,
    .close = shm_close,
};
