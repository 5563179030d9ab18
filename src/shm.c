/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/shm.c - regions of shared memory holding one conq object: create,
 * open and check, close, unlink (conq/shm.h). Cold paths only; libc.
 */
#define _GNU_SOURCE /* memfd_create, MFD_*, F_ADD_SEALS, MAP_POPULATE */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "conq/eventcount.h" /* conq_now_ns */
#include "conq/shm.h"

struct conq_shm {
	void *base;	 /* the mapping: the header, then the object */
	size_t map_size; /* header.total_size */
	size_t map_len;	 /* map_size rounded up to the mapping's page */
	void *object;	 /* base + header.object_offset */
	int fd;		 /* the handle's own descriptor */
	conq_shm_spec spec;
};

/* This thread's last error message (conq_shm_last_error). */
static _Thread_local char conq__shm_msg[384];

/* Who a message is about: "/name", "fd N" or "memfd". */
typedef struct {
	char s[288];
} conq__shm_who;

static void conq__shm_who_name(conq__shm_who *w, const char *name)
{
	snprintf(w->s, sizeof w->s, "%s", name != NULL ? name : "memfd");
}

/* Set errno to err and this thread's message to "who: <fmt>". Returns NULL,
 * for `return conq__shm_fail(...)` in the functions that return handles. */
__attribute__((format(printf, 3, 4))) static void *
conq__shm_fail(int err, const conq__shm_who *w, const char *fmt, ...)
{
	int n = snprintf(conq__shm_msg, sizeof conq__shm_msg,
			 "%s: ", w != NULL ? w->s : "conq_shm");
	if (n < 0 || (size_t)n >= sizeof conq__shm_msg)
		n = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(conq__shm_msg + n, sizeof conq__shm_msg - (size_t)n, fmt, ap);
	va_end(ap);
	errno = err;
	return NULL;
}

const char *conq_shm_last_error(void)
{
	return conq__shm_msg;
}

const char *conq_shm_kind_name(uint32_t kind)
{
	switch (kind) {
	case 0:
		return "none";
	case CONQ_SHM_KIND_SPSC_VALUE:
		return "spsc_value";
	case CONQ_SHM_KIND_MPSC_VALUE:
		return "mpsc_value";
	case CONQ_SHM_KIND_SPMC_VALUE:
		return "spmc_value";
	case CONQ_SHM_KIND_MPMC_VALUE:
		return "mpmc_value";
	case CONQ_SHM_KIND_MPSC_BYTES:
		return "mpsc_bytes";
	default:
		return kind >= CONQ_SHM_KIND_USER ? "user" : "unknown";
	}
}

uint64_t conq_shm_header_checksum(const conq_shm_header *h)
{
	/* A copy without the magic ([H1], stored after the checksum), the
	 * state ([H2]) and the checksum itself: the creator wrote the rest
	 * before [H1], and nobody writes it after. */
	unsigned char b[CONQ_SHM_HEADER_SIZE];
	const size_t v = offsetof(conq_shm_header, version);
	const size_t st = offsetof(conq_shm_header, state);
	const size_t el = offsetof(conq_shm_header, elem_size);
	const size_t ck = offsetof(conq_shm_header, checksum);
	memset(b, 0, sizeof b);
	memcpy(b + v, (const char *)h + v, st - v);
	memcpy(b + el, (const char *)h + el, ck - el);
	uint64_t x = UINT64_C(0xcbf29ce484222325); /* FNV-1a, 64-bit */
	for (size_t i = 0; i < sizeof b; i++) {
		x ^= b[i];
		x *= UINT64_C(0x100000001b3);
	}
	return x;
}

/* "/" then 1 to NAME_MAX characters, none of them '/'. */
static int conq__shm_name_ok(const char *name)
{
	if (name == NULL || name[0] != '/')
		return 0;
	size_t n = strnlen(name + 1, NAME_MAX + 1);
	return n >= 1 && n <= NAME_MAX && memchr(name + 1, '/', n) == NULL;
}

static void *conq__shm_bad_name(const char *name)
{
	conq__shm_who w;
	snprintf(w.s, sizeof w.s, "\"%.64s%s\"", name,
		 strlen(name) > 64 ? "..." : "");
	return conq__shm_fail(EINVAL, &w,
			      "bad region name: \"/\" then 1 to %d "
			      "characters, none of them '/'",
			      NAME_MAX);
}

