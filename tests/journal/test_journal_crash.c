/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq_journal's crash consistency, on the in-memory fault-injecting I/O
 * layer (faultfs.h). The property: after any crash, replay returns the
 * records first..L, every one byte-equal to what was appended with its
 * sequence number, with no hole and no duplicate, L at least the highest
 * acknowledged sequence number (done ran with err 0) and first at most the
 * lowest acknowledged one not released; the journal then reopens on the
 * crashed image, continues with L + 1, and a second replay returns the old
 * records followed by the new ones.
 *
 * The workload: small files and buffers (file_size 64 KiB, buffer_size
 * 8 KiB, max_io 4, sector 512) so that files rotate and are recycled
 * often; payloads of 0..3000 bytes, derived from a tag (and the tag from the
 * seed), kept in a table by sequence number.
 *
 * Cases (by default all, --only=NAME for one):
 *   det       one producer, deterministic batches (buffer_timeout_ns 10^9,
 *             so a batch leaves at a sync or when full): for every k in
 *             1..K (K: the pwrites of the whole run, several rotations) the
 *             faultfs freezes after pwrite k, and the frozen image is
 *             checked with DROP, KEEP, ZERO, FLIP, every sector prefix of the
 *             pending writes (every sector boundary of the last batches:
 *             the list is capped at 192 prefixes per k, the first 32 and
 *             the last 96 always in) and random tears; plus one crash
 *             during recovery (below). Every other seed calls
 *             conq_journal_release as it goes.
 *   (recovery) a second crash after pwrite 1..12 of the recovery from a
 *             torn image (replay zeroing the torn tail and freeing the
 *             files after it, open making files and headers, the first
 *             batches of the reopened journal), checked with DROP, KEEP
 *             and a random tear: the acknowledged records of the run and
 *             of the interrupted session must all be there.
 *   multi     4 producers, group commit without timer, random crash
 *             points and random modes; half the runs release.
 *   errors    the Nth pwrite fails with EIO, the Nth datasync with EIO or
 *             ENOSPC (with and without the Linux behaviour of dropping the
 *             unsynced pages), every call from the Nth on fails: each
 *             record not durable gets its done function once with that
 *             error, later appends and sync and close return it, and the
 *             image (as it is, and after a crash) satisfies the property.
 *   badmsg    a bit flipped in the durable image of an acknowledged record
 *             that later acknowledged records follow: replay returns
 *             EBADMSG after the records before it, changes nothing (again
 *             EBADMSG), and open fails with EBADMSG.
 *   selftest  the checker against a planted bug (seqs taken as
 *             acknowledged when appended): it must report a loss.
 *
 * Options: --points=N (crash points, default 10000, 2500 under TSan: 60 %
 * det, the rest multi), --seed=S, --only=CASE, --planted (the det case
 * with the planted bug, reporting its failures: the run must fail), -v
 * (dumps the images: file headers and record seqs). A failure prints a
 * reproduction line; with --k=K (and --producers=P --release=0|1
 * --mode=NAME --arg=X --recovery=N) one workload and its crash point run
 * alone. One producer reproduces exactly (but for when the appender and
 * the completion thread interleave their calls); four reproduce the
 * workload and the crash pwrite, not the thread schedule.
 * Prints the crash points checked and "N passed, N failed"; exits non-zero
 * on a failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conq/journal.h"
#include "faultfs.h"
#include "jtest.h"

#define DIR	    "j"
#define SECTOR	    512u
#define FILE_SIZE   ((uint64_t)64 << 10)
#define BUF_SIZE    ((size_t)8 << 10)
#define MAX_LEN	    3000u
#define DET_RECORDS 240u
#define MT_RECORDS  60u /* per producer */
#define MT_THREADS  4u
#define POST_MAX    24u

/* ------------------------------------------------------------ checks --- */

static unsigned long g_pass, g_fail;
static int g_verbose;
static int g_quiet;		/* the self-test: failures counted, not shown */
static unsigned long g_quiet_fail;
static unsigned long g_points;	/* crash points checked */
static char g_repro[256];	/* how to rerun the current crash point */
static unsigned long g_late;	/* points whose replay began after seq 1 */
static unsigned long g_beyond;	/* ... that kept unacknowledged records */
static unsigned long g_empty;	/* ... that replayed no record */

static void fail_msg(int line, const char *fmt, ...)
{
	va_list ap;
	if (g_quiet) {
		g_quiet_fail++;
		return;
	}
	g_fail++;
	fprintf(stderr, "test_journal_crash.c:%d: FAIL: ", line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  reproduce: %s\n", g_repro);
	fflush(stderr);
}

#define FAIL(...) fail_msg(__LINE__, __VA_ARGS__)
/* One check: counts a pass, or prints what failed. */
#define CHECK(cond, ...)                                                      \
	((cond) ? (g_pass++, 1) : (fail_msg(__LINE__, __VA_ARGS__), 0))

/* --------------------------------------------------------- randomness --- */

static uint64_t mix2(uint64_t a, uint64_t b)
{
	uint64_t s = a ^ (b * 0xd1b54a32d192ed03u);
	return jt_splitmix(&s);
}

static uint64_t rnd(uint64_t *s, uint64_t n)
{
	return n ? jt_splitmix(s) % n : 0;
}

/* Payload bytes and type from a record's tag. */
static void fill_payload(unsigned char *p, uint64_t tag, size_t len)
{
	uint64_t s = tag;
	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = jt_splitmix(&s);
		memcpy(p + i, &v, len - i < 8 ? len - i : 8);
	}
}

