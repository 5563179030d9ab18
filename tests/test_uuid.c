/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/uuid.h and its ChaCha20 (conq/impl/chacha20.h).
 *
 *   chacha    RFC 8439's vectors (2.3.2 block, 2.4.2 encryption, A.1 #1
 *             and #2), and the four-lane blocks against the reference
 *   bits      version and variant of v4 and v7; every random bit of v4 set
 *             in half the UUIDs (a generator that hands out wiped or
 *             repeated bytes fails here)
 *   unique    10^7 v4 UUIDs (scaled by CONQ_TEST_SCALE) from 2 threads,
 *             and bulk ones, without a duplicate
 *   text      format/parse round trip, upper case accepted, every
 *             non-canonical form refused with EINVAL
 *   v7        strictly increasing within each of 2 threads, single and
 *             bulk; the timestamp is the clock's; unique across threads
 *   fork      a child (fork(), and a raw clone(2) that runs no atfork
 *             handler, where the kernel honours MADV_WIPEONFORK) never
 *             repeats its parent's stream, nor the parent its child's
 *   threads   thread exit frees the state (2,000 threads, the address
 *             space does not grow by their pages)
 *   syscalls  after the first call, 10^6 v4, 10^6 bulk, 10^5 v7 and 1 MiB
 *             of random bytes under a seccomp filter that kills the process
 *             on any system call but clock_gettime (for v7) and exit
 *   entropy   with getrandom failing (seccomp: ENOSYS), every call fails
 *             with ENOSYS and writes nothing
 *   args      NULL arguments: EINVAL
 *
 * `test_uuid [case]` runs one case; no argument runs them all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "conq/impl/chacha20.h"
#include "conq/impl/testing.h"
#include "conq/uuid.h"

/* A sanitizer build. Its runtime makes system calls of its own (TSan's
 * background thread, ASan's and UBSan's bookkeeping), so a filter that
 * kills on any would measure the runtime, not conq; and a raw clone(2)
 * skips its fork handling (a child could find a runtime lock held). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UUID_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||    \
    __has_feature(undefined_behavior_sanitizer)
#define UUID_SANITIZED 1
#endif
#endif

static double g_scale = 1.0;

static size_t scaled(size_t n)
{
	size_t k = (size_t)((double)n * g_scale);
	return k < 1000 ? 1000 : k;
}

static void unhex(const char *h, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		sscanf(h + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

/* ---- chacha ---- */

static void test_chacha(void)
{
	check_context("chacha");
	uint8_t key[32], nonce[12], out[256], want[256];
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
	/* RFC 8439 2.3.2: the block function. */
	unhex("000000090000004a00000000", nonce, 12);
	unhex(
	    "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
	    "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e",
	    want, 64);
	conq__chacha20_block(key, 1, nonce, out);
	CHECK_EQ_I(memcmp(out, want, 64), 0);
	/* The same block from lane 0 of the four-lane function. */
	conq__chacha20_blocks4(key, 1, nonce, out);
	CHECK_EQ_I(memcmp(out, want, 64), 0);

	/* RFC 8439 2.4.2: encryption of the sunscreen text. */
	static const char pt[] =
	    "Ladies and Gentlemen of the class of '99: If I could offer you "
	    "only one tip for the future, sunscreen would be it.";
	uint8_t ct[sizeof pt - 1], wct[sizeof pt - 1];
	unhex("000000000000004a00000000", nonce, 12);
	unhex("6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
	      "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
	      "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
	      "5af90bbf74a35be6b40b8eedf2785e42874d",
	      wct, sizeof wct);
	conq__chacha20_xor(key, 1, nonce, (const uint8_t *)pt, ct, sizeof ct);
	CHECK_EQ_I(memcmp(ct, wct, sizeof ct), 0);
	conq__chacha20_xor(key, 1, nonce, ct, ct, sizeof ct); /* in place */
	CHECK_EQ_I(memcmp(ct, pt, sizeof ct), 0);

	/* RFC 8439 A.1 #1 and #2: zero key and nonce, counters 0 and 1. */
	memset(key, 0, sizeof key);
	memset(nonce, 0, sizeof nonce);
	unhex(
	    "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
	    "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"
	    "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
	    "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f",
	    want, 128);
	conq__chacha20_blocks4(key, 0, nonce, out);
	CHECK_EQ_I(memcmp(out, want, 128), 0);

	/* Four lanes against four reference blocks, random keys, nonces and
	 * counters (one of them across the 32-bit counter's wrap). */
	int bad = 0;
	for (int t = 0; t < 200; t++) {
		CHECK_EQ_I(conq_random_bytes(key, sizeof key), 0);
		CHECK_EQ_I(conq_random_bytes(nonce, sizeof nonce), 0);
		uint32_t ctr;
		conq_random_bytes(&ctr, sizeof ctr);
		if (t == 0)
			ctr = UINT32_MAX - 1;
		conq__chacha20_blocks4(key, ctr, nonce, out);
		for (uint32_t j = 0; j < 4; j++) {
			conq__chacha20_block(key, ctr + j, nonce, want);
			bad += memcmp(out + 64 * j, want, 64) != 0;
		}
	}
	CHECK_EQ_I(bad, 0);
}

