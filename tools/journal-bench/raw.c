/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * raw.c - the ceiling of one durable append: one thread, pwrite of bs
 * bytes (the record size rounded up to 4 KiB) from an aligned buffer, then
 * fdatasync, again and again, sequentially over the pre-written raw.dat
 * (O_DIRECT where open takes it), wrapping at its end. Each op's latency
 * (the pwrite call to fdatasync's return) is the single-producer baseline
 * the journal's append-to-durable latency is judged against.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jbench.h"

void jb_raw_run(const jb_cfg *c, size_t bs, jb_result *r)
{
	jb_result_start(r, 1, bs);
	r->direct = 1;
	int fd = open(c->raw, O_WRONLY | O_DIRECT);
	if (fd < 0 && errno == EINVAL) {
		r->direct = 0;
		fd = open(c->raw, O_WRONLY);
	}
	if (fd < 0) {
		jb_result_fail(r, "%s: %s", c->raw, strerror(errno));
		return;
	}
	cb_hist *h = cb_hist_new();
	void *buf = NULL;
	if (h == NULL || posix_memalign(&buf, JB_PAGE, bs) != 0) {
		jb_result_fail(r, "out of memory");
		cb_hist_free(h);
		close(fd);
		return;
	}
	memset(buf, 0xa5, bs);
	jb_times t;
	jb_times_set(&t, c);
	jb_sleep_until(t.begin);
	uint64_t off = 0, n = 0, cpu0 = 0, w0 = 0, w1 = 0;
	bool in = false;
	for (;;) {
		uint64_t t0 = jb_now_ns();
		if (t0 >= t.end ||
		    atomic_load_explicit(&jb_interrupted, memory_order_relaxed))
			break;
		if (!in && t0 >= t.start) {
			in = true;
			cpu0 = jb_cpu_ns();
			w0 = t0 = jb_now_ns();
		}
		ssize_t w = pwrite(fd, buf, bs, (off_t)off);
		if (w != (ssize_t)bs) {
			jb_result_fail(r, "%s: pwrite: %s", c->raw,
				       w < 0 ? strerror(errno) : "short write");
			break;
		}
		if (fdatasync(fd) != 0) {
			jb_result_fail(r, "%s: fdatasync: %s", c->raw,
				       strerror(errno));
			break;
		}
		uint64_t t1 = jb_now_ns();
		if (in) {
			cb_hist_record(h, t1 - t0);
			n++;
			w1 = t1;
		}
		off += bs;
		if (off + bs > c->raw_size)
			off = 0;
	}
	if (in && n > 0) {
		r->cpu_ns = (double)(jb_cpu_ns() - cpu0) / (double)n;
		r->records = n;
		r->elapsed_s = (double)(w1 - w0) / 1e9;
		r->rec_s = r->elapsed_s > 0 ? (double)n / r->elapsed_s : 0.0;
		r->mb_s = r->rec_s * (double)bs / 1e6;
		r->syncs_s = r->rec_s;
		r->rec_per_sync = 1.0;
		jb_result_lat(r, h);
	} else if (r->ok) {
		jb_result_fail(r, "no op in the window");
	}
	free(buf);
	cb_hist_free(h);
	close(fd);
}
