/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The value rings between processes, through their shared-memory
 * constructors (conq_<pc>_value_shm_create / _open_fd / _shm_close on
 * conq/shm.h): every child opens the region anew, at its own address.
 *
 *   transfer  every family: producer processes and consumer processes (as
 *             many as the family allows, up to two each) move 64-byte
 *             elements through put_until/take_until (the process-shared
 *             eventcounts): each consumer reports what it got through a
 *             pipe; every element delivered exactly once, in per-producer
 *             order, every byte intact;
 *   kill      MPSC and MPMC: one producer (the victim) offers some
 *             elements, claims one more, writes half of it, says so, and
 *             waits; the parent kill -9's it and reaps it; the other
 *             producers fill the ring behind the stuck claim and wait in
 *             put_until; the parent's take_until reclaims the claim (proof
 *             of death: conq/impl/claims.h) and goes on: every committed
 *             element delivered once, the half-written one never;
 *   zombie    as kill, the victim left unreaped until the end;
 *   stop      as kill with SIGSTOP: a live producer is never reclaimed,
 *             however long it stalls; resumed after ten liveness checks,
 *             it commits its element, which is delivered whole;
 *   refuse    opening the region as another family, element size or
 *             capacity fails (EPROTOTYPE, EDOM), and a region's ring
 *             checks its own layout (attach).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
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

#define ESIZE	      64
#define CAP	      64
#define DEAD_CHECK_NS (20 * 1000 * 1000)
#define MAXP	      3 /* producers, the victim included */

static double g_scale = 1.0;

/* A family's calls, as function pointers (the test is about processes,
 * not about the inlined fast paths). */
struct fam {
	const char *name;
	unsigned maxp, maxc;
	void *(*create)(const char *, size_t, size_t, const conq_value_opts *,
			const conq_shm_options *, conq_shm **);
	void *(*open_fd)(int, size_t, size_t, const conq_shm_options *,
			 conq_shm **);
	int (*close)(conq_shm *);
	bool (*put_until)(void *, const void *, int64_t);
	bool (*take_until)(void *, void *, int64_t);
	void *(*claim)(void *);
	bool (*commit)(void *, void *);
	bool (*is_empty)(void *);
};

#define FAM(f, p, c)                                                           \
	static void *f##_create(const char *n, size_t e, size_t k,             \
				const conq_value_opts *o,                      \
				const conq_shm_options *so, conq_shm **s)      \
	{                                                                      \
		return conq_##f##_shm_create(n, e, k, o, so, s);               \
	}                                                                      \
	static void *f##_open_fd(int fd, size_t e, size_t k,                   \
				 const conq_shm_options *so, conq_shm **s)     \
	{                                                                      \
		return conq_##f##_shm_open_fd(fd, e, k, so, s);                \
	}                                                                      \
	static bool f##_put_until(void *q, const void *e, int64_t d)           \
	{                                                                      \
		return conq_##f##_put_until((conq_##f *)q, e, d);              \
	}                                                                      \
	static bool f##_take_until(void *q, void *o, int64_t d)                \
	{                                                                      \
		return conq_##f##_take_until((conq_##f *)q, o, d);             \
	}                                                                      \
	static void *f##_claim(void *q)                                        \
	{                                                                      \
		return conq_##f##_claim((conq_##f *)q);                        \
	}                                                                      \
	static bool f##_commit(void *q, void *s)                               \
	{                                                                      \
		return conq_##f##_commit((conq_##f *)q, s);                    \
	}                                                                      \
	static bool f##_is_empty(void *q)                                      \
	{                                                                      \
		return conq_##f##_is_empty((conq_##f *)q);                     \
	}                                                                      \
	static const struct fam fam_##f = {                                    \
	    #f,		    p,		    c,                                 \
	    f##_create,	    f##_open_fd,    conq_##f##_shm_close,              \
	    f##_put_until,  f##_take_until, f##_claim,                         \
	    f##_commit,	    f##_is_empty};

FAM(spsc_value, 1, 1)
FAM(mpsc_value, MAXP, 1)
FAM(spmc_value, 1, 2)
FAM(mpmc_value, MAXP, 2)

static const struct fam *const fams[] = {&fam_spsc_value, &fam_mpsc_value,
					 &fam_spmc_value, &fam_mpmc_value};

/* Element (producer p, sequence s): every byte a function of both. */
static void fill(unsigned char *d, unsigned p, uint64_t s)
{
	memcpy(d, &s, 8);
	d[8] = (unsigned char)p;
	for (size_t i = 9; i < ESIZE; i++)
		d[i] = (unsigned char)(s * 31 + p * 5 + i * 7);
}

