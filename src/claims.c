/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/claims.c - the claim registry's cold paths (conq/impl/claims.h):
 * taking and freeing entries, the thread-local table of a thread's entries,
 * the liveness rules, detach, and what fork() does to all of it.
 *
 * Process-local state, kept out of the shared memory:
 *  - each thread's table of (registry address, entry) pairs, with the last
 *    one used in front (the hot path of conq__claims_enter);
 *  - the registries this process has attached (taken an entry in), under a
 *    mutex: a thread's exit frees only entries of registries still attached,
 *    since a detached one may have been unmapped;
 *  - a generation, moved on by every detach and in a fork child: a thread
 *    whose table is from an older generation revalidates it before use, so
 *    that a registry unmapped, and another mapped at the same address, is
 *    not mistaken for the old one.
 */
#define _GNU_SOURCE /* syscall(SYS_gettid) */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "conq/impl/claims.h"

struct conq__tl_slot {
	conq__claims *reg;
	conq__claim_entry *e;
};

/* One thread's entries. owner 0: not set up in this process yet. */
struct conq__tl {
	uint64_t owner;
	uint64_t gen;
	conq__claims *last_reg;
	conq__claim_entry *last_e;
	struct conq__tl_slot *slots;
	unsigned n, cap;
};

static _Thread_local struct conq__tl conq__tl;

static pthread_once_t conq__claims_once = PTHREAD_ONCE_INIT;
static pthread_key_t conq__claims_key;
static pthread_mutex_t conq__claims_mu = PTHREAD_MUTEX_INITIALIZER;
/* Moved on by detach and fork; 0 is never current (a fresh thread's). */
static uint64_t conq__claims_gen = 1;
/* Under conq__claims_mu. */
static conq__claims **conq__attached;
static unsigned conq__nattached, conq__capattached;

/* This process's pid and start time, cached (a fork child has another pid,
 * so it reads its own). */
static uint64_t conq__self_pid;
static uint64_t conq__self_start;

size_t conq__claims_memsize(unsigned n)
{
	if (n == 0 || n > CONQ__CLAIMS_MAX) {
		errno = EINVAL;
		return 0;
	}
	return sizeof(conq__claims) + (size_t)n * sizeof(conq__claim_entry);
}

int conq__claims_init(conq__claims *reg, unsigned n)
{
	size_t bytes = conq__claims_memsize(n);
	if (reg == NULL || bytes == 0 || (uintptr_t)reg % CONQ_PAD != 0)
		return EINVAL;
	/* Plain stores: nobody sees the registry before its ring is
	 * published. */
	memset(reg, 0, bytes);
	reg->magic = CONQ__CLAIMS_MAGIC;
	reg->n = n;
	return 0;
}

bool conq__claims_valid(const conq__claims *reg, size_t bytes)
{
	if (reg == NULL || (uintptr_t)reg % CONQ_PAD != 0 ||
	    bytes < sizeof(conq__claims) || reg->magic != CONQ__CLAIMS_MAGIC ||
	    reg->n == 0 || reg->n > CONQ__CLAIMS_MAX)
		return false;
	return conq__claims_memsize((unsigned)reg->n) <= bytes;
}

/* ------------------------------------------------------------- liveness */

/* Fields of /proc/PID/stat: the state (3), num_threads (20), starttime
 * (22). Read through a descriptor of /proc and a relative path, never as
 * "/proc/self" or "/proc/<own pid>": qemu-user fakes those, and its field
 * 22 differs by a tick from what other processes read for the same
 * process. 0 on success; ENOENT: no such process; another errno: /proc
 * could not tell. */
