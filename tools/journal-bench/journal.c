/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * journal.c - conq-journal-bench's journal runs, a session that only appends
 * (replay.c tops the journal up with it) and the CRC32C throughput.
 *
 * A run opens the journal laid out in c->jdir (JB_JOURNAL_FILES pre-written
 * files), releases what the previous run left, and starts the producers:
 *
 *   closed loop  each producer keeps at most c->window records in flight:
 *                it appends, and before the next append beyond the window
 *                it waits for its oldest record's done function (window 1:
 *                one durable record at a time, what a user of a durable
 *                journal does). Latency: the append call to the done
 *                function.
 *   open loop    the producers append at rate records/s together, each
 *                on its own schedule (rate / threads, the producers
 *                staggered), without waiting for durability; a late
 *                producer catches up back to back. Latency: the record's
 *                intended time to its done function (no coordinated
 *                omission: a stall in append shows as the latency of every
 *                record that was due during it).
 *
 * The done functions run on the journal's completion thread one at a time,
 * in sequence order: the run's one histogram is recorded there, and a
 * producer's records complete in its own append order, so its k-th done
 * call is its k-th record (its send time is in a ring of window slots, or
 * computed from k in the open loop). A producer waiting for room sleeps on
 * a futex that the done function wakes only when the producer said it
 * sleeps.
 *
 * While the run goes, the main thread releases the records that are
 * durable except about one file's worth (so the files are recycled, as a
 * user who applies the records would, and the last run leaves a journal to
 * replay: replay.c), and reads conq_journal_stats_get at the window's
 * edges: the records/s, MB/s, syncs/s and batching come from its counters.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <conq/journal.h>

#include "jbench.h"

#define RECORD_TYPE 1u
#define TICK_NS	    5000000u /* the release loop's period */

typedef struct jrun jrun;

typedef struct producer {
	jrun *run;
	unsigned id;
	pthread_t tid;
	uint64_t issued; /* producer only */
	int err;	 /* producer only: append's error */
	/* written by the done function, a cache line away from the
	 * producer's fields (calloc does not align to lines: padding) */
	char pad1[64];
	atomic_uint done;    /* completed records, mod 2^32: the futex word */
	atomic_int sleeping; /* the producer waits on done */
	uint64_t ncomp;	     /* completion thread only */
	char pad2[64];
	/* closed loop: send times, window slots; open loop: the schedule */
	uint64_t *send;
	uint64_t t0;
	double interval_ns;
	unsigned char *payload;
} producer;

struct jrun {
	const jb_cfg *c;
	conq_journal *j;
	size_t size;
	bool open_loop;
	unsigned window;
	jb_times t;
	jb_gate gate;
	/* completion thread only */
	cb_hist *hist;
	uint64_t errors;
	int first_err;
	uint64_t last_seq, out_of_order; /* the header's promise, checked */
	/* the last durable sequence number, for the release loop */
	atomic_uint_least64_t durable;
};

static long futex(atomic_uint *w, int op, unsigned v)
{
	return syscall(SYS_futex, (unsigned *)w, op, v, NULL, NULL, 0);
}

const char *jb_backend_name(unsigned backend)
{
	switch (backend) {
	case CONQ_JOURNAL_AUTO:
		return "auto";
	case CONQ_JOURNAL_IO_URING:
		return "io_uring";
	case CONQ_JOURNAL_LIBAIO:
		return "libaio";
	case CONQ_JOURNAL_PSYNC:
		return "psync";
	default:
		return "?";
	}
}

static void jopts(const jb_cfg *c, conq_journal_opts *o)
{
	memset(o, 0, sizeof *o);
	o->backend = c->backend;
	o->buffer_timeout_ns = c->buffer_timeout_ns;
	o->files = JB_JOURNAL_FILES;
}

int jb_journal_layout(const jb_cfg *c, char *err, size_t n)
{
	if (mkdir(c->jdir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, n, "%s: %s", c->jdir, strerror(errno));
		return -1;
	}
	conq_journal_opts o;
	jopts(c, &o);
	conq_journal *j = conq_journal_open(c->jdir, &o);
	if (j == NULL) {
		int e = errno;
		if (e == ENOTSUP)
			snprintf(err, n,
				 "the journal's %s backend is not available "
				 "(not built in, or it cannot start here): "
				 "try --backend=auto",
				 jb_backend_name(c->backend));
		else
			snprintf(err, n, "conq_journal_open %s: %s", c->jdir,
				 strerror(e));
		return -1;
	}
	int rc = conq_journal_close(j);
	if (rc != 0) {
		snprintf(err, n, "conq_journal_close: %s", strerror(rc));
		return -1;
	}
	return 0;
}

