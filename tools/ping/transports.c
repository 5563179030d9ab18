/* SPDX-License-Identifier: BSD-2-Clause */
/* transports.c - the table of conq-ping's transports (ping.h), and what
 * every transport shares. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ping.h"

/* One row per transport; a new one is a file with its functions and a line
 * here. */
const ping_transport *const ping_transports[] = {
    &ping_tcp,
    &ping_udp,
    &ping_shm,
    NULL,
};

const char *const ping_wait_names[PING_NWAITS] = {
    [PING_WAIT_SPIN] = "spin",
    [PING_WAIT_EPOLL_SPIN] = "epoll-spin",
    [PING_WAIT_EPOLL] = "epoll",
    [PING_WAIT_BLOCK] = "block",
};

const ping_transport *ping_transport_find(const char *name)
{
	for (size_t i = 0; ping_transports[i] != NULL; i++)
		if (strcmp(ping_transports[i]->name, name) == 0)
			return ping_transports[i];
	return NULL;
}

void ping_ep_init(ping_ep *ep, const ping_transport *tr, uint64_t timeout_ns)
{
	memset(ep, 0, sizeof *ep);
	ep->tr = tr;
	ep->fd = ep->lfd = ep->epfd = -1;
	ep->wait = PING_WAIT_BLOCK;
	ep->timeout_ns = timeout_ns;
	ep->timeout_tick = ping_ns_to_ticks(timeout_ns);
}

int ping_fail(ping_ep *ep, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ep->err, sizeof ep->err, fmt, ap);
	va_end(ap);
	return code;
}