static int conq__proc_stat(uint64_t pid, char *state, long *threads,
			   uint64_t *start)
{
	char path[32], buf[1024];
	int saved = errno, rc = 0;
	int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		rc = errno ? errno : EIO;
		goto out;
	}
	/* "%llu/stat" by hand: no stdio in the library. */
	char digits[24];
	int nd = 0;
	uint64_t v = pid;
	do {
		digits[nd++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	int k = 0;
	while (nd > 0)
		path[k++] = digits[--nd];
	memcpy(path + k, "/stat", 6);
	int fd = openat(dir, path, O_RDONLY | O_CLOEXEC);
	int open_errno = errno;
	close(dir);
	if (fd < 0) {
		rc = open_errno == ENOENT || open_errno == ESRCH ? ENOENT
								 : open_errno;
		goto out;
	}
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0) {
		/* A process reaped while we read shows an empty file. */
		rc = n == 0 ? ENOENT : EIO;
		goto out;
	}
	buf[n] = '\0';
	/* The name (field 2) is in parentheses and may hold anything: fields
	 * are counted from the last ')'. */
	char *p = strrchr(buf, ')');
	if (p == NULL || p[1] != ' ' || p[2] == '\0') {
		rc = EIO;
		goto out;
	}
	*state = p[2];
	int field = 3;
	*threads = -1;
	*start = 0;
	bool have_start = false;
	for (p += 3; *p != '\0' && !have_start; p++) {
		if (*p != ' ')
			continue;
		field++;
		if (field == 20)
			*threads = strtol(p + 1, NULL, 10);
		else if (field == 22) {
			*start = strtoull(p + 1, NULL, 10);
			have_start = true;
		}
	}
	if (!have_start)
		rc = EIO;
out:
	errno = saved;
	return rc;
}

uint64_t conq__claims_self_start(void)
{
	uint64_t pid = (uint64_t)getpid();
	/* acquire: pairs with the release below (another thread's caching):
	 * the start cached with this pid is visible. */
	if (conq__load_acquire(&conq__self_pid) == pid)
		return conq__load_relaxed(&conq__self_start);
	char state;
	long threads;
	uint64_t start = 0;
	if (conq__proc_stat(pid, &state, &threads, &start) != 0)
		start = 0;
	/* relaxed, then release: two threads may race here, both with the
	 * same values. */
	conq__store_relaxed(&conq__self_start, start);
	conq__store_release(&conq__self_pid, pid);
	return start;
}

bool conq__claims_process_alive(uint64_t pid, uint64_t start)
{
	if (pid == 0)
		return false;
	if (pid == (uint64_t)getpid()) /* ours, or an older process's */
		return start == conq__claims_self_start();
	int saved = errno;
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
		errno = saved;
		return false;
	}
	errno = saved;
	char state;
	long threads;
	uint64_t now_start;
	int rc = conq__proc_stat(pid, &state, &threads, &now_start);
	if (rc == ENOENT)
		return false; /* reaped since kill() looked */
	if (rc != 0)
		return true; /* /proc cannot tell: assume alive */
	if (start != 0 && now_start != start)
		return false; /* the pid belongs to another process now */
	/* A zombie: dead once no thread is left in it (a group leader that
	 * exited while other threads run is a zombie with num_threads > 1). */
	if ((state == 'Z' || state == 'X' || state == 'x') && threads <= 1)
		return false;
	return true;
}

unsigned conq__claims_live(conq__claims *reg, uint64_t lo, uint64_t span,
			   uint64_t *first)
{
	conq__claim_entry *es = conq__claims_entries(reg);
	uint64_t best = span;
	unsigned count = 0;
	for (uint64_t i = 0; i < reg->n; i++) {
		/* [CL2] acquire: pairs with [CL1] (the owner's intend or
		 * done): a value stored after a commit carries the commit. */
		uint64_t t = conq__load_acquire(&es[i].intent);
		if (t == 0 || t - lo >= span)
			continue;
		/* [CL3] acquire: pairs with [CL3] (the CAS that took the
		 * entry): read after the intent, so a new owner seen here is
		 * one that took the entry from a free or dead one. */
		uint64_t o = conq__load_acquire(&es[i].owner);
		if (o == 0)
			continue; /* freed: its thread exited */
		/* relaxed: written by the owner after its CAS and before its
		 * first intent [CL1]; an older value (the previous owner's)
		 * can only make the entry look dead while it still holds that
		 * previous owner's intent, which is dead. */
		uint64_t s = conq__load_relaxed(&es[i].start);
		if (!conq__claims_process_alive(o >> 32, s))
			continue;
		count++;
		if (t - lo < best)
			best = t - lo;
	}
	if (first != NULL)
		*first = best;
	return count;
}