static uint32_t type_of(uint64_t tag)
{
	return (uint32_t)(tag >> 48);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ the run --- */

struct rec {
	uint64_t tag;
	uint32_t len;
	unsigned char appended;
	unsigned char dones; /* done calls */
	int err;	     /* the first done call's err */
};

struct cfg {
	uint64_t seed;
	unsigned producers; /* 1: deterministic batches */
	int release;
	int planted;	    /* the planted bug: acked at append time */
	uint64_t crash_k;   /* freeze after this pwrite (0: none) */
	unsigned records;   /* per producer */
	unsigned fs_flags;
	/* faults (errors case) */
	uint64_t fail_pwrite, fail_sync, fail_from;
	int fail_err;
};

struct run {
	struct cfg c;
	faultfs *fs;
	conq_journal_opts opts;
	conq_journal *j;
	int open_errno;
	pthread_mutex_t mu;
	struct rec *recs; /* by seq */
	size_t cap;
	uint64_t max_seq;	/* highest seq appended */
	uint64_t max_acked;	/* highest seq acknowledged (done err 0) */
	uint64_t release_upto;	/* highest upto given to release */
	uint64_t last_done;	/* done functions in seq order */
	int order_bad;
	int bad_prefix;		/* an err-0 done after an error done */
	int saw_done_err;
	int done_err;		/* the error done functions got */
	int first_err;		/* the first error append/sync/release gave */
	int close_rc;
};

static int grow(struct run *r, uint64_t seq)
{
	if (seq < r->cap)
		return 1;
	size_t cap = r->cap ? r->cap : 1024;
	while (cap <= seq)
		cap *= 2;
	struct rec *n = realloc(r->recs, cap * sizeof *n);
	if (!n)
		return 0;
	memset(n + r->cap, 0, (cap - r->cap) * sizeof *n);
	r->recs = n;
	r->cap = cap;
	return 1;
}

static void on_done(void *ctx, uint64_t seq, int err)
{
	struct run *r = ctx;
	pthread_mutex_lock(&r->mu);
	if (!grow(r, seq)) {
		pthread_mutex_unlock(&r->mu);
		abort();
	}
	struct rec *e = &r->recs[seq];
	if (e->dones++ == 0)
		e->err = err;
	if (seq <= r->last_done)
		r->order_bad = 1;
	r->last_done = seq;
	if (err) {
		r->saw_done_err = 1;
		if (!r->done_err)
			r->done_err = err;
	} else {
		if (r->saw_done_err)
			r->bad_prefix = 1;
		if (!r->c.planted && seq > r->max_acked)
			r->max_acked = seq;
	}
	pthread_mutex_unlock(&r->mu);
}

static void note_err(struct run *r, int err)
{
	pthread_mutex_lock(&r->mu);
	if (!r->first_err)
		r->first_err = err;
	pthread_mutex_unlock(&r->mu);
}

static void note_release(struct run *r, uint64_t upto)
{
	pthread_mutex_lock(&r->mu);
	if (upto > r->release_upto)
		r->release_upto = upto;
	pthread_mutex_unlock(&r->mu);
}

struct producer {
	struct run *r;
	unsigned id;
	uint64_t rng;
	unsigned char *buf;
};

/* Append one record; 0 or the error. */
static int append_one(struct producer *p, uint64_t counter)
{
	struct run *r = p->r;
	uint64_t tag = mix2(r->c.seed ^ ((uint64_t)p->id << 56), counter + 1);
	size_t len = (size_t)rnd(&p->rng, MAX_LEN + 1);
	uint64_t seq = 0;
	fill_payload(p->buf, tag, len);
	int rc = conq_journal_append(r->j, type_of(tag), p->buf, len, on_done,
				     r, &seq);
	if (rc) {
		note_err(r, rc);
		return rc;
	}
	pthread_mutex_lock(&r->mu);
	if (!grow(r, seq)) {
		pthread_mutex_unlock(&r->mu);
		abort();
	}
	struct rec *e = &r->recs[seq];
	if (e->appended) /* a seq given twice */
		r->order_bad = 2;
	e->tag = tag;
	e->len = (uint32_t)len;
	e->appended = 1;
	if (seq > r->max_seq)
		r->max_seq = seq;
	if (r->c.planted && seq > r->max_acked)
		r->max_acked = seq; /* the planted bug */
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	struct run *r = p->r;
	uint64_t n = 0;
	int rc = 0;
	while (!rc && n < r->c.records) {
		unsigned group = 1 + (unsigned)rnd(&p->rng, 8);
		for (unsigned g = 0; g < group && !rc && n < r->c.records; g++)
			rc = append_one(p, n++);
		if (rc)
			break;
		/* One producer: a sync most of the time (deterministic
		 * batches); several: now and then (group commit). */
		int do_sync = r->c.producers == 1 ? rnd(&p->rng, 4) != 0
						  : rnd(&p->rng, 8) == 0;
		if (do_sync) {
			rc = conq_journal_sync(r->j);
			if (rc) {
				note_err(r, rc);
				break;
			}
		}
		if (r->c.release && p->id == 0 && rnd(&p->rng, 6) == 0) {
			pthread_mutex_lock(&r->mu);
			uint64_t top = r->max_acked;
			pthread_mutex_unlock(&r->mu);
			uint64_t back = rnd(&p->rng, 40);
			if (top > back) {
				note_release(r, top - back);
				rc = conq_journal_release(r->j, top - back);
				if (rc)
					note_err(r, rc);
			}
		}
	}
	return NULL;
}

static void run_opts(conq_journal_opts *o, const conq_journal_io *io,
		     unsigned producers)
{
	memset(o, 0, sizeof *o);
	o->file_size = FILE_SIZE;
	o->buffer_size = BUF_SIZE;
	o->max_io = 4;
	o->sector_size = SECTOR;
	o->buffer_timeout_ns = producers == 1 ? 1000000000u : 0;
	o->io = io;
}

/* Run the workload of c (faultfs made here, kept in r->fs). 1 when it ran
 * (the journal may have failed), 0 when the test could not go on. */
static int run_workload(struct run *r, const struct cfg *c)
{
	memset(r, 0, sizeof *r);
	r->c = *c;
	pthread_mutex_init(&r->mu, NULL);
	r->fs = faultfs_new(SECTOR, c->fs_flags);
	if (!r->fs || faultfs_mkdir(r->fs, DIR) || !grow(r, 1)) {
		FAIL("out of memory");
		return 0;
	}
	run_opts(&r->opts, faultfs_io(r->fs), c->producers);
	if (c->crash_k)
		faultfs_crash_after_pwrite(r->fs, c->crash_k);
	if (c->fail_pwrite)
		faultfs_fail_pwrite(r->fs, c->fail_pwrite, c->fail_err);
	if (c->fail_sync)
		faultfs_fail_datasync(r->fs, c->fail_sync, c->fail_err);
	if (c->fail_from)
		faultfs_fail_from(r->fs, c->fail_from, c->fail_err);
	r->j = conq_journal_open(DIR, &r->opts);
	if (!r->j) {
		r->open_errno = errno;
		return 1;
	}
	struct producer p[MT_THREADS];
	pthread_t t[MT_THREADS];
	unsigned n = c->producers;
	for (unsigned i = 0; i < n; i++) {
		p[i].r = r;
		p[i].id = i;
		p[i].rng = mix2(c->seed, 1000 + i);
		p[i].buf = malloc(MAX_LEN + 1);
		if (!p[i].buf)
			abort();
	}
	if (n == 1) {
		producer_main(&p[0]);
	} else {
		for (unsigned i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, producer_main, &p[i]))
				abort();
		for (unsigned i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	}
	for (unsigned i = 0; i < n; i++)
		free(p[i].buf);
	return 1;
}

static void run_free(struct run *r)
{
	faultfs_free(r->fs);
	r->fs = NULL;
	free(r->recs);
	r->recs = NULL;
	pthread_mutex_destroy(&r->mu);
}

/* The done functions' story after close: each appended seq's done ran
 * once, in seq order; err 0, or the journal's error for a suffix. */
static void check_dones(struct run *r, const char *what)
{
	unsigned long missing = 0, extra = 0, unknown = 0;
	uint64_t first_missing = 0;
	for (uint64_t s = 1; s <= r->max_seq && s < r->cap; s++) {
		const struct rec *e = &r->recs[s];
		if (e->appended && e->dones != 1) {
			if (e->dones == 0 && !missing++)
				first_missing = s;
			if (e->dones > 1)
				extra++;
		}
		if (!e->appended && e->dones)
			unknown++;
	}
	CHECK(!missing && !extra && !unknown,
	      "%s: done functions: %lu appended records without a call (first "
	      "seq %" PRIu64 "), %lu called more than once, %lu calls for "
	      "seqs never appended",
	      what, missing, first_missing, extra, unknown);
	CHECK(!r->order_bad, "%s: done functions out of seq order (%d)", what,
	      r->order_bad);
	CHECK(!r->bad_prefix,
	      "%s: a done function got err 0 after one got an error", what);
}

/* ----------------------------------------------------------- replaying --- */

/* The records of a session on a crashed image (after reopening it). */
struct post {
	uint64_t first; /* seq of tag[0] (0: the session never opened) */
	unsigned n;
	uint64_t acked_max; /* highest seq acknowledged (0: none) */
	uint64_t tag[POST_MAX];
	uint32_t len[POST_MAX];
	unsigned char acked[POST_MAX];
};

struct rstate {
	const struct run *r;
	const struct post *post[2]; /* later sessions (may be NULL) */
	uint64_t first, last, count;
	char why[200];
	unsigned char *scratch;
};

static int replay_cb(void *ctx, uint64_t seq, uint32_t type, const void *data,
		     size_t len)
{
	struct rstate *rs = ctx;
	uint64_t tag;
	size_t want;
	if (rs->count == 0) {
		rs->first = seq;
	} else if (seq != rs->last + 1 && !rs->why[0]) {
		snprintf(rs->why, sizeof rs->why,
			 "seq %" PRIu64 " after %" PRIu64 " (hole or duplicate)",
			 seq, rs->last);
	}
	rs->last = seq;
	rs->count++;
	if (rs->why[0])
		return 0;
	/* The run's records come before the first later session's. */
	const struct post *p = NULL;
	uint64_t bound = UINT64_MAX;
	for (int i = 1; i >= 0; i--) {
		const struct post *q = rs->post[i];
		if (!q || !q->first)
			continue;
		if (q->first < bound)
			bound = q->first;
		if (!p && seq >= q->first && seq - q->first < q->n)
			p = q;
	}
	if (p) {
		tag = p->tag[seq - p->first];
		want = p->len[seq - p->first];
	} else if (seq < rs->r->cap && rs->r->recs[seq].appended &&
		   seq < bound) {
		tag = rs->r->recs[seq].tag;
		want = rs->r->recs[seq].len;
	} else {
		snprintf(rs->why, sizeof rs->why,
			 "seq %" PRIu64 " was never appended (garbage)", seq);
		return 0;
	}
	if (len != want || type != type_of(tag)) {
		snprintf(rs->why, sizeof rs->why,
			 "seq %" PRIu64 ": len %zu type %" PRIu32
			 ", appended len %zu type %" PRIu32,
			 seq, len, type, want, type_of(tag));
		return 0;
	}
	fill_payload(rs->scratch, tag, len);
	if (len && memcmp(rs->scratch, data, len) != 0) {
		size_t i = 0;
		while (((const unsigned char *)data)[i] == rs->scratch[i])
			i++;
		snprintf(rs->why, sizeof rs->why,
			 "seq %" PRIu64 ": payload differs at byte %zu of %zu",
			 seq, i, len);
	}
	return 0;
}

static int do_replay(faultfs *fs, const struct run *r, const struct post *p0,
		     const struct post *p1, struct rstate *rs, uint64_t *last)
{
	static unsigned char scratch[MAX_LEN + 8];
	conq_journal_opts o;
	run_opts(&o, faultfs_io(fs), 1);
	memset(rs, 0, sizeof *rs);
	rs->r = r;
	rs->post[0] = p0;
	rs->post[1] = p1;
	rs->scratch = scratch;
	return conq_journal_replay_opts(DIR, &o, replay_cb, rs, last);
}

static void on_post_done(void *ctx, uint64_t seq, int err)
{
	struct post *p = ctx;
	if (seq >= p->first && seq - p->first < POST_MAX && err == 0)
		p->acked[seq - p->first]++;
}

/* Append up to n records (stops at an error); 0 or the first error. */
static int post_append(conq_journal *j, struct post *p, unsigned n,
		       uint64_t *prng)
{
	unsigned char buf[MAX_LEN];
	int rc = 0;
	p->first = conq_journal_next_seq(j);
	for (unsigned i = 0; i < n && !rc; i++) {
		uint64_t seq = 0;
		p->tag[i] = mix2(*prng, i + 77);
		p->len[i] = (uint32_t)rnd(prng, MAX_LEN + 1);
		fill_payload(buf, p->tag[i], p->len[i]);
		rc = conq_journal_append(j, type_of(p->tag[i]), buf, p->len[i],
					 on_post_done, p, &seq);
		if (rc)
			break;
		if (seq != p->first + i)
			return -1;
		p->n = i + 1;
		if (rnd(prng, 4) == 0)
			rc = conq_journal_sync(j);
	}
	return rc;
}

/* After close: the acknowledged prefix. */
static void post_acked(struct post *p)
{
	p->acked_max = 0;
	for (unsigned i = 0; i < p->n && p->acked[i] == 1; i++)
		p->acked_max = p->first + i;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* -v: each file's header (the layout of src/journal/jinternal.h) and its
 * first records' seqs. */
static int dump_file(void *ctx, const char *path, uint64_t size)
{
	faultfs *fs = ctx;
	unsigned char h[64];
	if (faultfs_peek(fs, path, 0, h, sizeof h) != (int64_t)sizeof h) {
		printf("  %s: size %" PRIu64 ", no header\n", path, size);
		return 0;
	}
	printf("  %s: size %" PRIu64 " magic %.4s id %" PRIu64
	       " first_seq %" PRIu64 " last_id %" PRIu64 "; records:",
	       path, size, (const char *)h, le64(h + 24), le64(h + 32),
	       le64(h + 40));
	for (uint64_t o = SECTOR; o + 40 <= size; o += SECTOR) {
		unsigned char r[40];
		if (faultfs_peek(fs, path, o, r, sizeof r) != 40)
			break;
		if (memcmp(r, "CQJR", 4) == 0)
			printf(" %" PRIu64 "(id %" PRIu64 " dur %" PRIu64 ")",
			       le64(r + 16), le64(r + 24), le64(r + 32));
	}
	printf("\n");
	return 0;
}

static void dump_fs(faultfs *fs, const char *title)
{
	printf("%s:\n", title);
	faultfs_walk(fs, DIR, dump_file, fs);
}

/* Check one crashed image (fs, owned here) against run r and, when prev is
 * not NULL, the session that ran on an earlier crashed image of r before
 * this crash. Returns 1 when every check passed. */
static int check_image(faultfs *fs, const struct run *r,
		       const struct post *prev, uint64_t prng)
{
	struct rstate rs, rs2;
	uint64_t last = 0, last2 = 0;
	unsigned long fails = g_fail + g_quiet_fail;
	g_points++;

	/* 1. Replay the crashed image. */
	if (g_verbose)
		dump_fs(fs, "crashed image");
	int rc = do_replay(fs, r, prev, NULL, &rs, &last);
	uint64_t acked = r->max_acked, rel = r->release_upto;
	if (prev && prev->acked_max > acked)
		acked = prev->acked_max;
	if (!CHECK(rc == 0, "replay returned %d (%s), want 0", rc,
		   strerror(rc)))
		goto out;
	if (!CHECK(!rs.why[0], "replay: %s", rs.why))
		goto out;
	if (rs.count)
		CHECK(last == rs.last,
		      "replay's *last %" PRIu64 ", last record %" PRIu64, last,
		      rs.last);
	if (rs.count)
		CHECK(rs.last >= acked,
		      "lost acknowledged records: replay ends at %" PRIu64
		      ", acknowledged up to %" PRIu64,
		      rs.last, acked);
	else
		CHECK(acked <= rel,
		      "lost acknowledged records: replay returned none, "
		      "acknowledged up to %" PRIu64 ", released up to %" PRIu64,
		      acked, rel);
	if (acked > rel)
		CHECK(rs.count && rs.first <= rel + 1,
		      "replay starts at %" PRIu64 " (%" PRIu64
		      " records), the lowest acknowledged record not "
		      "released is %" PRIu64,
		      rs.first, rs.count, rel + 1);
	g_late += rs.count && rs.first > 1;
	g_beyond += rs.count && rs.last > acked;
	g_empty += !rs.count;
	if (g_verbose) {
		printf("replay: %d, %" PRIu64 " records %" PRIu64 "..%" PRIu64
		       ", acked up to %" PRIu64 ", released up to %" PRIu64
		       ", appended up to %" PRIu64 "\n",
		       rc, rs.count, rs.first, rs.last, acked, rel, r->max_seq);
		dump_fs(fs, "after replay");
	}

	/* 2. Replay again: the same (the tail was zeroed, nothing else). */
	rc = do_replay(fs, r, prev, NULL, &rs2, &last2);
	CHECK(rc == 0 && !rs2.why[0] && rs2.count == rs.count &&
		      rs2.first == rs.first && rs2.last == rs.last,
	      "second replay differs: rc %d, %" PRIu64 " records %" PRIu64
	      "..%" PRIu64 " vs %" PRIu64 " records %" PRIu64 "..%" PRIu64
	      " %s",
	      rc, rs2.count, rs2.first, rs2.last, rs.count, rs.first, rs.last,
	      rs2.why);

	/* 3. Reopen on the crashed image, append, close. */
	conq_journal_opts o;
	run_opts(&o, faultfs_io(fs), 1);
	o.buffer_timeout_ns = 0;
	conq_journal *j = conq_journal_open(DIR, &o);
	int e = errno;
	if (!CHECK(j != NULL, "reopen after the crash failed: %s",
		   strerror(e)))
		goto out;
	struct post p;
	memset(&p, 0, sizeof p);
	rc = post_append(j, &p, 1 + (unsigned)rnd(&prng, POST_MAX), &prng);
	CHECK(rc == 0, "append or sync after reopen: %d", rc);
	if (rs.count)
		CHECK(p.first == rs.last + 1,
		      "reopened journal continues at %" PRIu64
		      ", replay ended at %" PRIu64,
		      p.first, rs.last);
	CHECK(p.first > acked,
	      "reopened journal continues at %" PRIu64
	      ", acknowledged records go up to %" PRIu64 " (seq reused)",
	      p.first, acked);
	rc = conq_journal_close(j);
	CHECK(rc == 0, "close after reopen: %d", rc);
	post_acked(&p);
	if (g_verbose) {
		printf("reopened at %" PRIu64 ", appended %u\n", p.first, p.n);
		dump_fs(fs, "after reopen, append, close");
	}
	CHECK(p.n && p.acked_max == p.first + p.n - 1,
	      "after reopen: %u records appended, acknowledged up to %" PRIu64
	      " from %" PRIu64,
	      p.n, p.acked_max, p.first);

	/* 4. Replay: the old records, then the new ones. */
	rc = do_replay(fs, r, prev, &p, &rs2, &last2);
	if (!CHECK(rc == 0 && !rs2.why[0],
		   "replay after reopen: rc %d (%s) %s", rc, strerror(rc),
		   rs2.why))
		goto out;
	uint64_t want_first = rs.count ? rs.first : p.first;
	uint64_t want_count = (rs.count ? rs.count : 0) + p.n;
	CHECK(rs2.count == want_count &&
		      (!want_count ||
		       (rs2.first == want_first && last2 == rs2.last &&
			rs2.last == p.first + p.n - 1)),
	      "replay after reopen: %" PRIu64 " records %" PRIu64 "..%" PRIu64
	      " (last %" PRIu64 "), want %" PRIu64 " records %" PRIu64
	      "..%" PRIu64,
	      rs2.count, rs2.first, rs2.last, last2, want_count, want_first,
	      p.first + p.n - 1);
out:
	faultfs_free(fs);
	return g_fail + g_quiet_fail == fails;
}

/* A second crash during recovery: on the crashed image (fs, owned here),
 * replay, reopen and append run with the faultfs freezing after their
 * pwrite number `at` (replay's zeroing of the torn tail and freeing of the
 * files after it, open's new files and headers, the first batches); that
 * image is checked with DROP, KEEP and a random tear: the run's
 * acknowledged records and the interrupted session's must all be there.
 * Returns the failures. */
static unsigned long check_recovery_crash(faultfs *fs, const struct run *r,
					  uint64_t at, uint64_t prng)
{
	unsigned long bad = 0;
	struct post p;
	memset(&p, 0, sizeof p);
	faultfs_crash_after_pwrite(fs, at);
	conq_journal_opts o;
	run_opts(&o, faultfs_io(fs), 1);
	o.buffer_timeout_ns = 0;
	int rc = conq_journal_replay_opts(DIR, &o, NULL, NULL, NULL);
	if (rc == 0 && !faultfs_crashed(fs)) {
		conq_journal *j = conq_journal_open(DIR, &o);
		if (j) {
			post_append(j, &p, 1 + (unsigned)rnd(&prng, POST_MAX),
				    &prng);
			conq_journal_close(j);
			post_acked(&p);
		}
	}
	faultfs_crash_now(fs);
	faultfs_snapshot *s = faultfs_take_snapshot(fs);
	faultfs_free(fs);
	if (!s) {
		FAIL("no snapshot");
		return 1;
	}
	static const enum faultfs_mode modes[] = {FAULTFS_DROP, FAULTFS_KEEP,
						  FAULTFS_TEAR_RANDOM};
	size_t n = strlen(g_repro);
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		faultfs_crash c;
		memset(&c, 0, sizeof c);
		c.mode = modes[i];
		c.seed = prng + i;
		snprintf(g_repro + n, sizeof g_repro - n,
			 " then crash %" PRIu64 " pwrites into recovery, %s", at,
			 faultfs_mode_name(modes[i]));
		faultfs *f2 = faultfs_from_snapshot(s, &c, 0, NULL);
		if (!f2) {
			FAIL("out of memory");
			bad++;
			break;
		}
		bad += !check_image(f2, r, &p, prng ^ (i + 1));
	}
	g_repro[n] = '\0';
	faultfs_snapshot_free(s);
	return bad;
}

/* ----------------------------------------------------------- the modes --- */

struct point {
	const char *kind; /* det, multi, errors */
	struct cfg c;
	faultfs_crash crash;
	uint64_t recovery; /* crash again after this pwrite of recovery */
};

static void set_repro(const struct point *pt)
{
	char arg[64] = "";
	if (pt->crash.mode == FAULTFS_TEAR_PREFIX)
		snprintf(arg, sizeof arg, " --arg=%zu", pt->crash.prefix);
	else if (pt->crash.mode == FAULTFS_TEAR_RANDOM ||
		 pt->crash.mode == FAULTFS_FLIP)
		snprintf(arg, sizeof arg, " --arg=%" PRIu64, pt->crash.seed);
	if (pt->recovery) {
		size_t n = strlen(arg);
		snprintf(arg + n, sizeof arg - n, " --recovery=%" PRIu64,
			 pt->recovery);
	}
	snprintf(g_repro, sizeof g_repro,
		 "test_journal_crash --seed=%" PRIu64 " --k=%" PRIu64
		 " --producers=%u --release=%d%s --mode=%s%s (%s)",
		 pt->c.seed, pt->c.crash_k, pt->c.producers, pt->c.release,
		 pt->c.planted ? " --planted" : "",
		 faultfs_mode_name(pt->crash.mode), arg, pt->kind);
}

/* Check snapshot s of run r with one crash mode (and a crash during
 * recovery when pt->recovery is set). */
static int check_mode(const struct run *r, const faultfs_snapshot *s,
		      struct point *pt)
{
	faultfs_crash_info info;
	set_repro(pt);
	faultfs *fs = faultfs_from_snapshot(s, &pt->crash, 0, &info);
	if (!fs) {
		FAIL("out of memory");
		return 0;
	}
	if (pt->crash.mode == FAULTFS_FLIP && info.flip_path[0]) {
		size_t n = strlen(g_repro);
		snprintf(g_repro + n, sizeof g_repro - n,
			 " [flipped %s byte %" PRIu64 " bit %u]",
			 info.flip_path, info.flip_off, info.flip_bit);
	}
	uint64_t prng = mix2(pt->c.seed ^ pt->c.crash_k,
			     pt->crash.prefix ^ pt->crash.seed ^
				     (uint64_t)pt->crash.mode ^
				     pt->recovery << 32);
	if (pt->recovery)
		return check_recovery_crash(fs, r, pt->recovery, prng) == 0;
	return check_image(fs, r, NULL, prng);
}

/* The crash modes of one frozen snapshot: every mode, every prefix (capped
 * to 192: the first 32 and the last 96 always), `nrand` random tears and
 * `nflip` flips. Returns the failures. */
static unsigned long check_all_modes(const struct run *r,
				     const faultfs_snapshot *s,
				     struct point *pt, unsigned nrand,
				     unsigned nflip, int all_prefixes,
				     unsigned nrecovery)
{
	unsigned long bad = 0;
	size_t n = faultfs_snapshot_pending_sectors(s);
	uint64_t rng = mix2(pt->c.seed, pt->c.crash_k + 0x1234);
	static const enum faultfs_mode fixed[] = {FAULTFS_DROP, FAULTFS_KEEP,
						  FAULTFS_ZERO};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		memset(&pt->crash, 0, sizeof pt->crash);
		pt->crash.mode = fixed[i];
		bad += !check_mode(r, s, pt);
	}
	for (unsigned i = 0; i < nflip && n; i++) {
		memset(&pt->crash, 0, sizeof pt->crash);
		pt->crash.mode = FAULTFS_FLIP;
		pt->crash.seed = jt_splitmix(&rng);
		bad += !check_mode(r, s, pt);
	}
	for (size_t k = 1; k < n; k++) {
		if (!all_prefixes) {
			if (k > 3 && rnd(&rng, n) >= 3)
				continue;
		} else if (n > 192 && k > 32 && k + 96 < n &&
			   (k - 32) % ((n - 128 + 63) / 64) != 0) {
			continue;
		}
		memset(&pt->crash, 0, sizeof pt->crash);
		pt->crash.mode = FAULTFS_TEAR_PREFIX;
		pt->crash.prefix = k;
		bad += !check_mode(r, s, pt);
	}
	for (unsigned i = 0; i < nrand && n > 1; i++) {
		memset(&pt->crash, 0, sizeof pt->crash);
		pt->crash.mode = FAULTFS_TEAR_RANDOM;
		pt->crash.seed = jt_splitmix(&rng);
		pt->crash.keep_permille = 100 + (unsigned)rnd(&rng, 801);
		bad += !check_mode(r, s, pt);
	}
	/* Crashes during recovery from a torn image (3 points each). */
	for (unsigned i = 0; i < nrecovery; i++) {
		memset(&pt->crash, 0, sizeof pt->crash);
		pt->crash.mode = n > 1 ? FAULTFS_TEAR_PREFIX : FAULTFS_KEEP;
		pt->crash.prefix = n > 1 ? 1 + (size_t)rnd(&rng, n - 1) : 0;
		pt->recovery = 1 + rnd(&rng, 12);
		bad += !check_mode(r, s, pt);
		pt->recovery = 0;
	}
	return bad;
}

