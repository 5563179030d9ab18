/* SPDX-License-Identifier: BSD-2-Clause */
/* Cold paths of the value rings (conq/impl/value.h): geometry, init,
 * create, destroy, and the test hook that starts the indices anywhere. */
#include <errno.h>
#include <string.h>

#include "conq/mpmc_value.h"
#include "conq/mpsc_value.h"
#include "conq/spmc_value.h"
#include "conq/spsc_value.h"
#include "conq/impl/testing.h"
#include "conq/shm.h"
#include "internal.h"

static uint64_t value_stride(uint64_t esize)
{
	if (esize <= 16) {
		uint64_t s = 1;
		while (s < esize)
			s <<= 1;
		return s;
	}
	return (esize + 15) / 16 * 16;
}

static uint64_t round_pad(uint64_t n)
{
	return (n + CONQ_PAD - 1) / CONQ_PAD * CONQ_PAD;
}

bool conq__value_geometry(conq__value_geom *g, unsigned kind, size_t head,
			  size_t esize, size_t capacity, bool tags, bool reg,
			  const conq_value_opts *opts, size_t *total)
{
	conq_value_opts o = {0, 0, 0};
	if (opts != NULL)
		o = *opts;
	size_t cap = conq__array_round_capacity(capacity);
	if (cap == 0 || cap > CONQ_VALUE_MAX_CAPACITY || esize == 0 ||
	    esize > CONQ_VALUE_MAX_ELEM || (o.flags & ~CONQ_VALUE_SHARED) != 0 ||
	    o.max_producers > CONQ__CLAIMS_MAX || o.dead_check_ns < 0) {
		errno = EINVAL;
		return false;
	}
	memset(g, 0, sizeof(*g));
	g->magic = CONQ__VALUE_MAGIC;
	g->layout = CONQ__VALUE_LAYOUT(kind, head);
	g->cap = cap;
	g->mask = cap - 1;
	g->esize = esize;
	g->stride = value_stride(esize);
	g->flags = o.flags;
	uint64_t off = round_pad(head);
	if (tags) {
		g->tags = off;
		off += round_pad((uint64_t)cap * sizeof(conq__vtag_t));
	}
	g->slots = off;
	/* cap <= 2^28 and stride <= 2^16: no overflow in 64 bits; a 32-bit
	 * size_t must still hold it all. */
	uint64_t data = (uint64_t)cap * g->stride;
	if (kind == 1) {
		/* SPSC's groups: a header (the published index, a
		 * conq__vtag_t, in ghead bytes that keep the slots aligned to
		 * min(stride, 16)), then as many slots as share its cache
		 * line; a slot too big for two to a line gets a group of its
		 * own. */
		uint64_t a = g->stride < 16 ? g->stride : 16;
		g->ghead = a < 4 ? 4 : a;
		if (g->ghead + 2 * g->stride <= CONQ_CACHE_LINE) {
			g->gk = (CONQ_CACHE_LINE - g->ghead) / g->stride;
			g->gbytes = CONQ_CACHE_LINE;
		} else {
			g->gk = 1;
			g->gbytes = (g->ghead + g->stride + 15) / 16 * 16;
		}
		g->gend = g->ghead + g->gk * g->stride;
		g->ngroups = (cap + g->gk - 1) / g->gk;
		data = g->ngroups * g->gbytes;
	}
	uint64_t bytes = off + round_pad(data) + CONQ_PAD;
	g->bytes = bytes;
	if (reg && (o.flags & CONQ_VALUE_SHARED)) {
		unsigned n = o.max_producers ? o.max_producers
					     : CONQ_VALUE_DEFAULT_PRODUCERS;
		g->claims = bytes;
		bytes += conq__claims_memsize(n);
		g->dead_ns = o.dead_check_ns ? o.dead_check_ns
					     : CONQ_VALUE_DEAD_CHECK_NS;
		g->nclaim = n;
	} else if (o.flags & CONQ_VALUE_SHARED) {
		g->dead_ns = o.dead_check_ns ? o.dead_check_ns
					     : CONQ_VALUE_DEAD_CHECK_NS;
	}
	if (bytes > (uint64_t)(SIZE_MAX >> 1)) {
		errno = EINVAL;
		return false;
	}
	*total = (size_t)bytes;
	return true;
}