/* ------------------------------------------------ entries and threads */

static bool conq__attached_has(const conq__claims *reg)
{
	for (unsigned i = 0; i < conq__nattached; i++)
		if (conq__attached[i] == reg)
			return true;
	return false;
}

/* Free e if this thread (owner) still holds it. */
static void conq__claims_free(conq__claim_entry *e, uint64_t owner)
{
	uint64_t o = owner;
	conq__claims_done(e); /* [CL1] */
	/* [CL3] CAS acq_rel: pairs with a later taker's [CL3]. */
	conq__cas_strong_acq_rel(&e->owner, &o, (uint64_t)0);
}

static void conq__claims_thread_exit(void *arg)
{
	struct conq__tl *tl = (struct conq__tl *)arg;
	pthread_mutex_lock(&conq__claims_mu);
	for (unsigned i = 0; i < tl->n; i++)
		if (conq__attached_has(tl->slots[i].reg))
			conq__claims_free(tl->slots[i].e, tl->owner);
	pthread_mutex_unlock(&conq__claims_mu);
	free(tl->slots);
	memset(tl, 0, sizeof *tl);
}

static void conq__claims_prefork(void)
{
	pthread_mutex_lock(&conq__claims_mu);
}

static void conq__claims_postfork_parent(void)
{
	pthread_mutex_unlock(&conq__claims_mu);
}

/* The child has one thread, this one, and none of the parent's entries:
 * its claims need entries of its own (owner is pid << 32 | tid). */
static void conq__claims_postfork_child(void)
{
	pthread_mutex_unlock(&conq__claims_mu); /* the prefork lock, ours */
	conq__nattached = 0;
	conq__store_relaxed(&conq__claims_gen, conq__claims_gen + 1);
	struct conq__tl *tl = &conq__tl;
	tl->owner = 0;
	tl->n = 0;
	tl->last_reg = NULL;
	tl->last_e = NULL;
	tl->gen = 0;
}

static void conq__claims_setup(void)
{
	pthread_key_create(&conq__claims_key, conq__claims_thread_exit);
	pthread_atfork(conq__claims_prefork, conq__claims_postfork_parent,
		       conq__claims_postfork_child);
}

/* Take an entry of reg for owner: one it already has, a free one, else
 * one whose process is dead. NULL if none. Under conq__claims_mu. */
static conq__claim_entry *conq__claims_take(conq__claims *reg, uint64_t owner)
{
	conq__claim_entry *es = conq__claims_entries(reg);
	uint64_t n = reg->n;
	for (uint64_t i = 0; i < n; i++)
		/* relaxed: only we store our own owner word. */
		if (conq__load_relaxed(&es[i].owner) == owner)
			return &es[i];
	for (int pass = 0; pass < 2; pass++) {
		for (uint64_t i = 0; i < n; i++) {
			/* [CL3] acquire: pairs with [CL3]. */
			uint64_t o = conq__load_acquire(&es[i].owner);
			if (pass == 0
				? o != 0
				: o == 0 || conq__claims_process_alive(
						o >> 32, conq__load_relaxed(
							     &es[i].start)))
				continue;
			/* [CL3] CAS acq_rel: the entry is ours; pairs with
			 * the other takers' and the checkers' [CL3]. */
			if (conq__cas_strong_acq_rel(&es[i].owner, &o, owner)) {
				/* relaxed: published by the release of the
				 * first intent [CL1] below and later. */
				conq__store_relaxed(&es[i].start,
						    conq__claims_self_start());
				conq__claims_done(&es[i]); /* [CL1] */
				return &es[i];
			}
		}
	}
	return NULL;
}