/* ---- bits ---- */

static void test_bits(void)
{
	check_context("bits");
	size_t n = scaled(1000000);
	unsigned ones[128] = {0};
	int badv4 = 0, badv7 = 0, fails = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t u[16];
		fails += conq_uuid_v4(u) != 0;
		badv4 += conq_uuid_version(u) != 4 || !conq_uuid_is_rfc9562(u);
		for (int b = 0; b < 128; b++)
			ones[b] += (u[b / 8] >> (7 - b % 8)) & 1;
		if (i % 16 == 0) {
			fails += conq_uuid_v7(u) != 0;
			badv7 += conq_uuid_version(u) != 7 ||
				 !conq_uuid_is_rfc9562(u);
		}
	}
	CHECK_EQ_I(fails, 0);
	CHECK_EQ_I(badv4, 0);
	CHECK_EQ_I(badv7, 0);
	/* The 122 random bits: each set in half the UUIDs, to 6 standard
	 * deviations (sd = sqrt(n) / 2). */
	double var = (double)n / 4; /* sd^2 */
	int off = 0;
	for (int b = 0; b < 128; b++) {
		bool fixed = (b >= 48 && b < 52) || b == 64 || b == 65;
		if (fixed)
			continue;
		double d = (double)ones[b] - (double)n / 2;
		if (d * d > 36 * var) {
			if (off++ < 5)
				fprintf(stderr, "bit %d: %u of %zu set\n", b,
					ones[b], n);
		}
	}
	CHECK_EQ_I(off, 0);
	/* The fixed ones: version 0100, variant 10. */
	CHECK_EQ(ones[48] + ones[50] + ones[51], 0);
	CHECK_EQ(ones[49], n);
	CHECK_EQ(ones[64], n);
	CHECK_EQ(ones[65], 0);
}

/* ---- unique ---- */

struct gen_arg {
	uint8_t (*u)[16];
	size_t n;
	int bulk, v7, fails;
};

static void *gen_thread(void *p)
{
	struct gen_arg *a = (struct gen_arg *)p;
	if (a->bulk) {
		for (size_t i = 0; i < a->n; i += 1000) {
			size_t k = a->n - i < 1000 ? a->n - i : 1000;
			a->fails +=
			    (a->v7 ? conq_uuid_v7_bulk(a->u + i, k)
				   : conq_uuid_v4_bulk(a->u + i, k)) != 0;
		}
	} else {
		for (size_t i = 0; i < a->n; i++)
			a->fails += (a->v7 ? conq_uuid_v7(a->u[i])
					   : conq_uuid_v4(a->u[i])) != 0;
	}
	return NULL;
}

