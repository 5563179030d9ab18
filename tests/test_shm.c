/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/test_shm.c - conq/shm.h: regions created and opened by name and by
 * memfd, in this process, in a forked child and in an exec'ed one (each at
 * an address other than the creator's); every refusal, with its errno and
 * its message; the attach protocol's waits; bad arguments; and no
 * descriptor or mapping left behind.
 *
 * Usage: test_shm [EMULATOR...] SHM_CHILD [case...]
 *   SHM_CHILD is the helper binary (tests/shm_child.c), run through the
 *   EMULATOR words (qemu-aarch64 -L ...) when ctest gives them. A case
 *   name after `--` runs only the cases named.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "conq/eventcount.h"
#include "shm_test.h"

#define MS 1000000LL

/* The helper's command: argv words up to and including SHM_CHILD. */
static char **child_cmd;
static int child_cmd_n;

static const conq_shm_spec ts_spec = {TS_KIND, TS_LAYOUT, TS_ELEM, TS_CAP,
				      TS_SIZE};
static const conq_shm_options nowait = {0, 0, CONQ_SHM_NO_WAIT};

/* Region names: unique to this process; every one is unlinked at the end. */
static char names[64][64];
static int n_names;

static const char *new_name(void)
{
	if (n_names == 64)
		abort();
	snprintf(names[n_names], sizeof names[0], "/conq-test-shm-%d-%d",
		 (int)getpid(), n_names);
	return names[n_names++];
}

static void unlink_all(void)
{
	for (int i = 0; i < n_names; i++)
		shm_unlink(names[i]); /* most are gone already */
}

static int init_calls;

static int ts_init(void *object, const conq_shm_spec *spec, void *ctx)
{
	(void)ctx;
	init_calls++;
	struct ts_obj *o = (struct ts_obj *)object;
	/* The memory comes zero-filled, the whole object of it. */
	const unsigned char *b = (const unsigned char *)object;
	for (uint64_t i = 0; i < spec->object_size; i++)
		if (b[i] != 0)
			return EIO;
	o->init_mark = TS_INIT_MARK;
	return 0;
}

static conq_shm *make(const char *name)
{
	return conq_shm_create(name, &ts_spec, ts_init, NULL, NULL);
}

/* Open fd's of this process, and mappings of regions ("conq-shm" for the
 * memfds, "conq-test-shm" for the names). */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (d == NULL)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (f == NULL)
		return -1;
	char line[512];
	int n = 0;
	while (fgets(line, sizeof line, f) != NULL)
		n += strstr(line, "conq-shm") != NULL ||
		     strstr(line, "conq-test-shm") != NULL;
	fclose(f);
	return n;
}

/* A refused call: NULL, errno `err`, and a message that contains each of
 * the words (NULL-terminated). */
static bool refused(conq_shm *shm, int err, ...)
{
	int e = errno;
	if (!CHECK_NULL(shm)) {
		conq_shm_close(shm);
		return false;
	}
	bool ok = CHECK_EQ(e, err);
	const char *msg = conq_shm_last_error();
	va_list ap;
	va_start(ap, err);
	for (const char *w; (w = va_arg(ap, const char *)) != NULL;)
		if (strstr(msg, w) == NULL) {
			CHECK_FAIL("message \"%s\" lacks \"%s\"", msg, w);
			ok = false;
		}
	va_end(ap);
	if (!ok)
		fprintf(stderr, "  (errno %d %s; message: %s)\n", e,
			strerror(e), msg);
	return ok;
}

#define REFUSED(shm, err, ...) refused(shm, err, __VA_ARGS__, (char *)NULL)

/* -------------------------------------------------------------- cases -- */

/* By name: create, open with the full expectation and with none, both views
 * see each other's writes, EEXIST, close, unlink, ENOENT. */
