/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * src/refcount.c - conq/refcount.h's cold path: a count that went wrong is
 * saturated and reported to the process-wide hook (docs/memory-model.md,
 * "Reference count": RC4, RC5).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conq/refcount.h"

/* NULL: the default hook. Written by set_hook, read by every report. */
static conq_refcount_hook conq__rc_hook;

/* Non-zero once the default hook has printed its line. */
static unsigned conq__rc_warned;

static const char *conq__rc_event_name(enum conq_refcount_event ev)
{
	switch (ev) {
	case CONQ_REFCOUNT_ADD_ON_ZERO:
		return "retain of a count at 0 (use after free)";
	case CONQ_REFCOUNT_OVERFLOW:
		return "retain of a count at its maximum (overflow)";
	case CONQ_REFCOUNT_UNDERFLOW:
		return "release of a count at 0 (underflow)";
	case CONQ_REFCOUNT_SATURATED_USE:
		return "use of a saturated count";
	case CONQ_REFCOUNT_BAD_INIT:
		return "init with a count <= 0";
	}
	return "unknown event";
}

/* One line the first time (as the kernel's WARN_ONCE); abort() at every
 * report when CONQ_REFCOUNT_ABORT=1. */
static void conq__rc_default_hook(const conq_refcount *r,
				  enum conq_refcount_event ev)
{
	/* relaxed: a flag that only decides who prints; it publishes
	 * nothing. The load keeps later reports from writing its line. */
	if (conq__load_relaxed(&conq__rc_warned) == 0 &&
	    conq__faa_relaxed(&conq__rc_warned, 1u) == 0)
		fprintf(stderr,
			"conq: refcount %p: %s; saturated at %d, the object "
			"is leaked (reported once; CONQ_REFCOUNT_ABORT=1 "
			"aborts)\n",
			(const void *)r, conq__rc_event_name(ev),
			CONQ_REFCOUNT_SATURATED);
	const char *a = getenv("CONQ_REFCOUNT_ABORT");
	if (a != NULL && strcmp(a, "1") == 0)
		abort();
}

conq_refcount_hook conq_refcount_set_hook(conq_refcount_hook h)
{
	/* [RC4] acq_rel: the release half pairs with [RC5], so that what the
	 * caller set up for its hook before installing it is visible to
	 * every report that calls it; the acquire half pairs with the
	 * previous [RC4], so that the previous hook's setup is visible to us,
	 * who may chain to it or restore it. */
	return conq__xchg_acq_rel(&conq__rc_hook, h);
}

void conq__refcount_saturate(conq_refcount *r, enum conq_refcount_event ev)
{
	/* relaxed: a count that went wrong orders nothing any more (release
	 * never returns true for a negative count); see refcount.h. */
	conq__store_relaxed(&r->n, (int32_t)CONQ_REFCOUNT_SATURATED);
	/* [RC5] acquire: pairs with [RC4]. */
	conq_refcount_hook h = conq__load_acquire(&conq__rc_hook);
	if (h == NULL)
		h = conq__rc_default_hook;
	h(r, ev);
}