static int cmp16(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

/* Duplicates among n UUIDs (sorts them). */
static size_t dups(uint8_t (*u)[16], size_t n)
{
	qsort(u, n, 16, cmp16);
	size_t d = 0;
	for (size_t i = 1; i < n; i++)
		d += memcmp(u[i - 1], u[i], 16) == 0;
	return d;
}

static void test_unique(void)
{
	check_context("unique");
	size_t n = scaled(10000000);
	uint8_t(*u)[16] = (uint8_t(*)[16])malloc(n * 16);
	if (!CHECK_NOT_NULL(u))
		return;
	/* Two threads, one calling v4 per UUID and one in bulk, into the two
	 * halves of one array. */
	struct gen_arg a[2] = {{u, n / 2, 0, 0, 0},
			       {u + n / 2, n - n / 2, 1, 0, 0}};
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, gen_thread, &a[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_I(a[0].fails + a[1].fails, 0);
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad +=
		    conq_uuid_version(u[i]) != 4 || !conq_uuid_is_rfc9562(u[i]);
	CHECK_EQ(bad, 0);
	CHECK_EQ(dups(u, n), 0);
	printf("unique: %zu v4 UUIDs from 2 threads, no duplicate (%s)\n", n,
	       conq_uuid_backend());
	free(u);
}

/* ---- text ---- */

static void test_text(void)
{
	check_context("text");
	int bad = 0;
	for (int i = 0; i < 10000; i++) {
		uint8_t u[16], v[16];
		char s[CONQ_UUID_STR_LEN + 1];
		conq_uuid_v4(u);
		if (i % 2)
			conq_uuid_v7(u);
		memset(s, 'x', sizeof s);
		conq_uuid_format(u, s);
		bad += strlen(s) != CONQ_UUID_STR_LEN;
		bad += conq_uuid_parse(s, v) != 0 || memcmp(u, v, 16) != 0;
		for (int k = 0; k < CONQ_UUID_STR_LEN; k++)
			bad += k == 8 || k == 13 || k == 18 || k == 23
				   ? s[k] != '-'
				   : !((s[k] >= '0' && s[k] <= '9') ||
				       (s[k] >= 'a' && s[k] <= 'f'));
	}
	CHECK_EQ_I(bad, 0);

	static const uint8_t known[16] = {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b,
					  0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66,
					  0x14, 0x17, 0x40, 0x00};
	char s[CONQ_UUID_STR_LEN + 1];
	conq_uuid_format(known, s);
	CHECK_EQ_I(strcmp(s, "123e4567-e89b-12d3-a456-426614174000"), 0);
	uint8_t v[16];
	CHECK_EQ_I(conq_uuid_parse("123E4567-E89B-12D3-A456-426614174000", v),
		   0);
	CHECK_EQ_I(memcmp(v, known, 16), 0);
	CHECK_EQ_I(conq_uuid_parse("00000000-0000-0000-0000-000000000000", v),
		   0);
	CHECK_EQ_I(conq_uuid_parse("ffffffff-ffff-ffff-ffff-ffffffffffff", v),
		   0);

	static const char *const rejects[] = {
	    "",
	    "123e4567",
	    "123e4567-e89b-12d3-a456-42661417400",	     /* 35 */
	    "123e4567-e89b-12d3-a456-4266141740000",	     /* 37 */
	    "123e4567-e89b-12d3-a456-426614174000 ",	     /* trailing */
	    " 123e4567-e89b-12d3-a456-426614174000",	     /* leading */
	    "{123e4567-e89b-12d3-a456-426614174000}",	     /* braces */
	    "urn:uuid:123e4567-e89b-12d3-a456-426614174000", /* URN */
	    "123e4567e89b12d3a456426614174000",		     /* no hyphens */
	    "123e4567-e89b-12d3-a456_426614174000",  /* wrong separator */
	    "123e4567-e89b-12d3a-456-426614174000",  /* moved hyphen */
	    "123e4567-e89b-12d3-a456-42661417400g",  /* not hex */
	    "123e4567-e89b-12d3-a456-4266141740\n0", /* control */
	    "+23e4567-e89b-12d3-a456-426614174000",  /* sign */
	    "123e4567--89b-12d3-a456-426614174000",
	};
	for (size_t i = 0; i < sizeof rejects / sizeof *rejects; i++) {
		memcpy(v, known, 16);
		errno = 0;
		int r = conq_uuid_parse(rejects[i], v);
		if (!CHECK_EQ_I(r, -1) || !CHECK_EQ_I(errno, EINVAL))
			fprintf(stderr, "accepted: \"%s\"\n", rejects[i]);
		CHECK_EQ_I(memcmp(v, known, 16), 0); /* untouched */
	}
	/* A NUL inside: the string ends there. */
	char emb[CONQ_UUID_STR_LEN + 1];
	memcpy(emb, "123e4567-e89b-12d3-a456-426614174000", sizeof emb);
	emb[20] = '\0';
	CHECK_EQ_I(conq_uuid_parse(emb, v), -1);
}

/* ---- v7 ---- */

static uint64_t unix_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t v7_ms(const uint8_t *u)
{
	uint64_t ms = 0;
	for (int i = 0; i < 6; i++)
		ms = ms << 8 | u[i];
	return ms;
}

static void test_v7(void)
{
	check_context("v7");
	size_t n = scaled(1000000);
	uint8_t(*u)[16] = (uint8_t(*)[16])malloc(2 * n * 16);
	if (!CHECK_NOT_NULL(u))
		return;
	for (int bulk = 0; bulk < 2; bulk++) {
		uint64_t t0 = unix_ms();
		struct gen_arg a[2] = {{u, n, bulk, 1, 0},
				       {u + n, n, bulk, 1, 0}};
		pthread_t t[2];
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, gen_thread, &a[i]);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		uint64_t t1 = unix_ms();
		CHECK_EQ_I(a[0].fails + a[1].fails, 0);
		size_t order = 0, bits = 0, clock = 0;
		for (int k = 0; k < 2; k++) {
			uint8_t(*v)[16] = u + (size_t)k * n;
			for (size_t i = 0; i < n; i++) {
				order +=
				    i > 0 && memcmp(v[i - 1], v[i], 16) >= 0;
				bits += conq_uuid_version(v[i]) != 7 ||
					!conq_uuid_is_rfc9562(v[i]);
				/* The counter may run ahead of the clock when
				 * UUIDs come faster than 4096 a ms: not by
				 * more than n / 4096 ms. */
				uint64_t ms = v7_ms(v[i]);
				clock += ms < t0 || ms > t1 + n / 4096 + 1;
			}
		}
		CHECK_EQ(order, 0);
		CHECK_EQ(bits, 0);
		CHECK_EQ(clock, 0);
		CHECK_EQ(dups(u, 2 * n), 0);
		printf("v7 (%s): 2 threads x %zu, each strictly increasing\n",
		       bulk ? "bulk" : "one at a time", n);
	}
	free(u);
}

/* ---- fork ---- */

#define FORK_N 4096

/* The child's part: FORK_N v4 UUIDs and 4 KiB of random bytes into the
 * pipe. */
static void child_emit(int fd)
{
	static uint8_t buf[FORK_N * 16 + 4096];
	for (size_t i = 0; i < FORK_N; i++)
		if (conq_uuid_v4(buf + 16 * i) != 0)
			_exit(3);
	if (conq_random_bytes(buf + FORK_N * 16, 4096) != 0)
		_exit(4);
	size_t off = 0;
	while (off < sizeof buf) {
		ssize_t k = write(fd, buf + off, sizeof buf - off);
		if (k <= 0)
			_exit(5);
		off += (size_t)k;
	}
	_exit(0);
}

/* Does this kernel (or emulator) zero MADV_WIPEONFORK pages in a child
 * made by a raw clone(2)? */
static int wipeonfork_works(void)
{
	unsigned char *p =
	    (unsigned char *)mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	p[0] = 1;
	int ok = 0;
	if (madvise(p, 4096, 18 /* MADV_WIPEONFORK */) == 0) {
		pid_t c = (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
		if (c == 0)
			_exit(p[0] == 0 ? 0 : 1);
		int st;
		ok = c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) &&
		     WEXITSTATUS(st) == 0;
	}
	munmap(p, 4096);
	return ok;
}

static void fork_case(const char *how)
{
	check_context("fork %s", how);
	uint8_t warm[16];
	conq_uuid_v4(warm); /* the parent's state is keyed and buffered */
	int fds[2];
	if (!CHECK_EQ_I(pipe(fds), 0))
		return;
	pid_t c = strcmp(how, "fork") == 0
		      ? fork()
		      : (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
	if (c == 0) {
		close(fds[0]);
		child_emit(fds[1]);
	}
	close(fds[1]);
	static uint8_t mine[FORK_N * 16 + 4096], theirs[FORK_N * 16 + 4096];
	for (size_t i = 0; i < FORK_N; i++)
		conq_uuid_v4(mine + 16 * i);
	conq_random_bytes(mine + FORK_N * 16, 4096);
	size_t off = 0;
	while (off < sizeof theirs) {
		ssize_t k = read(fds[0], theirs + off, sizeof theirs - off);
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	close(fds[0]);
	int st = 0;
	CHECK_EQ_I(waitpid(c, &st, 0), c);
	CHECK_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!CHECK_EQ(off, sizeof theirs))
		return;
	/* No 16-byte piece of the child's output anywhere in the parent's
	 * (their streams would coincide at some offset: compare every UUID
	 * of one with every UUID of the other, sorted). */
	size_t n = sizeof mine / 16;
	uint8_t(*all)[16] = (uint8_t(*)[16])malloc(2 * sizeof mine);
	if (!CHECK_NOT_NULL(all))
		return;
	memcpy(all, mine, sizeof mine);
	memcpy(all + n, theirs, sizeof theirs);
	size_t d = dups(all, 2 * n);
	free(all);
	if (!CHECK_EQ(d, 0))
		return;
	printf("fork (%s): parent and child, %zu 16-byte pieces each, none "
	       "shared\n",
	       how, n);
}

static void test_fork(void)
{
	fork_case("fork");
#ifdef UUID_SANITIZED
	printf("fork (clone): skipped in a sanitizer build (a raw clone skips "
	       "the runtime's fork handling)\n");
	return;
#endif
	if (wipeonfork_works())
		fork_case("clone");
	else
		printf("fork (clone): skipped, MADV_WIPEONFORK not honoured "
		       "here (an emulator?); fork() is covered by the fork "
		       "generation\n");
}

/* ---- threads ---- */

static void *one_uuid(void *p)
{
	uint8_t u[16];
	*(int *)p += conq_uuid_v4(u) != 0;
	return NULL;
}

static void test_threads(void)
{
	check_context("threads");
	int fails = 0;
	uint8_t u[16];
	conq_uuid_v4(u); /* this thread's */
	size_t before = conq__uuid_live_states();
	const int n = 2000;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, one_uuid, &fails) != 0) {
			fails++;
			break;
		}
		pthread_join(t, NULL);
	}
	CHECK_EQ_I(fails, 0);
	/* Each thread's state was unmapped at its exit (the key's destructor
	 * runs before pthread_join returns). */
	CHECK_EQ(conq__uuid_live_states(), before);
	CHECK_GE(before, 1);
	/* Two at once: two states, then none. */
	pthread_t t[2];
	int f2[2] = {0, 0}; /* one counter each: they run at once */
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, one_uuid, &f2[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_I(f2[0] + f2[1], 0);
	CHECK_EQ(conq__uuid_live_states(), before);
	printf("threads: %d threads with one UUID each, %zu state(s) live "
	       "after them, as before\n",
	       n, conq__uuid_live_states());
}

