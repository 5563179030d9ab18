/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay.c - is the journal's replay limited by the device? The issue asks
 * for it; CRC32C alone runs at GB/s, so what is left to see is whether
 * parsing, checking and copying keep up with a disk. conq_journal_replay of
 * the journal the runs left, against a plain sequential read of the same
 * files: every journal-*.cqj of the journal's directory, whole, pread of
 * JB_READ_CHUNK bytes into a page-aligned buffer, buffered (as replay
 * reads them), no parsing. Both are timed in the same cache state:
 *
 *   warm  the files just read: when any page of them is not in the page
 *         cache (mincore), an untimed read of them first;
 *   cold  each file fdatasync'd, then posix_fadvise(POSIX_FADV_DONTNEED);
 *         as root also sync() and "1" into /proc/sys/vm/drop_caches (tried
 *         each time until it fails once, then left out; the report says
 *         which). mincore then says how much of the files is still cached.
 *
 * Setup: a replay through a pass-through I/O layer (conq/journal_io.h) that
 * counts how far replay reads into each file; the replay figures divide by
 * those bytes (each file up to the furthest byte read: the used files, the
 * last one to its end, where replay looks past the tail for a record that
 * says the tail was durable, then once more while it checks for a torn
 * tail). When the records on disk (header + payload, padded to the sector)
 * come to less than JB_REPLAY_MIN, a short session appends JB_FILL_SIZE-byte
 * records to reach it, so that the timing is not a few milliseconds; then
 * the count again. The timed replays are conq_journal_replay itself, and
 * must return the count's records.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <conq/journal.h>
#include <conq/journal_io.h>

#include "jbench.h"

#define SECTOR 512u /* the journal's default sector: the tool's journals */

/* ---- replay's callback --------------------------------------------------- */

typedef struct replay_count {
	uint64_t records, bytes, rec_bytes, last;
	int order_err;
} replay_count;

static int on_record(void *ctx, uint64_t seq, uint32_t type, const void *data,
		     size_t len)
{
	replay_count *rc = ctx;
	(void)type;
	(void)data;
	if (rc->records > 0 && seq != rc->last + 1)
		rc->order_err = 1;
	rc->last = seq;
	rc->records++;
	rc->bytes += len;
	rc->rec_bytes += jb_round_up(CONQ_JOURNAL_RECORD_HEADER + len, SECTOR);
	return 0;
}

/* ---- the counting I/O layer ---------------------------------------------- */

typedef struct hw_ent {
	int h;
	uint64_t hw; /* the furthest byte read */
} hw_ent;

typedef struct count_io {
	conq_journal_io io; /* self: this */
	const conq_journal_io *px;
	hw_ent *ents;
	size_t n, cap;
	uint64_t scanned, preads;
	unsigned files;
} count_io;

static void ci_retire(count_io *ci, size_t i)
{
	ci->scanned += ci->ents[i].hw;
	if (ci->ents[i].hw > SECTOR)
		ci->files++;
	ci->ents[i] = ci->ents[--ci->n];
}

static int ci_open(void *self, const char *path, int create, int direct)
{
	count_io *ci = self;
	if (ci->n == ci->cap) {
		size_t cap = ci->cap ? ci->cap * 2 : 16;
		hw_ent *e = realloc(ci->ents, cap * sizeof *e);
		if (e == NULL)
			return -ENOMEM;
		ci->ents = e;
		ci->cap = cap;
	}
	int h = ci->px->open(ci->px->self, path, create, direct);
	if (h >= 0)
		ci->ents[ci->n++] = (hw_ent){h, 0};
	return h;
}

static int ci_close(void *self, int h)
{
	count_io *ci = self;
	for (size_t i = 0; i < ci->n; i++)
		if (ci->ents[i].h == h) {
			ci_retire(ci, i);
			break;
		}
	return ci->px->close(ci->px->self, h);
}

static int64_t ci_pread(void *self, int h, void *buf, size_t len, uint64_t off)
{
	count_io *ci = self;
	int64_t k = ci->px->pread(ci->px->self, h, buf, len, off);
	if (k > 0) {
		ci->preads += (uint64_t)k;
		for (size_t i = 0; i < ci->n; i++)
			if (ci->ents[i].h == h) {
				if (off + (uint64_t)k > ci->ents[i].hw)
					ci->ents[i].hw = off + (uint64_t)k;
				break;
			}
	}
	return k;
}

