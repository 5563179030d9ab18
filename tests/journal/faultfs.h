/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/journal/faultfs.h - an in-memory conq_journal_io that injects faults
 * and simulates crashes (the idea of RocksDB's FaultInjectionTestFS).
 *
 * Files live in memory, in a map from path ("dir/name") to file. A directory
 * exists once faultfs_mkdir made it (list, sync_dir and open with create in
 * an unknown one: -ENOENT). Paths are compared after collapsing repeated '/'
 * and dropping a trailing one.
 *
 * Each file has
 *   - a volatile image (the page cache: what size and a buffered pread
 *     see): every pwrite lands there;
 *   - a durable image (bytes and size): what survives a crash for sure;
 *   - the pending writes: every pwrite since the file's last datasync, with
 *     its offset and bytes, in the order they were done (a global write
 *     number orders the writes of all files).
 * datasync(h) makes the volatile image durable (it applies the pending
 * writes to the durable image, size included) and clears them.
 * A pread through a handle opened with direct (O_DIRECT) reads the disk:
 * the durable image with the pending writes applied on top (Linux writes
 * the range's dirty pages back before a direct read; durable or not, they
 * are on the disk then), zeros past that up to the volatile size (the size
 * is the inode's, whatever the handle). It differs from a buffered pread
 * only after a failed datasync dropped pending writes
 * (FAULTFS_LOSE_ON_SYNC_FAIL): those stay in the volatile image, never on
 * the disk, until a later pwrite writes the range again.
 * A file's creation (its directory entry) becomes durable with sync_dir of
 * its directory or with the file's own datasync (ext4 and XFS commit a new
 * inode with its first fsync; POSIX asks for the directory fsync too: the
 * journal should do both). At a crash, a file whose entry is not durable is
 * lost in DROP mode, and survives (with whatever of its data the mode keeps,
 * maybe nothing: size 0) in every other mode.
 *
 * list() gives the names in reverse creation order (readdir order is not
 * creation order; a journal must not rely on it). fd() returns -1 (the
 * journal uses its psync backend). One mutex serialises every call: the
 * journal calls from several threads.
 *
 * Fault injection (counters count the calls of each kind since the faultfs
 * was made, from 1): the Nth pwrite, or the Nth datasync, fails with a
 * chosen errno (one call); or every call from the Nth call of any kind on
 * fails. A failed pwrite writes nothing. A failed datasync leaves the
 * pending writes pending, or, with FAULTFS_LOSE_ON_SYNC_FAIL, drops them the
 * way Linux does after a writeback error (the pages are marked clean: still
 * readable through the page cache, neither on the disk nor durable, and a
 * direct pread does not see them; a later datasync returns 0 without making
 * them durable), so that a journal retrying a failed fdatasync would lose
 * data.
 *
 * Crash: a trigger (after the Nth pwrite has been applied, or now) freezes
 * the faultfs: it takes a snapshot of every file's durable image and pending
 * writes, and from then on every call returns -EIO (the journal can
 * acknowledge nothing more: a record acknowledged with err 0 had its
 * datasync before the trigger, so it is in the snapshot's durable images).
 *
 * faultfs_from_snapshot makes a new faultfs (no faults, everything durable)
 * from a snapshot with a crash mode applied, at sector granularity, to the
 * pending writes. The pending sector list is every (write, sector) pair of
 * the pending writes of all files, in write order (sectors of one write in
 * offset order); a kept pair copies that write's bytes within that sector
 * (later kept pairs over earlier ones). Sectors that no kept pair covers stay
 * as in the durable image (zeros beyond its size); the file's size is the
 * durable size, extended to the end of the last kept bytes.
 *   DROP         keep none
 *   KEEP         keep all (the volatile image, less what a failed datasync
 *                dropped)
 *   TEAR_PREFIX  keep the first `prefix` pairs of the list
 *   TEAR_RANDOM  keep each pair with probability keep_permille/1000 (seeded)
 *   FLIP         keep all, then flip one bit (seeded) among the bytes that
 *                one pending pair wrote
 *   ZERO         the pending sectors read as zeros: allocated, never written
 *                (the size is extended to the end of every pending write)
 */
#ifndef CONQ_TESTS_FAULTFS_H
#define CONQ_TESTS_FAULTFS_H

#include <stddef.h>
#include <stdint.h>

#include "conq/journal_io.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct faultfs faultfs;
typedef struct faultfs_snapshot faultfs_snapshot;

enum {
	/* A failed datasync drops the file's pending writes (never durable). */
	FAULTFS_LOSE_ON_SYNC_FAIL = 1u << 0,
	/* open with direct set returns -EINVAL (the journal retries without). */
	FAULTFS_REFUSE_DIRECT = 1u << 1,
};

/* A new, empty faultfs. sector_size (0: 512) is the crash granularity and,
 * for handles opened with direct, the alignment that pread and pwrite must
 * keep (offset, length, buffer address), else -EINVAL as O_DIRECT gives.
 * NULL on failure (ENOMEM). */
faultfs *faultfs_new(unsigned sector_size, unsigned flags);
void faultfs_free(faultfs *fs);
/* The I/O layer (valid until faultfs_free). */
const conq_journal_io *faultfs_io(faultfs *fs);

/* Make a directory (no parents needed). 0 or -ENOMEM. */
int faultfs_mkdir(faultfs *fs, const char *dir);

/* Faults: err is a positive errno (EIO, ENOSPC...). nth counts from 1 as
 * the stats do; 0 disarms. */
void faultfs_fail_pwrite(faultfs *fs, uint64_t nth, int err);
void faultfs_fail_datasync(faultfs *fs, uint64_t nth, int err);
void faultfs_fail_from(faultfs *fs, uint64_t nth_call, int err);
void faultfs_clear_faults(faultfs *fs);

/* Crash: freeze right after the Nth pwrite has been applied (0 disarms), or
 * now. Frozen, every call returns -EIO (close still frees the handle). */
void faultfs_crash_after_pwrite(faultfs *fs, uint64_t nth);
void faultfs_crash_now(faultfs *fs);
int faultfs_crashed(faultfs *fs);
/* The frozen snapshot (NULL when not crashed); the caller owns it. */
faultfs_snapshot *faultfs_take_snapshot(faultfs *fs);
/* A snapshot of the state now without freezing (NULL: ENOMEM). */
faultfs_snapshot *faultfs_snapshot_now(faultfs *fs);
void faultfs_snapshot_free(faultfs_snapshot *s);
/* Pairs in the pending sector list; pending writes. */
size_t faultfs_snapshot_pending_sectors(const faultfs_snapshot *s);
size_t faultfs_snapshot_pending_writes(const faultfs_snapshot *s);
/* Print the snapshot's files and pending writes (debugging). */
void faultfs_snapshot_dump(const faultfs_snapshot *s, void *stdio_file);

enum faultfs_mode {
	FAULTFS_DROP,
	FAULTFS_KEEP,
	FAULTFS_TEAR_PREFIX,
	FAULTFS_TEAR_RANDOM,
	FAULTFS_FLIP,
	FAULTFS_ZERO,
};

typedef struct faultfs_crash {
	enum faultfs_mode mode;
	size_t prefix;		/* TEAR_PREFIX: pairs kept */
	uint64_t seed;		/* TEAR_RANDOM, FLIP */
	unsigned keep_permille; /* TEAR_RANDOM: 0 means 500 */
} faultfs_crash;

/* What a crash did (for failure reports). */
typedef struct faultfs_crash_info {
	size_t kept;		/* pairs kept */
	size_t pending;		/* pairs in the list */
	char flip_path[128];	/* FLIP: the file ("" if nothing to flip) */
	uint64_t flip_off;	/* FLIP: the byte */
	unsigned flip_bit;	/* FLIP: the bit (0..7) */
} faultfs_crash_info;

/* A new faultfs (flags as given) holding the crashed image; info may be
 * NULL. NULL on failure (ENOMEM). */
faultfs *faultfs_from_snapshot(const faultfs_snapshot *s,
			       const faultfs_crash *crash, unsigned flags,
			       faultfs_crash_info *info);

/* Calls so far, by kind. */
typedef struct faultfs_stats {
	uint64_t calls; /* every call of any kind */
	uint64_t opens, closes, preads, pwrites, datasyncs, sync_dirs, lists,
		sizes;
	uint64_t bytes_written;
	uint64_t faults;	/* calls failed by injection */
	uint64_t after_crash;	/* calls refused once frozen */
	uint64_t bad_handles;	/* calls on a handle not open: -EBADF */
	uint64_t misaligned;	/* direct pread/pwrite misaligned: -EINVAL */
	/* pwrites over durable non-zero bytes: with some byte different
	 * (in-place rewrite of synced data: recycling a released file, say),
	 * or all of them the same (rewriting a synced partial sector). */
	uint64_t durable_rewrites;
	uint64_t durable_same_rewrites;
	uint64_t open_handles;	/* handles open now */
} faultfs_stats;
void faultfs_get_stats(faultfs *fs, faultfs_stats *out);

/* Direct access for tests (no fault, no counter). */
/* Each file's path under dir (NULL: every file), in name order: fn(ctx,
 * path, volatile size); a non-zero return stops the walk and is returned. */
int faultfs_walk(faultfs *fs, const char *dir,
		 int (*fn)(void *ctx, const char *path, uint64_t size),
		 void *ctx);
/* Copy up to len bytes of path's volatile image at off; the count, or -1
 * when there is no such file. */
int64_t faultfs_peek(faultfs *fs, const char *path, uint64_t off, void *buf,
		     size_t len);
/* XOR mask into the byte at off of path, in every image (volatile, durable,
 * the disk a direct pread reads) and pending write that holds it (a
 * corruption of durable data). 0, or -1 (no such file, off past the
 * end). */
int faultfs_corrupt(faultfs *fs, const char *path, uint64_t off,
		    unsigned char mask);

/* A readable name of a mode ("drop", "tear-prefix"...). */
const char *faultfs_mode_name(enum faultfs_mode m);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_TESTS_FAULTFS_H */
