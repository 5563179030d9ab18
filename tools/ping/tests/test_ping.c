/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ping - conq-ping from the outside, one case per ctest entry:
 *
 *   test_ping CASE CMD...     CMD: how to run conq-ping (an emulator first
 *                             in a cross build)
 *
 *   smoke:T:W       both ends (forked server), transport T, wait mode W, a
 *                   few hundred round trips, --json: parsed strictly,
 *                   percentiles ordered, counts right, CPU of both ends
 *   open:T:W        the same in open loop (--rate)
 *   big:T           the transport's largest message (UDP 65507, TCP 1 MiB,
 *                   shm 4096)
 *   split:T         --server and --client as two processes, both --json
 *   overhead        --overhead --json: a positive, finite cost per sample
 *   help            --help names every exit status; --version
 *   usage           bad arguments exit 2 with a message naming the problem
 *   refused:T       a port nobody listens on: exit 4, at once
 *   silent          a UDP socket that never answers: exit 4 after the
 *                   timeout
 *   notserver       a TCP peer answering the hello with junk: exit 4
 *   kill:T:W:SIG    the server (split) gets SIG (KILL, or STOP: hung)
 *                   mid-run: the client exits 5 within the timeout + 2 s
 *   killclient:T    the client is killed mid-run: the server exits 5
 *   killfork        the forked server child is killed: the parent exits 5
 *   short:tcp-close, short:tcp-stall, short:udp
 *                   a fake server echoes 10 bytes of a 32-byte message
 *                   (then closes / then nothing / as one datagram): exit 6
 *
 * Nothing here asserts a speed (benchmarks measure, tests check).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "json.h"
#include "proto.h"

static char **cmd; /* conq-ping's command, NULL-terminated */
static int ncmd;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- running conq-ping ------------------------------------------------ */

typedef struct proc {
	pid_t pid;
	int fd[2];    /* stdout, stderr (read ends; -1 at EOF) */
	char *buf[2]; /* what they said, NUL-terminated */
	size_t len[2], cap[2];
	int status; /* exit code, 128 + signal, -1 while running */
	double t0, secs;
} proc;