static int64_t ci_pwrite(void *self, int h, const void *buf, size_t len,
			 uint64_t off)
{
	const count_io *ci = self;
	return ci->px->pwrite(ci->px->self, h, buf, len, off);
}

static int ci_datasync(void *self, int h)
{
	const count_io *ci = self;
	return ci->px->datasync(ci->px->self, h);
}

static int64_t ci_size(void *self, int h)
{
	const count_io *ci = self;
	return ci->px->size(ci->px->self, h);
}

static int ci_list(void *self, const char *dir,
		   int (*fn)(void *ctx, const char *name), void *ctx)
{
	const count_io *ci = self;
	return ci->px->list(ci->px->self, dir, fn, ctx);
}

static int ci_sync_dir(void *self, const char *dir)
{
	const count_io *ci = self;
	return ci->px->sync_dir(ci->px->self, dir);
}

static int ci_fd(void *self, int h)
{
	const count_io *ci = self;
	return ci->px->fd(ci->px->self, h);
}

/* A replay through the counting layer: the journal's figures into rp. */
static int count_pass(jb_replay *rp, char *err, size_t n)
{
	count_io ci;
	memset(&ci, 0, sizeof ci);
	ci.px = conq_journal_io_posix();
	ci.io = (conq_journal_io){
	    .self = &ci,
	    .open = ci_open,
	    .close = ci_close,
	    .pread = ci_pread,
	    .pwrite = ci_pwrite,
	    .datasync = ci_datasync,
	    .size = ci_size,
	    .list = ci_list,
	    .sync_dir = ci_sync_dir,
	    .fd = ci_fd,
	};
	conq_journal_opts o;
	memset(&o, 0, sizeof o);
	o.io = &ci.io;
	replay_count rc;
	memset(&rc, 0, sizeof rc);
	int e = conq_journal_replay_opts(rp->c->jdir, &o, on_record, &rc, NULL);
	while (ci.n > 0) /* closed by replay; in case */
		ci_retire(&ci, ci.n - 1);
	free(ci.ents);
	if (e != 0) {
		snprintf(err, n, "conq_journal_replay: %s", strerror(e));
		return -1;
	}
	if (rc.order_err) {
		snprintf(err, n,
			 "conq_journal_replay: sequence numbers not "
			 "consecutive");
		return -1;
	}
	rp->records = rc.records;
	rp->payload = rc.bytes;
	rp->rec_bytes = rc.rec_bytes;
	rp->scanned = ci.scanned;
	rp->pread_bytes = ci.preads;
	rp->used_files = ci.files;
	return 0;
}

/* ---- the files ----------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool journal_name(const char *s)
{
	size_t l = strlen(s);
	return strncmp(s, "journal-", 8) == 0 && l > 12 &&
	       strcmp(s + l - 4, ".cqj") == 0;
}

static int list_files(jb_replay *rp, char *err, size_t n)
{
	const char *dir = rp->c->jdir;
	DIR *d = opendir(dir);
	if (d == NULL) {
		snprintf(err, n, "%s: %s", dir, strerror(errno));
		return -1;
	}
	unsigned cap = 0;
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (!journal_name(de->d_name))
			continue;
		if (rp->nfiles == cap) {
			cap = cap ? cap * 2 : 16;
			char **p = realloc(rp->paths, cap * sizeof *p);
			if (p == NULL) {
				rc = -1;
				break;
			}
			rp->paths = p;
		}
		size_t len = strlen(dir) + strlen(de->d_name) + 2;
		char *path = malloc(len);
		if (path == NULL) {
			rc = -1;
			break;
		}
		snprintf(path, len, "%s/%s", dir, de->d_name);
		rp->paths[rp->nfiles++] = path;
	}
	closedir(d);
	if (rc != 0) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	if (rp->nfiles == 0) {
		snprintf(err, n, "%s: no journal-*.cqj", dir);
		return -1;
	}
	qsort(rp->paths, rp->nfiles, sizeof *rp->paths, cmp_str);
	rp->sizes = calloc(rp->nfiles, sizeof *rp->sizes);
	if (rp->sizes == NULL) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	rp->file_bytes = 0;
	for (unsigned i = 0; i < rp->nfiles; i++) {
		struct stat st;
		if (stat(rp->paths[i], &st) != 0) {
			snprintf(err, n, "%s: %s", rp->paths[i],
				 strerror(errno));
			return -1;
		}
		rp->sizes[i] = (uint64_t)st.st_size;
		rp->file_bytes += rp->sizes[i];
	}
	return 0;
}

/* The read: every file, whole, in JB_READ_CHUNK preads. */
static int read_files(jb_replay *rp, uint64_t *bytes, char *err, size_t n)
{
	*bytes = 0;
	for (unsigned i = 0; i < rp->nfiles; i++) {
		int fd = open(rp->paths[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, n, "%s: %s", rp->paths[i],
				 strerror(errno));
			return -1;
		}
		uint64_t off = 0;
		for (;;) {
			ssize_t k =
			    pread(fd, rp->buf, JB_READ_CHUNK, (off_t)off);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				snprintf(err, n, "%s: pread: %s", rp->paths[i],
					 strerror(errno));
				close(fd);
				return -1;
			}
			if (k == 0)
				break;
			off += (uint64_t)k;
		}
		close(fd);
		*bytes += off;
	}
	return 0;
}

