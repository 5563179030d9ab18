/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/journal/test_journal.c - conq_journal on the real file system.
 *
 *   test_journal <case> [backend]     backend: auto, psync, io_uring, libaio
 *
 * Cases: args (every EINVAL, EMSGSIZE, ENOENT), roundtrip (4 producers,
 * records of 0..5000 bytes, done functions exactly once and in sequence
 * order, replay byte-exact, the sequence continued after reopen), rotate
 * (small files: rotation, release recycles the files, replay starts after
 * the released records, the sequence survives releasing everything),
 * batch (a buffer timeout groups records into one write), sync, reentry
 * (sync and close from a done function: EDEADLK; append from one works),
 * torn (a torn record with whole, unvouched ones after it: replay stops
 * before it, zeroes it and them, open goes on), corrupt (a bad record
 * followed by durable ones: EBADMSG from replay and open). Crash points
 * and I/O errors: test_journal_crash.c (the fault injecting I/O layer),
 * kill -9: test_journal_kill.c.
 *
 * The directories are made under $TMPDIR (default: the build directory's
 * parent when run by ctest is fine; /tmp may be tmpfs, where O_DIRECT is
 * refused and the journal falls back to buffered writes: both work).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "conq/journal.h"
#include "jtest.h"

static unsigned g_backend;

/* The payload of seq: len from seq, bytes from seq. */
static size_t payload_len(uint64_t key, size_t maxlen)
{
	return (size_t)((key * 2654435761u) % (maxlen + 1));
}

static void payload_fill(unsigned char *p, size_t n, uint64_t key)
{
	uint64_t x = key * 0x9E3779B97F4A7C15u + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		p[i] = (unsigned char)x;
	}
}

static conq_journal_opts base_opts(void)
{
	conq_journal_opts o = {0};
	o.backend = g_backend;
	return o;
}

/* --------------------------------------------------------------- args --- */

static void noop_done(void *ctx, uint64_t seq, int err)
{
	(void)ctx, (void)seq, (void)err;
}