bool conq__value_prepare(void *mem, const conq__value_geom *g, size_t total,
			 int zeroed)
{
	if (mem == NULL || (uintptr_t)mem % CONQ_PAD != 0) {
		errno = EINVAL;
		return false;
	}
	if (!zeroed)
		memset(mem, 0, total);
	*(conq__value_geom *)mem = *g;
	if (g->claims != 0 &&
	    conq__claims_init((conq__claims *)((uintptr_t)mem + g->claims),
			      (unsigned)g->nclaim) != 0)
		return false;
	return true;
}

void *conq__value_attach(void *mem, size_t bytes, unsigned kind, size_t head,
			 bool tags)
{
	const conq__value_geom *g = (const conq__value_geom *)mem;
	if (mem == NULL || (uintptr_t)mem % CONQ_PAD != 0 ||
	    bytes < sizeof(*g) || g->magic != CONQ__VALUE_MAGIC) {
		errno = EINVAL;
		return NULL;
	}
	if (g->layout != CONQ__VALUE_LAYOUT(kind, head)) {
		errno = EPROTO;
		return NULL;
	}
	/* The geometry must be what init computes for its own element size
	 * and capacity, and fit. */
	conq_value_opts o = {(unsigned)g->flags, (unsigned)g->nclaim,
			     g->dead_ns};
	conq__value_geom want;
	size_t total;
	if (!conq__value_geometry(&want, kind, head, (size_t)g->esize,
				  (size_t)g->cap, tags, g->claims != 0, &o,
				  &total) ||
	    want.cap != g->cap || want.mask != g->mask ||
	    want.stride != g->stride || want.tags != g->tags ||
	    want.slots != g->slots || want.bytes != g->bytes ||
	    want.claims != g->claims || want.gk != g->gk ||
	    want.gbytes != g->gbytes || want.ngroups != g->ngroups ||
	    total > bytes ||
	    (g->claims != 0 &&
	     !conq__claims_valid(
		 (const conq__claims *)((uintptr_t)mem + g->claims),
		 bytes - (size_t)g->claims))) {
		errno = EINVAL;
		return NULL;
	}
	return mem;
}

void conq__value_detach(void *q)
{
	const conq__value_geom *g = (const conq__value_geom *)q;
	if (q != NULL && g->claims != 0)
		conq__claims_detach(conq__value_reg(q, g));
}

void *conq__value_alloc(size_t total)
{
	return conq__alloc_aligned(total);
}

void conq__value_free(void *q)
{
	conq__free_aligned(q);
}

void conq__value_backoff(unsigned *spins)
{
	conq__wait_backoff(spins);
}

bool conq__value_enter_slow(const void *q, const conq__value_geom *g,
			    conq__claim_entry **e, bool fresh)
{
	conq__claim_entry *x = conq__claims_enter(conq__value_reg(q, g));
	if (x == NULL)
		return false; /* errno: EUSERS or ENOMEM */
	if (fresh && conq__claims_held(x) != 0) {
		errno = EBUSY;
		return false;
	}
	*e = x;
	return true;
}

bool conq__value_claimer_dead(const void *q, const conq__value_geom *g,
			      conq__idx_t c)
{
	/* A claim of a run starts at most cap - 1 indices before c. */
	conq__idx_t lo = conq__idx_sub(c, g->cap - 1);
	return conq__claims_live(conq__value_reg(q, g), conq__claims_token(lo),
				 conq__claims_span(g->cap), NULL) == 0;
}

static unsigned ec_flags(const conq__value_geom *g)
{
	return (g->flags & CONQ_VALUE_SHARED) ? CONQ_EVENTCOUNT_SHARED : 0;
}

