/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock.c - conq-ping's TCP and UDP transports (ping.h): two rows that share
 * the waiting.
 *
 * Wait modes, the same on both ends and for send and recv:
 *   spin        O_NONBLOCK socket; recv/send in a loop until it succeeds
 *   epoll-spin  epoll_wait(timeout 0) in a loop until the socket is
 *               readable, then recv
 *   epoll       epoll_wait with a timeout (epoll_pwait2's nanoseconds when
 *               the open loop waits until its next send), then recv
 *   block       blocking recv/send, SO_RCVTIMEO/SO_SNDTIMEO = the timeout
 * The spin loops read the clock only after a failed attempt (to see the
 * deadline), so a message that is there costs no clock read. TCP sockets
 * have TCP_NODELAY on both ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "ping.h"

/* sock_wait's "the timeout passed" (internal; the caller words the error). */
#define SOCK_TIMEDOUT (-2)

static void addr_str(const struct sockaddr *sa, socklen_t len, char *buf,
		     size_t n)
{
	char host[64], serv[16]; /* numeric: INET6_ADDRSTRLEN is 46 */
	if (getnameinfo(sa, len, host, sizeof host, serv, sizeof serv,
			NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
		snprintf(buf, n, "?");
		return;
	}
	if (sa->sa_family == AF_INET6)
		snprintf(buf, n, "[%s]:%s", host, serv);
	else
		snprintf(buf, n, "%s:%s", host, serv);
}

static int resolve(ping_ep *ep, const char *host, const char *port,
		   int socktype, bool passive, struct addrinfo **res)
{
	struct addrinfo hints;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = socktype;
	hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
	if (host != NULL && *host == '\0')
		host = NULL;
	int rc = getaddrinfo(host, port, &hints, res);
	if (rc == 0)
		return 0;
	return ping_fail(
	    ep, rc == EAI_AGAIN ? PING_EXIT_REACH : PING_EXIT_USAGE,
	    "bad address '%s': %s", host ? host : "*", gai_strerror(rc));
}

static int set_nodelay(ping_ep *ep, int fd)
{
	int one = 1;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
		return ping_fail(ep, PING_EXIT_SETUP, "TCP_NODELAY: %s",
				 strerror(errno));
	return 0;
}

static int sock_listen(ping_ep *ep, const char *host, const char *port,
		       int socktype)
{
	struct addrinfo *res, *ai;
	int rc = resolve(ep, host, port, socktype, true, &res);
	if (rc != 0)
		return rc;
	int fd = -1, e = 0;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		int one = 1;
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				 sizeof one);
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    (socktype != SOCK_STREAM || listen(fd, 1) == 0))
			break;
		e = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return ping_fail(ep, PING_EXIT_SETUP,
				 "cannot listen on %s:%s: %s",
				 host ? host : "*", port, strerror(e));
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
		addr_str((struct sockaddr *)&ss, len, ep->local,
			 sizeof ep->local);
	if (socktype == SOCK_STREAM)
		ep->lfd = fd;
	else
		ep->fd = fd;
	return 0;
}

/* Connect fd to ai within the timeout; 0 or an errno. */
static int connect_within(int fd, const struct addrinfo *ai, uint64_t ns)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0)
		return errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		if (errno != EINPROGRESS)
			return errno;
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		uint64_t ms = (ns + 999999u) / 1000000u;
		int n;
		do
			n = poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return errno;
		if (n == 0)
			return ETIMEDOUT;
		int e = 0;
		socklen_t el = sizeof e;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
			return errno;
		if (e != 0)
			return e;
	}
	return fcntl(fd, F_SETFL, fl) == 0 ? 0 : errno;
}

