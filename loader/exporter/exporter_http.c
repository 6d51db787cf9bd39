// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <microhttpd.h>
#include "cli.h"
#include "clock.h"
#include "exporter_gate.h"
#include "exporter_http.h"
#include "exporter_metrics.h"
#include "log.h"
#include "port_holder.h"

struct http_server {
	struct MHD_Daemon *mhd;
	int listen;			/* accepted by the gatekeeper, not by MHD */
	int stop;			/* eventfd: the gatekeeper returns */
	pthread_t gatekeeper;
	bool keeping;			/* the gatekeeper runs */
	pthread_mutex_t gate_lock;	/* guards the gate */
	struct gate gate;
	int wake;			/* eventfd: a request waits */
	pthread_mutex_t lock;		/* guards what follows */
	pthread_cond_t ready;		/* an exposition was published */
	unsigned long asked;		/* requests numbered so far */
	unsigned long served;		/* requests up to this one have theirs */
	bool stopping;
	char *text;			/* the newest exposition, NULL if it failed */
	size_t len;
};

int listen_addr_parse(struct listen_addr *a, const char *arg)
{
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&a->ss;
	struct sockaddr_in *v4 = (struct sockaddr_in *)&a->ss;
	char host[INET6_ADDRSTRLEN], shown[256];
	const char *end, *port;
	bool bracket = arg[0] == '[';
	__u32 p;

	memset(a, 0, sizeof(*a));
	end = bracket ? strstr(arg, "]:") : strrchr(arg, ':');
	port = end ? end + (bracket ? 2 : 1) : NULL;
	if (end && (size_t)(end - arg - bracket) < sizeof(host))
		snprintf(host, sizeof(host), "%.*s", (int)(end - arg - bracket), arg + bracket);
	else
		host[0] = '\0';
	if (!end || !host[0] ||
	    (bracket ? inet_pton(AF_INET6, host, &v6->sin6_addr) : inet_pton(AF_INET, host, &v4->sin_addr)) != 1) {
		log_printable(arg, shown, sizeof(shown));
		log_err("bad --listen '%s': expected ADDR:PORT or [ADDR]:PORT with a numeric IPv4 or IPv6 address",
			shown);
		return -EINVAL;
	}
	if (parse_u32("--listen port", port, 1, 65535, &p))
		return -EINVAL;
	if (bracket) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(p);
		a->len = sizeof(*v6);
		inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
	} else {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(p);
		a->len = sizeof(*v4);
		inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
	}
	snprintf(a->shown, sizeof(a->shown), bracket ? "[%s]:%u" : "%s:%u", host, p);
	return 0;
}

/* The port is taken: whoever holds it, when it is in view, is what the
 * operator must stop or move.
 */
static void say_in_use(const struct listen_addr *a)
{
	struct port_holder holder;

	if (port_holder_find(&a->ss, &holder))
		log_err("cannot listen on %s: Address already in use by another process", a->shown);
	else
		log_err("cannot listen on %s: Address already in use by %s (pid %d)", a->shown,
			holder.comm, (int)holder.pid);
}

/* Bound and listening here, so that a port in use is told apart from
 * every other failure of libmicrohttpd's start, which sets no errno.
 * Non-blocking: a client gone between poll() and accept() must not hold
 * up the gatekeeper.
 */
static int listen_on(const struct listen_addr *a)
{
	int fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), on = 1;

	if (fd >= 0 && !setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) &&
	    !bind(fd, (const struct sockaddr *)&a->ss, a->len) && !listen(fd, SOMAXCONN))
		return fd;
	if (errno == EADDRINUSE)
		say_in_use(a);
	else
		log_err("cannot listen on %s: %s", a->shown, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     const char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned int status, const char *text)
{
	return reply(c, status, "text/plain; charset=utf-8", text, strlen(text));
}

/* Waits, without a deadline of its own, for the main thread: a scraper
 * that gives up closes the connection, and a stop wakes every waiter.
 */