/* Run c (with c->crash_k), freeze, and check every mode (or, when
 * only_mode >= 0, just that one with arg). Returns the failures; *pwrites
 * gets the run's pwrites when asked. */
static unsigned long crash_run(const struct cfg *c, const char *kind,
			       int only_mode, uint64_t arg, uint64_t recovery,
			       unsigned nrand, unsigned nflip, int all_prefixes,
			       unsigned nrecovery, uint64_t *pwrites,
			       int *crashed)
{
	struct run r;
	struct point pt;
	unsigned long bad = 0;
	memset(&pt, 0, sizeof pt);
	pt.kind = kind;
	pt.c = *c;
	set_repro(&pt);
	if (!run_workload(&r, c)) {
		run_free(&r);
		return 1;
	}
	int was = faultfs_crashed(r.fs);
	if (!r.j && !(was && r.open_errno == EIO)) {
		FAIL("open failed: %s", strerror(r.open_errno));
		run_free(&r);
		return 1;
	}
	/* A crash during open: open failed (EIO), nothing appended. */
	r.close_rc = r.j ? conq_journal_close(r.j) : EIO;
	r.j = NULL;
	was = faultfs_crashed(r.fs);
	if (crashed)
		*crashed = was;
	if (pwrites) {
		faultfs_stats st;
		faultfs_get_stats(r.fs, &st);
		*pwrites = st.pwrites;
	}
	check_dones(&r, "crash run");
	if (was)
		CHECK(r.close_rc == 0 || r.close_rc == EIO,
		      "close after the crash returned %d, want EIO or 0",
		      r.close_rc);
	else
		CHECK(r.close_rc == 0 && r.first_err == 0,
		      "run without crash: close %d, first error %d", r.close_rc,
		      r.first_err);
	if (r.close_rc == 0 && !r.c.planted) {
		/* Then every appended record was acknowledged. */
		CHECK(r.max_acked == r.max_seq,
		      "close returned 0 with records %" PRIu64 "..%" PRIu64
		      " not acknowledged",
		      r.max_acked + 1, r.max_seq);
	}
	faultfs_crash_now(r.fs); /* no-op when frozen already */
	faultfs_snapshot *s = faultfs_take_snapshot(r.fs);
	if (!s) {
		FAIL("no snapshot");
		run_free(&r);
		return 1;
	}
	if (only_mode >= 0) {
		if (g_verbose)
			faultfs_snapshot_dump(s, stdout);
		memset(&pt.crash, 0, sizeof pt.crash);
		pt.crash.mode = (enum faultfs_mode)only_mode;
		pt.crash.prefix = (size_t)arg;
		pt.crash.seed = arg;
		pt.recovery = recovery;
		bad += !check_mode(&r, s, &pt);
	} else {
		bad += check_all_modes(&r, s, &pt, nrand, nflip, all_prefixes,
				       nrecovery);
	}
	faultfs_snapshot_free(s);
	run_free(&r);
	return bad;
}

