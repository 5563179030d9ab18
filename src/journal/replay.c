/* SPDX-License-Identifier: BSD-2-Clause */
/* src/journal/replay.c - the recovery scan that replay and open share.
 *
 * The used files (a valid header with a file id) are walked in id order, the
 * first from its first seq, each next one only if its first seq continues
 * the sequence (ids grow, with gaps where a recovery freed files). In a
 * file, records follow one another from sector 1, each valid (magic, length,
 * this file's id, CRC) with the next seq. At the first record that is not,
 * the file ends; the walk goes on in the next file if that one continues the
 * sequence (the writer moved on because the record did not fit), else this
 * is the end of the journal:
 *
 *  - when a later valid record of the journal says (its durable field) that
 *    the record expected here was durable when it was written, the data is
 *    corrupt: EBADMSG, nothing changed on disk;
 *  - else it is the torn tail of a crash (writes that had not been synced,
 *    so no record in it was acknowledged): the sectors from the break to
 *    the last record header of this file are zeroed, the used files after
 *    it are marked free (their ids and the next seq kept in their headers),
 *    then datasync'd. Replay again finds the same records; open continues
 *    in a new file. The search for a record that vouches and the search
 *    for the tail's last record header are one pass: the tail is read once.
 *
 * Files are read with O_DIRECT (jscan_run says why) in windows of 2 MiB, a
 * thread of the scan's own reading the next window while the scan checks
 * this one (the kernel reads nothing ahead of O_DIRECT reads).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jinternal.h"

/* A scan reads a file in windows of RD_WINDOW bytes; windows start and end
 * on RD_ALIGN (reads of a file opened with O_DIRECT must be aligned, and any
 * sector size a device reports divides 4 KiB). */
#define RD_WINDOW ((size_t)2 << 20)
#define RD_ALIGN  ((size_t)4096)
/* Room before a read-ahead window for the part of a record that began in
 * the window before it (copied over); a longer one is read again. */
#define RD_LEAD ((size_t)256 << 10)

/* The read-ahead: replay reads with O_DIRECT, so the kernel reads nothing
 * ahead of it. While the scan checks one window, a thread of its own reads
 * the next, so that the device always has a read to do. One request at a
 * time; a mutex and two condition variables hand it over. */
enum { RA_IDLE, RA_POSTED, RA_BUSY, RA_DONE };

struct ahead {
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* to the thread: a request posted, or stop */
	pthread_cond_t done; /* from it: the request read */
	pthread_t thr;
	int running; /* the thread started */
	int off;     /* no read-ahead (the thread could not start) */
	int stop;
	int state; /* RA_*: under mu */
	/* The request: bytes [beg, beg + want) of handle h. */
	const conq_journal_io *io;
	int h;
	uint64_t size, beg;
	size_t want; /* RD_WINDOW, or less at the end of the file */
	unsigned char *buf; /* RD_LEAD + RD_WINDOW bytes, RD_ALIGN-aligned */
	size_t cap;
	int err; /* the read's */
};

struct reader {
	const conq_journal_io *io;
	int h;
	uint64_t size;
	unsigned char *buf; /* RD_ALIGN-aligned, for O_DIRECT reads */
	size_t cap;
	const unsigned char *data; /* the window: byte beg of the file first */
	uint64_t beg;
	size_t len;
	size_t window;	  /* bytes a read asks for at least */
	struct ahead *ra; /* NULL: no read-ahead */
	/* The file the scan reads after this one (handle -1: none known):
	 * its first window is read ahead once this file's last one is. */
	int next_h;
	uint64_t next_size;
};

static void rd_init(struct reader *r, const conq_journal_io *io,
		    const struct jscan_file *f)
{
	r->io = io;
	r->h = f->dhandle >= 0 ? f->dhandle : f->handle;
	r->size = f->size;
	r->beg = 0;
	r->len = 0;
	r->window = RD_WINDOW;
	r->next_h = -1;
}

static void rd_then(struct reader *r, const struct jscan_file *f)
{
	r->next_h = !f ? -1 : f->dhandle >= 0 ? f->dhandle : f->handle;
	r->next_size = f ? f->size : 0;
}

/* A read's length: the window, or what is left of the file when that is
 * less (a small file is not read, nor zeroed in memory, a window at a
 * time), in whole RD_ALIGN blocks. */
