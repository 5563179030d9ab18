/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jbench.h - the pieces of conq-journal-bench (README.md in this folder):
 * the configuration, one run's figures, and the runs themselves: the
 * journal (journal.c), the contenders (raw.c: pwrite + fdatasync; fio.c:
 * the fio program; sqlite.c: SQLite in WAL mode, built where pkg-config
 * finds sqlite3), the replay against a read of the same files (replay.c)
 * and the helpers they share (util.c). main.c parses the options, lays
 * the files out, alternates the runs and reports.
 *
 * Every run has the same shape: the threads start together (two barriers:
 * ready, then go, so that the times are set while everyone waits), run a
 * warm-up of warmup_s that is not recorded, then a measured window of
 * duration_s; an operation counts when it started inside the window.
 * Times are CLOCK_MONOTONIC nanoseconds.
 */
#ifndef JBENCH_H
#define JBENCH_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "histogram.h"

#define JB_EXIT_USAGE 2 /* bad options, or a tmpfs --dir */
#define JB_EXIT_SETUP 3 /* the directory, the files, a journal open */
#define JB_EXIT_RUN   4 /* an I/O or SQLite error in a run */
#define JB_EXIT_INTR  130

#define JB_MAX_LIST	 16 /* entries in --threads and --sizes */
#define JB_MAX_THREADS	 1024u
#define JB_MAX_WINDOW	 4096u
#define JB_PAGE		 4096u /* the contenders' unit (raw, fio) */
#define JB_JOURNAL_FILES 8u    /* journal files laid out before the runs */

/* What a run measures. */
enum jb_what {
	JB_JOURNAL_CLOSED,
	JB_JOURNAL_OPEN,
	JB_RAW,	      /* pwrite + fdatasync, one thread */
	JB_FIO_PSYNC, /* fio psync, fdatasync=1 */
	JB_FIO_URING, /* fio io_uring, iodepth 16, fdatasync=16 */
	JB_FIO_AIO,   /* fio libaio, the same */
	JB_SQLITE,    /* SQLite WAL, synchronous=FULL */
	JB_NWHAT
};

typedef struct jb_cfg {
	unsigned threads[JB_MAX_LIST];
	size_t nthreads;
	size_t sizes[JB_MAX_LIST];
	size_t nsizes;
	double duration_s, warmup_s;
	unsigned iterations;
	bool closed, open; /* --mode */
	double rate;	   /* open loop, records/s in all; 0: half the
			      closed loop's */
	unsigned window;   /* closed loop: records in flight per producer */
	unsigned backend;  /* enum conq_journal_backend */
	uint64_t buffer_timeout_ns;
	bool fio, sqlite; /* wanted (and found) */
	bool smoke, allow_tmpfs, keep;
	const char *json_path;
	const char *parent;   /* --dir, or $TMPDIR, or /var/tmp */
	char root[PATH_MAX];  /* our fresh directory under parent */
	char jdir[PATH_MAX];  /* root/journal */
	char raw[PATH_MAX];   /* root/raw.dat: raw and fio write here */
	char sqlite_db[PATH_MAX];
	uint64_t raw_size;    /* bytes of raw.dat */
} jb_cfg;

/* One run's figures. Latencies in ns; lat[] is p50 p90 p99 p99.9 max. */
#define JB_NLAT 5
extern const double jb_lat_q[JB_NLAT]; /* 50 90 99 99.9 100 */
extern const char *const jb_lat_names[JB_NLAT];

typedef struct jb_result {
	bool ran;	/* attempted */
	bool ok;	/* measured without error */
	char err[200];	/* why not */
	unsigned threads;
	size_t size;	/* payload bytes per record (bs for raw and fio) */
	double elapsed_s;
	uint64_t records; /* in the window */
	double rec_s, mb_s; /* payload MB/s (10^6) */
	/* journal only (conq_journal_stats_get) */
	double disk_mb_s, syncs_s, rec_per_sync, rec_per_write;
	uint64_t new_files; /* files the journal created inside the run */
	unsigned backend;
	int direct;
	double rate;	/* open loop: the intended rate, records/s */
	/* latency: append (or the start of the op) to durable */
	uint64_t lat_count;
	double lat[JB_NLAT], lat_mean;
	double cpu_ns; /* process user + sys per record; < 0: not known */
} jb_result;

