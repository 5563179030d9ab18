/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/journal/faultfs.c - the in-memory, fault-injecting conq_journal_io
 * (faultfs.h says what it models).
 */
#include "faultfs.h"
#include "jtest.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Files larger than this are refused (-EFBIG): a journal writing at a wild
 * offset should fail, not exhaust memory. */
#define FAULTFS_MAX_FILE ((uint64_t)1 << 30)

struct pwrite_rec {
	uint64_t gseq; /* global write number: orders the writes of all files */
	uint64_t off;
	size_t len;
	unsigned char *data;
};

struct image {
	unsigned char *bytes;
	size_t size;
	size_t cap;
};

struct ffile {
	char *path;
	struct image cur; /* volatile: what a buffered pread sees */
	struct image dur; /* durable */
	/* On the disk: dur with the pending writes applied, what a direct
	 * pread sees. It differs from cur only once a failed datasync dropped
	 * pending writes (LOSE_ON_SYNC_FAIL): until then (lost == 0) disk is
	 * unused and cur stands for it; from then on every pwrite lands in
	 * both, a successful datasync leaves disk equal to dur. Bytes past
	 * disk.size, up to cur.size, read as zeros. */
	struct image disk;
	int lost;
	struct pwrite_rec *pend;
	size_t npend, pend_cap;
	int entry_durable;
};

struct handle {
	int used;
	int direct;
	size_t file;
};

struct faultfs {
	conq_journal_io io;
	pthread_mutex_t mu;
	unsigned ss;
	unsigned flags;
	char **dirs;
	size_t ndirs;
	struct ffile **files;
	size_t nfiles, files_cap;
	struct handle *h;
	size_t nh;
	uint64_t gseq;
	faultfs_stats st;
	uint64_t fail_pwrite_nth, fail_sync_nth, fail_from_nth;
	int fail_pwrite_err, fail_sync_err, fail_from_err;
	uint64_t crash_after;
	int crashed;
	faultfs_snapshot *snap;
};

struct sfile {
	char *path;
	int entry_durable;
	unsigned char *dur;
	size_t dur_size;
	struct pwrite_rec *pend;
	size_t npend;
};

struct faultfs_snapshot {
	unsigned ss;
	char **dirs;
	size_t ndirs;
	struct sfile *files;
	size_t nfiles;
	size_t nwrites;
	size_t npairs;
};

/* ---- small helpers ---- */

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* Collapse repeated '/', drop a trailing one (not a lone "/"). */
static char *norm_path(const char *p)
{
	size_t n = strlen(p);
	char *d = malloc(n + 1);
	size_t k = 0;
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '/' && k > 0 && d[k - 1] == '/')
			continue;
		d[k++] = p[i];
	}
	if (k > 1 && d[k - 1] == '/')
		k--;
	d[k] = '\0';
	return d;
}

/* Length of the directory part of path ("a/b/c" -> 3), 0 when none. */
static size_t dir_len(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? (size_t)(s - path) : 0;
}

static int in_dir(const char *path, const char *dir)
{
	size_t dl = strlen(dir);
	return dir_len(path) == dl && strncmp(path, dir, dl) == 0;
}

static int image_reserve(struct image *im, size_t need)
{
	if (need <= im->cap)
		return 0;
	size_t cap = im->cap ? im->cap : 4096;
	while (cap < need)
		cap *= 2;
	unsigned char *b = realloc(im->bytes, cap);
	if (!b)
		return -ENOMEM;
	im->bytes = b;
	im->cap = cap;
	return 0;
}

/* Copy len bytes at off (data NULL: zeros), extending with zeros. */
static int image_write(struct image *im, uint64_t off, const void *data,
		       size_t len)
{
	if (off > FAULTFS_MAX_FILE || len > FAULTFS_MAX_FILE - off)
		return -EFBIG;
	if (len == 0) /* writes nothing, extends nothing */
		return 0;
	size_t o = (size_t)off, end = o + len;
	int rc = image_reserve(im, end);
	if (rc)
		return rc;
	if (o > im->size)
		memset(im->bytes + im->size, 0, o - im->size);
	if (data)
		memcpy(im->bytes + o, data, len);
	else
		memset(im->bytes + o, 0, len);
	if (end > im->size)
		im->size = end;
	return 0;
}

static void image_free(struct image *im)
{
	free(im->bytes);
	im->bytes = NULL;
	im->size = im->cap = 0;
}

