/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/journal.h - an append-only journal with group commit (libconq-journal).
 *
 * Producers on any thread append records; a record's done function runs once
 * it is durable (written and fdatasync'd), in sequence order. A producer
 * copies its record into a sector-aligned buffer; a buffer is written with
 * libaio, io_uring or pwrite (O_DIRECT where the file system takes it) by
 * the producer that made it ready (libaio) or by one of the journal's two
 * threads; the completion thread reaps the writes, runs fdatasync over every
 * write that has completed, and then runs the done functions. Records that
 * arrive while a write or a sync is in progress form the next batch: group
 * commit, with no timer on the default path (a batch leaves as soon as no
 * write is in flight; buffer_timeout_ns adds Artemis's timed buffer).
 *
 * Files: <dir>/journal-<id>.cqj, file_size bytes each, created full of zeros
 * (pre-written, so that a sync commits no extent conversion) and recycled by
 * conq_journal_release, never deleted. Every record carries a CRC32C over its
 * header and payload; conq_journal_replay walks the records in sequence order
 * and stops at the torn tail (docs/design.md, "The journal").
 *
 * Threads: append, sync and release from any thread; open, replay and close
 * from one thread, with no other call on the same journal in progress or to
 * come. Done functions run on the journal's completion thread, one at a
 * time, in sequence order: they must not call conq_journal_sync or close
 * (EDEADLK), and should be short (the next sync waits for them); an append
 * from one does not wait for a buffer (EAGAIN instead).
 * Progress: blocking (a mutex; append waits when every buffer is in flight).
 *
 * Errors: an I/O error (EIO, ENOSPC, ... from a write or a sync) fails every
 * record not yet durable (its done function gets the error) and the journal:
 * append and sync return that error from then on; close returns it too.
 * Records acknowledged before stay durable. The journal never retries a
 * failed fdatasync (the page cache may have dropped the data).
 */
#ifndef CONQ_JOURNAL_H
#define CONQ_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conq_journal conq_journal;
struct conq_journal_io;

/* Run once per record: err 0 when the record is durable, else the error
 * that failed the journal (the record may or may not be on disk). */
typedef void (*conq_journal_done_fn)(void *ctx, uint64_t seq, int err);

/* Replay's callback: one record, in sequence order. data is valid during the
 * call only. Return 0 to go on; any other value stops replay, which returns
 * it. */
typedef int (*conq_journal_replay_fn)(void *ctx, uint64_t seq, uint32_t type,
				      const void *data, size_t len);

enum conq_journal_backend {
	CONQ_JOURNAL_AUTO = 0, /* libaio, else io_uring, else psync (below) */
	CONQ_JOURNAL_IO_URING = 1,
	CONQ_JOURNAL_LIBAIO = 2,
	CONQ_JOURNAL_PSYNC = 3, /* pwrite from the appender thread */
};

/* conq_journal_open's options; a zeroed struct (or NULL) gives defaults. */
typedef struct conq_journal_opts {
	/* Bytes per journal file: 0 means 10 MiB. A multiple of the sector
	 * size, at least 4 sectors, at most 2^40. */
	uint64_t file_size;
	/* Bytes per write buffer: 0 means 512 KiB. A multiple of the sector
	 * size, at least 2 sectors, at most 64 MiB and at most file_size. A
	 * record's padded size must fit in one buffer with a file header
	 * sector: larger ones are refused (EMSGSIZE). */
	size_t buffer_size;
	/* Nanoseconds a batch waits for more records before its write is
	 * submitted (counted from its first record; a full buffer leaves at
	 * once). 0 (default): no wait, the batch leaves when no write is in
	 * flight. Artemis's ASYNCIO default is 500000. At most 10^9. */
	uint64_t buffer_timeout_ns;
	/* Writes in flight at most (buffers: max_io + 2): 0 means 8; at most
	 * 256. psync has one. */
	unsigned max_io;
	/* enum conq_journal_backend. AUTO takes libaio first: a producer
	 * submits there and the completion wakes the completion thread
	 * directly, where an io_uring write completes as task work of the
	 * thread that submitted it, so only the journal's own threads submit
	 * to io_uring (a write of an exiting thread would be cancelled) and
	 * an append to an idle journal wakes one first (at one producer the
	 * two measure level: docs/benchmarks.md, "The journal").
	 * AUTO falls back when a backend is not built in or fails to start
	 * (io_uring disabled by sysctl, or older than 5.11); a named one that
	 * cannot start fails open (ENOTSUP). */
	unsigned backend;
	/* Sector size, the unit of padding and of O_DIRECT alignment: 0 means
	 * 512. A power of two from 512 to 65536. */
	unsigned sector_size;
	/* Files created at open when fewer exist: 0 means 2. At most 1024. */
	unsigned files;
	/* Non-zero: never O_DIRECT (buffered writes; fdatasync still makes
	 * them durable). Without it, O_DIRECT is used where open accepts it. */
	int buffered;
	/* The I/O layer: NULL means the real file system
	 * (conq/journal_io.h). A layer whose fd() gives -1 (one that keeps
	 * files in memory, say) runs with psync; with real descriptors the
	 * engines write through them and only the rest (headers, new files,
	 * syncs, replay) goes through the layer. */
	const struct conq_journal_io *io;
} conq_journal_opts;

#define CONQ_JOURNAL_DEFAULT_FILE_SIZE	 ((uint64_t)10 << 20)
#define CONQ_JOURNAL_DEFAULT_BUFFER_SIZE ((size_t)512 << 10)
/* Bytes of a record's header on disk (before its payload). */
#define CONQ_JOURNAL_RECORD_HEADER 40u

/* Open the journal in dir (which must exist): recover as replay does
 * (without calling anyone: run conq_journal_replay first to see the
 * records), create the missing files, and start the threads. New records
 * continue the sequence after the last valid one (1 for a new journal), in a
 * new file. NULL on failure, errno: EINVAL (dir NULL, a bad option), ENOTSUP
 * (the named backend), EBADMSG (a corrupt record followed by durable ones:
 * see replay), ENOMEM, or the I/O layer's error. */
conq_journal *conq_journal_open(const char *dir, const conq_journal_opts *opts);

/* Append one record (len bytes of data; len may be 0) of a user type. Its
 * sequence number goes to *seq (may be NULL); done (may be NULL) runs once
 * it is durable. The data is copied before the call returns. Blocks while
 * every buffer is in flight. 0, or EINVAL (j NULL, data NULL with len > 0),
 * EMSGSIZE (the record does not fit in a buffer), ESHUTDOWN (close has
 * started), EAGAIN (from a done function, when it would have to wait),
 * ENOSPC when the journal has 4096 files and none is free (release records
 * to go on: the journal itself does not fail), or the I/O error that failed
 * the journal (a write, a sync, a header, or making the file a producer
 * waits for; a file made ahead of need that cannot be made is tried again
 * when needed). On error done is not called and the record is not
 * written. */
int conq_journal_append(conq_journal *j, uint32_t type, const void *data,
			size_t len, conq_journal_done_fn done, void *ctx,
			uint64_t *seq);

/* Wait until every record appended before the call is durable (the batch
 * being filled is submitted now, whatever the timeout). 0, or EINVAL (j
 * NULL), EDEADLK (from a done function), or the I/O error. */
int conq_journal_sync(conq_journal *j);

/* Records with sequence numbers up to upto_seq are no longer needed: every
 * file holding only such records (and not being written) is marked free on
 * disk and recycled for later records. Replay no longer returns them. 0, or
 * EINVAL (j NULL), or the I/O error. */
int conq_journal_release(conq_journal *j, uint64_t upto_seq);

/* The next sequence number append will give. */
uint64_t conq_journal_next_seq(const conq_journal *j);

/* Counters since open (for benchmarks). */
typedef struct conq_journal_stats {
	uint64_t records;  /* records made durable */
	uint64_t bytes;	   /* bytes written (padded records, file headers) */
	uint64_t writes;   /* write requests submitted */
	uint64_t syncs;	   /* fdatasync calls */
	uint64_t files;	   /* files created */
	uint64_t rotations;/* switches to the next file */
	unsigned backend;  /* enum conq_journal_backend in use */
	int direct;	   /* O_DIRECT in use */
} conq_journal_stats;
void conq_journal_stats_get(const conq_journal *j, conq_journal_stats *out);

/* Make every appended record durable, stop the threads, close the files and
 * free j (NULL: a no-op returning 0). Records appended before close have
 * their done functions run first. 0, or the error that failed the journal,
 * or EDEADLK from a done function (j is then left open). */
int conq_journal_close(conq_journal *j);

/* Walk the journal in dir: fn once per record in sequence order, from the
 * oldest record not released. Stops at the torn tail (a zeroed, torn or
 * stale record, or a break in the sequence), which it zeroes on disk so that
 * the journal continues after it; a torn tail is not an error. A corrupt
 * record that a later record shows was durable (a record's header says up
 * to which sequence number the journal was durable when it was written) is
 * reported: EBADMSG, nothing truncated. The sector size is read from the
 * files. Records are read with O_DIRECT where the file system takes it,
 * after an fdatasync of every file in use: what replay returns is on the
 * disk (not pages whose writeback failed that the page cache still holds). 0, or EINVAL (dir NULL), EBADMSG, fn's non-zero return, ENOMEM, or
 * an I/O error. */
int conq_journal_replay(const char *dir, conq_journal_replay_fn fn, void *ctx);

/* The same, through opts->io (NULL opts or io: the file system), with *last
 * (may be NULL) set to the last valid sequence number (0: none) whatever
 * the result. fn may be NULL (a scan that only truncates). */
int conq_journal_replay_opts(const char *dir, const conq_journal_opts *opts,
			     conq_journal_replay_fn fn, void *ctx,
			     uint64_t *last);

/* CRC32C (Castagnoli) of len bytes, continuing from crc (0 to start): the
 * SSE4.2 or ARMv8 CRC instructions where the CPU has them, else tables. */
uint32_t conq_crc32c(uint32_t crc, const void *data, size_t len);
/* The implementation conq_crc32c uses: "sse4.2", "armv8", "table". */
const char *conq_crc32c_impl(void);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_JOURNAL_H */
