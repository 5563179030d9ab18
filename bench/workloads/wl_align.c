/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * UnalignedAccess, the seeds' alignment experiment (psy-lob-saw's
 * UnalignedMemoryAccessCostBenchmark, in JMH form): one thread, a
 * page-aligned buffer of bufferSize bytes; a pass writes one 8-byte word at
 * byte `offset` of every cache line but the last (lines - 1 words, whatever
 * the offset, so every offset does the same number of accesses), then reads
 * every one back and checks it. Offsets 57..63 straddle two lines (and,
 * on the last line of each 4 KiB page, two pages). Score = ns per access
 * (avgt), a pass being 2 x (lines - 1) accesses.
 *
 * The words go through memcpy into a uint64_t (a single mov on x86, and no
 * undefined behaviour at any alignment). A compiler barrier between the two
 * loops keeps the reads from being forwarded from the writes.
 *
 * Parameters: offset (0..63) and bufferSize (16K: L1, 512K: L2, 8M: L3,
 * 128M: memory on the machine these defaults were picked for; K, M, G
 * suffixes).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_common.h"

#define AL_BENCH "UnalignedAccess.align"
#define AL_LINE 64u
#define AL_PAGE 4096u

typedef struct al_ctx {
	unsigned char *buf; /* AL_PAGE-aligned */
	size_t lines;
	unsigned offset;
	uint64_t pass;   /* passes so far (the written values change) */
	uint64_t errors; /* words read back wrong, last iteration */
} al_ctx;

/* One pass; returns the words read back wrong. */
static uint64_t al_pass(al_ctx *c)
{
	unsigned char *p = c->buf + c->offset;
	const size_t n = c->lines - 1;
	const uint64_t tag = ++c->pass << 32;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = tag ^ i;
		memcpy(p + i * AL_LINE, &v, sizeof v);
	}
	__asm__ __volatile__("" ::: "memory");
	uint64_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t v;
		memcpy(&v, p + i * AL_LINE, sizeof v);
		bad += v != (tag ^ i);
	}
	return bad;
}

static void al_role(cb_worker *w)
{
	al_ctx *const c = (al_ctx *)w->q;
	cb_ctl *const ctl = w->ctl;
	uint64_t made = 0, extra = 0, bad = 0;
	const uint64_t per = 2u * (c->lines - 1);
	cb_rusage u0_;
	cb_worker_begin(ctl, &u0_);
	while (cb_ctl_catching_up(ctl)) {
		bad += al_pass(c);
		extra += per;
	}
	const uint64_t t0 = cb_now_ns();
	do {
		bad += al_pass(c);
		made += per;
	} while (cb_ctl_running(ctl));
	const uint64_t t1 = cb_now_ns();
	cb_ctl_leave(ctl);
	c->errors = bad;
	cb_worker_done(w, made, 0, extra, bad, t0, t1, &u0_);
}

static double al_after(cb_wl_trial *t, int measured, size_t m, char *line,
		       size_t n)
{
	al_ctx *c = (al_ctx *)t->user;
	const cb_worker *w = &t->g.w[0];
	if (c->errors != 0)
		cb_wl_violation(t, "read-back",
				"%" PRIu64 " words read back wrong", c->errors);
	double el = (double)(w->t_stop - w->t_start);
	double ns = cb_wl_ns_per_op(w);
	if (measured)
		t->sec[0][m] = (double)w->made / (el > 0 ? el : 1) * 8.0;
	snprintf(line, n, "%7.3f ns/access", ns);
	return ns;
}

static const cb_param_def al_params[] = {
	{"offset", "0,1,32,60,63",
	 "byte offset of the word in each 64-byte line, 0..63 (57..63 "
	 "straddle)"},
	{"bufferSize", "16K,512K,8M,128M",
	 "bytes, K/M/G suffixes: from L1 to memory"},
};

static int al_run(const cb_workload *wl, const cb_options *o,
		  const cb_env *env, cb_results *rs)
{
	uint64_t off, size;
	if (cb_param_u64(o, "offset", &off) != 0)
		return 2;
	const char *ss = cb_param(o, "bufferSize");
	if (off > 63 || ss == NULL || cb_wl_parse_size(ss, &size) != 0 ||
	    size < 2 * AL_PAGE || size % AL_PAGE != 0) {
		fprintf(stderr, "conq-bench: %s: offset in 0..63, bufferSize a "
				"multiple of 4K, at least 8K\n",
			wl->name);
		return 2;
	}
	cb_wl_trial t;
	memset(&t, 0, sizeof t);
	al_ctx c;
	memset(&c, 0, sizeof c);
	int rc = 0;
	char aff[200] = "", label[48];
	c.buf = (unsigned char *)aligned_alloc(AL_PAGE, (size_t)size);
	if (c.buf == NULL || cb_wl_trial_alloc(&t, o, 1) != 0) {
		fprintf(stderr, "conq-bench: %s: cannot allocate %" PRIu64
				" bytes\n",
			wl->name, size);
		rc = 1;
		goto out;
	}
	memset(c.buf, 0, (size_t)size); /* touch every page */
	c.lines = (size_t)size / AL_LINE;
	c.offset = (unsigned)off;
	snprintf(label, sizeof label, "offset %u, %s", c.offset, ss);
	t.label = label;
	t.user = &c;
	t.after = al_after;
	t.sec_label[0] = "bandwidth";
	t.sec_unit[0] = "bytes/ns";
	const cb_role_fn roles[1] = {al_role};
	if (cb_wl_trial_start(&t, o, env, 1, roles, &c, aff, sizeof aff) != 0) {
		rc = 1;
		goto out;
	}
	cb_wl_header(wl, o, "1", aff, t.yield, 1, t.ncpus);
	printf("# Parameters: offset = %u (%s), bufferSize = %s (%zu lines; "
	       "%zu words per pass, written then read)\n",
	       c.offset,
	       c.offset + 8 > AL_LINE ? "straddles two lines" : "within a line",
	       ss, c.lines, c.lines - 1);
	fflush(stdout);
	cb_wl_rounds(wl, o, &t, 1);
	if (cb_wl_result(rs, &t, o, AL_BENCH, "access", "ns/op") == NULL)
		rc = 1;
out:
	cb_wl_trial_stop(&t);
	free(c.buf);
	return rc;
}

const cb_workload cb_wl_align = {
	.name = "UnalignedAccess",
	.group = "align",
	.mode = "avgt",
	.unit = "ns/op",
	.roles = "access",
	.headline = "access",
	.desc = "8-byte words at a byte offset in every line of a buffer, "
		"written then read back (psy-lob-saw's unaligned access cost); "
		"ns per access",
	.run = al_run,
	.modes = CB_MODE_AVGT,
	.params = al_params,
	.nparams = sizeof al_params / sizeof al_params[0],
};