static uint64_t conq__shm_round_up(uint64_t x, uint64_t to)
{
	return (x + to - 1) / to * to;
}

static uint64_t conq__shm_page(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (uint64_t)p : 4096u;
}

/* The default huge page size (Hugepagesize in /proc/meminfo), or 2 MiB. */
static uint64_t conq__shm_huge_page(void)
{
	uint64_t kb = 2048;
	FILE *f = fopen("/proc/meminfo", "re");
	if (f != NULL) {
		char line[128];
		unsigned long long v;
		while (fgets(line, sizeof line, f) != NULL)
			if (sscanf(line, "Hugepagesize: %llu kB", &v) == 1 &&
			    v > 0) {
				kb = v;
				break;
			}
		fclose(f);
	}
	return kb * 1024u;
}

/* The unit of fd's mappings: the huge page size on hugetlbfs (where
 * munmap wants whole huge pages), else the page. Not st_blksize alone:
 * tmpfs with transparent huge pages reports 2 MiB there too, while its
 * mappings are in pages (and munmap of a rounded-up length would unmap a
 * neighbour). */
static uint64_t conq__shm_map_unit(int fd, const struct stat *st)
{
	struct statfs fs;
	uint64_t page = conq__shm_page(), b = (uint64_t)st->st_blksize;
	if (fstatfs(fd, &fs) == 0 &&
	    (unsigned long)fs.f_type == 0x958458f6ul /* HUGETLBFS_MAGIC */ &&
	    b > page && (b & (b - 1)) == 0)
		return b;
	return page;
}

static int64_t conq__shm_wait_ns(const conq_shm_options *opt)
{
	if (opt == NULL || opt->wait_ns == 0)
		return CONQ_SHM_DEFAULT_WAIT_NS;
	return opt->wait_ns < 0 ? 0 : opt->wait_ns;
}

static int conq__shm_set_cloexec(int fd, int on)
{
	int fl = fcntl(fd, F_GETFD);
	if (fl < 0)
		return -1;
	fl = on ? fl | FD_CLOEXEC : fl & ~FD_CLOEXEC;
	return fcntl(fd, F_SETFD, fl);
}

/* The object's offset: the header rounded up to CONQ_PAD, so that the
 * object is as aligned as conq's init functions require. */
static uint64_t conq__shm_object_offset(void)
{
	return conq__shm_round_up(CONQ_SHM_HEADER_SIZE, CONQ_PAD);
}

/* ------------------------------------------------------------- create -- */