static void pend_clear(struct ffile *f)
{
	for (size_t i = 0; i < f->npend; i++)
		free(f->pend[i].data);
	f->npend = 0;
}

static void ffile_free(struct ffile *f)
{
	if (!f)
		return;
	pend_clear(f);
	free(f->pend);
	image_free(&f->cur);
	image_free(&f->dur);
	image_free(&f->disk);
	free(f->path);
	free(f);
}

static int find_dir(const faultfs *fs, const char *dir)
{
	for (size_t i = 0; i < fs->ndirs; i++)
		if (strcmp(fs->dirs[i], dir) == 0)
			return 1;
	return 0;
}

static int dir_of_exists(const faultfs *fs, const char *path)
{
	size_t dl = dir_len(path);
	if (dl == 0)
		return strchr(path, '/') == NULL; /* "name" or "/name" */
	for (size_t i = 0; i < fs->ndirs; i++)
		if (strlen(fs->dirs[i]) == dl &&
		    strncmp(fs->dirs[i], path, dl) == 0)
			return 1;
	return 0;
}

static long find_file(const faultfs *fs, const char *path)
{
	for (size_t i = 0; i < fs->nfiles; i++)
		if (strcmp(fs->files[i]->path, path) == 0)
			return (long)i;
	return -1;
}

static int add_file(faultfs *fs, struct ffile *f)
{
	if (fs->nfiles == fs->files_cap) {
		size_t cap = fs->files_cap ? fs->files_cap * 2 : 8;
		struct ffile **n = realloc(fs->files, cap * sizeof *n);
		if (!n)
			return -ENOMEM;
		fs->files = n;
		fs->files_cap = cap;
	}
	fs->files[fs->nfiles++] = f;
	return 0;
}

static int add_dir(faultfs *fs, const char *dir)
{
	if (find_dir(fs, dir))
		return 0;
	char **n = realloc(fs->dirs, (fs->ndirs + 1) * sizeof *n);
	if (!n)
		return -ENOMEM;
	fs->dirs = n;
	n[fs->ndirs] = dup_str(dir);
	if (!n[fs->ndirs])
		return -ENOMEM;
	fs->ndirs++;
	return 0;
}

/* ---- the snapshot ---- */

static void snap_free(faultfs_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ndirs; i++)
		free(s->dirs[i]);
	free(s->dirs);
	for (size_t i = 0; i < s->nfiles; i++) {
		struct sfile *f = &s->files[i];
		free(f->path);
		free(f->dur);
		for (size_t k = 0; k < f->npend; k++)
			free(f->pend[k].data);
		free(f->pend);
	}
	free(s->files);
	free(s);
}

static size_t pairs_of(uint64_t off, size_t len, unsigned ss)
{
	if (len == 0)
		return 0;
	return (size_t)((off + len - 1) / ss - off / ss + 1);
}

/* Copy the durable state and the pending writes (the lock held). */
static faultfs_snapshot *snap_take(const faultfs *fs)
{
	faultfs_snapshot *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->ss = fs->ss;
	s->dirs = calloc(fs->ndirs ? fs->ndirs : 1, sizeof *s->dirs);
	s->files = calloc(fs->nfiles ? fs->nfiles : 1, sizeof *s->files);
	if (!s->dirs || !s->files)
		goto fail;
	for (size_t i = 0; i < fs->ndirs; i++) {
		s->dirs[i] = dup_str(fs->dirs[i]);
		if (!s->dirs[i])
			goto fail;
		s->ndirs++;
	}
	for (size_t i = 0; i < fs->nfiles; i++) {
		const struct ffile *f = fs->files[i];
		struct sfile *d = &s->files[i];
		s->nfiles++;
		d->path = dup_str(f->path);
		d->entry_durable = f->entry_durable;
		d->dur_size = f->dur.size;
		d->dur = malloc(f->dur.size ? f->dur.size : 1);
		d->pend = calloc(f->npend ? f->npend : 1, sizeof *d->pend);
		if (!d->path || !d->dur || !d->pend)
			goto fail;
		if (f->dur.size)
			memcpy(d->dur, f->dur.bytes, f->dur.size);
		for (size_t k = 0; k < f->npend; k++) {
			const struct pwrite_rec *w = &f->pend[k];
			struct pwrite_rec *c = &d->pend[k];
			*c = *w;
			c->data = malloc(w->len ? w->len : 1);
			if (!c->data)
				goto fail;
			d->npend++;
			if (w->len)
				memcpy(c->data, w->data, w->len);
			s->nwrites++;
			s->npairs += pairs_of(w->off, w->len, fs->ss);
		}
	}
	return s;
fail:
	snap_free(s);
	return NULL;
}