static int sock_connect(ping_ep *ep, const char *host, const char *port,
			int socktype)
{
	struct addrinfo *res, *ai;
	int rc = resolve(ep, host, port, socktype, false, &res);
	if (rc != 0)
		return rc;
	int fd = -1, e = 0;
	char where[128] = "?";
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		addr_str(ai->ai_addr, ai->ai_addrlen, where, sizeof where);
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		e = connect_within(fd, ai, ep->timeout_ns);
		if (e == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		if (e == ETIMEDOUT)
			return ping_fail(ep, PING_EXIT_REACH,
					 "cannot reach %s: no answer within "
					 "%.3f s",
					 where, (double)ep->timeout_ns / 1e9);
		return ping_fail(ep, PING_EXIT_REACH, "cannot reach %s: %s",
				 where, strerror(e));
	}
	ep->fd = fd;
	snprintf(ep->peer, sizeof ep->peer, "%s", where);
	if (socktype == SOCK_STREAM)
		return set_nodelay(ep, fd);
	return 0;
}

static int sock_set_wait(ping_ep *ep, ping_wait w)
{
	int fl = fcntl(ep->fd, F_GETFL);
	if (fl < 0)
		return ping_fail(ep, PING_EXIT_SETUP, "fcntl: %s",
				 strerror(errno));
	fl = w == PING_WAIT_BLOCK ? fl & ~O_NONBLOCK : fl | O_NONBLOCK;
	if (fcntl(ep->fd, F_SETFL, fl) != 0)
		return ping_fail(ep, PING_EXIT_SETUP, "fcntl: %s",
				 strerror(errno));
	if (ep->epfd >= 0) {
		close(ep->epfd);
		ep->epfd = -1;
	}
	if (w == PING_WAIT_EPOLL || w == PING_WAIT_EPOLL_SPIN) {
		ep->epfd = epoll_create1(EPOLL_CLOEXEC);
		struct epoll_event ev = {.events = EPOLLIN, .data.fd = ep->fd};
		if (ep->epfd < 0 ||
		    epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->fd, &ev) != 0)
			return ping_fail(ep, PING_EXIT_SETUP, "epoll: %s",
					 strerror(errno));
	}
	/* The blocking calls' bound (harmless on a non-blocking socket). */
	struct timeval tv = {
	    .tv_sec = (time_t)(ep->timeout_ns / 1000000000u),
	    .tv_usec = (suseconds_t)(ep->timeout_ns % 1000000000u / 1000u),
	};
	if (tv.tv_sec == 0 && tv.tv_usec == 0)
		tv.tv_usec = 1; /* 0 would mean "forever" */
	if (setsockopt(ep->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
	    setsockopt(ep->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0)
		return ping_fail(ep, PING_EXIT_SETUP, "SO_RCVTIMEO: %s",
				 strerror(errno));
	ep->wait = w;
	return 0;
}

/* Has the wait's time run out? 0: no; PING_AGAIN: until passed;
 * SOCK_TIMEDOUT: the timeout of an until-0 wait passed (*dl: its deadline,
 * set at its first look). */
static int check_time(const ping_ep *ep, uint64_t until, uint64_t *dl)
{
	uint64_t now = ping_now();
	if (until != 0)
		return now >= until ? PING_AGAIN : 0;
	if (*dl == 0) {
		*dl = now + ep->timeout_tick;
		return 0;
	}
	return now >= *dl ? SOCK_TIMEDOUT : 0;
}

static int epoll_within(int epfd, struct epoll_event *ev, uint64_t ns)
{
#ifdef SYS_epoll_pwait2
	static bool no_pwait2;
	if (!no_pwait2) {
		struct timespec ts = {(time_t)(ns / 1000000000u),
				      (long)(ns % 1000000000u)};
		long n = syscall(SYS_epoll_pwait2, epfd, ev, 1, &ts, NULL, 0);
		if (n >= 0 || errno != ENOSYS)
			return (int)n;
		no_pwait2 = true;
	}
#endif
	/* Milliseconds, rounded down: the caller looks again. */
	return epoll_wait(epfd, ev, 1, (int)(ns / 1000000u));
}

/* Wait for the socket to become readable (events EPOLLIN) or writable
 * (EPOLLOUT) in ep->wait's way: 0 (look again), PING_AGAIN, SOCK_TIMEDOUT,
 * or an exit code. A blocking call that returned EAGAIN timed out. */
static int sock_wait(ping_ep *ep, uint32_t events, uint64_t until, uint64_t *dl)
{
	struct epoll_event ev;
	int n, r;
	switch (ep->wait) {
	case PING_WAIT_BLOCK:
		return SOCK_TIMEDOUT;
	case PING_WAIT_EPOLL_SPIN:
		if (events != EPOLLIN)
			break; /* a full send buffer: spin on send */
		for (;;) {
			n = epoll_wait(ep->epfd, &ev, 1, 0);
			if (n > 0)
				return 0;
			if (n < 0 && errno != EINTR)
				return ping_fail(ep, PING_EXIT_SETUP,
						 "epoll_wait: %s",
						 strerror(errno));
			if (ep->yield)
				sched_yield();
			if ((r = check_time(ep, until, dl)) != 0)
				return r;
		}
	case PING_WAIT_EPOLL: {
		/* One wait of the time left (none left: one look). */
		uint64_t ns = ep->timeout_ns;
		if (until != 0) {
			uint64_t now = ping_now();
			ns = now < until
				 ? (uint64_t)ping_ticks_to_ns(until - now)
				 : 0;
		} else if (*dl != 0) {
			return SOCK_TIMEDOUT; /* a whole timeout went by */
		}
		if (events != EPOLLIN) {
			struct pollfd p = {.fd = ep->fd, .events = POLLOUT};
			uint64_t ms = ns / 1000000u;
			n = poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms);
		} else {
			n = epoll_within(ep->epfd, &ev, ns);
		}
		if (n < 0 && errno != EINTR)
			return ping_fail(ep, PING_EXIT_SETUP, "epoll_wait: %s",
					 strerror(errno));
		if (n == 0) {
			if (until != 0)
				return ns == 0 ? PING_AGAIN : 0;
			*dl = 1; /* the next empty look is the timeout */
		}
		return 0;
	}
	case PING_WAIT_SPIN:
	case PING_NWAITS:
		break;
	}
	if (ep->yield)
		sched_yield();
	return check_time(ep, until, dl);
}

