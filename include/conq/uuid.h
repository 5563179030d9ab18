/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/uuid.h - random UUIDs (RFC 9562 versions 4 and 7) that cost a few
 * nanoseconds and scale with the threads that make them.
 *
 * The problem (the seed: JDK-8308804; libuuid here): a UUID generator that
 * asks one shared source for 16 bytes per UUID. libuuid's
 * uuid_generate_random makes 6 system calls per UUID and takes glibc's
 * random() lock, about 3.3 us per UUID on this project's guests, and two
 * threads make fewer UUIDs than one.
 *
 * conq's generator: every thread has its own CSPRNG and takes its bytes from
 * a buffer of them. In steady state a UUID is a copy of 16 buffered bytes
 * and two bit edits; no system call, no lock, no shared line.
 *
 * The randomness (conq_uuid_backend() names the one in use):
 *
 *   "vdso"       the kernel's vDSO getrandom (Linux 6.11 and later, x86-64
 *                and arm64), the default where the kernel exports it: the
 *                kernel's own ChaCha20 run in user space on a per-thread
 *                state the kernel keys, reseeds, and wipes on fork and on a
 *                VM fork (a restored snapshot). conq asks it for 256 bytes
 *                at a time (16 UUIDs: a call costs about as much as 16
 *                bytes do), and hands larger requests (bulk, random_bytes)
 *                straight through. The bytes waiting in that buffer are
 *                conq's: wiped on fork as below, but not on a VM fork,
 *                where at most the 15 UUIDs left in it can repeat in both
 *                clones before the kernel's fresh state takes over.
 *   "chacha20"   a per-thread ChaCha20 (RFC 8439's block function, 20
 *                rounds, four blocks in vector lanes) keyed from
 *                getrandom(2): where the kernel has no vDSO getrandom (older
 *                kernels, qemu-user), or when CONQ_UUID_BACKEND=chacha20 is
 *                set in the environment (faster: 22 ns a UUID against 34 on
 *                the AMD guest; docs/benchmarks.md, "UUIDs"). It produces
 *                1 KiB at a time with fast key erasure (Bernstein, 2017):
 *                the first 32 bytes of every batch become the next key and
 *                are wiped, so a copy of the state taken later reveals
 *                nothing already handed out; bytes handed out are wiped
 *                from the buffer; fresh getrandom bytes are mixed into the
 *                key every 2^20 batches (1 GiB). Not VM-fork safe: clones
 *                of a snapshot share the key, and so the stream until its
 *                next re-key; keep it for processes that are never cloned
 *                that way.
 *
 * Fork (both): the state lives in a page marked MADV_WIPEONFORK, and a
 * fork generation (a pthread_atfork child handler) is checked on every call
 * as well, so a child finds its state wiped or stale and re-keys on its
 * first use: it never repeats its parent's stream, whether it was made by
 * fork(), by a raw clone(2) (the wipe), or on a kernel or emulator that
 * ignores the advice (the generation).
 *
 * Thread exit wipes and unmaps the thread's state (a pthread key's
 * destructor); the main thread's stays until the process ends.
 *
 * Both are seeded by the kernel's CSPRNG only. When getrandom fails for good
 * (ENOSYS on a kernel older than 3.17, a seccomp filter, EINTR retried), the
 * call fails with that errno and writes no UUID: there is no fallback to a
 * weaker source (no time, no pid, no rand()).
 *
 * Who may call: any thread, concurrently; each thread uses its own state.
 * Not async-signal-safe (a signal handler that interrupts the same thread's
 * generator would share its state). Progress: wait-free; system calls only
 * at a thread's first call (mmap, madvise, getrandom), at a re-key
 * (chacha20: one getrandom per 2^20 batches) or a kernel reseed (vdso: the
 * vDSO's own getrandom, about once a minute). In steady state a UUID makes
 * no system call (tests/test_uuid.c runs 10^6 of them under a seccomp
 * filter that kills on one; uuid_strace.sh counts them).
 */
#ifndef CONQ_UUID_H
#define CONQ_UUID_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The length of the canonical text form, without the terminating NUL:
 * 8, 4, 4, 4 and 12 hexadecimal digits joined by hyphens (the version is
 * the 13th digit, the variant the 17th). */
#define CONQ_UUID_STR_LEN 36

/* A version 4 UUID: 122 random bits, version 4, variant 10 (RFC 9562
 * section 5.4). 0, or -1 with errno (the entropy source failed; out is left
 * untouched). */
int conq_uuid_v4(uint8_t out[16]);

/*
 * A version 7 UUID (RFC 9562 section 5.7): the Unix time in milliseconds in
 * the first 48 bits (CLOCK_REALTIME), version 7, then rand_a (12 bits),
 * variant 10 and 62 random bits. Strictly increasing within a thread (as
 * bytes, memcmp order): rand_a holds the sub-millisecond fraction of the
 * clock (RFC 9562 section 6.2, method 3, 244 ns steps); when two calls fall
 * in the same step, or the clock steps back, the thread's last UUID's
 * timestamp and rand_a are reused and rand_a counts on (method 1), carrying
 * into the timestamp when it overflows, so that a thread never repeats or
 * goes backwards whatever the clock does. Across threads UUIDs are unique
 * (62 random bits each) and ordered to within the clock's skew. 0, or -1
 * with errno.
 */
int conq_uuid_v7(uint8_t out[16]);

/* n UUIDs into out[0..n-1], faster than n calls: the random bytes of all
 * of them in one request, and for v7 one clock read per 64 UUIDs (the
 * others count on from it, as the single call does within a clock step).
 * 0, or -1 with errno (EINVAL: out NULL with n > 0, or n above
 * SIZE_MAX / 16; or the entropy source's error: then out may have been
 * written, and holds no UUID). */
int conq_uuid_v4_bulk(uint8_t (*out)[16], size_t n);
int conq_uuid_v7_bulk(uint8_t (*out)[16], size_t n);

/* n bytes from the calling thread's CSPRNG (the same stream the UUIDs take
 * from). 0, or -1 with errno. */
int conq_random_bytes(void *buf, size_t n);

/* The canonical text form: 36 lower-case characters and a NUL in out. */
void conq_uuid_format(const uint8_t uuid[16], char out[CONQ_UUID_STR_LEN + 1]);

/*
 * Parse the canonical text form: exactly 36 characters, hyphens at 8, 13, 18
 * and 23, hexadecimal digits elsewhere (either case: RFC 9562 reads them
 * case-insensitively), then the end of the string. Anything else (braces, a
 * "urn:uuid:" prefix, missing or extra hyphens, spaces, a longer string) is
 * refused: -1 with errno EINVAL, out untouched. 0 on success. Version and
 * variant are not checked (any UUID parses; see conq_uuid_version).
 */
int conq_uuid_parse(const char *s, uint8_t out[16]);

/* The version field (bits 48-51) and whether the variant is RFC 9562's
 * (bits 64-65 are 10). */
static inline unsigned conq_uuid_version(const uint8_t uuid[16])
{
	return uuid[6] >> 4;
}
static inline int conq_uuid_is_rfc9562(const uint8_t uuid[16])
{
	return (uuid[8] & 0xc0) == 0x80;
}

/* "vdso" or "chacha20": the randomness source of this process, chosen at
 * the first call: "vdso" where the kernel exports it, unless the
 * environment says CONQ_UUID_BACKEND=chacha20. */
const char *conq_uuid_backend(void);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_UUID_H */
