/* SPDX-License-Identifier: BSD-2-Clause */
/* Cold paths of conq_mpsc_intrusive: init, create, destroy, waiting. */
#include <errno.h>

#include "conq/mpsc_intrusive.h"
#include "internal.h"

void conq_mpsc_intrusive_init(conq_mpsc_intrusive *q)
{
	q->head.next = NULL;
	q->tail = &q->head;
	q->pops = 0;
	q->wlast = NULL;
	q->wmark = 0;
	q->chase = 0;
	conq_eventcount_init(&q->nonempty, 0);
}

conq_mpsc_intrusive *conq_mpsc_intrusive_create(void)
{
	conq_mpsc_intrusive *q = (conq_mpsc_intrusive *)conq__alloc_aligned(
	    sizeof(conq_mpsc_intrusive));
	if (q != NULL)
		conq_mpsc_intrusive_init(q);
	return q;
}

void conq_mpsc_intrusive_destroy(conq_mpsc_intrusive *q)
{
	conq__free_aligned(q);
}

conq_mpsc_intrusive_node *
conq__mpsc_intrusive_wait(conq_mpsc_intrusive_node *const *link)
{
	unsigned spins = 0;
	for (;;) {
		/* [MI3] acquire: pairs with [MI2] of the producer that has
		 * exchanged and will link here. */
		conq_mpsc_intrusive_node *n = conq__load_acquire(link);
		if (n != NULL)
			return n;
		conq__wait_backoff(&spins);
	}
}

conq_mpsc_intrusive_node *
conq__mpsc_intrusive_chase(conq_mpsc_intrusive *q,
			   conq_mpsc_intrusive_node *const *link,
			   unsigned looks)
{
	for (unsigned i = 0; i < looks; i++) {
		conq__watch_gap(CONQ__MPSC_INTRUSIVE_CHASE_GAP);
		/* [MI3] acquire: pairs with [MI2]. */
		conq_mpsc_intrusive_node *n = conq__load_acquire(link);
		if (n != NULL)
			return n;
	}
	q->chase = 0;
	return NULL;
}