/* A failed socket call's errno as an exit code and a message. */
static int sock_error(ping_ep *ep, const char *call, int e)
{
	switch (e) {
	case ECONNRESET:
		return ping_fail(ep, PING_EXIT_PEER,
				 "%s: the connection was reset by the peer",
				 call);
	case ECONNREFUSED:
		return ping_fail(ep, PING_EXIT_PEER,
				 "%s: connection refused (nothing listens at "
				 "%s)",
				 call, ep->peer);
	case EPIPE:
		return ping_fail(ep, PING_EXIT_PEER,
				 "%s: the peer closed the connection", call);
	default:
		return ping_fail(ep, PING_EXIT_PEER, "%s: %s", call,
				 strerror(e));
	}
}

static int rx_timedout(ping_ep *ep, int r, size_t len)
{
	if (r != SOCK_TIMEDOUT)
		return r;
	double s = (double)ep->timeout_ns / 1e9;
	if (ep->rx_got > 0)
		return ping_fail(ep, PING_EXIT_PROTO,
				 "short message: %zu of %zu bytes, then "
				 "nothing for %.3f s",
				 ep->rx_got, len, s);
	return ping_fail(ep, PING_EXIT_PEER,
			 "no message from %s for %.3f s (the peer died or "
			 "hangs)",
			 ep->peer, s);
}

static int tx_timedout(ping_ep *ep, int r)
{
	if (r != SOCK_TIMEDOUT)
		return r;
	return ping_fail(ep, PING_EXIT_PEER,
			 "send: %s takes nothing for %.3f s (the peer died or "
			 "hangs)",
			 ep->peer, (double)ep->timeout_ns / 1e9);
}

