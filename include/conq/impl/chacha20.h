/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/impl/chacha20.h - the ChaCha20 block function of RFC 8439 under
 * conq/uuid.h's generator, exported for its tests (tests/test_uuid.c checks
 * it against the RFC's vectors). Not a public API: no authentication, no
 * nonce management; use a cryptographic library for encryption.
 *
 * Keys are 32 bytes and nonces 12, read as little-endian words, the block
 * counter a 32-bit word: RFC 8439 section 2.3.
 */
#ifndef CONQ_IMPL_CHACHA20_H
#define CONQ_IMPL_CHACHA20_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One 64-byte block (RFC 8439 section 2.3): the reference, one word at a
 * time. */
void conq__chacha20_block(const uint8_t key[32], uint32_t counter,
			  const uint8_t nonce[12], uint8_t out[64]);

/* The blocks of counters counter .. counter + 3, into out[0..255]: four
 * blocks side by side in vector lanes (what the generator runs). */
void conq__chacha20_blocks4(const uint8_t key[32], uint32_t counter,
			    const uint8_t nonce[12], uint8_t out[256]);

/* RFC 8439 section 2.4: out = in XOR the key stream from block counter on
 * (in and out may be the same buffer). */
void conq__chacha20_xor(const uint8_t key[32], uint32_t counter,
			const uint8_t nonce[12], const uint8_t *in,
			uint8_t *out, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_IMPL_CHACHA20_H */