/* ------------------------------------------------------------- the cases --- */

/* TSan makes every crash point about 15 times slower (6 minutes for 10^4
 * here): a TSan build checks fewer by default (--points says otherwise). */
#if defined(__SANITIZE_THREAD__)
#define DEFAULT_POINTS 2500
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DEFAULT_POINTS 2500
#endif
#endif
#ifndef DEFAULT_POINTS
#define DEFAULT_POINTS 10000
#endif
static unsigned long g_points_target = DEFAULT_POINTS;
static uint64_t g_seed = 1;

/* One producer, crash after every pwrite k. */
static void case_det(unsigned long points, int planted)
{
	double t0 = now_s();
	unsigned long start = g_points, bad = 0, runs = 0;
	for (uint64_t si = 0; g_points - start < points; si++) {
		struct cfg c;
		memset(&c, 0, sizeof c);
		c.seed = mix2(g_seed, si);
		c.producers = 1;
		c.release = (int)(si & 1);
		c.records = DET_RECORDS;
		c.planted = planted;
		uint64_t total = 0;
		bad += crash_run(&c, "det", -1, 0, 0, 0, 0, 0, 0, &total,
				 NULL);
		for (uint64_t k = 1; k <= total && g_points - start < points;
		     k++) {
			c.crash_k = k;
			bad += crash_run(&c, "det", -1, 0, 0, 4, 2, 1, 1, NULL,
					 NULL);
			runs++;
		}
		if (g_verbose)
			printf("det seed %" PRIu64 ": %" PRIu64
			       " pwrites, %lu points so far\n",
			       c.seed, total, g_points - start);
	}
	printf("det: %lu crash points (%lu runs), %lu failed, %.1f s\n",
	       g_points - start, runs, bad, now_s() - t0);
}