/* ---- the producers ------------------------------------------------------- */

static void on_done(void *ctx, uint64_t seq, int err)
{
	producer *p = ctx;
	jrun *r = p->run;
	uint64_t now = jb_now_ns();
	uint64_t k = p->ncomp++;
	uint64_t sent = r->open_loop
			    ? p->t0 + (uint64_t)((double)k * p->interval_ns)
			    : p->send[k % r->window];
	if (seq <= r->last_seq)
		r->out_of_order++;
	r->last_seq = seq;
	if (err != 0) {
		if (r->errors++ == 0)
			r->first_err = err;
	} else if (sent >= r->t.start && sent < r->t.end) {
		cb_hist_record(r->hist, now > sent ? now - sent : 0);
	}
	atomic_store_explicit(&r->durable, seq, memory_order_relaxed);
	/* [D1] seq_cst: the new count before the sleeping flag; pairs with
	 * [W1], so that one of the two sees the other's store. */
	atomic_store(&p->done, (unsigned)(k + 1));
	if (atomic_load(&p->sleeping) && atomic_exchange(&p->sleeping, 0))
		futex(&p->done, FUTEX_WAKE_PRIVATE, 1);
}

/* Wait until at most max of p's records are in flight. */
static void wait_inflight(producer *p, uint64_t max)
{
	for (;;) {
		unsigned d = atomic_load_explicit(&p->done,
						  memory_order_acquire);
		if ((unsigned)((unsigned)p->issued - d) <= max)
			return;
		/* [W1] seq_cst: the flag before the second look at done;
		 * pairs with [D1]. */
		atomic_store(&p->sleeping, 1);
		if (atomic_load(&p->done) == d)
			futex(&p->done, FUTEX_WAIT_PRIVATE, d);
		atomic_store(&p->sleeping, 0);
	}
}

static int append(producer *p)
{
	jrun *r = p->run;
	p->issued++; /* first: the done function may run before append
			returns */
	int e = conq_journal_append(r->j, RECORD_TYPE, p->payload, r->size,
				    on_done, p, NULL);
	if (e != 0) {
		p->issued--;
		p->err = e;
	}
	return e;
}

static void *producer_main(void *arg)
{
	producer *p = arg;
	jrun *r = p->run;
	/* Open loop: wake on time (the default timer slack is 50 us). */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if (!jb_gate_pass(&r->gate))
		return NULL;
	const uint64_t t_end = r->t.end;
	if (r->open_loop) {
		for (uint64_t k = 0;; k++) {
			uint64_t due =
			    p->t0 + (uint64_t)((double)k * p->interval_ns);
			if (due >= t_end ||
			    atomic_load_explicit(&jb_interrupted,
						 memory_order_relaxed))
				break;
			if (jb_now_ns() < due)
				jb_sleep_until(due);
			if (append(p) != 0)
				break;
		}
	} else {
		while (jb_now_ns() < r->t.begin)
			jb_sleep_until(r->t.begin);
		const uint64_t w = r->window;
		for (;;) {
			wait_inflight(p, w - 1);
			uint64_t now = jb_now_ns();
			if (now >= t_end ||
			    atomic_load_explicit(&jb_interrupted,
						 memory_order_relaxed))
				break;
			p->send[p->issued % w] = now;
			if (append(p) != 0)
				break;
		}
	}
	wait_inflight(p, 0);
	return NULL;
}

/* ---- a run ----------------------------------------------------------------- */

static void stats_delta(jb_result *res, const conq_journal_stats *a,
			const conq_journal_stats *b, double secs)
{
	uint64_t recs = b->records - a->records;
	uint64_t syncs = b->syncs - a->syncs;
	uint64_t writes = b->writes - a->writes;
	res->records = recs;
	res->elapsed_s = secs;
	res->rec_s = secs > 0 ? (double)recs / secs : 0.0;
	res->mb_s = res->rec_s * (double)res->size / 1e6;
	res->disk_mb_s = secs > 0 ? (double)(b->bytes - a->bytes) / secs / 1e6
				  : 0.0;
	res->syncs_s = secs > 0 ? (double)syncs / secs : 0.0;
	res->rec_per_sync = syncs ? (double)recs / (double)syncs : 0.0;
	res->rec_per_write = writes ? (double)recs / (double)writes : 0.0;
	res->backend = b->backend;
	res->direct = b->direct;
}