conq_shm *conq_shm_create(const char *name, const conq_shm_spec *spec,
			  conq_shm_init_fn init, void *ctx,
			  const conq_shm_options *opt)
{
	conq__shm_who w;
	if (name != NULL && !conq__shm_name_ok(name))
		return conq__shm_bad_name(name);
	conq__shm_who_name(&w, name);
	unsigned flags = opt != NULL ? opt->flags : 0u;
	unsigned mode = opt != NULL && opt->mode != 0 ? opt->mode : 0600u;
	if (flags & ~(CONQ_SHM_POPULATE | CONQ_SHM_HUGE | CONQ_SHM_INHERIT))
		return conq__shm_fail(EINVAL, &w, "unknown flags 0x%x", flags);
	if (mode & ~07777u)
		return conq__shm_fail(EINVAL, &w, "bad mode 0%o", mode);
	if ((flags & CONQ_SHM_HUGE) && name != NULL)
		return conq__shm_fail(EINVAL, &w,
				      "CONQ_SHM_HUGE needs a memfd (no name)");
	if (spec == NULL)
		return conq__shm_fail(EINVAL, &w, "no spec");
	if (spec->kind == 0)
		return conq__shm_fail(EINVAL, &w, "kind 0");
	if (spec->layout_version == 0)
		return conq__shm_fail(EINVAL, &w, "layout version 0");
	uint64_t off = conq__shm_object_offset();
	uint64_t page =
	    (flags & CONQ_SHM_HUGE) ? conq__shm_huge_page() : conq__shm_page();
	if (spec->object_size == 0 ||
	    spec->object_size > CONQ_SHM_MAX_SIZE - off - page)
		return conq__shm_fail(
		    EINVAL, &w,
		    "object size %llu, expected 1 to %llu (CONQ_SHM_MAX_SIZE)",
		    (unsigned long long)spec->object_size,
		    (unsigned long long)(CONQ_SHM_MAX_SIZE - off - page));
	uint64_t total = conq__shm_round_up(off + spec->object_size, page);

	int fd;
	if (name != NULL) {
		/* glibc adds O_CLOEXEC and O_NOFOLLOW. */
		fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, (mode_t)mode);
	} else {
		unsigned mf = MFD_CLOEXEC | MFD_ALLOW_SEALING;
		if (flags & CONQ_SHM_HUGE)
			mf |= MFD_HUGETLB;
		fd = memfd_create("conq-shm", mf);
	}
	if (fd < 0) {
		int e = errno;
		return conq__shm_fail(
		    e, &w, "%s: %s", name != NULL ? "shm_open" : "memfd_create",
		    strerror(e));
	}
	const char *step = "fcntl";
	void *base = MAP_FAILED;
	if ((flags & CONQ_SHM_INHERIT) && conq__shm_set_cloexec(fd, 0) != 0)
		goto sys_fail;
	step = "ftruncate";
	if (ftruncate(fd, (off_t)total) != 0)
		goto sys_fail;
	/* A memfd sealed against shrinking and growing cannot be truncated
	 * under its mappings (SIGBUS); best effort (old kernels). */
	if (name == NULL)
		(void)fcntl(fd, F_ADD_SEALS,
			    F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	step = "mmap";
	base =
	    mmap(NULL, (size_t)total, PROT_READ | PROT_WRITE,
		 MAP_SHARED | ((flags & CONQ_SHM_POPULATE) ? MAP_POPULATE : 0),
		 fd, 0);
	if (base == MAP_FAILED)
		goto sys_fail;

	conq_shm *shm = (conq_shm *)malloc(sizeof *shm);
	if (shm == NULL) {
		step = "malloc";
		goto sys_fail;
	}
	/* The file is fresh and zero-filled: no opener can pass [H3] before
	 * [H1] below, so plain stores suffice for everything but the state,
	 * which openers that find the magic read atomically. */
	conq_shm_header *h = (conq_shm_header *)base;
	struct timespec now;
	if (clock_gettime(CLOCK_REALTIME, &now) != 0)
		now.tv_sec = now.tv_nsec = 0;
	h->version = CONQ_SHM_VERSION;
	h->header_size = CONQ_SHM_HEADER_SIZE;
	h->byte_order = CONQ_SHM_BYTE_ORDER;
	h->ptr_size = (uint32_t)sizeof(void *);
	h->cache_line = CONQ_CACHE_LINE;
	h->pad = CONQ_PAD;
	h->index_bits = CONQ_INDEX_BITS;
	h->kind = spec->kind;
	h->layout_version = spec->layout_version;
	conq__store_relaxed(&h->state, CONQ_SHM_STATE_INITIALIZING);
	h->elem_size = spec->elem_size;
	h->capacity = spec->capacity;
	h->object_offset = off;
	h->object_size = spec->object_size;
	h->total_size = total;
	h->creator_pid = (int64_t)getpid();
	h->created_ns =
	    (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	h->checksum = conq_shm_header_checksum(h);
	/* [H1] release: publishes every header field above; pairs with [H3]
	 * (an opener's acquire of the magic). */
	conq__store_release(&h->magic, CONQ_SHM_MAGIC);

	shm->base = base;
	shm->map_size = (size_t)total;
	shm->map_len = (size_t)total; /* a multiple of the (huge) page */
	shm->object = (char *)base + off;
	shm->fd = fd;
	shm->spec = *spec;
	int rc = init != NULL ? init(shm->object, &shm->spec, ctx) : 0;
	if (rc != 0) {
		/* Openers that wait fail at once (CONQ_SHM_EFAILED) instead of
		 * running out their wait; [H2]'s pairing, with nothing to
		 * publish. */
		conq__store_release(&h->state, CONQ_SHM_STATE_FAILED);
		if (name != NULL)
			(void)shm_unlink(name);
		munmap(base, (size_t)total);
		close(fd);
		free(shm);
		int e = rc > 0 ? rc : EINVAL;
		return conq__shm_fail(e, &w, "the object's init failed: %s",
				      strerror(e));
	}
	/* [H2] release: publishes the object as init wrote it; pairs with
	 * [H4] (an opener's acquire of the state). */
	conq__store_release(&h->state, CONQ_SHM_STATE_READY);
	return shm;

sys_fail:;
	int e = errno;
	if (base != MAP_FAILED)
		munmap(base, (size_t)total);
	if (name != NULL)
		(void)shm_unlink(name);
	close(fd);
	return conq__shm_fail(e, &w, "%s: %s", step, strerror(e));
}

/* --------------------------------------------------------------- open -- */

/* check_header's answer when the creator has not finished: wait. */
#define CONQ__SHM_PENDING (-1)

/* Check a published header (magic seen non-zero through [H3]) against
 * the build, itself, the file's size and the caller's expectation. 0: READY
 * and good; CONQ__SHM_PENDING: INITIALIZING (so far good); else an errno
 * value, with the message set. */
static int conq__shm_check(const conq_shm_header *h, uint64_t magic,
			   uint64_t file_size, const conq_shm_spec *ex,
			   const conq__shm_who *w)
{
	if (magic == __builtin_bswap64(CONQ_SHM_MAGIC)) {
		conq__shm_fail(
		    CONQ_SHM_EABI, w,
		    "byte order: the region was written on a "
		    "machine of the other byte order (magic 0x%016llx)",
		    (unsigned long long)magic);
		return CONQ_SHM_EABI;
	}
	if (magic != CONQ_SHM_MAGIC) {
		conq__shm_fail(CONQ_SHM_ENOTCONQ, w,
			       "not a conq region: magic 0x%016llx, expected "
			       "0x%016llx",
			       (unsigned long long)magic,
			       (unsigned long long)CONQ_SHM_MAGIC);
		return CONQ_SHM_ENOTCONQ;
	}
	if (h->version != CONQ_SHM_VERSION) {
		conq__shm_fail(CONQ_SHM_EVERSION, w,
			       "format version %u, expected %u", h->version,
			       CONQ_SHM_VERSION);
		return CONQ_SHM_EVERSION;
	}
	if (h->header_size != CONQ_SHM_HEADER_SIZE) {
		conq__shm_fail(CONQ_SHM_ENOTCONQ, w,
			       "corrupt header: header size %u, expected %u",
			       h->header_size, CONQ_SHM_HEADER_SIZE);
		return CONQ_SHM_ENOTCONQ;
	}
	uint64_t sum = conq_shm_header_checksum(h);
	if (h->checksum != sum) {
		conq__shm_fail(CONQ_SHM_ENOTCONQ, w,
			       "corrupt header: checksum 0x%016llx, computed "
			       "0x%016llx",
			       (unsigned long long)h->checksum,
			       (unsigned long long)sum);
		return CONQ_SHM_ENOTCONQ;
	}
	/* The ABI fingerprint. */
	static const struct {
		size_t off;
		uint32_t ours;
		const char *what;
	} abi[] = {
	    {offsetof(conq_shm_header, byte_order), CONQ_SHM_BYTE_ORDER,
	     "byte order mark"},
	    {offsetof(conq_shm_header, ptr_size), (uint32_t)sizeof(void *),
	     "pointer size"},
	    {offsetof(conq_shm_header, cache_line), CONQ_CACHE_LINE,
	     "CONQ_CACHE_LINE"},
	    {offsetof(conq_shm_header, pad), CONQ_PAD, "CONQ_PAD"},
	    {offsetof(conq_shm_header, index_bits), CONQ_INDEX_BITS,
	     "CONQ_INDEX_BITS"},
	};
	for (size_t i = 0; i < sizeof abi / sizeof abi[0]; i++) {
		uint32_t v;
		memcpy(&v, (const char *)h + abi[i].off, sizeof v);
		if (v != abi[i].ours) {
			conq__shm_fail(CONQ_SHM_EABI, w,
				       "built for another ABI: %s %u (0x%x), "
				       "expected %u (0x%x)",
				       abi[i].what, v, v, abi[i].ours,
				       abi[i].ours);
			return CONQ_SHM_EABI;
		}
	}
	/* Sizes that contradict each other. */
	if (h->kind == 0 || h->layout_version == 0 || h->object_size == 0 ||
	    h->object_offset < CONQ_SHM_HEADER_SIZE ||
	    h->object_offset % CONQ_PAD != 0 ||
	    h->total_size > CONQ_SHM_MAX_SIZE ||
	    h->object_offset > h->total_size ||
	    h->object_size > h->total_size - h->object_offset) {
		conq__shm_fail(CONQ_SHM_ENOTCONQ, w,
			       "corrupt header: kind %u, layout version %u, "
			       "object at offset %llu of size %llu, total "
			       "size %llu",
			       h->kind, h->layout_version,
			       (unsigned long long)h->object_offset,
			       (unsigned long long)h->object_size,
			       (unsigned long long)h->total_size);
		return CONQ_SHM_ENOTCONQ;
	}
	if (h->total_size > file_size) {
		conq__shm_fail(CONQ_SHM_ETRUNCATED, w,
			       "truncated: the file is %llu bytes, its header "
			       "says %llu",
			       (unsigned long long)file_size,
			       (unsigned long long)h->total_size);
		return CONQ_SHM_ETRUNCATED;
	}
	if (ex != NULL) {
		if (ex->kind != 0 && h->kind != ex->kind) {
			conq__shm_fail(CONQ_SHM_EKIND, w,
				       "kind %s (%u), expected %s (%u)",
				       conq_shm_kind_name(h->kind), h->kind,
				       conq_shm_kind_name(ex->kind), ex->kind);
			return CONQ_SHM_EKIND;
		}
		if (ex->layout_version != 0 &&
		    h->layout_version != ex->layout_version) {
			conq__shm_fail(CONQ_SHM_EABI, w,
				       "built for another ABI: %s layout "
				       "version %u, expected %u",
				       conq_shm_kind_name(h->kind),
				       h->layout_version, ex->layout_version);
			return CONQ_SHM_EABI;
		}
		static const struct {
			size_t off;
			const char *what;
		} geo[] = {
		    {offsetof(conq_shm_header, elem_size), "element size"},
		    {offsetof(conq_shm_header, capacity), "capacity"},
		    {offsetof(conq_shm_header, object_size), "object size"},
		};
		const uint64_t want[] = {ex->elem_size, ex->capacity,
					 ex->object_size};
		for (size_t i = 0; i < 3; i++) {
			uint64_t v;
			memcpy(&v, (const char *)h + geo[i].off, sizeof v);
			if (want[i] != 0 && v != want[i]) {
				conq__shm_fail(CONQ_SHM_EGEOMETRY, w,
					       "%s %llu, expected %llu",
					       geo[i].what,
					       (unsigned long long)v,
					       (unsigned long long)want[i]);
				return CONQ_SHM_EGEOMETRY;
			}
		}
	}
	/* [H4] acquire: pairs with [H2] (the creator's READY) and its FAILED
	 * store: READY publishes the object as the creator's init left it. */
	uint32_t state = conq__load_acquire(&h->state);
	if (state == CONQ_SHM_STATE_READY)
		return 0;
	if (state == CONQ_SHM_STATE_INITIALIZING)
		return CONQ__SHM_PENDING;
	if (state == CONQ_SHM_STATE_FAILED) {
		conq__shm_fail(CONQ_SHM_EFAILED, w,
			       "abandoned: the init of its creator (pid %lld) "
			       "failed",
			       (long long)h->creator_pid);
		return CONQ_SHM_EFAILED;
	}
	conq__shm_fail(CONQ_SHM_ENOTCONQ, w,
		       "corrupt header: state 0x%08x, expected READY "
		       "(0x%08x)",
		       state, CONQ_SHM_STATE_READY);
	return CONQ_SHM_ENOTCONQ;
}

static const char *conq__shm_pid_fate(int64_t pid)
{
	if (pid <= 0 || pid > INT_MAX)
		return "is unknown";
	if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
		return "is alive (or its pid was reused)";
	return "has exited: it died before the region was ready";
}

/* open's flags: POPULATE and INHERIT only. */
static int conq__shm_open_flags_ok(const conq_shm_options *opt,
				   const conq__shm_who *w)
{
	unsigned flags = opt != NULL ? opt->flags : 0u;
	if (flags & ~(CONQ_SHM_POPULATE | CONQ_SHM_INHERIT)) {
		conq__shm_fail(EINVAL, w, "unknown flags 0x%x for open", flags);
		return 0;
	}
	return 1;
}

/* Open the region behind `fd` (ours: closed on failure). */
static conq_shm *conq__shm_attach(int fd, const conq_shm_spec *ex,
				  const conq_shm_options *opt,
				  const conq__shm_who *w)
{
	unsigned flags = opt != NULL ? opt->flags : 0u;
	int64_t wait = conq__shm_wait_ns(opt);
	int64_t t0 = conq_now_ns();
	long sleep_ns = 50000;
	conq_shm_header hdr; /* the checked header, copied */
	uint64_t unit = 0;   /* the mappings' page */
	for (;;) {
		struct stat st;
		if (fstat(fd, &st) != 0) {
			int e = errno;
			close(fd);
			return conq__shm_fail(e, w, "fstat: %s", strerror(e));
		}
		if (!S_ISREG(st.st_mode)) {
			close(fd);
			return conq__shm_fail(CONQ_SHM_ENOTCONQ, w,
					      "not a conq region: not a "
					      "regular file (mode 0%o)",
					      (unsigned)st.st_mode);
		}
		/* Pending: 1 too small, 2 no magic yet, 3 INITIALIZING. */
		int pending = 0;
		uint64_t fsize = (uint64_t)st.st_size;
		int64_t creator = 0;
		if (st.st_size < (off_t)CONQ_SHM_HEADER_SIZE) {
			pending = 1;
		} else {
			unit = conq__shm_map_unit(fd, &st);
			const conq_shm_header *h =
			    (const conq_shm_header *)mmap(NULL, (size_t)unit,
							  PROT_READ, MAP_SHARED,
							  fd, 0);
			if (h == MAP_FAILED) {
				int e = errno;
				close(fd);
				return conq__shm_fail(e, w, "mmap: %s",
						      strerror(e));
			}
			/* [H3] acquire: pairs with [H1] (the creator's
			 * store of the magic, after every other field). */
			uint64_t magic = conq__load_acquire(&h->magic);
			int rc = magic == 0
				     ? 0
				     : conq__shm_check(h, magic, fsize, ex, w);
			if (magic == 0)
				pending = 2;
			else if (rc == CONQ__SHM_PENDING)
				pending = 3, creator = h->creator_pid;
			else if (rc == 0)
				memcpy(&hdr, h, sizeof hdr);
			munmap((void *)(uintptr_t)h, (size_t)unit);
			if (rc > 0) {
				close(fd);
				return NULL; /* errno and message set */
			}
		}
		if (pending == 0)
			break;
		int64_t waited = conq_now_ns() - t0;
		if (waited >= wait) {
			close(fd);
			long long ms = (long long)(waited / 1000000);
			if (pending == 1)
				return conq__shm_fail(
				    CONQ_SHM_ETRUNCATED, w,
				    "the file is %llu bytes, smaller than a "
				    "conq region header (%u), after %lld ms",
				    (unsigned long long)fsize,
				    CONQ_SHM_HEADER_SIZE, ms);
			if (pending == 2)
				return conq__shm_fail(
				    CONQ_SHM_ENOTREADY, w,
				    "not ready: no header yet (magic 0) after "
				    "%lld ms: its creator has not finished, or "
				    "it is not a conq region",
				    ms);
			return conq__shm_fail(
			    CONQ_SHM_ENOTREADY, w,
			    "not ready: still INITIALIZING after %lld ms; its "
			    "creator (pid %lld) %s",
			    ms, (long long)creator,
			    conq__shm_pid_fate(creator));
		}
		struct timespec ts = {0, sleep_ns};
		nanosleep(&ts, NULL);
		if (sleep_ns < 1000000)
			sleep_ns *= 2;
	}

	size_t total = (size_t)hdr.total_size;
	size_t len = (size_t)conq__shm_round_up(hdr.total_size, unit);
	void *base =
	    mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | ((flags & CONQ_SHM_POPULATE) ? MAP_POPULATE : 0),
		 fd, 0);
	if (base == MAP_FAILED) {
		int e = errno;
		close(fd);
		return conq__shm_fail(e, w, "mmap of %zu bytes: %s", total,
				      strerror(e));
	}
	/* The view we keep must hold the header we checked (nobody writes a
	 * READY header; this catches a file rewritten in between). Its state
	 * is read through this view too: [H4] again, so that the object's
	 * memory is published to us through the mapping we use. */
	const conq_shm_header *h = (const conq_shm_header *)base;
	if (conq__load_acquire(&h->state) != CONQ_SHM_STATE_READY ||
	    memcmp(h, &hdr, sizeof hdr) != 0) {
		munmap(base, len);
		close(fd);
		return conq__shm_fail(CONQ_SHM_ENOTCONQ, w,
				      "corrupt header: rewritten while it was "
				      "being opened");
	}
	conq_shm *shm = (conq_shm *)malloc(sizeof *shm);
	if (shm == NULL) {
		munmap(base, len);
		close(fd);
		return conq__shm_fail(ENOMEM, w, "malloc: %s",
				      strerror(ENOMEM));
	}
	shm->base = base;
	shm->map_size = total;
	shm->map_len = len;
	shm->object = (char *)base + hdr.object_offset;
	shm->fd = fd;
	shm->spec.kind = hdr.kind;
	shm->spec.layout_version = hdr.layout_version;
	shm->spec.elem_size = hdr.elem_size;
	shm->spec.capacity = hdr.capacity;
	shm->spec.object_size = hdr.object_size;
	return shm;
}

