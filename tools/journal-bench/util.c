/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * util.c - conq-journal-bench's helpers: the clock, the CPU time, a run's
 * times and figures, laying out and removing files, the file system's
 * type, the CPU's model name, and running a program (fio) for its output.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jbench.h"

extern char **environ;

atomic_int jb_interrupted;
const char *jb_prog = "conq-journal-bench";

const double jb_lat_q[JB_NLAT] = {50.0, 90.0, 99.0, 99.9, 100.0};
const char *const jb_lat_names[JB_NLAT] = {"p50", "p90", "p99", "p99.9",
					   "max"};

uint64_t jb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void jb_sleep_until(uint64_t t_ns)
{
	struct timespec ts = {.tv_sec = (time_t)(t_ns / 1000000000u),
			      .tv_nsec = (long)(t_ns % 1000000000u)};
	/* EINTR (a signal): the caller looks at the clock and the flag. */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

uint64_t jb_cpu_ns(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
	       (uint64_t)ru.ru_utime.tv_usec * 1000u +
	       (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
	       (uint64_t)ru.ru_stime.tv_usec * 1000u;
}

void jb_times_set(jb_times *t, const jb_cfg *c)
{
	/* 2 ms for the threads to leave the barrier. */
	t->begin = jb_now_ns() + 2000000u;
	t->start = t->begin + (uint64_t)(c->warmup_s * 1e9);
	t->end = t->start + (uint64_t)(c->duration_s * 1e9);
}

void jb_gate_init(jb_gate *g)
{
	pthread_mutex_init(&g->m, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->ready = 0;
	g->state = 0;
}

void jb_gate_destroy(jb_gate *g)
{
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->m);
}

bool jb_gate_pass(jb_gate *g)
{
	pthread_mutex_lock(&g->m);
	g->ready++;
	pthread_cond_broadcast(&g->cv);
	while (g->state == 0)
		pthread_cond_wait(&g->cv, &g->m);
	int st = g->state;
	pthread_mutex_unlock(&g->m);
	return st > 0;
}

void jb_gate_wait_ready(jb_gate *g, unsigned n)
{
	pthread_mutex_lock(&g->m);
	while (g->ready < n)
		pthread_cond_wait(&g->cv, &g->m);
	pthread_mutex_unlock(&g->m);
}

void jb_gate_open(jb_gate *g, int state)
{
	pthread_mutex_lock(&g->m);
	g->state = state;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->m);
}

void jb_result_lat(jb_result *r, const cb_hist *h)
{
	r->lat_count = cb_hist_count(h);
	for (int k = 0; k < JB_NLAT; k++)
		r->lat[k] = jb_lat_q[k] >= 100.0
				? (double)cb_hist_max(h)
				: (double)cb_hist_percentile(h, jb_lat_q[k]);
	r->lat_mean = cb_hist_mean(h);
}

void jb_result_start(jb_result *r, unsigned threads, size_t size)
{
	memset(r, 0, sizeof *r);
	r->ran = true;
	r->ok = true;
	r->threads = threads;
	r->size = size;
	r->cpu_ns = -1.0;
}

void jb_result_fail(jb_result *r, const char *fmt, ...)
{
	va_list ap;
	r->ok = false;
	if (r->err[0] != '\0') /* the first error is the one to report */
		return;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof r->err, fmt, ap);
	va_end(ap);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double jb_median(double *v, size_t n)
{
	if (n == 0)
		return 0.0;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

size_t jb_round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

int jb_prewrite(const char *path, uint64_t size, char *err, size_t n)
{
	const size_t chunk = (size_t)1 << 20;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0 && errno == EINVAL) /* no O_DIRECT here */
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		snprintf(err, n, "%s: %s", path, strerror(errno));
		return -1;
	}
	void *buf = NULL;
	if (posix_memalign(&buf, JB_PAGE, chunk) != 0) {
		close(fd);
		snprintf(err, n, "out of memory");
		return -1;
	}
	memset(buf, 0, chunk);
	for (uint64_t off = 0; off < size;) {
		size_t len = size - off < chunk ? (size_t)(size - off) : chunk;
		ssize_t w = pwrite(fd, buf, len, (off_t)off);
		if (w <= 0) {
			snprintf(err, n, "%s: write: %s", path,
				 w < 0 ? strerror(errno) : "short write");
			free(buf);
			close(fd);
			return -1;
		}
		off += (uint64_t)w;
	}
	free(buf);
	if (fdatasync(fd) != 0) {
		snprintf(err, n, "%s: fdatasync: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) == 0 ? 0 : -1;
}

int jb_remove_tree(const char *path)
{
	return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void jb_fs_type(const char *path, char *name, size_t n, bool *is_tmpfs)
{
	static const struct {
		uint32_t magic;
		const char *name;
	} fs[] = {
	    {0xEF53u, "ext4"}, /* ext2, ext3 and ext4 share it */
	    {0x58465342u, "xfs"},
	    {0x9123683Eu, "btrfs"},
	    {0x01021994u, "tmpfs"},
	    {0x858458F6u, "ramfs"},
	    {0x794C7630u, "overlayfs"},
	    {0xF2F52010u, "f2fs"},
	    {0x2FC12FC1u, "zfs"},
	    {0x6969u, "nfs"},
	    {0x65735546u, "fuse"},
	    {0x01021997u, "9p"},
	    {0x5346544Eu, "ntfs"},
	    {0x4D44u, "vfat"},
	    {0x2011BAB0u, "exfat"},
	    {0x3153464Au, "jfs"},
	    {0x52654973u, "reiserfs"},
	    {0xCA451A4Eu, "bcachefs"},
	};
	struct statfs st;
	*is_tmpfs = false;
	if (statfs(path, &st) != 0) {
		snprintf(name, n, "unknown (statfs: %s)", strerror(errno));
		return;
	}
	uint32_t m = (uint32_t)st.f_type;
	for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++)
		if (fs[i].magic == m) {
			snprintf(name, n, "%s", fs[i].name);
			*is_tmpfs = m == 0x01021994u || m == 0x858458F6u;
			return;
		}
	snprintf(name, n, "0x%08x", m);
}

static void trim(char *s)
{
	size_t len = strlen(s);
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' ' ||
			   s[len - 1] == '\t' || s[len - 1] == '\r'))
		s[--len] = '\0';
	size_t i = 0;
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	memmove(s, s + i, len - i + 1);
}

