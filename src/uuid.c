/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/uuid.h: per-thread CSPRNG state, UUID v4 and v7, text form.
 *
 * The state of a thread (struct rng) is a page of its own, mapped
 * MADV_WIPEONFORK, reached through an initial-exec TLS pointer. Its buffer
 * holds random bytes not yet handed out, at its end: [BATCH - left, BATCH)
 * (chacha20: key stream, refilled 992 bytes at a time; vdso: the vDSO's
 * output, VDSO_BATCH bytes at a time).
 * A UUID is the next 16 bytes, copied out and wiped. The fast path checks
 * two words of the state: left (zero in a child, the page wiped) and gen
 * (the fork generation it was keyed in: for kernels that refuse
 * MADV_WIPEONFORK, and emulators that accept and ignore it).
 */
#define _GNU_SOURCE /* MADV_WIPEONFORK, ElfW */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "conq/impl/atomic.h"
#include "conq/impl/chacha20.h"
#include "conq/impl/testing.h"
#include "conq/uuid.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

#define BATCH	      1024 /* bytes of key stream per refill: 16 blocks */
#define KEY_LEN	      32
#define REKEY_BATCHES (1u << 20) /* getrandom again after 1 GiB */
/* The vDSO backend's buffer: 16 UUIDs' worth a call (a call costs about
 * what 16 bytes do: 35 ns for 16 B, 26 ns per 16 B in 256-byte calls on
 * the AMD guest); requests of this size or more go straight through. */
#define VDSO_BATCH 256

enum { BACKEND_CHACHA20, BACKEND_VDSO };

struct rng {
	size_t left;	   /* unread bytes at the end of buf */
	unsigned long gen; /* g_fork_gen when keyed; 0: never / wiped */
	uint32_t batches;  /* refills since the last getrandom */
	uint64_t v7_last;  /* unix ms << 12 | rand_a of the last v7 */
	uint8_t key[KEY_LEN];
	uint8_t buf[BATCH] __attribute__((aligned(64)));
};

/* The vDSO's getrandom (Linux 6.11: include/vdso/getrandom.h). */
struct vgetrandom_params {
	uint32_t size_of_opaque_state;
	uint32_t mmap_prot;
	uint32_t mmap_flags;
	uint32_t reserved[13];
};
typedef long (*vgetrandom_fn)(void *buf, size_t len, unsigned flags,
			      void *state, size_t state_len);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_key;
static int g_key_ok;
static size_t g_page;
/* Incremented in a child after fork(): written only there, while the child
 * has one thread; read by that thread's calls. Starts at 1, so that a
 * zeroed (wiped) state never matches. */
static unsigned long g_fork_gen = 1;
static int g_backend = BACKEND_CHACHA20;
static vgetrandom_fn g_vgetrandom;
static struct vgetrandom_params g_vparams;

static __thread struct rng *tls_rng __attribute__((tls_model("initial-exec")));
/* The vDSO's opaque state of this thread (vdso backend): outside the
 * wiped page, so that a child keeps using the page (the kernel wipes its
 * contents at the fork, and the vDSO starts it afresh). */
static __thread void *tls_vstate __attribute__((tls_model("initial-exec")));
static size_t g_live; /* states mapped (a test's count: relaxed) */

size_t conq__uuid_live_states(void)
{
	return conq__load_relaxed(&g_live);
}

static void wipe(void *p, size_t n)
{
	explicit_bzero(p, n);
}

static void on_fork_child(void)
{
	g_fork_gen++;
}

/* Thread exit: wipe and unmap the thread's state. */
static void rng_free(void *p)
{
	struct rng *r = (struct rng *)p;
	if (r == NULL)
		return;
	if (tls_rng == r)
		tls_rng = NULL;
	if (tls_vstate != NULL) {
		wipe(tls_vstate, g_vparams.size_of_opaque_state);
		munmap(tls_vstate, g_page);
		tls_vstate = NULL;
	}
	wipe(r, sizeof *r);
	munmap(r, g_page);
	conq__faa_relaxed(&g_live, (size_t)-1);
}