static void freeze(faultfs *fs)
{
	if (fs->crashed)
		return;
	fs->snap = snap_take(fs);
	if (!fs->snap) {
		fputs("faultfs: out of memory taking the crash snapshot\n",
		      stderr);
		abort();
	}
	fs->crashed = 1;
}

/* ---- the I/O layer ---- */

/* Count the call and decide whether it fails: 0 to go on, else -errno. */
static int enter(faultfs *fs, uint64_t *kind)
{
	fs->st.calls++;
	(*kind)++;
	if (fs->crashed) {
		fs->st.after_crash++;
		return -EIO;
	}
	if (fs->fail_from_nth && fs->st.calls >= fs->fail_from_nth) {
		fs->st.faults++;
		return -fs->fail_from_err;
	}
	return 0;
}

static struct ffile *get_handle(faultfs *fs, int h, int *direct)
{
	if (h < 0 || (size_t)h >= fs->nh || !fs->h[h].used) {
		fs->st.bad_handles++;
		return NULL;
	}
	if (direct)
		*direct = fs->h[h].direct;
	return fs->files[fs->h[h].file];
}

static int io_open(void *self, const char *path, int create, int direct)
{
	faultfs *fs = self;
	int rc;
	char *p = norm_path(path);
	if (!p)
		return -ENOMEM;
	pthread_mutex_lock(&fs->mu);
	rc = enter(fs, &fs->st.opens);
	if (rc)
		goto out;
	if (direct && (fs->flags & FAULTFS_REFUSE_DIRECT)) {
		rc = -EINVAL;
		goto out;
	}
	long fi = find_file(fs, p);
	if (fi < 0) {
		if (!create || !dir_of_exists(fs, p)) {
			rc = -ENOENT;
			goto out;
		}
		struct ffile *f = calloc(1, sizeof *f);
		if (!f) {
			rc = -ENOMEM;
			goto out;
		}
		f->path = p;
		p = NULL;
		rc = add_file(fs, f);
		if (rc) {
			ffile_free(f);
			goto out;
		}
		fi = (long)fs->nfiles - 1;
	}
	size_t hi = 0;
	while (hi < fs->nh && fs->h[hi].used)
		hi++;
	if (hi == fs->nh) {
		struct handle *n = realloc(fs->h, (fs->nh + 1) * sizeof *n);
		if (!n) {
			rc = -ENOMEM;
			goto out;
		}
		fs->h = n;
		fs->nh++;
	}
	fs->h[hi].used = 1;
	fs->h[hi].direct = direct != 0;
	fs->h[hi].file = (size_t)fi;
	fs->st.open_handles++;
	rc = (int)hi;
out:
	pthread_mutex_unlock(&fs->mu);
	free(p);
	return rc;
}

static int io_close(void *self, int h)
{
	faultfs *fs = self;
	pthread_mutex_lock(&fs->mu);
	int rc = enter(fs, &fs->st.closes);
	/* The handle goes whatever the result, as close(2)'s does. */
	if (!get_handle(fs, h, NULL)) {
		rc = -EBADF;
	} else {
		fs->h[h].used = 0;
		fs->st.open_handles--;
	}
	pthread_mutex_unlock(&fs->mu);
	return rc;
}

static int misaligned(const faultfs *fs, const void *buf, size_t len,
		      uint64_t off)
{
	return off % fs->ss || len % fs->ss || (uintptr_t)buf % fs->ss;
}

