/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq_journal against kill -9, on the real file system.
 *
 * Each round forks a child that opens the journal in one temporary
 * directory (made with mkdtemp under --dir, else $TMPDIR, else /tmp; the
 * default I/O layer; the backend by round: auto, psync, io_uring, libaio,
 * a named one that cannot start falling back to auto), then appends records
 * from 2 threads as fast as it can, and releases old records now and then.
 * Its done function writes every acknowledged (seq, tag) to a pipe; before
 * each release the child writes the upto it is about to give. The parent
 * reads the pipe for a random 50..300 ms after the child says it is ready,
 * kill(SIGKILL)s it, drains the pipe, and replays: the records must be
 * first..L, contiguous, every one acknowledged record among them with its
 * tag, L at least the highest acknowledged seq, first at most the lowest
 * acknowledged seq not released; every payload is what its tag gives (a
 * record's payload starts with its tag, and the tag gives its length and
 * bytes), and no tag comes twice. The next round's child reopens the same
 * journal and must continue at L + 1. The directory is removed at the end.
 *
 * A SIGKILL loses no page cache: this tests the journal's own state (a
 * record acknowledged before it was written, a torn tail of a killed
 * write, recovery, reopening), not power loss (test_journal_crash does
 * that on faultfs).
 *
 * Options: --rounds=N (5), --seed=S, --dir=D, -v. Prints "N passed, N
 * failed"; exits non-zero on a failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conq/journal.h"
#include "jtest.h"

#define MIN_LEN	  8u
#define MAX_LEN	  3000u
#define THREADS	  2u
#define FILE_SIZE ((uint64_t)256 << 10)
#define BUF_SIZE  ((size_t)32 << 10)

/* Pipe messages: 24 bytes, written whole (PIPE_BUF). */
enum { MSG_READY = 1, MSG_ACK, MSG_RELEASE, MSG_ERROR };
struct msg {
	uint64_t kind;
	uint64_t a; /* READY: next seq; ACK: seq; RELEASE: upto; ERROR: errno */
	uint64_t b; /* READY: backend; ACK: tag; ERROR: where */
};

static unsigned long g_pass, g_fail;
static int g_verbose;

