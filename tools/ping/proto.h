/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proto.h - what conq-ping's two ends say to each other, over the transport
 * itself, in 64-byte frames with every field little-endian (the two ends
 * may be different machines):
 *
 *   client -> server  HELLO  size, messages (warm-up included), warm-up,
 *                            wait mode, timeout, open-loop period
 *   server -> client  ACK, or NAK with a reason (size above what the
 *                            server's transport carries, unknown mode)
 *   client -> server  messages 0 .. messages-1, each of `size` bytes;
 *                    the server echoes each one as it arrives
 *   server -> client  STATS  its CPU time and context switches over the
 *                            measured messages (after the warm-up)
 *
 * A message's first 8 bytes carry its sequence number when size >= 8 (the
 * client checks every echo), and bytes 8..16 the open loop's intended send
 * time when size >= 16; the server looks at none of it.
 *
 * Header only, also for the tests (tests/test_ping.c plays a fake server).
 */
#ifndef CONQ_PING_PROTO_H
#define CONQ_PING_PROTO_H

#include <stdint.h>
#include <string.h>

#define PING_FRAME	   64
#define PING_MAGIC	   "conqping" /* 8 bytes, no NUL in the frame */
#define PING_PROTO_VERSION 1u

enum ping_frame_type {
	PING_HELLO = 1,
	PING_ACK = 2,
	PING_NAK = 3,
	PING_STATS = 4,
};

/* HELLO flags */
#define PING_HELLO_YIELD 1u /* spin loops yield: both ends share a CPU */

typedef struct ping_hello {
	uint64_t size, total, warmup, timeout_ns, period_ns;
	uint32_t wait, flags;
} ping_hello;

typedef struct ping_stats {
	uint64_t echoed;	  /* messages echoed after the warm-up */
	uint64_t user_ns, sys_ns; /* CPU time over them */
	uint64_t wall_ns;	  /* ... and the wall time */
	uint64_t nvcsw, nivcsw;	  /* context switches (voluntary, not) */
} ping_stats;

static inline void ping_put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t ping_get64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline void ping_put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t ping_get32(const unsigned char *p)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static inline void ping_frame_head(unsigned char f[PING_FRAME], uint32_t type)
{
	memset(f, 0, PING_FRAME);
	memcpy(f, PING_MAGIC, 8);
	ping_put32(f + 8, PING_PROTO_VERSION);
	ping_put32(f + 12, type);
}

/* The frame's type, or 0 when it is not a conq-ping frame of this
 * version. */
static inline uint32_t ping_frame_type(const unsigned char f[PING_FRAME])
{
	if (memcmp(f, PING_MAGIC, 8) != 0 ||
	    ping_get32(f + 8) != PING_PROTO_VERSION)
		return 0;
	return ping_get32(f + 12);
}

static inline void ping_put_hello(unsigned char f[PING_FRAME],
				  const ping_hello *h)
{
	ping_frame_head(f, PING_HELLO);
	ping_put64(f + 16, h->size);
	ping_put64(f + 24, h->total);
	ping_put64(f + 32, h->warmup);
	ping_put64(f + 40, h->timeout_ns);
	ping_put64(f + 48, h->period_ns);
	ping_put32(f + 56, h->wait);
	ping_put32(f + 60, h->flags);
}

static inline void ping_get_hello(const unsigned char f[PING_FRAME],
				  ping_hello *h)
{
	h->size = ping_get64(f + 16);
	h->total = ping_get64(f + 24);
	h->warmup = ping_get64(f + 32);
	h->timeout_ns = ping_get64(f + 40);
	h->period_ns = ping_get64(f + 48);
	h->wait = ping_get32(f + 56);
	h->flags = ping_get32(f + 60);
}

/* NAK: a reason of up to 47 bytes, NUL-terminated in the frame. */
static inline void ping_put_nak(unsigned char f[PING_FRAME], const char *why)
{
	ping_frame_head(f, PING_NAK);
	size_t n = strlen(why);
	if (n > PING_FRAME - 16 - 1)
		n = PING_FRAME - 16 - 1;
	memcpy(f + 16, why, n);
}

static inline void ping_put_stats(unsigned char f[PING_FRAME],
				  const ping_stats *s)
{
	ping_frame_head(f, PING_STATS);
	ping_put64(f + 16, s->echoed);
	ping_put64(f + 24, s->user_ns);
	ping_put64(f + 32, s->sys_ns);
	ping_put64(f + 40, s->wall_ns);
	ping_put64(f + 48, s->nvcsw);
	ping_put64(f + 56, s->nivcsw);
}

static inline void ping_get_stats(const unsigned char f[PING_FRAME],
				  ping_stats *s)
{
	s->echoed = ping_get64(f + 16);
	s->user_ns = ping_get64(f + 24);
	s->sys_ns = ping_get64(f + 32);
	s->wall_ns = ping_get64(f + 40);
	s->nvcsw = ping_get64(f + 48);
	s->nivcsw = ping_get64(f + 56);
}

#endif /* CONQ_PING_PROTO_H */