static void case_name(void)
{
	const char *name = new_name();
	init_calls = 0;
	conq_shm *a = make(name);
	if (!CHECK_NOT_NULL(a))
		return;
	CHECK_EQ(init_calls, 1);
	struct ts_obj *oa = (struct ts_obj *)conq_shm_object(a);
	CHECK_EQ((uintptr_t)oa % CONQ_PAD, 0);
	CHECK_EQ(oa->init_mark, TS_INIT_MARK);
	CHECK_EQ(conq_shm_object_size(a), TS_SIZE);
	long page = sysconf(_SC_PAGESIZE);
	CHECK_EQ(conq_shm_map_size(a) % (size_t)page, 0);
	CHECK_GE(conq_shm_map_size(a), TS_SIZE + CONQ_SHM_HEADER_SIZE);
	CHECK_GE(conq_shm_fd(a), 0);
	const conq_shm_header *h = conq_shm_header_of(a);
	CHECK_EQ(h->magic, CONQ_SHM_MAGIC);
	CHECK_EQ(h->state, CONQ_SHM_STATE_READY);
	CHECK_EQ(h->kind, TS_KIND);
	CHECK_EQ(h->creator_pid, getpid());
	CHECK_EQ(h->checksum, conq_shm_header_checksum(h));
	CHECK_PTR_EQ((const char *)h + h->object_offset, oa);
	/* The descriptor is close-on-exec unless asked otherwise. */
	CHECK_TRUE(fcntl(conq_shm_fd(a), F_GETFD) & FD_CLOEXEC);
	struct stat st;
	if (CHECK_EQ(fstat(conq_shm_fd(a), &st), 0))
		CHECK_EQ(st.st_mode & 0777, 0600);

	conq_shm *b = conq_shm_open(name, &ts_spec, NULL);
	if (CHECK_NOT_NULL(b)) {
		struct ts_obj *ob = (struct ts_obj *)conq_shm_object(b);
		CHECK_PTR_NE(ob, oa);
		CHECK_EQ(ob->init_mark, TS_INIT_MARK);
		ob->child_mark = 42;
		CHECK_EQ(oa->child_mark, 42);
		oa->text[0] = 'x';
		CHECK_EQ(ob->text[0], 'x');
		CHECK_NE(conq_shm_fd(b), conq_shm_fd(a));
		CHECK_EQ(conq_shm_map_size(b), conq_shm_map_size(a));
		CHECK_EQ(conq_shm_close(b), 0);
	}
	/* No expectation: the geometry comes from the region. */
	conq_shm *c = conq_shm_open(name, NULL, NULL);
	if (CHECK_NOT_NULL(c)) {
		const conq_shm_spec *sp = conq_shm_spec_of(c);
		CHECK_EQ(sp->kind, TS_KIND);
		CHECK_EQ(sp->layout_version, TS_LAYOUT);
		CHECK_EQ(sp->elem_size, TS_ELEM);
		CHECK_EQ(sp->capacity, TS_CAP);
		CHECK_EQ(sp->object_size, TS_SIZE);
		CHECK_EQ(conq_shm_close(c), 0);
	}
	conq_shm_spec kind_only = {TS_KIND, 0, 0, 0, 0};
	c = conq_shm_open(name, &kind_only, NULL);
	CHECK_NOT_NULL(c);
	conq_shm_close(c);
	/* The name is taken; the region stays good. */
	REFUSED(make(name), EEXIST, name, "shm_open");
	CHECK_EQ(oa->init_mark, TS_INIT_MARK);
	CHECK_EQ(conq_shm_unlink(name), 0);
	/* Unlinked: the handle still works, the name is gone. */
	oa->child_mark = 7;
	CHECK_EQ(oa->child_mark, 7);
	REFUSED(conq_shm_open(name, NULL, NULL), ENOENT, name);
	errno = 0;
	CHECK_EQ(conq_shm_unlink(name), -1);
	CHECK_EQ(errno, ENOENT);
	CHECK_EQ(conq_shm_close(a), 0);
	CHECK_EQ(conq_shm_close(NULL), 0);
	/* Mode bits (under the umask). */
	mode_t old = umask(0);
	conq_shm_options o = {0, 0640, 0};
	name = new_name();
	a = conq_shm_create(name, &ts_spec, NULL, NULL, &o);
	umask(old);
	if (CHECK_NOT_NULL(a)) {
		if (CHECK_EQ(fstat(conq_shm_fd(a), &st), 0))
			CHECK_EQ(st.st_mode & 0777, 0640);
		/* No init: the object stays zero-filled. */
		CHECK_EQ(((struct ts_obj *)conq_shm_object(a))->init_mark, 0);
		conq_shm_close(a);
	}
	CHECK_EQ(conq_shm_unlink(name), 0);
}