struct tally {
	uint64_t next[MAXP];
	uint64_t got, bad;
};

static void check_elem(struct tally *t, const unsigned char *d, unsigned np)
{
	uint64_t s;
	memcpy(&s, d, 8);
	unsigned p = d[8];
	bool ok = p < np && s >= t->next[p];
	for (size_t i = 9; ok && i < ESIZE; i++)
		ok = d[i] == (unsigned char)(s * 31 + p * 5 + i * 7);
	t->got++;
	if (!ok) {
		if (t->bad++ < 5)
			fprintf(stderr, "bad element: producer %u seq %" PRIu64
					"\n",
				p, s);
		return;
	}
	/* One consumer: exactly the next. Several: each consumer sees a
	 * producer's elements in increasing order (the total order is the
	 * claims'); the parent adds the counts up. */
	t->next[p] = s + 1;
}

static void *open_child(const struct fam *f, int fd, conq_shm **shm)
{
	/* A mapping of our own, at whatever address: the parent's, inherited
	 * through fork, stays too, so the kernel must give another one. */
	void *q = f->open_fd(fd, ESIZE, CAP, NULL, shm);
	if (q == NULL) {
		fprintf(stderr, "child: open: %s\n", conq_shm_last_error());
		_exit(10);
	}
	return q;
}

/* ---- transfer ---- */

static void produce(const struct fam *f, int fd, unsigned id, uint64_t n)
{
	conq_shm *shm;
	void *q = open_child(f, fd, &shm);
	unsigned char e[ESIZE];
	int64_t deadline = conq_now_ns() + 60000000000LL;
	for (uint64_t s = 0; s < n; s++) {
		fill(e, id, s);
		if (s % 3 == 1) { /* claim and write in place */
			void *slot;
			while ((slot = f->claim(q)) == NULL)
				if (conq_now_ns() > deadline)
					_exit(11);
				else
					sched_yield();
			memcpy(slot, e, ESIZE);
			if (!f->commit(q, slot))
				_exit(12);
		} else if (!f->put_until(q, e, deadline)) {
			_exit(13);
		}
	}
	f->close(shm);
	_exit(0);
}

/* A consumer process: takes until the parent says the producers are done
 * and the ring is empty; reports its tally, then a bitmap of the elements
 * it got (producer-major), so that the parent sees every element delivered
 * exactly once across consumers. */
static void consume_child(const struct fam *f, int fd, unsigned np, uint64_t n,
			  const int *done, int out)
{
	conq_shm *shm;
	void *q = open_child(f, fd, &shm);
	struct tally t = {{0}, 0, 0};
	size_t words = (size_t)(np * n + 63) / 64;
	uint64_t *seen = (uint64_t *)calloc(words, 8);
	unsigned char e[ESIZE];
	if (seen == NULL)
		_exit(15);
	for (;;) {
		/* acquire: pairs with the parent's release of done, after
		 * every producer exited (their puts happened before). */
		bool last = __atomic_load_n(done, __ATOMIC_ACQUIRE);
		if (!f->take_until(q, e, conq_now_ns() + 20000000)) {
			if (last)
				break;
			continue;
		}
		uint64_t before = t.bad;
		check_elem(&t, e, np);
		uint64_t sq;
		memcpy(&sq, e, 8);
		if (t.bad == before && sq < n) {
			uint64_t k = e[8] * n + sq;
			if (seen[k / 64] & (1ull << (k % 64)))
				t.bad++; /* twice to this consumer */
			seen[k / 64] |= 1ull << (k % 64);
		}
	}
	if (write(out, &t, sizeof t) != (ssize_t)sizeof t ||
	    write(out, seen, words * 8) != (ssize_t)(words * 8))
		_exit(14);
	free(seen);
	f->close(shm);
	_exit(0);
}

static bool read_all(int fd, void *buf, size_t n)
{
	unsigned char *b = (unsigned char *)buf;
	while (n > 0) {
		ssize_t r = read(fd, b, n);
		if (r <= 0)
			return false;
		b += r;
		n -= (size_t)r;
	}
	return true;
}