static void spawn(proc *p, const char *const *args)
{
	memset(p, 0, sizeof *p);
	p->status = -1;
	const char *argv[64];
	int n = 0;
	for (int k = 0; k < ncmd && n < 40; k++)
		argv[n++] = cmd[k];
	for (int k = 0; args[k] != NULL && n < 63; k++)
		argv[n++] = args[k];
	argv[n] = NULL;
	int po[2], pe[2];
	if (pipe(po) != 0 || pipe(pe) != 0) {
		perror("pipe");
		exit(1);
	}
	fflush(NULL);
	p->t0 = now_s();
	pid_t parent = getpid();
	p->pid = fork();
	if (p->pid == 0) {
		/* Dies with this test: a test killed by ctest's timeout must not
		 * leave a pair of 10^9-round-trip ends spinning under the tests
		 * that come after it. */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		close(po[1]);
		close(pe[1]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	p->fd[0] = po[0];
	p->fd[1] = pe[0];
	for (int i = 0; i < 2; i++) {
		p->cap[i] = 4096;
		p->buf[i] = (char *)calloc(1, p->cap[i]);
	}
}

/* Read what the process has said, for at most `secs`. */
static void pump(proc *p, double secs)
{
	double end = now_s() + secs;
	for (;;) {
		struct pollfd pf[2];
		int n = 0, which[2];
		for (int i = 0; i < 2; i++)
			if (p->fd[i] >= 0) {
				pf[n].fd = p->fd[i];
				pf[n].events = POLLIN;
				which[n++] = i;
			}
		double left = end - now_s();
		if (n == 0 || left <= 0)
			return;
		int r = poll(pf, (nfds_t)n, (int)(left * 1000) + 1);
		if (r <= 0)
			return;
		for (int k = 0; k < n; k++) {
			if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			int i = which[k];
			if (p->len[i] + 1024 >= p->cap[i]) {
				p->cap[i] *= 2;
				p->buf[i] =
				    (char *)realloc(p->buf[i], p->cap[i]);
			}
			ssize_t got = read(p->fd[i], p->buf[i] + p->len[i],
					   p->cap[i] - p->len[i] - 1);
			if (got <= 0) {
				close(p->fd[i]);
				p->fd[i] = -1;
			} else {
				p->len[i] += (size_t)got;
			}
			p->buf[i][p->len[i]] = '\0';
		}
	}
}

/* Wait for the exit (reading the output) up to `secs`, then kill it: a
 * hang is a failure, never a stuck test. Returns the status. */
static int finish(proc *p, double secs)
{
	double end = now_s() + secs;
	int st = 0;
	for (;;) {
		pump(p, 0.01);
		pid_t r = waitpid(p->pid, &st, WNOHANG);
		if (r == p->pid)
			break;
		if (now_s() >= end) {
			CHECK_FAIL("conq-ping still running after %.1f s: "
				   "killed (stderr: %s)",
				   secs, p->buf[1]);
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &st, 0);
			break;
		}
	}
	p->secs = now_s() - p->t0;
	pump(p, 0.2);
	for (int i = 0; i < 2; i++)
		if (p->fd[i] >= 0)
			close(p->fd[i]);
	p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return p->status;
}

static void proc_free(proc *p)
{
	free(p->buf[0]);
	free(p->buf[1]);
}

static int run(const char *const *args, double secs, proc *p)
{
	spawn(p, args);
	return finish(p, secs);
}

/* A --server's port, from its "listening on ADDR:PORT" line. */
static bool server_port(proc *p, char *port, size_t n)
{
	double end = now_s() + 5;
	while (now_s() < end) {
		pump(p, 0.02);
		const char *l = strstr(p->buf[1], "listening on ");
		const char *nl = l ? strchr(l, '\n') : NULL;
		if (nl != NULL) {
			const char *c = nl;
			while (c > l && c[-1] != ':')
				c--;
			snprintf(port, n, "%.*s", (int)(nl - c), c);
			return true;
		}
	}
	CHECK_FAIL("no 'listening on' line from the server: %s", p->buf[1]);
	return false;
}

/* ---- JSON -------------------------------------------------------------- */

static cb_json *parse(const char *text)
{
	char err[256];
	cb_json *j = cb_json_parse(text, strlen(text), err, sizeof err);
	if (j == NULL)
		CHECK_FAIL("the output does not parse as JSON: %s\n%s", err,
			   text);
	return j;
}

static double num(const cb_json *j, const char *key)
{
	const cb_json *v = cb_json_get(j, key);
	if (v == NULL || v->type != CB_JNUM) {
		CHECK_FAIL("no number '%s' in the JSON", key);
		return NAN;
	}
	return v->num;
}

static const char *str(const cb_json *j, const char *key)
{
	const cb_json *v = cb_json_get(j, key);
	return v && v->type == CB_JSTR ? v->str : "";
}

static void check_cpu(const cb_json *cpu, const char *end)
{
	const cb_json *c = cb_json_get(cpu, end);
	if (!CHECK_NOT_NULL(c) || !CHECK_EQ(c->type, CB_JOBJ))
		return;
	double u = num(c, "user_s"), s = num(c, "sys_s");
	CHECK_TRUE(u >= 0 && s >= 0);
	CHECK_TRUE(fabs(num(c, "cpu_s") - (u + s)) < 1e-5);
	CHECK_TRUE(num(c, "wall_s") > 0);
	CHECK_TRUE(num(c, "ns_per_msg") >= 0);
}

/* A client's report: every field there, percentiles ordered, counts. */
static void check_report_json(const char *out, const char *t, const char *w,
			      unsigned long long count, const char *loop,
			      unsigned long long size)
{
	cb_json *j = parse(out);
	if (j == NULL)
		return;
	CHECK_EQ(strcmp(str(j, "tool"), "conq-ping"), 0);
	CHECK_EQ(strcmp(str(j, "transport"), t), 0);
	CHECK_EQ(strcmp(str(j, "wait"), w), 0);
	CHECK_EQ(strcmp(str(j, "loop"), loop), 0);
	CHECK_EQ((unsigned long long)num(j, "count"), count);
	CHECK_EQ((unsigned long long)num(j, "samples"), count);
	CHECK_EQ((unsigned long long)num(j, "size"), size);
	CHECK_TRUE(num(j, "clock_hz") > 0);
	CHECK_TRUE(num(j, "overhead_ns") > 0);
	const cb_json *r = cb_json_get(j, "rtt_ns");
	if (CHECK_NOT_NULL(r)) {
		static const char *const keys[] = {
		    "min", "p50", "p90", "p99", "p99.9", "p99.99", "max"};
		double prev = 0;
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			double v = num(r, keys[k]);
			check_context("%s: rtt_ns.%s = %.0f after %.0f", out,
				      keys[k], v, prev);
			CHECK_TRUE(v >= prev);
			CHECK_TRUE(v > 0);
			prev = v;
		}
		double mean = num(r, "mean");
		CHECK_TRUE(mean >= num(r, "min") && mean <= num(r, "max"));
		check_context("%s", "");
	}
	CHECK_TRUE(num(j, "msgs_per_s") > 0);
	CHECK_TRUE(num(j, "elapsed_s") > 0);
	const cb_json *cpu = cb_json_get(j, "cpu");
	if (CHECK_NOT_NULL(cpu)) {
		check_cpu(cpu, "client");
		check_cpu(cpu, "server");
	}
	cb_json_free(j);
}