/* A memfd: open by descriptor (a duplicate of it), sealed size. */
static void case_memfd(void)
{
	conq_shm *a = make(NULL);
	if (!CHECK_NOT_NULL(a))
		return;
	int fd = conq_shm_fd(a);
	char path[64], link[256];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(path, link, sizeof link - 1);
	if (CHECK_GT(n, 0)) {
		link[n] = '\0';
		if (strstr(link, "memfd:conq-shm") == NULL)
			CHECK_FAIL("fd %d is %s, not a memfd", fd, link);
	}
	CHECK_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	/* Sealed: nobody can truncate it under the mappings. */
	CHECK_EQ_I(ftruncate(fd, 0), -1);
	CHECK_EQ(errno, EPERM);
	conq_shm *b = conq_shm_open_fd(fd, &ts_spec, NULL);
	if (CHECK_NOT_NULL(b)) {
		CHECK_NE(conq_shm_fd(b), fd);
		CHECK_TRUE(fcntl(conq_shm_fd(b), F_GETFD) & FD_CLOEXEC);
		struct ts_obj *ob = (struct ts_obj *)conq_shm_object(b);
		struct ts_obj *oa = (struct ts_obj *)conq_shm_object(a);
		CHECK_PTR_NE(ob, oa);
		CHECK_EQ(ob->init_mark, TS_INIT_MARK);
		ob->child_mark = 9;
		CHECK_EQ(oa->child_mark, 9);
		CHECK_EQ(conq_shm_close(b), 0);
	}
	/* The caller's descriptor stays the caller's. */
	CHECK_NE(fcntl(fd, F_GETFD), -1);
	conq_shm_options inh = {CONQ_SHM_INHERIT, 0, 0};
	b = conq_shm_open_fd(fd, NULL, &inh);
	if (CHECK_NOT_NULL(b)) {
		CHECK_FALSE(fcntl(conq_shm_fd(b), F_GETFD) & FD_CLOEXEC);
		conq_shm_close(b);
	}
	CHECK_EQ(conq_shm_close(a), 0);
	/* INHERIT and POPULATE on create. */
	conq_shm_options o = {CONQ_SHM_INHERIT | CONQ_SHM_POPULATE, 0, 0};
	a = conq_shm_create(NULL, &ts_spec, ts_init, NULL, &o);
	if (CHECK_NOT_NULL(a)) {
		CHECK_FALSE(fcntl(conq_shm_fd(a), F_GETFD) & FD_CLOEXEC);
		conq_shm_options p = {CONQ_SHM_POPULATE, 0, 0};
		b = conq_shm_open_fd(conq_shm_fd(a), &ts_spec, &p);
		CHECK_NOT_NULL(b);
		conq_shm_close(b);
		conq_shm_close(a);
	}
}

/* Huge pages: works where the system has them reserved, else ENOMEM (or
 * EINVAL from a kernel without hugetlbfs memfds); never a half-made region. */
static void case_huge(void)
{
	conq_shm_options o = {CONQ_SHM_HUGE, 0, 0};
	conq_shm *a = conq_shm_create(NULL, &ts_spec, ts_init, NULL, &o);
	if (a == NULL) {
		int e = errno;
		if (!(e == ENOMEM || e == EINVAL || e == ENOSYS))
			CHECK_EQ(e, ENOMEM);
		printf("  huge pages: %s\n", conq_shm_last_error());
		return;
	}
	CHECK_EQ(conq_shm_map_size(a) % (2u << 20), 0);
	CHECK_EQ(((struct ts_obj *)conq_shm_object(a))->init_mark,
		 TS_INIT_MARK);
	conq_shm_close(a);
}

/* The child of a fork: open by name and by the inherited descriptor, each
 * mapping at an address other than the parent's (its own view of the
 * parent's mapping is still there), and write through them. Exit status:
 * 0, or the step that failed. */
static void forked_child(const char *name, int fd, struct ts_obj *parent)
{
	conq_shm *a = name != NULL ? conq_shm_open(name, &ts_spec, NULL)
				   : conq_shm_open_fd(fd, &ts_spec, NULL);
	if (a == NULL) {
		fprintf(stderr, "forked child: %s\n", conq_shm_last_error());
		_exit(10);
	}
	struct ts_obj *o = (struct ts_obj *)conq_shm_object(a);
	if (o == parent)
		_exit(11);
	if (o->init_mark != TS_INIT_MARK)
		_exit(12);
	o->child_pid = (int64_t)getpid();
	snprintf(o->text, sizeof o->text, "hello from forked pid %d",
		 (int)getpid());
	((unsigned char *)o)[TS_SIZE - 1] = 0x5a;
	conq__store_release(&o->child_mark, TS_CHILD_MARK);
	_exit(conq_shm_close(a) == 0 ? 0 : 13);
}

static void case_fork(void)
{
	for (int by_name = 0; by_name < 2; by_name++) {
		check_context("fork, %s", by_name ? "by name" : "memfd");
		const char *name = by_name ? new_name() : NULL;
		conq_shm *a = make(name);
		if (!CHECK_NOT_NULL(a))
			continue;
		struct ts_obj *o = (struct ts_obj *)conq_shm_object(a);
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0)
			forked_child(name, conq_shm_fd(a), o);
		int status = -1;
		if (CHECK_GT(pid, 0) && CHECK_EQ(waitpid(pid, &status, 0), pid))
			CHECK_EQ_I(status, 0);
		CHECK_EQ(conq__load_acquire(&o->child_mark), TS_CHILD_MARK);
		CHECK_EQ(o->child_pid, pid);
		CHECK_EQ(((unsigned char *)o)[TS_SIZE - 1], 0x5a);
		conq_shm_close(a);
		if (name != NULL)
			CHECK_EQ(conq_shm_unlink(name), 0);
	}
	check_context("%s", "");
}