/* ---- the rings in shared memory (conq/shm.h) ---- */

#define VALUE_SHM_LAYOUT 1u

struct value_shm_ctx {
	void *(*init)(void *mem, size_t esize, size_t cap,
		      const conq_value_opts *opts);
	const conq_value_opts *opts;
};

static int value_shm_init(void *object, const conq_shm_spec *spec, void *ctx)
{
	struct value_shm_ctx *c = (struct value_shm_ctx *)ctx;
	return c->init(object, (size_t)spec->elem_size, (size_t)spec->capacity,
		       c->opts) != NULL
		   ? 0
		   : errno;
}

static void *value_shm_create(unsigned kind, const char *name, size_t esize,
			      size_t capacity, const conq_value_opts *opts,
			      const conq_shm_options *shm_opts, conq_shm **shm,
			      size_t (*memsize)(size_t, size_t,
						const conq_value_opts *),
			      void *(*init)(void *, size_t, size_t,
					    const conq_value_opts *))
{
	if (shm == NULL) {
		errno = EINVAL;
		return NULL;
	}
	*shm = NULL;
	conq_value_opts o = {CONQ_VALUE_SHARED, 0, 0};
	if (opts != NULL) {
		o = *opts;
		o.flags |= CONQ_VALUE_SHARED;
	}
	size_t bytes = memsize(esize, capacity, &o);
	if (bytes == 0)
		return NULL;
	conq_shm_spec spec = {kind, VALUE_SHM_LAYOUT, esize,
			      conq__array_round_capacity(capacity), bytes};
	struct value_shm_ctx c = {init, &o};
	conq_shm *h = conq_shm_create(name, &spec, value_shm_init, &c, shm_opts);
	if (h == NULL)
		return NULL;
	*shm = h;
	return conq_shm_object(h);
}

/* Open (by name or fd), then check the ring against the region. */
static void *value_shm_attach(conq_shm *h, conq_shm **shm, size_t esize,
			      size_t capacity,
			      void *(*attach)(void *, size_t))
{
	if (h == NULL)
		return NULL;
	void *q = attach(conq_shm_object(h), conq_shm_object_size(h));
	const conq__value_geom *g = (const conq__value_geom *)q;
	if (q == NULL || (esize != 0 && g->esize != esize) ||
	    (capacity != 0 &&
	     g->cap != conq__array_round_capacity(capacity))) {
		int err = q == NULL ? errno : CONQ_SHM_EGEOMETRY;
		conq_shm_close(h);
		errno = err;
		return NULL;
	}
	*shm = h;
	return q;
}

/* Open by name (fd < 0) or by fd, expecting kind (and the geometry, where
 * not 0), then check and attach the ring. */
static void *value_shm_open(unsigned kind, const char *name, int fd,
			    size_t esize, size_t capacity,
			    const conq_shm_options *shm_opts, conq_shm **shm,
			    void *(*attach)(void *, size_t))
{
	if (shm == NULL) {
		errno = EINVAL;
		return NULL;
	}
	*shm = NULL;
	conq_shm_spec e = {kind, VALUE_SHM_LAYOUT, esize,
			   capacity ? conq__array_round_capacity(capacity) : 0,
			   0};
	conq_shm *h = fd < 0 ? conq_shm_open(name, &e, shm_opts)
			     : conq_shm_open_fd(fd, &e, shm_opts);
	return value_shm_attach(h, shm, esize, capacity, attach);
}

/*
 * The public cold paths of family `fam` (kind 1..4, tags or not, a
 * registry when shared or not), around its `static void fam_setup(conq_<fam>
 * *q, conq__idx_t start, unsigned ecf)`, which sets the indices (and tags)
 * of a prepared, zeroed ring to start at `start` and inits its eventcounts
 * with flags `ecf`.
 */
