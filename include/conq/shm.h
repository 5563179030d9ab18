/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * conq/shm.h - a conq object in shared memory: a named region that one
 * process creates and others map, at whatever address their kernel gives,
 * and check before they use it.
 *
 * A region is one file (a POSIX shm_open object, or an anonymous memfd whose
 * descriptor the creator hands to other processes) laid out as
 *
 *   offset 0              conq_shm_header (128 bytes, fixed by the format)
 *   object_offset         the object (a value ring, a byte ring, ...)
 *   ... up to total_size  zero (total_size is a multiple of the page size)
 *
 * This layer is generic: it knows an object only by its kind (a number), its
 * per-kind layout version, its geometry (element size, capacity) and its
 * size, and it runs the creator's init callback on the object's memory. The
 * typed constructors (conq_<family>_shm_create/_open) sit on it, in outline:
 *
 *   static int init_q(void *mem, const conq_shm_spec *s, void *ctx)
 *   {   // the family's init, its eventcounts CONQ_EVENTCOUNT_SHARED
 *       return fam_init_shared(mem, s->elem_size, s->capacity) ? 0 : errno;
 *   }
 *   conq_shm_spec s = {CONQ_SHM_KIND_MPSC_VALUE, FAM_LAYOUT_VERSION,
 *                      elem_size, rounded_capacity,
 *                      fam_memsize(elem_size, capacity)};
 *   conq_shm *shm = conq_shm_create("/q", &s, init_q, NULL, NULL);
 *   fam *q = (fam *)conq_shm_object(shm);       // the creator's view
 *   ...
 *   conq_shm *o = conq_shm_open("/q", &s, NULL); // another process
 *
 * (an opener that does not know the geometry passes only the kind and the
 * layout version, then checks the object size its memsize() gives for the
 * geometry it learned: conq_shm_spec_of(o)).
 *
 * The region holds no pointers, and neither may the object: every process
 * maps it at its own address, so every reference inside is an offset (conq's
 * rings keep only indices). The handle (conq_shm) is process-local: the
 * mapping, the descriptor, a copy of the geometry; it is never stored in the
 * region.
 *
 * The attach protocol (docs/design.md, "Queues in shared memory"):
 *
 *  1. The creator makes the file (shm_open with O_CREAT | O_EXCL, or
 *     memfd_create), sizes it with ftruncate (so the object starts zeroed),
 *     maps it, writes every header field with state INITIALIZING, then
 *     publishes the header by storing the magic ([H1], release).
 *  2. The creator runs the object's init on the object's memory, then stores
 *     state READY ([H2], release). Nothing else ever writes the header.
 *  3. An opener reads the magic ([H3], acquire) and, once it is set, checks
 *     the header: format version, checksum, the ABI fingerprint, kind,
 *     layout version, geometry against its expectation, and sizes against
 *     the file's. It reads the state ([H4], acquire): READY publishes
 *     everything the creator's init wrote. Openers never zero and never
 *     re-initialise anything (Agrona PR #229: a late consumer that zeroed
 *     the buffer erased what producers had already written).
 *
 * An opener that comes before the creator has finished (the file still
 * empty, the magic still 0, or state INITIALIZING) polls until the wait of
 * its options runs out (1 s by default), then fails with CONQ_SHM_ENOTREADY.
 * A creator that dies in init (or before it) leaves the region in that state
 * for good: openers fail with ENOTREADY, and the message says whether the
 * creator's pid is still alive. Nothing repairs such a region; unlink it and
 * create it again. A creator whose init callback fails marks the region
 * FAILED (openers fail at once with CONQ_SHM_EFAILED), unlinks its name and
 * returns the callback's error.
 *
 * Who may call what: every function from any thread of any process; the
 * calls on one handle are not synchronised with each other (close a handle
 * once, after every other use of it on every thread). Any number of handles
 * may map one region, in one process or several. Closing a handle unmaps
 * this process's view only: the region lives while a name, a descriptor or
 * a mapping refers to it. The object's own header says who may call what
 * on the object.
 *
 * Ordering: [H2]/[H4] make everything the creator's init wrote (and the
 * header, through [H1]/[H3]) visible to every opener, through any mapping
 * (docs/memory-model.md, "Queues in shared memory"). After that, the
 * object's own protocol orders its accesses; the eventcounts of a
 * process-shared object must be initialised CONQ_EVENTCOUNT_SHARED by its
 * init (a futex without FUTEX_PRIVATE_FLAG; membarrier fences only one
 * process).
 *
 * Errors. Every function that fails returns NULL (or -1) with errno set,
 * and conq_shm_last_error() returns a message for humans that names the
 * region, the field and both values ("/q: element size 8, expected 64").
 * Besides the system's own errno values (EEXIST, ENOENT, EACCES, EMFILE,
 * ENOMEM, ...), an open refuses a region with:
 *
 *   CONQ_SHM_ENOTCONQ   EBADMSG          not a conq region: bad magic, a
 *                                        header checksum mismatch, offsets
 *                                        or sizes that contradict each other,
 *                                        an unknown state, not a regular file
 *   CONQ_SHM_EVERSION   EPROTONOSUPPORT  another format version
 *   CONQ_SHM_EABI       ENOEXEC          built for another ABI: byte order,
 *                                        pointer size, CONQ_CACHE_LINE,
 *                                        CONQ_PAD, CONQ_INDEX_BITS, or the
 *                                        kind's layout version
 *   CONQ_SHM_EKIND      EPROTOTYPE       another kind of object
 *   CONQ_SHM_EGEOMETRY  EDOM             another element size, capacity or
 *                                        object size than expected
 *   CONQ_SHM_ETRUNCATED ENODATA          the file is smaller than its header
 *                                        says (or than a header), after the
 *                                        wait
 *   CONQ_SHM_ENOTREADY  EAGAIN           the creator has not finished
 *                                        (INITIALIZING, or no header yet)
 *                                        when the wait ran out
 *   CONQ_SHM_EFAILED    ECANCELED        the creator's init failed
 *
 * and every function refuses bad arguments with EINVAL (a NULL or malformed
 * name or spec, kind 0, object size 0, a region above CONQ_SHM_MAX_SIZE,
 * unknown flags). Nothing here reads past what fstat says the file holds,
 * so a garbage or truncated file is refused, not a crash; but a file that
 * another process truncates while it is mapped raises SIGBUS in every
 * process that touches the lost pages (POSIX): memfd regions are sealed
 * against shrinking and growing where the kernel allows; guard shm_open
 * names with their mode bits.
 */