static int64_t io_pread(void *self, int h, void *buf, size_t len,
			uint64_t off)
{
	faultfs *fs = self;
	int64_t rc;
	int direct = 0;
	pthread_mutex_lock(&fs->mu);
	rc = enter(fs, &fs->st.preads);
	if (rc)
		goto out;
	struct ffile *f = get_handle(fs, h, &direct);
	if (!f) {
		rc = -EBADF;
		goto out;
	}
	if (direct && misaligned(fs, buf, len, off)) {
		fs->st.misaligned++;
		rc = -EINVAL;
		goto out;
	}
	/* The size is the inode's (cur), whatever the handle. */
	if (off >= f->cur.size) {
		rc = 0;
		goto out;
	}
	size_t o = (size_t)off;
	size_t n = f->cur.size - o;
	if (n > len)
		n = len;
	if (direct && f->lost) {
		/* The disk, not the pages a failed datasync dropped (Linux
		 * writes back the dirty pages in the range first: the pending
		 * writes are on the disk, durable or not). */
		const struct image *d = &f->disk;
		size_t k = o >= d->size ? 0 : d->size - o;
		if (k > n)
			k = n;
		if (k)
			memcpy(buf, d->bytes + o, k);
		memset((unsigned char *)buf + k, 0, n - k);
	} else {
		memcpy(buf, f->cur.bytes + o, n);
	}
	rc = (int64_t)n;
out:
	pthread_mutex_unlock(&fs->mu);
	return rc;
}

/* Note what a write does to durable non-zero bytes (the stats). */
static void note_rewrite(faultfs *fs, const struct ffile *f,
			 const unsigned char *data, size_t len, uint64_t off)
{
	if (off >= f->dur.size)
		return;
	size_t o = (size_t)off;
	size_t n = f->dur.size - o < len ? f->dur.size - o : len;
	int nonzero = 0, differs = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char d = f->dur.bytes[o + i];
		if (d) {
			nonzero = 1;
			if (d != data[i]) {
				differs = 1;
				break;
			}
		}
	}
	if (differs)
		fs->st.durable_rewrites++;
	else if (nonzero)
		fs->st.durable_same_rewrites++;
}

static int64_t io_pwrite(void *self, int h, const void *buf, size_t len,
			 uint64_t off)
{
	faultfs *fs = self;
	int64_t rc;
	int direct = 0;
	pthread_mutex_lock(&fs->mu);
	rc = enter(fs, &fs->st.pwrites);
	if (rc)
		goto out;
	if (fs->fail_pwrite_nth && fs->st.pwrites == fs->fail_pwrite_nth) {
		fs->st.faults++;
		rc = -fs->fail_pwrite_err;
		goto out;
	}
	struct ffile *f = get_handle(fs, h, &direct);
	if (!f) {
		rc = -EBADF;
		goto out;
	}
	if (direct && misaligned(fs, buf, len, off)) {
		fs->st.misaligned++;
		rc = -EINVAL;
		goto out;
	}
	if (off > FAULTFS_MAX_FILE || len > FAULTFS_MAX_FILE - off) {
		rc = -EFBIG;
		goto out;
	}
	if (f->npend == f->pend_cap) {
		size_t cap = f->pend_cap ? f->pend_cap * 2 : 16;
		struct pwrite_rec *n = realloc(f->pend, cap * sizeof *n);
		if (!n) {
			rc = -ENOMEM;
			goto out;
		}
		f->pend = n;
		f->pend_cap = cap;
	}
	struct pwrite_rec *w = &f->pend[f->npend];
	w->data = malloc(len ? len : 1);
	if (!w->data) {
		rc = -ENOMEM;
		goto out;
	}
	/* Room on the disk image first: once cur is written, nothing fails. */
	rc = f->lost && len ? image_reserve(&f->disk, (size_t)(off + len)) : 0;
	if (!rc)
		rc = image_write(&f->cur, off, buf, len);
	if (rc) {
		free(w->data);
		goto out;
	}
	if (f->lost)
		(void)image_write(&f->disk, off, buf, len);
	if (len)
		memcpy(w->data, buf, len);
	w->off = off;
	w->len = len;
	w->gseq = ++fs->gseq;
	f->npend++;
	note_rewrite(fs, f, buf, len, off);
	fs->st.bytes_written += len;
	rc = (int64_t)len;
	if (fs->crash_after && fs->st.pwrites == fs->crash_after)
		freeze(fs);
out:
	pthread_mutex_unlock(&fs->mu);
	return rc;
}