static size_t rd_want(uint64_t left, size_t window)
{
	if (left >= window)
		return window;
	return ((size_t)left + RD_ALIGN - 1) & ~(RD_ALIGN - 1);
}

/* Bytes [beg, beg + want) of the file into dst (zeros past its end). */
static int rd_fill(const conq_journal_io *io, int h, uint64_t size,
		   unsigned char *dst, uint64_t beg, size_t want)
{
	size_t got = 0;
	while (got < want && beg + got < size) {
		int64_t k =
		    io->pread(io->self, h, dst + got, want - got, beg + got);
		if (k < 0)
			return (int)-k;
		if (k == 0)
			break;
		got += (size_t)k;
		if (got % RD_ALIGN)
			break; /* a short read: the end of the file */
	}
	if (beg < size && got > size - beg)
		got = (size_t)(size - beg);
	memset(dst + got, 0, want - got);
	return 0;
}

static void *ra_main(void *p)
{
	struct ahead *a = p;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (a->state != RA_POSTED && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->stop)
			break;
		a->state = RA_BUSY; /* the buffer is the thread's till DONE */
		const conq_journal_io *io = a->io;
		int h = a->h;
		uint64_t size = a->size, beg = a->beg;
		size_t want = a->want;
		unsigned char *dst = a->buf + RD_LEAD;
		pthread_mutex_unlock(&a->mu);
		int err = rd_fill(io, h, size, dst, beg, want);
		pthread_mutex_lock(&a->mu);
		a->err = err;
		a->state = RA_DONE;
		pthread_cond_broadcast(&a->done);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

static void ra_init(struct ahead *a)
{
	memset(a, 0, sizeof(*a));
	if (pthread_mutex_init(&a->mu, NULL) != 0) {
		a->off = -1; /* nothing to destroy */
		return;
	}
	if (pthread_cond_init(&a->cv, NULL) != 0) {
		pthread_mutex_destroy(&a->mu);
		a->off = -1;
		return;
	}
	if (pthread_cond_init(&a->done, NULL) != 0) {
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		a->off = -1;
	}
}

/* No request left: a posted one withdrawn, a running one waited for. mu
 * held. */
static void ra_settle_locked(struct ahead *a)
{
	if (a->state == RA_POSTED)
		a->state = RA_IDLE;
	while (a->state == RA_BUSY)
		pthread_cond_wait(&a->done, &a->mu);
	a->state = RA_IDLE;
}

/* Before the scan writes to a file, and at its end. */
static void ra_settle(struct ahead *a)
{
	if (!a || a->off < 0 || !a->running)
		return;
	pthread_mutex_lock(&a->mu);
	ra_settle_locked(a);
	pthread_mutex_unlock(&a->mu);
}

static void ra_fini(struct ahead *a)
{
	if (a->off < 0)
		return;
	if (a->running) {
		pthread_mutex_lock(&a->mu);
		ra_settle_locked(a);
		a->stop = 1;
		pthread_cond_signal(&a->cv);
		pthread_mutex_unlock(&a->mu);
		pthread_join(a->thr, NULL);
	}
	pthread_cond_destroy(&a->done);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a->buf);
}

/* Ask for the window after r's, or for the first window of the file read
 * next after r's last one (no request is pending: the caller settled it).
 * Without memory or a thread, nothing is read ahead: the scan reads as it
 * goes. */