conq_shm *conq_shm_open(const char *name, const conq_shm_spec *expect,
			const conq_shm_options *opt)
{
	if (name == NULL)
		return conq__shm_fail(EINVAL, NULL, "no region name (NULL)");
	if (!conq__shm_name_ok(name))
		return conq__shm_bad_name(name);
	conq__shm_who w;
	conq__shm_who_name(&w, name);
	if (!conq__shm_open_flags_ok(opt, &w))
		return NULL;
	int fd = shm_open(name, O_RDWR, 0);
	if (fd < 0) {
		int e = errno;
		return conq__shm_fail(e, &w, "shm_open: %s", strerror(e));
	}
	if ((opt != NULL && (opt->flags & CONQ_SHM_INHERIT)) &&
	    conq__shm_set_cloexec(fd, 0) != 0) {
		int e = errno;
		close(fd);
		return conq__shm_fail(e, &w, "fcntl: %s", strerror(e));
	}
	return conq__shm_attach(fd, expect, opt, &w);
}

conq_shm *conq_shm_open_fd(int fd, const conq_shm_spec *expect,
			   const conq_shm_options *opt)
{
	conq__shm_who w;
	snprintf(w.s, sizeof w.s, "fd %d", fd);
	if (fd < 0)
		return conq__shm_fail(EBADF, &w, "bad descriptor");
	if (!conq__shm_open_flags_ok(opt, &w))
		return NULL;
	int inherit = opt != NULL && (opt->flags & CONQ_SHM_INHERIT);
	int own = fcntl(fd, inherit ? F_DUPFD : F_DUPFD_CLOEXEC, 0);
	if (own < 0) {
		int e = errno;
		return conq__shm_fail(e, &w, "dup: %s", strerror(e));
	}
	return conq__shm_attach(own, expect, opt, &w);
}