#ifndef CONQ_SHM_H
#define CONQ_SHM_H

#include <stddef.h>
#include <stdint.h>
#include <errno.h>

#include "conq/impl/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The errno values of a refused region (see above). */
#define CONQ_SHM_ENOTCONQ   EBADMSG
#define CONQ_SHM_EVERSION   EPROTONOSUPPORT
#define CONQ_SHM_EABI	    ENOEXEC
#define CONQ_SHM_EKIND	    EPROTOTYPE
#define CONQ_SHM_EGEOMETRY  EDOM
#define CONQ_SHM_ETRUNCATED ENODATA
#define CONQ_SHM_ENOTREADY  EAGAIN
#define CONQ_SHM_EFAILED    ECANCELED

/* The format. The magic's bytes read "conq_shm" on a little-endian machine;
 * a region written on a machine of the other byte order shows it swapped
 * (refused with CONQ_SHM_EABI). */
#define CONQ_SHM_MAGIC	     UINT64_C(0x6d68735f716e6f63)
#define CONQ_SHM_VERSION     1u
#define CONQ_SHM_BYTE_ORDER  0x01020304u
#define CONQ_SHM_HEADER_SIZE 128u

/* The header's state word. */
#define CONQ_SHM_STATE_INITIALIZING 0x54494e49u /* "INIT" little-endian */
#define CONQ_SHM_STATE_READY	    0x59444552u /* "REDY" */
#define CONQ_SHM_STATE_FAILED	    0x4c494146u /* "FAIL" */

/* Object kinds. 0 is no kind (in an expectation: any). conq's own objects
 * below 0x10000; a caller's own objects from CONQ_SHM_KIND_USER up. */
#define CONQ_SHM_KIND_SPSC_VALUE 1u
#define CONQ_SHM_KIND_MPSC_VALUE 2u
#define CONQ_SHM_KIND_SPMC_VALUE 3u
#define CONQ_SHM_KIND_MPMC_VALUE 4u
#define CONQ_SHM_KIND_MPSC_BYTES 5u
#define CONQ_SHM_KIND_USER	 0x10000u

/* The largest region (header and object): 2^46 bytes on 64-bit targets,
 * 2^30 on 32-bit ones. */
#if SIZE_MAX > 0xffffffffu
#define CONQ_SHM_MAX_SIZE (UINT64_C(1) << 46)
#else
#define CONQ_SHM_MAX_SIZE (UINT64_C(1) << 30)
#endif

/*
 * The region's header, at offset 0, in the creator's byte order. Every
 * field has a fixed width and a fixed offset (asserted below), so that
 * builds for different targets read it alike and can tell they differ.
 * Written once by the creator: the magic last but one ([H1]), the state
 * last ([H2]); nobody writes it afterwards.
 */
