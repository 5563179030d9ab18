/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/journal/test_journal_regress.c - regression tests for defects found
 * in review of libconq-journal (each case failed on the library before its
 * fix).
 *
 *   test_journal_regress <case> [backend]   backend: auto (default), psync,
 *                                           io_uring, libaio
 *
 * Cases on the fault-injecting in-memory layer (faultfs.[ch]; the backend
 * is ignored, faultfs runs psync):
 *   unsynced     a record whose fdatasync failed (EIO) is still in the page
 *                cache at a restart (same faultfs, no power loss): recovery
 *                must not take it as durable. After the restart new records
 *                are acknowledged; a power loss then must leave a replay of
 *                0 (never EBADMSG), a prefix without holes holding every
 *                acknowledged record, and a journal that opens. With and
 *                without FAULTFS_LOSE_ON_SYNC_FAIL (a failed sync drops its
 *                writes, as Linux does): that variant needs faultfs to model
 *                O_DIRECT reads (what is on the disk, not the lost pages the
 *                page cache still returns) and is skipped where it does not.
 *   many_files   writing without release: tiny files (one record each), a
 *                producer that needs a new file when 4096 files exist gets
 *                ENOSPC, the journal is not failed, every acknowledged record
 *                replays, release lets appends go on, open/replay work.
 *   gap          after a recovery freed a file (an id gap), release frees
 *                the files before the gap: replay starts after the released
 *                records.
 *   readahead    replay's 2 MiB windows read ahead by a thread, records of
 *                1 B to 300 KB across their starts (copied in front of the
 *                next window, or read again when longer than 256 KiB):
 *                byte-exact; a failed read-ahead: EIO after a prefix.
 *   big_len      a record header whose length field is corrupted to 2^31
 *                (in a file large enough to hold it: the layer reports a
 *                2 GiB size): at the tail, replay returns 0 at once, without
 *                a huge read or allocation; in the middle of durable data,
 *                EBADMSG.
 * Cases on the real file system (in $TMPDIR, default /var/tmp; a backend
 * that is not built or cannot start here skips, 77):
 *   header_first an I/O layer over conq_journal_io_posix() checks, when the
 *                datasync of a new file's header is called (and again when
 *                it has returned), that no record carrying the file's new id
 *                is in the file yet (read through the fd). Small files,
 *                four producers, many rotations, O_DIRECT and buffered.
 *   thread_exit  short-lived producer threads, each appends one record and
 *                exits at once (io_uring: a write submitted by a thread that
 *                has exited must not be cancelled), O_DIRECT and buffered:
 *                no done function with an error, every record replayed.
 *   done_append  an append from a done function returns 0 while a buffer is
 *                free and EAGAIN (never blocks) when none is; the journal
 *                then syncs and closes cleanly.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "conq/journal.h"
#include "jtest.h"
#include "conq/journal_io.h"
#include "faultfs.h"

static unsigned g_backend;
static const char *g_backend_name = "auto";

/* ------------------------------------------------------------ helpers --- */

/* The on-disk layout (src/journal/jinternal.h), little-endian:
 * file header at 0: "CQJF", ..., file id at 24; a record at a sector
 * boundary: "CQJR", crc at 4, length at 8, type at 12, seq at 16, file id at
 * 24, durable at 32, payload at 40. */
#define SECTOR	  512u
#define REC_HDR	  CONQ_JOURNAL_RECORD_HEADER
#define FILES_MAX 4096u /* jinternal.h's JFILES_MAX */

static uint64_t get64le(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static long maxrss_kib(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return ru.ru_maxrss;
}

static void *xalloc_aligned(size_t n)
{
	void *p = NULL;
	if (posix_memalign(&p, 4096, n) != 0) {
		perror("posix_memalign");
		exit(2);
	}
	memset(p, 0, n);
	return p;
}

static int backend_missing(int err)
{
	if (err == ENOTSUP) {
		check_skip("backend %s not available here", g_backend_name);
		return 1;
	}
	return 0;
}

/* The payload of a record: bytes from a key. */
static void payload_fill(unsigned char *p, size_t n, uint64_t key)
{
	uint64_t x = key * 0x9E3779B97F4A7C15u + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		p[i] = (unsigned char)x;
	}
}

/* Replay's records, collected. */
struct rrec {
	uint64_t seq;
	uint32_t type;
	uint32_t len;
	uint32_t crc; /* of the payload */
	char tag[9];  /* its first 8 bytes, as text */
};

struct coll {
	struct rrec *r;
	size_t n, cap;
	int oom;
};

static int coll_fn(void *ctx, uint64_t seq, uint32_t type, const void *data,
		   size_t len)
{
	struct coll *c = ctx;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct rrec *nr = realloc(c->r, cap * sizeof(*nr));
		if (!nr) {
			c->oom = 1;
			return ENOMEM;
		}
		c->r = nr;
		c->cap = cap;
	}
	struct rrec *r = &c->r[c->n++];
	memset(r, 0, sizeof(*r));
	r->seq = seq;
	r->type = type;
	r->len = (uint32_t)len;
	r->crc = conq_crc32c(0, data, len);
	memcpy(r->tag, data, len < 8 ? len : 8);
	return 0;
}

static void coll_reset(struct coll *c)
{
	c->n = 0;
	c->oom = 0;
}

static void coll_free(struct coll *c)
{
	free(c->r);
	memset(c, 0, sizeof(*c));
}

/* Whether the records are seq first, first + 1, ... without a hole. */
static int coll_contiguous(const struct coll *c)
{
	for (size_t i = 1; i < c->n; i++)
		if (c->r[i].seq != c->r[0].seq + i)
			return 0;
	return 1;
}

static uint64_t coll_first(const struct coll *c)
{
	return c->n ? c->r[0].seq : 0;
}

static uint64_t coll_last(const struct coll *c)
{
	return c->n ? c->r[c->n - 1].seq : 0;
}

static const struct rrec *coll_find(const struct coll *c, uint64_t seq)
{
	if (!c->n || seq < c->r[0].seq || seq - c->r[0].seq >= c->n)
		return NULL;
	const struct rrec *r = &c->r[seq - c->r[0].seq];
	return r->seq == seq ? r : NULL;
}

/* ------------------------------------------------- faultfs utilities --- */

/* The file and offset of record seq (the first file in name order holding
 * a record header with that seq). */
struct ff_find {
	faultfs *fs;
	uint64_t seq;
	char path[256];
	uint64_t off;
	int found;
};

static int ff_find_fn(void *ctx, const char *path, uint64_t size)
{
	struct ff_find *f = ctx;
	unsigned char h[REC_HDR];
	for (uint64_t off = SECTOR; off + REC_HDR <= size; off += SECTOR) {
		if (faultfs_peek(f->fs, path, off, h, sizeof(h)) !=
		    (int64_t)sizeof(h))
			break;
		if (memcmp(h, "CQJR", 4) == 0 && get64le(h + 16) == f->seq) {
			snprintf(f->path, sizeof(f->path), "%s", path);
			f->off = off;
			f->found = 1;
			return 1;
		}
	}
	return 0;
}