static int io_datasync(void *self, int h)
{
	faultfs *fs = self;
	pthread_mutex_lock(&fs->mu);
	int rc = enter(fs, &fs->st.datasyncs);
	if (rc)
		goto out;
	struct ffile *f = get_handle(fs, h, NULL);
	if (!f) {
		rc = -EBADF;
		goto out;
	}
	if (fs->fail_sync_nth && fs->st.datasyncs == fs->fail_sync_nth) {
		fs->st.faults++;
		rc = -fs->fail_sync_err;
		/* Linux: the dirty pages are marked clean after a writeback
		 * error; the data stays readable but never reaches the disk. */
		if (fs->flags & FAULTFS_LOSE_ON_SYNC_FAIL) {
			/* What is on the disk is the durable image now. */
			f->disk.size = 0;
			if (image_write(&f->disk, 0, f->dur.bytes,
					f->dur.size)) {
				fputs("faultfs: out of memory dropping pending "
				      "writes\n",
				      stderr);
				abort();
			}
			f->lost = 1;
			pend_clear(f);
		}
		goto out;
	}
	for (size_t i = 0; i < f->npend; i++) {
		const struct pwrite_rec *w = &f->pend[i];
		rc = image_write(&f->dur, w->off, w->data, w->len);
		if (rc)
			goto out;
	}
	pend_clear(f);
	f->entry_durable = 1;
out:
	pthread_mutex_unlock(&fs->mu);
	return rc;
}

static int64_t io_size(void *self, int h)
{
	faultfs *fs = self;
	pthread_mutex_lock(&fs->mu);
	int64_t rc = enter(fs, &fs->st.sizes);
	if (!rc) {
		struct ffile *f = get_handle(fs, h, NULL);
		rc = f ? (int64_t)f->cur.size : -EBADF;
	}
	pthread_mutex_unlock(&fs->mu);
	return rc;
}

static int io_list(void *self, const char *dir,
		   int (*fn)(void *ctx, const char *name), void *ctx)
{
	faultfs *fs = self;
	char **names = NULL;
	size_t n = 0;
	char *d = norm_path(dir);
	if (!d)
		return -ENOMEM;
	pthread_mutex_lock(&fs->mu);
	int rc = enter(fs, &fs->st.lists);
	if (!rc && !find_dir(fs, d))
		rc = -ENOENT;
	if (!rc) {
		names = calloc(fs->nfiles ? fs->nfiles : 1, sizeof *names);
		if (!names)
			rc = -ENOMEM;
	}
	/* Reverse creation order. */
	for (size_t i = fs->nfiles; !rc && i-- > 0;) {
		const char *p = fs->files[i]->path;
		if (!in_dir(p, d))
			continue;
		names[n] = dup_str(p + dir_len(p) + (dir_len(p) || *p == '/'));
		if (!names[n])
			rc = -ENOMEM;
		else
			n++;
	}
	pthread_mutex_unlock(&fs->mu);
	/* fn runs unlocked: it may call back into the layer. */
	for (size_t i = 0; i < n; i++) {
		if (!rc)
			rc = fn(ctx, names[i]);
		free(names[i]);
	}
	free(names);
	free(d);
	return rc;
}

static int io_sync_dir(void *self, const char *dir)
{
	faultfs *fs = self;
	char *d = norm_path(dir);
	if (!d)
		return -ENOMEM;
	pthread_mutex_lock(&fs->mu);
	int rc = enter(fs, &fs->st.sync_dirs);
	if (!rc && !find_dir(fs, d))
		rc = -ENOENT;
	for (size_t i = 0; !rc && i < fs->nfiles; i++)
		if (in_dir(fs->files[i]->path, d))
			fs->files[i]->entry_durable = 1;
	pthread_mutex_unlock(&fs->mu);
	free(d);
	return rc;
}

static int io_fd(void *self, int h)
{
	(void)self;
	(void)h;
	return -1;
}

/* ---- public ---- */

faultfs *faultfs_new(unsigned sector_size, unsigned flags)
{
	faultfs *fs = calloc(1, sizeof *fs);
	if (!fs) {
		errno = ENOMEM;
		return NULL;
	}
	if (pthread_mutex_init(&fs->mu, NULL)) {
		free(fs);
		errno = ENOMEM;
		return NULL;
	}
	fs->ss = sector_size ? sector_size : 512;
	fs->flags = flags;
	fs->io.self = fs;
	fs->io.open = io_open;
	fs->io.close = io_close;
	fs->io.pread = io_pread;
	fs->io.pwrite = io_pwrite;
	fs->io.datasync = io_datasync;
	fs->io.size = io_size;
	fs->io.list = io_list;
	fs->io.sync_dir = io_sync_dir;
	fs->io.fd = io_fd;
	return fs;
}

void faultfs_free(faultfs *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->nfiles; i++)
		ffile_free(fs->files[i]);
	free(fs->files);
	for (size_t i = 0; i < fs->ndirs; i++)
		free(fs->dirs[i]);
	free(fs->dirs);
	free(fs->h);
	snap_free(fs->snap);
	pthread_mutex_destroy(&fs->mu);
	free(fs);
}