/* Four producers, random crash points and modes. */
static void case_multi(unsigned long points)
{
	double t0 = now_s();
	unsigned long start = g_points, bad = 0, runs = 0, crashes = 0;
	uint64_t rng = mix2(g_seed, 0xabcdef);
	uint64_t span = 300;
	while (g_points - start < points) {
		struct cfg c;
		memset(&c, 0, sizeof c);
		c.seed = jt_splitmix(&rng);
		c.producers = MT_THREADS;
		c.release = (int)rnd(&rng, 2);
		c.records = MT_RECORDS;
		c.crash_k = 1 + rnd(&rng, span);
		uint64_t total = 0;
		int crashed = 0;
		bad += crash_run(&c, "multi", -1, 0, 0, 3, 1, 0, 1, &total,
				 &crashed);
		crashes += (unsigned long)crashed;
		if (!crashed && total < span) /* aim inside the runs */
			span = total > 8 ? total : 8;
		runs++;
	}
	printf("multi: %lu crash points (%lu runs, %lu crashed mid-run), %lu "
	       "failed, %.1f s\n",
	       g_points - start, runs, crashes, bad, now_s() - t0);
}

/* I/O errors. */
static void error_run(const struct cfg *c, const char *what)
{
	struct run r;
	struct point pt;
	memset(&pt, 0, sizeof pt);
	pt.kind = "errors";
	pt.c = *c;
	snprintf(g_repro, sizeof g_repro,
		 "test_journal_crash --only=errors (%s, seed %" PRIu64 ")",
		 what, c->seed);
	if (!run_workload(&r, c)) {
		run_free(&r);
		return;
	}
	int want = c->fail_err;
	if (!r.j) {
		CHECK(r.open_errno == want,
		      "%s: open failed with %d (%s), want %d", what,
		      r.open_errno, strerror(r.open_errno), want);
	} else {
		int rc;
		if (r.first_err) {
			CHECK(r.first_err == want,
			      "%s: the first error from append/sync/release "
			      "is %d, want %d",
			      what, r.first_err, want);
			uint64_t seq = 0;
			rc = conq_journal_append(r.j, 1, "x", 1, NULL, NULL,
						 &seq);
			CHECK(rc == want, "%s: append after the error: %d, "
			      "want %d", what, rc, want);
			rc = conq_journal_sync(r.j);
			CHECK(rc == want,
			      "%s: sync after the error: %d, want %d", what, rc,
			      want);
		}
		r.close_rc = conq_journal_close(r.j);
		r.j = NULL;
		check_dones(&r, what);
		if (r.first_err || r.saw_done_err) {
			CHECK(r.close_rc == want, "%s: close returned %d, want %d",
			      what, r.close_rc, want);
			if (r.saw_done_err)
				CHECK(r.done_err == want,
				      "%s: done functions got %d, want %d",
				      what, r.done_err, want);
		} else if (r.close_rc) {
			/* The fault hit where no caller saw it (a file made
			 * ahead, the last sync): close says so. */
			CHECK(r.close_rc == want,
			      "%s: close returned %d, want %d", what,
			      r.close_rc, want);
		} else {
			CHECK(r.max_acked == r.max_seq,
			      "%s: close returned 0 with records not "
			      "acknowledged",
			      what);
		}
	}
	/* The image as the process left it, and after a power loss. */
	faultfs_clear_faults(r.fs);
	faultfs_snapshot *s = faultfs_snapshot_now(r.fs);
	if (!s) {
		FAIL("no snapshot");
		run_free(&r);
		return;
	}
	static const enum faultfs_mode modes[] = {
		FAULTFS_KEEP, FAULTFS_DROP, FAULTFS_ZERO, FAULTFS_TEAR_RANDOM};
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		memset(&pt.crash, 0, sizeof pt.crash);
		pt.crash.mode = modes[i];
		pt.crash.seed = c->seed + i;
		faultfs *fs = faultfs_from_snapshot(s, &pt.crash, 0, NULL);
		if (!fs) {
			FAIL("out of memory");
			break;
		}
		snprintf(g_repro, sizeof g_repro,
			 "test_journal_crash --only=errors (%s, seed %" PRIu64
			 "), then %s",
			 what, c->seed, faultfs_mode_name(modes[i]));
		check_image(fs, &r, NULL, c->seed + 31 * i);
	}
	faultfs_snapshot_free(s);
	run_free(&r);
}