static void case_args(void)
{
	char *d = jt_make_dir("conq-journal");
	conq_journal_opts bad[] = {
		{.file_size = 1000},
		{.file_size = 1024},		  /* < 4 sectors */
		{.file_size = (uint64_t)1 << 41}, /* absurd */
		{.buffer_size = 100},
		{.buffer_size = 512},		  /* < 2 sectors */
		{.buffer_size = (size_t)128 << 20},
		{.file_size = 8192, .buffer_size = 16384},
		{.sector_size = 100},
		{.sector_size = 256},
		{.sector_size = 131072},
		{.buffer_timeout_ns = 2000000000u},
		{.max_io = 257},
		{.backend = 9},
		{.files = 5000},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		check_context("bad option %zu", i);
		errno = 0;
		CHECK_NULL(conq_journal_open(d, &bad[i]));
		CHECK_EQ(errno, EINVAL);
	}
	check_context("NULL dir");
	errno = 0;
	CHECK_NULL(conq_journal_open(NULL, NULL));
	CHECK_EQ(errno, EINVAL);
	check_context("missing dir");
	errno = 0;
	CHECK_NULL(conq_journal_open("/nonexistent/conq-journal", NULL));
	CHECK_EQ(errno, ENOENT);
	check_context("replay NULL dir");
	CHECK_EQ(conq_journal_replay(NULL, NULL, NULL), EINVAL);
	check_context("NULL journal");
	CHECK_EQ(conq_journal_append(NULL, 0, "x", 1, NULL, NULL, NULL),
		 EINVAL);
	CHECK_EQ(conq_journal_sync(NULL), EINVAL);
	CHECK_EQ(conq_journal_release(NULL, 1), EINVAL);
	CHECK_EQ(conq_journal_close(NULL), 0);

	check_context("open");
	conq_journal_opts o = base_opts();
	o.file_size = 64 << 10;
	o.buffer_size = 8 << 10;
	conq_journal *j = conq_journal_open(d, &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	check_context("data NULL");
	CHECK_EQ(conq_journal_append(j, 0, NULL, 5, NULL, NULL, NULL), EINVAL);
	check_context("too big");
	static unsigned char big[9000];
	CHECK_EQ(conq_journal_append(j, 0, big, 8192 - 40 + 1, NULL, NULL,
				     NULL),
		 EMSGSIZE);
	CHECK_EQ(conq_journal_append(j, 0, big, (size_t)1 << 40, NULL, NULL,
				     NULL),
		 EMSGSIZE);
	check_context("the largest that fits, and empty ones");
	uint64_t s1 = 0, s2 = 0;
	CHECK_EQ(conq_journal_append(j, 7, big, 8192 - 40, noop_done, NULL,
				     &s1),
		 0);
	CHECK_EQ(conq_journal_append(j, 8, NULL, 0, noop_done, NULL, &s2), 0);
	CHECK_EQ(s1, 1);
	CHECK_EQ(s2, 2);
	CHECK_EQ(conq_journal_next_seq(j), 3);
	CHECK_EQ(conq_journal_close(j), 0);
	check_context("another sector size than the files'");
	o.sector_size = 4096;
	errno = 0;
	CHECK_NULL(conq_journal_open(d, &o));
	CHECK_EQ(errno, EINVAL);
out:
	jt_remove_dir(d);
}

/* ---------------------------------------------------------- roundtrip --- */

#define RT_THREADS 4
#define RT_MAXLEN  5000

struct rt {
	conq_journal *j;
	pthread_mutex_t m;
	uint64_t last_done; /* done functions ran in this order */
	uint64_t ndone, bad_order, errs;
	unsigned char *seen; /* per seq: done count */
	uint64_t *key;	     /* per seq: the payload key */
	uint64_t cap;
	unsigned per_thread;
	int sync_every;
};

static void rt_done(void *ctx, uint64_t seq, int err)
{
	struct rt *r = ctx;
	/* Done functions run one at a time on one thread. */
	if (seq <= r->last_done)
		r->bad_order++;
	r->last_done = seq;
	if (err)
		r->errs++;
	if (seq < r->cap)
		r->seen[seq]++;
	r->ndone++;
}

struct rt_arg {
	struct rt *r;
	unsigned id;
	int rc;
};

static void *rt_producer(void *p)
{
	struct rt_arg *a = p;
	struct rt *r = a->r;
	unsigned char buf[RT_MAXLEN];
	for (unsigned i = 0; i < r->per_thread; i++) {
		uint64_t key = (uint64_t)a->id << 32 | i;
		size_t n = payload_len(key, RT_MAXLEN);
		payload_fill(buf, n, key);
		uint64_t seq;
		int rc = conq_journal_append(r->j, a->id, buf, n, rt_done, r,
					     &seq);
		if (rc) {
			a->rc = rc;
			return NULL;
		}
		pthread_mutex_lock(&r->m);
		if (seq < r->cap)
			r->key[seq] = key;
		pthread_mutex_unlock(&r->m);
		if (r->sync_every && i % (unsigned)r->sync_every == 0 &&
		    (rc = conq_journal_sync(r->j)) != 0) {
			a->rc = rc;
			return NULL;
		}
	}
	return NULL;
}

struct rp {
	const struct rt *r;
	uint64_t next, bad, count;
};

static int rp_fn(void *ctx, uint64_t seq, uint32_t type, const void *data,
		 size_t len)
{
	struct rp *p = ctx;
	unsigned char buf[RT_MAXLEN];
	if (seq != p->next)
		p->bad++;
	p->next = seq + 1;
	p->count++;
	if (seq >= p->r->cap) {
		p->bad++;
		return 0;
	}
	uint64_t key = p->r->key[seq];
	size_t n = payload_len(key, RT_MAXLEN);
	payload_fill(buf, n, key);
	if (len != n || type != (uint32_t)(key >> 32) ||
	    memcmp(buf, data, n) != 0)
		p->bad++;
	return 0;
}

static int backend_missing(int err)
{
	if (err == ENOTSUP) {
		check_skip("backend %u not available here", g_backend);
		return 1;
	}
	return 0;
}

static void case_roundtrip(void)
{
	char *d = jt_make_dir("conq-journal");
	struct rt r = {0};
	pthread_mutex_init(&r.m, NULL);
	r.per_thread = 3000;
	r.cap = RT_THREADS * r.per_thread * 2 + 2;
	r.seen = calloc(r.cap, 1);
	r.key = calloc(r.cap, sizeof(*r.key));
	conq_journal_opts o = base_opts();
	o.file_size = 1 << 20; /* rotates: about 12 MiB of records */
	o.buffer_size = 64 << 10;
	for (int round = 0; round < 2; round++) {
		check_context("roundtrip round %d", round);
		errno = 0;
		r.j = conq_journal_open(d, &o);
		if (!r.j) {
			if (!backend_missing(errno))
				CHECK_NOT_NULL(r.j);
			goto out;
		}
		conq_journal_stats st;
		conq_journal_stats_get(r.j, &st);
		if (g_backend)
			CHECK_EQ(st.backend, g_backend);
		CHECK_EQ(conq_journal_next_seq(r.j),
			 1 + (uint64_t)round * RT_THREADS * r.per_thread);
		r.sync_every = round ? 97 : 0;
		pthread_t t[RT_THREADS];
		struct rt_arg a[RT_THREADS];
		for (unsigned i = 0; i < RT_THREADS; i++) {
			a[i] = (struct rt_arg){&r, i + (unsigned)round * 8, 0};
			pthread_create(&t[i], NULL, rt_producer, &a[i]);
		}
		for (unsigned i = 0; i < RT_THREADS; i++) {
			pthread_join(t[i], NULL);
			CHECK_EQ(a[i].rc, 0);
		}
		CHECK_EQ(conq_journal_sync(r.j), 0);
		uint64_t upto = (uint64_t)(round + 1) * RT_THREADS * r.per_thread;
		CHECK_EQ(r.ndone, upto);
		conq_journal_stats_get(r.j, &st);
		CHECK_EQ(st.records, RT_THREADS * r.per_thread);
		CHECK_GE(st.syncs, 1);
		CHECK_GT(st.rotations, 5);
		CHECK_EQ(conq_journal_close(r.j), 0);
		CHECK_EQ(r.bad_order, 0);
		CHECK_EQ(r.errs, 0);
		uint64_t once = 0;
		for (uint64_t s = 1; s <= upto; s++)
			once += r.seen[s] == 1;
		CHECK_EQ(once, upto);

		struct rp p = {.r = &r, .next = 1};
		uint64_t last = 0;
		CHECK_EQ(conq_journal_replay_opts(d, NULL, rp_fn, &p, &last), 0);
		CHECK_EQ(p.count, upto);
		CHECK_EQ(p.bad, 0);
		CHECK_EQ(last, upto);
	}
out:
	free(r.seen);
	free(r.key);
	jt_remove_dir(d);
}

/* ------------------------------------------------------------- rotate --- */

static unsigned count_files(const char *d)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "ls '%s' | grep -c '^journal-'", d);
	FILE *f = popen(cmd, "r");
	unsigned n = 0;
	if (f) {
		if (fscanf(f, "%u", &n) != 1)
			n = 0;
		pclose(f);
	}
	return n;
}