/* A function the vDSO exports, found from its ELF image (getauxval's
 * AT_SYSINFO_EHDR: the kernel's tools/testing/selftests/vDSO/parse_vdso.c
 * does the same), so that no dlopen is needed: static binaries find it
 * too. NULL if the kernel has no vDSO or no such symbol. */
static void *vdso_sym(const char *name)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (base == 0)
		return NULL;
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return NULL;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	uintptr_t bias = 0;
	int have_load = 0;
	const ElfW(Dyn) *dyn = NULL;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !have_load) {
			bias = base + ph[i].p_offset - ph[i].p_vaddr;
			have_load = 1;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dyn = (const ElfW(Dyn) *)(base + ph[i].p_offset);
		}
	}
	if (!have_load || dyn == NULL)
		return NULL;
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL;
	const ElfW(Word) *hash = NULL;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		uintptr_t v = bias + (uintptr_t)dyn->d_un.d_ptr;
		if (dyn->d_tag == DT_SYMTAB)
			sym = (const ElfW(Sym) *)v;
		else if (dyn->d_tag == DT_STRTAB)
			str = (const char *)v;
		else if (dyn->d_tag == DT_HASH)
			hash = (const ElfW(Word) *)v;
	}
	if (sym == NULL || str == NULL || hash == NULL)
		return NULL;
	ElfW(Word) nsym = hash[1]; /* nchain: one per symbol */
	for (ElfW(Word) i = 0; i < nsym; i++) {
		unsigned type = ELF64_ST_TYPE(sym[i].st_info);
		unsigned bind = ELF64_ST_BIND(sym[i].st_info);
		if (type == STT_FUNC &&
		    (bind == STB_GLOBAL || bind == STB_WEAK) &&
		    sym[i].st_shndx != SHN_UNDEF &&
		    strcmp(str + sym[i].st_name, name) == 0)
			return (void *)(bias + (uintptr_t)sym[i].st_value);
	}
	return NULL;
}

static void vdso_init(void)
{
	void *f = vdso_sym("__vdso_getrandom");
	if (f == NULL)
		return;
	vgetrandom_fn fn;
	memcpy(&fn, &f, sizeof fn);
	struct vgetrandom_params p;
	memset(&p, 0, sizeof p);
	if (fn(NULL, 0, 0, &p, ~(size_t)0) != 0 ||
	    p.size_of_opaque_state == 0 || p.size_of_opaque_state > g_page)
		return;
	g_vparams = p;
	g_vgetrandom = fn;
	g_backend = BACKEND_VDSO;
}

static void global_init(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	g_page = pg > 0 ? (size_t)pg : 4096;
	while (g_page < sizeof(struct rng))
		g_page *= 2;
	g_key_ok = pthread_key_create(&g_key, rng_free) == 0;
	pthread_atfork(NULL, NULL, on_fork_child);
	const char *b = getenv("CONQ_UUID_BACKEND");
	if (b == NULL || strcmp(b, "chacha20") != 0)
		vdso_init();
}