static void fail_msg(int line, const char *fmt, ...)
{
	va_list ap;
	g_fail++;
	fprintf(stderr, "test_journal_kill.c:%d: FAIL: ", line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

#define FAIL(...) fail_msg(__LINE__, __VA_ARGS__)
#define CHECK(cond, ...)                                                      \
	((cond) ? (g_pass++, 1) : (fail_msg(__LINE__, __VA_ARGS__), 0))

/* A tag gives the record's length, type and bytes; the payload starts with
 * the tag itself (little-endian), so a replayed record says what it must
 * be. */
static size_t len_of(uint64_t tag)
{
	uint64_t s = tag ^ 0x1e5;
	return MIN_LEN + (size_t)(jt_splitmix(&s) % (MAX_LEN - MIN_LEN + 1));
}

static uint32_t type_of(uint64_t tag)
{
	return (uint32_t)(tag >> 40);
}

static void fill_payload(unsigned char *p, uint64_t tag, size_t len)
{
	uint64_t s = tag;
	for (unsigned i = 0; i < 8; i++)
		p[i] = (unsigned char)(tag >> (8 * i));
	for (size_t i = 8; i < len; i += 8) {
		uint64_t v = jt_splitmix(&s);
		memcpy(p + i, &v, len - i < 8 ? len - i : 8);
	}
}

static uint64_t tag_in(const unsigned char *p)
{
	uint64_t t = 0;
	for (int i = 7; i >= 0; i--)
		t = t << 8 | p[i];
	return t;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---------------------------------------------------------- the child --- */

struct child {
	conq_journal *j;
	int fd; /* the pipe */
	uint64_t round;
	pthread_mutex_t mu;
	uint64_t max_acked;
};

static void child_send(struct child *c, uint64_t kind, uint64_t a, uint64_t b)
{
	struct msg m = {kind, a, b};
	const char *p = (const char *)&m;
	/* A pipe write of <= PIPE_BUF bytes is whole. */
	while (write(c->fd, p, sizeof m) < 0 && errno == EINTR)
		;
}

static void child_fail(struct child *c, int err, uint64_t where)
{
	child_send(c, MSG_ERROR, (uint64_t)err, where);
	_exit(3);
}

struct tagbox {
	struct child *c;
	uint64_t tag;
};

static void child_done(void *ctx, uint64_t seq, int err)
{
	struct tagbox *t = ctx;
	struct child *c = t->c;
	if (err)
		child_fail(c, err, 1);
	pthread_mutex_lock(&c->mu);
	if (seq > c->max_acked)
		c->max_acked = seq;
	pthread_mutex_unlock(&c->mu);
	child_send(c, MSG_ACK, seq, t->tag);
	free(t);
}

struct cthread {
	struct child *c;
	unsigned id;
};

static void *child_thread(void *arg)
{
	struct cthread *t = arg;
	struct child *c = t->c;
	unsigned char *buf = malloc(MAX_LEN);
	if (!buf)
		child_fail(c, ENOMEM, 2);
	for (uint64_t n = 0;; n++) {
		uint64_t tag = c->round << 48 | (uint64_t)t->id << 40 | n;
		size_t len = len_of(tag);
		struct tagbox *box = malloc(sizeof *box);
		if (!box)
			child_fail(c, ENOMEM, 2);
		box->c = c;
		box->tag = tag;
		fill_payload(buf, tag, len);
		int rc = conq_journal_append(c->j, type_of(tag), buf, len,
					     child_done, box, NULL);
		if (rc)
			child_fail(c, rc, 3);
		if (t->id == 0 && n % 64 == 63) {
			pthread_mutex_lock(&c->mu);
			uint64_t top = c->max_acked;
			pthread_mutex_unlock(&c->mu);
			if (top > 300) {
				child_send(c, MSG_RELEASE, top - 300, 0);
				rc = conq_journal_release(c->j, top - 300);
				if (rc)
					child_fail(c, rc, 4);
			}
		}
	}
	return NULL;
}

static const char *backend_name(unsigned b)
{
	static const char *names[] = {"auto", "io_uring", "libaio", "psync"};
	return b < 4 ? names[b] : "?";
}

static void child_main(const char *dir, int fd, uint64_t round)
{
	static const unsigned backends[] = {
		CONQ_JOURNAL_AUTO, CONQ_JOURNAL_PSYNC, CONQ_JOURNAL_IO_URING,
		CONQ_JOURNAL_LIBAIO};
	struct child c;
	memset(&c, 0, sizeof c);
	c.fd = fd;
	c.round = round;
	pthread_mutex_init(&c.mu, NULL);
	conq_journal_opts o;
	memset(&o, 0, sizeof o);
	o.file_size = FILE_SIZE;
	o.buffer_size = BUF_SIZE;
	o.backend = backends[round % 4];
	o.buffered = round % 5 == 4;
	c.j = conq_journal_open(dir, &o);
	if (!c.j && errno == ENOTSUP) {
		o.backend = CONQ_JOURNAL_AUTO;
		c.j = conq_journal_open(dir, &o);
	}
	if (!c.j)
		child_fail(&c, errno, 5);
	conq_journal_stats st;
	conq_journal_stats_get(c.j, &st);
	child_send(&c, MSG_READY, conq_journal_next_seq(c.j),
		   (uint64_t)st.backend | (uint64_t)st.direct << 8);
	struct cthread t[THREADS];
	pthread_t th[THREADS];
	for (unsigned i = 0; i < THREADS; i++) {
		t[i].c = &c;
		t[i].id = i;
		if (pthread_create(&th[i], NULL, child_thread, &t[i]))
			child_fail(&c, EAGAIN, 6);
	}
	for (unsigned i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

/* --------------------------------------------------------- the parent --- */

struct acked {
	uint64_t *tag; /* by seq; 0: not acknowledged */
	size_t cap;
	uint64_t max;	     /* highest seq acknowledged */
	uint64_t last_ack;   /* acks in seq order */
	uint64_t release;    /* highest upto the child announced */
	int order_bad;
};

static int acked_set(struct acked *a, uint64_t seq, uint64_t tag)
{
	if (seq >= a->cap) {
		size_t cap = a->cap ? a->cap : 4096;
		while (cap <= seq)
			cap *= 2;
		uint64_t *n = realloc(a->tag, cap * sizeof *n);
		if (!n)
			return 0;
		memset(n + a->cap, 0, (cap - a->cap) * sizeof *n);
		a->tag = n;
		a->cap = cap;
	}
	a->tag[seq] = tag | (uint64_t)1 << 63; /* never 0 */
	if (seq <= a->last_ack)
		a->order_bad = 1;
	a->last_ack = seq;
	if (seq > a->max)
		a->max = seq;
	return 1;
}

struct rstate {
	const struct acked *a;
	uint64_t first, last, count;
	uint64_t *tags;
	size_t ntags, captags;
	uint64_t acked_seen;
	char why[200];
	unsigned char buf[MAX_LEN];
};

static int replay_cb(void *ctx, uint64_t seq, uint32_t type, const void *data,
		     size_t len)
{
	struct rstate *rs = ctx;
	if (rs->count == 0)
		rs->first = seq;
	else if (seq != rs->last + 1 && !rs->why[0])
		snprintf(rs->why, sizeof rs->why,
			 "seq %" PRIu64 " after %" PRIu64, seq, rs->last);
	rs->last = seq;
	rs->count++;
	if (rs->why[0])
		return 0;
	if (len < 8) {
		snprintf(rs->why, sizeof rs->why,
			 "seq %" PRIu64 ": %zu bytes, no tag", seq, len);
		return 0;
	}
	uint64_t tag = tag_in(data);
	if (len != len_of(tag) || type != type_of(tag)) {
		snprintf(rs->why, sizeof rs->why,
			 "seq %" PRIu64 ": tag %#" PRIx64 " says len %zu type %"
			 PRIu32 ", record has %zu and %" PRIu32,
			 seq, tag, len_of(tag), type_of(tag), len, type);
		return 0;
	}
	fill_payload(rs->buf, tag, len);
	if (memcmp(rs->buf, data, len) != 0) {
		snprintf(rs->why, sizeof rs->why,
			 "seq %" PRIu64 ": payload differs from its tag's",
			 seq);
		return 0;
	}
	const struct acked *a = rs->a;
	if (seq < a->cap && a->tag[seq]) {
		rs->acked_seen++;
		if (a->tag[seq] != (tag | (uint64_t)1 << 63))
			snprintf(rs->why, sizeof rs->why,
				 "seq %" PRIu64 ": tag %#" PRIx64
				 ", acknowledged with tag %#" PRIx64,
				 seq, tag, a->tag[seq] & ~((uint64_t)1 << 63));
	}
	if (rs->ntags == rs->captags) {
		size_t cap = rs->captags ? rs->captags * 2 : 4096;
		uint64_t *n = realloc(rs->tags, cap * sizeof *n);
		if (!n) {
			snprintf(rs->why, sizeof rs->why, "out of memory");
			return 0;
		}
		rs->tags = n;
		rs->captags = cap;
	}
	rs->tags[rs->ntags++] = tag;
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

/* Messages from the pipe (fd); partial messages wait in *pend. */
struct reader {
	unsigned char buf[24 * 1024];
	size_t have;
};

/* Read what is there (or wait up to ms); 1 while open, 0 at EOF. */
static int pump(int fd, struct reader *rd, struct acked *a, int ms,
		uint64_t *ready, uint64_t *ready_info, int *child_err,
		uint64_t *child_where)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int n = poll(&p, 1, ms);
	if (n <= 0)
		return 1;
	ssize_t k = read(fd, rd->buf + rd->have, sizeof rd->buf - rd->have);
	if (k < 0)
		return errno == EINTR || errno == EAGAIN;
	if (k == 0)
		return 0;
	rd->have += (size_t)k;
	size_t off = 0;
	while (rd->have - off >= sizeof(struct msg)) {
		struct msg m;
		memcpy(&m, rd->buf + off, sizeof m);
		off += sizeof m;
		switch (m.kind) {
		case MSG_READY:
			*ready = m.a;
			*ready_info = m.b;
			break;
		case MSG_ACK:
			if (!acked_set(a, m.a, m.b))
				return 0;
			break;
		case MSG_RELEASE:
			if (m.a > a->release)
				a->release = m.a;
			break;
		case MSG_ERROR:
			*child_err = (int)m.a;
			*child_where = m.b;
			break;
		default:
			*child_err = -1;
			break;
		}
	}
	memmove(rd->buf, rd->buf + off, rd->have - off);
	rd->have -= off;
	return 1;
}

static int rm_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
	return rmdir(dir);
}

static uint64_t parse_u64(const char *s, int *ok)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	*ok = !errno && end != s && !*end;
	return v;
}

int main(int argc, char **argv)
{
	uint64_t rounds = 5, seed = (uint64_t)time(NULL);
	const char *parent = NULL;
	int ok = 1;
	for (int i = 1; i < argc && ok; i++) {
		if (strncmp(argv[i], "--rounds=", 9) == 0)
			rounds = parse_u64(argv[i] + 9, &ok);
		else if (strncmp(argv[i], "--seed=", 7) == 0)
			seed = parse_u64(argv[i] + 7, &ok);
		else if (strncmp(argv[i], "--dir=", 6) == 0)
			parent = argv[i] + 6;
		else if (strcmp(argv[i], "-v") == 0)
			g_verbose = 1;
		else
			ok = 0;
	}
	if (!ok) {
		fprintf(stderr, "usage: %s [--rounds=N] [--seed=S] [--dir=D] [-v]\n",
			argv[0]);
		return 2;
	}
	if (!parent)
		parent = getenv("TMPDIR");
	if (!parent || !*parent)
		parent = "/tmp";
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/conq-jkill-XXXXXX", parent);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "mkdtemp %s: %s\n", dir, strerror(errno));
		return 1;
	}
	printf("seed %" PRIu64 ", %" PRIu64 " rounds in %s\n", seed, rounds,
	       dir);
	signal(SIGPIPE, SIG_IGN);
	uint64_t rng = seed;
	struct acked a;
	memset(&a, 0, sizeof a);
	uint64_t prev_last = 0; /* the last replay's L */
	for (uint64_t r = 0; r < rounds; r++) {
		int fds[2];
		if (pipe(fds) != 0) {
			FAIL("pipe: %s", strerror(errno));
			break;
		}
		fflush(stdout);
		fflush(stderr);
		pid_t pid = fork();
		if (pid < 0) {
			FAIL("fork: %s", strerror(errno));
			break;
		}
		if (pid == 0) {
			close(fds[0]);
			child_main(dir, fds[1], r + 1);
		}
		close(fds[1]);
		struct reader *rd = calloc(1, sizeof *rd);
		if (!rd)
			abort();
		uint64_t ready = 0, info = 0, where = 0;
		int child_err = 0, open = 1;
		double t0 = now_ms(), kill_at = 0;
		int armed = 0;
		uint64_t wait_ms = 50 + jt_splitmix(&rng) % 251;
		/* Until ready (at most 30 s), then wait_ms more. */
		while (open && !child_err) {
			double t = now_ms();
			if (!ready && t - t0 > 30000)
				break;
			if (ready && !armed) {
				kill_at = t + (double)wait_ms;
				armed = 1;
			}
			if (armed && t >= kill_at)
				break;
			open = pump(fds[0], rd, &a, 5, &ready, &info,
				    &child_err, &where);
		}
		kill(pid, SIGKILL);
		int status = 0;
		waitpid(pid, &status, 0);
		while (open)
			open = pump(fds[0], rd, &a, 1000, &ready, &info,
				    &child_err, &where);
		close(fds[0]);
		free(rd);
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
			      !child_err,
		      "round %" PRIu64 ": the child %s (status %#x, error %d "
		      "(%s) at %" PRIu64 ")",
		      r + 1, ready ? "failed" : "never got ready", status,
		      child_err, child_err > 0 ? strerror(child_err) : "?",
		      where);
		CHECK(!a.order_bad,
		      "round %" PRIu64 ": done functions out of seq order",
		      r + 1);
		if (ready && prev_last)
			CHECK(ready == prev_last + 1,
			      "round %" PRIu64 ": the journal reopened at %" PRIu64
			      ", the last replay ended at %" PRIu64,
			      r + 1, ready, prev_last);
		/* Replay and check. */
		struct rstate *rs = calloc(1, sizeof *rs);
		if (!rs)
			abort();
		rs->a = &a;
		int rc = conq_journal_replay(dir, replay_cb, rs);
		CHECK(rc == 0, "round %" PRIu64 ": replay returned %d (%s)",
		      r + 1, rc, strerror(rc));
		CHECK(!rs->why[0], "round %" PRIu64 ": replay: %s", r + 1,
		      rs->why);
		if (rs->count)
			CHECK(rs->last >= a.max,
			      "round %" PRIu64 ": lost acknowledged records: "
			      "replay ends at %" PRIu64
			      ", acknowledged up to %" PRIu64,
			      r + 1, rs->last, a.max);
		else
			CHECK(a.max <= a.release,
			      "round %" PRIu64 ": replay returned nothing, "
			      "acknowledged up to %" PRIu64,
			      r + 1, a.max);
		if (a.max > a.release)
			CHECK(rs->count && rs->first <= a.release + 1,
			      "round %" PRIu64 ": replay starts at %" PRIu64
			      ", lowest acknowledged not released %" PRIu64,
			      r + 1, rs->first, a.release + 1);
		qsort(rs->tags, rs->ntags, sizeof *rs->tags, cmp_u64);
		size_t dups = 0;
		for (size_t i = 1; i < rs->ntags; i++)
			dups += rs->tags[i] == rs->tags[i - 1];
		CHECK(dups == 0, "round %" PRIu64 ": %zu records replayed twice "
		      "(same tag, other seq)", r + 1, dups);
		printf("round %" PRIu64 ": %s%s, killed %.0f ms after ready; "
		       "acknowledged up to %" PRIu64 ", released up to %" PRIu64
		       "; replay %" PRIu64 " records %" PRIu64 "..%" PRIu64
		       " (%" PRIu64 " acknowledged in this round or before)\n",
		       r + 1, backend_name((unsigned)(info & 0xff)),
		       info >> 8 ? " O_DIRECT" : "", armed ? (double)wait_ms : 0.0,
		       a.max, a.release, rs->count, rs->first, rs->last,
		       rs->acked_seen);
		prev_last = rs->count ? rs->last : 0;
		/* Acknowledged seqs beyond L cannot exist (checked); the
		 * next child continues after L. */
		free(rs->tags);
		free(rs);
		fflush(stdout);
	}
	/* The journal still opens and closes cleanly. */
	conq_journal *j = conq_journal_open(dir, NULL);
	CHECK(j != NULL, "final open: %s", strerror(errno));
	if (j) {
		if (prev_last)
			CHECK(conq_journal_next_seq(j) == prev_last + 1,
			      "final open continues at %" PRIu64 ", want %" PRIu64,
			      conq_journal_next_seq(j), prev_last + 1);
		int rc = conq_journal_close(j);
		CHECK(rc == 0, "final close: %d", rc);
	}
	CHECK(rm_dir(dir) == 0, "removing %s: %s", dir, strerror(errno));
	free(a.tag);
	printf("%lu passed, %lu failed\n", g_pass, g_fail);
	return g_fail || !g_pass;
}
