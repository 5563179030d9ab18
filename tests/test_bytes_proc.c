/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq_mpsc_bytes between processes: producer processes write into a
 * shared ring (CONQ_MPSC_BYTES_SHARED) in memory they map at their own
 * address (a memfd mapped again in each child; MAP_SHARED|MAP_ANONYMOUS
 * inherited through fork() where memfd_create is missing), and the parent
 * consumes. One of the producers (the victim) writes some records, then
 * claims one more, writes half of its payload, says so through a pipe, and
 * waits. Then, by case:
 *
 *   kill    the parent kill -9's it and reaps it at once;
 *   zombie  the parent kill -9's it and leaves it unreaped (a zombie) until
 *           the end;
 *   stop    the parent SIGSTOPs it: a live producer, however long it
 *           stalls, is never reclaimed; after a while (10 liveness checks)
 *           it is resumed, finishes and commits its record, and writes the
 *           rest.
 *
 * The other producers keep writing all along (they fill the ring behind the
 * stuck claim and wait in write_until on the process-shared eventcount).
 * The parent reads with read_until, which reclaims the dead claim by
 * itself. Checked: every committed record delivered exactly once and in
 * per-producer order, every payload byte; the victim's half-written record
 * never delivered when it died, delivered whole when it was only stopped;
 * the longest wait for a record after the kill is printed and must stay
 * under a generous bound (dead_check_ns is 20 ms: the ring moves on within
 * that plus a scan; CI's machines are slow and loaded); afterwards the ring
 * is empty and zeroed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "conq/conq.h"
#include "conq/impl/testing.h"

#define NPROD	      3 /* besides the victim */
#define CAP	      4096
#define DEAD_CHECK_NS (20 * 1000 * 1000)

static double g_scale = 1.0;

/* What the processes share besides the ring. */
struct ctl {
	int held;	   /* the victim holds its claim */
	int go;		   /* stop case: the victim may finish */
	uint64_t held_pos; /* the victim's claimed header's byte index */
};

struct shm {
	int fd; /* memfd, or -1 */
	void *mem;
	size_t bytes;
};

static void *map_ring(struct shm *s)
{
	if (s->fd < 0)
		return s->mem;
	void *m =
	    mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	return m == MAP_FAILED ? NULL : m;
}

static size_t rec_len(unsigned p, uint64_t s)
{
	return 16 + (size_t)((s * 13 + p * 7) % 240);
}

static void fill(unsigned char *d, size_t len, unsigned p, uint64_t s)
{
	uint32_t hdr[2] = {p, (uint32_t)len};
	memcpy(d, hdr, 8);
	memcpy(d + 8, &s, 8);
	for (size_t i = 16; i < len; i++)
		d[i] = (unsigned char)(s * 31 + p + i * 7);
}

/* A producer process: per records, then (victim) the held claim. */
static void producer(struct shm *s, struct ctl *ctl, unsigned id, uint64_t per,
		     int victim)
{
	void *mem = map_ring(s);
	conq_mpsc_bytes *q = mem ? conq_mpsc_bytes_attach(mem, s->bytes) : NULL;
	if (q == NULL)
		_exit(10);
	unsigned char buf[512];
	int64_t deadline = conq_now_ns() + 60000000000LL;
	for (uint64_t k = 0; k < per; k++) {
		size_t len = rec_len(id, k);
		fill(buf, len, id, k);
		if (!conq_mpsc_bytes_write_until(q, (int32_t)id + 1, buf, len,
						 deadline))
			_exit(11);
	}
	if (!victim) {
		if (id % 2)
			conq_mpsc_bytes_detach(q); /* the others leave theirs */
		_exit(0);
	}
	/* The victim: claim one more, write half of it, hold it. */
	size_t len = rec_len(id, per);
	unsigned char *p = (unsigned char *)conq_mpsc_bytes_claim_until(
	    q, (int32_t)id + 1, len, deadline);
	if (p == NULL)
		_exit(12);
	fill(buf, len, id, per);
	memcpy(p, buf, len / 2);
	ctl->held_pos = (uint64_t)(p - conq__mpsc_bytes_data(q)) - 8;
	/* release: pairs with the parent's acquire of held. */
	__atomic_store_n(&ctl->held, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&ctl->go, __ATOMIC_ACQUIRE))
		usleep(1000);
	memcpy(p + len / 2, buf + len / 2, len - len / 2);
	if (!conq_mpsc_bytes_commit(q, p))
		_exit(14);
	for (uint64_t k = per + 1; k < 2 * per; k++) {
		len = rec_len(id, k);
		fill(buf, len, id, k);
		if (!conq_mpsc_bytes_write_until(q, (int32_t)id + 1, buf, len,
						 deadline))
			_exit(15);
	}
	_exit(0);
}