/* ---- cases ------------------------------------------------------------- */

static void case_smoke(const char *t, const char *w, bool open)
{
	const char *args[] = {"-t",   t,     "-w",     w,
			      "-n",   "300", "-W",     "30",
			      "-T",   "3",   "--json", open ? "--rate" : NULL,
			      "5000", NULL};
	proc p;
	if (CHECK_EQ_I(run(args, 30, &p), 0))
		check_report_json(p.buf[0], t, w, 300, open ? "open" : "closed",
				  32);
	else
		CHECK_FAIL("stderr: %s", p.buf[1]);
	proc_free(&p);
}

/* The largest message of each transport, both ways (and the one above it
 * is a usage error, case_usage). */
static void case_big(const char *t)
{
	const char *size = strcmp(t, "udp") == 0   ? "65507"
			   : strcmp(t, "shm") == 0 ? "4096"
						   : "1048576";
	const char *args[] = {"-t", t,	  "-w", "block", "-s", size,	 "-n",
			      "20", "-W", "2",	"-T",	 "5",  "--json", NULL};
	proc p;
	if (CHECK_EQ_I(run(args, 30, &p), 0))
		check_report_json(p.buf[0], t, "block", 20, "closed",
				  strtoull(size, NULL, 10));
	else
		CHECK_FAIL("stderr: %s", p.buf[1]);
	proc_free(&p);
}

static void case_split(const char *t)
{
	/* epoll, a mode of the sockets; the rings block on their eventcount */
	const char *w = strcmp(t, "shm") == 0 ? "block" : "epoll";
	const char *sargs[] = {"--server", "127.0.0.1:0", "-t",	    t,
			       "-T",	   "3",		  "--json", NULL};
	proc s, c;
	spawn(&s, sargs);
	char port[16], addr[64];
	if (!server_port(&s, port, sizeof port)) {
		kill(s.pid, SIGKILL);
		finish(&s, 5);
		proc_free(&s);
		return;
	}
	snprintf(addr, sizeof addr, "127.0.0.1:%s", port);
	const char *cargs[] = {"--client", addr, "-t",	   t,	 "-w",
			       w,	   "-n", "300",	   "-W", "30",
			       "-T",	   "3",	 "--json", NULL};
	if (CHECK_EQ_I(run(cargs, 30, &c), 0))
		check_report_json(c.buf[0], t, w, 300, "closed", 32);
	else
		CHECK_FAIL("client's stderr: %s", c.buf[1]);
	if (CHECK_EQ_I(finish(&s, 10), 0)) {
		cb_json *j = parse(s.buf[0]);
		if (j != NULL) {
			CHECK_EQ(strcmp(str(j, "mode"), "server"), 0);
			CHECK_EQ(strcmp(str(j, "wait"), w), 0);
			CHECK_EQ((unsigned long long)num(j, "count"), 300);
			const cb_json *cpu = cb_json_get(j, "cpu");
			if (CHECK_NOT_NULL(cpu))
				check_cpu(cpu, "server");
			cb_json_free(j);
		}
	} else {
		CHECK_FAIL("server's stderr: %s", s.buf[1]);
	}
	proc_free(&c);
	proc_free(&s);
}

static void case_overhead(void)
{
	const char *args[] = {"--overhead", "-n", "100000", "--json", NULL};
	proc p;
	if (CHECK_EQ_I(run(args, 30, &p), 0)) {
		cb_json *j = parse(p.buf[0]);
		if (j != NULL) {
			double ns = num(j, "overhead_ns");
			CHECK_TRUE(ns > 0 && isfinite(ns));
			CHECK_EQ((unsigned long long)num(j, "samples"), 100000);
			cb_json_free(j);
		}
	}
	proc_free(&p);
}