struct first {
	uint64_t first, count;
};

static int first_fn(void *ctx, uint64_t seq, uint32_t type, const void *data,
		    size_t len)
{
	struct first *f = ctx;
	(void)type, (void)data, (void)len;
	if (!f->count++)
		f->first = seq;
	return 0;
}

static void case_rotate(void)
{
	char *d = jt_make_dir("conq-journal");
	conq_journal_opts o = base_opts();
	o.file_size = 16 << 10;
	o.buffer_size = 4 << 10;
	o.files = 3;
	unsigned char buf[1000];
	memset(buf, 0xab, sizeof(buf));
	conq_journal *j = conq_journal_open(d, &o);
	if (!j) {
		if (!backend_missing(errno))
			CHECK_NOT_NULL(j);
		goto out;
	}
	/* 1000-byte records take 1 KiB each: 15 a file. Release as we go:
	 * the files are recycled, never more than a few. */
	uint64_t seq = 0;
	for (int i = 0; i < 2000; i++) {
		CHECK_EQ(conq_journal_append(j, 1, buf, sizeof(buf), NULL, NULL,
					     &seq),
			 0);
		if (i % 50 == 49) {
			CHECK_EQ(conq_journal_sync(j), 0);
			CHECK_EQ(conq_journal_release(j, seq - 20), 0);
		}
	}
	CHECK_EQ(conq_journal_sync(j), 0);
	conq_journal_stats st;
	conq_journal_stats_get(j, &st);
	CHECK_GT(st.rotations, 100);
	CHECK_LE(count_files(d), 8);
	CHECK_EQ(conq_journal_close(j), 0);
	check_context("replay after release");
	struct first f = {0};
	CHECK_EQ(conq_journal_replay(d, first_fn, &f), 0);
	/* Released up to 1980: the file holding 1981 (15 records a file) is
	 * the first left. */
	CHECK_GT(f.first, 1981 - 15);
	CHECK_LE(f.first, 1981);
	CHECK_EQ(f.first + f.count - 1, 2000);
	check_context("release everything, reopen: the sequence goes on");
	j = conq_journal_open(d, &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	CHECK_EQ(conq_journal_next_seq(j), 2001);
	CHECK_EQ(conq_journal_append(j, 1, buf, 10, NULL, NULL, &seq), 0);
	CHECK_EQ(seq, 2001);
	CHECK_EQ(conq_journal_sync(j), 0);
	/* 2000's file is the last of the previous open: released now. */
	CHECK_EQ(conq_journal_release(j, 2000), 0);
	CHECK_EQ(conq_journal_close(j), 0);
	j = conq_journal_open(d, &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	CHECK_EQ(conq_journal_release(j, 2001), 0);
	CHECK_EQ(conq_journal_close(j), 0);
	f = (struct first){0};
	CHECK_EQ(conq_journal_replay(d, first_fn, &f), 0);
	CHECK_EQ(f.count, 0);
	j = conq_journal_open(d, &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	CHECK_EQ(conq_journal_next_seq(j), 2002);
	CHECK_EQ(conq_journal_close(j), 0);
out:
	jt_remove_dir(d);
}

/* -------------------------------------------------------------- batch --- */

static void case_batch(void)
{
	char *d = jt_make_dir("conq-journal");
	conq_journal_opts o = base_opts();
	o.buffer_timeout_ns = 300000000u; /* 0.3 s: far longer than 10 appends */
	conq_journal *j = conq_journal_open(d, &o);
	if (!j) {
		if (!backend_missing(errno))
			CHECK_NOT_NULL(j);
		goto out;
	}
	for (int i = 0; i < 10; i++)
		CHECK_EQ(conq_journal_append(j, 1, "abc", 3, NULL, NULL, NULL),
			 0);
	CHECK_EQ(conq_journal_sync(j), 0);
	conq_journal_stats st;
	conq_journal_stats_get(j, &st);
	CHECK_EQ(st.records, 10);
	CHECK_EQ(st.writes, 1); /* one batch */
	CHECK_EQ(st.syncs, 1);
	CHECK_EQ(conq_journal_close(j), 0);
out:
	jt_remove_dir(d);
}

/* ------------------------------------------------------ sync, reentry --- */

struct re {
	conq_journal *j;
	int sync_rc, close_rc, append_rc;
	uint64_t done;
};

static void re_done(void *ctx, uint64_t seq, int err)
{
	struct re *r = ctx;
	(void)err;
	if (seq == 1) {
		r->sync_rc = conq_journal_sync(r->j);
		r->close_rc = conq_journal_close(r->j);
		r->append_rc =
			conq_journal_append(r->j, 2, "in done", 7, re_done, r, NULL);
	}
	r->done++;
}

static void case_reentry(void)
{
	char *d = jt_make_dir("conq-journal");
	conq_journal_opts o = base_opts();
	struct re r = {0};
	r.j = conq_journal_open(d, &o);
	if (!r.j) {
		if (!backend_missing(errno))
			CHECK_NOT_NULL(r.j);
		goto out;
	}
	CHECK_EQ(conq_journal_append(r.j, 1, "x", 1, re_done, &r, NULL), 0);
	CHECK_EQ(conq_journal_sync(r.j), 0);
	/* Record 1's done function ran (its effects are ordered before sync
	 * returns); record 2's may be running now. */
	CHECK_EQ(r.sync_rc, EDEADLK);
	CHECK_EQ(r.close_rc, EDEADLK);
	CHECK_EQ(r.append_rc, 0);
	CHECK_EQ(conq_journal_sync(r.j), 0); /* the record from the done fn */
	CHECK_EQ(r.done, 2);
	CHECK_EQ(conq_journal_close(r.j), 0);
	struct first f = {0};
	CHECK_EQ(conq_journal_replay(d, first_fn, &f), 0);
	CHECK_EQ(f.count, 2);
out:
	jt_remove_dir(d);
}

/* -------------------------------------------------- torn and corrupt --- */

/* A journal of n records of 100 bytes (one sector each), closed. */
static int write_n(const char *d, int n)
{
	conq_journal_opts o = base_opts();
	o.files = 1;
	conq_journal *j = conq_journal_open(d, &o);
	if (!j)
		return errno;
	unsigned char buf[100];
	for (int i = 0; i < n; i++) {
		payload_fill(buf, sizeof(buf), (uint64_t)i + 1);
		if (conq_journal_append(j, 1, buf, sizeof(buf), NULL, NULL,
					NULL) != 0)
			break;
		if (i % 10 == 0)
			conq_journal_sync(j);
	}
	return conq_journal_close(j);
}

/* n bytes at off of the first journal file, written (poke) or read (peek). */
static int file_rw(const char *d, long off, void *bytes, size_t n, int write)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/journal-000000.cqj", d);
	int fd = open(path, write ? O_RDWR : O_RDONLY);
	if (fd < 0)
		return errno;
	ssize_t k = write ? pwrite(fd, bytes, n, off) : pread(fd, bytes, n, off);
	close(fd);
	return k == (ssize_t)n ? 0 : EIO;
}

static int poke(const char *d, long off, const void *bytes, size_t n)
{
	return file_rw(d, off, (void *)(uintptr_t)bytes, n, 1);
}

static int peek(const char *d, long off, void *bytes, size_t n)
{
	return file_rw(d, off, bytes, n, 0);
}

static void case_torn(void)
{
	char *d = jt_make_dir("conq-journal");
	int rc = write_n(d, 30);
	if (backend_missing(rc))
		goto out;
	CHECK_EQ(rc, 0);
	/* Record k (1-based) is at sector k of the first file; its durable
	 * mark (the u64 at byte 32 of its header) says every smaller seq was
	 * durable when it was appended. Tear record t, the first from 25 on
	 * that no record vouches for (t = 25 unless the journal's thread was
	 * stalled: the last sync before records 22-30 followed record 21), in
	 * its payload's last bytes: a torn tail, not an error, with whole
	 * records after it that replay must zero. */
	unsigned char sec[512];
	uint64_t t = 25;
	for (long k = 1; k <= 30; k++) {
		CHECK_EQ(peek(d, k * 512, sec, sizeof(sec)), 0);
		uint64_t dur = 0;
		for (int b = 7; b >= 0; b--)
			dur = dur << 8 | sec[32 + b];
		if (dur > t)
			t = dur;
	}
	CHECK_LE(t, 30);
	unsigned char junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	CHECK_EQ(poke(d, (long)t * 512 + 100, junk, sizeof(junk)), 0);
	struct first f = {0};
	uint64_t last = 0;
	CHECK_EQ(conq_journal_replay_opts(d, NULL, first_fn, &f, &last), 0);
	CHECK_EQ(f.count, t - 1);
	CHECK_EQ(last, t - 1);
	/* Zeroed on disk, from the torn record to the file's last record
	 * header (30), and nothing before it. */
	bool zero = true, kept = true;
	for (long k = 1; k <= 31; k++) {
		CHECK_EQ(peek(d, k * 512, sec, sizeof(sec)), 0);
		bool z = true;
		for (size_t b = 0; b < sizeof(sec); b++)
			z = z && sec[b] == 0;
		if ((uint64_t)k >= t && !z)
			zero = false;
		if ((uint64_t)k < t && z)
			kept = false;
	}
	CHECK_TRUE(zero);
	CHECK_TRUE(kept);
	/* The next replay sees the same. */
	f = (struct first){0};
	CHECK_EQ(conq_journal_replay(d, first_fn, &f), 0);
	CHECK_EQ(f.count, t - 1);
	check_context("open continues after the tail");
	conq_journal_opts o = base_opts();
	conq_journal *j = conq_journal_open(d, &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	CHECK_EQ(conq_journal_next_seq(j), t);
	CHECK_EQ(conq_journal_append(j, 1, "again", 5, NULL, NULL, NULL), 0);
	CHECK_EQ(conq_journal_close(j), 0);
	f = (struct first){0};
	CHECK_EQ(conq_journal_replay(d, first_fn, &f), 0);
	CHECK_EQ(f.count, t);
	CHECK_EQ(f.first, 1);
out:
	jt_remove_dir(d);
}

static void case_corrupt(void)
{
	char *d = jt_make_dir("conq-journal");
	int rc = write_n(d, 30);
	if (backend_missing(rc))
		goto out;
	CHECK_EQ(rc, 0);
	/* Record 5 was synced long before records 12..30 were written: they
	 * say so, so a bad record 5 is corruption, not a torn tail. */
	unsigned char junk = 0x5a;
	CHECK_EQ(poke(d, 5 * 512 + 60, &junk, 1), 0);
	struct first f = {0};
	uint64_t last = 0;
	CHECK_EQ(conq_journal_replay_opts(d, NULL, first_fn, &f, &last),
		 EBADMSG);
	CHECK_EQ(f.count, 4);
	CHECK_EQ(last, 4);
	/* Nothing was truncated: the same again. */
	CHECK_EQ(conq_journal_replay(d, NULL, NULL), EBADMSG);
	errno = 0;
	CHECK_NULL(conq_journal_open(d, NULL));
	CHECK_EQ(errno, EBADMSG);
out:
	jt_remove_dir(d);
}

/* --------------------------------------------------------------- main --- */

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "all";
	const char *b = argc > 2 ? argv[2] : "auto";
	if (strcmp(b, "psync") == 0)
		g_backend = CONQ_JOURNAL_PSYNC;
	else if (strcmp(b, "io_uring") == 0)
		g_backend = CONQ_JOURNAL_IO_URING;
	else if (strcmp(b, "libaio") == 0)
		g_backend = CONQ_JOURNAL_LIBAIO;
	else if (strcmp(b, "auto") != 0) {
		fprintf(stderr, "unknown backend %s\n", b);
		return 2;
	}
	struct {
		const char *name;
		void (*fn)(void);
	} cases[] = {
		{"args", case_args},	   {"roundtrip", case_roundtrip},
		{"rotate", case_rotate},   {"batch", case_batch},
		{"reentry", case_reentry}, {"torn", case_torn},
		{"corrupt", case_corrupt},
	};
	int ran = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strcmp(c, "all") == 0 || strcmp(c, cases[i].name) == 0) {
			check_context("%s", cases[i].name);
			cases[i].fn();
			ran++;
		}
	if (!ran) {
		fprintf(stderr, "unknown case %s\n", c);
		return 2;
	}
	return check_report();
}