void jb_journal_run(const jb_cfg *c, unsigned threads, size_t size,
		    bool open_loop, double rate, jb_result *res)
{
	memset(res, 0, sizeof *res);
	res->ran = true;
	res->ok = true;
	res->threads = threads;
	res->size = size;
	res->rate = open_loop ? rate : 0.0;
	res->cpu_ns = -1.0;

	jrun r;
	memset(&r, 0, sizeof r);
	r.c = c;
	r.size = size;
	r.open_loop = open_loop;
	r.window = c->window;
	r.hist = cb_hist_new();
	producer *ps = calloc(threads, sizeof *ps);
	bool mem = r.hist != NULL && ps != NULL;
	for (unsigned i = 0; mem && i < threads; i++) {
		producer *p = &ps[i];
		p->run = &r;
		p->id = i;
		atomic_init(&p->done, 0u);
		atomic_init(&p->sleeping, 0);
		p->send = calloc(r.window, sizeof *p->send);
		if (posix_memalign((void **)&p->payload, 64, size + 1) != 0)
			p->payload = NULL;
		mem = p->send != NULL && p->payload != NULL;
		if (mem)
			memset(p->payload, 0x5a ^ (int)(i & 0xff), size);
	}
	if (!mem) {
		jb_result_fail(res, "out of memory");
		goto out;
	}
	conq_journal_opts o;
	jopts(c, &o);
	r.j = conq_journal_open(c->jdir, &o);
	if (r.j == NULL) {
		jb_result_fail(res, "conq_journal_open %s: %s", c->jdir,
			       strerror(errno));
		goto out;
	}
	conq_journal_stats s_open, s0, s1;
	conq_journal_stats_get(r.j, &s_open);
	s0 = s1 = s_open;
	/* What the last run kept for the replay: no longer needed. */
	uint64_t next = conq_journal_next_seq(r.j);
	uint64_t released = next > 1 ? next - 1 : 0;
	if (released > 0) {
		int e = conq_journal_release(r.j, released);
		if (e != 0)
			jb_result_fail(res, "conq_journal_release: %s",
				       strerror(e));
	}
	atomic_init(&r.durable, released);
	r.last_seq = released;
	/* Keep about one file of records behind the durable ones. */
	size_t rec_disk = jb_round_up(CONQ_JOURNAL_RECORD_HEADER + size, 512);
	uint64_t keep = (CONQ_JOURNAL_DEFAULT_FILE_SIZE - 512u) / rec_disk;
	if (keep == 0)
		keep = 1;

	jb_gate_init(&r.gate);
	unsigned started = 0;
	for (unsigned i = 0; i < threads; i++) {
		int e = pthread_create(&ps[i].tid, NULL, producer_main, &ps[i]);
		if (e != 0) {
			jb_result_fail(res, "pthread_create: %s", strerror(e));
			break;
		}
		started++;
	}
	jb_gate_wait_ready(&r.gate, started);
	if (started == threads) {
		jb_times_set(&r.t, c);
		if (open_loop) {
			double per = rate / (double)threads; /* records/s */
			for (unsigned i = 0; i < threads; i++) {
				ps[i].interval_ns = 1e9 / per;
				ps[i].t0 = r.t.begin +
					   (uint64_t)(1e9 / rate * (double)i);
			}
		}
		jb_gate_open(&r.gate, 1);

		/* The warm-up, the window, and the release loop. */
		uint64_t last_rel = released, cpu0 = 0, w0 = 0, w1 = 0;
		int phase = 0; /* 0 warm-up, 1 window */
		for (;;) {
			uint64_t now = jb_now_ns();
			if (phase == 0 && now >= r.t.start) {
				conq_journal_stats_get(r.j, &s0);
				cpu0 = jb_cpu_ns();
				w0 = jb_now_ns();
				phase = 1;
			}
			if (phase == 1 &&
			    (now >= r.t.end ||
			     atomic_load_explicit(&jb_interrupted,
						  memory_order_relaxed))) {
				conq_journal_stats_get(r.j, &s1);
				res->cpu_ns = (double)(jb_cpu_ns() - cpu0);
				w1 = jb_now_ns();
				break;
			}
			uint64_t d = atomic_load_explicit(
			    &r.durable, memory_order_relaxed);
			if (d > keep && d - keep >= last_rel + keep / 4 + 1) {
				int e = conq_journal_release(r.j, d - keep);
				if (e != 0)
					jb_result_fail(
					    res, "conq_journal_release: %s",
					    strerror(e));
				last_rel = d - keep;
			}
			uint64_t wake = now + TICK_NS;
			if (phase == 0 && wake > r.t.start)
				wake = r.t.start;
			if (phase == 1 && wake > r.t.end)
				wake = r.t.end;
			jb_sleep_until(wake);
		}
		stats_delta(res, &s0, &s1, (double)(w1 - w0) / 1e9);
		res->new_files = s1.files - s_open.files;
		res->cpu_ns = res->records > 0
				  ? res->cpu_ns / (double)res->records
				  : -1.0;
	} else {
		jb_gate_open(&r.gate, -1); /* the started ones leave */
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(ps[i].tid, NULL);
	jb_gate_destroy(&r.gate);
	int e = conq_journal_close(r.j);
	for (unsigned i = 0; i < started; i++)
		if (ps[i].err != 0) {
			jb_result_fail(res, "conq_journal_append: %s",
				       strerror(ps[i].err));
			break;
		}
	/* The done functions have all run: close waited for them. */
	if (r.errors > 0)
		jb_result_fail(res, "%llu records failed in the journal: %s",
			       (unsigned long long)r.errors,
			       strerror(r.first_err));
	if (e != 0)
		jb_result_fail(res, "conq_journal_close: %s", strerror(e));
	if (r.out_of_order > 0)
		jb_result_fail(res,
			       "%llu done functions ran out of sequence order "
			       "(a journal bug)",
			       (unsigned long long)r.out_of_order);
	jb_result_lat(res, r.hist);
out:
	for (unsigned i = 0; ps != NULL && i < threads; i++) {
		free(ps[i].send);
		free(ps[i].payload);
	}
	free(ps);
	cb_hist_free(r.hist);
}

/* ---- a session that only appends, and CRC32C --------------------------------- */

int jb_journal_fill(const jb_cfg *c, uint64_t records, size_t size, char *err,
		    size_t n)
{
	unsigned char *payload = malloc(size > 0 ? size : 1);
	if (payload == NULL) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	memset(payload, 0x3c, size);
	conq_journal_opts o;
	jopts(c, &o);
	conq_journal *j = conq_journal_open(c->jdir, &o);
	if (j == NULL) {
		snprintf(err, n, "conq_journal_open %s: %s", c->jdir,
			 strerror(errno));
		free(payload);
		return -1;
	}
	int e = 0;
	for (uint64_t i = 0; i < records && e == 0; i++)
		e = conq_journal_append(j, RECORD_TYPE, payload, size, NULL,
					NULL, NULL);
	int ec = conq_journal_close(j); /* makes them durable */
	free(payload);
	if (e != 0) {
		snprintf(err, n, "conq_journal_append: %s", strerror(e));
		return -1;
	}
	if (ec != 0) {
		snprintf(err, n, "conq_journal_close: %s", strerror(ec));
		return -1;
	}
	return 0;
}

double jb_crc32c_gbs(size_t len, double secs)
{
	unsigned char *buf = NULL;
	if (posix_memalign((void **)&buf, 64, len) != 0)
		return 0.0;
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 131u + 7u);
	volatile uint32_t sink = 0;
	uint32_t crc = 0;
	uint64_t bytes = 0, t0 = jb_now_ns(), t1 = t0;
	const uint64_t until = t0 + (uint64_t)(secs * 1e9);
	/* Batches of about 4 MiB between looks at the clock. */
	size_t batch = len >= ((size_t)4 << 20) ? 1 : ((size_t)4 << 20) / len;
	do {
		for (size_t i = 0; i < batch; i++)
			crc = conq_crc32c(crc, buf, len);
		bytes += (uint64_t)batch * len;
		t1 = jb_now_ns();
	} while (t1 < until);
	sink = crc;
	(void)sink;
	free(buf);
	return t1 > t0 ? (double)bytes / (double)(t1 - t0) : 0.0;
}