static bool epoll_mode(const ping_ep *ep)
{
	return ep->wait == PING_WAIT_EPOLL || ep->wait == PING_WAIT_EPOLL_SPIN;
}

/* ---- TCP --------------------------------------------------------------- */

static int tcp_listen(ping_ep *ep, const char *host, const char *port)
{
	return sock_listen(ep, host, port, SOCK_STREAM);
}

static int tcp_accept(ping_ep *ep)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	int fd;
	do
		fd = accept4(ep->lfd, (struct sockaddr *)&ss, &len,
			     SOCK_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return ping_fail(ep, PING_EXIT_SETUP, "accept: %s",
				 strerror(errno));
	close(ep->lfd); /* one client */
	ep->lfd = -1;
	ep->fd = fd;
	addr_str((struct sockaddr *)&ss, len, ep->peer, sizeof ep->peer);
	return set_nodelay(ep, fd);
}

static int tcp_connect(ping_ep *ep, const char *host, const char *port)
{
	return sock_connect(ep, host, port, SOCK_STREAM);
}

static int tcp_send(ping_ep *ep, const void *buf, size_t len, uint64_t until)
{
	const unsigned char *p = (const unsigned char *)buf;
	uint64_t dl = 0;
	for (;;) {
		ssize_t n = send(ep->fd, p + ep->tx_sent, len - ep->tx_sent,
				 MSG_NOSIGNAL);
		if (n >= 0) {
			ep->tx_sent += (size_t)n;
			if (ep->tx_sent == len) {
				ep->tx_sent = 0;
				return 0;
			}
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return sock_error(ep, "send", errno);
		int r = sock_wait(ep, EPOLLOUT, until, &dl);
		if (r != 0)
			return tx_timedout(ep, r);
	}
}

static int tcp_recv(ping_ep *ep, void *buf, size_t len, uint64_t until)
{
	unsigned char *p = (unsigned char *)buf;
	bool first_wait = epoll_mode(ep);
	uint64_t dl = 0;
	int r;
	for (;;) {
		if (first_wait && (r = sock_wait(ep, EPOLLIN, until, &dl)) != 0)
			return rx_timedout(ep, r, len);
		ssize_t n = recv(ep->fd, p + ep->rx_got, len - ep->rx_got, 0);
		if (n > 0) {
			ep->rx_got += (size_t)n;
			if (ep->rx_got == len) {
				ep->rx_got = 0;
				return 0;
			}
			continue;
		}
		if (n == 0) {
			if (ep->rx_got > 0)
				return ping_fail(ep, PING_EXIT_PROTO,
						 "short message: the peer "
						 "closed the connection after "
						 "%zu of %zu bytes",
						 ep->rx_got, len);
			return ping_fail(ep, PING_EXIT_PEER,
					 "the peer (%s) closed the connection",
					 ep->peer);
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return sock_error(ep, "recv", errno);
		if (!first_wait &&
		    (r = sock_wait(ep, EPOLLIN, until, &dl)) != 0)
			return rx_timedout(ep, r, len);
	}
}

static void sock_close(ping_ep *ep)
{
	if (ep->fd >= 0)
		close(ep->fd);
	if (ep->lfd >= 0)
		close(ep->lfd);
	if (ep->epfd >= 0)
		close(ep->epfd);
	ep->fd = ep->lfd = ep->epfd = -1;
}

const ping_transport ping_tcp = {
    .name = "tcp",
    .about = "TCP, TCP_NODELAY on both ends",
    .waits = (1u << PING_WAIT_SPIN) | (1u << PING_WAIT_EPOLL_SPIN) |
	     (1u << PING_WAIT_EPOLL) | (1u << PING_WAIT_BLOCK),
    .max_size = 1u << 20,
    .max_why = "conq-ping's TCP limit",
    .listen = tcp_listen,
    .accept = tcp_accept,
    .connect = tcp_connect,
    .set_wait = sock_set_wait,
    .send = tcp_send,
    .recv = tcp_recv,
    .close = sock_close,
};

/* ---- UDP --------------------------------------------------------------- */

static int udp_listen(ping_ep *ep, const char *host, const char *port)
{
	return sock_listen(ep, host, port, SOCK_DGRAM);
}

/* The client is whoever sends the first datagram (left in the socket for
 * the hello); the socket is connected to it, so nobody else is heard. */
static int udp_accept(ping_ep *ep)
{
	struct sockaddr_storage ss;
	socklen_t len;
	unsigned char b;
	ssize_t n;
	do {
		len = sizeof ss;
		n = recvfrom(ep->fd, &b, 1, MSG_PEEK, (struct sockaddr *)&ss,
			     &len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return ping_fail(ep, PING_EXIT_SETUP, "recvfrom: %s",
				 strerror(errno));
	if (connect(ep->fd, (struct sockaddr *)&ss, len) != 0)
		return ping_fail(ep, PING_EXIT_SETUP, "connect: %s",
				 strerror(errno));
	addr_str((struct sockaddr *)&ss, len, ep->peer, sizeof ep->peer);
	return 0;
}

static int udp_connect(ping_ep *ep, const char *host, const char *port)
{
	return sock_connect(ep, host, port, SOCK_DGRAM);
}

static int udp_send(ping_ep *ep, const void *buf, size_t len, uint64_t until)
{
	uint64_t dl = 0;
	for (;;) {
		ssize_t n = send(ep->fd, buf, len, MSG_NOSIGNAL);
		if (n >= 0) {
			if ((size_t)n != len)
				return ping_fail(ep, PING_EXIT_SETUP,
						 "send: %zd of %zu bytes", n,
						 len);
			return 0;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS)
			return sock_error(ep, "send", errno);
		int r = sock_wait(ep, EPOLLOUT, until, &dl);
		if (r != 0)
			return tx_timedout(ep, r);
	}
}

static int udp_recv(ping_ep *ep, void *buf, size_t len, uint64_t until)
{
	bool first_wait = epoll_mode(ep);
	uint64_t dl = 0;
	int r;
	for (;;) {
		if (first_wait && (r = sock_wait(ep, EPOLLIN, until, &dl)) != 0)
			return rx_timedout(ep, r, len);
		/* MSG_TRUNC: the datagram's real length, even if longer. */
		ssize_t n = recv(ep->fd, buf, len, MSG_TRUNC);
		if (n >= 0) {
			if ((size_t)n == len)
				return 0;
			return ping_fail(ep, PING_EXIT_PROTO,
					 "%s message: a datagram of %zd "
					 "bytes, expected %zu",
					 (size_t)n < len ? "short" : "long", n,
					 len);
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return sock_error(ep, "recv", errno);
		if (!first_wait &&
		    (r = sock_wait(ep, EPOLLIN, until, &dl)) != 0)
			return rx_timedout(ep, r, len);
	}
}

const ping_transport ping_udp = {
    .name = "udp",
    .about = "UDP, one datagram per message (a lost one ends the run)",
    .waits = (1u << PING_WAIT_SPIN) | (1u << PING_WAIT_EPOLL_SPIN) |
	     (1u << PING_WAIT_EPOLL) | (1u << PING_WAIT_BLOCK),
    .max_size = 65507, /* 65535 - 8 (UDP) - 20 (IPv4) */
    .max_why = "what a UDP datagram over IPv4 carries",
    .listen = udp_listen,
    .accept = udp_accept,
    .connect = udp_connect,
    .set_wait = sock_set_wait,
    .send = udp_send,
    .recv = udp_recv,
    .close = sock_close,
};