static void case_errors(void)
{
	double t0 = now_s();
	unsigned long fails = g_fail, start = g_points;
	struct cfg c;
	memset(&c, 0, sizeof c);
	c.seed = mix2(g_seed, 0xe770);
	c.producers = 1;
	c.records = 120;
	c.release = 1;
	/* How many calls of each kind a clean run makes. */
	struct run r;
	if (!run_workload(&r, &c) || !r.j) {
		FAIL("errors: the clean run failed");
		run_free(&r);
		return;
	}
	conq_journal_close(r.j);
	faultfs_stats st;
	faultfs_get_stats(r.fs, &st);
	run_free(&r);
	char what[128];
	uint64_t npw = st.pwrites, nsy = st.datasyncs, ncalls = st.calls;
	for (uint64_t n = 1; n <= npw + 1; n += n < 24 ? 1 : 1 + n / 8) {
		struct cfg e = c;
		e.fail_pwrite = n;
		e.fail_err = EIO;
		e.seed = c.seed + n;
		snprintf(what, sizeof what, "pwrite %" PRIu64 " fails: EIO", n);
		error_run(&e, what);
	}
	static const int errs[] = {EIO, ENOSPC};
	for (uint64_t n = 1; n <= nsy + 1; n += n < 24 ? 1 : 1 + n / 8)
		for (unsigned lose = 0; lose < 2; lose++)
			for (size_t ei = 0; ei < 2; ei++) {
				struct cfg e = c;
				e.fail_sync = n;
				e.fail_err = errs[ei];
				e.fs_flags = lose ? FAULTFS_LOSE_ON_SYNC_FAIL : 0;
				e.seed = c.seed + n * 4 + lose * 2 + ei;
				snprintf(what, sizeof what,
					 "datasync %" PRIu64 " fails: %s%s", n,
					 errs[ei] == EIO ? "EIO" : "ENOSPC",
					 lose ? ", pages dropped" : "");
				error_run(&e, what);
			}
	for (uint64_t n = 1; n <= ncalls + 1; n += n < 16 ? 1 : 1 + n / 6) {
		struct cfg e = c;
		e.fail_from = n;
		e.fail_err = EIO;
		e.seed = c.seed + n * 7;
		snprintf(what, sizeof what, "every call from %" PRIu64
			 " fails: EIO", n);
		error_run(&e, what);
	}
	/* Several producers, group commit. */
	for (uint64_t n = 3; n <= 60; n += 7) {
		struct cfg e = c;
		e.producers = MT_THREADS;
		e.records = MT_RECORDS;
		e.fail_sync = n;
		e.fail_err = n % 2 ? EIO : ENOSPC;
		e.fs_flags = FAULTFS_LOSE_ON_SYNC_FAIL;
		e.seed = c.seed + n * 13;
		snprintf(what, sizeof what,
			 "4 producers, datasync %" PRIu64 " fails: %d", n,
			 e.fail_err);
		error_run(&e, what);
	}
	printf("errors: %" PRIu64 " pwrites, %" PRIu64 " datasyncs, %" PRIu64
	       " calls in the clean run; %lu images checked, %lu failed, "
	       "%.1f s\n",
	       npw, nsy, ncalls, g_points - start, g_fail - fails,
	       now_s() - t0);
}

