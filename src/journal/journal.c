/* SPDX-License-Identifier: BSD-2-Clause */
/* src/journal/journal.c - conq_journal: producers, the appender thread and
 * the completion thread (conq/journal.h has the contract, docs/design.md
 * "The journal" the design).
 *
 * Every shared field is under j->lock: producers copy their record into the
 * filling buffer under it (a 4 KiB record costs a memcpy and a CRC, well
 * under a microsecond, against 100+ us per sync), and the two threads take
 * it only to change a buffer's state. No atomics, so no pairing table: the
 * mutex orders everything (docs/memory-model.md, "The journal").
 *
 * A buffer goes FREE -> FILL (producers append; it has a file and offset)
 * -> SEALED (full, or the appender took it) -> INFLIGHT (a write) -> DONE
 * (the write completed) -> FREE again once the completion thread has
 * datasync'd its file and run its records' done functions. Buffers sit in
 * `order` (a ring, in sequence order) from FILL until FREE; the appender
 * submits them in that order and the completion thread retires them in that
 * order, so done functions run in sequence order. A batch is whatever is in
 * the filling buffer when no write is in flight (or when it is full, or its
 * timeout expired): group commit without a timer.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jinternal.h"

enum { B_FREE, B_FILL, B_SEALED, B_INFLIGHT, B_DONE };
enum { F_FREE, F_USED, F_CUR, F_RELEASING };

struct jrec {
	conq_journal_done_fn done;
	void *ctx;
	uint64_t seq;
};

struct jbuf {
	unsigned char *mem;
	size_t used;
	int state;
	int new_file;  /* the first buffer of its file: write the header */
	unsigned file; /* index in j->files */
	uint64_t off;
	struct jrec *recs;
	unsigned nrec;
	int64_t res; /* the write's result */
	int queued;  /* on the engine, not yet reaped */
	uint64_t t_first;
};

struct jfile {
	unsigned index; /* journal-<index>.cqj */
	int handle;
	int fd; /* for the engines; -1 */
	int direct;
	uint64_t size;
	uint64_t id;
	uint64_t first_seq;
	uint64_t end_seq; /* the seq after its last record (once not CUR) */
	int state;
	int hdr_ok; /* its header is written and synced (JD3) */
};

struct conq_journal {
	pthread_mutex_t lock;
	pthread_mutex_t release_lock; /* one release at a time */
	pthread_cond_t app_cv;	      /* the appender waits */
	pthread_cond_t poll_cv;	      /* the completion thread waits */
	pthread_cond_t space_cv;      /* producers wait: a buffer, a file */
	pthread_cond_t sync_cv;	      /* sync and close wait */

	char *dir;
	const conq_journal_io *io;
	uint32_t sector;
	uint64_t file_size;
	size_t buf_size;
	unsigned max_io;
	uint64_t timeout_ns;
	unsigned backend;
	struct jengine *eng;
	int direct_ok; /* O_DIRECT worked on the first file */

	struct jfile *files;
	unsigned nfiles, capfiles;
	int cur; /* the file being written, -1 before the first record */
	uint64_t cur_off;
	uint64_t next_id;

	uint64_t next_seq; /* the next append's */
	uint64_t synced;   /* every seq below is durable */
	uint64_t flush_upto;

	struct jbuf *bufs;
	unsigned nbuf;
	unsigned *order; /* ring of nbuf: [head, tail) */
	unsigned head, sub, tail;
	int fill;
	unsigned inflight;	 /* writes submitted, not yet DONE */
	unsigned async_inflight; /* of them, on the engine */

	int err;
	int closing;
	int stop;
	int need_file;
	int app_waiting;
	int poll_waiting;
	unsigned file_waiters; /* producers waiting for the appender's file */