static enum MHD_Result reply_metrics(struct http_server *h, struct MHD_Connection *c)
{
	enum MHD_Result ret;
	unsigned long mine;

	pthread_mutex_lock(&h->lock);
	mine = ++h->asked;
	eventfd_write(h->wake, 1);
	while (!h->stopping && h->served < mine)
		pthread_cond_wait(&h->ready, &h->lock);
	if (h->stopping)
		ret = reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "cpusteer exporter: stopping\n");
	else if (!h->text)
		ret = reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				 "cpusteer exporter: cannot read the instances (its stderr says why)\n");
	else
		ret = reply(c, MHD_HTTP_OK, METRICS_CONTENT_TYPE, h->text, h->len);
	pthread_mutex_unlock(&h->lock);
	return ret;
}

static double now_s(void)
{
	return monotonic_ns() / 1e9;
}

static int fd_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

	return i ? i->connect_fd : -1;
}

/* Answers at the first call, before any request body is read: none is
 * needed, and libmicrohttpd closes a connection whose body it skipped.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct http_server *h = cls;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	pthread_mutex_lock(&h->gate_lock);
	gate_answering(&h->gate, fd_of(c), now_s());
	pthread_mutex_unlock(&h->gate_lock);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "cpusteer exporter: only GET and HEAD\n");
	if (strcmp(url, "/metrics"))
		return reply_text(c, MHD_HTTP_NOT_FOUND,
				  "cpusteer exporter: the metrics are at /metrics\n");
	return reply_metrics(cls, c);
}

/* libmicrohttpd's own messages, with -v. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[512];

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	log_debug("libmicrohttpd: %s", line);
}

/* The answer went out (or the request was cut short): a kept-alive
 * connection waits for its next request, under the deadline of one.
 */
static void on_completed(void *cls, struct MHD_Connection *c, void **state,
			 enum MHD_RequestTerminationCode why)
{
	struct http_server *h = cls;

	(void)state;
	(void)why;
	pthread_mutex_lock(&h->gate_lock);
	gate_answered(&h->gate, fd_of(c), now_s());
	pthread_mutex_unlock(&h->gate_lock);
}

/* libmicrohttpd calls this before it closes the socket, so a descriptor
 * the gate holds is never one reused by another connection.
 */
static void on_connection(void *cls, struct MHD_Connection *c, void **state,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http_server *h = cls;

	(void)state;
	if (code != MHD_CONNECTION_NOTIFY_CLOSED)
		return;
	pthread_mutex_lock(&h->gate_lock);
	gate_closed(&h->gate, fd_of(c));
	pthread_mutex_unlock(&h->gate_lock);
}

/* Accepts one connection, if the gate lets it in. Shutting a connection
 * down (the one it takes the place of) makes its thread see the end of
 * it and close it; the descriptor stays libmicrohttpd's.
 */
static void admit(struct http_server *h)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd = accept4(h->listen, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC), evict, err;
	struct timespec pause = { 0, 50 * 1000 * 1000 };

	if (fd < 0) {
		/* Out of descriptors or memory: the backlog waits a little. */
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
			nanosleep(&pause, NULL);
		return;
	}
	pthread_mutex_lock(&h->gate_lock);
	err = gate_admit(&h->gate, fd, (struct sockaddr *)&ss, now_s(), &evict);
	if (!err && evict >= 0)
		shutdown(evict, SHUT_RDWR);
	pthread_mutex_unlock(&h->gate_lock);
	if (err) {
		close(fd);
		return;
	}
	/* On failure it has closed fd, and only this thread accepts: no
	 * other connection has the number yet.
	 */
	if (MHD_add_connection(h->mhd, fd, (struct sockaddr *)&ss, len) != MHD_YES) {
		pthread_mutex_lock(&h->gate_lock);
		gate_closed(&h->gate, fd);
		pthread_mutex_unlock(&h->gate_lock);
	}
}