static void test_transfer(const struct fam *f)
{
	check_context("%s transfer", f->name);
	unsigned np = f->maxp < 2 ? f->maxp : 2, nc = f->maxc < 2 ? f->maxc : 2;
	uint64_t n = (uint64_t)(20000 * g_scale) + 10;
	conq_value_opts o = {CONQ_VALUE_SHARED, 8, DEAD_CHECK_NS};
	conq_shm *shm;
	void *q = f->create(NULL, ESIZE, CAP, &o, NULL, &shm);
	if (!CHECK_NOT_NULL(q)) {
		fprintf(stderr, "%s\n", conq_shm_last_error());
		return;
	}
	int *done = (int *)mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK_TRUE(done != MAP_FAILED))
		return;
	int fd = conq_shm_fd(shm);
	int pipes[2][2];
	pid_t cons[2], prod[2];
	for (unsigned c = 0; c < nc; c++) {
		if (pipe(pipes[c]) != 0)
			return;
		cons[c] = fork();
		if (cons[c] == 0)
			consume_child(f, fd, np, n, done, pipes[c][1]);
		close(pipes[c][1]);
	}
	for (unsigned p = 0; p < np; p++) {
		prod[p] = fork();
		if (prod[p] == 0)
			produce(f, fd, p, n);
	}
	for (unsigned p = 0; p < np; p++) {
		int st = 0;
		waitpid(prod[p], &st, 0);
		CHECK_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	/* release: pairs with the consumers' acquire. */
	__atomic_store_n(done, 1, __ATOMIC_RELEASE);
	size_t words = (size_t)(np * n + 63) / 64;
	uint64_t *all_seen = (uint64_t *)calloc(words, 8);
	uint64_t *seen = (uint64_t *)calloc(words, 8);
	struct tally all = {{0}, 0, 0};
	uint64_t twice = 0;
	for (unsigned c = 0; c < nc && all_seen && seen; c++) {
		struct tally t;
		if (!CHECK_TRUE(read_all(pipes[c][0], &t, sizeof t) &&
				read_all(pipes[c][0], seen, words * 8)))
			break;
		all.got += t.got;
		all.bad += t.bad;
		for (size_t w = 0; w < words; w++) {
			twice += (uint64_t)__builtin_popcountll(all_seen[w] &
								seen[w]);
			all_seen[w] |= seen[w];
		}
		close(pipes[c][0]);
	}
	uint64_t missing = np * n;
	for (size_t w = 0; all_seen && w < words; w++)
		missing -= (uint64_t)__builtin_popcountll(all_seen[w]);
	for (unsigned c = 0; c < nc; c++) {
		int st = 0;
		waitpid(cons[c], &st, 0);
		CHECK_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK_EQ(all.bad, 0);
	CHECK_EQ(twice, 0);
	CHECK_EQ(missing, 0);
	CHECK_EQ(all.got, np * n);
	CHECK_TRUE(f->is_empty(q));
	printf("%s transfer: %" PRIu64 " elements of %d bytes, %u producer "
	       "and %u consumer processes\n",
	       f->name, all.got, ESIZE, np, nc);
	free(all_seen);
	free(seen);
	munmap(done, sizeof(int));
	CHECK_EQ_I(f->close(shm), 0);
}

/* ---- a producer process dies (or stalls) mid-claim ---- */

struct ctl {
	int held; /* the victim holds its claim */
	int go;	  /* stop case: the victim may finish */
};

static void victim(const struct fam *f, int fd, struct ctl *ctl, unsigned id,
		   uint64_t per)
{
	conq_shm *shm;
	void *q = open_child(f, fd, &shm);
	unsigned char e[ESIZE];
	int64_t deadline = conq_now_ns() + 60000000000LL;
	for (uint64_t s = 0; s < per; s++) {
		fill(e, id, s);
		if (!f->put_until(q, e, deadline))
			_exit(11);
	}
	unsigned char *slot;
	while ((slot = (unsigned char *)f->claim(q)) == NULL)
		sched_yield();
	fill(e, id, per);
	memcpy(slot, e, ESIZE / 2);
	/* release: pairs with the parent's acquire of held. */
	__atomic_store_n(&ctl->held, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&ctl->go, __ATOMIC_ACQUIRE))
		usleep(1000);
	memcpy(slot + ESIZE / 2, e + ESIZE / 2, ESIZE - ESIZE / 2);
	if (!f->commit(q, slot))
		_exit(12);
	f->close(shm);
	_exit(0);
}