static void ra_post(struct reader *r)
{
	struct ahead *a = r->ra;
	uint64_t next = r->beg + r->len, size = r->size;
	int h = r->h;
	if (next >= size) {
		h = r->next_h;
		next = 0;
		size = r->next_size;
	}
	if (!a || a->off || h < 0 || next >= size)
		return;
	if (a->cap < RD_LEAD + RD_WINDOW) {
		void *nb = NULL;
		if (posix_memalign(&nb, RD_ALIGN, RD_LEAD + RD_WINDOW) != 0)
			return;
		free(a->buf);
		a->buf = nb;
		a->cap = RD_LEAD + RD_WINDOW;
	}
	if (!a->running) {
		if (pthread_create(&a->thr, NULL, ra_main, a) != 0) {
			a->off = 1;
			return;
		}
		a->running = 1;
	}
	pthread_mutex_lock(&a->mu);
	a->io = r->io;
	a->h = h;
	a->size = size;
	a->beg = next;
	a->want = rd_want(size - next, RD_WINDOW);
	a->err = 0;
	a->state = RA_POSTED;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

/* [off, off + n) from the window read ahead, when it is the one after r's
 * (or the first of r's file, when r has read none of it yet) and holds
 * them (with what the record had in r's window copied in front of it): 1
 * (r's window is now that one), -1 its read failed (*err), 0 not there
 * (any request withdrawn or waited for). */
static int ra_take(struct reader *r, uint64_t off, size_t n, int *err)
{
	struct ahead *a = r->ra;
	if (!a || a->off || !a->running)
		return 0;
	uint64_t next = r->beg + r->len;
	uint64_t beg = off & ~(uint64_t)(RD_ALIGN - 1);
	size_t carry = beg < next ? (size_t)(next - beg) : 0;
	pthread_mutex_lock(&a->mu);
	/* With nothing of the file read yet (len 0: beg 0 after rd_init),
	 * off >= beg leaves no carry. */
	int match = a->state != RA_IDLE && a->io == r->io && a->h == r->h &&
		    a->beg == next && off >= r->beg && carry <= RD_LEAD &&
		    off + n <= next + a->want;
	if (!match) {
		ra_settle_locked(a);
		pthread_mutex_unlock(&a->mu);
		return 0;
	}
	while (a->state != RA_DONE)
		pthread_cond_wait(&a->done, &a->mu);
	a->state = RA_IDLE;
	pthread_mutex_unlock(&a->mu);
	if (a->err) {
		*err = a->err;
		r->len = 0;
		return -1;
	}
	if (carry)
		memcpy(a->buf + RD_LEAD - carry, r->data + (beg - r->beg),
		       carry);
	unsigned char *b = r->buf;
	size_t c = r->cap;
	r->buf = a->buf;
	r->cap = a->cap;
	a->buf = b;
	a->cap = c; /* ra_post makes it RD_LEAD + RD_WINDOW again */
	r->data = r->buf + RD_LEAD - carry;
	r->beg = next - carry;
	r->len = carry + a->want;
	return 1;
}

/* Bytes [off, off + n) of the file (zeros past its end), or NULL, *err. */
static const unsigned char *rd_get(struct reader *r, uint64_t off, size_t n,
				   int *err)
{
	if (off >= r->beg && off + n <= r->beg + r->len)
		return r->data + (off - r->beg);
	int t = ra_take(r, off, n, err);
	if (t < 0)
		return NULL;
	if (t == 0) {
		uint64_t beg = off & ~(uint64_t)(RD_ALIGN - 1);
		size_t lead = (size_t)(off - beg);
		size_t want =
		    rd_want(beg < r->size ? r->size - beg : 0, r->window);
		size_t need = (n + lead + RD_ALIGN - 1) & ~(RD_ALIGN - 1);
		if (want < need)
			want = need;
		size_t room = r->ra ? RD_LEAD : 0; /* see ra_take */
		if (room + want > r->cap) {
			void *nb = NULL;
			if (posix_memalign(&nb, RD_ALIGN, room + want) != 0) {
				*err = ENOMEM;
				return NULL;
			}
			free(r->buf);
			r->buf = nb;
			r->cap = room + want;
		}
		int e = rd_fill(r->io, r->h, r->size, r->buf + room, beg, want);
		if (e) {
			*err = e;
			r->len = 0;
			return NULL;
		}
		r->data = r->buf + room;
		r->beg = beg;
		r->len = want;
	}
	ra_post(r);
	return r->data + (off - r->beg);
}

static int cmp_index(const void *a, const void *b)
{
	const struct jscan_file *x = a, *y = b;
	return (x->index > y->index) - (x->index < y->index);
}

struct list_ctx {
	struct jscan *s;
	unsigned cap;
	int err;
};

static int list_one(void *ctx, const char *name)
{
	struct list_ctx *lc = ctx;
	unsigned index;
	if (!j_name_index(name, &index))
		return 0;
	if (lc->s->nfiles == lc->cap) {
		unsigned cap = lc->cap ? lc->cap * 2 : 16;
		if (cap > JFILES_MAX * 2) {
			lc->err = EMFILE;
			return 1;
		}
		struct jscan_file *nf =
			realloc(lc->s->files, cap * sizeof(*nf));
		if (!nf) {
			lc->err = ENOMEM;
			return 1;
		}
		lc->s->files = nf;
		lc->cap = cap;
	}
	struct jscan_file *f = &lc->s->files[lc->s->nfiles++];
	memset(f, 0, sizeof(*f));
	f->index = index;
	f->handle = -1;
	f->dhandle = -1;
	return 0;
}

void jscan_close(const conq_journal_io *io, struct jscan *s)
{
	for (unsigned i = 0; i < s->nfiles; i++) {
		if (s->files[i].handle >= 0)
			io->close(io->self, s->files[i].handle);
		if (s->files[i].dhandle >= 0)
			io->close(io->self, s->files[i].dhandle);
	}
	free(s->files);
	s->files = NULL;
	s->nfiles = 0;
}

/* A valid record of file f at off (its header in *h), with the bytes;
 * *hdr (when not NULL) says whether a header of this file is there, valid
 * or not (a torn record's). */
static int valid_at(struct reader *r, const struct jscan_file *f, uint64_t off,
		    struct jr_header *h, const unsigned char **rec, int *err,
		    int *hdr)
{
	const unsigned char *p = rd_get(r, off, JR_HEADER_LEN, err);
	if (hdr)
		*hdr = 0;
	if (!p)
		return -1;
	if (!jr_peek(p, f->size - off, h) || h->file_id != f->h.file_id)
		return 0;
	if (hdr)
		*hdr = 1;
	p = rd_get(r, off, JR_HEADER_LEN + (size_t)h->len, err);
	if (!p)
		return -1;
	if (!jr_check(p, h))
		return 0;
	*rec = p;
	return 1;
}

/* Whether a valid record in used[from..] at or after `off` in used[from]
 * says that seq `expected` was durable: 1 yes, 0 no, -1 error (*err). On
 * 0, *tail_end is the end of the last sector of used[from] at or after off
 * that holds a record header of that file (off when none): what a torn
 * tail's truncation zeroes. One pass: the tail is read once. */
static int durable_after(struct jscan *s, struct jscan_file **used,
			 unsigned nused, unsigned from, uint64_t off,
			 uint64_t expected, struct reader *r, int *err,
			 uint64_t *tail_end)
{
	uint64_t sector = s->sector;
	*tail_end = off;
	for (unsigned k = from; k < nused; k++) {
		struct jscan_file *f = used[k];
		if (k != from) /* the walk's reader is in used[from] */
			rd_init(r, r->io, f);
		rd_then(r, k + 1 < nused ? used[k + 1] : NULL);
		for (uint64_t o = k == from ? off : sector;
		     o + JR_HEADER_LEN <= f->size; o += sector) {
			struct jr_header h;
			const unsigned char *rec;
			int hdr;
			int v = valid_at(r, f, o, &h, &rec, err,
					 k == from ? &hdr : NULL);
			if (v < 0)
				return -1;
			if (v && h.durable > expected)
				return 1;
			if (k == from && hdr)
				*tail_end = o + sector;
		}
	}
	return 0;
}

static int write_zeros(const conq_journal_io *io, int h, uint64_t from,
		       uint64_t to)
{
	static const unsigned char zeros[65536];
	while (from < to) {
		size_t n = to - from > sizeof(zeros) ? sizeof(zeros)
						     : (size_t)(to - from);
		int64_t k = io->pwrite(io->self, h, zeros, n, from);
		if (k < 0)
			return (int)-k;
		if ((size_t)k != n)
			return EIO;
		from += n;
	}
	return 0;
}

/* Mark f free on disk: its id and the next seq kept. */
static int free_file(const conq_journal_io *io, struct jscan_file *f,
		     uint32_t sector, uint64_t next_seq)
{
	unsigned char hdr[65536];
	struct jf_header h = {
		.sector_size = sector,
		.file_size = f->size,
		.file_id = 0,
		.first_seq = next_seq,
		.last_id = f->h.file_id,
	};
	memset(hdr, 0, sector);
	jf_encode(hdr, &h);
	int64_t k = io->pwrite(io->self, f->handle, hdr, sector, 0);
	if (k < 0)
		return (int)-k;
	if (k != (int64_t)sector)
		return EIO;
	int rc = io->datasync(io->self, f->handle);
	if (rc < 0)
		return -rc;
	f->h = h;
	f->used = 0;
	return 0;
}

/* Zero the torn tail of f: [off, end), durably (durable_after found end). */
static int truncate_tail(const conq_journal_io *io, struct jscan_file *f,
			 uint64_t off, uint64_t end)
{
	if (end <= off)
		return 0;
	int err = write_zeros(io, f->handle, off, end);
	if (err)
		return err;
	int rc = io->datasync(io->self, f->handle);
	return rc < 0 ? -rc : 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct jscan_file *const *x = a, *const *y = b;
	return ((*x)->h.file_id > (*y)->h.file_id) -
	       ((*x)->h.file_id < (*y)->h.file_id);
}

static int walk(struct jscan *s, const conq_journal_io *io,
		conq_journal_replay_fn fn, void *ctx, struct reader *r)
{
	struct jscan_file **used = malloc((s->nfiles + 1) * sizeof(*used));
	unsigned nused = 0;
	int err = 0;
	if (!used)
		return ENOMEM;
	for (unsigned i = 0; i < s->nfiles; i++)
		if (s->files[i].used)
			used[nused++] = &s->files[i];
	qsort(used, nused, sizeof(*used), cmp_id);
	for (unsigned i = 0; i < nused; i++)
		used[i]->used = 0; /* set again for those in the prefix */
	if (nused == 0)
		goto out;

	uint64_t expected = used[0]->h.first_seq;
	uint64_t sector = s->sector;
	for (unsigned k = 0; k < nused; k++) {
		struct jscan_file *f = used[k];
		f->used = 1;
		rd_init(r, io, f);
		rd_then(r, k + 1 < nused ? used[k + 1] : NULL);
		uint64_t off = sector;
		for (;;) {
			struct jr_header h;
			const unsigned char *rec;
			int v = off + JR_HEADER_LEN <= f->size
					? valid_at(r, f, off, &h, &rec, &err,
						   NULL)
					: 0;
			if (v < 0)
				goto out;
			if (!v || h.seq != expected)
				break;
			if (fn) {
				int rc = fn(ctx, h.seq, h.type,
					    rec + JR_HEADER_LEN, h.len);
				if (rc) {
					err = rc;
					s->last = expected;
					goto out;
				}
			}
			s->last = expected++;
			off += j_pad(JR_HEADER_LEN + (uint64_t)h.len, sector);
		}
		/* The writer moved on to the next file. Ids only grow, but
		 * not always by one: a recovery frees the files past a torn
		 * tail (their ids are not reused), and the next open starts
		 * a file with a higher id at the same seq. */
		if (k + 1 < nused && used[k + 1]->h.first_seq == expected)
			continue;
		/* The end of the journal: corrupt, or a torn tail? */
		uint64_t end;
		int d = durable_after(s, used, nused, k, off, expected, r, &err,
				      &end);
		if (d < 0)
			goto out;
		if (d) {
			err = EBADMSG;
			goto out;
		}
		ra_settle(r->ra); /* no read of a file while it is written */
		err = truncate_tail(io, f, off, end);
		for (unsigned g = k + 1; g < nused && !err; g++)
			err = free_file(io, used[g], s->sector, expected);
		break;
	}
	s->next_seq = expected > s->next_seq ? expected : s->next_seq;
out:
	free(used);
	return err;
}

int jscan_run(const char *dir, const conq_journal_io *io,
	      conq_journal_replay_fn fn, void *ctx, struct jscan *out)
{
	struct jscan s = {.next_seq = 1, .next_id = 1};
	struct list_ctx lc = {.s = &s};
	struct reader r = {0}, hr = {0};
	struct ahead ra;
	ra_init(&ra);
	r.ra = ra.off < 0 ? NULL : &ra;
	char path[JPATH_MAX], name[JNAME_MAX];
	int err = 0;

	int rc = io->list(io->self, dir, list_one, &lc);
	if (lc.err) {
		err = lc.err;
		goto fail;
	}
	if (rc) {
		err = rc < 0 ? -rc : EIO;
		goto fail;
	}
	if (s.nfiles)
		qsort(s.files, s.nfiles, sizeof(*s.files), cmp_index);
	for (unsigned i = 0; i < s.nfiles; i++) {
		struct jscan_file *f = &s.files[i];
		snprintf(name, sizeof(name), JNAME_FMT, f->index);
		if ((err = -j_path(path, dir, name)) != 0)
			goto fail;
		int h = io->open(io->self, path, 0, 0);
		if (h < 0) {
			err = -h;
			goto fail;
		}
		f->handle = h;
		/* Records are read with O_DIRECT where the layer takes it:
		 * what is on the disk, not pages whose writeback failed and
		 * that the page cache still returns (after a failed fdatasync
		 * Linux marks them clean). Writes (zeroing the tail, freeing
		 * files) go through the buffered handle. */
		int dh = io->open(io->self, path, 0, 1);
		f->dhandle = dh >= 0 ? dh : -1;
		int64_t sz = io->size(io->self, h);
		if (sz < 0) {
			err = (int)-sz;
			goto fail;
		}
		f->size = (uint64_t)sz;
		unsigned char hb[JF_HEADER_LEN];
		memset(hb, 0, sizeof(hb));
		int64_t k = 0;
		if (sz >= JF_HEADER_LEN) {
			/* One 4 KiB read a file (thousands of files). */
			rd_init(&hr, io, f);
			hr.window = RD_ALIGN;
			const unsigned char *p = rd_get(&hr, 0, JF_HEADER_LEN, &err);
			if (!p && f->dhandle >= 0 && err == EINVAL) {
				/* The layer took O_DIRECT but not our reads. */
				io->close(io->self, f->dhandle);
				f->dhandle = -1;
				err = 0;
				rd_init(&hr, io, f);
				hr.window = RD_ALIGN;
				p = rd_get(&hr, 0, JF_HEADER_LEN, &err);
			}
			if (!p)
				goto fail;
			memcpy(hb, p, JF_HEADER_LEN);
			k = JF_HEADER_LEN;
		}
		if (k < (int64_t)JF_HEADER_LEN || !jf_decode(hb, &f->h)) {
			memset(&f->h, 0, sizeof(f->h));
			continue; /* zeros or a torn header: free, no news */
		}
		if (s.sector && s.sector != f->h.sector_size) {
			err = EBADMSG; /* files of two journals */
			goto fail;
		}
		s.sector = f->h.sector_size;
		uint64_t id = f->h.file_id > f->h.last_id ? f->h.file_id
							  : f->h.last_id;
		if (id >= s.next_id)
			s.next_id = id + 1;
		if (f->h.file_id) {
			/* Records must fit from sector 1 on. */
			f->used = f->size >= 2u * f->h.sector_size;
		} else if (f->h.first_seq > s.next_seq) {
			s.next_seq = f->h.first_seq;
		}
	}
	/* What a used file holds may be in the page cache only (a process
	 * killed between a write and its sync): make it durable before any
	 * of it is returned or vouched for by a new record's durable mark. */
	for (unsigned i = 0; i < s.nfiles && !err; i++)
		if (s.files[i].used) {
			int ds = io->datasync(io->self, s.files[i].handle);
			err = ds < 0 ? -ds : 0;
		}
	if (err)
		goto fail;
	if (s.sector)
		err = walk(&s, io, fn, ctx, &r);
	if (err)
		goto fail;
	ra_fini(&ra);
	free(r.buf);
	free(hr.buf);
	*out = s;
	return 0;
fail:
	ra_fini(&ra);
	free(r.buf);
	free(hr.buf);
	jscan_close(io, &s);
	*out = s; /* no files; last kept */
	return err;
}

int conq_journal_replay_opts(const char *dir, const conq_journal_opts *opts,
			     conq_journal_replay_fn fn, void *ctx,
			     uint64_t *last)
{
	const conq_journal_io *io = opts && opts->io ? opts->io
						     : conq_journal_io_posix();
	struct jscan s;
	if (last)
		*last = 0;
	if (!dir)
		return EINVAL;
	int err = jscan_run(dir, io, fn, ctx, &s);
	if (last)
		*last = s.last;
	jscan_close(io, &s);
	return err;
}

int conq_journal_replay(const char *dir, conq_journal_replay_fn fn, void *ctx)
{
	return conq_journal_replay_opts(dir, NULL, fn, ctx, NULL);
}
