/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sqlite.c - the SQLite contender: what a user would pick instead of a
 * journal. The database is in WAL mode; every connection runs with PRAGMA
 * synchronous=FULL (the WAL is synced at every commit, so a committed row
 * is durable as a journal record is) and a busy timeout. A record is one
 * row of table t (k INTEGER PRIMARY KEY, v BLOB of size bytes) in a
 * transaction of its own: BEGIN IMMEDIATE, INSERT, COMMIT, with prepared
 * statements. The run has the journal's closed-loop shape: threads
 * threads, each with its own connection, one record at a time; latency is
 * BEGIN to COMMIT's return.
 *
 * One more connection stays open from the layout to the end of the tool:
 * while it is open the WAL file is kept (the last connection to close
 * would checkpoint and delete it), so no run measures a fresh WAL. Before
 * each run it empties the table and checkpoints, off the clock.
 *
 * Built with SQLite where CMake's pkg-config finds sqlite3
 * (JB_HAVE_SQLITE); without it these are stubs and the contender is
 * reported as not built.
 */
#include <stdlib.h>
#include <string.h>

#include "jbench.h"

#ifdef JB_HAVE_SQLITE

#include <sqlite3.h>

#define BUSY_TIMEOUT_MS 60000

static sqlite3 *holder; /* keeps the WAL file between runs */

const char *jb_sqlite_version(void)
{
	return sqlite3_libversion();
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t n)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		snprintf(err, n, "sqlite: %s: %s", sql,
			 msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int wal_cb(void *ctx, int ncol, char **val, char **col)
{
	(void)ncol;
	(void)col;
	snprintf(ctx, 16, "%s", val[0] ? val[0] : "");
	return 0;
}

int jb_sqlite_layout(const jb_cfg *c, char *err, size_t n)
{
	if (sqlite3_threadsafe() == 0) {
		snprintf(err, n, "sqlite: the library was built without "
				 "threads (SQLITE_THREADSAFE=0)");
		return -1;
	}
	int rc = sqlite3_open_v2(c->sqlite_db, &holder,
				 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				     SQLITE_OPEN_NOMUTEX,
				 NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, n, "sqlite: open %s: %s", c->sqlite_db,
			 holder ? sqlite3_errmsg(holder) : sqlite3_errstr(rc));
		sqlite3_close(holder);
		holder = NULL;
		return -1;
	}
	sqlite3_busy_timeout(holder, BUSY_TIMEOUT_MS);
	char mode[16] = "";
	char *msg = NULL;
	rc = sqlite3_exec(holder, "PRAGMA journal_mode=WAL", wal_cb, mode,
			  &msg);
	if (rc != SQLITE_OK || strcmp(mode, "wal") != 0) {
		snprintf(err, n, "sqlite: PRAGMA journal_mode=WAL gave '%s' (%s)",
			 mode, msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		jb_sqlite_done();
		return -1;
	}
	if (exec(holder, "PRAGMA synchronous=FULL", err, n) != 0 ||
	    exec(holder,
		 "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v BLOB)",
		 err, n) != 0) {
		jb_sqlite_done();
		return -1;
	}
	return 0;
}

void jb_sqlite_done(void)
{
	if (holder != NULL)
		sqlite3_close(holder);
	holder = NULL;
}

typedef struct srun srun;

typedef struct writer {
	srun *run;
	unsigned id;
	pthread_t tid;
	cb_hist *hist;
	uint64_t n; /* records in the window */
	char err[200];
} writer;

struct srun {
	const jb_cfg *c;
	size_t size;
	jb_times t;
	jb_gate gate;
};

static void werr(writer *w, sqlite3 *db, const char *what)
{
	if (w->err[0] == '\0')
		snprintf(w->err, sizeof w->err, "sqlite: %s: %s", what,
			 db ? sqlite3_errmsg(db) : "out of memory");
}

static bool step(writer *w, sqlite3 *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		werr(w, db, what);
		return false;
	}
	return true;
}

static void *writer_main(void *arg)
{
	writer *w = arg;
	srun *r = w->run;
	sqlite3 *db = NULL;
	sqlite3_stmt *begin = NULL, *ins = NULL, *commit = NULL;
	unsigned char *blob = malloc(r->size + 1);
	bool ready = blob != NULL;
	if (ready) {
		memset(blob, 0x3c ^ (int)(w->id & 0xff), r->size);
		int rc = sqlite3_open_v2(r->c->sqlite_db, &db,
					 SQLITE_OPEN_READWRITE |
					     SQLITE_OPEN_NOMUTEX,
					 NULL);
		if (rc != SQLITE_OK) {
			werr(w, db, "open");
			ready = false;
		}
	} else {
		werr(w, NULL, "payload");
	}
	if (ready) {
		sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
		ready = sqlite3_exec(db, "PRAGMA synchronous=FULL", NULL,
				     NULL, NULL) == SQLITE_OK &&
			sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin,
					   NULL) == SQLITE_OK &&
			sqlite3_prepare_v2(db,
					   "INSERT INTO t (k, v) VALUES (?1, ?2)",
					   -1, &ins, NULL) == SQLITE_OK &&
			sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL) ==
			    SQLITE_OK;
		if (!ready)
			werr(w, db, "prepare");
	}
	/* Everyone passes the gate, ready or not: the run's error says who
	 * was not. */
	bool go = jb_gate_pass(&r->gate);
	if (go && ready) {
		while (jb_now_ns() < r->t.begin)
			jb_sleep_until(r->t.begin);
		uint64_t key = (uint64_t)w->id << 40;
		for (;;) {
			uint64_t t0 = jb_now_ns();
			if (t0 >= r->t.end ||
			    atomic_load_explicit(&jb_interrupted,
						 memory_order_relaxed))
				break;
			if (!step(w, db, begin, "BEGIN IMMEDIATE"))
				break;
			sqlite3_bind_int64(ins, 1, (sqlite3_int64)key++);
			sqlite3_bind_blob(ins, 2, blob, (int)r->size,
					  SQLITE_STATIC);
			if (!step(w, db, ins, "INSERT")) {
				sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
				break;
			}
			if (!step(w, db, commit, "COMMIT")) {
				sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
				break;
			}
			uint64_t t1 = jb_now_ns();
			if (t0 >= r->t.start) {
				cb_hist_record(w->hist, t1 - t0);
				w->n++;
			}
		}
	}
	sqlite3_finalize(begin);
	sqlite3_finalize(ins);
	sqlite3_finalize(commit);
	sqlite3_close(db);
	free(blob);
	return NULL;
}