#define VALUE_COLD_PATHS(fam, kind, shm_kind, tags, reg)                       \
	size_t conq_##fam##_memsize_opts(size_t esize, size_t capacity,        \
					 const conq_value_opts *opts)          \
	{                                                                      \
		conq__value_geom g;                                            \
		size_t total;                                                  \
		if (!conq__value_geometry(&g, kind, sizeof(conq_##fam), esize, \
					  capacity, tags, reg, opts, &total))  \
			return 0;                                              \
		return total;                                                  \
	}                                                                      \
	size_t conq_##fam##_memsize(size_t esize, size_t capacity)             \
	{                                                                      \
		return conq_##fam##_memsize_opts(esize, capacity, NULL);       \
	}                                                                      \
	static conq_##fam *fam##_init(void *mem, size_t esize, size_t capacity, \
				      const conq_value_opts *opts,             \
				      uint64_t start, int zeroed)              \
	{                                                                      \
		conq__value_geom g;                                            \
		size_t total;                                                  \
		if (!conq__value_geometry(&g, kind, sizeof(conq_##fam), esize, \
					  capacity, tags, reg, opts, &total) || \
		    !conq__value_prepare(mem, &g, total, zeroed))              \
			return NULL;                                           \
		conq_##fam *q = (conq_##fam *)mem;                             \
		fam##_setup(q, (conq__idx_t)start, ec_flags(&g));              \
		return q;                                                      \
	}                                                                      \
	conq_##fam *conq_##fam##_init_opts(void *mem, size_t esize,            \
					   size_t capacity,                    \
					   const conq_value_opts *opts)        \
	{                                                                      \
		return fam##_init(mem, esize, capacity, opts, 0, 0);           \
	}                                                                      \
	conq_##fam *conq_##fam##_init(void *mem, size_t esize,                 \
				      size_t capacity)                         \
	{                                                                      \
		return fam##_init(mem, esize, capacity, NULL, 0, 0);           \
	}                                                                      \
	conq_##fam *conq__##fam##_init_at(void *mem, size_t esize,             \
					  size_t capacity, uint64_t start)     \
	{                                                                      \
		return fam##_init(mem, esize, capacity, NULL, start, 0);       \
	}                                                                      \
	conq_##fam *conq_##fam##_attach(void *mem, size_t bytes)               \
	{                                                                      \
		return (conq_##fam *)conq__value_attach(                       \
		    mem, bytes, kind, sizeof(conq_##fam), tags);               \
	}                                                                      \
	void conq_##fam##_detach(conq_##fam *q)                                \
	{                                                                      \
		conq__value_detach(q);                                         \
	}                                                                      \
	conq_##fam *conq_##fam##_create(size_t esize, size_t capacity)         \
	{                                                                      \
		size_t total = conq_##fam##_memsize(esize, capacity);          \
		if (total == 0)                                                \
			return NULL;                                           \
		void *mem = conq__value_alloc(total);                          \
		if (mem == NULL)                                               \
			return NULL;                                           \
		return fam##_init(mem, esize, capacity, NULL, 0, 1);           \
	}                                                                      \
	void conq_##fam##_destroy(conq_##fam *q)                               \
	{                                                                      \
		conq__value_free(q);                                           \
	}                                                                      \
	static void *fam##_init_v(void *mem, size_t esize, size_t capacity,    \
				  const conq_value_opts *opts)                 \
	{                                                                      \
		return conq_##fam##_init_opts(mem, esize, capacity, opts);     \
	}                                                                      \
	static void *fam##_attach_v(void *mem, size_t bytes)                   \
	{                                                                      \
		return conq_##fam##_attach(mem, bytes);                        \
	}                                                                      \
	conq_##fam *conq_##fam##_shm_create(                                   \
	    const char *name, size_t esize, size_t capacity,                   \
	    const conq_value_opts *opts, const conq_shm_options *shm_opts,     \
	    conq_shm **shm)                                                    \
	{                                                                      \
		return (conq_##fam *)value_shm_create(                         \
		    shm_kind, name, esize, capacity, opts, shm_opts, shm,      \
		    conq_##fam##_memsize_opts, fam##_init_v);                  \
	}                                                                      \
	conq_##fam *conq_##fam##_shm_open(const char *name, size_t esize,      \
					  size_t capacity,                     \
					  const conq_shm_options *shm_opts,    \
					  conq_shm **shm)                      \
	{                                                                      \
		return (conq_##fam *)value_shm_open(shm_kind, name, -1, esize, \
						    capacity, shm_opts, shm,   \
						    fam##_attach_v);           \
	}                                                                      \
	conq_##fam *conq_##fam##_shm_open_fd(int fd, size_t esize,             \
					     size_t capacity,                  \
					     const conq_shm_options *shm_opts, \
					     conq_shm **shm)                   \
	{                                                                      \
		return (conq_##fam *)value_shm_open(shm_kind, NULL, fd, esize, \
						    capacity, shm_opts, shm,   \
						    fam##_attach_v);           \
	}                                                                      \
	int conq_##fam##_shm_close(conq_shm *shm)                              \
	{                                                                      \
		if (shm == NULL)                                               \
			return 0;                                              \
		conq__value_detach(conq_shm_object(shm));                      \
		return conq_shm_close(shm);                                    \
	}

/* ---- conq_spsc_value ---- */
static void spsc_value_setup(conq_spsc_value *q, conq__idx_t start,
			     unsigned ecf)
{
	conq_eventcount_init(&q->nonempty, ecf);
	conq_eventcount_init(&q->nonfull, ecf);
	q->pidx = q->cidx = q->cavail = start;
	q->plimit = conq__idx_add(start, q->g.cap);
	q->pgs = q->cgs = q->g.slots;
	q->ppos = q->cpos = q->g.slots + q->g.ghead;
	/* Group k's header: nothing published in it yet, i.e. the first
	 * index it will hold (start + k * gk). */
	for (uint64_t k = 0; k < q->g.ngroups; k++)
		*conq__spsc_value_hdr(q, q->g.slots + k * q->g.gbytes) =
		    (conq__vtag_t)conq__idx_add(start, k * q->g.gk);
}
VALUE_COLD_PATHS(spsc_value, 1, CONQ_SHM_KIND_SPSC_VALUE, false, false)

/* ---- conq_mpsc_value ---- */
/* Every slot's tag says "the index one lap before the first index that
 * will use it is committed": FULL(i - cap) for the slot of i, i the first
 * lap's index. */
static void mpsc_value_setup(conq_mpsc_value *q, conq__idx_t start,
			     unsigned ecf)
{
	conq_eventcount_init(&q->nonempty, ecf);
	conq_eventcount_init(&q->nonfull, ecf);
	q->pidx = q->cidx = start;
	q->plimit = conq__idx_add(start, q->g.cap);
	conq__vtag_t *t = conq__value_tags(q, &q->g);
	for (uint64_t k = 0; k < q->g.cap; k++) {
		conq__idx_t i = conq__idx_add(start, k);
		t[i & q->g.mask] = conq__vtag(q->g.mask, conq__idx_sub(i, q->g.cap),
					      CONQ__VT_FULL);
	}
}
VALUE_COLD_PATHS(mpsc_value, 2, CONQ_SHM_KIND_MPSC_VALUE, true, true)

/* SPMC and MPMC: FREE(i) for the first lap's index i of every slot. */
static void vring_setup(conq__vring *r, conq__idx_t start, unsigned ecf)
{
	conq_eventcount_init(&r->nonempty, ecf);
	conq_eventcount_init(&r->nonfull, ecf);
	r->pidx = r->cidx = start;
	conq__vtag_t *t = conq__value_tags(r, &r->g);
	for (uint64_t k = 0; k < r->g.cap; k++) {
		conq__idx_t i = conq__idx_add(start, k);
		t[i & r->g.mask] = conq__vtag(r->g.mask, i, CONQ__VT_FREE);
	}
}

/* ---- conq_spmc_value ---- */
static void spmc_value_setup(conq_spmc_value *q, conq__idx_t start,
			     unsigned ecf)
{
	vring_setup(&q->r, start, ecf);
}
VALUE_COLD_PATHS(spmc_value, 3, CONQ_SHM_KIND_SPMC_VALUE, true, false)

/* ---- conq_mpmc_value ---- */
static void mpmc_value_setup(conq_mpmc_value *q, conq__idx_t start,
			     unsigned ecf)
{
	vring_setup(&q->r, start, ecf);
}
VALUE_COLD_PATHS(mpmc_value, 4, CONQ_SHM_KIND_MPMC_VALUE, true, true)

/* C, a shared ring: index c is claimed and uncommitted; reclaim it (a
 * tombstone) if its claimer is dead. */
static bool mpsc_value_reclaim(conq_mpsc_value *q, conq__idx_t c)
{
	if (!conq__value_claimer_dead(q, &q->g, c))
		return false;
	conq__vtag_t old = conq__mpsc_value_tag(q, c);
	if (conq__vtag_state(q->g.mask, old, c) >= 0)
		return false; /* committed after all */
	/* [VM8] CAS acq_rel: pairs with [VM1]: a commit that came after the
	 * registry said dead (impossible for a dead claimer; the claimer had
	 * committed and left) makes it fail, and the tag decides. */
	return conq__cas_strong_acq_rel(
	    &conq__value_tags(q, &q->g)[c & q->g.mask], &old,
	    conq__vtag(q->g.mask, c, CONQ__VT_TOMB));
}

int conq__mpsc_value_wait(conq_mpsc_value *q, conq__idx_t c)
{
	unsigned spins = 0;
	int64_t since = 0;
	for (unsigned k = 0;; k++) {
		conq__svtag_t d = conq__vtag_state(q->g.mask,
						   conq__mpsc_value_tag(q, c), c);
		if (d == CONQ__VT_FULL)
			return 1;
		if (d == CONQ__VT_TOMB)
			return 2;
		/* [VM7] acquire: pairs with [VM3] (fill's hand-back). */
		if (conq__load_acquire(&q->pidx) == c)
			return 0;
		if (q->g.claims != 0 && k % 64 == 0) {
			/* A shared ring: every dead_ns, is the claimer dead? */
			int64_t now = conq_now_ns();
			if (since == 0) {
				since = now;
			} else if (now - since >= q->g.dead_ns) {
				if (mpsc_value_reclaim(q, c))
					return 2;
				since = now;
			}
		}
		conq__wait_backoff(&spins);
	}
}

bool conq_mpsc_value_unblock(conq_mpsc_value *q)
{
	conq__idx_t c = q->cidx;
	if (q->g.claims == 0 ||
	    conq__vtag_state(q->g.mask, conq__mpsc_value_tag(q, c), c) >= 0 ||
	    /* [VM7] acquire: pairs with [VM3]: c is claimed. */
	    conq__load_acquire(&q->pidx) == c)
		return false;
	return mpsc_value_reclaim(q, c);
}

/* ---- the multi-consumer rings' edges (conq/impl/value_mc.h) ---- */

bool conq__vring_edge_put(conq__vring *r, conq__idx_t p, bool mp)
{
	/* The watch: the consumer of p - n may be releasing the slot. */
	for (unsigned i = 0; i < CONQ__MPMC_CHASE_SPINS; i++) {
		conq__watch_gap(CONQ__MPMC_CHASE_GAP);
		if (conq__vring_look(r, p) >= 0)
			return true;
	}
	/* [V8] seq_cst: pairs with [V7]. p was pidx at some moment of the
	 * caller's call (its own, for a single producer) and cidx only
	 * grows, so p - cidx >= n here means n indices were produced and not
	 * claimed by consumers then: full. */
	if (conq__idx_diff(p, conq__load_seq_cst(&r->cidx)) >= (int64_t)r->g.cap)
		return false;
	/* p - n is claimed by a consumer that has not released it yet (or,
	 * MPMC, p is stale: pidx moved on). */
	unsigned k = 0;
	for (;;) {
		conq__mpmc_backoff(&k);
		if (conq__vring_look(r, p) >= 0 ||
		    /* [V1] seq_cst: pairs with [V1]. */
		    (mp && conq__load_seq_cst(&r->pidx) != p))
			return true;
	}
}

/* C, a shared MPMC ring: index c is claimed by a producer and not
 * committed; reclaim it (a tombstone) if its claimer is dead and the slot
 * is free for it (a consumer of c - cap may still be releasing it). */
static bool vring_reclaim(conq__vring *r, conq__idx_t c)
{
	if (!conq__value_claimer_dead(r, &r->g, c))
		return false;
	conq__vtag_t *t = &conq__value_tags(r, &r->g)[c & r->g.mask];
	conq__vtag_t old = conq__vtag(r->g.mask, c, CONQ__VT_FREE);
	/* [V12] CAS acq_rel: pairs with [V4] (a commit, which a live claimer
	 * would store: then the CAS fails and the tag decides) and with [V5]
	 * (the consumer that claims the tombstone). */
	return conq__cas_strong_acq_rel(t, &old,
					conq__vtag(r->g.mask, c, CONQ__VT_TOMB));
}

bool conq__vring_edge_take(conq__vring *r, conq__idx_t c, bool wait)
{
	/* The watch: c's producer may be committing right now. */
	for (unsigned i = 0; i < CONQ__MPMC_CHASE_SPINS; i++) {
		conq__watch_gap(CONQ__MPMC_CHASE_GAP);
		if (conq__vring_look(r, c) >= CONQ__VT_FULL)
			return true;
	}
	unsigned k = 0, rounds = 0;
	int64_t since = 0;
	for (;;) {
		/* [V9] seq_cst: pairs with [V1] and [V11] (fill's hand-back).
		 * cidx was c earlier and pidx never drops below it, so pidx at
		 * or below c here is an empty ring. */
		if (conq__idx_diff(conq__load_seq_cst(&r->pidx), c) <= 0)
			return false;
		/* c's producer has claimed it and not committed yet. */
		if (!wait)
			return false;
		if (r->g.claims != 0 && ++rounds % 64 == 0) {
			/* A shared ring: every dead_ns, is the claimer dead? */
			int64_t now = conq_now_ns();
			if (since == 0) {
				since = now;
			} else if (now - since >= r->g.dead_ns) {
				if (vring_reclaim(r, c))
					return true;
				since = now;
			}
		}
		conq__mpmc_backoff(&k);
		if (conq__vring_look(r, c) >= CONQ__VT_FULL ||
		    /* [V7] seq_cst: pairs with [V7]. */
		    conq__load_seq_cst(&r->cidx) != c)
			return true;
	}
}

bool conq_mpmc_value_unblock(conq_mpmc_value *q)
{
	conq__vring *r = &q->r;
	/* [V7] seq_cst: as in the claim. */
	conq__idx_t c = conq__load_seq_cst(&r->cidx);
	if (r->g.claims == 0 || conq__vring_look(r, c) >= CONQ__VT_FULL ||
	    /* [V9] seq_cst: c is claimed by a producer. */
	    conq__idx_diff(conq__load_seq_cst(&r->pidx), c) <= 0)
		return false;
	return vring_reclaim(r, c);
}

bool conq__value_take_shared(conq__value_call *v, void *(*poll)(void *),
			     conq_eventcount *ec, int64_t deadline,
			     int64_t slice, bool (*unblock)(void *))
{
	for (;;) {
		int64_t now = conq_now_ns();
		int64_t until = deadline - now > slice ? now + slice : deadline;
		if (conq__take_wait(v, poll, ec, until) != NULL)
			return true;
		if (conq_now_ns() >= deadline) {
			errno = ETIMEDOUT;
			return false;
		}
		/* A slice without an element: a dead producer's claim at the
		 * head? (It checks that the head is claimed and uncommitted,
		 * then the registry: conq/impl/claims.h.) */
		unblock(v->q);
	}
}