/* Find seq's record in the image: the path and the offset of its header. */
struct finder {
	faultfs *fs;
	const unsigned char *payload;
	size_t len;
	char path[128];
	uint64_t off;
	int found;
};

static int find_in_file(void *ctx, const char *path, uint64_t size)
{
	struct finder *f = ctx;
	unsigned char *b = malloc(CONQ_JOURNAL_RECORD_HEADER + f->len);
	if (!b)
		return 1;
	for (uint64_t o = SECTOR; o + CONQ_JOURNAL_RECORD_HEADER + f->len <= size;
	     o += SECTOR) {
		size_t n = CONQ_JOURNAL_RECORD_HEADER + f->len;
		if (faultfs_peek(f->fs, path, o, b, n) != (int64_t)n)
			break;
		if (memcmp(b + CONQ_JOURNAL_RECORD_HEADER, f->payload,
			   f->len) == 0 &&
		    memcmp(b, "CQJR", 4) == 0) {
			snprintf(f->path, sizeof f->path, "%s", path);
			f->off = o;
			f->found++;
		}
	}
	free(b);
	return 0;
}

static void case_badmsg(void)
{
	double t0 = now_s();
	unsigned long fails = g_fail;
	unsigned checked = 0;
	for (unsigned it = 0; it < 24; it++) {
		struct cfg c;
		memset(&c, 0, sizeof c);
		c.seed = mix2(g_seed, 0xbad0 + it);
		c.producers = 1;
		c.records = 160;
		struct run r;
		snprintf(g_repro, sizeof g_repro,
			 "test_journal_crash --only=badmsg (iteration %u, seed "
			 "%" PRIu64 ")",
			 it, c.seed);
		if (!run_workload(&r, &c) || !r.j) {
			FAIL("badmsg: the run failed");
			run_free(&r);
			continue;
		}
		int rc = conq_journal_close(r.j);
		r.j = NULL;
		if (!CHECK(rc == 0 && r.max_acked == r.max_seq,
			   "badmsg: close %d, acked %" PRIu64 " of %" PRIu64, rc,
			   r.max_acked, r.max_seq)) {
			run_free(&r);
			continue;
		}
		/* A record with a payload, well before the end. */
		uint64_t rng = mix2(c.seed, 99);
		uint64_t s = 0;
		for (int tries = 0; tries < 100 && !s; tries++) {
			uint64_t cand = 1 + rnd(&rng, r.max_seq - 40);
			if (r.recs[cand].len >= 16)
				s = cand;
		}
		if (!CHECK(s != 0, "badmsg: no record to corrupt")) {
			run_free(&r);
			continue;
		}
		unsigned char *pl = malloc(MAX_LEN);
		if (!pl)
			abort();
		fill_payload(pl, r.recs[s].tag, r.recs[s].len);
		struct finder f = {.fs = r.fs, .payload = pl,
				   .len = r.recs[s].len};
		faultfs_walk(r.fs, DIR, find_in_file, &f);
		free(pl);
		if (!CHECK(f.found == 1,
			   "badmsg: seq %" PRIu64 " found %d times in the image",
			   s, f.found)) {
			run_free(&r);
			continue;
		}
		/* Flip a bit: in the payload, or in the header's fields that
		 * the CRC covers (not the CRC itself: that is corruption
		 * too, but keep it to one kind per iteration). */
		uint64_t at;
		if (it % 3 == 2)
			at = f.off + 8 + rnd(&rng, 32);
		else if (it % 3 == 1)
			at = f.off + rnd(&rng, 4);
		else
			at = f.off + CONQ_JOURNAL_RECORD_HEADER +
			     rnd(&rng, r.recs[s].len);
		unsigned char mask = (unsigned char)(1u << rnd(&rng, 8));
		faultfs_corrupt(r.fs, f.path, at, mask);
		struct rstate rs;
		uint64_t last = 0;
		for (int pass = 0; pass < 2; pass++) {
			rc = do_replay(r.fs, &r, NULL, NULL, &rs, &last);
			CHECK(rc == EBADMSG,
			      "badmsg: seq %" PRIu64 " corrupted (%s byte %" PRIu64
			      " ^ 0x%02x), replay pass %d returned %d (%s), "
			      "want EBADMSG",
			      s, f.path, at, mask, pass + 1, rc, strerror(rc));
			CHECK(!rs.why[0] && rs.count && rs.first == 1 &&
				      rs.last == s - 1 && last == s - 1,
			      "badmsg: seq %" PRIu64 " corrupted: replay gave "
			      "%" PRIu64 " records %" PRIu64 "..%" PRIu64
			      " (last %" PRIu64 ") %s, want 1..%" PRIu64,
			      s, rs.count, rs.first, rs.last, last, rs.why,
			      s - 1);
		}
		conq_journal_opts o;
		run_opts(&o, faultfs_io(r.fs), 1);
		conq_journal *j = conq_journal_open(DIR, &o);
		int e = errno;
		CHECK(!j && e == EBADMSG,
		      "badmsg: open on a corrupt journal: %p errno %d, want "
		      "NULL and EBADMSG",
		      (void *)j, e);
		if (j)
			conq_journal_close(j);
		/* Undo the flip: everything back. */
		faultfs_corrupt(r.fs, f.path, at, mask);
		rc = do_replay(r.fs, &r, NULL, NULL, &rs, &last);
		CHECK(rc == 0 && !rs.why[0] && rs.first == 1 &&
			      rs.last == r.max_seq,
		      "badmsg: after undoing the flip, replay %d with %" PRIu64
		      "..%" PRIu64 " %s, want 1..%" PRIu64,
		      rc, rs.first, rs.last, rs.why, r.max_seq);
		checked++;
		run_free(&r);
	}
	printf("badmsg: %u corruptions of durable records, %lu failed, %.1f s\n",
	       checked, g_fail - fails, now_s() - t0);
}