static conq__claim_entry *conq__claims_enter_slow(conq__claims *reg)
{
	struct conq__tl *tl = &conq__tl;
	pthread_once(&conq__claims_once, conq__claims_setup);
	pthread_mutex_lock(&conq__claims_mu);
	if (tl->owner == 0) {
		tl->owner =
		    (uint64_t)getpid() << 32 | (uint32_t)syscall(SYS_gettid);
		pthread_setspecific(conq__claims_key, tl);
	}
	uint64_t g = conq__load_relaxed(&conq__claims_gen);
	if (tl->gen != g) {
		/* Keep the entries of registries still attached, still ours
		 * (a detach freed the others). */
		unsigned k = 0;
		for (unsigned i = 0; i < tl->n; i++)
			if (conq__attached_has(tl->slots[i].reg) &&
			    conq__load_relaxed(&tl->slots[i].e->owner) ==
				tl->owner)
				tl->slots[k++] = tl->slots[i];
		tl->n = k;
		tl->gen = g;
		tl->last_reg = NULL;
	}
	conq__claim_entry *e = NULL;
	for (unsigned i = 0; i < tl->n; i++)
		if (tl->slots[i].reg == reg)
			e = tl->slots[i].e;
	if (e == NULL) {
		if (tl->n == tl->cap) {
			unsigned cap = tl->cap ? 2 * tl->cap : 4;
			void *s = realloc(tl->slots, cap * sizeof *tl->slots);
			if (s == NULL)
				goto nomem;
			tl->slots = (struct conq__tl_slot *)s;
			tl->cap = cap;
		}
		if (!conq__attached_has(reg) &&
		    conq__nattached == conq__capattached) {
			unsigned cap =
			    conq__capattached ? 2 * conq__capattached : 4;
			void *a = realloc(conq__attached,
					  cap * sizeof *conq__attached);
			if (a == NULL)
				goto nomem;
			conq__attached = (conq__claims **)a;
			conq__capattached = cap;
		}
		e = conq__claims_take(reg, tl->owner);
		if (e == NULL) {
			pthread_mutex_unlock(&conq__claims_mu);
			errno = EUSERS;
			return NULL;
		}
		if (!conq__attached_has(reg))
			conq__attached[conq__nattached++] = reg;
		tl->slots[tl->n].reg = reg;
		tl->slots[tl->n].e = e;
		tl->n++;
	}
	tl->last_reg = reg;
	tl->last_e = e;
	pthread_mutex_unlock(&conq__claims_mu);
	return e;
nomem:
	pthread_mutex_unlock(&conq__claims_mu);
	errno = ENOMEM;
	return NULL;
}

conq__claim_entry *conq__claims_enter(conq__claims *reg)
{
	struct conq__tl *tl = &conq__tl;
	/* relaxed: a detach that must be seen here happened-before this call
	 * (the caller does not claim on a ring while its process detaches
	 * it, and reaches a ring mapped later through some synchronisation),
	 * so coherence gives us its generation or a later one. */
	if (CONQ__LIKELY(tl->last_reg == reg &&
			 tl->gen == conq__load_relaxed(&conq__claims_gen)))
		return tl->last_e;
	return conq__claims_enter_slow(reg);
}

void conq__claims_detach(conq__claims *reg)
{
	pthread_once(&conq__claims_once, conq__claims_setup);
	pthread_mutex_lock(&conq__claims_mu);
	for (unsigned i = 0; i < conq__nattached; i++)
		if (conq__attached[i] == reg) {
			conq__attached[i] = conq__attached[--conq__nattached];
			break;
		}
	uint64_t pid = (uint64_t)getpid();
	conq__claim_entry *es = conq__claims_entries(reg);
	for (uint64_t i = 0; i < reg->n; i++) {
		/* relaxed: entries of our pid are written only by us. */
		uint64_t o = conq__load_relaxed(&es[i].owner);
		if (o != 0 && o >> 32 == pid)
			conq__claims_free(&es[i], o);
	}
	conq__store_relaxed(&conq__claims_gen, conq__claims_gen + 1);
	pthread_mutex_unlock(&conq__claims_mu);
}