/* ---- seccomp ---- */

#if defined(__x86_64__)
#define AUDIT_ARCH_HERE 0xc000003eu /* AUDIT_ARCH_X86_64 */
#elif defined(__aarch64__)
#define AUDIT_ARCH_HERE 0xc00000b7u /* AUDIT_ARCH_AARCH64 */
#endif

#ifdef AUDIT_ARCH_HERE
/* Install a filter: getrandom gets `getrandom_ret`; clock_gettime, exit,
 * exit_group and write are allowed; any other system call gets `others`
 * (SECCOMP_RET_KILL_PROCESS: SIGSYS). */
static int install_filter(uint32_t getrandom_ret, uint32_t others)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getrandom, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, getrandom_ret),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_gettime, 4, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 3, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_write, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, others),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof *f), f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

/* Can this process install a filter at all (emulators may refuse)? In a
 * child, so that the parent stays unfiltered. */
static int seccomp_works(void)
{
	pid_t c = fork();
	if (c == 0)
		_exit(install_filter(SECCOMP_RET_ALLOW, SECCOMP_RET_ALLOW) == 0
			  ? 0
			  : 1);
	int st;
	return c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0;
}

static bool run_filtered(const char *what, void (*body)(void))
{
	pid_t c = fork();
	if (c == 0) {
		body();
		_exit(0);
	}
	int st = 0;
	CHECK_EQ_I(waitpid(c, &st, 0), c);
	if (WIFSIGNALED(st)) {
		CHECK_FAIL("%s: killed by signal %d (SIGSYS: a system call)",
			   what, WTERMSIG(st));
		return false;
	}
	return CHECK_EQ_I(WEXITSTATUS(st), 0);
}