/* The checker must catch a journal that acknowledges too early. */
static void case_selftest(void)
{
	unsigned long before = g_quiet_fail, points = g_points;
	unsigned long runs_failed = 0;
	struct cfg c;
	memset(&c, 0, sizeof c);
	c.seed = mix2(g_seed, 0x5e1f);
	c.producers = 1;
	c.records = 60;
	c.planted = 1;
	g_quiet = 1;
	for (uint64_t k = 1; k <= 40; k++) {
		c.crash_k = k;
		runs_failed += crash_run(&c, "selftest", FAULTFS_DROP, 0, 0, 0,
					 0, 0, 0, NULL, NULL) != 0;
	}
	g_quiet = 0;
	g_points = points; /* not crash points of the journal */
	snprintf(g_repro, sizeof g_repro,
		 "test_journal_crash --only=selftest (seed %" PRIu64 ")", c.seed);
	CHECK(runs_failed > 0,
	      "selftest: a planted bug (seqs acknowledged at append) went "
	      "unnoticed over 40 crash points");
	printf("selftest: planted bug caught at %lu of 40 crash points (%lu "
	       "failed checks)\n",
	       runs_failed, g_quiet_fail - before);
}

/* ------------------------------------------------------------------ main --- */

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return 0;
	*v = x;
	return 1;
}

static int mode_by_name(const char *s)
{
	for (int m = FAULTFS_DROP; m <= FAULTFS_ZERO; m++)
		if (strcmp(s, faultfs_mode_name((enum faultfs_mode)m)) == 0)
			return m;
	return -1;
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	uint64_t k = 0, producers = 1, release = 0, arg = 0, recovery = 0, v;
	int mode = -1, planted = 0;
	/* CONQ_TEST_SCALE (qemu, the sanitizer builds' CI sections) scales
	 * the default; the plain build's run keeps 10^4. */
	const char *scale = getenv("CONQ_TEST_SCALE");
	if (scale && *scale) {
		double f = strtod(scale, NULL);
		if (f > 0 && f < 1)
			g_points_target = (unsigned long)((double)g_points_target * f) + 200;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--points=", 9) == 0 && parse_u64(a + 9, &v))
			g_points_target = (unsigned long)v;
		else if (strncmp(a, "--seed=", 7) == 0 && parse_u64(a + 7, &v))
			g_seed = v;
		else if (strncmp(a, "--only=", 7) == 0)
			only = a + 7;
		else if (strncmp(a, "--k=", 4) == 0 && parse_u64(a + 4, &v))
			k = v;
		else if (strncmp(a, "--producers=", 12) == 0 &&
			 parse_u64(a + 12, &v) && v >= 1 && v <= MT_THREADS)
			producers = v;
		else if (strncmp(a, "--release=", 10) == 0 &&
			 parse_u64(a + 10, &v))
			release = v;
		else if (strncmp(a, "--mode=", 7) == 0 &&
			 (mode = mode_by_name(a + 7)) >= 0)
			;
		else if (strncmp(a, "--arg=", 6) == 0 && parse_u64(a + 6, &v))
			arg = v;
		else if (strncmp(a, "--recovery=", 11) == 0 &&
			 parse_u64(a + 11, &v))
			recovery = v;
		else if (strcmp(a, "--planted") == 0)
			planted = 1;
		else if (strcmp(a, "-v") == 0)
			g_verbose = 1;
		else {
			fprintf(stderr,
				"usage: %s [--points=N] [--seed=S] "
				"[--only=det|multi|errors|badmsg|selftest] "
				"[--planted] [-v]\n"
				"       %s --seed=S --k=K [--producers=P] "
				"[--release=0|1] [--mode=drop|keep|tear-prefix|"
				"tear-random|flip|zero --arg=X [--recovery=N]] "
				"[--planted]\n",
				argv[0], argv[0]);
			return 2;
		}
	}
	double t0 = now_s();
	if (k) {
		/* One workload, one crash point (or all its modes). */
		struct cfg c;
		memset(&c, 0, sizeof c);
		c.seed = g_seed;
		c.producers = (unsigned)producers;
		c.release = release != 0;
		c.planted = planted;
		c.crash_k = k;
		c.records = producers == 1 ? DET_RECORDS : MT_RECORDS;
		crash_run(&c, producers == 1 ? "det" : "multi", mode, arg,
			  recovery, 8, 4, 1, 4, NULL, NULL);
	} else if (planted) {
		case_det(g_points_target, 1);
	} else {
		unsigned long det = g_points_target * 6 / 10;
		if (!only || strcmp(only, "selftest") == 0)
			case_selftest();
		if (!only || strcmp(only, "det") == 0)
			case_det(only ? g_points_target : det, 0);
		if (!only || strcmp(only, "multi") == 0)
			case_multi(only ? g_points_target
					: g_points_target - det);
		if (!only || strcmp(only, "errors") == 0)
			case_errors();
		if (!only || strcmp(only, "badmsg") == 0)
			case_badmsg();
	}
	printf("%lu crash points checked, seed %" PRIu64 ", %.1f s (replay "
	       "began after released records at %lu, kept unacknowledged "
	       "records at %lu, was empty at %lu)\n",
	       g_points, g_seed, now_s() - t0, g_late, g_beyond, g_empty);
	printf("%lu passed, %lu failed\n", g_pass, g_fail);
	return g_fail || !g_pass;
}