/* ------------------------------------------------- close and the rest -- */

int conq_shm_close(conq_shm *shm)
{
	if (shm == NULL)
		return 0;
	int rc = 0, e = 0;
	if (munmap(shm->base, shm->map_len) != 0)
		rc = -1, e = errno;
	if (close(shm->fd) != 0 && rc == 0)
		rc = -1, e = errno;
	free(shm);
	if (rc != 0) {
		conq__shm_fail(e, NULL, "close: %s", strerror(e));
		errno = e;
	}
	return rc;
}

int conq_shm_unlink(const char *name)
{
	if (name == NULL) {
		conq__shm_fail(EINVAL, NULL, "no region name (NULL)");
		return -1;
	}
	if (!conq__shm_name_ok(name)) {
		conq__shm_bad_name(name);
		return -1;
	}
	if (shm_unlink(name) != 0) {
		int e = errno;
		conq__shm_who w;
		conq__shm_who_name(&w, name);
		conq__shm_fail(e, &w, "shm_unlink: %s", strerror(e));
		return -1;
	}
	return 0;
}

void *conq_shm_object(const conq_shm *shm)
{
	return shm->object;
}

size_t conq_shm_object_size(const conq_shm *shm)
{
	return (size_t)shm->spec.object_size;
}

const conq_shm_spec *conq_shm_spec_of(const conq_shm *shm)
{
	return &shm->spec;
}

int conq_shm_fd(const conq_shm *shm)
{
	return shm->fd;
}

const conq_shm_header *conq_shm_header_of(const conq_shm *shm)
{
	return (const conq_shm_header *)shm->base;
}

size_t conq_shm_map_size(const conq_shm *shm)
{
	return shm->map_size;
}