/* An exec'ed child (tests/shm_child.c): a fresh process, given the name or
 * the descriptor (inherited across exec), learns the geometry from the
 * header, maps elsewhere, writes; its stdout tells us where it mapped. */
static void case_exec(void)
{
	for (int by_name = 0; by_name < 2; by_name++) {
		check_context("exec, %s", by_name ? "by name" : "memfd");
		const char *name = by_name ? new_name() : NULL;
		conq_shm_options o = {CONQ_SHM_INHERIT, 0, 0};
		conq_shm *a =
		    conq_shm_create(name, &ts_spec, ts_init, NULL, &o);
		if (!CHECK_NOT_NULL(a))
			continue;
		struct ts_obj *obj = (struct ts_obj *)conq_shm_object(a);
		char fdarg[16], addr[32], size[32];
		snprintf(fdarg, sizeof fdarg, "%d", conq_shm_fd(a));
		snprintf(addr, sizeof addr, "%p", (void *)obj);
		snprintf(size, sizeof size, "%zu", conq_shm_map_size(a));
		char *argv[16];
		int k = 0;
		for (int i = 0; i < child_cmd_n && k < 10; i++)
			argv[k++] = child_cmd[i];
		argv[k++] = (char *)(by_name ? "name" : "fd");
		argv[k++] = by_name ? (char *)name : fdarg;
		argv[k++] = addr;
		argv[k++] = size;
		argv[k] = NULL;
		int pfd[2];
		if (!CHECK_EQ(pipe2(pfd, O_CLOEXEC), 0)) {
			conq_shm_close(a);
			continue;
		}
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			dup2(pfd[1], 1);
			execvp(argv[0], argv);
			perror("exec shm_child");
			_exit(127);
		}
		close(pfd[1]);
		char out[256];
		size_t got = 0;
		ssize_t r;
		while (got < sizeof out - 1 &&
		       (r = read(pfd[0], out + got, sizeof out - 1 - got)) > 0)
			got += (size_t)r;
		out[got] = '\0';
		close(pfd[0]);
		int status = -1;
		if (CHECK_GT(pid, 0) && CHECK_EQ(waitpid(pid, &status, 0), pid))
			CHECK_EQ_I(status, 0);
		void *caddr = NULL;
		unsigned long long elem = 0, cap = 0, osize = 0;
		if (CHECK_EQ(sscanf(out, "addr=%p elem=%llu cap=%llu size=%llu",
				    &caddr, &elem, &cap, &osize),
			     4)) {
			printf("  %s: parent maps the object at %p, the "
			       "exec'ed child at %p\n",
			       by_name ? "by name" : "memfd", (void *)obj,
			       caddr);
			CHECK_PTR_NE(caddr, obj);
			CHECK_EQ(elem, TS_ELEM);
			CHECK_EQ(cap, TS_CAP);
			CHECK_EQ(osize, TS_SIZE);
		}
		CHECK_EQ(conq__load_acquire(&obj->child_mark), TS_CHILD_MARK);
		CHECK_EQ(obj->child_pid, pid);
		CHECK_TRUE(strstr(obj->text, "exec'ed") != NULL);
		CHECK_EQ(((unsigned char *)obj)[TS_SIZE - 1], 0xa5);
		conq_shm_close(a);
		if (name != NULL)
			CHECK_EQ(conq_shm_unlink(name), 0);
	}
	check_context("%s", "");
}

/* ---- forged regions: a good one, then one field changed in the file ---- */

static bool read_header(const char *name, conq_shm_header *h)
{
	int fd = shm_open(name, O_RDONLY, 0);
	if (!CHECK_GE(fd, 0))
		return false;
	bool ok = CHECK_EQ(pread(fd, h, sizeof *h, 0), sizeof *h);
	close(fd);
	return ok;
}

static bool write_header(const char *name, const conq_shm_header *h)
{
	int fd = shm_open(name, O_RDWR, 0);
	if (!CHECK_GE(fd, 0))
		return false;
	bool ok = CHECK_EQ(pwrite(fd, h, sizeof *h, 0), sizeof *h);
	close(fd);
	return ok;
}

/* A fresh good region under a new name (closed: only the name holds it). */
static const char *good_region(void)
{
	const char *name = new_name();
	conq_shm *a = make(name);
	CHECK_NOT_NULL(a);
	conq_shm_close(a);
	return name;
}