static void close_expired(struct http_server *h)
{
	int fds[GATE_TRACKED];
	size_t i, n;

	pthread_mutex_lock(&h->gate_lock);
	n = gate_expired(&h->gate, now_s(), fds, GATE_TRACKED);
	for (i = 0; i < n; i++)
		shutdown(fds[i], SHUT_RDWR);
	pthread_mutex_unlock(&h->gate_lock);
}

/* Milliseconds until the next deadline, for poll(). */
static int next_timeout(struct http_server *h)
{
	double next;

	pthread_mutex_lock(&h->gate_lock);
	next = gate_next_deadline(&h->gate);
	pthread_mutex_unlock(&h->gate_lock);
	if (!next)
		return -1;
	next -= now_s();
	return next > 0 ? (int)(next * 1000) + 1 : 0;
}

/* Accepts every connection through the gate (exporter_gate.h) and
 * closes those past their deadline.
 */
static void *keep_gate(void *arg)
{
	struct http_server *h = arg;
	struct pollfd fds[2] = {
		{ .fd = h->listen, .events = POLLIN },
		{ .fd = h->stop, .events = POLLIN },
	};

	for (;;) {
		if (poll(fds, 2, next_timeout(h)) < 0 && errno != EINTR)
			break;
		if (fds[1].revents)
			break;
		if (fds[0].revents & POLLIN)
			admit(h);
		close_expired(h);
	}
	return NULL;
}

int http_start(struct http_server **out, const struct listen_addr *a)
{
	struct http_server *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	h->listen = -1;
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->gate_lock, NULL);
	pthread_cond_init(&h->ready, NULL);
	h->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	h->stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->wake < 0 || h->stop < 0) {
		log_err("exporter: cannot make an eventfd: %s", strerror(errno));
		http_stop(h);
		return -EIO;
	}
	h->listen = listen_on(a);
	if (h->listen < 0) {
		http_stop(h);
		return -EADDRNOTAVAIL;
	}
	/* Its limit is above the gate's, for the connections shut down
	 * that have not closed yet.
	 */
	h->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
				  MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC | MHD_USE_POLL |
				  MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, h,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				  MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned int)GATE_TRACKED + 1,
				  MHD_OPTION_END);
	if (!h->mhd) {
		log_err("cannot serve on %s: libmicrohttpd did not start (-v for why)", a->shown);
		http_stop(h);
		return -EIO;
	}
	h->keeping = !pthread_create(&h->gatekeeper, NULL, keep_gate, h);
	if (!h->keeping) {
		log_err("cannot serve on %s: no thread to accept connections", a->shown);
		http_stop(h);
		return -EIO;
	}
	*out = h;
	return 0;
}

void http_stop(struct http_server *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stopping = true;
	pthread_cond_broadcast(&h->ready);
	pthread_mutex_unlock(&h->lock);
	if (h->keeping) {
		eventfd_write(h->stop, 1);
		pthread_join(h->gatekeeper, NULL);
	}
	/* Joins the connection threads. */
	if (h->mhd)
		MHD_stop_daemon(h->mhd);
	if (h->listen >= 0)
		close(h->listen);
	if (h->stop >= 0)
		close(h->stop);
	if (h->wake >= 0)
		close(h->wake);
	pthread_cond_destroy(&h->ready);
	pthread_mutex_destroy(&h->gate_lock);
	pthread_mutex_destroy(&h->lock);
	free(h->text);
	free(h);
}

int http_wake_fd(const struct http_server *h)
{
	return h->wake;
}

unsigned long http_waiting(struct http_server *h)
{
	unsigned long upto;
	eventfd_t n;

	eventfd_read(h->wake, &n);
	pthread_mutex_lock(&h->lock);
	upto = h->asked > h->served ? h->asked : 0;
	pthread_mutex_unlock(&h->lock);
	return upto;
}

void http_publish(struct http_server *h, char *text, size_t len, unsigned long upto)
{
	pthread_mutex_lock(&h->lock);
	free(h->text);
	h->text = text;
	h->len = len;
	if (upto > h->served)
		h->served = upto;
	pthread_cond_broadcast(&h->ready);
	pthread_mutex_unlock(&h->lock);
}