typedef struct conq_shm_header {
	uint64_t magic;	      /*   0 CONQ_SHM_MAGIC ([H1], [H3]) */
	uint32_t version;     /*   8 CONQ_SHM_VERSION */
	uint32_t header_size; /*  12 CONQ_SHM_HEADER_SIZE */
	/* The ABI fingerprint: the creator's build. */
	uint32_t byte_order; /*  16 CONQ_SHM_BYTE_ORDER, native */
	uint32_t ptr_size;   /*  20 sizeof(void *) */
	uint32_t cache_line; /*  24 CONQ_CACHE_LINE */
	uint32_t pad;	     /*  28 CONQ_PAD */
	uint32_t index_bits; /*  32 CONQ_INDEX_BITS */
	/* The object. */
	uint32_t kind;		 /*  36 CONQ_SHM_KIND_* */
	uint32_t layout_version; /*  40 the kind's layout, from its code */
	uint32_t state;		 /*  44 CONQ_SHM_STATE_* ([H2], [H4]) */
	uint64_t elem_size;	 /*  48 as the kind defines it (or 0) */
	uint64_t capacity;	 /*  56 as the kind defines it (or 0) */
	uint64_t object_offset;	 /*  64 a multiple of pad, >= header_size */
	uint64_t object_size;	 /*  72 the object's memsize */
	uint64_t total_size;	 /*  80 the file's size: header + object,
				  *     rounded up to the creator's page */
	int64_t creator_pid;	 /*  88 getpid() of the creator */
	uint64_t created_ns;	 /*  96 CLOCK_REALTIME at creation */
	uint64_t reserved[2];	 /* 104 zero */
	uint64_t checksum;	 /* 120 conq_shm_header_checksum() */
} conq_shm_header;

CONQ__STATIC_ASSERT(sizeof(conq_shm_header) == CONQ_SHM_HEADER_SIZE,
		    "the header is 128 bytes");