enum { FIX = 1, NOFIX = 0 };

/* Change the header with `edit` (which sees the field offsets), fix the
 * checksum if asked, and open expecting `ex`. */
#define FORGE(fix, ex, stmt, err, ...)                                         \
	do {                                                                   \
		const char *nm_ = good_region();                               \
		conq_shm_header h_;                                            \
		if (read_header(nm_, &h_)) {                                   \
			conq_shm_header *h = &h_;                              \
			stmt;                                                  \
			if (fix)                                               \
				h->checksum = conq_shm_header_checksum(h);     \
			if (write_header(nm_, h))                              \
				REFUSED(conq_shm_open(nm_, ex, &nowait), err,  \
					__VA_ARGS__);                          \
		}                                                              \
		conq_shm_unlink(nm_);                                          \
	} while (0)

static void case_refusals(void)
{
	const conq_shm_spec *ex = &ts_spec;
	/* Not a conq region. */
	FORGE(FIX, ex, h->magic = 0x1234, CONQ_SHM_ENOTCONQ, "magic",
	      "not a conq region");
	FORGE(NOFIX, ex, h->capacity = 17, CONQ_SHM_ENOTCONQ, "checksum");
	FORGE(FIX, ex, h->header_size = 64, CONQ_SHM_ENOTCONQ,
	      "header size 64, expected 128");
	FORGE(FIX, ex, h->object_offset = h->total_size, CONQ_SHM_ENOTCONQ,
	      "corrupt header");
	FORGE(FIX, ex, h->object_size = h->total_size, CONQ_SHM_ENOTCONQ,
	      "corrupt header");
	FORGE(FIX, ex, h->object_offset = CONQ_PAD + 8, CONQ_SHM_ENOTCONQ,
	      "corrupt header");
	FORGE(FIX, ex, h->kind = 0, CONQ_SHM_ENOTCONQ, "corrupt header");
	FORGE(FIX, ex, h->total_size = CONQ_SHM_MAX_SIZE * 2, CONQ_SHM_ENOTCONQ,
	      "corrupt header");
	FORGE(NOFIX, ex, h->state = 0x77, CONQ_SHM_ENOTCONQ,
	      "state 0x00000077");
	/* The format version. */
	FORGE(FIX, ex, h->version = 2, CONQ_SHM_EVERSION,
	      "format version 2, expected 1");
	/* Every field of the ABI fingerprint. */
	FORGE(NOFIX, ex, h->magic = __builtin_bswap64(CONQ_SHM_MAGIC),
	      CONQ_SHM_EABI, "byte order");
	FORGE(FIX, ex, h->byte_order = 0x04030201, CONQ_SHM_EABI,
	      "byte order mark 67305985");
	FORGE(FIX, ex, h->ptr_size = (uint32_t)(12 - sizeof(void *)),
	      CONQ_SHM_EABI, "pointer size");
	FORGE(FIX, ex, h->cache_line = 2 * CONQ_CACHE_LINE, CONQ_SHM_EABI,
	      "CONQ_CACHE_LINE");
	FORGE(FIX, ex, h->pad = 4 * CONQ_CACHE_LINE, CONQ_SHM_EABI, "CONQ_PAD");
	FORGE(FIX, ex, h->index_bits = CONQ_INDEX_BITS == 16 ? 64 : 16,
	      CONQ_SHM_EABI, "CONQ_INDEX_BITS");
	FORGE(FIX, ex, h->layout_version = TS_LAYOUT + 1, CONQ_SHM_EABI,
	      "layout version 4, expected 3");
	/* The object: kind and geometry against the expectation. */
	FORGE(FIX, ex, h->kind = CONQ_SHM_KIND_MPSC_VALUE, CONQ_SHM_EKIND,
	      "kind mpsc_value (2), expected user (65543)");
	FORGE(FIX, ex, h->elem_size = 64, CONQ_SHM_EGEOMETRY,
	      "element size 64, expected 8");
	FORGE(FIX, ex, h->capacity = 32, CONQ_SHM_EGEOMETRY,
	      "capacity 32, expected 16");
	FORGE(FIX, ex, h->object_size = 4096, CONQ_SHM_EGEOMETRY,
	      "object size 4096, expected 5000");
	/* The same from the caller's side: an expectation that differs. */
	const char *name = good_region();
	conq_shm_spec e = ts_spec;
	e.kind = CONQ_SHM_KIND_MPSC_BYTES;
	REFUSED(conq_shm_open(name, &e, NULL), CONQ_SHM_EKIND,
		"kind user (65543), expected mpsc_bytes (5)");
	e = ts_spec;
	e.elem_size = 64;
	REFUSED(conq_shm_open(name, &e, NULL), CONQ_SHM_EGEOMETRY, name,
		"element size 8, expected 64");
	e = ts_spec;
	e.capacity = 1024;
	REFUSED(conq_shm_open(name, &e, NULL), CONQ_SHM_EGEOMETRY,
		"capacity 16, expected 1024");
	e = ts_spec;
	e.object_size = 4096;
	REFUSED(conq_shm_open(name, &e, NULL), CONQ_SHM_EGEOMETRY,
		"object size 5000, expected 4096");
	e = ts_spec;
	e.layout_version = 9;
	REFUSED(conq_shm_open(name, &e, NULL), CONQ_SHM_EABI,
		"layout version 3, expected 9");
	/* Not ready, failed. */
	FORGE(NOFIX, ex, h->state = CONQ_SHM_STATE_FAILED, CONQ_SHM_EFAILED,
	      "init of its creator");
	conq_shm_options w30 = {0, 0, 30 * MS};
	FORGE(NOFIX, ex, h->state = CONQ_SHM_STATE_INITIALIZING,
	      CONQ_SHM_ENOTREADY, "still INITIALIZING");
	{
		const char *nm = good_region();
		conq_shm_header hh;
		if (read_header(nm, &hh)) {
			hh.state = CONQ_SHM_STATE_INITIALIZING;
			write_header(nm, &hh);
			int64_t t0 = conq_now_ns();
			REFUSED(conq_shm_open(nm, ex, &w30), CONQ_SHM_ENOTREADY,
				"still INITIALIZING after", "is alive");
			CHECK_GE_I(conq_now_ns() - t0, 30 * MS);
			hh.magic = 0;
			write_header(nm, &hh);
			REFUSED(conq_shm_open(nm, ex, &w30), CONQ_SHM_ENOTREADY,
				"no header yet");
		}
		conq_shm_unlink(nm);
	}
	/* Truncated: shorter than the header says, shorter than a header,
	 * empty, garbage. */
	name = good_region();
	int fd = shm_open(name, O_RDWR, 0);
	if (CHECK_GE(fd, 0)) {
		CHECK_EQ(ftruncate(fd, 4096), 0);
		REFUSED(conq_shm_open(name, ex, &nowait), CONQ_SHM_ETRUNCATED,
			"truncated: the file is 4096 bytes");
		CHECK_EQ(ftruncate(fd, 100), 0);
		REFUSED(conq_shm_open(name, ex, &nowait), CONQ_SHM_ETRUNCATED,
			"100 bytes, smaller than a conq region header");
		CHECK_EQ(ftruncate(fd, 0), 0);
		REFUSED(conq_shm_open(name, ex, &w30), CONQ_SHM_ETRUNCATED,
			"0 bytes");
		/* Garbage of every size around the header. */
		unsigned char junk[8192];
		for (size_t i = 0; i < sizeof junk; i++)
			junk[i] = (unsigned char)(i * 131u + 7u);
		const size_t sizes[] = {1, 127, 128, 129, 4096, 8192};
		for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
			CHECK_EQ(ftruncate(fd, 0), 0);
			CHECK_EQ(pwrite(fd, junk, sizes[i], 0), sizes[i]);
			REFUSED(conq_shm_open(name, NULL, &nowait),
				sizes[i] < 128 ? CONQ_SHM_ETRUNCATED
					       : CONQ_SHM_ENOTCONQ,
				name);
		}
		close(fd);
	}
	conq_shm_unlink(name);
	/* A descriptor that is no region at all. */
	int p[2];
	if (CHECK_EQ(pipe(p), 0)) {
		REFUSED(conq_shm_open_fd(p[0], NULL, &nowait),
			CONQ_SHM_ENOTCONQ, "not a regular file");
		close(p[0]);
		close(p[1]);
	}
}