static int ff_find_record(faultfs *fs, const char *dir, uint64_t seq,
			  struct ff_find *out)
{
	memset(out, 0, sizeof(*out));
	out->fs = fs;
	out->seq = seq;
	faultfs_walk(fs, dir, ff_find_fn, out);
	return out->found;
}

/* Overwrite 4 bytes of path at off with v (little-endian). */
static int ff_put32(faultfs *fs, const char *path, uint64_t off, uint32_t v)
{
	unsigned char b[4];
	if (faultfs_peek(fs, path, off, b, 4) != 4)
		return -1;
	for (unsigned i = 0; i < 4; i++) {
		unsigned char want = (unsigned char)(v >> (8 * i));
		if (b[i] != want &&
		    faultfs_corrupt(fs, path, off + i,
				    (unsigned char)(b[i] ^ want)) != 0)
			return -1;
	}
	return 0;
}

/* A faultfs power loss: everything not datasync'd is dropped. */
static faultfs *ff_power_loss(faultfs *fs)
{
	faultfs_crash_now(fs);
	faultfs_snapshot *s = faultfs_take_snapshot(fs);
	if (!s)
		return NULL;
	faultfs_crash c = {.mode = FAULTFS_DROP};
	faultfs *f2 = faultfs_from_snapshot(s, &c, 0, NULL);
	faultfs_snapshot_free(s);
	return f2;
}

/* ----------------------------------------------------------- unsynced --- */

/* Whether faultfs's direct reads return what is on the disk (the durable
 * image with the pending writes) rather than pages a failed datasync
 * dropped (FAULTFS_LOSE_ON_SYNC_FAIL). 1 yes, 0 no, -1 unknown. */
static int ff_models_direct_reads(void)
{
	faultfs *fs = faultfs_new(SECTOR, FAULTFS_LOSE_ON_SYNC_FAIL);
	if (!fs || faultfs_mkdir(fs, "p") != 0) {
		faultfs_free(fs);
		return -1;
	}
	const conq_journal_io *io = faultfs_io(fs);
	unsigned char *b = xalloc_aligned(SECTOR);
	int res = -1;
	int h = io->open(io->self, "p/f", 1, 0);
	if (h < 0)
		goto out;
	if (io->pwrite(io->self, h, b, SECTOR, 0) != SECTOR ||
	    io->datasync(io->self, h) != 0)
		goto close_h;
	memset(b, 0xab, SECTOR);
	faultfs_stats st;
	if (io->pwrite(io->self, h, b, SECTOR, 0) != SECTOR)
		goto close_h;
	faultfs_get_stats(fs, &st);
	faultfs_fail_datasync(fs, st.datasyncs + 1, EIO);
	if (io->datasync(io->self, h) != -EIO)
		goto close_h;
	faultfs_clear_faults(fs);
	int d = io->open(io->self, "p/f", 0, 1);
	if (d >= 0) {
		memset(b, 0x11, SECTOR);
		if (io->pread(io->self, d, b, SECTOR, 0) == SECTOR)
			res = b[0] == 0 ? 1 : 0;
		io->close(io->self, d);
	}
close_h:
	io->close(io->self, h);
out:
	free(b);
	faultfs_free(fs);
	return res;
}

#define US_MAXSEQ 64

struct us_state {
	int acked[US_MAXSEQ];
	int err[US_MAXSEQ];
	uint32_t type[US_MAXSEQ]; /* of the acknowledged records */
	uint32_t crc[US_MAXSEQ];
};

struct us_rec {
	struct us_state *s;
	uint32_t type;
	uint32_t crc;
};

static void us_done(void *ctx, uint64_t seq, int err)
{
	struct us_rec *r = ctx;
	if (seq >= US_MAXSEQ)
		return;
	if (err) {
		r->s->err[seq] = err;
	} else {
		r->s->acked[seq] = 1;
		r->s->type[seq] = r->type;
		r->s->crc[seq] = r->crc;
	}
}

static void us_opts(conq_journal_opts *o, faultfs *fs)
{
	memset(o, 0, sizeof(*o));
	o->file_size = 64 << 10;
	o->buffer_size = 8 << 10;
	o->io = faultfs_io(fs);
}

/* One record of 100 bytes (payload from seq-ish key k), its done context
 * in recs[k]. */
static int us_append(conq_journal *j, struct us_state *s, struct us_rec *recs,
		     unsigned k, uint32_t type, uint64_t *seq)
{
	unsigned char buf[100];
	payload_fill(buf, sizeof(buf), (uint64_t)type << 32 | k);
	recs[k] = (struct us_rec){s, type, conq_crc32c(0, buf, sizeof(buf))};
	return conq_journal_append(j, type, buf, sizeof(buf), us_done, &recs[k],
				   seq);
}