static void case_help(void)
{
	const char *args[] = {"--help", NULL};
	proc p;
	CHECK_EQ_I(run(args, 10, &p), 0);
	for (int code = 2; code <= 6; code++) {
		char line[8];
		snprintf(line, sizeof line, "\n  %d  ", code);
		check_context("exit status %d in --help", code);
		CHECK_NOT_NULL(strstr(p.buf[0], line));
	}
	check_context("%s", "");
	CHECK_NOT_NULL(strstr(p.buf[0], "epoll-spin"));
	proc_free(&p);
	const char *vargs[] = {"--version", NULL};
	CHECK_EQ_I(run(vargs, 10, &p), 0);
	CHECK_NOT_NULL(strstr(p.buf[0], "conq-ping"));
	proc_free(&p);
}

static void case_usage(void)
{
	static const struct {
		const char *args[8];
		const char *says; /* in stderr */
	} bad[] = {
	    {{"-s", "0"}, "--size"},
	    {{"-t", "udp", "-s", "65508"}, "65507"},
	    {{"-s", "2000000"}, "1048576"},
	    {{"-s", "-5"}, "--size"},
	    {{"-n", "0"}, "--count"},
	    {{"-n", "12x"}, "--count"},
	    {{"-W", "-1"}, "--warmup"},
	    {{"--client", "127.0.0.1:0"}, "bad port"},
	    {{"--client", "127.0.0.1:65536"}, "bad port"},
	    {{"--client", "127.0.0.1"}, "no port"},
	    {{"--client", "::1:80"}, "brackets"},
	    {{"--client", "bad..host..:80"}, "bad address"},
	    {{"--server", "x"}, "bad port"},
	    {{"-c", "100000"}, "CPU"},
	    {{"-C", "99999"}, "CPU"},
	    {{"-c", "zero"}, "CPU"},
	    {{"-w", "poll"}, "wait mode"},
	    {{"-t", "sctp"}, "transport"},
	    {{"-r", "0"}, "--rate"},
	    {{"-r", "1000", "-s", "8"}, "--size 16"},
	    {{"-T", "0"}, "--timeout"},
	    {{"-T", "nan"}, "--timeout"},
	    {{"--server", "0", "-s", "64"}, "client's to choose"},
	    {{"--client", "127.0.0.1:9", "-C", "0"}, "--server-cpu"},
	    {{"--server", "0", "--client", "127.0.0.1:9"}, "one or the other"},
	    {{"--frobnicate"}, "unknown option"},
	    {{"-n"}, "needs a value"},
	    {{"stray"}, "unexpected argument"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		proc p;
		check_context("conq-ping %s %s %s %s", bad[i].args[0],
			      bad[i].args[1] ? bad[i].args[1] : "",
			      bad[i].args[2] ? bad[i].args[2] : "",
			      bad[i].args[3] ? bad[i].args[3] : "");
		CHECK_EQ_I(run(bad[i].args, 10, &p), 2);
		if (!CHECK_NOT_NULL(strstr(p.buf[1], bad[i].says)))
			CHECK_FAIL("stderr: %s", p.buf[1]);
		CHECK_EQ(p.len[0], 0); /* nothing on stdout */
		proc_free(&p);
	}
	check_context("%s", "");
}

/* A port on 127.0.0.1 that nobody uses (bound, then let go). */
static int free_port(int type)
{
	int fd = socket(AF_INET, type, 0);
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		perror("free_port");
		exit(1);
	}
	close(fd);
	return ntohs(a.sin_port);
}

/* A socket of ours on 127.0.0.1 (TCP: listening), with a receive timeout
 * so that the test never hangs; *port says where. */