/* n bytes from getrandom(2), all or -1 with errno. */
static int os_random(uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t k = getrandom(p, n, 0);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Fill buf with fresh key stream (chacha20): 16 blocks under the key, the
 * first 32 bytes the next key (fast key erasure), wiped; every
 * REKEY_BATCHES refills, fresh getrandom bytes are mixed into the key (a
 * failure there is not fatal: the key is still secret; it is tried again
 * at the next refill). */
static int refill(struct rng *r)
{
	if (++r->batches >= REKEY_BATCHES) {
		uint8_t fresh[KEY_LEN];
		if (os_random(fresh, sizeof fresh) == 0) {
			for (int i = 0; i < KEY_LEN; i++)
				r->key[i] ^= fresh[i];
			r->batches = 0;
		}
		wipe(fresh, sizeof fresh);
	}
	static const uint8_t nonce[12];
	for (uint32_t b = 0; b < BATCH / 256; b++)
		conq__chacha20_blocks4(r->key, 4 * b, nonce, r->buf + 256 * b);
	memcpy(r->key, r->buf, KEY_LEN);
	wipe(r->buf, KEY_LEN);
	r->left = BATCH - KEY_LEN;
	return 0;
}

/* The calling thread's state, made or keyed as needed (the fork
 * generation checked); NULL with errno. */
static struct rng *rng_slow(void)
{
	pthread_once(&g_once, global_init);
	struct rng *r = tls_rng;
	if (r == NULL) {
		void *m = mmap(NULL, g_page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			errno = ENOMEM;
			return NULL;
		}
		/* Refused by kernels before 4.14: then the fork generation
		 * alone tells a child. */
		(void)madvise(m, g_page, MADV_WIPEONFORK);
		r = (struct rng *)m;
		conq__faa_relaxed(&g_live, 1);
		if (g_key_ok)
			(void)pthread_setspecific(g_key, r);
		tls_rng = r;
	}
	if (r->gen != g_fork_gen) {
		/* New, or a child's (wiped, or copied from the parent):
		 * nothing in it may be used. */
		uint64_t v7 = r->gen != 0 ? r->v7_last : 0;
		wipe(r, sizeof *r);
		r->v7_last = v7;
		if (g_backend == BACKEND_VDSO) {
			if (tls_vstate == NULL) {
				void *vs =
				    mmap(NULL, g_page, (int)g_vparams.mmap_prot,
					 (int)g_vparams.mmap_flags, -1, 0);
				if (vs == MAP_FAILED) {
					errno = ENOMEM;
					return NULL;
				}
				tls_vstate = vs;
			}
		} else if (os_random(r->key, KEY_LEN) != 0) {
			return NULL;
		}
		r->gen = g_fork_gen;
	}
	return r;
}

/* The vDSO backend: n bytes from the kernel's generator into out. */
static int vdso_read(uint8_t *out, size_t n)
{
	while (n > 0) {
		long k = g_vgetrandom(out, n, 0, tls_vstate,
				      g_vparams.size_of_opaque_state);
		if (k < 0) {
			if (k == -EINTR)
				continue;
			errno = (int)-k;
			return -1;
		}
		out += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Hand out n buffered bytes: copy, then wipe them from the buffer. */
static inline void take(struct rng *r, uint8_t *out, size_t n)
{
	uint8_t *p = r->buf + BATCH - r->left;
	memcpy(out, p, n);
	memset(p, 0, n);
	r->left -= n;
}

/* n random bytes into out, any n: the buffer and its refills (chacha20),
 * or the vDSO. 0, or -1 with errno. */
static __attribute__((noinline)) int rand_slow(uint8_t *out, size_t n)
{
	struct rng *r = rng_slow();
	if (r == NULL)
		return -1;
	if (g_backend == BACKEND_VDSO && n >= VDSO_BATCH)
		return vdso_read(out, n); /* straight in, nothing kept */
	while (n > 0) {
		if (r->left == 0) {
			if (g_backend != BACKEND_VDSO) {
				if (refill(r) != 0)
					return -1;
			} else if (vdso_read(r->buf + BATCH - VDSO_BATCH,
					     VDSO_BATCH) != 0) {
				return -1;
			} else {
				r->left = VDSO_BATCH;
			}
		}
		size_t k = r->left < n ? r->left : n;
		take(r, out, k);
		out += k;
		n -= k;
	}
	return 0;
}

/* The fast path: a keyed state with n bytes buffered. */
static inline int rand_into(uint8_t *out, size_t n)
{
	struct rng *r = tls_rng;
	if (CONQ__LIKELY(r != NULL && r->left >= n && r->gen == g_fork_gen)) {
		take(r, out, n);
		return 0;
	}
	return rand_slow(out, n);
}

static inline void set_v4(uint8_t *u)
{
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
}

int conq_uuid_v4(uint8_t out[16])
{
	uint8_t u[16];
	if (CONQ__UNLIKELY(rand_into(u, 16) != 0))
		return -1;
	set_v4(u);
	memcpy(out, u, 16);
	return 0;
}

/* The random bytes of n UUIDs into out (what both bulk forms start
 * with): conq_random_bytes' checks, and n * 16 that fits a size_t. */
static int bulk_random(uint8_t (*out)[16], size_t n)
{
	if (n > SIZE_MAX / 16) {
		errno = EINVAL;
		return -1;
	}
	return conq_random_bytes(out, 16 * n);
}

int conq_uuid_v4_bulk(uint8_t (*out)[16], size_t n)
{
	if (bulk_random(out, n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		set_v4(out[i]);
	return 0;
}

/* Unix time in ms << 12 | the sub-ms fraction in 4096ths, or -1. */
static int64_t v7_now(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return -1;
	if (ts.tv_sec < 0)
		return 0;
	uint64_t ms =
	    (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
	uint64_t frac = ((uint64_t)ts.tv_nsec % 1000000u) * 4096u / 1000000u;
	return (int64_t)(ms << 12 | frac);
}

/* Make u (16 random bytes) a v7 at clock value t (v7_now's form): a
 * thread's values strictly increase (method 3, then method 1's counter
 * when the clock has not moved on or went back). r: the thread's state. */
static inline void make_v7(struct rng *r, uint64_t t, uint8_t *u)
{
	if (t <= r->v7_last)
		t = r->v7_last + 1;
	r->v7_last = t;
	uint64_t ms = t >> 12;
	for (int i = 0; i < 6; i++)
		u[i] = (uint8_t)(ms >> (40 - 8 * i));
	u[6] = (uint8_t)(0x70 | ((t >> 8) & 0x0f));
	u[7] = (uint8_t)t;
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
}

int conq_uuid_v7(uint8_t out[16])
{
	int64_t t = v7_now();
	uint8_t u[16];
	if (CONQ__UNLIKELY(t < 0 || rand_into(u, 16) != 0))
		return -1;
	make_v7(tls_rng, (uint64_t)t, u); /* rand_into made it */
	memcpy(out, u, 16);
	return 0;
}

int conq_uuid_v7_bulk(uint8_t (*out)[16], size_t n)
{
	if (bulk_random(out, n) != 0)
		return -1;
	/* One clock read per 64 UUIDs; the others count on from it. */
	for (size_t i = 0; i < n; i++) {
		int64_t t = 0;
		if (i % 64 == 0 && (t = v7_now()) < 0)
			return -1;
		make_v7(tls_rng, (uint64_t)t, out[i]);
	}
	return 0;
}

int conq_random_bytes(void *buf, size_t n)
{
	if (buf == NULL && n > 0) {
		errno = EINVAL;
		return -1;
	}
	return n > 0 ? rand_slow((uint8_t *)buf, n) : 0;
}

const char *conq_uuid_backend(void)
{
	pthread_once(&g_once, global_init);
	return g_backend == BACKEND_VDSO ? "vdso" : "chacha20";
}

/* ---- text form ---- */

void conq_uuid_format(const uint8_t uuid[16], char out[CONQ_UUID_STR_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	char *o = out;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*o++ = '-';
		*o++ = hex[uuid[i] >> 4];
		*o++ = hex[uuid[i] & 15];
	}
	*o = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int conq_uuid_parse(const char *s, uint8_t out[16])
{
	uint8_t u[16];
	if (s == NULL || out == NULL)
		goto bad;
	for (int i = 0, k = 0; i < CONQ_UUID_STR_LEN; k++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				goto bad;
			i++;
		}
		/* A NUL fails hexval, so nothing past it is read. */
		int hi = hexval(s[i]);
		if (hi < 0)
			goto bad;
		int lo = hexval(s[i + 1]);
		if (lo < 0)
			goto bad;
		u[k] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	if (s[CONQ_UUID_STR_LEN] != '\0')
		goto bad;
	memcpy(out, u, 16);
	return 0;
bad:
	errno = EINVAL;
	return -1;
}