/* ---- util.c --------------------------------------------------------------- */

extern atomic_int jb_interrupted; /* SIGINT / SIGTERM seen */
extern const char *jb_prog;

uint64_t jb_now_ns(void);
void jb_sleep_until(uint64_t t_ns);
uint64_t jb_cpu_ns(void); /* getrusage(RUSAGE_SELF): user + sys */
/* The run's times: begin (now + a little), start of the window, end. */
typedef struct jb_times {
	uint64_t begin, start, end;
} jb_times;
void jb_times_set(jb_times *t, const jb_cfg *c);
/* A run's start: each thread passes the gate (ready, then waits); the main
 * thread waits for n of them, sets the times, and opens it (1: go, -1: a
 * thread did not start, everyone leaves). */
typedef struct jb_gate {
	pthread_mutex_t m;
	pthread_cond_t cv;
	unsigned ready;
	int state; /* 0 closed, 1 go, -1 abort */
} jb_gate;
void jb_gate_init(jb_gate *g);
void jb_gate_destroy(jb_gate *g);
bool jb_gate_pass(jb_gate *g); /* true: go */
void jb_gate_wait_ready(jb_gate *g, unsigned n);
void jb_gate_open(jb_gate *g, int state);
/* The latency figures of h into r. */
void jb_result_lat(jb_result *r, const cb_hist *h);
/* A result about to be measured: zeroed, ran and ok, no CPU figure yet. */
void jb_result_start(jb_result *r, unsigned threads, size_t size);
void jb_result_fail(jb_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
double jb_median(double *v, size_t n); /* sorts v */
size_t jb_round_up(size_t v, size_t to);
/* Lay out path: size bytes of zeros (O_DIRECT where open takes it), then
 * fdatasync. 0, or -1 with a message in err. */
int jb_prewrite(const char *path, uint64_t size, char *err, size_t n);
/* rm -r of a directory we made. */
int jb_remove_tree(const char *path);
/* The file system of path: its name (ext4, xfs, tmpfs...) or its magic in
 * hex; *is_tmpfs true for tmpfs and ramfs. */
void jb_fs_type(const char *path, char *name, size_t n, bool *is_tmpfs);
void jb_cpu_model(char *out, size_t n);
/* The program on $PATH: true when found (its path in out). */
bool jb_which(const char *prog, char *out, size_t n);
/* Run argv (argv[0] from $PATH), stdout into *out (malloc'd, NUL-ended),
 * stderr's first line into err. The exit status, or -1 (err says why). */
int jb_spawn(char *const argv[], char **out, char *err, size_t n);
void jb_json_str(FILE *f, const char *s);

/* ---- journal.c ------------------------------------------------------------ */

/* The journal's directory: created, the files laid out (open, close). */
int jb_journal_layout(const jb_cfg *c, char *err, size_t n);
/* One journal run: threads producers, records of size bytes, closed loop
 * (c->window in flight per producer) or open loop at rate records/s. */
void jb_journal_run(const jb_cfg *c, unsigned threads, size_t size,
		    bool open_loop, double rate, jb_result *r);
/* A session that only appends: open c->jdir's journal, append records of
 * size bytes (no done functions, nothing released), close (they are then
 * durable). 0, or -1 with a message in err. */
int jb_journal_fill(const jb_cfg *c, uint64_t records, size_t size, char *err,
		    size_t n);
/* conq_crc32c over len-byte buffers for about secs: GB/s (10^9). */
double jb_crc32c_gbs(size_t len, double secs);
const char *jb_backend_name(unsigned backend);

/* ---- replay.c ------------------------------------------------------------- */

/* Is replay limited by the device? conq_journal_replay of the journal the
 * runs left against a sequential read of the same files, both in the same
 * cache state: warm (the files just read) and cold (dropped first). */
#define JB_REPLAY_MIN	    ((uint64_t)20 << 20) /* records on disk, at least */
#define JB_REPLAY_MIN_SMOKE ((uint64_t)4 << 20)	 /* the same, --smoke */
#define JB_FILL_SIZE	    4096u /* the top-up's records, bytes */
#define JB_READ_CHUNK	    ((size_t)1 << 20) /* the read's pread size */

typedef struct jb_replay {
	const jb_cfg *c;
	/* the journal, as a replay through a counting I/O layer found it
	 * (after the top-up) */
	uint64_t filled; /* JB_FILL_SIZE-byte records appended to reach the
			    minimum (0: the last run left enough) */
	double fill_s;
	uint64_t records, payload; /* what replay returns */
	uint64_t rec_bytes; /* the records on disk: header + payload, each
			       padded to the 512-byte sector */
	uint64_t scanned;   /* bytes of the files replay reads: each file up
			       to the furthest byte it read (the replay
			       figures divide by this) */
	uint64_t pread_bytes; /* all its preads, re-reads included */
	unsigned used_files;  /* files it read past the header sector */
	/* every journal-*.cqj of the directory, by name: the read's files */
	char **paths;
	uint64_t *sizes;
	unsigned nfiles;
	uint64_t file_bytes;
	unsigned char *buf; /* JB_READ_CHUNK bytes, page-aligned */
	/* the cold state: fdatasync + posix_fadvise(DONTNEED) on each file;
	 * as root also sync() and drop_caches */
	int drop_caches; /* 0 not root, 1 used, -1 failed (drop_err) */
	char drop_err[96];
} jb_replay;

/* Count the journal, top it up to JB_REPLAY_MIN (JB_REPLAY_MIN_SMOKE with
 * --smoke) of records on disk, count it again, list the files. 0, or -1
 * with a message in err. */
int jb_replay_setup(const jb_cfg *c, jb_replay *rp, char *err, size_t n);
/* One timed pass, the cache made cold or warm first: conq_journal_replay
 * (records/s, and mb_s over rp->scanned) or the read (mb_s over the files'
 * bytes); cpu_ns: the thread's CPU time over the pass (not per record).
 * *cached: the fraction of the files' pages that were in the page cache
 * just before the timed part (mincore; NAN when not known). */
void jb_replay_pass(jb_replay *rp, bool cold, bool read, jb_result *r,
		    double *cached);
/* How the cold state was made, in words. */
void jb_replay_drop_desc(const jb_replay *rp, char *out, size_t n);
void jb_replay_free(jb_replay *rp);

/* ---- raw.c ---------------------------------------------------------------- */

/* One thread: pwrite of bs bytes then fdatasync, sequentially over
 * c->raw, wrapping at its end. */
void jb_raw_run(const jb_cfg *c, size_t bs, jb_result *r);

/* ---- fio.c ---------------------------------------------------------------- */

/* fio on $PATH: its version ("fio-3.33") into ver. */
bool jb_fio_find(char *ver, size_t n);
/* One fio job (what: JB_FIO_*), bs-byte sequential O_DIRECT writes over
 * c->raw, time based: warm-up as ramp_time, then the duration. */
void jb_fio_run(const jb_cfg *c, enum jb_what what, size_t bs, jb_result *r);

/* ---- sqlite.c --------------------------------------------------------------- */

/* Built with SQLite where CMake found it (JB_HAVE_SQLITE), else stubs.
 * The library's version, or NULL when the tool was built without it. */
const char *jb_sqlite_version(void);
/* The database: WAL, the table; one connection stays open until
 * jb_sqlite_done, so that the WAL file is kept between runs. */
int jb_sqlite_layout(const jb_cfg *c, char *err, size_t n);
void jb_sqlite_run(const jb_cfg *c, unsigned threads, size_t size,
		   jb_result *r);
void jb_sqlite_done(void);

#endif /* JBENCH_H */