/* Bad arguments: EINVAL (EBADF), a message, nothing created. */
static int never_init(void *object, const conq_shm_spec *spec, void *ctx)
{
	(void)object, (void)spec, (void)ctx;
	CHECK_FAIL("init ran on bad arguments");
	return 0;
}

static void case_bad_args(void)
{
	const char *name = new_name();
	conq_shm_spec s = ts_spec;
#define BAD_SPEC(field, value, ...)                                            \
	do {                                                                   \
		s = ts_spec;                                                   \
		s.field = value;                                               \
		REFUSED(conq_shm_create(name, &s, never_init, NULL, NULL),     \
			EINVAL, __VA_ARGS__);                                  \
		REFUSED(conq_shm_create(NULL, &s, never_init, NULL, NULL),     \
			EINVAL, __VA_ARGS__);                                  \
	} while (0)
	BAD_SPEC(kind, 0, "kind 0");
	BAD_SPEC(layout_version, 0, "layout version 0");
	BAD_SPEC(object_size, 0, "object size 0");
	BAD_SPEC(object_size, SIZE_MAX, "object size");
	BAD_SPEC(object_size, UINT64_MAX, "object size");
	BAD_SPEC(object_size, UINT64_C(1) << 62, "object size");
	BAD_SPEC(object_size, CONQ_SHM_MAX_SIZE, "CONQ_SHM_MAX_SIZE");
	REFUSED(conq_shm_create(name, NULL, never_init, NULL, NULL), EINVAL,
		"no spec");
	conq_shm_options o = {0x100, 0, 0};
	REFUSED(conq_shm_create(name, &ts_spec, never_init, NULL, &o), EINVAL,
		"unknown flags");
	REFUSED(conq_shm_open(name, NULL, &o), EINVAL, "unknown flags");
	o.flags = CONQ_SHM_HUGE;
	REFUSED(conq_shm_create(name, &ts_spec, never_init, NULL, &o), EINVAL,
		"memfd");
	o.flags = 0;
	o.mode = 010000;
	REFUSED(conq_shm_create(name, &ts_spec, never_init, NULL, &o), EINVAL,
		"mode");
	char longname[300];
	longname[0] = '/';
	memset(longname + 1, 'a', 280);
	longname[281] = '\0';
	const char *bad[] = {"", "noslash", "/", "/a/b", "//", longname};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		REFUSED(
		    conq_shm_create(bad[i], &ts_spec, never_init, NULL, NULL),
		    EINVAL, "bad region name");
		REFUSED(conq_shm_open(bad[i], NULL, NULL), EINVAL,
			"bad region name");
		errno = 0;
		CHECK_EQ_I(conq_shm_unlink(bad[i]), -1);
		CHECK_EQ(errno, EINVAL);
	}
	REFUSED(conq_shm_open(NULL, NULL, NULL), EINVAL, "NULL");
	errno = 0;
	CHECK_EQ_I(conq_shm_unlink(NULL), -1);
	CHECK_EQ(errno, EINVAL);
	REFUSED(conq_shm_open_fd(-1, NULL, NULL), EBADF, "fd -1");
	REFUSED(conq_shm_open_fd(999999, NULL, NULL), EBADF, "fd 999999");
	/* Nothing was created under the name. */
	REFUSED(conq_shm_open(name, NULL, NULL), ENOENT, name);
	/* Kind names. */
	CHECK_EQ(
	    strcmp(conq_shm_kind_name(CONQ_SHM_KIND_MPMC_VALUE), "mpmc_value"),
	    0);
	CHECK_EQ(strcmp(conq_shm_kind_name(0), "none"), 0);
	CHECK_EQ(strcmp(conq_shm_kind_name(999), "unknown"), 0);
}