static int fake_socket(int type, int *port)
{
	int fd = socket(AF_INET, type, 0);
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0 ||
	    (type == SOCK_STREAM && listen(fd, 1) != 0)) {
		perror("fake_socket");
		exit(1);
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static void set_timeout(int fd, double s)
{
	struct timeval tv = {(time_t)s,
			     (suseconds_t)((s - (double)(time_t)s) * 1e6)};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static void case_refused(const char *t)
{
	char addr[32];
	snprintf(addr, sizeof addr, "127.0.0.1:%d",
		 free_port(strcmp(t, "udp") == 0 ? SOCK_DGRAM : SOCK_STREAM));
	const char *args[] = {"--client", addr, "-t", t, "-T", "5", NULL};
	proc p;
	CHECK_EQ_I(run(args, 20, &p), 4);
	CHECK_NOT_NULL(strstr(p.buf[1], "refused"));
	CHECK_TRUE(p.secs < 4); /* at once, not after the timeout */
	proc_free(&p);
}

static void case_silent(void)
{
	int port;
	int fd = fake_socket(SOCK_DGRAM, &port);
	char addr[32];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	const char *args[] = {"--client", addr, "-t", "udp", "-T", "0.3", NULL};
	proc p;
	CHECK_EQ_I(run(args, 20, &p), 4);
	CHECK_NOT_NULL(strstr(p.buf[1], "no message"));
	CHECK_TRUE(p.secs >= 0.3);
	proc_free(&p);
	close(fd);
}

static void case_notserver(void)
{
	int port;
	int lfd = fake_socket(SOCK_STREAM, &port);
	char addr[32];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	const char *args[] = {"--client", addr, "-T", "3", NULL};
	proc p;
	spawn(&p, args);
	struct pollfd pf = {.fd = lfd, .events = POLLIN};
	if (CHECK_EQ_I(poll(&pf, 1, 5000), 1)) {
		int fd = accept(lfd, NULL, NULL);
		set_timeout(fd, 5);
		unsigned char f[PING_FRAME];
		CHECK_EQ_I(recv(fd, f, sizeof f, MSG_WAITALL), PING_FRAME);
		CHECK_EQ(ping_frame_type(f), PING_HELLO);
		memset(f, 'x', sizeof f); /* an HTTP server, say */
		CHECK_EQ_I(send(fd, f, sizeof f, MSG_NOSIGNAL), PING_FRAME);
		CHECK_EQ_I(finish(&p, 10), 4);
		CHECK_NOT_NULL(strstr(p.buf[1], "not a conq-ping server"));
		close(fd);
	} else {
		finish(&p, 1);
	}
	proc_free(&p);
	close(lfd);
}

/* A fake server: the handshake right, then the first message comes back
 * 10 bytes short. */
static void case_short(const char *how)
{
	bool udp = strcmp(how, "udp") == 0;
	int port;
	int lfd = fake_socket(udp ? SOCK_DGRAM : SOCK_STREAM, &port);
	char addr[32];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	const char *args[] = {"--client", addr,	 "-t", udp ? "udp" : "tcp",
			      "-T",	  "0.5", "-W", "0",
			      "-n",	  "10",	 NULL};
	proc p;
	spawn(&p, args);
	int fd = lfd;
	struct sockaddr_in from;
	socklen_t flen = sizeof from;
	unsigned char f[PING_FRAME], m[64];
	set_timeout(lfd, 5);
	if (!udp) {
		struct pollfd pf = {.fd = lfd, .events = POLLIN};
		if (!CHECK_EQ_I(poll(&pf, 1, 5000), 1))
			goto out;
		fd = accept(lfd, NULL, NULL);
		set_timeout(fd, 5);
	}
	if (!CHECK_EQ_I(recvfrom(fd, f, sizeof f, udp ? 0 : MSG_WAITALL,
				 (struct sockaddr *)&from, &flen),
			PING_FRAME))
		goto out;
	if (udp)
		connect(fd, (struct sockaddr *)&from, flen);
	CHECK_EQ(ping_frame_type(f), PING_HELLO);
	ping_frame_head(f, PING_ACK);
	send(fd, f, sizeof f, MSG_NOSIGNAL);
	CHECK_EQ_I(recv(fd, m, 32, udp ? 0 : MSG_WAITALL), 32);
	send(fd, m, 10, MSG_NOSIGNAL);
	if (strcmp(how, "tcp-close") == 0)
		shutdown(fd, SHUT_WR);
	CHECK_EQ_I(finish(&p, 10), 6);
	CHECK_NOT_NULL(strstr(p.buf[1], "short message"));
	if (strcmp(how, "tcp-stall") == 0)
		CHECK_TRUE(p.secs >= 0.5);
out:
	if (p.status < 0) {
		kill(p.pid, SIGKILL);
		finish(&p, 5);
	}
	if (fd != lfd)
		close(fd);
	close(lfd);
	proc_free(&p);
}

static int sig_of(const char *s)
{
	return strcmp(s, "STOP") == 0 ? SIGSTOP : SIGKILL;
}

/* Split ends; one of them (the server, or the client) gets sig mid-run; the
 * other must exit 5 within its timeout (0.3 s) and a margin. */
static void case_kill(const char *t, const char *w, int sig, bool client)
{
	const char *sargs[] = {"--server", "127.0.0.1:0", "-t", t,
			       "-T",	   "0.3",	  NULL};
	proc s, c;
	spawn(&s, sargs);
	char port[16], addr[64];
	if (!server_port(&s, port, sizeof port)) {
		kill(s.pid, SIGKILL);
		finish(&s, 5);
		proc_free(&s);
		return;
	}
	snprintf(addr, sizeof addr, "127.0.0.1:%s", port);
	const char *cargs[] = {"--client",   addr, "-t", t,    "-w",  w,   "-n",
			       "1000000000", "-W", "0",	 "-T", "0.3", NULL};
	spawn(&c, cargs);
	pump(&c, 0.3);
	pump(&s, 0.0);
	proc *victim = client ? &c : &s, *other = client ? &s : &c;
	CHECK_EQ_I(kill(victim->pid, sig), 0);
	double t0 = now_s();
	CHECK_EQ_I(finish(other, 10), 5);
	double dt = now_s() - t0;
	check_context("the other end took %.3f s", dt);
	CHECK_TRUE(dt < 0.3 + 2.0);
	check_context("%s", "");
	if (!CHECK_NOT_NULL(strstr(other->buf[1], "conq-ping")))
		CHECK_FAIL("stderr: %s", other->buf[1]);
	kill(victim->pid, SIGKILL);
	finish(victim, 5);
	proc_free(&c);
	proc_free(&s);
}

/* The forked server child dies mid-run: the parent reports it. */
static void case_killfork(void)
{
	const char *args[] = {"-n",  "1000000000", "-W",    "0", "-T",
			      "0.3", "-w",	   "block", NULL};
	proc p;
	spawn(&p, args);
	pump(&p, 0.3);
	char path[64], buf[64] = "";
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)p.pid,
		 (int)p.pid);
	FILE *f = fopen(path, "r");
	if (f == NULL || fgets(buf, sizeof buf, f) == NULL) {
		/* No /proc children file (an older kernel or an emulator). */
		if (f)
			fclose(f);
		kill(p.pid, SIGKILL);
		finish(&p, 5);
		proc_free(&p);
		check_skip("no %s", path);
		return;
	}
	fclose(f);
	pid_t child = (pid_t)atoi(buf);
	CHECK_GT(child, 0);
	CHECK_EQ_I(kill(child, SIGKILL), 0);
	CHECK_EQ_I(finish(&p, 10), 5);
	CHECK_TRUE(p.secs < 0.3 + 0.3 + 2.0);
	proc_free(&p);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_ping CASE CONQ-PING-COMMAND...\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	cmd = argv + 2;
	ncmd = argc - 2;
	/* CASE is NAME[:ARG[:ARG[:ARG]]] */
	char c[128];
	snprintf(c, sizeof c, "%s", argv[1]);
	const char *part[4] = {c, "", "", ""};
	char *cur = c;
	for (int i = 1; i < 4; i++) {
		char *colon = strchr(cur, ':');
		if (colon == NULL)
			break;
		*colon = '\0';
		part[i] = cur = colon + 1;
	}
	check_context("%s", argv[1]);
	if (strcmp(part[0], "smoke") == 0)
		case_smoke(part[1], part[2], false);
	else if (strcmp(part[0], "open") == 0)
		case_smoke(part[1], part[2], true);
	else if (strcmp(part[0], "split") == 0)
		case_split(part[1]);
	else if (strcmp(part[0], "big") == 0)
		case_big(part[1]);
	else if (strcmp(part[0], "overhead") == 0)
		case_overhead();
	else if (strcmp(part[0], "help") == 0)
		case_help();
	else if (strcmp(part[0], "usage") == 0)
		case_usage();
	else if (strcmp(part[0], "refused") == 0)
		case_refused(part[1]);
	else if (strcmp(part[0], "silent") == 0)
		case_silent();
	else if (strcmp(part[0], "notserver") == 0)
		case_notserver();
	else if (strcmp(part[0], "short") == 0)
		case_short(part[1]);
	else if (strcmp(part[0], "kill") == 0)
		case_kill(part[1], part[2], sig_of(part[3]), false);
	else if (strcmp(part[0], "killclient") == 0)
		case_kill(part[1], "spin", SIGKILL, true);
	else if (strcmp(part[0], "killfork") == 0)
		case_killfork();
	else {
		fprintf(stderr, "test_ping: unknown case '%s'\n", argv[1]);
		return 2;
	}
	return check_report();
}