	pthread_t appender, poller;
	conq_journal_stats st;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fail_locked(conq_journal *j, int err)
{
	if (!j->err) {
		j->err = err ? err : EIO;
		pthread_cond_broadcast(&j->app_cv);
		pthread_cond_broadcast(&j->poll_cv);
		pthread_cond_broadcast(&j->space_cv);
		pthread_cond_broadcast(&j->sync_cv);
	}
}

/* ------------------------------------------------------------- files --- */

static void *zalloc_aligned(size_t n)
{
	void *p = NULL;
	if (posix_memalign(&p, 4096, n) != 0)
		return NULL;
	memset(p, 0, n);
	return p;
}

/* Open an existing or new file; O_DIRECT where the layer and the file
 * system take sector-aligned I/O (a read probes it), else buffered. */
static int open_file(conq_journal *j, const char *path, int create,
		     int direct, int *handle, int *is_direct)
{
	const conq_journal_io *io = j->io;
	if (direct) {
		int h = io->open(io->self, path, create, 1);
		if (h >= 0) {
			unsigned char *p = zalloc_aligned(j->sector);
			if (!p) {
				io->close(io->self, h);
				return ENOMEM;
			}
			int64_t k = io->pread(io->self, h, p, j->sector, 0);
			free(p);
			if (k >= 0) {
				*handle = h;
				*is_direct = 1;
				return 0;
			}
			io->close(io->self, h);
		} else if (h != -EINVAL) {
			return -h;
		}
	}
	int h = io->open(io->self, path, create, 0);
	if (h < 0)
		return -h;
	*handle = h;
	*is_direct = 0;
	return 0;
}

static int add_file_slot(conq_journal *j)
{
	if (j->nfiles == j->capfiles) {
		unsigned cap = j->capfiles ? j->capfiles * 2 : 8;
		struct jfile *nf = realloc(j->files, cap * sizeof(*nf));
		if (!nf)
			return ENOMEM;
		j->files = nf;
		j->capfiles = cap;
	}
	return 0;
}

/* Create journal-<index>.cqj full of zeros, durable with its directory
 * entry. Called by open and by the appender, without j->lock; the new file
 * is added under it by the caller (*out). */
static int create_file(conq_journal *j, unsigned index, struct jfile *out)
{
	char name[JNAME_MAX], path[JPATH_MAX];
	snprintf(name, sizeof(name), JNAME_FMT, index);
	int err = -j_path(path, j->dir, name);
	if (err)
		return err;
	int h, direct;
	err = open_file(j, path, 1, j->direct_ok, &h, &direct);
	if (err)
		return err;
	const conq_journal_io *io = j->io;
	size_t chunk = (size_t)1 << 20;
	unsigned char *z = zalloc_aligned(chunk);
	if (!z) {
		io->close(io->self, h);
		return ENOMEM;
	}
	for (uint64_t off = 0; off < j->file_size && !err; off += chunk) {
		size_t n = j->file_size - off < chunk
				   ? (size_t)(j->file_size - off)
				   : chunk;
		int64_t k = io->pwrite(io->self, h, z, n, off);
		err = k < 0 ? (int)-k : (size_t)k != n ? EIO : 0;
	}
	free(z);
	if (!err) {
		int rc = io->datasync(io->self, h);
		if (rc == 0)
			rc = io->sync_dir(io->self, j->dir);
		err = rc < 0 ? -rc : 0;
	}
	if (err) {
		io->close(io->self, h);
		return err;
	}
	*out = (struct jfile){
		.index = index,
		.handle = h,
		.fd = io->fd(io->self, h),
		.direct = direct,
		.size = j->file_size,
		.state = F_FREE,
	};
	return 0;
}

static unsigned next_index(const conq_journal *j)
{
	unsigned ix = 0;
	for (unsigned i = 0; i < j->nfiles; i++)
		if (j->files[i].index >= ix)
			ix = j->files[i].index + 1;
	return ix;
}

static int count_free(const conq_journal *j)
{
	int n = 0;
	for (unsigned i = 0; i < j->nfiles; i++)
		n += j->files[i].state == F_FREE;
	return n;
}

/* A file's header sector: used (id, first seq) or free. */
static int write_header(conq_journal *j, struct jfile *f, uint64_t id,
			uint64_t first_seq, uint64_t last_id)
{
	unsigned char *p = zalloc_aligned(j->sector);
	if (!p)
		return ENOMEM;
	struct jf_header h = {
		.sector_size = j->sector,
		.file_size = f->size,
		.file_id = id,
		.first_seq = first_seq,
		.last_id = last_id,
	};
	jf_encode(p, &h);
	int64_t k = j->io->pwrite(j->io->self, f->handle, p, j->sector, 0);
	free(p);
	if (k < 0)
		return (int)-k;
	if (k != (int64_t)j->sector)
		return EIO;
	int rc = j->io->datasync(j->io->self, f->handle);
	return rc < 0 ? -rc : 0;
}

/* ---------------------------------------------------------- producers --- */

static int on_thread(pthread_t t)
{
	return pthread_equal(pthread_self(), t);
}

/* Take a free buffer into FILL at the current file position, rotating to a
 * free file when the record (rec bytes) does not fit. 0, or EAGAIN (wait
 * for a buffer), EINPROGRESS (wait for the appender to make a file), ENOSPC
 * (JFILES_MAX files, none free). */
static int start_buffer(conq_journal *j, uint64_t rec)
{
	unsigned bi = j->nbuf;
	for (unsigned i = 0; i < j->nbuf; i++)
		if (j->bufs[i].state == B_FREE) {
			bi = i;
			break;
		}
	if (bi == j->nbuf)
		return EAGAIN;
	int new_file = 0;
	if (j->cur < 0 || j->cur_off + rec > j->files[j->cur].size) {
		int fi = -1;
		for (unsigned i = 0; i < j->nfiles; i++)
			if (j->files[i].state == F_FREE &&
			    j->files[i].size >= j->sector + rec) {
				fi = (int)i;
				break;
			}
		if (fi < 0) {
			if (j->nfiles >= JFILES_MAX)
				return ENOSPC; /* release, then append again */
			j->need_file = 1;
			pthread_cond_signal(&j->app_cv);
			return EINPROGRESS; /* wait for the appender's file */
		}
		if (j->cur >= 0) {
			j->files[j->cur].state = F_USED;
			j->files[j->cur].end_seq = j->next_seq;
			j->st.rotations++;
		}
		struct jfile *f = &j->files[fi];
		f->state = F_CUR;
		f->id = j->next_id++;
		f->first_seq = j->next_seq;
		f->end_seq = 0;
		f->hdr_ok = 0;
		j->cur = fi;
		j->cur_off = j->sector;
		new_file = 1;
		if (count_free(j) == 0 && j->nfiles < JFILES_MAX) {
			/* make the next one ahead */
			j->need_file = 1;
			pthread_cond_signal(&j->app_cv);
		}
	}
	struct jbuf *b = &j->bufs[bi];
	b->state = B_FILL;
	b->used = 0;
	b->nrec = 0;
	b->new_file = new_file;
	b->file = (unsigned)j->cur;
	b->off = j->cur_off;
	b->t_first = j->timeout_ns ? now_ns() : 0;
	j->order[j->tail % j->nbuf] = bi;
	j->tail++;
	j->fill = (int)bi;
	return 0;
}

static void seal_locked(conq_journal *j)
{
	struct jbuf *b = &j->bufs[j->fill];
	j->cur_off += b->used;
	b->state = B_SEALED;
	j->fill = -1;
}

static void kick_locked(conq_journal *j);

int conq_journal_append(conq_journal *j, uint32_t type, const void *data,
			size_t len, conq_journal_done_fn done, void *ctx,
			uint64_t *seq)
{
	if (!j || (!data && len))
		return EINVAL;
	if (len > j->buf_size ||
	    j_pad(JR_HEADER_LEN + (uint64_t)len, j->sector) > j->buf_size ||
	    j_pad(JR_HEADER_LEN + (uint64_t)len, j->sector) + j->sector >
		    j->file_size)
		return EMSGSIZE;
	uint64_t rec = j_pad(JR_HEADER_LEN + (uint64_t)len, j->sector);
	int in_poller = on_thread(j->poller);

	pthread_mutex_lock(&j->lock);
	for (;;) {
		if (j->err || j->closing) {
			int e = j->err ? j->err : ESHUTDOWN;
			pthread_mutex_unlock(&j->lock);
			return e;
		}
		if (j->fill < 0) {
			int sb = start_buffer(j, rec);
			if (sb == ENOSPC) {
				/* JFILES_MAX files, none free: this record
				 * only; the journal goes on (release). */
				kick_locked(j);
				pthread_mutex_unlock(&j->lock);
				return sb;
			}
			if (sb != 0) {
				kick_locked(j); /* what we sealed */
				if (in_poller) { /* it would wait on itself */
					pthread_mutex_unlock(&j->lock);
					return EAGAIN;
				}
				j->file_waiters += sb == EINPROGRESS;
				pthread_cond_wait(&j->space_cv, &j->lock);
				j->file_waiters -= sb == EINPROGRESS;
				continue;
			}
		}
		struct jbuf *b = &j->bufs[j->fill];
		if (b->used + rec > j->buf_size ||
		    j->cur_off + b->used + rec > j->files[b->file].size) {
			seal_locked(j);
			continue;
		}
		break;
	}
	struct jbuf *b = &j->bufs[j->fill];
	struct jr_header h = {
		.len = (uint32_t)len,
		.type = type,
		.seq = j->next_seq++,
		.file_id = j->files[b->file].id,
		.durable = j->synced,
	};
	unsigned char *p = b->mem + b->used;
	if (len)
		memcpy(p + JR_HEADER_LEN, data, len);
	memset(p + JR_HEADER_LEN + len, 0, (size_t)rec - JR_HEADER_LEN - len);
	jr_encode(p, &h, p + JR_HEADER_LEN);
	b->used += (size_t)rec;
	b->recs[b->nrec++] = (struct jrec){done, ctx, h.seq};
	if (b->used == j->buf_size)
		seal_locked(j);
	kick_locked(j);
	pthread_mutex_unlock(&j->lock);
	if (seq)
		*seq = h.seq;
	return 0;
}

/* ----------------------------------------------------------- appender --- */

/* Submit buffer bi (INFLIGHT, counted), with the lock held; it is dropped
 * only around the blocking calls (a new file's header; psync's pwrite).
 * With an engine the write is queued under the lock, so submissions from
 * producers, the completion thread and the appender never interleave. */
static void submit(conq_journal *j, unsigned bi)
{
	struct jbuf *b = &j->bufs[bi];
	int64_t res;
	if (b->new_file) {
		struct jfile fc = j->files[b->file]; /* files may move */
		uint64_t seq0 = b->recs[0].seq;
		pthread_mutex_unlock(&j->lock);
		int err = write_header(j, &fc, fc.id, seq0, fc.id);
		pthread_mutex_lock(&j->lock);
		b->new_file = 0;
		if (err) {
			res = -err;
			goto done;
		}
		j->files[b->file].hdr_ok = 1; /* its later buffers may go */
		j->st.bytes += j->sector;
	}
	if (j->eng) {
		j->async_inflight++;
		int err = jengine_submit(j->eng, bi, j->files[b->file].fd,
					 b->mem, b->used, b->off, b);
		if (!err) {
			b->queued = 1;
			j->st.writes++;
			j->st.bytes += b->used;
			pthread_cond_signal(&j->poll_cv);
			return;
		}
		j->async_inflight--;
		res = -err;
		goto done;
	}
	/* psync: the buffer is the appender's until DONE. */
	int h = j->files[b->file].handle;
	const unsigned char *mem = b->mem;
	size_t len = b->used;
	uint64_t off = b->off;
	pthread_mutex_unlock(&j->lock);
	res = j->io->pwrite(j->io->self, h, mem, len, off);
	pthread_mutex_lock(&j->lock);
	if (res >= 0) {
		j->st.writes++;
		j->st.bytes += len;
	}
done:
	b->res = res;
	b->state = B_DONE;
	j->inflight--;
	pthread_cond_signal(&j->poll_cv);
}

/* The next buffer to write, marked INFLIGHT: the oldest sealed one while
 * fewer than max_io writes are in flight, or the filling one when no write
 * is (group commit), unless its timeout runs (*wait_ns: how long). -1 when
 * none. A new file's first buffer only when `header` (its header is a
 * blocking write: the appender's). */
static int pick_locked(conq_journal *j, int header, uint64_t *wait_ns)
{
	if (j->err || j->sub == j->tail)
		return -1;
	unsigned bi = j->order[j->sub % j->nbuf];
	struct jbuf *b = &j->bufs[bi];
	if (b->state == B_SEALED) {
		if (j->inflight >= j->max_io)
			return -1;
	} else if (b->state == B_FILL && b->used && j->inflight == 0) {
		if (j->timeout_ns && !j->closing &&
		    b->recs[0].seq >= j->flush_upto) {
			uint64_t t = now_ns();
			if (t - b->t_first < j->timeout_ns) {
				*wait_ns = j->timeout_ns - (t - b->t_first);
				return -1;
			}
		}
	} else {
		return -1;
	}
	if (b->new_file && !header) {
		pthread_cond_signal(&j->app_cv); /* it writes the header */
		return -1;
	}
	/* JD3: no buffer of a file before its header is on the disk (else a
	 * crash could keep records under an id no header holds, and the id
	 * could be given again). */
	if (!b->new_file && !j->files[b->file].hdr_ok)
		return -1;
	if (b->state == B_FILL)
		seal_locked(j);
	b->state = B_INFLIGHT;
	j->sub++;
	j->inflight++;
	return (int)bi;
}

/* After an append or a completion: with an engine, submit what is ready
 * from this thread (no hand-over to the appender on the way to the disk);
 * with psync, wake the appender, which writes. */
static int may_submit(const conq_journal *j)
{
	/* io_uring hands a write it cannot issue at once to a worker of the
	 * submitting thread, which cancels it (ECANCELED) when that thread
	 * exits: only the journal's own threads submit there. libaio writes
	 * belong to the context, not to a thread. */
	return j->backend == CONQ_JOURNAL_LIBAIO || on_thread(j->poller) ||
	       on_thread(j->appender);
}

static void kick_locked(conq_journal *j)
{
	if (!j->eng) {
		if (j->app_waiting)
			pthread_cond_signal(&j->app_cv);
		return;
	}
	if (!may_submit(j)) {
		if (j->poll_waiting)
			pthread_cond_signal(&j->poll_cv);
		else if (j->app_waiting)
			pthread_cond_signal(&j->app_cv);
		return;
	}
	uint64_t wait_ns = 0;
	int bi;
	while ((bi = pick_locked(j, 0, &wait_ns)) >= 0)
		submit(j, (unsigned)bi);
	if (wait_ns && j->app_waiting)
		pthread_cond_signal(&j->app_cv); /* it times the batch */
}

static void *appender_main(void *arg)
{
	conq_journal *j = arg;
	pthread_mutex_lock(&j->lock);
	for (;;) {
		if (j->need_file && !j->err) {
			unsigned ix = next_index(j);
			pthread_mutex_unlock(&j->lock);
			struct jfile nf;
			int err = create_file(j, ix, &nf);
			pthread_mutex_lock(&j->lock);
			if (!err && (err = add_file_slot(j)) != 0)
				j->io->close(j->io->self, nf.handle);
			if (err && j->file_waiters) {
				fail_locked(j, err); /* an I/O error they meet */
			} else if (err) {
				/* A file made ahead of need: nobody waits for
				 * it; the producer that needs one tries again. */
				j->need_file = 0;
			} else {
				j->files[j->nfiles++] = nf;
				j->st.files++;
				j->need_file = 0;
			}
			pthread_cond_broadcast(&j->space_cv);
			continue;
		}
		uint64_t wait_ns = 0;
		int bi = pick_locked(j, 1, &wait_ns);
		if (bi >= 0) {
			submit(j, (unsigned)bi);
			continue;
		}
		if (j->stop)
			break;
		j->app_waiting = 1;
		if (wait_ns) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			uint64_t ns = (uint64_t)ts.tv_nsec + wait_ns;
			ts.tv_sec += (time_t)(ns / 1000000000u);
			ts.tv_nsec = (long)(ns % 1000000000u);
			pthread_cond_timedwait(&j->app_cv, &j->lock, &ts);
		} else {
			pthread_cond_wait(&j->app_cv, &j->lock);
		}
		j->app_waiting = 0;
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/* ---------------------------------------------------- completion thread --- */

static void run_done(struct jbuf *b, int err)
{
	for (unsigned i = 0; i < b->nrec; i++)
		if (b->recs[i].done)
			b->recs[i].done(b->recs[i].ctx, b->recs[i].seq, err);
}

/* Retire [head, head + n): FREE them and wake everyone. */
static void retire_locked(conq_journal *j, unsigned n, int ok)
{
	for (unsigned i = 0; i < n; i++) {
		struct jbuf *b = &j->bufs[j->order[j->head % j->nbuf]];
		if (ok && b->nrec) {
			j->synced = b->recs[b->nrec - 1].seq + 1;
			j->st.records += b->nrec;
		}
		b->state = B_FREE;
		b->nrec = 0;
		b->used = 0;
		j->head++;
	}
	if (j->sub < j->head)
		j->sub = j->head;
	pthread_cond_broadcast(&j->space_cv);
	pthread_cond_broadcast(&j->sync_cv);
	kick_locked(j);
}

/* The journal failed: once no write is in flight, every buffer not retired
 * has its records failed, in order. */
static void fail_all_locked(conq_journal *j)
{
	unsigned n = j->tail - j->head;
	if (n == 0)
		return;
	if (j->fill >= 0)
		j->fill = -1;
	int err = j->err;
	pthread_mutex_unlock(&j->lock);
	for (unsigned i = 0; i < n; i++)
		run_done(&j->bufs[j->order[(j->head + i) % j->nbuf]], err);
	pthread_mutex_lock(&j->lock);
	retire_locked(j, n, 0);
}

static void *poller_main(void *arg)
{
	conq_journal *j = arg;
	void *cookies[64];
	int64_t res[64];
	unsigned sync_files[64];
	pthread_mutex_lock(&j->lock);
	for (;;) {
		/* Completions first: they may free the appender. */
		if (j->async_inflight > 0) {
			unsigned done_n = 0;
			for (unsigned i = j->head; i != j->tail; i++)
				done_n += j->bufs[j->order[i % j->nbuf]].state ==
					  B_DONE;
			int min = done_n && !j->err ? 0 : 1;
			pthread_mutex_unlock(&j->lock);
			int n = jengine_reap(j->eng, cookies, res, 64, min);
			pthread_mutex_lock(&j->lock);
			if (n < 0) {
				/* The engine failed: nothing more completes. */
				fail_locked(j, -n);
				for (unsigned i = j->head; i != j->tail; i++) {
					struct jbuf *b =
						&j->bufs[j->order[i % j->nbuf]];
					if (b->state == B_INFLIGHT && b->queued) {
						b->queued = 0;
						b->state = B_DONE;
						b->res = n;
						j->inflight--;
						j->async_inflight--;
					}
				}
				continue;
			}
			for (int i = 0; i < n; i++) {
				struct jbuf *b = cookies[i];
				b->queued = 0;
				b->res = res[i];
				b->state = B_DONE;
				j->inflight--;
				j->async_inflight--;
			}
			if (n)
				kick_locked(j);
		}
		if (j->err) {
			if (j->inflight == 0) {
				fail_all_locked(j);
				if (j->stop)
					break;
				pthread_cond_wait(&j->poll_cv, &j->lock);
			} else if (j->async_inflight == 0) {
				pthread_cond_wait(&j->poll_cv, &j->lock);
			}
			continue;
		}
		/* The DONE prefix: check, sync its files, run its records. */
		unsigned n = 0, nf = 0;
		int err = 0;
		while (j->head + n != j->tail) {
			struct jbuf *b = &j->bufs[j->order[(j->head + n) % j->nbuf]];
			if (b->state != B_DONE)
				break;
			if (b->res < 0)
				err = (int)-b->res;
			else if ((uint64_t)b->res != b->used)
				err = err ? err : EIO; /* short: no space? */
			unsigned k = 0;
			while (k < nf && sync_files[k] != b->file)
				k++;
			if (k == nf && nf < 64)
				sync_files[nf++] = b->file;
			n++;
			if (nf == 64)
				break;
		}
		if (err) {
			fail_locked(j, err);
			continue;
		}
		if (n) {
			int handles[64];
			for (unsigned k = 0; k < nf; k++)
				handles[k] = j->files[sync_files[k]].handle;
			pthread_mutex_unlock(&j->lock);
			for (unsigned k = 0; k < nf && !err; k++) {
				int rc = j->io->datasync(j->io->self,
							 handles[k]);
				err = rc < 0 ? -rc : 0;
			}
			if (!err)
				for (unsigned i = 0; i < n; i++)
					run_done(&j->bufs[j->order[(j->head + i) %
								   j->nbuf]],
						 0);
			pthread_mutex_lock(&j->lock);
			j->st.syncs += nf;
			if (err)
				fail_locked(j, err);
			else
				retire_locked(j, n, 1);
			continue;
		}
		if (j->async_inflight > 0)
			continue;
		if (j->stop)
			break;
		j->poll_waiting = 1;
		pthread_cond_wait(&j->poll_cv, &j->lock);
		j->poll_waiting = 0;
		if (j->eng && !j->err)
			kick_locked(j); /* what producers could not submit */
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/* --------------------------------------------------------------- API --- */

static int check_opts(const conq_journal_opts *o)
{
	if (o->sector_size &&
	    (o->sector_size < JMIN_SECTOR || o->sector_size > 65536u ||
	     (o->sector_size & (o->sector_size - 1))))
		return EINVAL;
	uint64_t sector = o->sector_size ? o->sector_size : JMIN_SECTOR;
	uint64_t fsz = o->file_size ? o->file_size
				    : CONQ_JOURNAL_DEFAULT_FILE_SIZE;
	uint64_t bsz = o->buffer_size ? o->buffer_size
				      : CONQ_JOURNAL_DEFAULT_BUFFER_SIZE;
	if (fsz % sector || fsz < 4 * sector || fsz > ((uint64_t)1 << 40))
		return EINVAL;
	if (bsz % sector || bsz < 2 * sector || bsz > ((uint64_t)64 << 20) ||
	    bsz > fsz)
		return EINVAL;
	if (o->buffer_timeout_ns > 1000000000u || o->max_io > 256 ||
	    o->backend > CONQ_JOURNAL_PSYNC || o->files > 1024)
		return EINVAL;
	const conq_journal_io *io = o->io;
	if (io && (!io->open || !io->close || !io->pread || !io->pwrite ||
		   !io->datasync || !io->size || !io->list || !io->sync_dir ||
		   !io->fd))
		return EINVAL;
	return 0;
}

static void destroy(conq_journal *j)
{
	/* The engine first: its exit waits for any write still queued
	 * (io_destroy blocks on them; io_uring's exit cancels or waits), and
	 * only then do the buffers and files go. */
	jengine_free(j->eng);
	j->eng = NULL;
	if (j->files)
		for (unsigned i = 0; i < j->nfiles; i++)
			j->io->close(j->io->self, j->files[i].handle);
	if (j->bufs)
		for (unsigned i = 0; i < j->nbuf; i++) {
			free(j->bufs[i].mem);
			free(j->bufs[i].recs);
		}
	free(j->bufs);
	free(j->order);
	free(j->files);
	free(j->dir);
	pthread_mutex_destroy(&j->lock);
	pthread_mutex_destroy(&j->release_lock);
	pthread_cond_destroy(&j->app_cv);
	pthread_cond_destroy(&j->poll_cv);
	pthread_cond_destroy(&j->space_cv);
	pthread_cond_destroy(&j->sync_cv);
	free(j);
}

/* The scan's files, reopened for writing. */
static int adopt_files(conq_journal *j, struct jscan *s)
{
	char name[JNAME_MAX], path[JPATH_MAX];
	int err = 0;
	/* Used files in id order: each ends where the next begins. */
	for (unsigned i = 0; i < s->nfiles && !err; i++) {
		struct jscan_file *sf = &s->files[i];
		j->io->close(j->io->self, sf->handle);
		sf->handle = -1;
		if (sf->size < 4u * j->sector)
			continue; /* too small to be ours: left alone */
		snprintf(name, sizeof(name), JNAME_FMT, sf->index);
		if ((err = -j_path(path, j->dir, name)) != 0)
			break;
		int h, direct;
		err = open_file(j, path, 0, j->direct_ok, &h, &direct);
		if (err)
			break;
		if ((err = add_file_slot(j)) != 0) {
			j->io->close(j->io->self, h);
			break;
		}
		j->files[j->nfiles++] = (struct jfile){
			.index = sf->index,
			.handle = h,
			.fd = j->io->fd(j->io->self, h),
			.direct = direct,
			.size = sf->size,
			.id = sf->used ? sf->h.file_id : 0,
			.first_seq = sf->used ? sf->h.first_seq : 0,
			.state = sf->used ? F_USED : F_FREE,
			.hdr_ok = 1,
		};
	}
	for (unsigned i = 0; i < j->nfiles; i++) {
		struct jfile *f = &j->files[i];
		if (f->state != F_USED)
			continue;
		/* It ends where the next used file (in id order: ids have
		 * gaps where a recovery freed files) begins. */
		f->end_seq = s->next_seq;
		uint64_t next_id = UINT64_MAX;
		for (unsigned k = 0; k < j->nfiles; k++)
			if (j->files[k].state == F_USED &&
			    j->files[k].id > f->id && j->files[k].id < next_id) {
				next_id = j->files[k].id;
				f->end_seq = j->files[k].first_seq;
			}
	}
	return err;
}

static int pick_backend(conq_journal *j, unsigned want, int has_fd,
			int direct)
{
	int err = 0;
	unsigned depth = j->max_io;
	j->backend = CONQ_JOURNAL_PSYNC;
	if (want == CONQ_JOURNAL_PSYNC)
		return 0;
	if (!has_fd)
		return want == CONQ_JOURNAL_AUTO ? 0 : ENOTSUP;
	if (want != CONQ_JOURNAL_AUTO) {
		if (!jengine_built(want))
			return ENOTSUP;
		j->eng = jengine_new(want, depth, j->nbuf, &err);
		if (!j->eng)
			return ENOTSUP;
		j->backend = want;
		return 0;
	}
	/* AUTO: libaio first, then io_uring. An io_uring write completes
	 * as task work of the thread that submitted it, and only the
	 * journal's threads may submit there (may_submit), so an append to
	 * an idle journal wakes one of them first; libaio, which a producer
	 * submits to, wakes the completion thread directly. Measured at one
	 * producer the two are level (p50 1.23x against 1.25x a raw write +
	 * fdatasync, docs/benchmarks.md); libaio needs no hand-over and no
	 * care for exiting threads. On buffered files a libaio submit copies
	 * into the page cache at once; fdatasync writes. */
	(void)direct;
	unsigned order[2] = {CONQ_JOURNAL_LIBAIO, CONQ_JOURNAL_IO_URING};
	for (unsigned i = 0; i < 2 && !j->eng; i++)
		if (jengine_built(order[i])) {
			j->eng = jengine_new(order[i], depth, j->nbuf, &err);
			if (j->eng)
				j->backend = order[i];
		}
	return 0;
}

conq_journal *conq_journal_open(const char *dir, const conq_journal_opts *opts)
{
	conq_journal_opts o = {0};
	if (opts)
		o = *opts;
	if (!dir || check_opts(&o) != 0) {
		errno = EINVAL;
		return NULL;
	}
	conq_journal *j = calloc(1, sizeof(*j));
	if (!j) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&j->lock, NULL);
	pthread_mutex_init(&j->release_lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->app_cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&j->poll_cv, NULL);
	pthread_cond_init(&j->space_cv, NULL);
	pthread_cond_init(&j->sync_cv, NULL);
	j->io = o.io ? o.io : conq_journal_io_posix();
	j->sector = o.sector_size ? o.sector_size : JMIN_SECTOR;
	j->file_size = o.file_size ? o.file_size : CONQ_JOURNAL_DEFAULT_FILE_SIZE;
	j->buf_size = o.buffer_size ? o.buffer_size
				    : CONQ_JOURNAL_DEFAULT_BUFFER_SIZE;
	j->max_io = o.max_io ? o.max_io : 8;
	j->timeout_ns = o.buffer_timeout_ns;
	j->direct_ok = !o.buffered;
	j->cur = -1;
	j->fill = -1;
	int err = 0;
	struct jscan s = {0};
	j->dir = strdup(dir);
	if (!j->dir) {
		err = ENOMEM;
		goto fail;
	}
	err = jscan_run(dir, j->io, NULL, NULL, &s);
	if (err)
		goto fail;
	if (s.sector && s.sector != j->sector) {
		if (o.sector_size) {
			jscan_close(j->io, &s);
			err = EINVAL; /* the files say another sector size */
			goto fail;
		}
		j->sector = s.sector;
		if (j->file_size % j->sector || j->buf_size % j->sector ||
		    j->buf_size < 2u * j->sector ||
		    j->file_size < 4u * j->sector) {
			jscan_close(j->io, &s);
			err = EINVAL;
			goto fail;
		}
	}
	j->next_seq = j->synced = j->flush_upto = s.next_seq;
	j->next_id = s.next_id;
	err = adopt_files(j, &s);
	jscan_close(j->io, &s);
	if (err)
		goto fail;
	unsigned want = o.files ? o.files : 2;
	/* At the cap (JFILES_MAX) open makes no file: the first append that
	 * needs one gets ENOSPC until records are released. */
	while (!err && j->nfiles < JFILES_MAX &&
	       (j->nfiles < want || count_free(j) == 0)) {
		struct jfile nf;
		err = create_file(j, next_index(j), &nf);
		if (!err && (err = add_file_slot(j)) != 0)
			j->io->close(j->io->self, nf.handle);
		if (!err) {
			j->files[j->nfiles++] = nf;
			j->st.files++;
		}
	}
	if (err)
		goto fail;

	j->nbuf = j->max_io + 2;
	j->bufs = calloc(j->nbuf, sizeof(*j->bufs));
	j->order = calloc(j->nbuf, sizeof(*j->order));
	if (!j->bufs || !j->order) {
		err = ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < j->nbuf; i++) {
		j->bufs[i].mem = zalloc_aligned(j->buf_size);
		j->bufs[i].recs =
			calloc(j->buf_size / j->sector, sizeof(struct jrec));
		if (!j->bufs[i].mem || !j->bufs[i].recs) {
			err = ENOMEM;
			goto fail;
		}
	}
	unsigned want_backend = o.backend;
	if ((err = pick_backend(j, want_backend, j->files[0].fd >= 0,
				 j->files[0].direct)) != 0)
		goto fail;
	if (!j->eng)
		j->max_io = 1; /* psync: the appender writes, one at a time */
	if (pthread_create(&j->poller, NULL, poller_main, j) != 0) {
		err = EAGAIN;
		goto fail;
	}
	if (pthread_create(&j->appender, NULL, appender_main, j) != 0) {
		pthread_mutex_lock(&j->lock);
		j->stop = 1;
		pthread_cond_broadcast(&j->poll_cv);
		pthread_mutex_unlock(&j->lock);
		pthread_join(j->poller, NULL);
		err = EAGAIN;
		goto fail;
	}
	return j;
fail:
	destroy(j);
	errno = err;
	return NULL;
}

int conq_journal_sync(conq_journal *j)
{
	if (!j)
		return EINVAL;
	if (on_thread(j->poller))
		return EDEADLK;
	pthread_mutex_lock(&j->lock);
	uint64_t target = j->next_seq;
	if (target > j->flush_upto)
		j->flush_upto = target;
	kick_locked(j);
	pthread_cond_signal(&j->app_cv);
	while (!j->err && j->synced < target)
		pthread_cond_wait(&j->sync_cv, &j->lock);
	int err = j->err; /* failed: the error, from then on */
	pthread_mutex_unlock(&j->lock);
	return err;
}

int conq_journal_release(conq_journal *j, uint64_t upto_seq)
{
	if (!j)
		return EINVAL;
	int err = 0;
	pthread_mutex_lock(&j->release_lock);
	for (;;) {
		pthread_mutex_lock(&j->lock);
		if (j->err) {
			err = j->err;
			pthread_mutex_unlock(&j->lock);
			break;
		}
		/* The oldest used file, if every record in it is released
		 * and durable. */
		int fi = -1;
		for (unsigned i = 0; i < j->nfiles; i++) {
			struct jfile *f = &j->files[i];
			if (f->state == F_USED &&
			    (fi < 0 || f->id < j->files[fi].id))
				fi = (int)i;
		}
		if (fi < 0 || j->files[fi].end_seq - 1 > upto_seq ||
		    j->files[fi].end_seq > j->synced) {
			pthread_mutex_unlock(&j->lock);
			break;
		}
		struct jfile *f = &j->files[fi];
		f->state = F_RELEASING;
		struct jfile fc = *f;
		pthread_mutex_unlock(&j->lock);
		err = write_header(j, &fc, 0, fc.end_seq, fc.id);
		pthread_mutex_lock(&j->lock);
		f = &j->files[fi];
		if (err) {
			f->state = F_USED;
			fail_locked(j, err);
		} else {
			f->state = F_FREE;
			f->id = 0;
			pthread_cond_broadcast(&j->space_cv);
		}
		pthread_mutex_unlock(&j->lock);
		if (err)
			break;
	}
	pthread_mutex_unlock(&j->release_lock);
	return err;
}

uint64_t conq_journal_next_seq(const conq_journal *j)
{
	if (!j)
		return 0;
	conq_journal *m = (conq_journal *)(uintptr_t)j;
	pthread_mutex_lock(&m->lock);
	uint64_t v = m->next_seq;
	pthread_mutex_unlock(&m->lock);
	return v;
}

void conq_journal_stats_get(const conq_journal *j, conq_journal_stats *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (!j)
		return;
	conq_journal *m = (conq_journal *)(uintptr_t)j;
	pthread_mutex_lock(&m->lock);
	*out = m->st;
	out->backend = m->backend;
	out->direct = m->nfiles > 0;
	for (unsigned i = 0; i < m->nfiles; i++)
		out->direct &= m->files[i].direct;
	pthread_mutex_unlock(&m->lock);
}

int conq_journal_close(conq_journal *j)
{
	if (!j)
		return 0;
	if (on_thread(j->poller))
		return EDEADLK;
	pthread_mutex_lock(&j->lock);
	j->closing = 1;
	j->flush_upto = j->next_seq;
	kick_locked(j);
	pthread_cond_signal(&j->app_cv);
	while (j->head != j->tail || j->inflight)
		pthread_cond_wait(&j->sync_cv, &j->lock);
	j->stop = 1;
	pthread_cond_broadcast(&j->app_cv);
	pthread_cond_broadcast(&j->poll_cv);
	int err = j->err;
	pthread_mutex_unlock(&j->lock);
	pthread_join(j->appender, NULL);
	pthread_join(j->poller, NULL);
	/* A file the appender was making when it stopped is whole or gone. */
	destroy(j);
	return err;
}