static void no_syscalls_body(void)
{
	static uint8_t u[1000][16];
	static uint8_t bytes[4096];
	/* The first call keys the state (mmap, madvise, getrandom). */
	if (conq_uuid_v4(u[0]) != 0 || conq_uuid_v7(u[0]) != 0)
		_exit(2);
	/* The vDSO calls getrandom itself after the kernel reseeds (about
	 * once a minute): allowed there, and counted by uuid_strace_*. */
	int vdso = strcmp(conq_uuid_backend(), "vdso") == 0;
	if (install_filter(vdso ? SECCOMP_RET_ALLOW : SECCOMP_RET_KILL_PROCESS,
			   SECCOMP_RET_KILL_PROCESS) != 0)
		_exit(3);
	size_t n = (size_t)(1000000 * g_scale) + 1000;
	for (size_t i = 0; i < n; i++)
		if (conq_uuid_v4(u[i % 1000]) != 0)
			_exit(4);
	for (size_t i = 0; i < n; i += 1000)
		if (conq_uuid_v4_bulk(u, 1000) != 0)
			_exit(5);
	for (size_t i = 0; i < n / 10; i++)
		if (conq_uuid_v7(u[i % 1000]) != 0)
			_exit(6);
	for (int i = 0; i < 256; i++)
		if (conq_random_bytes(bytes, sizeof bytes) != 0)
			_exit(7);
}

