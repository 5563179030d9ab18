/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * adapter.h - the queue-adapter table: every queue conq-bench can measure,
 * conq's own and the peers', behind one shape.
 *
 * The generic offer/poll pointers serve setup and teardown only (priming,
 * draining). Measured loops never call through a pointer per operation: each
 * adapter instantiates the workload loops with CB_DEFINE_LOOPS (loops.h) on
 * its own inline offer/poll, so the compiler inlines the queue operation into
 * the loop for every queue alike, peers included.
 */
#ifndef CB_ADAPTER_H
#define CB_ADAPTER_H

#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A queue's contract: how many producers and consumers may call it at once.
 * SPSC allows -tg 1,1 only, MPSC P,1, SPMC 1,C, MPMC any P,C. */
enum {
	CB_SPSC = 1u << 0,
	CB_MPSC = 1u << 1,
	CB_SPMC = 1u << 2,
	CB_MPMC = 1u << 3,
};
#define CB_ALL_CONTRACTS (CB_SPSC | CB_MPSC | CB_SPMC | CB_MPMC)

/* Does `contract` allow p producers and c consumers? */
static inline bool cb_contract_allows(unsigned contract, unsigned p, unsigned c)
{
	switch (contract) {
	case CB_SPSC:
		return p == 1 && c == 1;
	case CB_MPSC:
		return c == 1;
	case CB_SPMC:
		return p == 1;
	case CB_MPMC:
		return true;
	default:
		return false;
	}
}

/* The narrowest contract that allows p producers and c consumers. */
static inline unsigned cb_contract_of_shape(unsigned p, unsigned c)
{
	if (p == 1 && c == 1)
		return CB_SPSC;
	if (c == 1)
		return CB_MPSC;
	if (p == 1)
		return CB_SPMC;
	return CB_MPMC;
}

/* "SPSC"... for one contract bit. */
const char *cb_contract_name(unsigned contract);

/* The loops each adapter instantiates (one per workload role). */
typedef struct cb_loops {
	cb_role_fn tpt_offer;        /* QueueThroughputBackoffNone: offer */
	cb_role_fn tpt_poll;         /* ... poll */
	cb_role_fn tpt_poll_checked; /* ... poll, checking FIFO order (--check) */
	/* ... the same, timing every 2^CB_SAMPLE_LOG2-th op into w->hist
	 * (-bm sample; loops.h) */
	cb_role_fn tpt_offer_sampled;
	cb_role_fn tpt_poll_sampled;
	cb_role_fn tpt_poll_sampled_checked;
	/* QueueBurstCost (w->q is a cb_burst): the measured producer, an op
	 * being one burst sent and seen consumed; the consumers */
	cb_role_fn burst_send;
	cb_role_fn burst_send_sampled; /* ... each burst timed into w->hist */
	cb_role_fn burst_send_shot; /* ... one burst per iteration (-bm ss) */
	cb_role_fn burst_drain;
	/* Round trip through a chain (w->q is a cb_chain): thread 0, an op
	 * being one round trip (sampled: each timed into w->hist); threads
	 * 1..len-1 forward q[k-1] -> q[k] */
	cb_role_fn rtt_ping;
	cb_role_fn rtt_ping_sampled;
	cb_role_fn rtt_link;
} cb_loops;

typedef enum {
	CB_KIND_OWN,     /* a conq queue */
	CB_KIND_PEER,    /* another library's queue */
	CB_KIND_BASELINE /* not a queue: a reference point */
} cb_kind;

typedef struct cb_adapter {
	const char *name;    /* qType: "family:queue", e.g. "conq:spsc_array" */
	const char *family;  /* "conq", "ck", "ceiling" */
	const char *desc;    /* one line for -l */
	unsigned contract;   /* one of CB_SPSC, CB_MPSC, CB_SPMC, CB_MPMC */
	cb_kind kind;
	/* Build a queue for (at least) `capacity` elements; *usable = how many
	 * it really holds. NULL on failure (errno set). */
	void *(*create)(size_t capacity, size_t *usable);
	void (*destroy)(void *q);
	/* Generic, for setup/teardown only (single-threaded). */
	bool (*offer)(void *q, void *e);
	void *(*poll)(void *q);
	/* Optional, single-threaded, between iterations: make everything offered
	 * visible to poll (batched-publication queues). */
	void (*flush)(void *q);
	const cb_loops *loops;
	/* NULL: the queue is FIFO as a linearizable queue is, so each
	 * consumer sees each producer's elements in order, and what is left
	 * after an iteration is a suffix of each producer's sequence: an
	 * element out of that order is an invariant violation. Else the queue
	 * does not promise that (why, in a few words): out-of-order elements
	 * are counted and reported, not failed; exactly-once still holds. */
	const char *weak_order;
	/* true: a variant of another adapter (a growing queue with another
	 * chunk size, "conq:spsc_growable.16"; a peer's unbounded use): run
	 * only when a -p qType pattern with a '.' or its exact name matches
	 * it, not in the default selection nor through "conq:*". */
	bool variant;
	/* Optional, the blocking ends (QueueHandoff, wl_handoff.c; NULL: the
	 * queue has none): put offers, waiting while full (false: an error,
	 * errno set); take_until polls, waiting while empty until the
	 * CLOCK_MONOTONIC `deadline` (ns, cb_now_ns()'s clock), NULL once it
	 * has passed. Called through the pointer: one call per message at
	 * message rates where a call costs nothing beside the wake-up. */
	bool (*put)(void *q, void *e);
	void *(*take_until)(void *q, int64_t deadline);
	/* QueueValueThroughput's loops (workloads/vloops.h), per element
	 * size: a value ring's copy or claim/commit, or a pointer queue
	 * moving pointers (alone, or to pooled payloads). NULL: the adapter
	 * does not run there. An adapter with vloops and no `loops` runs
	 * there only (its offer/poll above are NULL). */
	const struct cb_vloops *vloops;
} cb_adapter;

/* The adapters compiled in, own queues first, then peers, then baselines
 * (those of QueueValueThroughput among them: `vloops`). */
extern const cb_adapter *const cb_adapters[];
extern const size_t cb_nadapters;

/* Known peer libraries, compiled in or not, for --list-peers. */
typedef struct cb_peer {
	const char *qtypes;  /* what it adds, e.g. "ck:*" */
	const char *library; /* e.g. "ConcurrencyKit ck_ring" */
	const char *needs;   /* what the build looks for */
	const char *package; /* Debian package to install */
	int status;          /* CB_PEER_IN, _MISSING, _PLANNED, _DISABLED */
	const char *off;     /* why a build switches it off */
} cb_peer;

enum { CB_PEER_IN, CB_PEER_MISSING, CB_PEER_PLANNED, CB_PEER_DISABLED };

extern const cb_peer cb_peers[];
extern const size_t cb_npeers;

#ifdef __cplusplus
}
#endif

#endif /* CB_ADAPTER_H */