/* The fraction of the files' pages in the page cache; NAN when not known. */
static double cached_fraction(const jb_replay *rp)
{
	long ps = sysconf(_SC_PAGESIZE);
	if (ps <= 0)
		return NAN;
	uint64_t pages = 0, in = 0;
	for (unsigned i = 0; i < rp->nfiles; i++) {
		size_t sz = (size_t)rp->sizes[i];
		if (sz == 0)
			continue;
		size_t np = (sz + (size_t)ps - 1) / (size_t)ps;
		int fd = open(rp->paths[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return NAN;
		void *m = mmap(NULL, sz, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			return NAN;
		unsigned char *v = malloc(np);
		if (v == NULL || mincore(m, sz, v) != 0) {
			free(v);
			munmap(m, sz);
			return NAN;
		}
		for (size_t k = 0; k < np; k++)
			in += v[k] & 1u;
		pages += np;
		free(v);
		munmap(m, sz);
	}
	return pages > 0 ? (double)in / (double)pages : NAN;
}

/* The cold state. */
static int drop_cache(jb_replay *rp, char *err, size_t n)
{
	for (unsigned i = 0; i < rp->nfiles; i++) {
		int fd = open(rp->paths[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, n, "%s: %s", rp->paths[i],
				 strerror(errno));
			return -1;
		}
		if (fdatasync(fd) != 0) {
			snprintf(err, n, "%s: fdatasync: %s", rp->paths[i],
				 strerror(errno));
			close(fd);
			return -1;
		}
		int e = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
		if (e != 0) {
			snprintf(err, n, "%s: posix_fadvise: %s", rp->paths[i],
				 strerror(e));
			return -1;
		}
	}
	if (rp->drop_caches >= 0 && geteuid() == 0) {
		sync();
		int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
		ssize_t w = fd >= 0 ? write(fd, "1", 1) : -1;
		if (w != 1) {
			rp->drop_caches = -1;
			snprintf(rp->drop_err, sizeof rp->drop_err, "%s",
				 w == 0 ? "nothing written" : strerror(errno));
		} else {
			rp->drop_caches = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

/* The calling thread's CPU time, ns: replay and the read run on it alone
 * (getrusage's figures are tick-sampled, too coarse for a pass of a few
 * milliseconds). */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the interface ------------------------------------------------------- */

int jb_replay_setup(const jb_cfg *c, jb_replay *rp, char *err, size_t n)
{
	memset(rp, 0, sizeof *rp);
	rp->c = c;
	if (posix_memalign((void **)&rp->buf, JB_PAGE, JB_READ_CHUNK) != 0) {
		rp->buf = NULL;
		snprintf(err, n, "out of memory");
		return -1;
	}
	if (count_pass(rp, err, n) != 0)
		return -1;
	uint64_t min = c->smoke ? JB_REPLAY_MIN_SMOKE : JB_REPLAY_MIN;
	if (rp->rec_bytes < min) {
		uint64_t per = jb_round_up(
		    CONQ_JOURNAL_RECORD_HEADER + JB_FILL_SIZE, SECTOR);
		uint64_t k = (min - rp->rec_bytes + per - 1) / per;
		uint64_t t0 = jb_now_ns();
		if (jb_journal_fill(c, k, JB_FILL_SIZE, err, n) != 0)
			return -1;
		rp->fill_s = (double)(jb_now_ns() - t0) / 1e9;
		rp->filled = k;
		uint64_t before = rp->records;
		if (count_pass(rp, err, n) != 0)
			return -1;
		if (rp->records != before + k) {
			snprintf(err, n,
				 "replay after the top-up: %llu records, not "
				 "%llu + %llu",
				 (unsigned long long)rp->records,
				 (unsigned long long)before,
				 (unsigned long long)k);
			return -1;
		}
	}
	return list_files(rp, err, n);
}

void jb_replay_pass(jb_replay *rp, bool cold, bool read, jb_result *r,
		    double *cached)
{
	jb_result_start(r, 1, 0);
	*cached = NAN;
	char err[sizeof r->err];
	uint64_t bytes = 0;
	if (cold) {
		if (drop_cache(rp, err, sizeof err) != 0) {
			jb_result_fail(r, "%s", err);
			return;
		}
	} else if (!(cached_fraction(rp) >= 1.0) &&
		   read_files(rp, &bytes, err, sizeof err) != 0) {
		jb_result_fail(r, "%s", err);
		return;
	}
	*cached = cached_fraction(rp);

	replay_count rc;
	memset(&rc, 0, sizeof rc);
	int e = 0;
	uint64_t cpu0 = thread_cpu_ns(), t0 = jb_now_ns();
	if (read)
		e = read_files(rp, &bytes, err, sizeof err);
	else
		e = conq_journal_replay(rp->c->jdir, on_record, &rc);
	uint64_t t1 = jb_now_ns(), cpu1 = thread_cpu_ns();
	r->elapsed_s = (double)(t1 - t0) / 1e9;
	if (read && e != 0) {
		jb_result_fail(r, "%s", err);
		return;
	}
	if (!read && e != 0) {
		jb_result_fail(r, "conq_journal_replay: %s", strerror(e));
		return;
	}
	if (!read && (rc.order_err || rc.records != rp->records)) {
		jb_result_fail(r,
			       "conq_journal_replay: %llu records%s, the "
			       "count found %llu",
			       (unsigned long long)rc.records,
			       rc.order_err ? " not in sequence" : "",
			       (unsigned long long)rp->records);
		return;
	}
	if (r->elapsed_s <= 0) {
		jb_result_fail(r, "no time measured");
		return;
	}
	r->records = read ? 0 : rc.records;
	r->rec_s = (double)r->records / r->elapsed_s;
	r->mb_s = (double)(read ? bytes : rp->scanned) / r->elapsed_s / 1e6;
	r->cpu_ns = (double)(cpu1 - cpu0); /* the whole pass's */
}

void jb_replay_drop_desc(const jb_replay *rp, char *out, size_t n)
{
	int w = snprintf(out, n,
			 "fdatasync then posix_fadvise(POSIX_FADV_DONTNEED) on "
			 "each file");
	if (w < 0 || (size_t)w >= n)
		return;
	if (rp->drop_caches > 0)
		snprintf(out + w, n - (size_t)w,
			 ", then sync() and 1 into /proc/sys/vm/drop_caches "
			 "(root)");
	else if (rp->drop_caches < 0)
		snprintf(out + w, n - (size_t)w,
			 "; not drop_caches (root, but writing "
			 "/proc/sys/vm/drop_caches failed: %s)",
			 rp->drop_err);
	else
		snprintf(out + w, n - (size_t)w,
			 "; not drop_caches (not root)");
}

void jb_replay_free(jb_replay *rp)
{
	for (unsigned i = 0; i < rp->nfiles; i++)
		free(rp->paths[i]);
	free(rp->paths);
	free(rp->sizes);
	free(rp->buf);
	rp->paths = NULL;
	rp->sizes = NULL;
	rp->buf = NULL;
	rp->nfiles = 0;
}