/* The attach protocol's waits and failures around the creator's init. */
static const char *cur_name;
static int opened_inside;

/* init that opens its own region: it is INITIALIZING, and stays so past
 * a short wait. */
static int init_opens(void *object, const conq_shm_spec *spec, void *ctx)
{
	(void)spec, (void)ctx;
	conq_shm_options w = {0, 0, 20 * MS};
	int64_t t0 = conq_now_ns();
	conq_shm *b = conq_shm_open(cur_name, &ts_spec, &w);
	opened_inside =
	    REFUSED(b, CONQ_SHM_ENOTREADY, "still INITIALIZING", "is alive") &&
	    CHECK_GE_I(conq_now_ns() - t0, 20 * MS);
	((struct ts_obj *)object)->init_mark = TS_INIT_MARK;
	return 0;
}

/* init that sleeps, while a thread waits in open. */
static int init_slow(void *object, const conq_shm_spec *spec, void *ctx)
{
	(void)spec, (void)ctx;
	struct timespec ts = {0, 50 * MS};
	nanosleep(&ts, NULL);
	((struct ts_obj *)object)->init_mark = TS_INIT_MARK;
	return 0;
}

static void *waiting_opener(void *arg)
{
	(void)arg;
	conq_shm_options w = {0, 0, 10000 * MS};
	int64_t until = conq_now_ns() + 10000 * MS;
	conq_shm *b;
	/* ENOENT until the creator's shm_open; then the open waits. */
	while ((b = conq_shm_open(cur_name, &ts_spec, &w)) == NULL &&
	       errno == ENOENT && conq_now_ns() < until)
		sched_yield();
	return b;
}

static int init_fails(void *object, const conq_shm_spec *spec, void *ctx)
{
	(void)object, (void)spec, (void)ctx;
	return ENOSPC;
}

static int init_dies(void *object, const conq_shm_spec *spec, void *ctx)
{
	(void)object, (void)spec, (void)ctx;
	_exit(0);
}