static void test_death(const struct fam *f, const char *how)
{
	check_context("%s %s", f->name, how);
	uint64_t per = (uint64_t)(5000 * g_scale) + 10;
	conq_value_opts o = {CONQ_VALUE_SHARED, 8, DEAD_CHECK_NS};
	char name[64];
	snprintf(name, sizeof name, "/conq-test-value-%d", (int)getpid());
	conq_shm *shm;
	void *q = f->create(name, ESIZE, CAP, &o, NULL, &shm);
	if (!CHECK_NOT_NULL(q)) {
		fprintf(stderr, "%s\n", conq_shm_last_error());
		return;
	}
	conq_shm_unlink(name); /* the descriptors keep it */
	int fd = conq_shm_fd(shm);
	struct ctl *ctl =
	    (struct ctl *)mmap(NULL, sizeof *ctl, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK_TRUE(ctl != MAP_FAILED))
		return;
	int stop = strcmp(how, "stop") == 0;
	unsigned vid = MAXP - 1;
	pid_t kids[MAXP];
	for (unsigned i = 0; i < MAXP; i++)
		kids[i] = -1;
	kids[0] = fork();
	if (kids[0] == 0)
		victim(f, fd, ctl, vid, per / 4);
	/* The other producers start once the victim holds its claim, so that
	 * every one of their elements lies behind the stuck claim: the
	 * consumer can only reach them through the reclaim (or, stopped,
	 * through the victim's late commit). Started together with the
	 * victim, they could race the consumer to the end before the claim
	 * was ever made (CI saw it: the victim was never killed, and its
	 * orphan held ctest's pipe open until the timeout). */
	struct tally t = {{0}, 0, 0};
	uint64_t total = (MAXP - 1) * per + per / 4 + (stop ? 1 : 0);
	unsigned char e[ESIZE];
	int64_t deadline = conq_now_ns() + 60000000000LL, t_kill = 0, last = 0,
		gap = 0;
	while (t.got < total) {
		/* acquire: pairs with the victim's release of held. */
		if (t_kill == 0 &&
		    __atomic_load_n(&ctl->held, __ATOMIC_ACQUIRE)) {
			kill(kids[0], stop ? SIGSTOP : SIGKILL);
			if (strcmp(how, "kill") == 0)
				waitpid(kids[0], NULL, 0);
			last = t_kill = conq_now_ns();
			for (unsigned p = 0; p + 1 < MAXP; p++) {
				kids[p + 1] = fork();
				if (kids[p + 1] == 0)
					produce(f, fd, p, per);
			}
		}
		if (stop && t_kill != 0 && !ctl->go &&
		    conq_now_ns() - t_kill > 10 * (int64_t)DEAD_CHECK_NS) {
			/* Ten checks later the stalled claim still holds the
			 * head: unblock refuses to reclaim a live claimer. */
			CHECK_FALSE(strcmp(f->name, "mpsc_value") == 0
					? conq_mpsc_value_unblock(
					      (conq_mpsc_value *)q)
					: conq_mpmc_value_unblock(
					      (conq_mpmc_value *)q));
			__atomic_store_n(&ctl->go, 1, __ATOMIC_RELEASE);
			kill(kids[0], SIGCONT);
		}
		int64_t until = t_kill == 0 || (stop && !ctl->go)
				    ? conq_now_ns() + 5000000
				    : deadline;
		if (!f->take_until(q, e, until)) {
			if (conq_now_ns() >= deadline) {
				CHECK_FAIL("the consumer timed out after %" PRIu64
					   " of %" PRIu64,
					   t.got, total);
				break;
			}
			continue;
		}
		check_elem(&t, e, MAXP);
		int64_t now = conq_now_ns();
		if (t_kill != 0 && now - last > gap)
			gap = now - last;
		last = now;
	}
	if (t.got < total) /* failed already: leave nobody waiting */
		for (unsigned i = 0; i < MAXP; i++)
			if (kids[i] > 0) {
				kill(kids[i], SIGKILL);
				kill(kids[i], SIGCONT);
			}
	if (t_kill == 0) { /* it never held its claim: leave no orphan */
		CHECK_FAIL("the victim never held its claim");
		kill(kids[0], SIGKILL);
		waitpid(kids[0], NULL, 0);
		munmap(ctl, sizeof *ctl);
		f->close(shm);
		return;
	}
	for (unsigned i = 0; i < MAXP; i++) {
		int st = 0;
		if (i == 0 && strcmp(how, "kill") == 0)
			continue;
		if (i == 0 && strcmp(how, "zombie") == 0) {
			/* Still unreaped until now. */
			CHECK_EQ(waitpid(kids[0], &st, WNOHANG), kids[0]);
			CHECK_TRUE(WIFSIGNALED(st));
			continue;
		}
		waitpid(kids[i], &st, 0);
		CHECK_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK_EQ(t.bad, 0);
	CHECK_EQ(t.got, total);
	for (unsigned p = 0; p + 1 < MAXP; p++)
		CHECK_EQ(t.next[p], per);
	CHECK_EQ(t.next[vid], per / 4 + (stop ? 1 : 0));
	CHECK_FALSE(f->take_until(q, e, conq_now_ns() + 1000000));
	CHECK_TRUE(f->is_empty(q));
	printf("%s %s: %" PRIu64 " elements from %d processes; the longest "
	       "wait after the %s %.1f ms (dead check %d ms)\n",
	       f->name, how, t.got, MAXP, stop ? "stop" : "kill",
	       (double)gap / 1e6, DEAD_CHECK_NS / 1000000);
	if (!stop)
		CHECK_LT(gap, DEAD_CHECK_NS + 5000000000LL);
	munmap(ctl, sizeof *ctl);
	CHECK_EQ_I(f->close(shm), 0);
}

/* ---- refusals ---- */

static void test_refuse(void)
{
	check_context("refuse");
	conq_shm *shm, *o;
	conq_mpsc_value *q =
	    conq_mpsc_value_shm_create(NULL, ESIZE, CAP, NULL, NULL, &shm);
	if (!CHECK_NOT_NULL(q))
		return;
	int fd = conq_shm_fd(shm);
	conq_shm_options now = {0, 0, CONQ_SHM_NO_WAIT};
	errno = 0;
	CHECK_NULL(conq_mpmc_value_shm_open_fd(fd, ESIZE, CAP, &now, &o));
	CHECK_EQ(errno, CONQ_SHM_EKIND);
	errno = 0;
	CHECK_NULL(conq_mpsc_value_shm_open_fd(fd, 32, CAP, &now, &o));
	CHECK_EQ(errno, CONQ_SHM_EGEOMETRY);
	errno = 0;
	CHECK_NULL(conq_mpsc_value_shm_open_fd(fd, ESIZE, 2 * CAP, &now, &o));
	CHECK_EQ(errno, CONQ_SHM_EGEOMETRY);
	/* 0 accepts the region's geometry. */
	conq_mpsc_value *r = conq_mpsc_value_shm_open_fd(fd, 0, 0, &now, &o);
	if (CHECK_NOT_NULL(r)) {
		CHECK_EQ(conq_mpsc_value_elem_size(r), ESIZE);
		CHECK_EQ(conq_mpsc_value_capacity(r), CAP);
		CHECK_PTR_NE(r, q); /* another mapping */
		unsigned char e[ESIZE] = {1, 2, 3}, out[ESIZE];
		CHECK_TRUE(conq_mpsc_value_offer(q, e));
		CHECK_TRUE(conq_mpsc_value_poll(r, out));
		CHECK_EQ(out[2], 3);
		CHECK_EQ_I(conq_mpsc_value_shm_close(o), 0);
	}
	/* attach checks the ring itself: a layout word from another build. */
	void *obj = conq_shm_object(shm);
	size_t bytes = conq_shm_object_size(shm);
	CHECK_PTR_EQ(conq_mpsc_value_attach(obj, bytes), obj);
	errno = 0;
	CHECK_NULL(conq_spsc_value_attach(obj, bytes)); /* another family */
	CHECK_EQ(errno, EPROTO);
	errno = 0;
	CHECK_NULL(conq_mpsc_value_attach(obj, 256)); /* does not fit */
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ_I(conq_mpsc_value_shm_close(shm), 0);
}

int main(int argc, char **argv)
{
	const char *env = getenv("CONQ_TEST_SCALE");
	if (env != NULL && atof(env) > 0)
		g_scale = atof(env);
	setvbuf(stdout, NULL, _IONBF, 0);
	const char *what = argc > 1 ? argv[1] : "transfer";
	if (strcmp(what, "transfer") == 0) {
		for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++)
			test_transfer(fams[i]);
	} else if (strcmp(what, "kill") == 0 || strcmp(what, "zombie") == 0 ||
		   strcmp(what, "stop") == 0) {
		test_death(&fam_mpsc_value, what);
		test_death(&fam_mpmc_value, what);
	} else if (strcmp(what, "refuse") == 0) {
		test_refuse();
	} else {
		fprintf(stderr,
			"usage: test_value_proc transfer|kill|zombie|stop|"
			"refuse\n");
		return 2;
	}
	return check_report();
}
