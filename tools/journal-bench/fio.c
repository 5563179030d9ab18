/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fio.c - the fio contenders: what the device gives to the shapes a user
 * would try without a journal, with the reference harness.
 *
 *   JB_FIO_PSYNC  --ioengine=psync --fdatasync=1: pwrite then fdatasync,
 *                 one at a time (QD1, a sync per write)
 *   JB_FIO_URING  --ioengine=io_uring --iodepth=16 --fdatasync=16: up to
 *                 16 writes in flight, a sync after every 16: the group
 *                 commit of 16 without any batching logic
 *   JB_FIO_AIO    --ioengine=libaio, the same
 *
 * bs-byte sequential writes, --direct=1, over the pre-written raw.dat
 * (--fallocate=none: fio neither lays it out nor extends it), time based:
 * the warm-up as --ramp_time, then the run's duration. fio's JSON report
 * (--output-format=json) is read with a small scan: the first job's
 * write.iops, write.total_ios, write.runtime (ms) and the count of syncs
 * (sync.lat_ns.N).
 */
#include <stdlib.h>
#include <string.h>

#include "jbench.h"

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* p at '"': the character after the closing quote, or NULL. */
static const char *skip_str(const char *p)
{
	for (p++; *p != '\0' && *p != '"'; p++)
		if (*p == '\\' && p[1] != '\0')
			p++;
	return *p == '"' ? p + 1 : NULL;
}

/* The value of the member key of the JSON object at obj ('{'), or NULL:
 * keys are strings at depth 1 followed by ':'. */
static const char *member(const char *obj, const char *key)
{
	if (obj == NULL || *obj != '{')
		return NULL;
	size_t kl = strlen(key);
	int depth = 0;
	for (const char *p = obj; *p != '\0';) {
		if (*p == '"') {
			const char *e = skip_str(p);
			if (e == NULL)
				return NULL;
			if (depth == 1) {
				const char *q = skip_ws(e);
				if (*q == ':' && (size_t)(e - p) == kl + 2 &&
				    memcmp(p + 1, key, kl) == 0)
					return skip_ws(q + 1);
			}
			p = e;
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if ((*p == '}' || *p == ']') && --depth == 0)
			return NULL;
		p++;
	}
	return NULL;
}

static bool number(const char *v, double *out)
{
	if (v == NULL)
		return false;
	char *end;
	double d = strtod(v, &end);
	if (end == v)
		return false;
	*out = d;
	return true;
}

bool jb_fio_find(char *ver, size_t n)
{
	char path[PATH_MAX], err[256];
	if (!jb_which("fio", path, sizeof path))
		return false;
	char *argv[] = {path, (char *)"--version", NULL};
	char *out = NULL;
	int rc = jb_spawn(argv, &out, err, sizeof err);
	if (rc != 0 || out == NULL) {
		free(out);
		return false;
	}
	out[strcspn(out, "\r\n")] = '\0';
	snprintf(ver, n, "%s", out);
	free(out);
	return true;
}

void jb_fio_run(const jb_cfg *c, enum jb_what what, size_t bs, jb_result *r)
{
	jb_result_start(r, 1, bs);
	r->direct = 1;
	const char *engine = what == JB_FIO_PSYNC   ? "psync"
			     : what == JB_FIO_URING ? "io_uring"
						    : "libaio";
	unsigned depth = what == JB_FIO_PSYNC ? 1 : 16;
	char a_file[PATH_MAX + 16], a_size[64], a_bs[64], a_eng[64], a_qd[64],
	    a_sync[64], a_run[64], a_ramp[64];
	snprintf(a_file, sizeof a_file, "--filename=%s", c->raw);
	snprintf(a_size, sizeof a_size, "--size=%llu",
		 (unsigned long long)c->raw_size);
	snprintf(a_bs, sizeof a_bs, "--bs=%zu", bs);
	snprintf(a_eng, sizeof a_eng, "--ioengine=%s", engine);
	snprintf(a_qd, sizeof a_qd, "--iodepth=%u", depth);
	snprintf(a_sync, sizeof a_sync, "--fdatasync=%u", depth);
	unsigned long long run_ms = (unsigned long long)(c->duration_s * 1e3);
	unsigned long long ramp_ms = (unsigned long long)(c->warmup_s * 1e3);
	snprintf(a_run, sizeof a_run, "--runtime=%llums", run_ms ? run_ms : 1);
	snprintf(a_ramp, sizeof a_ramp, "--ramp_time=%llums", ramp_ms);
	char *argv[] = {(char *)"fio",
			(char *)"--name=conq-journal-bench",
			a_file,
			a_size,
			a_bs,
			(char *)"--rw=write",
			(char *)"--direct=1",
			a_eng,
			a_qd,
			a_sync,
			(char *)"--time_based",
			a_run,
			(char *)"--fallocate=none",
			(char *)"--output-format=json",
			ramp_ms ? a_ramp : NULL,
			NULL};
	char *out = NULL, err[256];
	int rc = jb_spawn(argv, &out, err, sizeof err);
	if (rc != 0) {
		jb_result_fail(r, "fio %s: %s", engine,
			       err[0] ? err : "failed");
		free(out);
		return;
	}
	const char *top = out ? strchr(out, '{') : NULL;
	const char *jobs = member(top, "jobs");
	const char *job = jobs && *jobs == '[' ? skip_ws(jobs + 1) : NULL;
	const char *wr = member(job, "write");
	const char *sy = member(job, "sync");
	double jerr = 0, iops, ios, runtime_ms, syncs = 0;
	if (!number(member(wr, "iops"), &iops) ||
	    !number(member(wr, "total_ios"), &ios) ||
	    !number(member(wr, "runtime"), &runtime_ms)) {
		jb_result_fail(r, "fio %s: no write iops in its JSON report",
			       engine);
		free(out);
		return;
	}
	if (number(member(job, "error"), &jerr) && jerr != 0) {
		jb_result_fail(r, "fio %s: the job's error %g", engine, jerr);
		free(out);
		return;
	}
	/* fio 3.33 leaves sync.total_ios at 0: the count is lat_ns.N. */
	if (!number(member(sy, "total_ios"), &syncs) || syncs == 0)
		number(member(member(sy, "lat_ns"), "N"), &syncs);
	free(out);
	r->rec_s = iops;
	r->records = (uint64_t)ios;
	r->elapsed_s = runtime_ms / 1e3;
	r->mb_s = iops * (double)bs / 1e6;
	if (r->elapsed_s > 0 && syncs > 0) {
		r->syncs_s = syncs / r->elapsed_s;
		r->rec_per_sync = ios / syncs;
	}
	if (iops <= 0)
		jb_result_fail(r, "fio %s: 0 write IOPS", engine);
}