const conq_journal_io *faultfs_io(faultfs *fs)
{
	return &fs->io;
}

int faultfs_mkdir(faultfs *fs, const char *dir)
{
	char *d = norm_path(dir);
	if (!d)
		return -ENOMEM;
	pthread_mutex_lock(&fs->mu);
	int rc = add_dir(fs, d);
	pthread_mutex_unlock(&fs->mu);
	free(d);
	return rc;
}

void faultfs_fail_pwrite(faultfs *fs, uint64_t nth, int err)
{
	pthread_mutex_lock(&fs->mu);
	fs->fail_pwrite_nth = nth;
	fs->fail_pwrite_err = err;
	pthread_mutex_unlock(&fs->mu);
}

void faultfs_fail_datasync(faultfs *fs, uint64_t nth, int err)
{
	pthread_mutex_lock(&fs->mu);
	fs->fail_sync_nth = nth;
	fs->fail_sync_err = err;
	pthread_mutex_unlock(&fs->mu);
}

void faultfs_fail_from(faultfs *fs, uint64_t nth_call, int err)
{
	pthread_mutex_lock(&fs->mu);
	fs->fail_from_nth = nth_call;
	fs->fail_from_err = err;
	pthread_mutex_unlock(&fs->mu);
}

void faultfs_clear_faults(faultfs *fs)
{
	pthread_mutex_lock(&fs->mu);
	fs->fail_pwrite_nth = fs->fail_sync_nth = fs->fail_from_nth = 0;
	pthread_mutex_unlock(&fs->mu);
}

void faultfs_crash_after_pwrite(faultfs *fs, uint64_t nth)
{
	pthread_mutex_lock(&fs->mu);
	fs->crash_after = nth;
	if (nth && fs->st.pwrites >= nth)
		freeze(fs);
	pthread_mutex_unlock(&fs->mu);
}

void faultfs_crash_now(faultfs *fs)
{
	pthread_mutex_lock(&fs->mu);
	freeze(fs);
	pthread_mutex_unlock(&fs->mu);
}

int faultfs_crashed(faultfs *fs)
{
	pthread_mutex_lock(&fs->mu);
	int c = fs->crashed;
	pthread_mutex_unlock(&fs->mu);
	return c;
}

faultfs_snapshot *faultfs_take_snapshot(faultfs *fs)
{
	pthread_mutex_lock(&fs->mu);
	faultfs_snapshot *s = fs->snap;
	fs->snap = NULL;
	pthread_mutex_unlock(&fs->mu);
	return s;
}

faultfs_snapshot *faultfs_snapshot_now(faultfs *fs)
{
	pthread_mutex_lock(&fs->mu);
	faultfs_snapshot *s = snap_take(fs);
	pthread_mutex_unlock(&fs->mu);
	return s;
}

void faultfs_snapshot_free(faultfs_snapshot *s)
{
	snap_free(s);
}

size_t faultfs_snapshot_pending_sectors(const faultfs_snapshot *s)
{
	return s->npairs;
}

size_t faultfs_snapshot_pending_writes(const faultfs_snapshot *s)
{
	return s->nwrites;
}

void faultfs_snapshot_dump(const faultfs_snapshot *s, void *stdio_file)
{
	FILE *out = stdio_file;
	fprintf(out, "snapshot: %zu files, %zu pending writes, %zu pairs\n",
		s->nfiles, s->nwrites, s->npairs);
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct sfile *f = &s->files[i];
		fprintf(out, "  %s: durable size %zu%s\n", f->path, f->dur_size,
			f->entry_durable ? "" : " (entry not durable)");
		for (size_t k = 0; k < f->npend; k++)
			fprintf(out,
				"    write #%llu: off %llu len %zu (sectors "
				"%llu..%llu)\n",
				(unsigned long long)f->pend[k].gseq,
				(unsigned long long)f->pend[k].off,
				f->pend[k].len,
				(unsigned long long)(f->pend[k].off / s->ss),
				(unsigned long long)((f->pend[k].off +
						      f->pend[k].len - 1) /
						     s->ss));
	}
}

/* One pending write, by global order. */
struct wref {
	uint64_t gseq;
	size_t file;
	const struct pwrite_rec *w;
};