static void entropy_body(void)
{
	/* A fresh child: its state was wiped at the fork (or its generation
	 * is stale), so the first call must key it again, and cannot. */
	uint8_t u[16], keep[16];
	memset(u, 0xa5, sizeof u);
	memcpy(keep, u, 16);
	int code = 0;
	errno = 0;
	if (conq_uuid_v4(u) != -1 || errno != ENOSYS || memcmp(u, keep, 16))
		code |= 1;
	errno = 0;
	if (conq_uuid_v7(u) != -1 || errno != ENOSYS || memcmp(u, keep, 16))
		code |= 2;
	uint8_t b[64];
	errno = 0;
	if (conq_random_bytes(b, sizeof b) != -1 || errno != ENOSYS)
		code |= 4;
	uint8_t bulk[4][16];
	errno = 0;
	if (conq_uuid_v4_bulk(bulk, 4) != -1 || errno != ENOSYS)
		code |= 8;
	_exit(code);
}

static void entropy_setup_body(void)
{
	if (install_filter(SECCOMP_RET_ERRNO | ENOSYS, SECCOMP_RET_ALLOW) != 0)
		_exit(3);
	/* Forked once more, after the filter, so that the state to key is a
	 * child's (the filter is inherited). */
	pid_t c = fork();
	if (c == 0)
		entropy_body();
	int st;
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st))
		_exit(9);
	_exit(WEXITSTATUS(st));
}

static void test_syscalls(void)
{
	check_context("syscalls");
#ifdef UUID_SANITIZED
	check_skip("syscalls: a sanitizer build (its runtime makes system "
		   "calls of its own); the plain builds run this case");
	return;
#endif
	if (!seccomp_works()) {
		check_skip("syscalls: no seccomp filters here (an emulator?)");
		return;
	}
	uint8_t u[16];
	conq_uuid_v4(u); /* the parent keyed: the children are forks */
	if (!run_filtered("no system call in steady state", no_syscalls_body))
		return;
	printf("syscalls: none in %zu v4, %zu bulk, %zu v7 and 1 MiB of "
	       "random bytes after the first call\n",
	       (size_t)(1000000 * g_scale) + 1000,
	       (size_t)(1000000 * g_scale) + 1000,
	       ((size_t)(1000000 * g_scale) + 1000) / 10);
}

static void test_entropy(void)
{
	check_context("entropy");
	if (!seccomp_works()) {
		check_skip("entropy: no seccomp filters here (an emulator?)");
		return;
	}
	uint8_t u[16];
	conq_uuid_v4(u);
	pid_t c = fork();
	if (c == 0)
		entropy_setup_body();
	int st = 0;
	CHECK_EQ_I(waitpid(c, &st, 0), c);
	CHECK_TRUE(WIFEXITED(st));
	if (!CHECK_EQ_I(WEXITSTATUS(st), 0))
		fprintf(stderr, "entropy: failure mask %d\n", WEXITSTATUS(st));
}
#else
static void test_syscalls(void)
{
	check_skip("syscalls: no seccomp filter for this architecture");
}
static void test_entropy(void)
{
	check_skip("entropy: no seccomp filter for this architecture");
}
#endif