/* Every offset: the format, not this compiler's layout. */
#define CONQ__SHM_AT(f, off)                                                   \
	CONQ__STATIC_ASSERT(offsetof(conq_shm_header, f) == (off),             \
			    "conq_shm_header: " #f " at " #off)
CONQ__SHM_AT(magic, 0);
CONQ__SHM_AT(version, 8);
CONQ__SHM_AT(header_size, 12);
CONQ__SHM_AT(byte_order, 16);
CONQ__SHM_AT(ptr_size, 20);
CONQ__SHM_AT(cache_line, 24);
CONQ__SHM_AT(pad, 28);
CONQ__SHM_AT(index_bits, 32);
CONQ__SHM_AT(kind, 36);
CONQ__SHM_AT(layout_version, 40);
CONQ__SHM_AT(state, 44);
CONQ__SHM_AT(elem_size, 48);
CONQ__SHM_AT(capacity, 56);
CONQ__SHM_AT(object_offset, 64);
CONQ__SHM_AT(object_size, 72);
CONQ__SHM_AT(total_size, 80);
CONQ__SHM_AT(creator_pid, 88);
CONQ__SHM_AT(created_ns, 96);
CONQ__SHM_AT(reserved, 104);
CONQ__SHM_AT(checksum, 120);

/* FNV-1a (64-bit) of the header's 128 bytes with `magic`, `state` and
 * `checksum` read as zero: what `checksum` holds. For tools that inspect or
 * repair regions (and for the tests, which forge them). Any thread. */
uint64_t conq_shm_header_checksum(const conq_shm_header *h);

/*
 * What a region holds. For create: the object to make (kind and
 * layout_version non-zero, object_size non-zero; elem_size and capacity
 * recorded as the kind defines them). For open: what the caller expects;
 * a field left 0 accepts whatever the region says, so that a consumer can
 * learn the geometry from the region (conq_shm_spec_of). The typed opens
 * pass their build's layout version, and the object size their memsize()
 * computes for the region's geometry.
 */
typedef struct conq_shm_spec {
	uint32_t kind;
	uint32_t layout_version;
	uint64_t elem_size;
	uint64_t capacity;
	uint64_t object_size;
} conq_shm_spec;

/* Options; a NULL pointer, or a field left 0, takes the default. */
typedef struct conq_shm_options {
	unsigned flags; /* CONQ_SHM_* flags below */
	unsigned mode;	/* create by name: permission bits; 0: 0600 */
	/* open: how long to wait for a creator that has not finished, in
	 * nanoseconds; 0: CONQ_SHM_DEFAULT_WAIT_NS; CONQ_SHM_NO_WAIT (or any
	 * negative value): do not wait. */
	int64_t wait_ns;
} conq_shm_options;

/* Flags. POPULATE: prefault the whole mapping (MAP_POPULATE). HUGE: a memfd
 * in huge pages (MFD_HUGETLB; create only, no name; the region rounds up to
 * the default huge page size, and the system must have huge pages
 * reserved, else ENOMEM). INHERIT: the handle's descriptor survives exec
 * (no FD_CLOEXEC), to pass a memfd to an exec'ed child; by default it is
 * close-on-exec. */
#define CONQ_SHM_POPULATE 1u
#define CONQ_SHM_HUGE	  2u
#define CONQ_SHM_INHERIT  4u

#define CONQ_SHM_DEFAULT_WAIT_NS INT64_C(1000000000)
#define CONQ_SHM_NO_WAIT	 INT64_C(-1)

/* The creator's init: build the object in `object` (object_size bytes,
 * aligned to CONQ_PAD, zero-filled). Returns 0, or an errno value that
 * fails the create. It runs before any opener can use the region; it must
 * store no pointer in it. */
typedef int (*conq_shm_init_fn)(void *object, const conq_shm_spec *spec,
				void *ctx);

/* The process-local handle. */
typedef struct conq_shm conq_shm;

/*
 * Create a region and the object in it. `name`: "/name" (one slash, then
 * 1 to 255 characters without a slash) for a shm_open object, which must
 * not exist (EEXIST); NULL for an anonymous memfd, which lives while a
 * descriptor or mapping refers to it: pass conq_shm_fd() to another process
 * (fork, exec with CONQ_SHM_INHERIT, SCM_RIGHTS). `init` (NULL: none) runs
 * on the object before the region is READY, with `ctx`. Returns the
 * creator's handle, or NULL with errno: EINVAL, EEXIST, the system's, or
 * init's error (then the name is unlinked again). Blocking (system calls).
 */
conq_shm *conq_shm_create(const char *name, const conq_shm_spec *spec,
			  conq_shm_init_fn init, void *ctx,
			  const conq_shm_options *opt);

/*
 * Open a region by name (ENOENT if there is none) and check it against
 * `expect` (NULL: any conq region). Maps it wherever the kernel likes.
 * Waits up to opt->wait_ns for a creator that has not finished. Returns a
 * handle, or NULL with errno (the table above, EINVAL, the system's).
 */
conq_shm *conq_shm_open(const char *name, const conq_shm_spec *expect,
			const conq_shm_options *opt);

/* The same on a descriptor (a memfd received from the creator, a shm_open
 * descriptor). The handle works on its own duplicate of fd: the caller's
 * stays the caller's, to close when it likes. EBADF for a bad fd. */
conq_shm *conq_shm_open_fd(int fd, const conq_shm_spec *expect,
			   const conq_shm_options *opt);

/* Unmap, close the handle's descriptor, free the handle. The region and the
 * object in it stay for the other handles and processes. NULL: a no-op.
 * Returns 0, or -1 with errno when munmap or close failed (the handle is
 * freed anyway). */
int conq_shm_close(conq_shm *shm);

/* Remove a region's name (shm_unlink): new opens fail with ENOENT, mapped
 * handles keep working, and the memory goes when the last one closes.
 * Returns 0, or -1 with errno (EINVAL for a malformed name, ENOENT). */
int conq_shm_unlink(const char *name);

/* The object, in this process's mapping (aligned to CONQ_PAD). */
void *conq_shm_object(const conq_shm *shm);
/* Its size in bytes (the spec's object_size). */
size_t conq_shm_object_size(const conq_shm *shm);
/* The region's geometry, as its header says (a pointer into the handle). */
const conq_shm_spec *conq_shm_spec_of(const conq_shm *shm);
/* The handle's descriptor (closed by conq_shm_close). */
int conq_shm_fd(const conq_shm *shm);
/* The region's header, in this process's mapping (read only). */
const conq_shm_header *conq_shm_header_of(const conq_shm *shm);
/* The bytes this handle maps (the header's total_size). */
size_t conq_shm_map_size(const conq_shm *shm);

/* The message of this thread's last failed conq_shm call ("" if none yet):
 * a NUL-terminated line without a newline, valid until this thread's next
 * failing conq_shm call. A successful call leaves it, as it leaves errno. */
const char *conq_shm_last_error(void);

/* The name of a kind, for messages: "spsc_value", "mpsc_value",
 * "spmc_value", "mpmc_value", "mpsc_bytes", "user" (CONQ_SHM_KIND_USER and
 * up), "none" (0), "unknown". A static string. Any thread. */
const char *conq_shm_kind_name(uint32_t kind);

#ifdef __cplusplus
}
#endif

#endif /* CONQ_SHM_H */