static void unsynced_run(unsigned flags, int replay_first)
{
	check_context("unsynced%s%s", flags ? " lose-on-sync-fail" : "",
		      replay_first ? " replay-then-open" : " open");
	struct us_state s;
	struct us_rec recs[US_MAXSEQ];
	struct coll c = {0};
	memset(&s, 0, sizeof(s));
	faultfs *fs = faultfs_new(SECTOR, flags);
	faultfs *f2 = NULL;
	if (!CHECK_NOT_NULL(fs))
		return;
	CHECK_EQ(faultfs_mkdir(fs, "j"), 0);
	conq_journal_opts o;
	us_opts(&o, fs);
	conq_journal *j = conq_journal_open("j", &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	for (unsigned i = 1; i <= 5; i++)
		CHECK_EQ(us_append(j, &s, recs, i, 1, NULL), 0);
	CHECK_EQ(conq_journal_sync(j), 0);
	/* Record 6: written, its fdatasync fails. */
	faultfs_stats st;
	faultfs_get_stats(fs, &st);
	faultfs_fail_datasync(fs, st.datasyncs + 1, EIO);
	uint64_t s6 = 0;
	CHECK_EQ(us_append(j, &s, recs, 6, 1, &s6), 0);
	CHECK_EQ(s6, 6);
	CHECK_EQ(conq_journal_sync(j), EIO);
	CHECK_EQ(conq_journal_close(j), EIO);
	j = NULL;
	faultfs_clear_faults(fs);
	for (unsigned i = 1; i <= 5; i++)
		CHECK_TRUE(s.acked[i]);
	CHECK_FALSE(s.acked[6]);
	CHECK_EQ(s.err[6], EIO);

	/* A process restart: the same faultfs (page cache), no power loss. */
	uint64_t last = 0;
	if (replay_first) {
		CHECK_EQ(conq_journal_replay_opts("j", &o, coll_fn, &c, &last),
			 0);
		CHECK_EQ(coll_first(&c), 1);
		CHECK_TRUE(coll_contiguous(&c));
		CHECK_GE(c.n, 5);
		CHECK_LE(c.n, 6);
		CHECK_EQ(last, coll_last(&c));
	}
	j = conq_journal_open("j", &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	uint64_t first2 = conq_journal_next_seq(j), last2 = 0;
	CHECK_GE(first2, 6);
	CHECK_LE(first2, 7);
	for (unsigned i = 0; i < 3; i++) {
		uint64_t sq = 0;
		unsigned k = 10 + i;
		CHECK_EQ(us_append(j, &s, recs, k, 2, &sq), 0);
		CHECK_EQ(sq, first2 + i);
		last2 = sq;
	}
	CHECK_EQ(conq_journal_sync(j), 0);
	for (uint64_t q = first2; q <= last2 && q < US_MAXSEQ; q++)
		CHECK_TRUE(s.acked[q]);

	/* Power loss: only what was datasync'd survives. */
	f2 = ff_power_loss(fs);
	conq_journal_close(j); /* on the frozen faultfs: nothing to write */
	j = NULL;
	if (!CHECK_NOT_NULL(f2))
		goto out;
	us_opts(&o, f2);
	coll_reset(&c);
	int rc = conq_journal_replay_opts("j", &o, coll_fn, &c, &last);
	CHECK_EQ(rc, 0); /* EBADMSG: acknowledged records after a hole */
	CHECK_EQ(coll_first(&c), 1);
	CHECK_TRUE(coll_contiguous(&c));
	CHECK_GE(coll_last(&c), last2);
	uint64_t lost = 0, wrong = 0;
	for (uint64_t q = 1; q < US_MAXSEQ; q++) {
		if (!s.acked[q])
			continue;
		const struct rrec *r = coll_find(&c, q);
		if (!r)
			lost++;
		else if (r->type != s.type[q] || r->crc != s.crc[q])
			wrong++;
	}
	CHECK_EQ(lost, 0);  /* acknowledged records missing */
	CHECK_EQ(wrong, 0); /* another record under an acknowledged seq */
	uint64_t after = coll_last(&c);
	j = conq_journal_open("j", &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	CHECK_EQ(conq_journal_next_seq(j), after + 1);
	CHECK_EQ(us_append(j, &s, recs, 20, 3, NULL), 0);
	CHECK_EQ(conq_journal_close(j), 0);
	j = NULL;
	coll_reset(&c);
	CHECK_EQ(conq_journal_replay_opts("j", &o, coll_fn, &c, &last), 0);
	CHECK_EQ(coll_first(&c), 1);
	CHECK_TRUE(coll_contiguous(&c));
	CHECK_EQ(last, after + 1);
out:
	if (j)
		conq_journal_close(j);
	coll_free(&c);
	faultfs_free(f2);
	faultfs_free(fs);
}

static void case_unsynced(void)
{
	unsynced_run(0, 1);
	unsynced_run(0, 0);
	int m = ff_models_direct_reads();
	check_context("unsynced lose-on-sync-fail");
	if (m != 1) {
		check_skip("faultfs does not model O_DIRECT reads (a direct "
			   "pread returns the pages a failed datasync dropped, "
			   "as the page cache does): the LOSE_ON_SYNC_FAIL "
			   "variant cannot tell a fix from the bug");
		return;
	}
	unsynced_run(FAULTFS_LOSE_ON_SYNC_FAIL, 1);
	unsynced_run(FAULTFS_LOSE_ON_SYNC_FAIL, 0);
}

/* ------------------------------------------------------- header_first --- */

#define HF_MAXH	    65536
#define HF_HEADERS  40	  /* new files' headers to check, per mode */
#define HF_SLOW_US  10000 /* a slow fdatasync of a header */
#define HF_RECLEN   3000
#define HF_THREADS  4
#define HF_FILESIZE (64u << 10)

struct hf {
	const conq_journal_io *px;
	pthread_mutex_t m;
	uint64_t pending[HF_MAXH]; /* a header's id, pwritten, not synced */
	atomic_uint headers, violations, read_errors;
};

static struct hf g_hf = {.m = PTHREAD_MUTEX_INITIALIZER};

static int hf_open(void *s, const char *path, int create, int direct)
{
	int h = g_hf.px->open(s, path, create, direct);
	if (h >= 0 && h < HF_MAXH) {
		pthread_mutex_lock(&g_hf.m);
		g_hf.pending[h] = 0;
		pthread_mutex_unlock(&g_hf.m);
	}
	return h;
}

static int64_t hf_pwrite(void *s, int h, const void *buf, size_t n,
			 uint64_t off)
{
	const unsigned char *p = buf;
	int64_t k = g_hf.px->pwrite(s, h, buf, n, off);
	if (off == 0 && n >= 64 && memcmp(p, "CQJF", 4) == 0 &&
	    get64le(p + 24) != 0 && h >= 0 && h < HF_MAXH && k == (int64_t)n) {
		pthread_mutex_lock(&g_hf.m);
		g_hf.pending[h] = get64le(p + 24);
		pthread_mutex_unlock(&g_hf.m);
	}
	return k;
}

/* Records of file id `id` already in the file (read through the fd). */
static unsigned hf_scan(void *s, int h, uint64_t id, uint64_t *first_seq,
			uint64_t *first_off)
{
	int64_t sz = g_hf.px->size(s, h);
	if (sz <= 0 || sz > (int64_t)64 << 20) {
		atomic_fetch_add(&g_hf.read_errors, 1u);
		return 0;
	}
	size_t len = ((size_t)sz + 4095) & ~(size_t)4095;
	unsigned char *b = xalloc_aligned(len);
	int fd = g_hf.px->fd(s, h);
	ssize_t k = fd >= 0 ? pread(fd, b, len, 0) : -1;
	unsigned found = 0;
	if (k < 0) {
		atomic_fetch_add(&g_hf.read_errors, 1u);
		k = 0;
	}
	for (size_t o = SECTOR; o + REC_HDR <= (size_t)k; o += SECTOR)
		if (memcmp(b + o, "CQJR", 4) == 0 &&
		    get64le(b + o + 24) == id) {
			if (!found++) {
				*first_seq = get64le(b + o + 16);
				*first_off = o;
			}
		}
	free(b);
	return found;
}

static int hf_datasync(void *s, int h)
{
	uint64_t id = 0;
	if (h >= 0 && h < HF_MAXH) {
		pthread_mutex_lock(&g_hf.m);
		id = g_hf.pending[h];
		g_hf.pending[h] = 0;
		pthread_mutex_unlock(&g_hf.m);
	}
	if (!id)
		return g_hf.px->datasync(s, h);
	atomic_fetch_add(&g_hf.headers, 1u);
	sleep_us(HF_SLOW_US); /* the window the engines had */
	uint64_t seq = 0, off = 0;
	unsigned before = hf_scan(s, h, id, &seq, &off);
	int rc = g_hf.px->datasync(s, h);
	const char *when = "before";
	if (!before) {
		when = "when";
		before = hf_scan(s, h, id, &seq, &off);
	}
	if (before && atomic_fetch_add(&g_hf.violations, 1u) < 3)
		fprintf(stderr,
			"header_first: file id %llu: record seq %llu (offset "
			"%llu) was in the file %s its header's datasync "
			"returned\n",
			(unsigned long long)id, (unsigned long long)seq,
			(unsigned long long)off, when);
	return rc;
}

static conq_journal_io g_hf_io;

struct hf_prod {
	conq_journal *j;
	atomic_int *stop;
	atomic_ullong *appended;
	int rc;
	unsigned id;
};

static void *hf_producer(void *p)
{
	struct hf_prod *a = p;
	unsigned char buf[HF_RECLEN];
	for (uint64_t i = 0; !atomic_load(a->stop); i++) {
		payload_fill(buf, sizeof(buf), (uint64_t)a->id << 32 | i);
		int rc = conq_journal_append(a->j, a->id, buf, sizeof(buf),
					     NULL, NULL, NULL);
		if (rc) {
			a->rc = rc;
			break;
		}
		atomic_fetch_add(a->appended, 1ull);
	}
	return NULL;
}

static void header_first_run(int buffered)
{
	check_context("header_first %s %s", g_backend_name,
		      buffered ? "buffered" : "O_DIRECT");
	char *d = jt_make_dir("conq-jregress");
	struct coll c = {0};
	g_hf.px = conq_journal_io_posix();
	g_hf_io = *g_hf.px;
	g_hf_io.open = hf_open;
	g_hf_io.pwrite = hf_pwrite;
	g_hf_io.datasync = hf_datasync;
	atomic_store(&g_hf.headers, 0u);
	atomic_store(&g_hf.violations, 0u);
	atomic_store(&g_hf.read_errors, 0u);
	conq_journal_opts o = {0};
	o.file_size = HF_FILESIZE;
	o.buffer_size = 8 << 10;
	o.max_io = 8;
	o.backend = g_backend;
	o.buffered = buffered;
	o.io = &g_hf_io;
	errno = 0;
	conq_journal *j = conq_journal_open(d, &o);
	if (!j) {
		if (!backend_missing(errno))
			CHECK_NOT_NULL(j);
		goto out;
	}
	conq_journal_stats st;
	conq_journal_stats_get(j, &st);
	if (g_backend)
		CHECK_EQ(st.backend, g_backend);
	atomic_int stop = 0;
	atomic_ullong appended = 0;
	pthread_t t[HF_THREADS];
	struct hf_prod a[HF_THREADS];
	for (unsigned i = 0; i < HF_THREADS; i++) {
		a[i] = (struct hf_prod){j, &stop, &appended, 0, i + 1};
		pthread_create(&t[i], NULL, hf_producer, &a[i]);
	}
	uint64_t t0 = now_ns();
	while (atomic_load(&g_hf.headers) < HF_HEADERS &&
	       now_ns() - t0 < 20000000000u)
		sleep_us(10000);
	atomic_store(&stop, 1);
	for (unsigned i = 0; i < HF_THREADS; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ(a[i].rc, 0);
	}
	CHECK_EQ(conq_journal_sync(j), 0);
	conq_journal_stats_get(j, &st);
	CHECK_EQ(conq_journal_close(j), 0);
	CHECK_GE(atomic_load(&g_hf.headers), HF_HEADERS);
	CHECK_GE(st.rotations, HF_HEADERS - 2);
	/* Records of a file's new id were in the file before the header
	 * naming the id was durable. */
	CHECK_EQ(atomic_load(&g_hf.violations), 0);
	CHECK_EQ(atomic_load(&g_hf.read_errors), 0);
	uint64_t last = 0;
	CHECK_EQ(conq_journal_replay_opts(d, NULL, coll_fn, &c, &last), 0);
	CHECK_EQ(c.n, atomic_load(&appended));
	CHECK_EQ(coll_first(&c), 1);
	CHECK_TRUE(coll_contiguous(&c));
out:
	coll_free(&c);
	jt_remove_dir(d);
}

static void case_header_first(void)
{
	header_first_run(0);
	header_first_run(1);
}

/* -------------------------------------------------------- thread_exit --- */

#define TE_THREADS 4
#define TE_ROUNDS  2000
#define TE_BUDGET  4000000000u /* ns per mode */
#define TE_BUF	   (64u << 10)
#define TE_BIG	   (TE_BUF - REC_HDR) /* fills a buffer: sealed, submitted */
#define TE_SMALL   4096u

struct te {
	conq_journal *j;
	atomic_ullong good, bad, append_errs, appended;
	atomic_int first_err;
	size_t len; /* this round's record length */
	unsigned char *p;
};

static void te_done(void *ctx, uint64_t seq, int err)
{
	struct te *t = ctx;
	if (!err) {
		atomic_fetch_add(&t->good, 1ull);
		return;
	}
	if (atomic_fetch_add(&t->bad, 1ull) < 3)
		fprintf(stderr, "thread_exit: done seq %llu err %d (%s)\n",
			(unsigned long long)seq, err, strerror(err));
	int z = 0;
	atomic_compare_exchange_strong(&t->first_err, &z, err);
}

static void *te_producer(void *p)
{
	struct te *t = p;
	int rc = conq_journal_append(t->j, 1, t->p, t->len, te_done, t, NULL);
	if (rc) {
		if (atomic_fetch_add(&t->append_errs, 1ull) < 3)
			fprintf(stderr, "thread_exit: append: %d (%s)\n", rc,
				strerror(rc));
	} else {
		atomic_fetch_add(&t->appended, 1ull);
	}
	return NULL; /* and the thread is gone */
}

static void thread_exit_run(int buffered)
{
	check_context("thread_exit %s %s", g_backend_name,
		      buffered ? "buffered" : "O_DIRECT");
	char *d = jt_make_dir("conq-jregress");
	struct coll c = {0};
	static struct te t;
	memset(&t, 0, sizeof(t));
	t.p = malloc(TE_BIG);
	if (!t.p)
		exit(2);
	memset(t.p, 7, TE_BIG);
	conq_journal_opts o = {0};
	o.backend = g_backend;
	o.buffered = buffered;
	o.buffer_size = TE_BUF;
	errno = 0;
	t.j = conq_journal_open(d, &o);
	if (!t.j) {
		if (!backend_missing(errno))
			CHECK_NOT_NULL(t.j);
		goto out;
	}
	conq_journal_stats st;
	conq_journal_stats_get(t.j, &st);
	if (g_backend)
		CHECK_EQ(st.backend, g_backend);
	if (!buffered && !st.direct)
		fprintf(stderr, "thread_exit: O_DIRECT refused here (tmpfs?): "
				"buffered writes\n");
	uint64_t t0 = now_ns();
	unsigned rounds = 0;
	for (; rounds < TE_ROUNDS && now_ns() - t0 < TE_BUDGET; rounds++) {
		pthread_t th[TE_THREADS];
		/* Records that fill a buffer (the producer submits its write
		 * at once), and small ones (it submits a partial buffer when
		 * no write is in flight). */
		t.len = rounds % 2 ? TE_SMALL : TE_BIG;
		for (unsigned i = 0; i < TE_THREADS; i++)
			pthread_create(&th[i], NULL, te_producer, &t);
		for (unsigned i = 0; i < TE_THREADS; i++)
			pthread_join(th[i], NULL);
		if (atomic_load(&t.bad) || atomic_load(&t.append_errs))
			break; /* failed: no point going on */
	}
	if (!atomic_load(&t.bad) && !atomic_load(&t.append_errs))
		CHECK_GE(rounds, 100);
	CHECK_EQ(conq_journal_close(t.j), 0);
	CHECK_EQ(atomic_load(&t.bad), 0);
	CHECK_EQ_I(atomic_load(&t.first_err), 0);
	CHECK_EQ(atomic_load(&t.append_errs), 0);
	CHECK_EQ(atomic_load(&t.good), atomic_load(&t.appended));
	uint64_t last = 0;
	CHECK_EQ(conq_journal_replay_opts(d, NULL, coll_fn, &c, &last), 0);
	CHECK_GE(c.n, atomic_load(&t.good)); /* every acknowledged one */
	CHECK_LE(c.n, atomic_load(&t.appended));
	CHECK_TRUE(coll_contiguous(&c));
out:
	free(t.p);
	coll_free(&c);
	jt_remove_dir(d);
}

static void case_thread_exit(void)
{
	thread_exit_run(1);
	thread_exit_run(0);
}

/* --------------------------------------------------------- many_files --- */

#define MF_LIMIT  20000u
#define MF_RECLEN 1000

static int mf_count_files(void *ctx, const char *path, uint64_t size)
{
	(void)path, (void)size;
	(*(unsigned *)ctx)++;
	return 0;
}

static void case_many_files(void)
{
	check_context("many_files");
	faultfs *fs = faultfs_new(SECTOR, 0), *f2 = NULL;
	struct coll c = {0};
	if (!CHECK_NOT_NULL(fs))
		return;
	CHECK_EQ(faultfs_mkdir(fs, "j"), 0);
	conq_journal_opts o = {0};
	o.file_size = 2048; /* 4 sectors: one record of 1000 bytes a file */
	o.buffer_size = 2048;
	o.io = faultfs_io(fs);
	conq_journal *j = conq_journal_open("j", &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	unsigned char buf[MF_RECLEN];
	uint64_t n = 0, seq = 0, badseq = 0;
	int rc = 0;
	conq_journal_stats st;
	for (unsigned i = 0; i < MF_LIMIT; i++) {
		payload_fill(buf, sizeof(buf), i + 1u);
		rc = conq_journal_append(j, 1, buf, sizeof(buf), NULL, NULL,
					 &seq);
		if (rc)
			break;
		n++;
		badseq += seq != n;
		if (i % 256 == 255) {
			conq_journal_stats_get(j, &st);
			if (st.files > FILES_MAX + 64) {
				CHECK_FAIL("%llu files, %llu records and no "
					   "ENOSPC: the number of files is "
					   "not capped at %u",
					   (unsigned long long)st.files,
					   (unsigned long long)n, FILES_MAX);
				break;
			}
		}
	}
	CHECK_EQ(badseq, 0);
	/* Out of files: ENOSPC to the producer, the journal not failed. */
	CHECK_EQ(rc, ENOSPC);
	CHECK_GT(n, FILES_MAX / 2);
	conq_journal_stats_get(j, &st);
	CHECK_LE(st.files, FILES_MAX);
	if (rc == ENOSPC)
		CHECK_EQ(conq_journal_append(j, 1, buf, sizeof(buf), NULL, NULL,
					     NULL),
			 ENOSPC);
	CHECK_EQ(conq_journal_sync(j), 0);
	unsigned nfiles = 0;
	faultfs_walk(fs, "j", mf_count_files, &nfiles);
	CHECK_LE(nfiles, FILES_MAX);

	/* Everything acknowledged replays, and the journal opens, from a copy
	 * of the files as they are now (acknowledged = synced). */
	check_context("many_files: a copy at the limit");
	faultfs_snapshot *snap = faultfs_snapshot_now(fs);
	if (CHECK_NOT_NULL(snap)) {
		faultfs_crash cr = {.mode = FAULTFS_DROP};
		f2 = faultfs_from_snapshot(snap, &cr, 0, NULL);
		faultfs_snapshot_free(snap);
	}
	if (f2) {
		conq_journal_opts o2 = o;
		o2.io = faultfs_io(f2);
		uint64_t last = 0;
		CHECK_EQ(conq_journal_replay_opts("j", &o2, coll_fn, &c, &last),
			 0);
		CHECK_EQ(c.n, n);
		CHECK_EQ(coll_first(&c), 1);
		CHECK_TRUE(coll_contiguous(&c));
		CHECK_EQ(last, n);
		errno = 0;
		conq_journal *j2 = conq_journal_open("j", &o2);
		if (!j2)
			fprintf(stderr, "many_files: open: %s\n",
				strerror(errno));
		if (CHECK_NOT_NULL(j2)) {
			CHECK_EQ(conq_journal_next_seq(j2), n + 1);
			CHECK_EQ(conq_journal_release(j2, n / 2), 0);
			CHECK_EQ(conq_journal_append(j2, 2, buf, sizeof(buf),
						     NULL, NULL, &seq),
				 0);
			CHECK_EQ(seq, n + 1);
			CHECK_EQ(conq_journal_close(j2), 0);
		}
	}

	/* Release most records: appends go on. */
	check_context("many_files: release");
	uint64_t upto = n > 16 ? n - 16 : 0;
	CHECK_EQ(conq_journal_release(j, upto), 0);
	uint64_t after_rc = 0, after_bad = 0;
	for (unsigned i = 0; i < 32; i++) {
		payload_fill(buf, sizeof(buf), n + i + 1);
		int arc = conq_journal_append(j, 1, buf, sizeof(buf), NULL,
					      NULL, &seq);
		if (arc && !after_rc)
			after_rc = (uint64_t)arc;
		after_bad += !arc && seq != n + i + 1;
	}
	CHECK_EQ(after_rc, 0); /* an append after the release failed */
	CHECK_EQ(after_bad, 0);
	CHECK_EQ(conq_journal_sync(j), 0);
	CHECK_EQ(conq_journal_close(j), 0);
	j = NULL;
	coll_reset(&c);
	uint64_t last = 0;
	CHECK_EQ(conq_journal_replay_opts("j", &o, coll_fn, &c, &last), 0);
	CHECK_TRUE(coll_contiguous(&c));
	CHECK_EQ(last, n + 32);
	CHECK_GT(coll_first(&c), upto / 2); /* most released */
	CHECK_LE(coll_first(&c), upto + 1); /* none unreleased lost */
	j = conq_journal_open("j", &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	CHECK_EQ(conq_journal_next_seq(j), n + 33);
	CHECK_EQ(conq_journal_append(j, 1, "x", 1, NULL, NULL, NULL), 0);
	CHECK_EQ(conq_journal_close(j), 0);
	j = NULL;
out:
	if (j)
		conq_journal_close(j);
	coll_free(&c);
	faultfs_free(f2);
	faultfs_free(fs);
}

/* ---------------------------------------------------------------- gap --- */

static void case_gap(void)
{
	check_context("gap");
	faultfs *fs = faultfs_new(SECTOR, 0);
	struct coll c = {0};
	if (!CHECK_NOT_NULL(fs))
		return;
	CHECK_EQ(faultfs_mkdir(fs, "j"), 0);
	conq_journal_opts o = {0};
	o.file_size = 64 << 10;
	o.buffer_size = 64 << 10;
	o.files = 2;
	o.backend = CONQ_JOURNAL_PSYNC;
	o.buffer_timeout_ns = 1000000000u; /* one batch: durable marks of 1 */
	o.io = faultfs_io(fs);
	unsigned char p[3000];
	memset(p, 'x', sizeof(p));
	/* 3000-byte records take 3 KiB: 21 fill a file, 22 is in the next. */
	conq_journal *j = conq_journal_open("j", &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	for (int i = 0; i < 22; i++)
		CHECK_EQ(
		    conq_journal_append(j, 1, p, sizeof(p), NULL, NULL, NULL),
		    0);
	CHECK_EQ(conq_journal_close(j), 0);
	j = NULL;
	struct ff_find r21, r22;
	if (!CHECK_TRUE(ff_find_record(fs, "j", 21, &r21)) ||
	    !CHECK_TRUE(ff_find_record(fs, "j", 22, &r22)))
		goto out;
	CHECK_NE(strcmp(r21.path, r22.path), 0);
	/* A torn record 21: recovery ends the journal at 20 and frees 22's
	 * file (id 2): the next file gets id 3, an id gap. */
	CHECK_EQ(faultfs_corrupt(fs, r21.path, r21.off, 0xff), 0);
	o.buffer_timeout_ns = 0;
	j = conq_journal_open("j", &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	CHECK_EQ(conq_journal_next_seq(j), 21);
	for (int i = 0; i < 20; i++)
		CHECK_EQ(
		    conq_journal_append(j, 1, p, sizeof(p), NULL, NULL, NULL),
		    0);
	CHECK_EQ(conq_journal_close(j), 0);
	j = conq_journal_open("j", &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	CHECK_EQ(conq_journal_next_seq(j), 41);
	/* Records 1..20 are alone in their file: it is freed. */
	CHECK_EQ(conq_journal_release(j, 20), 0);
	CHECK_EQ(conq_journal_close(j), 0);
	j = NULL;
	uint64_t last = 0;
	CHECK_EQ(conq_journal_replay_opts("j", &o, coll_fn, &c, &last), 0);
	CHECK_EQ(coll_first(&c), 21);
	CHECK_EQ(c.n, 20);
	CHECK_EQ(last, 40);
	CHECK_TRUE(coll_contiguous(&c));
	check_context("gap: release everything");
	j = conq_journal_open("j", &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	CHECK_EQ(conq_journal_release(j, 40), 0);
	CHECK_EQ(conq_journal_close(j), 0);
	j = NULL;
	coll_reset(&c);
	CHECK_EQ(conq_journal_replay_opts("j", &o, coll_fn, &c, &last), 0);
	CHECK_EQ(c.n, 0);
	j = conq_journal_open("j", &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	CHECK_EQ(conq_journal_next_seq(j), 41);
out:
	if (j)
		CHECK_EQ(conq_journal_close(j), 0);
	coll_free(&c);
	faultfs_free(fs);
}

/* ------------------------------------------------------------ big_len --- */

/* An I/O layer over faultfs that reports one file (target) as 2 GiB + 1
 * MiB long (reads past its real end give end of file), so that a length
 * field of 2^31 fits in the room left; and refuses any read larger than
 * 256 MiB (the journal's records are at most 64 MiB). */
#define BL_FAKE_SIZE (((uint64_t)1 << 31) + ((uint64_t)1 << 20))
#define BL_MAX_READ  ((size_t)256 << 20)
#define BL_HANDLES   256

struct bl {
	const conq_journal_io *in;
	char target[256]; /* the file's name (after the last '/') */
	unsigned char fake[BL_HANDLES];
	size_t max_read;
	unsigned refused;
	uint64_t fail_at; /* a read reaching this offset: -EIO (0: none) */
	/* Reads of exactly RA_WINDOW at a multiple of it, and the others. */
	unsigned win_reads, other_reads;
	conq_journal_io io;
};

#define RA_WINDOW ((size_t)2 << 20) /* src/journal/replay.c's RD_WINDOW */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int bl_open(void *self, const char *path, int create, int direct)
{
	struct bl *b = self;
	int h = b->in->open(b->in->self, path, create, direct);
	if (h >= 0 && h < BL_HANDLES)
		b->fake[h] = strcmp(base_name(path), b->target) == 0;
	return h;
}

static int bl_close(void *self, int h)
{
	struct bl *b = self;
	if (h >= 0 && h < BL_HANDLES)
		b->fake[h] = 0;
	return b->in->close(b->in->self, h);
}

static int64_t bl_pread(void *self, int h, void *buf, size_t len, uint64_t off)
{
	struct bl *b = self;
	if (len > b->max_read)
		b->max_read = len;
	if (len > BL_MAX_READ) {
		if (b->refused++ < 3)
			fprintf(stderr,
				"big_len: a read of %zu bytes at %llu "
				"(refused)\n",
				len, (unsigned long long)off);
		return -EFBIG;
	}
	if (b->fail_at && off + len > b->fail_at)
		return -EIO;
	if (len == RA_WINDOW && off % RA_WINDOW == 0)
		b->win_reads++;
	else
		b->other_reads++;
	return b->in->pread(b->in->self, h, buf, len, off);
}

static int64_t bl_pwrite(void *self, int h, const void *buf, size_t len,
			 uint64_t off)
{
	struct bl *b = self;
	return b->in->pwrite(b->in->self, h, buf, len, off);
}

static int bl_datasync(void *self, int h)
{
	struct bl *b = self;
	return b->in->datasync(b->in->self, h);
}

static int64_t bl_size(void *self, int h)
{
	struct bl *b = self;
	int64_t sz = b->in->size(b->in->self, h);
	if (sz >= 0 && h >= 0 && h < BL_HANDLES && b->fake[h])
		return (int64_t)BL_FAKE_SIZE;
	return sz;
}

static int bl_list(void *self, const char *dir,
		   int (*fn)(void *ctx, const char *name), void *ctx)
{
	struct bl *b = self;
	return b->in->list(b->in->self, dir, fn, ctx);
}

static int bl_sync_dir(void *self, const char *dir)
{
	struct bl *b = self;
	return b->in->sync_dir(b->in->self, dir);
}

static int bl_fd(void *self, int h)
{
	struct bl *b = self;
	return b->in->fd(b->in->self, h);
}

static void bl_init(struct bl *b, faultfs *fs, const char *target_path)
{
	memset(b, 0, sizeof(*b));
	b->in = faultfs_io(fs);
	snprintf(b->target, sizeof(b->target), "%s", base_name(target_path));
	b->io = (conq_journal_io){
	    .self = b,
	    .open = bl_open,
	    .close = bl_close,
	    .pread = bl_pread,
	    .pwrite = bl_pwrite,
	    .datasync = bl_datasync,
	    .size = bl_size,
	    .list = bl_list,
	    .sync_dir = bl_sync_dir,
	    .fd = bl_fd,
	};
}

/* 20 records of 100 bytes in one file: 1..10 synced before 11..20 were
 * appended (so 11..20 say that 1..10 were durable). */
static faultfs *bl_journal(void)
{
	faultfs *fs = faultfs_new(SECTOR, 0);
	if (!CHECK_NOT_NULL(fs))
		return NULL;
	CHECK_EQ(faultfs_mkdir(fs, "j"), 0);
	conq_journal_opts o = {0};
	o.file_size = 1 << 20;
	o.buffer_size = 64 << 10;
	o.io = faultfs_io(fs);
	conq_journal *j = conq_journal_open("j", &o);
	if (!CHECK_NOT_NULL(j)) {
		faultfs_free(fs);
		return NULL;
	}
	unsigned char p[100];
	for (unsigned i = 1; i <= 20; i++) {
		payload_fill(p, sizeof(p), i);
		CHECK_EQ(
		    conq_journal_append(j, 1, p, sizeof(p), NULL, NULL, NULL),
		    0);
		if (i == 10)
			CHECK_EQ(conq_journal_sync(j), 0);
	}
	CHECK_EQ(conq_journal_close(j), 0);
	return fs;
}

static void big_len_run(uint64_t bad_seq, int want)
{
	struct coll c = {0};
	struct bl *b = calloc(1, sizeof(*b));
	faultfs *fs = bl_journal();
	if (!fs || !CHECK_NOT_NULL(b))
		goto out;
	struct ff_find r;
	if (!CHECK_TRUE(ff_find_record(fs, "j", bad_seq, &r)))
		goto out;
	CHECK_EQ(ff_put32(fs, r.path, r.off + 8, (uint32_t)1 << 31), 0);
	bl_init(b, fs, r.path);
	conq_journal_opts o = {0};
	o.io = &b->io;
	long rss0 = maxrss_kib();
	uint64_t t0 = now_ns();
	uint64_t last = 0;
	int rc = conq_journal_replay_opts("j", &o, coll_fn, &c, &last);
	uint64_t ns = now_ns() - t0;
	long rss1 = maxrss_kib();
	CHECK_EQ_I(rc, want);
	CHECK_EQ(c.n, bad_seq - 1);
	CHECK_EQ(last, bad_seq - 1);
	CHECK_TRUE(coll_contiguous(&c));
	CHECK_LE(b->max_read, BL_MAX_READ); /* a read for the bogus length */
	CHECK_EQ(b->refused, 0);
	CHECK_LT(ns, 10000000000u);
	CHECK_LE_I(rss1 - rss0, 256L << 10); /* KiB: no 2 GiB buffer */
	if (want == 0) {
		/* Again (the tail may have been zeroed), then the journal goes
		 * on (on the plain layer: the file's real size). */
		coll_reset(&c);
		CHECK_EQ(conq_journal_replay_opts("j", &o, coll_fn, &c, &last),
			 0);
		CHECK_EQ(last, bad_seq - 1);
		conq_journal_opts o2 = {0};
		o2.file_size = 1 << 20;
		o2.buffer_size = 64 << 10;
		o2.io = faultfs_io(fs);
		conq_journal *j = conq_journal_open("j", &o2);
		if (CHECK_NOT_NULL(j)) {
			CHECK_EQ(conq_journal_next_seq(j), bad_seq);
			CHECK_EQ(
			    conq_journal_append(j, 2, "y", 1, NULL, NULL, NULL),
			    0);
			CHECK_EQ(conq_journal_close(j), 0);
		}
		coll_reset(&c);
		CHECK_EQ(conq_journal_replay_opts("j", &o2, coll_fn, &c, &last),
			 0);
		CHECK_EQ(last, bad_seq);
		CHECK_TRUE(coll_contiguous(&c));
	} else {
		/* Nothing was truncated: the same again. */
		CHECK_EQ_I(conq_journal_replay_opts("j", &o, NULL, NULL, &last),
			   want);
		CHECK_EQ(b->refused, 0);
	}
out:
	coll_free(&c);
	faultfs_free(fs);
	free(b);
}

static void case_big_len(void)
{
	check_context("big_len: at the tail");
	big_len_run(20, 0);
	check_context("big_len: in durable data");
	big_len_run(5, EBADMSG);
}

/* -------------------------------------------------------- done_append --- */

#define DA_BUF	  (8u << 10)
#define DA_LEN	  (DA_BUF - REC_HDR) /* fills a buffer */
#define DA_ROUNDS 3
#define DA_MAXTRY 1000

struct da {
	conq_journal *j;
	unsigned char *p;
	int ok[DA_ROUNDS]; /* appends that returned 0, per trigger */
	int first_rc[DA_ROUNDS];
	int last_rc[DA_ROUNDS];
	uint64_t ns[DA_ROUNDS];
	atomic_int fired;
	atomic_ullong inner_done, inner_err, trig_err;
};

static void da_inner(void *ctx, uint64_t seq, int err)
{
	struct da *d = ctx;
	(void)seq;
	atomic_fetch_add(&d->inner_done, 1ull);
	if (err)
		atomic_fetch_add(&d->inner_err, 1ull);
}

/* A trigger record's done function: append until EAGAIN. */
static void da_trigger(void *ctx, uint64_t seq, int err)
{
	struct da *d = ctx;
	(void)seq;
	if (err) {
		atomic_fetch_add(&d->trig_err, 1ull);
		return;
	}
	int k = atomic_load(&d->fired);
	if (k >= DA_ROUNDS)
		return;
	uint64_t t0 = now_ns();
	int rc = 0, i;
	for (i = 0; i < DA_MAXTRY; i++) {
		rc = conq_journal_append(d->j, 2, d->p, DA_LEN, da_inner, d,
					 NULL);
		if (i == 0)
			d->first_rc[k] = rc;
		if (rc)
			break;
		d->ok[k]++;
	}
	d->last_rc[k] = rc;
	d->ns[k] = now_ns() - t0;
	atomic_store(&d->fired, k + 1);
}

static void da_alarm(int sig)
{
	static const char msg[] =
	    "done_append: stuck (an append from a done function blocked?)\n";
	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0) {
	}
	_exit(1);
}

static void case_done_append(void)
{
	check_context("done_append %s", g_backend_name);
	char *d = jt_make_dir("conq-jregress");
	struct coll c = {0};
	struct da st;
	memset(&st, 0, sizeof(st));
	st.p = malloc(DA_LEN);
	if (!st.p)
		exit(2);
	memset(st.p, 0x5a, DA_LEN);
	conq_journal_opts o = {0};
	o.backend = g_backend;
	o.buffer_size = DA_BUF;
	o.max_io = 1; /* 3 buffers */
	o.file_size = 4 << 20;
	errno = 0;
	st.j = conq_journal_open(d, &o);
	if (!st.j) {
		if (!backend_missing(errno))
			CHECK_NOT_NULL(st.j);
		goto out;
	}
	signal(SIGALRM, da_alarm);
	alarm(30);
	uint64_t expect = 0;
	for (int k = 0; k < DA_ROUNDS; k++) {
		CHECK_EQ(conq_journal_append(st.j, 1, st.p, DA_LEN, da_trigger,
					     &st, NULL),
			 0);
		expect++;
		CHECK_EQ(conq_journal_sync(st.j), 0);
		/* The trigger ran before sync returned; what it appended may
		 * still be on its way. */
		CHECK_EQ_I(atomic_load(&st.fired), k + 1);
		CHECK_EQ(conq_journal_sync(st.j), 0);
		CHECK_EQ_I(st.first_rc[k], 0); /* a buffer was free */
		CHECK_GE_I(st.ok[k], 1);
		CHECK_EQ_I(st.last_rc[k], EAGAIN); /* then none: no wait */
		CHECK_LT(st.ns[k], 5000000000u);
		expect += (uint64_t)st.ok[k];
	}
	CHECK_EQ(atomic_load(&st.inner_done), expect - DA_ROUNDS);
	CHECK_EQ(atomic_load(&st.inner_err), 0);
	CHECK_EQ(atomic_load(&st.trig_err), 0);
	CHECK_EQ(conq_journal_close(st.j), 0);
	alarm(0);
	uint64_t last = 0;
	CHECK_EQ(conq_journal_replay_opts(d, NULL, coll_fn, &c, &last), 0);
	CHECK_EQ(c.n, expect);
	CHECK_EQ(last, expect);
	CHECK_TRUE(coll_contiguous(&c));
out:
	free(st.p);
	coll_free(&c);
	jt_remove_dir(d);
}

/* ---------------------------------------------------------- readahead --- */

/* Replay reads a file in 2 MiB windows while a thread of its own reads the
 * next one; a record that began in the window before is copied in front of
 * it when it is at most 256 KiB long there, else read again. Records of
 * 1 B to 300 KB over 8 MiB files: every record byte-exact and in order;
 * then the read-ahead's read fails (EIO at 3 MiB of every file): replay
 * returns EIO after a prefix, never a record read wrong. (Calls from two
 * threads: bl's counters are the test's only shared state and faultfs
 * serialises its calls; TSan runs this case.) */
#define RA_FILE	 ((uint64_t)8 << 20)
#define RA_BYTES ((size_t)20 << 20)

/* Records of c that are not record seq's payload (payload_fill(seq),
 * sizes[(seq - 1) % ns] bytes; c starts at seq 1), rebuilt in p. */
static size_t ra_bad(const struct coll *c, const size_t *sizes, size_t ns,
		     unsigned char *p)
{
	size_t bad = 0;
	for (size_t i = 0; i < c->n; i++) {
		size_t len = sizes[i % ns];
		payload_fill(p, len, i + 1);
		if (c->r[i].len != len || c->r[i].crc != conq_crc32c(0, p, len))
			bad++;
	}
	return bad;
}

static void case_readahead(void)
{
	static const size_t sizes[] = {1,     4000,  100000, 300000,
				       70000, 512,   262100, 9000};
	enum { NS = sizeof(sizes) / sizeof(sizes[0]) };
	faultfs *fs = faultfs_new(SECTOR, 0);
	unsigned char *p = malloc(300000);
	struct coll c = {0};
	if (!CHECK_NOT_NULL(fs) || !CHECK_NOT_NULL(p))
		goto out;
	CHECK_EQ(faultfs_mkdir(fs, "j"), 0);
	conq_journal_opts o = {0};
	o.file_size = RA_FILE;
	o.buffer_size = 1 << 20;
	o.io = faultfs_io(fs);
	conq_journal *j = conq_journal_open("j", &o);
	if (!CHECK_NOT_NULL(j))
		goto out;
	uint64_t n = 0;
	for (size_t bytes = 0; bytes < RA_BYTES;) {
		size_t len = sizes[n % NS];
		payload_fill(p, len, n + 1);
		if (!CHECK_EQ(conq_journal_append(j, 1, p, len, NULL, NULL,
						  NULL),
			      0))
			break;
		bytes += len;
		n++;
	}
	CHECK_EQ(conq_journal_close(j), 0);

	struct bl b;
	bl_init(&b, fs, "");
	o.io = &b.io;
	uint64_t last = 0;
	CHECK_EQ(conq_journal_replay_opts("j", &o, coll_fn, &c, &last), 0);
	CHECK_EQ(c.n, n);
	CHECK_EQ(last, n);
	CHECK_EQ(coll_first(&c), 1);
	CHECK_TRUE(coll_contiguous(&c));
	CHECK_EQ(ra_bad(&c, sizes, NS, p), 0);
	/* Both ways of reading were taken: windows read ahead (3 a file past
	 * the first), and a record longer than 256 KiB across a window's
	 * start read again at its own offset. */
	CHECK_GE(b.win_reads, 6);
	CHECK_GE(b.other_reads, 1);

	check_context("readahead: a read fails");
	coll_reset(&c);
	bl_init(&b, fs, "");
	b.fail_at = 3 << 20;
	last = 0;
	CHECK_EQ(conq_journal_replay_opts("j", &o, coll_fn, &c, &last), EIO);
	CHECK_GE(c.n, 1);
	CHECK_LT(c.n, n);
	CHECK_EQ(coll_first(&c), 1);
	CHECK_TRUE(coll_contiguous(&c));
	CHECK_EQ(ra_bad(&c, sizes, NS, p), 0);
	/* Nothing was changed on disk: without the fault, all again. */
	coll_reset(&c);
	o.io = faultfs_io(fs);
	CHECK_EQ(conq_journal_replay_opts("j", &o, coll_fn, &c, &last), 0);
	CHECK_EQ(c.n, n);
out:
	coll_free(&c);
	free(p);
	faultfs_free(fs);
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
	else if (strcmp(b, "auto") != 0 && strcmp(b, "faultfs") != 0) {
		fprintf(stderr, "unknown backend %s\n", b);
		return 2;
	}
	g_backend_name = b;
	struct {
		const char *name;
		void (*fn)(void);
	} cases[] = {
	    {"unsynced", case_unsynced},
	    {"header_first", case_header_first},
	    {"thread_exit", case_thread_exit},
	    {"many_files", case_many_files},
	    {"gap", case_gap},
	    {"big_len", case_big_len},
	    {"done_append", case_done_append},
	    {"readahead", case_readahead},
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