struct check {
	uint64_t next[NPROD + 1];
	uint64_t got, bad;
	int64_t last, gap; /* after the kill: the longest wait between reads */
};

static void on_record(void *ctx, int32_t type, const void *data, size_t len)
{
	struct check *c = (struct check *)ctx;
	const unsigned char *d = (const unsigned char *)data;
	uint32_t hdr[2];
	uint64_t s;
	c->got++;
	if (len < 16) {
		c->bad++;
		return;
	}
	memcpy(hdr, d, 8);
	memcpy(&s, d + 8, 8);
	unsigned p = hdr[0];
	bool ok = p <= NPROD && type == (int32_t)p + 1 && hdr[1] == len &&
		  len == rec_len(p, s) && s == c->next[p];
	for (size_t i = 16; ok && i < len; i++)
		ok = d[i] == (unsigned char)(s * 31 + p + i * 7);
	if (!ok && c->bad++ < 5)
		fprintf(stderr,
			"bad record: type %d len %zu producer %u seq %" PRIu64
			"\n",
			type, len, p, s);
	if (p <= NPROD)
		c->next[p] = s + 1;
}

static void run(const char *how)
{
	check_context("%s", how);
	uint64_t per = (uint64_t)(20000 * g_scale);
	if (per < 10)
		per = 10;
	conq_mpsc_bytes_opts o = {CONQ_MPSC_BYTES_SHARED, 8, DEAD_CHECK_NS};
	struct shm s = {-1, NULL, conq_mpsc_bytes_memsize_opts(CAP, &o)};
	s.fd = memfd_create("conq-bytes-test", MFD_CLOEXEC);
	if (s.fd >= 0 && ftruncate(s.fd, (off_t)s.bytes) != 0) {
		close(s.fd);
		s.fd = -1;
	}
	void *mem = mmap(NULL, s.bytes, PROT_READ | PROT_WRITE,
			 MAP_SHARED | (s.fd < 0 ? MAP_ANONYMOUS : 0), s.fd, 0);
	struct ctl *ctl =
	    (struct ctl *)mmap(NULL, sizeof *ctl, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK_TRUE(mem != MAP_FAILED && ctl != MAP_FAILED))
		return;
	s.mem = mem;
	conq_mpsc_bytes *q = conq_mpsc_bytes_init_opts(mem, CAP, &o);
	if (!CHECK_NOT_NULL(q))
		return;
	pid_t kids[NPROD + 1];
	for (unsigned i = 0; i <= NPROD; i++)
		kids[i] = -1;
	/* The victim first, alone; the others start once it holds its claim,
	 * so that all their records pile up behind it and the consumer
	 * reaches them only through the reclaim (or the stopped victim's
	 * late commit). Started together, they could let the consumer finish
	 * before the claim was made, and the victim would never be killed. */
	kids[0] = fork();
	if (kids[0] == 0)
		producer(&s, ctl, NPROD, per / 4, 1);
	struct check c = {{0}, 0, 0, 0, 0};
	int64_t deadline = conq_now_ns() + 60000000000LL, t_kill = 0;
	pid_t victim = kids[0];
	int stop = strcmp(how, "stop") == 0;
	uint64_t victim_per = per / 4;
	uint64_t total = NPROD * per + (stop ? 2 * victim_per : victim_per);
	while (c.got < total) {
		/* acquire: pairs with the victim's release of held. */
		if (t_kill == 0 &&
		    __atomic_load_n(&ctl->held, __ATOMIC_ACQUIRE)) {
			kill(victim, stop ? SIGSTOP : SIGKILL);
			if (strcmp(how, "kill") == 0)
				waitpid(victim, NULL, 0);
			c.last = t_kill = conq_now_ns();
			for (unsigned i = 1; i <= NPROD; i++) {
				kids[i] = fork();
				if (kids[i] == 0)
					producer(&s, ctl, i - 1, per, 0);
			}
		}
		if (stop && t_kill != 0 && !ctl->go &&
		    conq_now_ns() - t_kill > 10 * (int64_t)DEAD_CHECK_NS) {
			/* Ten checks later, the stalled claim is still
			 * there: the head is at it, and unblock refuses. */
			uint64_t held = ctl->held_pos;
			CHECK_EQ((uint64_t)q->head & q->mask, held);
			CHECK_FALSE(conq_mpsc_bytes_unblock(q));
			uint64_t w = *conq__mpsc_bytes_hdr(q, held);
			CHECK_LE_I(conq__mpsc_bytes_len(w), -1);
			CHECK_EQ(c.next[NPROD], victim_per);
			__atomic_store_n(&ctl->go, 1, __ATOMIC_RELEASE);
			kill(victim, SIGCONT);
		}
		/* Short waits until the victim is dealt with. */
		int64_t until = t_kill == 0 || (stop && !ctl->go)
				    ? conq_now_ns() + 5000000
				    : deadline;
		if (conq_mpsc_bytes_read_until(q, on_record, &c, 64, until) ==
		    0) {
			if (conq_now_ns() >= deadline) {
				CHECK_FAIL(
				    "the consumer timed out after %" PRIu64
				    " of %" PRIu64 " records",
				    c.got, total);
				break;
			}
			continue;
		}
		int64_t now = conq_now_ns();
		if (t_kill != 0 && now - c.last > c.gap)
			c.gap = now - c.last;
		c.last = now;
	}
	int64_t t_done = conq_now_ns();
	if (c.got < total) /* failed already: leave nobody waiting */
		for (unsigned i = 0; i <= NPROD; i++)
			if (kids[i] > 0) {
				kill(kids[i], SIGKILL);
				kill(kids[i], SIGCONT);
			}
	if (t_kill == 0) { /* it never held its claim: leave no orphan */
		CHECK_FAIL("the victim never held its claim");
		kill(victim, SIGKILL);
		waitpid(victim, NULL, 0);
		return;
	}
	for (unsigned i = 0; i <= NPROD; i++) {
		int st = 0;
		if (i == 0 && strcmp(how, "zombie") == 0) {
			/* Still a zombie: we never reaped it before now. */
			CHECK_EQ(waitpid(victim, &st, WNOHANG), victim);
			CHECK_TRUE(WIFSIGNALED(st));
			continue;
		}
		if (i == 0 && strcmp(how, "kill") == 0)
			continue;
		waitpid(kids[i], &st, 0);
		CHECK_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK_EQ(c.got, total);
	CHECK_EQ(c.bad, 0);
	for (unsigned i = 0; i < NPROD; i++)
		CHECK_EQ(c.next[i], per);
	CHECK_EQ(c.next[NPROD], stop ? 2 * victim_per : victim_per);
	CHECK_TRUE(conq_mpsc_bytes_is_empty(q));
	const unsigned char *d = conq__mpsc_bytes_data(q);
	bool zero = true;
	for (size_t i = 0; i < CAP; i++)
		zero = zero && d[i] == 0;
	CHECK_TRUE(zero);
	printf("%s: %" PRIu64 " records from %d processes, the longest wait "
	       "after the %s %.1f ms (dead_check %d ms), all in %.0f ms\n",
	       how, c.got, NPROD + 1, stop ? "stop" : "kill",
	       (double)c.gap / 1e6, DEAD_CHECK_NS / 1000000,
	       (double)(t_done - t_kill) / 1e6);
	if (!stop)
		CHECK_LT(c.gap, DEAD_CHECK_NS + 5000000000LL);
	conq_mpsc_bytes_detach(q);
	munmap(mem, s.bytes);
	munmap(ctl, sizeof *ctl);
	if (s.fd >= 0)
		close(s.fd);
}

int main(int argc, char **argv)
{
	const char *env = getenv("CONQ_TEST_SCALE");
	if (env != NULL && atof(env) > 0)
		g_scale = atof(env);
	setvbuf(stdout, NULL, _IONBF, 0);
	const char *what = argc > 1 ? argv[1] : "kill";
	if (strcmp(what, "kill") != 0 && strcmp(what, "zombie") != 0 &&
	    strcmp(what, "stop") != 0) {
		fprintf(stderr, "usage: test_bytes_proc kill|zombie|stop\n");
		return 2;
	}
	run(what);
	return check_report();
}
