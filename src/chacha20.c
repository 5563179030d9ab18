/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ChaCha20 block function (RFC 8439 section 2.3), twice: a one-block
 * reference on 32-bit words, and four blocks at once in the lanes of 128-bit
 * vectors (gcc/clang vector extensions: SSE2 on x86-64, NEON on arm64, plain
 * words elsewhere), which is what conq/uuid.h's generator runs. The tests
 * hold both to the RFC's vectors and to each other.
 */
#include <string.h>

#include "conq/impl/chacha20.h"

static uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void st32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The initial state: "expand 32-byte k", key, counter, nonce. */
static void setup(uint32_t s[16], const uint8_t key[32], uint32_t counter,
		  const uint8_t nonce[12])
{
	s[0] = 0x61707865u;
	s[1] = 0x3320646eu;
	s[2] = 0x79622d32u;
	s[3] = 0x6b206574u;
	for (int i = 0; i < 8; i++)
		s[4 + i] = ld32(key + 4 * i);
	s[12] = counter;
	for (int i = 0; i < 3; i++)
		s[13 + i] = ld32(nonce + 4 * i);
}

#define ROTL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define QR(a, b, c, d)                                                         \
	do {                                                                   \
		a += b;                                                        \
		d ^= a;                                                        \
		d = ROTL32(d, 16);                                             \
		c += d;                                                        \
		b ^= c;                                                        \
		b = ROTL32(b, 12);                                             \
		a += b;                                                        \
		d ^= a;                                                        \
		d = ROTL32(d, 8);                                              \
		c += d;                                                        \
		b ^= c;                                                        \
		b = ROTL32(b, 7);                                              \
	} while (0)
/* Ten double rounds: four column rounds, then four diagonal ones. */
#define ROUNDS(x)                                                              \
	do {                                                                   \
		for (int r_ = 0; r_ < 10; r_++) {                              \
			QR(x[0], x[4], x[8], x[12]);                           \
			QR(x[1], x[5], x[9], x[13]);                           \
			QR(x[2], x[6], x[10], x[14]);                          \
			QR(x[3], x[7], x[11], x[15]);                          \
			QR(x[0], x[5], x[10], x[15]);                          \
			QR(x[1], x[6], x[11], x[12]);                          \
			QR(x[2], x[7], x[8], x[13]);                           \
			QR(x[3], x[4], x[9], x[14]);                           \
		}                                                              \
	} while (0)

void conq__chacha20_block(const uint8_t key[32], uint32_t counter,
			  const uint8_t nonce[12], uint8_t out[64])
{
	uint32_t s[16], x[16];
	setup(s, key, counter, nonce);
	memcpy(x, s, sizeof x);
	ROUNDS(x);
	for (int i = 0; i < 16; i++)
		st32(out + 4 * i, x[i] + s[i]);
}

typedef uint32_t conq__v4u32 __attribute__((vector_size(16)));

void conq__chacha20_blocks4(const uint8_t key[32], uint32_t counter,
			    const uint8_t nonce[12], uint8_t out[256])
{
	uint32_t s[16];
	setup(s, key, counter, nonce);
	conq__v4u32 x[16], o[16];
	for (int i = 0; i < 16; i++)
		x[i] = (conq__v4u32){s[i], s[i], s[i], s[i]};
	/* Lane j is block counter + j (the counter wraps as RFC 8439's
	 * 32-bit counter does; the generator never comes near it). */
	x[12] =
	    (conq__v4u32){counter, counter + 1u, counter + 2u, counter + 3u};
	memcpy(o, x, sizeof o);
	ROUNDS(x);
	for (int i = 0; i < 16; i++)
		x[i] += o[i];
	for (int j = 0; j < 4; j++)
		for (int i = 0; i < 16; i++)
			st32(out + 64 * j + 4 * i, x[i][j]);
}

void conq__chacha20_xor(const uint8_t key[32], uint32_t counter,
			const uint8_t nonce[12], const uint8_t *in,
			uint8_t *out, size_t n)
{
	uint8_t ks[64];
	while (n > 0) {
		conq__chacha20_block(key, counter++, nonce, ks);
		size_t k = n < 64 ? n : 64;
		for (size_t i = 0; i < k; i++)
			out[i] = in[i] ^ ks[i];
		in += k;
		out += k;
		n -= k;
	}
	memset(ks, 0, sizeof ks);
}