static int wref_cmp(const void *a, const void *b)
{
	const struct wref *x = a, *y = b;
	return x->gseq < y->gseq ? -1 : x->gseq > y->gseq;
}

faultfs *faultfs_from_snapshot(const faultfs_snapshot *s,
			       const faultfs_crash *crash, unsigned flags,
			       faultfs_crash_info *info)
{
	faultfs *fs = faultfs_new(s->ss, flags);
	struct wref *ws = NULL;
	struct image *im = NULL;
	uint64_t rng = crash->seed ^ 0x5851f42d4c957f2du;
	unsigned keep = crash->keep_permille ? crash->keep_permille : 500;
	size_t kept = 0, flip_pair = SIZE_MAX, pair = 0, flip_file = 0;
	uint64_t flip_off = 0;
	unsigned flip_bit = 0;
	if (!fs)
		return NULL;
	if (info)
		memset(info, 0, sizeof *info);
	for (size_t i = 0; i < s->ndirs; i++)
		if (add_dir(fs, s->dirs[i]))
			goto fail;
	ws = calloc(s->nwrites ? s->nwrites : 1, sizeof *ws);
	im = calloc(s->nfiles ? s->nfiles : 1, sizeof *im);
	if (!ws || !im)
		goto fail;
	size_t nw = 0;
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct sfile *f = &s->files[i];
		if (f->dur_size && image_write(&im[i], 0, f->dur, f->dur_size))
			goto fail;
		for (size_t k = 0; k < f->npend; k++) {
			ws[nw].gseq = f->pend[k].gseq;
			ws[nw].file = i;
			ws[nw].w = &f->pend[k];
			nw++;
		}
	}
	qsort(ws, nw, sizeof *ws, wref_cmp);
	if (crash->mode == FAULTFS_FLIP && s->npairs)
		flip_pair = (size_t)(jt_splitmix(&rng) % s->npairs);
	for (size_t i = 0; i < nw; i++) {
		const struct pwrite_rec *w = ws[i].w;
		struct image *m = &im[ws[i].file];
		if (!w->len)
			continue;
		uint64_t end = w->off + w->len;
		for (uint64_t sec = w->off / s->ss; sec * s->ss < end;
		     sec++, pair++) {
			uint64_t a = sec * s->ss > w->off ? sec * s->ss : w->off;
			uint64_t b = (sec + 1) * s->ss < end ? (sec + 1) * s->ss
							      : end;
			int k = 0;
			switch (crash->mode) {
			case FAULTFS_DROP:
				break;
			case FAULTFS_KEEP:
			case FAULTFS_FLIP:
				k = 1;
				break;
			case FAULTFS_TEAR_PREFIX:
				k = pair < crash->prefix;
				break;
			case FAULTFS_TEAR_RANDOM:
				k = jt_splitmix(&rng) % 1000 < keep;
				break;
			case FAULTFS_ZERO:
				if (image_write(m, a, NULL, (size_t)(b - a)))
					goto fail;
				break;
			}
			if (k) {
				kept++;
				if (image_write(m, a, w->data + (a - w->off),
						(size_t)(b - a)))
					goto fail;
			}
			if (pair == flip_pair) {
				flip_file = ws[i].file;
				flip_off = a + jt_splitmix(&rng) % (b - a);
				flip_bit = (unsigned)(jt_splitmix(&rng) % 8);
			}
		}
	}
	/* The flip goes onto the final image (a later pair may have written
	 * the byte again: it is still a byte that a pending write wrote). */
	if (flip_pair != SIZE_MAX) {
		im[flip_file].bytes[flip_off] ^= (unsigned char)(1u << flip_bit);
		if (info) {
			snprintf(info->flip_path, sizeof info->flip_path, "%s",
				 s->files[flip_file].path);
			info->flip_off = flip_off;
			info->flip_bit = flip_bit;
		}
	}
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct sfile *f = &s->files[i];
		if (crash->mode == FAULTFS_DROP && !f->entry_durable)
			continue;
		struct ffile *nf = calloc(1, sizeof *nf);
		if (!nf)
			goto fail;
		nf->path = dup_str(f->path);
		nf->entry_durable = 1;
		nf->cur = im[i];
		memset(&im[i], 0, sizeof im[i]);
		if (!nf->path || add_file(fs, nf) ||
		    image_write(&nf->dur, 0, nf->cur.bytes, nf->cur.size)) {
			ffile_free(nf);
			goto fail;
		}
	}
	if (info) {
		info->kept = kept;
		info->pending = s->npairs;
	}
	for (size_t i = 0; i < s->nfiles; i++)
		image_free(&im[i]);
	free(im);
	free(ws);
	return fs;
