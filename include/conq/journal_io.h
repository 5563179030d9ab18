/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/journal_io.h - the I/O layer under conq_journal (libconq-journal).
 *
 * Every file operation of the journal goes through one of these: the file
 * system's (conq_journal_io_posix, the default), or a test's, which may keep
 * the files in memory, remember what was written but not yet datasync'd and
 * drop, tear or corrupt it at a simulated crash (tests/journal/faultfs.c,
 * after RocksDB's FaultInjectionTestFS). With a layer whose fd() returns -1
 * the journal writes through pwrite (the psync backend); io_uring and libaio
 * need real file descriptors.
 *
 * Each function returns 0 (or a count, or a handle) on success and a
 * negative errno on failure. The journal calls them from its own threads,
 * at most one call per handle at a time except pread/pwrite/datasync, which
 * may run concurrently on one handle.
 */
#ifndef CONQ_JOURNAL_IO_H
#define CONQ_JOURNAL_IO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_journal_io {
	void *self;
	/* Open path for reading and writing; create: create it (empty) if it
	 * does not exist; direct: O_DIRECT wanted (a layer that cannot do it
	 * returns -EINVAL, and the journal retries without). A handle >= 0. */
	int (*open)(void *self, const char *path, int create, int direct);
	int (*close)(void *self, int h);
	/* Up to len bytes at off: the count (0 at end of file). */
	int64_t (*pread)(void *self, int h, void *buf, size_t len,
			 uint64_t off);
	/* len bytes at off, extending the file if needed: the count (a short
	 * count is an error to the journal: EIO). */
	int64_t (*pwrite)(void *self, int h, const void *buf, size_t len,
			  uint64_t off);
	/* Make the data written to h durable (fdatasync). */
	int (*datasync)(void *self, int h);
	/* The file's size in bytes. */
	int64_t (*size)(void *self, int h);
	/* fn(ctx, name) for each entry of dir (not "." nor ".."); a non-zero
	 * return from fn stops the walk and is returned. */
	int (*list)(void *self, const char *dir,
		    int (*fn)(void *ctx, const char *name), void *ctx);
	/* Make dir's entries durable (fsync of the directory). */
	int (*sync_dir)(void *self, const char *dir);
	/* The file descriptor under h, for io_uring and libaio; -1 when there
	 * is none (the journal then uses the psync backend). */
	int (*fd)(void *self, int h);
} conq_journal_io;

/* The file system's layer (open(2), pread(2), pwrite(2), fdatasync(2)...). */
const conq_journal_io *conq_journal_io_posix(void);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_JOURNAL_IO_H */