/* ---- count (for uuid_strace.sh) ---- */

/* `test_uuid count N`: one v4 (the state keyed), then N v4, N / 64 bulk
 * calls of 64, N / 10 v7: strace -c counts the system calls of this run
 * against those of `count 0`. */
static int run_count(size_t n)
{
	uint8_t u[64][16];
	int fails = conq_uuid_v4(u[0]) != 0 || conq_uuid_v7(u[0]) != 0;
	for (size_t i = 0; i < n; i++)
		fails += conq_uuid_v4(u[i % 64]) != 0;
	for (size_t i = 0; i < n / 64; i++)
		fails += conq_uuid_v4_bulk(u, 64) != 0;
	for (size_t i = 0; i < n / 10; i++)
		fails += conq_uuid_v7(u[i % 64]) != 0;
	printf("count: %zu v4, %zu bulk of 64, %zu v7 (%s)\n", n, n / 64,
	       n / 10, conq_uuid_backend());
	return fails != 0;
}

/* ---- args ---- */

static void test_args(void)
{
	check_context("args");
	errno = 0;
	CHECK_EQ_I(conq_uuid_v4_bulk(NULL, 1), -1);
	CHECK_EQ_I(errno, EINVAL);
	errno = 0;
	CHECK_EQ_I(conq_uuid_v7_bulk(NULL, 1), -1);
	CHECK_EQ_I(errno, EINVAL);
	errno = 0;
	CHECK_EQ_I(conq_random_bytes(NULL, 1), -1);
	CHECK_EQ_I(errno, EINVAL);
	uint8_t one[1][16];
	errno = 0; /* n * 16 would overflow: refused, nothing written */
	CHECK_EQ_I(conq_uuid_v4_bulk(one, SIZE_MAX / 16 + 1), -1);
	CHECK_EQ_I(errno, EINVAL);
	errno = 0;
	CHECK_EQ_I(conq_uuid_v7_bulk(one, SIZE_MAX / 16 + 1), -1);
	CHECK_EQ_I(errno, EINVAL);
	CHECK_EQ_I(conq_uuid_v4_bulk(NULL, 0), 0);
	CHECK_EQ_I(conq_random_bytes(NULL, 0), 0);
	uint8_t u[16];
	errno = 0;
	CHECK_EQ_I(conq_uuid_parse(NULL, u), -1);
	CHECK_EQ_I(errno, EINVAL);
	errno = 0;
	CHECK_EQ_I(
	    conq_uuid_parse("123e4567-e89b-12d3-a456-426614174000", NULL), -1);
	CHECK_EQ_I(errno, EINVAL);
	const char *b = conq_uuid_backend();
	CHECK_TRUE(strcmp(b, "chacha20") == 0 || strcmp(b, "vdso") == 0);
	const char *want = getenv("CONQ_UUID_BACKEND");
	printf("backend: %s (CONQ_UUID_BACKEND=%s)\n", b, want ? want : "");
}

int main(int argc, char **argv)
{
	const char *env = getenv("CONQ_TEST_SCALE");
	if (env != NULL && atof(env) > 0)
		g_scale = atof(env);
	setvbuf(stdout, NULL, _IONBF, 0);
	static const struct {
		const char *name;
		void (*fn)(void);
	} cases[] = {
	    {"chacha", test_chacha},   {"bits", test_bits},
	    {"unique", test_unique},   {"text", test_text},
	    {"v7", test_v7},	       {"fork", test_fork},
	    {"threads", test_threads}, {"syscalls", test_syscalls},
	    {"entropy", test_entropy}, {"args", test_args},
	};
	const char *only = argc > 1 ? argv[1] : NULL;
	if (only != NULL && strcmp(only, "count") == 0)
		return run_count(argc > 2 ? (size_t)atol(argv[2]) : 0);
	int ran = 0;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		if (only == NULL || strcmp(only, cases[i].name) == 0) {
			cases[i].fn();
			ran++;
		}
	if (ran == 0) {
		fprintf(stderr, "test_uuid: no case '%s'\n", only);
		return 2;
	}
	return check_report();
}