fail:
	if (im)
		for (size_t i = 0; i < s->nfiles; i++)
			image_free(&im[i]);
	free(im);
	free(ws);
	faultfs_free(fs);
	errno = ENOMEM;
	return NULL;
}

void faultfs_get_stats(faultfs *fs, faultfs_stats *out)
{
	pthread_mutex_lock(&fs->mu);
	*out = fs->st;
	pthread_mutex_unlock(&fs->mu);
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int faultfs_walk(faultfs *fs, const char *dir,
		 int (*fn)(void *ctx, const char *path, uint64_t size),
		 void *ctx)
{
	char *d = dir ? norm_path(dir) : NULL;
	if (dir && !d)
		return -ENOMEM;
	pthread_mutex_lock(&fs->mu);
	size_t n = 0;
	char **paths = calloc(fs->nfiles ? fs->nfiles : 1, sizeof *paths);
	uint64_t *sizes = calloc(fs->nfiles ? fs->nfiles : 1, sizeof *sizes);
	int rc = paths && sizes ? 0 : -ENOMEM;
	for (size_t i = 0; !rc && i < fs->nfiles; i++) {
		if (d && !in_dir(fs->files[i]->path, d))
			continue;
		paths[n] = dup_str(fs->files[i]->path);
		if (!paths[n]) {
			rc = -ENOMEM;
			break;
		}
		n++;
	}
	pthread_mutex_unlock(&fs->mu);
	if (!rc)
		qsort(paths, n, sizeof *paths, path_cmp);
	for (size_t i = 0; i < n; i++) {
		if (!rc) {
			pthread_mutex_lock(&fs->mu);
			long fi = find_file(fs, paths[i]);
			sizes[i] = fi < 0 ? 0 : fs->files[fi]->cur.size;
			pthread_mutex_unlock(&fs->mu);
			rc = fn(ctx, paths[i], sizes[i]);
		}
		free(paths[i]);
	}
	free(paths);
	free(sizes);
	free(d);
	return rc;
}

int64_t faultfs_peek(faultfs *fs, const char *path, uint64_t off, void *buf,
		     size_t len)
{
	char *p = norm_path(path);
	int64_t rc = -1;
	if (!p)
		return -1;
	pthread_mutex_lock(&fs->mu);
	long fi = find_file(fs, p);
	if (fi >= 0) {
		const struct image *im = &fs->files[fi]->cur;
		size_t n = off >= im->size ? 0 : im->size - (size_t)off;
		if (n > len)
			n = len;
		if (n)
			memcpy(buf, im->bytes + off, n);
		rc = (int64_t)n;
	}
	pthread_mutex_unlock(&fs->mu);
	free(p);
	return rc;
}

int faultfs_corrupt(faultfs *fs, const char *path, uint64_t off,
		    unsigned char mask)
{
	char *p = norm_path(path);
	int rc = -1;
	if (!p)
		return -1;
	pthread_mutex_lock(&fs->mu);
	long fi = find_file(fs, p);
	if (fi >= 0) {
		struct ffile *f = fs->files[fi];
		if (off < f->cur.size) {
			f->cur.bytes[off] ^= mask;
			rc = 0;
		}
		if (off < f->dur.size) {
			f->dur.bytes[off] ^= mask;
			rc = 0;
		}
		if (f->lost && off < f->disk.size)
			f->disk.bytes[off] ^= mask;
		for (size_t i = 0; i < f->npend; i++) {
			struct pwrite_rec *w = &f->pend[i];
			if (off >= w->off && off - w->off < w->len)
				w->data[off - w->off] ^= mask;
		}
	}
	pthread_mutex_unlock(&fs->mu);
	free(p);
	return rc;
}

const char *faultfs_mode_name(enum faultfs_mode m)
{
	switch (m) {
	case FAULTFS_DROP:
		return "drop";
	case FAULTFS_KEEP:
		return "keep";
	case FAULTFS_TEAR_PREFIX:
		return "tear-prefix";
	case FAULTFS_TEAR_RANDOM:
		return "tear-random";
	case FAULTFS_FLIP:
		return "flip";
	case FAULTFS_ZERO:
		return "zero";
	}
	return "?";
}