static void case_protocol(void)
{
	/* An opener during init waits, then fails: ENOTREADY. */
	cur_name = new_name();
	opened_inside = 0;
	conq_shm *a =
	    conq_shm_create(cur_name, &ts_spec, init_opens, NULL, NULL);
	CHECK_NOT_NULL(a);
	CHECK_TRUE(opened_inside);
	conq_shm_close(a);
	conq_shm_unlink(cur_name);

	/* An opener that waits long enough gets the initialised object. */
	cur_name = new_name();
	pthread_t t;
	if (CHECK_EQ(pthread_create(&t, NULL, waiting_opener, NULL), 0)) {
		a = conq_shm_create(cur_name, &ts_spec, init_slow, NULL, NULL);
		CHECK_NOT_NULL(a);
		void *r = NULL;
		pthread_join(t, &r);
		conq_shm *b = (conq_shm *)r;
		if (CHECK_NOT_NULL(b)) {
			CHECK_EQ(
			    ((struct ts_obj *)conq_shm_object(b))->init_mark,
			    TS_INIT_MARK);
			conq_shm_close(b);
		} else {
			printf("  waiting opener: %s\n", conq_shm_last_error());
		}
		conq_shm_close(a);
	}
	conq_shm_unlink(cur_name);

	/* init fails: its error, the name unlinked, nothing left mapped. */
	cur_name = new_name();
	REFUSED(conq_shm_create(cur_name, &ts_spec, init_fails, NULL, NULL),
		ENOSPC, "init failed");
	REFUSED(conq_shm_open(cur_name, NULL, NULL), ENOENT, cur_name);
	REFUSED(conq_shm_create(NULL, &ts_spec, init_fails, NULL, NULL), ENOSPC,
		"init failed");

	/* The creator dies in init: openers fail, and say it has exited. */
	cur_name = new_name();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		conq_shm_create(cur_name, &ts_spec, init_dies, NULL, NULL);
		_exit(1); /* not reached */
	}
	int status = -1;
	if (CHECK_GT(pid, 0) && CHECK_EQ(waitpid(pid, &status, 0), pid)) {
		CHECK_EQ_I(status, 0);
		conq_shm_options w = {0, 0, 20 * MS};
		REFUSED(conq_shm_open(cur_name, &ts_spec, &w),
			CONQ_SHM_ENOTREADY, "still INITIALIZING", "has exited");
	}
	CHECK_EQ(conq_shm_unlink(cur_name), 0);
}

/* The message is per thread. */
static void *other_thread_fails(void *arg)
{
	(void)arg;
	conq_shm_open("/conq-test-shm-none-such-name", NULL, NULL);
	return strstr(conq_shm_last_error(), "none-such") != NULL ? arg : NULL;
}

static void case_per_thread(void)
{
	REFUSED(conq_shm_open_fd(-5, NULL, NULL), EBADF, "fd -5");
	pthread_t t;
	int token;
	void *r = NULL;
	if (CHECK_EQ(pthread_create(&t, NULL, other_thread_fails, &token), 0))
		pthread_join(t, &r);
	CHECK_PTR_EQ(r, &token);
	CHECK_TRUE(strstr(conq_shm_last_error(), "fd -5") != NULL);
}

struct tcase {
	const char *name;
	void (*fn)(void);
};

static const struct tcase cases[] = {
    {"name", case_name},
    {"memfd", case_memfd},
    {"huge", case_huge},
    {"fork", case_fork},
    {"exec", case_exec},
    {"refusals", case_refusals},
    {"bad_args", case_bad_args},
    {"protocol", case_protocol},
    {"per_thread", case_per_thread},
};

int main(int argc, char **argv)
{
	/* argv: [EMULATOR...] SHM_CHILD [-- case...] */
	int end = argc;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			end = i;
			break;
		}
	if (end < 2) {
		fprintf(stderr, "usage: test_shm [EMULATOR...] SHM_CHILD "
				"[-- case...]\n");
		return 2;
	}
	child_cmd = argv + 1;
	child_cmd_n = end - 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	int fds0 = count_fds(), maps0 = count_maps();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bool run = end == argc;
		for (int j = end + 1; j < argc; j++)
			run |= strcmp(argv[j], cases[i].name) == 0;
		if (!run)
			continue;
		printf("case %s\n", cases[i].name);
		cases[i].fn();
	}
	/* Every handle closed: no descriptor, no mapping left. */
	CHECK_EQ_I(count_fds(), fds0);
	CHECK_EQ_I(count_maps(), maps0);
	CHECK_EQ_I(maps0, 0);
	unlink_all();
	return check_report();
}
