/* SPDX-License-Identifier: BSD-2-Clause */
/* src/journal/jinternal.h - libconq-journal's internals; not installed.
 *
 * On disk (little-endian; docs/design.md, "The journal"):
 *
 *   file header, sector 0 of every file (64 bytes used, the rest zero):
 *     0 magic "CQJF"  4 crc32c (of bytes 0-63 with this field zero)
 *     8 version 1    12 sector size   16 file size
 *    24 file id (0: free)   32 first seq   40 last id   48..63 zero
 *   A used file's first seq is its first record's; a free file's first seq
 *   is the sequence number after the last record it held, and its last id
 *   the id it had (so that ids and sequence numbers never go back, even when
 *   every file is released). A file of zeros is free and says nothing.
 *
 *   record, at a sector boundary, padded with zeros to the next one:
 *     0 magic "CQJR"  4 crc32c (of bytes 0-3, 8-39 and the payload)
 *     8 payload length   12 type   16 seq   24 file id
 *    32 durable: every record with a smaller seq was durable when this one
 *       was appended (replay tells a corrupt durable record from a torn
 *       tail by it)
 *    40 payload
 */
#ifndef CONQ_JOURNAL_INTERNAL_H
#define CONQ_JOURNAL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "conq/journal.h"
#include "conq/journal_io.h"

#define JF_MAGIC      0x464A5143u /* "CQJF" */
#define JR_MAGIC      0x524A5143u /* "CQJR" */
#define JF_VERSION    1u
#define JF_HEADER_LEN 64u
#define JR_HEADER_LEN CONQ_JOURNAL_RECORD_HEADER
#define JNAME_FMT     "journal-%06u.cqj"
#define JNAME_MAX     64
#define JFILES_MAX    4096u
#define JMIN_SECTOR   512u
/* The largest record payload a journal can write (a buffer's size at most):
 * a longer length field is not a record, whatever its CRC. */
#define JR_MAX_LEN    ((uint32_t)64 << 20)

struct jf_header {
	uint32_t sector_size;
	uint64_t file_size;
	uint64_t file_id;
	uint64_t first_seq;
	uint64_t last_id;
};

struct jr_header {
	uint32_t len;
	uint32_t type;
	uint64_t seq;
	uint64_t file_id;
	uint64_t durable;
};

static inline uint64_t j_pad(uint64_t n, uint64_t sector)
{
	return (n + sector - 1) & ~(sector - 1);
}

/* format.c */
void jf_encode(unsigned char out[JF_HEADER_LEN], const struct jf_header *h);
/* 1 valid, 0 not (zeros, torn, other magic). */
int jf_decode(const unsigned char in[JF_HEADER_LEN], struct jf_header *h);
/* The header (crc over it and the payload); out has JR_HEADER_LEN bytes. */
void jr_encode(unsigned char *out, const struct jr_header *h,
	       const void *payload);
/* Parse the header only: 1 when the magic is there and len is sane for
 * `room` bytes from the header on; check the crc with jr_check. */
int jr_peek(const unsigned char *in, uint64_t room, struct jr_header *h);
/* 1 when the crc over header and payload (in[JR_HEADER_LEN..]) matches. */
int jr_check(const unsigned char *in, const struct jr_header *h);
int j_name_index(const char *name, unsigned *index);

/* replay.c: the scan that replay and open share. */
struct jscan_file {
	unsigned index; /* journal-<index>.cqj */
	int handle;	/* open, buffered (the I/O layer's): writes, syncs */
	int dhandle;	/* open with O_DIRECT for reads, or -1 */
	uint64_t size;
	struct jf_header h; /* valid only when used != 0 */
	int used;	    /* a used file within the journal's valid prefix */
};

struct jscan {
	struct jscan_file *files; /* every journal file, by index */
	unsigned nfiles;
	uint32_t sector;   /* from the headers (0: no header says) */
	uint64_t next_seq; /* the sequence number to continue with */
	uint64_t next_id;  /* the file id to continue with */
	uint64_t last;	   /* the last valid seq (0: none) */
};

/* Scan dir through io: fn per record (may be NULL), truncate the tail and
 * free the files past it. On success (0) *out holds every file (handles
 * open: jscan_close closes them); on failure nothing is left open. */
int jscan_run(const char *dir, const conq_journal_io *io,
	      conq_journal_replay_fn fn, void *ctx, struct jscan *out);
void jscan_close(const conq_journal_io *io, struct jscan *s);
/* "dir/name" into buf (JPATH_MAX); -ENAMETOOLONG. */
#define JPATH_MAX 4096
int j_path(char *buf, const char *dir, const char *name);

/* engine.c: the write engines (io_uring, libaio; psync is the journal's
 * own loop). submit queues one write (cookie comes back from reap); reap
 * waits for at least `min` completions (0: none) and returns how many it
 * stored, or -errno. */
struct jengine;
struct jengine *jengine_new(unsigned kind, unsigned depth, unsigned nslots,
			    int *err);
int jengine_submit(struct jengine *e, unsigned slot, int fd, const void *buf,
		   size_t len, uint64_t off, void *cookie);
int jengine_reap(struct jengine *e, void **cookies, int64_t *res, int max,
		 int min);
void jengine_free(struct jengine *e);
/* Whether the kind was built in. */
int jengine_built(unsigned kind);

#endif