void jb_sqlite_run(const jb_cfg *c, unsigned threads, size_t size,
		   jb_result *res)
{
	memset(res, 0, sizeof *res);
	res->ran = true;
	res->ok = true;
	res->threads = threads;
	res->size = size;
	res->cpu_ns = -1.0;
	if (holder == NULL) {
		jb_result_fail(res, "sqlite: not laid out");
		return;
	}
	char err[256];
	if (exec(holder, "DELETE FROM t", err, sizeof err) != 0 ||
	    exec(holder, "PRAGMA wal_checkpoint(RESTART)", err, sizeof err) !=
		0) {
		jb_result_fail(res, "%s", err);
		return;
	}
	srun r;
	memset(&r, 0, sizeof r);
	r.c = c;
	r.size = size;
	writer *ws = calloc(threads, sizeof *ws);
	cb_hist *all = cb_hist_new();
	bool mem = ws != NULL && all != NULL;
	for (unsigned i = 0; mem && i < threads; i++) {
		ws[i].run = &r;
		ws[i].id = i;
		ws[i].hist = cb_hist_new();
		mem = ws[i].hist != NULL;
	}
	if (!mem) {
		jb_result_fail(res, "out of memory");
		goto out;
	}
	jb_gate_init(&r.gate);
	unsigned started = 0;
	for (unsigned i = 0; i < threads; i++) {
		int e = pthread_create(&ws[i].tid, NULL, writer_main, &ws[i]);
		if (e != 0) {
			jb_result_fail(res, "pthread_create: %s", strerror(e));
			break;
		}
		started++;
	}
	jb_gate_wait_ready(&r.gate, started);
	uint64_t cpu0 = 0, cpu1 = 0, w1 = 0;
	if (started == threads) {
		jb_times_set(&r.t, c);
		jb_gate_open(&r.gate, 1);
		jb_sleep_until(r.t.start);
		cpu0 = jb_cpu_ns();
		while ((w1 = jb_now_ns()) < r.t.end &&
		       !atomic_load_explicit(&jb_interrupted,
					     memory_order_relaxed))
			jb_sleep_until(r.t.end);
		cpu1 = jb_cpu_ns();
		if (w1 > r.t.end)
			w1 = r.t.end;
	} else {
		jb_gate_open(&r.gate, -1);
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(ws[i].tid, NULL);
	jb_gate_destroy(&r.gate);
	if (started == threads) {
		uint64_t n = 0;
		for (unsigned i = 0; i < threads; i++) {
			if (ws[i].err[0] != '\0')
				jb_result_fail(res, "thread %u: %s", i,
					       ws[i].err);
			cb_hist_merge(all, ws[i].hist);
			n += ws[i].n;
		}
		/* The transactions that started in the window. */
		double secs = w1 > r.t.start ? (double)(w1 - r.t.start) / 1e9
					     : c->duration_s;
		res->records = n;
		res->elapsed_s = secs;
		res->rec_s = (double)n / secs;
		res->mb_s = res->rec_s * (double)size / 1e6;
		res->cpu_ns = n ? (double)(cpu1 - cpu0) / (double)n : -1.0;
		jb_result_lat(res, all);
		if (n == 0)
			jb_result_fail(res, "no record in the window");
	}
out:
	for (unsigned i = 0; ws != NULL && i < threads; i++)
		cb_hist_free(ws[i].hist);
	free(ws);
	cb_hist_free(all);
}

#else /* !JB_HAVE_SQLITE */

const char *jb_sqlite_version(void)
{
	return NULL;
}

int jb_sqlite_layout(const jb_cfg *c, char *err, size_t n)
{
	(void)c;
	snprintf(err, n, "built without SQLite");
	return -1;
}

void jb_sqlite_run(const jb_cfg *c, unsigned threads, size_t size,
		   jb_result *r)
{
	(void)c;
	jb_result_start(r, threads, size);
	jb_result_fail(r, "built without SQLite");
}

void jb_sqlite_done(void)
{
}

#endif /* JB_HAVE_SQLITE */