/* The value after "key:" in the first line of f that starts with key. */
static bool field(FILE *f, const char *key, char *out, size_t n)
{
	char line[512];
	size_t kl = strlen(key);
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, key, kl) != 0)
			continue;
		char *v = strchr(line + kl, ':');
		if (v == NULL)
			continue;
		snprintf(out, n, "%s", v + 1);
		trim(out);
		return out[0] != '\0';
	}
	return false;
}

void jb_cpu_model(char *out, size_t n)
{
	bool found = false;
	FILE *f = popen("LC_ALL=C lscpu 2>/dev/null", "r");
	if (f != NULL) {
		found = field(f, "Model name", out, n);
		pclose(f);
	}
	if (!found) {
		f = fopen("/proc/cpuinfo", "r");
		if (f != NULL) {
			found = field(f, "model name", out, n);
			fclose(f);
		}
	}
	if (!found)
		snprintf(out, n, "unknown");
}

bool jb_which(const char *prog, char *out, size_t n)
{
	const char *path = getenv("PATH");
	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path != '\0') {
		const char *e = strchr(path, ':');
		size_t len = e ? (size_t)(e - path) : strlen(path);
		int w = snprintf(out, n, "%.*s/%s", (int)len, path, prog);
		if (len == 0)
			w = snprintf(out, n, "./%s", prog);
		struct stat st;
		if (w > 0 && (size_t)w < n && stat(out, &st) == 0 &&
		    S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return true;
		path += len;
		if (*path == ':')
			path++;
	}
	return false;
}

int jb_spawn(char *const argv[], char **out, char *err, size_t n)
{
	int po[2], pe[2];
	*out = NULL;
	err[0] = '\0';
	if (pipe2(po, O_CLOEXEC) != 0) {
		snprintf(err, n, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(pe, O_CLOEXEC) != 0) {
		snprintf(err, n, "pipe: %s", strerror(errno));
		close(po[0]);
		close(po[1]);
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	pid_t pid;
	int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	if (e != 0) {
		snprintf(err, n, "%s: %s", argv[0], strerror(e));
		close(po[0]);
		close(pe[0]);
		return -1;
	}
	size_t cap = 1 << 16, len = 0, elen = 0;
	char *buf = malloc(cap);
	char ebuf[1024];
	struct pollfd pf[2] = {{.fd = po[0], .events = POLLIN},
			       {.fd = pe[0], .events = POLLIN}};
	int open_fds = 2;
	while (open_fds > 0) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (pf[i].fd < 0 || pf[i].revents == 0)
				continue;
			char tmp[4096];
			ssize_t r = read(pf[i].fd, tmp, sizeof tmp);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
				open_fds--;
				continue;
			}
			size_t rn = (size_t)r;
			if (i == 1) { /* stderr: keep the start */
				size_t k = rn < sizeof ebuf - 1 - elen
					       ? rn
					       : sizeof ebuf - 1 - elen;
				memcpy(ebuf + elen, tmp, k);
				elen += k;
				continue;
			}
			if (buf != NULL && len + rn + 1 > cap) {
				char *nb = realloc(buf, cap * 2 + rn);
				if (nb == NULL) {
					free(buf);
					buf = NULL;
				} else {
					buf = nb;
					cap = cap * 2 + rn;
				}
			}
			if (buf != NULL) {
				memcpy(buf + len, tmp, rn);
				len += rn;
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (pf[i].fd >= 0)
			close(pf[i].fd);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ebuf[elen] = '\0';
	/* The first non-empty line of stderr. */
	char *line = ebuf;
	while (*line == '\n')
		line++;
	char *nl = strchr(line, '\n');
	if (nl != NULL)
		*nl = '\0';
	snprintf(err, n, "%s", line);
	if (buf == NULL) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	buf[len] = '\0';
	*out = buf;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (err[0] == '\0')
		snprintf(err, n, "%s: killed by signal %d", argv[0],
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return -1;
}

void jb_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}
