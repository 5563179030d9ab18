/* SPDX-License-Identifier: BSD-2-Clause */
/* src/journal/engine.c - the journal's asynchronous write engines.
 *
 * A reap that waits gives up after 100 ms (0 completions): the completion
 * thread then looks at the journal's state again (a submit that failed
 * leaves nothing to wait for).
 *
 * One thread submits (the appender), one reaps (the completion thread); the
 * two sides of an io_uring (SQ and CQ rings) and of a libaio context are
 * independent, so neither needs a lock. Syncs are not submitted here: the
 * completion thread calls fdatasync(2) itself once writes have completed
 * (an in-ring IORING_OP_FSYNC is punted to an io-wq worker, which cost about
 * 40 us more per sync on the machines we measured: docs/benchmarks.md).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jinternal.h"

#ifdef CONQ_JOURNAL_HAVE_URING
#include <liburing.h>
#endif
#ifdef CONQ_JOURNAL_HAVE_AIO
#include <libaio.h>
#endif

struct jengine {
	unsigned kind;
	unsigned depth;
#ifdef CONQ_JOURNAL_HAVE_URING
	struct io_uring ring;
#endif
#ifdef CONQ_JOURNAL_HAVE_AIO
	io_context_t aio;
	struct iocb *iocbs; /* one per slot (the journal's buffers) */
	unsigned nslots;
#endif
};

int jengine_built(unsigned kind)
{
	switch (kind) {
#ifdef CONQ_JOURNAL_HAVE_URING
	case CONQ_JOURNAL_IO_URING:
		return 1;
#endif
#ifdef CONQ_JOURNAL_HAVE_AIO
	case CONQ_JOURNAL_LIBAIO:
		return 1;
#endif
	default:
		return 0;
	}
}

struct jengine *jengine_new(unsigned kind, unsigned depth, unsigned nslots,
			    int *err)
{
	struct jengine *e = calloc(1, sizeof(*e));
	if (!e) {
		*err = ENOMEM;
		return NULL;
	}
	e->kind = kind;
	e->depth = depth;
	(void)nslots; /* libaio's */
	switch (kind) {
#ifdef CONQ_JOURNAL_HAVE_URING
	case CONQ_JOURNAL_IO_URING: {
		struct io_uring_params pr;
		memset(&pr, 0, sizeof(pr));
		int rc = io_uring_queue_init_params(depth, &e->ring, &pr);
		if (rc < 0) {
			*err = -rc;
			free(e);
			return NULL;
		}
		/* A timed wait without an SQE of its own (5.11): with an older
		 * kernel liburing would queue a timeout SQE from the reaping
		 * thread, racing the submitters. */
		if (!(pr.features & IORING_FEAT_EXT_ARG)) {
			io_uring_queue_exit(&e->ring);
			*err = ENOTSUP;
			free(e);
			return NULL;
		}
		return e;
	}
#endif
#ifdef CONQ_JOURNAL_HAVE_AIO
	case CONQ_JOURNAL_LIBAIO: {
		e->nslots = nslots;
		e->iocbs = calloc(nslots, sizeof(*e->iocbs));
		if (!e->iocbs) {
			*err = ENOMEM;
			free(e);
			return NULL;
		}
		int rc = io_setup((int)depth, &e->aio);
		if (rc < 0) {
			*err = -rc;
			free(e->iocbs);
			free(e);
			return NULL;
		}
		return e;
	}
#endif
	default:
		*err = ENOTSUP;
		free(e);
		return NULL;
	}
}

/* The caller keeps at most `depth` writes in flight, and one per slot. */
int jengine_submit(struct jengine *e, unsigned slot, int fd, const void *buf,
		   size_t len, uint64_t off, void *cookie)
{
	switch (e->kind) {
#ifdef CONQ_JOURNAL_HAVE_URING
	case CONQ_JOURNAL_IO_URING: {
		(void)slot;
		struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);
		if (!sqe)
			return EBUSY;
		io_uring_prep_write(sqe, fd, buf, (unsigned)len, off);
		io_uring_sqe_set_data(sqe, cookie);
		int rc;
		unsigned tries = 0;
		do
			rc = io_uring_submit(&e->ring);
		while (rc == -EINTR ||
		       ((rc == -EAGAIN || rc == -EBUSY) && ++tries < 1000 &&
			sched_yield() == 0));
		return rc < 0 ? -rc : rc == 1 ? 0 : EIO;
	}
#endif
#ifdef CONQ_JOURNAL_HAVE_AIO
	case CONQ_JOURNAL_LIBAIO: {
		struct iocb *cb = &e->iocbs[slot % e->nslots];
		io_prep_pwrite(cb, fd, (void *)(uintptr_t)buf, len,
			       (long long)off);
		cb->data = cookie;
		int rc;
		unsigned tries = 0;
		do
			rc = io_submit(e->aio, 1, &cb);
		while (rc == -EINTR ||
		       (rc == -EAGAIN && ++tries < 1000 && sched_yield() == 0));
		return rc < 0 ? -rc : rc == 1 ? 0 : EIO;
	}
#endif
	default:
		(void)slot, (void)fd, (void)buf, (void)len, (void)off;
		(void)cookie;
		return ENOTSUP;
	}
}

int jengine_reap(struct jengine *e, void **cookies, int64_t *res, int max,
		 int min)
{
	switch (e->kind) {
#ifdef CONQ_JOURNAL_HAVE_URING
	case CONQ_JOURNAL_IO_URING: {
		int n = 0;
		while (n < max) {
			struct io_uring_cqe *cqe;
			struct __kernel_timespec ts = {0, 100000000};
			int rc = n < min ? io_uring_wait_cqe_timeout(&e->ring,
								     &cqe, &ts)
					 : io_uring_peek_cqe(&e->ring, &cqe);
			if (rc == -EINTR)
				continue;
			if (rc == -EAGAIN || rc == -ETIME)
				break;
			if (rc < 0)
				return n ? n : rc;
			cookies[n] = io_uring_cqe_get_data(cqe);
			res[n] = cqe->res;
			io_uring_cqe_seen(&e->ring, cqe);
			n++;
		}
		return n;
	}
#endif
#ifdef CONQ_JOURNAL_HAVE_AIO
	case CONQ_JOURNAL_LIBAIO: {
		struct io_event ev[64];
		if (max > 64)
			max = 64;
		struct timespec ts = {0, 100000000};
		int rc;
		do
			rc = io_getevents(e->aio, min, max, ev, &ts);
		while (rc == -EINTR);
		if (rc < 0)
			return rc;
		for (int i = 0; i < rc; i++) {
			cookies[i] = ev[i].data;
			/* res is the byte count or -errno (as a long). */
			res[i] = (int64_t)(long)ev[i].res;
		}
		return rc;
	}
#endif
	default:
		(void)cookies, (void)res, (void)max, (void)min;
		return -ENOTSUP;
	}
}

void jengine_free(struct jengine *e)
{
	if (!e)
		return;
	switch (e->kind) {
#ifdef CONQ_JOURNAL_HAVE_URING
	case CONQ_JOURNAL_IO_URING:
		io_uring_queue_exit(&e->ring);
		break;
#endif
#ifdef CONQ_JOURNAL_HAVE_AIO
	case CONQ_JOURNAL_LIBAIO:
		io_destroy(e->aio);
		free(e->iocbs);
		break;
#endif
	default:
		break;
	}
	free(e);
}
